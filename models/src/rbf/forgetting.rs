//! False negatives, which the paper leaves out (Section I [RBF]: "beyond the scope"):
//! the law of the cycle length and the probability that a message is forgotten.
//!
//! A message that set bits (and did not itself trigger a recycle) is held until its filter
//! is cleared: by the next recycle with one phase, by the second with two. Starting from
//! the state just after its insertion (law `∝ π_i·τ(i, i+d)`, `d ≥ 1`, `i + d ≤ σ`), the
//! chain is run forward, splitting off the mass that has recycled once (twice).
//!
//! Cost `O(k·σ)` per step and `O(k·σ)` memory (all transition rows are kept).

use super::chain::solve;
use super::transitions::recycle_law;
use super::RbfParams;
use crate::error::ModelError;
use serde::Serialize;

/// Largest `k·σ·horizon` accepted (about a second).
pub const BUDGET: f64 = 2e9;

/// Largest number of transition-row entries `(σ+1)(k+1)` kept (256 MB).
pub const ROWS_LIMIT: f64 = 3.2e7;

/// False-negative analysis of a σ-bounded RBF: element `j − 1` of each vector is for
/// `j = 1..=horizon` new messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forgetting {
    /// `P(L = j)`: a cycle takes exactly `j` new messages (the last one recycles).
    pub cycle_length: Vec<f64>,
    /// Probability that a message inserted `j` new messages ago is no longer held
    /// (its filter has been cleared: one recycle with one phase, two with two).
    pub forgotten: Vec<f64>,
    /// Probability that it is reported as new when it arrives again after `j` new
    /// messages: forgotten and not a false positive. Exact with one phase; with two,
    /// the frozen filter is taken at its mean FP (independence approximation).
    pub reported_new: Vec<f64>,
}

struct Kernel {
    k: usize,
    sigma: usize,
    rows: Vec<f64>,
    /// Recycle laws of the states in the overflow zone, `(k+1)` per state.
    recycle: Vec<f64>,
    zone: usize,
}

impl Kernel {
    /// One arrival: returns the new vector and the recycled mass by start state.
    fn step(&self, v: &[f64], out: &mut [f64], rec: &mut [f64]) {
        let w = self.k + 1;
        out.fill(0.0);
        rec.fill(0.0);
        for (i, &x) in v.iter().enumerate() {
            if x == 0.0 {
                continue;
            }
            let row = &self.rows[i * w..(i + 1) * w];
            for (d, p) in row.iter().enumerate() {
                if i + d <= self.sigma {
                    out[i + d] += x * p;
                }
            }
            if i >= self.zone {
                let law = &self.recycle[(i - self.zone) * w..(i - self.zone + 1) * w];
                for (r, p) in rec.iter_mut().zip(law) {
                    *r += x * p;
                }
            }
        }
    }
}

