use super::exact::to_f64;
use super::*;
use crate::strategies;
use approx::assert_relative_eq;
use proptest::prelude::*;

#[test]
fn empty_filter_has_no_false_positives() {
    assert_eq!(fp_standard(1000.0, 7.0, 0.0), 0.0);
    assert_eq!(fp_partitioned(100.0, 7.0, 0.0), 0.0);
    assert_eq!(fp_approx(1000.0, 7.0, 0.0), 0.0);
    assert_eq!(fp_exact_standard(1000, 7, 0, EXACT_BUDGET), Some(0.0));
}

#[test]
fn one_item_one_hash() {
    // One bit set out of m: fp = 1/m exactly, in every form but the approximation.
    assert_relative_eq!(
        fp_standard(64.0, 1.0, 1.0),
        1.0 / 64.0,
        max_relative = 1e-14
    );
    assert_relative_eq!(
        fp_exact_standard(64, 1, 1, EXACT_BUDGET).unwrap(),
        1.0 / 64.0
    );
    assert_relative_eq!(to_f64(&fp_exact_rational(64, 1, 1).unwrap()), 1.0 / 64.0);
}

#[test]
fn exact_recursion_matches_exact_rationals() {
    // Independent derivations: occupancy recursion in f64 vs the Stirling closed form
    // in exact fractions.
    for &(m, k, n) in &[
        (16, 3, 4),
        (64, 4, 10),
        (100, 7, 10),
        (257, 5, 60),
        (1000, 2, 300),
    ] {
        let rational = to_f64(&fp_exact_rational(m, k, n).unwrap());
        let dp = fp_exact_standard(m, k, n, EXACT_BUDGET).unwrap();
        assert_relative_eq!(dp, rational, max_relative = 1e-12);
    }
}

/// The unset-bits chain (`O(k³ log t)`) that evaluates [`fp_exact_standard`] gives the
/// occupancy recursion's value to 1e-12 relative, on a grid of sizes, hash counts and
/// loads (empty to saturated) that includes `m < k`, one item and the design sizes of
/// the planner (issue 18).
#[test]
fn unhit_chain_matches_the_occupancy_recursion() {
    let mut worst = 0.0f64;
    for m in [1u64, 2, 3, 7, 64, 100, 257, 1000, 4096, 9_586, 65_537] {
        for k in [1u32, 2, 3, 5, 7, 10, 16, 30] {
            for n in [1u64, 2, 5, 40, 300, 1000, 6_000] {
                let t = u64::from(k) * n;
                if t as f64 * (m as f64).min(t as f64) > 5e8 {
                    continue;
                }
                let want = super::exact::fp_by_recursion(m, t, k);
                let got = super::exact::fp_by_unhit_chain(m, t, k);
                if want < 1e-250 {
                    assert!(got < 1e-240, "m={m} k={k} n={n}: {got} vs {want}");
                    continue;
                }
                let rel = (got - want).abs() / want;
                worst = worst.max(rel);
                assert!(rel < 1e-12, "m={m} k={k} n={n}: {got} vs {want} ({rel:e})");
            }
        }
    }
    eprintln!("worst relative gap, chain vs recursion: {worst:e}");
}

#[test]
fn usual_formula_understates_the_exact_fp() {
    // Bose et al.: (1-(1-1/m)^(kn))^k is a lower bound; the gap shrinks with m.
    let rel_err = |m: u64, k: u32| {
        let n = (m as f64 * std::f64::consts::LN_2 / f64::from(k)) as u64;
        let exact = fp_exact_standard(m, k, n, EXACT_BUDGET).unwrap();
        let usual = fp_standard(m as f64, f64::from(k), n as f64);
        assert!(usual < exact, "m={m} k={k}: {usual} !< {exact}");
        (exact - usual) / exact
    };
    assert!(rel_err(64, 4) > 0.01);
    let big = rel_err(10_000, 7);
    assert!(big < 0.01, "relative error {big} at m=10000, k=7");
    assert!(big < rel_err(1000, 7));
}

#[test]
fn exact_gives_up_beyond_budget() {
    assert!(fp_exact_standard(1 << 40, 7, 1 << 36, EXACT_BUDGET).is_none());
    assert!(fp_exact_rational(1 << 20, 30, 10_000).is_err());
}

#[test]
fn partitioned_is_worse_than_standard_but_close() {
    let (m, k, n) = (10_000u64, 7u32, 1000u64);
    let std_fp = ClassicParams::new(m, k, n, Layout::Standard).unwrap().fp();
    let part = ClassicParams::new(m, k, n, Layout::Partitioned)
        .unwrap()
        .fp();
    assert!(part > std_fp);
    assert_relative_eq!(part, std_fp, max_relative = 0.05);
}

