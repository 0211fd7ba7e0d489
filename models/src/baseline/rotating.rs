//! Rotating classic filters for a sliding window (Section 3 [APBF], "a sequence of plain
//! BFs, one per generation").
//!
//! `r ≥ 2` filters, each holding one generation of `g = ⌈W/(r−1)⌉` insertions. Insertions
//! go to the newest filter; when it holds `g` items the oldest is cleared and becomes the
//! newest. A query ORs all `r` filters. The `r − 1` older filters always hold the last
//! `(r−1)·g ≥ W` insertions, so nothing in the window is missed; up to `g` older items
//! are still reported (the slack).
//!
//! # FP of the union
//! Just before a rotation every filter holds `g` items; the filters are independent, so
//! ```text
//! FP_union = 1 − (1 − f)^r,   f = FP of one filter with g items
//! ```
//! To meet a target `P`, each filter needs `f ≤ 1 − (1 − P)^(1/r)` ≈ `P/r`. Sizing each
//! filter at `P` (a common mistake) gives a union FP of about `r·P`; the design reports
//! that figure as `fp_if_each_sized_at_target`.

use crate::classic::{design, ClassicDesign, ClassicRequirement, Layout};
use crate::error::{check, ModelError};
use crate::workload::Distinct;
use serde::Serialize;
use std::ops::RangeInclusive;

/// A window requirement for rotating classic filters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RotatingRequirement {
    #[serde(rename = "fp_target")]
    fp: f64,
    window: u64,
    #[serde(flatten)]
    layout: Layout,
    max_filters: u32,
}

impl RotatingRequirement {
    /// Allowed window sizes.
    pub const WINDOW: RangeInclusive<u64> = 1..=(1 << 50);
    /// Allowed filter counts.
    pub const FILTERS: RangeInclusive<u32> = 2..=64;
    /// Filter counts the search tries by default (more filters mean less slack but more
    /// accesses per query).
    pub const MAX_FILTERS_DEFAULT: u32 = 16;

    /// FP at most `fp` (0 < fp < 1) over a window of the last `window` insertions.
    ///
    /// # Errors
    /// `fp` outside (0, 1), `window` outside [`Self::WINDOW`], a bad block size.
    pub fn new(fp: f64, window: u64, layout: Layout) -> Result<Self, ModelError> {
        check::open_probability("fp", fp)?;
        check::in_range("window", window, Self::WINDOW)?;
        // Validates the layout with the classic rules.
        ClassicRequirement::new(fp, window, layout)?;
        Ok(Self {
            fp,
            window,
            layout,
            max_filters: Self::MAX_FILTERS_DEFAULT,
        })
    }

    /// Limits the search to at most `max_filters` filters.
    ///
    /// # Errors
    /// `max_filters` outside [`Self::FILTERS`].
    pub fn with_max_filters(mut self, max_filters: u32) -> Result<Self, ModelError> {
        self.max_filters = check::in_range("max_filters", max_filters, Self::FILTERS)?;
        Ok(self)
    }

    /// Sizes `r` filters for this window: generation `⌈W/(r−1)⌉`, per-filter target
    /// `1 − (1 − P)^(1/r)`; also sizes the naive ring (each filter at `P`) to report
    /// its union FP.
    ///
    /// # Errors
    /// `r` outside [`Self::FILTERS`]; [`ModelError::Infeasible`] when a filter cannot
    /// be sized.
    pub fn design_with(&self, filters: u32) -> Result<RotatingDesign, ModelError> {
        self.design_with_on(filters, &Distinct::Identity)
    }

    /// [`Self::design_with`] on a stream with `D(·)` ([`crate::workload`]): each filter
    /// holds the `⌈D(g)⌉` distinct items of its generation of `g` insertions (a repeat sets
    /// the bits its earlier occurrence in the same generation set).
    ///
    /// # Errors
    /// As [`Self::design_with`].
    pub fn design_with_on(
        &self,
        filters: u32,
        workload: &Distinct,
    ) -> Result<RotatingDesign, ModelError> {
        let mut d = self.size_on(filters, workload)?;
        d.fp_if_each_sized_at_target = self.naive_fp(&d);
        Ok(d)
    }

    /// The union FP of ring `d` had each of its filters been sized at the target itself
    /// (`None` if such a filter cannot be sized).
    fn naive_fp(&self, d: &RotatingDesign) -> Option<f64> {
        ClassicRequirement::new(self.fp, d.per_filter.params.n(), self.layout)
            .and_then(|req| design(&req))
            .map(|n| union_fp(n.metrics.fp, d.filters))
            .ok()
    }

    /// [`Self::design_with_on`] without the naive comparison.
    fn size_on(&self, filters: u32, workload: &Distinct) -> Result<RotatingDesign, ModelError> {
        check::in_range("filters", filters, Self::FILTERS)?;
        let r = f64::from(filters);
        let generation = self.window.div_ceil(u64::from(filters - 1));
        let held = distinct_in(workload, generation);
        let per_filter_fp = -((-self.fp).ln_1p() / r).exp_m1();
        if per_filter_fp < check::FP_TARGET_MIN {
            // Issue 17: not an invalid input (the user's target is supported) but a ring
            // this size cannot be sized to it.
            return Err(ModelError::infeasible(
                format!(
                    "per-filter fp {per_filter_fp:e} with {filters} filters (the smallest supported target is {:e})",
                    check::FP_TARGET_MIN
                ),
                format!("fp >= {:e} for a ring of {filters}", check::FP_TARGET_MIN * r),
            ));
        }
        let sub = design(&ClassicRequirement::new(per_filter_fp, held, self.layout)?)?;
        Ok(RotatingDesign::ring_of(
            filters,
            sub,
            generation,
            self.window,
        ))
    }
}

