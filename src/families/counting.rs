//! `bfopt model|optimize|simulate counting` (counting Bloom filters).

use crate::exit::CliError;
use crate::families::sim::{sim_error, DistinctSimArgs};
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_count, parse_real};
use bfopt_models::counting::{design, CountingParams, CountingRequirement};
use bfopt_validation::experiments::classic::prediction;
use bfopt_validation::experiments::counting::{compare, simulate, CountingSimConfig};
use clap::Args;

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("m", "--counters"),
    ("k", "--hashes"),
    ("n", "--items"),
    ("c", "--counter-bits"),
    ("fp", "--fp"),
    ("overflow", "--overflow"),
];

/// A counting Bloom filter: `--counters --hashes --items --counter-bits`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Counters m.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub counters: u64,
    /// Hash functions k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Live items n (the peak over the filter's life).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// Bits per counter c (1 to 16).
    #[arg(long, default_value = "4", value_parser = parse_count, allow_hyphen_values = true)]
    pub counter_bits: u64,
}

impl ModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// A flag out of range, named.
    pub fn params(&self) -> Result<CountingParams, CliError> {
        let k = to_u32("--hashes", self.hashes, "1 <= k <= 64")?;
        let c = to_u32("--counter-bits", self.counter_bits, "1 <= c <= 16")?;
        CountingParams::new(self.counters, k, self.items, c)
            .map_err(|e| CliError::from_model(e, FLAGS))
    }
}

/// `bfopt model counting`.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    let row = Row::new("counting", p, p.metrics());
    Ok(Report::single(super::tiny::underflow(
        row,
        false, // `--items` >= 1: the FP is positive
        || {
            super::classic::ln_fps(&p.classic())
                .into_iter()
                .filter(|&(key, _)| key == "fp")
                .collect()
        },
        "model counting",
    )?))
}

/// `bfopt optimize counting`: least memory (counters × counter bits) meeting `--fp` with
/// overflow probability at most `--overflow`.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Live items at the peak.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// Largest acceptable probability that any counter overflows (union bound).
    #[arg(long, default_value = "1e-9", value_parser = parse_real, allow_hyphen_values = true)]
    pub overflow: f64,
}

/// `bfopt optimize counting`.
///
/// # Errors
/// Invalid flags; exit 3 when nothing meets both targets.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let model_err = |e| CliError::from_model(e, FLAGS);
    let req = CountingRequirement::new(args.fp, args.items)
        .and_then(|r| r.with_overflow(args.overflow))
        .map_err(model_err)?;
    let d = design(&req).map_err(model_err)?;
    Ok(Report::single(
        Row::new("counting", req, d.metrics)
            .metric("counters", d.params.m())
            .metric("hashes", d.params.k())
            .metric("counter_bits", d.params.c()),
    ))
}

/// `bfopt simulate counting` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: ModelArgs,
    /// Items inserted beyond `--items` and deleted again before probing.
    #[arg(long, default_value = "0", value_parser = parse_count, allow_hyphen_values = true)]
    pub deleted: u64,
    /// The simulation.
    #[command(flatten)]
    pub sim: DistinctSimArgs,
}

/// `bfopt simulate counting`: FP and overflowed counters, predicted vs measured.
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let peak = args
        .filter
        .items
        .checked_add(args.deleted)
        .ok_or_else(|| CliError::invalid("--deleted", args.deleted, "items + deleted < 2^64"))
        .and_then(|n| {
            CountingParams::new(params.m(), params.k(), n, params.c())
                .map_err(|e| CliError::from_model(e, &[("n", "--deleted")]))
        })?;
    let cfg = CountingSimConfig {
        params,
        deleted: args.deleted,
        epochs: args.sim.epochs,
        probes: args.sim.probes,
        seed: args.sim.seed,
        confidence: args.sim.confidence,
    };
    let r = simulate(&cfg).map_err(|e| sim_error(e, FLAGS))?;
    let (fp, _) = prediction(&params.classic());
    let x = peak.metrics();
    let row = Row::new("counting", params, serde_json::json!({}))
        .param("deleted", cfg.deleted)
        .param("epochs", cfg.epochs)
        .param("probes", cfg.probes)
        .param("seed", cfg.seed)
        .metric("fp", fp)
        .measured("measured_fp", r.probe_fp.rate, r.probe_fp.interval)
        .metric("expected_overflows", x.expected_overflows)
        .measured(
            "measured_overflows",
            r.overflowed.mean,
            r.overflowed.interval,
        )
        .metric("overflow_bound", x.overflow)
        .measured(
            "measured_overflow",
            r.any_overflow.rate,
            r.any_overflow.interval,
        )
        .metric("false_negatives", r.false_negatives)
        .metric("confidence", cfg.confidence)
        // The validate suite's own checks (probe FP where no counter can overflow,
        // overflowed counters otherwise, the union bound, no false negatives).
        .metric(
            "agrees",
            compare("", &params, cfg.deleted, &r, cfg.seed)
                .iter()
                .all(|c| c.pass),
        );
    Ok(Report::single(row))
}
