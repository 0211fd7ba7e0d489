//! The penalty-optimal parameter chooser: the expected penalty per query of the standard
//! and of the inferential BTBF for `(k, bpt, B)`, a stream prior and a penalty
//! distribution, and the minimiser for a bits-per-item budget.
//!
//! The paper tried `k = 1..30` by simulation (Section 6.1.2 [TBF], Figure 8); this
//! predicts the penalty by summing over the distribution of the observations
//! `(λ_x, c_x)` given the age ([`BtbfModel::observation_masses`]).

use super::btbf::{rule_of_thumb_padding, AgePosterior, BtbfModel, BtbfParams};
use super::penalty::PenaltyDist;
use super::prior::StreamPrior;
use crate::error::{check, ModelError};
use crate::numeric::first_true;
use serde::Serialize;

/// How finely the expected penalty averages over offsets and items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PenaltyResolution {
    /// Most block offsets `b` evaluated (all of them when `B` is at most this and `grid`
    /// asks for them).
    pub offsets: u64,
    /// `(offset, age)` pairs aimed for per item class: `⌈grid/(L(0) + 1)⌉` offsets
    /// (at least 1, at most `offsets` and `B`), where `L(0) + 1` ages are visited per
    /// offset ([`Self::offsets_of`]). `u64::MAX` evaluates `min(offsets, B)` offsets.
    pub grid: u64,
    /// Item classes of a Zipf prior ([`StreamPrior::classes`]).
    pub zipf_classes: usize,
}

impl Default for PenaltyResolution {
    /// At most 64 offsets, about 512 `(offset, age)` pairs, 24 Zipf classes: the
    /// chooser's default.
    ///
    /// The average over offsets is a stratified midpoint rule over the block; its error
    /// falls with the number of `(offset, age)` pairs rather than of offsets (measured on
    /// `w = 2^16`, Zipf(10^5) candidates, against 64 offsets: 8 offsets at `L = 10` were
    /// 0.4% off, 1 offset at `L >= 637` under 0.03%), so a long expiry age needs few
    /// offsets and a short one many. Errors measured in tests: below 0.1% against every
    /// offset (at most 5.8e-4 on the cases of
    /// `the_default_offsets_are_within_a_thousandth_of_every_offset`), and below 1%
    /// against 96 Zipf classes.
    fn default() -> Self {
        Self {
            offsets: 64,
            grid: 512,
            zipf_classes: 24,
        }
    }
}

impl PenaltyResolution {
    /// Expiry ages `L(0) + 1` from which a single offset (the block's midpoint) is
    /// averaged over, without a second one for the band where `L(b) = L(0) − 1`: the
    /// jump between the bands is one age in 2048 (measured: one midpoint at `L = 683`
    /// put a standard penalty 0.12% high).
    pub const ONE_OFFSET_AGES: u64 = 2048;

    /// Exactly `offsets` offsets (or all `B` when fewer), whatever the expiry age.
    pub fn fixed_offsets(offsets: u64, zipf_classes: usize) -> Self {
        Self {
            offsets,
            grid: u64::MAX,
            zipf_classes,
        }
    }

    /// The block offsets averaged over for `model`, with their weights (summing to 1):
    /// `n = clamp(⌈grid/(L(0) + 1)⌉, 1, offsets)` stratified midpoints
    /// ([`BtbfModel::offsets`]). When `n >= 2` they are shared between the two bands of
    /// the block where the expiry age `L(b)` is constant (`L(0)` below
    /// `r = w − (L(0) − 1)·B`, one less from there), at least one in each, each band
    /// weighted by its share of the block.
    ///
    /// Without the split a few offsets can miss a narrow band whole (a standard penalty
    /// 0.6% high, measured at `B = 410`, `r = 406`; 3e-5 with it): what an unexpired
    /// timer looks like jumps at `r`, and is smooth in `b` on each side. From
    /// [`Self::ONE_OFFSET_AGES`] ages on, one offset is one midpoint of the whole block.
    pub fn offsets_of(&self, model: &BtbfModel) -> Vec<(u64, f64)> {
        let p = model.params();
        let big_b = p.block_size();
        let l0 = p.expiry_age(0);
        let n = self
            .grid
            .div_ceil(l0.saturating_add(1))
            .clamp(1, self.offsets.max(1))
            .min(big_b);
        // `r` in `1..=B`; a single band when `r = B` (`B` divides `w`).
        let r = p.w() - (l0 - 1) * big_b;
        let bands = if r >= big_b || (n == 1 && l0 + 1 >= Self::ONE_OFFSET_AGES) {
            vec![(0, big_b)]
        } else {
            vec![(0, r), (r, big_b - r)]
        };
        let mut out = Vec::with_capacity(n as usize + 1);
        let mut left = n;
        for (i, &(start, size)) in bands.iter().enumerate() {
            // The band's share of `n` (at least one, at most its size; the last band
            // takes the rest).
            let take = if i + 1 == bands.len() {
                left
            } else {
                ((n * size + big_b / 2) / big_b).clamp(1, n.saturating_sub(1).max(1))
            }
            .clamp(1, size);
            left = left.saturating_sub(take).max(1);
            let weight = size as f64 / big_b as f64 / take as f64;
            out.extend((0..take).map(|t| (start + ((2 * t + 1) * size) / (2 * take), weight)));
        }
        out
    }
}

