//! The planner: every family's proposals, budgets applied, ranked, and the pick.
//!
//! # The pick rule
//! Candidates are ranked by memory (then by name, so ties are stable). The pick is the
//! first: the least memory that meets the FP target, the shape and every budget. Its
//! reason is computed from the numbers: what it costs per item, and, when a runner-up
//! needs at most [`RUNNER_UP_MEMORY`] times its memory but at most half its accesses or
//! half its peak NPWS, what that runner-up would buy; and when the pick's FP is not a
//! bound (a long-run average or a stable point), it says so.

use crate::candidate::{Candidate, Params};
use crate::families::{Proposal, FAMILIES};
use crate::requirement::{Requirement, Shape};
use crate::text::{num, prob};
use bfopt_models::ModelError;
use rayon::prelude::*;
use serde::Serialize;
use std::fmt;

/// A runner-up within this factor of the pick's memory is mentioned in the pick's
/// reason when it is much better on accesses or NPWS.
pub const RUNNER_UP_MEMORY: f64 = 1.10;

/// A budget of the requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// `memory_bits` (`--memory`).
    MemoryBits,
    /// `max_accesses` (`--max-accesses`).
    MaxAccesses,
    /// `max_npws` (`--max-npws`).
    MaxNpws,
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Budget::MemoryBits => "memory (--memory)",
            Budget::MaxAccesses => "accesses (--max-accesses)",
            Budget::MaxNpws => "peak NPWS (--max-npws)",
        })
    }
}

/// A family or design left out, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exclusion {
    /// The family (or design, when one design of a family is left out).
    pub name: String,
    /// Why, in words.
    pub reason: String,
    /// The budget it exceeds, if a budget excluded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.reason)
    }
}

/// The design to build, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pick {
    /// Its index in [`Plan::candidates`].
    pub index: usize,
    /// Its design name.
    pub design: String,
    /// One line: why this one.
    pub reason: String,
}

/// The ranked designs for a requirement.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The requirement, echoed.
    pub requirement: Requirement,
    /// The design to build.
    pub pick: Pick,
    /// Every design that meets the requirement, least memory first.
    pub candidates: Vec<Candidate>,
    /// Families and designs left out, with reasons.
    pub excluded: Vec<Exclusion>,
    /// What the figures assume, for the plan as a whole.
    pub notes: Vec<String>,
}

impl Plan {
    /// The picked candidate.
    pub fn picked(&self) -> &Candidate {
        &self.candidates[self.pick.index]
    }
}

/// No design meets the requirement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Infeasible {
    /// The requirement, echoed.
    pub requirement: Requirement,
    /// The constraint that binds.
    pub binding: String,
    /// The best that can be achieved when it is relaxed.
    pub achievable: String,
    /// Every family and design left out, with reasons.
    pub excluded: Vec<Exclusion>,
}

impl fmt::Display for Infeasible {
    /// The binding constraint and what is achievable; when no budget binds, every
    /// exclusion (they are the reasons).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.excluded.iter().any(|e| e.budget.is_some()) {
            write!(f, "{} binds; achievable: {}", self.binding, self.achievable)?;
        } else {
            f.write_str(&self.binding)?;
            for e in &self.excluded {
                write!(f, "; {e}")?;
            }
        }
        Ok(())
    }
}

/// Why [`plan`] has no plan.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanError {
    /// An input is invalid (parameter, value, allowed range) or a solver failed.
    Model(ModelError),
    /// No design meets the requirement.
    Infeasible(Box<Infeasible>),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Model(e) => e.fmt(f),
            PlanError::Infeasible(i) => write!(f, "no design satisfies the requirements: {i}"),
        }
    }
}

impl std::error::Error for PlanError {}

impl From<ModelError> for PlanError {
    fn from(e: ModelError) -> Self {
        PlanError::Model(e)
    }
}

