//! The Stable Bloom filter of Deng & Rafiei: stable point, convergence, false negatives
//! by age, and the decrement count `P` that meets an FP target.

use crate::error::{check, ModelError};
use crate::markov;
use crate::numeric::{first_true, probability};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use std::ops::RangeInclusive;

/// Parameters of a Stable Bloom filter: `m` cells of `0..=max`, `k` hash functions, `p`
/// random decrements before each insertion (Section 2.2 [SBF]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SbfParams {
    m: u64,
    k: u32,
    max: u32,
    p: u64,
}

impl SbfParams {
    /// Allowed cell counts `m`.
    pub const M: RangeInclusive<u64> = 2..=(1 << 40);
    /// Allowed hash counts `k` (also `k < m`).
    pub const K: RangeInclusive<u32> = 1..=64;
    /// Allowed cell maxima `Max` (cells of up to 8 bits).
    pub const MAX: RangeInclusive<u32> = 1..=255;

    /// Validates and builds the parameters.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `m`, `k`, `max` or `p` when outside [`Self::M`],
    /// [`Self::K`], [`Self::MAX`], when `k >= m`, or when `p` is not in `1..m`.
    pub fn new(m: u64, k: u32, max: u32, p: u64) -> Result<Self, ModelError> {
        check::in_range("m", m, Self::M)?;
        check::in_range("k", k, Self::K)?;
        check::in_range("max", max, Self::MAX)?;
        if u64::from(k) >= m {
            return Err(ModelError::invalid("k", k, format!("1 <= k < m = {m}")));
        }
        check::in_range("p", p, 1..=m - 1)?;
        Ok(Self { m, k, max, p })
    }

    /// Cells `m`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Hash functions `K`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Largest cell value `Max`.
    pub fn max(&self) -> u32 {
        self.max
    }
    /// Decrements per insertion `P`.
    pub fn p(&self) -> u64 {
        self.p
    }
    /// Bits per cell, `⌈log2(Max+1)⌉`.
    pub fn cell_bits(&self) -> u32 {
        cell_bits(self.max)
    }
    /// Memory `m·⌈log2(Max+1)⌉` bits.
    pub fn memory_bits(&self) -> u64 {
        self.m * u64::from(self.cell_bits())
    }

    /// The same filter as the IBF policy [`super::Policy::Sbf`] (every insertion sets
    /// `Max`; its importance law, a single importance, is unused).
    ///
    /// # Errors
    /// None for parameters [`Self::new`] accepted (the conversion checks them again).
    pub fn as_policy(&self) -> Result<super::IbfParams, ModelError> {
        super::IbfParams::new(
            super::Policy::Sbf,
            self.m,
            self.k,
            self.max,
            self.p,
            super::ImportanceDist::linear(1, 1)?,
        )
    }

    /// Probability that a given cell is one of an insertion's `K` distinct cells, `K/m`.
    fn set_prob(&self) -> f64 {
        f64::from(self.k) / self.m as f64
    }
    /// Probability that a given cell is among the `P` distinct cells decremented, `P/m`.
    fn dec_prob(&self) -> f64 {
        self.p as f64 / self.m as f64
    }

    /// The limit fraction of zero cells (the stable point), in closed form.
    ///
    /// # Formula
    /// ```text
    /// π0 = (1 / (1 + 1/(P·(1/K − 1/m))))^Max          Deng & Rafiei, Thm 2; Eq. (4) [SBF]
    ///    = exp(−Max · ln_1p(m·K / (P·(m − K))))
    /// ```
    /// # Accuracy
    /// Exact for one cell when each insertion decrements `P` distinct random cells and
    /// then sets `K` distinct cells (the chain of [`Self::transition_matrix`]; the test
    /// `closed_form_equals_chain` checks it to 1e-13). Since every cell has the same law,
    /// it is also the exact expected fraction of zero cells.
    pub fn zero_fraction(&self) -> f64 {
        probability(self.ln_zero_fraction().exp())
    }

    /// `ln π0 = −Max·ln_1p(m·K / (P·(m − K)))`.
    fn ln_zero_fraction(&self) -> f64 {
        let (m, k, p) = (self.m as f64, f64::from(self.k), self.p as f64);
        -f64::from(self.max) * (m * k / (p * (m - k))).ln_1p()
    }