/// Expected penalties per query.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExpectedPenalty {
    /// Standard BTBF (Pos unless a timer expired): `E[$FP] · P(Pos, I_x >= w)`.
    pub standard: f64,
    /// Inferential BTBF: each observation answered by the minimum-penalty rule of
    /// Section 2.6 [TBF] with the posterior of [`BtbfModel::posterior`].
    pub inferential: f64,
    /// Prior only (no filter): the answer from `P(I_x < w)` alone.
    pub prior_only: f64,
}

/// The expected penalty per query of `model` under `prior` and `penalties`.
///
/// # Formula
/// ```text
/// standard    = E[$FP] Σ_o P(o, I >= w)                    (o: unexpired observations)
/// inferential = Σ_o P(o, I >= w)·E[$FP·1{Pos(o)}] + P(o, I < w)·E[$FN·1{Neg(o)}]
/// ```
/// averaged over the block offset and the arriving item; `Pos(o)` is the rule of
/// Section 2.6 [TBF] applied to the paper's posterior, so a miscalibrated posterior is
/// charged for its mistakes.
pub fn expected_penalty(
    model: &BtbfModel,
    prior: &StreamPrior,
    penalties: &PenaltyDist,
    res: PenaltyResolution,
) -> ExpectedPenalty {
    expected_penalty_over(model, &prior.classes(res.zipf_classes), penalties, res)
}

/// The probability below which an observation's decision is not evaluated by
/// [`expected_penalty_over`]: its cost is at most `hi` times this, so the penalty moves
/// by at most `1e-16·hi` per observation skipped (`1e-10·hi` over a million
/// observations), far below the resolution's error.
const NEGLIGIBLE_MASS: f64 = 1e-16;

/// [`expected_penalty`] over item classes `(weight, p_x)` whose weights (arrival shares)
/// sum to 1, such as a trace's measured frequencies
/// ([`super::prior::ItemFrequencies::classes`]), averaged over the block offsets of
/// `res` ([`PenaltyResolution::offsets_of`]; its `zipf_classes` is not used). Each
/// class's arrivals have the ages of Eq. (4) [TBF].
pub fn expected_penalty_over(
    model: &BtbfModel,
    classes: &[(f64, f64)],
    penalties: &PenaltyDist,
    res: PenaltyResolution,
) -> ExpectedPenalty {
    let p = *model.params();
    let offsets = res.offsets_of(model);
    let mean_fp = penalties.mean_fp();
    // D(·) at the offsets' block boundaries, once for every class.
    let timers: Vec<_> = offsets
        .iter()
        .map(|&(b, weight)| (model.offset_timers(b), weight))
        .collect();
    let (mut std_cost, mut inf_cost, mut prior_cost) = (0.0, 0.0, 0.0);
    for &(weight, px) in classes {
        let in_w = crate::numeric::one_minus_pow1m(px, p.w() as f64);
        let (a, bn) = penalties.expected_costs(in_w);
        prior_cost += weight * ((1.0 - in_w) * a + in_w * bn);
        let (mut s, mut inf) = (0.0, 0.0);
        let item = model.item_terms(px);
        for (t, offset_weight) in &timers {
            let b = t.offset();
            // The posterior's terms of the age being visited (`k` observations each).
            let mut age: Option<(u64, AgePosterior)> = None;
            let (mut s_b, mut inf_b) = (0.0, 0.0);
            model.observation_masses_at(px, t, |lambda, c, m_in, m_out| {
                s_b += m_out;
                if m_in + m_out < NEGLIGIBLE_MASS {
                    return;
                }
                let terms = match age {
                    Some((l, terms)) if l == lambda => terms,
                    _ => {
                        let terms = model.age_posterior(&item, b, lambda, p.k());
                        age = Some((lambda, terms));
                        terms
                    }
                };
                let post = terms.at(model, c);
                let (cost_fp, cost_fn) = penalties.expected_costs(post);
                inf_b += m_out * cost_fp + m_in * cost_fn;
            });
            s += offset_weight * s_b;
            inf += offset_weight * inf_b;
        }
        std_cost += weight * mean_fp * s;
        inf_cost += weight * inf;
    }
    ExpectedPenalty {
        standard: std_cost,
        inferential: inf_cost,
        prior_only: prior_cost,
    }
}

