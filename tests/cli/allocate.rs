//! `bfopt allocate` (issue 23): JSON shape, table width, the inverse, filter files, bad
//! input.

use super::{assert_exit, bfopt, exits, json, run_ok, temp_file, words};
use predicates::prelude::*;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllocateJson {
    family: String,
    params: serde_json::Value,
    metrics: Metrics,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Metrics {
    goal: String,
    bits: Option<u64>,
    target: Option<f64>,
    budget_bits: u64,
    optimal: Choice,
    uniform: Choice,
    smaller_levels: Choice,
    continuous: Continuous,
    fp_saving: f64,
    equal_fp: EqualFp,
    memory_saving: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Choice {
    filters: Vec<Filter>,
    bits: u64,
    expected_fp: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Filter {
    name: String,
    items: u64,
    weight: f64,
    layout: String,
    block_bits: Option<u64>,
    bits: u64,
    k: u32,
    bits_per_item: f64,
    fp: f64,
    law: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Continuous {
    bits: Vec<f64>,
    fp: Vec<f64>,
    multiplier: Option<f64>,
    expected_fp: f64,
    budget_bits: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EqualFp {
    expected_fp: f64,
    optimal_bits: u64,
    uniform_bits: u64,
}

const README_TREE: &str = "allocate --budget 10e9 --lsm levels=7,ratio=10,entries=1e9";

#[test]
fn lsm_json_shape_and_savings() {
    let j: AllocateJson = json(README_TREE);
    assert_eq!(j.family, "allocate");
    assert_eq!(j.params["lsm"]["levels"], 7);
    assert_eq!(j.params["layout"], "standard");
    let m = &j.metrics;
    assert_eq!(
        (m.goal.as_str(), m.bits, m.target),
        ("memory", Some(10_000_000_000), None)
    );
    assert_eq!(m.optimal.filters.len(), 7);
    assert!(m.optimal.bits <= 10_000_000_000 && m.uniform.bits <= 10_000_000_000);
    // Sums: bits, and Σ w·fp.
    let sum: u64 = m.optimal.filters.iter().map(|f| f.bits).sum();
    assert_eq!(sum, m.optimal.bits);
    let r: f64 = m.optimal.filters.iter().map(|f| f.weight * f.fp).sum();
    assert!((r / m.optimal.expected_fp - 1.0).abs() < 1e-12);
    // Uniform gives 10 bits per item; the smaller-levels choice none to L7.
    assert!(m
        .uniform
        .filters
        .iter()
        .all(|f| (f.bits_per_item - 10.0).abs() < 1e-6));
    assert_eq!(m.smaller_levels.filters[6].bits, 0);
    assert_eq!(m.smaller_levels.filters[6].fp, 1.0);
    // Monkey: smaller levels get more bits per item; the optimum beats uniform.
    let bpk: Vec<f64> = m.optimal.filters.iter().map(|f| f.bits_per_item).collect();
    assert!(bpk.windows(2).all(|w| w[0] > w[1]), "{bpk:?}");
    assert!(m.optimal.expected_fp < m.uniform.expected_fp);
    assert!((m.fp_saving - (1.0 - m.optimal.expected_fp / m.uniform.expected_fp)).abs() < 1e-12);
    assert_eq!(m.equal_fp.uniform_bits, 10_000_000_000);
    assert!(m.equal_fp.optimal_bits < m.equal_fp.uniform_bits);
    assert!((m.memory_saving - (1.0 - m.equal_fp.optimal_bits as f64 / 1e10)).abs() < 1e-12);
    // The continuous start: Monkey's closed form to within the 7-level tail.
    let closed = (-std::f64::consts::LN_2.powi(2) * 10.0).exp() * 10f64.powf(10.0 / 9.0) / 9.0;
    assert!((m.continuous.expected_fp / closed - 1.0).abs() < 1e-3);
    assert_eq!(m.continuous.bits.len(), 7);
    assert!(m.continuous.multiplier.unwrap() > 0.0);
    assert!(m.optimal.filters.iter().all(|f| f.layout == "standard"
        && f.block_bits.is_none()
        && f.k >= 1
        && f.items > 0
        && !f.name.is_empty()
        && (f.law == "model" || f.law == "exact")));
    let _ = (
        m.equal_fp.expected_fp,
        m.continuous.fp.len(),
        m.continuous.budget_bits,
    );
}

#[test]
fn table_fits_120_columns_and_csv_has_a_total_row() {
    let out = run_ok(README_TREE).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    for line in text.lines() {
        assert!(
            line.chars().count() <= 120,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(text.contains("memory saving"), "{text}");
    run_ok(&format!("{README_TREE} --format csv"))
        .stdout(predicate::str::starts_with(
            "family,filter,items,weight,bits,k,bits_per_item,fp,uniform_bits,uniform_fp,smaller_fp,uniform_k,smaller_bits,smaller_k\n",
        ))
        .stdout(predicate::str::contains("allocate,total,1000000000,7.0,"))
        .stdout(predicate::str::contains(",1.0,7,0,0\n"));
    run_ok(&format!("{README_TREE} --wide")).stdout(predicate::str::contains("smaller_bits"));
}

#[test]
fn target_fp_gives_the_least_budget() {
    let j: AllocateJson =
        json("allocate --target-fp 0.01 --lsm levels=5,ratio=10,entries=1e7,lookups=existing --layout blocked");
    let m = &j.metrics;
    assert_eq!((m.goal.as_str(), m.target), ("expected_fp", Some(0.01)));
    assert!(m.optimal.expected_fp <= 0.01);
    assert!(m.uniform.expected_fp > 0.01);
    assert!(m.equal_fp.uniform_bits > m.budget_bits);
    // Existing-key lookups never need the last level's filter.
    assert_eq!(m.optimal.filters[4].bits, 0);
    assert!(m
        .optimal
        .filters
        .iter()
        .all(|f| f.layout == "blocked" && f.bits % 512 == 0));
}

#[test]
fn filter_files_csv_and_json() {
    let csv = temp_file(
        "allocate",
        "shards.csv",
        "name,items,weight,layout\nhot,1e5,0.7,\nwarm,1e6,0.25,partitioned\ncold,1e7,0.05,blocked\n",
    );
    let v: serde_json::Value = json(&format!(
        "allocate --budget 10MiB --filters {}",
        csv.display()
    ));
    let f = &v["metrics"]["optimal"]["filters"];
    assert_eq!(f[0]["layout"], "standard");
    assert_eq!(f[1]["layout"], "partitioned");
    assert_eq!(f[2]["block_bits"], 512);
    // The hot shard gets the most bits per item.
    assert!(f[0]["bits_per_item"].as_f64() > f[2]["bits_per_item"].as_f64());
    let js = temp_file(
        "allocate",
        "shards.json",
        r#"{"filters": [{"name": "a", "items": 1000, "weight": 1},
                        {"name": "b", "items": "1e4", "weight": 0.5, "layout": "blocked", "block_bits": 1024}]}"#,
    );
    let v: serde_json::Value = json(&format!("allocate --budget 1e5 --filters {}", js.display()));
    assert_eq!(v["metrics"]["optimal"]["filters"][1]["block_bits"], 1024);
    assert!(v["metrics"]["optimal"]["bits"].as_u64().unwrap() <= 100_000);
}

#[test]
fn out_writes_svg_and_csv() {
    let dir = std::env::temp_dir().join(format!("bfopt-allocate-out-{}", std::process::id()));
    bfopt()
        .args(words(
            "allocate --budget 1e6 --lsm levels=4,ratio=8,entries=1e5 --out",
        ))
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("allocate.svg"));
    let svg = std::fs::read_to_string(dir.join("allocate.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("optimal") && svg.contains("uniform"));
    let csv = std::fs::read_to_string(dir.join("allocate.csv")).unwrap();
    assert!(csv.starts_with("budget_bits,bits_per_item,optimal_fp,uniform_fp\n"));
    assert_eq!(csv.lines().count(), 18);
    for line in csv.lines().skip(1) {
        let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        assert!(v[2] <= v[3], "optimal above uniform: {line}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_exits_2_naming_flag_value_and_range() {
    let lsm = "allocate --budget 1e6 --lsm";
    for (line, needle) in [
        (
            format!("{lsm} levels=0,ratio=10,entries=1e6"),
            "--lsm levels = 0: allowed 1 <= levels <= 40",
        ),
        (
            format!("{lsm} levels=3,ratio=1,entries=1e6"),
            "--lsm ratio = 1: allowed 2 <= ratio <= 1000",
        ),
        (
            format!("{lsm} levels=3,ratio=10,entries=0"),
            "--lsm entries = 0: allowed 1 <= entries",
        ),
        (
            format!("{lsm} levels=3,ratio=10,entries=1e6,lookups=some"),
            "--lsm lookups = some: allowed zero-result or existing",
        ),
        (
            format!("{lsm} levels=3,ratio=10"),
            "--lsm = levels=3,ratio=10: allowed levels=L,ratio=T,entries=N",
        ),
        (
            format!("{lsm} levels=3,ratio=10,entries=1e6,depth=2"),
            "--lsm = depth: allowed the keys levels",
        ),
        (
            format!("{lsm} levels=x,ratio=10,entries=1e6"),
            "--lsm levels = x",
        ),
        (
            "allocate --target-fp 0 --lsm levels=3,ratio=10,entries=1e6".to_string(),
            "--target-fp = 0: allowed 0 < --target-fp < inf",
        ),
        (
            "allocate --budget -1 --lsm levels=3,ratio=10,entries=1e6".to_string(),
            "--budget",
        ),
        (
            "allocate --budget 1e6 --max-hashes 0 --lsm levels=3,ratio=10,entries=1e6".to_string(),
            "--max-hashes = 0: allowed 1 <= --max-hashes <= 64",
        ),
    ] {
        assert_exit(&line, 2, &[needle]);
    }
    // Exactly one goal and one source (clap's usage errors exit 2 too).
    assert_exit(
        "allocate --lsm levels=3,ratio=10,entries=1e6",
        2,
        &["--budget"],
    );
    assert_exit(
        "allocate --budget 1e6 --target-fp 0.1 --lsm levels=3,ratio=10,entries=1e6",
        2,
        &["--target-fp"],
    );
    assert_exit("allocate --budget 1e6", 2, &["--filters"]);
}

#[test]
fn bad_filter_files_name_the_file_and_the_line_or_json_path() {
    let run = |name: &str, body: &str, needles: &[&str]| {
        let path = temp_file("allocate-bad", name, body);
        exits(
            bfopt()
                .args(words("allocate --budget 1e6 --filters"))
                .arg(&path),
            2,
            needles,
        );
    };
    run(
        "a.csv",
        "name,items,weight\nx,10,1\ny,ten,1\n",
        &["a.csv:3: items = \"ten\""],
    );
    run(
        "b.csv",
        "name,items,weight\nx,10,-1\n",
        &["b.csv:2: weight = -1 (allowed: 0 <= weight"],
    );
    run(
        "c.csv",
        "name,items,weight,layout\nx,10,1,diagonal\n",
        &["c.csv:2: layout = \"diagonal\""],
    );
    run(
        "d.csv",
        "name,items,weight,colour\nx,10,1,red\n",
        &["d.csv:1: column \"colour\""],
    );
    run(
        "e.csv",
        "name,items\nx,10\n",
        &["e.csv:1: no column \"weight\""],
    );
    run("f.csv", "name,items,weight\n", &["f.csv: no filters"]);
    run(
        "g.csv",
        "name,items,weight,layout,block_bits\nx,10,1,blocked,100\n",
        &["g.csv:2: block_bits = 100"],
    );
    run(
        "h.csv",
        "name,items,weight\nx,10,1\nx,20,1\n",
        &["h.csv: name = x (allowed: a name used once (filter 2 repeats it))"],
    );
    run(
        "a.json",
        r#"[{"name": "x", "items": 10, "weight": 1}, {"name": "y", "items": 5, "weight": "lots"}]"#,
        &["a.json: $[1].weight = \"lots\""],
    );
    run(
        "b.json",
        r#"{"filters": [{"name": "x", "items": 10, "weight": 1, "size": 3}]}"#,
        &["b.json: $.filters[0].size: unknown key"],
    );
    run(
        "c.json",
        r#"[{"name": "x", "weight": 1}]"#,
        &["c.json: $[0].items missing"],
    );
    run("d.json", "[1, 2", &["d.json: not JSON"]);
    let missing = std::env::temp_dir().join("bfopt-allocate-no-such-file.csv");
    exits(
        bfopt()
            .args(words("allocate --budget 1e6 --filters"))
            .arg(&missing),
        2,
        &["bfopt-allocate-no-such-file.csv"],
    );
}

#[test]
fn unreachable_target_exits_3() {
    assert_exit(
        "allocate --target-fp 1e-300 --lsm levels=3,ratio=10,entries=1e15",
        3,
        &["expected false positives per lookup <= 1e-300"],
    );
}

#[test]
fn help_says_how_entries_are_split_and_what_existing_assumes() {
    run_ok("allocate --help")
        .stdout(predicate::str::contains("bfopt allocate --budget"))
        .stdout(predicate::str::contains("n_i = N·(T−1)·T^(i−1)/(T^L−1)"))
        .stdout(predicate::str::contains("each key in exactly one"));
}

#[test]
fn validate_simulates_the_optimal_and_uniform_allocations() {
    let line = "allocate --budget 62000 --lsm levels=5,ratio=2,entries=6200 --validate --epochs 16 --lookups 20000 --seed 4";
    run_ok(line)
        .stdout(predicate::str::contains(
            "PASS allocate: optimal: 5 filters",
        ))
        .stdout(predicate::str::contains(
            "PASS allocate: uniform: 5 filters",
        ));
    let v: serde_json::Value = json(line);
    let checks = v["metrics"]["validation"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    for c in checks {
        assert_eq!(c["pass"], true, "{c}");
        let (lo, hi) = (c["lo"].as_f64().unwrap(), c["hi"].as_f64().unwrap());
        let measured = c["measured"].as_f64().unwrap();
        assert!(lo <= measured && measured <= hi && hi < 0.05, "{c}");
    }
    run_ok(&format!("{README_TREE} --validate")).stdout(predicate::str::contains("skipped"));
    assert_exit(
        "allocate --budget 62000 --lsm levels=5,ratio=2,entries=6200 --validate --epochs 1",
        2,
        &["--epochs = 1: allowed 2 <= epochs"],
    );
}
