//! Stable / Importance-aware filters: the quick suite (every policy at the Figure 7
//! [SBF] setting against the reference filters).

use bfopt_validation::suite::{self, Level};

#[test]
fn stable_suite_passes_at_quick_size() {
    // 7 policies x (zero fraction, probe fp, weighted fn) at the Figure 7 setting, plus
    // the SBF convergence check, plus the SBF on three repeating streams (zero fraction,
    // probe fp, fn at four ages).
    let checks = suite::run(Some("stable"), Level::Quick, 1).unwrap();
    assert_eq!(checks.len(), 40);
    for c in &checks {
        println!("{c}");
    }
    crate::assert_all_pass(&checks);
}

use bfopt_models::stable::{IbfParams, ImportanceDist, Policy};
use bfopt_validation::experiments::stable::{
    thesis_stream, ThesisStreamConfig, ThesisStreamResult,
};

fn stream(policy: Policy, m: u64, k: u32, max: u32, p: u64, arrivals: u64) -> ThesisStreamResult {
    let imp = ImportanceDist::linear(1, 50).unwrap();
    let params = IbfParams::new(policy, m, k, max, p, imp).unwrap();
    thesis_stream(&ThesisStreamConfig {
        params,
        arrivals,
        duplicate_rate: 0.7,
        checkpoints: 10,
        epochs: 4,
        seed: 8,
        confidence: 0.99,
    })
    .unwrap()
}

/// Mean zero cells over the second half of the stream.
fn late_zeros(r: &ThesisStreamResult) -> f64 {
    let z = &r.zero_cells;
    z[z.len() / 2..].iter().sum::<f64>() / (z.len() - z.len() / 2) as f64
}

#[test]
fn figure7_stream_with_duplicates_keeps_far_fewer_zeros_than_printed() {
    // Figure 7 [SBF]: n = 512, k = 4, p = 5, M = 5, 70% repeats. The thesis reads "around
    // 50" zeros for the SBF; the distinct-item stable point is 26.6. A repeat re-sets
    // cells that are mostly still non-zero, so sets land on zero cells less often than
    // for distinct items and the filter keeps somewhat more zeros than the distinct-item
    // chain says: 31.2 measured here (4 epochs of 20 000 arrivals, seed 8; 28.7 with
    // 100 000 arrivals, where repeats are older). Still far from 50.
    let zeros: Vec<(Policy, f64)> = Policy::ALL
        .into_iter()
        .map(|p| (p, late_zeros(&stream(p, 512, 4, 5, 5, 20_000))))
        .collect();
    let sbf = zeros[0].1;
    assert!(sbf > 26.63 && sbf < 40.0, "SBF zeros {sbf}");
    // Every IBF keeps more zeros than the SBF, IBF2 the most (the printed ordering).
    for &(p, z) in &zeros[1..] {
        assert!(z > sbf, "{p}: {z} <= {sbf}");
        assert!(z <= zeros[2].1 + 1e-9, "{p}: {z} > IBF2 {}", zeros[2].1);
    }
}

#[test]
fn tables_3_4_and_figures_3_6_trends() {
    // Section 6.3 [SBF]: importance-aware deletion (probabilistic, MinImp) gives lower
    // wFP and higher wFN than random deletion; Figures 3-6: FN falls with importance for
    // the IBFs and is flat for the SBF. Scaled down (n = 4096 instead of 16384-262144,
    // 30 000 arrivals instead of 100 000; M = 4, p = 7 as in Figures 4-6, which Tables
    // 3-4 do not state).
    let r: Vec<(Policy, ThesisStreamResult)> = Policy::ALL
        .into_iter()
        .map(|p| (p, stream(p, 4096, 4, 4, 7, 30_000)))
        .collect();
    let sbf = &r[0].1;
    let band = |x: &[bfopt_validation::stats::Proportion]| {
        let (lo, hi) = (&x[..5], &x[45..]);
        let rate = |s: &[bfopt_validation::stats::Proportion]| {
            let (k, n) = s
                .iter()
                .fold((0, 0), |a, p| (a.0 + p.successes, a.1 + p.trials));
            k as f64 / n as f64
        };
        (rate(lo), rate(hi))
    };
    let (s_lo, s_hi) = band(&sbf.fn_by_importance);
    assert!(
        (s_lo - s_hi).abs() < 0.03,
        "SBF FN not flat: {s_lo} vs {s_hi}"
    );
    for (p, res) in &r[1..] {
        let (lo, hi) = band(&res.fn_by_importance);
        assert!(lo > hi + 0.03, "{p}: FN {lo} (imp 1-5) vs {hi} (imp 46-50)");
        if !p.is_local() {
            assert!(
                res.weighted_fp.interval.hi < sbf.weighted_fp.interval.lo,
                "{p}: wFP {:?} vs SBF {:?}",
                res.weighted_fp,
                sbf.weighted_fp
            );
            assert!(
                res.weighted_fn.interval.lo > sbf.weighted_fn.interval.hi,
                "{p}"
            );
        }
    }
}

