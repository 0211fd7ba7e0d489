//! Classic Bloom filters: standard, partitioned and blocked.
//!
//! A Bloom filter stores a set in `m` bits with `k` hash functions (Bloom 1970).
//! Three layouts are modelled:
//!
//! * **standard**: `k` indices into one array of `m` bits; indices of one item may collide;
//! * **partitioned** (Mullin): `k` slices of `⌊m/k⌋` bits, one index per slice
//!   (the layout the APBF paper adopts, Section 4 [APBF]);
//! * **blocked** (Putze, Sanders, Singler): `m/B` blocks of `B` bits; an item picks one
//!   block and sets `k` bits inside it as a standard filter of `B` bits would.
//!
//! | quantity | formula | function |
//! |---|---|---|
//! | standard FP, independent-bits model | `(1-(1-1/m)^(kn))^k` | [`fp_standard`] |
//! | exponential approximation | `(1-e^(-kn/m))^k` | [`fp_approx`] |
//! | exact standard FP (Bose et al. 2008; Christensen et al. 2010) | `Σ_i P(i bits set)·(i/m)^k` | [`fp_exact_standard`], [`fp_exact_rational`] |
//! | partitioned FP (exact) | `(1-(1-1/s)^n)^k`, `s = ⌊m/k⌋` | [`fp_partitioned`] |
//! | blocked FP | `Σ_j Bin(j; n, B/m)·fp_standard(B, k, j)` | [`fp_blocked`], exact: [`fp_blocked_exact`] |
//! | half-fill sizing, Table 1 [APBF] | `k = ⌈log2(1/p)⌉`, `k/ln2` bits/item | [`HalfFillDesign`] |
//! | sizing `(n, p) → (m, k)`, best `k`, capacity | by the exact law where computable ([`FpLaw`]) | [`design`], [`best_k`], [`capacity`] |
//!
//! # Assumptions
//! Hash functions are ideal (independent, uniform). The reference filters in
//! `bfopt-validation` use double hashing, whose deviation from this is below the
//! statistical resolution of the test suite at the sizes tested.
//!
//! # Known errata
//! Table 1 [APBF] truncates `bits/item` (`k/ln 2`: 10.0989 prints as 10.09) and `actual fp`
//! but rounds the access counts (1.99915 for k = 14 prints as 2.00).
//!
//! # Example
//! Size a standard filter for a million items at 1% FP, then read its metrics; the
//! half-fill rule of Table 1 [APBF] for the same target.
//! ```
//! use bfopt_models::classic::{
//!     design, fp_standard, ClassicParams, ClassicRequirement, FpLaw, HalfFillDesign, Layout,
//! };
//! let d = design(&ClassicRequirement::new(0.01, 1_000_000, Layout::Standard)?)?;
//! assert_eq!((d.params.m(), d.params.k()), (9_592_956, 7));
//! let x = ClassicParams::new(d.params.m(), 7, 1_000_000, Layout::Standard)?.metrics();
//! assert!(x.fp <= 0.01 && (x.fill - 0.518).abs() < 0.001);
//! // Small filters use the exact FP (occupancy law), a little above the usual formula
//! // (Bose et al. 2008); `fp_law` says which law `fp` follows.
//! let small = ClassicParams::new(1000, 7, 100, Layout::Standard)?.metrics();
//! assert_eq!(small.fp_law, FpLaw::Exact);
//! assert!(small.fp > fp_standard(1000.0, 7.0, 100.0));
//! assert_eq!(d.metrics.fp_law, FpLaw::UsualFormula); // n = 10^6: too costly
//! let h = HalfFillDesign::for_fp(0.01)?;
//! assert_eq!((h.k, format!("{:.2}", h.bits_per_item)), (7, "10.10".to_string()));
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```
//!
//! # References
//! * B. H. Bloom, "Space/time trade-offs in hash coding with allowable errors", CACM 1970.
//! * P. Bose et al., "On the false-positive rate of Bloom filters", IPL 2008.
//! * K. Christensen, A. Roginsky, M. Jimeno, "A new analysis of the false positive rate of
//!   a Bloom filter", IPL 2010.
//! * A. Shtul, C. Baquero, P. S. Almeida, "Age-Partitioned Bloom Filters", 2020
//!   (`002_41fd060d2f807067.txt`), Section 4 and Table 1.

mod audit;
mod design;
mod exact;
mod formulas;
mod half_fill;

pub use audit::{
    z_quantile, ClassicAudit, ClassicOccupancy, FpKind, Headroom, ItemEstimate, Ones, ZeroLaw,
};
pub use design::{best_k, capacity, design, min_bits, ClassicDesign, ClassicRequirement};
pub use exact::{
    fp_exact_after_throws, fp_exact_by_load, fp_exact_rational, fp_exact_standard,
    ln_fp_blocked_exact, ln_fp_exact_standard, BlockFpTable, EXACT_BUDGET,
};
pub(crate) use formulas::UNCUT_BELOW;
pub use formulas::{
    accesses_query_false, fill_blocked, fp_approx, fp_blocked, fp_blocked_exact, fp_partitioned,
    fp_standard, ln_fp_blocked,
};
pub use half_fill::HalfFillDesign;

use crate::error::{check, ModelError};
use serde::Serialize;
use std::ops::RangeInclusive;

/// Work budget (recursion steps, about 10 ms) under which [`ClassicParams::fp`] — and so
/// [`design`], [`best_k`] and [`capacity`] — use the exact occupancy law of the standard
/// layout ([`fp_exact_standard`]) instead of the usual formula: `k·n·min(k·n, m, 17√m) ≤
/// 10^7`, about `n ≤ 800` at `k = 7`. Beyond it the two differ by less than 0.1%
/// (relative), and [`ClassicMetrics::fp_law`] says which law a value follows.
pub const FP_EXACT_BUDGET: f64 = 1e7;

