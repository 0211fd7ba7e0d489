//! The discrete allocation: integer bits (whole blocks for the blocked layout) and an
//! integer `k` per filter, evaluated with the exact classic law where computable.
//!
//! # Method
//! Each filter's curve `f_i(m) = min_k fp_i(m, k)` is evaluated on demand and memoised:
//! the exact occupancy law ([`fp_exact_standard`]) of a standard filter within the
//! budget's per-evaluation work, the exact law of a partitioned filter
//! ([`fp_partitioned`]), the exact in-block law mixed over the block load
//! ([`BlockFpTable`]) of a blocked one; past the work limit the layout's model
//! ([`fp_standard`], [`fp_blocked`]). `m = 0` is "no filter": every lookup that reaches it
//! goes on (`f = 1`).
//!
//! The search (`improve`) starts from an allocation within the budget and moves bits
//! at scales `σ = 2^j` down to one bit: at each scale it gives a free step to the filter
//! that gains most, or moves a step from the filter that loses least to the one that
//! gains most, while that lowers `Σ w_i f_i(m_i)` and keeps `Σ m_i ≤ M`. It stops at an
//! allocation no single step at any scale improves. `solve` runs it from the rounded
//! continuous optimum and from the uniform allocation and keeps the better, so the
//! result is never over budget and never worse than uniform.

use super::spec::FilterSpec;
use bfopt_models::classic::{
    fp_blocked, fp_exact_standard, fp_partitioned, fp_standard, BlockFpTable, Layout, EXACT_BUDGET,
};
use bfopt_models::ModelError;
use serde::Serialize;
use std::collections::HashMap;
use std::f64::consts::LN_2;

/// Which law gave a filter's FP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Law {
    /// The exact law (occupancy law, exact partitioned form, exact in-block law), or a
    /// filter with no bits (FP 1) or no items (FP 0).
    Exact,
    /// The layout's model, beyond the exact law's work limit.
    Model,
}

/// One filter's FP at some bits, with the best `k` (0 with no bits or no items).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Eval {
    pub fp: f64,
    pub k: u32,
    pub law: Law,
}

/// Largest bits per filter (that of [`bfopt_models::classic::ClassicParams::M`]).
const FILTER_BITS_MAX: u64 = 1 << 50;
/// Moves per scale before the search gives up improving at that scale (never reached
/// in the tests; a guard against a float cycle).
const MOVES_PER_SCALE: u32 = 100_000;

/// Every filter's memoised curve `f_i(m)`.
pub(crate) struct Curves<'a> {
    specs: &'a [FilterSpec],
    k_max: u32,
    exact_work: f64,
    memo: Vec<HashMap<u64, Eval>>,
    tables: HashMap<(u64, u32), BlockFpTable>,
}

impl<'a> Curves<'a> {
    pub fn new(specs: &'a [FilterSpec], k_max: u32, exact_work: f64) -> Self {
        Self {
            specs,
            k_max,
            exact_work,
            memo: vec![HashMap::new(); specs.len()],
            tables: HashMap::new(),
        }
    }

