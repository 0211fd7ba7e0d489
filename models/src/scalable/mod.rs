//! Scalable Bloom filters: a chain of classic filters that grows with the set.
//!
//! P. S. Almeida, C. Baquero, N. Preguiça, D. Hutchison, *Scalable Bloom Filters*,
//! Information Processing Letters 101(6), 2007, pp. 255-261 (`[SCALABLE]`; not among the
//! seed files: equations are cited by the paper's sections).
//!
//! A scalable Bloom filter starts with one filter (a *link*) sized for `N0` items at FP
//! `P0`. When a link has taken its capacity of distinct items, a new, larger and
//! tighter link is appended and receives every later insertion; a query asks every
//! link. Link `i` (from 0) holds
//! ```text
//! n_i = round(N0 · s^i)          growth s >= 1             (Section 4 [SCALABLE])
//! P_i = P0 · r^i                 tightening ratio 0 < r < 1 (Section 4 [SCALABLE])
//! ```
//! and is sized as a classic filter for `(n_i, P_i)` with the least bits over its integer
//! `k_i` ([`crate::classic::design`]). The paper's own layout is the partitioned one
//! (`k_i` slices, Section 3 [SCALABLE]) with `k_i = k_0 + i·log2(1/r)` slices at fill 1/2;
//! the standard layout per link is what RedisBloom and most libraries build; both (and
//! the blocked layout) are modelled through [`Layout`].
//!
//! | quantity | formula | function |
//! |---|---|---|
//! | link capacity and FP target | `n_i = N0·s^i`, `P_i = P0·r^i` (Section 4 [SCALABLE]) | [`ScalableParams::link_capacity`], [`ScalableParams::link_fp`] |
//! | compound FP after `n` items | `1 − Π_i (1 − fp_i(n_i'))`, `n_i'` the items link `i` holds (Section 4 [SCALABLE]) | [`ChainMetrics::fp`] |
//! | the paper's bound | `P ≤ Σ_i P_i ≤ P0/(1 − r)` (Section 4 [SCALABLE]) | [`ScalableParams::fp_limit`] |
//! | memory after `n` items | `Σ_{links in use} m_i` | [`ChainMetrics::memory_bits`] |
//! | accesses of an absent item's query | every link probed, each until its first 0 bit | [`ChainMetrics::accesses_query_false`] |
//! | least memory at a final `n` | over `(P0, r, s)` and integer `k_i` | [`design`] |
//!
//! # Accuracy
//! Each link's FP is the classic model of its layout at the link's real fill
//! ([`ClassicParams::fp`]: exact where computable); links use independent hashes, so
//! the compound is exact given the per-link FPs. Items are distinct: a duplicate
//! insertion would not advance the chain in implementations that test before adding.
//!
//! # Example
//! RedisBloom's defaults (`P0 = P/2`, `r = 0.5`, `s = 2`) hold 10^4 items at 1% from a
//! first link of 1000: four links, compound FP under 1%, about twice the memory of a
//! classic filter sized for 10^4 up front.
//! ```
//! use bfopt_models::classic::Layout;
//! use bfopt_models::scalable::{Preset, ScalableParams};
//! let p = Preset::RedisBloom.params(0.01, 1000, Layout::Standard)?;
//! let x = p.chain(10_000)?.at(10_000)?;
//! assert_eq!(x.links, 4);
//! assert!(x.fp <= 0.01 && x.fp > 0.004);
//! assert!(p.fp_limit() <= 0.01 + 1e-15);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # References
//! * P. S. Almeida, C. Baquero, N. Preguiça, D. Hutchison, "Scalable Bloom Filters",
//!   IPL 2007.
//! * RedisBloom `src/sb.c` (`ERROR_TIGHTENING_RATIO` 0.5, `EXPANSION` default 2).
//! * growable-bloom-filters (Rust): tightening 0.8515625, growth 2.

mod design;

pub use design::{
    design, design_and_presets, size_chain, Preset, ScalableDesign, ScalableRequirement,
};

use crate::classic::{self, ClassicParams, ClassicRequirement, FpLaw, Layout};
use crate::error::{check, ModelError};
use serde::Serialize;
use std::ops::RangeInclusive;

/// Parameters of a scalable Bloom filter: first-link capacity `N0` and FP `P0`,
/// tightening ratio `r`, growth `s`, and the layout of every link.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScalableParams {
    n0: u64,
    p0: f64,
    r: f64,
    s: f64,
    #[serde(flatten)]
    layout: Layout,
}

impl ScalableParams {
    /// Allowed first-link capacities `N0`.
    pub const N0: RangeInclusive<u64> = 1..=(1 << 40);
    /// Allowed growth factors `s` (1: equal links).
    pub const S: RangeInclusive<f64> = 1.0..=64.0;
    /// Most links a chain may have.
    pub const MAX_LINKS: usize = 64;
    /// The work of one link's classic design in [`crate::budget`] steps (about a
    /// nanosecond each): up to 64 hash counts, each a bisection of about 50 FP
    /// evaluations.
    pub const LINK_DESIGN_STEPS: f64 = 1e5;

