//! The single filter of (item, timestamp) pairs.

use super::sub_filter::{pair_hash, SubFilter};
use crate::hash::HashScheme;
use crate::workload::mix;

/// The single-filter baseline `β0` (Section 3.1 [PBF]): one filter over (item,
/// timestamp) pairs, `|q|` probes per query.
#[derive(Debug, Clone)]
pub struct SbfFilter {
    filter: SubFilter,
    scheme: HashScheme,
}

impl SbfFilter {
    /// An empty SBF of `m` bits and `k` hashes.
    pub fn new(m: u64, k: u32, seed: u64) -> Self {
        Self {
            filter: SubFilter::new(m, k, mix(seed ^ 0x5BF)),
            scheme: HashScheme::new(seed),
        }
    }

    /// Inserts `(key, t)`.
    pub fn insert(&mut self, key: u64, t: u64) {
        self.filter.insert(pair_hash(self.scheme.hash_u64(key), t));
    }

    /// `q(x, [s, e])` with short-circuit evaluation, and the probes made.
    pub fn query_counting(&self, key: u64, s: u64, e: u64) -> (bool, u64) {
        let h = self.scheme.hash_u64(key);
        let mut probes = 0;
        for t in s..=e {
            probes += 1;
            if self.filter.contains(pair_hash(h, t)) {
                return (true, probes);
            }
        }
        (false, probes)
    }

    /// `q(x, [s, e])`.
    pub fn query(&self, key: u64, s: u64, e: u64) -> bool {
        self.query_counting(key, s, e).0
    }

    /// The filter.
    pub fn filter(&self) -> &SubFilter {
        &self.filter
    }
}
