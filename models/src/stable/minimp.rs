//! The MinImp stable point (IBF2, IBF4): a rank-map mean field at small `m`, and a
//! threshold model that is the `m → ∞` limit.
//!
//! # Rank map (small filters)
//! A cell at counter `c` is decremented with the probability that it ranks among the `P`
//! least counters of the non-zero cells (Alg. 7 [SBF]):
//!
//! ```text
//! F(d)(c) = Σ_{j<P} Pois(j; λ_<(c)) · E[min(1, (P − j)/(N_c + 1))],   N_c ~ Pois(λ_=(c))
//! λ_<(c) = m·Σ_{c'<c} Pr(v > 0, counter = c'),   λ_=(c) = m·Pr(v > 0, counter = c)
//! ```
//! (ties broken uniformly), the probabilities taken from the stationary law of the cell
//! chain whose level-`c` decrement probability is `d(c)`; the stable point is `d = F(d)`.
//! `F` has several fixed points; the damped iteration `d ← d + h·(F(d) − d)` from uniform
//! decrements reaches the physical one (Anderson acceleration from uniform lands on
//! others: 0.3146 for IBF4 at m = 512, Max = 5, P = 5, against 0.2321 damped and 0.2326
//! simulated). Its step `h` starts at 0.1 and is shrunk by 0.7 (to at least 0.01)
//! whenever the residual grows ([`Schedule::Shrinking`]); first it is also grown by 1.1
//! back towards 0.1 whenever the residual falls ([`Schedule::Adaptive`], 4-6 times fewer
//! steps), and where that does not converge within [`ADAPTIVE_ITERS`] steps the shrinking
//! schedule runs from the start. Where the damped iteration circles instead of converging
//! its Polyak average (last two thirds) is polished by Anderson (type II, memory
//! [`MEMORY`], mixing [`MIXING`], `γ` by nalgebra's SVD), kept only within
//! [`POLISH_BAND`] of the average.
//!
//! # Threshold limit (large filters)
//! As `m → ∞` the least-counter rule becomes a priority queue: per insertion `K·π0` empty
//! cells are set, each to a counter `c = i` (its importance) and a value `ins(i)` that
//! needs `ins(i)` decrements, while `P` decrements are handed out lowest counter first.
//! Cells below the served level die within a few insertions; cells above it are never
//! decremented and their counters only grow, so in a stable state the served level is
//! the cap `C` (`C = 2^b − 1`). So the chain decrements every cell below `C` at every
//! step and a saturated cell with probability `d_C`, with `d_C` set so that the expected
//! decrements per insertion are `P`:
//!
//! ```text
//! m·Σ_s π(s)·d(s) = P,    d(v, c) = 1 (c < C),   d(v, C) = d_C
//! ```
//! Three regimes ([`threshold_limit`]):
//! * under-loaded: `d_C = 1` already uses at most `P` decrements; every live cell is
//!   decremented at every step;
//! * saturating (some importance `i ≥ C`, so an empty cell's first insertion saturates
//!   it): Brent (argmin) on `ln d_C` for the equation above. This `d` is a fixed point of
//!   the rank map too (to 1e-3, tested) and gives the rank iteration's zero fraction to
//!   5 digits at every `m` tried (512 ... 2^24);
//! * neutral (every importance below `C`: no cell reaches `C` in one insertion): only the
//!   queue's overflow feeds level `C`, and `d_C → 0`. Fresh cells then take all `P`
//!   decrements, `π0·F = P/m` with `F` the live unsaturated mass per zero cell (from the
//!   chain with `d = 1` below `C`), i.e. `π0 → P/(K·E[ins(i)])`; the rest of the mass is
//!   at level `C` with the value law of one insertion, never decremented.
//!
//! # Which model
//! Saturating counters: the threshold model at every `m` (it is the rank fixed point,
//! found in ~0.1 ms instead of 1-50 ms). Neutral counters: the rank map up to
//! [`RANK_M_MAX`] `= 2^15` (its damped iteration stops converging above ~4096 and fails
//! from 2^18), the threshold limit above it, wherever the rank iteration fails, and where
//! the rank solve would take more than about half a second ([`RANK_WORK_MAX`]: long
//! counters, large `P`).
//!
//! Measured (reference filters, `validation::experiments::stable`; K = 4, Max = 4, P = 7,
//! importance uniform on 1..50; 99% Student intervals over epochs):
//!
//! | setting | simulation | rank map | threshold limit |
//! |---|---|---|---|
//! | IBF4, 8-bit, m = 512, zeros | 0.4158 [0.4145, 0.4172] | 0.4184 (+0.6%) | 0.4290 (+3.2%) |
//! | IBF4, 8-bit, m = 4096, zeros | 0.4329 [0.4315, 0.4344] | 0.4338 (+0.2%) | 0.4364 (+0.8%) |
//! | IBF4, 8-bit, m = 2^14, zeros | 0.4356 [0.4349, 0.4362] | 0.4362 (+0.15%) | 0.4372 (+0.4%) |
//! | IBF4, 8-bit, m = 2^16, zeros | 0.4364 [0.4357, 0.4371] | 0.4381 (+0.4%, averaged) | 0.4374 (+0.2%) |
//! | IBF4, 8-bit, m = 2^18, zeros | 0.4370 [0.4366, 0.4374] | no convergence | 0.4375 (+0.1%) |
//! | IBF4, 8-bit, m = 2^20, zeros | 0.4373 [0.4368, 0.4379] | no convergence | 0.4375 (+0.04%) |
//! | IBF4, 8-bit, m = 2^16, FP / wFN at m/2 | 0.1010 [0.1000, 0.1020] / 0.898 [0.891, 0.906] | | 0.1002 / 0.900 |
//! | IBF4, 8-bit, m = 2^18, FP / wFN at m/2 | 0.1006 [0.0992, 0.1020] / 0.900 [0.898, 0.902] | | 0.1001 / 0.900 |
//! | IBF4, 8-bit, m = 2^20, FP / wFN at m/2 | 0.1000 [0.0994, 0.1006] / 0.900 [0.897, 0.902] | | 0.1001 / 0.900 |
//! | IBF2, 8-bit, m = 2^16, zeros / FP | 0.4502 [0.4496, 0.4508] / 0.0914 [0.0907, 0.0921] | | 0.4510 / 0.0909 |
//! | IBF2, 8-bit, m = 2^18, zeros / FP | 0.4508 [0.4504, 0.4511] / 0.0911 [0.0897, 0.0924] | | 0.4510 / 0.0908 |
//! | IBF4, 4-bit, Max = 3, m = 4096, zeros / wFN at 1000 | 0.4375 [0.4366, 0.4385] / 0.709 [0.707, 0.711] | = limit | 0.4370 / 0.707 |
//! | IBF4, 4-bit, Max = 3, m = 2^16, zeros / wFN at 1000 | 0.4379 [0.4369, 0.4390] / 0.0748 [0.0743, 0.0753] | = limit | 0.4377 / 0.0748 |
//! | IBF2, 4-bit, Max = 3, m = 2^16, zeros / wFN at 1000 | 0.4598 [0.4589, 0.4608] / 0.0767 [0.0764, 0.0770] | = limit | 0.4595 / 0.0767 |
//!
//! The neutral limit's error on the zero fraction falls roughly like `m^(−1/2)` (the
//! queue of fresh cells runs at a load `1 − O(m^(−1/2))`). Its known gap: the FN at an
//! age short against `m` — fresh cells wait in that queue for a number of insertions that
//! grows with `m` before they die, while the limit kills them within `Max` insertions —
//! e.g. IBF4, 8-bit, m = 2^16, wFN at age 1000: 0.900 predicted, 0.881 [0.879, 0.883]
//! measured (+2.2%). `bfopt validate --family stable --level full` checks IBF4 and IBF2 at
//! 2^16 and 2^18 (8-bit) and 2^16 (4-bit) at age m/2 (about 16 s of CPU).
//!
//! The rank map's speed: each evaluation is one level-wise stationary solve
//! ([`CellChain::stationary`]) and `O(C·P²)` Poisson terms by recurrence, about 30 µs at
//! `C = 255`; the threshold model is one to twenty level-wise solves.

