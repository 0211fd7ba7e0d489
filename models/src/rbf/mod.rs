//! Recycling Bloom filters (RBF), one- and two-phase.
//!
//! K. Dozier, L. Salamatian, D. Rubenstein, *Modeling Average False Positive Rates of
//! Recycling Bloom Filters*, arXiv:2401.02647, 2024 (`004_052894280afd131c.txt`).
//!
//! An RBF is a Bloom filter of `M` bits and `k` hashes that is cleared ("recycled") when
//! it is full enough: σ-bounded when the bits set `b` exceed σ, N-bounded after `N`
//! bit-setting messages. Hashes are *colliding* (with replacement) or *distinct*
//! (without); the message that triggers a recycle is dropped (*non-retaining*) or
//! re-inserted into the empty filter (*retaining*). A *two-phase* RBF keeps two filters of
//! `M/2` bits: messages go to the active one; when it overflows, the frozen one is
//! cleared and the roles swap; a query hits if either filter holds all its bits.
//!
//! False positives are counted per instance (Section II-E [RBF]): the fraction of new
//! messages (first arrival in the current cycle) reported as seen.
//!
//! | quantity | Eq. [RBF] | function |
//! |---|---|---|
//! | transitions τ_k(i, j), four variants | (4)-(14) | [`transitions::new_bits`], [`transitions::recycle_law`] |
//! | stationary π | (15)-(16) | [`chain::stationary`] |
//! | ρ(i) | (17) | [`transitions::rho`] |
//! | f_σ¹ | (18) | [`chain::solve`], [`RbfParams::metrics`] |
//! | k = 1 closed form | (19) | [`fp_k1_closed_form`] |
//! | E[N_0] as printed | (20)-(23) | [`chain::messages_paper`] |
//! | f_σ² | (24)-(26) | [`chain::ChainSolution::fp_two_phase`] |
//! | two phases on a pool of repeats | (not in the paper; Eq. (26) bounds it) | [`repeats::two_phase_pool`] |
//! | f_w, f_o, f_a | (1)-(3) | [`RbfNParams::metrics`] |
//! | whole curve in σ | | [`chain::CurveScan`] |
//! | large-M approximation | | [`fluid::point`] |
//! | false negatives, cycle length | (not in the paper) | [`forgetting`] |
//! | capacity optimizer | Figs. 6-8 | [`design`], [`least_bits`] |
//! | capacity by f_w, f_a | (1), (3), Figs. 6-7 | [`worst_case_messages`], [`lower_bound_messages`] |
//! | two-phase design for a guaranteed window | (not in the paper) | [`design_window`] |
//!
//! # Assumptions
//! Ideal hashes; every counted arrival is a message new to the filter(s) it is checked
//! against (Eq. (26) also assumes it is new to both filters of a two-phase RBF).
//!
//! # Known errata
//! * Every formula is printed twice and cross-references are renumbered: "identical form
//!   to equation (2)" means Eq. (4); "apply (12)" and "Equation (12) now holds only for
//!   i > k" mean Eq. (15); "the equations of (12) and (13)" mean (15) and (16); Eq. (25)'s
//!   denominator is `Σ_j F̂_j`; Eq. (19)'s normaliser is a constant:
//!   `f = Σ_{i≤σ} i/(M(M−i)) / Σ_{j≤σ} 1/(M−j)`.
//! * Eqs. (4)-(5), (11)-(12) recurse over the hash index; with distinct hashes the
//!   denominators at hash `h` are `M − (h−1)`. The overflow mass (`b > σ`) is kept apart
//!   from state 0 here.
//! * Distinct hashes, non-retaining: the text sets `π_i = 0` for `i < k`, but state 0
//!   (the empty filter that takes a cycle's first message) stays: `π_0 = 1/E[messages]`.
//! * Eq. (10) (colliding + retaining) multiplies `τ(i,0)·τ(0,j)`, treating "this message
//!   overflowed" and "it sets j bits on re-insertion" as independent. They are not: a
//!   message with more distinct positions overflows more often. [`chain::solve`] uses the
//!   exact joint law (`fp_avg`); the printed form is kept as `fp_avg_paper`. The gap is
//!   about 1% for M ≤ 200 and below 1e-5 relative for M ≥ 1000 (tests).
//! * Eqs. (20)-(23) set `E[N_b] = 0` for `b ≥ σ`: messages needed to *reach* σ bits. The
//!   cycle ends when `b > σ`, so the mean cycle is `1/π_0` (`expected_messages`); the
//!   printed form is `expected_messages_paper`.
//!
//! # Example
//! The one-phase σ-bounded chain at the paper's M = 1000 bits (Section V-A), and the
//! capacity comparison of Figure 6: at fp = 1% the worst-case formula (Eq. (1)) sizes an
//! RBF for about a third fewer messages per cycle than the average-case model (Eq. (18)).
//! ```
//! use bfopt_models::rbf::{
//!     design, worst_case_messages, Hashing, Method, RbfParams, RbfRequirement, Recycling,
//! };
//! let p = RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::NonRetaining)?;
//! let m = p.metrics(Method::Exact)?;
//! assert!((m.fp_avg - 0.03486).abs() < 5e-6); // f_σ¹, Eq. (18)
//! assert!((m.expected_messages - 229.9).abs() < 0.05 && m.min_messages == 151);
//!
//! let d = design(10_000, &RbfRequirement::new(0.01, 1)?)?;
//! assert!(d.metrics.fp_avg <= 0.01);
//! let (_, worst) = worst_case_messages(10_000, 0.01, 1)?;
//! let loss = 1.0 - worst as f64 / d.metrics.expected_messages;
//! assert!(loss > 0.30 && loss < 0.35, "{loss}"); // Figure 6: "> 30%"
//! # Ok::<(), bfopt_models::error::ModelError>(())
//! ```
//!
//! # References
//! * K. Dozier, L. Salamatian, D. Rubenstein, arXiv:2401.02647 (2024).