/// The work of [`expected_penalty_over`] for `classes` item classes and the block
/// offsets of `res`, in the units a work allowance ([`crate::budget`]) charges:
/// `Σ_b (L(b) + 1)·(classes·k + s)`, `L(b)` the expiry age of offset `b`: the
/// observations visited per class ([`BtbfModel::observation_masses`]) and the `D(·)`
/// evaluations shared by the classes ([`BtbfModel::offset_timers`]), each of `s` steps
/// at most (its cost at the offset's oldest age, [`crate::workload::Distinct::eval_steps`]).
pub fn expected_penalty_steps(model: &BtbfModel, classes: usize, res: PenaltyResolution) -> f64 {
    let p = model.params();
    let visits = classes as f64 * f64::from(p.k());
    res.offsets_of(model)
        .iter()
        .map(|&(b, _)| {
            let ages = p.expiry_age(b) + 1;
            let oldest = (ages - 1).saturating_mul(p.block_size()).saturating_add(b);
            ages as f64 * (visits + model.distinct().eval_steps(oldest as f64))
        })
        .sum()
}

/// Which filter the chooser minimises for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// The inferential BTBF's expected penalty.
    Inferential,
    /// The standard BTBF's expected penalty.
    Standard,
}

/// What the chooser is asked: a memory budget per window item, the window, the stream,
/// the penalties, and the search ranges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BtbfRequirement {
    bits_per_item: f64,
    w: u64,
    prior: StreamPrior,
    penalties: PenaltyDist,
    k_max: u32,
    bpt_max: u32,
    objective: Objective,
    #[serde(skip)]
    resolution: PenaltyResolution,
}

impl BtbfRequirement {
    /// Default largest `k` tried (the paper's 30).
    pub const K_MAX_DEFAULT: u32 = 30;
    /// Default largest bits per timer tried.
    pub const BPT_MAX_DEFAULT: u32 = 12;

    /// A requirement: `bits_per_item · w` bits for a window `w`.
    ///
    /// # Errors
    /// `bits_per_item` not in `(0, 4096]`; `window` out of [`BtbfParams::W`].
    pub fn new(
        bits_per_item: f64,
        w: u64,
        prior: StreamPrior,
        penalties: PenaltyDist,
    ) -> Result<Self, ModelError> {
        if !(bits_per_item > 0.0 && bits_per_item <= 4096.0) {
            return Err(ModelError::invalid(
                "bits_per_item",
                bits_per_item,
                "0 < bits_per_item <= 4096",
            ));
        }
        check::in_range("window", w, BtbfParams::W)?;
        Ok(Self {
            bits_per_item,
            w,
            prior,
            penalties,
            k_max: Self::K_MAX_DEFAULT,
            bpt_max: Self::BPT_MAX_DEFAULT,
            objective: Objective::Inferential,
            resolution: PenaltyResolution::default(),
        })
    }

    /// Sets the largest `k` tried.
    ///
    /// # Errors
    /// `k_max` outside [`BtbfParams::K`].
    pub fn with_k_max(mut self, k_max: u32) -> Result<Self, ModelError> {
        self.k_max = check::in_range("k_max", k_max, BtbfParams::K)?;
        Ok(self)
    }

    /// Sets the largest bits per timer tried.
    ///
    /// # Errors
    /// `bpt_max` outside `2..=20`.
    pub fn with_bpt_max(mut self, bpt_max: u32) -> Result<Self, ModelError> {
        self.bpt_max = check::in_range("bpt_max", bpt_max, 2..=20)?;
        Ok(self)
    }

    /// Sets the objective.
    pub fn with_objective(mut self, objective: Objective) -> Self {
        self.objective = objective;
        self
    }

    /// Sets the resolution of the penalty averages.
    pub fn with_resolution(mut self, resolution: PenaltyResolution) -> Self {
        self.resolution = resolution;
        self
    }

    /// The objective.
    pub fn objective(&self) -> Objective {
        self.objective
    }

