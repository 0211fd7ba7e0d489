//! Counting Bloom filters: `c`-bit counters in place of bits, so items can be deleted.
//!
//! Fan, Cao, Almeida and Broder, *Summary Cache: A Scalable Wide-Area Web Cache Sharing
//! Protocol* (IEEE/ACM ToN, 2000), tag `[SC]`. Each of `m` cells is a `c`-bit counter; an
//! insertion increments the `k` counters of the item, a deletion decrements them, a query
//! tests whether all `k` are non-zero. While no counter overflows, the filter answers
//! exactly as a classic standard filter holding the live items, so its FP is the classic
//! one. A counter that reaches `2^c` saturates: it can no longer be decremented safely.
//!
//! | quantity | formula | function |
//! |---|---|---|
//! | FP | the standard classic filter's ([`crate::classic`]) | [`CountingParams::fp`] |
//! | one counter reaches `2^c` | `P(Bin(kn, 1/m) ≥ 2^c)` (exact) | [`CountingParams::counter_tail`] |
//! | expected counters reaching `2^c` | `m · P(Bin(kn, 1/m) ≥ 2^c)` (exact) | [`CountingMetrics::expected_overflows`] |
//! | P(any counter overflows) | `≤ m · P(Bin(kn, 1/m) ≥ 2^c)` (union bound) | [`CountingParams::overflow`] |
//! | the `[SC]` bound | `≤ m · (e·kn / (m·2^c))^(2^c)` | [`CountingParams::overflow_fan`] |
//!
//! # Over the filter's life
//! A counter's value is the number of hits from the live items, so it is largest when the
//! live set is largest: these are the probabilities at the peak of `n` live items (for a
//! life that grows to `n` items and then deletes). Under turnover, apply them to each
//! distinct peak set (union bound over peaks).
//!
//! # Example
//! ```
//! use bfopt_models::counting::{design, CountingRequirement};
//! let d = design(&CountingRequirement::new(0.01, 1_000_000)?)?;
//! assert_eq!(d.params.c(), 4); // the classic 4-bit counters
//! assert!(d.metrics.overflow <= 1e-9 && d.metrics.fp <= 0.01);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # References
//! * L. Fan, P. Cao, J. Almeida, A. Z. Broder, "Summary Cache: A Scalable Wide-Area Web
//!   Cache Sharing Protocol", IEEE/ACM Transactions on Networking 8(3), 2000.

use crate::classic::{self, ClassicParams, FpLaw, Layout};
use crate::error::{check, show_rate, ModelError};
use crate::numeric::{binomial_upper_tail, first_true, probability};
use serde::Serialize;
use std::ops::RangeInclusive;

/// A counting Bloom filter: `m` counters of `c` bits, `k` hashes, `n` live items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CountingParams {
    classic: ClassicParams,
    c: u32,
}

impl CountingParams {
    /// Counter bits.
    pub const C: RangeInclusive<u32> = 1..=16;

    /// `m` counters of `c` bits, `k` hashes, `n` items (the standard layout).
    ///
    /// # Errors
    /// `m`, `k`, `n` outside the classic ranges ([`ClassicParams::new`]); `c` outside
    /// [`Self::C`].
    pub fn new(m: u64, k: u32, n: u64, c: u32) -> Result<Self, ModelError> {
        let classic = ClassicParams::new(m, k, n, Layout::Standard)?;
        check::in_range("c", c, Self::C)?;
        Ok(Self { classic, c })
    }

    /// Counters `m`.
    pub fn m(&self) -> u64 {
        self.classic.m()
    }

    /// Hashes `k`.
    pub fn k(&self) -> u32 {
        self.classic.k()
    }

    /// Live items `n`.
    pub fn n(&self) -> u64 {
        self.classic.n()
    }

    /// Counter bits `c`.
    pub fn c(&self) -> u32 {
        self.c
    }

    /// The classic filter it answers like.
    pub fn classic(&self) -> ClassicParams {
        self.classic
    }

    /// FP: the standard classic filter's ([`ClassicParams::fp`], the exact law where
    /// computable), valid while no counter has overflowed.
    pub fn fp(&self) -> f64 {
        self.classic.fp()
    }

    /// `P(Bin(kn, 1/m) ≥ 2^c)`: one counter's hits reach `2^c` (exact: each of the `kn`
    /// index draws hits it with probability `1/m`, independently).
    pub fn counter_tail(&self) -> f64 {
        counter_tail(self.m(), self.k(), self.n(), self.c)
    }

