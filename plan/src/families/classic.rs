//! The classic Bloom filter rows for a static set: standard, partitioned and blocked
//! layouts, each the least memory over integer `k` meeting the target.

use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::{Requirement, Shape};
use bfopt_models::classic::{design, ClassicParams, ClassicRequirement, FpLaw, Layout};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::classic as classic_sim;
use bfopt_validation::workload::Workload;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "classic",
    propose: classic,
};

/// Block size of the blocked layouts the planner offers: one 64-byte cache line.
pub(crate) const BLOCK_BITS: u64 = 512;

/// The classic layouts offered (the rotating ring uses the standard and blocked ones).
pub(crate) const LAYOUTS: [Layout; 3] = [
    Layout::Standard,
    Layout::Partitioned,
    Layout::Blocked {
        block_bits: BLOCK_BITS,
    },
];

/// The block size of a layout, if blocked.
pub(crate) fn block_bits(layout: Layout) -> Option<u64> {
    match layout {
        Layout::Blocked { block_bits } => Some(block_bits),
        _ => None,
    }
}

/// What one access of a layout is.
pub(crate) fn access_unit(layout: Layout) -> AccessUnit {
    match layout {
        Layout::Blocked { .. } => AccessUnit::CacheLines,
        _ => AccessUnit::BitProbes,
    }
}

/// The least-memory standard, partitioned and blocked Bloom filters for a static set.
fn classic(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Capacity { items: n } = *req.shape() else {
        return Err(match req.shape() {
            Shape::Window { .. } => Proposal::Excluded(
                "classic: serves a static set, not a sliding window (it never forgets; the rotating rows are rings of classic filters)".into(),
            ),
            _ => wrong_shape("classic", "a static set", req),
        });
    };
    LAYOUTS
        .iter()
        .map(|&layout| {
            let d = design(&ClassicRequirement::new(req.fp(), n, layout)?)?;
            Ok(row(req.fp(), d.params))
        })
        .collect()
}

/// The candidate row of classic filter `params` (holding `params.n()` items) against an
/// FP target `fp` (which sizes the simulation's probes), with its simulation.
pub(crate) fn row(fp: f64, params: ClassicParams) -> Candidate {
    let (layout, n, metrics) = (params.layout(), params.n(), params.metrics());
    let name = format!(
        "classic/{} m={} k={} n={n}: ",
        layout.name(),
        params.m(),
        params.k()
    );
    let probes = probes(fp);
    let check = move |run: SimRun| {
        let cfg = classic_sim::ClassicSimConfig {
            params,
            workload: Workload::Distinct,
            epochs: super::epochs(run),
            probes,
            seed: run.seed,
            confidence: run.confidence,
        };
        match classic_sim::simulate(&cfg) {
            Ok(r) => classic_sim::compare(&name, &params, &r, run.confidence, run.seed),
            Err(e) => vec![Check::error("classic", format!("{name}{e}"), run.seed)],
        }
    };
    let (validator, not_simulated) = simulation(validator(n, check));
    Candidate {
        family: "classic",
        design: format!("classic/{}", layout.name()),
        params: Params::Classic {
            m: params.m(),
            k: params.k(),
            block_bits: block_bits(layout),
        },
        bits: params.m(),
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: metrics.accesses_insert,
        accesses_query: metrics.accesses_query_false,
        access_unit: access_unit(layout),
        false_negatives: FalseNegatives::None,
        slack: 0,
        npws: None,
        fp: metrics.fp,
        fp_kind: match metrics.fp_law {
            FpLaw::Exact => FpKind::Exact,
            _ => FpKind::UsualFormula,
        },
        notes: vec![match layout {
            Layout::Standard => "fewest bits; k random accesses per insert and query",
            Layout::Partitioned => "standard's accesses, a few more bits; suits hardware",
            Layout::Blocked { .. } => "one cache line per operation, some extra bits",
        }
        .to_string()],
        not_simulated,
        validator,
    }
}
