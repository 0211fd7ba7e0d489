//! Model vs simulation for the Generalized Bloom filter (issue 6): standard window FP /
//! FN, posterior calibration (stable posterior, including k = 30), penalty reduction.

use bfopt_validation::suite::{self, Level};

#[test]
fn gbf_suite_passes_at_quick_size() {
    let checks = suite::run(Some("gbf"), Level::Quick, 1).unwrap();
    for c in &checks {
        eprintln!("{c}");
    }
    assert!(checks.len() >= 12, "{} checks", checks.len());
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
