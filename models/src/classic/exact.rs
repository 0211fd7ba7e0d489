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

/// Exact FP of a standard filter, or `None` when the occupancy recursion below would
/// exceed `budget` inner-loop steps (the budget keeps that meaning, so which filters get
/// the exact law does not depend on how it is evaluated).
///
/// # Formula
/// ```text
/// fp = Σ_{i=1..m} P(X = i)·(i/m)^k,   X = set bits after k·n throws
/// P_{t+1}(i) = P_t(i)·i/m + P_t(i-1)·(m-i+1)/m     (occupancy recursion)
/// ```
/// evaluated through the `k` query indices in `O(k³·log(k·n))` steps (the unset-bits
/// chain of the private `fp_unhit_chain`: same value, no cancellation; measured against
/// the recursion to 1e-12 relative in the tests).
/// # Accuracy
/// Every term is non-negative, so no digits are lost to cancellation (relative error
/// about `k·log2(k·n)·ε`). Cross-checked against [`fp_exact_rational`].
/// # Numerics
/// The recursion runs over a band of width about `17·√m` around the mean, so its cost
/// (the budget's unit) is about `k·n·min(k·n, m, 17√m)` steps.
///
/// Under a [`crate::budget`] allowance the evaluation also spends its own work
/// (`(k+1)³/6·log2(t)` for the squarings), and is `None` once the allowance cannot pay
/// it: a search that asks for the exact law at many sizes (the design searches) falls
/// back to the usual formula for the rest of the allowance.
pub fn fp_exact_standard(m: u64, k: u32, n: u64, budget: f64) -> Option<f64> {
    let t = u64::from(k).checked_mul(n)?;
    if t as f64 * Occupancy::band_width(m, t) > budget {
        return None;
    }
    let states = f64::from(k) + 1.0;
    let work = states * (states * states / 6.0 + 1.0) * (t as f64).log2().max(1.0);
    crate::budget::spend(work, "the classic exact law").ok()?;
    Some(fp_unhit_chain(m, t, k))
}

