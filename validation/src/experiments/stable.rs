//! Stable / Importance-aware filters: run to the stable point, measure zeros, FP and FN by
//! importance at a given age, and compare with the model.

use crate::agree::{Check, Tolerance};
use crate::filters::stable::StableFilter;
use crate::level::Level;
use crate::sim::run_epochs;
use crate::stats::{Mean, Proportion};
use crate::workload::{member, mix, probe, rng};
use bfopt_models::error::{check, ModelError};
use bfopt_models::stable::{solve, weighted, IbfParams, ImportanceDist, Policy, SbfParams};
use rand::Rng;
use serde::Serialize;

/// A simulation of one policy: distinct items with importances drawn from the
/// distribution; `warmup` insertions, then `steps` measured insertions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StableSimConfig {
    /// The filter and importance law.
    pub params: IbfParams,
    /// Insertions before measuring (to reach the stable point).
    pub warmup: u64,
    /// Measured insertions per epoch; after each, the item inserted `age` insertions
    /// earlier is queried (FN by importance), and every 16 the zero cells are counted.
    pub steps: u64,
    /// Query age of members.
    pub age: u64,
    /// Non-member probes per measured insertion (spread over the run, so the FP is
    /// averaged over the filter's states, not read off one final state).
    pub probes: u64,
    /// Independent epochs.
    pub epochs: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    pub confidence: f64,
}

impl StableSimConfig {
    /// A configuration with a warm-up long enough for the stable point: twenty times the
    /// time a `Max` cell needs to be decremented to zero, `20·m·Max/P` (at least `20·m/K`).
    pub fn new(params: IbfParams, steps: u64, age: u64, epochs: u64, seed: u64) -> Self {
        let (m, max, p, k) = (params.m(), params.max(), params.p(), params.k());
        let warmup = (20 * m * u64::from(max) / p).max(20 * m / u64::from(k));
        Self {
            params,
            warmup,
            steps,
            age,
            probes: 1,
            epochs,
            seed,
            confidence: 0.99,
        }
    }

    /// Checks the configuration.
    ///
    /// # Errors
    /// `epochs`, `steps`, `probes` or `confidence` out of range.
    pub fn validate(&self) -> Result<(), ModelError> {
        check::in_range("epochs", self.epochs, 2..=1_000_000)?;
        check::in_range("steps", self.steps, 1..=1_000_000_000)?;
        check::in_range("age", self.age, 0..=self.steps.saturating_sub(1))?;
        check::in_range("probes", self.probes, 1..=1_000_000_000)?;
        check::open_probability("confidence", self.confidence)?;
        Ok(())
    }
}

/// What a simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StableSimResult {
    /// Fraction of zero cells (mean over the samples of an epoch), over epochs.
    pub zero_fraction: Mean,
    /// FP of non-member probes, per epoch, over epochs (probes in one epoch share the
    /// filter's slowly varying state, so they are not independent trials).
    pub fp: Mean,
    /// All probes pooled (Wilson; too narrow an interval for the reason above).
    pub fp_pooled: Proportion,
    /// FN of members at `age`, per importance of the support (lo upward).
    pub fn_by_importance: Vec<Proportion>,
    /// Weighted FN (Eq. (6) [SBF] per unit of queried importance), over epochs.
    pub weighted_fn: Mean,
}

/// Runs the simulation.
///
/// # Errors
/// Invalid configuration.
pub fn simulate(cfg: &StableSimConfig) -> Result<StableSimResult, ModelError> {
    cfg.validate()?;
    let dist = cfg.params.importance().clone();
    let (lo, width) = (dist.lo(), (dist.hi() - dist.lo() + 1) as usize);
    let per_epoch = run_epochs(cfg.epochs, cfg.seed, "stable", |_, seed| {
        let mut f = StableFilter::new(&cfg.params, seed);
        let mut r = rng(mix(seed ^ 0x1A9));
        let mut draw = || dist.quantile(r.random::<f64>());
        let ring = (cfg.age + 1) as usize;
        let mut keys = vec![(0u64, 0u32); ring];
        let mut t = 0u64;
        for _ in 0..cfg.warmup {
            f.insert_u64(member(seed, t), draw());
            t += 1;
        }
        let (mut zsum, mut zn) = (0.0, 0u64);
        let mut queries = vec![0u64; width];
        let mut misses = vec![0u64; width];
        let mut fps = 0u64;
        for s in 0..cfg.steps {
            let (key, imp) = (member(seed, t), draw());
            f.insert_u64(key, imp);
            t += 1;
            keys[(s % ring as u64) as usize] = (key, imp);
            if s >= cfg.age {
                let (qk, qi) = keys[((s - cfg.age) % ring as u64) as usize];
                let j = (qi - lo) as usize;
                queries[j] += 1;
                if !f.contains_u64(qk) {
                    misses[j] += 1;
                }
            }
            for j in 0..cfg.probes {
                if f.contains_u64(probe(seed, s * cfg.probes + j)) {
                    fps += 1;
                }
            }
            if s % 16 == 0 {
                zsum += f.zero_cells() as f64 / cfg.params.m() as f64;
                zn += 1;
            }
        }
        (zsum / zn as f64, fps, queries, misses)
    });
    let zeros: Vec<f64> = per_epoch.iter().map(|e| e.0).collect();
    let fps: u64 = per_epoch.iter().map(|e| e.1).sum();
    let trials = cfg.probes * cfg.steps;
    let fp_epochs: Vec<f64> = per_epoch
        .iter()
        .map(|e| e.1 as f64 / trials as f64)
        .collect();
    let mut q = vec![0u64; width];
    let mut x = vec![0u64; width];
    let mut wfn = Vec::new();
    for (_, _, qe, xe) in &per_epoch {
        let (mut num, mut den) = (0.0, 0.0);
        // Bounded by the epoch's own width: a shard's placeholder epochs
        // (crate::shard) are empty.
        for j in 0..width.min(qe.len()).min(xe.len()) {
            q[j] += qe[j];
            x[j] += xe[j];
            let imp = f64::from(lo + j as u32);
            num += imp * xe[j] as f64;
            den += imp * qe[j] as f64;
        }
        wfn.push(if den > 0.0 { num / den } else { 0.0 });
    }
    Ok(StableSimResult {
        zero_fraction: Mean::new(&zeros, cfg.confidence),
        fp: Mean::new(&fp_epochs, cfg.confidence),
        fp_pooled: Proportion::new(fps, trials * cfg.epochs, cfg.confidence),
        fn_by_importance: q
            .iter()
            .zip(&x)
            .map(|(&n, &k)| Proportion::new(k, n, cfg.confidence))
            .collect(),
        weighted_fn: Mean::new(&wfn, cfg.confidence),
    })
}

/// The model's predictions for a configuration: zero fraction, FP, weighted FN.
///
/// # Errors
/// The model fails to solve.
pub fn prediction(cfg: &StableSimConfig) -> Result<(f64, f64, f64), ModelError> {
    let sol = solve(&cfg.params)?;
    let fns = sol.fn_by_importance(cfg.age);
    let w = weighted(cfg.params.importance(), sol.fp(), &fns, 1.0);
    Ok((sol.zero_fraction(), sol.fp(), w.weighted_fn))
}

/// Stated model error per policy, as relative bands on the zero fraction, FP and weighted
/// FN. Local policies (SBF, IBF1): the zero fraction is exact; FP and FN assume
/// independent cells, a 1% band. Global policies (IBF2-IBF6): mean-field; at the Figure 7
/// setting (quick level, seed 1) the largest measured gaps were 0.6% (zeros), 1.0% (FP)
/// and 0.8% (FN), all inside the sampling interval; at the full level up to 1.1% (IBF4,
/// m = 512) and 2.3% on a small FP (IBF2, m = 4096, inside its interval). The band is 2%.
pub fn tolerance(policy: Policy) -> [Tolerance; 3] {
    let exact = Tolerance::EXACT;
    let indep = Tolerance::approx(0.01, "independent-cells FP / FN: 1% band");
    let mean_field = Tolerance::approx(0.02, "mean-field model: 2% band");
    match policy {
        Policy::Sbf | Policy::Ibf1 => [exact, indep, indep],
        _ => [mean_field; 3],
    }
}

