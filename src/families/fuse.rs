//! `bfopt model|optimize|simulate fuse` (binary fuse filters, `xorf`).

use crate::exit::CliError;
use crate::families::sim::{sim_error, DistinctSimArgs};
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_count, parse_real};
use bfopt_models::fuse::{design, FuseParams, FuseRequirement};
use bfopt_validation::experiments::fuse::{simulate, FuseSimConfig};
use clap::Args;

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("n", "--items"),
    ("f", "--fingerprint-bits"),
    ("fp", "--fp"),
    ("keys", "--items"),
];

/// A binary fuse filter: `--items --fingerprint-bits`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Keys in the (static) set n.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// Fingerprint bits f: 8, 16 or 32 (xorf BinaryFuse8/16/32).
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub fingerprint_bits: u64,
}

impl ModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// A flag out of range, named.
    pub fn params(&self) -> Result<FuseParams, CliError> {
        let f = to_u32(
            "--fingerprint-bits",
            self.fingerprint_bits,
            "f in {8, 16, 32}",
        )?;
        FuseParams::new(self.items, f).map_err(|e| CliError::from_model(e, FLAGS))
    }
}

/// `bfopt model fuse`.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    Ok(Report::single(Row::new("fuse", p, p.metrics())))
}

/// `bfopt optimize fuse`: the smallest fingerprint width meeting `--fp`.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Keys in the (static) set.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
}

/// `bfopt optimize fuse`.
///
/// # Errors
/// Invalid flags; exit 3 below 2^-32.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let model_err = |e| CliError::from_model(e, FLAGS);
    let req = FuseRequirement::new(args.fp, args.items).map_err(model_err)?;
    let d = design(&req).map_err(model_err)?;
    Ok(Report::single(
        Row::new("fuse", req, d.metrics).metric("fingerprint_bits", d.params.f()),
    ))
}

/// `bfopt simulate fuse` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: ModelArgs,
    /// The simulation.
    #[command(flatten)]
    pub sim: DistinctSimArgs,
}

/// `bfopt simulate fuse`: FP `2^-f` against xorf's measured FP, slots against the rule.
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let cfg = FuseSimConfig {
        params,
        epochs: args.sim.epochs,
        probes: args.sim.probes,
        seed: args.sim.seed,
        confidence: args.sim.confidence,
    };
    let r = simulate(&cfg).map_err(|e| sim_error(e, FLAGS))?;
    let m = params.metrics();
    let row = Row::new("fuse", params, serde_json::json!({}))
        .param("epochs", cfg.epochs)
        .param("probes", cfg.probes)
        .param("seed", cfg.seed)
        .metric("fp", m.fp)
        .measured("measured_fp", r.probe_fp.rate, r.probe_fp.interval)
        .metric("false_positives", r.probe_fp.successes)
        .metric("slots", m.layout.slots)
        .metric("measured_slots", r.slots)
        .metric("false_negatives", r.false_negatives)
        .metric("confidence", cfg.confidence)
        .metric(
            "agrees",
            r.probe_fp.interval.contains(m.fp) && r.slots == m.layout.slots,
        );
    Ok(Report::single(row))
}