/// The exact FP `E[(X/m)^k]` after `t` ideal throws into `m` bits, computed by the `k`
/// query indices instead of the `m` bits: in `O(k³·log t)` steps, where the occupancy
/// recursion ([`fp_exact_standard`]'s formula) takes `t·min(t, m, 17√m)`.
///
/// # Formula
/// A fresh item is a false positive when its `k` indices are all set. They fall on `D`
/// distinct bits, `P(D = d)` the occupancy law of `k` throws (the recursion above with
/// `k` throws), and by symmetry
/// ```text
/// fp = Σ_{d=1..k} P(D = d)·A_d(t),   A_d(t) = P(d given bits are all set after t throws)
/// ```
/// (the inclusion–exclusion of [`fp_exact_rational`] sums `A_d` with alternating signs).
/// `A_d(t) = (T^t)[d][0]` for the pure-death chain of the given bits still unset,
/// `u → u − 1` with probability `u/m`, `u → u` with `1 − u/m`, `u = 0..=k`: `T^t` is formed
/// by repeated squaring of this lower-bidiagonal matrix, or, when `t` is small
/// (`6t <= k²·log2 t`, `t <= 4096`: one item of 64 hashes), by stepping `T` `t` times.
///
/// # Accuracy
/// Every product and sum is of non-negative terms (no cancellation). The diagonal of each
/// power `T^s` is set to `exp(s·ln_1p(−u/m))` rather than squared, so the rounding of
/// `1 − u/m` is not raised to the power `t`; the off-diagonal entries then carry a
/// relative error of about `k·log2(t)·ε`. Tested against the occupancy recursion and the
/// rational closed form to 1e-12 relative.
fn fp_unhit_chain(m: u64, t: u64, k: u32) -> f64 {
    /// Most throws for which the chain is stepped rather than squared.
    const SHORT_CHAIN: u64 = 4096;
    if t == 0 {
        return 0.0;
    }
    // P(D = d): k query indices into m bits, the occupancy recursion without a band cut
    // (at tiny rates every d contributes at the same order, m^-k).
    let dk = (k as usize).min(usize::try_from(m).unwrap_or(usize::MAX));
    let n = dk + 1;
    let mf = m as f64;
    let mut query = vec![0.0f64; n];
    query[0] = 1.0;
    for throw in 1..=k as usize {
        for i in (1..=throw.min(dk)).rev() {
            query[i] = query[i] * (i as f64 / mf) + query[i - 1] * ((mf - (i as f64 - 1.0)) / mf);
        }
        query[0] = 0.0;
    }
    // P = T^s (lower triangular, row-major n×n); `col` = T^(bits so far)·e_0.
    let mut power = vec![0.0f64; n * n];
    for u in 0..n {
        power[u * n + u] = 1.0 - u as f64 / mf;
        if u > 0 {
            power[u * n + u - 1] = u as f64 / mf;
        }
    }
    let mut col = vec![0.0f64; n];
    col[0] = 1.0;
    // Few throws (one item, small loads): step the chain `t` times, `O(t·k)`, instead of
    // squaring, `O(k³·log t)`; `1 − u/m` is then raised to at most the power below, a
    // relative error under `SHORT_CHAIN·ε`.
    if t <= SHORT_CHAIN && (t as f64) * 6.0 <= (n * n) as f64 * (t as f64).log2().max(1.0) {
        for _ in 0..t {
            for a in (1..n).rev() {
                col[a] = col[a] * (1.0 - a as f64 / mf) + col[a - 1] * (a as f64 / mf);
            }
        }
        let sum: CompensatedSum = (1..n).map(|d| query[d] * col[d]).collect();
        return probability(sum.value());
    }
    let mut s = 1u64;
    let mut rest = t;
    let mut next = vec![0.0f64; n];
    loop {
        if rest & 1 == 1 {
            for a in (0..n).rev() {
                next[a] = (0..=a).map(|c| power[a * n + c] * col[c]).sum();
            }
            col.copy_from_slice(&next);
        }
        rest >>= 1;
        if rest == 0 {
            break;
        }
        let mut sq = vec![0.0f64; n * n];
        for a in 0..n {
            for b in 0..a {
                sq[a * n + b] = (b..=a).map(|c| power[a * n + c] * power[c * n + b]).sum();
            }
        }
        s *= 2;
        for u in 0..n {
            sq[u * n + u] = (s as f64 * (-(u as f64) / mf).ln_1p()).exp();
        }
        power = sq;
    }
    let sum: CompensatedSum = (1..n).map(|d| query[d] * col[d]).collect();
    probability(sum.value())
}

/// The natural log of [`fp_exact_standard`], computed in log space so that it holds
/// its relative precision where the FP is below the smallest `f64` (2.2e-308), e.g.
/// `k = 60` hashes, one item in 10^12 bits (FP about 10^-600); `None` on the same
/// budget, `-inf` when the FP is exactly 0 (`n = 0`).
///
/// # Formula
/// ```text
/// ln fp = ln Σ_i P(X = i)·(i/m)^k = M + ln Σ_i e^(ln P(X = i) + k·ln(i/m) − M),
/// M = max_i (ln P(X = i) + k·ln(i/m))
/// ```
pub fn ln_fp_exact_standard(m: u64, k: u32, n: u64, budget: f64) -> Option<f64> {
    Some(Occupancy::after(m, u64::from(k).checked_mul(n)?, budget)?.ln_fp(k))
}

