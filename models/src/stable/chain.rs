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

/// `b' = T·b` with its index tables precomputed ([`CellChain::backward_plan`]).
///
/// # Formula
/// Sets are aggregated per counter level first, `g(c) = Σ_j w_j·b(set_j(c))`, then
/// `b'(s) = Σ_{post-deletion s'} Pr(s → s')·((1 − a)·b(s') + a·g(level(s')))`:
/// `O(C·|sets| + states)` per step.
///
/// A tracked chain (`cap > 0`) takes a structured path ([`Counted`]): for each value a set
/// writes, `g(c) = Σ_i w_v(i)·b(v, min(c + i, C))` is a correlation of the weights by
/// importance with the values' column of `b`, made as contiguous dot products (4 lanes),
/// and the states of one level are one contiguous block (`down` is the state before,
/// or the zero state from `v = 1`). Same formula, other summation order (issue 18: 86% of
/// `optimize ibf --policies ibf3` was this function).
#[derive(Debug, Clone)]
pub struct BackwardPlan {
    a: f64,
    weights: Vec<f64>,
    /// `targets[c·|sets| + j]`: where set `j` takes a cell of level `c`.
    targets: Vec<usize>,
    level: Vec<usize>,
    down: Vec<usize>,
    down_level: Vec<usize>,
    dec: Vec<f64>,
    g: Vec<f64>,
    counted: Option<Counted>,
}

/// The layout of a tracked chain for [`BackwardPlan::apply`]: states
/// `1 + (c − 1)·Max + (v − 1)`, levels `c = 0..=C`.
#[derive(Debug, Clone)]
struct Counted {
    max: usize,
    cap: usize,
    /// One per value a set writes.
    groups: Vec<ValueSets>,
    /// Scratch: one value's column `b(v, c)`, `c = 0..=C` (entry 0 unused).
    column: Vec<f64>,
}

/// The sets that write value `v`: weight `w[j]` for importance `lo + j`, and
/// `tail[j] = Σ_{j' ≥ j} w[j']` (the sets that saturate the counter from a level).
#[derive(Debug, Clone)]
struct ValueSets {
    v: usize,
    lo: usize,
    w: Vec<f64>,
    tail: Vec<f64>,
}

impl Counted {
    /// The layout of `chain`, `None` if it is untracked or a set has importance 0.
    fn of(chain: &CellChain) -> Option<Self> {
        if chain.cap == 0 || chain.sets.iter().any(|&(v, imp, _)| imp == 0 || v == 0) {
            return None;
        }
        // One group per value, in the order the sets first write it.
        let mut values: Vec<u32> = Vec::new();
        for &(v, _, _) in &chain.sets {
            if !values.contains(&v) {
                values.push(v);
            }
        }
        let groups = values
            .into_iter()
            .map(|v| {
                let of_v = || chain.sets.iter().filter(move |s| s.0 == v);
                let imps = || of_v().map(|s| s.1 as usize);
                let (lo, hi) = (imps().min().unwrap_or(1), imps().max().unwrap_or(1));
                let mut w = vec![0.0; hi - lo + 1];
                for &(_, imp, p) in of_v() {
                    w[imp as usize - lo] += p;
                }
                let mut tail = vec![0.0; w.len() + 1];
                for j in (0..w.len()).rev() {
                    tail[j] = tail[j + 1] + w[j];
                }
                ValueSets {
                    v: v as usize,
                    lo,
                    w,
                    tail,
                }
            })
            .collect();
        Some(Self {
            max: chain.max as usize,
            cap: chain.cap as usize,
            groups,
            column: vec![0.0; chain.cap as usize + 1],
        })
    }

    /// `g(c)` for `c = 0..=C` from `b`.
    fn aggregate(&mut self, b: &[f64], g: &mut [f64]) {
        let (max, cap) = (self.max, self.cap);
        g.fill(0.0);
        for set in &self.groups {
            for (c, x) in self.column.iter_mut().enumerate().skip(1) {
                *x = b[1 + (c - 1) * max + (set.v - 1)];
            }
            let top = self.column[cap];
            // Importance lo + j from level c reads level c + lo + j while that is at most
            // C: one pass over the levels per importance (contiguous, and long where a
            // value's importances are few), instead of a short dot product per level.
            for (j, &wj) in set.w.iter().enumerate() {
                let first = set.lo + j;
                if first > cap {
                    break;
                }
                for (gc, x) in g[..=cap - first].iter_mut().zip(&self.column[first..]) {
                    *gc += wj * x;
                }
            }
            // The rest saturate at C: from the levels where some importance reaches past C
            // (below them `tail[len] = 0` would add an exact 0).
            let from = (cap + 2).saturating_sub(set.lo + set.w.len());
            for (c, gc) in g.iter_mut().enumerate().skip(from) {
                let open = (cap + 1).saturating_sub(c + set.lo).min(set.w.len());
                *gc += top * set.tail[open];
            }
        }
    }
}

impl BackwardPlan {
    /// `T^steps·e_0` by `steps` backward steps: entry `s` is the probability of being
    /// zero `steps` insertions after state `s`.
    pub fn zero_after(&mut self, steps: u64) -> Vec<f64> {
        let mut b = vec![0.0; self.dec.len()];
        let mut next = b.clone();
        b[0] = 1.0;
        for _ in 0..steps {
            self.apply(&b, &mut next);
            std::mem::swap(&mut b, &mut next);
        }
        b
    }

