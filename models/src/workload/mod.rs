//! One description of an insertion stream for every stream-dependent model: `D(L)`, the
//! expected number of distinct items among `L` consecutive insertions.
//!
//! A forgetting filter's fill depends on the stream only through how many *distinct* items
//! a run of insertions writes: a repeat sets bits that its earlier occurrence (in the same
//! run) already set. So one curve `D(·)` carries the workload into every model that
//! depends on it, and a curve measured on a user's trace plugs into all of them.
//!
//! | stream | `D(L)` | variant |
//! |---|---|---|
//! | every insertion distinct | `L` | [`Distinct::Identity`] |
//! | uniform over `|U|` items | `|U|(1 − (1 − 1/|U|)^L)`, Eq. (16) [TBF], exact | [`Distinct::Uniform`] |
//! | Zipf (exponent 1) over `|U|` ranks | Eq. (15) [TBF] exact, Eq. (17) [TBF] approximate, or tabulated | [`Distinct::ZipfExact`], [`Distinct::ZipfApprox`], [`Distinct::zipf_tabulated`] |
//! | repeats of the last `h` insertions at rate `d` (Section 5.6.2 [APBF]) | `h(1−d)/d·ln(1 + dL/((1−d)h))` ([`repeats`]) | [`Distinct::Repeats`] |
//! | a trace | measured at sample points (all windows of the trace), Eq. (18) [TBF] in between | [`Distinct::Sampled`] |
//!
//! # Which families take it
//! | family | quantity | function |
//! |---|---|---|
//! | `apbf` | slice fills `1 − (1 − 1/m)^D(n)` for a slice active over `n` insertions | [`crate::apbf::ApbfParams::fp_on`], [`crate::apbf::ApbfParams::fp_average_on`] |
//! | `baseline` (ring of rotating filters) | each filter holds `D(g)` distinct items of its generation | [`crate::baseline::rotating::design_rotating_on`] |
//! | `timing` (BTBF, inferential) | cells age with `D(j)` distinct later arrivals | [`crate::timing::BtbfModel::new`] |
//! | `gbf` (inferential) | the decay counts `D_{−x}(i)` distinct other arrivals | [`crate::gbf::GbfParams::metrics_distinct`] |
//! | `stable` (SBF) | a cell survives `s` steps unset with probability `(1 − K/m)^D(s)`; an item's cells age with `D_{−x}` | [`crate::stable::SbfParams::zero_fraction_on`], [`crate::stable::SbfParams::fn_at_age_on`] |
//!
//! The classic filter takes the distinct total `D(N)` as its `n`; the RBF models count new
//! messages, not insertions (their stream is described by its pool, `rbf::RbfStream`).
//!
//! # Numerics
//! Every curve is concave and `0 <= D(L) <= L`; [`Distinct::Sampled`] interpolates
//! piecewise-logarithmically (Eq. (18) [TBF]).

pub mod repeats;
pub mod zipf;

use crate::error::ModelError;
use crate::numeric::{one_minus_pow1m, CompensatedSum};
pub use repeats::WindowDuplicates;
use serde::Serialize;

/// Euler's constant γ (Eq. (17) [TBF]).
pub const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

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
    /// `j = 16|U|`. Eq. (17) peaks at `j* = e^(−γ)|U|H_|U|` (`D = e^(−γ)|U|`, 0.56|U|)
    /// and falls to 0 at `e^(1−γ)|U|H_|U|`, which no count of distinct items does: from
    /// `j*` on, `D(j)` is the exact Eq. (15) ([`zipf::zipf_distinct`]), so the curve
    /// rises (with a step up at `j*`) towards `|U|`. Use [`Distinct::zipf_tabulated`]
    /// where `j` reaches beyond `|U|`.
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
    /// The repeats generator of Section 5.6.2 [APBF]: each insertion repeats one of the
    /// last `h` insertions with probability `d` ([`repeats`]):
    ///
    /// ```text
    /// D(L) = h(1−d)/d · ln(1 + dL/((1−d)h))        L <= h
    /// D(L) = D(h) + (1 − d)(L − h)                 L >= h
    /// ```
    Repeats(WindowDuplicates),
}