/// Rotating filters sized for a window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RotatingDesign {
    /// Filters in the ring `r`.
    pub filters: u32,
    /// Insertions per generation `g = ⌈W/(r−1)⌉`.
    pub generation: u64,
    /// One filter, sized for `g` items at the per-filter target.
    pub per_filter: ClassicDesign,
    /// Total bits `r·m`.
    pub bits: u64,
    /// Bits per window item.
    pub bits_per_item: f64,
    /// Worst-case FP of the union, just before a rotation: `1 − (1 − f)^r`.
    pub fp: f64,
    /// The union FP had each filter been sized at the target itself.
    pub fp_if_each_sized_at_target: Option<f64>,
    /// Older insertions still reported at the worst moment: `r·g − W`.
    pub slack: u64,
    /// Memory accesses per insertion (one filter).
    pub accesses_insert: f64,
    /// Expected accesses of a query that returns false (all `r` filters probed).
    pub accesses_query_false: f64,
    /// 64-bit words cleared per insertion, amortised over a generation.
    pub clear_words_per_insert: f64,
}

impl RotatingDesign {
    /// The figures of a given ring: `filters` filters, each the classic filter
    /// `per_filter` holding one generation of `per_filter.params.n()` insertions, over a
    /// window of `window` insertions. The ring misses window items when
    /// `(r − 1)·g < W` (the caller checks); the slack is then 0.
    pub fn ring(filters: u32, per_filter: ClassicDesign, window: u64) -> Self {
        Self::ring_of(filters, per_filter, per_filter.params.n(), window)
    }

    /// [`Self::ring`] with generations of `generation` insertions, of which `per_filter`
    /// holds `per_filter.params.n()` distinct items (fewer than `generation` when the
    /// stream repeats).
    pub fn ring_of(filters: u32, per_filter: ClassicDesign, generation: u64, window: u64) -> Self {
        let bits = per_filter.params.m() * u64::from(filters);
        Self {
            filters,
            generation,
            per_filter,
            bits,
            bits_per_item: bits as f64 / window as f64,
            fp: union_fp(per_filter.metrics.fp, filters),
            fp_if_each_sized_at_target: None,
            slack: (generation * u64::from(filters)).saturating_sub(window),
            accesses_insert: per_filter.metrics.accesses_insert,
            accesses_query_false: f64::from(filters) * per_filter.metrics.accesses_query_false,
            clear_words_per_insert: per_filter.params.m().div_ceil(64) as f64 / generation as f64,
        }
    }
}

/// `⌈D(g)⌉` clamped to `1..=g`: the distinct items a generation of `g` insertions holds.
fn distinct_in(workload: &Distinct, generation: u64) -> u64 {
    (workload.d(generation as f64).ceil() as u64).clamp(1, generation.max(1))
}

/// `1 − (1 − f)^r`, the FP of `r` independent filters of FP `f` queried together.
fn union_fp(f: f64, filters: u32) -> f64 {
    -(f64::from(filters) * (-f).ln_1p()).exp_m1()
}

/// The ring size with the fewest bits (ties to fewer filters, fewer accesses).
///
/// Total bits `≈ r/(r−1) · W · log2(r/P)/ln 2` fall then rise with `r`; the search stops
/// once they have grown for two ring sizes in a row.
///
/// # Errors
/// [`ModelError::Infeasible`] when no ring size can be sized.
pub fn design_rotating(req: &RotatingRequirement) -> Result<RotatingDesign, ModelError> {
    design_rotating_on(req, &Distinct::Identity)
}

/// [`design_rotating`] on a stream with `D(·)` ([`crate::workload`]): every ring size
/// sized by [`RotatingRequirement::design_with_on`].
///
/// # Errors
/// [`ModelError::Infeasible`] when no ring size can be sized.
pub fn design_rotating_on(
    req: &RotatingRequirement,
    workload: &Distinct,
) -> Result<RotatingDesign, ModelError> {
    let mut d = best_ring(req, workload)?;
    d.fp_if_each_sized_at_target = req.naive_fp(&d);
    Ok(d)
}

/// [`design_rotating`] without the naive ring's figure (`fp_if_each_sized_at_target` is
/// `None`): the same ring, one classic design fewer (the capacity planner's, which does
/// not report it).
///
/// # Errors
/// As [`design_rotating`].
pub fn design_rotating_ring(req: &RotatingRequirement) -> Result<RotatingDesign, ModelError> {
    best_ring(req, &Distinct::Identity)
}

/// The search of [`design_rotating_on`]; each ring size sized once.
fn best_ring(req: &RotatingRequirement, workload: &Distinct) -> Result<RotatingDesign, ModelError> {
    let mut best: Option<RotatingDesign> = None;
    let mut last_err = None;
    let mut worse = 0;
    for r in *RotatingRequirement::FILTERS.start()..=req.max_filters {
        match req.size_on(r, workload) {
            Ok(d) if best.is_none_or(|b| d.bits < b.bits) => {
                best = Some(d);
                worse = 0;
            }
            Ok(_) => worse += 1,
            Err(e) => last_err = Some(e),
        }
        if worse == 2 {
            break;
        }
    }
    match best {
        Some(d) => Ok(d),
        None => {
            Err(last_err.unwrap_or_else(|| ModelError::infeasible("window", "no ring size fits")))
        }
    }
}
