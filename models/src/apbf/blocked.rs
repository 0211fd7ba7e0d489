//! Age-Partitioned Blocked Bloom filters (Section 6, Tables 3-4 [APBF]).
//!
//! Every segment is a blocked Bloom filter of `B`-bit blocks; an insertion picks one
//! block per segment and sets one bit in each of the `b` parts (`B/b` bits each) of the
//! block. A segment's match probability for a non-member, given that its block holds
//! `j` items, is `(1 − (1 − b/B)^j)^b` (exact: the parts are hashed independently).
//!
//! # Formula
//! ```text
//! λ      = ln2 / −ln(1 − b/B)          mean block load of a full segment (parts half full)
//! q(μ)   = Σ_j Poisson(j; μ) (1 − (1 − b/B)^j)^b
//! r_i    = q(λ (i+1)/k) for i < k,  q(λ) for i ≥ k      (worst case, just before a shift)
//! FP     = F(k, l, 0, 0) over r                         Section 5.3 and 6 [APBF]
//! cap.   = (b/B) / −ln(1 − b/B)        window relative to APBF(k·b, l·b), same memory
//! NPWS   = Σ_{i<k} q(λ)^i / l
//! ```
//! A sized filter replaces the Poisson load by the exact Binomial(`min(i+1,k)·g`,
//! `1/blocks`) load of its blocks ([`ApbbfParams::fp`]).

use super::recursion::{
    consecutive_match, ln_consecutive_match, query_accesses, report_probability, window_accesses,
    QueryAccesses,
};
use super::{fills, npws_formula, ApbfParams};
use crate::error::{check, ModelError};
use crate::numeric::{
    binomial_cut_tail_bound, binomial_pmf, ln_binomial_mixture, ln_poisson_mixture,
    one_minus_pow1m, poisson_pmf,
};
use crate::workload::Distinct;
use serde::Serialize;
use std::ops::RangeInclusive;

/// Mass cut of the load distributions (relative to the mode). The segment FP weights the
/// tail by match probabilities up to `1/(segment FP)` times the mode's: at 1e-18 the
/// first segment of `(4, 10, 512, 16)` (FP 4.9e-10) was off by 6.9e-13 relative (issue
/// 17's precision test); 1e-30 costs a few more terms.
const CUT: f64 = 1e-30;

/// The error of a model that needs a sized filter.
fn not_sized() -> ModelError {
    ModelError::invalid("window", "none", "a sized APBBF (give a window)")
}

/// Segment size of a sized APBBF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ApbbfSizing {
    /// Blocks per segment.
    pub blocks: u64,
    /// Insertions per generation `g = ⌊λ·blocks/k⌋`.
    pub generation: u64,
}

/// Parameters of an APBBF: `k` segments written per insertion, `l` extra segments,
/// blocks of `B` bits with `b` bits set per block.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ApbbfParams {
    k: u32,
    l: u32,
    block_bits: u32,
    block_hashes: u32,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    sizing: Option<ApbbfSizing>,
}

impl ApbbfParams {
    /// Allowed block sizes (a power of two in this range).
    pub const BLOCK_BITS: RangeInclusive<u32> = 64..=(1 << 16);
    /// Allowed hashes per block (and a divisor of the block size).
    pub const BLOCK_HASHES: RangeInclusive<u32> = 1..=64;

    /// Validates and builds unsized parameters (Poisson block loads).
    ///
    /// # Errors
    /// `k`, `l` as for [`ApbfParams::new`]; `block_bits` not a power of two in
    /// [`Self::BLOCK_BITS`]; `block_hashes` outside [`Self::BLOCK_HASHES`] or not
    /// dividing `block_bits`.
    pub fn new(k: u32, l: u32, block_bits: u32, block_hashes: u32) -> Result<Self, ModelError> {
        ApbfParams::new(k, l)?;
        if !(Self::BLOCK_BITS.contains(&block_bits) && block_bits.is_power_of_two()) {
            return Err(ModelError::invalid(
                "block_bits",
                block_bits,
                "a power of two from 64 to 65536",
            ));
        }
        check::in_range("block_hashes", block_hashes, Self::BLOCK_HASHES)?;
        if block_bits % block_hashes != 0 || block_hashes == block_bits {
            return Err(ModelError::invalid(
                "block_hashes",
                block_hashes,
                format!("a divisor of block_bits = {block_bits} smaller than it"),
            ));
        }
        Ok(Self {
            k,
            l,
            block_bits,
            block_hashes,
            sizing: None,
        })
    }

