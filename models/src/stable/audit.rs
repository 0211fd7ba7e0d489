//! Auditing a live Stable or Importance-aware Bloom filter from its count of zero cells
//! (issue 22).
//!
//! # Formula
//! ```text
//! observed zero fraction   ẑ = Z/m
//! stable point             π0 = (1/(1 + 1/(P(1/K − 1/m))))^Max     Deng & Rafiei, Thm 2
//! distance                 (ẑ − π0) / sd(Z/m)
//! Var Z                    m·π0(1 − π0) + m(m − 1)·(π00 − π0²)
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
//! `Var Z` is the stationary variance of the zero count ([`super::spread`]: two-cell
//! chains for random deletion, the linear-noise approximation of the whole filter for the
//! global IBF policies; a bound for MinImp whose counters no insertion saturates,
//! [`ZeroVariance::LinearNoiseBound`]); the binomial, which treats cells as independent, is
//! miscalibrated both ways and only used beyond both methods' work limits
//! ([`ZeroVariance::Binomial`]). The spread depends on which cells the deletion phase
//! picks ([`Decrements`]): `P` distinct random cells make the cells negatively
//! correlated, a run of `P` consecutive cells (Deng and Rafiei's implementation)
//! positively correlated for neighbours.
//!
//! An IBF ([`IbfOccupancy`]) is audited the same way against its solved stable point
//! ([`super::solve`]: exact for SBF and IBF1, mean field for IBF2-IBF6), with the
//! insertions since empty from the forward chain [`super::zero_fraction_transient`].
//!
//! # Accuracy
//! `tests/agreement/audit.rs` measures the share of reference filters at their stable
//! point within the 95% band (1000 seeded trials per setting).

use super::chain::CellChain;
use super::ibf::{solve, zero_fraction_transient, IbfSolution, TRANSIENT_WORK};
use super::spread::zero_variance;
pub use super::spread::ZeroVariance;
use super::{IbfParams, SbfParams};
use crate::classic::z_quantile;
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;

/// Which `P` cells the deletion phase decrements: the per-cell law, and so the stable
/// point, is the same; the dependence between cells, and so the spread of the zero
/// count, is not. Only random deletion (SBF, IBF1) has the choice; the global policies
/// pick cells by weight or rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decrements {
    /// `P` distinct cells drawn at random (the model's assumption, [`SbfParams`]).
    Distinct,
    /// A run of `P` consecutive cells (circularly) from a random start: Deng and
    /// Rafiei's implementation, and the reference filter's.
    Consecutive,
}

/// FP of a fresh item given `zeros` zero cells of `m`: `Π_{i<K} (m − Z − i)/(m − i)`
/// (its `K` distinct cells all non-zero).
fn fp_given_zeros(m: u64, k: u32, zeros: u64) -> f64 {
    let (mf, nz) = (m as f64, (m - zeros) as f64);
    let fp = (0..k)
        .map(f64::from)
        .map(|i| ((nz - i) / (mf - i)).max(0.0))
        .product::<f64>();
    probability(fp)
}

/// The audit of `zeros` zero cells of `m` against a stable point `stable` with zero-count
/// variance `var`: the shared body of [`SbfOccupancy::audit`] and
/// [`IbfOccupancy::audit`]. `insertions` inverts the convergence curve, called only
/// while the zeros lie above the band.
fn band(
    (m, k, zeros): (u64, u32, u64),
    (stable, fp_stable): (f64, f64),
    (var, variance): (f64, ZeroVariance),
    confidence: f64,
    insertions: impl FnOnce() -> Option<u64>,
) -> Result<StableAudit, ModelError> {
    let z = z_quantile(confidence)?;
    let mf = m as f64;
    let zero_fraction = zeros as f64 / mf;
    let sd = var.max(0.0).sqrt() / mf;
    let distance = if sd > 0.0 {
        (zero_fraction - stable) / sd
    } else {
        0.0
    };
    let converging = distance > z;
    Ok(StableAudit {
        zeros,
        zero_fraction,
        zero_fraction_stable: stable,
        zero_fraction_sd: sd,
        variance,
        distance_sd: distance,
        at_stable_point: distance.abs() <= z,
        insertions_since_empty: if converging { insertions() } else { None },
        fp: fp_given_zeros(m, k, zeros),
        fp_stable,
        confidence,
    })
}

/// The zero cells of a live SBF.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SbfOccupancy {
    params: SbfParams,
    zeros: u64,
    decrements: Decrements,
}

impl SbfOccupancy {
    /// A filter of `params` with `zeros` zero cells whose deletion phase decrements
    /// `decrements` cells.
    ///
    /// # Errors
    /// `zeros` above `m`.
    pub fn new(params: SbfParams, zeros: u64, decrements: Decrements) -> Result<Self, ModelError> {
        check::in_range("zeros", zeros, 0..=params.m())?;
        Ok(Self {
            params,
            zeros,
            decrements,
        })
    }

    /// FP of a fresh item given the cells: `Π_{i<K} (m − Z − i)/(m − i)`.
    pub fn fp(&self) -> f64 {
        fp_given_zeros(self.params.m(), self.params.k(), self.zeros)
    }

