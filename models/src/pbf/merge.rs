//! Merging the PBFs of two consecutive partitions (Section 6 [PBF]).
//!
//! Two PBFs of the same layout (same variant, horizon `T` and granularity) built over
//! consecutive partitions, each with timestamps relative to its partition's start, are
//! merged filter by filter. Filter `i` of the result holds the items of filter `i` of
//! both: a query `q(x, [s, e])` on the merged PBF answers yes if either partition's PBF
//! would answer yes for `[s, e]` (in partition-relative time). The merged PBF therefore
//! serves `2T` time units in the space of one: queries about either partition pay the
//! extra FP of the other partition's items.
//!
//! * Same bits and hashes: bitwise OR (Section 6).
//! * Different bits `m`, `m'` (same meta-hashes): the paper's fold. Every filter indexes
//!   by `h_j(x) mod m` with meta-hashes `h_j : U → [v]`, `v > m, m'`; then
//!   `(h_j(x) mod m) mod m* = h_j(x) mod m*` for `m* = gcd(m, m')`, so setting
//!   `b*[i mod m*]` for every set bit `i` of either filter gives the filter of `m*` bits
//!   that both item sets would have built directly.
//! * Different hash counts `k`, `k'` (the paper assumes them equal): the merged filter
//!   queries the first `k* = min(k, k')` meta-hashes. Every item of either side set
//!   those, so there are still no false negatives; the extra bits the larger `k` set stay
//!   as load.
//!
//! # Formula
//! ```text
//! m* = gcd(m, m'),  k* = min(k, k')
//! fp* = Σ_i P(X = i)·(i/m*)^{k*},  X = set bits after Σ_x k(x) throws into m* bits
//!       ≈ (1 − (1 − 1/m*)^{k·d + k'·d'})^{k*}          (independent bits)
//! ```
//! where an item present in both partitions' filter counts once with `max(k, k')`
//! throws (it sets the same meta-hash positions on both sides).
//!
//! # Caveat
//! The fold keeps only `gcd(m, m')` bits: two sizes with a small common divisor (e.g.
//! coprime sizes) leave a filter that answers yes to almost everything. Sizes meant to be
//! merged should share a large divisor, e.g. one partition's sizes a multiple of the
//! other's.

use crate::classic::fp_exact_after_throws;
use crate::error::ModelError;
use crate::numeric::{one_minus_pow1m, probability};
use serde::Serialize;

/// The shape of one merged filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MergedShape {
    /// Bits `m* = gcd(m, m')` (0 when either side has no bits and holds items).
    pub bits: u64,
    /// Hashes `k* = min(k, k')` (0 for a filter without bits).
    pub hashes: u32,
}

