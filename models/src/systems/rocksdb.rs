//! RocksDB's cache-local Bloom filter (`FastLocalBloom`, `format_version >= 5`), set by
//! `NewBloomFilterPolicy(bits_per_key)` / `bloom_filter:<bits_per_key>`.
//!
//! # Layout and probes (`util/bloom_impl.h`, `FastLocalBloomImpl`)
//! A key's 64-bit hash `h` gives `h1` (low 32 bits) and `h2` (high 32 bits). `h1` picks a
//! 64-byte cache line, `FastRange32(h1, len/64) = (h1 · lines) >> 32`; within it, probe `i`
//! sets bit `(h2 · 0x9e3779b9^i mod 2^32) >> 23` (the top 9 bits; 512 bits per line). This
//! is the blocked layout with 512-bit blocks, [`crate::classic::Layout::Blocked`], whose FP
//! is the block-load mixture of exact in-block FPs ([`crate::classic::fp_blocked_exact`]).
//! The model takes the `k` probes as independent uniform bits of the line; the reference
//! filter in `bfopt-validation` uses RocksDB's multiplicative sequence and checks it.
//!
//! # Sizing (`table/block_based/filter_policy.cc`, RocksDB 11.9)
//! ```text
//! bits_per_key: < 0.5 no filter; < 1 → 1; ≥ 100 → 100
//! millibits = (int) (bits_per_key · 1000 + 0.500001)
//! len       = ⌈n · millibits / 8000⌉ bytes, rounded up to a multiple of 64
//!             (+5 bytes of metadata, not counted in `bits` here)
//! k         = ChooseNumProbes(millibits): 1 up to 2080, 2 up to 3580, 3 up to 5100,
//!             4 up to 6640, 5 up to 8300, 6 up to 10070, 7 up to 11720, 8 up to 14001,
//!             9 up to 16050, 10 up to 18300, 11 up to 22001, 12 up to 25501,
//!             (millibits - 1)/2000 - 1 up to 50000, then 24
//! ```
//! `n` is the keys of one filter: one SST file (or one partition of a partitioned
//! filter). With `optimize_filters_for_memory = true` (the default since RocksDB 9.2)
//! each filter's length is moved to fit the allocator's size classes and `k` follows the
//! actual bits per key, keeping the average near this rule; that variation is not
//! modelled (set the option to false to build exactly this filter).

use super::{BuiltFilter, Configured, SystemLayout};
use crate::error::{check, ModelError};

/// Bits of one cache line.
pub const LINE_BITS: u64 = 512;
/// Bytes of metadata after the bit array.
pub const METADATA_BYTES: u64 = 5;
/// Largest bit array the format supports, in bytes.
const MAX_LEN: u64 = 0xffff_ffc0;
/// Millibits per key the policy can hold after sanitising (1 to 100 bits per key).
const MILLIBITS: std::ops::RangeInclusive<u32> = 1000..=100_000;

/// `FastLocalBloomImpl::ChooseNumProbes(millibits_per_key)`.
pub fn choose_num_probes(millibits: u32) -> u32 {
    const STEPS: [(u32, u32); 12] = [
        (2080, 1),
        (3580, 2),
        (5100, 3),
        (6640, 4),
        (8300, 5),
        (10070, 6),
        (11720, 7),
        (14001, 8),
        (16050, 9),
        (18300, 10),
        (22001, 11),
        (25501, 12),
    ];
    if let Some(&(_, k)) = STEPS.iter().find(|&&(limit, _)| millibits <= limit) {
        return k;
    }
    if millibits > 50_000 {
        24
    } else {
        (millibits - 1) / 2000 - 1
    }
}

/// A Bloom policy of `bits_per_key`, for a filter of `n` keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RocksDbConfig {
    millibits: u32,
    n: u64,
}

impl RocksDbConfig {
    /// `NewBloomFilterPolicy(bits_per_key)` for `n` keys, sanitised as the policy does.
    ///
    /// # Errors
    /// `bits_per_key` below 0.5 (no filter) or NaN; `n` outside 1 to 2^40.
    pub fn new(bits_per_key: f64, n: u64) -> Result<Self, ModelError> {
        if !(bits_per_key >= 0.5) {
            return Err(ModelError::invalid(
                "bits_per_key",
                bits_per_key,
                "bits_per_key >= 0.5 (below, RocksDB builds no filter)",
            ));
        }
        check::in_range("n", n, super::CAPACITY)?;
        let bpk = bits_per_key.clamp(1.0, 100.0);
        Ok(Self {
            millibits: (bpk * 1000.0 + 0.500001) as u32,
            n,
        })
    }

