//! Counting Bloom filters: FP (after deletions too) and counter overflow at small widths.

use crate::agree::{Check, Tolerance};
use crate::experiments::classic::prediction;
use crate::filters::counting::CountingFilter;
use crate::level::Level;
use crate::sim::run_epochs;
use crate::stats::{Mean, Proportion};
use crate::workload::{member, probe};
use bfopt_models::counting::CountingParams;
use bfopt_models::error::{check, ModelError};
use serde::Serialize;

/// A simulation of a counting Bloom filter: insert `n + deleted` items, delete the first
/// `deleted`, probe non-members.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountingSimConfig {
    /// The filter; `n` is the live items at the end.
    pub params: CountingParams,
    /// Items inserted and then deleted before probing.
    pub deleted: u64,
    /// Independent epochs.
    pub epochs: u64,
    /// Non-member probes per epoch.
    pub probes: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the reported intervals.
    pub confidence: f64,
}

/// What a counting simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountingSimResult {
    /// False positives among the probes (interval over epochs).
    pub probe_fp: Proportion,
    /// Counters that overflowed, per epoch.
    pub overflowed: Mean,
    /// Epochs in which some counter overflowed.
    pub any_overflow: Proportion,
    /// False negatives among the live items.
    pub false_negatives: u64,
}

/// Runs the simulation.
///
/// # Errors
/// Invalid configuration.
pub fn simulate(cfg: &CountingSimConfig) -> Result<CountingSimResult, ModelError> {
    check::in_range("epochs", cfg.epochs, 2..=1_000_000)?;
    check::in_range("probes", cfg.probes, 0..=10_000_000_000)?;
    check::open_probability("confidence", cfg.confidence)?;
    let p = cfg.params;
    let total = p.n() + cfg.deleted;
    let per_epoch = run_epochs(cfg.epochs, cfg.seed, "counting", |_, seed| {
        let mut filter = CountingFilter::new(&p, seed);
        (0..total).for_each(|i| filter.insert_u64(member(seed, i)));
        let overflowed = filter.overflowed_counters();
        (0..cfg.deleted).for_each(|i| filter.remove_u64(member(seed, i)));
        let fns = (cfg.deleted..total)
            .filter(|&i| !filter.contains_u64(member(seed, i)))
            .count() as u64;
        let fps = (0..cfg.probes)
            .filter(|&i| filter.contains_u64(probe(seed, i)))
            .count() as u64;
        (fps, overflowed, fns)
    });
    let probes: Vec<(u64, u64)> = per_epoch.iter().map(|e| (e.0, cfg.probes)).collect();
    let overflowed: Vec<f64> = per_epoch.iter().map(|e| e.1 as f64).collect();
    let any = per_epoch.iter().filter(|e| e.1 > 0).count() as u64;
    Ok(CountingSimResult {
        probe_fp: Proportion::over_epochs(&probes, cfg.confidence),
        overflowed: Mean::new(&overflowed, cfg.confidence),
        any_overflow: Proportion::new(any, cfg.epochs, cfg.confidence),
        false_negatives: per_epoch.iter().map(|e| e.2).sum(),
    })
}

/// The counting checks of the validate suite.
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (m, epochs, probes, many) = match level {
        Level::Quick => (1u64 << 12, 8, 50_000, 400),
        Level::Full => (1 << 16, 32, 1_000_000, 4000),
    };
    let k = 4;
    // (live n per 4096 counters, deleted, c, epochs): FP without and after deletions at
    // 4-bit counters; overflow at 2 bits (load kn/m = 0.68) and 3 bits (load 2.0, and 1.35
    // where the union bound is below 1).
    let cases = [
        (600, 0, 4, epochs),
        (600, 600, 4, epochs),
        (700, 0, 2, epochs),
        (2048, 0, 3, epochs),
        (1380, 0, 3, many),
    ];
    let mut out = Vec::new();
    for (ci, (n, deleted, c, epochs)) in cases.into_iter().enumerate() {
        let scale = m / 4096;
        let (n, deleted) = (n * scale, deleted * scale);
        let params = CountingParams::new(m, k, n, c).expect("valid by construction");
        let case_seed = seed + ci as u64;
        let name = format!("m={m} k={k} n={n} deleted={deleted} c={c}: ");
        let cfg = CountingSimConfig {
            params,
            deleted,
            epochs,
            probes: if c == 4 { probes } else { 1 },
            seed: case_seed,
            confidence,
        };
        let r = match simulate(&cfg) {
            Ok(r) => r,
            Err(e) => {
                out.push(Check::error("counting", name + &e.to_string(), case_seed));
                continue;
            }
        };
        out.extend(compare(&name, &params, deleted, &r, case_seed));
    }
    out
}

/// Checks of one simulation: probe FP against the classic FP when no counter can have
/// overflowed (4-bit and wider cases), the overflowed-counter mean against
/// `m·P(Bin(k(n + deleted), 1/m) ≥ 2^c)` (exact), the probability of any overflow against
/// its union bound (one-sided), and no false negatives.
pub fn compare(
    name: &str,
    params: &CountingParams,
    deleted: u64,
    r: &CountingSimResult,
    seed: u64,
) -> Vec<Check> {
    let peak = CountingParams::new(params.m(), params.k(), params.n() + deleted, params.c())
        .expect("valid peak");
    let x = peak.metrics();
    let mut out = Vec::new();
    if params.c() >= 4 {
        let (fp, tol) = prediction(&params.classic());
        out.push(Check::of(
            "counting",
            format!("{name}probe fp"),
            fp,
            &r.probe_fp,
            tol,
            seed,
        ));
    } else {
        out.push(Check::of(
            "counting",
            format!("{name}overflowed counters"),
            x.expected_overflows,
            &r.overflowed,
            Tolerance::EXACT,
            seed,
        ));
    }
    if x.overflow < 1.0 && params.c() < 4 {
        let a = &r.any_overflow;
        out.push(Check::at_most(
            "counting",
            format!("{name}P(any counter overflows) <= union bound"),
            x.overflow,
            a.rate,
            (a.interval.lo, a.interval.hi),
            a.confidence,
            a.trials,
            seed,
        ));
    }
    out.push(Check::deterministic(
        "counting",
        format!("{name}false negatives"),
        0.0,
        r.false_negatives as f64,
        r.probe_fp.trials,
        seed,
    ));
    out
}
