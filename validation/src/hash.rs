//! The one hashing scheme of every reference filter.
//!
//! An item is hashed once with seeded 128-bit xxh3; the two 64-bit halves `h1`, `h2`
//! generate the `k` indices by double hashing (Kirsch & Mitzenmacher 2006) with a
//! quadratic term, `g_i = h1 + i·h2 + C·i(i−1)/2 (mod 2^64)`, and each `g_i` is mapped
//! into `[0, range)` by a multiply-high reduction (Lemire), which avoids a division.
//!
//! Blocked layouts (the classic blocked filter, the APBBF) pick a block from `h1` and
//! draw the positions inside it with [`InBlock`]: successive digits of a 64-bit word,
//! one multiply each, re-mixed only when the word's bits are used up.
//!
//! # Why the quadratic term
//! The multiply-high reduction keeps the *top* bits of `g_i`. With plain double hashing,
//! a step `h2` within `2^64/range` of 0 (probability `2/range`) sends all `k` indices to
//! one or two positions, and such an item is a false positive with probability ≈ fill
//! instead of fill^k. In a 512-bit block at low load that inflated the measured FP by
//! 46% over the exact model (found by the validate suite). The fixed odd constant `C`
//! makes consecutive differences `h2 + i·C` spread over the whole range, so no single
//! `h2` collapses the sequence; pairs of indices still collide with probability
//! ≈ `1/range`, as ideal hashes do.
//!
//! # Why not double hashing inside a block
//! Inside a small range the first two indices of an item nearly fix the rest, so a
//! non-member whose first two indices equal a stored item's matches all of them: with
//! 512-bit blocks a blocked filter's measured FP exceeded its exact state FP by 2% at
//! k = 7 and 13% at k = 12 (`tests/agreement/hashing.rs`). [`InBlock`] gives every
//! position its own bits of the hash instead.

use xxhash_rust::xxh3::xxh3_128_with_seed;

/// A seeded hash function for items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashScheme {
    seed: u64,
}

/// The two 64-bit halves of an item's 128-bit hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashPair {
    /// Low half: the start of the index sequence.
    pub h1: u64,
    /// High half, forced odd: the step of the index sequence.
    pub h2: u64,
}

impl HashScheme {
    /// A scheme with this seed; equal seeds give equal indices on every platform.
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }

    /// Hashes a byte string.
    #[inline]
    pub fn hash_bytes(&self, bytes: &[u8]) -> HashPair {
        let h = xxh3_128_with_seed(bytes, self.seed);
        HashPair {
            h1: h as u64,
            h2: ((h >> 64) as u64) | 1,
        }
    }

    /// Hashes a 64-bit key (its little-endian bytes).
    #[inline]
    pub fn hash_u64(&self, key: u64) -> HashPair {
        self.hash_bytes(&key.to_le_bytes())
    }
}

impl HashPair {
    /// The `i`-th index in `[0, range)`: `reduce(h1 + i·h2 + C·i(i−1)/2, range)`.
    #[inline]
    pub fn index(&self, i: u32, range: u64) -> u64 {
        let i = u64::from(i);
        let tri = i.wrapping_mul(i.wrapping_sub(1)) / 2;
        let g = self
            .h1
            .wrapping_add(i.wrapping_mul(self.h2))
            .wrapping_add(tri.wrapping_mul(QUADRATIC));
        reduce(g, range)
    }

    /// The first `k` indices in `[0, range)`, computed incrementally (two additions each).
    #[inline]
    pub fn indices(&self, k: u32, range: u64) -> Indices {
        Indices {
            g: self.h1,
            step: self.h2,
            left: k,
            range,
        }
    }
}

/// The `j`-th of a family of indices in `[0, range)` derived from one 64-bit value `x`
/// by independent mixes: `reduce(mix(x ⊕ (j+1)·C), range)`.
///
/// One full mix per index: the PBF's meta-hash (Section 6 [PBF]) uses it. Blocked
/// layouts use the cheaper [`InBlock`] (one multiply per index).
#[inline]
pub fn scattered(x: u64, j: u32, range: u64) -> u64 {
    reduce(
        crate::workload::mix(x ^ u64::from(j + 1).wrapping_mul(QUADRATIC)),
        range,
    )
}

