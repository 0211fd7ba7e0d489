//! Capacity optimizer: the `(k, σ)` that maximise the messages per cycle under an average
//! FP target (Section V-B [RBF], Figures 6-8), the least memory for a message count, and
//! the worst-case (Eq. (1)) design for comparison.

use super::chain::{solve, CurveScan};
use super::fluid;
use super::transitions::{Law, Retention};
use super::{Hashing, Method, RbfMetrics, RbfParams, Recycling};
use crate::error::{check, ModelError};
use crate::numeric::{first_true_around, last_true, CompensatedSum};
use serde::Serialize;

/// What an RBF must achieve: average FP at most `fp`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfRequirement {
    #[serde(rename = "fp_target")]
    fp: f64,
    phases: u8,
    hashing: Hashing,
    recycling: Recycling,
    k_max: u32,
    #[serde(skip)]
    method: Method,
}

impl RbfRequirement {
    /// Average FP at most `fp` (0 < fp < 1), colliding, non-retaining, `Method::Auto`.
    ///
    /// # Errors
    /// `fp` outside `[1e-300, 1)` ([`check::FP_TARGET_MIN`]); `phases` outside 1..=2.
    pub fn new(fp: f64, phases: u8) -> Result<Self, ModelError> {
        check::fp_target("fp", fp)?;
        check::in_range("phases", phases, RbfParams::PHASES)?;
        Ok(Self {
            fp,
            phases,
            hashing: Hashing::Colliding,
            recycling: Recycling::NonRetaining,
            k_max: *RbfParams::K.end(),
            method: Method::Auto,
        })
    }

    /// Sets the hashing and recycling variant.
    pub fn with_variant(mut self, hashing: Hashing, recycling: Recycling) -> Self {
        self.hashing = hashing;
        self.recycling = recycling;
        self
    }

    /// Sets how the model is evaluated.
    pub fn with_method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// The FP target.
    pub fn fp(&self) -> f64 {
        self.fp
    }
}

/// An optimised RBF.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfDesign {
    /// The chosen parameters.
    pub params: RbfParams,
    /// Their metrics (`fp_avg ≤` the target).
    pub metrics: RbfMetrics,
    /// The FP target.
    pub fp_target: f64,
    /// New messages per cycle of the worst-case design (Eq. (1) [RBF] at the target, best
    /// `k`), same memory and phases.
    pub worst_case_messages: u64,
    /// The `k` of the worst-case design.
    pub worst_case_hashes: u32,
}

/// Largest bits per filter that [`Method::Auto`] designs with the exact chain (a design
/// scans about ten `k`, each `O(k²·σ)`: about a second here); beyond, the fluid model.
pub const DESIGN_EXACT_BITS: u64 = 2_000_000;

/// Largest estimated work of an exact [`design`] under [`Method::Auto`] (a few seconds):
/// `M·Σ_{k ≤ k_est} k²` with `k_est = ⌈log2(1/fp)⌉ + 3`, the `k` the scan reaches
/// (issue 10: at M = 10^6 and fp = 10^-15 the exact design took 8 s; it now uses the
/// fluid model, relative error about `5/M`).
pub const DESIGN_EXACT_WORK: f64 = 2e9;

/// Estimated work of an exact design of `m` bits per filter: see [`DESIGN_EXACT_WORK`].
fn design_work(m: u64, req: &RbfRequirement) -> f64 {
    let k_est = ((-req.fp.log2()).ceil() as u32)
        .saturating_add(3)
        .clamp(1, req.k_max);
    m as f64 * (1..=k_est).map(|k| f64::from(k).powi(2)).sum::<f64>()
}

/// Largest bits per filter that [`design`] accepts with an explicit [`Method::Exact`]
/// (about ten seconds); beyond, it is refused before starting.
pub const DESIGN_EXACT_LIMIT: u64 = 10_000_000;

