//! Issue 17's log-space forms of the window families' FPs: each `ln_*` agrees with the
//! `f64` form to 1e-12 relative where the latter is a normal `f64`, and with a 256-bit
//! evaluation of the paper's formula down to far below the smallest `f64`.
//!
//! A relative error `δ` of a probability is an absolute error `δ` of its log, so the
//! logs are compared in absolute terms against [`REL`]. An `f64` log itself is only
//! resolved to `|ln p|·ε` (`ε` = 2.2e-16): from `|ln p| ≈ 4500` (`p ≈ 10^-1950`) that
//! spacing exceeds 1e-12, and the bound is [`tol`], a few of those spacings.

use super::hp::{f, one, powu, to_f64, u, zero, F, REL};
use bfopt_models::apbf::{consecutive_match, ln_consecutive_match, ApbbfParams};
use bfopt_models::classic::{fp_blocked, ln_fp_blocked, ClassicParams, Layout};
use bfopt_models::pbf::{AllocationProblem, LN2_SQ};
use bfopt_models::rbf::{Hashing, Method, RbfNParams, RbfParams, Recycling};
use bfopt_models::timing::btbf::{BtbfModel, BtbfParams};
use bfopt_models::timing::prior::{Distinct, StreamPrior};
use proptest::prelude::*;

/// The tolerance on a log of magnitude `ln`: [`REL`], or 8 spacings of `f64` at `ln`
/// where those exceed it (measured: 3.6e-12 at `ln fp = −17048`, one spacing).
fn tol(ln: f64) -> f64 {
    REL.max(8.0 * f64::EPSILON * ln.abs())
}

/// Asserts `|got − ln(linear)| <= tol` where `linear` is a normal positive `f64`.
fn agrees(form: &str, what: &str, ln_got: f64, linear: f64) -> Result<(), TestCaseError> {
    if linear >= 1e-300 {
        let err = (ln_got - linear.ln()).abs();
        prop_assert!(
            err <= tol(ln_got),
            "{form} at {what}: ln form {ln_got}, ln of f64 form {} (|Δ| = {err:e})",
            linear.ln()
        );
    }
    Ok(())
}

/// Asserts `|got − ln(want)| <= tol` for a 256-bit positive `want`.
fn agrees_hp(form: &str, what: &str, ln_got: f64, want: &F) -> Result<(), TestCaseError> {
    let ln_want = to_f64(&want.ln());
    let err = (ln_got - ln_want).abs();
    prop_assert!(
        err <= tol(ln_want),
        "{form} at {what}: ln form {ln_got}, 256-bit {ln_want} (|Δ| = {err:e})"
    );
    Ok(())
}

/// `(1 − (1 − 1/m)^t)^k` at 256 bits.
fn fill_pow(m: u64, t: u64, k: u32) -> F {
    let keep = one() - one() / u(m);
    powu(&(one() - powu(&keep, t)), u64::from(k))
}

/// `C(n, r)` at 256 bits (0 for `r > n`).
fn binom_hp(n: u64, r: u64) -> F {
    if r > n {
        return zero();
    }
    (0..r).fold(one(), |acc, j| acc * u(n - j) / u(j + 1))
}

