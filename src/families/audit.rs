//! `bfopt audit <family>`: how a live filter is doing, from its occupancy (issue 22).
//!
//! A raw bit array (`--bitmap FILE`) is read as bytes in little-endian bit order: bit `i`
//! of the filter is `(byte[i / 8] >> (i % 8)) & 1`. That is the layout of a bit array
//! stored in `u64` words on a little-endian machine and dumped as bytes (e.g. the words
//! of fastbloom's `as_slice()` written with `to_le_bytes`).

use crate::exit::CliError;
use crate::families::classic::LayoutArgs;
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::classic::{ClassicOccupancy, Layout, Ones};
use clap::{Args, Subcommand};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("m", "--bits"),
    ("k", "--hashes"),
    ("ones", "--ones"),
    ("block_bits", "--block-bits"),
    ("fp", "--fp"),
    ("confidence", "--confidence"),
];

/// What `--bitmap` holds, for the help texts.
pub const BITMAP_HELP: &str =
    "raw bytes, little-endian bit order: bit i is (byte[i/8] >> (i%8)) & 1";

/// `bfopt audit <family>`.
#[derive(Debug, Subcommand)]
pub enum AuditFamily {
    /// Standard, partitioned or blocked Bloom filter: distinct items with an interval,
    /// FP given the bits, headroom before an FP target.
    #[command(
        after_help = "Examples:\n  bfopt audit classic --bits 1e6 --hashes 7 --ones 400000 --fp 0.01\n  bfopt audit classic --hashes 7 --bitmap filter.bin --fp 0.01\n  bfopt audit classic --bits 1000 --hashes 4 --layout partitioned --ones 120,118,125,121\n\n--bitmap: raw bytes, little-endian bit order: bit i is (byte[i/8] >> (i%8)) & 1 (a u64 bit array\ndumped with to_le_bytes); --bits defaults to the file's bit length."
    )]
    Classic(ClassicAuditArgs),
    /// Age-Partitioned Bloom filter: FP given the bits, distinct items per generation and
    /// in the current generation, from the set bits of each slice.
    #[command(
        after_help = "Example:\n  bfopt audit apbf --hashes 2 --extra-slices 2 --slice-bits 1000 --ones 250,600,400,390\n\n--ones: one count per slice, k + l counts, youngest slice first."
    )]
    Apbf(ApbfAuditArgs),
    /// Stable Bloom filter: distance of the zero cells from the stable point, insertions
    /// since empty while converging, FP given the cells.
    #[command(
        after_help = "Example:\n  bfopt audit sbf --cells 1e6 --hashes 3 --max 3 --decrements 10 --zeros 300000"
    )]
    Sbf(SbfAuditArgs),
    /// Importance-aware Bloom filter (IBF1-IBF6, or the SBF as a policy): distance of the
    /// zero cells from the model's stable point, insertions since empty while
    /// converging, FP given the cells.
    #[command(
        after_help = "Example:\n  bfopt audit ibf --policy ibf3 --cells 512 --hashes 4 --max 5 --decrements 5 --zeros 140\n\nThe band's variance: two-cell chains for random deletion (sbf, ibf1; --decrement-cells says\nwhich cells), the linear-noise approximation of the whole filter for ibf2-ibf6 (for ibf2 and ibf4 not calibrated\nwhere no insertion saturates the counters: there, while m·Max/P <= 1351, the variance is measured on a\nseeded reference filter instead, JSON variance simulated; beyond, a bound, linear_noise_bound)."
    )]
    Ibf(IbfAuditArgs),
    /// Block Timing Bloom filter: distinct items last inserted in the last a + 1 blocks
    /// and the FP of a query accepting ages up to a, from the timers' age histogram.
    #[command(
        after_help = "Example:\n  bfopt audit btbf --hashes 3 --ages 290,300,310,295 --idle 2901\n\n--ages: timers per age in blocks, age 0 (the current block) first; --idle: timers expired or never\nwritten. A standard BTBF at block offset b accepts ages up to ceil((w - b)/B)."
    )]
    Btbf(BtbfAuditArgs),
}

