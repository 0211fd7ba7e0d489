//! `bfopt model|optimize|simulate scalable`.

use crate::exit::CliError;
use crate::families::classic::LayoutArgs;
use crate::families::sim::SimArgs;
use crate::report::{Report, Row};
use crate::units::{parse_count, parse_real};
use bfopt_models::scalable::{
    design, size_chain, ChainMetrics, Preset, ScalableDesign, ScalableParams, ScalableRequirement,
};
use bfopt_validation::experiments::scalable::{simulate, tolerance, ScalableSimConfig};
use bfopt_validation::workload::Workload;
use clap::Args;

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("n0", "--initial-capacity"),
    ("p0", "--fp0"),
    ("r", "--tightening"),
    ("s", "--growth"),
    ("n", "--items"),
    ("fp", "--fp"),
    ("block_bits", "--block-bits"),
    ("epochs", "--epochs"),
    ("probes", "--probes"),
    ("confidence", "--confidence"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// A chain: `--initial-capacity --fp0 --tightening --growth`, its layout, and the count.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Capacity N0 of the first link (distinct items).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub initial_capacity: u64,
    /// FP P0 the first link is sized for, 1e-300 <= P0 < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp0: f64,
    /// Tightening ratio r: link i is sized for P0·r^i, 0 < r < 1.
    #[arg(long, default_value = "0.5", value_parser = parse_real, allow_hyphen_values = true)]
    pub tightening: f64,
    /// Growth s: link i holds N0·s^i items, 1 <= s <= 64.
    #[arg(long, default_value = "2", value_parser = parse_real, allow_hyphen_values = true)]
    pub growth: f64,
    /// Distinct items inserted n.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// The layout of every link.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

impl ModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// Any flag out of range, named.
    pub fn params(&self) -> Result<ScalableParams, CliError> {
        ScalableParams::new(
            self.initial_capacity,
            self.fp0,
            self.tightening,
            self.growth,
            self.layout.layout()?,
        )
        .map_err(model_err)
    }
}

/// The chain's metrics after `n` items, with its links (bits, hashes, capacity, FP).
fn chain_row(name: &str, params: ScalableParams, x: &ChainMetrics) -> Result<Row, CliError> {
    let chain = params.chain(x.n.max(1)).map_err(model_err)?;
    let links: Vec<_> = chain
        .links()
        .iter()
        .zip(&x.link_fp)
        .map(|(l, fp)| {
            serde_json::json!({
                "capacity": l.capacity, "fp_target": l.fp_target, "bits": l.m,
                "hashes": l.k, "fp": fp,
            })
        })
        .collect();
    Ok(Row::new("scalable", params, x)
        .param("design", name)
        .metric("fp_limit", params.fp_limit())
        .metric("link_detail", links))
}

/// `bfopt model scalable`.
///
/// # Errors
/// Invalid flags; exit 3 when no chain of at most 64 links holds `--items`.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let p = args.params()?;
    let x = p
        .chain(args.items)
        .and_then(|c| c.at(args.items))
        .map_err(model_err)?;
    Ok(Report::single(
        chain_row("given", p, &x)?.param("items", args.items),
    ))
}

/// `bfopt optimize scalable` flags.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable compound false-positive rate at --items, 1e-300 <= fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Capacity N0 of the first link (the initial guess of the count).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub initial_capacity: u64,
    /// The final count n at which memory is minimised and the target must hold.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: u64,
    /// The layout of every link.
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// The rows of `optimize scalable`: bfopt's optimum, each preset sized to meet the
/// target at `n`, and each preset as its library types it (`P0 = fp·(1 − r)`).
///
/// # Errors
/// Invalid requirement; infeasible.
pub fn designs(req: &ScalableRequirement) -> Result<Vec<(String, ScalableDesign)>, CliError> {
    let mut out = vec![("bfopt".to_string(), design(req).map_err(model_err)?)];
    for preset in Preset::ALL {
        let sized = size_chain(req, preset.r(), preset.s()).map_err(model_err)?;
        out.push((format!("{}, sized for n", preset.name()), sized));
    }
    for preset in Preset::ALL {
        let params = preset
            .params(req.fp(), req.n0(), req.layout())
            .map_err(model_err)?;
        let library = ScalableDesign::evaluate(params, req).map_err(model_err)?;
        out.push((format!("{}, P0 = fp·(1 − r)", preset.name()), library));
    }
    Ok(out)
}

/// `bfopt optimize scalable`.
///
/// # Errors
/// Invalid flags; exit 3 when no chain meets the target.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let req = ScalableRequirement::new(
        args.fp,
        args.initial_capacity,
        args.items,
        args.layout.layout()?,
    )
    .map_err(model_err)?;
    let rows = designs(&req)?
        .into_iter()
        .map(|(name, d)| {
            Ok(chain_row(&name, d.params, &d.at_n)?
                .param("fp_target", req.fp())
                .metric("memory_bits_at_n0", d.at_n0.memory_bits))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    Ok(Report::list(rows))
}

/// `bfopt simulate scalable` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The chain and the count.
    #[command(flatten)]
    pub filter: ModelArgs,
    /// The simulation (distinct keys only: the chain advances on every insertion).
    #[command(flatten)]
    pub sim: SimArgs,
}

/// `bfopt simulate scalable`: predicted vs measured compound FP with intervals.
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let n = args.filter.items;
    let x = params.chain(n).and_then(|c| c.at(n)).map_err(model_err)?;
    if args.sim.workload(n)? != Workload::Distinct {
        return Err(CliError::invalid(
            "--workload/--trace",
            "a stream with repeats",
            "distinct (a scalable chain advances on every insertion; the model counts distinct items)",
        ));
    }
    let cfg = ScalableSimConfig {
        params,
        n,
        epochs: args.sim.epochs,
        probes: args.sim.probes,
        seed: args.sim.seed,
        confidence: args.sim.confidence,
    };
    let r = simulate(&cfg).map_err(model_err)?;
    let band = tolerance(&x).rel_band;
    let within = |lo: f64, hi: f64| x.fp >= lo * (1.0 - band) && x.fp <= hi * (1.0 + band);
    let row = Row::new("scalable", params, serde_json::json!({}))
        .param("items", n)
        .param("epochs", cfg.epochs)
        .param("probes", cfg.probes)
        .param("seed", cfg.seed)
        .metric("links", x.links)
        .metric("bits", x.memory_bits)
        .metric("fp", x.fp)
        .measured("measured_fp", r.probe_fp.rate, r.probe_fp.interval)
        .metric("false_positives", r.probe_fp.successes)
        .measured("state_fp", r.state_fp.mean, r.state_fp.interval)
        .metric("measured_links", r.links)
        .metric("measured_bits", r.bits)
        .metric("confidence", cfg.confidence)
        .metric(
            "agrees",
            within(r.probe_fp.interval.lo, r.probe_fp.interval.hi)
                && within(r.state_fp.interval.lo, r.state_fp.interval.hi)
                && r.links == x.links
                && r.bits == x.memory_bits,
        );
    Ok(Report::single(row))
}
