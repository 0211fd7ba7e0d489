//! Figure 7 [SBF] (Section 6.5): zero cells at the stable point of the SBF and IBF1-IBF6,
//! `n = 512` cells, `k = 4`, `p = 5`, `M = 5`, importance uniform on 1..50; Tables 3-4
//! [SBF] (Section 6.3): weighted FP and FN of the thesis's stream with repeats, modelled
//! ([`bfopt_models::stable::stream_metrics`]) and simulated.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::stable::{
    solve, stream_metrics, IbfParams, ImportanceDist, Policy, RepeatStream,
};
use bfopt_validation::experiments::stable::{
    simulate, thesis_stream, StableSimConfig, ThesisStreamConfig,
};
use rayon::prelude::*;
use serde_json::json;

/// Figure 7 [SBF].
pub const FIGURE_7: Reproduction = Reproduction {
    id: "sbf-figure7",
    source: "Figure 7 [SBF]",
    title: "zero cells at the stable point, n = 512, k = 4, p = 5, M = 5",
    build: figure_7,
};

/// Zero cells the thesis reads off its plot: SBF "around 50", IBF2 "nearly 400".
const PRINTED: [(Policy, f64); 2] = [(Policy::Sbf, 50.0), (Policy::Ibf2, 400.0)];

const CELLS: u64 = 512;

fn figure_7(o: &Options) -> Result<Reproduced, CliError> {
    let err = |e| CliError::from_model(e, &[]);
    let imp = ImportanceDist::linear(1, 50).map_err(err)?;
    let mut out = Reproduced {
        columns: [
            "policy",
            "zeros_model",
            "zeros_measured",
            "zeros_lo",
            "zeros_hi",
        ]
        .map(String::from)
        .to_vec(),
        ..Reproduced::default()
    };
    let (mut model, mut sim) = (vec![], vec![]);
    for (i, policy) in Policy::ALL.into_iter().enumerate() {
        let params = IbfParams::new(policy, CELLS, 4, 5, 5, imp.clone()).map_err(err)?;
        let zeros = solve(&params).map_err(err)?.zero_fraction() * CELLS as f64;
        let cfg = StableSimConfig::new(params, 20_000, 256, 4 * o.scale, o.seed + i as u64);
        let r = simulate(&cfg).map_err(err)?;
        let z = &r.zero_fraction;
        let (m, lo, hi) = (
            z.mean * CELLS as f64,
            z.interval.lo * CELLS as f64,
            z.interval.hi * CELLS as f64,
        );
        if !(lo..=hi).contains(&zeros) {
            out.differences.push(format!(
                "{policy}: model {zeros:.1} zeros outside the measured 99% interval [{lo:.1}, {hi:.1}]"
            ));
        }
        if let Some((_, printed)) = PRINTED.iter().find(|(p, _)| *p == policy) {
            out.differences.push(format!(
                "{policy}: the thesis reads about {printed} zeros; model {zeros:.1}, measured {m:.1}"
            ));
        }
        out.rows.push(vec![
            json!(policy.to_string()),
            json!(zeros),
            json!(m),
            json!(lo),
            json!(hi),
        ]);
        model.push((i as f64, zeros));
        sim.push((i as f64, m, lo, hi));
    }
    out.plot = Some(Plot {
        x_label: "policy: SBF, IBF1 … IBF6".into(),
        y_label: "zero cells of 512".into(),
        log_y: false,
        series: vec![
            Series::line("model (exact chain / mean field)", model),
            Series::points("simulated, 99% interval", sim),
        ],
    });
    Ok(out)
}

