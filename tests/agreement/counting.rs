use bfopt_models::counting::{design, CountingParams, CountingRequirement};
use bfopt_validation::experiments::counting::{simulate, CountingSimConfig};
use bfopt_validation::suite::{self, Level};

#[test]
fn counting_suite_passes_at_quick_size() {
    let checks = suite::run(Some("counting"), Level::Quick, 1).unwrap();
    assert_eq!(checks.len(), 11);
    crate::assert_all_pass(&checks);
}

#[test]
fn a_designed_filter_does_not_overflow() {
    // The optimizer's design at 1e-9 overflow: 200 filters, no overflowed counter.
    let d = design(&CountingRequirement::new(0.01, 5_000).unwrap()).unwrap();
    let cfg = CountingSimConfig {
        params: d.params,
        deleted: 0,
        epochs: 200,
        probes: 1,
        seed: 77,
        confidence: 0.999,
    };
    let r = simulate(&cfg).unwrap();
    assert_eq!(r.any_overflow.successes, 0, "{d:?}");
    // And one bit narrower, the same table overflows often.
    let narrow = CountingParams::new(d.params.m(), d.params.k(), 5_000, d.params.c() - 1).unwrap();
    assert!(narrow.metrics().expected_overflows > 1e-4);
}
