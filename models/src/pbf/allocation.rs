//! Optimal bit allocation across the filters of a PBF (Section 5 [PBF], Eqs. 10-13).

use crate::classic::fp_exact_standard;
use crate::error::{check, ModelError};
use crate::numeric::{
    ln_one_minus_exp_neg_exp, one_minus_pow1m, probability, CompensatedSum, LnSum,
};
use argmin::core::CostFunction;
use serde::Serialize;
use std::f64::consts::LN_2;
use std::ops::RangeInclusive;

/// `ln² 2`, the constant of Eqs. (10)-(14) [PBF].
pub const LN2_SQ: f64 = LN_2 * LN_2;

/// The allocation problem: `m` bits over filters with `d_i` distinct items and `f_i`
/// expected probes per query.
///
/// # Formula
/// ```text
/// maximise  Σ_i f_i · ln(1 − 2^(−ln2 · m_i/d_i))   subject to Σ_i m_i = m, m_i ≥ 0
///                                                         Section 5.1 [PBF]
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AllocationProblem {
    bits: u64,
    distinct: Vec<f64>,
    frequency: Vec<f64>,
}

/// A bit allocation with its predicted FP, continuous and after rounding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Allocation {
    /// Continuous bits `m_i` per filter (sum `m`).
    pub bits: Vec<f64>,
    /// The Lagrange multiplier `λ` of Eq. (10) [PBF] (negative; `None` for an allocation
    /// that is not the optimum, or when no filter is ever probed).
    pub lambda: Option<f64>,
    /// `1 − Π_i (1 − 2^(−ln2·m_i/d_i))^{f_i}` at the continuous `m_i` (optimal `k`, real).
    pub fp: f64,
    /// Integer bits per filter (largest remainders; sum `m`).
    pub bits_rounded: Vec<u64>,
    /// Hash counts `k_i = ⌈(m_i/d_i)·ln 2⌉` on the integer bits, within `[1, k_max]`;
    /// 0 for a filter with no bits.
    pub hashes: Vec<u32>,
    /// `1 − Π_i (1 − p_i)^{f_i}` with `p_i = (1 − (1 − 1/m_i)^{k_i d_i})^{k_i}` at the
    /// integer bits and those hash counts (a filter with no bits answers yes: `p_i = 1`;
    /// see [`filter_fp`] for its accuracy on very small filters).
    pub fp_rounded: f64,
}

impl AllocationProblem {
    /// Allowed total bits.
    pub const BITS: RangeInclusive<u64> = 1..=(1 << 50);
    /// Allowed hash-count caps.
    pub const K_MAX: RangeInclusive<u32> = 1..=64;
    /// The paper's cap on hash counts (Section 7 [PBF]).
    pub const K_MAX_DEFAULT: u32 = 16;

    /// Validates the inputs.
    ///
    /// # Errors
    /// `bits` outside [`Self::BITS`]; lists of different lengths or empty; a `d_i` or
    /// `f_i` negative, NaN or infinite.
    pub fn new(bits: u64, distinct: Vec<f64>, frequency: Vec<f64>) -> Result<Self, ModelError> {
        check::in_range("bits", bits, Self::BITS)?;
        if distinct.is_empty() {
            return Err(ModelError::invalid("distinct", "[]", "at least one filter"));
        }
        if frequency.len() != distinct.len() {
            return Err(ModelError::invalid(
                "frequency",
                format!("{} values", frequency.len()),
                format!("one per filter: {} values, as distinct", distinct.len()),
            ));
        }
        for (name, list) in [("distinct", &distinct), ("frequency", &frequency)] {
            if let Some((i, &v)) = list
                .iter()
                .enumerate()
                .find(|(_, &v)| !(v >= 0.0 && v.is_finite()))
            {
                return Err(ModelError::invalid(
                    name,
                    v,
                    format!("a finite number >= 0 (value {} of the list)", i + 1),
                ));
            }
        }
        Ok(Self {
            bits,
            distinct,
            frequency,
        })
    }

    /// Total bits `m`.
    pub fn bits(&self) -> u64 {
        self.bits
    }
    /// Distinct items per filter `d_i`.
    pub fn distinct(&self) -> &[f64] {
        &self.distinct
    }
    /// Expected probes per query `f_i`.
    pub fn frequency(&self) -> &[f64] {
        &self.frequency
    }