/// Table 3 [SBF]: weighted false positives of the aggregate experiments.
///
/// At the thesis's size (`--scale 32`, seed 1, 4 epochs; 13 min with Table 4 on a loaded
/// 2-core machine before the counter model, which adds about 30 s per IBF2-IBF5 cell) the
/// per-cell-items model of the SBF and IBF1 lies in the measured 99% interval in 11 of
/// 12 settings for wFP (largest gap 7%) and 12 of 12 for wFN (3%). IBF2-IBF5 use the
/// per-cell items-and-counter model: wFP of IBF3/IBF5 within 2-15% of the measured value
/// (n = 65536 and 262144: 0.0263 / 0.0272, 0.00091 / 0.00098 for IBF3; the independent-
/// sets model it replaces was up to 100 times high); wFN high by 3-4% (IBF3/IBF5) and
/// 15-17% (MinImp) at n = 262144 where cells hold 0.5-1 items (model of issue 19's
/// session 20; the measurements of the full size were not re-run). At the default 1/32
/// size (same items per cell, 4 epochs) the model's wFP lies in the measured interval in
/// 6, 6, 6 of 6 settings for IBF3, IBF4, IBF5 and 3 of 6 for IBF2; its wFN in 6 and 5 of
/// 6 for IBF3 and IBF5 (−2% to +5.7% of the measured mean; 6 and 4 of 6, up to 10.9%
/// above, before issue 19's session 20), 3 and 1 of 6 for IBF2 and IBF4 (up to 21% and
/// 25% above; 37% and 48% before session 20: 16 tracked importances instead of 5). Measured
/// SBF wFP / wFN at k = 4: 32.0 / 34.8 (n = 16384), 11.1 / 14.1 (65536), 0.40 / 1.03
/// (262144), thesis 23.10 / 20.04, 13.49 / 13.56, 1.45 / 2.24. The trend of Section 6.3 holds in all 24 pairs.
pub const TABLE_3: Reproduction = Reproduction {
    id: "sbf-table3",
    source: "Table 3 [SBF]",
    title: "weighted FP (%), thesis stream of 100000 arrivals, 70% repeats, M = 4, p = 7 (1/32 size; --scale 32: full size)",
    build: table_3,
};

/// Table 4 [SBF]: weighted false negatives of the aggregate experiments.
pub const TABLE_4: Reproduction = Reproduction {
    id: "sbf-table4",
    source: "Table 4 [SBF]",
    title: "weighted FN (%), thesis stream of 100000 arrivals, 70% repeats, M = 4, p = 7 (1/32 size; --scale 32: full size)",
    build: table_4,
};

/// The settings `(n, k)` of Tables 3-4, in column order.
pub const TABLE_SETTINGS: [(u64, u32); 6] = [
    (16_384, 4),
    (16_384, 8),
    (65_536, 4),
    (65_536, 8),
    (262_144, 4),
    (262_144, 8),
];

/// The policies of Tables 3-4 (the BF row is the classic family, which never deletes).
pub const TABLE_POLICIES: [Policy; 6] = [
    Policy::Sbf,
    Policy::Ibf1,
    Policy::Ibf2,
    Policy::Ibf3,
    Policy::Ibf4,
    Policy::Ibf5,
];

/// Table 3 [SBF] as printed (percent), rows SBF, IBF1-IBF5, columns as [`TABLE_SETTINGS`].
pub const TABLE_3_PRINTED: [[&str; 6]; 6] = [
    ["23.10", "33.47", "13.49", "21.93", "1.45", "2.04"],
    ["3.83", "4.30", "2.12", "2.25", "0.27", "0.15"],
    ["0.0", "0.02", "0.0", "0.004", "0.01", "7.56E-4"],
    ["7.64", "6.02", "4.77", "5.22", "0.49", "0.70"],
    ["3.48", "5.40", "1.45", "2.75", "0.13", "0.22"],
    ["7.74", "49.90", "4.74", "5.15", "0.48", "0.68"],
];

/// Table 4 [SBF] as printed (percent).
pub const TABLE_4_PRINTED: [[&str; 6]; 6] = [
    ["20.04", "13.42", "13.56", "22.93", "2.24", "2.67"],
    ["37.89", "38.15", "30.69", "10.43", "16.43", "19.99"],
    ["44.53", "44.27", "44.53", "32.55", "44.53", "38.14"],
    ["33.45", "36.22", "19.11", "43.26", "8.90", "4.40"],
    ["35.72", "33.92", "28.91", "22.87", "16.99", "9.50"],
    ["33.50", "36.30", "19.20", "26.09", "8.77", "4.48"],
];

/// One cell of Tables 3-4, modelled and measured (fractions, not percent).
#[derive(Debug, Clone)]
struct Cell {
    policy: Policy,
    n: u64,
    k: u32,
    model: Option<(f64, f64)>,
    model_error: Option<String>,
    fp: (f64, f64, f64),
    fnr: (f64, f64, f64),
}

