//! The spread of a live filter's zero count at its stable point: `Var Z`, the variance
//! an audit of the zero cells needs (issue 22).
//!
//! Cells are not independent, so the binomial `m·π0(1 − π0)` is wrong both ways: `P`
//! distinct random decrements and `K` distinct set cells make cells negatively
//! correlated (an audit band too wide), a run of `P` consecutive decrements (Deng and
//! Rafiei's implementation) positively correlated for neighbours (too narrow); a global
//! policy, which decrements exactly `P` non-zero cells per insertion, ties every cell to
//! every other. Two derivations, each exact for what it covers:
//!
//! # Two-cell chains (random deletion: SBF, IBF1)
//! ```text
//! Var Z = m·π0(1 − π0) + m·Σ_{d=1..m−1} (π00(q2(d)) − π0²)
//! q2(d) = P(P − 1)/(m(m − 1))                          (distinct decrements)
//! q2(d) = (max(0, P − d) + max(0, P − (m − d)))/m      (a run of P from a random start)
//! a2    = K(K − 1)/(m(m − 1))                          (K distinct set cells)
//! ```
//! `π00` is the stationary probability that two given cells are both zero: the law of
//! the pair under the one-cell chain's moves, per step both cells decremented with
//! probability `q2`, one given cell with `P/m`, both set (by one item, so to the values of
//! one importance) with `a2`, one with `K/m`; solved by GTH for each class of pair
//! distances.
//!
//! # Linear noise (every policy with exchangeable deletions)
//! The filter is the vector `N` of cells per state of the one-cell chain. One insertion
//! moves it by its mean map `F(N)` plus a noise of covariance `D`; at the stable point the
//! stationary covariance solves the Lyapunov equation `Σ = J·Σ·Jᵀ + D`, `J = ∂F/∂N`
//! (van Kampen's linear-noise approximation), so
//! ```text
//! Var Z = Σ_{t≥0} u_tᵀ·D·u_t,     u_0 = e_0,  u_{t+1} = Jᵀ·u_t
//! D     = J_set·D_del·J_setᵀ + D_set
//! D_set: K cells drawn without replacement from the post-deletion law y, set to the
//!        values of one importance j ~ w:  K·(m − K)/(m − 1)·Σ_j w_j·Var_y(g_j) + K²·Var_w(E_y g_j)
//! D_del: random deletion: P cells without replacement from π,  P·(m − P)/(m − 1)·Var_π(δ)
//!        probabilistic deletion: P picks of non-zero cells with p_s ∝ π_s·d_s,  P·Var_p(δ)
//!        MinImp: m·(Σ_s r_s·δ_s² − (Σ_s r_s·δ_s)²/Σ_s r_s),  r_s = π_s·d_s·(1 − d_s)
//! Jᵀ    = the chain's backward step, and for probabilistic deletion minus
//!         d·(P/W²)·Σ_s N_s·d_s·δ_s (the picks renormalise: a cell more in one state means
//!         fewer picks elsewhere); for MinImp minus d·Σ_s r_s·δ_s/Σ_s r_s
//! ```
//! with `g_j(s) = u(set_j(s)) − u(s)`, `δ(s) = v(down(s)) − v(s)` for `v = J_setᵀ·u`, `d_s`
//! the chain's decrement probability of state `s` and `W = Σ_s N_s·d_s` (`= P`). For
//! random deletion of distinct cells the process is linear in `N` and this agrees with
//! the two-cell chains to `O(1/m)` (a unit test). For the global policies it is the
//! mean-field model's own linearisation.
//!
//! MinImp (Alg. 7 [SBF]) decrements the `P` non-zero cells of least counter: given the
//! filter, every cell below the served counter is decremented and every cell above it
//! is not; only the cells at the margin, tied at the served counter, are picked at
//! random. With the chain's level law `d_s` the margin has weight `r_s = π_s·d_s·(1 − d_s)`
//! (zero where `d_s` is 0 or 1): the picks are Bernoulli(`d_s`) given their total (the
//! noise above), and a cell more in state `s` takes its `d_s` picks from the margin (the
//! Jacobian above). Where one level is marginal (the threshold limit of saturating
//! counters, [`super::minimp`]) this is the exact linearisation of the least-counter
//! rule: `P − N_below` cells drawn from the `N_C` cells at the cap.
//!
//! # Accuracy
//! Measured by `tests/agreement/audit.rs` (m = 512, K = 4, Max = 5, P = 5, importance
//! 1..50): reference filters at their stable point fall within the 95% band in 92-98% of
//! 1000 seeded trials for every policy with 4-bit counters (MinImp: ibf2 0.938, variance
//! ratio measured/model 1.077; ibf4 0.950, 0.962). MinImp whose counters no insertion
//! saturates (8-bit counters: the rank map of [`super::minimp`]) is not calibrated: the
//! measured variance is 0.51 of the model's for ibf2 (0.995 within the band) after 6000
//! insertions, 0.49 after 24000, and the deletion noise is only 1% of the model's
//! variance there, so the error is in the linearised relaxation of the rank map's chain,
//! not in the picks. [`ZeroVariance::LinearNoiseBound`] names that band a bound; the CLI
//! replaces it (and IBF4's binomial fallback) by a band measured on a seeded reference
//! filter ([`ZeroVariance::Simulated`], bfopt-validation's `experiments::stable_spread`)
//! while that simulation is small.

