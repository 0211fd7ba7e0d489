//! The `(k0, k1)` chooser for the GBF: expected penalty per query of the standard and
//! the inferential GBF for a bits-per-item budget, a stream prior and a penalty
//! distribution (the chooser of `timing::design` extended to unequal `k0 ≠ k1`, which
//! the paper suggests but never optimises, Section 6.1.2 [TBF]).
//!
//! # Formula
//! An item of age `i` shows `c0 ~ Bin(k0, f0(1,i))` and `c1 ~ Bin(k1, 1 − f0(0,i))`
//! (`r0 = k0`, `r1 = k1`; decay counted in distinct other items, `t = q_ε^(D_{−x}(i))`), so
//! `P(o, I < w) = C(k0,c0) C(k1,c1) Σ_{i<w} P(i) L_o(i)` and likewise beyond `w`, with the
//! likelihood `L_o` of Eq. (32) [TBF] the inferential filter uses: its posterior is the
//! exact Bayes posterior of this forward model.

use super::moments::{LikelihoodExpansion, PieceMoments};
use super::{AgePieces, GbfDistinctTable, GbfParams, PieceShape};
use crate::error::{check, ModelError};
use crate::timing::btbf::binomials;
use crate::timing::design::ExpectedPenalty;
use crate::timing::penalty::PenaltyDist;
use crate::timing::prior::{Distinct, StreamPrior};
use serde::Serialize;

/// The `D(j)` curve that ages a GBF's cells on a stream: uniform, Eq. (16) [TBF]; Zipf,
/// Eq. (15) [TBF] tabulated ([`Distinct::zipf_tabulated`]) up to `|U| = 2^22`, because
/// the ages that matter reach `40/p_x`, far beyond where Eq. (17) holds (it falls to 0
/// at `j ≈ 1.5 |U| H_|U|`); above `2^22`, Eq. (17) (approximate for old cold items).
pub fn gbf_distinct(prior: &StreamPrior) -> Distinct {
    match *prior {
        StreamPrior::Zipf { universe, .. } if universe <= 1 << 22 => {
            Distinct::zipf_tabulated(universe)
        }
        _ => prior.distinct(),
    }
}

/// The expected penalties per query of a GBF of `params` for window `w`, cells aged by
/// `distinct` (see [`gbf_distinct`]) through `D_{−x}` ([`Distinct::d_excluding`]).
///
/// # Errors
/// `w = 0`.
pub fn expected_penalty(
    params: &GbfParams,
    w: u64,
    prior: &StreamPrior,
    distinct: &Distinct,
    penalties: &PenaltyDist,
    zipf_classes: usize,
) -> Result<ExpectedPenalty, ModelError> {
    let classes = prior.classes(zipf_classes);
    expected_penalty_over(params, w, &classes, distinct, penalties)
}

/// [`expected_penalty`] over item classes `(weight, p_x)` (weights summing to 1) from
/// [`StreamPrior::classes`], which a search over many filters computes once.
///
/// # Errors
/// `w = 0`.
pub fn expected_penalty_over(
    params: &GbfParams,
    w: u64,
    classes: &[(f64, f64)],
    distinct: &Distinct,
    penalties: &PenaltyDist,
) -> Result<ExpectedPenalty, ModelError> {
    penalty_with_delta(
        params,
        w,
        classes,
        distinct,
        penalties,
        GbfDistinctTable::CHOOSER_DELTA,
    )
}

/// [`expected_penalty_over`] on age pieces cut at `delta` ([`PieceShape::delta`]).
fn penalty_with_delta(
    params: &GbfParams,
    w: u64,
    classes: &[(f64, f64)],
    distinct: &Distinct,
    penalties: &PenaltyDist,
    delta: f64,
) -> Result<ExpectedPenalty, ModelError> {
    let shape = PieceShape::serving(&[*params], delta);
    let moments = classes
        .iter()
        .map(|&(_, px)| class_moments(shape, w, px, distinct))
        .collect::<Result<Vec<_>, _>>()?;
    penalty_on(params, w, classes, &moments, penalties)
}