use super::chain::CellChain;
use super::params::{IbfParams, StableMethod};
use super::root::brent;
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
/// First and largest step `h` of the damped iteration.
const STEP_MAX: f64 = 0.1;
/// Smallest step of the damped iteration.
const STEP_MIN: f64 = 0.01;
/// Factor on the step when the residual grows.
const STEP_SHRINK: f64 = 0.7;
/// Factor on the step when the residual falls (up to [`STEP_MAX`]), in the
/// [`Schedule::Adaptive`] schedule.
const STEP_GROW: f64 = 1.1;
/// Steps of the [`Schedule::Adaptive`] schedule before the shrinking one takes over (it
/// converges in 300-520 where it converges at all).
pub(crate) const ADAPTIVE_ITERS: u64 = 1000;

/// How the damped iteration's step follows the residual.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Schedule {
    /// Shrunk by [`STEP_SHRINK`] when the residual grows and grown by [`STEP_GROW`] when
    /// it falls, for at most [`ADAPTIVE_ITERS`] steps. Shrinking alone leaves the step at
    /// [`STEP_MIN`] after the first transient rise (the residual's max-norm rises for tens
    /// of steps early on): 2,200-2,700 steps instead of 300-470 on `optimize ibf --bits
    /// 1e5` (IBF2, 8-bit counters), to the same fixed point (costs equal to 1e-10). But
    /// growing can settle into a cycle of growth and blow-up (IBF4 at m = 8192, Max = 15,
    /// P = 7, 8-bit counters: residual 0.09-0.9 after 3,000 steps, and an Anderson polish
    /// of that average that left the saturated level unreachable), hence the fallback.
    Adaptive,
    /// Shrunk only, for at most [`DAMPED_ITERS`] steps (then the Polyak average).
    Shrinking,
}

