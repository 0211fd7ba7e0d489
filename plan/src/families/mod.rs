//! The families the planner asks, one module each, and the registry that lists them.
//!
//! A family joins the planner with one [`Family`] entry in [`FAMILIES`]: a name and a
//! function that proposes its best designs for a requirement (each with its
//! simulation), or says why it cannot serve it.

pub(crate) mod apbf;
pub(crate) mod baseline;
pub(crate) mod btbf;
pub(crate) mod classic;
pub(crate) mod counting;
pub(crate) mod cuckoo;
pub(crate) mod fuse;
pub(crate) mod gbf;
pub(crate) mod ibf;
pub(crate) mod pbf;
pub(crate) mod rbf;
pub(crate) mod sbf;
pub(crate) mod scalable;

use crate::candidate::{Candidate, SimRun, Validator};
use crate::requirement::Requirement;
use bfopt_models::ModelError;
use bfopt_validation::agree::Check;
use std::sync::Arc;

/// One plug-in family of the planner.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// The family's name, as in [`Candidate::family`].
    pub name: &'static str,
    /// Its best designs for a requirement, or why it proposes none.
    pub propose: fn(&Requirement) -> Result<Vec<Candidate>, Proposal>,
}

/// Every family the planner asks, in the order their rows tie-break.
pub const FAMILIES: &[Family] = &[
    classic::FAMILY,
    apbf::FAMILY,
    rbf::TWO_PHASE,
    rbf::ONE_PHASE,
    sbf::FAMILY,
    ibf::FAMILY,
    pbf::FAMILY,
    baseline::ROTATING,
    baseline::FINGERPRINT_QUEUE,
    btbf::FAMILY,
    gbf::FAMILY,
    scalable::FAMILY,
    fuse::FAMILY,
    cuckoo::FAMILY,
    counting::FAMILY,
];

/// The families whose structures support deletion: the only ones asked when the
/// requirement has deletions ([`Requirement::with_deletions`]).
pub const SUPPORTS_DELETION: &[&str] = &[cuckoo::FAMILY.name, counting::FAMILY.name];

/// A family's proposal for `req`: its own, unless the requirement has deletions and the
/// family's structures cannot delete.
pub(crate) fn propose(family: &Family, req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    if req.deletions() && !SUPPORTS_DELETION.contains(&family.name) {
        return Err(Proposal::Excluded(format!(
            "{}: cannot delete items (--deletions; supported by: {})",
            family.name,
            SUPPORTS_DELETION.join(", ")
        )));
    }
    (family.propose)(req)
}

/// Why a family proposes nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Proposal {
    /// The family cannot serve this requirement; the reason, in words.
    Excluded(String),
    /// Its model rejected the requirement (an invalid value is the caller's error; any
    /// other model error excludes the family with its message).
    Model(ModelError),
}

impl From<ModelError> for Proposal {
    fn from(e: ModelError) -> Self {
        Proposal::Model(e)
    }
}

/// `name` serves `serves` only: the exclusion for any other shape, phrased for the
/// shape asked (never suggesting the shape that was asked for).
pub(crate) fn wrong_shape(name: &str, serves: &str, req: &Requirement) -> Proposal {
    Proposal::Excluded(format!("{name}: serves {serves}, not {}", req.shape_name()))
}

/// A forgetting design needs the window's `allow_fn`.
pub(crate) fn needs_allow_fn(name: &str, how: &str) -> Proposal {
    Proposal::Excluded(format!(
        "{name}: forgets window items ({how}); admitted only with allow_fn (--allow-fn RATE)"
    ))
}

/// Largest number of insertions [`crate::Plan::validate`] simulates per epoch; bigger
/// designs are checked at scale by `bfopt validate --level full`.
pub const MAX_SIMULATED_ITEMS: u64 = 20_000_000;

/// Epochs of a quick simulation (times [`SimRun::scale`]).
pub(crate) const EPOCHS: u64 = 4;

/// Epochs of a run.
pub(crate) fn epochs(run: SimRun) -> u64 {
    EPOCHS * run.scale
}

/// Non-member probes per epoch: enough for about 2000 false positives over the quick
/// epochs, between 10^4 and 10^6.
pub(crate) fn probes(fp: f64) -> u64 {
    ((2000.0 / fp / EPOCHS as f64).ceil() as u64).clamp(10_000, 1_000_000)
}

/// A validator when `items` insertions per epoch simulate in seconds, else the reason.
pub(crate) fn validator(
    items: u64,
    f: impl Fn(SimRun) -> Vec<Check> + Send + Sync + 'static,
) -> Result<Validator, String> {
    if items <= MAX_SIMULATED_ITEMS {
        Ok(Validator(Arc::new(f)))
    } else {
        Err(format!(
            "{items} insertions per epoch (over {MAX_SIMULATED_ITEMS}); `bfopt validate --level full` checks the model at scale"
        ))
    }
}

/// Splits a validator result into the candidate's two fields.
pub(crate) fn simulation(v: Result<Validator, String>) -> (Option<Validator>, Option<String>) {
    match v {
        Ok(v) => (Some(v), None),
        Err(why) => (None, Some(why)),
    }
}
