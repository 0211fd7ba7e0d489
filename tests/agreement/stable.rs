//! Stable / Importance-aware filters: the quick suite (every policy at the Figure 7
//! [SBF] setting against the reference filters).

use bfopt_validation::suite::{self, Level};

#[test]
fn stable_suite_passes_at_quick_size() {
    // 7 policies x (zero fraction, probe fp, weighted fn) at the Figure 7 setting, plus
    // the SBF convergence check.
    let checks = suite::run(Some("stable"), Level::Quick, 1).unwrap();
    assert_eq!(checks.len(), 22);
    for c in &checks {
        println!("{c}");
    }
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
