//! `bfopt model|optimize|simulate sbf|ibf`: Stable and Importance-aware Bloom filters.

use crate::exit::CliError;
use crate::families::to_u32;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::stable::{
    design_decrements, design_observed, grid_size, solve, stream_metrics, Cost, IbfParams,
    IbfRequirement, ImpMapping, ImportanceDist, Policy, RepeatStream, SbfParams, SbfRequirement,
};
use bfopt_validation::experiments::stable::{
    prediction, simulate, thesis_stream, StableSimConfig, ThesisStreamConfig,
};
use clap::{Args, ValueEnum};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("m", "--cells"),
    ("k", "--hashes"),
    ("max", "--max"),
    ("p", "--decrements"),
    ("fp", "--fp"),
    ("importance", "--importance"),
    ("importance rate", "--importance"),
    ("counter_bits", "--counter-bits"),
    ("member_share", "--member-share"),
    ("bits", "--bits"),
    ("cost_fp", "--cost-fp"),
    ("cost_fn", "--cost-fn"),
    ("policy", "--policies"),
    ("age", "--age"),
    ("steps", "--steps"),
    ("epochs", "--epochs"),
    ("probes", "--probes"),
    ("confidence", "--confidence"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// The policies of Table 1 [SBF].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PolicyArg {
    /// M-insert + Random-delete (Stable Bloom filter).
    Sbf,
    /// Imp-insert + Random-delete.
    Ibf1,
    /// Imp-insert + MinImp-delete.
    Ibf2,
    /// M-insert + Probabilistic-delete-p (1/cumulative importance).
    Ibf3,
    /// M-insert + MinImp-delete.
    Ibf4,
    /// Imp-insert + Probabilistic-delete-p.
    Ibf5,
    /// Imp-insert + Probabilistic-delete-val (1/cell value).
    Ibf6,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Self {
        match p {
            PolicyArg::Sbf => Policy::Sbf,
            PolicyArg::Ibf1 => Policy::Ibf1,
            PolicyArg::Ibf2 => Policy::Ibf2,
            PolicyArg::Ibf3 => Policy::Ibf3,
            PolicyArg::Ibf4 => Policy::Ibf4,
            PolicyArg::Ibf5 => Policy::Ibf5,
            PolicyArg::Ibf6 => Policy::Ibf6,
        }
    }
}

/// A Stable Bloom filter: `--cells --hashes --max --decrements`.
#[derive(Debug, Args)]
pub struct SbfArgs {
    /// Cells m.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub cells: u64,
    /// Hash functions K (1 to 64, K < m).
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Largest cell value Max (1 to 255).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub max: u64,
    /// Cells decremented before each insertion P (1 <= P < m).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub decrements: u64,
}

impl SbfArgs {
    /// Validated parameters.
    pub(crate) fn params(&self) -> Result<SbfParams, CliError> {
        let k = to_u32("--hashes", self.hashes, "1 <= k <= 64")?;
        let max = to_u32("--max", self.max, "1 <= max <= 255")?;
        SbfParams::new(self.cells, k, max, self.decrements).map_err(model_err)
    }
}

/// `bfopt model sbf` flags.
#[derive(Debug, Args)]
pub struct SbfModelArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: SbfArgs,
    /// Also report the FN of an item this many insertions after its insertion.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub age: Option<u64>,
    /// Also report the expected zero fraction after this many insertions into an empty
    /// filter (convergence to the stable point).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub insertions: Option<u64>,
}

/// `bfopt model sbf`: stable point (closed form and chain), FP, FN half-life.
///
/// # Errors
/// Invalid flags.
pub fn model_sbf(args: &SbfModelArgs) -> Result<Report, CliError> {
    let p = args.filter.params()?;
    let metrics = p.metrics(args.age).map_err(model_err)?;
    let mut row = Row::new("stable", p, metrics);
    if let Some(a) = args.age {
        row = row.param("age", a);
    }
    if let Some(n) = args.insertions {
        row = row
            .param("insertions", n)
            .metric("zero_fraction_after", p.zero_fraction_after(n));
    }
    Ok(Report::single(row))
}

