//! `bfopt model|optimize|simulate pbf` and `model pbf-bound` (issue 7).

use super::{assert_exit, bfopt, exits, json, json_out, temp_file, words};
use serde::Deserialize;
use std::path::PathBuf;

/// A trace file under the target's temp dir, unique per test.
fn trace_file(name: &str, body: &str) -> PathBuf {
    temp_file("pbf-cli", name, body)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelJson {
    family: String,
    params: ModelParams,
    metrics: ModelMetrics,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelParams {
    bits: u64,
    distinct: Vec<f64>,
    frequency: Vec<f64>,
    max_hashes: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelMetrics {
    bits: Vec<f64>,
    lambda: Option<f64>,
    fp: f64,
    hashes: Vec<u32>,
    bits_rounded: Vec<u64>,
    fp_rounded: f64,
    fp_uniform: f64,
}

#[test]
fn model_pbf_json_shape_and_kkt() {
    let j: ModelJson = json("model pbf --bits 2e4 --distinct 1000,50,0,300 --frequency 0.9,1,1,0");
    assert_eq!(j.family, "pbf");
    assert_eq!((j.params.bits, j.params.max_hashes), (20_000, 16));
    assert_eq!(j.params.distinct.len(), 4);
    assert_eq!(j.params.frequency.len(), 4);
    let m = &j.metrics;
    assert!((m.bits.iter().sum::<f64>() - 20_000.0).abs() < 1e-6);
    assert_eq!(m.bits_rounded.iter().sum::<u64>(), 20_000);
    // KKT boundary: d = 0 and f = 0 get nothing.
    assert_eq!((m.bits[2], m.bits[3]), (0.0, 0.0));
    assert_eq!((m.hashes[2], m.hashes[3]), (0, 0));
    // Stationarity: f_i·(ln²2/d_i)·p_i/(1 − p_i) = −λ for the active filters.
    let c = std::f64::consts::LN_2.powi(2);
    let mu = -m.lambda.unwrap();
    for (i, (d, f)) in [(1000.0, 0.9), (50.0, 1.0)].into_iter().enumerate() {
        let p = (-c * m.bits[i] / d).exp();
        assert!((f * c / d * p / (1.0 - p) / mu - 1.0).abs() < 1e-6);
    }
    // fp = 1 − Π(1 − 2^(−ln2·m_i/d_i))^{f_i}.
    let fp = 1.0
        - (1.0 - (-c * m.bits[0] / 1000.0).exp()).powf(0.9) * (1.0 - (-c * m.bits[1] / 50.0).exp());
    assert!((m.fp / fp - 1.0).abs() < 1e-9);
    assert_eq!(m.hashes[0], 13); // ⌈18740/1000·ln 2⌉
    assert!(m.fp_rounded >= m.fp * 0.9 && m.fp_uniform > m.fp_rounded);
}

/// A frequency of 1e308 on a one-bit budget: the log of the no-hit probability overflows
/// to −∞ and the FP is 1 (a fuzz input; it printed `"fp": null` and panicked in debug).
#[test]
fn model_pbf_with_an_overflowing_frequency_has_fp_1() {
    let j: ModelJson =
        json("model pbf --bits 1 --distinct 6.54e1,4.9e0 --frequency 6.85e1,1e308 --max-hashes 2");
    assert_eq!(j.metrics.fp, 1.0);
    assert_eq!(j.metrics.bits_rounded.iter().sum::<u64>(), 1);
}

/// Issue 17 (a fuzz input): one filter's FP is below the smallest `f64` (about
/// `e^(−818)`), but it is probed 1e308 times: the rounded FP is 6.3e-48, printed as a
/// number (it was 0 in `f64`, then printed as the text `"6.285e-48"`). The continuous
/// optimum's FP is truly below 2.2e-308 and stays text with its log10.
#[test]
fn model_pbf_keeps_a_tiny_filter_fp_probed_very_often() {
    let j: serde_json::Value = json(
        "model pbf --bits 2037136148 --distinct 2.76e1,4.68e1 --frequency 1e308,1.05e1 --max-hashes 63",
    );
    let m = &j["metrics"];
    let rounded = m["fp_rounded"].as_f64().expect("fp_rounded is a number");
    assert!(rounded > 6.2e-48 && rounded < 6.4e-48, "{rounded}");
    assert!(m.get("fp_rounded_log10").is_none(), "{m}");
    let uniform = m["fp_uniform"].as_f64().expect("fp_uniform is a number");
    assert!(uniform > 0.0 && uniform <= 1.0, "{uniform}");
    assert!(
        m["fp"].is_string() && m["fp_log10"].as_f64().unwrap() < -308.0,
        "{m}"
    );
}

#[test]
fn model_pbf_rejects_bad_lists() {
    let pbf = "model pbf --bits 100";
    for (lists, needles) in [
        (
            "--distinct 1,2 --frequency 1",
            &["--frequency = 1 values"][..],
        ),
        (
            "--distinct 1,-2 --frequency 1,1",
            &["--distinct = -2", "value 2 of the list"],
        ),
        ("--distinct 1,x --frequency 1,1", &[]),
        (
            "--distinct 1 --frequency 1 --max-hashes 0",
            &["--max-hashes"],
        ),
    ] {
        assert_exit(&format!("{pbf} {lists}"), 2, needles);
    }
}

#[test]
fn model_pbf_bound_is_eq14_appendix_form() {
    let v: serde_json::Value =
        json("model pbf-bound --pairs 2127749 --horizon 86400 --fp 0.01 --query-length 128");
    let bits = v["metrics"]["bits"].as_f64().unwrap();
    let c = std::f64::consts::LN_2.powi(2);
    let want = 2_127_749.0 * 86_400f64.log2() * (1.0 / (1.0 - 0.99f64.powf(1.0 / 14.0))).ln() / c;
    assert!((bits / want - 1.0).abs() < 1e-12, "{bits} vs {want}");
    assert_eq!(v["metrics"]["insertions"], 18);
    assert_eq!(v["metrics"]["max_probes"], 8);
    assert!(v["metrics"]["bits_levels"].as_f64().unwrap() > 0.0);
    for (flag, value, msg) in [
        ("--granularity", "3", "power of two"),
        ("--horizon", "0", "--horizon = 0"),
        ("--fp", "1.5", "--fp = 1.5"),
        ("--query-length", "1", "--query-length = 1"),
    ] {
        let mut args = vec!["model", "pbf-bound"];
        for (f, v) in [
            ("--pairs", "1000"),
            ("--horizon", "1000"),
            ("--fp", "0.01"),
            ("--query-length", "16"),
            ("--granularity", "1"),
        ] {
            args.extend([f, if f == flag { value } else { v }]);
        }
        exits(bfopt().args(&args), 2, &[msg]);
    }
}

fn small_trace() -> String {
    // Three clients in sessions over [1, 512]: each visits a run of seconds.
    let mut s = String::from("item,timestamp\n");
    for (client, start) in [("a", 1u64), ("b", 100), ("c", 300), ("a", 400)] {
        for t in start..start + 60 {
            s.push_str(&format!("{client},{t}\n"));
        }
    }
    s
}

#[test]
fn optimize_pbf_reports_levels_and_predicted_fp() {
    let path = trace_file("small.csv", &small_trace());
    for variant in ["1", "2"] {
        let out = bfopt()
            .args(["optimize", "pbf", "--trace"])
            .arg(&path)
            .args(words(&format!(
                "--bits 4000 --query-length 16 --variant {variant} --queries 2000 --format json"
            )))
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
        let summary = &rows[0];
        assert_eq!(summary["params"]["level"], "all");
        assert_eq!(summary["params"]["horizon"], 459);
        let fp = summary["metrics"]["predicted_fp"].as_f64().unwrap();
        let uniform = summary["metrics"]["predicted_fp_uniform"].as_f64().unwrap();
        assert!(
            (0.0..=1.0).contains(&fp) && fp < uniform,
            "{variant}: {fp} vs {uniform}"
        );
        let bits: u64 = rows[1..]
            .iter()
            .map(|r| r["metrics"]["bits"].as_u64().unwrap())
            .sum();
        assert_eq!(
            bits, 4000,
            "levels (and the fine filter) split all the bits"
        );
        // PBF-2 over T = 459 has ⌈log2 459⌉ + 1 = 10 levels.
        if variant == "2" {
            assert_eq!(rows.len(), 1 + 10);
        }
    }
}

#[test]
fn optimize_pbf_trace_errors_name_file_and_line() {
    let optimize = |flags: &str, trace: &std::path::Path, needle: &str| {
        let line = format!("optimize pbf --bits 100 --query-length 2 {flags} --trace");
        exits(bfopt().args(words(&line)).arg(trace), 2, &[needle]);
    };
    let bad = trace_file("bad.csv", "item,timestamp\na,1\nb,2.5\n");
    optimize("", &bad, "bad.csv:3: timestamp = 2.5");
    let missing = trace_file("missing.csv", "a,1\nb\n");
    optimize("", &missing, "missing.csv:2: missing timestamp");
    // Blank lines and a multi-line quoted item count as physical lines.
    let blanks = trace_file("blanks.csv", "item,timestamp\n\na,1\n\"b\nc\",2\n\nd,0\n");
    optimize("", &blanks, "blanks.csv:7: timestamp = 0");
    let ok = trace_file("ok.csv", &small_trace());
    optimize("--online", &ok, "--online needs --horizon");
    optimize("--horizon 100", &ok, "largest timestamp 459");
}

#[test]
fn simulate_pbf_agrees_and_is_deterministic() {
    let args = words("simulate pbf --scale 0.002 --queries 1500 --method pbf2-opt");
    let out = json_out(&args);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    assert_eq!(rows.len(), 1);
    let m = &rows[0]["metrics"];
    assert_eq!(m["agrees"], true);
    assert_eq!(m["false_negatives"], 0);
    assert_eq!(m["filters"], 18);
    assert_eq!(rows[0]["params"]["bits"], 100_000);
    assert_eq!(out, json_out(&args));
    assert_exit("simulate pbf --scale 2", 2, &["--scale = 2"]);
}

/// Issue 19: one input of the day or of the learner changed at a time. Visits one second
/// apart coalesce PBF-2's coarse levels (its FP falls, the model still agrees); bad
/// values exit 2 naming the flag.
#[test]
fn simulate_pbf_changes_one_input_at_a_time() {
    let base = "simulate pbf --scale 0.002 --queries 1500 --method pbf2-opt";
    let fp = |extra: &str| {
        let out = json_out(&words(&format!("{base} {extra}")));
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
        assert_eq!(rows[0]["metrics"]["agrees"], true, "{extra}");
        rows[0]["metrics"]["fp"].as_f64().unwrap()
    };
    let (shape, continuous) = (fp(""), fp("--session-gap 1 --session-visits 400"));
    assert!(continuous < 0.5 * shape, "{continuous} vs {shape}");
    let online = words(
        "simulate pbf --scale 0.002 --queries 500 --method pbf1-online --online-same-day \
         --online-exact --online-smoothing 0.2",
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&json_out(&online)).unwrap();
    assert_eq!(rows[0]["params"]["online_same_day"], true);
    assert_eq!(rows[0]["params"]["online_smoothing"], 0.2);
    assert_eq!(rows[0]["metrics"]["agrees"], true);
    assert_exit(
        &format!("{base} --session-gap 0.5"),
        2,
        &["--session-gap = 0.5"],
    );
    assert_exit(
        "simulate pbf --scale 0.002 --method pbf1-online --online-smoothing 2",
        2,
        &["--online-smoothing = 2"],
    );
}

/// Issue 10: a PBF-1 over `T = 2^40` cannot be materialised: exit 2 naming the horizon
/// (it tried to allocate 4 TB before); a horizon too short for the bound likewise.
#[test]
fn issue_10_extreme_horizons_are_clear_errors() {
    let big = trace_file("big.csv", "1,1\n2,1099511627776\n");
    exits(
        bfopt()
            .args(words(
                "optimize pbf --variant 1 --bits 1e6 --query-length 4 --trace",
            ))
            .arg(&big),
        2,
        &["--horizon = 1099511627776", "a materialised PBF may have"],
    );
    // PBF-2 has 41 filters there and solves.
    bfopt()
        .args(words(
            "optimize pbf --variant 2 --bits 1e6 --query-length 1099511627776 --trace",
        ))
        .arg(&big)
        .assert()
        .success();
    assert_exit(
        "model pbf-bound --pairs 1 --horizon 1 --fp 0.5 --query-length 1",
        2,
        &["--horizon = 1: allowed horizon >= 2"],
    );
}