    /// Writes `T·b` into `out`.
    pub fn apply(&mut self, b: &[f64], out: &mut [f64]) {
        if let Some(counted) = &mut self.counted {
            counted.aggregate(b, &mut self.g);
            let (a, max) = (self.a, counted.max);
            let g = &self.g;
            out[0] = (1.0 - a) * b[0] + a * g[0];
            let (b0, g0) = (b[0], g[0]);
            for (c, block) in out[1..].chunks_exact_mut(max).enumerate() {
                let first = 1 + c * max;
                let gc = g[c + 1];
                let (bs, ds) = (&b[first..first + max], &self.dec[first..first + max]);
                // v = 1: down to the zero state.
                let stay = (1.0 - a) * bs[0] + a * gc;
                let down = (1.0 - a) * b0 + a * g0;
                block[0] = (1.0 - ds[0]) * stay + ds[0] * down;
                for v in 1..max {
                    let stay = (1.0 - a) * bs[v] + a * gc;
                    let down = (1.0 - a) * bs[v - 1] + a * gc;
                    block[v] = (1.0 - ds[v]) * stay + ds[v] * down;
                }
            }
            return;
        }
        let n = self.weights.len();
        for (c, g) in self.g.iter_mut().enumerate() {
            let t = &self.targets[c * n..(c + 1) * n];
            *g = t.iter().zip(&self.weights).map(|(&t, w)| w * b[t]).sum();
        }
        let a = self.a;
        for (s, o) in out.iter_mut().enumerate() {
            let d = self.dec[s];
            let stay = (1.0 - a) * b[s] + a * self.g[self.level[s]];
            let down = (1.0 - a) * b[self.down[s]] + a * self.g[self.down_level[s]];
            *o = (1.0 - d) * stay + d * down;
        }
    }
}

/// `(q, Bin(steps, q), last term)` of a uniformized `T^steps` ([`CellChain::uniformization`]).
type Uniformization = (f64, statrs::distribution::Binomial, u64);

/// [`CellChain::zero_after`]'s choice: dense powering, uniformization, or else stepping.
struct ZeroAfterPath {
    dense: bool,
    uniformized: Option<Uniformization>,
    /// Work units of the choice.
    work: u64,
}

/// The iterates `S^j·e_0`, `j = 0, 1, …` of a uniformized chain
/// ([`CellChain::uniformized_steps`]), each entry clamped to `[0, 1]`.
pub(crate) struct UniformizedSteps {
    q: f64,
    plan: BackwardPlan,
    v: Vec<f64>,
    t: Vec<f64>,
    started: bool,
}

impl UniformizedSteps {
    /// The next iterate: `e_0` first, then `S` times the previous one.
    pub fn next_power(&mut self) -> &[f64] {
        if self.started {
            let q = self.q;
            self.plan.apply(&self.v, &mut self.t);
            for (x, tx) in self.v.iter_mut().zip(&self.t) {
                *x = ((tx - (1.0 - q) * *x) / q).clamp(0.0, 1.0);
            }
        }
        self.started = true;
        &self.v
    }
}

/// `Bin(j; n, q)` for `j = 0..=J`: `J` is the first term past the mode after which the
/// binomial tail is below `tail` (or `n`); `None` if that takes more than `max_terms`.
///
/// # Formula
/// By the ratio of successive terms, in logs (no under- or overflow for large `n`):
/// ```text
/// ln b_0 = n·ln(1 − q),   r_j = b_{j+1}/b_j = (n − j)·q / ((j + 1)·(1 − q))
/// ```
/// Past the mode `r_j < 1` falls with `j`, so the tail after `j` is at most
/// `b_j·r_j/(1 − r_j)` (a geometric series).
pub(crate) fn binomial_terms(n: u64, q: f64, tail: f64, max_terms: usize) -> Option<Vec<f64>> {
    let (nf, lq, lp) = (n as f64, q.ln(), (-q).ln_1p());
    let mut ln_b = nf * lp;
    let mut out = Vec::new();
    for j in 0..=n {
        let b = ln_b.exp();
        out.push(b);
        if j == n {
            break;
        }
        let ln_r = (nf - j as f64).ln() + lq - ((j + 1) as f64).ln() - lp;
        let r = ln_r.exp();
        if r < 1.0 && b * r / (1.0 - r) < tail {
            break;
        }
        if out.len() >= max_terms {
            return None;
        }
        ln_b += ln_r;
    }
    Some(out)
}

/// Binomial tail at which [`CellChain::zero_after`]'s uniformized sum stops (its absolute
/// error).
pub const UNIFORMIZATION_TAIL: f64 = 1e-15;
use nalgebra::{DMatrix, DVector};

