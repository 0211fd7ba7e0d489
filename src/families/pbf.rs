//! `bfopt model pbf`, `model pbf-bound`, `optimize pbf`, `simulate pbf` (issue 7).

use crate::exit::CliError;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::pbf::{
    distinct_counts, filter_fp, filter_fp_with_budget, fine_probes_by_leaf, fp_sbf, hashes_for,
    mean_query_fp, workload_stats, AllocationProblem, BoundRequest, PbfLayout, Variant,
};
use bfopt_validation::experiments::pbf::{
    learn_online, noisy_workload, plan, query_workload, run, Learned, Method, OnlineInputs,
    PbfRunConfig, TraceSpec, PREDICTION_BUDGET, SMOOTHING,
};
use bfopt_validation::workload::read_trace_file;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("bits", "--bits"),
    ("distinct", "--distinct"),
    ("frequency", "--frequency"),
    ("k_max", "--max-hashes"),
    ("pairs", "--pairs"),
    ("horizon", "--horizon"),
    ("fp", "--fp"),
    ("query_length", "--query-length"),
    ("granularity", "--granularity"),
    ("queries", "--queries"),
    ("confidence", "--confidence"),
    ("scale", "--scale"),
    ("timestamp", "--trace"),
    ("session_visits", "--session-visits"),
    ("session_gap", "--session-gap"),
    ("smoothing", "--online-smoothing"),
];

fn model_err(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, FLAGS)
}

/// `bfopt model pbf`: the optimal split of `--bits` over filters (Eqs. 10-13 [PBF]).
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Total bits m (units accepted: 8Mb, 1MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: u64,
    /// Distinct items per filter d1,d2,... (comma-separated, >= 0).
    #[arg(long, required = true, value_delimiter = ',', value_parser = parse_real, allow_hyphen_values = true)]
    pub distinct: Vec<f64>,
    /// Expected probes per query f1,f2,... (one per filter, >= 0).
    #[arg(long, required = true, value_delimiter = ',', value_parser = parse_real, allow_hyphen_values = true)]
    pub frequency: Vec<f64>,
    /// Largest hash count per filter (the paper uses 16).
    #[arg(long, default_value = "16", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
}

fn k_max(v: u64) -> Result<u32, CliError> {
    u32::try_from(v)
        .ok()
        .filter(|k| AllocationProblem::K_MAX.contains(k))
        .ok_or_else(|| CliError::invalid("--max-hashes", v, "1 <= k_max <= 64"))
}

/// `bfopt model pbf`.
///
/// # Errors
/// Lists of different lengths, negative values, bad `--bits` or `--max-hashes`.
pub fn model(args: &ModelArgs) -> Result<Report, CliError> {
    let k = k_max(args.max_hashes)?;
    let problem = AllocationProblem::new(args.bits, args.distinct.clone(), args.frequency.clone())
        .map_err(model_err)?;
    let a = problem.optimal(k).map_err(model_err)?;
    let uniform = problem.uniform(k).map_err(model_err)?;
    let row = Row::new("pbf", serde_json::json!({}), serde_json::json!({}))
        .param("bits", args.bits)
        .param("distinct", &args.distinct)
        .param("frequency", &args.frequency)
        .param("max_hashes", k)
        .metric("bits", &a.bits)
        .metric("lambda", a.lambda)
        .metric("fp", a.fp)
        .metric("hashes", &a.hashes)
        .metric("bits_rounded", &a.bits_rounded)
        .metric("fp_rounded", a.fp_rounded)
        .metric("fp_uniform", uniform.fp_rounded);
    // The FP is exactly 0 only when no queried set holds an item.
    let exactly_zero = !args
        .distinct
        .iter()
        .zip(&args.frequency)
        .any(|(&d, &f)| d > 0.0 && f > 0.0);
    Ok(Report::single(super::tiny::underflow(
        row,
        exactly_zero,
        || {
            vec![
                ("fp", problem.ln_fp(&a)),
                ("fp_rounded", problem.ln_fp_rounded(&a)),
                ("fp_uniform", problem.ln_fp_rounded(&uniform)),
            ]
        },
        "model pbf",
    )?))
}

/// `bfopt model pbf-bound`: the space bound of Theorem C.3 (Eq. 14 [PBF]).
#[derive(Debug, Args)]
pub struct BoundArgs {
    /// Distinct (item, timestamp) pairs n.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub pairs: u64,
    /// Horizon T (time units).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub horizon: u64,
    /// Target false-positive rate of a temporal query, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Query length |q| (time units).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub query_length: u64,
    /// PBF-1 leaf granularity g (a power of two; 1 = PBF-2 or PBF-1 with g = 1).
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub granularity: u64,
}

