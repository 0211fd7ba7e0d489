//! The `fastbloom` crate's `BloomFilter` (version 0.17.0).
//!
//! # Sizing (`src/builder.rs`, `src/lib.rs` of fastbloom 0.17.0)
//! `BloomFilter::with_false_pos(p).expected_items(n)`:
//! ```text
//! size  = max(64, 8 · ⌈n · ln p / (-8 · (ln 2)²)⌉)        optimal_size
//! bits  = 64 · ⌈size / 64⌉                              a Vec<u64> of whole words
//! k     = max(1, round(ln 2 · bits / n))                 optimal_hashes, on the rounded bits
//! ```
//! `BloomFilter::with_num_bits(m).hashes(k)` builds `64·⌈m/64⌉` bits and `max(1, k)`
//! hashes. `n = 0` is treated as 1.
//!
//! # Layout
//! One source hash, `k - 1` more by `h ← rotl(h, 5) + h2`, each reduced into the whole
//! array by multiply-high: the standard layout ([`crate::classic::fp_standard`]). The
//! tests of this module build the crate's filter and measure its FP.

use super::{BuiltFilter, Configured, SystemLayout};
use crate::classic::ClassicParams;
use crate::error::{check, ModelError};
use std::f64::consts::LN_2;

/// A fastbloom builder call, for `n` keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FastbloomConfig {
    /// `with_false_pos(fp).expected_items(n)`.
    WithFalsePos {
        /// The FP target typed.
        fp: f64,
        /// Expected items typed (and inserted).
        n: u64,
    },
    /// `with_num_bits(m).hashes(k)`, holding `n` keys.
    WithNumBits {
        /// Bits typed.
        m: u64,
        /// Hashes typed.
        k: u32,
        /// Keys inserted.
        n: u64,
    },
}

impl FastbloomConfig {
    /// `with_false_pos(fp).expected_items(n)`.
    ///
    /// # Errors
    /// `fp` outside (0, 1), `n` above 2^40.
    pub fn with_false_pos(fp: f64, n: u64) -> Result<Self, ModelError> {
        check::open_probability("fp", fp)?;
        check::in_range("n", n, 0..=*super::CAPACITY.end())?;
        Ok(Self::WithFalsePos { fp, n })
    }

    /// `with_num_bits(m).hashes(k)` for `n` keys.
    ///
    /// # Errors
    /// `m` outside [`ClassicParams::M`] (fastbloom panics on 0), `k` outside
    /// [`ClassicParams::K`], `n` above 2^40.
    pub fn with_num_bits(m: u64, k: u32, n: u64) -> Result<Self, ModelError> {
        check::in_range("m", m, ClassicParams::M)?;
        check::in_range("k", k, ClassicParams::K)?;
        check::in_range("n", n, 0..=*super::CAPACITY.end())?;
        Ok(Self::WithNumBits { m, k, n })
    }

    fn items(&self) -> u64 {
        match *self {
            Self::WithFalsePos { n, .. } | Self::WithNumBits { n, .. } => n.max(1),
        }
    }

    /// Bits of the array.
    pub fn bits(&self) -> u64 {
        let asked = match *self {
            Self::WithFalsePos { fp, .. } => {
                let n = self.items() as f64;
                let size = 8 * (n * fp.ln() / (-8.0 * (LN_2 * LN_2))).ceil() as u64;
                size.max(64)
            }
            Self::WithNumBits { m, .. } => m,
        };
        asked.div_ceil(64) * 64
    }

    /// Hashes per key.
    pub fn hashes(&self) -> u32 {
        match *self {
            Self::WithFalsePos { .. } => {
                let k = (LN_2 * self.bits() as f64 / self.items() as f64).round();
                (k as u32).max(1)
            }
            Self::WithNumBits { k, .. } => k.max(1),
        }
    }

    /// What the call builds, holding `n` keys.
    ///
    /// # Errors
    /// More than 64 hashes (outside the model's range).
    pub fn build(&self) -> Result<BuiltFilter, ModelError> {
        BuiltFilter::new(
            self.bits(),
            self.hashes(),
            SystemLayout::Standard,
            self.items(),
        )
    }

    /// The call as typed, and what it builds.
    ///
    /// # Errors
    /// As [`Self::build`].
    pub fn configured(&self) -> Result<Configured, ModelError> {
        let config = match *self {
            Self::WithFalsePos { fp, n } => {
                format!("with_false_pos({}).expected_items({n})", super::typed(fp))
            }
            Self::WithNumBits { m, k, .. } => format!("with_num_bits({m}).hashes({k})"),
        };
        Ok(Configured {
            config,
            filter: self.build()?,
        })
    }
}

/// `with_num_bits(m).hashes(k)` of least memory (whole 64-bit words) whose filter has FP
/// at most `target` with `n` keys: for each `k`, the fewest words that meet it.
///
/// # Errors
/// `target` outside (0, 1), `n` outside 1 to 2^40; [`ModelError::Infeasible`] beyond
/// [`ClassicParams::M`].
pub fn suggest(target: f64, n: u64) -> Result<Configured, ModelError> {
    check::open_probability("fp", target)?;
    check::in_range("n", n, super::CAPACITY)?;
    let words_max = *ClassicParams::M.end() / 64;
    let fp_at = |w: u64, k: u32| {
        BuiltFilter::new(64 * w, k, SystemLayout::Standard, n).map_or(1.0, |f| f.fp)
    };
    let best = ClassicParams::K
        .filter_map(|k| {
            let w0 = u64::from(k).div_ceil(64);
            crate::numeric::first_true(w0, words_max, |w| fp_at(w, k) <= target).map(|w| (w, k))
        })
        // Fewest words; among equal words, the lower FP.
        .min_by(|a, b| {
            a.0.cmp(&b.0)
                .then(fp_at(a.0, a.1).total_cmp(&fp_at(b.0, b.1)))
        })
        .ok_or_else(|| {
            ModelError::infeasible(
                format!("no standard filter of at most 2^50 bits has FP <= {target} with {n} keys"),
                "more bits",
            )
        })?;
    FastbloomConfig::with_num_bits(64 * best.0, best.1, n)?.configured()
}
