//! Issue 17's log-space forms of the window families' FPs: each `ln_*` agrees with the
//! `f64` form to 1e-12 relative where the latter is a normal `f64`, and with a 256-bit
//! evaluation of the paper's formula down to far below the smallest `f64`.
//!
//! A relative error `δ` of a probability is an absolute error `δ` of its log, so the
//! logs are compared in absolute terms against [`REL`]. An `f64` log itself is only
//! resolved to `|ln p|·ε` (`ε` = 2.2e-16): from `|ln p| ≈ 4500` (`p ≈ 10^-1950`) that
//! spacing exceeds 1e-12, and the bound is [`tol`], a few of those spacings.

use super::hp::{f, one, powu, to_f64, u, F, REL};
use bfopt_models::pbf::{AllocationProblem, LN2_SQ};
use bfopt_models::rbf::RbfNParams;
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
                    x = x - f(fr[i]) * (-p).ln_1p();
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
                    x_rounded = x_rounded - f(fr[i]) * (-p_r).ln_1p();
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
}
