//! Reference persistent Bloom filters: SBF `β0`, PBF-1 `β1` and PBF-2 `β2`
//! (Sections 3-4 and 6 of `001_2b1de25c23e3527a.txt`).
//!
//! * Insertion follows Alg. 2 (PBF-1: the item into the filter of every interval that
//!   contains `t`, and the pair `(a, t)` into `b_{u+1}`) and Alg. 4 (PBF-2: the pair
//!   `(a, ⌈t/g_ℓ⌉)` into every level). Filters are created as time reaches them
//!   (streaming growth): with [`PbfSizing::Uniform`] a PBF-2 grows a new root level as a
//!   clone of the old one when `t` passes `2^(levels−1)`, exactly as Alg. 4 does, and a
//!   PBF-1 grows new intervals (Figure 4) with no bound on `T`.
//! * Queries follow Alg. 1 and Alg. 3 with short-circuit evaluation, PBF-1's partial
//!   leaves asking the leaf filter before `b_{u+1}` (route 3 of Section 4.1).
//! * Every sub-filter is a standard Bloom filter with its own bits and hash count (from
//!   an allocation, [`bfopt_models::pbf::AllocationProblem`]) and its own hash: the
//!   item's 128-bit hash (the one scheme of [`crate::hash`]) is mixed with a per-filter
//!   salt into a 64-bit key `x`, so probes of different filters are independent, as the
//!   model assumes. Index `j` of `x` is the meta-hash [`crate::hash::scattered`]`(x, j, v)`
//!   reduced `mod m` (Section 6 [PBF]), which is what lets two filters of different sizes
//!   merge ([`SubFilter::merged`]).
//! * Merging (Section 6 [PBF]): [`PbfFilter::merge`] ORs corresponding filters of two
//!   partitions' PBFs of the same layout, folding filters of different sizes to
//!   `gcd(m, m')` bits and `min(k, k')` hashes ([`bfopt_models::pbf::MergedShape`]).
//! * A sub-filter given no bits answers yes once anything was inserted into it (no false
//!   negatives) and no while it is empty.

//!
//! # Example
//! A PBF-2 over a growing horizon answers temporal membership queries with no false
//! negatives; two partitions' PBFs with different filter sizes merge (Section 6):
//! ```
//! use bfopt_models::pbf::Variant;
//! use bfopt_validation::filters::pbf::{PbfFilter, PbfSizing};
//!
//! let sizing = |bits| PbfSizing::Uniform { bits, hashes: 4 };
//! let mut monday = PbfFilter::new(Variant::Pbf2, 1, sizing(4096), 7)?;
//! monday.insert(42, 100)?; // item 42 seen at second 100
//! assert!(monday.query(42, 64, 200)?);
//! assert!(monday.query(42, 100, 100)?);
//!
//! // Tuesday's PBF has filters of 6144 bits: the merge folds both onto gcd = 2048 bits.
//! let mut tuesday = PbfFilter::new(Variant::Pbf2, 1, sizing(6144), 7)?;
//! tuesday.insert(43, 100)?;
//! monday.merge(&tuesday)?;
//! assert!(monday.query(42, 100, 100)? && monday.query(43, 90, 110)?);
//! assert_eq!(monday.memory_bits() % 2048, 0);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

use super::BitVec;
use crate::hash::{scattered, HashPair, HashScheme};
use crate::workload::mix;
use bfopt_models::pbf::{Decomposition, MergedShape, PbfLayout, Probe, Variant};
use bfopt_models::ModelError;

/// One standard Bloom filter inside a PBF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubFilter {
    bits: BitVec,
    k: u32,
    salt: u64,
    nonempty: bool,
}

impl SubFilter {
    /// An empty filter of `m` bits and `k` hashes whose hash is remixed with `salt`.
    pub fn new(m: u64, k: u32, salt: u64) -> Self {
        Self {
            bits: BitVec::zeros(m),
            k: if m == 0 { 0 } else { k.max(1) },
            salt,
            nonempty: false,
        }
    }

