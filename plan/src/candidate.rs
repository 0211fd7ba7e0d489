//! One family's proposal for a requirement, in the terms every family shares.

use bfopt_validation::agree::Check;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// The parameters of a design, as numbers under named keys (serialized flat:
/// `{"m": 9585059, "k": 7}`). Symbols follow the papers; where two papers use the same
/// letter for different things, the key is spelled out (`padding` of the BTBF,
/// `decrements` of the SBF).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Params {
    /// Classic Bloom filter: `m` bits, `k` hashes; `block_bits` for the blocked layout.
    Classic {
        /// Bits.
        m: u64,
        /// Hash functions.
        k: u32,
        /// Block size of the blocked layout, bits.
        #[serde(skip_serializing_if = "Option::is_none")]
        block_bits: Option<u64>,
    },
    /// A ring of `r` classic filters, each holding a generation of `g` insertions.
    Rotating {
        /// Filters in the ring.
        r: u32,
        /// Insertions per generation (per filter).
        g: u64,
        /// Bits per filter.
        m: u64,
        /// Hash functions per filter.
        k: u32,
        /// Block size of blocked filters, bits.
        #[serde(skip_serializing_if = "Option::is_none")]
        block_bits: Option<u64>,
    },
    /// A queue of fingerprints with counts.
    FingerprintQueue {
        /// Bits per fingerprint.
        fingerprint_bits: u32,
        /// Bits per count.
        counter_bits: u32,
        /// Table slots.
        slots: u64,
    },
    /// Age-partitioned Bloom filter (blocked: `block_bits`, `block_hashes`).
    Apbf {
        /// Slices set per insertion.
        k: u32,
        /// Extra slices.
        l: u32,
        /// Insertions per generation.
        g: u64,
        /// Bits per slice.
        slice_bits: u64,
        /// APBBF block size, bits.
        #[serde(skip_serializing_if = "Option::is_none")]
        block_bits: Option<u32>,
        /// APBBF bits set per block.
        #[serde(skip_serializing_if = "Option::is_none")]
        block_hashes: Option<u32>,
    },
    /// Recycling Bloom filter: `filters` filters of `m` bits, recycled after `sigma`
    /// set bits.
    Rbf {
        /// Bits per filter.
        m: u64,
        /// Filters (phases).
        filters: u32,
        /// Hash functions.
        k: u32,
        /// Set bits that trigger a recycle (σ).
        sigma: u64,
    },
    /// Stable or importance-aware Bloom filter.
    Stable {
        /// Cells.
        m: u64,
        /// Cells per item (`K`).
        k: u32,
        /// Cell maximum (`Max`).
        max: u32,
        /// Decrements per insertion (`P` of [SBF]).
        decrements: u64,
        /// Bits of the cumulative-importance counter (IBF2-IBF5).
        #[serde(skip_serializing_if = "Option::is_none")]
        counter_bits: Option<u32>,
    },
    /// Block timing Bloom filter.
    Btbf {
        /// Timers.
        m: u64,
        /// Hash functions.
        k: u32,
        /// Bits per timer.
        bpt: u32,
        /// Insertions per block (`B`).
        block_size: u64,
        /// Padding timers scanned per insertion (`P` of [TBF]).
        padding: u64,
    },
    /// Generalized Bloom filter.
    Gbf {
        /// Bits.
        m: u64,
        /// Hashes that reset a bit.
        k0: u32,
        /// Hashes that set a bit.
        k1: u32,
    },
    /// A PBF tree (PBF-2 at `granularity` 1, PBF-1 above), bits split evenly.
    PbfTree {
        /// Timestamps per leaf of PBF-1 (1: PBF-2).
        granularity: u64,
        /// Filters each pair enters.
        filters_per_pair: u64,
        /// Most filters a query probes.
        max_probes: u64,
        /// FP of each probed filter.
        per_probe_fp: f64,
    },
    /// A scalable Bloom filter (Almeida et al. 2007): links of `n0·s^i` items at
    /// `p0·r^i`, as many as `max_items` needs.
    Scalable {
        /// First-link capacity `N0`.
        n0: u64,
        /// First-link FP `P0`.
        p0: f64,
        /// Tightening ratio `r`.
        r: f64,
        /// Growth `s`.
        s: f64,
        /// Links allocated at the most items.
        links: usize,
        /// Bits allocated while it holds the initial capacity (its first link).
        bits_at_initial: u64,
    },
    /// One filter of (item, timestamp) pairs, probed once per timestamp of a query.
    PairFilter {
        /// Bits.
        m: u64,
        /// Probes per query (`|q|`).
        probes: u64,
    },
    /// Binary fuse filter (static): `f`-bit fingerprints in `slots` slots.
    Fuse {
        /// Fingerprint bits.
        f: u32,
        /// Slots (fingerprints stored).
        slots: u64,
    },
    /// Cuckoo filter: `buckets` buckets of `b` slots of `f`-bit fingerprints.
    Cuckoo {
        /// Fingerprint bits.
        f: u32,
        /// Slots per bucket.
        b: u32,
        /// Buckets.
        buckets: u64,
    },
    /// Counting Bloom filter: `m` counters of `c` bits, `k` hashes.
    Counting {
        /// Counters.
        m: u64,
        /// Hash functions.
        k: u32,
        /// Bits per counter.
        c: u32,
    },
}

