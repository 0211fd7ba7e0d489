//! The σ-bounded chain: stationary distribution, f_σ¹, f_σ², messages per cycle.
//!
//! States `0..=σ` are the bits set when a new message arrives. From state `i` a message
//! sets `d` new bits with probability `τ_k(i, i+d)` ([`super::transitions::new_bits`]);
//! if `i + d > σ` the filter recycles and the next arrival sees the start state of a new
//! cycle (0, or the retained message's bits).
//!
//! # Solving without a dense system
//! Every forward transition goes up by at most `k`, and every backward one lands in
//! `0..=k`. So the balance equations (Eq. (15) [RBF]) give the unnormalised stationary
//! vector from the inflow into the start states by one forward recursion:
//! ```text
//! g_i = (s_i + Σ_{d=1..k} g_{i−d}·τ(i−d, i)) / (1 − τ(i, i))
//! ```
//! where `s_i` is the inflow into state `i ≤ k`. Non-retaining: `s = δ_0` and `g_i` is the
//! expected number of arrivals that see state `i` in one cycle (it does not depend on σ
//! for `i ≤ σ`, which gives the whole curve in one pass, [`CurveScan`]). Retaining:
//! one recursion per start state `c` (lanes run side by side), then a `k × k` chain of
//! cycle start states fixes the inflow (Eq. (16) [RBF]), solved by
//! [`crate::markov::stationary_gth`]. Time `O(k²·σ)`, memory `O(k²)`.

use super::transitions::{recycle_law, Law, NewBitsBatch, Retention};
use super::Hashing;
use crate::error::ModelError;
use crate::markov::stationary_gth;
use crate::numeric::{CompensatedSum, LnSum};
use nalgebra::DMatrix;

/// Long-run quantities of one σ-bounded chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainSolution {
    /// f_σ¹ = Σ π_i ρ(i), Eq. (18) [RBF]: the count-instance FP of one filter.
    pub fp: f64,
    /// Σ F_i ρ(i) with F_i from Eqs. (24)-(25) [RBF]: the FP a new message meets in the
    /// frozen filter of a two-phase RBF.
    pub fp_frozen: f64,
    /// Mean new messages per cycle: 1 / P(an arrival recycles) (`= 1/π_0` non-retaining).
    pub messages: f64,
    /// Distribution of the state a cycle starts in, indexed `c = 0..=k`.
    pub start: Vec<f64>,
}

impl ChainSolution {
    /// f_σ² = 1 − (1 − f_σ¹)(1 − Σ F_i ρ(i)), Eq. (26) [RBF], computed as
    /// `f_σ¹ + F·(1 − f_σ¹)` ([`crate::numeric::either`]: no cancellation below 1e-16).
    pub fn fp_two_phase(&self) -> f64 {
        crate::numeric::either(self.fp, self.fp_frozen)
    }
}

/// Distinct-position counts `c` of one message rarer than this are not start states.
///
/// With large `k` and `M` the chance of few distinct positions is astronomically small
/// (`M^(1−c)`-ish); such start states take part in the cycle-start chain only through
/// products that underflow, which left its GTH solve 0/0 (issue 10: `M = 10^12, k = 64,
/// σ = 64` and `M = 10^5, k = 64, σ = 99 999`, colliding + retaining, returned NaN). Their
/// total probability is below `k·10^-20`, under `f64` resolution of every result.
pub const START_STATE_CUT: f64 = 1e-20;

/// The start states a cycle can have under `retention`. Colliding + retaining: the
/// distinct-position counts `c` of one message with probability at least
/// [`START_STATE_CUT`].
fn start_states(law: Law, retention: Retention) -> Vec<usize> {
    match (retention, law.hashing) {
        (Retention::None, _) => vec![0],
        (_, Hashing::Distinct) => vec![law.k as usize],
        _ => super::transitions::distinct_positions(law.m, law.k, law.hashing)
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, p)| **p >= START_STATE_CUT)
            .map(|(c, _)| c)
            .collect(),
    }
}