/// The Bernstein moments of one class's age pieces for the filters of `shape`, one per
/// `K` from `shape.min_hashes` up ([`AgePieces::moments_by_hashes`]).
///
/// # Errors
/// A work allowance ([`crate::budget`]) spent: besides the cut, the moments charge
/// `pieces·Σ_K (K + 1)/2` steps.
fn class_moments(
    shape: PieceShape,
    w: u64,
    px: f64,
    distinct: &Distinct,
) -> Result<Vec<PieceMoments>, ModelError> {
    let pieces = AgePieces::new(shape, px, w, distinct)?;
    let powers: u32 = (shape.min_hashes..=shape.max_hashes).map(|k| k + 1).sum();
    crate::budget::spend(
        pieces.len() as f64 * f64::from(powers) / 2.0,
        "the GBF chooser's moments",
    )?;
    Ok(pieces.moments_by_hashes())
}

/// The expected penalties of `params` on the classes' moments (`moments[j]` for
/// `classes[j]`, one of them of degree `k0 + k1`).
///
/// # Errors
/// A work allowance ([`crate::budget`]) spent: each class charges its two matrix
/// products, `(k0 + 1)(k1 + 1)(k0 + k1 + 2)/2` steps (a small product does about four
/// multiply-adds a nanosecond here).
fn penalty_on(
    params: &GbfParams,
    w: u64,
    classes: &[(f64, f64)],
    moments: &[Vec<PieceMoments>],
    penalties: &PenaltyDist,
) -> Result<ExpectedPenalty, ModelError> {
    let (k0, k1) = (params.k0(), params.k1());
    let (b0, b1) = (binomials(k0), binomials(k1));
    let mean_fp = penalties.mean_fp();
    let mean_fn = penalties.mean_fn();
    let expansion = LikelihoodExpansion::new(params);
    let (mut std_cost, mut inf_cost, mut prior_cost) = (0.0, 0.0, 0.0);
    for (&(weight, px), class_moments) in classes.iter().zip(moments) {
        let (n0, n1) = (f64::from(k0 + 1), f64::from(k1 + 1));
        crate::budget::spend(n0 * n1 * (n0 + n1) / 2.0, "the GBF chooser's sums")?;
        let degree = class_moments
            .iter()
            .find(|m| m.degree() == k0 + k1)
            .expect("the moments of the pieces serving the filter");
        let sums = expansion.sums(degree);
        let in_w = crate::numeric::one_minus_pow1m(px, w as f64);
        let (a, bn) = penalties.expected_costs(in_w);
        prior_cost += weight * ((1.0 - in_w) * a + in_w * bn);
        for c0 in 0..=k0 {
            for c1 in 0..=k1 {
                let (num, beyond) = sums.get_split(c0, c1);
                let coef = px * b0[c0 as usize] * b1[c1 as usize];
                let (m_in, m_out) = (coef * num, coef * beyond);
                let den = num + beyond;
                if den <= 0.0 {
                    continue;
                }
                let post = num / den;
                let (cost_fp, cost_fn) = penalties.expected_costs(post);
                inf_cost += weight * (m_out * cost_fp + m_in * cost_fn);
                std_cost += weight
                    * if c0 == k0 && c1 == k1 {
                        m_out * mean_fp
                    } else {
                        m_in * mean_fn
                    };
            }
        }
    }
    Ok(ExpectedPenalty {
        standard: std_cost,
        inferential: inf_cost,
        prior_only: prior_cost,
    })
}

/// What the GBF chooser is asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GbfRequirement {
    /// Bits per window item (`m = ⌊bits_per_item · w⌋`).
    pub bits_per_item: f64,
    /// Window.
    pub w: u64,
    /// Stream prior.
    pub prior: StreamPrior,
    /// Penalties.
    pub penalties: PenaltyDist,
    /// Largest `k0` and `k1` tried.
    pub k_max: u32,
}

impl GbfRequirement {
    /// Item classes of the stream prior the chooser sums over ([`StreamPrior::classes`]).
    pub const CLASSES: usize = 16;

