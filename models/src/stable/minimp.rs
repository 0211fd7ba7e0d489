//! The MinImp mean field (IBF2, IBF4): the decrement probability of a cell per
//! cumulative-importance level, as a fixed point of the rank map, solved by a damped iteration and polished by
//! Anderson acceleration.
//!
//! # Model
//! A sharp threshold (cells with counter below `c*` decremented every step, none above)
//! has no consistent fixed point: sets only raise counters, so cells above `c*` would
//! never return to zero, while `c* = C` (the counter cap) delivers more than `P`
//! decrements. In a real filter the `P`-th least counter fluctuates, and saturated cells
//! are reached whenever the pool of low counters runs dry. So a cell at counter `c` is
//! decremented with the probability that it ranks among the `P` least (Alg. 7 [SBF]):
//!
//! ```text
//! F(d)(c) = Σ_{j<P} Pois(j; λ_<(c)) · E[min(1, (P − j)/(N_c + 1))],   N_c ~ Pois(λ_=(c))
//! λ_<(c) = m·Σ_{c'<c} Pr(v > 0, counter = c'),   λ_=(c) = m·Pr(v > 0, counter = c)
//! ```
//! (ties broken uniformly), the probabilities taken from the stationary law of the cell
//! chain whose level-`c` decrement probability is `d(c)`. The stable point is the fixed
//! point `d = F(d)`.
//!
//! # Solver
//! `F` is steep at large `m` (the Poisson weights turn into a step at the level where
//! about `P` cells lie below), and it has more than one fixed point. Measured (linear
//! importance 1..50, `K = 4`):
//!
//! | setting | damped iteration | Anderson from uniform | simulation |
//! |---|---|---|---|
//! | IBF4, m = 512, Max = 5, P = 5 | 0.2321 (converges) | 0.3146 | 0.2326 |
//! | IBF2, m = 512, Max = 5, P = 5 | 0.2495 (converges) | 0.3270 | 0.2480 |
//! | IBF4, m = 4096, Max = 3, P = 8 | 0.6636 (converges) | 0.6980 | |
//! | IBF4, m = 65536, Max = 4, P = 7 | 0.4381 (oscillates, averaged) | 0.4932 | |
//!
//! So the damped iteration `d ← d + h·(F(d) − d)` (step 0.1, shrunk by 0.7 to at least
//! 0.01 whenever the residual grows) is kept as the way to the physical equilibrium: it
//! converges (to `max_c |F(d)(c) − d(c)| <`[`TOL`]) up to m ≈ 4096; above, it circles the
//! equilibrium and the average of its last two thirds is taken (Polyak), with that
//! average's residual (2.4e-3 at m = 65536), accepted below 0.05. The average is then
//! polished by Anderson acceleration (type II, memory [`MEMORY`], mixing [`MIXING`]:
//! `γ = argmin ‖r_k − ΔR·γ‖` by nalgebra's SVD, step `d_k + β·r_k − (ΔD + β·ΔR)·γ`,
//! clipped to `[0, 1]`; argmin has no fixed-point accelerator), whose root is kept only
//! when its zero fraction is within [`POLISH_BAND`] of the average's, i.e. when it is the
//! equilibrium the damped iteration circles and not another fixed point. Anderson alone,
//! from uniform decrements, lands on the other fixed points of the table.
//!
//! The speed comes from the rank map: each evaluation is one level-wise stationary solve
//! ([`CellChain::stationary`]) and `O(C·P²)` Poisson terms by recurrence (no `ln Γ`),
//! about 30 µs at `C = 255`, so 3000 damped steps cost about 0.1 s.
//!
//! Not solved: for very large `m` (m = 2^20, P = 7) the damped average keeps a residual
//! of 0.11 and the solve reports [`ModelError::NoConvergence`]. A time-stepped mean field
//! ([`super::zero_fraction_transient`]) follows the real dynamics instead, at
//! `O(states)` per insertion.

use super::chain::CellChain;
use super::ibf::IbfParams;
use crate::error::ModelError;
use crate::numeric::probability;
use nalgebra::{DMatrix, DVector};

