//! The inferential BTBF on a trace: sized on the trace's `D(·)` (the standard BTBF of
//! [`btbf::standard_btbf_on`]), its expected penalty per query predicted from the trace's
//! item frequencies ([`ItemFrequencies`], `p_x = c_x/N`), and replayed through the
//! reference filter answering by the posterior (Section 2.6 [TBF]).
//!
//! # What the replay checks
//! * **Penalty per query**, two-sided within the model band: every record after the
//!   warm-up is a query of its item (before it is inserted) answered by the
//!   minimum-penalty rule on [`BtbfModel::posterior`] with the item's `p_x`, charged
//!   `E[$FP·1{Pos}]` if its last occurrence is `W` or more insertions old (or it has none)
//!   and `E[$FN·1{Neg}]` otherwise ([`PenaltyDist::expected_costs`]). The prediction is
//!   the model's cost at each query's own age and block offset
//!   ([`BtbfModel::expected_cost_at_age`]), averaged over the queries: exact on the
//!   trace up to the independent-timers approximation of Eq. (21) [TBF].
//! * **FP on fresh keys** (never in the trace, `p_x = 1/N`) at the worst block offset:
//!   at most the standard answer's FP there. An expired observation has posterior 0 and
//!   is answered Neg whenever `$FP > 0`, so the inferential answer is positive only where
//!   the standard one is.
//!
//! The row's printed penalty is [`expected_penalty_over`] on the trace's frequency
//! classes, which takes each class's ages from Eq. (4) [TBF] (geometric with rate `p_x`);
//! a trace's ages are not geometric (an item seen `c` times has one first occurrence and
//! `c − 1` gaps), so that figure is an estimate and the replay reports it beside the
//! measurement without judging it.

use super::{Candidate, Status, TraceDesignReplay, BTBF_BAND, REPLAY_CONFIDENCE};
use crate::candidate::Params;
use crate::families::{btbf, probes};
use crate::requirement::Requirement;
use bfopt_models::timing::design::PenaltyResolution;
use bfopt_models::timing::{
    expected_penalty_over, BtbfModel, BtbfParams, ItemFrequencies, Penalties, PenaltyDist,
};
use bfopt_models::workload::Distinct;
use bfopt_models::ModelError;
use bfopt_validation::agree::{Check, Tolerance};
use bfopt_validation::filters::timing::BtbfFilter;
use bfopt_validation::stats::{Mean, Proportion};
use bfopt_validation::workload::{mix, probe};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// Frequency classes of the row's printed penalty ([`ItemFrequencies::classes`]).
pub(super) const FREQUENCY_CLASSES: usize = 24;

/// How to replay an inferential BTBF row.
#[derive(Clone)]
pub(super) struct PenaltyDesign {
    model: BtbfModel,
    penalties: PenaltyDist,
    warmup: u64,
    /// The worst block offset `(w − 1) mod B`.
    worst: u64,
    /// The standard answer's FP on fresh keys at the worst offset.
    fresh_bound: f64,
    /// The row's printed penalty per query, if it was sized on the trace's frequencies.
    planned: Option<f64>,
}

/// What the replay of an inferential row measured.
#[derive(Debug, Clone, Serialize)]
pub struct PenaltyReplay {
    /// The model's penalty per query at each query's age and offset, averaged.
    pub predicted: f64,
    /// The penalty per query, with its Student t interval over the epochs.
    pub measured: Mean,
    /// The row's printed penalty per query (frequency classes, geometric ages), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planned: Option<f64>,
    /// FP of the answer on fresh keys at the worst block offset.
    pub fresh_fp: Proportion,
    /// Its bound: the standard answer's FP there.
    pub fresh_bound: f64,
    /// Queries per epoch (records after the warm-up).
    pub queries: u64,
}

