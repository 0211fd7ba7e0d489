//! Figures 8-11 and 18 [PBF] on synthetic days scaled to 2% of the paper's size (pairs,
//! clients and memory; `T` and `|q|` as printed): the single filter of pairs (SBF,
//! Eq. 4), PBF-1 and PBF-2 with the optimal allocation (exact `d_i`, `f_i`) and with
//! the online one (learned on the previous day, Section 6), predicted from the built
//! filters' sizes and measured on non-member queries.
//!
//! Every figure has a `*_sized` twin taking a [`Size`], which the tests run smaller.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::pbf::{filter_fp, fp_sbf, hashes_for, AllocationProblem, PbfLayout, Variant};
use bfopt_models::ModelError;
use bfopt_validation::experiments::pbf::{
    learn_online, noisy_workload, plan, query_workload, run, Method, OnlineInputs, PbfRunConfig,
    PbfRunResult, TraceSpec, TOLERANCE,
};
use serde_json::json;
use std::time::Instant;

/// Figure 8 [PBF].
pub const FIGURE_8: Reproduction = Reproduction {
    id: "pbf-figure8",
    source: "Figure 8 [PBF]",
    title: "FP against memory m, EDGAR- and Network-like days at 2% scale",
    build: figure_8,
};

/// Figure 9 [PBF].
pub const FIGURE_9: Reproduction = Reproduction {
    id: "pbf-figure9",
    source: "Figure 9 [PBF]",
    title: "FP against query length, EDGAR-like day at 2% scale",
    build: figure_9,
};

/// Figure 10 [PBF].
pub const FIGURE_10: Reproduction = Reproduction {
    id: "pbf-figure10",
    source: "Figure 10 [PBF]",
    title: "Query cost (membership probes) against query length, EDGAR-like day at 2% scale",
    build: figure_10,
};

/// Figure 11 [PBF].
pub const FIGURE_11: Reproduction = Reproduction {
    id: "pbf-figure11",
    source: "Figure 11 [PBF]",
    title: "FP against the horizon T, EDGAR-like day at 2% scale",
    build: figure_11,
};

/// Figure 18 [PBF].
pub const FIGURE_18: Reproduction = Reproduction {
    id: "pbf-figure18",
    source: "Figure 18 [PBF]",
    title: "Allocation time of PBF-1-online and PBF-2-online against T",
    build: figure_18,
};

/// How large a reproduction runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    /// Share of the paper's day (pairs, clients) and memory simulated.
    pub scale: f64,
    /// Test queries per point (times [`Options::scale`]).
    pub queries: u64,
}

/// The CLI's size: 2% of the paper's day, 2000 queries per point.
pub const CLI_SIZE: Size = Size {
    scale: 0.02,
    queries: 2000,
};

/// Table 3 [PBF]: `m` (bits at full size), `|q|`, `T`.
const BITS: [f64; 5] = [2e7, 3e7, 4e7, 5e7, 6e7];
const HORIZONS: [u64; 4] = [14_400, 28_800, 57_600, 86_400];

fn err(e: ModelError) -> CliError {
    CliError::from_model(e, &[])
}

fn figure_8(o: &Options) -> Result<Reproduced, CliError> {
    figure_8_sized(o, CLI_SIZE)
}
fn figure_9(o: &Options) -> Result<Reproduced, CliError> {
    figure_9_sized(o, CLI_SIZE)
}
fn figure_10(o: &Options) -> Result<Reproduced, CliError> {
    figure_10_sized(o, CLI_SIZE)
}
fn figure_11(o: &Options) -> Result<Reproduced, CliError> {
    figure_11_sized(o, CLI_SIZE)
}
fn figure_18(o: &Options) -> Result<Reproduced, CliError> {
    figure_18_sized(o, CLI_SIZE)
}

/// A (dataset, method) pair's model line and measured points.
type SeriesPair<'a> = (
    (&'a str, String),
    Vec<(f64, f64)>,
    Vec<(f64, f64, f64, f64)>,
);

/// One point of a sweep.
struct Point {
    dataset: &'static str,
    method: Method,
    x: f64,
    config: PbfRunConfig,
}

