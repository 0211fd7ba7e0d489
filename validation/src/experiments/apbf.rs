//! APBF / APBBF: run a stream through the reference filter, measure the FP along the
//! generation (the saw-tooth of Figure 6 [APBF]), the worst case just before a shift,
//! memory accesses, and that no item of the window is ever missed; compare with the
//! model.
//!
//! All FP predictions here are exact for ideal hashing (the fills of different slices
//! are independent and `F` is multilinear in them), so checks use
//! [`Tolerance::EXACT`]: only sampling error is allowed.

use crate::agree::{Check, Tolerance};
use crate::filters::apbf::ApbfFilter;
use crate::level::Level;
use crate::sim::{run_epochs, run_epochs_fallible};
use crate::stats::{Mean, Proportion};
use crate::workload::{probe, Workload};
use bfopt_models::apbf::{
    consecutive_match, query_accesses, window_accesses, ApbbfParams, ApbfParams, WindowDuplicates,
};
use bfopt_models::error::{check, ModelError};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The structure simulated (sized).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "structure", rename_all = "snake_case")]
pub enum ApbfSimFilter {
    /// An APBF.
    Apbf(ApbfParams),
    /// An APBBF.
    Apbbf(ApbbfParams),
}

impl ApbfSimFilter {
    fn k(&self) -> u32 {
        match self {
            ApbfSimFilter::Apbf(p) => p.k(),
            ApbfSimFilter::Apbbf(p) => p.k(),
        }
    }
    fn l(&self) -> u32 {
        match self {
            ApbfSimFilter::Apbf(p) => p.l(),
            ApbfSimFilter::Apbbf(p) => p.l(),
        }
    }
    fn generation(&self) -> Option<u64> {
        match self {
            ApbfSimFilter::Apbf(p) => p.sizing().map(|s| s.generation),
            ApbfSimFilter::Apbbf(p) => p.sizing().map(|s| s.generation),
        }
    }
    fn build(&self, seed: u64) -> ApbfFilter {
        match self {
            ApbfSimFilter::Apbf(p) => ApbfFilter::new(p, seed),
            ApbfSimFilter::Apbbf(p) => ApbfFilter::blocked(p, seed),
        }
    }
    /// A short name: `apbf k=4 l=3 g=334`.
    pub fn describe(&self) -> String {
        match self {
            ApbfSimFilter::Apbf(p) => format!(
                "apbf k={} l={} g={}",
                p.k(),
                p.l(),
                self.generation().unwrap_or(0)
            ),
            ApbfSimFilter::Apbbf(p) => format!(
                "apbbf k={} l={} B={} b={} g={}",
                p.k(),
                p.l(),
                p.block_bits(),
                p.block_hashes(),
                self.generation().unwrap_or(0)
            ),
        }
    }

    /// Worst-case segment match probabilities of the real filter (before a shift).
    fn segments(&self) -> Vec<f64> {
        match self {
            ApbfSimFilter::Apbf(p) => p.fills_real(),
            ApbfSimFilter::Apbbf(p) => p.segments_real(),
        }
    }

    /// Model FP after `j` insertions of the current generation (distinct stream).
    pub fn fp_after(&self, j: u64) -> f64 {
        match self {
            ApbfSimFilter::Apbf(p) => p.fp_after(j),
            ApbfSimFilter::Apbbf(p) => p.fp_after(j),
        }
    }
}

/// A simulation of an APBF or APBBF.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApbfSimConfig {
    /// The filter (must be sized).
    pub filter: ApbfSimFilter,
    /// The insertion stream.
    pub workload: Workload,
    /// Independent epochs.
    pub epochs: u64,
    /// Generations measured per epoch (after `k + l + 1` warm-up generations).
    pub generations: u64,
    /// Points per generation at which the FP is measured (evenly spaced; all `g` if
    /// fewer).
    pub phases: u64,
    /// Non-member probes at each measured point.
    pub probes: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    pub confidence: f64,
}

impl ApbfSimConfig {
    /// Allowed epochs.
    pub const EPOCHS: std::ops::RangeInclusive<u64> = 2..=1_000_000;