/// `bfopt model pbf-bound`.
///
/// # Errors
/// Any flag out of range.
pub fn bound(args: &BoundArgs) -> Result<Report, CliError> {
    let r = BoundRequest::new(
        args.pairs,
        args.horizon,
        args.fp,
        args.query_length,
        args.granularity,
    )
    .map_err(model_err)?;
    let b = r.bound();
    Ok(Report::single(Row::new("pbf", r, b)))
}

/// PBF variants on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariantArg {
    /// PBF-1: a filter per interval plus the fine filter.
    #[value(name = "1")]
    One,
    /// PBF-2: a filter per level.
    #[value(name = "2")]
    Two,
}

impl VariantArg {
    fn variant(self) -> Variant {
        match self {
            VariantArg::One => Variant::Pbf1,
            VariantArg::Two => Variant::Pbf2,
        }
    }
}

/// `bfopt optimize pbf`: allocate bits for a trace and a query length.
#[derive(Debug, Args)]
pub struct OptimizeArgs {
    /// CSV trace `item,timestamp` (whole timestamps from 1).
    #[arg(long)]
    pub trace: PathBuf,
    /// Total bits m.
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: u64,
    /// Query length |q| of the workload.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub query_length: u64,
    /// PBF-1 or PBF-2.
    #[arg(long, value_enum, default_value_t = VariantArg::Two)]
    pub variant: VariantArg,
    /// PBF-1 leaf granularity g (a power of two).
    #[arg(long, default_value = "4", value_parser = parse_count, allow_hyphen_values = true)]
    pub granularity: u64,
    /// Partition length T (default: the largest timestamp; with --online the trace must
    /// span two partitions).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub horizon: Option<u64>,
    /// Learn d_i, f_i from the first partition [1, T] with sketches (SIMPLE, Section 6)
    /// and evaluate on the second [T+1, 2T].
    #[arg(long)]
    pub online: bool,
    /// Random queries of length |q| in the workload.
    #[arg(long, default_value = "10000", value_parser = parse_count, allow_hyphen_values = true)]
    pub queries: u64,
    /// Seed of the query workload.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Largest hash count per filter.
    #[arg(long, default_value = "16", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
}

/// Reads `item,timestamp` records with whole timestamps `>= 1`.
fn read_pairs(path: &Path) -> Result<Vec<(u64, u64)>, CliError> {
    let file_err = |line: u64, message: String| CliError::File {
        path: path.display().to_string(),
        line,
        message,
    };
    let records = read_trace_file(path).map_err(|e| file_err(e.line, e.message))?;
    records
        .iter()
        .map(|r| {
            let line = r.line;
            match r.timestamp {
                Some(t) if t >= 1.0 && t.fract() == 0.0 && t <= 2f64.powi(40) => {
                    Ok((r.key, t as u64))
                }
                Some(t) => Err(file_err(
                    line,
                    format!("timestamp = {t}: allowed a whole number from 1 to 2^40"),
                )),
                None => Err(file_err(
                    line,
                    "missing timestamp (allowed: item,timestamp)".into(),
                )),
            }
        })
        .collect()
}

