use super::chain::{messages_paper, solve, stationary, CurveScan};
use super::transitions::{new_bits, rho, Law, Retention};
use super::*;
use crate::markov::{stationary_dense, stationary_gth};
use approx::assert_relative_eq;
use nalgebra::DMatrix;
use proptest::prelude::*;

const VARIANTS: [(Hashing, Retention); 4] = [
    (Hashing::Colliding, Retention::None),
    (Hashing::Colliding, Retention::Exact),
    (Hashing::Distinct, Retention::None),
    (Hashing::Distinct, Retention::Exact),
];

fn law(m: u64, k: u32, hashing: Hashing) -> Law {
    Law { m, k, hashing }
}

/// Every ordered tuple of `k` positions in `0..m` (distinct ones only if `distinct`),
/// as (new bits when bits `0..i` are set, distinct positions), for each `i`.
/// The transition matrix is then built by counting, independently of Eqs. (4)-(14).
fn brute_matrix(m: u64, k: u32, sigma: u64, hashing: Hashing, retain: bool) -> DMatrix<f64> {
    let n = sigma as usize + 1;
    let mut p = DMatrix::zeros(n, n);
    let mut tuple = vec![0u64; k as usize];
    let mut total = 0.0;
    let mut counts = vec![vec![vec![0.0; k as usize + 1]; k as usize + 1]; n]; // [i][c][d]
    loop {
        let mut pos = tuple.clone();
        pos.sort_unstable();
        pos.dedup();
        let ok = hashing == Hashing::Colliding || pos.len() == k as usize;
        if ok {
            total += 1.0;
            for (i, ci) in counts.iter_mut().enumerate() {
                let d = pos.iter().filter(|&&x| x >= i as u64).count();
                ci[pos.len()][d] += 1.0;
            }
        }
        // next tuple
        let mut h = 0;
        loop {
            if h == k as usize {
                break;
            }
            tuple[h] += 1;
            if tuple[h] < m {
                break;
            }
            tuple[h] = 0;
            h += 1;
        }
        if h == k as usize {
            break;
        }
    }
    for (i, ci) in counts.iter().enumerate() {
        for (c, cd) in ci.iter().enumerate() {
            for (d, cnt) in cd.iter().enumerate() {
                let pr = cnt / total;
                if pr == 0.0 {
                    continue;
                }
                let to = if i + d <= sigma as usize {
                    i + d
                } else if retain {
                    c
                } else {
                    0
                };
                p[(i, to)] += pr;
            }
        }
    }
    p
}

#[test]
fn brute_force_dense_agrees_with_the_fast_solver_for_all_four_variants() {
    for &(m, k, sigma) in &[
        (8u64, 1u32, 5u64),
        (12, 2, 7),
        (20, 3, 15),
        (33, 2, 30),
        (64, 2, 40),
        (40, 3, 21),
    ] {
        for (hashing, retention) in VARIANTS {
            let retain = retention != Retention::None;
            let p = brute_matrix(m, k, sigma, hashing, retain);
            let law = law(m, k, hashing);
            let fast = stationary(law, sigma, retention).unwrap();
            // States a chain never visits (distinct, non-retaining: 1..k−1) have π = 0 and
            // make the dense chain reducible; solve it on its visited states.
            let visited: Vec<usize> = (0..=sigma as usize)
                .filter(|&i| {
                    fast[i] > 0.0 || (0..=sigma as usize).any(|j| p[(j, i)] > 0.0 && j != i)
                })
                .collect();
            let sub = DMatrix::from_fn(visited.len(), visited.len(), |a, b| {
                p[(visited[a], visited[b])]
            });
            for reference in [
                stationary_gth(&sub).unwrap(),
                stationary_dense(&sub).unwrap(),
            ] {
                let mut full = vec![0.0; sigma as usize + 1];
                for (a, &i) in visited.iter().enumerate() {
                    full[i] = reference[a];
                }
                for i in 0..=sigma as usize {
                    assert!(
                        (full[i] - fast[i]).abs() <= 1e-12,
                        "M={m} k={k} σ={sigma} {hashing:?} {retention:?} π_{i}: dense {} fast {}",
                        full[i],
                        fast[i]
                    );
                }
                let fp_dense: f64 = full
                    .iter()
                    .enumerate()
                    .map(|(i, x)| x * law.rho(i as u64))
                    .sum();
                let sol = solve(law, sigma, retention).unwrap();
                assert_relative_eq!(sol.fp, fp_dense, max_relative = 1e-12);
                // Messages per cycle = 1 / P(an arrival recycles).
                let recycle: f64 = (0..=sigma as usize)
                    .map(|i| {
                        let mut row = vec![0.0; k as usize + 1];
                        new_bits(m, k, i as u64, hashing, &mut row);
                        let ov: f64 = row
                            .iter()
                            .enumerate()
                            .filter(|(d, _)| i + d > sigma as usize)
                            .map(|(_, x)| x)
                            .sum();
                        full[i] * ov
                    })
                    .sum();
                assert_relative_eq!(sol.messages, 1.0 / recycle, max_relative = 1e-11);
            }
        }
    }
}