impl From<WindowDuplicates> for Distinct {
    fn from(dup: WindowDuplicates) -> Self {
        Distinct::Repeats(dup)
    }
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

    /// Eq. (15) [TBF] for the Zipf stream, evaluated at 16 points per decade of `j` from 1
    /// to `10^3·|U|` and interpolated with Eq. (18) [TBF] in between: exact accuracy at the
    /// cost of a table (error below 1e-3 relative, tested). Each point is the exact sum
    /// over the first ranks plus an Euler–Maclaurin tail ([`zipf::zipf_distinct`], below
    /// 1e-12 relative of the term-by-term sum), so a table costs `O(|U|)` once (for
    /// `H_|U|`), not at every point.
    pub fn zipf_tabulated(universe: u64) -> Self {
        let h = harmonic(universe);
        let top = 1e3 * universe as f64;
        let mut points = Vec::new();
        let mut t = 0.0f64;
        loop {
            let j = 10f64.powf(t / 16.0);
            if j > top {
                break;
            }
            points.push((j, zipf::zipf_distinct(universe, h, j)));
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
        self.prepared(px, Vec::new()).d(j)
    }

    /// [`Self::d_excluding`] for one item `px`, prepared for many `j`: the logarithms that
    /// depend on `px` or on a sample of a [`Distinct::Sampled`] curve are taken once. Every
    /// value equals `self.d_excluding(px, j)` bit for bit (the same operations in the same
    /// order, some of them done ahead); a GBF posterior table evaluates `D_{−x}` at
    /// thousands of ages per item class.
    pub fn excluding(&self, px: f64) -> Excluding<'_> {
        let logs = match self {
            Distinct::Sampled { points } => points
                .windows(2)
                .map(|w| {
                    let ((j1, d1), (j3, d3)) = (w[0], w[1]);
                    [d1.ln(), (d3 / d1).ln(), (j3 / j1).ln()]
                })
                .collect(),
            _ => Vec::new(),
        };
        self.prepared(px, logs)
    }

    /// [`Excluding`] with `logs` for a sampled curve (empty: taken at each call).
    fn prepared(&self, px: f64, logs: Vec<[f64; 3]>) -> Excluding<'_> {
        let ln_1m_other = match self {
            Distinct::Uniform { universe } if *universe > 1 => {
                (-1.0 / (*universe - 1) as f64).ln_1p()
            }
            _ => 0.0,
        };
        Excluding {
            distinct: self,
            px,
            ln_1m_px: (-px).ln_1p(),
            ln_1m_other,
            logs,
            last_segment: std::cell::Cell::new(1),
        }
    }

    /// `true` when `D(j) = j` for every `j` (no item ever repeats).
    pub fn is_identity(&self) -> bool {
        match self {
            Distinct::Identity => true,
            Distinct::Repeats(dup) => dup.rate() == 0.0,
            _ => false,
        }
    }

    /// The work of one [`Self::d`] at `j`, in the units of a work allowance
    /// ([`crate::budget`]): 1 for a closed form, the ranks summed for the Zipf sums
    /// (Eq. (15) [TBF] past Eq. (17)'s peak: [`zipf::HEAD`] ranks and the tail's nodes).
    pub fn eval_steps(&self, j: f64) -> f64 {
        match self {
            Distinct::ZipfApprox { universe, harmonic }
                if j >= *universe as f64 * harmonic * (-EULER_GAMMA).exp() =>
            {
                (*universe).min(2 * zipf::HEAD) as f64 + 8.0 * (*universe as f64).ln() / 0.25
            }
            Distinct::ZipfExact { universe } => *universe as f64,
            _ => 1.0,
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
                if j >= u * h * (-EULER_GAMMA).exp() {
                    // Past its maximum Eq. (17) decreases (to 0 at e^(1−γ)|U|H): the
                    // exact Eq. (15) instead (see the variant's doc).
                    return zipf::zipf_distinct(*universe, h, j).min(u);
                }
                let d = j / h * (1.0 - EULER_GAMMA + (u * h / j).ln());
                d.clamp(0.0, j.min(u))
            }
            Distinct::ZipfExact { universe } => {
                zipf::zipf_sum_exact(1..=*universe, harmonic(*universe), j)
            }
            Distinct::Sampled { points } => interpolate_log(points, j),
            Distinct::Repeats(dup) => dup.distinct(j),
        }
    }
}