    /// The window.
    pub fn w(&self) -> u64 {
        self.w
    }

    /// The stream prior.
    pub fn prior(&self) -> &StreamPrior {
        &self.prior
    }

    /// The penalty distribution.
    pub fn penalties(&self) -> &PenaltyDist {
        &self.penalties
    }

    /// The parameters the chooser considers for `(k, bpt)`: `m = ⌊bits_per_item · w / bpt⌋`,
    /// the padding of the paper's rule (at most `k` timers scanned per insertion,
    /// Section 6.1.2 [TBF]) and the smallest block size `B` for which `T_Ω` fits in
    /// `bpt` bits. `None` when no block size fits.
    ///
    /// A smaller `B` never loses information (the window is approximated more finely),
    /// so only the smallest feasible `B` is evaluated; a test checks that doubling it
    /// does not lower the predicted penalty.
    pub fn candidate(&self, k: u32, bpt: u32) -> Option<BtbfParams> {
        let m = (self.bits_per_item * self.w as f64 / f64::from(bpt)).floor() as u64;
        if m < u64::from(k) {
            return None;
        }
        let w = self.w;
        let values = 1u64.checked_shl(bpt)?;
        let fits = |b: u64| w.div_ceil(b) + 1 + rule_of_thumb_padding(m, k, b) + 2 <= values;
        let block = first_true(1, w, fits)?;
        BtbfParams::new(m, k, bpt, block, w, rule_of_thumb_padding(m, k, block)).ok()
    }
}

/// One evaluated design.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BtbfCandidate {
    /// The parameters.
    pub params: BtbfParams,
    /// Their expected penalties per query.
    pub penalty: ExpectedPenalty,
}

/// The chooser's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BtbfDesign {
    /// The minimiser of the requirement's objective.
    pub best: BtbfCandidate,
    /// Every candidate evaluated, in `(k, bpt)` order.
    pub candidates: Vec<BtbfCandidate>,
}

/// Chooses `(k, bpt, B, P)` minimising the expected penalty per query.
///
/// # Errors
/// [`ModelError::Infeasible`] when no `(k, bpt)` fits the budget (fewer timers than
/// hashes, or no block size fits the timers).
pub fn design(req: &BtbfRequirement) -> Result<BtbfDesign, ModelError> {
    design_observed(req, || {})
}

/// [`design`], calling `step()` after each of the `k_max · (bpt_max − 1)` `(k, bpt)`
/// pairs, from any thread, so that a caller can show progress (the search takes seconds
/// on long windows). The pairs are evaluated in parallel (rayon) and kept in `(k, bpt)`
/// order, so the pick (the first least penalty) is the sequential search's.
///
/// # Errors
/// As [`design`].
pub fn design_observed(
    req: &BtbfRequirement,
    step: impl Fn() + Sync,
) -> Result<BtbfDesign, ModelError> {
    use rayon::prelude::*;
    let distinct = req.prior.distinct();
    let pairs: Vec<(u32, u32)> = (1..=req.k_max)
        .flat_map(|k| (2..=req.bpt_max).map(move |bpt| (k, bpt)))
        .collect();
    let classes = req.prior.classes(req.resolution.zipf_classes);
    let candidates: Vec<BtbfCandidate> = pairs
        .into_par_iter()
        .filter_map(|(k, bpt)| {
            step();
            let params = req.candidate(k, bpt)?;
            let model = BtbfModel::new(params, distinct.clone());
            let steps = expected_penalty_steps(&model, classes.len(), req.resolution);
            if let Err(e) = crate::budget::spend(steps, "the BTBF chooser's expected penalty") {
                return Some(Err(e));
            }
            let penalty = expected_penalty_over(&model, &classes, &req.penalties, req.resolution);
            Some(Ok(BtbfCandidate { params, penalty }))
        })
        .collect::<Result<_, _>>()?;
    let key = |c: &BtbfCandidate| match req.objective {
        Objective::Inferential => c.penalty.inferential,
        Objective::Standard => c.penalty.standard,
    };
    let best = candidates
        .iter()
        .copied()
        .min_by(|a, b| key(a).total_cmp(&key(b)))
        .ok_or_else(|| {
            ModelError::infeasible(
                format!(
                    "{} bits per item over a window of {} leave fewer timers than hashes for every k <= {} and bpt <= {}",
                    crate::error::show_rate(req.bits_per_item), req.w, req.k_max, req.bpt_max
                ),
                "a larger --bits-per-item",
            )
        })?;
    Ok(BtbfDesign { best, candidates })
}
