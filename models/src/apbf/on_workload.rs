//! The least-memory APBF for a window on a stream described by its `D(·)`
//! ([`crate::workload::Distinct`]): a measured trace, or any other workload curve.
//!
//! The slices keep the paper's sizing (`g = ⌈W/l⌉`, `m` the smallest slice with
//! `⌊m ln2/k⌋ ≥ g`, Section 5.1 [APBF]); the workload lowers their fills to
//! `1 − (1 − 1/m)^D(n)` ([`ApbfParams::fills_on`]), so a stream that repeats items meets
//! the FP target with more, smaller generations (a larger `l` for the same `k`) and
//! fewer bits per window item.

use super::{query_accesses, report_probability, ApbfDesign, ApbfParams, ApbfRequirement};
use super::{Constraint, DesignMetrics, Structure};
use crate::error::ModelError;
use crate::workload::Distinct;
use std::f64::consts::LN_2;

/// Rows of `l` below the largest feasible one that are also tried for each `k`: the
/// total memory `(k + l)·m` is monotone in `l` only up to the rounding of `g` and `m`.
const ROUNDING_SCAN: u32 = 8;

/// `(k, l)` sized for `req`'s window with its worst-case FP on `workload`.
fn sized(req: &ApbfRequirement, workload: &Distinct, k: u32, l: u32) -> Option<(ApbfParams, f64)> {
    let p = ApbfParams::new(k, l).ok()?.with_window(req.window()).ok()?;
    let fp = p.fp_on(workload).ok()?;
    Some((p, fp))
}

