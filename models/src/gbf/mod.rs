//! Time-decaying filters, part 2: the Generalized Bloom filter (GBF), standard and
//! inferential, numerically stable for any `k` (Section 5 [TBF]).
//!
//! A GBF holds `m` bits; an insertion sets the cells of `k1` hashes to 1, then those of
//! `k0` hashes to 0 (a collision leaves 0). A query answers Pos iff every `k0` cell is 0
//! and every `k1` cell is 1; over a stream, memory of old items decays, so both false
//! negatives (recent items disturbed) and false positives occur. The inferential GBF
//! observes how many of `x`'s cells are as `x` left them and returns the sliding-window
//! posterior for any window chosen at query time.
//!
//! | quantity | Eq. [TBF] | function |
//! |---|---|---|
//! | `q0`, `q1`, `q_ε` | (28)-(30) | [`GbfParams::q0`], [`GbfParams::q1`], [`GbfParams::q_eps`] |
//! | `f0(φ0, i)` | (31) | [`GbfParams::f0`] |
//! | standard Pos at age `i`, never inserted; window FP / FN under a prior | Section 5.2 | [`GbfParams::positive_at_age`], [`GbfParams::positive_never`], [`GbfParams::metrics`] |
//! | `P(R_x | i)`, exact and balanced | (32), Section 5.3.2 | [`GbfObservation::likelihood`], [`posterior::TLikelihood::balanced`] |
//! | `C^s_{d,e}`, Eq. (34) | (33)-(34) | [`posterior::c_coefficients`], [`posterior::window_posterior_eq34`] |
//! | stable posterior, any `k <= 64` | (new) | [`posterior::window_posterior`] |
//! | decay in distinct *other* items `t = q_ε^(D_{−x}(i))`: metrics, posterior, tables | (new; end of Section 5.3.2) | [`GbfParams::metrics_distinct`], [`posterior_distinct`], [`GbfDistinctTable`], [`design::gbf_distinct`] |
//! | the `(k0, k1)` chooser's sums of Eq. (32) for every observation, from the Bernstein moments of the age pieces | (new) | [`AgePieces::moments_by_hashes`], [`moments::LikelihoodExpansion::sums`] |
//!
//! Priors, `D(j)`, penalties and calibration are shared with [`crate::timing`].
//!
//! # Known errata
//! * Eq. (33) is missing an "=" between its lines.
//! * Eq. (34) in double precision loses accuracy as `k` grows (measured worst absolute
//!   error, `m = 2^10..2^14`, `p = 1/m`, `w = m/2`: `k = 16`: 3e-10; 20: 5e-8; 24: 2e-6;
//!   30: 2e-2; 40 and 64: 0.6-1.3, outside `[0, 1]`), as the paper notes for `k >= 30`;
//!   [`posterior::window_posterior`] is stable (below 1e-9 for every `k <= 64`, tested).
//!
//! # Aging by distinct other items
//! Counting the decay in insertions (`q_ε^i`, Eqs. (31)-(32)) understates a repeating
//! stream's window FP about 4×; counted in distinct items it matches simulation. The
//! items that age `x`'s cells are those *other than* `x` among the later arrivals,
//! `D_{−x}(i)`. Measured on the Power-law stream (`|U| = 2^16`, `w = 2^11`): replacing
//! `D` by `D_{−x}` moves the predicted penalties by less than 0.1%; what matters is the
//! `D` curve itself: Eq. (17) falls to 0 beyond `j ≈ 1.5 |U| H_|U|` (old cold items
//! would look fresh), which put the standard penalty 5% high at 8 bits per item
//! (0.861 against 0.820 with Eq. (15) tabulated; simulated 0.812-0.824), so the GBF
//! uses Eq. (15) tabulated for Zipf streams ([`design::gbf_distinct`]).
//!
//! # Example
//! The stable posterior at `k0 = k1 = 30`, where the paper's double-precision Eq. (34)
//! starts to fail, and a standard GBF's window FP / FN on a Uniform stream:
//! ```
//! use bfopt_models::gbf::{posterior, GbfObservation, GbfParams};
//! use bfopt_models::timing::StreamPrior;
//!
//! let params = GbfParams::new(8192, 30, 30)?;
//! let o = GbfObservation { c0: 25, r0: 30, c1: 27, r1: 30 };
//! let post = posterior(&params, &o, 1.0 / 1024.0, 512)?;
//! assert!((0.0..=1.0).contains(&post));
//!
//! let m = GbfParams::new(32_768, 4, 4)?.metrics(4096, &StreamPrior::uniform(4096)?, Some(100));
//! assert!(m.fp > 0.0 && m.fp < 1.0 && m.fn_ > 0.0 && m.fn_ < 1.0);
//! assert!(m.positive_at_age.unwrap() > m.positive_never);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

pub mod design;
pub mod moments;
pub mod posterior;

use crate::error::{check, ModelError};
use crate::numeric::{pow1m, probability, CompensatedSum};
use crate::timing::prior::{prior_range, StreamPrior};
use posterior::TLikelihood;
use serde::Serialize;

/// Parameters of a GBF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GbfParams {
    m: u64,
    k0: u32,
    k1: u32,
}

impl GbfParams {
    /// Allowed bit counts.
    pub const M: std::ops::RangeInclusive<u64> = 2..=(1 << 40);
    /// Allowed hash counts (each of `k0`, `k1`).
    pub const K: std::ops::RangeInclusive<u32> = 1..=64;

    /// Validates and builds the parameters.
    ///
    /// # Errors
    /// `m`, `k0` or `k1` out of range.
    pub fn new(m: u64, k0: u32, k1: u32) -> Result<Self, ModelError> {
        check::in_range("m", m, Self::M)?;
        check::in_range("k0", k0, Self::K)?;
        check::in_range("k1", k1, Self::K)?;
        Ok(Self { m, k0, k1 })
    }

    /// Bits `m`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Resetting hashes `k0`.
    pub fn k0(&self) -> u32 {
        self.k0
    }
    /// Setting hashes `k1`.
    pub fn k1(&self) -> u32 {
        self.k1
    }

    /// `q0 = 1 − (1 − 1/m)^k0`: a given cell is set to 0 by an insertion, Eq. (28) [TBF].
    pub fn q0(&self) -> f64 {
        crate::numeric::one_minus_pow1m(1.0 / self.m as f64, f64::from(self.k0))
    }

    /// `q1 = (1 − (1 − 1/m)^k1)(1 − 1/m)^k0`: set to 1, Eq. (29) [TBF].
    pub fn q1(&self) -> f64 {
        let x = 1.0 / self.m as f64;
        crate::numeric::one_minus_pow1m(x, f64::from(self.k1)) * pow1m(x, f64::from(self.k0))
    }

    /// `q_ε = (1 − 1/m)^(k0 + k1)`: untouched, Eq. (30) [TBF].
    pub fn q_eps(&self) -> f64 {
        pow1m(1.0 / self.m as f64, f64::from(self.k0 + self.k1))
    }

    /// `ln q_ε = (k0 + k1)·ln_1p(−1/m)`, without rounding `q_ε` first (`ln` of the
    /// rounded `q_ε` is off by `ε·m/(k0 + k1)` relative, and `q_ε^i` by `i·ε`).
    pub fn ln_q_eps(&self) -> f64 {
        f64::from(self.k0 + self.k1) * (-1.0 / self.m as f64).ln_1p()
    }

    /// The stationary probability of a 0 cell, `q0/(q0 + q1)`.
    pub fn pi0(&self) -> f64 {
        let (a, b) = (self.q0(), self.q1());
        a / (a + b)
    }

