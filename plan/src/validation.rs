//! [`Plan::validate`]: every candidate's reference implementation simulated at its
//! planned parameters and compared with its model.

use crate::candidate::{Candidate, SimRun};
use crate::planner::Plan;
use bfopt_validation::agree::Check;
use bfopt_validation::level::Level;
use bfopt_validation::suite::FAMILY_ALPHA;
use serde::Serialize;

/// The most checks one design's simulation makes (for the Bonferroni split).
pub const CHECKS_PER_DESIGN: usize = 8;

/// A design's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every check passed.
    Pass,
    /// At least one check failed.
    Fail,
    /// Not simulated (too large to simulate in seconds; the reason is given).
    Skipped,
}

impl Status {
    /// `PASS`, `FAIL`, `skipped`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skipped => "skipped",
        }
    }
}

/// A measured rate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measured {
    /// Point estimate.
    pub value: f64,
    /// Interval's lower end.
    pub lo: f64,
    /// Interval's upper end.
    pub hi: f64,
}

/// One candidate's simulation.
#[derive(Debug, Clone, Serialize)]
pub struct DesignValidation {
    /// The design, as in the plan.
    pub design: String,
    /// The verdict.
    pub status: Status,
    /// Why it was not simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The measured FP (the probe FP where the family measures one, else its first
    /// check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_fp: Option<Measured>,
    /// Every check.
    pub checks: Vec<Check>,
}

/// Every candidate's simulation, in the plan's order.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    /// Per design.
    pub designs: Vec<DesignValidation>,
}

impl Validation {
    /// Whether no simulated design failed.
    pub fn passed(&self) -> bool {
        self.designs.iter().all(|d| d.status != Status::Fail)
    }

    /// Every check of every design.
    pub fn checks(&self) -> impl Iterator<Item = &Check> {
        self.designs.iter().flat_map(|d| d.checks.iter())
    }
}

impl Plan {
    /// Simulates every candidate's reference implementation at its planned parameters
    /// (design `i` with seed `seed + i`) and compares it with its model. Each check's
    /// interval has confidence `1 − 0.01 / (8 · candidates)` (Bonferroni: a correct plan
    /// fails with probability at most 1%). [`Level::Full`] runs four times the epochs.
    pub fn validate(&self, level: Level, seed: u64) -> Validation {
        validate_candidates(&self.candidates, level, seed)
    }
}

/// [`Plan::validate`] of any list of candidates (a plan's, or designs re-evaluated by
/// [`crate::check::evaluate`]): candidate `i` with seed `seed + i`, each check at
/// confidence `1 − 0.01 / (8 · candidates)`.
pub fn validate_candidates(candidates: &[Candidate], level: Level, seed: u64) -> Validation {
    let designs = (0..candidates.len())
        .filter_map(|i| validate_candidate(candidates, i, level, seed))
        .collect();
    Validation { designs }
}

/// Candidate `index` of `candidates` simulated alone, with the seed and confidence that
/// [`validate_candidates`] of the whole list gives it (so the same figures as
/// `recommend --validate --seed SEED` for that row); `None` past the end.
pub fn validate_candidate(
    candidates: &[Candidate],
    index: usize,
    level: Level,
    seed: u64,
) -> Option<DesignValidation> {
    let c = candidates.get(index)?;
    let checks = CHECKS_PER_DESIGN * candidates.len();
    let confidence = 1.0 - FAMILY_ALPHA / checks as f64;
    let scale = match level {
        Level::Quick => 1,
        Level::Full => 4,
    };
    let Some(v) = c.validator() else {
        return Some(DesignValidation {
            design: c.design.clone(),
            status: Status::Skipped,
            skipped: c.not_simulated.clone(),
            measured_fp: None,
            checks: Vec::new(),
        });
    };
    let checks = v.run(SimRun {
        seed: seed.wrapping_add(index as u64),
        confidence,
        scale,
    });
    let fp = checks
        .iter()
        .find(|k| k.name.ends_with("probe fp"))
        .or(checks.first())
        .map(|k| Measured {
            value: k.measured,
            lo: k.lo,
            hi: k.hi,
        });
    Some(DesignValidation {
        design: c.design.clone(),
        status: if checks.iter().all(|k| k.pass) {
            Status::Pass
        } else {
            Status::Fail
        },
        skipped: None,
        measured_fp: fp,
        checks,
    })
}