    /// The one-cell Markov chain, states `0..=Max`: per insertion the cell is decremented
    /// with probability `P/m` (if positive), then set to `Max` with probability `K/m`.
    ///
    /// ```text
    /// i → Max   : K/m (+ the self-loop for i = Max)
    /// i → i − 1 : (1 − K/m)·P/m        (i ≥ 1)
    /// i → i     : (1 − K/m)·(1 − P/m)   (i ≥ 1);   0 → 0 : 1 − K/m
    /// ```
    pub fn transition_matrix(&self) -> DMatrix<f64> {
        let n = self.max as usize + 1;
        let (a, q) = (self.set_prob(), self.dec_prob());
        let mut t = DMatrix::zeros(n, n);
        for i in 0..n {
            t[(i, n - 1)] += a;
            if i == 0 {
                t[(0, 0)] += 1.0 - a;
            } else {
                t[(i, i - 1)] += (1.0 - a) * q;
                t[(i, i)] += (1.0 - a) * (1.0 - q);
            }
        }
        t
    }

    /// The stable point as the stationary distribution of [`Self::transition_matrix`],
    /// solved by GTH state reduction ([`markov::stationary_gth`]).
    ///
    /// # Errors
    /// Only if the chain were reducible, which valid parameters exclude.
    pub fn stationary(&self) -> Result<DVector<f64>, ModelError> {
        markov::stationary_gth(&self.transition_matrix())
    }

    /// The fraction of zero cells from the chain: `π[0]` of [`Self::stationary`].
    ///
    /// # Errors
    /// See [`Self::stationary`].
    pub fn zero_fraction_chain(&self) -> Result<f64, ModelError> {
        Ok(self.stationary()?[0])
    }

    /// False-positive rate of a non-member at the stable point: all `K` cells non-zero.
    ///
    /// # Formula
    /// ```text
    /// FP = (1 − π0)^K          Deng & Rafiei, Eq. (9)
    /// ```
    /// # Accuracy
    /// Treats the `K` cells as independent; the cells of one filter are weakly
    /// correlated (their total decrements are fixed per step). The agreement tests measure
    /// the gap against the reference filter.
    ///
    /// # Numerics
    /// `1 − π0 = −expm1(−Max·ln_1p(x))` with `x = m·K/(P·(m − K))`, then raised to `K` in
    /// log space: forming `1 − π0` from a rounded `π0` lost up to `ε/(1 − π0)` relative
    /// (1e-7 at `m = 10^9, K = 1, Max = 1`; 0 once `1 − π0 < 1.1e-16`, issue 17).
    pub fn fp(&self) -> f64 {
        let nonzero = -self.ln_zero_fraction().exp_m1();
        probability((f64::from(self.k) * nonzero.ln()).exp())
    }

    /// Expected fraction of zero cells after `n` insertions into an empty filter
    /// (convergence to the stable point): `(e_0 · T^n)[0]` by repeated squaring.
    ///
    /// # Formula
    /// ```text
    /// Pr(cell = 0 after n) = (1 − a)^n + Σ_{j<n} a(1 − a)^j · Pr(Bin(j, P/m) ≥ Max),  a = K/m
    /// ```
    /// (the cell was never set, or last set `j` insertions ago and decremented `Max` times
    /// since); the test `convergence_matches_series` checks the two forms agree.
    pub fn zero_fraction_after(&self, n: u64) -> f64 {
        let start = unit_row(self.max as usize + 1, 0);
        probability(evolve(&start, &self.transition_matrix(), n)[0])
    }

    /// Probability that one of an item's cells is zero `age` insertions after the item
    /// was inserted (it was set to `Max` then): `(e_Max · T^age)[0]`.
    pub fn cell_zero_at_age(&self, age: u64) -> f64 {
        let n = self.max as usize + 1;
        probability(evolve(&unit_row(n, n - 1), &self.transition_matrix(), age)[0])
    }

