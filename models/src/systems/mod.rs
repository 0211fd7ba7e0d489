//! The Bloom filters people run, modelled as their systems build them.
//!
//! Most users do not ship bfopt's reference filters: they configure the filter of a
//! system they already run. Each system turns the configuration typed into it (an FP
//! target and a capacity, or bits per key) into a filter its own way, with its own
//! rounding and layout, and several quietly miss the target they are given. For each
//! system this module says what a configuration really builds (bits, hashes, layout),
//! the FP that filter really has by bfopt's model of its layout, and the configuration
//! that meets a target with the least memory.
//!
//! | system | version modelled | what the user types | layout | module |
//! |---|---|---|---|---|
//! | Guava | `BloomFilter.java` of 33.x (k from `p`) | `BloomFilter.create(funnel, n, p)` | standard, 64-bit words | [`guava`] |
//! | RedisBloom | 2.2 to 8.x (`deps/bloom/bloom.c`, `src/sb.c`) | `BF.RESERVE key p n NONSCALING` | standard, 64-bit words | [`redisbloom`] |
//! | Parquet (parquet-java) | 1.18 (`BlockSplitBloomFilter.java`) | `parquet.bloom.filter.expected.ndv`, `.fpp`, `.max.bytes` | split block | [`split_block`] |
//! | RocksDB | 11.9 (`util/bloom_impl.h`, `filter_policy.cc`) | `NewBloomFilterPolicy(bits_per_key)` | one 64-byte line per key | [`rocksdb`] |
//! | fastbloom (Rust) | 0.17.0 | `BloomFilter::with_false_pos(p).expected_items(n)` | standard, 64-bit words | [`fastbloom`] |
//!
//! The FP of a built filter is bfopt's model of its layout: [`crate::classic`] for the
//! standard layout and the cache-line blocked layout, [`split_block::fp`] for the
//! split-block layout. Hashes are ideal in these models; the reference implementations
//! of the split-block and cache-line layouts in `bfopt-validation` (with each format's
//! own probe scheme) check them by simulation.
//!
//! # Example
//! Guava told 10^6 keys at 1% truncates the textbook size and misses the target; bfopt's
//! `fpp` costs 7 872 more bits and meets it.
//! ```
//! use bfopt_models::systems::{target, System};
//! let t = target(System::Guava, 0.01, 1_000_000)?;
//! assert_eq!(t.requested.config, "BloomFilter.create(f, 1000000, 0.01)");
//! assert!(t.requested.filter.fp > 0.01);
//! assert_eq!(t.suggested.config, "BloomFilter.create(f, 1000000, 0.0099624)");
//! assert!(t.suggested.filter.fp <= 0.01);
//! assert_eq!(t.suggested.filter.bits - t.requested.filter.bits, 7872);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # Scaling
//! RedisBloom without `NONSCALING` builds its first sub-filter at `error_rate/2`
//! ([`redisbloom::RedisBloomConfig::first_link`]) and grows a chain once the capacity is
//! exceeded: [`redisbloom::RedisBloomChain`] models it through [`crate::scalable`], and
//! [`redisbloom::scaling_target`] says what to type to meet a target at the final count.
//!
//! # References
//! * Guava, `com.google.common.hash.BloomFilter` and `BloomFilterStrategies`
//!   (<https://github.com/google/guava>).
//! * RedisBloom, `BF.RESERVE` (<https://redis.io/docs/latest/commands/bf.reserve/>) and
//!   its source (<https://github.com/RedisBloom/RedisBloom>).
//! * Apache Parquet format, *Bloom filter* (`BloomFilter.md`, split block Bloom filter),
//!   and parquet-java (<https://github.com/apache/parquet-java>).
//! * RocksDB wiki, *RocksDB Bloom Filter* (format_version 5, FastLocalBloom), and
//!   <https://github.com/facebook/rocksdb>.
//! * fastbloom 0.17.0 (<https://docs.rs/fastbloom/0.17.0>).

pub mod fastbloom;
pub mod guava;
pub mod redisbloom;
pub mod rocksdb;
pub mod split_block;

use crate::error::{check, ModelError};
use serde::Serialize;
use std::ops::RangeInclusive;

/// The systems modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum System {
    /// Guava's `BloomFilter` (Java).
    Guava,
    /// RedisBloom's `BF.RESERVE ... NONSCALING`.
    RedisBloom,
    /// Parquet's split-block Bloom filter as parquet-java's writer sizes it.
    Parquet,
    /// RocksDB's cache-local Bloom filter (FastLocalBloom, format_version >= 5).
    RocksDb,
    /// The `fastbloom` crate (Rust).
    Fastbloom,
}