/// Runs the points, fills rows (`dataset, method, x, fp_model, fp_measured, fp_lo, fp_hi,
/// probes_per_query`), plot series per (dataset, method) and the model-vs-measurement
/// differences; returns the results in order.
fn sweep(
    out: &mut Reproduced,
    x_name: &str,
    points: &[Point],
    x_plot: impl Fn(f64) -> f64,
    with_dataset: bool,
) -> Result<Vec<PbfRunResult>, CliError> {
    out.columns = [
        "dataset",
        "method",
        x_name,
        "fp_model",
        "fp_measured",
        "fp_lo",
        "fp_hi",
        "probes_per_query",
    ]
    .map(String::from)
    .to_vec();
    if !with_dataset {
        out.columns.remove(0);
    }
    let mut results = Vec::with_capacity(points.len());
    let mut series: Vec<SeriesPair> = Vec::new();
    for p in points {
        let r = run(&p.config).map_err(err)?;
        let m = &r.measured;
        let band = TOLERANCE.rel_band;
        let name = p.method.name();
        if !(r.predicted_fp >= m.interval.lo * (1.0 - band)
            && r.predicted_fp <= m.interval.hi * (1.0 + band))
        {
            out.differences.push(format!(
                "{} {name} {x_name} = {}: model {:.5} outside the measured 99% interval [{:.5}, {:.5}]",
                p.dataset, p.x, r.predicted_fp, m.interval.lo, m.interval.hi
            ));
        }
        if r.false_negatives > 0 {
            out.differences.push(format!(
                "{} {name} {x_name} = {}: {} false negatives",
                p.dataset, p.x, r.false_negatives
            ));
        }
        let mut row = vec![
            json!(p.dataset),
            json!(name),
            json!(p.x),
            json!(r.predicted_fp),
            json!(m.rate),
            json!(m.interval.lo),
            json!(m.interval.hi),
            json!(r.probes_per_query),
        ];
        if !with_dataset {
            row.remove(0);
        }
        out.rows.push(row);
        let key = (if with_dataset { p.dataset } else { "" }, name);
        let x = x_plot(p.x);
        let entry = match series.iter_mut().find(|s| s.0 == key) {
            Some(e) => e,
            None => {
                series.push((key, Vec::new(), Vec::new()));
                series.last_mut().expect("just pushed")
            }
        };
        entry.1.push((x, r.predicted_fp));
        entry.2.push((x, m.rate, m.interval.lo, m.interval.hi));
        results.push(r);
    }
    let plot_series = series
        .into_iter()
        .flat_map(|((d, name), model, sim)| {
            let label = if d.is_empty() {
                name
            } else {
                format!("{d} {name}")
            };
            [
                Series::line(format!("{label} model"), model),
                Series::points(format!("{label} measured"), sim),
            ]
        })
        .collect();
    out.plot = Some(Plot::new(x_name, "false-positive rate", true, plot_series));
    Ok(results)
}

fn config(
    spec: TraceSpec,
    method: Method,
    bits: u64,
    q: u64,
    size: Size,
    o: &Options,
) -> PbfRunConfig {
    PbfRunConfig {
        spec,
        horizon: None,
        method,
        bits,
        query_length: q,
        queries: size.queries * o.scale,
        granularity: 4,
        k_max: 16,
        seed: o.seed,
        confidence: 0.99,
        online: OnlineInputs::default(),
    }
}

/// The measured FP of `method` at each x of a sweep (rows in point order).
fn measured(points: &[Point], results: &[PbfRunResult], dataset: &str, method: Method) -> Vec<f64> {
    points
        .iter()
        .zip(results)
        .filter(|(p, _)| p.dataset == dataset && p.method == method)
        .map(|(_, r)| r.measured.rate)
        .collect()
}

