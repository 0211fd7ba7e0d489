//! Binary fuse filters: static sets in about `1.125·f` bits per item.
//!
//! Graf and Lemire, *Binary Fuse Filters: Fast and Smaller Than Xor Filters* (ACM JEA,
//! 2022), tag `[BFF]`. A binary fuse filter stores one `f`-bit fingerprint per slot in an
//! array split into segments; each key maps to three slots in three consecutive segments
//! and the XOR of their contents equals the key's fingerprint. It is built once from the
//! whole set (peeling) and cannot take insertions or deletions afterwards.
//!
//! | quantity | formula | function |
//! |---|---|---|
//! | FP | `2^−f` | [`FuseParams::fp`] |
//! | segment length (arity 3) | `2^⌊ln n / ln 3.33 + 2.25⌋`, at most `2^18` | [`FuseLayout::of`] |
//! | size factor (arity 3) | `max(1.125, 0.875 + 0.25·ln(10^6)/ln n)` | [`size_factor`] |
//! | slots | `(⌈round(n·factor)/L⌉ − 2 + 2)·L` (see [`FuseLayout::of`]) | [`FuseLayout::slots`] |
//! | bits per item | `f · slots / n` | [`FuseMetrics::bits_per_item`] |
//!
//! # Sizing rule
//! The segment length and size factor are the empirical rules fitted in `[BFF]` for
//! three-wise binary fuse filters, as the `xorf` crate (0.13, `prelude/bfuse.rs`) and
//! the authors' Go and C implementations build them: the slot count of [`FuseLayout::of`]
//! equals `fingerprints.len()` of `xorf::BinaryFuse8/16/32` at every `n` tested
//! (`tests/agreement/fuse.rs`). For large `n` the factor is 1.125, so a 16-bit filter
//! takes 18 bits per item and an 8-bit one 9; small sets pay more (factor 1.35 at
//! `n = 1000`).
//!
//! # Assumptions
//! Ideal hashing: a non-member's fingerprint matches the XOR of its three slots with
//! probability exactly `2^−f`. Construction succeeds with probability near 1 per attempt
//! and is retried with a new seed, so it is not modelled.
//!
//! # Example
//! ```
//! use bfopt_models::fuse::{design, FuseRequirement};
//! let d = design(&FuseRequirement::new(0.01, 1_000_000)?)?;
//! assert_eq!(d.params.f(), 8);
//! assert!((d.metrics.bits_per_item - 9.0).abs() < 0.05); // the classic filter: 9.59
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # References
//! * T. M. Graf, D. Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters",
//!   ACM Journal of Experimental Algorithmics 27, 2022.

use crate::error::{check, show_rate, ModelError};
use serde::Serialize;
use std::ops::RangeInclusive;

/// Largest segment length the builders use (`xorf`: `.min(262144)`).
pub const MAX_SEGMENT_LENGTH: u64 = 1 << 18;

/// The arity of the filters modelled: three slots per key.
pub const ARITY: u64 = 3;

/// The size factor `max(1.125, 0.875 + 0.25·ln(10^6)/ln n)` of a three-wise binary fuse
/// filter `[BFF]` (empirical; the slot budget before rounding is `round(n·factor)`).
/// Infinite at `n = 1` (the builders then use no budget at all, see [`FuseLayout::of`]).
pub fn size_factor(n: u64) -> f64 {
    let n = n as f64;
    (0.875 + 0.25 * 1e6f64.ln() / n.ln()).max(1.125)
}

/// The segment length `2^⌊ln n / ln 3.33 + 2.25⌋` `[BFF]`, capped at
/// [`MAX_SEGMENT_LENGTH`]; 4 for `n = 0`.
pub fn segment_length(n: u64) -> u64 {
    if n == 0 {
        return 4;
    }
    let e = ((n as f64).ln() / 3.33f64.ln() + 2.25).floor() as u32;
    (1u64 << e.min(62)).min(MAX_SEGMENT_LENGTH)
}

/// How a binary fuse filter of `n` keys lays out its slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FuseLayout {
    /// Slots per segment `L` (a power of two).
    pub segment_length: u64,
    /// Segments a key's first slot may fall in (`S`); the array holds `S + 2`.
    pub segment_count: u64,
    /// Slots in the array, `(S + 2)·L`: the fingerprints stored.
    pub slots: u64,
}

impl FuseLayout {
    /// The layout the builders choose for `n` keys: budget `c = round(n·factor)` (0 for
    /// `n ≤ 1`), `S = max(1, ⌈c/L⌉ − 2)`, slots `(S + 2)·L`.
    pub fn of(n: u64) -> Self {
        let l = segment_length(n);
        let budget = if n > 1 {
            (n as f64 * size_factor(n)).round() as u64
        } else {
            0
        };
        let proposed = budget.div_ceil(l);
        let segment_count = if proposed < ARITY {
            1
        } else {
            proposed - (ARITY - 1)
        };
        Self {
            segment_length: l,
            segment_count,
            slots: (segment_count + ARITY - 1) * l,
        }
    }
}

/// A binary fuse filter: `n` keys, `f`-bit fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FuseParams {
    n: u64,
    f: u32,
}

