//! Issue 17, tiny rates: every `optimize` verb with an FP target, at targets far below
//! 1e-15, prints a design whose FP is positive and within the target (exit 0) or says
//! the target is infeasible (exit 3, naming what is achievable); below the smallest
//! supported target 1e-300 it exits 2 naming that bound. No FP prints as 0.
//! (`optimize btbf|gbf|ibf|pbf` take budgets and penalties, not an FP target.)

use super::{bfopt, json_out, words};
use serde_json::Value;

/// The FP a JSON design states, under `key`.
fn stated_fp(line: &str, key: &str) -> f64 {
    let v: Value = serde_json::from_slice(&json_out(&words(line))).unwrap();
    v["metrics"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("{line}: no metrics.{key} in {v}"))
}

/// `line` at `fp`: exit 0 with `0 < fp <= target`, or exit 3 naming what is achievable.
fn meets_or_infeasible(line: &str, key: &str, fp: f64) {
    let full = format!("{line} --fp {fp:e}");
    let out = bfopt()
        .args(words(&full))
        .args(["--format", "json"])
        .output()
        .unwrap();
    match out.status.code() {
        Some(0) => {
            let got = stated_fp(&full, key);
            assert!(got > 0.0 && got <= fp, "{full}: fp {got:e}");
        }
        Some(3) => {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("achievable"), "{full}: {err}");
        }
        code => panic!(
            "{full}: exit {code:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Every FP-target `optimize` verb and the JSON key of the FP it states.
const VERBS: [(&str, &str); 8] = [
    ("optimize classic --items 1e6", "fp"),
    ("optimize classic --items 1e6 --layout partitioned", "fp"),
    (
        "optimize classic --items 1e6 --layout blocked --block-bits 512",
        "fp",
    ),
    ("optimize apbf --window 1e5", "fp"),
    (
        "optimize apbf --window 1e5 --blocked --block-bits 512 --block-hashes 8",
        "fp",
    ),
    ("optimize rbf --bits 1e8", "fp_avg"),
    ("optimize rbf --window 1000", "fp_avg"),
    ("optimize sbf --cells 1e9 --hashes 8 --max 3", "fp"),
];

#[test]
fn issue_17_optimize_verbs_at_tiny_targets() {
    for (line, key) in VERBS {
        for fp in [1e-30, 1e-300] {
            meets_or_infeasible(line, key, fp);
        }
    }
}

#[test]
fn issue_17_targets_below_1e300_exit_2_naming_the_bound() {
    for (line, _) in VERBS {
        super::assert_exit(
            &format!("{line} --fp 1e-301"),
            2,
            &["--fp", "1e-301", "1e-300"],
        );
    }
}

/// `model rbf` on the design the issue found: `fp_avg` was 0 below `fp_frozen` 5.55e-17.
#[test]
fn issue_17_model_rbf_two_phase_fp_is_not_zero() {
    let line = "model rbf --bits 203503458 --hashes 37 --phases 2 --recycle-bits 36999926 --hashing distinct";
    let v: Value = serde_json::from_slice(&json_out(&words(line))).unwrap();
    let avg = v["metrics"]["fp_avg"].as_f64().unwrap();
    let frozen = v["metrics"]["fp_frozen"].as_f64().unwrap();
    assert!(frozen > 5e-17 && avg >= frozen, "{v}");
}
