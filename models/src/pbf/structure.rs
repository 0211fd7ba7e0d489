//! The binary decompositions behind PBF-1 and PBF-2: levels, filters, and the filters a
//! temporal query probes (Alg. 1 and Alg. 3 [PBF]), computed without materialising a tree.

use crate::error::{check, ModelError};
use serde::Serialize;
use std::ops::RangeInclusive;

/// An aligned binary decomposition of `[1, g·2^(L−1)] ⊇ [1, T]` with leaves of length `g`
/// (Section 4.1 [PBF]).
///
/// Level `ℓ ∈ [0, L−1]` (0 = root) holds intervals of length `g·2^(L−1−ℓ)`; the one at
/// position `c` (0-based) is `[c·len + 1, (c+1)·len]`. Only intervals that start at or
/// before `T` exist. With `g = 1` this is the complete decomposition `B(T)` of Section 4.2,
/// whose level granularities are PBF-2's `g_ℓ = 2^(L−1−ℓ)`.
///
/// # Formula
/// ```text
/// L = ⌈log2 ⌈T/g⌉⌉ + 1                          Section 4.1 [PBF]
/// intervals at level ℓ = ⌈T / (g·2^(L−1−ℓ))⌉   (= 2^ℓ when T/g is a power of two,
///                                                 in total u = 2T/g − 1)
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decomposition {
    horizon: u64,
    granularity: u64,
    levels: u32,
    #[serde(skip)]
    offsets: Vec<u64>,
}

/// One interval of a [`Decomposition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Node {
    /// Level `ℓ` (0 = root).
    pub level: u32,
    /// 0-based position within the level.
    pub pos: u64,
}

/// What a temporal query `q(x, [s, e])` sends to one interval's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "probe", rename_all = "snake_case")]
pub enum Probe {
    /// An interval of the cover `C([s, e])`: inside `[s, e]`, its parent is not.
    Cover {
        /// The interval.
        node: Node,
    },
    /// A leaf that overlaps `[s, e]` without being inside it (PBF-1 with `g > 1`): its
    /// filter is probed, and if it answers yes the `overlap` timestamps are probed in the
    /// fine filter `b_{u+1}` (route 3, Section 4.1 [PBF]).
    Partial {
        /// The leaf.
        node: Node,
        /// First timestamp of `I_o ∩ [s, e]`.
        from: u64,
        /// Last timestamp of `I_o ∩ [s, e]`.
        to: u64,
    },
}

impl Decomposition {
    /// Allowed horizons `T` (up to 2^40 time units).
    pub const HORIZON: RangeInclusive<u64> = 1..=(1 << 40);
    /// Allowed leaf granularities `g` (powers of two).
    pub const GRANULARITY: RangeInclusive<u64> = 1..=(1 << 20);

    /// The decomposition of `[1, T]` with leaves of length `g`.
    ///
    /// # Errors
    /// `horizon` outside [`Self::HORIZON`]; `granularity` not a power of two in
    /// [`Self::GRANULARITY`].
    pub fn new(horizon: u64, granularity: u64) -> Result<Self, ModelError> {
        check::in_range("horizon", horizon, Self::HORIZON)?;
        if !granularity.is_power_of_two() || !Self::GRANULARITY.contains(&granularity) {
            return Err(ModelError::invalid(
                "granularity",
                granularity,
                format!("a power of two from 1 to {}", Self::GRANULARITY.end()),
            ));
        }
        let leaves = horizon.div_ceil(granularity);
        let levels = leaves.next_power_of_two().trailing_zeros() + 1;
        let mut offsets = Vec::with_capacity(levels as usize + 1);
        let mut total = 0;
        for level in 0..levels {
            offsets.push(total);
            total += horizon.div_ceil(granularity << (levels - 1 - level));
        }
        offsets.push(total);
        Ok(Self {
            horizon,
            granularity,
            levels,
            offsets,
        })
    }

