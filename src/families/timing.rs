//! `bfopt model|posterior|optimize|simulate btbf` (family `timing`).

use crate::exit::CliError;
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_count, parse_real};
use bfopt_models::timing::btbf::{BtbfModel, BtbfObservation, BtbfParams, GForm, TimerAge};
use bfopt_models::timing::design::{design_observed, BtbfRequirement, Objective};
use bfopt_models::timing::penalty::{Penalties, PenaltyDist};
use bfopt_models::timing::prior::{Distinct, StreamPrior};
use bfopt_validation::experiments::timing::{
    prediction, simulate, stream_distinct, TimingSimConfig,
};
use clap::{Args, ValueEnum};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("m", "--timers"),
    ("k", "--hashes"),
    ("bits_per_timer", "--bits-per-timer"),
    ("block_size", "--block-size"),
    ("window", "--window"),
    ("padding", "--padding"),
    ("px", "--px"),
    ("offset", "--offset"),
    ("timestamp_age", "--timestamp-age"),
    ("matching", "--matching"),
    ("touched", "--touched"),
    ("universe", "--prior"),
    ("penalty_fp", "--penalty-fp"),
    ("penalty_fn", "--penalty-fn"),
    ("penalty_lo", "--penalties"),
    ("penalty_hi", "--penalties"),
    ("bits_per_item", "--bits-per-item"),
    ("k_max", "--max-hashes"),
    ("bpt_max", "--max-bits-per-timer"),
    ("epochs", "--epochs"),
    ("queries", "--queries"),
    ("confidence", "--confidence"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// Parses `uniform:U` or `zipf:U`.
pub fn parse_prior(s: &str) -> Result<StreamPrior, CliError> {
    let allowed = "uniform:U or zipf:U with 2 <= U <= 2^40, e.g. uniform:65536";
    let (kind, u) = s
        .split_once(':')
        .ok_or_else(|| CliError::invalid("--prior", s, allowed))?;
    let u = parse_count(u).map_err(|_| CliError::invalid("--prior", s, allowed))?;
    match kind {
        "uniform" => StreamPrior::uniform(u),
        "zipf" => StreamPrior::zipf(u),
        _ => return Err(CliError::invalid("--prior", s, allowed)),
    }
    .map_err(|_| CliError::invalid("--prior", s, allowed))
}

/// Parses `uniform:U`, `zipf:U` (Eq. (17)) or `none` (`D(j) = j`).
pub fn parse_distinct(s: &str) -> Result<Distinct, CliError> {
    if s == "none" {
        return Ok(Distinct::Identity);
    }
    parse_prior(s)
        .map(|p| p.distinct())
        .map_err(|_| CliError::invalid("--distinct", s, "uniform:U, zipf:U or none"))
}

/// Parses `uniform:LO:HI` or `fixed:FP:FN`.
pub fn parse_penalties(s: &str) -> Result<PenaltyDist, CliError> {
    let allowed = "uniform:LO:HI (0 <= LO < HI) or fixed:FP:FN, e.g. uniform:1:10";
    let parts: Vec<&str> = s.split(':').collect();
    let [kind, a, b] = parts[..] else {
        return Err(CliError::invalid("--penalties", s, allowed));
    };
    let a = parse_real(a).map_err(|_| CliError::invalid("--penalties", s, allowed))?;
    let b = parse_real(b).map_err(|_| CliError::invalid("--penalties", s, allowed))?;
    match kind {
        "uniform" => {
            PenaltyDist::uniform(a, b).map_err(|_| CliError::invalid("--penalties", s, allowed))
        }
        "fixed" => Penalties::new(a, b)
            .map(|p| PenaltyDist::Fixed {
                fp: p.fp(),
                fn_: p.fn_(),
            })
            .map_err(|_| CliError::invalid("--penalties", s, allowed)),
        _ => Err(CliError::invalid("--penalties", s, allowed)),
    }
}

/// Which form of `G` the inferential posterior uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GFormArg {
    /// Eq. (25) as printed.
    Paper,
    /// The refined product form with D(a+B) − D(a) (calibrated in simulation).
    Increment,
}

impl From<GFormArg> for GForm {
    fn from(g: GFormArg) -> Self {
        match g {
            GFormArg::Paper => GForm::Paper,
            GFormArg::Increment => GForm::Increment,
        }
    }
}

