//! N-bounded recycling: the filter recycles after `N` bit-setting messages.
//! Eqs. (1)-(3) [RBF].

use super::RbfNParams;
use crate::numeric::{one_minus_pow1m, CompensatedSum, LnSum};
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
    fill(m, k, n).powi(k as i32)
}

/// The fill after `n` messages, `1 − (1 − 1/M)^(kn)`, without cancellation.
fn fill(m: u64, k: u32, n: u64) -> f64 {
    one_minus_pow1m(1.0 / m as f64, f64::from(k) * n as f64)
}

/// The natural log of [`fp_worst`], `k·ln(1 − (1 − 1/M)^(kn))` (Eq. (1) [RBF]), in log
/// space: `−∞` at `n = 0`.
pub fn ln_fp_worst(m: u64, k: u32, n: u64) -> f64 {
    f64::from(k) * fill(m, k, n).ln()
}

impl RbfNParams {
    /// The natural logs of the three metrics of [`Self::metrics`], keyed by their names
    /// (`fp_worst`, `fp_oracle`, `fp_lower`), in log space so that they keep their
    /// relative precision below the smallest `f64` (2.2e-308).
    ///
    /// # Formula
    /// With `ln f_i` = [`ln_fp_worst`] at `n = i` (Eq. (1) [RBF]) and LSE the log-sum-exp:
    /// ```text
    /// ln f_w = ln f_N
    /// ln f_o = LSE_{i=0..N−1}(ln f_i) − ln N                             Eq. (2) [RBF]
    /// ln f_a = ln R − ln(N + R),  ln R = LSE_{i=0..N−1}(ln f_i − ln(1 − f_i))   Eq. (3) [RBF]
    /// ```
    /// `ln(N + R)` is `ln N + ln(1 + R/N)`. Once some `f_i` is 1 in `f64` the FPs are far
    /// above the `f64` range and [`Self::metrics`] is returned in logs.
    pub fn ln_metrics(&self) -> [(&'static str, f64); 3] {
        let (m, k, n) = (self.m(), self.k(), self.n());
        let (mut sum_f, mut sum_r) = (LnSum::new(), LnSum::new());
        for i in 0..n {
            let ln_f = ln_fp_worst(m, k, i);
            if ln_f >= 0.0 {
                let linear = self.metrics();
                return [
                    ("fp_worst", linear.fp_worst.ln()),
                    ("fp_oracle", linear.fp_oracle.ln()),
                    ("fp_lower", linear.fp_lower.ln()),
                ];
            }
            sum_f.add(ln_f);
            sum_r.add(ln_f - (-ln_f.exp()).ln_1p());
        }
        let ln_n = (n as f64).ln();
        let ln_r = sum_r.value();
        [
            ("fp_worst", ln_fp_worst(m, k, n)),
            ("fp_oracle", sum_f.value() - ln_n),
            ("fp_lower", ln_r - ln_n - (ln_r - ln_n).exp().ln_1p()),
        ]
    }

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
