//! The CLI's family verbs (`bfopt model|optimize|posterior|simulate FAMILY`) for Python,
//! all through one function, [`run_verb`]: the keyword arguments become the verb's flags
//! (`bits_per_timer=12` → `--bits-per-timer 12`), the verb runs through `bfopt::run`
//! with the GIL released, and its JSON is exactly what `bfopt VERB FAMILY ... --format
//! json` prints. The CLI owns the flags, their ranges and the JSON; this file only
//! translates, so a family added to the CLI needs no Rust here (its Python wrapper in
//! `bfopt/<family>.py` names the keyword arguments).

use crate::errors;
use bfopt::cli::{parse_from, Format};
use bfopt::exit::CliError;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyTuple};

/// The flag of a keyword argument: `bits_per_timer` → `--bits-per-timer`.
fn flag(keyword: &str) -> String {
    format!("--{}", keyword.replace('_', "-"))
}

/// The keyword argument of a flag: `--bits-per-timer <BITS_PER_TIMER>` → `bits_per_timer`
/// (`--fp/--items` → `fp/items`).
fn keyword(flag: &str) -> String {
    keywords_in(flag.split_whitespace().next().unwrap_or(flag))
}

/// `text` with every flag in it (`--block-bits`) spelled as its keyword (`block_bits`),
/// and a flag followed by a placeholder or a number as an assignment (`--bits M` →
/// `bits=M`): the allowed ranges the CLI writes name flags.
fn keywords_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(tail.len());
        if end > 0 && tail.as_bytes()[0].is_ascii_alphabetic() {
            out.push_str(&tail[..end].replace('-', "_"));
            let after = &tail[end..];
            let value = after
                .strip_prefix(' ')
                .filter(|v| v.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit()));
            if let Some(v) = value {
                out.push('=');
                rest = v;
                continue;
            }
        } else {
            out.push_str(&rest[at..at + 2 + end]);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// A number as the CLI reads it: floats with an integral value as integers (`1e6` →
/// `1000000`), so that counts given as floats parse.
fn number_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if obj.is_instance_of::<PyFloat>() {
        let x: f64 = obj.extract()?;
        if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
            return Ok(format!("{x:.0}"));
        }
        return Ok(obj.repr()?.to_string());
    }
    Ok(obj.str()?.to_string())
}

/// Whether the option `--long` of `bfopt verb family` takes a value (false for a bare
/// flag such as `--all`, and for an option the verb does not have).
fn takes_value(verb: &str, family: &str, long: &str) -> bool {
    static COMMAND: std::sync::OnceLock<clap::Command> = std::sync::OnceLock::new();
    let command = COMMAND.get_or_init(bfopt::cli::command);
    command
        .find_subcommand(verb)
        .and_then(|v| v.find_subcommand(family))
        .and_then(|f| f.get_arguments().find(|a| a.get_long() == Some(long)))
        .is_some_and(|a| a.get_action().takes_values())
}

/// The command line of `verb family` with these keyword arguments: `None` leaves a flag
/// out; `True` and `False` switch a bare flag on and off (an option that takes a value
/// gets the text, which its parser refuses); lists and tuples are comma-separated;
/// path-like objects are their path.
fn argv(verb: &str, family: &str, kwargs: &Bound<'_, PyDict>) -> PyResult<Vec<String>> {
    let mut out: Vec<String> = ["bfopt", verb, family, "--quiet", "--format", "json"]
        .map(String::from)
        .into();
    let fspath = kwargs.py().import("os")?.getattr("fspath")?;
    for (k, v) in kwargs.iter() {
        let k: String = k.extract()?;
        if v.is_none() {
            continue;
        }
        if v.is_instance_of::<PyBool>() && !takes_value(verb, family, &k.replace('_', "-")) {
            if v.extract::<bool>()? {
                out.push(flag(&k));
            }
            continue;
        }
        let text = if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            let items: PyResult<Vec<String>> = v.try_iter()?.map(|x| number_text(&x?)).collect();
            items?.join(",")
        } else if v.hasattr("__fspath__")? {
            fspath.call1((&v,))?.str()?.to_string()
        } else {
            number_text(&v)?
        };
        out.push(flag(&k));
        out.push(text);
    }
    Ok(out)
}

