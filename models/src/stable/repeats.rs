//! False negatives and positives on a stream with repeats: the duplicate-detection stream
//! of Section 6.1.2 [SBF] (Tables 3-4, Figures 3-6).
//!
//! The stream has `N` arrivals. The first is new; each later one is, with probability
//! `r` (the duplicate rate, 0.7 in the thesis), a repeat of an item drawn uniformly from
//! the distinct items seen so far, else a new item whose importance is drawn from the
//! law. Every arrival is queried first (a new item reported present is a false positive,
//! a repeat reported absent a false negative), then inserted, into a filter that starts
//! empty.
//!
//! # Model
//! A repeat re-inserts the item: its cells are set again, so what matters is its age
//! since its *last* insertion, `A = t − 1 − L` (`L` its last insertion before the query
//! at `t`). With `D(u) = 1 + (1 − r)(u − 1)` distinct items before arrival `u ≥ 1` (the
//! mean pool), an item is re-drawn at `u` with probability `r/D(u)`, so
//!
//! ```text
//! Pr(L | t) ∝ w(L) = Π_{u=1..L} (1 − r/D(u))^(−1),   L = 0..t−1
//! h(a) = mean over repeat queries t of Pr(A = a | t)          (the stream's age law)
//! FN_i = Σ_a h(a) · FN_i(a)      FN_i(a) = 1 − (1 − x_i·T^a·e_0)^K   ([`super::IbfSolution::fn_by_importance`])
//! FP_t = (1 − z_t)^K             z_t: zero fraction after t insertions ([`super::zero_fraction_transient`])
//! wFP = mean of FP_t over new arrivals,  wFN = Σ_i w_i·i·FN_i / Σ_i w_i·i
//! precision, recall: Eqs. (7)-(8) [SBF] with wTotal = r·N·Ē(1 − wFN) + (1 − r)·N·Ē·wFP
//! ```
//! For large `t` the age law is close to `Pr(A ≥ a | t) = (1 − a/t)^(1/(1−r))` (mean
//! `t(1 − r)/(2 − r)`): with 70% repeats the typical repeat is a quarter of the stream
//! old, so on long streams most repeats are forgotten.
//!
//! # Accuracy
//! * Random deletion (SBF, IBF1): `FN_i(a)` and `z_t` are exact for one cell (the cell
//!   is set to its insertion value at `L`, and the chain does not depend on the rest of
//!   the filter). The model treats the other items' sets of a cell as independent with
//!   rate `K/m` per arrival; repeats make them bursty (a cell that holds many earlier
//!   items is re-set more often), which leaves more cells untouched for long, so the
//!   measured FN of old repeats lies somewhat above the model.
//! * Global policies (IBF2-IBF6): `z_t` by the time-stepped mean field, `FN_i(a)` with the
//!   stable point's decrement law (the filter is still filling early in the stream, when
//!   decrements concentrate on the few non-zero cells).
//! * The pool size is taken at its mean; `h` averages [`AGE_SAMPLES`] evenly spaced query
//!   times when the stream is longer (the per-time law is smooth in `t`); FN by age is
//!   evaluated on a grid of at most [`AGE_GRID`] ages and interpolated in between.
//!
//! Measured errors are in `tests/agreement/stable.rs` and the module doc of [`super`].

use super::ibf::{solve, zero_fraction_transient, IbfParams};
use super::sbf::fn_from_zero;
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;

/// Query times averaged for the age law of a long stream.
pub const AGE_SAMPLES: u64 = 1024;
/// Ages at which FN is evaluated exactly (linear interpolation in between).
pub const AGE_GRID: u64 = 2048;

/// A duplicate-detection stream: `arrivals` arrivals, a share `duplicate_rate` of which
/// repeat an earlier distinct item drawn uniformly.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RepeatStream {
    arrivals: u64,
    duplicate_rate: f64,
}

impl RepeatStream {
    /// Allowed stream lengths.
    pub const ARRIVALS: std::ops::RangeInclusive<u64> = 2..=100_000_000;

    /// Validates and builds the stream.
    ///
    /// # Errors
    /// `arrivals` outside [`Self::ARRIVALS`]; `duplicate_rate` not in `[0, 1)`.
    pub fn new(arrivals: u64, duplicate_rate: f64) -> Result<Self, ModelError> {
        check::in_range("arrivals", arrivals, Self::ARRIVALS)?;
        if !(0.0..1.0).contains(&duplicate_rate) {
            return Err(ModelError::invalid(
                "duplicate_rate",
                duplicate_rate,
                "0 <= duplicate_rate < 1",
            ));
        }
        Ok(Self {
            arrivals,
            duplicate_rate,
        })
    }

    /// Arrivals `N`.
    pub fn arrivals(&self) -> u64 {
        self.arrivals
    }
    /// Share of repeats `r`.
    pub fn duplicate_rate(&self) -> f64 {
        self.duplicate_rate
    }

