//! Insertion streams with repeats inside the window, and their effect on the fill of
//! APBF slices (Section 5.6.2, Figures 7-8 [APBF]; the paper measures, this models).
//!
//! # The stream
//! Each insertion is, with probability `d` (the *repeat rate*), a repeat of the item
//! at a uniformly chosen one of the last `h` insertions (the *horizon*, normally the
//! window), and otherwise a new item. The paper's duplicate rate of a `w`-long
//! sequence `W`, `1 − |unique(W)|/|W|`, is [`WindowDuplicates::window_duplicate_rate`]
//! (slightly below `d`: a repeat can bring back an item whose last occurrence fell
//! just outside `W`).
//!
//! # Why only the number of distinct items matters
//! Algorithm 1 [APBF] (Section 5.1) writes every insertion, repeat or not, into the
//! `k` youngest slices with one fixed hash function per physical slice. A repeat sets,
//! in each slice, the bit its earlier occurrence set there if that slice was already
//! active then, and a fresh bit otherwise; it advances the generation counter like any
//! insertion. So a slice that has been active during a run of `L` consecutive
//! insertions has the fill of `D(L)` distinct items, `1 − (1 − 1/m)^D(L)`, and the
//! filter's FP is `F(k, l, 0, 0)` (Section 5.3 [APBF]) over those fills. Just before a
//! shift slice `i < k` has seen a run of `(i+1)·g` insertions, slice `i ≥ k` one of
//! `k·g`.
//!
//! # Formula
//! Call an item's occurrences a tree: a new item is a root; a repeat at position `t`
//! is a child of the position it copies, in `[t − h, t)`. A position has a child at each
//! of the next `h` positions with probability `d/h`: a branching process with mean
//! offspring `d`. With positions in units of `h`, a run `[0, τ)`, `τ ≤ 1`, and
//! `u_τ(x)` the probability that the tree rooted `x` before the run meets it:
//! ```text
//! 1 − u_τ(x) = exp(−d·[ max(0, min(τ, 1 − x)) + ∫_{max(0, x−1)}^{x} u_τ(y) dy ])
//! U(τ)       = ∫_0^∞ u_τ(x) dx,          U(τ) = U(1) for τ ≥ 1
//! E[D(L)]    = (1 − d)·(L + h·U(L/h))
//! ```
//! (the first term: children of the root inside the run; the integral: children
//! before the run whose own trees meet it). A tree that meets the run first meets it
//! within `h` of its start (its first node there has a parent before the run), hence
//! `U(τ) = U(1)` for runs longer than `h`. For small `d`, `U(τ) ≈ d(τ − τ²/2)`:
//! the `s`-th insertion of a run repeats an item of the run with probability `d·s/h`.
//!
//! The solution has a closed form, `U(τ) = ln(1 + dτ/(1−d))/d − τ`, i.e.
//! ```text
//! E[D(L)] = h·(1−d)/d · ln(1 + d·L/((1−d)·h))                L ≤ h
//! E[D(L)] = E[D(h)] + (1 − d)(L − h)                          L ≥ h
//! ```
//! equivalently, the `s`-th insertion of a run is the first of its item in the run
//! with probability `(1−d)/(1 − d + d·s/h)`. This form was found from the numerical
//! solve, not proven: [`overhang`] (a marching solve of the equation) converges to it
//! at second order in the grid step (relative gap 1e-6 at 96 points per horizon, 2e-8
//! at 768; tested), and it satisfies the balance `S = 1 − d + d(1 − τ)S` one gets by
//! assuming a repeat that reaches before the run finds an item absent from the run
//! with the same probability `S`. [`WindowDuplicates::distinct`] uses the closed form.
//!
//! # Accuracy
//! Two approximations, both measured:
//! * Children of different positions are treated as independent; in the stream an
//!   insertion copies one position only, an `O(1/h)` correlation. `E[D(L)]` agrees
//!   with counts on the generated stream (`tests/agreement/apbf.rs`).
//! * The expected fill is taken as `1 − (1 − 1/m)^E[D]` and the FP as `F` of the
//!   expected fills; `D` has a relative spread of order `1/√L`, so both Jensen gaps are
//!   `O(1/m)`. The FP agrees with simulation at `w = 1000` (`tests/agreement/apbf.rs`).