    /// Whether filter `i` takes part in the optimum (`f_i > 0` and `d_i > 0`); the others
    /// sit on the KKT boundary `m_i = 0`: an empty filter answers no with no bits, and an
    /// unprobed one does not enter the objective.
    fn active(&self, i: usize) -> bool {
        self.frequency[i] > 0.0 && self.distinct[i] > 0.0
    }

    /// The objective's FP for continuous bits, `1 − Π (1 − e^(−ln²2·m_i/d_i))^{f_i}`.
    pub fn fp_continuous(&self, bits: &[f64]) -> f64 {
        survival_to_fp(
            (0..self.distinct.len())
                .filter(|&i| self.active(i))
                .map(|i| {
                    let ln_p = -LN2_SQ * bits[i] / self.distinct[i];
                    log_survival(self.frequency[i], ln_p.exp(), || ln_p)
                }),
        )
    }

    /// The natural log of [`Allocation::fp`] of `a` (the objective's FP at its continuous
    /// bits, [`Self::fp_continuous`]), in log space: it keeps its relative precision
    /// below the smallest `f64` (2.2e-308). `−∞` when the FP is exactly 0.
    ///
    /// # Formula
    /// With `ln p_i = −ln²2·m_i/d_i` (Eq. (10) [PBF]) over the probed filters:
    /// ```text
    /// ln fp = ln(1 − e^(−X)),   ln X = LSE_i(ln f_i + ln(−ln(1 − p_i)))
    /// ```
    /// (`ln_survival_to_fp`).
    pub fn ln_fp(&self, a: &Allocation) -> f64 {
        ln_survival_to_fp(
            (0..self.distinct.len())
                .filter(|&i| self.active(i))
                .map(|i| (self.frequency[i], -LN2_SQ * a.bits[i] / self.distinct[i])),
        )
    }

    /// The natural log of [`Allocation::fp_rounded`] of `a`, in log space (see
    /// [`Self::ln_fp`]), with each filter's `ln p_i` from [`ln_filter_fp`] at its
    /// rounded bits and hash count.
    pub fn ln_fp_rounded(&self, a: &Allocation) -> f64 {
        ln_survival_to_fp(
            (0..self.distinct.len())
                .filter(|&i| self.frequency[i] > 0.0)
                .map(|i| {
                    (
                        self.frequency[i],
                        ln_filter_fp(a.bits_rounded[i], a.hashes[i], self.distinct[i]),
                    )
                }),
        )
    }

    /// The optimal allocation (Eqs. 10-13 [PBF]) and its rounding.
    ///
    /// # Formula
    /// With `μ = −λ > 0` and `r_i = ln²2 · f_i/d_i` (Eq. 10 [PBF]):
    /// ```text
    /// m_i = (d_i / ln²2) · ln(1 + r_i/μ)     for f_i > 0, d_i > 0;   m_i = 0 otherwise
    /// Σ_i d_i · ln(1 + r_i/μ) = m · ln²2                              Eqs. (12), (13)
    /// ```
    /// The left side falls strictly from ∞ to 0 as `ln μ` grows, so the root is unique;
    /// it lies in `ln μ ∈ [ln r_min − ln(e^z − 1), ln r_max − ln(e^z − 1)]` with
    /// `z = m·ln²2 / Σ d_i` (each term is at least / at most `d_i·z` at the ends), where
    /// Brent's method (argmin) finds it. Every active `m_i` is positive: the objective's
    /// slope is infinite at `m_i = 0`.
    /// # Errors
    /// `k_max` outside [`Self::K_MAX`]; [`ModelError::NoConvergence`] if the root finder
    /// fails (not expected: the bracket is checked first).
    pub fn optimal(&self, k_max: u32) -> Result<Allocation, ModelError> {
        check::in_range("k_max", k_max, Self::K_MAX)?;
        let solved = self.solve()?;
        Ok(self.finish_solved(solved, k_max))
    }

    /// The continuous optimum of Eqs. (10)-(13) and `λ` (see [`Self::optimal`]).
    fn solve_bits(
        &self,
        over: Option<(usize, f64)>,
    ) -> Result<(Vec<f64>, Option<f64>), ModelError> {
        let solved = self.solve_with(over)?;
        Ok((solved.bits, solved.lambda))
    }

    fn solve(&self) -> Result<Solved, ModelError> {
        self.solve_with(None)
    }

