//! One cell's Markov chain under an insertion / deletion policy.
//!
//! A cell's state is its value `v ∈ 0..=Max` and, for policies that need it, the
//! cumulative importance `c ∈ 1..=C` of the items mapped to it since it was last zero
//! (`C = 2^b − 1`, a saturating `b`-bit counter; `c` resets to 0 with the cell). One step
//! is one insertion: the deletion phase decrements the cell with probability `d(state)`
//! (fixed by the policy, or by the mean-field fixed point for global policies), then the
//! item sets the cell with probability `a = K/m`, drawing its importance `i` from the
//! distribution: `v ← ins(i)`, `c ← min(c + i, C)`.

use crate::error::ModelError;
use crate::markov;
use nalgebra::{DMatrix, DVector};

/// The chain of one cell. States: untracked (`cap = 0`) `v = 0..=Max`; tracked
/// `0 ↔ (0, 0)` and `1 + (c − 1)·Max + (v − 1) ↔ (v, c)` for `v ≥ 1, 1 ≤ c ≤ C`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CellChain {
    pub max: u32,
    /// Counter cap `C`; 0 when the policy does not track cumulative importance.
    pub cap: u32,
    /// Probability that the cell is one of an insertion's `K` distinct cells.
    pub a: f64,
    /// `(value set, importance, probability)` of an insertion.
    pub sets: Vec<(u32, u32, f64)>,
    /// Decrement probability per state (0 for the zero state).
    pub dec: Vec<f64>,
}

impl CellChain {
    pub fn states(&self) -> usize {
        if self.cap == 0 {
            self.max as usize + 1
        } else {
            1 + (self.max * self.cap) as usize
        }
    }

    pub fn decode(&self, s: usize) -> (u32, u32) {
        if self.cap == 0 {
            (s as u32, 0)
        } else if s == 0 {
            (0, 0)
        } else {
            let j = (s - 1) as u32;
            (j % self.max + 1, j / self.max + 1)
        }
    }

    pub fn encode(&self, v: u32, c: u32) -> usize {
        if self.cap == 0 {
            v as usize
        } else if v == 0 {
            0
        } else {
            1 + ((c - 1) * self.max + (v - 1)) as usize
        }
    }

    /// The state after one decrement of `s` (a zero cell stays zero; `c` resets at 0).
    fn down(&self, s: usize) -> usize {
        let (v, c) = self.decode(s);
        if v <= 1 {
            0
        } else {
            self.encode(v - 1, c)
        }
    }

    /// The state a set with `(value, importance)` leads to from post-deletion state `s`.
    fn set_target(&self, s: usize, value: u32, imp: u32) -> usize {
        if self.cap == 0 {
            value as usize
        } else {
            let c = self.decode(s).1;
            self.encode(value, (c + imp).min(self.cap))
        }
    }

    /// Post-deletion states of `s` with their probabilities.
    fn post(&self, s: usize) -> [(usize, f64); 2] {
        let d = self.dec[s];
        [(s, 1.0 - d), (self.down(s), d)]
    }

    /// Calls `f(target, probability)` for every one-step transition out of `s`.
    pub fn for_each_transition(&self, s: usize, mut f: impl FnMut(usize, f64)) {
        for (ps, pr) in self.post(s) {
            if pr == 0.0 {
                continue;
            }
            f(ps, pr * (1.0 - self.a));
            for &(v, imp, w) in &self.sets {
                f(self.set_target(ps, v, imp), pr * self.a * w);
            }
        }
    }

    /// The dense transition matrix (for GTH and the cross-checks).
    pub fn dense(&self) -> DMatrix<f64> {
        let n = self.states();
        let mut t = DMatrix::zeros(n, n);
        for s in 0..n {
            self.for_each_transition(s, |j, p| t[(s, j)] += p);
        }
        t
    }

