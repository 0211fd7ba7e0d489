//! `check`: deployed designs re-evaluated from their parameters alone, against their
//! requirements.
//!
//! A design file is either a [`Plan`](crate::Plan) as JSON (`bfopt recommend --format
//! json`: its `requirement`, `candidates` and `pick`) or a list of deployed designs,
//! each `{"name", "family", "design", "params": {...}, "requirement": {...}}` with the
//! keys of the plan's candidates and requirement (a bare array, or an object with a
//! `designs` array; in TOML, read by [`parse_as`], an array of tables `[[designs]]`).
//! [`parse`] reads either and names the JSON path of anything wrong
//! (`candidates[2].params.k`) with what is allowed.
//!
//! [`evaluate`] rebuilds each design's model from its parameters (the numbers the file
//! states about FP, bits or accesses are ignored) and returns the same [`Candidate`] the
//! planner builds, with its simulation: [`Candidate::validator`] runs the reference
//! filter through the checks [`Plan::validate`](crate::Plan::validate) runs. [`limits`]
//! compares the figures with the requirement: FP target, the window the design still
//! covers, memory, accesses and NPWS budgets, each with its margin.
//!
//! Families modelled: `classic` (standard, partitioned, blocked), `baseline` (the
//! rotating ring of classic filters, the fingerprint queue), `apbf` (APBF and APBBF),
//! `rbf` (the two-phase filter; the one-phase filter under `allow_fn`), `timing` (the
//! standard BTBF, its timers configured for the requirement's window: expiry is a
//! setting, not a size; the inferential BTBF under the requirement's penalties),
//! `stable` (the SBF under `allow_fn`; the IBF policies `ibf1`-`ibf6` under `allow_fn`
//! and the requirement's importance law), `gbf` (under `allow_fn`), `pbf` (PBF-2,
//! PBF-1 and the pair filter, for temporal requirements), `scalable` (a chain rebuilt
//! from `n0, p0, r, s` at the growing set's `max_items`; the classic filter allocated for
//! `max_items` up front).
//! Any other family or design is an error naming it.

use crate::candidate::{Candidate, Params};
use crate::families::{
    apbf, baseline, btbf, classic, counting, cuckoo, fuse, gbf, ibf, pbf, rbf, sbf, scalable,
};
use crate::requirement::{Requirement, Shape};
use bfopt_models::apbf::{evaluate as apbf_at, ApbfRequirement};
use bfopt_models::baseline::{FingerprintQueueDesign, RotatingDesign};
use bfopt_models::classic::{ClassicDesign, ClassicParams, Layout};
use bfopt_models::counting::CountingParams;
use bfopt_models::cuckoo::CuckooParams;
use bfopt_models::fuse::FuseParams;
use bfopt_models::gbf::GbfParams;
use bfopt_models::rbf::Method;
use bfopt_models::scalable::{ScalableDesign, ScalableParams, ScalableRequirement};
use bfopt_models::stable::{solve, Policy, SbfParams};
use bfopt_models::timing::BtbfParams;
use bfopt_models::ModelError;
use serde::Serialize;
use serde_json::Value;
use std::fmt;

mod file;

use file::{join, rename};
pub use file::{parse, parse_as, requirement, DesignSpec, FileError, Syntax};

/// Families [`evaluate`] models, with their designs.
pub const SUPPORTED: &str = "classic (classic/standard, classic/partitioned, classic/blocked), baseline (rotating/standard, rotating/blocked, fingerprint-queue), apbf (apbf, apbbf), rbf (rbf/two-phase, rbf/one-phase), timing (btbf, btbf/inferential), stable (sbf, ibf1 ... ibf6), gbf (gbf), pbf (pbf-2, pbf-1 g=G, pair-filter), fuse (binary-fuse/8, binary-fuse/16, binary-fuse/32), cuckoo (cuckoo/bB), counting (counting/cC), scalable (scalable/bfopt, scalable/redisbloom, scalable/growable; classic/standard@max for a growing set)";

