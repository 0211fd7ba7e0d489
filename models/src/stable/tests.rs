use super::*;
use crate::markov;
use crate::ModelError;
use approx::assert_relative_eq;
use proptest::prelude::*;

fn lin50() -> ImportanceDist {
    ImportanceDist::linear(1, 50).unwrap()
}

#[test]
fn closed_form_equals_chain() {
    for &(m, k, max, p) in &[
        (512u64, 4u32, 5u32, 5u64),
        (1000, 2, 1, 5),
        (100, 7, 3, 1),
        (1 << 20, 6, 7, 40),
        (64, 1, 255, 63),
    ] {
        let s = SbfParams::new(m, k, max, p).unwrap();
        let chain = s.zero_fraction_chain().unwrap();
        assert_relative_eq!(s.zero_fraction(), chain, max_relative = 1e-12);
        // The dense nalgebra solve agrees too.
        let dense = markov::stationary_dense(&s.transition_matrix()).unwrap();
        assert_relative_eq!(dense[0], chain, max_relative = 1e-9);
    }
}

#[test]
fn tiny_stationary_probabilities_keep_relative_accuracy() {
    // Max = 255 with rare decrements: π0 ≈ 1e-200, far below 1e-16.
    let s = SbfParams::new(1 << 20, 8, 255, 1).unwrap();
    let z = s.zero_fraction();
    assert!(z < 1e-100 && z > 0.0, "{z}");
    assert_relative_eq!(s.zero_fraction_chain().unwrap(), z, max_relative = 1e-10);
}

#[test]
fn figure7_sbf_stable_point() {
    // n = 512, k = 4, p = 5, M = 5 (Section 6.5 [SBF]): 1/(1 + 1/(5·(1/4 − 1/512)))
    // = 0.55371..., to the 5th power = 0.05232...: 26.79 zero cells.
    let s = SbfParams::new(512, 4, 5, 5).unwrap();
    let base: f64 = 1.0 / (1.0 + 1.0 / (5.0 * (0.25 - 1.0 / 512.0)));
    assert_relative_eq!(s.zero_fraction(), base.powi(5), max_relative = 1e-14);
}

#[test]
fn convergence_matches_series() {
    // Pr(0 after n) = (1 − a)^n + Σ_{j<n} a(1 − a)^j Pr(Bin(j, q) ≥ Max).
    use statrs::distribution::{Binomial, DiscreteCDF};
    let s = SbfParams::new(200, 3, 3, 4).unwrap();
    let (a, q) = (3.0 / 200.0, 4.0 / 200.0);
    for n in [0u64, 1, 5, 50, 400] {
        let mut series = (1.0f64 - a).powi(n as i32);
        for j in 0..n {
            let tail = if j == 0 {
                0.0
            } else {
                Binomial::new(q, j).unwrap().sf(2)
            };
            series += a * (1.0 - a).powi(j as i32) * tail;
        }
        assert_relative_eq!(s.zero_fraction_after(n), series, max_relative = 1e-10);
    }
    assert_eq!(s.zero_fraction_after(0), 1.0);
    assert_relative_eq!(
        s.zero_fraction_after(1 << 30),
        s.zero_fraction(),
        max_relative = 1e-9
    );
}

#[test]
fn fn_rises_with_age_to_its_limit() {
    let s = SbfParams::new(1000, 3, 3, 10).unwrap();
    assert_eq!(s.fn_at_age(0), 0.0);
    let mut prev = 0.0;
    for age in [1u64, 10, 100, 1000, 10_000] {
        let f = s.fn_at_age(age);
        assert!(f >= prev, "age {age}: {f} < {prev}");
        prev = f;
    }
    let limit = 1.0 - (1.0 - s.zero_fraction()).powi(3);
    assert_relative_eq!(s.fn_at_age(1 << 24), limit, max_relative = 1e-9);
}

#[test]
fn half_life_is_the_first_age_at_one_half() {
    let s = SbfParams::new(1000, 3, 3, 10).unwrap();
    let h = s.fn_half_life().unwrap();
    assert!(s.fn_at_age(h) >= 0.5);
    assert!(s.fn_at_age(h - 1) < 0.5);
    // Few decrements: the limit FN stays below 1/2, so no half-life.
    let slow = SbfParams::new(1000, 3, 3, 1).unwrap();
    assert!(1.0 - (1.0 - slow.zero_fraction()).powi(3) < 0.5);
    assert_eq!(slow.fn_half_life(), None);
}