/// Largest σ for `k` with average FP within target, and its messages per cycle.
pub(super) fn best_sigma(law: Law, req: &RbfRequirement) -> Option<(u64, f64)> {
    let two = req.phases == 2;
    let retaining = req.recycling == Recycling::Retaining;
    let k = law.k;
    let sig_hi = law.m - 1;
    if sig_hi < u64::from(k) {
        return None;
    }
    let exact = req.method == Method::Exact;
    if !exact {
        let fp_at = |s: u64| {
            let p = fluid::point(law, s, retaining);
            if two {
                crate::numeric::either(p.fp, p.fp_frozen)
            } else {
                p.fp
            }
        };
        let s = last_true(u64::from(k), sig_hi, |s| fp_at(s) <= req.fp)?;
        return Some((s, fluid::point(law, s, retaining).messages));
    }
    if !retaining {
        let mut best = None;
        let mut scan = CurveScan::new(law, false);
        while let Some(p) = scan.next() {
            let f = if two {
                // The frozen FP is at most ρ(σ) (to 1e-13, [`CurveScan::rho_last`]) and
                // `either` grows with it, so where the bound passes the FP passes too:
                // the frozen sum is made only near the end of the scan, and the scan
                // stops where it did with the sum at every σ.
                let bound = crate::numeric::either(p.fp, scan.rho_last() * (1.0 + 1e-12));
                if bound <= req.fp {
                    bound
                } else {
                    crate::numeric::either(p.fp, scan.frozen_fp())
                }
            } else {
                p.fp
            };
            if f > req.fp {
                break;
            }
            best = Some((p.sigma, p.messages));
        }
        return best;
    }
    let retention = Retention::Exact;
    let fp_at = |s: u64| {
        solve(law, s, retention)
            .map(|sol| if two { sol.fp_two_phase() } else { sol.fp })
            .unwrap_or(1.0)
    };
    let s = last_true(u64::from(k), sig_hi, |s| fp_at(s) <= req.fp)?;
    solve(law, s, retention).ok().map(|sol| (s, sol.messages))
}

/// The `(k, σ)` with the most expected new messages per cycle for `bits` of memory and
/// average FP at most the target (Section V-B [RBF]). [`Method::Auto`] solves exactly up
/// to [`DESIGN_EXACT_BITS`] bits per filter while the estimated work is within
/// [`DESIGN_EXACT_WORK`], and with the fluid model beyond. `k` is scanned upward and the scan
/// stops once the best σ's message count has fallen three times in a row (it is unimodal
/// in `k`).
///
/// # Errors
/// Invalid `bits` (see [`RbfParams::new`]); with [`Method::Exact`], more than
/// [`DESIGN_EXACT_LIMIT`] bits per filter or ten times [`DESIGN_EXACT_WORK`]; [`ModelError::Infeasible`] when no `k` meets
/// the target.
pub fn design(bits: u64, req: &RbfRequirement) -> Result<RbfDesign, ModelError> {
    check::in_range("bits", bits, RbfParams::BITS)?;
    if req.phases == 2 && bits % 2 == 1 {
        return Err(ModelError::invalid(
            "bits",
            bits,
            "an even number with two phases (each filter has bits/2)",
        ));
    }
    let m = bits / u64::from(req.phases);
    let work = design_work(m, req);
    // Under a work allowance (crate::budget), Auto takes the fluid model once the exact
    // scans would need more than is left, and the exact scans are paid from it.
    let method = match req.method {
        Method::Auto if m <= DESIGN_EXACT_BITS && work <= crate::budget::cap(DESIGN_EXACT_WORK) => {
            Method::Exact
        }
        Method::Auto => Method::Fluid,
        other => other,
    };
    if method == Method::Exact && (m > DESIGN_EXACT_LIMIT || work > 10.0 * DESIGN_EXACT_WORK) {
        return Err(ModelError::invalid(
            "bits",
            bits,
            format!(
                "at most {DESIGN_EXACT_LIMIT} bits per filter with the exact method (a design \
                 scans σ up to M for each k: minutes beyond); use auto or fluid"
            ),
        ));
    }
    if method == Method::Exact {
        crate::budget::spend(work, "the RBF design's exact σ scans")?;
    }
    let req = &req.with_method(method);
    let scanned = |k: u32| k <= req.k_max && u64::from(k) < m;
    let at = |k: u32| {
        let law = Law {
            m,
            k,
            hashing: req.hashing,
        };
        (k, best_sigma(law, req))
    };
    let best = if req.method == Method::Exact {
        best_exact(m, req, scanned, at)
    } else {
        best_upward(m, scanned, at)?
    };
    let (worst_case_hashes, worst_case_messages) = worst_case_messages(bits, req.fp, req.phases)?;
    let Some((k, sigma, _)) = best else {
        return Err(ModelError::infeasible(
            format!("average fp <= {}", crate::error::show_rate(req.fp)),
            format!("no k <= {} and sigma with bits = {bits}", req.k_max),
        ));
    };
    let params = RbfParams::new(bits, k, sigma, req.phases, req.hashing, req.recycling)?;
    Ok(RbfDesign {
        params,
        metrics: params.metrics(req.method)?,
        fp_target: req.fp,
        worst_case_messages,
        worst_case_hashes,
    })
}

