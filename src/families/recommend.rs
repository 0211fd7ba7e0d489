//! `bfopt recommend`: flags to a [`Requirement`], [`bfopt_plan::plan`], and the
//! [`Plan`] to a table, JSON or CSV. Every decision is the planner's; this module only
//! maps flags and renders.

use crate::exit::{CliError, Exit};
use crate::families::profile::TraceArgs;
use crate::families::target::{configurations, SystemArg};
use crate::render::{aligned, Format};
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_plan::text::{num, prob};
use bfopt_plan::validation::Validation;
use bfopt_plan::{plan, Candidate, Level, Plan, PlanError, Requirement, RequirementFlags};
use bfopt_validation::agree::Check;
use clap::{ArgGroup, Args};
use serde::Serialize;

/// What the columns and symbols of the table mean (`recommend --help`).
pub const COLUMNS_HELP: &str = "\
Columns of the table:
  #            rank by memory; * marks the pick (its reason is printed under the table)
  design       the structure to build
  parameters   classic m bits, k hashes, B block bits; rotating r filters of g insertions;
               apbf k+l slices of g insertions per generation, B block bits, b bits per
               block; rbf 2x m bits, sigma set bits per cycle; sbf/ibf m cells, K cells per
               item, Max cell maximum, dec decrements per insertion, ctr counter bits;
               btbf m timers, bpt bits per timer, B insertions per block, pad padding timers
               scanned per insertion; gbf k0 resetting and k1 setting hashes; pbf g
               timestamps per leaf; fingerprint-queue fingerprint and count bits
  bits/item    memory over the items of the requirement (items, window insertions, pairs,
               the most items of a growing set)
  (x)          x limit: bits/item over log2(1/fp), how far from the information-theoretic bound
               n*log2(1/fp) bits for n items (for a window, per window item: the leading term
               of the window's bound, which Naor and Yogev's sliding Bloom filter achieves up
               to lower-order terms); 1.44 for a classic filter at best
  ins/query    memory accesses per insertion / per query that returns false: random bit
               probes, or cache lines for blocked layouts (apbbf, rotating/blocked,
               classic/blocked, fingerprint-queue)
  npws         peak normalized probability-weighted slack (window designs): items past
               the window still reported, weighted by probability, over W; 0 = none
  fp           the predicted false-positive rate
  fp kind      exact (the layout's exact law), formula ((1-(1-1/m)^(kn))^k), worst (worst case
               over the cycle or block offset), worst+rep (worst case with the duplicate
               rate), average (long-run average), stable (at the stable point), new item
               (never inserted), worst q / exact q (temporal queries of length |q|),
               standard (the standard answer of an inferential filter), upper (an upper
               bound at the design load: cuckoo)
  fn           false negatives: none, <=RATE (within --allow-fn), chosen (inferential)
  check        with --validate: PASS / FAIL / skip of the design's simulation
Notes [n] under the table belong to row n; --wide prints every column and note inline.";