/// An importance-aware filter: the SBF flags plus policy and importance.
#[derive(Debug, Args)]
pub struct IbfArgs {
    /// Insertion / deletion policy (Table 1 of the thesis).
    #[arg(long, value_enum)]
    pub policy: PolicyArg,
    /// The cells, hashes, Max and decrements.
    #[command(flatten)]
    pub filter: SbfArgs,
    /// Importance law: linear:LO:HI, exponential:LO:HI:RATE or hist:IMP=WEIGHT,...
    #[arg(long, default_value = "linear:1:50")]
    pub importance: String,
    /// Bits of the cumulative-importance counter (IBF2-IBF5).
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub counter_bits: u64,
    /// Imp-insert value: cap = min(importance, Max); scale = ceil(importance·Max/Z).
    #[arg(long, value_enum, default_value_t = ImpMapArg::Cap)]
    pub imp_map: ImpMapArg,
}

/// Importance-to-value mappings of Imp-insert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImpMapArg {
    /// min(importance, Max).
    Cap,
    /// ceil(importance·Max/Z), Z the largest importance.
    Scale,
}

impl IbfArgs {
    /// The model parameters the flags give.
    ///
    /// # Errors
    /// Invalid flags (exit 2).
    pub(crate) fn params(&self) -> Result<IbfParams, CliError> {
        let s = self.filter.params()?;
        let imp = ImportanceDist::parse(&self.importance).map_err(model_err)?;
        let bits = to_u32(
            "--counter-bits",
            self.counter_bits,
            "1 <= counter_bits <= 12",
        )?;
        IbfParams::new(self.policy.into(), s.m(), s.k(), s.max(), s.p(), imp)
            .and_then(|p| p.with_counter_bits(bits))
            .map(|p| {
                p.with_imp_mapping(match self.imp_map {
                    ImpMapArg::Cap => ImpMapping::Cap,
                    ImpMapArg::Scale => ImpMapping::Scale,
                })
            })
            .map_err(model_err)
    }
}

/// `bfopt model ibf` flags.
#[derive(Debug, Args)]
pub struct IbfModelArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: IbfArgs,
    /// Age of member queries in insertions (default: m).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub age: Option<u64>,
    /// Share of member queries for precision and recall.
    #[arg(long, default_value = "0.7", value_parser = parse_real, allow_hyphen_values = true)]
    pub member_share: f64,
}

/// `bfopt model ibf`: stable point, FP, FN by importance, weighted metrics.
///
/// # Errors
/// Invalid flags; exit 3 if the mean-field fixed point does not converge.
pub fn model_ibf(args: &IbfModelArgs) -> Result<Report, CliError> {
    let p = args.filter.params()?;
    let age = args.age.unwrap_or(p.m());
    let sol = solve(&p).map_err(model_err)?;
    let metrics = sol.metrics(age, args.member_share).map_err(model_err)?;
    Ok(Report::single(Row::new("stable", &p, metrics)))
}

/// `bfopt optimize sbf` flags.
#[derive(Debug, Args)]
pub struct SbfOptimizeArgs {
    /// Cells m.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub cells: u64,
    /// Hash functions K.
    #[arg(long, value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub hashes: u64,
    /// Largest cell value Max.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub max: u64,
    /// Largest acceptable stable-point FP, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
}

/// `bfopt optimize sbf`: the smallest integer P whose stable-point FP meets the target.
///
/// # Errors
/// Invalid flags; exit 3 when no P < m meets the target.
pub fn optimize_sbf(args: &SbfOptimizeArgs) -> Result<Report, CliError> {
    let req = SbfRequirement {
        m: args.cells,
        k: to_u32("--hashes", args.hashes, "1 <= k <= 64")?,
        max: to_u32("--max", args.max, "1 <= max <= 255")?,
        fp: args.fp,
    };
    let d = design_decrements(&req).map_err(model_err)?;
    let row = Row::new("stable", req, serde_json::json!({}))
        .metric("decrements", d.params.p())
        .metric("fp", d.fp)
        .metric("decrements_real", d.p_real)
        .metric("zero_fraction", d.params.zero_fraction())
        .metric("memory_bits", d.params.memory_bits());
    Ok(Report::single(row))
}

