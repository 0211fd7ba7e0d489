//! The split-block Bloom filter of Parquet (and Arrow, Impala, Kudu), as parquet-java's
//! writer sizes it.
//!
//! # Layout (Parquet format, `BloomFilter.md`: split block Bloom filter)
//! `z` blocks of 256 bits, each eight 32-bit words. A key's 64-bit hash picks block
//! `((h >> 32) · z) >> 32`; its low 32 bits `x` set one bit in **each** word `i`, bit
//! `(x · salt_i) >> 27` for eight fixed odd salts. A block is thus a partitioned filter of
//! eight 32-bit slices, `k = 8` bits per key.
//!
//! # FP (derived here; tested against the reference filter in `bfopt-validation`)
//! Block loads are `Bin(n, 1/z)`; in a block holding `j` keys, the queried bit of a word
//! is set with probability `1 - (31/32)^j`, independently across the eight words (each key
//! sets exactly one bit per word), so
//! ```text
//! fp = Σ_j Bin(j; n, 1/z) · (1 - (1 - 1/32)^j)^8
//! ```
//! — [`crate::classic::fp_partitioned`]`(32, 8, j)` mixed over the block load. Exact for
//! ideal hashes.
//!
//! # Sizing (parquet-java 1.18: `BlockSplitBloomFilter.optimalNumOfBits`, its constructor)
//! With `parquet.bloom.filter.expected.ndv = n` and `parquet.bloom.filter.fpp = p`:
//! ```text
//! m        = -8·n / ln(1 - p^(1/8))                 (spec: a block of 8 slices at fpp p)
//! numBits  = (int) m, at most 2^30; (numBits + 255) & ~256; at least 256
//! numBytes = numBits / 8; at least 32; rounded up to a power of two;
//!            at most parquet.bloom.filter.max.bytes (default 1 MiB; 32 < max < 128 MiB)
//! ```
//! `& ~256` clears one bit instead of rounding to a multiple of 256 (it leaves up to 255
//! bits more, or one bit less, than `numBits`); after the power-of-two rounding that
//! changes the size only when `numBits/8` is within 32 bytes of a power of two. The cap
//! matters more: at the defaults, 10^6 values at 1% want 1.21 MB, round up to 2 MiB, and
//! get 1 MiB.
//! The filter is per column chunk: `n` is the distinct values of one row group.

use super::{typed, BuiltFilter, Configured, SystemLayout};
use crate::classic::fp_partitioned;
use crate::error::{check, ModelError};
use crate::numeric::{binomial_pmf, probability, CompensatedSum};

/// Bits per block.
pub const BLOCK_BITS: u64 = 256;
/// 32-bit words per block; one bit is set in each (`k`).
pub const WORDS: u32 = 8;
/// Bits per word.
pub const WORD_BITS: u64 = 32;
/// The eight salts of the format specification.
pub const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];
/// Smallest filter (one block), `LOWER_BOUND_BYTES`.
pub const LOWER_BOUND_BYTES: u64 = 32;
/// Largest filter, `UPPER_BOUND_BYTES` (128 MiB).
pub const UPPER_BOUND_BYTES: u64 = 128 << 20;
/// Default of `parquet.bloom.filter.max.bytes` (1 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 20;

/// FP of a split-block filter of `bits` bits (`⌊bits/256⌋` blocks) holding `n` keys.
///
/// # Formula
/// ```text
/// fp = Σ_j Bin(j; n, 1/z) · (1 - (1 - 1/32)^j)^8,   z = ⌊bits/256⌋
/// ```
/// # Numerics
/// The block load law is walked from its mode (`binomial_pmf`, terms below 1e-30 of the
/// peak dropped). A law whose 13-sd lower end exceeds 2000 keys per block is not walked:
/// every block is then saturated (`(31/32)^2000 < 1e-27`).
///
/// # Errors
/// `bits < 256`; `n` above 2^50.
pub fn fp(bits: u64, n: u64) -> Result<f64, ModelError> {
    check::in_range("bits", bits, BLOCK_BITS..=(1 << 50))?;
    check::in_range("n", n, 0..=(1 << 50))?;
    let z = bits / BLOCK_BITS;
    let in_block = |j: u64| fp_partitioned(WORD_BITS as f64, f64::from(WORDS), j as f64);
    if z == 1 {
        return Ok(in_block(n));
    }
    let p = 1.0 / z as f64;
    let mean = n as f64 * p;
    let floor = mean - 13.0 * (mean * (1.0 - p)).sqrt();
    if floor > 2000.0 {
        return Ok(in_block(floor as u64));
    }
    let sum: CompensatedSum = binomial_pmf(n, p, 1e-30)
        .into_iter()
        .map(|(j, pmf)| pmf * in_block(j))
        .collect();
    Ok(probability(sum.value()))
}

/// parquet-java's writer properties for one column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParquetConfig {
    ndv: u64,
    fpp: f64,
    max_bytes: u64,
}

