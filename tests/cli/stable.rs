//! `bfopt model|optimize|simulate sbf|ibf` and `validate --family stable` (issue 8).

use super::{assert_exit, bfopt, exits, json, plan_rows, words};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SbfModelJson {
    family: String,
    params: SbfParamsJson,
    metrics: SbfMetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SbfParamsJson {
    m: u64,
    k: u32,
    max: u32,
    p: u64,
    age: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SbfMetricsJson {
    zero_fraction: f64,
    zero_fraction_chain: f64,
    zero_cells: f64,
    fp: f64,
    fn_limit: f64,
    fn_half_life: Option<u64>,
    fn_at_age: Option<f64>,
    memory_bits: u64,
}

#[test]
fn model_sbf_json_shape_and_values() {
    let j: SbfModelJson =
        json("model sbf --cells 1000 --hashes 3 --max 3 --decrements 10 --age 200");
    assert_eq!(j.family, "stable");
    assert_eq!(
        (j.params.m, j.params.k, j.params.max, j.params.p),
        (1000, 3, 3, 10)
    );
    assert_eq!(j.params.age, Some(200));
    let m = &j.metrics;
    // (1/(1 + 1/(P(1/K − 1/m))))^Max
    let z = (1.0f64 / (1.0 + 1.0 / (10.0 * (1.0 / 3.0 - 1e-3)))).powi(3);
    assert!((m.zero_fraction / z - 1.0).abs() < 1e-12);
    assert!((m.zero_fraction_chain / z - 1.0).abs() < 1e-9);
    assert!((m.zero_cells - 1000.0 * z).abs() < 1e-9);
    assert!((m.fp / (1.0 - z).powi(3) - 1.0).abs() < 1e-12);
    assert!((m.fn_limit - (1.0 - (1.0 - z).powi(3))).abs() < 1e-12);
    let f = m.fn_at_age.unwrap();
    assert!(f > 0.0 && f < m.fn_limit);
    // The half-life is the first age with FN >= 1/2.
    assert_eq!(
        f < 0.5,
        m.fn_half_life.unwrap() > 200,
        "{f} {:?}",
        m.fn_half_life
    );
    assert_eq!(m.memory_bits, 2000);
}

#[test]
fn model_ibf_reports_the_issue_metrics() {
    let v: serde_json::Value = json(
        "model ibf --policy ibf3 --cells 512 --hashes 4 --max 5 --decrements 5 \
         --importance exponential:1:20:0.1 --age 256",
    );
    assert_eq!(v["params"]["policy"], "ibf3");
    assert_eq!(v["params"]["importance"], "exponential:1:20:0.1");
    let m = &v["metrics"];
    for key in [
        "zero_fraction",
        "zero_cells",
        "fp",
        "weighted_fp",
        "weighted_fn",
        "precision",
        "recall",
    ] {
        let x = m[key].as_f64().unwrap_or_else(|| panic!("{key}: {m}"));
        assert!(x.is_finite() && x >= 0.0, "{key} = {x}");
    }
    assert_eq!(m["fn_by_importance"].as_array().unwrap().len(), 20);
    assert_eq!(m["method"]["method"], "mean_field_weight");
}

#[test]
fn optimize_sbf_meets_the_target_that_truncation_misses() {
    let v: serde_json::Value = json("optimize sbf --cells 1000 --hashes 2 --max 1 --fp 0.1");
    assert_eq!(v["metrics"]["decrements"], 5);
    assert!(v["metrics"]["fp"].as_f64().unwrap() <= 0.1);
    let real = v["metrics"]["decrements_real"].as_f64().unwrap();
    assert!((real - 4.333).abs() < 1e-3);
}

#[test]
fn optimize_sbf_infeasible_exits_3() {
    assert_exit(
        "optimize sbf --cells 100 --hashes 1 --max 15 --fp 1e-6",
        3,
        &["fp = "],
    );
}

#[test]
fn optimize_ibf_chooses_within_budget() {
    let v: serde_json::Value = json(
        "optimize ibf --bits 2048 --importance linear:1:8 --cost-fp 1 --cost-fn 0.5*imp \
         --age 200 --policies sbf,ibf1",
    );
    let m = &v["metrics"];
    assert!(m["memory_bits"].as_u64().unwrap() <= 2048);
    assert!(["sbf", "ibf1"].contains(&m["policy"].as_str().unwrap()));
    assert!(m["cost"].as_f64().unwrap() > 0.0);
    assert_eq!(v["params"]["cost_fn"], "0+0.5*imp");
}

#[test]
fn simulate_sbf_agrees_with_the_model() {
    let v: serde_json::Value = json(
        "simulate sbf --cells 512 --hashes 4 --max 5 --decrements 5 --steps 5000 --epochs 4 \
         --confidence 0.999",
    );
    let m = &v["metrics"];
    let (z, lo, hi) = (
        m["zero_fraction"].as_f64().unwrap(),
        m["measured_zero_fraction_lo"].as_f64().unwrap(),
        m["measured_zero_fraction_hi"].as_f64().unwrap(),
    );
    assert!(lo <= z && z <= hi, "{z} not in [{lo}, {hi}]");
}

#[test]
fn invalid_stable_input_exits_2_naming_the_flag() {
    let base = "--cells 512 --hashes 4";
    for (args, msg) in [
        ("model sbf --max 0 --decrements 5", "--max = 0"),
        ("model sbf --max 5 --decrements 512", "--decrements = 512"),
        ("model ibf --policy ibf9 --max 5 --decrements 5", "ibf9"),
        (
            "model ibf --policy ibf1 --max 5 --decrements 5 --importance linear:1",
            "--importance = linear:1",
        ),
    ] {
        assert_exit(&format!("{args} {base}"), 2, &[msg]);
    }
}

#[test]
fn validate_knows_the_stable_family() {
    assert_exit("validate --family nope", 2, &["stable"]);
}

#[test]
fn recommend_lists_a_stable_design_when_fn_is_allowed() {
    let rows = |extra: &str| -> Vec<serde_json::Value> {
        plan_rows(&format!("recommend --fp 0.01 --window 1e4 {extra}"))
    };
    let v = rows("--allow-fn 0.1");
    let sbf: Vec<&serde_json::Value> = v.iter().filter(|r| r["family"] == "stable").collect();
    assert_eq!(sbf.len(), 1, "{v:?}");
    assert!(sbf[0]["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    // Without --allow-fn no design that forgets window items.
    assert!(rows("").iter().all(|r| r["family"] != "stable"));
    assert_exit(
        "recommend --fp 0.01 --window 1e4 --allow-fn 1.5",
        2,
        &["--allow-fn"],
    );
}

#[test]
fn simulate_ibf_thesis_stream_reports_tables_3_4_metrics() {
    let ibf = "simulate ibf --policy ibf3 --cells 512 --hashes 4 --max 5 --decrements 5";
    let v: serde_json::Value = json(&format!("{ibf} --arrivals 5000 --epochs 2"));
    let m = &v["metrics"];
    for key in [
        "measured_weighted_fp",
        "measured_weighted_fn",
        "measured_precision",
        "measured_recall",
        "weighted_fp",
        "weighted_fn",
        "precision",
        "recall",
    ] {
        let x = m[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{key} = {x}");
    }
    assert_eq!(m["measured_fn_by_importance"].as_array().unwrap().len(), 50);
    assert_eq!(m["fn_by_importance"].as_array().unwrap().len(), 50);
    assert_eq!(
        m["measured_zero_cells_series"].as_array().unwrap().len(),
        10
    );
    assert_exit(
        &format!("{ibf} --arrivals 100 --duplicates 1.5"),
        2,
        &["--duplicates"],
    );
    // Beyond the model's work limit (about 170 000 arrivals here): refused before the
    // simulation, which at 1000 epochs would take many minutes (the timeout fails it).
    let line = "simulate ibf --policy ibf2 --cells 262144 --hashes 4 --max 4 --decrements 7 \
                --arrivals 300000 --epochs 1000";
    exits(
        bfopt()
            .args(words(line))
            .timeout(std::time::Duration::from_secs(60)),
        2,
        &["--arrivals = 300000", "allowed 2 <= arrivals <="],
    );
}

#[test]
fn model_sbf_convergence() {
    let sbf = "model sbf --cells 512 --hashes 4 --max 5 --decrements 5";
    let v: serde_json::Value = json(&format!("{sbf} --insertions 0"));
    assert_eq!(v["metrics"]["zero_fraction_after"], 1.0);
    let v: serde_json::Value = json(&format!("{sbf} --insertions 100000"));
    let (after, limit) = (
        v["metrics"]["zero_fraction_after"].as_f64().unwrap(),
        v["metrics"]["zero_fraction"].as_f64().unwrap(),
    );
    assert!((after / limit - 1.0).abs() < 1e-9, "{after} vs {limit}");
}

#[test]
fn model_ibf_scale_mapping_is_reported() {
    let v: serde_json::Value = json(
        "model ibf --policy ibf1 --cells 512 --hashes 4 --max 4 --decrements 5 --imp-map scale \
         --age 100",
    );
    assert_eq!(v["params"]["imp_mapping"], "scale");
    let f = v["metrics"]["fn_by_importance"].as_array().unwrap();
    // Four steps: importance 1..12 share one value, 13 the next.
    assert_eq!(f[0], f[11]);
    assert!(f[11].as_f64().unwrap() > f[12].as_f64().unwrap());
}

/// Issue 9: `recommend --importance SPEC` adds importance-aware rows (IBF1-IBF6; issue 8:
/// the MinImp IBF2 and IBF4 too), each meeting the FP target at its stable point.
#[test]
fn issue_9_recommend_importance_adds_ibf_rows() {
    let v = plan_rows("recommend --fp 0.05 --window 2e4 --allow-fn 0.1 --importance linear:1:50");
    let ibf: Vec<&serde_json::Value> = v
        .iter()
        .filter(|r| r["family"] == "stable" && r["params"]["design"] != "sbf")
        .collect();
    let designs: Vec<&str> = ibf
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    assert_eq!(designs.len(), 6, "{designs:?} in {v:?}");
    for d in ["ibf1", "ibf2", "ibf3", "ibf4", "ibf5", "ibf6"] {
        assert!(designs.contains(&d), "{d} missing from {designs:?}");
    }
    for r in &ibf {
        assert!(r["metrics"]["fp"].as_f64().unwrap() <= 0.05, "{r}");
    }
}

#[test]
fn issue_9_recommend_importance_rejects_bad_specs() {
    for bad in [
        "linear:0:50",
        "exp:1:2",
        "hist:",
        "linear:5:1",
        "exponential:1:9:-1",
    ] {
        assert_exit(
            &format!("recommend --fp 0.05 --window 1e4 --allow-fn 0.1 --importance {bad}"),
            2,
            &["--importance", bad],
        );
    }
    // Without --allow-fn (and --window) the flag is a usage error naming what it needs.
    assert_exit(
        "recommend --fp 0.05 --capacity 1e4 --importance linear:1:50",
        2,
        &["--allow-fn"],
    );
}
