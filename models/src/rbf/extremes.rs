//! Numerical extremes and bad input (issue 10): `k` up to 64, fp down to 1e-15, `M` and
//! windows up to 10^12 bits, σ next to `M`. No NaN, no probability outside [0, 1], no
//! panic; a solve that would take more than a few seconds is refused before it starts.
//! Each regression test names the input that failed before its fix.

use super::*;
use crate::strategies::nasty_f64;
use proptest::prelude::*;

const HASHINGS: [Hashing; 2] = [Hashing::Colliding, Hashing::Distinct];
const RECYCLINGS: [Recycling; 2] = [Recycling::NonRetaining, Recycling::Retaining];

fn assert_metrics_sane(x: &RbfMetrics, what: &str) {
    for (name, p) in [("fp_avg", x.fp_avg), ("fp_avg_paper", x.fp_avg_paper)]
        .into_iter()
        .chain(x.fp_frozen.map(|f| ("fp_frozen", f)))
    {
        assert!((0.0..=1.0).contains(&p), "{what}: {name} = {p}");
    }
    assert!(
        // A cycle holds at least one message (up to rounding: σ = k retaining is 1 − 2e-16).
        x.expected_messages.is_finite() && x.expected_messages >= 1.0 - 1e-12,
        "{what}: messages {}",
        x.expected_messages
    );
    assert!(
        x.expected_messages_paper.is_finite() && x.expected_messages_paper >= 0.0,
        "{what}: messages_paper {}",
        x.expected_messages_paper
    );
}

#[test]
fn issue_10_retaining_k64_start_states_that_underflow() {
    // Colliding + retaining with k = 64: the chance that a message has few distinct
    // positions underflows to 0, and the cycle-start chain had states nothing enters.
    // Before the fix: M = 10^12, σ = 64 → NoConvergence; M = 10^5, σ = 99 999 → NaN
    // (a panic in debug builds). The smaller M = 10^6, σ = 200 shows the same.
    for (bits, sigma, phases) in [
        (1_000_000_000_000u64, 64u64, 1u8),
        (2_000_000_000_000, 32, 2),
    ]
    .into_iter()
    .chain([(1_000_000, 200, 1), (1_000_000, 999_999, 1)])
    {
        let p = RbfParams::new(
            bits,
            64,
            sigma.max(64),
            phases,
            Hashing::Colliding,
            Recycling::Retaining,
        )
        .unwrap();
        let x = p.metrics(Method::Auto).unwrap();
        assert_metrics_sane(&x, &format!("M={bits} σ={sigma}"));
    }
}