impl ParquetConfig {
    /// `expected.ndv = ndv`, `fpp = fpp`, `max.bytes` at its default (1 MiB).
    ///
    /// # Errors
    /// `fpp` outside (0, 1) (the writer's `checkArgument`), `ndv` outside 1 to 2^40.
    pub fn new(ndv: u64, fpp: f64) -> Result<Self, ModelError> {
        check::open_probability("fpp", fpp)?;
        check::in_range("ndv", ndv, super::CAPACITY)?;
        Ok(Self {
            ndv,
            fpp,
            max_bytes: DEFAULT_MAX_BYTES,
        })
    }

    /// Sets `parquet.bloom.filter.max.bytes`.
    ///
    /// # Errors
    /// `max_bytes` outside 1 to 2^31 - 1 (a Java `int`).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Result<Self, ModelError> {
        self.max_bytes = check::in_range("max_bytes", max_bytes, 1..=i32::MAX as u64)?;
        Ok(self)
    }

    /// `optimalNumOfBits(ndv, fpp)`, with Java's `int` arithmetic.
    pub fn optimal_num_of_bits(&self) -> u64 {
        let m = -8.0 * self.ndv as f64 / (1.0 - self.fpp.powf(1.0 / 8.0)).ln();
        // Java `(int) m` saturates like Rust's `as`.
        let mut num_bits = m as i32;
        if i64::from(num_bits) > (UPPER_BOUND_BYTES << 3) as i64 || m < 0.0 {
            num_bits = (UPPER_BOUND_BYTES << 3) as i32;
        }
        num_bits = (num_bits + 255) & !256;
        num_bits.max(256) as u64
    }

    /// Bytes of the bitset: the constructor's rounding of `optimalNumOfBits / 8`.
    pub fn bytes(&self) -> u64 {
        let max = if self.max_bytes > LOWER_BOUND_BYTES && self.max_bytes < UPPER_BOUND_BYTES {
            self.max_bytes
        } else {
            UPPER_BOUND_BYTES
        };
        let mut bytes = (self.optimal_num_of_bits() / 8).max(LOWER_BOUND_BYTES);
        if !bytes.is_power_of_two() {
            // Integer.highestOneBit(numBytes) << 1
            bytes = (1u64 << (63 - bytes.leading_zeros())) << 1;
        }
        if bytes > max {
            bytes = max;
        }
        bytes
    }

    /// What the writer builds, holding `ndv` distinct values.
    ///
    /// # Errors
    /// None for valid configurations.
    pub fn build(&self) -> Result<BuiltFilter, ModelError> {
        BuiltFilter::new(self.bytes() * 8, WORDS, SystemLayout::SplitBlock, self.ndv)
    }

    /// The properties as typed, and what they build.
    ///
    /// # Errors
    /// As [`Self::build`].
    pub fn configured(&self) -> Result<Configured, ModelError> {
        let mut config = format!("ndv={} fpp={}", self.ndv, typed(self.fpp));
        if self.max_bytes != DEFAULT_MAX_BYTES {
            config.push_str(&format!(" max.bytes={}", self.max_bytes));
        }
        Ok(Configured {
            config,
            filter: self.build()?,
        })
    }
}

/// The writer properties of least memory whose filter has FP at most `target` with `n`
/// distinct values: the smallest power-of-two size that meets it, the `fpp` (the target
/// itself when it sizes that, else the shortest decimal that does) and `max.bytes` when
/// the size exceeds its 1 MiB default.
///
/// # Errors
/// `target` outside (0, 1), `n` outside 1 to 2^40; [`ModelError::Infeasible`] when even
/// 128 MiB does not meet the target.
pub fn suggest(target: f64, n: u64) -> Result<Configured, ModelError> {
    check::open_probability("fp", target)?;
    let mut bytes = LOWER_BOUND_BYTES;
    while fp(bytes * 8, n)? > target {
        if bytes >= UPPER_BOUND_BYTES {
            return Err(ModelError::infeasible(
                format!(
                    "a split-block filter of at most 128 MiB has FP > {target} with {n} values"
                ),
                format!("FP {:.4e} at 128 MiB", fp(UPPER_BOUND_BYTES * 8, n)?),
            ));
        }
        bytes *= 2;
    }
    let with = |p: f64| -> Result<ParquetConfig, ModelError> {
        let c = ParquetConfig::new(n, p)?;
        if bytes > DEFAULT_MAX_BYTES {
            c.with_max_bytes(bytes)
        } else {
            Ok(c)
        }
    };
    let sizes = |p: f64| with(p).is_ok_and(|c| c.bytes() == bytes);
    if sizes(target) {
        return with(target)?.configured();
    }
    // bytes(p) falls as p grows: the largest p still sizing at least `bytes`.
    let at_least = |p: f64| with(p).is_ok_and(|c| c.bytes() >= bytes);
    let lo = super::last_true_log(f64::MIN_POSITIVE, 1.0 - f64::EPSILON, at_least);
    let p = super::shortest_decimal(0.0, lo, sizes).ok_or_else(|| {
        ModelError::infeasible(
            format!("no fpp sizes the split-block filter at {bytes} bytes for {n} values"),
            format!(
                "fpp {} sizes {} bytes",
                typed(lo),
                with(lo).map_or(0, |c| c.bytes())
            ),
        )
    })?;
    with(p)?.configured()
}
