//! Reference filter implementations, one module per family (names as in `bfopt-models`).
//!
//! They are real, usable structures: bit-packed, one memory word per probe, seeded
//! hashing ([`crate::hash`]).

pub mod bits;
pub mod classic;
pub mod gbf;
pub mod timing;

pub use bits::BitVec;