/// The stable-family checks: every policy at the Figure 7 [SBF] setting (m = 512, K = 4,
/// P = 5, Max = 5, importance linear 1..50), and at the full level also m = 4096; the SBF
/// on repeating streams ([`super::sbf_stream::checks`]).
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let dist = ImportanceDist::linear(1, 50).expect("valid");
    let settings: &[(u64, u32, u32, u64)] = match level {
        Level::Quick => &[(512, 4, 5, 5)],
        Level::Full => &[(512, 4, 5, 5), (4096, 4, 3, 8)],
    };
    let (steps, epochs) = match level {
        Level::Quick => (20_000, 8),
        Level::Full => (100_000, 16),
    };
    let mut out = Vec::new();
    for (si, &(m, k, max, p)) in settings.iter().enumerate() {
        for (pi, policy) in Policy::ALL.into_iter().enumerate() {
            let case_seed = seed + (si * 10 + pi) as u64;
            let params = IbfParams::new(policy, m, k, max, p, dist.clone()).expect("valid");
            let age = m / 2;
            let mut cfg = StableSimConfig::new(params, steps, age, epochs, case_seed);
            cfg.confidence = confidence;
            out.extend(config_checks(&cfg));
        }
        if si == 0 {
            out.push(sbf_convergence_check(seed + 50, confidence, epochs));
        }
    }
    out.extend(super::sbf_stream::checks(level, seed + 80, confidence));
    if level == Level::Full {
        out.extend(minimp_large_checks(seed + 60, confidence));
        out.extend(thesis_stream_checks(seed + 70, confidence));
    }
    out
}

/// MinImp (IBF2, IBF4) at large `m`, where the model is the threshold limit (module
/// `minimp` of the models crate): the thesis's K = 4, Max = 4, P = 7, importance 1..50,
/// 8-bit counters (no insertion saturates one) at m = 2^16 (both policies) and 2^18
/// (IBF4), and 4-bit counters (most insertions saturate one, as in `recommend`) at 2^16.
/// 4 epochs of `8·m` warm-up and `m` measured insertions, FN at age `m/2`.
pub fn minimp_large_checks(seed: u64, confidence: f64) -> Vec<Check> {
    let dist = ImportanceDist::linear(1, 50).expect("valid");
    let cases: [(Policy, u64, u32); 4] = [
        (Policy::Ibf4, 1 << 16, 8),
        (Policy::Ibf2, 1 << 16, 8),
        (Policy::Ibf4, 1 << 18, 8),
        (Policy::Ibf4, 1 << 16, 4),
    ];
    let mut out = Vec::new();
    for (i, (policy, m, bits)) in cases.into_iter().enumerate() {
        let params = IbfParams::new(policy, m, 4, 4, 7, dist.clone())
            .and_then(|p| p.with_counter_bits(bits))
            .expect("valid");
        let mut cfg = StableSimConfig::new(params, m, m / 2, 4, seed + i as u64);
        cfg.warmup = 8 * m;
        cfg.confidence = confidence;
        out.extend(config_checks(&cfg));
    }
    out
}

/// The checks of one configuration: the model's zero fraction, probe FP and weighted FN
/// at `cfg.age` against one simulation, each with the policy's stated band
/// ([`tolerance`]) at `cfg.confidence`.
pub fn config_checks(cfg: &StableSimConfig) -> Vec<Check> {
    let par = &cfg.params;
    let (policy, seed, confidence) = (par.policy(), cfg.seed, cfg.confidence);
    let counter =
        if policy.tracks_cumulative() && par.counter_bits() != IbfParams::COUNTER_BITS_DEFAULT {
            format!(" counter={}b", par.counter_bits())
        } else {
            String::new()
        };
    let name = |what: &str| {
        format!(
            "{policy} m={} K={} Max={} P={}{counter}: {what}",
            par.m(),
            par.k(),
            par.max(),
            par.p()
        )
    };
    let (pred, r) = match (prediction(cfg), simulate(cfg)) {
        (Ok(pred), Ok(r)) => (pred, r),
        (Err(e), _) | (_, Err(e)) => {
            return vec![Check::error("stable", name(&e.to_string()), seed)]
        }
    };
    let [tz, tf, tn] = tolerance(policy);
    let check = |what: String, predicted: f64, m: &Mean, tolerance| {
        Check::new(
            "stable",
            name(&what),
            predicted,
            m.mean,
            (m.interval.lo, m.interval.hi),
            confidence,
            tolerance,
            m.samples,
            seed,
        )
    };
    vec![
        check("zero fraction".into(), pred.0, &r.zero_fraction, tz),
        check("probe fp".into(), pred.1, &r.fp, tf),
        check(
            format!("weighted fn at age {}", cfg.age),
            pred.2,
            &r.weighted_fn,
            tn,
        ),
    ]
}

/// Convergence (Deng & Rafiei): the expected zero fraction after `n` insertions into an
/// empty SBF, `(e_0·T^n)[0]`, against the mean over epochs.
fn sbf_convergence_check(seed: u64, confidence: f64, epochs: u64) -> Check {
    let (m, k, max, p, n) = (512u64, 4u32, 5u32, 5u64, 300u64);
    let s = SbfParams::new(m, k, max, p).expect("valid");
    let params = IbfParams::new(
        Policy::Sbf,
        m,
        k,
        max,
        p,
        ImportanceDist::linear(1, 1).expect("valid"),
    )
    .expect("valid");
    let samples = run_epochs(epochs * 8, seed, "stable", |_, es| {
        let mut f = StableFilter::new(&params, es);
        (0..n).for_each(|i| f.insert_u64(member(es, i), 1));
        f.zero_cells() as f64 / m as f64
    });
    let mean = Mean::new(&samples, confidence);
    Check::new(
        "stable",
        format!("sbf m={m} K={k} Max={max} P={p}: zero fraction after {n} insertions"),
        s.zero_fraction_after(n),
        mean.mean,
        (mean.interval.lo, mean.interval.hi),
        confidence,
        Tolerance::EXACT,
        mean.samples,
        seed,
    )
}

/// The thesis's duplicate-detection stream (Section 6.1.2 [SBF]): `arrivals` items, a
/// share `duplicate_rate` of which repeat a uniformly chosen earlier distinct item (with
/// its importance); new items draw their importance from the law. Each arrival is first
/// queried (a false positive if it is new and reported present, a false negative if it is
/// a repeat and reported absent), then inserted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThesisStreamConfig {
    /// The filter and importance law.
    pub params: IbfParams,
    /// Arrivals per epoch (100 000 in the thesis).
    pub arrivals: u64,
    /// Share of repeats (0.7 in the thesis).
    pub duplicate_rate: f64,
    /// Zero cells are recorded this many times over the stream (Figure 7 [SBF]).
    pub checkpoints: u64,
    /// Independent epochs.
    pub epochs: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    pub confidence: f64,
}

/// What the thesis stream measured: the aggregate metrics of Tables 3-4 [SBF], the
/// per-importance rates of Figures 3-6 and the zero-cell series of Figure 7.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThesisStreamResult {
    /// Importance of false positives over the importance of all new arrivals (Eq. (5)).
    pub weighted_fp: Mean,
    /// Importance of false negatives over the importance of all repeats (Eq. (6)).
    pub weighted_fn: Mean,
    /// Eq. (7) [SBF]: `(wTotal − wFP)/wTotal`, wTotal the importance of all hits.
    pub precision: Mean,
    /// Eq. (8) [SBF]: `(wTotal − wFP)/(wTotal − wFP + wFN)`.
    pub recall: Mean,
    /// FP among new arrivals, per importance (lo upward).
    pub fp_by_importance: Vec<Proportion>,
    /// FN among repeats, per importance (lo upward).
    pub fn_by_importance: Vec<Proportion>,
    /// Mean zero cells at each checkpoint (after `arrivals·(i+1)/checkpoints` arrivals).
    pub zero_cells: Vec<f64>,
}

