//! Capacity planning for Bloom-filter variants, as a library call.
//!
//! A requirement in (an FP target, a workload shape, budgets), a ranked and explained
//! plan out, and every planned design checked against its reference implementation on
//! request. No command-line types, no rendering, no exit codes: the `bfopt` CLI, the
//! browser calculator and the Python package are thin layers over this crate.

pub use bfopt_models::ModelError;

pub mod allocate;
pub use allocate::allocate;
