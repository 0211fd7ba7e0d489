//! The persistent Bloom filter (PBF-1, PBF-2): sizing, growth, insertion, queries.

use super::sub_filter::{pair_hash, SubFilter};
use crate::hash::{HashPair, HashScheme};
use crate::workload::mix;
use bfopt_models::pbf::{Decomposition, PbfLayout, Probe, Variant};
use bfopt_models::ModelError;

/// How a PBF's filters are sized.
#[derive(Debug, Clone, PartialEq)]
pub enum PbfSizing {
    /// Every filter has `bits` bits and `hashes` hashes; the horizon grows without bound.
    Uniform {
        /// Bits per filter.
        bits: u64,
        /// Hashes per filter.
        hashes: u32,
    },
    /// Per-filter bits and hashes over a fixed layout (indices as in [`PbfLayout`]).
    Allocated {
        /// The layout (variant, horizon, granularity).
        layout: PbfLayout,
        /// Bits per filter.
        bits: Vec<u64>,
        /// Hashes per filter.
        hashes: Vec<u32>,
    },
}

/// A persistent Bloom filter (PBF-1 or PBF-2).
#[derive(Debug, Clone, PartialEq)]
pub struct PbfFilter {
    pub(super) variant: Variant,
    pub(super) granularity: u64,
    pub(super) sizing: PbfSizing,
    pub(super) scheme: HashScheme,
    pub(super) seed: u64,
    /// By height (0 = leaves): PBF-1 one filter per interval position (created on first
    /// use), PBF-2 one filter at position 0.
    pub(super) heights: Vec<Vec<Option<SubFilter>>>,
    /// PBF-1's `b_{u+1}` over (item, timestamp) pairs.
    pub(super) fine: Option<SubFilter>,
    /// Largest timestamp inserted.
    pub(super) now: u64,
}

