//! The importance-weighted optimizer, the "knob" of Section 7 [SBF]: choose the policy,
//! `Max`, `P` and `K` that minimise the expected cost of errors for a memory budget.

use super::ibf::{solve, solve_screen, IbfMetrics, IbfSolution};
use super::importance::ImportanceDist;
use super::params::IbfParams;
use super::policy::Delete;
use super::policy::Policy;
use crate::error::{check, ModelError};
use serde::Serialize;
use std::fmt;

/// A cost per error as a function of the queried item's importance `i`:
/// `base + per_importance·i` (serialized as `"A+B*imp"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// Cost independent of importance.
    pub base: f64,
    /// Cost per unit of importance.
    pub per_importance: f64,
}

impl Cost {
    /// Parses `A` (constant), `A*imp` (proportional) or `A+B*imp`.
    ///
    /// # Errors
    /// A malformed or negative cost (named `name`).
    pub fn parse(name: &'static str, s: &str) -> Result<Self, ModelError> {
        let bad = || ModelError::invalid(name, s, "A, A*imp or A+B*imp with A, B >= 0");
        let num = |t: &str| -> Result<f64, ModelError> {
            let v = t.trim().parse::<f64>().map_err(|_| bad())?;
            if v >= 0.0 && v.is_finite() {
                Ok(v)
            } else {
                Err(bad())
            }
        };
        let term = |t: &str| -> Result<(f64, f64), ModelError> {
            match t.trim().strip_suffix("*imp") {
                Some(coef) => Ok((0.0, num(coef)?)),
                None => Ok((num(t)?, 0.0)),
            }
        };
        let mut cost = Cost {
            base: 0.0,
            per_importance: 0.0,
        };
        for t in s.split('+') {
            let (b, p) = term(t)?;
            cost.base += b;
            cost.per_importance += p;
        }
        Ok(cost)
    }

    /// The cost at importance `i`.
    pub fn at(&self, i: u32) -> f64 {
        self.base + self.per_importance * f64::from(i)
    }
}

impl Serialize for Cost {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}*imp", self.base, self.per_importance)
    }
}

/// What the optimizer minimises, and under which budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbfRequirement {
    /// Memory budget in bits (cells and counters).
    pub bits: u64,
    /// Importance law of queried items.
    #[serde(skip)]
    pub importance: ImportanceDist,
    /// Cost of a false positive.
    pub cost_fp: Cost,
    /// Cost of a false negative.
    pub cost_fn: Cost,
    /// Age of member queries (insertions since their insertion).
    pub age: u64,
    /// Share of member queries.
    pub member_share: f64,
    /// Policies to consider.
    #[serde(skip)]
    pub policies: Vec<Policy>,
}

impl IbfRequirement {
    /// Cell maxima considered: full use of 1 to 4 value bits.
    pub const MAX_GRID: [u32; 4] = [1, 3, 7, 15];
    /// Hash counts considered.
    pub const K_GRID: RangeK = 1..=8;
    /// Decrement counts considered (roughly geometric, ratio √2).
    pub const P_GRID: [u64; 18] = [
        1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512,
    ];

    /// Checks the requirement.
    ///
    /// # Errors
    /// `bits` below 64, `member_share` outside `[0, 1]`, no policy.
    pub fn validate(&self) -> Result<(), ModelError> {
        check::in_range("bits", self.bits, 64..=(1 << 40))?;
        check::probability("member_share", self.member_share)?;
        if self.policies.is_empty() {
            return Err(ModelError::invalid("policy", "none", "at least one policy"));
        }
        Ok(())
    }

    /// Expected cost per query of a solved design.
    pub fn cost(&self, metrics: &IbfMetrics) -> f64 {
        self.cost_of(metrics.fp, &metrics.fn_by_importance)
    }

    /// `Σ_i w_i·(r·cost_fn(i)·FN_i + (1 − r)·cost_fp(i)·FP)`.
    pub fn cost_of(&self, fp: f64, fns: &[f64]) -> f64 {
        let r = self.member_share;
        self.importance
            .iter()
            .zip(fns)
            .map(|((i, w), f)| {
                w * (r * self.cost_fn.at(i) * f + (1.0 - r) * self.cost_fp.at(i) * fp)
            })
            .sum()
    }