/// "What if traffic grows": the requirement with its items (static sets), final count
/// `max_items` (growing sets) or window (sliding windows) replaced. `None` keeps the stated value; an override of the other
/// shape leaves the requirement alone (the caller reports overrides that apply to no
/// design).
///
/// # Errors
/// A value outside `1..=2^40`, named after the override (`items`, `window`).
pub fn with_overrides(
    req: &Requirement,
    items: Option<u64>,
    window: Option<u64>,
) -> Result<Requirement, ModelError> {
    let (key, value, name) = match (req.shape(), items, window) {
        (Shape::Capacity { .. }, Some(n), _) => ("items", n, "items"),
        (Shape::Window { .. }, _, Some(w)) => ("insertions", w, "window"),
        (
            Shape::Growing {
                initial_capacity, ..
            },
            Some(n),
            _,
        ) if n < *initial_capacity => {
            return Err(ModelError::invalid(
                "items",
                n,
                format!(
                    "items >= initial_capacity = {initial_capacity} (a growing set's final count)"
                ),
            ))
        }
        (Shape::Growing { .. }, Some(n), _) => ("max_items", n, "items"),
        _ => return Ok(req.clone()),
    };
    let mut v = serde_json::to_value(req).map_err(|e| ModelError::invalid(name, value, e))?;
    v[key] = Value::from(value);
    requirement(&v, "").map_err(|e| ModelError::invalid(name, value, e.message))
}

