//! Sizing a scalable Bloom filter for a final count: `(P, N0, n) → (P0, r, s, k_i)`.

use super::{Chain, ChainMetrics, ScalableParams};
use crate::classic::{ClassicParams, ClassicRequirement, Layout};
use crate::error::{check, ModelError};
use serde::Serialize;

/// What a scalable filter must achieve: compound FP at most `fp` once it holds `n`
/// distinct items, starting from a first link of `n0` items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScalableRequirement {
    #[serde(rename = "fp_target")]
    fp: f64,
    n0: u64,
    n: u64,
    #[serde(flatten)]
    layout: Layout,
}

impl ScalableRequirement {
    /// A requirement. The compound FP of a chain only grows with `n`, so meeting `fp`
    /// at `n` meets it at every count up to `n`.
    ///
    /// # Errors
    /// `fp` outside `[1e-300, 1)`, `n0` outside [`ScalableParams::N0`], `n` outside
    /// [`ClassicParams::N`], a bad block size.
    pub fn new(fp: f64, n0: u64, n: u64, layout: Layout) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("n0", n0, ScalableParams::N0)?;
        check::in_range("n", n, ClassicParams::N)?;
        ClassicRequirement::new(fp, 1, layout)?;
        Ok(Self { fp, n0, n, layout })
    }
    /// The compound FP target.
    pub fn fp(&self) -> f64 {
        self.fp
    }
    /// The first link's capacity `N0`.
    pub fn n0(&self) -> u64 {
        self.n0
    }
    /// The final count `n`.
    pub fn n(&self) -> u64 {
        self.n
    }
    /// The layout of every link.
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

/// Tightening and growth as common implementations fix them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// RedisBloom `BF.RESERVE` without `NONSCALING`: `r = 0.5` (`ERROR_TIGHTENING_RATIO`),
    /// `s = 2` (default `EXPANSION`).
    RedisBloom,
    /// growable-bloom-filters (Rust): `r = 0.8515625`, `s = 2`.
    Growable,
}

impl Preset {
    /// Both presets.
    pub const ALL: [Preset; 2] = [Preset::RedisBloom, Preset::Growable];

    /// Tightening ratio `r`.
    pub fn r(self) -> f64 {
        match self {
            Preset::RedisBloom => 0.5,
            Preset::Growable => 0.851_562_5,
        }
    }
    /// Growth factor `s`.
    pub fn s(self) -> f64 {
        2.0
    }
    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Preset::RedisBloom => "redisbloom",
            Preset::Growable => "growable",
        }
    }

    /// The chain the library builds for a target `fp`: `P0 = fp·(1 − r)`, so the
    /// compound FP stays below `fp` however far it grows (Section 4 [SCALABLE]).
    ///
    /// # Errors
    /// As [`ScalableParams::new`].
    pub fn params(self, fp: f64, n0: u64, layout: Layout) -> Result<ScalableParams, ModelError> {
        check::fp_target("fp", fp)?;
        ScalableParams::new(n0, fp * (1.0 - self.r()), self.r(), self.s(), layout)
    }
}

/// A sized scalable filter and its state at the final and the initial count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalableDesign {
    /// The chosen parameters.
    pub params: ScalableParams,
    /// The links allocated at the final count.
    pub chain: Chain,
    /// The chain at the final count `n` (compound FP at most the target).
    pub at_n: ChainMetrics,
    /// The chain at `min(N0, n)` items: the memory spent before any growth.
    pub at_n0: ChainMetrics,
    /// The compound FP target.
    pub fp_target: f64,
}

impl ScalableDesign {
    /// Evaluates `params` at the requirement's counts.
    ///
    /// # Errors
    /// As [`ScalableParams::chain`].
    pub fn evaluate(params: ScalableParams, req: &ScalableRequirement) -> Result<Self, ModelError> {
        let chain = params.chain(req.n)?;
        Ok(Self {
            params,
            at_n: chain.at(req.n)?,
            at_n0: chain.at(req.n0.min(req.n))?,
            chain,
            fp_target: req.fp,
        })
    }
}

/// `1 − Π_{i<L}(1 − P0·r^i)`: the compound of the links' targets, an upper bound of the
/// compound FP at any count the `L` links hold.
fn compound_of_targets(p0: f64, r: f64, links: usize) -> f64 {
    let ln_keep: f64 = (0..links).map(|i| (-(p0 * r.powi(i as i32))).ln_1p()).sum();
    -ln_keep.exp_m1()
}