    /// A lower bound on the cost of `sol` when [`Self::fn_cost_is_nonnegative`], without its
    /// FN pass: [`Self::cost_of`] at [`IbfSolution::fn_lower_bound`] (or at no false
    /// negatives where that does not apply), less `10⁻⁹` relative for rounding; `−∞` where
    /// that is not a number (so the pass is always made).
    fn cost_bound(&self, sol: &IbfSolution) -> f64 {
        self.cost_bound_at(sol, sol.fn_lower_bound(self.age))
    }

    /// [`Self::cost_bound`] at the tighter [`IbfSolution::fn_coarse_lower_bound`] (a fifth
    /// to three quarters of an FN pass).
    fn coarse_cost_bound(&self, sol: &IbfSolution) -> f64 {
        self.cost_bound_at(sol, sol.fn_coarse_lower_bound(self.age))
    }

    /// [`Self::cost_of`] at the FN lower bound `fns` (no false negatives if `None`), less
    /// `10⁻⁹` relative; `−∞` where that is not a number.
    fn cost_bound_at(&self, sol: &IbfSolution, fns: Option<Vec<f64>>) -> f64 {
        let fns = fns.unwrap_or_else(|| vec![0.0; self.importance.iter().count()]);
        let bound = self.cost_of(sol.fp(), &fns) * (1.0 - 1e-9);
        if bound.is_nan() {
            f64::NEG_INFINITY
        } else {
            bound
        }
    }

    /// Whether every importance's FN cost is at least 0 (always, for a parsed [`Cost`]).
    pub fn fn_cost_is_nonnegative(&self) -> bool {
        self.importance
            .iter()
            .all(|(i, _)| self.cost_fn.at(i) >= 0.0)
    }
}

/// Inclusive range of hash counts.
pub type RangeK = std::ops::RangeInclusive<u32>;

/// The chosen design.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbfDesign {
    /// Chosen parameters (`m` fills the budget for the policy's bits per cell).
    pub params: IbfParams,
    /// Their metrics.
    pub metrics: IbfMetrics,
    /// Expected cost per query.
    pub cost: f64,
    /// Designs evaluated.
    pub evaluated: u64,
}

/// Minimises the expected cost per query over the policies, `Max ∈ {1, 3, 7, 15}`,
/// `K ∈ 1..=8` and `P` on [`IbfRequirement::P_GRID`] (`P < m`), with `m` the most cells
/// the budget holds at the policy's bits per cell. Exhaustive over the grid, in parallel
/// (rayon; the result does not depend on the thread count: ties go to the first design
/// in grid order); designs whose mean-field solve fails are skipped.
///
/// MinImp designs (IBF2, IBF4) are screened: ranked by the threshold limit (microseconds;
/// the rank map takes up to half a second at the `m` of small budgets), then the
/// [`SCREEN_KEEP`] best of each policy are re-solved by the exact model and compete with
/// the others on their exact cost. A MinImp design ranked below the eighth by the limit
/// is not considered; the limit's zero fraction is within 3% of the rank map's at
/// m = 512 and 0.4% at 2^14.
///
/// # Errors
/// Invalid requirement; [`ModelError::Infeasible`] when the budget holds no valid filter.
pub fn design(req: &IbfRequirement) -> Result<IbfDesign, ModelError> {
    design_observed(req, || {})
}

/// MinImp designs per policy re-solved exactly after screening by the threshold limit.
pub const SCREEN_KEEP: usize = 8;

/// The number of grid points [`design`] evaluates (for a progress bar).
pub fn grid_size(req: &IbfRequirement) -> u64 {
    (req.policies.len()
        * IbfRequirement::MAX_GRID.len()
        * IbfRequirement::K_GRID.count()
        * IbfRequirement::P_GRID.len()) as u64
}