/// `bfopt audit btbf` flags.
#[derive(Debug, Args)]
pub struct BtbfAuditArgs {
    /// Hash functions k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Timers per age in blocks, comma-separated, age 0 first.
    #[arg(long, value_parser = parse_count, value_delimiter = ',', allow_hyphen_values = true, required = true)]
    pub ages: Vec<u64>,
    /// Timers expired or never written.
    #[arg(long, default_value = "0", value_parser = parse_count, allow_hyphen_values = true)]
    pub idle: u64,
    /// Two-sided confidence of the intervals.
    #[arg(long, default_value = "0.95", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// `bfopt audit apbf` flags.
#[derive(Debug, Args)]
pub struct ApbfAuditArgs {
    /// k, l and the slice size (--slice-bits, or --window to size as `model apbf`).
    #[command(flatten)]
    pub filter: crate::families::apbf::ModelArgs,
    /// Set bits of each slice, k + l comma-separated counts, youngest slice first.
    #[arg(long, value_parser = parse_count, value_delimiter = ',', allow_hyphen_values = true, required = true)]
    pub ones: Vec<u64>,
    /// Two-sided confidence of the intervals.
    #[arg(long, default_value = "0.95", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// Which cells a Stable Bloom filter's deletion phase decrements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DecrementsArg {
    /// A run of P consecutive cells from a random start (Deng and Rafiei's code).
    Consecutive,
    /// P distinct cells drawn at random.
    Distinct,
}

/// `bfopt audit sbf` flags.
#[derive(Debug, Args)]
pub struct SbfAuditArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: crate::families::stable::SbfArgs,
    /// Zero cells counted in the live filter (0 to m).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub zeros: u64,
    /// Which P cells the deletion phase decrements (sets the spread of the zero count).
    #[arg(long, value_enum, default_value_t = DecrementsArg::Consecutive)]
    pub decrement_cells: DecrementsArg,
    /// Two-sided confidence of the band around the stable point.
    #[arg(long, default_value = "0.95", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// `bfopt audit ibf` flags.
#[derive(Debug, Args)]
pub struct IbfAuditArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: crate::families::stable::IbfArgs,
    /// Zero cells counted in the live filter (0 to m).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub zeros: u64,
    /// Which P cells random deletion (sbf, ibf1) decrements [default: consecutive]; the
    /// other policies pick cells by weight or rank.
    #[arg(long, value_enum)]
    pub decrement_cells: Option<DecrementsArg>,
    /// Two-sided confidence of the band around the stable point.
    #[arg(long, default_value = "0.95", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// `bfopt audit classic` flags.
#[derive(Debug, Args)]
pub struct ClassicAuditArgs {
    /// Total bits m (units accepted: 8Mb, 1MiB); default with --bitmap: the file's bits.
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: Option<u64>,
    /// Hash functions k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Set bits: the total, or one count per slice (partitioned) or per block (blocked),
    /// comma-separated. Not with --bitmap.
    #[arg(long, value_parser = parse_count, value_delimiter = ',', allow_hyphen_values = true)]
    pub ones: Vec<u64>,
    /// A raw bit array to count (raw bytes, little-endian bit order: bit i is
    /// (byte[i/8] >> (i%8)) & 1).
    #[arg(long)]
    pub bitmap: Option<PathBuf>,
    /// FP target: report how many more distinct items fit before it is exceeded.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: Option<f64>,
    /// Two-sided confidence of the interval on the item count.
    #[arg(long, default_value = "0.95", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
    /// The layout.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// Runs `bfopt audit <family>`.
///
/// # Errors
/// Invalid flags or an unreadable bitmap (exit 2).
pub fn audit(family: &AuditFamily) -> Result<Report, CliError> {
    match family {
        AuditFamily::Classic(a) => classic(a),
        AuditFamily::Apbf(a) => apbf(a),
        AuditFamily::Sbf(a) => sbf(a),
        AuditFamily::Ibf(a) => ibf(a),
        AuditFamily::Btbf(a) => btbf(a),
    }
}

/// `bfopt audit btbf`: one row per age.
///
/// # Errors
/// Invalid flags (exit 2).
pub fn btbf(args: &BtbfAuditArgs) -> Result<Report, CliError> {
    let flags = &[
        ("k", "--hashes"),
        ("ages", "--ages"),
        ("m", "--ages/--idle"),
        ("confidence", "--confidence"),
    ];
    let k = to_u32("--hashes", args.hashes, "1 <= k <= 64")?;
    let h = bfopt_models::timing::TimerHistogram::new(k, args.ages.clone(), args.idle)
        .map_err(|e| CliError::from_model(e, flags))?;
    let rows = h
        .audit(args.confidence)
        .map_err(|e| CliError::from_model(e, flags))?
        .into_iter()
        .map(|r| Row::new("btbf", json!({"m": h.timers(), "k": k}), r))
        .collect();
    Ok(Report::list(rows))
}

/// `bfopt audit apbf`.
///
/// # Errors
/// Invalid flags (exit 2).
pub fn apbf(args: &ApbfAuditArgs) -> Result<Report, CliError> {
    let flags = &[
        ("k", "--hashes"),
        ("l", "--extra-slices"),
        ("slice_bits", "--slice-bits"),
        ("window", "--window"),
        ("ones", "--ones"),
        ("confidence", "--confidence"),
    ];
    let p = args.filter.params()?;
    let Some(sizing) = p.sizing() else {
        return Err(CliError::invalid(
            "--slice-bits/--window",
            "neither",
            "one of --slice-bits S or --window W (the slices' size)",
        ));
    };
    let audit =
        bfopt_models::apbf::ApbfOccupancy::new(p.k(), p.l(), sizing.slice_bits, args.ones.clone())
            .and_then(|o| o.audit(args.confidence))
            .map_err(|e| CliError::from_model(e, flags))?;
    let params = json!({"k": p.k(), "l": p.l(), "slice_bits": sizing.slice_bits});
    let row = Row::new("apbf", params, json!({}))
        .metric("fp", audit.fp)
        .metric("fp_design", audit.fp_design)
        .metric("generation_design", audit.generation_design);
    let row = with_estimate(row, "generation", audit.generation);
    let row = with_estimate(row, "current", audit.current_generation)
        .metric("confidence", args.confidence)
        .metric("full_slice_fill", audit.full_slice_fill)
        .metric("slice_ones", &audit.slice_ones)
        .metric("slice_items", &audit.slice_items);
    Ok(Report::single(row))
}

/// Adds `<prefix>_items`, `_items_sd`, `_items_lo`, `_items_hi` to a row.
fn with_estimate(row: Row, prefix: &str, e: bfopt_models::classic::ItemEstimate) -> Row {
    row.metric(&format!("{prefix}_items"), e.items)
        .metric(&format!("{prefix}_items_sd"), e.items_sd)
        .metric(&format!("{prefix}_items_lo"), e.items_lo)
        .metric(&format!("{prefix}_items_hi"), e.items_hi)
}

impl From<DecrementsArg> for bfopt_models::stable::Decrements {
    fn from(d: DecrementsArg) -> Self {
        match d {
            DecrementsArg::Consecutive => Self::Consecutive,
            DecrementsArg::Distinct => Self::Distinct,
        }
    }
}

/// The report of a stable-point audit: one row, and a note when the zeros lie outside
/// the band.
fn stable_report(row: Row, audit: &bfopt_models::stable::StableAudit) -> Report {
    let mut report = Report::single(row);
    if !audit.at_stable_point {
        report.notes.push(format!(
            "note: the zero fraction is {:.2} standard deviations from the stable point",
            audit.distance_sd
        ));
    }
    if audit.variance == bfopt_models::stable::ZeroVariance::Binomial {
        report.notes.push(
            "note: the band uses the binomial variance (the filter is too large for the exact spread): cells are correlated, so it is not calibrated"
                .into(),
        );
    }
    report
}

/// `bfopt audit sbf`.
///
/// # Errors
/// Invalid flags (exit 2).
pub fn sbf(args: &SbfAuditArgs) -> Result<Report, CliError> {
    use bfopt_models::stable::{Decrements, SbfOccupancy};
    let flags = &[("zeros", "--zeros"), ("confidence", "--confidence")];
    let p = args.filter.params()?;
    let decrements = Decrements::from(args.decrement_cells);
    let audit = SbfOccupancy::new(p, args.zeros, decrements)
        .and_then(|o| o.audit(args.confidence))
        .map_err(|e| CliError::from_model(e, flags))?;
    let params = json!({
        "m": p.m(), "k": p.k(), "max": p.max(), "p": p.p(), "decrement_cells": decrements,
    });
    Ok(stable_report(Row::new("sbf", params, audit), &audit))
}

/// `bfopt audit ibf`.
///
/// # Errors
/// Invalid flags, or `--decrement-cells` with a policy that does not delete at random
/// (exit 2).
pub fn ibf(args: &IbfAuditArgs) -> Result<Report, CliError> {
    use bfopt_models::stable::{Decrements, IbfOccupancy};
    let flags = &[("zeros", "--zeros"), ("confidence", "--confidence")];
    let p = args.filter.params()?;
    let policy = p.policy();
    let decrements = match (args.decrement_cells, policy.is_local()) {
        (Some(d), false) => {
            return Err(CliError::invalid(
                "--decrement-cells",
                format!("{d:?}").to_lowercase(),
                format!(
                    "none with --policy {} (only random deletion, sbf and ibf1, picks P cells by position)",
                    policy.name()
                ),
            ))
        }
        (d, _) => d.map_or(Decrements::Consecutive, Decrements::from),
    };
    let occupancy =
        IbfOccupancy::new(&p, decrements).map_err(|e| CliError::from_model(e, flags))?;
    let (occupancy, simulated) = simulated_band(&p, occupancy, args.confidence)
        .map_err(|e| CliError::from_model(e, flags))?;
    let audit = occupancy
        .audit(args.zeros, args.confidence)
        .map_err(|e| CliError::from_model(e, flags))?;
    let mut params = json!({
        "policy": policy.name(), "m": p.m(), "k": p.k(), "max": p.max(), "p": p.p(),
        "importance": p.importance().spec(),
    });
    if policy.is_local() {
        params["decrement_cells"] = json!(decrements);
    }
    let mut row = Row::new("ibf", params, audit);
    if let Some(sim) = simulated {
        row = row.metric(
            "simulation",
            json!({
                "seed": sim.seed, "burn_in": sim.burn_in, "batches": sim.batches,
                "batch_len": sim.batch_len, "variance": sim.variance, "variance_se": sim.se,
                "mean_distance": sim.mean_distance, "drift": sim.drift,
                "degrees_of_freedom": sim.degrees_of_freedom(),
            }),
        );
    }
    let mut report = stable_report(row, &audit);
    if let Some(sim) = simulated {
        report.notes.push(format!(
            "note: {}'s band is simulated: where no insertion saturates the counters MinImp's linear noise is only a bound, so Var Z is the mean squared distance of the reference filter's zero count from the stable point, {:.1} ± {:.1} (standard error), over {} batches of {} insertions after {} (seed {}), its Monte-Carlo error folded in as a Student-t band with {:.0} degrees of freedom",
            policy.name(),
            sim.variance,
            sim.se,
            sim.batches,
            sim.batch_len,
            sim.burn_in,
            sim.seed,
            sim.degrees_of_freedom(),
        ));
    }
    if audit.variance == bfopt_models::stable::ZeroVariance::LinearNoiseBound {
        report.notes.push(format!(
            "note: {}'s band is a bound, not calibrated: with counters that no insertion saturates MinImp holds the zero count tighter than the linear noise (measured variance 0.49-0.51 of the model's for ibf2 at m = 512, 8-bit counters); zeros outside it are off the stable point, zeros inside it may be too. Counters that importances saturate (--counter-bits 4 with importances up to 50) are calibrated",
            policy.name()
        ));
    }
    Ok(report)
}

/// Seed of the reference filter behind a simulated audit band.
const SIMULATION_SEED: u64 = 22;

/// An IBF's audit model and, where its band was measured, the measurement.
type WithSimulation = (
    bfopt_models::stable::IbfOccupancy,
    Option<bfopt_validation::experiments::stable_spread::SimulatedSpread>,
);

/// `occupancy` with its variance measured on the reference filter where the computed one
/// is not calibrated for a global policy (MinImp whose counters no insertion saturates:
/// a bound, or beyond the linear noise's work limit), within the simulation's budget
/// (`bfopt_validation::experiments::stable_spread`); unchanged otherwise. Random deletion
/// (sbf, ibf1) is left alone: the reference filter decrements runs, `--decrement-cells`
/// may say otherwise.
fn simulated_band(
    p: &bfopt_models::stable::IbfParams,
    occupancy: bfopt_models::stable::IbfOccupancy,
    confidence: f64,
) -> Result<WithSimulation, bfopt_models::ModelError> {
    use bfopt_validation::experiments::stable_spread::simulate_zero_spread;
    if occupancy.zero_variance().1.is_calibrated() || p.policy().is_local() {
        return Ok((occupancy, None));
    }
    let stable_zeros = occupancy.solution().zero_fraction() * p.m() as f64;
    match simulate_zero_spread(p, stable_zeros, SIMULATION_SEED) {
        Some(sim) => Ok((
            occupancy.with_simulated_variance(sim.band_variance(confidence))?,
            Some(sim),
        )),
        None => Ok((occupancy, None)),
    }
}

/// Reads a bitmap file, or an error naming it and what is allowed.
fn read_bitmap(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::File {
        path: path.display().to_string(),
        line: 0,
        message: format!(
            "cannot be read as --bitmap: {e} (allowed: a readable file of {BITMAP_HELP})"
        ),
    })
}

/// The `--bits` of a bitmap: the flag, at most the file's bits, or the file's bits.
fn bitmap_bits(bits: Option<u64>, bytes: &[u8], path: &Path) -> Result<u64, CliError> {
    let have = (bytes.len() as u64).saturating_mul(8);
    match bits {
        Some(m) if m > have => Err(CliError::invalid(
            "--bits",
            m,
            format!("at most the {have} bits of {}", path.display()),
        )),
        Some(m) => Ok(m),
        None if have == 0 => Err(CliError::File {
            path: path.display().to_string(),
            line: 0,
            message: format!("empty --bitmap (allowed: at least one byte of {BITMAP_HELP})"),
        }),
        None => Ok(have),
    }
}

/// `bfopt audit classic`.
///
/// # Errors
/// Invalid flags or an unreadable bitmap (exit 2).
pub fn classic(args: &ClassicAuditArgs) -> Result<Report, CliError> {
    let k = to_u32("--hashes", args.hashes, "1 <= k <= 64")?;
    let layout = args.layout.layout()?;
    let model_err = |e| CliError::from_model(e, FLAGS);
    let mut notes = Vec::new();
    let (occupancy, source) = match (&args.bitmap, args.ones.as_slice()) {
        (Some(path), _) => {
            let bytes = read_bitmap(path)?;
            if !args.ones.is_empty() {
                let given: Vec<String> = args.ones.iter().map(u64::to_string).collect();
                return Err(CliError::invalid(
                    "--ones",
                    given.join(","),
                    "none with --bitmap (--ones cannot be used with --bitmap, whose bits are counted)",
                ));
            }
            let m = bitmap_bits(args.bits, &bytes, path)?;
            if m < bytes.len() as u64 * 8 {
                notes.push(format!(
                    "note: counted the first {m} of the {} bits of {}",
                    bytes.len() * 8,
                    path.display()
                ));
            }
            let o = ClassicOccupancy::from_bytes(m, k, layout, &bytes).map_err(model_err)?;
            (o, "bitmap")
        }
        (None, []) => {
            return Err(CliError::invalid(
                "--ones/--bitmap",
                "neither",
                "one of --ones N (or one count per slice/block) or --bitmap FILE",
            ))
        }
        (None, ones) => {
            let m = args.bits.ok_or_else(|| {
                CliError::invalid(
                    "--bits",
                    "missing",
                    "the filter's bits m (required with --ones)",
                )
            })?;
            let ones = match (ones, layout) {
                ([total], Layout::Standard) => Ones::Total(*total),
                ([total], Layout::Partitioned) if k != 1 => Ones::Total(*total),
                ([total], Layout::Blocked { block_bits }) if m / block_bits != 1 => {
                    Ones::Total(*total)
                }
                (list, _) => Ones::PerUnit(list.to_vec()),
            };
            let o = ClassicOccupancy::new(m, k, layout, ones).map_err(model_err)?;
            (o, "ones")
        }
    };
    let audit = occupancy
        .audit(args.confidence, args.fp)
        .map_err(model_err)?;
    let p = occupancy.params();
    let mut row = Row::new(
        "classic",
        json!({"m": p.m(), "k": p.k(), "layout": layout.name(), "source": source}),
        audit,
    );
    if let Layout::Blocked { block_bits } = layout {
        row = row.param("block_bits", block_bits);
    }
    if let (Layout::Partitioned, Ones::PerUnit(v)) = (layout, occupancy.ones()) {
        row = row.metric("ones_per_slice", v);
    }
    if audit.estimate.items.is_none() {
        notes.push("note: every bit is set: the item count has no finite estimate".into());
    }
    match audit.fp_kind {
        bfopt_models::classic::FpKind::UpperBound => notes.push(
            "note: fp is an upper bound (per-slice counts unknown; give --ones per slice or --bitmap)"
                .into(),
        ),
        bfopt_models::classic::FpKind::Model => notes.push(
            "note: fp is the model's at the estimated count (per-block counts unknown; give --bitmap)"
                .into(),
        ),
        bfopt_models::classic::FpKind::Exact => {}
    }
    if audit.headroom.is_some_and(|h| h.exceeded) {
        notes.push("note: the FP given the bits already exceeds --fp".into());
    }
    let mut report = Report::single(row);
    report.notes = notes;
    Ok(report)
}