/// Bisection steps on `ln P0` (each builds a chain).
const STEPS: usize = 12;

/// The chain with tightening `r` and growth `s` whose compound FP at `n` meets the
/// target with the least memory: the largest `P0` found by bisection on `ln P0` that
/// meets it, starting from the `P0` whose links' own targets compound to the target
/// (which meets it by construction, as each link's FP at its fill is at most its target).
///
/// # Errors
/// Invalid `r` or `s`; [`ModelError::Infeasible`] when no chain holds `n` items.
pub fn size_chain(req: &ScalableRequirement, r: f64, s: f64) -> Result<ScalableDesign, ModelError> {
    let probe = ScalableParams::new(req.n0, req.fp, r, s, req.layout)?;
    let links = probe.links_for(req.n)?;
    // Safe start: Π(1 − P0 r^i) = 1 − fp, by bisection on ln P0 (the compound grows with P0).
    let (mut lo, mut hi) = (req.fp.ln() - 2.0 * (links as f64).ln() - 1.0, req.fp.ln());
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if compound_of_targets(mid.exp(), r, links) <= req.fp {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let at = |ln_p0: f64| -> Result<Option<ScalableDesign>, ModelError> {
        let p0 = ln_p0.exp();
        if !(check::FP_TARGET_MIN..0.5).contains(&p0) {
            return Ok(None);
        }
        let d = ScalableDesign::evaluate(ScalableParams::new(req.n0, p0, r, s, req.layout)?, req)?;
        Ok((d.at_n.fp <= req.fp).then_some(d))
    };
    let mut best = at(lo)?.ok_or_else(|| {
        ModelError::infeasible(
            format!(
                "compound fp <= {} at n = {}",
                crate::error::show_rate(req.fp),
                req.n
            ),
            format!("no first-link fp with r = {r}, s = {s}"),
        )
    })?;
    // The last link is rarely full: a looser P0 may still meet the target at n.
    let mut feasible = lo;
    let mut infeasible = lo + std::f64::consts::LN_2;
    while let Some(d) = at(infeasible)? {
        if d.at_n.memory_bits <= best.at_n.memory_bits {
            best = d;
        }
        feasible = infeasible;
        infeasible += std::f64::consts::LN_2;
    }
    for _ in 0..STEPS {
        let mid = 0.5 * (feasible + infeasible);
        match at(mid)? {
            Some(d) => {
                if d.at_n.memory_bits <= best.at_n.memory_bits {
                    best = d;
                }
                feasible = mid;
            }
            None => infeasible = mid,
        }
    }
    Ok(best)
}

/// Growth factors tried by [`design`], besides those that make the chain end at `n`.
const S_GRID: [f64; 7] = [1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0];
/// Tightening ratios tried by [`design`] (with both presets' ratios).
const R_GRID: [f64; 12] = [
    0.3,
    0.4,
    0.5,
    0.6,
    0.7,
    0.75,
    0.8,
    0.851_562_5,
    0.875,
    0.9,
    0.925,
    0.95,
];
/// `(r, s)` pairs sized exactly by [`design`], the best of the surrogate's ranking.
const EXACT_PAIRS: usize = 3;

/// The growth `s` with which `L` links hold exactly `n` items: `N0·(s^L − 1)/(s − 1) = n`.
fn growth_ending_at(n0: u64, n: u64, links: i32) -> Option<f64> {
    let target = n as f64 / n0 as f64;
    let total = |s: f64| (0..links).map(|i| s.powi(i)).sum::<f64>();
    let (mut lo, mut hi) = (*ScalableParams::S.start(), *ScalableParams::S.end());
    if !(total(lo) < target && total(hi) >= target) {
        return None;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if total(mid) >= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[cfg(test)]
pub(super) fn growth_ending_at_for_tests(n0: u64, n: u64, links: i32) -> Option<f64> {
    growth_ending_at(n0, n, links)
}

/// The surrogate of a chain's memory at `n` that ranks `(r, s)` pairs: each link sized
/// by the continuous optimum `k_i = log2(1/P_i)`, `m_i = n_i·k_i/ln 2`, its FP at `x`
/// items `(1 − e^(−k_i·x/m_i))^k_i`, `P0` the largest meeting the target at `n` (by
/// bisection on `ln P0`); `None` when the chain cannot hold `n`.
fn surrogate_bits(req: &ScalableRequirement, r: f64, s: f64) -> Option<f64> {
    let params = ScalableParams::new(req.n0, req.fp, r, s, req.layout).ok()?;
    let links = params.links_for(req.n).ok()?;
    let caps: Vec<f64> = (0..links).map(|i| params.link_capacity(i) as f64).collect();
    let last = req.n as f64 - caps[..links - 1].iter().sum::<f64>();
    let at = |p0: f64| -> (f64, f64) {
        let (mut ln_keep, mut bits) = (0.0, 0.0);
        for (i, &c) in caps.iter().enumerate() {
            let k = -(p0 * r.powi(i as i32)).log2();
            let m = c * k / std::f64::consts::LN_2;
            let x = if i + 1 == links { last } else { c };
            let fp = (-(-k * x / m).exp_m1()).powf(k);
            ln_keep += (-fp).ln_1p();
            bits += m;
        }
        (-ln_keep.exp_m1(), bits)
    };
    let (mut lo, mut hi) = (check::FP_TARGET_MIN.ln(), 0.5f64.ln());
    if at(lo.exp()).0 > req.fp {
        return None;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if at(mid.exp()).0 <= req.fp {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(at(lo.exp()).1)
}

/// The least memory at the final count `n` over the tightening `r`, the growth `s`, the
/// first-link FP `P0` and each link's integer `k_i`, the compound FP at `n` meeting the
/// target (Section 4 [SCALABLE] leaves the choice open and suggests `s` of 2 or 4 and
/// `r` of 0.8 to 0.9).
///
/// `r` runs over a grid from 0.3 to 0.95 (with both [`Preset`]s' ratios); `s` over 1.25
/// to 8 and the growths that make 2 to 8 links end exactly at `n`. Every pair is ranked
/// by a continuous surrogate of its memory ([`surrogate_bits`]: optimal real `k`, fill
/// law `(1 − e^(−kx/m))^k`); the best three, and both presets' pairs, are sized exactly
/// by [`size_chain`] (integer `k_i` by [`crate::classic::design`], the layout's exact FP
/// law where computable), and the least exact memory wins: never more than either
/// preset's ratios sized for `n`.
///
/// # Errors
/// [`ModelError::Infeasible`] when no chain holds `n` items at the target.
pub fn design(req: &ScalableRequirement) -> Result<ScalableDesign, ModelError> {
    design_and_presets(req).map(|(best, _)| best)
}

/// [`design`], with both [`Preset`]s' chains as [`size_chain`] sizes them (in
/// [`Preset::ALL`] order): `design` sizes them anyway, so a caller that shows them beside
/// the optimum (the planner's rows) need not size them twice.
///
/// # Errors
/// As [`design`] (a preset's own error is returned in its slot).
#[allow(clippy::type_complexity)]
pub fn design_and_presets(
    req: &ScalableRequirement,
) -> Result<(ScalableDesign, Vec<Result<ScalableDesign, ModelError>>), ModelError> {
    let mut growths: Vec<f64> = S_GRID.to_vec();
    growths.extend((2..=8).filter_map(|l| growth_ending_at(req.n0, req.n, l)));
    let mut ranked: Vec<(f64, f64, f64)> = growths
        .iter()
        .flat_map(|&s| R_GRID.iter().map(move |&r| (r, s)))
        .filter_map(|(r, s)| surrogate_bits(req, r, s).map(|b| (b, r, s)))
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best: Option<ScalableDesign> = None;
    let mut last_err = None;
    let mut presets = Vec::with_capacity(Preset::ALL.len());
    // The presets' pairs too, so that the optimum is never worse than either.
    let pairs = ranked
        .iter()
        .take(EXACT_PAIRS)
        .map(|&(_, r, s)| (r, s, false))
        .chain(Preset::ALL.iter().map(|p| (p.r(), p.s(), true)));
    for (r, s, preset) in pairs {
        let sized = size_chain(req, r, s);
        if preset {
            presets.push(sized.clone());
        }
        match sized {
            Ok(d) => {
                if best
                    .as_ref()
                    .is_none_or(|b| d.at_n.memory_bits < b.at_n.memory_bits)
                {
                    best = Some(d);
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    let best = best.ok_or_else(|| {
        last_err.unwrap_or_else(|| {
            ModelError::infeasible(
                format!(
                    "compound fp <= {} at n = {}",
                    crate::error::show_rate(req.fp),
                    req.n
                ),
                format!("no chain of at most {} links", ScalableParams::MAX_LINKS),
            )
        })
    })?;
    Ok((best, presets))
}
