//! Auditing a live APBF from the set-bit counts of its slices (issue 22).
//!
//! # Formula
//! An APBF `(k, l)` with slices of `s` bits writes one bit per insertion into each of its
//! `k` youngest slices and shifts every `g` insertions (Section 5.1 [APBF]). Counting
//! slices from the youngest (`i = 0`), with `c` insertions into the current generation:
//!
//! ```text
//! slice i < k    holds the distinct items of i·g + c insertions
//! slice i ≥ k    holds the distinct items of k·g insertions (it is full)
//! FP given bits  F(k, l, 0, 0) over r_i = X_i/s                 Section 5.3 [APBF]
//! ```
//!
//! Each slice is a one-hash filter of `s` bits with its own hash function, so given the
//! items, the zero counts of the slices are independent and each follows the occupancy
//! law of [`ZeroLaw::standard`]`(s, 1)`. The audit estimates
//!
//! * `c`, the distinct items of the current generation, from slice 0;
//! * the distinct items per generation, `ĝ = n̂/k` with `n̂` the maximum-likelihood count
//!   of the `l` full slices pooled ([`ZeroLaw::partitioned`]`(s, l)`: `l` independent
//!   slices holding the same `k·g` items), and its score interval divided by `k`.
//!
//! With distinct insertions `ĝ` estimates the design's `g`; with repeats inside the
//! window it estimates the distinct share (Section 5.6.2 [APBF]). The FP given the bits
//! is exact: `F` is the probability that some `k` consecutive slices all match, and the
//! match events of a fresh item are independent with probabilities `X_i/s`.
//!
//! # Accuracy
//! Coverage of the 95% intervals of `ĝ` and `c` on the reference APBF, 1000 seeded
//! trials: `tests/agreement/audit.rs`.

use super::{consecutive_match, ApbfParams};
use crate::classic::{ItemEstimate, ZeroLaw};
use crate::error::{check, ModelError};
use serde::Serialize;

/// Set-bit counts of the `k + l` slices of a live APBF, youngest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ApbfOccupancy {
    params: ApbfParams,
    ones: Vec<u64>,
}

impl ApbfOccupancy {
    /// `ones[i]`: set bits of logical slice `i` (0 = the youngest) of an APBF `(k, l)`
    /// with slices of `slice_bits` bits.
    ///
    /// # Errors
    /// `k`, `l`, `slice_bits` as [`ApbfParams::new`] and [`ApbfParams::with_slice_bits`];
    /// `slice_bits` below 2; `ones` with other than `k + l` counts or a count above
    /// `slice_bits`.
    pub fn new(k: u32, l: u32, slice_bits: u64, ones: Vec<u64>) -> Result<Self, ModelError> {
        let params = ApbfParams::new(k, l)?.with_slice_bits(slice_bits)?;
        check::in_range("slice_bits", slice_bits, 2..=*ApbfParams::M.end())?;
        let slices = (k + l) as usize;
        if ones.len() != slices {
            return Err(ModelError::invalid(
                "ones",
                format!("{} counts", ones.len()),
                format!("one count per slice, k + l = {slices}, youngest first"),
            ));
        }
        if let Some((i, x)) = ones.iter().enumerate().find(|(_, &x)| x > slice_bits) {
            return Err(ModelError::invalid(
                "ones",
                format!("{x} (slice {i})"),
                format!("0 <= ones <= {slice_bits} per slice"),
            ));
        }
        Ok(Self { params, ones })
    }

    /// The sized parameters.
    pub fn params(&self) -> ApbfParams {
        self.params
    }

    fn slice_bits(&self) -> u64 {
        self.params.sizing().map_or(2, |s| s.slice_bits)
    }

    /// The FP of a fresh item given the bits, `F(k, l, 0, 0)` over `X_i/s`.
    pub fn fp(&self) -> f64 {
        let s = self.slice_bits() as f64;
        let r: Vec<f64> = self.ones.iter().map(|&x| x as f64 / s).collect();
        consecutive_match(&r, self.params.k() as usize)
    }

