//! Reference implementations of the hand-built window baselines of
//! [`bfopt_models::baseline`]: a ring of classic filters and a fingerprint queue.
//!
//! # Example
//! The model's ring for a window of 10 000 at 1%, built: the last `W` keys are always
//! reported, and fresh keys rarely.
//! ```
//! use bfopt_models::baseline::rotating::design_rotating;
//! use bfopt_models::baseline::RotatingRequirement;
//! use bfopt_models::classic::Layout;
//! use bfopt_validation::filters::baseline::RotatingFilter;
//! let w = 10_000u64;
//! let d = design_rotating(&RotatingRequirement::new(0.01, w, Layout::Standard)?)?;
//! let p = &d.per_filter.params;
//! let mut ring = RotatingFilter::new(d.filters, p.m(), p.k(), Layout::Standard, d.generation, 3);
//! for key in 0..5 * w {
//!     ring.insert_u64(key);
//!     assert!(ring.contains_u64(key.saturating_sub(w - 1)));
//! }
//! let fp = (u64::MAX - 100_000..u64::MAX).filter(|&k| ring.contains_u64(k)).count();
//! assert!(fp < 1_300, "{fp} false positives in 100 000 (target 1%)");
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```

use super::classic::ClassicFilter;
use crate::hash::HashScheme;
use bfopt_models::classic::Layout;
use bfopt_models::error::{check, ModelError};
use foldhash::fast::FixedState;
use std::collections::{HashMap, VecDeque};

/// `r` classic filters of `m` bits, one generation of `g` insertions each; a query ORs
/// them all (see [`bfopt_models::baseline::rotating`]).
#[derive(Debug, Clone)]
pub struct RotatingFilter {
    filters: Vec<ClassicFilter>,
    generation: u64,
    newest: usize,
    in_newest: u64,
    scheme: HashScheme,
}

impl RotatingFilter {
    /// [`Self::new`], checked: `filters` in
    /// [`bfopt_models::baseline::RotatingRequirement::FILTERS`], `generation ≥ 1`, and a
    /// filter shape that passes [`bfopt_models::classic::ClassicParams::new`].
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming the parameter (issue 10: `new(0, ..)` built a
    /// ring whose first insertion indexed an empty vector).
    pub fn try_new(
        filters: u32,
        m: u64,
        k: u32,
        layout: Layout,
        generation: u64,
        seed: u64,
    ) -> Result<Self, ModelError> {
        check::in_range(
            "filters",
            filters,
            bfopt_models::baseline::RotatingRequirement::FILTERS,
        )?;
        check::in_range("generation", generation, 1..=u64::MAX)?;
        bfopt_models::classic::ClassicParams::new(m, k, 1, layout)?;
        Ok(Self::new(filters, m, k, layout, generation, seed))
    }

    /// An empty ring of `filters` filters, each `m` bits with `k` hashes in `layout`,
    /// rotating every `generation` insertions. Items are hashed once; every filter uses
    /// the same indices, as a real implementation would.
    pub fn new(filters: u32, m: u64, k: u32, layout: Layout, generation: u64, seed: u64) -> Self {
        Self {
            filters: (0..filters)
                .map(|_| ClassicFilter::with_layout(m, k, layout, seed))
                .collect(),
            generation: generation.max(1),
            newest: 0,
            in_newest: 0,
            scheme: HashScheme::new(seed),
        }
    }

    /// Inserts a key, first rotating (clearing the oldest filter) if the newest is full.
    pub fn insert_u64(&mut self, key: u64) {
        if self.in_newest == self.generation {
            self.newest = (self.newest + 1) % self.filters.len();
            self.filters[self.newest].clear();
            self.in_newest = 0;
        }
        self.filters[self.newest].insert_hash(self.scheme.hash_u64(key));
        self.in_newest += 1;
    }

    /// Whether any filter may hold the key.
    pub fn contains_u64(&self, key: u64) -> bool {
        let h = self.scheme.hash_u64(key);
        self.filters.iter().any(|f| f.contains_hash(h))
    }
}

/// A circular buffer of the last `W` fingerprints and a map from fingerprint to its
/// count in the buffer (see [`bfopt_models::baseline::fingerprint_queue`]).
#[derive(Debug, Clone)]
pub struct FingerprintQueue {
    ring: VecDeque<u64>,
    /// Looked up, never iterated, so the hasher changes no answer: foldhash rather than
    /// SipHash (the lookups were a third of the baseline suite's time).
    counts: HashMap<u64, u32, FixedState>,
    window: usize,
    shift: u32,
    scheme: HashScheme,
}

impl FingerprintQueue {
    /// An empty queue for `window` items with `fingerprint_bits`-bit fingerprints
    /// (1 to 64).
    pub fn new(window: usize, fingerprint_bits: u32, seed: u64) -> Self {
        Self {
            ring: VecDeque::with_capacity(window),
            counts: HashMap::with_capacity_and_hasher(window, FixedState::with_seed(seed)),
            window: window.max(1),
            shift: 64 - fingerprint_bits.clamp(1, 64),
            scheme: HashScheme::new(seed),
        }
    }

    fn fingerprint(&self, key: u64) -> u64 {
        self.scheme.hash_u64(key).h1 >> self.shift
    }

    /// Appends a key; the key leaving the window is forgotten.
    pub fn insert_u64(&mut self, key: u64) {
        if self.ring.len() == self.window {
            if let Some(old) = self.ring.pop_front() {
                if let Some(c) = self.counts.get_mut(&old) {
                    *c -= 1;
                    if *c == 0 {
                        self.counts.remove(&old);
                    }
                }
            }
        }
        let fp = self.fingerprint(key);
        self.ring.push_back(fp);
        *self.counts.entry(fp).or_insert(0) += 1;
    }

    /// Whether the key's fingerprint is in the window.
    pub fn contains_u64(&self, key: u64) -> bool {
        self.counts.contains_key(&self.fingerprint(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_ring_rejects_bad_shapes() {
        let std = Layout::Standard;
        assert!(RotatingFilter::try_new(0, 1000, 3, std, 10, 1).is_err());
        assert!(RotatingFilter::try_new(65, 1000, 3, std, 10, 1).is_err());
        assert!(RotatingFilter::try_new(2, 0, 3, std, 10, 1).is_err());
        assert!(RotatingFilter::try_new(2, 1000, 3, std, 0, 1).is_err());
        let mut r = RotatingFilter::try_new(2, 1000, 3, std, 10, 1).unwrap();
        (0..25).for_each(|k| r.insert_u64(k));
        assert!((15..25).all(|k| r.contains_u64(k)));
    }

    #[test]
    fn fingerprint_queue_clamps_its_arguments() {
        // new() clamps window to >= 1 and fingerprint bits to 1..=64: never panics.
        for (w, b) in [(0usize, 0u32), (1, 65), (3, u32::MAX)] {
            let mut q = FingerprintQueue::new(w, b, 1);
            q.insert_u64(1);
            assert!(q.contains_u64(1));
        }
    }
}
