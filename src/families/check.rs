//! `bfopt check FILE`: deployed designs re-evaluated from their parameters against their
//! requirements (issue 22). The file is a plan (`bfopt recommend --format json`) or a
//! list of designs; the format and the models are those of [`bfopt_plan::check`].

use crate::exit::{CliError, Exit};
use crate::render::Format;
use crate::render::{aligned, write_junit, TestCase};
use crate::report::{Report, Row};
use crate::units::parse_count;
use bfopt_plan::check::{
    evaluate, limits, parse_as, with_overrides, DesignSpec, FileError, Limit, Syntax,
};
use bfopt_plan::{validate_candidates, Candidate, DesignValidation, Level};
use clap::Args;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// `bfopt check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A plan (`bfopt recommend --format json`) or a list of designs (JSON, or TOML for
    /// a `.toml` file).
    pub file: PathBuf,
    /// Every candidate of a plan (default: its pick).
    #[arg(long)]
    pub all: bool,
    /// Check static sets holding this many items instead of the stated capacity, and
    /// growing sets reaching this many items instead of their max_items.
    #[arg(long, value_parser = parse_count)]
    pub items: Option<u64>,
    /// Check sliding windows of this many insertions instead of the stated window.
    #[arg(long, value_parser = parse_count)]
    pub window: Option<u64>,
    /// Also simulate each design's reference filter and compare it with its model.
    #[arg(long)]
    pub simulate: bool,
    /// Base seed of `--simulate` (design `i` uses `seed + i`).
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
}

/// One design's verdict.
#[derive(Debug, Clone, Serialize)]
struct Checked {
    name: String,
    path: String,
    family: String,
    design: String,
    params: bfopt_plan::Params,
    requirement: bfopt_plan::Requirement,
    metrics: Value,
    checks: Vec<Limit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    simulation: Option<DesignValidation>,
    status: &'static str,
}

impl Checked {
    fn pass(&self) -> bool {
        self.checks.iter().all(|l| l.pass)
            && self
                .simulation
                .as_ref()
                .is_none_or(|s| s.status != bfopt_plan::Status::Fail)
    }
}

/// A file error as the CLI reports it: the file, the JSON path or line, what is allowed.
fn file_error(path: &std::path::Path, e: FileError) -> CliError {
    CliError::File {
        path: path.display().to_string(),
        line: 0,
        message: e.to_string(),
    }
}

/// The model's figures of a re-evaluated design.
fn metrics(c: &Candidate, spec: &DesignSpec) -> Value {
    json!({
        "fp": c.fp,
        "fp_kind": c.fp_kind,
        "bits": c.bits,
        "bits_per_item": c.bits_per_item,
        "accesses_insert": c.accesses_insert,
        "accesses_query": c.accesses_query,
        "access_unit": c.access_unit,
        "slack": c.slack,
        "npws": c.npws,
        "window_covered": bfopt_plan::check::covered_window(&spec.params),
    })
}