/// [`design`], calling `step()` after each of the [`grid_size`] grid points, from any
/// thread, so that a caller can show progress: policies with a cumulative-importance
/// counter solve chains of thousands of states, and the whole grid takes seconds.
///
/// # Errors
/// As [`design`].
pub fn design_observed(
    req: &IbfRequirement,
    step: impl Fn() + Sync,
) -> Result<IbfDesign, ModelError> {
    use rayon::prelude::*;
    req.validate()?;
    let mut grid = Vec::new();
    for &policy in &req.policies {
        for max in IbfRequirement::MAX_GRID {
            let probe = IbfParams::new(policy, 2, 1, max, 1, req.importance.clone())?;
            let m = req.bits / u64::from(probe.bits_per_cell());
            for k in IbfRequirement::K_GRID {
                for p in IbfRequirement::P_GRID {
                    grid.push((policy, m, k, max, p));
                }
            }
        }
    }
    // Exact costs for every policy but MinImp, whose designs are ranked by the threshold
    // limit (screened) and the best [`SCREEN_KEEP`] per policy re-solved exactly.
    // An infeasible grid point is skipped; a work limit ends the search.
    let fn_pass = |sol: &IbfSolution| -> Result<Vec<f64>, ModelError> {
        sol.fn_by_importance_paid(
            req.age,
            "the IBF optimizer's false-negative pass (age × states)",
        )
    };
    let exact_cost = |params: &IbfParams| -> Result<Option<(f64, IbfSolution)>, ModelError> {
        let Some(sol) = feasible(solve(params))? else {
            return Ok(None);
        };
        Ok(Some((req.cost_of(sol.fp(), &fn_pass(&sol)?), sol)))
    };
    // First every grid point's stable point (a MinImp one by the threshold limit) and a
    // lower bound on its cost, then the FN passes in the order of those bounds
    // (`bound_order`): of the exact designs until none can be the cheapest, of each MinImp
    // policy's screened ones until none can be among its best [`SCREEN_KEEP`].
    let solved: Vec<Option<Solved>> = grid
        .into_par_iter()
        .map(|(policy, m, k, max, p)| {
            let screen = policy.delete() == Delete::MinImp;
            let sol = match IbfParams::new(policy, m, k, max, p, req.importance.clone()) {
                Ok(params) if screen => feasible(solve_screen(&params))?,
                Ok(params) => feasible(solve(&params))?,
                Err(_) => None,
            };
            Ok(match sol {
                Some(sol) => Some(Solved {
                    bound: req.cost_bound(&sol),
                    sol,
                    screen,
                }),
                None => {
                    step();
                    None
                }
            })
        })
        .collect::<Result<_, ModelError>>()?;
    let evaluated = solved.iter().flatten().count() as u64;
    let bounded = req.fn_cost_is_nonnegative();
    let pass_cost = |sol: &IbfSolution| Ok(req.cost_of(sol.fp(), &fn_pass(sol)?));
    // The bounds hold when the FN cost is never negative; the tighter one refines them.
    let refine = |sol: &IbfSolution| req.coarse_cost_bound(sol);
    let refine = bounded.then_some(&refine);
    let of = |screened: bool, policy: Option<Policy>| -> Vec<usize> {
        (0..solved.len())
            .filter(|&j| {
                solved[j].as_ref().is_some_and(|s| {
                    s.screen == screened && policy.is_none_or(|p| s.sol.params().policy() == p)
                })
            })
            .collect()
    };
    let mut costs = vec![None; solved.len()];
    bound_order(
        &solved,
        &of(false, None),
        1,
        &step,
        pass_cost,
        refine,
        &mut costs,
    )?;
    for &policy in &req.policies {
        if policy.delete() == Delete::MinImp {
            let points = of(true, Some(policy));
            bound_order(
                &solved,
                &points,
                SCREEN_KEEP,
                &step,
                pass_cost,
                refine,
                &mut costs,
            )?;
        }
    }
    // The exact designs keep their solutions (the winner's metrics come from it).
    let mut exact: Vec<(f64, IbfSolution)> = Vec::new();
    let mut screened: Vec<(f64, IbfParams)> = Vec::new();
    for (point, cost) in solved.into_iter().zip(costs) {
        if let (Some(s), Some(c)) = (point, cost) {
            if s.screen {
                screened.push((c, s.sol.params().clone()));
            } else {
                exact.push((c, s.sol));
            }
        }
    }
    // Stable sort: equal screened costs keep grid order.
    screened.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut kept: Vec<IbfParams> = Vec::new();
    for policy in &req.policies {
        kept.extend(
            screened
                .iter()
                .filter(|(_, p)| p.policy() == *policy)
                .take(SCREEN_KEEP)
                .map(|(_, p)| p.clone()),
        );
    }
    let resolved: Vec<Option<(f64, IbfSolution)>> = kept
        .into_par_iter()
        .map(|params| exact_cost(&params))
        .collect::<Result<_, ModelError>>()?;
    exact.extend(resolved.into_iter().flatten());
    let best = exact
        .into_iter()
        .reduce(|best, c| if c.0 < best.0 { c } else { best });
    let Some((cost, sol)) = best else {
        return Err(ModelError::infeasible(
            format!("a filter within {} bits", req.bits),
            "no valid (policy, Max, K, P) on the grid fits",
        ));
    };
    let metrics = sol.metrics(req.age, req.member_share)?;
    let params = sol.params().clone();
    Ok(IbfDesign {
        params,
        metrics,
        cost,
        evaluated,
    })
}