    /// Sized for a window of at least `w` items: `g = ⌈w/l⌉`, blocks per segment
    /// `⌈k·g/λ⌉`, then `g = ⌊λ·blocks/k⌋ ≥ ⌈w/l⌉`.
    ///
    /// # Errors
    /// `w` outside [`ApbfParams::W`] or below `l`.
    pub fn with_window(mut self, w: u64) -> Result<Self, ModelError> {
        check::in_range("window", w, ApbfParams::W)?;
        if w < u64::from(self.l) {
            return Err(ModelError::invalid(
                "window",
                w,
                format!("window >= l = {}", self.l),
            ));
        }
        let g = w.div_ceil(u64::from(self.l));
        let lambda = self.full_load();
        let k = f64::from(self.k);
        let mut blocks = ((g as f64 * k / lambda).ceil() as u64).max(1);
        while ((lambda * blocks as f64 / k).floor() as u64) < g {
            blocks += 1;
        }
        let generation = (lambda * blocks as f64 / k).floor() as u64;
        self.sizing = Some(ApbbfSizing { blocks, generation });
        Ok(self)
    }

    /// Segments written per insertion `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Extra segments `l`.
    pub fn l(&self) -> u32 {
        self.l
    }
    /// Block size `B` in bits.
    pub fn block_bits(&self) -> u32 {
        self.block_bits
    }
    /// Bits set per block `b`.
    pub fn block_hashes(&self) -> u32 {
        self.block_hashes
    }
    /// Segment size, if sized.
    pub fn sizing(&self) -> Option<ApbbfSizing> {
        self.sizing
    }
    /// Window `l·g`, if sized.
    pub fn window(&self) -> Option<u64> {
        self.sizing.map(|s| u64::from(self.l) * s.generation)
    }
    /// Total bits `(k+l)·blocks·B`, if sized.
    pub fn total_bits(&self) -> Option<u64> {
        self.sizing
            .map(|s| u64::from(self.k + self.l) * s.blocks * u64::from(self.block_bits))
    }

    fn ratio(&self) -> f64 {
        f64::from(self.block_hashes) / f64::from(self.block_bits)
    }

    /// Mean block load of a full segment, `λ = ln2 / −ln(1 − b/B)`: each part half full.
    pub fn full_load(&self) -> f64 {
        std::f64::consts::LN_2 / -(-self.ratio()).ln_1p()
    }

    /// Match probability of a block holding `j` items, `(1 − (1 − b/B)^j)^b`.
    fn block_match(&self, j: u64) -> f64 {
        one_minus_pow1m(self.ratio(), j as f64).powi(self.block_hashes as i32)
    }

    /// `ln` of [`Self::block_match`], `b·ln(1 − (1 − b/B)^j)`; `−∞` at `j = 0`.
    fn ln_block_match(&self, j: u64) -> f64 {
        f64::from(self.block_hashes) * one_minus_pow1m(self.ratio(), j as f64).ln()
    }

    /// The natural logs of the segment match probabilities of [`Self::segments_paper`]
    /// (`with_sizing` false) or [`Self::segments_real`] (true), in log space: each is
    /// `ln Σ_j P(load = j)·(1 − (1 − b/B)^j)^b` by [`ln_poisson_mixture`] or
    /// [`ln_binomial_mixture`], which keep every load whose match outweighs its mass
    /// (the `f64` forms cut the load law at 1e-30 of its mode, which is exact only while
    /// the segment FP is above about 1e-15). `None` when a load law is too wide to walk
    /// (mean load above 10^7, never in a valid filter: `λ ≤ B ln 2 / b`).
    pub fn ln_segments(&self, with_sizing: bool) -> Option<Vec<f64>> {
        let k = f64::from(self.k);
        let ln_match = |j: u64| Some(self.ln_block_match(j));
        let seg = |i: u32| -> Option<f64> {
            let gens = (i + 1).min(self.k);
            match self.sizing.filter(|_| with_sizing) {
                Some(s) => ln_binomial_mixture(
                    u64::from(gens) * s.generation,
                    1.0 / s.blocks as f64,
                    ln_match,
                ),
                None => ln_poisson_mixture(self.full_load() * f64::from(gens) / k, ln_match),
            }
        };
        let full = seg(self.k)?;
        (0..self.k + self.l)
            .map(|i| if i < self.k { seg(i) } else { Some(full) })
            .collect()
    }