impl HashPair {
    /// The block of an item among `blocks`: `reduce(h1, blocks)`, the top bits of `h1`.
    #[inline]
    pub fn block(&self, blocks: u64) -> u64 {
        reduce(self.h1, blocks)
    }

    /// The item's positions inside its block (see [`HashPair::block`]) of `range` bits:
    /// the digits of `h2`, then of a splitmix64 stream keyed by `h1 ⊕ h2`
    /// (see [`InBlock`]). Independent of the block, since the block uses `h1` only.
    #[inline]
    pub fn in_block(&self, range: u64) -> InBlock {
        InBlock::new(self.h2, self.h1 ^ self.h2, range)
    }
}

/// Positions in `[0, range)` for one block: the base-`range` digits of a 64-bit word,
/// most significant first, one multiply each: `(hi, lo) = word·range`, position `hi`,
/// next word `lo`.
///
/// # Accuracy
/// A word yields `d = ⌊63 / ⌈log2 range⌉⌋` digits (7 for 512-bit blocks, 5 for 4096),
/// read from its top 63 bits (`h2` is forced odd, so its lowest bit is never used);
/// then the next word of a splitmix64 stream keyed by the item replaces it. For a
/// power-of-two `range` the digits are disjoint bit fields of a uniform word: exactly
/// independent and uniform, the "independent uniform positions" the blocked models
/// assume. For another `range` (a multiple of 64 for the classic layout) a word's `d`
/// digits are `⌊x·range^d⌋` for a uniform 63-bit fraction `x`, so each tuple of digits
/// has probability `range^(−d)·(1 ± range^d·2^(−63))`.
///
/// Positions from different words (past the `d`-th) are as independent as splitmix64
/// outputs, which pass BigCrush; the agreement tests in `tests/agreement/hashing.rs`
/// compare probed FP with the exact state FP up to k = 16 and 4096-bit blocks.
///
/// # Speed
/// For a power-of-two `range = 2^b` the multiply is a pair of shifts,
/// `(hi, lo) = (word >> (64 − b), word << b)`, the same digits with a one-cycle
/// dependency from one position to the next instead of a multiply's three to four.
#[derive(Debug, Clone)]
pub struct InBlock {
    word: u64,
    key: u64,
    left: u32,
    per_word: u32,
    range: u64,
    /// `b` when `range = 2^b ≥ 2`, else 0 (the multiply path).
    shift: u32,
}

impl InBlock {
    /// Digits of `word`, then of the splitmix64 stream `mix(key)`, `mix(mix(key))`, …
    #[inline]
    pub fn new(word: u64, key: u64, range: u64) -> Self {
        let bits = digit_bits(range);
        let per_word = u32::from(DIGITS_PER_WORD[bits as usize]);
        Self {
            word,
            key,
            left: per_word,
            per_word,
            range,
            shift: if range >= 2 && range.is_power_of_two() {
                bits
            } else {
                0
            },
        }
    }

    /// The next position in `[0, range)`.
    #[inline]
    pub fn next_index(&mut self) -> u64 {
        if self.left == 0 {
            self.refill();
        }
        self.left -= 1;
        self.digit()
    }

    /// Folds `f` over the next `k` positions, in order: the positions of `k` calls of
    /// [`Self::next_index`], with one check for a used-up word per word instead of one
    /// per position. The blocked filters' item-by-item loops use it: in cache their
    /// throughput is their instruction count, and the check and its counter were a third
    /// of the loop (issue 18).
    ///
    /// The rest of a word takes a loop of `left` turns: `per_word` for a fresh or
    /// refilled word, a constant for a constant `range` (7 for 512-bit blocks), which the
    /// compiler unrolls without a test per position. Only the last, partial word counts
    /// its turns. (Not `Iterator::fold`, which would fold the endless stream.)
    #[inline]
    pub fn fold_next<B>(mut self, k: u32, init: B, mut f: impl FnMut(B, u64) -> B) -> B {
        let mut acc = init;
        let mut todo = k;
        loop {
            if todo < self.left {
                for _ in 0..todo {
                    acc = f(acc, self.digit());
                }
                return acc;
            }
            for _ in 0..self.left {
                acc = f(acc, self.digit());
            }
            todo -= self.left;
            if todo == 0 {
                return acc;
            }
            self.refill();
        }
    }

