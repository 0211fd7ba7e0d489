//! Importance-aware Bloom filters: stable point by the exact cell chain (local policies)
//! or a mean-field fixed point (global policies), and the metrics of Section 4 [SBF].

use super::chain::CellChain;
use super::importance::ImportanceDist;
use super::policy::{Delete, Insert, Policy};
use super::root::brent;
use super::sbf::{cell_bits, fn_from_zero};
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;
use std::ops::RangeInclusive;

/// How Imp-insert turns an importance into a cell value `1..=Max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpMapping {
    /// `min(importance, Max)` (Alg. 2 [SBF] read literally, cells capped at `Max`).
    Cap,
    /// `⌈importance·Max / Z⌉`, `Z` the largest importance: the importance range cut
    /// into `Max` equal steps, as Section 7 [SBF] describes its results ("the variation
    /// of FN in 4 steps ... the four importance values to which the elements lying in
    /// each range are mapped").
    Scale,
}

/// Parameters of an importance-aware filter (or the SBF under the same interface).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbfParams {
    policy: Policy,
    imp_mapping: ImpMapping,
    m: u64,
    k: u32,
    max: u32,
    p: u64,
    counter_bits: u32,
    #[serde(serialize_with = "ser_spec")]
    importance: ImportanceDist,
}

fn ser_spec<S: serde::Serializer>(d: &ImportanceDist, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.spec())
}

impl IbfParams {
    /// Allowed cell counts `m`.
    pub const M: RangeInclusive<u64> = 2..=(1 << 40);
    /// Allowed hash counts.
    pub const K: RangeInclusive<u32> = 1..=64;
    /// Allowed cell maxima.
    pub const MAX: RangeInclusive<u32> = 1..=255;
    /// Allowed widths of the cumulative-importance counter (bits).
    pub const COUNTER_BITS: RangeInclusive<u32> = 1..=12;
    /// Default counter width: 8 bits (saturates at 255).
    pub const COUNTER_BITS_DEFAULT: u32 = 8;

    /// Validates and builds the parameters (counter width [`Self::COUNTER_BITS_DEFAULT`]).
    ///
    /// # Errors
    /// `m`, `k`, `max`, `p` out of range (as [`super::SbfParams::new`]).
    pub fn new(
        policy: Policy,
        m: u64,
        k: u32,
        max: u32,
        p: u64,
        importance: ImportanceDist,
    ) -> Result<Self, ModelError> {
        super::SbfParams::new(m, k, max, p)?;
        Ok(Self {
            policy,
            m,
            k,
            max,
            p,
            counter_bits: Self::COUNTER_BITS_DEFAULT,
            importance,
            imp_mapping: ImpMapping::Cap,
        })
    }

    /// Sets how Imp-insert maps importance to a cell value (default [`ImpMapping::Cap`]).
    pub fn with_imp_mapping(mut self, mapping: ImpMapping) -> Self {
        self.imp_mapping = mapping;
        self
    }

    /// The importance-to-value mapping of Imp-insert.
    pub fn imp_mapping(&self) -> ImpMapping {
        self.imp_mapping
    }

    /// Sets the width of the cumulative-importance counter.
    ///
    /// # Errors
    /// Outside [`Self::COUNTER_BITS`].
    pub fn with_counter_bits(mut self, bits: u32) -> Result<Self, ModelError> {
        self.counter_bits = check::in_range("counter_bits", bits, Self::COUNTER_BITS)?;
        Ok(self)
    }

    /// The policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }
    /// Cells `m`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Hashes `K`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Cell maximum `Max`.
    pub fn max(&self) -> u32 {
        self.max
    }
    /// Decrements per insertion `P`.
    pub fn p(&self) -> u64 {
        self.p
    }
    /// Width of the cumulative-importance counter (used only by policies that track it).
    pub fn counter_bits(&self) -> u32 {
        self.counter_bits
    }
    /// The saturation value `C = 2^b − 1` of the counter; 0 if the policy keeps none.
    pub fn counter_cap(&self) -> u32 {
        if self.policy.tracks_cumulative() {
            (1u32 << self.counter_bits) - 1
        } else {
            0
        }
    }
    /// The importance distribution.
    pub fn importance(&self) -> &ImportanceDist {
        &self.importance
    }
    /// The value an insertion of importance `imp` writes.
    pub fn insert_value(&self, imp: u32) -> u32 {
        match self.policy.insert() {
            Insert::Max => self.max,
            Insert::Importance => match self.imp_mapping {
                ImpMapping::Cap => imp.min(self.max),
                ImpMapping::Scale => {
                    let z = u64::from(self.importance.hi());
                    let v = (u64::from(imp) * u64::from(self.max)).div_ceil(z);
                    (v as u32).clamp(1, self.max)
                }
            },
        }
    }
    /// Bits per cell: `⌈log2(Max+1)⌉`, plus the counter for policies that keep one.
    pub fn bits_per_cell(&self) -> u32 {
        cell_bits(self.max)
            + if self.policy.tracks_cumulative() {
                self.counter_bits
            } else {
                0
            }
    }
    /// Memory `m · bits_per_cell`.
    pub fn memory_bits(&self) -> u64 {
        self.m * u64::from(self.bits_per_cell())
    }