    /// The stationary distribution: GTH on the dense matrix for untracked chains; for
    /// tracked chains a forward substitution over the counter levels (sets only raise
    /// `c`, decrements keep it, so levels `1..C−1` are solved in order, each from `v = Max`
    /// down, and the saturated level `C` by one `Max × Max` LU solve).
    pub fn stationary(&self) -> Result<Vec<f64>, ModelError> {
        if self.cap == 0 {
            return Ok(markov::stationary_gth(&self.dense())?
                .iter()
                .copied()
                .collect());
        }
        let (max, cap, a) = (self.max, self.cap, self.a);
        let n = self.states();
        let mut x = vec![0.0; n];
        let mut acc = vec![0.0; n];
        // Unnormalised: the post-deletion mass of zero cells is 1, so the zero state holds
        // 1 − a and the sets out of zero bring a·w_i into their first states.
        x[0] = 1.0 - a;
        for &(v, imp, w) in &self.sets {
            acc[self.set_target(0, v, imp)] += a * w;
        }
        for c in 1..cap {
            for v in (1..=max).rev() {
                let s = self.encode(v, c);
                let mut inflow = acc[s];
                if v < max {
                    let up = self.encode(v + 1, c);
                    inflow += x[up] * self.dec[up] * (1.0 - a);
                }
                let d = self.dec[s];
                x[s] = inflow / (a + d * (1.0 - a));
            }
            // Push this level's sets (from non-zero post-deletion states) upward.
            let mass: f64 = (1..=max)
                .map(|v| {
                    let s = self.encode(v, c);
                    let d = self.dec[s];
                    x[s] * if v >= 2 { 1.0 } else { 1.0 - d }
                })
                .sum();
            for &(v, imp, w) in &self.sets {
                acc[self.encode(v, (c + imp).min(cap))] += mass * a * w;
            }
        }
        // Saturated level: x = acc + x·T_CC. Solved without subtractions (the chance of
        // leaving the level can be far below rounding, e.g. Max decrements in a row at a
        // small MinImp rate): GTH on the chain {out, (1, C) .. (Max, C)} that leaves the
        // level to `out` (a decrement to zero) and re-enters it ∝ acc; then
        // x_C = π_C · Σacc / π_out.
        let k = max as usize;
        let inflow: f64 = (1..=max).map(|v| acc[self.encode(v, cap)]).sum();
        if inflow > 0.0 {
            let mut q = DMatrix::<f64>::zeros(k + 1, k + 1);
            for v in 1..=max {
                q[(0, v as usize)] = acc[self.encode(v, cap)] / inflow;
            }
            for u in 1..=max {
                let su = self.encode(u, cap);
                for (ps, pr) in self.post(su) {
                    if pr == 0.0 {
                        continue;
                    }
                    if ps == 0 {
                        q[(u as usize, 0)] += pr;
                        continue;
                    }
                    let pv = self.decode(ps).0 as usize;
                    q[(u as usize, pv)] += pr * (1.0 - a);
                    for &(v, _, w) in &self.sets {
                        q[(u as usize, v as usize)] += pr * a * w;
                    }
                }
            }
            let pi = markov::stationary_gth(&q).map_err(|_| {
                ModelError::invalid(
                    "cell chain",
                    "saturated level never left",
                    "an irreducible chain",
                )
            })?;
            if !(pi[0] > 0.0) {
                return Err(ModelError::invalid(
                    "cell chain",
                    "saturated level never left",
                    "an irreducible chain",
                ));
            }
            for v in 1..=max {
                x[self.encode(v, cap)] = pi[v as usize] * inflow / pi[0];
            }
        }
        let total: f64 = x.iter().sum();
        Ok(x.into_iter().map(|p| p / total).collect())
    }

    /// One backward step `b' = T·b`: `b'(s)` is the expected value of `b` after one step
    /// from `s`. Sets are aggregated per counter level first: `O(C·|sets| + states)`.
    pub fn backward(&self, b: &[f64]) -> Vec<f64> {
        let levels = self.cap as usize + 1;
        let g: Vec<f64> = (0..levels)
            .map(|c| {
                self.sets
                    .iter()
                    .map(|&(v, imp, w)| {
                        let t = if self.cap == 0 {
                            v as usize
                        } else {
                            self.encode(v, (c as u32 + imp).min(self.cap))
                        };
                        w * b[t]
                    })
                    .sum()
            })
            .collect();
        (0..self.states())
            .map(|s| {
                self.post(s)
                    .iter()
                    .map(|&(ps, pr)| {
                        let c = self.decode(ps).1 as usize;
                        pr * ((1.0 - self.a) * b[ps] + self.a * g[c])
                    })
                    .sum()
            })
            .collect()
    }

