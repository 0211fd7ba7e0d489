//! The `bfopt` binary: exit codes, JSON shape, error messages.

use assert_cmd::assert::Assert;
use assert_cmd::Command;
use predicates::prelude::*;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::path::PathBuf;

mod allocate;
mod apbf;
mod audit;
mod bad_input;
mod bad_input_matrix;
mod check;
mod ci_docs;
mod fuzz_smoke;
mod gbf;
mod issue16;
mod issue21;
mod pbf;
mod plan;
mod profile;
mod rbf;
mod readme;
mod recommend_trace;
mod recommend_validate;
mod reliability;
mod scalable;
mod shard;
mod stable;
mod target;
mod timing;
mod tiny_fp;
mod tiny_rates;

fn bfopt() -> Command {
    Command::cargo_bin("bfopt").unwrap()
}

/// The words of a command line (no argument of these tests holds a space).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
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

/// `bfopt LINE --format json` exits 0; its stdout parsed as `T` (a test-side struct with
/// `deny_unknown_fields`, or `serde_json::Value`).
fn json<T: DeserializeOwned>(line: &str) -> T {
    serde_json::from_slice(&json_out(&words(line))).unwrap()
}

/// The candidates of a `recommend` plan (JSON) as rows `{family, params: {design, ...},
/// metrics: {...}}`: the parameters under `params` beside the design, every other
/// candidate key under `metrics`, with the simulation's `validated` and `measured_fp*`
/// when the plan carries a validation.
fn plan_rows_of(plan: &serde_json::Value) -> Vec<serde_json::Value> {
    let candidates = plan["candidates"].as_array().expect("a plan object");
    candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut params = c["params"].as_object().unwrap().clone();
            params.insert("design".into(), c["design"].clone());
            let mut metrics = c.as_object().unwrap().clone();
            for k in ["family", "design", "params"] {
                metrics.remove(k);
            }
            if let Some(d) = plan.get("validation").map(|v| &v["designs"][i]) {
                let status = match d["status"].as_str().unwrap() {
                    "pass" => "PASS",
                    "fail" => "FAIL",
                    _ => "skipped",
                };
                metrics.insert("validated".into(), status.into());
                if let Some(m) = d.get("measured_fp") {
                    metrics.insert("measured_fp".into(), m["value"].clone());
                    metrics.insert("measured_fp_lo".into(), m["lo"].clone());
                    metrics.insert("measured_fp_hi".into(), m["hi"].clone());
                }
            }
            serde_json::json!({"family": c["family"], "params": params, "metrics": metrics})
        })
        .collect()
}

/// `bfopt LINE --format json` (a `recommend` line) exits 0; its candidates as rows
/// ([`plan_rows_of`]).
fn plan_rows(line: &str) -> Vec<serde_json::Value> {
    plan_rows_of(&json_value(&words(line)))
}

/// The `excluded` entries of a `recommend` plan (JSON) as `"name: reason"`.
fn plan_excluded(line: &str) -> Vec<String> {
    json_value(&words(line))["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{}: {}",
                e["name"].as_str().unwrap(),
                e["reason"].as_str().unwrap()
            )
        })
        .collect()
}

/// `bfopt LINE` exits 0; the assertion, for checks on stdout.
fn run_ok(line: &str) -> Assert {
    bfopt().args(words(line)).assert().success()
}

/// `cmd` exits `code` and its stderr contains every needle; the assertion, for more checks.
fn exits(cmd: &mut Command, code: i32, needles: &[&str]) -> Assert {
    let mut assert = cmd.assert().code(code);
    for needle in needles {
        assert = assert.stderr(predicate::str::contains(*needle));
    }
    assert
}

/// `bfopt LINE` exits `code` and its stderr contains every needle.
fn assert_exit(line: &str, code: i32, needles: &[&str]) -> Assert {
    exits(bfopt().args(words(line)), code, needles)
}