/// Residuals kept by the Anderson step.
pub(crate) const MEMORY: usize = 12;
/// Anderson mixing `β`.
pub(crate) const MIXING: f64 = 0.5;
/// Convergence tolerance on `max_c |F(d)(c) − d(c)|`.
pub(crate) const TOL: f64 = 1e-10;
/// Largest number of Anderson steps.
pub(crate) const MAX_ITERS: u64 = 300;
/// Steps of the damped iteration.
pub(crate) const DAMPED_ITERS: u64 = 3000;
/// Largest relative change of the zero fraction accepted from the Anderson polish.
pub(crate) const POLISH_BAND: f64 = 0.01;

/// Solves the MinImp fixed point from the uniform decrement law `P/m`; returns the chain
/// with the fixed-point decrements, the rank-map evaluations used and the final residual.
///
/// # Errors
/// [`ModelError::NoConvergence`] when the result's residual is 0.05 or more.
pub(crate) fn rank_refine(params: &IbfParams) -> Result<(CellChain, u64, f64), ModelError> {
    let (m, p) = (params.m() as f64, params.p() as f64);
    let cap = params.counter_cap() as usize;
    let chain = params.chain(|_, _| p / m);
    let start: Vec<f64> = vec![(p / m).min(1.0); cap];
    let damped = damped(params, chain, start)?;
    if damped.residual < TOL {
        return Ok((damped.chain, damped.iterations, damped.residual));
    }
    // Polish the average with Anderson; keep the root only if it is the equilibrium the
    // damped iteration circles (same zero fraction to 1%), not another fixed point.
    let zero = damped.chain.stationary()?[0];
    if let Some((chain, its, residual)) = anderson(params, damped.chain.clone(), damped.d)? {
        let z = chain.stationary()?[0];
        if (z - zero).abs() <= POLISH_BAND * zero {
            return Ok((chain, damped.iterations + its, residual));
        }
    }
    if damped.residual < 0.05 {
        return Ok((damped.chain, damped.iterations, damped.residual));
    }
    Err(ModelError::NoConvergence {
        solver: "MinImp rank fixed point",
        iterations: damped.iterations,
        residual: damped.residual,
    })
}

/// Anderson iteration from `x`: the chain at the fixed point, the steps and the
/// residual, or `None` after [`MAX_ITERS`] steps.
fn anderson(
    params: &IbfParams,
    mut chain: CellChain,
    mut x: Vec<f64>,
) -> Result<Option<(CellChain, u64, f64)>, ModelError> {
    let mut hist_x: Vec<Vec<f64>> = Vec::new();
    let mut hist_f: Vec<Vec<f64>> = Vec::new();
    let mut best = f64::INFINITY;
    for it in 1..=MAX_ITERS {
        set_level_dec(&mut chain, &x);
        let fx = rank_map(params, &chain)?;
        let residual = max_gap(&fx, &x);
        if residual < TOL {
            return Ok(Some((chain, it, residual)));
        }
        if residual > 10.0 * best {
            hist_x.clear();
            hist_f.clear();
        }
        best = best.min(residual);
        hist_x.push(x);
        hist_f.push(fx);
        if hist_x.len() > MEMORY + 1 {
            hist_x.remove(0);
            hist_f.remove(0);
        }
        x = anderson_step(&hist_x, &hist_f);
    }
    Ok(None)
}