    /// `f0(φ0, i) = φ0 q_ε^i + q0/(q0+q1) (1 − q_ε^i)`, Eq. (31) [TBF].
    pub fn f0(&self, phi0: f64, i: u64) -> f64 {
        let t = (i as f64 * self.ln_q_eps()).exp();
        phi0 * t + self.pi0() * (1.0 - t)
    }

    /// The standard GBF answers Pos for an item inserted `i` insertions ago:
    /// `f0(1, i)^k0 (1 − f0(0, i))^k1` (cells independent, `r_x,0 = k0`, `r_x,1 = k1`).
    pub fn positive_at_age(&self, i: u64) -> f64 {
        let t = (i as f64 * self.ln_q_eps()).exp();
        let p0 = self.pi0();
        (p0 + (1.0 - p0) * t).powi(self.k0 as i32) * ((1.0 - p0) + p0 * t).powi(self.k1 as i32)
    }

    /// The standard GBF answers Pos for a never-inserted item: `π0^k0 (1 − π0)^k1`.
    pub fn positive_never(&self) -> f64 {
        let p0 = self.pi0();
        p0.powi(self.k0 as i32) * (1.0 - p0).powi(self.k1 as i32)
    }

    /// `Σ_{α<=i<β} P(i) Pos(i)` in closed form: `Pos(i)` expanded in `t = q_ε^i` has
    /// non-negative coefficients, so the geometric sums do not cancel.
    fn positive_mass(&self, px: f64, alpha: u64, beta: Option<u64>) -> f64 {
        let p0 = self.pi0();
        let lik = TLikelihood::new(vec![(p0, 1.0 - p0, self.k0), (1.0 - p0, p0, self.k1)]);
        let ln_s = (-px).ln_1p();
        let ln_q = self.ln_q_eps();
        lik.coefficients()
            .iter()
            .enumerate()
            .map(|(j, &c)| {
                let ln_x = ln_s + j as f64 * ln_q;
                let head = (alpha as f64 * ln_x).exp();
                let span = match beta {
                    None => 1.0,
                    Some(b) => -((b.saturating_sub(alpha)) as f64 * ln_x).exp_m1(),
                };
                c * px * head * span / -ln_x.exp_m1()
            })
            .sum()
    }

    /// Window-averaged metrics without a stream prior (`p_x → 0`): ages below `w` equally
    /// likely, so `fn = 1 − (1/w) Σ_{i<w} Pos(i)`; items out of the window are
    /// arbitrarily old, so `fp` is [`Self::positive_never`].
    pub fn metrics_flat(&self, w: u64, age: Option<u64>) -> GbfMetrics {
        self.metrics_flat_items(w as f64, age)
    }

    /// [`Self::metrics_flat`] on a stream with `D(·)` ([`crate::workload`]), FN averaged
    /// over the distinct items of the window.
    ///
    /// # Formula
    /// Order the `N = D(w)` distinct items of the window by their last occurrence, most
    /// recent first: the `r`-th has exactly `r` distinct other items inserted after it.
    /// With the decay counted in distinct items (`t = q_ε^r`, the refinement at the end of
    /// Section 5.3.2 [TBF]: a repeat writes the cells its item wrote before),
    /// ```text
    /// fn = 1 − (1/N) Σ_{r<N} Pos(r),   Pos(r) = f0(1, r)^k0 (1 − f0(0, r))^k1   Eq. (31) [TBF]
    /// ```
    /// the distinct-stream form with `w` replaced by `D(w)`; `fp` is unchanged (a bit's
    /// value is set by the last item that wrote it, so `π0` does not depend on repeats).
    ///
    /// # Accuracy
    /// A repeat can rewrite a cell another item overwrote since its last occurrence, so the
    /// decay in distinct items is an approximation; measured on the repeats stream in
    /// `bfopt_validation::experiments::gbf` (`repeats_checks`).
    pub fn metrics_flat_on(
        &self,
        w: u64,
        workload: &crate::workload::Distinct,
        age: Option<u64>,
    ) -> GbfMetrics {
        self.metrics_flat_items(workload.d(w as f64).max(1.0), age)
    }

    /// [`Self::metrics_flat`] over `w` (real, `>= 1`) window items of distinct ages.
    fn metrics_flat_items(&self, w: f64, age: Option<u64>) -> GbfMetrics {
        let p0 = self.pi0();
        let lik = TLikelihood::new(vec![(p0, 1.0 - p0, self.k0), (1.0 - p0, p0, self.k1)]);
        let ln_q = self.ln_q_eps();
        let mean_pos: f64 = lik
            .coefficients()
            .iter()
            .enumerate()
            .map(|(j, &c)| {
                if j == 0 {
                    c
                } else {
                    let x = j as f64 * ln_q;
                    c * (-(w * x).exp_m1()) / (-x.exp_m1()) / w
                }
            })
            .sum();
        GbfMetrics {
            positive_never: self.positive_never(),
            positive_at_age: age.map(|i| self.positive_at_age(i)),
            fp: self.positive_never(),
            fn_: probability(1.0 - mean_pos),
            in_window: f64::NAN,
            q0: self.q0(),
            q1: self.q1(),
            q_eps: self.q_eps(),
        }
    }

    /// Window-averaged metrics for the next arrival of a stream (query-then-insert):
    /// `fp = P(Pos | I_x >= w)`, `fn = P(Neg | I_x < w)`, optionally Pos at one age.
    pub fn metrics(&self, w: u64, prior: &StreamPrior, age: Option<u64>) -> GbfMetrics {
        let (mut pos_in, mut pos_out, mut inside, mut out) = (0.0, 0.0, 0.0, 0.0);
        for (weight, px) in prior.classes(64) {
            pos_in += weight * self.positive_mass(px, 0, Some(w));
            pos_out += weight * self.positive_mass(px, w, None);
            inside += weight * prior_range(px, 0, Some(w));
            out += weight * prior_range(px, w, None);
        }
        self.window_metrics(
            [pos_in, pos_out],
            [inside, out],
            age.map(|i| self.positive_at_age(i)),
        )
    }

    /// The metrics from the sums over the stream's items: `pos_in` and `pos_out`, the
    /// probability of a query that is Pos with `I_x < w` and with `I_x >= w`, and
    /// `inside = P(I_x < w)`, `out = P(I_x >= w)`: `fp = pos_out/out`,
    /// `fn = 1 − pos_in/inside` (0 where the condition has probability 0). `out` is summed
    /// directly, not taken as `1 − inside`, and `pos_out` likewise: where the window holds
    /// nearly all of the mass (`P(I_x >= w) = 1.9e-15` for `p_x = 1/97`, `w = 3272`) the
    /// differences cancelled, and the FP came out 1.009 (the `models` fuzz target, issue 17).
    fn window_metrics(
        &self,
        [pos_in, pos_out]: [f64; 2],
        [inside, out]: [f64; 2],
        positive_at_age: Option<f64>,
    ) -> GbfMetrics {
        GbfMetrics {
            positive_never: self.positive_never(),
            positive_at_age,
            fp: if out > 0.0 {
                probability(pos_out / out)
            } else {
                0.0
            },
            fn_: if inside > 0.0 {
                probability(1.0 - pos_in / inside)
            } else {
                0.0
            },
            in_window: inside,
            q0: self.q0(),
            q1: self.q1(),
            q_eps: self.q_eps(),
        }
    }
}