/// Requirement flags.
#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("shape").required(true).multiple(true).args(["capacity", "window", "horizon", "initial_capacity", "trace"])))]
#[command(after_long_help = COLUMNS_HELP)]
pub struct RecommendArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// A static set of this many distinct items.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, conflicts_with_all = ["window", "horizon", "initial_capacity"])]
    pub capacity: Option<u64>,
    /// A sliding window: no false negative for the last this many insertions.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, conflicts_with_all = ["horizon", "initial_capacity"])]
    pub window: Option<u64>,
    /// Temporal membership: "was x seen in [s, e]?" over timestamps 1..=T (with
    /// --query-length and --pairs).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires_all = ["query_length", "pairs"], conflicts_with = "initial_capacity")]
    pub horizon: Option<u64>,
    /// Length e − s + 1 of the temporal queries.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires = "horizon")]
    pub query_length: Option<u64>,
    /// Distinct (item, timestamp) pairs to hold.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires = "horizon")]
    pub pairs: Option<u64>,
    /// A set of unknown final count: the first guess of its size N0 (with --max-items):
    /// scalable Bloom filters that grow from N0, and a classic filter sized for the most.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires = "max_items")]
    pub initial_capacity: Option<u64>,
    /// The most items the growing set may hold: the FP target holds up to here.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires = "initial_capacity")]
    pub max_items: Option<u64>,
    /// Memory budget (bits, or with a unit: 8Mb, 16MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub memory: Option<u64>,
    /// Largest acceptable memory accesses per insertion or negative query, >= 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_accesses: Option<f64>,
    /// Largest acceptable peak normalized probability-weighted slack of a window design,
    /// 0 <= NPWS <= 1 (Section 5.2 [APBF]; 0 keeps only designs without slack). Designs
    /// whose NPWS is not modelled (those that forget) are excluded under this budget.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_npws: Option<f64>,
    /// With --window: admit designs that forget window items (one-phase RBF, Stable
    /// Bloom filter, Generalized Bloom filter, and with --importance the IBFs), each
    /// keeping its forgetting measure (shown in the fn column) within RATE, 0 < RATE < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub allow_fn: Option<f64>,
    /// With --window: this fraction of insertions repeats an item of the last W,
    /// 0 <= RATE < 1. The APBF is sized on its repeats model; other rows keep their
    /// distinct-insertion figures (see the notes).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub duplicates: Option<f64>,
    /// Importance law of the items, for importance-aware Bloom filter rows (IBF1-IBF6;
    /// needs --window W and --allow-fn RATE, which then bounds the importance-weighted
    /// FN of an item W insertions old). SPEC is linear:LO:HI (every importance LO..=HI
    /// equally likely), exponential:LO:HI:RATE (Pr(i) ∝ e^(−RATE·(i−LO))) or
    /// hist:IMP=WEIGHT,IMP=WEIGHT,... (an empirical histogram), with integer importances
    /// 1 to 10000. Example: bfopt recommend --fp 0.05 --window 1e5 --allow-fn 0.1
    /// --importance linear:1:50
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub importance: Option<String>,
    /// Prices of a false positive and a false negative, `FP:FN` (e.g. `1:10`): adds the
    /// inferential designs, which answer by the cheaper expected error (Section 2.6 [TBF]).
    #[arg(long, value_parser = parse_penalty_pair, allow_hyphen_values = true)]
    pub penalties: Option<bfopt_models::timing::PenaltyDist>,
    /// With --capacity: items are deleted as well as inserted. Only structures that
    /// support deletion are offered (cuckoo filter, counting Bloom filter).
    #[arg(long)]
    pub deletions: bool,
    /// Simulate every recommended design's reference implementation and compare with
    /// its model (exit 1 on any FAIL).
    #[arg(long)]
    pub validate: bool,
    /// Base seed of `--validate`.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Print every column and each row's notes inline (wider than 120 columns).
    #[arg(long)]
    pub wide: bool,
    /// With `--capacity`: also what to type into SYSTEM for this FP and capacity (the
    /// answer of `bfopt target SYSTEM`), under the table and in the JSON as `target`.
    #[arg(long, value_enum, value_name = "SYSTEM")]
    pub target: Option<SystemArg>,
    /// Plan on a trace of your own traffic (see `bfopt profile`): with --window W or
    /// --window-seconds S the window designs are sized on its measured D(L); alone, a
    /// static set of its distinct items. With --validate the trace is replayed through
    /// each design.
    #[arg(long)]
    pub trace: Option<std::path::PathBuf>,
    /// With --trace: 1-based column of the item in a wider CSV log.
    #[arg(long, value_parser = parse_count, requires = "trace")]
    pub key_column: Option<u64>,
    /// With --trace: 1-based column of the timestamp (seconds) in a wider CSV log.
    #[arg(long, value_parser = parse_count, requires = "trace")]
    pub time_column: Option<u64>,
    /// With --trace: count and skip bad lines instead of stopping at the first.
    #[arg(long, requires = "trace")]
    pub skip_bad_lines: bool,
    /// With --trace: a window of this many seconds, converted to insertions through the
    /// trace's arrival rate (needs timestamps), > 0.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true, requires = "trace", conflicts_with = "window")]
    pub window_seconds: Option<f64>,
}

/// Parses `--penalties FP:FN` ([`bfopt_plan::flags::parse_penalties`]).
fn parse_penalty_pair(s: &str) -> Result<bfopt_models::timing::PenaltyDist, String> {
    bfopt_plan::flags::parse_penalties(s, parse_real)
}

/// A model error on a requirement value, named by its flag
/// ([`bfopt_plan::flags::FLAG_NAMES`]).
fn flag_error(e: bfopt_models::ModelError) -> CliError {
    CliError::from_model(e, bfopt_plan::flags::FLAG_NAMES)
}