#[test]
fn rho_is_the_self_loop() {
    for hashing in [Hashing::Colliding, Hashing::Distinct] {
        for i in [0u64, 1, 5, 50, 99] {
            let mut row = vec![0.0; 5];
            new_bits(100, 4, i, hashing, &mut row);
            assert_relative_eq!(row[0], rho(100, 4, i, hashing), max_relative = 1e-13);
            assert_relative_eq!(row.iter().sum::<f64>(), 1.0, max_relative = 1e-14);
        }
    }
}

#[test]
fn k1_closed_form_matches_the_chain() {
    for &(m, sigma) in &[(10u64, 1u64), (1000, 500), (1000, 999), (12345, 6000)] {
        let sol = solve(law(m, 1, Hashing::Colliding), sigma, Retention::None).unwrap();
        assert_relative_eq!(sol.fp, fp_k1_closed_form(m, sigma), max_relative = 1e-12);
        // g_i = M/(M−i): messages per cycle = M·(H_M − H_{M−σ−1}).
        let e: f64 = (0..=sigma).map(|i| m as f64 / (m - i) as f64).sum();
        assert_relative_eq!(sol.messages, e, max_relative = 1e-12);
    }
}

#[test]
fn paper_messages_reach_sigma_so_equal_the_cycle_of_sigma_minus_one() {
    // Eqs. (20)-(23) stop at b ≥ σ, the cycle at b > σ: E_paper(σ) = E_cycle(σ − 1).
    for hashing in [Hashing::Colliding, Hashing::Distinct] {
        for &(m, k, sigma) in &[(1000u64, 3u32, 600u64), (500, 5, 300), (64, 2, 10)] {
            let l = law(m, k, hashing);
            let cycle = solve(l, sigma - 1, Retention::None).unwrap().messages;
            assert_relative_eq!(messages_paper(l, sigma), cycle, max_relative = 1e-12);
            assert!(messages_paper(l, sigma) < solve(l, sigma, Retention::None).unwrap().messages);
        }
    }
}

#[test]
fn curve_scan_equals_the_per_sigma_solve() {
    for hashing in [Hashing::Colliding, Hashing::Distinct] {
        let l = law(300, 4, hashing);
        for p in CurveScan::new(l, true).step_by(37) {
            let s = solve(l, p.sigma, Retention::None).unwrap();
            assert_relative_eq!(p.fp, s.fp, max_relative = 1e-12);
            assert_relative_eq!(p.messages, s.messages, max_relative = 1e-12);
            assert_relative_eq!(p.fp_two_phase(), s.fp_two_phase(), max_relative = 1e-12);
        }
    }
}

