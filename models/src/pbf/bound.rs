//! Closed forms: the single-filter baseline (Eq. 4 [PBF]) and the space bound of
//! Theorem 5.5 / C.3 (Eq. 14 [PBF]).

use super::allocation::LN2_SQ;
use super::structure::PbfLayout;
use crate::error::{check, ModelError};
use crate::numeric::{one_minus_pow1m, probability};
use serde::Serialize;

/// FP of the single-filter baseline SBF `β0` for a query of length `|q|`, each of its
/// `|q|` probes having FP `p(b)`.
///
/// # Formula
/// ```text
/// p(β0) = 1 − (1 − p(b))^{e−s+1}                 Eq. (4) [PBF]
/// ```
pub fn fp_sbf(filter_fp: f64, query_length: u64) -> f64 {
    probability(one_minus_pow1m(filter_fp, query_length as f64))
}

/// FP of one Bloom filter at the optimal (real) hash count with `m/n` bits per item.
///
/// # Formula
/// ```text
/// p(b) = 2^(−(m/n)·ln 2) = 0.6185^(m/n)           Eq. (3) [PBF]
/// ```
pub fn fp_optimal_k(bits_per_item: f64) -> f64 {
    probability((-LN2_SQ * bits_per_item).exp())
}

/// The inputs of the space bound: `n` distinct pairs, horizon `T`, target FP `p`, query
/// length `|q|`, PBF-1 granularity `g` (1 for PBF-2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoundRequest {
    /// Distinct (item, timestamp) pairs `n = n(A)`.
    pub pairs: u64,
    /// Horizon `T`.
    pub horizon: u64,
    /// Target FP `p`.
    pub fp: f64,
    /// Query length `|q|`.
    pub query_length: u64,
    /// Leaf granularity `g` (a power of two; 1 for PBF-2).
    pub granularity: u64,
}

/// The bound and its ingredients.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bound {
    /// Eq. (14) as Theorem C.3 states it (real `log2 T`, `log2 |q|`).
    pub bits: f64,
    /// The same argument with the structure's integer counts: every pair is inserted
    /// into `insertions` filters and a query of length `|q|` makes at most
    /// `max_probes` probes.
    pub bits_levels: f64,
    /// Probes per query assumed by Eq. (14): `2·log2|q|`, or `2·log2|q/g| + g − 1`.
    pub probes: f64,
    /// Filters each pair enters in the structure (`L`, or `L + 1` for PBF-1 with `g > 1`).
    pub insertions: u64,
    /// The largest number of probes a length-`|q|` query makes (no short-circuit).
    pub max_probes: u64,
    /// The Section 5.3 printing of Eq. (14) (times `ln²2` instead of divided by it), for
    /// comparison only: it is `ln⁴2 ≈ 0.23` times the bound and does not meet the target.
    pub bits_section_5_3: f64,
}

impl BoundRequest {
    /// Validates the request.
    ///
    /// # Errors
    /// `pairs` 0; `horizon` out of range; `fp` outside (0, 1); `granularity` not a power
    /// of two; `query_length` outside `[2, T]` or below `g`.
    pub fn new(
        pairs: u64,
        horizon: u64,
        fp: f64,
        query_length: u64,
        granularity: u64,
    ) -> Result<Self, ModelError> {
        check::in_range("pairs", pairs, 1..=(1 << 50))?;
        check::open_probability("fp", fp)?;
        super::structure::Decomposition::new(horizon, granularity)?;
        if horizon < 2 {
            return Err(ModelError::invalid(
                "horizon",
                horizon,
                "horizon >= 2 (the bound needs a query length >= 2)",
            ));
        }
        check::in_range("query_length", query_length, 2..=horizon)?;
        if query_length < granularity {
            return Err(ModelError::invalid(
                "query_length",
                query_length,
                format!("query_length >= granularity = {granularity}"),
            ));
        }
        Ok(Self {
            pairs,
            horizon,
            fp,
            query_length,
            granularity,
        })
    }

    /// The probes per query of Eq. (14): `2·log2|q|` (`g = 1`), `2·log2|q/g| + g − 1`.
    pub fn probes(&self) -> f64 {
        let q = self.query_length as f64;
        if self.granularity == 1 {
            2.0 * q.log2()
        } else {
            let g = self.granularity as f64;
            2.0 * (q / g).log2() + g - 1.0
        }
    }

