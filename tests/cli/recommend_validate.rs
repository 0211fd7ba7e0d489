//! `bfopt recommend --validate` simulates the BTBF, inferential BTBF, GBF and temporal
//! (PBF-1, PBF-2, pair filter) rows at the recommended parameters (issue 9), at quick
//! sizes. A deliberately wrong prediction failing is tested in the planner's family
//! modules (`plan/src/families/{btbf,gbf,pbf}.rs`), where a prediction can be changed.

use super::{json_value, plan_rows_of};
use serde_json::Value;

/// The rows of `recommend ARGS --validate --format json` (exit 0: no check failed).
fn validated(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["recommend", "--validate", "--seed", "3"];
    all.extend_from_slice(args);
    plan_rows_of(&json_value(&all))
}

/// The row of `design`, which must have passed its simulation.
fn passed<'a>(rows: &'a [Value], design: &str) -> &'a Value {
    let row = rows
        .iter()
        .find(|r| r["params"]["design"] == design)
        .unwrap_or_else(|| panic!("no {design} row in {rows:?}"));
    assert_eq!(row["metrics"]["validated"], "PASS", "{row}");
    row
}

#[test]
fn btbf_row_is_simulated_at_its_worst_block_offset() {
    let rows = validated(&["--fp", "0.02", "--window", "2e3"]);
    let row = passed(&rows, "btbf");
    // The measured column is the FP at the worst offset: near the printed worst case. (Its
    // interval includes the spread between epochs since issue 16, so it is wider than the
    // pooled Wilson interval was: the point estimate carries the comparison.)
    let (measured, lo, hi) = (
        row["metrics"]["measured_fp"].as_f64().unwrap(),
        row["metrics"]["measured_fp_lo"].as_f64().unwrap(),
        row["metrics"]["measured_fp_hi"].as_f64().unwrap(),
    );
    assert!(lo <= 0.02 && hi > 0.015, "{row}");
    assert!(measured > 0.015 && measured < 0.025, "{row}");
}

#[test]
fn inferential_btbf_row_is_simulated_with_its_penalties() {
    let rows = validated(&["--fp", "0.02", "--window", "2e3", "--penalties", "1:10"]);
    passed(&rows, "btbf");
    let row = passed(&rows, "btbf/inferential");
    // Its measured column is the inferential penalty per query (printed in its
    // parameters), not an FP.
    assert!(
        row["metrics"]["measured_fp"].as_f64().unwrap() > 0.0,
        "{row}"
    );
}

#[test]
fn gbf_row_is_simulated_within_its_fn_rate() {
    let rows = validated(&["--fp", "0.02", "--window", "2e3", "--allow-fn", "0.05"]);
    let row = passed(&rows, "gbf");
    let measured = row["metrics"]["measured_fp"].as_f64().unwrap();
    assert!(measured > 0.005 && measured < 0.03, "{row}");
}

#[test]
fn temporal_rows_are_simulated_on_their_worst_queries() {
    let rows = validated(&[
        "--fp",
        "0.02",
        "--horizon",
        "1024",
        "--query-length",
        "32",
        "--pairs",
        "2e4",
    ]);
    for design in [
        "pbf-2",
        "pbf-1 g=2",
        "pbf-1 g=4",
        "pbf-1 g=8",
        "pbf-1 g=16",
        "pair-filter",
    ] {
        let row = passed(&rows, design);
        // Worst ranges (tree designs) or any range (pair filter): at most the target.
        assert!(
            row["metrics"]["measured_fp_lo"].as_f64().unwrap() <= 0.02,
            "{row}"
        );
    }
}
