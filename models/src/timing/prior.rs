//! Priors on the insertion age and the expected number of distinct items, Sections 2.3
//! and 2.5 [TBF]; the inferential Classical Bloom filter of Section 2.4 [TBF].
//!
//! These pieces are shared by every inferential time-decaying filter (the BTBF here,
//! the GBF in `gbf`).

use crate::error::{check, ModelError};
use crate::numeric::{one_minus_pow1m, pow1m, CompensatedSum};
pub use crate::workload::{harmonic, Distinct, EULER_GAMMA};
use serde::Serialize;

/// Checks a sample probability `p_x` (Definition 5 [TBF]): `0 < p_x <= 1`.
///
/// # Errors
/// [`ModelError::InvalidParam`] naming `px`.
pub fn check_px(px: f64) -> Result<f64, ModelError> {
    if px > 0.0 && px <= 1.0 {
        Ok(px)
    } else {
        Err(ModelError::invalid("px", px, "0 < px <= 1"))
    }
}

/// The continuous-stream prior `P(I_x = i) = p_x (1 − p_x)^i`.
///
/// # Formula
/// ```text
/// P(i) = p_x (1 − p_x)^i                                   Eq. (4) [TBF]
/// ```
pub fn prior(px: f64, i: u64) -> f64 {
    px * pow1m(px, i as f64)
}

/// The finite-stream prior of Eq. (3) [TBF] after `n` insertions: `Some(i)` is an age
/// `0 <= i < n`, `None` is "never inserted" (`I_x = ⊥`).
///
/// # Formula
/// ```text
/// P(i) = p_x (1 − p_x)^i   (0 <= i < n),     P(⊥) = (1 − p_x)^n     Eq. (3) [TBF]
/// ```
pub fn prior_finite(px: f64, n: u64, i: Option<u64>) -> f64 {
    match i {
        Some(i) if i < n => prior(px, i),
        Some(_) => 0.0,
        None => pow1m(px, n as f64),
    }
}

/// `P(α <= I_x < β)` for the continuous stream; `beta = None` is `β = ∞`.
///
/// # Formula
/// ```text
/// P(α <= I_x < β) = (1 − p_x)^α (1 − (1 − p_x)^(β−α))       Eq. (5) [TBF]
/// ```
/// # Numerics
/// `1 − (1 − p_x)^(β−α)` by `expm1`: no cancellation for tiny `p_x`.
pub fn prior_range(px: f64, alpha: u64, beta: Option<u64>) -> f64 {
    let head = pow1m(px, alpha as f64);
    match beta {
        None => head,
        Some(b) if b <= alpha => 0.0,
        Some(b) => head * one_minus_pow1m(px, (b - alpha) as f64),
    }
}

/// The natural log of [`prior_range`], in log space (no underflow of `(1 − p_x)^α`).
///
/// # Formula
/// ```text
/// ln P(α <= I_x < β) = α·ln(1 − p_x) + ln(1 − (1 − p_x)^(β−α))       Eq. (5) [TBF]
/// ```
/// `−∞` where the probability is 0 (`β <= α`, or `p_x = 1` and `α > 0`).
pub fn ln_prior_range(px: f64, alpha: u64, beta: Option<u64>) -> f64 {
    let head = if alpha == 0 {
        0.0
    } else {
        alpha as f64 * (-px).ln_1p()
    };
    match beta {
        None => head,
        Some(b) if b <= alpha => f64::NEG_INFINITY,
        Some(b) => head + one_minus_pow1m(px, (b - alpha) as f64).ln(),
    }
}

