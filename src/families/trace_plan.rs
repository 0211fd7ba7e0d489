//! `bfopt recommend --trace FILE`: plan on the user's own traffic. One pass over the
//! trace profiles it ([`bfopt_validation::workload::profile`]); the requirement is the
//! window (`--window W`, or `--window-seconds S` through the arrival rate) or, without
//! one, a static set of the trace's distinct items; [`bfopt_plan::trace::plan_on_trace`]
//! sizes the window designs on the measured `D(L)`; with `--validate` the trace (kept
//! in memory as one 64-bit key per record) is replayed through every design.
//!
//! JSON: the plan, each candidate with `sized_on` (`profile`, `distinct_total`,
//! `assumes_distinct`) and `distinct_bits_per_item`; `trace` (what was read and how
//! the window was converted); with `--validate`, `trace_validation`.

use crate::exit::{CliError, Exit};
use crate::families::profile::TraceArgs;
use crate::families::recommend::{accesses, rows, skipped_and_failed, wrap, RecommendArgs};
use crate::render::aligned;
use crate::report::Report;
use bfopt_plan::text::{num, prob};
use bfopt_plan::trace::{
    plan_on_trace_with, Sizing, TracePlan, TraceRow, TraceValidation, MIN_CYCLES,
};
use bfopt_plan::{PlanError, Status};
use bfopt_validation::workload::profile::{ProfileOptions, TraceProfiler, DEFAULT_MAX_TRACKED};
use serde::Serialize;
use serde_json::json;

/// Independent filters (hash seeds) per design in the replay.
pub const REPLAY_EPOCHS: u64 = 6;

/// What was read, and how the window was obtained.
#[derive(Debug, Clone, Serialize)]
struct TraceInfo {
    path: String,
    records: u64,
    skipped_lines: u64,
    distinct: f64,
    distinct_exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    window_seconds: Option<f64>,
    /// Records per second between the first and last timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    arrival_rate: Option<f64>,
    /// Measured distinct items among `window` consecutive insertions.
    #[serde(skip_serializing_if = "Option::is_none")]
    distinct_in_window: Option<f64>,
}

/// Flags `--trace` does not take, each with the reason.
fn refuse(args: &RecommendArgs) -> Result<(), CliError> {
    let given: [(&str, Option<String>, &str); 6] = [
        ("--horizon", args.horizon.map(|v| v.to_string()), "temporal membership is not planned on a trace; --trace takes --window W, --window-seconds S, or nothing (a static set of its distinct items)"),
        ("--initial-capacity", args.initial_capacity.map(|v| v.to_string()), "a growing set is not planned on a trace; without a window --trace plans a static set of its distinct items"),
        ("--capacity", args.capacity.map(|v| v.to_string()), "not with --trace: without a window the capacity is the trace's distinct total"),
        ("--duplicates", args.duplicates.map(|v| v.to_string()), "not with --trace: the trace's own repeats are measured (its D(L))"),
        ("--target", args.target.map(|t| t.name().to_string()), "not with --trace"),
        ("--importance", args.importance.clone(), "not with --trace (importance rows are not sized on a trace)"),
    ];
    for (flag, value, allowed) in given {
        if let Some(v) = value {
            return Err(CliError::invalid(flag, v, allowed));
        }
    }
    if let Some(s) = args.window_seconds {
        if !(s > 0.0 && s.is_finite()) {
            return Err(CliError::invalid(
                "--window-seconds",
                s,
                "0 < seconds < inf",
            ));
        }
    }
    Ok(())
}