/// A grid point with a stable point (`None` in its place: invalid, or without one).
struct Solved {
    /// A lower bound on its cost ([`IbfRequirement::cost_bound`]).
    bound: f64,
    /// Its solution, whose FN pass is still to make.
    sol: IbfSolution,
    /// A MinImp design solved by the threshold limit (ranked, then re-solved exactly).
    screen: bool,
}

/// Designs whose FN passes are made at once, in order of their lower bound.
const BOUND_BATCH: usize = 8;

/// Writes to `costs[j]` the cost, by `cost` (its FN pass), of each point `j` of `points`
/// that can be among the `keep` cheapest of them; the others are left `None`.
///
/// The points are taken in order of their lower bound, [`BOUND_BATCH`] at a time on the
/// rayon pool. When the FN cost is never negative the bounds hold (`refine` is given),
/// so once a point's bound exceeds the `keep`-th cheapest cost found, so do the costs of
/// all after it and none of them is among the `keep` cheapest nor ties the last of them:
/// their FN passes, most of the time of a design (issue 18: 8 of 576 made for IBF3 at
/// 10⁵ bits), are not made. Ties with the bound are made, so the cheapest in grid order
/// are the same as with every pass made. Calls `step()` once per point, made or not.
///
/// After the first batch, the points its costs do not already rule out get the tighter
/// bound `refine` (a fraction of a pass each) and are re-ordered by it: the first bound is
/// weak where the best designs have many false negatives (issue 18: at `--bits 20000
/// --member-share 0.2 --cost-fp 5`, IBF3 made 463 passes with it alone, 16 with both;
/// refining only the point about to be passed, without re-ordering, made 82).
fn bound_order(
    solved: &[Option<Solved>],
    points: &[usize],
    keep: usize,
    step: &(impl Fn() + Sync),
    cost: impl Fn(&IbfSolution) -> Result<f64, ModelError> + Sync,
    refine: Option<&(impl Fn(&IbfSolution) -> f64 + Sync)>,
    costs: &mut [Option<f64>],
) -> Result<(), ModelError> {
    use rayon::prelude::*;
    let bound_of = |j: usize| solved[j].as_ref().map_or(f64::INFINITY, |s| s.bound);
    let mut order: Vec<(usize, f64)> = points.iter().map(|&j| (j, bound_of(j))).collect();
    // Stable: equal bounds keep grid order.
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    // The `keep` cheapest costs found, ascending.
    let mut cheapest: Vec<f64> = Vec::with_capacity(keep + 1);
    let limit_of = |cheapest: &[f64]| {
        if cheapest.len() == keep {
            cheapest[keep - 1]
        } else {
            f64::INFINITY
        }
    };
    let mut at = 0;
    while at < order.len() {
        let limit = limit_of(&cheapest);
        if refine.is_some() && order[at].1 > limit {
            break;
        }
        let batch = &order[at..(at + BOUND_BATCH).min(order.len())];
        let found: Vec<Option<(usize, f64)>> = batch
            .par_iter()
            .map(|&(j, bound)| {
                let made = match &solved[j] {
                    Some(s) if refine.is_none() || bound <= limit => Some((j, cost(&s.sol)?)),
                    _ => None,
                };
                step();
                Ok(made)
            })
            .collect::<Result<_, ModelError>>()?;
        let first = at == 0;
        at += batch.len();
        for (j, c) in found.into_iter().flatten() {
            costs[j] = Some(c);
            let rank = cheapest.partition_point(|&x| x <= c);
            cheapest.insert(rank, c);
            cheapest.truncate(keep);
        }
        if let Some(refine) = refine.filter(|_| first) {
            let limit = limit_of(&cheapest);
            let rest = &mut order[at..];
            rest.par_iter_mut().for_each(|(j, bound)| {
                if *bound <= limit {
                    if let Some(s) = &solved[*j] {
                        *bound = bound.max(refine(&s.sol));
                    }
                }
            });
            rest.sort_by(|a, b| a.1.total_cmp(&b.1));
        }
    }
    (at..order.len()).for_each(|_| step());
    Ok(())
}

/// A grid point's solution, `None` if it has none (skipped by the search); a work limit
/// ([`crate::budget`]) is passed on, so a bounded search fails rather than pick among
/// fewer designs.
fn feasible<T>(r: Result<T, ModelError>) -> Result<Option<T>, ModelError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e @ ModelError::WorkLimit { .. }) => Err(e),
        Err(_) => Ok(None),
    }
}
