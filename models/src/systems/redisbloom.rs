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
//! `error_rate · 0.5` (`ERROR_TIGHTENING_RATIO`; since 2.2.0) and `SBChain_Add`, when
//! the last sub-filter holds its `entries`, appends one of `entries · expansion` entries
//! at half the last one's error, each sized by the rule above ([`RedisBloomChain`]):
//! ```text
//! link i: entries = capacity · expansion^i,  error = error_rate · 0.5^(i+1)
//! ```
//! a scalable Bloom filter with `P0 = error_rate/2`, `r = 0.5`, `s = expansion` in
//! standard links ([`crate::scalable`], Section 4 [SCALABLE]); its compound FP after
//! `n` keys is [`crate::scalable::Chain::at`]. `BF.ADD` inserts a key only when no
//! sub-filter already reports it, so after `n` distinct keys the chain holds at most `n`
//! (fewer by its false positives): the compound FP at `n` inserted keys is an upper
//! bound of the FP after `n` distinct `BF.ADD`s, by less than `fp · n` keys.
//!
//! # Layout
//! 64-bit MurmurHash64A twice (`a`, `b`), indices `(a + i·b) mod bits`: the standard
//! layout ([`crate::classic::fp_standard`]).

use super::{typed, BuiltFilter, Configured, SystemLayout};
use crate::classic::Layout;
use crate::error::{check, ModelError};
use crate::scalable::{Chain, ChainMetrics, Link, ScalableParams};
use serde::Serialize;
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
/// `EXPANSION` values modelled (the chain's `unsigned growth`; 2 when not typed).
pub const EXPANSION: RangeInclusive<u64> = 1..=(1 << 20);
/// `EXPANSION` when `BF.RESERVE` names none (`bf-expansion-factor` default).
pub const EXPANSION_DEFAULT: u64 = 2;

/// Bits and hashes `bloom_init` gives `entries` keys at `error` (no range check on
/// `entries`: later sub-filters may exceed `BF.RESERVE`'s capacity limit).
fn size(entries: u64, error: f64) -> (u64, u32) {
    let bpe = (error.ln() / LN2_SQUARED).abs();
    let raw = ((entries as f64 * bpe) as u64).max(1);
    (raw.div_ceil(64) * 64, (LN2 * bpe).ceil() as u32)
}

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
        size(self.capacity, self.error).1
    }

    /// Bits: `(uint64)(capacity · bpe)` (at least 1) rounded up to 64-bit words.
    pub fn bits(&self) -> u64 {
        size(self.capacity, self.error).0
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

/// `BF.RESERVE key error_rate capacity [EXPANSION e]` (scaling): the chain of
/// sub-filters RedisBloom builds as keys arrive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RedisBloomChain {
    capacity: u64,
    error: f64,
    expansion: u64,
}

impl RedisBloomChain {
    /// A scaling filter as typed.
    ///
    /// # Errors
    /// `error_rate` outside (0, 1), `capacity` outside [`CAPACITY`], `expansion` outside
    /// [`EXPANSION`].
    pub fn new(capacity: u64, error: f64, expansion: u64) -> Result<Self, ModelError> {
        let c = RedisBloomConfig::new(capacity, error)?;
        check::in_range("expansion", expansion, EXPANSION)?;
        Ok(Self {
            capacity,
            error: c.error,
            expansion,
        })
    }

    /// The command as typed (`EXPANSION` only when not the default).
    pub fn command(&self) -> String {
        let mut c = format!("BF.RESERVE k {} {}", typed(self.error), self.capacity);
        if self.expansion != EXPANSION_DEFAULT {
            c.push_str(&format!(" EXPANSION {}", self.expansion));
        }
        c
    }

    /// The same chain as a scalable Bloom filter: `P0 = error/2`, `r = 0.5`,
    /// `s = expansion`, standard links (sized by RedisBloom's rule in [`Self::chain`],
    /// not by these parameters' own sizing).
    ///
    /// # Errors
    /// An expansion above [`ScalableParams::S`].
    pub fn scalable_params(&self) -> Result<ScalableParams, ModelError> {
        ScalableParams::new(
            self.capacity,
            self.error * TIGHTENING,
            TIGHTENING,
            self.expansion as f64,
            Layout::Standard,
        )
    }

    /// The sub-filters allocated once `n` keys are in: link `i` holds
    /// `capacity · expansion^i` entries at `error · 0.5^(i+1)`, sized as `bloom_init`
    /// sizes any filter.
    ///
    /// # Errors
    /// [`ModelError::Infeasible`] beyond [`ScalableParams::MAX_LINKS`] sub-filters or
    /// 2^50 entries in one.
    pub fn chain(&self, n: u64) -> Result<Chain, ModelError> {
        let mut links = Vec::new();
        let (mut entries, mut error, mut total) = (self.capacity, self.error * TIGHTENING, 0u64);
        loop {
            if links.len() == ScalableParams::MAX_LINKS
                || entries > *crate::classic::ClassicParams::N.end()
            {
                return Err(ModelError::infeasible(
                    format!("n = {n} keys"),
                    format!(
                        "at most {} sub-filters of at most 2^50 entries",
                        ScalableParams::MAX_LINKS
                    ),
                ));
            }
            let (m, k) = size(entries, error);
            links.push(Link {
                capacity: entries,
                fp_target: error,
                m,
                k,
            });
            total += entries;
            if total >= n {
                break;
            }
            entries = entries.saturating_mul(self.expansion);
            error *= TIGHTENING;
        }
        Chain::new(links, Layout::Standard)
    }

