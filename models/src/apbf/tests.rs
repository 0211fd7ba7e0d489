use super::*;
use approx::assert_relative_eq;
use proptest::prelude::*;

/// Algorithm 1 [APBF] run on a fixed match pattern: (answer, accesses).
fn algorithm1(matches: &[bool], k: usize, l: usize) -> (bool, u32) {
    let (mut i, mut p, mut c, mut acc) = (l as i64, 0, 0, 0);
    while i >= 0 {
        acc += 1;
        if matches[i as usize] {
            c += 1;
            i += 1;
            if p + c == k {
                return (true, acc);
            }
        } else {
            i -= k as i64;
            p = c;
            c = 0;
        }
    }
    (false, acc)
}

/// The query specification of Section 5.1 [APBF]: some `j ≤ l` with `k` matches.
fn spec(matches: &[bool], k: usize, l: usize) -> bool {
    (0..=l).any(|j| matches[j..j + k].iter().all(|&m| m))
}

/// Exact expectations by enumerating all `2^(k+l)` match patterns.
fn brute(r: &[f64], k: usize, l: usize) -> (f64, f64, f64) {
    let n = k + l;
    let (mut fp, mut ef, mut et) = (0.0, 0.0, 0.0);
    for mask in 0u32..(1 << n) {
        let matches: Vec<bool> = (0..n).map(|i| mask >> i & 1 == 1).collect();
        let w: f64 = (0..n)
            .map(|i| if matches[i] { r[i] } else { 1.0 - r[i] })
            .product();
        let (ans, acc) = algorithm1(&matches, k, l);
        assert_eq!(
            ans,
            spec(&matches, k, l),
            "Algorithm 1 disagrees with the spec"
        );
        if ans {
            fp += w;
            et += w * f64::from(acc);
        } else {
            ef += w * f64::from(acc);
        }
    }
    (fp, ef, et)
}

#[test]
fn dynamic_programmes_match_enumeration() {
    for (k, l) in [
        (1, 1),
        (1, 4),
        (2, 1),
        (2, 3),
        (3, 3),
        (4, 3),
        (3, 7),
        (5, 5),
        (4, 8),
    ] {
        for r in [fills::paper(k, l), fills::real(k, l)] {
            let (fp, ef, et) = brute(&r, k as usize, l as usize);
            let a = query_accesses(&r, k as usize, l as usize);
            assert_relative_eq!(consecutive_match(&r, k as usize), fp, max_relative = 1e-12);
            assert_relative_eq!(a.p_true, fp, max_relative = 1e-12);
            assert_relative_eq!(a.p_false + a.p_true, 1.0, max_relative = 1e-14);
            assert_relative_eq!(a.false_mass, ef, max_relative = 1e-12);
            assert_relative_eq!(a.true_mass, et, max_relative = 1e-12);
        }
    }
}

#[test]
fn recursion_as_printed_matches_the_sweep() {
    // Section 5.3's recursion written literally (exponential; small sizes only).
    fn f(r: &[f64], k: usize, l: usize, a: usize, i: usize) -> f64 {
        if a == k {
            1.0
        } else if i > l + a {
            0.0
        } else {
            r[i] * f(r, k, l, a + 1, i + 1) + (1.0 - r[i]) * f(r, k, l, 0, i + 1)
        }
    }
    for (k, l) in [(4, 3), (5, 7), (7, 5)] {
        let r = fills::paper(k, l);
        assert_relative_eq!(
            consecutive_match(&r, k as usize),
            f(&r, k as usize, l as usize, 0, 0),
            max_relative = 1e-13
        );
    }
}

#[test]
fn edge_values() {
    // k = 1: a match anywhere among l + 1 slices (of l + 1 checked).
    let p = ApbfParams::new(1, 1).unwrap();
    assert_relative_eq!(p.fp_paper(), 1.0 - 0.5 * 0.5, max_relative = 1e-15);
    assert_eq!(consecutive_match(&[0.0; 5], 2), 0.0);
    assert_eq!(consecutive_match(&[1.0; 5], 2), 1.0);
    // A window item is always reported.
    for j in 0..=7 {
        assert_relative_eq!(
            ApbfParams::new(4, 7).unwrap().report_probability(j),
            1.0,
            max_relative = 1e-15
        );
    }
}