/// Forward recursion over states `0..=sigma`, one lane per start state in `starts`
/// (unit inflow), or one lane with the inflow `weights` over `starts`.
/// Calls `visit(i, g_i, row_i)` with `g_i` per lane and `row_i[d] = τ(i, i+d)`.
fn forward(
    law: Law,
    sigma: u64,
    starts: &[usize],
    weights: Option<&[f64]>,
    mut visit: impl FnMut(u64, &[f64], &[f64]),
) {
    let k = law.k as usize;
    let w = k + 1;
    let lanes = if weights.is_some() { 1 } else { starts.len() };
    let mut rows = vec![0.0; w * w];
    let mut g = vec![0.0; w * lanes];
    let mut gi = vec![0.0; lanes];
    let mut slot = w - 1;
    let mut batch = NewBitsBatch::new(law);
    for i in 0..=sigma {
        slot = if slot + 1 == w { 0 } else { slot + 1 };
        batch.row(i, &mut rows[slot * w..(slot + 1) * w]);
        let row = &rows[slot * w..(slot + 1) * w];
        let leave: f64 = row[1..].iter().sum(); // 1 − τ(i,i), without cancellation
        for (l, out) in gi.iter_mut().enumerate() {
            let mut s = 0.0;
            if i <= k as u64 {
                match weights {
                    Some(wts) => {
                        for (c, wt) in starts.iter().zip(wts) {
                            if *c as u64 == i {
                                s += wt;
                            }
                        }
                    }
                    None => {
                        if starts[l] as u64 == i {
                            s += 1.0;
                        }
                    }
                }
            }
            let mut js = slot;
            for d in 1..=k.min(i as usize) {
                js = if js == 0 { w - 1 } else { js - 1 };
                s += g[js * lanes + l] * rows[js * w + d];
            }
            *out = s / leave;
        }
        g[slot * lanes..(slot + 1) * lanes].copy_from_slice(&gi);
        visit(i, &gi, &rows[slot * w..(slot + 1) * w]);
    }
}

/// Solves the chain of one filter with threshold `sigma` (recycle when `b > σ`).
///
/// # Errors
/// [`ModelError::NoConvergence`] if the cycle-start chain cannot be solved (never for
/// valid parameters; reported rather than hidden).
pub fn solve(law: Law, sigma: u64, retention: Retention) -> Result<ChainSolution, ModelError> {
    solve_with(law, sigma, retention, false).map(|(sol, _)| sol)
}

/// The natural logs of the two FPs of [`ChainSolution`], in log space so that they keep
/// their relative precision below the smallest `f64` (2.2e-308).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainLogs {
    /// `ln f_σ¹ = ln Σ_i g_i·ρ(i) − ln Σ_i g_i`, Eq. (18) [RBF].
    pub ln_fp: f64,
    /// `ln Σ F_i ρ(i)` with `F_i` from Eqs. (24)-(25) [RBF].
    pub ln_fp_frozen: f64,
}

impl ChainLogs {
    /// `ln f_σ²`, Eq. (26) [RBF], by [`crate::numeric::ln_either`].
    pub fn ln_fp_two_phase(&self) -> f64 {
        crate::numeric::ln_either(self.ln_fp, self.ln_fp_frozen)
    }
}

/// [`solve`] in log space: the same recursion, whose visit counts `g_i` stay in the
/// normal `f64` range where they matter (they are at most the messages per cycle, and
/// near σ they are of order `1/k`), with `ρ(i)` taken as its log
/// ([`super::transitions::ln_rho`]) and the FP numerators summed as log-sum-exps
/// ([`crate::numeric::LnSum`]). A `g_i` that underflows belongs to a state a cycle almost
/// never visits (fewer than `k` bits set with colliding hashes); its term is below
/// 1e-308 of the largest and is dropped.
///
/// # Errors
/// As [`solve`].
pub fn solve_ln(law: Law, sigma: u64, retention: Retention) -> Result<ChainLogs, ModelError> {
    solve_with(law, sigma, retention, true).map(|(_, logs)| logs)
}