/// The fluid design's `(k, σ, messages)`: `k` is scanned upward and the scan stops once
/// the best σ's message count has fallen three times in a row (it is unimodal in `k`,
/// nearly: see [`best_exact`]). Each `k` is paid from the work allowance as a fluid one
/// (σ bisected over `1..M`, one `O(k)` fluid point per step).
pub(super) fn best_upward(
    m: u64,
    scanned: impl Fn(u32) -> bool,
    at: impl Fn(u32) -> (u32, Option<(u64, f64)>),
) -> Result<Option<(u32, u64, f64)>, ModelError> {
    let mut best: Option<(u32, u64, f64)> = None;
    let mut falling = 0;
    let points = 2.0 * (m as f64).log2().ceil();
    let mut k = 1;
    while scanned(k) {
        crate::budget::spend(
            points * f64::from(2 * k + 1),
            "the RBF design's fluid σ scans",
        )?;
        match (at(k).1, best) {
            (Some((_, messages)), Some((_, _, e))) if messages <= e => falling += 1,
            (Some((sigma, messages)), _) => {
                best = Some((k, sigma, messages));
                falling = 0;
            }
            (None, Some(_)) => falling += 1,
            (None, None) => {}
        }
        if falling == 3 {
            break;
        }
        k += 1;
    }
    Ok(best)
}

/// Relative error allowed for the fluid model's messages per cycle at a `k`'s best σ when
/// it screens the `k` of an exact design ([`best_exact`]): `10⁻³ + 10·(k + 1)/σ`. Measured
/// against the exact chain (M = 5·10³…2·10⁶, fp = 10⁻¹…10⁻⁶, k ≤ 20, one or two phases) the
/// error is at most about `(k/4 + 1/2)/σ`, `1.0·10⁻³` at its largest (M = 5000, k = 20); the
/// allowance is 20 times that and more.
fn fluid_margin(k: u32, sigma: u64) -> f64 {
    1e-3 + 10.0 * f64::from(k + 1) / sigma.max(1) as f64
}

/// The exact design's `(k, σ, messages)`: the most messages over every `k` that can win.
///
/// The fluid model (`O(k·log M)` per `k`) bounds each `k`'s exact messages within
/// [`fluid_margin`]; a `k` whose upper bound is below the best lower bound cannot have the
/// most messages and is not scanned exactly (issue 18: at 1.5·10⁶ bits per filter and fp
/// 10⁻³ two `k` of the fourteen the upward scan made). A `k` the fluid model finds
/// infeasible is kept (its exact scan stops at once where it is infeasible too). The
/// survivors are scanned on the rayon pool; ties go to the smallest `k`, as the upward scan
/// of [`best_upward`] kept them. That scan stopped after three falls in a row; on filters
/// of a few dozen bits the messages are not unimodal in `k`, and this search finds the
/// better `k` past such a stop (`super::tests::issue_18_screened_k_is_the_upward_scan_or_better`).
pub(super) fn best_exact(
    m: u64,
    req: &RbfRequirement,
    scanned: impl Fn(u32) -> bool,
    at: impl Fn(u32) -> (u32, Option<(u64, f64)>) + Sync + Send,
) -> Option<(u32, u64, f64)> {
    use rayon::prelude::*;
    let fluid = req.with_method(Method::Fluid);
    let bounds: Vec<(u32, f64, f64)> = (1..)
        .take_while(|&k| scanned(k))
        .map(|k| {
            let law = Law {
                m,
                k,
                hashing: req.hashing,
            };
            match best_sigma(law, &fluid) {
                Some((sigma, messages)) => {
                    let e = fluid_margin(k, sigma);
                    (k, messages * (1.0 + e), messages * (1.0 - e))
                }
                None => (k, f64::INFINITY, f64::NEG_INFINITY),
            }
        })
        .collect();
    let floor = bounds
        .iter()
        .map(|&(_, _, lower)| lower)
        .fold(f64::NEG_INFINITY, f64::max);
    let candidates: Vec<u32> = bounds
        .iter()
        .filter(|&&(_, upper, _)| upper >= floor)
        .map(|&(k, _, _)| k)
        .collect();
    let found: Vec<(u32, Option<(u64, f64)>)> = candidates.into_par_iter().map(&at).collect();
    found
        .into_iter()
        .filter_map(|(k, f)| f.map(|(sigma, messages)| (k, sigma, messages)))
        .fold(None, |best, (k, sigma, messages)| match best {
            Some((_, _, e)) if messages <= e => best,
            _ => Some((k, sigma, messages)),
        })
}