#[test]
fn every_variant_at_the_corners() {
    // k ∈ {1, 64}, σ ∈ {k, M − 1}, M ∈ {2·64, 10^12}: fluid beyond the exact budget.
    for bits in [128u64, 1_000_000_000_000] {
        for k in [1u32, 64] {
            for phases in [1u8, 2] {
                let m = bits / u64::from(phases);
                for sigma in [u64::from(k), m - 1] {
                    for h in HASHINGS {
                        for r in RECYCLINGS {
                            let Ok(p) = RbfParams::new(bits, k, sigma, phases, h, r) else {
                                assert!(sigma < u64::from(k) || sigma >= m);
                                continue;
                            };
                            let what = format!("M={bits} k={k} σ={sigma} {phases} {h:?} {r:?}");
                            assert_metrics_sane(&p.metrics(Method::Auto).unwrap(), &what);
                            assert_metrics_sane(&p.metrics(Method::Fluid).unwrap(), &what);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn exact_solves_beyond_a_few_seconds_are_refused_before_starting() {
    // k²·σ = 10^10 took 57 s before EXACT_LIMIT was lowered to 2·10^9.
    let p = RbfParams::new(
        1_000_000_000,
        10,
        100_000_000,
        1,
        Hashing::Colliding,
        Recycling::NonRetaining,
    )
    .unwrap();
    let e = p.metrics(Method::Exact).unwrap_err();
    assert!(
        e.to_string().contains("sigma") && e.to_string().contains("auto"),
        "{e}"
    );
    // Auto answers with the fluid model instead.
    assert_eq!(p.metrics(Method::Auto).unwrap().method, "fluid");
    // An explicit exact design beyond DESIGN_EXACT_LIMIT, and an exact least-bits design
    // that would need one, are refused, naming the parameter.
    let exact = RbfRequirement::new(0.01, 1)
        .unwrap()
        .with_method(Method::Exact);
    let e = design(100_000_000, &exact).unwrap_err();
    assert!(e.to_string().contains("bits"), "{e}");
    let e = least_bits(10_000_000, &exact).unwrap_err();
    assert!(e.to_string().contains("messages"), "{e}");
    let two = RbfRequirement::new(0.01, 2)
        .unwrap()
        .with_method(Method::Exact);
    let e = design_window(1_000_000_000, &two).unwrap_err();
    assert!(e.to_string().contains("window"), "{e}");
}

#[test]
fn issue_10_n_bounded_saturation_gives_one_not_nan() {
    // M = 1000, k = 64, N = 10^9 gave f_a = ∞/∞ = NaN (and took 45 s; N is now capped at
    // 10^8). Once f_i = 1 the rest is summed in closed form.
    let x = RbfNParams::new(1000, 64, 100_000_000).unwrap().metrics();
    assert_eq!(x.fp_lower, 1.0);
    assert!(x.fp_oracle > 0.999 && x.fp_oracle <= 1.0 && x.fp_worst == 1.0);
    assert!(RbfNParams::new(1000, 64, 1_000_000_000).is_err());
    // And at 10^12 bits nothing underflows to NaN.
    let x = RbfNParams::new(1_000_000_000_000, 64, 1_000_000)
        .unwrap()
        .metrics();
    assert!(x.fp_oracle <= x.fp_lower && x.fp_lower <= x.fp_worst && x.fp_worst < 1e-100);
}

#[test]
fn issue_10_forgetting_refuses_what_it_cannot_hold() {
    // k = 1, σ = 10^9, horizon 1 passed the k·σ·horizon budget and asked for 16 GB.
    let p = RbfParams::new(
        4_000_000_000,
        1,
        1_000_000_000,
        1,
        Hashing::Colliding,
        Recycling::NonRetaining,
    )
    .unwrap();
    let e = forgetting::analyse(&p, 1).unwrap_err();
    assert!(e.to_string().contains("sigma"), "{e}");
}

#[test]
fn designs_at_1e12_bits_and_fp_1e15() {
    let req = RbfRequirement::new(1e-15, 1).unwrap();
    let d = design(1_000_000_000_000, &req).unwrap();
    assert!(
        d.metrics.fp_avg <= 1e-15 && d.metrics.method == "fluid",
        "{d:?}"
    );
    let d = least_bits(1_000_000_000_000, &req).unwrap();
    assert!(d.metrics.expected_messages >= 1e12 && d.metrics.fp_avg <= 1e-15);
    let two = RbfRequirement::new(1e-15, 2).unwrap();
    let d = design_window(1_000_000_000_000, &two).unwrap();
    assert!(d.metrics.fn_window.unwrap() >= 1_000_000_000_000 && d.metrics.fp_avg <= 1e-15);
    // M = 10^6 at 1e-15: the exact design took 8 s (and stopped at k = 32); Auto now
    // estimates the work first and uses the fluid model, with k up to 64.
    let t = std::time::Instant::now();
    let d = design(1_000_000, &req).unwrap();
    assert!(d.metrics.method == "fluid" && d.params.k() > 32, "{d:?}");
    assert!(d.metrics.fp_avg <= 1e-15);
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
    let (k, n) = worst_case_messages(1_000_000_000_000, 1e-15, 2).unwrap();
    assert!(k >= 40 && n > 1_000_000_000);
    // The Eq. (3) scan would need 10^12 terms: refused before it starts.
    assert!(lower_bound_messages(1_000_000_000_000, 1e-15).is_err());
}

#[test]
fn fluid_error_next_to_a_full_filter() {
    // σ = M − 1, k = 64: the fluid model's relative error is a few percent and falls
    // slowly with M (measured 3.0% at 10^3, 1.1% at 10^4; 0.6%, 0.4% at 10^5, 10^6);
    // at σ = 0.9M it is back to the usual ~1/M.
    let rel = |bits: u64, sigma: u64| {
        let p = RbfParams::new(
            bits,
            64,
            sigma,
            1,
            Hashing::Colliding,
            Recycling::NonRetaining,
        )
        .unwrap();
        let exact = p.metrics(Method::Exact).unwrap().fp_avg;
        p.metrics(Method::Fluid).unwrap().fp_avg / exact - 1.0
    };
    let (e3, e4) = (rel(1000, 999), rel(10_000, 9_999));
    assert!(
        e3 > 0.0 && e3 < 0.035 && e4 > 0.0 && e4 < 0.012 && e4 < e3,
        "{e3} {e4}"
    );
    assert!(rel(10_000, 9_000).abs() < 0.002);
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..=hi.ln()).prop_map(f64::exp)
}

fn variant() -> impl Strategy<Value = (Hashing, Recycling)> {
    (0usize..2, 0usize..2).prop_map(|(h, r)| (HASHINGS[h], RECYCLINGS[r]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_valid_rbf_is_sane(
        bits in log_uniform(2.0, 1e12),
        k in 1u32..=64,
        frac in prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0],
        phases in 1u8..=2,
        (h, r) in variant(),
    ) {
        let bits = (bits as u64).max(2) & !u64::from(phases == 2);
        let m = bits / u64::from(phases);
        prop_assume!(m > u64::from(k));
        // σ from k to M − 1, the ends included.
        let sigma = u64::from(k) + ((m - 1 - u64::from(k)) as f64 * frac) as u64;
        let p = RbfParams::new(bits, k, sigma, phases, h, r).unwrap();
        let what = format!("{p:?}");
        assert_metrics_sane(&p.metrics(Method::Fluid).unwrap(), &what);
        // Exact where it is quick.
        if f64::from(k).powi(2) * sigma as f64 <= 2e6 {
            assert_metrics_sane(&p.metrics(Method::Exact).unwrap(), &what);
        }
    }

    #[test]
    fn any_valid_design_meets_its_target(
        fp in log_uniform(1e-15, 0.5),
        bits in log_uniform(1e3, 1e12),
        phases in 1u8..=2,
    ) {
        let bits = (bits as u64) & !1;
        // Auto: exact up to 2·10^6 bits per filter (seconds), so keep the exact ones small.
        prop_assume!(bits <= 50_000 || bits / u64::from(phases) > DESIGN_EXACT_BITS);
        let req = RbfRequirement::new(fp, phases).unwrap();
        match design(bits, &req) {
            Ok(d) => {
                prop_assert!(d.metrics.fp_avg <= fp && d.metrics.fp_avg >= 0.0, "{d:?}");
                prop_assert!(d.metrics.expected_messages.is_finite());
            }
            Err(ModelError::Infeasible { .. }) => {}
            Err(e) => prop_assert!(false, "{e}"),
        }
        let (_, n) = worst_case_messages(bits, fp, phases).unwrap();
        prop_assert!(n <= bits);
    }

    #[test]
    fn invalid_rbf_parameters_are_rejected_not_computed(
        bits in prop_oneof![Just(0u64), Just(1), Just(u64::MAX), (1_000_000_000_000_001u64..=u64::MAX), any::<u64>()],
        k in prop_oneof![Just(0u32), Just(65), Just(u32::MAX), any::<u32>()],
        sigma in any::<u64>(),
        phases in prop_oneof![Just(0u8), Just(3), any::<u8>()],
        fp in nasty_f64(),
        n in prop_oneof![Just(0u64), Just(100_000_001), any::<u64>()],
    ) {
        let ok = |b: u64, kk: u32, s: u64, ph: u8| {
            RbfParams::BITS.contains(&b) && RbfParams::K.contains(&kk)
                && RbfParams::PHASES.contains(&ph) && !(ph == 2 && b % 2 == 1)
                && s >= u64::from(kk) && s < b / u64::from(ph)
        };
        for (h, r) in [(Hashing::Colliding, Recycling::NonRetaining), (Hashing::Distinct, Recycling::Retaining)] {
            let res = RbfParams::new(bits, k, sigma, phases, h, r);
            prop_assert_eq!(res.is_ok(), ok(bits, k, sigma, phases));
            if let Err(e) = res {
                prop_assert!(matches!(e, ModelError::InvalidParam { .. }), "{e}");
            }
        }
        let fp_ok = fp > 0.0 && fp < 1.0;
        prop_assert_eq!(RbfRequirement::new(fp, 1).is_ok(), (crate::error::check::FP_TARGET_MIN..1.0).contains(&fp));
        prop_assert_eq!(RbfRequirement::new(0.01, phases).is_ok(), RbfParams::PHASES.contains(&phases));
        prop_assert_eq!(worst_case_messages(bits, fp, 1).is_ok(), fp_ok && RbfParams::BITS.contains(&bits));
        if !fp_ok || !RbfParams::BITS.contains(&bits) {
            prop_assert!(lower_bound_messages(bits, fp).is_err());
        }
        let n_ok = RbfParams::BITS.contains(&bits) && RbfParams::K.contains(&k) && RbfNParams::N.contains(&n);
        prop_assert_eq!(RbfNParams::new(bits, k, n).is_ok(), n_ok);
        if !RbfParams::BITS.contains(&bits) {
            let req = RbfRequirement::new(0.01, 1).unwrap();
            prop_assert!(design(bits, &req).is_err());
        }
    }
}
