//! RBF model vs the reference filter (issue 4): at least 20 configurations per variant,
//! two phases, N-bounded lower bounds (Figure 5 [RBF]) and the pool stream.

use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
use bfopt_validation::experiments::rbf::{
    n_bounded, sigma_checks, simulate, RbfSimConfig, RbfStream,
};
use bfopt_validation::filters::rbf::RbfConfig;
use bfopt_validation::suite::{self, Level};

/// Family-wise 1% over all checks of a test (Bonferroni).
fn confidence(checks: usize) -> f64 {
    1.0 - 0.01 / checks as f64
}

const VARIANTS: [(Hashing, Recycling); 4] = [
    (Hashing::Colliding, Recycling::NonRetaining),
    (Hashing::Colliding, Recycling::Retaining),
    (Hashing::Distinct, Recycling::NonRetaining),
    (Hashing::Distinct, Recycling::Retaining),
];

/// 20 (k, σ) pairs at M = 1000: k = 1..5, σ from 30% to 85% of M.
fn grid() -> Vec<(u32, u64)> {
    let mut g = Vec::new();
    for k in 1..=5u32 {
        for sigma in [300u64, 500, 700, 850] {
            g.push((k, sigma));
        }
    }
    g
}

fn run_grid(phases: u8, variants: &[(Hashing, Recycling)], grid: &[(u32, u64)], seed: u64) {
    let n_checks = 2 * variants.len() * grid.len();
    let conf = confidence(n_checks);
    let mut failures = Vec::new();
    let mut case = 0;
    for &(hashing, recycling) in variants {
        for &(k, sigma) in grid {
            let p = RbfParams::new(
                1000 * u64::from(phases),
                k,
                sigma,
                phases,
                hashing,
                recycling,
            )
            .unwrap();
            let sim = RbfSimConfig {
                filter: RbfConfig::from_params(&p),
                stream: RbfStream::Distinct,
                epochs: 8,
                arrivals: 25_000,
                seed: seed + case,
                confidence: conf,
            };
            case += 1;
            for c in sigma_checks(&p, &sim).unwrap() {
                if !c.pass {
                    failures.push(c.to_string());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn one_phase_model_agrees_for_20_configurations_per_variant() {
    run_grid(1, &VARIANTS, &grid(), 100);
}

#[test]
fn two_phase_eq26_agrees_on_distinct_streams() {
    // Eq. (26) is exact for non-retaining filters on all-distinct streams: the frozen
    // state is independent of the active cycle. Retaining couples them only through the
    // retained message (a few bits): still within sampling error at M = 1000.
    let g: Vec<(u32, u64)> = [(2u32, 300u64), (3, 450), (4, 600), (6, 800), (1, 700)].to_vec();
    run_grid(2, &VARIANTS, &g, 900);
}

#[test]
fn figure_5_oracle_and_lower_bound_sit_below_the_measured_rate() {
    // Figure 5 [RBF]: f_o ≤ f_a ≤ measured (within or below the interval).
    let cases = [(4u32, 100u64), (4, 200), (6, 120), (3, 300), (8, 80)];
    let conf = confidence(cases.len());
    for (i, &(k, n)) in cases.iter().enumerate() {
        let (fo, fa, measured) = n_bounded(1000, k, n, 8, 50_000, 40 + i as u64, conf).unwrap();
        assert!(fo <= fa, "k={k} N={n}: f_o {fo} > f_a {fa}");
        assert!(
            fa <= measured.interval.hi,
            "k={k} N={n}: f_a {fa} above measured {measured:?}"
        );
    }
}

#[test]
fn count_instance_is_the_largest_and_pool_streams_keep_it() {
    // Section II-E [RBF]: count-instance ≥ count-each ≥ count-first, and count-instance
    // does not depend on the repeat pattern (one phase, pool of 1000 as in Section V-A).
    let p = RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::NonRetaining).unwrap();
    let model = p.metrics(Method::Exact).unwrap().fp_avg;
    let sim = RbfSimConfig {
        filter: RbfConfig::from_params(&p),
        stream: RbfStream::Pool { size: 1000 },
        epochs: 8,
        arrivals: 50_000,
        seed: 7,
        confidence: 0.99,
    };
    let r = simulate(&sim).unwrap();
    assert!(
        r.fp_instance.interval.contains(model),
        "{model} vs {:?}",
        r.fp_instance
    );
    let (inst, each, first) = (r.fp_instance.mean, r.fp_each.mean, r.fp_first.mean);
    assert!(
        first <= each && each <= inst && first < inst,
        "{inst} {each} {first}"
    );
}

#[test]
fn two_phase_pool_streams_fall_below_eq26() {
    // With a pool, messages found only in the frozen filter (repeats, not counted) still
    // go into the active one; measured rates fall below Eq. (26) (issue 4: 1-5%).
    // Measured (M = 2×1000, pool 1000, 20 × 100 000 arrivals): 3.4% (k=4, σ=800),
    // 6.1% (k=2, σ=500), 1.4% (k=6, σ=800), 1.6% (k=4, σ=600), 0.8% (k=3, σ=400).
    // Why (instrumented run, k=2, σ=500): over counted arrivals the mean ρ(active) is
    // 0.0989 (f_σ¹ = 0.0984) and the mean ρ(frozen) 0.2498 (Eqs. (24)-(25): 0.2498), so
    // both marginals are as modelled; the deficit is in the union. The copied messages put
    // the same bits in both filters, so "all k set in the active" and "all k set in the
    // frozen" are positively correlated and P(A ∪ F) = ρ_A + ρ_F − P(A ∩ F) falls below
    // 1 − (1 − ρ_A)(1 − ρ_F). Modelled by `rbf::repeats` (issue 19, the next test): at
    // k=2, σ=500 it gives 0.3071; `bfopt simulate rbf --bits 2000 --hashes 2
    // --recycle-bits 500 --phases 2 --pool 1000 --epochs 20 --arrivals 100000` measures
    // 0.3113 [0.3034, 0.3193] (seed 4) and 0.3083 [0.3031, 0.3135] (seed 11); new
    // messages per cycle 227.5, as 347.6 insertions × (1 − E[s_F]/P = 0.653) = 227.0.
    for (i, &(k, sigma)) in [(4u32, 800u64), (2, 500), (6, 800)].iter().enumerate() {
        let p = RbfParams::new(
            2000,
            k,
            sigma,
            2,
            Hashing::Colliding,
            Recycling::NonRetaining,
        )
        .unwrap();
        let model = p.metrics(Method::Exact).unwrap().fp_avg;
        let sim = RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::Pool { size: 1000 },
            epochs: 20,
            arrivals: 100_000,
            seed: 3 + i as u64,
            confidence: confidence(3),
        };
        let r = simulate(&sim).unwrap();
        assert!(
            r.fp_instance.interval.hi < model,
            "k={k} σ={sigma}: model {model}, measured {:?}",
            r.fp_instance
        );
        assert!(
            r.fp_instance.mean > 0.9 * model,
            "k={k} σ={sigma}: {model} {:?}",
            r.fp_instance
        );
    }
}

/// The pool-model configurations (bits per filter M, k, σ, hashing), all on a pool of
/// 1000 messages: Figure 4 [RBF] (M = 500, k = 3, σ = 50..450, the paper's sizes), the
/// five configurations whose gaps to Eq. (26) were measured (issue 19: 0.8-6.1%), the
/// same with distinct hashes, and k = 2..5 at σ = 300 and 700 of M = 1000.
fn pool_cases() -> Vec<(u64, u32, u64, Hashing)> {
    let mut cases: Vec<(u64, u32, u64, Hashing)> = (50..=450)
        .step_by(50)
        .map(|s| (500, 3, s, Hashing::Colliding))
        .collect();
    for hashing in [Hashing::Colliding, Hashing::Distinct] {
        for (k, sigma) in [(4u32, 800u64), (2, 500), (6, 800), (4, 600), (3, 400)] {
            cases.push((1000, k, sigma, hashing));
        }
    }
    for k in 2..=5u32 {
        for sigma in [300u64, 700] {
            cases.push((1000, k, sigma, Hashing::Colliding));
        }
    }
    cases
}

#[test]
fn issue_19_two_phase_pool_model_agrees_and_eq26_bounds_it() {
    // Issue 19 item 3: repeats found only in the frozen filter are copied into the active
    // one, so the two filters share bits and Eq. (26) over-predicts. The pool model
    // (`rbf::repeats`) must sit inside the simulation's interval (sampling error only,
    // Bonferroni over the cases), below Eq. (26), which must stay at or above the
    // interval's low end (the bound's direction).
    use bfopt_models::rbf::repeats::two_phase_pool;
    let cases = pool_cases();
    assert!(cases.len() >= 20);
    let conf = confidence(cases.len());
    let mut failures = Vec::new();
    for (i, &(m, k, sigma, hashing)) in cases.iter().enumerate() {
        let p = RbfParams::new(2 * m, k, sigma, 2, hashing, Recycling::NonRetaining).unwrap();
        let model = two_phase_pool(&p, 1000).unwrap();
        let sim = RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::Pool { size: 1000 },
            epochs: 12,
            arrivals: 60_000,
            seed: 1900 + i as u64,
            confidence: conf,
        };
        let r = simulate(&sim).unwrap().fp_instance;
        println!(
            "M={m} k={k} sigma={sigma} {hashing:?}: pool model {:.5}, Eq. (26) {:.5}, \
             measured {:.5} [{:.5}, {:.5}]",
            model.fp_avg, model.fp_eq26, r.mean, r.interval.lo, r.interval.hi
        );
        if !r.interval.contains(model.fp_avg)
            || model.fp_avg >= model.fp_eq26
            || model.fp_eq26 < r.interval.lo
        {
            failures.push(format!(
                "M={m} k={k} σ={sigma} {hashing:?}: {model:?} vs {r:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn rbf_suite_passes_at_quick_size() {
    let checks = suite::run(Some("rbf"), Level::Quick, 1).unwrap();
    assert_eq!(checks.len(), 30);
    crate::assert_all_pass(&checks);
}

#[test]
fn false_negatives_follow_the_forgetting_model_and_the_two_phase_window_holds() {
    use bfopt_models::rbf::forgetting::analyse;
    use bfopt_validation::experiments::rbf::forgetting;
    let lags = [1u64, 30, 66, 67, 68, 100, 200, 400];
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
        let model = analyse(&p, 400).unwrap();
        let sim = RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::Distinct,
            epochs: 12,
            arrivals: 20_000,
            seed: 77,
            confidence: confidence(2 * lags.len()),
        };
        let measured = forgetting(&sim, &lags).unwrap();
        for (&j, m) in lags.iter().zip(&measured) {
            let predicted = model.reported_new[j as usize - 1];
            if let Some(w) = p.fn_window() {
                if j < w {
                    assert_eq!(m.mean, 0.0, "two phases, lag {j} < window {w}: {m:?}");
                }
            }
            // One phase: exact. Two phases: the frozen filter enters at its mean FP (an
            // independence approximation); it still agrees within sampling error here
            // (e.g. lag 100: 0.0597 vs 0.0603 [0.0578, 0.0627]; lag 200: 0.842 vs 0.844).
            assert!(
                predicted >= m.interval.lo - 1e-12 && predicted <= m.interval.hi + 1e-12,
                "{phases} phase(s), lag {j}: predicted {predicted}, measured {m:?}"
            );
        }
    }
}

#[test]
fn issue_19_two_phase_window_repeats_against_eq26() {
    // Issue 19 item 3. The stream of `recommend --duplicates`: each arrival repeats one of the last W
    // (W = the filter's guaranteed window) with probability d. Unlike a pool, the copies
    // come early in a cycle (the window's old part is the frozen filter's), so new
    // arrivals meet a fuller active filter: Eq. (26) is not an upper bound here.
    let mut rows = Vec::new();
    let cases: Vec<(u32, u64, f64)> = [(4u32, 600u64), (3, 400), (2, 500), (6, 800)]
        .iter()
        .flat_map(|&(k, s)| [0.2, 0.5, 0.8].map(move |d| (k, s, d)))
        .collect();
    let conf = confidence(cases.len());
    for (i, &(k, sigma, d)) in cases.iter().enumerate() {
        let p = RbfParams::new(
            2000,
            k,
            sigma,
            2,
            Hashing::Colliding,
            Recycling::NonRetaining,
        )
        .unwrap();
        let eq26 = p.metrics(Method::Exact).unwrap().fp_avg;
        let window = p.fn_window().unwrap();
        let sim = RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::WindowRepeats {
                duplicate_rate: d,
                window,
            },
            epochs: 12,
            arrivals: (60_000.0 / (1.0 - d)) as u64,
            seed: 1950 + i as u64,
            confidence: conf,
        };
        let r = simulate(&sim).unwrap().fp_instance;
        println!(
            "k={k} sigma={sigma} W={window} d={d}: Eq. (26) {eq26:.5}, measured {:.5} \
             [{:.5}, {:.5}], Eq. (26)/measured - 1 = {:+.2}%",
            r.mean,
            r.interval.lo,
            r.interval.hi,
            100.0 * (eq26 / r.mean - 1.0)
        );
        rows.push((eq26, r));
    }
    // Measured (this test, 12 × 60 000/(1 − d) arrivals): Eq. (26) from 2.1% below to
    // 0.5% above the mean (the planner's note quotes this range). Not an upper bound:
    // at some configurations it lies below the whole interval.
    for (eq26, r) in &rows {
        assert!((eq26 / r.mean - 1.0).abs() < 0.03, "{eq26} vs {r:?}");
    }
    assert!(rows.iter().any(|(eq26, r)| *eq26 < r.interval.lo));
}
