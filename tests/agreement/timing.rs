//! Model vs simulation for the Timing / Block Timing Bloom filter (issue 5): standard
//! FP, expected penalties per query (standard, inferential, prior only), posterior
//! calibration, and the chooser's optimum.

use bfopt_validation::suite::{self, Level};

#[test]
fn timing_suite_passes_at_quick_size() {
    let checks = suite::run(Some("timing"), Level::Quick, 1).unwrap();
    for c in &checks {
        eprintln!("{c}");
    }
    assert!(checks.len() >= 20, "{} checks", checks.len());
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The chooser's optimum, validated by simulation (issue 5): among the best design the
/// model finds for each `k`, the one it predicts best must be within 3% of the best
/// simulated penalty. All candidates run on the same stream and penalties (common random
/// numbers), so their differences are measured far more precisely than their levels.
#[test]
fn chooser_optimum_is_near_optimal_in_simulation() {
    use bfopt_models::timing::design::{design, BtbfRequirement};
    use bfopt_models::timing::{PenaltyDist, StreamPrior};
    use bfopt_validation::experiments::timing::{simulate, TimingSimConfig};

    let w = 2048;
    let prior = StreamPrior::uniform(2048).unwrap();
    let req = BtbfRequirement::new(6.0, w, prior, PenaltyDist::paper())
        .unwrap()
        .with_k_max(8)
        .unwrap()
        .with_bpt_max(8)
        .unwrap();
    let d = design(&req).unwrap();
    let mut rows = Vec::new();
    for k in 1..=8u32 {
        let best_k = d
            .candidates
            .iter()
            .filter(|c| c.params.k() == k)
            .min_by(|a, b| a.penalty.inferential.total_cmp(&b.penalty.inferential))
            .unwrap();
        let cfg = TimingSimConfig {
            params: best_k.params,
            prior,
            distinct: prior.distinct(),
            warmup: 4 * w,
            queries: 1 << 17,
            penalties: PenaltyDist::paper(),
            epochs: 2,
            seed: 77,
            confidence: 0.99,
        };
        let r = simulate(&cfg).unwrap();
        rows.push((k, best_k.penalty.inferential, r.inferential_penalty.mean));
    }
    for (k, pred, sim) in &rows {
        eprintln!("k = {k}: predicted {pred:.4}, simulated {sim:.4}");
    }
    let sim_best = rows.iter().map(|r| r.2).fold(f64::INFINITY, f64::min);
    let chosen = rows.iter().find(|r| r.0 == d.best.params.k()).unwrap();
    assert!(
        chosen.2 <= 1.03 * sim_best,
        "chosen k = {}: simulated {} vs best simulated {sim_best}",
        chosen.0,
        chosen.2
    );
    // The prediction tracks the simulation across k (within 5% each).
    for (k, pred, sim) in &rows {
        assert!(
            (pred / sim - 1.0).abs() < 0.05,
            "k = {k}: predicted {pred}, simulated {sim}"
        );
    }
}