/// Runs the thesis stream.
///
/// # Tables 3-4 [SBF], reproduced as trends
/// The tables state `n` (cells) and `k` only; `M = 4`, `p = 7` are taken from Figures
/// 5-6. Measured here (linear importance 1..50, 100 000 arrivals, 70% repeats, 2 epochs,
/// `bfopt simulate ibf --arrivals 100000`), wFP / wFN in percent, thesis in brackets:
///
/// ```text
/// n=16384 k=4   SBF 31.8/34.8 (23.10/20.04)  IBF1 29.4/37.0 (3.83/37.89)  IBF2 4.3/63.0 (0.0/44.53)
///               IBF3 11.0/57.4 (7.64/33.45)  IBF4 4.8/61.3 (3.48/35.72)   IBF5 9.4/60.7 (7.74/33.50)
/// n=65536 k=4   SBF 10.8/14.1 (13.49/13.56)  IBF2 1.0/39.1 (0.0/44.53)    IBF3 2.7/41.5 (4.77/19.11)
/// n=262144 k=4  SBF 0.41/0.97 (1.45/2.24)    IBF2 0.03/26.8 (0.01/44.53)  IBF3 0.11/31.8 (0.49/8.90)
/// ```
/// Reproduced: importance-aware deletion (IBF2-IBF5) has several times lower wFP and
/// higher wFN than random deletion; both fall with `n`; FN falls with importance for the
/// IBFs and is flat for the SBF (Figures 3-6). Not reproduced: IBF1's wFP at a sixth of
/// the SBF's. With Imp-insert capped at `Max` (the default), 94% of items write `Max` and
/// IBF1 is close to the SBF; with the scaled mapping (`--imp-map scale`) IBF1's wFP is
/// 11.1% against the SBF's 31.8% at n = 16384, k = 4, so the thesis most likely scaled.
/// The absolute values differ because `p`, `M`, the BF/SBF loop bounds (`0 to k`) and
/// the definition of the percentages are not stated; the thesis's k = 8 columns are
/// internally inconsistent (BF wFP 5.87 at n = 16384 but 33.31 at n = 65536).
/// Invalid configuration.
pub fn thesis_stream(cfg: &ThesisStreamConfig) -> Result<ThesisStreamResult, ModelError> {
    check::in_range("epochs", cfg.epochs, 2..=1_000_000)?;
    check::in_range("arrivals", cfg.arrivals, 1..=1_000_000_000)?;
    check::in_range("checkpoints", cfg.checkpoints, 1..=cfg.arrivals)?;
    check::open_probability("confidence", cfg.confidence)?;
    if !(cfg.duplicate_rate >= 0.0 && cfg.duplicate_rate < 1.0) {
        return Err(ModelError::invalid(
            "duplicate_rate",
            cfg.duplicate_rate,
            "0 <= duplicate_rate < 1",
        ));
    }
    let dist = cfg.params.importance().clone();
    let (lo, width) = (dist.lo(), (dist.hi() - dist.lo() + 1) as usize);
    let per_epoch = run_epochs(cfg.epochs, cfg.seed, "stable-stream", |_, seed| {
        let mut f = StableFilter::new(&cfg.params, seed);
        let mut r = rng(mix(seed ^ 0x57EA));
        let mut seen: Vec<(u64, u32)> = Vec::new();
        let (mut fp_q, mut fp_x) = (vec![0u64; width], vec![0u64; width]);
        let (mut fn_q, mut fn_x) = (vec![0u64; width], vec![0u64; width]);
        let mut zeros = Vec::with_capacity(cfg.checkpoints as usize);
        let every = cfg.arrivals / cfg.checkpoints;
        for t in 0..cfg.arrivals {
            let repeat = !seen.is_empty() && r.random::<f64>() < cfg.duplicate_rate;
            let (key, imp) = if repeat {
                seen[r.random_range(0..seen.len())]
            } else {
                let item = (
                    member(seed, seen.len() as u64),
                    dist.quantile(r.random::<f64>()),
                );
                seen.push(item);
                item
            };
            let hit = f.contains_u64(key);
            let j = (imp - lo) as usize;
            if repeat {
                fn_q[j] += 1;
                fn_x[j] += u64::from(!hit);
            } else {
                fp_q[j] += 1;
                fp_x[j] += u64::from(hit);
            }
            f.insert_u64(key, imp);
            if (t + 1) % every == 0 && zeros.len() < cfg.checkpoints as usize {
                zeros.push(f.zero_cells() as f64);
            }
        }
        (fp_q, fp_x, fn_q, fn_x, zeros)
    });
    let imp_sum = |counts: &[u64]| -> f64 {
        counts
            .iter()
            .enumerate()
            .map(|(j, &c)| f64::from(lo + j as u32) * c as f64)
            .sum()
    };
    let (mut wfp, mut wfn, mut prec, mut rec) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut tot = [
        vec![0u64; width],
        vec![0u64; width],
        vec![0u64; width],
        vec![0u64; width],
    ];
    for (a, b, c, d, _) in &per_epoch {
        let (new_imp, fp_imp) = (imp_sum(a), imp_sum(b));
        let (rep_imp, fn_imp) = (imp_sum(c), imp_sum(d));
        wfp.push(if new_imp > 0.0 { fp_imp / new_imp } else { 0.0 });
        wfn.push(if rep_imp > 0.0 { fn_imp / rep_imp } else { 0.0 });
        // Hits: true hits (repeats found) and false positives.
        let w_total = (rep_imp - fn_imp) + fp_imp;
        let good = w_total - fp_imp;
        prec.push(if w_total > 0.0 { good / w_total } else { 1.0 });
        rec.push(if good + fn_imp > 0.0 {
            good / (good + fn_imp)
        } else {
            1.0
        });
        for (acc, src) in tot.iter_mut().zip([a, b, c, d]) {
            acc.iter_mut().zip(src).for_each(|(x, y)| *x += y);
        }
    }
    let props = |q: &[u64], x: &[u64]| -> Vec<Proportion> {
        q.iter()
            .zip(x)
            .map(|(&n, &k)| Proportion::new(k, n, cfg.confidence))
            .collect()
    };
    let n_cp = per_epoch.iter().map(|e| e.4.len()).min().unwrap_or(0);
    let zero_cells = (0..n_cp)
        .map(|i| {
            per_epoch
                .iter()
                .map(|e| e.4.get(i).copied().unwrap_or_default())
                .sum::<f64>()
                / per_epoch.len() as f64
        })
        .collect();
    Ok(ThesisStreamResult {
        weighted_fp: Mean::new(&wfp, cfg.confidence),
        weighted_fn: Mean::new(&wfn, cfg.confidence),
        precision: Mean::new(&prec, cfg.confidence),
        recall: Mean::new(&rec, cfg.confidence),
        fp_by_importance: props(&tot[0], &tot[1]),
        fn_by_importance: props(&tot[2], &tot[3]),
        zero_cells,
    })
}

/// `(policy, m, K, Max, P, arrivals)`.
pub type ThesisStreamCase = (Policy, u64, u32, u32, u64, u64);

/// The thesis-stream settings of the full level (the thesis's largest n, about 0.46
/// items per cell).
///
/// The weighted FP is checked two-sided with the stream model's stated 5% band
/// ([`THESIS_STREAM_FP_BAND`]). Measured (seed 61, 4 epochs): IBF3 wFP 0.00091 / 0.00079
/// [0.00051, 0.00106], IBF4 0.00037 / 0.00057 [0.00017, 0.00098] (model / simulation
/// [99%]; the model before issue 19's session 14 0.00097 and 0.00041).
///
/// The weighted FN is claimed for the Probabilistic-delete-p policies only, and only as
/// an **upper bound** within [`THESIS_STREAM_FN_BOUND_BAND`] ([`thesis_fn_is_bounded`],
/// [`Check::upper_bound_within`]): at the thesis's size the model is above the
/// measurement (an item's K cells are zero together more often than the model's
/// independent cells: see `repeat_cells_diagnostic` below and sessions 14 and 20 of
/// module `counter_stream` in the models crate), by 4.0% for IBF3 here (seed 61: 0.331 /
/// 0.318 [0.308, 0.325] at 99%; in `validate --level full`, seed 71: 0.331 / 0.319
/// [0.219, 0.418] at the suite's per-check confidence; 0.336 before session 20, 0.342
/// before session 19), 2.8% at n = 65536 and 3.7% for IBF5. Not for MinImp: IBF4 is 17%
/// above (0.282 / 0.241; 0.288 before session 20, 0.528 before session 14), IBF2 15%;
/// only IBF4's wFP is checked, and its model run skips the FN pass
/// ([`stream_weighted_fp`](bfopt_models::stable::stream_weighted_fp)). At 1/32 of this
/// size the IBF3 model is between 1.6% below and 5.7% above the measured mean, inside
/// the interval in 6 of 6 settings (`bfopt reproduce sbf-table4` prints it): the bound
/// is claimed at the thesis's size only. The independent-sets model this replaced was
/// about 0.9 on both.
pub const THESIS_STREAM_FULL: [ThesisStreamCase; 2] = [
    (Policy::Ibf3, 262_144, 4, 4, 7, 100_000),
    (Policy::Ibf4, 262_144, 4, 4, 7, 100_000),
];