impl fmt::Display for Params {
    /// The compact form of the table: `m=9585059 k=7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let block = |b: Option<u64>| b.map_or(String::new(), |b| format!(" B={b}"));
        match *self {
            Params::Classic { m, k, block_bits } => write!(f, "m={m} k={k}{}", block(block_bits)),
            Params::Rotating {
                r,
                g,
                m,
                k,
                block_bits,
            } => write!(f, "r={r} g={g} m={m} k={k}{}", block(block_bits)),
            Params::FingerprintQueue {
                fingerprint_bits,
                counter_bits,
                slots,
            } => write!(
                f,
                "fp={fingerprint_bits}b count={counter_bits}b slots={slots}"
            ),
            Params::Apbf {
                k,
                l,
                g,
                block_bits,
                block_hashes,
                ..
            } => {
                write!(f, "k={k} l={l} g={g}")?;
                if let (Some(bb), Some(b)) = (block_bits, block_hashes) {
                    write!(f, " B={bb} b={b}")?;
                }
                Ok(())
            }
            Params::Rbf {
                m,
                filters,
                k,
                sigma,
            } => write!(f, "{filters}x m={m} k={k} sigma={sigma}"),
            Params::Stable {
                m,
                k,
                max,
                decrements,
                counter_bits,
            } => {
                write!(f, "m={m} K={k} Max={max} dec={decrements}")?;
                if let Some(c) = counter_bits {
                    write!(f, " ctr={c}b")?;
                }
                Ok(())
            }
            Params::Btbf {
                m,
                k,
                bpt,
                block_size,
                padding,
            } => write!(f, "m={m} k={k} bpt={bpt} B={block_size} pad={padding}"),
            Params::Gbf { m, k0, k1 } => write!(f, "m={m} k0={k0} k1={k1}"),
            Params::PbfTree {
                granularity,
                filters_per_pair,
                max_probes,
                ..
            } => write!(
                f,
                "g={granularity} filters/pair={filters_per_pair} probes<={max_probes}"
            ),
            Params::PairFilter { m, probes } => write!(f, "m={m} probes={probes}"),
            Params::Scalable {
                p0, r, s, links, ..
            } => write!(f, "P0={p0:.3e} r={r} s={s:.3} links={links}"),
            Params::Fuse { f: bits, slots } => write!(f, "f={bits} slots={slots}"),
            Params::Cuckoo {
                f: bits,
                b,
                buckets,
            } => write!(f, "f={bits} b={b} buckets={buckets}"),
            Params::Counting { m, k, c } => write!(f, "m={m} k={k} c={c}"),
        }
    }
}

