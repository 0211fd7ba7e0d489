//! Each family's best design for a requirement, as a [`Candidate`], or the reason it
//! cannot serve the requirement's shape.

use super::{Requirement, Shape};
use crate::exit::CliError;
use crate::families::classic::DEFAULT_BLOCK_BITS;
use bfopt_models::baseline::{
    fingerprint_queue::design_fingerprint_queue, rotating::design_rotating,
    FingerprintQueueRequirement, RotatingRequirement,
};
use bfopt_models::classic::{design, ClassicRequirement, Layout};
use bfopt_models::rbf::{least_bits as rbf_least_bits, RbfRequirement};
use bfopt_models::stable::{design_decrements, IbfParams, ImportanceDist, Policy, SbfRequirement};
use bfopt_models::ModelError;
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::rbf as rbf_sim;
use bfopt_validation::experiments::stable::{self as stable_sim, StableSimConfig};
use bfopt_validation::experiments::{baseline as base_sim, classic as classic_sim};
use bfopt_validation::filters::rbf::RbfConfig;
use bfopt_validation::workload::Workload;
use rayon::prelude::*;
use std::sync::Arc;
#[path = "timing.rs"]
mod timing;

#[path = "apbf.rs"]
mod apbf;
use apbf::apbf;
#[path = "pbf.rs"]
mod pbf;
#[path = "stable.rs"]
mod stable;
use pbf::pbf;

/// Simulates a candidate's reference implementation: `(seed, confidence) -> checks`.
#[derive(Clone)]
pub struct Validator(pub Arc<dyn Fn(u64, f64) -> Vec<Check> + Send + Sync>);

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

/// Largest number of insertions `recommend --validate` simulates per epoch; bigger
/// designs are validated at scale by `bfopt validate --level full`.
pub const MAX_SIMULATED_ITEMS: u64 = 20_000_000;

/// Simulation sizes of `recommend --validate`.
const EPOCHS: u64 = 4;

/// Non-member probes per epoch: enough for about 2000 false positives over the epochs,
/// between 10^4 and 10^6.
fn probes(fp: f64) -> u64 {
    ((2000.0 / fp / EPOCHS as f64).ceil() as u64).clamp(10_000, 1_000_000)
}

/// One family's proposal, in the columns every family shares.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The family (`classic`, `baseline`, `apbf`, ...).
    pub family: &'static str,
    /// The structure, e.g. `classic/standard`, `rotating/blocked`.
    pub design: String,
    /// Its parameters, e.g. `m=9592956 k=7`.
    pub parameters: String,
    /// Total memory in bits.
    pub bits: u64,
    /// Memory accesses per insertion.
    pub accesses_insert: f64,
    /// Expected memory accesses per query that returns false.
    pub accesses_query: f64,
    /// The false-negative guarantee, in words.
    pub false_negatives: &'static str,
    /// Items beyond the window still reported at the worst moment (0 for sets).
    pub slack: u64,
    /// Predicted FP.
    pub fp: f64,
    /// What the FP figure is (`exact`, `worst case`, ...).
    pub fp_kind: &'static str,
    /// When to prefer this design.
    pub note: &'static str,
    /// Peak normalized probability-weighted slack (window designs that have slack).
    pub npws: Option<f64>,
    /// Its reference simulation, or why `--validate` skips it.
    pub validator: Result<Validator, String>,
}

/// A validator when `items` is small enough to simulate in seconds.
fn validator(
    items: u64,
    f: impl Fn(u64, f64) -> Vec<Check> + Send + Sync + 'static,
) -> Result<Validator, String> {
    if items <= MAX_SIMULATED_ITEMS {
        Ok(Validator(Arc::new(f)))
    } else {
        Err(format!(
            "{items} insertions per epoch (over {MAX_SIMULATED_ITEMS}); `bfopt validate --level full` checks the model at scale"
        ))
    }
}