    /// False-negative probability of an item `age` insertions after it was inserted (and
    /// not re-inserted since): some of its `K` cells has reached zero.
    ///
    /// # Formula
    /// ```text
    /// FN(age) = 1 − (1 − z(age))^K,   z(age) = (e_Max · T^age)[0]
    /// ```
    /// It rises from 0 to `1 − (1 − π0)^K`. Same independence assumption as [`Self::fp`].
    pub fn fn_at_age(&self, age: u64) -> f64 {
        fn_from_zero(self.cell_zero_at_age(age), self.k)
    }

    /// The smallest age at which an item's FN probability reaches 1/2, or `None` when the
    /// limit `1 − (1 − π0)^K` stays below 1/2 (items are never more likely lost than kept).
    ///
    /// Binary lifting over `T^(2^i)`: `O(Max³·log age)`.
    pub fn fn_half_life(&self) -> Option<u64> {
        let limit = fn_from_zero(self.zero_fraction(), self.k);
        if limit < 0.5 {
            return None;
        }
        let n = self.max as usize + 1;
        let mut powers = vec![self.transition_matrix()];
        let start = unit_row(n, n - 1);
        // Grow until T^(2^L) reaches the half-life (bounded: FN → limit ≥ 1/2).
        loop {
            let last = powers.last().expect("non-empty");
            let reach = fn_from_zero((&start * last)[0], self.k);
            if reach >= 0.5 || powers.len() >= 63 {
                break;
            }
            let mut sq = last * last;
            renormalise_rows(&mut sq);
            powers.push(sq);
        }
        let mut cur = start;
        let mut age = 0u64;
        for (i, pw) in powers.iter().enumerate().rev() {
            let cand = &cur * pw;
            if fn_from_zero(cand[0], self.k) < 0.5 {
                cur = cand;
                age += 1u64 << i;
            }
        }
        Some(age + 1)
    }

    /// All metrics; `fn_at_age` only when an age is given.
    ///
    /// # Errors
    /// See [`Self::stationary`].
    pub fn metrics(&self, age: Option<u64>) -> Result<SbfMetrics, ModelError> {
        let zero_fraction = self.zero_fraction();
        Ok(SbfMetrics {
            zero_fraction,
            zero_fraction_chain: self.zero_fraction_chain()?,
            zero_cells: zero_fraction * self.m as f64,
            fp: self.fp(),
            fn_limit: fn_from_zero(zero_fraction, self.k),
            fn_half_life: self.fn_half_life(),
            fn_at_age: age.map(|a| self.fn_at_age(a)),
            memory_bits: self.memory_bits(),
        })
    }
}

/// Predicted metrics of a Stable Bloom filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SbfMetrics {
    /// Stable-point fraction of zero cells, closed form ([`SbfParams::zero_fraction`]).
    pub zero_fraction: f64,
    /// The same from one cell's chain ([`SbfParams::zero_fraction_chain`]).
    pub zero_fraction_chain: f64,
    /// Expected zero cells `m·π0`.
    pub zero_cells: f64,
    /// FP of a non-member at the stable point, `(1 − π0)^K`.
    pub fp: f64,
    /// Limit FN of an old item, `1 − (1 − π0)^K`.
    pub fn_limit: f64,
    /// Age (insertions) at which an item's FN reaches 1/2; `None`: never.
    pub fn_half_life: Option<u64>,
    /// FN at the requested age.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fn_at_age: Option<f64>,
    /// Memory `m·⌈log2(Max+1)⌉` bits.
    pub memory_bits: u64,
}

/// Bits of a cell holding `0..=max`: `⌈log2(max+1)⌉`.
pub fn cell_bits(max: u32) -> u32 {
    32 - max.leading_zeros()
}

/// `1 − (1 − z)^k` without cancellation.
pub(crate) fn fn_from_zero(z: f64, k: u32) -> f64 {
    probability(-(f64::from(k) * (-z).ln_1p()).exp_m1())
}

fn unit_row(n: usize, i: usize) -> nalgebra::RowDVector<f64> {
    let mut r = nalgebra::RowDVector::zeros(n);
    r[i] = 1.0;
    r
}

/// Rescales each row of a (nearly) stochastic matrix to sum 1.
pub(super) fn renormalise_rows(t: &mut DMatrix<f64>) {
    for mut row in t.row_iter_mut() {
        let s = row.sum();
        row /= s;
    }
}