    /// The same filter under another policy.
    pub fn with_policy(&self, policy: Policy) -> Self {
        Self {
            policy,
            ..self.clone()
        }
    }

    fn chain(&self, dec: impl Fn(u32, u32) -> f64) -> CellChain {
        let cap = self.counter_cap();
        let mut sets: Vec<(u32, u32, f64)> = Vec::new();
        for (imp, w) in self.importance.iter().filter(|&(_, w)| w > 0.0) {
            let v = self.insert_value(imp);
            if cap == 0 {
                // Untracked: only the value matters; merge equal values.
                match sets.iter_mut().find(|s| s.0 == v) {
                    Some(s) => s.2 += w,
                    None => sets.push((v, 0, w)),
                }
            } else {
                sets.push((v, imp, w));
            }
        }
        let mut chain = CellChain {
            max: self.max,
            cap,
            a: f64::from(self.k) / self.m as f64,
            sets,
            dec: Vec::new(),
        };
        chain.dec = (0..chain.states())
            .map(|s| {
                let (v, c) = chain.decode(s);
                if v == 0 {
                    0.0
                } else {
                    probability(dec(v, c))
                }
            })
            .collect();
        chain
    }
}

/// How a stable point was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum StableMethod {
    /// The policy is local to a cell: the cell chain is exact (given `P` distinct random
    /// decrements and `K` distinct cells per insertion).
    ExactChain,
    /// Probabilistic deletion: a cell of weight `w` (1/c or 1/v) is decremented with
    /// probability `min(1, P·w / (m·W̄))`, `W̄` the stationary mean weight of non-zero
    /// cells, solved as a fixed point.
    MeanFieldWeight {
        /// The fixed point `W̄`.
        mean_weight: f64,
        /// Brent iterations.
        iterations: u64,
    },
    /// MinImp deletion: a cell at counter `c` is decremented with the probability that
    /// it ranks among the `P` least counters of the non-zero cells, the numbers of cells
    /// below and at `c` taken as Poisson ([`rank_refine`]); iterated to a fixed point.
    MeanFieldRank {
        /// Fixed-point iterations.
        iterations: u64,
        /// `max_c |F(d)(c) − d(c)|` of the returned decrement law `d` under the rank map
        /// `F`: below 1e-7 when the damped iteration converged; where it settles into an
        /// oscillation instead (seen for IBF4 at m = 65536), the average of the later
        /// iterates is returned with its own residual, accepted up to 0.05.
        residual: f64,
    },
}

/// A solved stable point: query it for zeros, FP, FN by importance and age.
#[derive(Debug, Clone)]
pub struct IbfSolution {
    params: IbfParams,
    chain: CellChain,
    pi: Vec<f64>,
    method: StableMethod,
}

/// Solves the stable point of a policy.
///
/// # Accuracy
/// Local policies (SBF, IBF1): exact for one cell. Global policies (IBF2-IBF6):
/// mean-field; the agreement tests measure the zero-fraction error against the
/// reference filters (stated in [`super`]'s module doc).
///
/// # Errors
/// [`ModelError::NoConvergence`] if the fixed point cannot be bracketed.
pub fn solve(params: &IbfParams) -> Result<IbfSolution, ModelError> {
    let (m, p) = (params.m as f64, params.p as f64);
    let finish = |chain: CellChain, method| -> Result<IbfSolution, ModelError> {
        let pi = chain.stationary()?;
        Ok(IbfSolution {
            params: params.clone(),
            chain,
            pi,
            method,
        })
    };
    match params.policy.delete() {
        Delete::Random => finish(params.chain(|_, _| p / m), StableMethod::ExactChain),
        kind @ (Delete::ProbCumulative | Delete::ProbValue) => {
            let weight = move |v: u32, c: u32| {
                1.0 / f64::from(if kind == Delete::ProbValue { v } else { c })
            };
            let chain_at =
                |wbar: f64| params.chain(|v, c| (p * weight(v, c) / (m * wbar)).min(1.0));
            let mean_weight = |chain: &CellChain, pi: &[f64]| -> f64 {
                pi.iter()
                    .enumerate()
                    .skip(1)
                    .map(|(s, &x)| {
                        let (v, c) = chain.decode(s);
                        x * weight(v, c)
                    })
                    .sum()
            };
            let gap = |wbar: f64| {
                let chain = chain_at(wbar);
                match chain.stationary() {
                    Ok(pi) => wbar - mean_weight(&chain, &pi),
                    Err(_) => f64::NAN,
                }
            };
            let (wbar, iterations) = brent("mean-field weight", 1e-12, 1.0, 1e-13, gap)?;
            finish(
                chain_at(wbar),
                StableMethod::MeanFieldWeight {
                    mean_weight: wbar,
                    iterations,
                },
            )
        }
        Delete::MinImp => {
            // Start from uniform decrements and iterate the rank model to its fixed point.
            let (chain, iterations, residual) = rank_refine(params, params.chain(|_, _| p / m))?;
            finish(
                chain,
                StableMethod::MeanFieldRank {
                    iterations,
                    residual,
                },
            )
        }
    }
}

