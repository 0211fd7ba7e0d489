//! Even-split designs of `bfopt recommend --horizon` (no workload), simulated on their
//! worst ranges and on random starts.

use super::trace::distinct_entries;
use super::workload::member_queries;
use super::{query_workload, PREDICTION_BUDGET, TOLERANCE};
use crate::agree::{Check, Tolerance};
use crate::filters::pbf::{PbfFilter, PbfSizing, SbfFilter};
use crate::stats::Proportion;
use crate::workload::{member, mix, probe, rng};
use bfopt_models::error::{check, ModelError};
use bfopt_models::pbf::{filter_fp_with_budget, fp_sbf, mean_query_fp, PbfLayout, Variant};
use rand::Rng;
use serde::Serialize;

/// A design of `bfopt recommend --horizon T --query-length Q --pairs n`, sized for the
/// worst query of length `Q` without a workload ([`bfopt_models::pbf::BoundRequest::bound`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "design", rename_all = "snake_case")]
pub enum EvenDesign {
    /// PBF-1 (`granularity > 1`) or PBF-2 (`granularity = 1`) with bits split evenly:
    /// every level (and PBF-1's fine filter) gets `n·c` bits, `c = ln(1/per_probe)/ln²2`
    /// bits per pair, and a PBF-1 level shares them among its interval filters in
    /// proportion to the timestamps each covers in `[1, T]` (its expected share of the
    /// pairs) ([`even_sizing`]).
    Tree {
        /// PBF-1 or PBF-2.
        variant: Variant,
        /// Leaf granularity (1 for PBF-2).
        granularity: u64,
        /// The FP each probe is sized for, `1 − (1 − p)^(1/max_probes)`.
        per_probe: f64,
    },
    /// One filter of `bits` bits over (item, timestamp) pairs (Eq. (4) [PBF]).
    Pairs {
        /// Its bits.
        bits: u64,
    },
}

/// The hash count among `⌊(m/d)·ln 2⌋` and `⌈(m/d)·ln 2⌉` (at least 1, at most 32) of
/// least FP for `m` bits and `d` expected items (`(1 − e^{−kd/m})^k`).
pub fn best_hashes(bits: u64, items: f64) -> u32 {
    if bits == 0 || !(items > 0.0) {
        return 1;
    }
    let real = (bits as f64 / items * std::f64::consts::LN_2).clamp(1.0, 32.0);
    let fp = |k: f64| (-(-k * items / bits as f64).exp_m1()).powf(k);
    let (lo, hi) = (real.floor(), real.ceil());
    if fp(lo) <= fp(hi) {
        lo as u32
    } else {
        hi as u32
    }
}

/// Per-filter bits and hashes of [`EvenDesign::Tree`] for `pairs` pairs over `layout`.
pub fn even_sizing(layout: &PbfLayout, pairs: u64, per_probe: f64) -> (Vec<u64>, Vec<u32>) {
    let per_pair = -per_probe.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2);
    let tree = layout.tree();
    let horizon = tree.horizon();
    let n = pairs as f64;
    let mut bits = vec![0u64; layout.filters() as usize];
    let mut hashes = vec![1u32; layout.filters() as usize];
    let mut size = |i: usize, items: f64| {
        bits[i] = (per_pair * items).ceil() as u64;
        hashes[i] = best_hashes(bits[i], items);
    };
    match layout.variant() {
        Variant::Pbf2 => (0..layout.levels() as usize).for_each(|l| size(l, n)),
        Variant::Pbf1 => {
            for level in 0..tree.levels() {
                for pos in 0..tree.count(level) {
                    let node = bfopt_models::pbf::Node { level, pos };
                    let (a, b) = tree.span(node);
                    let covered = b.min(horizon).saturating_sub(a) + 1;
                    size(
                        layout.filter_of(node) as usize,
                        n * covered as f64 / horizon as f64,
                    );
                }
            }
            if let Some(f) = layout.fine_filter() {
                size(f as usize, n);
            }
        }
    }
    (bits, hashes)
}

