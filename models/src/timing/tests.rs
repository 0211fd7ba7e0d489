//! Cross-checks of the BTBF model: every theorem against a direct summation of Eq. (9)
//! over the likelihoods of Eqs. (22), (24), (25) [TBF]; the chooser's forward model
//! against the theorems; invariants (proptest).

use super::btbf::{BtbfModel, BtbfObservation, BtbfParams, TimerAge};
use super::design::{expected_penalty, PenaltyResolution};
use super::penalty::PenaltyDist;
use super::posterior::direct_window_posterior;
use super::prior::{Distinct, StreamPrior};
use approx::assert_relative_eq;
use proptest::prelude::*;

fn obs(lambda: u64, c: u32, r: u32, b: u64) -> BtbfObservation {
    BtbfObservation {
        age: TimerAge::Finite(lambda),
        matching: c,
        touched: r,
        offset: b,
    }
}

/// The likelihood of Eqs. (22) and (24) written out case by case, independently of
/// `BtbfModel::likelihood`.
fn paper_likelihood(model: &BtbfModel, o: &BtbfObservation, i: u64) -> f64 {
    let p = model.params();
    let (b, big_b) = (o.offset, p.block_size());
    match o.age {
        TimerAge::Expired => 0.0,
        TimerAge::Finite(0) => {
            if i < b {
                1.0
            } else {
                model.f(o.touched, 0, b)
            }
        }
        TimerAge::Finite(l) => {
            let a = (l - 1) * big_b + b;
            if i < a {
                0.0
            } else if i < l * big_b + b {
                model.f(o.touched, o.matching, a)
            } else {
                model.f(o.matching, 0, big_b) * model.f(o.touched, o.matching, a)
            }
        }
    }
}

/// Issue 5 (speed): the `λ = 0` posterior reads `F(r, 0, b)` from an offset table when
/// `B <= 4096` and evaluates `D(b)` per query above; both routes against the direct sum.
#[test]
fn lambda_zero_table_and_direct_routes_match_direct_sums() {
    for big_b in [3000u64, 5000] {
        let w = 4 * big_b;
        let params = BtbfParams::new(40_000, 4, 4, big_b, w, 0).unwrap();
        assert_eq!(big_b <= BtbfModel::OFFSET_TABLE_MAX, big_b == 3000);
        let model = BtbfModel::new(params, Distinct::Uniform { universe: w });
        for px in [1.0 / w as f64, 1e-3] {
            for b in [1u64, 17, big_b - 1] {
                let o = obs(0, 4, 4, b);
                let got = model.posterior(px, &o).unwrap();
                let want =
                    direct_window_posterior(px, w, |i| paper_likelihood(&model, &o, i)).unwrap();
                assert_relative_eq!(got, want, max_relative = 1e-9);
            }
        }
    }
}

#[test]
fn theorems_match_direct_sums() {
    // w = 100, B = 7: L(b) = ⌈(100 − b)/7⌉ = 15 for b <= 2, 14 for b >= 3.
    let params = BtbfParams::new(400, 4, 5, 7, 100, 0).unwrap();
    for distinct in [Distinct::Identity, Distinct::Uniform { universe: 300 }] {
        let model = BtbfModel::new(params, distinct);
        for px in [1.0 / 300.0, 0.02, 2e-3] {
            for b in [0u64, 1, 3, 6] {
                let l = params.expiry_age(b);
                for lambda in [0, 1, 2, l - 1, l, l + 1] {
                    for (c, r) in [(1, 4), (2, 4), (4, 4), (1, 3)] {
                        let o = obs(lambda, c, r, b);
                        if model.check_observation(&o).is_err() {
                            continue;
                        }
                        let got = model.posterior(px, &o).unwrap();
                        let want = direct_window_posterior(px, params.w(), |i| {
                            paper_likelihood(&model, &o, i)
                        })
                        .unwrap();
                        assert_relative_eq!(got, want, max_relative = 1e-9, epsilon = 1e-15);
                        // The piecewise engine agrees with both.
                        let eng = model
                            .likelihood(&o)
                            .window_posterior(px, params.w())
                            .unwrap();
                        assert_relative_eq!(got, eng, max_relative = 1e-9, epsilon = 1e-15);
                    }
                }
            }
        }
    }
}

