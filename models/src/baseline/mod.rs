//! The sliding-window designs people build by hand, sized correctly, so that a
//! recommendation can show what the specialised structures save.
//!
//! * [`rotating`]: a ring of classic filters, one per generation (the "sequence of plain
//!   BFs" of Section 3 [APBF]; two filters is double buffering / the Cell Bloom filter).
//!   The union of the active filters must meet the FP target, so each filter is sized at
//!   `1 − (1 − P)^(1/r)`, not at `P` as many libraries do.
//! * [`fingerprint_queue`]: a circular buffer of fingerprints plus a dictionary mapping
//!   fingerprints to counters (the SWAMP layout cited in Section 3 [APBF]): no slack,
//!   exact expiry, more bits per item.
//!
//! # Example
//! A window of 10^6 insertions at 1% FP: the best ring meets the target for the union
//! of its filters, while the same ring with each filter sized at 1% would not; a
//! fingerprint queue needs 27-bit fingerprints.
//! ```
//! use bfopt_models::baseline::fingerprint_queue::design_fingerprint_queue;
//! use bfopt_models::baseline::rotating::design_rotating;
//! use bfopt_models::baseline::{FingerprintQueueRequirement, RotatingRequirement};
//! use bfopt_models::classic::Layout;
//! let ring = design_rotating(&RotatingRequirement::new(0.01, 1_000_000, Layout::Standard)?)?;
//! assert!(ring.fp <= 0.01);
//! assert!(u64::from(ring.filters - 1) * ring.generation >= 1_000_000);
//! assert!(ring.fp_if_each_sized_at_target.unwrap() > 0.01 * f64::from(ring.filters - 1));
//! let fq = design_fingerprint_queue(&FingerprintQueueRequirement::new(0.01, 1_000_000)?)?;
//! assert_eq!((fq.fingerprint_bits, fq.slack), (27, 0));
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```

pub mod fingerprint_queue;
pub mod rotating;

pub use fingerprint_queue::{FingerprintQueueDesign, FingerprintQueueRequirement};
pub use rotating::{RotatingDesign, RotatingRequirement};

#[cfg(test)]
mod extremes;
#[cfg(test)]
mod tests;