    /// The 64-bit key of an item in this filter: its hash mixed with the filter's salt.
    #[inline]
    fn key(&self, h: HashPair) -> u64 {
        mix(h.h1 ^ self.salt)
    }

    /// The `k` indices of an item: meta-hash `j` of its key,
    /// [`scattered`]`(x, j, v)` with `v = 2^63`, reduced `mod m` (Section 6 [PBF]).
    ///
    /// # Why independent meta-hashes, reduced `mod m`
    /// * `mod m` (not a multiply-high reduction): `(h mod m) mod m* = h mod m*` for every
    ///   divisor `m*` of `m`, so a filter folds onto `gcd(m, m')` bits and still answers
    ///   for its items ([`Self::merged`]). The reduction's bias is below `m/2^63`.
    /// * One independent mix per index (not double hashing `h1 + i·h2`): the optimal
    ///   allocation gives many PBF-1 leaf filters a few dozen bits. There the
    ///   double-hashing sequence takes only about `m²` distinct shapes, so a query repeats
    ///   a stored item's whole index set with probability about `1/m²`: at `m = 12` that is
    ///   0.007 on top of a filter FP near 0.005, and it made the measured PBF-1 FP 1.7
    ///   times the exact model (found by the pbf agreement runs). Independent indices
    ///   behave as the model's ideal ones.
    #[inline]
    fn indices(&self, h: HashPair) -> impl Iterator<Item = u64> {
        let x = self.key(h);
        let m = self.bits.len();
        (0..self.k).map(move |j| scattered(x, j, META_RANGE) % m)
    }

    /// Inserts by an item hash.
    #[inline]
    pub fn insert(&mut self, h: HashPair) {
        self.nonempty = true;
        if self.bits.is_empty() {
            return;
        }
        for idx in self.indices(h) {
            self.bits.set(idx);
        }
    }

    /// Membership by an item hash (stops at the first zero bit).
    #[inline]
    pub fn contains(&self, h: HashPair) -> bool {
        if self.bits.is_empty() {
            return self.nonempty;
        }
        self.indices(h).all(|idx| self.bits.get(idx))
    }

    /// Bits `m`.
    pub fn bits(&self) -> u64 {
        self.bits.len()
    }
    /// Hashes `k`.
    pub fn hashes(&self) -> u32 {
        self.k
    }
    /// Fraction of set bits (0 for a filter with no bits).
    pub fn fill(&self) -> f64 {
        if self.bits.is_empty() {
            0.0
        } else {
            self.bits.count_ones() as f64 / self.bits.len() as f64
        }
    }

    /// Whether anything was inserted.
    pub fn is_used(&self) -> bool {
        self.nonempty
    }

    /// ORs another filter of the same shape and salt into this one.
    ///
    /// # Errors
    /// Different bits, hashes or salt (see [`Self::merged`] for different sizes).
    pub fn merge(&mut self, other: &SubFilter) -> Result<(), ModelError> {
        if self.bits.len() != other.bits.len() || self.k != other.k || self.salt != other.salt {
            return Err(ModelError::invalid(
                "merge",
                format!("m = {}, k = {}", other.bits.len(), other.k),
                format!("the same shape: m = {}, k = {}", self.bits.len(), self.k),
            ));
        }
        for (w, &o) in other.bits.words().iter().enumerate() {
            self.bits.or_word(w, o);
        }
        self.nonempty |= other.nonempty;
        Ok(())
    }

