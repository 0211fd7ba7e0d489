//! RedisBloom's `BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING]`.
//!
//! # Sizing (RedisBloom 2.2 to 8.x: `deps/bloom/bloom.c` `bloom_init`, `src/sb.c`)
//! `BF.RESERVE` creates the filter with `BLOOM_OPT_NOROUND | BLOOM_OPT_FORCE64`:
//! ```text
//! bpe    = -ln(error) / 0.480453013918201          calc_bpe: ln(2)² as printed
//! bits   = (uint64) (capacity · bpe)               NOROUND: no power of two; at least 1
//! bytes  = 8 · ⌈bits / 64⌉, bits = 8 · bytes        whole 64-bit words
//! hashes = (int) ceil(0.693147180559945 · bpe)     = ⌈log2(1/error)⌉
//! ```
//! `error_rate` above 0.25 is capped to 0.25 (`BF_ERROR_RATE_CAP`); `capacity` runs
//! from 1 to 2^30 (`bf-initial-size` limits). The BF.RESERVE page prints the same rule:
//! 1% takes 7 hashes and 9.585 bits per item, 0.1% 10 and 14.378, 0.01% 14 and 19.170.
//!
//! Without `NONSCALING`, `SB_NewChain` builds the first sub-filter at
//! `error_rate · 0.5` (`ERROR_TIGHTENING_RATIO`; since 2.2.0) and each later one at half
//! the previous error with `expansion` times the capacity ([`RedisBloomConfig::first_link`]
//! sizes it; the chain's compound FP is not modelled here).
//!
//! # Layout
//! 64-bit MurmurHash64A twice (`a`, `b`), indices `(a + i·b) mod bits`: the standard
//! layout ([`crate::classic::fp_standard`]).

use super::{typed, BuiltFilter, Configured, SystemLayout};
use crate::error::{check, ModelError};
use std::ops::RangeInclusive;

/// `ln(2)²` as `calc_bpe` writes it.
const LN2_SQUARED: f64 = 0.480_453_013_918_201;
/// `ln(2)` as `bloom_init` writes it: 15 digits, one ulp-scale below `LN_2`, which
/// decides `⌈LN2 · bpe⌉` when `log2(1/error)` is an integer.
#[allow(clippy::approx_constant)]
const LN2: f64 = 0.693_147_180_559_945;
/// `BF_ERROR_RATE_CAP`: larger error rates are treated as this.
pub const ERROR_RATE_CAP: f64 = 0.25;
/// Capacities `BF.RESERVE` accepts (`bf-initial-size` limits).
pub const CAPACITY: RangeInclusive<u64> = 1..=(1 << 30);
/// `ERROR_TIGHTENING_RATIO` of the scaling chain.
pub const TIGHTENING: f64 = 0.5;

/// One sub-filter as `bloom_init` sizes it: `capacity` entries at `error`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedisBloomConfig {
    capacity: u64,
    error: f64,
}

impl RedisBloomConfig {
    /// `BF.RESERVE key error capacity NONSCALING`.
    ///
    /// # Errors
    /// `error` outside (0, 1), `capacity` outside [`CAPACITY`] (the module's replies).
    pub fn new(capacity: u64, error: f64) -> Result<Self, ModelError> {
        check::open_probability("error_rate", error)?;
        check::in_range("capacity", capacity, CAPACITY)?;
        Ok(Self {
            capacity,
            error: error.min(ERROR_RATE_CAP),
        })
    }

    /// The first sub-filter of a scaling `BF.RESERVE key error capacity` (no
    /// `NONSCALING`): built at `error · 0.5`.
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn first_link(capacity: u64, error: f64) -> Result<Self, ModelError> {
        let c = Self::new(capacity, error)?;
        Self::new(capacity, c.error * TIGHTENING)
    }

    /// Bits per entry `bpe = -ln(error) / 0.480453013918201`.
    pub fn bpe(&self) -> f64 {
        let bpe = -(self.error.ln() / LN2_SQUARED);
        bpe.abs()
    }

    /// Hashes `⌈0.693147180559945 · bpe⌉`.
    pub fn hashes(&self) -> u32 {
        (LN2 * self.bpe()).ceil() as u32
    }

    /// Bits: `(uint64)(capacity · bpe)` (at least 1) rounded up to 64-bit words.
    pub fn bits(&self) -> u64 {
        let raw = ((self.capacity as f64 * self.bpe()) as u64).max(1);
        raw.div_ceil(64) * 64
    }

    /// What it builds, holding `capacity` keys.
    ///
    /// # Errors
    /// None for valid configurations (the hash count stays below 64 for any `f64` error).
    pub fn build(&self) -> Result<BuiltFilter, ModelError> {
        BuiltFilter::new(
            self.bits(),
            self.hashes(),
            SystemLayout::Standard,
            self.capacity,
        )
    }

    /// The command as typed, and what it builds.
    ///
    /// # Errors
    /// As [`Self::build`].
    pub fn configured(&self) -> Result<Configured, ModelError> {
        Ok(Configured {
            config: format!(
                "BF.RESERVE k {} {} NONSCALING",
                typed(self.error),
                self.capacity
            ),
            filter: self.build()?,
        })
    }
}

/// `BF.RESERVE key error capacity` without `NONSCALING`, as typed, and the first
/// sub-filter it builds (at `error · 0.5`): the whole filter until `capacity` keys.
///
/// # Errors
/// As [`RedisBloomConfig::new`].
pub fn scaling(capacity: u64, error: f64) -> Result<Configured, ModelError> {
    let typed_error = RedisBloomConfig::new(capacity, error)?.error;
    Ok(Configured {
        config: format!("BF.RESERVE k {} {capacity}", typed(typed_error)),
        filter: RedisBloomConfig::first_link(capacity, error)?.build()?,
    })
}

/// The `error_rate` to type into `BF.RESERVE key error_rate n NONSCALING` for the least
/// memory whose filter has FP at most `target` with `n` keys.
///
/// # Errors
/// `target` outside (0, 1), `n` outside [`CAPACITY`]; [`ModelError::Infeasible`].
pub fn suggest(target: f64, n: u64) -> Result<Configured, ModelError> {
    check::in_range("capacity", n, CAPACITY)?;
    let build = |p: f64| {
        RedisBloomConfig::new(n, p)
            .ok()
            .map(|c| (c.bits(), c.hashes()))
    };
    let p = super::least_memory_fpp(target, n, build, |p| {
        RedisBloomConfig::new(n, p)
            .and_then(|c| c.build())
            .map(|f| f.fp)
    })?;
    RedisBloomConfig::new(n, p)?.configured()
}
