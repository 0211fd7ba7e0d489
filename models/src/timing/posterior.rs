//! The posterior engine of the inferential framework, Sections 2.3 and 6.1.4 [TBF]:
//! sliding-window posteriors, expected and most likely insertion ages for likelihoods
//! that are piecewise constant in the age (the BTBF, the Simple Buffer); a direct
//! term-by-term summation of Eq. (9) for any likelihood (the reference every closed
//! form is tested against, and the route for the GBF); posterior calibration and the
//! Posterior Error of Eq. (35).

use crate::numeric::CompensatedSum;
use serde::{Deserialize, Serialize};

/// A likelihood `P(R_x | i)` that is constant on consecutive age ranges: piece `t`
/// covers `starts[t] <= i < starts[t+1]`, the last piece extends to infinity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PiecewiseLikelihood {
    pieces: Vec<(u64, f64)>,
}

impl PiecewiseLikelihood {
    /// Pieces `(start, value)`; starts strictly increasing from 0, values in `[0, 1]`.
    ///
    /// # Panics
    /// Internal invariant: the callers in this crate build valid pieces.
    pub fn new(pieces: Vec<(u64, f64)>) -> Self {
        debug_assert!(pieces.first().is_some_and(|p| p.0 == 0));
        debug_assert!(pieces.windows(2).all(|w| w[0].0 < w[1].0));
        debug_assert!(pieces.iter().all(|p| (0.0..=1.0).contains(&p.1)));
        Self { pieces }
    }

    /// The pieces `(start, value)`.
    pub fn pieces(&self) -> &[(u64, f64)] {
        &self.pieces
    }

    /// The likelihood at age `i`.
    pub fn at(&self, i: u64) -> f64 {
        self.pieces
            .iter()
            .rev()
            .find(|p| p.0 <= i)
            .map_or(0.0, |p| p.1)
    }

