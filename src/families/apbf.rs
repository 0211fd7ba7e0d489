//! `bfopt model apbf|apbbf`, `bfopt optimize apbf`, `bfopt simulate apbf|apbbf`.

use crate::exit::CliError;
use crate::families::sim::{SimArgs, SIM_FLAGS};
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::apbf::{design, pareto, ApbbfParams, ApbfDesign, ApbfParams, ApbfRequirement};
use bfopt_validation::experiments::apbf::{
    prediction, probe_interval, simulate, ApbfSimConfig, ApbfSimFilter,
};
use clap::Args;
use serde_json::json;

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("k", "--hashes"),
    ("l", "--extra-slices"),
    ("window", "--window"),
    ("slice_bits", "--slice-bits"),
    ("block_bits", "--block-bits"),
    ("block_hashes", "--block-hashes"),
    ("fp", "--fp"),
    ("memory", "--memory"),
    ("max_accesses", "--max-accesses"),
    ("max_npws", "--max-npws"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// `k` and `l`.
#[derive(Debug, Args)]
pub struct ShapeArgs {
    /// Slices (segments) written per insertion, k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Extra slices (segments), l (1 to 4096).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub extra_slices: u64,
}

impl ShapeArgs {
    fn k_l(&self) -> Result<(u32, u32), CliError> {
        Ok((
            to_u32("--hashes", self.hashes, "1 <= k <= 64")?,
            to_u32("--extra-slices", self.extra_slices, "1 <= l <= 4096")?,
        ))
    }
}

/// `bfopt model apbf` flags.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// k and l.
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Size for a window of at least this many insertions (g = ⌈w/l⌉).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, conflicts_with = "slice_bits")]
    pub window: Option<u64>,
    /// Size with slices of this many bits (g = ⌊m ln2/k⌋).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub slice_bits: Option<u64>,
}

impl ModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// Any flag out of range, named.
    pub fn params(&self) -> Result<ApbfParams, CliError> {
        let (k, l) = self.shape.k_l()?;
        let p = ApbfParams::new(k, l).map_err(model_err)?;
        match (self.window, self.slice_bits) {
            (Some(w), _) => p.with_window(w),
            (None, Some(m)) => p.with_slice_bits(m),
            (None, None) => Ok(p),
        }
        .map_err(model_err)
    }
}

/// `bfopt model apbf`.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    let mut row = Row::new("apbf", json!({ "k": p.k(), "l": p.l() }), p.metrics());
    if let Some(w) = args.window {
        row = row.param("window", w);
    }
    if let Some(m) = args.slice_bits {
        row = row.param("slice_bits", m);
    }
    Ok(Report::single(row))
}

/// Block flags of the APBBF.
#[derive(Debug, Args)]
pub struct BlockArgs {
    /// Block size B in bits (a power of two, 64 to 65536; units accepted).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub block_bits: u64,
    /// Bits set per block b (a divisor of B).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub block_hashes: u64,
}

impl BlockArgs {
    fn b_b(&self) -> Result<(u32, u32), CliError> {
        Ok((
            to_u32(
                "--block-bits",
                self.block_bits,
                "a power of two from 64 to 65536",
            )?,
            to_u32("--block-hashes", self.block_hashes, "1 <= b <= 64")?,
        ))
    }
}

/// `bfopt model apbbf` flags.
#[derive(Debug, Args)]
pub struct BlockedModelArgs {
    /// k and l.
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// The blocks.
    #[command(flatten)]
    pub block: BlockArgs,
    /// Size for a window of at least this many insertions.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: Option<u64>,
}

impl BlockedModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// Any flag out of range, named.
    pub fn params(&self) -> Result<ApbbfParams, CliError> {
        let (k, l) = self.shape.k_l()?;
        let (bb, b) = self.block.b_b()?;
        let p = ApbbfParams::new(k, l, bb, b).map_err(model_err)?;
        match self.window {
            Some(w) => p.with_window(w).map_err(model_err),
            None => Ok(p),
        }
    }
}

/// `bfopt model apbbf`.
///
/// # Errors
/// Invalid flags.
pub fn model_blocked(args: &BlockedModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    let mut row = Row::new(
        "apbbf",
        json!({ "k": p.k(), "l": p.l(), "block_bits": p.block_bits(), "block_hashes": p.block_hashes() }),
        p.metrics(),
    );
    if let Some(w) = args.window {
        row = row.param("window", w);
    }
    // Every window holds items: the FP is positive.
    Ok(Report::single(super::tiny::underflow(
        row,
        false,
        || p.ln_fps(),
        "model apbbf",
    )?))
}