    /// The continuous optimum with what [`Self::finish_solved`] reuses.
    ///
    /// # Numerics
    /// * Filters with the same ratio `r_i = ln²2·f_i/d_i` share one term
    ///   `(Σ d_i)·ln(1 + r/μ)` of Eq. (12) (workload counts make many ratios equal), and
    ///   with `z = 1/μ` one evaluation of the root function costs one `exp` and one
    ///   `ln_1p` per distinct ratio.
    /// * At the optimum `2^(−ln2·m_i/d_i) = 1/(1 + r_i/μ)`, so the objective is
    ///   `Σ_groups (Σ f_i)·(−ln(1 + μ/r))`: one `ln_1p` per group, none per filter.
    ///
    /// `over = Some((i, f))` solves with `f_i` replaced by `f` (the gated fixed point).
    fn solve_with(&self, over: Option<(usize, f64)>) -> Result<Solved, ModelError> {
        let m = self.bits as f64;
        let n = self.distinct.len();
        let freq = |i: usize| match over {
            Some((j, f)) if j == i => f,
            _ => self.frequency[i],
        };
        let active = |i: usize| freq(i) > 0.0 && self.distinct[i] > 0.0;
        // The split depends on the ratios only relative to each other (Eq. (12) is
        // unchanged when every f_i is scaled), so where the largest f_i/d_i would
        // overflow (`f_i = 1e308, d_i = 0.5`: found by the `models` fuzz target) the keys
        // are `2^−e·f_i/d_i`, and `y` is shifted back by `e·ln 2` for the multiplier.
        let ln_ratio_max = (0..n)
            .filter(|&i| active(i))
            .map(|i| freq(i).ln() - self.distinct[i].ln())
            .fold(f64::NEG_INFINITY, f64::max);
        let shift = if ln_ratio_max > 700.0 {
            ((ln_ratio_max - 600.0) / LN_2).ceil()
        } else {
            0.0
        };
        let scale = (-shift).exp2();
        // Active filters keyed by their (scaled) ratio f_i/d_i (positive, so the IEEE bit
        // patterns sort as the numbers do).
        let mut keyed: Vec<(u64, u64, usize)> = (0..n)
            .filter(|&i| active(i))
            .map(|i| {
                let d = self.distinct[i];
                ((freq(i) * scale / d).to_bits(), d.to_bits(), i)
            })
            .collect();
        if keyed.is_empty() {
            // Nothing is ever probed: any split gives FP 0. Split by d_i (Lemma C.2 [PBF]).
            let bits = self.proportional();
            return Ok(Solved {
                fp: 0.0,
                bits,
                lambda: None,
                order: None,
            });
        }
        // By ratio only (sub-sorting by d_i for the rounded FP's memo measured no faster).
        keyed.sort_unstable_by_key(|a| a.0);
        // groups: (Σ d, Σ f, r) per distinct ratio; starts: first member of each.
        let mut groups: Vec<Group> = Vec::new();
        let mut starts: Vec<usize> = Vec::new();
        for (j, &(key, _, i)) in keyed.iter().enumerate() {
            match groups.last_mut() {
                Some(last) if keyed[j - 1].0 == key => {
                    last.d += self.distinct[i];
                    last.f += freq(i);
                }
                _ => {
                    groups.push(Group {
                        d: self.distinct[i],
                        f: freq(i),
                        r: LN2_SQ * f64::from_bits(key),
                    });
                    starts.push(j);
                }
            }
        }
        let total_d: f64 = groups.iter().map(|g| g.d).sum();
        let z = m * LN2_SQ / total_d;
        let ln_expm1_z = if z > 30.0 {
            z + (-(-z).exp()).ln_1p()
        } else {
            z.exp_m1().ln()
        };
        let ln_r_min = groups[0].r.ln();
        let ln_r_max = groups[groups.len() - 1].r.ln();
        let gap = Gap {
            groups: &groups,
            target: m * LN2_SQ,
        };
        let y = if ln_r_max - ln_r_min <= 1e-14 * ln_r_max.abs().max(1.0) {
            // Equal ratios f_i/d_i: m_i ∝ d_i solves Eq. (12) exactly.
            ln_r_min - ln_expm1_z
        } else if z - (ln_r_max - ln_r_min) > 40.0 {
            // So many bits per item that every term is linear at the root: there
            // ln r_g − y ≥ z − (ln r_max − ln r_min) > 40, and ln(1 + e^v) = v to within
            // e^(−40), so Eq. (12) reads Σ d_g·(ln r_g − y) = m·ln²2. (The bracket below
            // would be narrower than the floating-point spacing at its ends.)
            let weighted: CompensatedSum = groups.iter().map(|g| g.d * g.r.ln()).collect();
            (weighted.value() - m * LN2_SQ) / total_d
        } else {
            let slack = 1e-9 * (1.0 + ln_r_max.abs().max(ln_r_min.abs()));
            let lo = ln_r_min - ln_expm1_z - slack;
            let hi = ln_r_max - ln_expm1_z + slack;
            brent_root(gap, lo, hi)?
        };
        let mut bits = vec![0.0; n];
        starts.push(keyed.len());
        let mut log_ok = CompensatedSum::new();
        for (g, group) in groups.iter().enumerate() {
            let ln_r = group.r.ln();
            let per_item = softplus(ln_r - y) / LN2_SQ;
            // f·ln(1 − 2^(−ln2·m/d)) = −f·ln(1 + μ/r) = −f·softplus(y − ln r).
            log_ok.add(-group.f * softplus(y - ln_r));
            for &(_, _, i) in &keyed[starts[g]..starts[g + 1]] {
                bits[i] = self.distinct[i] * per_item;
            }
        }
        // The root is exact to ~1e-13 in ln μ; scale the last ulps away so Σ m_i = m.
        let sum: CompensatedSum = bits.iter().copied().collect();
        let scale = m / sum.value();
        bits.iter_mut().for_each(|b| *b *= scale);
        Ok(Solved {
            bits,
            lambda: Some(-(y + shift * LN_2).exp()),
            fp: probability(-log_ok.value().exp_m1()) + 0.0,
            order: Some(keyed.into_iter().map(|(_, _, i)| i).collect()),
        })
    }

