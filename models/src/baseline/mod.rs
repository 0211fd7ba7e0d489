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

pub mod fingerprint_queue;
pub mod rotating;

pub use fingerprint_queue::{FingerprintQueueDesign, FingerprintQueueRequirement};
pub use rotating::{RotatingDesign, RotatingRequirement};

#[cfg(test)]
mod extremes;
#[cfg(test)]
mod tests;