/// Runs `recommend --trace`.
///
/// # Errors
/// A flag `--trace` does not take, a bad trace or a trace without what the flags need
/// (exit 2); no design fits (exit 3).
pub fn recommend_trace(args: &RecommendArgs, trace: &TraceArgs) -> Result<Report, CliError> {
    let path = trace.trace.display().to_string();
    let mut profiler = TraceProfiler::new(ProfileOptions {
        window: args.window,
        ..ProfileOptions::default()
    });
    let mut keys = Vec::new();
    let summary = trace.read(|r| {
        profiler.push(r.key, r.timestamp, r.importance);
        if args.validate {
            keys.push(r.key);
        }
    })?;
    // The trace is read first, so that a file that cannot be read is named whatever
    // else is wrong.
    refuse(args)?;
    let profile = profiler.finish();
    if profile.length == 0 {
        return Err(CliError::invalid(
            "--trace",
            &path,
            "a trace with at least one record",
        ));
    }
    let window = match (args.window, args.window_seconds) {
        (Some(w), _) => Some(w),
        (None, Some(s)) => {
            let rate = profile.arrival_rate.ok_or_else(|| {
                CliError::invalid(
                    "--window-seconds",
                    s,
                    format!(
                        "a trace with timestamps (CSV item,timestamp or --time-column N): {} of its {} records have one",
                        profile.timestamps, profile.length
                    ),
                )
            })?;
            let w = (s * rate).round();
            if w.is_nan() || w < 1.0 {
                return Err(CliError::invalid(
                    "--window-seconds",
                    s,
                    format!(
                        "at least one insertion at the trace's {} records/s",
                        num(rate)
                    ),
                ));
            }
            Some(w as u64)
        }
        (None, None) => None,
    };
    let workload = profile.workload().ok_or_else(|| {
        CliError::invalid(
            "--trace",
            &path,
            format!("at most {DEFAULT_MAX_TRACKED} distinct items (D(L) is measured exactly up to there)"),
        )
    })?;
    let mut shaped = args.clone();
    shaped.trace = None;
    shaped.window_seconds = None;
    match window {
        Some(w) => shaped.window = Some(w),
        None => shaped.capacity = Some(profile.distinct.ceil() as u64),
    }
    let req = shaped.requirement()?;
    let frequencies = profile.frequencies();
    let tp = plan_on_trace_with(&req, &workload, frequencies.as_ref()).map_err(|e| match e {
        PlanError::Model(e) => CliError::from_model(e, &[]),
        PlanError::Infeasible(i) => CliError::Infeasible(i.to_string()),
    })?;
    let info = TraceInfo {
        path,
        records: profile.length,
        skipped_lines: summary.skipped,
        distinct: profile.distinct,
        distinct_exact: profile.distinct_exact,
        window,
        window_seconds: args.window_seconds,
        arrival_rate: profile.arrival_rate,
        distinct_in_window: window.map(|w| tp.workload().d(w as f64)),
    };
    let validation = args
        .validate
        .then(|| tp.replay(&keys, REPLAY_EPOCHS, args.seed));
    let mut report = Report::list(csv_rows(&tp, validation.as_ref()));
    report.json = Some(json_of(&tp, &info, validation.as_ref()));
    let (text, legend) = table(&tp, &info, validation.as_ref(), args.wide);
    report.table = Some(text);
    report.notes = legend.lines().map(str::to_string).collect();
    if let Some(e) = summary.first_skipped {
        report.notes.push(format!(
            "{} bad lines skipped; the first: {e}",
            summary.skipped
        ));
    }
    if let Some(v) = &validation {
        report.checks = Some(v.checks().cloned().collect());
        if !v.passed() {
            report.exit = Exit::Disagreement;
        }
    }
    Ok(report)
}

/// The plan's JSON with each candidate's sizing, the trace and the replay.
fn json_of(tp: &TracePlan, info: &TraceInfo, v: Option<&TraceValidation>) -> serde_json::Value {
    let mut out = serde_json::to_value(&tp.plan).unwrap_or_default();
    if let Some(list) = out.get_mut("candidates").and_then(|c| c.as_array_mut()) {
        for (c, r) in list.iter_mut().zip(&tp.trace_rows) {
            if let Some(c) = c.as_object_mut() {
                c.insert("sized_on".into(), json!(r.sizing));
                c.insert(
                    "distinct_bits_per_item".into(),
                    json!(r.distinct_bits_per_item),
                );
            }
        }
    }
    if let Some(o) = out.as_object_mut() {
        o.insert("trace".into(), json!(info));
        if let Some(v) = v {
            o.insert("trace_validation".into(), json!(v));
        }
    }
    out
}

/// CSV rows: `recommend`'s, with the sizing and, after a replay, its measurements.
fn csv_rows(tp: &TracePlan, v: Option<&TraceValidation>) -> Vec<crate::report::Row> {
    rows(&tp.plan, None)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let r = &tp.trace_rows[i];
            let mut row = row
                .metric("sized_on", r.sizing)
                .metric("distinct_bits_per_item", r.distinct_bits_per_item);
            if let Some(d) = v.map(|v| &v.designs[i]) {
                row = row.metric("validated", d.status.label());
                if let Some(n) = d.cycles {
                    row = row.metric("recycle_cycles", n);
                }
                if let Some(p) = &d.penalty {
                    row = row
                        .metric("penalty_predicted", p.predicted)
                        .metric("penalty", p.measured.mean)
                        .metric("penalty_lo", p.measured.interval.lo)
                        .metric("penalty_hi", p.measured.interval.hi)
                        .metric("fresh_fp_bound", p.fresh_bound)
                        .metric("fresh_fp", p.fresh_fp.rate);
                }
                if let Some(m) = &d.measured {
                    row = row
                        .metric("fresh_fp_predicted", d.fresh_predicted)
                        .metric("fresh_fp", m.fresh_fp.rate)
                        .metric("fresh_fp_lo", m.fresh_fp.interval.lo)
                        .metric("fresh_fp_hi", m.fresh_fp.interval.hi)
                        .metric("returning_fp_bound", m.returning_predicted)
                        .metric("returning_fp", m.returning_fp.rate)
                        .metric("returning_fp_lo", m.returning_fp.interval.lo)
                        .metric("returning_fp_hi", m.returning_fp.interval.hi)
                        .metric("false_negatives", m.false_negatives)
                        .metric("window_queries", m.window_queries);
                }
            }
            row
        })
        .collect()
}