impl IbfSolution {
    /// The parameters.
    pub fn params(&self) -> &IbfParams {
        &self.params
    }
    /// How the stable point was obtained.
    pub fn method(&self) -> StableMethod {
        self.method
    }
    /// The stationary law of one cell's value `Pr(v = j)`, `j = 0..=Max`.
    pub fn value_distribution(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.params.max as usize + 1];
        for (s, &x) in self.pi.iter().enumerate() {
            out[self.chain.decode(s).0 as usize] += x;
        }
        out
    }
    /// Stationary fraction of zero cells.
    pub fn zero_fraction(&self) -> f64 {
        self.pi[0]
    }
    /// FP of a non-member: `(1 − π0)^K` (cells treated as independent).
    pub fn fp(&self) -> f64 {
        probability((f64::from(self.params.k) * (-self.pi[0]).ln_1p()).exp())
    }

    /// FN by importance `age` insertions after the item was inserted: entry `j` is for
    /// importance `lo + j` of the distribution's support.
    ///
    /// # Formula
    /// ```text
    /// x_i = (π · D) with each state's value set to ins(i), counter raised by i
    /// FN_i(age) = 1 − (1 − x_i · T^age · e_0)^K
    /// ```
    /// `D` is the deletion phase at the item's own insertion. One backward pass
    /// `T^age·e_0` serves every importance: `O(age·(C·|support| + states))`.
    pub fn fn_by_importance(&self, age: u64) -> Vec<f64> {
        let back = self.chain.zero_after(age);
        let y = self.chain.after_deletion(&self.pi);
        self.params
            .importance
            .iter()
            .map(|(imp, _)| {
                let x = self.chain.after_set(&y, self.params.insert_value(imp), imp);
                let z: f64 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
                fn_from_zero(z.min(1.0), self.params.k)
            })
            .collect()
    }

    /// All metrics at query age `age`, with a query mix whose fraction `member_share` are
    /// queries of members (the rest non-members).
    ///
    /// # Errors
    /// `member_share` outside `[0, 1]`; the SBF reference (for the crossover) fails to
    /// solve.
    pub fn metrics(&self, age: u64, member_share: f64) -> Result<IbfMetrics, ModelError> {
        check::probability("member_share", member_share)?;
        let fp = self.fp();
        let fns = self.fn_by_importance(age);
        let dist = &self.params.importance;
        let w = weighted(dist, fp, &fns, member_share);
        let crossover = if self.params.policy == Policy::Sbf {
            None
        } else {
            let sbf = solve(&self.params.with_policy(Policy::Sbf))?.fn_by_importance(age);
            crossover(dist, &fns, &sbf)
        };
        Ok(IbfMetrics {
            zero_fraction: self.zero_fraction(),
            zero_cells: self.zero_fraction() * self.params.m as f64,
            fp,
            fn_by_importance: fns,
            importance_lo: dist.lo(),
            weighted_fp: w.weighted_fp,
            weighted_fn: w.weighted_fn,
            precision: w.precision,
            recall: w.recall,
            crossover,
            age,
            member_share,
            memory_bits: self.params.memory_bits(),
            method: self.method,
        })
    }
}

/// Importance-weighted rates of Eqs. (5)-(8) [SBF].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weighted {
    /// `Σ_i w_i·i·FP / Σ_i w_i·i`: Eq. (5) [SBF] per unit of queried importance (equal to
    /// the FP, which does not depend on a non-member's importance).
    pub weighted_fp: f64,
    /// `Σ_i w_i·i·FN_i / Σ_i w_i·i`: Eq. (6) [SBF] per unit of queried importance.
    pub weighted_fn: f64,
    /// Eq. (7) [SBF]: `(wTotal − wFP)/wTotal`, `wTotal` the importance of all hits.
    pub precision: f64,
    /// Eq. (8) [SBF]: `(wTotal − wFP)/(wTotal − wFP + wFN)`.
    pub recall: f64,
}