/// Figure 8 at a given size: FP against `m` for the five methods of Table 2, both days.
///
/// # Errors
/// A simulation that cannot run.
pub fn figure_8_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let mut out = Reproduced::default();
    let mut points = Vec::new();
    for name in ["edgar", "network"] {
        let spec = TraceSpec::named(name, size.scale).map_err(err)?;
        for method in Method::TABLE_2 {
            for m in BITS {
                let bits = (m * size.scale) as u64;
                points.push(Point {
                    dataset: spec.name,
                    method,
                    x: m,
                    config: config(spec, method, bits, 128, size, o),
                });
            }
        }
    }
    let results = sweep(&mut out, "m_full_size", &points, |m| m / 1e7, true)?;
    if let Some(p) = &mut out.plot {
        p.x_label = "m (10^7 bits at full size; simulated at the data's scale)".into();
    }
    // The paper's own numbers (EDGAR: n = 2,127,749 pairs, m = 5e7, |q| = 128, k ≤ 16).
    let n = 2_127_749.0;
    let k = hashes_for(50_000_000, n, 16);
    let sbf = fp_sbf(filter_fp(50_000_000, k, n), 128);
    out.differences.push(format!(
        "the paper's ordering cannot be derived from its own numbers: with EDGAR's \
         n = 2,127,749 pairs, m = 5e7 bits and |q| = 128, Eq. (4) gives the SBF an FP of \
         {sbf:.4} (k = {k}), below the ~1% Figure 8 shows for the PBFs, where the SBF is \
         drawn 'much worse'; the synthetic days reproduce the measured trends, not that \
         ordering"
    ));
    for d in ["edgar", "network"] {
        let sbf = measured(&points, &results, d, Method::Sbf);
        let b2 = measured(&points, &results, d, Method::Opt(Variant::Pbf2));
        let b1 = measured(&points, &results, d, Method::Opt(Variant::Pbf1));
        if sbf.windows(2).any(|w| w[1] > w[0] * 1.05 + 1e-3) {
            out.differences
                .push(format!("{d}: SBF's FP does not fall with m: {sbf:?}"));
        }
        let worse = sbf.iter().zip(&b1).filter(|(s, p)| s <= p).count();
        if worse > 0 {
            out.differences.push(format!(
                "{d}: at {worse} of {} budgets the SBF measures no worse than PBF-1-opt",
                sbf.len()
            ));
        }
        let online = measured(&points, &results, d, Method::Online(Variant::Pbf1));
        if online[online.len() - 1] > 0.5 * online[0] {
            out.differences.push(format!(
                "{d}: pbf1-online's FP hardly falls with m ({:.3} at 2e7, {:.3} at 6e7; the \
                 paper shows it falling): filters the training never probed, or that were \
                 empty the day before, get few or no bits and answer yes whatever m is \
                 (see experiments::pbf::SMOOTHING)",
                online[0],
                online[online.len() - 1]
            ));
        }
        let b2_beats_sbf = sbf.iter().zip(&b2).filter(|(s, p)| p < s).count();
        if b2_beats_sbf < sbf.len() {
            out.differences.push(format!(
                "{d}: PBF-2-opt measures below the SBF at only {b2_beats_sbf} of {} budgets \
                 (the paper: always)",
                sbf.len()
            ));
        }
    }
    Ok(out)
}

/// Figure 9 at a given size: FP against `|q| = 16 … 8192`, EDGAR, the five methods of
/// Table 2 (SBF, the two optima and the two online methods, SIMPLE learning with
/// HyperLogLog and Count-Min on the previous day), and every difference from the
/// paper's Section 7.1 claims with its cause ([`figure_9_differences`]).
///
/// # Errors
/// A simulation that cannot run.
pub fn figure_9_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let spec = TraceSpec::named("edgar", size.scale).map_err(err)?;
    let bits = (5e7 * size.scale) as u64;
    let mut points = Vec::new();
    for method in Method::TABLE_2 {
        for j in 4..=13u32 {
            let q = 1u64 << j;
            points.push(Point {
                dataset: spec.name,
                method,
                x: q as f64,
                config: config(spec, method, bits, q, size, o),
            });
        }
    }
    let mut out = Reproduced::default();
    let results = sweep(&mut out, "query_length", &points, f64::log2, false)?;
    if let Some(p) = &mut out.plot {
        p.x_label = "log2 |q| (query length)".into();
    }
    let fp = |method| measured(&points, &results, spec.name, method);
    let day = spec.generate(o.seed).map_err(err)?;
    let entries = entries_per_pair(&day).map_err(err)?;
    // One input changed at a time, at |q| = 1024: the day's visits one second apart
    // (PBF-2-opt), and PBF-1-online learning on the tested day itself.
    let mut continuous = spec;
    (continuous.session_gap, continuous.session_visits) = (1.0, 400.0);
    let continuous_entries = entries_per_pair(&continuous.generate(o.seed).map_err(err)?)
        .map_err(err)?
        .0;
    let pbf2 = config(continuous, Method::Opt(Variant::Pbf2), bits, 1024, size, o);
    let mut pbf1 = config(spec, Method::Online(Variant::Pbf1), bits, 1024, size, o);
    pbf1.online.same_day = true;
    let causes = Causes {
        entries,
        continuous_entries,
        continuous_pbf2: run(&pbf2).map_err(err)?.measured.rate,
        same_day_pbf1: run(&pbf1).map_err(err)?.measured.rate,
    };
    out.differences
        .extend(figure_9_differences(&fp, &causes, spec, bits));
    Ok(out)
}

