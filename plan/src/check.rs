//! `check`: deployed designs re-evaluated from their parameters alone, against their
//! requirements.
//!
//! A design file is either a [`Plan`](crate::Plan) as JSON (`bfopt recommend --format
//! json`: its `requirement`, `candidates` and `pick`) or a list of deployed designs,
//! each `{"name", "family", "design", "params": {...}, "requirement": {...}}` with the
//! keys of the plan's candidates and requirement (a bare array, or an object with a
//! `designs` array; in TOML, [`parse_as`], an array of tables `[[designs]]`). [`parse`] reads either and names the JSON path of anything wrong
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
//! `rbf` (the two-phase filter), `timing` (the standard BTBF, its timers configured for
//! the requirement's window: expiry is a setting, not a size), `stable` (the SBF, under
//! the requirement's `allow_fn`).
//! Any other family or design is an error naming it.

use crate::candidate::{Candidate, Params};
use crate::families::{apbf, baseline, btbf, classic, rbf, sbf};
use crate::requirement::{Requirement, Shape};
use bfopt_models::apbf::{evaluate as apbf_at, ApbfRequirement};
use bfopt_models::baseline::{FingerprintQueueDesign, RotatingDesign};
use bfopt_models::classic::{ClassicDesign, ClassicParams, Layout};
use bfopt_models::rbf::{Hashing, RbfParams, Recycling};
use bfopt_models::stable::ImportanceDist;
use bfopt_models::stable::SbfParams;
use bfopt_models::timing::BtbfParams;
use bfopt_models::timing::{Penalties, PenaltyDist};
use bfopt_models::ModelError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// Families [`evaluate`] models, with their designs.
pub const SUPPORTED: &str = "classic (classic/standard, classic/partitioned, classic/blocked), baseline (rotating/standard, rotating/blocked, fingerprint-queue), apbf (apbf, apbbf), rbf (rbf/two-phase), timing (btbf), stable (sbf)";

/// Families the planner proposes of which [`evaluate`] models no design, or only some
/// (`rbf/one-phase`, `btbf/inferential` and the IBF policies are not modelled).
const NOT_YET: [&str; 5] = ["rbf", "stable", "timing", "gbf", "pbf"];

/// A two-phase RBF of `m` bits per filter, in the planner's variant (colliding hashes,
/// non-retaining recycling: [`bfopt_models::rbf::RbfRequirement::new`]).
fn rbf_two_phase(m: u64, k: u32, sigma: u64) -> Result<RbfParams, ModelError> {
    RbfParams::new(
        m.saturating_mul(2),
        k,
        sigma,
        2,
        Hashing::Colliding,
        Recycling::NonRetaining,
    )
}

/// What is wrong in a design file, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct FileError {
    /// The JSON path (`candidates[2].params.k`) or `line L, column C` of a syntax error.
    pub at: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl FileError {
    fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            at: at.into(),
            message: message.into(),
        }
    }

    /// A model error about the parameter `name` at `base.name`.
    fn model(base: &str, e: ModelError) -> Self {
        match e {
            ModelError::InvalidParam {
                name,
                value,
                allowed,
            } => Self::new(
                format!("{base}.{name}"),
                format!("{name} = {value}: allowed {allowed}"),
            ),
            other => Self::new(base, other.to_string()),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

impl std::error::Error for FileError {}

/// One deployed design as read from a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DesignSpec {
    /// Its name (a plan's candidates are named after their design and index).
    pub name: String,
    /// Its JSON path in the file (`candidates[2]`, `designs[0]`, `[1]`).
    pub path: String,
    /// The family (`classic`, `baseline`, `apbf`).
    pub family: String,
    /// The design (`classic/blocked`, `rotating/standard`, `apbbf`, ...).
    pub design: String,
    /// Its parameters.
    pub params: Params,
    /// What it must achieve.
    pub requirement: Requirement,
}

/// Reads a design file: a plan (its pick, or every candidate with `all`) or a list of
/// deployed designs.
///
/// # Errors
/// Invalid JSON (with its line and column), a missing key, a value of the wrong type or
/// out of range, an unknown or unsupported family (each with its JSON path).
pub fn parse(text: &str, all: bool) -> Result<Vec<DesignSpec>, FileError> {
    parse_as(text, Syntax::Json, all)
}

/// The syntax of a design file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JSON.
    Json,
    /// TOML: the same keys; a list of designs is an array of tables `[[designs]]`.
    Toml,
}

