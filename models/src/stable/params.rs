//! The parameters of an importance-aware filter ([`IbfParams`], [`ImpMapping`]) and
//! how its stable point was obtained ([`StableMethod`]). Shared by the solvers
//! (`ibf`, `minimp`, `counter_stream`), which import it and not each other's types.

use super::chain::CellChain;
use super::importance::ImportanceDist;
use super::policy::{Insert, Policy};
use super::sbf::cell_bits;
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;
use std::ops::RangeInclusive;

/// How Imp-insert turns an importance into a cell value `1..=Max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpMapping {
    /// `min(importance, Max)` (Alg. 2 [SBF] read literally, cells capped at `Max`).
    Cap,
    /// `⌈importance·Max / Z⌉`, `Z` the largest importance: the importance range cut
    /// into `Max` equal steps, as Section 7 [SBF] describes its results ("the variation
    /// of FN in 4 steps ... the four importance values to which the elements lying in
    /// each range are mapped").
    Scale,
}

/// Parameters of an importance-aware filter (or the SBF under the same interface).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbfParams {
    policy: Policy,
    imp_mapping: ImpMapping,
    m: u64,
    k: u32,
    max: u32,
    p: u64,
    counter_bits: u32,
    #[serde(serialize_with = "ser_spec")]
    importance: ImportanceDist,
}

fn ser_spec<S: serde::Serializer>(d: &ImportanceDist, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.spec())
}

impl IbfParams {
    /// Allowed cell counts `m`.
    pub const M: RangeInclusive<u64> = 2..=(1 << 40);
    /// Allowed hash counts.
    pub const K: RangeInclusive<u32> = 1..=64;
    /// Allowed cell maxima.
    pub const MAX: RangeInclusive<u32> = 1..=255;
    /// Allowed widths of the cumulative-importance counter (bits).
    pub const COUNTER_BITS: RangeInclusive<u32> = 1..=12;
    /// Default counter width: 8 bits (saturates at 255).
    pub const COUNTER_BITS_DEFAULT: u32 = 8;

    /// Validates and builds the parameters (counter width [`Self::COUNTER_BITS_DEFAULT`]).
    ///
    /// # Errors
    /// `m`, `k`, `max`, `p` out of range (as [`super::SbfParams::new`]).
    pub fn new(
        policy: Policy,
        m: u64,
        k: u32,
        max: u32,
        p: u64,
        importance: ImportanceDist,
    ) -> Result<Self, ModelError> {
        super::SbfParams::new(m, k, max, p)?;
        Ok(Self {
            policy,
            m,
            k,
            max,
            p,
            counter_bits: Self::COUNTER_BITS_DEFAULT,
            importance,
            imp_mapping: ImpMapping::Cap,
        })
    }

    /// The Stable Bloom filter `s` as the policy [`Policy::Sbf`] (every item of
    /// importance 1: the SBF ignores it), for the shared chains and reference filter.
    pub fn sbf(s: &super::SbfParams) -> Self {
        Self {
            policy: Policy::Sbf,
            m: s.m(),
            k: s.k(),
            max: s.max(),
            p: s.p(),
            counter_bits: Self::COUNTER_BITS_DEFAULT,
            importance: ImportanceDist::linear(1, 1).expect("the law 1..=1 is valid"),
            imp_mapping: ImpMapping::Cap,
        }
    }

    /// Sets how Imp-insert maps importance to a cell value (default [`ImpMapping::Cap`]).
    pub fn with_imp_mapping(mut self, mapping: ImpMapping) -> Self {
        self.imp_mapping = mapping;
        self
    }

    /// The importance-to-value mapping of Imp-insert.
    pub fn imp_mapping(&self) -> ImpMapping {
        self.imp_mapping
    }

    /// Sets the width of the cumulative-importance counter.
    ///
    /// # Errors
    /// Outside [`Self::COUNTER_BITS`].
    pub fn with_counter_bits(mut self, bits: u32) -> Result<Self, ModelError> {
        self.counter_bits = check::in_range("counter_bits", bits, Self::COUNTER_BITS)?;
        Ok(self)
    }

