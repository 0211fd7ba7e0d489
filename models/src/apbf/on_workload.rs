//! The least-memory APBF (or APBBF) for a window on a stream described by its `D(·)`
//! ([`crate::workload::Distinct`]): a measured trace, or any other workload curve.
//!
//! The slices keep the paper's sizing (`g = ⌈W/l⌉`, `m` the smallest slice with
//! `⌊m ln2/k⌋ ≥ g`, Section 5.1 [APBF]); the workload lowers their fills to
//! `1 − (1 − 1/m)^D(n)` ([`ApbfParams::fills_on`]), so a stream that repeats items meets
//! the FP target with more, smaller generations (a larger `l` for the same `k`) and
//! fewer bits per window item. The APBBF's segments keep their block sizing
//! ([`ApbbfParams::with_window`]) and hold the `D(n)` distinct items of their run
//! ([`ApbbfParams::segments_on`]).

use super::ApbfRequirement;
use super::{query_accesses, report_probability, ApbbfParams, ApbfDesign, ApbfParams};
use super::{Constraint, DesignMetrics, Structure};
use crate::error::ModelError;
use crate::workload::Distinct;
use std::f64::consts::LN_2;

/// Rows of `l` below the largest feasible one that are also tried for each `k`: the
/// total memory `(k + l)·m` is monotone in `l` only up to the rounding of `g` and `m`.
const ROUNDING_SCAN: u32 = 8;

/// `(k, l)` of `req`'s structure sized for its window: its total bits and its
/// worst-case FP on `workload` ([`ApbfParams::fp_on`], [`ApbbfParams::fp_on`]).
fn sized(req: &ApbfRequirement, workload: &Distinct, k: u32, l: u32) -> Option<(u64, f64)> {
    let w = req.window();
    match req.structure() {
        Structure::Apbf => {
            let p = ApbfParams::new(k, l).ok()?.with_window(w).ok()?;
            Some((p.total_bits()?, p.fp_on(workload).ok()?))
        }
        Structure::Apbbf {
            block_bits,
            block_hashes,
        } => {
            let p = ApbbfParams::new(k, l, block_bits, block_hashes)
                .ok()?
                .with_window(w)
                .ok()?;
            Some((p.total_bits()?, p.fp_on(workload).ok()?))
        }
    }
}

/// The APBF (or APBBF) with the least memory whose worst-case FP on `workload`
/// ([`ApbfParams::fp_on`]: `F(k, l, 0, 0)` of Section 5.3 [APBF] over the fills
/// `1 − (1 − 1/m)^D(n)`; for a blocked requirement [`ApbbfParams::fp_on`], the block
/// loads of `D(n)` distinct items, Section 6 [APBF]) is at most `req.fp()`. The
/// requirement's memory, accesses and NPWS budgets are not applied here (the caller
/// compares the design's figures with them).
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
    let (fp, w) = (req.fp(), req.window());
    let ok = |k: u32, l: u32| sized(req, workload, k, l).filter(|s| s.1 <= fp);
    let l_cap = ApbfRequirement::L_MAX.min(u32::try_from(w).unwrap_or(u32::MAX));
    let mut best: Option<(u64, u32, u32, f64)> = None;
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
            if let Some((bits, f)) = ok(k, l) {
                if best.is_none_or(|(b, ..)| bits < b) {
                    best = Some((bits, k, l, f));
                }
            }
        }
    }
    let Some((bits, k, l, f)) = best else {
        return Err(ModelError::infeasible(
            format!("fp <= {fp} binds (window {w}, on the given workload)"),
            "no (k, l) up to k = 64, l = 4096",
        ));
    };
    let (ku, lu) = (k as usize, l as usize);
    let (segments, window, generation, bits_per_item, npws) = match req.structure() {
        Structure::Apbf => {
            let p = ApbfParams::new(k, l)?.with_window(w)?;
            let g = p.sizing().map_or(1, |s| s.generation);
            let window = p.window().unwrap_or(w);
            (
                p.fills_on(g, workload)?,
                window,
                g,
                p.bits_per_item(),
                p.npws(),
            )
        }
        Structure::Apbbf {
            block_bits,
            block_hashes,
        } => {
            let p = ApbbfParams::new(k, l, block_bits, block_hashes)?.with_window(w)?;
            let g = p.sizing().map_or(1, |s| s.generation);
            let window = p.window().unwrap_or(w);
            (
                p.segments_on(workload)?,
                window,
                g,
                p.bits_per_item(),
                p.npws(),
            )
        }
    };
    let acc = query_accesses(&segments, ku, lu);
    Ok(ApbfDesign {
        k,
        l,
        structure: req.structure(),
        metrics: DesignMetrics {
            fp: f,
            total_bits: bits,
            bits_per_item,
            window,
            generation,
            accesses_false: acc.given_false(),
            accesses_fp: acc.given_true(),
            npws,
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

    /// The blocked search: on the distinct stream its FP model is the sized filter's
    /// ([`ApbbfParams::segments_on`] equals [`ApbbfParams::segments_real`]) and it needs
    /// no more memory than the distinct-stream design; on a Zipf stream it needs less.
    #[test]
    fn blocked_design_on_a_workload() {
        let req = ApbfRequirement::new(0.01, 100_000)
            .unwrap()
            .blocked(512, 8)
            .unwrap();
        let on = design_on(&req, &Distinct::Identity).unwrap();
        let plain = super::super::design(&req).unwrap();
        assert!(on.metrics.fp <= 0.01);
        assert!(
            on.metrics.total_bits <= plain.metrics.total_bits,
            "{on:?} vs {plain:?}"
        );
        let zipf = design_on(&req, &Distinct::zipf_tabulated(100_000)).unwrap();
        assert!(zipf.metrics.fp <= 0.01);
        assert!(zipf.metrics.total_bits < on.metrics.total_bits, "{zipf:?}");
        let p = ApbbfParams::new(on.k, on.l, 512, 8)
            .unwrap()
            .with_window(100_000)
            .unwrap();
        let (a, b) = (
            p.segments_on(&Distinct::Identity).unwrap(),
            p.segments_real(),
        );
        assert_eq!(a, b);
        assert_eq!(
            p.report_probability_on(on.l, &Distinct::Identity).unwrap(),
            1.0
        );
        let gone = p
            .report_probability_on(on.k + on.l, &Distinct::Identity)
            .unwrap();
        assert!(
            (gone - p.fp()).abs() <= 1e-12 * p.fp(),
            "{gone} vs {}",
            p.fp()
        );
    }
}