    /// The horizon `T`.
    pub fn horizon(&self) -> u64 {
        self.horizon
    }
    /// The leaf granularity `g`.
    pub fn granularity(&self) -> u64 {
        self.granularity
    }
    /// Number of levels `L`.
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// Length of an interval at `level`: `g·2^(L−1−ℓ)`.
    pub fn length(&self, level: u32) -> u64 {
        self.granularity << (self.levels - 1 - level)
    }
    /// Number of intervals at `level` that start in `[1, T]`.
    pub fn count(&self, level: u32) -> u64 {
        self.offsets[level as usize + 1] - self.offsets[level as usize]
    }
    /// Number of intervals, all levels.
    pub fn intervals(&self) -> u64 {
        self.offsets[self.levels as usize]
    }
    /// The interval's timestamps `[first, last]` (the last may lie beyond `T`).
    pub fn span(&self, node: Node) -> (u64, u64) {
        let len = self.length(node.level);
        (node.pos * len + 1, (node.pos + 1) * len)
    }
    /// A dense index of the interval in `0..intervals()`: level by level, root first
    /// (the level order `I_1, I_2, …` of Section 4.1 [PBF], 0-based, without the gaps
    /// of intervals beyond `T`).
    pub fn index(&self, node: Node) -> u64 {
        self.offsets[node.level as usize] + node.pos
    }
    /// The interval at `level` that contains timestamp `t` (`t ≥ 1`).
    pub fn node_of(&self, level: u32, t: u64) -> Node {
        Node {
            level,
            pos: (t - 1) / self.length(level),
        }
    }

    /// Checks a query range `1 ≤ s ≤ e ≤ T`.
    ///
    /// # Errors
    /// `s` or `e` out of range.
    pub fn check_range(&self, s: u64, e: u64) -> Result<(), ModelError> {
        check::in_range("start", s, 1..=self.horizon)?;
        check::in_range("end", e, s..=self.horizon)?;
        Ok(())
    }

    /// Calls `visit` for every probe of `q(x, [s, e])` in left-to-right order: the cover
    /// `C([s, e])` and, for `g > 1`, the at most two leaves that overlap `[s, e]` without
    /// lying inside it. Visits `O(log(T/g))` intervals (Alg. 1 and Alg. 3 [PBF]).
    ///
    /// The caller guarantees `1 ≤ s ≤ e ≤ T` ([`Self::check_range`]).
    pub fn probes(&self, s: u64, e: u64, mut visit: impl FnMut(Probe)) {
        debug_assert!(1 <= s && s <= e && e <= self.horizon);
        self.descend(
            Node { level: 0, pos: 0 },
            s,
            e,
            &mut visit as &mut dyn FnMut(Probe),
        );
    }

    fn descend(&self, node: Node, s: u64, e: u64, visit: &mut dyn FnMut(Probe)) {
        let (a, b) = self.span(node);
        if b < s || a > e {
            return;
        }
        if s <= a && b <= e {
            visit(Probe::Cover { node });
            return;
        }
        if node.level + 1 == self.levels {
            visit(Probe::Partial {
                node,
                from: a.max(s),
                to: b.min(e),
            });
            return;
        }
        let left = Node {
            level: node.level + 1,
            pos: 2 * node.pos,
        };
        self.descend(left, s, e, visit);
        self.descend(
            Node {
                pos: left.pos + 1,
                ..left
            },
            s,
            e,
            visit,
        );
    }

    /// The probes of `q(x, [s, e])` as a vector (see [`Self::probes`]).
    pub fn probe_list(&self, s: u64, e: u64) -> Vec<Probe> {
        let mut out = Vec::new();
        self.probes(s, e, |p| out.push(p));
        out
    }
}

/// Which persistent Bloom filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// PBF-1: one filter per interval of the decomposition with leaves of length `g`,
    /// plus the fine filter `b_{u+1}` over (item, timestamp) pairs (Section 4.1 [PBF]).
    Pbf1,
    /// PBF-2: one filter per level of the complete decomposition, over (item, interval
    /// position) pairs (Section 4.2 [PBF]).
    Pbf2,
}