    /// Checks the configuration.
    ///
    /// # Errors
    /// An unsized filter; `epochs`, `generations`, `phases`, `probes` or `confidence`
    /// out of range; a bad workload.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.filter.generation().is_none() {
            return Err(ModelError::invalid(
                "window",
                "none",
                "a sized filter (give a window or a slice size)",
            ));
        }
        check::in_range("epochs", self.epochs, Self::EPOCHS)?;
        check::in_range("generations", self.generations, 1..=1_000_000)?;
        check::in_range("phases", self.phases, 1..=1_000_000)?;
        check::in_range("probes", self.probes, 1..=1_000_000_000)?;
        check::open_probability("confidence", self.confidence)?;
        self.workload.validate()?;
        self.duplicates().map(|_| ())
    }

    /// The repeats model of a [`Workload::WindowRepeats`] stream into an APBF (None for
    /// other streams and for the APBBF, whose prediction is the distinct-stream one).
    ///
    /// # Errors
    /// A repeat rate beyond the model's range ([`WindowDuplicates::RATE`]).
    pub fn duplicates(&self) -> Result<Option<WindowDuplicates>, ModelError> {
        match (&self.workload, self.filter) {
            (
                Workload::WindowRepeats {
                    duplicate_rate,
                    window,
                },
                ApbfSimFilter::Apbf(_),
            ) => WindowDuplicates::new(*duplicate_rate, *window).map(Some),
            _ => Ok(None),
        }
    }

    /// The measured points of a generation: `j = ⌈g·s/S⌉`, `s = 1..S` (deduplicated).
    pub fn phase_points(&self) -> Vec<u64> {
        let g = self.filter.generation().unwrap_or(1);
        let s = self.phases.min(g);
        let mut v: Vec<u64> = (1..=s).map(|i| (g * i).div_ceil(s)).collect();
        v.dedup();
        v
    }
}

/// What an APBF simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApbfSimResult {
    /// Exact FP given the bits, just before each shift (worst case), over epochs.
    pub worst_fp: Mean,
    /// Exact FP given the bits, averaged over the measured points, over epochs.
    pub average_fp: Mean,
    /// Probe FP over all measured points (pooled, Wilson interval: it ignores the
    /// correlation of probes that share a filter state, so it is too narrow when the
    /// state FP varies much — small blocked segments).
    pub probe_fp: Proportion,
    /// Probe FP per epoch, Student t over epochs (degenerate when no epoch saw a
    /// false positive). Checks use the union of this interval and the Wilson one.
    pub probe_fp_epochs: Mean,
    /// Per measured point `j` of the generation: the mean state FP (the saw-tooth).
    pub phase_fp: Vec<(u64, f64)>,
    /// Accesses of non-member probes that returned false, just before a shift (Student
    /// t over the pooled queries: accesses vary far more between queries than the
    /// filter state moves their mean, and per-epoch means can have zero spread).
    pub accesses_false: Mean,
    /// Accesses of non-member probes that returned true (false positives), pooled.
    pub accesses_fp: Mean,
    /// Accesses of queries for window items (ages 0..l−1 generations), just before a
    /// shift, pooled.
    pub accesses_window: Mean,
    /// Window items checked (all of the last `w` after every shift).
    pub window_checks: u64,
    /// Window items reported absent (must be 0).
    pub false_negatives: u64,
    /// Arrivals per epoch.
    pub arrivals: u64,
}

/// Per-epoch tallies.
#[derive(Default, Serialize, Deserialize)]
struct Tally {
    worst: Vec<f64>,
    average: Vec<f64>,
    phase: Vec<f64>,
    probes_fp: u64,
    probes: u64,
    acc_false: Vec<f64>,
    acc_fp: Vec<f64>,
    acc_window: Vec<f64>,
    window_checks: u64,
    false_negatives: u64,
}