impl System {
    /// Every system, in the order reports list them.
    pub const ALL: [System; 5] = [
        System::Guava,
        System::RedisBloom,
        System::Parquet,
        System::RocksDb,
        System::Fastbloom,
    ];

    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            System::Guava => "guava",
            System::RedisBloom => "redisbloom",
            System::Parquet => "parquet",
            System::RocksDb => "rocksdb",
            System::Fastbloom => "fastbloom",
        }
    }

    /// The version whose sizing rules are modelled.
    pub fn version(self) -> &'static str {
        match self {
            System::Guava => "Guava 33.x (k = round(log2(1/p)))",
            System::RedisBloom => "RedisBloom 2.2-8.x",
            System::Parquet => "parquet-java 1.18",
            System::RocksDb => "RocksDB 11.9, optimize_filters_for_memory = false",
            System::Fastbloom => "fastbloom 0.17.0",
        }
    }
}

/// How a system lays out the bits of its filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SystemLayout {
    /// One bit array; `k` indices anywhere ([`crate::classic::Layout::Standard`]).
    Standard,
    /// 256-bit blocks of eight 32-bit words, one bit per word ([`split_block`]).
    SplitBlock,
    /// One 512-bit cache line per key, `k` bits in it
    /// ([`crate::classic::Layout::Blocked`] with 512-bit blocks).
    CacheLine,
}

/// The filter a configuration really builds, holding `items` keys.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BuiltFilter {
    /// Bits of the filter's bit array (metadata excluded).
    pub bits: u64,
    /// Bits set per key (`k`).
    pub hashes: u32,
    /// Layout.
    pub layout: SystemLayout,
    /// Keys inserted `n`.
    pub items: u64,
    /// FP of this filter with `items` keys, by bfopt's model of its layout.
    pub fp: f64,
}

impl BuiltFilter {
    /// A filter and its modelled FP.
    ///
    /// # Errors
    /// Bits, hashes or items outside [`crate::classic::ClassicParams`]'s ranges.
    pub fn new(
        bits: u64,
        hashes: u32,
        layout: SystemLayout,
        items: u64,
    ) -> Result<Self, ModelError> {
        use crate::classic::{ClassicParams, Layout};
        let fp = match layout {
            SystemLayout::Standard => {
                ClassicParams::new(bits, hashes, items, Layout::Standard)?.fp()
            }
            SystemLayout::CacheLine => ClassicParams::new(
                bits,
                hashes,
                items,
                Layout::Blocked {
                    block_bits: rocksdb::LINE_BITS,
                },
            )?
            .fp(),
            SystemLayout::SplitBlock => split_block::fp(bits, items)?,
        };
        Ok(Self {
            bits,
            hashes,
            layout,
            items,
            fp,
        })
    }

    /// Bits per key `bits / items`.
    pub fn bits_per_item(&self) -> f64 {
        self.bits as f64 / self.items as f64
    }
}

/// A configuration as the user types it, and what it builds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Configured {
    /// The configuration, written as the system spells it.
    pub config: String,
    /// What it builds.
    pub filter: BuiltFilter,
}

/// A target in one system: what the typed configuration builds, and what bfopt would type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemTarget {
    /// The system.
    pub system: System,
    /// The FP target.
    pub fp_target: f64,
    /// Keys the filter must hold.
    pub capacity: u64,
    /// The target typed as the system's own configuration, and what it builds.
    pub requested: Configured,
    /// The configuration of least memory whose filter meets the target.
    pub suggested: Configured,
    /// RedisBloom only: the same request without `NONSCALING`, whose first sub-filter
    /// (built at half the error rate) is the whole filter up to the capacity.
    pub scaling: Option<Configured>,
}

/// Allowed capacities (keys per filter) for every system; each system may allow less.
pub const CAPACITY: RangeInclusive<u64> = 1..=(1 << 40);

/// What `system` builds when told `fp` and `capacity`, and the configuration of least
/// memory that meets `fp` at `capacity` keys.
///
/// # Errors
/// `fp` outside (0, 1), `capacity` outside [`CAPACITY`] or the system's own range;
/// [`ModelError::Infeasible`] when no configuration of the system meets the target.
pub fn target(system: System, fp: f64, capacity: u64) -> Result<SystemTarget, ModelError> {
    check::open_probability("fp", fp)?;
    check::in_range("capacity", capacity, CAPACITY)?;
    let (requested, suggested) = match system {
        System::Guava => (
            guava::GuavaConfig::new(capacity, fp)?.configured()?,
            guava::suggest(fp, capacity)?,
        ),
        System::RedisBloom => (
            redisbloom::RedisBloomConfig::new(capacity, fp)?.configured()?,
            redisbloom::suggest(fp, capacity)?,
        ),
        System::Parquet => (
            split_block::ParquetConfig::new(capacity, fp)?.configured()?,
            split_block::suggest(fp, capacity)?,
        ),
        System::RocksDb => (
            rocksdb::RocksDbConfig::for_fp(fp, capacity)?.configured()?,
            rocksdb::suggest(fp, capacity)?,
        ),
        System::Fastbloom => (
            fastbloom::FastbloomConfig::with_false_pos(fp, capacity)?.configured()?,
            fastbloom::suggest(fp, capacity)?,
        ),
    };
    // The request itself when it meets the target in no more memory.
    let suggested = if requested.filter.fp <= fp && requested.filter.bits <= suggested.filter.bits {
        requested.clone()
    } else {
        suggested
    };
    debug_assert!(suggested.filter.fp <= fp);
    let scaling = match system {
        System::RedisBloom => Some(redisbloom::scaling(capacity, fp)?),
        _ => None,
    };
    Ok(SystemTarget {
        system,
        fp_target: fp,
        capacity,
        requested,
        suggested,
        scaling,
    })
}

