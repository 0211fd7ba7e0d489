//! A fingerprint queue for a sliding window: a circular buffer of the last `W`
//! fingerprints plus a dictionary mapping each fingerprint to its count in the window
//! (the SWAMP layout cited in Section 3 [APBF]). An insertion appends a fingerprint,
//! increments its count and decrements the count of the fingerprint leaving the buffer;
//! a query looks its fingerprint up. No slack, no false negatives.
//!
//! # FP
//! A non-member's `b`-bit fingerprint matches one of the `D ≤ W` distinct fingerprints
//! in the window with probability
//! ```text
//! FP = 1 − (1 − 2^−b)^D  ≤  1 − (1 − 2^−b)^W
//! ```
//! for uniform fingerprints; the design uses the worst case `D = W`. The buffer stores
//! every insertion, a repeat included, but a repeat adds no new fingerprint to the
//! dictionary, so on a stream that repeats items `D` is the number of distinct items in
//! the window, `D(W)` on average ([`design_fingerprint_queue_on`]).
//!
//! # Memory
//! `W·b` bits of buffer plus `⌈W/α⌉` dictionary slots of `b + c` bits, where
//! `c = ⌈log2(W+1)⌉` counts up to `W` repeats and `α` is the dictionary's load factor.
//! Accesses count 512-bit cache lines. The dictionary uses linear probing, with Knuth's
//! expected probe counts `½(1 + 1/(1−α))` for a hit and `½(1 + 1/(1−α)²)` for a miss;
//! consecutive slots share lines, so `p` probes touch `1 + (p − 1)·(b + c)/512` lines.

use crate::error::{check, ModelError};
use crate::numeric::one_minus_pow1m;
use crate::workload::Distinct;
use serde::Serialize;
use std::ops::RangeInclusive;

/// Bits per cache line, the unit of memory accesses.
const CACHE_LINE_BITS: f64 = 512.0;

/// A window requirement for a fingerprint queue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FingerprintQueueRequirement {
    #[serde(rename = "fp_target")]
    fp: f64,
    window: u64,
    load_factor: f64,
}

impl FingerprintQueueRequirement {
    /// Allowed window sizes.
    pub const WINDOW: RangeInclusive<u64> = 1..=(1 << 50);
    /// Allowed dictionary load factors.
    pub const LOAD_FACTOR: RangeInclusive<f64> = 0.05..=0.95;
    /// Default dictionary load factor.
    pub const LOAD_FACTOR_DEFAULT: f64 = 0.8;
    /// Longest fingerprint considered, bits.
    pub const MAX_FINGERPRINT_BITS: u32 = 64;

    /// FP at most `fp` (0 < fp < 1) over the last `window` insertions.
    ///
    /// # Errors
    /// `fp` outside (0, 1), `window` outside [`Self::WINDOW`].
    pub fn new(fp: f64, window: u64) -> Result<Self, ModelError> {
        check::open_probability("fp", fp)?;
        check::in_range("window", window, Self::WINDOW)?;
        Ok(Self {
            fp,
            window,
            load_factor: Self::LOAD_FACTOR_DEFAULT,
        })
    }

    /// Sets the dictionary's load factor α.
    ///
    /// # Errors
    /// α outside [`Self::LOAD_FACTOR`].
    pub fn with_load_factor(mut self, load_factor: f64) -> Result<Self, ModelError> {
        self.load_factor = check::in_range_f64("load_factor", load_factor, Self::LOAD_FACTOR)?;
        Ok(self)
    }

    /// FP with `b`-bit fingerprints and a full window: `1 − (1 − 2^−b)^W`.
    pub fn fp_with(&self, fingerprint_bits: u32) -> f64 {
        fp_of(fingerprint_bits, self.window)
    }
}

/// A fingerprint queue sized for a window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FingerprintQueueDesign {
    /// Fingerprint bits `b`.
    pub fingerprint_bits: u32,
    /// Counter bits `c = ⌈log2(W+1)⌉`.
    pub counter_bits: u32,
    /// Dictionary slots `⌈W/α⌉`.
    pub slots: u64,
    /// Total bits: buffer plus dictionary.
    pub bits: u64,
    /// Bits per window item.
    pub bits_per_item: f64,
    /// Worst-case FP (a window of distinct items).
    pub fp: f64,
    /// Older insertions still reported: none.
    pub slack: u64,
    /// Expected cache lines per insertion: a buffer write, a hit to decrement, a probe to
    /// increment.
    pub accesses_insert: f64,
    /// Expected cache lines of a query that returns false (an unsuccessful search).
    pub accesses_query_false: f64,
}