impl FuseParams {
    /// Fingerprint widths of the implementations modelled (`xorf` `BinaryFuse8/16/32`).
    pub const F: [u32; 3] = [8, 16, 32];
    /// Keys: the builders index slots with 32-bit integers (`round(n·1.125) < 2^32`).
    pub const N: RangeInclusive<u64> = 1..=3_000_000_000;

    /// A filter of `n` keys with `f`-bit fingerprints.
    ///
    /// # Errors
    /// `f` not 8, 16 or 32; `n` outside [`Self::N`].
    pub fn new(n: u64, f: u32) -> Result<Self, ModelError> {
        check::in_range("n", n, Self::N)?;
        if !Self::F.contains(&f) {
            return Err(ModelError::invalid("f", f, "f in {8, 16, 32}"));
        }
        Ok(Self { n, f })
    }

    /// Keys stored.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Fingerprint bits.
    pub fn f(&self) -> u32 {
        self.f
    }

    /// The slot layout ([`FuseLayout::of`]).
    pub fn layout(&self) -> FuseLayout {
        FuseLayout::of(self.n)
    }

    /// False-positive rate `2^−f` `[BFF]` (exact under ideal hashing).
    pub fn fp(&self) -> f64 {
        (-f64::from(self.f)).exp2()
    }

    /// The metrics of this filter.
    pub fn metrics(&self) -> FuseMetrics {
        let layout = self.layout();
        let memory_bits = layout.slots * u64::from(self.f);
        FuseMetrics {
            fp: self.fp(),
            layout,
            memory_bits,
            bits_per_item: memory_bits as f64 / self.n as f64,
            accesses_query: 3.0,
        }
    }
}

/// What a binary fuse filter costs and gives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FuseMetrics {
    /// False-positive rate `2^−f`.
    pub fp: f64,
    /// The slot layout.
    pub layout: FuseLayout,
    /// Fingerprint array size in bits, `f · slots`.
    pub memory_bits: u64,
    /// `memory_bits / n`.
    pub bits_per_item: f64,
    /// Memory words read by every query: three slots.
    pub accesses_query: f64,
}

/// What to size: an FP target for `n` keys.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FuseRequirement {
    fp: f64,
    n: u64,
}

impl FuseRequirement {
    /// FP at most `fp` for a static set of `n` keys.
    ///
    /// # Errors
    /// `fp` outside the supported targets; `n` outside [`FuseParams::N`].
    pub fn new(fp: f64, n: u64) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("n", n, FuseParams::N)?;
        Ok(Self { fp, n })
    }
}

/// A sized binary fuse filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FuseDesign {
    /// The chosen filter.
    pub params: FuseParams,
    /// Its metrics (`metrics.fp ≤` the target).
    pub metrics: FuseMetrics,
}

/// The smallest fingerprint width in [`FuseParams::F`] with `2^−f ≤ fp`: memory grows
/// with `f` and the layout does not depend on it.
///
/// # Errors
/// [`ModelError::Infeasible`] below `2^−32`, the smallest FP of the widths built.
pub fn design(req: &FuseRequirement) -> Result<FuseDesign, ModelError> {
    let f = FuseParams::F
        .into_iter()
        .find(|&f| (-f64::from(f)).exp2() <= req.fp)
        .ok_or_else(|| {
            ModelError::infeasible(
                format!("fp <= {}", show_rate(req.fp)),
                "fp = 2^-32 = 2.3e-10 with 32-bit fingerprints",
            )
        })?;
    let params = FuseParams::new(req.n, f)?;
    Ok(FuseDesign {
        params,
        metrics: params.metrics(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sets_take_the_asymptotic_factor() {
        // n = 10^7: factor 1.125, segments of 2^⌊ln 10^7 / ln 3.33 + 2.25⌋ = 2^⌊15.65⌋ slots.
        let l = FuseLayout::of(10_000_000);
        assert_eq!(l.segment_length, 1 << 15);
        let per_item = l.slots as f64 / 1e7;
        assert!((1.125..1.125 + 3.0 * (1 << 15) as f64 / 1e7).contains(&per_item));
        // From n ≈ 1.7e8 on the segment length stays at the cap 2^18.
        assert_eq!(FuseLayout::of(200_000_000).segment_length, 1 << 18);
    }

    #[test]
    fn tiny_sets_get_three_segments() {
        assert_eq!(FuseLayout::of(0).slots, 12);
        assert_eq!(FuseLayout::of(1).slots, 12);
    }

    #[test]
    fn design_picks_the_smallest_width() {
        for (fp, f) in [(0.5, 8), (2f64.powi(-8), 8), (0.001, 16), (1e-6, 32)] {
            let d = design(&FuseRequirement::new(fp, 1000).unwrap()).unwrap();
            assert_eq!(d.params.f(), f, "fp {fp}");
            assert!(d.metrics.fp <= fp);
        }
        assert!(matches!(
            design(&FuseRequirement::new(1e-12, 1000).unwrap()),
            Err(ModelError::Infeasible { .. })
        ));
    }

    #[test]
    fn bad_input_names_the_parameter() {
        assert_eq!(
            FuseParams::new(10, 12).unwrap_err().to_string(),
            "invalid f = 12 (allowed: f in {8, 16, 32})"
        );
        assert!(FuseParams::new(0, 8).is_err());
        assert!(FuseRequirement::new(f64::NAN, 10).is_err());
    }
}