/// The small agreement setting of the thesis stream: m = 1024, K = 4, Max = 3, P = 6,
/// 12 000 arrivals, 70% repeats, 8 epochs.
const SMALL: (u64, u32, u32, u64, u64) = (1024, 4, 3, 6, 12_000);

/// Model and measurement of one policy on the small thesis stream; returns the message.
fn stream_agreement(policy: Policy, seed: u64, fp_band: f64, fn_band: f64) -> String {
    use bfopt_models::stable::{stream_metrics, RepeatStream, StreamMethod};
    let (m, k, max, p, n) = SMALL;
    let imp = ImportanceDist::linear(1, 50).unwrap();
    let params = IbfParams::new(policy, m, k, max, p, imp).unwrap();
    let pred = stream_metrics(&params, &RepeatStream::new(n, 0.7).unwrap()).unwrap();
    if policy.tracks_cumulative() {
        assert!(
            matches!(pred.method, StreamMethod::CellItemsCounter { .. }),
            "{policy}: {:?}",
            pred.method
        );
    } else {
        assert!(
            matches!(pred.method, StreamMethod::CellItems { .. }),
            "{policy}"
        );
    }
    let r = thesis_stream(&ThesisStreamConfig {
        params,
        arrivals: n,
        duplicate_rate: 0.7,
        checkpoints: 10,
        epochs: 8,
        seed,
        confidence: 0.99,
    })
    .unwrap();
    let (fp, fnr) = (&r.weighted_fp, &r.weighted_fn);
    let msg = format!(
        "{policy}: wFP model {:.4} sim {:.4} [{:.4}, {:.4}]; wFN model {:.4} sim {:.4} [{:.4}, {:.4}]",
        pred.weighted_fp, fp.mean, fp.interval.lo, fp.interval.hi,
        pred.weighted_fn, fnr.mean, fnr.interval.lo, fnr.interval.hi,
    );
    println!("{msg}");
    let inside =
        |x: f64, lo: f64, hi: f64, band: f64| x >= lo * (1.0 - band) && x <= hi * (1.0 + band);
    assert!(
        inside(pred.weighted_fp, fp.interval.lo, fp.interval.hi, fp_band),
        "{msg}"
    );
    assert!(
        inside(pred.weighted_fn, fnr.interval.lo, fnr.interval.hi, fn_band),
        "{msg}"
    );
    msg
}

/// Issue 8: the FN / FP model for a stream with repeats against the reference filters
/// on the thesis's stream (70% repeats drawn uniformly from the earlier distinct items;
/// [`SMALL`]).
///
/// Policies without a counter (SBF, IBF1, IBF6) use the per-cell-items model, whose
/// cells remember how many distinct items they hold; measured (model / simulation): SBF
/// wFN 0.509 / 0.509, wFP 0.299 / 0.300; IBF1 wFN 0.524 / 0.523, wFP 0.283 / 0.287: inside
/// the 99% intervals, so they are checked against the interval with a 2% band.
#[test]
fn issue_8_stream_with_repeats_model_matches_simulation() {
    for (seed, policy) in [Policy::Sbf, Policy::Ibf1, Policy::Ibf6]
        .into_iter()
        .enumerate()
    {
        stream_agreement(policy, 21 + seed as u64, 0.02, 0.02);
    }
}

