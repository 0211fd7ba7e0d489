//! The inferential BTBF's posterior and expected age (Eqs. (8), (22)-(27) [TBF]).

use super::hp::{self, f, one, powu, u, zero, F, REL};
use bfopt_models::timing::btbf::{BtbfModel, BtbfObservation, BtbfParams, TimerAge};
use bfopt_models::timing::prior::Distinct;
use proptest::prelude::*;

/// `Σ_{α<=i<β} s^i` and `Σ_{α<=i<β} i·s^i` (`β = None`: to infinity), from
/// `Σ_{i>=α} s^i = s^α/(1−s)` and `Σ_{i>=α} i s^i = s^α (α/(1−s) + s/(1−s)²)`.
fn geometric(s: &F, alpha: u64, beta: Option<u64>) -> (F, F) {
    let tail = |a: u64| -> (F, F) {
        let sa = powu(s, a);
        let d = one() - s;
        let first = &sa / &d;
        let second = &sa * (u(a) / &d + s / (&d * &d));
        (first, second)
    };
    let (a0, a1) = tail(alpha);
    match beta {
        None => (a0, a1),
        Some(b) => {
            let (b0, b1) = tail(b);
            (a0 - b0, a1 - b1)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Posterior `Σ_{i<w} s^i L(i) / Σ_i s^i L(i)` and expected age `Σ i s^i L(i) / Σ s^i
    /// L(i)` over the piecewise-constant likelihood of Eqs. (22) and (24) [TBF] with
    /// `G = F(c, 0, B)·F(r, c, a)` (Eq. (25), `D(j) = j`), every piece summed in closed
    /// form at 256 bits.
    #[test]
    fn posterior_and_expected_age_to_1e12(
        m in (1.0f64..40.0).prop_map(|e| 2f64.powf(e) as u64 + 1),
        k in 1u32..=64,
        w in (0.0f64..30.0).prop_map(|e| 2f64.powf(e) as u64 + 1),
        b_frac in 0.0f64..1.0,
        obs in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        px in (0.0f64..12.0).prop_map(|e| 10f64.powf(-e)),
    ) {
        let block = ((w as f64).powf(b_frac) as u64).clamp(1, w);
        let needed = w / block + 4;
        let bpt = (64 - needed.leading_zeros()).clamp(2, 32);
        let params = BtbfParams::new(m, k, bpt, block, w, 0).unwrap();
        let model = BtbfModel::new(params, Distinct::Identity);
        let offset = (obs.0 * block as f64) as u64 % block;
        let expiry = params.expiry_age(offset);
        let lambda = (obs.1 * (expiry + 2) as f64) as u64;
        let r = 1 + (obs.2 * f64::from(k)) as u32 % k;
        let c = 1 + (obs.3 * f64::from(r)) as u32 % r;
        let age = if lambda > expiry { TimerAge::Expired } else { TimerAge::Finite(lambda) };
        let o = BtbfObservation { age, matching: c, touched: r, offset };
        let (Ok(post), Ok(mean)) = (model.posterior(px, &o), model.expected_age(px, &o)) else {
            return Ok(());
        };
        let what = || format!("m={m} k={k} B={block} w={w} b={offset} {age:?} c={c} r={r} px={px:e}");
        // (1 − 1/m)^(k·j): a timer untouched by j insertions.
        let keep = one() - one() / u(m);
        let touched = |j: u64| one() - powu(&keep, u64::from(k) * j);
        let untouched = |j: u64| powu(&keep, u64::from(k) * j);
        // Pieces (start, level) of L(i).
        let pieces: Vec<(u64, F)> = match age {
            TimerAge::Expired => vec![(0, zero()), (w, one())],
            TimerAge::Finite(0) => vec![(0, one()), (offset, powu(&touched(offset), u64::from(r)))],
            TimerAge::Finite(l) => {
                let a = (l - 1) * block + offset;
                let f_rca = powu(&untouched(a), u64::from(c)) * powu(&touched(a), u64::from(r - c));
                let g = powu(&touched(block), u64::from(c)) * &f_rca;
                vec![(0, zero()), (a, f_rca), (a + block, g)]
            }
        };
        let s = one() - f(px);
        let (mut inside, mut all, mut moment) = (zero(), zero(), zero());
        for (idx, (start, level)) in pieces.iter().enumerate() {
            let end = pieces.get(idx + 1).map(|p| p.0);
            let (g0, g1) = geometric(&s, *start, end);
            all += level * &g0;
            moment += level * g1;
            // The part below w.
            if *start < w {
                let (h0, _) = geometric(&s, *start, Some(end.map_or(w, |e| e.min(w))));
                inside += level * h0;
            }
        }
        hp::record("btbf posterior", what, post, &(inside / &all), REL);
        hp::record("btbf expected age", what, mean, &(moment / all), REL);
    }
}
