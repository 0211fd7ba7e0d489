//! Choosing `(k, l)` for a sliding-window requirement (issue 3).
//!
//! Published APBF ports take `k = ⌈log2(1/p)⌉` and the largest `l` whose FP meets `p`
//! (p = 0.01 → (7, 4)). That is one point of a larger space: for a fixed `l`, memory,
//! accesses and NPWS all grow with `k` while the FP falls, and for a fixed `k`, memory
//! and NPWS fall with `l` while FP and accesses grow. [`design`] returns the design
//! with the least memory that meets every constraint; [`pareto`] the non-dominated
//! designs over (memory, accesses, NPWS).
//!
//! Every candidate is sized for the window (`g = ⌈w/l⌉`, smallest slice with
//! `⌊m ln2/k⌋ ≥ g`) and judged by the FP of the *real* filter at that size
//! ([`ApbfParams::fp`], [`ApbbfParams::fp`]), never by the paper's chord fills.
//!
//! With [`ApbfRequirement::with_duplicates`] (insertions repeat an item of the window
//! at a given rate, [`super::duplicates`]) an APBF is judged by its FP under repeats
//! instead; the slices keep the half-fill size `m = ⌈g·k/ln2⌉`, so the savings come
//! from a smaller `k` and `l` only (shrinking `m` for repeats is not searched). At
//! fp = 1%, w = 10^6 the least memory per window item falls from 19.70 bits (no
//! repeats) to 19.16, 17.17, 12.37 and 7.57 bits at repeat rates 0.2, 0.5, 0.8, 0.95.
//!
//! "Accesses" is the larger of the expected accesses of a non-member query that
//! returns false and of one that returns true (Algorithm 1 [APBF], real fills); a
//! window item's query costs a little more than a false positive's (0.2-0.8 more over
//! Table 2 [APBF]; both are at least `k`).

use super::recursion::consecutive_match_prefixes_upto;
use super::{blocked::ApbbfParams, npws_formula, ApbfParams, WindowDuplicates};
use crate::error::{check, show_rate, ModelError};
use crate::numeric::{first_true, last_true};
use serde::Serialize;

/// Which structure to size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "structure", rename_all = "snake_case")]
pub enum Structure {
    /// APBF: one slice per segment.
    Apbf,
    /// APBBF: blocked segments.
    Apbbf {
        /// Block size `B` (bits).
        block_bits: u32,
        /// Bits set per block `b`.
        block_hashes: u32,
    },
}

/// A constraint of an [`ApbfRequirement`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Constraint {
    /// The FP target.
    Fp,
    /// The memory budget.
    Memory,
    /// The bound on expected accesses per query.
    Accesses,
    /// The bound on peak NPWS.
    Npws,
}

impl std::fmt::Display for Constraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Constraint::Fp => "fp",
            Constraint::Memory => "memory",
            Constraint::Accesses => "max_accesses",
            Constraint::Npws => "max_npws",
        })
    }
}

/// What a sliding-window filter must achieve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ApbfRequirement {
    #[serde(rename = "fp_target")]
    fp: f64,
    window: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_accesses: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_npws: Option<f64>,
    /// Repeat rate of the stream (APBF only; see [`super::duplicates`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    duplicate_rate: Option<f64>,
    #[serde(flatten)]
    structure: Structure,
}

impl ApbfRequirement {
    /// Largest `k` considered.
    pub const K_MAX: u32 = 64;
    /// Largest `l` considered.
    pub const L_MAX: u32 = 4096;

