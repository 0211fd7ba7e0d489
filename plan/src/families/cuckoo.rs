//! The cuckoo filter row for a static set or a set with deletions.

use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::{Requirement, Shape};
use bfopt_models::cuckoo::{design, max_load, CuckooParams, CuckooRequirement};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::cuckoo as cuckoo_sim;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "cuckoo",
    propose: cuckoo,
};

/// The cuckoo filter with 4-slot buckets at the safe load, fewest fingerprint bits.
fn cuckoo(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Capacity { items: n } = *req.shape() else {
        return Err(wrong_shape(
            "cuckoo",
            "a static set (with or without deletions)",
            req,
        ));
    };
    let d = design(&CuckooRequirement::new(req.fp(), n)?)?;
    Ok(vec![row(req.fp(), d.params)])
}

/// The candidate row of a cuckoo filter holding `params.n()` items, with its simulation.
pub(crate) fn row(fp: f64, params: CuckooParams) -> Candidate {
    let metrics = params.metrics();
    let name = format!(
        "cuckoo f={} b={} buckets={} n={}: ",
        params.f(),
        params.b(),
        params.buckets(),
        params.n()
    );
    let probes = probes(fp.max(metrics.fp));
    let check = move |run: SimRun| {
        let cfg = cuckoo_sim::CuckooSimConfig {
            params,
            epochs: super::epochs(run),
            probes,
            seed: run.seed,
            confidence: run.confidence,
        };
        match cuckoo_sim::simulate(&cfg) {
            Ok(r) => cuckoo_sim::compare(&name, &params, &r, run.seed),
            Err(e) => vec![Check::error("cuckoo", format!("{name}{e}"), run.seed)],
        }
    };
    let (validator, not_simulated) = simulation(validator(params.n(), check));
    let max = max_load(params.b()).map_or(String::new(), |m| {
        format!(
            " (first failure measured at load {:.3} for b = {})",
            m.mean, m.b
        )
    });
    Candidate {
        family: "cuckoo",
        design: format!("cuckoo/b{}", params.b()),
        params: Params::Cuckoo {
            f: params.f(),
            b: params.b(),
            buckets: params.buckets(),
        },
        bits: metrics.memory_bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        // Both buckets on a miss; an insertion reads both and, near full load, relocates.
        accesses_insert: metrics.accesses_query,
        accesses_query: metrics.accesses_query,
        access_unit: AccessUnit::CacheLines,
        false_negatives: FalseNegatives::None,
        slack: 0,
        npws: None,
        fp: metrics.fp,
        // `CuckooParams::fp` bounds the FP over the buckets' loads from above (Jensen).
        fp_kind: FpKind::UpperBound,
        notes: vec![format!(
            "gains: deletion, 2 bucket reads per query; gives up: insertions fail near full load, sized at load {:.2}{max}",
            params.load()
        )],
        not_simulated,
        validator,
    }
}
