//! Each family's best design for a requirement, as a [`Candidate`], or the reason it
//! cannot serve the requirement's shape.

use super::{Requirement, Shape};
use crate::exit::CliError;
use bfopt_models::ModelError;
use bfopt_validation::agree::Check;
use rayon::prelude::*;
use std::sync::Arc;
#[path = "baseline.rs"]
mod baseline;
#[path = "classic.rs"]
mod classic;
#[path = "rbf.rs"]
mod rbf;
#[path = "sbf.rs"]
mod sbf;
use baseline::{fingerprint_queue, rotating};
use classic::classic;
use rbf::{rbf, rbf_one_phase};
use sbf::sbf;
#[path = "timing.rs"]
mod timing;

#[path = "apbf.rs"]
mod apbf;
use apbf::apbf;
#[path = "pbf.rs"]
mod pbf;
#[path = "stable.rs"]
mod stable;
use pbf::pbf;

/// Simulates a candidate's reference implementation: `(seed, confidence) -> checks`.
#[derive(Clone)]
pub struct Validator(pub Arc<dyn Fn(u64, f64) -> Vec<Check> + Send + Sync>);

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

/// Largest number of insertions `recommend --validate` simulates per epoch; bigger
/// designs are validated at scale by `bfopt validate --level full`.
pub const MAX_SIMULATED_ITEMS: u64 = 20_000_000;

/// Simulation sizes of `recommend --validate`.
const EPOCHS: u64 = 4;

/// Non-member probes per epoch: enough for about 2000 false positives over the epochs,
/// between 10^4 and 10^6.
fn probes(fp: f64) -> u64 {
    ((2000.0 / fp / EPOCHS as f64).ceil() as u64).clamp(10_000, 1_000_000)
}

/// One family's proposal, in the columns every family shares.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The family (`classic`, `baseline`, `apbf`, ...).
    pub family: &'static str,
    /// The structure, e.g. `classic/standard`, `rotating/blocked`.
    pub design: String,
    /// Its parameters, e.g. `m=9592956 k=7`.
    pub parameters: String,
    /// Total memory in bits.
    pub bits: u64,
    /// Memory accesses per insertion.
    pub accesses_insert: f64,
    /// Expected memory accesses per query that returns false.
    pub accesses_query: f64,
    /// The false-negative guarantee, in words.
    pub false_negatives: &'static str,
    /// Items beyond the window still reported at the worst moment (0 for sets).
    pub slack: u64,
    /// Predicted FP.
    pub fp: f64,
    /// What the FP figure is (`exact`, `worst case`, ...).
    pub fp_kind: &'static str,
    /// When to prefer this design.
    pub note: &'static str,
    /// Peak normalized probability-weighted slack (window designs that have slack).
    pub npws: Option<f64>,
    /// Its reference simulation, or why `--validate` skips it.
    pub validator: Result<Validator, String>,
}

/// A validator when `items` is small enough to simulate in seconds.
fn validator(
    items: u64,
    f: impl Fn(u64, f64) -> Vec<Check> + Send + Sync + 'static,
) -> Result<Validator, String> {
    if items <= MAX_SIMULATED_ITEMS {
        Ok(Validator(Arc::new(f)))
    } else {
        Err(format!(
            "{items} insertions per epoch (over {MAX_SIMULATED_ITEMS}); `bfopt validate --level full` checks the model at scale"
        ))
    }
}

/// The candidates of every family for `req`: `Ok` designs, `Err` exclusion reasons.
///
/// # Errors
/// A requirement value a model rejects (exit 2).
pub fn candidates(req: &Requirement) -> Result<Vec<Result<Candidate, String>>, CliError> {
    let model = |e: ModelError| match e {
        ModelError::InvalidParam { .. } => Err(CliError::from_model(
            e,
            &[
                ("fp", "--fp"),
                ("n", "--capacity"),
                ("window", "--window"),
                ("horizon", "--horizon"),
                ("query_length", "--query-length"),
                ("pairs", "--pairs"),
                ("max_npws", "--max-npws"),
            ],
        )),
        other => Ok(Err(other.to_string())),
    };
    let mut out = Vec::new();
    type Family = fn(&Requirement) -> Result<Vec<Candidate>, Proposal>;
    const FAMILIES: [Family; 11] = [
        classic,
        apbf,
        rbf,
        rbf_one_phase,
        sbf,
        stable::ibf,
        pbf,
        rotating,
        fingerprint_queue,
        timing::btbf,
        timing::gbf,
    ];
    // Families size their designs independently: in parallel, results in this order.
    let proposals: Vec<_> = FAMILIES.par_iter().map(|family| family(req)).collect();
    for proposal in proposals {
        match proposal {
            Ok(list) => out.extend(list.into_iter().map(Ok)),
            Err(Proposal::Excluded(why)) => out.push(Err(why)),
            Err(Proposal::Model(e)) => out.push(model(e)?),
        }
    }
    Ok(out)
}

/// Why a family proposes nothing.
enum Proposal {
    /// The family cannot serve this shape.
    Excluded(String),
    /// Its model rejected the requirement.
    Model(ModelError),
}

impl From<ModelError> for Proposal {
    fn from(e: ModelError) -> Self {
        Proposal::Model(e)
    }
}