/// How a row was sized, with the distinct-stream design's bits per item beside a row
/// sized on the trace (`trace (19.7)`).
fn sized_on(r: &TraceRow) -> String {
    match r.sizing {
        Sizing::Profile => format!("trace ({:.1})", r.distinct_bits_per_item),
        s => s.label().into(),
    }
}

/// The table (at most 100 columns unless `wide`) and the legend under it.
fn table(
    tp: &TracePlan,
    info: &TraceInfo,
    v: Option<&TraceValidation>,
    wide: bool,
) -> (String, String) {
    let plan = &tp.plan;
    let mut out = wrap(
        &format!(
            "trace {}: {} records, {} distinct{}",
            info.path,
            info.records,
            num(info.distinct),
            if info.distinct_exact {
                ""
            } else {
                " (estimate)"
            },
        ),
        "",
    );
    out.push_str(&wrap(
        &match (info.window, info.window_seconds, info.arrival_rate) {
            (Some(w), Some(s), Some(rate)) => format!(
                "window: {} s x {} records/s (the trace's arrival rate) = {w} insertions, {} distinct in a window",
                num(s),
                num(rate),
                num(info.distinct_in_window.unwrap_or(0.0))
            ),
            (Some(w), ..) => format!(
                "window: {w} insertions, {} distinct in a window of the trace",
                num(info.distinct_in_window.unwrap_or(0.0))
            ),
            _ => format!(
                "no window: a static set of the trace's {} distinct items",
                num(info.distinct)
            ),
        },
        "",
    ));
    out.push('\n');
    let mut header = vec![
        "#",
        "design",
        "parameters",
        if wide { "bits/item (x)" } else { "bits/item" },
        "sized on",
    ];
    if wide {
        header.extend(["ins/query", "npws"]);
    }
    header.extend(["fp", "fp kind"]);
    let body: Vec<Vec<String>> = plan
        .candidates
        .iter()
        .zip(&tp.trace_rows)
        .enumerate()
        .map(|(i, (c, r))| {
            let mark = if i == plan.pick.index { "*" } else { "" };
            let mut row = vec![
                format!("{}{mark}", i + 1),
                c.design.clone(),
                c.params.to_string(),
                if wide {
                    format!("{:.1} ({:.2})", c.bits_per_item, c.times_limit)
                } else {
                    format!("{:.1}", c.bits_per_item)
                },
                sized_on(r),
            ];
            if wide {
                row.push(accesses(c));
                row.push(c.npws.map_or("-".into(), num));
            }
            row.push(prob(c.fp));
            row.push(c.fp_kind.short().into());
            row
        })
        .collect();
    out.push_str(&aligned(&header, &body));
    out.push_str(&format!(
        "\npick: {} ({})\n{}",
        plan.pick.design,
        plan.picked().params,
        wrap(&plan.pick.reason, "  ")
    ));
    out.push_str(&wrap(
        "bits/item: memory over the window's insertions (or the distinct items; with --wide, x: times the lower bound log2(1/fp)); sized on: trace (its measured D(L); in parentheses the bits/item of the same design sized for distinct insertions), distinct total, or distinct (the row assumes distinct insertions: on a repeating stream its FP is at most the figure)",
        "",
    ));
    if let Some(v) = v {
        out.push_str(&replay_table(tp, v));
    }
    let mut legend = String::from("\nnotes:\n");
    for (i, c) in plan.candidates.iter().enumerate() {
        legend.push_str(&wrap(
            &format!("[{}] {}: {}", i + 1, c.design, c.notes.join("; ")),
            "  ",
        ));
    }
    for e in &plan.excluded {
        legend.push_str(&wrap(&format!("excluded {e}"), "  "));
    }
    for note in &plan.notes {
        legend.push_str(&format!("\n{}", wrap(&format!("note: {note}"), "")));
    }
    (out, legend)
}