pub mod chain;
mod design;
pub mod fluid;
pub mod forgetting;
mod nbounded;
pub mod repeats;
pub mod stream;
pub mod transitions;

#[cfg(test)]
mod tests;

pub use design::{
    design, design_window, least_bits, least_bits_observed, lower_bound_messages,
    worst_case_messages, RbfDesign, RbfRequirement, DESIGN_EXACT_BITS, DESIGN_EXACT_LIMIT,
    DESIGN_EXACT_WORK, LOWER_BOUND_TERMS,
};
pub use nbounded::{fp_worst, ln_fp_worst, RbfNMetrics};

use crate::error::{check, ModelError};
use serde::Serialize;
use std::ops::RangeInclusive;
use transitions::{Law, Retention};

/// Colliding (with replacement) or distinct (without) hash positions, Section II-A1 [RBF].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hashing {
    /// The `k` positions are drawn with replacement.
    Colliding,
    /// The `k` positions are distinct ("non-colliding").
    Distinct,
}

/// What happens to the message that triggers a recycle, Section IV-B [RBF].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recycling {
    /// Dropped: the next cycle starts empty.
    NonRetaining,
    /// Re-inserted as the first message of the next cycle.
    Retaining,
}

/// How to evaluate the σ-bounded model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The chain, exactly: `O(k²·σ)` time, `O(k²)` memory.
    Exact,
    /// The level-crossing approximation ([`fluid`]): `O(k)`; relative error about `5/M`.
    Fluid,
    /// Exact when `k²·σ ≤` [`EXACT_BUDGET`], else fluid.
    Auto,
}

/// Largest `k²·σ` that [`Method::Auto`] solves exactly (about a second).
pub const EXACT_BUDGET: f64 = 1e9;

/// Largest `k²·σ` that [`Method::Exact`] accepts: about 5-10 s on one core (measured,
/// issue 10: `k²·σ = 4·10^9` took 13 s, `10^10` took 57 s, on a loaded 2-core machine).
/// Beyond, the exact method is refused before it starts; use [`Method::Auto`] or
/// [`Method::Fluid`].
pub const EXACT_LIMIT: f64 = 2e9;