/// `row · T^steps` by binary powering (subtraction-free products). Rows of each power
/// are rescaled to sum 1: without it the rounding error of `T^(2^i)` doubles with each
/// squaring (5e-8 relative after 2^30 steps); with it the drift is removed and the
/// stationary limit is reproduced to 1e-9 (test `convergence_matches_series`).
fn evolve(
    row: &nalgebra::RowDVector<f64>,
    t: &DMatrix<f64>,
    mut steps: u64,
) -> nalgebra::RowDVector<f64> {
    let mut out = row.clone();
    let mut pw = t.clone();
    while steps > 0 {
        if steps & 1 == 1 {
            out = &out * &pw;
            let total = out.sum();
            out /= total;
        }
        steps >>= 1;
        if steps > 0 {
            pw = &pw * &pw;
            renormalise_rows(&mut pw);
        }
    }
    out
}

/// What a Stable Bloom filter must achieve: FP at most `fp` with `m` cells, `K` hashes
/// and cells of `0..=Max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SbfRequirement {
    /// Cells `m`.
    pub m: u64,
    /// Hashes `K`.
    pub k: u32,
    /// Cell maximum `Max`.
    pub max: u32,
    /// Largest acceptable stable-point FP.
    #[serde(rename = "fp_target")]
    pub fp: f64,
}

/// The chosen decrement count and its metrics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SbfDesign {
    /// The parameters with the chosen `P`.
    pub params: SbfParams,
    /// Stable-point FP at that `P` (at most the target).
    pub fp: f64,
    /// The real-valued `P` at which the FP equals the target (the Go library truncates it).
    pub p_real: f64,
}

/// The real `P` at which `(1 − π0)^K = fp`:
///
/// ```text
/// P = 1 / ((1/(1 − fp^(1/K))^(1/Max) − 1)·(1/K − 1/m))
/// ```
pub fn decrements_real(m: u64, k: u32, max: u32, fp: f64) -> f64 {
    let (mf, kf) = (m as f64, f64::from(k));
    // π0 = 1 − fp^(1/K); (1/π0)^(1/Max) − 1 = expm1(−ln(π0)/Max).
    let pi0 = -((fp.ln() / kf).exp_m1());
    let t = (-pi0.ln() / f64::from(max)).exp_m1();
    1.0 / (t * (1.0 / kf - 1.0 / mf))
}

/// The smallest integer `P` whose stable-point FP is at most the target.
///
/// FP falls as `P` grows (more zeros), so the answer is found by bisection over
/// `1..m`; the real-valued solution [`decrements_real`] is reported beside it. Truncating
/// the real solution (as the Go library `BoomFilters` does) misses the target: for
/// `m = 1000, K = 2, Max = 1, fp = 0.1` it gives `P = 4` and FP 0.1114; this gives
/// `P = 5`, FP 0.0819.
///
/// # Errors
/// Invalid parameters; [`ModelError::Infeasible`] when even `P = m − 1` exceeds the target.
pub fn design_decrements(req: &SbfRequirement) -> Result<SbfDesign, ModelError> {
    check::fp_target("fp", req.fp)?;
    SbfParams::new(req.m, req.k, req.max, 1)?;
    let fp_at = |p: u64| SbfParams::new(req.m, req.k, req.max, p).map(|s| s.fp());
    let meets = |p: u64| fp_at(p).is_ok_and(|fp| fp <= req.fp);
    let Some(p) = first_true(1, req.m - 1, meets) else {
        let best = fp_at(req.m - 1)?;
        return Err(ModelError::infeasible(
            format!(
                "fp <= {} with m = {}, K = {}, Max = {}",
                crate::error::show_rate(req.fp),
                req.m,
                req.k,
                req.max
            ),
            format!("fp = {best:e} at the largest P = {}", req.m - 1),
        ));
    };
    let params = SbfParams::new(req.m, req.k, req.max, p)?;
    Ok(SbfDesign {
        params,
        fp: params.fp(),
        p_real: decrements_real(req.m, req.k, req.max, req.fp),
    })
}