/// The shortest fingerprint meeting the target.
///
/// # Errors
/// [`ModelError::Infeasible`] when even 64-bit fingerprints miss the target.
pub fn design_fingerprint_queue(
    req: &FingerprintQueueRequirement,
) -> Result<FingerprintQueueDesign, ModelError> {
    let max = FingerprintQueueRequirement::MAX_FINGERPRINT_BITS;
    let b = (1..=max)
        .find(|&b| req.fp_with(b) <= req.fp)
        .ok_or_else(|| {
            ModelError::infeasible(
                format!(
                    "fp = {} with 64-bit fingerprints",
                    crate::error::show_rate(req.fp)
                ),
                format!("fp = {:e}", req.fp_with(max)),
            )
        })?;
    let w = req.window;
    let slots = (w as f64 / req.load_factor).ceil() as u64;
    Ok(FingerprintQueueDesign::build(
        w,
        b,
        counter_bits(w),
        slots,
        req.load_factor,
    ))
}

/// The shortest fingerprint meeting the target on a stream described by its `D(·)`
/// ([`crate::workload::Distinct`], e.g. a trace's measured curve): a non-member matches
/// one of the window's `D(W)` distinct fingerprints with probability
/// `1 − (1 − 2^−b)^D(W)`, the design's `fp`. The buffer and the dictionary keep their
/// sizes (`W` fingerprints, `⌈W/α⌉` slots): a window of `W` distinct items can still
/// occur, and the queue must hold it exactly. `D(W)` is a mean; the FP is concave in
/// `D`, so the mean of the FP over windows is at most the figure (and within
/// `O(2^−2b·Var D)` of it).
///
/// # Errors
/// [`ModelError::Infeasible`] when even 64-bit fingerprints miss the target.
pub fn design_fingerprint_queue_on(
    req: &FingerprintQueueRequirement,
    workload: &Distinct,
) -> Result<FingerprintQueueDesign, ModelError> {
    let d = workload.d(req.window as f64).clamp(1.0, req.window as f64);
    let fp_on = |b: u32| one_minus_pow1m((-f64::from(b)).exp2(), d);
    let max = FingerprintQueueRequirement::MAX_FINGERPRINT_BITS;
    let b = (1..=max).find(|&b| fp_on(b) <= req.fp).ok_or_else(|| {
        ModelError::infeasible(
            format!(
                "fp = {} with 64-bit fingerprints",
                crate::error::show_rate(req.fp)
            ),
            format!("fp = {:e} on D(W) = {d:.0}", fp_on(max)),
        )
    })?;
    let w = req.window;
    let slots = (w as f64 / req.load_factor).ceil() as u64;
    let mut out = FingerprintQueueDesign::build(w, b, counter_bits(w), slots, req.load_factor);
    out.fp = fp_on(b);
    Ok(out)
}

/// `1 − (1 − 2^−b)^W`: some of `W` uniform `b`-bit fingerprints matches a non-member's.
fn fp_of(fingerprint_bits: u32, window: u64) -> f64 {
    one_minus_pow1m((-f64::from(fingerprint_bits)).exp2(), window as f64)
}

/// Counter bits that count up to `W` repeats: `⌈log2(W+1)⌉`.
pub fn counter_bits(window: u64) -> u32 {
    u64::BITS - window.leading_zeros()
}

impl FingerprintQueueDesign {
    /// The figures of a given queue over a window of `window` insertions: `b`-bit
    /// fingerprints, `c`-bit counts and `slots` dictionary slots (load factor
    /// `α = W/slots`).
    ///
    /// # Errors
    /// `b` outside `1..=64`; `c` below `⌈log2(W+1)⌉` (a count could overflow);
    /// `slots <= W` (the dictionary cannot hold the window with a free slot).
    pub fn with(
        window: u64,
        fingerprint_bits: u32,
        counter_bits_: u32,
        slots: u64,
    ) -> Result<Self, ModelError> {
        let max = FingerprintQueueRequirement::MAX_FINGERPRINT_BITS;
        let b = check::in_range("fingerprint_bits", fingerprint_bits, 1..=max)?;
        let need = counter_bits(window);
        let c = check::in_range("counter_bits", counter_bits_, need..=64)?;
        if slots <= window {
            return Err(ModelError::invalid(
                "slots",
                slots,
                format!("slots > window = {window}"),
            ));
        }
        Ok(Self::build(
            window,
            b,
            c,
            slots,
            window as f64 / slots as f64,
        ))
    }

    /// The figures at load factor `load_factor` (the design's target, or `W/slots`).
    fn build(w: u64, b: u32, c: u32, slots: u64, load_factor: f64) -> Self {
        let bits = w * u64::from(b) + slots * u64::from(b + c);
        let lines = |probes: f64| 1.0 + (probes - 1.0) * f64::from(b + c) / CACHE_LINE_BITS;
        let miss = lines(0.5 * (1.0 + (1.0 - load_factor).powi(-2)));
        let hit = lines(0.5 * (1.0 + 1.0 / (1.0 - load_factor)));
        FingerprintQueueDesign {
            fingerprint_bits: b,
            counter_bits: c,
            slots,
            bits,
            bits_per_item: bits as f64 / w as f64,
            fp: fp_of(b, w),
            slack: 0,
            accesses_insert: 1.0 + hit + miss,
            accesses_query_false: miss,
        }
    }
}
