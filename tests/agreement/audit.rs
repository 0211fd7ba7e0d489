//! `bfopt audit` against simulation (issue 22): reference filters filled with a known
//! number of distinct items, audited from their bits; the 95% interval must cover the
//! true count in 92-98% of at least 1000 seeded trials.
//!
//! With 1000 trials a well-calibrated 95% interval covers in 95% ± 0.69% (one binomial
//! standard deviation), so the 92-98% band is ±4.3 standard deviations: a failure is a
//! miscalibrated interval, not bad luck (α ≈ 2e-5 per configuration).

use bfopt_models::classic::{ClassicOccupancy, ClassicParams, Layout};
use bfopt_validation::filters::classic::ClassicFilter;
use bfopt_validation::workload::member;

/// Trials per configuration.
const TRIALS: u64 = 1000;
/// Nominal confidence of the audited interval.
const CONFIDENCE: f64 = 0.95;
/// Accepted coverage (issue 22).
const BAND: std::ops::RangeInclusive<f64> = 0.92..=0.98;

/// Share of `TRIALS` seeded trials whose interval covers `n`: each trial fills a fresh
/// reference filter (its own hash seed and keys) with `n` distinct keys, each inserted
/// `copies` times, and audits it from its bytes (the `--bitmap` path).
fn coverage(m: u64, k: u32, layout: Layout, n: u64, copies: u32, seed: u64) -> (f64, f64) {
    let params = ClassicParams::new(m, k, n, layout).unwrap();
    let mut covered = 0u64;
    let mut width = 0.0;
    for trial in 0..TRIALS {
        let s = seed + trial;
        let mut f = ClassicFilter::new(&params, s);
        for i in 0..n {
            for _ in 0..copies {
                f.insert_u64(member(s, i));
            }
        }
        let audit = ClassicOccupancy::from_bytes(m, k, layout, &f.bits().to_le_bytes())
            .unwrap()
            .audit(CONFIDENCE, None)
            .unwrap();
        let e = audit.estimate;
        let hi = e.items_hi.unwrap_or(f64::INFINITY);
        if e.items_lo <= n as f64 && n as f64 <= hi {
            covered += 1;
        }
        width += (hi - e.items_lo) / n as f64;
    }
    (covered as f64 / TRIALS as f64, width / TRIALS as f64)
}

#[track_caller]
fn assert_covers(m: u64, k: u32, layout: Layout, n: u64, copies: u32, seed: u64) {
    let (c, w) = coverage(m, k, layout, n, copies, seed);
    eprintln!(
        "audit coverage {layout:?} m={m} k={k} n={n} copies={copies}: {c:.3} (mean relative width {w:.3})"
    );
    assert!(
        BAND.contains(&c),
        "{layout:?} m={m} k={k} n={n}: 95% interval covered the true count in {c:.3} of {TRIALS} trials (seeds {seed}..{}), outside {BAND:?}",
        seed + TRIALS
    );
}

#[test]
fn standard_interval_covers_the_true_count() {
    assert_covers(1000, 4, Layout::Standard, 150, 1, 1_000);
    assert_covers(4096, 7, Layout::Standard, 400, 1, 2_000);
    // Fill 0.83: near saturation, where a Wald interval is skewed.
    assert_covers(1000, 3, Layout::Standard, 600, 1, 3_000);
    // Repeats do not count: the estimate is of distinct items.
    assert_covers(2048, 5, Layout::Standard, 200, 2, 4_000);
}

#[test]
fn partitioned_interval_covers_the_true_count() {
    assert_covers(1000, 5, Layout::Partitioned, 150, 1, 5_000);
    assert_covers(4096, 8, Layout::Partitioned, 350, 1, 6_000);
    // m not a multiple of k: the 3 remainder bits are not counted.
    assert_covers(1003, 4, Layout::Partitioned, 300, 1, 7_000);
}

#[test]
fn blocked_interval_covers_the_true_count() {
    assert_covers(8192, 6, Layout::Blocked { block_bits: 512 }, 800, 1, 8_000);
    assert_covers(4096, 4, Layout::Blocked { block_bits: 64 }, 500, 1, 9_000);
}

