//! What an allocation is asked: the filters ([`FilterSpec`]) and the budget ([`Budget`]).

use bfopt_models::classic::{ClassicParams, Layout, EXACT_BUDGET};
use bfopt_models::error::check;
use bfopt_models::ModelError;
use serde::Serialize;
use std::ops::RangeInclusive;

/// One filter that shares the budget: its name, the distinct items it holds, how often a
/// lookup reaches it, and its bit layout.
///
/// A *zero-result* lookup of a leveled LSM tree reaches every level (weight 1 each); a
/// shard's weight is the share of lookups routed to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterSpec {
    name: String,
    items: u64,
    weight: f64,
    #[serde(flatten)]
    layout: Layout,
}

impl FilterSpec {
    /// Allowed item counts (0: an empty filter, which needs no bits).
    pub const ITEMS: RangeInclusive<u64> = 0..=(1 << 50);
    /// Allowed lookup weights: finite and non-negative (0: never probed).
    pub const WEIGHT: RangeInclusive<f64> = 0.0..=1e15;

    /// Validates and builds a filter.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `items` (outside [`Self::ITEMS`]), `weight`
    /// (outside [`Self::WEIGHT`], NaN) or `block_bits` (not a multiple of 64 from 64 to
    /// 2^20).
    pub fn new(
        name: impl Into<String>,
        items: u64,
        weight: f64,
        layout: Layout,
    ) -> Result<Self, ModelError> {
        check::in_range("items", items, Self::ITEMS)?;
        check::in_range_f64("weight", weight, Self::WEIGHT)?;
        // The layout's own checks (block size) through the classic constructor.
        let unit = match layout {
            Layout::Blocked { block_bits } => block_bits,
            _ => 1,
        };
        ClassicParams::new(unit.max(1), 1, 1, layout)?;
        Ok(Self {
            name: name.into(),
            items,
            weight,
            layout,
        })
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Distinct items `n`.
    pub fn items(&self) -> u64 {
        self.items
    }
    /// Lookups that reach this filter, per lookup.
    pub fn weight(&self) -> f64 {
        self.weight
    }
    /// The bit layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }
    /// Bits are given in multiples of this: the block for the blocked layout, else 1.
    pub fn unit_bits(&self) -> u64 {
        match self.layout {
            Layout::Blocked { block_bits } => block_bits,
            _ => 1,
        }
    }
    /// Whether the filter takes part in the optimisation (it holds items and is probed).
    pub(crate) fn active(&self) -> bool {
        self.items > 0 && self.weight > 0.0
    }
}

/// What the allocation must respect.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "goal", rename_all = "snake_case")]
pub enum Goal {
    /// Spend at most `bits` in all; minimise the expected false positives per lookup.
    Memory {
        /// The memory budget in bits.
        bits: u64,
    },
    /// Reach at most `target` expected false positives per lookup with the least memory.
    ExpectedFp {
        /// The target, expected false positives per lookup.
        target: f64,
    },
}

/// The budget of [`super::allocate`]: the goal, the largest hash count and the work the
/// exact law may take per evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Budget {
    #[serde(flatten)]
    goal: Goal,
    k_max: u32,
    exact_work: f64,
}

impl Budget {
    /// Allowed memory budgets in bits (2^53: what the CLI's parsers accept).
    pub const BITS: RangeInclusive<u64> = 0..=(1 << 53);
    /// Default per-evaluation work (inner-loop steps, about 1 ms) for the exact law; a
    /// filter beyond it is evaluated with its layout's model.
    pub const EXACT_WORK_DEFAULT: f64 = 1e6;
    /// Allowed per-evaluation work: up to the classic module's own budget.
    pub const EXACT_WORK: RangeInclusive<f64> = 0.0..=EXACT_BUDGET;

    /// At most `bits` bits for all filters.
    ///
    /// # Errors
    /// `bits` outside [`Self::BITS`].
    pub fn memory(bits: u64) -> Result<Self, ModelError> {
        check::in_range("bits", bits, Self::BITS)?;
        Ok(Self::with_goal(Goal::Memory { bits }))
    }

    /// At most `target` expected false positives per lookup, with the least memory.
    ///
    /// # Errors
    /// `target` not a positive finite number.
    pub fn expected_fp(target: f64) -> Result<Self, ModelError> {
        check::positive_finite("target_fp", target)?;
        Ok(Self::with_goal(Goal::ExpectedFp { target }))
    }

    fn with_goal(goal: Goal) -> Self {
        Self {
            goal,
            k_max: *ClassicParams::K.end(),
            exact_work: Self::EXACT_WORK_DEFAULT,
        }
    }

    /// Limits the hash count of every filter.
    ///
    /// # Errors
    /// `k_max` outside [`ClassicParams::K`].
    pub fn with_k_max(mut self, k_max: u32) -> Result<Self, ModelError> {
        self.k_max = check::in_range("k_max", k_max, ClassicParams::K)?;
        Ok(self)
    }

    /// Sets the work (inner-loop steps per evaluation) the exact law of a standard
    /// filter may take; 0 evaluates every filter with its layout's model.
    ///
    /// # Errors
    /// `exact_work` outside [`Self::EXACT_WORK`].
    pub fn with_exact_work(mut self, exact_work: f64) -> Result<Self, ModelError> {
        self.exact_work = check::in_range_f64("exact_work", exact_work, Self::EXACT_WORK)?;
        Ok(self)
    }

    /// The goal.
    pub fn goal(&self) -> Goal {
        self.goal
    }
    /// The largest hash count.
    pub fn k_max(&self) -> u32 {
        self.k_max
    }
    /// The per-evaluation work of the exact law.
    pub fn exact_work(&self) -> f64 {
        self.exact_work
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_named() {
        let e = FilterSpec::new("a", 10, -1.0, Layout::Standard).unwrap_err();
        assert!(e.to_string().contains("weight = -1"), "{e}");
        let e = FilterSpec::new("a", 10, f64::NAN, Layout::Standard).unwrap_err();
        assert!(e.to_string().contains("weight = NaN"), "{e}");
        let e = FilterSpec::new("a", 1 << 51, 1.0, Layout::Standard).unwrap_err();
        assert!(e.to_string().contains("items"), "{e}");
        let e = FilterSpec::new("a", 1, 1.0, Layout::Blocked { block_bits: 100 }).unwrap_err();
        assert!(e.to_string().contains("block_bits = 100"), "{e}");
        assert!(Budget::expected_fp(0.0).is_err());
        assert!(Budget::expected_fp(f64::INFINITY).is_err());
        assert!(Budget::memory(1 << 54).is_err());
        assert!(Budget::memory(1).unwrap().with_k_max(0).is_err());
        assert!(Budget::memory(1).unwrap().with_exact_work(-1.0).is_err());
    }
}
