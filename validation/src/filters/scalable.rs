//! Reference scalable Bloom filter: a chain of classic filters, each with its own hash
//! seed, the last one taking insertions until it holds its capacity (Section 4
//! [SCALABLE] of `bfopt_models::scalable`).
//!
//! # Example
//! RedisBloom's defaults from a first link of 1000 items, grown to 10 000: four links,
//! no false negatives.
//! ```
//! use bfopt_models::classic::Layout;
//! use bfopt_models::scalable::Preset;
//! use bfopt_validation::filters::scalable::ScalableFilter;
//! let p = Preset::RedisBloom.params(0.01, 1000, Layout::Standard)?;
//! let mut f = ScalableFilter::new(p, 7);
//! for key in 0..10_000u64 {
//!     f.insert_u64(key)?;
//! }
//! assert_eq!(f.links(), 4);
//! assert!((0..10_000u64).all(|key| f.contains_u64(key)));
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```

use super::classic::ClassicFilter;
use bfopt_models::error::ModelError;
use bfopt_models::scalable::ScalableParams;

/// A growing chain of classic filters.
#[derive(Debug, Clone)]
pub struct ScalableFilter {
    params: ScalableParams,
    seed: u64,
    links: Vec<ClassicFilter>,
    /// Items in the last link.
    in_last: u64,
    /// Capacity of the last link.
    last_capacity: u64,
}

impl ScalableFilter {
    /// An empty filter: the first link only.
    ///
    /// # Panics
    /// Never for parameters [`ScalableParams::new`] accepted: their first link sizes.
    pub fn new(params: ScalableParams, seed: u64) -> Self {
        let mut f = Self {
            params,
            seed,
            links: Vec::new(),
            in_last: 0,
            last_capacity: 0,
        };
        f.grow().expect("the first link of valid parameters sizes");
        f
    }

    fn grow(&mut self) -> Result<(), ModelError> {
        let i = self.links.len();
        if i == ScalableParams::MAX_LINKS {
            return Err(ModelError::infeasible(
                "another link",
                format!("at most {} links", ScalableParams::MAX_LINKS),
            ));
        }
        let link = self.params.link(i)?;
        // Independent hashes per link: a seed per link.
        let seed = self.seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.links.push(ClassicFilter::try_with_layout(
            link.m,
            link.k,
            self.params.layout(),
            seed,
        )?);
        self.in_last = 0;
        self.last_capacity = link.capacity;
        Ok(())
    }

    /// Inserts a 64-bit key (assumed new: the chain advances on every insertion), adding
    /// a link when the last one holds its capacity.
    ///
    /// # Errors
    /// [`ModelError::Infeasible`] when the chain would need more than
    /// [`ScalableParams::MAX_LINKS`] links or a link that does not size.
    pub fn insert_u64(&mut self, key: u64) -> Result<(), ModelError> {
        if self.in_last == self.last_capacity {
            self.grow()?;
        }
        self.links
            .last_mut()
            .expect("a chain has a link")
            .insert_u64(key);
        self.in_last += 1;
        Ok(())
    }

    /// Whether a key may be in the set: any link says so.
    pub fn contains_u64(&self, key: u64) -> bool {
        self.links.iter().any(|l| l.contains_u64(key))
    }

    /// Links allocated.
    pub fn links(&self) -> usize {
        self.links.len()
    }

    /// Bits allocated.
    pub fn bits(&self) -> u64 {
        self.links.iter().map(|l| l.bits().len()).sum()
    }

    /// The FP of the current bits: `1 − Π(1 − state_fp_i)` over the links, each
    /// [`ClassicFilter::state_fp`].
    pub fn state_fp(&self) -> f64 {
        let ln_keep: f64 = self.links.iter().map(|l| (-l.state_fp()).ln_1p()).sum();
        -ln_keep.exp_m1()
    }
}