#[test]
fn eq10_product_law_errs_little_small_and_vanishes_large() {
    // Measured: 1.1e-3 (M=30), 6.9e-4 (M=50, k=4), 2.7e-5 (M=200), < 1e-5 from M=1000.
    // docs/errata.md says "~1% for M ≤ 200"; the f_σ gap is smaller than that (the brute-force
    // test confirms the exact law), though single transition rows differ by more.
    let gap = |m: u64, k: u32, sigma: u64| {
        let l = law(m, k, Hashing::Colliding);
        let exact = solve(l, sigma, Retention::Exact).unwrap().fp;
        let paper = solve(l, sigma, Retention::Paper).unwrap().fp;
        ((paper - exact) / exact).abs()
    };
    let small = gap(50, 4, 30);
    assert!(small > 1e-4 && small < 1e-2, "M=50: {small}");
    let large = gap(1000, 4, 600);
    assert!(large < 1e-5, "M=1000: {large}");
    // Distinct hashes: the product form (Eq. (14)) is exact.
    let l = law(50, 4, Hashing::Distinct);
    let a = solve(l, 30, Retention::Exact).unwrap().fp;
    let b = solve(l, 30, Retention::Paper).unwrap().fp;
    assert_eq!(a, b);
}

#[test]
fn fluid_error_is_small_and_shrinks() {
    // Relative error of the fluid estimate against the exact chain at σ ≈ M/2, k = 7.
    let err = |m: u64, retaining: bool| {
        let l = law(m, 7, Hashing::Colliding);
        let sigma = m / 2;
        let ret = if retaining {
            Retention::Exact
        } else {
            Retention::None
        };
        let e = solve(l, sigma, ret).unwrap();
        let f = fluid::point(l, sigma, retaining);
        (
            ((f.fp - e.fp) / e.fp).abs(),
            ((f.messages - e.messages) / e.messages).abs(),
            ((f.fp_frozen - e.fp_frozen) / e.fp_frozen).abs(),
        )
    };
    let (f4, n4, z4) = err(10_000, false);
    let (f6, n6, z6) = err(1_000_000, false);
    assert!(
        f4 < 1e-3 && n4 < 1e-3 && z4 < 1e-3,
        "M=1e4: {f4:e} {n4:e} {z4:e}"
    );
    assert!(
        f6 < 2e-5 && n6 < 2e-5 && z6 < 2e-5,
        "M=1e6: {f6:e} {n6:e} {z6:e}"
    );
    assert!(f6 < f4 && n6 < n4);
    let (fr, nr, _) = err(100_000, true);
    assert!(fr < 1e-4 && nr < 1e-4, "retaining M=1e5: {fr:e} {nr:e}");
}

#[test]
fn n_bounded_oracle_below_lower_bound_below_worst() {
    for &(m, k, n) in &[(1000u64, 4u32, 100u64), (1000, 7, 150), (10_000, 3, 3000)] {
        let r = RbfNParams::new(m, k, n).unwrap().metrics();
        assert!(r.fp_oracle <= r.fp_lower, "{r:?}");
        assert!(r.fp_lower <= r.fp_worst, "{r:?}");
    }
    assert_eq!(fp_worst(100, 3, 0), 0.0);
    // One message: nothing set before it.
    let one = RbfNParams::new(100, 3, 1).unwrap().metrics();
    assert_eq!((one.fp_oracle, one.fp_lower), (0.0, 0.0));
}

#[test]
fn invalid_parameters_are_rejected() {
    let c = Hashing::Colliding;
    let n = Recycling::NonRetaining;
    assert!(RbfParams::new(1000, 3, 1000, 1, c, n).is_err()); // σ ≥ M
    assert!(RbfParams::new(1000, 3, 2, 1, c, n).is_err()); // σ < k
    assert!(RbfParams::new(1000, 0, 500, 1, c, n).is_err());
    assert!(RbfParams::new(0, 3, 500, 1, c, n).is_err());
    assert!(RbfParams::new(1001, 3, 400, 2, c, n).is_err()); // odd with two phases
    assert!(RbfParams::new(1000, 3, 500, 2, c, n).is_err()); // σ ≥ M/2
    assert!(RbfParams::new(1000, 3, 499, 2, c, n).is_ok());
    let e = RbfParams::new(1000, 3, 1000, 1, c, n).unwrap_err();
    assert!(e.to_string().contains("sigma"), "{e}");
    assert!(RbfRequirement::new(1.0, 1).is_err());
    assert!(RbfRequirement::new(f64::NAN, 1).is_err());
}

