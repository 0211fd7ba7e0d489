//! Priors on the insertion age and the expected number of distinct items, Sections 2.3
//! and 2.5 [TBF]; the inferential Classical Bloom filter of Section 2.4 [TBF].
//!
//! These pieces are shared by every inferential time-decaying filter (the BTBF here,
//! the GBF in `gbf`).

use crate::error::{check, ModelError};
use crate::numeric::{one_minus_pow1m, pow1m, CompensatedSum};
use serde::Serialize;

/// Euler's constant γ (Eq. (17) [TBF]).
pub const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

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

/// The harmonic number `H_n = Σ_{i=1}^{n} 1/i` (exact summation up to 10^6 terms, the
/// asymptotic series beyond, error below 1e-15 relative).
pub fn harmonic(n: u64) -> f64 {
    if n <= 1_000_000 {
        let s: CompensatedSum = (1..=n).rev().map(|i| 1.0 / i as f64).collect();
        return s.value();
    }
    let x = n as f64;
    x.ln() + EULER_GAMMA + 1.0 / (2.0 * x) - 1.0 / (12.0 * x * x) + 1.0 / (120.0 * x.powi(4))
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

/// Expected number of distinct items among `j` insertions, `D(j)` (Section 2.5 [TBF]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "distinct", rename_all = "snake_case")]
pub enum Distinct {
    /// `D(j) = j`: every insertion distinct (`--distinct none`).
    Identity,
    /// Uniform stream over `|U|` items.
    ///
    /// ```text
    /// D(j) = |U| (1 − (1 − 1/|U|)^j)                           Eq. (16) [TBF]
    /// ```
    Uniform {
        /// `|U|`.
        universe: u64,
    },
    /// Zipf stream, the approximation of Wu and Ravishankar, capped to `[0, min(j, |U|)]`.
    ///
    /// ```text
    /// D(j) ≈ (j / H_|U|) (1 − γ + ln(|U| H_|U| / j))           Eq. (17) [TBF]
    /// ```
    /// # Accuracy
    /// Against Eq. (15) at `|U| = 2^16` (measured in this module's tests): +20% at
    /// `j = 1` (the printed form exceeds `j` for `j` below about 3, hence the cap), within
    /// 5% for `10 <= j <= 2|U|` (at `|U| = 2^12`: −5.2% at `2|U|`, simulated in
    /// `tests/agreement/timing.rs`), −10% at `j = 4|U|` (the paper's `w = 2^18`), −84% at
    /// `j = 16|U|`; it falls to 0 at `j = e^(1−γ)|U|H_|U|`. Use
    /// [`Distinct::zipf_tabulated`] where `j` reaches beyond `|U|`.
    ZipfApprox {
        /// `|U|`.
        universe: u64,
        /// `H_|U|` ([`harmonic`]).
        harmonic: f64,
    },
    /// Zipf stream, exact: `D(j) = Σ_x (1 − (1 − p_x)^j)`, Eq. (15) [TBF] (`O(|U|)` per call).
    ZipfExact {
        /// `|U|`.
        universe: u64,
    },
    /// Sampled values `(j, D(j))`, interpolated piecewise-logarithmically (Eq. (18) [TBF]);
    /// below the first sample `D` is linear from `(0, 0)`, above the last it is held.
    Sampled {
        /// Points sorted by `j`, `j >= 1`, `D >= 0`.
        points: Vec<(f64, f64)>,
    },
}

impl Distinct {
    /// A sampled curve.
    ///
    /// # Errors
    /// Fewer than one point, non-increasing `j`, `j < 1`, `D(j)` not in `(0, j]`.
    pub fn sampled(points: Vec<(f64, f64)>) -> Result<Self, ModelError> {
        if points.is_empty() {
            return Err(ModelError::invalid(
                "points",
                "[]",
                "at least one (j, D(j))",
            ));
        }
        let mut prev = 0.0;
        for &(j, d) in &points {
            if !(j >= 1.0 && j > prev && j.is_finite()) {
                return Err(ModelError::invalid(
                    "points.j",
                    j,
                    "1 <= j, strictly increasing",
                ));
            }
            if !(d > 0.0 && d <= j) {
                return Err(ModelError::invalid("points.d", d, "0 < D(j) <= j"));
            }
            prev = j;
        }
        Ok(Distinct::Sampled { points })
    }

    /// Eq. (17) [TBF] for a Zipf stream over `universe` ranks.
    pub fn zipf_approx(universe: u64) -> Self {
        Distinct::ZipfApprox {
            universe,
            harmonic: harmonic(universe),
        }
    }

    /// Eq. (15) [TBF] for the Zipf stream, evaluated exactly at 16 points per decade of
    /// `j` from 1 to `10^3·|U|` and interpolated with Eq. (18) [TBF] in between: exact
    /// accuracy at the cost of a table (error below 1e-3 relative, tested).
    pub fn zipf_tabulated(universe: u64) -> Self {
        let exact = Distinct::ZipfExact { universe };
        let top = 1e3 * universe as f64;
        let mut points = Vec::new();
        let mut t = 0.0f64;
        loop {
            let j = 10f64.powf(t / 16.0);
            if j > top {
                break;
            }
            points.push((j, exact.d(j)));
            t += 1.0;
        }
        Distinct::Sampled { points }
    }

    /// `D_{−x}(j)`: the expected number of distinct items *other than* `x` among `j`
    /// arrivals, given that none of them is `x` (an item of sample probability `px`).
    /// This is what ages the cells of an item last inserted `j` arrivals ago: those
    /// arrivals are drawn from the stream conditioned on not being `x`.
    ///
    /// # Formula
    /// ```text
    /// D_{−x}(j) = Σ_{y≠x} 1 − (1 − p_y/(1−p_x))^j                       (Eq. (15) [TBF] conditioned)
    ///           = (|U|−1)(1 − (1 − 1/(|U|−1))^j)                           uniform, exactly
    ///           ≈ D(j/(1−p_x)) − (1 − (1−p_x)^(j/(1−p_x)))                 otherwise
    /// ```
    /// The last form replaces `(1 − p_y/(1−p_x))^j` by `(1−p_y)^(j/(1−p_x))`, equal to
    /// first order in `p_y` (the error is about `p_x Σ_y p_y²`, largest at small `j`);
    /// measured against the exact sum for a Zipf stream over `|U| = 2^10`, `j` from 1 to
    /// 1e5 (this module's tests): relative error 1.0e-3 for the most frequent item,
    /// 5e-4 at rank 4, 6e-5 at rank 32, 2e-6 at rank 1000. `D(j) = j` ([`Distinct::Identity`]) stays `j`.
    /// `px >= 1` (every arrival is `x`) gives 0.
    pub fn d_excluding(&self, px: f64, j: f64) -> f64 {
        if j <= 0.0 || px >= 1.0 {
            return 0.0;
        }
        match self {
            Distinct::Identity => j,
            Distinct::Uniform { universe } => {
                let u = (*universe - 1) as f64;
                if u <= 0.0 {
                    0.0
                } else {
                    u * one_minus_pow1m(1.0 / u, j)
                }
            }
            _ => {
                let scaled = j / (1.0 - px);
                (self.d(scaled) - one_minus_pow1m(px, scaled)).clamp(0.0, j)
            }
        }
    }

    /// `D(j)` for a real `j >= 0`.
    pub fn d(&self, j: f64) -> f64 {
        if j <= 0.0 {
            return 0.0;
        }
        match self {
            Distinct::Identity => j,
            Distinct::Uniform { universe } => {
                let u = *universe as f64;
                u * one_minus_pow1m(1.0 / u, j)
            }
            Distinct::ZipfApprox { universe, harmonic } => {
                let u = *universe as f64;
                let h = *harmonic;
                let d = j / h * (1.0 - EULER_GAMMA + (u * h / j).ln());
                d.clamp(0.0, j.min(u))
            }
            Distinct::ZipfExact { universe } => {
                let h = harmonic(*universe);
                let s: CompensatedSum = (1..=*universe)
                    .map(|x| one_minus_pow1m(1.0 / (x as f64 * h), j))
                    .collect();
                s.value()
            }
            Distinct::Sampled { points } => interpolate_log(points, j),
        }
    }
}

/// Piecewise-logarithmic interpolation, Eq. (18) [TBF]:
/// `ln D(j2) = ln D(j1) + ln(D(j3)/D(j1)) · ln(j2/j1) / ln(j3/j1)`.
fn interpolate_log(points: &[(f64, f64)], j: f64) -> f64 {
    let (j0, d0) = points[0];
    if j <= j0 {
        return d0 * j / j0;
    }
    // First sample at or above j (binary search: tables are long).
    let t = points.partition_point(|p| p.0 < j);
    if t >= points.len() {
        return points[points.len() - 1].1;
    }
    let ((j1, d1), (j3, d3)) = (points[t - 1], points[t]);
    (d1.ln() + (d3 / d1).ln() * (j / j1).ln() / (j3 / j1).ln()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// Issue 6 (D_{−x} aging): the scaled form against the exact conditioned sum.
    #[test]
    fn distinct_excluding_matches_the_conditioned_sum() {
        let u = 1u64 << 10;
        let h = harmonic(u);
        let exact = Distinct::ZipfExact { universe: u };
        for (rank, tol) in [(1u64, 1.2e-3), (4, 6e-4), (32, 7e-5), (1000, 3e-6)] {
            let px = 1.0 / (rank as f64 * h);
            for j in [1.0, 10.0, 100.0, 1e3, 1e4, 1e5] {
                let want: f64 = (1..=u)
                    .filter(|&y| y != rank)
                    .map(|y| one_minus_pow1m(1.0 / (y as f64 * h) / (1.0 - px), j))
                    .sum();
                let got = exact.d_excluding(px, j);
                assert!(
                    (got / want - 1.0).abs() < tol,
                    "rank {rank}, j {j}: {got} vs {want}"
                );
            }
        }
        let uni = Distinct::Uniform { universe: 100 };
        assert_relative_eq!(
            uni.d_excluding(0.01, 50.0),
            99.0 * one_minus_pow1m(1.0 / 99.0, 50.0),
            max_relative = 1e-14
        );
        assert_eq!(Distinct::Identity.d_excluding(0.3, 7.0), 7.0);
        assert_eq!(uni.d_excluding(1.0, 7.0), 0.0);
    }

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
    fn distinct_forms() {
        let u = Distinct::Uniform { universe: 1000 };
        assert_relative_eq!(u.d(1.0), 1.0, max_relative = 1e-12);
        assert_relative_eq!(u.d(1e7), 1000.0, max_relative = 1e-12);
        assert_eq!(Distinct::Identity.d(17.0), 17.0);
        // Eq. (16) is Eq. (15) with p_x = 1/|U|.
        let zipf_exact = Distinct::ZipfExact { universe: 1 << 16 };
        let zipf = Distinct::zipf_approx(1 << 16);
        let tab = Distinct::zipf_tabulated(1 << 16);
        let mut worst: f64 = 0.0;
        for j in [10.0, 100.0, 1e3, 1e4, 1e5, 131072.0] {
            let e = zipf_exact.d(j);
            worst = worst.max((zipf.d(j) / e - 1.0).abs());
        }
        assert!(
            worst < 0.05,
            "Eq. (17) vs Eq. (15): worst relative error {worst}"
        );
        let e = zipf_exact.d(262144.0);
        assert_relative_eq!(zipf.d(262144.0) / e, 0.902, epsilon = 0.002);
        assert!(zipf.d(1.0) <= 1.0);
        for j in [1.0, 3.7, 55.0, 1234.5, 98765.0, 262144.0, 3e6] {
            assert_relative_eq!(tab.d(j), zipf_exact.d(j), max_relative = 1e-3);
        }
    }

    #[test]
    fn sampled_interpolation_reproduces_power_laws() {
        // A power law D = j^0.8 is reproduced exactly by log interpolation.
        let pts: Vec<(f64, f64)> = [1.0, 10.0, 100.0, 1000.0]
            .iter()
            .map(|&j: &f64| (j, j.powf(0.8)))
            .collect();
        let d = Distinct::sampled(pts).unwrap();
        assert_relative_eq!(d.d(37.0), 37f64.powf(0.8), max_relative = 1e-12);
        assert_relative_eq!(d.d(5000.0), 1000f64.powf(0.8), max_relative = 1e-12);
        assert!(Distinct::sampled(vec![(10.0, 11.0)]).is_err());
        assert!(Distinct::sampled(vec![(10.0, 5.0), (5.0, 4.0)]).is_err());
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
