//! Reference Stable Bloom filter and Importance-aware Bloom filters IBF1-IBF6.
//!
//! Cells of `⌈log2(Max+1)⌉` bits packed in 64-bit words (no cell straddles a word);
//! policies that rank cells by cumulative importance keep a saturating counter of
//! `counter_bits` per cell (reset when the cell reaches zero), counted in
//! [`StableFilter::memory_bits`]. Every insertion runs the policy's deletion phase, then
//! sets the item's `K` *distinct* cells (double hashing, skipping repeats).
//!
//! Deletion phases:
//! * Random: `P` consecutive cells from a uniform random start (Deng & Rafiei's
//!   implementation; each cell is hit with probability `P/m`, as `P` distinct random
//!   cells would be);
//! * Probabilistic (∝ 1/cumulative importance, or ∝ 1/value): `P` sequential picks among
//!   the non-zero cells, each picked with probability ∝ its weight (cells bucketed by
//!   key, bucket chosen ∝ size/key, then a uniform cell of it);
//! * MinImp: the `P` non-zero cells of least cumulative importance, ties broken uniformly
//!   at random.
//!
//! # Example
//! ```
//! use bfopt_models::stable::{IbfParams, ImportanceDist, Policy};
//! use bfopt_validation::filters::stable::StableFilter;
//! // The SBF of Figure 7 [SBF]: 512 cells of 0..=5, 4 hashes, 5 decrements per insertion.
//! let params = IbfParams::new(Policy::Sbf, 512, 4, 5, 5, ImportanceDist::linear(1, 50)?)?;
//! let mut f = StableFilter::new(&params, 7);
//! for key in 0..20_000u64 {
//!     f.insert_u64(key, 1 + (key % 50) as u32);
//! }
//! assert!(f.contains_u64(19_999)); // just inserted: present
//! assert_eq!(f.memory_bits(), 512 * 3); // cells of ⌈log2(6)⌉ = 3 bits
//! // The zero cells fluctuate around the stable point m·π0 ≈ 26.6.
//! assert!((5..60).contains(&f.zero_cells()));
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

use crate::hash::{HashPair, HashScheme};
use bfopt_models::stable::{Delete, IbfParams, Policy};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// `m` cells of `bits` bits packed in `u64` words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedCells {
    words: Vec<u64>,
    bits: u32,
    per_word: u64,
    mask: u64,
    len: u64,
}

impl PackedCells {
    /// `len` zero cells of `bits` bits (1 to 16).
    pub fn zeros(len: u64, bits: u32) -> Self {
        let per_word = u64::from(64 / bits);
        Self {
            words: vec![0; len.div_ceil(per_word) as usize],
            bits,
            per_word,
            mask: (1u64 << bits) - 1,
            len,
        }
    }
    /// Number of cells.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Cell `i`.
    #[inline]
    pub fn get(&self, i: u64) -> u32 {
        let (w, s) = (
            i / self.per_word,
            (i % self.per_word) * u64::from(self.bits),
        );
        ((self.words[w as usize] >> s) & self.mask) as u32
    }
    /// Sets cell `i` to `v` (masked to the cell width).
    #[inline]
    pub fn set(&mut self, i: u64, v: u32) {
        let (w, s) = (
            i / self.per_word,
            (i % self.per_word) * u64::from(self.bits),
        );
        let word = &mut self.words[w as usize];
        *word = (*word & !(self.mask << s)) | ((u64::from(v) & self.mask) << s);
    }
    /// Bytes allocated.
    pub fn allocated_bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// Non-zero cells bucketed by a small key (cumulative importance or value), with O(1)
/// moves.
#[derive(Debug, Clone)]
struct Buckets {
    lists: Vec<Vec<u32>>,
    /// Position of each cell in its bucket (`u32::MAX`: in none).
    pos: Vec<u32>,
    key: Vec<u16>,
    /// Per key `k ≥ 1`: `|bucket k|/k`, recomputed from the integer size whenever the
    /// bucket changes (index 0 unused).
    share: Vec<f64>,
    /// `Σ |bucket|/key` over each block of [`BLOCK`] consecutive keys: the sum of the
    /// block's [`Buckets::share`]s, in key order, redone on every change (no drift), so
    /// a weighted pick scans blocks, then one block's buckets.
    block_weight: Vec<f64>,
}

/// Keys per block of [`Buckets::block_weight`].
const BLOCK: usize = 16;

impl Buckets {
    fn new(m: u64, max_key: u32) -> Self {
        let n = max_key as usize + 1;
        Self {
            lists: vec![Vec::new(); n],
            pos: vec![u32::MAX; m as usize],
            key: vec![0; m as usize],
            share: vec![0.0; n],
            block_weight: vec![0.0; n.div_ceil(BLOCK)],
        }
    }