/// Cells per `(seed, scale)`, shared by the two tables (one run serves both).
/// Cached cells with their `(seed, scale)`.
type CachedCells = Option<((u64, u64), Vec<Cell>)>;

static TABLE_CACHE: std::sync::Mutex<CachedCells> = std::sync::Mutex::new(None);

fn cells(o: &Options) -> Result<Vec<Cell>, CliError> {
    let key = (o.seed, o.scale);
    if let Some((k, c)) = TABLE_CACHE.lock().ok().and_then(|g| g.clone()) {
        if k == key {
            return Ok(c);
        }
    }
    let err = |e| CliError::from_model(e, &[]);
    let imp = ImportanceDist::linear(1, 50).map_err(err)?;
    // Size: n and the stream scaled together by scale/32 (at most the thesis's size).
    let f = o.scale.min(32) as f64 / 32.0;
    let arrivals = (100_000.0 * f).round() as u64;
    let stream = RepeatStream::new(arrivals, 0.7).map_err(err)?;
    let jobs: Vec<(usize, Policy, u64, u32)> = TABLE_SETTINGS
        .iter()
        .enumerate()
        .flat_map(|(j, &(n, k))| TABLE_POLICIES.iter().map(move |&p| (j, p, n, k)))
        .collect();
    let out: Vec<Result<Cell, CliError>> = jobs
        .par_iter()
        .enumerate()
        .map(|(i, &(_, policy, n, k))| {
            let m = ((n as f64 * f).round() as u64).max(64);
            let params = IbfParams::new(policy, m, k, 4, 7, imp.clone()).map_err(err)?;
            let (model, model_error) = match stream_metrics(&params, &stream) {
                Ok(r) => (Some((r.weighted_fp, r.weighted_fn)), None),
                Err(e) => (None, Some(e.to_string())),
            };
            let r = thesis_stream(&ThesisStreamConfig {
                params,
                arrivals,
                duplicate_rate: 0.7,
                checkpoints: 1,
                epochs: 4,
                seed: o.seed + i as u64,
                confidence: 0.99,
            })
            .map_err(err)?;
            let t = |x: &bfopt_validation::stats::Mean| (x.mean, x.interval.lo, x.interval.hi);
            Ok(Cell {
                policy,
                n,
                k,
                model,
                model_error,
                fp: t(&r.weighted_fp),
                fnr: t(&r.weighted_fn),
            })
        })
        .collect();
    let cells = out.into_iter().collect::<Result<Vec<_>, _>>()?;
    if let Ok(mut g) = TABLE_CACHE.lock() {
        *g = Some((key, cells.clone()));
    }
    Ok(cells)
}

fn table_3(o: &Options) -> Result<Reproduced, CliError> {
    table(o, true)
}

fn table_4(o: &Options) -> Result<Reproduced, CliError> {
    table(o, false)
}

