//! Reference Generalized Bloom filter (Section 5 [TBF]): `m` bits, `k0` resetting and
//! `k1` setting hashes; a query returns the observation `(c0, r0, c1, r1)` as well as
//! the standard answer.
//!
//! # Example
//! ```
//! use bfopt_models::gbf::{posterior, GbfParams};
//! use bfopt_validation::filters::gbf::GbfFilter;
//!
//! let params = GbfParams::new(8192, 3, 3)?;
//! let mut f = GbfFilter::new(&params, 7);
//! for key in 0..3000u64 {
//!     f.insert_u64(key);
//! }
//! let recent = f.query_u64(2999).observation;
//! let old = f.query_u64(0).observation;
//! let (a, b) = (
//!     posterior(&params, &recent, 1e-3, 500)?,
//!     posterior(&params, &old, 1e-3, 500)?,
//! );
//! assert!(recent.matching() == 6 && a > b);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

use crate::filters::BitVec;
use crate::hash::HashScheme;
use bfopt_models::gbf::{GbfObservation, GbfParams};

/// What a GBF query returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GbfQuery {
    /// `(c_x,0, r_x,0, c_x,1, r_x,1)`.
    pub observation: GbfObservation,
    /// Pos iff every `R_x,0` cell is 0 and every `R_x,1` cell is 1.
    pub positive: bool,
}

/// Room for `k0 + k1` indices (the most [`GbfParams`] allows).
const MAX_HASHES: usize = 2 * *GbfParams::K.end() as usize;

/// A Generalized Bloom filter.
#[derive(Debug, Clone)]
pub struct GbfFilter {
    params: GbfParams,
    bits: BitVec,
    hash: HashScheme,
}

impl GbfFilter {
    /// An all-zero filter hashing with `seed`.
    pub fn new(params: &GbfParams, seed: u64) -> Self {
        Self {
            params: *params,
            bits: BitVec::zeros(params.m()),
            hash: HashScheme::new(seed),
        }
    }

    /// `R_x,0` then `R_x,1` (distinct, `R_x,1` without the cells of `R_x,0`) in
    /// `idx[..r0]` and `idx[r0..r0 + r1]`; returns `(r0, r1)`.
    ///
    /// Each index is checked against the cells kept so far: a 1024-bit mask of
    /// `index mod 1024` answers "new" for most indices at once, and only a set mask bit
    /// costs the scan of the kept cells (at `k0 = k1 = 30` the scans were half the GBF
    /// suite's time). Same cells, in the same order, as scanning every time.
    #[inline]
    fn cells(&self, key: u64, idx: &mut [u64; MAX_HASHES]) -> (usize, usize) {
        let (k0, k1) = (self.params.k0() as usize, self.params.k1() as usize);
        for (slot, i) in idx.iter_mut().zip(
            self.hash
                .hash_u64(key)
                .indices((k0 + k1) as u32, self.params.m()),
        ) {
            *slot = i;
        }
        let mut seen = [0u64; 16];
        // Whether `v` is among `idx[..kept]` (and, if not, marks it seen).
        let mut fresh = |idx: &[u64; MAX_HASHES], kept: usize, v: u64| -> bool {
            let (w, b) = (((v >> 6) & 15) as usize, v & 63);
            if seen[w] >> b & 1 == 1 && idx[..kept].contains(&v) {
                return false;
            }
            seen[w] |= 1 << b;
            true
        };
        let mut r0 = 0;
        for j in 0..k0 {
            let v = idx[j];
            if fresh(idx, r0, v) {
                idx[r0] = v;
                r0 += 1;
            }
        }
        let mut r1 = 0;
        for j in k0..k0 + k1 {
            let v = idx[j];
            if fresh(idx, r0 + r1, v) {
                idx[r0 + r1] = v;
                r1 += 1;
            }
        }
        (r0, r1)
    }

    /// Inserts a key: the `k1` cells to 1, then the `k0` cells to 0.
    pub fn insert_u64(&mut self, key: u64) {
        let mut idx = [0u64; MAX_HASHES];
        let (r0, r1) = self.cells(key, &mut idx);
        self.write(&idx, r0, r1);
    }

    /// Sets the cells `idx[r0..r0 + r1]` to 1, then the cells `idx[..r0]` to 0.
    #[inline]
    fn write(&mut self, idx: &[u64; MAX_HASHES], r0: usize, r1: usize) {
        for &i in &idx[r0..r0 + r1] {
            self.bits.set(i);
        }
        for &i in &idx[..r0] {
            self.bits.clear(i);
        }
    }

    /// Queries a key.
    pub fn query_u64(&self, key: u64) -> GbfQuery {
        let mut idx = [0u64; MAX_HASHES];
        let (r0, r1) = self.cells(key, &mut idx);
        self.observe(&idx, r0, r1)
    }

    /// Queries a key, then inserts it: [`Self::query_u64`] then [`Self::insert_u64`], with
    /// the key's cells found once (a stream experiment asks both of every arrival).
    pub fn query_then_insert_u64(&mut self, key: u64) -> GbfQuery {
        let mut idx = [0u64; MAX_HASHES];
        let (r0, r1) = self.cells(key, &mut idx);
        let q = self.observe(&idx, r0, r1);
        self.write(&idx, r0, r1);
        q
    }

    /// The query of the cells `idx[..r0]` (`R_x,0`) and `idx[r0..r0 + r1]` (`R_x,1`).
    #[inline]
    fn observe(&self, idx: &[u64; MAX_HASHES], r0: usize, r1: usize) -> GbfQuery {
        let c0 = idx[..r0].iter().filter(|&&i| !self.bits.get(i)).count() as u32;
        let c1 = idx[r0..r0 + r1]
            .iter()
            .filter(|&&i| self.bits.get(i))
            .count() as u32;
        let (r0, r1) = (r0 as u32, r1 as u32);
        GbfQuery {
            observation: GbfObservation { c0, r0, c1, r1 },
            positive: c0 == r0 && c1 == r1,
        }
    }

    /// Fraction of 0 cells.
    pub fn zero_fraction(&self) -> f64 {
        1.0 - self.bits.count_ones() as f64 / self.params.m() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Querying then inserting in one call leaves the filter as the two calls do, and
    /// answers as the query before the insertion (small `m`: repeated cells; `k = 30`).
    #[test]
    fn query_then_insert_is_the_query_then_the_insert() {
        for (m, k) in [(64, 3), (4096, 30), (1 << 14, 2)] {
            let p = GbfParams::new(m, k, k).unwrap();
            let (mut a, mut b) = (GbfFilter::new(&p, 9), GbfFilter::new(&p, 9));
            for i in 0..5000u64 {
                let key = i % 700 + (i * 31) % 5;
                let want = a.query_u64(key);
                a.insert_u64(key);
                assert_eq!(b.query_then_insert_u64(key), want);
                assert_eq!(a.bits, b.bits);
            }
        }
    }

    #[test]
    fn a_fresh_insert_answers_pos_and_decays() {
        let p = GbfParams::new(4096, 3, 3).unwrap();
        let mut f = GbfFilter::new(&p, 1);
        f.insert_u64(42);
        let q = f.query_u64(42);
        assert!(q.positive);
        assert_eq!(q.observation.c0, q.observation.r0);
        for k in 0..20_000u64 {
            f.insert_u64(1000 + k);
        }
        // Stationary zero fraction q0/(q0+q1) ≈ 0.5 for k0 = k1.
        assert!(
            (f.zero_fraction() - p.pi0()).abs() < 0.03,
            "{}",
            f.zero_fraction()
        );
    }
}