use super::chain::CellChain;
use super::{Decrements, Delete};
use crate::markov::stationary_gth;
use nalgebra::DMatrix;
use serde::Serialize;

/// How the variance of the zero count was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZeroVariance {
    /// From the two-cell chains (exact for the model's cells, random deletion).
    PairChain,
    /// The linear-noise approximation of the whole filter's chain.
    LinearNoise,
    /// The linear noise of MinImp whose counters no insertion saturates (the rank map):
    /// an upper bound, not calibrated (the CLI measures [`Self::Simulated`] instead
    /// while the simulation is small). Measured at m = 512, 8-bit counters: the variance
    /// of the zero count is 0.49-0.51 of this one (IBF2), so the band is about 1.4 times
    /// too wide (module doc, "Accuracy").
    LinearNoiseBound,
    /// Binomial, cells taken as independent: the exact methods beyond their work limit.
    /// Not calibrated (cells are correlated).
    Binomial,
    /// Measured on reference filters run at the audited parameters (seeded, a fixed
    /// number of insertions): the mean squared distance of their zero count from the
    /// model's stable point, its Monte-Carlo error folded into the band. Used where the
    /// linear noise is a bound or beyond its work limit (MinImp whose counters no
    /// insertion saturates); supplied by the caller
    /// ([`super::IbfOccupancy::with_simulated_variance`]).
    Simulated,
}

impl ZeroVariance {
    /// Whether a 95% band with this variance was measured to hold 92-98% of filters at
    /// their stable point (module doc, "Accuracy"): not for [`Self::LinearNoiseBound`]
    /// and [`Self::Binomial`].
    pub fn is_calibrated(self) -> bool {
        !matches!(self, Self::LinearNoiseBound | Self::Binomial)
    }
}

/// Largest work `(classes of pairs)·(states²)³` spent on the two-cell chains.
const PAIR_WORK: f64 = 2e8;

/// Largest work `steps·(states + levels·|sets|)` spent on the linear-noise sum.
const NOISE_WORK: f64 = 4e9;

/// `(P(both zero), P(first zero))` at stationarity for two given cells of a random-delete
/// `chain`, each decremented with probability `q`, both with `q2`, both set by one item
/// with `a2`.
fn pair_zero(chain: &CellChain, q: f64, q2: f64, a2: f64) -> Option<(f64, f64)> {
    let a = chain.a;
    let n = chain.states();
    let dec = [
        (true, true, q2),
        (true, false, q - q2),
        (false, true, q - q2),
        (false, false, 1.0 - 2.0 * q + q2),
    ];
    let mut t = DMatrix::zeros(n * n, n * n);
    for i in 0..n {
        for j in 0..n {
            let from = i * n + j;
            for (d1, d2, pd) in dec {
                if pd <= 0.0 {
                    continue;
                }
                let i2 = if d1 { chain.down(i) } else { i };
                let j2 = if d2 { chain.down(j) } else { j };
                t[(from, i2 * n + j2)] += pd * (1.0 - 2.0 * a + a2);
                for &(v, imp, w) in &chain.sets {
                    let (si, sj) = (chain.set_target(i2, v, imp), chain.set_target(j2, v, imp));
                    t[(from, si * n + sj)] += pd * a2 * w;
                    t[(from, si * n + j2)] += pd * (a - a2) * w;
                    t[(from, i2 * n + sj)] += pd * (a - a2) * w;
                }
            }
        }
    }
    let pi = stationary_gth(&t).ok()?;
    let first: f64 = (0..n).map(|j| pi[j]).sum();
    Some((pi[0], first))
}