    /// Probability that some counter overflows, bounded by the union bound
    /// `min(1, m·P(Bin(kn, 1/m) ≥ 2^c))`.
    ///
    /// # Accuracy
    /// An upper bound; tight when it is small (the counters are nearly independent).
    pub fn overflow(&self) -> f64 {
        (self.m() as f64 * self.counter_tail()).min(1.0)
    }

    /// The bound of `[SC]`: `P(Bin(kn, 1/m) ≥ j) ≤ C(kn, j)/m^j ≤ (e·kn/(m·j))^j`, times
    /// `m`, with `j = 2^c` (at `k = (m/n)·ln 2`: `m·(e·ln 2/j)^j`, `1.37e-15·m` for 4-bit
    /// counters).
    pub fn overflow_fan(&self) -> f64 {
        let j = f64::from(self.c).exp2();
        let load = f64::from(self.k()) * self.n() as f64 / self.m() as f64;
        let ln = (std::f64::consts::E * load / j).ln() * j + (self.m() as f64).ln();
        ln.exp().min(1.0)
    }

    /// The metrics of this filter.
    pub fn metrics(&self) -> CountingMetrics {
        let memory_bits = self.m() * u64::from(self.c);
        let tail = self.counter_tail();
        let classic = self.classic.metrics();
        CountingMetrics {
            fp: classic.fp,
            fp_law: classic.fp_law,
            counter_tail: tail,
            expected_overflows: self.m() as f64 * tail,
            overflow: self.overflow(),
            overflow_fan: self.overflow_fan(),
            memory_bits,
            bits_per_item: memory_bits as f64 / self.n().max(1) as f64,
            accesses_query_false: classic.accesses_query_false,
            supports_deletion: true,
        }
    }
}

/// `P(Bin(kn, 1/m) ≥ 2^c)` (see [`CountingParams::counter_tail`]).
fn counter_tail(m: u64, k: u32, n: u64, c: u32) -> f64 {
    probability(binomial_upper_tail(
        u64::from(k) * n,
        1.0 / m as f64,
        1u64 << c,
    ))
}

/// What a counting Bloom filter costs and gives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CountingMetrics {
    /// FP of the live items ([`CountingParams::fp`]).
    pub fp: f64,
    /// The law `fp` follows.
    pub fp_law: FpLaw,
    /// Probability that one counter reaches `2^c`.
    pub counter_tail: f64,
    /// Expected counters that reach `2^c`, `m · counter_tail` (exact).
    pub expected_overflows: f64,
    /// Upper bound on the probability that any counter overflows.
    pub overflow: f64,
    /// The looser `[SC]` bound on it.
    pub overflow_fan: f64,
    /// Counter array size in bits, `m · c`.
    pub memory_bits: u64,
    /// `memory_bits / n`.
    pub bits_per_item: f64,
    /// Counters read by a query for a non-member (it stops at the first zero).
    pub accesses_query_false: f64,
    /// Items can be deleted.
    pub supports_deletion: bool,
}

/// What to size: FP at most `fp` for `n` live items, and overflow probability at most
/// `overflow` (default [`CountingRequirement::OVERFLOW_DEFAULT`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CountingRequirement {
    fp: f64,
    n: u64,
    overflow: f64,
}

impl CountingRequirement {
    /// The default bound on the probability that any counter overflows over the life.
    pub const OVERFLOW_DEFAULT: f64 = 1e-9;

    /// FP at most `fp` for `n` live items, overflow at most 1e-9.
    ///
    /// # Errors
    /// `fp` outside the supported targets; `n` outside the classic range.
    pub fn new(fp: f64, n: u64) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("n", n, ClassicParams::N)?;
        Ok(Self {
            fp,
            n,
            overflow: Self::OVERFLOW_DEFAULT,
        })
    }

    /// The same requirement with another overflow bound.
    ///
    /// # Errors
    /// `overflow` outside `FP_TARGET_MIN <= overflow < 1`.
    pub fn with_overflow(mut self, overflow: f64) -> Result<Self, ModelError> {
        self.overflow = check::fp_target("overflow", overflow)?;
        Ok(self)
    }
}

/// A sized counting Bloom filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CountingDesign {
    /// The chosen filter.
    pub params: CountingParams,
    /// Its metrics.
    pub metrics: CountingMetrics,
}