impl GbfParams {
    /// [`Self::metrics`] with the decay counted in distinct items: `t = q_ε^(D_{−x}(i))`
    /// in place of `q_ε^i` (the refinement the paper mentions but does not use, end of
    /// Section 5.3.2 [TBF]: repeated items set the same cells again and do not disturb
    /// `x`'s cells further; the items that age `x`'s cells are the distinct items *other
    /// than* `x` among the `i` later arrivals, [`Distinct::d_excluding`]). Summed over the
    /// age pieces of a [`GbfDistinctTable`] per item class.
    ///
    /// [`Distinct::d_excluding`]: crate::timing::prior::Distinct::d_excluding
    ///
    /// # Errors
    /// [`ModelError::WorkLimit`] when the age pieces exceed the [`crate::budget`]
    /// allowance a caller set (never without one).
    pub fn metrics_distinct(
        &self,
        w: u64,
        prior: &StreamPrior,
        distinct: &crate::timing::prior::Distinct,
        age: Option<u64>,
    ) -> Result<GbfMetrics, ModelError> {
        let all = GbfObservation {
            c0: self.k0,
            r0: self.k0,
            c1: self.k1,
            r1: self.k1,
        };
        let (mut pos_in, mut pos_out, mut inside, mut out) = (0.0, 0.0, 0.0, 0.0);
        for (weight, px) in prior.classes(64) {
            let table = match GbfDistinctTable::positive(self, px, w, distinct) {
                Ok(table) => table,
                Err(e @ ModelError::WorkLimit { .. }) => return Err(e),
                Err(_) => continue,
            };
            let (num, beyond) = table.split_sums(&all);
            pos_in += weight * px * num;
            pos_out += weight * px * beyond;
            inside += weight * prior_range(px, 0, Some(w));
            out += weight * prior_range(px, w, None);
        }
        // Pos at one age, for an item of the stream's mean class (uniform: exact).
        let pos_at = |i: u64| {
            let px = prior.classes(1)[0].1;
            let t = (self.ln_q_eps() * distinct.d_excluding(px, i as f64)).exp();
            let p0 = self.pi0();
            (p0 + (1.0 - p0) * t).powi(self.k0 as i32) * ((1.0 - p0) + p0 * t).powi(self.k1 as i32)
        };
        Ok(self.window_metrics([pos_in, pos_out], [inside, out], age.map(pos_at)))
    }
}

/// The posterior with the decay counted in distinct other items (`t = q_ε^(D_{−x}(i))`,
/// see [`GbfParams::metrics_distinct`]), by direct summation of Eq. (9) over every age
/// (stable: every term is non-negative; `O(40/p_x)` terms: the reference for
/// [`GbfDistinctTable`]).
///
/// # Errors
/// As [`posterior`].
pub fn posterior_distinct(
    params: &GbfParams,
    o: &GbfObservation,
    px: f64,
    w: u64,
    distinct: &crate::timing::prior::Distinct,
) -> Result<f64, ModelError> {
    check_observation(params, o)?;
    crate::timing::prior::check_px(px)?;
    check::in_range("window", w, 1..=u64::MAX)?;
    let lik = o.likelihood(params);
    let ln_q = params.ln_q_eps();
    Ok(
        crate::timing::posterior::direct_window_posterior(px, w, |i| {
            lik.at((ln_q * distinct.d_excluding(px, i as f64)).exp())
        })
        .unwrap_or(0.0),
    )
}

/// [`posterior_distinct`] for many observations of items with one `p_x`: the factors
/// of Eq. (32) at `t = q_ε^(D_{−x}(i))` tabulated once over pieces of ages, so one
/// posterior costs one pass of multiplications over the table.
///
/// # Formula
/// Ages are cut into pieces `[a, b)` (one piece boundary at `w`) on which every
/// likelihood of Eq. (32) changes by at most `δ =` [`Self::DELTA`] in log (to first
/// order): `K S(t_a) |ln q_ε| (D_{−x}(b) − D_{−x}(a)) <= δ` with `K = k0 + k1` and
/// `S(t) = t/(1−t) + t/min(π0, 1−π0)` the largest `|d ln factor / d ln t|`, guaranteed by
/// `b − a <= δ / (K S(t_a) |ln q_ε| (D_{−x}(a+1) − D_{−x}(a)))` since `D` is concave and
/// `S` decreases with the age. Young ages (`t` near 1) get one piece each; once `t` is
/// small, pieces grow long.
/// A piece carries its exact prior mass `Σ_{a<=i<b} (1−p)^i` and the factors at its
/// prior-weighted mean age; the last piece runs to infinity once `(1−p)^a < 1e-18`.
///
/// # Accuracy
/// The one-point rule at the prior-weighted mean age errs by about `δ²` relative in
/// each piece. Measured against the direct sum ([`posterior_distinct`], tests): at most
/// 2.2e-9 absolute on the posterior (uniform and Zipf streams, hot and cold items,
/// `k0 = k1` up to 30) with 1,000-13,000 pieces, where the direct sum takes up to 10^6
/// ages (at `δ = 1e-3`: 1e-7 with half the pieces).
///
/// # Cost
/// While `t` is near 1 the `t/(1−t)` term makes pieces grow only by a factor
/// `1 + δ/K` each, about `(K/δ)·ln(m/K)` pieces: 1.7·10^7 at `m = 5·10^10`, `K = 85`
/// (a fuzz input of `model gbf --distinct-decay` took minutes). That term comes from the
/// factors `1 − f0`, which only observations with a mismatch have; [`Self::positive`]
/// builds the table for the all-positive observation alone (`Pos`, what
/// [`GbfParams::metrics_distinct`] needs) without it: pieces then follow `t` itself.
#[derive(Debug, Clone)]
pub struct GbfDistinctTable {
    /// Pieces below `w`.
    inside: usize,
    /// Which observations the pieces were cut for.
    cut_for: CutFor,
    /// Per piece: prior mass `Σ (1−p)^i`, `f0(1,i)`, `1 − f0(1,i)`, `1 − f0(0,i)`, `f0(0,i)`.
    rows: Vec<[f64; 5]>,
}

/// The observations a [`GbfDistinctTable`]'s pieces were cut for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CutFor {
    /// Any observation ([`GbfDistinctTable::new`]).
    Any,
    /// Observations without a mismatch only ([`GbfDistinctTable::positive`]).
    NoMismatch,
}

impl GbfDistinctTable {
    /// Largest change of `ln L` across a piece (to first order).
    pub const DELTA: f64 = 1e-4;

    /// [`Self::DELTA`] of the `(k0, k1)` chooser's tables ([`design::expected_penalty`]):
    /// ten times fewer pieces; its penalties stay within `δ² = 1e-6` relative of those at
    /// [`Self::DELTA`] (tests: 5.7e-7 at most measured, for the standard GBF of
    /// `k0 = k1 = 1`; most filters within 1e-8), far below the model's agreement with
    /// simulation.
    pub const CHOOSER_DELTA: f64 = 1e-3;

    /// The work of one piece, in [`crate::budget`] steps (about a nanosecond each): its
    /// `D(·)` evaluations and exponentials.
    pub const ROW_STEPS: f64 = 200.0;

    /// The table for items of sample probability `px` and window `w`.
    ///
    /// # Errors
    /// `px` outside `(0, 1]`, `w = 0`.
    pub fn new(
        params: &GbfParams,
        px: f64,
        w: u64,
        distinct: &crate::timing::prior::Distinct,
    ) -> Result<Self, ModelError> {
        Self::build(params, px, w, distinct, CutFor::Any, Self::DELTA)
    }