    /// The natural logs of the FPs of [`Self::metrics`] keyed by their names (`fp_paper`,
    /// `fp_apbf`, `fp`), in log space, for FPs below the smallest `f64` (2.2e-308).
    ///
    /// # Formula
    /// ```text
    /// ln fp_paper = G(k,l,0,0) over ln r_i of Self::ln_segments(false)
    /// ln fp       = G(k,l,0,0) over ln r_i of Self::ln_segments(true)
    /// ln fp_apbf  = G(kb,lb,0,0) over ln(i/(2kb)) (the paper's APBF fills)
    /// ```
    /// with `G` of [`ln_consecutive_match`] (Sections 5.3 and 6 [APBF]).
    pub fn ln_fps(&self) -> Vec<(&'static str, f64)> {
        let k = self.k as usize;
        let mut out = Vec::with_capacity(3);
        if let Some(seg) = self.ln_segments(false) {
            out.push(("fp_paper", ln_consecutive_match(&seg, k)));
        }
        if let Some(seg) = self.ln_segments(true) {
            out.push(("fp", ln_consecutive_match(&seg, k)));
        }
        let (kb, lb) = (self.k * self.block_hashes, self.l * self.block_hashes);
        let ln_fills: Vec<f64> = fills::paper(kb, lb).iter().map(|r| r.ln()).collect();
        out.push(("fp_apbf", ln_consecutive_match(&ln_fills, kb as usize)));
        out
    }

    /// A segment's match probability under Poisson(`load`) block loads.
    pub fn segment_fp_poisson(&self, load: f64) -> f64 {
        let q = poisson_pmf(load, CUT)
            .iter()
            .map(|&(j, p)| p * self.block_match(j))
            .sum();
        self.uncut_below(q, || {
            ln_poisson_mixture(load, |j| Some(self.ln_block_match(j)))
        })
    }

    /// A segment match `q` from a load law cut at [`CUT`], or below
    /// `crate::classic::formulas::UNCUT_BELOW` (1e-12), where a tail load can outweigh
    /// the cut, `e^ln` from the uncut log-space mixture `ln_uncut`.
    fn uncut_below(&self, q: f64, ln_uncut: impl FnOnce() -> Option<f64>) -> f64 {
        if q < crate::classic::UNCUT_BELOW {
            ln_uncut().map_or(q, f64::exp)
        } else {
            q
        }
    }

    /// A segment's match probability when each block holds `Binomial(n, p)` items,
    /// `q = Σ_j Bin(j; n, p)·(1 − (1 − b/B)^j)^b`: the load law cut at [`CUT`] of its
    /// mode, or, where the mass the cut drops above its last load
    /// ([`crate::numeric::binomial_cut_tail_bound`]; a block match is at most 1) can
    /// exceed 1e-13 of `q`, the uncut log-space walk ([`ln_binomial_mixture`]). At tiny
    /// `q` the dropped tail loads dominate (issue 17: 1.0e-12 relative at FP 3.5e-29 in
    /// the blocked classic form); loads below the mode have smaller matches than the
    /// mode and masses below 1e-30 of it, so they cannot matter.
    fn segment_fp_binomial(&self, n: u64, p: f64) -> f64 {
        let pmf = binomial_pmf(n, p, CUT);
        let q: f64 = pmf.iter().map(|&(j, w)| w * self.block_match(j)).sum();
        let last = pmf.last().copied().unwrap_or((0, 1.0));
        if binomial_cut_tail_bound(n, p, last) > 1e-13 * q {
            ln_binomial_mixture(n, p, |j| Some(self.ln_block_match(j))).map_or(q, f64::exp)
        } else {
            q
        }
    }

    /// The worst-case segment match probabilities with Poisson loads (Table 3 [APBF]).
    pub fn segments_paper(&self) -> Vec<f64> {
        let lambda = self.full_load();
        let full = self.segment_fp_poisson(lambda);
        let k = f64::from(self.k);
        (0..self.k + self.l)
            .map(|i| {
                if i < self.k {
                    self.segment_fp_poisson(lambda * f64::from(i + 1) / k)
                } else {
                    full
                }
            })
            .collect()
    }

    /// The worst-case segment match probabilities of a real filter: Binomial block loads
    /// when sized, else the Poisson limit ([`Self::segments_paper`]).
    pub fn segments_real(&self) -> Vec<f64> {
        let Some(s) = self.sizing else {
            return self.segments_paper();
        };
        self.segments_with(s, |n| n)
    }