#[test]
fn blocked_single_block_is_standard_and_blocking_costs_fp() {
    let one = ClassicParams::new(512, 4, 40, Layout::Blocked { block_bits: 512 }).unwrap();
    // One block: the blocked model is the exact law of a standard filter of that block,
    // and the independent-bits mixture is the usual formula.
    let exact_one = fp_exact_standard(512, 4, 40, EXACT_BUDGET).unwrap();
    assert_relative_eq!(one.fp(), exact_one, max_relative = 1e-13);
    assert_relative_eq!(
        fp_blocked(512, 512, 4, 40),
        fp_standard(512.0, 4.0, 40.0),
        max_relative = 1e-14
    );
    let (m, k, n) = (1 << 20, 7, 100_000);
    let blocked = ClassicParams::new(m, k, n, Layout::Blocked { block_bits: 512 }).unwrap();
    let standard = ClassicParams::new(m, k, n, Layout::Standard).unwrap();
    assert!(blocked.fp() > standard.fp());
    // An item's k bits collide more often inside one block of B bits than across m bits,
    // so a blocked filter sets slightly fewer bits.
    assert!(blocked.fill() < standard.fill());
    assert_relative_eq!(blocked.fill(), standard.fill(), max_relative = 1e-2);
}

#[test]
fn blocked_exact_is_the_load_mixture_of_exact_blocks() {
    // One block: the exact blocked FP is the exact standard FP of that block.
    let one = fp_blocked_exact(512, 512, 4, 40, EXACT_BUDGET).unwrap();
    assert_relative_eq!(
        one,
        fp_exact_standard(512, 4, 40, EXACT_BUDGET).unwrap(),
        max_relative = 1e-13
    );
    // Per-load exact values agree with the direct recursion.
    let by_load = fp_exact_by_load(256, 3, 30, EXACT_BUDGET).unwrap();
    for j in [0u64, 1, 7, 30] {
        let direct = fp_exact_standard(256, 3, j, EXACT_BUDGET).unwrap();
        assert_relative_eq!(by_load[j as usize], direct, max_relative = 1e-13);
    }
    // Many blocks: the independent-bits mixture understates the exact one.
    let (m, k, n) = (1 << 16, 7, 6000);
    let exact = fp_blocked_exact(m, 512, k, n, EXACT_BUDGET).unwrap();
    let approx = fp_blocked(m, 512, k, n);
    assert!(
        approx < exact && (exact - approx) / exact < 0.05,
        "{approx} vs {exact}"
    );
}

#[test]
fn accesses_query_false_at_half_fill() {
    // 2^k/(2^k-1) Σ i/2^i: k = 1 → 1, k = 4 → 1.7333.., k → ∞ → 2.
    assert_relative_eq!(accesses_query_false(0.5, 1), 1.0);
    assert_relative_eq!(
        accesses_query_false(0.5, 4),
        1.625 * 16.0 / 15.0,
        max_relative = 1e-14
    );
    assert_relative_eq!(accesses_query_false(0.5, 64), 2.0, max_relative = 1e-12);
    assert_eq!(accesses_query_false(1.0, 5), 5.0);
    assert_eq!(accesses_query_false(0.0, 5), 1.0);
}

#[test]
fn design_is_minimal_and_meets_target() {
    for layout in [
        Layout::Standard,
        Layout::Partitioned,
        Layout::Blocked { block_bits: 512 },
    ] {
        let req = ClassicRequirement::new(0.001, 50_000, layout).unwrap();
        let d = design(&req).unwrap();
        assert!(d.metrics.fp <= 0.001);
        let unit = match layout {
            Layout::Standard => 1,
            Layout::Partitioned => u64::from(d.params.k()),
            Layout::Blocked { block_bits } => block_bits,
        };
        let smaller = ClassicParams::new(d.params.m() - unit, d.params.k(), 50_000, layout)
            .unwrap()
            .fp();
        assert!(
            smaller > 0.001,
            "{layout:?}: m - unit also meets the target"
        );
        // No other k does better.
        for k in 1..=64 {
            if let Ok(p) = ClassicParams::new(d.params.m() - unit, k, 50_000, layout) {
                assert!(p.fp() > 0.001, "{layout:?}: k = {k} fits in fewer bits");
            }
        }
    }
}

#[test]
fn best_k_is_near_m_over_n_ln2() {
    let (k, fp) = best_k(10_000, 1000, Layout::Standard).unwrap();
    assert_eq!(k, 7);
    assert_relative_eq!(fp, fp_standard(10_000.0, 7.0, 1000.0));
}

