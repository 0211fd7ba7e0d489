//! Reference cache-local Bloom filter in RocksDB's `FastLocalBloom` format
//! (`format_version >= 5`, `util/bloom_impl.h`).
//!
//! A key's 64-bit hash gives `h1` (low 32 bits) and `h2` (high 32 bits). `h1` picks one
//! 64-byte line, `(h1 · lines) >> 32`; probe `i` tests bit `(h2 · 0x9e3779b9^i mod 2^32)
//! >> 23` of that line (the top 9 bits: 512 bits per line), the multiplicative sequence
//! RocksDB uses. The 64-bit hash is the low half of the project's seeded xxh3-128
//! ([`crate::hash::HashScheme`]); RocksDB uses XXPH3 of the key.
//!
//! # Example
//! ```
//! use bfopt_validation::filters::rocksdb::CacheLocalFilter;
//! let mut f = CacheLocalFilter::new(1 << 16, 6, 3)?;
//! (0..6000u64).for_each(|key| f.insert_u64(key));
//! assert!((0..6000u64).all(|key| f.contains_u64(key)));
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```

use crate::hash::HashScheme;
use bfopt_models::error::{check, ModelError};
use bfopt_models::systems::rocksdb::LINE_BITS;

/// The golden-ratio multiplier of the probe sequence.
const GOLDEN: u32 = 0x9e37_79b9;

/// A cache-local Bloom filter: `k` probes in one 512-bit line per key.
#[derive(Debug, Clone)]
pub struct CacheLocalFilter {
    lines: Vec<[u64; 8]>,
    k: u32,
    scheme: HashScheme,
}

impl CacheLocalFilter {
    /// An empty filter of `⌊bits/512⌋` lines and `k` probes, hashing with `seed`.
    ///
    /// # Errors
    /// `bits` outside 512 to 2^35 (RocksDB's length is a 32-bit byte count), `k` outside
    /// 1 to 24 (RocksDB's probe counts).
    pub fn new(bits: u64, k: u32, seed: u64) -> Result<Self, ModelError> {
        check::in_range("bits", bits, LINE_BITS..=(1 << 35))?;
        check::in_range("k", k, 1..=24)?;
        Ok(Self {
            lines: vec![[0; 8]; (bits / LINE_BITS) as usize],
            k,
            scheme: HashScheme::new(seed),
        })
    }

    /// The line of a key and its probe seed `h2`.
    #[inline]
    fn locate(&self, key: u64) -> (usize, u32) {
        let h = self.scheme.hash_u64(key).h1;
        let (h1, h2) = (h as u32, (h >> 32) as u32);
        let line = ((u64::from(h1) * self.lines.len() as u64) >> 32) as usize;
        (line, h2)
    }

    /// The bit positions (0 to 511) of a key's probes within its line.
    #[inline]
    fn probes(&self, h2: u32) -> impl Iterator<Item = u32> {
        let mut h = h2;
        (0..self.k).map(move |_| {
            let bit = h >> (32 - 9);
            h = h.wrapping_mul(GOLDEN);
            bit
        })
    }

    /// Inserts a 64-bit key.
    pub fn insert_u64(&mut self, key: u64) {
        let (l, h2) = self.locate(key);
        let mut line = self.lines[l];
        for bit in self.probes(h2) {
            line[(bit >> 6) as usize] |= 1 << (bit & 63);
        }
        self.lines[l] = line;
    }

    /// Whether the key may have been inserted.
    pub fn contains_u64(&self, key: u64) -> bool {
        let (l, h2) = self.locate(key);
        let line = &self.lines[l];
        self.probes(h2)
            .all(|bit| line[(bit >> 6) as usize] >> (bit & 63) & 1 == 1)
    }

    /// Bits of the filter.
    pub fn bits(&self) -> u64 {
        self.lines.len() as u64 * LINE_BITS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_sets_at_most_k_bits_of_one_line() {
        for key in 0..50u64 {
            let mut f = CacheLocalFilter::new(16 * LINE_BITS, 6, 9).unwrap();
            f.insert_u64(key);
            let touched: Vec<u32> = f
                .lines
                .iter()
                .map(|l| l.iter().map(|w| w.count_ones()).sum::<u32>())
                .filter(|&ones| ones > 0)
                .collect();
            assert_eq!(touched.len(), 1, "key {key}");
            assert!((1..=6).contains(&touched[0]), "key {key}: {touched:?}");
            assert!(f.contains_u64(key));
        }
        // The probe sequence: h2, h2·φ, h2·φ² (top 9 bits).
        let f = CacheLocalFilter::new(LINE_BITS, 3, 1).unwrap();
        let h2 = 0x8000_0001u32;
        let want = [
            h2 >> 23,
            h2.wrapping_mul(GOLDEN) >> 23,
            h2.wrapping_mul(GOLDEN).wrapping_mul(GOLDEN) >> 23,
        ];
        assert_eq!(f.probes(h2).collect::<Vec<_>>(), want);
        assert!(CacheLocalFilter::new(LINE_BITS, 25, 1).is_err());
    }
}