impl Method {
    fn resolve(self, k: u32, sigma: u64) -> Method {
        match self {
            Method::Auto
                if f64::from(k).powi(2) * sigma as f64 <= crate::budget::cap(EXACT_BUDGET) =>
            {
                Method::Exact
            }
            Method::Auto => Method::Fluid,
            m => m,
        }
    }
}

/// Parameters of a σ-bounded RBF.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfParams {
    bits: u64,
    k: u32,
    sigma: u64,
    phases: u8,
    hashing: Hashing,
    recycling: Recycling,
}

impl RbfParams {
    /// Allowed total memory in bits.
    pub const BITS: RangeInclusive<u64> = 2..=1_000_000_000_000_000;
    /// Allowed hash counts.
    pub const K: RangeInclusive<u32> = 1..=64;
    /// Allowed phase counts.
    pub const PHASES: RangeInclusive<u8> = 1..=2;

    /// Validates and builds the parameters. `bits` is the total memory: with two phases
    /// each filter has `bits/2` (the paper's `M' = 2M`); `sigma` is per filter.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] for `bits`, `k`, `phases` out of range, an odd `bits`
    /// with two phases, or `sigma` outside `k ≤ σ < M` (M = bits per filter).
    pub fn new(
        bits: u64,
        k: u32,
        sigma: u64,
        phases: u8,
        hashing: Hashing,
        recycling: Recycling,
    ) -> Result<Self, ModelError> {
        check::in_range("bits", bits, Self::BITS)?;
        check::in_range("k", k, Self::K)?;
        check::in_range("phases", phases, Self::PHASES)?;
        if phases == 2 && bits % 2 == 1 {
            return Err(ModelError::invalid(
                "bits",
                bits,
                "an even number with two phases (each filter has bits/2)",
            ));
        }
        let m = bits / u64::from(phases);
        if sigma < u64::from(k) || sigma >= m {
            return Err(ModelError::invalid(
                "sigma",
                sigma,
                format!("k = {k} <= sigma < M = {m} (bits per filter)"),
            ));
        }
        Ok(Self {
            bits,
            k,
            sigma,
            phases,
            hashing,
            recycling,
        })
    }

    /// Total memory in bits.
    pub fn bits(&self) -> u64 {
        self.bits
    }
    /// Bits per filter `M`.
    pub fn m(&self) -> u64 {
        self.bits / u64::from(self.phases)
    }
    /// Hashes per message `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Recycle threshold σ (recycle when more than σ bits are set).
    pub fn sigma(&self) -> u64 {
        self.sigma
    }
    /// One or two phases.
    pub fn phases(&self) -> u8 {
        self.phases
    }
    /// The hashing.
    pub fn hashing(&self) -> Hashing {
        self.hashing
    }
    /// The recycling.
    pub fn recycling(&self) -> Recycling {
        self.recycling
    }
    /// The hashing law of one filter.
    pub fn law(&self) -> Law {
        Law {
            m: self.m(),
            k: self.k,
            hashing: self.hashing,
        }
    }
    /// The retention law with the exact joint law.
    pub fn retention(&self) -> Retention {
        match self.recycling {
            Recycling::NonRetaining => Retention::None,
            Recycling::Retaining => Retention::Exact,
        }
    }

    /// The retention of `fp_avg_paper` where it differs from [`Self::retention`]: Eq. (10)
    /// [RBF] as printed, for colliding + retaining.
    fn paper_retention(&self) -> Option<Retention> {
        (self.recycling == Recycling::Retaining && self.hashing == Hashing::Colliding)
            .then_some(Retention::Paper)
    }

    /// Fewest new messages a cycle can take: `⌈(σ + 1 − s)/k⌉` with start bits `s = 0`
    /// (non-retaining) or `s = k` (retaining).
    pub fn min_messages(&self) -> u64 {
        let k = u64::from(self.k);
        let start = match self.recycling {
            Recycling::NonRetaining => 0,
            Recycling::Retaining => k,
        };
        (self.sigma + 1 - start).div_ceil(k)
    }