/// The candidates of every family for `req`: `Ok` designs, `Err` exclusion reasons.
///
/// # Errors
/// A requirement value a model rejects (exit 2).
pub fn candidates(req: &Requirement) -> Result<Vec<Result<Candidate, String>>, CliError> {
    let model = |e: ModelError| match e {
        ModelError::InvalidParam { .. } => Err(CliError::from_model(
            e,
            &[
                ("fp", "--fp"),
                ("n", "--capacity"),
                ("window", "--window"),
                ("horizon", "--horizon"),
                ("query_length", "--query-length"),
                ("pairs", "--pairs"),
                ("max_npws", "--max-npws"),
            ],
        )),
        other => Ok(Err(other.to_string())),
    };
    let mut out = Vec::new();
    type Family = fn(&Requirement) -> Result<Vec<Candidate>, Proposal>;
    const FAMILIES: [Family; 11] = [
        classic,
        apbf,
        rbf,
        rbf_one_phase,
        sbf,
        stable::ibf,
        pbf,
        rotating,
        fingerprint_queue,
        timing::btbf,
        timing::gbf,
    ];
    // Families size their designs independently: in parallel, results in this order.
    let proposals: Vec<_> = FAMILIES.par_iter().map(|family| family(req)).collect();
    for proposal in proposals {
        match proposal {
            Ok(list) => out.extend(list.into_iter().map(Ok)),
            Err(Proposal::Excluded(why)) => out.push(Err(why)),
            Err(Proposal::Model(e)) => out.push(model(e)?),
        }
    }
    Ok(out)
}

/// Why a family proposes nothing.
enum Proposal {
    /// The family cannot serve this shape.
    Excluded(String),
    /// Its model rejected the requirement.
    Model(ModelError),
}

impl From<ModelError> for Proposal {
    fn from(e: ModelError) -> Self {
        Proposal::Model(e)
    }
}

const LAYOUTS: [Layout; 3] = [
    Layout::Standard,
    Layout::Partitioned,
    Layout::Blocked {
        block_bits: DEFAULT_BLOCK_BITS,
    },
];

fn classic(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Capacity(n) = req.shape else {
        return Err(Proposal::Excluded(
            "classic: a static set; it never forgets, so a window would fill it".into(),
        ));
    };
    LAYOUTS
        .iter()
        .map(|&layout| {
            let d = design(&ClassicRequirement::new(req.fp, n, layout)?)?;
            let params = d.params;
            let name = format!(
                "classic/{} m={} k={} n={n}: ",
                layout.name(),
                params.m(),
                params.k()
            );
            let probes = probes(req.fp);
            let check = move |seed, confidence| {
                let cfg = classic_sim::ClassicSimConfig {
                    params,
                    workload: Workload::Distinct,
                    epochs: EPOCHS,
                    probes,
                    seed,
                    confidence,
                };
                match classic_sim::simulate(&cfg) {
                    Ok(r) => classic_sim::compare(&name, &params, &r, confidence, seed),
                    Err(e) => vec![Check::error("classic", format!("{name}{e}"), seed)],
                }
            };
            Ok(Candidate {
                family: "classic",
                design: format!("classic/{}", layout.name()),
                parameters: format!("m={} k={}", d.params.m(), d.params.k()),
                bits: d.params.m(),
                accesses_insert: d.metrics.accesses_insert,
                accesses_query: d.metrics.accesses_query_false,
                false_negatives: "none",
                slack: 0,
                fp: d.metrics.fp,
                fp_kind: if matches!(layout, Layout::Standard) {
                    "usual formula"
                } else {
                    "exact"
                },
                note: match layout {
                    Layout::Standard => "fewest bits; k random accesses per insert and query",
                    Layout::Partitioned => "standard's accesses, a few more bits; suits hardware",
                    Layout::Blocked { .. } => "one cache line per operation, some extra bits",
                },
                npws: None,
                validator: validator(n, check),
            })
        })
        .collect()
}

