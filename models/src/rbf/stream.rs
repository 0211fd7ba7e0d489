//! The one- and two-phase RBF on a stream with `D(·)` (expected distinct items in `L`
//! consecutive arrivals, [`crate::workload`]), such as a user's trace.
//!
//! # New messages
//! The RBF's cycle is counted in *new messages*: arrivals that set bits in the active
//! filter (Section III [RBF]). Both variants insert every arrival into the active
//! filter (a one-phase filter's repeat re-inserts too, setting no bit while its item is
//! still held; a two-phase filter copies an item found only in the frozen filter), so an
//! arrival is new exactly when its item has not arrived since the active filter's cycle
//! began: a cycle spanning `S` arrivals takes `D(S)` new messages, and a window of `W`
//! arrivals brings about `D(W)` of them. (A linear rate, `W` times the
//! fraction of arrivals new within the window `D'(W)`, would count fewer, since `D` is
//! concave, and under-size the window.)
//!
//! # Formula
//! With the fluid law of the σ-bounded chain ([`super::fluid`]): the active filter's fill
//! after `n` new messages is `x(n) = 1 − (1 − c)^n` (`c` new bits per unset bit per
//! message), a cycle takes `L` new messages ([`super::RbfMetrics::expected_messages`])
//! over `S = D⁻¹(L)` arrivals, and after `τ` arrivals of the cycle the active filter
//! holds `D(τ)` messages. A key that never occurs, queried at a uniformly drawn arrival,
//! is reported with
//! ```text
//! fp = ρ̄_A + ρ_F − ρ̄_A·ρ_F,   ρ̄_A = f_σ¹ · [(1/S) ∫_0^S x(D(τ))^k dτ] / [(1/L) ∫_0^L x(n)^k dn]
//! ```
//! (Eqs. (18), (26) [RBF]): Eq. (26)'s active-filter FP, re-weighted from per new
//! message to per arrival. On a distinct stream (`D(τ) = τ`) the ratio is 1 and `fp` is
//! the count-instance Eq. (26). On a repeating stream the new messages slow down as the
//! cycle goes on, so the fuller states last more arrivals and `fp` is above Eq. (26).
//! `ρ_F` (the frozen filter) is constant over the cycle; a one-phase filter has none
//! (`ρ_F = 0`).
//!
//! A non-retaining filter drops the message that overflows a cycle: on a repeating
//! stream that item is missed if it returns within the window
//! ([`RbfStreamMetrics::dropped_per_arrival`]).
//!
//! An item last seen `a` arrivals ago is still held by a two-phase filter while the
//! second recycle after its arrival has not come: surely for `a <= S`, and with
//! probability `(2S − a)/S` for `S < a < 2S` at a uniform phase of its arrival in its
//! cycle. A one-phase filter forgets it at the first recycle: held with probability
//! `1 − a/S` for `a < S` (renewal approximation, as for a distinct stream).

use super::{Method, RbfParams};
use crate::error::ModelError;
use crate::numeric::{either, pow1m, probability};
use crate::workload::Distinct;
use serde::Serialize;

/// Quadrature points of the two cycle averages.
const POINTS: u32 = 2048;

/// The RBF on a stream with `D(·)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfStreamMetrics {
    /// Filters: 1 (one-phase) or 2 (two-phase).
    pub phases: u8,
    /// FP of a key that never occurs, at a uniform arrival (see the module formula).
    pub fp: f64,
    /// Eq. (26) [RBF]: the count-instance FP per new message (fluid).
    pub fp_per_message: f64,
    /// `L`: new messages per cycle.
    pub messages: f64,
    /// `S = D⁻¹(L)`: arrivals per cycle.
    pub arrivals: f64,
}

impl RbfStreamMetrics {
    /// Missed window items per window query, bounded by `1/S`: a non-retaining filter drops
    /// the message that overflows each cycle (it is in neither filter after the
    /// recycle), one per `S` arrivals. An item whose last arrival was new to the filter
    /// (not seen for a while) returns within the window less often than an average
    /// arrival when each item arrives at its own constant rate (independent reference
    /// model: the gaps before and after an arrival are independent given the rate, and
    /// a long gap before points to a low rate), so the share of window queries that hit
    /// a dropped item is at most `1/S`. A bursty trace can break that argument.
    pub fn dropped_per_arrival(&self) -> f64 {
        (1.0 / self.arrivals).min(1.0)
    }

    /// Probability that an item last seen `a` arrivals ago is reported: held (two
    /// phases) surely for `a <= S`, with probability `(2S − a)/S` up to `2S`; (one
    /// phase) with probability `1 − a/S` up to `S`; at [`Self::fp`] otherwise.
    pub fn report_at_age(&self, a: f64) -> f64 {
        either(1.0 - self.forgotten_at_age(a), self.fp)
    }