    /// Validates and builds the parameters.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `n0` (outside [`Self::N0`]), `p0` (outside
    /// `[1e-300, 1)`), `r` (outside `0 < r < 1`), `s` (outside [`Self::S`]) or the block
    /// size of a blocked layout.
    pub fn new(n0: u64, p0: f64, r: f64, s: f64, layout: Layout) -> Result<Self, ModelError> {
        check::in_range("n0", n0, Self::N0)?;
        check::fp_target("p0", p0)?;
        check::open_probability("r", r)?;
        check::in_range_f64("s", s, Self::S)?;
        ClassicRequirement::new(p0, 1, layout)?;
        Ok(Self {
            n0,
            p0,
            r,
            s,
            layout,
        })
    }

    /// First-link capacity `N0`.
    pub fn n0(&self) -> u64 {
        self.n0
    }
    /// First-link FP `P0`.
    pub fn p0(&self) -> f64 {
        self.p0
    }
    /// Tightening ratio `r`.
    pub fn r(&self) -> f64 {
        self.r
    }
    /// Growth factor `s`.
    pub fn s(&self) -> f64 {
        self.s
    }
    /// Layout of every link.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Capacity of link `i`: `n_i = round(N0 · s^i)`, at least 1 (Section 4 [SCALABLE]).
    pub fn link_capacity(&self, i: usize) -> u64 {
        (self.n0 as f64 * self.s.powi(i as i32)).round().max(1.0) as u64
    }

    /// FP target of link `i`: `P_i = P0 · r^i` (Section 4 [SCALABLE]).
    pub fn link_fp(&self, i: usize) -> f64 {
        self.p0 * self.r.powi(i as i32)
    }

    /// The compound FP the chain never exceeds however many links it grows:
    /// `min(1, P0/(1 − r))` (Section 4 [SCALABLE]: `1 − Π(1 − P_i) ≤ Σ P0 r^i`; a
    /// probability, so at most 1: the `models` fuzz target found `P0 = 0.57, r = 0.88`
    /// printing 4.7).
    pub fn fp_limit(&self) -> f64 {
        (self.p0 / (1.0 - self.r)).min(1.0)
    }

    /// Links needed to hold `n` items: the least `L ≥ 1` with `Σ_{i<L} n_i ≥ n`.
    ///
    /// # Errors
    /// [`ModelError::Infeasible`] when more than [`Self::MAX_LINKS`] links, or a link
    /// larger than [`ClassicParams::N`], would be needed.
    pub fn links_for(&self, n: u64) -> Result<usize, ModelError> {
        let mut total = 0u64;
        for i in 0..Self::MAX_LINKS {
            let c = self.link_capacity(i);
            if c > *ClassicParams::N.end() {
                break;
            }
            total = total.saturating_add(c);
            if total >= n {
                return Ok(i + 1);
            }
        }
        Err(ModelError::infeasible(
            format!("n = {n} items"),
            format!(
                "at most {} links of at most {} items each",
                Self::MAX_LINKS,
                ClassicParams::N.end()
            ),
        ))
    }

    /// Link `i` sized by [`classic::design`] for `(n_i, P_i)` in the layout: the least
    /// bits over integer `k_i`.
    ///
    /// # Errors
    /// A link FP target below `1e-300`, a capacity beyond [`ClassicParams::N`];
    /// [`ModelError::WorkLimit`] past the [`crate::budget`] allowance a caller set (each
    /// link's classic design costs [`Self::LINK_DESIGN_STEPS`]).
    pub fn link(&self, i: usize) -> Result<Link, ModelError> {
        crate::budget::spend(Self::LINK_DESIGN_STEPS, "the scalable link designs")?;
        let (capacity, fp_target) = (self.link_capacity(i), self.link_fp(i));
        if fp_target < check::FP_TARGET_MIN {
            // Named after the smaller factor of `p0 · r^i`: the one that drove it down.
            let (name, value) = if self.r.powi(i as i32) < self.p0 {
                ("r", self.r)
            } else {
                ("p0", self.p0)
            };
            return Err(ModelError::invalid(
                name,
                value,
                format!(
                    "p0 * r^i >= {} for every link i (link {i} would target {})",
                    crate::error::show_rate(check::FP_TARGET_MIN),
                    crate::error::show_rate(fp_target)
                ),
            ));
        }
        let d = classic::design(&ClassicRequirement::new(fp_target, capacity, self.layout)?)?;
        Ok(Link {
            capacity,
            fp_target,
            m: d.params.m(),
            k: d.params.k(),
        })
    }

    /// The chain that holds `n` items: links `0..L` ([`Self::links_for`]), each as
    /// [`Self::link`].
    ///
    /// # Errors
    /// As [`Self::links_for`] and [`Self::link`].
    pub fn chain(&self, n: u64) -> Result<Chain, ModelError> {
        let links = (0..self.links_for(n)?)
            .map(|i| self.link(i))
            .collect::<Result<Vec<_>, ModelError>>()?;
        Chain::new(links, self.layout)
    }
}

