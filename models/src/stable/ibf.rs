//! Importance-aware Bloom filters: stable point by the exact cell chain (local policies)
//! or a mean-field fixed point (global policies), and the metrics of Section 4 [SBF].

use super::chain::{binomial_terms, CellChain};
use super::importance::ImportanceDist;
use super::params::{IbfParams, StableMethod};
use super::policy::{Delete, Policy};
use super::root::brent;
use super::sbf::fn_from_zero;
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;

/// A solved stable point: query it for zeros, FP, FN by importance and age.
#[derive(Debug, Clone)]
pub struct IbfSolution {
    params: IbfParams,
    chain: CellChain,
    pi: Vec<f64>,
    method: StableMethod,
}

/// The start vectors `x_i` of [`IbfSolution::fn_by_importance`] for the support's
/// importances, equal ones (importances that write the same value and saturate the
/// counter alike: 16 distinct of 50 for `linear:1:50` with a 4-bit counter, at most
/// `Max` without one) stored and multiplied once; every result is the same to the bit.
struct Starts {
    unique: Vec<Vec<f64>>,
    /// `of[j]`: the index in `unique` of the support's `j`-th importance.
    of: Vec<usize>,
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
    solve_with(params, false)
}

/// The ratio of successive counter levels past 8 in [`IbfSolution::fn_coarse_lower_bound`]
/// (measured at `--bits 20000 --member-share 0.2 --cost-fp 5`, IBF3, every design
/// bounded: 1.25 and 1.5 left 8 FN passes, 2 left 40).
pub(crate) const COARSE_RATIO: f64 = 1.5;

/// [`solve`], with MinImp (IBF2, IBF4) by its threshold limit at every `m` when
/// `screen` is set ([`super::minimp`]); other policies as [`solve`]. The optimizer ranks
/// MinImp designs by it and re-solves the best exactly.
///
/// # Errors
/// As [`solve`].
pub(crate) fn solve_screen(params: &IbfParams) -> Result<IbfSolution, ModelError> {
    solve_with(params, true)
}

/// A lower bound on the number of decrements `P` with which the stable point of
/// `params`'s policy (its `m`, `K`, `Max`, importance law and counter; `params.p()` is
/// ignored) can meet the FP target `fp`: every `P` below it has FP above `fp`.
///
/// # Formula
/// ```text
/// P ≥ K·π0·v_min ≥ K·(1 − fp^(1/K))·v_min
/// ```
/// A stable-point cell starts a non-zero run (is set while empty) `π0·K/m` times per
/// insertion, and each run takes at least `v_min` decrements to end, `v_min` the least
/// value an insertion writes (after a run's last set its value only falls, one per
/// decrement). The chain of [`solve`] spends at most `P/m` decrements per cell and
/// insertion: random deletion `(1 − π0)·P/m`; probabilistic deletion `P/m` by the
/// mean-field normalisation (less where `min(1, ·)` caps); MinImp's threshold limit `P/m`
/// (less when under-loaded). So `π0 ≤ P/(K·v_min)`, while FP `= (1 − π0)^K ≤ fp` needs
/// `π0 ≥ 1 − fp^(1/K)`. Rounded down with a relative margin of 1e-6 (rounding, the
/// mean-field root's tolerance). Not proven for MinImp's rank map (counters that no
/// single insertion saturates), whose decrements are a Poisson approximation.
///
/// # Errors
/// `fp` outside `(0, 1)`.
pub fn least_decrements(params: &IbfParams, fp: f64) -> Result<u64, ModelError> {
    if !(fp > 0.0 && fp < 1.0) {
        return Err(ModelError::invalid("fp", fp, "0 < fp < 1"));
    }
    let k = f64::from(params.k());
    let zeros = -(fp.ln() / k).exp_m1();
    let v_min = params
        .importance()
        .iter()
        .filter(|&(_, w)| w > 0.0)
        .map(|(imp, _)| params.insert_value(imp))
        .min()
        .unwrap_or(params.max());
    let bound = k * zeros * f64::from(v_min) * (1.0 - 1e-6);
    Ok((bound.ceil() as u64).max(1))
}