    /// The bits per key a user types for `fp` when sizing by the textbook formula of a
    /// standard filter, `ln(1/fp)/(ln 2)²`, to three decimals (RocksDB takes millibits).
    ///
    /// # Errors
    /// `fp` outside (0, 1); `n` outside 1 to 2^40.
    pub fn for_fp(fp: f64, n: u64) -> Result<Self, ModelError> {
        check::open_probability("fp", fp)?;
        let ln2 = std::f64::consts::LN_2;
        let bpk = (-fp.ln() / (ln2 * ln2) * 1000.0).round() / 1000.0;
        Self::new(bpk, n)
    }

    fn with_millibits(millibits: u32, n: u64) -> Self {
        Self { millibits, n }
    }

    /// Millibits per key.
    pub fn millibits(&self) -> u32 {
        self.millibits
    }

    /// Bytes of the bit array (`CalculateSpace` without the metadata).
    pub fn len_bytes(&self) -> u64 {
        let raw = (self.n * u64::from(self.millibits))
            .div_ceil(8000)
            .min(MAX_LEN);
        raw.div_ceil(64) * 64
    }

    /// Probes per key.
    pub fn hashes(&self) -> u32 {
        choose_num_probes(self.millibits)
    }

    /// What the policy builds for `n` keys.
    ///
    /// # Errors
    /// None for valid configurations.
    pub fn build(&self) -> Result<BuiltFilter, ModelError> {
        BuiltFilter::new(
            self.len_bytes() * 8,
            self.hashes(),
            SystemLayout::CacheLine,
            self.n,
        )
    }

    /// The policy as typed, and what it builds.
    ///
    /// # Errors
    /// As [`Self::build`].
    pub fn configured(&self) -> Result<Configured, ModelError> {
        Ok(Configured {
            config: format!(
                "NewBloomFilterPolicy({})",
                f64::from(self.millibits) / 1000.0
            ),
            filter: self.build()?,
        })
    }
}

/// The `bits_per_key` of least memory whose filter has FP at most `target` with `n` keys.
///
/// Every run of millibits with one probe count is searched (within a run the FP falls as
/// the millibits grow); among equal lengths the fewest decimals are typed.
///
/// # Errors
/// `target` outside (0, 1), `n` outside 1 to 2^40; [`ModelError::Infeasible`] when 100
/// bits per key do not meet it.
pub fn suggest(target: f64, n: u64) -> Result<Configured, ModelError> {
    check::open_probability("fp", target)?;
    check::in_range("n", n, super::CAPACITY)?;
    let fp_at = |mb: u32| {
        RocksDbConfig::with_millibits(mb, n)
            .build()
            .map(|f| f.fp)
            .unwrap_or(1.0)
    };
    let mut best: Option<(u64, u32)> = None;
    let mut start = *MILLIBITS.start();
    while start <= *MILLIBITS.end() {
        let k = choose_num_probes(start);
        let mut end = start;
        while end < *MILLIBITS.end() && choose_num_probes(end + 1) == k {
            end += 1;
        }
        if fp_at(end) <= target {
            let mb = crate::numeric::first_true(u64::from(start), u64::from(end), |mb| {
                fp_at(mb as u32) <= target
            })
            .map_or(end, |mb| mb as u32);
            let len = RocksDbConfig::with_millibits(mb, n).len_bytes();
            if best.is_none_or(|(l, _)| len < l) {
                // Same length and probes, fewest decimals.
                let same = |x: u32| {
                    let c = RocksDbConfig::with_millibits(x, n);
                    c.len_bytes() == len && c.hashes() == k
                };
                let tidy = (mb..=end)
                    .take_while(|&x| same(x))
                    .max_by_key(|&x| (trailing_zeros(x), std::cmp::Reverse(x)))
                    .unwrap_or(mb);
                best = Some((len, tidy));
            }
        }
        start = end + 1;
    }
    let (_, mb) = best.ok_or_else(|| {
        ModelError::infeasible(
            format!("RocksDB's Bloom filter has FP > {target} at 100 bits per key"),
            format!("FP {:.4e}", fp_at(*MILLIBITS.end())),
        )
    })?;
    RocksDbConfig::with_millibits(mb, n).configured()
}

fn trailing_zeros(mut x: u32) -> u32 {
    let mut z = 0;
    while x > 0 && x % 10 == 0 && z < 3 {
        x /= 10;
        z += 1;
    }
    z
}