/// Largest `m` at which a MinImp filter whose counters no single insertion saturates is
/// solved by the rank map (above it, and wherever the rank iteration fails, by the
/// threshold limit): the `m` where the two models' measured errors cross (module doc).
pub(crate) const RANK_M_MAX: u64 = 1 << 15;

/// The MinImp stable point (module doc, "Which model"): the chain, its stationary law
/// and how it was found.
///
/// # Errors
/// A failing level solve or root search (`ModelError`), never a panic.
///
/// With `limit_only` the threshold limit at every `m` (microseconds instead
/// of up to half a second; within 3% of the rank map's zero fraction at m = 512 and 0.4%
/// at 2^14, module doc): the screening model of the cost optimizer.
pub(crate) fn solve_with(
    params: &IbfParams,
    limit_only: bool,
) -> Result<(CellChain, Vec<f64>, StableMethod), ModelError> {
    let limit = |params| -> Result<_, ModelError> {
        let l = threshold_limit(params)?;
        Ok((
            l.chain,
            l.pi,
            StableMethod::ThresholdLimit {
                saturated_rate: l.saturated,
                iterations: l.iterations,
            },
        ))
    };
    if limit_only
        || saturates(params)
        || params.m() > RANK_M_MAX
        || rank_work(params) > crate::budget::cap(RANK_WORK_MAX)
    {
        return limit(params);
    }
    match rank_refine(params) {
        Ok((chain, iterations, residual)) => {
            let pi = chain.stationary()?;
            Ok((
                chain,
                pi,
                StableMethod::MeanFieldRank {
                    iterations,
                    residual,
                },
            ))
        }
        Err(ModelError::NoConvergence { .. }) => limit(params),
        Err(e) => Err(e),
    }
}

/// Largest [`rank_work`] solved by the rank map (about half a second); larger chains or
/// `P` use the threshold limit.
pub(crate) const RANK_WORK_MAX: f64 = 1e8;

/// Work units of the rank solve: `(states + C·|support| + C·P)` per rank-map evaluation
/// (level-wise stationary solve, then the Poisson ranks), times the largest number of
/// evaluations of the shrinking schedule and the Anderson polish. (The adaptive schedule
/// comes first, at most [`ADAPTIVE_ITERS`] more, and where it converges it ends the solve
/// in 300-520; the cap was set before it, on the shrinking schedule's work.)
pub(crate) fn rank_work(params: &IbfParams) -> f64 {
    let cap = f64::from(params.counter_cap());
    let states = 1.0 + f64::from(params.max()) * cap;
    let support = params.importance().iter().filter(|&(_, w)| w > 0.0).count() as f64;
    (states + cap * support + cap * params.p() as f64) * (DAMPED_ITERS + MAX_ITERS) as f64
}

