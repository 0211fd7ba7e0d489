//! Reference recycling Bloom filter (RBF), one- and two-phase, σ- or N-bounded.
//!
//! One `test-and-insert` operation per arrival ([`RbfFilter::offer_u64`]):
//! 1. the message's `k` positions are computed (colliding: double hashing as in every
//!    reference filter; distinct: the same sequence, skipping repeats);
//! 2. it is *seen* if all positions are set in the active filter or in the frozen one;
//! 3. it is inserted into the active filter (two-phase filters always insert, so a
//!    message found only in the frozen filter is kept for another cycle). If that would
//!    take the active filter past σ bits (σ-bounded), the filter recycles *instead*:
//!    one phase clears it; two phases clear the frozen filter and swap the roles, so the
//!    new frozen filter is the active state before the overflowing message. A retaining
//!    RBF then inserts the message into the fresh active filter; a non-retaining one drops
//!    it. N-bounded: after the `N`-th bit-setting message of a cycle the filter recycles.
//!
//! # Example
//! A one-phase RBF of 1000 bits, k = 4, recycling above σ = 600 bits, on a stream of
//! distinct messages: every cycle takes at least `min_messages` of them, and the
//! long-run fraction reported as seen is the chain's f_σ¹ (Eq. (18) [RBF], 0.0349).
//! ```
//! use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
//! use bfopt_validation::filters::rbf::{RbfConfig, RbfFilter};
//! let p = RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::NonRetaining)?;
//! let mut f = RbfFilter::new(RbfConfig::from_params(&p), 7)?;
//! let (mut seen, mut cycles, mut in_cycle, mut shortest) = (0u64, 0u64, 0u64, u64::MAX);
//! let n = 200_000u64;
//! for key in 0..n {
//!     let o = f.offer_u64(key);
//!     seen += u64::from(o.seen);
//!     in_cycle += 1;
//!     if o.recycled {
//!         shortest = shortest.min(in_cycle);
//!         (cycles, in_cycle) = (cycles + 1, 0);
//!     }
//! }
//! assert!(shortest >= p.min_messages() && cycles > 800); // about 230 per cycle
//! let model = p.metrics(Method::Exact)?.fp_avg;
//! let measured = seen as f64 / n as f64;
//! assert!((measured - model).abs() < 0.004, "{measured} vs {model}");
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```

use super::BitVec;
use crate::hash::{HashPair, HashScheme};
use bfopt_models::error::{check, ModelError};
use bfopt_models::rbf::{Hashing, RbfParams, Recycling};
use serde::Serialize;

/// When an RBF recycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// When more than σ bits would be set.
    Bits(u64),
    /// After `N` bit-setting messages.
    Messages(u64),
}

/// The shape of a reference RBF.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfConfig {
    /// Bits per filter `M`.
    pub m: u64,
    /// Hashes `k`.
    pub k: u32,
    /// Recycle rule.
    pub bound: Bound,
    /// 1 or 2 filters.
    pub phases: u8,
    /// Colliding or distinct positions.
    pub hashing: Hashing,
    /// Retaining or not (σ-bounded only; N-bounded filters drop nothing).
    pub recycling: Recycling,
}

impl RbfConfig {
    /// The σ-bounded filter of model parameters.
    pub fn from_params(p: &RbfParams) -> Self {
        Self {
            m: p.m(),
            k: p.k(),
            bound: Bound::Bits(p.sigma()),
            phases: p.phases(),
            hashing: p.hashing(),
            recycling: p.recycling(),
        }
    }

    /// Checks the shape.
    ///
    /// # Errors
    /// `m` below 2, `k` outside 1..=64 (or above `m` with distinct hashes), `phases`
    /// outside 1..=2, σ outside `k ≤ σ < M`, `N` = 0.
    pub fn validate(&self) -> Result<(), ModelError> {
        check::in_range("bits", self.m, 2..=(1u64 << 40))?;
        check::in_range("k", self.k, RbfParams::K)?;
        check::in_range("phases", self.phases, RbfParams::PHASES)?;
        if u64::from(self.k) >= self.m {
            return Err(ModelError::invalid(
                "k",
                self.k,
                format!("k < M = {}", self.m),
            ));
        }
        match self.bound {
            Bound::Bits(s) if s < u64::from(self.k) || s >= self.m => Err(ModelError::invalid(
                "sigma",
                s,
                format!("k = {} <= sigma < M = {}", self.k, self.m),
            )),
            Bound::Messages(0) => Err(ModelError::invalid("n", 0, "n >= 1")),
            _ => Ok(()),
        }
    }
}

/// What one arrival did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    /// All positions were set in the active filter or the frozen one.
    pub seen: bool,
    /// The active filter recycled at this arrival.
    pub recycled: bool,
    /// The message is held by the (new) active filter after this arrival.
    pub held: bool,
}

/// A recycling Bloom filter.
#[derive(Debug, Clone)]
pub struct RbfFilter {
    cfg: RbfConfig,
    filters: [BitVec; 2],
    ones: [u64; 2],
    messages: [u64; 2],
    active: usize,
    scheme: HashScheme,
    pos: Vec<u64>,
}

impl RbfFilter {
    /// An empty filter.
    ///
    /// # Errors
    /// As [`RbfConfig::validate`].
    pub fn new(cfg: RbfConfig, seed: u64) -> Result<Self, ModelError> {
        cfg.validate()?;
        let second = if cfg.phases == 2 { cfg.m } else { 0 };
        Ok(Self {
            cfg,
            filters: [BitVec::zeros(cfg.m), BitVec::zeros(second)],
            ones: [0; 2],
            messages: [0; 2],
            active: 0,
            scheme: HashScheme::new(seed),
            pos: Vec::with_capacity(cfg.k as usize),
        })
    }

    /// Bits set in the active filter.
    pub fn active_ones(&self) -> u64 {
        self.ones[self.active]
    }

    /// Bits set in the frozen filter (0 with one phase).
    pub fn frozen_ones(&self) -> u64 {
        if self.cfg.phases == 2 {
            self.ones[1 - self.active]
        } else {
            0
        }
    }

    /// The message's positions into `self.pos`.
    fn positions(&mut self, h: HashPair) {
        let (k, m) = (self.cfg.k as usize, self.cfg.m);
        self.pos.clear();
        match self.cfg.hashing {
            Hashing::Colliding => self.pos.extend(h.indices(self.cfg.k, m)),
            Hashing::Distinct => {
                // The first k distinct values of the index sequence: sampling without
                // replacement. A degenerate sequence (possible only for tiny M) falls back
                // to the next free position.
                let mut seq = h.indices(u32::MAX, m);
                let mut tries = 0;
                while self.pos.len() < k {
                    tries += 1;
                    let x = match seq.next() {
                        Some(x) if tries <= 64 * k => x,
                        _ => {
                            let mut x = self.pos.last().map_or(0, |&p| (p + 1) % m);
                            while self.pos.contains(&x) {
                                x = (x + 1) % m;
                            }
                            x
                        }
                    };
                    if !self.pos.contains(&x) {
                        self.pos.push(x);
                    }
                }
            }
        }
    }

    /// Test-and-insert of a 64-bit key.
    pub fn offer_u64(&mut self, key: u64) -> Offer {
        let h = self.scheme.hash_u64(key);
        self.offer_hash(h)
    }

    /// Whether a key is reported as seen, without inserting it.
    pub fn contains_u64(&mut self, key: u64) -> bool {
        let h = self.scheme.hash_u64(key);
        self.positions(h);
        self.seen()
    }

    fn seen(&self) -> bool {
        let a = self.active;
        let in_active = self.pos.iter().all(|&p| self.filters[a].get(p));
        in_active || (self.cfg.phases == 2 && self.pos.iter().all(|&p| self.filters[1 - a].get(p)))
    }

    /// Distinct positions of `self.pos` not set in the active filter.
    fn new_bits(&self) -> u64 {
        let a = self.active;
        let mut n = 0;
        for (j, &p) in self.pos.iter().enumerate() {
            if !self.filters[a].get(p) && !self.pos[..j].contains(&p) {
                n += 1;
            }
        }
        n
    }

    fn set_all(&mut self) {
        let a = self.active;
        for &p in &self.pos {
            if !self.filters[a].get(p) {
                self.filters[a].set(p);
                self.ones[a] += 1;
            }
        }
    }

    fn recycle(&mut self) {
        if self.cfg.phases == 2 {
            self.active = 1 - self.active;
        }
        let a = self.active;
        self.filters[a].clear_all();
        self.ones[a] = 0;
        self.messages[a] = 0;
    }

    /// Test-and-insert by a precomputed hash.
    pub fn offer_hash(&mut self, h: HashPair) -> Offer {
        self.positions(h);
        let seen = self.seen();
        let d = self.new_bits();
        let a = self.active;
        match self.cfg.bound {
            Bound::Bits(sigma) => {
                if self.ones[a] + d > sigma {
                    self.recycle();
                    let keep = self.cfg.recycling == Recycling::Retaining;
                    if keep {
                        self.set_all();
                        self.messages[self.active] = 1;
                    }
                    return Offer {
                        seen,
                        recycled: true,
                        held: keep,
                    };
                }
                self.set_all();
                if d > 0 {
                    self.messages[a] += 1;
                }
                Offer {
                    seen,
                    recycled: false,
                    held: true,
                }
            }
            Bound::Messages(n) => {
                self.set_all();
                if d > 0 {
                    self.messages[a] += 1;
                    if self.messages[a] >= n {
                        self.recycle();
                        return Offer {
                            seen,
                            recycled: true,
                            held: self.cfg.phases == 2,
                        };
                    }
                }
                Offer {
                    seen,
                    recycled: false,
                    held: true,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(bound: Bound, phases: u8, hashing: Hashing, recycling: Recycling) -> RbfConfig {
        RbfConfig {
            m: 1000,
            k: 4,
            bound,
            phases,
            hashing,
            recycling,
        }
    }

    #[test]
    fn never_exceeds_sigma_and_counts_bits_exactly() {
        for hashing in [Hashing::Colliding, Hashing::Distinct] {
            for phases in [1, 2] {
                let mut f = RbfFilter::new(
                    cfg(Bound::Bits(300), phases, hashing, Recycling::Retaining),
                    1,
                )
                .unwrap();
                let mut recycles = 0;
                for x in 0..10_000u64 {
                    recycles += u64::from(f.offer_u64(x).recycled);
                    assert!(f.active_ones() <= 300);
                    let a = f.active;
                    assert_eq!(f.filters[a].count_ones(), f.ones[a]);
                }
                assert!(recycles > 50, "{recycles}");
            }
        }
    }

    #[test]
    fn distinct_positions_are_distinct() {
        let mut f = RbfFilter::new(
            RbfConfig {
                m: 8,
                k: 7,
                bound: Bound::Bits(7),
                phases: 1,
                hashing: Hashing::Distinct,
                recycling: Recycling::NonRetaining,
            },
            3,
        )
        .unwrap();
        for x in 0..1000u64 {
            f.positions(f.scheme.hash_u64(x));
            let mut p = f.pos.clone();
            p.sort_unstable();
            p.dedup();
            assert_eq!(p.len(), 7);
        }
    }

    #[test]
    fn two_phase_remembers_the_previous_cycle() {
        let mut f = RbfFilter::new(
            cfg(
                Bound::Bits(200),
                2,
                Hashing::Colliding,
                Recycling::NonRetaining,
            ),
            5,
        )
        .unwrap();
        let mut x = 0u64;
        while !f.offer_u64(x).recycled {
            x += 1;
        }
        // Everything inserted before the recycle is still seen (now in the frozen filter).
        assert!((0..x).all(|y| f.contains_u64(y)));
    }

    #[test]
    fn n_bounded_recycles_after_n_bit_setting_messages() {
        let mut f = RbfFilter::new(
            cfg(
                Bound::Messages(10),
                1,
                Hashing::Colliding,
                Recycling::NonRetaining,
            ),
            2,
        )
        .unwrap();
        let recycled: Vec<bool> = (0..20u64).map(|x| f.offer_u64(x).recycled).collect();
        assert!(recycled[9] && recycled[19]);
        assert_eq!(recycled.iter().filter(|&&r| r).count(), 2);
    }

    #[test]
    fn invalid_shapes_are_rejected() {
        let c = cfg(
            Bound::Bits(1000),
            1,
            Hashing::Colliding,
            Recycling::Retaining,
        );
        assert!(RbfFilter::new(c, 0).is_err());
        let c = cfg(
            Bound::Messages(0),
            1,
            Hashing::Colliding,
            Recycling::Retaining,
        );
        assert!(RbfFilter::new(c, 0).is_err());
    }
}
