//! Reference filter implementations, one module per family (names as in `bfopt-models`).
//!
//! They are real, usable structures: bit-packed, one memory word per probe, seeded
//! hashing ([`crate::hash`]).

pub mod apbf;
pub mod baseline;
pub mod bits;
pub mod classic;
pub mod counting;
pub mod cuckoo;
pub mod fuse;
pub mod gbf;
pub mod pbf;
pub mod rbf;
pub mod rocksdb;
pub mod scalable;
pub mod split_block;
pub mod timing;

pub use bits::BitVec;

/// A filter over the last insertions of a stream (sliding-window families).
pub trait WindowFilter {
    /// Inserts a 64-bit key.
    fn insert_u64(&mut self, key: u64);
    /// Whether the key may be among the recent insertions.
    fn contains_u64(&self, key: u64) -> bool;
}

impl WindowFilter for baseline::RotatingFilter {
    fn insert_u64(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains_u64(&self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

impl WindowFilter for baseline::FingerprintQueue {
    fn insert_u64(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains_u64(&self, key: u64) -> bool {
        self.contains_u64(key)
    }
}
pub mod stable;
