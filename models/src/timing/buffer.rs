//! Baselines of Section 6 [TBF]: the Simple Buffer (Section 6.2, Eq. (36)) and the
//! prior-only decision (no filter at all).

use super::prior::{check_px, Distinct};
use crate::error::{check, ModelError};
use crate::numeric::{one_minus_pow1m, pow1m, probability};
use serde::Serialize;

/// A Simple Buffer: the `bph`-bit hashes of the last `δ <= w` insertions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SimpleBufferParams {
    w: u64,
    delta: u64,
    bph: u32,
}

impl SimpleBufferParams {
    /// Allowed bits per hash.
    pub const BPH: std::ops::RangeInclusive<u32> = 1..=64;

    /// A buffer of `delta` hashes of `bph` bits for a window `w`.
    ///
    /// # Errors
    /// `window` zero; `delta` outside `1..=w`; `bph` outside [`Self::BPH`].
    pub fn new(w: u64, delta: u64, bph: u32) -> Result<Self, ModelError> {
        check::in_range("window", w, 1..=u64::MAX)?;
        check::in_range("delta", delta, 1..=w)?;
        check::in_range("bph", bph, Self::BPH)?;
        Ok(Self { w, delta, bph })
    }

    /// The buffer that spends `bits_per_item · w` bits on `bph`-bit hashes:
    /// `δ = min(w, ⌊w · bits_per_item / bph⌋)` (Section 6.2 [TBF]).
    ///
    /// # Errors
    /// As [`Self::new`] (a budget below one hash).
    pub fn for_budget(w: u64, bits_per_item: f64, bph: u32) -> Result<Self, ModelError> {
        let delta = ((w as f64 * bits_per_item / f64::from(bph)).floor() as u64).min(w);
        Self::new(w, delta, bph)
    }

    /// Window `w`.
    pub fn w(&self) -> u64 {
        self.w
    }
    /// Buffered items `δ`.
    pub fn delta(&self) -> u64 {
        self.delta
    }
    /// Bits per hash.
    pub fn bph(&self) -> u32 {
        self.bph
    }

    /// The sliding-window posterior given whether `x`'s hash is in the buffer.
    ///
    /// # Formula
    /// ```text
    /// R_x = 0:  1 − (1 − p)^(w − δ)
    /// R_x = 1:  1 − (1 − p)^w / ((1 − (1−p)^δ) / (1 − (1 − 2^(−bph))^D(δ)) + (1 − p)^δ)   Eq. (36) [TBF]
    /// ```
    /// # Errors
    /// `px` outside `(0, 1]`.
    pub fn posterior(
        &self,
        px: f64,
        present: bool,
        distinct: &Distinct,
    ) -> Result<f64, ModelError> {
        check_px(px)?;
        let (w, d) = (self.w as f64, self.delta as f64);
        if !present {
            return Ok(probability(one_minus_pow1m(px, w - d)));
        }
        let collide = one_minus_pow1m(0.5f64.powi(self.bph as i32), distinct.d(d));
        let head = one_minus_pow1m(px, d) / collide;
        let sd = pow1m(px, d);
        let post = (head + sd * one_minus_pow1m(px, w - d)) / (head + sd);
        Ok(probability(if post.is_nan() { 1.0 } else { post }))
    }
}

impl SimpleBufferParams {
    /// The expected penalty per query of the inferential Simple Buffer (Eq. (36) and the
    /// rule of Section 2.6 [TBF]) under `prior`, summing over `R_x ∈ {0, 1}`:
    /// `R_x = 1` with certainty for ages below `δ`, with probability
    /// `φ = 1 − (1 − 2^(−bph))^D(δ)` (a collision) beyond.
    pub fn expected_penalty(
        &self,
        prior: &super::prior::StreamPrior,
        distinct: &Distinct,
        penalties: &super::penalty::PenaltyDist,
    ) -> f64 {
        use super::prior::prior_range;
        let (w, d) = (self.w, self.delta);
        let phi = one_minus_pow1m(0.5f64.powi(self.bph as i32), distinct.d(d as f64));
        let mut total = 0.0;
        for (weight, px) in prior.classes(64) {
            let young = prior_range(px, 0, Some(d));
            let mid = prior_range(px, d, Some(w));
            let old = prior_range(px, w, None);
            for (present, m_in, m_out) in [
                (true, young + phi * mid, phi * old),
                (false, (1.0 - phi) * mid, (1.0 - phi) * old),
            ] {
                let post = self.posterior(px, present, distinct).unwrap_or(0.0);
                let (cost_fp, cost_fn) = penalties.expected_costs(post);
                total += weight * (m_out * cost_fp + m_in * cost_fn);
            }
        }
        total
    }
}

/// The prior-only posterior `P(I_x < w) = 1 − (1 − p_x)^w` (Eq. (5) [TBF]).
///
/// # Errors
/// `px` outside `(0, 1]`.
pub fn prior_only_posterior(px: f64, w: u64) -> Result<f64, ModelError> {
    check_px(px)?;
    Ok(one_minus_pow1m(px, w as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::posterior::direct_window_posterior;
    use approx::assert_relative_eq;

    #[test]
    fn eq36_matches_direct_sum() {
        let buf = SimpleBufferParams::new(500, 200, 6).unwrap();
        let d = Distinct::Uniform { universe: 2000 };
        let px = 1.0 / 2000.0;
        let phi = 1.0 - (1.0 - 0.5f64.powi(6)).powf(d.d(200.0));
        let with = direct_window_posterior(px, 500, |i| if i < 200 { 1.0 } else { phi }).unwrap();
        assert_relative_eq!(
            buf.posterior(px, true, &d).unwrap(),
            with,
            max_relative = 1e-10
        );
        let without =
            direct_window_posterior(px, 500, |i| if i < 200 { 0.0 } else { 1.0 - phi }).unwrap();
        assert_relative_eq!(
            buf.posterior(px, false, &d).unwrap(),
            without,
            max_relative = 1e-10
        );
        assert!(SimpleBufferParams::new(10, 11, 4).is_err());
        assert_eq!(
            SimpleBufferParams::for_budget(1000, 8.0, 16)
                .unwrap()
                .delta(),
            500
        );
        assert_relative_eq!(prior_only_posterior(0.5, 2).unwrap(), 0.75);
    }
}
