//! The GBF's closed forms and posterior sums (Eqs. (28)-(34) [TBF]).

use super::hp::{self, powu, wide, wide_u, F, REL};
use bfopt_models::gbf::{posterior, GbfObservation, GbfParams};
use proptest::prelude::*;

/// `q0, q1, q_ε` of Eqs. (28)-(30) [TBF] at [`hp::PREC_WIDE`] bits.
fn qs(m: u64, k0: u32, k1: u32) -> (F, F, F) {
    let one = wide_u(1);
    let keep = &one - &one / wide_u(m);
    let q0 = &one - powu(&keep, u64::from(k0));
    let q1 = (&one - powu(&keep, u64::from(k1))) * powu(&keep, u64::from(k0));
    let qe = powu(&keep, u64::from(k0 + k1));
    (q0, q1, qe)
}

/// `Π_j (a_j + b_j t)^(n_j)` expanded in powers of `t`.
fn expand(factors: &[(F, F, u32)]) -> Vec<F> {
    let mut c = vec![wide_u(1)];
    for (a, b, n) in factors {
        for _ in 0..*n {
            let mut next = vec![wide_u(0); c.len() + 1];
            for (s, v) in c.iter().enumerate() {
                next[s] += a * v;
                next[s + 1] += b * v;
            }
            c = next;
        }
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// The posterior `P(I_x < w | R_x)` with the exact likelihood of Eq. (32) [TBF]:
    /// `Σ_{i<w} s^i L(q_ε^i) / Σ_i s^i L(q_ε^i)` with `L` expanded and each power of `t`
    /// summed as a geometric series, at 2048 bits (the expansion cancels by up to 2^555,
    /// which is why the production cannot use it in `f64`); and the standard GBF's
    /// `Pos(i)` and `Pos(∞)`.
    #[test]
    fn posterior_and_positive_rates_to_1e12(
        m in (6.0f64..40.0).prop_map(|e| 2f64.powf(e) as u64),
        k0 in 1u32..=64, k1 in 1u32..=64,
        obs in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        px in (0.0f64..12.0).prop_map(|e| 10f64.powf(-e)),
        w in (0.0f64..40.0).prop_map(|e| 2f64.powf(e) as u64 + 1),
        age in 0u64..1 << 40,
    ) {
        prop_assume!(px < 1.0);
        let r0 = 1 + (obs.0 * f64::from(k0)) as u32 % k0;
        let r1 = 1 + (obs.1 * f64::from(k1)) as u32 % k1;
        let c0 = (obs.2 * f64::from(r0 + 1)) as u32 % (r0 + 1);
        let c1 = (obs.3 * f64::from(r1 + 1)) as u32 % (r1 + 1);
        check(m, k0, k1, GbfObservation { c0, r0, c1, r1 }, px, w, age);
    }
}

/// Every positive rate and the posterior of one observation against 2048 bits.
fn check(m: u64, k0: u32, k1: u32, o: GbfObservation, px: f64, w: u64, age: u64) {
    let params = GbfParams::new(m, k0, k1).unwrap();
    let what = || format!("m={m} k0={k0} k1={k1} {o:?} px={px:e} w={w}");
    let GbfObservation { c0, r0, c1, r1 } = o;
    let (q0, q1, qe) = qs(m, k0, k1);
    let one = wide_u(1);
    let pi0 = &q0 / (&q0 + &q1);
    let pi1 = &one - &pi0;
    // Pos(i) = (π0 + π1 t)^k0 (π1 + π0 t)^k1, t = q_ε^i; Pos(∞) = π0^k0 π1^k1.
    let t = powu(&qe, age);
    let pos = powu(&(&pi0 + &pi1 * &t), u64::from(k0)) * powu(&(&pi1 + &pi0 * &t), u64::from(k1));
    hp::record(
        "gbf pos(i)",
        || format!("{} i={age}", what()),
        params.positive_at_age(age),
        &pos,
        REL,
    );
    let never = powu(&pi0, u64::from(k0)) * powu(&pi1, u64::from(k1));
    hp::record("gbf pos(never)", what, params.positive_never(), &never, REL);
    // Eq. (32): f0(1,i)^c0 (1 − f0(1,i))^(r0−c0) (1 − f0(0,i))^c1 f0(0,i)^(r1−c1).
    let lik = expand(&[
        (pi0.clone(), pi1.clone(), c0),
        (pi1.clone(), -pi1.clone(), r0 - c0),
        (pi1.clone(), pi0.clone(), c1),
        (pi0.clone(), -pi0.clone(), r1 - c1),
    ]);
    let s = &one - wide(px);
    let (mut num, mut den) = (wide_u(0), wide_u(0));
    for (j, c) in lik.iter().enumerate() {
        let x = &s * powu(&qe, j as u64);
        let tail = &one - &x;
        num += c * (&one - powu(&x, w)) / &tail;
        den += c / tail;
    }
    let Ok(got) = posterior(&params, &o, px, w) else {
        return;
    };
    // Every route holds 1e-12: Eq. (34) in double where well conditioned, ages summed one
    // by one where the head is short, Eq. (34) in extended precision otherwise (the
    // pieces, 1e-6, are only a last resort when 8192 bits do not suffice).
    hp::record("gbf posterior", what, got, &(num / den), REL);
}

/// Found by CI's random seed on 2026-11-25: Eq. (34) in `f64` was accepted at a
/// condition number of 4e3, which with 37 factors leaves 4.7e-11 relative.
#[test]
fn well_conditioned_eq34_still_holds_1e12() {
    let o = |c0, r0, c1, r1| GbfObservation { c0, r0, c1, r1 };
    check(
        64,
        39,
        62,
        o(3, 14, 23, 23),
        1.4411558337371605e-9,
        12564,
        0,
    );
    check(
        64,
        29,
        62,
        o(0, 10, 23, 23),
        1.4411558337371605e-9,
        12564,
        0,
    );
}