    fn ranges(&self) -> impl Iterator<Item = (u64, Option<u64>, f64)> + '_ {
        self.pieces
            .iter()
            .enumerate()
            .map(|(t, &(start, v))| (start, self.pieces.get(t + 1).map(|p| p.0), v))
    }

    /// `Σ_i P(i) P(R_x | i)` (the evidence `P(R_x)`), with `P(i)` from Eq. (4) [TBF].
    pub fn evidence(&self, px: f64) -> f64 {
        self.ranges()
            .map(|(a, b, v)| v * super::prior::prior_range(px, a, b))
            .sum()
    }

    /// The sliding-window posterior `P(I_x < w | R_x)`, Eq. (9) [TBF], summing each
    /// piece in closed form with Eq. (5) [TBF]. `None` when the evidence is zero (an
    /// observation the model says cannot occur).
    pub fn window_posterior(&self, px: f64, w: u64) -> Option<f64> {
        let mut inside = 0.0;
        let mut outside = 0.0;
        for (a, b, v) in self.ranges() {
            if v == 0.0 {
                continue;
            }
            let cut = b.map_or(w, |b| b.min(w));
            if a < cut {
                inside += v * super::prior::prior_range(px, a, Some(cut));
            }
            let from = a.max(w);
            if b.is_none_or(|b| from < b) {
                outside += v * super::prior::prior_range(px, from, b);
            }
        }
        let total = inside + outside;
        (total > 0.0).then(|| crate::numeric::probability(inside / total))
    }

    /// The expected insertion age `E[I_x | R_x]`, Eq. (8) [TBF].
    ///
    /// # Formula
    /// Piece `[α, β)` has mass `v·((1−p)^α − (1−p)^β)` and mean `α + s/(1−s) − n s^n/(1−s^n)`
    /// (`s = 1 − p`, `n = β − α`; `α + (1−p)/p` for the last piece).
    ///
    /// # Numerics
    /// For `n·p < 1e-4` the in-piece mean uses its expansion `(n−1)/2 − p(n²−1)/12`,
    /// avoiding the cancellation of the closed form.
    pub fn expected_age(&self, px: f64) -> Option<f64> {
        // Piece masses in log space, `ln v + α ln(1−p) + ln(1 − (1−p)^n)`, scaled by the
        // largest before summing: far-out pieces of a slowly decaying prior would
        // otherwise underflow to 0 (found by the extremes proptest).
        let ln_s = (-px).ln_1p();
        let pieces: Vec<(f64, f64)> = self
            .ranges()
            .filter(|r| r.2 > 0.0)
            .map(|(a, b, v)| {
                let span = match b {
                    None => 0.0,
                    Some(b) => (-((b - a) as f64 * ln_s).exp_m1()).ln(),
                };
                let mean = a as f64
                    + match b {
                        None => (1.0 - px) / px,
                        Some(b) => truncated_geometric_mean(px, b - a),
                    };
                let head = if a == 0 { 0.0 } else { a as f64 * ln_s }; // p = 1: 0·(−∞)
                (v.ln() + head + span, mean)
            })
            .filter(|p| p.0.is_finite())
            .collect();
        let top = pieces.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let mut mass = CompensatedSum::new();
        let mut moment = CompensatedSum::new();
        for (ln_m, mean) in pieces {
            let m = (ln_m - top).exp();
            mass.add(m);
            moment.add(m * mean);
        }
        let total = mass.value();
        (total > 0.0).then(|| moment.value() / total)
    }

    /// The most likely insertion age `argmax_i P(i | R_x)` (Section 2.3.3 [TBF]). The
    /// prior decreases with `i`, so the maximum is at the start of a piece.
    pub fn most_likely_age(&self, px: f64) -> Option<u64> {
        let ln_s = (-px).ln_1p();
        self.pieces
            .iter()
            .filter(|p| p.1 > 0.0)
            .map(|&(a, v)| (a, v.ln() + a as f64 * ln_s))
            .fold(None, |best: Option<(u64, f64)>, c| match best {
                Some(b) if b.1 >= c.1 => Some(b),
                _ => Some(c),
            })
            .map(|b| b.0)
    }
}

/// Mean of `i` over `0..n` with weights `s^i`, `s = 1 − p`.
///
/// # Formula
/// With `λ = −ln(1 − p)`:
/// ```text
/// mean = 1/(e^λ − 1) − n/(e^(nλ) − 1)
///      = (n−1)/2 − λ(n²−1)/12 + λ³(n⁴−1)/720 − λ⁵(n⁶−1)/30240 + O((nλ)^7)   (nλ < 0.05)
/// ```
/// (the Bernoulli series of `1/(e^x − 1)`).
/// # Accuracy
/// Below 1e-14 relative (checked against 60-digit evaluations for `n` up to 2^40): the
/// two terms of the closed form cancel by at most `2/(nλ) <= 40` where it is used, and
/// the series' truncation is below 1e-16 relative. (The former form, the closed form
/// from `np >= 1e-4` and two series terms below, was off by up to 4e-12; issue 17.)
pub(crate) fn truncated_geometric_mean(p: f64, n: u64) -> f64 {
    let lambda = -(-p).ln_1p();
    truncated_geometric_mean_with(lambda, 1.0 / lambda.exp_m1(), n)
}

/// [`truncated_geometric_mean`] given `λ = −ln(1 − p)` and `1/(e^λ − 1)`: the same
/// value, bit for bit, for a caller that asks at many `n` (a GBF piece cut, issue 18).
pub(crate) fn truncated_geometric_mean_with(lambda: f64, inv_em1: f64, n: u64) -> f64 {
    let nf = n as f64;
    let x = nf * lambda;
    if x < 0.05 {
        let (l2, n2) = (lambda * lambda, nf * nf);
        return (nf - 1.0) / 2.0 - lambda * (n2 - 1.0) / 12.0
            + lambda * l2 * (n2 * n2 - 1.0) / 720.0
            - lambda * l2 * l2 * (n2 * n2 * n2 - 1.0) / 30240.0;
    }
    inv_em1 - nf / x.exp_m1()
}

