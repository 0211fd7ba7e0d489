//! The level-crossing (fluid) approximation of the σ-bounded chain, for `M` beyond the
//! exact solver's reach (up to 10^12 bits and more).
//!
//! # Formula
//! From state `i` a message sets on average `μ(i) = (M − i)·c` new bits, with
//! `c = 1 − (1 − 1/M)^k` (colliding) or `c = k/M` (distinct). By renewal reward, the
//! expected arrivals that see level `i` in a cycle are about `1/μ(i)`, so with the
//! midpoint rule (`x = i/M`, `s = (σ + ½)/M`, start fill `s0`):
//! ```text
//! messages ≈ ln((1 − s0 + ½/M) / (1 − s)) / c
//! f_σ¹     ≈ ∫_{s0}^{s} x^k/(1−x) dx / ∫_{s0−½/M}^{s} 1/(1−x) dx,
//! ∫_0^s x^k/(1−x) dx = Σ_{j>k} s^j / j
//! ```
//! For `k = 1` the discrete sums are exactly Eq. (19) [RBF]. The frozen filter of a
//! two-phase RBF sits on average `(k − 1)(1 − x)/2` bits below σ (binomial overshoot).
//!
//! # Accuracy
//! The relative error falls as `1/M` (measured against the exact chain by
//! `super::tests::print_fluid_errors`, k = 3…10, σ/M = 0.3…0.6, M = 10^3…10^7): about
//! `5/M` for f_σ¹, `2/M` for the messages per cycle and below `0.25/M` for the frozen
//! filter's FP; e.g. 4.3e-4 / 1.3e-4 at M = 10^4 and 4.3e-6 / 1.3e-6 at M = 10^6 (k = 7,
//! σ = M/2). Extrapolated, about 5e-12 at M = 10^12. The test
//! `super::tests::fluid_error_is_small_and_shrinks` asserts the bounds at 10^4 and 10^6.
//! Near σ = M the error is larger and falls slowly: with σ = M − 1 and k = 64, f_σ¹ is
//! 3.0%, 1.1%, 0.6% and 0.4% above the exact chain at M = 10^3, 10^4, 10^5, 10^6 (at
//! σ = 0.9M: 0.14% and 0.014% at M = 10^4, 10^5), asserted by
//! `super::extremes::fluid_error_next_to_a_full_filter`; with σ within a few `k` of the start
//! state the message count can fall below one cycle's minimum, so
//! [`super::RbfParams::metrics`] floors it at `min_messages` (issue 10).

use super::transitions::Law;
use super::Hashing;
use crate::numeric::pow1m;

/// `∫_0^s x^k/(1−x) dx = Σ_{j>k} s^j/j`, without cancellation for small `s`.
pub fn tail_integral(k: u32, s: f64) -> f64 {
    if s <= 0.0 {
        return 0.0;
    }
    if s > 0.95 {
        let head: f64 = (1..=k).map(|j| s.powi(j as i32) / f64::from(j)).sum();
        return (-(-s).ln_1p() - head).max(0.0);
    }
    tail_series(k, s, s.powi(k as i32 + 1))
}

/// The natural log of [`tail_integral`], in log space so that it keeps its relative
/// precision where `s^(k+1)` is below the smallest `f64`:
/// `ln Σ_{j>k} s^j/j = (k + 1)·ln s + ln Σ_{j>k} s^(j−k−1)/j`; `−∞` at `s ≤ 0`.
pub fn ln_tail_integral(k: u32, s: f64) -> f64 {
    if s <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if s > 0.95 {
        return tail_integral(k, s).ln();
    }
    (f64::from(k) + 1.0) * s.ln() + tail_series(k, s, 1.0).ln()
}