    /// The next word: the next output of the splitmix64 stream.
    #[inline]
    fn refill(&mut self) {
        self.key = crate::workload::mix(self.key);
        self.word = self.key;
        self.left = self.per_word;
    }

    /// The current word's next digit (the word must have one left; the caller counts).
    #[inline]
    fn digit(&mut self) -> u64 {
        if self.shift != 0 {
            // word·2^b: high word `word >> (64 − b)`, low word `word << b`.
            let digit = self.word >> (64 - self.shift);
            self.word <<= self.shift;
            return digit;
        }
        let p = u128::from(self.word) * u128::from(self.range);
        self.word = p as u64;
        (p >> 64) as u64
    }
}

impl Iterator for InBlock {
    type Item = u64;

    /// Never `None`: take as many positions as needed.
    #[inline]
    fn next(&mut self) -> Option<u64> {
        Some(self.next_index())
    }
}

/// `⌊63 / b⌋` for `b` bits per digit (a table: no division per item), and 1 for
/// `b = 64` (a range above 2^63: one digit per word, so that [`InBlock::fold_next`] advances;
/// [`InBlock::next_index`] used to underflow its count there).
const DIGITS_PER_WORD: [u8; 65] = {
    let mut t = [0u8; 65];
    let mut b = 1;
    while b <= 64 {
        t[b] = if b == 64 { 1 } else { (63 / b) as u8 };
        b += 1;
    }
    t
};

/// Bits per digit, `⌈log2 range⌉` (at least 1).
#[inline]
fn digit_bits(range: u64) -> u32 {
    (64 - range.saturating_sub(1).leading_zeros()).max(1)
}

/// The odd constant `C` of the quadratic term (2^64 / golden ratio).
const QUADRATIC: u64 = 0x9E37_79B9_7F4A_7C15;

/// Iterator over an item's indices; see [`HashPair::indices`].
#[derive(Debug, Clone)]
pub struct Indices {
    g: u64,
    step: u64,
    left: u32,
    range: u64,
}

impl Iterator for Indices {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let out = reduce(self.g, self.range);
        self.g = self.g.wrapping_add(self.step);
        self.step = self.step.wrapping_add(QUADRATIC);
        Some(out)
    }
}

