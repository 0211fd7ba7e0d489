//! Cuckoo filters: fingerprints in buckets, with deletion.
//!
//! Fan, Andersen, Kaminsky and Mitzenmacher, *Cuckoo Filter: Practically Better Than
//! Bloom* (CoNEXT 2014), tag `[CF]`. A table of `buckets` buckets of `b` slots stores one
//! `f`-bit fingerprint per item in one of two candidate buckets, `i1 = hash(x)` and
//! `i2 = i1 ⊕ hash(fp)` (partial-key cuckoo hashing, Section 3.1 [CF]); a full pair evicts
//! and relocates fingerprints, up to 500 kicks (Alg. 1 [CF]). A query compares its
//! fingerprint with the `2b` slots of its two buckets; deletion removes one copy.
//!
//! | quantity | formula | function |
//! |---|---|---|
//! | load `α` | `n / (b · buckets)` | [`CuckooParams::load`] |
//! | FP upper bound (full table) | `2b / 2^f` (Section 5.1 [CF]) | [`CuckooParams::fp_bound`] |
//! | FP at load `α` | `1 − (1 − 1/(2^f − 1))^(2bα)` | [`CuckooParams::fp`] |
//! | bits per item | `f / α` (Section 5.1 [CF]) | [`CuckooMetrics::bits_per_item`] |
//! | load at the first insertion failure | measured, [`MAX_LOAD`] | [`max_load`] |
//!
//! # Assumptions and deviations
//! * Fingerprints take the `2^f − 1` non-zero values (0 marks an empty slot), uniformly;
//!   `[CF]` writes `2^−f` for the match probability of one slot, which assumes all `2^f`
//!   values are usable. The difference is `1/2^f` relative (6% at `f = 4`).
//! * The reference filter (`bfopt-validation`, `filters::cuckoo`) uses the involution
//!   `i2 = (hash(fp) − i1) mod buckets` in place of `⊕`, so that any table size works,
//!   not only powers of two; an item whose two buckets coincide (probability at most
//!   `2/buckets`) is checked in one bucket.
//! * The maximal load is not a closed form in `[CF]` (Section 4 and Fig. 2 show it by
//!   experiment: about 50%, 84%, 95%, 98% for `b` = 1, 2, 4, 8): bfopt measured it with its
//!   reference filter ([`MAX_LOAD`], with interval, table size and trial count: 51.6%,
//!   87.7%, 96.6%, 99.0% at `2^14` buckets) and sizes designs at [`MaxLoad::safe`].
//!
//! # Example
//! ```
//! use bfopt_models::cuckoo::{design, CuckooRequirement};
//! let d = design(&CuckooRequirement::new(0.01, 1_000_000)?)?;
//! assert_eq!((d.params.b(), d.params.f()), (4, 10));
//! assert!((d.metrics.bits_per_item - 10.5).abs() < 0.05); // load 0.95
//! assert!(d.metrics.fp <= 0.01 && d.metrics.supports_deletion);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # References
//! * B. Fan, D. G. Andersen, M. Kaminsky, M. D. Mitzenmacher, "Cuckoo Filter: Practically
//!   Better Than Bloom", CoNEXT 2014.

mod load;

pub use load::{max_load, MaxLoad, MAX_KICKS, MAX_LOAD};

use crate::error::{check, show_rate, ModelError};
use crate::numeric::{one_minus_pow1m, probability};
use serde::Serialize;
use std::ops::RangeInclusive;

/// A cuckoo filter: `buckets` buckets of `b` slots of `f`-bit fingerprints, holding `n`
/// items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CuckooParams {
    f: u32,
    b: u32,
    buckets: u64,
    n: u64,
}

impl CuckooParams {
    /// Fingerprint bits (at least 2: one value is the empty marker).
    pub const F: RangeInclusive<u32> = 2..=32;
    /// Slots per bucket.
    pub const B: RangeInclusive<u32> = 1..=16;
    /// Buckets.
    pub const BUCKETS: RangeInclusive<u64> = 2..=(1 << 40);

    /// A filter of `buckets × b` slots of `f` bits holding `n ≤ b·buckets` items.
    ///
    /// # Errors
    /// A parameter outside its range, or `n` above the slot count.
    pub fn new(f: u32, b: u32, buckets: u64, n: u64) -> Result<Self, ModelError> {
        check::in_range("f", f, Self::F)?;
        check::in_range("b", b, Self::B)?;
        check::in_range("buckets", buckets, Self::BUCKETS)?;
        check::in_range("n", n, 0..=u64::from(b) * buckets)?;
        Ok(Self { f, b, buckets, n })
    }