    /// FP at most `fp` for the last `window` insertions.
    ///
    /// # Errors
    /// `fp` outside `[1e-300, 1)` ([`check::FP_TARGET_MIN`]); `window` outside [`ApbfParams::W`].
    pub fn new(fp: f64, window: u64) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("window", window, ApbfParams::W)?;
        Ok(Self {
            fp,
            window,
            memory: None,
            max_accesses: None,
            max_npws: None,
            duplicate_rate: None,
            structure: Structure::Apbf,
        })
    }

    /// Insertions repeat an item of the last `window` with probability `rate`
    /// ([`super::duplicates`]): an APBF is then judged by
    /// [`ApbfParams::fp_duplicates`]. An APBBF is still judged on a distinct stream
    /// (not modelled with repeats; repeats only lower its fills, so it stays
    /// conservative).
    ///
    /// # Errors
    /// `rate` outside `[0, 1)`.
    pub fn with_duplicates(mut self, rate: f64) -> Result<Self, ModelError> {
        WindowDuplicates::new(rate, self.window)?;
        self.duplicate_rate = Some(rate);
        Ok(self)
    }

    /// The repeats model of the stream, if one was given.
    pub fn duplicates(&self) -> Option<WindowDuplicates> {
        self.duplicate_rate
            .and_then(|d| WindowDuplicates::new(d, self.window).ok())
    }

    /// A memory budget in bits.
    ///
    /// # Errors
    /// `memory = 0`.
    pub fn with_memory(mut self, bits: u64) -> Result<Self, ModelError> {
        check::in_range("memory", bits, 1..=u64::MAX)?;
        self.memory = Some(bits);
        Ok(self)
    }

    /// A bound on the expected accesses per query (≥ 1).
    ///
    /// # Errors
    /// Not finite or below 1.
    pub fn with_max_accesses(mut self, a: f64) -> Result<Self, ModelError> {
        if !(a >= 1.0 && a.is_finite()) {
            return Err(ModelError::invalid(
                "max_accesses",
                a,
                "1 <= max_accesses < inf",
            ));
        }
        self.max_accesses = Some(a);
        Ok(self)
    }

    /// A bound on the peak NPWS (Section 5.2 [APBF]).
    ///
    /// # Errors
    /// Not positive and finite.
    pub fn with_max_npws(mut self, x: f64) -> Result<Self, ModelError> {
        self.max_npws = Some(check::positive_finite("max_npws", x)?);
        Ok(self)
    }

    /// Size an APBBF instead.
    ///
    /// # Errors
    /// An invalid block (see [`ApbbfParams::new`]).
    pub fn blocked(mut self, block_bits: u32, block_hashes: u32) -> Result<Self, ModelError> {
        ApbbfParams::new(1, 1, block_bits, block_hashes)?;
        self.structure = Structure::Apbbf {
            block_bits,
            block_hashes,
        };
        Ok(self)
    }

    /// The FP target.
    pub fn fp(&self) -> f64 {
        self.fp
    }
    /// The window.
    pub fn window(&self) -> u64 {
        self.window
    }
    /// The structure.
    pub fn structure(&self) -> Structure {
        self.structure
    }
}

/// Predicted figures of a candidate design.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DesignMetrics {
    /// Worst-case FP of the real filter at its size.
    pub fp: f64,
    /// Total bits.
    pub total_bits: u64,
    /// Bits per window item.
    pub bits_per_item: f64,
    /// Window `l·g` (at least the required one).
    pub window: u64,
    /// Insertions per generation.
    pub generation: u64,
    /// Expected accesses of a non-member query returning false.
    pub accesses_false: f64,
    /// Expected accesses of a false positive.
    pub accesses_fp: f64,
    /// Peak NPWS (Section 5.2's formula).
    pub npws: f64,
}

impl DesignMetrics {
    /// The accesses objective: `max(accesses_false, accesses_fp)`.
    pub fn accesses(&self) -> f64 {
        self.accesses_false.max(self.accesses_fp)
    }
}

/// A chosen `(k, l)` with its predicted figures and the constraint that bound it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ApbfDesign {
    /// Segments written per insertion.
    pub k: u32,
    /// Extra segments.
    pub l: u32,
    /// The structure.
    #[serde(flatten)]
    pub structure: Structure,
    /// Predicted figures.
    pub metrics: DesignMetrics,
    /// What stopped `l` from growing (less memory): the FP target or the accesses bound.
    pub binding: Constraint,
}

/// A sized candidate (an APBF with the repeats model of its stream, if any).
enum Sized {
    Apbf(ApbfParams, Option<WindowDuplicates>),
    Apbbf(ApbbfParams),
}

impl Sized {
    fn of(req: &ApbfRequirement, k: u32, l: u32) -> Option<Self> {
        Self::try_of(req, k, l).ok()
    }

    /// [`Self::of`], with the reason a `(k, l)` cannot be sized.
    fn try_of(req: &ApbfRequirement, k: u32, l: u32) -> Result<Self, ModelError> {
        let mut s = Self::build(req.structure, k, l, req.window)?;
        if let Sized::Apbf(_, dup) = &mut s {
            *dup = req.duplicates();
        }
        Ok(s)
    }