#[test]
fn sizing_follows_section_5_2() {
    // g = ⌊m ln2/k⌋, w = l·g, s = k·g.
    let p = ApbfParams::new(7, 5)
        .unwrap()
        .with_slice_bits(10_000)
        .unwrap();
    let s = p.sizing().unwrap();
    assert_eq!(
        s.generation,
        (10_000.0 * std::f64::consts::LN_2 / 7.0) as u64
    );
    assert_eq!(p.window(), Some(5 * s.generation));
    assert_eq!(p.slack(), Some(7 * s.generation));
    assert_eq!(p.total_bits(), Some(12 * 10_000));
    let w = ApbfParams::new(7, 5).unwrap().with_window(1000).unwrap();
    let s = w.sizing().unwrap();
    assert_eq!(s.generation, 200);
    assert!(generation(s.slice_bits, 7) >= 200 && generation(s.slice_bits - 1, 7) < 200);
    // The sized worst case tends to the unsized one.
    let big = ApbfParams::new(7, 5)
        .unwrap()
        .with_window(5_000_000)
        .unwrap();
    assert_relative_eq!(big.fp(), w.fp(), max_relative = 1e-2);
    assert_relative_eq!(
        big.fp(),
        ApbfParams::new(7, 5).unwrap().fp(),
        max_relative = 1e-5
    );
}

#[test]
fn invalid_input_is_an_error() {
    assert!(ApbfParams::new(0, 3).is_err());
    assert!(ApbfParams::new(3, 0).is_err());
    assert!(ApbfParams::new(65, 3).is_err());
    let e = ApbfParams::new(4, 10).unwrap().with_window(9).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid window = 9 (allowed: window >= l = 10)"
    );
    assert!(ApbfParams::new(10, 3).unwrap().with_slice_bits(10).is_err());
    assert!(ApbbfParams::new(2, 3, 100, 4).is_err());
    assert!(ApbbfParams::new(2, 3, 32, 4).is_err());
    assert!(ApbbfParams::new(2, 3, 64, 3).is_err());
    assert!(ApbbfParams::new(2, 3, 64, 64).is_err());
    assert!(ApbfRequirement::new(1.5, 100).is_err());
    assert!(ApbfRequirement::new(f64::NAN, 100).is_err());
    assert!(ApbfRequirement::new(0.01, 0).is_err());
}