#[test]
fn apbf_intervals_cover_the_generation_and_the_current_generation() {
    use bfopt_models::apbf::{ApbfOccupancy, ApbfParams};
    use bfopt_validation::filters::apbf::ApbfFilter;
    for (k, l, window, seed) in [(4u32, 3u32, 1000u64, 10_000u64), (6, 10, 2000, 11_000)] {
        let params = ApbfParams::new(k, l).unwrap().with_window(window).unwrap();
        let sizing = params.sizing().unwrap();
        let (s, g) = (sizing.slice_bits, sizing.generation);
        let (mut gen_covered, mut cur_covered) = (0u64, 0u64);
        for trial in 0..TRIALS {
            let seed = seed + trial;
            // Every slice recycled at least once, then c insertions into the current
            // generation (1 <= c <= g, varied by trial).
            let c = 1 + (trial * 97) % g;
            let n = u64::from(k + l + 1) * g + c;
            let mut f = ApbfFilter::new(&params, seed);
            (0..n).for_each(|i| f.insert_u64(member(seed, i)));
            let ones = f.slice_ones().unwrap();
            let a = ApbfOccupancy::new(k, l, s, ones)
                .unwrap()
                .audit(CONFIDENCE)
                .unwrap();
            approx::assert_relative_eq!(a.fp, f.state_fp(), max_relative = 1e-12);
            let covers = |e: bfopt_models::classic::ItemEstimate, x: u64| {
                e.items_lo <= x as f64 && x as f64 <= e.items_hi.unwrap_or(f64::INFINITY)
            };
            gen_covered += u64::from(covers(a.generation, g));
            cur_covered += u64::from(covers(a.current_generation, c));
        }
        let (gc, cc) = (
            gen_covered as f64 / TRIALS as f64,
            cur_covered as f64 / TRIALS as f64,
        );
        eprintln!("audit coverage APBF ({k}, {l}) s={s} g={g}: generation {gc:.3}, current generation {cc:.3}");
        for (what, cov) in [("generation", gc), ("current generation", cc)] {
            assert!(
                BAND.contains(&cov),
                "APBF ({k}, {l}) w={window}: {what} interval covered in {cov:.3} of {TRIALS} trials (seeds {seed}..), outside {BAND:?}"
            );
        }
    }
}

#[test]
fn sbf_at_its_stable_point_is_within_the_band() {
    // A reference SBF run to its stable point: the distance of its zero fraction from
    // π0, in standard deviations of the two-cell-chain variance (its deletion phase
    // decrements a run of P consecutive cells), must fall within ±1.96 in 92-98% of
    // trials. The binomial variance (independent cells) is also measured: 0.63 of the
    // observed spread at the first setting.
    use bfopt_models::stable::{
        Decrements, IbfParams, ImportanceDist, Policy, SbfOccupancy, SbfParams,
    };
    use bfopt_validation::filters::stable::StableFilter;
    for (m, k, max, p, steps, seed) in [
        (1000u64, 3u32, 3u32, 10u64, 3000u64, 20_000u64),
        (2048, 4, 1, 8, 3000, 21_000),
    ] {
        let sbf = SbfParams::new(m, k, max, p).unwrap();
        let ibf = IbfParams::new(
            Policy::Sbf,
            m,
            k,
            max,
            p,
            ImportanceDist::linear(1, 1).unwrap(),
        )
        .unwrap();
        let mut within = 0u64;
        let mut distance_sq = 0.0;
        for trial in 0..TRIALS {
            let seed = seed + trial;
            let mut f = StableFilter::new(&ibf, seed);
            (0..steps).for_each(|i| f.insert_u64(member(seed, i), 1));
            let a = SbfOccupancy::new(sbf, f.zero_cells(), Decrements::Consecutive)
                .unwrap()
                .audit(CONFIDENCE)
                .unwrap();
            within += u64::from(a.at_stable_point);
            distance_sq += a.distance_sd * a.distance_sd;
            assert_eq!(a.variance, bfopt_models::stable::ZeroVariance::PairChain);
        }
        let share = within as f64 / TRIALS as f64;
        let var_ratio = distance_sq / TRIALS as f64;
        eprintln!(
            "audit SBF m={m} K={k} Max={max} P={p}: within ±1.96 sd in {share:.3}; variance ratio measured/model {var_ratio:.3}"
        );
        assert!(
            BAND.contains(&share),
            "SBF m={m} K={k} Max={max} P={p}: {share:.3} of {TRIALS} stable filters within the 95% band (variance ratio {var_ratio:.3}), outside {BAND:?}"
        );
    }
}