/// One link of a chain: its capacity, the FP it was sized for, its bits and hashes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Link {
    /// Distinct items it takes before the next link is added.
    pub capacity: u64,
    /// The FP it was sized for at `capacity` items.
    pub fp_target: f64,
    /// Bits `m_i`.
    pub m: u64,
    /// Hashes `k_i`.
    pub k: u32,
}

/// A chain of links in one layout, however it was sized (by [`ScalableParams::chain`],
/// or by a system's own rule, as RedisBloom's in [`crate::systems::redisbloom`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    links: Vec<Link>,
    #[serde(flatten)]
    layout: Layout,
}

impl Chain {
    /// Validates a chain.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `links` when empty or longer than
    /// [`ScalableParams::MAX_LINKS`], or a link's `m`, `k`, `capacity` as
    /// [`ClassicParams::new`] would.
    pub fn new(links: Vec<Link>, layout: Layout) -> Result<Self, ModelError> {
        check::in_range("links", links.len(), 1..=ScalableParams::MAX_LINKS)?;
        for l in &links {
            ClassicParams::new(l.m, l.k, l.capacity, layout)?;
        }
        Ok(Self { links, layout })
    }

    /// The links, first to last.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The layout of every link.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Items the whole chain holds: `Σ n_i`.
    pub fn capacity(&self) -> u64 {
        self.links.iter().map(|l| l.capacity).sum()
    }

    /// The chain after `n` distinct insertions: links in use, compound FP, memory and
    /// accesses.
    ///
    /// # Formula
    /// ```text
    /// L     = least L >= 1 with Σ_{i<L} n_i >= n
    /// n_i'  = n_i (i < L−1),  n − Σ_{i<L−1} n_i (the last link in use)
    /// fp    = 1 − Π_{i<L} (1 − fp_i(n_i'))        (Section 4 [SCALABLE])
    /// ```
    /// `fp_i` is the classic model of the layout ([`ClassicParams::fp`]).
    /// # Numerics
    /// `1 − Π(1 − f_i)` as `−expm1(Σ ln1p(−f_i))`: no cancellation at tiny FPs.
    /// # Errors
    /// `n` larger than [`Self::capacity`].
    pub fn at(&self, n: u64) -> Result<ChainMetrics, ModelError> {
        check::in_range("n", n, 0..=self.capacity())?;
        let mut left = n;
        let mut link_fp = Vec::new();
        let (mut ln_keep, mut memory_bits, mut accesses) = (0.0, 0u64, 0.0);
        let mut accesses_insert = 0.0;
        let mut fp_law = FpLaw::Exact;
        for (i, l) in self.links.iter().enumerate() {
            if i > 0 && left == 0 {
                break;
            }
            let items = left.min(l.capacity);
            left -= items;
            memory_bits += l.m;
            let (fp, probes) = if items == 0 {
                (0.0, 1.0)
            } else {
                let link = ClassicParams::new(l.m, l.k, items, self.layout)?;
                let (fp, law) = link.fp_with_law();
                let (insert, _, query_false) = link.accesses();
                accesses_insert = insert;
                if law != FpLaw::Exact {
                    fp_law = law;
                }
                (fp, query_false)
            };
            ln_keep += (-fp).ln_1p();
            accesses += probes;
            link_fp.push(fp);
        }
        let fp = crate::numeric::probability(-f64::exp_m1(ln_keep));
        Ok(ChainMetrics {
            n,
            links: link_fp.len(),
            fp,
            fp_law,
            link_fp,
            memory_bits,
            memory_bytes: memory_bits.div_ceil(8),
            bits_per_item: if n == 0 {
                f64::INFINITY
            } else {
                memory_bits as f64 / n as f64
            },
            accesses_insert,
            accesses_query_false: accesses,
        })
    }
}

/// A chain's state after `n` distinct insertions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainMetrics {
    /// Distinct items inserted.
    pub n: u64,
    /// Links allocated (the last may be partly filled).
    pub links: usize,
    /// Compound FP `1 − Π(1 − fp_i)` (Section 4 [SCALABLE]).
    pub fp: f64,
    /// The law the links' FPs follow: exact when every link's is
    /// ([`ClassicParams::fp_law`]).
    pub fp_law: FpLaw,
    /// Each link's FP at its fill.
    pub link_fp: Vec<f64>,
    /// Bits allocated, `Σ m_i` over the links in use.
    pub memory_bits: u64,
    /// Bytes, `⌈bits/8⌉`.
    pub memory_bytes: u64,
    /// Bits per item, `memory_bits / n` (infinite at `n = 0`).
    pub bits_per_item: f64,
    /// Bit probes (blocks, for the blocked layout) of an insertion into the last link.
    pub accesses_insert: f64,
    /// Expected probes of a query for an absent item: every link is asked, each until its
    /// first 0 bit (one block per link when blocked).
    pub accesses_query_false: f64,
}

#[cfg(test)]
mod tests;