impl Syntax {
    /// TOML for a path ending in `.toml`, JSON otherwise.
    pub fn of_path(path: &std::path::Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("toml") => Syntax::Toml,
            _ => Syntax::Json,
        }
    }
}

/// [`parse`] of a file in either syntax.
///
/// # Errors
/// As [`parse`]; a TOML syntax error names its line.
pub fn parse_as(text: &str, syntax: Syntax, all: bool) -> Result<Vec<DesignSpec>, FileError> {
    let root: Value = match syntax {
        Syntax::Json => serde_json::from_str(text).map_err(|e| {
            FileError::new(
                format!("line {}, column {}", e.line(), e.column()),
                format!("invalid JSON: {e}"),
            )
        })?,
        Syntax::Toml => toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |r| {
                text[..r.start.min(text.len())].matches('\n').count() + 1
            });
            FileError::new(
                format!("line {line}"),
                format!("invalid TOML: {}", e.message()),
            )
        })?,
    };
    let list = match &root {
        Value::Array(items) => Some(("", items)),
        Value::Object(o) => match o.get("designs") {
            Some(Value::Array(items)) => Some(("designs", items)),
            Some(_) => return Err(FileError::new("designs", "must be an array of designs")),
            None => None,
        },
        _ => None,
    };
    if let Some((base, items)) = list {
        if items.is_empty() {
            return Err(FileError::new(
                if base.is_empty() { "$" } else { base },
                "no designs (allowed: at least one)",
            ));
        }
        return items
            .iter()
            .enumerate()
            .map(|(i, d)| design_entry(&format!("{base}[{i}]"), d))
            .collect();
    }
    let Value::Object(plan) = &root else {
        return Err(FileError::new(
            "$",
            "expected a plan (requirement, candidates, pick) or a list of designs",
        ));
    };
    if !plan.contains_key("candidates") {
        return Err(FileError::new(
            "candidates",
            "missing key: a design file is a plan (requirement, candidates, pick) or a list of designs ([...] or {\"designs\": [...]})",
        ));
    }
    let requirement = requirement(&field(plan, "", "requirement")?, "requirement")?;
    let candidates = array(plan, "", "candidates")?;
    let chosen: Vec<usize> = if all {
        (0..candidates.len()).collect()
    } else {
        let pick = object(plan, "", "pick")?;
        let i = uint(&pick, "pick", "index")?;
        let i = usize::try_from(i)
            .ok()
            .filter(|&i| i < candidates.len())
            .ok_or_else(|| {
                FileError::new(
                    "pick.index",
                    format!(
                        "{i}: allowed 0 <= index < {} (the candidates)",
                        candidates.len()
                    ),
                )
            })?;
        vec![i]
    };
    chosen
        .into_iter()
        .map(|i| {
            let path = format!("candidates[{i}]");
            let c = as_object(&candidates[i], &path)?;
            let design = string(c, &path, "design")?;
            spec(format!("{design} #{i}"), &path, c, requirement.clone())
        })
        .collect()
}

/// One entry of a list of designs.
fn design_entry(path: &str, v: &Value) -> Result<DesignSpec, FileError> {
    let d = as_object(v, path)?;
    let name = string(d, path, "name")?;
    let req = requirement(&field(d, path, "requirement")?, &join(path, "requirement"))?;
    spec(name, path, d, req)
}

/// The family, design and params of a design object.
fn spec(
    name: String,
    path: &str,
    d: &Map<String, Value>,
    requirement: Requirement,
) -> Result<DesignSpec, FileError> {
    let family = string(d, path, "family")?;
    let design = string(d, path, "design")?;
    let p = object(d, path, "params")?;
    let base = join(path, "params");
    let params = params(&family, &design, &p, &base, path)?;
    Ok(DesignSpec {
        name,
        path: path.to_string(),
        family,
        design,
        params,
        requirement,
    })
}