/// The worst-case (Eq. (1) [RBF]) design: the most messages `N` with
/// `(1 − (1 − 1/M)^(kN))^k ≤ p`, best `k`, returned as `(k, N)`:
/// `N = ⌊ln(1 − p^(1/k)) / (k·ln(1 − 1/M))⌋`. With two phases each filter has `bits/2`
/// and both may be at their worst, so `p = 1 − √(1 − fp)`.
///
/// # Errors
/// `fp` outside (0, 1), `bits` out of range.
pub fn worst_case_messages(bits: u64, fp: f64, phases: u8) -> Result<(u32, u64), ModelError> {
    check::open_probability("fp", fp)?;
    check::in_range("bits", bits, RbfParams::BITS)?;
    check::in_range("phases", phases, RbfParams::PHASES)?;
    let m = (bits / u64::from(phases)) as f64;
    let p = if phases == 2 {
        -(0.5 * (-fp).ln_1p()).exp_m1()
    } else {
        fp
    };
    let per_k = |k: u32| {
        let kf = f64::from(k);
        let n = (-(p.ln() / kf).exp_m1()).ln() / (kf * (-1.0 / m).ln_1p());
        n.max(0.0).floor() as u64
    };
    Ok((1..=*RbfParams::K.end())
        .map(|k| (k, per_k(k)))
        .max_by_key(|&(k, n)| (n, std::cmp::Reverse(k)))
        .unwrap_or((1, 0)))
}

/// The least memory (bits) whose [`design`] holds at least `messages` new messages per
/// cycle on average within the FP target. Brackets with the fluid model, then refines
/// with `req`'s method: one design at the fluid guess, a secant step from its message
/// count, then galloping and bisection ([`first_true_around`]), every design made once.
///
/// # Accuracy
/// The search, like the bisection before it, takes "the design holds the messages" as
/// monotone in the memory. It nearly is: with σ fixed, one more bit per filter lowers
/// the messages per cycle slightly, so the count is a sawtooth, and a target within one
/// tooth can hold at one size, fail at the next and hold again. So below the size that
/// fails, the sizes of its tooth (same `k` and σ, more messages the smaller the memory)
/// are tried too, and one that holds restarts the search below it (at 10^4 messages,
/// fp = 10^-4, two phases, the bisection found 387 244 bits, the search alone 387 248).
/// The test `issue_18_least_bits_equals_the_exhaustive_search` checks the answer against
/// the exhaustive search (every smaller size tried) on a grid of small cases; it differs
/// on a 13-bit filter whose best `k` changes from one size to the next.
///
/// # Errors
/// `messages` = 0; with [`Method::Exact`], a design beyond [`DESIGN_EXACT_LIMIT`] bits per
/// filter (refused before the exact refinement starts); [`ModelError::Infeasible`] beyond
/// [`RbfParams::BITS`].
pub fn least_bits(messages: u64, req: &RbfRequirement) -> Result<RbfDesign, ModelError> {
    least_bits_observed(messages, req, || {})
}