/// The `btbf/inferential` row sized on the trace: the standard BTBF on `workload` and the
/// expected penalty per query on the trace's frequency classes ([`expected_penalty_over`]
/// with `D(·)` = `workload`).
/// Returns the row and its printed penalty per query.
pub(super) fn fitted(
    req: &Requirement,
    w: u64,
    workload: &Distinct,
    frequencies: &ItemFrequencies,
) -> Result<(Candidate, f64), ModelError> {
    let penalties = req
        .penalties()
        .ok_or_else(|| ModelError::invalid("penalties", "none", "error prices"))?;
    let (p, fp) = btbf::standard_btbf_on(req.fp(), w, workload).ok_or_else(|| {
        ModelError::invalid("fp", req.fp(), "a BTBF within 2^40 timers on this trace")
    })?;
    let model = BtbfModel::new(p, workload.clone());
    let e = expected_penalty_over(
        &model,
        &frequencies.classes(FREQUENCY_CLASSES),
        &penalties,
        PenaltyResolution::default(),
    );
    let standard = btbf::standard_row(req.fp(), w, p, fp);
    let row = super::unsimulated(btbf::inferential_shape(
        standard,
        vec![
            "when errors have prices: posterior P(in window | timers) and the cheaper answer"
                .into(),
            format!(
                "sized on the trace's D(L) and item frequencies (p_x = count/N, {} records): expected penalty per query {:.4} (standard answer {:.4}), an estimate (ages taken geometric)",
                frequencies.records(),
                e.inferential,
                e.standard
            ),
        ],
    ));
    Ok((row, e.inferential))
}

/// How to replay inferential row `c` (params of a BTBF) over a window of `w`.
pub(super) fn design(
    c: &Candidate,
    w: u64,
    workload: &Distinct,
    penalties: PenaltyDist,
    planned: Option<f64>,
) -> Result<PenaltyDesign, String> {
    let Params::Btbf {
        m,
        k,
        bpt,
        block_size,
        padding,
    } = c.params
    else {
        return Err("not a BTBF".into());
    };
    let p = BtbfParams::new(m, k, bpt, block_size, w, padding).map_err(|e| e.to_string())?;
    let model = BtbfModel::new(p, workload.clone());
    let worst = (w - 1) % block_size;
    // `$FP = 0` answers Pos even on an expired observation: no bound but 1.
    let free_fp = matches!(penalties, PenaltyDist::Fixed { fp, .. } if fp == 0.0);
    let fresh_bound = if free_fp {
        1.0
    } else {
        model.fp_at_age(u64::MAX, worst)
    };
    Ok(PenaltyDesign {
        model,
        penalties,
        warmup: w + 2 * block_size,
        worst,
        fresh_bound,
        planned,
    })
}

/// One query of the replay: the key, its `p_x`, and whether its item is in the window.
#[derive(Clone, Copy)]
struct Query {
    key: u64,
    px: f64,
    inside: bool,
}

/// The penalties of fresh probe `i` at probe point `t` of epoch `seed`: drawn from
/// `dist` by hashing (uniform penalties are independent per query).
fn drawn(dist: &PenaltyDist, seed: u64, t: u64, i: u64) -> Penalties {
    match *dist {
        PenaltyDist::Fixed { fp, fn_ } => Penalties::new(fp, fn_),
        PenaltyDist::Uniform { lo, hi } => {
            let u =
                |salt: u64| (mix(seed ^ mix(t ^ mix(i ^ salt))) >> 11) as f64 / (1u64 << 53) as f64;
            Penalties::new(lo + (hi - lo) * u(1), lo + (hi - lo) * u(2))
        }
    }
    .expect("penalties from a valid distribution")
}

