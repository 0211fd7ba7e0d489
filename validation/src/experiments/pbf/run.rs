//! One allocation run: a synthetic day, a method, a budget and a query length, predicted
//! against measured FP.

use super::trace::distinct_entries;
use super::workload::member_queries;
use super::{
    learn_online_with, noisy_workload, plan, query_workload, Learned, Method, OnlineInputs,
    TraceSpec, PREDICTION_BUDGET,
};
use crate::filters::pbf::{PbfFilter, PbfSizing, SbfFilter};
use crate::stats::Proportion;
use crate::workload::mix;
use bfopt_models::error::{check, ModelError};
use bfopt_models::pbf::{
    filter_fp, filter_fp_with_budget, fine_probes_by_leaf, fp_sbf, hashes_for, mean_query_fp,
    probe_frequencies, Allocation, AllocationProblem, PbfLayout, Variant,
};
use serde::Serialize;

/// One run: a day, a method, a budget, a query length.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PbfRunConfig {
    /// The synthetic day.
    pub spec: TraceSpec,
    /// Use only the first `horizon` seconds (Figure 11 [PBF]); `None`: the whole day.
    pub horizon: Option<u64>,
    /// The method.
    pub method: Method,
    /// Total bits `m`.
    pub bits: u64,
    /// Query length `|q|`.
    pub query_length: u64,
    /// Test queries `|W|`.
    pub queries: u64,
    /// PBF-1 leaf granularity `g` (default 4, Section 7).
    pub granularity: u64,
    /// Hash-count cap `k_max` (16 in Section 7).
    pub k_max: u32,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the measured interval.
    pub confidence: f64,
    /// What the online methods learn from ([`OnlineInputs::default`]: the paper's set-up).
    pub online: OnlineInputs,
}

/// What a run predicted and measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct PbfRunResult {
    /// Mean route-exact FP of the test queries from the built filters' sizes and actual
    /// distinct items (what the measurement is checked against).
    pub predicted_fp: f64,
    /// The allocation's objective at the learned/exact statistics, rounded
    /// (`1 − Π(1 − p_i)^{f_i}`, Eqs. 6/9 form; `None` for SBF).
    pub objective_fp: Option<f64>,
    /// Yes answers among the non-member test queries.
    pub measured: Proportion,
    /// Membership probes per query (short-circuit).
    pub probes_per_query: f64,
    /// Sub-filters of the structure.
    pub filters: u64,
    /// Filters given bits.
    pub filters_with_bits: u64,
    /// Member queries asked (ranges that contain an entry of the item).
    pub member_queries: u64,
    /// Of them, answered no (must be 0).
    pub false_negatives: u64,
    /// Trace entries `N(A)`.
    pub entries: u64,
    /// Distinct pairs `n(A)`.
    pub pairs: u64,
    /// Distinct items `n'(A)`.
    pub items: u64,
}

impl PbfRunConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// Out-of-range bits, queries, confidence, granularity or query length.
    pub fn validate(&self) -> Result<u64, ModelError> {
        check::in_range("bits", self.bits, AllocationProblem::BITS)?;
        check::in_range("queries", self.queries, 1..=10_000_000)?;
        check::open_probability("confidence", self.confidence)?;
        check::in_range("k_max", self.k_max, AllocationProblem::K_MAX)?;
        let horizon = self.horizon.unwrap_or(self.spec.horizon);
        check::in_range("horizon", horizon, 1..=self.spec.horizon)?;
        check::in_range("query_length", self.query_length, 1..=horizon)?;
        PbfLayout::pbf1(horizon, self.granularity)?;
        Ok(horizon)
    }
}

/// A PBF of `variant` (leaf granularity `g`) with the allocation `bits`, `hashes` over
/// `layout`, hashed from `seed`, holding every `(item, timestamp)` of `trace`.
pub(super) fn filled_pbf(
    variant: Variant,
    g: u64,
    layout: &PbfLayout,
    bits: Vec<u64>,
    hashes: Vec<u32>,
    seed: u64,
    trace: &[(u64, u64)],
) -> Result<PbfFilter, ModelError> {
    let mut f = PbfFilter::new(
        variant,
        g,
        PbfSizing::Allocated {
            layout: layout.clone(),
            bits,
            hashes,
        },
        seed ^ 0x9BF,
    )?;
    let entries: Vec<(u64, u64)> = distinct_entries(trace).collect();
    f.insert_all(&entries)?;
    Ok(f)
}

/// Member queries `(x, s, e)` the filter answers no to (false negatives).
pub(super) fn misses(f: &PbfFilter, members: &[(u64, u64, u64)]) -> Result<u64, ModelError> {
    let mut n = 0;
    for &(x, s, e) in members {
        n += u64::from(!f.query(x, s, e)?);
    }
    Ok(n)
}

/// The exact statistics of a trace ("opt", Table 2 [PBF]) from its distinct items per
/// filter `distinct` ([`bfopt_models::pbf::distinct_counts`], which the caller also needs
/// for the prediction: counted once) and the test ranges: what
/// [`bfopt_models::pbf::workload_stats`] gives.
pub(super) fn exact_learned(
    layout: &PbfLayout,
    distinct: &[u64],
    test: &[(u64, u64)],
) -> Result<Learned, ModelError> {
    Ok(Learned {
        distinct: distinct.iter().map(|&d| d as f64).collect(),
        frequency: probe_frequencies(layout, test)?,
        fine_by_leaf: fine_probes_by_leaf(layout, test)?,
    })
}

