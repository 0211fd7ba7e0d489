//! Reference Bloom-filter implementations, workloads, the simulation runner, statistics
//! and the model-vs-simulation suite of bfopt.
//!
//! Depends on `bfopt-models` to compare with it; never the other way round.
//!
//! * [`hash`]: the one seeded hashing scheme (xxh3-128 + double hashing);
//! * [`filters`]: reference filters, one module per family;
//! * [`workload`]: distinct, uniform-with-duplicates and Zipf streams, CSV traces;
//! * [`sim`]: parallel epochs with deterministic seeds, progress bar;
//! * [`stats`]: Wilson and Student t intervals;
//! * [`agree`]: the PASS/FAIL verdict with its tolerance;
//! * [`experiments`]: per-family simulations and checks;
//! * [`level`]: quick or full simulation sizes;
//! * [`suite`]: the checks of `bfopt validate`;
//! * [`shard`]: splitting the suite's epochs across machines and merging them.
//!
//! # Quick start
//! Check a classic design against its reference filter: fill fresh filters with `n`
//! distinct items, probe with non-members, and compare the measured FP (Wilson interval)
//! with the model's exact FP. Each family has the same shape under
//! [`experiments`]`::<family>`.
//! ```
//! use bfopt_models::classic::{ClassicParams, Layout};
//! use bfopt_validation::experiments::classic::{prediction, simulate, ClassicSimConfig};
//! use bfopt_validation::workload::Workload;
//!
//! let params = ClassicParams::new(4096, 3, 400, Layout::Standard)?;
//! let measured = simulate(&ClassicSimConfig {
//!     params,
//!     workload: Workload::Distinct,
//!     epochs: 20,
//!     probes: 5_000,
//!     seed: 7,
//!     confidence: 0.999,
//! })?;
//! let (model, _tolerance) = prediction(&params);
//! assert!(measured.probe_fp.interval.contains(model));
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

#![warn(missing_docs)]

pub mod agree;
pub mod experiments;
pub mod filters;
pub mod hash;
pub mod level;
pub mod replay;
pub mod shard;
pub mod sim;
pub mod stats;
pub mod suite;
pub mod workload;
