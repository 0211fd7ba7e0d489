//! Reference Timing / Block Timing Bloom filter (Section 3 [TBF]) and Simple Buffer
//! (Section 6.2 [TBF]).
//!
//! The BTBF packs `m` timers of `bpt` bits into 64-bit words; the all-ones value is the
//! expired timestamp `T_ε`, timestamps are `0..=T_Ω`. Each insertion sets the item's
//! timers to `T_+`, then checks the next `⌈m/(B(P+1))⌉` timers of a cyclic scan and marks
//! those of age `>= ⌈w/B⌉ + 1` expired (Section 3.1.3 [TBF]: no full scans), then
//! advances the block counter `b` and, at the end of a block, `T_+`. Every timer is
//! visited at least once per `B(P+1)` insertions, the time a timestamp needs to wrap
//! around after it expires, so an age is never misread.
//!
//! # Example
//! ```
//! use bfopt_models::timing::{BtbfModel, BtbfParams, StreamPrior, TimerAge};
//! use bfopt_validation::filters::timing::BtbfFilter;
//!
//! let params = BtbfParams::with_default_padding(4096, 3, 5, 100, 1000)?;
//! let mut f = BtbfFilter::new(&params, 7);
//! for key in 0..5050u64 {
//!     f.insert_u64(key);
//! }
//! let q = f.query_u64(5049); // inserted last: in the current block (offset 50)
//! assert!(q.positive && q.observation.age == TimerAge::Finite(0));
//! let model = BtbfModel::new(params, StreamPrior::uniform(1000)?.distinct());
//! let recent = model.posterior(1e-3, &q.observation)?;
//! let old = model.posterior(1e-3, &f.query_u64(10).observation)?; // 5039 insertions ago
//! assert!(recent > 0.99 && old < recent);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

use crate::hash::HashScheme;
use bfopt_models::timing::btbf::{BtbfObservation, BtbfParams, TimerAge};
use std::collections::HashMap;
use std::collections::VecDeque;

/// What a BTBF query returns: the inferential observation and the standard answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BtbfQuery {
    /// `(λ_x, c_x, r_x, b)`.
    pub observation: BtbfObservation,
    /// The standard BTBF's answer: Pos unless a timer of `x` expired.
    pub positive: bool,
}

/// A Block Timing Bloom filter (a Timing Bloom filter when `B = 1`).
#[derive(Debug, Clone)]
pub struct BtbfFilter {
    params: BtbfParams,
    words: Vec<u64>,
    bpt: u32,
    mask: u64,
    modulus: u64,
    t_plus: u64,
    b: u64,
    scan_pos: u64,
    scan_per_insert: u64,
    scan_expiry: u64,
    hash: HashScheme,
}

