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
//! * [`suite`]: the checks of `bfopt validate`.

pub mod agree;
pub mod experiments;
pub mod filters;
pub mod hash;
pub mod sim;
pub mod stats;
pub mod suite;
pub mod workload;