/// Eq. (9) [TBF] summed term by term: `Σ_{i<w} P(i) L(i) / Σ_i P(i) L(i)` for any
/// likelihood `L(i) ∈ [0, 1]`, in log space with compensated sums, until the prior's
/// tail `(1 − p_x)^i` falls below `1e-18` of the accumulated evidence.
///
/// This is the reference against which every closed form of the BTBF (and the GBF's
/// Eq. (34)) is tested. Its cost is `O(40/p_x)` terms.
pub fn direct_window_posterior(px: f64, w: u64, likelihood: impl Fn(u64) -> f64) -> Option<f64> {
    let ln_s = (-px).ln_1p();
    let mut inside = CompensatedSum::new();
    let mut total = CompensatedSum::new();
    let mut i = 0u64;
    loop {
        let p = px * (i as f64 * ln_s).exp();
        let term = p * likelihood(i);
        total.add(term);
        if i < w {
            inside.add(term);
        }
        i += 1;
        // Remaining prior mass is (1−p)^i; stop once it cannot matter.
        let tail = (i as f64 * ln_s).exp();
        if i >= w && tail < 1e-18 * total.value().max(f64::MIN_POSITIVE) {
            break;
        }
        if tail < 1e-300 {
            break;
        }
    }
    let t = total.value();
    (t > 0.0).then(|| inside.value() / t)
}

/// Posterior calibration, Section 6.1.4 [TBF]: queries grouped in 20 bins of width 0.05
/// by the posterior they received; in each bin the fraction actually in the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    count: [u64; Self::BINS],
    in_window: [u64; Self::BINS],
    posterior_sum: [f64; Self::BINS],
}

impl Default for Calibration {
    fn default() -> Self {
        Self::new()
    }
}

/// One calibration bin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CalibrationBin {
    /// Bin midpoint `M_ℓ`.
    pub midpoint: f64,
    /// Queries in the bin `η_ℓ`.
    pub count: u64,
    /// Queries in the bin whose item was in the window.
    pub in_window: u64,
    /// Mean posterior of the bin's queries.
    pub mean_posterior: f64,
}

impl Calibration {
    /// Number of bins.
    pub const BINS: usize = 20;

    /// No queries yet.
    pub fn new() -> Self {
        Self {
            count: [0; Self::BINS],
            in_window: [0; Self::BINS],
            posterior_sum: [0.0; Self::BINS],
        }
    }

    /// The bin of a posterior: `[0, 0.05)`, ..., `[0.95, 1]`.
    pub fn bin(posterior: f64) -> usize {
        ((posterior * Self::BINS as f64) as usize).min(Self::BINS - 1)
    }

    /// Records one query.
    pub fn record(&mut self, posterior: f64, in_window: bool) {
        let b = Self::bin(posterior);
        self.count[b] += 1;
        self.in_window[b] += u64::from(in_window);
        self.posterior_sum[b] += posterior;
    }

    /// Adds another calibration's counts.
    pub fn merge(&mut self, other: &Calibration) {
        for b in 0..Self::BINS {
            self.count[b] += other.count[b];
            self.in_window[b] += other.in_window[b];
            self.posterior_sum[b] += other.posterior_sum[b];
        }
    }

    /// Queries recorded.
    pub fn queries(&self) -> u64 {
        self.count.iter().sum()
    }

    /// The bins.
    pub fn bins(&self) -> Vec<CalibrationBin> {
        (0..Self::BINS)
            .map(|b| CalibrationBin {
                midpoint: (b as f64 + 0.5) / Self::BINS as f64,
                count: self.count[b],
                in_window: self.in_window[b],
                mean_posterior: if self.count[b] == 0 {
                    f64::NAN
                } else {
                    self.posterior_sum[b] / self.count[b] as f64
                },
            })
            .collect()
    }