#[test]
fn theorem2_expired_is_zero_and_contradictions_are_rejected() {
    let params = BtbfParams::new(400, 4, 5, 7, 100, 0).unwrap();
    let model = BtbfModel::new(params, Distinct::Identity);
    let expired = BtbfObservation {
        age: TimerAge::Expired,
        matching: 1,
        touched: 4,
        offset: 2,
    };
    assert_eq!(model.posterior(0.01, &expired).unwrap(), 0.0);
    assert_eq!(model.posterior(0.01, &obs(16, 1, 4, 2)).unwrap(), 0.0);
    let e = model
        .posterior(0.01, &obs(0, 4, 4, 0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("contradiction"), "{e}");
    let e = model
        .posterior(0.01, &obs(1, 2, 4, 0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("contradiction"), "{e}");
    assert!(model.posterior(0.01, &obs(0, 3, 4, 2)).is_err());
    assert!(model.posterior(0.01, &obs(3, 5, 4, 2)).is_err());
    assert!(model.posterior(0.01, &obs(3, 1, 5, 2)).is_err());
    assert!(model.posterior(0.01, &obs(3, 1, 4, 7)).is_err());
    assert!(model.posterior(0.0, &obs(3, 1, 4, 1)).is_err());
    assert!(model.posterior(1.5, &obs(3, 1, 4, 1)).is_err());
}

#[test]
fn forward_model_bayes_equals_the_theorems_when_d_is_linear() {
    // With D(j) = j, the chooser's forward model and the paper's likelihood coincide, so
    // P(o, I < w) / P(o) must equal Theorems 3-5.
    let params = BtbfParams::new(300, 3, 5, 5, 60, 1).unwrap();
    let model = BtbfModel::new(params, Distinct::Identity);
    let px = 0.01;
    for b in 0..5 {
        let mut total = 0.0;
        model.observation_masses(px, b, |lambda, c, m_in, m_out| {
            total += m_in + m_out;
            let post = model.posterior(px, &obs(lambda, c, 3, b)).unwrap();
            assert_relative_eq!(m_in / (m_in + m_out), post, max_relative = 1e-9);
        });
        // Missing mass: expired observations, all with I >= w.
        assert!(total <= 1.0 + 1e-12);
        let standard_pos_out: f64 = {
            let mut s = 0.0;
            model.observation_masses(px, b, |_, _, _, m_out| s += m_out);
            s
        };
        // The same mass from the FP formula of Section 3.2.2.
        let direct: f64 = (params.w()..params.w() + 5000)
            .map(|i| super::prior::prior(px, i) * model.fp_at_age(i, b))
            .sum();
        assert_relative_eq!(standard_pos_out, direct, max_relative = 1e-9);
    }
}

/// The per-age observation law, weighted by the prior of Eq. (4) [TBF] and summed over
/// ages, is the forward model's joint masses; the per-age expected cost averaged the same
/// way is the chooser's expected inferential penalty (one class: a uniform prior).
#[test]
fn observations_at_age_sum_to_the_forward_model() {
    let params = BtbfParams::new(300, 3, 5, 5, 60, 1).unwrap();
    let universe = 90u64;
    let prior = StreamPrior::uniform(universe).unwrap();
    let model = BtbfModel::new(params, prior.distinct());
    let px = 1.0 / universe as f64;
    let horizon = 6000u64;
    let pens = PenaltyDist::uniform(1.0, 10.0).unwrap();
    let mut cost = 0.0;
    for b in 0..5 {
        let mut by_age = std::collections::HashMap::<(u64, u32), (f64, f64)>::new();
        for i in 0..horizon {
            let w_i = super::prior::prior(px, i);
            model.observations_at_age(Some(i), b, |lambda, c, q| {
                let e = by_age.entry((lambda, c)).or_default();
                if i < params.w() {
                    e.0 += w_i * q;
                } else {
                    e.1 += w_i * q;
                }
            });
            cost += w_i * model.expected_cost_at_age(px, Some(i), b, &pens) / 5.0;
        }
        let mut seen = 0;
        model.observation_masses(px, b, |lambda, c, m_in, m_out| {
            let (a, o) = by_age[&(lambda, c)];
            assert_relative_eq!(a, m_in, max_relative = 1e-9, epsilon = 1e-300);
            assert_relative_eq!(o, m_out, max_relative = 1e-9, epsilon = 1e-300);
            seen += 1;
        });
        assert_eq!(seen, by_age.len());
        // Never inserted: the law of an item older than every block.
        let (mut never, mut old) = (0.0, 0.0);
        model.observations_at_age(None, b, |_, _, q| never += q);
        model.observations_at_age(Some(horizon), b, |_, _, q| old += q);
        assert_relative_eq!(never, old, max_relative = 1e-12);
        assert!(never < 1.0);
    }
    let e = expected_penalty(
        &model,
        &prior,
        &pens,
        PenaltyResolution::fixed_offsets(5, 1),
    );
    assert_relative_eq!(cost, e.inferential, max_relative = 1e-6);
}

#[test]
fn forward_model_bayes_equals_the_increment_form_for_any_d() {
    use super::btbf::GForm;
    let params = BtbfParams::new(300, 3, 5, 5, 60, 1).unwrap();
    let model =
        BtbfModel::new(params, Distinct::Uniform { universe: 80 }).with_g_form(GForm::Increment);
    let paper = BtbfModel::new(params, Distinct::Uniform { universe: 80 });
    let px = 1.0 / 80.0;
    let mut differs = false;
    for b in 0..5 {
        model.observation_masses(px, b, |lambda, c, m_in, m_out| {
            let o = obs(lambda, c, 3, b);
            let post = model.posterior(px, &o).unwrap();
            assert_relative_eq!(m_in / (m_in + m_out), post, max_relative = 1e-9);
            // And against the direct sum of its own likelihood.
            let direct = direct_window_posterior(px, 60, |i| model.likelihood(&o).at(i)).unwrap();
            assert_relative_eq!(direct, post, max_relative = 1e-9);
            differs |= (paper.posterior(px, &o).unwrap() - post).abs() > 1e-3;
        });
    }
    assert!(differs, "a concave D(j) must separate the two forms");
}

/// `posterior_pair_with` answers, bit for bit, what the two models answer one by one:
/// every age (expired, 0, inside, last, beyond), offset and `c`, both forms each way.
#[test]
fn the_posterior_pair_is_both_posteriors_bit_for_bit() {
    use super::btbf::GForm;
    let params = BtbfParams::new(300, 3, 5, 5, 60, 1).unwrap();
    for distinct in [Distinct::Uniform { universe: 80 }, Distinct::Identity] {
        for (own, other) in [
            (GForm::Paper, GForm::Increment),
            (GForm::Increment, GForm::Paper),
            (GForm::Paper, GForm::Paper),
        ] {
            let a = BtbfModel::new(params, distinct.clone()).with_g_form(own);
            let b = a.clone().with_g_form(other);
            for px in [1.0 / 80.0, 0.3, 1e-9, 1.0] {
                let item = a.item_terms(px);
                let mut observations = vec![BtbfObservation {
                    age: TimerAge::Expired,
                    matching: 0,
                    touched: 3,
                    offset: 0,
                }];
                for lambda in 0..20 {
                    for c in 0..=3 {
                        for off in 0..5 {
                            observations.push(obs(lambda, c, 3, off));
                        }
                    }
                }
                for o in &observations {
                    let (x, y) = a.posterior_pair_with(&item, o, other);
                    assert_eq!(x.to_bits(), a.posterior_unchecked(px, o).to_bits(), "{o:?}");
                    assert_eq!(y.to_bits(), b.posterior_unchecked(px, o).to_bits(), "{o:?}");
                }
            }
        }
    }
}

#[test]
fn expected_and_most_likely_age() {
    let params = BtbfParams::new(400, 4, 5, 7, 100, 0).unwrap();
    let model = BtbfModel::new(params, Distinct::Identity);
    let px = 0.01;
    // λ = 3, b = 2: ages below a = 16 are impossible; the mode is a.
    let o = obs(3, 2, 4, 2);
    assert_eq!(model.most_likely_age(px, &o).unwrap(), 16);
    let e = model.expected_age(px, &o).unwrap();
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..20_000u64 {
        let t = super::prior::prior(px, i) * paper_likelihood(&model, &o, i);
        num += i as f64 * t;
        den += t;
    }
    assert_relative_eq!(e, num / den, max_relative = 1e-9);
    assert!(e > 16.0);
}

#[test]
fn params_constraints() {
    // T_Ω = ⌈w/B⌉ + 1 + P must fit: 2^bpt >= T_Ω + 2.
    assert!(BtbfParams::new(1000, 4, 3, 20, 100, 0).is_ok()); // T_Ω = 6, 8 values
    let e = BtbfParams::new(1000, 4, 3, 20, 100, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bits_per_timer"), "{e}");
    assert!(BtbfParams::new(1000, 4, 3, 101, 100, 0).is_err());
    assert!(BtbfParams::new(1000, 4, 3, 20, 0, 0).is_err());
    assert!(BtbfParams::new(1000, 0, 3, 20, 100, 0).is_err());
    // ⌈w/B⌉ = 256 needs T_Ω + 2 = 259 > 2^8 values even without padding.
    assert!(BtbfParams::with_default_padding(1 << 16, 4, 8, 256, 1 << 16).is_err());
    // B = 512: the rule asks P = ⌈2^16/(4·512)⌉ − 1 = 31, and 128 + 1 + 31 + 2 <= 256 fits.
    let p = BtbfParams::with_default_padding(1 << 16, 4, 8, 512, 1 << 16).unwrap();
    assert_eq!((p.padding(), p.t_max()), (31, 160));
    assert!(p.scan_per_insert() <= 4.0);
    // B = 300: the rule's P = 54 does not fit (219 + 1 + 54 + 2 > 256): the largest that
    // does, 34.
    let p = BtbfParams::with_default_padding(1 << 16, 4, 8, 300, 1 << 16).unwrap();
    assert_eq!(p.padding(), 256 - 2 - 219 - 1);
    let q = BtbfParams::with_default_padding(1 << 16, 4, 10, 256, 1 << 16).unwrap();
    assert_eq!(q.padding(), 63);
    assert!(q.scan_per_insert() <= 4.0);
    assert_eq!(q.memory_bits(), 10 << 16);
    assert_relative_eq!(q.bits_per_item(), 10.0);
}

#[test]
fn resolution_of_the_expected_penalty() {
    // The default's offsets (here 16 of 64, `L = 32`) against all 64; 24 Zipf classes
    // against 96.
    let params = BtbfParams::new(3000, 4, 6, 64, 2048, 0).unwrap();
    let pen = PenaltyDist::paper();
    for prior in [
        StreamPrior::uniform(4096).unwrap(),
        StreamPrior::zipf(4096).unwrap(),
    ] {
        let model = BtbfModel::new(params, prior.distinct());
        let coarse = expected_penalty(&model, &prior, &pen, PenaltyResolution::default());
        let fine = expected_penalty(
            &model,
            &prior,
            &pen,
            PenaltyResolution::fixed_offsets(64, 96),
        );
        assert_relative_eq!(coarse.inferential, fine.inferential, max_relative = 0.01);
        assert_relative_eq!(coarse.standard, fine.standard, max_relative = 0.01);
        assert!(fine.inferential <= fine.standard, "{fine:?}");
    }
}

#[test]
fn the_default_offsets_are_within_a_thousandth_of_every_offset() {
    // Short expiry ages (few ages per offset, many offsets) to long ones (one offset),
    // on the chooser's own candidates; every offset of the block as the reference.
    use super::design::BtbfRequirement;
    let pen = PenaltyDist::paper();
    for prior in [
        StreamPrior::uniform(8192).unwrap(),
        StreamPrior::zipf(10_000).unwrap(),
    ] {
        let cases = [
            (4096, 2, 3),
            (4096, 8, 4),
            (4096, 2, 6),
            (4096, 8, 8),
            (4096, 4, 10),
            (16384, 2, 12),
        ];
        for (w, k, bpt) in cases {
            let req = BtbfRequirement::new(10.0, w, prior, pen).unwrap();
            let p = req.candidate(k, bpt).unwrap();
            let model = BtbfModel::new(p, prior.distinct());
            let default = PenaltyResolution::default();
            let every = PenaltyResolution::fixed_offsets(p.block_size(), default.zipf_classes);
            assert!(default.offsets_of(&model).len() as u64 <= p.block_size());
            let a = expected_penalty(&model, &prior, &pen, default);
            let b = expected_penalty(&model, &prior, &pen, every);
            assert_relative_eq!(a.inferential, b.inferential, max_relative = 1e-3);
            assert_relative_eq!(a.standard, b.standard, max_relative = 1e-3);
        }
    }
}

#[test]
fn chooser_picks_a_feasible_minimum_and_smallest_block_is_best() {
    use super::design::{design, BtbfRequirement};
    let prior = StreamPrior::uniform(4096).unwrap();
    let req = BtbfRequirement::new(8.0, 4096, prior, PenaltyDist::paper())
        .unwrap()
        .with_k_max(12)
        .unwrap()
        .with_bpt_max(9)
        .unwrap();
    let d = design(&req).unwrap();
    let best = d.best;
    assert!(d
        .candidates
        .iter()
        .all(|c| c.penalty.inferential >= best.penalty.inferential));
    assert!(best.params.bits_per_item() <= 8.0);
    assert!(best.params.scan_per_insert() <= f64::from(best.params.k()));
    // Doubling the block size of the best design does not help.
    let p = best.params;
    if let Ok(coarser) =
        BtbfParams::with_default_padding(p.m(), p.k(), p.bpt(), 2 * p.block_size(), p.w())
    {
        let m = BtbfModel::new(coarser, prior.distinct());
        let e = expected_penalty(&m, &prior, req.penalties(), PenaltyResolution::default());
        assert!(e.inferential >= best.penalty.inferential * (1.0 - 1e-9));
        assert!(e.standard >= best.penalty.standard * (1.0 - 1e-9));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn posteriors_are_probabilities_and_monotone_in_lambda(
        m in 64u64..5000,
        k in 1u32..12,
        bpt in 4u32..9,
        block in 1u64..20,
        w_mul in 1u64..15,
        px_exp in -6.0f64..0.0,
        b_frac in 0.0f64..1.0,
        c_frac in 0.0f64..1.0,
        universe in prop::option::of(10u64..100_000),
    ) {
        let w = block * w_mul;
        let Ok(params) = BtbfParams::new(m, k, bpt, block, w, 0) else { return Ok(()); };
        let distinct = universe.map_or(Distinct::Identity, |u| Distinct::Uniform { universe: u });
        let model = BtbfModel::new(params, distinct);
        let px = 10f64.powf(px_exp);
        let b = ((b_frac * block as f64) as u64).min(block - 1);
        let c = 1 + ((c_frac * k as f64) as u32).min(k - 1);
        let mut prev: Option<f64> = None;
        for lambda in 1..=params.expiry_age(b) + 1 {
            let o = obs(lambda, c, k, b);
            if model.check_observation(&o).is_err() { continue; }
            let post = model.posterior(px, &o).unwrap();
            prop_assert!((0.0..=1.0).contains(&post));
            if let Some(p0) = prev {
                prop_assert!(post <= p0 * (1.0 + 1e-12) + 1e-15, "λ = {lambda}: {post} > {p0}");
            }
            prev = Some(post);
        }
        let o = obs(0, k, k, b);
        if model.check_observation(&o).is_ok() {
            let post = model.posterior(px, &o).unwrap();
            prop_assert!((0.0..=1.0).contains(&post));
        }
    }

    #[test]
    fn constructors_never_panic(m in any::<u64>(), k in any::<u32>(), bpt in any::<u32>(),
                                block in any::<u64>(), w in any::<u64>(), pad in any::<u64>()) {
        let _ = BtbfParams::new(m, k, bpt, block, w, pad);
        let _ = BtbfParams::with_default_padding(m, k, bpt, block, w);
    }

    #[test]
    fn penalty_inputs_never_panic(x in crate::strategies::nasty_f64(), y in crate::strategies::nasty_f64()) {
        let _ = super::penalty::Penalties::new(x, y);
        let _ = PenaltyDist::uniform(x, y);
        let _ = super::prior::check_px(x);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Issue 10 (numerical extremes): `m` and `w` up to 2^40, `k` up to 64, `bpt` up to
    /// 32, `p_x` down to 1e-15: every posterior, age and FP is a finite probability (or
    /// the observation is rejected), never NaN, never a panic.
    #[test]
    fn extremes_give_probabilities(
        m_exp in 0.0f64..40.0,
        k in 1u32..=64,
        bpt in 2u32..=32,
        w_exp in 0.0f64..40.0,
        px_exp in -15.0f64..0.0,
        lambda_frac in 0.0f64..1.2,
        b_frac in 0.0f64..1.0,
        c in 1u32..=64,
        r in 1u32..=64,
        universe_exp in 1.0f64..40.0,
    ) {
        let (m, w) = (2f64.powf(m_exp) as u64, 2f64.powf(w_exp) as u64);
        let block = w.div_ceil((1u64 << bpt) - 3).max(1);
        let Ok(params) = BtbfParams::new(m.max(1), k, bpt, block, w.max(1), 0) else {
            return Ok(());
        };
        let prior = StreamPrior::uniform(2f64.powf(universe_exp) as u64).unwrap();
        let model = BtbfModel::new(params, prior.distinct());
        let px = 10f64.powf(px_exp);
        let b = ((b_frac * block as f64) as u64).min(block - 1);
        let lambda = (lambda_frac * params.expiry_age(b) as f64) as u64;
        let o = obs(lambda, c.min(r), r, b);
        if let Ok(post) = model.posterior(px, &o) {
            prop_assert!((0.0..=1.0).contains(&post), "{post}");
            let age = model.expected_age(px, &o).unwrap();
            prop_assert!(age.is_finite() && age >= 0.0, "{age}");
        }
        for fp in [model.metrics(None).fp, model.metrics(Some(&prior)).fp] {
            prop_assert!((0.0..=1.0).contains(&fp), "{fp}");
        }
    }
}

/// Issue 10: at `m = 10^12`, `k = 64` an observation's `F(r, c, a)` underflows (about
/// 1e-427) though the observation is possible: the posterior and the ages are still
/// answered (they depend on likelihood ratios only); `m = 1` makes `λ >= 2` impossible.
#[test]
fn issue_10_underflowing_likelihood_is_still_answered() {
    let w = 1_000_000_000_000u64;
    let params = BtbfParams::new(w, 64, 32, 1000, w, 0).unwrap();
    let model = BtbfModel::new(params, Distinct::Identity);
    let o = obs(3, 2, 64, 5);
    assert_eq!(model.f(64, 2, 2005), 0.0, "underflows");
    let post = model.posterior(1e-15, &o).unwrap();
    assert!(post > 0.99 && post <= 1.0, "{post}");
    assert!(model.expected_age(1e-15, &o).unwrap().is_finite());
    assert_eq!(model.most_likely_age(1e-15, &o).unwrap(), 2005);
    let one = BtbfModel::new(
        BtbfParams::new(1, 3, 4, 1, 5, 0).unwrap(),
        Distinct::Identity,
    );
    assert!(one.posterior(0.1, &obs(2, 1, 1, 0)).is_err());
    assert!(one.posterior(0.1, &obs(1, 1, 1, 0)).is_ok());
}

#[test]
fn the_choosers_report_each_step_of_their_work() {
    use super::design::{design, design_observed, BtbfRequirement};
    let prior = StreamPrior::uniform(256).unwrap();
    let req = BtbfRequirement::new(8.0, 256, prior, PenaltyDist::paper())
        .unwrap()
        .with_k_max(3)
        .unwrap()
        .with_bpt_max(4)
        .unwrap();
    let steps = std::sync::atomic::AtomicUsize::new(0);
    let count = || {
        steps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let observed = design_observed(&req, count).unwrap();
    assert_eq!(steps.into_inner(), 3 * 3);
    assert_eq!(observed, design(&req).unwrap());

    use crate::gbf::design::{design as gbf_design, design_observed as gbf_observed};
    let gbf = crate::gbf::design::GbfRequirement {
        bits_per_item: 6.0,
        w: 64,
        prior: StreamPrior::uniform(64).unwrap(),
        penalties: PenaltyDist::paper(),
        k_max: 3,
    };
    let steps = std::sync::atomic::AtomicUsize::new(0);
    let count = || {
        steps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let observed = gbf_observed(&gbf, count).unwrap();
    // One per item class (a uniform prior has one) and band of `K` (`2..=3`, `4..=6`),
    // and one per candidate.
    assert_eq!(gbf.steps(), 2 + 3 * 3);
    assert_eq!(steps.into_inner() as u64, gbf.steps());
    assert_eq!(observed, gbf_design(&gbf).unwrap());
}

/// One timer (`ln(1 − 1/m) = −∞`) and a Zipf prior whose `D` Eq. (17) put at 0 past its
/// peak gave `−∞·0 = NaN` (the `models` fuzz target: `model btbf --timers 1 --hashes 46
/// --bits-per-timer 30 --window 1364 --padding 8 --prior zipf:2`). The one timer is set by
/// every other arrival, so a query outside the window is a false positive.
#[test]
fn one_timer_with_a_zipf_prior_is_a_sure_false_positive() {
    let params = BtbfParams::new(1, 46, 30, 1, 1364, 8).unwrap();
    let prior = StreamPrior::zipf(2).unwrap();
    let model = BtbfModel::new(params, prior.distinct());
    let m = model.metrics(Some(&prior));
    assert_eq!(m.fp, 1.0);
    assert!(model.untouched(0) == 1.0 && model.untouched(1364) == 0.0);
    assert_eq!(model.ln_fp(Some(&prior)), 0.0);
}
