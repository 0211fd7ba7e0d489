//! Auditing a live Stable Bloom filter from its count of zero cells (issue 22).
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
//! `π00` is the stationary probability that two given cells are both zero: the
//! stationary law of a two-cell chain (derived here, the one-cell chain of
//! [`SbfParams::transition_matrix`] for a pair: per step both cells are decremented with
//! probability `q2`, one given cell with `P/m`, both set with `K(K−1)/(m(m−1))`), solved
//! by GTH for each class of pairs (`zero_variance`). The spread depends on which cells the
//! deletion phase picks ([`Decrements`]): `P` distinct random cells make the cells
//! negatively correlated, a run of `P` consecutive cells (Deng and Rafiei's
//! implementation) positively correlated for neighbours.
//!
//! # Accuracy
//! The chains have `(Max + 1)²` states, one per class of pair distances (up to `P + 1`
//! classes for runs); beyond `2·10^8` units of work the binomial variance is used, as
//! `variance` says. `tests/agreement/audit.rs` measures the share of reference filters at
//! their stable point within the 95% band.

use super::SbfParams;
use crate::classic::z_quantile;
use crate::error::{check, ModelError};
use crate::markov::stationary_gth;
use crate::numeric::probability;
use nalgebra::DMatrix;
use serde::Serialize;

/// How the variance of the zero count was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZeroVariance {
    /// From the two-cell chain (exact for the model's distinct cells).
    PairChain,
    /// Binomial, cells taken as independent (the pair chains beyond their work limit).
    Binomial,
}

/// Which `P` cells the deletion phase decrements: the per-cell law, and so the stable
/// point, is the same; the dependence between cells, and so the spread of the zero
/// count, is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decrements {
    /// `P` distinct cells drawn at random (the model's assumption, [`SbfParams`]).
    Distinct,
    /// A run of `P` consecutive cells (circularly) from a random start: Deng and
    /// Rafiei's implementation, and the reference filter's.
    Consecutive,
}

/// Largest work `(classes of pairs)·((Max + 1)²)³` spent on the two-cell chains.
const PAIR_WORK: f64 = 2e8;

/// `P(both zero)` and `P(first zero)` at stationarity for two given cells that are both
/// decremented in a step with probability `q2` and both set with probability `a2`.
fn pair_zero(params: &SbfParams, q2: f64, a2: f64) -> Option<(f64, f64)> {
    let (m, k, p) = (params.m() as f64, f64::from(params.k()), params.p() as f64);
    let (a, q) = (k / m, p / m);
    // (first, second, probability) of the decremented and of the set cells.
    let both = |x: f64, x2: f64| {
        [
            (true, true, x2),
            (true, false, x - x2),
            (false, true, x - x2),
            (false, false, 1.0 - 2.0 * x + x2),
        ]
    };
    let top = params.max() as usize;
    let n = top + 1;
    let step = |v: usize, dec: bool, set: bool| {
        if set {
            top
        } else if dec && v > 0 {
            v - 1
        } else {
            v
        }
    };
    let mut t = DMatrix::zeros(n * n, n * n);
    for i in 0..n {
        for j in 0..n {
            for (d1, d2, pd) in both(q, q2) {
                for (s1, s2, ps) in both(a, a2) {
                    t[(i * n + j, step(i, d1, s1) * n + step(j, d2, s2))] += pd * ps;
                }
            }
        }
    }
    let pi = stationary_gth(&t).ok()?;
    let first: f64 = (0..n).map(|j| pi[j]).sum();
    Some((pi[0], first))
}