/// Exact FP of a filter of `m` bits after `throws` ideal index throws, queried with `k`
/// indices, or `None` beyond `budget` steps: the law behind [`fp_exact_standard`] when
/// the items did not all use the same `k` (e.g. a filter folded from two filters with
/// different hash counts, Section 6 [PBF]).
///
/// # Formula
/// ```text
/// fp = Σ_i P(X = i)·(i/m)^k,   X = set bits after `throws` throws
/// ```
pub fn fp_exact_after_throws(m: u64, throws: u64, k: u32, budget: f64) -> Option<f64> {
    if throws as f64 * Occupancy::band_width(m, throws) > budget {
        return None;
    }
    Some(fp_unhit_chain(m, throws, k))
}

/// Exact FP of a standard filter of `m` bits after each load `j = 0..=j_max`: one
/// occupancy recursion read off every `k` throws. Used for the blocked layout, whose
/// blocks are small standard filters with a binomial load.
///
/// Returns `None` when the recursion would exceed `budget` steps.
pub fn fp_exact_by_load(m: u64, k: u32, j_max: u64, budget: f64) -> Option<Vec<f64>> {
    let t = u64::from(k).checked_mul(j_max)?;
    if t as f64 * Occupancy::band_width(m, t) > budget {
        return None;
    }
    let mut occupancy = Occupancy::new(m, t)?;
    let mut out = vec![0.0];
    for _ in 0..j_max {
        (0..k).for_each(|_| occupancy.throw());
        out.push(occupancy.fp(k));
    }
    Some(out)
}

/// Exact FP of one standard filter of `B` bits (a block) at every load `j`, grown on
/// demand and reused for every `(m, n)`: the blocked layout's FP is its mixture over the
/// binomial block load.
///
/// The table stops growing once the FP reaches `1 − 1e-15`; heavier loads read its last
/// entry.
#[derive(Debug)]
pub struct BlockFpTable {
    k: u32,
    block_bits: u64,
    budget: f64,
    occupancy: Occupancy,
    by_load: Vec<f64>,
}

impl BlockFpTable {
    /// An empty table for blocks of `block_bits` bits and `k` hashes that may spend up to
    /// `budget` recursion steps in all.
    pub fn new(block_bits: u64, k: u32, budget: f64) -> Self {
        Self {
            k,
            block_bits,
            budget,
            occupancy: Occupancy::growing(block_bits),
            by_load: vec![0.0],
        }
    }

    fn saturated(&self) -> bool {
        self.by_load[self.by_load.len() - 1] >= 1.0 - 1e-15
    }

    /// Grows the table to load `j`; `false` if that would exceed the budget.
    fn extend_to(&mut self, j: u64) -> bool {
        let have = self.by_load.len() as u64 - 1;
        if j <= have || self.saturated() {
            return true;
        }
        let t = u64::from(self.k).saturating_mul(j);
        let band = Occupancy::band_width(self.block_bits, t);
        if t as f64 * band > self.budget {
            return false;
        }
        // Under a [`crate::budget`] allowance the growth is paid from it; past it the
        // table stays as it is (the usual formula then, as beyond `budget`).
        let grown = u64::from(self.k).saturating_mul(have);
        let work = t.saturating_sub(grown) as f64 * band;
        if crate::budget::spend(work, "the classic exact blocked law").is_err() {
            return false;
        }
        while (self.by_load.len() as u64) <= j && !self.saturated() {
            (0..self.k).for_each(|_| self.occupancy.throw());
            self.by_load.push(self.occupancy.fp(self.k));
        }
        true
    }

    /// Exact FP of a block holding `j` items, or `None` beyond the budget.
    pub fn at(&mut self, j: u64) -> Option<f64> {
        if !self.extend_to(j) {
            return None;
        }
        let last = self.by_load.len() - 1;
        Some(self.by_load[usize::try_from(j).map_or(last, |j| j.min(last))])
    }