/// A σ-bounded RBF as a recommendation row; `items` sizes its validation stream.
fn rbf_row(
    d: &bfopt_models::rbf::RbfDesign,
    w: u64,
    false_negatives: &'static str,
    note: &'static str,
) -> Candidate {
    let p = d.params;
    // Counting starts after the first recycle (two with two phases); then about six
    // cycles per epoch, so that each epoch's mean cycle is close to normal for the t
    // interval (one cycle per epoch gave a seed whose four epochs spread by ±1 message).
    let arrivals = (8.0 * d.metrics.expected_messages).ceil() as u64 + w;
    let check = move |seed, confidence| {
        let sim = rbf_sim::RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: rbf_sim::RbfStream::Distinct,
            epochs: EPOCHS,
            arrivals,
            seed,
            confidence,
        };
        rbf_sim::sigma_checks(&p, &sim)
            .unwrap_or_else(|e| vec![Check::error("rbf", e.to_string(), seed)])
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
fn rbf_one_phase(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let (Shape::Window(w), Some(rate)) = (req.shape, req.allow_fn) else {
        return Err(Proposal::Excluded(
            "rbf/1-phase: forgets window items at each recycle; needs --window and --allow-fn"
                .into(),
        ));
    };
    let messages = ((w as f64 / (2.0 * rate)).ceil() as u64).max(w);
    let fluid = RbfRequirement::new(req.fp, 1)?.with_method(bfopt_models::rbf::Method::Fluid);
    let d = rbf_least_bits(messages, &fluid)?;
    Ok(vec![rbf_row(
        &d,
        w,
        "yes: about W/(2·cycle) of window items, within --allow-fn",
        "one recycling filter: least memory if some forgetting is acceptable",
    )])
}

/// Stable Bloom filter (`--window W --allow-fn RATE`, Section 2.2 [SBF]): cells of
/// `⌈log2(Max+1)⌉` bits, `P` random decrements per insertion chosen for the FP target at
/// the stable point. The least memory over `Max ∈ {1, 3, 7}` and `K ≤ 8` whose FN for
/// an item `W` insertions old is at most RATE.
fn sbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let (Shape::Window(w), Some(rate)) = (req.shape, req.allow_fn) else {
        return Err(Proposal::Excluded(
            "sbf: forgets by random decrements; needs --window and --allow-fn".into(),
        ));
    };
    let sized = |max: u32, k: u32, m: u64| {
        design_decrements(&SbfRequirement {
            m,
            k,
            max,
            fp: req.fp,
        })
        .ok()
        .filter(|d| d.params.fn_at_age(w) <= rate)
    };
    let best = [1u32, 3, 7]
        .into_iter()
        .flat_map(|max| (1..=8u32).map(move |k| (max, k)))
        .filter_map(|(max, k)| {
            let m = bfopt_models::numeric::first_true(64, 1 << 40, |m| sized(max, k, m).is_some())?;
            sized(max, k, m)
        })
        .min_by_key(|d| d.params.memory_bits())
        .ok_or_else(|| {
            Proposal::Excluded(format!(
                "sbf: no Max <= 7, K <= 8 keeps FN at age {w} within {rate}"
            ))
        })?;
    let p = best.params;
    // The reference SBF from its warm-up to the stable point, then 2·W measured
    // insertions: probe FP and the FN of the item inserted W insertions earlier.
    let sim_params = IbfParams::new(
        Policy::Sbf,
        p.m(),
        p.k(),
        p.max(),
        p.p(),
        ImportanceDist::linear(1, 1)?,
    )?;
    let cfg = StableSimConfig::new(sim_params, 2 * w, w, EPOCHS, 0);
    let items = cfg.warmup + cfg.steps;
    let check = move |seed, confidence| {
        stable_sim::config_checks(&StableSimConfig {
            seed,
            confidence,
            ..cfg.clone()
        })
    };
    Ok(vec![Candidate {
        family: "stable",
        design: "sbf".into(),
        parameters: format!("m={} K={} Max={} P={}", p.m(), p.k(), p.max(), p.p()),
        bits: p.memory_bits(),
        accesses_insert: f64::from(p.k()) + p.p() as f64,
        accesses_query: f64::from(p.k()),
        false_negatives: "yes: FN at age W within --allow-fn",
        slack: 0,
        fp: best.fp,
        fp_kind: "stable point",
        note: "no window bookkeeping: decays on its own; forgets gradually",
        npws: None,
        validator: validator(items, check),
    }])
}