    fn build(structure: Structure, k: u32, l: u32, w: u64) -> Result<Self, ModelError> {
        match structure {
            Structure::Apbf => ApbfParams::new(k, l)
                .and_then(|p| p.with_window(w))
                .map(|p| Sized::Apbf(p, None)),
            Structure::Apbbf {
                block_bits,
                block_hashes,
            } => ApbbfParams::new(k, l, block_bits, block_hashes)
                .and_then(|p| p.with_window(w))
                .map(Sized::Apbbf),
        }
    }

    fn fp(&self) -> f64 {
        match self {
            Sized::Apbf(p, None) => p.fp(),
            Sized::Apbf(p, Some(d)) => p.fp_duplicates(d).unwrap_or(1.0),
            Sized::Apbbf(p) => p.fp(),
        }
    }

    fn total_bits(&self) -> u64 {
        match self {
            Sized::Apbf(p, _) => p.total_bits().unwrap_or(u64::MAX),
            Sized::Apbbf(p) => p.total_bits().unwrap_or(u64::MAX),
        }
    }

    fn accesses(&self) -> (f64, f64) {
        let a = match self {
            Sized::Apbf(p, None) => p.accesses_real(),
            Sized::Apbf(p, Some(d)) => match p.sizing() {
                Some(s) => super::query_accesses(
                    &p.fills_duplicates(s.generation, d).unwrap_or_default(),
                    p.k() as usize,
                    p.l() as usize,
                ),
                None => p.accesses_real(),
            },
            Sized::Apbbf(p) => {
                super::query_accesses(&p.segments_real(), p.k() as usize, p.l() as usize)
            }
        };
        (a.given_false(), a.given_true())
    }

    fn metrics(&self) -> DesignMetrics {
        let (accesses_false, accesses_fp) = self.accesses();
        let (window, generation, npws, bits_per_item) = match self {
            Sized::Apbf(p, _) => (
                p.window().unwrap_or(0),
                p.sizing().map_or(0, |s| s.generation),
                p.npws(),
                p.bits_per_item(),
            ),
            Sized::Apbbf(p) => (
                p.window().unwrap_or(0),
                p.sizing().map_or(0, |s| s.generation),
                p.npws(),
                p.bits_per_item(),
            ),
        };
        DesignMetrics {
            fp: self.fp(),
            total_bits: self.total_bits(),
            bits_per_item,
            window,
            generation,
            accesses_false,
            accesses_fp,
            npws,
        }
    }
}

/// NPWS by the formula, without sizing (it does not depend on the size).
fn npws_of(structure: Structure, k: u32, l: u32) -> f64 {
    match structure {
        Structure::Apbf => npws_formula(0.5, k, l),
        Structure::Apbbf {
            block_bits,
            block_hashes,
        } => ApbbfParams::new(k, l, block_bits, block_hashes).map_or(f64::INFINITY, |p| p.npws()),
    }
}

/// Lower bound on the memory of any design with `k` segments written per insertion:
/// the `k` filling segments alone hold the window at half fill.
fn memory_floor(structure: Structure, k: u32, w: u64) -> f64 {
    let per_item = match structure {
        Structure::Apbf => 1.0 / std::f64::consts::LN_2,
        Structure::Apbbf {
            block_bits,
            block_hashes,
        } => ApbbfParams::new(1, 1, block_bits, block_hashes)
            .map_or(0.0, |p| f64::from(block_bits) / p.full_load()),
    };
    f64::from(k) * w as f64 * per_item
}

/// Which constraints to enforce in a search.
#[derive(Clone, Copy)]
struct Active {
    memory: bool,
    accesses: bool,
    npws: bool,
}

const ALL: Active = Active {
    memory: true,
    accesses: true,
    npws: true,
};