    /// The worst-case segment match probabilities (just before a shift) on a stream
    /// with `D(·)`: segment `i` has seen a run of `n = min(i+1, k)·g` insertions, which
    /// hold `D(n)` distinct items; a repeat picks the block and bits of its first
    /// insertion, so the block load is `Binomial(round(D(n)), 1/blocks)` and the match
    /// probability `Σ_j P(load = j)·(1 − (1 − b/B)^j)^b` (Section 6 [APBF] with the
    /// distinct count in place of the insertions, as [`ApbfParams::fills_on`] does for
    /// the slices). Equals [`Self::segments_real`] when `D(n) = n`.
    ///
    /// # Errors
    /// An unsized filter.
    pub fn segments_on(&self, workload: &Distinct) -> Result<Vec<f64>, ModelError> {
        let s = self.sizing.ok_or_else(not_sized)?;
        Ok(self.segments_with(s, |n| workload.d(n)))
    }

    /// Worst-case FP (just before a shift) on a stream with `D(·)`: `F(k, l, 0, 0)`
    /// (Sections 5.3 and 6 [APBF]) over [`Self::segments_on`].
    ///
    /// # Errors
    /// An unsized filter.
    pub fn fp_on(&self, workload: &Distinct) -> Result<f64, ModelError> {
        Ok(consecutive_match(
            &self.segments_on(workload)?,
            self.k as usize,
        ))
    }

    /// Probability that an item inserted `j` generations before the current one is
    /// reported just before a shift, on `workload`: its `k` segments hold it, the others
    /// match with [`Self::segments_on`] (Figure 4 [APBF], blocked segments in place of
    /// slices). 1 for `j <= l`; the background FP for `j >= k + l`; a bound at any other
    /// phase.
    ///
    /// # Errors
    /// An unsized filter.
    pub fn report_probability_on(&self, j: u32, workload: &Distinct) -> Result<f64, ModelError> {
        let seg = self.segments_on(workload)?;
        let j = j.min(self.k + self.l) as usize;
        Ok(report_probability(
            &seg,
            self.k as usize,
            j..j + self.k as usize,
        ))
    }

    /// Segment match probabilities of a sized filter whose segment `i` holds
    /// `distinct(min(i+1, k)·g)` items, Binomial over the blocks.
    fn segments_with(&self, s: ApbbfSizing, distinct: impl Fn(f64) -> f64) -> Vec<f64> {
        let p = 1.0 / s.blocks as f64;
        let seg = |gens: u64| {
            let n = distinct((gens * s.generation) as f64).round().max(0.0) as u64;
            self.segment_fp_binomial(n, p)
        };
        let full = seg(u64::from(self.k));
        (0..self.k + self.l)
            .map(|i| {
                if i < self.k {
                    seg(u64::from(i + 1))
                } else {
                    full
                }
            })
            .collect()
    }

    /// FP of a sized filter after `j ∈ 1..=g` insertions of the current generation:
    /// segment `i < k` holds `Binomial(i·g + j, 1/blocks)` items per block; unsized:
    /// the worst case [`Self::fp`].
    pub fn fp_after(&self, j: u64) -> f64 {
        let Some(s) = self.sizing else {
            return self.fp();
        };
        let p = 1.0 / s.blocks as f64;
        let seg = |n: u64| self.segment_fp_binomial(n, p);
        let full = seg(u64::from(self.k) * s.generation);
        let r: Vec<f64> = (0..self.k + self.l)
            .map(|i| {
                if i < self.k {
                    seg(u64::from(i) * s.generation + j)
                } else {
                    full
                }
            })
            .collect();
        consecutive_match(&r, self.k as usize)
    }

    /// Table 3's APBBF FP: `F(k,l,0,0)` over [`Self::segments_paper`].
    pub fn fp_paper(&self) -> f64 {
        consecutive_match(&self.segments_paper(), self.k as usize)
    }

    /// FP of a real filter (Binomial loads when sized).
    pub fn fp(&self) -> f64 {
        consecutive_match(&self.segments_real(), self.k as usize)
    }

    /// Table 3's APBF column: the paper FP of the APBF with `(k·b, l·b)` slices.
    pub fn fp_apbf(&self) -> f64 {
        let (kb, lb) = (self.k * self.block_hashes, self.l * self.block_hashes);
        consecutive_match(&fills::paper(kb, lb), kb as usize)
    }