/// `bfopt optimize ibf` flags.
#[derive(Debug, Args)]
pub struct IbfOptimizeArgs {
    /// Memory budget (bits, or with a unit: 64kb, 8KiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: u64,
    /// Importance law of queried items.
    #[arg(long, default_value = "linear:1:50")]
    pub importance: String,
    /// Cost of a false positive: A, A*imp or A+B*imp.
    #[arg(long, default_value = "1")]
    pub cost_fp: String,
    /// Cost of a false negative: A, A*imp or A+B*imp.
    #[arg(long, default_value = "1*imp")]
    pub cost_fn: String,
    /// Age of member queries in insertions.
    #[arg(long, default_value = "1000", value_parser = parse_count, allow_hyphen_values = true)]
    pub age: u64,
    /// Share of member queries.
    #[arg(long, default_value = "0.7", value_parser = parse_real, allow_hyphen_values = true)]
    pub member_share: f64,
    /// Policies to consider (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub policies: Vec<PolicyArg>,
}

/// `bfopt optimize ibf`: the policy, Max, K and P of least expected cost per query.
///
/// # Errors
/// Invalid flags; exit 3 when the budget holds no filter.
pub fn optimize_ibf(args: &IbfOptimizeArgs) -> Result<Report, CliError> {
    let policies = if args.policies.is_empty() {
        Policy::ALL.to_vec()
    } else {
        args.policies.iter().map(|&p| p.into()).collect()
    };
    let req = IbfRequirement {
        bits: args.bits,
        importance: ImportanceDist::parse(&args.importance).map_err(model_err)?,
        cost_fp: Cost::parse("cost_fp", &args.cost_fp).map_err(model_err)?,
        cost_fn: Cost::parse("cost_fn", &args.cost_fn).map_err(model_err)?,
        age: args.age,
        member_share: args.member_share,
        policies,
    };
    let bar = bfopt_validation::sim::Progress::new(grid_size(&req), "optimize ibf");
    let d = design_observed(&req, || bar.inc());
    bar.finish();
    let d = d.map_err(model_err)?;
    let row = Row::new("stable", &req, serde_json::json!({}))
        .param("importance", req.importance.spec())
        .metric("policy", d.params.policy().name())
        .metric("cells", d.params.m())
        .metric("hashes", d.params.k())
        .metric("max", d.params.max())
        .metric("decrements", d.params.p())
        .metric("memory_bits", d.params.memory_bits())
        .metric("cost", d.cost)
        .metric("fp", d.metrics.fp)
        .metric("weighted_fn", d.metrics.weighted_fn)
        .metric("zero_fraction", d.metrics.zero_fraction)
        .metric("evaluated", d.evaluated);
    Ok(Report::single(row))
}

/// Simulation flags of `simulate sbf|ibf`.
#[derive(Debug, Args)]
pub struct StableSimArgs {
    /// Measured insertions per epoch (after a warm-up of 20·m·Max/P).
    #[arg(long, default_value = "20000", value_parser = parse_count, allow_hyphen_values = true)]
    pub steps: u64,
    /// Age of member queries (default: m/2).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub age: Option<u64>,
    /// Independent epochs.
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Non-member probes per measured insertion.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub probes: u64,
    /// Base seed.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// `bfopt simulate sbf` flags.
#[derive(Debug, Args)]
pub struct SbfSimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: SbfArgs,
    /// The simulation.
    #[command(flatten)]
    pub sim: StableSimArgs,
}

/// `bfopt simulate ibf` flags.
#[derive(Debug, Args)]
pub struct IbfSimulateArgs {
    /// The filter.
    #[command(flatten)]
    pub filter: IbfArgs,
    /// The simulation.
    #[command(flatten)]
    pub sim: StableSimArgs,
    /// Run the thesis's duplicate-detection stream of this many arrivals instead
    /// (Section 6.1.2: 100000), reporting the weighted FP / FN, precision and recall of
    /// Tables 3-4 and the final zero cells of Figure 7, predicted by the stream-with-repeats
    /// model and measured.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub arrivals: Option<u64>,
    /// Share of repeated items in the thesis stream.
    #[arg(long, default_value = "0.7", value_parser = crate::units::parse_rate, allow_hyphen_values = true)]
    pub duplicates: f64,
}

