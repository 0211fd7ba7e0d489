//! The page's query (the CLI's `recommend` flags) to a [`Requirement`], and the plan or
//! the errors as the JSON the page renders.
//!
//! The fields are parsed by the CLI's parsers, checked for what clap checks (a required
//! flag missing), then mapped by [`RequirementFlags::requirement`], the mapping the CLI
//! uses: the same flags give the same requirement, the same plan JSON and the same
//! messages.

use crate::exit::CliError;
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::timing::PenaltyDist;
use bfopt_models::ModelError;
use bfopt_plan::flags::{self, RequirementFlags};
use bfopt_plan::text::{num, prob};
use bfopt_plan::{plan, Level, PlanError, Requirement};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The `recommend` flags the page knows, in the order of the command line it prints.
pub const FLAGS: &[&str] = &[
    "fp",
    "capacity",
    "window",
    "horizon",
    "query-length",
    "pairs",
    "initial-capacity",
    "max-items",
    "memory",
    "max-accesses",
    "max-npws",
    "allow-fn",
    "duplicates",
    "importance",
    "penalties",
    "deletions",
];

/// The flags that take no value (`--deletions`): a field value of `yes` (or `true`) sets
/// them, `no` (or `false`) leaves them out.
pub const SWITCHES: &[&str] = &["deletions"];

/// Field values by flag name (without dashes); empty values count as absent.
pub type Fields = BTreeMap<String, String>;

/// Reads the JSON object of strings the page sends.
///
/// # Errors
/// Not a JSON object of strings (a page bug, reported under the field `query`).
pub fn fields(query: &str) -> Result<Fields, Value> {
    let all: BTreeMap<String, String> = serde_json::from_str(query)
        .map_err(|e| json!({ "query": format!("not a JSON object of strings: {e}") }))?;
    Ok(all
        .into_iter()
        .filter(|(_, v)| !v.trim().is_empty())
        .collect())
}

/// The message clap prints for a value its parser rejects (after `error: `).
pub fn parse_message(flag: &str, value: &str, why: &str) -> String {
    format!(
        "invalid value '{value}' for '--{flag} <{}>': {why}",
        flag.replace('-', "_").to_uppercase()
    )
}

/// A [`CliError`] as `{field: message}` (the field is the flag without dashes; errors
/// that name no single flag go under `requirement`).
pub fn keyed(e: &CliError) -> Value {
    let field = match e {
        CliError::Invalid { flag, .. } if flag.starts_with("--") && !flag.contains('/') => {
            flag.trim_start_matches("--").to_string()
        }
        _ => "requirement".to_string(),
    };
    json!({ field: e.to_string() })
}

/// Parses the optional flag `flag` with `parse`, collecting a parse error in `errors`.
fn opt<T>(
    f: &Fields,
    flag: &str,
    parse: fn(&str) -> Result<T, String>,
    errors: &mut Map<String, Value>,
) -> Option<T> {
    let text = f.get(flag)?;
    match parse(text) {
        Ok(v) => Some(v),
        Err(why) => {
            errors.insert(flag.into(), parse_message(flag, text, &why).into());
            None
        }
    }
}

/// Parses `--penalties FP:FN` as the CLI does ([`flags::parse_penalties`]).
fn penalties(s: &str) -> Result<PenaltyDist, String> {
    flags::parse_penalties(s, parse_real)
}

/// Parses a switch's field: `yes`/`true` or `no`/`false`.
fn switch(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" => Ok(true),
        "no" | "false" => Ok(false),
        _ => Err("allowed: yes or no".into()),
    }
}

/// The message clap prints for a required flag that is missing.
fn missing(flag: &str) -> Value {
    json!({ flag: format!(
        "the following required argument was not provided: --{flag} <{}>",
        flag.replace('-', "_").to_uppercase()
    ) })
}

/// A model error on a requirement value, named by its flag.
fn flag_error(e: ModelError) -> Value {
    keyed(&CliError::from_model(e, flags::FLAG_NAMES))
}