    /// Window relative to the APBF `(k·b, l·b)` with the same memory:
    /// `(b/B) / −ln(1 − b/B)` (Table 3 [APBF]).
    pub fn capacity_ratio(&self) -> f64 {
        self.ratio() / -(-self.ratio()).ln_1p()
    }

    /// Bits per window item, `(k+l)·k·B / (λ·l)` unsized (Table 4 [APBF]), or
    /// `total_bits / window` when sized.
    pub fn bits_per_item(&self) -> f64 {
        match (self.total_bits(), self.window()) {
            (Some(bits), Some(w)) => bits as f64 / w as f64,
            _ => {
                let (k, l) = (f64::from(self.k), f64::from(self.l));
                (k + l) * k * f64::from(self.block_bits) / (self.full_load() * l)
            }
        }
    }

    /// Expected block accesses for non-members with the paper's fills (Poisson loads,
    /// [`Self::segments_paper`]; Table 3).
    pub fn accesses_paper(&self) -> QueryAccesses {
        query_accesses(&self.segments_paper(), self.k as usize, self.l as usize)
    }

    /// Peak NPWS with the full segment's match probability (paper's fills) in place of 1/2.
    pub fn npws(&self) -> f64 {
        let full = *self.segments_paper().last().unwrap_or(&0.5);
        npws_formula(full, self.k, self.l)
    }

    /// All metrics (the keys of `bfopt model apbbf`).
    pub fn metrics(&self) -> ApbbfMetrics {
        let seg = self.segments_paper();
        let (k, l) = (self.k as usize, self.l as usize);
        let acc = query_accesses(&seg, k, l);
        ApbbfMetrics {
            fp_paper: consecutive_match(&seg, k),
            fp_apbf: self.fp_apbf(),
            fp: self.fp(),
            capacity_ratio: self.capacity_ratio(),
            accesses_window: window_accesses(&seg, k, l),
            accesses_fp: acc.given_true(),
            accesses_false: acc.given_false(),
            npws: npws_formula(seg[seg.len() - 1], self.k, self.l),
            bits_per_item: self.bits_per_item(),
            generation: self.sizing.map(|s| s.generation),
            blocks: self.sizing.map(|s| s.blocks),
            window: self.window(),
            total_bits: self.total_bits(),
        }
    }
}

/// Predicted metrics of an APBBF.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ApbbfMetrics {
    /// FP with the paper's fills: worst-case Poisson block loads, [`ApbbfParams::segments_paper`]
    /// (Table 3's APBBF column).
    pub fp_paper: f64,
    /// FP of the APBF with `(k·b, l·b)` under the paper's APBF fills `i/(2k)` (Table 3's
    /// APBF column).
    pub fp_apbf: f64,
    /// FP with the real fills: Binomial block loads of the sized filter
    /// ([`ApbbfParams::segments_real`]); unsized, the Poisson limit, equal to `fp_paper`.
    pub fp: f64,
    /// Window relative to that APBF with the same memory (Table 3's "cap."; a closed form,
    /// no fills).
    pub capacity_ratio: f64,
    /// Expected block accesses of a query for a window item, with the paper's fills
    /// ([`ApbbfParams::segments_paper`], Table 3's "win.").
    pub accesses_window: f64,
    /// Expected block accesses of a false positive, `E[accesses·1{true}] / P(true)` of
    /// Algorithm 1 [APBF], with the paper's fills (Table 3's "fp"). `P(true)` is carried
    /// on its own, not formed as `1 − P(false)`: at FP 4.3e-16, `(k, l, B, b) = (4, 10, 512,
    /// 16)`, the latter in `f64` gives about 5.07 where enumeration of every segment
    /// pattern gives 5.2580 (issue 17, `models/tests/precision/apbf.rs`).
    pub accesses_fp: f64,
    /// Expected block accesses of a query that returns false, with the paper's fills
    /// (Table 3's "false").
    pub accesses_false: f64,
    /// Peak NPWS, Section 5.2's formula with the paper's full-segment FP in place of 1/2.
    pub npws: f64,
    /// Bits per window item (Table 4 [APBF]).
    pub bits_per_item: f64,
    /// Insertions per generation (sized only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// Blocks per segment (sized only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u64>,
    /// Window `l·g` (sized only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    /// Total bits (sized only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bits: Option<u64>,
}