impl RecommendArgs {
    /// The requirement flags as typed values.
    pub fn flags(&self) -> RequirementFlags {
        RequirementFlags {
            fp: self.fp,
            capacity: self.capacity,
            window: self.window,
            horizon: self.horizon,
            query_length: self.query_length,
            pairs: self.pairs,
            initial_capacity: self.initial_capacity,
            max_items: self.max_items,
            memory: self.memory,
            max_accesses: self.max_accesses,
            max_npws: self.max_npws,
            allow_fn: self.allow_fn,
            duplicates: self.duplicates,
            importance: self.importance.clone(),
            penalties: self.penalties,
            deletions: self.deletions,
        }
    }

    /// The requirement the flags describe ([`RequirementFlags::requirement`]).
    ///
    /// # Errors
    /// A bad value (named by its flag), or a flag the shape does not take.
    pub fn requirement(&self) -> Result<Requirement, CliError> {
        self.flags().requirement().map_err(flag_error)
    }
}

/// The JSON of `recommend`: the serialized [`Plan`], with the simulations under
/// `validation` when `--validate` ran them.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    plan: &'a Plan,
    #[serde(skip_serializing_if = "Option::is_none")]
    validation: Option<&'a Validation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<&'a Target>,
}

/// `--target SYSTEM`: the rows of `bfopt target` for the requirement's FP and capacity.
#[derive(Serialize)]
struct Target {
    fp: f64,
    capacity: u64,
    configurations: Vec<Row>,
    notes: Vec<String>,
}

/// `--target`'s configurations, or why the requirement's shape has none: the systems
/// build a filter for a static set of N keys, and cannot express a sliding window or
/// temporal membership.
///
/// # Errors
/// A shape other than a static set (exit 2); the system's own errors.
fn target_rows(system: SystemArg, req: &Requirement) -> Result<Target, CliError> {
    let bfopt_plan::Shape::Capacity { items } = *req.shape() else {
        return Err(CliError::invalid(
            "--target",
            system.name(),
            format!(
                "only with --capacity N: {} builds a filter for a static set of N keys and cannot express {} (bfopt target lists what each system types)",
                system.name(),
                req.shape_name()
            ),
        ));
    };
    let (configurations, notes) = configurations(system, req.fp(), items, None)?;
    Ok(Target {
        fp: req.fp(),
        capacity: items,
        configurations,
        notes,
    })
}

/// The `--target` section under the table: one line per configuration.
fn target_table(t: &Target) -> String {
    let header = [
        "system", "setting", "config", "bits", "hashes", "fp", "meets",
    ];
    let cell = |r: &Row, key: &str| match r.params.get(key).or_else(|| r.metrics.get(key)) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Number(n)) if key == "fp" => prob(n.as_f64().unwrap_or(f64::NAN)),
        Some(v) => v.to_string(),
        None => "-".into(),
    };
    let body: Vec<Vec<String>> = t
        .configurations
        .iter()
        .map(|r| {
            let mut row = vec![r.family.clone()];
            row.extend(header[1..].iter().map(|k| cell(r, k)));
            row
        })
        .collect();
    let mut out = format!(
        "\ntarget: what to type for fp {} and capacity {}:\n",
        prob(t.fp),
        t.capacity
    );
    for line in aligned(&header, &body).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

/// Runs the recommender.
///
/// # Errors
/// Invalid flags (exit 2); no design fits (exit 3: in JSON, the infeasibility object is
/// printed on stdout and the run still exits 3).
pub fn recommend(args: &RecommendArgs, format: Format) -> Result<Report, CliError> {
    if let Some(trace) = &args.trace {
        let trace = TraceArgs {
            trace: trace.clone(),
            key_column: args.key_column,
            time_column: args.time_column,
            skip_bad_lines: args.skip_bad_lines,
        };
        return crate::families::trace_plan::recommend_trace(args, &trace);
    }
    let req = args.requirement()?;
    let target = args.target.map(|s| target_rows(s, &req)).transpose()?;
    let plan = match plan(&req) {
        Ok(p) => p,
        Err(PlanError::Model(e)) => return Err(CliError::from_model(e, &[])),
        Err(PlanError::Infeasible(i)) => {
            let message = format!("no design satisfies the requirements: {i}");
            if format == Format::Json {
                let mut report = Report::list(Vec::new());
                report.json = Some(serde_json::to_value(&i).unwrap_or_default());
                report.exit = Exit::Infeasible;
                report.stderr = Some(message);
                return Ok(report);
            }
            return Err(CliError::Infeasible(i.to_string()));
        }
    };
    let validation = args
        .validate
        .then(|| plan.validate(Level::Quick, args.seed));
    let mut report = Report::list(rows(&plan, validation.as_ref()));
    report.json = Some(
        serde_json::to_value(Output {
            plan: &plan,
            validation: validation.as_ref(),
            target: target.as_ref(),
        })
        .unwrap_or_default(),
    );
    let (mut text, legend) = table(&plan, validation.as_ref(), args.wide);
    if let Some(t) = &target {
        text.push_str(&target_table(t));
    }
    report.table = Some(text);
    report.notes = legend.lines().map(str::to_string).collect();
    if let Some(t) = &target {
        report
            .notes
            .extend(t.notes.iter().map(|n| format!("target {n}")));
    }
    if let Some(v) = &validation {
        report.checks = Some(v.checks().cloned().collect());
        if !v.passed() {
            report.exit = Exit::Disagreement;
        }
    }
    Ok(report)
}

