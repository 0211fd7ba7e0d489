//! The `bfopt` binary: exit codes, JSON shape, error messages.

use assert_cmd::Command;
use predicates::prelude::*;
use serde::Deserialize;

mod apbf;
mod bad_input;
mod fuzz_smoke;
mod gbf;
mod pbf;
mod rbf;
mod recommend_validate;
mod reliability;
mod stable;
mod timing;

fn bfopt() -> Command {
    Command::cargo_bin("bfopt").unwrap()
}

/// Stdout of a successful run with `--format json`.
fn json_out(args: &[&str]) -> Vec<u8> {
    bfopt()
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

/// The same, parsed.
fn json_value(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&json_out(args)).unwrap()
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
        .stdout(predicate::str::starts_with(
            "family,design,parameters,bits,bytes,bits_per_item,accesses_insert",
        ))
        .stdout(predicate::str::contains(
            "classic,classic/standard,m=9592956 k=7,9592956,",
        ));
    bfopt()
        .args(["recommend", "--fp", "0.01", "--capacity", "1e6"])
        .assert()
        .success()
        .stdout(predicate::str::contains("blocked"));
}

/// Issue 9 (JSON stability): every `recommend` row of every family has the same keys,
/// exactly these, and the same request gives byte-identical output.
#[test]
fn recommend_json_keys_are_the_same_for_every_family_and_stable() {
    let args = [
        "recommend",
        "--fp",
        "0.01",
        "--window",
        "1e5",
        "--allow-fn",
        "0.05",
    ];
    let out = json_out(&args);
    assert_eq!(out, json_out(&args), "same request, different bytes");
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let metrics = [
        "accesses_insert",
        "accesses_query",
        "bits",
        "bits_per_item",
        "bytes",
        "false_negatives",
        "fp",
        "fp_kind",
        "notes",
        "npws",
        "slack",
    ];
    let mut families: Vec<&str> = rows.iter().map(|r| r["family"].as_str().unwrap()).collect();
    families.sort_unstable();
    families.dedup();
    assert!(families.len() >= 5, "{families:?}");
    for row in &rows {
        assert_eq!(keys(row), ["family", "metrics", "params"], "{row}");
        assert_eq!(keys(&row["params"]), ["design", "parameters"], "{row}");
        assert_eq!(keys(&row["metrics"]), metrics, "{row}");
    }
}

#[test]
fn recommend_for_a_window_sizes_the_hand_built_baselines() {
    let out = bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--window",
            "1e5",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    let designs: Vec<&str> = rows
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    for d in [
        "apbf",
        "apbbf",
        "rotating/standard",
        "rotating/blocked",
        "fingerprint-queue",
    ] {
        assert!(designs.contains(&d), "{designs:?}");
    }
    for r in &rows {
        let m = &r["metrics"];
        assert!(m["fp"].as_f64().unwrap() <= 0.01, "{r}");
        assert!(m["bits"].as_u64().unwrap() > 0);
        assert_eq!(m["false_negatives"], "none in the window");
    }
    // A static-set family says why it cannot serve a window.
    bfopt()
        .args(["recommend", "--fp", "0.01", "--window", "1e5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("excluded classic:"));
}

#[test]
fn recommend_bounds_the_npws_of_window_designs() {
    let npws = |extra: &[&str]| -> f64 {
        let out = bfopt()
            .args([
                "recommend",
                "--fp",
                "0.01",
                "--window",
                "1e5",
                "--format",
                "json",
            ])
            .args(extra)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
        let apbf = rows
            .iter()
            .find(|r| r["params"]["design"] == "apbf")
            .expect("an apbf row");
        apbf["metrics"]["npws"].as_f64().unwrap()
    };
    // A tight NPWS bound forces less slack than the memory-optimal APBF.
    let free = npws(&[]);
    assert!(free > 0.01, "{free}");
    let bounded = npws(&["--max-npws", "0.01"]);
    assert!(bounded <= 0.01, "{bounded}");
    // Rings report their whole oldest generation: NPWS r·g/W − 1, excluded here.
    bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--window",
            "1e5",
            "--max-npws",
            "0.01",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "excluded rotating/standard: peak NPWS",
        ));
    bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--window",
            "1e5",
            "--max-npws",
            "-1",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-npws"));
}