/// [`least_bits`], calling `step()` after each design of the refinement (about five;
/// each scans σ for about ten `k`: a quarter to half a second at 10^5 messages), so that a
/// caller can show progress.
///
/// # Errors
/// As [`least_bits`].
pub fn least_bits_observed(
    messages: u64,
    req: &RbfRequirement,
    mut step: impl FnMut(),
) -> Result<RbfDesign, ModelError> {
    if messages == 0 {
        return Err(ModelError::invalid("messages", 0, "messages >= 1"));
    }
    let unit = u64::from(req.phases);
    // A work limit (crate::budget) ends the search with that error: it is kept here, no
    // design is made after it, every size counts as holding (so each search stops), and
    // the error is returned after each stage.
    let limit = std::cell::RefCell::new(None);
    let stopped = || limit.borrow().is_some();
    let try_design = |bits: u64, r: &RbfRequirement| -> Option<RbfDesign> {
        if stopped() {
            return None;
        }
        match design(bits, r) {
            Err(e @ ModelError::WorkLimit { .. }) => {
                *limit.borrow_mut() = Some(e);
                None
            }
            d => d.ok(),
        }
    };
    let limited = || limit.borrow_mut().take().map_or(Ok(()), Err);
    let enough = |units: u64, r: &RbfRequirement| {
        try_design(units * unit, r).is_some_and(|d| d.metrics.expected_messages >= messages as f64)
            || stopped()
    };
    let fluid_req = req.with_method(Method::Fluid);
    let max_units = RbfParams::BITS.end() / unit;
    // Exponential search with the fluid model, then the requested method near it.
    let mut hi = 4u64;
    while hi < max_units && !enough(hi, &fluid_req) {
        hi = hi.saturating_mul(2).min(max_units);
    }
    let guess =
        crate::numeric::first_true(hi / 2, hi, |u| enough(u, &fluid_req)).ok_or_else(|| {
            ModelError::infeasible(
                format!(
                    "{messages} messages per cycle at fp <= {}",
                    crate::error::show_rate(req.fp)
                ),
                format!("more than {} bits", RbfParams::BITS.end()),
            )
        })?;
    limited()?;
    if req.method == Method::Exact && (guess + guess / 16 + 2) > DESIGN_EXACT_LIMIT {
        return Err(ModelError::invalid(
            "messages",
            messages,
            format!(
                "a design of at most {DESIGN_EXACT_LIMIT} bits per filter with the exact method \
                 (this needs about {} bits); use auto or fluid",
                guess * unit
            ),
        ));
    }
    // The requested method near the guess: one design there, a secant step from its
    // message count (messages grow about in proportion to memory), then galloping and
    // bisection from that step ([`first_true_around`]); every design is kept, so the
    // answer's is not made twice. At 10^5 messages, fp = 10^-3, two phases: 3 designs,
    // against about 20 for the bracket [guess ± guess/16] bisected (issue 18: 45 s);
    // with the look below the tooth, 5.
    let mut made: Vec<(u64, Option<RbfDesign>)> = Vec::new();
    let mut probe = |u: u64| -> Option<RbfDesign> {
        if let Some((_, d)) = made.iter().find(|(v, _)| *v == u) {
            return *d;
        }
        let d = try_design(u * unit, req);
        step();
        made.push((u, d));
        d
    };
    let meets = |d: &Option<RbfDesign>| {
        d.is_some_and(|d| d.metrics.expected_messages >= messages as f64) || stopped()
    };
    let step = probe(guess).map_or(guess, |d| {
        let got = d.metrics.expected_messages;
        let per_unit = got / guess as f64;
        let shift = (got - messages as f64) / per_unit;
        if !(per_unit > 0.0 && shift.is_finite()) {
            guess
        } else if shift >= 0.0 {
            guess.saturating_sub(shift.floor() as u64).max(1)
        } else {
            guess.saturating_add((-shift).ceil() as u64).min(max_units)
        }
    });
    let infeasible = || {
        ModelError::infeasible(
            format!(
                "{messages} messages per cycle at fp <= {}",
                crate::error::show_rate(req.fp)
            ),
            format!("more than {} bits", RbfParams::BITS.end()),
        )
    };
    let mut units =
        first_true_around(1, step, max_units, |u| meets(&probe(u))).ok_or_else(infeasible)?;
    // The predicate is a sawtooth (# Accuracy): below a size that fails, the sizes with
    // the same (k, σ) (its tooth) hold more messages, so they are tried too, down to the
    // tooth's first size; one that holds restarts the search below it.
    while units > 1 {
        let Some(fails) = probe(units - 1) else { break };
        let tooth = (fails.params.k(), fails.params.sigma());
        let mut lower = None;
        let mut u = units - 1;
        while u > 1 {
            u -= 1;
            match probe(u) {
                Some(d) if (d.params.k(), d.params.sigma()) == tooth => {
                    if meets(&Some(d)) {
                        lower = Some(u);
                        break;
                    }
                }
                _ => break,
            }
        }
        let Some(l) = lower else { break };
        units = first_true_around(1, l, l, |u| meets(&probe(u))).ok_or_else(infeasible)?;
    }
    let found = probe(units);
    limited()?;
    match found {
        Some(d) => Ok(d),
        None => design(units * unit, req),
    }
}