/// Issue 8, policies with a cumulative-importance counter (IBF2-IBF5): the per-cell
/// items-and-counter model (`StreamMethod::CellItemsCounter`). Its stated errors at this
/// setting: wFP within the interval widened by [`STREAM_FP_BAND`]; wFN within
/// [`STREAM_FN_BAND_PROB`] (Probabilistic-delete-p) or [`STREAM_FN_BAND_MINIMP`] (MinImp,
/// model high: its FN falls with importance later than measured). Measured values: the
/// table in `bfopt_models::stable`'s module doc.
#[test]
fn issue_8_stream_with_repeats_counter_policies_ibf2_ibf4() {
    stream_agreement(Policy::Ibf2, 25, STREAM_FP_BAND, STREAM_FN_BAND_MINIMP);
    stream_agreement(Policy::Ibf4, 27, STREAM_FP_BAND, STREAM_FN_BAND_MINIMP);
}

/// As [`issue_8_stream_with_repeats_counter_policies_ibf2_ibf4`], Probabilistic-delete-p.
#[test]
fn issue_8_stream_with_repeats_counter_policies_ibf3_ibf5() {
    stream_agreement(Policy::Ibf3, 24, STREAM_FP_BAND, STREAM_FN_BAND_PROB);
    stream_agreement(Policy::Ibf5, 28, STREAM_FP_BAND, STREAM_FN_BAND_PROB);
}

/// Stated wFP error of the items-and-counter stream model at [`SMALL`].
const STREAM_FP_BAND: f64 = 0.05;
/// Stated wFN error, Probabilistic-delete-p (IBF3, IBF5): IBF3 inside the interval and
/// IBF5 0.01% above it since issue 19's session 19 (16 query times, every 1024th age
/// read; 2.2% and 2.5% above before, under a 5% band).
const STREAM_FN_BAND_PROB: f64 = 0.01;
/// Stated wFN error, MinImp (IBF2, IBF4): the model 2.7% (IBF2) and 3.9% (IBF4) above
/// the interval since session 20 (16 tracked importances: with 5 it was 2.1% and 3.2%, a
/// smooth FN by importance at this setting's 14 items per cell, slightly under-read;
/// 3.5% and 4.6% after session 14, under a 6% band; 8-10% before it, under 15%).
const STREAM_FN_BAND_MINIMP: f64 = 0.04;

/// Issue 19 item 2: the SBF on repeating streams (uniform over 2m items, Zipf over 4m
/// ranks, window repeats at rate 0.5), zero fraction, probe FP and FN at four ages
/// against the model on the stream's `D(·)`, each inside its 99% interval.
#[test]
fn sbf_on_repeating_streams_agrees_with_the_distinct_items_model() {
    use bfopt_validation::experiments::sbf_stream;
    let checks: Vec<_> = sbf_stream::configs(Level::Quick, 40, 0.99)
        .iter()
        .flat_map(sbf_stream::config_checks)
        .collect();
    for c in &checks {
        println!("{c}");
    }
    assert_eq!(checks.len(), 18);
    crate::assert_all_pass(&checks);
    // The test can fail: the distinct-stream model (every arrival a fresh item) is
    // outside the interval of the FN at age T = m·Max/P on every stream (repeats leave
    // more zeros, so the measured FN is higher).
    let fn_at_t: Vec<_> = checks
        .iter()
        .filter(|c| c.name.ends_with("fn at age 512"))
        .collect();
    assert_eq!(fn_at_t.len(), 3);
    let distinct = bfopt_models::stable::SbfParams::new(1024, 4, 3, 6)
        .unwrap()
        .fn_at_age(512);
    for c in fn_at_t {
        assert!(distinct < c.lo, "{}: distinct model {distinct}", c.name);
    }
}

/// Issue 19 item 2 at the full level's sizes (also m = 2^16, K = 4, Max = 4, P = 7, the
/// thesis's filter [SBF]): `cargo test --test agreement -- --ignored sbf_on_repeating`.
#[test]
#[ignore = "full level: about a minute"]
fn sbf_on_repeating_streams_full_level() {
    use bfopt_validation::experiments::sbf_stream;
    let checks: Vec<_> = sbf_stream::configs(Level::Full, 40, 0.99)
        .iter()
        .flat_map(sbf_stream::config_checks)
        .collect();
    for c in &checks {
        println!("{c}");
    }
    assert_eq!(checks.len(), 36);
    crate::assert_all_pass(&checks);
}
