//! Numerical extremes and bad input (issue 10): windows up to 2^50, fp down to 1e-15, up
//! to 64 filters. Designs meet their target or say which constraint binds; no overflow
//! in the bit counts; bad values are rejected.

use super::fingerprint_queue::design_fingerprint_queue;
use super::rotating::design_rotating;
use super::*;
use crate::classic::Layout;
use crate::strategies::nasty_f64;
use crate::ModelError;
use proptest::prelude::*;

#[test]
fn windows_of_1e12_at_fp_1e15() {
    let req = RotatingRequirement::new(1e-15, 1_000_000_000_000, Layout::Standard)
        .unwrap()
        .with_max_filters(64)
        .unwrap();
    let d = design_rotating(&req).unwrap();
    assert!(d.fp <= 1e-15 && d.fp > 0.0, "{d:?}");
    assert_eq!(d.bits, d.per_filter.params.m() * u64::from(d.filters));
    // A fingerprint queue cannot reach 1e-15 over 10^12 items with 64-bit fingerprints.
    let fq = FingerprintQueueRequirement::new(1e-15, 1_000_000_000_000).unwrap();
    let e = design_fingerprint_queue(&fq).unwrap_err();
    assert!(matches!(e, ModelError::Infeasible { .. }), "{e}");
}

#[test]
fn largest_fingerprint_queue_does_not_overflow() {
    // W = 2^50, load factor 0.05, 64-bit fingerprints: 2.3·10^18 bits, below u64::MAX.
    let fq = FingerprintQueueRequirement::new(0.999_999, 1 << 50)
        .unwrap()
        .with_load_factor(0.05)
        .unwrap();
    let d = design_fingerprint_queue(&fq).unwrap();
    let expected = (1u64 << 50) as f64 * f64::from(d.fingerprint_bits)
        + d.slots as f64 * f64::from(d.fingerprint_bits + d.counter_bits);
    assert!(
        (d.bits as f64 - expected).abs() <= 1e-12 * expected,
        "{d:?}"
    );
    assert!((0.0..=1.0).contains(&d.fp));
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..=hi.ln()).prop_map(f64::exp)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_valid_window_design_meets_its_target_or_names_the_constraint(
        fp in log_uniform(1e-15, 0.99),
        window in log_uniform(1.0, 1.1e15),
        max_filters in 2u32..=64,
        load_factor in 0.05f64..=0.95,
    ) {
        let window = window as u64;
        let req = RotatingRequirement::new(fp, window, Layout::Standard)
            .unwrap()
            .with_max_filters(max_filters)
            .unwrap();
        match design_rotating(&req) {
            Ok(d) => {
                prop_assert!(d.fp <= fp && d.fp >= 0.0, "{d:?}");
                prop_assert!(u64::from(d.filters - 1) * d.generation >= window);
                prop_assert!(d.bits_per_item.is_finite() && d.accesses_query_false.is_finite());
            }
            Err(e) => prop_assert!(matches!(e, ModelError::Infeasible { .. }), "{e}"),
        }
        let fq = FingerprintQueueRequirement::new(fp, window)
            .unwrap()
            .with_load_factor(load_factor)
            .unwrap();
        match design_fingerprint_queue(&fq) {
            Ok(d) => {
                prop_assert!(d.fp <= fp && d.fp >= 0.0);
                prop_assert!(d.bits >= window * u64::from(d.fingerprint_bits));
                prop_assert!(d.accesses_insert.is_finite() && d.accesses_query_false >= 1.0);
            }
            Err(e) => prop_assert!(matches!(e, ModelError::Infeasible { .. }), "{e}"),
        }
    }

    #[test]
    fn invalid_values_are_rejected(
        fp in nasty_f64(),
        window in prop_oneof![Just(0u64), Just((1 << 50) + 1), Just(u64::MAX), any::<u64>()],
        filters in any::<u32>(),
        load_factor in nasty_f64(),
    ) {
        let fp_ok = fp > 0.0 && fp < 1.0;
        let w_ok = RotatingRequirement::WINDOW.contains(&window);
        prop_assert_eq!(RotatingRequirement::new(fp, window, Layout::Standard).is_ok(), fp_ok && w_ok);
        prop_assert_eq!(FingerprintQueueRequirement::new(fp, window).is_ok(), fp_ok && w_ok);
        let req = RotatingRequirement::new(0.01, 1000, Layout::Standard).unwrap();
        prop_assert_eq!(req.with_max_filters(filters).is_ok(), RotatingRequirement::FILTERS.contains(&filters));
        if !RotatingRequirement::FILTERS.contains(&filters) {
            prop_assert!(req.design_with(filters).is_err());
        }
        let fq = FingerprintQueueRequirement::new(0.01, 1000).unwrap();
        prop_assert_eq!(
            fq.with_load_factor(load_factor).is_ok(),
            FingerprintQueueRequirement::LOAD_FACTOR.contains(&load_factor)
        );
    }
}
