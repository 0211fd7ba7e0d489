//! The PBF checks of the validate suite.

use super::{
    merge_run, run, MergeRunConfig, Method, OnlineInputs, PbfRunConfig, TraceSpec, TOLERANCE,
};
use crate::agree::{Check, Estimate, Tolerance};
use crate::level::Level;
use crate::stats::Proportion;
use bfopt_models::pbf::Variant;

/// The PBF checks of the validate suite: both synthetic days, the seven methods, at 20
/// bits per distinct pair and `|q| = 128`; predicted against measured FP and no false
/// negatives; and two merges of consecutive partitions ([`merge_run`]).
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (scale, queries) = match level {
        Level::Quick => (0.02, 4000),
        Level::Full => (1.0, 10_000),
    };
    let methods = [
        Method::Sbf,
        Method::Uniform(Variant::Pbf1),
        Method::Uniform(Variant::Pbf2),
        Method::Opt(Variant::Pbf1),
        Method::Opt(Variant::Pbf2),
        Method::Online(Variant::Pbf1),
        Method::Online(Variant::Pbf2),
    ];
    let mut out = Vec::new();
    for (di, spec) in [TraceSpec::edgar(scale), TraceSpec::network(scale)]
        .into_iter()
        .enumerate()
    {
        let bits = 20 * spec.pairs;
        for (mi, method) in methods.iter().enumerate() {
            let case_seed = seed + (di * 10 + mi) as u64;
            let cfg = PbfRunConfig {
                spec,
                horizon: None,
                method: *method,
                bits,
                query_length: 128,
                queries,
                granularity: 4,
                k_max: 16,
                seed: case_seed,
                confidence,
                online: OnlineInputs::default(),
            };
            let name = format!("{} {} m={bits} |q|=128", spec.name, method.name());
            match crate::sim::run_whole("pbf run", case_seed, || run(&cfg)) {
                Ok(r) => {
                    let no_fn = *method == Method::Sbf || matches!(method, Method::Opt(_));
                    let fnr = no_fn.then_some((r.false_negatives, r.member_queries));
                    out.extend(fp_and_fn(
                        &name,
                        r.predicted_fp,
                        &r.measured,
                        fnr,
                        case_seed,
                    ));
                }
                Err(e) => out.push(Check::error("pbf", format!("{name}: {e}"), case_seed)),
            }
        }
    }
    // Merging two partitions (Section 6, Appendix D.3): B's filters twice A's size (the
    // gcd fold), 60 bits per pair of A (the merged filters carry both days); predicted
    // against measured FP of the merged PBF, no false negatives.
    let spec = TraceSpec::edgar(scale);
    for (i, (variant, ratio)) in [(Variant::Pbf1, 2), (Variant::Pbf2, 2)]
        .into_iter()
        .enumerate()
    {
        let case_seed = seed + 100 + i as u64;
        let cfg = MergeRunConfig {
            spec,
            variant,
            bits: 60 * spec.pairs,
            size_ratio: ratio,
            query_length: 128,
            queries,
            granularity: 4,
            k_max: 16,
            seed: case_seed,
            confidence,
        };
        let v = Method::Opt(variant).name();
        let name = format!("{} merge {v} with {ratio}x sizes |q|=128", spec.name);
        match crate::sim::run_whole("pbf merge", cfg.seed, || merge_run(&cfg)) {
            Ok(r) => out.extend(fp_and_fn(
                &name,
                r.predicted_fp,
                &r.measured,
                Some((r.false_negatives, r.member_queries)),
                case_seed,
            )),
            Err(e) => out.push(Check::error("pbf", format!("{name}: {e}"), case_seed)),
        }
    }
    out
}

/// The checks of one PBF run: predicted against measured FP, and, given `(false
/// negatives, member queries)`, no false negative (at the FP estimate's confidence).
fn fp_and_fn(
    name: &str,
    predicted_fp: f64,
    measured: &Proportion,
    false_negatives: Option<(u64, u64)>,
    seed: u64,
) -> Vec<Check> {
    let mut out = vec![Check::of(
        "pbf",
        format!("{name}: fp"),
        predicted_fp,
        measured,
        TOLERANCE,
        seed,
    )];
    if let Some((misses, members)) = false_negatives {
        let fnr = Proportion::new(misses, members, measured.confidence());
        out.push(Check::of(
            "pbf",
            format!("{name}: false negatives"),
            0.0,
            &fnr,
            Tolerance::EXACT,
            seed,
        ));
    }
    out
}