/// Share of `TRIALS` reference filters of `policy` (`m, K, Max, P`, counters of
/// `counter_bits`) run `steps` insertions from empty (importance drawn from
/// `linear:1:50`) whose zero count lies within the audit's 95% band around the model's
/// stable point, and the measured over the model's variance.
fn ibf_within_band(
    policy: bfopt_models::stable::Policy,
    cells: (u64, u32, u32, u64, u32),
    steps: u64,
    seed: u64,
) -> (f64, f64, bfopt_models::stable::ZeroVariance) {
    use bfopt_models::stable::{Decrements, IbfOccupancy};
    let params = ibf_params(policy, cells);
    let m = params.m();
    // The reference filter decrements a run of P consecutive cells (random deletion).
    let audit = IbfOccupancy::new(&params, Decrements::Consecutive).unwrap();
    // Run long enough: the model's expected zeros after `steps` insertions from empty
    // are within 0.1 sd of the stable point.
    let after = bfopt_models::stable::zero_fraction_transient(&params, steps).unwrap();
    let sd = audit.zero_variance().0.sqrt() / m as f64;
    let gap = (after[steps as usize] - audit.solution().zero_fraction()) / sd;
    assert!(
        gap.abs() < 0.1,
        "{}: {gap} sd from the stable point after {steps}",
        policy.name()
    );
    share_within_band(&params, &audit, steps, seed)
}

/// The IBF of `policy` at `(m, K, Max, P, counter bits)`, importance `linear:1:50`.
fn ibf_params(
    policy: bfopt_models::stable::Policy,
    (m, k, max, p, counter_bits): (u64, u32, u32, u64, u32),
) -> bfopt_models::stable::IbfParams {
    use bfopt_models::stable::{IbfParams, ImportanceDist};
    IbfParams::new(policy, m, k, max, p, ImportanceDist::linear(1, 50).unwrap())
        .and_then(|p| p.with_counter_bits(counter_bits))
        .unwrap()
}

/// The body of [`ibf_within_band`]: `TRIALS` reference filters of `params` run `steps`
/// insertions from empty, audited by `audit`.
fn share_within_band(
    params: &bfopt_models::stable::IbfParams,
    audit: &bfopt_models::stable::IbfOccupancy,
    steps: u64,
    seed: u64,
) -> (f64, f64, bfopt_models::stable::ZeroVariance) {
    use bfopt_validation::filters::stable::StableFilter;
    use rand::Rng;
    let (policy, m, k, max, p) = (
        params.policy(),
        params.m(),
        params.k(),
        params.max(),
        params.p(),
    );
    let counter_bits = params.counter_bits();
    let imp = params.importance().clone();
    let mut within = 0u64;
    let (mut distance, mut distance_sq) = (0.0, 0.0);
    for trial in 0..TRIALS {
        let seed = seed + trial;
        let mut f = StableFilter::new(params, seed);
        let mut r = bfopt_validation::workload::rng(seed ^ 0x1B5);
        (0..steps).for_each(|i| f.insert_u64(member(seed, i), imp.quantile(r.random::<f64>())));
        let a = audit.audit(f.zero_cells(), CONFIDENCE).unwrap();
        within += u64::from(a.at_stable_point);
        distance += a.distance_sd;
        distance_sq += a.distance_sd * a.distance_sd;
    }
    let t = TRIALS as f64;
    let (share, ratio, method) = (within as f64 / t, distance_sq / t, audit.zero_variance().1);
    let bias = distance / t;
    eprintln!(
        "audit {} m={m} K={k} Max={max} P={p} counter bits {counter_bits}: within ±1.96 sd in {share:.3}; variance ratio measured/model {ratio:.3} (mean distance {bias:.3} sd, spread ratio {:.3}; model Var Z {:.2}, {method:?})",
        policy.name(),
        ratio - bias * bias,
        audit.zero_variance().0,
    );
    (share, ratio, method)
}

#[test]
fn ibf_at_its_stable_point_is_within_the_band() {
    // IBF1 (random deletion: two-cell chains) and the probabilistic-deletion policies
    // IBF3, IBF5, IBF6 (linear noise) at m = 512, K = 4, Max = 5, P = 5 (Figure 7 [SBF]),
    // 4-bit counters, run 3000 insertions from empty (the model's expected zeros are then
    // within 0.1 sd of the stable point, checked): the distance of the zero count from
    // the model's stable point, in standard deviations of the audit's variance, must fall
    // within ±1.96 in 92-98% of 1000 seeded trials. Measured (8-bit counters, 6000
    // insertions): sbf 0.933, ibf1 0.954, ibf3 0.966, ibf5 0.949, ibf6 0.952; variance
    // ratios 0.92-1.04. `ibf_minimp_at_its_stable_point_is_within_the_band` covers IBF2 and IBF4.
    use bfopt_models::stable::{Policy, ZeroVariance};
    assert_within_band(
        &[
            (Policy::Ibf1, ZeroVariance::PairChain),
            (Policy::Ibf3, ZeroVariance::LinearNoise),
            (Policy::Ibf5, ZeroVariance::LinearNoise),
            (Policy::Ibf6, ZeroVariance::LinearNoise),
        ],
        50_000,
    );
}

