//! Numerically stable building blocks shared by every family.
//!
//! Bloom-filter formulas are full of `1 - (1 - x)^n` with tiny `x` and huge `n`; written
//! naively they lose every digit. The helpers here use `ln_1p` / `exp_m1` rewrites,
//! log-sum-exp and compensated (Neumaier) summation.

/// `(1 - x)^n` computed as `exp(n · ln(1 - x))` with `ln_1p`.
///
/// # Numerics
/// Accurate to a few ulps for `x` as small as 1e-300 and `n` up to 1e300.
pub fn pow1m(x: f64, n: f64) -> f64 {
    if n == 0.0 {
        return 1.0;
    }
    (n * (-x).ln_1p()).exp()
}

/// `1 - (1 - x)^n` computed as `-expm1(n · ln(1 - x))`.
///
/// # Numerics
/// No cancellation: relative error of a few ulps even when the result is 1e-18.
pub fn one_minus_pow1m(x: f64, n: f64) -> f64 {
    if n == 0.0 {
        return 0.0;
    }
    -(n * (-x).ln_1p()).exp_m1()
}

/// `1 - e^(-x)` without cancellation.
pub fn one_minus_exp_neg(x: f64) -> f64 {
    -(-x).exp_m1()
}

/// The probability that at least one of two independent events occurs,
/// `1 − (1 − a)(1 − b)`, computed as `a + b·(1 − a)`.
///
/// # Numerics
/// The product form cancels to 0 once both probabilities are below 1.1e-16 (issue 17:
/// a two-phase RBF printed `fp_avg 0` beside `fp_frozen 5.55e-17`); this sum of
/// non-negative terms keeps full relative precision at any size.
pub fn either(a: f64, b: f64) -> f64 {
    a + b * (1.0 - a)
}

/// The natural log of [`either`], `ln(a + b·(1 − a))` from `ln a` and `ln b`, in log
/// space: `LSE(ln a, ln b + ln(1 − a))` (no cancellation, any magnitude).
pub fn ln_either(ln_a: f64, ln_b: f64) -> f64 {
    log_add_exp(ln_a, ln_b + (-ln_a.exp()).ln_1p())
}

/// `ln(Σ e^(a_i))` without overflow; `-inf` for an empty slice.
pub fn log_sum_exp(terms: &[f64]) -> f64 {
    let max = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if max == f64::INFINITY {
        return f64::INFINITY;
    }
    let s: f64 = terms.iter().map(|&t| (t - max).exp()).sum();
    max + s.ln()
}

/// `ln(e^a + e^b)`.
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// A running `ln(Σ e^(a_i))` over a stream of logs (log-sum-exp without storing the
/// terms): the largest log so far is kept apart and the others summed relative to it.
///
/// # Numerics
/// Every stored term `e^(a_i − max) ≤ 1`, summed with [`CompensatedSum`]: the result's
/// relative error does not grow with the number of terms, and no term underflows
/// unless it is below `e^(−745)` of the largest, where it cannot change the sum.
#[derive(Debug, Clone, Copy)]
pub struct LnSum {
    max: f64,
    sum: CompensatedSum,
}

impl Default for LnSum {
    fn default() -> Self {
        Self {
            max: f64::NEG_INFINITY,
            sum: CompensatedSum::new(),
        }
    }
}

impl LnSum {
    /// An empty sum (`ln 0 = −∞`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `e^ln_term`; `−∞` adds nothing.
    pub fn add(&mut self, ln_term: f64) {
        if ln_term == f64::NEG_INFINITY {
            return;
        }
        if ln_term > self.max {
            let scale = (self.max - ln_term).exp();
            let old = self.sum.value() * scale;
            self.sum = CompensatedSum::new();
            self.sum.add(old);
            self.sum.add(1.0);
            self.max = ln_term;
        } else {
            self.sum.add((ln_term - self.max).exp());
        }
    }

    /// `ln Σ e^(a_i)`; `−∞` when empty.
    pub fn value(&self) -> f64 {
        if self.max == f64::NEG_INFINITY {
            return f64::NEG_INFINITY;
        }
        self.max + self.sum.value().ln()
    }
}

impl FromIterator<f64> for LnSum {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = LnSum::new();
        for x in iter {
            s.add(x);
        }
        s
    }
}

