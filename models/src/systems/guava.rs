//! Guava's `BloomFilter.create(funnel, expectedInsertions, fpp)`.
//!
//! # Sizing (Guava 33.x, `com/google/common/hash/BloomFilter.java`)
//! ```text
//! numBits = (long) (-n · ln p / (ln 2)²)          optimalNumOfBits: truncated
//! k       = max(1, Math.round(-ln p / ln 2))      optimalNumOfHashFunctions(p)
//! bits    = 64 · ⌈numBits / 64⌉                   LockFreeBitArray: whole longs
//! ```
//! `n = 0` is treated as 1. Releases before the change to `optimalNumOfHashFunctions(p)`
//! used `k = max(1, round(numBits/n · ln 2))`, the same `k` except where `log2(1/p)` is
//! within about `1/n` of a half-integer.
//!
//! # Layout
//! `MURMUR128_MITZ_64`: the `k` indices `(h1 + i·h2 & Long.MAX_VALUE) mod bits` of one
//! murmur3-128 hash over the whole array: the standard layout, whose FP is
//! [`crate::classic::fp_standard`].

use super::{typed, BuiltFilter, Configured, SystemLayout};
use crate::error::{check, ModelError};
use std::f64::consts::LN_2;

/// A call `BloomFilter.create(funnel, n, fpp)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuavaConfig {
    n: u64,
    fpp: f64,
}

/// Most 64-bit words Guava's bit array holds (`Ints.checkedCast` of the word count).
pub const MAX_WORDS: u64 = i32::MAX as u64;
/// Most hash functions Guava accepts (`numHashFunctions <= 255`).
pub const MAX_HASHES: u32 = 255;

impl GuavaConfig {
    /// `expectedInsertions = n`, `fpp = p`.
    ///
    /// # Errors
    /// `fpp` outside (0, 1) (Guava's `checkArgument`), `n` above 2^40.
    pub fn new(n: u64, fpp: f64) -> Result<Self, ModelError> {
        check::open_probability("fpp", fpp)?;
        check::in_range("n", n, 0..=*super::CAPACITY.end())?;
        Ok(Self { n, fpp })
    }

    /// `optimalNumOfBits(n, p)`: `(long) (-n · ln p / (ln 2)²)` with `n = 0` as 1.
    pub fn num_bits(&self) -> u64 {
        let n = self.n.max(1) as f64;
        // Java: (long) (-n * Math.log(p) / SQUARED_LOG_TWO), SQUARED_LOG_TWO = LOG_TWO * LOG_TWO.
        (-n * self.fpp.ln() / (LN_2 * LN_2)) as u64
    }

    /// `optimalNumOfHashFunctions(p)`: `max(1, round(-ln p / ln 2))` (Java rounds halves up).
    pub fn hashes(&self) -> u32 {
        ((-self.fpp.ln() / LN_2 + 0.5).floor() as u32).max(1)
    }

    /// Bits of the array: `numBits` rounded up to whole 64-bit words.
    pub fn bits(&self) -> u64 {
        self.num_bits().div_ceil(64) * 64
    }

    /// What the call builds, holding `n` keys.
    ///
    /// # Errors
    /// The cases where Guava throws: 0 bits (`n·ln(1/p) < (ln 2)²`), more than
    /// [`MAX_WORDS`] words or [`MAX_HASHES`] hashes.
    pub fn build(&self) -> Result<BuiltFilter, ModelError> {
        let (bits, k) = (self.bits(), self.hashes());
        if bits == 0 || bits / 64 > MAX_WORDS {
            return Err(ModelError::invalid(
                "fpp",
                self.fpp,
                format!(
                    "Guava builds 1 to 2^31-1 words; n·ln(1/fpp)/(ln 2)^2 = {} bits",
                    self.num_bits()
                ),
            ));
        }
        if k > MAX_HASHES {
            return Err(ModelError::invalid(
                "fpp",
                self.fpp,
                "fpp >= 2^-255.5 (Guava: at most 255 hashes)",
            ));
        }
        BuiltFilter::new(bits, k, SystemLayout::Standard, self.n.max(1))
    }

    /// The call as typed, and what it builds.
    ///
    /// # Errors
    /// As [`Self::build`].
    pub fn configured(&self) -> Result<Configured, ModelError> {
        Ok(Configured {
            config: format!("BloomFilter.create(f, {}, {})", self.n, typed(self.fpp)),
            filter: self.build()?,
        })
    }
}

/// The `fpp` to type into `BloomFilter.create(funnel, n, fpp)` for the least memory whose
/// filter has FP at most `target` with `n` keys.
///
/// # Errors
/// `target` outside (0, 1); [`ModelError::Infeasible`] if no `fpp` meets it.
pub fn suggest(target: f64, n: u64) -> Result<Configured, ModelError> {
    let build = |p: f64| GuavaConfig::new(n, p).ok().map(|c| (c.bits(), c.hashes()));
    let p = super::least_memory_fpp(target, n, build, |p| {
        GuavaConfig::new(n, p).and_then(|c| c.build()).map(|f| f.fp)
    })?;
    GuavaConfig::new(n, p)?.configured()
}
