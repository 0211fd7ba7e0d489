//! How large a simulation is: the one setting every experiment and the suite share.

use serde::{Deserialize, Serialize};

/// How large the simulations are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Seconds: the sizes `cargo test` runs.
    Quick,
    /// Minutes: larger filters, more epochs and probes.
    Full,
}