/// Stated wFP error of the items-and-counter stream model (the band of
/// [`thesis_stream_checks`]).
pub const THESIS_STREAM_FP_BAND: f64 = 0.05;

/// Stated wFN error of the items-and-counter stream model at the thesis's size, where it
/// is claimed ([`thesis_fn_is_bounded`]): an upper bound at most this far above the
/// measured interval.
pub const THESIS_STREAM_FN_BOUND_BAND: f64 = 0.10;

/// Whether the stream model's weighted FN is claimed (as an upper bound, see
/// [`THESIS_STREAM_FULL`]) for `policy`: the Probabilistic-delete-p policies, IBF3 and
/// IBF5.
pub fn thesis_fn_is_bounded(policy: Policy) -> bool {
    matches!(policy, Policy::Ibf3 | Policy::Ibf5)
}

/// The thesis stream at the thesis's size (Section 6.1.2 [SBF], n = 262144, 100 000
/// arrivals, 70% repeats; 4 epochs): the stream model's wFP for [`THESIS_STREAM_FULL`],
/// and its wFN as an upper bound where [`thesis_fn_is_bounded`], against
/// [`thesis_stream`] (see `tests/agreement/stable.rs` and the module doc of
/// `bfopt_models::stable` for the measured errors).
pub fn thesis_stream_checks(seed: u64, confidence: f64) -> Vec<Check> {
    use bfopt_models::stable::{stream_metrics, stream_weighted_fp, RepeatStream};
    let dist = ImportanceDist::linear(1, 50).expect("valid");
    let mut out = Vec::new();
    for (i, &(policy, m, k, max, p, n)) in THESIS_STREAM_FULL.iter().enumerate() {
        let case_seed = seed + i as u64;
        let name = |what: &str| {
            format!("{policy} m={m} K={k} Max={max} P={p}: thesis stream of {n} arrivals, {what}")
        };
        let params = IbfParams::new(policy, m, k, max, p, dist.clone()).expect("valid");
        // (wFP, wFN where it is claimed): the wFP alone skips the model's FN pass.
        let claims_fn = thesis_fn_is_bounded(policy);
        let pred = RepeatStream::new(n, 0.7).and_then(|s| {
            if claims_fn {
                stream_metrics(&params, &s).map(|r| (r.weighted_fp, Some(r.weighted_fn)))
            } else {
                stream_weighted_fp(&params, &s).map(|wfp| (wfp, None))
            }
        });
        let sim = thesis_stream(&ThesisStreamConfig {
            params,
            arrivals: n,
            duplicate_rate: 0.7,
            checkpoints: 1,
            epochs: 4,
            seed: case_seed,
            confidence,
        });
        let (pred, r) = match (pred, sim) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                out.push(Check::error("stable", name(&e.to_string()), case_seed));
                continue;
            }
        };
        out.push(Check::of(
            "stable",
            name("weighted fp"),
            pred.0,
            &r.weighted_fp,
            Tolerance::approx(
                THESIS_STREAM_FP_BAND,
                "items-per-cell and counter stream model (stated wFP error)",
            ),
            case_seed,
        ));
        if let Some(wfn) = pred.1 {
            out.push(Check::upper_bound_within(
                "stable",
                name("weighted fn, an upper bound"),
                wfn,
                &r.weighted_fn,
                Tolerance::approx(
                    THESIS_STREAM_FN_BOUND_BAND,
                    "items-per-cell and counter stream model (stated wFN bound)",
                ),
                case_seed,
            ));
        }
    }
    out
}

/// Issue 19 item 1, a diagnostic of the IBF2-IBF5 wFN gap on the thesis stream: is a
/// queried repeat's `K` cells being zero correlated beyond what its importance, its age
/// since its last insertion and its own insertion count explain? The items-and-counter
/// model treats the cells as independent given those (module `counter_stream` of the
/// models crate). Prints, per policy, the measured FN of repeats and the FN the measured
/// per-bucket zero rate of one cell gives with independent cells.
///
/// Measured (K = 4, Max = 4, P = 7, importance 1..50, 70% repeats, 64 epochs, seed 5;
/// FN of repeats unweighted): the independent-cells FN exceeds the measured one by the
/// same amount whether the buckets add the gap between the item's last two insertions,
/// the exact importance, or the query and last-insertion times (the filter fills over
/// the stream). With the times: m = 1024, 12 000 arrivals, IBF3 0.6926 / 0.6734 (+2.9%),
/// IBF5 0.7278 / 0.7070 (+2.9%), IBF2 0.8416 / 0.8121 (+3.6%), IBF4 0.8272 / 0.7975
/// (+3.7%); the thesis's cells per item at 1/32 size (m = 8192, 3125 arrivals), IBF3
/// 0.4964 / 0.4495 (+10%), IBF5 0.5334 / 0.4847 (+10%), IBF2 0.5900 / 0.5069 (+16%),
/// IBF4 0.5616 / 0.4796 (+17%). The SBF shows none (0.4151 / 0.4083 at m = 1024, 0.0096
/// / 0.0101). Sparse buckets bias the independent-cells figure down, so these are lower
/// bounds on the correlation. `cargo test -p bfopt-validation --lib
/// repeat_cells_diagnostic -- --ignored --nocapture` (about a minute).
#[cfg(test)]
mod repeat_cells_diagnostic {
    use super::*;

    /// `(FN of repeats, independent cells at each bucket's zero rate, at the pooled
    /// rate)`; buckets by importance / 5, age · 32 / arrivals, own insertions (1, 2, 3,
    /// ≥ 4) and, with `gap`, the gap between the item's last two insertions (5 classes),
    /// or, with `exact`, the importance itself instead of the gap.
    fn measure(
        policy: Policy,
        m: u64,
        arrivals: u64,
        epochs: u64,
        gap: bool,
        exact: bool,
        timed: bool,
    ) -> (f64, f64, f64) {
        let (fnr, indep, pooled, _) =
            measure_by_own(policy, m, arrivals, epochs, gap, exact, timed);
        (fnr, indep, pooled)
    }