/// `Var Z` at the stable point of a random-delete `chain` of `m` cells (`K` set cells,
/// `P` decrements) from the two-cell chains, or `None` beyond the work limit.
pub(crate) fn pair_variance(
    chain: &CellChain,
    m: u64,
    k: u32,
    p: u64,
    decrements: Decrements,
) -> Option<f64> {
    let mf = m as f64;
    let pairs = mf * (mf - 1.0);
    let a2 = f64::from(k) * (f64::from(k) - 1.0) / pairs;
    let states = (chain.states() as f64).powi(2);
    let near = p.min(m - 1);
    let most_classes = match decrements {
        Decrements::Distinct => 1.0,
        Decrements::Consecutive => near as f64 + 2.0,
    };
    if most_classes * states.powi(3) > PAIR_WORK {
        return None;
    }
    // (q2, number of partners d with it)
    let classes: Vec<(f64, f64)> = match decrements {
        Decrements::Distinct => vec![(p as f64 * (p as f64 - 1.0) / pairs, mf - 1.0)],
        Decrements::Consecutive => {
            let mut by_q: std::collections::BTreeMap<u64, u64> = Default::default();
            let covering = |d: u64| p.saturating_sub(d) + p.saturating_sub(m - d);
            for d in (1..=near).chain((m - near).max(near + 1)..m) {
                *by_q.entry(covering(d)).or_default() += 1;
            }
            let counted: u64 = by_q.values().sum();
            *by_q.entry(0).or_default() += (m - 1).saturating_sub(counted);
            by_q.into_iter()
                .filter(|&(_, c)| c > 0)
                .map(|(cov, c)| (cov as f64 / mf, c as f64))
                .collect()
        }
    };
    let q = p as f64 / mf;
    let mut cov = 0.0;
    let mut pi0 = 0.0;
    for (q2, count) in classes {
        let (both, first) = pair_zero(chain, q, q2, a2)?;
        pi0 = first;
        cov += count * (both - first * first);
    }
    Some((mf * pi0 * (1.0 - pi0) + mf * cov).max(0.0))
}

/// How the deletion phase picks its `P` cells, as the linear noise sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Picks {
    /// `P` distinct cells uniformly among all `m` (random deletion).
    Uniform,
    /// `P` picks among the non-zero cells with probabilities `∝ d_s` (probabilistic
    /// deletion).
    Weighted,
    /// The `P` non-zero cells of least rank (MinImp): a cell is decremented with its
    /// level's probability `d_s`; only the marginal cells, weight `d_s·(1 − d_s)`, are
    /// random and give way to a cell of lower rank.
    Ranked,
}

impl Picks {
    /// The picks of a deletion scheme.
    pub(crate) fn of(delete: Delete) -> Self {
        match delete {
            Delete::Random => Picks::Uniform,
            Delete::ProbCumulative | Delete::ProbValue => Picks::Weighted,
            Delete::MinImp => Picks::Ranked,
        }
    }
}

