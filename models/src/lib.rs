//! Analytic models and optimizers for Bloom-filter variants.
//!
//! This crate is pure: no randomness, no I/O, no printing. Each family module holds the
//! parameter types, the closed forms and solvers, and the `design` optimizer; the
//! reference implementations that validate them live in `bfopt-validation` under the
//! same module names.
//!
//! | module | structures | seed (in `shared/seeds/`) | tag |
//! |---|---|---|---|
//! | [`classic`] | standard / partitioned / blocked Bloom filter | all | `[BF]` |
//! | [`baseline`] | rotating classic filters, fingerprint queue (hand-built window baselines) | 002 (Section 3) | `[APBF]` |
//! | [`apbf`] | Age-Partitioned Bloom filter and its blocked variant APBBF (sliding window) | `002_41fd060d2f807067.txt` | `[APBF]` |
//! | [`rbf`] | Recycling Bloom filter, one- and two-phase | `004_052894280afd131c.txt` | `[RBF]` |
//! | [`gbf`] | Generalized Bloom filter, standard and inferential (stable for any `k`) | `000_4a86d6f208f608dd.txt` | `[TBF]` |
//! | [`timing`] | Timing / Block Timing Bloom filter, standard and inferential; priors, `D(j)`, penalties, posterior calibration | `000_4a86d6f208f608dd.txt` | `[TBF]` |
//! | [`pbf`] | Persistent Bloom filters PBF-1, PBF-2 (temporal membership) | `001_2b1de25c23e3527a.txt` | `[PBF]` |
//! | [`scalable`] | Scalable Bloom filter: a chain of growing, tightening classic filters | not a seed: Almeida et al., IPL 2007 | `[SCALABLE]` |
//! | [`stable`] | Stable and Importance-aware Bloom filters (SBF, IBF1-IBF6) | `003_4e4c7c64af2667ba.txt` | `[SBF]` |
//! | [`fuse`] | binary fuse filter (static set, 3-wise) | Graf & Lemire 2022 (not in seeds) | `[BFF]` |
//! | [`cuckoo`] | cuckoo filter (deletion, partial-key cuckoo hashing) | Fan et al. 2014 (not in seeds) | `[CF]` |
//! | [`counting`] | counting Bloom filter (deletion, counter overflow) | Fan et al. 2000 (not in seeds) | `[SC]` |
//! | [`workload`] | the stream as `D(L)`, distinct items in `L` insertions, taken by every stream-dependent model | 000 (Section 2.5), 002 (Section 5.6.2) | `[TBF]`, `[APBF]` |
//! | [`systems`] | the filters of Guava, RedisBloom, Parquet, RocksDB, fastbloom as each system sizes them | their sources and format specifications | |
//!
//! # Quick start
//! Size a filter for a static set, and an Age-Partitioned Bloom filter for a sliding
//! window, at the same FP target; every family's module documentation opens with its own
//! example.
//! ```
//! use bfopt_models::apbf::{self, ApbfRequirement};
//! use bfopt_models::classic::{self, ClassicRequirement, Layout};
//!
//! // 10^6 items, FP <= 1%: the smallest m over integer k.
//! let set = classic::design(&ClassicRequirement::new(0.01, 1_000_000, Layout::Standard)?)?;
//! assert!(set.metrics.fp <= 0.01);
//!
//! // The last 10^6 insertions of a stream, never a false negative among them, worst-case
//! // FP <= 1% at every moment: the least memory over (k, l).
//! let window = apbf::design(&ApbfRequirement::new(0.01, 1_000_000)?)?;
//! assert!(window.metrics.fp <= 0.01 && window.metrics.window >= 1_000_000);
//! // Forgetting costs memory: a window needs more bits per item than a static set.
//! assert!(window.metrics.total_bits > set.params.m());
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # Citation tags
//! Doc comments cite equations, tables and algorithms with fixed tokens so `grep` finds
//! them: `Eq. (n) [TAG]`, `Table n [TAG]`, `Alg. n [TAG]`.
//!
//! * `[APBF]`: A. Shtul, C. Baquero, P. S. Almeida, *Age-Partitioned Bloom Filters*
//!   (`002_41fd060d2f807067.txt`).
//! * `[RBF]`: *Recycling Bloom filters* (`004_052894280afd131c.txt`).
//! * `[TBF]`: *Time-decaying Bloom filters*, inferential framework, Timing / Block Timing
//!   and Generalized Bloom filters (`000_4a86d6f208f608dd.txt`).
//! * `[PBF]`: *Persistent Bloom filters* (`001_2b1de25c23e3527a.txt`).
//! * `[SCALABLE]`: P. S. Almeida, C. Baquero, N. Preguiça, D. Hutchison, *Scalable Bloom
//!   Filters*, Information Processing Letters 101(6), 2007 (not among the seed files).
//! * `[BFF]`: T. M. Graf, D. Lemire, *Binary Fuse Filters: Fast and Smaller Than Xor
//!   Filters*, ACM JEA 2022.
//! * `[CF]`: B. Fan, D. G. Andersen, M. Kaminsky, M. Mitzenmacher, *Cuckoo Filter:
//!   Practically Better Than Bloom*, CoNEXT 2014.
//! * `[SC]`: L. Fan, P. Cao, J. Almeida, A. Z. Broder, *Summary Cache*, IEEE/ACM ToN 2000.
//! * `[SBF]`: thesis on Stable and Importance-aware Bloom filters
//!   (`003_4e4c7c64af2667ba.txt`).
//!
//! Where a paper is wrong or ambiguous, the module doc of its family says so under
//! "Known errata" (see also `docs/errata.md`).

#![warn(missing_docs)]

pub mod apbf;
pub mod baseline;
pub mod budget;
pub mod classic;
pub mod counting;
pub mod cuckoo;
pub mod error;
pub mod fuse;
pub mod gbf;
pub mod markov;
pub mod numeric;
pub mod pbf;
pub mod printed;
pub mod rbf;
pub mod scalable;
pub mod stable;
#[cfg(any(test, feature = "proptest"))]
pub mod strategies;
pub mod systems;
pub mod timing;
pub mod workload;

pub use error::ModelError;