/// The largest `l ≤ l_cap` whose sized filter meets the FP target (FP grows with `l`).
///
/// APBF: one forward sweep ([`consecutive_match_prefixes_upto`]) gives the unsized FP of
/// every `l`; the sized FP (slices of finite `m`) differs by `O(1/m)`, so the estimate
/// is corrected by stepping `l` against the sized FP. APBBF, and an APBF under
/// repeats (far from the distinct sweep): binary search on the sized FP.
fn largest_l_for_fp(req: &ApbfRequirement, k: u32, l_cap: u32) -> Option<u32> {
    let fp_ok = |l: u32| Sized::of(req, k, l).is_some_and(|s| s.fp() <= req.fp);
    match req.structure {
        Structure::Apbf if req.duplicate_rate.is_none() => {
            let all =
                consecutive_match_prefixes_upto(&super::fills::real(k, l_cap), k as usize, req.fp);
            // all[l] is the FP with l extra slices (all[0]: none).
            let mut l = all[1..].partition_point(|&f| f <= req.fp) as u32;
            // Correct for the finite slice size (a few steps at most).
            while l >= 1 && !fp_ok(l) {
                l -= 1;
            }
            if l == 0 {
                return fp_ok(1).then_some(1);
            }
            while l < l_cap && fp_ok(l + 1) {
                l += 1;
            }
            Some(l)
        }
        _ => {
            // Below `l_min` the slices would exceed their largest size (the filter
            // cannot be built), which is not "FP too high": search from there.
            let l_min = match req.structure {
                Structure::Apbf => req
                    .window
                    .div_ceil(super::generation(*ApbfParams::M.end(), k).max(1))
                    .max(1),
                Structure::Apbbf { .. } => 1,
            };
            last_true(l_min, u64::from(l_cap), |l| fp_ok(l as u32)).map(|l| l as u32)
        }
    }
}

/// The steps one `k` of [`search`] takes, spent from a [`crate::budget`] allowance
/// before it starts: an FP or accesses evaluation at `l ≤ l_cap` is `k·(k + l_cap)`
/// recursion steps, the largest-`l` search takes a sweep and a few corrections (APBF) or
/// a bisection (APBBF, repeats), the accesses bound a bisection, and the memory scan one
/// sizing per `l`.
fn search_steps(req: &ApbfRequirement, on: Active, k: u32, l_cap: u32) -> f64 {
    let per_evaluation = f64::from(k) * (f64::from(k) + f64::from(l_cap));
    let bisection = f64::from(u32::BITS - l_cap.leading_zeros());
    let mut evaluations = match req.structure {
        Structure::Apbf if req.duplicate_rate.is_none() => 3.0,
        _ => bisection,
    };
    if on.accesses && req.max_accesses.is_some() {
        evaluations += bisection;
    }
    evaluations * per_evaluation + f64::from(l_cap)
}

/// The least-memory design under the active constraints (FP always enforced).
///
/// # Errors
/// [`ModelError::WorkLimit`] when a [`crate::budget`] allowance is in force and the next
/// `k` would take more than is left ([`search_steps`]: a window of thousands of items
/// gives `l` up to 4096, tens of milliseconds over every `k`).
fn search(req: &ApbfRequirement, on: Active) -> Result<Option<ApbfDesign>, ModelError> {
    let w = req.window;
    let mut best: Option<(u64, u32, u32, Constraint)> = None;
    for k in 1..=ApbfRequirement::K_MAX {
        if let Some((bits, ..)) = best {
            if memory_floor(req.structure, k, w) > bits as f64 {
                break;
            }
        }
        let l_cap = ApbfRequirement::L_MAX.min(u32::try_from(w).unwrap_or(u32::MAX));
        crate::budget::spend(search_steps(req, on, k, l_cap), "the APBF design search")?;
        let Some(l_fp) = largest_l_for_fp(req, k, l_cap) else {
            continue;
        };
        let mut l_hi = l_fp;
        let mut binding = Constraint::Fp;
        if let (true, Some(a)) = (on.accesses, req.max_accesses) {
            let acc_ok = |l: u32| {
                Sized::of(req, k, l).is_some_and(|s| {
                    let (f, t) = s.accesses();
                    f.max(t) <= a
                })
            };
            match last_true(1, u64::from(l_hi), |l| acc_ok(l as u32)) {
                None => continue,
                Some(l) if (l as u32) < l_hi => {
                    l_hi = l as u32;
                    binding = Constraint::Accesses;
                }
                Some(_) => {}
            }
        }
        let l_lo = match (on.npws, req.max_npws) {
            (true, Some(x)) => {
                match first_true(1, u64::from(l_hi), |l| {
                    npws_of(req.structure, k, l as u32) <= x
                }) {
                    Some(l) => l as u32,
                    None => continue,
                }
            }
            _ => 1,
        };
        // Memory is not monotone in l (rounding of g and m): scan the feasible range.
        for l in (l_lo..=l_hi).rev() {
            let Some(s) = Sized::of(req, k, l) else {
                continue;
            };
            let bits = s.total_bits();
            if on.memory && req.memory.is_some_and(|m| bits > m) {
                continue;
            }
            if best.is_none_or(|(b, ..)| bits < b) && s.fp() <= req.fp {
                let bind = if l == l_hi { binding } else { Constraint::Fp };
                best = Some((bits, k, l, bind));
            }
        }
    }
    Ok(best.and_then(|(_, k, l, binding)| {
        Sized::of(req, k, l).map(|s| ApbfDesign {
            k,
            l,
            structure: req.structure,
            metrics: s.metrics(),
            binding,
        })
    }))
}

