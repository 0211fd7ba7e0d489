//! Model vs simulation for an allocation: the allocated reference filters, lookups of
//! absent keys through all of them, the measured expected false positives per lookup.

use super::{Choice, Law};
use bfopt_models::error::check;
use bfopt_models::ModelError;
use bfopt_validation::agree::{Check, Tolerance};
use bfopt_validation::filters::classic::ClassicFilter;
use bfopt_validation::sim::run_epochs;
use bfopt_validation::stats::Mean;

/// Largest total bits a simulated allocation may build per epoch (2^33 bits = 1 GiB).
pub const SIM_BITS_MAX: u64 = 1 << 33;

/// How to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimConfig {
    /// Independent epochs, each with its own filters (fresh hash seeds).
    pub epochs: u64,
    /// Lookups of absent keys per epoch.
    pub lookups: u64,
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of the Student t interval.
    pub confidence: f64,
}

/// The tolerance when a filter's FP came from a layout model rather than the exact law:
/// the independent-bits formula understates the exact law by less than 1% at `m ≥ 1000`
/// bits near the optimal load (measured in `bfopt_models::classic`'s tests).
pub const MODEL_BAND: f64 = 0.01;

/// Builds the filters of `choice` in every epoch, inserts each filter's items (keys
/// distinct across filters), sends `lookups` absent keys through all filters and counts
/// `Σ_i w_i · [filter i says yes]` per lookup (a filter with no bits says yes). The
/// epoch means give a Student t interval, compared with `choice.expected_fp`.
///
/// # Errors
/// `epochs < 2`, `lookups = 0`, `confidence` outside (0, 1), or more than
/// [`SIM_BITS_MAX`] bits or `2^32` items in all.
pub fn simulate(choice: &Choice, cfg: &SimConfig) -> Result<(Check, Mean), ModelError> {
    check::in_range("epochs", cfg.epochs, 2..=1_000_000)?;
    check::in_range("lookups", cfg.lookups, 1..=1 << 40)?;
    check::open_probability("confidence", cfg.confidence)?;
    check::in_range("bits", choice.bits, 0..=SIM_BITS_MAX)?;
    let items: u64 = choice.filters.iter().map(|f| f.items).sum();
    check::in_range("items", items, 0..=1 << 32)?;
    let means: Vec<f64> = run_epochs(cfg.epochs, cfg.seed, "allocate", |_, seed| {
        let mut offset = 0u64;
        let filters: Vec<(f64, Option<ClassicFilter>)> = choice
            .filters
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let built = (f.bits > 0 && f.items > 0).then(|| {
                    let mut filter = ClassicFilter::with_layout(
                        f.bits,
                        f.k,
                        f.layout,
                        seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    );
                    (offset..offset + f.items).for_each(|key| filter.insert_u64(key));
                    filter
                });
                offset += f.items;
                (if f.items > 0 { f.weight } else { 0.0 }, built)
            })
            .collect();
        // Absent keys: above every inserted one.
        let base = 1u64 << 62;
        let total: f64 = (base..base + cfg.lookups)
            .map(|key| {
                filters
                    .iter()
                    .map(|(w, f)| match f {
                        Some(f) if !f.contains_u64(key) => 0.0,
                        _ => *w,
                    })
                    .sum::<f64>()
            })
            .sum();
        total / cfg.lookups as f64
    });
    let mean = Mean::new(&means, cfg.confidence);
    let tolerance = if choice.filters.iter().all(|f| f.law == Law::Exact) {
        Tolerance::EXACT
    } else {
        Tolerance::approx(MODEL_BAND, "a filter beyond the exact law's work limit")
    };
    let name = format!(
        "{} filters, {} bits: expected false positives per lookup",
        choice.filters.len(),
        choice.bits
    );
    let check = Check::of(
        "allocate",
        name,
        choice.expected_fp,
        &mean,
        tolerance,
        cfg.seed,
    );
    Ok((check, mean))
}
