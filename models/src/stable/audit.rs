//! Auditing a live Stable Bloom filter from its count of zero cells (issue 22).
//!
//! # Formula
//! ```text
//! observed zero fraction   ẑ = Z/m
//! stable point             π0 = (1/(1 + 1/(P(1/K − 1/m))))^Max     Deng & Rafiei, Thm 2
//! distance                 (ẑ − π0) / sqrt(π0(1 − π0)/m)
//! FP given the cells       Π_{i<K} (m − Z − i)/(m − i)              K distinct cells
//! insertions since empty   the n with E[zeros after n] = ẑ          (while ẑ > π0)
//! ```
//!
//! The FP given the cells is exact for a fresh item whose `K` cells are distinct and
//! uniform (the model's assumption, [`SbfParams`]). The number of insertions inverts the
//! convergence curve [`SbfParams::zero_fraction_after`], which falls from 1 to `π0`; it
//! is reported while the observed fraction lies above the stable point by more than the
//! interval's half-width.
//!
//! # Accuracy
//! The distance uses the binomial standard deviation of `m` independent cells. Cells
//! are weakly dependent (each step decrements `P` and sets `K` distinct cells), which the
//! binomial form ignores; `tests/agreement/audit.rs` measures the share of reference
//! filters at their stable point whose distance exceeds 1.96 in absolute value.

use super::SbfParams;
use crate::classic::z_quantile;
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;

/// The zero cells of a live SBF.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SbfOccupancy {
    params: SbfParams,
    zeros: u64,
}

impl SbfOccupancy {
    /// A filter of `params` with `zeros` zero cells.
    ///
    /// # Errors
    /// `zeros` above `m`.
    pub fn new(params: SbfParams, zeros: u64) -> Result<Self, ModelError> {
        check::in_range("zeros", zeros, 0..=params.m())?;
        Ok(Self { params, zeros })
    }

    /// FP of a fresh item given the cells: `Π_{i<K} (m − Z − i)/(m − i)`.
    pub fn fp(&self) -> f64 {
        let (m, nz) = (self.params.m() as f64, (self.params.m() - self.zeros) as f64);
        let fp = (0..self.params.k())
            .map(f64::from)
            .map(|i| ((nz - i) / (m - i)).max(0.0))
            .product::<f64>();
        probability(fp)
    }

    /// Insertions since empty whose expected zero fraction is the observed one, or
    /// `None` at or below the stable point (the curve never gets there).
    fn insertions(&self) -> Option<u64> {
        let z = self.zeros as f64 / self.params.m() as f64;
        if z >= 1.0 {
            return Some(0);
        }
        if z <= self.params.zero_fraction() {
            return None;
        }
        let below = |n: u64| self.params.zero_fraction_after(n) <= z;
        let mut hi = 1u64;
        while !below(hi) {
            if hi >= 1 << 62 {
                return None;
            }
            hi *= 2;
        }
        crate::numeric::first_true(0, hi, below)
    }

    /// The audit at two-sided `confidence` (the band of the distance).
    ///
    /// # Errors
    /// `confidence` outside (0, 1).
    pub fn audit(&self, confidence: f64) -> Result<SbfAudit, ModelError> {
        let z = z_quantile(confidence)?;
        let m = self.params.m() as f64;
        let zero_fraction = self.zeros as f64 / m;
        let stable = self.params.zero_fraction();
        let sd = (stable * (1.0 - stable) / m).sqrt();
        let distance = if sd > 0.0 {
            (zero_fraction - stable) / sd
        } else {
            0.0
        };
        let converging = distance > z;
        Ok(SbfAudit {
            zeros: self.zeros,
            zero_fraction,
            zero_fraction_stable: stable,
            distance_sd: distance,
            at_stable_point: distance.abs() <= z,
            insertions_since_empty: if converging { self.insertions() } else { None },
            fp: self.fp(),
            fp_stable: self.params.fp(),
            confidence,
        })
    }
}

/// The audit of a Stable Bloom filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SbfAudit {
    /// Zero cells counted.
    pub zeros: u64,
    /// `zeros / m`.
    pub zero_fraction: f64,
    /// The stable point `π0`.
    pub zero_fraction_stable: f64,
    /// `(zero_fraction − π0)` in binomial standard deviations `sqrt(π0(1 − π0)/m)`.
    pub distance_sd: f64,
    /// Whether `|distance_sd|` is within the `confidence` quantile.
    pub at_stable_point: bool,
    /// Insertions since empty matching the observed zeros, while above the stable point.
    pub insertions_since_empty: Option<u64>,
    /// FP of a fresh item given the cells.
    pub fp: f64,
    /// FP at the stable point, `(1 − π0)^K`.
    pub fp_stable: f64,
    /// Two-sided confidence of the band.
    pub confidence: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_point_and_convergence() {
        let p = SbfParams::new(10_000, 3, 3, 10).unwrap();
        let at = (p.zero_fraction() * 10_000.0).round() as u64;
        let a = SbfOccupancy::new(p, at).unwrap().audit(0.95).unwrap();
        assert!(a.at_stable_point && a.insertions_since_empty.is_none());
        // Zeros of a filter 2000 insertions old: the inversion gives 2000 back.
        let z = (p.zero_fraction_after(2000) * 10_000.0).round() as u64;
        let a = SbfOccupancy::new(p, z).unwrap().audit(0.95).unwrap();
        let n = a.insertions_since_empty.unwrap();
        assert!(n.abs_diff(2000) < 20, "{n}");
        assert!(!a.at_stable_point && a.distance_sd > 0.0);
        let empty = SbfOccupancy::new(p, 10_000).unwrap().audit(0.95).unwrap();
        assert_eq!((empty.fp, empty.insertions_since_empty), (0.0, Some(0)));
    }

    #[test]
    fn fp_given_cells_draws_distinct_cells() {
        let p = SbfParams::new(4, 2, 1, 1).unwrap();
        // 2 non-zero cells of 4: both probed cells non-zero with probability 2/4·1/3.
        approx::assert_relative_eq!(SbfOccupancy::new(p, 2).unwrap().fp(), 1.0 / 6.0);
        assert!(SbfOccupancy::new(p, 5).is_err());
    }
}
