//! Classic filters: fill to `n`, probe non-members, compare with the model.

use crate::agree::{Check, Tolerance};
use crate::filters::classic::ClassicFilter;
use crate::level::Level;
use crate::sim::run_epochs_fallible;
use crate::stats::{Mean, Proportion};
use crate::workload::{probe, Workload};
use bfopt_models::classic::{ClassicParams, Layout};
use bfopt_models::error::{check, ModelError};
use serde::Serialize;

/// A simulation of a classic filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassicSimConfig {
    /// The filter (bits, hashes, layout) and the distinct items `n` to insert.
    pub params: ClassicParams,
    /// The insertion stream.
    pub workload: Workload,
    /// Independent epochs (a fresh filter and fresh keys each).
    pub epochs: u64,
    /// Non-member probes per epoch.
    pub probes: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the reported intervals.
    pub confidence: f64,
}

impl ClassicSimConfig {
    /// Allowed epochs.
    pub const EPOCHS: std::ops::RangeInclusive<u64> = 2..=1_000_000;
    /// Allowed probes per epoch.
    pub const PROBES: std::ops::RangeInclusive<u64> = 1..=10_000_000_000;

    /// Checks the configuration.
    ///
    /// # Errors
    /// `epochs`, `probes`, `confidence` or the workload out of range.
    pub fn validate(&self) -> Result<(), ModelError> {
        check::in_range("epochs", self.epochs, Self::EPOCHS)?;
        check::in_range("probes", self.probes, Self::PROBES)?;
        check::open_probability("confidence", self.confidence)?;
        self.workload.validate()
    }
}

/// What a classic simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassicSimResult {
    /// False positives among the non-member probes, with an interval that includes the
    /// between-filter variance ([`Proportion::over_epochs`]).
    pub probe_fp: Proportion,
    /// The state-conditional FP (the exact FP given each epoch's bits), with a
    /// Student t interval over epochs.
    pub state_fp: Mean,
    /// Fraction of set bits, over epochs.
    pub fill: Mean,
    /// Mean arrivals per epoch needed to reach `n` distinct items.
    pub arrivals: f64,
}

/// Runs the simulation: per epoch, a fresh filter filled to `n` distinct items from the
/// workload, then `probes` non-member queries.
///
/// # Errors
/// Invalid configuration, or a workload that cannot produce `n` distinct items.
pub fn simulate(cfg: &ClassicSimConfig) -> Result<ClassicSimResult, ModelError> {
    cfg.validate()?;
    let p = cfg.params;
    let per_epoch = run_epochs_fallible(cfg.epochs, cfg.seed, "classic", |_, seed| {
        let mut filter = ClassicFilter::new(&p, seed);
        let arrivals = cfg
            .workload
            .fill(p.n(), seed, |key| filter.insert_u64(key))?;
        let fps = (0..cfg.probes)
            .filter(|&i| filter.contains_u64(probe(seed, i)))
            .count() as u64;
        Ok((fps, filter.state_fp(), filter.fill(), arrivals))
    });
    let per_epoch: Vec<(u64, f64, f64, u64)> = per_epoch?;
    let probes: Vec<(u64, u64)> = per_epoch.iter().map(|e| (e.0, cfg.probes)).collect();
    let state: Vec<f64> = per_epoch.iter().map(|e| e.1).collect();
    let fill: Vec<f64> = per_epoch.iter().map(|e| e.2).collect();
    let arrivals = per_epoch.iter().map(|e| e.3 as f64).sum::<f64>() / cfg.epochs as f64;
    Ok(ClassicSimResult {
        probe_fp: Proportion::over_epochs(&probes, cfg.confidence),
        state_fp: Mean::new(&state, cfg.confidence),
        fill: Mean::new(&fill, cfg.confidence),
        arrivals,
    })
}

/// The prediction a simulation is checked against: the exact FP where computable
/// (standard: occupancy law; blocked: its load mixture; partitioned: exact closed
/// form), with the tolerance that goes with it.
pub fn prediction(params: &ClassicParams) -> (f64, Tolerance) {
    let metrics = params.metrics();
    match metrics.fp_exact {
        Some(exact) => (exact, Tolerance::EXACT),
        None => (
            metrics.fp,
            Tolerance::approx(
                0.01,
                "independent-bits formula: under 1% from the exact law for m >= 1000",
            ),
        ),
    }
}