fn solve_with(params: &IbfParams, screen: bool) -> Result<IbfSolution, ModelError> {
    let (m, p) = (params.m() as f64, params.p() as f64);
    let finish = |chain: CellChain, method| -> Result<IbfSolution, ModelError> {
        let pi = chain.stationary()?;
        Ok(IbfSolution {
            params: params.clone(),
            chain,
            pi,
            method,
        })
    };
    match params.policy().delete() {
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
            // One chain for the whole root search: only its decrement law moves with `W̄`
            // (set in place, with the values `chain_at` gives).
            let search = std::cell::RefCell::new(chain_at(1.0));
            let weights: Vec<f64> = {
                let chain = search.borrow();
                (0..chain.states())
                    .map(|s| {
                        let (v, c) = chain.decode(s);
                        if v == 0 {
                            0.0
                        } else {
                            weight(v, c)
                        }
                    })
                    .collect()
            };
            let gap = |wbar: f64| {
                let mut chain = search.borrow_mut();
                for (d, &wt) in chain.dec.iter_mut().zip(&weights).skip(1) {
                    *d = probability((p * wt / (m * wbar)).min(1.0));
                }
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
            let (chain, pi, method) = super::minimp::solve_with(params, screen)?;
            Ok(IbfSolution {
                params: params.clone(),
                chain,
                pi,
                method,
            })
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
    /// The cell chain at the stable point and its stationary law.
    pub(crate) fn chain_and_law(&self) -> (&CellChain, &[f64]) {
        (&self.chain, &self.pi)
    }
    /// The stationary law of one cell's value `Pr(v = j)`, `j = 0..=Max`.
    pub fn value_distribution(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.params.max() as usize + 1];
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
        probability((f64::from(self.params.k()) * (-self.pi[0]).ln_1p()).exp())
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
    /// `T^age·e_0` serves every importance: `O(age·(C·|support| + states))`, or binary
    /// powering of the dense chain where that is cheaper (chains of at most 512 states);
    /// [`Self::fn_work`] gives the cost, which [`Self::metrics`] bounds.
    pub fn fn_by_importance(&self, age: u64) -> Vec<f64> {
        self.fn_by_importance_from(&self.chain.zero_after(age))
    }

    /// [`Self::fn_by_importance`], its backward pass ([`Self::fn_work`]) paid from the
    /// work allowance in force ([`crate::budget`]) on behalf of `what`.
    ///
    /// # Errors
    /// [`ModelError::WorkLimit`] when the pass needs more than is left.
    pub fn fn_by_importance_paid(
        &self,
        age: u64,
        what: &'static str,
    ) -> Result<Vec<f64>, ModelError> {
        Ok(self.fn_by_importance_from(&self.chain.zero_after_paid(age, what)?))
    }

    /// A lower bound on [`Self::fn_by_importance`] in `O(Max·levels + |support|·states)`,
    /// from [`CellChain::zero_after_lower`] (an item's cell is zero `age` insertions on
    /// at least when nothing set it and it was decremented to zero); `None` where that
    /// bound does not apply. The optimizer skips the FN pass of a design this bound
    /// already makes dearer than the best found.
    pub fn fn_lower_bound(&self, age: u64) -> Option<Vec<f64>> {
        Some(self.fn_by_importance_from(&self.chain.zero_after_lower(age)?))
    }

    /// A tighter lower bound on [`Self::fn_by_importance`] than [`Self::fn_lower_bound`],
    /// at a fifth to three quarters of the FN pass's time: per state the larger of that
    /// bound and the zero probability of a cell whose counter is rounded up, after each
    /// set, to levels 1.5 times apart past 8 (by a coupling: its value never falls below
    /// the exact cell's, where the decrement probability does not rise with the counter);
    /// `None` where neither applies. The optimizer asks for it only where the first bound
    /// does not skip the pass (issue 18: at `--bits 20000 --member-share 0.2 --cost-fp 5`
    /// IBF3 made 463 of its 576 passes with the first bound alone, 16 with both).
    pub fn fn_coarse_lower_bound(&self, age: u64) -> Option<Vec<f64>> {
        let no_sets = self.chain.zero_after_lower(age);
        let coarse = self.chain.zero_after_coarse_lower(age, COARSE_RATIO);
        let zero = match (no_sets, coarse) {
            (Some(x), Some(y)) => x.iter().zip(&y).map(|(a, b)| a.max(*b)).collect(),
            (x, y) => x.or(y)?,
        };
        Some(self.fn_by_importance_from(&zero))
    }

    /// [`Self::fn_by_importance`] given `back = T^age·e_0`.
    fn fn_by_importance_from(&self, back: &[f64]) -> Vec<f64> {
        let y = self.chain.after_deletion(&self.pi);
        self.params
            .importance()
            .iter()
            .map(|(imp, _)| {
                let value = self.params.insert_value(imp);
                let z = self.chain.after_set_dot(&y, value, imp, back);
                fn_from_zero(z.min(1.0), self.params.k())
            })
            .collect()
    }

    /// `x_i·T^a·e_0` (the probability that one of an item's cells is zero `a` insertions
    /// after its insertion) for each importance `i` of the support, at each of the
    /// increasing ages `ages`: one backward pass up to the largest age.
    pub(crate) fn zero_by_importance_at(&self, ages: &[u64]) -> Vec<Vec<f64>> {
        let starts = self.start_vectors();
        let mut plan = self.chain.backward_plan();
        let mut b = vec![0.0; self.chain.states()];
        let mut next = b.clone();
        b[0] = 1.0;
        let mut at = 0u64;
        ages.iter()
            .map(|&a| {
                while at < a {
                    plan.apply(&b, &mut next);
                    std::mem::swap(&mut b, &mut next);
                    at += 1;
                }
                let zeros: Vec<f64> = starts
                    .unique
                    .iter()
                    .map(|x| x.iter().zip(&b).map(|(p, q)| p * q).sum::<f64>().min(1.0))
                    .collect();
                starts.of.iter().map(|&j| zeros[j]).collect()
            })
            .collect()
    }

    /// The importance-weighted FN (Eq. (6) [SBF] per unit of queried importance) for the
    /// zero-probability vector `b = T^a·e_0` of one age `a`.
    fn weighted_fn_of(&self, starts: &Starts, b: &[f64]) -> f64 {
        let zeros: Vec<f64> = starts
            .unique
            .iter()
            .map(|x| x.iter().zip(b).map(|(p, q)| p * q).sum())
            .collect();
        self.weighted_fn_from(starts, &zeros)
    }

    /// The importance-weighted FN from `z_j`, the probability that one of an item's cells
    /// is zero, for each of the distinct start vectors `j` of `starts`.
    fn weighted_fn_from(&self, starts: &Starts, zeros: &[f64]) -> f64 {
        let k = self.params.k();
        let fns: Vec<f64> = zeros.iter().map(|&z| fn_from_zero(z.min(1.0), k)).collect();
        let dist = &self.params.importance();
        let num: f64 = dist
            .iter()
            .zip(&starts.of)
            .map(|((i, w), &j)| w * f64::from(i) * fns[j])
            .sum();
        probability(num / dist.mean())
    }

    /// The distribution of an item's cell right after its insertion, for each importance
    /// of the support, equal ones kept once ([`Starts`]).
    fn start_vectors(&self) -> Starts {
        let y = self.chain.after_deletion(&self.pi);
        let mut starts = Starts {
            unique: Vec::new(),
            of: Vec::new(),
        };
        for (imp, _) in self.params.importance().iter() {
            let x = self.chain.after_set(&y, self.params.insert_value(imp), imp);
            let same = |u: &Vec<f64>| u.iter().zip(&x).all(|(a, b)| a.to_bits() == b.to_bits());
            let j = match starts.unique.iter().rposition(same) {
                Some(j) => j,
                None => {
                    starts.unique.push(x);
                    starts.unique.len() - 1
                }
            };
            starts.of.push(j);
        }
        starts
    }

    /// The importance-weighted FN (Eq. (6) [SBF] per unit of queried importance) of an
    /// item `age` insertions after its insertion: [`weighted`]'s `weighted_fn` of
    /// [`Self::fn_by_importance`], from one `T^age·e_0` ([`CellChain::zero_after`], the
    /// cheapest of its paths). By monotonicity (see [`Self::weighted_fn_age`]) it is at
    /// least `rate` exactly when `weighted_fn_age(rate)` is at most `age`, at the cost of
    /// one age instead of a search.
    pub fn weighted_fn(&self, age: u64) -> f64 {
        self.weighted_fn_of(&self.start_vectors(), &self.chain.zero_after(age))
    }

    /// The smallest age at which the importance-weighted FN (Eq. (6) [SBF] per unit of
    /// queried importance) reaches `rate`, or `None` if its limit stays below `rate`.
    ///
    /// Binary lifting over `T^(2^j)·e_0` on the dense chain (rows renormalised after each
    /// squaring): `O(states³·log age)`, for ages far beyond a step-by-step pass. Assumes
    /// the weighted FN does not fall with age (true for every policy's chain: a cell only
    /// drifts towards the stationary law).
    ///
    /// Chains that track a counter (16 states or more) take the uniformized series instead
    /// where it is shorter ([`Self::weighted_fn_age_uniformized`]).
    pub fn weighted_fn_age(&self, rate: f64) -> Option<u64> {
        if self.chain.cap > 0 {
            if let Some(age) = self.weighted_fn_age_uniformized(rate) {
                return Some(age);
            }
        }
        self.weighted_fn_age_dense(rate)
    }

    /// Largest number of uniformized terms [`Self::weighted_fn_age_uniformized`] computes
    /// before it leaves the search to binary lifting.
    const UNIFORMIZED_TERMS: usize = 4096;

    /// [`Self::weighted_fn_age`] by the uniformized series: `None` when the chain is left
    /// with probability 1/2 or more per insertion, or the age needs more than
    /// [`Self::UNIFORMIZED_TERMS`] terms (also when the rate is never reached).
    ///
    /// # Formula
    /// With `q` and `S` of [`CellChain::zero_after`]'s uniformization,
    /// `x_i·T^n·e_0 = Σ_j Bin(j; n, q)·y_ij`, `y_ij = x_i·S^j·e_0`: the `y_ij` are computed
    /// once, one backward step per term, and the age is galloped (`1, 2, 4, …`) and bisected
    /// over `n` at `O(terms·|support|)` per age, against `O(states³)` per squaring of the
    /// dense chain (46 states at `Max = 3` with a 4-bit counter).
    /// Each `y_ij` is clamped to `[0, 1]` and the series is cut where the binomial tail
    /// falls below [`super::chain::UNIFORMIZATION_TAIL`].
    fn weighted_fn_age_uniformized(&self, rate: f64) -> Option<u64> {
        let q = self.chain.max_exit();
        if !(q > 0.0 && q < 0.5) {
            return None;
        }
        let starts = self.start_vectors();
        let mut steps = self.chain.uniformized_steps(q);
        let mut ys: Vec<Vec<f64>> = Vec::new();
        let mut z = vec![0.0; starts.unique.len()];
        let mut reaches = |n: u64| -> Option<bool> {
            let b = binomial_terms(
                n,
                q,
                super::chain::UNIFORMIZATION_TAIL,
                Self::UNIFORMIZED_TERMS,
            )?;
            while ys.len() < b.len() {
                let v = steps.next_power();
                ys.push(
                    starts
                        .unique
                        .iter()
                        .map(|x| x.iter().zip(v).map(|(a, b)| a * b).sum())
                        .collect(),
                );
            }
            z.fill(0.0);
            for (w, y) in b.iter().zip(&ys) {
                for (zi, yi) in z.iter_mut().zip(y) {
                    *zi += w * yi;
                }
            }
            Some(self.weighted_fn_from(&starts, &z) >= rate)
        };
        // The weighted FN is below the rate at `lo` (age 0: a fresh item's cells are set)
        // and reaches it at `hi`.
        let (mut lo, mut hi) = (0u64, 1u64);
        while !reaches(hi)? {
            lo = hi;
            hi = hi.checked_mul(2)?;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if reaches(mid)? {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    /// [`Self::weighted_fn_age`] by binary lifting on the dense chain.
    fn weighted_fn_age_dense(&self, rate: f64) -> Option<u64> {
        let starts = self.start_vectors();
        let n = self.chain.states();
        let mut e0 = nalgebra::DVector::zeros(n);
        e0[0] = 1.0;
        let wfn = |b: &nalgebra::DVector<f64>| self.weighted_fn_of(&starts, b.as_slice());
        let mut powers = vec![self.chain.dense()];
        loop {
            let last = powers.last().expect("non-empty");
            if wfn(&(last * &e0)) >= rate {
                break;
            }
            if powers.len() >= 63 {
                return None;
            }
            let mut sq = last * last;
            super::sbf::renormalise_rows(&mut sq);
            powers.push(sq);
        }
        let mut cur = e0;
        let mut age = 0u64;
        for (j, pw) in powers.iter().enumerate().rev() {
            let cand = pw * &cur;
            if wfn(&cand) < rate {
                cur = cand;
                age += 1u64 << j;
            }
        }
        Some(age + 1)
    }

    /// Work units of [`Self::fn_by_importance`] at `age` (about 10^9 per second).
    pub fn fn_work(&self, age: u64) -> u64 {
        self.chain.zero_after_work(age)
    }

    /// Largest [`Self::fn_work`] that [`Self::metrics`] accepts (a few seconds).
    pub const FN_WORK_LIMIT: u64 = 4_000_000_000;

    /// All metrics at query age `age`, with a query mix whose fraction `member_share` are
    /// queries of members (the rest non-members).
    ///
    /// # Errors
    /// `member_share` outside `[0, 1]`; an `age` whose FN pass would take more than a few
    /// seconds ([`Self::FN_WORK_LIMIT`]); the SBF reference (for the crossover) fails to
    /// solve.
    pub fn metrics(&self, age: u64, member_share: f64) -> Result<IbfMetrics, ModelError> {
        check::probability("member_share", member_share)?;
        if self.fn_work(age) > Self::FN_WORK_LIMIT {
            return Err(ModelError::invalid(
                "age",
                age,
                format!(
                    "an age whose FN pass over {} chain states takes a few seconds at most (age × states ≲ {:e})",
                    self.chain.states(),
                    Self::FN_WORK_LIMIT as f64
                ),
            ));
        }
        crate::budget::check(
            self.fn_work(age) as f64,
            "the IBF false-negative pass (age × states)",
        )?;
        let fp = self.fp();
        let fns = self.fn_by_importance(age);
        let dist = &self.params.importance();
        let w = weighted(dist, fp, &fns, member_share);
        let crossover = if self.params.policy() == Policy::Sbf {
            None
        } else {
            let sbf = solve(&self.params.with_policy(Policy::Sbf))?.fn_by_importance(age);
            crossover(dist, &fns, &sbf)
        };
        Ok(IbfMetrics {
            zero_fraction: self.zero_fraction(),
            zero_cells: self.zero_fraction() * self.params.m() as f64,
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

/// Expected fraction of zero cells after `t` insertions into an empty filter, for
/// `t = 0..=n`: the cell chain run forward from the zero state.
///
/// # Formula
/// ```text
/// x_0 = e_0,   x_{t+1} = x_t · T(x_t),   z_t = x_t[0]
/// ```
/// Random deletion: `T` is fixed, and `z_t` is exact (for the SBF it equals
/// [`super::SbfParams::zero_fraction_after`]). Global policies: the decrement law is
/// recomputed from `x_t` at every step with the same mean-field rules as the stable point
/// (`min(1, P·w/(m·W̄_t))` with `W̄_t` the current mean weight, `d = 0` while the filter is
/// empty; the MinImp rank map of `x_t`), a time-stepped mean field.
///
/// # Errors
/// `n` above [`TRANSIENT_WORK`]` / states` (the run would take more than a few seconds).
pub fn zero_fraction_transient(params: &IbfParams, n: u64) -> Result<Vec<f64>, ModelError> {
    let (m, p) = (params.m() as f64, params.p() as f64);
    let mut chain = params.chain(|_, _| p / m);
    let states = chain.states() as u64;
    check::in_range("arrivals", n, 0..=TRANSIENT_WORK / states)?;
    let kind = params.policy().delete();
    let weights: Vec<f64> = (0..chain.states())
        .map(|s| {
            let (v, c) = chain.decode(s);
            match (v, kind) {
                (0, _) => 0.0,
                (_, Delete::ProbValue) => 1.0 / f64::from(v),
                (_, Delete::ProbCumulative) => 1.0 / f64::from(c),
                _ => 0.0,
            }
        })
        .collect();
    let mut x = vec![0.0; chain.states()];
    x[0] = 1.0;
    let mut out = Vec::with_capacity(n as usize + 1);
    out.push(1.0);
    for _ in 0..n {
        match kind {
            Delete::Random => {}
            Delete::ProbCumulative | Delete::ProbValue => {
                let wbar: f64 = x.iter().zip(&weights).map(|(a, b)| a * b).sum();
                for (d, w) in chain.dec.iter_mut().zip(&weights) {
                    *d = if wbar > 0.0 {
                        (p * w / (m * wbar)).min(1.0)
                    } else {
                        0.0
                    };
                }
            }
            Delete::MinImp => {
                let d = super::minimp::rank_of(params, &chain, &x);
                super::minimp::set_level_dec(&mut chain, &d);
            }
        }
        x = chain.forward(&x);
        out.push(probability(x[0]));
    }
    Ok(out)
}

/// Largest `insertions × chain states` a transient run accepts (about a second).
pub const TRANSIENT_WORK: u64 = 400_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// The uniformized age search finds the age of binary lifting on the dense chain.
    #[test]
    fn uniformized_fn_age_equals_binary_lifting() {
        let dist = ImportanceDist::linear(1, 50).unwrap();
        let mut compared = 0;
        for policy in [Policy::Ibf3, Policy::Ibf5] {
            for (m, k, max, p) in [(16_384, 4, 3, 20), (16_384, 8, 1, 9), (2000, 2, 3, 5)] {
                let params = IbfParams::new(policy, m, k, max, p, dist.clone())
                    .unwrap()
                    .with_counter_bits(4)
                    .unwrap();
                let s = solve(&params).unwrap();
                for rate in [0.01, 0.1, 0.5] {
                    let dense = s.weighted_fn_age_dense(rate);
                    let fast = s.weighted_fn_age_uniformized(rate);
                    if fast.is_some() {
                        compared += 1;
                        assert_eq!(fast, dense, "{policy} {m} {k} {max} {p} {rate}");
                    }
                    assert_eq!(s.weighted_fn_age(rate), dense);
                }
            }
        }
        // The other cases leave the search to binary lifting (a chain left with
        // probability 1/2 or more per insertion, or too many terms): 6 of these 18 take
        // the series.
        assert!(compared >= 6, "{compared}");
    }
}