/// Whether some insertion saturates an empty cell's counter (an importance of positive
/// weight at least the cap `C`).
pub(crate) fn saturates(params: &IbfParams) -> bool {
    let cap = params.counter_cap();
    params.importance().iter().any(|(i, w)| w > 0.0 && i >= cap)
}

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
    let damped = match damped(params, chain.clone(), start.clone(), Schedule::Adaptive) {
        Ok(fast) if fast.residual < TOL => fast,
        Err(e @ ModelError::WorkLimit { .. }) => return Err(e),
        // No convergence, or a chain the growing step made degenerate: the shrinking
        // schedule from the start, its steps counted after the adaptive ones.
        _ => {
            let mut slow = damped(params, chain, start, Schedule::Shrinking)?;
            slow.iterations += ADAPTIVE_ITERS;
            slow
        }
    };
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

/// The `m → ∞` limit of MinImp (see the module doc): the chain with every level below the
/// counter cap `C` decremented at every step and the saturated level at `dc`, and its
/// stationary law.
pub(crate) struct Limit {
    pub chain: CellChain,
    pub pi: Vec<f64>,
    /// Decrement probability per insertion of a cell at the saturated level `C`.
    pub saturated: f64,
    /// Brent iterations (0 for the closed forms).
    pub iterations: u64,
}

/// Solves the threshold limit of the module doc: under-loaded (every non-zero cell
/// decremented at every step), saturating (Brent on `ln d_C` so that the expected
/// decrements per insertion are `P`), or neutral (no insertion saturates a counter:
/// `π0 = P/(m·F)`, the saturated cells never decremented; Brent as for saturating
/// counters when the unsaturated levels cannot take `P` decrements, which happens at
/// small `m`, where re-sets carry live cells up to `C`).
///
/// # Errors
/// A singular level solve, or Brent failing (`ModelError::NoConvergence`).
pub(crate) fn threshold_limit(params: &IbfParams) -> Result<Limit, ModelError> {
    let (m, p) = (params.m() as f64, params.p() as f64);
    let cap = params.counter_cap();
    let at = |dc: f64| params.chain(|_, c| if c < cap { 1.0 } else { dc });
    // Expected decrements per insertion, `m·Σ π(s)·d(s)`.
    let decrements = |chain: &CellChain, pi: &[f64]| {
        m * pi.iter().zip(&chain.dec).map(|(x, d)| x * d).sum::<f64>()
    };
    let all = at(1.0);
    let pi_all = all.stationary()?;
    if decrements(&all, &pi_all) <= p {
        return Ok(Limit {
            chain: all,
            pi: pi_all,
            saturated: 1.0,
            iterations: 0,
        });
    }
    if !saturates(params) {
        // Neutral: the level-C cells are never decremented; the unsaturated levels keep
        // their shape relative to the zero state (`pi_all`, where level C is out of reach
        // but for re-sets of live cells), scaled so that their decrements are P per
        // insertion. If those levels cannot take P decrements (small m, where re-sets do
        // carry cells to C), level C is served at a fractional rate as below.
        let chain = at(0.0);
        let unsat = |s: usize| s > 0 && chain.decode(s).1 < cap;
        let fresh: f64 = (0..chain.states())
            .filter(|&s| unsat(s))
            .map(|s| pi_all[s])
            .sum();
        let scale = p / m / fresh;
        let saturated_mass = 1.0 - scale * (pi_all[0] + fresh);
        if saturated_mass > 0.0 && scale.is_finite() {
            let mut pi: Vec<f64> = (0..chain.states())
                .map(|s| {
                    if s == 0 || unsat(s) {
                        scale * pi_all[s]
                    } else {
                        0.0
                    }
                })
                .collect();
            for &(v, _, w) in &chain.sets {
                pi[chain.encode(v, cap)] += saturated_mass * w;
            }
            return Ok(Limit {
                chain,
                pi,
                saturated: 0.0,
                iterations: 0,
            });
        }
    }
    let gap = |x: f64| {
        let chain = at(x.exp());
        match chain.stationary() {
            Ok(pi) => decrements(&chain, &pi) / p - 1.0,
            Err(_) => f64::NAN,
        }
    };
    // Bracket: the gap is ≥ 0 at ln d_C = 0 (not under-loaded); step down to the first
    // finite negative gap (very small rates can leave the saturated level out of
    // reach in floating point: NaN, skipped).
    let mut hi = 0.0;
    let mut lo = None;
    for x in [-1.0, -2.0, -4.0, -8.0, -16.0, -24.0, LN_DC_MIN] {
        let g = gap(x);
        if g < 0.0 {
            lo = Some(x);
            break;
        }
        if g >= 0.0 {
            hi = x;
        }
    }
    let Some(lo) = lo else {
        return Err(ModelError::NoConvergence {
            solver: "MinImp threshold limit",
            iterations: 0,
            residual: gap(LN_DC_MIN).abs(),
        });
    };
    let (x, iterations) = brent("MinImp threshold limit", lo, hi, 1e-12, gap)?;
    let chain = at(x.exp());
    let pi = chain.stationary()?;
    Ok(Limit {
        chain,
        pi,
        saturated: x.exp(),
        iterations,
    })
}