/// Maps a uniform 64-bit value to `[0, range)` by `(x·range) >> 64`.
#[inline]
pub fn reduce(x: u64, range: u64) -> u64 {
    ((u128::from(x) * u128::from(range)) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_deterministic() {
        let a = HashScheme::new(1).hash_u64(42);
        assert_eq!(a, HashScheme::new(1).hash_u64(42));
        assert_ne!(a, HashScheme::new(2).hash_u64(42));
        assert_eq!(a.h2 & 1, 1);
    }

    #[test]
    fn incremental_indices_match_closed_form() {
        let h = HashScheme::new(3).hash_u64(99);
        let v: Vec<u64> = h.indices(9, 1000).collect();
        let w: Vec<u64> = (0..9).map(|i| h.index(i, 1000)).collect();
        assert_eq!(v, w);
    }

    #[test]
    fn a_tiny_step_does_not_collapse_the_indices() {
        let h = HashPair { h1: 12345, h2: 1 };
        let distinct: std::collections::HashSet<u64> = h.indices(8, 512).collect();
        assert!(distinct.len() >= 7, "{distinct:?}");
    }

    #[test]
    fn indices_are_in_range_and_roughly_uniform() {
        let s = HashScheme::new(7);
        let range = 10u64;
        let mut counts = [0u32; 10];
        for key in 0..100_000u64 {
            let h = s.hash_u64(key);
            for i in 0..3 {
                let idx = h.index(i, range);
                assert!(idx < range);
                counts[idx as usize] += 1;
            }
        }
        // 30 000 per bucket expected; 5 sigma is about 870.
        for c in counts {
            assert!((29_000..31_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn in_block_digits_of_a_power_of_two_are_the_bit_fields_of_h2() {
        let h = HashScheme::new(5).hash_u64(77);
        // 512-bit blocks: 9-bit fields from the top of h2, seven per word.
        let got: Vec<u64> = h.in_block(512).take(7).collect();
        let want: Vec<u64> = (0..7).map(|j| (h.h2 >> (55 - 9 * j)) & 511).collect();
        assert_eq!(got, want);
        // The eighth comes from the first refill word, mix(h1 ^ h2).
        let refill = crate::workload::mix(h.h1 ^ h.h2);
        assert_eq!(h.in_block(512).nth(7), Some(refill >> 55));
    }

    #[test]
    fn in_block_shifts_give_the_digits_of_the_multiply() {
        let h = HashScheme::new(13).hash_u64(5);
        for b in 1..=63u32 {
            let range = 1u64 << b;
            let mut word = h.h2;
            let mut key = h.h1 ^ h.h2;
            let per_word = 63 / b;
            let want: Vec<u64> = (0..2 * per_word + 1)
                .map(|j| {
                    if j > 0 && j % per_word == 0 {
                        key = crate::workload::mix(key);
                        word = key;
                    }
                    let p = u128::from(word) * u128::from(range);
                    word = p as u64;
                    (p >> 64) as u64
                })
                .collect();
            let got: Vec<u64> = h.in_block(range).take(want.len()).collect();
            assert_eq!(got, want, "b = {b}");
        }
    }

    /// The fold visits the positions of `next_index`, across word boundaries, from a
    /// fresh or a partly used word, for power-of-two and other ranges.
    #[test]
    fn in_block_fold_next_gives_the_positions_of_next_index() {
        let h = HashScheme::new(17).hash_u64(123);
        for range in [1u64, 2, 3, 64, 192, 512, 4032, 4096, 1 << 20, (1 << 63) + 1] {
            for used in [0usize, 1, 6, 7] {
                for k in [0u32, 1, 6, 7, 8, 13, 14, 15, 40] {
                    let mut it = h.in_block(range);
                    let skipped: Vec<u64> = (0..used).map(|_| it.next_index()).collect();
                    let want: Vec<u64> = it.clone().take(k as usize).collect();
                    let got = it.fold_next(k, Vec::new(), |mut v, p| {
                        v.push(p);
                        v
                    });
                    assert_eq!(got, want, "range {range}, used {skipped:?}, k {k}");
                }
            }
        }
    }

    #[test]
    fn in_block_positions_are_in_range_for_any_block() {
        let h = HashScheme::new(9).hash_u64(3);
        for range in [1u64, 2, 3, 64, 192, 512, 4032, 4096, 1 << 20] {
            assert!(h.in_block(range).take(70).all(|i| i < range), "{range}");
        }
        assert_eq!(digit_bits(1), 1);
        assert_eq!(digit_bits(512), 9);
        assert_eq!(digit_bits(513), 10);
        assert_eq!(DIGITS_PER_WORD[9], 7);
        assert_eq!(DIGITS_PER_WORD[12], 5);
    }

    /// Pairs of in-block positions of one item, across a word boundary too (k = 12 in
    /// 512 bits: digits 0-6 from h2, 7-11 from the refill): each pair of cells gets
    /// 1/512² of the items. Chi-square over the 64×64 coarse cells of (digit 6, digit 7)
    /// and (digit 0, digit 1): 4095 degrees of freedom, mean 4095, sd 90.5.
    #[test]
    fn in_block_pairs_are_jointly_uniform() {
        let s = HashScheme::new(11);
        let n = 400_000u64;
        for (a, b) in [(0usize, 1usize), (6, 7)] {
            let mut cells = vec![0u32; 64 * 64];
            for key in 0..n {
                let d: Vec<u64> = s.hash_u64(key).in_block(512).take(12).collect();
                cells[((d[a] >> 3) * 64 + (d[b] >> 3)) as usize] += 1;
            }
            let e = n as f64 / 4096.0;
            let chi2: f64 = cells.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
            // 5.5 sd: a false alarm about once in 10^7 runs.
            assert!(
                (chi2 - 4095.0).abs() < 5.5 * 90.5,
                "digits {a},{b}: chi2 {chi2}"
            );
        }
    }
}