/// Rebuilds a design's model from its parameters, at its requirement: the candidate the
/// planner would list for these parameters, with its simulation. Bits per item are
/// counted against the requirement's items.
///
/// Classic filters hold the requirement's items; a ring and an APBF keep their stated
/// generation `g` (the window they cover is `(r − 1)·g`, `l·g`); a fingerprint queue
/// holds the requirement's window in its stated slots.
///
/// # Errors
/// Parameters the model rejects, or a design whose shape does not match the requirement,
/// each as a [`FileError`] at `spec.path`.
pub fn evaluate(spec: &DesignSpec) -> Result<Candidate, FileError> {
    let req = &spec.requirement;
    let base = join(&spec.path, "params");
    let at = |e: ModelError| FileError::model(&base, e);
    let fp = req.fp();
    let mismatch = |shape: &str| {
        FileError::new(
            join(&spec.path, "requirement"),
            format!(
                "{} serves {shape}, the requirement is {}",
                spec.design,
                req.shape_name()
            ),
        )
    };
    let window = || {
        req.window_insertions()
            .ok_or_else(|| mismatch("a sliding window"))
    };
    let temporal = || match *req.shape() {
        Shape::Temporal {
            horizon,
            query_length,
            pairs,
        } => Ok((horizon, query_length, pairs)),
        _ => Err(mismatch("temporal membership")),
    };
    let allow_fn = || {
        req.allow_fn().ok_or_else(|| {
            FileError::new(
                join(&spec.path, "requirement.allow_fn"),
                format!(
                    "missing key: {} forgets window items; allowed a rate 0 < allow_fn < 1",
                    spec.design
                ),
            )
        })
    };
    let layout = |block_bits: Option<u64>| match block_bits {
        Some(block_bits) => Layout::Blocked { block_bits },
        None if spec.design.ends_with("partitioned") => Layout::Partitioned,
        None => Layout::Standard,
    };
    let mut c = match spec.params {
        Params::Classic { m, k, block_bits } => {
            // A growing set's classic filter is allocated for max_items up front.
            let items = match *req.shape() {
                Shape::Capacity { items } => items,
                Shape::Growing { max_items, .. } => max_items,
                _ => return Err(mismatch("a static set")),
            };
            let p = ClassicParams::new(m, k, items, layout(block_bits)).map_err(at)?;
            let mut c = classic::row(fp, p);
            // classic/standard@max: the name the growing-set plan gives it.
            c.design.clone_from(&spec.design);
            c
        }
        Params::Rotating {
            r,
            g,
            m,
            k,
            block_bits,
        } => {
            let w = window()?;
            check_range("r", r, 2..=64).map_err(at)?;
            let lay = layout(block_bits);
            let p = ClassicParams::new(m, k, g, lay)
                .map_err(|e| rename(e, "n", "g"))
                .map_err(at)?;
            let per_filter = ClassicDesign {
                params: p,
                metrics: p.metrics(),
                fp_target: fp,
            };
            baseline::rotating_row(fp, w, lay, RotatingDesign::ring(r, per_filter, w))
        }
        Params::FingerprintQueue {
            fingerprint_bits,
            counter_bits,
            slots,
        } => {
            let w = window()?;
            let d = FingerprintQueueDesign::with(w, fingerprint_bits, counter_bits, slots)
                .map_err(at)?;
            baseline::queue_row(fp, w, d)
        }
        Params::Apbf {
            k,
            l,
            g,
            slice_bits,
            block_bits,
            block_hashes,
        } => {
            window()?;
            // The deployed filter shifts every g insertions: size it for the window
            // l·g it covers, whatever the requirement's window.
            let covered = u64::from(l).saturating_mul(g);
            let mut areq = ApbfRequirement::new(fp, covered)
                .map_err(|e| rename(e, "window", "g"))
                .map_err(at)?;
            if let (Some(bb), Some(b)) = (block_bits, block_hashes) {
                areq = areq.blocked(bb, b).map_err(at)?;
            } else if let Some(d) = req.duplicates() {
                areq = areq.with_duplicates(d).map_err(at)?;
            }
            let d = apbf_at(&areq, k, l).map_err(at)?;
            let sized = d.metrics.total_bits / u64::from(k + l);
            if d.metrics.generation != g || sized != slice_bits {
                return Err(FileError::new(
                    join(&base, "slice_bits"),
                    format!(
                        "{slice_bits} with g = {g}: allowed slice_bits = {sized} (the slice that holds g = {g} insertions at half fill for k = {k}, l = {l}; generation {})",
                        d.metrics.generation
                    ),
                ));
            }
            apbf::row(req, covered, d, None)
        }
        Params::Rbf {
            m,
            filters,
            k,
            sigma,
        } => {
            let w = window()?;
            let p = rbf::params(m, filters, k, sigma)
                .map_err(|e| rename(e, "bits", "m"))
                .map_err(at)?;
            if filters == 1 {
                rbf::one_phase_row(w, allow_fn()?, p).map_err(at)?
            } else {
                rbf::two_phase_row(w, p).map_err(at)?
            }
        }
        Params::Btbf {
            m,
            k,
            bpt,
            block_size,
            padding,
        } => {
            let w = window()?;
            let p = BtbfParams::new(m, k, bpt, block_size, w, padding)
                .map_err(|e| rename(e, "bits_per_timer", "bpt"))
                .map_err(at)?;
            let standard = btbf::standard_row(fp, w, p, btbf::worst_fp(&p));
            if spec.design == "btbf/inferential" {
                let pen = req.penalties().ok_or_else(|| {
                    FileError::new(
                        join(&spec.path, "requirement.penalties"),
                        "missing key: a btbf/inferential answers by penalties; allowed penalties as recommend --penalties writes them",
                    )
                })?;
                btbf::inferential_row(standard, &p, w, pen).map_err(at)?
            } else {
                standard
            }
        }
        Params::Stable {
            m,
            k,
            max,
            decrements,
            counter_bits: None,
        } if spec.design == "sbf" => {
            let w = window()?;
            let p = SbfParams::new(m, k, max, decrements)
                .map_err(|e| rename(e, "p", "decrements"))
                .map_err(at)?;
            sbf::row(w, allow_fn()?, p).map_err(at)?
        }
        Params::Stable {
            m,
            k,
            max,
            decrements,
            counter_bits,
        } => {
            let w = window()?;
            let rate = allow_fn()?;
            let policy = Policy::parse(&spec.design)
                .map_err(|e| FileError::model(&spec.path, rename(e, "policy", "design")))?;
            let dist = req.importance().ok_or_else(|| {
                FileError::new(
                    join(&spec.path, "requirement.importance"),
                    format!("missing key: {policy} weighs items by importance; allowed an importance law as recommend --importance writes it"),
                )
            })?;
            let p = ibf::design(policy, dist, (m, k, max, decrements), counter_bits)
                .map_err(|e| rename(e, "p", "decrements"))
                .map_err(at)?;
            let s = solve(&p).map_err(at)?;
            ibf::row(&p, s.fp(), w, rate)
        }
        Params::Gbf { m, k0, k1 } => {
            let w = window()?;
            let p = GbfParams::new(m, k0, k1).map_err(at)?;
            gbf::row(fp, w, allow_fn()?, p, gbf::repeats(req, w))
        }
        Params::PbfTree {
            granularity,
            filters_per_pair,
            max_probes,
            per_probe_fp,
        } => {
            let temporal = temporal()?;
            let c = pbf::tree_row(fp, temporal, granularity, per_probe_fp).map_err(at)?;
            // The structure fixes how many filters a pair enters and a query probes.
            if let Params::PbfTree {
                filters_per_pair: f,
                max_probes: q,
                ..
            } = c.params
            {
                for (key, stated, built) in [
                    ("filters_per_pair", filters_per_pair, f),
                    ("max_probes", max_probes, q),
                ] {
                    if stated != built {
                        return Err(FileError::new(
                            join(&base, key),
                            format!(
                                "{stated}: allowed {key} = {built} (the {} structure over T = {} for |q| = {})",
                                spec.design, temporal.0, temporal.1
                            ),
                        ));
                    }
                }
            }
            c
        }
        Params::PairFilter { m, probes } => {
            let temporal = temporal()?;
            if probes != temporal.1 {
                return Err(FileError::new(
                    join(&base, "probes"),
                    format!(
                        "{probes}: allowed probes = {} (one per timestamp of the requirement's query length)",
                        temporal.1
                    ),
                ));
            }
            pbf::pair_row(fp, temporal, m)
        }
        Params::Fuse { f, slots } => {
            let Shape::Capacity { items } = *req.shape() else {
                return Err(mismatch("a static set"));
            };
            let p = FuseParams::new(items, f).map_err(at)?;
            let built = p.layout().slots;
            if built != slots {
                return Err(FileError::new(
                    join(&base, "slots"),
                    format!("{slots}: allowed slots = {built} (what a binary fuse filter of {items} keys builds)"),
                ));
            }
            fuse::row(fp, p)
        }
        Params::Cuckoo { f, b, buckets } => {
            let Shape::Capacity { items } = *req.shape() else {
                return Err(mismatch("a static set"));
            };
            cuckoo::row(fp, CuckooParams::new(f, b, buckets, items).map_err(at)?)
        }
        Params::Counting { m, k, c } => {
            let Shape::Capacity { items } = *req.shape() else {
                return Err(mismatch("a static set"));
            };
            counting::row(fp, CountingParams::new(m, k, items, c).map_err(at)?)
        }
        Params::Scalable { n0, p0, r, s, .. } => {
            let Shape::Growing {
                initial_capacity,
                max_items,
            } = *req.shape()
            else {
                return Err(mismatch("a growing set"));
            };
            // The chain is fixed by (n0, p0, r, s): its links, their sizes and k follow;
            // the stated links and bits are figures, re-derived here at max_items.
            let p = ScalableParams::new(n0, p0, r, s, Layout::Standard).map_err(at)?;
            let sreq = ScalableRequirement::new(fp, initial_capacity, max_items, Layout::Standard)
                .map_err(at)?;
            let d = ScalableDesign::evaluate(p, &sreq).map_err(at)?;
            scalable::row(fp, &spec.design, &d, "re-evaluated from n0, p0, r, s")
        }
    };
    c.count_against(req);
    Ok(c)
}