/// CSV rows: one per candidate, parameters flattened, the pick marked.
pub(crate) fn rows(plan: &Plan, validation: Option<&Validation>) -> Vec<Row> {
    plan.candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = Row::new(c.family, (), ()).param("design", &c.design);
            if let Ok(serde_json::Value::Object(params)) = serde_json::to_value(&c.params) {
                row.params.extend(params);
            }
            let mut row = row
                .metric("pick", i == plan.pick.index)
                .metric("bits", c.bits)
                .metric("bits_per_item", c.bits_per_item)
                .metric("accesses_insert", c.accesses_insert)
                .metric("accesses_query", c.accesses_query)
                .metric("access_unit", c.access_unit)
                .metric("false_negatives", c.false_negatives.short())
                .metric("slack", c.slack)
                .metric("npws", c.npws)
                .metric("fp", c.fp)
                .metric("fp_kind", c.fp_kind)
                .metric("notes", c.notes.join("; "))
                .metric("times_limit", c.times_limit);
            if let Some(d) = validation.map(|v| &v.designs[i]) {
                row = row.metric("validated", d.status.label());
                if let Some(m) = d.measured_fp {
                    row = row
                        .metric("measured_fp", m.value)
                        .metric("measured_fp_lo", m.lo)
                        .metric("measured_fp_hi", m.hi);
                }
            }
            row
        })
        .collect()
}

/// Width of the prose under the table.
pub(crate) const PROSE_WIDTH: usize = 100;

/// `text` wrapped to [`PROSE_WIDTH`] columns after `indent`, continuation lines
/// indented two more spaces.
pub(crate) fn wrap(text: &str, indent: &str) -> String {
    let rest = format!("{indent}  ");
    let options = textwrap::Options::new(PROSE_WIDTH)
        .initial_indent(indent)
        .subsequent_indent(&rest);
    let mut s = textwrap::fill(text, options);
    s.push('\n');
    s
}

/// The lines under a validation table: per design, why it was not run (`{verb} {design}:
/// {why}`) and each failed check, wrapped and indented two spaces.
pub(crate) fn skipped_and_failed<'a>(
    verb: &str,
    designs: impl Iterator<Item = (&'a str, Option<&'a str>, &'a [Check])>,
) -> String {
    let mut out = String::new();
    for (design, skipped, checks) in designs {
        if let Some(why) = skipped {
            out.push_str(&wrap(&format!("{verb} {design}: {why}"), "  "));
        }
        for k in checks.iter().filter(|k| !k.pass) {
            out.push_str(&wrap(&k.to_string(), "  "));
        }
    }
    out
}

/// Items with the same `key(text)` on one line: their labels joined (`[2] [3]` or
/// `apbf, rbf`), then the first item's text, in order of first appearance.
fn grouped(
    items: impl Iterator<Item = (String, String)>,
    key: impl Fn(&str) -> &str,
) -> Vec<(String, String)> {
    let mut groups: Vec<(Vec<String>, String)> = Vec::new();
    for (label, text) in items {
        match groups.iter_mut().find(|(_, t)| key(t) == key(&text)) {
            Some((labels, _)) => labels.push(label),
            None => groups.push((vec![label], text)),
        }
    }
    groups
        .into_iter()
        .map(|(labels, text)| {
            let text = if labels.len() > 1 {
                key(&text).to_string()
            } else {
                text
            };
            let joined = if labels[0].starts_with('[') {
                let ranks: Vec<&str> = labels.iter().map(|l| l.trim_matches(['[', ']'])).collect();
                format!("[{}]", ranks.join(","))
            } else {
                labels.join(", ")
            };
            (joined, text)
        })
        .collect()
}

/// Accesses as `insert/query`.
pub(crate) fn accesses(c: &Candidate) -> String {
    format!("{}/{}", num(c.accesses_insert), num(c.accesses_query))
}