/// `bfopt optimize apbf` flags.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable worst-case false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Insertions that must never be missed.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: u64,
    /// Memory budget (bits, or with a unit: 8Mb, 16MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub memory: Option<u64>,
    /// Largest expected accesses of a non-member query (false or false positive).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_accesses: Option<f64>,
    /// Largest peak NPWS (Section 5.2).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_npws: Option<f64>,
    /// Size an APBBF (needs --block-bits and --block-hashes).
    #[arg(long, requires_all = ["block_bits", "block_hashes"])]
    pub blocked: bool,
    /// Block size B of the APBBF.
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true, requires = "blocked")]
    pub block_bits: Option<u64>,
    /// Bits set per block b of the APBBF.
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true, requires = "blocked")]
    pub block_hashes: Option<u64>,
    /// List the Pareto set over (memory, accesses, NPWS), the default choice marked.
    #[arg(long)]
    pub all: bool,
}

impl OptimizeArgs {
    /// The validated requirement.
    ///
    /// # Errors
    /// Any flag out of range, named.
    pub fn requirement(&self) -> Result<ApbfRequirement, CliError> {
        let mut req = ApbfRequirement::new(self.fp, self.window).map_err(model_err)?;
        if let Some(m) = self.memory {
            req = req.with_memory(m).map_err(model_err)?;
        }
        if let Some(a) = self.max_accesses {
            req = req.with_max_accesses(a).map_err(model_err)?;
        }
        if let Some(x) = self.max_npws {
            req = req.with_max_npws(x).map_err(model_err)?;
        }
        if self.blocked {
            let block = BlockArgs {
                block_bits: self.block_bits.unwrap_or(0),
                block_hashes: self.block_hashes.unwrap_or(0),
            };
            let (bb, b) = block.b_b()?;
            req = req.blocked(bb, b).map_err(model_err)?;
        }
        Ok(req)
    }
}

/// A design as a row: the requirement in `params`, the choice and its figures in
/// `metrics`.
pub fn design_row(req: &ApbfRequirement, d: &ApbfDesign, default: bool) -> Row {
    let family = if d.structure == bfopt_models::apbf::Structure::Apbf {
        "apbf"
    } else {
        "apbbf"
    };
    let m = &d.metrics;
    Row::new(family, req, json!({}))
        .metric("k", d.k)
        .metric("l", d.l)
        .metric("fp", m.fp)
        .metric("total_bits", m.total_bits)
        .metric("bits_per_item", m.bits_per_item)
        .metric("window", m.window)
        .metric("generation", m.generation)
        .metric("accesses", m.accesses())
        .metric("accesses_false", m.accesses_false)
        .metric("accesses_fp", m.accesses_fp)
        .metric("npws", m.npws)
        .metric("binding", d.binding)
        .metric("default", default)
}

/// `bfopt optimize apbf`.
///
/// # Errors
/// Invalid flags; exit 3 naming the binding constraint when nothing fits.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let req = args.requirement()?;
    if args.all {
        let best = design(&req).map_err(model_err)?;
        let front = pareto(&req).map_err(model_err)?;
        let rows = front
            .iter()
            .map(|d| design_row(&req, d, d.k == best.k && d.l == best.l))
            .collect();
        Ok(Report::list(rows))
    } else {
        let d = design(&req).map_err(model_err)?;
        Ok(Report::single(design_row(&req, &d, true)))
    }
}

/// `bfopt simulate apbf` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter (a window or slice size is required).
    #[command(flatten)]
    pub filter: ModelArgs,
    /// Generations measured per epoch (after k + l + 1 warm-up generations).
    #[arg(long, default_value = "20", value_parser = parse_count, allow_hyphen_values = true)]
    pub generations: u64,
    /// Points per generation at which the FP is measured.
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub phases: u64,
    /// The simulation (`--probes` is per epoch, spread over the measured points).
    #[command(flatten)]
    pub sim: SimArgs,
}

/// `bfopt simulate apbbf` flags.
#[derive(Debug, Args)]
pub struct BlockedSimulateArgs {
    /// The filter (`--window` is required).
    #[command(flatten)]
    pub filter: BlockedModelArgs,
    /// Generations measured per epoch (after k + l + 1 warm-up generations).
    #[arg(long, default_value = "20", value_parser = parse_count, allow_hyphen_values = true)]
    pub generations: u64,
    /// Points per generation at which the FP is measured.
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub phases: u64,
    /// The simulation (`--probes` is per epoch, spread over the measured points).
    #[command(flatten)]
    pub sim: SimArgs,
}

