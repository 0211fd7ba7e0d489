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
    crate::assert_all_pass(&checks);
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

/// D(j) (Section 2.5 [TBF]) against distinct counts of simulated streams: Eq. (16) is the
/// exact expectation for the uniform stream, Eq. (15) for the Zipf stream; Eq. (17)
/// within its stated error (at |U| = 2^12: 8% up to j = 2|U|; measured −5.2% at 2|U|).
#[test]
fn distinct_counts_match_d_of_j() {
    use bfopt_models::timing::prior::{harmonic, Distinct};
    use bfopt_validation::stats::Mean;
    use bfopt_validation::workload::rng;
    use rand::Rng;
    use rand_distr::{Distribution, Zipf};

    let u = 4096u64;
    let trials = 200;
    let zipf = Zipf::new(u as f64, 1.0).unwrap();
    for j in [100u64, 1000, 4096, 8192] {
        let (mut uni, mut zip) = (Vec::new(), Vec::new());
        for t in 0..trials {
            let mut r = rng(1000 + t);
            let mut seen_u = vec![false; u as usize + 1];
            let mut seen_z = vec![false; u as usize + 1];
            let (mut du, mut dz) = (0u64, 0u64);
            for _ in 0..j {
                let x = r.random_range(1..=u) as usize;
                du += u64::from(!std::mem::replace(&mut seen_u[x], true));
                let y = zipf.sample(&mut r) as usize;
                dz += u64::from(!std::mem::replace(&mut seen_z[y], true));
            }
            uni.push(du as f64);
            zip.push(dz as f64);
        }
        // 99.9% Student t intervals over the trials (8 comparisons: Bonferroni ≈ 99.99%).
        let mu = Mean::new(&uni, 0.9999);
        let mz = Mean::new(&zip, 0.9999);
        let eq16 = Distinct::Uniform { universe: u }.d(j as f64);
        let eq15 = Distinct::ZipfExact { universe: u }.d(j as f64);
        let eq17 = Distinct::zipf_approx(u).d(j as f64);
        assert!(
            mu.interval.contains(eq16),
            "j = {j}: Eq. (16) {eq16}, measured {mu:?}"
        );
        assert!(
            mz.interval.contains(eq15),
            "j = {j}: Eq. (15) {eq15}, measured {mz:?}"
        );
        assert!(
            (eq17 / mz.mean - 1.0).abs() < 0.08,
            "j = {j}: Eq. (17) {eq17}, measured {}",
            mz.mean
        );
        assert!(harmonic(u) > 8.0);
    }
}

/// The stream of the calibration tests: uniform over `|U| = w = 4096`, a BTBF of 8 bits
/// per item (`k = 4`, 5-bit timers), the paper's penalties, a warm-up of `4w`.
fn uniform_4096_stream() -> bfopt_validation::experiments::timing::TimingSimConfig {
    use bfopt_models::timing::design::BtbfRequirement;
    use bfopt_models::timing::{PenaltyDist, StreamPrior};
    let w = 4096;
    let prior = StreamPrior::uniform(4096).unwrap();
    let params = BtbfRequirement::new(8.0, w, prior, PenaltyDist::paper())
        .unwrap()
        .candidate(4, 5)
        .unwrap();
    bfopt_validation::experiments::timing::TimingSimConfig {
        params,
        prior,
        distinct: prior.distinct(),
        warmup: 4 * w,
        queries: 1 << 16,
        penalties: PenaltyDist::paper(),
        epochs: 4,
        seed: 1,
        confidence: 0.99,
    }
}

/// The paper's posterior (Eq. (25) as printed) comes out too low in the mid range on a
/// Uniform stream with repeats; the increment form of `G` is calibrated. This pins the
/// finding reported in `bfopt_models::timing` ("Known errata").
#[test]
fn paper_posterior_is_low_and_refined_posterior_is_calibrated() {
    use bfopt_validation::experiments::timing::{simulate, TimingSimConfig};

    let cfg = TimingSimConfig {
        queries: 1 << 17,
        epochs: 2,
        seed: 5,
        confidence: 0.99,
        ..uniform_4096_stream()
    };
    let r = simulate(&cfg).unwrap();
    eprintln!(
        "posterior error: paper {:.4}, refined {:.4}; penalty ratio {:.3}",
        r.posterior_error, r.refined_posterior_error, r.penalty_ratio
    );
    assert!(
        r.refined_posterior_error < 0.025,
        "{}",
        r.refined_posterior_error
    );
    assert!(r.posterior_error > r.refined_posterior_error + 0.01);
    // Mid-range bins of the paper's posterior: measured frequency above the mean posterior.
    let low: Vec<_> = r
        .calibration
        .bins()
        .into_iter()
        .filter(|b| b.count >= 500 && (0.2..0.6).contains(&b.midpoint))
        .collect();
    assert!(!low.is_empty());
    for b in low {
        let f = b.in_window as f64 / b.count as f64;
        assert!(
            f > b.mean_posterior + 0.03,
            "bin {}: frequency {f}, posterior {}",
            b.midpoint,
            b.mean_posterior
        );
    }
    assert!(r.refined_penalty.mean < r.inferential_penalty.mean);
    assert!(r.inferential_penalty.mean < r.standard_penalty.mean);
}

/// The Simple Buffer baseline (Eq. (36) [TBF]): predicted expected penalty per query
/// against the reference buffer, and its calibration.
#[test]
fn simple_buffer_penalty_and_calibration() {
    use bfopt_models::timing::buffer::SimpleBufferParams;
    use bfopt_models::timing::PenaltyDist;
    use bfopt_validation::experiments::timing::{simulate_buffer, TimingSimConfig};

    let cfg = TimingSimConfig {
        queries: 1 << 16,
        epochs: 4,
        seed: 9,
        confidence: 0.999,
        ..uniform_4096_stream()
    };
    let (w, prior) = (cfg.params.w(), cfg.prior);
    for bph in [6u32, 10, 14] {
        let buffer = SimpleBufferParams::for_budget(w, 8.0, bph).unwrap();
        let r = simulate_buffer(&cfg, &buffer).unwrap();
        let predicted = buffer.expected_penalty(&prior, &prior.distinct(), &PenaltyDist::paper());
        eprintln!(
            "bph = {bph}, δ = {}: predicted {predicted:.4}, measured {:.4} {:?}, posterior error {:.4}",
            buffer.delta(),
            r.penalty.mean,
            r.penalty.interval,
            r.calibration.posterior_error()
        );
        let i = r.penalty.interval;
        assert!(
            predicted >= i.lo * 0.98 && predicted <= i.hi * 1.02,
            "bph = {bph}: predicted {predicted}, measured {:?}",
            r.penalty
        );
        assert!(r.calibration.posterior_error() < 0.05);
    }
}
