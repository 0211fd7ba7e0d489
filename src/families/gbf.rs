//! `bfopt model|posterior|simulate gbf` (family `gbf`).

use crate::exit::CliError;
use crate::families::timing::{parse_penalties, parse_prior, DecisionArgs, StreamArgs};
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::gbf::design::gbf_distinct;
use bfopt_models::gbf::posterior::{window_posterior_eq34, TLikelihood};
use bfopt_models::gbf::{posterior_balanced, GbfParams};
use bfopt_validation::experiments::gbf::{simulate, GbfSimConfig};
use clap::Args;

const FLAGS: &[(&str, &str)] = &[
    ("m", "--bits"),
    ("k0", "--reset-hashes"),
    ("k1", "--set-hashes"),
    ("window", "--window"),
    ("px", "--px"),
    ("matching", "--matching"),
    ("mismatching", "--mismatching"),
    ("penalty_fp", "--penalty-fp"),
    ("penalty_fn", "--penalty-fn"),
    ("epochs", "--epochs"),
    ("queries", "--queries"),
    ("confidence", "--confidence"),
    ("universe", "--prior"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// The filter flags.
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Bits m (units accepted).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: u64,
    /// Resetting hashes k0 (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub reset_hashes: u64,
    /// Setting hashes k1 (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub set_hashes: u64,
    /// Window w the queries ask about.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: u64,
}

impl FilterArgs {
    fn params(&self) -> Result<GbfParams, CliError> {
        let k0 = to_u32("--reset-hashes", self.reset_hashes, "1 <= k0 <= 64")?;
        let k1 = to_u32("--set-hashes", self.set_hashes, "1 <= k1 <= 64")?;
        if self.window == 0 {
            return Err(CliError::invalid("--window", 0, "1 <= w"));
        }
        GbfParams::new(self.bits, k0, k1).map_err(model_err)
    }
}

/// `bfopt model gbf` flags.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Also report Pos for an item inserted this many insertions ago.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub age: Option<u64>,
    /// Stream prior `uniform:U` or `zipf:U` (default: p_x → 0, ages in the window equally likely).
    #[arg(long)]
    pub prior: Option<String>,
    /// Count the decay in distinct other items, q_ε^(D_{−x}(i)) (accurate on repeating streams).
    #[arg(long)]
    pub distinct_decay: bool,
}

/// `bfopt model gbf`: Pos for never-inserted and aged items, window FP / FN.
///
/// # Errors
/// Invalid flags.
pub fn model(a: &ModelArgs) -> Result<Report, CliError> {
    let p = a.filter.params()?;
    let w = a.filter.window;
    let (m, prior) = match a.prior.as_deref().map(parse_prior).transpose()? {
        None => (p.metrics_flat(w, a.age), None),
        Some(prior) if a.distinct_decay => (
            p.metrics_distinct(w, &prior, &gbf_distinct(&prior), a.age)
                .map_err(model_err)?,
            Some(prior.describe()),
        ),
        Some(prior) => (p.metrics(w, &prior, a.age), Some(prior.describe())),
    };
    let mut row = Row::new("gbf", p, serde_json::json!({}))
        .param("window", w)
        .metric("positive_never", m.positive_never);
    if let Some(pa) = m.positive_at_age {
        row = row.param("age", a.age).metric("positive_at_age", pa);
    }
    row = row.metric("fp", m.fp).metric("fn", m.fn_);
    if let Some(prior) = prior {
        row = row
            .param("prior", prior)
            .param("distinct_decay", a.distinct_decay)
            .metric("in_window", m.in_window);
    }
    row = row
        .metric("q0", m.q0)
        .metric("q1", m.q1)
        .metric("q_eps", m.q_eps);
    Ok(Report::single(row))
}

/// `bfopt posterior gbf` flags.
#[derive(Debug, Args)]
pub struct PosteriorArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Sample probability p_x, 0 < px <= 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub px: f64,
    /// D = c_x,0 + c_x,1: cells as x left them.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub matching: u64,
    /// E = r_x,0 + r_x,1 − D: cells changed since.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub mismatching: u64,
    /// The penalties of the decision.
    #[command(flatten)]
    pub decision: DecisionArgs,
}

/// `bfopt posterior gbf`: Eq. (34) computed stably, and as printed in double precision.
///
/// # Errors
/// Invalid flags.
pub fn posterior(a: &PosteriorArgs) -> Result<Report, CliError> {
    let p = a.filter.params()?;
    let w = a.filter.window;
    let d = to_u32("--matching", a.matching, "0 <= D <= k0 + k1")?;
    let e = to_u32("--mismatching", a.mismatching, "0 <= E <= k0 + k1 − D")?;
    let post = posterior_balanced(&p, d, e, a.px, w).map_err(model_err)?;
    let lik = TLikelihood::balanced(d, e);
    let (plain, kappa) = window_posterior_eq34(&lik, p.q_eps(), a.px, w);
    let row = Row::new("gbf", p, serde_json::json!({}))
        .param("window", w)
        .param("px", a.px)
        .param("matching", d)
        .param("mismatching", e)
        .metric("posterior", post)
        .metric("posterior_eq34_double", plain)
        .metric("eq34_condition", kappa)
        .metric("q_eps", p.q_eps());
    Ok(Report::single(a.decision.decide(row, post)?))
}