impl BtbfFilter {
    /// An empty filter (every timer expired) hashing with `seed`.
    pub fn new(params: &BtbfParams, seed: u64) -> Self {
        let bpt = params.bpt();
        let m = params.m();
        let bits = m * u64::from(bpt);
        let mask = if bpt == 64 {
            u64::MAX
        } else {
            (1u64 << bpt) - 1
        };
        let denom = params.block_size() * (params.padding() + 1);
        Self {
            params: *params,
            // One spare word so a timer straddling the last boundary reads in bounds.
            words: vec![u64::MAX; bits.div_ceil(64) as usize + 1],
            bpt,
            mask,
            modulus: params.t_max() + 1,
            t_plus: 0,
            b: 0,
            scan_pos: 0,
            scan_per_insert: m.div_ceil(denom),
            scan_expiry: params.scan_expiry_age(),
            hash: HashScheme::new(seed),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &BtbfParams {
        &self.params
    }

    /// Memory of the timers in bits (`m · bpt`).
    pub fn memory_bits(&self) -> u64 {
        self.params.memory_bits()
    }

    /// Insertions since the last increment of `T_+`.
    pub fn offset(&self) -> u64 {
        self.b
    }

    #[inline]
    fn get(&self, i: u64) -> u64 {
        let off = i * u64::from(self.bpt);
        let (w, s) = ((off >> 6) as usize, (off & 63) as u32);
        let lo = self.words[w] >> s;
        let v = if s + self.bpt > 64 {
            lo | (self.words[w + 1] << (64 - s))
        } else {
            lo
        };
        v & self.mask
    }

    #[inline]
    fn set(&mut self, i: u64, v: u64) {
        let off = i * u64::from(self.bpt);
        let (w, s) = ((off >> 6) as usize, (off & 63) as u32);
        self.words[w] = (self.words[w] & !(self.mask << s)) | (v << s);
        if s + self.bpt > 64 {
            let spill = s + self.bpt - 64;
            let hi_mask = (1u64 << spill) - 1;
            self.words[w + 1] = (self.words[w + 1] & !hi_mask) | (v >> (64 - s));
        }
    }

    #[inline]
    fn age(&self, t: u64) -> u64 {
        (self.t_plus + self.modulus - t) % self.modulus
    }

    /// Inserts a 64-bit key.
    pub fn insert_u64(&mut self, key: u64) {
        let h = self.hash.hash_u64(key);
        for idx in h.indices(self.params.k(), self.params.m()) {
            self.set(idx, self.t_plus);
        }
        self.advance();
    }

    /// Queries a 64-bit key, then inserts it: [`Self::query_u64`] then
    /// [`Self::insert_u64`], with the key's timers found once (a stream experiment asks
    /// both of every arrival).
    pub fn query_then_insert_u64(&mut self, key: u64) -> BtbfQuery {
        let mut idx = [0u64; 64];
        let k = self.timers(key, &mut idx);
        let q = self.observe(&mut idx[..k]);
        // The same timers, in another order: each is set to the same `T_+`.
        for &i in &idx[..k] {
            self.set(i, self.t_plus);
        }
        self.advance();
        q
    }

    /// The insertion's scan of expired timers and the clock's step (after its timers
    /// were set).
    fn advance(&mut self) {
        let m = self.params.m();
        for _ in 0..self.scan_per_insert {
            let t = self.get(self.scan_pos);
            if t != self.mask && self.age(t) >= self.scan_expiry {
                self.set(self.scan_pos, self.mask);
            }
            self.scan_pos += 1;
            if self.scan_pos == m {
                self.scan_pos = 0;
            }
        }
        self.b += 1;
        if self.b == self.params.block_size() {
            self.b = 0;
            self.t_plus += 1;
            if self.t_plus == self.modulus {
                self.t_plus = 0;
            }
        }
    }

    /// The timers by age in blocks, `(by_age, idle)`: `by_age[a]` timers written `a`
    /// blocks ago (`a` from 0 to `T_Ω`), `idle` expired or never written: the histogram
    /// `bfopt audit btbf` takes.
    pub fn age_histogram(&self) -> (Vec<u64>, u64) {
        let mut by_age = vec![0u64; self.modulus as usize];
        let mut idle = 0;
        for i in 0..self.params.m() {
            let t = self.get(i);
            if t == self.mask {
                idle += 1;
            } else {
                by_age[self.age(t) as usize] += 1;
            }
        }
        (by_age, idle)
    }

    /// Queries a 64-bit key: the observation `(λ_x, c_x, r_x, b)` and the standard answer.
    pub fn query_u64(&self, key: u64) -> BtbfQuery {
        let mut idx = [0u64; 64];
        let k = self.timers(key, &mut idx);
        self.observe(&mut idx[..k])
    }

    /// The key's `k` timer indices (with repeats) in `idx[..k]`; returns `k`.
    #[inline]
    fn timers(&self, key: u64, idx: &mut [u64; 64]) -> usize {
        let h = self.hash.hash_u64(key);
        for (slot, i) in idx
            .iter_mut()
            .zip(h.indices(self.params.k(), self.params.m()))
        {
            *slot = i;
        }
        self.params.k() as usize
    }

    /// The query of the timers `idx` (sorted in place).
    #[inline]
    fn observe(&self, idx: &mut [u64]) -> BtbfQuery {
        idx.sort_unstable();
        let limit = self.params.expiry_age(self.b);
        let (mut r, mut oldest, mut count, mut expired) = (0u32, 0u64, 0u32, 0u32);
        let mut prev = u64::MAX;
        for &i in idx.iter() {
            if i == prev {
                continue;
            }
            prev = i;
            r += 1;
            let t = self.get(i);
            if t == self.mask {
                expired += 1;
                continue;
            }
            let a = self.age(t);
            if a > limit {
                expired += 1;
                continue;
            }
            if a > oldest || count == 0 {
                oldest = a;
                count = 1;
            } else if a == oldest {
                count += 1;
            }
        }
        let (age, matching) = if expired > 0 {
            (TimerAge::Expired, expired)
        } else {
            (TimerAge::Finite(oldest), count)
        };
        BtbfQuery {
            observation: BtbfObservation {
                age,
                matching,
                touched: r,
                offset: self.b,
            },
            positive: expired == 0,
        }
    }
}

/// A Simple Buffer: the `bph`-bit hashes of the last `δ` insertions, with a count per
/// hash value so a query costs O(1) instead of the paper's linear scan (same answers).
#[derive(Debug, Clone)]
pub struct SimpleBuffer {
    delta: usize,
    bph: u32,
    ring: VecDeque<u64>,
    counts: HashMap<u64, u32>,
    hash: HashScheme,
}

impl SimpleBuffer {
    /// A buffer of `delta` hashes of `bph` bits (1 to 64).
    pub fn new(delta: u64, bph: u32, seed: u64) -> Self {
        Self {
            delta: delta as usize,
            bph: bph.clamp(1, 64),
            ring: VecDeque::with_capacity(delta as usize),
            counts: HashMap::new(),
            hash: HashScheme::new(seed),
        }
    }

    fn h(&self, key: u64) -> u64 {
        self.hash.hash_u64(key).h1 >> (64 - self.bph)
    }

    /// Inserts a key (evicting the oldest hash when full).
    pub fn insert_u64(&mut self, key: u64) {
        if self.delta == 0 {
            return;
        }
        if self.ring.len() == self.delta {
            if let Some(old) = self.ring.pop_front() {
                if let Some(c) = self.counts.get_mut(&old) {
                    *c -= 1;
                    if *c == 0 {
                        self.counts.remove(&old);
                    }
                }
            }
        }
        let h = self.h(key);
        self.ring.push_back(h);
        *self.counts.entry(h).or_insert(0) += 1;
    }

    /// `R_x`: whether the key's hash is in the buffer.
    pub fn contains_u64(&self, key: u64) -> bool {
        self.counts.contains_key(&self.h(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Querying then inserting in one call answers as the query before the insertion
    /// and leaves the timers, clock and scan where the two calls leave them (repeats:
    /// a small `m`, and keys that come back).
    #[test]
    fn query_then_insert_is_the_query_then_the_insert() {
        for (m, k, bpt, block, w) in [
            (1000, 3, 7, 1, 50),
            (64, 4, 5, 8, 100),
            (5000, 6, 9, 16, 2000),
        ] {
            let p = BtbfParams::new(m, k, bpt, block, w, 1).unwrap();
            let (mut a, mut b) = (BtbfFilter::new(&p, 4), BtbfFilter::new(&p, 4));
            for i in 0..20_000u64 {
                let key = (i * 7919) % 3001;
                let want = a.query_u64(key);
                a.insert_u64(key);
                assert_eq!(b.query_then_insert_u64(key), want, "{m} {i}");
                assert_eq!(
                    (&a.words, a.t_plus, a.b, a.scan_pos),
                    (&b.words, b.t_plus, b.b, b.scan_pos)
                );
            }
        }
    }

    #[test]
    fn packed_timers_roundtrip_across_word_boundaries() {
        let p = BtbfParams::new(1000, 3, 7, 1, 50, 0).unwrap();
        let mut f = BtbfFilter::new(&p, 1);
        for i in 0..1000 {
            assert_eq!(f.get(i), 127);
        }
        for i in 0..1000 {
            f.set(i, (i * 37) % 127);
        }
        for i in 0..1000 {
            assert_eq!(f.get(i), (i * 37) % 127, "timer {i}");
        }
    }

    #[test]
    fn no_false_negatives_and_exact_block_ages() {
        // Every item of the last w insertions answers Pos; its λ_x is at most its block age.
        let p = BtbfParams::with_default_padding(512, 3, 5, 4, 40).unwrap();
        let mut f = BtbfFilter::new(&p, 9);
        let keys: Vec<u64> = (0..5000).collect();
        for (n, &key) in keys.iter().enumerate() {
            f.insert_u64(key);
            let n = n as u64 + 1;
            let b = f.offset();
            for back in 0..p.w().min(n) {
                let q = f.query_u64(keys[(n - 1 - back) as usize]);
                assert!(q.positive, "age {back} at n = {n}");
                let TimerAge::Finite(l) = q.observation.age else {
                    unreachable!()
                };
                // Age i < b ⇒ λ = 0; else λ <= ⌊(i − b)/B⌋ + 1.
                let bound = if back < b { 0 } else { (back - b) / 4 + 1 };
                assert!(l <= bound, "age {back}, b = {b}: λ = {l} > {bound}");
            }
        }
        // An item far out of the window is expired unless its timers were refreshed.
        let q = f.query_u64(keys[0]);
        assert!(q.observation.touched >= 1);
    }

    #[test]
    fn matches_a_naive_filter_with_full_timestamps() {
        // The naive filter keeps, per timer, the index of the insertion that last set it;
        // the block age is ⌊n/B⌋ − ⌊t/B⌋ exactly, with no wrap-around and no scan. The
        // packed filter (bpt-bit timers, padding, incremental expiry scan) must report the
        // same observation for every key at every step.
        for (m, k, bpt, block, w, pad) in [
            (64, 2, 4, 2, 8, 3),
            (50, 3, 3, 3, 9, 0),
            (200, 4, 6, 1, 20, 7),
        ] {
            let p = BtbfParams::new(m, k, bpt, block, w, pad).unwrap();
            let mut f = BtbfFilter::new(&p, 3);
            let hash = HashScheme::new(3);
            let mut last: Vec<Option<u64>> = vec![None; m as usize];
            for n in 0..3000u64 {
                let key = crate::workload::mix(n % 97);
                for i in hash.hash_u64(key).indices(k, m) {
                    last[i as usize] = Some(n);
                }
                f.insert_u64(key);
                let now = n + 1;
                let b = now % block;
                let limit = p.expiry_age(b);
                for probe in 0..97u64 {
                    let key = crate::workload::mix(probe);
                    let mut idx: Vec<u64> = hash.hash_u64(key).indices(k, m).collect();
                    idx.sort_unstable();
                    idx.dedup();
                    let ages: Vec<Option<u64>> = idx
                        .iter()
                        .map(|&i| last[i as usize].map(|t| now / block - t / block))
                        .map(|a| a.filter(|&a| a <= limit))
                        .collect();
                    let q = f.query_u64(key);
                    assert_eq!(q.observation.touched as usize, idx.len());
                    assert_eq!(q.observation.offset, b);
                    if ages.iter().any(Option::is_none) {
                        assert!(!q.positive, "n = {n}, probe {probe}: {ages:?} vs {q:?}");
                    } else {
                        let max = ages.iter().map(|a| a.unwrap()).max().unwrap();
                        let c = ages.iter().filter(|a| **a == Some(max)).count() as u32;
                        assert!(q.positive);
                        assert_eq!(q.observation.age, TimerAge::Finite(max), "n = {n}");
                        assert_eq!(q.observation.matching, c);
                    }
                }
            }
        }
    }

    #[test]
    fn simple_buffer_holds_the_last_delta() {
        let mut s = SimpleBuffer::new(3, 64, 1);
        for k in 0..10 {
            s.insert_u64(k);
        }
        assert!(s.contains_u64(9) && s.contains_u64(7) && !s.contains_u64(6));
    }
}
