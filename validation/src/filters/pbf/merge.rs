//! Merging two partitions' PBFs (Section 6 [PBF]).

use super::{PbfFilter, PbfSizing};
use bfopt_models::pbf::MergedShape;
use bfopt_models::ModelError;

impl PbfFilter {
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