/// Every design that meets `req`, ranked, with the pick and the exclusions.
///
/// # Errors
/// [`PlanError::Infeasible`] when no design meets the requirement (the binding
/// constraint and what is achievable, and every exclusion).
pub fn plan(req: &Requirement) -> Result<Plan, PlanError> {
    // Families size their designs independently: in parallel, results in registry order.
    let proposals: Vec<_> = FAMILIES
        .par_iter()
        .map(|family| (family.name, crate::families::propose(family, req)))
        .collect();
    let mut proposed = Vec::new();
    let mut excluded = Vec::new();
    for (name, proposal) in proposals {
        match proposal {
            Ok(list) => proposed.extend(list),
            Err(Proposal::Excluded(reason)) => excluded.push(Exclusion {
                name: name.into(),
                reason: reason
                    .strip_prefix(&format!("{name}: "))
                    .map_or(reason.clone(), str::to_string),
                budget: None,
            }),
            // A model that cannot serve this requirement (a target beyond its range, an
            // infeasible size, a solver that did not converge) excludes its family only.
            Err(Proposal::Model(e)) => excluded.push(Exclusion {
                name: name.into(),
                reason: e.to_string(),
                budget: None,
            }),
        }
    }
    let mut candidates = Vec::new();
    let mut over = Vec::new();
    for mut c in proposed {
        c.count_against(req);
        if !(c.fp > 0.0) {
            // A predicted FP of 0 is an underflow, never a real design's rate.
            excluded.push(Exclusion {
                name: c.design.clone(),
                reason: format!(
                    "its FP underflows to 0 in double precision at fp {}: not computed to full precision",
                    prob(req.fp())
                ),
                budget: None,
            });
            continue;
        }
        match over_budget(&c, req) {
            Some((budget, reason)) => {
                excluded.push(Exclusion {
                    name: c.design.clone(),
                    reason,
                    budget: Some(budget),
                });
                over.push((budget, c));
            }
            None => candidates.push(c),
        }
    }
    if candidates.is_empty() {
        return Err(PlanError::Infeasible(Box::new(infeasible(
            req, &over, excluded,
        ))));
    }
    candidates.sort_by(|a, b| a.bits.cmp(&b.bits).then(a.design.cmp(&b.design)));
    let mut notes = Vec::new();
    if let Some(d) = req.duplicates() {
        notes.push(format!(
            "duplicates {d}: only the apbf row is sized on a model of repeats (each insertion repeats one of the last W with probability {d}); the other rows keep their distinct-insertion figures (a repeat sets nothing a new item would not, so repeats do not raise their FP), and their simulations use distinct streams"
        ));
    }
    Ok(Plan {
        pick: pick(req, &candidates),
        requirement: req.clone(),
        candidates,
        excluded,
        notes,
    })
}

/// The requirement in words: `fp <= 0.0100 for a window of 1000000 insertions`.
fn requirement_words(req: &Requirement) -> String {
    let shape = match *req.shape() {
        Shape::Capacity { items } => format!("a static set of {items} items"),
        Shape::Window { insertions, .. } => format!("a window of {insertions} insertions"),
        Shape::Temporal {
            horizon,
            query_length,
            pairs,
        } => format!("{pairs} pairs over {horizon} timestamps, queries of {query_length}"),
        Shape::Growing {
            initial_capacity,
            max_items,
        } => format!("a set growing from {initial_capacity} to {max_items} items"),
    };
    format!("fp <= {} for {shape}", prob(req.fp()))
}

/// The budget a candidate exceeds, with the reason.
pub(crate) fn over_budget(c: &Candidate, req: &Requirement) -> Option<(Budget, String)> {
    let b = req.budgets();
    if let Some(limit) = b.memory_bits.filter(|&m| c.bits > m) {
        return Some((
            Budget::MemoryBits,
            format!("needs {} bits > memory budget {limit}", c.bits),
        ));
    }
    if let Some(limit) = b.max_accesses.filter(|&a| c.worst_accesses() > a) {
        return Some((
            Budget::MaxAccesses,
            format!(
                "{} accesses per operation > max_accesses {limit}",
                num(c.worst_accesses())
            ),
        ));
    }
    match (b.max_npws, c.npws) {
        (Some(limit), Some(npws)) if npws > limit => Some((
            Budget::MaxNpws,
            format!("peak NPWS {} > max_npws {limit}", num(npws)),
        )),
        (Some(_), None) => Some((
            Budget::MaxNpws,
            "peak NPWS not modelled (it forgets window items), so it cannot be held to max_npws"
                .into(),
        )),
        _ => None,
    }
}