    /// The optimum when PBF-1's partial leaves gate `b_{u+1}`: `f_{u+1}` counts the probes
    /// actually sent, `Σ_o p_o·c_o` ([`super::fine_probes_by_leaf`] gives `c_o`), which
    /// depends on the leaves' FPs `p_o = 2^(−ln2·m_o/d_o)` and so on the allocation.
    ///
    /// # Formula
    /// ```text
    /// find x = f_{u+1} with  x = G(x) = Σ_o p_o(x)·c_o,   p_o(x) from Eq. (10) at f_{u+1} = x
    /// ```
    /// `G` rises with `x` (more probes of `b_{u+1}` move bits to it and away from the
    /// leaves) and `0 ≤ G ≤ Σ c_o`, so `G(x) − x` changes sign on `[0, Σ c_o]`; Brent's
    /// method (argmin) finds the crossing. Returns the allocation and the number of
    /// inner solves.
    ///
    /// # Why
    /// Counting every fine-filter probe as sent (the ungated Eq. (6) form) spends most
    /// bits on `b_{u+1}`; on the synthetic days of `bfopt-validation` the gated optimum
    /// lowers the measured PBF-1 FP from 0.0085 to below 1e-4 at 20 bits per pair.
    ///
    /// # Errors
    /// `fine` out of range or `fine_by_leaf` of the wrong length; as [`Self::optimal`].
    pub fn optimal_gated(
        &self,
        fine: usize,
        fine_by_leaf: &[f64],
        k_max: u32,
    ) -> Result<(Allocation, u32), ModelError> {
        check::in_range("k_max", k_max, Self::K_MAX)?;
        let n = self.distinct.len();
        if fine >= n || fine_by_leaf.len() != n {
            return Err(ModelError::invalid(
                "fine_by_leaf",
                format!("{} values, fine filter {fine}", fine_by_leaf.len()),
                format!("{n} values and a fine filter below {n}"),
            ));
        }
        let leaves: Vec<usize> = (0..n).filter(|&o| fine_by_leaf[o] > 0.0).collect();
        let total: f64 = leaves.iter().map(|&o| fine_by_leaf[o]).sum();
        let solves = std::cell::Cell::new(0u32);
        let solve_at = |x: f64| -> Result<(Vec<f64>, Option<f64>, f64), ModelError> {
            solves.set(solves.get() + 1);
            let (bits, lambda) = self.solve_bits(Some((fine, x)))?;
            let g: f64 = leaves
                .iter()
                .map(|&o| {
                    let d = self.distinct[o];
                    let p = if d > 0.0 {
                        (-LN2_SQ * bits[o] / d).exp()
                    } else {
                        0.0
                    };
                    p * fine_by_leaf[o]
                })
                .sum();
            Ok((bits, lambda, g))
        };
        if total == 0.0 {
            let (bits, lambda, _) = solve_at(0.0)?;
            return Ok((self.finish(bits, lambda, k_max), solves.get()));
        }
        // h(x) = G(x) − x: h(0) ≥ 0, h(total) ≤ 0.
        let (b0, l0, g0) = solve_at(0.0)?;
        if g0 <= 1e-12 * total {
            return Ok((self.finish(b0, l0, k_max), solves.get()));
        }
        let (b1, l1, g1) = solve_at(total)?;
        if g1 >= total * (1.0 - 1e-12) {
            return Ok((self.finish(b1, l1, k_max), solves.get()));
        }
        let error = std::cell::RefCell::new(None);
        let fixed = FixedPoint {
            eval: &|x: f64| match solve_at(x) {
                Ok((_, _, g)) => g - x,
                Err(e) => {
                    *error.borrow_mut() = Some(e);
                    f64::NAN
                }
            },
        };
        let x = brent_root_fn(fixed, 0.0, total, 1e-10 * total)?;
        if let Some(e) = error.into_inner() {
            return Err(e);
        }
        let (bits, lambda, _) = solve_at(x)?;
        Ok((self.finish(bits, lambda, k_max), solves.get()))
    }

