//! Persistent Bloom filters on synthetic one-day traces (Section 7 [PBF]): the five
//! methods of Table 2 [PBF] (SBF, β1-opt, β2-opt, β1-online, β2-online) plus the uniform
//! baselines, predicted against measured FP for every configuration.
//!
//! * [`TraceSpec`]: EDGAR-like (steady arrivals; 5.58M entries, 2.13M distinct pairs,
//!   25.5k clients) and Network-like (quiet night, busy day; 2.55M entries, 2.20M pairs,
//!   124k clients) days of `T = 86 400` s, scaled by a factor for quick runs (Figure 7).
//! * Query workloads: non-member queries (keys never in the trace) of one length `|q|`
//!   with uniformly random starts (Section 7 set-up).
//! * "opt" methods take `d_i`, `f_i` exactly from the trace and the test workload; "online"
//!   methods learn them from the previous partition (another day of the same shape) and a
//!   training workload (the test starts plus noise) with one HyperLogLog per filter and one
//!   Count-Min sketch (the SIMPLE strategy of Section 6 [PBF]).
//! * The prediction for a built structure is the route-exact FP of every test query
//!   ([`PbfLayout::query_fp`]) from each filter's actual bits, hashes and distinct items,
//!   averaged over the workload; the measurement counts yes answers.

mod allocation;
mod checks;
mod even;
mod learn;
mod merge;
mod run;
mod trace;
mod workload;

pub use allocation::{plan, Method};
pub use checks::checks;
pub use even::{
    best_hashes, even_checks, even_sizing, simulate_even, worst_ranges, EvenDesign, EvenRunConfig,
    EvenRunResult,
};
pub use learn::{
    learn_online, learn_online_with, smooth_by_level, Learned, OnlineInputs, SeededXxh3, HLL_BITS,
    SMOOTHING,
};
pub use merge::{merge_run, MergeRunConfig, MergeRunResult};
pub use run::{run, PbfRunConfig, PbfRunResult};
pub use trace::{Profile, TraceSpec};
pub use workload::{noisy_workload, query_workload};

use crate::agree::Tolerance;

/// Exact-law budget per sub-filter for predictions (covers filters up to a few hundred
/// bits; the formula is within about 1% beyond).
pub const PREDICTION_BUDGET: f64 = 2e5;

/// Model-vs-simulation tolerance of the PBF runs: sub-filters small enough are predicted
/// by the exact law ([`bfopt_models::pbf::filter_fp`]); the larger ones by the
/// independent-bits formula, within about 1% of it at their sizes (thousands of bits).
pub const TOLERANCE: Tolerance = Tolerance::approx(
    0.01,
    "exact law for small sub-filters; independent-bits formula (under 1% off) for large ones",
);