    /// The steps of work [`design_observed`] reports: one per item class and band of
    /// `K` (`K` to `1.5·K`: its age pieces and moments, most of the time) and one per
    /// `(k0, k1)` candidate.
    pub fn steps(&self) -> u64 {
        let cuts = self.prior.classes(Self::CLASSES).len() * Self::bands(self.k_max).len();
        cuts as u64 + u64::from(self.k_max).pow(2)
    }

    /// The bands of `K = k0 + k1` (`2..=2 k_max`, least first) that share one cut of
    /// the age pieces: `K` from `K_lo` to `⌊1.5·K_lo⌋`. One cut must be fine enough for
    /// the largest `K` (young ages, where `t` is near 1) and for the least (old ages,
    /// whose `t` stays large longest), so a wide band has more pieces than any of its
    /// `K` alone, and each piece pays `Σ (K + 1)` powers for the band's moments; a narrow
    /// band cuts more often. Measured (`optimize gbf`, one thread): the Zipf(10^5),
    /// `w = 2^16`, `k_max = 12` bench case takes 3.0 s of CPU with one band per `K`,
    /// 1.1-1.2 s at 1.5, 1.1-1.3 s at 2 and 3, 1.2 s with one band; the `k_max = 42`
    /// case 0.56, 0.33-0.37, 0.35, 0.38-0.40 and 1.1 s.
    fn bands(k_max: u32) -> Vec<std::ops::RangeInclusive<u32>> {
        let mut out = Vec::new();
        let mut lo = 2;
        while lo <= 2 * k_max {
            let hi = (lo * 3 / 2).min(2 * k_max);
            out.push(lo..=hi);
            lo = hi + 1;
        }
        out
    }
}

/// One evaluated `(k0, k1)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GbfCandidate {
    /// The parameters.
    pub params: GbfParams,
    /// Expected penalties per query.
    pub penalty: ExpectedPenalty,
}

/// The chooser's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GbfDesign {
    /// Minimiser of the inferential GBF's expected penalty.
    pub inferential: GbfCandidate,
    /// Minimiser of the standard GBF's expected penalty.
    pub standard: GbfCandidate,
    /// Every candidate, in `(k0, k1)` order.
    pub candidates: Vec<GbfCandidate>,
}

/// Chooses `(k0, k1)` in `1..=k_max` for both the standard and the inferential GBF.
///
/// # Errors
/// `bits_per_item` not in `(0, 4096]`, `k_max` outside `1..=64`, a budget below 2 bits.
pub fn design(req: &GbfRequirement) -> Result<GbfDesign, ModelError> {
    design_observed(req, || {})
}