#[test]
fn recommend_needs_exactly_one_shape() {
    for extra in [&[][..], &["--capacity", "10", "--window", "10"][..]] {
        bfopt()
            .args(["recommend", "--fp", "0.01"])
            .args(extra)
            .assert()
            .code(2);
    }
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

#[test]
fn reproduce_writes_csv_and_svg_and_lists_its_catalogue() {
    bfopt()
        .args(["reproduce", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("apbf-table1"));
    let dir = std::env::temp_dir().join(format!("bfopt-reproduce-{}", std::process::id()));
    bfopt()
        .args(["reproduce", "apbf-table1", "--out"])
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("no differences"));
    let csv = std::fs::read_to_string(dir.join("apbf-table1.csv")).unwrap();
    assert!(csv.starts_with("aimed_fp,k,bits_per_item"));
    assert_eq!(csv.lines().count(), 6);
    let svg = std::fs::read_to_string(dir.join("apbf-table1.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    std::fs::remove_dir_all(&dir).unwrap();
    bfopt()
        .args(["reproduce", "no-such-table"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("allowed one of apbf-table1"));
}

#[test]
fn completions_quiet_and_threads() {
    for shell in ["bash", "zsh", "fish"] {
        bfopt()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("recommend"));
    }
    bfopt()
        .args(["recommend", "--fp", "0.01", "--window", "1e4", "--quiet"])
        .assert()
        .success()
        .stdout(predicate::str::contains("excluded").not());
    bfopt()
        .args([
            "--threads",
            "0",
            "recommend",
            "--fp",
            "0.01",
            "--window",
            "1e4",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--threads = 0: allowed 1 to 1024"));
}

#[test]
fn same_seed_same_json_on_any_thread_count() {
    let run = |threads: &str| {
        bfopt()
            .args([
                "--threads",
                threads,
                "--format",
                "json",
                "simulate",
                "classic",
            ])
            .args(["--bits", "4096", "--hashes", "3", "--items", "500"])
            .args(["--epochs", "4", "--probes", "2000", "--seed", "9"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn every_verb_help_shows_an_example() {
    for verb in [
        "recommend",
        "model",
        "optimize",
        "simulate",
        "validate",
        "reproduce",
        "completions",
    ] {
        bfopt()
            .args([verb, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("bfopt {verb}")));
    }
}

/// Issue 9: `--validate` simulates the Stable Bloom filter row too (stable point, probe
/// FP and the FN of the item W insertions old, against the model).
#[test]
fn recommend_validate_simulates_the_sbf_row() {
    let rows = json_value(&[
        "recommend",
        "--fp",
        "0.02",
        "--window",
        "2e3",
        "--allow-fn",
        "0.05",
        "--validate",
    ]);
    let sbf = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["params"]["design"] == "sbf")
        .expect("an sbf row");
    assert_eq!(sbf["metrics"]["validated"], "PASS", "{sbf}");
    let measured = sbf["metrics"]["measured_fp"].as_f64().unwrap();
    assert!(measured > 0.0 && measured < 0.05, "{sbf}");
}

#[test]
fn recommend_validate_simulates_every_design() {
    for shape in [["--window", "2e4"], ["--capacity", "2e4"]] {
        let out = bfopt()
            .args([
                "recommend",
                "--fp",
                "0.02",
                "--validate",
                "--format",
                "json",
            ])
            .args(shape)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
        assert!(rows.len() >= 3);
        for r in rows
            .iter()
            .filter(|r| r["metrics"]["validated"] != "skipped")
        {
            assert_eq!(r["metrics"]["validated"], "PASS", "{r}");
            let (lo, hi) = (
                r["metrics"]["measured_fp_lo"].as_f64().unwrap(),
                r["metrics"]["measured_fp_hi"].as_f64().unwrap(),
            );
            assert!(lo <= hi && hi < 0.05, "{r}");
        }
    }
}

#[test]
fn recommend_for_temporal_membership_ranks_pbf_and_the_pair_filter() {
    let out = bfopt()
        .args(["recommend", "--fp", "0.01", "--horizon", "4096"])
        .args(["--query-length", "64", "--pairs", "1e5", "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    let designs: Vec<&str> = rows
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    assert!(designs.contains(&"pbf-2") && designs.contains(&"single-filter (pairs)"));
    // The pair filter probes once per timestamp; the PBF-2 tree O(log |q|) times.
    let probes = |d: &str| {
        rows.iter().find(|r| r["params"]["design"] == d).unwrap()["metrics"]["accesses_query"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(probes("single-filter (pairs)"), 64.0);
    assert!(probes("pbf-2") <= 12.0);
    for r in &rows {
        assert!(r["metrics"]["fp"].as_f64().unwrap() <= 0.01 + 1e-12, "{r}");
    }
    // --horizon needs its companions.
    bfopt()
        .args(["recommend", "--fp", "0.01", "--horizon", "4096"])
        .assert()
        .code(2);
    bfopt()
        .args(["recommend", "--fp", "0.01", "--horizon", "4096"])
        .args(["--query-length", "1", "--pairs", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--query-length"));
}