/// `D_{−x}(·)` of one item, prepared by [`Distinct::excluding`].
#[derive(Debug, Clone)]
pub struct Excluding<'a> {
    distinct: &'a Distinct,
    px: f64,
    /// `ln(1 − p_x)`.
    ln_1m_px: f64,
    /// Uniform: `ln(1 − 1/(|U| − 1))`.
    ln_1m_other: f64,
    /// Sampled: per segment `t` (samples `t`, `t + 1`), `[ln D1, ln(D3/D1), ln(j3/j1)]`;
    /// empty for [`Distinct::d_excluding`] (then [`Distinct::d`] interpolates).
    logs: Vec<[f64; 3]>,
    /// Sampled: the segment of the last call, where the next search starts (callers
    /// walk `j` upward in small steps: a piece cut, issue 18).
    last_segment: std::cell::Cell<usize>,
}

impl Excluding<'_> {
    /// `D_{−x}(j)`, equal to [`Distinct::d_excluding`]`(px, j)`.
    pub fn d(&self, j: f64) -> f64 {
        if j <= 0.0 || self.px >= 1.0 {
            return 0.0;
        }
        // `one_minus_pow1m(x, n)` with `ln(1 − x)` given.
        let unhit = |ln_1m: f64, n: f64| if n == 0.0 { 0.0 } else { -(n * ln_1m).exp_m1() };
        match self.distinct {
            Distinct::Identity => j,
            Distinct::Uniform { universe } => {
                let u = (*universe - 1) as f64;
                if u <= 0.0 {
                    0.0
                } else {
                    u * unhit(self.ln_1m_other, j)
                }
            }
            Distinct::Sampled { points } if !self.logs.is_empty() => {
                let scaled = j / (1.0 - self.px);
                let d = interpolate_log_with(points, &self.logs, scaled, &self.last_segment);
                (d - unhit(self.ln_1m_px, scaled)).clamp(0.0, j)
            }
            other => {
                let scaled = j / (1.0 - self.px);
                (other.d(scaled) - unhit(self.ln_1m_px, scaled)).clamp(0.0, j)
            }
        }
    }
}

/// [`interpolate_log`] with each segment's logarithms given (`logs[t − 1]` for the
/// segment ending at sample `t`, see [`Excluding`]), its search started at segment
/// `near` (updated): the same value, bit for bit.
fn interpolate_log_with(
    points: &[(f64, f64)],
    logs: &[[f64; 3]],
    j: f64,
    near: &std::cell::Cell<usize>,
) -> f64 {
    segment_near(points, j, near).unwrap_or_else(|t| {
        let [ln_d1, ln_d31, ln_j31] = logs[t - 1];
        (ln_d1 + ln_d31 * (j / points[t - 1].0).ln() / ln_j31).exp()
    })
}

/// `Ok(D)` where [`interpolate_log`] needs no segment (below the first sample: linear
/// from `(0, 0)`; above the last: held), else `Err(t)`, the first sample at or above `j`.
fn segment(points: &[(f64, f64)], j: f64) -> Result<f64, usize> {
    // Binary search: tables are long.
    in_segment(points, j, points.partition_point(|p| p.0 < j))
}