/// `Σ_{j>k} first·s^(j−k−1)/j` for `s ≤ 0.95`, to 1e-18 relative.
fn tail_series(k: u32, s: f64, first: f64) -> f64 {
    let mut term = first;
    let mut j = f64::from(k) + 1.0;
    let mut sum = 0.0;
    while term / j > 1e-18 * sum || sum == 0.0 {
        sum += term / j;
        term *= s;
        j += 1.0;
        if term == 0.0 {
            break;
        }
    }
    sum
}

/// Fluid estimates for one filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidPoint {
    /// ≈ f_σ¹.
    pub fp: f64,
    /// ≈ FP of the frozen filter.
    pub fp_frozen: f64,
    /// ≈ mean new messages per cycle (recycle when `b > σ`).
    pub messages: f64,
    /// ≈ Eqs. (20)-(23) [RBF] (messages to reach σ bits from empty).
    pub messages_paper: f64,
}

/// Mean new bits per unset bit per message, `c`.
fn rate(law: Law) -> f64 {
    let (m, k) = (law.m as f64, f64::from(law.k));
    match law.hashing {
        Hashing::Colliding => 1.0 - pow1m(1.0 / m, k),
        Hashing::Distinct => k / m,
    }
}

/// The fill levels of the fluid estimate at threshold `sigma`.
struct Levels {
    /// The fill `s = (σ + ½)/M` at which a cycle ends.
    s: f64,
    /// The start fill `s0`.
    s0: f64,
    /// The start bits `M·s0`.
    start_bits: f64,
    /// `∫_{s0−½/M}^{s} dx/(1−x) = ln((1 − s0 + ½/M)/(1 − s))`.
    log_span: f64,
    /// The frozen filter's mean fill, `(σ − (k − 1)(1 − σ/M)/2)/M`.
    frozen_fill: f64,
}

fn levels(law: Law, sigma: u64, retaining: bool) -> Levels {
    let m = law.m as f64;
    let s = (sigma as f64 + 0.5) / m;
    let start_bits = if retaining { m * rate(law) } else { 0.0 };
    let s0 = start_bits / m;
    let half = 0.5 / m;
    let x = sigma as f64 / m;
    Levels {
        s,
        s0,
        start_bits,
        log_span: ((s - s0 + half) / (1.0 - s)).ln_1p(),
        frozen_fill: ((sigma as f64 - f64::from(law.k - 1) * (1.0 - x) / 2.0) / m).max(0.0),
    }
}

/// The fluid estimate at threshold `sigma`; `retaining` starts each cycle with the
/// retained message's expected distinct positions set.
pub fn point(law: Law, sigma: u64, retaining: bool) -> FluidPoint {
    let m = law.m as f64;
    let c = rate(law);
    let l = levels(law, sigma, retaining);
    let messages = l.log_span / c;
    let num = tail_integral(law.k, l.s) - tail_integral(law.k, l.s0);
    let paper_span = ((sigma as f64 - l.start_bits) / (m - sigma as f64 + 0.5)).ln_1p();
    FluidPoint {
        fp: (num / l.log_span).clamp(0.0, 1.0),
        fp_frozen: l.frozen_fill.powi(law.k as i32),
        messages,
        messages_paper: paper_span / c,
    }
}

/// The natural logs of [`point`]'s `fp` and `fp_frozen`, in log space so that they keep
/// their relative precision below the smallest `f64`:
/// ```text
/// ln fp        = ln T(s) + ln(1 − e^(ln T(s0) − ln T(s))) − ln(log span)
/// ln fp_frozen = k·ln(frozen fill)
/// ```
/// with `T` = [`ln_tail_integral`]'s integral (the formula of the module doc).
pub fn ln_point(law: Law, sigma: u64, retaining: bool) -> (f64, f64) {
    let l = levels(law, sigma, retaining);
    let (hi, lo) = (ln_tail_integral(law.k, l.s), ln_tail_integral(law.k, l.s0));
    let ln_num = hi + (-(lo - hi).min(0.0).exp()).ln_1p();
    (
        (ln_num - l.log_span.ln()).min(0.0),
        f64::from(law.k) * l.frozen_fill.ln(),
    )
}