/// Counter levels `1, 2, …` up to 8, then each about `ratio` times the one before
/// (rounded up), ending at `cap` ([`CellChain::zero_after_coarse_lower`]).
pub(crate) fn coarse_levels(cap: u32, ratio: f64) -> Vec<u32> {
    let mut levels = vec![1u32];
    while let Some(&g) = levels.last().filter(|&&g| g < cap) {
        let next = if g < 8 {
            g + 1
        } else {
            (f64::from(g) * ratio).ceil() as u32
        };
        levels.push(next.max(g + 1).min(cap));
    }
    levels
}

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

    /// The states of counter level `c ≥ 1` (values `1..=Max`), value 1 first.
    pub(crate) fn level(&self, c: u32) -> std::ops::Range<usize> {
        self.encode(1, c)..self.encode(self.max, c) + 1
    }

    /// The state after one decrement of `s` (a zero cell stays zero; `c` resets at 0).
    pub(crate) fn down(&self, s: usize) -> usize {
        let (v, c) = self.decode(s);
        if v <= 1 {
            0
        } else {
            self.encode(v - 1, c)
        }
    }

    /// The state a set with `(value, importance)` leads to from post-deletion state `s`.
    pub(crate) fn set_target(&self, s: usize, value: u32, imp: u32) -> usize {
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

    /// The stationary distribution: for untracked chains a back substitution from
    /// `v = Max` down ([`Self::stationary_untracked`]); for tracked chains a forward
    /// substitution over the counter levels (sets only raise `c`, decrements keep it, so
    /// levels `1..C−1` are solved in order, each from `v = Max` down, and the saturated
    /// level `C` by GTH on its `Max + 1` states).
    pub fn stationary(&self) -> Result<Vec<f64>, ModelError> {
        if self.cap == 0 {
            if let Some(pi) = self.stationary_untracked() {
                return Ok(pi);
            }
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
            // Level `c`'s states, value 1 first.
            let level = self.level(c);
            for s in level.clone().rev() {
                let mut inflow = acc[s];
                if s + 1 < level.end {
                    inflow += x[s + 1] * self.dec[s + 1] * (1.0 - a);
                }
                let d = self.dec[s];
                x[s] = inflow / (a + d * (1.0 - a));
            }
            // Push this level's sets (from non-zero post-deletion states) upward.
            let mass: f64 = level
                .clone()
                .map(|s| {
                    x[s] * if s > level.start {
                        1.0
                    } else {
                        1.0 - self.dec[s]
                    }
                })
                .sum();
            let ma = mass * a;
            for &(v, imp, w) in &self.sets {
                acc[self.encode(v, (c + imp).min(cap))] += ma * w;
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

    /// The stationary law of an untracked chain (`cap = 0`) by its balance equations,
    /// solved from `v = Max` down without a subtraction (so tiny probabilities keep their
    /// relative accuracy, as with GTH); `None` for a chain outside its assumptions (no
    /// sets, `a` outside `(0, 1]`, a set value above `Max`), which GTH then solves.
    ///
    /// # Formula
    /// A step decrements `v ≥ 1` with probability `d_v`, then sets the cell to value `u`
    /// with probability `a·w_u` (whatever it held), so with `Σπ = 1`
    /// ```text
    /// π_v = (1 − a)·(π_v·(1 − d_v) + π_{v+1}·d_{v+1}) + a·w_v
    /// ⇔ π_v = ((1 − a)·π_{v+1}·d_{v+1} + a·w_v) / (a + (1 − a)·d_v)     (v = Max, …, 1)
    ///   π_0 = ((1 − a)·π_1·d_1 + a·w_0) / a
    /// ```
    /// (`π_{Max+1} = 0`, `d_0 = 0`), renormalised against rounding: `O(Max + |sets|)`.
    fn stationary_untracked(&self) -> Option<Vec<f64>> {
        let a = self.a;
        let n = self.states();
        if !(a > 0.0 && a <= 1.0) || self.sets.is_empty() || self.dec.len() != n {
            return None;
        }
        let mut w = vec![0.0; n];
        for &(v, _, p) in &self.sets {
            *w.get_mut(v as usize)? += p;
        }
        let mut pi = vec![0.0; n];
        let mut from_above = 0.0;
        for v in (0..n).rev() {
            let leave = if v == 0 {
                a
            } else {
                a + (1.0 - a) * self.dec[v]
            };
            pi[v] = ((1.0 - a) * from_above + a * w[v]) / leave;
            from_above = pi[v] * self.dec[v];
        }
        let total: f64 = pi.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return None;
        }
        Some(pi.into_iter().map(|p| p / total).collect())
    }

    /// One backward step `b' = T·b`: `b'(s)` is the expected value of `b` after one step
    /// from `s` (see [`BackwardPlan`] for repeated steps).
    #[cfg(test)]
    pub fn backward(&self, b: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; b.len()];
        self.backward_plan().apply(b, &mut out);
        out
    }

    /// The index tables of [`Self::backward`], built once for many steps.
    pub fn backward_plan(&self) -> BackwardPlan {
        let mut plan = self.backward_plan_by(|c, v, imp| {
            if self.cap == 0 {
                v as usize
            } else {
                self.encode(v, (c as u32 + imp).min(self.cap))
            }
        });
        plan.counted = Counted::of(self);
        plan
    }

    /// [`Self::backward_plan`] with the set from level `c` (0: the zero cell) writing
    /// value `v` with importance `i` leading to `target(c, v, i)`, on the general path.
    fn backward_plan_by(&self, target: impl Fn(usize, u32, u32) -> usize) -> BackwardPlan {
        let levels = self.cap as usize + 1;
        let target = &target;
        let targets = (0..levels)
            .flat_map(|c| self.sets.iter().map(move |&(v, imp, _)| target(c, v, imp)))
            .collect();
        let level = |s: usize| self.decode(s).1 as usize;
        let down: Vec<usize> = (0..self.states()).map(|s| self.down(s)).collect();
        BackwardPlan {
            a: self.a,
            weights: self.sets.iter().map(|s| s.2).collect(),
            targets,
            level: (0..self.states()).map(level).collect(),
            down_level: down.iter().map(|&d| level(d)).collect(),
            down,
            dec: self.dec.clone(),
            g: vec![0.0; levels],
            counted: None,
        }
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

    /// A lower bound on [`Self::zero_after`] in `O(Max·levels)`, where every non-zero state
    /// of a level is decremented with the same probability (`d_c`, as under
    /// Probabilistic-delete-p, whose weight is the counter's); `None` otherwise.
    ///
    /// # Formula
    /// A cell that no insertion sets for `n` steps (probability `(1 − a)^n`, independent of
    /// its decrements) keeps its level until it is zero, and is zero after `n` steps if
    /// it was decremented at least `v` times:
    /// ```text
    /// Pr(zero after n | (v, c)) ≥ (1 − a)^n · Pr(Bin(n, d_c) ≥ v),   Pr(zero after n | 0) ≥ (1 − a)^n
    /// ```
    /// The binomial tail is `1 − Σ_{j<v} b_j` with `b_0 = (1 − d)^n`,
    /// `b_{j+1} = b_j·(n − j)·d/((j + 1)·(1 − d))`; the sum is rounded up by `10⁻¹²`
    /// relative, so rounding cannot lift the bound above the exact value.
    pub fn zero_after_lower(&self, steps: u64) -> Option<Vec<f64>> {
        let max = self.max as usize;
        let n = steps as f64;
        let quiet = (n * (-self.a).ln_1p()).exp();
        let mut out = vec![0.0; self.states()];
        out[0] = quiet;
        let blocks = if self.cap == 0 { 1 } else { self.cap as usize };
        for c in 0..blocks {
            let block = &self.dec[1 + c * max..1 + (c + 1) * max];
            let d = block[0];
            if block.iter().any(|&x| x != d) || !(0.0..=1.0).contains(&d) {
                return None;
            }
            let mut term = if d >= 1.0 {
                f64::from(u8::from(steps == 0))
            } else {
                (n * (-d).ln_1p()).exp()
            };
            let mut below = 0.0;
            for v in 1..=max {
                below += term;
                let tail = (1.0 - below * (1.0 + 1e-12)).max(0.0);
                out[1 + c * max + (v - 1)] = quiet * tail;
                let j = (v - 1) as f64;
                term = if d >= 1.0 {
                    f64::from(u8::from(v as u64 == steps))
                } else if j < n {
                    term * (n - j) / (j + 1.0) * d / (1.0 - d)
                } else {
                    0.0
                };
            }
        }
        Some(out)
    }

    /// A lower bound on [`Self::zero_after`] from a chain whose counter takes only the
    /// levels of [`coarse_levels`] (`ratio` apart), by a coupling; `None` for an untracked
    /// chain or where a value's decrement probability rises with the counter.
    ///
    /// # Formula
    /// The coarse chain rounds the counter up to the next of its levels `g_0 < … = C`
    /// after each set, `c' = up(min(c + i, C))`, and decrements `(v, g)` with the exact
    /// chain's `d(v, g)`. Run both on the same sets and the same uniform draw per
    /// decrement. By induction the coarse cell's value is never below the exact one's
    /// (sets write the same value; when the values are equal the coarse counter is the
    /// higher, so its decrement probability is the lower) and its counter never below
    /// either (it resets only when the exact cell is zero too). So the coarse cell is zero
    /// only when the exact one is:
    /// ```text
    /// Pr(zero after n | (v, c)) ≥ Pr_coarse(zero after n | (v, up(c)))
    /// ```
    /// `n` backward steps of the coarse chain, `O(n·(levels·|sets| + levels·Max))`: 17
    /// levels for `C = 255` at `ratio = 1.5`. Measured on IBF3 designs at age 1000 (Max
    /// 1 to 15, linear:1:50): 0.2 to 0.5 of the time of [`Self::zero_after`] where that
    /// steps, 0.7 where it is uniformized.
    pub fn zero_after_coarse_lower(&self, steps: u64, ratio: f64) -> Option<Vec<f64>> {
        if self.cap == 0 {
            return None;
        }
        let (max, cap) = (self.max, self.cap);
        let rising = (1..cap).any(|c| {
            (1..=max).any(|v| self.dec[self.encode(v, c + 1)] > self.dec[self.encode(v, c)])
        });
        if rising {
            return None;
        }
        let levels = coarse_levels(cap, ratio);
        // `up[c]`: the index of the first level at least `c` (`c = 1..=C`).
        let mut up = vec![0usize; cap as usize + 1];
        let mut j = 0;
        for c in 1..=cap {
            if levels[j] < c {
                j += 1;
            }
            up[c as usize] = j;
        }
        let coarse = CellChain {
            max,
            cap: levels.len() as u32,
            a: self.a,
            sets: self.sets.clone(),
            dec: (0..1 + max as usize * levels.len())
                .map(|s| match s {
                    0 => 0.0,
                    s => {
                        self.dec
                            [self.encode((s as u32 - 1) % max + 1, levels[(s - 1) / max as usize])]
                    }
                })
                .collect(),
        };
        // A set from level `j` (0: the zero cell) leads to `up(min(g_j + i, C))`.
        let counter = |j: usize| if j == 0 { 0 } else { levels[j - 1] };
        let b = coarse
            .backward_plan_by(|j, v, imp| {
                let c = (counter(j) + imp).min(cap);
                coarse.encode(v, up[c as usize] as u32 + 1)
            })
            .zero_after(steps);
        Some(
            (0..self.states())
                .map(|s| {
                    let (v, c) = self.decode(s);
                    let t = if v == 0 {
                        0
                    } else {
                        coarse.encode(v, up[c as usize] as u32 + 1)
                    };
                    b[t].clamp(0.0, 1.0)
                })
                .collect(),
        )
    }

    /// `T^steps · e_0`: entry `s` is the probability of being zero `steps` insertions
    /// after being in state `s`.
    ///
    /// By the cheapest of three ([`Self::zero_after_work`]): step by step
    /// (`O(steps·(C·|sets| + states))`); by uniformization in fewer steps where every
    /// state is left with probability well under 1/2 per insertion
    /// ([`Self::zero_after_uniformized`]); binary powering of the dense matrix
    /// (`O(states³·log steps)`, rows renormalised after each squaring, chains of at most
    /// 512 states), which takes over for long ages on small chains (an SBF with `Max` up
    /// to 255 at ages up to `2^64`).
    pub fn zero_after(&self, steps: u64) -> Vec<f64> {
        self.zero_after_by(self.zero_after_path(steps), steps)
    }

    /// [`Self::zero_after`], its work ([`Self::zero_after_work`]) paid from the work
    /// allowance in force ([`crate::budget`]) on behalf of `what`.
    ///
    /// # Errors
    /// [`ModelError::WorkLimit`] when the pass needs more than is left.
    pub fn zero_after_paid(&self, steps: u64, what: &'static str) -> Result<Vec<f64>, ModelError> {
        let path = self.zero_after_path(steps);
        crate::budget::spend(path.work as f64, what)?;
        Ok(self.zero_after_by(path, steps))
    }

    /// `T^steps·e_0` along `path`.
    fn zero_after_by(&self, path: ZeroAfterPath, steps: u64) -> Vec<f64> {
        if path.dense {
            let n = self.states();
            let mut e0 = DVector::zeros(n);
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
        if let Some(law) = path.uniformized {
            return self.zero_after_uniformized(law);
        }
        self.backward_plan().zero_after(steps)
    }

    /// How [`Self::zero_after`] computes `T^steps·e_0`, and its work units.
    fn zero_after_path(&self, steps: u64) -> ZeroAfterPath {
        let n = self.states() as u64;
        let per_step = self.cap as u64 * self.sets.len() as u64 + 4 * n;
        let log = 64 - steps.leading_zeros() as u64;
        let uniformized = self.uniformization(steps);
        let terms = uniformized.as_ref().map_or(steps, |u| u.2);
        let stepwise = terms.saturating_mul(per_step);
        // Dense powering only for chains of at most 512 states (no overflow below).
        let dense = (n <= 512).then(|| n * n * n * 2 * log.max(1));
        if let Some(dense) = dense.filter(|&d| stepwise > d) {
            ZeroAfterPath {
                dense: true,
                uniformized: None,
                work: dense,
            }
        } else {
            ZeroAfterPath {
                dense: false,
                uniformized,
                work: stepwise,
            }
        }
    }

    /// `(q, Bin(steps, q), last term)` of the uniformized `T^steps`, when it has fewer
    /// than `steps/2` terms.
    fn uniformization(&self, steps: u64) -> Option<Uniformization> {
        use statrs::distribution::{Binomial, DiscreteCDF};
        if steps < 64 {
            return None;
        }
        let q = self.max_exit();
        if q <= 0.0 || q >= 0.5 {
            return None;
        }
        let law = Binomial::new(q, steps).ok()?;
        let mean = (q * steps as f64).floor() as u64;
        let last = crate::numeric::first_true(mean, steps, |j| law.sf(j) < UNIFORMIZATION_TAIL)?;
        (last < steps / 2).then_some((q, law, last))
    }

    /// The largest probability of leaving a state in one insertion, `q = 1 − min_s T_ss`.
    pub fn max_exit(&self) -> f64 {
        (0..self.states())
            .map(|s| {
                let mut stay = 0.0;
                self.for_each_transition(s, |j, p| {
                    if j == s {
                        stay += p;
                    }
                });
                1.0 - stay
            })
            .fold(0.0, f64::max)
            .clamp(0.0, 1.0)
    }

    /// `T^steps·e_0` by uniformization, when it needs fewer backward steps than `steps`.
    ///
    /// # Formula
    /// With `q = 1 − min_s T_ss` ([`Self::max_exit`]), `S = (T − (1 − q)·I)/q` is
    /// stochastic and non-negative and commutes with `I`, so
    /// `T^n = Σ_j Bin(j; n, q)·S^j` exactly (the binomial theorem). The sum is cut where
    /// the binomial tail falls below [`UNIFORMIZATION_TAIL`]; as every `S^j·e_0` lies in
    /// `[0, 1]`, that is the absolute error. About `nq + 9·√(nq)` backward steps instead of
    /// `n`: at an IBF3 design of the optimizer (`m` = 8333, `K` = 4, age 1000) about 60
    /// instead of 1000.
    fn zero_after_uniformized(&self, (q, law, last): Uniformization) -> Vec<f64> {
        use statrs::distribution::Discrete;
        let mut steps = self.uniformized_steps(q);
        let mut out = vec![0.0; self.states()];
        for j in 0..=last {
            let v = steps.next_power();
            let w = law.pmf(j);
            if w > 0.0 {
                for (o, x) in out.iter_mut().zip(v) {
                    *o += w * x;
                }
            }
        }
        out.into_iter().map(|x| x.clamp(0.0, 1.0)).collect()
    }

    /// The iterates `S^j·e_0` of the uniformized chain `S = (T − (1 − q)·I)/q`
    /// ([`Self::zero_after_uniformized`]), for `q ≥ `[`Self::max_exit`] in `(0, 1)`.
    pub(crate) fn uniformized_steps(&self, q: f64) -> UniformizedSteps {
        let mut v = vec![0.0; self.states()];
        v[0] = 1.0;
        UniformizedSteps {
            q,
            plan: self.backward_plan(),
            t: vec![0.0; v.len()],
            v,
            started: false,
        }
    }

    /// Work units of [`Self::zero_after`] for `steps` (for callers that refuse runs of
    /// more than a few seconds).
    pub fn zero_after_work(&self, steps: u64) -> u64 {
        self.zero_after_path(steps).work
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

    /// `after_set(y, value, imp) · back` (the probability that the item's cell is zero
    /// when `back[s]` is that of state `s`) without building the vector: a set takes every
    /// state of a level to one target, and the targets rise with the level, so each
    /// target's mass is a run of `y` summed in the same order as [`Self::after_set`] and
    /// the products are added in the order of the dot product. The result is bit for bit
    /// the two steps', in `O(states)` additions and `O(levels)` products (issue 18: the
    /// optimizer's FN bounds made these vectors for every importance of every design).
    pub(crate) fn after_set_dot(&self, y: &[f64], value: u32, imp: u32, back: &[f64]) -> f64 {
        let mut total = 0.0;
        // The target being summed and its mass so far.
        let mut run: Option<(usize, f64)> = None;
        let mut add = |t: usize, p: f64| {
            if p == 0.0 {
                return;
            }
            match &mut run {
                Some((at, mass)) if *at == t => *mass += p,
                _ => {
                    // `0.0 + p`: a target's mass accumulates from 0.0, as in `after_set`.
                    if let Some((at, mass)) = run.replace((t, 0.0 + p)) {
                        total += mass * back[at];
                    }
                }
            }
        };
        if self.cap == 0 {
            y.iter().for_each(|&p| add(value as usize, p));
        } else {
            add(self.set_target(0, value, imp), y[0]);
            for c in 1..=self.cap {
                let t = self.encode(value, (c + imp).min(self.cap));
                let level = self.level(c);
                y[level].iter().for_each(|&p| add(t, p));
            }
        }
        if let Some((at, mass)) = run {
            total += mass * back[at];
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn tracked(dec: impl Fn(u32, u32) -> f64) -> CellChain {
        with_dec(
            CellChain {
                max: 3,
                cap: 9,
                a: 0.05,
                sets: vec![(3, 1, 0.5), (2, 2, 0.3), (1, 4, 0.2)],
                dec: Vec::new(),
            },
            dec,
        )
    }

    /// `chain` with the decrement probability `dec(v, c)` in each non-zero state.
    fn with_dec(mut chain: CellChain, dec: impl Fn(u32, u32) -> f64) -> CellChain {
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
    fn binomial_terms_match_statrs_and_cut_the_tail() {
        use statrs::distribution::{Binomial, Discrete};
        for (n, q) in [(1u64, 0.3), (40, 0.01), (5000, 0.004), (300_000, 0.002)] {
            let b = binomial_terms(n, q, UNIFORMIZATION_TAIL, 100_000).unwrap();
            let law = Binomial::new(q, n).unwrap();
            for (j, &x) in b.iter().enumerate() {
                assert_relative_eq!(x, law.pmf(j as u64), max_relative = 1e-9, epsilon = 1e-300);
            }
            // The mass kept: 1 but for the cut tail and the recurrence's rounding (about
            // `J·ε·|ln b_0|` relative on the terms).
            let kept: f64 = b.iter().sum();
            let rounding = 4.0 * b.len() as f64 * f64::EPSILON * (n as f64 * q).max(1.0);
            assert!((1.0 - kept).abs() < 1e-15 + rounding, "{n} {q}: {kept}");
            assert!(
                b.len() as u64 == n + 1 || b.len() as f64 > n as f64 * q,
                "{n} {q}"
            );
        }
        assert!(binomial_terms(300_000, 0.002, UNIFORMIZATION_TAIL, 100).is_none());
    }

    #[test]
    fn untracked_recursion_matches_gth() {
        // Sets of several values (IBF1's importance map, one below Max), decrements that
        // grow with the value (IBF6's 1/v weights inverted) and a tiny insertion rate,
        // where the top states are far below 1e-16.
        for (a, dec) in [
            (0.05, [0.0, 0.3, 0.1, 0.05, 0.02]),
            (1e-9, [0.0, 0.9, 0.9, 0.9, 0.9]),
        ] {
            let ch = CellChain {
                max: 4,
                cap: 0,
                a,
                sets: vec![(4, 0, 0.5), (2, 0, 0.3), (1, 0, 0.2)],
                dec: dec.to_vec(),
            };
            let fast = ch.stationary_untracked().unwrap();
            let gth = markov::stationary_gth(&ch.dense()).unwrap();
            for s in 0..ch.states() {
                assert_relative_eq!(fast[s], gth[s], max_relative = 1e-13, epsilon = 1e-300);
            }
            assert_eq!(ch.stationary().unwrap(), fast);
        }
        // Outside its assumptions it leaves the chain to GTH.
        let mut odd = CellChain {
            max: 2,
            cap: 0,
            a: 0.1,
            sets: vec![(3, 0, 1.0)],
            dec: vec![0.0, 0.2, 0.2],
        };
        assert!(odd.stationary_untracked().is_none());
        odd.sets.clear();
        assert!(odd.stationary_untracked().is_none());
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

    #[test]
    fn uniformized_power_matches_step_by_step() {
        let mut ch = tracked(|v, c| 0.004 * f64::from(v) / f64::from(c.max(1)));
        ch.a = 0.004;
        let q = ch.max_exit();
        assert!(q > 0.0 && q < 0.02, "{q}");
        for steps in [64, 300, 2000, 20_000] {
            let law = ch.uniformization(steps).expect("few terms");
            let last = law.2;
            assert!(last < steps / 2, "{steps}: {last} terms");
            let fast = ch.zero_after_uniformized(law);
            // The uniformized sum is the cheapest path here, and `zero_after` takes it
            // (it took dense powering before, whenever plain stepping cost more).
            assert_eq!(ch.zero_after(steps), fast, "{steps}");
            let mut slow = vec![0.0; ch.states()];
            slow[0] = 1.0;
            for _ in 0..steps {
                slow = ch.backward(&slow);
            }
            for s in 0..ch.states() {
                assert!(
                    (fast[s] - slow[s]).abs() < 1e-13,
                    "steps {steps}, state {s}: {} vs {}",
                    fast[s],
                    slow[s]
                );
            }
        }
        // A chain that leaves states often is stepped, not uniformized.
        assert!(tracked(|_, _| 0.6).uniformization(1000).is_none());
    }

    /// A chain with a 6-bit counter, sets of every shape the structured step handles
    /// (several importances per value, a gap in the support, importances that saturate
    /// the counter from most levels) and decrements that vary with value and level.
    fn wide() -> CellChain {
        let chain = CellChain {
            max: 5,
            cap: 63,
            a: 0.07,
            sets: vec![
                (5, 1, 0.1),
                (5, 3, 0.2),
                (2, 2, 0.15),
                (5, 40, 0.05),
                (1, 7, 0.25),
                (3, 9, 0.05),
                (5, 70, 0.2),
            ],
            dec: Vec::new(),
        };
        with_dec(chain, |v, c| {
            (0.9 / f64::from(c) + 0.01 * f64::from(v)).min(1.0)
        })
    }

    /// Issue 18: the structured backward step of a tracked chain (per-value correlations,
    /// contiguous level blocks) is the generic indexed one up to summation order.
    #[test]
    fn issue_18_structured_backward_step_is_the_indexed_one() {
        for chain in [
            wide(),
            tracked(|v, c| 0.02 * f64::from(v) + 0.01 * f64::from(c)),
        ] {
            let mut fast = chain.backward_plan();
            assert!(fast.counted.is_some());
            let mut slow = fast.clone();
            slow.counted = None;
            let n = chain.states();
            let b: Vec<f64> = (0..n).map(|s| ((s * 7919) % 1000) as f64 / 999.0).collect();
            let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
            fast.apply(&b, &mut x);
            slow.apply(&b, &mut y);
            for s in 0..n {
                assert!(
                    (x[s] - y[s]).abs() <= 1e-15,
                    "state {s}: {} vs {}",
                    x[s],
                    y[s]
                );
            }
        }
        // Untracked chains keep the indexed step.
        assert!(untracked_for_bounds(0.2).backward_plan().counted.is_none());
    }

    /// Issue 18: `after_set_dot` is the dot product of `after_set` with `back`, bit for
    /// bit, on tracked chains (sets that saturate the counter from several levels, zero
    /// entries in `y`) and untracked ones.
    #[test]
    fn after_set_dot_is_the_set_then_the_dot_product() {
        let chains = [
            tracked(|v, c| 0.1 + 0.05 * f64::from(v) / f64::from(c)),
            untracked_for_bounds(0.2),
        ];
        for chain in chains {
            let n = chain.states();
            // Irregular values, some zero, so that any change of summation order shows.
            let y: Vec<f64> = (0..n)
                .map(|s| {
                    if s % 5 == 3 {
                        0.0
                    } else {
                        1.0 / (s as f64 + 1.7).powf(1.3)
                    }
                })
                .collect();
            let back: Vec<f64> = (0..n).map(|s| (s as f64 * 0.37).sin().abs()).collect();
            for (value, imp) in [(1, 1), (3, 2), (2, 4), (3, 8), (1, 9), (3, 20)] {
                let x = chain.after_set(&y, value, imp);
                let dot: f64 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
                let fast = chain.after_set_dot(&y, value, imp, &back);
                assert_eq!(fast.to_bits(), dot.to_bits(), "value {value}, imp {imp}");
            }
        }
    }

    fn untracked_for_bounds(d: f64) -> CellChain {
        CellChain {
            max: 4,
            cap: 0,
            a: 0.05,
            sets: vec![(4, 0, 0.6), (2, 0, 0.4)],
            dec: vec![0.0, d, d, d, d],
        }
    }

    /// Issue 18: `zero_after_lower` is at most `zero_after` in every state, equals it when
    /// nothing sets the cell (`a = 0`: the binomial count of decrements is then the whole
    /// law), and does not apply where the decrement depends on the value.
    #[test]
    fn issue_18_zero_after_lower_bounds_the_zero_probability() {
        let by_level = |a: f64| {
            let mut ch = tracked(|_, c| (0.6 / f64::from(c)).min(1.0));
            ch.a = a;
            ch
        };
        let untracked = |a: f64| CellChain {
            a,
            ..untracked_for_bounds(0.2)
        };
        for steps in [0u64, 1, 3, 17, 200, 1500] {
            for (name, exact_without_sets) in
                [("tracked", by_level(0.0)), ("untracked", untracked(0.0))]
            {
                let lower = exact_without_sets.zero_after_lower(steps).unwrap();
                let exact = exact_without_sets.zero_after(steps);
                for s in 0..lower.len() {
                    assert!(
                        (lower[s] - exact[s]).abs() <= 1e-11,
                        "{name}, {steps} steps, state {s}: {} vs {}",
                        lower[s],
                        exact[s]
                    );
                }
            }
            for (name, ch) in [("tracked", by_level(0.03)), ("untracked", untracked(0.03))] {
                let lower = ch.zero_after_lower(steps).unwrap();
                let exact = ch.zero_after(steps);
                let mut gap = 0.0f64;
                for s in 0..lower.len() {
                    assert!(lower[s] <= exact[s] + 1e-15, "{name}, {steps}, state {s}");
                    gap = gap.max(exact[s] - lower[s]);
                }
                if steps >= 17 {
                    assert!(gap > 1e-3, "{name}, {steps}: sets revive cells, {gap}");
                }
            }
        }
        assert!(tracked(|v, _| 0.1 * f64::from(v))
            .zero_after_lower(10)
            .is_none());
        assert!(wide().zero_after_lower(10).is_none());
    }

    /// Issue 18: the coarse-counter bound is at most `zero_after` in every state, for
    /// decrements that fall with the counter (by level, and by value and level), on a
    /// chain whose sets jump past several coarse levels; it is `zero_after` itself where
    /// the levels are every counter value (`C ≤ 8`); it does not apply where a decrement
    /// rises with the counter or nothing is tracked.
    #[test]
    fn issue_18_coarse_counter_bound_is_below_the_zero_probability() {
        let long = |dec: fn(u32, u32) -> f64| {
            with_dec(
                CellChain {
                    max: 4,
                    cap: 63,
                    a: 0.06,
                    sets: vec![(4, 1, 0.3), (2, 3, 0.3), (4, 9, 0.2), (3, 40, 0.2)],
                    dec: Vec::new(),
                },
                dec,
            )
        };
        let chains = [
            ("1/c", long(|_, c| (0.7 / f64::from(c)).min(1.0))),
            (
                "v/√c",
                long(|v, c| 0.2 * f64::from(v) / f64::from(c).sqrt()),
            ),
            ("step", long(|_, c| if c < 20 { 0.5 } else { 0.01 })),
        ];
        for (name, ch) in &chains {
            for steps in [0u64, 1, 5, 40, 300] {
                let exact = ch.zero_after(steps);
                let mut gap = 0.0f64;
                for ratio in [1.25, 1.5, 2.0, 8.0] {
                    let lower = ch.zero_after_coarse_lower(steps, ratio).unwrap();
                    for s in 0..exact.len() {
                        assert!(
                            lower[s] <= exact[s] + 1e-13,
                            "{name}, {steps} steps, ratio {ratio}, state {s}: {} > {}",
                            lower[s],
                            exact[s]
                        );
                        gap = gap.max(exact[s] - lower[s]);
                    }
                }
                if steps >= 40 {
                    assert!(
                        gap > 1e-4,
                        "{name}, {steps}: the coarse levels lose something"
                    );
                }
            }
        }
        // C = 9 with the levels 1..=8 and 9: the coarse chain is the chain.
        let exact_levels = tracked(|_, c| (0.6 / f64::from(c)).min(1.0));
        for steps in [3u64, 50] {
            let lower = exact_levels.zero_after_coarse_lower(steps, 1.5).unwrap();
            let exact = exact_levels.zero_after(steps);
            for s in 0..exact.len() {
                assert!((lower[s] - exact[s]).abs() <= 1e-13, "{steps}, state {s}");
            }
        }
        assert!(tracked(|_, c| 0.01 * f64::from(c))
            .zero_after_coarse_lower(10, 1.5)
            .is_none());
        assert!(untracked_for_bounds(0.2)
            .zero_after_coarse_lower(10, 1.5)
            .is_none());
    }

    /// The coarse levels: every counter value up to 8, then about `ratio` apart, up to
    /// the cap, increasing.
    #[test]
    fn coarse_levels_cover_the_counter() {
        assert_eq!(coarse_levels(5, 1.5), vec![1, 2, 3, 4, 5]);
        assert_eq!(
            coarse_levels(255, 1.5),
            vec![1, 2, 3, 4, 5, 6, 7, 8, 12, 18, 27, 41, 62, 93, 140, 210, 255]
        );
        assert_eq!(coarse_levels(1, 3.0), vec![1]);
        for cap in [1u32, 7, 8, 9, 63, 255, 65535] {
            for ratio in [1.01, 1.25, 2.0, 100.0] {
                let l = coarse_levels(cap, ratio);
                assert_eq!(l[0], 1);
                assert_eq!(*l.last().unwrap(), cap);
                assert!(l.windows(2).all(|w| w[0] < w[1]), "{cap}, {ratio}");
            }
        }
    }
}