fn check_range(
    name: &'static str,
    v: u32,
    r: std::ops::RangeInclusive<u32>,
) -> Result<u32, ModelError> {
    if r.contains(&v) {
        Ok(v)
    } else {
        Err(ModelError::invalid(
            name,
            v,
            format!("{} <= {name} <= {}", r.start(), r.end()),
        ))
    }
}

/// One comparison of a figure with its limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limit {
    /// What is compared: `fp`, `window`, `allow_fn` (or `allow_fn_age`), `memory_bits`,
    /// `max_accesses`, `max_npws`.
    pub check: &'static str,
    /// The design's figure.
    pub value: f64,
    /// The requirement's limit.
    pub limit: f64,
    /// Whether the figure must be at most (`<=`) or at least (`>=`) the limit.
    pub relation: &'static str,
    /// Relative margin: `(limit − value)/limit` for `<=`, `(value − limit)/limit` for
    /// `>=`; negative when the check fails.
    pub margin: f64,
    /// Whether the figure respects the limit.
    pub pass: bool,
}

impl Limit {
    fn at_most(check: &'static str, value: f64, limit: f64) -> Self {
        Self {
            check,
            value,
            limit,
            relation: "<=",
            margin: (limit - value) / limit,
            pass: value <= limit,
        }
    }

    /// Strictly above the limit (an age at which the FN first reaches its allowance must
    /// lie beyond the window).
    fn above(check: &'static str, value: f64, limit: f64) -> Self {
        Self {
            pass: value > limit,
            ..Self::at_least(check, value, limit)
        }
    }

    fn at_least(check: &'static str, value: f64, limit: f64) -> Self {
        Self {
            check,
            value,
            limit,
            relation: ">=",
            margin: (value - limit) / limit,
            pass: value >= limit,
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {:.6e} (margin {:+.2}%)",
            if self.pass { "PASS" } else { "FAIL" },
            self.check,
            self.relation,
            self.limit,
            100.0 * self.margin
        )?;
        write!(f, ": {} = {:.6e}", self.check, self.value)
    }
}