/// `bfopt simulate apbf`: predicted vs measured FP (worst case, phase average,
/// probes), accesses and false negatives.
///
/// # Errors
/// Invalid flags (an unsized filter included) or trace.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let p = args.filter.params()?;
    if p.sizing().is_none() {
        return Err(CliError::invalid(
            "--window",
            "none",
            "a window or --slice-bits to simulate",
        ));
    }
    run_sim(
        ApbfSimFilter::Apbf(p),
        args.generations,
        args.phases,
        &args.sim,
    )
}

/// `bfopt simulate apbbf`.
///
/// # Errors
/// Invalid flags or trace.
pub fn simulate_blocked_cmd(args: &BlockedSimulateArgs) -> Result<Report, CliError> {
    let p = args.filter.params()?;
    if p.sizing().is_none() {
        return Err(CliError::invalid(
            "--window",
            "none",
            "a window to simulate",
        ));
    }
    run_sim(
        ApbfSimFilter::Apbbf(p),
        args.generations,
        args.phases,
        &args.sim,
    )
}

fn run_sim(
    filter: ApbfSimFilter,
    generations: u64,
    phases: u64,
    sim: &SimArgs,
) -> Result<Report, CliError> {
    let mut flags = FLAGS.to_vec();
    flags.extend_from_slice(SIM_FLAGS);
    flags.extend_from_slice(&[("generations", "--generations"), ("phases", "--phases")]);
    let err = |e| CliError::from_model(e, &flags);
    let window = match filter {
        ApbfSimFilter::Apbf(p) => p.window(),
        ApbfSimFilter::Apbbf(p) => p.window(),
    }
    .unwrap_or(0);
    let mut cfg = ApbfSimConfig {
        filter,
        workload: sim.workload(window)?,
        epochs: sim.epochs,
        generations,
        phases,
        probes: 1,
        seed: sim.seed,
        confidence: sim.confidence,
    };
    let points = cfg.phase_points().len() as u64;
    cfg.probes = (sim.probes / (generations.max(1) * points.max(1))).max(1);
    let r = simulate(&cfg).map_err(err)?;
    let p = prediction(&cfg);
    let (family, params) = match filter {
        ApbfSimFilter::Apbf(q) => ("apbf", json!({ "k": q.k(), "l": q.l() })),
        ApbfSimFilter::Apbbf(q) => (
            "apbbf",
            json!({ "k": q.k(), "l": q.l(), "block_bits": q.block_bits(), "block_hashes": q.block_hashes() }),
        ),
    };
    let (probe_lo, probe_hi) = probe_interval(&r);
    let agrees = r.worst_fp.interval.contains(p.worst_fp)
        && r.average_fp.interval.contains(p.average_fp)
        && (probe_lo..=probe_hi).contains(&p.average_fp)
        && r.false_negatives == 0;
    let row = Row::new(family, params, json!({}))
        .param("window", window)
        .param("workload", cfg.workload.describe())
        .param("epochs", cfg.epochs)
        .param("generations", cfg.generations)
        .param("probes_per_point", cfg.probes)
        .param("seed", cfg.seed)
        .metric("fp", p.worst_fp)
        .metric("fp_paper", p.worst_fp_paper)
        .measured("measured_fp", r.worst_fp.mean, r.worst_fp.interval)
        .metric("fp_average", p.average_fp)
        .measured(
            "measured_fp_average",
            r.average_fp.mean,
            r.average_fp.interval,
        )
        .metric("probe_fp", r.probe_fp.rate)
        .metric("probe_fp_lo", probe_lo)
        .metric("probe_fp_hi", probe_hi)
        .metric("accesses_false", p.accesses_false)
        .metric("measured_accesses_false", r.accesses_false.mean)
        .metric("accesses_fp", p.accesses_fp)
        .metric("measured_accesses_fp", r.accesses_fp.mean)
        .metric("accesses_window", p.accesses_window)
        .metric("measured_accesses_window", r.accesses_window.mean)
        .metric("window_checks", r.window_checks)
        .metric("false_negatives", r.false_negatives)
        .metric("confidence", cfg.confidence)
        .metric("agrees", agrees);
    let mut report = Report::single(row);
    if matches!(cfg.duplicates(), Ok(Some(_))) {
        report.notes.push(
            "predicted with the model of repeats inside the window (bfopt_models::apbf::duplicates); accesses_window is the distinct-stream figure (a repeated item's younger occurrence is found sooner: not modelled)"
                .into(),
        );
    } else if !matches!(cfg.workload, bfopt_validation::workload::Workload::Distinct) {
        report.notes.push(
            "the model assumes distinct insertions; with repeats it is an upper bound (Section 5.6.2)"
                .to_string(),
        );
    }
    Ok(report)
}
