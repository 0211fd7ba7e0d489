//! The classic Bloom filter rows of `bfopt recommend --capacity N` ([BF]: standard,
//! partitioned and blocked layouts).

use super::{probes, validator, Candidate, Proposal, EPOCHS};
use crate::families::classic::DEFAULT_BLOCK_BITS;
use crate::families::recommend::{Requirement, Shape};
use bfopt_models::classic::{design, ClassicRequirement, Layout};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::classic as classic_sim;
use bfopt_validation::workload::Workload;

/// The classic layouts offered (the rotating ring uses the standard and blocked ones).
pub(super) const LAYOUTS: [Layout; 3] = [
    Layout::Standard,
    Layout::Partitioned,
    Layout::Blocked {
        block_bits: DEFAULT_BLOCK_BITS,
    },
];

/// The least-memory standard, partitioned and blocked Bloom filters for `--capacity N`.
pub(super) fn classic(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Capacity(n) = req.shape else {
        return Err(Proposal::Excluded(
            "classic: a static set; it never forgets, so a window would fill it".into(),
        ));
    };
    LAYOUTS
        .iter()
        .map(|&layout| {
            let d = design(&ClassicRequirement::new(req.fp, n, layout)?)?;
            let params = d.params;
            let name = format!(
                "classic/{} m={} k={} n={n}: ",
                layout.name(),
                params.m(),
                params.k()
            );
            let probes = probes(req.fp);
            let check = move |seed, confidence| {
                let cfg = classic_sim::ClassicSimConfig {
                    params,
                    workload: Workload::Distinct,
                    epochs: EPOCHS,
                    probes,
                    seed,
                    confidence,
                };
                match classic_sim::simulate(&cfg) {
                    Ok(r) => classic_sim::compare(&name, &params, &r, confidence, seed),
                    Err(e) => vec![Check::error("classic", format!("{name}{e}"), seed)],
                }
            };
            Ok(Candidate {
                family: "classic",
                design: format!("classic/{}", layout.name()),
                parameters: format!("m={} k={}", d.params.m(), d.params.k()),
                bits: d.params.m(),
                accesses_insert: d.metrics.accesses_insert,
                accesses_query: d.metrics.accesses_query_false,
                false_negatives: "none",
                slack: 0,
                fp: d.metrics.fp,
                fp_kind: if matches!(layout, Layout::Standard) {
                    "usual formula"
                } else {
                    "exact"
                },
                note: match layout {
                    Layout::Standard => "fewest bits; k random accesses per insert and query",
                    Layout::Partitioned => "standard's accesses, a few more bits; suits hardware",
                    Layout::Blocked { .. } => "one cache line per operation, some extra bits",
                },
                npws: None,
                validator: validator(n, check),
            })
        })
        .collect()
}