/// The ranges `[s, s + q − 1]` of `layout` with the most probes (no short-circuit; as
/// [`bfopt_models::pbf::max_probes`] counts them): the worst starts of the first period
/// `2^(⌈log2 q⌉+1)` (at least `2g`) and their repeats every period up to `T − q + 1`.
/// Also returns the probe count.
pub fn worst_ranges(layout: &PbfLayout, q: u64) -> (Vec<(u64, u64)>, u64) {
    let tree = layout.tree();
    let horizon = tree.horizon();
    let fine = layout.fine_filter().is_some();
    let count = |s: u64| {
        let mut total = 0u64;
        tree.probes(s, s + q - 1, |p| {
            total += match p {
                bfopt_models::pbf::Probe::Cover { .. } => 1,
                bfopt_models::pbf::Probe::Partial { from, to, .. } => {
                    1 + if fine { to - from + 1 } else { 0 }
                }
            }
        });
        total
    };
    let last = horizon - q + 1;
    let period = (q.next_power_of_two() * 2).max(2 * tree.granularity());
    let first: Vec<(u64, u64)> = (1..=last.min(period)).map(|s| (s, count(s))).collect();
    let most = first.iter().map(|x| x.1).max().unwrap_or(0);
    let mut out = Vec::new();
    for &(s0, _) in first.iter().filter(|x| x.1 == most) {
        let mut s = s0;
        while s <= last {
            if count(s) == most {
                out.push((s, s + q - 1));
            }
            s += period;
        }
    }
    out.sort_unstable();
    (out, most)
}

/// One simulation of an [`EvenDesign`] on `pairs` pairs, each a distinct item at a
/// timestamp uniform in `[1, T]` (distinct items are the worst case for the filters'
/// loads: every level holds all `n` pairs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EvenRunConfig {
    /// The design.
    pub design: EvenDesign,
    /// Horizon `T`.
    pub horizon: u64,
    /// Distinct pairs `n`.
    pub pairs: u64,
    /// Query length `|q|`.
    pub query_length: u64,
    /// Non-member queries per epoch in each workload (worst ranges, random starts).
    pub queries: u64,
    /// Independent epochs (a new trace and filter each).
    pub epochs: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    pub confidence: f64,
}

impl EvenRunConfig {
    /// Bloom-filter insertions per epoch (pairs times the filters each enters).
    pub fn insertions(&self) -> u64 {
        match self.design {
            EvenDesign::Pairs { .. } => self.pairs,
            EvenDesign::Tree {
                variant,
                granularity,
                ..
            } => PbfLayout::new(variant, self.horizon.max(1), granularity).map_or(u64::MAX, |l| {
                l.insertions_per_pair().saturating_mul(self.pairs)
            }),
        }
    }
}

/// What [`simulate_even`] predicted and measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvenRunResult {
    /// Yes answers to non-member queries spread over the worst ranges.
    pub worst: Proportion,
    /// The model's FP of those queries ([`PbfLayout::query_fp`] from each filter's bits,
    /// hashes and actual distinct items), averaged over queries and epochs.
    pub predicted_worst: f64,
    /// Probes of a worst range, and how many such ranges there are.
    pub worst_probes: u64,
    /// Worst ranges queried.
    pub worst_ranges: u64,
    /// Yes answers to non-member queries with uniformly random starts.
    pub random: Proportion,
    /// Their predicted FP ([`mean_query_fp`]), averaged over epochs.
    pub predicted_random: f64,
    /// No answers among member queries (must be 0).
    pub false_negatives: Proportion,
}

