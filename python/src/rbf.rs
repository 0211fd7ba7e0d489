//! `bfopt.rbf`: the recycling Bloom filter's `model` and `optimize`, as the CLI's
//! `bfopt model rbf` and `bfopt optimize rbf` (keyword arguments named like their flags),
//! over `bfopt_models::rbf`.

use crate::args::{count, family, named, narrow, real, small, Count};
use crate::errors;
use crate::plan::to_py;
use bfopt_models::rbf::{
    design, design_window, least_bits, Hashing, Method, RbfNParams, RbfParams, RbfRequirement,
    Recycling,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The library's parameter names → the keyword arguments.
const NAMES: &[(&str, &str)] = &[
    ("k", "hashes"),
    ("sigma", "recycle_bits"),
    ("n", "recycle_messages"),
];

/// `phases` (1 or 2, `default` when None), `hashing` and `recycling` as the CLI spells
/// them (`"non-retaining"`; underscores accepted).
fn variant(
    py: Python<'_>,
    phases: &Option<Count>,
    default: u8,
    hashing: &str,
    recycling: &str,
) -> PyResult<(u8, Hashing, Recycling)> {
    let phases = match phases {
        None => default,
        Some(c) => match c.value {
            1 => 1,
            2 => 2,
            v => {
                let text = c.given.clone().unwrap_or(v.to_string());
                return Err(errors::invalid(py, "phases", &text, "1 or 2"));
            }
        },
    };
    let hashing = match hashing {
        "colliding" => Hashing::Colliding,
        "distinct" => Hashing::Distinct,
        other => {
            return Err(errors::invalid(
                py,
                "hashing",
                other,
                "\"colliding\" or \"distinct\"",
            ))
        }
    };
    let recycling = match recycling.replace('_', "-").as_str() {
        "non-retaining" => Recycling::NonRetaining,
        "retaining" => Recycling::Retaining,
        _ => {
            return Err(errors::invalid(
                py,
                "recycling",
                recycling,
                "\"non-retaining\" or \"retaining\"",
            ))
        }
    };
    Ok((phases, hashing, recycling))
}

/// Predicted metrics of an RBF of `bits` bits in total and `hashes` hash functions
/// (`bfopt model rbf`), recycled after `recycle_bits` set bits (sigma; `phases` 1 or 2,
/// default 1) or after `recycle_messages` messages (one filter, Eqs. (1)-(3) [RBF]).
/// `method`: `"auto"`, `"exact"` (the Markov chain) or `"fluid"`.
///
/// Returns `{"params": {...}, "metrics": {...}}` as in the CLI's JSON row.
///
/// >>> bfopt.rbf.model(bits=65536, hashes=7, recycle_bits=32768)["metrics"]["fp_avg"] < 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, bits, hashes, recycle_bits=None, recycle_messages=None, phases=None, hashing="colliding", recycling="non-retaining", method="auto"))]
#[allow(clippy::too_many_arguments)]
pub fn model<'py>(
    py: Python<'py>,
    bits: &Bound<'py, PyAny>,
    hashes: &Bound<'py, PyAny>,
    recycle_bits: Option<&Bound<'py, PyAny>>,
    recycle_messages: Option<&Bound<'py, PyAny>>,
    phases: Option<&Bound<'py, PyAny>>,
    hashing: &str,
    recycling: &str,
    method: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let bits = count(py, "bits", Some(bits))?;
    let hashes = narrow(count(py, "hashes", Some(hashes))?);
    let sigma = count(py, "recycle_bits", recycle_bits)?;
    let messages = count(py, "recycle_messages", recycle_messages)?;
    let phases_arg = count(py, "phases", phases)?;
    let counts: [(&str, &Option<Count>); 4] = [
        ("bits", &bits),
        ("hashes", &hashes),
        ("recycle_bits", &sigma),
        ("recycle_messages", &messages),
    ];
    let e = |x| named(py, NAMES, &counts, x);
    let (phases, hashing, recycling) = variant(py, &phases_arg, 1, hashing, recycling)?;
    let method = match method {
        "auto" => Method::Auto,
        "exact" => Method::Exact,
        "fluid" => Method::Fluid,
        other => {
            return Err(errors::invalid(
                py,
                "method",
                other,
                "\"auto\", \"exact\" or \"fluid\"",
            ))
        }
    };
    let m = bits.as_ref().map_or(0, |c| c.value);
    let k = small(&hashes).unwrap_or(0);
    let out = PyDict::new(py);
    match (&sigma, &messages) {
        (Some(s), None) => {
            let p = RbfParams::new(m, k, s.value, phases, hashing, recycling).map_err(e)?;
            let metrics = py.allow_threads(|| p.metrics(method)).map_err(e)?;
            out.set_item("params", to_py(py, &p)?)?;
            out.set_item("metrics", to_py(py, &metrics)?)?;
        }
        (None, Some(n)) => {
            if phases != 1 {
                return Err(errors::invalid(
                    py,
                    "phases",
                    &phases.to_string(),
                    "1 with recycle_messages (Eqs. (1)-(3) model one filter)",
                ));
            }
            let p = RbfNParams::new(m, k, n.value).map_err(e)?;
            out.set_item("params", to_py(py, &p)?)?;
            out.set_item("metrics", to_py(py, &p.metrics())?)?;
        }
        _ => {
            return Err(errors::invalid(
                py,
                "recycle_bits/recycle_messages",
                "this combination",
                "exactly one of recycle_bits=S or recycle_messages=N",
            ))
        }
    }
    Ok(out)
}