    /// The paper's default: every filter gets `m/(number of filters)` bits (Section 4.1
    /// [PBF]), hash counts as in [`Self::optimal`].
    ///
    /// # Errors
    /// `k_max` outside [`Self::K_MAX`].
    pub fn uniform(&self, k_max: u32) -> Result<Allocation, ModelError> {
        check::in_range("k_max", k_max, Self::K_MAX)?;
        let share = self.bits as f64 / self.distinct.len() as f64;
        Ok(self.finish(vec![share; self.distinct.len()], None, k_max))
    }

    /// Bits proportional to `d_i` (all equal when every `d_i` is 0): the allocation of
    /// Lemma C.2 [PBF].
    pub fn proportional(&self) -> Vec<f64> {
        let total: f64 = self.distinct.iter().sum();
        let m = self.bits as f64;
        if total > 0.0 {
            self.distinct.iter().map(|d| m * d / total).collect()
        } else {
            vec![m / self.distinct.len() as f64; self.distinct.len()]
        }
    }

    /// Evaluates an arbitrary continuous allocation (it must sum to `m`): rounding, hash
    /// counts and both FPs.
    ///
    /// # Errors
    /// A list of the wrong length, a negative entry, or a sum other than `m`; `k_max`
    /// outside [`Self::K_MAX`].
    pub fn evaluate(&self, bits: Vec<f64>, k_max: u32) -> Result<Allocation, ModelError> {
        check::in_range("k_max", k_max, Self::K_MAX)?;
        if bits.len() != self.distinct.len() || bits.iter().any(|b| !(*b >= 0.0)) {
            return Err(ModelError::invalid(
                "bits",
                format!("{} values", bits.len()),
                format!("{} values >= 0", self.distinct.len()),
            ));
        }
        let sum: f64 = bits.iter().sum();
        if (sum - self.bits as f64).abs() > 1e-9 * self.bits as f64 {
            return Err(ModelError::invalid(
                "bits",
                sum,
                format!("a split of m = {}", self.bits),
            ));
        }
        Ok(self.finish(bits, None, k_max))
    }

    fn finish(&self, bits: Vec<f64>, lambda: Option<f64>, k_max: u32) -> Allocation {
        let fp = self.fp_continuous(&bits);
        self.finish_solved(
            Solved {
                bits,
                lambda,
                fp,
                order: None,
            },
            k_max,
        )
    }

