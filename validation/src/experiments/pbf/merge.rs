//! Merging two consecutive partitions' PBFs, predicted against measured (Section 6,
//! Appendix D.3 [PBF]).

use super::run::{exact_learned, filled_pbf, misses};
use super::workload::member_queries;
use super::{plan, query_workload, Method, TraceSpec, PREDICTION_BUDGET};
use crate::filters::pbf::PbfFilter;
use crate::stats::Proportion;
use crate::workload::mix;
use bfopt_models::error::{check, ModelError};
use bfopt_models::pbf::{
    hashes_for, mean_query_fp, AllocationProblem, MergedShape, PbfLayout, Variant,
};
use serde::Serialize;

/// A merge of two consecutive partitions (Section 6, Appendix D.3 [PBF]): partition A is
/// one synthetic day with the optimal allocation of `bits`; partition B is another day
/// (other clients) whose filters have `size_ratio` times A's bits and hash counts
/// `⌈(m_i/d_i)·ln 2⌉` from B's own distinct counts. B's PBF is merged into A's
/// ([`PbfFilter::merge`]: OR where the sizes agree, the gcd fold where they differ).
///
/// The optimum gives no bits to a filter that is empty in A (`d_i = 0`). After the merge
/// such a filter holds B's items and, having no bits, answers yes: the merged PBF-1 FP
/// is high (about 0.5 at 60 bits per pair of A on the quick EDGAR day), and the model
/// ([`MergedShape::fp`]) predicts it. Partitions meant to be merged should give every
/// filter bits (as the online plans do, which count at least one item per filter).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeRunConfig {
    /// The synthetic day of both partitions.
    pub spec: TraceSpec,
    /// PBF-1 or PBF-2.
    pub variant: Variant,
    /// Bits of partition A.
    pub bits: u64,
    /// B's bits per filter as a multiple of A's (1: same sizes, plain OR).
    pub size_ratio: u64,
    /// Query length `|q|`.
    pub query_length: u64,
    /// Test queries.
    pub queries: u64,
    /// PBF-1 leaf granularity.
    pub granularity: u64,
    /// Hash-count cap.
    pub k_max: u32,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the measured interval.
    pub confidence: f64,
}

/// What a merge run predicted and measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct MergeRunResult {
    /// Partition A's PBF alone, measured on the test queries.
    pub before: Proportion,
    /// Predicted FP of the merged PBF: per filter [`MergedShape::fp`] at
    /// `k_A·d_A + k_B·d_B` throws, averaged over the workload by the route-exact
    /// [`PbfLayout::query_fp`].
    pub predicted_fp: f64,
    /// The merged PBF, measured.
    pub measured: Proportion,
    /// Filters whose two sizes differed (folded to the gcd).
    pub folded_filters: u64,
    /// Member queries of both partitions asked of the merged PBF.
    pub member_queries: u64,
    /// Of them, answered no (must be 0).
    pub false_negatives: u64,
}

/// Runs one merge (see [`MergeRunConfig`]).
///
/// # Errors
/// An invalid configuration.
pub fn merge_run(cfg: &MergeRunConfig) -> Result<MergeRunResult, ModelError> {
    check::in_range("size_ratio", cfg.size_ratio, 1..=1 << 20)?;
    check::in_range("bits", cfg.bits, AllocationProblem::BITS)?;
    check::in_range("queries", cfg.queries, 1..=10_000_000)?;
    check::open_probability("confidence", cfg.confidence)?;
    let horizon = cfg.spec.horizon;
    let g = if cfg.variant == Variant::Pbf1 {
        cfg.granularity
    } else {
        1
    };
    let layout = PbfLayout::new(cfg.variant, horizon, g)?;
    let trace_a = cfg.spec.generate(cfg.seed)?;
    let trace_b = cfg.spec.generate(mix(cfg.seed ^ 0xB0B))?;
    let queries = query_workload(
        horizon,
        cfg.query_length,
        cfg.queries,
        cfg.seed,
        cfg.seed ^ 0x51,
    )?;
    let ranges: Vec<(u64, u64)> = queries.iter().map(|&(_, s, e)| (s, e)).collect();
    let d_a = bfopt_models::pbf::distinct_counts(&layout, &trace_a)?;
    let learned = exact_learned(&layout, &d_a, &ranges)?;
    let alloc = plan(
        &layout,
        cfg.bits,
        &learned,
        Method::Opt(cfg.variant),
        cfg.k_max,
    )?;
    let d_b = bfopt_models::pbf::distinct_counts(&layout, &trace_b)?;
    let bits_b: Vec<u64> = alloc
        .bits_rounded
        .iter()
        .map(|&b| b.saturating_mul(cfg.size_ratio))
        .collect();
    let hashes_b: Vec<u32> = bits_b
        .iter()
        .zip(&d_b)
        .map(|(&b, &d)| hashes_for(b, d as f64, cfg.k_max))
        .collect();
    let build = |bits: Vec<u64>, hashes: Vec<u32>, trace: &[(u64, u64)]| {
        filled_pbf(cfg.variant, g, &layout, bits, hashes, cfg.seed, trace)
    };
    let mut merged = build(alloc.bits_rounded.clone(), alloc.hashes.clone(), &trace_a)?;
    let count_yes = |f: &PbfFilter| -> Result<u64, ModelError> {
        let mut yes = 0;
        for &(x, s, e) in &queries {
            yes += u64::from(f.query(x, s, e)?);
        }
        Ok(yes)
    };
    let before = Proportion::new(count_yes(&merged)?, cfg.queries, cfg.confidence);
    merged.merge(&build(bits_b.clone(), hashes_b.clone(), &trace_b)?)?;
    let mut folded = 0;
    let fp: Vec<f64> = (0..d_a.len())
        .map(|i| {
            let (ma, ka, mb, kb) = (
                alloc.bits_rounded[i],
                alloc.hashes[i],
                bits_b[i],
                hashes_b[i],
            );
            folded += u64::from(ma != mb);
            let shape = MergedShape::of(ma, ka, mb, kb)?;
            let throws = u64::from(ka) * d_a[i] + u64::from(kb) * d_b[i];
            Ok(shape.fp(d_a[i] + d_b[i], throws, PREDICTION_BUDGET))
        })
        .collect::<Result<_, ModelError>>()?;
    let predicted_fp = mean_query_fp(&layout, &ranges, &fp)?;
    let measured = Proportion::new(count_yes(&merged)?, cfg.queries, cfg.confidence);
    let mut members = member_queries(&trace_a, cfg.query_length, horizon, cfg.seed);
    members.extend(member_queries(
        &trace_b,
        cfg.query_length,
        horizon,
        cfg.seed ^ 1,
    ));
    let false_negatives = misses(&merged, &members)?;
    Ok(MergeRunResult {
        before,
        predicted_fp,
        measured,
        folded_filters: folded,
        member_queries: members.len() as u64,
        false_negatives,
    })
}