use crate::error::check;
use crate::error::ModelError;
use serde::Serialize;
use std::ops::RangeInclusive;

/// Grid points per horizon of the reference solve [`overhang`].
pub const GRID: usize = 96;

/// A stream whose insertions repeat an item of the last `horizon` insertions with
/// probability `rate` (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WindowDuplicates {
    rate: f64,
    horizon: u64,
}

impl WindowDuplicates {
    /// Allowed horizons (insertions).
    pub const HORIZON: RangeInclusive<u64> = 1..=(1 << 44);

    /// The model for repeat rate `rate ∈ [0, 1)` over the last `horizon` insertions.
    ///
    /// # Errors
    /// `rate` outside `[0, 1)` (NaN included) or `horizon` outside [`Self::HORIZON`].
    pub fn new(rate: f64, horizon: u64) -> Result<Self, ModelError> {
        if !(0.0..1.0).contains(&rate) {
            return Err(ModelError::invalid(
                "duplicate_rate",
                rate,
                "0 <= duplicate_rate < 1",
            ));
        }
        check::in_range("horizon", horizon, Self::HORIZON)?;
        Ok(Self { rate, horizon })
    }

    /// The repeat rate `d`.
    pub fn rate(&self) -> f64 {
        self.rate
    }
    /// The horizon `h` of the repeats.
    pub fn horizon(&self) -> u64 {
        self.horizon
    }

    /// `U(τ) = ln(1 + dτ/(1−d))/d − τ` (`τ` clamped to `[0, 1]`; module doc).
    pub fn overhang(&self, tau: f64) -> f64 {
        let (d, tau) = (self.rate, tau.clamp(0.0, 1.0));
        if d == 0.0 {
            return 0.0;
        }
        ((d * tau / (1.0 - d)).ln_1p() / d - tau).max(0.0)
    }

    /// Expected distinct items in a run of `run` consecutive insertions (module doc):
    /// `h(1−d)/d·ln(1 + dL/((1−d)h))` up to `L = h`, then `(1 − d)` per insertion.
    pub fn distinct(&self, run: f64) -> f64 {
        let d = self.rate;
        if d == 0.0 || run <= 0.0 {
            return run.max(0.0);
        }
        let h = self.horizon as f64;
        let within = run.min(h);
        let head = h * (1.0 - d) / d * (d * within / ((1.0 - d) * h)).ln_1p();
        (head + (1.0 - d) * (run - within)).min(run)
    }

    /// The paper's duplicate rate of a sequence of `h` insertions,
    /// `1 − E|unique(W)|/|W| = 1 − (1−d)/d·ln(1/(1−d))` (Section 5.6.2 [APBF]).
    pub fn window_duplicate_rate(&self) -> f64 {
        let h = self.horizon as f64;
        (1.0 - self.distinct(h) / h).clamp(0.0, 1.0)
    }