/// Which law a model false-positive rate ([`ClassicMetrics::fp`]) follows, and so which
/// law a sized design ([`design`]) is guaranteed to meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FpLaw {
    /// The exact law: the occupancy law `Σ_i P(i bits set)(i/m)^k` (standard, Bose et al.
    /// 2008; Christensen et al. 2010), the closed form `(1-(1-1/s)^n)^k` (partitioned), or
    /// the occupancy law mixed over the binomial block load (blocked).
    Exact,
    /// The usual independent-bits formula `(1-(1-1/m)^(kn))^k` (standard; for blocked,
    /// mixed over the block load), used where the exact law is too costly. It understates
    /// the exact FP slightly (by 0.7% at `m = 960, k = 7, n = 100`, less as `m` grows; see
    /// `docs/errata.md`).
    UsualFormula,
}

/// How the bits of a classic filter are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "layout", rename_all = "snake_case")]
pub enum Layout {
    /// One array of `m` bits; the `k` indices of an item may collide.
    Standard,
    /// `k` slices of `⌊m/k⌋` bits, one index per slice.
    Partitioned,
    /// Blocks of `block_bits` bits; `k` bits set inside one block.
    Blocked {
        /// Bits per block `B` (a multiple of 64).
        block_bits: u64,
    },
}

impl Layout {
    /// The layout's name as the CLI and JSON spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Standard => "standard",
            Layout::Partitioned => "partitioned",
            Layout::Blocked { .. } => "blocked",
        }
    }

    fn check(self) -> Result<Self, ModelError> {
        if let Layout::Blocked { block_bits } = self {
            if block_bits == 0 || block_bits % 64 != 0 || block_bits > ClassicParams::BLOCK_BITS_MAX
            {
                return Err(ModelError::invalid(
                    "block_bits",
                    block_bits,
                    format!(
                        "a multiple of 64 from 64 to {}",
                        ClassicParams::BLOCK_BITS_MAX
                    ),
                ));
            }
        }
        Ok(self)
    }
}

/// Parameters of a classic filter holding `n` distinct items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassicParams {
    m: u64,
    k: u32,
    n: u64,
    #[serde(flatten)]
    layout: Layout,
}

impl ClassicParams {
    /// Allowed bit counts `m` (up to 2^50 bits = 128 TiB).
    pub const M: RangeInclusive<u64> = 1..=(1 << 50);
    /// Allowed hash counts `k`.
    pub const K: RangeInclusive<u32> = 1..=64;
    /// Allowed item counts `n`.
    pub const N: RangeInclusive<u64> = 1..=(1 << 50);
    /// Largest block size in bits.
    pub const BLOCK_BITS_MAX: u64 = 1 << 20;

    /// Validates and builds the parameters.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `m`, `k`, `n` or `block_bits` when outside
    /// [`Self::M`], [`Self::K`], [`Self::N`]; when `m < k`; when a blocked layout's `m` is
    /// not a multiple of its block, or its block is not a multiple of 64 bits.
    pub fn new(m: u64, k: u32, n: u64, layout: Layout) -> Result<Self, ModelError> {
        check::in_range("m", m, Self::M)?;
        check::in_range("k", k, Self::K)?;
        check::in_range("n", n, Self::N)?;
        let layout = layout.check()?;
        if m < u64::from(k) {
            return Err(ModelError::invalid("m", m, format!("m >= k = {k}")));
        }
        if let Layout::Blocked { block_bits } = layout {
            if m % block_bits != 0 {
                return Err(ModelError::invalid(
                    "m",
                    m,
                    format!("a multiple of block_bits = {block_bits}"),
                ));
            }
            if block_bits < u64::from(k) {
                return Err(ModelError::invalid(
                    "block_bits",
                    block_bits,
                    format!("block_bits >= k = {k}"),
                ));
            }
        }
        Ok(Self { m, k, n, layout })
    }