#[test]
fn phase_average_quadrature_matches_simpson() {
    for (k, l) in [(4, 3), (10, 7), (17, 13)] {
        let p = ApbfParams::new(k, l).unwrap();
        let n = 2000;
        let h = 1.0 / n as f64;
        let simpson: f64 = (0..=n)
            .map(|i| {
                let w = if i == 0 || i == n {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * p.fp_at_phase(i as f64 * h)
            })
            .sum::<f64>()
            * h
            / 3.0;
        assert_relative_eq!(p.fp_average(), simpson, max_relative = 1e-12);
        // The average lies between the best (just after a shift) and the worst case.
        assert!(p.fp_at_phase(0.0) < p.fp_average() && p.fp_average() < p.fp());
    }
}

#[test]
fn phase_average_of_a_sized_filter_is_the_mean_over_insertions() {
    // g ≤ EXACT_PHASES: the exact mean; above: quadrature plus Euler-Maclaurin.
    let small = ApbfParams::new(4, 3).unwrap().with_window(3000).unwrap();
    let g = small.sizing().unwrap().generation;
    assert!(g <= EXACT_PHASES);
    let mean: f64 = (1..=g).map(|j| small.fp_after(j)).sum::<f64>() / g as f64;
    assert_relative_eq!(small.fp_average(), mean, max_relative = 1e-14);
    let large = ApbfParams::new(4, 3).unwrap().with_window(60_000).unwrap();
    let g = large.sizing().unwrap().generation;
    assert!(g > EXACT_PHASES);
    let mean: f64 = (1..=g).map(|j| large.fp_after(j)).sum::<f64>() / g as f64;
    assert_relative_eq!(large.fp_average(), mean, max_relative = 1e-9);
}

#[test]
fn npws_exact_is_close_to_the_formula_for_large_k() {
    // The formula keeps only the leading path (prob 2^-i); the exact probability adds
    // other ways of completing k matches, so it is larger, by less as l grows.
    for (k, l) in [(4, 3), (10, 25), (17, 36)] {
        let p = ApbfParams::new(k, l).unwrap();
        assert!(p.npws_exact() >= p.npws() * 0.99, "({k},{l})");
        assert!(p.npws_exact() < p.npws() * 1.5, "({k},{l})");
    }
}

#[test]
fn apbbf_capacity_and_sizing() {
    let p = ApbbfParams::new(2, 5, 512, 4).unwrap();
    assert_relative_eq!(
        p.capacity_ratio(),
        (4.0 / 512.0) / -(-4.0f64 / 512.0).ln_1p()
    );
    let s = p.with_window(100_000).unwrap();
    assert!(s.window().unwrap() >= 100_000);
    // Binomial loads converge to the Poisson model.
    assert_relative_eq!(s.fp(), p.fp_paper(), max_relative = 1e-3);
}

#[test]
fn optimizer_meets_the_target_and_beats_the_rule() {
    for (fp, w) in [(0.1, 1000u64), (0.01, 10_000), (1e-3, 100_000)] {
        let req = ApbfRequirement::new(fp, w).unwrap();
        let d = design(&req).unwrap();
        assert!(d.metrics.fp <= fp && d.metrics.window >= w);
        if let Some((_, _, rule)) = design::rule_of_thumb(fp, w) {
            assert!(d.metrics.total_bits <= rule.total_bits().unwrap());
        }
        let front = pareto(&req).unwrap();
        assert!(front.iter().any(|x| x.k == d.k && x.l == d.l));
        assert!(front.iter().all(|x| x.metrics.fp <= fp));
    }
}

#[test]
fn infeasible_requirements_name_the_binding_constraint() {
    let req = ApbfRequirement::new(0.01, 10_000)
        .unwrap()
        .with_memory(1000)
        .unwrap();
    let e = design(&req).unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    let req = ApbfRequirement::new(0.01, 10_000)
        .unwrap()
        .with_max_accesses(2.0)
        .unwrap();
    let e = design(&req).unwrap_err();
    assert!(e.to_string().contains("max_accesses"), "{e}");
    let req = ApbfRequirement::new(0.01, 10_000)
        .unwrap()
        .with_max_npws(1e-4)
        .unwrap();
    let e = design(&req).unwrap_err();
    assert!(e.to_string().contains("max_npws"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fp_is_a_probability_increasing_in_l(k in 1u32..=24, l in 1u32..=60) {
        let a = ApbfParams::new(k, l).unwrap();
        let b = ApbfParams::new(k, l + 1).unwrap();
        for (x, y) in [(a.fp_paper(), b.fp_paper()), (a.fp(), b.fp()), (a.fp_average(), b.fp_average())] {
            prop_assert!((0.0..=1.0).contains(&x));
            prop_assert!(x <= y);
        }
    }

    #[test]
    fn fp_decreases_in_k(k in 1u32..=24, l in 1u32..=60) {
        let a = ApbfParams::new(k, l).unwrap();
        let b = ApbfParams::new(k + 1, l).unwrap();
        prop_assert!(b.fp_paper() <= a.fp_paper());
        prop_assert!(b.fp() <= a.fp());
    }

    #[test]
    fn fp_grows_with_the_phase(k in 1u32..=16, l in 1u32..=30, t in 0.0f64..1.0) {
        let p = ApbfParams::new(k, l).unwrap();
        prop_assert!(p.fp_at_phase(t) <= p.fp_at_phase((t + 0.1).min(1.0)) + 1e-15);
        prop_assert!(p.fp_at_phase(t) <= p.fp());
    }

    #[test]
    fn apbbf_fp_is_a_probability(k in 1u32..=6, l in 1u32..=12, e in 6u32..=10, b in 0u32..=3) {
        let p = ApbbfParams::new(k, l, 1 << e, 1 << b).unwrap();
        let m = p.metrics();
        prop_assert!((0.0..=1.0).contains(&m.fp_paper));
        prop_assert!(m.accesses_false >= 1.0 && m.accesses_window >= f64::from(k));
    }

    #[test]
    fn constructors_never_panic(k in any::<u32>(), l in any::<u32>(), w in any::<u64>(), fp in crate::strategies::nasty_f64()) {
        if let Ok(p) = ApbfParams::new(k, l) {
            let _ = p.with_window(w);
            let _ = p.with_slice_bits(w);
        }
        let _ = ApbbfParams::new(k, l, k, l);
        let _ = ApbfRequirement::new(fp, w);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn optimizer_choice_meets_its_target(e in 1.0f64..6.0, w in 100u64..1_000_000) {
        let fp = 10f64.powf(-e);
        let d = design(&ApbfRequirement::new(fp, w).unwrap()).unwrap();
        prop_assert!(d.metrics.fp <= fp);
        prop_assert!(d.metrics.window >= w);
        let p = ApbfParams::new(d.k, d.l).unwrap().with_window(w).unwrap();
        prop_assert_eq!(p.fp(), d.metrics.fp);
    }
}

/// Issue 3: memory per window item of the default design against the published rule
/// `k = ⌈log2(1/p)⌉` + largest `l` (both judged by the real FP, window 10^6).
#[test]
fn design_saves_memory_against_the_rule() {
    let w = 1_000_000;
    for e in 1..=5 {
        let fp = 10f64.powi(-e);
        let d = design(&ApbfRequirement::new(fp, w).unwrap()).unwrap();
        let rule = design::rule_of_thumb(fp, w);
        let (rk, rl, rbits) =
            rule.map_or((0, 0, f64::INFINITY), |(k, l, p)| (k, l, p.bits_per_item()));
        println!(
            "p = 1e-{e}: design (k = {}, l = {}) {:.2} bits/item; rule (k = {rk}, l = {rl}) {rbits:.2} bits/item; saves {:.1}%",
            d.k,
            d.l,
            d.metrics.bits_per_item,
            100.0 * (1.0 - d.metrics.bits_per_item / rbits)
        );
        assert!(d.metrics.bits_per_item <= rbits);
    }
}

#[test]
fn window_accesses_match_forced_query_accesses() {
    for (k, l) in [(1, 1), (2, 5), (4, 3), (7, 5), (10, 25), (5, 1)] {
        for r in [fills::paper(k, l), fills::real(k, l)] {
            let (ku, lu) = (k as usize, l as usize);
            let direct: f64 = (0..lu)
                .map(|j| {
                    let mut f = r.clone();
                    f[j..j + ku].iter_mut().for_each(|x| *x = 1.0);
                    let a = query_accesses(&f, ku, lu);
                    assert!(a.p_false.abs() < 1e-12);
                    a.total()
                })
                .sum::<f64>()
                / f64::from(l);
            assert_relative_eq!(window_accesses(&r, ku, lu), direct, max_relative = 1e-12);
        }
    }
}

#[test]
fn prefix_sweep_matches_each_l() {
    for k in [1u32, 3, 7, 12] {
        let r = fills::real(k, 40);
        let all = recursion::consecutive_match_prefixes_upto(&r, k as usize, f64::INFINITY);
        assert_eq!(all.len(), 41);
        for l in 1..=40u32 {
            let direct = ApbfParams::new(k, l).unwrap().fp();
            assert_relative_eq!(all[l as usize], direct, max_relative = 1e-12);
        }
    }
}

#[test]
fn reporting_probability_decays_through_the_transition_zone() {
    // Figure 4 [APBF] (k = 10, l = 15): generations j ≤ l are always reported; the
    // i-th generation past the window has lost i slices and is reported with about
    // 2^(−i) (Section 5.2) — a little more, through other matching runs — until it falls
    // to the background FP at j = k + l.
    let p = ApbfParams::new(10, 15).unwrap();
    for j in 0..=15 {
        assert_relative_eq!(p.report_probability(j), 1.0, max_relative = 1e-12);
    }
    let mut prev = 1.0;
    for i in 1..10 {
        let r = p.report_probability(15 + i);
        assert!(r < prev, "not decreasing at i = {i}");
        let paper = 0.5f64.powi(i as i32);
        assert!(
            r >= paper * 0.999 && r < paper * 1.3 + p.fp(),
            "i = {i}: {r} vs {paper}"
        );
        prev = r;
    }
    assert_relative_eq!(p.report_probability(25), p.fp(), max_relative = 1e-12);
    assert_relative_eq!(p.report_probability(40), p.fp(), max_relative = 1e-12);
}

/// Issue 9 `--duplicates`: sized on the repeats model, the design needs less memory as
/// the repeat rate rises and its repeats FP meets the target; rate 0 is the distinct
/// design.
#[test]
fn design_with_duplicates_meets_the_target_with_less_memory() {
    let (fp, w) = (0.01, 1_000_000);
    let plain = design(&ApbfRequirement::new(fp, w).unwrap()).unwrap();
    let zero = design(
        &ApbfRequirement::new(fp, w)
            .unwrap()
            .with_duplicates(0.0)
            .unwrap(),
    )
    .unwrap();
    assert_eq!((zero.k, zero.l), (plain.k, plain.l));
    let mut last = plain.metrics.total_bits;
    for d in [0.2, 0.5, 0.8] {
        let req = ApbfRequirement::new(fp, w)
            .unwrap()
            .with_duplicates(d)
            .unwrap();
        let x = design(&req).unwrap();
        let p = ApbfParams::new(x.k, x.l).unwrap().with_window(w).unwrap();
        let dup = req.duplicates().unwrap();
        assert_eq!(p.fp_duplicates(&dup).unwrap(), x.metrics.fp);
        assert!(x.metrics.fp <= fp);
        assert!(x.metrics.total_bits < last, "d = {d}");
        last = x.metrics.total_bits;
    }
    assert!(ApbfRequirement::new(fp, w)
        .unwrap()
        .with_duplicates(1.0)
        .is_err());
}

#[test]
fn duplicates_models_need_a_size() {
    let dup = WindowDuplicates::new(0.5, 1000).unwrap();
    let p = ApbfParams::new(4, 3).unwrap();
    assert!(p.fp_duplicates(&dup).is_err());
    let p = p.with_window(1000).unwrap();
    // Rate 0 is the distinct stream.
    let none = WindowDuplicates::new(0.0, 1000).unwrap();
    assert_relative_eq!(
        p.fp_duplicates(&none).unwrap(),
        p.fp(),
        max_relative = 1e-12
    );
    assert_relative_eq!(
        p.fp_average_duplicates(&none).unwrap(),
        p.fp_average(),
        max_relative = 1e-12
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Repeats FP: a probability, at most the distinct FP, falling as the rate rises,
    /// the phase average below the worst case.
    #[test]
    fn duplicates_fp_is_a_probability_falling_with_the_rate(
        k in 1u32..=20,
        l in 1u32..=40,
        w in 100u64..=1_000_000,
        d in 0.0f64..0.99,
    ) {
        prop_assume!(w >= u64::from(l));
        let p = ApbfParams::new(k, l).unwrap().with_window(w).unwrap();
        let h = p.window().unwrap();
        let a = WindowDuplicates::new(d, h).unwrap();
        let b = WindowDuplicates::new((d + 0.05).min(0.999), h).unwrap();
        let (fa, fb) = (p.fp_duplicates(&a).unwrap(), p.fp_duplicates(&b).unwrap());
        prop_assert!((0.0..=1.0).contains(&fa) && (0.0..=1.0).contains(&fb));
        prop_assert!(fb <= fa * (1.0 + 1e-12));
        prop_assert!(fa <= p.fp() * (1.0 + 1e-12));
        let avg = p.fp_average_duplicates(&a).unwrap();
        prop_assert!((0.0..=1.0).contains(&avg) && avg <= fa * (1.0 + 1e-12));
    }
}

/// Issue 10, numerical extremes: `k` up to 64, `l` up to 4096, fp down to 1e-15,
/// windows up to 1e12 and 2^44 — probabilities in [0, 1], finite metrics, and a window
/// too large for the slices is an error naming the window.
#[test]
fn numerical_extremes_stay_in_range() {
    let unit = |x: f64| (0.0..=1.0).contains(&x);
    for (k, l) in [(64u32, 1u32), (64, 64), (1, 4096), (64, 4096)] {
        let p = ApbfParams::new(k, l).unwrap();
        for f in [p.fp_paper(), p.fp(), p.fp_average(), p.fp_at_phase(0.3)] {
            assert!(unit(f), "({k},{l}): {f}");
        }
        let a = p.accesses_real();
        assert!(unit(a.p_false) && unit(a.p_true));
        assert!(a.given_false().is_finite() && a.given_true().is_finite());
        assert!(p.npws().is_finite() && unit(p.npws_exact() * f64::from(l) / f64::from(k)));
        assert!(p.efficiency().is_finite() && p.efficiency() >= 0.0);
        for w in [1_000_000_000_000u64, 1 << 44] {
            match p.with_window(w) {
                Ok(s) => {
                    assert!(unit(s.fp()) && unit(s.fp_average()), "({k},{l}) w = {w}");
                    assert!(s.window().unwrap() >= w && s.bits_per_item().is_finite());
                    let dup = WindowDuplicates::new(0.999_999, s.window().unwrap()).unwrap();
                    assert!(unit(s.fp_duplicates(&dup).unwrap()));
                    assert!(unit(s.fp_average_duplicates(&dup).unwrap()));
                }
                Err(e) => assert!(e.to_string().contains("window"), "{e}"),
            }
        }
    }
    let m = ApbfParams::new(64, 64).unwrap().metrics();
    assert!(m.accesses_window.is_finite() && m.accesses_window >= 64.0);
    for (fp, w) in [(1e-15, 1_000_000_000_000u64), (1e-15, 1000), (0.5, 1 << 40)] {
        let d = design(&ApbfRequirement::new(fp, w).unwrap()).unwrap();
        assert!(d.metrics.fp <= fp && d.metrics.window >= w);
        let x = design(
            &ApbfRequirement::new(fp, w)
                .unwrap()
                .with_duplicates(0.9)
                .unwrap(),
        )
        .unwrap();
        assert!(
            x.metrics.fp <= fp && x.metrics.total_bits <= d.metrics.total_bits,
            "fp {fp} w {w}: {:?} vs {:?}",
            (x.k, x.l, x.metrics),
            (d.k, d.l, d.metrics)
        );
    }
    let big = WindowDuplicates::new(0.5, 1 << 44).unwrap();
    let v = big.distinct(1e13);
    assert!(v.is_finite() && v > 0.0 && v <= 1e13);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Issue 10: every invalid value is rejected (never computed, never a panic), every
    /// valid one accepted.
    #[test]
    fn constructors_accept_exactly_the_valid_space(
        k in any::<u32>(),
        l in any::<u32>(),
        w in any::<u64>(),
        fp in crate::strategies::nasty_f64(),
        d in crate::strategies::nasty_f64(),
    ) {
        let valid_kl = ApbfParams::K.contains(&k) && ApbfParams::L.contains(&l);
        prop_assert_eq!(ApbfParams::new(k, l).is_ok(), valid_kl);
        if let Ok(p) = ApbfParams::new(k, l) {
            if let Ok(s) = p.with_window(w) {
                prop_assert!(w >= u64::from(l) && s.window().unwrap() >= w);
                prop_assert!((0.0..=1.0).contains(&s.fp()));
            } else {
                prop_assert!(w < u64::from(l) || !ApbfParams::W.contains(&w) || w > 1_000_000_000);
            }
        }
        prop_assert_eq!(ApbfRequirement::new(fp, 1000).is_ok(), (crate::error::check::FP_TARGET_MIN..1.0).contains(&fp));
        let d_ok = (0.0..1.0).contains(&d);
        prop_assert_eq!(WindowDuplicates::new(d, 1000).is_ok(), d_ok);
        if let Ok(r) = ApbfRequirement::new(0.01, 1000) {
            prop_assert_eq!(r.with_duplicates(d).is_ok(), d_ok);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The zone decomposition of `window_accesses` equals the item-by-item sweep for
    /// any match probabilities (including 0 and 1).
    #[test]
    fn window_accesses_zone_form_matches_item_by_item(
        k in 1usize..=12,
        l in 1usize..=30,
        seed in proptest::collection::vec(prop_oneof![Just(0.0f64), Just(1.0f64), 0.0f64..=1.0], 42),
    ) {
        let r: Vec<f64> = (0..k + l).map(|i| seed[i % seed.len()]).collect();
        let fast = window_accesses(&r, k, l);
        let slow = recursion::window_accesses_by_item(&r, k, l);
        prop_assert!((fast - slow).abs() <= 1e-12 * slow.abs().max(1.0), "{} vs {}", fast, slow);
    }
}

#[test]
fn window_accesses_zone_form_at_the_largest_sizes() {
    for (k, l) in [(64u32, 64u32), (21, 54), (8, 56), (1, 300), (40, 1)] {
        let r = fills::real(k, l);
        let (fast, slow) = (
            window_accesses(&r, k as usize, l as usize),
            recursion::window_accesses_by_item(&r, k as usize, l as usize),
        );
        assert_relative_eq!(fast, slow, max_relative = 1e-12);
    }
    // (64, 4096) now takes well under a second.
    let t = std::time::Instant::now();
    let v = ApbfParams::new(64, 4096).unwrap().accesses_window();
    assert!(v.is_finite() && v >= 64.0);
    assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
}