    /// The table for observations without a mismatch only (`c0 = r0`, `c1 = r1`, e.g.
    /// every cell agreeing: `Pos`): the factors `1 − f0` are absent, so the sensitivity
    /// `S(t)` drops its `t/(1−t)` term and pieces are far fewer where `m/K` is large.
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn positive(
        params: &GbfParams,
        px: f64,
        w: u64,
        distinct: &crate::timing::prior::Distinct,
    ) -> Result<Self, ModelError> {
        Self::build(params, px, w, distinct, CutFor::NoMismatch, Self::DELTA)
    }

    fn build(
        params: &GbfParams,
        px: f64,
        w: u64,
        distinct: &crate::timing::prior::Distinct,
        cut_for: CutFor,
        delta: f64,
    ) -> Result<Self, ModelError> {
        let shape = PieceShape::serving(&[*params], delta);
        Ok(AgePieces::cut(shape, px, w, distinct, cut_for)?.table(params))
    }

    /// `(Σ_{i<w} (1−p)^i L_o(i), Σ_i (1−p)^i L_o(i))` for one observation.
    ///
    /// # Panics
    /// On a table from [`Self::positive`] with an observation that has a mismatch
    /// (`c0 < r0` or `c1 < r1`): its pieces were not cut for it.
    pub fn sums(&self, o: &GbfObservation) -> (f64, f64) {
        let (mut num, mut den) = (CompensatedSum::new(), CompensatedSum::new());
        self.for_each_term(o, |inside, term| {
            den.add(term);
            if inside {
                num.add(term);
            }
        });
        (num.value(), den.value())
    }

    /// `(Σ_{i<w} (1−p)^i L_o(i), Σ_{i>=w} (1−p)^i L_o(i))`: [`Self::sums`] with the part
    /// beyond the window summed on its own, not as the difference of the two, which
    /// cancels where the window holds nearly all of the prior's mass.
    ///
    /// # Panics
    /// As [`Self::sums`].
    pub fn split_sums(&self, o: &GbfObservation) -> (f64, f64) {
        let (mut num, mut beyond) = (CompensatedSum::new(), CompensatedSum::new());
        self.for_each_term(o, |inside, term| {
            if inside {
                num.add(term)
            } else {
                beyond.add(term)
            }
        });
        (num.value(), beyond.value())
    }

    /// Calls `f(inside the window, (1−p)^i L_o(i) summed over the piece)` for each piece.
    fn for_each_term(&self, o: &GbfObservation, mut f: impl FnMut(bool, f64)) {
        assert!(
            self.cut_for == CutFor::Any || (o.c0 == o.r0 && o.c1 == o.r1),
            "GbfDistinctTable::positive used for {o:?}, an observation with a mismatch"
        );
        let e = [
            o.c0 as i32,
            (o.r0 - o.c0) as i32,
            o.c1 as i32,
            (o.r1 - o.c1) as i32,
        ];
        for (i, r) in self.rows.iter().enumerate() {
            let term = r[0] * r[1].powi(e[0]) * r[2].powi(e[1]) * r[3].powi(e[2]) * r[4].powi(e[3]);
            f(i < self.inside, term);
        }
    }

    /// Pieces in the table.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table is empty (never: a table has at least its tail piece).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The posterior of one observation (`None` if every term underflows).
    pub fn posterior(&self, o: &GbfObservation) -> Option<f64> {
        let (n, d) = self.sums(o);
        (d > 0.0).then(|| probability(n / d))
    }
}

/// What the cut of [`AgePieces`] depends on: the filters it serves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PieceShape {
    /// `ln(1 − 1/m)`, one hash's decay per distinct other item: a filter of `K = k0 + k1`
    /// hashes has `ln q_ε = K·ln(1 − 1/m)` ([`GbfParams::ln_q_eps`]).
    pub ln_q1: f64,
    /// The least `K = k0 + k1` of the filters served.
    pub min_hashes: u32,
    /// The largest `K = k0 + k1` of the filters served.
    pub max_hashes: u32,
    /// The least `min(π0, 1 − π0)` of the filters served: the sensitivity
    /// `S(t) = t/(1−t) + t/min(π0, 1−π0)` is largest there, so the pieces are fine enough
    /// for all of them.
    pub pi_min: f64,
    /// The largest first-order change of `ln L` across a piece.
    pub delta: f64,
}

impl PieceShape {
    /// The shape for the filters `params` (one `m`, any `K = k0 + k1` and split), cut at
    /// `delta`: on each piece, every filter's `ln L` changes by at most `delta` (to first
    /// order).
    ///
    /// # Panics
    /// `params` empty, or of different `m`.
    pub fn serving(params: &[GbfParams], delta: f64) -> Self {
        let first = params.first().expect("at least one filter");
        assert!(params.iter().all(|p| p.m == first.m), "one m");
        let hashes = params.iter().map(|p| p.k0 + p.k1);
        let pi_min = params
            .iter()
            .map(|p| {
                let p0 = p.pi0();
                p0.min(1.0 - p0)
            })
            .fold(f64::INFINITY, f64::min);
        Self {
            ln_q1: (-1.0 / first.m as f64).ln_1p(),
            min_hashes: hashes.clone().min().unwrap_or(1),
            max_hashes: hashes.max().unwrap_or(1),
            pi_min,
            delta,
        }
    }

    /// The decay at `D_{−x} = d` of the filters served ([`Decay`]).
    fn decay(self, d: f64) -> Decay {
        let (hashes, ln_q) = if self.max_hashes > self.min_hashes {
            (1, self.ln_q1)
        } else {
            (self.min_hashes, f64::from(self.min_hashes) * self.ln_q1)
        };
        let e = ln_q * d;
        Decay {
            hashes,
            t: e.exp(),
            s: -e.exp_m1(),
        }
    }

    /// `(K, t_K, 1 − t_K)` of `decay` for each `K` served, least first,
    /// `t_K = exp(K·ln(1 − 1/m)·d)`: by `t_{K+1} = t_K·t_1`,
    /// `1 − t_{K+1} = (1 − t_K) + t_K·(1 − t_1)` from what [`Decay`] holds (non-negative
    /// terms only, so each carries at most about `2(K − 1) + 2` roundings); one `K`
    /// served, as [`Decay`] holds it.
    fn by_hashes(self, decay: Decay) -> impl Iterator<Item = (u32, f64, f64)> {
        let Decay { hashes, t, s } = decay;
        let (t1, s1) = (t, s);
        std::iter::successors(Some((hashes, t, s)), move |&(k, t, s)| {
            (k < self.max_hashes).then(|| (k + 1, t * t1, s + t * s1))
        })
        .skip_while(move |&(k, ..)| k < self.min_hashes)
    }
}

/// The decay of a cell at one `D_{−x} = d` for the filters a [`PieceShape`] serves:
/// `t = exp(K ln(1 − 1/m) d)` and `1 − t` (by `exp_m1`) for `K = 1` where the shape
/// serves several `K`, else for its one `K` (bit for bit what one filter's table takes).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Decay {
    hashes: u32,
    t: f64,
    s: f64,
}

/// The age pieces of a [`GbfDistinctTable`] before the factors of any one `(k0, k1)`: per
/// piece its prior mass and `D_{−x}` at its prior-weighted mean age. They depend on the
/// filters only through `m` and the sensitivity of the cut, so one cut for the least
/// `min(π0, 1 − π0)` and the largest `K S(t)` serves every filter of one `m`
/// ([`PieceShape::serving`]): the `(k0, k1)` chooser cuts once per item class and band
/// of `K` ([`design::design_observed`]) instead of once per filter, and takes the moments
/// of every `K` of the band from it ([`Self::moments_by_hashes`]).
#[derive(Debug, Clone)]
pub struct AgePieces {
    shape: PieceShape,
    inside: usize,
    cut_for: CutFor,
    /// Per piece: prior mass `Σ (1−p)^i / p`, and the decay at `D_{−x}` of the piece's
    /// mean age.
    rows: Vec<(f64, Decay)>,
}