/// What [`figure_9_sized`] measures to name the causes of its differences.
struct Causes {
    /// Distinct (item, interval) entries per distinct pair of the day (PBF-2, PBF-1 g = 4).
    entries: (f64, f64),
    /// The same for PBF-2 on the day with visits one second apart (400 per session).
    continuous_entries: f64,
    /// PBF-2-opt's measured FP at `|q| = 1024` on that day.
    continuous_pbf2: f64,
    /// PBF-1-online's measured FP at `|q| = 1024` when it learns on the tested day.
    same_day_pbf1: f64,
}

/// Distinct (item, interval) entries per distinct pair in PBF-2's levels and in PBF-1's
/// interval filters (g = 4) of a day: what a tree of filters stores, against the pairs one
/// filter of pairs stores.
fn entries_per_pair(day: &[(u64, u64)]) -> Result<(f64, f64), ModelError> {
    let pairs = bfopt_models::pbf::distinct_pairs(day) as f64;
    let horizon = day.iter().map(|p| p.1).max().unwrap_or(1).max(2);
    let mut out = [0.0; 2];
    for (i, layout) in [PbfLayout::pbf2(horizon)?, PbfLayout::pbf1(horizon, 4)?]
        .iter()
        .enumerate()
    {
        let d = bfopt_models::pbf::distinct_counts(layout, day)?;
        let fine = layout.fine_filter().map_or(0, |f| d[f as usize]);
        out[i] = (d.iter().sum::<u64>() - fine) as f64 / pairs;
    }
    Ok((out[0], out[1]))
}

