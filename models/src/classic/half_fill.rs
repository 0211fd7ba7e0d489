//! The half-fill rule of thumb of Section 4 and Table 1 [APBF].

use crate::error::{check, ModelError};
use serde::Serialize;

/// A partitioned filter sized by the rule of thumb: fill ratio `r = 1/2` at capacity,
/// `k = ⌈log2(1/p)⌉` slices (Section 4.1 [APBF]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HalfFillDesign {
    /// Aimed false-positive rate `p`.
    pub aimed_fp: f64,
    /// Slices / hash functions, `k = ⌈log2(1/p)⌉`.
    pub k: u32,
    /// Bits per item, `k / ln 2` (slice size `m = n / ln 2`).
    pub bits_per_item: f64,
    /// The actual maximum FP `2^(-k)`, at most `p`.
    pub fp: f64,
    /// Accesses of a query that returns true: `k`.
    pub accesses_query_true: f64,
    /// Accesses of a query that returns false at `r = 1/2`:
    /// `2^k/(2^k - 1) · Σ_{i=1..k} i/2^i` (Section 4.2 [APBF]).
    pub accesses_query_false: f64,
}

impl HalfFillDesign {
    /// Applies the rule for an aimed FP `p`.
    ///
    /// # Example
    /// Row 2 of Table 1 [APBF]:
    /// ```
    /// use bfopt_models::classic::HalfFillDesign;
    /// let d = HalfFillDesign::for_fp(0.01).unwrap();
    /// assert_eq!(d.k, 7);
    /// assert_eq!(d.fp, 0.0078125);
    /// assert_eq!(format!("{:.2}", d.accesses_query_false), "1.94");
    /// ```
    /// # Errors
    /// `fp` outside `2^-64 ≤ fp < 1`.
    pub fn for_fp(fp: f64) -> Result<Self, ModelError> {
        check::open_probability("fp", fp)?;
        if fp < 2f64.powi(-64) {
            return Err(ModelError::invalid("fp", fp, "2^-64 <= fp < 1 (k <= 64)"));
        }
        let k = (1.0 / fp).log2().ceil().max(1.0) as u32;
        Ok(Self {
            aimed_fp: fp,
            k,
            bits_per_item: f64::from(k) / std::f64::consts::LN_2,
            fp: 0.5f64.powi(k as i32),
            accesses_query_true: f64::from(k),
            accesses_query_false: super::accesses_query_false(0.5, k),
        })
    }
}