/// The replay's results: FP on fresh keys against the prediction, positives on returning
/// items against the model's bound, false negatives on window items.
fn replay_table(tp: &TracePlan, v: &TraceValidation) -> String {
    let mut out = format!(
        "\nreplay of the trace through each design ({} hash seeds, {}% intervals):\n",
        v.epochs,
        100.0 * v.confidence
    );
    let header = [
        "#", "design", "check", "rate", "model", "measured", "interval",
    ];
    let interval = |lo: f64, hi: f64| format!("[{}, {}]", prob(lo), prob(hi));
    let mut body: Vec<Vec<String>> = Vec::new();
    for (i, (c, d)) in tp.plan.candidates.iter().zip(&v.designs).enumerate() {
        let mut head = vec![
            (i + 1).to_string(),
            c.design.clone(),
            d.status.label().into(),
        ];
        if let Some(pen) = &d.penalty {
            head.extend([
                "penalty".into(),
                format!("{:.4}", pen.predicted),
                format!("{:.4}", pen.measured.mean),
                format!(
                    "[{:.4}, {:.4}]",
                    pen.measured.interval.lo, pen.measured.interval.hi
                ),
            ]);
            body.push(head);
            let mut row = vec![String::new(); 3];
            row.extend([
                "fresh fp".into(),
                format!("<={}", prob(pen.fresh_bound)),
                prob(pen.fresh_fp.rate),
                interval(pen.fresh_fp.interval.lo, pen.fresh_fp.interval.hi),
            ]);
            body.push(row);
            continue;
        }
        let (Some(m), Some(pred)) = (&d.measured, d.fresh_predicted) else {
            head.extend(std::iter::repeat_n("-".to_string(), 4));
            body.push(head);
            continue;
        };
        let fresh = [
            "fresh fp".into(),
            prob(pred),
            prob(m.fresh_fp.rate),
            interval(m.fresh_fp.interval.lo, m.fresh_fp.interval.hi),
        ];
        let returning = [
            "returning".into(),
            format!(
                "{}{}",
                if d.returning_estimate { "" } else { "<=" },
                prob(m.returning_predicted)
            ),
            prob(m.returning_fp.rate),
            interval(m.returning_fp.interval.lo, m.returning_fp.interval.hi),
        ];
        let window = if m.window_fn_predicted > 0.0 {
            [
                "fn".into(),
                prob(m.window_fn_predicted),
                prob(m.window_fn.rate),
                interval(m.window_fn.interval.lo, m.window_fn.interval.hi),
            ]
        } else {
            [
                "fn".into(),
                "0".into(),
                format!("{}/{}", m.false_negatives, m.window_queries),
                "-".into(),
            ]
        };
        head.extend(fresh);
        body.push(head);
        for rest in [returning, window] {
            let mut row = vec![String::new(); 3];
            row.extend(rest);
            body.push(row);
        }
    }
    for line in aligned(&header, &body).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    for (i, d) in v.designs.iter().enumerate() {
        if let (Some(n), Some(_)) = (d.cycles, &d.measured) {
            out.push_str(&wrap(
                &format!(
                    "[{}] {}: the trace spans {n:.1} recycle cycles after the warm-up (judged from {MIN_CYCLES})",
                    i + 1,
                    d.design
                ),
                "  ",
            ));
        }
    }
    out.push_str(&wrap(
        "fresh fp: FP on never-seen keys at the worst phase (just before a shift or rotation), the model's on the trace's D(L) (a bound for rows sized for distinct insertions); returning: positives on items whose last occurrence is older than the window, reported with the model's probability while the design still holds them (its slack) and at the background FP after (a bound, <=, where it takes the worst phase; the btbf and gbf models' estimate on the trace otherwise); fn: false negatives over window-item queries (for a design that forgets or drops, their rate beside the model's); penalty (btbf/inferential): the mean penalty per query of the answer by the posterior beside the model's at each query's own age, and its fp on fresh keys (at most the standard answer's)",
        "  ",
    ));
    out.push_str(&skipped_and_failed(
        "not replayed",
        v.designs
            .iter()
            .map(|d| (d.design.as_str(), d.skipped.as_deref(), d.checks.as_slice())),
    ));
    let total = v.checks().count();
    let failed = v.checks().filter(|k| !k.pass).count();
    let skipped = v
        .designs
        .iter()
        .filter(|d| d.status == Status::Skipped)
        .count();
    out.push_str(&format!(
        "  {} checks passed, {failed} failed; {skipped} designs not replayed\n",
        total - failed
    ));
    out
}