    /// Two phases: a message inserted into the active filter (and not itself the
    /// recycling one) is still held when any of the next `1 + min_messages` new messages
    /// arrives: the active filter may overflow at the very next arrival, and the filter
    /// that replaces it takes at least [`Self::min_messages`] arrivals before it overflows
    /// and clears the first. `None` with one phase (the next arrival may recycle).
    pub fn fn_window(&self) -> Option<u64> {
        (self.phases == 2).then(|| 1 + self.min_messages())
    }

    /// `method` resolved for these parameters.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `sigma` when [`Method::Exact`] is asked for
    /// beyond [`EXACT_LIMIT`].
    fn resolve(&self, method: Method) -> Result<Method, ModelError> {
        let method = method.resolve(self.k, self.sigma);
        let work = f64::from(self.k).powi(2) * self.sigma as f64;
        if method == Method::Exact && work > EXACT_LIMIT {
            return Err(ModelError::invalid(
                "sigma",
                self.sigma,
                format!(
                    "k²·sigma <= {EXACT_LIMIT:e} with the exact method (k²·sigma = {work:.1e} \
                     would take about {:.0} s; use auto or fluid)",
                    work * 4e-9
                ),
            ));
        }
        if method == Method::Exact {
            crate::budget::check(work, "the exact RBF chain (k²·sigma steps)")?;
        }
        Ok(method)
    }

    /// The natural logs of the FPs of [`Self::metrics`] by `method`, keyed by their names
    /// (`fp_avg`, `fp_avg_paper`, and `fp_frozen` with two phases), in log space so that
    /// they keep their relative precision below the smallest `f64` (2.2e-308).
    ///
    /// # Formula
    /// The chain ([`chain::solve_ln`]): `ln f_σ¹ = LSE_i(ln g_i + ln ρ(i)) − ln Σ_i g_i`,
    /// Eq. (18) [RBF], with `ln ρ(i)` of Eq. (17) ([`transitions::ln_rho`]); the frozen
    /// filter likewise (Eqs. (24)-(25)); two phases `ln f_σ²` by
    /// [`crate::numeric::ln_either`] (Eq. (26)). The fluid limit: [`fluid::ln_point`].
    ///
    /// # Example
    /// M = 10^7 bits, k = 64, σ = 100: a cycle's first message sees 0 bits and sets 64,
    /// the second sees 64 and recycles (128 > σ), so `f_σ¹ ≈ ρ(64)/2 = (6.4·10^-6)^64/2
    /// = 10^-332.7` (collisions move it by about 1e-4 relative): `fp_avg` underflows
    /// to 0 in [`Self::metrics`] but not here.
    /// ```
    /// use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
    /// let p = RbfParams::new(10_000_000, 64, 100, 1, Hashing::Colliding, Recycling::NonRetaining)?;
    /// assert_eq!(p.metrics(Method::Auto)?.fp_avg, 0.0);
    /// let ln = p.ln_metrics(Method::Auto)?;
    /// assert_eq!(ln[0].0, "fp_avg");
    /// let log10 = ln[0].1 / std::f64::consts::LN_10;
    /// let want = 64.0 * 6.4e-6f64.log10() - 2f64.log10();
    /// assert!((log10 - want).abs() < 1e-3, "{log10}");
    /// # Ok::<(), bfopt_models::error::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::metrics`].
    pub fn ln_metrics(&self, method: Method) -> Result<Vec<(&'static str, f64)>, ModelError> {
        let law = self.law();
        let two = self.phases == 2;
        let (ln_fp, ln_paper, ln_frozen) = match self.resolve(method)? {
            Method::Exact => {
                let sol = chain::solve_ln(law, self.sigma, self.retention())?;
                let paper = match self.paper_retention() {
                    Some(r) => chain::solve_ln(law, self.sigma, r)?,
                    None => sol,
                };
                let pick = |s: &chain::ChainLogs| {
                    if two {
                        s.ln_fp_two_phase()
                    } else {
                        s.ln_fp
                    }
                };
                (pick(&sol), pick(&paper), sol.ln_fp_frozen)
            }
            _ => {
                let (ln_fp, ln_frozen) =
                    fluid::ln_point(law, self.sigma, self.recycling == Recycling::Retaining);
                let f = if two {
                    crate::numeric::ln_either(ln_fp, ln_frozen)
                } else {
                    ln_fp
                };
                (f, f, ln_frozen)
            }
        };
        let mut out = vec![("fp_avg", ln_fp), ("fp_avg_paper", ln_paper)];
        if two {
            out.push(("fp_frozen", ln_frozen));
        }
        Ok(out)
    }