impl AgePieces {
    /// The pieces for items of sample probability `px`, window `w` (see
    /// [`GbfDistinctTable`] for the cut).
    ///
    /// # Errors
    /// `px` outside `(0, 1]`, `w = 0`, a work allowance spent.
    pub fn new(
        shape: PieceShape,
        px: f64,
        w: u64,
        distinct: &crate::timing::prior::Distinct,
    ) -> Result<Self, ModelError> {
        Self::cut(shape, px, w, distinct, CutFor::Any)
    }

    fn cut(
        shape: PieceShape,
        px: f64,
        w: u64,
        distinct: &crate::timing::prior::Distinct,
        cut_for: CutFor,
    ) -> Result<Self, ModelError> {
        crate::timing::prior::check_px(px)?;
        check::in_range("window", w, 1..=u64::MAX)?;
        let PieceShape {
            ln_q1,
            pi_min,
            delta,
            ..
        } = shape;
        let ln_s = (-px).ln_1p();
        let curve = distinct.excluding(px);
        let d = |i: f64| curve.d(i);
        // `max_K |ln q_ε| S_K(t_K)` at `D_{−x}` = `d`: the fastest change of any served
        // filter's `ln L` per distinct other item. Each of the `K` factors moves by at
        // most `t/(1 − t) + t/min(π0, 1 − π0)` per unit of `ln t`, largest at the piece's
        // start.
        let rate = |decay: Decay, slope: f64| {
            shape
                .by_hashes(decay)
                .map(|(hashes, t, s)| {
                    let mismatch = match cut_for {
                        CutFor::NoMismatch => 0.0,
                        CutFor::Any => t / s,
                    };
                    let sens = f64::from(hashes) * (mismatch + t / pi_min);
                    -(f64::from(hashes) * ln_q1) * slope * sens
                })
                .fold(0.0, f64::max)
        };
        let mut rows = Vec::new();
        let mut inside = 0;
        let mut a = 0u64;
        // `D_{−x}(a)`, carried from the previous piece where it ended one age on.
        let mut d_a = d(0.0);
        // The geometric weight's `λ = −ln(1 − p)` and `1/(e^λ − 1)`, for the mean age.
        let (lambda, inv_em1) = (-ln_s, 1.0 / (-ln_s).exp_m1());
        loop {
            let decay_a = shape.decay(d_a);
            // `(1 − p)^a`, as `prior_range` takes it.
            let head = (a as f64 * ln_s).exp();
            if (a >= w && head < 1e-18) || head < 1e-300 {
                rows.push((head / px, decay_a));
                break;
            }
            let d_next = d(a as f64 + 1.0);
            let slope = (d_next - d_a).max(0.0);
            let room = delta / rate(decay_a, slope);
            let step = if room.is_finite() && room < 1e18 {
                (room.floor() as u64).max(1)
            } else {
                u64::MAX / 4
            };
            let mut b = a.saturating_add(step);
            if a < w && b > w {
                b = w;
            }
            crate::budget::spend(GbfDistinctTable::ROW_STEPS, "the GBF age pieces")?;
            // The factors at the piece's prior-weighted mean age, so that the first-order
            // error of evaluating them at one age vanishes: for one age, `a` itself.
            let decay = if b == a + 1 {
                decay_a
            } else {
                let mean =
                    crate::timing::posterior::truncated_geometric_mean_with(lambda, inv_em1, b - a);
                shape.decay(d(a as f64 + mean))
            };
            // `prior_range(px, a, Some(b))`, its `(1 − p)^a` already at hand.
            let mass = head * -((b - a) as f64 * ln_s).exp_m1();
            rows.push((mass / px, decay));
            if b <= w {
                inside = rows.len();
            }
            d_a = if b == a + 1 { d_next } else { d(b as f64) };
            a = b;
        }
        Ok(Self {
            shape,
            inside,
            cut_for,
            rows,
        })
    }

    /// The table of `params` (one of the filters the pieces' [`PieceShape`] serves) on
    /// these pieces: per piece the factors of Eq. (32) [TBF], `f0(1,i)`, `1 − f0(1,i)`,
    /// `1 − f0(0,i)`, `f0(0,i)`, at its `t = q_ε^(D_{−x})`.
    ///
    /// # Panics
    /// `params` of another `m`, or a `K` outside the shape's.
    pub fn table(&self, params: &GbfParams) -> GbfDistinctTable {
        let hashes = params.k0 + params.k1;
        assert!(
            self.shape.ln_q1 == (-1.0 / params.m as f64).ln_1p()
                && (self.shape.min_hashes..=self.shape.max_hashes).contains(&hashes),
            "{params:?} is not served by these pieces"
        );
        let p0 = params.pi0();
        GbfDistinctTable {
            inside: self.inside,
            cut_for: self.cut_for,
            rows: self
                .rows
                .iter()
                .map(|&(mass, decay)| {
                    let (_, t, one_minus_t) = self
                        .shape
                        .by_hashes(decay)
                        .find(|&(k, _, _)| k == hashes)
                        .expect("a K served");
                    [
                        mass,
                        p0 + (1.0 - p0) * t,
                        (1.0 - p0) * one_minus_t,
                        (1.0 - p0) + p0 * t,
                        p0 * one_minus_t,
                    ]
                })
                .collect(),
        }
    }

    /// The Bernstein moments of degree `K` over these pieces for every `K = k0 + k1` of
    /// the filters the pieces serve, least first: what
    /// [`moments::LikelihoodExpansion::sums`] turns into the sums of every observation of
    /// any split of each `K`.
    pub fn moments_by_hashes(&self) -> Vec<moments::PieceMoments> {
        moments::PieceMoments::of(self)
    }

    /// Pieces.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no pieces (never: there is at least the tail piece).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Predicted metrics of a standard GBF.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GbfMetrics {
    /// P(Pos) for a never-inserted item.
    pub positive_never: f64,
    /// P(Pos) for an item inserted `age` insertions ago.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positive_at_age: Option<f64>,
    /// `P(Pos | I_x >= w)` for the next arrival.
    pub fp: f64,
    /// `P(Neg | I_x < w)` for the next arrival.
    #[serde(rename = "fn")]
    pub fn_: f64,
    /// `P(I_x < w)`.
    pub in_window: f64,
    /// Eq. (28).
    pub q0: f64,
    /// Eq. (29).
    pub q1: f64,
    /// Eq. (30).
    pub q_eps: f64,
}

/// What an inferential GBF query observes (Definition 13 [TBF]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct GbfObservation {
    /// `c_x,0`: cells of `R_x,0` that are 0.
    pub c0: u32,
    /// `r_x,0 = |R_x,0|`.
    pub r0: u32,
    /// `c_x,1`: cells of `R_x,1` that are 1.
    pub c1: u32,
    /// `r_x,1 = |R_x,1|`.
    pub r1: u32,
}

impl GbfObservation {
    /// `d = c0 + c1`, cells as `x` left them.
    pub fn matching(&self) -> u32 {
        self.c0 + self.c1
    }
    /// `e = r0 + r1 − d`.
    pub fn mismatching(&self) -> u32 {
        self.r0 + self.r1 - self.matching()
    }