/// Least memory `m·c` such that the FP meets the target and the union bound on overflow
/// ([`CountingParams::overflow`]) is at most the requirement's: for each `k`, the classic
/// size `m_k` ([`classic::min_bits`]); for each `c` from 1, the smallest `m ≥ m_k` whose
/// overflow bound meets the target (both constraints fall with `m`); the first `c` for
/// which `m_k` itself suffices ends the scan, since wider counters only cost more.
///
/// # Errors
/// [`ModelError::Infeasible`] when no `m ≤ 2^50` meets both.
pub fn design(req: &CountingRequirement) -> Result<CountingDesign, ModelError> {
    let m_max = *ClassicParams::M.end();
    let mut best: Option<(u128, u64, u32, u32)> = None;
    let mut rising = 0;
    for k in 1..=*ClassicParams::K.end() {
        let Some(m_fp) = classic::min_bits(req.fp, req.n, k, Layout::Standard) else {
            continue;
        };
        let mut best_k: Option<(u128, u64, u32, u32)> = None;
        for c in CountingParams::C {
            let meets = |m: u64| m as f64 * counter_tail(m, k, req.n, c) <= req.overflow;
            let Some(m) = first_true(m_fp, m_max, meets) else {
                continue;
            };
            let cost = (u128::from(m) * u128::from(c), m, k, c);
            if best_k.is_none_or(|b| cost < b) {
                best_k = Some(cost);
            }
            if m == m_fp {
                break;
            }
        }
        let Some(cost) = best_k else { continue };
        if best.is_some_and(|b| cost >= b) {
            rising += 1;
            if rising == 3 {
                break;
            }
        } else {
            best = Some(cost);
            rising = 0;
        }
    }
    let (_, m, k, c) = best.ok_or_else(|| {
        ModelError::infeasible(
            format!(
                "fp <= {} and overflow <= {} with n = {}",
                show_rate(req.fp),
                show_rate(req.overflow),
                req.n
            ),
            format!("no m <= {m_max} counters"),
        )
    })?;
    let params = CountingParams::new(m, k, req.n, c)?;
    Ok(CountingDesign {
        params,
        metrics: params.metrics(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_item_cannot_overflow_two_bit_counters() {
        // k = 4 hits in all: no counter reaches 2^2 = 4 unless all four land on it.
        let p = CountingParams::new(1000, 4, 1, 2).unwrap();
        assert!((p.counter_tail() - 1e-12).abs() < 1e-24);
        assert_eq!(
            CountingParams::new(1000, 3, 1, 2).unwrap().counter_tail(),
            0.0
        );
    }

    #[test]
    fn fan_bound_is_above_the_exact_tail() {
        for (m, k, n, c) in [
            (1000, 7, 100, 2),
            (10_000, 5, 2000, 3),
            (1 << 20, 7, 100_000, 4),
        ] {
            let p = CountingParams::new(m, k, n, c).unwrap();
            assert!(p.overflow_fan() >= p.overflow(), "{m} {k} {n} {c}");
        }
    }

    #[test]
    fn summary_cache_figure_at_four_bits() {
        // [SC]: at k = (m/n) ln 2 the bound is m·(e ln2 / 16)^16 = 1.37e-15·m.
        let (m, n) = (1_000_000u64, 100_000u64);
        let k = 7; // (m/n) ln 2 = 6.93
        let p = CountingParams::new(m, k, n, 4).unwrap();
        let load = 7.0 * n as f64 / m as f64;
        let expect = m as f64 * (std::f64::consts::E * load / 16.0).powi(16);
        assert!((p.overflow_fan() / expect - 1.0).abs() < 1e-12);
        assert!(p.overflow() < p.overflow_fan());
    }

    #[test]
    fn design_meets_both_targets_and_wider_counters_do_not_help() {
        for (fp, n) in [(0.01, 1000), (0.001, 100_000), (1e-6, 10_000)] {
            let d = design(&CountingRequirement::new(fp, n).unwrap()).unwrap();
            assert!(d.metrics.fp <= fp && d.metrics.overflow <= 1e-9, "{fp} {n}");
            if d.params.c() > 1 {
                let narrower =
                    CountingParams::new(d.params.m(), d.params.k(), n, d.params.c() - 1).unwrap();
                assert!(narrower.overflow() > 1e-9);
            }
        }
    }

    #[test]
    fn bad_input_names_the_parameter() {
        assert_eq!(
            CountingParams::new(100, 3, 10, 17).unwrap_err().to_string(),
            "invalid c = 17 (allowed: 1 <= c <= 16)"
        );
        assert!(CountingRequirement::new(0.01, 10)
            .unwrap()
            .with_overflow(2.0)
            .is_err());
    }
}