/// The window of insertions a window design keeps without false negatives: `(r − 1)·g`
/// for a ring, `l·g` for an APBF, `1 + ⌈(σ + 1)/k⌉` for a two-phase RBF
/// ([`bfopt_models::rbf::RbfParams::fn_window`]); `None` where the design holds exactly the
/// requirement's window (a fingerprint queue), forgets window items (one-phase RBF,
/// SBF, IBF, GBF: [`forgotten`]) or is not a window design.
pub fn covered_window(params: &Params) -> Option<u64> {
    match *params {
        Params::Rotating { r, g, .. } => Some(u64::from(r.saturating_sub(1)).saturating_mul(g)),
        Params::Apbf { l, g, .. } => Some(u64::from(l).saturating_mul(g)),
        Params::Rbf {
            m,
            filters: 2,
            k,
            sigma,
        } => rbf::params(m, 2, k, sigma).ok().and_then(|p| p.fn_window()),
        _ => None,
    }
}

/// How much of the window a design that forgets window items forgets, as its row
/// promises it under `allow_fn`: the SBF's FN of an item `W` insertions old
/// ([`SbfParams::fn_at_age`]); an IBF's importance-weighted FN at age `W` (Eq. (6)
/// [SBF]; where the FN pass at age `W` is too long, the age at which it reaches
/// `allow_fn`, which must exceed `W`); the GBF's window-averaged FN (Eqs. (28)-(31)
/// [TBF]); the one-phase RBF's window-averaged FN `W/(2L)` (renewal approximation).
/// `None` for designs without false negatives in the window, or without `allow_fn`.
pub fn forgotten(c: &Candidate, req: &Requirement) -> Option<Limit> {
    let (w, rate) = (req.window_insertions()?, req.allow_fn()?);
    let fn_ = match c.params {
        Params::Stable {
            m,
            k,
            max,
            decrements,
            counter_bits,
        } => {
            if c.design == "sbf" {
                SbfParams::new(m, k, max, decrements).ok()?.fn_at_age(w)
            } else {
                let policy = Policy::parse(&c.design).ok()?;
                let p = ibf::design(
                    policy,
                    req.importance()?,
                    (m, k, max, decrements),
                    counter_bits,
                )
                .ok()?;
                let s = solve(&p).ok()?;
                match s.metrics(w, 1.0) {
                    Ok(x) => x.weighted_fn,
                    Err(_) => {
                        let age = s.weighted_fn_age(rate).unwrap_or(u64::MAX);
                        return Some(Limit::above("allow_fn_age", age as f64, w as f64));
                    }
                }
            }
        }
        // On the stream the row was sized for (its duplicates, when the requirement has
        // them): the distinct stream's FN is higher and failed designs that pass.
        Params::Gbf { m, k0, k1 } => {
            gbf::window_fn(&GbfParams::new(m, k0, k1).ok()?, w, gbf::repeats(req, w))
        }
        Params::Rbf {
            m,
            filters: 1,
            k,
            sigma,
        } => {
            let p = rbf::params(m, 1, k, sigma).ok()?;
            let l = p.metrics(Method::Fluid).ok()?.expected_messages;
            rbf::one_phase_window_fn(w, l)
        }
        _ => return None,
    };
    Some(Limit::at_most("allow_fn", fn_, rate))
}