/// The APBF with the least memory whose worst-case FP on `workload`
/// ([`ApbfParams::fp_on`]: `F(k, l, 0, 0)` of Section 5.3 [APBF] over the fills
/// `1 − (1 − 1/m)^D(n)`) is at most `req.fp()`. The requirement's structure must be
/// [`Structure::Apbf`]; its memory, accesses and NPWS budgets are not applied here (the
/// caller compares the design's figures with them).
///
/// # Formula
/// For each `k`, the FP grows with `l` (smaller generations fill their slices to the
/// same level, and more slices give more chances to match), so the largest feasible `l`
/// is found by bisection; the memory `(k + l)·m ≈ k(k + l)W/(l ln2)` then falls with
/// `l`. The search stops at the first `k` whose floor `kW/ln2` exceeds the best memory.
///
/// # Errors
/// A blocked requirement (APBBF: not modelled on a workload);
/// [`ModelError::Infeasible`] when no `(k, l)` meets the target.
///
/// # Example
/// A stream that repeats items needs fewer bits than a distinct one:
/// ```
/// use bfopt_models::apbf::{design, design_on, ApbfRequirement};
/// use bfopt_models::workload::Distinct;
/// let req = ApbfRequirement::new(0.01, 100_000)?;
/// let distinct = design_on(&req, &Distinct::Identity)?;
/// let zipf = design_on(&req, &Distinct::zipf_tabulated(100_000))?;
/// assert!(zipf.metrics.total_bits < distinct.metrics.total_bits);
/// assert!(distinct.metrics.total_bits <= design(&req)?.metrics.total_bits + 64);
/// # Ok::<(), bfopt_models::ModelError>(())
/// ```
pub fn design_on(req: &ApbfRequirement, workload: &Distinct) -> Result<ApbfDesign, ModelError> {
    if req.structure() != Structure::Apbf {
        return Err(ModelError::invalid(
            "structure",
            "apbbf",
            "apbf (the blocked APBF is not modelled on a workload)",
        ));
    }
    let (fp, w) = (req.fp(), req.window());
    let ok = |k: u32, l: u32| sized(req, workload, k, l).filter(|s| s.1 <= fp);
    let l_cap = ApbfRequirement::L_MAX.min(u32::try_from(w).unwrap_or(u32::MAX));
    let mut best: Option<(u64, ApbfParams, f64)> = None;
    for k in 1..=ApbfRequirement::K_MAX {
        if best.is_some_and(|(bits, ..)| f64::from(k) * w as f64 / LN_2 > bits as f64) {
            break;
        }
        if ok(k, 1).is_none() {
            continue;
        }
        // Largest feasible l: `lo` always feasible.
        let (mut lo, mut hi) = (1u32, l_cap);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if ok(k, mid).is_some() {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        for l in lo.saturating_sub(ROUNDING_SCAN).max(1)..=lo {
            if let Some((p, f)) = ok(k, l) {
                let bits = p.total_bits().unwrap_or(u64::MAX);
                if best.is_none_or(|(b, ..)| bits < b) {
                    best = Some((bits, p, f));
                }
            }
        }
    }
    let Some((bits, p, f)) = best else {
        return Err(ModelError::infeasible(
            format!("fp <= {fp} binds (window {w}, on the given workload)"),
            "no (k, l) up to k = 64, l = 4096",
        ));
    };
    let g = p.sizing().map_or(1, |s| s.generation);
    let fills = p.fills_on(g, workload)?;
    let acc = query_accesses(&fills, p.k() as usize, p.l() as usize);
    Ok(ApbfDesign {
        k: p.k(),
        l: p.l(),
        structure: Structure::Apbf,
        metrics: DesignMetrics {
            fp: f,
            total_bits: bits,
            bits_per_item: p.bits_per_item(),
            window: p.window().unwrap_or(w),
            generation: g,
            accesses_false: acc.given_false(),
            accesses_fp: acc.given_true(),
            npws: p.npws(),
        },
        binding: Constraint::Fp,
    })
}

/// Probability that an item inserted `j` generations before the current one is reported
/// just before a shift, on `workload`: [`ApbfParams::report_probability`] with the
/// fills of [`ApbfParams::fills_on`] (Figure 4 [APBF]). 1 for `j <= l`; the background
/// FP on the workload for `j >= k + l`. At any other phase the fills are lower, so this
/// bounds the probability from above.
///
/// # Errors
/// An unsized filter.
pub fn report_probability_on(
    params: &ApbfParams,
    j: u32,
    workload: &Distinct,
) -> Result<f64, ModelError> {
    let g = params.sizing().map_or(1, |s| s.generation);
    let fills = params.fills_on(g, workload)?;
    let k = params.k() as usize;
    let j = j.min(params.k() + params.l()) as usize;
    Ok(report_probability(&fills, k, j..j + k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the distinct stream the search finds the paper-sized optimum of [`super::super::design`]
    /// (or one as small).
    #[test]
    fn identity_workload_matches_the_distinct_design() {
        for (fp, w) in [(0.01, 10_000u64), (0.001, 100_000)] {
            let req = ApbfRequirement::new(fp, w).unwrap();
            let on = design_on(&req, &Distinct::Identity).unwrap();
            let plain = super::super::design(&req).unwrap();
            assert!(on.metrics.fp <= fp);
            assert!(
                on.metrics.total_bits <= plain.metrics.total_bits,
                "{on:?} vs {plain:?}"
            );
        }
    }

    #[test]
    fn report_probability_on_identity_is_the_distinct_one() {
        let p = ApbfParams::new(6, 20).unwrap().with_window(10_000).unwrap();
        for j in [0, 5, 20, 21, 24, 26, 40] {
            let a = report_probability_on(&p, j, &Distinct::Identity).unwrap();
            let b = p.report_probability(j.min(26));
            assert!((a - b).abs() < 1e-12, "j {j}: {a} vs {b}");
        }
        assert_eq!(
            report_probability_on(&p, 3, &Distinct::Identity).unwrap(),
            1.0
        );
    }

    #[test]
    fn blocked_requirement_is_refused_by_name() {
        let req = ApbfRequirement::new(0.01, 1000)
            .unwrap()
            .blocked(512, 8)
            .unwrap();
        let e = design_on(&req, &Distinct::Identity).unwrap_err();
        assert!(e.to_string().contains("structure"), "{e}");
    }
}