/// Eqs. (5)-(8) [SBF] in expectation, for a query mix with a share `r` of member queries
/// (importance law `w` for both kinds):
///
/// ```text
/// wFP = (1 − r)·Σ w_i·i·FP      wFN = r·Σ w_i·i·FN_i      wTP = r·Σ w_i·i·(1 − FN_i)
/// wTotal = wTP + wFP;  precision = wTP / wTotal;  recall = wTP / (wTP + wFN)
/// ```
pub fn weighted(dist: &ImportanceDist, fp: f64, fns: &[f64], r: f64) -> Weighted {
    let mean: f64 = dist.mean();
    let fn_w: f64 = dist
        .iter()
        .zip(fns)
        .map(|((i, w), f)| w * f64::from(i) * f)
        .sum();
    let wfp = (1.0 - r) * mean * fp;
    let wfn = r * fn_w;
    let wtp = r * (mean - fn_w);
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 1.0 };
    Weighted {
        weighted_fp: fp,
        weighted_fn: probability(fn_w / mean),
        precision: probability(ratio(wtp, wtp + wfp)),
        recall: probability(ratio(wtp, wtp + wfn)),
    }
}

/// The crossover point, Eq. (11) [SBF]: the smallest importance at which the IBF's FN is
/// below the SBF's; `None` if it never is.
pub fn crossover(dist: &ImportanceDist, ibf: &[f64], sbf: &[f64]) -> Option<u32> {
    dist.iter()
        .zip(ibf.iter().zip(sbf))
        .find(|(_, (a, b))| a < b)
        .map(|((i, _), _)| i)
}

/// Predicted metrics of an importance-aware filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbfMetrics {
    /// Stable-point fraction of zero cells.
    pub zero_fraction: f64,
    /// Expected zero cells `m·π0` (Figure 7 [SBF]).
    pub zero_cells: f64,
    /// FP of a non-member, `(1 − π0)^K`.
    pub fp: f64,
    /// FN at `age` for each importance from `importance_lo` upward (Eq. (10) [SBF]).
    pub fn_by_importance: Vec<f64>,
    /// Importance of the first entry of `fn_by_importance`.
    pub importance_lo: u32,
    /// Eq. (5) [SBF] as a rate (see [`Weighted`]).
    pub weighted_fp: f64,
    /// Eq. (6) [SBF] as a rate.
    pub weighted_fn: f64,
    /// Eq. (7) [SBF].
    pub precision: f64,
    /// Eq. (8) [SBF].
    pub recall: f64,
    /// Eq. (11) [SBF] against the SBF of the same `m, K, Max, P`.
    pub crossover: Option<u32>,
    /// Query age (insertions since the member's insertion).
    pub age: u64,
    /// Share of member queries in the precision / recall mix.
    pub member_share: f64,
    /// Memory in bits, counters included.
    pub memory_bits: u64,
    /// How the stable point was obtained.
    pub method: StableMethod,
}