/// `bfopt optimize pbf`: one row per level (PBF-1: totals over the level's intervals,
/// and the fine filter), after a summary row with the predicted FPs.
///
/// # Errors
/// Bad flags or trace lines (exit 2).
pub fn optimize(args: &OptimizeArgs) -> Result<Report, CliError> {
    let k = k_max(args.max_hashes)?;
    let variant = args.variant.variant();
    let g = if variant == Variant::Pbf1 {
        args.granularity
    } else {
        1
    };
    let all = read_pairs(&args.trace)?;
    let max_t = all.iter().map(|p| p.1).max().unwrap_or(1);
    let horizon = match (args.horizon, args.online) {
        (Some(h), _) => h,
        (None, false) => max_t,
        (None, true) => {
            return Err(CliError::invalid(
                "--online",
                "without --horizon",
                "--online needs --horizon T (the trace spans [1, 2T])",
            ))
        }
    };
    let layout = PbfLayout::new(variant, horizon, g).map_err(model_err)?;
    type Pairs = Vec<(u64, u64)>;
    let (current, previous): (Pairs, Pairs) = if args.online {
        let prev: Vec<_> = all.iter().copied().filter(|p| p.1 <= horizon).collect();
        let cur: Vec<_> = all
            .iter()
            .filter(|p| p.1 > horizon && p.1 <= 2 * horizon)
            .map(|&(a, t)| (a, t - horizon))
            .collect();
        (cur, prev)
    } else {
        if max_t > horizon {
            return Err(CliError::invalid(
                "--horizon",
                horizon,
                format!("at least the trace's largest timestamp {max_t}"),
            ));
        }
        (all, Vec::new())
    };
    let queries = query_workload(horizon, args.query_length, args.queries, 0, args.seed)
        .map_err(model_err)?;
    let ranges: Vec<(u64, u64)> = queries.iter().map(|&(_, s, e)| (s, e)).collect();
    let learned = if args.online {
        let training = noisy_workload(&queries, horizon, args.seed);
        learn_online(&layout, &previous, &training, args.seed).map_err(model_err)?
    } else {
        let st = workload_stats(&layout, &current, &ranges).map_err(model_err)?;
        Learned {
            distinct: st.distinct,
            frequency: st.frequency,
            fine_by_leaf: fine_probes_by_leaf(&layout, &ranges).map_err(model_err)?,
        }
    };
    let method = Method::Opt(variant);
    let a = plan(&layout, args.bits, &learned, method, k).map_err(model_err)?;
    let u = plan(&layout, args.bits, &learned, Method::Uniform(variant), k).map_err(model_err)?;
    let f_plan = a_frequency(&layout, &learned, &a);
    let actual = distinct_counts(&layout, &current).map_err(model_err)?;
    let fp_of = |bits: &[u64], hashes: &[u32]| -> Vec<f64> {
        (0..actual.len())
            .map(|i| filter_fp_with_budget(bits[i], hashes[i], actual[i] as f64, PREDICTION_BUDGET))
            .collect()
    };
    let predicted =
        mean_query_fp(&layout, &ranges, &fp_of(&a.bits_rounded, &a.hashes)).map_err(model_err)?;
    let predicted_uniform =
        mean_query_fp(&layout, &ranges, &fp_of(&u.bits_rounded, &u.hashes)).map_err(model_err)?;
    let pairs = bfopt_models::pbf::distinct_pairs(&current);
    let k_sbf = hashes_for(args.bits, pairs as f64, k);
    let sbf = fp_sbf(filter_fp(args.bits, k_sbf, pairs as f64), args.query_length);
    let name = match variant {
        Variant::Pbf1 => "pbf1",
        Variant::Pbf2 => "pbf2",
    };
    let mut rows = vec![
        Row::new("pbf", serde_json::json!({}), serde_json::json!({}))
            .param("variant", name)
            .param("level", "all")
            .param("horizon", horizon)
            .param("granularity", g)
            .param("query_length", args.query_length)
            .param("online", args.online)
            .metric("filters", layout.filters())
            .metric("bits", args.bits)
            .metric("distinct", pairs)
            .metric("lambda", a.lambda)
            .metric("fp", a.fp)
            .metric("fp_rounded", a.fp_rounded)
            .metric("predicted_fp", predicted)
            .metric("predicted_fp_uniform", predicted_uniform)
            .metric("fp_sbf", sbf),
    ];
    let tree = layout.tree();
    for level in 0..layout.levels() {
        let (lo, hi) = match variant {
            Variant::Pbf1 => {
                let lo = tree.index(bfopt_models::pbf::Node { level, pos: 0 }) as usize;
                (lo, lo + tree.count(level) as usize)
            }
            Variant::Pbf2 => (level as usize, level as usize + 1),
        };
        rows.push(level_row(
            name,
            &level.to_string(),
            tree.length(level),
            lo..hi,
            &a,
            &actual,
            &f_plan,
        ));
    }
    if let Some(f) = layout.fine_filter() {
        let f = f as usize;
        rows.push(level_row(name, "fine", 1, f..f + 1, &a, &actual, &f_plan));
    }
    Ok(Report::list(rows))
}

/// The `f_i` the allocation used: the learned ones, with PBF-1's fine filter at its gated
/// count `Σ_o p_o·c_o`.
fn a_frequency(
    layout: &PbfLayout,
    learned: &Learned,
    a: &bfopt_models::pbf::Allocation,
) -> Vec<f64> {
    let mut f = learned.frequency.clone();
    if let Some(fine) = layout.fine_filter() {
        f[fine as usize] = (0..f.len())
            .filter(|&o| learned.fine_by_leaf[o] > 0.0 && learned.distinct[o] > 0.0)
            .map(|o| {
                let p = (-bfopt_models::pbf::LN2_SQ * a.bits[o] / learned.distinct[o]).exp();
                p * learned.fine_by_leaf[o]
            })
            .sum();
    }
    f
}