/// Theorem 1 [TBF]: the posterior probability that `x` was inserted into a Classical
/// Bloom filter of `m` bits and `k` hashes after `n` insertions, given that `c` of its
/// `r` bits are set.
///
/// # Formula
/// ```text
/// P(I_x < n | R_x) = 0                                         if c ≠ r
///                  = 1 / (1 + (1−p_x)^n · P_FP / (1 − (1−p_x)^n))   if c = r   Eq. (13) [TBF]
/// P_FP = (1 − (1 − 1/m)^(kn))^r                                            Eq. (1) [TBF]
/// ```
/// # Errors
/// `px` outside (0, 1]; `m`, `n` zero; `r` outside `1..=k`; `c > r`.
pub fn classical_posterior(
    px: f64,
    n: u64,
    m: u64,
    k: u32,
    r: u32,
    c: u32,
) -> Result<f64, ModelError> {
    check_px(px)?;
    check::in_range("m", m, 1..=u64::MAX)?;
    check::in_range("n", n, 1..=u64::MAX)?;
    check::in_range("r", r, 1..=k.max(1))?;
    check::in_range("c", c, 0..=r)?;
    if c != r {
        return Ok(0.0);
    }
    let p_fp = one_minus_pow1m(1.0 / m as f64, f64::from(k) * n as f64).powi(r as i32);
    let never = pow1m(px, n as f64);
    let inserted = one_minus_pow1m(px, n as f64);
    Ok(crate::numeric::probability(
        inserted / (inserted + never * p_fp),
    ))
}

/// Eq. (14) [TBF]: Theorem 1 with `r = k ≈ (m/n) ln 2`, so `P_FP ≈ (1/2)^((m/n) ln 2)`.
///
/// # Formula
/// ```text
/// P(I_x < n | R_x) ≈ P(I_x < n) / (P(⊥)·(1/2)^((m/n) ln 2) + P(I_x < n))   Eq. (14) [TBF]
/// ```
pub fn classical_posterior_approx(px: f64, n: u64, m: u64) -> f64 {
    let inserted = one_minus_pow1m(px, n as f64);
    let never = pow1m(px, n as f64);
    let p_fp = 0.5f64.powf(m as f64 / n as f64 * std::f64::consts::LN_2);
    inserted / (never * p_fp + inserted)
}

/// The distribution of stream items: which item arrives next (Definition 5 [TBF]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "prior", rename_all = "snake_case")]
pub enum StreamPrior {
    /// `p_x = 1/|U|` for every item (Section 6.3 [TBF]).
    Uniform {
        /// `|U|`.
        universe: u64,
    },
    /// Discrete power law `p_x = 1/(x·H_|U|)` for ranks `x = 1..|U|` (Section 6.4.1 [TBF]).
    Zipf {
        /// `|U|`.
        universe: u64,
        /// `H_|U|`, cached.
        #[serde(skip)]
        harmonic: f64,
    },
}

impl StreamPrior {
    /// Allowed universe sizes (2 to 2^40).
    pub const UNIVERSE: std::ops::RangeInclusive<u64> = 2..=(1 << 40);

    /// A uniform prior over `universe` items.
    ///
    /// # Errors
    /// `universe` outside [`Self::UNIVERSE`].
    pub fn uniform(universe: u64) -> Result<Self, ModelError> {
        check::in_range("universe", universe, Self::UNIVERSE)?;
        Ok(StreamPrior::Uniform { universe })
    }

    /// A Zipf (power-law, exponent 1) prior over `universe` ranks.
    ///
    /// # Errors
    /// `universe` outside [`Self::UNIVERSE`].
    pub fn zipf(universe: u64) -> Result<Self, ModelError> {
        check::in_range("universe", universe, Self::UNIVERSE)?;
        Ok(StreamPrior::Zipf {
            universe,
            harmonic: harmonic(universe),
        })
    }

    /// `uniform:U` or `zipf:U`, as the CLI spells it.
    pub fn describe(&self) -> String {
        match *self {
            StreamPrior::Uniform { universe } => format!("uniform:{universe}"),
            StreamPrior::Zipf { universe, .. } => format!("zipf:{universe}"),
        }
    }

    /// `|U|`.
    pub fn universe(&self) -> u64 {
        match *self {
            StreamPrior::Uniform { universe } | StreamPrior::Zipf { universe, .. } => universe,
        }
    }

    /// `p_x` of the item of rank `x` (1-based; every rank has the same `p_x` when uniform).
    pub fn px(&self, rank: u64) -> f64 {
        match *self {
            StreamPrior::Uniform { universe } => 1.0 / universe as f64,
            StreamPrior::Zipf { harmonic, .. } => 1.0 / (rank as f64 * harmonic),
        }
    }

    /// The stream's `D(j)`: Eq. (16) [TBF] (uniform), Eq. (17) [TBF] (Zipf).
    pub fn distinct(&self) -> Distinct {
        match *self {
            StreamPrior::Uniform { universe } => Distinct::Uniform { universe },
            StreamPrior::Zipf { universe, harmonic } => Distinct::ZipfApprox { universe, harmonic },
        }
    }