    /// All metrics by `method`.
    ///
    /// # Example
    /// Section V-A [RBF]: M = 1000 bits; two phases split them (500 bits per filter).
    /// ```
    /// use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
    /// let one = RbfParams::new(1000, 4, 600, 1, Hashing::Colliding, Recycling::NonRetaining)
    ///     .unwrap()
    ///     .metrics(Method::Exact)
    ///     .unwrap();
    /// assert!((one.fp_avg - 0.03486).abs() < 5e-6);
    /// assert!(one.expected_messages > one.expected_messages_paper);
    /// let two = RbfParams::new(1000, 4, 300, 2, Hashing::Colliding, Recycling::NonRetaining)
    ///     .unwrap()
    ///     .metrics(Method::Exact)
    ///     .unwrap();
    /// assert_eq!(two.fn_window, Some(1 + 301u64.div_ceil(4)));
    /// ```
    ///
    /// # Errors
    /// As [`chain::solve`]; [`ModelError::InvalidParam`] naming `sigma` when
    /// [`Method::Exact`] is asked for beyond [`EXACT_LIMIT`].
    pub fn metrics(&self, method: Method) -> Result<RbfMetrics, ModelError> {
        let law = self.law();
        let two = self.phases == 2;
        let method = self.resolve(method)?;
        let (fp_avg, fp_avg_paper, fp_frozen, messages, messages_paper) = match method {
            Method::Exact => {
                // Three passes over the σ states, each `O(k²·σ)`, on the rayon pool (issue
                // 18: they were a third of `optimize rbf --messages`).
                let ((sol, paper), messages_paper) = rayon::join(
                    || {
                        rayon::join(
                            || chain::solve(law, self.sigma, self.retention()),
                            || {
                                self.paper_retention()
                                    .map(|r| chain::solve(law, self.sigma, r))
                            },
                        )
                    },
                    || chain::messages_paper(law, self.sigma),
                );
                let sol = sol?;
                let paper = match paper {
                    Some(paper) => paper?,
                    None => sol.clone(),
                };
                let pick = |s: &chain::ChainSolution| if two { s.fp_two_phase() } else { s.fp };
                (
                    pick(&sol),
                    pick(&paper),
                    sol.fp_frozen,
                    sol.messages,
                    messages_paper,
                )
            }
            _ => {
                let p = fluid::point(law, self.sigma, self.recycling == Recycling::Retaining);
                let f = if two {
                    crate::numeric::either(p.fp, p.fp_frozen)
                } else {
                    p.fp
                };
                // A cycle takes at least `min_messages` new messages; the fluid estimate
                // can fall below that when σ is within a few k of the start state
                // (issue 10: M = 27 500, k = 13, σ = 13, retaining gave 0.08).
                let floor = self.min_messages() as f64;
                (
                    f,
                    f,
                    p.fp_frozen,
                    p.messages.max(floor),
                    p.messages_paper.max(0.0),
                )
            }
        };
        debug_assert!((0.0..=1.0).contains(&fp_avg), "fp_avg = {fp_avg}");
        Ok(RbfMetrics {
            fp_avg: crate::numeric::probability(fp_avg),
            fp_avg_paper: crate::numeric::probability(fp_avg_paper),
            fp_frozen: two.then_some(crate::numeric::probability(fp_frozen)),
            expected_messages: messages,
            expected_messages_paper: messages_paper,
            min_messages: self.min_messages(),
            fn_window: self.fn_window(),
            method: match method {
                Method::Exact => "exact",
                _ => "fluid",
            },
        })
    }
}