    /// [`measure`] with, per own-insertion class (1, 2, 3, >= 4), `(share of the
    /// repeats, FN of repeats, independent cells at the bucket's zero rate)`.
    fn measure_by_own(
        policy: Policy,
        m: u64,
        arrivals: u64,
        epochs: u64,
        gap: bool,
        exact: bool,
        timed: bool,
    ) -> (f64, f64, f64, [(f64, f64, f64); 4]) {
        let imp = ImportanceDist::linear(1, 50).unwrap();
        let params = IbfParams::new(policy, m, 4, 4, 7, imp.clone()).unwrap();
        let k = params.k() as usize;
        let ages = if timed { 256 } else { 32 };
        let buckets = 50 * ages * 4 * 5;
        // Age buckets: with `timed`, the query time and the last insertion's time in
        // sixteenths of the stream (the filter fills over the stream, so the decrement
        // law depends on both); else the age in 32nds.
        let bucket = |i: u32, t: u64, age: u64, own: u32, prev: u64| {
            let a = if timed {
                let (tq, tl) = (t * 16 / arrivals, (t - 1 - age) * 16 / arrivals);
                (tq * 16 + tl) as usize
            } else {
                (age * 32 / arrivals).min(31) as usize
            };
            let g = match (gap, own) {
                (false, _) | (_, 1) => 0,
                _ => {
                    [64, 16, 4, 1]
                        .iter()
                        .position(|&d| prev < arrivals / d)
                        .unwrap_or(3)
                        + 1
                }
            };
            let ib = if exact {
                i as usize - 1
            } else {
                (i as usize - 1) / 5
            };
            ((ib * ages + a) * 4 + (own.min(4) - 1) as usize) * 5 + g
        };
        let per_epoch = run_epochs(epochs, 5, "diag", |_, seed| {
            let mut f = StableFilter::new(&params, seed);
            let mut r = rng(mix(seed ^ 0x57EA));
            // (key, importance, last insertion, insertions so far, gap before the last)
            let mut seen: Vec<(u64, u32, u64, u32, u64)> = Vec::new();
            let mut acc = vec![(0u64, 0u64, 0u64); buckets];
            for t in 0..arrivals {
                if !seen.is_empty() && r.random::<f64>() < 0.7 {
                    let j = r.random_range(0..seen.len());
                    let (key, i, last, own, prev) = seen[j];
                    let z = f.zero_cells_of_u64(key) as u64;
                    let b = &mut acc[bucket(i, t, t - 1 - last, own, prev)];
                    b.0 += 1;
                    b.1 += z;
                    b.2 += u64::from(z > 0);
                    f.insert_u64(key, i);
                    seen[j] = (key, i, t, own + 1, t - last);
                } else {
                    let key = member(seed, seen.len() as u64);
                    let i = imp.quantile(r.random::<f64>());
                    f.insert_u64(key, i);
                    seen.push((key, i, t, 1, 0));
                }
            }
            acc
        });
        let (mut n, mut miss, mut indep, mut pooled_z) = (0.0, 0.0, 0.0, 0.0);
        let mut own = [(0.0, 0.0, 0.0); 4];
        for b in 0..buckets {
            let (q, z, x) = per_epoch.iter().fold((0u64, 0u64, 0u64), |a, e| {
                (a.0 + e[b].0, a.1 + e[b].1, a.2 + e[b].2)
            });
            if q == 0 {
                continue;
            }
            let zbar = z as f64 / (q as f64 * k as f64);
            n += q as f64;
            miss += x as f64;
            let ind = q as f64 * (1.0 - (1.0 - zbar).powi(k as i32));
            indep += ind;
            pooled_z += z as f64;
            let o = &mut own[(b / 5) % 4];
            o.0 += q as f64;
            o.1 += x as f64;
            o.2 += ind;
        }
        let pooled = 1.0 - (1.0 - pooled_z / (n * k as f64)).powi(k as i32);
        let own = own.map(|(q, x, ind)| (q / n, x / q.max(1.0), ind / q.max(1.0)));
        (miss / n, indep / n, pooled, own)
    }

    /// The correlation of a repeat's `K = 4` cells measured without the within-bucket
    /// spread: buckets by exact importance, age in `ages`-ths of the stream, query time in
    /// `times`-ths and, with `own_classes`, own-insertion class; the independent-cells FN of a bucket is the
    /// unbiased U-statistic over 4 *distinct* repeats of the bucket, one cell each
    /// (`1 − e4(y)/C(q, 4)`, `y` a repeat's share of non-zero cells), so neither a sparse
    /// bucket nor an item's own cells bias it. Returns `(FN, independent cells)` over the
    /// buckets with at least 4 repeats, and per own class.
    fn measure_cross(
        policy: Policy,
        m: u64,
        arrivals: u64,
        epochs: u64,
        (ages, times, own_classes): (u64, u64, bool),
    ) -> ((f64, f64), [(f64, f64); 4]) {
        let imp = ImportanceDist::linear(1, 50).unwrap();
        let params = IbfParams::new(policy, m, 4, 4, 7, imp.clone()).unwrap();
        let buckets = 50 * (ages * times) as usize * 4;
        let bucket = |i: u32, t: u64, age: u64, own: u32| {
            let a = (age * ages / arrivals).min(ages - 1);
            let tq = t * times / arrivals;
            let o = if own_classes { own.min(4) - 1 } else { 0 };
            (((i as usize - 1) * ages as usize + a as usize) * times as usize + tq as usize) * 4
                + o as usize
        };
        // Per bucket: repeats, misses, power sums 1..4 of the non-zero share.
        let per_epoch = run_epochs(epochs, 9, "diag-cross", |_, seed| {
            let mut f = StableFilter::new(&params, seed);
            let mut r = rng(mix(seed ^ 0x57EA));
            let mut seen: Vec<(u64, u32, u64, u32)> = Vec::new();
            let mut acc = vec![[0.0f64; 6]; buckets];
            for t in 0..arrivals {
                if !seen.is_empty() && r.random::<f64>() < 0.7 {
                    let j = r.random_range(0..seen.len());
                    let (key, i, last, own) = seen[j];
                    let z = f.zero_cells_of_u64(key);
                    let y = 1.0 - z as f64 / 4.0;
                    let b = &mut acc[bucket(i, t, t - 1 - last, own)];
                    b[0] += 1.0;
                    b[1] += f64::from(u8::from(z > 0));
                    b[2] += y;
                    b[3] += y * y;
                    b[4] += y.powi(3);
                    b[5] += y.powi(4);
                    f.insert_u64(key, i);
                    seen[j] = (key, i, t, own + 1);
                } else {
                    let key = member(seed, seen.len() as u64);
                    let i = imp.quantile(r.random::<f64>());
                    f.insert_u64(key, i);
                    seen.push((key, i, t, 1));
                }
            }
            acc
        });
        let (mut all, mut own) = ((0.0, 0.0, 0.0), [(0.0, 0.0, 0.0); 4]);
        for b in 0..buckets {
            let mut s = [0.0; 6];
            for e in &per_epoch {
                s.iter_mut().zip(&e[b]).for_each(|(a, x)| *a += x);
            }
            let q = s[0];
            if q < 4.0 {
                continue;
            }
            let ind = q * independent_cells_fn(&s);
            for a in [&mut all, &mut own[b % 4]] {
                a.0 += q;
                a.1 += s[1];
                a.2 += ind;
            }
        }
        (
            (all.1 / all.0, all.2 / all.0),
            own.map(|(q, x, i)| (x / q.max(1.0), i / q.max(1.0))),
        )
    }