    /// Item classes `(weight, p_x)` whose weights (the arrival probabilities `Σ p_x` of
    /// the class) sum to 1: one class for the uniform prior; for Zipf, ranks grouped in
    /// `groups` geometric bands, each represented by the arrival-weighted mean of its
    /// `p_x`. Used to average a per-item quantity over arriving items.
    ///
    /// # Accuracy
    /// Zipf: a band spans a factor `|U|^(1/groups)` of `p_x`; averages of smooth
    /// quantities are exact to second order in that spread (a test compares 64 with
    /// 256 bands).
    pub fn classes(&self, groups: usize) -> Vec<(f64, f64)> {
        match *self {
            StreamPrior::Uniform { universe } => vec![(1.0, 1.0 / universe as f64)],
            StreamPrior::Zipf { universe, harmonic } => {
                let h = harmonic;
                let groups = groups.max(1);
                let ratio = (universe as f64).powf(1.0 / groups as f64);
                let mut out = Vec::with_capacity(groups);
                let mut lo = 1u64;
                let mut edge = 1.0f64;
                while lo <= universe {
                    edge *= ratio;
                    let hi = (edge.floor() as u64).clamp(lo, universe);
                    // Ranks lo..=hi: weight Σ 1/(xH), weighted mean p = Σ (1/(xH))² / weight.
                    let (mut w, mut w2) = (0.0, 0.0);
                    if hi - lo < 4096 {
                        for x in lo..=hi {
                            let p = 1.0 / (x as f64 * h);
                            w += p;
                            w2 += p * p;
                        }
                    } else {
                        // Euler–Maclaurin: Σ 1/x ≈ ln((hi+½)/(lo−½)), Σ 1/x² ≈ 1/(lo−½) − 1/(hi+½).
                        let (a, b) = (lo as f64 - 0.5, hi as f64 + 0.5);
                        w = (b / a).ln() / h;
                        w2 = (1.0 / a - 1.0 / b) / (h * h);
                    }
                    out.push((w, w2 / w));
                    lo = hi + 1;
                }
                let total: f64 = out.iter().map(|c| c.0).sum();
                out.iter_mut().for_each(|c| c.0 /= total);
                out
            }
        }
    }

    /// The probability that the next arrival's age is below `w`: `Σ_x p_x (1 − (1−p_x)^w)`,
    /// the fraction of Pos queries in the query-then-insert stream of Section 6.1.1 [TBF].
    pub fn in_window(&self, w: u64) -> f64 {
        match *self {
            StreamPrior::Uniform { universe } => one_minus_pow1m(1.0 / universe as f64, w as f64),
            StreamPrior::Zipf { universe, harmonic } => {
                let h = harmonic;
                let s: CompensatedSum = (1..=universe)
                    .map(|x| {
                        let p = 1.0 / (x as f64 * h);
                        p * one_minus_pow1m(p, w as f64)
                    })
                    .collect();
                s.value()
            }
        }
    }
}

/// A trace's measured item frequencies: the empirical stream prior, `p_x = c_x/N` for an
/// item seen `c_x` times in `N` records (the maximum-likelihood rate of Definition 5
/// [TBF]), kept as a histogram of counts so that its size is bounded by the distinct
/// counts (at most `√(2N)`), not the items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemFrequencies {
    /// `(c, items seen c times)`, ascending in `c`, every entry positive.
    histogram: Vec<(u64, u64)>,
    /// `N = Σ c · items`.
    records: u64,
}

