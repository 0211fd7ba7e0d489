//! PBF model vs simulation on scaled-down synthetic days (issue 7).

use bfopt_validation::suite::{self, Level};

#[test]
fn pbf_suite_passes_at_quick_size() {
    let checks = suite::run(Some("pbf"), Level::Quick, 1).unwrap();
    for c in &checks {
        eprintln!("{c}");
    }
    assert_eq!(checks.len(), 24);
    crate::assert_all_pass(&checks);
}
