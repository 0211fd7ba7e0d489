//! The duplicate-detection stream of Section 6.1.2 [SBF] ([`RepeatStream`]): its pool of
//! distinct items and the age law of its repeats. The stream models (`repeats`,
//! `counter_stream`) read it; its derivation is in the module doc of `repeats`.

use crate::error::{check, ModelError};
use serde::Serialize;

/// Query times averaged for the age law of a long stream.
pub const AGE_SAMPLES: u64 = 1024;

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

    /// `D(u)`, the mean number of distinct items before arrival `u` (0 before the first,
    /// then `1 + (1 − r)(u − 1)`; module doc).
    pub(crate) fn distinct_before(&self, u: usize) -> f64 {
        if u == 0 {
            0.0
        } else {
            1.0 + (1.0 - self.duplicate_rate) * (u - 1) as f64
        }
    }

    /// Probability that arrival `u` is a new item (the first always is).
    pub(crate) fn p_new(&self, u: usize) -> f64 {
        if u == 0 {
            1.0
        } else {
            1.0 - self.duplicate_rate
        }
    }

    /// `ln w(L)` for `L = 0..N−1` (see the module doc).
    pub(crate) fn log_weights(&self) -> Vec<f64> {
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