    /// The one-cell chain of the SBF (every insertion sets `Max`).
    fn chain(&self) -> Result<CellChain, ModelError> {
        let p = &self.params;
        let ibf = p.as_policy()?;
        Ok(ibf.chain(|_, _| p.p() as f64 / p.m() as f64))
    }

    /// Insertions since empty whose expected zero fraction is the observed one (the
    /// first `n` with `zero_fraction_after(n) ≤ ẑ`), or `None` at or below the stable
    /// point (the curve never gets there).
    ///
    /// # Numerics
    /// Binary lifting over the powers `T^(2^i)` of the one-cell chain: `O(log n)` matrix
    /// squarings instead of a matrix power per bisection step (at `Max = 255` the
    /// bisection took 4-12 s, this a fraction of a second).
    fn insertions(&self) -> Option<u64> {
        let z = self.zeros as f64 / self.params.m() as f64;
        if z >= 1.0 {
            return Some(0);
        }
        if z <= self.params.zero_fraction() {
            return None;
        }
        // powers[i] = T^(2^i), up to the first whose (0, 0) entry is at most z.
        let mut powers = vec![self.params.transition_matrix()];
        while powers[powers.len() - 1][(0, 0)] > z {
            if powers.len() > 62 {
                return None;
            }
            let last = &powers[powers.len() - 1];
            powers.push(last * last);
        }
        // The largest n with zero_fraction_after(n) > z, built bit by bit from e_0.
        let mut row = powers[0].row(0).clone_owned() * 0.0;
        row[0] = 1.0;
        let mut n = 0u64;
        for i in (0..powers.len() - 1).rev() {
            let next = &row * &powers[i];
            if next[0] > z {
                row = next;
                n += 1 << i;
            }
        }
        Some(n + 1)
    }

    /// The audit at two-sided `confidence` (the band of the distance).
    ///
    /// # Errors
    /// `confidence` outside (0, 1).
    pub fn audit(&self, confidence: f64) -> Result<StableAudit, ModelError> {
        let p = &self.params;
        let chain = self.chain()?;
        let pi = chain.stationary()?;
        let variance = zero_variance(
            &chain,
            &pi,
            (p.m(), p.k(), p.p()),
            super::Delete::Random,
            self.decrements,
        );
        band(
            (p.m(), p.k(), self.zeros),
            (p.zero_fraction(), p.fp()),
            variance,
            confidence,
            || self.insertions(),
        )
    }
}

/// An Importance-aware (or Stable) Bloom filter's model at its stable point, with the
/// spread of its zero count: solved once, then [`Self::audit`] per count of zero cells.
#[derive(Debug, Clone)]
pub struct IbfOccupancy {
    solution: IbfSolution,
    variance: (f64, ZeroVariance),
}

impl IbfOccupancy {
    /// Solves `params`' stable point and the variance of its zero count; `decrements`
    /// says which cells random deletion (SBF, IBF1) decrements, and is not used by the
    /// global policies (IBF2-IBF6), which pick cells by weight or rank.
    ///
    /// # Errors
    /// As [`solve`].
    pub fn new(params: &IbfParams, decrements: Decrements) -> Result<Self, ModelError> {
        let solution = solve(params)?;
        let (chain, pi) = solution.chain_and_law();
        let delete = params.policy().delete();
        let (var, mut kind) = zero_variance(
            chain,
            pi,
            (params.m(), params.k(), params.p()),
            delete,
            decrements,
        );
        if delete == super::Delete::MinImp
            && kind == ZeroVariance::LinearNoise
            && !super::minimp::saturates(params)
        {
            kind = ZeroVariance::LinearNoiseBound;
        }
        Ok(Self {
            solution,
            variance: (var, kind),
        })
    }

    /// The same stable point with `Var Z = variance` measured by simulating the filter
    /// ([`ZeroVariance::Simulated`]): for the cases whose computed variance is not
    /// calibrated ([`ZeroVariance::is_calibrated`]); the caller (bfopt-validation, which
    /// runs the reference filter) states how it was measured and its Monte-Carlo error.
    ///
    /// # Errors
    /// `variance` not finite and positive.
    pub fn with_simulated_variance(self, variance: f64) -> Result<Self, ModelError> {
        if !(variance.is_finite() && variance > 0.0) {
            return Err(ModelError::invalid(
                "variance",
                variance,
                "a finite variance above 0",
            ));
        }
        Ok(Self {
            variance: (variance, ZeroVariance::Simulated),
            ..self
        })
    }

    /// The solved stable point.
    pub fn solution(&self) -> &IbfSolution {
        &self.solution
    }

    /// `Var Z` of the zero count at the stable point and how it was computed.
    pub fn zero_variance(&self) -> (f64, ZeroVariance) {
        self.variance
    }

