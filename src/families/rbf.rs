//! `bfopt model|optimize|simulate rbf`.

use crate::exit::CliError;
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::rbf::{
    design, design_window, least_bits_observed, Hashing, Method, RbfDesign, RbfNParams, RbfParams,
    RbfRequirement, Recycling,
};
use bfopt_validation::experiments::rbf::{simulate, RbfSimConfig, RbfStream};
use bfopt_validation::filters::rbf::{Bound, RbfConfig};
use clap::{Args, ValueEnum};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("bits", "--bits"),
    ("k", "--hashes"),
    ("sigma", "--recycle-bits"),
    ("n", "--recycle-messages"),
    ("phases", "--phases"),
    ("fp", "--fp"),
    ("messages", "--messages"),
    ("epochs", "--epochs"),
    ("arrivals", "--arrivals"),
    ("pool", "--pool"),
    ("confidence", "--confidence"),
    ("window", "--window"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// Hash position sampling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HashingArg {
    /// With replacement (positions of one message may coincide).
    Colliding,
    /// Without replacement ("non-colliding").
    Distinct,
}

/// What happens to the message that triggers a recycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecyclingArg {
    /// Dropped: the next cycle starts empty.
    NonRetaining,
    /// Re-inserted into the fresh filter.
    Retaining,
}

/// How to evaluate the σ-bounded model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Exact when k²·σ ≤ 1e9, else the fluid approximation.
    Auto,
    /// The Markov chain, exactly (O(k²·σ)).
    Exact,
    /// The level-crossing approximation (relative error about 5/M).
    Fluid,
}

/// Variant flags shared by every rbf verb.
#[derive(Debug, Args)]
pub struct VariantArgs {
    /// Filters: 1, or 2 (active + frozen, each of --bits/2). Default 1 (2 with --window).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub phases: Option<u64>,
    /// Hash position sampling.
    #[arg(long, value_enum, default_value_t = HashingArg::Colliding)]
    pub hashing: HashingArg,
    /// Treatment of the recycling message.
    #[arg(long, value_enum, default_value_t = RecyclingArg::NonRetaining)]
    pub recycling: RecyclingArg,
}

impl VariantArgs {
    fn resolve(&self) -> Result<(u8, Hashing, Recycling), CliError> {
        self.resolve_or(1)
    }

    fn resolve_or(&self, default_phases: u8) -> Result<(u8, Hashing, Recycling), CliError> {
        let given = self.phases.unwrap_or(u64::from(default_phases));
        let phases = u8::try_from(given)
            .ok()
            .filter(|p| (1..=2).contains(p))
            .ok_or_else(|| CliError::invalid("--phases", given, "1 or 2"))?;
        let hashing = match self.hashing {
            HashingArg::Colliding => Hashing::Colliding,
            HashingArg::Distinct => Hashing::Distinct,
        };
        let recycling = match self.recycling {
            RecyclingArg::NonRetaining => Recycling::NonRetaining,
            RecyclingArg::Retaining => Recycling::Retaining,
        };
        Ok((phases, hashing, recycling))
    }
}

/// An RBF: `--bits --hashes` and one recycle rule.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Total bits (both filters with two phases; units accepted: 8Mb, 1MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: u64,
    /// Hash functions k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// σ-bounded: recycle when more than this many bits (per filter) are set.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub recycle_bits: Option<u64>,
    /// N-bounded: recycle after this many bit-setting messages (one phase).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub recycle_messages: Option<u64>,
    /// The variant.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// How to evaluate the σ-bounded model.
    #[arg(long, value_enum, default_value_t = MethodArg::Auto)]
    pub method: MethodArg,
}

/// A validated model request.
#[derive(Debug, Clone, Copy)]
pub enum RbfModel {
    /// σ-bounded.
    Sigma(RbfParams),
    /// N-bounded.
    Messages(RbfNParams),
}

impl ModelArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// Any flag out of range, named; both or neither recycle rule.
    pub fn params(&self) -> Result<RbfModel, CliError> {
        let k = to_u32("--hashes", self.hashes, "1 <= k <= 64")?;
        let (phases, hashing, recycling) = self.variant.resolve()?;
        match (self.recycle_bits, self.recycle_messages) {
            (Some(sigma), None) => RbfParams::new(self.bits, k, sigma, phases, hashing, recycling)
                .map(RbfModel::Sigma)
                .map_err(model_err),
            (None, Some(n)) => {
                if phases != 1 {
                    return Err(CliError::invalid(
                        "--phases",
                        phases,
                        "1 with --recycle-messages (Eqs. (1)-(3) model one filter)",
                    ));
                }
                RbfNParams::new(self.bits, k, n)
                    .map(RbfModel::Messages)
                    .map_err(model_err)
            }
            _ => Err(CliError::invalid(
                "--recycle-bits/--recycle-messages",
                "this combination",
                "exactly one of --recycle-bits S or --recycle-messages N",
            )),
        }
    }

    fn method(&self) -> Method {
        match self.method {
            MethodArg::Auto => Method::Auto,
            MethodArg::Exact => Method::Exact,
            MethodArg::Fluid => Method::Fluid,
        }
    }
}

/// `bfopt model rbf`.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let params = args.params()?;
    let row = match params {
        RbfModel::Sigma(p) => Row::new("rbf", p, p.metrics(args.method()).map_err(model_err)?),
        RbfModel::Messages(p) => Row::new("rbf", p, p.metrics()),
    };
    // Every cycle holds messages: the FP is positive. Both recycle rules have log-space
    // forms (the σ-bounded chain and its fluid limit, and Eqs. (1)-(3) [RBF]).
    let logs = || match params {
        RbfModel::Sigma(p) => p.ln_metrics(args.method()).unwrap_or_default(),
        RbfModel::Messages(p) => p.ln_metrics().to_vec(),
    };
    Ok(Report::single(super::tiny::underflow(
        row,
        false,
        logs,
        "model rbf",
    )?))
}