/// A file `name` holding `body` in this process's temp dir `bfopt-<dir>-<pid>`.
fn temp_file(dir: &str, name: &str, body: impl AsRef<[u8]>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bfopt-{dir}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
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
    fp_law: String,
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
    let j: ClassicModelJson = json("model classic --bits 1e4 --hashes 7 --items 1_000");
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
    // The exact law costs more than `fp` spends here: `fp` is the usual formula, and says so.
    assert_eq!(m.fp_law, "usual_formula");
    assert_eq!(m.bits_per_item, 10.0);
    assert!(m.fill > 0.5 && m.fill < 0.51);
    assert_eq!(m.memory_bytes, 1250);
    assert_eq!((m.accesses_insert, m.accesses_query_true), (7.0, 7.0));
    assert!(m.accesses_query_false > 1.0 && m.accesses_query_false < 2.1);
}

#[test]
fn model_classic_layouts() {
    for (layout, extra) in [("partitioned", None), ("blocked", Some("1024"))] {
        let mut line =
            format!("model classic --bits 1Mib --hashes 6 --items 50000 --layout {layout}");
        if let Some(b) = extra {
            line.push_str(&format!(" --block-bits {b}"));
        }
        let j: ClassicModelJson = json(&line);
        assert_eq!(j.params.layout, layout);
        assert_eq!(j.params.m, 1 << 20);
        assert_eq!(j.params.block_bits, extra.map(|b| b.parse().unwrap()));
        assert!(j.metrics.fp > 0.0 && j.metrics.fp < 0.1);
    }
}