/// Greatest common divisor (Euclid); `gcd(0, b) = b`.
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl MergedShape {
    /// The shape that filters `(m, k)` and `(m', k')` merge into (Section 6 [PBF]).
    ///
    /// A filter without bits answers yes to everything once it holds an item (it keeps
    /// no false negatives), so merging it with anything gives a filter without bits;
    /// pass `bits = 0` only for such a filter (an empty filter without bits merges as
    /// the other side: see [`Self::of_filters`]).
    ///
    /// # Errors
    /// A filter with bits and `k = 0`.
    pub fn of(bits_a: u64, hashes_a: u32, bits_b: u64, hashes_b: u32) -> Result<Self, ModelError> {
        for (name, m, k) in [("hashes", bits_a, hashes_a), ("hashes", bits_b, hashes_b)] {
            if m > 0 && k == 0 {
                return Err(ModelError::invalid(
                    name,
                    k,
                    "k >= 1 for a filter with bits",
                ));
            }
        }
        if bits_a == 0 || bits_b == 0 {
            return Ok(Self { bits: 0, hashes: 0 });
        }
        Ok(Self {
            bits: gcd(bits_a, bits_b),
            hashes: hashes_a.min(hashes_b),
        })
    }

    /// As [`Self::of`], but a side that holds no items merges as the other side.
    ///
    /// # Errors
    /// As [`Self::of`].
    pub fn of_filters(a: (u64, u32, bool), b: (u64, u32, bool)) -> Result<Self, ModelError> {
        let ((ma, ka, used_a), (mb, kb, used_b)) = (a, b);
        match (used_a, used_b) {
            (false, _) if ma == 0 => Ok(Self {
                bits: mb,
                hashes: if mb == 0 { 0 } else { kb },
            }),
            (_, false) if mb == 0 => Ok(Self {
                bits: ma,
                hashes: if ma == 0 { 0 } else { ka },
            }),
            _ => Self::of(ma, ka, mb, kb),
        }
    }

    /// FP of the merged filter for a non-member when it holds `items` distinct items that
    /// made `throws` index throws (`Σ_x k(x)`, see the module doc): the exact occupancy
    /// law when it costs at most `budget` steps, else the independent-bits form; 0 with
    /// no items; 1 for a filter without bits that holds items (it answers yes to keep no
    /// false negatives).
    ///
    /// # Formula
    /// See the module doc (Section 6 [PBF]).
    pub fn fp(&self, items: u64, throws: u64, budget: f64) -> f64 {
        if items == 0 {
            return 0.0;
        }
        if self.bits == 0 || self.hashes == 0 {
            return 1.0;
        }
        let exact = if budget > 0.0 {
            fp_exact_after_throws(self.bits, throws, self.hashes, budget)
        } else {
            None
        };
        exact.unwrap_or_else(|| {
            let fill = one_minus_pow1m(1.0 / self.bits as f64, throws as f64);
            probability(fill.powi(self.hashes as i32))
        })
    }

    /// Fraction of the larger side's bits the merged filter keeps, `m* / max(m, m')`.
    pub fn kept(&self, bits_a: u64, bits_b: u64) -> f64 {
        let big = bits_a.max(bits_b);
        if big == 0 {
            1.0
        } else {
            self.bits as f64 / big as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pbf::filter_fp_with_budget;

    #[test]
    fn gcd_and_min() {
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(0, 7), 7);
        assert_eq!(gcd(1 << 40, 3 << 38), 1 << 38);
        let s = MergedShape::of(1200, 5, 800, 7).unwrap();
        assert_eq!((s.bits, s.hashes), (400, 5));
        assert_eq!(s.kept(1200, 800), 1.0 / 3.0);
        assert_eq!(MergedShape::of(0, 0, 800, 7).unwrap().bits, 0);
        assert!(MergedShape::of(10, 0, 800, 7).is_err());
        let empty = MergedShape::of_filters((0, 0, false), (64, 3, true)).unwrap();
        assert_eq!((empty.bits, empty.hashes), (64, 3));
        let full = MergedShape::of_filters((0, 0, true), (64, 3, true)).unwrap();
        assert_eq!(full.bits, 0);
        assert_eq!(full.fp(2, 0, 0.0), 1.0);
    }

    #[test]
    fn equal_hashes_fold_to_the_standard_filter_of_the_union() {
        // k·(d + d') throws with one k: the classic exact law and formula.
        let s = MergedShape::of(3000, 4, 2000, 4).unwrap();
        for budget in [0.0, 1e7] {
            let a = s.fp(100, 4 * (60 + 40), budget);
            let b = filter_fp_with_budget(1000, 4, 100.0, budget);
            assert!((a - b).abs() <= 1e-12 * b, "{a} {b}");
        }
        // Mixed hash counts: more throws than the smaller k alone would make.
        let mixed = MergedShape::of(3000, 4, 2000, 6).unwrap();
        assert!(mixed.fp(100, 4 * 60 + 6 * 40, 1e7) > s.fp(100, 4 * 100, 1e7));
        assert_eq!(mixed.fp(0, 0, 1e7), 0.0);
    }
}