    /// One forward step `x' = x·T`: the distribution after one more insertion. Sets are
    /// aggregated per counter level: `O(C·|sets| + states)`.
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let y = self.after_deletion(x);
        let mut out: Vec<f64> = y.iter().map(|p| p * (1.0 - self.a)).collect();
        let mut level = vec![0.0; self.cap as usize + 1];
        for (s, &p) in y.iter().enumerate() {
            level[self.decode(s).1 as usize] += p;
        }
        for (c, &mass) in level.iter().enumerate() {
            if mass == 0.0 {
                continue;
            }
            for &(v, imp, w) in &self.sets {
                let t = if self.cap == 0 {
                    v as usize
                } else {
                    self.encode(v, (c as u32 + imp).min(self.cap))
                };
                out[t] += self.a * w * mass;
            }
        }
        out
    }

    /// `T^steps · e_0`: entry `s` is the probability of being zero `steps` insertions
    /// after being in state `s`.
    ///
    /// Step by step (`O(steps·(C·|sets| + states))`) while that is cheaper than binary
    /// powering of the dense matrix (`O(states³·log steps)`, rows renormalised after each
    /// squaring), which takes over for long ages on small chains (an SBF with `Max` up to
    /// 255 at ages up to `2^64`).
    pub fn zero_after(&self, steps: u64) -> Vec<f64> {
        let n = self.states() as u64;
        let per_step = self.cap as u64 * self.sets.len() as u64 + 4 * n;
        let log = 64 - steps.leading_zeros() as u64;
        if n <= 512 && steps.saturating_mul(per_step) > n * n * n * 2 * log.max(1) {
            let mut e0 = DVector::zeros(n as usize);
            e0[0] = 1.0;
            let mut pw = self.dense();
            let mut out = e0;
            let mut k = steps;
            while k > 0 {
                if k & 1 == 1 {
                    out = &pw * out;
                }
                k >>= 1;
                if k > 0 {
                    pw = &pw * &pw;
                    for mut row in pw.row_iter_mut() {
                        let s = row.sum();
                        row /= s;
                    }
                }
            }
            return out.iter().map(|x| x.clamp(0.0, 1.0)).collect();
        }
        let mut b = vec![0.0; self.states()];
        b[0] = 1.0;
        for _ in 0..steps {
            b = self.backward(&b);
        }
        b
    }

    /// Work units of [`Self::zero_after`] for `steps` (for callers that refuse runs of
    /// more than a few seconds).
    pub fn zero_after_work(&self, steps: u64) -> u64 {
        let n = self.states() as u64;
        let per_step = self.cap as u64 * self.sets.len() as u64 + 4 * n;
        let log = 64 - steps.leading_zeros() as u64;
        let stepwise = steps.saturating_mul(per_step);
        if n <= 512 {
            stepwise.min(n * n * n * 2 * log.max(1))
        } else {
            stepwise
        }
    }

    /// The distribution right after the deletion phase, from `x`.
    pub fn after_deletion(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        for (s, &p) in x.iter().enumerate() {
            for (ps, pr) in self.post(s) {
                y[ps] += p * pr;
            }
        }
        y
    }

    /// The distribution of an item's cell right after the item (importance `imp`,
    /// setting `value`) was inserted, from the post-deletion distribution `y`.
    pub fn after_set(&self, y: &[f64], value: u32, imp: u32) -> Vec<f64> {
        let mut z = vec![0.0; y.len()];
        for (s, &p) in y.iter().enumerate() {
            if p != 0.0 {
                z[self.set_target(s, value, imp)] += p;
            }
        }
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn tracked(dec: impl Fn(u32, u32) -> f64) -> CellChain {
        let mut chain = CellChain {
            max: 3,
            cap: 9,
            a: 0.05,
            sets: vec![(3, 1, 0.5), (2, 2, 0.3), (1, 4, 0.2)],
            dec: Vec::new(),
        };
        chain.dec = (0..chain.states())
            .map(|s| {
                let (v, c) = chain.decode(s);
                if v == 0 {
                    0.0
                } else {
                    dec(v, c)
                }
            })
            .collect();
        chain
    }

    #[test]
    fn encode_decode_roundtrip() {
        let ch = tracked(|_, _| 0.1);
        for s in 0..ch.states() {
            let (v, c) = ch.decode(s);
            assert_eq!(ch.encode(v, c), s);
        }
    }

    #[test]
    fn rows_sum_to_one() {
        let ch = tracked(|v, c| 0.02 * f64::from(v) + 0.01 * f64::from(c));
        let t = ch.dense();
        for row in t.row_iter() {
            assert_relative_eq!(row.sum(), 1.0, max_relative = 1e-14);
        }
    }

    #[test]
    fn level_solver_matches_gth_and_dense() {
        // Two decrement laws: uniform, and one that falls with c (like 1/c weights) and
        // includes certain decrements (like MinImp thresholds).
        for ch in [
            tracked(|_, _| 0.07),
            tracked(|_, c| if c < 3 { 1.0 } else { 0.3 / f64::from(c) }),
        ] {
            let fast = ch.stationary().unwrap();
            let gth = markov::stationary_gth(&ch.dense()).unwrap();
            let dense = markov::stationary_dense(&ch.dense()).unwrap();
            for s in 0..ch.states() {
                assert_relative_eq!(fast[s], gth[s], max_relative = 1e-10, epsilon = 1e-300);
                assert_relative_eq!(gth[s], dense[s], max_relative = 1e-8, epsilon = 1e-14);
            }
        }
    }

    #[test]
    fn forward_matches_dense_product() {
        let ch = tracked(|v, c| 0.03 * f64::from(v) + 0.01 * f64::from(c % 3));
        let t = ch.dense();
        let mut x = vec![0.0; ch.states()];
        x[0] = 1.0;
        let mut dense = nalgebra::RowDVector::from_row_slice(&x);
        for _ in 0..9 {
            x = ch.forward(&x);
            dense = &dense * &t;
        }
        for s in 0..ch.states() {
            assert_relative_eq!(x[s], dense[s], max_relative = 1e-12, epsilon = 1e-15);
        }
        assert_relative_eq!(x.iter().sum::<f64>(), 1.0, max_relative = 1e-13);
    }

    #[test]
    fn zero_after_powering_matches_stepping() {
        // Untracked chain with a long age: the dense powering path.
        let mut ch = CellChain {
            max: 4,
            cap: 0,
            a: 0.01,
            sets: vec![(4, 0, 0.6), (2, 0, 0.4)],
            dec: vec![0.0, 0.02, 0.02, 0.02, 0.02],
        };
        let long = 5000;
        assert!(ch.zero_after_work(long) < long * 30);
        let fast = ch.zero_after(long);
        let mut b = vec![1.0, 0.0, 0.0, 0.0, 0.0];
        for _ in 0..long {
            b = ch.backward(&b);
        }
        for s in 0..5 {
            assert_relative_eq!(fast[s], b[s], max_relative = 1e-9);
        }
        ch.dec[1] = 0.5;
        assert_relative_eq!(
            ch.zero_after(3)[1],
            ch.backward(&ch.backward(&ch.backward(&[1.0, 0.0, 0.0, 0.0, 0.0])))[1],
            max_relative = 1e-12
        );
    }

    #[test]
    fn backward_matches_dense_power() {
        let ch = tracked(|v, _| 0.05 * f64::from(v));
        let t = ch.dense();
        let mut e0 = DVector::zeros(ch.states());
        e0[0] = 1.0;
        let direct = t.pow(7) * e0;
        let fast = ch.zero_after(7);
        for s in 0..ch.states() {
            assert_relative_eq!(fast[s], direct[s], max_relative = 1e-12, epsilon = 1e-15);
        }
    }
}