    /// Rounding, hash counts and the rounded FP of a solved allocation.
    ///
    /// # Numerics
    /// The rounded FP visits the probed filters in `order` (the solver's, grouped by
    /// ratio, so neighbours share `d_i` and nearly the same bits) and reuses the previous
    /// filter's `ln(1 − p)` when `(m_i, k_i, d_i)` repeat.
    fn finish_solved(&self, solved: Solved, k_max: u32) -> Allocation {
        let Solved {
            bits,
            lambda,
            fp,
            order,
        } = solved;
        let bits_rounded = round_to_total(&bits, self.bits);
        let hashes: Vec<u32> = bits_rounded
            .iter()
            .zip(&self.distinct)
            .map(|(&b, &d)| hashes_for(b, d, k_max))
            .collect();
        // Two slots: equal continuous bits round to `⌊m⌋` or `⌊m⌋ + 1`.
        let mut memo: [Option<(FilterKey, f64)>; 2] = [None, None];
        let mut log_ok = |i: usize| {
            let key = (bits_rounded[i], hashes[i], self.distinct[i].to_bits());
            let ln_ok = match memo {
                [Some((k, v)), _] | [_, Some((k, v))] if k == key => v,
                _ => {
                    let v = (-filter_fp(key.0, key.1, self.distinct[i])).ln_1p();
                    memo = [Some((key, v)), memo[0]];
                    v
                }
            };
            if ln_ok > -f64::MIN_POSITIVE && self.distinct[i] > 0.0 {
                // The filter's FP is positive (it has bits and hashes: else `ln_ok` is
                // `−∞`) but below the smallest normal f64: `f_i·p_i` may still be a normal
                // number (f_i up to 1e308), so take it from `ln p_i`.
                let ln_p = ln_filter_fp(key.0, key.1, self.distinct[i]);
                return log_survival(self.frequency[i], 0.0, || ln_p);
            }
            self.frequency[i] * ln_ok
        };
        let fp_rounded = match &order {
            // The solver's order holds every active filter; the others have f_i = 0 or
            // d_i = 0 (filter FP 0), and add nothing.
            Some(order) => survival_to_fp(order.iter().map(|&i| log_ok(i))),
            None => survival_to_fp(
                (0..bits.len())
                    .filter(|&i| self.frequency[i] > 0.0)
                    .map(&mut log_ok),
            ),
        };
        Allocation {
            fp,
            bits,
            lambda,
            bits_rounded,
            hashes,
            fp_rounded,
        }
    }
}

/// The log-survival term `f·ln(1 − p)` of a filter probed `f` times with FP `p`.
///
/// # Numerics
/// `f·ln_1p(−p)` while `p` is a normal `f64`; below 2.2e-308 (where `p` is 0 or has lost
/// digits, but `f·p` may be as large as 1e308·p) `−e^(ln f + ln p)` with `ln p` from
/// `ln_p`, since `ln(1 − p) = −p` to `f64` precision there (issue 17: `model pbf`
/// printed `fp_rounded` 0 for a filter at `p ≈ e^(−818)` probed 1e308 times, where the
/// FP is 6.3e-48).
pub(super) fn log_survival(f: f64, p: f64, ln_p: impl FnOnce() -> f64) -> f64 {
    if p >= f64::MIN_POSITIVE || !(f > 0.0) {
        f * (-p).ln_1p()
    } else {
        -(f.ln() + ln_p()).exp()
    }
}

/// `1 − exp(Σ terms)` for log-survival terms `f_i·ln(1 − p_i)`; 1 as soon as a term is
/// `−∞` (a probed filter that always answers yes).
fn survival_to_fp(terms: impl Iterator<Item = f64>) -> f64 {
    let mut sum = CompensatedSum::new();
    for t in terms {
        if t == f64::NEG_INFINITY {
            return 1.0;
        }
        sum.add(t);
    }
    // `+ 0.0` turns the `−0.0` of an empty or zero sum into `0`.
    probability(-sum.value().exp_m1()) + 0.0
}

/// The natural log of [`survival_to_fp`] from `(f_i, ln p_i)` pairs, in log space.
///
/// # Formula
/// ```text
/// fp = 1 − Π (1 − p_i)^(f_i) = 1 − e^(−X),   X = Σ f_i·(−ln(1 − p_i))
/// ln X = LSE_i(ln f_i + ln(−ln(1 − p_i))),   −ln(1 − p) = p·(1 + p/2 + …)
/// ```
/// `ln(−ln(1 − p))` is `ln p` once `p < e^(−40)` (the correction `p/2` is below `f64`
/// resolution); the last step is [`ln_one_minus_exp_neg_exp`]. `0` (fp = 1) when a
/// probed filter always answers yes; `−∞` when every term is 0.
fn ln_survival_to_fp(terms: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut ln_x = LnSum::new();
    for (f, ln_p) in terms {
        if ln_p >= 0.0 {
            return 0.0;
        }
        let ln_neg_ln_ok = if ln_p < -40.0 {
            ln_p
        } else {
            (-(-ln_p.exp()).ln_1p()).ln()
        };
        ln_x.add(f.ln() + ln_neg_ln_ok);
    }
    match ln_x.value() {
        f64::NEG_INFINITY => f64::NEG_INFINITY,
        l => ln_one_minus_exp_neg_exp(l),
    }
}

