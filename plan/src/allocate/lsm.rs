//! The filters of a leveled LSM tree: one per level, sizes in geometric progression.

use super::spec::FilterSpec;
use bfopt_models::classic::Layout;
use bfopt_models::error::check;
use bfopt_models::ModelError;
use serde::Serialize;
use std::ops::RangeInclusive;

/// Which lookups the filters serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LsmLookups {
    /// Lookups of keys that are not in the tree: each reaches every level (weight 1).
    ZeroResult,
    /// Lookups of stored keys, each key equally likely, each stored in exactly one level
    /// (no older versions); a lookup probes levels from the smallest down and stops at
    /// the level that holds its key, so level `i`'s filter is probed, for a key it does not
    /// hold, with weight `Σ_{j>i} n_j / N` (the last level's weight is 0).
    Existing,
}

/// A leveled LSM tree: `levels` levels, each `ratio` times the one above it, holding
/// `entries` entries in all.
///
/// # Formula
/// ```text
/// n_i = N · (T − 1) · T^(i−1) / (T^L − 1),   i = 1..L
/// ```
/// rounded to whole entries, the largest level taking what rounding leaves, so that
/// `Σ n_i = N` (every level full, as in a tree right after its last level was rebuilt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LsmTree {
    levels: u32,
    ratio: u32,
    entries: u64,
    lookups: LsmLookups,
}

impl LsmTree {
    /// Allowed level counts.
    pub const LEVELS: RangeInclusive<u32> = 1..=40;
    /// Allowed size ratios.
    pub const RATIO: RangeInclusive<u32> = 2..=1000;
    /// Allowed entry counts.
    pub const ENTRIES: RangeInclusive<u64> = 1..=(1 << 50);

    /// Validates and builds a tree.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `levels`, `ratio` or `entries` outside
    /// [`Self::LEVELS`], [`Self::RATIO`], [`Self::ENTRIES`].
    pub fn new(
        levels: u32,
        ratio: u32,
        entries: u64,
        lookups: LsmLookups,
    ) -> Result<Self, ModelError> {
        check::in_range("levels", levels, Self::LEVELS)?;
        check::in_range("ratio", ratio, Self::RATIO)?;
        check::in_range("entries", entries, Self::ENTRIES)?;
        Ok(Self {
            levels,
            ratio,
            entries,
            lookups,
        })
    }

    /// Entries per level, smallest level first (see the type's formula).
    pub fn level_entries(&self) -> Vec<u64> {
        let (t, l) = (f64::from(self.ratio), self.levels);
        // T^(i−1)/(T^L − 1) = T^(i−1−L)/(1 − T^(−L)) keeps every power in range.
        let scale = 1.0 / (1.0 - t.powi(-(l as i32)));
        let mut n: Vec<u64> = (1..=l)
            .map(|i| {
                let share = (t - 1.0) * t.powi(i as i32 - 1 - l as i32) * scale;
                (self.entries as f64 * share).round() as u64
            })
            .collect();
        let head: u64 = n[..n.len() - 1].iter().sum();
        let last = n.len() - 1;
        n[last] = self.entries.saturating_sub(head);
        n
    }

    /// One filter per level (`L1`, `L2`, …), weighted for the tree's lookups.
    ///
    /// # Errors
    /// A bad layout (block size).
    pub fn filters(&self, layout: Layout) -> Result<Vec<FilterSpec>, ModelError> {
        let n = self.level_entries();
        let total = n.iter().sum::<u64>() as f64;
        let mut below = total;
        n.iter()
            .enumerate()
            .map(|(i, &items)| {
                below -= items as f64;
                let weight = match self.lookups {
                    LsmLookups::ZeroResult => 1.0,
                    LsmLookups::Existing => (below / total).max(0.0),
                };
                FilterSpec::new(format!("L{}", i + 1), items, weight, layout)
            })
            .collect()
    }

    /// Levels `L`.
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// Size ratio `T`.
    pub fn ratio(&self) -> u32 {
        self.ratio
    }
    /// Entries `N`.
    pub fn entries(&self) -> u64 {
        self.entries
    }
    /// The lookups served.
    pub fn lookups(&self) -> LsmLookups {
        self.lookups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_geometric_and_sum_to_n() {
        let t = LsmTree::new(4, 10, 1111, LsmLookups::ZeroResult).unwrap();
        assert_eq!(t.level_entries(), vec![1, 10, 100, 1000]);
        let t = LsmTree::new(7, 10, 1_000_000_000, LsmLookups::Existing).unwrap();
        let n = t.level_entries();
        assert_eq!(n.iter().sum::<u64>(), 1_000_000_000);
        let f = t.filters(Layout::Standard).unwrap();
        assert_eq!(f[6].weight(), 0.0);
        assert!((f[5].weight() - n[6] as f64 / 1e9).abs() < 1e-12);
        assert!(LsmTree::new(0, 10, 1, LsmLookups::ZeroResult).is_err());
        assert!(LsmTree::new(3, 1, 1, LsmLookups::ZeroResult).is_err());
        assert!(LsmTree::new(3, 2, 0, LsmLookups::ZeroResult).is_err());
        // 40 levels of ratio 1000 stay finite.
        let big = LsmTree::new(40, 1000, 1 << 50, LsmLookups::ZeroResult).unwrap();
        assert_eq!(big.level_entries().iter().sum::<u64>(), 1 << 50);
    }
}
