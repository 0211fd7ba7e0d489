//! The binary fuse filter row for a static set (`xorf`'s `BinaryFuse8/16/32`).

use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::{Requirement, Shape};
use bfopt_models::fuse::{design, FuseParams, FuseRequirement};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::fuse as fuse_sim;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "fuse",
    propose: fuse,
};

/// The smallest-fingerprint binary fuse filter meeting the target.
fn fuse(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Capacity { items: n } = *req.shape() else {
        return Err(wrong_shape("fuse", "a static set", req));
    };
    let d = design(&FuseRequirement::new(req.fp(), n)?)?;
    Ok(vec![row(req.fp(), d.params)])
}

/// The candidate row of a binary fuse filter, with its simulation (xorf built from the
/// keys, non-members probed).
pub(crate) fn row(fp: f64, params: FuseParams) -> Candidate {
    let metrics = params.metrics();
    let name = format!("binary-fuse f={} n={}: ", params.f(), params.n());
    let probes = probes(fp.max(metrics.fp));
    let check = move |run: SimRun| {
        let cfg = fuse_sim::FuseSimConfig {
            params,
            epochs: super::epochs(run),
            probes,
            seed: run.seed,
            confidence: run.confidence,
        };
        match fuse_sim::simulate(&cfg) {
            Ok(r) => fuse_sim::compare(&name, &params, &r, run.seed),
            Err(e) => vec![Check::error("fuse", format!("{name}{e}"), run.seed)],
        }
    };
    let (validator, not_simulated) = simulation(validator(params.n(), check));
    Candidate {
        family: "fuse",
        design: format!("binary-fuse/{}", params.f()),
        params: Params::Fuse {
            f: params.f(),
            slots: metrics.layout.slots,
        },
        bits: metrics.memory_bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        // Built once: each key is written through its three slots.
        accesses_insert: metrics.accesses_query,
        accesses_query: metrics.accesses_query,
        access_unit: AccessUnit::BitProbes,
        false_negatives: FalseNegatives::None,
        slack: 0,
        npws: None,
        fp: metrics.fp,
        fp_kind: FpKind::Exact,
        notes: vec![
            "gives up: built once from the whole set, no insertions or deletions after; gains: fewest bits, 3 accesses per query".to_string(),
        ],
        not_simulated,
        validator,
    }
}
