//! The hand-built sliding-window baselines of `bfopt recommend --window W`: a rotating
//! ring of classic filters and a fingerprint queue.

use super::classic::LAYOUTS;
use super::{probes, validator, Candidate, Proposal, EPOCHS};
use crate::families::recommend::{Requirement, Shape};
use bfopt_models::baseline::{
    fingerprint_queue::design_fingerprint_queue, rotating::design_rotating,
    FingerprintQueueRequirement, RotatingRequirement,
};
use bfopt_validation::experiments::baseline as base_sim;

/// The ring of classic filters (standard and blocked) for `--window W`.
pub(super) fn rotating(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Window(w) = req.shape else {
        return Err(Proposal::Excluded(
            "rotating: a window structure; a static set needs --window".into(),
        ));
    };
    [LAYOUTS[0], LAYOUTS[2]]
        .iter()
        .map(|&layout| {
            let d = design_rotating(&RotatingRequirement::new(req.fp, w, layout)?)?;
            let name = format!("rotating/{} W={w} r={}", layout.name(), d.filters);
            let probes = probes(req.fp);
            let check = move |seed, confidence| {
                let r = base_sim::simulate_rotating(&d, w, (EPOCHS, probes, seed, confidence));
                base_sim::compare(&name, d.fp, &r, confidence, seed)
            };
            Ok(Candidate {
                family: "baseline",
                design: format!("rotating/{}", layout.name()),
                parameters: format!(
                    "r={} g={} m={} k={}",
                    d.filters,
                    d.generation,
                    d.per_filter.params.m(),
                    d.per_filter.params.k()
                ),
                bits: d.bits,
                accesses_insert: d.accesses_insert,
                accesses_query: d.accesses_query_false,
                false_negatives: "none in the window",
                slack: d.slack,
                fp: d.fp,
                fp_kind: "worst case (before rotation)",
                note: "hand-built ring of classic filters, each sized so the union meets fp",
                // Every item of the oldest generation is reported until it is cleared:
                // at the worst moment r·g − W items beyond the window, all with
                // probability 1 (Definition 2 [APBF]).
                npws: Some(d.slack as f64 / w as f64),
                validator: validator((u64::from(d.filters) + 1) * d.generation, check),
            })
        })
        .collect()
}

/// The queue of fingerprints with counts for `--window W`: exact expiry, no slack.
pub(super) fn fingerprint_queue(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Window(w) = req.shape else {
        return Err(Proposal::Excluded(
            "fingerprint-queue: a window structure; a static set needs --window".into(),
        ));
    };
    let d = design_fingerprint_queue(&FingerprintQueueRequirement::new(req.fp, w)?)?;
    let name = format!("fingerprint-queue W={w} b={}", d.fingerprint_bits);
    let probes = probes(req.fp);
    let check = move |seed, confidence| {
        let r = base_sim::simulate_fingerprint_queue(&d, w, (EPOCHS, probes, seed, confidence));
        base_sim::compare(&name, d.fp, &r, confidence, seed)
    };
    Ok(vec![Candidate {
        family: "baseline",
        design: "fingerprint-queue".into(),
        parameters: format!(
            "b={} c={} slots={}",
            d.fingerprint_bits, d.counter_bits, d.slots
        ),
        bits: d.bits,
        accesses_insert: d.accesses_insert,
        accesses_query: d.accesses_query_false,
        false_negatives: "none in the window",
        slack: 0,
        fp: d.fp,
        fp_kind: "worst case (distinct window)",
        note: "exact expiry and counts, no slack; the most bits per item",
        npws: None,
        validator: validator(w + w / 2, check),
    }])
}
