//! `bfopt model|optimize|simulate scalable`, `target redisbloom --items`, and `recommend
//! --initial-capacity --max-items` (issues 21, 24).

use super::{assert_exit, json, json_value, plan_rows, run_ok, words};
use bfopt_models::classic::Layout;
use bfopt_models::scalable::{Preset, ScalableParams};
use bfopt_models::systems::redisbloom;
use predicates::prelude::*;
use serde_json::Value;

#[test]
fn model_scalable_matches_the_library() {
    let v: Value = json(
        "model scalable --initial-capacity 1000 --fp0 0.005 --tightening 0.5 --growth 2 --items 1e4",
    );
    let x = ScalableParams::new(1000, 0.005, 0.5, 2.0, Layout::Standard)
        .unwrap()
        .chain(10_000)
        .unwrap()
        .at(10_000)
        .unwrap();
    assert_eq!(v["metrics"]["links"], 4);
    assert_eq!(v["metrics"]["memory_bits"], x.memory_bits);
    assert!((v["metrics"]["fp"].as_f64().unwrap() / x.fp - 1.0).abs() < 1e-12);
    assert_eq!(v["metrics"]["fp_limit"], 0.01);
    assert_eq!(v["metrics"]["link_detail"].as_array().unwrap().len(), 4);
}

#[test]
fn optimize_scalable_lists_the_optimum_and_both_presets() {
    let rows: Vec<Value> = json("optimize scalable --fp 0.01 --initial-capacity 1e4 --items 1e6");
    let designs: Vec<&str> = rows
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    assert_eq!(designs.len(), 5, "{designs:?}");
    assert_eq!(designs[0], "bfopt");
    let bits = |i: usize| rows[i]["metrics"]["memory_bits"].as_u64().unwrap();
    for (i, row) in rows.iter().enumerate() {
        assert!(row["metrics"]["fp"].as_f64().unwrap() <= 0.01, "{row}");
        assert!(bits(0) <= bits(i), "{row}");
    }
    // Sized for n, the presets' ratios need less than the libraries' P0 = fp·(1 − r).
    assert!(bits(1) < bits(3) && bits(2) < bits(4));
    assert_eq!(rows[3]["params"]["p0"], 0.005);
    assert!((rows[4]["params"]["r"].as_f64().unwrap() - Preset::Growable.r()).abs() < 1e-15);
}

#[test]
fn simulate_scalable_agrees_over_four_links() {
    let v: Value = json(
        "simulate scalable --initial-capacity 500 --fp0 0.02 --items 6000 --epochs 6 --probes 20000 --seed 3",
    );
    assert_eq!(v["metrics"]["links"], 4);
    assert_eq!(v["metrics"]["links"], v["metrics"]["measured_links"]);
    assert_eq!(v["metrics"]["agrees"], true, "{v}");
}

#[test]
fn bad_scalable_flags_exit_2_naming_the_flag() {
    assert_exit(
        "model scalable --initial-capacity 1000 --fp0 0.01 --tightening 1.5 --items 10",
        2,
        &["--tightening", "1.5"],
    );
    assert_exit(
        "model scalable --initial-capacity 1000 --fp0 0.01 --growth 0.5 --items 10",
        2,
        &["--growth", "0.5", "1 <= s <= 64"],
    );
    assert_exit(
        "model scalable --initial-capacity 0 --fp0 0.01 --items 10",
        2,
        &["--initial-capacity"],
    );
    assert_exit(
        "optimize scalable --fp 2 --initial-capacity 10 --items 100",
        2,
        &["--fp"],
    );
    assert_exit(
        "simulate scalable --initial-capacity 100 --fp0 0.01 --items 1000 --epochs 1",
        2,
        &["--epochs"],
    );
    // s = 1 from one item cannot reach 10^6 in 64 links: infeasible, exit 3.
    assert_exit(
        "model scalable --initial-capacity 1 --fp0 0.01 --growth 1 --items 1e6",
        3,
        &["links"],
    );
}

