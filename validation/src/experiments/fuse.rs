//! Binary fuse filters (`xorf`): FP measured against `2^−f`, slot count against the
//! sizing rule.

use crate::agree::{Check, Tolerance};
use crate::filters::fuse::FuseFilter;
use crate::level::Level;
use crate::sim::run_epochs_fallible;
use crate::stats::Proportion;
use crate::workload::{member, probe};
use bfopt_models::error::{check, ModelError};
use bfopt_models::fuse::FuseParams;
use serde::Serialize;

/// A simulation of a binary fuse filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FuseSimConfig {
    /// The filter (keys `n`, fingerprint bits `f`).
    pub params: FuseParams,
    /// Independent epochs (fresh keys each).
    pub epochs: u64,
    /// Non-member probes per epoch.
    pub probes: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the reported intervals.
    pub confidence: f64,
}

/// What a binary fuse simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FuseSimResult {
    /// False positives among the probes (interval over epochs).
    pub probe_fp: Proportion,
    /// `fingerprints.len()` of the built filters (the same in every epoch).
    pub slots: u64,
    /// False negatives among the keys (must be 0).
    pub false_negatives: u64,
}

/// Runs the simulation: per epoch, `n` fresh distinct keys, one `xorf` build, `probes`
/// non-member queries.
///
/// # Errors
/// Invalid configuration or a failed build.
pub fn simulate(cfg: &FuseSimConfig) -> Result<FuseSimResult, ModelError> {
    check::in_range("epochs", cfg.epochs, 2..=1_000_000)?;
    check::in_range("probes", cfg.probes, 1..=10_000_000_000)?;
    check::open_probability("confidence", cfg.confidence)?;
    let p = cfg.params;
    let per_epoch = run_epochs_fallible(cfg.epochs, cfg.seed, "fuse", |_, seed| {
        let keys: Vec<u64> = (0..p.n()).map(|i| member(seed, i)).collect();
        let filter = FuseFilter::for_params(&p, &keys)?;
        let fns = keys.iter().filter(|&&k| !filter.contains_u64(k)).count() as u64;
        let fps = (0..cfg.probes)
            .filter(|&i| filter.contains_u64(probe(seed, i)))
            .count() as u64;
        Ok((fps, filter.slots(), fns))
    });
    let per_epoch: Vec<(u64, u64, u64)> = per_epoch?;
    let probes: Vec<(u64, u64)> = per_epoch.iter().map(|e| (e.0, cfg.probes)).collect();
    Ok(FuseSimResult {
        probe_fp: Proportion::over_epochs(&probes, cfg.confidence),
        slots: per_epoch[0].1,
        false_negatives: per_epoch.iter().map(|e| e.2).sum(),
    })
}

/// The binary fuse checks of the validate suite: FP at 8 and 16 bits, slot counts.
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (scale, epochs, probes) = match level {
        Level::Quick => (1u64, 4, 1_000_000),
        Level::Full => (10, 16, 10_000_000),
    };
    let mut out = Vec::new();
    for (ci, (n, f)) in [(20_000, 8), (100_000, 8), (20_000, 16)]
        .into_iter()
        .enumerate()
    {
        let n = n * scale;
        let params = FuseParams::new(n, f).expect("valid by construction");
        let case_seed = seed + ci as u64;
        let name = format!("n={n} f={f}: ");
        let cfg = FuseSimConfig {
            params,
            epochs,
            probes,
            seed: case_seed,
            confidence,
        };
        let r = match simulate(&cfg) {
            Ok(r) => r,
            Err(e) => {
                out.push(Check::error("fuse", name + &e.to_string(), case_seed));
                continue;
            }
        };
        out.extend(compare(&name, &params, &r, case_seed));
    }
    out
}

/// Checks of one simulation: probe FP against `2^−f`, xorf's slot count against
/// [`bfopt_models::fuse::FuseLayout::of`], no false negatives.
pub fn compare(name: &str, params: &FuseParams, r: &FuseSimResult, seed: u64) -> Vec<Check> {
    let exact = |what: &str, predicted: f64, measured: f64| {
        Check::deterministic(
            "fuse",
            format!("{name}{what}"),
            predicted,
            measured,
            r.probe_fp.trials,
            seed,
        )
    };
    vec![
        Check::of(
            "fuse",
            format!("{name}probe fp"),
            params.fp(),
            &r.probe_fp,
            Tolerance::EXACT,
            seed,
        ),
        exact(
            "slots (xorf fingerprints.len())",
            params.layout().slots as f64,
            r.slots as f64,
        ),
        exact("false negatives", 0.0, r.false_negatives as f64),
    ]
}