    pub fn specs(&self) -> &'a [FilterSpec] {
        self.specs
    }

    /// Largest bits filter `i` may take (a whole number of units).
    pub fn cap(&self, i: usize) -> u64 {
        let unit = self.specs[i].unit_bits();
        FILTER_BITS_MAX / unit * unit
    }

    /// FP of filter `i` at `m` bits and `k` hashes.
    fn fp_at(&mut self, i: usize, m: u64, k: u32) -> (f64, Law) {
        let spec = &self.specs[i];
        let n = spec.items();
        match spec.layout() {
            Layout::Standard => match fp_exact_standard(m, k, n, self.exact_work) {
                Some(fp) => (fp, Law::Exact),
                None => (fp_standard(m as f64, f64::from(k), n as f64), Law::Model),
            },
            Layout::Partitioned => (
                fp_partitioned((m / u64::from(k)) as f64, f64::from(k), n as f64),
                Law::Exact,
            ),
            Layout::Blocked { block_bits } => {
                let table = self
                    .tables
                    .entry((block_bits, k))
                    .or_insert_with(|| BlockFpTable::new(block_bits, k, EXACT_BUDGET));
                match table.mixture(m, n) {
                    Some(fp) => (fp, Law::Exact),
                    None => (fp_blocked(m, block_bits, k, n), Law::Model),
                }
            }
        }
    }

    /// `f_i(m)`: the least FP over integer `k` at `m` bits (a whole number of units).
    ///
    /// The FP is unimodal in `k`; the walk starts at `round((m/n)·ln 2)` and goes
    /// downhill; ties keep the smaller `k` (fewer memory accesses).
    pub fn best(&mut self, i: usize, m: u64) -> Eval {
        if let Some(e) = self.memo[i].get(&m) {
            return *e;
        }
        let spec = &self.specs[i];
        let n = spec.items();
        let e = if n == 0 {
            Eval {
                fp: 0.0,
                k: 0,
                law: Law::Exact,
            }
        } else if m == 0 {
            Eval {
                fp: 1.0,
                k: 0,
                law: Law::Exact,
            }
        } else {
            let k_hi = match spec.layout() {
                Layout::Blocked { block_bits } => block_bits,
                _ => m,
            }
            .min(u64::from(self.k_max)) as u32;
            let k0 = ((m as f64 / n as f64) * LN_2)
                .round()
                .clamp(1.0, f64::from(k_hi)) as u32;
            let mut best = (k0, self.fp_at(i, m, k0));
            // Up while strictly better, then down while no worse.
            let mut k = k0;
            while k < k_hi {
                let next = self.fp_at(i, m, k + 1);
                if next.0 < best.1 .0 {
                    best = (k + 1, next);
                    k += 1;
                } else {
                    break;
                }
            }
            if best.0 == k0 {
                let mut k = k0;
                while k > 1 {
                    let next = self.fp_at(i, m, k - 1);
                    if next.0 <= best.1 .0 {
                        best = (k - 1, next);
                        k -= 1;
                    } else {
                        break;
                    }
                }
            }
            Eval {
                fp: best.1 .0,
                k: best.0,
                law: best.1 .1,
            }
        };
        self.memo[i].insert(m, e);
        e
    }

    /// `Σ w_i f_i(m_i)`, expected false positives per lookup.
    pub fn objective(&mut self, m: &[u64]) -> f64 {
        (0..m.len())
            .map(|i| {
                let w = self.specs[i].weight();
                if w > 0.0 {
                    w * self.best(i, m[i]).fp
                } else {
                    0.0
                }
            })
            .sum()
    }
}

/// Rounds real bits down to whole units (within each filter's cap): `Σ ≤ Σ bits`.
pub(crate) fn round_down(curves: &Curves<'_>, bits: &[f64]) -> Vec<u64> {
    bits.iter()
        .enumerate()
        .map(|(i, &b)| {
            let unit = curves.specs()[i].unit_bits();
            let m = (b.max(0.0).floor() as u64).min(curves.cap(i));
            m / unit * unit
        })
        .collect()
}

/// The same bits per item for every filter (RocksDB's default): `m_i = ⌊n_i·M/N⌋`,
/// rounded down to whole units, over the filters in `with` (the others get none).
pub(crate) fn uniform(curves: &Curves<'_>, budget: u64, with: &[bool]) -> Vec<u64> {
    let specs = curves.specs();
    let total: u128 = specs
        .iter()
        .zip(with)
        .filter(|(_, &w)| w)
        .map(|(s, _)| u128::from(s.items()))
        .sum();
    specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if !with[i] || total == 0 {
                return 0;
            }
            let m = (u128::from(s.items()) * u128::from(budget) / total) as u64;
            let unit = s.unit_bits();
            m.min(curves.cap(i)) / unit * unit
        })
        .collect()
}