#[test]
fn capacity_is_the_last_n_meeting_the_target() {
    let n = capacity(10_000, 7, 0.01, Layout::Standard).unwrap();
    assert!(fp_standard(10_000.0, 7.0, n as f64) <= 0.01);
    assert!(fp_standard(10_000.0, 7.0, (n + 1) as f64) > 0.01);
    assert!(matches!(
        capacity(8, 1, 1e-9, Layout::Standard),
        Err(ModelError::Infeasible { .. })
    ));
}

#[test]
fn invalid_parameters_name_themselves() {
    let e = ClassicParams::new(3, 7, 10, Layout::Standard).unwrap_err();
    assert_eq!(e.to_string(), "invalid m = 3 (allowed: m >= k = 7)");
    let e = ClassicParams::new(1000, 7, 10, Layout::Blocked { block_bits: 100 }).unwrap_err();
    assert!(e.to_string().starts_with("invalid block_bits = 100"));
    let e = ClassicParams::new(1000, 7, 10, Layout::Blocked { block_bits: 512 }).unwrap_err();
    assert!(e.to_string().contains("a multiple of block_bits = 512"));
    assert!(ClassicParams::new(1000, 0, 10, Layout::Standard).is_err());
    assert!(ClassicParams::new(1000, 7, 0, Layout::Standard).is_err());
    assert!(ClassicRequirement::new(f64::NAN, 10, Layout::Standard).is_err());
    assert!(HalfFillDesign::for_fp(0.0).is_err());
}

proptest! {
    #[test]
    fn fp_is_a_probability(p in strategies::classic_params()) {
        let m = p.metrics();
        for v in [m.fp, m.fp_approx, m.fill] {
            prop_assert!((0.0..=1.0).contains(&v), "{v} for {p:?}");
        }
        if let Some(e) = m.fp_exact {
            prop_assert!((0.0..=1.0).contains(&e));
        }
    }

    #[test]
    fn fp_increases_with_load(p in strategies::classic_params()) {
        let more = ClassicParams::new(p.m(), p.k(), p.n() + 1 + p.n() / 8, p.layout()).unwrap();
        // Mixture sums carry rounding of order 1e-15 (visible only where fp ≈ 1).
        prop_assert!(more.fp() >= p.fp() - 1e-13, "{} < {} for {p:?}", more.fp(), p.fp());
    }

    #[test]
    fn design_meets_its_target(fp in 1e-12f64..0.5, n in 1u64..10_000_000, layout in strategies::layout()) {
        let d = design(&ClassicRequirement::new(fp, n, layout).unwrap()).unwrap();
        prop_assert!(d.metrics.fp <= fp);
    }

    #[test]
    fn constructors_never_panic(fp in strategies::nasty_f64(), m in any::<u64>(), k in any::<u32>(), n in any::<u64>(), b in any::<u64>()) {
        let _ = ClassicParams::new(m, k, n, Layout::Blocked { block_bits: b });
        let _ = ClassicParams::new(m, k, n, Layout::Standard);
        let _ = ClassicRequirement::new(fp, n, Layout::Standard);
        let _ = HalfFillDesign::for_fp(fp);
        if !(fp > 0.0 && fp < 1.0) {
            prop_assert!(ClassicRequirement::new(fp, 10, Layout::Standard).is_err());
        }
    }
}

/// Issue 16, bug 1 (a): a small standard filter sized by the usual formula (m = 960,
/// k = 7 at n = 100) has exact FP 0.01006 > 0.01; sized by the exact law it meets the
/// target, is the smallest that does, and says which law it meets.
#[test]
fn standard_design_meets_its_target_under_the_exact_law() {
    let req = ClassicRequirement::new(0.01, 100, Layout::Standard).unwrap();
    let d = design(&req).unwrap();
    let (m, k) = (d.params.m(), d.params.k());
    assert_eq!((m, k), (962, 7));
    assert_eq!(d.metrics.fp_law, FpLaw::Exact);
    let exact = |m: u64, k: u32| fp_exact_standard(m, k, 100, EXACT_BUDGET).unwrap();
    assert!(exact(m, k) <= 0.01, "m={m} k={k}: {}", exact(m, k));
    assert_eq!(d.metrics.fp_exact, Some(d.metrics.fp));
    // The usual formula's size misses the target under the exact law.
    let usual_m =
        crate::numeric::first_true(1, 1 << 20, |m| fp_standard(m as f64, 7.0, 100.0) <= 0.01)
            .unwrap();
    assert_eq!(usual_m, 960);
    assert!(exact(960, 7) > 0.01);
    // Smallest: one bit less fails for every k near the optimum.
    for k in 5..=9 {
        assert!(exact(m - 1, k) > 0.01, "k={k}");
    }
    // Large sets: the exact law is too costly and the design says so.
    let big = design(&ClassicRequirement::new(0.01, 1_000_000, Layout::Standard).unwrap()).unwrap();
    assert_eq!(big.metrics.fp_law, FpLaw::UsualFormula);
    // Partitioned and blocked are exact.
    for layout in [Layout::Partitioned, Layout::Blocked { block_bits: 512 }] {
        let d = design(&ClassicRequirement::new(0.01, 1000, layout).unwrap()).unwrap();
        assert_eq!(d.metrics.fp_law, FpLaw::Exact, "{layout:?}");
    }
}

