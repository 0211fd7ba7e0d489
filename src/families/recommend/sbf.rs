//! The Stable Bloom filter row of `bfopt recommend --window W --allow-fn RATE`
//! (Section 2.2 [SBF]).

use super::{Candidate, Proposal};
use crate::families::recommend::{Requirement, Shape};
use bfopt_models::stable::{design_decrements, IbfParams, ImportanceDist, Policy, SbfRequirement};

/// Stable Bloom filter (`--window W --allow-fn RATE`, Section 2.2 [SBF]): cells of
/// `⌈log2(Max+1)⌉` bits, `P` random decrements per insertion chosen for the FP target at
/// the stable point. The least memory over `Max ∈ {1, 3, 7}` and `K ≤ 8` whose FN for
/// an item `W` insertions old is at most RATE.
pub(super) fn sbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let (Shape::Window(w), Some(rate)) = (req.shape, req.allow_fn) else {
        return Err(Proposal::Excluded(
            "sbf: forgets by random decrements; needs --window and --allow-fn".into(),
        ));
    };
    let sized = |max: u32, k: u32, m: u64| {
        design_decrements(&SbfRequirement {
            m,
            k,
            max,
            fp: req.fp,
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
    let p = best.params;
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
    Ok(vec![Candidate {
        family: "stable",
        design: "sbf".into(),
        parameters: format!("m={} K={} Max={} P={}", p.m(), p.k(), p.max(), p.p()),
        bits: p.memory_bits(),
        accesses_insert: f64::from(p.k()) + p.p() as f64,
        accesses_query: f64::from(p.k()),
        false_negatives: "yes: FN at age W within --allow-fn",
        slack: 0,
        fp: best.fp,
        fp_kind: "stable point",
        note: "no window bookkeeping: decays on its own; forgets gradually",
        npws: None,
        validator: super::stable::stable_validator(sim_params, w),
    }])
}
