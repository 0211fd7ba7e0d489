//! The hand-built window baselines: stream distinct items through a reference
//! [`RotatingFilter`] or [`FingerprintQueue`], query the whole window (no false negative
//! allowed) and probe non-members at the worst moment (every filter of the ring full;
//! a queue of distinct items), against [`bfopt_models::baseline`].

use crate::agree::{Check, Tolerance};
use crate::filters::baseline::{FingerprintQueue, RotatingFilter};
use crate::filters::WindowFilter;
use crate::level::Level;
use crate::sim::run_epochs;
use crate::stats::Proportion;
use crate::workload::{member, probe};
use bfopt_models::baseline::{
    fingerprint_queue::design_fingerprint_queue, rotating::design_rotating, FingerprintQueueDesign,
    FingerprintQueueRequirement, RotatingDesign, RotatingRequirement,
};
use bfopt_models::classic::Layout;
use serde::Serialize;

/// What a window simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowSimResult {
    /// False positives among non-member probes at the measured moment.
    pub probe_fp: Proportion,
    /// Window items reported absent (must be 0 for these designs).
    pub false_negatives: u64,
    /// Window items queried.
    pub window_queries: u64,
}

/// Per epoch: a fresh filter from `make(seed)`, `insertions` distinct keys, the last
/// `window` of them queried, then `probes` non-member probes.
pub fn simulate_window<F: WindowFilter>(
    make: impl Fn(u64) -> F + Sync,
    insertions: u64,
    window: u64,
    (epochs, probes, seed, confidence): (u64, u64, u64, f64),
    label: &str,
) -> WindowSimResult {
    let per_epoch = run_epochs(epochs, seed, label, |_, s| {
        let mut f = make(s);
        (0..insertions).for_each(|i| f.insert_u64(member(s, i)));
        let missed = (insertions.saturating_sub(window)..insertions)
            .filter(|&i| !f.contains_u64(member(s, i)))
            .count() as u64;
        let fps = (0..probes).filter(|&i| f.contains_u64(probe(s, i))).count() as u64;
        (fps, missed)
    });
    WindowSimResult {
        probe_fp: Proportion::over_epochs(
            &per_epoch.iter().map(|e| (e.0, probes)).collect::<Vec<_>>(),
            confidence,
        ),
        false_negatives: per_epoch.iter().map(|e| e.1).sum(),
        window_queries: window.min(insertions) * epochs,
    }
}

/// A ring sized by [`design_rotating`], run to the moment just before a rotation after
/// a full cycle (`(r+1)·g` insertions), when every filter holds `g` items.
pub fn simulate_rotating(
    d: &RotatingDesign,
    window: u64,
    sim: (u64, u64, u64, f64),
) -> WindowSimResult {
    let p = d.per_filter.params;
    let make = |s| RotatingFilter::new(d.filters, p.m(), p.k(), p.layout(), d.generation, s);
    let insertions = (u64::from(d.filters) + 1) * d.generation;
    simulate_window(make, insertions, window, sim, "rotating")
}

/// A queue sized by [`design_fingerprint_queue`], after `1.5·W` distinct insertions (so
/// expiry has run) with a window of distinct items.
pub fn simulate_fingerprint_queue(
    d: &FingerprintQueueDesign,
    window: u64,
    sim: (u64, u64, u64, f64),
) -> WindowSimResult {
    let make = |s| FingerprintQueue::new(window as usize, d.fingerprint_bits, s);
    simulate_window(make, window + window / 2, window, sim, "fingerprint-queue")
}

/// Checks of one window simulation: probe FP against `predicted`, and the window's
/// false negatives (must be none).
pub fn compare(
    name: &str,
    predicted: f64,
    r: &WindowSimResult,
    confidence: f64,
    seed: u64,
) -> Vec<Check> {
    let pf = &r.probe_fp;
    vec![
        Check::new(
            "baseline",
            format!("{name}: probe fp"),
            predicted,
            pf.rate,
            (pf.interval.lo, pf.interval.hi),
            confidence,
            Tolerance::approx(
                0.01,
                "union of r filters treated as independent; shared indices add O(k²/m)",
            ),
            pf.trials,
            seed,
        ),
        Check::new(
            "baseline",
            format!("{name}: window false negatives"),
            0.0,
            r.false_negatives as f64,
            // A count, not an estimate: the check passes only when it is 0.
            (r.false_negatives as f64, r.false_negatives as f64),
            confidence,
            Tolerance::EXACT,
            r.window_queries,
            seed,
        ),
    ]
}

/// The baseline checks of the validate suite: for each design, probe FP against the
/// model and the count of false negatives in the window (predicted 0).
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (window, epochs, probes) = match level {
        Level::Quick => (20_000u64, 8u64, 25_000u64),
        Level::Full => (1_000_000, 16, 500_000),
    };
    let fp = 0.02;
    let mut out = Vec::new();
    let mut push = |name: String, predicted: f64, r: &WindowSimResult, case_seed: u64| {
        out.extend(compare(&name, predicted, r, confidence, case_seed));
    };
    for (i, layout) in [Layout::Standard, Layout::Blocked { block_bits: 512 }]
        .into_iter()
        .enumerate()
    {
        let case_seed = seed + i as u64;
        let req = RotatingRequirement::new(fp, window, layout).expect("valid by construction");
        for filters in [2, 4] {
            let d = req.design_with(filters).expect("sizable");
            let r = simulate_rotating(&d, window, (epochs, probes, case_seed, confidence));
            let name = format!(
                "rotating/{} W={window} r={filters} m={} k={}",
                layout.name(),
                d.per_filter.params.m(),
                d.per_filter.params.k()
            );
            push(name, d.fp, &r, case_seed);
        }
        let best = design_rotating(&req).expect("sizable");
        let r = simulate_rotating(&best, window, (epochs, probes, case_seed + 10, confidence));
        push(
            format!(
                "rotating/{} W={window} best r={}",
                layout.name(),
                best.filters
            ),
            best.fp,
            &r,
            case_seed + 10,
        );
    }
    let case_seed = seed + 20;
    let req = FingerprintQueueRequirement::new(fp, window).expect("valid by construction");
    let d = design_fingerprint_queue(&req).expect("sizable");
    let r = simulate_fingerprint_queue(&d, window, (epochs, probes, case_seed, confidence));
    push(
        format!("fingerprint-queue W={window} b={}", d.fingerprint_bits),
        d.fp,
        &r,
        case_seed,
    );
    out
}