/// `k = ⌈(m/d)·ln 2⌉` within `[1, k_max]` (Section 7 [PBF]); 0 for a filter with no bits;
/// 1 for bits but no items.
pub fn hashes_for(bits: u64, distinct: f64, k_max: u32) -> u32 {
    if bits == 0 {
        return 0;
    }
    if !(distinct > 0.0) {
        return 1;
    }
    // ⌈x⌉ by truncation (x ≥ 0): no call to a software `ceil` on baseline x86-64.
    let x = bits as f64 / distinct * LN_2;
    let t = x.min(f64::from(k_max)) as u32;
    let k = if f64::from(t) < x { t + 1 } else { t };
    k.clamp(1, k_max)
}

/// FP of one filter with `m` bits, `k` hashes and `d` distinct items by the
/// independent-bits formula `(1 − (1 − 1/m)^{k·d})^k`; 0 when `d = 0`; 1 when `m = 0`
/// (a filter without bits must answer yes to keep no false negatives).
///
/// # Accuracy
/// Below the exact law for small filters (by a factor up to about 2 at 8-16 bits, the
/// sizes the allocation gives sparse PBF-1 leaves); within about 1% from a few thousand
/// bits. [`Allocation::fp_rounded`] uses it so that an allocation over 43 000 filters
/// stays in milliseconds; predictions that are checked against simulation use
/// [`filter_fp_with_budget`].
pub fn filter_fp(bits: u64, hashes: u32, distinct: f64) -> f64 {
    filter_fp_with_budget(bits, hashes, distinct, 0.0)
}

/// FP of one filter with `m` bits, `k` hashes and `d` distinct items: the exact law
/// `Σ_i P(i bits set)·(i/m)^k` ([`fp_exact_standard`]) when `d` is whole and it costs at
/// most `budget` steps, else `(1 − (1 − 1/m)^{k·d})^k`; 0 when `d = 0`; 1 when `m = 0`
/// (a filter without bits must answer yes to keep no false negatives).
///
/// # Accuracy
/// The allocation gives PBF-1 leaf filters as few as 8-16 bits, where the
/// independent-bits formula understates the exact FP by a factor up to about 2 (measured
/// in the pbf agreement runs); with a budget of 2e5 steps the exact law covers filters
/// up to a few hundred bits and the formula the larger ones, within about 1%.
pub fn filter_fp_with_budget(bits: u64, hashes: u32, distinct: f64, budget: f64) -> f64 {
    if !(distinct > 0.0) {
        0.0
    } else if bits == 0 || hashes == 0 {
        1.0
    } else {
        let exact = if budget > 0.0 && distinct.fract() == 0.0 && distinct <= 1e15 {
            fp_exact_standard(bits, hashes, distinct as u64, budget)
        } else {
            None
        };
        exact
            .unwrap_or_else(|| probability(filter_fill(bits, hashes, distinct).powi(hashes as i32)))
    }
}

/// `1 − (1 − 1/m)^{k·d}`, the fill of fp_standard's form `(1 − (1 − 1/m)^{k·d})^k`.
fn filter_fill(bits: u64, hashes: u32, distinct: f64) -> f64 {
    one_minus_pow1m(1.0 / bits as f64, f64::from(hashes) * distinct)
}

/// The natural log of [`filter_fp`], `k·ln(1 − (1 − 1/m)^{k·d})`, in log space: `−∞`
/// when `d = 0`, `0` when `m = 0`.
pub fn ln_filter_fp(bits: u64, hashes: u32, distinct: f64) -> f64 {
    if !(distinct > 0.0) {
        f64::NEG_INFINITY
    } else if bits == 0 || hashes == 0 {
        0.0
    } else {
        f64::from(hashes) * filter_fill(bits, hashes, distinct).ln()
    }
}