    /// Prints [`measure_cross`] per policy and own class. Measured (256 epochs, seed 9;
    /// FN / independent cells): 64ths of age, quarters of query time and own class, m =
    /// 1024, 12 000 arrivals: SBF 0.4077 / 0.4083, IBF3 0.6728 / 0.6870 (+2.1%), IBF5
    /// 0.7057 / 0.7207 (+2.1%), IBF2 0.8117 / 0.8453 (+4.1%), IBF4 0.7975 / 0.8312
    /// (+4.2%); m = 8192, 3125 arrivals: SBF 0.0080 / 0.0079, IBF3 0.4424 / 0.4790
    /// (+8.3%), IBF5 0.4752 / 0.5134 (+8.0%), IBF2 0.5053 / 0.5861 (+16.0%), IBF4 0.4778 /
    /// 0.5587 (+16.9%); own class 1 alone at m = 8192: IBF3 0.5841 / 0.6202. Ages in 256ths
    /// only: IBF3 +2.7% and +22.2%, IBF2 +6.9% and +19.0%, the SBF within 0.2%. About
    /// 2.5 min.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn correlation_across_distinct_repeats() {
        for (m, arrivals) in [(1024u64, 12_000u64), (8192, 3125)] {
            for policy in [
                Policy::Sbf,
                Policy::Ibf3,
                Policy::Ibf5,
                Policy::Ibf2,
                Policy::Ibf4,
            ] {
                let ((f, i), own) = measure_cross(policy, m, arrivals, 256, (64, 4, true));
                let ((f2, i2), _) = measure_cross(policy, m, arrivals, 256, (256, 1, false));
                println!(
                    "{policy} m={m} arrivals={arrivals}: FN {f:.4} independent {i:.4} ({:+.1}%); ages in 256ths only: {f2:.4} / {i2:.4} ({:+.1}%)",
                    100.0 * (i / f - 1.0),
                    100.0 * (i2 / f2 - 1.0)
                );
                for (c, (f, i)) in own.iter().enumerate() {
                    println!("  own {}: FN {f:.4} independent {i:.4}", c + 1);
                }
            }
        }
    }

    /// Issue 19 item 1, session 14: does the independent-cells excess shrink with finer
    /// query times (at 1/32 size the deletion weight grows from 18 to 51 over the
    /// stream, so repeats of one bucket at different query times decay at different
    /// rates, which looks like a correlation of their cells)? Prints [`measure_cross`]
    /// for IBF3 with ages in 32nds and query times in quarters and 16ths (no own classes;
    /// 256 epochs; finer buckets would hold too few repeats and too much memory).
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn correlation_by_query_time_resolution() {
        for (policy, m, arrivals) in [
            (Policy::Ibf3, 8192u64, 3125u64),
            (Policy::Ibf3, 1024, 12_000),
        ] {
            for times in [4u64, 16] {
                let ((f, i), _) = measure_cross(policy, m, arrivals, 256, (32, times, false));
                println!(
                    "{policy} m={m} arrivals={arrivals}, ages in 32nds, query times in {times}ths: FN {f:.4} independent {i:.4} ({:+.1}%)",
                    100.0 * (i / f - 1.0)
                );
            }
        }
    }

    /// Is the excess of independent cells there for repeats never re-inserted before their
    /// last insertion (own class 1, whose cells share no history)? Prints per own class.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn correlation_by_own_insertions() {
        for (m, arrivals) in [(1024u64, 12_000u64), (8192, 3125)] {
            for policy in [Policy::Sbf, Policy::Ibf3, Policy::Ibf2] {
                let (fnr, indep, _, own) =
                    measure_by_own(policy, m, arrivals, 64, false, false, true);
                println!("{policy} m={m} arrivals={arrivals}: FN {fnr:.4} independent {indep:.4}");
                for (c, (share, f, i)) in own.iter().enumerate() {
                    println!(
                        "  own {}: share {share:.3} FN {f:.4} independent {i:.4} ({:+.1}%)",
                        c + 1,
                        100.0 * (i / f - 1.0)
                    );
                }
            }
        }
    }

    /// One repeat of [`pool_weight_fluctuation`]: importance, query time, last insertion,
    /// own insertions before the query, zero cells among its `K`, and its exposure
    /// `Σ 1/W_u` over the deletion phases since its last insertion.
    type PoolRecord = (u32, u32, u32, u32, u32, f64);

    /// Runs the thesis stream recording [`PoolRecord`]s and the per-epoch cumulative
    /// exposure `S(u) = Σ_{v < u} 1/W_v` (`W_v` the deletion weight before arrival `v`).
    fn pool_records(
        policy: Policy,
        m: u64,
        arrivals: u64,
        epochs: u64,
    ) -> Vec<(Vec<PoolRecord>, Vec<f64>)> {
        let imp = ImportanceDist::linear(1, 50).unwrap();
        let params = IbfParams::new(policy, m, 4, 4, 7, imp.clone()).unwrap();
        run_epochs(epochs, 9, "diag-pool", |_, seed| {
            let mut f = StableFilter::new(&params, seed);
            let mut r = rng(mix(seed ^ 0x57EA));
            let mut seen: Vec<(u64, u32, u64, u32)> = Vec::new();
            let mut cum = vec![0.0f64; arrivals as usize + 1];
            let mut out = Vec::new();
            for t in 0..arrivals {
                let w = f.deletion_weight();
                cum[t as usize + 1] = cum[t as usize] + if w > 0.0 { 1.0 / w } else { 0.0 };
                if !seen.is_empty() && r.random::<f64>() < 0.7 {
                    let j = r.random_range(0..seen.len());
                    let (key, i, last, own) = seen[j];
                    let z = f.zero_cells_of_u64(key) as u32;
                    let exposure = cum[t as usize] - cum[last as usize + 1];
                    out.push((i, t as u32, last as u32, own, z, exposure));
                    f.insert_u64(key, i);
                    seen[j] = (key, i, t, own + 1);
                } else {
                    let key = member(seed, seen.len() as u64);
                    let i = imp.quantile(r.random::<f64>());
                    f.insert_u64(key, i);
                    seen.push((key, i, t, 1));
                }
            }
            (out, cum)
        })
    }

    /// `(FN, independent cells)` over buckets of repeats: the U-statistic of
    /// [`measure_cross`] (one cell from each of 4 distinct repeats of a bucket).
    fn u_stat(items: impl Iterator<Item = (usize, u32)>, buckets: usize) -> (f64, f64) {
        let mut acc = vec![[0.0f64; 6]; buckets];
        for (b, z) in items {
            let y = 1.0 - f64::from(z) / 4.0;
            let a = &mut acc[b];
            a[0] += 1.0;
            a[1] += f64::from(u8::from(z > 0));
            a[2] += y;
            a[3] += y * y;
            a[4] += y.powi(3);
            a[5] += y.powi(4);
        }
        let (mut q_all, mut x_all, mut i_all) = (0.0, 0.0, 0.0);
        for s in &acc {
            let q = s[0];
            if q < 4.0 {
                continue;
            }
            q_all += q;
            x_all += s[1];
            i_all += q * independent_cells_fn(s);
        }
        (x_all / q_all, i_all / q_all)
    }

    /// The independent-cells FN of a bucket of `q = s[0]` repeats whose cells are zero
    /// with probabilities `y`, from the power sums `s[2..6] = Σ y, Σ y², Σ y³, Σ y⁴`
    /// (Newton's identities): one minus the mean over every 4 distinct repeats of the
    /// product of their cells' non-zero probabilities, `1 − e4/C(q, 4)`.
    fn independent_cells_fn(s: &[f64; 6]) -> f64 {
        let q = s[0];
        let (p1, p2, p3, p4) = (s[2], s[3], s[4], s[5]);
        let e2 = (p1 * p1 - p2) / 2.0;
        let e3 = (e2 * p1 - p1 * p2 + p3) / 3.0;
        let e4 = (e3 * p1 - e2 * p2 + p1 * p3 - p4) / 4.0;
        let choose4 = q * (q - 1.0) * (q - 2.0) * (q - 3.0) / 24.0;
        1.0 - e4 / choose4
    }

    /// Issue 19 item 1, the `W̄_u` hypothesis of module `counter_stream`: does the
    /// fluctuation of the deletion weight `W_u = Σ_{v ≥ 1} 1/c` (which the model fixes at
    /// its mean `m·W̄_u`) over a repeat's lifetime carry the correlation of its `K` cells?
    /// A cell of counter `c` is decremented with probability about `P/(c·W_u)` per
    /// deletion phase, so a repeat's cells share the exposure `Σ 1/W_u` over the phases
    /// since its last insertion. Prints, for IBF3 and IBF5, the spread of that exposure
    /// relative to its mean over epochs at the same two times, the FN per quartile of the
    /// ratio within each (age in 16ths, query time in quarters) cell, and the
    /// independent-cells excess of [`measure_cross`] (buckets by exact importance, age,
    /// query time in quarters and own class) with ages in 16ths, 64ths and 256ths,
    /// without and with the ratio's within-cell quartile in the bucket.
    ///
    /// Measured (K = 4, Max = 4, P = 7, seed 9; 256 epochs at m = 1024, 12 000 arrivals,
    /// 1024 at m = 8192, 3125 arrivals): `W` 8.1 throughout at m = 1024, 18 / 32 / 50
    /// (IBF3) and 16 / 29 / 46 (IBF5) at 1/32 size; FN of repeats IBF3 0.6732, IBF5 0.7060,
    /// 0.4501, 0.4833; within-cell quartiles flat or U-shaped, never rising (IBF3 at 1/32
    /// size 0.452, 0.451, 0.443, 0.455); the excess unchanged by the quartile (IBF3 at 1/32
    /// size, ages in 16ths / 64ths / 256ths: +11.9 / +8.2 / +7.5% without, +11.7 / +7.9 /
    /// +7.8% with; m = 1024 +3.6 / +2.1 / +1.5% and +3.5 / +2.1 / +1.6%). The
    /// hypothesis is false; module `counter_stream`, session 11, has every number. About
    /// 30 s.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn pool_weight_fluctuation() {
        for (m, arrivals, epochs) in [(1024u64, 12_000u64, 256u64), (8192, 3125, 1024)] {
            for policy in [Policy::Ibf3, Policy::Ibf5] {
                let runs = pool_records(policy, m, arrivals, epochs);
                let n = arrivals as usize + 1;
                let mut mean = vec![0.0; n];
                for (_, cum) in &runs {
                    mean.iter_mut()
                        .zip(cum)
                        .for_each(|(a, c)| *a += c / epochs as f64);
                }
                let mut all: Vec<(PoolRecord, f64)> = Vec::new();
                for (recs, _) in &runs {
                    for &rec in recs {
                        let (_, t, last, ..) = rec;
                        let mu = mean[t as usize] - mean[last as usize + 1];
                        let ratio = if mu > 0.0 { rec.5 / mu } else { 1.0 };
                        all.push((rec, ratio));
                    }
                }
                let lr: Vec<f64> = all
                    .iter()
                    .filter(|a| a.1 > 0.0 && a.0 .1 - a.0 .2 > 1)
                    .map(|a| a.1.ln())
                    .collect();
                let lm = lr.iter().sum::<f64>() / lr.len() as f64;
                let lsd =
                    (lr.iter().map(|x| (x - lm).powi(2)).sum::<f64>() / lr.len() as f64).sqrt();
                let times = 4u64;
                let bucket = |rec: &PoolRecord, ages: u64| {
                    let (i, t, last, own, ..) = *rec;
                    let age = u64::from(t - 1 - last);
                    let a = (age * ages / arrivals).min(ages - 1) as usize;
                    let tq = (u64::from(t) * times / arrivals) as usize;
                    (((i as usize - 1) * ages as usize + a) * times as usize + tq) * 4
                        + (own.min(4) - 1) as usize
                };
                // Quartiles of the ratio within each (age in 16ths, query time) cell: the
                // spread of the exposure shrinks with the age, so global quartiles mostly
                // sort ages.
                let cells = 16 * times as usize;
                let cell = |rec: &PoolRecord| (bucket(rec, 16) / 4) % cells;
                let mut per_cell: Vec<Vec<f64>> = vec![Vec::new(); cells];
                for (r, w) in &all {
                    per_cell[cell(r)].push(*w);
                }
                let cuts: Vec<[f64; 3]> = per_cell
                    .iter_mut()
                    .map(|v| {
                        v.sort_by(f64::total_cmp);
                        if v.is_empty() {
                            [1.0; 3]
                        } else {
                            let at = |p: f64| v[((v.len() - 1) as f64 * p) as usize];
                            [at(0.25), at(0.5), at(0.75)]
                        }
                    })
                    .collect();
                let local =
                    |r: &PoolRecord, w: f64| cuts[cell(r)].iter().filter(|&&c| w > c).count();
                let fn_all = all.iter().filter(|a| a.0 .4 > 0).count() as f64 / all.len() as f64;
                // The pool's size: `1/mean(1/W_u)` at a quarter, half and the end of the
                // stream.
                let pool = [n / 4, n / 2, n - 1].map(|u| 1.0 / (mean[u] - mean[u - 1]));
                println!(
                    "{policy} m={m} arrivals={arrivals}: deletion weight W at a quarter, half, end of the stream {:.1} {:.1} {:.1}",
                    pool[0], pool[1], pool[2]
                );
                println!(
                    "{policy} m={m} arrivals={arrivals} ({epochs} epochs, {} repeats): FN of repeats {fn_all:.4}; sd of the log exposure ratio {lsd:.3} (ages > 1)",
                    all.len()
                );
                for c in 0..4 {
                    let sel: Vec<&(PoolRecord, f64)> =
                        all.iter().filter(|a| local(&a.0, a.1) == c).collect();
                    let fnr = sel.iter().filter(|a| a.0 .4 > 0).count() as f64 / sel.len() as f64;
                    let mr = sel.iter().map(|a| a.1).sum::<f64>() / sel.len() as f64;
                    println!(
                        "  within-cell ratio quartile {}: mean ratio {mr:.3}, FN {fnr:.4}",
                        c + 1
                    );
                }
                for ages in [16u64, 64, 256] {
                    let nb = 50 * (ages * times) as usize * 4;
                    let (f0, i0) = u_stat(all.iter().map(|(r, _)| (bucket(r, ages), r.4)), nb);
                    let (f1, i1) = u_stat(
                        all.iter()
                            .map(|(r, w)| (bucket(r, ages) * 4 + local(r, *w), r.4)),
                        nb * 4,
                    );
                    println!(
                        "  ages in {ages}ths: FN {f0:.4} independent {i0:.4} ({:+.1}%); with the ratio quartile: FN {f1:.4} independent {i1:.4} ({:+.1}%)",
                        100.0 * (i0 / f0 - 1.0),
                        100.0 * (i1 / f1 - 1.0)
                    );
                }
            }
        }
    }

    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn cells_of_a_repeat_are_correlated() {
        for (m, arrivals) in [(1024u64, 12_000u64), (8192, 3125)] {
            for policy in [
                Policy::Sbf,
                Policy::Ibf3,
                Policy::Ibf5,
                Policy::Ibf2,
                Policy::Ibf4,
            ] {
                let (fnr, indep, pooled) = measure(policy, m, arrivals, 64, false, false, false);
                let (_, indep_gap, _) = measure(policy, m, arrivals, 64, true, false, false);
                let (_, indep_imp, _) = measure(policy, m, arrivals, 64, false, true, false);
                let (_, indep_t, _) = measure(policy, m, arrivals, 64, false, false, true);
                println!(
                    "{policy} m={m} arrivals={arrivals}: FN of repeats {fnr:.4}; independent cells at the bucket's zero rate {indep:.4} (with the last gap: {indep_gap:.4}; importance exact: {indep_imp:.4}; query and insertion times: {indep_t:.4}); at the pooled rate {pooled:.4}"
                );
            }
        }
    }
}