/// Runs the simulation.
///
/// # Errors
/// Invalid configuration, or a workload that cannot produce the stream.
pub fn simulate(cfg: &ApbfSimConfig) -> Result<ApbfSimResult, ModelError> {
    cfg.validate()?;
    let f = cfg.filter;
    let (k, l) = (f.k(), f.l());
    let g = f.generation().unwrap_or(1);
    let w = u64::from(l) * g;
    let warm = u64::from(k + l + 1) * g;
    let total = warm + cfg.generations * g;
    let points = cfg.phase_points();
    let per_epoch = run_epochs_fallible(cfg.epochs, cfg.seed, "apbf", |_, seed| {
        let mut filter = f.build(seed);
        let mut t = Tally {
            phase: vec![0.0; points.len()],
            ..Tally::default()
        };
        let mut recent: VecDeque<u64> = VecDeque::with_capacity((warm + g) as usize);
        let mut probe_i = 0u64;
        let mut arrivals = 0u64;
        let mut state_sum = 0.0;
        cfg.workload.fill(total.max(1), seed, |key| {
            if arrivals >= total {
                return;
            }
            arrivals += 1;
            filter.insert_u64(key);
            recent.push_back(key);
            if recent.len() as u64 > u64::from(k + l + 1) * g {
                recent.pop_front();
            }
            let n = filter.insertions();
            // No false negative: right after a shift the oldest window item has lost
            // a slice; check the whole window then.
            if n > w && n % g == 1 % g {
                let len = recent.len();
                for &item in recent.range(len - w as usize..) {
                    t.window_checks += 1;
                    if !filter.contains_u64(item) {
                        t.false_negatives += 1;
                    }
                }
            }
            if n <= warm {
                return;
            }
            let j = (n - 1) % g + 1;
            let Some(pi) = points.iter().position(|&p| p == j) else {
                return;
            };
            let s = filter.state_fp();
            t.phase[pi] += s;
            state_sum += s;
            for _ in 0..cfg.probes {
                let q = filter.query_u64(probe(seed, probe_i));
                probe_i += 1;
                t.probes += 1;
                if q.present {
                    t.probes_fp += 1;
                    if j == g {
                        t.acc_fp.push(f64::from(q.accesses));
                    }
                } else if j == g {
                    t.acc_false.push(f64::from(q.accesses));
                }
            }
            if j == g {
                t.worst.push(s);
                // Window items of age 0..l−1 generations, one per age.
                let len = recent.len() as u64;
                for age in 0..u64::from(l) {
                    let back = age * g + (probe_i % g);
                    if back < len {
                        let item = recent[(len - 1 - back) as usize];
                        let q = filter.query_u64(item);
                        t.acc_window.push(f64::from(q.accesses));
                    }
                }
            }
        })?;
        let measured_points = (cfg.generations * points.len() as u64) as f64;
        t.average = vec![state_sum / measured_points];
        Ok::<_, ModelError>((t, arrivals))
    });
    let per_epoch: Vec<(Tally, u64)> = per_epoch?;
    let conf = cfg.confidence;
    let mean_of = |v: Vec<f64>| Mean::new(&v, conf);
    let worst = mean_of(
        per_epoch
            .iter()
            .map(|(t, _)| t.worst.iter().sum::<f64>() / t.worst.len().max(1) as f64)
            .collect(),
    );
    // `first`: a shard's placeholder epochs (crate::shard) are empty.
    let average = mean_of(
        per_epoch
            .iter()
            .map(|(t, _)| t.average.first().copied().unwrap_or_default())
            .collect(),
    );
    let phase_fp = points
        .iter()
        .enumerate()
        .map(|(i, &j)| {
            let s: f64 = per_epoch
                .iter()
                .map(|(t, _)| t.phase.get(i).copied().unwrap_or_default())
                .sum();
            (j, s / (cfg.epochs * cfg.generations) as f64)
        })
        .collect();
    let probes: Vec<(u64, u64)> = per_epoch
        .iter()
        .map(|(t, _)| (t.probes_fp, t.probes))
        .collect();
    let pooled = |f: fn(&Tally) -> &Vec<f64>| -> Vec<f64> {
        per_epoch
            .iter()
            .flat_map(|(t, _)| f(t).iter().copied())
            .collect()
    };
    Ok(ApbfSimResult {
        worst_fp: worst,
        average_fp: average,
        probe_fp: Proportion::over_epochs(&probes, conf),
        probe_fp_epochs: mean_of(
            per_epoch
                .iter()
                .map(|(t, _)| t.probes_fp as f64 / t.probes.max(1) as f64)
                .collect(),
        ),
        phase_fp,
        accesses_false: mean_of(pooled(|t| &t.acc_false)),
        accesses_fp: mean_of(pooled(|t| &t.acc_fp)),
        accesses_window: mean_of(pooled(|t| &t.acc_window)),
        window_checks: per_epoch.iter().map(|(t, _)| t.window_checks).sum(),
        false_negatives: per_epoch.iter().map(|(t, _)| t.false_negatives).sum(),
        arrivals: per_epoch.first().map_or(0, |(_, a)| *a),
    })
}

/// The model's predictions for a simulation (distinct stream).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApbfPrediction {
    /// Worst-case FP just before a shift (real fills at the filter's size).
    pub worst_fp: f64,
    /// The paper's worst-case FP (chord fills), for contrast.
    pub worst_fp_paper: f64,
    /// Mean FP over the measured points.
    pub average_fp: f64,
    /// Per measured point, the FP.
    pub phase_fp: Vec<(u64, f64)>,
    /// Accesses of a query returning false, worst-case fills.
    pub accesses_false: f64,
    /// Accesses of a false positive, worst-case fills.
    pub accesses_fp: f64,
    /// Accesses of a window item, worst-case fills.
    pub accesses_window: f64,
}

