//! The recycling Bloom filter rows of `bfopt recommend --window W` ([RBF]): the
//! two-phase filter (no false negatives in the window) and, with `--allow-fn RATE`, the
//! one-phase filter.

use super::{validator, Candidate, Proposal, EPOCHS};
use crate::families::recommend::{Requirement, Shape};
use bfopt_models::rbf::{design_window, least_bits, Method, RbfDesign, RbfRequirement};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::rbf::{sigma_checks, RbfSimConfig, RbfStream};
use bfopt_validation::filters::rbf::RbfConfig;

/// Two-phase recycling Bloom filter ([RBF]): the least memory whose guaranteed window
/// ([`bfopt_models::rbf::RbfParams::fn_window`]) covers `--window` at long-run average
/// FP ≤ `--fp` (count-instance, Eq. (26) [RBF]; not a worst case).
pub(super) fn rbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Window(w) = req.shape else {
        return Err(Proposal::Excluded(
            "rbf: recycles, so it forgets; a static set needs --window (two-phase RBF)".into(),
        ));
    };
    // The fluid model: within about 5/M of the exact chain (relative, tested in
    // `models::rbf`), and milliseconds instead of seconds at M ~ 10^7.
    let d = design_window(
        w,
        &RbfRequirement::new(req.fp, 2)?.with_method(Method::Fluid),
    )?;
    let p = d.params;
    let name = format!(
        "rbf/two-phase M={} k={} sigma={}",
        p.bits(),
        p.k(),
        p.sigma()
    );
    // Enough arrivals for about 20 cycles per epoch.
    let arrivals = (20.0 * d.metrics.expected_messages).ceil() as u64;
    let check = move |seed, confidence| {
        let sim = RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::Distinct,
            epochs: EPOCHS.max(4),
            arrivals,
            seed,
            confidence,
        };
        match sigma_checks(&p, &sim) {
            Ok(c) => c.into_iter().take(1).collect(),
            Err(e) => vec![Check::error("rbf", format!("{name}: {e}"), seed)],
        }
    };
    // A negative query probes each filter until its first 0 bit; both filters at most σ
    // bits full gives the bound Σ_{j<k} (σ/M)^j per filter.
    let fill = p.sigma() as f64 / p.m() as f64;
    let probes_per_filter: f64 = (0..p.k()).map(|j| fill.powi(j as i32)).sum();
    let metrics = p.metrics(Method::Fluid)?;
    Ok(vec![Candidate {
        family: "rbf",
        design: "rbf/two-phase".into(),
        parameters: format!("M={}x2 k={} sigma={}", p.m(), p.k(), p.sigma()),
        bits: p.bits(),
        accesses_insert: f64::from(p.k()),
        accesses_query: 2.0 * probes_per_filter,
        false_negatives: "none in the window",
        slack: (2.0 * metrics.expected_messages) as u64
            - w.min((2.0 * metrics.expected_messages) as u64),
        fp: metrics.fp_avg,
        fp_kind: "long-run average",
        note: "two recycling filters: no per-item state; FP averaged over the cycle",
        npws: None,
        validator: validator(arrivals, check),
    }])
}

/// A σ-bounded RBF as a recommendation row; `items` sizes its validation stream.
fn rbf_row(d: &RbfDesign, w: u64, false_negatives: &'static str, note: &'static str) -> Candidate {
    let p = d.params;
    // Counting starts after the first recycle (two with two phases); then about six
    // cycles per epoch, so that each epoch's mean cycle is close to normal for the t
    // interval (one cycle per epoch gave a seed whose four epochs spread by ±1 message).
    let arrivals = (8.0 * d.metrics.expected_messages).ceil() as u64 + w;
    let check = move |seed, confidence| {
        let sim = RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::Distinct,
            epochs: EPOCHS,
            arrivals,
            seed,
            confidence,
        };
        sigma_checks(&p, &sim).unwrap_or_else(|e| vec![Check::error("rbf", e.to_string(), seed)])
    };
    Candidate {
        family: "rbf",
        design: "rbf/one-phase".into(),
        parameters: format!("M={} k={} sigma={}", p.m(), p.k(), p.sigma()),
        bits: p.bits(),
        accesses_insert: f64::from(p.k()),
        accesses_query: f64::from(p.k()) * f64::from(p.phases()),
        false_negatives,
        slack: d.metrics.expected_messages as u64,
        fp: d.metrics.fp_avg,
        fp_kind: "long-run average over new arrivals",
        note,
        npws: None,
        validator: validator(arrivals, check),
    }
}

/// One-phase σ-bounded RBF (`--allow-fn RATE`): everything is forgotten at each recycle.
/// With cycles of about `L` new messages, a window item is forgotten with probability
/// about `age/L`, `W/(2L)` averaged over the window, so `L ≥ W/(2·RATE)` (and `≥ W`).
/// The renewal approximation is good for σ-bounded cycles, whose length is concentrated.
pub(super) fn rbf_one_phase(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let (Shape::Window(w), Some(rate)) = (req.shape, req.allow_fn) else {
        return Err(Proposal::Excluded(
            "rbf/1-phase: forgets window items at each recycle; needs --window and --allow-fn"
                .into(),
        ));
    };
    let messages = ((w as f64 / (2.0 * rate)).ceil() as u64).max(w);
    let fluid = RbfRequirement::new(req.fp, 1)?.with_method(Method::Fluid);
    let d = least_bits(messages, &fluid)?;
    Ok(vec![rbf_row(
        &d,
        w,
        "yes: about W/(2·cycle) of window items, within --allow-fn",
        "one recycling filter: least memory if some forgetting is acceptable",
    )])
}