/// Issue 8: a widely used Go library truncates P and misses its own FP target.
#[test]
fn issue_8_integer_p_meets_the_target_truncation_misses() {
    // The Go library BoomFilters (NewDefaultStableBloomFilter: K = ⌈log2(1/fp)⌉/2 = 2,
    // Max = 1) truncates the real P = 4.33 to 4 and delivers FP 0.1114 for a 0.1 target.
    let req = SbfRequirement {
        m: 1000,
        k: 2,
        max: 1,
        fp: 0.1,
    };
    let d = design_decrements(&req).unwrap();
    assert_relative_eq!(d.p_real, 4.3331, max_relative = 1e-4);
    let truncated = SbfParams::new(1000, 2, 1, d.p_real as u64).unwrap();
    assert_eq!(truncated.p(), 4);
    assert!((truncated.fp() - 0.1114).abs() < 1e-4, "{}", truncated.fp());
    assert_eq!(d.params.p(), 5);
    assert!(d.fp <= 0.1);
    assert_relative_eq!(d.fp, 0.0819, max_relative = 1e-3);
    // Infeasible: K = 1 with Max = 15 cannot reach 1e-6.
    let e = design_decrements(&SbfRequirement {
        m: 100,
        k: 1,
        max: 15,
        fp: 1e-6,
    });
    assert!(matches!(e, Err(ModelError::Infeasible { .. })));
}