/// [`solve`], and with `logs` also [`solve_ln`] (without, the logs are `−∞`).
fn solve_with(
    law: Law,
    sigma: u64,
    retention: Retention,
    logs: bool,
) -> Result<(ChainSolution, ChainLogs), ModelError> {
    let k = law.k as usize;
    let starts = start_states(law, retention);
    let lanes = starts.len();
    let mut a = vec![CompensatedSum::new(); lanes]; // Σ g ρ
    let mut b = vec![CompensatedSum::new(); lanes]; // Σ g
    let mut fh = vec![0.0; lanes]; // Σ g·overflow
    let mut fr = vec![0.0; lanes]; // Σ g·overflow·ρ
    let mut next = vec![vec![0.0; k + 1]; lanes]; // next[l][c]: start c after lane l
    let mut law_out = vec![0.0; k + 1];
    // With `logs`: ln Σ g ρ and ln Σ g·overflow·ρ per lane.
    let (mut a_ln, mut fr_ln) = (vec![LnSum::new(); lanes], vec![LnSum::new(); lanes]);
    let zone = sigma.saturating_sub(law.k as u64) + 1;
    forward(law, sigma, &starts, None, |i, g, row| {
        let rho = row[0]; // ρ(i) = τ(i, i), Eq. (17) [RBF]
        let ln_rho = if logs {
            law.ln_rho(i)
        } else {
            f64::NEG_INFINITY
        };
        for l in 0..lanes {
            a[l].add(g[l] * rho);
            b[l].add(g[l]);
            if logs {
                a_ln[l].add(g[l].ln() + ln_rho);
            }
        }
        if i >= zone {
            recycle_law(law, sigma, i, retention, row, &mut law_out);
            let ov: f64 = law_out.iter().sum();
            for l in 0..lanes {
                fh[l] += g[l] * ov;
                fr[l] += g[l] * ov * rho;
                if logs {
                    fr_ln[l].add(g[l].ln() + ov.ln() + ln_rho);
                }
                for (n, p) in next[l].iter_mut().zip(&law_out) {
                    *n += g[l] * p;
                }
            }
        }
    });
    let r = if lanes == 1 {
        vec![1.0]
    } else {
        // Row l: where a cycle started in starts[l] sends the next cycle.
        let mut p = DMatrix::zeros(lanes, lanes);
        for l in 0..lanes {
            let total: f64 = starts.iter().map(|&c| next[l][c]).sum();
            for (m, &c) in starts.iter().enumerate() {
                p[(l, m)] = next[l][c] / total;
            }
        }
        stationary_gth(&p)
            .map_err(|_| ModelError::NoConvergence {
                solver: "rbf cycle-start chain",
                iterations: 0,
                residual: f64::NAN,
            })?
            .iter()
            .copied()
            .collect()
    };
    let dot = |v: &[f64]| v.iter().zip(&r).map(|(x, w)| x * w).sum::<f64>();
    let av: Vec<f64> = a.iter().map(CompensatedSum::value).collect();
    let bv: Vec<f64> = b.iter().map(CompensatedSum::value).collect();
    let messages = dot(&bv);
    let mut start = vec![0.0; k + 1];
    for (&c, w) in starts.iter().zip(&r) {
        start[c] = *w;
    }
    let recycles = dot(&fh);
    // ln Σ_l r_l·e^(x_l).
    let ln_dot = |v: &[LnSum]| {
        v.iter()
            .zip(&r)
            .map(|(x, w)| x.value() + w.ln())
            .collect::<LnSum>()
            .value()
    };
    let ln = ChainLogs {
        ln_fp: ln_dot(&a_ln) - messages.ln(),
        ln_fp_frozen: ln_dot(&fr_ln) - recycles.ln(),
    };
    Ok((
        ChainSolution {
            fp: dot(&av) / messages,
            fp_frozen: dot(&fr) / recycles,
            messages,
            start,
        },
        ln,
    ))
}

/// The stationary distribution `π_0..π_σ` seen by arriving new messages.
///
/// # Errors
/// As [`solve`].
pub fn stationary(law: Law, sigma: u64, retention: Retention) -> Result<Vec<f64>, ModelError> {
    let sol = solve(law, sigma, retention)?;
    let starts = start_states(law, retention);
    let weights: Vec<f64> = starts.iter().map(|&c| sol.start[c]).collect();
    let mut g = Vec::with_capacity(sigma as usize + 1);
    forward(law, sigma, &starts, Some(&weights), |_, gi, _| {
        g.push(gi[0])
    });
    let total: f64 = g.iter().copied().collect::<CompensatedSum>().value();
    Ok(g.into_iter().map(|x| x / total).collect())
}

/// Expected new messages to take an empty filter to `σ` bits, Eqs. (20)-(23) [RBF] as
/// printed: `E[N_b] = 0` for `b ≥ σ` and, for `b < σ`,
/// ```text
/// E[N_b] = (1 + Σ_{j=1..k} τ(b, b+j)·E[N_{b+j}]) / (1 − τ(b, b))
/// ```
/// It counts the messages needed to *reach* σ bits; the cycle, which ends only when
/// `b > σ`, is longer ([`ChainSolution::messages`]).
pub fn messages_paper(law: Law, sigma: u64) -> f64 {
    let k = law.k as usize;
    let w = k + 1;
    let mut n = vec![0.0; w]; // n[b % w] = E[N_b] for b in (current, current + k]
    let mut row = vec![0.0; w];
    let mut batch = NewBitsBatch::new(law);
    for b in (0..sigma).rev() {
        batch.row(b, &mut row);
        let leave: f64 = row[1..].iter().sum();
        let mut s = 1.0;
        for (j, p) in row.iter().enumerate().skip(1) {
            let t = b + j as u64;
            if t < sigma {
                s += p * n[(t % w as u64) as usize];
            }
        }
        n[(b % w as u64) as usize] = s / leave;
    }
    n[0]
}

/// One point of the non-retaining curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// The threshold σ.
    pub sigma: u64,
    /// f_σ¹, Eq. (18) [RBF].
    pub fp: f64,
    /// FP in the frozen filter (Eqs. (24)-(25) [RBF]); NaN unless two-phase was asked for.
    pub fp_frozen: f64,
    /// Mean new messages per cycle `Σ_{i≤σ} g_i = 1/π_0`.
    pub messages: f64,
}

