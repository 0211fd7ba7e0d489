//! Insertion and deletion schemes and their combinations, Table 1 [SBF].

use crate::error::ModelError;
use serde::Serialize;
use std::fmt;

/// How an insertion sets an item's `K` cells (Section 5.1 [SBF]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Insert {
    /// `M-insert`, Alg. 1 [SBF]: every cell ← `Max`.
    Max,
    /// `Imp-insert`, Alg. 2 [SBF]: every cell ← `min(importance, Max)`.
    Importance,
}

/// Which cells the deletion phase decrements before each insertion (Section 5.2 [SBF]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Delete {
    /// `Random-delete`, Alg. 3 [SBF]: `P` random cells, decremented if positive.
    Random,
    /// `Probabilistic-delete-p`, Alg. 5 [SBF]: exactly `P` decrements of non-zero cells
    /// chosen with probability ∝ 1 / cumulative importance.
    ProbCumulative,
    /// `Probabilistic-delete-val`, Alg. 6 [SBF]: exactly `P` decrements of non-zero cells
    /// chosen with probability ∝ 1 / cell value.
    ProbValue,
    /// `MinImp-delete`, Alg. 7 [SBF]: the `P` non-zero cells of least cumulative
    /// importance.
    MinImp,
}

/// The heuristics of Table 1 [SBF] (the plain Bloom filter, which never deletes and has
/// no stable point, is the `classic` family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// M-insert + Random-delete (the Stable Bloom filter).
    Sbf,
    /// Imp-insert + Random-delete.
    Ibf1,
    /// Imp-insert + MinImp-delete(totalImp, p).
    Ibf2,
    /// M-insert + Probabilistic-delete-p(totalImp, p).
    Ibf3,
    /// M-insert + MinImp-delete(totalImp, p).
    Ibf4,
    /// Imp-insert + Probabilistic-delete-p(totalImp, p).
    Ibf5,
    /// Imp-insert + Probabilistic-delete-val.
    Ibf6,
}

impl Policy {
    /// Every policy, in Table 1 order.
    pub const ALL: [Policy; 7] = [
        Policy::Sbf,
        Policy::Ibf1,
        Policy::Ibf2,
        Policy::Ibf3,
        Policy::Ibf4,
        Policy::Ibf5,
        Policy::Ibf6,
    ];

    /// The insertion scheme (Table 1 [SBF]).
    pub fn insert(self) -> Insert {
        match self {
            Policy::Sbf | Policy::Ibf3 | Policy::Ibf4 => Insert::Max,
            _ => Insert::Importance,
        }
    }

    /// The deletion scheme (Table 1 [SBF]).
    pub fn delete(self) -> Delete {
        match self {
            Policy::Sbf | Policy::Ibf1 => Delete::Random,
            Policy::Ibf2 | Policy::Ibf4 => Delete::MinImp,
            Policy::Ibf3 | Policy::Ibf5 => Delete::ProbCumulative,
            Policy::Ibf6 => Delete::ProbValue,
        }
    }

    /// Whether the policy keeps a cumulative-importance counter per cell.
    pub fn tracks_cumulative(self) -> bool {
        matches!(self.delete(), Delete::ProbCumulative | Delete::MinImp)
    }

    /// Whether a cell's law depends only on the cell (exact chain) rather than on the
    /// whole filter (mean-field model).
    pub fn is_local(self) -> bool {
        self.delete() == Delete::Random
    }

    /// The name as the CLI and JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Sbf => "sbf",
            Policy::Ibf1 => "ibf1",
            Policy::Ibf2 => "ibf2",
            Policy::Ibf3 => "ibf3",
            Policy::Ibf4 => "ibf4",
            Policy::Ibf5 => "ibf5",
            Policy::Ibf6 => "ibf6",
        }
    }

    /// Parses a name (`sbf`, `ibf1` ... `ibf6`, any case).
    ///
    /// # Errors
    /// An unknown name.
    pub fn parse(s: &str) -> Result<Self, ModelError> {
        let lower = s.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|p| p.name() == lower)
            .ok_or_else(|| ModelError::invalid("policy", s, "one of sbf, ibf1, ..., ibf6"))
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