    /// The space bound.
    ///
    /// # Formula
    /// ```text
    /// m = n · log2 T · ln(1 / (1 − (1 − p)^{1/P})) / ln²2,   P = 2·log2|q|
    ///                                   Eq. (14) [PBF], Theorem C.3 (Appendix form)
    /// ```
    /// It inverts Eq. (15) [PBF], `1 − (1 − 2^(−ln2·m/(n·log2 T)))^P = p`: the auxiliary
    /// single filter holds `n·log2 T` items and a query probes it `P` times. The
    /// Section 5.3 form multiplies by `ln²2` instead; substituting it into Eq. (15)
    /// gives an FP far above `p` (this module's tests), so it is a misprint.
    /// # Numerics
    /// `1 − (1 − p)^{1/P}` is `−expm1(ln1p(−p)/P)`.
    pub fn bound(&self) -> Bound {
        let n = self.pairs as f64;
        let probes = self.probes().max(1.0);
        let per_probe = -((-self.fp).ln_1p() / probes).exp_m1();
        let log_term = -per_probe.ln();
        let log_t = (self.horizon as f64).log2();
        let bits = n * log_t * log_term / LN2_SQ;
        let layout = if self.granularity == 1 {
            PbfLayout::pbf2(self.horizon)
        } else {
            PbfLayout::pbf1(self.horizon, self.granularity)
        }
        .expect("validated in new");
        let insertions = layout.insertions_per_pair();
        let max_probes = max_probes(&layout, self.query_length);
        let per_probe_int = -((-self.fp).ln_1p() / max_probes as f64).exp_m1();
        let bits_levels = n * insertions as f64 * (-per_probe_int.ln()) / LN2_SQ;
        Bound {
            bits,
            bits_levels,
            probes,
            insertions,
            max_probes,
            bits_section_5_3: n * log_t * log_term * LN2_SQ,
        }
    }
}

/// FP of the auxiliary filter of Definition C.1 [PBF] with `m` bits holding
/// `n·log2 T` items, probed `P` times: `1 − (1 − 2^(−ln2·m/(n·log2 T)))^P` (Eq. 15 [PBF]).
pub fn fp_auxiliary(bits: f64, pairs: u64, horizon: u64, probes: f64) -> f64 {
    let per = fp_optimal_k(bits / (pairs as f64 * (horizon as f64).log2()));
    probability(one_minus_pow1m(per, probes))
}

/// Longest scan of query starts in [`max_probes`].
pub const MAX_PROBES_SCAN: u64 = 1 << 17;

/// The most probes (cover intervals, partial leaves, and fine-filter timestamps; no
/// short-circuit) over every query of length `q` in the layout.
///
/// The probe pattern of `[s, s+q−1]` depends on `s` only through its alignment to the
/// intervals no longer than `2q`, so `s` ranges over one period `2^(⌈log2 q⌉+1)`.
/// Beyond [`MAX_PROBES_SCAN`] starts, or past a [`crate::budget`] allowance (none by
/// default), this returns the upper bound `2⌈log2⌈q/g⌉⌉ + 2` intervals plus `2(g − 1)`
/// fine-filter probes instead.
pub fn max_probes(layout: &PbfLayout, q: u64) -> u64 {
    let horizon = layout.tree().horizon();
    if q == 0 || q > horizon {
        return 0;
    }
    let g = layout.tree().granularity();
    let period = (q.next_power_of_two() * 2).max(2 * g);
    let last = (horizon - q + 1).min(period);
    // Under a [`crate::budget`] allowance the scan (about `log2 T` steps per start: a
    // second at 2^17 starts in the fuzz build, issue 17) is paid from it; past it, the
    // upper bound, as for a longer period.
    let scan_steps = last as f64 * f64::from(u64::BITS - horizon.leading_zeros());
    if period > MAX_PROBES_SCAN || crate::budget::spend(scan_steps, "the PBF probe scan").is_err() {
        let log = u64::from(q.div_ceil(g).next_power_of_two().trailing_zeros());
        let fine = if layout.fine_filter().is_some() && g > 1 {
            2 * (g - 1)
        } else {
            0
        };
        return 2 * log + 2 + fine;
    }
    let mut best = 0u64;
    for s in 1..=last {
        let mut total = 0u64;
        layout.tree().probes(s, s + q - 1, |p| {
            total += match p {
                super::structure::Probe::Cover { .. } => 1,
                super::structure::Probe::Partial { from, to, .. } => {
                    1 + if layout.fine_filter().is_some() {
                        to - from + 1
                    } else {
                        0
                    }
                }
            };
        });
        best = best.max(total);
    }
    best
}