/// What the model predicts for `cfg`: for a distinct stream, and for an APBF fed a
/// [`Workload::WindowRepeats`] stream, with the repeats model
/// (`bfopt_models::apbf::duplicates`). Other streams get the distinct-stream
/// prediction, an upper bound (repeats only lower the fills).
pub fn prediction(cfg: &ApbfSimConfig) -> ApbfPrediction {
    let f = cfg.filter;
    let (k, l) = (f.k() as usize, f.l() as usize);
    let dup = cfg.duplicates().ok().flatten();
    let with_dup = |j: u64| match (f, &dup) {
        (ApbfSimFilter::Apbf(p), Some(d)) => p.fills_duplicates(j, d).ok(),
        _ => None,
    };
    let g = f.generation().unwrap_or(1);
    let seg = with_dup(g).unwrap_or_else(|| f.segments());
    let acc = query_accesses(&seg, k, l);
    let phase_fp: Vec<(u64, f64)> = cfg
        .phase_points()
        .into_iter()
        .map(|j| {
            let fp = with_dup(j).map_or_else(|| f.fp_after(j), |r| consecutive_match(&r, k));
            (j, fp)
        })
        .collect();
    let average_fp = phase_fp.iter().map(|p| p.1).sum::<f64>() / phase_fp.len() as f64;
    let worst_fp_paper = match f {
        ApbfSimFilter::Apbf(p) => p.fp_paper(),
        ApbfSimFilter::Apbbf(p) => p.fp_paper(),
    };
    ApbfPrediction {
        worst_fp: consecutive_match(&seg, k),
        worst_fp_paper,
        average_fp,
        phase_fp,
        accesses_false: acc.given_false(),
        accesses_fp: acc.given_true(),
        accesses_window: window_accesses(&seg, k, l),
    }
}

/// The quick/full configurations of the suite: `(k, l)` over both layouts.
pub fn suite_filters(level: Level) -> Vec<ApbfSimFilter> {
    let w = match level {
        Level::Quick => 1_000,
        Level::Full => 10_000,
    };
    let mut v: Vec<ApbfSimFilter> = [(4, 3), (5, 7), (7, 5), (10, 7), (6, 14)]
        .into_iter()
        .filter_map(|(k, l)| ApbfParams::new(k, l).and_then(|p| p.with_window(w)).ok())
        .map(ApbfSimFilter::Apbf)
        .collect();
    v.extend(
        [(2, 3, 64, 4), (3, 5, 512, 4), (2, 5, 512, 8)]
            .into_iter()
            .filter_map(|(k, l, bb, b)| {
                ApbbfParams::new(k, l, bb, b)
                    .and_then(|p| p.with_window(w))
                    .ok()
            })
            .map(ApbfSimFilter::Apbbf),
    );
    v
}

/// The APBF checks of the validate suite: for each configuration, worst-case and
/// phase-averaged state FP, probe FP, accesses, and no false negatives; then two APBFs
/// fed streams that repeat items of the window, against the repeats model.
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (epochs, generations, probes) = match level {
        Level::Quick => (8, 12, 40),
        Level::Full => (32, 40, 400),
    };
    let mut out = Vec::new();
    for (i, filter) in suite_filters(level).into_iter().enumerate() {
        let case_seed = seed + i as u64;
        let cfg = ApbfSimConfig {
            filter,
            workload: Workload::Distinct,
            epochs,
            generations,
            phases: 8,
            probes,
            seed: case_seed,
            confidence,
        };
        out.extend(agreement(&cfg));
    }
    // Streams that repeat items of the window (Figures 7-8 [APBF]) against the
    // repeats model.
    let w = match level {
        Level::Quick => 1_000,
        Level::Full => 10_000,
    };
    for (i, (k, l, rate)) in [(4, 3, 0.5), (7, 5, 0.8)].into_iter().enumerate() {
        let Ok(params) = ApbfParams::new(k, l).and_then(|p| p.with_window(w)) else {
            continue;
        };
        let cfg = ApbfSimConfig {
            filter: ApbfSimFilter::Apbf(params),
            workload: Workload::WindowRepeats {
                duplicate_rate: rate,
                window: params.window().unwrap_or(w),
            },
            epochs,
            generations,
            phases: 8,
            probes,
            seed: seed + 100 + i as u64,
            confidence,
        };
        out.extend(agreement(&cfg));
    }
    out
}

/// The interval a probe-FP check uses: [`Proportion::over_epochs`], the union of the
/// pooled Wilson interval (valid when the state FP hardly varies, and when false
/// positives are too rare for the epochs' rates to vary) and the Student t interval over
/// epochs (valid when it does).
pub fn probe_interval(r: &ApbfSimResult) -> (f64, f64) {
    (r.probe_fp.interval.lo, r.probe_fp.interval.hi)
}

