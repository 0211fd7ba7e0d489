//! `bfopt model|optimize|simulate|validate rbf` (issue 4).

use super::{assert_exit, bfopt, json, plan_excluded, plan_rows, run_ok};
use predicates::prelude::*;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelJson {
    family: String,
    params: ParamsJson,
    metrics: SigmaMetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamsJson {
    bits: u64,
    k: u32,
    sigma: u64,
    phases: u8,
    hashing: String,
    recycling: String,
    fp_target: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SigmaMetricsJson {
    fp_avg: f64,
    fp_avg_paper: f64,
    fp_frozen: Option<f64>,
    expected_messages: f64,
    expected_messages_paper: f64,
    min_messages: u64,
    fn_window: Option<u64>,
    method: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NModelJson {
    family: String,
    params: NParamsJson,
    metrics: NMetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NParamsJson {
    m: u64,
    k: u32,
    n: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NMetricsJson {
    fp_worst: f64,
    fp_oracle: f64,
    fp_lower: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OptimizeJson {
    family: String,
    params: ParamsJson,
    metrics: OptimizeMetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OptimizeMetricsJson {
    #[serde(flatten)]
    model: SigmaMetricsJson,
    worst_case_messages: u64,
    worst_case_hashes: u32,
    worst_case_ratio: f64,
}

#[test]
fn model_rbf_sigma_json_shape() {
    let j: ModelJson = json("model rbf --bits 2000 --hashes 4 --recycle-bits 600 --phases 2");
    assert_eq!(j.family, "rbf");
    assert_eq!(
        (j.params.bits, j.params.k, j.params.sigma, j.params.phases),
        (2000, 4, 600, 2)
    );
    assert_eq!(
        (j.params.hashing.as_str(), j.params.recycling.as_str()),
        ("colliding", "non-retaining")
    );
    let m = j.metrics;
    assert_eq!(m.method, "exact");
    assert_eq!(m.fp_avg, m.fp_avg_paper);
    assert!(m.fp_frozen.unwrap() < m.fp_avg && m.fp_avg < 1.0);
    assert!(m.expected_messages_paper < m.expected_messages);
    assert_eq!(m.min_messages, 151);
    assert_eq!(m.fn_window, Some(152));
}

#[test]
fn model_rbf_retaining_reports_the_printed_eq10_apart() {
    let j: ModelJson =
        json("model rbf --bits 60 --hashes 3 --recycle-bits 40 --recycling retaining");
    assert_ne!(j.metrics.fp_avg, j.metrics.fp_avg_paper);
    assert!(j.metrics.fn_window.is_none() && j.metrics.fp_frozen.is_none());
}

#[test]
fn model_rbf_n_bounded_json_shape() {
    let j: NModelJson = json("model rbf --bits 1000 --hashes 4 --recycle-messages 150");
    assert_eq!(j.family, "rbf");
    assert_eq!((j.params.m, j.params.k, j.params.n), (1000, 4, 150));
    let m = j.metrics;
    assert!(m.fp_oracle <= m.fp_lower && m.fp_lower <= m.fp_worst);
}

#[test]
fn model_rbf_large_memory_uses_the_fluid_model() {
    let j: ModelJson = json("model rbf --bits 1e12 --hashes 7 --recycle-bits 5e11");
    assert_eq!(j.metrics.method, "fluid");
    assert!(j.metrics.fp_avg > 0.0 && j.metrics.fp_avg < 0.01);
}

#[test]
fn optimize_rbf_by_memory_and_by_messages() {
    let j: OptimizeJson = json("optimize rbf --bits 1e4 --fp 0.01");
    assert_eq!(j.family, "rbf");
    assert_eq!(j.params.fp_target, Some(0.01));
    let m = &j.metrics;
    assert_eq!(j.params.bits, 10_000);
    assert!(m.model.fp_avg <= 0.01);
    assert!(m.worst_case_ratio < 0.7 && m.worst_case_messages > 0 && m.worst_case_hashes > 0);

    let j: OptimizeJson = json("optimize rbf --messages 1000 --fp 0.01 --phases 2");
    assert!(j.metrics.model.expected_messages >= 1000.0);
    assert!(j.metrics.model.fp_avg <= 0.01);
    assert_eq!(j.params.bits % 2, 0);
}

#[test]
fn optimize_rbf_for_a_window_uses_two_phases() {
    let j: OptimizeJson = json("optimize rbf --window 1000 --fp 0.001");
    assert_eq!(j.params.phases, 2);
    assert!(j.metrics.model.fn_window.unwrap() >= 1000);
    assert!(j.metrics.model.fp_avg <= 0.001);
}

#[test]
fn simulate_rbf_agrees_with_the_model() {
    run_ok(
        "simulate rbf --bits 1000 --hashes 3 --recycle-bits 500 --epochs 4 --arrivals 20000 \
         --format csv",
    )
    .stdout(predicate::str::contains("measured_fp_each"))
    .stdout(predicate::str::contains("true"));
}

#[test]
fn invalid_rbf_input_exits_2_with_the_flag_named() {
    let cases: &[(&str, &str)] = &[
        (
            "model rbf --bits 1000 --hashes 4 --recycle-bits 1000",
            "--recycle-bits = 1000",
        ),
        (
            "model rbf --bits 1000 --hashes 4 --recycle-bits 3",
            "--recycle-bits = 3",
        ),
        (
            "model rbf --bits 1000 --hashes 0 --recycle-bits 500",
            "--hashes = 0",
        ),
        (
            "model rbf --bits 0 --hashes 2 --recycle-bits 500",
            "--bits = 0",
        ),
        (
            "model rbf --bits 1001 --hashes 2 --recycle-bits 400 --phases 2",
            "--bits = 1001",
        ),
        (
            "model rbf --bits 1000 --hashes 2 --recycle-bits 400 --phases 3",
            "--phases = 3",
        ),
        (
            "model rbf --bits 1000 --hashes 2",
            "exactly one of --recycle-bits",
        ),
        ("optimize rbf --bits 1000 --fp 1.5", "--fp = 1.5"),
        ("optimize rbf --bits 1000 --fp 0", "--fp = 0"),
        ("optimize rbf --fp 0.01", "exactly one of --bits"),
    ];
    for (line, message) in cases {
        assert_exit(line, 2, &[message]);
    }
}

#[test]
fn optimize_rbf_infeasible_exits_3() {
    // Three bits: even k = 1, σ = 1 averages FP 1/5 > 0.001.
    assert_exit("optimize rbf --bits 3 --fp 0.001", 3, &["no design"]);
}

#[test]
fn validate_rbf_passes() {
    run_ok("validate --family rbf");
}

#[test]
fn recommend_window_lists_the_two_phase_rbf() {
    let rows = plan_rows("recommend --fp 0.01 --window 1000");
    let rbf = rows
        .iter()
        .find(|r| r["params"]["design"] == "rbf/two-phase")
        .expect("an rbf row");
    assert_eq!(rbf["family"], "rbf");
    assert!(rbf["metrics"]["fp"].as_f64().unwrap() <= 0.01);
    assert_eq!(rbf["metrics"]["false_negatives"]["kind"], "none_in_window");
    // A static set: the RBF is excluded, with the reason.
    let excluded = plan_excluded("recommend --fp 0.01 --capacity 1000");
    assert!(
        excluded.contains(&"rbf/two-phase: serves a sliding window, not a static set".into()),
        "{excluded:?}"
    );
}

#[test]
fn reproduce_rbf_figure7_writes_files_and_lists_the_differences() {
    // Issue 9: CSV + SVG, and the points where the paper's "around 30%" does not hold.
    let dir = std::env::temp_dir().join(format!("bfopt-rbf-figure7-{}", std::process::id()));
    bfopt()
        .args(["reproduce", "rbf-figure7", "--out"])
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("rbf-figure7.svg"))
        .stdout(predicate::str::contains("differs from Figure 7 [RBF]"))
        .stdout(predicate::str::contains("around 30%"));
    let csv = std::fs::read_to_string(dir.join("rbf-figure7.csv")).unwrap();
    assert!(
        csv.starts_with("bits,fp,k_sigma,sigma,capacity_sigma"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 11);
    let svg = std::fs::read_to_string(dir.join("rbf-figure7.svg")).unwrap();
    assert!(svg.contains("f_w (Eq. (1))"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn model_rbf_refuses_a_multi_second_exact_solve_and_a_huge_n() {
    // Issue 10: exit 2 before starting, naming the flag.
    assert_exit(
        "model rbf --bits 1e12 --hashes 64 --recycle-bits 999999999999 --method exact",
        2,
        &["--recycle-bits", "auto"],
    );
    assert_exit(
        "model rbf --bits 1000 --hashes 64 --recycle-messages 1e9",
        2,
        &["--recycle-messages"],
    );
}
