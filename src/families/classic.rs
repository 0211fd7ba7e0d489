//! `bfopt model|optimize|simulate classic`.

use crate::exit::CliError;
use crate::families::sim::{SimArgs, SIM_FLAGS};
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::classic::{
    best_k, capacity, design, ln_fp_exact_standard, ClassicMetrics, ClassicParams,
    ClassicRequirement, FpLaw, Layout, EXACT_BUDGET,
};
use bfopt_validation::experiments::classic::{prediction, simulate, ClassicSimConfig};
use clap::{Args, ValueEnum};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("m", "--bits"),
    ("k", "--hashes"),
    ("n", "--items"),
    ("block_bits", "--block-bits"),
    ("fp", "--fp"),
    ("k_max", "--max-hashes"),
];

/// Block size used when `--layout blocked` has no `--block-bits`: one 64-byte cache line.
pub const DEFAULT_BLOCK_BITS: u64 = 512;

/// Bit layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// One array; an item's indices may collide.
    Standard,
    /// k slices of m/k bits.
    Partitioned,
    /// Blocks of --block-bits bits (default 512); k bits in one block.
    Blocked,
}

/// Layout flags shared by every classic verb.
#[derive(Debug, Args)]
pub struct LayoutArgs {
    /// Bit layout.
    #[arg(long, value_enum, default_value_t = LayoutArg::Standard)]
    pub layout: LayoutArg,
    /// Block size of the blocked layout (a multiple of 64 bits; units accepted).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub block_bits: Option<u64>,
}

impl LayoutArgs {
    /// The layout.
    ///
    /// # Errors
    /// `--block-bits` without `--layout blocked`.
    pub fn layout(&self) -> Result<Layout, CliError> {
        match (self.layout, self.block_bits) {
            (LayoutArg::Blocked, b) => Ok(Layout::Blocked {
                block_bits: b.unwrap_or(DEFAULT_BLOCK_BITS),
            }),
            (_, Some(b)) => Err(CliError::invalid(
                "--block-bits",
                b,
                "only with --layout blocked",
            )),
            (LayoutArg::Standard, None) => Ok(Layout::Standard),
            (LayoutArg::Partitioned, None) => Ok(Layout::Partitioned),
        }
    }
}

/// A filter's size: `--bits --hashes --items` and its layout.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Total bits m (units accepted: 8Mb, 1MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: u64,
    /// Hash functions k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Distinct items inserted n.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// The layout.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

impl ModelArgs {
    /// Validated parameters. A blocked layout's `--bits` that is not a whole number of
    /// blocks is rounded up to the next whole block ([`Self::rounded_bits`]).
    ///
    /// # Errors
    /// Any flag out of range, named.
    pub fn params(&self) -> Result<ClassicParams, CliError> {
        let k = to_u32("--hashes", self.hashes, "1 <= k <= 64")?;
        let layout = self.layout.layout()?;
        let bits = self.rounded_bits(layout).unwrap_or(self.bits);
        ClassicParams::new(bits, k, self.items, layout).map_err(|e| CliError::from_model(e, FLAGS))
    }

    /// `--bits` rounded up to whole blocks when the layout is blocked and `--bits` is not
    /// a multiple of the block; `None` when no rounding is needed.
    pub fn rounded_bits(&self, layout: Layout) -> Option<u64> {
        match layout {
            Layout::Blocked { block_bits } if block_bits > 0 && self.bits % block_bits != 0 => {
                Some(self.bits.div_ceil(block_bits).saturating_mul(block_bits))
            }
            _ => None,
        }
    }

    /// Adds `bits_requested` and a `note` to `row` when [`Self::rounded_bits`] rounded
    /// `--bits` up.
    fn note_rounding(&self, row: Row, params: &ClassicParams) -> Row {
        match params.layout() {
            Layout::Blocked { block_bits } if params.m() != self.bits => row
                .param("bits_requested", self.bits)
                .param(
                    "note",
                    format!(
                        "--bits {} is not a whole number of {block_bits}-bit blocks: rounded up to {} ({} blocks)",
                        self.bits,
                        params.m(),
                        params.m() / block_bits
                    ),
                ),
            _ => row,
        }
    }
}

/// `bfopt model classic`.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    let row = args.note_rounding(Row::new("classic", p, p.metrics()), &p);
    Ok(Report::single(super::tiny::underflow(
        row,
        p.n() == 0,
        || ln_fps(&p),
        "model classic",
    )?))
}

/// The natural logs of the FP metrics of [`ClassicParams::metrics`] that have a
/// log-space form (`fp`, `fp_approx`, `fp_exact`), for [`super::tiny::underflow`].
pub fn ln_fps(p: &ClassicParams) -> Vec<(&'static str, f64)> {
    let mut logs = vec![("fp_approx", p.ln_fp_approx())];
    if let Some(ln) = p.ln_fp() {
        logs.push(("fp", ln));
    }
    let exact = match p.layout() {
        Layout::Standard if p.fp_law() == FpLaw::Exact => p.ln_fp(),
        Layout::Standard => ln_fp_exact_standard(p.m(), p.k(), p.n(), EXACT_BUDGET),
        Layout::Partitioned => p.ln_fp(),
        Layout::Blocked { .. } => None,
    };
    if let Some(ln) = exact {
        logs.push(("fp_exact", ln));
    }
    logs
}