/// `bfopt simulate gbf` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// The stream.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Queries per epoch.
    #[arg(long, default_value = "32768", value_parser = parse_count, allow_hyphen_values = true)]
    pub queries: u64,
}

/// `bfopt simulate gbf`: the Section 6 stream experiment against the model
/// (`q_ε^(D_{−x}(i))`): window FP / FN and the expected penalties per query.
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(a: &SimulateArgs) -> Result<Report, CliError> {
    let p = a.filter.params()?;
    let (prior, penalties) = a.stream.parse()?;
    let w = a.filter.window;
    let cfg = GbfSimConfig {
        params: p,
        w,
        prior,
        distinct: Some(gbf_distinct(&prior)),
        warmup: 4 * w.max(prior.universe()),
        queries: a.queries,
        penalties,
        epochs: a.stream.epochs,
        seed: a.stream.seed,
        confidence: a.stream.confidence,
    };
    let r = simulate(&cfg).map_err(model_err)?;
    let distinct = gbf_distinct(&prior);
    let m = p
        .metrics_distinct(w, &prior, &distinct, None)
        .map_err(model_err)?;
    let predicted =
        bfopt_models::gbf::design::expected_penalty(&p, w, &prior, &distinct, &cfg.penalties, 64)
            .map_err(model_err)?;
    let row = Row::new("gbf", p, serde_json::json!({}))
        .param("window", w)
        .param("prior", prior.describe())
        .param("queries", cfg.queries)
        .param("epochs", cfg.epochs)
        .param("seed", cfg.seed)
        .metric("fp", m.fp)
        .metric("measured_fp", r.fp.rate)
        .metric("fn", m.fn_)
        .metric("measured_fn", r.fn_.rate)
        .metric("penalty_standard", predicted.standard)
        .metric("measured_penalty_standard", r.standard_penalty.mean)
        .metric("penalty_inferential", predicted.inferential)
        .metric("measured_penalty_inferential", r.inferential_penalty.mean)
        .metric("penalty_ratio", r.penalty_ratio)
        .metric("posterior_error", r.posterior_error);
    Ok(Report::single(row))
}

/// `bfopt optimize gbf` flags.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Memory per window item, bits (m = bits_per_item · w).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub bits_per_item: f64,
    /// Window w.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: u64,
    /// Stream prior `uniform:U` or `zipf:U`.
    #[arg(long)]
    pub prior: String,
    /// Penalty distribution `uniform:LO:HI` or `fixed:FP:FN`.
    #[arg(long, default_value = "uniform:1:10")]
    pub penalties: String,
    /// Largest k0 and k1 tried.
    #[arg(long, default_value = "12", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
}

/// `bfopt optimize gbf`: the penalty-optimal `(k0, k1)` for the inferential GBF, and for
/// the standard GBF.
///
/// # Errors
/// Invalid flags.
pub fn optimize(a: &OptimizeArgs) -> Result<Report, CliError> {
    use bfopt_models::gbf::design::{design_observed, GbfRequirement};
    let prior = parse_prior(&a.prior)?;
    let penalties = parse_penalties(&a.penalties)?;
    if a.window == 0 {
        return Err(CliError::invalid("--window", 0, "1 <= w"));
    }
    let req = GbfRequirement {
        bits_per_item: a.bits_per_item,
        w: a.window,
        prior,
        penalties,
        k_max: to_u32("--max-hashes", a.max_hashes, "1 <= k_max <= 64")?,
    };
    let flags = [
        ("k_max", "--max-hashes"),
        ("bits_per_item", "--bits-per-item"),
        ("m", "--bits-per-item"),
    ];
    let bar = bfopt_validation::sim::Progress::new(req.steps(), "optimize gbf");
    let d = design_observed(&req, || bar.inc());
    bar.finish();
    let d = d.map_err(|e| CliError::from_model(e, &flags))?;
    let (i, s) = (d.inferential, d.standard);
    let row = Row::new("gbf", serde_json::json!({}), serde_json::json!({}))
        .param("bits_per_item", a.bits_per_item)
        .param("window", a.window)
        .param("prior", prior.describe())
        .param("penalties", penalties.describe())
        .param("max_hashes", req.k_max)
        .metric("bits", i.params.m())
        .metric("reset_hashes", i.params.k0())
        .metric("set_hashes", i.params.k1())
        .metric("expected_penalty_inferential", i.penalty.inferential)
        .metric("expected_penalty_standard", i.penalty.standard)
        .metric("expected_penalty_prior_only", i.penalty.prior_only)
        .metric("standard_reset_hashes", s.params.k0())
        .metric("standard_set_hashes", s.params.k1())
        .metric("standard_expected_penalty", s.penalty.standard);
    let mut report = Report::single(row);
    let at_edge: Vec<&str> = [
        ("reset_hashes", i.params.k0()),
        ("set_hashes", i.params.k1()),
        ("standard_reset_hashes", s.params.k0()),
        ("standard_set_hashes", s.params.k1()),
    ]
    .into_iter()
    .filter(|&(_, k)| k == req.k_max)
    .map(|(name, _)| name)
    .collect();
    if !at_edge.is_empty() {
        report.notes.push(format!(
            "at --max-hashes {}: {}",
            req.k_max,
            at_edge.join(", ")
        ));
        report
            .notes
            .push("(the search's edge: a larger --max-hashes may lower the penalty)".into());
    }
    Ok(report)
}