proptest! {
    /// Issue 17: the log-space FP ([`ClassicParams::ln_fp`], [`ClassicParams::ln_fp_approx`])
    /// agrees with the linear one to 1e-12 relative wherever the linear one is a normal
    /// `f64`, for the standard (exact law and usual formula) and partitioned layouts.
    #[test]
    fn ln_fp_agrees_with_fp_where_both_exist(
        m in 64u64..=1 << 40,
        k in 1u32..=64,
        n in 1u64..=4096,
        partitioned in any::<bool>(),
    ) {
        let layout = if partitioned { Layout::Partitioned } else { Layout::Standard };
        let Ok(p) = ClassicParams::new(m, k, n, layout) else { return Ok(()); };
        let fp = p.fp();
        if fp >= 1e-300 {
            let ln = p.ln_fp().unwrap();
            prop_assert!((ln - fp.ln()).abs() <= 1e-12 * fp.ln().abs().max(1.0), "{ln} vs {}", fp.ln());
        }
        let approx = p.metrics().fp_approx;
        if approx >= 1e-300 {
            let ln = p.ln_fp_approx();
            prop_assert!((ln - approx.ln()).abs() <= 1e-12 * approx.ln().abs().max(1.0));
        }
    }
}

#[test]
fn ln_fp_below_the_smallest_f64() {
    // One item, k = 60, 10^12 bits: every position distinct but with probability
    // about 1770/10^12, so the exact law is within 2e-9 relative of (60/10^12)^60 = 10^-613.3.
    let p = ClassicParams::new(1_000_000_000_000, 60, 1, Layout::Standard).unwrap();
    assert_eq!(p.fp(), 0.0, "underflows in f64");
    let ln = p.ln_fp().unwrap();
    let expected = 60.0 * (60.0f64 / 1e12).ln();
    assert!(
        (ln - expected).abs() <= 1e-6 * expected.abs(),
        "{ln} vs {expected}"
    );
    assert!(ln <= expected, "collisions only lower the FP");
    let part = ClassicParams::new(1_000_000_000_000, 60, 1, Layout::Partitioned).unwrap();
    // Partitioned: exactly (1/s)^k with s = m/k.
    let s = (1_000_000_000_000u64 / 60) as f64;
    assert!((part.ln_fp().unwrap() + 60.0 * s.ln()).abs() <= 1e-12 * 60.0 * s.ln());
    assert_eq!(
        ln_fp_exact_standard(1000, 7, 0, EXACT_BUDGET),
        Some(f64::NEG_INFINITY)
    );
}

/// Issue 17 (the design fuzz timeout): one to five items of 40 or 64 hashes, where the
/// chain is stepped rather than squared, against the occupancy recursion at 1e-12.
#[test]
fn stepped_unhit_chain_matches_the_occupancy_recursion() {
    for m in [64u64, 155, 589, 4096] {
        for k in [40u32, 64] {
            for n in [1u64, 2, 5] {
                let t = u64::from(k) * n;
                let want = super::exact::fp_by_recursion(m, t, k);
                let got = super::exact::fp_by_unhit_chain(m, t, k);
                assert!(want > 0.0);
                assert_relative_eq!(got, want, max_relative = 1e-12);
            }
        }
    }
}

/// Issue 17: `design` refines each `k` only below the best exact size found; it still
/// returns the least `(m, k)` over every `k` sized on its own by [`min_bits`].
#[test]
fn design_refinement_is_the_minimum_over_every_k() {
    for (fp, n) in [
        (4.106e-29, 1u64),
        (3.9e-29, 4),
        (1e-12, 2),
        (0.01, 100),
        (1e-6, 5),
    ] {
        let req = ClassicRequirement::new(fp, n, Layout::Standard).unwrap();
        let d = design(&req).unwrap();
        let want = (1..=ClassicRequirement::K_MAX_DEFAULT)
            .filter_map(|k| min_bits(fp, n, k, Layout::Standard).map(|m| (m, k)))
            .min()
            .unwrap();
        assert_eq!((d.params.m(), d.params.k()), want, "fp {fp}, n {n}");
    }
}