/// The typed parameters of `design` of `family`.
fn params(
    family: &str,
    design: &str,
    p: &Map<String, Value>,
    base: &str,
    path: &str,
) -> Result<Params, FileError> {
    let u32_of = |key: &str| -> Result<u32, FileError> {
        let v = uint(p, base, key)?;
        u32::try_from(v).map_err(|_| {
            FileError::new(
                join(base, key),
                format!("{v}: allowed an integer 0 to {}", u32::MAX),
            )
        })
    };
    let opt_u64 = |key: &str| -> Result<Option<u64>, FileError> {
        match p.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => uint(p, base, key).map(Some),
        }
    };
    let block = |key: &str, blocked: bool| -> Result<Option<u64>, FileError> {
        let b = opt_u64(key)?;
        match (blocked, b) {
            (true, None) => Err(FileError::new(
                join(base, key),
                format!("missing key: a blocked design needs {key}"),
            )),
            (false, Some(_)) => Err(FileError::new(
                join(base, key),
                "only for a blocked design (classic/blocked, rotating/blocked)",
            )),
            _ => Ok(b),
        }
    };
    match (family, design) {
        ("classic", "classic/standard" | "classic/partitioned" | "classic/blocked") => {
            Ok(Params::Classic {
                m: uint(p, base, "m")?,
                k: u32_of("k")?,
                block_bits: block("block_bits", design == "classic/blocked")?,
            })
        }
        ("baseline", "rotating/standard" | "rotating/blocked") => Ok(Params::Rotating {
            r: u32_of("r")?,
            g: uint(p, base, "g")?,
            m: uint(p, base, "m")?,
            k: u32_of("k")?,
            block_bits: block("block_bits", design == "rotating/blocked")?,
        }),
        ("baseline", "fingerprint-queue") => Ok(Params::FingerprintQueue {
            fingerprint_bits: u32_of("fingerprint_bits")?,
            counter_bits: u32_of("counter_bits")?,
            slots: uint(p, base, "slots")?,
        }),
        ("apbf", "apbf" | "apbbf") => {
            let blocked = design == "apbbf";
            let narrow = |key: &str| -> Result<Option<u32>, FileError> {
                match opt_u64(key)? {
                    None if blocked => Err(FileError::new(
                        join(base, key),
                        format!("missing key: an apbbf needs {key}"),
                    )),
                    Some(_) if !blocked => Err(FileError::new(
                        join(base, key),
                        "only for an apbbf (design \"apbbf\")",
                    )),
                    None => Ok(None),
                    Some(_) => u32_of(key).map(Some),
                }
            };
            Ok(Params::Apbf {
                k: u32_of("k")?,
                l: u32_of("l")?,
                g: uint(p, base, "g")?,
                slice_bits: uint(p, base, "slice_bits")?,
                block_bits: narrow("block_bits")?,
                block_hashes: narrow("block_hashes")?,
            })
        }
        ("rbf", "rbf/two-phase") => {
            let filters = u32_of("filters")?;
            if filters != 2 {
                return Err(FileError::new(
                    join(base, "filters"),
                    format!("{filters}: allowed 2 (a two-phase RBF)"),
                ));
            }
            Ok(Params::Rbf {
                m: uint(p, base, "m")?,
                filters,
                k: u32_of("k")?,
                sigma: uint(p, base, "sigma")?,
            })
        }
        ("timing", "btbf") => Ok(Params::Btbf {
            m: uint(p, base, "m")?,
            k: u32_of("k")?,
            bpt: u32_of("bpt")?,
            block_size: uint(p, base, "block_size")?,
            padding: uint(p, base, "padding")?,
        }),
        ("stable", "sbf") => Ok(Params::Stable {
            m: uint(p, base, "m")?,
            k: u32_of("k")?,
            max: u32_of("max")?,
            decrements: uint(p, base, "decrements")?,
            counter_bits: None,
        }),
        ("classic" | "baseline" | "apbf", _) => Err(FileError::new(
            join(path, "design"),
            format!("unknown design \"{design}\" of family {family}: allowed {SUPPORTED}"),
        )),
        (f, _) if NOT_YET.contains(&f) => Err(FileError::new(
            join(path, "design"),
            format!(
                "design \"{design}\" of family {f}: check does not model this design (yet): supported {SUPPORTED}"
            ),
        )),
        (f, _) => Err(FileError::new(
            join(path, "family"),
            format!("unknown family \"{f}\": allowed {SUPPORTED}"),
        )),
    }
}