/// The filter's structure flags.
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Timers m.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub timers: u64,
    /// Hash functions k (1 to 64).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Bits per timer; 2^bpt must hold T_max + 2 = ceil(w/B) + 3 + P values.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub bits_per_timer: u64,
    /// Insertion block size B (1 = a TBF), at most the window.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub block_size: u64,
    /// Window w (insertions).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: u64,
    /// Padding P (default: the rule of thumb m/(kB), reduced to what fits in the timers).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub padding: Option<u64>,
}

impl FilterArgs {
    /// Validated parameters.
    ///
    /// # Errors
    /// Any flag out of range, named.
    pub fn params(&self) -> Result<BtbfParams, CliError> {
        let k = to_u32("--hashes", self.hashes, "1 <= k <= 64")?;
        let bpt = to_u32("--bits-per-timer", self.bits_per_timer, "2 <= bpt <= 32")?;
        match self.padding {
            Some(p) => BtbfParams::new(self.timers, k, bpt, self.block_size, self.window, p),
            None => {
                BtbfParams::with_default_padding(self.timers, k, bpt, self.block_size, self.window)
            }
        }
        .map_err(model_err)
    }
}

/// `bfopt model btbf` flags.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Stream prior `uniform:U` or `zipf:U` (default: never-repeated items).
    #[arg(long)]
    pub prior: Option<String>,
}

/// `bfopt model btbf`: FP, memory, `T_max`, timers scanned per insertion.
///
/// # Errors
/// Invalid flags.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let prior = args.prior.as_deref().map(parse_prior).transpose()?;
    let distinct = prior.map_or(Distinct::Identity, |p| p.distinct());
    let model = BtbfModel::new(params, distinct);
    let m = model.metrics(prior.as_ref());
    // The FP is exactly 0 only when, under the prior, no arrival is outside the window.
    let ln_fp = if m.fp == 0.0 {
        model.ln_fp(prior.as_ref())
    } else {
        0.0
    };
    let mut row = Row::new("timing", params, m);
    if let Some(p) = prior {
        row = row.param("prior", p.describe());
    }
    Ok(Report::single(super::tiny::underflow(
        row,
        ln_fp == f64::NEG_INFINITY,
        || vec![("fp", ln_fp)],
        "model btbf",
    )?))
}

/// `bfopt posterior btbf` flags.
#[derive(Debug, Args)]
pub struct PosteriorArgs {
    /// Timers m.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub timers: u64,
    /// Hash functions k.
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Insertion block size B.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub block_size: u64,
    /// Block offset b: insertions since the last increment of T+ (0 <= b < B).
    #[arg(long, default_value = "0", value_parser = parse_count, allow_hyphen_values = true)]
    pub offset: u64,
    /// Window w.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: u64,
    /// Sample probability p_x of the queried item, 0 < px <= 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub px: f64,
    /// λ_x, the age of the oldest timestamp among x's timers, or `expired`.
    #[arg(long, allow_hyphen_values = true)]
    pub timestamp_age: String,
    /// c_x, timers holding the oldest timestamp.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub matching: u64,
    /// r_x, distinct timers of x (default k).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub touched: Option<u64>,
    /// D(j): `uniform:U` (Eq. 16), `zipf:U` (Eq. 17) or `none` (D(j) = j).
    #[arg(long, default_value = "none")]
    pub distinct: String,
    /// Form of G (Eq. 25 as printed, or the refined increment form).
    #[arg(long, value_enum, default_value_t = GFormArg::Paper)]
    pub g_form: GFormArg,
    /// The penalties of the decision.
    #[command(flatten)]
    pub decision: DecisionArgs,
}

