//! One standard Bloom filter inside a PBF, its index derivation and the pair hash.

use crate::filters::BitVec;
use crate::hash::{scattered, HashPair};
use crate::workload::mix;
use bfopt_models::pbf::MergedShape;
use bfopt_models::ModelError;
use strength_reduce::StrengthReducedU64;

/// One standard Bloom filter inside a PBF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubFilter {
    bits: BitVec,
    /// `m` (1 for a filter without bits, which computes no index).
    modulus: Modulus,
    k: u32,
    salt: u64,
    nonempty: bool,
}

/// `x mod m` by a multiply and a shift instead of a division (strength_reduce): the same
/// remainder as `%`. A PBF insert reduces `k` indices in every level's filter, and the
/// division was half of the PBF suite's time.
#[derive(Debug, Clone, Copy)]
struct Modulus(StrengthReducedU64);

impl Modulus {
    fn new(m: u64) -> Self {
        Self(StrengthReducedU64::new(m.max(1)))
    }
}

impl PartialEq for Modulus {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for Modulus {}

impl SubFilter {
    /// An empty filter of `m` bits and `k` hashes whose hash is remixed with `salt`.
    pub fn new(m: u64, k: u32, salt: u64) -> Self {
        Self {
            bits: BitVec::zeros(m),
            modulus: Modulus::new(m),
            k: if m == 0 { 0 } else { k.max(1) },
            salt,
            nonempty: false,
        }
    }

    /// The 64-bit key of an item in this filter: its hash mixed with the filter's salt.
    #[inline]
    fn key(&self, h: HashPair) -> u64 {
        mix(h.h1 ^ self.salt)
    }

    /// The `k` indices of an item: meta-hash `j` of its key,
    /// [`scattered`]`(x, j, v)` with `v = 2^63`, reduced `mod m` (Section 6 [PBF]).
    ///
    /// # Why independent meta-hashes, reduced `mod m`
    /// * `mod m` (not a multiply-high reduction): `(h mod m) mod m* = h mod m*` for every
    ///   divisor `m*` of `m`, so a filter folds onto `gcd(m, m')` bits and still answers
    ///   for its items ([`Self::merged`]). The reduction's bias is below `m/2^63`.
    /// * One independent mix per index (not double hashing `h1 + i·h2`): the optimal
    ///   allocation gives many PBF-1 leaf filters a few dozen bits. There the
    ///   double-hashing sequence takes only about `m²` distinct shapes, so a query repeats
    ///   a stored item's whole index set with probability about `1/m²`: at `m = 12` that is
    ///   0.007 on top of a filter FP near 0.005, and it made the measured PBF-1 FP 1.7
    ///   times the exact model (found by the pbf agreement runs). Independent indices
    ///   behave as the model's ideal ones.
    /// * Not the blocked layouts' [`crate::hash::InBlock`] digits (one multiply per
    ///   index): every digit after a word's first is read from the remainder of
    ///   `word·m`, so it depends on `m`, and two partitions' filters of different sizes
    ///   would place an item's later indices from different bits: no fold maps both
    ///   onto `gcd(m, m')` bits. Cheaper indices need a fold that follows them (and the
    ///   merge tests), not just a swap.
    #[inline]
    fn indices(&self, h: HashPair) -> impl Iterator<Item = u64> {
        let x = self.key(h);
        let m = self.modulus.0;
        (0..self.k).map(move |j| scattered(x, j, META_RANGE) % m)
    }

    /// Inserts by an item hash.
    #[inline]
    pub fn insert(&mut self, h: HashPair) {
        self.nonempty = true;
        if self.bits.is_empty() {
            return;
        }
        for idx in self.indices(h) {
            self.bits.set(idx);
        }
    }

    /// Membership by an item hash (stops at the first zero bit).
    #[inline]
    pub fn contains(&self, h: HashPair) -> bool {
        if self.bits.is_empty() {
            return self.nonempty;
        }
        self.indices(h).all(|idx| self.bits.get(idx))
    }

    /// Bits `m`.
    pub fn bits(&self) -> u64 {
        self.bits.len()
    }
    /// Hashes `k`.
    pub fn hashes(&self) -> u32 {
        self.k
    }
    /// Fraction of set bits (0 for a filter with no bits).
    pub fn fill(&self) -> f64 {
        if self.bits.is_empty() {
            0.0
        } else {
            self.bits.count_ones() as f64 / self.bits.len() as f64
        }
    }

    /// Whether anything was inserted.
    pub fn is_used(&self) -> bool {
        self.nonempty
    }