/// The σ-bounded chain of one filter at 256 bits, written from its definition rather
/// than from the production recursion over the hash index: `τ(i, i + d)`, the chance
/// that one message sets exactly `d` new bits with `i` of `m` set, is the hypergeometric
/// `C(M−i, d)·C(i, k−d)/C(M, k)` (distinct hashes) or, colliding, the ways `k` draws
/// with replacement land in the `i` set bits and cover exactly `d` given unset ones,
/// `C(M−i, d)·Σ_t C(k, t)·i^(k−t)·d!·S(t, d)/M^k` (Stirling numbers of the second kind;
/// all terms positive, no cancellation). The expected visits `g_i` of a cycle started in
/// state `start` (0, or `k` for distinct + retaining) satisfy the balance equations
/// (Eq. (15) [RBF]) `g_i(1 − τ(i,i)) = δ_{i,start} + Σ_d g_(i−d)·τ(i−d, i)`.
/// Returns `(f_σ¹, frozen FP)`: `Σ g ρ / Σ g` (Eq. (18)) and `Σ g·ov·ρ / Σ g·ov`
/// (Eqs. (24)-(25)), `ρ(i) = τ(i, i)` (Eq. (17)), `ov` the chance of passing σ.
fn rbf_chain_hp(m: u64, k: u32, sigma: u64, distinct: bool, start: u64) -> (F, F) {
    let k64 = u64::from(k);
    // stirling[t][d] = S(t, d)·d! (surjections of t draws onto d given bits).
    let mut surj = vec![vec![zero(); k as usize + 1]; k as usize + 1];
    surj[0][0] = one();
    for t in 1..=k as usize {
        for d in 1..=t {
            surj[t][d] = u(d as u64) * (&surj[t - 1][d] + &surj[t - 1][d - 1]);
        }
    }
    let m_k = if distinct {
        binom_hp(m, k64)
    } else {
        powu(&u(m), k64)
    };
    let c_k: Vec<F> = (0..=k64).map(|t| binom_hp(k64, t)).collect();
    let n = sigma as usize + 1;
    let rows: Vec<Vec<F>> = (0..n as u64)
        .map(|i| {
            // C(M − i, d), walked up in d.
            let mut c_new = one();
            let pow_i: Vec<F> = (0..=k64).map(|e| powu(&u(i), e)).collect();
            (0..=k64)
                .map(|d| {
                    let ways = if distinct {
                        binom_hp(i, k64 - d)
                    } else {
                        (d..=k64).fold(zero(), |acc, t| {
                            acc + &c_k[t as usize]
                                * &pow_i[(k64 - t) as usize]
                                * &surj[t as usize][d as usize]
                        })
                    };
                    let p = &c_new * ways / &m_k;
                    c_new = if d < m - i {
                        c_new.clone() * u(m - i - d) / u(d + 1)
                    } else {
                        zero()
                    };
                    p
                })
                .collect()
        })
        .collect();
    let mut g = vec![zero(); n];
    for i in 0..n {
        let mut s = if i as u64 == start { one() } else { zero() };
        for d in 1..=(k as usize).min(i) {
            s += &g[i - d] * &rows[i - d][d];
        }
        g[i] = s / (one() - &rows[i][0]);
    }
    let (mut a, mut b, mut fr, mut fh) = (zero(), zero(), zero(), zero());
    for i in 0..n {
        let rho = &rows[i][0];
        a += &g[i] * rho;
        b += &g[i];
        let ov = rows[i]
            .iter()
            .enumerate()
            .filter(|(d, _)| i + d > sigma as usize)
            .fold(zero(), |acc, (_, p)| acc + p);
        fr += &g[i] * &ov * rho;
        fh += &g[i] * &ov;
    }
    (a / b, fr / fh)
}

