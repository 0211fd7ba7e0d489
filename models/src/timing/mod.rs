//! Time-decaying filters, part 1: the inferential framework, the Timing and Block Timing
//! Bloom filters (standard and inferential), and a penalty-optimal parameter chooser.
//!
//! Paper: J. L. Dautrich Jr. and C. V. Ravishankar, *Inferring Insertion Times and
//! Optimizing Error Penalties in Time-Decaying Bloom Filters*, ACM (2019)
//! (`000_4a86d6f208f608dd.txt`), Sections 2, 3, 4, 6. Tag `[TBF]`.
//!
//! A BTBF holds `m` timers of `bpt` bits and uses `k` hashes; the current timestamp `T_+`
//! advances once per block of `B` insertions; a timestamp whose age exceeds
//! `L(b) = ⌈(w−b)/B⌉` has expired. The standard filter answers Pos unless one of an
//! item's timers expired (no false negatives); the inferential filter observes
//! `(λ_x, c_x, r_x)` and returns the sliding-window posterior `P(I_x < w | R_x)`.
//!
//! | quantity | Eq. [TBF] | function |
//! |---|---|---|
//! | prior `P(i)`, `P(α <= I < β)` | (3)-(5) | [`prior::prior`], [`prior::prior_range`], [`prior::prior_finite`] |
//! | inferential Classical BF | Thm 1, (13)-(14) | [`prior::classical_posterior`], [`prior::classical_posterior_approx`] |
//! | `D(j)`: uniform, Zipf, exact, sampled | (15)-(18) | [`prior::Distinct`] |
//! | posterior by direct summation; calibration, Posterior Error | (9), (35) | [`posterior::direct_window_posterior`], [`posterior::Calibration`] |
//! | minimum-penalty decision | Section 2.6 | [`penalty::Penalties::decide`], [`penalty::PenaltyDist`] |
//! | BTBF structure, `T_Ω`, scan per insertion, padding rule | Section 3 | [`BtbfParams`], [`btbf::rule_of_thumb_padding`] |
//! | standard FP (block granularity + refreshed timers) | Section 3.2.2 | [`BtbfModel::fp_at_age`], [`BtbfModel::metrics`] |
//! | `F`, `G` | (21), (25) | [`BtbfModel::f`], [`BtbfModel::g`] |
//! | posterior, all cases of `λ_x` | Thms 2-5, (22)-(27) | [`BtbfModel::posterior`] |
//! | expected / most likely insertion age | (8), Section 2.3.3 | [`BtbfModel::expected_age`], [`BtbfModel::most_likely_age`] |
//! | Simple Buffer, prior only | (36) | [`buffer::SimpleBufferParams`], [`buffer::prior_only_posterior`] |
//! | expected penalty, chooser | (new) | [`design::expected_penalty`], [`design::design`] |
//! | a trace's item frequencies as the prior; per-age observation law and cost | (new) | [`prior::ItemFrequencies`], [`BtbfModel::observations_at_age`], [`BtbfModel::expected_cost_at_age`] |
//!
//! # Assumptions
//! Continuous stream (`n → ∞`, Eq. (4)); timers touched independently (Eq. (21)); an
//! item's timers are distinct (`r_x = k`) in the forward model of the chooser (a
//! collision has probability about `k²/2m`); `p_x` known and time-invariant
//! (Assumptions 1-2 of Section 6.4).
//!
//! # Known errata
//! * Theorem 4: the last line of the proof has `(1−p)^w` where `(1−p)^B` is meant; the
//!   statement, Eq. (26), is right (checked here against a direct summation).
//! * Eq. (12): the exponent is `k·n`.
//! * Figure 5's caption says `B = 2` for a filter whose text says `B = 3`.
//! * Eq. (17) (Zipf `D(j)`) exceeds `j` for `j` below about 3 (at `|U| = 2^16`,
//!   `D(1) ≈ 1.2`); it is capped at `min(j, |U|)`. Elsewhere it is within 8% of Eq. (15).
//! * Table 4's Pos/Neg ratios are measured on the paper's finite streams: the Uniform
//!   `[Pos≈Neg]` ratio is `e − 1 = 1.718` as printed, but `[Pos>Neg]`'s 53.547 differs from
//!   the model's `e^4 − 1 ≈ 53.60` by 0.1% (a sampling effect of one stream).
//! * Eq. (25) is not the product form it claims when items repeat: the `c` timers of
//!   `C_x` must have been touched by block `T_x`'s items that do not appear again in the
//!   next `a` insertions, `D(a+B) − D(a)` distinct items, not `D(B)`. With a concave `D`
//!   Eq. (25) overstates `G`, and the posteriors of Theorems 4-5 come out too low
//!   (measured: mid-range bins 0.05-0.19 below the observed frequency on a Uniform stream
//!   with `|U| = w`, Posterior Error ≈ 0.05, the paper's own bound). [`GForm::Increment`]
//!   uses the increment; the paper's form stays the default for fidelity.
//! * `λ_x = 0` is possible only with `b >= 1` and `c_x = r_x`; with `b = 0` and
//!   `λ_x = 1`, `c_x = r_x` (Eq. (21) with `j = 0`).
//!
//! # References
//! * L. Zhang, Y. Guan, "Detecting click fraud in pay-per-click streams of online
//!   advertising networks", ICDCS 2008 (the TBF).
//! * W. B. Wu, C. V. Ravishankar, "The performance of difference coding for sets and
//!   relational tables", JACM 2003 (Eq. (17)).
//!
//! # Example
//! Table 4 [TBF]'s Uniform [Pos≈Neg] ratio, then one inferential query of the paper's
//! Table 5 filter (`k = 4`, 10 bits per item, `w = |U| = 2^16`):
//! ```
//! use bfopt_models::printed::{matches_printed, Printing};
//! use bfopt_models::timing::{BtbfModel, BtbfObservation, BtbfParams, StreamPrior, TimerAge};
//!
//! let prior = StreamPrior::uniform(1 << 16)?;
//! let p = prior.in_window(1 << 16);
//! assert!(matches_printed(p / (1.0 - p), "1.718", Printing::Rounded));
//!
//! let params = BtbfParams::with_default_padding(131_072, 4, 5, 2979, 1 << 16)?;
//! let model = BtbfModel::new(params, prior.distinct());
//! let recent = BtbfObservation { age: TimerAge::Finite(2), matching: 4, touched: 4, offset: 10 };
//! let old = BtbfObservation { age: TimerAge::Finite(20), matching: 1, touched: 4, offset: 10 };
//! let (a, b) = (model.posterior(1.0 / 65536.0, &recent)?, model.posterior(1.0 / 65536.0, &old)?);
//! assert!(a > 0.99 && b < a && (0.0..=1.0).contains(&b));
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

pub mod btbf;
pub mod buffer;
pub mod design;
pub mod penalty;
pub mod posterior;
pub mod prior;

mod audit;
pub use audit::{TimerAudit, TimerHistogram};
pub use btbf::{
    BtbfMetrics, BtbfModel, BtbfObservation, BtbfParams, GForm, OffsetTimers, TimerAge,
};
pub use design::{
    design, expected_penalty, expected_penalty_over, BtbfDesign, BtbfRequirement, ExpectedPenalty,
};
pub use penalty::{Decision, Penalties, PenaltyDist};
pub use prior::{Distinct, ItemFrequencies, StreamPrior};

#[cfg(test)]
mod tests;