/// `ln(1 − e^(−e^l))`: the log of the probability `1 − e^(−x)` given `l = ln x`, in log
/// space, so that it keeps its relative precision when `x` is below the smallest `f64`.
///
/// # Formula
/// ```text
/// ln(1 − e^(−x)) = ln x + ln((1 − e^(−x))/x) = ln x − x/2 + O(x²)
/// ```
/// For `l < −40` (`x < 4.3e-18`) the correction `x/2` is below `f64` resolution and
/// `l` is returned; otherwise `ln(−expm1(−e^l))`.
pub fn ln_one_minus_exp_neg_exp(l: f64) -> f64 {
    if l < -40.0 {
        l
    } else {
        one_minus_exp_neg(l.exp()).ln()
    }
}

/// Most terms a log-space mixture ([`ln_binomial_mixture`], [`ln_poisson_mixture`])
/// walks before giving up (about 0.5 s).
pub const LN_MIXTURE_STEPS: u64 = 10_000_000;

/// `ln Σ_j P(J = j)·e^(ln_f(j))` for `J ~ Binomial(n, p)`, in log space: no cut of the
/// load law, so a tail load whose `f` outweighs its small mass is kept however small
/// the sum is. `None` when `ln_f` gives up or the walk exceeds [`LN_MIXTURE_STEPS`].
///
/// # Formula
/// ```text
/// ln w_mode = 0,   ln w_(j+1) − ln w_j = ln((n − j)/(j + 1)) + ln(p/(1 − p))
/// ln mixture = LSE_j(ln w_j + ln f(j)) − LSE_j(ln w_j)
/// ```
/// The weights are walked outward from the mode (as [`binomial_pmf`] does, so that the
/// rounding of `ln(p/(1 − p))` grows with the distance from the mode, not with `j`)
/// with compensated sums, and normalised by their own log-sum. `ln_f` is called in
/// increasing `j` and must be nondecreasing and concave in `j` (as `k·ln(1 − (1 −
/// x)^j)` is): the terms are then unimodal with their peak at or above the mode, and
/// the walk stops where both the weight and the term are `e^80` below their peaks.
pub fn ln_binomial_mixture(
    n: u64,
    p: f64,
    mut ln_f: impl FnMut(u64) -> Option<f64>,
) -> Option<f64> {
    // A degenerate law: every item in one block (one block in all), or none.
    if p >= 1.0 {
        return ln_f(n);
    }
    if p <= 0.0 {
        return ln_f(0);
    }
    let ln_odds = p.ln() - (-p).ln_1p();
    let nf = n as f64;
    let mode = (((nf + 1.0) * p).floor() as u64).min(n);
    ln_mixture_walk(
        mode,
        n,
        |j| ((nf - j as f64) / (j as f64 + 1.0)).ln() + ln_odds,
        ln_f,
    )
}

/// `ln Σ_j P(J = j)·e^(ln_f(j))` for `J ~ Poisson(λ)`, in log space, as
/// [`ln_binomial_mixture`] with `ln w_(j+1) − ln w_j = ln λ − ln(j + 1)` from the mode
/// `⌊λ⌋`.
pub fn ln_poisson_mixture(lambda: f64, ln_f: impl FnMut(u64) -> Option<f64>) -> Option<f64> {
    let ln_lambda = lambda.ln();
    ln_mixture_walk(
        lambda.floor() as u64,
        u64::MAX,
        |j| ln_lambda - (j as f64 + 1.0).ln(),
        ln_f,
    )
}

/// The walk of [`ln_binomial_mixture`]: the mode, the largest `j`, the log weight ratio
/// `ln w_(j+1)/w_j`.
fn ln_mixture_walk(
    mode: u64,
    j_max: u64,
    mut ln_up: impl FnMut(u64) -> f64,
    mut ln_f: impl FnMut(u64) -> Option<f64>,
) -> Option<f64> {
    const DROP: f64 = 80.0;
    // Below the mode: weights only (f is nondecreasing, so those terms are below the
    // mode's by at least as much as their weights), stored to call ln_f in order.
    let mut below = Vec::new();
    let mut ln_w = CompensatedSum::new();
    let mut j = mode;
    while j > 0 {
        ln_w.add(-ln_up(j - 1));
        j -= 1;
        let w = ln_w.value();
        if w < -DROP {
            break;
        }
        below.push((j, w));
        if below.len() as u64 > LN_MIXTURE_STEPS {
            return None;
        }
    }
    let (mut terms, mut weights) = (LnSum::new(), LnSum::new());
    let mut peak = f64::NEG_INFINITY;
    for &(j, w) in below.iter().rev() {
        let t = w + ln_f(j)?;
        terms.add(t);
        weights.add(w);
        peak = peak.max(t);
    }
    let mut ln_w = CompensatedSum::new();
    let mut j = mode;
    let mut steps = 0u64;
    loop {
        let w = ln_w.value();
        let t = w + ln_f(j)?;
        terms.add(t);
        weights.add(w);
        peak = peak.max(t);
        if j >= j_max || (w < -DROP && t < peak - DROP) {
            return Some(terms.value() - weights.value());
        }
        steps += 1;
        if steps > LN_MIXTURE_STEPS {
            return None;
        }
        ln_w.add(ln_up(j));
        j += 1;
    }
}