/// Issue 19 item 1, session 14: the per-cell law of a repeat's cells in the filter, to
/// set against the stream model's (module `counter_stream` of the models crate, its test
/// `per_cell_probe`). For each repeat query, each of the item's `K` cells: its counter
/// right after the item's last insertion (the start state; the value is `Max` for IBF3)
/// and whether it is zero at the query. Printed per tracked importance, own-insertion
/// class and quarter of the query time: the per-cell zero rate, the share of cells that
/// were zero before the item's last insertion set them (fresh), the zero rate of fresh
/// and of other cells, and the mean start counter; then the same with the deletion phase
/// made independent per cell (`StableFilter::set_independent_deletion`, the decrement law
/// the model assumes) in place of the `P` sequential picks.
#[cfg(test)]
mod start_law_diagnostic {
    use super::*;

    /// Start-counter bins: `c − i` (the counter before the set) 0, 1-8, 9-25, 26-50,
    /// 51-100, > 100.
    const BINS: usize = 6;
    const CB: [u32; BINS - 1] = [0, 8, 25, 50, 100];
    /// Per (importance, own class, query quarter): repeats, FN repeats, cells, zero
    /// cells, Σ start counter, then per bin (cells, zero cells).
    const FIELDS: usize = 5 + 2 * BINS;

    fn key(i: u32, own: u32, tq: u64) -> usize {
        (((i - 1) as usize * 4 + (own.min(4) - 1) as usize) * 4 + tq as usize) * FIELDS
    }