/// Integer parts summing to `total` (largest remainders; ties to the lower index).
///
/// # Numerics
/// `O(n)`: the `left` largest remainders are found by selection, not by sorting.
pub fn round_to_total(parts: &[f64], total: u64) -> Vec<u64> {
    // `as u64` truncates, which is `floor` for p ≥ 0 (and 0 for NaN).
    let mut out: Vec<u64> = parts.iter().map(|p| p.max(0.0) as u64).collect();
    let assigned: u64 = out.iter().sum();
    let mut left = total.saturating_sub(assigned);
    if left == 0 || parts.is_empty() {
        return out;
    }
    let n = parts.len() as u64;
    // More than one unit per part (only when the parts do not sum to total): spread evenly.
    let rounds = left / n;
    if rounds > 0 {
        out.iter_mut().for_each(|o| *o += rounds);
        left -= rounds * n;
    }
    if left > 0 {
        let mut order: Vec<(f64, usize)> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.max(0.0) - out[i] as f64, i))
            .collect();
        let cmp = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let k = left as usize;
        if k < order.len() {
            order.select_nth_unstable_by(k - 1, cmp);
        }
        for &(_, i) in &order[..k] {
            out[i] += 1;
        }
    }
    out
}

/// `ln(1 + e^u)` without overflow or loss for large `|u|`.
fn softplus(u: f64) -> f64 {
    if u > 35.0 {
        u + (-u).exp()
    } else {
        u.exp().ln_1p()
    }
}

/// `(m_i, k_i, d_i as bits)`: what a filter's rounded FP depends on.
type FilterKey = (u64, u32, u64);

/// Filters that share a ratio: `Σ d_i`, `Σ f_i` and `r = ln²2·f/d`.
#[derive(Debug, Clone, Copy)]
struct Group {
    d: f64,
    f: f64,
    r: f64,
}

/// A solved continuous allocation.
struct Solved {
    bits: Vec<f64>,
    lambda: Option<f64>,
    /// The objective's FP at `bits`.
    fp: f64,
    /// The active filters grouped by ratio (when the solver ran).
    order: Option<Vec<usize>>,
}

/// `G(y) = Σ d_g·ln(1 + r_g·e^(−y)) − m·ln²2`, decreasing in `y = ln μ`.
#[derive(Clone, Copy)]
struct Gap<'a> {
    groups: &'a [Group],
    target: f64,
}

impl Gap<'_> {
    /// `G(y)`; where `u_g = r_g·e^(−y)` leaves the floating-point range, the term-wise
    /// stable form `softplus(ln r_g − y)`.
    fn eval(&self, y: f64) -> f64 {
        let z = (-y).exp();
        let mut sum = 0.0;
        for grp in self.groups {
            let u = grp.r * z;
            sum += if u.is_finite() && z > 0.0 && z.is_finite() {
                grp.d * u.ln_1p()
            } else {
                grp.d * softplus(grp.r.ln() - y)
            };
        }
        sum - self.target
    }
}

impl CostFunction for Gap<'_> {
    type Param = f64;
    type Output = f64;
    fn cost(&self, y: &f64) -> Result<f64, argmin::core::Error> {
        Ok(self.eval(*y))
    }
}

/// `h(x) = G(x) − x` of [`AllocationProblem::optimal_gated`].
struct FixedPoint<'a> {
    eval: &'a dyn Fn(f64) -> f64,
}

impl CostFunction for FixedPoint<'_> {
    type Param = f64;
    type Output = f64;
    fn cost(&self, x: &f64) -> Result<f64, argmin::core::Error> {
        Ok((self.eval)(*x))
    }
}

/// Brent's method (argmin) on a bracket whose signs are checked first.
fn brent_root(gap: Gap<'_>, lo: f64, hi: f64) -> Result<f64, ModelError> {
    let tol = 1e-13 * (1.0 + lo.abs().max(hi.abs()));
    brent_root_fn(gap, lo, hi, tol)
}

/// Brent's method (argmin) for a function that is `≥ 0` at `lo` and `≤ 0` at `hi`
/// ([`crate::numeric::brent_root`]).
fn brent_root_fn<P>(problem: P, lo: f64, hi: f64, tol: f64) -> Result<f64, ModelError>
where
    P: CostFunction<Param = f64, Output = f64>,
{
    crate::numeric::brent_root(&|x| problem.cost(&x).unwrap_or(f64::NAN), lo, hi, tol)
}
