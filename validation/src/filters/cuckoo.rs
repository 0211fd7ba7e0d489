//! Reference cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher 2014): partial-key
//! cuckoo hashing, `b` slots per bucket, random-walk eviction with at most
//! [`MAX_KICKS`] kicks (Alg. 1-3 [CF]).
//!
//! Fingerprints take the non-zero `f`-bit values uniformly (0 marks an empty slot). The
//! alternate bucket is `i2 = (h(fp) − i1) mod buckets`, an involution like the paper's
//! `i1 ⊕ h(fp)` that works for any table size. When the kicks run out, the fingerprint
//! left in hand is kept as the victim (as the authors' implementation does), so no stored
//! item is lost, and every later insertion fails.

use crate::hash::{reduce, HashScheme};
use crate::workload::{mix, rng};
use bfopt_models::cuckoo::{CuckooParams, MAX_KICKS};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// An insertion failed: the table is full for this item (the kicks ran out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuckooFull;

/// A cuckoo filter of `f`-bit fingerprints.
#[derive(Debug, Clone)]
pub struct CuckooFilter {
    slots: Vec<u32>,
    f: u32,
    b: usize,
    buckets: u64,
    hash: HashScheme,
    kicks: ChaCha8Rng,
    victim: Option<(u64, u32)>,
    len: u64,
}

impl CuckooFilter {
    /// An empty filter shaped like `params` (its `n` is ignored), hashing with `seed`.
    pub fn new(params: &CuckooParams, seed: u64) -> Self {
        let b = params.b() as usize;
        Self {
            slots: vec![0; b * params.buckets() as usize],
            f: params.f(),
            b,
            buckets: params.buckets(),
            hash: HashScheme::new(seed),
            kicks: rng(mix(seed ^ 0xC0C0)),
            victim: None,
            len: 0,
        }
    }

    /// Items stored (including a victim).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Load factor: items over slots.
    pub fn load(&self) -> f64 {
        self.len as f64 / self.slots.len() as f64
    }

    /// The fingerprint (in `1..2^f`) and first bucket of a key.
    fn locate(&self, key: u64) -> (u32, u64) {
        let h = self.hash.hash_u64(key);
        let values = (1u64 << self.f) - 1;
        let fp = 1 + reduce(h.h2, values) as u32;
        (fp, reduce(h.h1, self.buckets))
    }

    /// The other bucket of fingerprint `fp` stored in bucket `i`.
    fn alternate(&self, i: u64, fp: u32) -> u64 {
        let h = reduce(mix(u64::from(fp)), self.buckets);
        (h + self.buckets - i) % self.buckets
    }

    fn bucket(&self, i: u64) -> &[u32] {
        let start = i as usize * self.b;
        &self.slots[start..start + self.b]
    }

    fn put(&mut self, i: u64, fp: u32) -> bool {
        let start = i as usize * self.b;
        match self.slots[start..start + self.b]
            .iter_mut()
            .find(|s| **s == 0)
        {
            Some(slot) => {
                *slot = fp;
                true
            }
            None => false,
        }
    }

    /// Inserts a key (Alg. 1 [CF]).
    ///
    /// # Errors
    /// [`CuckooFull`] when both buckets are full and [`MAX_KICKS`] evictions found no
    /// room (the item is then kept as the victim and counted), or when a victim is
    /// already held (the item is not stored).
    pub fn insert_u64(&mut self, key: u64) -> Result<(), CuckooFull> {
        if self.victim.is_some() {
            return Err(CuckooFull);
        }
        let (fp, i1) = self.locate(key);
        let i2 = self.alternate(i1, fp);
        self.len += 1;
        if self.put(i1, fp) || self.put(i2, fp) {
            return Ok(());
        }
        let mut i = if self.kicks.random::<bool>() { i1 } else { i2 };
        let mut fp = fp;
        for _ in 0..MAX_KICKS {
            let slot = i as usize * self.b + self.kicks.random_range(0..self.b);
            std::mem::swap(&mut fp, &mut self.slots[slot]);
            i = self.alternate(i, fp);
            if self.put(i, fp) {
                return Ok(());
            }
        }
        self.victim = Some((i, fp));
        Err(CuckooFull)
    }

    /// Whether the key may be stored (Alg. 2 [CF]): its fingerprint in either bucket.
    pub fn contains_u64(&self, key: u64) -> bool {
        let (fp, i1) = self.locate(key);
        let i2 = self.alternate(i1, fp);
        self.bucket(i1).contains(&fp)
            || self.bucket(i2).contains(&fp)
            || self
                .victim
                .is_some_and(|(v, vfp)| vfp == fp && (v == i1 || v == i2))
    }

    /// Deletes one copy of the key's fingerprint (Alg. 3 [CF]); whether one was found.
    /// Deleting a key never inserted may remove another item's matching fingerprint.
    pub fn remove_u64(&mut self, key: u64) -> bool {
        let (fp, i1) = self.locate(key);
        let i2 = self.alternate(i1, fp);
        if let Some((v, vfp)) = self.victim {
            if vfp == fp && (v == i1 || v == i2) {
                self.victim = None;
                self.len -= 1;
                return true;
            }
        }
        for i in [i1, i2] {
            let start = i as usize * self.b;
            if let Some(slot) = self.slots[start..start + self.b]
                .iter_mut()
                .find(|s| **s == fp)
            {
                *slot = 0;
                self.len -= 1;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{member, probe};

    #[test]
    fn no_false_negatives_and_deletion_works() {
        let p = CuckooParams::new(12, 4, 1000, 3600).unwrap();
        let mut f = CuckooFilter::new(&p, 3);
        for i in 0..3600 {
            f.insert_u64(member(3, i)).unwrap();
        }
        assert!((0..3600).all(|i| f.contains_u64(member(3, i))));
        for i in 0..1800 {
            assert!(f.remove_u64(member(3, i)));
        }
        assert_eq!(f.len(), 1800);
        assert!((1800..3600).all(|i| f.contains_u64(member(3, i))));
        let fps = (0..100_000)
            .filter(|&i| f.contains_u64(probe(3, i)))
            .count();
        // Load 0.45, f = 12: FP about 8·0.45/4095 = 8.8e-4.
        assert!(fps < 200, "{fps}");
    }

    #[test]
    fn a_full_table_keeps_every_stored_item() {
        let p = CuckooParams::new(8, 2, 64, 128).unwrap();
        let mut f = CuckooFilter::new(&p, 9);
        let stored: Vec<u64> = (0..128)
            .map(|i| member(9, i))
            .take_while(|&k| f.insert_u64(k).is_ok())
            .collect();
        assert!(stored.len() < 128);
        let failed = member(9, stored.len() as u64);
        assert!(stored.iter().chain([&failed]).all(|&k| f.contains_u64(k)));
        assert_eq!(f.insert_u64(member(9, 500)), Err(CuckooFull));
    }
}
