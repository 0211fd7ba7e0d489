//! Sizing a classic filter: `(n, p) → (m, k)`, `(m, n) → k`, `(m, k, p) → n`.

use super::{BlockFpTable, ClassicMetrics, ClassicParams, Layout, EXACT_BUDGET};
use crate::error::{check, ModelError};
use crate::numeric::{first_true, last_true};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// What a classic filter must achieve: FP at most `fp` with `n` distinct items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassicRequirement {
    #[serde(rename = "fp_target")]
    fp: f64,
    n: u64,
    #[serde(flatten)]
    layout: Layout,
    k_max: u32,
}

impl ClassicRequirement {
    /// Default largest hash count considered.
    pub const K_MAX_DEFAULT: u32 = 64;

    /// A requirement: FP at most `fp` (0 < fp < 1) after `n` distinct insertions.
    ///
    /// # Errors
    /// `fp` outside `[1e-300, 1)` ([`check::FP_TARGET_MIN`]); `n` outside [`ClassicParams::N`];
    /// a bad block size.
    pub fn new(fp: f64, n: u64, layout: Layout) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("n", n, ClassicParams::N)?;
        let layout = layout.check()?;
        Ok(Self {
            fp,
            n,
            layout,
            k_max: Self::K_MAX_DEFAULT,
        })
    }

    /// Limits the hash count (fewer memory accesses at the cost of more bits).
    ///
    /// # Errors
    /// `k_max` outside [`ClassicParams::K`].
    pub fn with_k_max(mut self, k_max: u32) -> Result<Self, ModelError> {
        self.k_max = check::in_range("k_max", k_max, ClassicParams::K)?;
        Ok(self)
    }

    /// The FP target.
    pub fn fp(&self) -> f64 {
        self.fp
    }
    /// The item count.
    pub fn n(&self) -> u64 {
        self.n
    }
}

/// A sized classic filter: the parameters, their predicted metrics and what bound them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassicDesign {
    /// The chosen parameters.
    pub params: ClassicParams,
    /// Their predicted metrics (`metrics.fp ≤` the target).
    pub metrics: ClassicMetrics,
    /// The FP target that bound the size.
    pub fp_target: f64,
}

/// Bits are allocated in units of this many bits for a layout and `k`.
fn unit_bits(layout: Layout, k: u32) -> u64 {
    match layout {
        Layout::Standard => 1,
        Layout::Partitioned => u64::from(k),
        Layout::Blocked { block_bits } => block_bits,
    }
}

/// Largest block whose exact table is kept for the rest of the process.
const CACHED_BLOCK_BITS: u64 = 4096;