fn rotating(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Window(w) = req.shape else {
        return Err(Proposal::Excluded(
            "rotating: a window structure; a static set needs --window".into(),
        ));
    };
    [LAYOUTS[0], LAYOUTS[2]]
        .iter()
        .map(|&layout| {
            let d = design_rotating(&RotatingRequirement::new(req.fp, w, layout)?)?;
            let name = format!("rotating/{} W={w} r={}", layout.name(), d.filters);
            let probes = probes(req.fp);
            let check = move |seed, confidence| {
                let r = base_sim::simulate_rotating(&d, w, (EPOCHS, probes, seed, confidence));
                base_sim::compare(&name, d.fp, &r, confidence, seed)
            };
            Ok(Candidate {
                family: "baseline",
                design: format!("rotating/{}", layout.name()),
                parameters: format!(
                    "r={} g={} m={} k={}",
                    d.filters,
                    d.generation,
                    d.per_filter.params.m(),
                    d.per_filter.params.k()
                ),
                bits: d.bits,
                accesses_insert: d.accesses_insert,
                accesses_query: d.accesses_query_false,
                false_negatives: "none in the window",
                slack: d.slack,
                fp: d.fp,
                fp_kind: "worst case (before rotation)",
                note: "hand-built ring of classic filters, each sized so the union meets fp",
                // Every item of the oldest generation is reported until it is cleared:
                // at the worst moment r·g − W items beyond the window, all with
                // probability 1 (Definition 2 [APBF]).
                npws: Some(d.slack as f64 / w as f64),
                validator: validator((u64::from(d.filters) + 1) * d.generation, check),
            })
        })
        .collect()
}

fn fingerprint_queue(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Window(w) = req.shape else {
        return Err(Proposal::Excluded(
            "fingerprint-queue: a window structure; a static set needs --window".into(),
        ));
    };
    let d = design_fingerprint_queue(&FingerprintQueueRequirement::new(req.fp, w)?)?;
    let name = format!("fingerprint-queue W={w} b={}", d.fingerprint_bits);
    let probes = probes(req.fp);
    let check = move |seed, confidence| {
        let r = base_sim::simulate_fingerprint_queue(&d, w, (EPOCHS, probes, seed, confidence));
        base_sim::compare(&name, d.fp, &r, confidence, seed)
    };
    Ok(vec![Candidate {
        family: "baseline",
        design: "fingerprint-queue".into(),
        parameters: format!(
            "b={} c={} slots={}",
            d.fingerprint_bits, d.counter_bits, d.slots
        ),
        bits: d.bits,
        accesses_insert: d.accesses_insert,
        accesses_query: d.accesses_query_false,
        false_negatives: "none in the window",
        slack: 0,
        fp: d.fp,
        fp_kind: "worst case (distinct window)",
        note: "exact expiry and counts, no slack; the most bits per item",
        npws: None,
        validator: validator(w + w / 2, check),
    }])
}

/// Two-phase recycling Bloom filter ([RBF]): the least memory whose guaranteed window
/// ([`bfopt_models::rbf::RbfParams::fn_window`]) covers `--window` at long-run average
/// FP ≤ `--fp` (count-instance, Eq. (26) [RBF]; not a worst case).
fn rbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    use bfopt_models::rbf::{design_window, Method, RbfRequirement};
    use bfopt_validation::experiments::rbf::{sigma_checks, RbfSimConfig, RbfStream};
    use bfopt_validation::filters::rbf::RbfConfig;
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
