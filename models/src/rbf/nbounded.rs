//! N-bounded recycling: the filter recycles after `N` bit-setting messages.
//! Eqs. (1)-(3) [RBF].

use super::RbfNParams;
use crate::numeric::{one_minus_pow1m, CompensatedSum};
use serde::Serialize;

/// The N-bounded false-positive rates of [`RbfNParams`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfNMetrics {
    /// f_w: the FP of the `N+1`-st new message after `N` insertions, Eq. (1) [RBF]
    /// at `n = N`: `(1 − (1 − 1/M)^(kN))^k`.
    pub fp_worst: f64,
    /// f_o: the oracle average `Σ_{i=1..N} E[F_i] / N`, Eq. (2) [RBF], with
    /// `E[F_i]` = Eq. (1) at `n = i − 1` (the `i`-th new arrival sees `i − 1` earlier ones).
    pub fp_oracle: f64,
    /// f_a: `Σ f_i/(1−f_i) / Σ (1 + f_i/(1−f_i))`, Eq. (3) [RBF], the average-case lower
    /// bound for a user who counts only bit-setting messages.
    pub fp_lower: f64,
}

/// Eq. (1) [RBF]: `(1 − (1 − 1/M)^(kn))^k`; the fill `1 − (1−1/M)^(kn)` is computed as
/// `−expm1(kn·ln1p(−1/M))` (no cancellation for tiny fills).
pub fn fp_worst(m: u64, k: u32, n: u64) -> f64 {
    let fill = one_minus_pow1m(1.0 / m as f64, f64::from(k) * n as f64);
    fill.powi(k as i32)
}

impl RbfNParams {
    /// Eqs. (1)-(3) [RBF]. `O(N)` time (about 50 ns per term: [`RbfNParams::N`] caps it
    /// at a few seconds); once `f_i` reaches 1 in `f64` the rest is summed in closed form.
    pub fn metrics(&self) -> RbfNMetrics {
        let (m, k, n) = (self.m(), self.k(), self.n());
        let mut sum_f = CompensatedSum::new();
        let mut sum_r = CompensatedSum::new();
        let (mut saturated, mut counted) = (false, 0u64);
        for i in 1..=n {
            let f = fp_worst(m, k, i - 1);
            sum_f.add(f);
            counted = i;
            if f >= 1.0 {
                // f/(1 − f) = ∞ from here on, so f_a = 1 (issue 10: M = 1000, k = 64,
                // N = 10^9 gave ∞/∞ = NaN).
                saturated = true;
                break;
            }
            sum_r.add(f / (1.0 - f));
        }
        let (nf, r) = (n as f64, sum_r.value());
        // Once saturated every later f_i is 1 too.
        let fp_oracle = if saturated {
            (sum_f.value() + (nf - counted as f64)) / nf
        } else {
            sum_f.value() / nf
        };
        RbfNMetrics {
            fp_worst: fp_worst(m, k, n),
            fp_oracle: crate::numeric::probability(fp_oracle),
            fp_lower: if saturated {
                1.0
            } else {
                crate::numeric::probability(r / (nf + r))
            },
        }
    }
}