impl CurvePoint {
    /// f_σ², Eq. (26) [RBF].
    pub fn fp_two_phase(&self) -> f64 {
        crate::numeric::either(self.fp, self.fp_frozen)
    }
}

/// The non-retaining curve `σ ↦ (f_σ¹, f_σ², messages)` for `σ = k, k+1, …` in one pass:
/// the unnormalised vector `g_i` below σ does not depend on σ, so each further σ costs one
/// row of transitions (`O(k²)`), plus `O(k²)` for the frozen-filter law when asked for.
#[derive(Debug, Clone)]
pub struct CurveScan {
    law: Law,
    frozen: bool,
    i: u64,
    slot: usize,
    rows: Vec<f64>,
    g: Vec<f64>,
    a: CompensatedSum,
    b: CompensatedSum,
    /// The rows of the next states, made [`BATCH`](super::transitions::BATCH) at a time.
    batch: NewBitsBatch,
}

impl CurveScan {
    /// A scan for the filter `law`; `frozen` also computes the frozen-filter FP.
    pub fn new(law: Law, frozen: bool) -> Self {
        let w = law.k as usize + 1;
        Self {
            law,
            frozen,
            i: 0,
            slot: 0,
            rows: vec![0.0; w * w],
            g: vec![0.0; w],
            a: CompensatedSum::new(),
            b: CompensatedSum::new(),
            batch: NewBitsBatch::new(law),
        }
    }
}

impl CurveScan {
    /// The slot of the state of the last point returned.
    fn last_slot(&self) -> usize {
        if self.slot == 0 {
            self.law.k as usize
        } else {
            self.slot - 1
        }
    }

    /// `ρ(σ)` of the last point returned (Eq. (17) [RBF], the self-loop `τ(σ, σ)`).
    ///
    /// It bounds that point's frozen-filter FP: a weighted mean of `ρ(σ − t)`,
    /// `t = 0..k`, and `ρ` grows with the state (in floating point too: `(i/M)^k` by
    /// repeated multiplication), so the computed mean exceeds `ρ(σ)` by at most its
    /// `2k + 2` roundings (below `1e-13` relative for `k ≤ 64`).
    pub fn rho_last(&self) -> f64 {
        self.rows[self.last_slot() * (self.law.k as usize + 1)]
    }

    /// The frozen-filter FP (Eqs. (24)-(25) [RBF]) of the last point returned, the
    /// [`CurvePoint::fp_frozen`] a scan made with `frozen` reports: a scan without it can
    /// ask for it only at the points where it matters (issue 18: the `O(k²)` sum at every
    /// σ was half of a two-phase design's time).
    pub fn frozen_fp(&self) -> f64 {
        let w = self.law.k as usize + 1;
        let (mut fh, mut fr) = (0.0, 0.0);
        let mut js = self.last_slot();
        // States i, i−1, …, i−k+1: state i − t overflows when d > t.
        for t in 0..w - 1 {
            let row = &self.rows[js * w..(js + 1) * w];
            let ov: f64 = row[1 + t..].iter().sum();
            fh += self.g[js] * ov;
            fr += self.g[js] * ov * row[0];
            js = if js == 0 { w - 1 } else { js - 1 };
        }
        fr / fh
    }
}

impl Iterator for CurveScan {
    type Item = CurvePoint;

    fn next(&mut self) -> Option<CurvePoint> {
        let k = self.law.k as usize;
        let w = k + 1;
        loop {
            let i = self.i;
            if i >= self.law.m {
                return None;
            }
            self.i += 1;
            let slot = self.slot;
            self.slot = if slot + 1 == w { 0 } else { slot + 1 };
            self.batch.row(i, &mut self.rows[slot * w..(slot + 1) * w]);
            let leave: f64 = self.rows[slot * w + 1..(slot + 1) * w].iter().sum();
            let mut s = if i == 0 { 1.0 } else { 0.0 };
            let mut js = slot;
            for d in 1..=k.min(i as usize) {
                js = if js == 0 { w - 1 } else { js - 1 };
                s += self.g[js] * self.rows[js * w + d];
            }
            let gi = s / leave;
            self.g[slot] = gi;
            // ρ(i) = τ(i, i), Eq. (17) [RBF]: the row's first entry.
            self.a.add(gi * self.rows[slot * w]);
            self.b.add(gi);
            if i < k as u64 {
                continue;
            }
            let fp_frozen = if self.frozen {
                self.frozen_fp()
            } else {
                f64::NAN
            };
            let messages = self.b.value();
            return Some(CurvePoint {
                sigma: i,
                fp: self.a.value() / messages,
                fp_frozen,
                messages,
            });
        }
    }
}