    /// The accumulated [`FIELDS`] per key, over `epochs` epochs (seed 14).
    fn measure(policy: Policy, m: u64, arrivals: u64, epochs: u64, independent: bool) -> Vec<f64> {
        let imp = ImportanceDist::linear(1, 50).unwrap();
        let params = IbfParams::new(policy, m, 4, 4, 7, imp.clone()).unwrap();
        let per = run_epochs(epochs, 14, "diag-start", |_, seed| {
            let mut f = StableFilter::new(&params, seed);
            f.set_independent_deletion(independent);
            let mut r = rng(mix(seed ^ 0x57EA));
            // key, importance, own insertions, start counters of its cells.
            let mut seen: Vec<(u64, u32, u32, Vec<u32>)> = Vec::new();
            let mut acc = vec![0.0f64; 50 * 16 * FIELDS];
            for t in 0..arrivals {
                if !seen.is_empty() && r.random::<f64>() < 0.7 {
                    let j = r.random_range(0..seen.len());
                    let (key, i, own, ref start) = seen[j];
                    let cells = f.cells_of_u64(key);
                    let at = self::key(i, own, t * 4 / arrivals);
                    let a = &mut acc[at..at + FIELDS];
                    let mut any = false;
                    for (&c, &cell) in start.iter().zip(&cells) {
                        let zero = f.cell(cell) == 0;
                        any |= zero;
                        let b = CB.iter().filter(|&&x| c - i > x).count();
                        a[2] += 1.0;
                        a[3] += f64::from(u8::from(zero));
                        a[4] += f64::from(c);
                        a[5 + 2 * b] += 1.0;
                        a[6 + 2 * b] += f64::from(u8::from(zero));
                    }
                    a[0] += 1.0;
                    a[1] += f64::from(u8::from(any));
                    f.insert_u64(key, i);
                    let start = cells.iter().map(|&c| f.counter(c)).collect();
                    seen[j] = (key, i, own + 1, start);
                } else {
                    let key = member(seed, seen.len() as u64);
                    let i = imp.quantile(r.random::<f64>());
                    f.insert_u64(key, i);
                    let start = f.cells_of_u64(key).iter().map(|&c| f.counter(c)).collect();
                    seen.push((key, i, 1, start));
                }
            }
            acc
        });
        let mut tot = vec![0.0; 50 * 16 * FIELDS];
        for e in &per {
            tot.iter_mut().zip(e).for_each(|(a, x)| *a += x);
        }
        tot
    }

    /// Sums the fields over the keys with importance in `imps`, own class in `owns` and
    /// query quarter in `tqs`.
    fn sum(tot: &[f64], imps: &[u32], owns: &[u32], tqs: &[u64]) -> [f64; FIELDS] {
        let mut s = [0.0; FIELDS];
        for &i in imps {
            for &o in owns {
                for &q in tqs {
                    let at = key(i, o, q);
                    s.iter_mut()
                        .zip(&tot[at..at + FIELDS])
                        .for_each(|(a, x)| *a += x);
                }
            }
        }
        s
    }

    fn line(label: &str, s: &[f64; FIELDS]) {
        let r = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let bins: Vec<String> = (0..BINS)
            .map(|b| {
                format!(
                    "{:.3}:{:.3}",
                    r(s[5 + 2 * b], s[2]),
                    r(s[6 + 2 * b], s[5 + 2 * b])
                )
            })
            .collect();
        println!(
            "  {label}: repeats {:.0} FN {:.4} cell zero {:.4} mean start c {:.1}; c-i bins (share:zero) {}",
            s[0],
            r(s[1], s[0]),
            r(s[3], s[2]),
            r(s[4], s[2]),
            bins.join(" ")
        );
    }

    /// Prints the per-cell law of IBF3 and IBF5 repeats at 1/32 of the thesis's size and
    /// at m = 1024, with sequential picks (the filter) and independent per-cell
    /// decrements. Importances 1, 13, 26, 38, 50 are the ones the model tracks for IBF3.
    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn per_cell_start_and_decay() {
        let all_i: Vec<u32> = (1..=50).collect();
        let owns = [1, 2, 3, 4];
        let tqs = [0, 1, 2, 3];
        for (m, arrivals, epochs) in [(8192u64, 3125u64, 1024u64), (1024, 12_000, 128)] {
            for policy in [Policy::Ibf3, Policy::Ibf5] {
                for independent in [false, true] {
                    let tot = measure(policy, m, arrivals, epochs, independent);
                    println!(
                        "{policy} m={m} N={arrivals} {}:",
                        if independent {
                            "independent per-cell decrements"
                        } else {
                            "filter"
                        }
                    );
                    line("all", &sum(&tot, &all_i, &owns, &tqs));
                    for i in [1u32, 2, 3, 4, 13, 16, 26, 27, 38, 39, 50] {
                        line(&format!("i={i}"), &sum(&tot, &[i], &owns, &tqs));
                        for o in owns {
                            line(&format!("i={i} own {o}"), &sum(&tot, &[i], &[o], &tqs));
                        }
                    }
                    for o in owns {
                        line(&format!("own {o}"), &sum(&tot, &all_i, &[o], &tqs));
                    }
                    for q in tqs {
                        line(&format!("quarter {q}"), &sum(&tot, &all_i, &owns, &[q]));
                    }
                    for i in [13u32, 16, 26, 27] {
                        for o in [1u32, 2] {
                            for q in tqs {
                                line(
                                    &format!("i={i} own {o} quarter {q}"),
                                    &sum(&tot, &[i], &[o], &[q]),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Issue 19 item 1, session 14: the filter's population of non-zero cells at a quarter,
/// half and the end of the thesis stream (IBF3, IBF5; K = 4, Max = 4, P = 7): zero
/// fraction, deletion weight `W = Σ 1/c` and, per counter bin, the share of the cells
/// and of `W`; the stream model's are printed by `pool_weight_of_the_model` in module
/// `counter_stream` of the models crate.
#[cfg(test)]
mod population_diagnostic {
    use super::*;

    const EDGES: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

    #[test]
    #[ignore = "diagnostic: prints numbers"]
    fn counter_law_of_the_population() {
        for (m, arrivals, epochs) in [(8192u64, 3125u64, 256u64), (1024, 12_000, 32)] {
            for policy in [Policy::Ibf3, Policy::Ibf5] {
                let imp = ImportanceDist::linear(1, 50).unwrap();
                let params = IbfParams::new(policy, m, 4, 4, 7, imp.clone()).unwrap();
                let times = [arrivals / 4, arrivals / 2, arrivals - 1];
                let per = run_epochs(epochs, 15, "diag-pop", |_, seed| {
                    let mut f = StableFilter::new(&params, seed);
                    let mut r = rng(mix(seed ^ 0x57EA));
                    let mut seen: Vec<(u64, u32)> = Vec::new();
                    // Per time: zero cells, W, then per bin (cells, weight).
                    let mut acc = vec![0.0f64; 3 * (2 + 2 * EDGES.len())];
                    for t in 0..arrivals {
                        if let Some(q) = times.iter().position(|&x| x == t) {
                            let a = &mut acc[q * (2 + 2 * EDGES.len())..];
                            for i in 0..m {
                                let c = f.counter(i);
                                if f.cell(i) == 0 {
                                    a[0] += 1.0;
                                    continue;
                                }
                                a[1] += 1.0 / f64::from(c);
                                let b = EDGES.iter().filter(|&&e| c >= e).count() - 1;
                                a[2 + 2 * b] += 1.0;
                                a[3 + 2 * b] += 1.0 / f64::from(c);
                            }
                        }
                        let (key, i) = if !seen.is_empty() && r.random::<f64>() < 0.7 {
                            seen[r.random_range(0..seen.len())]
                        } else {
                            let it = (member(seed, seen.len() as u64), imp.quantile(r.random()));
                            seen.push(it);
                            it
                        };
                        f.insert_u64(key, i);
                    }
                    acc
                });
                let mut tot = vec![0.0; per[0].len()];
                for e in &per {
                    tot.iter_mut()
                        .zip(e)
                        .for_each(|(a, x)| *a += x / epochs as f64);
                }
                for (q, &t) in times.iter().enumerate() {
                    let a = &tot[q * (2 + 2 * EDGES.len())..];
                    let nz = m as f64 - a[0];
                    let bins: Vec<String> = (0..EDGES.len())
                        .map(|b| {
                            format!(
                                "{}+ {:.3}:{:.3}",
                                EDGES[b],
                                a[2 + 2 * b] / nz,
                                a[3 + 2 * b] / a[1]
                            )
                        })
                        .collect();
                    println!(
                        "{policy} m={m} N={arrivals} t={t}: zero {:.4} W {:.2}; counter from (cells share:W share) {}",
                        a[0] / m as f64,
                        a[1],
                        bins.join(" ")
                    );
                }
            }
        }
    }
}