/// The largest value in `(lo, hi]` with the fewest significant decimal digits that
/// `accept` takes (its digits truncated from `hi`, so it never exceeds `hi`), or `None`.
///
/// Used to print the value a user types: `0.0098` rather than `0.009812345678`.
pub(crate) fn shortest_decimal(lo: f64, hi: f64, accept: impl Fn(f64) -> bool) -> Option<f64> {
    if !(hi > 0.0 && hi.is_finite()) {
        return None;
    }
    let exp = hi.log10().floor() as i32;
    for digits in 1..=17i32 {
        let scale = 10f64.powi(exp - digits + 1);
        // Truncate to `digits` significant digits, then print and parse to clean the float.
        let text = format!(
            "{:.*e}",
            (digits - 1) as usize,
            (hi / scale).floor() * scale
        );
        let Ok(c) = text.parse::<f64>() else { continue };
        if c > lo && c <= hi && accept(c) {
            return Some(c);
        }
    }
    accept(hi).then_some(hi)
}

/// The FP knob `p` of least memory for systems that derive both the size and `k` from `p`
/// (Guava, RedisBloom): the size falls as `p` grows, `k` is a step function of `p`.
///
/// For each `k` the system can produce (1 to 64), the region of `p` giving that `k` is
/// found by bisection, and in it the largest `p` whose filter meets `target` (with `k`
/// fixed, the FP rises with `p` as the bits fall). The `(bits, k)` of least bits wins, and
/// the shortest decimal `p` that builds exactly it is returned. `build(p)` gives
/// `(bits, k)`, `fp_of(p)` the built filter's FP. About 600 evaluations per `k`, whatever
/// the capacity.
pub(crate) fn least_memory_fpp(
    target: f64,
    n: u64,
    build: impl Fn(f64) -> Option<(u64, u32)>,
    fp_of: impl Fn(f64) -> Result<f64, ModelError>,
) -> Result<f64, ModelError> {
    check::open_probability("fp", target)?;
    let (tiny, top) = (f64::MIN_POSITIVE, 1.0 - f64::EPSILON);
    let build = &build;
    let hashes_at_least = |k: u32| move |p: f64| build(p).is_some_and(|(_, kk)| kk >= k);
    let mut best: Option<(u64, f64, u32, f64, f64)> = None;
    for k in crate::classic::ClassicParams::K {
        // p giving exactly k hashes: (bottom, ceiling].
        let ceiling = last_true_log(tiny, top, hashes_at_least(k));
        let bottom = last_true_log(tiny, top, hashes_at_least(k + 1));
        if !(ceiling > bottom) || !hashes_at_least(k)(ceiling) {
            continue;
        }
        let meets = |p: f64| {
            p > bottom
                && build(p).is_some_and(|(_, kk)| kk == k)
                && fp_of(p).is_ok_and(|f| f <= target)
        };
        // The smallest p of the region, just above its bottom.
        let low = bottom * (1.0 + 4.0 * f64::EPSILON);
        if !meets(low) {
            continue;
        }
        let p = last_true_log(low, ceiling, meets);
        let (Some((bits, _)), Ok(fp)) = (build(p), fp_of(p)) else {
            continue;
        };
        // Least bits; among equal bits, the lower FP.
        if best.is_none_or(|(b, f, ..)| (bits, fp) < (b, f)) {
            best = Some((bits, fp, k, bottom, p));
        }
    }
    let (bits, _, k, bottom, p) = best.ok_or_else(|| {
        ModelError::infeasible(
            format!("no fp setting gives FP <= {target} with {n} keys"),
            "a looser target or fewer keys",
        )
    })?;
    let accept = |c: f64| build(c) == Some((bits, k)) && fp_of(c).is_ok_and(|f| f <= target);
    Ok(shortest_decimal(bottom, p, accept).unwrap_or(p))
}

/// The largest `x` in `[lo, hi]` (to 200 halvings in log space) for which `pred`, true at
/// `lo` and false beyond some point, holds: `hi` if it holds there.
pub(crate) fn last_true_log(lo: f64, hi: f64, pred: impl Fn(f64) -> bool) -> f64 {
    if pred(hi) {
        return hi;
    }
    let (mut a, mut b) = (lo, hi);
    for _ in 0..200 {
        let mid = (a * b).sqrt();
        if pred(mid) {
            a = mid;
        } else {
            b = mid;
        }
    }
    a
}

/// Formats a value typed into a system: the shortest text that parses back to it.
/// Below 1e-4 in exponent form (`1e-9`), which Java, strtod and Rust all parse.
pub(crate) fn typed(x: f64) -> String {
    if x < 1e-4 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests;
