//! The Stable Bloom filter row for a window with `allow_fn` (Section 2.2 [SBF]).

use super::{ibf, needs_allow_fn, wrong_shape, Family, Proposal};
use crate::candidate::Candidate;
use crate::requirement::Requirement;
use bfopt_models::stable::{cell_bits, design_decrements, SbfDesign, SbfParams, SbfRequirement};
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
    let best = least_memory(req.fp(), w, rate)?.ok_or_else(|| {
        Proposal::Excluded(format!(
            "sbf: no Max <= 7, K <= 8 keeps FN at age {w} within {rate}"
        ))
    })?;
    Ok(vec![row(w, rate, best.params)?])
}

/// The first least-memory SBF in `(Max, K)` order (`Max ∈ {1, 3, 7}`, `K ≤ 8`) meeting
/// `fp` at its stable point with FN at most `rate` for an item `w` insertions old.
///
/// # Errors
/// [`ModelError::WorkLimit`] when a work allowance is in force ([`bfopt_models::budget`])
/// and the sizing needs more than is left: each size tried is charged its bisection of
/// `P` (about 40 stable points of `Max + 1` states) and its FN (`log2 w` squarings of
/// the `(Max + 1)²` chain).
fn least_memory(fp: f64, w: u64, rate: f64) -> Result<Option<SbfDesign>, ModelError> {
    let sized = |max: u32, k: u32, m: u64| -> Result<Option<SbfDesign>, ModelError> {
        let states = f64::from(max) + 1.0;
        let steps = 40.0 * states + 2.0 * states.powi(3) * (w.max(2) as f64).log2();
        bfopt_models::budget::spend(steps, "the SBF row's sizing")?;
        Ok(design_decrements(&SbfRequirement { m, k, max, fp })
            .ok()
            .filter(|d| d.params.fn_at_age(w) <= rate))
    };
    // Each combination's `m` is the bisection of `first_true(64, 2^40, ·)`, stopped once
    // its lower end shows that the result (never below that end) cannot use fewer bits
    // than the best so far: the same design as bisecting every combination to the end
    // (a tenth of the row's CPU on the README's `--importance` examples).
    let mut best: Option<SbfDesign> = None;
    for (max, k) in [1u32, 3, 7]
        .into_iter()
        .flat_map(|max| (1..=8u32).map(move |k| (max, k)))
    {
        let cell_bits = u64::from(cell_bits(max)).max(1);
        // Largest `m` that would beat the best so far (ties go to the earlier design).
        let beats = best
            .as_ref()
            .map(|b| b.params.memory_bits().saturating_sub(1) / cell_bits);
        let (mut lo, mut hi) = (64u64, 1u64 << 40);
        if sized(max, k, hi)?.is_none() {
            continue;
        }
        while lo < hi && beats.is_none_or(|top| lo <= top) {
            let mid = lo + (hi - lo) / 2;
            if sized(max, k, mid)?.is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if beats.is_some_and(|top| lo > top) {
            continue;
        }
        if let Some(d) = sized(max, k, lo)? {
            if best
                .as_ref()
                .is_none_or(|b| d.params.memory_bits() < b.params.memory_bits())
            {
                best = Some(d);
            }
        }
    }
    Ok(best)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// [`least_memory`] without stopping any bisection early: the search it replaced.
    fn exhaustive(fp: f64, w: u64, rate: f64) -> Option<SbfDesign> {
        let sized = |max: u32, k: u32, m: u64| {
            design_decrements(&SbfRequirement { m, k, max, fp })
                .ok()
                .filter(|d| d.params.fn_at_age(w) <= rate)
        };
        [1u32, 3, 7]
            .into_iter()
            .flat_map(|max| (1..=8u32).map(move |k| (max, k)))
            .filter_map(|(max, k)| {
                let m =
                    bfopt_models::numeric::first_true(64, 1 << 40, |m| sized(max, k, m).is_some())?;
                sized(max, k, m)
            })
            .min_by_key(|d| d.params.memory_bits())
    }

    /// Issue 17: under a work allowance the sizing is paid for, and ends in a work
    /// limit naming it rather than running on (the plan fuzz target's largest share).
    #[test]
    fn a_work_allowance_ends_the_sizing_with_a_work_limit() {
        let r =
            bfopt_models::budget::with_allowance(1000.0, || least_memory(0.01, 1_000_000, 0.05));
        assert!(
            matches!(
                r,
                Err(ModelError::WorkLimit {
                    what: "the SBF row's sizing",
                    ..
                })
            ),
            "{r:?}"
        );
        let free = least_memory(0.01, 1_000_000, 0.05).unwrap();
        let paid =
            bfopt_models::budget::with_allowance(1e12, || least_memory(0.01, 1_000_000, 0.05));
        assert_eq!(paid.unwrap().map(|d| d.params), free.map(|d| d.params));
    }

    #[test]
    fn least_memory_equals_the_full_bisections() {
        for (fp, w, rate) in [
            (0.05, 100_000, 0.1),
            (0.05, 2000, 0.1),
            (0.01, 1_000_000, 0.05),
            (0.2, 300, 0.3),
            (1e-3, 50_000, 0.01),
        ] {
            let got = least_memory(fp, w, rate).unwrap().map(|d| d.params);
            let want = exhaustive(fp, w, rate).map(|d| d.params);
            assert_eq!(got, want, "fp {fp} W {w} rate {rate}");
        }
    }
}
