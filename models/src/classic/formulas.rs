//! Closed-form false-positive rates and fills of the three layouts.

use crate::numeric::{one_minus_exp_neg, one_minus_pow1m, probability, CompensatedSum};

/// FP of a standard filter under the independent-bits model.
///
/// # Formula
/// ```text
/// fp = (1 - (1 - 1/m)^(k·n))^k          (Bloom 1970; Section 4.1 [APBF])
/// ```
/// # Accuracy
/// Not exact: the `k` probed bits are correlated through the shared array. It slightly
/// *under*-states the exact FP ([`super::fp_exact_standard`]); the error is measured in
/// this module's tests (below 1% relative for `m ≥ 1000` at the optimal load).
/// # Numerics
/// `1 - (1-1/m)^(kn)` is `-expm1(kn·ln1p(-1/m))`, then raised to `k` in log space.
pub fn fp_standard(m: f64, k: f64, n: f64) -> f64 {
    let fill = one_minus_pow1m(1.0 / m, k * n);
    probability(fill.powf(k))
}

/// The textbook approximation of [`fp_standard`].
///
/// # Formula
/// ```text
/// fp ≈ (1 - e^(-k·n/m))^k
/// ```
pub fn fp_approx(m: f64, k: f64, n: f64) -> f64 {
    probability(one_minus_exp_neg(k * n / m).powf(k))
}

/// FP of a partitioned filter with `k` slices of `s` bits each; exact for ideal hashes.
///
/// # Formula
/// ```text
/// fp = (1 - (1 - 1/s)^n)^k              (Section 4.1 [APBF]: p = r^k)
/// ```
/// # Accuracy
/// Exact: each slice receives exactly one bit per item, slices are independent, and a
/// fresh query bit is set with probability `E[ones]/s`.
pub fn fp_partitioned(s: f64, k: f64, n: f64) -> f64 {
    probability(one_minus_pow1m(1.0 / s, n).powf(k))
}

/// Expected fill of a blocked filter.
///
/// # Formula
/// ```text
/// fill = 1 - E[(1-1/B)^(k·L)],  L ~ Bin(n, B/m)
///      = 1 - (1 - (B/m)·(1 - (1-1/B)^k))^n
/// ```
pub fn fill_blocked(m: u64, block_bits: u64, k: u32, n: u64) -> f64 {
    let per_block = block_bits as f64;
    let p = per_block / m as f64;
    let hit = one_minus_pow1m(1.0 / per_block, f64::from(k));
    probability(one_minus_pow1m(p * hit, n as f64))
}

/// FP of a blocked filter: the mixture of standard filters of `B` bits over the block load.
///
/// # Formula
/// ```text
/// fp = Σ_j Bin(j; n, B/m) · (1 - (1 - 1/B)^(k·j))^k
/// ```
/// # Accuracy
/// Within one block the bits follow the independent-bits model of [`fp_standard`]; the
/// block-load law is exact. Loads below 1e-30 of the mode's mass are dropped, which is
/// harmless above FP 1e-12; below it the FP is [`ln_fp_blocked`]'s uncut walk.
/// # Numerics
/// The binomial pmf comes from `binomial_pmf`: ratios walked outward from the mode,
/// `pmf(j+1)/pmf(j) = (n-j)/(j+1) · p/(1-p)`, normalised by their sum. A load law wider
/// than `LOAD_SD_DIRECT` standard deviations is not walked: every block is then
/// saturated and the FP is 1.
pub fn fp_blocked(m: u64, block_bits: u64, k: u32, n: u64) -> f64 {
    let b = block_bits as f64;
    let kf = f64::from(k);
    let in_block = |j: u64| fp_standard(b, kf, j as f64);
    let blocks = m / block_bits;
    if blocks <= 1 {
        return in_block(n);
    }
    let p = 1.0 / blocks as f64;
    if let Some(lo) = huge_load_floor(n, p) {
        // Every block load that matters is at least `lo`; a block that full is saturated.
        let f = in_block(lo);
        if f >= 1.0 {
            return f;
        }
    }
    let sum: CompensatedSum = crate::numeric::binomial_pmf(n, p, 1e-30)
        .into_iter()
        .map(|(j, pmf)| pmf * in_block(j))
        .collect();
    let fp = probability(sum.value());
    if fp < UNCUT_BELOW {
        // The cut load law can miss the loads that make a tiny FP.
        if let Some(ln) = ln_fp_blocked(m, block_bits, k, n) {
            return ln.exp();
        }
    }
    fp
}

