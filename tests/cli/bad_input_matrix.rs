//! Issue 17: the bad-input matrix, generated. Every value-taking flag of every verb (read
//! from clap through [`bad_input::BASES`]) is fed the edge values of [`EDGES`] and, for
//! each numeric bound its own error message documents, the values just outside that bound
//! (found by [`just_outside`] from the "allowed" text). Every run must
//!
//! - exit 2 with a message naming the flag, the value and what is allowed, or exit 0 when
//!   the value is valid (an edge value such as `0` or `1e-300` is valid for some flags;
//!   a valid value may also meet an infeasible requirement, exit 3, or a simulation that
//!   disagrees with its model, exit 1); a value just outside a documented bound must exit 2;
//! - never panic, never abort, and finish within [`CAP`] (retried once, alone, before it
//!   counts as a failure: the machine running the tests may be busy).

use crate::bad_input::{expand, traces, value_flags, with_flag, BASES, COMBINATION, FILE_FLAGS};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The edge values every flag gets: zero, negative, not-a-number, the infinities, the
/// largest and smallest magnitudes, the empty string, garbage and a unit that does not
/// exist.
const EDGES: &[&str] = &[
    "0",
    "-1",
    "nan",
    "inf",
    "-inf",
    "1e300",
    "1e-300",
    "",
    "garbage",
    "12parsecs",
];

/// The time one run may take.
const CAP: Duration = Duration::from_secs(5);

/// Texts that say what is allowed: our parsers' "allowed", clap's value list, or clap's
/// conflict / missing-flag usage line.
const ALLOWED: &[&str] = &[
    "allowed",
    "possible values",
    "cannot be used with",
    "required",
];

/// One generated case: the command line, the texts an exit-2 message must contain, and
/// whether exit 0 is acceptable.
struct Case {
    args: Vec<String>,
    expect: Vec<String>,
    may_pass: bool,
}

/// The "allowed" text of an error message: what follows `allowed:` (or `allowed `) up to
/// the closing parenthesis or the end of the line.
fn allowed_text(stderr: &str) -> Option<&str> {
    let start = stderr.find("allowed")? + "allowed".len();
    let rest = stderr[start..].trim_start_matches([':', ' ']);
    let end = rest.find([')', '\n']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// A number as the messages print it: `64`, `0.5`, `1e-300`, `2^40`, `2.2e-308`.
fn number(token: &str) -> Option<f64> {
    let token = token.trim_matches([',', ';', '.', '(', ')']);
    if let Some((base, exp)) = token.split_once('^') {
        return Some(base.parse::<f64>().ok()?.powf(exp.parse().ok()?));
    }
    token.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A bound a message documents: `(value, inclusive, upper)`.
type Bound = (f64, bool, bool);

/// The numeric bounds of an allowed text, from the forms the messages use:
/// `A <= name <= B`, `A < name < B`, `name >= A`, `name < B`, `from A to B`. A bound that
/// names another flag (`<= --bits`) is not numeric and is skipped; so is any text with
/// `or` (a union of ranges is not one interval).
fn bounds(allowed: &str) -> Vec<Bound> {
    if allowed.contains(" or ") {
        return Vec::new();
    }
    let words: Vec<&str> = allowed.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let op = match *w {
            "<=" | "≤" => Some((true, true)),
            "<" => Some((false, true)),
            ">=" | "≥" => Some((true, false)),
            ">" => Some((false, false)),
            _ => None,
        };
        if let Some((inclusive, less)) = op {
            // `A <= name`: A is a lower bound; `name <= B`: B is an upper bound.
            if let Some(a) = i.checked_sub(1).and_then(|j| number(words[j])) {
                out.push((a, inclusive, !less));
            }
            if let Some(b) = words.get(i + 1).and_then(|t| number(t)) {
                out.push((b, inclusive, less));
            }
        }
        if *w == "from" {
            if let (Some(a), Some("to"), Some(b)) = (
                words.get(i + 1).and_then(|t| number(t)),
                words.get(i + 2).copied(),
                words.get(i + 3).and_then(|t| number(t)),
            ) {
                out.push((a, true, false));
                out.push((b, true, true));
            }
        }
    }
    out
}

/// Values just outside a bound: the bound itself when it is strict; otherwise the next
/// whole number beyond it and a relative step of 1e-9 beyond it (so a whole-number flag
/// and a real one are both stepped out).
fn just_outside((b, inclusive, upper): Bound) -> Vec<String> {
    if !inclusive {
        return vec![show(b)];
    }
    let sign = if upper { 1.0 } else { -1.0 };
    let step = b.abs().max(1.0) * 1e-9;
    vec![show(b + sign), show(b + sign * step)]
}

fn show(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e15 || x.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Runs `args`; on the time cap, once more before reporting it.
fn run(args: &[String]) -> (Option<i32>, String) {
    let first = crate::run_capped(args, None, CAP);
    if first.0.is_some() {
        return first;
    }
    crate::run_capped(args, None, CAP)
}

/// What is wrong with one run, if anything.
fn judge(case: &Case, code: Option<i32>, stderr: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    if stderr.contains("panicked") {
        wrong.push("panicked".to_string());
    }
    match code {
        Some(0) if case.may_pass => {}
        // A valid value the requirement cannot meet: exit 3 names what binds.
        Some(3) if case.may_pass && stderr.contains("no design satisfies") => {}
        // A valid value under which a simulation disagrees with its model (for example
        // `--confidence 1e-300`, an interval of width 0): exit 1 is the verdict.
        Some(1) if case.may_pass && case.args[0] == "simulate" => {}
        Some(2) => {
            if !ALLOWED.iter().any(|t| stderr.contains(t)) {
                wrong.push("no allowed range".to_string());
            }
            // A value valid on its own but not with the other flags: the message is about
            // the combination and need not repeat the value.
            let combination = COMBINATION.iter().any(|t| stderr.contains(t));
            for (i, e) in case.expect.iter().enumerate() {
                if i > 0 && combination {
                    continue;
                }
                if !stderr.contains(e.as_str()) {
                    wrong.push(format!("missing {e:?}"));
                }
            }
        }
        None => wrong.push(format!("killed or above {CAP:?} twice")),
        Some(c) => wrong.push(format!(
            "exit {c}, expected 2{}",
            if case.may_pass { " or 0" } else { "" }
        )),
    }
    wrong
}

/// Runs the cases on two threads; returns the failures and, per case, its stderr.
fn run_all(cases: &[Case]) -> (Vec<String>, Vec<(Option<i32>, String)>) {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let outcomes = Mutex::new(vec![(None, String::new()); cases.len()]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let (code, stderr) = run(&case.args);
                let wrong = judge(case, code, &stderr);
                if !wrong.is_empty() {
                    failures.lock().unwrap().push(format!(
                        "bfopt {}\n    {}\n    stderr: {}",
                        case.args.join(" "),
                        wrong.join("; "),
                        stderr.trim()
                    ));
                }
                outcomes.lock().unwrap()[i] = (code, stderr);
            });
        }
    });
    (
        failures.into_inner().unwrap(),
        outcomes.into_inner().unwrap(),
    )
}