/// `bfopt posterior btbf`: `P(I_x < w | R_x)`, expected and most likely age, decision.
///
/// # Errors
/// Invalid flags or an observation that cannot occur (exit 2, naming the contradiction).
pub fn posterior(a: &PosteriorArgs) -> Result<Report, CliError> {
    let k = to_u32("--hashes", a.hashes, "1 <= k <= 64")?;
    let w = a.window;
    // The posterior does not depend on the timer width: use the smallest that fits.
    let needed = w.checked_div(a.block_size.max(1)).unwrap_or(0) + 4;
    let bpt = (64 - needed.leading_zeros()).clamp(2, 32);
    let params = BtbfParams::new(a.timers, k, bpt, a.block_size, w, 0).map_err(model_err)?;
    let age = match a.timestamp_age.as_str() {
        "expired" | "inf" => TimerAge::Expired,
        s => TimerAge::Finite(parse_count(s).map_err(|e| {
            CliError::invalid("--timestamp-age", s, format!("a count or `expired` ({e})"))
        })?),
    };
    let o = BtbfObservation {
        age,
        matching: to_u32("--matching", a.matching, "1 <= c <= r")?,
        touched: to_u32(
            "--touched",
            a.touched.unwrap_or(u64::from(k)),
            "1 <= r <= k",
        )?,
        offset: a.offset,
    };
    let model = BtbfModel::new(params, parse_distinct(&a.distinct)?).with_g_form(a.g_form.into());
    let post = model.posterior(a.px, &o).map_err(model_err)?;
    let row = Row::new("timing", serde_json::json!({}), serde_json::json!({}))
        .param("m", a.timers)
        .param("k", k)
        .param("block_size", a.block_size)
        .param("offset", a.offset)
        .param("window", w)
        .param("px", a.px)
        .param("timestamp_age", &a.timestamp_age)
        .param("matching", o.matching)
        .param("touched", o.touched)
        .param("distinct", &a.distinct)
        .param("g_form", GForm::from(a.g_form))
        .metric("posterior", post)
        .metric(
            "expected_age",
            model.expected_age(a.px, &o).map_err(model_err)?,
        )
        .metric(
            "most_likely_age",
            model.most_likely_age(a.px, &o).map_err(model_err)?,
        );
    Ok(Report::single(a.decision.decide(row, post)?))
}

/// Which filter `optimize` minimises for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObjectiveArg {
    /// The inferential BTBF's expected penalty.
    Inferential,
    /// The standard BTBF's expected penalty.
    Standard,
}

/// `bfopt optimize btbf` flags.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// Memory per window item, bits (total m·bpt = bits_per_item · w).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub bits_per_item: f64,
    /// Window w.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: u64,
    /// Stream prior `uniform:U` or `zipf:U`.
    #[arg(long)]
    pub prior: String,
    /// Penalty distribution `uniform:LO:HI` (independent $FP, $FN) or `fixed:FP:FN`.
    #[arg(long, default_value = "uniform:1:10")]
    pub penalties: String,
    /// Largest k tried.
    #[arg(long, default_value = "30", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
    /// Largest bits per timer tried.
    #[arg(long, default_value = "12", value_parser = parse_count, allow_hyphen_values = true)]
    pub max_bits_per_timer: u64,
    /// Which filter to minimise the penalty of.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Inferential)]
    pub objective: ObjectiveArg,
}

/// `bfopt optimize btbf`: the penalty-optimal `(k, bpt, B, P)`.
///
/// # Errors
/// Invalid flags; exit 3 when no design fits the budget.
pub fn optimize(a: &OptimizeArgs) -> Result<Report, CliError> {
    let prior = parse_prior(&a.prior)?;
    let penalties = parse_penalties(&a.penalties)?;
    let k_max = to_u32("--max-hashes", a.max_hashes, "1 <= k_max <= 64")?;
    let bpt_max = to_u32(
        "--max-bits-per-timer",
        a.max_bits_per_timer,
        "2 <= bpt_max <= 20",
    )?;
    let req = BtbfRequirement::new(a.bits_per_item, a.window, prior, penalties)
        .and_then(|r| r.with_k_max(k_max))
        .and_then(|r| r.with_bpt_max(bpt_max))
        .map_err(model_err)?
        .with_objective(match a.objective {
            ObjectiveArg::Inferential => Objective::Inferential,
            ObjectiveArg::Standard => Objective::Standard,
        });
    let pairs = u64::from(k_max) * u64::from(bpt_max - 1);
    let bar = bfopt_validation::sim::Progress::new(pairs, "optimize btbf");
    let d = design_observed(&req, || bar.inc());
    bar.finish();
    let d = d.map_err(model_err)?;
    let p = d.best.params;
    let row = Row::new("timing", serde_json::json!({}), serde_json::json!({}))
        .param("bits_per_item", a.bits_per_item)
        .param("window", a.window)
        .param("prior", prior.describe())
        .param("penalties", penalties.describe())
        .param("max_hashes", k_max)
        .param("max_bits_per_timer", bpt_max)
        .param("objective", req.objective())
        .metric("timers", p.m())
        .metric("hashes", p.k())
        .metric("bits_per_timer", p.bpt())
        .metric("block_size", p.block_size())
        .metric("padding", p.padding())
        .metric("bits_per_item_used", p.bits_per_item())
        .metric("scan_per_insert", p.scan_per_insert())
        .metric("expected_penalty_standard", d.best.penalty.standard)
        .metric("expected_penalty_inferential", d.best.penalty.inferential)
        .metric("expected_penalty_prior_only", d.best.penalty.prior_only)
        .metric("candidates", d.candidates.len());
    Ok(Report::single(row))
}

