//! Numerical extremes and bad input (issue 10): `k` up to 64, fp down to 1e-15, `m` and
//! `n` up to 2^50, every layout. No NaN, no probability outside [0, 1], no panic.

use super::*;
use crate::strategies::{layout, nasty_f64};
use proptest::prelude::*;

fn assert_sane(x: &ClassicMetrics, what: &str) {
    for (name, p) in [("fp", x.fp), ("fp_approx", x.fp_approx), ("fill", x.fill)]
        .into_iter()
        .chain(x.fp_exact.map(|f| ("fp_exact", f)))
    {
        assert!((0.0..=1.0).contains(&p), "{what}: {name} = {p}");
    }
    for (name, a) in [
        ("accesses_insert", x.accesses_insert),
        ("accesses_query_true", x.accesses_query_true),
        ("accesses_query_false", x.accesses_query_false),
        ("bits_per_item", x.bits_per_item),
    ] {
        assert!(a.is_finite() && a > 0.0, "{what}: {name} = {a}");
    }
}

#[test]
fn issue_10_blocked_fp_with_a_huge_block_load() {
    // m = 1024 bits in two 512-bit blocks with n = 2^50 items: the block-load law has a
    // standard deviation of 1.7·10^7 and the walk kept 4·10^8 terms (6 GB) before the fix.
    let p = ClassicParams::new(1024, 64, 1 << 50, Layout::Blocked { block_bits: 512 }).unwrap();
    let x = p.metrics();
    assert_eq!(x.fp, 1.0);
    assert_sane(&x, "m=1024 n=2^50");
    assert_eq!(fp_blocked(1024, 512, 64, 1 << 50), 1.0);
    // Just below the cut the load law is still walked (sd = 10^5 at n = 4·10^10).
    assert_eq!(fp_blocked(1024, 512, 1, 40_000_000_000), 1.0);
}

#[test]
fn corners_of_every_layout() {
    for layout in [
        Layout::Standard,
        Layout::Partitioned,
        Layout::Blocked { block_bits: 512 },
        Layout::Blocked {
            block_bits: 1 << 20,
        },
    ] {
        for (m, k, n) in [
            (1u64 << 50, 64u32, 1u64 << 50),
            (1 << 50, 1, 1),
            (1 << 50, 64, 1),
            (1 << 20, 64, 1),
            (1 << 20, 64, 1 << 50),
            (1_000_000_000_000 / 1024 * 1024, 64, 1_000_000_000_000),
        ] {
            if let Ok(p) = ClassicParams::new(m, k, n, layout) {
                assert_sane(&p.metrics(), &format!("{layout:?} m={m} k={k} n={n}"));
            }
        }
    }
}

#[test]
fn designs_at_fp_1e15_and_n_1e12() {
    for layout in [
        Layout::Standard,
        Layout::Partitioned,
        Layout::Blocked { block_bits: 512 },
    ] {
        let d =
            design(&ClassicRequirement::new(1e-15, 1_000_000_000_000, layout).unwrap()).unwrap();
        assert!(
            d.metrics.fp <= 1e-15 && d.metrics.fp > 0.0,
            "{layout:?}: {d:?}"
        );
        // About 72 bits per item at 1e-15 (log2(1e15)/ln 2); a 512-bit blocked filter
        // needs about 320: the block-load variance dominates at such targets.
        let range = match layout {
            Layout::Blocked { .. } => 250.0..400.0,
            _ => 70.0..75.0,
        };
        assert!(
            range.contains(&d.metrics.bits_per_item),
            "{layout:?}: {d:?}"
        );
        // 2^50 items at 1e-15 need more than 2^50 bits: infeasible, not a panic.
        let e = design(&ClassicRequirement::new(1e-15, 1 << 50, layout).unwrap()).unwrap_err();
        assert!(matches!(e, ModelError::Infeasible { .. }), "{e}");
    }
    assert_eq!(HalfFillDesign::for_fp(1e-15).unwrap().k, 50);
    // k = 67 > 64: rejected, naming fp.
    assert!(HalfFillDesign::for_fp(1e-20).is_err());
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..=hi.ln()).prop_map(f64::exp)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_valid_filter_is_sane(
        layout in layout(),
        k in 1u32..=64,
        m in log_uniform(1.0, 1.1e15),
        n in log_uniform(1.0, 1.1e15),
    ) {
        let m = match layout {
            Layout::Blocked { block_bits } => (m as u64).div_ceil(block_bits) * block_bits,
            _ => m as u64,
        };
        if let Ok(p) = ClassicParams::new(m, k, n as u64, layout) {
            assert_sane(&p.metrics(), &format!("{p:?}"));
        }
    }

    #[test]
    fn any_valid_design_meets_its_target(
        fp in log_uniform(1e-15, 0.5),
        n in log_uniform(1.0, 1e12),
        partitioned in any::<bool>(),
    ) {
        let layout = if partitioned { Layout::Partitioned } else { Layout::Standard };
        let req = ClassicRequirement::new(fp, n as u64, layout).unwrap();
        let d = design(&req).unwrap();
        prop_assert!(d.metrics.fp <= fp && d.metrics.fp >= 0.0, "{d:?}");
        let c = capacity(d.params.m(), d.params.k(), fp, layout).unwrap();
        prop_assert!(c >= n as u64);
    }

    #[test]
    fn invalid_values_are_rejected_not_computed(
        m in prop_oneof![Just(0u64), Just((1 << 50) + 1), Just(u64::MAX), any::<u64>()],
        k in prop_oneof![Just(0u32), Just(65), Just(u32::MAX), any::<u32>()],
        n in prop_oneof![Just(0u64), Just((1 << 50) + 1), any::<u64>()],
        block_bits in prop_oneof![Just(0u64), Just(63), Just((1 << 20) + 64), any::<u64>()],
        fp in nasty_f64(),
    ) {
        for layout in [Layout::Standard, Layout::Partitioned, Layout::Blocked { block_bits }] {
            let valid = ClassicParams::M.contains(&m) && ClassicParams::K.contains(&k)
                && ClassicParams::N.contains(&n) && m >= u64::from(k)
                && match layout {
                    Layout::Blocked { block_bits: b } => b > 0 && b % 64 == 0
                        && b <= ClassicParams::BLOCK_BITS_MAX && m % b == 0 && b >= u64::from(k),
                    _ => true,
                };
            let res = ClassicParams::new(m, k, n, layout);
            prop_assert_eq!(res.is_ok(), valid, "{:?} {} {} {}", layout, m, k, n);
            if let Err(e) = res {
                prop_assert!(matches!(e, ModelError::InvalidParam { .. }), "{}", e);
            }
        }
        let fp_ok = fp > 0.0 && fp < 1.0;
        prop_assert_eq!(ClassicRequirement::new(fp, 10, Layout::Standard).is_ok(), (crate::error::check::FP_TARGET_MIN..1.0).contains(&fp));
        prop_assert_eq!(HalfFillDesign::for_fp(fp).is_ok(), fp_ok && fp >= 2f64.powi(-64));
        if !fp_ok {
            prop_assert!(capacity(1000, 3, fp, Layout::Standard).is_err());
        }
        if !ClassicParams::M.contains(&m) || !ClassicParams::N.contains(&n) {
            prop_assert!(best_k(m, n, Layout::Standard).is_err());
        }
    }
}
