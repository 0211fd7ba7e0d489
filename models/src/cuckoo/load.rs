//! The load at which a cuckoo filter's first insertion fails: measured data.
//!
//! `[CF]` gives it by experiment only (Section 4, Fig. 2). These values were measured with
//! bfopt's reference filter (`bfopt-validation`, `filters::cuckoo`: partial-key cuckoo
//! hashing, random-walk eviction, [`MAX_KICKS`] kicks) by filling fresh tables with
//! distinct items until the first insertion fails; `tests/agreement/cuckoo.rs` measures
//! them again with new seeds and checks them against these intervals.

use serde::Serialize;

/// Evictions tried before an insertion fails (Alg. 1 [CF]: `MaxNumKicks = 500`).
pub const MAX_KICKS: u32 = 500;

/// The load at the first insertion failure for one bucket size, over independent trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MaxLoad {
    /// Slots per bucket.
    pub b: u32,
    /// Mean load at the first failure.
    pub mean: f64,
    /// Its standard deviation across trials (one table each).
    pub sd: f64,
    /// 99% Student t interval of the mean.
    pub lo: f64,
    /// 99% Student t interval of the mean.
    pub hi: f64,
    /// Trials (tables filled).
    pub trials: u32,
    /// Buckets per table in the trials.
    pub buckets: u64,
}

impl MaxLoad {
    /// The load designs stay at or below: `mean − 6·sd`, rounded down to a percent. The
    /// first failure fell below it in no trial at the measured table size; other sizes are
    /// not covered by the data: a design's simulation (`recommend --validate`,
    /// `simulate cuckoo`) counts any insertion failure at its load.
    pub fn safe(&self) -> f64 {
        ((self.mean - 6.0 * self.sd) * 100.0).floor() / 100.0
    }
}

/// Measured first-failure loads for `b` = 1, 2, 4, 8: 200 tables of `2^14` buckets each,
/// 12-bit fingerprints, seed 20261125 (2026-11-25, `cargo test -p bfopt-validation --lib
/// cuckoo_max_load_table -- --ignored --nocapture`). The smallest loads seen were 0.459,
/// 0.865, 0.958 and 0.986, all above [`MaxLoad::safe`] (0.40, 0.85, 0.95, 0.98). They sit
/// a little above the paper's Fig. 2 figures (about 50%, 84%, 95%, 98%), which used other
/// table sizes.
pub const MAX_LOAD: [MaxLoad; 4] = [
    MaxLoad {
        b: 1,
        mean: 0.515811,
        sd: 0.018513,
        lo: 0.512406,
        hi: 0.519215,
        trials: 200,
        buckets: 1 << 14,
    },
    MaxLoad {
        b: 2,
        mean: 0.877404,
        sd: 0.004015,
        lo: 0.876666,
        hi: 0.878143,
        trials: 200,
        buckets: 1 << 14,
    },
    MaxLoad {
        b: 4,
        mean: 0.965827,
        sd: 0.002184,
        lo: 0.965425,
        hi: 0.966229,
        trials: 200,
        buckets: 1 << 14,
    },
    MaxLoad {
        b: 8,
        mean: 0.990318,
        sd: 0.001215,
        lo: 0.990094,
        hi: 0.990541,
        trials: 200,
        buckets: 1 << 14,
    },
];

/// The measured first-failure load of bucket size `b`, if measured.
pub fn max_load(b: u32) -> Option<MaxLoad> {
    MAX_LOAD.iter().copied().find(|m| m.b == b)
}