    /// `ln w(L)` for `L = 0..N−1` (see the module doc).
    fn log_weights(&self) -> Vec<f64> {
        let r = self.duplicate_rate;
        let mut lw = Vec::with_capacity(self.arrivals as usize);
        let mut acc = 0.0;
        lw.push(0.0);
        for u in 1..self.arrivals.saturating_sub(1) {
            let d = 1.0 + (1.0 - r) * (u - 1) as f64;
            acc -= (-r / d).ln_1p();
            lw.push(acc);
        }
        lw
    }

    /// The age law of repeat queries `h(a)`, `a = 0..N−2`: the probability that a repeat
    /// query finds its item last inserted `a` insertions before the query. Sums to 1.
    pub fn age_distribution(&self) -> Vec<f64> {
        let n = self.arrivals;
        let lw = self.log_weights();
        let mut h = vec![0.0; (n - 1) as usize];
        if self.duplicate_rate == 0.0 {
            return h;
        }
        let queries = n - 1; // t = 1..N−1
        let (count, stride) = if queries <= AGE_SAMPLES {
            (queries, 1.0)
        } else {
            (AGE_SAMPLES, queries as f64 / AGE_SAMPLES as f64)
        };
        for j in 0..count {
            // Query time t: every t, or the midpoint of the j-th of `count` equal spans.
            let t = if stride == 1.0 {
                j + 1
            } else {
                1 + ((j as f64 + 0.5) * stride) as u64
            };
            let top = lw[(t - 1) as usize];
            let total: f64 = lw[..t as usize].iter().map(|&l| (l - top).exp()).sum();
            for l in 0..t {
                let a = (t - 1 - l) as usize;
                h[a] += (lw[l as usize] - top).exp() / total;
            }
        }
        h.iter_mut().for_each(|x| *x /= count as f64);
        h
    }
}

/// Predicted rates of a filter on a [`RepeatStream`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatMetrics {
    /// Eq. (5) [SBF] per unit of queried importance: the mean FP of new arrivals.
    pub weighted_fp: f64,
    /// Eq. (6) [SBF] per unit of queried importance: `Σ w_i·i·FN_i / Σ w_i·i`.
    pub weighted_fn: f64,
    /// Eq. (7) [SBF].
    pub precision: f64,
    /// Eq. (8) [SBF].
    pub recall: f64,
    /// FN of a repeat, per importance from the law's lowest value upward.
    pub fn_by_importance: Vec<f64>,
    /// Mean age of a repeat since its item's last insertion (arrivals).
    pub mean_age: f64,
    /// Expected zero cells at the end of the stream (Figure 7 [SBF]).
    pub zero_cells_final: f64,
}

/// Predicts the thesis-stream rates of `params` (see the module doc).
///
/// # Errors
/// The stable point does not solve; the stream is too long for the transient
/// ([`super::TRANSIENT_WORK`]).
pub fn stream_metrics(
    params: &IbfParams,
    stream: &RepeatStream,
) -> Result<RepeatMetrics, ModelError> {
    let n = stream.arrivals;
    let r = stream.duplicate_rate;
    let k = params.k();
    // FP of new arrivals from the transient zero fraction.
    let z = zero_fraction_transient(params, n)?;
    let fp_t = |t: usize| fn_from_zero_complement(z[t], k);
    let new_weight = |t: u64| if t == 0 { 1.0 } else { 1.0 - r };
    let (mut fp_num, mut fp_den) = (0.0, 0.0);
    for t in 0..n {
        fp_num += new_weight(t) * fp_t(t as usize);
        fp_den += new_weight(t);
    }
    let wfp = probability(fp_num / fp_den);
    // FN of repeats: the age law against FN by age on a grid.
    let h = stream.age_distribution();
    let sol = solve(params)?;
    let max_age = h.len().saturating_sub(1) as u64;
    let step = max_age.div_ceil(AGE_GRID).max(1);
    let grid: Vec<u64> = (0..=max_age / step)
        .map(|j| j * step)
        .chain(std::iter::once(max_age))
        .collect();
    let zs = sol.zero_by_importance_at(&grid);
    let dist = params.importance();
    let width = (dist.hi() - dist.lo() + 1) as usize;
    let mut fns = vec![0.0; width];
    for (g, pair) in grid.windows(2).enumerate() {
        let (a0, a1) = (pair[0], pair[1]);
        let span = (a1 - a0) as f64;
        let last = g + 2 == grid.len();
        let end = if last { a1 + 1 } else { a1 };
        for a in a0..end {
            let ha = h[a as usize];
            if ha == 0.0 {
                continue;
            }
            let f = if span == 0.0 {
                0.0
            } else {
                (a - a0) as f64 / span
            };
            for (i, acc) in fns.iter_mut().enumerate() {
                let zi = zs[g][i] + f * (zs[g + 1][i] - zs[g][i]);
                *acc += ha * fn_from_zero(zi, k);
            }
        }
    }
    let fns: Vec<f64> = fns.into_iter().map(probability).collect();
    let mean = dist.mean();
    let fn_w: f64 = dist
        .iter()
        .zip(&fns)
        .map(|((i, w), f)| w * f64::from(i) * f)
        .sum();
    let wfn = probability(fn_w / mean);
    // Importance totals per arrival: repeats r·Ē, new (1 − r)·Ē (the first arrival, which
    // is always new, is negligible).
    let good = r * mean * (1.0 - wfn);
    let false_pos = (1.0 - r) * mean * wfp;
    let missed = r * mean * wfn;
    let ratio = |a: f64, b: f64| if b > 0.0 { probability(a / b) } else { 1.0 };
    let mean_age = h.iter().enumerate().map(|(a, &p)| a as f64 * p).sum();
    Ok(RepeatMetrics {
        weighted_fp: wfp,
        weighted_fn: wfn,
        precision: ratio(good, good + false_pos),
        recall: ratio(good, good + missed),
        fn_by_importance: fns,
        mean_age,
        zero_cells_final: z[n as usize - 1] * params.m() as f64,
    })
}