/// Cycle-length law and forgetting curves up to `horizon` new messages.
///
/// # Errors
/// [`ModelError::InvalidParam`] naming `horizon` when `k·σ·horizon` exceeds [`BUDGET`]
/// or `horizon` is 0; naming `sigma` when the kept rows exceed [`ROWS_LIMIT`] or the
/// solve exceeds [`super::EXACT_BUDGET`]; solver errors as [`solve`].
pub fn analyse(params: &RbfParams, horizon: u64) -> Result<Forgetting, ModelError> {
    let (k, sigma) = (params.k() as usize, params.sigma() as usize);
    let cost = k as f64 * sigma as f64 * horizon as f64;
    if horizon == 0 || cost > BUDGET {
        return Err(ModelError::invalid(
            "horizon",
            horizon,
            format!("1 <= horizon and k·sigma·horizon <= {BUDGET:e}"),
        ));
    }
    // The transition rows are kept ((σ+1)(k+1) numbers) and the chain is solved first
    // (O(k²·σ)): both are bounded before anything is allocated (issue 10: k = 1,
    // σ = 10^9, horizon = 1 passed the budget above and asked for 16 GB).
    let rows = (sigma as f64 + 1.0) * (k as f64 + 1.0);
    let solve_work = (k as f64).powi(2) * sigma as f64;
    if rows > ROWS_LIMIT || solve_work > super::EXACT_BUDGET {
        return Err(ModelError::invalid(
            "sigma",
            sigma,
            format!(
                "(sigma+1)·(k+1) <= {ROWS_LIMIT:e} (memory) and k²·sigma <= {:e} (time) for \
                 the false-negative analysis",
                super::EXACT_BUDGET
            ),
        ));
    }
    let law = params.law();
    let retention = params.retention();
    let sol = solve(law, params.sigma(), retention)?;
    let pi = super::chain::stationary(law, params.sigma(), retention)?;
    let w = k + 1;
    let mut rows = vec![0.0; (sigma + 1) * w];
    for i in 0..=sigma {
        law.new_bits(i as u64, &mut rows[i * w..(i + 1) * w]);
    }
    let zone = (sigma + 1).saturating_sub(k);
    let mut recycle = vec![0.0; (sigma + 1 - zone) * w];
    for i in zone..=sigma {
        let (row, out) = (
            &rows[i * w..(i + 1) * w],
            &mut recycle[(i - zone) * w..(i - zone + 1) * w],
        );
        recycle_law(law, params.sigma(), i as u64, retention, row, out);
    }
    let kern = Kernel {
        k,
        sigma,
        rows,
        recycle,
        zone,
    };
    let rho: Vec<f64> = (0..=sigma).map(|i| law.rho(i as u64)).collect();
    let n = sigma + 1;
    let (mut tmp, mut rec) = (vec![0.0; n], vec![0.0; w]);

    // Cycle length: start from the cycle-start law, kill at the first recycle.
    let mut v = vec![0.0; n];
    for (c, p) in sol.start.iter().enumerate() {
        v[c] += p;
    }
    let mut cycle_length = Vec::with_capacity(horizon as usize);
    for _ in 0..horizon {
        kern.step(&v, &mut tmp, &mut rec);
        cycle_length.push(rec.iter().sum());
        std::mem::swap(&mut v, &mut tmp);
    }

    // Forgetting: the state just after a successful insertion.
    let mut alive = vec![0.0; n];
    for (i, &p) in pi.iter().enumerate() {
        let row = &kern.rows[i * w..(i + 1) * w];
        for (d, t) in row.iter().enumerate().skip(1) {
            if i + d <= sigma {
                alive[i + d] += p * t;
            }
        }
    }
    let total: f64 = alive.iter().sum();
    alive.iter_mut().for_each(|x| *x /= total);
    let two = params.phases() == 2;
    let mut once = vec![0.0; n]; // two phases: recycled once, still held by the frozen filter
    let mut gone = vec![0.0; n];
    let (mut rec_once, mut rec_gone) = (vec![0.0; w], vec![0.0; w]);
    let mut forgotten = Vec::with_capacity(horizon as usize);
    let mut reported_new = Vec::with_capacity(horizon as usize);
    let frozen_miss = if two { 1.0 - sol.fp_frozen } else { 1.0 };
    for _ in 0..horizon {
        kern.step(&alive, &mut tmp, &mut rec);
        std::mem::swap(&mut alive, &mut tmp);
        kern.step(&gone, &mut tmp, &mut rec_gone);
        std::mem::swap(&mut gone, &mut tmp);
        for (c, r) in rec_gone.iter().enumerate() {
            gone[c] += r;
        }
        if two {
            kern.step(&once, &mut tmp, &mut rec_once);
            std::mem::swap(&mut once, &mut tmp);
            for c in 0..w {
                once[c] += rec[c];
                gone[c] += rec_once[c];
            }
        } else {
            for (c, r) in rec.iter().enumerate() {
                gone[c] += r;
            }
        }
        forgotten.push(gone.iter().sum::<f64>().min(1.0));
        let miss: f64 = gone.iter().zip(&rho).map(|(g, r)| g * (1.0 - r)).sum();
        reported_new.push((miss * frozen_miss).min(1.0));
    }
    Ok(Forgetting {
        cycle_length,
        forgotten,
        reported_new,
    })
}