/// The paper's claims for Figure 9 (Section 7.1 [PBF]) against the measured FP at
/// `|q| = 16 … 8192` (`fp(method)`), each difference with the input that explains it:
/// * SBF above 80% at `|q| = 1024`: Eq. (4) at the paper's own `n` and `m` gives 1.3%;
/// * PBF-1/PBF-2-opt under 5% up to `|q| ≈ 1000`: the day's entries per pair (`entries`,
///   PBF-2 and PBF-1), the share of the budget each tree entry gets;
/// * β1-online near β1-opt except about 20% at 1024, β2-online about 1% and matching the
///   optima: the learner's input, the previous day.
///
/// The measured causes (one input changed at a time) are in the README's PBF section.
fn figure_9_differences(
    fp: &dyn Fn(Method) -> Vec<f64>,
    causes: &Causes,
    spec: TraceSpec,
    bits: u64,
) -> Vec<String> {
    let entries = causes.entries;
    let mut out = Vec::new();
    let at = |v: &[f64], q: u64| v[(q.trailing_zeros() - 4) as usize];
    let per_pair = bits as f64 / spec.pairs as f64;
    // SBF: the paper's own numbers.
    let sbf = fp(Method::Sbf);
    let (n, m) = (2_127_749.0, 50_000_000u64);
    let k = hashes_for(m, n, 16);
    let eq4 = fp_sbf(filter_fp(m, k, n), 1024);
    let needed = -(1.0 - 0.2f64.powf(1.0 / 1024.0)).ln() / std::f64::consts::LN_2.powi(2);
    if at(&sbf, 1024) < 0.8 {
        out.push(format!(
            "sbf at |q| = 1024 measures {:.4}, the paper above 0.8. Cause: the paper's own \
             numbers: Eq. (4) at its n = 2,127,749 pairs and m = 5e7 bits (23.5 bits per pair, \
             k = {k}) gives {eq4:.4}; above 0.8 needs at most {needed:.1} bits per pair",
            at(&sbf, 1024)
        ));
    }
    // The optima: under 5% up to |q| = 1024 (the paper: "over 1000 seconds").
    for (variant, e) in [(Variant::Pbf2, entries.0), (Variant::Pbf1, entries.1)] {
        let method = Method::Opt(variant);
        let v = fp(method);
        let above: Vec<String> = (4..=10)
            .filter(|&j| at(&v, 1 << j) >= 0.05)
            .map(|j| format!("{} at {}", fmt3(at(&v, 1 << j)), 1u64 << j))
            .collect();
        if !above.is_empty() {
            out.push(format!(
                "{} measures at or above 5% at |q| <= 1024 ({}), the paper below 5%. Cause: \
                 the synthetic day: its sessions (mean {} visits {} s apart) put {e:.2} \
                 distinct (item, interval) entries per distinct pair into the tree's \
                 filters, {:.1} bits each at {per_pair:.1} bits per pair. With visits one \
                 second apart (400 per session) PBF-2 holds {:.2} entries per pair and \
                 pbf2-opt measures {:.4} at |q| = 1024; EDGAR's per-interval counts are \
                 not published",
                method.name(),
                above.join(", "),
                spec.session_visits,
                spec.session_gap,
                per_pair / e,
                causes.continuous_entries,
                causes.continuous_pbf2,
            ));
        }
        let beaten: Vec<u64> = (4..=13)
            .map(|j| 1u64 << j)
            .filter(|&q| at(&sbf, q) < at(&v, q))
            .collect();
        if !beaten.is_empty() {
            out.push(format!(
                "the single filter of pairs measures below {} at |q| = {beaten:?} (the \
                 paper: worse at every |q|). Cause: the same entries per pair ({e:.2}): a \
                 tree beats one filter of pairs only when its filters hold few entries per \
                 pair (README, PBF section)",
                method.name()
            ));
        }
    }
    // Online: β1-online "a notable gap" from β1-opt, under 5% except about 20% at 1024;
    // β2-online about 1%, matching the optima.
    let online1 = fp(Method::Online(Variant::Pbf1));
    let above: Vec<String> = (4..=9)
        .filter(|&j| at(&online1, 1 << j) >= 0.05)
        .map(|j| format!("{} at {}", fmt3(at(&online1, 1 << j)), 1u64 << j))
        .collect();
    if !above.is_empty() {
        out.push(format!(
            "pbf1-online measures at or above 5% at |q| < 1024 ({}; {} at 1024, where the \
             paper has about 20%), the paper below 5%. Cause: the learner's input at this \
             scale: about {:.1} pairs per leaf, so the previous day's per-leaf counts are \
             mostly noise; learning on the tested day it measures {:.4} at |q| = 1024",
            above.join(", "),
            fmt3(at(&online1, 1024)),
            spec.pairs as f64 / (spec.horizon as f64 / 4.0),
            causes.same_day_pbf1,
        ));
    }
    let (online2, opt2) = (
        fp(Method::Online(Variant::Pbf2)),
        fp(Method::Opt(Variant::Pbf2)),
    );
    if at(&online2, 128) > 0.02 {
        out.push(format!(
            "pbf2-online measures {} at |q| = 128 (the paper: about 1%), within {:.0}% of \
             pbf2-opt ({}) as the paper claims. Cause: the entries per pair of pbf2-opt \
             ({:.2}), not the learner",
            fmt3(at(&online2, 128)),
            100.0 * (at(&online2, 128) / at(&opt2, 128) - 1.0).abs(),
            fmt3(at(&opt2, 128)),
            entries.0
        ));
    }
    out
}

/// Three significant digits.
fn fmt3(x: f64) -> String {
    format!("{x:.3}")
}

