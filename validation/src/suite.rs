//! The model-vs-simulation suite behind `bfopt validate`.

use crate::agree::Check;
use serde::Serialize;

/// How large the simulations are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Seconds: the sizes `cargo test` runs.
    Quick,
    /// Minutes: larger filters, more epochs and probes.
    Full,
}

/// Family-wise error rate of a suite run: each check's interval has confidence
/// `1 − FAMILY_ALPHA / checks` (Bonferroni), so a correct model fails a whole run with
/// probability at most 1%.
pub const FAMILY_ALPHA: f64 = 0.01;

/// Checks expected per family at each level, for the Bonferroni split.
const CHECKS_PER_FAMILY: f64 = 30.0;

/// A family's checks: `(level, base seed, per-check confidence) -> checks`.
pub type FamilyChecks = fn(Level, u64, f64) -> Vec<Check>;

/// Every family in the suite, by name.
pub const FAMILIES: &[(&str, FamilyChecks)] = &[
    ("classic", crate::experiments::classic::checks),
    ("baseline", crate::experiments::baseline::checks),
    ("rbf", crate::experiments::rbf::checks),
    ("timing", crate::experiments::timing::checks),
    ("apbf", crate::experiments::apbf::checks),
    ("pbf", crate::experiments::pbf::checks),
    ("stable", crate::experiments::stable::checks),
    ("gbf", crate::experiments::gbf::checks),
];

/// Names of the families in the suite.
pub fn family_names() -> Vec<&'static str> {
    FAMILIES.iter().map(|(n, _)| *n).collect()
}

/// Runs the suite for one family (`Some(name)`) or all; `None` if the name is unknown.
/// A failing check never stops the others.
pub fn run(family: Option<&str>, level: Level, seed: u64) -> Option<Vec<Check>> {
    let selected: Vec<_> = FAMILIES
        .iter()
        .filter(|(name, _)| family.is_none_or(|f| f == *name))
        .collect();
    if selected.is_empty() {
        return None;
    }
    let confidence = 1.0 - FAMILY_ALPHA / (CHECKS_PER_FAMILY * selected.len() as f64);
    Some(
        selected
            .iter()
            .flat_map(|(_, checks)| checks(level, seed, confidence))
            .collect(),
    )
}