/// Runs `cfg` and compares every measured quantity with the model.
pub fn agreement(cfg: &ApbfSimConfig) -> Vec<Check> {
    let name = |what: &str| format!("{}: {what}", cfg.filter.describe());
    let conf = cfg.confidence;
    let r = match simulate(cfg) {
        Ok(r) => r,
        Err(e) => return vec![Check::error("apbf", name(&e.to_string()), cfg.seed)],
    };
    let p = prediction(cfg);
    let mean_check = |what: &str, predicted: f64, m: &Mean| {
        Check::new(
            "apbf",
            name(what),
            predicted,
            m.mean,
            (m.interval.lo, m.interval.hi),
            conf,
            Tolerance::EXACT,
            m.samples,
            cfg.seed,
        )
    };
    let pf = &r.probe_fp_epochs;
    let probe_interval = probe_interval(&r);
    let mut out = vec![
        mean_check("worst-case state fp", p.worst_fp, &r.worst_fp),
        mean_check("phase-averaged state fp", p.average_fp, &r.average_fp),
        Check::new(
            "apbf",
            name("probe fp"),
            p.average_fp,
            pf.mean,
            probe_interval,
            conf,
            Tolerance::EXACT,
            r.probe_fp.trials,
            cfg.seed,
        ),
        mean_check("accesses (false)", p.accesses_false, &r.accesses_false),
        Check::new(
            "apbf",
            name("false negatives in the window"),
            0.0,
            r.false_negatives as f64,
            (0.0, 0.0),
            conf,
            Tolerance::EXACT,
            r.window_checks,
            cfg.seed,
        ),
    ];
    // A window item of a stream with repeats may have a younger occurrence than its
    // age says, which Algorithm 1 finds sooner: its accesses are not modelled.
    if !matches!(cfg.duplicates(), Ok(Some(_))) {
        out.push(mean_check(
            "accesses (window)",
            p.accesses_window,
            &r.accesses_window,
        ));
    }
    if r.accesses_fp.samples >= 30 {
        out.push(mean_check("accesses (fp)", p.accesses_fp, &r.accesses_fp));
    }
    out
}

/// Figure 4 [APBF]: the fraction of the items of each generation age `j = 0..ages`
/// (`0` = the generation being inserted) that an APBF reports just before a shift,
/// for a stream of distinct items. Each epoch is an independent filter measured at
/// `shifts` consecutive shifts after a warm-up of `k + l + 1` generations; the rate is
/// a mean over epochs with its Student t interval (items of one filter share its bits,
/// so they are not independent trials).
///
/// # Errors
/// An unsized filter, `ages > k + l + 1`, `epochs < 2`, `shifts = 0`.
pub fn report_by_age(
    params: &ApbfParams,
    ages: u32,
    epochs: u64,
    shifts: u64,
    seed: u64,
    confidence: f64,
) -> Result<Vec<Mean>, ModelError> {
    let g = params
        .sizing()
        .ok_or_else(|| ModelError::invalid("window", "none", "a sized APBF"))?
        .generation;
    let (k, l) = (params.k(), params.l());
    check::in_range("ages", ages, 1..=k + l + 1)?;
    check::in_range("epochs", epochs, ApbfSimConfig::EPOCHS)?;
    check::in_range("shifts", shifts, 1..=1_000_000)?;
    check::open_probability("confidence", confidence)?;
    let warm = u64::from(k + l + 1) * g;
    let per_epoch = run_epochs(epochs, seed, "apbf ages", |_, seed| {
        let mut filter = ApbfFilter::new(params, seed);
        let mut hits = vec![0u64; ages as usize];
        let mut n = 0u64;
        for s in 0..=shifts {
            let end = warm + s * g;
            while n < end {
                filter.insert_u64(crate::workload::member(seed, n));
                n += 1;
            }
            if s == 0 {
                continue;
            }
            for (j, h) in hits.iter_mut().enumerate() {
                let first = n - (j as u64 + 1) * g;
                *h += (first..first + g)
                    .filter(|&i| filter.contains_u64(crate::workload::member(seed, i)))
                    .count() as u64;
            }
        }
        hits.into_iter()
            .map(|h| h as f64 / (shifts * g) as f64)
            .collect::<Vec<f64>>()
    });
    Ok((0..ages as usize)
        .map(|j| {
            let rates: Vec<f64> = per_epoch
                .iter()
                .map(|e| e.get(j).copied().unwrap_or_default())
                .collect();
            Mean::new(&rates, confidence)
        })
        .collect())
}