/// The table: ranked rows (at most 120 columns unless `wide`), the pick and its reason,
/// and with a validation its results; then the legend: the rows' notes, exclusions and
/// plan notes (printed under the table unless `--quiet`).
fn table(plan: &Plan, validation: Option<&Validation>, wide: bool) -> (String, String) {
    let window = matches!(plan.requirement.shape(), bfopt_plan::Shape::Window { .. });
    let forgets = plan
        .candidates
        .iter()
        .any(|c| !matches!(c.false_negatives.short().as_str(), "none"));
    let mut header = vec!["#", "design", "parameters", "bits/item (x)", "ins/query"];
    if wide {
        header.push("bits");
        header.push("slack");
    }
    if window {
        header.push("npws");
    }
    header.extend(["fp", "fp kind"]);
    if forgets || wide {
        header.push("fn");
    }
    if validation.is_some() {
        header.push("check");
    }
    if wide {
        header.push("notes");
    }
    let body: Vec<Vec<String>> = plan
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mark = if i == plan.pick.index { "*" } else { "" };
            let mut row = vec![
                format!("{}{mark}", i + 1),
                c.design.clone(),
                c.params.to_string(),
                format!("{:.1} ({:.2})", c.bits_per_item, c.times_limit),
                accesses(c),
            ];
            if wide {
                row.push(c.bits.to_string());
                row.push(c.slack.to_string());
            }
            if window {
                row.push(c.npws.map_or("-".into(), num));
            }
            row.push(prob(c.fp));
            row.push(if wide {
                c.fp_kind.describe().into()
            } else {
                c.fp_kind.short().into()
            });
            if forgets || wide {
                row.push(c.false_negatives.short());
            }
            if let Some(v) = validation {
                row.push(
                    match v.designs[i].status {
                        bfopt_plan::Status::Pass => "PASS",
                        bfopt_plan::Status::Fail => "FAIL",
                        bfopt_plan::Status::Skipped => "skip",
                    }
                    .into(),
                );
            }
            if wide {
                row.push(c.notes.join("; "));
            }
            row
        })
        .collect();
    let mut out = aligned(&header, &body);
    out.push_str(&format!(
        "\npick: {} ({})\n{}",
        plan.pick.design,
        plan.picked().params,
        wrap(&plan.pick.reason, "  ")
    ));
    let mut legend = String::new();
    if !wide {
        legend.push_str("\nnotes:\n");
        let notes = plan.candidates.iter().enumerate().map(|(i, c)| {
            (
                format!("[{}]", i + 1),
                format!("{}: {}", c.design, c.notes.join("; ")),
            )
        });
        for (ranks, note) in grouped(notes, |note| note.split_once(": ").map_or("", |x| x.1)) {
            legend.push_str(&wrap(&format!("{ranks} {note}"), "  "));
        }
    }
    if !plan.excluded.is_empty() {
        legend.push_str("\nexcluded:\n");
        let excluded = plan.excluded.iter().map(|e| {
            let text = e.to_string();
            let reason = text
                .split_once(": ")
                .map_or(text.clone(), |x| x.1.to_string());
            (e.name.clone(), reason)
        });
        for (names, reason) in grouped(excluded, |r| r) {
            legend.push_str(&wrap(&format!("{names}: {reason}"), "  "));
        }
    }
    for note in &plan.notes {
        legend.push_str(&format!("\n{}", wrap(&format!("note: {note}"), "")));
    }
    if let Some(v) = validation {
        out.push_str("\nvalidation (reference implementations simulated at these parameters):\n");
        let header = ["design", "check", "fp predicted", "fp measured", "interval"];
        let body: Vec<Vec<String>> = plan
            .candidates
            .iter()
            .zip(&v.designs)
            .map(|(c, d)| {
                let (measured, interval) = d.measured_fp.map_or(("-".into(), "-".into()), |m| {
                    (prob(m.value), format!("[{}, {}]", prob(m.lo), prob(m.hi)))
                });
                vec![
                    c.design.clone(),
                    d.status.label().into(),
                    prob(c.fp),
                    measured,
                    interval,
                ]
            })
            .collect();
        for line in aligned(&header, &body).lines() {
            out.push_str(&format!("  {line}\n"));
        }
        out.push_str(&skipped_and_failed(
            "not simulated",
            v.designs
                .iter()
                .map(|d| (d.design.as_str(), d.skipped.as_deref(), d.checks.as_slice())),
        ));
        let total = v.checks().count();
        let failed = v.checks().filter(|k| !k.pass).count();
        out.push_str(&format!(
            "  {} checks passed, {failed} failed\n",
            total - failed
        ));
    }
    (out, legend)
}