impl PbfFilter {
    /// An empty PBF.
    ///
    /// # Errors
    /// A granularity that is not a power of two; PBF-2 with `g ≠ 1`; allocated sizes whose
    /// lists do not match the layout.
    pub fn new(
        variant: Variant,
        granularity: u64,
        sizing: PbfSizing,
        seed: u64,
    ) -> Result<Self, ModelError> {
        // Validates g (and g = 1 for PBF-2).
        PbfLayout::new(variant, 1, granularity)?;
        if let PbfSizing::Allocated { layout, .. } = &sizing {
            layout.check_materialisable()?;
        }
        if let PbfSizing::Allocated {
            layout,
            bits,
            hashes,
        } = &sizing
        {
            let n = layout.filters() as usize;
            if layout.variant() != variant || layout.tree().granularity() != granularity {
                return Err(ModelError::invalid(
                    "layout",
                    format!("{:?}", layout.variant()),
                    "the filter's variant and granularity",
                ));
            }
            if bits.len() != n || hashes.len() != n {
                return Err(ModelError::invalid(
                    "bits",
                    format!("{} bits, {} hashes", bits.len(), hashes.len()),
                    format!("one per filter: {n}"),
                ));
            }
        }
        let mut f = Self {
            variant,
            granularity,
            sizing,
            scheme: HashScheme::new(seed),
            seed,
            heights: Vec::new(),
            fine: None,
            now: 0,
        };
        if variant == Variant::Pbf1 {
            let (m, k) = f.shape_fine();
            f.fine = Some(SubFilter::new(m, k, mix(seed ^ 0xF1E)));
        }
        if let PbfSizing::Allocated { layout, .. } = &f.sizing {
            // A fixed horizon: every height exists from the start.
            let levels = layout.levels() as usize;
            f.heights = vec![Vec::new(); levels];
        }
        Ok(f)
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// Largest timestamp inserted so far.
    pub fn now(&self) -> u64 {
        self.now
    }
    /// Number of heights (levels) currently built.
    pub fn levels(&self) -> usize {
        self.heights.len()
    }

    pub(super) fn horizon_limit(&self) -> Option<u64> {
        match &self.sizing {
            PbfSizing::Uniform { .. } => None,
            PbfSizing::Allocated { layout, .. } => Some(layout.tree().horizon()),
        }
    }

    pub(super) fn shape_fine(&self) -> (u64, u32) {
        self.shape_of(|layout| layout.fine_filter().unwrap_or(0) as usize)
    }

    /// Bits and hashes of the filter at `height` and `pos`.
    pub(super) fn shape(&self, height: usize, pos: u64) -> (u64, u32) {
        self.shape_of(|layout| {
            let level = layout.levels() - 1 - height as u32;
            layout.filter_of(bfopt_models::pbf::Node { level, pos }) as usize
        })
    }

    /// Bits and hashes of every filter when uniform, else of the filter `index` picks.
    fn shape_of(&self, index: impl FnOnce(&PbfLayout) -> usize) -> (u64, u32) {
        match &self.sizing {
            PbfSizing::Uniform { bits, hashes } => (*bits, *hashes),
            PbfSizing::Allocated {
                layout,
                bits,
                hashes,
            } => {
                let i = index(layout);
                (bits[i], hashes[i])
            }
        }
    }

    /// The hash salt of a filter. A growing PBF-2 shares one hash over its levels: Alg. 4
    /// makes a new root by cloning the old one, which needs the same hash functions (two
    /// probes of one query at the same position `c` in two levels are then slightly
    /// correlated, as in the paper's design). Every other filter has its own salt.
    ///
    /// A growing PBF-1 likewise makes each new root from the old one (the union of its
    /// children, Section 4.1), so the filters at position 0 (the intervals `[1, g·2^h]`)
    /// share one salt; they are nested, so no query probes two of them.
    fn salt(&self, height: usize, pos: u64) -> u64 {
        if matches!(self.sizing, PbfSizing::Uniform { .. }) {
            match self.variant {
                Variant::Pbf2 => return mix(self.seed ^ 0x2B2),
                Variant::Pbf1 if pos == 0 => return mix(self.seed ^ 0x1B1),
                Variant::Pbf1 => {}
            }
        }
        mix(self.seed ^ mix(((height as u64) << 48) ^ pos))
    }

    /// Length of an interval at `height` (PBF-2: granularity `2^height`).
    fn length(&self, height: usize) -> u64 {
        self.granularity << height
    }

    /// Grows the heights until the top one covers `t` (Alg. 4; Figure 4).
    pub(super) fn grow(&mut self, t: u64) {
        if self.heights.is_empty() {
            self.heights.push(Vec::new());
        }
        while self.length(self.heights.len() - 1) < t {
            let h = self.heights.len();
            // PBF-2 (Alg. 4 line 6): the new root is a clone of the old root (all pairs so
            // far map to position 1 in both). PBF-1 (Section 4.1, Figure 4): the new root
            // `[1, 2·len]` is the union of its children, the old root `[1, len]` (which
            // holds every item so far, as no timestamp exceeded `len`) and the empty
            // `[len + 1, 2·len]`.
            let top = vec![self.heights[h - 1].first().cloned().flatten()];
            self.heights.push(top);
        }
    }

    fn filter_mut(&mut self, height: usize, pos: u64) -> &mut SubFilter {
        let (m, k) = self.shape(height, pos);
        let salt = self.salt(height, pos);
        let row = &mut self.heights[height];
        if row.len() <= pos as usize {
            row.resize(pos as usize + 1, None);
        }
        row[pos as usize].get_or_insert_with(|| SubFilter::new(m, k, salt))
    }

    pub(super) fn filter(&self, height: usize, pos: u64) -> Option<&SubFilter> {
        self.heights
            .get(height)
            .and_then(|row| row.get(pos as usize))
            .and_then(|f| f.as_ref())
    }

    /// Inserts item `key` seen at timestamp `t ≥ 1` (Alg. 2 / Alg. 4 [PBF]).
    ///
    /// # Errors
    /// `t = 0`; `t` beyond the horizon of an allocated PBF; for a growing one, beyond
    /// `2^40` or (PBF-1) beyond `g·MAX_FILTERS/2` ([`PbfLayout::MAX_FILTERS`]).
    pub fn insert(&mut self, key: u64, t: u64) -> Result<(), ModelError> {
        self.check_timestamp(t)?;
        if self.horizon_limit().is_none() {
            self.grow(t);
        }
        self.now = self.now.max(t);
        let h = self.scheme.hash_u64(key);
        for height in 0..self.heights.len() {
            let pos = (t - 1) / self.length(height);
            self.insert_run(height, pos, [h]);
        }
        if let Some(fine) = self.fine.as_mut() {
            fine.insert(pair_hash(h, t));
        }
        Ok(())
    }

    /// Inserts the items of `hashes`, all of interval `pos` of `height`, into that
    /// interval's filter, looked up (shape, salt, row) once.
    fn insert_run(&mut self, height: usize, pos: u64, hashes: impl IntoIterator<Item = HashPair>) {
        match self.variant {
            Variant::Pbf1 => {
                let f = self.filter_mut(height, pos);
                hashes.into_iter().for_each(|h| f.insert(h));
            }
            Variant::Pbf2 => {
                let f = self.filter_mut(height, 0);
                hashes
                    .into_iter()
                    .for_each(|h| f.insert(pair_hash(h, pos + 1)));
            }
        }
    }

    /// A timestamp [`Self::insert`] accepts.
    fn check_timestamp(&self, t: u64) -> Result<(), ModelError> {
        // A growing PBF-1 keeps a dense row of filters per height: at most
        // MAX_FILTERS / 2 leaves. A growing PBF-2 is bounded by the horizons queries
        // accept.
        let growing = match self.variant {
            Variant::Pbf1 => (PbfLayout::MAX_FILTERS / 2).saturating_mul(self.granularity),
            Variant::Pbf2 => *Decomposition::HORIZON.end(),
        };
        let limit = self
            .horizon_limit()
            .unwrap_or(growing.min(*Decomposition::HORIZON.end()));
        if !(1..=limit).contains(&t) {
            return Err(ModelError::invalid(
                "timestamp",
                t,
                format!("1 <= timestamp <= {limit}"),
            ));
        }
        Ok(())
    }

    /// Inserts every `(key, timestamp)` of `entries`: the filter [`Self::insert`] one by
    /// one gives (a Bloom filter's bits do not depend on the order of insertions).
    /// An allocated PBF takes them height by height: entries in time order then fill
    /// one interval's filter after another, each while it is in cache, instead of
    /// touching every height's filters per entry (the PBF suite's largest cost).
    ///
    /// # Errors
    /// The first entry [`Self::insert`] rejects (then nothing is inserted into an
    /// allocated PBF).
    pub fn insert_all(&mut self, entries: &[(u64, u64)]) -> Result<(), ModelError> {
        if self.horizon_limit().is_none() {
            return entries.iter().try_for_each(|&(a, t)| self.insert(a, t));
        }
        entries
            .iter()
            .try_for_each(|&(_, t)| self.check_timestamp(t))?;
        let hashes: Vec<_> = entries
            .iter()
            .map(|&(a, _)| self.scheme.hash_u64(a))
            .collect();
        for &(_, t) in entries {
            self.now = self.now.max(t);
        }
        for height in 0..self.heights.len() {
            // A run of entries in one interval fills one filter ([`Self::insert_run`]).
            let length = self.length(height);
            let mut rest = entries.iter().zip(&hashes).peekable();
            while let Some((&(_, t), &h)) = rest.next() {
                let pos = (t - 1) / length;
                let same = |&(&(_, u), _): &(&(u64, u64), &HashPair)| (u - 1) / length == pos;
                let run = std::iter::from_fn(|| rest.next_if(same).map(|(_, &h)| h));
                self.insert_run(height, pos, std::iter::once(h).chain(run));
            }
        }
        if let Some(fine) = self.fine.as_mut() {
            for (&(_, t), &h) in entries.iter().zip(&hashes) {
                fine.insert(pair_hash(h, t));
            }
        }
        Ok(())
    }

    /// The decomposition queries run on: the allocated layout's, or one over
    /// `[1, max(now, e)]` for a growing PBF.
    fn tree_for(&self, e: u64) -> Result<Decomposition, ModelError> {
        match &self.sizing {
            PbfSizing::Allocated { layout, .. } => Ok(layout.tree().clone()),
            PbfSizing::Uniform { .. } => Decomposition::new(self.now.max(e), self.granularity),
        }
    }

    /// `q(x, [s, e])` with short-circuit evaluation (Alg. 1 / Alg. 3 [PBF]); also returns
    /// the membership probes made.
    ///
    /// # Errors
    /// A range outside `1 ≤ s ≤ e` (and `e ≤ T` for an allocated PBF).
    pub fn query_counting(&self, key: u64, s: u64, e: u64) -> Result<(bool, u64), ModelError> {
        let tree = self.tree_for(e)?;
        tree.check_range(s, e)?;
        let h = self.scheme.hash_u64(key);
        let top = tree.levels() as usize - 1;
        let mut probes = 0u64;
        let mut found = false;
        // Probes arrive left to right; stop at the first yes.
        let mut pending: Vec<Probe> = Vec::with_capacity(32);
        tree.probes(s, e, |p| pending.push(p));
        for p in pending {
            match p {
                Probe::Cover { node } => {
                    probes += 1;
                    let height = top - node.level as usize;
                    let hit = match self.variant {
                        Variant::Pbf1 => {
                            self.filter(height, node.pos).is_some_and(|f| f.contains(h))
                        }
                        Variant::Pbf2 => self
                            .filter(height, 0)
                            .is_some_and(|f| f.contains(pair_hash(h, node.pos + 1))),
                    };
                    if hit {
                        found = true;
                        break;
                    }
                }
                Probe::Partial { node, from, to } => {
                    probes += 1;
                    let height = top - node.level as usize;
                    if !self.filter(height, node.pos).is_some_and(|f| f.contains(h)) {
                        continue;
                    }
                    let fine = self.fine.as_ref().expect("PBF-1 has b_{u+1}");
                    for t in from..=to {
                        probes += 1;
                        if fine.contains(pair_hash(h, t)) {
                            found = true;
                            break;
                        }
                    }
                    if found {
                        break;
                    }
                }
            }
        }
        Ok((found, probes))
    }

    /// `q(x, [s, e])`.
    ///
    /// # Errors
    /// See [`Self::query_counting`].
    pub fn query(&self, key: u64, s: u64, e: u64) -> Result<bool, ModelError> {
        Ok(self.query_counting(key, s, e)?.0)
    }

    /// Total bits of all filters built so far.
    pub fn memory_bits(&self) -> u64 {
        let intervals: u64 = self
            .heights
            .iter()
            .flatten()
            .flatten()
            .map(SubFilter::bits)
            .sum();
        intervals + self.fine.as_ref().map_or(0, SubFilter::bits)
    }

    /// Sub-filters built so far.
    pub fn filters_built(&self) -> usize {
        self.heights.iter().flatten().flatten().count() + usize::from(self.fine.is_some())
    }
}