    /// `P(R_x | i)` as a function of `t = q_ε^i`, Eq. (32) [TBF] with the exact
    /// `π0 = q0/(q0+q1)`:
    /// `f0(1,i)^c0 (1−f0(1,i))^(r0−c0) (1−f0(0,i))^c1 f0(0,i)^(r1−c1)`.
    pub fn likelihood(&self, params: &GbfParams) -> TLikelihood {
        let p0 = params.pi0();
        TLikelihood::new(vec![
            (p0, 1.0 - p0, self.c0),
            (1.0 - p0, -(1.0 - p0), self.r0 - self.c0),
            (1.0 - p0, p0, self.c1),
            (p0, -p0, self.r1 - self.c1),
        ])
    }
}

/// The inferential GBF's posterior `P(I_x < w | R_x)` with the exact likelihood of
/// Eq. (32), stably ([`posterior::window_posterior`]).
///
/// # Errors
/// `px` outside `(0, 1]`; `c0 > r0`, `c1 > r1`, `r0 > k0`, `r1 > k1`; `w = 0`; under a
/// work allowance ([`crate::budget`]), a route that needs more than is left.
pub fn posterior(
    params: &GbfParams,
    o: &GbfObservation,
    px: f64,
    w: u64,
) -> Result<f64, ModelError> {
    check_observation(params, o)?;
    crate::timing::prior::check_px(px)?;
    check::in_range("window", w, 1..=u64::MAX)?;
    posterior::window_posterior_ln_charged(&o.likelihood(params), params.ln_q_eps(), px, w)
}

/// The balanced posterior of Eq. (34) [TBF] (`k0 = k1`, `q0/(q0+q1) ≈ ½`) for `d`
/// matching and `e` mismatching cells, computed stably.
///
/// # Errors
/// `px` outside `(0, 1]`; `d + e > k0 + k1`; `w = 0`; under a work allowance
/// ([`crate::budget`]), a route that needs more than is left.
pub fn posterior_balanced(
    params: &GbfParams,
    d: u32,
    e: u32,
    px: f64,
    w: u64,
) -> Result<f64, ModelError> {
    crate::timing::prior::check_px(px)?;
    check::in_range("window", w, 1..=u64::MAX)?;
    let k = params.k0 + params.k1;
    check::in_range("matching", d, 0..=k)?;
    check::in_range("mismatching", e, 0..=k - d)?;
    posterior::window_posterior_ln_charged(&TLikelihood::balanced(d, e), params.ln_q_eps(), px, w)
}