/// The penalty flags of `bfopt posterior btbf` and `posterior gbf`: with both, the row
/// adds the minimum-penalty decision for the posterior (Section 2.6 [TBF]).
#[derive(Debug, Args)]
pub struct DecisionArgs {
    /// Penalty of a false positive (with --penalty-fn: adds the decision).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true, requires = "penalty_fn")]
    pub penalty_fp: Option<f64>,
    /// Penalty of a false negative.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true, requires = "penalty_fp")]
    pub penalty_fn: Option<f64>,
}

impl DecisionArgs {
    /// `row` with the penalties and the decision for `posterior`, when both are given.
    ///
    /// # Errors
    /// A penalty outside `[0, inf)`.
    pub fn decide(&self, row: Row, posterior: f64) -> Result<Row, CliError> {
        let (Some(fp), Some(fn_)) = (self.penalty_fp, self.penalty_fn) else {
            return Ok(row);
        };
        let pen = Penalties::new(fp, fn_).map_err(model_err)?;
        Ok(row
            .param("penalty_fp", fp)
            .param("penalty_fn", fn_)
            .metric("decision", pen.decide(posterior).name()))
    }
}

/// The stream flags of `bfopt simulate btbf` and `simulate gbf` (Section 6 [TBF]).
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Stream `uniform:U` or `zipf:U` (|U| at most 2^28).
    #[arg(long)]
    pub prior: String,
    /// Penalty distribution.
    #[arg(long, default_value = "uniform:1:10")]
    pub penalties: String,
    /// Independent epochs.
    #[arg(long, default_value = "4", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Base seed.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

impl StreamArgs {
    /// The stream prior and the penalty distribution.
    ///
    /// # Errors
    /// A malformed `--prior` or `--penalties`.
    pub fn parse(&self) -> Result<(StreamPrior, PenaltyDist), CliError> {
        Ok((parse_prior(&self.prior)?, parse_penalties(&self.penalties)?))
    }
}

/// `bfopt simulate btbf` flags.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// The stream.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Insertions before the first query (default 4·max(w, |U|)).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub warmup: Option<u64>,
    /// Queries (each then inserted) per epoch.
    #[arg(long, default_value = "65536", value_parser = parse_count, allow_hyphen_values = true)]
    pub queries: u64,
}

/// `bfopt simulate btbf`: the Section 6 stream experiment against the model.
///
/// # Errors
/// Invalid flags.
pub fn simulate_cmd(a: &SimulateArgs) -> Result<Report, CliError> {
    let params = a.filter.params()?;
    let (prior, penalties) = a.stream.parse()?;
    let cfg = TimingSimConfig {
        params,
        prior,
        distinct: stream_distinct(&prior),
        warmup: a.warmup.unwrap_or(4 * params.w().max(prior.universe())),
        queries: a.queries,
        penalties,
        epochs: a.stream.epochs,
        seed: a.stream.seed,
        confidence: a.stream.confidence,
    };
    let r = simulate(&cfg).map_err(model_err)?;
    let (fp, paper, refined) = prediction(&cfg);
    let row = Row::new("timing", params, serde_json::json!({}))
        .param("prior", prior.describe())
        .param("penalties", cfg.penalties.describe())
        .param("warmup", cfg.warmup)
        .param("queries", cfg.queries)
        .param("epochs", cfg.epochs)
        .param("seed", cfg.seed)
        .metric("fp", fp)
        .measured("measured_fp", r.fp.rate, r.fp.interval)
        .metric("false_negatives", r.false_negatives)
        .metric("in_window", r.in_window.rate)
        .metric("penalty_standard", paper.standard)
        .metric("measured_penalty_standard", r.standard_penalty.mean)
        .metric("penalty_inferential", paper.inferential)
        .metric("measured_penalty_inferential", r.inferential_penalty.mean)
        .metric("penalty_refined", refined.inferential)
        .metric("measured_penalty_refined", r.refined_penalty.mean)
        .metric("penalty_prior_only", paper.prior_only)
        .metric("measured_penalty_prior_only", r.prior_only_penalty.mean)
        .metric("penalty_ratio", r.penalty_ratio)
        .metric("posterior_error", r.posterior_error)
        .metric("refined_posterior_error", r.refined_posterior_error)
        .metric("confidence", cfg.confidence)
        .metric(
            "agrees",
            r.fp.interval.contains(fp) || (fp / r.fp.rate - 1.0).abs() < 0.05,
        );
    Ok(Report::single(row))
}