/// Figure 10 at a given size: membership probes per query (short-circuit) against `|q|`
/// for SBF, PBF-1 and PBF-2, and the probes without short-circuit (the model line: `|q|`
/// for the SBF; the cover and partial leaves, Alg. 1 and Alg. 3, for the PBFs).
///
/// The paper measures time; probes are the machine-independent count behind it
/// (Section 7.2 notes the allocations do not change the cost).
///
/// # Errors
/// A simulation that cannot run.
pub fn figure_10_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let spec = TraceSpec::named("edgar", size.scale).map_err(err)?;
    let bits = (5e7 * size.scale) as u64;
    let horizon = spec.horizon;
    let mut out = Reproduced::new(&[
        "method",
        "query_length",
        "probes_no_short_circuit",
        "probes_measured",
        "fp_measured",
    ]);
    let mut series = Vec::new();
    let mut by_method: Vec<Vec<f64>> = Vec::new();
    for method in [
        Method::Sbf,
        Method::Opt(Variant::Pbf1),
        Method::Opt(Variant::Pbf2),
    ] {
        let (mut model, mut sim, mut measured) = (vec![], vec![], vec![]);
        for j in 4..=13u32 {
            let q = 1u64 << j;
            let cfg = config(spec, method, bits, q, size, o);
            let r = run(&cfg).map_err(err)?;
            let full = match method {
                Method::Sbf => q as f64,
                Method::Opt(v) | Method::Online(v) | Method::Uniform(v) => {
                    let g = if v == Variant::Pbf1 { 4 } else { 1 };
                    let layout = PbfLayout::new(v, horizon, g).map_err(err)?;
                    let queries =
                        query_workload(horizon, q, cfg.queries, cfg.seed, cfg.seed ^ 0x51)
                            .map_err(err)?;
                    let mut counts = vec![0.0; layout.filters() as usize];
                    for &(_, s, e) in &queries {
                        layout.add_probe_counts(s, e, &mut counts);
                    }
                    counts.iter().sum::<f64>() / queries.len() as f64
                }
            };
            out.rows.push(vec![
                json!(method.name()),
                json!(q),
                json!(full),
                json!(r.probes_per_query),
                json!(r.measured.rate),
            ]);
            let x = f64::from(j);
            model.push((x, full));
            sim.push((
                x,
                r.probes_per_query,
                r.probes_per_query,
                r.probes_per_query,
            ));
            measured.push(r.probes_per_query);
        }
        series.push(Series::line(
            format!("{} without short-circuit", method.name()),
            model,
        ));
        series.push(Series::points(format!("{} measured", method.name()), sim));
        by_method.push(measured);
    }
    // Section 7.1: the PBFs are "more than one order of magnitude" cheaper than the SBF.
    for (name, pbf) in [("pbf1", &by_method[1]), ("pbf2", &by_method[2])] {
        for (j, (s, p)) in by_method[0].iter().zip(pbf.iter()).enumerate() {
            let q = 1u64 << (j + 4);
            if *s < 10.0 * p {
                out.differences.push(format!(
                    "|q| = {q}: {name} makes {p:.1} probes per query, the SBF {s:.1}: less \
                     than the paper's order of magnitude (the SBF short-circuits at its \
                     first false positive)"
                ));
            }
        }
    }
    out.plot = Some(Plot::new(
        "log2 |q| (query length)",
        "membership probes per query",
        true,
        series,
    ));
    Ok(out)
}

/// Figure 11 at a given size: FP against `T` (the first `T` seconds of the day) for the
/// five methods of Table 2, EDGAR.
///
/// # Errors
/// A simulation that cannot run.
pub fn figure_11_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let spec = TraceSpec::named("edgar", size.scale).map_err(err)?;
    let bits = (5e7 * size.scale) as u64;
    let mut points = Vec::new();
    for method in Method::TABLE_2 {
        for t in HORIZONS {
            let mut cfg = config(spec, method, bits, 128, size, o);
            cfg.horizon = Some(t);
            points.push(Point {
                dataset: spec.name,
                method,
                x: t as f64,
                config: cfg,
            });
        }
    }
    let mut out = Reproduced::default();
    let results = sweep(&mut out, "horizon", &points, |t| t / 3600.0, false)?;
    if let Some(p) = &mut out.plot {
        p.x_label = "T (hours)".into();
    }
    for method in Method::TABLE_2 {
        let fp = measured(&points, &results, spec.name, method);
        if fp.windows(2).any(|w| w[1] + 1e-3 < w[0] * 0.9) {
            out.differences.push(format!(
                "{}: FP does not grow with T as in the paper: {fp:?}",
                method.name()
            ));
        }
    }
    Ok(out)
}