/// Neumaier's compensated sum: error independent of the number of terms.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompensatedSum {
    sum: f64,
    compensation: f64,
}

impl CompensatedSum {
    /// An empty sum.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one term.
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The sum so far. Once a term or the running sum is infinite the compensation is
    /// meaningless (`∞ − ∞` is NaN) and the sum is the IEEE sum itself: `±∞`, or NaN
    /// when both infinities were added.
    pub fn value(&self) -> f64 {
        if self.sum.is_infinite() {
            self.sum
        } else {
            self.sum + self.compensation
        }
    }
}

impl FromIterator<f64> for CompensatedSum {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = CompensatedSum::new();
        for x in iter {
            s.add(x);
        }
        s
    }
}

/// `ln C(n, k)` for real-valued use (via `ln Γ`, statrs).
pub fn ln_binomial(n: u64, k: u64) -> f64 {
    statrs::function::factorial::ln_binomial(n, k)
}

/// The upper tail `P(X ≥ t)` of `X ~ Binomial(n, p)`: `Σ_{j ≥ t} C(n, j) p^j (1−p)^(n−j)`.
///
/// # Numerics
/// The first term is built in logs from `ln C(n, t) = Σ_{i=1..t} ln((n−t+i)/i)` (no
/// `ln Γ` differences, whose absolute error grows with `n`) and `(n−t)·ln_1p(−p)`; the
/// later terms follow by the pmf ratio `(n−j)/(j+1) · p/(1−p)` and are summed with
/// compensation until they stop adding to the sum. Relative error about `1e-13` for
/// `t ≤ 2^16` (checked against exact rationals in `models/tests/precision`). The sum is
/// not started below the mode: callers ask for tails (`t` above the mean `np`); a tail
/// from below the mean is computed as `1 − P(X < t)` by the same walk.
pub fn binomial_upper_tail(n: u64, p: f64, t: u64) -> f64 {
    if t == 0 {
        return 1.0;
    }
    if t > n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let (nf, tf) = (n as f64, t as f64);
    if tf <= nf * p {
        // Below the mean: the complement's terms are the small ones.
        return probability(1.0 - binomial_lower_tail(n, p, t - 1));
    }
    let ln_choose: f64 = (1..=t)
        .map(|i| ((nf - tf + i as f64) / i as f64).ln())
        .sum();
    let ln_first = ln_choose + tf * p.ln() + (nf - tf) * (-p).ln_1p();
    let ratio_p = p / (1.0 - p);
    let mut term = ln_first.exp();
    let mut sum = CompensatedSum::default();
    let mut j = t;
    while term > 0.0 && j <= n {
        sum.add(term);
        if term < sum.value() * 1e-18 {
            break;
        }
        term *= (nf - j as f64) / (j as f64 + 1.0) * ratio_p;
        j += 1;
    }
    probability(sum.value())
}

/// `P(X ≤ t)` of `X ~ Binomial(n, p)` for `t` below the mean, summed downward from `t`
/// like [`binomial_upper_tail`].
fn binomial_lower_tail(n: u64, p: f64, t: u64) -> f64 {
    let (nf, tf) = (n as f64, t as f64);
    let ln_choose: f64 = (1..=t)
        .map(|i| ((nf - tf + i as f64) / i as f64).ln())
        .sum();
    let mut term = (ln_choose + tf * p.ln() + (nf - tf) * (-p).ln_1p()).exp();
    let ratio_q = (1.0 - p) / p;
    let mut sum = CompensatedSum::default();
    let mut j = t;
    loop {
        sum.add(term);
        if j == 0 || term < sum.value() * 1e-18 {
            break;
        }
        term *= j as f64 / (nf - j as f64 + 1.0) * ratio_q;
        j -= 1;
    }
    sum.value()
}