/// What a design's FP figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FpKind {
    /// The exact FP law of the layout.
    Exact,
    /// The usual formula `(1 − (1 − 1/m)^(kn))^k` (the exact law is too costly here).
    UsualFormula,
    /// The worst case over the structure's cycle (just before a shift or rotation).
    WorstCase,
    /// The worst case on a stream with the requirement's duplicate rate.
    WorstCaseWithRepeats,
    /// The worst case over the block offset, on a stream of distinct items.
    WorstBlockOffset,
    /// The long-run average over the recycling cycle (not a worst case).
    LongRunAverage,
    /// At the stable point of a decaying filter.
    StablePoint,
    /// For an item never inserted (items just past the window see more).
    NeverInserted,
    /// A bound for the worst query of length `|q|`.
    WorstQuery,
    /// Exact for a query of length `|q|`.
    ExactQuery,
    /// Of the standard answer; the inferential answer minimises the expected penalty.
    StandardAnswer,
    /// An upper bound on the FP at the design's load (the cuckoo filter's
    /// `1 − (1 − q)^(2bα)`, which bounds `E[1 − (1 − q)^N]` by Jensen, Section 5.1 [CF]).
    UpperBound,
}

impl FpKind {
    /// At most 10 characters, for the table.
    pub fn short(self) -> &'static str {
        match self {
            FpKind::Exact => "exact",
            FpKind::UsualFormula => "formula",
            FpKind::WorstCase => "worst",
            FpKind::WorstCaseWithRepeats => "worst+rep",
            FpKind::WorstBlockOffset => "worst",
            FpKind::LongRunAverage => "average",
            FpKind::StablePoint => "stable",
            FpKind::NeverInserted => "new item",
            FpKind::WorstQuery => "worst q",
            FpKind::ExactQuery => "exact q",
            FpKind::StandardAnswer => "standard",
            FpKind::UpperBound => "upper",
        }
    }

    /// In words.
    pub fn describe(self) -> &'static str {
        match self {
            FpKind::Exact => "exact law of the layout",
            FpKind::UsualFormula => {
                "the usual formula (1 − (1 − 1/m)^(kn))^k (the exact law is too costly here)"
            }
            FpKind::WorstCase => "worst case over the cycle (just before a shift or rotation)",
            FpKind::WorstCaseWithRepeats => "worst case on a stream with the duplicate rate",
            FpKind::WorstBlockOffset => "worst case over the block offset (distinct stream)",
            FpKind::LongRunAverage => "long-run average over the recycling cycle",
            FpKind::StablePoint => "at the stable point",
            FpKind::NeverInserted => {
                "for a never-inserted item (items just past the window: higher)"
            }
            FpKind::WorstQuery => "bound for the worst query of length |q|",
            FpKind::ExactQuery => "exact for a query of length |q|",
            FpKind::StandardAnswer => {
                "of the standard answer; the inferential answer minimises the expected penalty"
            }
            FpKind::UpperBound => {
                "an upper bound at the design load (Jensen over the bucket loads)"
            }
        }
    }

    /// Whether the figure bounds every moment (not an average or a steady state).
    pub fn is_bound(self) -> bool {
        matches!(
            self,
            FpKind::Exact
                | FpKind::WorstCase
                | FpKind::WorstCaseWithRepeats
                | FpKind::WorstBlockOffset
                | FpKind::WorstQuery
                | FpKind::ExactQuery
                | FpKind::UpperBound
        )
    }
}

/// What a design guarantees about false negatives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FalseNegatives {
    /// Never: a static set or temporal filter.
    None,
    /// None for items inside the window.
    NoneInWindow,
    /// Some window items are forgotten; `rate` bounds the measure named by `of`.
    AtMost {
        /// The allowance the design meets.
        rate: f64,
        /// What the rate measures.
        of: &'static str,
    },
    /// The inferential answer says "no" when its expected penalty is lower.
    ByChoice,
}