/// One step of the search at the current scale.
#[derive(Debug, Clone, Copy)]
struct Step {
    i: usize,
    d: u64,
    /// FP removed by giving `d` bits (−∞ if it would pass the cap).
    up: f64,
    /// FP added by taking `d` bits away (+∞ if the filter has fewer).
    down: f64,
}

/// Filter `i`'s step of `σ` bits (rounded up to whole units) at its current bits.
fn step(curves: &mut Curves<'_>, m: &[u64], i: usize, sigma: u64) -> Step {
    let spec = &curves.specs()[i];
    let unit = spec.unit_bits();
    let d = sigma.div_ceil(unit) * unit;
    let w = spec.weight();
    if w == 0.0 {
        return Step {
            i,
            d,
            up: 0.0,
            down: if m[i] >= d { 0.0 } else { f64::INFINITY },
        };
    }
    let now = curves.best(i, m[i]).fp;
    let up = if m[i] + d <= curves.cap(i) {
        w * (now - curves.best(i, m[i] + d).fp)
    } else {
        f64::NEG_INFINITY
    };
    let down = if m[i] >= d {
        w * (curves.best(i, m[i] - d).fp - now)
    } else {
        f64::INFINITY
    };
    Step { i, d, up, down }
}

/// Improves `m` in place (see the module doc) without spending more than `budget`.
///
/// # Numerics
/// A move changes two filters, so only their steps are recomputed; the objective is
/// recomputed at each scale (no drift from running sums).
pub(crate) fn improve(curves: &mut Curves<'_>, m: &mut [u64], budget: u64) {
    let specs = curves.specs();
    let movable: Vec<usize> = (0..m.len()).filter(|&i| specs[i].items() > 0).collect();
    if movable.is_empty() {
        return;
    }
    let mut used: u64 = m.iter().sum();
    let top = (budget / movable.len() as u64).max(1);
    let mut sigma = 1u64 << (63 - top.leading_zeros());
    loop {
        let mut steps: Vec<Step> = movable.iter().map(|&i| step(curves, m, i, sigma)).collect();
        let mut objective = curves.objective(m);
        for _ in 0..MOVES_PER_SCALE {
            let tol = 1e-12 * objective + f64::MIN_POSITIVE;
            let free = budget - used;
            // A free step: the largest gain that fits the unspent budget.
            let add = steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.d <= free && s.up > tol)
                .max_by(|a, b| a.1.up.total_cmp(&b.1.up))
                .map(|(j, s)| (j, *s));
            let touched = if let Some((j, s)) = add {
                m[s.i] += s.d;
                used += s.d;
                objective -= s.up;
                [Some(j), None]
            } else {
                // A transfer: the best receiver for its cheapest feasible donor.
                let mut donors: Vec<usize> = (0..steps.len())
                    .filter(|&j| steps[j].down.is_finite())
                    .collect();
                donors.sort_by(|&a, &b| steps[a].down.total_cmp(&steps[b].down));
                let mut best: Option<(f64, usize, usize)> = None;
                for (rj, r) in steps.iter().enumerate().filter(|(_, s)| s.up > tol) {
                    let donor = donors
                        .iter()
                        .find(|&&dj| dj != rj && free + steps[dj].d >= r.d);
                    if let Some(&dj) = donor {
                        let net = r.up - steps[dj].down;
                        if net > tol && best.is_none_or(|b| net > b.0) {
                            best = Some((net, dj, rj));
                        }
                    }
                }
                let Some((net, dj, rj)) = best else {
                    break;
                };
                let (d, r) = (steps[dj], steps[rj]);
                m[d.i] -= d.d;
                m[r.i] += r.d;
                used = used - d.d + r.d;
                objective -= net;
                [Some(dj), Some(rj)]
            };
            for j in touched.into_iter().flatten() {
                steps[j] = step(curves, m, movable[j], sigma);
            }
        }
        if sigma == 1 {
            break;
        }
        sigma /= 2;
    }
    debug_assert!(m.iter().sum::<u64>() <= budget);
}