#[test]
fn issue_17_generated_bad_input_matrix() {
    let dir = traces();
    let mut edge_cases = Vec::new();
    // (base index, flag) of each edge case, to find its documented bounds afterwards.
    let mut origin = Vec::new();
    for (b, base) in BASES.iter().enumerate() {
        let base = expand(base, &dir);
        for flag in value_flags(&base) {
            for value in EDGES {
                let file = FILE_FLAGS.contains(&flag.as_str()) && !value.is_empty();
                let mut expect = vec![if file {
                    "cannot be read".to_string()
                } else {
                    flag.clone()
                }];
                if !value.is_empty() {
                    expect.push((*value).to_string());
                }
                edge_cases.push(Case {
                    args: with_flag(&base, &flag, value),
                    expect,
                    may_pass: true,
                });
                origin.push((b, flag.clone()));
            }
        }
    }
    let (mut failures, outcomes) = run_all(&edge_cases);

    // The documented bounds of each flag, from its own messages, and the values just
    // outside them: each must be refused.
    let mut seen = std::collections::BTreeSet::new();
    let mut bound_cases = Vec::new();
    for ((b, flag), (code, stderr)) in origin.iter().zip(&outcomes) {
        if *code != Some(2) || FILE_FLAGS.contains(&flag.as_str()) {
            continue;
        }
        let Some(allowed) = allowed_text(stderr) else {
            continue;
        };
        let base = expand(BASES[*b], &dir);
        for bound in bounds(allowed) {
            for value in just_outside(bound) {
                if seen.insert((*b, flag.clone(), value.clone())) {
                    bound_cases.push(Case {
                        args: with_flag(&base, flag, &value),
                        expect: vec![flag.clone()],
                        may_pass: false,
                    });
                }
            }
        }
    }
    let (bound_failures, _) = run_all(&bound_cases);
    failures.extend(bound_failures);
    std::fs::remove_dir_all(&dir).ok();

    let total = edge_cases.len() + bound_cases.len();
    assert!(
        failures.is_empty(),
        "{} of {total} generated inputs handled wrongly:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        total >= 2000,
        "the matrix has {total} cases ({} edge, {} bound); issue 17 asks for 2,000",
        edge_cases.len(),
        bound_cases.len()
    );
    assert!(
        bound_cases.len() >= 200,
        "only {} just-outside-bound cases were derived: are the messages still parsed?",
        bound_cases.len()
    );
    eprintln!(
        "{total} generated inputs ({} edge values, {} just outside documented bounds): all \
         handled",
        edge_cases.len(),
        bound_cases.len()
    );
}

#[test]
fn allowed_texts_give_their_bounds() {
    assert_eq!(
        allowed_text("error: invalid --fp = 2 (allowed: 0 < fp < 1)\n"),
        Some("0 < fp < 1")
    );
    assert_eq!(
        bounds("0 < fp < 1"),
        vec![(0.0, false, false), (1.0, false, true)]
    );
    assert_eq!(
        bounds("1 <= bits <= 2^40"),
        vec![(1.0, true, false), ((1u64 << 40) as f64, true, true)]
    );
    assert_eq!(
        bounds("a whole number from 1 to 64"),
        vec![(1.0, true, false), (64.0, true, true)]
    );
    assert_eq!(bounds("hashes <= --bits"), vec![]);
    assert_eq!(bounds("0 or x >= 2.2e-308"), vec![]);
    assert_eq!(just_outside((1.0, false, true)), vec!["1"]);
    assert_eq!(just_outside((64.0, true, true)), vec!["65", "64.000000064"]);
    assert_eq!(just_outside((1.0, true, false)), vec!["0", "0.999999999"]);
}