/// [`segment`], trying segment `near` and the next one before a binary search, and
/// setting `near` to the segment found (callers that walk `j` upward in small steps,
/// a GBF piece cut, mostly stay in one segment: issue 18).
fn segment_near(
    points: &[(f64, f64)],
    j: f64,
    near: &std::cell::Cell<usize>,
) -> Result<f64, usize> {
    let fits = |t: usize| t >= 1 && t < points.len() && points[t - 1].0 < j && j <= points[t].0;
    let hint = near.get();
    let t = if fits(hint) {
        hint
    } else if fits(hint + 1) {
        hint + 1
    } else {
        points.partition_point(|p| p.0 < j)
    };
    near.set(t);
    in_segment(points, j, t)
}

/// [`segment`]'s answer given `t`, the first sample at or above `j`.
fn in_segment(points: &[(f64, f64)], j: f64, t: usize) -> Result<f64, usize> {
    let (j0, d0) = points[0];
    if j <= j0 {
        return Ok(d0 * j / j0);
    }
    if t >= points.len() {
        return Ok(points[points.len() - 1].1);
    }
    Err(t)
}

/// Piecewise-logarithmic interpolation, Eq. (18) [TBF]:
/// `ln D(j2) = ln D(j1) + ln(D(j3)/D(j1)) · ln(j2/j1) / ln(j3/j1)`.
fn interpolate_log(points: &[(f64, f64)], j: f64) -> f64 {
    segment(points, j).unwrap_or_else(|t| {
        let ((j1, d1), (j3, d3)) = (points[t - 1], points[t]);
        (d1.ln() + (d3 / d1).ln() * (j / j1).ln() / (j3 / j1).ln()).exp()
    })
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

    /// Issue 18: the prepared `D_{−x}` equals `d_excluding` bit for bit on every variant.
    #[test]
    fn prepared_excluding_equals_d_excluding_bit_for_bit() {
        let curves = [
            Distinct::Identity,
            Distinct::Uniform { universe: 2048 },
            Distinct::Uniform { universe: 1 },
            Distinct::zipf_approx(1 << 12),
            Distinct::ZipfExact { universe: 300 },
            Distinct::zipf_tabulated(1 << 12),
            Distinct::sampled(vec![(1.0, 1.0), (10.0, 8.0), (100.0, 40.0)]).unwrap(),
            Distinct::from(WindowDuplicates::new(0.3, 500).unwrap()),
        ];
        for d in &curves {
            for px in [1e-7, 2.7e-5, 1.0 / 2048.0, 0.01, 0.3, 1.0] {
                let e = d.excluding(px);
                let mut j = 0.0;
                while j < 5e6 {
                    let (got, want) = (e.d(j), d.d_excluding(px, j));
                    assert_eq!(got.to_bits(), want.to_bits(), "{d:?} px {px} j {j}");
                    // The formula as `d_excluding` wrote it before it was prepared.
                    let scaled = j / (1.0 - px);
                    let formula = match d {
                        _ if j <= 0.0 || px >= 1.0 => 0.0,
                        Distinct::Identity => j,
                        Distinct::Uniform { universe: 1 } => 0.0,
                        Distinct::Uniform { universe } => {
                            let u = (*universe - 1) as f64;
                            u * one_minus_pow1m(1.0 / u, j)
                        }
                        _ => (d.d(scaled) - one_minus_pow1m(px, scaled)).clamp(0.0, j),
                    };
                    assert_eq!(got.to_bits(), formula.to_bits(), "{d:?} px {px} j {j}");
                    j = if j == 0.0 { 0.37 } else { j * 1.37 + 1.0 };
                }
                assert_eq!(e.d(-1.0), 0.0);
            }
        }
    }

    proptest::proptest! {
        /// Issue 18: the prepared `D_{−x}` of a sampled curve starts each search at the
        /// last call's segment; in any order of `j` (walks up and down, jumps, repeats,
        /// outside the samples) it still equals `d_excluding` bit for bit.
        #[test]
        fn prepared_excluding_is_exact_in_any_order_of_calls(
            px in 1e-7f64..0.5,
            js in proptest::collection::vec(
                proptest::prop_oneof![0.0f64..3.0, 0.0f64..2e4, 0.0f64..5e9],
                1..60,
            ),
        ) {
            let d = Distinct::zipf_tabulated(1 << 12);
            let e = d.excluding(px);
            for j in js {
                for j in [j, j + 0.5, j + 1.0, j * 0.999] {
                    proptest::prop_assert_eq!(e.d(j).to_bits(), d.d_excluding(px, j).to_bits());
                }
            }
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

    /// Past its peak `j* = e^(−γ)|U|H` Eq. (17) would fall to 0 (a 2-item universe after
    /// 1364 arrivals had `D = 0`, found by the `models` fuzz target through `model btbf
    /// --prior zipf:2`): there it is the exact Eq. (15), so `D` never decreases.
    #[test]
    fn zipf_approx_past_its_peak_is_the_exact_sum() {
        for u in [2u64, 100, 1 << 16] {
            let h = harmonic(u);
            let approx = Distinct::zipf_approx(u);
            let peak = u as f64 * h * (-EULER_GAMMA).exp();
            let below = 0.99 * peak;
            let eq17 = below / h * (1.0 - EULER_GAMMA + (u as f64 * h / below).ln());
            assert_relative_eq!(approx.d(below), eq17.min(below), max_relative = 1e-15);
            let mut prev = 0.0;
            for t in 0..=80 {
                let j = 10f64.powf(f64::from(t) / 8.0) * h;
                let d = approx.d(j);
                assert!(
                    d >= prev && d <= u as f64,
                    "u = {u}, j = {j}: D = {d} after {prev}"
                );
                if j >= peak {
                    assert_eq!(d, zipf::zipf_distinct(u, h, j).min(u as f64));
                }
                prev = d;
            }
            assert_relative_eq!(approx.d(1e4 * u as f64 * h), u as f64, max_relative = 1e-3);
        }
    }

    #[test]
    fn repeats_variant_is_the_generator_model() {
        let dup = WindowDuplicates::new(0.5, 1000).unwrap();
        let d = Distinct::from(dup);
        for j in [0.0, 1.0, 37.0, 999.0, 1000.0, 5000.0] {
            assert_eq!(d.d(j), dup.distinct(j));
        }
        assert!(d.d(1000.0) < 1000.0);
        assert!(!d.is_identity());
        assert!(Distinct::from(WindowDuplicates::new(0.0, 10).unwrap()).is_identity());
    }

    /// Issue 19 item 6: the identity workload reproduces the distinct-stream models
    /// exactly, and a repeating stream lowers the APBF FP and the ring's memory.
    #[test]
    fn families_take_the_workload() {
        use crate::apbf::ApbfParams;
        use crate::baseline::rotating::{design_rotating, design_rotating_on};
        use crate::baseline::RotatingRequirement;
        use crate::classic::Layout;
        let p = ApbfParams::new(10, 7).unwrap().with_window(10_000).unwrap();
        let dup = WindowDuplicates::new(0.5, 10_000).unwrap();
        assert_eq!(p.fp_on(&Distinct::Identity).unwrap(), p.fp());
        assert_eq!(
            p.fp_on(&Distinct::Repeats(dup)).unwrap(),
            p.fp_duplicates(&dup).unwrap()
        );
        assert!(p.fp_on(&dup.into()).unwrap() < p.fp());
        let req = RotatingRequirement::new(0.01, 100_000, Layout::Standard).unwrap();
        let plain = design_rotating(&req).unwrap();
        assert_eq!(
            design_rotating_on(&req, &Distinct::Identity).unwrap(),
            plain
        );
        let zipf = Distinct::zipf_tabulated(1 << 16);
        let fitted = design_rotating_on(&req, &zipf).unwrap();
        let g = fitted.generation as f64;
        assert_eq!(fitted.per_filter.params.n(), zipf.d(g).ceil() as u64);
        assert!(fitted.bits < plain.bits && fitted.fp <= 0.01);
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
}