/// The discrete optimum for `budget` bits: [`improve`] from `start` (the rounded
/// continuous optimum) and from the uniform allocation, the better of the two.
pub(crate) fn solve(curves: &mut Curves<'_>, budget: u64, start: &[f64]) -> Vec<u64> {
    let all = vec![true; curves.specs().len()];
    let mut a = round_down(curves, start);
    // The continuous optimum may ask more than a filter's cap or round above budget by a
    // rounding error: start from nothing then.
    if a.iter().sum::<u64>() > budget {
        a.iter_mut().for_each(|x| *x = 0);
    }
    improve(curves, &mut a, budget);
    let mut b = uniform(curves, budget, &all);
    improve(curves, &mut b, budget);
    if curves.objective(&b) < curves.objective(&a) {
        b
    } else {
        a
    }
}

/// The least budget (to a relative `1e-6`, or the smallest unit) at which
/// `eval(budget)` is at most `target`, by bisection from a guess; with the allocation
/// found there, whose spent bits are the budget returned.
///
/// # Errors
/// [`ModelError::Infeasible`] when even the largest budget (2^53 bits, or every filter at
/// its cap) misses the target.
pub(crate) fn least_budget(
    target: f64,
    guess: f64,
    unit: u64,
    limit: u64,
    mut eval: impl FnMut(u64) -> (f64, Vec<u64>),
) -> Result<(u64, Vec<u64>), ModelError> {
    let zero = eval(0);
    if zero.0 <= target {
        return Ok((0, zero.1));
    }
    let guess = (guess.max(0.0).min(limit as f64) as u64).max(unit);
    let (mut lo, mut hi) = (0u64, guess);
    let mut at_hi = eval(hi);
    while at_hi.0 > target {
        if hi >= limit {
            return Err(ModelError::infeasible(
                format!("expected false positives per lookup <= {target:e}"),
                format!("{:e} with {limit} bits", at_hi.0),
            ));
        }
        lo = hi;
        hi = hi.saturating_mul(2).min(limit);
        at_hi = eval(hi);
    }
    // A tighter lower end near the guess saves most of the bisection.
    if lo == 0 {
        let near = hi - hi / 10;
        if near > 0 && eval(near).0 > target {
            lo = near;
        }
    }
    while hi - lo > unit.max(hi / 1_000_000) {
        let mid = lo + (hi - lo) / 2;
        let at = eval(mid);
        if at.0 <= target {
            hi = mid;
            at_hi = at;
        } else {
            lo = mid;
        }
    }
    // The allocation found spends at most `hi`; what it spends is a budget that meets the
    // target (bisection stops within a unit, and whole blocks may leave bits unspent).
    let spent = at_hi.1.iter().sum::<u64>();
    Ok((spent, at_hi.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocate::lagrange;
    use proptest::prelude::*;

    fn spec(n: u64, w: f64, layout: Layout) -> FilterSpec {
        FilterSpec::new("f", n, w, layout).unwrap()
    }

    #[test]
    fn best_k_is_the_brute_force_minimum() {
        let specs = [
            spec(1000, 1.0, Layout::Standard),
            spec(300, 1.0, Layout::Partitioned),
            spec(5000, 1.0, Layout::Blocked { block_bits: 512 }),
        ];
        let mut c = Curves::new(&specs, 64, EXACT_BUDGET);
        for (i, m) in [(0, 9000u64), (0, 3000), (1, 4000), (2, 512 * 80)] {
            let e = c.best(i, m);
            // Past k = 24 the FP only rises at these loads (optimal k ≤ 9).
            let brute = (1..=24u32)
                .map(|k| c.fp_at(i, m, k).0)
                .fold(f64::INFINITY, f64::min);
            assert_eq!(e.fp, brute, "filter {i}, m = {m}, k = {}", e.k);
            assert_eq!(e.law, Law::Exact);
        }
        assert_eq!(c.best(0, 0).fp, 1.0);
    }

    #[test]
    fn search_reaches_the_brute_force_optimum_of_a_small_instance() {
        // Two standard filters, 600 bits: every split checked.
        let specs = [
            spec(20, 1.0, Layout::Standard),
            spec(40, 0.5, Layout::Standard),
        ];
        let mut c = Curves::new(&specs, 64, 1e8);
        let brute = (0..=600u64)
            .map(|a| c.objective(&[a, 600 - a]))
            .fold(f64::INFINITY, f64::min);
        let cont = lagrange::for_budget(&specs, 600.0).unwrap();
        let m = solve(&mut c, 600, &cont.bits);
        assert!(m.iter().sum::<u64>() <= 600);
        assert_eq!(c.objective(&m), brute, "{m:?}");
    }

    /// Every split of `total` units over three filters, the least objective.
    fn brute_three(c: &mut Curves<'_>, total: u64, unit: u64) -> f64 {
        let mut best = f64::INFINITY;
        for a in 0..=total {
            for b in 0..=total - a {
                for rest in 0..=total - a - b {
                    best = best.min(c.objective(&[a * unit, b * unit, rest * unit]));
                }
            }
        }
        best
    }

    #[test]
    fn search_reaches_the_brute_force_optimum_of_three_filters() {
        // Blocked (RocksDB's 512-bit blocks), 40 blocks over three weighted filters, and
        // standard, 260 bits over three: every split checked.
        let blocked = Layout::Blocked { block_bits: 512 };
        for (specs, units, unit) in [
            (
                vec![
                    spec(300, 1.0, blocked),
                    spec(900, 1.0, blocked),
                    spec(120, 0.3, blocked),
                ],
                40u64,
                512u64,
            ),
            (
                vec![
                    spec(5, 1.0, Layout::Standard),
                    spec(20, 1.0, Layout::Standard),
                    spec(12, 2.0, Layout::Standard),
                ],
                260,
                1,
            ),
        ] {
            let mut c = Curves::new(&specs, 64, EXACT_BUDGET);
            let brute = brute_three(&mut c, units, unit);
            let budget = units * unit;
            let cont = lagrange::for_budget(&specs, budget as f64).unwrap();
            let m = solve(&mut c, budget, &cont.bits);
            assert!(m.iter().sum::<u64>() <= budget);
            let got = c.objective(&m);
            assert!(
                got <= brute * (1.0 + 1e-12),
                "{m:?}: {got} vs brute force {brute}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Random filter sets: the discrete result is within budget and no worse than
        /// uniform, for every layout mix.
        #[test]
        fn never_over_budget_never_worse_than_uniform(
            filters in prop::collection::vec((0u64..20_000, 0.0f64..3.0, 0u8..3), 1..8),
            bits_per_item in 0.0f64..16.0,
        ) {
            let specs: Vec<FilterSpec> = filters
                .iter()
                .map(|&(n, w, l)| {
                    let layout = match l {
                        0 => Layout::Standard,
                        1 => Layout::Partitioned,
                        _ => Layout::Blocked { block_bits: 512 },
                    };
                    spec(n, w, layout)
                })
                .collect();
            let n: u64 = specs.iter().map(FilterSpec::items).sum();
            let budget = (bits_per_item * n as f64) as u64;
            let mut c = Curves::new(&specs, 64, 1e5);
            let cont = lagrange::for_budget(&specs, budget as f64).unwrap();
            let m = solve(&mut c, budget, &cont.bits);
            prop_assert!(m.iter().sum::<u64>() <= budget);
            for (i, s) in specs.iter().enumerate() {
                prop_assert_eq!(m[i] % s.unit_bits(), 0);
            }
            let u = uniform(&c, budget, &vec![true; specs.len()]);
            prop_assert!(u.iter().sum::<u64>() <= budget);
            prop_assert!(c.objective(&m) <= c.objective(&u));
        }
    }
}