#[test]
fn metrics_by_method_and_variants() {
    let p = RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::Retaining).unwrap();
    let m = p.metrics(Method::Exact).unwrap();
    assert!(m.fp_avg > 0.0 && m.fp_avg < 0.2);
    assert!((m.fp_avg - m.fp_avg_paper).abs() / m.fp_avg < 1e-5);
    assert_eq!(m.min_messages, (601 - 4u64).div_ceil(4));
    assert!(m.fn_window.is_none());
    let two = RbfParams::new(2000, 4, 600, 2, Hashing::Colliding, Recycling::NonRetaining).unwrap();
    let t = two.metrics(Method::Auto).unwrap();
    assert_eq!(t.method, "exact");
    assert_eq!(t.fn_window, Some(1 + 601u64.div_ceil(4)));
    assert!(t.fp_avg > t.fp_frozen.unwrap());
}

#[test]
fn cycle_length_law_has_the_chain_mean_and_forgetting_respects_the_window() {
    for phases in [1u8, 2] {
        let p = RbfParams::new(
            400 * u64::from(phases),
            3,
            200,
            phases,
            Hashing::Colliding,
            Recycling::NonRetaining,
        )
        .unwrap();
        let sol = solve(p.law(), 200, Retention::None).unwrap();
        let f = forgetting::analyse(&p, 2000).unwrap();
        let mass: f64 = f.cycle_length.iter().sum();
        let mean: f64 = f
            .cycle_length
            .iter()
            .enumerate()
            .map(|(j, x)| (j + 1) as f64 * x)
            .sum();
        assert_relative_eq!(mass, 1.0, max_relative = 1e-9);
        assert_relative_eq!(mean, sol.messages, max_relative = 1e-9);
        let min = p.min_messages() as usize;
        assert!(f.cycle_length[..min - 1].iter().all(|&x| x == 0.0));
        assert!(f.cycle_length[min - 1] > 0.0);
        // Forgotten is non-decreasing and reaches 1.
        assert!(f.forgotten.windows(2).all(|w| w[1] >= w[0] - 1e-12));
        assert!(*f.forgotten.last().unwrap() > 0.99);
        if let Some(window) = p.fn_window() {
            let w = window as usize;
            // Re-arriving as the (j+1)-th new message after j others: held for j < window.
            assert!(
                f.forgotten[..w - 1].iter().all(|&x| x == 0.0),
                "{:?}",
                &f.forgotten[..w]
            );
            assert!(f.forgotten[w - 1] > 0.0);
        } else {
            assert!(f.forgotten[0] > 0.0);
        }
        assert!(f.reported_new.iter().zip(&f.forgotten).all(|(r, g)| r <= g));
    }
}

#[test]
fn design_meets_target_and_next_sigma_does_not() {
    for phases in [1u8, 2] {
        let req = RbfRequirement::new(0.01, phases).unwrap();
        let d = design(20_000, &req).unwrap();
        assert!(d.metrics.fp_avg <= 0.01);
        let p = d.params;
        if p.sigma() + 1 < p.m() {
            let next = RbfParams::new(
                p.bits(),
                p.k(),
                p.sigma() + 1,
                phases,
                p.hashing(),
                p.recycling(),
            )
            .unwrap()
            .metrics(Method::Exact)
            .unwrap();
            assert!(next.fp_avg > 0.01);
        }
    }
}

#[test]
fn least_bits_is_least() {
    let req = RbfRequirement::new(0.01, 1).unwrap();
    let d = least_bits(500, &req).unwrap();
    assert!(d.metrics.expected_messages >= 500.0);
    let less = design(d.params.bits() - 1, &req).unwrap();
    assert!(less.metrics.expected_messages < 500.0);
}

