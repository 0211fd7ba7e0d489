//! `bfopt model|optimize|simulate cuckoo`.

use crate::exit::CliError;
use crate::families::sim::{sim_error, DistinctSimArgs};
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_count, parse_real};
use bfopt_models::cuckoo::{design, CuckooParams, CuckooRequirement};
use bfopt_validation::experiments::cuckoo::{simulate, CuckooSimConfig};
use clap::Args;

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("f", "--fingerprint-bits"),
    ("b", "--bucket-size"),
    ("buckets", "--buckets"),
    ("n", "--items"),
    ("fp", "--fp"),
];

/// A cuckoo filter: `--fingerprint-bits --bucket-size --buckets --items`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Fingerprint bits f (2 to 32).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub fingerprint_bits: u64,
    /// Slots per bucket b (1 to 16; the measured maximal loads cover 1, 2, 4, 8).
    #[arg(long, default_value = "4", value_parser = parse_count, allow_hyphen_values = true)]
    pub bucket_size: u64,
    /// Buckets in the table.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub buckets: u64,
    /// Items stored n (at most bucket-size × buckets).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
}

impl ModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// A flag out of range, named.
    pub fn params(&self) -> Result<CuckooParams, CliError> {
        let f = to_u32("--fingerprint-bits", self.fingerprint_bits, "2 <= f <= 32")?;
        let b = to_u32("--bucket-size", self.bucket_size, "1 <= b <= 16")?;
        CuckooParams::new(f, b, self.buckets, self.items)
            .map_err(|e| CliError::from_model(e, FLAGS))
    }
}

/// `bfopt model cuckoo`.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    Ok(Report::single(Row::new("cuckoo", p, p.metrics())))
}

/// `bfopt optimize cuckoo`: fewest buckets at the safe load, then fewest fingerprint bits.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Items to hold.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// Slots per bucket: 1, 2, 4 or 8.
    #[arg(long, default_value = "4", value_parser = parse_count, allow_hyphen_values = true)]
    pub bucket_size: u64,
}

/// `bfopt optimize cuckoo`.
///
/// # Errors
/// Invalid flags; exit 3 when 32-bit fingerprints miss the target.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let model_err = |e| CliError::from_model(e, FLAGS);
    let b = to_u32("--bucket-size", args.bucket_size, "b in {1, 2, 4, 8}")?;
    let req = CuckooRequirement::new(args.fp, args.items)
        .and_then(|r| r.with_b(b))
        .map_err(model_err)?;
    let d = design(&req).map_err(model_err)?;
    Ok(Report::single(
        Row::new("cuckoo", req, d.metrics)
            .metric("fingerprint_bits", d.params.f())
            .metric("buckets", d.params.buckets()),
    ))
}

/// `bfopt simulate cuckoo` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: ModelArgs,
    /// The simulation.
    #[command(flatten)]
    pub sim: DistinctSimArgs,
}

/// `bfopt simulate cuckoo`: predicted vs measured FP, insertion failures.
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let cfg = CuckooSimConfig {
        params,
        epochs: args.sim.epochs,
        probes: args.sim.probes,
        seed: args.sim.seed,
        confidence: args.sim.confidence,
    };
    let r = simulate(&cfg).map_err(|e| sim_error(e, FLAGS))?;
    let m = params.metrics();
    let row = Row::new("cuckoo", params, serde_json::json!({}))
        .param("epochs", cfg.epochs)
        .param("probes", cfg.probes)
        .param("seed", cfg.seed)
        .metric("fp", m.fp)
        .metric("fp_bound", m.fp_bound)
        .measured("measured_fp", r.probe_fp.rate, r.probe_fp.interval)
        .metric("false_positives", r.probe_fp.successes)
        .measured("insertion_failed", r.failed.rate, r.failed.interval)
        .measured("load_reached", r.load.mean, r.load.interval)
        .metric("false_negatives", r.false_negatives)
        .metric("confidence", cfg.confidence)
        .metric(
            "agrees",
            r.failed.successes > 0 || r.probe_fp.interval.contains(m.fp),
        );
    Ok(Report::single(row))
}
