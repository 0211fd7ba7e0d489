//! Auditing a live Block Timing Bloom filter from the histogram of its timers' ages
//! (issue 22).
//!
//! # Formula
//! A BTBF writes the current block timestamp into the `k` timers of each inserted item
//! (Section 3 [TBF]), so a timer whose age is at most `a` blocks was written by an item
//! whose last insertion falls in the last `a + 1` blocks, and a timer older than that
//! (or expired, or never written) was written by none of them. For `D_a` distinct items
//! whose last insertion lies in those blocks, the timers still older than `a` are the
//! zeros of a standard filter of `m` bits after `D_a` items:
//!
//! ```text
//! Z_a    = #timers of age > a (or expired)       E Z_a = m (1 − 1/m)^(k D_a)
//! D̂_a    = ln(Z_a/m) / (k ln(1 − 1/m))           with the score interval of ZeroLaw
//! fp(a)  = (#timers of age ≤ a / m)^k            a fresh item's k timers all within a
//! ```
//!
//! The last line is exact given the timers for a standard BTBF query accepting ages up
//! to `a`; at block offset `b` the filter accepts ages up to `L(b) = ⌈(w − b)/B⌉`
//! ([`super::BtbfParams::expiry_age`], Definition 8 [TBF]). Where it applies: ages below
//! the expiry scan's age `⌈w/B⌉ + 1`; older timers are reset by the scan, so rows at or
//! beyond it count fewer timers than were written.
//!
//! # Accuracy
//! The interval is [`ZeroLaw::standard`]'s; `tests/agreement/audit.rs` measures its
//! coverage on the reference BTBF.

use crate::classic::{ItemEstimate, ZeroLaw};
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;

/// The timers of a live BTBF by age: `by_age[a]` timers last written `a` blocks ago,
/// `idle` timers expired or never written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerHistogram {
    k: u32,
    by_age: Vec<u64>,
    idle: u64,
}

impl TimerHistogram {
    /// A histogram of a filter with `k` hashes.
    ///
    /// # Errors
    /// `k` outside 1 to 64; `by_age` empty; fewer than 2 timers in all.
    pub fn new(k: u32, by_age: Vec<u64>, idle: u64) -> Result<Self, ModelError> {
        check::in_range("k", k, 1..=64)?;
        if by_age.is_empty() {
            return Err(ModelError::invalid(
                "ages",
                "no counts",
                "one count per age, age 0 first",
            ));
        }
        let m = by_age.iter().fold(idle, |s, &c| s.saturating_add(c));
        if m < 2 {
            return Err(ModelError::invalid("m", m, "at least 2 timers in all"));
        }
        Ok(Self { k, by_age, idle })
    }

    /// Timers `m` (the sum of the histogram).
    pub fn timers(&self) -> u64 {
        self.by_age.iter().sum::<u64>() + self.idle
    }

    /// One row per age `a`: distinct items last inserted within the last `a + 1` blocks,
    /// and the FP of a query accepting ages up to `a`.
    ///
    /// # Errors
    /// `confidence` outside (0, 1).
    pub fn audit(&self, confidence: f64) -> Result<Vec<TimerAudit>, ModelError> {
        let m = self.timers();
        let law = ZeroLaw::standard(m, self.k);
        let mut within = 0u64;
        self.by_age
            .iter()
            .enumerate()
            .map(|(age, &c)| {
                within += c;
                Ok(TimerAudit {
                    age: age as u64,
                    timers_within: within,
                    items: law.items(m - within, confidence)?,
                    fp_within: probability((within as f64 / m as f64).powi(self.k as i32)),
                })
            })
            .collect()
    }
}

/// The audit of a BTBF at one age.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimerAudit {
    /// Age `a` in blocks.
    pub age: u64,
    /// Timers of age at most `a`.
    pub timers_within: u64,
    /// Distinct items whose last insertion lies in the last `a + 1` blocks.
    #[serde(flatten)]
    pub items: ItemEstimate,
    /// FP of a fresh item for a query accepting ages up to `a`.
    pub fp_within: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_accumulate_the_ages() {
        let h = TimerHistogram::new(2, vec![100, 100, 200], 600).unwrap();
        let rows = h.audit(0.95).unwrap();
        assert_eq!(h.timers(), 1000);
        assert_eq!(
            rows.iter().map(|r| r.timers_within).collect::<Vec<_>>(),
            [100, 200, 400]
        );
        approx::assert_relative_eq!(rows[2].fp_within, 0.16);
        let law = ZeroLaw::standard(1000, 2);
        approx::assert_relative_eq!(rows[1].items.items.unwrap(), law.estimate(800));
        assert!(TimerHistogram::new(2, vec![], 5).is_err());
        assert!(TimerHistogram::new(0, vec![1], 5).is_err());
    }
}