/// The requirement the fields describe.
///
/// # Errors
/// `{field: message}` for every value that does not parse, else for the first value the
/// library rejects, or for a missing FP target or shape.
pub fn requirement(f: &Fields) -> Result<Requirement, Value> {
    let mut errors = Map::new();
    let fp = opt(f, "fp", parse_real, &mut errors);
    let capacity = opt(f, "capacity", parse_count, &mut errors);
    let window = opt(f, "window", parse_count, &mut errors);
    let horizon = opt(f, "horizon", parse_count, &mut errors);
    let query_length = opt(f, "query-length", parse_count, &mut errors);
    let pairs = opt(f, "pairs", parse_count, &mut errors);
    let memory = opt(f, "memory", parse_bits, &mut errors);
    let max_accesses = opt(f, "max-accesses", parse_real, &mut errors);
    let max_npws = opt(f, "max-npws", parse_real, &mut errors);
    let allow_fn = opt(f, "allow-fn", parse_real, &mut errors);
    let duplicates = opt(f, "duplicates", parse_real, &mut errors);
    let pen = opt(f, "penalties", penalties, &mut errors);
    let initial_capacity = opt(f, "initial-capacity", parse_count, &mut errors);
    let max_items = opt(f, "max-items", parse_count, &mut errors);
    let deletions = opt(f, "deletions", switch, &mut errors).unwrap_or(false);
    if !errors.is_empty() {
        return Err(Value::Object(errors));
    }
    let Some(fp) = fp else {
        return Err(json!({ "fp": "the following required argument was not provided: --fp <FP>" }));
    };
    match (initial_capacity, max_items) {
        (Some(_), None) => return Err(missing("max-items")),
        (None, Some(_)) => return Err(missing("initial-capacity")),
        _ => {}
    }
    if horizon.is_some() {
        for (flag, v) in [("query-length", query_length), ("pairs", pairs)] {
            if v.is_none() {
                return Err(missing(flag));
            }
        }
    }
    RequirementFlags {
        fp,
        capacity,
        window,
        horizon,
        query_length,
        pairs,
        initial_capacity,
        max_items,
        memory,
        max_accesses,
        max_npws,
        allow_fn,
        duplicates,
        importance: f.get("importance").cloned(),
        penalties: pen,
        deletions,
    }
    .requirement()
    .map_err(flag_error)
}