/// `bfopt simulate sbf`.
///
/// # Errors
/// Invalid flags.
pub fn simulate_sbf(args: &SbfSimulateArgs) -> Result<Report, CliError> {
    let s = args.filter.params()?;
    let p = IbfParams::new(
        Policy::Sbf,
        s.m(),
        s.k(),
        s.max(),
        s.p(),
        ImportanceDist::linear(1, 1).map_err(model_err)?,
    )
    .map_err(model_err)?;
    run_sim(p, &args.sim)
}

/// `bfopt simulate ibf`.
///
/// # Errors
/// Invalid flags.
pub fn simulate_ibf(args: &IbfSimulateArgs) -> Result<Report, CliError> {
    let params = args.filter.params()?;
    let Some(arrivals) = args.arrivals else {
        return run_sim(params, &args.sim);
    };
    let cfg = ThesisStreamConfig {
        params,
        arrivals,
        duplicate_rate: args.duplicates,
        checkpoints: 10.min(arrivals.max(1)),
        epochs: args.sim.epochs,
        seed: args.sim.seed,
        confidence: args.sim.confidence,
    };
    let stream_err = |e| {
        let mut flags = FLAGS.to_vec();
        flags.push(("duplicate_rate", "--duplicates"));
        flags.push(("arrivals", "--arrivals"));
        CliError::from_model(e, &flags)
    };
    let stream = RepeatStream::new(arrivals, args.duplicates).map_err(stream_err)?;
    // The model first: a stream beyond its work limit fails before the simulation runs.
    let pred = stream_metrics(&cfg.params, &stream).map_err(stream_err)?;
    let r = thesis_stream(&cfg).map_err(stream_err)?;
    let row = Row::new("stable", &cfg.params, serde_json::json!({}))
        .param("arrivals", arrivals)
        .param("duplicates", cfg.duplicate_rate)
        .param("epochs", cfg.epochs)
        .param("seed", cfg.seed)
        .metric("weighted_fp", pred.weighted_fp)
        .metric("weighted_fn", pred.weighted_fn)
        .metric("precision", pred.precision)
        .metric("recall", pred.recall)
        .metric("zero_cells", pred.zero_cells_final)
        .metric("mean_repeat_age", pred.mean_age)
        .metric("fn_by_importance", &pred.fn_by_importance)
        .metric("measured_weighted_fp", r.weighted_fp.mean)
        .metric("measured_weighted_fn", r.weighted_fn.mean)
        .metric("measured_precision", r.precision.mean)
        .metric("measured_recall", r.recall.mean)
        .metric("measured_zero_cells", r.zero_cells.last().copied())
        .metric("measured_zero_cells_series", &r.zero_cells)
        .metric(
            "measured_fn_by_importance",
            r.fn_by_importance
                .iter()
                .map(|p| p.rate)
                .collect::<Vec<_>>(),
        )
        .metric(
            "measured_fp_by_importance",
            r.fp_by_importance
                .iter()
                .map(|p| p.rate)
                .collect::<Vec<_>>(),
        );
    Ok(Report::single(row))
}

fn run_sim(params: IbfParams, a: &StableSimArgs) -> Result<Report, CliError> {
    let age = a.age.unwrap_or(params.m() / 2);
    let mut cfg = StableSimConfig::new(params, a.steps, age, a.epochs, a.seed);
    cfg.probes = a.probes;
    cfg.confidence = a.confidence;
    let r = simulate(&cfg).map_err(model_err)?;
    let (zero, fp, wfn) = prediction(&cfg).map_err(model_err)?;
    let row = Row::new("stable", &cfg.params, serde_json::json!({}))
        .param("age", age)
        .param("warmup", cfg.warmup)
        .param("steps", cfg.steps)
        .param("epochs", cfg.epochs)
        .param("seed", cfg.seed)
        .metric("zero_fraction", zero)
        .measured(
            "measured_zero_fraction",
            r.zero_fraction.mean,
            r.zero_fraction.interval,
        )
        .metric("fp", fp)
        .measured("measured_fp", r.fp.mean, r.fp.interval)
        .metric("weighted_fn", wfn)
        .measured(
            "measured_weighted_fn",
            r.weighted_fn.mean,
            r.weighted_fn.interval,
        )
        .metric(
            "measured_fn_by_importance",
            r.fn_by_importance
                .iter()
                .map(|p| p.rate)
                .collect::<Vec<_>>(),
        )
        .metric("confidence", cfg.confidence);
    Ok(Report::single(row))
}