/// `Var Z` of the zero count at the stable point from the two-cell chains, or `None`
/// beyond the work limit.
///
/// # Formula
/// ```text
/// Var Z = m·π0(1 − π0) + m·Σ_{d=1..m−1} (π00(q2(d)) − π0²)
/// q2(d) = P(P − 1)/(m(m − 1))                          (distinct decrements)
/// q2(d) = (max(0, P − d) + max(0, P − (m − d)))/m      (a run of P from a random start)
/// a2    = K(K − 1)/(m(m − 1))                          (K distinct set cells)
/// ```
fn zero_variance(params: &SbfParams, decrements: Decrements) -> Option<f64> {
    let (m, k, p) = (params.m(), f64::from(params.k()), params.p());
    let mf = m as f64;
    let pairs = mf * (mf - 1.0);
    let a2 = k * (k - 1.0) / pairs;
    let states = f64::from(params.max() + 1).powi(2);
    let near = p.min(m - 1);
    let most_classes = match decrements {
        Decrements::Distinct => 1.0,
        Decrements::Consecutive => near as f64 + 2.0,
    };
    if most_classes * states.powi(3) > PAIR_WORK {
        return None;
    }
    // (q2, number of partners d with it)
    let classes: Vec<(f64, f64)> = match decrements {
        Decrements::Distinct => vec![(p as f64 * (p as f64 - 1.0) / pairs, mf - 1.0)],
        Decrements::Consecutive => {
            let mut by_q: std::collections::BTreeMap<u64, u64> = Default::default();
            for d in 1..=near {
                let covering = p.saturating_sub(d) + p.saturating_sub(m - d);
                *by_q.entry(covering).or_default() += 1;
            }
            for d in (m - near).max(near + 1)..m {
                let covering = p.saturating_sub(d) + p.saturating_sub(m - d);
                *by_q.entry(covering).or_default() += 1;
            }
            let counted: u64 = by_q.values().sum();
            *by_q.entry(0).or_default() += (m - 1).saturating_sub(counted);
            by_q.into_iter()
                .filter(|&(_, c)| c > 0)
                .map(|(cov, c)| (cov as f64 / mf, c as f64))
                .collect()
        }
    };
    let pi0 = params.zero_fraction();
    let mut cov = 0.0;
    for (q2, count) in classes {
        let (both, first) = pair_zero(params, q2, a2)?;
        cov += count * (both - first * first);
    }
    Some((mf * pi0 * (1.0 - pi0) + mf * cov).max(0.0))
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
        let (m, nz) = (
            self.params.m() as f64,
            (self.params.m() - self.zeros) as f64,
        );
        let fp = (0..self.params.k())
            .map(f64::from)
            .map(|i| ((nz - i) / (m - i)).max(0.0))
            .product::<f64>();
        probability(fp)
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
    pub fn audit(&self, confidence: f64) -> Result<SbfAudit, ModelError> {
        let z = z_quantile(confidence)?;
        let m = self.params.m() as f64;
        let zero_fraction = self.zeros as f64 / m;
        let stable = self.params.zero_fraction();
        let (var, variance) = match zero_variance(&self.params, self.decrements) {
            Some(v) => (v, ZeroVariance::PairChain),
            None => (m * stable * (1.0 - stable), ZeroVariance::Binomial),
        };
        let sd = var.max(0.0).sqrt() / m;
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
            zero_fraction_sd: sd,
            variance,
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
    fn pair_chain_marginal_is_the_stable_point() {
        for (m, k, max, p) in [(1000u64, 3u32, 3u32, 10u64), (64, 2, 1, 3), (500, 4, 7, 20)] {
            let params = SbfParams::new(m, k, max, p).unwrap();
            let pairs = (m * (m - 1)) as f64;
            let q2 = (p * (p - 1)) as f64 / pairs;
            let a2 = f64::from(k * (k - 1)) / pairs;
            let (both, first) = pair_zero(&params, q2, a2).unwrap();
            approx::assert_relative_eq!(first, params.zero_fraction(), max_relative = 1e-10);
            // Negatively correlated cells: both zero less often than independent ones.
            assert!(both < first * first, "{both} {first}");
            // Decremented together (neighbours in a run): positively correlated.
            let (near, _) = pair_zero(&params, (p - 1) as f64 / m as f64, a2).unwrap();
            assert!(near > first * first);
            let binomial = m as f64 * first * (1.0 - first);
            let distinct = zero_variance(&params, Decrements::Distinct).unwrap();
            let run = zero_variance(&params, Decrements::Consecutive).unwrap();
            assert!(
                distinct < binomial && run > distinct,
                "{distinct} {run} {binomial}"
            );
        }
        let big = SbfParams::new(100_000, 3, 200, 10).unwrap();
        assert!(zero_variance(&big, Decrements::Consecutive).is_none());
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