fn table(o: &Options, fp: bool) -> Result<Reproduced, CliError> {
    let cells = cells(o)?;
    let printed = if fp { TABLE_3_PRINTED } else { TABLE_4_PRINTED };
    let what = if fp { "wFP" } else { "wFN" };
    let mut out = Reproduced {
        columns: [
            "policy",
            "n",
            "k",
            "cells",
            "printed",
            "model",
            "measured",
            "measured_lo",
            "measured_hi",
        ]
        .map(String::from)
        .to_vec(),
        ..Reproduced::default()
    };
    let f = o.scale.min(32) as f64 / 32.0;
    let (mut model_pts, mut sim_pts, mut printed_pts) = (vec![], vec![], vec![]);
    let mut inside = vec![(0u32, 0u32, 0.0f64); TABLE_POLICIES.len()];
    for (x, c) in cells.iter().enumerate() {
        let pi = TABLE_POLICIES
            .iter()
            .position(|&p| p == c.policy)
            .unwrap_or(0);
        let si = TABLE_SETTINGS
            .iter()
            .position(|&s| s == (c.n, c.k))
            .unwrap_or(0);
        let print = printed[pi][si];
        let printed_pct: f64 = print.parse().unwrap_or(f64::NAN);
        let model = c.model.map(|(a, b)| 100.0 * if fp { a } else { b });
        let (mean, lo, hi) = if fp { c.fp } else { c.fnr };
        let (mean, lo, hi) = (100.0 * mean, 100.0 * lo, 100.0 * hi);
        out.rows.push(vec![
            json!(c.policy.to_string()),
            json!(c.n),
            json!(c.k),
            json!(((c.n as f64 * f).round() as u64).max(64)),
            json!(print),
            json!(model),
            json!(mean),
            json!(lo),
            json!(hi),
        ]);
        if let Some(e) = &c.model_error {
            out.differences.push(format!(
                "{} n={} k={}: no model value ({e})",
                c.policy, c.n, c.k
            ));
        }
        if let Some(mv) = model {
            let s = &mut inside[pi];
            s.1 += 1;
            if (lo..=hi).contains(&mv) {
                s.0 += 1;
            }
            if lo > 0.0 {
                s.2 = s.2.max((mv - mean).abs() / mean);
            }
            model_pts.push((x as f64, mv));
        }
        sim_pts.push((x as f64, mean, lo, hi));
        printed_pts.push((x as f64, printed_pct, printed_pct, printed_pct));
    }
    for (pi, &(ok, of, gap)) in inside.iter().enumerate() {
        let policy = TABLE_POLICIES[pi];
        let (kind, stated) = match (policy.tracks_cumulative(), fp) {
            (false, _) => ("per-cell items", "exact per cell up to the mean pool size"),
            (true, true) => (
                "per-cell items and counter",
                "stated: within a few % for IBF3/IBF5, up to 20% for MinImp (IBF2/IBF4) at few items per cell",
            ),
            (true, false) => (
                "per-cell items and counter",
                "stated: within 6% of the mean for IBF3/IBF5 and 3-25% high for MinImp (IBF2/IBF4), most at few items per cell",
            ),
        };
        out.differences.push(format!(
            "{policy}: the {kind} stream model's {what} lies in the measured 99% interval in {ok} of {of} settings; largest gap {:.0}% of the measured value where its interval excludes 0 ({stated}; see `stream_metrics`)",
            100.0 * gap
        ));
    }
    // The thesis's trends, checked on the measurements.
    let by = |p: Policy, s: (u64, u32)| {
        cells
            .iter()
            .find(|c| c.policy == p && (c.n, c.k) == s)
            .map(|c| if fp { c.fp.0 } else { c.fnr.0 })
    };
    let mut held = 0;
    let mut total = 0;
    for &s in &TABLE_SETTINGS {
        for p in [Policy::Ibf2, Policy::Ibf3, Policy::Ibf4, Policy::Ibf5] {
            if let (Some(a), Some(b)) = (by(p, s), by(Policy::Sbf, s)) {
                total += 1;
                if (fp && a < b) || (!fp && a > b) {
                    held += 1;
                }
            }
        }
    }
    out.differences.push(format!(
        "trend of Section 6.3: importance-aware deletion (IBF2-IBF5) has {} {what} than the SBF in {held} of {total} (setting, policy) pairs measured",
        if fp { "lower" } else { "higher" }
    ));
    out.differences.push(format!(
        "absolute values differ from the printed ones: the thesis does not state M, p, the Imp-insert mapping or the normaliser of its percentages (M = 4, p = 7 from Figures 5-6, Imp-insert capped at M, percentages of queried importance are used here); its k = 8 columns are internally inconsistent (BF wFP 5.87 at n = 16384 but 33.31 at n = 65536; IBF5 49.90); the BF row (a classic filter) is not reproduced{}",
        if f < 1.0 {
            format!("; run at {f} of the thesis's size (n and the stream scaled together)")
        } else {
            String::new()
        }
    ));
    out.plot = Some(Plot {
        x_label: "row: (n, k) = (16384, 4) … (262144, 8) × SBF, IBF1 … IBF5".into(),
        y_label: format!("{what} (%)"),
        log_y: false,
        series: vec![
            Series::points("thesis (printed)", printed_pts),
            Series::line("stream model", model_pts),
            Series::points("simulated, 99% interval", sim_pts),
        ],
    });
    Ok(out)
}