/// Largest `k²·σ` of one evaluation that [`design_window`] makes exactly (its bisection
/// makes about 40 per `k`).
const WINDOW_EXACT_WORK: f64 = 1e7;

/// The least memory of a two-phase RBF that guarantees a window of `window` new messages
/// (every message inserted is recognised by the next `window` new arrivals,
/// [`RbfParams::fn_window`]) at average FP ≤ the target; `k` is scanned upward and `σ` is
/// the smallest giving the window: `σ = max(k, k·(window − 2) + s)` with start bits
/// `s = 0` (non-retaining) or `k` (retaining). For each `k` the least `M` per filter is
/// found by bisection (the FP falls as `M` grows with `σ` fixed); evaluation is exact
/// while `k²·σ ≤ 10^7` and by the fluid model beyond (relative error about `5/M`); with
/// an explicit [`Method::Exact`] the `k` scan stops where `k²·σ > 10^7`.
///
/// # Errors
/// `window` = 0, one phase (a one-phase RBF guarantees no window: the next arrival may
/// recycle); with [`Method::Exact`], a window whose `k = 1` design already exceeds the
/// exact budget; [`ModelError::Infeasible`] when no memory within [`RbfParams::BITS`] works.
pub fn design_window(window: u64, req: &RbfRequirement) -> Result<RbfDesign, ModelError> {
    if window == 0 {
        return Err(ModelError::invalid("window", 0, "window >= 1"));
    }
    if req.phases != 2 {
        return Err(ModelError::invalid(
            "phases",
            req.phases,
            "2 (a one-phase RBF guarantees no window)",
        ));
    }
    let retaining = req.recycling == Recycling::Retaining;
    let m_max = RbfParams::BITS.end() / 2;
    let mut best: Option<(u64, u32, u64, Method)> = None;
    let mut rising = 0;
    for k in 1..=req.k_max {
        let kk = u64::from(k);
        let start = if retaining { kk } else { 0 };
        let sigma = kk
            .saturating_mul(window.saturating_sub(2))
            .saturating_add(start)
            .max(kk);
        if sigma >= m_max {
            break;
        }
        let work = f64::from(k).powi(2) * sigma as f64;
        let method = match req.method {
            Method::Auto if work <= WINDOW_EXACT_WORK => Method::Exact,
            Method::Auto => Method::Fluid,
            // An explicit exact design stops where one evaluation (of about 40 in the
            // bisection) would exceed the budget.
            Method::Exact if work > WINDOW_EXACT_WORK => {
                if best.is_none() {
                    return Err(ModelError::invalid(
                        "window",
                        window,
                        format!(
                            "k²·σ <= {WINDOW_EXACT_WORK:e} (σ = k·(window − 2)) with the exact \
                             method; use auto or fluid"
                        ),
                    ));
                }
                break;
            }
            other => other,
        };
        let meets = |m: u64| {
            RbfParams::new(2 * m, k, sigma, 2, req.hashing, req.recycling)
                .and_then(|p| p.metrics(method))
                .is_ok_and(|x| x.fp_avg <= req.fp)
        };
        let mut hi = (2 * sigma).max(sigma + 2);
        while hi < m_max && !meets(hi) {
            hi = hi.saturating_mul(2).min(m_max);
        }
        let Some(m) = crate::numeric::first_true(sigma + 1, hi, meets) else {
            continue;
        };
        match best {
            Some((bm, ..)) if m >= bm => {
                rising += 1;
                if rising == 3 {
                    break;
                }
            }
            _ => {
                best = Some((m, k, sigma, method));
                rising = 0;
            }
        }
    }
    let Some((m, k, sigma, method)) = best else {
        return Err(ModelError::infeasible(
            format!(
                "window >= {window} at average fp <= {}",
                crate::error::show_rate(req.fp)
            ),
            format!("no memory up to {} bits", RbfParams::BITS.end()),
        ));
    };
    let params = RbfParams::new(2 * m, k, sigma, 2, req.hashing, req.recycling)?;
    let (worst_case_hashes, worst_case_messages) = worst_case_messages(2 * m, req.fp, 2)?;
    Ok(RbfDesign {
        params,
        // The method `m` was searched with: under `Method::Auto` a design searched with the
        // fluid model (k²·σ above 10^7) and reported by the exact chain printed an FP
        // above its target (issue 17: 1.00003e-30 at `--window 1000 --fp 1e-30`).
        metrics: params.metrics(method)?,
        fp_target: req.fp,
        worst_case_messages,
        worst_case_hashes,
    })
}