/// Runs `f` on the exact in-block table of `(block_bits, k)`. Tables of blocks up to
/// [`CACHED_BLOCK_BITS`] are kept for the process, so that repeated designs (the
/// rotating baseline sizes one filter per ring size) build each table once: about 1.2 ms
/// per `k` for 512-bit blocks. A table's entries do not depend on the order in which it
/// grew (its budget check depends only on the load asked for), so caching changes no
/// result. Under a work allowance ([`crate::budget`]) the table is a fresh one, capped at
/// what is left, so what an evaluation pays (and whether it gets the exact law) is its
/// own and not what earlier evaluations in the process grew: a fuzz input reproduces
/// alone.
fn with_block_table<R>(block_bits: u64, k: u32, f: impl FnOnce(&mut BlockFpTable) -> R) -> R {
    type Tables = Mutex<HashMap<(u64, u32), BlockFpTable>>;
    static TABLES: OnceLock<Tables> = OnceLock::new();
    if block_bits > CACHED_BLOCK_BITS || crate::budget::left().is_some() {
        return f(&mut BlockFpTable::new(
            block_bits,
            k,
            crate::budget::cap(EXACT_BUDGET),
        ));
    }
    let mut tables = TABLES
        .get_or_init(Tables::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(tables
        .entry((block_bits, k))
        .or_insert_with(|| BlockFpTable::new(block_bits, k, EXACT_BUDGET)))
}

/// Smallest `m` (a multiple of the layout's unit) with FP ≤ `fp` for this `k`; a
/// blocked layout's load mixtures are paid from the work allowance in force
/// ([`crate::budget`]), whose end is the error.
fn min_bits_for_k(fp: f64, n: u64, k: u32, layout: Layout) -> Result<Option<u64>, ModelError> {
    Ok(match layout {
        Layout::Blocked { block_bits } => return min_blocked_bits_for_k(fp, n, k, block_bits),
        _ => min_unblocked_bits_for_k(fp, n, k, layout),
    })
}

/// [`min_bits_for_k`] of a blocked layout.
fn min_blocked_bits_for_k(
    fp: f64,
    n: u64,
    k: u32,
    block_bits: u64,
) -> Result<Option<u64>, ModelError> {
    let layout = Layout::Blocked { block_bits };
    let unit = unit_bits(layout, k);
    let max_units = ClassicParams::M.end() / unit;
    let lo_units = u64::from(k).div_ceil(unit).max(1);
    if block_bits < u64::from(k) {
        return Ok(None);
    }
    // The exact in-block law does not depend on m or n: one table per (B, k), grown as
    // the searches need; past its budget, fall back to the independent-bits mixture.
    let limit = std::cell::Cell::new(None);
    let found = with_block_table(block_bits, k, |table| {
        let meets = |units: u64| {
            let m = units * unit;
            let walk = super::formulas::blocked_walk_loads(m, block_bits, n);
            if let Err(e) = crate::budget::spend(walk, "the blocked filter's load mixture") {
                // Ends the search; the error is returned below.
                limit.set(Some(e));
                return true;
            }
            let fp_m = table
                .mixture(m, n)
                .unwrap_or_else(|| super::fp_blocked(m, block_bits, k, n));
            fp_m <= fp
        };
        first_true(lo_units, max_units, meets).map(|u| u * unit)
    });
    match limit.take() {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// [`min_bits_for_k`] of the standard and partitioned layouts.
fn min_unblocked_bits_for_k(fp: f64, n: u64, k: u32, layout: Layout) -> Option<u64> {
    let unit = unit_bits(layout, k);
    let max_units = ClassicParams::M.end() / unit;
    let lo_units = u64::from(k).div_ceil(unit).max(1);
    if layout == Layout::Standard {
        // A lower bound: the usual formula never exceeds the exact law (Bose et al.
        // 2008); `design` refines it with [`exact_standard_bits`] where needed.
        let usual = |m: u64| super::fp_standard(m as f64, f64::from(k), n as f64) <= fp;
        return first_true(lo_units, max_units, usual);
    }
    let meets =
        |units: u64| ClassicParams::new(units * unit, k, n, layout).is_ok_and(|p| p.fp() <= fp);
    first_true(lo_units, max_units, meets).map(|u| u * unit)
}

/// Whether `m` bits meet `fp` with `k` hashes and `n` items in the standard layout, by
/// the model FP ([`ClassicParams::fp`]: the exact law where computable); it falls with `m`.
fn meets_exact(fp: f64, n: u64, k: u32) -> impl Fn(u64) -> bool {
    move |m| ClassicParams::new(m, k, n, Layout::Standard).is_ok_and(|p| p.fp() <= fp)
}

/// Smallest `m ≥ from` whose standard-layout model FP ([`ClassicParams::fp`]: the exact
/// law where computable) is at most `fp`, given that `from` is the usual formula's
/// smallest `m` (a lower bound). Gallops up from `from` in steps of `m/4096` (the two
/// laws differ by under 1% in FP, well under 0.5% in `m`), then bisects.
fn exact_standard_bits(fp: f64, n: u64, k: u32, from: u64) -> Option<u64> {
    let meets = meets_exact(fp, n, k);
    if meets(from) {
        return Some(from);
    }
    let max = *ClassicParams::M.end();
    let (mut failing, mut step) = (from, (from / 4096).max(1));
    loop {
        let hi = failing.saturating_add(step).min(max);
        if meets(hi) {
            return first_true(failing + 1, hi, meets);
        }
        if hi == max {
            return None;
        }
        (failing, step) = (hi, step.saturating_mul(2));
    }
}

/// The smallest `m` for which `k` hashes keep the model FP ([`ClassicParams::fp`]: the
/// exact law where computable) of `n` items at most `fp`, or `None` above `2^50` bits.
/// [`design`] minimises it over `k`; families built on a classic filter (counting Bloom
/// filters) size their cells with it.
pub fn min_bits(fp: f64, n: u64, k: u32, layout: Layout) -> Option<u64> {
    // Under a work allowance, a blocked search that ran out of it is `None` too.
    let m = min_bits_for_k(fp, n, k, layout).ok()??;
    if layout == Layout::Standard {
        exact_standard_bits(fp, n, k, m)
    } else {
        Some(m)
    }
}

/// Sizes a filter: the smallest `m` over integer `k ≤ k_max` whose model FP
/// ([`ClassicParams::fp`]) is at most the target; ties go to the smaller `k`. The model
/// FP is the exact law wherever it is computable ([`super::FpLaw`], reported as
/// `metrics.fp_law`): the standard layout at `n = 100`, `fp = 0.01` needs `m = 962`
/// where the usual formula says 960 (whose exact FP is 0.01006).
///
/// # Example
/// ```
/// use bfopt_models::classic::{design, ClassicRequirement, Layout};
/// let d = design(&ClassicRequirement::new(0.01, 1_000_000, Layout::Standard).unwrap()).unwrap();
/// assert_eq!(d.params.k(), 7);
/// assert!(d.metrics.fp <= 0.01);
/// assert_eq!(d.params.m(), 9_592_956); // (1-e^(-kn/m))^k would give 9 585 059
/// ```
/// # Errors
/// [`ModelError::Infeasible`] when no `m ≤ 2^50` meets the target.
pub fn design(req: &ClassicRequirement) -> Result<ClassicDesign, ModelError> {
    // The smallest m over k is unimodal in k (the optimum sits near k = (m/n)·ln 2):
    // stop once it has grown for three k in a row.
    let mut best: Option<(u64, u32)> = None;
    let mut visited: Vec<(u64, u32)> = Vec::new();
    let mut rising = 0;
    for k in 1..=req.k_max {
        let Some(m) = min_bits_for_k(req.fp, req.n, k, req.layout)? else {
            continue;
        };
        visited.push((m, k));
        match best {
            Some((best_m, _)) if m >= best_m => {
                rising += 1;
                if rising == 3 {
                    break;
                }
            }
            _ => {
                best = Some((m, k));
                rising = 0;
            }
        }
    }
    if req.layout == Layout::Standard {
        // `visited` holds the usual formula's sizes, lower bounds of the exact ones:
        // refine in increasing order until the next bound cannot beat the best exact size
        // (ties go to the smaller k).
        visited.sort_unstable();
        best = None;
        for (lower, k) in visited {
            if best.is_some_and(|(best_m, _)| lower > best_m) {
                break;
            }
            let found = match best {
                None => exact_standard_bits(req.fp, req.n, k, lower),
                // Only `m <= best_m` can win, and the FP falls with `m`: one evaluation
                // at `best_m` rules most `k` out, else bisect below it.
                Some((best_m, _)) => first_true(lower, best_m, meets_exact(req.fp, req.n, k)),
            };
            if let Some(m) = found {
                if best.is_none_or(|(best_m, best_k)| (m, k) < (best_m, best_k)) {
                    best = Some((m, k));
                }
            }
        }
    }
    let Some((m, k)) = best else {
        return Err(ModelError::infeasible(
            format!(
                "fp <= {} with n = {}",
                crate::error::show_rate(req.fp),
                req.n
            ),
            format!(
                "no m <= {} bits with k <= {}",
                ClassicParams::M.end(),
                req.k_max
            ),
        ));
    };
    let params = ClassicParams::new(m, k, req.n, req.layout)?;
    Ok(ClassicDesign {
        params,
        metrics: params.metrics(),
        fp_target: req.fp,
    })
}

/// The `k` that minimises the model FP for `m` bits and `n` items, with that FP.
///
/// # Errors
/// Invalid `m`, `n` or layout (see [`ClassicParams::new`]).
pub fn best_k(m: u64, n: u64, layout: Layout) -> Result<(u32, f64), ModelError> {
    ClassicParams::new(m, 1, n, layout)?;
    let k_hi = (*ClassicParams::K.end()).min(u32::try_from(m).unwrap_or(u32::MAX));
    if let Layout::Blocked { block_bits } = layout {
        // One load mixture per k, paid from the work allowance in force.
        let walk = super::formulas::blocked_walk_loads(m, block_bits, n);
        crate::budget::spend(f64::from(k_hi) * walk, "the blocked filter's load mixture")?;
    }
    (1..=k_hi)
        .filter_map(|k| {
            ClassicParams::new(m, k, n, layout)
                .ok()
                .map(|p| (k, p.fp()))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or_else(|| ModelError::invalid("m", m, "m >= 1"))
}

/// The largest `n` for which `m` bits and `k` hashes keep the model FP at most `fp`.
///
/// # Errors
/// Invalid parameters; [`ModelError::Infeasible`] when even one item exceeds `fp`.
pub fn capacity(m: u64, k: u32, fp: f64, layout: Layout) -> Result<u64, ModelError> {
    check::open_probability("fp", fp)?;
    ClassicParams::new(m, k, 1, layout)?;
    let meets = |n: u64| ClassicParams::new(m, k, n, layout).is_ok_and(|p| p.fp() <= fp);
    last_true(1, *ClassicParams::N.end(), meets).ok_or_else(|| {
        let one = ClassicParams::new(m, k, 1, layout)
            .map(|p| p.fp())
            .unwrap_or(1.0);
        ModelError::infeasible(
            format!("fp <= {}", crate::error::show_rate(fp)),
            format!("fp = {one:e} with a single item"),
        )
    })
}
