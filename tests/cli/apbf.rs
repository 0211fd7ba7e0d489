//! `bfopt model|optimize|simulate apbf` and `model|simulate apbbf` (issue 3).

use super::{assert_exit, json, plan_rows, run_ok};
use predicates::prelude::*;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApbfModelJson {
    family: String,
    params: ApbfParamsJson,
    metrics: ApbfMetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApbfParamsJson {
    k: u32,
    l: u32,
    window: Option<u64>,
    slice_bits: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApbfMetricsJson {
    fp_paper: f64,
    fp: f64,
    fp_average: f64,
    accesses_window: f64,
    accesses_fp: f64,
    accesses_false: f64,
    npws: f64,
    npws_exact: f64,
    efficiency: f64,
    generation: Option<u64>,
    slice_bits: Option<u64>,
    window: Option<u64>,
    slack: Option<u64>,
    total_bits: Option<u64>,
    bits_per_item: Option<f64>,
}

#[test]
fn model_apbf_json_reproduces_table_2() {
    let j: ApbfModelJson = json("model apbf --hashes 10 --extra-slices 7");
    assert_eq!(j.family, "apbf");
    assert_eq!((j.params.k, j.params.l), (10, 7));
    let m = j.metrics;
    assert_eq!(format!("{:.6}", m.fp_paper), "0.001211");
    assert_eq!(format!("{:.2}", m.accesses_window), "10.86");
    assert_eq!(format!("{:.2}", m.accesses_fp), "10.42");
    assert_eq!(format!("{:.2}", m.accesses_false), "1.85");
    assert_eq!(format!("{:.2}", m.efficiency), "0.40");
    assert!(m.fp > m.fp_paper && m.fp_average < m.fp);
    assert!(m.npws > 0.28 && m.npws_exact > 0.2);
    assert!(m.generation.is_none() && m.window.is_none() && j.params.window.is_none());
}

#[test]
fn model_apbf_sized_reports_section_5_2_quantities() {
    let j: ApbfModelJson = json("model apbf --hashes 4 --extra-slices 3 --slice-bits 1000");
    let m = j.metrics;
    let g = (1000.0 * std::f64::consts::LN_2 / 4.0) as u64; // 173
    assert_eq!(j.params.slice_bits, Some(1000));
    assert_eq!(m.generation, Some(g));
    assert_eq!(m.slice_bits, Some(1000));
    assert_eq!(m.window, Some(3 * g));
    assert_eq!(m.slack, Some(4 * g));
    assert_eq!(m.total_bits, Some(7000));
    assert!((m.bits_per_item.unwrap() - 7000.0 / (3 * g) as f64).abs() < 1e-12);
}

#[test]
fn model_apbbf_reproduces_table_3() {
    let j: Value =
        json("model apbbf --hashes 2 --extra-slices 5 --block-bits 512 --block-hashes 4");
    assert_eq!(j["family"], "apbbf");
    let m = &j["metrics"];
    let f = |k: &str| m[k].as_f64().unwrap();
    assert_eq!(format!("{:.7}", f("fp_paper")), "0.0197654");
    assert_eq!(format!("{:.7}", f("fp_apbf")), "0.0335359");
    assert_eq!(format!("{:.3}", f("capacity_ratio")), "0.996");
    assert_eq!(format!("{:.2}", f("accesses_window")), "3.81");
    assert_eq!(format!("{:.2}", f("accesses_fp")), "3.26");
    assert_eq!(format!("{:.2}", f("accesses_false")), "3.33");
    assert_eq!(format!("{:.2}", f("npws")), "0.21");
    assert!(f("fp") > 0.0);
}

#[test]
fn optimize_apbf_default_and_pareto() {
    let d: Value = json("optimize apbf --fp 0.01 --window 1e5");
    let m = &d["metrics"];
    assert!(m["fp"].as_f64().unwrap() <= 0.01);
    assert!(m["window"].as_u64().unwrap() >= 100_000);
    assert_eq!(m["default"], true);
    let front: Vec<Value> = json("optimize apbf --fp 0.01 --window 1e5 --all");
    assert!(front.len() > 3);
    let defaults: Vec<_> = front
        .iter()
        .filter(|r| r["metrics"]["default"] == true)
        .collect();
    assert_eq!(defaults.len(), 1);
    assert_eq!(defaults[0]["metrics"]["k"], m["k"]);
    assert_eq!(defaults[0]["metrics"]["l"], m["l"]);
    // The default has the least memory of the set.
    let least = front
        .iter()
        .map(|r| r["metrics"]["total_bits"].as_u64().unwrap())
        .min();
    assert_eq!(least, m["total_bits"].as_u64());
}

#[test]
fn optimize_apbf_blocked_and_bounds() {
    let d: Value = json(
        "optimize apbf --fp 1e-3 --window 1e5 --blocked --block-bits 512 --block-hashes 8 \
         --max-npws 0.1",
    );
    assert_eq!(d["family"], "apbbf");
    assert!(d["metrics"]["fp"].as_f64().unwrap() <= 1e-3);
    assert!(d["metrics"]["npws"].as_f64().unwrap() <= 0.1);
}

#[test]
fn invalid_input_exits_2_naming_the_flag() {
    let cases: [(&str, &str); 7] = [
        ("model apbf --hashes 0 --extra-slices 3", "--hashes = 0"),
        (
            "model apbf --hashes 4 --extra-slices 0",
            "--extra-slices = 0",
        ),
        (
            "model apbf --hashes 4 --extra-slices 10 --window 9",
            "--window = 9: allowed window >= l = 10",
        ),
        (
            "model apbbf --hashes 2 --extra-slices 3 --block-bits 96 --block-hashes 4",
            "--block-bits = 96",
        ),
        (
            "model apbbf --hashes 2 --extra-slices 3 --block-bits 512 --block-hashes 3",
            "--block-hashes = 3",
        ),
        ("optimize apbf --fp 1.5 --window 100", "--fp = 1.5"),
        ("optimize apbf --fp 0 --window 100", "--fp = 0"),
    ];
    for (line, msg) in cases {
        assert_exit(line, 2, &[msg]);
    }
}

#[test]
fn infeasible_requirement_exits_3_naming_the_constraint() {
    assert_exit(
        "optimize apbf --fp 0.01 --window 1e5 --memory 1000",
        3,
        &["memory <= 1000 bits binds"],
    );
    assert_exit(
        "optimize apbf --fp 0.01 --window 1e5 --max-accesses 3",
        3,
        &["max_accesses"],
    );
}

#[test]
fn simulate_apbf_agrees_and_never_misses_the_window() {
    for family in [
        "simulate apbf --hashes 4 --extra-slices 3 --window 600",
        "simulate apbbf --hashes 2 --extra-slices 3 --block-bits 64 --block-hashes 4 --window 600",
    ] {
        let j: Value = json(&format!(
            "{family} --epochs 6 --generations 8 --probes 20000 --confidence 0.999"
        ));
        let m = &j["metrics"];
        assert_eq!(m["false_negatives"], 0, "{j}");
        assert!(m["window_checks"].as_u64().unwrap() > 0);
        assert_eq!(m["agrees"], true, "{j}");
    }
}

#[test]
fn simulate_apbf_needs_a_size() {
    assert_exit(
        "simulate apbf --hashes 4 --extra-slices 3",
        2,
        &["--window"],
    );
}

#[test]
fn validate_apbf_passes() {
    run_ok("validate --family apbf").stdout(predicate::str::contains("FAIL").not());
}

/// Issue 9 `--duplicates`: the APBF row is sized on the repeats model (less memory, its
/// repeats FP within the target) and simulated on such a stream; the APBBF says it is
/// sized for distinct insertions and the plan says what the other rows assume; without
/// `--window` the flag is an error.
#[test]
fn recommend_duplicates_sizes_the_apbf_on_repeats() {
    let rows = |extra: &str| -> Vec<Value> {
        plan_rows(&format!("recommend --fp 0.01 --window 20000 {extra}"))
    };
    let apbf = |rows: &[Value]| -> Value {
        rows.iter()
            .find(|r| r["params"]["design"] == "apbf")
            .unwrap()
            .clone()
    };
    let plain = apbf(&rows(""));
    let all = rows("--duplicates 0.6");
    let dup = apbf(&all);
    assert!(dup["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    assert_eq!(dup["metrics"]["fp_kind"], "worst_case_with_repeats");
    assert!(dup["metrics"]["bits"].as_u64() < plain["metrics"]["bits"].as_u64());
    let apbbf = all
        .iter()
        .find(|r| r["params"]["design"] == "apbbf")
        .unwrap();
    assert!(
        apbbf["metrics"]["notes"]
            .to_string()
            .contains("sized for distinct insertions"),
        "{apbbf}"
    );
    run_ok("recommend --fp 0.01 --window 20000 --duplicates 0.6").stdout(predicate::str::contains(
        "only the apbf row is sized on a model of repeats",
    ));
    assert_exit(
        "recommend --fp 0.01 --capacity 1000 --duplicates 0.5",
        2,
        &["--duplicates"],
    );
    assert_exit(
        "recommend --fp 0.01 --window 1000 --duplicates 1",
        2,
        &["0 <= duplicates < 1"],
    );
}

/// `simulate apbf --workload window-repeats`: predicted with the repeats model, and
/// the measurement agrees (Figures 7-8 [APBF]).
#[test]
fn simulate_apbf_with_window_repeats_uses_the_repeats_model() {
    let v: Value = json(
        "simulate apbf --hashes 4 --extra-slices 3 --window 1000 --workload window-repeats \
         --duplicates 0.5 --epochs 4",
    );
    let m = &v["metrics"];
    assert_eq!(m["agrees"], true);
    let (fp, paper) = (m["fp"].as_f64().unwrap(), m["fp_paper"].as_f64().unwrap());
    assert!(fp < 0.5 * paper, "{fp} vs {paper}");
    assert_eq!(m["false_negatives"], 0);
}