#[test]
fn invalid_parameters_are_rejected() {
    assert!(SbfParams::new(1000, 3, 0, 5).is_err());
    let e = SbfParams::new(1000, 3, 3, 1000).unwrap_err();
    assert_eq!(e.to_string(), "invalid p = 1000 (allowed: 1 <= p <= 999)");
    assert!(SbfParams::new(4, 4, 3, 1).is_err());
    assert!(Policy::parse("ibf7").is_err());
    assert_eq!(Policy::parse("IBF3").unwrap(), Policy::Ibf3);
    for bad in [
        "linear:0:50",
        "linear:5:1",
        "exponential:1:50",
        "exp:1:2:3",
        "hist:",
        "hist:1=-1",
        "hist:0=1",
    ] {
        assert!(ImportanceDist::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn importance_specs() {
    let l = ImportanceDist::parse("linear:1:50").unwrap();
    assert_relative_eq!(l.mean(), 25.5);
    let e = ImportanceDist::parse("exponential:1:50:0.1").unwrap();
    assert!(e.pmf(1) > e.pmf(2) && e.mean() < 25.5);
    assert_relative_eq!(
        e.iter().map(|x| x.1).sum::<f64>(),
        1.0,
        max_relative = 1e-14
    );
    let h = ImportanceDist::parse("hist:1=3,4=1").unwrap();
    assert_eq!((h.lo(), h.hi()), (1, 4));
    assert_relative_eq!(h.pmf(1), 0.75);
    assert_eq!(h.pmf(2), 0.0);
    assert_eq!(h.quantile(0.8), 4);
    assert_eq!(h.quantile(0.1), 1);
}

#[test]
fn sbf_policy_reproduces_the_sbf() {
    let params = IbfParams::new(Policy::Sbf, 512, 4, 5, 5, lin50()).unwrap();
    let sol = solve(&params).unwrap();
    let s = SbfParams::new(512, 4, 5, 5).unwrap();
    assert_relative_eq!(sol.zero_fraction(), s.zero_fraction(), max_relative = 1e-12);
    assert_relative_eq!(sol.fp(), s.fp(), max_relative = 1e-12);
    let fns = sol.fn_by_importance(300);
    for f in &fns {
        assert_relative_eq!(*f, s.fn_at_age(300), max_relative = 1e-10);
    }
    assert_eq!(sol.method(), StableMethod::ExactChain);
}

#[test]
fn ibf1_importance_insert_lowers_fn_of_important_items() {
    let params = IbfParams::new(Policy::Ibf1, 512, 4, 5, 5, lin50()).unwrap();
    let sol = solve(&params).unwrap();
    let fns = sol.fn_by_importance(200);
    // Values 1..5 distinct, then capped: FN falls over 1..5 and is flat after.
    for j in 0..4 {
        assert!(fns[j] > fns[j + 1], "{fns:?}");
    }
    assert_relative_eq!(fns[4], fns[49], max_relative = 1e-12);
    // Lower cell values on average than the SBF: more zeros.
    let sbf = SbfParams::new(512, 4, 5, 5).unwrap();
    assert!(sol.zero_fraction() > sbf.zero_fraction());
}

#[test]
fn global_policies_solve_and_deliver_p_decrements() {
    for policy in [
        Policy::Ibf2,
        Policy::Ibf3,
        Policy::Ibf4,
        Policy::Ibf5,
        Policy::Ibf6,
    ] {
        let params = IbfParams::new(policy, 512, 4, 5, 5, lin50()).unwrap();
        let sol = solve(&params).unwrap();
        let z = sol.zero_fraction();
        assert!(z > 0.0 && z < 1.0, "{policy}: {z}");
        let dist: f64 = sol.value_distribution().iter().sum();
        assert_relative_eq!(dist, 1.0, max_relative = 1e-12);
        match sol.method() {
            StableMethod::ExactChain => panic!("{policy} is global"),
            StableMethod::MeanFieldWeight { mean_weight, .. } => assert!(mean_weight > 0.0),
            StableMethod::MeanFieldRank {
                iterations,
                residual,
            } => {
                assert!(iterations > 0 && residual < 0.05)
            }
            StableMethod::ThresholdLimit { saturated_rate, .. } => {
                assert!((0.0..=1.0).contains(&saturated_rate))
            }
        }
    }
}

#[test]
fn importance_aware_deletion_protects_important_items() {
    for policy in [Policy::Ibf3, Policy::Ibf4, Policy::Ibf5, Policy::Ibf2] {
        let params = IbfParams::new(policy, 512, 4, 5, 5, lin50()).unwrap();
        let fns = solve(&params).unwrap().fn_by_importance(300);
        assert!(fns[0] > fns[49], "{policy}: {} vs {}", fns[0], fns[49]);
    }
}

#[test]
fn metrics_are_consistent() {
    let params = IbfParams::new(Policy::Ibf3, 1024, 4, 3, 4, lin50()).unwrap();
    let m = solve(&params).unwrap().metrics(500, 0.7).unwrap();
    assert_eq!(m.fn_by_importance.len(), 50);
    assert_relative_eq!(m.weighted_fp, m.fp);
    assert!(m.precision > 0.0 && m.precision <= 1.0);
    assert!(m.recall > 0.0 && m.recall <= 1.0);
    assert_relative_eq!(m.zero_cells, 1024.0 * m.zero_fraction);
    assert_eq!(params.bits_per_cell(), 2 + 8);
    // Crossover: first importance where IBF FN < SBF FN.
    let sbf = solve(&params.with_policy(Policy::Sbf))
        .unwrap()
        .fn_by_importance(500);
    if let Some(c) = m.crossover {
        let j = (c - 1) as usize;
        assert!(m.fn_by_importance[j] < sbf[j]);
        assert!((0..j).all(|i| m.fn_by_importance[i] >= sbf[i]));
    }
}

#[test]
fn weighted_metrics_by_hand() {
    // Two importances 1 and 3, equally likely; FN 0.5 and 0.1; FP 0.2; r = 0.5.
    let d = ImportanceDist::histogram(&[(1, 1.0), (3, 1.0)]).unwrap();
    let w = weighted(&d, 0.2, &[0.5, 0.0, 0.1], 0.5);
    // mean importance 2; Σ w i FN = 0.5·0.5 + 0.5·3·0.1 = 0.4.
    assert_relative_eq!(w.weighted_fn, 0.2, max_relative = 1e-14);
    let (wfp, wfn, wtp) = (0.5 * 2.0 * 0.2, 0.5 * 0.4, 0.5 * 1.6);
    assert_relative_eq!(w.precision, wtp / (wtp + wfp), max_relative = 1e-14);
    assert_relative_eq!(w.recall, wtp / (wtp + wfn), max_relative = 1e-14);
}

#[test]
fn optimizer_picks_the_cheapest_grid_point() {
    let req = IbfRequirement {
        bits: 2048,
        importance: ImportanceDist::linear(1, 8).unwrap(),
        cost_fp: Cost::parse("cost_fp", "1").unwrap(),
        cost_fn: Cost::parse("cost_fn", "0.5*imp").unwrap(),
        age: 200,
        member_share: 0.5,
        policies: vec![Policy::Sbf, Policy::Ibf1, Policy::Ibf6],
    };
    let d = design(&req).unwrap();
    assert!(d.params.memory_bits() <= 2048);
    assert!(d.evaluated > 100);
    assert_relative_eq!(d.cost, req.cost(&d.metrics), max_relative = 1e-12);
    // No single other design on the grid is cheaper (spot checks).
    for (policy, max, k, p) in [(Policy::Sbf, 3, 4, 4), (Policy::Ibf1, 7, 2, 8)] {
        let probe = IbfParams::new(policy, 2, 1, max, 1, req.importance.clone()).unwrap();
        let m = 2048 / u64::from(probe.bits_per_cell());
        let params = IbfParams::new(policy, m, k, max, p, req.importance.clone()).unwrap();
        let c = req.cost(&solve(&params).unwrap().metrics(200, 0.5).unwrap());
        assert!(d.cost <= c + 1e-15, "{policy}: {c} < {}", d.cost);
    }
    assert_eq!(Cost::parse("c", "1+2*imp").unwrap().at(3), 7.0);
    assert!(Cost::parse("c", "-1").is_err());
}

/// MinImp designs are screened by the threshold limit and the best re-solved exactly:
/// the reported cost is the exact model's, and at this small budget (where the rank map
/// is fast) the screened search finds the exhaustive optimum.
#[test]
fn minimp_screening_reports_exact_costs_and_finds_the_optimum() {
    let req = IbfRequirement {
        bits: 384,
        importance: ImportanceDist::linear(1, 8).unwrap(),
        cost_fp: Cost::parse("cost_fp", "3").unwrap(),
        cost_fn: Cost::parse("cost_fn", "0.5*imp").unwrap(),
        age: 100,
        member_share: 0.5,
        policies: vec![Policy::Ibf4],
    };
    let d = design(&req).unwrap();
    assert_eq!(d.params.policy(), Policy::Ibf4);
    let exact = solve(&d.params).unwrap();
    assert!(!matches!(
        exact.method(),
        StableMethod::ThresholdLimit { .. }
    ));
    assert_relative_eq!(d.cost, req.cost(&d.metrics), max_relative = 1e-12);
    // Exhaustive over the grid with the exact model.
    let mut best = f64::INFINITY;
    for max in IbfRequirement::MAX_GRID {
        let probe = IbfParams::new(Policy::Ibf4, 2, 1, max, 1, req.importance.clone()).unwrap();
        let m = req.bits / u64::from(probe.bits_per_cell());
        for k in IbfRequirement::K_GRID {
            for p in IbfRequirement::P_GRID {
                let Ok(params) = IbfParams::new(Policy::Ibf4, m, k, max, p, req.importance.clone())
                else {
                    continue;
                };
                let Ok(sol) = solve(&params) else { continue };
                best = best.min(req.cost_of(sol.fp(), &sol.fn_by_importance(req.age)));
            }
        }
    }
    assert_relative_eq!(d.cost, best, max_relative = 1e-12);
}

/// Issue 18: the optimizer makes the FN pass only of designs whose lower bounds do not
/// exceed the best cost found (`design::bound_order`, the no-set bound then the
/// coarse-counter one); it finds what making every pass finds, the first cheapest design
/// in grid order, for the Probabilistic-delete-p policies and the SBF, with the FP or the
/// FN cost dominant, and where the best designs have many false negatives (FP dear,
/// few member queries: the coarse bound's case).
#[test]
fn issue_18_bounded_search_is_the_exhaustive_search() {
    for (cost_fp, cost_fn, member_share) in [
        ("1", "0.5*imp", 0.5),
        ("1", "40*imp", 0.5),
        ("5", "1*imp", 0.2),
    ] {
        let req = IbfRequirement {
            bits: 2048,
            importance: ImportanceDist::linear(1, 8).unwrap(),
            cost_fp: Cost::parse("cost_fp", cost_fp).unwrap(),
            cost_fn: Cost::parse("cost_fn", cost_fn).unwrap(),
            age: 300,
            member_share,
            policies: vec![Policy::Ibf3, Policy::Sbf, Policy::Ibf5],
        };
        let d = design(&req).unwrap();
        let mut best: Option<(f64, IbfParams)> = None;
        for &policy in &req.policies {
            for params in grid_of(&req, policy) {
                let Ok(sol) = solve(&params) else { continue };
                let cost = req.cost_of(sol.fp(), &sol.fn_by_importance(req.age));
                if best.as_ref().is_none_or(|b| cost < b.0) {
                    best = Some((cost, params));
                }
            }
        }
        let (cost, params) = best.unwrap();
        assert_eq!(d.params, params, "{cost_fp}, {cost_fn}, {member_share}");
        assert_eq!(d.cost, cost, "{cost_fp}, {cost_fn}, {member_share}");
    }
}

/// The valid designs of `policy` on the optimizer's grid, in its order (`Max`, then `K`,
/// then `P`; `m` the most cells the budget holds).
fn grid_of(req: &IbfRequirement, policy: Policy) -> Vec<IbfParams> {
    let mut out = Vec::new();
    for max in IbfRequirement::MAX_GRID {
        let probe = IbfParams::new(policy, 2, 1, max, 1, req.importance.clone()).unwrap();
        let m = req.bits / u64::from(probe.bits_per_cell());
        for k in IbfRequirement::K_GRID {
            for p in IbfRequirement::P_GRID {
                out.extend(IbfParams::new(policy, m, k, max, p, req.importance.clone()));
            }
        }
    }
    out
}

/// Issue 18: with MinImp policies the bounded search still picks what the plain search
/// does: every grid design's cost (MinImp by its threshold limit), the
/// [`design::SCREEN_KEEP`] cheapest of each MinImp policy re-solved exactly, and the
/// cheapest of those and the exact designs, ties to the grid's exact designs first, then
/// the re-solved ones in order. And it reports one progress step per grid point.
#[test]
fn issue_18_bounded_search_with_minimp_is_the_plain_search() {
    use std::sync::atomic::{AtomicU64, Ordering};
    // An SBF wins the first two; a MinImp design the third.
    let all = vec![Policy::Ibf2, Policy::Sbf, Policy::Ibf4];
    for (cost_fp, cost_fn, member_share, policies) in [
        ("1", "2*imp", 0.7, all.clone()),
        ("5", "1*imp", 0.2, all),
        ("1", "2*imp", 0.7, vec![Policy::Ibf4, Policy::Ibf2]),
    ] {
        let req = IbfRequirement {
            bits: 3000,
            importance: ImportanceDist::exponential(1, 50, 0.1).unwrap(),
            cost_fp: Cost::parse("cost_fp", cost_fp).unwrap(),
            cost_fn: Cost::parse("cost_fn", cost_fn).unwrap(),
            age: 300,
            member_share,
            policies,
        };
        let steps = AtomicU64::new(0);
        let d = design_observed(&req, || {
            steps.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(steps.into_inner(), grid_size(&req));
        let cost_of = |sol: &IbfSolution| req.cost_of(sol.fp(), &sol.fn_by_importance(req.age));
        let mut exact: Vec<(f64, IbfParams)> = Vec::new();
        let mut kept: Vec<IbfParams> = Vec::new();
        for &policy in &req.policies {
            let minimp = policy.delete() == policy::Delete::MinImp;
            let mut screened: Vec<(f64, IbfParams)> = Vec::new();
            for params in grid_of(&req, policy) {
                let sol = if minimp {
                    ibf::solve_screen(&params)
                } else {
                    solve(&params)
                };
                let Ok(sol) = sol else { continue };
                let row = (cost_of(&sol), params);
                if minimp {
                    screened.push(row);
                } else {
                    exact.push(row);
                }
            }
            screened.sort_by(|a, b| a.0.total_cmp(&b.0));
            kept.extend(screened.into_iter().take(design::SCREEN_KEEP).map(|r| r.1));
        }
        let minimp = req
            .policies
            .iter()
            .filter(|p| p.delete() == policy::Delete::MinImp);
        assert_eq!(kept.len(), minimp.count() * design::SCREEN_KEEP);
        for params in kept {
            if let Ok(sol) = solve(&params) {
                exact.push((cost_of(&sol), params));
            }
        }
        let (cost, params) = exact
            .into_iter()
            .reduce(|best, c| if c.0 < best.0 { c } else { best })
            .unwrap();
        assert_eq!(d.params, params, "{cost_fp}, {cost_fn}");
        assert_eq!(d.cost, cost, "{cost_fp}, {cost_fn}");
        let sbf_wins = d.params.policy() == Policy::Sbf;
        assert_eq!(sbf_wins, req.policies.contains(&Policy::Sbf));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn sbf_chain_rows_sum_to_one_and_pi_is_a_distribution(
        m in 4u64..5000, k in 1u32..8, max in 1u32..16, pf in 0.0f64..1.0,
    ) {
        prop_assume!(u64::from(k) < m);
        let p = 1 + ((m - 2) as f64 * pf) as u64;
        let s = SbfParams::new(m, k, max, p).unwrap();
        for row in s.transition_matrix().row_iter() {
            prop_assert!((row.sum() - 1.0).abs() < 1e-12);
        }
        let pi = s.stationary().unwrap();
        prop_assert!((pi.sum() - 1.0).abs() < 1e-12);
        prop_assert!(pi.iter().all(|&x| (0.0..=1.0).contains(&x)));
        prop_assert!((pi[0] / s.zero_fraction() - 1.0).abs() < 1e-9);
        let fp = s.fp();
        prop_assert!((0.0..=1.0).contains(&fp));
    }

    #[test]
    fn fp_falls_as_p_grows(m in 100u64..10_000, k in 1u32..8, max in 1u32..8, p in 1u64..50) {
        let a = SbfParams::new(m, k, max, p).unwrap();
        let b = SbfParams::new(m, k, max, p + 1).unwrap();
        prop_assert!(b.fp() <= a.fp());
        prop_assert!(b.zero_fraction() >= a.zero_fraction());
    }

    #[test]
    fn design_meets_its_target(m in 50u64..100_000, k in 1u32..6, max in 1u32..8, fp in 0.001f64..0.5) {
        let req = SbfRequirement { m, k, max, fp };
        match design_decrements(&req) {
            Ok(d) => {
                prop_assert!(d.fp <= fp);
                if d.params.p() > 1 {
                    let less = SbfParams::new(m, k, max, d.params.p() - 1).unwrap();
                    prop_assert!(less.fp() > fp);
                }
            }
            Err(e) => {
                let infeasible = matches!(e, ModelError::Infeasible { .. });
                prop_assert!(infeasible, "{}", e);
            }
        }
    }

    #[test]
    fn constructors_never_panic(m in any::<u64>(), k in any::<u32>(), max in any::<u32>(), p in any::<u64>(), x in crate::strategies::nasty_f64()) {
        let _ = SbfParams::new(m, k, max, p);
        let _ = ImportanceDist::exponential(1, 10, x);
        let _ = design_decrements(&SbfRequirement { m: m.min(1 << 20), k: k.min(64), max: max.min(255), fp: x });
    }

    #[test]
    fn ibf_stationary_is_a_distribution(policy in 0usize..7, max in 1u32..6, k in 1u32..5, p in 1u64..8) {
        let params = IbfParams::new(Policy::ALL[policy], 256, k, max, p, ImportanceDist::linear(1, 10).unwrap())
            .unwrap()
            .with_counter_bits(5)
            .unwrap();
        let sol = solve(&params).unwrap();
        let dist = sol.value_distribution();
        prop_assert!((dist.iter().sum::<f64>() - 1.0).abs() < 1e-10);
        prop_assert!(dist.iter().all(|&x| (-1e-15..=1.0 + 1e-12).contains(&x)));
        for f in sol.fn_by_importance(50) {
            prop_assert!((0.0..=1.0).contains(&f));
        }
    }
}

#[test]
fn slot_share_matches_direct_sum() {
    use statrs::distribution::{Discrete, Poisson};
    for &(s, lambda) in &[(1usize, 0.3), (5, 4.0), (3, 40.0), (7, 2.5)] {
        let pois = Poisson::new(lambda).unwrap();
        let direct: f64 = (0..400u64)
            .map(|n| pois.pmf(n) * (s as f64 / (n + 1) as f64).min(1.0))
            .sum();
        assert_relative_eq!(
            minimp::share_of_slots(s, lambda),
            direct,
            max_relative = 1e-12
        );
    }
    assert_relative_eq!(
        minimp::share_of_slots(2, 5000.0),
        2.0 / 5000.0,
        max_relative = 1e-3
    );
}

#[test]
fn scaled_importance_mapping_makes_max_steps() {
    let p = IbfParams::new(Policy::Ibf1, 512, 4, 4, 5, lin50())
        .unwrap()
        .with_imp_mapping(ImpMapping::Scale);
    // ⌈i·4/50⌉: 1..12 → 1, 13..25 → 2, 26..37 → 3, 38..50 → 4.
    let v: Vec<u32> = [1, 12, 13, 25, 26, 37, 38, 50]
        .iter()
        .map(|&i| p.insert_value(i))
        .collect();
    assert_eq!(v, vec![1, 1, 2, 2, 3, 3, 4, 4]);
    let fns = solve(&p).unwrap().fn_by_importance(300);
    assert_relative_eq!(fns[0], fns[11], max_relative = 1e-12);
    assert!(fns[11] > fns[12] && fns[24] > fns[25] && fns[36] > fns[37]);
    // Lower cell values than capping: more zeros, lower FP.
    let cap = solve(&p.clone().with_imp_mapping(ImpMapping::Cap)).unwrap();
    assert!(solve(&p).unwrap().fp() < cap.fp());
}

#[test]
fn weighted_fn_age_is_the_first_age_reaching_the_rate() {
    for policy in [Policy::Ibf1, Policy::Ibf3, Policy::Ibf6] {
        let params = IbfParams::new(policy, 300, 3, 3, 4, ImportanceDist::linear(1, 10).unwrap())
            .unwrap()
            .with_counter_bits(4)
            .unwrap();
        let sol = solve(&params).unwrap();
        let rate = 0.1;
        let a = sol.weighted_fn_age(rate).unwrap();
        let w = |age: u64| {
            weighted(
                params.importance(),
                sol.fp(),
                &sol.fn_by_importance(age),
                1.0,
            )
            .weighted_fn
        };
        assert!(w(a) >= rate - 1e-12, "{policy}: {} at {a}", w(a));
        assert!(w(a - 1) < rate, "{policy}: {} at {}", w(a - 1), a - 1);
        // A rate above the limit is never reached.
        assert_eq!(sol.weighted_fn_age(0.999_999), None, "{policy}");
    }
}

/// Issue 10: numerical extremes of the stable family — Max = 255, m up to 2^40 (about
/// 1.1e12), k = 64, fp down to 1e-15 — give probabilities, not NaN, panics or hangs.
#[test]
fn issue_10_extremes_give_probabilities() {
    let s = SbfParams::new(1 << 40, 64, 255, 1).unwrap();
    for x in [
        s.zero_fraction(),
        s.fp(),
        s.fn_at_age(1 << 40),
        s.fn_at_age(u64::MAX),
    ] {
        assert!((0.0..=1.0).contains(&x), "{x}");
    }
    assert!(s.zero_fraction_chain().unwrap() >= 0.0);
    let d = design_decrements(&SbfRequirement {
        m: 1 << 40,
        k: 64,
        max: 255,
        fp: 1e-15,
    });
    match d {
        Ok(d) => assert!(d.fp <= 1e-15),
        Err(e) => assert!(matches!(e, ModelError::Infeasible { .. }), "{e}"),
    }
    let d = design_decrements(&SbfRequirement {
        m: 1 << 40,
        k: 30,
        max: 1,
        fp: 1e-15,
    })
    .unwrap();
    assert!(d.fp <= 1e-15 && d.p_real.is_finite(), "{d:?}");
    // Untracked IBF at the largest size: the FN at age m uses dense powering.
    let ibf1 = IbfParams::new(Policy::Ibf1, 1 << 40, 64, 255, 1 << 30, lin50()).unwrap();
    let m = solve(&ibf1).unwrap().metrics(1 << 40, 0.5).unwrap();
    assert!(m.fn_by_importance.iter().all(|f| (0.0..=1.0).contains(f)));
    assert!((0.0..=1.0).contains(&m.fp) && (0.0..=1.0).contains(&m.weighted_fn));
    // A tracked chain of a million states: an FN pass over 2^40 insertions is refused
    // up front (it would take hours), naming the age.
    let big = IbfParams::new(Policy::Ibf3, 1 << 40, 4, 255, 1 << 30, lin50())
        .unwrap()
        .with_counter_bits(12)
        .unwrap();
    let sol = solve(&big).unwrap();
    let e = sol.metrics(1 << 40, 0.5).unwrap_err();
    assert!(e.to_string().contains("age"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Issue 10: over the whole valid SBF space every output is a probability.
    #[test]
    fn issue_10_sbf_valid_space(
        m_exp in 1u32..=40, k in 1u32..=64, max in prop_oneof![1u32..=16, Just(255u32)],
        pf in 0.0f64..1.0, age_exp in 0u32..64,
    ) {
        let m = 1u64 << m_exp;
        prop_assume!(u64::from(k) < m);
        let p = 1 + ((m - 2) as f64 * pf) as u64;
        let s = SbfParams::new(m, k, max, p).unwrap();
        let age = if age_exp == 63 { u64::MAX } else { 1u64 << age_exp };
        for x in [s.zero_fraction(), s.fp(), s.fn_at_age(age), s.zero_fraction_after(age)] {
            prop_assert!((0.0..=1.0).contains(&x), "{x}");
        }
        let chain = s.zero_fraction_chain().unwrap();
        prop_assert!((chain - s.zero_fraction()).abs() <= 1e-9 * s.zero_fraction().max(1e-300) + 1e-300);
    }

    /// Issue 10: the integer-P design meets any target down to 1e-15 or says it cannot.
    #[test]
    fn issue_10_design_meets_tiny_targets(
        fp_exp in -15.0f64..-0.1, k in 1u32..=64, max in 1u32..=255, m_exp in 7u32..=40,
    ) {
        let req = SbfRequirement { m: 1u64 << m_exp, k, max, fp: 10f64.powf(fp_exp) };
        match design_decrements(&req) {
            Ok(d) => prop_assert!(d.fp <= req.fp, "{d:?}"),
            Err(e) => prop_assert!(matches!(e, ModelError::Infeasible { .. }), "{e}"),
        }
    }

    /// Issue 10: values outside the documented ranges are rejected, never computed.
    #[test]
    fn issue_10_invalid_values_are_rejected(
        m in prop_oneof![0u64..2, ((1u64 << 40) + 1)..u64::MAX],
        k in prop_oneof![Just(0u32), 65u32..u32::MAX],
        max in prop_oneof![Just(0u32), 256u32..u32::MAX],
        fp in crate::strategies::nasty_f64(),
    ) {
        prop_assert!(SbfParams::new(m, 4, 3, 1).is_err());
        prop_assert!(SbfParams::new(1000, k, 3, 1).is_err());
        prop_assert!(SbfParams::new(1000, 4, max, 1).is_err());
        prop_assert!(SbfParams::new(1000, 4, 3, 0).is_err());
        prop_assert!(SbfParams::new(1000, 4, 3, 1000).is_err());
        if !(fp > 0.0 && fp < 1.0) {
            let req = SbfRequirement { m: 1000, k: 4, max: 3, fp };
            prop_assert!(design_decrements(&req).is_err());
        }
    }
}

/// [`least_decrements`] is a floor: one decrement fewer misses the FP target, for every
/// policy with the planner's counters (MinImp by its threshold limit: 4-bit counters that
/// importances up to 50 saturate), and the flow balance it rests on holds at the stable
/// point (`π0·K·v_min ≤ P`).
#[test]
fn least_decrements_is_a_floor_on_the_fp_meeting_p() {
    let dist = lin50();
    let mut checked = 0;
    for policy in Policy::ALL {
        let maxima: &[u32] = if policy.tracks_cumulative() {
            &[1, 3]
        } else {
            &[1, 3, 7]
        };
        for &max in maxima {
            for k in [1u32, 2, 4, 8] {
                let at = |p: u64| {
                    let x = IbfParams::new(policy, 4096, k, max, p, dist.clone()).unwrap();
                    if policy.tracks_cumulative() {
                        x.with_counter_bits(4).unwrap()
                    } else {
                        x
                    }
                };
                let v_min = dist
                    .iter()
                    .map(|(i, _)| at(1).insert_value(i))
                    .min()
                    .unwrap();
                for fp in [0.2, 0.05, 0.01] {
                    let floor = least_decrements(&at(1), fp).unwrap();
                    assert!(floor >= 1);
                    if floor > 1 {
                        let Ok(s) = solve(&at(floor - 1)) else {
                            continue;
                        };
                        checked += 1;
                        assert!(
                            s.fp() > fp,
                            "{policy} Max {max} K {k} fp {fp}: P = {} meets it ({})",
                            floor - 1,
                            s.fp()
                        );
                    }
                    for p in [floor, 2 * floor + 3] {
                        let Ok(s) = solve(&at(p)) else {
                            continue;
                        };
                        checked += 1;
                        let used = s.zero_fraction() * f64::from(k * v_min);
                        assert!(
                            used <= p as f64 * (1.0 + 1e-9),
                            "{policy} Max {max} K {k} P {p}: π0·K·v_min = {used}"
                        );
                    }
                }
            }
        }
    }
    // 204 (policy, Max, K, fp), two or three solves each.
    assert!(checked >= 300, "{checked} solves");
    let x = IbfParams::new(Policy::Ibf3, 4096, 4, 3, 1, dist).unwrap();
    for bad in [0.0, 1.0, f64::NAN, -0.5] {
        let e = least_decrements(&x, bad).unwrap_err().to_string();
        assert!(e.contains("fp"), "{bad}: {e}");
    }
    // Any target in (0, 1), however small, has a floor (every cell empty: K·v_min).
    assert_eq!(least_decrements(&x, 1e-300), Ok(12));
}

/// Issue 18: on designs of the optimizer's grid (linear:1:50, age 1000), the coarse FN
/// bound lies between the no-set bound and the exact FN for every importance and policy,
/// and is the tight one where sets are frequent: IBF5 at m = 1666, K = 8, Max = 15, P = 1
/// has a mean FN of 0.0210; the coarse bound gives 0.0206, the no-set bound 0.0008.
#[test]
fn issue_18_coarse_fn_bound_is_between_the_no_set_bound_and_the_fn() {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    for policy in [Policy::Ibf2, Policy::Ibf3, Policy::Ibf4, Policy::Ibf5] {
        for (m, k, max, p) in [
            (2000u64, 1u32, 3u32, 2u64),
            (5000, 4, 7, 45),
            (1666, 8, 15, 1),
        ] {
            let importance = ImportanceDist::linear(1, 50).unwrap();
            let params = IbfParams::new(policy, m, k, max, p, importance).unwrap();
            let sol = solve(&params).unwrap();
            let exact = sol.fn_by_importance(1000);
            let coarse = sol.fn_coarse_lower_bound(1000).unwrap();
            let no_sets = sol.fn_lower_bound(1000).unwrap();
            for j in 0..exact.len() {
                let at = format!("{policy:?} m={m} K={k} Max={max} P={p}, importance {j}");
                assert!(no_sets[j] <= coarse[j], "{at}");
                assert!(
                    coarse[j] <= exact[j] + 1e-12,
                    "{at}: {} > {}",
                    coarse[j],
                    exact[j]
                );
            }
            if (policy, m) == (Policy::Ibf5, 1666) {
                assert!(mean(&coarse) > 0.95 * mean(&exact), "{}", mean(&coarse));
                assert!(mean(&no_sets) < 0.1 * mean(&exact), "{}", mean(&no_sets));
            }
        }
    }
}