/// [`design`], calling `step()` after each of its [`GbfRequirement::steps`] steps of
/// work, from any thread, so that a caller can show progress.
///
/// One cut of the age pieces per item class and band of `K = k0 + k1` (`K` to `1.5·K`)
/// serves every candidate of the band: it is fine enough for the largest `K S(t)` of any
/// of them ([`PieceShape::serving`]), and gives one set of Bernstein moments per `K`
/// ([`AgePieces::moments_by_hashes`]), from which each
/// candidate's sums of Eq. (32) for every observation are two small matrix products
/// ([`LikelihoodExpansion::sums`]). The classes' cuts, then the candidates, are
/// evaluated in parallel (rayon) and kept in order, so the pick is the sequential
/// search's. Measured on 2 idle cores (whole process): `k_max = 42`, `w = 1480`, Zipf:
/// 0.20 s; `k_max = 12`, `w = 2^16`, Zipf(10^5): 0.59 s (1.1 s of CPU), uniform: 0.03 s.
///
/// # Errors
/// As [`design`].
pub fn design_observed(
    req: &GbfRequirement,
    step: impl Fn() + Sync,
) -> Result<GbfDesign, ModelError> {
    if !(req.bits_per_item > 0.0 && req.bits_per_item <= 4096.0) {
        return Err(ModelError::invalid(
            "bits_per_item",
            req.bits_per_item,
            "0 < bits_per_item <= 4096",
        ));
    }
    check::in_range("k_max", req.k_max, GbfParams::K)?;
    let m = (req.bits_per_item * req.w as f64).floor() as u64;
    let m_min = *GbfParams::M.start();
    if m < m_min {
        return Err(ModelError::invalid(
            "bits_per_item",
            req.bits_per_item,
            format!(
                "bits_per_item >= {} ({m_min} bits over a window of {}) and bits_per_item <= 4096",
                crate::error::show_rate(m_min as f64 / req.w as f64),
                req.w,
            ),
        ));
    }
    use rayon::prelude::*;
    let params = (1..=req.k_max)
        .flat_map(|k0| (1..=req.k_max).map(move |k1| GbfParams::new(m, k0, k1)))
        .collect::<Result<Vec<_>, _>>()?;
    let distinct = gbf_distinct(&req.prior);
    let classes = req.prior.classes(GbfRequirement::CLASSES);
    let bands = GbfRequirement::bands(req.k_max);
    let shapes: Vec<PieceShape> = bands
        .iter()
        .map(|band| {
            let served: Vec<GbfParams> = params
                .iter()
                .copied()
                .filter(|p| band.contains(&(p.k0() + p.k1())))
                .collect();
            PieceShape::serving(&served, GbfDistinctTable::CHOOSER_DELTA)
        })
        .collect();
    // In order: the first failing class and band, then the first failing (k0, k1), names
    // the error, as in a sequential search.
    let work: Vec<(f64, PieceShape)> = classes
        .iter()
        .flat_map(|&(_, px)| shapes.iter().map(move |&shape| (px, shape)))
        .collect();
    let moments = work
        .par_iter()
        .map(|&(px, shape)| {
            let moments = class_moments(shape, req.w, px, &distinct);
            step();
            moments
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let moments: Vec<Vec<PieceMoments>> = moments
        .chunks(shapes.len())
        .map(|bands| bands.concat())
        .collect();
    let candidates = params
        .par_iter()
        .map(|&params| {
            let penalty = penalty_on(&params, req.w, &classes, &moments, &req.penalties);
            step();
            penalty.map(|penalty| GbfCandidate { params, penalty })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let pick = |f: fn(&GbfCandidate) -> f64| {
        candidates
            .iter()
            .copied()
            .min_by(|a, b| f(a).total_cmp(&f(b)))
            .ok_or_else(|| ModelError::infeasible("no (k0, k1) candidate", "k_max >= 1"))
    };
    Ok(GbfDesign {
        inferential: pick(|c| c.penalty.inferential)?,
        standard: pick(|c| c.penalty.standard)?,
        candidates,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::penalty::PenaltyDist;

    /// The chooser's coarser pieces move its penalties by under 1e-7 relative (4.1e-8 at
    /// most) against the tables of [`GbfDistinctTable::DELTA`] on these filters: uniform
    /// and Zipf decay, small and large `k`, short and long windows. (The grid's corners
    /// reach 5.7e-7: the next test.)
    #[test]
    fn chooser_pieces_are_within_1e_7_of_the_fine_tables() {
        let cases = [
            (3.0, 1480, StreamPrior::zipf(393_202).unwrap(), 42, 42),
            (3.0, 1480, StreamPrior::zipf(393_202).unwrap(), 2, 9),
            (10.0, 8192, StreamPrior::uniform(8192).unwrap(), 7, 5),
            (10.0, 8192, StreamPrior::zipf(100_000).unwrap(), 1, 12),
        ];
        for pen in [
            PenaltyDist::paper(),
            PenaltyDist::Fixed {
                fp: 12.0,
                fn_: 12.0,
            },
        ] {
            for (bpi, w, prior, k0, k1) in cases {
                let p = GbfParams::new((bpi * w as f64) as u64, k0, k1).unwrap();
                let classes = prior.classes(16);
                let d = gbf_distinct(&prior);
                let fine =
                    penalty_with_delta(&p, w, &classes, &d, &pen, GbfDistinctTable::DELTA).unwrap();
                let coarse = expected_penalty_over(&p, w, &classes, &d, &pen).unwrap();
                for (a, b) in [
                    (coarse.inferential, fine.inferential),
                    (coarse.standard, fine.standard),
                ] {
                    assert!((a - b).abs() <= 1e-7 * b, "{p:?} {pen:?}: {a} vs {b}");
                }
            }
        }
    }

    /// The chooser's banded cut (one cut per class and band of `K`, finer than each
    /// filter's own) keeps every candidate's penalties within `δ² = 1e-6` relative of the
    /// tables of [`GbfDistinctTable::DELTA`] (the one-point rule's error per piece, see
    /// [`GbfDistinctTable`]): the corners and middle of the `(k0, k1)` grid and both
    /// picks, on Zipf decay with `k_max = 42` and `12`, and uniform decay. Measured:
    /// 4.5e-7 at most (the standard GBF's `(1, 1)` at `k_max = 42`), where each filter's
    /// own cut ([`expected_penalty_over`]) is 5.7e-7 off.
    #[test]
    fn issue_18_banded_pieces_are_within_1e_7_of_the_fine_tables() {
        let cases = [
            (3.0, 1480, StreamPrior::zipf(393_202).unwrap(), 42),
            (10.0, 8192, StreamPrior::zipf(100_000).unwrap(), 12),
            (10.0, 8192, StreamPrior::uniform(8192).unwrap(), 7),
        ];
        let penalties = PenaltyDist::uniform(1.0, 10.0).unwrap();
        let bound = GbfDistinctTable::CHOOSER_DELTA.powi(2);
        let (mut worst, mut worst_own) = (0.0f64, 0.0f64);
        for (bits_per_item, w, prior, k_max) in cases {
            let req = GbfRequirement {
                bits_per_item,
                w,
                prior,
                penalties,
                k_max,
            };
            let got = design(&req).unwrap();
            let classes = prior.classes(GbfRequirement::CLASSES);
            let d = gbf_distinct(&prior);
            let mid = k_max.div_ceil(2);
            let picks = [got.inferential.params, got.standard.params];
            let corners = [(1, 1), (1, k_max), (k_max, 1), (k_max, k_max), (mid, mid)];
            for (k0, k1) in corners
                .into_iter()
                .chain(picks.iter().map(|p| (p.k0(), p.k1())))
            {
                let c = got.candidates[((k0 - 1) * k_max + k1 - 1) as usize];
                assert_eq!((c.params.k0(), c.params.k1()), (k0, k1));
                let fine = penalty_with_delta(
                    &c.params,
                    w,
                    &classes,
                    &d,
                    &penalties,
                    GbfDistinctTable::DELTA,
                )
                .unwrap();
                let own = expected_penalty_over(&c.params, w, &classes, &d, &penalties).unwrap();
                for (a, b) in [
                    (own.inferential, fine.inferential),
                    (own.standard, fine.standard),
                ] {
                    worst_own = worst_own.max((a - b).abs() / b);
                }
                for (a, b) in [
                    (c.penalty.inferential, fine.inferential),
                    (c.penalty.standard, fine.standard),
                ] {
                    worst = worst.max((a - b).abs() / b);
                    assert!((a - b).abs() <= bound * b, "{:?}: {a} vs {b}", c.params);
                }
            }
        }
        println!(
            "worst relative difference: banded {worst:e}, each filter's own cut {worst_own:e}"
        );
    }

    /// A budget below two bits names `bits_per_item` with its own lower bound (it once
    /// reported the bound on `m`, "2 <= m", under the name of the per-item flag).
    #[test]
    fn a_budget_below_two_bits_names_bits_per_item_and_its_bound() {
        let req = GbfRequirement {
            bits_per_item: 0.015,
            w: 100,
            prior: StreamPrior::uniform(1000).unwrap(),
            penalties: PenaltyDist::uniform(1.0, 2.0).unwrap(),
            k_max: 2,
        };
        let e = design(&req).unwrap_err().to_string();
        assert!(e.contains("bits_per_item = 0.015"), "{e}");
        assert!(e.contains("bits_per_item >= 0.02"), "{e}");
    }
}