/// `Var Z` at the stable point `pi` of `chain` (`m` cells, `K` set cells, `P`
/// decrements) by the linear-noise approximation, or `None` beyond the work limit;
/// `picks` says how the deletion phase chooses its cells (module doc).
pub(crate) fn noise_variance(
    chain: &CellChain,
    pi: &[f64],
    m: u64,
    k: u32,
    p: u64,
    picks: Picks,
) -> Option<f64> {
    let n = chain.states();
    let (mf, kf, pf) = (m as f64, f64::from(k), p as f64);
    let a = chain.a;
    let level = |s: usize| chain.decode(s).1 as usize;
    let levels = chain.cap as usize + 1;
    // Where set j takes a cell of level c (the target depends on the level only).
    let rep = |c: usize| {
        if c == 0 {
            0
        } else {
            chain.encode(1, c as u32)
        }
    };
    let sets = &chain.sets;
    let target: Vec<Vec<usize>> = (0..levels)
        .map(|c| {
            sets.iter()
                .map(|&(v, imp, _)| chain.set_target(rep(c), v, imp))
                .collect()
        })
        .collect();
    let down: Vec<usize> = (0..n).map(|s| chain.down(s)).collect();
    let y = chain.after_deletion(pi);
    let mut y_level = vec![0.0; levels];
    for (s, &ys) in y.iter().enumerate() {
        y_level[level(s)] += ys;
    }
    let fpc = |draws: f64| {
        if mf > 1.0 {
            (mf - draws) / (mf - 1.0)
        } else {
            0.0
        }
    };
    let (fpc_k, fpc_p) = (fpc(kf), fpc(pf));
    let pd: f64 = pi.iter().zip(&chain.dec).map(|(x, d)| x * d).sum();
    let w_total = mf * pd;
    if picks != Picks::Uniform && w_total <= 0.0 {
        return Some(0.0);
    }
    let weights_of_picks: Vec<f64> = pi.iter().zip(&chain.dec).map(|(x, d)| x * d / pd).collect();
    // MinImp's marginal cells: r_s = π_s·d_s·(1 − d_s), total `r_total`.
    let marginal: Vec<f64> = pi
        .iter()
        .zip(&chain.dec)
        .map(|(x, d)| x * d * (1.0 - d).max(0.0))
        .collect();
    let r_total: f64 = marginal.iter().sum();
    let per_step = n as f64 + (levels * sets.len()) as f64;
    let max_steps = (NOISE_WORK / per_step) as u64;
    let var_of = |prob: &[f64], x: &[f64]| {
        let (mut s1, mut s2) = (0.0, 0.0);
        for (p, x) in prob.iter().zip(x) {
            s1 += p * x;
            s2 += p * x * x;
        }
        (s2 - s1 * s1).max(0.0)
    };
    let mut u = vec![0.0; n];
    u[0] = 1.0;
    let (mut v, mut e) = (vec![0.0; n], vec![0.0; n]);
    let mut g = vec![0.0; levels];
    let mut uy_level = vec![0.0; levels];
    let mut means = vec![0.0; sets.len()];
    let mut total = 0.0;
    for step in 0..max_steps {
        // Set phase: v = J_setᵀ·u and its noise on u.
        uy_level.iter_mut().for_each(|x| *x = 0.0);
        let mut yuu = 0.0;
        for s in 0..n {
            uy_level[level(s)] += y[s] * u[s];
            yuu += y[s] * u[s] * u[s];
        }
        let yu: f64 = uy_level.iter().sum();
        let mut within = 0.0;
        for (j, &(_, _, w)) in sets.iter().enumerate() {
            let (mut mean, mut second) = (-yu, yuu);
            for c in 0..levels {
                let ut = u[target[c][j]];
                mean += y_level[c] * ut;
                second += y_level[c] * ut * ut - 2.0 * ut * uy_level[c];
            }
            means[j] = mean;
            within += w * (second - mean * mean).max(0.0);
        }
        let weights: Vec<f64> = sets.iter().map(|s| s.2).collect();
        let var_set = kf * fpc_k * within + kf * kf * var_of(&weights, &means);
        for (c, gc) in g.iter_mut().enumerate() {
            *gc = sets
                .iter()
                .zip(&target[c])
                .map(|(&(_, _, w), &t)| w * u[t])
                .sum();
        }
        for s in 0..n {
            v[s] = (1.0 - a) * u[s] + a * g[level(s)];
        }
        // Deletion phase: its noise on v, and u' = J_delᵀ·v.
        for s in 0..n {
            e[s] = v[down[s]] - v[s];
        }
        let var_del = match picks {
            Picks::Uniform => pf * fpc_p * var_of(pi, &e),
            Picks::Weighted => pf * var_of(&weights_of_picks, &e),
            Picks::Ranked if r_total > 0.0 => {
                // Bernoulli(d_s) per cell given their total: Σ r·e² − (Σ r·e)²/Σ r.
                let (mut s1, mut s2) = (0.0, 0.0);
                for (r, x) in marginal.iter().zip(&e) {
                    s1 += r * x;
                    s2 += r * x * x;
                }
                mf * (s2 - s1 * s1 / r_total).max(0.0)
            }
            Picks::Ranked => 0.0,
        };
        let term = var_set + var_del;
        total += term;
        if step > 0 && term <= 1e-10 * total {
            return Some(total);
        }
        match picks {
            Picks::Weighted => {
                let corr: f64 = pf / (w_total * w_total)
                    * mf
                    * (0..n).map(|s| pi[s] * chain.dec[s] * e[s]).sum::<f64>();
                for s in 0..n {
                    u[s] = v[s] + chain.dec[s] * (pf / w_total * e[s] - corr);
                }
            }
            Picks::Ranked => {
                // A cell more in state s takes d_s picks from the marginal cells.
                let corr = if r_total > 0.0 {
                    marginal.iter().zip(&e).map(|(r, x)| r * x).sum::<f64>() / r_total
                } else {
                    0.0
                };
                for s in 0..n {
                    u[s] = v[s] + chain.dec[s] * (e[s] - corr);
                }
            }
            Picks::Uniform => {
                for s in 0..n {
                    u[s] = v[s] + chain.dec[s] * e[s];
                }
            }
        }
    }
    None
}