#[test]
fn optimize_classic_meets_target() {
    let v: serde_json::Value = json("optimize classic --fp 0.01 --items 1e6");
    assert_eq!(v["family"], "classic");
    assert_eq!(v["metrics"]["hashes"], 7);
    assert!(v["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    let bits = v["metrics"]["bits"].as_u64().unwrap();
    assert!((9_500_000..9_700_000).contains(&bits), "{bits}");
    assert!((v["metrics"]["bits_per_item"].as_f64().unwrap() - bits as f64 / 1e6).abs() < 1e-9);
}

#[test]
fn optimize_classic_best_k_and_capacity() {
    let v: serde_json::Value = json("optimize classic --bits 1e4 --items 1000");
    assert_eq!(v["metrics"]["hashes"], 7);
    let v: serde_json::Value = json("optimize classic --bits 1e4 --hashes 7 --fp 0.01");
    let n = v["metrics"]["capacity"].as_u64().unwrap();
    assert!(v["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    assert!((1000..1100).contains(&n), "{n}");
    assert_exit(
        "optimize classic --fp 0.01",
        2,
        &["allowed one of: --fp P --items N"],
    );
}

#[test]
fn recommend_ranks_by_memory_in_every_format() {
    let rows = plan_rows("recommend --fp 0.01 --capacity 1e6");
    // Binary fuse (the pick: least memory), the three classic layouts and the cuckoo filter.
    assert_eq!(rows.len(), 5);
    let bits: Vec<u64> = rows
        .iter()
        .map(|r| r["metrics"]["bits"].as_u64().unwrap())
        .collect();
    assert!(bits.windows(2).all(|w| w[0] <= w[1]), "{bits:?}");
    assert!(rows
        .iter()
        .all(|r| r["metrics"]["fp"].as_f64().unwrap() <= 0.01));
    // CSV: the design, then each parameter in its own column, then the metrics; the
    // pick marked.
    assert_eq!(rows[0]["params"]["design"], "binary-fuse/8");
    let classic = &rows[1];
    let m = classic["params"]["m"].as_u64().unwrap();
    run_ok("recommend --fp 0.01 --capacity 1e6 --format csv")
        .stdout(predicate::str::starts_with(
            "family,design,f,slots,m,k,block_bits,b,buckets,pick,bits,bits_per_item,accesses_insert",
        ))
        .stdout(predicate::str::contains("fuse,binary-fuse/8,8,"))
        .stdout(predicate::str::contains(format!(
            "classic,{},,,{m},{},,,,false,{m},",
            classic["params"]["design"].as_str().unwrap(),
            classic["params"]["k"]
        )));
    run_ok("recommend --fp 0.01 --capacity 1e6").stdout(predicate::str::contains("blocked"));
}

/// Issue 9 and issue 16 (JSON stability): the plan has exactly these keys, every
/// candidate of every family has the same keys, parameters are numbers under named
/// keys, and the same request gives byte-identical output.
#[test]
fn recommend_json_keys_are_the_same_for_every_family_and_stable() {
    let args = words("recommend --fp 0.01 --window 1e5 --allow-fn 0.05");
    let out = json_out(&args);
    assert_eq!(out, json_out(&args), "same request, different bytes");
    let plan: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&plan),
        ["candidates", "excluded", "notes", "pick", "requirement"]
    );
    assert_eq!(keys(&plan["pick"]), ["design", "index", "reason"]);
    assert_eq!(plan["requirement"]["shape"], "window");
    assert_eq!(plan["requirement"]["allow_fn"], 0.05);
    let candidate = [
        "access_unit",
        "accesses_insert",
        "accesses_query",
        "bits",
        "bits_per_item",
        "design",
        "false_negatives",
        "family",
        "fp",
        "fp_kind",
        "not_simulated",
        "notes",
        "npws",
        "params",
        "slack",
        "times_limit",
    ];
    let rows = plan["candidates"].as_array().unwrap();
    let mut families: Vec<&str> = rows.iter().map(|r| r["family"].as_str().unwrap()).collect();
    families.sort_unstable();
    families.dedup();
    assert!(families.len() >= 5, "{families:?}");
    for row in rows {
        assert_eq!(keys(row), candidate, "{row}");
        for (k, v) in row["params"].as_object().unwrap() {
            assert!(v.is_number(), "{k} = {v} in {row}");
        }
    }
}

#[test]
fn recommend_for_a_window_sizes_the_hand_built_baselines() {
    let rows = plan_rows("recommend --fp 0.01 --window 1e5");
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
        assert_eq!(m["false_negatives"]["kind"], "none_in_window");
    }
    // A static-set family says why it cannot serve a window.
    run_ok("recommend --fp 0.01 --window 1e5").stdout(predicate::str::contains(
        "classic: serves a static set, not a sliding window",
    ));
}

#[test]
fn recommend_bounds_the_npws_of_window_designs() {
    let npws = |extra: &str| -> f64 {
        let rows = plan_rows(&format!("recommend --fp 0.01 --window 1e5 {extra}"));
        let apbf = rows
            .iter()
            .find(|r| r["params"]["design"] == "apbf")
            .expect("an apbf row");
        apbf["metrics"]["npws"].as_f64().unwrap()
    };
    // A tight NPWS bound forces less slack than the memory-optimal APBF.
    let free = npws("");
    assert!(free > 0.01, "{free}");
    let bounded = npws("--max-npws 0.01");
    assert!(bounded <= 0.01, "{bounded}");
    // Rings report their whole oldest generation: NPWS r·g/W − 1, excluded here.
    run_ok("recommend --fp 0.01 --window 1e5 --max-npws 0.01")
        .stdout(predicate::str::contains("rotating/standard: peak NPWS"));
    assert_exit(
        "recommend --fp 0.01 --window 1e5 --max-npws -1",
        2,
        &["--max-npws"],
    );
}

#[test]
fn recommend_needs_exactly_one_shape() {
    for extra in ["", "--capacity 10 --window 10"] {
        assert_exit(&format!("recommend --fp 0.01 {extra}"), 2, &[]);
    }
}

#[test]
fn exit_3_when_nothing_fits_the_budget() {
    assert_exit(
        "recommend --fp 0.01 --capacity 1e6 --memory 1MiB",
        3,
        &[
            "memory (--memory) = 8388608 bits binds",
            "achievable: 9043968 bits with binary-fuse/8",
        ],
    );
}

#[test]
fn exit_2_names_flag_value_and_range() {
    let model = "model classic --bits 1000 --hashes 7 --items 10";
    let cases: &[(&str, &str)] = &[
        (
            "optimize classic --fp 1.5 --items 10",
            "--fp = 1.5: allowed 0 < fp < 1",
        ),
        (
            "optimize classic --fp 0 --items 10",
            "--fp = 0: allowed 0 < fp < 1",
        ),
        ("optimize classic --fp NaN --items 10", "'NaN' for '--fp"),
        (
            "optimize classic --fp 0.1 --items 0",
            "--items = 0: allowed 1 <= n",
        ),
        (
            "model classic --bits 1000 --hashes 0 --items 10",
            "--hashes = 0: allowed 1 <= k <= 64",
        ),
        (
            "model classic --bits 3 --hashes 7 --items 10",
            "--bits = 3: allowed m >= k = 7",
        ),
        (
            "model classic --bits 1024 --hashes 7 --items 10 --layout blocked --block-bits 100",
            "--block-bits = 100: allowed a multiple of 64",
        ),
        (
            // `model classic` rounds up to whole blocks (issue 16 bug 9); the best-k
            // question takes the memory as given.
            "optimize classic --bits 1000 --items 10 --layout blocked",
            "--bits = 1000: allowed a multiple of --block-bits = 512",
        ),
        (
            &format!("{model} --layout diagonal"),
            "'diagonal' for '--layout",
        ),
        (
            "model classic --bits 12parsecs --hashes 7 --items 10",
            "unknown unit",
        ),
        (
            "model classic --bits 1000 --hashes 7 --items -5",
            "'-5' for '--items",
        ),
        (
            "model classic --bits 1000 --hashes 7 --items 1.5",
            "not a whole number",
        ),
        (
            &format!("{model} --format junit"),
            "--format = junit: allowed only with validate",
        ),
        (
            "simulate classic --bits 1000 --hashes 7 --items 10 --epochs 1",
            "--epochs = 1: allowed 2 <= epochs",
        ),
        (
            "simulate classic --bits 1000 --hashes 7 --items 10 --workload uniform --duplicates 1",
            "--duplicates = 1: allowed 0 <= --duplicates < 1",
        ),
        (
            "validate --family nonesuch",
            "--family = nonesuch: allowed one of classic",
        ),
    ];
    for (line, message) in cases {
        assert_exit(line, 2, &[message]);
    }
}

#[test]
fn trace_errors_name_file_and_line() {
    let run = words("simulate classic --bits 1000 --hashes 3 --items 2 --trace");
    let bad = temp_file("cli", "bad.csv", "a,1\nb,2\nc,yesterday\n");
    exits(
        bfopt().args(&run).arg(&bad),
        2,
        &["bad.csv:3: timestamp = \"yesterday\""],
    );
    let empty = temp_file("cli", "empty.csv", "");
    exits(bfopt().args(&run).arg(&empty), 2, &["no items"]);
    // 300 keys, 250 distinct: a filter whose FP varies from one epoch (hash seed) to the
    // next, so that the model-vs-simulation verdict is meaningful (`simulate` exits 1 on
    // a disagreement; with 3 items every epoch had the same 9 bits set, a zero-variance
    // state FP that excluded the expected one).
    let body: String = std::iter::once("item\n".to_string())
        .chain((0..300).map(|i| format!("k{}\n", i % 250)))
        .collect();
    let good = temp_file("cli", "good.csv", body);
    bfopt()
        .args(words(
            "simulate classic --bits 3000 --hashes 3 --items 250 --epochs 8 --probes 2000 --format json --trace",
        ))
        .arg(&good)
        .assert()
        .success()
        .stdout(predicate::str::contains("\"workload\": \"trace(300 keys)\""));
    std::fs::remove_dir_all(good.parent().unwrap()).ok();
}

#[test]
fn simulate_classic_reports_intervals_and_is_deterministic() {
    let args = words(
        "simulate classic --bits 16384 --hashes 6 --items 1800 --epochs 4 --probes 20000 --seed 7",
    );
    let a = json_out(&args);
    let b = json_out(&args);
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
    run_ok("validate --family classic").stdout(predicate::str::contains("29 passed, 0 failed"));
    run_ok("validate --family classic --format junit")
        .stdout(predicate::str::contains(
            r#"<testsuite name="bfopt validate" tests="29" failures="0">"#,
        ))
        .stdout(predicate::str::contains(
            r#"<testcase classname="bfopt.classic""#,
        ));
}

#[test]
fn help_and_version_exit_0() {
    run_ok("--help").stdout(predicate::str::contains("recommend"));
    run_ok("--version");
    assert_exit("", 2, &[]);
}

#[test]
fn reproduce_writes_csv_and_svg_and_lists_its_catalogue() {
    run_ok("reproduce --list").stdout(predicate::str::contains("apbf-table1"));
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
    assert_exit(
        "reproduce no-such-table",
        2,
        &["allowed one of apbf-table1"],
    );
}

#[test]
fn completions_quiet_and_threads() {
    for shell in ["bash", "zsh", "fish"] {
        run_ok(&format!("completions {shell}")).stdout(predicate::str::contains("recommend"));
    }
    run_ok("recommend --fp 0.01 --window 1e4 --quiet")
        .stdout(predicate::str::contains("excluded").not());
    assert_exit(
        "--threads 0 recommend --fp 0.01 --window 1e4",
        2,
        &["--threads = 0: allowed 1 to 1024"],
    );
}

#[test]
fn same_seed_same_json_on_any_thread_count() {
    let run = |threads: &str| {
        json_out(&words(&format!(
            "--threads {threads} simulate classic --bits 4096 --hashes 3 --items 500 \
             --epochs 4 --probes 2000 --seed 9"
        )))
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn every_verb_help_shows_an_example() {
    for verb in [
        "recommend",
        "model",
        "optimize",
        "posterior",
        "simulate",
        "validate",
        "reproduce",
        "completions",
    ] {
        run_ok(&format!("{verb} --help")).stdout(predicate::str::contains(format!("bfopt {verb}")));
    }
}

/// Issue 9: `--validate` simulates the Stable Bloom filter row too (stable point, probe
/// FP and the FN of the item W insertions old, against the model).
#[test]
fn recommend_validate_simulates_the_sbf_row() {
    let rows = plan_rows("recommend --fp 0.02 --window 2e3 --allow-fn 0.05 --validate");
    let sbf = rows
        .iter()
        .find(|r| r["params"]["design"] == "sbf")
        .expect("an sbf row");
    assert_eq!(sbf["metrics"]["validated"], "PASS", "{sbf}");
    let measured = sbf["metrics"]["measured_fp"].as_f64().unwrap();
    assert!(measured > 0.0 && measured < 0.05, "{sbf}");
}

#[test]
fn recommend_validate_simulates_every_design() {
    for shape in ["--window 2e4", "--capacity 2e4"] {
        let rows = plan_rows(&format!("recommend --fp 0.02 --validate {shape}"));
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
    let rows = plan_rows("recommend --fp 0.01 --horizon 4096 --query-length 64 --pairs 1e5");
    let designs: Vec<&str> = rows
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    assert!(designs.contains(&"pbf-2") && designs.contains(&"pair-filter"));
    // The pair filter probes once per timestamp; the PBF-2 tree O(log |q|) times.
    let probes = |d: &str| {
        rows.iter().find(|r| r["params"]["design"] == d).unwrap()["metrics"]["accesses_query"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(probes("pair-filter"), 64.0);
    assert!(probes("pbf-2") <= 12.0);
    for r in &rows {
        assert!(r["metrics"]["fp"].as_f64().unwrap() <= 0.01 + 1e-12, "{r}");
    }
    // --horizon needs its companions.
    assert_exit("recommend --fp 0.01 --horizon 4096", 2, &[]);
    assert_exit(
        "recommend --fp 0.01 --horizon 4096 --query-length 1 --pairs 10",
        2,
        &["--query-length"],
    );
}

/// Runs the binary with `args` (in `dir` when given), stdin closed and stdout dropped:
/// its exit code (`None`: killed by a signal, or by `cap`) and its stderr.
fn run_capped(
    args: &[String],
    dir: Option<&std::path::Path>,
    cap: std::time::Duration,
) -> (Option<i32>, String) {
    use std::process::Stdio;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bfopt"));
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let deadline = std::time::Instant::now() + cap;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    (status.and_then(|s| s.code()), reader.join().unwrap())
}