/// A given `(k, l)` sized for `req`'s window (`g = ⌈W/l⌉`), with its predicted figures
/// and no search: what [`design`] reports for the design it picks. `binding` is
/// [`Constraint::Fp`]; the caller compares the figures with its own limits.
///
/// # Errors
/// `k`, `l` or the window invalid for the structure (see [`ApbfParams::with_window`],
/// [`ApbbfParams::with_window`]).
pub fn evaluate(req: &ApbfRequirement, k: u32, l: u32) -> Result<ApbfDesign, ModelError> {
    let s = Sized::try_of(req, k, l)?;
    Ok(ApbfDesign {
        k,
        l,
        structure: req.structure,
        metrics: s.metrics(),
        binding: Constraint::Fp,
    })
}

/// The design with the least memory meeting every constraint of `req`.
///
/// # Errors
/// [`ModelError::Infeasible`] naming the binding constraint (the one whose removal
/// makes the requirement feasible) and what is achievable without it;
/// [`ModelError::WorkLimit`] past a [`crate::budget`] allowance (none by default).
pub fn design(req: &ApbfRequirement) -> Result<ApbfDesign, ModelError> {
    if let Some(d) = search(req, ALL)? {
        return Ok(d);
    }
    let relax = [
        (
            Constraint::Memory,
            Active {
                memory: false,
                ..ALL
            },
        ),
        (
            Constraint::Accesses,
            Active {
                accesses: false,
                ..ALL
            },
        ),
        (Constraint::Npws, Active { npws: false, ..ALL }),
    ];
    for (c, on) in relax {
        let given = match c {
            Constraint::Memory => req.memory.is_some(),
            Constraint::Accesses => req.max_accesses.is_some(),
            _ => req.max_npws.is_some(),
        };
        if !given {
            continue;
        }
        if let Some(d) = search(req, on)? {
            let (bound, achievable) = match c {
                Constraint::Memory => (
                    format!("memory <= {} bits", req.memory.unwrap_or(0)),
                    format!("{} bits at k = {}, l = {}", d.metrics.total_bits, d.k, d.l),
                ),
                Constraint::Accesses => (
                    format!("max_accesses <= {}", req.max_accesses.unwrap_or(0.0)),
                    format!("{:.3} accesses", best_accesses(req)?),
                ),
                _ => (
                    format!("max_npws <= {}", show_rate(req.max_npws.unwrap_or(0.0))),
                    format!("npws {:.4}", best_npws(req)?),
                ),
            };
            return Err(ModelError::infeasible(
                format!(
                    "{bound} binds (fp <= {}, window {})",
                    show_rate(req.fp),
                    req.window
                ),
                achievable,
            ));
        }
    }
    if search(
        req,
        Active {
            memory: false,
            accesses: false,
            npws: false,
        },
    )?
    .is_none()
    {
        let least = Sized::of(req, ApbfRequirement::K_MAX, 1).map_or(f64::NAN, |s| s.fp());
        return Err(ModelError::infeasible(
            format!(
                "fp <= {} binds (k <= {})",
                show_rate(req.fp),
                ApbfRequirement::K_MAX
            ),
            format!("fp {least:e}"),
        ));
    }
    Err(ModelError::infeasible(
        "the memory, max_accesses and max_npws bounds together",
        "relax two of them",
    ))
}

/// Fewest expected accesses meeting the FP target (and NPWS/memory if given).
fn best_accesses(req: &ApbfRequirement) -> Result<f64, ModelError> {
    Ok(candidates(
        req,
        Active {
            accesses: false,
            ..ALL
        },
    )?
    .iter()
    .map(|d| d.metrics.accesses())
    .fold(f64::INFINITY, f64::min))
}

/// Least NPWS meeting the FP target (and accesses/memory if given).
fn best_npws(req: &ApbfRequirement) -> Result<f64, ModelError> {
    Ok(candidates(req, Active { npws: false, ..ALL })?
        .iter()
        .map(|d| d.metrics.npws)
        .fold(f64::INFINITY, f64::min))
}