    /// Total bits `m`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Hash functions `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Distinct items inserted `n`.
    pub fn n(&self) -> u64 {
        self.n
    }
    /// The layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }
    /// Slice size `⌊m/k⌋` of the partitioned layout (the remainder bits are unused).
    pub fn slice_bits(&self) -> u64 {
        self.m / u64::from(self.k)
    }

    /// The model's false-positive rate for this layout: for standard the exact
    /// occupancy law [`fp_exact_standard`] where it costs at most [`FP_EXACT_BUDGET`],
    /// else the usual formula [`fp_standard`]; [`fp_partitioned`] (exact); for blocked the
    /// exact load mixture [`fp_blocked_exact`] where the block is small enough for it (up
    /// to about 4096 bits), else the independent-bits mixture [`fp_blocked`].
    /// [`Self::fp_law`] says which.
    ///
    /// # Accuracy
    /// Standard: the usual formula understates the exact FP by about 0.7% at `n = 100`,
    /// `m = 960`, `k = 7` (enough for a filter sized by it to miss its target; tested).
    /// Blocked: in a 512-bit block the independent-bits mixture understates the exact FP
    /// by about 1% at FP 0.01 (measured in this module's tests), which a sizing must not
    /// ignore; for blocks over 4096 bits the gap is below 0.1%.
    pub fn fp(&self) -> f64 {
        self.fp_with_law().0
    }

    /// Which law [`Self::fp`] follows for these parameters.
    pub fn fp_law(&self) -> FpLaw {
        self.fp_with_law().1
    }

    /// [`Self::fp`] and [`Self::fp_law`] at once.
    pub fn fp_with_law(&self) -> (f64, FpLaw) {
        let (m, k, n) = (self.m as f64, f64::from(self.k), self.n as f64);
        match self.layout {
            Layout::Standard => {
                fp_exact_standard(self.m, self.k, self.n, crate::budget::cap(FP_EXACT_BUDGET))
                    .map_or((fp_standard(m, k, n), FpLaw::UsualFormula), |x| {
                        (x, FpLaw::Exact)
                    })
            }
            Layout::Partitioned => (fp_partitioned(self.slice_bits() as f64, k, n), FpLaw::Exact),
            Layout::Blocked { block_bits } => fp_blocked_exact(
                self.m,
                block_bits,
                self.k,
                self.n,
                crate::budget::cap(EXACT_BUDGET),
            )
            .map_or_else(
                || {
                    (
                        fp_blocked(self.m, block_bits, self.k, self.n),
                        FpLaw::UsualFormula,
                    )
                },
                |x| (x, FpLaw::Exact),
            ),
        }
    }

    /// The natural log of [`Self::fp`] under the same law, computed in log space so it
    /// keeps its relative precision below the smallest `f64` (2.2e-308); `-inf` when
    /// the FP is exactly 0 (`n = 0`). `None` for a blocked layout whose load law is too
    /// wide to walk term by term (every block saturated, FP 1 in `f64`).
    ///
    /// # Formula
    /// ```text
    /// standard, exact law: see ln_fp_exact_standard
    /// standard, usual formula:  ln fp = k·ln(1 − (1 − 1/m)^(kn))
    /// partitioned:              ln fp = k·ln(1 − (1 − 1/s)^n)
    /// blocked, exact law:       see ln_fp_blocked_exact
    /// blocked, usual formula:   see ln_fp_blocked
    /// ```
    pub fn ln_fp(&self) -> Option<f64> {
        let k = f64::from(self.k);
        match self.layout {
            Layout::Standard => Some(
                ln_fp_exact_standard(self.m, self.k, self.n, crate::budget::cap(FP_EXACT_BUDGET))
                    .unwrap_or_else(|| k * self.fill().ln()),
            ),
            Layout::Partitioned => Some(k * self.fill().ln()),
            Layout::Blocked { block_bits } => match self.fp_law() {
                FpLaw::Exact => ln_fp_blocked_exact(
                    self.m,
                    block_bits,
                    self.k,
                    self.n,
                    crate::budget::cap(EXACT_BUDGET),
                ),
                FpLaw::UsualFormula => ln_fp_blocked(self.m, block_bits, self.k, self.n),
            },
        }
    }

