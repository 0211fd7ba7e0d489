//! The Stable Bloom filter row for a window with `allow_fn` (Section 2.2 [SBF]).

use super::{ibf, needs_allow_fn, wrong_shape, Family, Proposal};
use crate::candidate::Candidate;
use crate::requirement::Requirement;
use bfopt_models::stable::{design_decrements, SbfParams, SbfRequirement};
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

/// The candidate row of SBF `p` (stable-point FP [`SbfParams::fp`]) over a window of `w`
/// insertions, with the forgetting allowance `rate` it is admitted under, and its
/// simulation: the importance-aware row of the policy [`bfopt_models::stable::Policy::Sbf`] ([`ibf::row`]).
///
/// # Errors
/// Parameters the reference filter rejects.
pub(crate) fn row(w: u64, rate: f64, p: SbfParams) -> Result<Candidate, ModelError> {
    let as_policy = p.as_policy()?;
    Ok(ibf::row(&as_policy, p.fp(), w, rate))
}