/// The smallest integer `x` in `[lo, hi]` for which the monotone predicate holds
/// (`pred(x)` false below some point, true from it on), or `None` if `pred(hi)` is false.
///
/// Used by every sizing routine ("smallest m whose FP meets the target").
pub fn first_true(lo: u64, hi: u64, mut pred: impl FnMut(u64) -> bool) -> Option<u64> {
    if lo > hi || !pred(hi) {
        return None;
    }
    Some(bisect(lo, hi, pred))
}

/// The smallest `x` in `[lo, hi]` where the monotone `pred` holds (false below it, true
/// from it on), as [`first_true`], but found by galloping up from
/// `lo` (`lo, lo + 1, lo + 3, lo + 7, …`) and bisecting the last step: about
/// `2·log2(x − lo + 1)` calls instead of `log2(hi − lo)`, fewer where `x` lies near `lo`
/// (the IBF planner's number of decrements `P`: a few units in thousands).
pub fn first_true_near(lo: u64, hi: u64, mut pred: impl FnMut(u64) -> bool) -> Option<u64> {
    let (mut below, mut x, mut step) = (lo, lo, 1u64);
    loop {
        if x > hi {
            return None;
        }
        if pred(x) {
            break;
        }
        if x == hi {
            return None;
        }
        below = x + 1;
        x = x.saturating_add(step).min(hi);
        step = step.saturating_mul(2);
    }
    // pred(x) holds and fails below `below`.
    Some(bisect(below, x, pred))
}

/// The smallest `x` in `[lo, hi]` where the monotone `pred` holds, as [`first_true`], but
/// found by galloping from `guess` (clamped to `[lo, hi]`): down (`guess − 1, guess − 3,
/// guess − 7, …`) while `pred` holds there, else up as [`first_true_near`], then bisecting
/// the last step: about `2·log2(|x − guess| + 1) + 1` calls (the IBF planner's `P`, guessed
/// from its neighbour's).
pub fn first_true_around(
    lo: u64,
    guess: u64,
    hi: u64,
    mut pred: impl FnMut(u64) -> bool,
) -> Option<u64> {
    if lo > hi {
        return None;
    }
    let guess = guess.clamp(lo, hi);
    if !pred(guess) {
        return if guess == hi {
            None
        } else {
            first_true_near(guess + 1, hi, pred)
        };
    }
    // pred(top) holds.
    let (mut top, mut step) = (guess, 1u64);
    loop {
        if top == lo {
            return Some(lo);
        }
        let x = top.saturating_sub(step).max(lo);
        if !pred(x) {
            return Some(bisect(x + 1, top, pred));
        }
        top = x;
        step = step.saturating_mul(2);
    }
}