    /// Probability that an item last seen `a` arrivals ago is no longer held (renewal
    /// approximation: cycles of `S` arrivals at a uniform phase): `min(a/S, 1)` for one
    /// phase, `min(max(a/S − 1, 0), 1)` for two. The dropped overflow message of a
    /// non-retaining filter is not counted ([`Self::dropped_per_arrival`]).
    pub fn forgotten_at_age(&self, a: f64) -> f64 {
        let cycles = a / self.arrivals - f64::from(self.phases - 1);
        cycles.clamp(0.0, 1.0)
    }

    /// False negatives averaged over the `D(w)` distinct items of a window of `w`
    /// arrivals: `D'(a) da` of them were last seen at age `a`, each forgotten with
    /// `g(a)` = [`Self::forgotten_at_age`], so (integrating by parts; `g` rises with
    /// slope `1/S` on `[lo, hi] = [(phases − 1)·S, phases·S] ∩ [0, w]`)
    /// ```text
    /// FN = [D(w)·g(w) − (1/S) ∫_lo^hi D(a) da] / D(w)
    /// ```
    /// One phase, `S >= w`: `(w·D(w) − ∫_0^w D) / (S·D(w))`, which is `w/(2S)` on a
    /// distinct stream (the distinct-stream design's `W/(2L)`); two phases with `S >= w`:
    /// 0.
    pub fn window_fn(&self, w: u64, workload: &Distinct) -> f64 {
        let (w, s) = (w as f64, self.arrivals);
        let dw = workload.d(w);
        if dw <= 0.0 {
            return 0.0;
        }
        let lo = (f64::from(self.phases - 1) * s).min(w);
        let hi = (f64::from(self.phases) * s).min(w);
        let ramp = (hi - lo) * mean(hi - lo, &|a| workload.d(lo + a));
        probability((dw * self.forgotten_at_age(w) - ramp / s) / dw)
    }
}

/// The least cycle length `S >= w` (arrivals) whose one-phase false negatives over a
/// window of `w` arrivals ([`RbfStreamMetrics::window_fn`]) are at most `rate`:
/// `S = (w·D(w) − ∫_0^w D(a) da) / (rate·D(w))`, at least `w`.
///
/// # Errors
/// `rate` outside (0, 1] (named `allow_fn`); `w` zero.
pub fn one_phase_cycle_on(w: u64, rate: f64, workload: &Distinct) -> Result<f64, ModelError> {
    if !(rate > 0.0 && rate <= 1.0) {
        return Err(ModelError::invalid("allow_fn", rate, "0 < allow_fn <= 1"));
    }
    if w == 0 {
        return Err(ModelError::invalid("window", 0, "window >= 1"));
    }
    let wf = w as f64;
    let dw = workload.d(wf);
    let integral = wf * mean(wf, &|a| workload.d(a));
    Ok(((wf * dw - integral) / (rate * dw)).max(wf))
}

/// The midpoint-rule mean of `f` over `[0, span]` at [`POINTS`] points.
fn mean(span: f64, f: &dyn Fn(f64) -> f64) -> f64 {
    (0..POINTS)
        .map(|i| f((f64::from(i) + 0.5) * span / f64::from(POINTS)))
        .sum::<f64>()
        / f64::from(POINTS)
}

/// `p` (two phases) on a stream with `workload`'s `D(·)` (fluid law).
///
/// # Errors
/// `p` with one phase (named `phases`); a `D(·)` that never reaches the `L` new messages of
/// a cycle within 2^60 arrivals (named `workload`); the fluid model's errors.
pub fn two_phase_on(p: &RbfParams, workload: &Distinct) -> Result<RbfStreamMetrics, ModelError> {
    if p.phases() != 2 {
        return Err(ModelError::invalid("phases", p.phases(), "2"));
    }
    on_stream(p, workload)
}

/// `p` (one phase) on a stream with `workload`'s `D(·)` (fluid law): the module formula
/// with `ρ_F = 0`.
///
/// # Errors
/// `p` with two phases (named `phases`); as [`two_phase_on`] otherwise.
pub fn one_phase_on(p: &RbfParams, workload: &Distinct) -> Result<RbfStreamMetrics, ModelError> {
    if p.phases() != 1 {
        return Err(ModelError::invalid("phases", p.phases(), "1"));
    }
    on_stream(p, workload)
}