    /// This filter folded onto `m*` bits (a divisor of its `m`) queried with `k* ≤ k`
    /// hashes: bit `i` sets bit `i mod m*` (Section 6 [PBF]). The result answers yes for
    /// every item this one holds.
    ///
    /// # Errors
    /// `m*` not a divisor of `m`, `k* > k`, or `m* = 0` for a filter with bits.
    pub fn folded(&self, bits: u64, hashes: u32) -> Result<SubFilter, ModelError> {
        let m = self.bits.len();
        if m == 0 {
            // No bits: answers yes once used; a used one cannot shrink into bits.
            if self.nonempty && bits > 0 {
                return Err(ModelError::invalid(
                    "merge",
                    bits,
                    "0 bits (a used filter without bits answers yes to everything)",
                ));
            }
            let mut out = SubFilter::new(bits, hashes, self.salt);
            out.nonempty = self.nonempty;
            return Ok(out);
        }
        if bits == 0 {
            let mut out = SubFilter::new(0, 0, self.salt);
            out.nonempty = self.nonempty;
            return Ok(out);
        }
        if m % bits != 0 || hashes > self.k || hashes == 0 {
            return Err(ModelError::invalid(
                "merge",
                format!("m* = {bits}, k* = {hashes}"),
                format!("a divisor of m = {m} and 1 <= k* <= {}", self.k),
            ));
        }
        let mut out = SubFilter::new(bits, hashes, self.salt);
        out.nonempty = self.nonempty;
        if bits == m {
            for (w, &o) in self.bits.words().iter().enumerate() {
                out.bits.or_word(w, o);
            }
        } else {
            for (w, &word) in self.bits.words().iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    let i = (w as u64) * 64 + u64::from(rest.trailing_zeros());
                    out.bits.set(i % bits);
                    rest &= rest - 1;
                }
            }
        }
        Ok(out)
    }

    /// The merge of two filters with the same salt and possibly different sizes: both
    /// folded onto [`MergedShape::of_filters`] (`gcd(m, m')` bits, `min(k, k')` hashes)
    /// and OR-ed (Section 6 [PBF]).
    ///
    /// # Errors
    /// Different salts.
    pub fn merged(&self, other: &SubFilter) -> Result<SubFilter, ModelError> {
        if self.salt != other.salt {
            return Err(ModelError::invalid(
                "merge",
                "filters with different hash salts",
                "the same seed and position",
            ));
        }
        let shape = MergedShape::of_filters(self.shape(), other.shape())?;
        let mut out = self.folded(shape.bits, shape.hashes)?;
        out.merge(&other.folded(shape.bits, shape.hashes)?)?;
        Ok(out)
    }

    /// `(bits, hashes, used)`.
    fn shape(&self) -> (u64, u32, bool) {
        (self.bits.len(), self.k, self.nonempty)
    }
}

/// The meta-hash range `v` of Section 6 [PBF] (`v > m` for every filter).
const META_RANGE: u64 = 1 << 63;