/// Predicted metrics of a σ-bounded RBF.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfMetrics {
    /// Long-run count-instance FP: f_σ¹ (Eq. (18) [RBF]) with one phase, f_σ² (Eq. (26))
    /// with two; retaining chains use the exact re-insertion law.
    pub fp_avg: f64,
    /// The same with Eq. (10) [RBF] exactly as printed (equal to `fp_avg` except for
    /// colliding + retaining).
    pub fp_avg_paper: f64,
    /// Two phases: the mean FP of the frozen filter, `Σ F_i ρ(i)` (Eqs. (24)-(25)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp_frozen: Option<f64>,
    /// Mean new messages per cycle (a cycle ends when `b > σ`): `1/π_0` non-retaining.
    pub expected_messages: f64,
    /// E[N_0] of Eqs. (20)-(23) [RBF] as printed (`E[N_b] = 0` for `b ≥ σ`).
    pub expected_messages_paper: f64,
    /// Fewest new messages a cycle can take.
    pub min_messages: u64,
    /// Two phases: new messages during which an inserted message is guaranteed held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fn_window: Option<u64>,
    /// `exact` or `fluid`.
    pub method: &'static str,
}

/// Parameters of an N-bounded RBF: `m` bits, `k` hashes, recycle after `n` bit-setting
/// messages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfNParams {
    m: u64,
    k: u32,
    n: u64,
}

impl RbfNParams {
    /// Allowed `N`: the metrics sum `N` terms (about 50 ns each), so `10^8` is a few
    /// seconds (issue 10: `N = 10^9` took 45 s).
    pub const N: RangeInclusive<u64> = 1..=100_000_000;

    /// Validates and builds the parameters.
    ///
    /// # Errors
    /// `m` outside [`RbfParams::BITS`], `k` outside [`RbfParams::K`], `n` outside
    /// [`Self::N`]; [`ModelError::WorkLimit`] when the metrics' `N` terms (50 steps each)
    /// exceed the [`crate::budget`] allowance a caller set.
    pub fn new(m: u64, k: u32, n: u64) -> Result<Self, ModelError> {
        check::in_range("bits", m, RbfParams::BITS)?;
        check::in_range("k", k, RbfParams::K)?;
        check::in_range("n", n, Self::N)?;
        crate::budget::check(50.0 * n as f64, "the N-bounded RBF sums (N terms)")?;
        Ok(Self { m, k, n })
    }
    /// Bits `M`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Hashes `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Recycle point `N`.
    pub fn n(&self) -> u64 {
        self.n
    }
}

/// Eq. (19) [RBF], colliding, non-retaining, `k = 1`:
/// `f = Σ_{i≤σ} i/(M(M−i)) / Σ_{j≤σ} 1/(M−j)` (the normaliser is a constant).
///
/// # Example
/// ```
/// use bfopt_models::rbf::{fp_k1_closed_form, Hashing, Method, RbfParams, Recycling};
/// let p = RbfParams::new(1000, 1, 500, 1, Hashing::Colliding, Recycling::NonRetaining).unwrap();
/// let chain = p.metrics(Method::Exact).unwrap().fp_avg;
/// assert!((chain - fp_k1_closed_form(1000, 500)).abs() < 1e-14);
/// ```
pub fn fp_k1_closed_form(m: u64, sigma: u64) -> f64 {
    let mf = m as f64;
    let mut num = crate::numeric::CompensatedSum::new();
    let mut den = crate::numeric::CompensatedSum::new();
    for i in 0..=sigma {
        let i = i as f64;
        num.add(i / (mf * (mf - i)));
        den.add(1.0 / (mf - i));
    }
    num.value() / den.value()
}
#[cfg(test)]
mod extremes;