/// Smallest `ln d_C` Brent searches for the saturated level's decrement probability.
const LN_DC_MIN: f64 = -34.5;

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

/// The damped iteration `d ← d + h·(F(d) − d)` from `d`, its step `h` starting at
/// [`STEP_MAX`] and following `schedule`; if it has not converged within the schedule's
/// steps, the average of its last two thirds (Polyak) with that average's residual.
fn damped(
    params: &IbfParams,
    mut chain: CellChain,
    mut d: Vec<f64>,
    schedule: Schedule,
) -> Result<Damped, ModelError> {
    let iters = match schedule {
        Schedule::Adaptive => ADAPTIVE_ITERS,
        Schedule::Shrinking => DAMPED_ITERS,
    };
    let mut avg = vec![0.0; d.len()];
    let mut averaged = 0.0;
    let (mut step, mut last) = (STEP_MAX, f64::INFINITY);
    for it in 1..=iters {
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
            step = (step * STEP_SHRINK).max(STEP_MIN);
        } else if schedule == Schedule::Adaptive {
            step = (step * STEP_GROW).min(STEP_MAX);
        }
        last = residual;
        if it > iters / 3 {
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
        iterations: iters,
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
        // Prefix sums H(s) = Σ_{n<s} Pr(N = n), G(s) = Σ_{n<s} Pr(N = n)/(n + 1), so each
        // share of slots (`slots_from_head`) is O(1): O(C·P) per evaluation.
        let mean_inv = mean_inverse(eq);
        let (mut h, mut gs) = (vec![0.0; p + 1], vec![0.0; p + 1]);
        for n in 0..p {
            h[n + 1] = h[n] + eq_pmf[n];
            gs[n + 1] = gs[n] + eq_pmf[n] / (n + 1) as f64;
        }
        let d: f64 = (0..p)
            .filter(|&j| lt_pmf[j] >= 1e-300)
            .map(|j| {
                let s = p - j;
                let sf = s as f64;
                lt_pmf[j] * (sf * mean_inv + h[s] - sf * gs[s]).clamp(0.0, 1.0)
            })
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

/// `E[1/(N + 1)] = (1 − e^(−λ))/λ` for `N ~ Poisson(λ)`.
fn mean_inverse(lambda: f64) -> f64 {
    if lambda > 1e-12 {
        -(-lambda).exp_m1() / lambda
    } else {
        1.0
    }
}

/// `E[min(1, s/(N + 1))]` for `N ~ Poisson(λ)`, given `Pr(N = n)` for `n < s`:
///
/// ```text
/// E = s·E[1/(N+1)] + Σ_{n<s} Pois(n; λ)·(1 − s/(n+1)),   E[1/(N+1)] = (1 − e^(−λ))/λ
/// ```
#[cfg(test)]
fn slots_from_head(s: usize, lambda: f64, head: &[f64]) -> f64 {
    let sf = s as f64;
    let mean_inv = mean_inverse(lambda);
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

    /// Issue 18: the adaptive step converges where the shrinking one does, in fewer steps;
    /// where it cycles instead (IBF4 at m = 8192, Max = 15, P = 7, 8-bit counters), the
    /// shrinking schedule from the start still reaches the fixed point, and the steps of
    /// both are counted.
    #[test]
    fn adaptive_step_falls_back_to_the_shrinking_one() {
        let exp = ImportanceDist::exponential(1, 50, 0.1).unwrap();
        let solved = |policy, m, max, p| {
            let params = IbfParams::new(policy, m, 4, max, p, exp.clone()).unwrap();
            let (chain, its, residual) = rank_refine(&params).unwrap();
            assert!(residual < TOL, "{policy} m={m}: {residual}");
            let d: Vec<f64> = (1..=params.counter_cap())
                .map(|c| chain.dec[chain.encode(1, c)])
                .collect();
            assert!(max_gap(&rank_map(&params, &chain).unwrap(), &d) < TOL);
            (params, its)
        };
        for (policy, m) in [(Policy::Ibf2, 8333), (Policy::Ibf4, 4096)] {
            let (_, its) = solved(policy, m, 15, 1);
            assert!(its < ADAPTIVE_ITERS, "{policy} m={m}: {its}");
        }
        let (params, its) = solved(Policy::Ibf4, 8192, 15, 7);
        assert!(its > ADAPTIVE_ITERS, "{its}");
        // The adaptive schedule alone does not converge there.
        let p = params.p() as f64 / params.m() as f64;
        let start = vec![p; params.counter_cap() as usize];
        let fast = damped(&params, params.chain(|_, _| p), start, Schedule::Adaptive);
        assert!(fast.is_err() || fast.unwrap().residual >= TOL);
    }

    fn lin50(policy: Policy, m: u64, max: u32, p: u64, bits: u32) -> IbfParams {
        IbfParams::new(policy, m, 4, max, p, ImportanceDist::linear(1, 50).unwrap())
            .unwrap()
            .with_counter_bits(bits)
            .unwrap()
    }

    fn level_dec(chain: &CellChain) -> Vec<f64> {
        (1..=chain.cap)
            .map(|c| chain.dec[chain.encode(1, c)])
            .collect()
    }

    #[test]
    fn saturating_threshold_is_the_rank_fixed_point() {
        // 4-bit counters, importance 1..50: most insertions saturate an empty cell's
        // counter. The threshold model's decrement law (1 below C, Brent's rate at C) is
        // a fixed point of the rank map, and the damped rank iteration lands on it.
        for (policy, m, max, p) in [
            (Policy::Ibf4, 512, 5, 5),
            (Policy::Ibf2, 512, 5, 5),
            (Policy::Ibf4, 4096, 3, 7),
        ] {
            let params = lin50(policy, m, max, p, 4);
            assert!(saturates(&params));
            let l = threshold_limit(&params).unwrap();
            assert!(
                l.saturated > 0.0 && l.saturated < 1.0,
                "{policy}: {}",
                l.saturated
            );
            let d = level_dec(&l.chain);
            let gap = max_gap(&rank_map(&params, &l.chain).unwrap(), &d);
            assert!(gap < 1e-3, "{policy} m={m}: rank-map residual {gap}");
            let (rank, _, residual) = rank_refine(&params).unwrap();
            assert!(residual < TOL);
            let z = rank.stationary().unwrap()[0];
            assert!(
                (z - l.pi[0]).abs() < 1e-4 * z,
                "{policy} m={m}: {z} vs {}",
                l.pi[0]
            );
            // P decrements per insertion, as the threshold model imposes.
            let dec: f64 = l.pi.iter().zip(&l.chain.dec).map(|(x, d)| x * d).sum();
            assert!((dec * m as f64 - p as f64).abs() < 1e-8 * p as f64);
        }
    }

    #[test]
    fn neutral_limit_tends_to_p_over_k_mean_insert() {
        // 8-bit counters, importance 1..50: no insertion saturates a counter. As m grows
        // the zero fraction tends to P / (K·E[ins(i)]): 7/16 for M-insert with Max = 4,
        // 7/(4·3.88) for Imp-insert (E[min(i, 4)] = 194/50).
        for (policy, limit) in [(Policy::Ibf4, 7.0 / 16.0), (Policy::Ibf2, 7.0 / 15.52)] {
            let mut last = f64::INFINITY;
            for e in [16, 20, 24] {
                let params = lin50(policy, 1 << e, 4, 7, 8);
                assert!(!saturates(&params));
                let l = threshold_limit(&params).unwrap();
                assert_eq!(l.saturated, 0.0);
                let gap = (l.pi[0] - limit).abs();
                assert!(
                    gap < 30.0 / f64::from(1u32 << e),
                    "{policy} 2^{e}: {}",
                    l.pi[0]
                );
                assert!(gap < last);
                last = gap;
                assert!((l.pi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                assert!(l.pi.iter().all(|&x| (0.0..=1.0).contains(&x)));
            }
        }
    }

    #[test]
    fn under_loaded_filters_decrement_every_live_cell() {
        // P = 40 > K·Max = 12: every non-zero cell is decremented at every step.
        let params = lin50(Policy::Ibf4, 1 << 20, 3, 40, 8);
        let l = threshold_limit(&params).unwrap();
        assert_eq!(l.saturated, 1.0);
        assert!(l.chain.dec.iter().skip(1).all(|&d| d == 1.0));
        assert!(l.pi[0] > 0.9999);
    }

    #[test]
    fn solve_picks_the_model_by_size_and_saturation() {
        let method = |params: &IbfParams| solve_with(params, false).unwrap().2;
        assert!(matches!(
            method(&lin50(Policy::Ibf4, 512, 5, 5, 8)),
            StableMethod::MeanFieldRank { .. }
        ));
        for params in [
            lin50(Policy::Ibf4, 512, 5, 5, 4),
            lin50(Policy::Ibf4, RANK_M_MAX + 1, 4, 7, 8),
            lin50(Policy::Ibf2, 1 << 24, 4, 7, 8),
        ] {
            assert!(
                matches!(method(&params), StableMethod::ThresholdLimit { .. }),
                "m={}",
                params.m()
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]

        /// Over the valid space (m up to 2^24, any K, Max, P, counter width, importance
        /// range) the MinImp solve returns a distribution whose decrements are at most P
        /// (exactly P when Brent set them) or a `ModelError`: never a panic or a hang.
        #[test]
        fn solve_returns_a_stable_point_or_an_error(
            m_exp in 1u32..=24,
            k in 1u32..=64,
            max in proptest::prop_oneof![1u32..=8, proptest::strategy::Just(255u32)],
            pf in 0.0f64..1.0,
            bits in 1u32..=12,
            lo in 1u32..=40,
            width in 0u32..=40,
            imp4 in proptest::bool::ANY,
        ) {
            let m = 1u64 << m_exp;
            proptest::prop_assume!(u64::from(k) < m);
            let p = 1 + ((m - 2) as f64 * pf) as u64;
            let policy = if imp4 { Policy::Ibf4 } else { Policy::Ibf2 };
            let dist = ImportanceDist::linear(lo, lo + width).unwrap();
            let params = IbfParams::new(policy, m, k, max, p, dist)
                .unwrap()
                .with_counter_bits(bits)
                .unwrap();
            match solve_with(&params, false) {
                Ok((chain, pi, method)) => {
                    proptest::prop_assert!(pi.iter().all(|&x| (0.0..=1.0).contains(&x)));
                    proptest::prop_assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-9);
                    let dec = m as f64 * pi.iter().zip(&chain.dec).map(|(x, d)| x * d).sum::<f64>();
                    match method {
                        StableMethod::MeanFieldRank { residual, .. } => {
                            proptest::prop_assert!(residual < 0.05, "{residual}");
                        }
                        StableMethod::ThresholdLimit { saturated_rate, .. } => {
                            proptest::prop_assert!((0.0..=1.0).contains(&saturated_rate));
                            proptest::prop_assert!(dec <= p as f64 * (1.0 + 1e-6), "{dec} > {p}");
                            if saturated_rate > 0.0 && saturated_rate < 1.0 {
                                proptest::prop_assert!((dec - p as f64).abs() <= 1e-6 * p as f64, "{dec} vs {p}");
                            }
                        }
                        other => proptest::prop_assert!(false, "{other:?}"),
                    }
                }
                Err(e) => proptest::prop_assert!(
                    matches!(e, ModelError::NoConvergence { .. } | ModelError::InvalidParam { .. }),
                    "{e}"
                ),
            }
        }
    }
}