/// A requirement from its serialized form (the keys of [`Requirement`]'s JSON).
///
/// # Errors
/// A missing key, a wrong type or a value out of range, at `path.key`.
pub fn requirement(v: &Value, path: &str) -> Result<Requirement, FileError> {
    let r = as_object(v, path)?;
    let fp = real(r, path, "fp")?;
    let shape = string(r, path, "shape")?;
    let at = |e: ModelError| FileError::model(path, e);
    let mut req = match shape.as_str() {
        "capacity" => Requirement::capacity(fp, uint(r, path, "items")?)
            .map_err(|e| rename(e, "capacity", "items"))
            .map_err(at)?,
        "window" => Requirement::window(fp, uint(r, path, "insertions")?)
            .map_err(|e| rename(e, "window", "insertions"))
            .map_err(at)?,
        "temporal" => Requirement::temporal(
            fp,
            uint(r, path, "horizon")?,
            uint(r, path, "query_length")?,
            uint(r, path, "pairs")?,
        )
        .map_err(at)?,
        other => {
            return Err(FileError::new(
                join(path, "shape"),
                format!("\"{other}\": allowed capacity, window, temporal"),
            ))
        }
    };
    let present = |key: &str| r.get(key).is_some_and(|v| !v.is_null());
    if present("duplicates") {
        req = req
            .with_duplicates(real(r, path, "duplicates")?)
            .map_err(at)?;
    }
    if present("allow_fn") {
        req = req.with_allow_fn(real(r, path, "allow_fn")?).map_err(at)?;
    }
    if present("importance") {
        let spec = string(r, path, "importance")?;
        let d = ImportanceDist::parse(&spec).map_err(at)?;
        req = req.with_importance(d).map_err(at)?;
    }
    if present("penalties") {
        let p = object(r, path, "penalties")?;
        let base = join(path, "penalties");
        let d = match string(&p, &base, "penalties")?.as_str() {
            "fixed" => Penalties::new(real(&p, &base, "fp")?, real(&p, &base, "fn")?).map(|x| {
                PenaltyDist::Fixed {
                    fp: x.fp(),
                    fn_: x.fn_(),
                }
            }),
            "uniform" => PenaltyDist::uniform(real(&p, &base, "lo")?, real(&p, &base, "hi")?),
            other => {
                return Err(FileError::new(
                    join(&base, "penalties"),
                    format!("\"{other}\": allowed fixed, uniform"),
                ))
            }
        }
        .map_err(|e| FileError::model(&base, e))?;
        req = req.with_penalties(d).map_err(at)?;
    }
    if present("memory_bits") {
        req = req
            .with_memory(uint(r, path, "memory_bits")?)
            .map_err(|e| rename(e, "memory", "memory_bits"))
            .map_err(at)?;
    }
    if present("max_accesses") {
        req = req
            .with_max_accesses(real(r, path, "max_accesses")?)
            .map_err(at)?;
    }
    if present("max_npws") {
        req = req.with_max_npws(real(r, path, "max_npws")?).map_err(at)?;
    }
    Ok(req)
}

/// A model error about `from` renamed to the file's key `to`.
fn rename(e: ModelError, from: &str, to: &'static str) -> ModelError {
    match e {
        ModelError::InvalidParam {
            name,
            value,
            allowed,
        } if name == from => ModelError::InvalidParam {
            name: to,
            value,
            allowed: allowed.replace(from, to),
        },
        other => other,
    }
}