/// Sizes an RBF whose long-run average FP is at most `fp` (`bfopt optimize rbf`); one of:
/// `bits=M` (the most new messages per cycle in M bits), `messages=N` (the least memory
/// for N messages per cycle) or `window=W` (the least memory remembering the last W
/// insertions; two phases by default).
///
/// Returns the library's design: `{"params", "metrics", "fp_target",
/// "worst_case_messages", "worst_case_hashes"}`.
///
/// >>> d = bfopt.rbf.optimize(fp=0.02, window=2000)
/// >>> d["metrics"]["fp_avg"] <= 0.02
/// True
#[pyfunction]
#[pyo3(signature = (*, fp, bits=None, messages=None, window=None, phases=None, hashing="colliding", recycling="non-retaining"))]
#[allow(clippy::too_many_arguments)]
pub fn optimize<'py>(
    py: Python<'py>,
    fp: &Bound<'py, PyAny>,
    bits: Option<&Bound<'py, PyAny>>,
    messages: Option<&Bound<'py, PyAny>>,
    window: Option<&Bound<'py, PyAny>>,
    phases: Option<&Bound<'py, PyAny>>,
    hashing: &str,
    recycling: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let fp = real(py, "fp", fp)?;
    let bits = count(py, "bits", bits)?;
    let messages = count(py, "messages", messages)?;
    let window = count(py, "window", window)?;
    let phases_arg = count(py, "phases", phases)?;
    let counts: [(&str, &Option<Count>); 3] = [
        ("bits", &bits),
        ("messages", &messages),
        ("window", &window),
    ];
    let e = |x| named(py, NAMES, &counts, x);
    let default = if window.is_some() { 2 } else { 1 };
    let (phases, hashing, recycling) = variant(py, &phases_arg, default, hashing, recycling)?;
    let req = RbfRequirement::new(fp, phases)
        .map_err(e)?
        .with_variant(hashing, recycling);
    let value = |c: &Option<Count>| c.as_ref().map(|c| c.value);
    let d = match (value(&bits), value(&messages), value(&window)) {
        (Some(m), None, None) => py.allow_threads(|| design(m, &req)),
        (None, Some(n), None) => py.allow_threads(|| least_bits(n, &req)),
        (None, None, Some(w)) => py.allow_threads(|| design_window(w, &req)),
        _ => {
            return Err(errors::invalid(
                py,
                "bits/messages/window",
                "this combination",
                "exactly one of bits=M (most messages), messages=N or window=W (least memory)",
            ))
        }
    }
    .map_err(e)?;
    to_py(py, &d)
}

/// Adds `bfopt.rbf` to the module.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    family(parent, "rbf", "The recycling Bloom filter: model(bits=, hashes=, recycle_bits=) and optimize(fp=, bits=|messages=|window=), as `bfopt model rbf` and `bfopt optimize rbf`.", |m| {
        m.add_function(wrap_pyfunction!(model, m)?)?;
        m.add_function(wrap_pyfunction!(optimize, m)?)?;
        Ok(())
    })
}
