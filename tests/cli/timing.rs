//! `bfopt model|posterior|optimize|simulate btbf` (issue 5).

use super::{assert_exit, json, plan_rows};
use bfopt_models::timing::btbf::{BtbfModel, BtbfObservation, BtbfParams, TimerAge};
use bfopt_models::timing::prior::{Distinct, StreamPrior};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelJson {
    family: String,
    params: ParamsJson,
    metrics: MetricsJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamsJson {
    m: u64,
    k: u32,
    bpt: u32,
    block_size: u64,
    padding: u64,
    w: u64,
    prior: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricsJson {
    fp: f64,
    bits: u64,
    bits_per_item: f64,
    t_max: u64,
    scan_per_insert: f64,
    in_window: Option<f64>,
}

#[test]
fn model_btbf_json_shape_and_values() {
    let j: ModelJson = json(
        "model btbf --timers 65536 --hashes 4 --bits-per-timer 8 --block-size 512 \
         --window 65536 --prior uniform:65536",
    );
    assert_eq!(j.family, "timing");
    let p = &j.params;
    assert_eq!(
        (p.m, p.k, p.bpt, p.block_size, p.w),
        (65536, 4, 8, 512, 65536)
    );
    // Rule of thumb P = ⌈m/(kB)⌉ − 1 = 31; T_Ω = ⌈w/B⌉ + 1 + P = 160.
    assert_eq!(p.padding, 31);
    assert_eq!(p.prior.as_deref(), Some("uniform:65536"));
    let m = &j.metrics;
    assert_eq!((m.bits, m.t_max), (8 * 65536, 160));
    assert_eq!((m.bits_per_item, m.scan_per_insert), (8.0, 4.0));
    let params = BtbfParams::new(65536, 4, 8, 512, 65536, 31).unwrap();
    let prior = StreamPrior::uniform(65536).unwrap();
    let lib = BtbfModel::new(params, prior.distinct()).metrics(Some(&prior));
    assert_eq!(m.fp, lib.fp);
    // P(I < w) = 1 − (1 − 2^−16)^(2^16) ≈ 1 − 1/e.
    assert!((m.in_window.unwrap() - (1.0 - (-1.0f64).exp())).abs() < 1e-5);
    // Without a prior: never-repeated items, no in_window.
    let j: Value = json(
        "model btbf --timers 1e5 --hashes 3 --bits-per-timer 4 --block-size 100 --window 1000",
    );
    assert!(j["metrics"].get("in_window").is_none());
    assert!(j["metrics"]["fp"].as_f64().unwrap() < 0.01);
}

#[test]
fn model_btbf_invalid_input_exits_2() {
    for (args, needle) in [
        (
            "--bits-per-timer 7 --block-size 512 --window 65536",
            "--bits-per-timer = 7",
        ),
        (
            "--bits-per-timer 8 --block-size 512 --window 0",
            "--window = 0",
        ),
        (
            "--bits-per-timer 8 --block-size 600 --window 500",
            "--block-size = 600",
        ),
        (
            "--bits-per-timer 8 --block-size 64 --window 500 --prior pareto:9",
            "--prior",
        ),
    ] {
        assert_exit(
            &format!("model btbf --timers 65536 --hashes 4 {args}"),
            2,
            &[needle],
        );
    }
}

#[test]
fn posterior_btbf_matches_the_library() {
    let j: Value = json(
        "posterior btbf --timers 65536 --hashes 4 --block-size 512 --offset 100 \
         --window 65536 --px 1.5e-5 --timestamp-age 3 --matching 2 --distinct uniform:65536 \
         --penalty-fp 3 --penalty-fn 1",
    );
    let params = BtbfParams::new(65536, 4, 8, 512, 65536, 0).unwrap();
    let model = BtbfModel::new(params, Distinct::Uniform { universe: 65536 });
    let o = BtbfObservation {
        age: TimerAge::Finite(3),
        matching: 2,
        touched: 4,
        offset: 100,
    };
    let post = model.posterior(1.5e-5, &o).unwrap();
    let m = &j["metrics"];
    assert_eq!(m["posterior"].as_f64().unwrap(), post);
    assert_eq!(
        m["expected_age"].as_f64().unwrap(),
        model.expected_age(1.5e-5, &o).unwrap()
    );
    // λ = 3, b = 100: the smallest consistent age is (λ−1)B + b = 1124.
    assert_eq!(m["most_likely_age"].as_u64().unwrap(), 1124);
    // 3(1 − π) <= π iff π >= 0.75.
    let expect = if post >= 0.75 { "positive" } else { "negative" };
    assert_eq!(m["decision"].as_str().unwrap(), expect);
    // Expired: posterior 0, decision negative.
    let j: Value = json(
        "posterior btbf --timers 1000 --hashes 4 --window 100 --px 0.01 \
         --timestamp-age expired --matching 1 --penalty-fp 1 --penalty-fn 1",
    );
    assert_eq!(j["metrics"]["posterior"].as_f64().unwrap(), 0.0);
    assert_eq!(j["metrics"]["decision"].as_str().unwrap(), "negative");
}

#[test]
fn posterior_btbf_contradictions_exit_2() {
    let base = "posterior btbf --timers 1000 --hashes 4 --block-size 8 --window 100";
    for (args, needle) in [
        (
            "--offset 0 --px 0.01 --timestamp-age 0 --matching 4",
            "contradiction",
        ),
        (
            "--offset 0 --px 0.01 --timestamp-age 1 --matching 2",
            "contradiction",
        ),
        (
            "--offset 3 --px 0.01 --timestamp-age 0 --matching 3",
            "--matching = 3",
        ),
        (
            "--offset 3 --px 0 --timestamp-age 2 --matching 1",
            "--px = 0",
        ),
        (
            "--offset 3 --px 1.5 --timestamp-age 2 --matching 1",
            "--px = 1.5",
        ),
        (
            "--offset 3 --px 0.1 --timestamp-age 2 --matching 5",
            "--matching = 5",
        ),
        (
            "--offset 3 --px 0.1 --timestamp-age 2 --matching 1 --touched 5",
            "--touched = 5",
        ),
        (
            "--offset 8 --px 0.1 --timestamp-age 2 --matching 1",
            "--offset = 8",
        ),
        (
            "--offset 3 --px 0.1 --timestamp-age old --matching 1",
            "--timestamp-age",
        ),
    ] {
        assert_exit(&format!("{base} {args}"), 2, &[needle]);
    }
}

#[test]
fn optimize_btbf_small() {
    let j: Value = json(
        "optimize btbf --bits-per-item 6 --window 2048 --prior uniform:2048 \
         --penalties uniform:1:10 --max-hashes 6 --max-bits-per-timer 8",
    );
    let m = &j["metrics"];
    for key in [
        "hashes",
        "bits_per_timer",
        "block_size",
        "padding",
        "timers",
    ] {
        assert!(m[key].as_u64().is_some(), "{key}: {m}");
    }
    let std = m["expected_penalty_standard"].as_f64().unwrap();
    let inf = m["expected_penalty_inferential"].as_f64().unwrap();
    assert!(inf > 0.0 && inf < std, "{inf} vs {std}");
    assert!(m["bits_per_item_used"].as_f64().unwrap() <= 6.0);
    assert_eq!(j["params"]["prior"].as_str().unwrap(), "uniform:2048");
    assert_exit(
        "optimize btbf --bits-per-item 0.0001 --window 16 --prior uniform:16",
        3,
        &[],
    );
    assert_exit(
        "optimize btbf --bits-per-item 4 --window 16 --prior uniform:16 --penalties uniform:5:1",
        2,
        &["--penalties"],
    );
}

#[test]
fn simulate_btbf_agrees() {
    let btbf = "simulate btbf --timers 4096 --hashes 3 --bits-per-timer 5 --block-size 128 \
                --window 2048 --prior uniform:2048";
    let j: Value = json(&format!("{btbf} --queries 20000 --epochs 2"));
    let m = &j["metrics"];
    assert_eq!(m["agrees"].as_bool(), Some(true), "{m}");
    assert_eq!(m["false_negatives"].as_u64(), Some(0));
    assert!(m["penalty_ratio"].as_f64().unwrap() < 1.0);
    assert_exit(&format!("{btbf} --epochs 1"), 2, &["--epochs"]);
}

/// The `timing` / `gbf` rows of `bfopt recommend --format json` for a requirement.
fn recommend_rows(args: &str) -> Vec<Value> {
    let rows = plan_rows(&format!("recommend {args}"));
    rows.into_iter()
        .filter(|r| r["family"] == "timing" || r["family"] == "gbf")
        .collect()
}

/// A numeric parameter of a row.
fn field(row: &Value, key: &str) -> u64 {
    row["params"][key].as_u64().unwrap()
}

/// Issue 9: `recommend --window` lists the standard BTBF (no false negatives); its
/// worst FP over the block offset, recomputed from the model, meets the target; the
/// slack is the block granularity.
#[test]
fn recommend_window_lists_a_btbf_that_meets_the_target() {
    let rows = recommend_rows("--fp 0.01 --window 1e4");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["btbf"],
        "no --allow-fn: no gbf; no --penalties: no inferential"
    );
    let r = &rows[0];
    assert_eq!(r["metrics"]["false_negatives"]["kind"], "none_in_window");
    let p = BtbfParams::new(
        field(r, "m"),
        field(r, "k") as u32,
        field(r, "bpt") as u32,
        field(r, "block_size"),
        10_000,
        field(r, "padding"),
    )
    .unwrap();
    let model = BtbfModel::new(p, Distinct::Identity);
    let worst = (0..p.block_size())
        .map(|b| model.fp_at_age(u64::MAX / 2, b))
        .fold(0.0, f64::max);
    assert!(worst <= 0.01 * (1.0 + 1e-9), "{worst}");
    assert!(worst > 0.009, "sized tightly: {worst}");
    assert!(model.metrics(None).fp <= worst);
    assert_eq!(r["metrics"]["bits"], p.memory_bits());
    assert_eq!(r["metrics"]["slack"], p.block_size() - 1);
}

/// Issue 9: `--allow-fn` adds the GBF, sized so that its window-averaged FN and its
/// never-inserted FP meet the requirement, with the least `m` for its `(k0, k1)`.
#[test]
fn recommend_allow_fn_lists_a_gbf_within_both_rates() {
    use bfopt_models::gbf::GbfParams;
    let rows = recommend_rows("--fp 0.01 --window 1e4 --allow-fn 0.05");
    let g = rows.iter().find(|r| r["family"] == "gbf").unwrap();
    let (m, k0, k1) = (field(g, "m"), field(g, "k0") as u32, field(g, "k1") as u32);
    let x = GbfParams::new(m, k0, k1)
        .unwrap()
        .metrics_flat(10_000, None);
    assert!(x.fn_ <= 0.05 && x.fp <= 0.01, "{x:?}");
    let y = GbfParams::new(m - 1, k0, k1)
        .unwrap()
        .metrics_flat(10_000, None);
    assert!(y.fn_ > 0.05 || y.fp > 0.01, "m - 1 also fits: {y:?}");
    assert_eq!(g["metrics"]["bits"], m);
}

/// Issue 9: `--penalties FP:FN` adds the inferential BTBF, whose predicted expected
/// penalty is below the standard filter's; malformed prices exit 2 naming the flag.
#[test]
fn recommend_penalties_adds_the_inferential_btbf() {
    let rows = recommend_rows("--fp 0.01 --window 1e4 --penalties 1:10");
    let inf = rows
        .iter()
        .find(|r| r["params"]["design"] == "btbf/inferential")
        .unwrap();
    let text = inf["metrics"]["notes"].to_string();
    let num = |after: &str| -> f64 {
        let s = &text[text.find(after).unwrap() + after.len()..];
        s.split([' ', ')']).next().unwrap().parse().unwrap()
    };
    let (inferential, standard) = (num("per query "), num("(standard answer "));
    assert!(inferential < standard, "{text}");
    for bad in ["0:0", "1", "a:b", "-1:2", "1:inf"] {
        assert_exit(
            &format!("recommend --fp 0.01 --window 1e4 --penalties {bad}"),
            2,
            &["--penalties"],
        );
    }
    // Shapes where the timing designs do not fit list them as excluded.
    let excluded = super::plan_excluded("recommend --fp 0.01 --capacity 1e4");
    assert!(
        excluded
            .iter()
            .any(|e| e.starts_with("btbf: serves a sliding window")),
        "{excluded:?}"
    );
}
