//! Reference counting Bloom filter (Fan et al. 2000, `[SC]`): `m` saturating counters of
//! `c` bits packed into 64-bit words, `k` independent indices per item.
//!
//! A counter that would pass `2^c − 1` stays there ("sticks") and is never decremented
//! again, so deletions cannot cause false negatives; the filter counts such overflows.
//! Indices are independent mixes of the item's hash ([`crate::hash::scattered`]), so a
//! counter's hits are exactly `Binomial(kn, 1/m)` as the model assumes.

use crate::hash::{scattered, HashScheme};
use bfopt_models::counting::CountingParams;

/// A counting Bloom filter.
#[derive(Debug, Clone)]
pub struct CountingFilter {
    words: Vec<u64>,
    overflowed: Vec<bool>,
    m: u64,
    k: u32,
    c: u32,
    per_word: u64,
    hash: HashScheme,
}

impl CountingFilter {
    /// An empty filter shaped like `params` (its `n` is ignored), hashing with `seed`.
    pub fn new(params: &CountingParams, seed: u64) -> Self {
        let per_word = u64::from(64 / params.c());
        Self {
            words: vec![0; params.m().div_ceil(per_word) as usize],
            overflowed: vec![false; params.m() as usize],
            m: params.m(),
            k: params.k(),
            c: params.c(),
            per_word,
            hash: HashScheme::new(seed),
        }
    }

    fn max(&self) -> u64 {
        (1u64 << self.c) - 1
    }

    fn get(&self, i: u64) -> u64 {
        let shift = (i % self.per_word) * u64::from(self.c);
        (self.words[(i / self.per_word) as usize] >> shift) & self.max()
    }

    fn add(&mut self, i: u64, delta: i64) {
        let shift = (i % self.per_word) * u64::from(self.c);
        let w = &mut self.words[(i / self.per_word) as usize];
        if delta > 0 {
            *w += 1 << shift;
        } else {
            *w -= 1 << shift;
        }
    }

    fn indices(&self, key: u64) -> impl Iterator<Item = u64> + '_ {
        let h = self.hash.hash_u64(key).h1;
        (0..self.k).map(move |j| scattered(h, j, self.m))
    }

    /// Inserts a key: increments its `k` counters (a saturated one sticks and is marked
    /// overflowed).
    pub fn insert_u64(&mut self, key: u64) {
        let idx: Vec<u64> = self.indices(key).collect();
        for i in idx {
            if self.get(i) == self.max() {
                self.overflowed[i as usize] = true;
            } else {
                self.add(i, 1);
            }
        }
    }

    /// Deletes a key previously inserted: decrements its `k` counters, except saturated
    /// ones.
    pub fn remove_u64(&mut self, key: u64) {
        let idx: Vec<u64> = self.indices(key).collect();
        for i in idx {
            let v = self.get(i);
            if v != self.max() && v > 0 {
                self.add(i, -1);
            }
        }
    }

    /// Whether the key may be present: all its counters non-zero.
    pub fn contains_u64(&self, key: u64) -> bool {
        self.indices(key).all(|i| self.get(i) > 0)
    }

    /// Counters whose hits reached `2^c` (an increment found them saturated).
    pub fn overflowed_counters(&self) -> u64 {
        self.overflowed.iter().filter(|&&o| o).count() as u64
    }

    /// Counter array size in bits (whole words).
    pub fn memory_bits(&self) -> u64 {
        self.words.len() as u64 * 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{member, probe};

    #[test]
    fn deletion_restores_the_empty_answer() {
        let p = CountingParams::new(4096, 4, 300, 4).unwrap();
        let mut f = CountingFilter::new(&p, 1);
        (0..300).for_each(|i| f.insert_u64(member(1, i)));
        assert!((0..300).all(|i| f.contains_u64(member(1, i))));
        (0..150).for_each(|i| f.remove_u64(member(1, i)));
        assert!((150..300).all(|i| f.contains_u64(member(1, i))));
        (150..300).for_each(|i| f.remove_u64(member(1, i)));
        assert!(f.words.iter().all(|&w| w == 0));
        assert!(!(0..1000).any(|i| f.contains_u64(probe(1, i))));
    }

    #[test]
    fn saturated_counters_stick() {
        let p = CountingParams::new(64, 1, 1, 1).unwrap();
        let mut f = CountingFilter::new(&p, 2);
        let key = member(2, 0);
        f.insert_u64(key);
        f.insert_u64(key);
        assert_eq!(f.overflowed_counters(), 1);
        f.remove_u64(key);
        f.remove_u64(key);
        assert!(f.contains_u64(key));
    }
}