/// The block loads [`fp_blocked`] (and the exact law's mixture) walk, in the units of a
/// work allowance ([`crate::budget`]): the `Bin(n, B/m)` law cut at 1e-30 of its mode's
/// mass spans about `2·√(2 ln 10^30)·sd ≈ 23.5·sd` loads (at most `n + 1`); 1 when there
/// is one block or the law is too wide to walk.
pub fn blocked_walk_loads(m: u64, block_bits: u64, n: u64) -> f64 {
    let blocks = m / block_bits.max(1);
    if blocks <= 1 {
        return 1.0;
    }
    let p = 1.0 / blocks as f64;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    if sd > LOAD_SD_DIRECT {
        return 1.0;
    }
    (23.5 * sd + 1.0).min(n as f64 + 1.0)
}

/// Below this FP a load mixture cut at 1e-30 of the mode's mass is replaced by the
/// uncut log-space walk ([`crate::numeric::ln_binomial_mixture`]): a tail load's FP can
/// exceed its mass's share by far more than the cut (measured against a 256-bit sum:
/// 1.0e-12 relative at FP 3.5e-29, `m = 5.8·10^12`, `B = 128`, `k = 30`, `n = 317`).
pub(crate) const UNCUT_BELOW: f64 = 1e-12;

/// The natural log of [`fp_blocked`], in log space: the load law is not cut (see
/// [`crate::numeric::ln_binomial_mixture`]), so a load whose in-block FP outweighs its
/// small mass is kept. `None` when the law is too wide to walk (then every block is
/// saturated and [`fp_blocked`] is exact in `f64`).
///
/// # Formula
/// ```text
/// ln fp = ln Σ_j Bin(j; n, B/m) · (1 − (1 − 1/B)^(k·j))^k,   ln of each term k·ln(fill_j)
/// ```
pub fn ln_fp_blocked(m: u64, block_bits: u64, k: u32, n: u64) -> Option<f64> {
    let b = block_bits as f64;
    let kf = f64::from(k);
    let ln_in_block = |j: u64| Some(kf * one_minus_pow1m(1.0 / b, kf * j as f64).ln());
    let blocks = m / block_bits;
    if blocks <= 1 {
        return ln_in_block(n);
    }
    crate::numeric::ln_binomial_mixture(n, 1.0 / blocks as f64, ln_in_block)
}

/// Block-load laws whose standard deviation exceeds this are not walked term by term
/// (the walk keeps about `23·sd` terms: at `n = 2^50` items in two blocks, 4·10^8 terms
/// and 6 GB — issue 10).
pub(crate) const LOAD_SD_DIRECT: f64 = 1e5;

/// For a block-load law `Bin(n, p)` too wide to walk, the load below which the mass is
/// under 1e-36 (13 standard deviations below the mean); `None` when it can be walked.
///
/// Such a law has mean `≥ 10^10` items per block, so with blocks of at most 2^20 bits
/// every block is saturated (`1 − e^(−k·10^10/2^20) = 1` in `f64`): callers check that the
/// FP at this floor is 1 and return it.
pub(crate) fn huge_load_floor(n: u64, p: f64) -> Option<u64> {
    let mean = n as f64 * p;
    let sd = (mean * (1.0 - p)).sqrt();
    (sd > LOAD_SD_DIRECT).then(|| (mean - 13.0 * sd).max(0.0) as u64)
}

/// The exact FP of a blocked filter: [`fp_blocked`] with each block's FP replaced by
/// the exact occupancy law of a standard filter of `B` bits ([`super::BlockFpTable`]),
/// or `None` beyond `budget` recursion steps (blocks over about 4096 bits).
///
/// # Formula
/// ```text
/// fp = Σ_j Bin(j; n, B/m) · E[(X_j/B)^k],  X_j = set bits of a block after k·j throws
/// ```
pub fn fp_blocked_exact(m: u64, block_bits: u64, k: u32, n: u64, budget: f64) -> Option<f64> {
    super::BlockFpTable::new(block_bits, k, budget).mixture(m, n)
}

/// Expected memory accesses of a query that returns false, when each probed bit is set
/// independently with probability `fill` (Section 4.2 [APBF]).
///
/// # Formula
/// ```text
/// A_false = Σ_{i=1..k} i · r^(i-1) · (1 - r) / (1 - r^k)
///         = 2^k/(2^k - 1) · Σ_{i=1..k} i/2^i     at r = 1/2 (Table 1 [APBF])
/// ```
/// At `r = 1` no query returns false; the limit `k` is returned.
pub fn accesses_query_false(fill: f64, k: u32) -> f64 {
    let r = fill;
    if r >= 1.0 {
        return f64::from(k);
    }
    let mut weighted = 0.0;
    let mut r_pow = 1.0;
    for i in 1..=k {
        weighted += f64::from(i) * r_pow * (1.0 - r);
        r_pow *= r;
    }
    weighted / (1.0 - r_pow)
}