/// The filters of a PBF-1 or PBF-2 over `[1, T]`, and how queries map onto them.
///
/// Filter indices: PBF-1 numbers its intervals by [`Decomposition::index`] and puts
/// `b_{u+1}` last (index `u`); PBF-2 numbers its levels `0..L`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PbfLayout {
    variant: Variant,
    tree: Decomposition,
}

impl PbfLayout {
    /// PBF-1 over `[1, T]` with leaf granularity `g` (a power of two).
    ///
    /// # Errors
    /// See [`Decomposition::new`].
    pub fn pbf1(horizon: u64, granularity: u64) -> Result<Self, ModelError> {
        Ok(Self {
            variant: Variant::Pbf1,
            tree: Decomposition::new(horizon, granularity)?,
        })
    }

    /// PBF-2 over `[1, T]`: `L = ⌈log2 T⌉ + 1` levels.
    ///
    /// # Errors
    /// See [`Decomposition::new`].
    pub fn pbf2(horizon: u64) -> Result<Self, ModelError> {
        Ok(Self {
            variant: Variant::Pbf2,
            tree: Decomposition::new(horizon, 1)?,
        })
    }

    /// Either variant (`granularity` is ignored by PBF-2, which must be 1 there).
    ///
    /// # Errors
    /// See [`Decomposition::new`]; a granularity other than 1 for PBF-2.
    pub fn new(variant: Variant, horizon: u64, granularity: u64) -> Result<Self, ModelError> {
        match variant {
            Variant::Pbf1 => Self::pbf1(horizon, granularity),
            Variant::Pbf2 if granularity != 1 => Err(ModelError::invalid(
                "granularity",
                granularity,
                "1 for PBF-2 (its level granularities are 2^(L-1-l))",
            )),
            Variant::Pbf2 => Self::pbf2(horizon),
        }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// The decomposition.
    pub fn tree(&self) -> &Decomposition {
        &self.tree
    }
    /// Number of levels `L`.
    pub fn levels(&self) -> u32 {
        self.tree.levels
    }

    /// Most filters a PBF may have where its filters are materialised (per-filter
    /// statistics, an allocation, the reference filter): `2^24`, i.e. PBF-1 with
    /// `T/g` up to about `2^23` (at `g = 1`, 97 days of seconds). PBF-2 has at most 41.
    pub const MAX_FILTERS: u64 = 1 << 24;

    /// Checks that the layout's filters can be materialised ([`Self::MAX_FILTERS`]).
    ///
    /// # Errors
    /// More filters than [`Self::MAX_FILTERS`], named by the horizon.
    pub fn check_materialisable(&self) -> Result<(), ModelError> {
        if self.filters() > Self::MAX_FILTERS {
            return Err(ModelError::invalid(
                "horizon",
                self.tree.horizon,
                format!(
                    "T/g <= {} for PBF-1 (it has about 2T/g filters: {} at g = {}, above the \
                     {} a materialised PBF may have; use a larger granularity, PBF-2, or \
                     partitions of length T)",
                    Self::MAX_FILTERS / 2,
                    self.filters(),
                    self.tree.granularity,
                    Self::MAX_FILTERS
                ),
            ));
        }
        Ok(())
    }

    /// Number of Bloom filters: `u + 1` for PBF-1, `L` for PBF-2.
    pub fn filters(&self) -> u64 {
        match self.variant {
            Variant::Pbf1 => self.tree.intervals() + 1,
            Variant::Pbf2 => u64::from(self.tree.levels),
        }
    }

    /// Index of PBF-1's fine filter `b_{u+1}`; `None` for PBF-2.
    pub fn fine_filter(&self) -> Option<u64> {
        match self.variant {
            Variant::Pbf1 => Some(self.tree.intervals()),
            Variant::Pbf2 => None,
        }
    }

    /// The filter that holds an interval's items: its own (PBF-1) or its level's (PBF-2).
    pub fn filter_of(&self, node: Node) -> u64 {
        match self.variant {
            Variant::Pbf1 => self.tree.index(node),
            Variant::Pbf2 => u64::from(node.level),
        }
    }

    /// Bloom-filter insertions per (item, timestamp) pair: `L + 1` (PBF-1: one per level
    /// and `b_{u+1}`, Alg. 2 [PBF]) or `L` (PBF-2, Alg. 4 [PBF]).
    pub fn insertions_per_pair(&self) -> u64 {
        u64::from(self.tree.levels) + u64::from(self.variant == Variant::Pbf1)
    }

    /// Adds to `counts[i]` the number of membership probes `q(x, [s, e])` sends to filter
    /// `i` when no probe short-circuits (the `f_i` of one query, Section 5.1 [PBF]): one
    /// per cover interval; for PBF-1 one per partially overlapped leaf plus
    /// `|I_o ∩ [s, e]|` probes of `b_{u+1}`.
    ///
    /// `counts` has [`Self::filters`] entries; the range is checked by the caller.
    pub fn add_probe_counts(&self, s: u64, e: u64, counts: &mut [f64]) {
        let fine = self.fine_filter();
        self.tree.probes(s, e, |p| match p {
            Probe::Cover { node } => counts[self.filter_of(node) as usize] += 1.0,
            Probe::Partial { node, from, to } => {
                counts[self.filter_of(node) as usize] += 1.0;
                if let Some(f) = fine {
                    counts[f as usize] += (to - from + 1) as f64;
                }
            }
        });
    }

    /// The false-positive probability of a non-member query `q(x, [s, e])` (x in no
    /// probed filter) given each filter's FP `fp[i]`, under the query algorithm with its
    /// routes (Section 4.1 [PBF]) and independent filters.
    ///
    /// # Formula
    /// ```text
    /// PBF-1: 1 − Π_{I ∈ C} (1 − p_I) · Π_{I_o partial} (1 − p_o·(1 − (1 − p_{u+1})^{|I_o ∩ [s,e]|}))
    /// PBF-2: 1 − Π_{I ∈ C} (1 − p_{ℓ(I)})          Eqs. (6), (9) [PBF] with per-filter rates
    /// ```
    /// The paper's Eq. (6) counts every probe of `b_{u+1}` as if it were always sent; the
    /// route-3 gate (the leaf filter is asked first) makes the true FP smaller.
    /// # Numerics
    /// Accumulates `Σ ln(1 − p)` with `ln_1p` and returns `−expm1(Σ)`.
    pub fn query_fp(&self, s: u64, e: u64, fp: &[f64]) -> f64 {
        let fine = self.fine_filter().map_or(0.0, |f| fp[f as usize]);
        let mut log_ok = 0.0;
        self.tree.probes(s, e, |p| match p {
            Probe::Cover { node } => log_ok += (-fp[self.filter_of(node) as usize]).ln_1p(),
            Probe::Partial { node, from, to } => {
                let p_fine = crate::numeric::one_minus_pow1m(fine, (to - from + 1) as f64);
                log_ok += (-fp[self.filter_of(node) as usize] * p_fine).ln_1p();
            }
        });
        crate::numeric::probability(-log_ok.exp_m1())
    }

    /// The upper-bound form the allocation optimises: every probe counted, none gated.
    ///
    /// # Formula
    /// ```text
    /// 1 − Π_i (1 − p_i)^{f_i(q)}                    Eqs. (6), (9) [PBF]
    /// ```
    pub fn query_fp_ungated(&self, s: u64, e: u64, fp: &[f64]) -> f64 {
        let fine = self.fine_filter().map_or(0.0, |f| fp[f as usize]);
        let mut log_ok = 0.0;
        self.tree.probes(s, e, |p| match p {
            Probe::Cover { node } => log_ok += (-fp[self.filter_of(node) as usize]).ln_1p(),
            Probe::Partial { node, from, to } => {
                log_ok += (-fp[self.filter_of(node) as usize]).ln_1p();
                log_ok += (to - from + 1) as f64 * (-fine).ln_1p();
            }
        });
        crate::numeric::probability(-log_ok.exp_m1())
    }
}