/// The hash of a pair `(a, c)`, derived from the item's hash by a splitmix64 remix.
#[inline]
fn pair_hash(h: HashPair, c: u64) -> HashPair {
    let salt = mix(c ^ 0xA076_1D64_78BD_642F);
    HashPair {
        h1: mix(h.h1 ^ salt),
        h2: mix(h.h2.wrapping_add(salt)) | 1,
    }
}

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
    variant: Variant,
    granularity: u64,
    sizing: PbfSizing,
    scheme: HashScheme,
    seed: u64,
    /// By height (0 = leaves): PBF-1 one filter per interval position (created on first
    /// use), PBF-2 one filter at position 0.
    heights: Vec<Vec<Option<SubFilter>>>,
    /// PBF-1's `b_{u+1}` over (item, timestamp) pairs.
    fine: Option<SubFilter>,
    /// Largest timestamp inserted.
    now: u64,
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

    fn horizon_limit(&self) -> Option<u64> {
        match &self.sizing {
            PbfSizing::Uniform { .. } => None,
            PbfSizing::Allocated { layout, .. } => Some(layout.tree().horizon()),
        }
    }

    fn shape_fine(&self) -> (u64, u32) {
        self.shape_of(|layout| layout.fine_filter().unwrap_or(0) as usize)
    }

    /// Bits and hashes of the filter at `height` and `pos`.
    fn shape(&self, height: usize, pos: u64) -> (u64, u32) {
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
    fn grow(&mut self, t: u64) {
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

    fn filter(&self, height: usize, pos: u64) -> Option<&SubFilter> {
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
        if self.horizon_limit().is_none() {
            self.grow(t);
        }
        self.now = self.now.max(t);
        let h = self.scheme.hash_u64(key);
        for height in 0..self.heights.len() {
            let pos = (t - 1) / self.length(height);
            match self.variant {
                Variant::Pbf1 => self.filter_mut(height, pos).insert(h),
                Variant::Pbf2 => self.filter_mut(height, 0).insert(pair_hash(h, pos + 1)),
            }
        }
        if let Some(fine) = self.fine.as_mut() {
            fine.insert(pair_hash(h, t));
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

    /// Merges the PBF of the next partition into this one (Section 6 [PBF]): filter `i`
    /// of the result holds filter `i` of both, so a query `q(x, [s, e])` (in
    /// partition-relative time) answers yes if either partition's PBF would.
    ///
    /// Filters of the same shape are OR-ed. Filters of different sizes are folded onto
    /// `gcd(m, m')` bits and queried with `min(k, k')` hashes
    /// ([`bfopt_models::pbf::MergedShape`]); the sizing becomes the merged one (a
    /// uniform sizing stays uniform, an allocated one keeps its layout).
    ///
    /// # Errors
    /// Different variants, granularities, seeds, sizing kinds or layouts. On error `self`
    /// is unchanged.
    pub fn merge(&mut self, other: &PbfFilter) -> Result<(), ModelError> {
        if self.variant != other.variant
            || self.granularity != other.granularity
            || self.seed != other.seed
        {
            return Err(ModelError::invalid(
                "merge",
                "PBFs of different shape",
                "the same variant, granularity and seed",
            ));
        }
        let sizing = merged_sizing(&self.sizing, &other.sizing)?;
        let mut out = self.clone();
        out.sizing = sizing;
        if out.horizon_limit().is_none() {
            out.grow(other.now.max(1));
        }
        let heights = out.heights.len().max(other.heights.len());
        for height in 0..heights {
            let width = [&self.heights, &other.heights]
                .iter()
                .map(|h| h.get(height).map_or(0, Vec::len))
                .max()
                .unwrap_or(0);
            for pos in 0..width as u64 {
                let (a, b) = (self.filter(height, pos), other.filter(height, pos));
                let (m, k) = out.shape(height, pos);
                let merged = match (a, b) {
                    (None, None) => continue,
                    (Some(a), Some(b)) => {
                        let mut f = a.folded(m, k)?;
                        f.merge(&b.folded(m, k)?)?;
                        f
                    }
                    (Some(f), None) | (None, Some(f)) => f.folded(m, k)?,
                };
                let row = &mut out.heights[height];
                if row.len() <= pos as usize {
                    row.resize(pos as usize + 1, None);
                }
                row[pos as usize] = Some(merged);
            }
        }
        if let (Some(a), Some(b)) = (self.fine.as_ref(), other.fine.as_ref()) {
            let (m, k) = out.shape_fine();
            let mut f = a.folded(m, k)?;
            f.merge(&b.folded(m, k)?)?;
            out.fine = Some(f);
        }
        out.now = self.now.max(other.now);
        *self = out;
        Ok(())
    }
}

/// The sizing two partitions' PBFs merge into: per filter `gcd` of the bits and `min` of
/// the hashes ([`MergedShape::of`]).
fn merged_sizing(a: &PbfSizing, b: &PbfSizing) -> Result<PbfSizing, ModelError> {
    match (a, b) {
        (
            PbfSizing::Uniform { bits, hashes },
            PbfSizing::Uniform {
                bits: bits_b,
                hashes: hashes_b,
            },
        ) => {
            let s = MergedShape::of(*bits, *hashes, *bits_b, *hashes_b)?;
            Ok(PbfSizing::Uniform {
                bits: s.bits,
                hashes: s.hashes,
            })
        }
        (
            PbfSizing::Allocated {
                layout,
                bits,
                hashes,
            },
            PbfSizing::Allocated {
                layout: layout_b,
                bits: bits_b,
                hashes: hashes_b,
            },
        ) if layout == layout_b => {
            let mut out_bits = Vec::with_capacity(bits.len());
            let mut out_hashes = Vec::with_capacity(bits.len());
            for i in 0..bits.len() {
                let s = MergedShape::of(bits[i], hashes[i], bits_b[i], hashes_b[i])?;
                out_bits.push(s.bits);
                out_hashes.push(s.hashes);
            }
            Ok(PbfSizing::Allocated {
                layout: layout.clone(),
                bits: out_bits,
                hashes: out_hashes,
            })
        }
        _ => Err(ModelError::invalid(
            "merge",
            "PBFs of different sizing kinds or layouts",
            "both uniform, or both allocated over the same layout",
        )),
    }
}

/// The single-filter baseline `β0` (Section 3.1 [PBF]): one filter over (item,
/// timestamp) pairs, `|q|` probes per query.
#[derive(Debug, Clone)]
pub struct SbfFilter {
    filter: SubFilter,
    scheme: HashScheme,
}

impl SbfFilter {
    /// An empty SBF of `m` bits and `k` hashes.
    pub fn new(m: u64, k: u32, seed: u64) -> Self {
        Self {
            filter: SubFilter::new(m, k, mix(seed ^ 0x5BF)),
            scheme: HashScheme::new(seed),
        }
    }

    /// Inserts `(key, t)`.
    pub fn insert(&mut self, key: u64, t: u64) {
        self.filter.insert(pair_hash(self.scheme.hash_u64(key), t));
    }

    /// `q(x, [s, e])` with short-circuit evaluation, and the probes made.
    pub fn query_counting(&self, key: u64, s: u64, e: u64) -> (bool, u64) {
        let h = self.scheme.hash_u64(key);
        let mut probes = 0;
        for t in s..=e {
            probes += 1;
            if self.filter.contains(pair_hash(h, t)) {
                return (true, probes);
            }
        }
        (false, probes)
    }

    /// `q(x, [s, e])`.
    pub fn query(&self, key: u64, s: u64, e: u64) -> bool {
        self.query_counting(key, s, e).0
    }

    /// The filter.
    pub fn filter(&self) -> &SubFilter {
        &self.filter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{member, probe};

    fn trace(n: u64, horizon: u64, seed: u64) -> Vec<(u64, u64)> {
        (0..n)
            .map(|i| (member(seed, i % (n / 3 + 1)), 1 + mix(seed ^ i) % horizon))
            .collect()
    }

    #[test]
    fn no_false_negatives_in_every_variant() {
        let pairs = trace(600, 200, 3);
        for (variant, g) in [(Variant::Pbf1, 1), (Variant::Pbf1, 4), (Variant::Pbf2, 1)] {
            let mut f = PbfFilter::new(
                variant,
                g,
                PbfSizing::Uniform {
                    bits: 256,
                    hashes: 3,
                },
                9,
            )
            .unwrap();
            for &(a, t) in &pairs {
                f.insert(a, t).unwrap();
            }
            for &(a, t) in pairs.iter().step_by(7) {
                for (s, e) in [(t, t), (t.saturating_sub(5).max(1), t + 3), (1, 200)] {
                    assert!(
                        f.query(a, s, e).unwrap(),
                        "{variant:?} g={g} ({a},{t}) [{s},{e}]"
                    );
                }
            }
        }
    }

    #[test]
    fn pbf2_growth_clones_the_root() {
        let mut f = PbfFilter::new(
            Variant::Pbf2,
            1,
            PbfSizing::Uniform {
                bits: 1024,
                hashes: 4,
            },
            1,
        )
        .unwrap();
        f.insert(10, 1).unwrap();
        assert_eq!(f.levels(), 1);
        f.insert(11, 3).unwrap();
        assert_eq!(f.levels(), 3); // granularities 1, 2, 4 cover [1, 4]
        f.insert(12, 9).unwrap();
        assert_eq!(f.levels(), 5);
        for (a, t) in [(10, 1), (11, 3), (12, 9)] {
            assert!(f.query(a, t, t).unwrap());
            assert!(f.query(a, 1, 9).unwrap());
        }
        // A member at another time is not found in a small range away from it (with
        // 1024 bits per level and three items this holds with overwhelming probability).
        assert!(!f.query(10, 2, 2).unwrap());
    }

    #[test]
    fn allocated_sizes_are_respected_and_bounded() {
        let layout = PbfLayout::pbf1(64, 4).unwrap();
        let n = layout.filters() as usize;
        let bits: Vec<u64> = (0..n as u64).map(|i| 64 + i).collect();
        let hashes = vec![2; n];
        let mut f = PbfFilter::new(
            Variant::Pbf1,
            4,
            PbfSizing::Allocated {
                layout: layout.clone(),
                bits: bits.clone(),
                hashes,
            },
            5,
        )
        .unwrap();
        for t in 1..=64 {
            f.insert(t * 1000, t).unwrap();
        }
        assert_eq!(f.memory_bits(), bits.iter().sum::<u64>());
        assert!(f.insert(1, 65).is_err());
        assert!(f.query(1, 60, 65).is_err());
        assert!(PbfFilter::new(
            Variant::Pbf2,
            1,
            PbfSizing::Allocated {
                layout,
                bits,
                hashes: vec![]
            },
            1
        )
        .is_err());
    }

    #[test]
    fn zero_bit_filters_keep_no_false_negatives() {
        let layout = PbfLayout::pbf2(16).unwrap();
        let n = layout.filters() as usize;
        let mut f = PbfFilter::new(
            Variant::Pbf2,
            1,
            PbfSizing::Allocated {
                layout,
                bits: vec![0; n],
                hashes: vec![0; n],
            },
            2,
        )
        .unwrap();
        assert!(!f.query(5, 1, 16).unwrap(), "empty filters answer no");
        f.insert(5, 7).unwrap();
        assert!(f.query(5, 7, 7).unwrap());
        assert!(
            f.query(probe(1, 1), 7, 7).unwrap(),
            "no bits: everything is a maybe"
        );
    }

    #[test]
    fn merged_partitions_answer_for_both() {
        let sizing = PbfSizing::Uniform {
            bits: 2048,
            hashes: 4,
        };
        for (variant, g) in [(Variant::Pbf1, 4), (Variant::Pbf2, 1)] {
            let mut a = PbfFilter::new(variant, g, sizing.clone(), 7).unwrap();
            let mut b = PbfFilter::new(variant, g, sizing.clone(), 7).unwrap();
            let first = trace(300, 100, 1);
            let second = trace(300, 128, 2);
            first.iter().for_each(|&(k, t)| a.insert(k, t).unwrap());
            second.iter().for_each(|&(k, t)| b.insert(k, t).unwrap());
            a.merge(&b).unwrap();
            for &(k, t) in first.iter().chain(&second) {
                assert!(a.query(k, t, t).unwrap(), "{variant:?} ({k},{t})");
            }
            let other = PbfFilter::new(variant, g, sizing.clone(), 8).unwrap();
            assert!(a.merge(&other).is_err());
        }
    }

    fn allocated(layout: &PbfLayout, bits: &[u64], hashes: &[u32]) -> PbfSizing {
        PbfSizing::Allocated {
            layout: layout.clone(),
            bits: bits.to_vec(),
            hashes: hashes.to_vec(),
        }
    }

    /// Section 6 [PBF]: filters of sizes `2q` and `3q` fold onto `gcd = q` bits, and the
    /// result is bit for bit the PBF built directly at `q` bits from both partitions.
    #[test]
    fn merging_different_sizes_equals_the_directly_built_pbf() {
        let first = trace(400, 256, 11);
        let second = trace(400, 256, 12);
        for (variant, g) in [(Variant::Pbf1, 4), (Variant::Pbf2, 1)] {
            let layout = PbfLayout::new(variant, 256, g).unwrap();
            let n = layout.filters() as usize;
            let base: Vec<u64> = (0..n as u64).map(|i| 40 + 7 * (i % 5)).collect();
            let times = |c: u64| base.iter().map(|b| b * c).collect::<Vec<_>>();
            let k = vec![3; n];
            let build = |bits: &[u64], pairs: &[&[(u64, u64)]]| {
                let mut f = PbfFilter::new(variant, g, allocated(&layout, bits, &k), 4).unwrap();
                for &(a, t) in pairs.iter().copied().flatten() {
                    f.insert(a, t).unwrap();
                }
                f
            };
            let mut a = build(&times(2), &[&first]);
            let b = build(&times(3), &[&second]);
            a.merge(&b).unwrap();
            let direct = build(&base, &[&first, &second]);
            assert!(
                a == direct,
                "{variant:?}: merged differs from the direct build"
            );
        }
        // Uniform sizing: 2048 and 3072 bits fold onto 1024.
        let uniform = |bits| PbfSizing::Uniform { bits, hashes: 4 };
        let mut a = PbfFilter::new(Variant::Pbf1, 2, uniform(2048), 3).unwrap();
        let mut b = PbfFilter::new(Variant::Pbf1, 2, uniform(3072), 3).unwrap();
        let mut direct = PbfFilter::new(Variant::Pbf1, 2, uniform(1024), 3).unwrap();
        for &(k, t) in &first {
            a.insert(k, t).unwrap();
            direct.insert(k, t).unwrap();
        }
        for &(k, t) in &second {
            b.insert(k, t).unwrap();
            direct.insert(k, t).unwrap();
        }
        a.merge(&b).unwrap();
        assert!(a == direct, "uniform: merged differs from the direct build");
    }

    /// Different hash counts: the merge queries `min(k, k')` hashes; it holds every bit
    /// the direct build at that `k` sets, so it answers yes wherever that one does.
    #[test]
    fn merging_different_hash_counts_keeps_every_item() {
        let first = trace(300, 128, 21);
        let second = trace(300, 128, 22);
        let layout = PbfLayout::pbf1(128, 4).unwrap();
        let n = layout.filters() as usize;
        let bits = vec![96u64; n];
        let mk =
            |k: u32| PbfFilter::new(Variant::Pbf1, 4, allocated(&layout, &bits, &vec![k; n]), 8);
        let (mut a, mut b, mut direct) = (mk(5).unwrap(), mk(2).unwrap(), mk(2).unwrap());
        first.iter().for_each(|&(k, t)| a.insert(k, t).unwrap());
        second.iter().for_each(|&(k, t)| b.insert(k, t).unwrap());
        first
            .iter()
            .chain(&second)
            .for_each(|&(k, t)| direct.insert(k, t).unwrap());
        a.merge(&b).unwrap();
        for &(k, t) in first.iter().chain(&second) {
            assert!(a.query(k, t, t).unwrap() && a.query(k, t.max(3) - 2, t).unwrap());
        }
        for i in 0..3000 {
            let (s, e) = (1 + i % 120, 1 + i % 120 + i % 8);
            if direct.query(probe(5, i), s, e).unwrap() {
                assert!(a.query(probe(5, i), s, e).unwrap());
            }
        }
        // Shapes that cannot merge.
        let other_layout = PbfLayout::pbf1(256, 4).unwrap();
        let m = other_layout.filters() as usize;
        let c = PbfFilter::new(
            Variant::Pbf1,
            4,
            allocated(&other_layout, &vec![96; m], &vec![2; m]),
            8,
        )
        .unwrap();
        let before = a.clone();
        assert!(a.merge(&c).is_err());
        assert!(a == before, "a failed merge leaves the filter unchanged");
    }

    #[test]
    fn sub_filters_fold_onto_divisors() {
        let mut f = SubFilter::new(96, 3, 1);
        let h = HashScheme::new(1);
        (0..20).for_each(|i| f.insert(h.hash_u64(i)));
        let g = f.folded(32, 2).unwrap();
        assert!((0..20).all(|i| g.contains(h.hash_u64(i))));
        assert!(f.folded(40, 2).is_err() && f.folded(32, 4).is_err());
        let other = SubFilter::new(64, 4, 1);
        let m = f.merged(&other).unwrap();
        assert_eq!((m.bits(), m.hashes()), (32, 3));
        assert!(f.merged(&SubFilter::new(64, 4, 2)).is_err());
        // An empty filter without bits merges as the other side; a used one absorbs it.
        let empty = SubFilter::new(0, 0, 1);
        assert_eq!(empty.merged(&f).unwrap().bits(), 96);
        let mut used = SubFilter::new(0, 0, 1);
        used.insert(h.hash_u64(99));
        let all = used.merged(&f).unwrap();
        assert!(all.bits() == 0 && all.contains(h.hash_u64(12345)));
    }

    /// Regression (issue 7): a growing PBF-1 made each new root empty, so a query whose
    /// cover is the root missed every item inserted before the growth.
    #[test]
    fn issue_7_growing_pbf1_root_holds_earlier_items() {
        let sizing = PbfSizing::Uniform {
            bits: 512,
            hashes: 3,
        };
        let mut f = PbfFilter::new(Variant::Pbf1, 1, sizing, 1).unwrap();
        f.insert(7, 1).unwrap();
        f.insert(8, 3).unwrap();
        f.insert(9, 100).unwrap();
        assert_eq!(f.levels(), 8);
        for (a, t) in [(7, 1), (8, 3), (9, 100)] {
            assert!(
                f.query(a, 1, 128).unwrap(),
                "({a}, {t}) in the root [1, 128]"
            );
            assert!(f.query(a, 1, 64).unwrap() == (t <= 64));
        }
    }

    /// Issue 10: timestamps up to 2^40 where the structure can hold them, clear errors
    /// beyond (a growing PBF-1 keeps dense rows of filters).
    #[test]
    fn issue_10_extreme_timestamps() {
        let sizing = PbfSizing::Uniform {
            bits: 64,
            hashes: 2,
        };
        let mut two = PbfFilter::new(Variant::Pbf2, 1, sizing.clone(), 1).unwrap();
        two.insert(5, 1 << 40).unwrap();
        two.insert(6, 1).unwrap();
        assert_eq!(two.levels(), 41);
        assert!(two.query(5, 1, 1 << 40).unwrap() && two.query(6, 1, 1).unwrap());
        assert!(two.insert(5, (1 << 40) + 1).is_err() && two.insert(5, 0).is_err());
        let mut one = PbfFilter::new(Variant::Pbf1, 1, sizing, 1).unwrap();
        let e = one.insert(5, 1 << 40).unwrap_err().to_string();
        assert!(e.contains("timestamp"), "{e}");
        let limit = PbfLayout::MAX_FILTERS / 2;
        assert!(one.insert(5, limit + 1).is_err());
        assert!(PbfFilter::new(
            Variant::Pbf1,
            1,
            allocated(&PbfLayout::pbf1(1 << 40, 1).unwrap(), &[], &[]),
            1
        )
        .is_err());
    }

    #[test]
    fn sbf_probes_every_timestamp_until_a_hit() {
        let mut f = SbfFilter::new(4096, 4, 1);
        f.insert(42, 10);
        assert_eq!(f.query_counting(42, 5, 20), (true, 6));
        let (hit, probes) = f.query_counting(probe(3, 0), 1, 50);
        assert!(!hit);
        assert_eq!(probes, 50);
    }
}