    /// The Posterior Error of Eq. (35) [TBF]: `(1/n) Σ_ℓ |f_ℓ − M_ℓ|·η_ℓ`, where `f_ℓ` is
    /// the fraction of bin `ℓ`'s queries in the window and `M_ℓ` the bin midpoint.
    /// A calibrated posterior scores about the mean distance of posteriors from their bin
    /// midpoint (at most 0.025).
    pub fn posterior_error(&self) -> f64 {
        self.per_query(|b| {
            (b.in_window as f64 / b.count as f64 - b.midpoint).abs() * b.count as f64
        })
    }

    /// Eq. (35) with each bin's mean posterior in place of its midpoint: the calibration
    /// error without the binning floor of Section 6.1.4 [TBF].
    pub fn calibration_error(&self) -> f64 {
        self.per_query(|b| (b.in_window as f64 - b.mean_posterior * b.count as f64).abs())
    }

    /// `Σ term(bin)` over the non-empty bins, divided by the queries (0 without queries).
    fn per_query(&self, term: impl Fn(&CalibrationBin) -> f64) -> f64 {
        let n = self.queries();
        if n == 0 {
            return 0.0;
        }
        let s: f64 = self.bins().iter().filter(|b| b.count > 0).map(term).sum();
        s / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn example() -> PiecewiseLikelihood {
        PiecewiseLikelihood::new(vec![(0, 0.0), (40, 0.3), (55, 0.01)])
    }

    #[test]
    fn closed_form_matches_direct_sum() {
        let l = example();
        for (px, w) in [(0.01, 50), (0.001, 41), (0.2, 60), (1e-4, 1000)] {
            let a = l.window_posterior(px, w).unwrap();
            let b = direct_window_posterior(px, w, |i| l.at(i)).unwrap();
            assert_relative_eq!(a, b, max_relative = 1e-10);
        }
    }

    #[test]
    fn expected_and_most_likely_age_match_direct_sums() {
        let l = example();
        for px in [0.3f64, 0.01, 1e-3, 1e-6] {
            let ln_s = (-px).ln_1p();
            let mut num = CompensatedSum::new();
            let mut den = CompensatedSum::new();
            let n = (60.0 / px) as u64 + 200;
            for i in 0..n {
                let t = (i as f64 * ln_s).exp() * l.at(i);
                num.add(i as f64 * t);
                den.add(t);
            }
            let got = l.expected_age(px).unwrap();
            assert_relative_eq!(got, num.value() / den.value(), max_relative = 1e-9);
            let mode = (0..n)
                .max_by(|&a, &b| {
                    let f = |i: u64| (i as f64 * ln_s).exp() * l.at(i);
                    f(a).partial_cmp(&f(b)).unwrap().then(b.cmp(&a))
                })
                .unwrap();
            assert_eq!(l.most_likely_age(px), Some(mode), "px = {px}");
        }
        let zero = PiecewiseLikelihood::new(vec![(0, 0.0)]);
        assert_eq!(zero.window_posterior(0.1, 5), None);
        assert_eq!(zero.expected_age(0.1), None);
    }

    #[test]
    fn calibration_and_posterior_error() {
        let mut c = Calibration::new();
        // 100 queries at posterior 0.12 (bin 2, midpoint 0.125), 12 of them in window.
        for i in 0..100 {
            c.record(0.12, i < 12);
        }
        assert_eq!(Calibration::bin(1.0), 19);
        assert_eq!(Calibration::bin(0.0), 0);
        assert_relative_eq!(c.posterior_error(), 0.005, max_relative = 1e-12);
        assert_relative_eq!(c.calibration_error(), 0.0, epsilon = 1e-12);
        let mut d = Calibration::new();
        d.record(0.99, false);
        c.merge(&d);
        assert_eq!(c.queries(), 101);
    }
}