/// The MinImp mean field.
///
/// A sharp threshold (cells with counter below `c*` decremented every step, none above)
/// has no consistent fixed point: sets only raise counters, so cells above `c*` would
/// never return to zero, while `c* = C` (the counter cap) delivers more than `P`
/// decrements. In a real filter the `P`-th least counter fluctuates, and saturated cells
/// are reached whenever the pool of low counters runs dry. So a cell at counter `c` is
/// decremented with the probability that it ranks among the `P` least:
///
/// ```text
/// d(c) = Σ_{j<P} Pois(j; λ_<(c)) · E[min(1, (P − j)/(N_c + 1))],   N_c ~ Pois(λ_=(c))
/// λ_<(c) = m·Σ_{c'<c} Pr(v > 0, counter = c'),   λ_=(c) = m·Pr(v > 0, counter = c)
/// ```
/// (ties broken uniformly), iterated from uniform decrements to a fixed point with
/// damping (step 0.1, shrunk by 0.7 down to 0.01 whenever the residual grows), until
/// `max_c |F(d)(c) − d(c)| < 1e-7`.
///
/// # Errors
/// [`ModelError::NoConvergence`] when neither the iteration nor the average of its later
/// iterates reaches a residual of 0.05.
fn rank_refine(params: &IbfParams, start: CellChain) -> Result<(CellChain, u64, f64), ModelError> {
    const ITERS: u64 = 3000;
    let cap = params.counter_cap() as usize;
    let mut chain = start;
    let mut d_level: Vec<f64> = (0..=cap)
        .map(|c| {
            if c == 0 {
                0.0
            } else {
                chain.dec[chain.encode(1, c as u32)]
            }
        })
        .collect();
    let mut avg = vec![0.0; cap + 1];
    let mut averaged = 0.0;
    let mut residual = f64::INFINITY;
    // Damped iteration; the step shrinks whenever the residual grows (oscillation).
    let mut step = 0.1;
    let mut last = f64::INFINITY;
    for it in 1..=ITERS {
        let target = rank_map(params, &chain)?;
        residual = target
            .iter()
            .zip(&d_level)
            .map(|(t, d)| (t - d).abs())
            .fold(0.0, f64::max);
        if residual < 1e-7 {
            return Ok((chain, it, residual));
        }
        for (d, t) in d_level.iter_mut().zip(&target) {
            *d = (1.0 - step) * *d + step * t;
        }
        set_level_dec(&mut chain, &d_level);
        if residual > last {
            step = (step * 0.7).max(0.01);
        }
        last = residual;
        if it > ITERS / 3 {
            avg.iter_mut().zip(&d_level).for_each(|(a, d)| *a += d);
            averaged += 1.0;
        }
    }
    // Still oscillating: take the average of the later iterates (Polyak averaging) and
    // measure its own residual.
    avg.iter_mut().for_each(|a| *a /= averaged);
    set_level_dec(&mut chain, &avg);
    let target = rank_map(params, &chain)?;
    let avg_residual = target
        .iter()
        .zip(&avg)
        .map(|(t, d)| (t - d).abs())
        .fold(0.0, f64::max);
    if avg_residual < 0.05 {
        return Ok((chain, ITERS, avg_residual.min(residual)));
    }
    Err(ModelError::NoConvergence {
        solver: "MinImp rank refinement",
        iterations: ITERS,
        residual: avg_residual,
    })
}

fn set_level_dec(chain: &mut CellChain, d_level: &[f64]) {
    chain.dec = (0..chain.states())
        .map(|s| {
            let (v, c) = chain.decode(s);
            if v == 0 {
                0.0
            } else {
                d_level[c as usize]
            }
        })
        .collect();
}

/// One application of the rank map: decrement probability per counter level from the
/// stationary law of `chain`.
fn rank_map(params: &IbfParams, chain: &CellChain) -> Result<Vec<f64>, ModelError> {
    let (m, p) = (params.m as f64, params.p as usize);
    let cap = params.counter_cap() as usize;
    let pi = chain.stationary()?;
    let mut g = vec![0.0; cap + 1];
    for (s, &x) in pi.iter().enumerate().skip(1) {
        g[chain.decode(s).1 as usize] += x;
    }
    let mut below = 0.0;
    let mut out = vec![0.0; cap + 1];
    for c in 1..=cap {
        let (lt, eq) = (m * below, m * g[c]);
        below += g[c];
        let mut d = 0.0;
        for j in 0..p {
            let pj = poisson_pmf(j, lt);
            if pj < 1e-300 {
                continue;
            }
            d += pj * share_of_slots(p - j, eq);
        }
        out[c] = probability(d);
    }
    Ok(out)
}

/// `Pr(N = j)` for `N ~ Poisson(λ)`.
fn poisson_pmf(j: usize, lambda: f64) -> f64 {
    if lambda <= 0.0 {
        return if j == 0 { 1.0 } else { 0.0 };
    }
    let jf = j as f64;
    (jf * lambda.ln() - lambda - statrs::function::gamma::ln_gamma(jf + 1.0)).exp()
}

/// `E[min(1, s/(N + 1))]` for `N ~ Poisson(λ)`: the chance a cell gets one of `s` slots
/// shared uniformly with `N` tied cells.
///
/// ```text
/// E = s·E[1/(N+1)] + Σ_{n<s} Pois(n; λ)·(1 − s/(n+1)),   E[1/(N+1)] = (1 − e^(−λ))/λ
/// ```
pub(crate) fn share_of_slots(s: usize, lambda: f64) -> f64 {
    let sf = s as f64;
    let mean_inv = if lambda > 1e-12 {
        -(-lambda).exp_m1() / lambda
    } else {
        1.0
    };
    let correction: f64 = (0..s)
        .map(|n| poisson_pmf(n, lambda) * (1.0 - sf / (n + 1) as f64))
        .sum();
    probability((sf * mean_inv + correction).clamp(0.0, 1.0))
}