    /// Exact FP of a blocked filter of `m` bits (`m / B` blocks) holding `n` items, or
    /// `None` beyond the budget.
    ///
    /// ```text
    /// fp = Σ_j Bin(j; n, B/m) · E[(X_j/B)^k]
    /// ```
    pub fn mixture(&mut self, m: u64, n: u64) -> Option<f64> {
        let blocks = m / self.block_bits;
        if blocks <= 1 {
            return self.at(n);
        }
        if let Some(lo) = super::formulas::huge_load_floor(n, 1.0 / blocks as f64) {
            // Too wide to walk (issue 10): exact only if the table saturates below the
            // load floor, where every block's FP is the table's last entry.
            let f = self.at(lo)?;
            return (self.saturated() && lo + 1 >= self.by_load.len() as u64).then_some(f);
        }
        let pmf = crate::numeric::binomial_pmf(n, 1.0 / blocks as f64, 1e-30);
        let last = pmf.last().copied().unwrap_or((0, 1.0));
        let dropped = crate::numeric::binomial_cut_tail_bound(n, 1.0 / blocks as f64, last);
        let j_max = last.0;
        self.at(j_max)?;
        let sum: CompensatedSum = pmf
            .into_iter()
            .map(|(j, w)| w * self.at(j).unwrap_or(1.0))
            .collect();
        let fp = probability(sum.value());
        if fp < super::formulas::UNCUT_BELOW && dropped > 1e-13 * fp {
            // The cut load law can miss the loads that make a tiny FP (the mass it drops,
            // with a block FP of at most 1, exceeds 1e-13 of the FP). The uncut walk reads
            // this table (grown lazily, kept across calls). Where a block FP in the walk is
            // subnormal (inexact) or beyond the budget, the cut sum stands: rebuilding the
            // occupancy in log space from load 0 on every call (`ln_fp_blocked_exact`)
            // made `allocate --layout blocked` take minutes. An empty block's FP is exactly
            // 0 (`ln` = −∞).
            let ln = crate::numeric::ln_binomial_mixture(n, 1.0 / blocks as f64, |j| {
                self.at(j)
                    .filter(|&f| f == 0.0 || f >= f64::MIN_POSITIVE)
                    .map(f64::ln)
            });
            return Some(ln.map_or(fp, f64::exp));
        }
        Some(fp)
    }
}

/// The natural log of [`BlockFpTable::mixture`] for blocks of `block_bits` bits, in log
/// space, or `None` beyond `budget` recursion steps.
///
/// # Formula
/// ```text
/// ln fp = ln Σ_j Bin(j; n, B/m) · E[(X_j/B)^k]
/// ```
/// by [`crate::numeric::ln_binomial_mixture`] (no cut of the load law), each block's
/// `ln E[(X_j/B)^k]` by log-sum-exp over the occupancy law after `k·j` throws.
pub fn ln_fp_blocked_exact(m: u64, block_bits: u64, k: u32, n: u64, budget: f64) -> Option<f64> {
    let mut occupancy = Occupancy::growing(block_bits);
    let mut load = 0u64;
    let mut ln_block = |j: u64| -> Option<f64> {
        let t = u64::from(k).saturating_mul(j);
        if t as f64 * Occupancy::band_width(block_bits, t) > budget {
            return None;
        }
        while load < j {
            (0..k).for_each(|_| occupancy.throw());
            load += 1;
        }
        Some(occupancy.ln_fp(k))
    };
    let blocks = m / block_bits;
    if blocks <= 1 {
        return ln_block(n);
    }
    crate::numeric::ln_binomial_mixture(n, 1.0 / blocks as f64, ln_block)
}

/// `E[(X/m)^k]` after `t` throws by the occupancy recursion itself (the reference of
/// `fp_unhit_chain` in the tests).
#[cfg(test)]
pub(super) fn fp_by_recursion(m: u64, t: u64, k: u32) -> f64 {
    let mut occupancy = Occupancy::new(m, t).expect("test sizes fit");
    (0..t).for_each(|_| occupancy.throw());
    occupancy.fp(k)
}

/// [`fp_exact_standard`]'s evaluation, for the tests.
#[cfg(test)]
pub(super) fn fp_by_unhit_chain(m: u64, t: u64, k: u32) -> f64 {
    fp_unhit_chain(m, t, k)
}