/// Replays `keys` through `epochs` inferential filters (see the module documentation).
pub(super) fn replay(
    design_name: &str,
    d: &PenaltyDesign,
    keys: &[u64],
    epochs: u64,
    seed: u64,
    fp: f64,
) -> TraceDesignReplay {
    let p = *d.model.params();
    let big_b = p.block_size();
    let w = p.w();
    let len = keys.len() as u64;
    let skipped = |why: String| TraceDesignReplay {
        design: design_name.into(),
        status: Status::Skipped,
        skipped: Some(why),
        measured: None,
        fresh_predicted: None,
        returning_estimate: false,
        cycles: None,
        penalty: None,
        checks: Vec::new(),
    };
    if len <= d.warmup + big_b {
        return skipped(format!(
            "the trace ({len} records) is shorter than the filter's warm-up and one block ({} insertions)",
            d.warmup + big_b
        ));
    }
    let frequencies = match ItemFrequencies::of_keys(keys) {
        Ok(f) => f,
        Err(e) => return skipped(e.to_string()),
    };
    let mut count = HashMap::<u64, u64>::new();
    keys.iter().for_each(|&k| *count.entry(k).or_default() += 1);
    // Per record: its query, and the model's cost at its age and offset.
    let mut last = HashMap::<u64, u64>::new();
    let mut beyond = HashMap::<(u64, u64), f64>::new();
    let mut queries = Vec::with_capacity(keys.len());
    let mut predicted = 0.0;
    for (t, &key) in (0u64..).zip(keys) {
        let c = count[&key];
        let px = frequencies.px(c);
        let age = last.insert(key, t + 1).map(|q| t - q);
        let inside = age.is_some_and(|a| a < w);
        queries.push(Query { key, px, inside });
        if t < d.warmup {
            continue;
        }
        let b = t % big_b;
        // Past the horizon `L(b)·B + b` every age has the law of a never-inserted item.
        let horizon = p.expiry_age(b) * big_b + b;
        predicted += match age {
            Some(a) if a < horizon => d.model.expected_cost_at_age(px, Some(a), b, &d.penalties),
            _ => *beyond
                .entry((c, b))
                .or_insert_with(|| d.model.expected_cost_at_age(px, None, b, &d.penalties)),
        };
    }
    let n_queries = len - d.warmup;
    let predicted = predicted / n_queries as f64;
    let points = (len - d.warmup) / big_b;
    let per_point = (probes(fp) * 4).div_ceil(points.max(1)).max(1);
    let fresh_px = frequencies.px(1);
    let per_epoch: Vec<(f64, (u64, u64))> = (0..epochs.max(1))
        .into_par_iter()
        .map(|e| {
            let s = seed.wrapping_add(e);
            let mut f = BtbfFilter::new(&p, s);
            let (mut cost, mut fresh) = (0.0, (0u64, 0u64));
            for (t, q) in (0u64..).zip(&queries) {
                if t >= d.warmup {
                    let post = d
                        .model
                        .posterior_unchecked(q.px, &f.query_u64(q.key).observation);
                    let (a, n) = d.penalties.expected_costs(post);
                    cost += if q.inside { n } else { a };
                }
                f.insert_u64(q.key);
                let done = t + 1;
                if done > d.warmup && done % big_b == d.worst {
                    let base = mix(s ^ mix(done));
                    for i in 0..per_point {
                        let o = f.query_u64(probe(base, i)).observation;
                        let post = d.model.posterior_unchecked(fresh_px, &o);
                        let pos = drawn(&d.penalties, s, done, i).decide(post)
                            == bfopt_models::timing::Decision::Positive;
                        fresh.0 += u64::from(pos);
                    }
                    fresh.1 += per_point;
                }
            }
            (cost / n_queries as f64, fresh)
        })
        .collect();
    let costs: Vec<f64> = per_epoch.iter().map(|e| e.0).collect();
    let fresh: Vec<(u64, u64)> = per_epoch.iter().map(|e| e.1).collect();
    let measured = Mean::new(&costs, REPLAY_CONFIDENCE);
    let fresh_fp = Proportion::over_epochs(&fresh, REPLAY_CONFIDENCE);
    let planned = d
        .planned
        .map_or(String::new(), |x| format!("; the row's estimate {x:.4}"));
    let checks = vec![
        Check::new(
            "trace",
            format!("{design_name}: trace replay, penalty per query at each query's age (model{planned})"),
            predicted,
            measured.mean,
            (measured.interval.lo, measured.interval.hi),
            REPLAY_CONFIDENCE,
            Tolerance::approx(
                BTBF_BAND,
                "independent timers, D(j) exponent (Eq. (21) [TBF])",
            ),
            measured.samples,
            seed,
        ),
        Check::at_most(
            "trace",
            format!(
                "{design_name}: trace replay, fp on fresh keys at the worst offset (bound: the standard answer's)"
            ),
            d.fresh_bound,
            fresh_fp.rate,
            (fresh_fp.interval.lo, fresh_fp.interval.hi),
            REPLAY_CONFIDENCE,
            fresh_fp.trials,
            seed,
        ),
    ];
    TraceDesignReplay {
        design: design_name.into(),
        status: if checks.iter().all(|k| k.pass) {
            Status::Pass
        } else {
            Status::Fail
        },
        skipped: None,
        measured: None,
        fresh_predicted: Some(d.fresh_bound),
        returning_estimate: false,
        cycles: None,
        penalty: Some(PenaltyReplay {
            predicted,
            measured,
            planned: d.planned,
            fresh_fp,
            fresh_bound: d.fresh_bound,
            queries: n_queries,
        }),
        checks,
    }
}