/// `p` (either number of phases) on a stream with `D(·)`: the module formula.
fn on_stream(p: &RbfParams, workload: &Distinct) -> Result<RbfStreamMetrics, ModelError> {
    let metrics = p.metrics(Method::Fluid)?;
    let fp_frozen = metrics.fp_frozen.unwrap_or(0.0);
    let l = metrics.expected_messages;
    let s = inverse(workload, l).ok_or_else(|| {
        ModelError::invalid(
            "workload",
            format!("D(2^60) = {:.3e}", workload.d((1u64 << 60) as f64)),
            format!("a D(·) reaching the {l:.0} new messages of a cycle"),
        )
    })?;
    let c = -pow1m(1.0 / p.m() as f64, f64::from(p.k())) + 1.0;
    let h = |n: f64| (-pow1m(c, n) + 1.0).powi(p.k() as i32);
    let per_message = mean(l, &|n| h(n));
    let per_arrival = mean(s, &|t| h(workload.d(t)));
    // f_σ¹ of the fluid law, from Eq. (26) = either(f_σ¹, ρ_F).
    let active = (metrics.fp_avg - fp_frozen) / (1.0 - fp_frozen);
    let ratio = if per_message > 0.0 {
        per_arrival / per_message
    } else {
        1.0
    };
    Ok(RbfStreamMetrics {
        phases: p.phases(),
        fp: probability(either(probability(active * ratio), fp_frozen)),
        fp_per_message: metrics.fp_avg,
        messages: l,
        arrivals: s,
    })
}

