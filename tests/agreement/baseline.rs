use bfopt_validation::suite::{self, Level};

#[test]
fn baseline_suite_passes_at_quick_size() {
    let checks = suite::run(Some("baseline"), Level::Quick, 1).unwrap();
    assert_eq!(checks.len(), 14);
    crate::assert_all_pass(&checks);
}

#[test]
fn a_ring_sized_at_the_target_per_filter_misses_the_union_target() {
    // The common mistake: every filter sized at P. The measured union FP is near r·P.
    use bfopt_models::baseline::RotatingRequirement;
    use bfopt_models::classic::{design, ClassicRequirement, Layout};
    use bfopt_validation::experiments::baseline::simulate_rotating;
    let (fp, window) = (0.02, 20_000);
    let mut d = RotatingRequirement::new(fp, window, Layout::Standard)
        .unwrap()
        .design_with(4)
        .unwrap();
    d.per_filter =
        design(&ClassicRequirement::new(fp, d.generation, Layout::Standard).unwrap()).unwrap();
    let r = simulate_rotating(&d, window, (8, 25_000, 5, 0.999));
    assert_eq!(r.false_negatives, 0);
    assert!(r.probe_fp.interval.lo > 3.0 * fp, "{:?}", r.probe_fp);
}