impl FalseNegatives {
    /// At most 8 characters, for the table.
    pub fn short(&self) -> String {
        match self {
            FalseNegatives::None => "none".into(),
            FalseNegatives::NoneInWindow => "none".into(),
            FalseNegatives::AtMost { rate, .. } => format!("<={rate}"),
            FalseNegatives::ByChoice => "chosen".into(),
        }
    }
}

/// What an access is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessUnit {
    /// Random bit (or cell) probes, each a potential cache miss.
    BitProbes,
    /// Cache lines (blocked layouts: all bits of an operation in one line per block).
    CacheLines,
}

/// One simulation request: seed, per-check confidence and how large.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimRun {
    /// Base seed.
    pub seed: u64,
    /// Two-sided confidence of each check's interval.
    pub confidence: f64,
    /// Epoch multiplier: 1 at the quick level, 4 at the full level.
    pub scale: u64,
}

/// Simulates a candidate's reference implementation.
#[derive(Clone)]
pub struct Validator(pub(crate) Arc<dyn Fn(SimRun) -> Vec<Check> + Send + Sync>);

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Validator")
    }
}

impl Validator {
    /// Runs the simulation.
    pub fn run(&self, run: SimRun) -> Vec<Check> {
        (self.0)(run)
    }
}

/// One family's proposal.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// The family (`classic`, `baseline`, `apbf`, `rbf`, `stable`, `timing`, `gbf`,
    /// `pbf`).
    pub family: &'static str,
    /// The structure: `classic/standard`, `rotating/blocked`, `apbf`, ...
    pub design: String,
    /// Its parameters.
    pub params: Params,
    /// Total memory, bits.
    pub bits: u64,
    /// Bits per item of the requirement (items, window insertions or pairs).
    pub bits_per_item: f64,
    /// How far from the limit: `bits_per_item / log2(1/ε)` for the FP target `ε`. A
    /// static set of `n` items at FP `ε` needs at least `n·log2(1/ε)` bits (Carter et al.
    /// 1978); a sliding window of `W` items needs `W·log2(1/ε)` to leading order, which
    /// Naor and Yogev's sliding Bloom filter (2015) achieves up to lower-order terms.
    pub times_limit: f64,
    /// Memory accesses per insertion.
    pub accesses_insert: f64,
    /// Expected memory accesses per query that returns false.
    pub accesses_query: f64,
    /// What one access is.
    pub access_unit: AccessUnit,
    /// The false-negative guarantee.
    pub false_negatives: FalseNegatives,
    /// Items beyond the window still stored at the worst moment (0 for sets).
    pub slack: u64,
    /// Peak NPWS (Section 5.2 [APBF]) of a window design: the items past the window
    /// that are still reported, weighted by their reporting probability, over `W`.
    /// `None` where it is not modelled (such designs never pass an NPWS budget).
    pub npws: Option<f64>,
    /// Predicted FP.
    pub fp: f64,
    /// What the FP figure is.
    pub fp_kind: FpKind,
    /// When to prefer this design, and what its figures assume.
    pub notes: Vec<String>,
    /// Why `Plan::validate` skips this design (too large to simulate in seconds); null
    /// when it simulates it.
    pub not_simulated: Option<String>,
    #[serde(skip)]
    pub(crate) validator: Option<Validator>,
}

impl Candidate {
    /// Counts the memory against the requirement: [`Self::bits_per_item`] over its items
    /// (window insertions, pairs, the most items of a growing set) and
    /// [`Self::times_limit`], bits per item over `log2(1/ε)` at its FP target `ε`.
    pub(crate) fn count_against(&mut self, req: &crate::Requirement) {
        self.bits_per_item = self.bits as f64 / req.items() as f64;
        self.times_limit = self.bits_per_item / -req.fp().log2();
    }

    /// The larger of the accesses per insertion and per negative query.
    pub fn worst_accesses(&self) -> f64 {
        self.accesses_insert.max(self.accesses_query)
    }

    /// Its reference simulation, if it is small enough to run in seconds.
    pub fn validator(&self) -> Option<&Validator> {
        self.validator.as_ref()
    }
}