/// `bfopt optimize rbf`: the most messages per cycle for `--bits`, the least bits for
/// `--messages`, or the least bits of a two-phase RBF guaranteeing `--window`, at
/// average FP ≤ `--fp`.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Largest acceptable average false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Total memory: find the (k, σ) with the most messages per cycle.
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: Option<u64>,
    /// Required mean new messages per cycle: find the least memory.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub messages: Option<u64>,
    /// Required guaranteed window (two phases): every message is recognised by the next
    /// this many new messages. Find the least memory.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: Option<u64>,
    /// The variant.
    #[command(flatten)]
    pub variant: VariantArgs,
}

/// The row of an optimised design.
pub fn design_row(d: &RbfDesign) -> Row {
    // One column per quantity: bits, k and sigma are parameters (issue 16 bug 11: they
    // were repeated as the metrics bits, hashes and recycle_bits).
    let mut row = Row::new("rbf", d.params, serde_json::json!({})).param("fp_target", d.fp_target);
    row.metrics.extend(Row::new("rbf", (), d.metrics).metrics);
    row.metric("worst_case_messages", d.worst_case_messages)
        .metric("worst_case_hashes", d.worst_case_hashes)
        .metric(
            "worst_case_ratio",
            d.worst_case_messages as f64 / d.metrics.expected_messages,
        )
}

/// `bfopt optimize rbf`.
///
/// # Errors
/// Invalid flags; exit 3 when nothing meets the target.
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let default_phases = if args.window.is_some() { 2 } else { 1 };
    let (phases, hashing, recycling) = args.variant.resolve_or(default_phases)?;
    let req = RbfRequirement::new(args.fp, phases)
        .map_err(model_err)?
        .with_variant(hashing, recycling);
    let d = match (args.bits, args.messages, args.window) {
        (Some(bits), None, None) => design(bits, &req),
        (None, Some(n), None) => {
            // About five exact designs, each up to a second on a loaded machine.
            let bar = bfopt_validation::sim::Progress::new(5, "optimize rbf: exact designs");
            let d = least_bits_observed(n, &req, || bar.inc());
            bar.finish();
            d
        }
        (None, None, Some(w)) => design_window(w, &req),
        _ => return Err(CliError::invalid(
            "--bits/--messages/--window",
            "this combination",
            "exactly one of --bits M (most messages), --messages N or --window W (least memory)",
        )),
    }
    .map_err(model_err)?;
    Ok(Report::single(design_row(&d)))
}

/// `bfopt simulate rbf` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: ModelArgs,
    /// Independent epochs (fresh keys and pool each), run in parallel.
    #[arg(long, default_value = "10", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Arrivals per epoch (the paper: 100 000).
    #[arg(long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    pub arrivals: u64,
    /// Draw arrivals from a pool of this many messages (the paper: 1000); default: every
    /// arrival distinct.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub pool: Option<u64>,
    /// Base seed.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Two-sided confidence of the Student t intervals over epochs.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// `bfopt simulate rbf`: predicted vs measured count-instance FP (and messages per cycle).
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let model = args.filter.params()?;
    let (filter, predicted, predicted_messages, base) = match model {
        RbfModel::Sigma(p) => {
            let m = p.metrics(args.filter.method()).map_err(model_err)?;
            (
                RbfConfig::from_params(&p),
                m.fp_avg,
                Some(m.expected_messages),
                Row::new("rbf", p, serde_json::json!({})),
            )
        }
        RbfModel::Messages(p) => {
            let m = p.metrics();
            (
                RbfConfig {
                    m: p.m(),
                    k: p.k(),
                    bound: Bound::Messages(p.n()),
                    phases: 1,
                    hashing: Hashing::Colliding,
                    recycling: Recycling::NonRetaining,
                },
                m.fp_lower,
                None,
                Row::new("rbf", p, serde_json::json!({})),
            )
        }
    };
    let cfg = RbfSimConfig {
        filter,
        stream: args
            .pool
            .map_or(RbfStream::Distinct, |size| RbfStream::Pool { size }),
        epochs: args.epochs,
        arrivals: args.arrivals,
        seed: args.seed,
        confidence: args.confidence,
    };
    let r = simulate(&cfg).map_err(model_err)?;
    let i = r.fp_instance.interval;
    let agrees = match model {
        RbfModel::Sigma(_) => i.contains(predicted),
        // f_a is a lower bound: it agrees when it does not exceed the interval.
        RbfModel::Messages(_) => predicted <= i.hi,
    };
    let mut row = base
        .param(
            "stream",
            args.pool
                .map_or("distinct".to_string(), |s| format!("pool({s})")),
        )
        .param("epochs", cfg.epochs)
        .param("arrivals", cfg.arrivals)
        .param("seed", cfg.seed)
        .metric(
            match model {
                RbfModel::Sigma(_) => "fp_avg",
                RbfModel::Messages(_) => "fp_lower",
            },
            predicted,
        )
        .measured("measured_fp", r.fp_instance.mean, i)
        .metric("measured_fp_first", r.fp_first.mean)
        .metric("measured_fp_each", r.fp_each.mean);
    if let Some(e) = predicted_messages {
        row = row.metric("expected_messages", e);
    }
    row = row
        .measured(
            "measured_messages",
            r.messages_per_cycle.mean,
            r.messages_per_cycle.interval,
        )
        .metric("cycles", r.cycles)
        .metric("confidence", cfg.confidence)
        .metric("agrees", agrees);
    Ok(Report::single(row))
}