/// The first string clap recorded under `kind`.
fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => Some(v.join(", ")),
        ContextValue::StyledStr(s) => Some(s.to_string()),
        ContextValue::StyledStrs(v) => Some(
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    }
}

/// A usage error of the command line as Python sees it: a value a flag's parser refused
/// is `InvalidParameter` (the parser's message is the allowed range); a missing or
/// unknown keyword is a `TypeError`, as for any Python function.
fn usage(py: Python<'_>, e: &clap::Error) -> PyErr {
    let arg = context(e, ContextKind::InvalidArg).map(|a| keyword(&a));
    let value = context(e, ContextKind::InvalidValue).unwrap_or_default();
    match (e.kind(), arg) {
        (ErrorKind::ValueValidation, Some(arg)) => {
            let allowed = std::error::Error::source(e)
                .map_or_else(|| "a valid value".to_string(), ToString::to_string);
            errors::invalid(py, &arg, &value, &keywords_in(&allowed))
        }
        (ErrorKind::InvalidValue, Some(arg)) => {
            let valid = context(e, ContextKind::ValidValue).unwrap_or_default();
            errors::invalid(py, &arg, &value, &format!("one of {valid}"))
        }
        (ErrorKind::ArgumentConflict, Some(arg)) => {
            let other = context(e, ContextKind::PriorArg).map_or_else(String::new, |p| {
                format!(
                    "not with {}",
                    p.split(", ").map(keyword).collect::<Vec<_>>().join(", ")
                )
            });
            errors::invalid(py, &arg, "given", &other)
        }
        (kind, _) => {
            let names = context(e, ContextKind::InvalidArg)
                .map(|a| {
                    a.split(", ")
                        .map(|f| format!("'{}'", keyword(f)))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            PyTypeError::new_err(match kind {
                ErrorKind::MissingRequiredArgument => {
                    format!("missing required keyword argument(s): {names}")
                }
                ErrorKind::UnknownArgument => format!("unexpected keyword argument {names}"),
                _ => format!(
                    "{}: {names}",
                    kind.as_str().unwrap_or("invalid keyword arguments")
                ),
            })
        }
    }
}

/// A CLI error as the package's exception, flags spelled as keyword arguments.
fn failure(py: Python<'_>, e: CliError) -> PyErr {
    match e {
        CliError::Invalid {
            flag,
            value,
            allowed,
        } => errors::invalid(py, &keyword(&flag), &value, &keywords_in(&allowed)),
        CliError::File {
            path,
            line,
            message,
        } => errors::invalid(
            py,
            "trace",
            &if line == 0 {
                path
            } else {
                format!("{path}:{line}")
            },
            &message,
        ),
        CliError::Infeasible(text) => {
            let text = keywords_in(&text);
            let (binding, achievable) = text
                .split_once("; achievable: ")
                .map_or((text.as_str(), ""), |(b, a)| (b, a));
            errors::infeasible(py, binding, achievable)
        }
        CliError::NoConvergence(text) => errors::SolverError::new_err(text),
    }
}

/// Runs `bfopt VERB FAMILY` with `kwargs` as its flags and returns the JSON it prints
/// (`--format json`), the GIL released while it runs. Used by the family modules
/// (`bfopt.btbf.model(...)` is `bfopt model btbf ...`).
///
/// Raises `InvalidParameter` for a value out of range (named by its keyword argument),
/// `Infeasible` when no design meets the requirement, `SolverError` when a solver did
/// not converge, `TypeError` for a missing or unknown keyword argument.
#[pyfunction]
#[pyo3(signature = (verb, family, kwargs))]
pub fn run_verb(
    py: Python<'_>,
    verb: &str,
    family: &str,
    kwargs: &Bound<'_, PyDict>,
) -> PyResult<String> {
    let line = argv(verb, family, kwargs)?;
    let cli = parse_from(&line).map_err(|e| usage(py, &e))?;
    let report = py
        .allow_threads(|| bfopt::run(&cli))
        .map_err(|e| failure(py, e))?;
    let mut out = Vec::new();
    bfopt::render::write(&report, Format::Json, &mut out)
        .map_err(|e| PyRuntimeError::new_err(format!("bfopt: could not write a result: {e}")))?;
    String::from_utf8(out)
        .map_err(|e| PyRuntimeError::new_err(format!("bfopt: could not write a result: {e}")))
}
