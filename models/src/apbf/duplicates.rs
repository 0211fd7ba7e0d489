//! The repeats stream of Section 5.6.2 [APBF] and its `D(L)`: moved to
//! [`crate::workload::repeats`] (one workload description for every family); re-exported
//! here so existing paths keep working.

pub use crate::workload::repeats::*;
