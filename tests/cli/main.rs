//! The `bfopt` binary: exit codes, JSON shape, error messages.

use assert_cmd::Command;
use predicates::prelude::*;
use serde::Deserialize;

fn bfopt() -> Command {
    Command::cargo_bin("bfopt").unwrap()
}

/// `bfopt model classic --format json`, field by field; unknown keys fail the test.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassicModelJson {
    family: String,
    params: ClassicParamsJson,
    metrics: ClassicMetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassicParamsJson {
    m: u64,
    k: u32,
    n: u64,
    layout: String,
    block_bits: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassicMetricsJson {
    fp: f64,
    fp_approx: f64,
    fp_exact: Option<f64>,
    fill: f64,
    bits_per_item: f64,
    memory_bytes: u64,
    accesses_insert: f64,
    accesses_query_true: f64,
    accesses_query_false: f64,
}

#[test]
fn model_classic_json_shape() {
    let out = bfopt()
        .args([
            "model", "classic", "--bits", "1e4", "--hashes", "7", "--items", "1_000", "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j: ClassicModelJson = serde_json::from_slice(&out).unwrap();
    assert_eq!(j.family, "classic");
    assert_eq!((j.params.m, j.params.k, j.params.n), (10_000, 7, 1000));
    assert_eq!(j.params.layout, "standard");
    assert!(j.params.block_bits.is_none());
    let m = &j.metrics;
    // (1-(1-1/m)^(kn))^k and (1-e^(-kn/m))^k at m = 10^4, k = 7, n = 10^3.
    let fp = (1.0 - (1.0f64 - 1e-4).powf(7000.0)).powi(7);
    assert!((m.fp / fp - 1.0).abs() < 1e-12, "{} vs {fp}", m.fp);
    assert!((m.fp_approx / (1.0 - (-0.7f64).exp()).powi(7) - 1.0).abs() < 1e-12);
    let exact = m.fp_exact.expect("computable at m = 10^4");
    assert!(exact > m.fp && exact < 1.01 * m.fp);
    assert_eq!(m.bits_per_item, 10.0);
    assert!(m.fill > 0.5 && m.fill < 0.51);
    assert_eq!(m.memory_bytes, 1250);
    assert_eq!((m.accesses_insert, m.accesses_query_true), (7.0, 7.0));
    assert!(m.accesses_query_false > 1.0 && m.accesses_query_false < 2.1);
}

#[test]
fn model_classic_layouts() {
    for (layout, extra) in [("partitioned", None), ("blocked", Some("1024"))] {
        let mut args = vec![
            "model", "classic", "--bits", "1Mib", "--hashes", "6", "--items", "50000", "--layout",
            layout, "--format", "json",
        ];
        if let Some(b) = extra {
            args.extend(["--block-bits", b]);
        }
        let out = bfopt()
            .args(&args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let j: ClassicModelJson = serde_json::from_slice(&out).unwrap();
        assert_eq!(j.params.layout, layout);
        assert_eq!(j.params.m, 1 << 20);
        assert_eq!(j.params.block_bits, extra.map(|b| b.parse().unwrap()));
        assert!(j.metrics.fp > 0.0 && j.metrics.fp < 0.1);
    }
}

#[test]
fn optimize_classic_meets_target() {
    let out = bfopt()
        .args([
            "optimize", "classic", "--fp", "0.01", "--items", "1e6", "--format", "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["family"], "classic");
    assert_eq!(v["metrics"]["hashes"], 7);
    assert!(v["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    let bits = v["metrics"]["bits"].as_u64().unwrap();
    assert!((9_500_000..9_700_000).contains(&bits), "{bits}");
    assert!((v["metrics"]["bits_per_item"].as_f64().unwrap() - bits as f64 / 1e6).abs() < 1e-9);
}

#[test]
fn optimize_classic_best_k_and_capacity() {
    let best = bfopt()
        .args([
            "optimize", "classic", "--bits", "1e4", "--items", "1000", "--format", "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&best).unwrap();
    assert_eq!(v["metrics"]["hashes"], 7);
    let cap = bfopt()
        .args([
            "optimize", "classic", "--bits", "1e4", "--hashes", "7", "--fp", "0.01", "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&cap).unwrap();
    let n = v["metrics"]["capacity"].as_u64().unwrap();
    assert!(v["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    assert!((1000..1100).contains(&n), "{n}");
    bfopt()
        .args(["optimize", "classic", "--fp", "0.01"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("allowed one of: --fp P --items N"));
}

#[test]
fn recommend_ranks_by_memory_in_every_format() {
    let out = bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--capacity",
            "1e6",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    assert_eq!(rows.len(), 3);
    let bits: Vec<u64> = rows
        .iter()
        .map(|r| r["metrics"]["bits"].as_u64().unwrap())
        .collect();
    assert!(bits.windows(2).all(|w| w[0] <= w[1]), "{bits:?}");
    assert!(rows
        .iter()
        .all(|r| r["metrics"]["fp"].as_f64().unwrap() <= 0.01));
    bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--capacity",
            "1e6",
            "--format",
            "csv",
        ])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("family,fp_target,n,layout"))
        .stdout(predicate::str::contains("classic,0.01,1000000,standard"));
    bfopt()
        .args(["recommend", "--fp", "0.01", "--capacity", "1e6"])
        .assert()
        .success()
        .stdout(predicate::str::contains("blocked"));
}

#[test]
fn exit_3_when_nothing_fits_the_budget() {
    bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--capacity",
            "1e6",
            "--memory",
            "1MiB",
        ])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("--memory 8388608"));
}

#[test]
fn exit_2_names_flag_value_and_range() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["optimize", "classic", "--fp", "1.5", "--items", "10"],
            "--fp = 1.5: allowed 0 < fp < 1",
        ),
        (
            &["optimize", "classic", "--fp", "0", "--items", "10"],
            "--fp = 0: allowed 0 < fp < 1",
        ),
        (
            &["optimize", "classic", "--fp", "NaN", "--items", "10"],
            "'NaN' for '--fp",
        ),
        (
            &["optimize", "classic", "--fp", "0.1", "--items", "0"],
            "--items = 0: allowed 1 <= n",
        ),
        (
            &[
                "model", "classic", "--bits", "1000", "--hashes", "0", "--items", "10",
            ],
            "--hashes = 0: allowed 1 <= k <= 64",
        ),
        (
            &[
                "model", "classic", "--bits", "3", "--hashes", "7", "--items", "10",
            ],
            "--bits = 3: allowed m >= k = 7",
        ),
        (
            &[
                "model",
                "classic",
                "--bits",
                "1024",
                "--hashes",
                "7",
                "--items",
                "10",
                "--layout",
                "blocked",
                "--block-bits",
                "100",
            ],
            "--block-bits = 100: allowed a multiple of 64",
        ),
        (
            &[
                "model", "classic", "--bits", "1000", "--hashes", "7", "--items", "10", "--layout",
                "blocked",
            ],
            "--bits = 1000: allowed a multiple of block_bits = 512",
        ),
        (
            &[
                "model", "classic", "--bits", "1000", "--hashes", "7", "--items", "10", "--layout",
                "diagonal",
            ],
            "'diagonal' for '--layout",
        ),
        (
            &[
                "model",
                "classic",
                "--bits",
                "12parsecs",
                "--hashes",
                "7",
                "--items",
                "10",
            ],
            "unknown unit",
        ),
        (
            &[
                "model", "classic", "--bits", "1000", "--hashes", "7", "--items", "-5",
            ],
            "'-5' for '--items",
        ),
        (
            &[
                "model", "classic", "--bits", "1000", "--hashes", "7", "--items", "1.5",
            ],
            "not a whole number",
        ),
        (
            &[
                "model", "classic", "--bits", "1000", "--hashes", "7", "--items", "10", "--format",
                "junit",
            ],
            "--format = junit: allowed only with validate",
        ),
        (
            &[
                "simulate", "classic", "--bits", "1000", "--hashes", "7", "--items", "10",
                "--epochs", "1",
            ],
            "--epochs = 1: allowed 2 <= epochs",
        ),
        (
            &[
                "simulate",
                "classic",
                "--bits",
                "1000",
                "--hashes",
                "7",
                "--items",
                "10",
                "--workload",
                "uniform",
                "--duplicates",
                "1",
            ],
            "--duplicates = 1: allowed 0 <= duplicate_rate < 1",
        ),
        (
            &["validate", "--family", "nonesuch"],
            "--family = nonesuch: allowed one of classic",
        ),
    ];
    for (args, message) in cases {
        bfopt()
            .args(*args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*message));
    }
}

#[test]
fn trace_errors_name_file_and_line() {
    let dir = std::env::temp_dir().join(format!("bfopt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "a,1\nb,2\nc,yesterday\n").unwrap();
    bfopt()
        .args([
            "simulate", "classic", "--bits", "1000", "--hashes", "3", "--items", "2", "--trace",
        ])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.csv:3: timestamp = \"yesterday\"",
        ));
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    bfopt()
        .args([
            "simulate", "classic", "--bits", "1000", "--hashes", "3", "--items", "2", "--trace",
        ])
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no items"));
    let good = dir.join("good.csv");
    std::fs::write(&good, "item\nx\ny\nx\nz\n").unwrap();
    bfopt()
        .args([
            "simulate", "classic", "--bits", "1000", "--hashes", "3", "--items", "3", "--epochs",
            "2", "--probes", "100", "--format", "json", "--trace",
        ])
        .arg(&good)
        .assert()
        .success()
        .stdout(predicate::str::contains("\"workload\": \"trace(4 keys)\""));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn simulate_classic_reports_intervals_and_is_deterministic() {
    let args = [
        "simulate", "classic", "--bits", "16384", "--hashes", "6", "--items", "1800", "--epochs",
        "4", "--probes", "20000", "--seed", "7", "--format", "json",
    ];
    let a = bfopt()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let b = bfopt()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(a, b, "same seed, same bytes");
    let v: serde_json::Value = serde_json::from_slice(&a).unwrap();
    let m = &v["metrics"];
    let (lo, hi) = (
        m["measured_fp_lo"].as_f64().unwrap(),
        m["measured_fp_hi"].as_f64().unwrap(),
    );
    let measured = m["measured_fp"].as_f64().unwrap();
    assert!(lo <= measured && measured <= hi);
    assert_eq!(v["params"]["seed"], 7);
}

#[test]
fn validate_classic_passes_and_writes_junit() {
    bfopt()
        .args(["validate", "--family", "classic"])
        .assert()
        .success()
        .stdout(predicate::str::contains("29 passed, 0 failed"));
    bfopt()
        .args(["validate", "--family", "classic", "--format", "junit"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            r#"<testsuite name="bfopt validate" tests="29" failures="0">"#,
        ))
        .stdout(predicate::str::contains(
            r#"<testcase classname="bfopt.classic""#,
        ));
}

#[test]
fn help_and_version_exit_0() {
    bfopt()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("recommend"));
    bfopt().arg("--version").assert().success();
    bfopt().assert().code(2);
}
mod gbf;
mod timing;
