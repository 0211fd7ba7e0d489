//! Reading a design file: a plan or a list of designs, in JSON or TOML, with the JSON
//! path of anything wrong and what is allowed.

use super::SUPPORTED;
use crate::candidate::Params;
use crate::requirement::Requirement;
use bfopt_models::stable::ImportanceDist;
use bfopt_models::timing::{Penalties, PenaltyDist};
use bfopt_models::ModelError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// What is wrong in a design file, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct FileError {
    /// The JSON path (`candidates[2].params.k`) or `line L, column C` of a syntax error.
    pub at: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl FileError {
    pub(super) fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            at: at.into(),
            message: message.into(),
        }
    }

    /// A model error about the parameter `name` at `base.name`.
    pub(super) fn model(base: &str, e: ModelError) -> Self {
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
        (
            "classic",
            "classic/standard" | "classic/partitioned" | "classic/blocked" | "classic/standard@max",
        ) => Ok(Params::Classic {
            m: uint(p, base, "m")?,
            k: u32_of("k")?,
            block_bits: block("block_bits", design == "classic/blocked")?,
        }),
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
        ("rbf", "rbf/two-phase" | "rbf/one-phase") => {
            let filters = u32_of("filters")?;
            let phases = if design == "rbf/two-phase" { 2 } else { 1 };
            if filters != phases {
                return Err(FileError::new(
                    join(base, "filters"),
                    format!("{filters}: allowed {phases} (a {design})"),
                ));
            }
            Ok(Params::Rbf {
                m: uint(p, base, "m")?,
                filters,
                k: u32_of("k")?,
                sigma: uint(p, base, "sigma")?,
            })
        }
        ("timing", "btbf" | "btbf/inferential") => Ok(Params::Btbf {
            m: uint(p, base, "m")?,
            k: u32_of("k")?,
            bpt: u32_of("bpt")?,
            block_size: uint(p, base, "block_size")?,
            padding: uint(p, base, "padding")?,
        }),
        ("stable", "sbf" | "ibf1" | "ibf2" | "ibf3" | "ibf4" | "ibf5" | "ibf6") => {
            Ok(Params::Stable {
                m: uint(p, base, "m")?,
                k: u32_of("k")?,
                max: u32_of("max")?,
                decrements: uint(p, base, "decrements")?,
                counter_bits: match opt_u64("counter_bits")? {
                    None => None,
                    Some(_) => Some(u32_of("counter_bits")?),
                },
            })
        }
        ("gbf", "gbf") => Ok(Params::Gbf {
            m: uint(p, base, "m")?,
            k0: u32_of("k0")?,
            k1: u32_of("k1")?,
        }),
        ("pbf", "pair-filter") => Ok(Params::PairFilter {
            m: uint(p, base, "m")?,
            probes: uint(p, base, "probes")?,
        }),
        ("pbf", d) if d == "pbf-2" || d.starts_with("pbf-1") => {
            let granularity = uint(p, base, "granularity")?;
            let named = if d == "pbf-2" {
                Some(1)
            } else {
                d.strip_prefix("pbf-1 g=")
                    .and_then(|g| g.parse::<u64>().ok())
            };
            if named != Some(granularity) || (d != "pbf-2" && granularity < 2) {
                return Err(FileError::new(
                    join(base, "granularity"),
                    format!(
                        "{granularity} for design \"{d}\": allowed granularity 1 for \"pbf-2\", G >= 2 for \"pbf-1 g=G\""
                    ),
                ));
            }
            Ok(Params::PbfTree {
                granularity,
                filters_per_pair: uint(p, base, "filters_per_pair")?,
                max_probes: uint(p, base, "max_probes")?,
                per_probe_fp: real(p, base, "per_probe_fp")?,
            })
        }
        ("fuse", "binary-fuse/8" | "binary-fuse/16" | "binary-fuse/32") => Ok(Params::Fuse {
            f: u32_of("f")?,
            slots: uint(p, base, "slots")?,
        }),
        ("cuckoo", d) if d.starts_with("cuckoo/b") => Ok(Params::Cuckoo {
            f: u32_of("f")?,
            b: u32_of("b")?,
            buckets: uint(p, base, "buckets")?,
        }),
        ("scalable", d) if d.starts_with("scalable/") => Ok(Params::Scalable {
            n0: uint(p, base, "n0")?,
            p0: real(p, base, "p0")?,
            r: real(p, base, "r")?,
            s: real(p, base, "s")?,
            // Figures of the chain at max_items and at n0: re-derived, not read.
            links: opt_u64("links")?.unwrap_or(0) as usize,
            bits_at_initial: opt_u64("bits_at_initial")?.unwrap_or(0),
        }),
        ("counting", d) if d.starts_with("counting/c") => Ok(Params::Counting {
            m: uint(p, base, "m")?,
            k: u32_of("k")?,
            c: u32_of("c")?,
        }),
        (
            "classic" | "baseline" | "apbf" | "rbf" | "timing" | "stable" | "gbf" | "pbf" | "fuse"
            | "cuckoo" | "counting" | "scalable",
            _,
        ) => Err(FileError::new(
            join(path, "design"),
            format!("unknown design \"{design}\" of family {family}: allowed {SUPPORTED}"),
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
        "growing" => Requirement::growing(
            fp,
            uint(r, path, "initial_capacity")?,
            uint(r, path, "max_items")?,
        )
        .map_err(at)?,
        other => {
            return Err(FileError::new(
                join(path, "shape"),
                format!("\"{other}\": allowed capacity, window, temporal, growing"),
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
pub(super) fn rename(e: ModelError, from: &str, to: &'static str) -> ModelError {
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

pub(super) fn join(base: &str, key: &str) -> String {
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