impl ItemFrequencies {
    /// The frequencies of a histogram `(c, items seen c times)` (any order; entries with
    /// a zero are ignored; equal counts are merged).
    ///
    /// # Errors
    /// `histogram` with no positive entry, or more than `2^64 − 1` records.
    pub fn new(histogram: &[(u64, u64)]) -> Result<Self, ModelError> {
        let mut h: Vec<(u64, u64)> = histogram
            .iter()
            .copied()
            .filter(|&(c, n)| c > 0 && n > 0)
            .collect();
        h.sort_unstable();
        h.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                a.1 += b.1;
            }
            same
        });
        let records = h
            .iter()
            .try_fold(0u64, |s, &(c, n)| s.checked_add(c.checked_mul(n)?))
            .ok_or_else(|| ModelError::invalid("records", "over 2^64", "at most 2^64 - 1"))?;
        if records == 0 {
            return Err(ModelError::invalid(
                "histogram",
                "no item",
                "at least one item seen at least once",
            ));
        }
        Ok(Self {
            histogram: h,
            records,
        })
    }

    /// The frequencies of a trace's keys.
    ///
    /// # Errors
    /// An empty trace.
    pub fn of_keys(keys: &[u64]) -> Result<Self, ModelError> {
        let mut counts = std::collections::HashMap::<u64, u64>::new();
        keys.iter()
            .for_each(|&k| *counts.entry(k).or_default() += 1);
        let mut by_count = std::collections::HashMap::<u64, u64>::new();
        counts
            .values()
            .for_each(|&c| *by_count.entry(c).or_default() += 1);
        Self::new(&by_count.into_iter().collect::<Vec<_>>())
    }

    /// `N`, the records.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// `(c, items seen c times)`, ascending in `c`.
    pub fn histogram(&self) -> &[(u64, u64)] {
        &self.histogram
    }

    /// `p_x = c/N` of an item seen `count` times.
    pub fn px(&self, count: u64) -> f64 {
        count as f64 / self.records as f64
    }

    /// Item classes `(weight, p_x)` whose weights (the arrival shares `Σ c·items/N`) sum
    /// to 1: the counts grouped in at most `groups` geometric bands of `c` (each band's
    /// counts within a factor `(c_max + 1)^(1/groups)`), each represented by the
    /// arrival-weighted mean of its `p_x`, as [`StreamPrior::classes`] does for Zipf.
    pub fn classes(&self, groups: usize) -> Vec<(f64, f64)> {
        let n = self.records as f64;
        let top = self.histogram.last().map_or(1, |h| h.0) as f64;
        // `(c_max + 1)^(1/groups)`: the top count lies inside the last band.
        let ratio = (top + 1.0).powf(1.0 / groups.max(1) as f64);
        let mut out: Vec<(f64, f64)> = Vec::new();
        let mut edge = 1.0f64;
        let mut band = (0.0f64, 0.0f64);
        for &(c, items) in &self.histogram {
            let c = c as f64;
            if c >= edge * ratio {
                if band.0 > 0.0 {
                    out.push((band.0 / n, band.1 / band.0));
                }
                band = (0.0, 0.0);
                while c >= edge * ratio {
                    edge *= ratio;
                }
            }
            // Arrivals c·items, each with p = c/N.
            band.0 += c * items as f64;
            band.1 += c * items as f64 * (c / n);
        }
        if band.0 > 0.0 {
            out.push((band.0 / n, band.1 / band.0));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn prior_sums_to_one_and_ranges_match_eq5() {
        let px = 0.01;
        let direct: f64 = (0..5000).map(|i| prior(px, i)).sum();
        assert_relative_eq!(direct, 1.0, max_relative = 1e-12);
        let part: f64 = (30..70).map(|i| prior(px, i)).sum();
        assert_relative_eq!(prior_range(px, 30, Some(70)), part, max_relative = 1e-13);
        assert_relative_eq!(
            prior_range(px, 30, None),
            0.99f64.powi(30),
            max_relative = 1e-13
        );
        assert_eq!(prior_range(px, 7, Some(7)), 0.0);
        // Eq. (3): the finite prior sums to 1 with P(⊥).
        let n = 100;
        let s: f64 =
            (0..n).map(|i| prior_finite(px, n, Some(i))).sum::<f64>() + prior_finite(px, n, None);
        assert_relative_eq!(s, 1.0, max_relative = 1e-13);
    }

    #[test]
    fn theorem1_matches_bayes_by_direct_sum() {
        // Eq. (11) with Eq. (12): numerator Σ P(i)·1, denominator adds P(⊥)·P_FP.
        let (px, n, m, k) = (2e-4, 1000u64, 10_000u64, 7u32);
        let p_fp = (1.0 - (1.0 - 1.0 / m as f64).powf((u64::from(k) * n) as f64)).powi(7);
        let num: f64 = (0..n).map(|i| prior_finite(px, n, Some(i))).sum();
        let den = num + prior_finite(px, n, None) * p_fp;
        let got = classical_posterior(px, n, m, k, 7, 7).unwrap();
        assert_relative_eq!(got, num / den, max_relative = 1e-12);
        assert_eq!(classical_posterior(px, n, m, k, 7, 6).unwrap(), 0.0);
        assert!(classical_posterior(0.0, n, m, k, 7, 7).is_err());
        assert!(classical_posterior(px, n, m, k, 8, 7).is_err());
    }

    #[test]
    fn theorem1_approaches_eq14_at_the_optimal_k() {
        // Eq. (14) assumes k = (m/n) ln 2 and P_FP = (1 − e^(−kn/m))^k; at m/n = 10/ln2·ln2…
        // choose m/n so that k is an integer: m/n = 7/ln 2 ≈ 10.0989.
        let n = 100_000u64;
        let m = (7.0 / std::f64::consts::LN_2 * n as f64).round() as u64;
        for px in [1e-7, 1e-6, 1e-5] {
            let exact = classical_posterior(px, n, m, 7, 7, 7).unwrap();
            let approx = classical_posterior_approx(px, n, m);
            assert_relative_eq!(exact, approx, max_relative = 1e-4);
        }
    }

    #[test]
    fn item_frequencies_group_counts_and_keep_the_arrival_moments() {
        let keys: Vec<u64> = [1u64, 1, 1, 2, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5]
            .into_iter()
            .collect();
        let f = ItemFrequencies::of_keys(&keys).unwrap();
        assert_eq!(f.records(), 15);
        assert_eq!(f.histogram(), &[(1, 2), (2, 1), (3, 1), (8, 1)]);
        assert_relative_eq!(f.px(3), 0.2);
        // One class per count when the bands are fine; arrival shares sum to 1 and the
        // mean arrival probability Σ p_x² (over items) is kept by any grouping.
        let exact: f64 = [(1.0, 2.0), (2.0, 1.0), (3.0, 1.0), (8.0, 1.0)]
            .iter()
            .map(|&(c, n): &(f64, f64)| n * (c / 15.0) * (c / 15.0))
            .sum();
        for groups in [1, 2, 3, 64] {
            let cls = f.classes(groups);
            assert!(cls.len() <= groups.clamp(1, 4), "{groups}: {cls:?}");
            assert_relative_eq!(
                cls.iter().map(|c| c.0).sum::<f64>(),
                1.0,
                max_relative = 1e-12
            );
            let via: f64 = cls.iter().map(|c| c.0 * c.1).sum();
            assert_relative_eq!(via, exact, max_relative = 1e-12);
        }
        assert_eq!(f.classes(64).len(), 4);
        assert!(ItemFrequencies::new(&[(0, 3), (2, 0)]).is_err());
        assert!(ItemFrequencies::of_keys(&[]).is_err());
        assert!(ItemFrequencies::new(&[(u64::MAX, 2)]).is_err());
        assert_eq!(
            ItemFrequencies::new(&[(2, 1), (2, 3), (1, 1)])
                .unwrap()
                .histogram(),
            &[(1, 1), (2, 4)]
        );
    }

    #[test]
    fn zipf_classes_cover_the_stream() {
        let z = StreamPrior::zipf(1 << 16).unwrap();
        let cls = z.classes(64);
        assert_relative_eq!(
            cls.iter().map(|c| c.0).sum::<f64>(),
            1.0,
            max_relative = 1e-12
        );
        // Mean arrival probability Σ p_x² recovered by the classes.
        let h = harmonic(1 << 16);
        let exact: f64 = (1..=(1u64 << 16))
            .map(|x| (1.0 / (x as f64 * h)).powi(2))
            .sum();
        let via: f64 = cls.iter().map(|c| c.0 * c.1).sum();
        assert_relative_eq!(via, exact, max_relative = 1e-3);
        assert_relative_eq!(harmonic(4), 25.0 / 12.0, max_relative = 1e-15);
        let big = harmonic(2_000_000);
        let direct: f64 = (1..=2_000_000u64).rev().map(|i| 1.0 / i as f64).sum();
        assert_relative_eq!(big, direct, max_relative = 1e-13);
    }
}