fn level_row(
    variant: &str,
    level: &str,
    granularity: u64,
    range: std::ops::Range<usize>,
    a: &bfopt_models::pbf::Allocation,
    actual: &[u64],
    f: &[f64],
) -> Row {
    let n = range.len() as f64;
    let bits: u64 = a.bits_rounded[range.clone()].iter().sum();
    let hashes = a.hashes[range.clone()]
        .iter()
        .map(|&k| f64::from(k))
        .sum::<f64>()
        / n;
    let d: u64 = actual[range.clone()].iter().sum();
    let freq: f64 = f[range.clone()].iter().sum();
    Row::new("pbf", serde_json::json!({}), serde_json::json!({}))
        .param("variant", variant)
        .param("level", level)
        .param("granularity", granularity)
        .metric("filters", range.len())
        .metric("bits", bits)
        .metric("hashes_mean", hashes)
        .metric("distinct", d)
        .metric("frequency", freq)
}

/// Methods on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// The five methods of Table 2 (SBF, β1-opt, β2-opt, β1-online, β2-online).
    Table2,
    /// Single filter over (item, timestamp) pairs.
    Sbf,
    /// PBF-1, every filter the same size.
    Pbf1Uniform,
    /// PBF-2, every level the same size.
    Pbf2Uniform,
    /// PBF-1, optimal allocation from exact statistics.
    Pbf1Opt,
    /// PBF-2, optimal allocation from exact statistics.
    Pbf2Opt,
    /// PBF-1, allocation learned on the previous day (SIMPLE).
    Pbf1Online,
    /// PBF-2, allocation learned on the previous day (SIMPLE).
    Pbf2Online,
}

impl MethodArg {
    fn methods(self) -> Vec<Method> {
        match self {
            MethodArg::Table2 => Method::TABLE_2.to_vec(),
            MethodArg::Sbf => vec![Method::Sbf],
            MethodArg::Pbf1Uniform => vec![Method::Uniform(Variant::Pbf1)],
            MethodArg::Pbf2Uniform => vec![Method::Uniform(Variant::Pbf2)],
            MethodArg::Pbf1Opt => vec![Method::Opt(Variant::Pbf1)],
            MethodArg::Pbf2Opt => vec![Method::Opt(Variant::Pbf2)],
            MethodArg::Pbf1Online => vec![Method::Online(Variant::Pbf1)],
            MethodArg::Pbf2Online => vec![Method::Online(Variant::Pbf2)],
        }
    }
}

/// Synthetic days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DatasetArg {
    /// Steady arrivals, 2.13M pairs, 25.5k clients (scaled).
    Edgar,
    /// Quiet night and busy day, 2.20M pairs, 124k clients (scaled).
    Network,
}

/// Parameter sweeps of Section 7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FigureArg {
    /// FP against m (2e7 to 6e7 bits at full scale).
    #[value(name = "8")]
    Eight,
    /// FP (and probes, Figure 10) against |q| = 16 to 8192.
    #[value(name = "9")]
    Nine,
    /// FP against T = 14400, 28800, 57600, 86400.
    #[value(name = "11")]
    Eleven,
}

/// `bfopt simulate pbf`: build the structures on a synthetic day and measure FP.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The synthetic day.
    #[arg(long, value_enum, default_value_t = DatasetArg::Edgar)]
    pub dataset: DatasetArg,
    /// Fraction of the paper's day (pairs and clients), 0 < scale <= 1.
    #[arg(long, default_value = "0.02", value_parser = parse_real, allow_hyphen_values = true)]
    pub scale: f64,
    /// Which methods.
    #[arg(long, value_enum, default_value_t = MethodArg::Table2)]
    pub method: MethodArg,
    /// Total bits (default: 5e7 × scale, the paper's default m).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub bits: Option<u64>,
    /// Query length |q|.
    #[arg(long, default_value = "128", value_parser = parse_count, allow_hyphen_values = true)]
    pub query_length: u64,
    /// Horizon T <= 86400 (the first T seconds of the day).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub horizon: Option<u64>,
    /// Run the parameter grid of a figure instead of one point.
    #[arg(long, value_enum)]
    pub figure: Option<FigureArg>,
    /// Non-member test queries.
    #[arg(long, default_value = "10000", value_parser = parse_count, allow_hyphen_values = true)]
    pub queries: u64,
    /// PBF-1 leaf granularity g.
    #[arg(long, default_value = "4", value_parser = parse_count, allow_hyphen_values = true)]
    pub granularity: u64,
    /// Largest hash count per filter.
    #[arg(long, default_value = "16", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
    /// Base seed.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Two-sided confidence of the measured intervals.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
    /// Mean distinct seconds a client visits per session (default: the dataset's; 1 to 1e6).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub session_visits: Option<f64>,
    /// Mean seconds between two visits of a session (default: the dataset's; 1 to 1e6).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub session_gap: Option<f64>,
    /// Online methods learn on the tested day itself (no day-to-day variation).
    #[arg(long)]
    pub online_same_day: bool,
    /// Online methods count d_i, f_i exactly instead of with HyperLogLog and Count-Min.
    #[arg(long)]
    pub online_exact: bool,
    /// Weight of the level mean in PBF-1's learned statistics, 0 to 1 (0: plain SIMPLE).
    #[arg(long, default_value_t = SMOOTHING, value_parser = parse_real, allow_hyphen_values = true)]
    pub online_smoothing: f64,
}