/// Compares a re-evaluated design with its requirement: the FP target, the window it
/// covers (window designs), and each budget the requirement sets.
pub fn limits(c: &Candidate, req: &Requirement) -> Vec<Limit> {
    let mut out = vec![Limit::at_most("fp", c.fp, req.fp())];
    if let (Some(w), Some(covered)) = (req.window_insertions(), covered_window(&c.params)) {
        out.push(Limit::at_least("window", covered as f64, w as f64));
    }
    out.extend(forgotten(c, req));
    let b = req.budgets();
    if let Some(m) = b.memory_bits {
        out.push(Limit::at_most("memory_bits", c.bits as f64, m as f64));
    }
    if let Some(a) = b.max_accesses {
        out.push(Limit::at_most("max_accesses", c.worst_accesses(), a));
    }
    if let Some(x) = b.max_npws {
        // A design without an NPWS model never passes an NPWS budget.
        out.push(Limit::at_most(
            "max_npws",
            c.npws.unwrap_or(f64::INFINITY),
            x,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan;

    /// A plan's candidates, written out and read back, re-evaluate to the same figures:
    /// every family the planner proposes, under `allow_fn`, penalties, an importance law
    /// and a temporal shape.
    #[test]
    fn plan_round_trip_reproduces_every_candidate() {
        let window = || Requirement::window(0.01, 5_000).unwrap();
        for req in [
            Requirement::capacity(0.01, 10_000).unwrap(),
            window(),
            window().with_allow_fn(0.05).unwrap(),
            window()
                .with_penalties(bfopt_models::timing::PenaltyDist::Fixed { fp: 1.0, fn_: 10.0 })
                .unwrap(),
            Requirement::window(0.05, 20_000)
                .unwrap()
                .with_allow_fn(0.1)
                .unwrap()
                .with_importance(bfopt_models::stable::ImportanceDist::linear(1, 50).unwrap())
                .unwrap(),
            Requirement::temporal(0.02, 1024, 32, 20_000).unwrap(),
            Requirement::growing(0.01, 1_000, 100_000).unwrap(),
            window()
                .with_duplicates(0.3)
                .unwrap()
                .with_allow_fn(0.1)
                .unwrap(),
        ] {
            let p = plan(&req).unwrap();
            let text = serde_json::to_string(&p).unwrap();
            let specs = parse(&text, true).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(specs.len(), p.candidates.len());
            for (s, c) in specs.iter().zip(&p.candidates) {
                let e = evaluate(s).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(e.design, c.design, "{}", s.name);
                assert_eq!(e.params, c.params, "{}", s.name);
                assert_eq!(e.bits, c.bits, "{}", s.name);
                assert!(
                    (e.fp - c.fp).abs() <= 1e-12 * c.fp,
                    "{}: {} vs {}",
                    s.name,
                    e.fp,
                    c.fp
                );
                let l = limits(&e, &s.requirement);
                assert!(l.iter().all(|l| l.pass), "{}: {l:?}", s.name);
                // A design that forgets is checked against its allowance.
                if matches!(
                    c.false_negatives,
                    crate::candidate::FalseNegatives::AtMost { .. }
                ) {
                    assert!(
                        l.iter().any(|l| l.check.starts_with("allow_fn")),
                        "{}: {l:?}",
                        s.name
                    );
                }
            }
            let designs: Vec<&str> = specs.iter().map(|s| s.design.as_str()).collect();
            let expect: &[&str] = match req.shape() {
                Shape::Temporal { .. } => &["pbf-2", "pbf-1 g=2", "pair-filter"],
                Shape::Growing { .. } => &["classic/standard@max", "scalable/bfopt"],
                _ if req.importance().is_some() => &["ibf1", "ibf3"],
                _ if req.penalties().is_some() => &["btbf/inferential"],
                _ if req.allow_fn().is_some() => &["sbf", "gbf", "rbf/one-phase"],
                _ => &[],
            };
            for d in expect {
                assert!(designs.contains(d), "{req:?}: no {d} in {designs:?}");
            }
        }
    }

    /// Shape and key errors of the newly modelled designs name the JSON path.
    #[test]
    fn forgetting_and_temporal_designs_need_their_requirement() {
        let req = Requirement::window(0.01, 5_000)
            .unwrap()
            .with_allow_fn(0.05)
            .unwrap();
        let p = plan(&req).unwrap();
        let mut v = serde_json::to_value(&p).unwrap();
        v["requirement"]["allow_fn"] = Value::Null;
        let text = v.to_string();
        let specs = parse(&text, true).unwrap();
        let gbf = specs.iter().find(|s| s.design == "gbf").unwrap();
        let e = evaluate(gbf).unwrap_err();
        assert!(e.at.ends_with("requirement.allow_fn"), "{e}");
        // A PBF tree whose stated probes are not the structure's.
        let t = plan(&Requirement::temporal(0.02, 1024, 32, 20_000).unwrap()).unwrap();
        let mut v = serde_json::to_value(&t).unwrap();
        let i = t
            .candidates
            .iter()
            .position(|c| c.design == "pbf-2")
            .unwrap();
        v["candidates"][i]["params"]["max_probes"] = Value::from(3);
        let specs = parse(&v.to_string(), true).unwrap();
        let e = evaluate(&specs[i]).unwrap_err();
        assert!(e.at.ends_with("params.max_probes"), "{e}");
        assert!(e.message.contains("allowed max_probes ="), "{e}");
    }
}