#[test]
fn target_redisbloom_items_models_the_scaling_chain() {
    let rows: Vec<Value> = json("target redisbloom --fp 0.01 --capacity 1e3 --items 1e5");
    let setting = |s: &str| {
        rows.iter()
            .find(|r| r["params"]["setting"] == s)
            .unwrap_or_else(|| panic!("no {s} row"))
    };
    let t = redisbloom::scaling_target(0.01, 1000, 100_000).unwrap();
    let req = setting("scaling at items");
    assert_eq!(req["params"]["config"], "BF.RESERVE k 0.01 1000");
    assert_eq!(req["metrics"]["links"], t.requested_at_n.links as u64);
    assert_eq!(req["metrics"]["bits"], t.requested_at_n.memory_bits);
    let ours = setting("bfopt scaling at items");
    assert_eq!(ours["params"]["config"], t.scaling.as_str());
    assert_eq!(ours["metrics"]["meets"], true);
    assert!(ours["metrics"]["bits"].as_u64() <= req["metrics"]["bits"].as_u64());
    assert_eq!(
        setting("bfopt nonscaling at items")["metrics"]["meets"],
        true
    );
    assert_exit(
        "target redisbloom --fp 0.01 --capacity 1e3 --items 0",
        2,
        &["--items"],
    );
}

#[test]
fn recommend_for_a_growing_set_ranks_chains_and_the_classic_filter() {
    let line = "recommend --fp 0.01 --initial-capacity 1e4 --max-items 1e6";
    let rows = plan_rows(line);
    let designs: Vec<&str> = rows
        .iter()
        .map(|r| r["params"]["design"].as_str().unwrap())
        .collect();
    for d in [
        "scalable/bfopt",
        "scalable/redisbloom",
        "scalable/growable",
        "classic/standard@max",
    ] {
        assert!(designs.contains(&d), "{designs:?}");
    }
    // At the most items the classic filter sized for them is the least memory; a chain
    // spends far less at the initial capacity.
    assert_eq!(designs[0], "classic/standard@max");
    for r in &rows {
        assert!(r["metrics"]["fp"].as_f64().unwrap() <= 0.01, "{r}");
        let limit = r["metrics"]["times_limit"].as_f64().unwrap();
        let bpi = r["metrics"]["bits_per_item"].as_f64().unwrap();
        assert!((limit - bpi / 0.01f64.recip().log2()).abs() < 1e-9, "{r}");
    }
    let chain = rows
        .iter()
        .find(|r| r["params"]["design"] == "scalable/bfopt")
        .unwrap();
    let at_start = chain["params"]["bits_at_initial"].as_u64().unwrap();
    assert!(at_start * 10 < rows[0]["metrics"]["bits"].as_u64().unwrap());
    let plan = json_value(&words(line));
    assert_eq!(plan["requirement"]["shape"], "growing");
    let reason = plan["pick"]["reason"].as_str().unwrap();
    assert!(reason.contains("x the lower bound"), "{reason}");
    assert!(
        reason.contains("until the set outgrows its initial capacity"),
        "{reason}"
    );
    run_ok(line).stdout(predicate::str::contains("bits/item (x)"));
    assert_exit(
        "recommend --fp 0.01 --initial-capacity 1e6 --max-items 1e4",
        2,
        &["--max-items"],
    );
    assert_exit(
        "recommend --fp 0.01 --initial-capacity 1e4",
        2,
        &["--max-items"],
    );
}

#[test]
fn every_recommend_row_states_its_distance_from_the_limit() {
    // A classic standard filter sits at 1/ln 2 = 1.44 of the bound at its optimum.
    let rows = plan_rows("recommend --fp 0.01 --capacity 1e6");
    let standard = rows
        .iter()
        .find(|r| r["params"]["design"] == "classic/standard")
        .unwrap();
    let x = standard["metrics"]["times_limit"].as_f64().unwrap();
    assert!((x - 1.0 / std::f64::consts::LN_2).abs() < 0.01, "{x}");
    run_ok("recommend --help").stdout(predicate::str::contains("Naor and Yogev"));
}
