//! Persistent Bloom filters (PBF-1, PBF-2): temporal membership `x ∈ A[s, e]?`.
//!
//! Y. Peng, J. Guo, F. Li, W. Qian, A. Zhou, *Persistent Bloom Filter: Membership Testing
//! for the Entire History*, SIGMOD 2018 (`001_2b1de25c23e3527a.txt`), Sections 3-7 and
//! Appendices B-D.
//!
//! * **SBF** `β0`: one filter over (item, timestamp) pairs; a query of length `|q|` makes
//!   `|q|` probes.
//! * **PBF-1** `β1`: a filter per interval of a binary decomposition of `[1, T]` with
//!   leaves of length `g`, plus the fine filter `b_{u+1}` (an SBF) for the leaf parts a
//!   query covers only partially.
//! * **PBF-2** `β2`: one filter per level `ℓ` over the pairs `(a, ⌈t/g_ℓ⌉)`,
//!   `g_ℓ = 2^(L−1−ℓ)`.
//!
//! | quantity | Eq. | function |
//! |---|---|---|
//! | levels, filters, cover `C([s, e])`, probes | Alg. 1, Alg. 3, Section 4 | [`Decomposition`], [`PbfLayout`] |
//! | FP of a temporal query from per-filter FPs | Eqs. (6), (9) | [`PbfLayout::query_fp`], [`PbfLayout::query_fp_ungated`] |
//! | SBF baseline | Eq. (4) | [`fp_sbf`] |
//! | one filter at the optimal `k` | Eq. (3) | [`fp_optimal_k`] |
//! | optimal bit allocation | Eqs. (10)-(13) | [`AllocationProblem::optimal`] |
//! | same, PBF-1 fine filter counted as gated by its leaves | Section 5.1, route 3 | [`AllocationProblem::optimal_gated`], [`fine_probes_by_leaf`] |
//! | uniform allocation | Section 4.1 | [`AllocationProblem::uniform`] |
//! | space bound | Eq. (14), Theorem C.3 | [`BoundRequest::bound`] |
//! | `d_i`, `f_i` from a trace and a workload | Section 5 | [`workload_stats`] |
//! | merging two partitions' filters (OR, gcd fold) | Section 6 | [`MergedShape`] |
//!
//! # Assumptions
//! Filters hash independently of each other (the reference implementation derives an
//! independent hash per filter), so a query's probes fail independently. The FP of one
//! filter is the independent-bits formula `(1 − (1 − 1/m)^{kd})^k`. A "non-member" query
//! asks for an item that no probed filter holds.
//!
//! The decomposition is *aligned*: it covers `[1, g·2^(L−1)] ⊇ [1, T]` and only the
//! intervals that start in `[1, T]` get a filter, which is what the streaming
//! construction (Alg. 2, Alg. 4 [PBF]) builds for a `T` that is not a power of two.
//!
//! # Known errata
//! * Eq. (14) is printed twice: Section 5.3 multiplies by `ln²2`, Appendix C divides.
//!   Inverting Eq. (15) gives the division; the multiplied form is `ln⁴2 ≈ 0.23` times
//!   smaller and misses the FP target (tested in `bound`). For `g > 1` the probe term
//!   `2·log|q|` becomes `2·log|q/g| + g − 1` (Theorem C.3); `log` is `log2`.
//! * The derivative above Eq. (10) drops a `ln 2` and the sign; Eq. (10) is right and
//!   needs `λ < 0` (`μ = −λ` here).
//! * Eq. (3): "≈ 0.6185 m/n" means `0.6185^(m/n)`.
//! * Alg. 1 returns from the left child without visiting the right one (lines 14 and
//!   17 must be OR-ed), and queries `b_{u+1}` for a partial leaf without first asking the
//!   leaf's own filter, which the text (route 3) and the definition of `f_i` do; both
//!   are implemented as the text says. Alg. 3 has the same early return.
//! * Section 4.2: the root granularity `2^⌈log T⌉` is "T + 1 otherwise" only for
//!   `T = 2^j − 1`; Alg. 3 must start from `[1, 2^(L−1)]`, not `[1, T]`, for the mapping
//!   `c_i = ⌈s_i/g_ℓ⌉` to name the interval (with `[1, T]` and a midpoint split the
//!   intervals have other lengths and the level filters would answer for wider ranges).
//! * Section 4.1 gives `u = 2T/g − 1` filters, exact only when `T/g` is a power of two;
//!   at `T = 86 400, g = 4` the aligned decomposition has 43 205 intervals (the paper:
//!   "about 43,000").
//! * Appendix D.2: `⌈1 + log(86400)⌉ = 17` evaluates to 18 (PBF-2's levels); 17 is the
//!   insertions per pair of PBF-1 at `g = 4` (16 levels and `b_{u+1}`).
//!
//! * Section 6 merges filters of different sizes by folding onto `gcd(m, m')` bits and
//!   assumes both use the same `k`; with different `k` the merged filter queries
//!   `min(k, k')` meta-hashes ([`MergedShape`]), which keeps every item. The fold keeps
//!   only the gcd: coprime sizes leave a filter that answers yes to almost everything.
//! * Section 4.1 grows PBF-1 by "union" of children; the new root must therefore start
//!   as a copy of the old one (the reference filter once started it empty, which lost
//!   every earlier item for queries whose cover is the new root).
//!
//! * Section 5.1 bounds `f_{u+1} ≤ g`; the probes of `b_{u+1}` per query reach `2g − 2`
//!   (two partial leaves of `g − 1` timestamps each), as Appendix B.2 says.
//!
//! # Modelling findings
//! * **Gated fine filter.** Eq. (6) and the allocation count every probe of `b_{u+1}` as
//!   sent, but route 3 sends them only when the partial leaf's filter answers yes. The
//!   ungated optimum spends most bits on `b_{u+1}`; counting `f_{u+1}` as the probes
//!   actually sent (`Σ_o p_o·c_o`, a fixed point solved by Brent) lowers the measured
//!   PBF-1 FP on the synthetic EDGAR day at 20 bits per pair from 0.0085 to below 1e-4.
//!   Both are available; `bfopt-validation` and the CLI use the gated one.
//! * **Small filters.** The optimum gives sparse PBF-1 leaves 8-16 bits. There the
//!   independent-bits formula is about half the exact FP, and plain double hashing adds
//!   about `1/m²` (a query repeating a stored item's whole index pattern); predictions
//!   use the exact law ([`filter_fp_with_budget`]) and the reference sub-filters remix
//!   each index. With both, predicted and measured FP agree within sampling error for
//!   every method (validate suite).
//! * **Temporal locality decides PBF vs SBF.** A level's filter holds the distinct
//!   `(item, interval)` pairs; with visits spread at random, `Σ_ℓ d_ℓ ≈ L·n` and PBF-2 is
//!   worse than SBF at any budget. Real logs are bursty (sessions), which is what makes
//!   coarse levels small. With the paper's own numbers (EDGAR, `n = 2.13M`,
//!   `m = 5·10^7`, `|q| = 128`, `k = 16`) Eq. (4) gives the SBF an FP of 0.0016, below
//!   the PBFs' "approximately 1%" of Figure 8, where the SBF is "much worse": the figures'
//!   ordering cannot be derived from the stated `m` and `n`.
//!
//! # Example
//! Split 20 000 bits over three filters by the optimum of Eqs. (10)-(13), which is never
//! worse than the uniform split, and bound the bits a PBF-2 needs (Eq. 14, Theorem C.3):
//! ```
//! use bfopt_models::pbf::{AllocationProblem, BoundRequest, PbfLayout};
//!
//! // d_i distinct items and f_i probes per query of each filter.
//! let problem = AllocationProblem::new(20_000, vec![1000.0, 50.0, 700.0], vec![0.9, 1.0, 2.0])?;
//! let best = problem.optimal(16)?;
//! let uniform = problem.uniform(16)?;
//! assert!(best.fp <= uniform.fp);
//! assert_eq!(best.bits_rounded.iter().sum::<u64>(), 20_000);
//! assert!(best.lambda.unwrap() < 0.0); // Eq. (10) needs λ < 0
//!
//! // One day of seconds: PBF-2 has 18 levels; a query of 128 s probes at most 14 filters.
//! let layout = PbfLayout::pbf2(86_400)?;
//! assert_eq!(layout.filters(), 18);
//! let bound = BoundRequest::new(2_127_749, 86_400, 0.01, 128, 1)?.bound();
//! assert!(bound.bits > 1e7 && bound.bits < 1e9);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # References
//! * Y. Peng et al., "Persistent Bloom Filter: Membership Testing for the Entire
//!   History", SIGMOD 2018.

mod allocation;
mod bound;
mod merge;
mod stats;
mod structure;

pub use allocation::{
    filter_fp, filter_fp_with_budget, hashes_for, ln_filter_fp, round_to_total, Allocation,
    AllocationProblem, LN2_SQ,
};
pub use bound::{fp_auxiliary, fp_optimal_k, fp_sbf, max_probes, Bound, BoundRequest};
pub use merge::{gcd, MergedShape};
pub use stats::{
    distinct_counts, distinct_pairs, fine_probes_by_leaf, mean_query_fp, probe_frequencies,
    workload_stats, WorkloadStats,
};
pub use structure::{Decomposition, Node, PbfLayout, Probe, Variant};

#[cfg(test)]
mod tests;