/// `(1 − z)^K`: all `K` cells non-zero.
fn fn_from_zero_complement(z: f64, k: u32) -> f64 {
    probability((f64::from(k) * (-z).ln_1p()).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stable::{ImportanceDist, Policy, SbfParams};
    use approx::assert_relative_eq;

    #[test]
    fn age_law_sums_to_one_and_follows_the_power_law() {
        let s = RepeatStream::new(4001, 0.7).unwrap();
        let h = s.age_distribution();
        assert_relative_eq!(h.iter().sum::<f64>(), 1.0, max_relative = 1e-12);
        // Continuous limit: mean age over t uniform on (0, N) of t(1 − r)/(2 − r) = N·0.3/2.6.
        let mean: f64 = h.iter().enumerate().map(|(a, p)| a as f64 * p).sum();
        assert_relative_eq!(mean, 4000.0 * 0.3 / 2.6, max_relative = 0.01);
        // No repeats: no repeat queries.
        let none = RepeatStream::new(100, 0.0).unwrap().age_distribution();
        assert!(none.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn sampled_age_law_matches_the_exact_sum() {
        // 3000 query times: the exact law; the sampled one uses AGE_SAMPLES of them.
        let exact = RepeatStream::new(1025, 0.7).unwrap().age_distribution();
        let long = RepeatStream::new(3001, 0.7).unwrap();
        let h = long.age_distribution();
        assert_relative_eq!(h.iter().sum::<f64>(), 1.0, max_relative = 1e-12);
        assert_eq!(exact.len(), 1024);
        // Means of the sampled law and of the continuous limit agree to 0.5%.
        let mean: f64 = h.iter().enumerate().map(|(a, p)| a as f64 * p).sum();
        assert_relative_eq!(mean, 3000.0 * 0.3 / 2.6, max_relative = 0.005);
    }

    #[test]
    fn sbf_stream_fp_uses_the_transient_and_fn_the_age_law() {
        let (m, k, max, p) = (1024u64, 4u32, 3u32, 6u64);
        let params = IbfParams::new(
            Policy::Sbf,
            m,
            k,
            max,
            p,
            ImportanceDist::linear(1, 1).unwrap(),
        )
        .unwrap();
        let stream = RepeatStream::new(2000, 0.7).unwrap();
        let got = stream_metrics(&params, &stream).unwrap();
        // By hand: FP from the SBF convergence formula, FN from fn_at_age.
        let s = SbfParams::new(m, k, max, p).unwrap();
        let mut fp = 0.0;
        for t in 1..2000u64 {
            fp += 0.3 * (1.0 - s.zero_fraction_after(t)).powi(4);
        }
        fp /= 1.0 + 0.3 * 1999.0;
        assert_relative_eq!(got.weighted_fp, fp, max_relative = 1e-9);
        let h = stream.age_distribution();
        let fnr: f64 = h
            .iter()
            .enumerate()
            .map(|(a, &w)| w * s.fn_at_age(a as u64))
            .sum();
        assert_relative_eq!(got.weighted_fn, fnr, max_relative = 1e-9);
        assert!(got.precision > 0.0 && got.recall > 0.0);
    }

    #[test]
    fn invalid_streams_are_rejected() {
        assert!(RepeatStream::new(1, 0.5).is_err());
        assert!(RepeatStream::new(100, 1.0).is_err());
        assert!(RepeatStream::new(100, f64::NAN).is_err());
        assert!(RepeatStream::new(100, -0.1).is_err());
    }
}