/// `Var Z` for a filter of `m` cells: the two-cell chains for random deletion, the
/// linear noise for global policies or when the chains exceed their work limit (distinct
/// decrements only), the binomial beyond both.
pub(crate) fn zero_variance(
    chain: &CellChain,
    pi: &[f64],
    (m, k, p): (u64, u32, u64),
    delete: Delete,
    decrements: Decrements,
) -> (f64, ZeroVariance) {
    let local = delete == Delete::Random;
    if local {
        if let Some(v) = pair_variance(chain, m, k, p, decrements) {
            return (v, ZeroVariance::PairChain);
        }
    }
    if !local || decrements == Decrements::Distinct {
        if let Some(v) = noise_variance(chain, pi, m, k, p, Picks::of(delete)) {
            return (v, ZeroVariance::LinearNoise);
        }
    }
    let pi0 = pi[0];
    (m as f64 * pi0 * (1.0 - pi0), ZeroVariance::Binomial)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stable::{IbfParams, ImportanceDist, Policy, SbfParams};

    fn sbf_chain(m: u64, k: u32, max: u32, p: u64) -> (CellChain, Vec<f64>) {
        let params = SbfParams::new(m, k, max, p).unwrap().as_policy().unwrap();
        let chain = params.chain(|_, _| p as f64 / m as f64);
        let pi = chain.stationary().unwrap();
        (chain, pi)
    }

    #[test]
    fn pair_chain_marginal_is_the_stable_point() {
        for (m, k, max, p) in [(1000u64, 3u32, 3u32, 10u64), (64, 2, 1, 3), (500, 4, 7, 20)] {
            let params = SbfParams::new(m, k, max, p).unwrap();
            let (chain, _) = sbf_chain(m, k, max, p);
            let pairs = (m * (m - 1)) as f64;
            let q = p as f64 / m as f64;
            let q2 = (p * (p - 1)) as f64 / pairs;
            let a2 = f64::from(k * (k - 1)) / pairs;
            let (both, first) = pair_zero(&chain, q, q2, a2).unwrap();
            approx::assert_relative_eq!(first, params.zero_fraction(), max_relative = 1e-10);
            // Negatively correlated cells: both zero less often than independent ones.
            assert!(both < first * first, "{both} {first}");
            // Decremented together (neighbours in a run): positively correlated.
            let (near, _) = pair_zero(&chain, q, (p - 1) as f64 / m as f64, a2).unwrap();
            assert!(near > first * first);
            let binomial = m as f64 * first * (1.0 - first);
            let distinct = pair_variance(&chain, m, k, p, Decrements::Distinct).unwrap();
            let run = pair_variance(&chain, m, k, p, Decrements::Consecutive).unwrap();
            assert!(
                distinct < binomial && run > distinct,
                "{distinct} {run} {binomial}"
            );
        }
        let (big, _) = sbf_chain(100_000, 3, 200, 10);
        assert!(pair_variance(&big, 100_000, 3, 10, Decrements::Consecutive).is_none());
    }

    #[test]
    fn linear_noise_agrees_with_the_pair_chains_for_distinct_decrements() {
        // Random deletion of distinct cells is linear in the population: the two methods
        // agree to O(1/m).
        for (m, k, max, p) in [
            (1000u64, 3u32, 3u32, 10u64),
            (2000, 4, 1, 8),
            (500, 4, 7, 20),
        ] {
            let (chain, pi) = sbf_chain(m, k, max, p);
            let pair = pair_variance(&chain, m, k, p, Decrements::Distinct).unwrap();
            let noise = noise_variance(&chain, &pi, m, k, p, Picks::Uniform).unwrap();
            approx::assert_relative_eq!(noise, pair, max_relative = 5.0 / m as f64);
        }
        // IBF1 (values of the importance, capped at Max): the same agreement.
        let imp = ImportanceDist::linear(1, 6).unwrap();
        let ibf1 = IbfParams::new(Policy::Ibf1, 800, 3, 4, 6, imp).unwrap();
        let chain = ibf1.chain(|_, _| 6.0 / 800.0);
        let pi = chain.stationary().unwrap();
        let pair = pair_variance(&chain, 800, 3, 6, Decrements::Distinct).unwrap();
        let noise = noise_variance(&chain, &pi, 800, 3, 6, Picks::Uniform).unwrap();
        approx::assert_relative_eq!(noise, pair, max_relative = 5.0 / 800.0);
        assert!(pair < 800.0 * pi[0] * (1.0 - pi[0]));
    }
}