/// Runs [`EvenRunConfig`]. For [`EvenDesign::Pairs`] every range of length `|q|` is a
/// worst one (`|q|` probes, Eq. (4) [PBF]): the worst workload is the random one.
///
/// # Errors
/// An invalid horizon, query length, granularity, or sizes.
pub fn simulate_even(cfg: &EvenRunConfig) -> Result<EvenRunResult, ModelError> {
    check::in_range("pairs", cfg.pairs, 1..=1 << 32)?;
    check::in_range("queries", cfg.queries, 1..=10_000_000)?;
    check::in_range("epochs", cfg.epochs, 2..=1_000_000)?;
    check::open_probability("confidence", cfg.confidence)?;
    let (horizon, q) = (cfg.horizon, cfg.query_length);
    check::in_range("query_length", q, 1..=horizon)?;
    let layout = match cfg.design {
        EvenDesign::Tree {
            variant,
            granularity,
            ..
        } => {
            let l = PbfLayout::new(variant, horizon, granularity)?;
            l.check_materialisable()?;
            Some(l)
        }
        EvenDesign::Pairs { .. } => None,
    };
    let (worst_list, worst_probes) = match &layout {
        Some(l) => worst_ranges(l, q),
        None => (Vec::new(), q),
    };
    let sizing = match (&layout, cfg.design) {
        (Some(l), EvenDesign::Tree { per_probe, .. }) => Some(even_sizing(l, cfg.pairs, per_probe)),
        _ => None,
    };
    // Per epoch: (worst yes, worst predicted sum, random yes, random predicted, fn).
    type Tally = (u64, f64, u64, f64, u64, u64);
    let per_epoch: Result<Vec<Tally>, ModelError> =
        crate::sim::run_epochs_fallible(cfg.epochs, cfg.seed, "pbf", |_, seed| {
            let mut r = rng(mix(seed ^ 0x7E1));
            let mut trace: Vec<(u64, u64)> = (0..cfg.pairs)
                .map(|i| (member(seed, i), r.random_range(1..=horizon)))
                .collect();
            trace.sort_by_key(|&(_, t)| t);
            let random = query_workload(horizon, q, cfg.queries, seed, seed ^ 0x51)?;
            let members = member_queries(&trace, q, horizon, seed);
            let worst_key = mix(seed ^ 0x3057);
            match (&layout, &sizing, cfg.design) {
                (
                    Some(layout),
                    Some((bits, hashes)),
                    EvenDesign::Tree {
                        variant,
                        granularity,
                        ..
                    },
                ) => {
                    let mut f = PbfFilter::new(
                        variant,
                        granularity,
                        PbfSizing::Allocated {
                            layout: layout.clone(),
                            bits: bits.clone(),
                            hashes: hashes.clone(),
                        },
                        seed ^ 0x9BF,
                    )?;
                    for (a, t) in distinct_entries(&trace) {
                        f.insert(a, t)?;
                    }
                    let d = bfopt_models::pbf::distinct_counts(layout, &trace)?;
                    let fp: Vec<f64> = (0..d.len())
                        .map(|i| {
                            filter_fp_with_budget(
                                bits[i],
                                hashes[i],
                                d[i] as f64,
                                PREDICTION_BUDGET,
                            )
                        })
                        .collect();
                    let (mut wy, mut wp) = (0u64, 0.0);
                    for j in 0..cfg.queries {
                        let (s, e) = worst_list[(j % worst_list.len() as u64) as usize];
                        wy += u64::from(f.query(probe(worst_key, j), s, e)?);
                        wp += layout.query_fp(s, e, &fp);
                    }
                    let ranges: Vec<(u64, u64)> = random.iter().map(|&(_, s, e)| (s, e)).collect();
                    let rp = mean_query_fp(layout, &ranges, &fp)?;
                    let mut ry = 0u64;
                    for &(x, s, e) in &random {
                        ry += u64::from(f.query(x, s, e)?);
                    }
                    let mut fneg = 0u64;
                    for &(x, s, e) in &members {
                        fneg += u64::from(!f.query(x, s, e)?);
                    }
                    Ok((wy, wp, ry, rp, fneg, members.len() as u64))
                }
                (_, _, EvenDesign::Pairs { bits }) => {
                    let k = best_hashes(bits, cfg.pairs as f64);
                    let mut f = SbfFilter::new(bits, k, seed ^ 0x5B);
                    distinct_entries(&trace).for_each(|(a, t)| f.insert(a, t));
                    let p = fp_sbf(
                        filter_fp_with_budget(bits, k, cfg.pairs as f64, PREDICTION_BUDGET),
                        q,
                    );
                    let ry = random.iter().filter(|&&(x, s, e)| f.query(x, s, e)).count() as u64;
                    let fneg = members
                        .iter()
                        .filter(|&&(x, s, e)| !f.query(x, s, e))
                        .count() as u64;
                    Ok((
                        ry,
                        p * cfg.queries as f64,
                        ry,
                        p,
                        fneg,
                        members.len() as u64,
                    ))
                }
                _ => Err(ModelError::invalid(
                    "design",
                    "tree without a layout",
                    "a PBF design",
                )),
            }
        });
    let per_epoch = per_epoch?;
    let e = cfg.epochs as f64;
    let trials = cfg.queries * cfg.epochs;
    let c = cfg.confidence;
    let worst_yes: Vec<(u64, u64)> = per_epoch.iter().map(|t| (t.0, cfg.queries)).collect();
    let random_yes: Vec<(u64, u64)> = per_epoch.iter().map(|t| (t.2, cfg.queries)).collect();
    Ok(EvenRunResult {
        worst: Proportion::over_epochs(&worst_yes, c),
        predicted_worst: per_epoch.iter().map(|t| t.1).sum::<f64>() / trials as f64,
        worst_probes,
        worst_ranges: worst_list.len().max(1) as u64,
        random: Proportion::over_epochs(&random_yes, c),
        predicted_random: per_epoch.iter().map(|t| t.3).sum::<f64>() / e,
        false_negatives: Proportion::over_epochs(
            &per_epoch.iter().map(|t| (t.4, t.5)).collect::<Vec<_>>(),
            c,
        ),
    })
}

