//! The counting Bloom filter row, offered when items are deleted.

use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::{Requirement, Shape};
use bfopt_models::classic::FpLaw;
use bfopt_models::counting::{design, CountingParams, CountingRequirement};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::counting as counting_sim;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "counting",
    propose: counting,
};

/// The least-memory counting Bloom filter with overflow probability at most 1e-9, when
/// the requirement has deletions (otherwise a classic filter answers the same in a
/// `c`-th of the memory).
fn counting(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Capacity { items: n } = *req.shape() else {
        return Err(wrong_shape("counting", "a static set with deletions", req));
    };
    if !req.deletions() {
        return Err(Proposal::Excluded(
            "counting: a classic filter answers the same in a fraction of the bits; offered when items are deleted (--deletions)".into(),
        ));
    }
    let d = design(&CountingRequirement::new(req.fp(), n)?)?;
    Ok(vec![row(req.fp(), d.params)])
}

/// The candidate row of a counting Bloom filter, with its simulation.
pub(crate) fn row(fp: f64, params: CountingParams) -> Candidate {
    let metrics = params.metrics();
    let name = format!(
        "counting m={} k={} c={} n={}: ",
        params.m(),
        params.k(),
        params.c(),
        params.n()
    );
    let probes = probes(fp.max(metrics.fp));
    let check = move |run: SimRun| {
        let cfg = counting_sim::CountingSimConfig {
            params,
            deleted: 0,
            epochs: super::epochs(run),
            probes,
            seed: run.seed,
            confidence: run.confidence,
        };
        match counting_sim::simulate(&cfg) {
            Ok(r) => counting_sim::compare(&name, &params, 0, &r, run.seed),
            Err(e) => vec![Check::error("counting", format!("{name}{e}"), run.seed)],
        }
    };
    let (validator, not_simulated) = simulation(validator(params.n(), check));
    Candidate {
        family: "counting",
        design: format!("counting/c{}", params.c()),
        params: Params::Counting {
            m: params.m(),
            k: params.k(),
            c: params.c(),
        },
        bits: metrics.memory_bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: f64::from(params.k()),
        accesses_query: metrics.accesses_query_false,
        access_unit: AccessUnit::BitProbes,
        false_negatives: FalseNegatives::None,
        slack: 0,
        npws: None,
        fp: metrics.fp,
        fp_kind: match metrics.fp_law {
            FpLaw::Exact => FpKind::Exact,
            _ => FpKind::UsualFormula,
        },
        notes: vec![format!(
            "gains: deletion, no insertion failure; gives up: {}-bit counters ({}x a classic filter's bits); P(counter overflow) <= {:.1e}",
            params.c(),
            params.c(),
            metrics.overflow
        )],
        not_simulated,
        validator,
    }
}