    /// The natural log of `fp_approx`, `k·ln(1 − e^(−kn/m))`, in log space (see
    /// [`Self::ln_fp`]).
    pub fn ln_fp_approx(&self) -> f64 {
        let (m, k, n) = (self.m as f64, f64::from(self.k), self.n as f64);
        k * crate::numeric::one_minus_exp_neg(k * n / m).ln()
    }

    /// Expected fraction of bits set after `n` insertions.
    pub fn fill(&self) -> f64 {
        let (m, k, n) = (self.m as f64, f64::from(self.k), self.n as f64);
        match self.layout {
            Layout::Standard => crate::numeric::one_minus_pow1m(1.0 / m, k * n),
            Layout::Partitioned => {
                crate::numeric::one_minus_pow1m(1.0 / self.slice_bits() as f64, n)
            }
            Layout::Blocked { block_bits } => fill_blocked(self.m, block_bits, self.k, self.n),
        }
    }

    /// Memory accesses `(insert, query true, query false)`: bit probes, or one block
    /// for the blocked layout; a query for a non-member stops at its first 0 bit.
    pub fn accesses(&self) -> (f64, f64, f64) {
        let k = f64::from(self.k);
        match self.layout {
            Layout::Blocked { .. } => (1.0, 1.0, 1.0),
            // A probe of a non-member finds each bit set with probability ≈ fill
            // (exactly so in the partitioned layout).
            _ => (k, k, accesses_query_false(self.fill(), self.k)),
        }
    }

    /// All metrics at once (the exact FP `fp_exact` costs up to [`EXACT_BUDGET`] steps,
    /// about 0.1 s; [`Self::fp_with_law`] and [`Self::accesses`] do not).
    pub fn metrics(&self) -> ClassicMetrics {
        let (m, k, n) = (self.m as f64, f64::from(self.k), self.n as f64);
        let fill = self.fill();
        let (accesses_insert, accesses_query_true, accesses_query_false) = self.accesses();
        let (fp, fp_law) = self.fp_with_law();
        ClassicMetrics {
            fp,
            fp_law,
            fp_approx: fp_approx(m, k, n),
            fp_exact: match (fp_law, self.layout) {
                (FpLaw::Exact, _) => Some(fp),
                (_, Layout::Standard) => {
                    fp_exact_standard(self.m, self.k, self.n, crate::budget::cap(EXACT_BUDGET))
                }
                (_, Layout::Partitioned) => Some(fp),
                (_, Layout::Blocked { block_bits }) => fp_blocked_exact(
                    self.m,
                    block_bits,
                    self.k,
                    self.n,
                    crate::budget::cap(EXACT_BUDGET),
                ),
            },
            fill,
            bits_per_item: m / n,
            memory_bytes: self.m.div_ceil(8),
            accesses_insert,
            accesses_query_true,
            accesses_query_false,
        }
    }
}

/// Predicted metrics of a classic filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassicMetrics {
    /// False-positive rate of the layout's model ([`ClassicParams::fp`]): the exact
    /// occupancy law where it costs at most [`FP_EXACT_BUDGET`], else
    /// `(1-(1-1/m)^(kn))^k` (standard); `(1-(1-1/s)^n)^k` (partitioned, exact); the
    /// block-load mixture (blocked, exact up to 4096-bit blocks).
    pub fp: f64,
    /// Which law `fp` follows (`"exact"` or `"usual_formula"` in JSON): a design sized by
    /// [`design`] meets its target under this law.
    pub fp_law: FpLaw,
    /// `(1-e^(-kn/m))^k`, the textbook approximation.
    pub fp_approx: f64,
    /// The exact FP where computable (`None` beyond [`EXACT_BUDGET`]): the occupancy law
    /// (standard), the same mixed over block loads (blocked), equal to `fp` (partitioned,
    /// and wherever `fp_law` is exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp_exact: Option<f64>,
    /// Expected fraction of set bits.
    pub fill: f64,
    /// Bits per stored item `m/n`.
    pub bits_per_item: f64,
    /// Memory in bytes, `⌈m/8⌉`.
    pub memory_bytes: u64,
    /// Memory accesses per insertion (bit probes; one block for the blocked layout).
    pub accesses_insert: f64,
    /// Expected accesses of a query that returns true.
    pub accesses_query_true: f64,
    /// Expected accesses of a query that returns false (it stops at the first 0 bit).
    pub accesses_query_false: f64,
}

#[cfg(test)]
mod extremes;
#[cfg(test)]
mod tests;