    /// The keys of block `b` that carry weight (key 0 never does).
    fn block_keys(&self, b: usize) -> std::ops::Range<usize> {
        (b * BLOCK).max(1)..((b + 1) * BLOCK).min(self.lists.len())
    }

    /// Sets bucket `key`'s share and its block's weight from the bucket's size: the
    /// block's shares summed in key order, the same sum as dividing every size anew.
    fn refresh(&mut self, key: usize) {
        if key > 0 {
            self.share[key] = self.lists[key].len() as f64 / key as f64;
        }
        let b = key / BLOCK;
        self.block_weight[b] = self.share[self.block_keys(b)].iter().sum();
    }

    /// Takes `cell` out of its bucket, if any; returns that bucket's key.
    fn take(&mut self, cell: u32) -> Option<usize> {
        let p = self.pos[cell as usize];
        if p == u32::MAX {
            return None;
        }
        let key = self.key[cell as usize] as usize;
        let list = &mut self.lists[key];
        let last = *list.last().expect("cell is in its bucket");
        list.swap_remove(p as usize);
        if last != cell {
            self.pos[last as usize] = p;
        }
        self.pos[cell as usize] = u32::MAX;
        Some(key)
    }

    fn remove(&mut self, cell: u32) {
        if let Some(key) = self.take(cell) {
            self.refresh(key);
        }
    }

    fn put(&mut self, cell: u32, key: u32) {
        let old = self.take(cell);
        let list = &mut self.lists[key as usize];
        self.pos[cell as usize] = list.len() as u32;
        list.push(cell);
        self.key[cell as usize] = key as u16;
        // The old bucket's block first, as `remove` then `put` refreshed them.
        if let Some(old) = old.filter(|&o| o != key as usize) {
            self.refresh(old);
        }
        self.refresh(key as usize);
    }

    /// A cell drawn with probability ∝ 1/key among the bucketed cells.
    fn pick_inverse_key(&self, rng: &mut ChaCha8Rng) -> Option<u32> {
        let total: f64 = self.block_weight.iter().sum();
        if !(total > 0.0) {
            return None;
        }
        let mut u = rng.random::<f64>() * total;
        // Rounding may leave u just above the last weight: fall back to the last
        // non-empty block / bucket.
        let mut block = None;
        for (b, &w) in self.block_weight.iter().enumerate() {
            if w > 0.0 {
                block = Some(b);
                if u < w {
                    break;
                }
                u -= w;
            }
        }
        let b = block?;
        let mut chosen = None;
        for k in self.block_keys(b) {
            let l = &self.lists[k];
            if l.is_empty() {
                continue;
            }
            chosen = Some(l);
            let w = self.share[k];
            if u < w {
                break;
            }
            u -= w;
        }
        let l = chosen?;
        Some(l[rng.random_range(0..l.len())])
    }