fn check_observation(params: &GbfParams, o: &GbfObservation) -> Result<(), ModelError> {
    check::in_range("r0", o.r0, 0..=params.k0)?;
    check::in_range("r1", o.r1, 0..=params.k1)?;
    check::in_range("c0", o.c0, 0..=o.r0)?;
    check::in_range("c1", o.c1, 0..=o.r1)?;
    if o.r0 + o.r1 == 0 {
        return Err(ModelError::invalid("r0", 0, "r0 + r1 >= 1"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn q_values_partition_and_f0_limits() {
        let p = GbfParams::new(1000, 3, 4).unwrap();
        assert_relative_eq!(p.q0() + p.q1() + p.q_eps(), 1.0, max_relative = 1e-14);
        assert_relative_eq!(p.f0(1.0, 0), 1.0);
        assert_relative_eq!(p.f0(0.0, 0), 0.0);
        assert_relative_eq!(p.f0(0.3, 1_000_000), p.pi0(), max_relative = 1e-12);
        // Eq. (31) against its defining sum φ0 q_ε^i + Σ_{ℓ<i} q0 q_ε^ℓ.
        let i = 37;
        let direct =
            0.3 * p.q_eps().powi(i) + (0..i).map(|l| p.q0() * p.q_eps().powi(l)).sum::<f64>();
        assert_relative_eq!(p.f0(0.3, i as u64), direct, max_relative = 1e-12);
        assert!(GbfParams::new(1000, 0, 3).is_err());
        assert!(GbfParams::new(1, 1, 3).is_err());
    }

    #[test]
    fn flat_metrics_match_direct_sums() {
        let p = GbfParams::new(2000, 3, 4).unwrap();
        let m = p.metrics_flat(300, None);
        let direct = 1.0 - (0..300).map(|i| p.positive_at_age(i)).sum::<f64>() / 300.0;
        assert_relative_eq!(m.fn_, direct, max_relative = 1e-10);
        assert_eq!(m.fp, p.positive_never());
    }

    /// Issue 17 (the `models` fuzz target, `model gbf --bits 549755813884 --reset-hashes
    /// 15 --set-hashes 15 --window 3272 --prior uniform:97 --distinct-decay`): the window
    /// holds all but 1.9e-15 of the prior's mass, and the FP beyond it came out 1.009 when
    /// that mass was `1 − P(I < w)` and the Pos mass beyond it `den − num`.
    #[test]
    fn fp_beyond_a_window_holding_nearly_all_mass_is_summed_directly() {
        let p = GbfParams::new(549_755_813_884, 15, 15).unwrap();
        let prior = StreamPrior::uniform(97).unwrap();
        let w = 3272;
        let px = 1.0 / 97.0;
        let (mut pout, mut wout) = (0.0, 0.0);
        for i in w..w + 97 * 60 {
            let pr = crate::timing::prior::prior(px, i);
            pout += pr * p.positive_at_age(i);
            wout += pr;
        }
        let plain = p.metrics(w, &prior, None);
        assert_relative_eq!(plain.fp, pout / wout, max_relative = 1e-9);
        let distinct = design::gbf_distinct(&prior);
        let decayed = p.metrics_distinct(w, &prior, &distinct, None).unwrap();
        // Every cell of an item is as it left it (D <= 96 of 5.5e11 cells): Pos surely.
        assert!(
            decayed.fp <= 1.0 && decayed.fp > 1.0 - 1e-6,
            "{}",
            decayed.fp
        );
    }

    #[test]
    fn window_metrics_match_direct_sums() {
        let p = GbfParams::new(2000, 3, 3).unwrap();
        let prior = StreamPrior::uniform(500).unwrap();
        let w = 300;
        let m = p.metrics(w, &prior, Some(10));
        let px = 1.0 / 500.0;
        let (mut pin, mut pout, mut win, mut wout) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..40_000u64 {
            let pr = crate::timing::prior::prior(px, i);
            if i < w {
                pin += pr * p.positive_at_age(i);
                win += pr;
            } else {
                pout += pr * p.positive_at_age(i);
                wout += pr;
            }
        }
        assert_relative_eq!(m.fp, pout / wout, max_relative = 1e-9);
        assert_relative_eq!(m.fn_, 1.0 - pin / win, max_relative = 1e-9);
        assert_eq!(m.positive_at_age, Some(p.positive_at_age(10)));
        assert!(m.positive_never < m.fp);
    }

    /// A fuzz input (`model gbf --bits 208956729 --reset-hashes 40 --set-hashes 1
    /// --window 1 --prior uniform:811357 --distinct-decay`): at `w·p_x = 1.2e-6` the window's
    /// prior mass taken as `1 − P(I_x >= w)` lost 1e-10 of itself to cancellation and the
    /// FN came out -2e-11. The mass is now `P(0 <= I_x < w)` directly.
    #[test]
    fn window_of_one_has_a_non_negative_fn() {
        let p = GbfParams::new(208_956_729, 40, 1).unwrap();
        let prior = StreamPrior::uniform(811_357).unwrap();
        let d = crate::timing::prior::Distinct::Uniform { universe: 811_357 };
        let px = 1.0 / 811_357.0;
        for m in [
            p.metrics(1, &prior, None),
            p.metrics_distinct(1, &prior, &d, None).unwrap(),
        ] {
            assert!((0.0..1e-12).contains(&m.fn_), "{m:?}");
            assert_relative_eq!(m.in_window, px, max_relative = 1e-15);
        }
    }

    /// Issue 18: the sums of every observation from the Bernstein moments
    /// ([`moments::LikelihoodExpansion::sums`]), inside and beyond the window apart, are
    /// within `(C + n/C + 3(r0 + r1) + 8)·ε` relative, for `n` pieces in chunks of
    /// `C =` [`moments::PieceMoments::SUM_CHUNK`], of the compensated per-observation
    /// [`GbfDistinctTable::split_sums`]: the chunked sums of the moments, the roundings
    /// of the powers and coefficients on both sides (each factor `π0 + (1 − π0)t` of
    /// the direct form is rounded too), and the products' `r0 + r1 + 2` terms. Uniform
    /// and tabulated Zipf decay, small and large `k`, tables of up to 170,000 pieces,
    /// and tables whose mismatch terms underflow.
    #[test]
    fn issue_18_moment_sums_are_within_a_rounding_bound_of_the_compensated_sums() {
        use crate::timing::prior::Distinct;
        use moments::{LikelihoodExpansion, PieceMoments};
        let cases = [
            (
                GbfParams::new(20_000, 3, 5).unwrap(),
                1e-3,
                2000,
                Distinct::Uniform { universe: 1000 },
            ),
            (
                GbfParams::new(65_536, 12, 7).unwrap(),
                1.0 / 65_536.0,
                6553,
                Distinct::Uniform { universe: 65_536 },
            ),
            (
                GbfParams::new(4_440, 42, 42).unwrap(),
                2e-4,
                1480,
                Distinct::zipf_tabulated(4096),
            ),
            (
                GbfParams::new(655_360, 12, 7).unwrap(),
                1.0 / 65_536.0,
                65_536,
                Distinct::Uniform { universe: 65_536 },
            ),
            (
                GbfParams::new(1_000, 30, 1).unwrap(),
                0.5,
                10,
                Distinct::Identity,
            ),
            (
                GbfParams::new(50_000, 1, 40).unwrap(),
                1e-4,
                5000,
                Distinct::zipf_tabulated(100_000),
            ),
        ];
        for (params, px, w, d) in cases {
            // The filter alone, and with a wider one of the same `m` (a band of `K`, as
            // the chooser cuts): the wider filter's `t` comes from the recurrence.
            let wider = GbfParams::new(
                params.m(),
                (params.k0() + 2).min(64),
                (params.k1() + 3).min(64),
            )
            .unwrap();
            for served in [vec![params], vec![params, wider]] {
                let shape = PieceShape::serving(&served, GbfDistinctTable::DELTA);
                let pieces = AgePieces::new(shape, px, w, &d).unwrap();
                let moments = pieces.moments_by_hashes();
                let span = shape.max_hashes - shape.min_hashes;
                assert_eq!(moments.len(), span as usize + 1);
                for filter in &served {
                    let (r0, r1) = (filter.k0(), filter.k1());
                    let degree = &moments[(r0 + r1 - shape.min_hashes) as usize];
                    assert_eq!(degree.degree(), r0 + r1);
                    let table = pieces.table(filter);
                    let all = LikelihoodExpansion::new(filter).sums(degree);
                    let chunk = PieceMoments::SUM_CHUNK as f64;
                    let chunks = table.len() as f64 / chunk;
                    let bound = (chunk + chunks + 3.0 * f64::from(r0 + r1) + 8.0) * f64::EPSILON;
                    assert!(bound < 2.6e-13, "{} pieces", table.len());
                    let mut worst = 0.0f64;
                    for c0 in 0..=r0 {
                        for c1 in 0..=r1 {
                            let o = GbfObservation { c0, r0, c1, r1 };
                            let (n, beyond) = table.split_sums(&o);
                            let (an, ab) = all.get_split(c0, c1);
                            let (_, ad) = all.get(c0, c1);
                            assert_eq!(ad, an + ab);
                            for (x, y) in [(an, n), (ab, beyond)] {
                                if (x - y).abs() >= 1e-300 {
                                    worst = worst.max((x - y).abs() / y.abs());
                                }
                                assert!(
                                    (x - y).abs() <= bound * y.abs() || (x - y).abs() < 1e-300,
                                    "{filter:?} px = {px} ({c0}, {c1}): {x:e} vs {y:e}"
                                );
                            }
                        }
                    }
                    println!(
                        "{filter:?} of {} filters, {} pieces: worst {worst:e}, bound {bound:e}",
                        served.len(),
                        table.len()
                    );
                }
            }
        }
    }

    /// A shape serving many `K` takes `t_K` and `1 − t_K` by the recurrence of
    /// [`PieceShape::by_hashes`]; both stay within their rounding bounds of the direct
    /// `exp(K ln(1 − 1/m) d)` and `−exp_m1(·)`: `(2|x| + 2(K − 1) + 4)·ε` and
    /// `(2|x| + 3(K − 1) + 6)·ε` relative, `x = K ln(1 − 1/m) d` (the argument's own
    /// rounding moves both by `|x|·ε`), from `t` near 1 to `t` near 1e-300.
    #[test]
    fn issue_18_decays_by_hashes_are_within_their_rounding_bounds() {
        let filters: Vec<GbfParams> = (1..=42)
            .map(|k| GbfParams::new(4_440, k, k).unwrap())
            .collect();
        let shape = PieceShape::serving(&filters, GbfDistinctTable::CHOOSER_DELTA);
        assert_eq!((shape.min_hashes, shape.max_hashes), (2, 84));
        let mut worst = [0.0f64; 2];
        for d in [1e-9, 1e-4, 0.37, 1.0, 17.5, 300.0, 4_000.0, 16_000.0] {
            let decay = shape.decay(d);
            for (k, t, s) in shape.by_hashes(decay) {
                let x = f64::from(k) * shape.ln_q1 * d;
                let steps = f64::from(k - 1);
                let bounds = [
                    (2.0 * x.abs() + 2.0 * steps + 4.0) * f64::EPSILON,
                    (2.0 * x.abs() + 3.0 * steps + 6.0) * f64::EPSILON,
                ];
                for ((got, want), (bound, worst)) in [(t, x.exp()), (s, -x.exp_m1())]
                    .into_iter()
                    .zip(bounds.into_iter().zip(&mut worst))
                {
                    let rel = (got - want).abs() / want;
                    *worst = worst.max(rel / bound);
                    assert!(rel <= bound, "K = {k}, d = {d}: {got:e} vs {want:e}");
                }
            }
        }
        println!(
            "worst share of the bound: t {:.3}, 1 − t {:.3}",
            worst[0], worst[1]
        );
    }

    #[test]
    fn distinct_form_reduces_to_the_plain_form_when_d_is_linear() {
        let p = GbfParams::new(2000, 3, 3).unwrap();
        let prior = StreamPrior::uniform(500).unwrap();
        let a = p.metrics(300, &prior, None);
        let b = p
            .metrics_distinct(300, &prior, &crate::timing::prior::Distinct::Identity, None)
            .unwrap();
        assert_relative_eq!(a.fp, b.fp, max_relative = 1e-9);
        assert_relative_eq!(a.fn_, b.fn_, max_relative = 1e-9);
        let o = GbfObservation {
            c0: 2,
            r0: 3,
            c1: 3,
            r1: 3,
        };
        let x = posterior(&p, &o, 0.002, 300).unwrap();
        let y = posterior_distinct(
            &p,
            &o,
            0.002,
            300,
            &crate::timing::prior::Distinct::Identity,
        )
        .unwrap();
        assert!((x - y).abs() < 1e-10);
        let d = crate::timing::prior::Distinct::Uniform { universe: 400 };
        let table = GbfDistinctTable::new(&p, 0.0025, 300, &d).unwrap();
        let z = posterior_distinct(&p, &o, 0.0025, 300, &d).unwrap();
        // Pieces merge ages once D saturates (a >= about 1360 here): 5e-10 measured.
        assert!((table.posterior(&o).unwrap() - z).abs() < 1e-9);
    }

    /// The all-positive table against the generic one and the direct sum, and its
    /// length at the fuzz input of `model gbf --distinct-decay` (`m = 5.3·10^10`,
    /// `K = 85`, `w = 5.5·10^12`) that took minutes with the generic table.
    #[test]
    fn positive_table_matches_the_direct_sum_and_stays_short() {
        use crate::timing::prior::Distinct;
        let zipf = Distinct::zipf_tabulated(1 << 12);
        for (m, k0, k1, px, w) in [
            (8192u64, 4u32, 4u32, 1e-3, 1024u64),
            (1 << 16, 20, 30, 1e-4, 4096),
            (1 << 20, 3, 5, 2e-4, 100),
        ] {
            let p = GbfParams::new(m, k0, k1).unwrap();
            let o = GbfObservation {
                c0: k0,
                r0: k0,
                c1: k1,
                r1: k1,
            };
            let generic = GbfDistinctTable::new(&p, px, w, &zipf).unwrap();
            let positive = GbfDistinctTable::positive(&p, px, w, &zipf).unwrap();
            let direct = posterior_distinct(&p, &o, px, w, &zipf).unwrap();
            let got = positive.posterior(&o).unwrap();
            assert!(
                (got - direct).abs() < 1e-9,
                "m={m}: {got} vs direct {direct}"
            );
            let ((n1, d1), (n2, d2)) = (positive.sums(&o), generic.sums(&o));
            assert_relative_eq!(n1, n2, max_relative = 1e-7);
            assert_relative_eq!(d1, d2, max_relative = 1e-7);
            assert!(positive.len() <= generic.len());
        }
        let p = GbfParams::new(53_492_924_001, 43, 42).unwrap();
        let zipf = Distinct::zipf_tabulated(605_063);
        let table = GbfDistinctTable::positive(&p, 1e-6, 5_493_430_485_112, &zipf).unwrap();
        assert!(table.len() < 20_000, "{} pieces", table.len());
    }

    #[test]
    #[should_panic(expected = "an observation with a mismatch")]
    fn positive_table_refuses_a_mismatch() {
        let p = GbfParams::new(2000, 3, 3).unwrap();
        let d = crate::timing::prior::Distinct::Uniform { universe: 400 };
        let table = GbfDistinctTable::positive(&p, 0.0025, 300, &d).unwrap();
        let o = GbfObservation {
            c0: 2,
            r0: 3,
            c1: 3,
            r1: 3,
        };
        let _ = table.sums(&o);
    }

    /// Issue 6: the piecewise table against the direct sum over every age, up to
    /// `k0 = k1 = 30`, for uniform and Zipf streams (hot and cold items).
    #[test]
    fn distinct_table_matches_the_direct_sum() {
        use crate::timing::prior::Distinct;
        let w = 1024u64;
        let zipf = StreamPrior::zipf(1 << 12).unwrap();
        let cases = [
            (
                8 * w,
                4u32,
                Distinct::Uniform { universe: w },
                1.0 / w as f64,
            ),
            (8 * w, 30, Distinct::Uniform { universe: w }, 1.0 / w as f64),
            (6 * w, 3, Distinct::zipf_tabulated(1 << 12), zipf.px(2)),
            (6 * w, 8, Distinct::zipf_tabulated(1 << 12), zipf.px(3000)),
        ];
        let mut worst = 0.0f64;
        for (m, k, d, px) in cases {
            let p = GbfParams::new(m, k, k).unwrap();
            let table = GbfDistinctTable::new(&p, px, w, &d).unwrap();
            eprintln!("m {m} k {k} px {px:e}: {} pieces", table.len());
            for (c0, c1) in [(k, k), (k - 1, k), (k / 2, k / 2 + 1), (0, 1)] {
                let o = GbfObservation {
                    c0,
                    r0: k,
                    c1,
                    r1: k,
                };
                let got = table.posterior(&o).unwrap();
                let want = posterior_distinct(&p, &o, px, w, &d).unwrap();
                worst = worst.max((got - want).abs());
                assert!(
                    (got - want).abs() < 1e-8,
                    "m {m} k {k} px {px}: {got} vs {want} ({} pieces)",
                    table.len()
                );
            }
        }
        eprintln!("worst |table − direct| = {worst:e}");
    }

    #[test]
    fn exact_likelihood_posterior_matches_direct_sum() {
        let p = GbfParams::new(3000, 5, 7).unwrap();
        let o = GbfObservation {
            c0: 4,
            r0: 5,
            c1: 5,
            r1: 7,
        };
        let lik = o.likelihood(&p);
        for (px, w) in [(0.01, 100), (1e-3, 700)] {
            let got = posterior(&p, &o, px, w).unwrap();
            let want = posterior::window_posterior_direct(&lik, p.q_eps(), px, w);
            assert!((got - want).abs() < 1e-10, "{got} vs {want}");
        }
        assert!(posterior(
            &p,
            &GbfObservation {
                c0: 6,
                r0: 5,
                c1: 0,
                r1: 0
            },
            0.1,
            10
        )
        .is_err());
        assert!(posterior(&p, &o, 0.0, 10).is_err());
    }
}

#[cfg(test)]
mod extremes {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Issue 10 (numerical extremes): `m` up to 2^40, `k0`, `k1` up to 64, windows
        /// and ages up to 10^12, `p_x` down to 1e-15: every metric and posterior is a
        /// probability (never NaN), and every observation outside its ranges is rejected.
        #[test]
        fn extremes_give_probabilities(
            m_exp in 1.0f64..40.0,
            k0 in 1u32..=64,
            k1 in 1u32..=64,
            w_exp in 0.0f64..12.0,
            age_exp in 0.0f64..12.0,
            px_exp in -15.0f64..0.0,
            c0 in 0u32..=70,
            c1 in 0u32..=70,
        ) {
            let m = (2f64.powf(m_exp) as u64).max(2);
            let p = GbfParams::new(m, k0, k1).unwrap();
            let (w, age) = (10f64.powf(w_exp) as u64, 10f64.powf(age_exp) as u64);
            let flat = p.metrics_flat(w.max(1), Some(age));
            let prior = StreamPrior::uniform(1 << 20).unwrap();
            let with_prior = p.metrics(w.max(1), &prior, Some(age));
            for x in [
                flat.fp, flat.fn_, flat.positive_never, flat.positive_at_age.unwrap(),
                with_prior.fp, with_prior.fn_, with_prior.in_window,
            ] {
                prop_assert!((0.0..=1.0).contains(&x), "{x}");
            }
            let o = GbfObservation { c0, r0: k0, c1, r1: k1 };
            let px = 10f64.powf(px_exp);
            match posterior(&p, &o, px, w.max(1)) {
                Ok(post) => {
                    prop_assert!(c0 <= k0 && c1 <= k1);
                    prop_assert!((0.0..=1.0).contains(&post), "{post}");
                }
                Err(_) => prop_assert!(c0 > k0 || c1 > k1),
            }
        }
    }
}
