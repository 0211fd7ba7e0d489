use super::fingerprint_queue::{design_fingerprint_queue, design_fingerprint_queue_on};
use super::rotating::{design_rotating, design_rotating_ring};
use super::*;
use crate::classic::Layout;
use proptest::prelude::*;

#[test]
fn rotating_union_meets_target_and_naive_sizing_does_not() {
    let req = RotatingRequirement::new(0.01, 1_000_000, Layout::Standard).unwrap();
    let d = design_rotating(&req).unwrap();
    assert!(d.fp <= 0.01, "{d:?}");
    assert!((d.filters - 1) as u64 * d.generation >= 1_000_000);
    // Each filter at the target: the union is near r·P.
    let naive = d.fp_if_each_sized_at_target.unwrap();
    assert!(naive > 0.01 * (f64::from(d.filters) - 1.0), "{naive}");
}

/// The planner's ring (no naive figure) is [`design_rotating`]'s, each ring size sized once.
#[test]
fn ring_without_the_naive_figure_is_the_same_ring() {
    for layout in [Layout::Standard, Layout::Blocked { block_bits: 512 }] {
        for (fp, w) in [
            (0.05, 100_000),
            (0.05, 2000),
            (0.01, 1_000_000),
            (1e-4, 777),
        ] {
            let req = RotatingRequirement::new(fp, w, layout).unwrap();
            let full = design_rotating(&req).unwrap();
            assert!(full.fp_if_each_sized_at_target.is_some());
            let ring = design_rotating_ring(&req).unwrap();
            assert_eq!(
                ring,
                RotatingDesign {
                    fp_if_each_sized_at_target: None,
                    ..full
                },
                "{layout:?} {fp} {w}"
            );
            assert_eq!(full, req.design_with(full.filters).unwrap());
        }
    }
}

#[test]
fn double_buffering_is_the_two_filter_ring() {
    let req = RotatingRequirement::new(0.01, 1000, Layout::Standard).unwrap();
    let d = req.design_with(2).unwrap();
    assert_eq!(d.generation, 1000);
    assert_eq!(d.slack, 1000);
    // Each half meets 1 − 0.99^(1/2) ≈ 0.005013.
    assert!(d.per_filter.metrics.fp <= 1.0 - 0.99f64.sqrt());
    assert_eq!(d.bits, 2 * d.per_filter.params.m());
}

#[test]
fn best_ring_is_no_larger_than_any_ring() {
    let req = RotatingRequirement::new(1e-3, 100_000, Layout::Standard).unwrap();
    let best = design_rotating(&req).unwrap();
    for r in 2..=16 {
        assert!(best.bits <= req.design_with(r).unwrap().bits);
    }
}

#[test]
fn fingerprint_queue_picks_the_shortest_fingerprint() {
    let req = FingerprintQueueRequirement::new(0.01, 1_000_000).unwrap();
    let d = design_fingerprint_queue(&req).unwrap();
    // W·2^−b ≤ 0.01 needs b ≥ log2(1e8) = 26.6.
    assert_eq!(d.fingerprint_bits, 27);
    assert!(req.fp_with(26) > 0.01 && d.fp <= 0.01);
    assert_eq!(d.counter_bits, 20);
    assert_eq!(d.slots, 1_250_000);
    assert_eq!(d.bits, 1_000_000 * 27 + 1_250_000 * 47);
}

/// On a stream with `D(W)` distinct items per window the fingerprint needs only
/// `1 − (1 − 2^−b)^D(W) <= fp`: `D(W) = 1e4` of `W = 1e6` saves `log2(100)`, 6-7 bits; the
/// identity stream gives the distinct design.
#[test]
fn fingerprint_queue_on_a_workload_counts_distinct_fingerprints() {
    let req = FingerprintQueueRequirement::new(0.01, 1_000_000).unwrap();
    let distinct = design_fingerprint_queue(&req).unwrap();
    let same = design_fingerprint_queue_on(&req, &crate::workload::Distinct::Identity).unwrap();
    assert_eq!(same, distinct);
    let uniform = crate::workload::Distinct::Uniform { universe: 10_000 };
    let d_w = uniform.d(1e6);
    assert!((d_w - 10_000.0).abs() < 1.0, "{d_w}");
    let on = design_fingerprint_queue_on(&req, &uniform).unwrap();
    // 1e4·2^−b ≤ 0.01 needs b ≥ log2(1e6) = 19.9.
    assert_eq!(on.fingerprint_bits, 20);
    assert!(on.fp <= 0.01 && on.fp > 0.005, "{on:?}");
    assert_eq!(
        (on.slots, on.counter_bits),
        (distinct.slots, distinct.counter_bits)
    );
    assert!(on.bits < distinct.bits);
}

#[test]
fn fingerprint_queue_reports_infeasible_targets() {
    let req = FingerprintQueueRequirement::new(1e-300, 1 << 40).unwrap();
    assert!(matches!(
        design_fingerprint_queue(&req),
        Err(crate::ModelError::Infeasible { .. })
    ));
}

#[test]
fn bad_requirements_are_rejected() {
    assert!(RotatingRequirement::new(0.0, 10, Layout::Standard).is_err());
    assert!(RotatingRequirement::new(0.1, 0, Layout::Standard).is_err());
    let req = RotatingRequirement::new(0.1, 10, Layout::Standard).unwrap();
    assert!(req.with_max_filters(1).is_err());
    assert!(req.design_with(65).is_err());
    let fq = FingerprintQueueRequirement::new(0.1, 10).unwrap();
    assert!(fq.with_load_factor(f64::NAN).is_err());
    assert!(fq.with_load_factor(1.0).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn designs_meet_their_targets(fp in 1e-9f64..0.5, window in 1u64..10_000_000) {
        let rot = design_rotating(&RotatingRequirement::new(fp, window, Layout::Standard).unwrap()).unwrap();
        prop_assert!(rot.fp <= fp && (0.0..=1.0).contains(&rot.fp));
        prop_assert!(u64::from(rot.filters - 1) * rot.generation >= window);
        let fq = design_fingerprint_queue(&FingerprintQueueRequirement::new(fp, window).unwrap()).unwrap();
        prop_assert!(fq.fp <= fp && fq.fp >= 0.0);
    }
}