/// Runs `bfopt check`.
///
/// # Errors
/// An unreadable or invalid file (exit 2, naming the file and the JSON path or line),
/// an override out of range or applying to no design (exit 2).
pub fn check(args: &CheckArgs, format: Format) -> Result<Report, CliError> {
    let path = &args.file;
    let text = std::fs::read_to_string(path).map_err(|e| CliError::File {
        path: path.display().to_string(),
        line: 0,
        message: format!("cannot read: {e}"),
    })?;
    let mut specs =
        parse_as(&text, Syntax::of_path(path), args.all).map_err(|e| file_error(path, e))?;
    for (flag, value, shapes) in [
        (
            "--items",
            args.items,
            &["a static set", "a growing set"][..],
        ),
        ("--window", args.window, &["a sliding window"][..]),
    ] {
        if let Some(v) = value {
            if !specs
                .iter()
                .any(|s| shapes.contains(&s.requirement.shape_name()))
            {
                return Err(CliError::invalid(
                    flag,
                    v,
                    format!(
                        "only when the file has a design for {}",
                        shapes.join(" or ")
                    ),
                ));
            }
        }
    }
    for s in &mut specs {
        s.requirement = with_overrides(&s.requirement, args.items, args.window).map_err(|e| {
            let flag = if args.items.is_some() && s.requirement.window_insertions().is_none() {
                "--items"
            } else {
                "--window"
            };
            CliError::from_model(e, &[("items", flag), ("window", flag), ("max_items", flag)])
        })?;
    }
    let candidates = specs
        .iter()
        .map(|s| evaluate(s).map_err(|e| file_error(path, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let simulations = args
        .simulate
        .then(|| validate_candidates(&candidates, Level::Quick, args.seed).designs);
    let checked: Vec<Checked> = specs
        .iter()
        .zip(&candidates)
        .enumerate()
        .map(|(i, (s, c))| {
            let mut d = Checked {
                name: s.name.clone(),
                path: s.path.clone(),
                family: s.family.clone(),
                design: s.design.clone(),
                // A chain's links and bits at n0 are figures: show the re-derived ones.
                params: match c.params {
                    bfopt_plan::Params::Scalable { .. } => c.params.clone(),
                    _ => s.params.clone(),
                },
                requirement: s.requirement.clone(),
                metrics: metrics(c, s),
                checks: limits(c, &s.requirement),
                simulation: simulations.as_ref().map(|v| v[i].clone()),
                status: "",
            };
            d.status = if d.pass() { "pass" } else { "fail" };
            d
        })
        .collect();
    Ok(report(&checked, &path.display().to_string(), format))
}

/// The report in the requested format.
fn report(checked: &[Checked], file: &str, format: Format) -> Report {
    let passed = checked.iter().all(Checked::pass);
    let failures: Vec<String> = checked
        .iter()
        .flat_map(|d| {
            let limits = d
                .checks
                .iter()
                .filter(|l| !l.pass)
                .map(move |l| format!("{}: {l}", d.name));
            let sims = d.simulation.iter().flat_map(move |s| {
                s.checks
                    .iter()
                    .filter(|k| !k.pass)
                    .map(move |k| format!("{}: simulate: {k}", d.name))
            });
            limits.chain(sims)
        })
        .collect();
    let rows: Vec<Row> = checked.iter().flat_map(rows).collect();
    let mut r = Report::list(rows);
    r.exit = if passed { Exit::Ok } else { Exit::Disagreement };
    if !passed {
        r.stderr = Some(format!(
            "{} of {} checks failed:\n  {}",
            failures.len(),
            checked
                .iter()
                .map(|d| d.checks.len() + d.simulation.as_ref().map_or(0, |s| s.checks.len()))
                .sum::<usize>(),
            failures.join("\n  ")
        ));
    }
    match format {
        Format::Json => {
            r.json = Some(json!({ "file": file, "passed": passed, "designs": checked }));
        }
        Format::Junit => {
            let mut out = Vec::new();
            // Writing to a Vec cannot fail.
            let _ = write_junit("bfopt check", &cases(checked), &mut out);
            r.text = Some(String::from_utf8_lossy(&out).into_owned());
        }
        Format::Table => r.table = Some(table(checked)),
        Format::Csv => {}
    }
    r
}

/// One row per design and check (CSV).
fn rows(d: &Checked) -> Vec<Row> {
    let row = |check: &str, value: f64, limit: f64, margin: Option<f64>, pass: bool| {
        Row::new(
            &d.family,
            json!({ "name": d.name, "design": d.design, "params": d.params.to_string() }),
            json!({
                "check": check,
                "value": value,
                "limit": limit,
                "margin": margin,
                "status": if pass { "PASS" } else { "FAIL" },
            }),
        )
    };
    let limits = d
        .checks
        .iter()
        .map(|l| row(l.check, l.value, l.limit, Some(l.margin), l.pass));
    let sims = d.simulation.iter().flat_map(|s| {
        s.checks.iter().map(|k| {
            row(
                &format!("simulate: {}", k.name),
                k.measured,
                k.predicted,
                None,
                k.pass,
            )
        })
    });
    limits.chain(sims).collect()
}

/// One JUnit test case per design and check.
fn cases(checked: &[Checked]) -> Vec<TestCase> {
    checked
        .iter()
        .flat_map(|d| {
            let class = format!("bfopt.check.{}", d.name);
            let limits = d.checks.iter().map({
                let class = class.clone();
                move |l| TestCase {
                    class: class.clone(),
                    name: l.check.to_string(),
                    failure: (!l.pass).then(|| {
                        (
                            format!("{} exceeds its limit", l.check),
                            format!("{} ({}): {l}", d.name, d.params),
                        )
                    }),
                }
            });
            let sims = d.simulation.iter().flat_map(move |s| {
                let class = class.clone();
                s.checks.iter().map(move |k| TestCase {
                    class: class.clone(),
                    name: format!("simulate: {}", k.name),
                    failure: (!k.pass)
                        .then(|| ("model and simulation disagree".to_string(), k.to_string())),
                })
            });
            limits.chain(sims)
        })
        .collect()
}

/// The table: one line per design and check, then each design's model figures.
fn table(checked: &[Checked]) -> String {
    let mut body = Vec::new();
    let mut notes = Vec::new();
    for d in checked {
        let metrics = format!(
            "fp={:.3e} ({}) bits={} bits/item={:.2}",
            d.metrics["fp"].as_f64().unwrap_or(f64::NAN),
            d.metrics["fp_kind"].as_str().unwrap_or(""),
            d.metrics["bits"],
            d.metrics["bits_per_item"].as_f64().unwrap_or(f64::NAN),
        );
        for (i, l) in d.checks.iter().enumerate() {
            body.push(vec![
                if i == 0 {
                    d.name.clone()
                } else {
                    String::new()
                },
                if i == 0 {
                    d.params.to_string()
                } else {
                    String::new()
                },
                l.check.to_string(),
                format!("{:.4e}", l.value),
                format!("{} {:.4e}", l.relation, l.limit),
                format!("{:+.2}%", 100.0 * l.margin),
                if l.pass { "PASS" } else { "FAIL" }.to_string(),
            ]);
        }
        notes.push(format!("{}: {metrics}", d.name));
        for k in d.simulation.iter().flat_map(|s| &s.checks) {
            body.push(vec![
                String::new(),
                String::new(),
                format!("simulate: {}", k.name),
                format!("{:.4e}", k.measured),
                format!("[{:.3e}, {:.3e}]", k.lo, k.hi),
                format!("model {:.4e}", k.predicted),
                if k.pass { "PASS" } else { "FAIL" }.to_string(),
            ]);
        }
        if let Some(why) = d.simulation.as_ref().and_then(|s| s.skipped.as_ref()) {
            body.push(vec![
                String::new(),
                String::new(),
                "simulate".into(),
                String::new(),
                String::new(),
                why.clone(),
                "skipped".into(),
            ]);
        }
    }
    let mut out = aligned(
        &[
            "design", "params", "check", "value", "limit", "margin", "status",
        ],
        &body,
    );
    out.push_str("\nModel figures, from the parameters alone:\n");
    for n in notes {
        out.push_str(&format!("  {n}\n"));
    }
    out
}
