//! Issue 16: `recommend` as a thin layer over `bfopt-plan`: the JSON is the serialized
//! plan (and matches the published schema), the table marks the pick and fits 120
//! columns, and the twelve bugs found by trying it as a new user stay fixed.

use super::{assert_exit, bfopt, json_value, plan_excluded, plan_rows, run_ok, words};
use predicates::prelude::*;
use serde_json::Value;

/// The published schema of `recommend --format json`.
fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/plan.schema.json"
    ))
    .unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// `bfopt LINE --format json` stdout, whatever the exit code.
fn json_any(line: &str) -> Value {
    let out = bfopt()
        .args(words(line))
        .args(["--format", "json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// The `recommend` lines of the README's sh blocks (`bfopt recommend ...` or
/// `cargo run --release -- recommend ...`), without the program.
fn readme_recommend_lines() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    readme
        .lines()
        .filter_map(|l| {
            let l = l.split("  #").next().unwrap().trim();
            // `--trace` examples read the file the README generates first; their table
            // width is checked by tests/cli/recommend_trace.rs on a generated trace.
            if l.contains("--trace ") {
                return None;
            }
            l.strip_prefix("bfopt recommend ")
                .or_else(|| l.strip_prefix("cargo run --release -- recommend "))
                .map(|rest| format!("recommend {rest}"))
        })
        .collect()
}

#[test]
fn issue_16_json_matches_the_published_schema_in_every_shape() {
    let schema = schema();
    for line in [
        "recommend --fp 0.01 --window 1e6",
        "recommend --fp 0.01 --capacity 1e6",
        "recommend --fp 0.01 --window 1e5 --allow-fn 0.05 --duplicates 0.5",
        "recommend --fp 0.05 --window 1e5 --allow-fn 0.1 --importance linear:1:50",
        "recommend --fp 0.01 --window 1e5 --penalties 1:10",
        "recommend --fp 0.01 --horizon 86400 --query-length 128 --pairs 1e6",
        "recommend --fp 0.02 --window 2e3 --validate",
        "recommend --fp 0.01 --capacity 1e6 --target all",
        // Infeasible (exit 3): the binding constraint, still JSON on stdout.
        "recommend --fp 0.01 --capacity 1e6 --memory 1MiB",
    ] {
        let v = json_any(line);
        let errors: Vec<String> = schema.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{line}: {errors:?}");
    }
}

/// The CLI's JSON is the library's plan, serialized: same requirement, same numbers.
#[test]
fn issue_16_cli_json_equals_the_serialized_plan() {
    let req = bfopt_plan::Requirement::window(0.01, 1_000_000)
        .unwrap()
        .with_max_accesses(8.0)
        .unwrap();
    let plan = bfopt_plan::plan(&req).unwrap();
    let library = serde_json::to_value(&plan).unwrap();
    let cli = json_value(&words("recommend --fp 0.01 --window 1e6 --max-accesses 8"));
    assert_eq!(cli, library);
}

#[test]
fn issue_16_infeasible_json_names_the_binding_constraint_and_exits_3() {
    let out = bfopt()
        .args(words(
            "recommend --fp 0.01 --capacity 1e6 --memory 1MiB --format json",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["binding"].as_str().unwrap().contains("memory"), "{v}");
    // The least memory of all: the binary fuse filter (issue 21), 9.0 bits per item.
    assert!(
        v["achievable"].as_str().unwrap().contains("binary-fuse/8"),
        "{v}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no design satisfies"));
}

#[test]
fn issue_16_the_table_marks_the_pick_and_explains_it() {
    let plan = json_value(&words("recommend --fp 0.01 --window 1e6"));
    let pick = &plan["pick"];
    let design = pick["design"].as_str().unwrap();
    assert_eq!(
        plan["candidates"][0]["design"], design,
        "least memory first"
    );
    let reason = pick["reason"].as_str().unwrap();
    assert!(reason.contains("least memory"), "{reason}");
    // The ring of blocked filters needs 7% more memory for one cache line per
    // insertion: the reason says so, with numbers from the rows.
    assert!(reason.contains("rotating/blocked needs"), "{reason}");
    run_ok("recommend --fp 0.01 --window 1e6")
        .stdout(predicate::str::contains(format!("1*  {design}")))
        .stdout(predicate::str::contains(format!("pick: {design}")));
    // The reason is computed, not fixed: a static set gets a different one.
    let set = json_value(&words("recommend --fp 0.01 --capacity 1e6"));
    assert_ne!(set["pick"]["reason"], pick["reason"]);
    assert!(set["pick"]["reason"]
        .as_str()
        .unwrap()
        .contains("a static set of 1000000 items"));
}

#[test]
fn issue_16_every_readme_recommend_example_fits_120_columns() {
    let lines = readme_recommend_lines();
    assert!(lines.len() >= 8, "{lines:?}");
    for line in lines {
        // --validate prints the same table and a validation table of five columns;
        // the simulations are covered elsewhere.
        let line = line.replace(" --validate", "");
        if line.contains("--format") {
            continue; // JSON and CSV are for programs
        }
        let out = bfopt().args(words(&line)).output().unwrap();
        assert!(out.status.success(), "{line}");
        let text = String::from_utf8(out.stdout).unwrap();
        for l in text.lines() {
            assert!(l.chars().count() <= 120, "{line}: {} columns: {l}", l.len());
        }
    }
}

#[test]
fn issue_16_help_explains_every_column_and_letter() {
    let help = run_ok("recommend --help").get_output().stdout.clone();
    let help = String::from_utf8(help).unwrap();
    for needle in [
        "bits/item",
        "ins/query",
        "cache lines",
        "npws",
        "fp kind",
        "pad padding",
        "dec decrements",
        "--wide",
    ] {
        assert!(
            help.contains(needle),
            "{needle} missing from recommend --help"
        );
    }
}

#[test]
fn issue_16_wide_prints_every_column() {
    run_ok("recommend --fp 0.01 --window 1e5 --wide")
        .stdout(predicate::str::contains("slack"))
        .stdout(predicate::str::contains("hand-built ring"))
        .stdout(predicate::str::contains("notes:").not());
}

/// Bug 2: a design whose NPWS is not modelled never passes an NPWS budget; the
/// two-phase RBF and the BTBF now have one.
#[test]
fn issue_16_bug_2_unknown_npws_does_not_pass_a_budget() {
    let rows = plan_rows("recommend --fp 0.01 --window 1e5 --max-npws 0.05");
    for r in &rows {
        let npws = r["metrics"]["npws"].as_f64();
        assert!(npws.is_some_and(|n| n <= 0.05), "{r}");
    }
    let all = plan_rows("recommend --fp 0.01 --window 1e5");
    for d in ["rbf/two-phase", "btbf"] {
        let r = all.iter().find(|r| r["params"]["design"] == d).unwrap();
        assert!(r["metrics"]["npws"].as_f64().unwrap() > 0.05, "{r}");
    }
    let excluded = plan_excluded("recommend --fp 0.01 --window 1e5 --allow-fn 0.05 --max-npws 0.5");
    assert!(
        excluded
            .iter()
            .any(|e| e.starts_with("sbf: peak NPWS not modelled")),
        "{excluded:?}"
    );
}

/// Bug 3: one allowed range for --max-npws, whatever the value; 0 is allowed and keeps
/// only designs without slack.
#[test]
fn issue_16_bug_3_max_npws_has_one_range() {
    for bad in ["-1", "2", "1.5"] {
        assert_exit(
            &format!("recommend --fp 0.01 --window 1e5 --max-npws {bad}"),
            2,
            &["--max-npws", "0 <= --max-npws <= 1"],
        );
    }
    let rows = plan_rows("recommend --fp 0.01 --window 1e5 --max-npws 0");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["params"]["design"], "fingerprint-queue");
}

/// Bug 4: tiny targets: no wall of zeros, no design whose FP underflowed to 0, and
/// every exclusion names its family.
#[test]
fn issue_16_bug_4_tiny_targets_print_short_numbers() {
    let out = bfopt()
        .args(words("recommend --fp 1e-300 --window 1e6"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("0000000000"), "{text}");
    assert!(!text.contains("excluded infeasible"), "{text}");
    if out.status.success() {
        let plan = json_value(&words("recommend --fp 1e-300 --window 1e6"));
        for c in plan["candidates"].as_array().unwrap() {
            assert!(c["fp"].as_f64().unwrap() > 0.0, "{c}");
        }
    }
}

/// Bug 5: a note that states a number computes it.
#[test]
fn issue_16_bug_5_apbf_note_computes_its_ratio_to_classic() {
    let rows = plan_rows("recommend --fp 0.01 --window 1e6");
    let apbf = rows
        .iter()
        .find(|r| r["params"]["design"] == "apbf")
        .unwrap();
    let note = apbf["metrics"]["notes"][0].as_str().unwrap();
    let ratio: f64 = note
        .split("; ")
        .find_map(|s| {
            s.strip_suffix("x the bits of a classic filter holding W items (which cannot forget)")
        })
        .unwrap_or_else(|| panic!("{note}"))
        .parse()
        .unwrap();
    let classic = plan_rows("recommend --fp 0.01 --capacity 1e6");
    let standard = classic
        .iter()
        .find(|r| r["params"]["design"] == "classic/standard")
        .unwrap();
    let expected =
        apbf["metrics"]["bits"].as_f64().unwrap() / standard["metrics"]["bits"].as_f64().unwrap();
    assert!((ratio - expected).abs() < 0.006, "{ratio} vs {expected}");
}

/// Bug 6: exclusions say what the family serves and what was asked, never suggesting
/// the shape that was asked.
#[test]
fn issue_16_bug_6_exclusions_fit_the_shape() {
    for (line, asked) in [
        (
            "recommend --fp 0.01 --horizon 4096 --query-length 64 --pairs 1e4",
            "temporal membership",
        ),
        ("recommend --fp 0.01 --capacity 1e4", "a static set"),
        ("recommend --fp 0.01 --window 1e4", "a sliding window"),
    ] {
        for e in plan_excluded(line) {
            assert!(!e.contains("a window would fill it"), "{e}");
            assert!(!e.contains("needs --capacity"), "{e}");
            if e.contains("serves") {
                assert!(e.contains(&format!("not {asked}")), "{line}: {e}");
            }
        }
    }
}

/// Bug 10: window-only flags are errors with other shapes, not silently ignored.
#[test]
fn issue_16_bug_10_window_flags_need_a_window() {
    for flag in ["--allow-fn 0.05", "--duplicates 0.5", "--max-npws 0.1"] {
        let name = flag.split(' ').next().unwrap();
        assert_exit(
            &format!("recommend --fp 0.01 --capacity 1e6 {flag}"),
            2,
            &[name, "only with a window"],
        );
    }
    let help = run_ok("recommend --help").get_output().stdout.clone();
    let help = String::from_utf8(help).unwrap();
    assert!(
        help.contains("Stable") && help.contains("Generalized"),
        "--allow-fn help"
    );
}

/// Bug 12: the README's worked example is the binary's output, verbatim.
#[test]
fn issue_16_bug_12_readme_worked_example_is_generated() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = "<!-- output of: bfopt recommend --fp 0.01 --window 1e6 -->\n```text\n";
    let begin = readme
        .find(start)
        .expect("the README marks the worked example")
        + start.len();
    let end = begin + readme[begin..].find("```").unwrap();
    let out = run_ok("recommend --fp 0.01 --window 1e6")
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        &readme[begin..end],
        String::from_utf8(out).unwrap(),
        "regenerate the README example: bfopt recommend --fp 0.01 --window 1e6"
    );
}
