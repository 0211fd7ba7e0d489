//! Reference split-block Bloom filter: the layout and probe scheme of the Parquet format
//! specification (`BloomFilter.md`), as Parquet, Arrow, Impala and Kudu store it.
//!
//! `z` blocks of eight 32-bit words. A key's 64-bit hash `h` picks block
//! `((h >> 32) · z) >> 32`; its low 32 bits `x` set, in word `i` of that block, bit
//! `(x · salt_i mod 2^32) >> 27` ([`bfopt_models::systems::split_block::SALT`]). A query
//! checks the same eight bits. The 64-bit hash is the low half of the project's seeded
//! xxh3-128 ([`crate::hash::HashScheme`]); Parquet uses xxh64 of the value, which only
//! changes which keys collide, not how often.
//!
//! # Example
//! ```
//! use bfopt_validation::filters::split_block::SplitBlockFilter;
//! let mut f = SplitBlockFilter::new(1 << 16, 7)?;
//! (0..4000u64).for_each(|key| f.insert_u64(key));
//! assert!((0..4000u64).all(|key| f.contains_u64(key)));
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```

use crate::hash::HashScheme;
use bfopt_models::error::{check, ModelError};
use bfopt_models::systems::split_block::{BLOCK_BITS, SALT};

/// A split-block Bloom filter.
#[derive(Debug, Clone)]
pub struct SplitBlockFilter {
    blocks: Vec<[u32; 8]>,
    scheme: HashScheme,
}

impl SplitBlockFilter {
    /// An empty filter of `⌊bits/256⌋` blocks, hashing with `seed`.
    ///
    /// # Errors
    /// `bits` outside 256 to 2^37 (the format addresses up to 2^32 blocks).
    pub fn new(bits: u64, seed: u64) -> Result<Self, ModelError> {
        check::in_range("bits", bits, BLOCK_BITS..=(BLOCK_BITS << 32))?;
        Ok(Self {
            blocks: vec![[0; 8]; (bits / BLOCK_BITS) as usize],
            scheme: HashScheme::new(seed),
        })
    }

    /// The block and the eight word masks of a key.
    #[inline]
    fn locate(&self, key: u64) -> (usize, [u32; 8]) {
        let h = self.scheme.hash_u64(key).h1;
        let block = (((h >> 32) * self.blocks.len() as u64) >> 32) as usize;
        let x = h as u32;
        let masks = SALT.map(|salt| 1u32 << (x.wrapping_mul(salt) >> 27));
        (block, masks)
    }

    /// Inserts a 64-bit key.
    pub fn insert_u64(&mut self, key: u64) {
        let (b, masks) = self.locate(key);
        for (word, mask) in self.blocks[b].iter_mut().zip(masks) {
            *word |= mask;
        }
    }

    /// Whether the key may have been inserted.
    pub fn contains_u64(&self, key: u64) -> bool {
        let (b, masks) = self.locate(key);
        self.blocks[b]
            .iter()
            .zip(masks)
            .all(|(word, mask)| word & mask != 0)
    }

    /// Bits of the filter.
    pub fn bits(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_BITS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_sets_one_bit_in_each_word_of_one_block() {
        for key in 0..50u64 {
            let mut f = SplitBlockFilter::new(16 * BLOCK_BITS, 9).unwrap();
            f.insert_u64(key);
            let touched: Vec<&[u32; 8]> = f
                .blocks
                .iter()
                .filter(|b| b.iter().any(|&w| w != 0))
                .collect();
            assert_eq!(touched.len(), 1, "key {key}");
            assert!(
                touched[0].iter().all(|w| w.count_ones() == 1),
                "key {key}: {:?}",
                touched[0]
            );
            assert!(f.contains_u64(key));
        }
        assert!(SplitBlockFilter::new(255, 1).is_err());
    }
}