/// Largest number of Eq. (3) terms [`lower_bound_messages`] evaluates (a few seconds).
pub const LOWER_BOUND_TERMS: f64 = 1e8;

/// The N-bounded design by the average-case lower bound f_a (Eq. (3) [RBF]): the most
/// bit-setting messages `N` per cycle with `f_a(N) ≤ fp` for `bits` of memory (one phase),
/// best `k`, returned as `(k, N)` (Figures 6-7 [RBF]).
///
/// # Formula
/// ```text
/// f_a(N) = Σ_{i≤N} r_i / (N + Σ_{i≤N} r_i),  r_i = f_i/(1 − f_i),  f_i = Eq. (1) at n = i−1
/// ```
/// `f_a` grows with `N` (the `r_i` do), so one pass over `N = 1, 2, …` per `k` finds the
/// largest `N`; `k` is scanned upward until `N` has fallen three times in a row.
///
/// # Numerics
/// `O(Σ_k N_k)` time. Since the `r_i` grow, `f_a(N) ≤ fp` implies
/// `f_{N/2} ≤ 2fp/(1 + fp)`, so `N ≤ 2·N_w` with `N_w` the closed-form worst-case count at
/// that rate; that bound is summed over the `k` scanned before starting, and a scan of more
/// than [`LOWER_BOUND_TERMS`] terms is refused rather than started.
///
/// # Errors
/// `fp` outside (0, 1), `bits` outside [`RbfParams::BITS`]; [`ModelError::InvalidParam`]
/// naming `bits` when the scan would exceed [`LOWER_BOUND_TERMS`] terms.
pub fn lower_bound_messages(bits: u64, fp: f64) -> Result<(u32, u64), ModelError> {
    check::open_probability("fp", fp)?;
    check::in_range("bits", bits, RbfParams::BITS)?;
    let m = bits as f64;
    // Upper bound on N for k: 2·N_w(k, 2fp/(1+fp)) (see # Numerics), + 1 for the last term.
    let p2 = 2.0 * fp / (1.0 + fp);
    let n_bound = |k: u32| {
        let kf = f64::from(k);
        2.0 * (-(p2.ln() / kf).exp_m1()).ln() / (kf * (-1.0 / m).ln_1p()) + 2.0
    };
    // The scan stops three k past the best, which is at most ⌈log2(1/fp)⌉ + a few.
    let k_scan = ((-fp.log2()).ceil() as u32 + 6).min(*RbfParams::K.end());
    let work: f64 = (1..=k_scan).map(n_bound).sum();
    if !(work <= LOWER_BOUND_TERMS) {
        return Err(ModelError::invalid(
            "bits",
            bits,
            format!(
                "a lower-bound (Eq. (3)) scan of at most {LOWER_BOUND_TERMS:e} terms at fp = {fp} \
                 (this needs about {work:.1e})"
            ),
        ));
    }
    let mut best = (1u32, 0u64);
    let mut falling = 0;
    for k in 1..=*RbfParams::K.end() {
        let cap = n_bound(k) as u64;
        let (mut r, mut n) = (CompensatedSum::new(), 0u64);
        for i in 1..=cap {
            let f = super::fp_worst(bits, k, i - 1);
            r.add(f / (1.0 - f));
            let rv = r.value();
            if !(rv / (i as f64 + rv) <= fp) {
                break;
            }
            n = i;
        }
        if n > best.1 {
            best = (k, n);
            falling = 0;
        } else {
            falling += 1;
            if falling == 3 {
                break;
            }
        }
    }
    Ok(best)
}