/// The classic checks of the validate suite: three layouts at three loads, probe FP and
/// state-conditional FP against the model, and fill.
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (m, epochs, probes) = match level {
        Level::Quick => (1u64 << 14, 8, 25_000),
        Level::Full => (1u64 << 20, 32, 1_000_000),
    };
    let k = 6u32;
    let layouts = [
        Layout::Standard,
        Layout::Partitioned,
        Layout::Blocked { block_bits: 512 },
    ];
    let mut out = Vec::new();
    for (li, layout) in layouts.into_iter().enumerate() {
        for (qi, load) in [0.5, 1.0, 2.0].into_iter().enumerate() {
            // load 1.0 is the half-fill capacity n = m·ln2/k.
            let n = (load * m as f64 * std::f64::consts::LN_2 / f64::from(k)) as u64;
            let params = ClassicParams::new(m, k, n, layout).expect("valid by construction");
            let case_seed = seed + (li * 3 + qi) as u64;
            let cfg = ClassicSimConfig {
                params,
                workload: Workload::Distinct,
                epochs,
                probes,
                seed: case_seed,
                confidence,
            };
            let name = |what: &str| format!("{} m={m} k={k} n={n}: {what}", layout.name());
            let r = match simulate(&cfg) {
                Ok(r) => r,
                Err(e) => {
                    out.push(Check::error("classic", name(&e.to_string()), case_seed));
                    continue;
                }
            };
            out.extend(compare(&name(""), &params, &r, confidence, case_seed));
        }
    }
    out.extend(low_fp_checks(level, seed + 100, confidence));
    out
}

/// Checks of one simulation against the model: probe FP and state-conditional FP
/// against [`prediction`], fill against [`ClassicParams::fill`]. `name` prefixes each
/// check's name.
pub fn compare(
    name: &str,
    params: &ClassicParams,
    r: &ClassicSimResult,
    confidence: f64,
    seed: u64,
) -> Vec<Check> {
    let (fp, tol) = prediction(params);
    let check = |what: &str, predicted: f64, m: &Mean, tol| {
        Check::new(
            "classic",
            format!("{name}{what}"),
            predicted,
            m.mean,
            (m.interval.lo, m.interval.hi),
            confidence,
            tol,
            m.samples,
            seed,
        )
    };
    let pf = &r.probe_fp;
    vec![
        Check::new(
            "classic",
            format!("{name}probe fp"),
            fp,
            pf.rate,
            (pf.interval.lo, pf.interval.hi),
            confidence,
            tol,
            pf.trials,
            seed,
        ),
        check("state fp", fp, &r.state_fp, tol),
        check("fill", params.fill(), &r.fill, Tolerance::EXACT),
    ]
}

/// FP rates far below what probing resolves (about 1e-9 and 1e-12), validated through
/// the state-conditional FP: the exact FP given each epoch's bits, averaged over epochs.
fn low_fp_checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (m, epochs) = match level {
        Level::Quick => (1u64 << 16, 16),
        Level::Full => (1u64 << 22, 64),
    };
    let cases = [
        (Layout::Partitioned, 30u32, 0.5),
        (Layout::Standard, 40, 0.5),
    ];
    cases
        .into_iter()
        .enumerate()
        .map(|(i, (layout, k, load))| {
            let n = (load * m as f64 * std::f64::consts::LN_2 / f64::from(k)) as u64;
            let params = ClassicParams::new(m, k, n, layout).expect("valid by construction");
            let case_seed = seed + i as u64;
            let cfg = ClassicSimConfig {
                params,
                workload: Workload::Distinct,
                epochs,
                probes: 1,
                seed: case_seed,
                confidence,
            };
            let name = format!("{} m={m} k={k} n={n}: state fp (low)", layout.name());
            let (fp, tol) = prediction(&params);
            match simulate(&cfg) {
                Ok(r) => {
                    let sf = &r.state_fp;
                    Check::new(
                        "classic",
                        name,
                        fp,
                        sf.mean,
                        (sf.interval.lo, sf.interval.hi),
                        confidence,
                        tol,
                        sf.samples,
                        case_seed,
                    )
                }
                Err(e) => Check::new(
                    "classic",
                    format!("{name}: error: {e}"),
                    fp,
                    f64::NAN,
                    (f64::NAN, f64::NAN),
                    confidence,
                    tol,
                    0,
                    case_seed,
                ),
            }
        })
        .collect()
}