/// `bfopt simulate pbf`: one row per (point, method); exit 1 if a prediction falls
/// outside its measured interval.
///
/// # Errors
/// Bad flags (exit 2).
pub fn simulate_cmd(args: &SimulateArgs) -> Result<Report, CliError> {
    let k = k_max(args.max_hashes)?;
    let name = match args.dataset {
        DatasetArg::Edgar => "edgar",
        DatasetArg::Network => "network",
    };
    let mut spec = TraceSpec::named(name, args.scale).map_err(model_err)?;
    spec.session_visits = args.session_visits.unwrap_or(spec.session_visits);
    spec.session_gap = args.session_gap.unwrap_or(spec.session_gap);
    // Checked here, not only by the learner: a run of the offline methods never learns.
    if !(0.0..=1.0).contains(&args.online_smoothing) {
        return Err(CliError::invalid(
            "--online-smoothing",
            args.online_smoothing,
            "0 <= smoothing <= 1",
        ));
    }
    let online = OnlineInputs {
        same_day: args.online_same_day,
        exact: args.online_exact,
        smoothing: args.online_smoothing,
    };
    let scaled = |m: f64| (m * args.scale).round().max(1.0) as u64;
    let bits = args.bits.unwrap_or_else(|| scaled(5e7));
    // (bits, |q|, horizon) points.
    let points: Vec<(u64, u64, Option<u64>)> = match args.figure {
        None => vec![(bits, args.query_length, args.horizon)],
        Some(FigureArg::Eight) => [2e7, 3e7, 4e7, 5e7, 6e7]
            .iter()
            .map(|&m| (scaled(m), args.query_length, args.horizon))
            .collect(),
        Some(FigureArg::Nine) => (4..=13).map(|j| (bits, 1u64 << j, args.horizon)).collect(),
        Some(FigureArg::Eleven) => [14_400, 28_800, 57_600, 86_400]
            .iter()
            .map(|&t| (bits, args.query_length, Some(t)))
            .collect(),
    };
    let mut rows = Vec::new();
    for (bits, q, horizon) in points {
        for method in args.method.methods() {
            let cfg = PbfRunConfig {
                spec,
                horizon,
                method,
                bits,
                query_length: q,
                queries: args.queries,
                granularity: args.granularity,
                k_max: k,
                seed: args.seed,
                confidence: args.confidence,
                online,
            };
            let r = run(&cfg).map_err(model_err)?;
            let m = &r.measured;
            let band = bfopt_validation::experiments::pbf::TOLERANCE.rel_band;
            let agrees = r.predicted_fp >= m.interval.lo * (1.0 - band)
                && r.predicted_fp <= m.interval.hi * (1.0 + band)
                && r.false_negatives == 0;
            rows.push(
                Row::new("pbf", serde_json::json!({}), serde_json::json!({}))
                    .param("dataset", name)
                    .param("scale", args.scale)
                    .param("method", method.name())
                    .param("bits", bits)
                    .param("query_length", q)
                    .param("horizon", horizon.unwrap_or(spec.horizon))
                    .param("queries", args.queries)
                    .param("seed", args.seed)
                    .param("session_visits", spec.session_visits)
                    .param("session_gap", spec.session_gap)
                    .param("online_same_day", online.same_day)
                    .param("online_exact", online.exact)
                    .param("online_smoothing", online.smoothing)
                    .metric("fp", r.predicted_fp)
                    .measured("measured_fp", m.rate, m.interval)
                    .metric("objective_fp", r.objective_fp)
                    .metric("probes_per_query", r.probes_per_query)
                    .metric("filters", r.filters)
                    .metric("false_negatives", r.false_negatives)
                    .metric("pairs", r.pairs)
                    .metric("items", r.items)
                    .metric("entries", r.entries)
                    .metric("agrees", agrees),
            );
        }
    }
    // Exit 1 on a disagreement: `Report::exit_on_disagreement`, for every simulate verb.
    Ok(Report::list(rows))
}