/// "What if traffic grows": the requirement with its items (static sets) or window
/// (sliding windows) replaced. `None` keeps the stated value; an override of the other
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
    let layout = |block_bits: Option<u64>| match block_bits {
        Some(block_bits) => Layout::Blocked { block_bits },
        None if spec.design.ends_with("partitioned") => Layout::Partitioned,
        None => Layout::Standard,
    };
    let mut c = match spec.params {
        Params::Classic { m, k, block_bits } => {
            let Shape::Capacity { items } = *req.shape() else {
                return Err(mismatch("a static set"));
            };
            let p = ClassicParams::new(m, k, items, layout(block_bits)).map_err(at)?;
            classic::row(fp, p)
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
        Params::Rbf { m, k, sigma, .. } => {
            let w = window()?;
            let p = rbf_two_phase(m, k, sigma)
                .map_err(|e| rename(e, "bits", "m"))
                .map_err(at)?;
            rbf::two_phase_row(w, p).map_err(at)?
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
            btbf::standard_row(fp, w, p, btbf::worst_fp(&p))
        }
        Params::Stable {
            m,
            k,
            max,
            decrements,
            counter_bits: None,
        } => {
            let w = window()?;
            let rate = req.allow_fn().ok_or_else(|| {
                FileError::new(
                    join(&spec.path, "requirement.allow_fn"),
                    "missing key: an sbf forgets window items; allowed a rate 0 < allow_fn < 1",
                )
            })?;
            let p = SbfParams::new(m, k, max, decrements)
                .map_err(|e| rename(e, "p", "decrements"))
                .map_err(at)?;
            sbf::row(w, rate, p).map_err(at)?
        }
        _ => {
            return Err(FileError::new(
                join(&spec.path, "family"),
                format!(
                    "{}: not modelled by check (supported: {SUPPORTED})",
                    spec.design
                ),
            ))
        }
    };
    c.bits_per_item = c.bits as f64 / req.items() as f64;
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
    /// What is compared: `fp`, `window`, `memory_bits`, `max_accesses`, `max_npws`.
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
/// ([`RbfParams::fn_window`]); `None` where the design holds exactly the
/// requirement's window (a fingerprint queue) or is not a window design.
pub fn covered_window(params: &Params) -> Option<u64> {
    match *params {
        Params::Rotating { r, g, .. } => Some(u64::from(r.saturating_sub(1)).saturating_mul(g)),
        Params::Apbf { l, g, .. } => Some(u64::from(l).saturating_mul(g)),
        Params::Rbf { m, k, sigma, .. } => {
            rbf_two_phase(m, k, sigma).ok().and_then(|p| p.fn_window())
        }
        _ => None,
    }
}

/// The FN of an item `W` insertions old, for a design that forgets window items by
/// decay (the SBF: [`SbfParams::fn_at_age`]); `None` for the others.
pub fn forgotten(params: &Params, req: &Requirement) -> Option<f64> {
    match (params, req.window_insertions()) {
        (
            &Params::Stable {
                m,
                k,
                max,
                decrements,
                counter_bits: None,
            },
            Some(w),
        ) => SbfParams::new(m, k, max, decrements)
            .ok()
            .map(|p| p.fn_at_age(w)),
        _ => None,
    }
}

/// Compares a re-evaluated design with its requirement: the FP target, the window it
/// covers (window designs), and each budget the requirement sets.
pub fn limits(c: &Candidate, req: &Requirement) -> Vec<Limit> {
    let mut out = vec![Limit::at_most("fp", c.fp, req.fp())];
    if let (Some(w), Some(covered)) = (req.window_insertions(), covered_window(&c.params)) {
        out.push(Limit::at_least("window", covered as f64, w as f64));
    }
    if let (Some(rate), Some(f)) = (req.allow_fn(), forgotten(&c.params, req)) {
        out.push(Limit::at_most("allow_fn", f, rate));
    }
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

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn as_object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, FileError> {
    v.as_object().ok_or_else(|| {
        FileError::new(
            if path.is_empty() { "$" } else { path },
            format!("{}: allowed an object", kind(v)),
        )
    })
}

fn field(o: &Map<String, Value>, base: &str, key: &str) -> Result<Value, FileError> {
    o.get(key)
        .cloned()
        .ok_or_else(|| FileError::new(join(base, key), "missing key"))
}

fn object(o: &Map<String, Value>, base: &str, key: &str) -> Result<Map<String, Value>, FileError> {
    let v = field(o, base, key)?;
    as_object(&v, &join(base, key)).cloned()
}

fn array(o: &Map<String, Value>, base: &str, key: &str) -> Result<Vec<Value>, FileError> {
    match field(o, base, key)? {
        Value::Array(a) if !a.is_empty() => Ok(a),
        Value::Array(_) => Err(FileError::new(
            join(base, key),
            "empty: allowed at least one entry",
        )),
        v => Err(FileError::new(
            join(base, key),
            format!("{}: allowed an array", kind(&v)),
        )),
    }
}

fn string(o: &Map<String, Value>, base: &str, key: &str) -> Result<String, FileError> {
    match field(o, base, key)? {
        Value::String(s) => Ok(s),
        v => Err(FileError::new(
            join(base, key),
            format!("{} {v}: allowed a string", kind(&v)),
        )),
    }
}

fn uint(o: &Map<String, Value>, base: &str, key: &str) -> Result<u64, FileError> {
    let v = field(o, base, key)?;
    v.as_u64().ok_or_else(|| {
        FileError::new(
            join(base, key),
            format!("{} {v}: allowed a non-negative integer", kind(&v)),
        )
    })
}

fn real(o: &Map<String, Value>, base: &str, key: &str) -> Result<f64, FileError> {
    let v = field(o, base, key)?;
    v.as_f64().ok_or_else(|| {
        FileError::new(
            join(base, key),
            format!("{} {v}: allowed a number", kind(&v)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan;

    /// A plan's candidates, written out and read back, re-evaluate to the same figures.
    #[test]
    fn plan_round_trip_reproduces_every_candidate() {
        for req in [
            Requirement::capacity(0.01, 10_000).unwrap(),
            Requirement::window(0.01, 5_000).unwrap(),
            Requirement::window(0.01, 5_000)
                .unwrap()
                .with_allow_fn(0.05)
                .unwrap(),
        ] {
            let mut p = plan(&req).unwrap();
            // Not modelled by check: one-phase RBF, inferential BTBF, IBF, GBF, PBF.
            p.candidates.retain(|c| {
                !matches!(
                    c.design.as_str(),
                    "rbf/one-phase" | "btbf/inferential" | "gbf"
                ) && (c.family != "stable" || c.design == "sbf")
            });
            let text = serde_json::to_string(&p).unwrap();
            let specs = parse(&text, true).unwrap_or_else(|e| panic!("{e}"));
            let mut checked = 0;
            for (s, c) in specs.iter().zip(&p.candidates) {
                let e = evaluate(s).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(e.params, c.params, "{}", s.name);
                assert_eq!(e.bits, c.bits, "{}", s.name);
                assert!(
                    (e.fp - c.fp).abs() <= 1e-12 * c.fp,
                    "{}: {} vs {}",
                    s.name,
                    e.fp,
                    c.fp
                );
                assert!(
                    limits(&e, &s.requirement).iter().all(|l| l.pass),
                    "{}",
                    s.name
                );
                checked += 1;
            }
            assert!(checked >= 2, "{req:?}: only {checked} candidates checked");
            if req.allow_fn().is_some() {
                assert!(specs.iter().any(|s| s.design == "sbf"), "{req:?}: no sbf");
            }
        }
    }

    #[test]
    fn toml_reads_like_json() {
        let toml = "[[designs]]\nname = \"a\"\nfamily = \"classic\"\ndesign = \"classic/standard\"\nparams = { m = 9700, k = 7 }\nrequirement = { fp = 0.01, shape = \"capacity\", items = 1000 }\n";
        let json = r#"{"designs": [{"name": "a", "family": "classic", "design": "classic/standard",
            "params": {"m": 9700, "k": 7}, "requirement": {"fp": 0.01, "shape": "capacity", "items": 1000}}]}"#;
        assert_eq!(
            parse_as(toml, Syntax::Toml, false).unwrap(),
            parse(json, false).unwrap()
        );
        let e = parse_as(
            "[[designs]]\nname = \"a\"\nfamily = 3 3\n",
            Syntax::Toml,
            false,
        )
        .unwrap_err();
        assert_eq!(e.at, "line 3", "{e}");
        let e = parse_as(&toml.replace("k = 7", "k = \"7\""), Syntax::Toml, false).unwrap_err();
        assert_eq!(e.at, "designs[0].params.k");
    }

    #[test]
    fn errors_name_the_json_path() {
        let bad = r#"[{"name": "a", "family": "classic", "design": "classic/standard",
            "params": {"m": 1000, "k": "7"}, "requirement": {"fp": 0.01, "shape": "capacity", "items": 100}}]"#;
        assert_eq!(parse(bad, false).unwrap_err().at, "[0].params.k");
        let e = parse("{\n  \"candidates\": [", false).unwrap_err();
        assert!(e.at.starts_with("line 2"), "{e}");
    }
}
