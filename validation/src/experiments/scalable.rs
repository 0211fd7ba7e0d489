//! Scalable Bloom filters: grow a chain over several links, probe non-members, compare
//! the compound FP, the links and the bits with the model.

use crate::agree::{Check, Tolerance};
use crate::filters::scalable::ScalableFilter;
use crate::level::Level;
use crate::sim::run_epochs_fallible;
use crate::stats::{Mean, Proportion};
use crate::workload::{member, probe};
use bfopt_models::classic::{FpLaw, Layout};
use bfopt_models::error::{check, ModelError};
use bfopt_models::scalable::{ChainMetrics, ScalableParams};
use serde::Serialize;

/// A simulation of a scalable filter filled with `n` distinct items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalableSimConfig {
    /// The chain's parameters.
    pub params: ScalableParams,
    /// Distinct items inserted.
    pub n: u64,
    /// Independent epochs (a fresh chain and fresh keys each).
    pub epochs: u64,
    /// Non-member probes per epoch.
    pub probes: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    pub confidence: f64,
}

impl ScalableSimConfig {
    /// Allowed epochs.
    pub const EPOCHS: std::ops::RangeInclusive<u64> = 2..=1_000_000;
    /// Allowed probes per epoch.
    pub const PROBES: std::ops::RangeInclusive<u64> = 1..=10_000_000_000;
    /// Allowed item counts.
    pub const N: std::ops::RangeInclusive<u64> = 1..=1 << 32;

    /// Checks the configuration.
    ///
    /// # Errors
    /// `n`, `epochs`, `probes` or `confidence` out of range.
    pub fn validate(&self) -> Result<(), ModelError> {
        check::in_range("n", self.n, Self::N)?;
        check::in_range("epochs", self.epochs, Self::EPOCHS)?;
        check::in_range("probes", self.probes, Self::PROBES)?;
        check::open_probability("confidence", self.confidence)?;
        Ok(())
    }
}

/// What a scalable simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalableSimResult {
    /// False positives among the non-member probes (interval over epochs).
    pub probe_fp: Proportion,
    /// The compound FP of each epoch's bits, `1 − Π(1 − state_fp_i)`, over epochs.
    pub state_fp: Mean,
    /// Links allocated (the same every epoch: the chain grows by count).
    pub links: usize,
    /// Bits allocated.
    pub bits: u64,
}

/// Runs the simulation: per epoch, a fresh chain filled with `n` distinct keys, then
/// `probes` non-member queries.
///
/// # Errors
/// Invalid configuration; a chain that cannot hold `n` items.
pub fn simulate(cfg: &ScalableSimConfig) -> Result<ScalableSimResult, ModelError> {
    cfg.validate()?;
    cfg.params.links_for(cfg.n)?;
    let per_epoch = run_epochs_fallible(cfg.epochs, cfg.seed, "scalable", |_, seed| {
        let mut f = ScalableFilter::new(cfg.params, seed);
        for i in 0..cfg.n {
            f.insert_u64(member(seed, i))?;
        }
        let fps = (0..cfg.probes)
            .filter(|&i| f.contains_u64(probe(seed, i)))
            .count() as u64;
        Ok::<_, ModelError>((fps, f.state_fp(), f.links(), f.bits()))
    });
    let per_epoch: Vec<(u64, f64, usize, u64)> = per_epoch?;
    let probes: Vec<(u64, u64)> = per_epoch.iter().map(|e| (e.0, cfg.probes)).collect();
    let state: Vec<f64> = per_epoch.iter().map(|e| e.1).collect();
    Ok(ScalableSimResult {
        probe_fp: Proportion::over_epochs(&probes, cfg.confidence),
        state_fp: Mean::new(&state, cfg.confidence),
        links: per_epoch[0].2,
        bits: per_epoch[0].3,
    })
}

/// The tolerance of a chain's predicted FP: exact when every link's law is, else the
/// classic usual formula's stated error (under 1% for `m >= 1000`).
pub fn tolerance(x: &ChainMetrics) -> Tolerance {
    match x.fp_law {
        FpLaw::Exact => Tolerance::EXACT,
        FpLaw::UsualFormula => Tolerance::approx(
            0.01,
            "independent-bits formula per link: under 1% from the exact law for m >= 1000",
        ),
    }
}

/// Checks of one simulation against the model: probe FP and state FP against the
/// compound FP, links and bits exactly.
pub fn compare(
    name: &str,
    x: &ChainMetrics,
    r: &ScalableSimResult,
    confidence: f64,
    seed: u64,
) -> Vec<Check> {
    let tol = tolerance(x);
    let pf = &r.probe_fp;
    let exact = |what: &str, predicted: f64, measured: f64| {
        Check::new(
            "scalable",
            format!("{name}{what}"),
            predicted,
            measured,
            (measured, measured),
            confidence,
            Tolerance::EXACT,
            1,
            seed,
        )
    };
    vec![
        Check::new(
            "scalable",
            format!("{name}probe fp"),
            x.fp,
            pf.rate,
            (pf.interval.lo, pf.interval.hi),
            confidence,
            tol,
            pf.trials,
            seed,
        ),
        Check::new(
            "scalable",
            format!("{name}state fp"),
            x.fp,
            r.state_fp.mean,
            (r.state_fp.interval.lo, r.state_fp.interval.hi),
            confidence,
            tol,
            r.state_fp.samples,
            seed,
        ),
        exact("links", x.links as f64, r.links as f64),
        exact("bits", x.memory_bits as f64, r.bits as f64),
    ]
}

/// The scalable checks of the validate suite: three chains of four or five links (the
/// paper's partitioned links with RedisBloom's ratios, standard links with
/// growable-bloom-filters' ratios, standard links with growth 3), each stopped inside
/// its last link.
pub fn checks(level: Level, seed: u64, confidence: f64) -> Vec<Check> {
    let (n0, epochs, probes) = match level {
        Level::Quick => (400u64, 8, 25_000),
        Level::Full => (20_000u64, 32, 1_000_000),
    };
    let cases = [
        (Layout::Partitioned, 0.05, 0.5, 2.0, 11.5),
        (Layout::Standard, 0.02, 0.851_562_5, 2.0, 22.0),
        (Layout::Standard, 0.03, 0.6, 3.0, 20.0),
    ];
    let mut out = Vec::new();
    for (i, (layout, p0, r, s, fill)) in cases.into_iter().enumerate() {
        let case_seed = seed + i as u64;
        let n = (fill * n0 as f64) as u64;
        let name = |what: &str| {
            format!(
                "{} n0={n0} p0={p0} r={r} s={s} n={n}: {what}",
                layout.name()
            )
        };
        let run = || -> Result<Vec<Check>, ModelError> {
            let params = ScalableParams::new(n0, p0, r, s, layout)?;
            let x = params.chain(n)?.at(n)?;
            let cfg = ScalableSimConfig {
                params,
                n,
                epochs,
                probes,
                seed: case_seed,
                confidence,
            };
            Ok(compare(
                &name(""),
                &x,
                &simulate(&cfg)?,
                confidence,
                case_seed,
            ))
        };
        match run() {
            Ok(c) => out.extend(c),
            Err(e) => out.push(Check::error("scalable", name(&e.to_string()), case_seed)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick suite's three chains at 99% per check: prints each comparison.
    #[test]
    fn quick_checks_agree() {
        let checks = checks(Level::Quick, 1, 0.99);
        assert_eq!(checks.len(), 12);
        for c in &checks {
            println!("{c}");
        }
        assert!(checks.iter().all(|c| c.pass));
    }
}