    /// The chain after `n` keys: sub-filters, compound FP, bits.
    ///
    /// # Errors
    /// As [`Self::chain`].
    pub fn at(&self, n: u64) -> Result<ChainMetrics, ModelError> {
        self.chain(n)?.at(n)
    }
}

/// A scaling request after `n` keys, and what bfopt would type instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalingTarget {
    /// The FP target at `n` keys.
    pub fp_target: f64,
    /// Keys the filter ends up holding.
    pub items: u64,
    /// The command as typed (`BF.RESERVE k fp capacity`).
    pub requested: String,
    /// Its chain at `n` keys.
    pub requested_at_n: ChainMetrics,
    /// The scaling command of least memory at `n` keys meeting the target (same
    /// capacity; `error_rate` and `EXPANSION` chosen).
    pub scaling: String,
    /// Its chain at `n` keys.
    pub scaling_at_n: ChainMetrics,
    /// `NONSCALING` sized for `n` keys ([`suggest`]), when `n` is within [`CAPACITY`].
    pub nonscaling: Option<Configured>,
}

/// Expansions tried by [`scaling_target`].
const EXPANSIONS: [u64; 7] = [1, 2, 3, 4, 8, 16, 32];

/// The largest `error_rate` (to a relative 2^-40, then its shortest decimal building
/// the same bits) with which `BF.RESERVE k error capacity EXPANSION e` meets `target` at
/// `n` keys, and its chain; `None` when none from `target/2^60` up does. The bits fall
/// as the error grows; the FP at `n` rises with it but for the steps of the hash count,
/// so the bisection finds a boundary of the feasible errors, not always the last one.
fn loosest_error(
    target: f64,
    capacity: u64,
    expansion: u64,
    n: u64,
) -> Result<Option<(RedisBloomChain, ChainMetrics)>, ModelError> {
    let at = |e: f64| RedisBloomChain::new(capacity, e, expansion).and_then(|c| c.at(n));
    let meets = |e: f64| at(e).is_ok_and(|x| x.fp <= target);
    let Some(start) = (0..60)
        .map(|j| target * 0.5f64.powi(j))
        .find(|&e| e >= check::FP_TARGET_MIN && meets(e))
    else {
        return Ok(None);
    };
    let (mut lo, mut hi) = (start.ln(), ERROR_RATE_CAP.ln());
    if meets(ERROR_RATE_CAP) {
        lo = hi;
    }
    while hi - lo > 1e-12 * hi.abs().max(1.0) && lo < hi {
        let mid = 0.5 * (lo + hi);
        if meets(mid.exp()) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let e = lo.exp();
    let bits = at(e)?.memory_bits;
    let e = super::shortest_decimal(0.0, e, |c| {
        at(c).is_ok_and(|x| x.fp <= target && x.memory_bits == bits)
    })
    .unwrap_or(e);
    let c = RedisBloomChain::new(capacity, e, expansion)?;
    Ok(Some((c, c.at(n)?)))
}

/// What `BF.RESERVE k fp capacity` (scaling, default `EXPANSION 2`) has become after
/// `n` keys, and the least-memory configuration that meets `fp` at `n`: a scaling
/// command with a chosen `error_rate` and `EXPANSION` (from 1, 2, 3, 4, 8, 16, 32), and
/// `NONSCALING` with capacity `n`.
///
/// # Errors
/// `fp` outside (0, 1), `capacity` outside [`CAPACITY`], `n` of zero;
/// [`ModelError::Infeasible`] when no scaling command meets the target.
pub fn scaling_target(fp: f64, capacity: u64, n: u64) -> Result<ScalingTarget, ModelError> {
    check::in_range("items", n, 1..=*crate::classic::ClassicParams::N.end())?;
    let requested = RedisBloomChain::new(capacity, fp, EXPANSION_DEFAULT)?;
    let requested_at_n = requested.at(n)?;
    let mut best: Option<(RedisBloomChain, ChainMetrics)> = None;
    for e in EXPANSIONS {
        if let Some(hit) = loosest_error(fp, capacity, e, n)? {
            if best
                .as_ref()
                .is_none_or(|b| hit.1.memory_bits < b.1.memory_bits)
            {
                best = Some(hit);
            }
        }
    }
    let (scaling, scaling_at_n) = best.ok_or_else(|| {
        ModelError::infeasible(
            format!("fp <= {} after {n} keys", crate::error::show_rate(fp)),
            "no scaling BF.RESERVE with this capacity and EXPANSION up to 32",
        )
    })?;
    let nonscaling = if CAPACITY.contains(&n) {
        Some(suggest(fp, n)?)
    } else {
        None
    };
    Ok(ScalingTarget {
        fp_target: fp,
        items: n,
        requested: requested.command(),
        requested_at_n,
        scaling: scaling.command(),
        scaling_at_n,
        nonscaling,
    })
}