    /// The `n` cells of least key (ties uniformly at random); fewer if fewer are bucketed.
    fn least(&mut self, n: usize, rng: &mut ChaCha8Rng, out: &mut Vec<u32>) {
        out.clear();
        for k in 1..self.lists.len() {
            let need = n - out.len();
            if need == 0 {
                break;
            }
            let list = &mut self.lists[k];
            if list.len() <= need {
                out.extend_from_slice(list);
            } else {
                // Partial Fisher-Yates: a uniform `need`-subset at the list's end.
                let len = list.len();
                for j in 0..need {
                    let (r, e) = (rng.random_range(0..len - j), len - 1 - j);
                    list.swap(r, e);
                    self.pos[list[r] as usize] = r as u32;
                    self.pos[list[e] as usize] = e as u32;
                }
                out.extend_from_slice(&list[len - need..]);
            }
        }
    }
}

/// A Stable or Importance-aware Bloom filter.
#[derive(Debug, Clone)]
pub struct StableFilter {
    params: IbfParams,
    cells: PackedCells,
    /// Cumulative importance since the cell was last zero (tracked policies only).
    counters: Vec<u16>,
    buckets: Option<Buckets>,
    scheme: HashScheme,
    rng: ChaCha8Rng,
    zeros: u64,
    scratch: Vec<u32>,
    /// Diagnostic (issue 19): the probabilistic deletion phase as independent per-cell
    /// decrements ([`StableFilter::set_independent_deletion`]).
    independent: bool,
}

impl StableFilter {
    /// An empty filter for `params`; `seed` fixes the hash and the deletion choices.
    pub fn new(params: &IbfParams, seed: u64) -> Self {
        let m = params.m();
        let cap = params.counter_cap();
        let buckets = match params.policy().delete() {
            Delete::ProbCumulative | Delete::MinImp => Some(Buckets::new(m, cap)),
            Delete::ProbValue => Some(Buckets::new(m, params.max())),
            Delete::Random => None,
        };
        Self {
            params: params.clone(),
            cells: PackedCells::zeros(m, bfopt_models::stable::cell_bits(params.max())),
            counters: if cap > 0 {
                vec![0; m as usize]
            } else {
                Vec::new()
            },
            buckets,
            scheme: HashScheme::new(seed),
            rng: crate::workload::rng(crate::workload::mix(seed ^ 0xDE1E7E)),
            zeros: m,
            scratch: Vec::new(),
            independent: false,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &IbfParams {
        &self.params
    }

    /// Memory the structure needs: `m·(⌈log2(Max+1)⌉ + counter bits)` bits (the bucket
    /// index of the probabilistic and MinImp policies is an acceleration structure a
    /// production filter could replace by scanning, and is not counted).
    pub fn memory_bits(&self) -> u64 {
        self.params.memory_bits()
    }

    /// Number of zero cells.
    pub fn zero_cells(&self) -> u64 {
        self.zeros
    }

    /// Value of cell `i`.
    pub fn cell(&self, i: u64) -> u32 {
        self.cells.get(i)
    }

    /// The item's `K` distinct cells (double hashing, repeats skipped).
    #[inline]
    fn cells_of(&self, h: HashPair, out: &mut [u64; 64]) -> usize {
        let k = self.params.k() as usize;
        let mut n = 0;
        for idx in h.indices(u32::MAX, self.params.m()) {
            if !out[..n].contains(&idx) {
                out[n] = idx;
                n += 1;
                if n == k {
                    break;
                }
            }
        }
        n
    }

    fn decrement(&mut self, i: u64) {
        let v = self.cells.get(i);
        if v == 0 {
            return;
        }
        self.cells.set(i, v - 1);
        if v == 1 {
            self.zeros += 1;
            if !self.counters.is_empty() {
                self.counters[i as usize] = 0;
            }
            if let Some(b) = &mut self.buckets {
                b.remove(i as u32);
            }
        } else if self.params.policy().delete() == Delete::ProbValue {
            if let Some(b) = &mut self.buckets {
                b.put(i as u32, v - 1);
            }
        }
    }

    fn set(&mut self, i: u64, value: u32, imp: u32) {
        let old = self.cells.get(i);
        if old == 0 {
            self.zeros -= 1;
        }
        self.cells.set(i, value);
        let key = if self.counters.is_empty() {
            value
        } else {
            let cap = self.params.counter_cap();
            let c = (u32::from(self.counters[i as usize]) + imp).min(cap);
            self.counters[i as usize] = c as u16;
            c
        };
        if let Some(b) = &mut self.buckets {
            b.put(i as u32, key);
        }
    }

    /// The deletion phase before an insertion.
    fn delete_phase(&mut self) {
        let (m, p) = (self.params.m(), self.params.p());
        match self.params.policy().delete() {
            Delete::Random => {
                let start = self.rng.random_range(0..m);
                for j in 0..p {
                    let i = start + j;
                    self.decrement(if i >= m { i - m } else { i });
                }
            }
            Delete::ProbCumulative | Delete::ProbValue if self.independent => {
                let Some(b) = &self.buckets else { return };
                let w = b.block_weight.iter().sum::<f64>();
                let mut chosen = std::mem::take(&mut self.scratch);
                chosen.clear();
                for (key, list) in b.lists.iter().enumerate().skip(1) {
                    let d = (p as f64 / (key as f64 * w)).min(1.0);
                    for &cell in list {
                        if self.rng.random::<f64>() < d {
                            chosen.push(cell);
                        }
                    }
                }
                for &cell in &chosen {
                    self.decrement(u64::from(cell));
                }
                self.scratch = chosen;
            }
            Delete::ProbCumulative | Delete::ProbValue => {
                for _ in 0..p {
                    let Some(b) = &self.buckets else { return };
                    let Some(cell) = b.pick_inverse_key(&mut self.rng) else {
                        return;
                    };
                    self.decrement(u64::from(cell));
                }
            }
            Delete::MinImp => {
                let mut chosen = std::mem::take(&mut self.scratch);
                if let Some(b) = &mut self.buckets {
                    b.least(p as usize, &mut self.rng, &mut chosen);
                }
                for &cell in &chosen {
                    self.decrement(u64::from(cell));
                }
                self.scratch = chosen;
            }
        }
    }

    /// Inserts an item of importance `imp` by its hash: deletion phase, then its `K`
    /// distinct cells are set (to `Max`, or to `min(imp, Max)` for Imp-insert).
    pub fn insert_hash(&mut self, h: HashPair, imp: u32) {
        self.delete_phase();
        let mut idx = [0u64; 64];
        let n = self.cells_of(h, &mut idx);
        let value = self.params.insert_value(imp);
        for &i in &idx[..n] {
            self.set(i, value, imp);
        }
    }

    /// Inserts a 64-bit key of importance `imp`.
    pub fn insert_u64(&mut self, key: u64, imp: u32) {
        self.insert_hash(self.scheme.hash_u64(key), imp);
    }

    /// Whether the item may be present: all its `K` cells non-zero.
    pub fn contains_hash(&self, h: HashPair) -> bool {
        let mut idx = [0u64; 64];
        let n = self.cells_of(h, &mut idx);
        idx[..n].iter().all(|&i| self.cells.get(i) > 0)
    }

    /// Whether a 64-bit key may be present.
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(self.scheme.hash_u64(key))
    }

    /// How many of a 64-bit key's `K` cells are zero (0: the key tests present).
    pub fn zero_cells_of_u64(&self, key: u64) -> usize {
        let mut idx = [0u64; 64];
        let n = self.cells_of(self.scheme.hash_u64(key), &mut idx);
        idx[..n].iter().filter(|&&i| self.cells.get(i) == 0).count()
    }

    /// The total weight `Σ 1/key` of the non-zero cells the probabilistic deletion
    /// phase picks from (key: the cumulative importance, or the value for IBF6); a cell
    /// of key `c` is picked with probability `(1/c)/weight` per pick. 0 for the random
    /// and MinImp policies.
    pub fn deletion_weight(&self) -> f64 {
        match (&self.buckets, self.params.policy().delete()) {
            (Some(b), Delete::ProbCumulative | Delete::ProbValue) => b.block_weight.iter().sum(),
            _ => 0.0,
        }
    }

    /// Diagnostic (issue 19): with `on`, the probabilistic deletion phase decrements each
    /// non-zero cell of key `c` independently with probability `min(1, P·(1/c)/W)`, `W`
    /// the [`StableFilter::deletion_weight`] at the phase's start (the decrement law of the
    /// stream model), instead of `P` sequential weighted picks. No effect on other policies.
    pub fn set_independent_deletion(&mut self, on: bool) {
        self.independent = on;
    }

    /// The cumulative-importance counter of cell `i` (0 for policies without one).
    pub fn counter(&self, i: u64) -> u32 {
        self.counters.get(i as usize).map_or(0, |&c| u32::from(c))
    }

    /// A 64-bit key's `K` distinct cells.
    pub fn cells_of_u64(&self, key: u64) -> Vec<u64> {
        let mut idx = [0u64; 64];
        let n = self.cells_of(self.scheme.hash_u64(key), &mut idx);
        idx[..n].to_vec()
    }

    /// The policy.
    pub fn policy(&self) -> Policy {
        self.params.policy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bfopt_models::stable::ImportanceDist;

    fn params(policy: Policy) -> IbfParams {
        IbfParams::new(policy, 512, 4, 5, 5, ImportanceDist::linear(1, 50).unwrap()).unwrap()
    }

    #[test]
    fn bucket_weights_kept_incrementally_equal_recomputed_ones() {
        use rand::SeedableRng;
        let mut r = ChaCha8Rng::seed_from_u64(3);
        let mut b = Buckets::new(300, 40);
        for _ in 0..20_000 {
            let cell = r.random_range(0..300u32);
            match r.random_range(0..4) {
                0 => b.remove(cell),
                // Often the same key again, as a re-set of a saturated cell is.
                1 => b.put(cell, 40),
                _ => b.put(cell, r.random_range(1..=40)),
            }
            for (blk, &w) in b.block_weight.iter().enumerate() {
                let hi = ((blk + 1) * BLOCK).min(b.lists.len());
                let fresh: f64 = (blk * BLOCK..hi)
                    .filter(|&k| k > 0)
                    .map(|k| b.lists[k].len() as f64 / k as f64)
                    .sum();
                assert_eq!(w.to_bits(), fresh.to_bits(), "block {blk}");
            }
        }
    }

    #[test]
    fn packed_cells_roundtrip() {
        let mut c = PackedCells::zeros(100, 3);
        for i in 0..100 {
            c.set(i, (i % 8) as u32);
        }
        assert!((0..100).all(|i| c.get(i) == (i % 8) as u32));
        assert_eq!(c.allocated_bytes(), 100usize.div_ceil(21) * 8);
    }

    #[test]
    fn fresh_item_is_present_and_zero_count_is_tracked() {
        for policy in Policy::ALL {
            let mut f = StableFilter::new(&params(policy), 3);
            for key in 0..2000u64 {
                f.insert_u64(key, (key % 50 + 1) as u32);
                assert!(f.contains_u64(key), "{policy}");
            }
            let zeros = (0..512).filter(|&i| f.cell(i) == 0).count() as u64;
            assert_eq!(zeros, f.zero_cells(), "{policy}");
        }
    }

    #[test]
    fn probabilistic_and_minimp_decrement_exactly_p_when_possible() {
        for policy in [Policy::Ibf2, Policy::Ibf3, Policy::Ibf4, Policy::Ibf6] {
            let mut f = StableFilter::new(&params(policy), 5);
            (0..500u64).for_each(|k| f.insert_u64(k, 7));
            let total = |f: &StableFilter| (0..512).map(|i| u64::from(f.cell(i))).sum::<u64>();
            let before = total(&f);
            f.delete_phase();
            assert_eq!(before - total(&f), 5, "{policy}");
        }
    }

    #[test]
    fn minimp_takes_the_least_cumulative_importance() {
        let mut f = StableFilter::new(&params(Policy::Ibf4), 1);
        // Cells 0..9 with importance 1..10 (one cell each).
        for i in 0..10u64 {
            f.set(i, 5, (i + 1) as u32);
        }
        f.delete_phase();
        let dec: Vec<u64> = (0..10).filter(|&i| f.cell(i) == 4).collect();
        assert_eq!(dec, vec![0, 1, 2, 3, 4]);
    }
}