/// `bfopt optimize classic` flags: one of three questions.
///
/// * `--fp P --items N`: the smallest filter (m, k) holding N items at FP ≤ P;
/// * `--bits M --items N`: the best k for M bits and N items;
/// * `--bits M --hashes K --fp P`: the capacity, the most items at FP ≤ P.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: Option<f64>,
    /// Distinct items to hold.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: Option<u64>,
    /// Total bits (for the best-k and capacity questions).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: Option<u64>,
    /// Hash functions (for the capacity question).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: Option<u64>,
    /// Largest hash count to consider when sizing (fewer accesses, more bits).
    #[arg(long, default_value = "64", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
    /// The layout.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// Sizes a classic filter; the row's metrics lead with `bits`, `hashes`, `fp`.
pub fn design_row(req: &ClassicRequirement) -> Result<Row, CliError> {
    let d = design(req).map_err(|e| CliError::from_model(e, FLAGS))?;
    let mut row = with_metrics(
        Row::new("classic", req, serde_json::json!({}))
            .metric("bits", d.params.m())
            .metric("hashes", d.params.k()),
        d.metrics,
    );
    if let Layout::Blocked { block_bits } = d.params.layout() {
        row = row.param("block_bits", block_bits);
    }
    Ok(row)
}

/// `bfopt optimize classic`.
///
/// # Errors
/// Invalid flags or a combination that asks none of the three questions; exit 3 when
/// no filter meets the target.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let layout = args.layout.layout()?;
    let model_err = |e| CliError::from_model(e, FLAGS);
    match (args.fp, args.items, args.bits, args.hashes) {
        (Some(fp), Some(n), None, None) => {
            let k_max = to_u32("--max-hashes", args.max_hashes, "1 <= k_max <= 64")?;
            let req = ClassicRequirement::new(fp, n, layout)
                .and_then(|r| r.with_k_max(k_max))
                .map_err(model_err)?;
            Ok(Report::single(design_row(&req)?))
        }
        (None, Some(n), Some(m), None) => {
            let (k, _) = best_k(m, n, layout).map_err(model_err)?;
            let p = ClassicParams::new(m, k, n, layout).map_err(model_err)?;
            let row = Row::new("classic", p, serde_json::json!({})).metric("hashes", k);
            Ok(Report::single(with_metrics(row, p.metrics())))
        }
        (Some(fp), None, Some(m), Some(k)) => {
            let k = to_u32("--hashes", k, "1 <= k <= 64")?;
            let n = capacity(m, k, fp, layout).map_err(model_err)?;
            let p = ClassicParams::new(m, k, n, layout).map_err(model_err)?;
            let row = Row::new("classic", p, serde_json::json!({}))
                .param("fp_target", fp)
                .metric("capacity", n);
            Ok(Report::single(with_metrics(row, p.metrics())))
        }
        _ => Err(CliError::invalid(
            "--fp/--items/--bits/--hashes",
            "this combination",
            "one of: --fp P --items N (size) | --bits M --items N (best k) | --bits M --hashes K --fp P (capacity)",
        )),
    }
}

/// Appends a metrics struct to a row's metrics.
fn with_metrics(mut row: Row, metrics: ClassicMetrics) -> Row {
    row.metrics.extend(Row::new("classic", (), metrics).metrics);
    row
}

/// `bfopt simulate classic` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: ModelArgs,
    /// The simulation.
    #[command(flatten)]
    pub sim: SimArgs,
}

/// `bfopt simulate classic`: predicted vs measured FP with intervals.
///
/// # Errors
/// Invalid flags or trace.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let cfg = ClassicSimConfig {
        params,
        workload: args.sim.workload(params.n())?,
        epochs: args.sim.epochs,
        probes: args.sim.probes,
        seed: args.sim.seed,
        confidence: args.sim.confidence,
    };
    let r = simulate(&cfg).map_err(|e| {
        let mut flags = FLAGS.to_vec();
        flags.extend_from_slice(SIM_FLAGS);
        CliError::from_model(e, &flags)
    })?;
    let metrics = params.metrics();
    let (predicted, _) = prediction(&params);
    let row = Row::new("classic", params, serde_json::json!({}))
        .param("workload", cfg.workload.describe())
        .param("epochs", cfg.epochs)
        .param("probes", cfg.probes)
        .param("seed", cfg.seed)
        .metric("fp", metrics.fp)
        .metric("fp_exact", metrics.fp_exact)
        .measured("measured_fp", r.probe_fp.rate, r.probe_fp.interval)
        .metric("false_positives", r.probe_fp.successes)
        .measured("state_fp", r.state_fp.mean, r.state_fp.interval)
        .metric("fill", metrics.fill)
        .metric("measured_fill", r.fill.mean)
        .metric("arrivals", r.arrivals)
        .metric("confidence", cfg.confidence)
        .metric(
            "agrees",
            r.probe_fp.interval.contains(predicted) && r.state_fp.interval.contains(predicted),
        );
    Ok(Report::single(args.filter.note_rounding(row, &params)))
}
