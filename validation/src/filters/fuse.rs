//! Binary fuse filters through the `xorf` crate (`BinaryFuse8`, `BinaryFuse16`,
//! `BinaryFuse32`): the implementation bfopt measures, not one of its own.

use bfopt_models::fuse::FuseParams;
use bfopt_models::ModelError;
use xorf::{BinaryFuse16, BinaryFuse32, BinaryFuse8, Filter};

/// A built binary fuse filter of 8, 16 or 32-bit fingerprints.
#[derive(Debug)]
pub enum FuseFilter {
    /// `xorf::BinaryFuse8`.
    F8(BinaryFuse8),
    /// `xorf::BinaryFuse16`.
    F16(BinaryFuse16),
    /// `xorf::BinaryFuse32`.
    F32(BinaryFuse32),
}

impl FuseFilter {
    /// Builds a filter of `f`-bit fingerprints ([`FuseParams::F`]) from distinct keys.
    ///
    /// # Errors
    /// `f` not 8, 16 or 32; construction failure (xorf gives up after its retries, or the
    /// keys repeat), named as `keys`.
    pub fn build(f: u32, keys: &[u64]) -> Result<Self, ModelError> {
        let failed = |e: &str| ModelError::invalid("keys", keys.len(), e.to_string());
        Ok(match f {
            8 => Self::F8(BinaryFuse8::try_from(keys).map_err(failed)?),
            16 => Self::F16(BinaryFuse16::try_from(keys).map_err(failed)?),
            32 => Self::F32(BinaryFuse32::try_from(keys).map_err(failed)?),
            _ => return Err(ModelError::invalid("f", f, "f in {8, 16, 32}")),
        })
    }

    /// Builds the filter `params` describes from `keys` (`params.n()` of them).
    ///
    /// # Errors
    /// As [`FuseFilter::build`].
    pub fn for_params(params: &FuseParams, keys: &[u64]) -> Result<Self, ModelError> {
        Self::build(params.f(), keys)
    }

    /// Whether the key may be in the set.
    pub fn contains_u64(&self, key: u64) -> bool {
        match self {
            Self::F8(x) => x.contains(&key),
            Self::F16(x) => x.contains(&key),
            Self::F32(x) => x.contains(&key),
        }
    }

    /// Fingerprints stored (`fingerprints.len()`).
    pub fn slots(&self) -> u64 {
        (match self {
            Self::F8(x) => x.fingerprints.len(),
            Self::F16(x) => x.fingerprints.len(),
            Self::F32(x) => x.fingerprints.len(),
        }) as u64
    }
}