/// The law of the number of set bits after `t` ideal throws into `m` bits, kept on a
/// band `[lo, hi]` of non-negligible probabilities.
#[derive(Debug)]
struct Occupancy {
    m: f64,
    p: Vec<f64>,
    lo: usize,
    hi: usize,
}

impl Occupancy {
    /// Expected band width for `t` throws: about `17·√m` once spread.
    fn band_width(m: u64, t: u64) -> f64 {
        (t as f64 + 1.0)
            .min(m as f64 + 1.0)
            .min(17.0 * (m as f64).sqrt() + 64.0)
    }

    /// The empty array, growing its band as throws come.
    fn growing(m: u64) -> Self {
        Self {
            m: m as f64,
            p: vec![1.0],
            lo: 0,
            hi: 0,
        }
    }

    /// The empty array, with room for `t_max` throws.
    fn new(m: u64, t_max: u64) -> Option<Self> {
        let cap = usize::try_from(t_max.min(m)).ok()?;
        let mut p = vec![0.0f64; cap + 1];
        p[0] = 1.0;
        Some(Self {
            m: m as f64,
            p,
            lo: 0,
            hi: 0,
        })
    }

    /// The law after `t` throws, or `None` when the recursion would exceed `budget`
    /// steps.
    fn after(m: u64, t: u64, budget: f64) -> Option<Self> {
        if t as f64 * Self::band_width(m, t) > budget {
            return None;
        }
        let mut occupancy = Self::new(m, t)?;
        (0..t).for_each(|_| occupancy.throw());
        Some(occupancy)
    }

    /// One more throw: `P'(i) = P(i)·i/m + P(i-1)·(m-i+1)/m`.
    fn throw(&mut self) {
        if self.hi + 1 == self.p.len() && (self.p.len() as f64) < self.m + 1.0 {
            self.p.push(0.0);
        }
        let (p, mf) = (&mut self.p, self.m);
        if self.hi + 1 < p.len() {
            self.hi += 1;
        }
        for i in (self.lo.max(1)..=self.hi).rev() {
            p[i] = p[i] * (i as f64 / mf) + p[i - 1] * ((mf - (i as f64 - 1.0)) / mf);
        }
        p[0] = 0.0;
        if self.lo == 0 {
            self.lo = 1.min(self.hi);
        }
        while self.lo < self.hi && p[self.lo] < NEGLIGIBLE {
            p[self.lo] = 0.0;
            self.lo += 1;
        }
        while self.hi > self.lo && p[self.hi] < NEGLIGIBLE {
            p[self.hi] = 0.0;
            self.hi -= 1;
        }
    }

    /// `E[(X/m)^k]`, the FP of a fresh item.
    fn fp(&self, k: u32) -> f64 {
        let sum: CompensatedSum = (self.lo..=self.hi)
            .map(|i| self.p[i] * (i as f64 / self.m).powi(k as i32))
            .collect();
        probability(sum.value())
    }

    /// `ln E[(X/m)^k]` by log-sum-exp over the band (see [`ln_fp_exact_standard`]):
    /// `-inf` when only `X = 0` has mass.
    fn ln_fp(&self, k: u32) -> f64 {
        let terms: Vec<f64> = (self.lo.max(1)..=self.hi)
            .filter(|&i| self.p[i] > 0.0)
            .map(|i| self.p[i].ln() + f64::from(k) * (i as f64 / self.m).ln())
            .collect();
        crate::numeric::log_sum_exp(&terms)
    }
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
    for (d, s_d) in s.iter().enumerate().take(k_us.min(m as usize) + 1).skip(1) {
        // C(m,d)·d! = m·(m-1)···(m-d+1)
        let falling: BigInt = (0..d as u64).map(|i| big(m - i)).product();
        let p_d = BigRational::new(falling * s_d, m_pow_k.clone());
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