#[test]
fn design_window_guarantees_the_window_with_least_memory() {
    let req = RbfRequirement::new(0.01, 2).unwrap();
    let d = design_window(500, &req).unwrap();
    let p = d.params;
    assert!(p.fn_window().unwrap() >= 500);
    assert!(d.metrics.fp_avg <= 0.01);
    // Two bits less (one per filter) misses the target with the same k and σ.
    let less = RbfParams::new(
        p.bits() - 2,
        p.k(),
        p.sigma(),
        2,
        p.hashing(),
        p.recycling(),
    )
    .unwrap()
    .metrics(Method::Exact)
    .unwrap();
    assert!(less.fp_avg > 0.01);
    assert!(design_window(500, &RbfRequirement::new(0.01, 1).unwrap()).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn stationary_is_a_distribution(
        m in 10u64..400, k in 1u32..6, frac in 0.0f64..1.0, v in 0usize..4,
    ) {
        let (hashing, retention) = VARIANTS[v];
        prop_assume!(u64::from(k) < m);
        let sigma = u64::from(k) + ((m - 1 - u64::from(k)) as f64 * frac) as u64;
        let pi = stationary(law(m, k, hashing), sigma, retention).unwrap();
        let total: f64 = pi.iter().sum();
        prop_assert!((total - 1.0).abs() < 1e-12);
        prop_assert!(pi.iter().all(|&x| (0.0..=1.0).contains(&x)));
    }

    #[test]
    fn fp_increases_with_sigma(m in 20u64..300, k in 1u32..6, v in 0usize..4, two in any::<bool>()) {
        let (hashing, retention) = VARIANTS[v];
        prop_assume!(u64::from(k) + 2 < m);
        let l = law(m, k, hashing);
        let mut last = 0.0;
        for sigma in u64::from(k)..m {
            let s = solve(l, sigma, retention).unwrap();
            let f = if two { s.fp_two_phase() } else { s.fp };
            prop_assert!((0.0..=1.0).contains(&f));
            prop_assert!(f >= last - 1e-15, "σ={} f={} last={}", sigma, f, last);
            last = f;
        }
    }

    #[test]
    fn constructors_never_panic(bits in any::<u64>(), k in any::<u32>(), sigma in any::<u64>(), phases in any::<u8>(),
                                fp in crate::strategies::nasty_f64()) {
        let _ = RbfParams::new(bits, k, sigma, phases, Hashing::Distinct, Recycling::Retaining);
        let _ = RbfNParams::new(bits, k, sigma);
        let _ = RbfRequirement::new(fp, phases);
    }

    #[test]
    fn design_meets_its_target(bits in 200u64..5000, fp in 0.001f64..0.2) {
        let req = RbfRequirement::new(fp, 1).unwrap();
        if let Ok(d) = design(bits, &req) {
            prop_assert!(d.metrics.fp_avg <= fp);
        }
    }
}

/// Prints the fluid model's relative errors quoted in `fluid`'s module doc.
#[test]
#[ignore = "diagnostic: prints the error table of the fluid doc"]
fn print_fluid_errors() {
    for m in [1_000u64, 10_000, 100_000, 1_000_000, 10_000_000] {
        for (k, frac) in [(7u32, 0.5), (3, 0.3), (10, 0.6)] {
            let l = law(m, k, Hashing::Colliding);
            let sigma = (m as f64 * frac) as u64;
            let e = solve(l, sigma, Retention::None).unwrap();
            let f = fluid::point(l, sigma, false);
            println!("M={m} k={k} σ={sigma} fp={:.4e} rel fp {:.2e} msgs {:.2e} frozen {:.2e} paper {:.2e}", e.fp,
                (f.fp - e.fp) / e.fp, (f.messages - e.messages) / e.messages, (f.fp_frozen - e.fp_frozen) / e.fp_frozen,
                (f.messages_paper - messages_paper(l, sigma)) / messages_paper(l, sigma));
        }
    }
}

#[test]
fn lower_bound_messages_is_the_largest_n_and_best_k() {
    // Eq. (3) [RBF]: f_a(N) ≤ fp at the returned N, f_a(N + 1) > fp, and no k does better
    // (brute force over k with a direct O(N) evaluation per N).
    for &(bits, fp) in &[(1000u64, 0.01), (5000, 0.05), (2000, 0.001), (300, 0.2)] {
        let (k, n) = super::lower_bound_messages(bits, fp).unwrap();
        let fa = |k: u32, n: u64| RbfNParams::new(bits, k, n).unwrap().metrics().fp_lower;
        assert!(
            fa(k, n) <= fp && fa(k, n + 1) > fp,
            "M={bits} fp={fp}: k={k} N={n}"
        );
        for other in 1..=24 {
            let best = crate::numeric::last_true(1, 20 * bits, |m| fa(other, m) <= fp);
            assert!(
                best.unwrap_or(0) <= n,
                "M={bits} fp={fp}: k={other} beats k={k}"
            );
        }
    }
}

#[test]
fn lower_bound_messages_refuses_a_scan_it_cannot_finish() {
    // A scan beyond LOWER_BOUND_TERMS is refused before it starts, naming bits.
    let e = super::lower_bound_messages(1_000_000_000_000, 0.01).unwrap_err();
    assert!(e.to_string().contains("bits"), "{e}");
    assert!(super::lower_bound_messages(1000, f64::NAN).is_err());
}

/// The colliding recursion of Eq. (4) [RBF] in place, as `new_bits` made it before
/// issue 18, for the bit-identity checks below.
fn new_bits_in_place(m: u64, k: u32, i: u64) -> Vec<f64> {
    let (k, mf, i_f) = (k as usize, m as f64, i as f64);
    let mut out = vec![0.0; k + 1];
    out[0] = 1.0;
    let inv = 1.0 / mf;
    for h in 1..=k {
        out[h] = out[h - 1] * (mf - i_f - (h - 1) as f64) * inv;
        for d in (1..h).rev() {
            let df = d as f64;
            out[d] = (out[d] * (i_f + df) + out[d - 1] * (mf - i_f - df + 1.0)) * inv;
        }
        out[0] *= i_f * inv;
    }
    out
}

/// Issue 18: the vectorised rows (`new_bits` and the batches of `CurveScan`, `solve` and
/// `messages_paper`) equal the in-place recursion to the bit, at every `k` and at
/// states across the whole filter, in any order of visit.
#[test]
fn issue_18_row_batches_are_bit_identical_to_the_recursion() {
    use super::transitions::NewBitsBatch;
    for &m in &[2u64, 7, 100, 1000, 65_537, 1 << 40] {
        for k in [1u32, 2, 3, 7, 10, 16, 17, 31, 64] {
            let law = Law {
                m,
                k,
                hashing: Hashing::Colliding,
            };
            let mut batch = NewBitsBatch::new(law);
            let mut row = vec![0.0; k as usize + 1];
            let states: Vec<u64> = (0..40)
                .chain((0..40).rev())
                .map(|j| (j * m / 40).min(m))
                .chain([m.saturating_sub(1), m, 3, 2, 1, 0])
                .collect();
            for &i in &states {
                let want = new_bits_in_place(m, k, i);
                // `==`: bit-identical but for the sign of the zeros of impossible
                // transitions (more new bits than unset ones: `−0` in place, `+0` here).
                new_bits(m, k, i, Hashing::Colliding, &mut row);
                assert_eq!(row, want, "new_bits m = {m}, k = {k}, i = {i}");
                batch.row(i, &mut row);
                assert_eq!(row, want, "batch m = {m}, k = {k}, i = {i}");
            }
        }
    }
}

/// The search of `least_bits` before issue 18: the fluid guess bracketed by ±1/16,
/// widened, then bisected, every step a whole design.
fn least_bits_bisected(messages: u64, req: &RbfRequirement, unit: u64) -> Option<u64> {
    let enough = |u: u64| {
        design(u * unit, req).is_ok_and(|d| d.metrics.expected_messages >= messages as f64)
    };
    let guess = least_bits(messages, &req.with_method(Method::Fluid))
        .ok()?
        .params
        .bits()
        / unit;
    let max_units = RbfParams::BITS.end() / unit;
    let (mut lo, mut hi) = ((guess - guess / 16).max(1), guess + guess / 16 + 2);
    while lo > 1 && enough(lo) {
        lo = (lo / 2).max(1);
    }
    while hi < max_units && !enough(hi) {
        hi = hi.saturating_mul(2).min(max_units);
    }
    crate::numeric::first_true(lo, hi, enough).map(|u| u * unit)
}

/// Issue 18: the secant-and-gallop search of `least_bits`, with its look below the
/// failing size's tooth, finds the memory the exhaustive search finds (the least bits,
/// every smaller size tried, whose exact design holds the messages) on a grid of small
/// cases, and where that predicate is monotone also what the bisection it replaced
/// found. The predicate is a sawtooth (doc of `least_bits`): on this grid, at 3 and 20
/// messages, fp 0.1, two phases, the bisection stopped at 22 and 206 bits against 22 and
/// 202. (Until the exact design screened `k` with the fluid model, its upward scan of `k`
/// stopped early on the 13-bit filters of 3 messages, and this search found 26 bits.)
#[test]
fn issue_18_least_bits_equals_the_exhaustive_search() {
    let mut not_monotone = 0;
    for phases in [1u8, 2] {
        for fp in [0.1, 0.02, 0.005] {
            for messages in [3u64, 8, 20, 45] {
                let req = RbfRequirement::new(fp, phases)
                    .unwrap()
                    .with_method(Method::Exact);
                let unit = u64::from(phases);
                let enough = |b: u64| {
                    design(b, &req).is_ok_and(|d| d.metrics.expected_messages >= messages as f64)
                };
                let got = least_bits(messages, &req).unwrap();
                let bits = got.params.bits();
                let case = format!("messages = {messages}, fp = {fp}, phases = {phases}");
                assert_eq!(got, design(bits, &req).unwrap(), "{case}: design");
                assert!(enough(bits) && !enough(bits - unit), "{case}: a boundary");
                let holds: Vec<bool> = (1..=bits / unit + 4).map(|u| enough(u * unit)).collect();
                let exhaustive = (holds.iter().position(|&h| h).unwrap() as u64 + 1) * unit;
                assert_eq!(bits, exhaustive, "{case}: exhaustive");
                if holds.windows(2).any(|w| w[0] && !w[1]) {
                    not_monotone += 1;
                    continue;
                }
                assert_eq!(
                    Some(bits),
                    least_bits_bisected(messages, &req, unit),
                    "{case}: bisection"
                );
            }
        }
    }
    assert!(not_monotone <= 2, "{not_monotone} of 24 cases not monotone");
}

/// Issue 18: the exact design scans only the `k` the fluid model cannot rule out
/// (`design::best_exact`). On a grid of every variant, small filters (where the fluid
/// model is least accurate) and large ones, it keeps the `k` and σ of the upward scan it
/// replaced, or, on filters of at most 40 bits, finds one with more messages per cycle
/// where that scan stopped early (there the messages are not unimodal in `k`: 44 of the
/// 1580 cases).
#[test]
fn issue_18_screened_k_is_the_upward_scan_or_better() {
    use super::design::{best_exact, best_sigma, best_upward};
    let (mut same, mut better) = (0, 0);
    for hashing in [Hashing::Colliding, Hashing::Distinct] {
        for recycling in [Recycling::NonRetaining, Recycling::Retaining] {
            for phases in [1u8, 2] {
                for fp in [0.3, 0.1, 0.02, 1e-3, 1e-6] {
                    let req = RbfRequirement::new(fp, phases)
                        .unwrap()
                        .with_variant(hashing, recycling)
                        .with_method(Method::Exact);
                    let big: &[u64] = if recycling == Recycling::Retaining {
                        &[2_000]
                    } else {
                        &[2_000, 30_000]
                    };
                    for &m in (3..=40).collect::<Vec<u64>>().iter().chain(big) {
                        let scanned = |k: u32| k <= 64 && u64::from(k) < m;
                        let at = |k: u32| (k, best_sigma(Law { m, k, hashing }, &req));
                        let screened = best_exact(m, &req, scanned, at);
                        let upward = best_upward(m, scanned, at).unwrap();
                        let case = format!("{hashing:?} {recycling:?} {phases} fp {fp} m {m}");
                        match (screened, upward) {
                            (s, u) if s == u => same += 1,
                            _ if m > 40 => panic!("{case}: {screened:?} against {upward:?}"),
                            (Some(s), Some(u)) => {
                                assert!(s.2 > u.2, "{case}: {s:?} against {u:?}");
                                better += 1;
                            }
                            (s, u) => panic!("{case}: {s:?} against {u:?}"),
                        }
                    }
                }
            }
        }
    }
    assert!(same > 20 * better, "{same} the same, {better} better");
}