/// [`ibf_within_band`] for each `(policy, variance method)` at m = 512, K = 4, Max = 5,
/// P = 5, 4-bit counters, 3000 insertions, seeds from `first_seed` in steps of 10,000:
/// the method must be the one named and the share within [`BAND`].
#[track_caller]
fn assert_within_band(
    cases: &[(
        bfopt_models::stable::Policy,
        bfopt_models::stable::ZeroVariance,
    )],
    first_seed: u64,
) {
    let mut failures = Vec::new();
    for (i, &(policy, method)) in cases.iter().enumerate() {
        let seed = first_seed + 10_000 * i as u64;
        let (share, ratio, used) = ibf_within_band(policy, (512, 4, 5, 5, 4), 3000, seed);
        assert_eq!(used, method, "{}", policy.name());
        if !BAND.contains(&share) {
            failures.push(format!(
                "{}: {share:.3} (variance ratio {ratio:.3})",
                policy.name()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "stable filters within the 95% band outside {BAND:?} in {TRIALS} trials: {failures:?}"
    );
}

#[test]
fn ibf_minimp_at_its_stable_point_is_within_the_band() {
    // MinImp (IBF2, IBF4) decrements the P non-zero cells of least counter: the linear
    // noise with ranked picks (only the cells tied at the served counter are random). The
    // setting of `ibf_at_its_stable_point_is_within_the_band` (4-bit counters, which
    // importances up to 50 saturate, 3000 insertions). Measured: ibf2 0.938 (variance
    // ratio 1.077), ibf4 0.950 (0.962); with picks proportional to the decrement law
    // instead (before) ibf2 was 0.938, 1.065.
    use bfopt_models::stable::{Policy, ZeroVariance};
    assert_within_band(
        &[
            (Policy::Ibf2, ZeroVariance::LinearNoise),
            (Policy::Ibf4, ZeroVariance::LinearNoise),
        ],
        90_000,
    );
}

#[test]
fn ibf_minimp_without_saturation_is_within_the_simulated_band() {
    // With 8-bit counters no importance up to 50 saturates a counter (the rank map): the
    // linear noise is a bound there (`ZeroVariance::LinearNoiseBound`, IBF2: measured
    // variance 0.51 of it) or beyond its work limit (IBF4), so `audit ibf` measures the
    // band on a seeded reference filter (`stable_spread`, seed 22 as the CLI's, its
    // Monte-Carlo error folded in). Fresh reference filters (other seeds) run
    // 2·burn-in = 40,960 insertions from empty must fall within that band in 92-98% of
    // 1000 trials. Measured: ibf2 0.961 (variance ratio measured/band 0.900; the linear
    // noise's bound was 83.9 against V = 43.8 ± 1.8), ibf4 0.946 (0.971; binomial 91.3
    // against V = 23.2 ± 1.0, a drift of −1.15 zeros left between the halves of the
    // batches: IBF4's cumulative counters are not stationary yet).
    use bfopt_models::stable::{Decrements, IbfOccupancy, Policy, ZeroVariance};
    use bfopt_validation::experiments::stable_spread::simulate_zero_spread;
    let mut failures = Vec::new();
    for (policy, seed) in [(Policy::Ibf2, 110_000u64), (Policy::Ibf4, 130_000)] {
        let params = ibf_params(policy, (512, 4, 5, 5, 8));
        let occupancy = IbfOccupancy::new(&params, Decrements::Consecutive).unwrap();
        let computed = occupancy.zero_variance();
        assert!(
            !computed.1.is_calibrated(),
            "{}: {computed:?}",
            policy.name()
        );
        let stable = occupancy.solution().zero_fraction() * 512.0;
        let sim = simulate_zero_spread(&params, stable, 22).unwrap();
        eprintln!(
            "simulated band {}: Var Z {:.2} ± {:.2} (dof {:.0}), mean distance {:.2}, drift {:.2}; computed {:.2} ({:?})",
            policy.name(),
            sim.variance,
            sim.se,
            sim.degrees_of_freedom(),
            sim.mean_distance,
            sim.drift,
            computed.0,
            computed.1
        );
        let audit = occupancy
            .with_simulated_variance(sim.band_variance(CONFIDENCE))
            .unwrap();
        let (share, ratio, used) = share_within_band(&params, &audit, 2 * sim.burn_in, seed);
        assert_eq!(used, ZeroVariance::Simulated);
        if !BAND.contains(&share) {
            failures.push(format!(
                "{}: {share:.3} (variance ratio {ratio:.3})",
                policy.name()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "outside {BAND:?} in {TRIALS} trials: {failures:?}"
    );
}

#[test]
fn btbf_interval_covers_the_distinct_items_of_recent_blocks() {
    // A reference BTBF fed a distinct stream: the items whose last insertion lies in the
    // last a + 1 blocks number c + a·B (c insertions into the current block); the
    // histogram's interval must cover that count, for a = 0 and for a = 2.
    use bfopt_models::timing::{BtbfParams, TimerHistogram};
    use bfopt_validation::filters::timing::BtbfFilter;
    let (m, k, block, window) = (4096u64, 3u32, 100u64, 400u64);
    let params = BtbfParams::new(m, k, 8, block, window, 0).unwrap();
    let mut covered = [0u64; 2];
    for trial in 0..TRIALS {
        let seed = 30_000 + trial;
        let c = 1 + (trial * 37) % block;
        let n = 6 * block + c;
        let mut f = BtbfFilter::new(&params, seed);
        (0..n).for_each(|i| f.insert_u64(member(seed, i)));
        let (by_age, idle) = f.age_histogram();
        let rows = TimerHistogram::new(k, by_age, idle)
            .unwrap()
            .audit(CONFIDENCE)
            .unwrap();
        for (slot, age) in [0usize, 2].into_iter().enumerate() {
            let truth = (c + age as u64 * block) as f64;
            let e = rows[age].items;
            covered[slot] +=
                u64::from(e.items_lo <= truth && truth <= e.items_hi.unwrap_or(f64::INFINITY));
        }
    }
    for (age, cov) in [0, 2].into_iter().zip(covered) {
        let share = cov as f64 / TRIALS as f64;
        eprintln!("audit coverage BTBF m={m} k={k} B={block} age {age}: {share:.3}");
        assert!(
            BAND.contains(&share),
            "BTBF age {age}: interval covered in {share:.3} of {TRIALS} trials, outside {BAND:?}"
        );
    }
}

#[test]
fn fp_after_more_items_matches_the_filled_filter() {
    // The headroom rests on `fp_after(j)`: the expected FP after j more distinct items,
    // given today's bits. Fill, audit, add j items, compare with the filter's own exact
    // FP; over 1000 trials the mean difference must lie within 4 standard errors
    // (α ≈ 6e-5) of 0, plus a stated band: standard, the FP of the expected fill is
    // below the expected FP by O(k²/m) relative (k²/m ≈ 0.004 here); blocked, in-block
    // bits treated as independent, which understates a 512-bit block's FP by about 1%
    // (`ClassicParams::fp`). Measured: partitioned and standard within sampling error,
    // blocked 0.4% above the prediction.
    for (layout, m, k, n, j, band) in [
        (Layout::Partitioned, 4096u64, 4u32, 400u64, 400u64, 0.0),
        (Layout::Standard, 4096, 4, 400, 400, 0.005),
        (Layout::Blocked { block_bits: 512 }, 4096, 4, 400, 400, 0.01),
    ] {
        let params = ClassicParams::new(m, k, n, layout).unwrap();
        let (mut sum, mut sq, mut pred_sum) = (0.0, 0.0, 0.0);
        for trial in 0..TRIALS {
            let seed = 40_000 + trial;
            let mut f = ClassicFilter::new(&params, seed);
            (0..n).for_each(|i| f.insert_u64(member(seed, i)));
            let o = ClassicOccupancy::from_bytes(m, k, layout, &f.bits().to_le_bytes()).unwrap();
            let (pred, _) = o.fp_after(j);
            (n..n + j).for_each(|i| f.insert_u64(member(seed, i)));
            let d = f.state_fp() - pred;
            sum += d;
            sq += d * d;
            pred_sum += pred;
        }
        let t = TRIALS as f64;
        let (mean, pred) = (sum / t, pred_sum / t);
        let se = ((sq / t - mean * mean) / (t - 1.0)).sqrt();
        eprintln!(
            "audit fp_after {layout:?} m={m} k={k} n={n} j={j}: predicted {pred:.5}, measured − predicted {mean:.2e} ± {se:.1e} (relative {:.4})",
            mean / pred
        );
        assert!(
            mean.abs() <= 4.0 * se + band * pred,
            "{layout:?}: predicted {pred}, mean difference {mean} (se {se}, band {band})"
        );
    }
}