/// Builds the filter's allocation for a method; `actual`: the trace's distinct items
/// per filter.
fn allocate(
    cfg: &PbfRunConfig,
    layout: &PbfLayout,
    trace: &[(u64, u64)],
    actual: &[u64],
    test: &[(u64, u64)],
    previous: impl FnOnce() -> Result<Vec<(u64, u64)>, ModelError>,
) -> Result<Allocation, ModelError> {
    let learned = match cfg.method {
        Method::Online(_) => {
            let prev = if cfg.online.same_day {
                trace.to_vec()
            } else {
                previous()?
            };
            let training = noisy_workload(
                &test.iter().map(|&(s, e)| (0, s, e)).collect::<Vec<_>>(),
                layout.tree().horizon(),
                cfg.seed ^ 0x7A1,
            );
            learn_online_with(layout, &prev, &training, cfg.seed, cfg.online)?
        }
        _ => exact_learned(layout, actual, test)?,
    };
    plan(layout, cfg.bits, &learned, cfg.method, cfg.k_max)
}

/// Runs one configuration.
///
/// # Errors
/// An invalid configuration.
pub fn run(cfg: &PbfRunConfig) -> Result<PbfRunResult, ModelError> {
    let horizon = cfg.validate()?;
    let trace_seed = cfg.seed;
    let trace: Vec<(u64, u64)> = cfg
        .spec
        .generate(trace_seed)?
        .into_iter()
        .filter(|&(_, t)| t <= horizon)
        .collect();
    let queries = query_workload(
        horizon,
        cfg.query_length,
        cfg.queries,
        trace_seed,
        cfg.seed ^ 0x51,
    )?;
    let ranges: Vec<(u64, u64)> = queries.iter().map(|&(_, s, e)| (s, e)).collect();
    let pairs = bfopt_models::pbf::distinct_pairs(&trace);
    let mut items: Vec<u64> = trace.iter().map(|p| p.0).collect();
    items.dedup(); // an entry's adjacent copies, before the sort
    items.sort_unstable();
    items.dedup();
    let members = member_queries(&trace, cfg.query_length, horizon, cfg.seed);
    let (predicted_fp, objective_fp, yes, probes, filters, with_bits, false_negatives) =
        match cfg.method {
            Method::Sbf => {
                let k = hashes_for(cfg.bits, pairs as f64, cfg.k_max);
                let mut f = SbfFilter::new(cfg.bits, k, cfg.seed ^ 0x5B);
                distinct_entries(&trace).for_each(|(a, t)| f.insert(a, t));
                let p = fp_sbf(filter_fp(cfg.bits, k, pairs as f64), cfg.query_length);
                let (mut yes, mut probes) = (0, 0);
                for &(x, s, e) in &queries {
                    let (hit, n) = f.query_counting(x, s, e);
                    yes += u64::from(hit);
                    probes += n;
                }
                let fneg = members
                    .iter()
                    .filter(|&&(x, s, e)| !f.query(x, s, e))
                    .count();
                (p, None, yes, probes, 1, 1, fneg as u64)
            }
            Method::Uniform(v) | Method::Opt(v) | Method::Online(v) => {
                let g = if v == Variant::Pbf1 {
                    cfg.granularity
                } else {
                    1
                };
                let layout = PbfLayout::new(v, horizon, g)?;
                let actual = bfopt_models::pbf::distinct_counts(&layout, &trace)?;
                let alloc = allocate(cfg, &layout, &trace, &actual, &ranges, || {
                    Ok(cfg
                        .spec
                        .generate(mix(trace_seed ^ 0x9E3))?
                        .into_iter()
                        .filter(|&(_, t)| t <= horizon)
                        .collect())
                })?;
                let fp: Vec<f64> = (0..actual.len())
                    .map(|i| {
                        filter_fp_with_budget(
                            alloc.bits_rounded[i],
                            alloc.hashes[i],
                            actual[i] as f64,
                            PREDICTION_BUDGET,
                        )
                    })
                    .collect();
                let predicted = mean_query_fp(&layout, &ranges, &fp)?;
                let f = filled_pbf(
                    v,
                    g,
                    &layout,
                    alloc.bits_rounded.clone(),
                    alloc.hashes.clone(),
                    cfg.seed,
                    &trace,
                )?;
                let (mut yes, mut probes) = (0, 0);
                for &(x, s, e) in &queries {
                    let (hit, n) = f.query_counting(x, s, e)?;
                    yes += u64::from(hit);
                    probes += n;
                }
                let fneg = misses(&f, &members)?;
                let with_bits = alloc.bits_rounded.iter().filter(|&&b| b > 0).count() as u64;
                (
                    predicted,
                    Some(alloc.fp_rounded),
                    yes,
                    probes,
                    layout.filters(),
                    with_bits,
                    fneg,
                )
            }
        };
    Ok(PbfRunResult {
        predicted_fp,
        objective_fp,
        measured: Proportion::new(yes, cfg.queries, cfg.confidence),
        probes_per_query: probes as f64 / cfg.queries as f64,
        filters,
        filters_with_bits: with_bits,
        member_queries: members.len() as u64,
        false_negatives,
        entries: trace.len() as u64,
        pairs,
        items: items.len() as u64,
    })
}