/// Why nothing fits: the first budget (memory, accesses, NPWS) that excluded a design
/// meeting every earlier one, and the best value of it among those designs.
fn infeasible(
    req: &Requirement,
    over: &[(Budget, Candidate)],
    excluded: Vec<Exclusion>,
) -> Infeasible {
    let budgets = req.budgets();
    let first = [Budget::MemoryBits, Budget::MaxAccesses, Budget::MaxNpws]
        .into_iter()
        .find(|&b| over.iter().any(|(x, _)| *x == b));
    let (binding, achievable) = match first {
        None => (
            format!(
                "no family serves {} with these options",
                requirement_words(req)
            ),
            "-".to_string(),
        ),
        Some(budget) => {
            let designs = over.iter().filter(|(b, _)| *b == budget).map(|(_, c)| c);
            let (limit, best) = match budget {
                Budget::MemoryBits => (
                    format!("{} bits", budgets.memory_bits.unwrap_or(0)),
                    designs
                        .min_by_key(|c| c.bits)
                        .map(|c| format!("{} bits with {} ({})", c.bits, c.design, c.params)),
                ),
                Budget::MaxAccesses => (
                    num(budgets.max_accesses.unwrap_or(0.0)),
                    designs
                        .min_by(|a, b| a.worst_accesses().total_cmp(&b.worst_accesses()))
                        .map(|c| {
                            format!(
                                "{} accesses per operation with {} ({})",
                                num(c.worst_accesses()),
                                c.design,
                                c.params
                            )
                        }),
                ),
                Budget::MaxNpws => (
                    num(budgets.max_npws.unwrap_or(0.0)),
                    designs
                        .filter_map(|c| c.npws.map(|n| (n, c)))
                        .min_by(|a, b| a.0.total_cmp(&b.0))
                        .map(|(n, c)| {
                            format!("peak NPWS {} with {} ({})", num(n), c.design, c.params)
                        }),
                ),
            };
            (
                format!("{budget} = {limit}"),
                best.unwrap_or_else(|| "no design with a modelled NPWS".into()),
            )
        }
    };
    Infeasible {
        requirement: req.clone(),
        binding,
        achievable,
        excluded,
    }
}

/// The growing-set row of least memory at the initial capacity, and that memory.
fn cheapest_at_start(ranked: &[Candidate]) -> Option<(u64, &Candidate)> {
    ranked
        .iter()
        .filter_map(|c| match c.params {
            Params::Scalable {
                bits_at_initial, ..
            } => Some((bits_at_initial, c)),
            _ => None,
        })
        .min_by_key(|x| x.0)
}

/// The first candidate, and why.
pub(crate) fn pick(req: &Requirement, ranked: &[Candidate]) -> Pick {
    let best = &ranked[0];
    let limit = format!(
        "{} bits per item, {}x the lower bound log2(1/fp) = {}",
        num(best.bits_per_item),
        num(best.times_limit),
        num(-req.fp().log2())
    );
    let mut reason = format!(
        "least memory of the {} designs that meet {}: {limit}",
        ranked.len(),
        requirement_words(req),
    );
    if ranked.len() == 1 {
        reason = format!(
            "the only design that meets {}: {limit}",
            requirement_words(req),
        );
    }
    for c in &ranked[1..] {
        if c.bits as f64 > RUNNER_UP_MEMORY * best.bits as f64 {
            break;
        }
        let more = 100.0 * (c.bits as f64 / best.bits as f64 - 1.0);
        if c.worst_accesses() <= 0.5 * best.worst_accesses() {
            reason.push_str(&format!(
                "; {} needs {:.0}% more memory for {} {} per insertion and {} per query (pick: {} and {})",
                c.design,
                more,
                num(c.accesses_insert),
                if c.accesses_insert == 1.0 { "access" } else { "accesses" },
                num(c.accesses_query),
                num(best.accesses_insert),
                num(best.accesses_query)
            ));
            break;
        }
        if let (Some(a), Some(b)) = (c.npws, best.npws) {
            if a <= 0.5 * b {
                reason.push_str(&format!(
                    "; {} needs {:.0}% more memory for a peak NPWS of {} (pick: {})",
                    c.design,
                    more,
                    num(a),
                    num(b)
                ));
                break;
            }
        }
    }
    if let Some(chain) = cheapest_at_start(ranked) {
        if !matches!(best.params, Params::Scalable { .. }) {
            reason.push_str(&format!(
                "; until the set outgrows its initial capacity, {} holds {} bits against the pick's {}",
                chain.1.design, chain.0, best.bits
            ));
        }
    }
    if !best.fp_kind.is_bound() {
        reason.push_str(&format!(
            "; its FP is {}, not a worst case",
            best.fp_kind.describe()
        ));
    }
    Pick {
        index: 0,
        design: best.design.clone(),
        reason,
    }
}