/// Checks of one recommended temporal design ([`simulate_even`]) against `printed`, the
/// FP its row prints:
/// * tree designs: on the worst ranges, the exact FP two-sided ([`TOLERANCE`]) and the
///   printed bound one-sided ([`Check::at_most`]); on random starts the exact FP
///   two-sided; no false negatives;
/// * the pair filter: the exact FP of the built filter (integer `k`) and the printed
///   value (Eq. (4) at the real optimal `k`), both two-sided; no false negatives.
pub fn even_checks(name: &str, printed: f64, cfg: &EvenRunConfig) -> Vec<Check> {
    let seed = cfg.seed;
    let r = match simulate_even(cfg) {
        Ok(r) => r,
        Err(e) => return vec![Check::error("pbf", format!("{name}: {e}"), seed)],
    };
    let c = cfg.confidence;
    let prop = |what: String, predicted: f64, m: &Proportion, tol| {
        Check::of("pbf", format!("{name}: {what}"), predicted, m, tol, seed)
    };
    let fneg = prop(
        "false negatives".into(),
        0.0,
        &r.false_negatives,
        Tolerance::EXACT,
    );
    match cfg.design {
        EvenDesign::Tree { .. } => {
            let w = &r.worst;
            let what = format!(
                "{} worst ranges of {} probes",
                r.worst_ranges, r.worst_probes
            );
            vec![
                prop(format!("{what}: probe fp"), r.predicted_worst, w, TOLERANCE),
                Check::at_most(
                    "pbf",
                    format!("{name}: {what}: fp within the printed bound"),
                    printed,
                    w.rate,
                    (w.interval.lo, w.interval.hi),
                    c,
                    w.trials,
                    seed,
                ),
                prop(
                    "random starts: fp".into(),
                    r.predicted_random,
                    &r.random,
                    TOLERANCE,
                ),
                fneg,
            ]
        }
        EvenDesign::Pairs { .. } => vec![
            prop(
                "random starts: probe fp".into(),
                r.predicted_random,
                &r.random,
                TOLERANCE,
            ),
            prop(
                "random starts: printed fp (real optimal k)".into(),
                printed,
                &r.random,
                TOLERANCE,
            ),
            fneg,
        ],
    }
}