/// The grid of `l` values of the Pareto search: every `l ≤ 32`, then steps of ~10%.
fn l_grid() -> Vec<u32> {
    let mut v: Vec<u32> = (1..=32).collect();
    let mut x = 32.0f64;
    loop {
        x *= 1.1;
        let l = x.round() as u32;
        if l > ApbfRequirement::L_MAX {
            break;
        }
        v.push(l);
    }
    v
}

/// For each `l` of the grid, the least `k` meeting the FP target (memory, accesses and
/// NPWS all grow with `k` at fixed `l`, so only that `k` can be Pareto-optimal),
/// filtered by the active constraints. Each FP evaluation (`k·(k + l)` recursion steps)
/// is spent from a [`crate::budget`] allowance.
///
/// # Errors
/// [`ModelError::WorkLimit`] past the allowance.
fn candidates(req: &ApbfRequirement, on: Active) -> Result<Vec<ApbfDesign>, ModelError> {
    let w = req.window;
    let mut out = Vec::new();
    let mut k = 1;
    for l in l_grid() {
        if u64::from(l) > w {
            break;
        }
        // The least k is nondecreasing in l (FP grows with l).
        let steps = |k: u32| f64::from(k) * (f64::from(k) + f64::from(l));
        while k <= ApbfRequirement::K_MAX {
            crate::budget::spend(steps(k), "the APBF Pareto search")?;
            if Sized::of(req, k, l).is_some_and(|s| s.fp() <= req.fp) {
                break;
            }
            k += 1;
        }
        if k > ApbfRequirement::K_MAX {
            break;
        }
        let Some(s) = Sized::of(req, k, l) else {
            continue;
        };
        let m = s.metrics();
        if (on.memory && req.memory.is_some_and(|b| m.total_bits > b))
            || (on.npws && req.max_npws.is_some_and(|x| m.npws > x))
            || (on.accesses && req.max_accesses.is_some_and(|a| m.accesses() > a))
        {
            continue;
        }
        out.push(ApbfDesign {
            k,
            l,
            structure: req.structure,
            metrics: m,
            binding: Constraint::Fp,
        });
    }
    Ok(out)
}

/// The designs meeting every constraint that no other such design beats on all of
/// memory, accesses and NPWS, in increasing memory; the [`design`] choice included.
///
/// # Accuracy
/// Searched over `l ∈ {1..32} ∪` a 10% geometric grid up to 4096, with the least
/// feasible `k` for each `l`; the least-memory design is exact (from [`design`]).
///
/// # Errors
/// As [`design`].
pub fn pareto(req: &ApbfRequirement) -> Result<Vec<ApbfDesign>, ModelError> {
    let best = design(req)?;
    let mut all = candidates(req, ALL)?;
    all.push(best);
    let dominates = |a: &ApbfDesign, b: &ApbfDesign| {
        let (ma, mb) = (&a.metrics, &b.metrics);
        ma.total_bits <= mb.total_bits
            && ma.accesses() <= mb.accesses()
            && ma.npws <= mb.npws
            && (ma.total_bits < mb.total_bits || ma.accesses() < mb.accesses() || ma.npws < mb.npws)
    };
    let mut front: Vec<ApbfDesign> = all
        .iter()
        .filter(|b| !all.iter().any(|a| dominates(a, b)))
        .copied()
        .collect();
    front.sort_by(|a, b| {
        a.metrics
            .total_bits
            .cmp(&b.metrics.total_bits)
            .then(a.l.cmp(&b.l))
    });
    front.dedup_by(|a, b| a.k == b.k && a.l == b.l);
    Ok(front)
}

/// The rule of the published ports: `k = ⌈log2(1/p)⌉` and the largest `l` whose real
/// FP meets `p` at window `w`; `None` when even `l = 1` misses the target.
pub fn rule_of_thumb(fp: f64, w: u64) -> Option<(u32, u32, ApbfParams)> {
    let k = (1.0 / fp).log2().ceil().max(1.0) as u32;
    let l_cap = ApbfRequirement::L_MAX.min(u32::try_from(w).unwrap_or(u32::MAX));
    let ok = |l: u32| {
        ApbfParams::new(k, l)
            .and_then(|p| p.with_window(w))
            .is_ok_and(|p| p.fp() <= fp)
    };
    let l = last_true(1, u64::from(l_cap), |l| ok(l as u32))? as u32;
    ApbfParams::new(k, l)
        .and_then(|p| p.with_window(w))
        .ok()
        .map(|p| (k, l, p))
}