    /// Fingerprint bits `f`.
    pub fn f(&self) -> u32 {
        self.f
    }

    /// Slots per bucket `b`.
    pub fn b(&self) -> u32 {
        self.b
    }

    /// Buckets in the table.
    pub fn buckets(&self) -> u64 {
        self.buckets
    }

    /// Items stored `n`.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Load factor `α = n / (b · buckets)`.
    pub fn load(&self) -> f64 {
        self.n as f64 / (f64::from(self.b) * self.buckets as f64)
    }

    /// The upper bound `2b/2^f` of Section 5.1 [CF]: a full table, each of the `2b`
    /// slots a query reads matching with probability `2^−f` (union bound).
    pub fn fp_bound(&self) -> f64 {
        (2.0 * f64::from(self.b) * (-f64::from(self.f)).exp2()).min(1.0)
    }

    /// FP at the actual load: `1 − (1 − q)^(2bα)`, `q = 1/(2^f − 1)`: the query reads two
    /// buckets holding `2bα` fingerprints on average, each matching with probability `q`.
    ///
    /// # Accuracy
    /// The number `N` of fingerprints in the two buckets varies; the FP is `E[1 − (1 −
    /// q)^N]`, which this value bounds from above (Jensen) by at most `q'·Var(N)/(2·E[N])`
    /// relative, `q' = −ln(1 − q)`; since `N ∈ [0, 2b]`, `Var(N) ≤ E[N]·2b`
    /// (Bhatia-Davis) and the gap is below `q'·b` (1.6% at `f = 8, b = 4`). Checked by
    /// simulation at several loads (`tests/agreement/cuckoo.rs`).
    ///
    /// # Numerics
    /// `1 − (1 − q)^x` as `−expm1(x·ln_1p(−q))`.
    pub fn fp(&self) -> f64 {
        let q = 1.0 / ((f64::from(self.f)).exp2() - 1.0);
        probability(one_minus_pow1m(q, 2.0 * f64::from(self.b) * self.load()))
    }

    /// The metrics of this filter.
    pub fn metrics(&self) -> CuckooMetrics {
        let memory_bits = u64::from(self.f) * u64::from(self.b) * self.buckets;
        let max = max_load(self.b);
        CuckooMetrics {
            load: self.load(),
            fp: self.fp(),
            fp_bound: self.fp_bound(),
            memory_bits,
            bits_per_item: memory_bits as f64 / self.n.max(1) as f64,
            max_load: max.map(|m| m.mean),
            near_failure: max.is_none_or(|m| self.load() > m.safe()),
            accesses_query: 2.0,
            supports_deletion: true,
        }
    }
}

/// What a cuckoo filter costs and gives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CuckooMetrics {
    /// Load factor `α`.
    pub load: f64,
    /// FP at this load ([`CuckooParams::fp`]).
    pub fp: f64,
    /// The full-table bound `2b/2^f` ([`CuckooParams::fp_bound`]).
    pub fp_bound: f64,
    /// Table size in bits, `f · b · buckets`.
    pub memory_bits: u64,
    /// `memory_bits / n`.
    pub bits_per_item: f64,
    /// Mean load at the first insertion failure for this `b` ([`MAX_LOAD`]), if measured.
    pub max_load: Option<f64>,
    /// Whether the load is above [`MaxLoad::safe`] (or `b` was not measured): insertions
    /// may fail before `n` is reached.
    pub near_failure: bool,
    /// Buckets read by a query for a non-member: both.
    pub accesses_query: f64,
    /// Items can be deleted (one fingerprint copy removed).
    pub supports_deletion: bool,
}

/// What to size: an FP target for `n` items, with `b` slots per bucket.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CuckooRequirement {
    fp: f64,
    n: u64,
    b: u32,
}

impl CuckooRequirement {
    /// The bucket size of [`CuckooRequirement::new`]: 4, the paper's recommendation for
    /// FP between 0.002 and 0.00001 (Section 5.1 [CF]) and the usual default.
    pub const B_DEFAULT: u32 = 4;