    /// ORs another filter of the same shape and salt into this one.
    ///
    /// # Errors
    /// Different bits, hashes or salt (see [`Self::merged`] for different sizes).
    pub fn merge(&mut self, other: &SubFilter) -> Result<(), ModelError> {
        if self.bits.len() != other.bits.len() || self.k != other.k || self.salt != other.salt {
            return Err(ModelError::invalid(
                "merge",
                format!("m = {}, k = {}", other.bits.len(), other.k),
                format!("the same shape: m = {}, k = {}", self.bits.len(), self.k),
            ));
        }
        for (w, &o) in other.bits.words().iter().enumerate() {
            self.bits.or_word(w, o);
        }
        self.nonempty |= other.nonempty;
        Ok(())
    }

    /// This filter folded onto `m*` bits (a divisor of its `m`) queried with `k* ≤ k`
    /// hashes: bit `i` sets bit `i mod m*` (Section 6 [PBF]). The result answers yes for
    /// every item this one holds.
    ///
    /// # Errors
    /// `m*` not a divisor of `m`, `k* > k`, or `m* = 0` for a filter with bits.
    pub fn folded(&self, bits: u64, hashes: u32) -> Result<SubFilter, ModelError> {
        let m = self.bits.len();
        if m == 0 {
            // No bits: answers yes once used; a used one cannot shrink into bits.
            if self.nonempty && bits > 0 {
                return Err(ModelError::invalid(
                    "merge",
                    bits,
                    "0 bits (a used filter without bits answers yes to everything)",
                ));
            }
            let mut out = SubFilter::new(bits, hashes, self.salt);
            out.nonempty = self.nonempty;
            return Ok(out);
        }
        if bits == 0 {
            let mut out = SubFilter::new(0, 0, self.salt);
            out.nonempty = self.nonempty;
            return Ok(out);
        }
        if m % bits != 0 || hashes > self.k || hashes == 0 {
            return Err(ModelError::invalid(
                "merge",
                format!("m* = {bits}, k* = {hashes}"),
                format!("a divisor of m = {m} and 1 <= k* <= {}", self.k),
            ));
        }
        let mut out = SubFilter::new(bits, hashes, self.salt);
        out.nonempty = self.nonempty;
        if bits == m {
            for (w, &o) in self.bits.words().iter().enumerate() {
                out.bits.or_word(w, o);
            }
        } else {
            for (w, &word) in self.bits.words().iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    let i = (w as u64) * 64 + u64::from(rest.trailing_zeros());
                    out.bits.set(i % bits);
                    rest &= rest - 1;
                }
            }
        }
        Ok(out)
    }

    /// The merge of two filters with the same salt and possibly different sizes: both
    /// folded onto [`MergedShape::of_filters`] (`gcd(m, m')` bits, `min(k, k')` hashes)
    /// and OR-ed (Section 6 [PBF]).
    ///
    /// # Errors
    /// Different salts.
    pub fn merged(&self, other: &SubFilter) -> Result<SubFilter, ModelError> {
        if self.salt != other.salt {
            return Err(ModelError::invalid(
                "merge",
                "filters with different hash salts",
                "the same seed and position",
            ));
        }
        let shape = MergedShape::of_filters(self.shape(), other.shape())?;
        let mut out = self.folded(shape.bits, shape.hashes)?;
        out.merge(&other.folded(shape.bits, shape.hashes)?)?;
        Ok(out)
    }

    /// `(bits, hashes, used)`.
    fn shape(&self) -> (u64, u32, bool) {
        (self.bits.len(), self.k, self.nonempty)
    }
}

/// The meta-hash range `v` of Section 6 [PBF] (`v > m` for every filter).
pub(super) const META_RANGE: u64 = 1 << 63;

/// The hash of a pair `(a, c)`, derived from the item's hash by a splitmix64 remix.
#[inline]
pub(super) fn pair_hash(h: HashPair, c: u64) -> HashPair {
    let salt = mix(c ^ 0xA076_1D64_78BD_642F);
    HashPair {
        h1: mix(h.h1 ^ salt),
        h2: mix(h.h2.wrapping_add(salt)) | 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Issue 18: the strength-reduced remainder is `%`, for meta-hashes (below
        /// `2^63`) and any 64-bit value, at any filter size.
        #[test]
        fn modulus_is_the_remainder(x in any::<u64>(), m in 1u64..=u64::MAX, small in 1u64..5000) {
            for m in [m, small, small.next_power_of_two()] {
                let r = Modulus::new(m).0;
                prop_assert_eq!(x % r, x % m);
                prop_assert_eq!((x >> 1) % r, (x >> 1) % m);
            }
        }
    }

    #[test]
    fn modulus_at_the_edges() {
        for m in [1u64, 2, 3, 7, 12, 1 << 20, (1 << 63) - 1, 1 << 63, u64::MAX] {
            let r = Modulus::new(m).0;
            for x in [
                0u64,
                1,
                m - 1,
                m,
                m.wrapping_add(1),
                (1 << 63) - 1,
                u64::MAX,
            ] {
                assert_eq!(x % r, x % m, "{x} mod {m}");
            }
        }
        assert_eq!(Modulus::new(0), Modulus::new(1));
    }
}