    /// The policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }
    /// Cells `m`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Hashes `K`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Cell maximum `Max`.
    pub fn max(&self) -> u32 {
        self.max
    }
    /// Decrements per insertion `P`.
    pub fn p(&self) -> u64 {
        self.p
    }
    /// Width of the cumulative-importance counter (used only by policies that track it).
    pub fn counter_bits(&self) -> u32 {
        self.counter_bits
    }
    /// The saturation value `C = 2^b − 1` of the counter; 0 if the policy keeps none.
    pub fn counter_cap(&self) -> u32 {
        if self.policy.tracks_cumulative() {
            (1u32 << self.counter_bits) - 1
        } else {
            0
        }
    }
    /// The importance distribution.
    pub fn importance(&self) -> &ImportanceDist {
        &self.importance
    }
    /// The value an insertion of importance `imp` writes.
    pub fn insert_value(&self, imp: u32) -> u32 {
        match self.policy.insert() {
            Insert::Max => self.max,
            Insert::Importance => match self.imp_mapping {
                ImpMapping::Cap => imp.min(self.max),
                ImpMapping::Scale => {
                    let z = u64::from(self.importance.hi());
                    let v = (u64::from(imp) * u64::from(self.max)).div_ceil(z);
                    (v as u32).clamp(1, self.max)
                }
            },
        }
    }
    /// Bits per cell: `⌈log2(Max+1)⌉`, plus the counter for policies that keep one.
    pub fn bits_per_cell(&self) -> u32 {
        cell_bits(self.max)
            + if self.policy.tracks_cumulative() {
                self.counter_bits
            } else {
                0
            }
    }
    /// Memory `m · bits_per_cell`.
    pub fn memory_bits(&self) -> u64 {
        self.m * u64::from(self.bits_per_cell())
    }

    /// The same filter under another policy.
    pub fn with_policy(&self, policy: Policy) -> Self {
        Self {
            policy,
            ..self.clone()
        }
    }

    pub(super) fn chain(&self, dec: impl Fn(u32, u32) -> f64) -> CellChain {
        let cap = self.counter_cap();
        let mut sets: Vec<(u32, u32, f64)> = Vec::new();
        for (imp, w) in self.importance.iter().filter(|&(_, w)| w > 0.0) {
            let v = self.insert_value(imp);
            if cap == 0 {
                // Untracked: only the value matters; merge equal values.
                match sets.iter_mut().find(|s| s.0 == v) {
                    Some(s) => s.2 += w,
                    None => sets.push((v, 0, w)),
                }
            } else {
                sets.push((v, imp, w));
            }
        }
        let mut chain = CellChain {
            max: self.max,
            cap,
            a: f64::from(self.k) / self.m as f64,
            sets,
            dec: Vec::new(),
        };
        chain.dec = (0..chain.states())
            .map(|s| {
                let (v, c) = chain.decode(s);
                if v == 0 {
                    0.0
                } else {
                    probability(dec(v, c))
                }
            })
            .collect();
        chain
    }
}

/// How a stable point was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum StableMethod {
    /// The policy is local to a cell: the cell chain is exact (given `P` distinct random
    /// decrements and `K` distinct cells per insertion).
    ExactChain,
    /// Probabilistic deletion: a cell of weight `w` (1/c or 1/v) is decremented with
    /// probability `min(1, P·w / (m·W̄))`, `W̄` the stationary mean weight of non-zero
    /// cells, solved as a fixed point.
    MeanFieldWeight {
        /// The fixed point `W̄`.
        mean_weight: f64,
        /// Brent iterations.
        iterations: u64,
    },
    /// MinImp deletion: a cell at counter `c` is decremented with the probability that
    /// it ranks among the `P` least counters of the non-zero cells, the numbers of cells
    /// below and at `c` taken as Poisson; the fixed point of this rank map is found by a
    /// damped iteration and polished by Anderson acceleration (module `minimp`). Used
    /// when no insertion saturates an empty cell's counter and `m ≤ 2^15`.
    MeanFieldRank {
        /// Rank-map evaluations.
        iterations: u64,
        /// `max_c |F(d)(c) − d(c)|` of the returned decrement law `d` under the rank map
        /// `F`: below 1e-10 when the iteration converged (m up to about 4096); where it
        /// circles the equilibrium instead (IBF4 at m = 2^14: 4e-5), the residual of the
        /// average of its later iterates, accepted up to 0.05.
        residual: f64,
    },
    /// MinImp deletion, the `m → ∞` limit (module `minimp`): every cell whose counter is
    /// below the cap `C` is decremented at every step, a saturated cell with probability
    /// `saturated_rate` per insertion, chosen so that the expected decrements are `P`.
    /// Used when insertions saturate counters (where it is the rank map's fixed point),
    /// and otherwise for `m > 2^15` (error on the zero fraction 0.2% at 2^16, 0.04% at
    /// 2^20, measured).
    ThresholdLimit {
        /// Decrement probability per insertion of a cell at the counter cap (0 when no
        /// single insertion saturates a counter: those cells are then never reached).
        saturated_rate: f64,
        /// Brent iterations.
        iterations: u64,
    },
}
