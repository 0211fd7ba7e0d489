//! Reference persistent Bloom filters: SBF `β0`, PBF-1 `β1` and PBF-2 `β2`
//! (Sections 3-4 and 6 of `001_2b1de25c23e3527a.txt`).
//!
//! * Insertion follows Alg. 2 (PBF-1: the item into the filter of every interval that
//!   contains `t`, and the pair `(a, t)` into `b_{u+1}`) and Alg. 4 (PBF-2: the pair
//!   `(a, ⌈t/g_ℓ⌉)` into every level). Filters are created as time reaches them
//!   (streaming growth): with [`PbfSizing::Uniform`] a PBF-2 grows a new root level as a
//!   clone of the old one when `t` passes `2^(levels−1)`, exactly as Alg. 4 does, and a
//!   PBF-1 grows new intervals (Figure 4) with no bound on `T`.
//! * Queries follow Alg. 1 and Alg. 3 with short-circuit evaluation, PBF-1's partial
//!   leaves asking the leaf filter before `b_{u+1}` (route 3 of Section 4.1).
//! * Every sub-filter is a standard Bloom filter with its own bits and hash count (from
//!   an allocation, [`bfopt_models::pbf::AllocationProblem`]) and its own hash: the
//!   item's 128-bit hash (the one scheme of [`crate::hash`]) is mixed with a per-filter
//!   salt into a 64-bit key `x`, so probes of different filters are independent, as the
//!   model assumes. Index `j` of `x` is the meta-hash [`crate::hash::scattered`]`(x, j, v)`
//!   reduced `mod m` (Section 6 [PBF]), which is what lets two filters of different sizes
//!   merge ([`SubFilter::merged`]).
//! * Merging (Section 6 [PBF]): [`PbfFilter::merge`] ORs corresponding filters of two
//!   partitions' PBFs of the same layout, folding filters of different sizes to
//!   `gcd(m, m')` bits and `min(k, k')` hashes ([`bfopt_models::pbf::MergedShape`]).
//! * A sub-filter given no bits answers yes once anything was inserted into it (no false
//!   negatives) and no while it is empty.

//!
//! # Example
//! A PBF-2 over a growing horizon answers temporal membership queries with no false
//! negatives; two partitions' PBFs with different filter sizes merge (Section 6):
//! ```
//! use bfopt_models::pbf::Variant;
//! use bfopt_validation::filters::pbf::{PbfFilter, PbfSizing};
//!
//! let sizing = |bits| PbfSizing::Uniform { bits, hashes: 4 };
//! let mut monday = PbfFilter::new(Variant::Pbf2, 1, sizing(4096), 7)?;
//! monday.insert(42, 100)?; // item 42 seen at second 100
//! assert!(monday.query(42, 64, 200)?);
//! assert!(monday.query(42, 100, 100)?);
//!
//! // Tuesday's PBF has filters of 6144 bits: the merge folds both onto gcd = 2048 bits.
//! let mut tuesday = PbfFilter::new(Variant::Pbf2, 1, sizing(6144), 7)?;
//! tuesday.insert(43, 100)?;
//! monday.merge(&tuesday)?;
//! assert!(monday.query(42, 100, 100)? && monday.query(43, 90, 110)?);
//! assert_eq!(monday.memory_bits() % 2048, 0);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
mod filter;
mod merge;
mod sbf;
mod sub_filter;
#[cfg(test)]
mod tests;

pub use filter::{PbfFilter, PbfSizing};
pub use sbf::SbfFilter;
pub use sub_filter::SubFilter;