    /// Insertions since empty: the first `n` whose expected zero fraction from an empty
    /// filter ([`zero_fraction_transient`]) is at most `ẑ`, searched over doubling
    /// horizons up to [`TRANSIENT_WORK`]` / states`; `None` beyond.
    fn insertions(&self, zero_fraction: f64) -> Option<u64> {
        let params = self.solution.params();
        let states = self.solution.chain_and_law().0.states() as u64;
        let limit = TRANSIENT_WORK / states;
        let mut horizon = 1024u64.min(limit);
        loop {
            let curve = zero_fraction_transient(params, horizon).ok()?;
            if let Some(n) = curve.iter().position(|&z| z <= zero_fraction) {
                return Some(n as u64);
            }
            if horizon >= limit {
                return None;
            }
            horizon = (horizon * 4).min(limit);
        }
    }

    /// The audit of a live filter with `zeros` zero cells at two-sided `confidence`.
    ///
    /// # Errors
    /// `zeros` above `m`; `confidence` outside (0, 1).
    pub fn audit(&self, zeros: u64, confidence: f64) -> Result<StableAudit, ModelError> {
        let params = self.solution.params();
        let m = params.m();
        check::in_range("zeros", zeros, 0..=m)?;
        band(
            (m, params.k(), zeros),
            (self.solution.zero_fraction(), self.solution.fp()),
            self.variance,
            confidence,
            || self.insertions(zeros as f64 / m as f64),
        )
    }
}

/// The audit of a Stable or Importance-aware Bloom filter from its zero cells.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StableAudit {
    /// Zero cells counted.
    pub zeros: u64,
    /// `zeros / m`.
    pub zero_fraction: f64,
    /// The stable point `π0`.
    pub zero_fraction_stable: f64,
    /// Standard deviation of the zero fraction at the stable point, `sqrt(Var Z)/m`.
    pub zero_fraction_sd: f64,
    /// How `Var Z` was computed.
    pub variance: ZeroVariance,
    /// `(zero_fraction − π0) / zero_fraction_sd`.
    pub distance_sd: f64,
    /// Whether `|distance_sd|` is within the `confidence` quantile.
    pub at_stable_point: bool,
    /// Insertions since empty matching the observed zeros, while above the stable point.
    pub insertions_since_empty: Option<u64>,
    /// FP of a fresh item given the cells.
    pub fp: f64,
    /// FP at the stable point (`(1 − π0)^K`).
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
        let a = SbfOccupancy::new(p, at, Decrements::Consecutive)
            .unwrap()
            .audit(0.95)
            .unwrap();
        assert!(a.at_stable_point && a.insertions_since_empty.is_none());
        // Zeros of a filter 2000 insertions old: the inversion gives 2000 back.
        let z = (p.zero_fraction_after(2000) * 10_000.0).round() as u64;
        let a = SbfOccupancy::new(p, z, Decrements::Consecutive)
            .unwrap()
            .audit(0.95)
            .unwrap();
        let n = a.insertions_since_empty.unwrap();
        assert!(n.abs_diff(2000) < 20, "{n}");
        // Binary lifting finds the same n as a bisection over zero_fraction_after.
        let zf = z as f64 / 10_000.0;
        let bisected = crate::numeric::first_true(0, 1 << 20, |n| p.zero_fraction_after(n) <= zf);
        assert_eq!(Some(n), bisected);
        assert!(!a.at_stable_point && a.distance_sd > 0.0);
        let empty = SbfOccupancy::new(p, 10_000, Decrements::Distinct)
            .unwrap()
            .audit(0.95)
            .unwrap();
        assert_eq!((empty.fp, empty.insertions_since_empty), (0.0, Some(0)));
    }

    #[test]
    fn minimp_band_is_a_bound_only_where_counters_do_not_saturate() {
        use crate::stable::{ImportanceDist, Policy};
        // Importances up to 50 saturate 4-bit counters (cap 15), not 8-bit ones (cap 255).
        let imp = ImportanceDist::linear(1, 50).unwrap();
        let kind = |policy, bits| {
            let params = IbfParams::new(policy, 512, 4, 5, 5, imp.clone())
                .and_then(|p| p.with_counter_bits(bits))
                .unwrap();
            IbfOccupancy::new(&params, Decrements::Consecutive)
                .unwrap()
                .zero_variance()
        };
        for policy in [Policy::Ibf2, Policy::Ibf4] {
            let (v, k) = kind(policy, 4);
            assert_eq!(k, ZeroVariance::LinearNoise, "{policy}");
            assert!(v > 0.0, "{policy}: {v}");
        }
        let (v, k) = kind(Policy::Ibf2, 8);
        assert_eq!(k, ZeroVariance::LinearNoiseBound);
        assert!(v > 0.0, "{v}");
        // Probabilistic deletion is never named a bound.
        assert_eq!(kind(Policy::Ibf3, 8).1, ZeroVariance::LinearNoise);
    }

    #[test]
    fn fp_given_cells_draws_distinct_cells() {
        let p = SbfParams::new(4, 2, 1, 1).unwrap();
        // 2 non-zero cells of 4: both probed cells non-zero with probability 2/4·1/3.
        approx::assert_relative_eq!(
            SbfOccupancy::new(p, 2, Decrements::Distinct).unwrap().fp(),
            1.0 / 6.0
        );
        assert!(SbfOccupancy::new(p, 5, Decrements::Distinct).is_err());
    }
}
