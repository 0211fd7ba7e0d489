//! The Stable Bloom filter row for a window with `allow_fn` (Section 2.2 [SBF]).

use super::{needs_allow_fn, simulation, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params};
use crate::requirement::Requirement;
use bfopt_models::stable::{
    design_decrements, IbfParams, ImportanceDist, Policy, SbfParams, SbfRequirement,
};
use bfopt_models::ModelError;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "sbf",
    propose: sbf,
};

/// Stable Bloom filter (Section 2.2 [SBF]): cells of `⌈log2(Max+1)⌉` bits, `P` random
/// decrements per insertion chosen for the FP target at the stable point. The least
/// memory over `Max ∈ {1, 3, 7}` and `K ≤ 8` whose FN for an item `W` insertions old is
/// at most `allow_fn`.
fn sbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Some(w) = req.window_insertions() else {
        return Err(wrong_shape("sbf", "a sliding window", req));
    };
    let Some(rate) = req.allow_fn() else {
        return Err(needs_allow_fn("sbf", "by random decrements"));
    };
    let sized = |max: u32, k: u32, m: u64| {
        design_decrements(&SbfRequirement {
            m,
            k,
            max,
            fp: req.fp(),
        })
        .ok()
        .filter(|d| d.params.fn_at_age(w) <= rate)
    };
    let best = [1u32, 3, 7]
        .into_iter()
        .flat_map(|max| (1..=8u32).map(move |k| (max, k)))
        .filter_map(|(max, k)| {
            let m = bfopt_models::numeric::first_true(64, 1 << 40, |m| sized(max, k, m).is_some())?;
            sized(max, k, m)
        })
        .min_by_key(|d| d.params.memory_bits())
        .ok_or_else(|| {
            Proposal::Excluded(format!(
                "sbf: no Max <= 7, K <= 8 keeps FN at age {w} within {rate}"
            ))
        })?;
    Ok(vec![row(w, rate, best.params)?])
}

/// The candidate row of SBF `p` (stable-point FP) over a window of `w` insertions, with
/// the forgetting allowance `rate` it is admitted under, and its simulation.
///
/// # Errors
/// Parameters the reference filter rejects.
pub(crate) fn row(w: u64, rate: f64, p: SbfParams) -> Result<Candidate, ModelError> {
    // The reference SBF from its warm-up to the stable point, then 2·W measured
    // insertions: probe FP and the FN of the item inserted W insertions earlier.
    let sim_params = IbfParams::new(
        Policy::Sbf,
        p.m(),
        p.k(),
        p.max(),
        p.p(),
        ImportanceDist::linear(1, 1)?,
    )?;
    let (validator, not_simulated) = simulation(super::ibf::stable_validator(sim_params, w));
    Ok(Candidate {
        family: "stable",
        design: "sbf".into(),
        params: Params::Stable {
            m: p.m(),
            k: p.k(),
            max: p.max(),
            decrements: p.p(),
            counter_bits: None,
        },
        bits: p.memory_bits(),
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: f64::from(p.k()) + p.p() as f64,
        accesses_query: f64::from(p.k()),
        access_unit: AccessUnit::BitProbes,
        false_negatives: FalseNegatives::AtMost {
            rate,
            of: "FN of an item W insertions old",
        },
        slack: 0,
        npws: None,
        fp: p.fp(),
        fp_kind: FpKind::StablePoint,
        notes: vec!["no window bookkeeping: decays on its own; forgets gradually".into()],
        not_simulated,
        validator,
    })
}