/// The case CI's proptest seed drew once the Zipf `D(j)` stopped falling to 0 past its
/// peak: `P(I_x >= h)·ρ` fell below the smallest normal `f64` (1e-230 times 1e-79), so
/// the `f64` ratio lost digits (1.6e-11 of the log). `metrics` now takes the log-space
/// ratio there; both agree with the formula at 256 bits (three ranks, one offset, `B = 1`).
#[test]
fn btbf_prior_fp_with_an_underflowing_term_to_1e12() {
    let (m, k, w) = (856_258u64, 19u32, 2670u64);
    let params = BtbfParams::with_default_padding(m, k, 32, 1, w).unwrap();
    let prior = StreamPrior::zipf(3).unwrap();
    let model = BtbfModel::new(params, prior.distinct());
    let h = params.expiry_age(0);
    // Ranks x = 1, 2, 3 with p_x = 1/(x·H_3); D(h) by Eq. (15) [TBF].
    let px: Vec<F> = (1..=3u64).map(|x| u(6) / u(11 * x)).collect();
    let miss = |p: &F, n: u64| powu(&(one() - p.clone()), n);
    let d = px.iter().fold(zero(), |a, p| a + one() - miss(p, h));
    let touched = one() - (u(u64::from(k)) * d * (one() - one() / u(m)).ln()).exp();
    let rho = powu(&touched, u64::from(k));
    let (mut num, mut den) = (zero(), zero());
    for p in &px {
        num += p.clone() * (miss(p, w) - miss(p, h) + miss(p, h) * rho.clone());
        den += p.clone() * miss(p, w);
    }
    let want = num / den;
    let what = format!("m={m} k={k} w={w} h={h}");
    agrees_hp("btbf ln_fp prior", &what, model.ln_fp(Some(&prior)), &want).unwrap();
    agrees_hp(
        "btbf fp prior",
        &what,
        model.metrics(Some(&prior)).fp.ln(),
        &want,
    )
    .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// BTBF without a prior: `ln fp = ln((1/n_b) Σ_b (1 − (1 − 1/m)^(k h_b))^k)`,
    /// Section 3.2.2 [TBF], against the f64 form and a 256-bit sum, from FPs near 1 to
    /// about 10^-700.
    #[test]
    fn btbf_ln_fp_to_1e12(
        m_exp in 1.0f64..40.0,
        k in 1u32..=64,
        w_exp in 0.0f64..20.0,
        b_frac in 0.0f64..1.0,
    ) {
        let m = 2f64.powf(m_exp) as u64 + 1;
        let w = 2f64.powf(w_exp) as u64;
        let big_b = ((w as f64 * b_frac * b_frac) as u64).clamp(1, w);
        let Ok(params) = BtbfParams::with_default_padding(m, k, 32, big_b, w) else {
            return Err(TestCaseError::reject("invalid parameters"));
        };
        let model = BtbfModel::new(params, Distinct::Identity);
        let what = format!("m={m} k={k} w={w} B={big_b}");
        let ln = model.ln_fp(None);
        agrees("btbf ln_fp", &what, ln, model.metrics(None).fp)?;
        let offsets = model.offsets(64.min(big_b));
        if offsets.len() as u64 == big_b {
            let sum = offsets.iter().fold(u(0), |acc, &b| {
                let h = params.expiry_age(b) * big_b + b;
                acc + fill_pow(m, u64::from(k) * h, k)
            });
            agrees_hp("btbf ln_fp", &what, ln, &(sum / u(offsets.len() as u64)))?;
        }
    }

    /// BTBF with a prior: the log-space ratio agrees with the f64 form.
    #[test]
    fn btbf_ln_fp_with_prior_to_1e12(
        m_exp in 1.0f64..40.0,
        k in 1u32..=64,
        w_exp in 0.0f64..16.0,
        universe_exp in 0.0f64..40.0,
        zipf in any::<bool>(),
    ) {
        let m = 2f64.powf(m_exp) as u64 + 1;
        let w = 2f64.powf(w_exp) as u64;
        let universe = 2f64.powf(universe_exp) as u64 + 1;
        let Ok(params) = BtbfParams::with_default_padding(m, k, 32, 1, w) else {
            return Err(TestCaseError::reject("invalid parameters"));
        };
        let prior = if zipf { StreamPrior::zipf(universe) } else { StreamPrior::uniform(universe) }.unwrap();
        let model = BtbfModel::new(params, prior.distinct());
        let what = format!("m={m} k={k} w={w} prior={prior:?}");
        agrees("btbf ln_fp prior", &what, model.ln_fp(Some(&prior)), model.metrics(Some(&prior)).fp)?;
    }

    /// N-bounded RBF, Eqs. (1)-(3) [RBF]: the three logs against the f64 forms and
    /// 256-bit sums.
    #[test]
    fn rbf_n_bounded_ln_metrics_to_1e12(
        m_exp in 1.0f64..49.0,
        k in 1u32..=64,
        n in 1u64..=300,
    ) {
        let m = 2f64.powf(m_exp) as u64 + 2;
        let p = RbfNParams::new(m, k, n).unwrap();
        let what = format!("M={m} k={k} N={n}");
        let lin = p.metrics();
        let [(_, ln_w), (_, ln_o), (_, ln_a)] = p.ln_metrics();
        agrees("rbf fp_worst", &what, ln_w, lin.fp_worst)?;
        agrees("rbf fp_oracle", &what, ln_o, lin.fp_oracle)?;
        agrees("rbf fp_lower", &what, ln_a, lin.fp_lower)?;
        let fs: Vec<F> = (0..n).map(|i| fill_pow(m, u64::from(k) * i, k)).collect();
        if fs.iter().all(|x| *x < one()) {
            let ff = fill_pow(m, u64::from(k) * n, k);
            agrees_hp("rbf fp_worst", &what, ln_w, &ff)?;
            let sum = fs.iter().fold(u(0), |a, x| a + x);
            if sum > u(0) {
                agrees_hp("rbf fp_oracle", &what, ln_o, &(sum / u(n)))?;
                let r = fs.iter().fold(u(0), |a, x| a + x / (one() - x));
                agrees_hp("rbf fp_lower", &what, ln_a, &(&r / (u(n) + &r)))?;
            }
        }
    }

    /// PBF allocation: `ln fp = ln(1 − e^(−X))`, `X = Σ f_i·(−ln(1 − p_i))`,
    /// `p_i = e^(−ln²2·m_i/d_i)` (Eq. (10) [PBF]), and the rounded FP, against the f64
    /// forms and 256-bit evaluations.
    #[test]
    fn pbf_ln_fp_to_1e12(
        bits_exp in 4.0f64..40.0,
        distinct in prop::collection::vec(0u32..2000, 1..5),
        frequency in prop::collection::vec(0.0f64..4.0, 1..5),
    ) {
        let n = distinct.len().min(frequency.len());
        let d: Vec<f64> = distinct[..n].iter().map(|&x| f64::from(x)).collect();
        let fr = frequency[..n].to_vec();
        let bits = 2f64.powf(bits_exp) as u64;
        let Ok(problem) = AllocationProblem::new(bits, d.clone(), fr.clone()) else {
            return Err(TestCaseError::reject("invalid problem"));
        };
        let Ok(a) = problem.optimal(64) else {
            return Err(TestCaseError::reject("no optimum"));
        };
        let what = format!("m={bits} d={d:?} f={fr:?}");
        let ln = problem.ln_fp(&a);
        agrees("pbf fp", &what, ln, problem.fp_continuous(&a.bits))?;
        let ln_r = problem.ln_fp_rounded(&a);
        agrees("pbf fp_rounded", &what, ln_r, a.fp_rounded)?;
        let mut x = u(0);
        let mut x_rounded = u(0);
        let mut saturated = false;
        for i in 0..n {
            if fr[i] > 0.0 && d[i] > 0.0 {
                let p = (-(f(LN2_SQ)) * f(a.bits[i]) / f(d[i])).exp();
                if p < one() {
                    x = &x - f(fr[i]) * (-p).ln_1p();
                } else {
                    saturated = true;
                }
                let p_r = if a.bits_rounded[i] <= 1 { one() } else {
                    let keep = one() - one() / u(a.bits_rounded[i]);
                    let t = u(u64::from(a.hashes[i])) * f(d[i]);
                    powu(&(one() - (t * keep.ln()).exp()), u64::from(a.hashes[i]))
                };
                // A filter near saturation loses `ε/(1 − p)` relative in `ln(1 − p)`
                // from the rounded `p` in both forms (1.6e-12 at m = 16, d = 211):
                // compared where `p <= 1/2`, which the tiny range always is.
                if to_f64(&p_r) <= 0.5 {
                    x_rounded = &x_rounded - f(fr[i]) * (-p_r).ln_1p();
                } else {
                    saturated = true;
                }
            }
        }
        if x > u(0) && !saturated {
            agrees_hp("pbf fp", &what, ln, &-(-x).exp_m1())?;
        }
        if x_rounded > u(0) && !saturated {
            agrees_hp("pbf fp_rounded", &what, ln_r, &-(-x_rounded).exp_m1())?;
        }
    }

    /// The log-space recursion of Section 5.3 [APBF] against the f64 one over random
    /// match probabilities from 1 down to 1e-200 (products far below the smallest f64).
    #[test]
    fn apbf_ln_consecutive_match_to_1e12(
        k in 1usize..=24,
        r_exp in prop::collection::vec(-200.0f64..0.0, 1..48),
    ) {
        let r: Vec<f64> = r_exp.iter().map(|e| 10f64.powf(*e)).collect();
        let ln_r: Vec<f64> = r.iter().map(|x| x.ln()).collect();
        let what = format!("k={k} r={r:?}");
        agrees("apbf ln F", &what, ln_consecutive_match(&ln_r, k), consecutive_match(&r, k))?;
    }

    /// APBBF segments, `q(μ) = Σ_j Poisson(j; μ)(1 − (1 − b/B)^j)^b` (Section 6 [APBF]):
    /// the log-space mixture against a 256-bit sum over every load up to far past the
    /// terms' peak, and against the f64 forms.
    #[test]
    fn apbbf_ln_segments_to_1e12(
        k in 1u32..=12,
        l in 1u32..=12,
        bb_exp in 6u32..=12,
        b_exp in 0u32..=6,
        window in prop::option::of(1u64..=100_000),
    ) {
        let (bb, b) = (1u32 << bb_exp, 1u32 << b_exp.min(bb_exp - 1));
        let p = ApbbfParams::new(k, l, bb, b).unwrap();
        let p = match window {
            Some(w) => match p.with_window(w) {
                Ok(p) => p,
                Err(_) => return Err(TestCaseError::reject("window < l")),
            },
            None => p,
        };
        let what = format!("k={k} l={l} B={bb} b={b} window={window:?}");
        let ln_paper = p.ln_segments(false).unwrap();
        let ln_real = p.ln_segments(true).unwrap();
        for (ln, lin) in ln_paper.iter().zip(p.segments_paper()) {
            agrees("apbbf segment", &what, *ln, lin)?;
        }
        for (ln, lin) in ln_real.iter().zip(p.segments_real()) {
            agrees("apbbf segment sized", &what, *ln, lin)?;
        }
        // 256-bit Poisson mixture of the first segment (the smallest match).
        let mu = f(p.full_load() / f64::from(k));
        let keep = one() - u(u64::from(b)) / u(u64::from(bb));
        let j_max = (4.0 * p.full_load() / f64::from(k)) as u64 + 8 * u64::from(b) + 200;
        let (mut pmf, mut kept, mut sum) = ((-mu.clone()).exp(), one(), u(0));
        for j in 1..=j_max {
            pmf = pmf * &mu / u(j);
            kept = &kept * &keep;
            sum = &sum + &pmf * powu(&(one() - &kept), u64::from(b));
        }
        agrees_hp("apbbf segment", &what, ln_paper[0], &sum)?;
        let fps = p.ln_fps();
        let get = |key: &str| fps.iter().find(|(k, _)| *k == key).unwrap().1;
        let m = p.metrics();
        agrees("apbbf fp_paper", &what, get("fp_paper"), m.fp_paper)?;
        agrees("apbbf fp", &what, get("fp"), m.fp)?;
        agrees("apbbf fp_apbf", &what, get("fp_apbf"), m.fp_apbf)?;
        // A whole generation in: the worst case, by the uncut walk where it matters.
        if let Some(s) = p.sizing() {
            agrees("apbbf fp_after(g)", &what, get("fp"), p.fp_after(s.generation))?;
        }
    }

    /// Blocked classic, independent-bits law: `Σ_j Bin(j; n, B/m)(1 − (1 − 1/B)^(kj))^k`
    /// in log space against a 256-bit sum over every load, and against the f64 form.
    #[test]
    fn classic_ln_fp_blocked_to_1e12(
        b_exp in 6u32..=20,
        blocks_exp in 0.0f64..40.0,
        k in 1u32..=64,
        n in 1u64..=3000,
    ) {
        let bb = 1u64 << b_exp;
        let blocks = 2f64.powf(blocks_exp) as u64;
        let m = bb * blocks;
        let what = format!("m={m} B={bb} k={k} n={n}");
        let ln = ln_fp_blocked(m, bb, k, n).unwrap();
        if blocks > 1 && n <= 1000 {
            let p = one() / u(blocks);
            let q = one() - &p;
            let keep = one() - one() / u(bb);
            let keep_k = powu(&keep, u64::from(k));
            let (mut pmf, mut kept, mut sum) = (powu(&q, n), one(), u(0));
            for j in 1..=n {
                pmf = pmf * u(n - j + 1) / u(j) * &p / &q;
                kept = &kept * &keep_k;
                sum = &sum + &pmf * powu(&(one() - &kept), u64::from(k));
            }
            agrees_hp("classic blocked", &what, ln, &sum)?;
        }
        agrees("classic blocked", &what, ln, fp_blocked(m, bb, k, n))?;
    }

    /// Blocked classic through [`ClassicParams::ln_fp`] (the exact occupancy law for
    /// blocks up to 4096 bits) against [`ClassicParams::fp`].
    #[test]
    fn classic_params_ln_fp_blocked_to_1e12(
        b_exp in 6u32..=12,
        blocks_exp in 0.0f64..30.0,
        k in 1u32..=64,
        n in 1u64..=2000,
    ) {
        let bb = 1u64 << b_exp;
        let m = bb * (2f64.powf(blocks_exp) as u64);
        let Ok(p) = ClassicParams::new(m, k, n, Layout::Blocked { block_bits: bb }) else {
            return Err(TestCaseError::reject("invalid parameters"));
        };
        let what = format!("m={m} B={bb} k={k} n={n} law={:?}", p.fp_law());
        agrees("classic blocked params", &what, p.ln_fp().unwrap(), p.fp())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The σ-bounded RBF (Eqs. (15)-(18), (24)-(26) [RBF]): `RbfParams::ln_metrics` by
    /// the exact chain against `metrics` where that is a normal `f64`, and against the
    /// 256-bit chain of [`rbf_chain_hp`] down to FPs near 10^-1000 (non-retaining, and
    /// retaining with distinct hashes, whose cycles all start at `k` bits); the fluid
    /// limit's logs against its `f64` form.
    #[test]
    fn rbf_sigma_bounded_ln_metrics_to_1e12(
        m_exp in 3.0f64..50.0,
        k in 1u32..=64,
        extra in 0u64..=12,
        distinct in any::<bool>(),
        retaining in any::<bool>(),
    ) {
        let m = 2f64.powf(m_exp) as u64 + 2;
        let sigma = u64::from(k) + extra;
        let hashing = if distinct { Hashing::Distinct } else { Hashing::Colliding };
        let recycling = if retaining { Recycling::Retaining } else { Recycling::NonRetaining };
        let what = format!("M={m} k={k} σ={sigma} {hashing:?} {recycling:?}");
        let (Ok(one_phase), Ok(two_phase)) = (
            RbfParams::new(m, k, sigma, 1, hashing, recycling),
            RbfParams::new(2 * m, k, sigma, 2, hashing, recycling),
        ) else {
            return Err(TestCaseError::reject("sigma >= M"));
        };
        for method in [Method::Exact, Method::Fluid] {
            let form = format!("rbf σ-bounded {method:?}");
            for p in [one_phase, two_phase] {
                let lin = p.metrics(method).unwrap();
                let ln = p.ln_metrics(method).unwrap();
                let linear = [Some(lin.fp_avg), Some(lin.fp_avg_paper), lin.fp_frozen];
                prop_assert_eq!(ln.len(), if p.phases() == 2 { 3 } else { 2 });
                for ((key, ln_got), want) in ln.iter().zip(linear) {
                    prop_assert!(ln_got.is_finite() && *ln_got <= 0.0, "{} {}: {}", form, key, ln_got);
                    agrees(&format!("{form} {key}"), &what, *ln_got, want.unwrap())?;
                }
            }
        }
        if !retaining || distinct {
            let start = if retaining { u64::from(k) } else { 0 };
            let (fp, frozen) = rbf_chain_hp(m, k, sigma, distinct, start);
            let ln = one_phase.ln_metrics(Method::Exact).unwrap();
            agrees_hp("rbf σ-bounded fp_avg", &what, ln[0].1, &fp)?;
            let ln2 = two_phase.ln_metrics(Method::Exact).unwrap();
            agrees_hp("rbf σ-bounded fp_frozen", &what, ln2[2].1, &frozen)?;
            let either = &fp + &frozen - &fp * &frozen;
            agrees_hp("rbf σ-bounded two-phase fp_avg", &what, ln2[0].1, &either)?;
        }
    }
}

/// `ApbbfParams::fp_after` walks the uncut block-load law where the cut can matter. With
/// `l < k` every window of `k` consecutive segments holds a young segment, whose match
/// comes from block loads far above its mean (`k = 12`, `B = 4096`, `b = 64`: segment 1's
/// terms peak near load 30 at mean 3.7, and the cut at 1e-30 of the mode's mass drops
/// loads past 44 whose terms are still about 1e-8 of the peak). After a whole generation
/// the filter is the worst case, so `fp_after(g)` is `fp` and its log form `ln_fps`;
/// the cut mixture was off by far more than 1e-12 there.
#[test]
fn apbbf_fp_after_walks_the_uncut_load_law() {
    let p = ApbbfParams::new(12, 1, 4096, 64)
        .unwrap()
        .with_window(100_000)
        .unwrap();
    let g = p.sizing().unwrap().generation;
    let ln_fp = p
        .ln_fps()
        .into_iter()
        .find(|(key, _)| *key == "fp")
        .unwrap()
        .1;
    let after = p.fp_after(g);
    assert!(after > 1e-300, "{after:e}");
    let err = (after.ln() - ln_fp).abs();
    assert!(
        err <= REL,
        "fp_after(g) = {after:e}, e^ln_fp = {:e} (|Δ ln| = {err:e})",
        ln_fp.exp()
    );
    assert_eq!(after, p.fp());
    // Fewer insertions, fewer matches.
    let (first, half) = (p.fp_after(1), p.fp_after(g / 2));
    assert!(
        0.0 < first && first <= half && half <= after,
        "{first:e} {half:e} {after:e}"
    );
}
