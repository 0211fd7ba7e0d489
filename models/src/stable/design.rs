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
    let solved_at = |params: IbfParams, screen: bool| -> Result<Option<Solved>, ModelError> {
        let sol = if screen {
            feasible(solve_screen(&params))?
        } else {
            feasible(solve(&params))?
        };
        Ok(sol.map(|sol| Solved {
            bound: req.cost_bound(&sol),
            sol,
            screen,
        }))
    };
    // First every grid point's stable point (a MinImp one by the threshold limit) and a
    // lower bound on its cost; then the FN passes in the order of those bounds
    // (`bound_order`): of each MinImp policy's screened designs until none can be among
    // its best [`SCREEN_KEEP`], and, with those re-solved exactly, of all exact designs
    // until none can be the cheapest.
    let mut solved: Vec<Option<Solved>> = grid
        .into_par_iter()
        .map(|(policy, m, k, max, p)| {
            let screen = policy.delete() == Delete::MinImp;
            let point = match IbfParams::new(policy, m, k, max, p, req.importance.clone()) {
                Ok(params) => solved_at(params, screen)?,
                Err(_) => None,
            };
            if point.is_none() {
                step();
            }
            Ok(point)
        })
        .collect::<Result<_, ModelError>>()?;
    let evaluated = solved.iter().flatten().count() as u64;
    let grid_points = solved.len();
    let bounded = req.fn_cost_is_nonnegative();
    let pass_cost = |sol: &IbfSolution| Ok(req.cost_of(sol.fp(), &fn_pass(sol)?));
    // The bounds hold when the FN cost is never negative; the tighter one refines them.
    let refine = |sol: &IbfSolution| req.coarse_cost_bound(sol);
    let refine = bounded.then_some(&refine);
    let of = |solved: &[Option<Solved>], screened: bool, policy: Option<Policy>| {
        (0..solved.len())
            .filter(|&j| {
                solved[j].as_ref().is_some_and(|s| {
                    s.screen == screened && policy.is_none_or(|p| s.sol.params().policy() == p)
                })
            })
            .collect::<Vec<usize>>()
    };
    // One progress step per grid point: the re-solved designs come after the grid.
    let grid_step = |j: usize| {
        if j < grid_points {
            step();
        }
    };
    let mut costs = vec![None; solved.len()];
    let mut kept: Vec<IbfParams> = Vec::new();
    for &policy in &req.policies {
        if policy.delete() == Delete::MinImp {
            let points = of(&solved, true, Some(policy));
            bound_order(
                &solved,
                &points,
                SCREEN_KEEP,
                &grid_step,
                pass_cost,
                refine,
                &mut costs,
            )?;
            // Stable sort: equal screened costs keep grid order.
            let mut screened: Vec<(f64, usize)> = points
                .iter()
                .filter_map(|&j| costs[j].map(|c| (c, j)))
                .collect();
            screened.sort_by(|a, b| a.0.total_cmp(&b.0));
            kept.extend(
                screened
                    .iter()
                    .take(SCREEN_KEEP)
                    .filter_map(|&(_, j)| solved[j].as_ref().map(|s| s.sol.params().clone())),
            );
        }
    }
    // The re-solved MinImp designs join the exact ones after the grid, so that ties still
    // go to the grid's exact designs first.
    let resolved: Vec<Option<Solved>> = kept
        .into_par_iter()
        .map(|params| solved_at(params, false))
        .collect::<Result<_, ModelError>>()?;
    solved.extend(resolved);
    costs.resize(solved.len(), None);
    bound_order(
        &solved,
        &of(&solved, false, None),
        1,
        &grid_step,
        pass_cost,
        refine,
        &mut costs,
    )?;
    // The winner keeps its solution (its metrics come from it).
    let best = solved
        .into_iter()
        .zip(costs)
        .filter_map(|(point, cost)| match (point, cost) {
            (Some(s), Some(c)) if !s.screen => Some((c, s.sol)),
            _ => None,
        })
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
/// The points are taken best first by their lower bound, [`BOUND_BATCH`] at a time on the
/// rayon pool. When the FN cost is never negative the bounds hold (`refine` is given),
/// so once the least bound left exceeds the `keep`-th cheapest cost found, so do the
/// costs of all points left and none of them is among the `keep` cheapest nor ties the
/// last of them: their FN passes, most of the time of a design (issue 18: 8 of 576 made
/// for IBF3 at 10⁵ bits), are not made. Ties with the bound are made, so the cheapest in
/// grid order are the same as with every pass made. Calls `step(j)` once per point `j`,
/// made or not.
///
/// Once `keep` costs are known, a point taken with only its first bound gets the tighter
/// bound `refine` (a fraction of a pass) and goes back among the others at it; it is
/// passed when taken again. The first bound is weak where the best designs have many
/// false negatives (issue 18: at `--bits 20000 --member-share 0.2 --cost-fp 5`, IBF3 made
/// 463 passes with it alone). Refining lazily, only the points that reach the front, is
/// what keeps it cheap where many policies compete: refining every point the first
/// batch did not rule out cost 1.4 s of CPU on the 1,152 IBF3 and IBF5 designs of
/// `optimize ibf --bits 1e5` with every policy, whose winner (an SBF) rules out nearly
/// all of them at once.
fn bound_order(
    solved: &[Option<Solved>],
    points: &[usize],
    keep: usize,
    step: &(impl Fn(usize) + Sync),
    cost: impl Fn(&IbfSolution) -> Result<f64, ModelError> + Sync,
    refine: Option<&(impl Fn(&IbfSolution) -> f64 + Sync)>,
    costs: &mut [Option<f64>],
) -> Result<(), ModelError> {
    use rayon::prelude::*;
    use std::collections::BinaryHeap;
    let mut front: BinaryHeap<Pending> = points
        .iter()
        .map(|&j| Pending {
            bound: solved[j].as_ref().map_or(f64::INFINITY, |s| s.bound),
            j,
            refined: refine.is_none(),
        })
        .collect();
    // The `keep` cheapest costs found, ascending.
    let mut cheapest: Vec<f64> = Vec::with_capacity(keep + 1);
    loop {
        let limit = if cheapest.len() == keep {
            cheapest[keep - 1]
        } else {
            f64::INFINITY
        };
        let mut batch = Vec::with_capacity(BOUND_BATCH);
        while batch.len() < BOUND_BATCH {
            match front.peek() {
                Some(p) if refine.is_none() || p.bound <= limit => batch.extend(front.pop()),
                _ => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        // Before `keep` costs are known no bound can rule a point out: pass it.
        let refine_now = refine.filter(|_| limit.is_finite());
        let outcomes: Vec<Taken> = batch
            .into_par_iter()
            .map(|p| {
                let Some(s) = &solved[p.j] else {
                    return Ok(Taken::Passed(p.j, None));
                };
                Ok(match refine_now {
                    Some(refine) if !p.refined => Taken::Refined(Pending {
                        bound: p.bound.max(refine(&s.sol)),
                        refined: true,
                        ..p
                    }),
                    _ => Taken::Passed(p.j, Some(cost(&s.sol)?)),
                })
            })
            .collect::<Result<_, ModelError>>()?;
        for outcome in outcomes {
            match outcome {
                Taken::Refined(p) => front.push(p),
                Taken::Passed(j, c) => {
                    step(j);
                    costs[j] = c;
                    if let Some(c) = c {
                        let rank = cheapest.partition_point(|&x| x <= c);
                        cheapest.insert(rank, c);
                        cheapest.truncate(keep);
                    }
                }
            }
        }
    }
    front.iter().for_each(|p| step(p.j));
    Ok(())
}

/// What [`bound_order`] did with a point it took from the front.
enum Taken {
    /// Its tighter bound was computed; it goes back to wait.
    Refined(Pending),
    /// Its FN pass was made: the point and its cost (`None` without a solution).
    Passed(usize, Option<f64>),
}

/// A point waiting in [`bound_order`]: the least bound first, then grid order.
struct Pending {
    /// Its lower bound on the cost.
    bound: f64,
    /// Its index among the grid points.
    j: usize,
    /// Whether `bound` is already the tighter one (or no tighter one is given).
    refined: bool,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    /// Reversed, so that [`std::collections::BinaryHeap`] pops the least bound, then the
    /// first in grid order.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .bound
            .total_cmp(&self.bound)
            .then(other.j.cmp(&self.j))
    }
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