    /// FP at most `fp` for `n` items, buckets of [`Self::B_DEFAULT`] slots.
    ///
    /// # Errors
    /// `fp` outside the supported targets, `n` zero or above `2^40`.
    pub fn new(fp: f64, n: u64) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("n", n, 1..=(1 << 40))?;
        Ok(Self {
            fp,
            n,
            b: Self::B_DEFAULT,
        })
    }

    /// The same requirement with `b` slots per bucket (one of the measured sizes).
    ///
    /// # Errors
    /// `b` without a measured maximal load ([`MAX_LOAD`]).
    pub fn with_b(mut self, b: u32) -> Result<Self, ModelError> {
        if max_load(b).is_none() {
            return Err(ModelError::invalid("b", b, "b in {1, 2, 4, 8}"));
        }
        self.b = b;
        Ok(self)
    }
}

/// A sized cuckoo filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CuckooDesign {
    /// The chosen filter.
    pub params: CuckooParams,
    /// Its metrics (`metrics.fp ≤` the target).
    pub metrics: CuckooMetrics,
}

/// Sizes a cuckoo filter: the fewest buckets whose load stays at or below the safe load
/// of `b` ([`MaxLoad::safe`]), then the fewest fingerprint bits whose FP at that load
/// ([`CuckooParams::fp`]) meets the target.
///
/// # Errors
/// [`ModelError::Infeasible`] when even 32-bit fingerprints miss the target.
pub fn design(req: &CuckooRequirement) -> Result<CuckooDesign, ModelError> {
    let safe = max_load(req.b).map_or(0.5, |m| m.safe());
    let buckets = ((req.n as f64 / (safe * f64::from(req.b))).ceil() as u64).max(2);
    let fits = |f: u32| {
        CuckooParams::new(f, req.b, buckets, req.n)
            .ok()
            .filter(|p| p.fp() <= req.fp)
    };
    let params = CuckooParams::F.into_iter().find_map(fits).ok_or_else(|| {
        ModelError::infeasible(
            format!("fp <= {}", show_rate(req.fp)),
            format!(
                "fp = {:e} with 32-bit fingerprints at load {safe}",
                CuckooParams::new(32, req.b, buckets, req.n).map_or(f64::NAN, |p| p.fp())
            ),
        )
    })?;
    Ok(CuckooDesign {
        params,
        metrics: params.metrics(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_filter_has_no_false_positives() {
        let p = CuckooParams::new(8, 4, 1024, 0).unwrap();
        assert_eq!(p.fp(), 0.0);
        assert!(p.fp_bound() > 0.0);
    }

    #[test]
    fn fp_at_full_load_is_under_the_paper_bound() {
        for (f, b) in [(4, 1), (8, 4), (12, 8), (16, 2)] {
            let p = CuckooParams::new(f, b, 1000, u64::from(b) * 1000).unwrap();
            // 1 − (1 − q)^(2b) ≤ 2b·q, and q = 1/(2^f − 1) is 2^−f·(1 + 1/(2^f − 1)).
            let bound = p.fp_bound() * (1.0 + 1.0 / ((f64::from(f)).exp2() - 1.0));
            assert!(p.fp() <= bound, "f {f} b {b}: {} > {bound}", p.fp());
            assert!(p.fp() > 0.9 * p.fp_bound());
        }
    }

    #[test]
    fn fp_increases_with_load() {
        let fps: Vec<f64> = (0..=8)
            .map(|i| CuckooParams::new(8, 4, 1000, i * 500).unwrap().fp())
            .collect();
        assert!(fps.windows(2).all(|w| w[0] < w[1]), "{fps:?}");
    }

    #[test]
    fn design_meets_target_below_safe_load() {
        for fp in [0.1, 0.01, 1e-4, 1e-6] {
            let d = design(&CuckooRequirement::new(fp, 100_000).unwrap()).unwrap();
            assert!(d.metrics.fp <= fp);
            assert!(!d.metrics.near_failure);
            let one_less = CuckooParams::new(d.params.f() - 1, 4, d.params.buckets(), 100_000);
            assert!(one_less.is_err() || one_less.unwrap().fp() > fp);
        }
        assert!(matches!(
            design(&CuckooRequirement::new(1e-12, 1000).unwrap()),
            Err(ModelError::Infeasible { .. })
        ));
    }

    #[test]
    fn bad_input_names_the_parameter() {
        assert_eq!(
            CuckooParams::new(8, 4, 10, 41).unwrap_err().to_string(),
            "invalid n = 41 (allowed: 0 <= n <= 40)"
        );
        assert!(CuckooParams::new(1, 4, 10, 1).is_err());
        assert!(CuckooRequirement::new(0.01, 10).unwrap().with_b(3).is_err());
    }
}
