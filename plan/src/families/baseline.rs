//! The hand-built sliding-window baselines: a rotating ring of classic filters and a
//! fingerprint queue.

use super::classic::{access_unit, block_bits, LAYOUTS};
use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::Requirement;
use bfopt_models::baseline::{
    fingerprint_queue::design_fingerprint_queue, rotating::design_rotating_ring,
    FingerprintQueueDesign, FingerprintQueueRequirement, RotatingDesign, RotatingRequirement,
};
use bfopt_models::classic::Layout;
use bfopt_validation::experiments::baseline as base_sim;

/// The registry entry of the ring.
pub(super) const ROTATING: Family = Family {
    name: "rotating",
    propose: rotating,
};

/// The registry entry of the queue.
pub(super) const FINGERPRINT_QUEUE: Family = Family {
    name: "fingerprint-queue",
    propose: fingerprint_queue,
};

/// The ring of classic filters (standard and blocked) for a window.
fn rotating(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Some(w) = req.window_insertions() else {
        return Err(wrong_shape("rotating", "a sliding window", req));
    };
    if req.budgets().max_npws == Some(0.0) {
        return Err(Proposal::Excluded(
            "rotating: reports every item of its oldest filter past the window (peak NPWS > 0)"
                .into(),
        ));
    }
    [LAYOUTS[0], LAYOUTS[2]]
        .iter()
        .map(|&layout| {
            let d = design_rotating_ring(&RotatingRequirement::new(req.fp(), w, layout)?)?;
            Ok(rotating_row(req.fp(), w, layout, d))
        })
        .collect()
}

/// The candidate row of ring `d` (of `layout` filters) over a window of `w` insertions
/// against an FP target `fp` (which sizes the simulation's probes), with its simulation.
pub(crate) fn rotating_row(fp: f64, w: u64, layout: Layout, d: RotatingDesign) -> Candidate {
    let name = format!("rotating/{} W={w} r={}", layout.name(), d.filters);
    let probes = probes(fp);
    let check = move |run: SimRun| {
        let r = base_sim::simulate_rotating(
            &d,
            w,
            (super::epochs(run), probes, run.seed, run.confidence),
        );
        base_sim::compare(&name, d.fp, &r, run.confidence, run.seed)
    };
    let (validator, not_simulated) =
        simulation(validator((u64::from(d.filters) + 1) * d.generation, check));
    Candidate {
        family: "baseline",
        design: format!("rotating/{}", layout.name()),
        params: Params::Rotating {
            r: d.filters,
            g: d.generation,
            m: d.per_filter.params.m(),
            k: d.per_filter.params.k(),
            block_bits: block_bits(layout),
        },
        bits: d.bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: d.accesses_insert,
        accesses_query: d.accesses_query_false,
        access_unit: access_unit(layout),
        false_negatives: FalseNegatives::NoneInWindow,
        slack: d.slack,
        // Every item of the oldest generation is reported until it is cleared:
        // at the worst moment r·g − W items beyond the window, all with
        // probability 1 (Definition 2 [APBF]).
        npws: Some(d.slack as f64 / w as f64),
        fp: d.fp,
        fp_kind: FpKind::WorstCase,
        notes: vec![format!(
            "hand-built ring of {} classic filters, each sized so that their union meets fp",
            d.filters
        )],
        not_simulated,
        validator,
    }
}

/// The queue of fingerprints with counts for a window: exact expiry, no slack.
fn fingerprint_queue(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Some(w) = req.window_insertions() else {
        return Err(wrong_shape("fingerprint-queue", "a sliding window", req));
    };
    let d = design_fingerprint_queue(&FingerprintQueueRequirement::new(req.fp(), w)?)?;
    Ok(vec![queue_row(req.fp(), w, d)])
}

/// The candidate row of queue `d` over a window of `w` insertions against an FP target
/// `fp` (which sizes the simulation's probes), with its simulation.
pub(crate) fn queue_row(fp: f64, w: u64, d: FingerprintQueueDesign) -> Candidate {
    let name = format!("fingerprint-queue W={w} b={}", d.fingerprint_bits);
    let probes = probes(fp);
    let check = move |run: SimRun| {
        let r = base_sim::simulate_fingerprint_queue(
            &d,
            w,
            (super::epochs(run), probes, run.seed, run.confidence),
        );
        base_sim::compare(&name, d.fp, &r, run.confidence, run.seed)
    };
    let (validator, not_simulated) = simulation(validator(w + w / 2, check));
    Candidate {
        family: "baseline",
        design: "fingerprint-queue".into(),
        params: Params::FingerprintQueue {
            fingerprint_bits: d.fingerprint_bits,
            counter_bits: d.counter_bits,
            slots: d.slots,
        },
        bits: d.bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: d.accesses_insert,
        accesses_query: d.accesses_query_false,
        access_unit: AccessUnit::CacheLines,
        false_negatives: FalseNegatives::NoneInWindow,
        slack: 0,
        npws: Some(0.0),
        fp: d.fp,
        fp_kind: FpKind::WorstCase,
        notes: vec!["exact expiry and counts, no slack; the most bits per item".into()],
        not_simulated,
        validator,
    }
}
