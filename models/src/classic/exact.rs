//! The exact false-positive rate of a standard Bloom filter.
//!
//! After `t = k·n` ideal hash throws into `m` bits, the number of set bits `X` has the
//! occupancy law `P(X = i) = C(m,i)·i!·S(t,i) / m^t` (`S` = Stirling numbers of the second
//! kind), and a fresh item is a false positive with probability `E[(X/m)^k]`
//! (Bose et al. 2008, corrected by Christensen, Roginsky and Jimeno 2010).

use crate::error::ModelError;
use crate::numeric::{probability, CompensatedSum};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

/// Default work budget (inner-loop steps) for [`fp_exact_standard`]: about 0.1 s.
pub const EXACT_BUDGET: f64 = 1e8;

/// Occupancy probabilities below this are dropped from the band of the recursion.
const NEGLIGIBLE: f64 = 1e-60;

/// Exact FP of a standard filter, or `None` when the computation would exceed `budget`
/// inner-loop steps.
///
/// # Formula
/// ```text
/// fp = Σ_{i=1..m} P(X = i)·(i/m)^k,   X = set bits after k·n throws
/// P_{t+1}(i) = P_t(i)·i/m + P_t(i-1)·(m-i+1)/m     (occupancy recursion)
/// ```
/// # Accuracy
/// Every term is non-negative, so the recursion loses no digits to cancellation (relative
/// error about `k·n·ε`). Probabilities below 1e-60 are dropped from the band; the mass
/// lost is below `k·n·m·1e-60`. Cross-checked against [`fp_exact_rational`].
/// # Numerics
/// The recursion runs over a band of width about `17·√m` around the mean, so the cost is
/// about `k·n·min(k·n, m, 17√m)` steps.
pub fn fp_exact_standard(m: u64, k: u32, n: u64, budget: f64) -> Option<f64> {
    let t = u64::from(k).checked_mul(n)?;
    let width = (t as f64 + 1.0)
        .min(m as f64 + 1.0)
        .min(17.0 * (m as f64).sqrt() + 64.0);
    if t as f64 * width > budget {
        return None;
    }
    let mf = m as f64;
    let cap = usize::try_from(t.min(m)).ok()?;
    let mut p = vec![0.0f64; cap + 1];
    p[0] = 1.0;
    let (mut lo, mut hi) = (0usize, 0usize);
    for _ in 0..t {
        if hi < cap {
            hi += 1;
        }
        for i in (lo.max(1)..=hi).rev() {
            p[i] = p[i] * (i as f64 / mf) + p[i - 1] * ((mf - (i as f64 - 1.0)) / mf);
        }
        p[0] = 0.0;
        if lo == 0 {
            lo = 1.min(hi);
        }
        while lo < hi && p[lo] < NEGLIGIBLE {
            p[lo] = 0.0;
            lo += 1;
        }
        while hi > lo && p[hi] < NEGLIGIBLE {
            p[hi] = 0.0;
            hi -= 1;
        }
    }
    if t == 0 {
        return Some(0.0);
    }
    let sum: CompensatedSum = (lo..=hi)
        .map(|i| p[i] * (i as f64 / mf).powi(k as i32))
        .collect();
    Some(probability(sum.value()))
}

/// Exact FP of a standard filter in exact rational arithmetic, by the closed form
///
/// # Formula
/// ```text
/// fp = Σ_{d=1..k} [C(m,d)·d!·S(k,d)/m^k] · Σ_{j=0..d} (-1)^j C(d,j) (1 - j/m)^(k·n)
/// ```
/// (`d` distinct positions probed; inclusion–exclusion over which of them stay 0). An
/// independent derivation from [`fp_exact_standard`]'s recursion, used to cross-check it.
///
/// # Errors
/// [`ModelError::InvalidParam`] on `m`, `k` or `n` when the exact numbers would exceed
/// about 200 000 bits (`k·n·log2(m) > 2e5`), or `m = 0`, `k = 0`.
pub fn fp_exact_rational(m: u64, k: u32, n: u64) -> Result<BigRational, ModelError> {
    if m == 0 || k == 0 {
        return Err(ModelError::invalid(
            "m, k",
            format!("{m}, {k}"),
            "m >= 1, k >= 1",
        ));
    }
    let t = u64::from(k) * n;
    if t as f64 * (m as f64).log2().max(1.0) > 2e5 {
        return Err(ModelError::invalid(
            "n",
            n,
            "k·n·log2(m) <= 200000 for exact rational arithmetic",
        ));
    }
    let big = |x: u64| BigInt::from(x);
    // Stirling numbers of the second kind S(k, d), d = 0..=k.
    let k_us = k as usize;
    let mut s = vec![BigInt::zero(); k_us + 1];
    s[0] = BigInt::one();
    for row in 1..=k_us {
        for d in (1..=row).rev() {
            s[d] = &s[d] * big(d as u64) + &s[d - 1];
        }
        s[0] = BigInt::zero();
    }
    let m_big = big(m);
    let m_pow_k = num_traits::pow(m_big.clone(), k_us);
    let m_pow_t = num_traits::pow(m_big.clone(), t as usize);
    let mut total = BigRational::zero();
    for d in 1..=k_us.min(m as usize) {
        // C(m,d)·d! = m·(m-1)···(m-d+1)
        let falling: BigInt = (0..d as u64).map(|i| big(m - i)).product();
        let p_d = BigRational::new(falling * &s[d], m_pow_k.clone());
        let mut all_set = BigInt::zero();
        let mut binom = BigInt::one();
        for j in 0..=d as u64 {
            let term = &binom * num_traits::pow(big(m - j), t as usize);
            if j % 2 == 0 {
                all_set += term;
            } else {
                all_set -= term;
            }
            binom = binom * big(d as u64 - j) / big(j + 1);
        }
        total += p_d * BigRational::new(all_set, m_pow_t.clone());
    }
    Ok(total)
}

/// Converts an exact rational to `f64` (0 if it underflows).
#[cfg(test)]
pub(crate) fn to_f64(x: &BigRational) -> f64 {
    num_traits::ToPrimitive::to_f64(x).unwrap_or(0.0)
}