fn max_gap(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The Anderson (type II) update from the histories of iterates `x_j` and images
/// `F(x_j)`, oldest first (see the module doc). With one entry it is `x + β·r`.
fn anderson_step(hist_x: &[Vec<f64>], hist_f: &[Vec<f64>]) -> Vec<f64> {
    let k = hist_x.len() - 1;
    let n = hist_x[k].len();
    let res = |j: usize| -> Vec<f64> {
        hist_f[j]
            .iter()
            .zip(&hist_x[j])
            .map(|(f, x)| f - x)
            .collect()
    };
    let rk = res(k);
    let mut out: Vec<f64> = hist_x[k]
        .iter()
        .zip(&rk)
        .map(|(x, r)| x + MIXING * r)
        .collect();
    if k > 0 {
        let mut dr = DMatrix::<f64>::zeros(n, k);
        let mut dx = DMatrix::<f64>::zeros(n, k);
        for j in 0..k {
            let (r0, r1) = (res(j), res(j + 1));
            for i in 0..n {
                dr[(i, j)] = r1[i] - r0[i];
                dx[(i, j)] = (hist_x[j + 1][i] - hist_x[j][i]) + MIXING * (r1[i] - r0[i]);
            }
        }
        if let Ok(gamma) = dr
            .svd(true, true)
            .solve(&DVector::from_column_slice(&rk), 1e-12)
        {
            let step = &dx * gamma;
            out.iter_mut().zip(step.iter()).for_each(|(o, s)| *o -= s);
        }
    }
    out.iter_mut().for_each(|v| *v = v.clamp(0.0, 1.0));
    out
}

/// Result of the damped iteration.
struct Damped {
    chain: CellChain,
    d: Vec<f64>,
    iterations: u64,
    residual: f64,
}

/// The damped iteration `d ← d + h·(F(d) − d)` (step 0.1, shrunk by 0.7 to at least
/// 0.01 whenever the residual grows) from `d`, for at most [`DAMPED_ITERS`] steps; if it
/// has not converged, the average of its last two thirds (Polyak) with that average's
/// residual.
fn damped(params: &IbfParams, mut chain: CellChain, mut d: Vec<f64>) -> Result<Damped, ModelError> {
    let mut avg = vec![0.0; d.len()];
    let mut averaged = 0.0;
    let (mut step, mut last) = (0.1, f64::INFINITY);
    for it in 1..=DAMPED_ITERS {
        set_level_dec(&mut chain, &d);
        let target = rank_map(params, &chain)?;
        let residual = max_gap(&target, &d);
        if residual < TOL {
            return Ok(Damped {
                chain,
                d,
                iterations: it,
                residual,
            });
        }
        for (x, t) in d.iter_mut().zip(&target) {
            *x = (1.0 - step) * *x + step * t;
        }
        if residual > last {
            step = (step * 0.7).max(0.01);
        }
        last = residual;
        if it > DAMPED_ITERS / 3 {
            avg.iter_mut().zip(&d).for_each(|(a, x)| *a += x);
            averaged += 1.0;
        }
    }
    avg.iter_mut().for_each(|a| *a /= averaged);
    set_level_dec(&mut chain, &avg);
    let residual = max_gap(&rank_map(params, &chain)?, &avg);
    Ok(Damped {
        chain,
        d: avg,
        iterations: DAMPED_ITERS,
        residual,
    })
}

/// Writes the level decrement law `d(c)` (`d[c − 1]`) into every non-zero state.
pub(crate) fn set_level_dec(chain: &mut CellChain, d: &[f64]) {
    for s in 1..chain.states() {
        let c = chain.decode(s).1 as usize;
        chain.dec[s] = d[c - 1];
    }
}

/// One application of the rank map: the decrement probability of levels `1..=C` from
/// the stationary law of `chain`. `O(C·P²)` with the Poisson weights by recurrence.
pub(crate) fn rank_map(params: &IbfParams, chain: &CellChain) -> Result<Vec<f64>, ModelError> {
    Ok(rank_of(params, chain, &chain.stationary()?))
}

/// The rank map's decrement law of levels `1..=C` for a given distribution `pi` of one
/// cell (stationary, or a transient one).
pub(crate) fn rank_of(params: &IbfParams, chain: &CellChain, pi: &[f64]) -> Vec<f64> {
    let (m, p) = (params.m() as f64, params.p() as usize);
    let cap = params.counter_cap() as usize;
    let mut g = vec![0.0; cap + 1];
    for (s, &x) in pi.iter().enumerate().skip(1) {
        g[chain.decode(s).1 as usize] += x;
    }
    let mut below = 0.0;
    let mut out = vec![0.0; cap];
    let (mut lt_pmf, mut eq_pmf) = (vec![0.0; p], vec![0.0; p]);
    for c in 1..=cap {
        let (lt, eq) = (m * below, m * g[c]);
        below += g[c];
        poisson_head(lt, &mut lt_pmf);
        if lt_pmf.iter().all(|&x| x < 1e-300) {
            // λ_< only grows with c: every higher level is never among the P least.
            break;
        }
        poisson_head(eq, &mut eq_pmf);
        let d: f64 = (0..p)
            .filter(|&j| lt_pmf[j] >= 1e-300)
            .map(|j| lt_pmf[j] * slots_from_head(p - j, eq, &eq_pmf))
            .sum();
        out[c - 1] = probability(d);
    }
    out
}

/// `Pr(N = j)`, `j = 0..out.len()`, for `N ~ Poisson(λ)`, by `p_j = p_{j−1}·λ/j` from
/// `e^(−λ)` (in log space when `e^(−λ)` underflows).
fn poisson_head(lambda: f64, out: &mut [f64]) {
    if lambda <= 0.0 {
        out.iter_mut()
            .enumerate()
            .for_each(|(j, o)| *o = f64::from(u8::from(j == 0)));
        return;
    }
    if lambda < 700.0 {
        let mut pj = (-lambda).exp();
        for (j, o) in out.iter_mut().enumerate() {
            if j > 0 {
                pj *= lambda / j as f64;
            }
            *o = pj;
        }
    } else {
        let (ll, mut lf) = (lambda.ln(), 0.0);
        for (j, o) in out.iter_mut().enumerate() {
            if j > 0 {
                lf += (j as f64).ln();
            }
            *o = (j as f64 * ll - lambda - lf).exp();
        }
    }
}

/// `E[min(1, s/(N + 1))]` for `N ~ Poisson(λ)`, given `Pr(N = n)` for `n < s`:
///
/// ```text
/// E = s·E[1/(N+1)] + Σ_{n<s} Pois(n; λ)·(1 − s/(n+1)),   E[1/(N+1)] = (1 − e^(−λ))/λ
/// ```
fn slots_from_head(s: usize, lambda: f64, head: &[f64]) -> f64 {
    let sf = s as f64;
    let mean_inv = if lambda > 1e-12 {
        -(-lambda).exp_m1() / lambda
    } else {
        1.0
    };
    let correction: f64 = (0..s).map(|n| head[n] * (1.0 - sf / (n + 1) as f64)).sum();
    (sf * mean_inv + correction).clamp(0.0, 1.0)
}

/// `E[min(1, s/(N + 1))]` for `N ~ Poisson(λ)`: the chance a cell gets one of `s` slots
/// shared uniformly with `N` tied cells (see [`slots_from_head`]).
#[cfg(test)]
pub(crate) fn share_of_slots(s: usize, lambda: f64) -> f64 {
    let mut head = vec![0.0; s];
    poisson_head(lambda, &mut head);
    slots_from_head(s, lambda, &head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stable::{ImportanceDist, Policy};

    #[test]
    fn poisson_head_matches_statrs_on_both_branches() {
        use statrs::distribution::{Discrete, Poisson};
        for lambda in [0.3, 12.0, 699.0, 701.0, 5000.0] {
            let mut h = vec![0.0; 8];
            poisson_head(lambda, &mut h);
            let pois = Poisson::new(lambda).unwrap();
            for (j, &x) in h.iter().enumerate() {
                let want = pois.pmf(j as u64);
                assert!(
                    (x - want).abs() <= 1e-12 * want + 1e-300,
                    "λ={lambda} j={j}: {x} vs {want}"
                );
            }
        }
    }

    #[test]
    fn damped_iteration_converges_to_the_simulated_equilibrium() {
        // Figure 7 setting: the simulated zero fractions (tests/agreement/stable.rs, seeds
        // 3 and 5) are 0.2480 (IBF2) and 0.2326 (IBF4).
        for (policy, want) in [(Policy::Ibf2, 0.2495), (Policy::Ibf4, 0.2321)] {
            let params =
                IbfParams::new(policy, 512, 4, 5, 5, ImportanceDist::linear(1, 50).unwrap())
                    .unwrap();
            let (chain, its, residual) = rank_refine(&params).unwrap();
            assert!(residual < TOL, "{policy}: {residual}");
            assert!(its < DAMPED_ITERS, "{policy}: {its}");
            let z = chain.stationary().unwrap()[0];
            assert!((z - want).abs() < 5e-4, "{policy}: {z}");
            // The result is a fixed point of the rank map.
            let d: Vec<f64> = (1..=params.counter_cap())
                .map(|c| chain.dec[chain.encode(1, c)])
                .collect();
            assert!(max_gap(&rank_map(&params, &chain).unwrap(), &d) < TOL);
        }
    }

    #[test]
    fn large_filters_return_the_averaged_equilibrium() {
        let params = IbfParams::new(
            Policy::Ibf4,
            65_536,
            4,
            4,
            7,
            ImportanceDist::linear(1, 50).unwrap(),
        )
        .unwrap();
        let (chain, _, residual) = rank_refine(&params).unwrap();
        assert!(residual < 0.01, "{residual}");
        let z = chain.stationary().unwrap()[0];
        assert!((0.40..0.47).contains(&z), "{z}");
    }
}
