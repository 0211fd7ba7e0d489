//! Reference standard, partitioned and blocked Bloom filters.
//!
//! # Example
//! A standard filter sized for 10 000 items at 1%: no false negatives, and the FP of
//! its actual bits ([`ClassicFilter::state_fp`]) near the model's.
//! ```
//! use bfopt_models::classic::{design, ClassicRequirement, Layout};
//! use bfopt_validation::filters::classic::ClassicFilter;
//! let d = design(&ClassicRequirement::new(0.01, 10_000, Layout::Standard)?)?;
//! let mut f = ClassicFilter::new(&d.params, 42);
//! (0..10_000u64).for_each(|key| f.insert_u64(key));
//! assert!((0..10_000u64).all(|key| f.contains_u64(key)));
//! assert!((f.state_fp() - d.metrics.fp).abs() < 0.2 * d.metrics.fp);
//! let fp = (1_000_000..1_100_000u64).filter(|&key| f.contains_u64(key)).count();
//! assert!(fp > 500 && fp < 1_500, "{fp} false positives in 100 000");
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```

use super::bits::LINE_BITS;
use super::BitVec;
use crate::hash::{HashPair, HashScheme};
use bfopt_models::classic::{ClassicParams, Layout};

/// Keys hashed and fetched together by [`ClassicFilter::insert_batch`] and
/// [`ClassicFilter::count_batch`]: enough outstanding cache misses to cover the memory
/// latency, few enough to stay within the core's miss buffers.
pub const GROUP: usize = 16;

/// A classic Bloom filter in any of the three layouts of
/// [`bfopt_models::classic::Layout`].
#[derive(Debug, Clone)]
pub struct ClassicFilter {
    bits: BitVec,
    k: u32,
    layout: Layout,
    /// Slice size (partitioned), block size (blocked) or `m` (standard).
    unit: u64,
    /// Number of blocks (blocked), 1 otherwise.
    blocks: u64,
    scheme: HashScheme,
}

impl ClassicFilter {
    /// An empty filter with the bits, hashes and layout of `params` (its `n` is not used).
    pub fn new(params: &ClassicParams, seed: u64) -> Self {
        Self::with_layout(params.m(), params.k(), params.layout(), seed)
    }

    /// [`Self::with_layout`], checked: the shape must pass [`ClassicParams::new`].
    ///
    /// # Errors
    /// [`bfopt_models::error::ModelError::InvalidParam`] naming `m`, `k` or `block_bits`
    /// (issue 10: `with_layout(0, 1, ..)` built a filter whose first insertion divided by
    /// zero).
    pub fn try_with_layout(
        m: u64,
        k: u32,
        layout: Layout,
        seed: u64,
    ) -> Result<Self, bfopt_models::error::ModelError> {
        let p = ClassicParams::new(m, k, 1, layout)?;
        Ok(Self::new(&p, seed))
    }

    /// An empty filter of `m` bits and `k` hashes, unchecked (see
    /// [`Self::try_with_layout`]). The partitioned layout uses
    /// `k·⌊m/k⌋` bits; a blocked layout's `m` must be a multiple of its block
    /// (as [`ClassicParams::new`] checks).
    pub fn with_layout(m: u64, k: u32, layout: Layout, seed: u64) -> Self {
        let (unit, blocks) = match layout {
            Layout::Standard => (m, 1),
            Layout::Partitioned => (m / u64::from(k), 1),
            Layout::Blocked { block_bits } => (block_bits, m / block_bits),
        };
        Self {
            bits: BitVec::zeros(m),
            k,
            layout,
            unit,
            blocks,
            scheme: HashScheme::new(seed),
        }
    }

    /// Inserts a byte-string item.
    pub fn insert(&mut self, item: &[u8]) {
        self.insert_hash(self.scheme.hash_bytes(item));
    }

    /// Whether a byte-string item may be in the set.
    pub fn contains(&self, item: &[u8]) -> bool {
        self.contains_hash(self.scheme.hash_bytes(item))
    }

    /// Inserts a 64-bit key.
    #[inline]
    pub fn insert_u64(&mut self, key: u64) {
        self.insert_hash(self.scheme.hash_u64(key));
    }

    /// Whether a 64-bit key may be in the set.
    #[inline]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(self.scheme.hash_u64(key))
    }

    /// Inserts 64-bit keys, [`GROUP`] at a time: hashes a group, loads one word of
    /// every cache line the group will write (the block of a blocked filter, all `k`
    /// words otherwise), then sets the bits. The same bits as [`Self::insert_u64`] on
    /// each key; faster when the filter is larger than the caches, because the group's
    /// cache misses are outstanding together instead of a few items' at a time.
    pub fn insert_batch(&mut self, keys: &[u64]) {
        for chunk in keys.chunks(GROUP) {
            let hashes = self.hash_group(chunk);
            let hashes = &hashes[..chunk.len()];
            self.touch(hashes, self.k);
            hashes.iter().for_each(|&h| self.insert_hash(h));
        }
    }

    /// How many of `keys` may be in the set (each answer as [`Self::contains_u64`]),
    /// grouped like [`Self::insert_batch`]; a group loads the first word each query
    /// reads (the block of a blocked filter).
    pub fn count_batch(&self, keys: &[u64]) -> usize {
        keys.chunks(GROUP)
            .map(|chunk| {
                let hashes = self.hash_group(chunk);
                let hashes = &hashes[..chunk.len()];
                self.touch(hashes, 1);
                hashes.iter().filter(|&&h| self.contains_hash(h)).count()
            })
            .sum()
    }

    /// The hashes of up to [`GROUP`] keys.
    #[inline]
    fn hash_group(&self, chunk: &[u64]) -> [HashPair; GROUP] {
        let mut hashes = [HashPair { h1: 0, h2: 1 }; GROUP];
        for (h, &key) in hashes.iter_mut().zip(chunk) {
            *h = self.scheme.hash_u64(key);
        }
        hashes
    }

    /// Loads the words of the first `probes` positions of each hash (the block's first
    /// word for a blocked filter), so that their cache misses overlap.
    #[inline]
    fn touch(&self, hashes: &[HashPair], probes: u32) {
        let mut sink = 0u64;
        for h in hashes {
            match self.layout {
                Layout::Standard => {
                    for idx in h.indices(probes, self.unit) {
                        sink ^= self.bits.word((idx >> 6) as usize);
                    }
                }
                Layout::Partitioned => {
                    for i in 0..probes {
                        let idx = u64::from(i) * self.unit + h.index(i, self.unit);
                        sink ^= self.bits.word((idx >> 6) as usize);
                    }
                }
                Layout::Blocked { .. } => {
                    let base = h.block(self.blocks) * self.unit;
                    sink ^= self.bits.word((base >> 6) as usize);
                }
            }
        }
        std::hint::black_box(sink);
    }

    /// Inserts by a precomputed hash.
    ///
    /// The partitioned layout and blocks other than a cache line are out of line
    /// ([`Self::insert_other`]): their registers made every call of an item-by-item
    /// insertion save and restore six, which cost the blocked filter a third of its
    /// insertions per second at 2^30 bits, where it lives on the items in flight
    /// (issue 18).
    #[inline]
    pub fn insert_hash(&mut self, h: HashPair) {
        match self.layout {
            Layout::Standard => {
                for idx in h.indices(self.k, self.unit) {
                    self.bits.set(idx);
                }
            }
            Layout::Blocked { .. } if self.unit == LINE_BITS => {
                // One aligned cache line: one bounds check, then masked word indices.
                let line = self.bits.line_mut(h.block(self.blocks) as usize);
                h.in_block(LINE_BITS).fold_next(self.k, (), |(), p| {
                    line[(p >> 6) as usize & 7] |= 1 << (p & 63);
                });
            }
            _ => self.insert_other(h),
        }
    }

    /// [`Self::insert_hash`] for the partitioned layout and blocks other than a line.
    #[inline(never)]
    fn insert_other(&mut self, h: HashPair) {
        match self.layout {
            Layout::Partitioned => {
                for i in 0..self.k {
                    self.bits
                        .set(u64::from(i) * self.unit + h.index(i, self.unit));
                }
            }
            Layout::Blocked { .. } => {
                let base = h.block(self.blocks) * self.unit;
                let bits = &mut self.bits;
                h.in_block(self.unit)
                    .fold_next(self.k, (), |(), p| bits.set(base + p));
            }
            Layout::Standard => unreachable!("inserted by insert_hash"),
        }
    }

    /// Queries by a precomputed hash (standard and partitioned stop at the first 0 bit).
    /// Out of line as in [`Self::insert_hash`]: [`Self::contains_other`].
    #[inline]
    pub fn contains_hash(&self, h: HashPair) -> bool {
        match self.layout {
            Layout::Standard => h.indices(self.k, self.unit).all(|i| self.bits.get(i)),
            // The k bits sit in one block (one cache line for 512 bits). The first is
            // tested alone and ends a query on a 0 (half the absent ones at half fill);
            // the rest without branching: bit 0 of the AND of the words shifted to each
            // position is the answer (a bit test and a flag per position took one
            // instruction more). Out of cache an item-by-item query is bound by how
            // many of its instructions wait on the line: a few dozen such per item fill
            // the core's schedulers, and the early exit leaves three for half the items
            // (issue 18: at 2^30 bits 0.94× the standard filter's absent queries
            // without it, 1.16-1.44× with it; in cache 1.33× against 1.61×).
            Layout::Blocked { .. } if self.unit == LINE_BITS => {
                let line = self.bits.line(h.block(self.blocks) as usize);
                // Bit 0: position `p`'s bit.
                let bit = |p: u64| line[(p >> 6) as usize & 7] >> (p & 63);
                let mut pos = h.in_block(LINE_BITS);
                if self.k > 0 && bit(pos.next_index()) & 1 == 0 {
                    return false;
                }
                let all = pos.fold_next(self.k.saturating_sub(1), 1, |all, p| all & bit(p));
                all & 1 == 1
            }
            _ => self.contains_other(h),
        }
    }

    /// [`Self::contains_hash`] for the partitioned layout and blocks other than a line.
    #[inline(never)]
    fn contains_other(&self, h: HashPair) -> bool {
        match self.layout {
            Layout::Partitioned => (0..self.k).all(|i| {
                self.bits
                    .get(u64::from(i) * self.unit + h.index(i, self.unit))
            }),
            Layout::Blocked { .. } => {
                let base = h.block(self.blocks) * self.unit;
                h.in_block(self.unit)
                    .fold_next(self.k, true, |all, p| all & self.bits.get(base + p))
            }
            Layout::Standard => unreachable!("answered by contains_hash"),
        }
    }

    /// Fraction of set bits (of the bits in use).
    pub fn fill(&self) -> f64 {
        self.bits.count_ones() as f64 / self.bits_in_use() as f64
    }

    /// Bits the layout uses (`k·⌊m/k⌋` for partitioned, `m` otherwise).
    pub fn bits_in_use(&self) -> u64 {
        match self.layout {
            Layout::Partitioned => self.unit * u64::from(self.k),
            _ => self.bits.len(),
        }
    }

    /// The exact false-positive probability of a fresh item given the current bits,
    /// under ideal hashing: `(ones/m)^k` (standard), `Π_i ones_i/s` (partitioned),
    /// the mean over blocks of `(ones_b/B)^k` (blocked).
    ///
    /// Validates FP rates far below what probing can reach (1e-9 would need 1e11 probes).
    pub fn state_fp(&self) -> f64 {
        let k = self.k as i32;
        match self.layout {
            Layout::Standard => self.fill().powi(k),
            Layout::Partitioned => (0..u64::from(self.k))
                .map(|i| self.count_slice(i) as f64 / self.unit as f64)
                .product(),
            Layout::Blocked { .. } => {
                let sum: f64 = (0..self.blocks)
                    .map(|b| {
                        let ones = self.bits.count_ones_in(b * self.unit, self.unit);
                        (ones as f64 / self.unit as f64).powi(k)
                    })
                    .sum();
                sum / self.blocks as f64
            }
        }
    }

    fn count_slice(&self, i: u64) -> u64 {
        (i * self.unit..(i + 1) * self.unit)
            .filter(|&b| self.bits.get(b))
            .count() as u64
    }

    /// The bit array (a partitioned filter's slices one after the other, blocks in
    /// order), e.g. for [`BitVec::to_le_bytes`].
    pub fn bits(&self) -> &BitVec {
        &self.bits
    }

    /// Empties the filter.
    pub fn clear(&mut self) {
        self.bits.clear_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache-line query tests its first position alone, then the rest: the same
    /// answers as testing each position, also with no position at all (`k = 0`, which
    /// only the unchecked constructor builds: every item is present, no panic).
    #[test]
    fn line_query_answers_as_every_position_tested() {
        for k in [0, 1, 2, 7, 16] {
            let mut f =
                ClassicFilter::with_layout(1 << 14, k, Layout::Blocked { block_bits: 512 }, 3);
            (0..400u64).for_each(|i| f.insert_u64(i * 7919));
            for probe in 0..5000u64 {
                let h = f.scheme.hash_u64(probe);
                let base = h.block(f.blocks) * f.unit;
                let mut pos = h.in_block(f.unit);
                let want = (0..k).all(|_| f.bits.get(base + pos.next_index()));
                assert_eq!(f.contains_u64(probe), want, "k = {k}, probe {probe}");
            }
        }
    }

    #[test]
    fn checked_constructor_rejects_bad_shapes() {
        assert!(ClassicFilter::try_with_layout(0, 1, Layout::Standard, 1).is_err());
        assert!(ClassicFilter::try_with_layout(100, 0, Layout::Standard, 1).is_err());
        assert!(ClassicFilter::try_with_layout(100, 65, Layout::Standard, 1).is_err());
        let blocked = Layout::Blocked { block_bits: 512 };
        assert!(ClassicFilter::try_with_layout(1000, 4, blocked, 1).is_err());
        let mut f = ClassicFilter::try_with_layout(1024, 4, blocked, 1).unwrap();
        f.insert_u64(7);
        assert!(f.contains_u64(7));
    }

    #[test]
    fn no_false_negatives_in_any_layout() {
        for layout in [
            Layout::Standard,
            Layout::Partitioned,
            Layout::Blocked { block_bits: 512 },
        ] {
            let mut f = ClassicFilter::with_layout(1 << 14, 5, layout, 3);
            (0..2000u64).for_each(|x| f.insert_u64(x));
            assert!((0..2000u64).all(|x| f.contains_u64(x)), "{layout:?}");
            f.insert(b"hello");
            assert!(f.contains(b"hello"));
        }
    }

    #[test]
    fn batch_operations_match_item_by_item_ones() {
        for layout in [
            Layout::Standard,
            Layout::Partitioned,
            Layout::Blocked { block_bits: 512 },
            Layout::Blocked { block_bits: 192 },
        ] {
            let keys: Vec<u64> = (0..1000u64).map(|i| i * 7919).collect();
            let mut one = ClassicFilter::with_layout(3 << 10, 6, layout, 4);
            let mut batch = one.clone();
            keys.iter().for_each(|&k| one.insert_u64(k));
            // 1000 keys: 62 full groups and a partial one.
            batch.insert_batch(&keys);
            assert_eq!(one.bits, batch.bits, "{layout:?}");
            let probes: Vec<u64> = (0..5000u64).map(|i| i * 31 + 1).collect();
            let hits = probes.iter().filter(|&&k| one.contains_u64(k)).count();
            assert!(hits > 0 && hits < probes.len(), "{layout:?}: {hits}");
            assert_eq!(batch.count_batch(&probes), hits, "{layout:?}");
        }
    }

    #[test]
    fn partitioned_sets_one_bit_per_slice() {
        let mut f = ClassicFilter::with_layout(700, 7, Layout::Partitioned, 1);
        f.insert_u64(42);
        for i in 0..7 {
            assert_eq!(f.count_slice(i), 1);
        }
        assert_eq!(f.state_fp(), (1.0f64 / 100.0).powi(7));
    }

    #[test]
    fn blocked_sets_bits_in_one_block() {
        let mut f = ClassicFilter::with_layout(4096, 6, Layout::Blocked { block_bits: 512 }, 1);
        f.insert_u64(42);
        let used: Vec<u64> = (0..8).map(|b| f.bits.count_ones_in(b * 512, 512)).collect();
        assert_eq!(used.iter().filter(|&&c| c > 0).count(), 1, "{used:?}");
    }
}