    /// The audit at two-sided `confidence`.
    ///
    /// # Errors
    /// `confidence` outside (0, 1).
    pub fn audit(&self, confidence: f64) -> Result<ApbfAudit, ModelError> {
        let s = self.slice_bits();
        let (k, l) = (self.params.k(), self.params.l());
        let slice = ZeroLaw::standard(s, 1);
        let current = slice.items(s - self.ones[0], confidence)?;
        let full = ZeroLaw::partitioned(s, l);
        let full_zeros: u64 = self.ones[k as usize..].iter().map(|&x| s - x).sum();
        let pooled = full.items(full_zeros, confidence)?;
        let kf = f64::from(k);
        let per_generation = ItemEstimate {
            items: pooled.items.map(|n| n / kf),
            items_sd: pooled.items_sd.map(|sd| sd / kf),
            items_lo: pooled.items_lo / kf,
            items_hi: pooled.items_hi.map(|n| n / kf),
            confidence,
        };
        let slice_items = self
            .ones
            .iter()
            .map(|&x| slice.estimate(s - x))
            .map(|n| n.is_finite().then_some(n))
            .collect();
        let design = self.params.sizing().map_or(0, |z| z.generation);
        Ok(ApbfAudit {
            fp: self.fp(),
            fp_design: self.params.fp(),
            generation_design: design,
            generation: per_generation,
            current_generation: current,
            full_slice_fill: 1.0 - full_zeros as f64 / (s as f64 * f64::from(l)),
            slice_ones: self.ones.clone(),
            slice_items,
        })
    }
}

/// The audit of an APBF.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApbfAudit {
    /// FP of a fresh item given the bits.
    pub fp: f64,
    /// The design's worst-case FP (just before a shift, distinct insertions).
    pub fp_design: f64,
    /// The design's insertions per generation `g = ⌊s ln2/k⌋`.
    pub generation_design: u64,
    /// Distinct items per generation, from the `l` full slices.
    pub generation: ItemEstimate,
    /// Distinct items of the current generation, from the youngest slice.
    pub current_generation: ItemEstimate,
    /// Fraction of set bits of the full slices (`1 − (1 − 1/s)^(k·g)` ≈ 1/2 by design).
    pub full_slice_fill: f64,
    /// Set bits per slice, youngest first.
    pub slice_ones: Vec<u64>,
    /// Estimated distinct items per slice, youngest first (`None`: slice saturated).
    pub slice_items: Vec<Option<f64>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp_is_the_consecutive_match_of_the_fills() {
        let o = ApbfOccupancy::new(2, 1, 100, vec![100, 100, 0]).unwrap();
        assert_eq!(o.fp(), 1.0);
        let o = ApbfOccupancy::new(2, 1, 100, vec![50, 0, 50]).unwrap();
        assert_eq!(o.fp(), 0.0);
        let o = ApbfOccupancy::new(2, 2, 100, vec![50, 50, 50, 50]).unwrap();
        // Runs of 2 in 4 slices at 1/2: 1 − P(no two consecutive) = 1 − 8/16.
        approx::assert_relative_eq!(o.fp(), 0.5, max_relative = 1e-12);
    }

    #[test]
    fn a_filter_at_its_design_fills_estimates_its_generation() {
        // Slices at exactly the expected fills of g items per generation, c = g.
        let p = ApbfParams::new(4, 3).unwrap().with_window(1000).unwrap();
        let (s, g) = (
            p.sizing().unwrap().slice_bits,
            p.sizing().unwrap().generation,
        );
        let ones: Vec<u64> = (0..7u64)
            .map(|i| {
                let items = (i.min(3) + 1) * g;
                (s as f64 * -((items as f64) * (-1.0 / s as f64).ln_1p()).exp_m1()).round() as u64
            })
            .collect();
        let a = ApbfOccupancy::new(4, 3, s, ones)
            .unwrap()
            .audit(0.95)
            .unwrap();
        let est = a.generation.items.unwrap();
        assert!(
            (est - g as f64).abs() < 0.01 * g as f64,
            "{est} against {g}"
        );
        assert!(a.generation.items_lo < g as f64 && g as f64 <= a.generation.items_hi.unwrap());
        approx::assert_relative_eq!(a.fp, a.fp_design, max_relative = 0.01);
    }

    #[test]
    fn bad_counts_name_the_parameter() {
        let e = ApbfOccupancy::new(4, 3, 100, vec![1; 6]).unwrap_err();
        assert!(e.to_string().contains("k + l = 7"), "{e}");
        let e = ApbfOccupancy::new(2, 1, 100, vec![1, 101, 0]).unwrap_err();
        assert!(e.to_string().contains("101 (slice 1)"), "{e}");
    }
}