/// The least `S` with `D(S) >= l` (bisection on the real line), if within 2^60.
fn inverse(workload: &Distinct, l: f64) -> Option<f64> {
    let (mut lo, mut hi) = (0.0f64, l.max(1.0));
    while workload.d(hi) < l {
        lo = hi;
        hi *= 2.0;
        if hi > (1u64 << 60) as f64 {
            return None;
        }
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if workload.d(mid) < l {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-9 * hi {
            break;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rbf::{Hashing, Recycling};

    fn params() -> RbfParams {
        RbfParams::new(
            2 * 40_000,
            5,
            12_000,
            2,
            Hashing::Colliding,
            Recycling::NonRetaining,
        )
        .unwrap()
    }

    /// On a distinct stream the per-arrival FP is Eq. (26) and a cycle spans its
    /// messages.
    #[test]
    fn distinct_stream_is_eq_26() {
        let p = params();
        let x = two_phase_on(&p, &Distinct::Identity).unwrap();
        assert!((x.fp - x.fp_per_message).abs() <= 1e-12 * x.fp, "{x:?}");
        assert!(
            (x.arrivals - x.messages).abs() <= 1e-6 * x.messages,
            "{x:?}"
        );
    }

    /// On a repeating stream a cycle spans more arrivals than messages, and the fuller
    /// states last longer: the per-arrival FP is above Eq. (26).
    #[test]
    fn repeats_raise_the_per_arrival_fp() {
        let p = params();
        let x = two_phase_on(&p, &Distinct::zipf_tabulated(1_000_000)).unwrap();
        assert!(x.arrivals > 1.5 * x.messages, "{x:?}");
        assert!(x.fp > x.fp_per_message, "{x:?}");
        assert_eq!(x.report_at_age(x.arrivals), 1.0);
        assert!((x.report_at_age(1.5 * x.arrivals) - either(0.5, x.fp)).abs() < 1e-12);
        assert_eq!(x.report_at_age(3.0 * x.arrivals), x.fp);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// On any concave `D(·)` (here Uniform over `u` items, which saturates) the
        /// per-arrival FP is a probability at least Eq. (26): `τ = D⁻¹(n)` weights the
        /// states by `1/D'`, which grows with `n` as the FP does (Chebyshev's sum
        /// inequality). A `D(·)` that never reaches a cycle's messages is an error naming
        /// `workload`.
        #[test]
        fn per_arrival_fp_is_at_least_eq_26(
            m in 100u64..1_000_000, k in 1u32..9, frac in 0.05f64..0.9, u in 2u64..10_000_000,
        ) {
            let sigma = (u64::from(k) + 1).max((m as f64 * frac) as u64);
            proptest::prop_assume!(sigma < m);
            let p = RbfParams::new(2 * m, k, sigma, 2, Hashing::Colliding, Recycling::NonRetaining)
                .unwrap();
            match two_phase_on(&p, &Distinct::Uniform { universe: u }) {
                Ok(x) => {
                    proptest::prop_assert!((0.0..=1.0).contains(&x.fp), "{x:?}");
                    proptest::prop_assert!(x.fp >= x.fp_per_message * (1.0 - 1e-9), "{x:?}");
                    proptest::prop_assert!(x.arrivals >= x.messages * (1.0 - 1e-9), "{x:?}");
                    let d = x.dropped_per_arrival();
                    proptest::prop_assert!(d > 0.0 && d <= 1.0);
                }
                Err(e) => proptest::prop_assert!(e.to_string().contains("workload"), "{e}"),
            }
        }
    }

    fn one_phase(m: u64, k: u32, sigma: u64) -> RbfParams {
        RbfParams::new(m, k, sigma, 1, Hashing::Colliding, Recycling::NonRetaining).unwrap()
    }

    /// On a distinct stream the one-phase filter is the count-instance model: FP per
    /// arrival Eq. (26), and the window FN `w/(2S)`, so the cycle for an allowance is
    /// `w/(2·rate)`.
    #[test]
    fn one_phase_on_a_distinct_stream_is_the_count_instance() {
        let p = one_phase(80_000, 5, 40_000);
        let x = one_phase_on(&p, &Distinct::Identity).unwrap();
        assert_eq!(x.phases, 1);
        assert!((x.fp - x.fp_per_message).abs() <= 1e-12 * x.fp, "{x:?}");
        let w = (x.arrivals / 4.0) as u64;
        let fneg = x.window_fn(w, &Distinct::Identity);
        let expected = w as f64 / (2.0 * x.arrivals);
        assert!(
            (fneg - expected).abs() <= 1e-6 * expected,
            "{fneg} vs {expected}"
        );
        let s = one_phase_cycle_on(10_000, 0.05, &Distinct::Identity).unwrap();
        assert!((s - 100_000.0).abs() <= 1e-6 * s, "{s}");
        assert_eq!(
            one_phase_cycle_on(10_000, 0.9, &Distinct::Identity).unwrap(),
            10_000.0
        );
        assert!(one_phase_cycle_on(10_000, 0.0, &Distinct::Identity)
            .unwrap_err()
            .to_string()
            .contains("allow_fn"));
        assert!(two_phase_on(&p, &Distinct::Identity).is_err());
    }

    /// On a repeating stream the window FN is the sum over the window's distinct items
    /// of their chance to be forgotten, `Σ_a (D(a+1) − D(a))·g(a + 1/2)`, and the cycle
    /// [`one_phase_cycle_on`] picks for an allowance meets it exactly; it is shorter than
    /// the distinct stream's, since a Zipf window's items are mostly recent. A one-phase
    /// filter forgets an item at its first recycle, a two-phase one at its second.
    #[test]
    fn one_phase_window_fn_on_a_repeating_stream() {
        let zipf = Distinct::zipf_tabulated(1_000_000);
        let x = one_phase_on(&one_phase(200_000, 4, 100_000), &zipf).unwrap();
        assert!(x.arrivals > 1.5 * x.messages, "{x:?}");
        assert!(x.fp > x.fp_per_message, "{x:?}");
        for w in [(x.arrivals / 3.0) as u64, (2.0 * x.arrivals) as u64] {
            let direct: f64 = (0..w)
                .map(|a| {
                    (zipf.d(a as f64 + 1.0) - zipf.d(a as f64)) * x.forgotten_at_age(a as f64 + 0.5)
                })
                .sum::<f64>()
                / zipf.d(w as f64);
            let got = x.window_fn(w, &zipf);
            assert!(
                (got - direct).abs() <= 1e-4 * direct,
                "w={w}: {got} vs {direct}"
            );
        }
        let (w, rate) = (10_000u64, 0.05);
        let s = one_phase_cycle_on(w, rate, &zipf).unwrap();
        assert!(s < w as f64 / (2.0 * rate), "{s}");
        let at = RbfStreamMetrics { arrivals: s, ..x };
        assert!(
            (at.window_fn(w, &zipf) - rate).abs() <= 1e-9,
            "{}",
            at.window_fn(w, &zipf)
        );
        assert_eq!(x.report_at_age(0.0), 1.0);
        assert!((x.report_at_age(0.25 * x.arrivals) - either(0.75, x.fp)).abs() < 1e-12);
        assert_eq!(x.report_at_age(x.arrivals), x.fp);
        let two = two_phase_on(&params(), &zipf).unwrap();
        assert_eq!(two.forgotten_at_age(two.arrivals), 0.0);
        assert_eq!(two.window_fn((two.arrivals) as u64, &zipf), 0.0);
    }

    #[test]
    fn one_phase_is_refused() {
        let p =
            RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::NonRetaining).unwrap();
        let e = two_phase_on(&p, &Distinct::Identity).unwrap_err();
        assert!(e.to_string().contains("phases"), "{e}");
    }
}