    /// The repeat rate `d` whose window duplicate rate is `target`
    /// ([`Self::window_duplicate_rate`], increasing in `d`; bisection to 1e-12).
    ///
    /// # Errors
    /// `target` outside `[0, 0.999]`, or a bad horizon.
    pub fn for_window_duplicate_rate(target: f64, horizon: u64) -> Result<Self, ModelError> {
        check::in_range_f64("duplicate_rate", target, 0.0..=0.999)?;
        let rate_of = |d: f64| Self::new(d, horizon).map(|m| m.window_duplicate_rate());
        let (mut lo, mut hi) = (0.0, 1.0 - 1e-12);
        while hi - lo > 1e-12 {
            let mid = 0.5 * (lo + hi);
            if rate_of(mid)? < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Self::new(0.5 * (lo + hi), horizon)
    }
}

/// `U(τ) = ∫_0^∞ u_τ(x) dx` for repeat rate `d` by solving the integral equation of the
/// module doc (the reference for the closed form that
/// [`WindowDuplicates::overhang`] uses).
///
/// # Numerics
/// Trapezoid rule on [`GRID`] points per horizon, the implicit end point by
/// fixed-point iteration, the kink of the direct term at `x = 1 − τ` integrated
/// exactly to first order; marches in `x` until `u < 1e-11` past one horizon, then adds
/// the geometric tail `u/(−λ)`. The work grows like `1/(1 − d)`.
pub fn overhang(d: f64, tau: f64) -> f64 {
    overhang_on(d, tau, GRID)
}

/// [`overhang`] on a grid of `n` points per horizon.
fn overhang_on(d: f64, tau: f64, n: usize) -> f64 {
    if d <= 0.0 || tau <= 0.0 {
        return 0.0;
    }
    let tau = tau.min(1.0);
    let dx = 1.0 / n as f64;
    // cum[i] = ∫_0^{x_i} u (trapezoid); only the last n + 1 values are needed.
    let mut cum = vec![0.0; n + 1];
    let mut u_prev = -(-d * tau).exp_m1(); // x = 0: only the root's own children.
    let mut total = 0.0;
    let mut c_prev = 0.0;
    cum[0] = 0.0;
    let mut i = 0usize;
    loop {
        i += 1;
        let x = i as f64 * dx;
        let direct = (1.0 - x).min(tau).max(0.0);
        let back = if i >= n { cum[(i - n) % (n + 1)] } else { 0.0 };
        let base = d * (direct + c_prev + 0.5 * dx * u_prev - back);
        // u = 1 − exp(−(base + d·dx·u/2)): a contraction with factor < d·dx/2.
        let mut u = u_prev;
        for _ in 0..4 {
            u = -(-(base + 0.5 * d * dx * u)).exp_m1();
        }
        // The direct term has a kink at x = 1 − τ; inside that cell the trapezoid
        // misses ∫(a − a_linear), which moves u by d(1 − u)·that to first order.
        let (x0, kink) = (x - dx, 1.0 - tau);
        let mut cell = 0.5 * dx * (u_prev + u);
        if x0 < kink && kink < x {
            let a = |y: f64| (1.0 - y).min(tau).max(0.0);
            let exact = tau * (kink - x0) + 0.5 * ((1.0 - kink).powi(2) - (1.0 - x).powi(2));
            let trapezoid = 0.5 * dx * (a(x0) + a(x));
            cell += d * (1.0 - 0.5 * (u_prev + u)) * (exact - trapezoid);
        }
        let c = c_prev + cell;
        total += cell;
        cum[i % (n + 1)] = c;
        c_prev = c;
        u_prev = u;
        // Past one horizon u decays like e^(λx) (λ < 0 the decay rate below): stop
        // well above the rounding floor of `c − back` and add the tail u/(−λ).
        if x > 1.0 && u < 1e-11 {
            total += u / -decay_rate(d);
            break;
        }
        if i > 100_000_000 {
            break;
        }
    }
    total
}

/// The negative root `λ` of `λ = d(1 − e^(−λ))`, the decay rate of `u(x)` past one
/// horizon (`u' = d(u(x) − u(x−1))` linearised); bisection on `μ = −λ`, a root of
/// `d(e^μ − 1) − μ` (negative on `(0, μ)`, positive after).
fn decay_rate(d: f64) -> f64 {
    let g = |mu: f64| d * mu.exp_m1() - mu;
    let mut hi = 1.0;
    while g(hi) <= 0.0 && hi < 1e3 {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    -(0.5 * (lo + hi)).max(1e-12)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_rate_solves_its_equation() {
        for d in [0.05, 0.5, 0.9, 0.99] {
            let lam = decay_rate(d);
            assert!(lam < 0.0);
            assert!((lam - d * (1.0 - (-lam).exp())).abs() < 1e-12, "{d}: {lam}");
        }
    }

    #[test]
    fn no_repeats_means_every_insertion_is_distinct() {
        let m = WindowDuplicates::new(0.0, 1000).unwrap();
        assert_eq!(m.distinct(123.0), 123.0);
        assert_eq!(m.window_duplicate_rate(), 0.0);
    }

    #[test]
    fn small_rates_match_the_first_order_expansion() {
        // U(τ) ≈ d(τ − τ²/2) + O(d²).
        for tau in [0.1, 0.5, 1.0] {
            let d = 1e-4;
            let u = overhang(d, tau);
            let first = d * (tau - tau * tau / 2.0);
            assert!((u / first - 1.0).abs() < 2e-3, "τ = {tau}: {u} vs {first}");
        }
    }

    #[test]
    fn closed_form_solves_the_integral_equation() {
        for d in [0.1, 0.5, 0.9, 0.99] {
            let m = WindowDuplicates::new(d, 1000).unwrap();
            for tau in [0.013, 0.2, 0.37, 0.5, 0.77, 1.0] {
                let solved = overhang(d, tau);
                let closed = m.overhang(tau);
                assert!(
                    (closed / solved - 1.0).abs() < 2e-5,
                    "d = {d}, τ = {tau}: {closed} vs {solved}"
                );
            }
        }
        // The gap shrinks at second order with the step: it is the grid's, not the
        // form's.
        for (d, tau) in [(0.5, 0.3), (0.9, 0.01)] {
            let closed = WindowDuplicates::new(d, 1).unwrap().overhang(tau);
            let coarse = (overhang(d, tau) / closed - 1.0).abs();
            let fine = (overhang_on(d, tau, 4 * GRID) / closed - 1.0).abs();
            assert!(fine < coarse / 10.0, "{d} {tau}: {coarse} → {fine}");
        }
    }

    #[test]
    fn grid_is_converged() {
        // Halving the step changes U by far less than the model's O(1/h) error.
        for (d, tau) in [
            (0.3, 0.25),
            (0.7, 0.6),
            (0.95, 1.0),
            (0.5, 0.003),
            (0.5, 0.013),
        ] {
            let (u, fine) = (overhang(d, tau), overhang_on(d, tau, 4 * GRID));
            assert!((u / fine - 1.0).abs() < 1e-4, "{d} {tau}: {u} vs {fine}");
        }
    }

    #[test]
    fn distinct_count_is_monotone_and_bounded() {
        for d in [1e-9, 0.2, 0.6, 0.95, 0.999_999] {
            let m = WindowDuplicates::new(d, 500).unwrap();
            let mut last = 0.0;
            for run in (0..3000).step_by(37) {
                let v = m.distinct(run as f64);
                assert!(v >= last - 1e-9 && v <= run as f64 + 1e-9, "{d} {run} {v}");
                last = v;
            }
            let r = m.window_duplicate_rate();
            assert!(r > 0.0 && r < d, "{d}: {r}");
        }
    }

    #[test]
    fn inverse_of_the_window_duplicate_rate() {
        let m = WindowDuplicates::for_window_duplicate_rate(0.4, 1000).unwrap();
        assert!((m.window_duplicate_rate() - 0.4).abs() < 1e-6);
        let high = WindowDuplicates::for_window_duplicate_rate(0.99, 1000).unwrap();
        assert!((high.window_duplicate_rate() - 0.99).abs() < 1e-6);
        assert!(WindowDuplicates::for_window_duplicate_rate(1.0, 1000).is_err());
    }

    #[test]
    fn bad_rates_are_rejected() {
        for d in [-0.1, 1.0, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(WindowDuplicates::new(d, 10).is_err(), "{d}");
        }
        assert!(WindowDuplicates::new(0.5, 0).is_err());
    }
}
