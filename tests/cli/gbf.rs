//! `bfopt model|posterior|simulate gbf` (issue 6).

use super::bfopt;
use super::json_value as json;
use bfopt_models::gbf::{posterior_balanced, GbfParams};
use predicates::prelude::*;

#[test]
fn model_gbf_metrics() {
    let j = json(&[
        "model",
        "gbf",
        "--bits",
        "32768",
        "--reset-hashes",
        "4",
        "--set-hashes",
        "4",
        "--window",
        "4096",
        "--age",
        "100",
        "--prior",
        "uniform:4096",
    ]);
    let m = &j["metrics"];
    let p = GbfParams::new(32768, 4, 4).unwrap();
    assert_eq!(m["positive_never"].as_f64().unwrap(), p.positive_never());
    assert_eq!(
        m["positive_at_age"].as_f64().unwrap(),
        p.positive_at_age(100)
    );
    for key in ["fp", "fn", "q0", "q1", "q_eps", "in_window"] {
        let v = m[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&v), "{key} = {v}");
    }
    let j = json(&[
        "model",
        "gbf",
        "--bits",
        "32768",
        "--reset-hashes",
        "4",
        "--set-hashes",
        "4",
        "--window",
        "4096",
    ]);
    assert!(j["metrics"].get("positive_at_age").is_none());
    assert_eq!(j["metrics"]["fp"], j["metrics"]["positive_never"]);
}

#[test]
fn posterior_gbf_is_stable_at_k30() {
    let args = [
        "posterior",
        "gbf",
        "--bits",
        "1024",
        "--reset-hashes",
        "30",
        "--set-hashes",
        "30",
        "--window",
        "512",
        "--px",
        "0.0009765625",
        "--matching",
        "45",
        "--mismatching",
        "15",
        "--penalty-fp",
        "2",
        "--penalty-fn",
        "1",
    ];
    let j = json(&args);
    let p = GbfParams::new(1024, 30, 30).unwrap();
    let want = posterior_balanced(&p, 45, 15, 0.0009765625, 512).unwrap();
    let m = &j["metrics"];
    assert_eq!(m["posterior"].as_f64().unwrap(), want);
    assert!(m["eq34_condition"].as_f64().unwrap() > 1e6);
    let expect = if 2.0 * (1.0 - want) <= want {
        "positive"
    } else {
        "negative"
    };
    assert_eq!(m["decision"].as_str().unwrap(), expect);
}

#[test]
fn gbf_invalid_input_exits_2() {
    let base = ["--bits", "1024", "--reset-hashes", "3", "--set-hashes", "3"];
    for (verb, extra, needle) in [
        (
            "posterior",
            vec![
                "--window",
                "512",
                "--px",
                "0.001",
                "--matching",
                "5",
                "--mismatching",
                "2",
            ],
            "--mismatching = 2",
        ),
        (
            "posterior",
            vec![
                "--window",
                "512",
                "--px",
                "0",
                "--matching",
                "5",
                "--mismatching",
                "1",
            ],
            "--px = 0",
        ),
        (
            "posterior",
            vec![
                "--window",
                "0",
                "--px",
                "0.1",
                "--matching",
                "5",
                "--mismatching",
                "1",
            ],
            "--window = 0",
        ),
        (
            "model",
            vec!["--window", "10", "--prior", "uniform:1"],
            "--prior",
        ),
    ] {
        bfopt()
            .args([verb, "gbf"])
            .args(base)
            .args(&extra)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
    }
    bfopt()
        .args([
            "model",
            "gbf",
            "--bits",
            "1024",
            "--reset-hashes",
            "0",
            "--set-hashes",
            "3",
            "--window",
            "5",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--reset-hashes = 0"));
}

#[test]
fn simulate_gbf_runs() {
    let j = json(&[
        "simulate",
        "gbf",
        "--bits",
        "8192",
        "--reset-hashes",
        "3",
        "--set-hashes",
        "3",
        "--window",
        "1024",
        "--prior",
        "uniform:1024",
        "--queries",
        "8192",
        "--epochs",
        "2",
    ]);
    let m = &j["metrics"];
    assert!(m["penalty_ratio"].as_f64().unwrap() < 1.0);
    let (fp, mfp) = (
        m["fp"].as_f64().unwrap(),
        m["measured_fp"].as_f64().unwrap(),
    );
    assert!((fp / mfp - 1.0).abs() < 0.15, "{fp} vs {mfp}");
}

#[test]
fn optimize_gbf_small() {
    let j = json(&[
        "optimize",
        "gbf",
        "--bits-per-item",
        "6",
        "--window",
        "512",
        "--prior",
        "uniform:512",
        "--max-hashes",
        "4",
    ]);
    let m = &j["metrics"];
    for key in [
        "reset_hashes",
        "set_hashes",
        "standard_reset_hashes",
        "standard_set_hashes",
    ] {
        let k = m[key].as_u64().unwrap();
        assert!((1..=4).contains(&k), "{key} = {k}");
    }
    let inf = m["expected_penalty_inferential"].as_f64().unwrap();
    let std = m["standard_expected_penalty"].as_f64().unwrap();
    assert!(inf > 0.0 && inf < std, "{inf} vs {std}");
    bfopt()
        .args([
            "optimize",
            "gbf",
            "--bits-per-item",
            "6",
            "--window",
            "512",
            "--prior",
            "uniform:512",
            "--max-hashes",
            "0",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-hashes"));
}