/// The first `x` in `[lo, hi]` where the monotone `pred` holds, given that it holds at `hi`.
fn bisect(mut lo: u64, mut hi: u64, mut pred: impl FnMut(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The largest integer `x` in `[lo, hi]` for which the monotone predicate holds
/// (`pred(x)` true up to some point, false after it), or `None` if `pred(lo)` is false.
pub fn last_true(lo: u64, hi: u64, mut pred: impl FnMut(u64) -> bool) -> Option<u64> {
    if lo > hi || !pred(lo) {
        return None;
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if pred(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// The Binomial(n, p) pmf at every `j` whose mass is at least `cut` times the mass at
/// the mode, as `(j, pmf)` pairs, in increasing `j`.
///
/// # Numerics
/// Weights are walked outward from the mode by the pmf ratio starting from 1, then
/// normalised by their (compensated) sum; no `ln Γ` differences, whose absolute error
/// grows with `n`, enter the result.
pub fn binomial_pmf(n: u64, p: f64, cut: f64) -> Vec<(u64, f64)> {
    let nf = n as f64;
    let mode = (((nf + 1.0) * p).floor() as u64).min(n);
    let odds = p / (1.0 - p);
    let mut below = Vec::new();
    let mut w = 1.0;
    let mut j = mode;
    while j > 0 {
        w *= j as f64 / (nf - j as f64 + 1.0) / odds;
        j -= 1;
        if w < cut {
            break;
        }
        below.push((j, w));
    }
    below.reverse();
    below.push((mode, 1.0));
    let mut w = 1.0;
    let mut j = mode;
    while j < n {
        w *= (nf - j as f64) / (j as f64 + 1.0) * odds;
        j += 1;
        if w < cut {
            break;
        }
        below.push((j, w));
    }
    let total: CompensatedSum = below.iter().map(|&(_, w)| w).collect();
    let total = total.value();
    below.iter_mut().for_each(|(_, w)| *w /= total);
    below
}

/// A bound on the Binomial(n, p) mass that [`binomial_pmf`] drops above its last kept
/// load `(j, w)` (`w` normalised): the ratios `r_i = (n − i)/(i + 1) · p/(1 − p)` fall with
/// `i`, so the dropped terms are at most the geometric series `w·r_j/(1 − r_(j+1))`
/// (infinite where `r_(j+1) >= 1`, 0 at `j = n`). A mixture `Σ w_j f(j)` with `f <= 1`
/// cut there is low by at most this.
pub fn binomial_cut_tail_bound(n: u64, p: f64, last: (u64, f64)) -> f64 {
    let (j, w) = last;
    if j >= n {
        return 0.0;
    }
    let odds = p / (1.0 - p);
    let nf = n as f64;
    let ratio = |i: u64| (nf - i as f64) / (i as f64 + 1.0) * odds;
    let next = ratio(j + 1);
    if next >= 1.0 {
        f64::INFINITY
    } else {
        w * ratio(j) / (1.0 - next)
    }
}

/// Gauss-Legendre nodes and weights on `[0, 1]` (`n` points, exact for polynomials of
/// degree `2n − 1`), by the Golub-Welsch eigenvalue method (nalgebra symmetric eigen of
/// the Jacobi matrix with off-diagonal `i / sqrt(4i² − 1)`).
///
/// # Accuracy
/// Nodes and weights to about 1e-15; the weights sum to 1.
///
/// # Cost
/// Computed once per process for `n` below 32 and copied after (the Zipf `D(j)` asked
/// for the same 8 nodes at every evaluation: an eigendecomposition each time, issue 17).
pub fn gauss_legendre_unit(n: usize) -> Vec<(f64, f64)> {
    use std::sync::OnceLock;
    const CACHED: usize = 32;
    static TABLES: [OnceLock<Vec<(f64, f64)>>; CACHED] = [const { OnceLock::new() }; CACHED];
    let n = n.max(1);
    match TABLES.get(n) {
        Some(table) => table.get_or_init(|| golub_welsch(n)).clone(),
        None => golub_welsch(n),
    }
}

/// [`gauss_legendre_unit`] computed.
fn golub_welsch(n: usize) -> Vec<(f64, f64)> {
    let jacobi = nalgebra::DMatrix::from_fn(n, n, |i, j| {
        if i.abs_diff(j) == 1 {
            let m = i.max(j) as f64;
            m / (4.0 * m * m - 1.0).sqrt()
        } else {
            0.0
        }
    });
    let eig = jacobi.symmetric_eigen();
    let mut nodes: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let v = eig.eigenvectors[(0, i)];
            // Nodes on [-1, 1] with weights 2 v0²; mapped to [0, 1].
            ((eig.eigenvalues[i] + 1.0) / 2.0, v * v)
        })
        .collect();
    nodes.sort_by(|a, b| a.0.total_cmp(&b.0));
    nodes
}

/// The Poisson(λ) pmf at every `j` whose mass is at least `cut` times the mass at the
/// mode, as `(j, pmf)` pairs in increasing `j`, normalised like [`binomial_pmf`].
pub fn poisson_pmf(lambda: f64, cut: f64) -> Vec<(u64, f64)> {
    let mode = lambda.floor().max(0.0) as u64;
    let mut out = Vec::new();
    let mut w = 1.0;
    let mut j = mode;
    while j > 0 {
        w *= j as f64 / lambda;
        j -= 1;
        if w < cut {
            break;
        }
        out.push((j, w));
    }
    out.reverse();
    out.push((mode, 1.0));
    let mut w = 1.0;
    let mut j = mode;
    loop {
        w *= lambda / (j as f64 + 1.0);
        j += 1;
        if w < cut {
            break;
        }
        out.push((j, w));
    }
    let total: CompensatedSum = out.iter().map(|&(_, w)| w).collect();
    let total = total.value();
    out.iter_mut().for_each(|(_, w)| *w /= total);
    out
}

/// Debug-checks that `p` is a probability (before any clamp, so bugs are not hidden)
/// and returns it clamped to `[0, 1]` against last-ulp rounding.
#[inline]
pub fn probability(p: f64) -> f64 {
    debug_assert!(
        (-1e-12..=1.0 + 1e-12).contains(&p),
        "probability out of range: {p}"
    );
    p.clamp(0.0, 1.0)
}

/// A real function of one real, as argmin's `CostFunction`.
struct RealFn<'a>(&'a dyn Fn(f64) -> f64);

impl argmin::core::CostFunction for RealFn<'_> {
    type Param = f64;
    type Output = f64;
    fn cost(&self, x: &f64) -> Result<f64, argmin::core::Error> {
        Ok((self.0)(*x))
    }
}

/// A root of `f` on `[lo, hi]` by Brent's method (argmin's `BrentRoot`), to `tol`,
/// where `f(lo) ≥ 0 ≥ f(hi)`: the signs are checked here first, since argmin checks the
/// bracket only in `init` (a NaN end fails the check).
///
/// # Errors
/// [`crate::ModelError::NoConvergence`] named `BrentRoot bracket` when the signs are
/// wrong, `BrentRoot` after 200 iterations or on a non-finite result.
pub fn brent_root(
    f: &dyn Fn(f64) -> f64,
    lo: f64,
    hi: f64,
    tol: f64,
) -> Result<f64, crate::ModelError> {
    use crate::ModelError;
    use argmin::core::{Executor, State};
    const MAX_ITERS: u64 = 200;
    let (f_lo, f_hi) = (f(lo), f(hi));
    if !(f_lo >= 0.0 && f_hi <= 0.0) {
        return Err(ModelError::NoConvergence {
            solver: "BrentRoot bracket",
            iterations: 0,
            residual: if f_lo.is_nan() { f_lo } else { f_lo.min(-f_hi) },
        });
    }
    let solver = argmin::solver::brent::BrentRoot::new(lo, hi, tol);
    let result = Executor::new(RealFn(f), solver)
        .configure(|s| s.param(hi).max_iters(MAX_ITERS))
        .timer(false)
        .run()
        .map_err(|_| ModelError::NoConvergence {
            solver: "BrentRoot",
            iterations: 0,
            residual: f64::NAN,
        })?;
    let state = result.state();
    let x = state.get_best_param().copied().unwrap_or(f64::NAN);
    if !x.is_finite() || state.get_iter() >= MAX_ITERS {
        return Err(ModelError::NoConvergence {
            solver: "BrentRoot",
            iterations: state.get_iter(),
            residual: state.get_best_cost(),
        });
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// A term that overflows to `−∞` makes the sum `−∞`, not NaN (a fuzz input:
    /// `model pbf --bits 1 --distinct 6.54e1,4.9e0 --frequency 6.85e1,1e308` summed
    /// `−f·softplus(·)` below `−f64::MAX` and printed FP NaN).
    #[test]
    fn compensated_sum_of_an_infinite_term_is_infinite() {
        let s: CompensatedSum = [1.0, f64::NEG_INFINITY, 2.5].into_iter().collect();
        assert_eq!(s.value(), f64::NEG_INFINITY);
        let s: CompensatedSum = [-f64::MAX, -f64::MAX, 1.0].into_iter().collect();
        assert_eq!(s.value(), f64::NEG_INFINITY);
        let s: CompensatedSum = [f64::INFINITY, f64::NEG_INFINITY].into_iter().collect();
        assert!(s.value().is_nan());
        let s: CompensatedSum = [1e16, 1.0, -1e16].into_iter().collect();
        assert_eq!(s.value(), 1.0);
    }

    #[test]
    fn either_keeps_tiny_probabilities() {
        // Issue 17: 1 − (1 − 1e-17)(1 − 5.55e-17) is 0 in f64.
        assert_eq!(1.0 - (1.0 - 1e-17) * (1.0 - 5.55e-17), 0.0);
        assert_relative_eq!(either(1e-17, 5.55e-17), 6.55e-17, max_relative = 1e-15);
        assert_relative_eq!(either(1e-300, 0.0), 1e-300, max_relative = 1e-15);
        assert_eq!(either(0.0, 0.0), 0.0);
        assert_eq!(either(1.0, 0.5), 1.0);
        assert_relative_eq!(either(0.5, 0.5), 0.75, max_relative = 1e-15);
    }

    #[test]
    fn one_minus_pow1m_is_accurate_for_tiny_x() {
        // 1 - (1 - 1e-12)^1000 = 1e-9 - 4.995e-19 + ...
        let v = one_minus_pow1m(1e-12, 1000.0);
        assert_relative_eq!(v, 1e-9 * (1.0 - 0.4995e-9), max_relative = 1e-15);
        assert_eq!(one_minus_pow1m(0.5, 0.0), 0.0);
        assert_eq!(pow1m(0.5, 2.0), 0.25);
    }

    #[test]
    fn log_sum_exp_matches_direct_sum() {
        let t = [0.1f64.ln(), 0.2f64.ln(), 0.3f64.ln()];
        assert_relative_eq!(log_sum_exp(&t), 0.6f64.ln(), max_relative = 1e-15);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert_relative_eq!(log_add_exp(0.5f64.ln(), 0.25f64.ln()), 0.75f64.ln());
    }

    #[test]
    fn ln_sum_matches_log_sum_exp_in_any_order() {
        let t = [
            0.1f64.ln(),
            -800.0,
            0.3f64.ln(),
            f64::NEG_INFINITY,
            0.2f64.ln(),
        ];
        let s: LnSum = t.iter().copied().collect();
        assert_relative_eq!(s.value(), log_sum_exp(&t), max_relative = 1e-15);
        // Terms far below the smallest f64, in increasing order.
        let tiny: LnSum = [-2000.0, -1000.0, -1000.0].into_iter().collect();
        assert_relative_eq!(tiny.value(), -1000.0 + 2f64.ln(), max_relative = 1e-15);
        assert_eq!(LnSum::new().value(), f64::NEG_INFINITY);
    }

    #[test]
    fn ln_one_minus_exp_neg_exp_is_continuous_at_its_switch() {
        for l in [-39.9, -40.0, -40.1, -2.0, 0.5, -1e4] {
            let direct = one_minus_exp_neg(f64::exp(l)).ln();
            let want = if direct.is_finite() { direct } else { l };
            assert_relative_eq!(ln_one_minus_exp_neg_exp(l), want, max_relative = 1e-15);
        }
    }

    #[test]
    fn ln_mixtures_match_direct_sums() {
        // E[(j/10)^3] for J ~ Bin(20, 0.3) and Poisson(2.5), summed directly.
        let ln_f = |j: u64| Some(3.0 * (j as f64 / 10.0).ln());
        let direct: f64 = binomial_pmf(20, 0.3, 0.0)
            .iter()
            .map(|&(j, w)| w * (j as f64 / 10.0).powi(3))
            .sum();
        let got = ln_binomial_mixture(20, 0.3, ln_f).unwrap();
        assert_relative_eq!(got, direct.ln(), max_relative = 1e-14);
        let direct: f64 = poisson_pmf(2.5, 1e-300)
            .iter()
            .map(|&(j, w)| w * (j as f64 / 10.0).powi(3))
            .sum();
        let got = ln_poisson_mixture(2.5, ln_f).unwrap();
        assert_relative_eq!(got, direct.ln(), max_relative = 1e-14);
        // A tail load that outweighs its mass: f(j) = e^(−1000)·10^(60j) over Bin(10, 1e-9).
        let ln_f = |j: u64| Some(-1000.0 + 60.0 * j as f64 * std::f64::consts::LN_10);
        let got = ln_binomial_mixture(10, 1e-9, ln_f).unwrap();
        assert_eq!(ln_binomial_mixture(7, 1.0, |j| Some(j as f64)), Some(7.0));
        // Dominated by j = 10: 1e-90 · 10^600 · e^-1000.
        let want = -90.0 * std::f64::consts::LN_10 + 600.0 * std::f64::consts::LN_10 - 1000.0;
        assert_relative_eq!(got, want, max_relative = 1e-12);
    }

    #[test]
    fn compensated_sum_recovers_small_terms() {
        let s: CompensatedSum = [1.0, 1e-16, 1e-16, -1.0].into_iter().collect();
        assert_relative_eq!(s.value(), 2e-16, max_relative = 1e-12);
    }

    #[test]
    fn binomial_pmf_sums_to_one_and_matches_statrs() {
        use statrs::distribution::{Binomial, Discrete};
        let pmf = binomial_pmf(1000, 0.01, 1e-30);
        let total: f64 = pmf.iter().map(|&(_, p)| p).sum();
        assert_relative_eq!(total, 1.0, max_relative = 1e-14);
        let reference = Binomial::new(0.01, 1000).unwrap();
        for &(j, p) in pmf.iter().filter(|&&(j, _)| j < 40) {
            assert_relative_eq!(p, reference.pmf(j), max_relative = 1e-9);
        }
        assert_eq!(binomial_pmf(5, 1.0, 1e-30), vec![(5, 1.0)]);
    }

    #[test]
    fn binary_searches_find_the_boundary() {
        assert_eq!(first_true(0, 100, |x| x >= 37), Some(37));
        assert_eq!(first_true(0, 100, |x| x >= 101), None);
        assert_eq!(last_true(0, 100, |x| x <= 37), Some(37));
        assert_eq!(last_true(5, 100, |x| x <= 3), None);
        assert_eq!(last_true(0, u64::MAX, |_| true), Some(u64::MAX));
    }
    #[test]
    fn gauss_legendre_integrates_polynomials_and_exponentials() {
        let q = gauss_legendre_unit(8);
        let total: f64 = q.iter().map(|&(_, w)| w).sum();
        assert_relative_eq!(total, 1.0, max_relative = 1e-14);
        // ∫_0^1 x^15 dx = 1/16 (degree 2n − 1 is exact).
        let p: f64 = q.iter().map(|&(x, w)| w * x.powi(15)).sum();
        assert_relative_eq!(p, 1.0 / 16.0, max_relative = 1e-13);
        let e: f64 = q.iter().map(|&(x, w)| w * x.exp()).sum();
        assert_relative_eq!(e, std::f64::consts::E - 1.0, max_relative = 1e-14);
    }

    #[test]
    fn poisson_pmf_sums_to_one_and_matches_statrs() {
        use statrs::distribution::{Discrete, Poisson};
        let pmf = poisson_pmf(10.74, 1e-30);
        let total: f64 = pmf.iter().map(|&(_, p)| p).sum();
        assert_relative_eq!(total, 1.0, max_relative = 1e-14);
        let reference = Poisson::new(10.74).unwrap();
        for &(j, p) in &pmf {
            assert_relative_eq!(p, reference.pmf(j), max_relative = 1e-9);
        }
        assert_eq!(poisson_pmf(0.0, 1e-30), vec![(0, 1.0)]);
    }

    #[test]
    fn first_true_near_agrees_with_bisection() {
        for lo in 0..6u64 {
            for hi in lo..40 {
                for t in 0..45u64 {
                    let mut calls = 0;
                    let near = first_true_near(lo, hi, |x| {
                        calls += 1;
                        x >= t
                    });
                    assert_eq!(
                        near,
                        first_true(lo, hi, |x| x >= t),
                        "lo {lo} hi {hi} t {t}"
                    );
                    assert!(calls <= 2 * (64 - (t.max(lo) - lo + 1).leading_zeros()) + 1);
                }
            }
        }
        assert_eq!(
            first_true_near(1, u64::MAX, |x| x >= 1 << 62),
            Some(1 << 62)
        );
    }

    #[test]
    fn first_true_around_agrees_with_bisection() {
        for lo in 0..6u64 {
            for hi in lo..30 {
                for guess in 0..34u64 {
                    for t in 0..34u64 {
                        let mut calls = 0;
                        let around = first_true_around(lo, guess, hi, |x| {
                            calls += 1;
                            assert!((lo..=hi).contains(&x), "{x} outside [{lo}, {hi}]");
                            x >= t
                        });
                        assert_eq!(
                            around,
                            first_true(lo, hi, |x| x >= t),
                            "lo {lo} hi {hi} guess {guess} t {t}"
                        );
                        let g = guess.clamp(lo, hi);
                        let off = t.clamp(lo, hi).abs_diff(g) + 1;
                        assert!(calls <= 2 * (64 - off.leading_zeros()) + 2, "{calls} calls");
                    }
                }
            }
        }
        assert_eq!(first_true_around(3, 9, 2, |_| true), None);
        assert_eq!(
            first_true_around(1, 1 << 40, u64::MAX, |x| x >= 1 << 62),
            Some(1 << 62)
        );
    }
}