/// Figure 18 at a given size: wall time of the online allocation (learn `d_i`, `f_i` on
/// the previous day with the sketches, then the Lagrangian allocation with PBF-1's gated
/// fine filter) against `T`, and the allocation alone. The allocation's cost depends on
/// the number of filters (`T/g`), not on the data's size.
///
/// # Errors
/// A run that cannot start.
pub fn figure_18_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let spec = TraceSpec::named("edgar", size.scale).map_err(err)?;
    let bits = (5e7 * size.scale) as u64;
    let mut out = Reproduced::new(&[
        "method",
        "horizon",
        "filters",
        "optimal_seconds",
        "planned_seconds",
        "paper_seconds",
    ]);
    let previous = spec.generate(o.seed ^ 0x9E3).map_err(err)?;
    let mut series = Vec::new();
    for variant in [Variant::Pbf1, Variant::Pbf2] {
        let method = Method::Online(variant);
        let (mut line, mut planned_line) = (Vec::new(), Vec::new());
        for t in HORIZONS {
            let g = if variant == Variant::Pbf1 { 4 } else { 1 };
            let layout = PbfLayout::new(variant, t, g).map_err(err)?;
            let prev: Vec<(u64, u64)> = previous.iter().copied().filter(|p| p.1 <= t).collect();
            let test = query_workload(t, 128, size.queries, o.seed, o.seed ^ 0x51).map_err(err)?;
            let training = noisy_workload(&test, t, o.seed ^ 0x7A1);
            let learned = learn_online(&layout, &prev, &training, o.seed).map_err(err)?;
            // Medians of a few runs: the plain optimum (Eqs. 10-13) and the method's plan
            // (PBF-1: the gated fine filter, a fixed point over several optima).
            let median = |f: &dyn Fn() -> Result<(), ModelError>| -> Result<f64, ModelError> {
                let mut times = Vec::new();
                for _ in 0..5 {
                    let start = Instant::now();
                    f()?;
                    times.push(start.elapsed().as_secs_f64());
                }
                times.sort_by(f64::total_cmp);
                Ok(times[times.len() / 2])
            };
            let problem =
                AllocationProblem::new(bits, learned.distinct.clone(), learned.frequency.clone())
                    .map_err(err)?;
            let secs = median(&|| problem.optimal(16).map(|_| ())).map_err(err)?;
            let planned =
                median(&|| plan(&layout, bits, &learned, method, 16).map(|_| ())).map_err(err)?;
            let paper = match (variant, t) {
                (Variant::Pbf1, 86_400) => json!(0.1),
                (Variant::Pbf2, 86_400) => json!(1e-4),
                _ => json!(null),
            };
            if t == 86_400 {
                let target = if variant == Variant::Pbf1 { 0.1 } else { 1e-4 } / 20.0;
                if secs > target {
                    out.differences.push(format!(
                        "{} at T = 86400: the optimum took {secs:.2e} s, above the issue's \
                         target of 20x faster than the paper ({target:.1e} s; wall time at this \
                         machine's load)",
                        method.name()
                    ));
                }
            }
            out.rows.push(vec![
                json!(method.name()),
                json!(t),
                json!(layout.filters()),
                json!(secs),
                json!(planned),
                paper,
            ]);
            line.push((t as f64 / 3600.0, secs));
            planned_line.push((t as f64 / 3600.0, planned));
        }
        series.push(Series::line(format!("{} optimum", method.name()), line));
        series.push(Series::line(
            format!("{} plan", method.name()),
            planned_line,
        ));
    }
    out.plot = Some(Plot::new("T (hours)", "allocation time (s)", true, series));
    Ok(out)
}
