//! Model vs simulation for the Timing / Block Timing Bloom filter (issue 5): standard
//! FP, expected penalties per query (standard, inferential, prior only), posterior
//! calibration, and the chooser's optimum.

use bfopt_validation::suite::{self, Level};

#[test]
fn timing_suite_passes_at_quick_size() {
    let checks = suite::run(Some("timing"), Level::Quick, 1).unwrap();
    for c in &checks {
        eprintln!("{c}");
    }
    assert!(checks.len() >= 20, "{} checks", checks.len());
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
