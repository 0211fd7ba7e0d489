//! The two-phase RBF on a stream with `D(·)` (expected distinct items in `L` consecutive
//! arrivals, [`crate::workload`]), such as a user's trace.
//!
//! # New messages
//! The RBF's cycle is counted in *new messages*: arrivals that set bits in the active
//! filter (Section III [RBF]). A two-phase filter inserts every arrival into the active
//! filter, so an arrival is new exactly when its item has not arrived since the active
//! filter's cycle began: a cycle spanning `S` arrivals takes `D(S)` new messages, and a
//! window of `W` arrivals brings about `D(W)` of them. (A linear rate, `W` times the
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
//! `ρ_F` (the frozen filter) is constant over the cycle.
//!
//! A non-retaining filter drops the message that overflows a cycle: on a repeating
//! stream that item is missed if it returns within the window
//! ([`RbfStreamMetrics::dropped_per_arrival`]).
//!
//! An item last seen `a` arrivals ago is still held while the second recycle after its
//! arrival has not come: surely for `a <= S`, and with probability `(2S − a)/S` for
//! `S < a < 2S` at a uniform phase of its arrival in its cycle.

use super::{Method, RbfParams};
use crate::error::ModelError;
use crate::numeric::{either, pow1m, probability};
use crate::workload::Distinct;
use serde::Serialize;

/// Quadrature points of the two cycle averages.
const POINTS: u32 = 2048;

/// The two-phase RBF on a stream with `D(·)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfStreamMetrics {
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

    /// Probability that an item last seen `a` arrivals ago is reported: held surely for
    /// `a <= S`, with probability `(2S − a)/S` up to `2S`, and at [`Self::fp`] otherwise.
    pub fn report_at_age(&self, a: f64) -> f64 {
        let s = self.arrivals;
        let held = if a <= s {
            1.0
        } else {
            ((2.0 * s - a) / s).clamp(0.0, 1.0)
        };
        either(held, self.fp)
    }
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
    let mean = |span: f64, f: &dyn Fn(f64) -> f64| {
        (0..POINTS)
            .map(|i| f((f64::from(i) + 0.5) * span / f64::from(POINTS)))
            .sum::<f64>()
            / f64::from(POINTS)
    };
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

    #[test]
    fn one_phase_is_refused() {
        let p =
            RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::NonRetaining).unwrap();
        let e = two_phase_on(&p, &Distinct::Identity).unwrap_err();
        assert!(e.to_string().contains("phases"), "{e}");
    }
}