/// A value as one shell word (quoted when it holds anything but `[A-Za-z0-9._:=,+-]`).
fn shell_word(s: &str) -> String {
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._:=,+-".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The `bfopt recommend` command line of the fields (the known flags, in [`FLAGS`]
/// order, values as given).
pub fn command(f: &Fields) -> String {
    let mut cmd = String::from("bfopt recommend");
    for flag in FLAGS {
        match f.get(*flag) {
            Some(v) if SWITCHES.contains(flag) && switch(v) == Ok(true) => {
                cmd.push_str(&format!(" --{flag}"));
            }
            Some(_) if SWITCHES.contains(flag) => {}
            Some(v) => cmd.push_str(&format!(" --{flag} {}", shell_word(v.trim()))),
            None => {}
        }
    }
    cmd + " --format json"
}

/// The page's answer to a query: `{"command", "text", "plan"}` with the plan serialized
/// as `bfopt recommend --format json` prints it and its table cells ([`text`]); `{"command", "infeasible", "message"}`
/// when no design fits (the CLI's JSON and message, exit 3); `{"command", "errors"}`
/// with one message per bad field.
pub fn recommend(query: &str) -> Value {
    let f = match fields(query) {
        Ok(f) => f,
        Err(errors) => return json!({ "errors": errors }),
    };
    let command = command(&f);
    let req = match requirement(&f) {
        Ok(r) => r,
        Err(errors) => return json!({ "command": command, "errors": errors }),
    };
    match plan(&req) {
        Ok(p) => json!({ "command": command, "text": text(&p), "plan": p }),
        Err(PlanError::Infeasible(i)) => json!({
            "command": command,
            "infeasible": i,
            "message": format!("no design satisfies the requirements: {i}"),
        }),
        Err(PlanError::Model(e)) => {
            json!({ "command": command, "errors": keyed(&CliError::from_model(e, &[])) })
        }
    }
}

/// The cells of the CLI's table for each candidate (parameters, accesses, NPWS, FP, FP
/// kind, false negatives, as `bfopt recommend` prints them), and each exclusion as a
/// sentence: the page shows these beside the plan's numbers.
pub fn text(p: &bfopt_plan::Plan) -> Value {
    let rows: Vec<Value> = p
        .candidates
        .iter()
        .map(|c| {
            json!({
                "params": c.params.to_string(),
                "accesses": format!("{}/{}", num(c.accesses_insert), num(c.accesses_query)),
                "npws": c.npws.map_or("-".into(), num),
                "fp": prob(c.fp),
                "fp_kind": c.fp_kind.short(),
                "fp_kind_long": c.fp_kind.describe(),
                "fn": c.false_negatives.short(),
            })
        })
        .collect();
    let excluded: Vec<String> = p.excluded.iter().map(ToString::to_string).collect();
    json!({ "candidates": rows, "excluded": excluded })
}

/// Simulates candidate `index` of the query's plan: its reference implementation at
/// the quick level, with the seed (`seed + index`) and confidence that
/// `bfopt recommend --validate --seed SEED` gives that row
/// ([`bfopt_plan::validate_candidate`]), so the figures equal the CLI's.
/// Returns `{"design", "status", "measured_fp": {value, lo, hi}, "checks", "predicted"}`
/// or `{"errors"}`.
pub fn simulate(query: &str, index: usize, seed: u64) -> Value {
    let req = match fields(query).and_then(|f| requirement(&f)) {
        Ok(r) => r,
        Err(errors) => return json!({ "errors": errors }),
    };
    let p = match plan(&req) {
        Ok(p) => p,
        Err(e) => return json!({ "errors": { "requirement": e.to_string() } }),
    };
    let Some(v) = bfopt_plan::validate_candidate(&p.candidates, index, Level::Quick, seed) else {
        return json!({ "errors": { "index": format!(
            "index = {index}: allowed 0 <= index < {}", p.candidates.len()
        ) } });
    };
    let mut out = serde_json::to_value(&v).unwrap_or_default();
    out["predicted"] = json!(p.candidates[index].fp);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> String {
        let m: BTreeMap<&str, &str> = pairs.iter().copied().collect();
        serde_json::to_string(&m).unwrap()
    }

    #[test]
    fn window_plan_has_a_pick_within_the_target() {
        let out = recommend(&q(&[
            ("fp", "0.01"),
            ("window", "1e6"),
            ("max-accesses", "8"),
        ]));
        let plan = &out["plan"];
        let pick = plan["pick"]["index"].as_u64().unwrap() as usize;
        assert!(plan["candidates"][pick]["fp"].as_f64().unwrap() <= 0.01);
        assert_eq!(
            out["command"],
            "bfopt recommend --fp 0.01 --window 1e6 --max-accesses 8 --format json"
        );
    }

    #[test]
    fn bad_values_are_keyed_by_field_with_the_cli_text() {
        let out = recommend(&q(&[
            ("fp", "0.01"),
            ("window", "1e6"),
            ("max-accesses", "0.5"),
        ]));
        let msg = out["errors"]["max-accesses"].as_str().unwrap();
        assert!(msg.starts_with("--max-accesses = 0.5: allowed "), "{msg}");
        let out = recommend(&q(&[("fp", "abc"), ("window", "-3")]));
        assert!(out["errors"]["fp"]
            .as_str()
            .unwrap()
            .contains("not a number"));
        assert!(out["errors"]["window"]
            .as_str()
            .unwrap()
            .contains("negative"));
        let out = recommend(&q(&[("fp", "2"), ("capacity", "100")]));
        assert!(out["errors"]["fp"]
            .as_str()
            .unwrap()
            .starts_with("--fp = 2: allowed"));
        let out = recommend(&q(&[("fp", "0.01")]));
        assert!(out["errors"]["requirement"].is_string());
    }

    #[test]
    fn growing_sets_and_deletions_map_as_the_cli_maps_them() {
        let out = recommend(&q(&[
            ("fp", "0.01"),
            ("initial-capacity", "1e4"),
            ("max-items", "1e6"),
        ]));
        assert!(
            out["plan"]["candidates"].as_array().unwrap().len() > 1,
            "{out}"
        );
        assert_eq!(
            out["command"],
            "bfopt recommend --fp 0.01 --initial-capacity 1e4 --max-items 1e6 --format json"
        );
        let out = recommend(&q(&[("fp", "0.01"), ("initial-capacity", "1e4")]));
        assert!(out["errors"]["max-items"].is_string(), "{out}");
        let out = recommend(&q(&[
            ("fp", "0.01"),
            ("capacity", "1e6"),
            ("deletions", "yes"),
        ]));
        assert_eq!(
            out["command"],
            "bfopt recommend --fp 0.01 --capacity 1e6 --deletions --format json"
        );
        let families: Vec<&str> = out["plan"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["family"].as_str().unwrap())
            .collect();
        assert!(
            families.iter().all(|f| *f == "cuckoo" || *f == "counting"),
            "{families:?}"
        );
        let out = recommend(&q(&[
            ("fp", "0.01"),
            ("capacity", "1e6"),
            ("deletions", "maybe"),
        ]));
        assert!(out["errors"]["deletions"]
            .as_str()
            .unwrap()
            .contains("yes or no"));
    }

    #[test]
    fn a_simulation_is_the_row_of_the_whole_plans_validation() {
        let query = q(&[("fp", "0.05"), ("window", "300")]);
        let req = requirement(&fields(&query).unwrap()).unwrap();
        let p = plan(&req).unwrap();
        let all = p.validate(Level::Quick, 3);
        let index = p.pick.index;
        let one = simulate(&query, index, 3);
        let want = serde_json::to_value(&all.designs[index]).unwrap();
        assert_eq!(one["measured_fp"], want["measured_fp"], "{one}");
        assert_eq!(one["checks"], want["checks"]);
        assert!(simulate(&query, p.candidates.len(), 3)["errors"]["index"].is_string());
    }

    #[test]
    fn commands_quote_what_the_shell_would_split() {
        let f: Fields = [
            ("fp", "0.01"),
            ("window", "1e5"),
            ("importance", "hist:1=2 x"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(
            command(&f),
            "bfopt recommend --fp 0.01 --window 1e5 --importance 'hist:1=2 x' --format json"
        );
    }
}
