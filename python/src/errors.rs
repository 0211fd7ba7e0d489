//! Library errors as Python exceptions: every [`ModelError::InvalidParam`] becomes
//! `bfopt.InvalidParameter` (a `ValueError`) carrying `.parameter`, `.value` and
//! `.allowed`; every infeasibility becomes `bfopt.Infeasible` carrying `.binding`,
//! `.achievable` and `.excluded`.

use bfopt_models::ModelError;
use bfopt_plan::{Infeasible as PlanInfeasible, PlanError};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pythonize::pythonize;

create_exception!(
    bfopt,
    InvalidParameter,
    PyValueError,
    "A parameter outside its allowed range.\n\nAttributes: parameter (the keyword argument's name), value (the value given, as text), allowed (the allowed range, in words)."
);
create_exception!(
    bfopt,
    Infeasible,
    PyException,
    "No design meets the requirement.\n\nAttributes: binding (the constraint that binds), achievable (the best that can be achieved when it is relaxed), excluded (list of dicts: every family and design left out, with its reason and the budget that excluded it, if any)."
);
create_exception!(
    bfopt,
    SolverError,
    PyRuntimeError,
    "A numerical solver of a model did not converge."
);

/// `bfopt.InvalidParameter` for `parameter = value`, allowed `allowed`.
pub fn invalid(py: Python<'_>, parameter: &str, value: &str, allowed: &str) -> PyErr {
    let err = InvalidParameter::new_err(format!(
        "invalid {parameter} = {value} (allowed: {allowed})"
    ));
    let v = err.value(py);
    for (k, x) in [
        ("parameter", parameter),
        ("value", value),
        ("allowed", allowed),
    ] {
        // Exception instances accept attributes; a failure here would only lose them.
        let _ = v.setattr(k, x);
    }
    err
}

/// The exception for a model error.
pub fn model(py: Python<'_>, e: ModelError) -> PyErr {
    match &e {
        ModelError::InvalidParam {
            name,
            value,
            allowed,
        } => invalid(py, name, value, allowed),
        ModelError::Infeasible {
            binding,
            achievable,
        } => infeasible_err(py, e.to_string(), binding, achievable, None),
        ModelError::NoConvergence { .. } => SolverError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// `bfopt.Infeasible` with its binding constraint and what is achievable.
pub fn infeasible(py: Python<'_>, binding: &str, achievable: &str) -> PyErr {
    let message = if achievable.is_empty() {
        binding.to_string()
    } else {
        format!("{binding}; achievable: {achievable}")
    };
    infeasible_err(py, message, binding, achievable, None)
}

fn infeasible_err(
    py: Python<'_>,
    message: String,
    binding: &str,
    achievable: &str,
    detail: Option<&PlanInfeasible>,
) -> PyErr {
    let err = Infeasible::new_err(message);
    let v = err.value(py);
    let _ = v.setattr("binding", binding);
    let _ = v.setattr("achievable", achievable);
    let excluded = detail
        .and_then(|i| pythonize(py, &i.excluded).ok())
        .unwrap_or_else(|| pyo3::types::PyList::empty(py).into_any());
    let _ = v.setattr("excluded", excluded);
    if let Some(req) = detail.and_then(|i| pythonize(py, &i.requirement).ok()) {
        let _ = v.setattr("requirement", req);
    }
    err
}

/// The exception for a planner error.
pub fn plan(py: Python<'_>, e: PlanError) -> PyErr {
    match e {
        PlanError::Model(m) => model(py, m),
        PlanError::Infeasible(ref i) => {
            infeasible_err(py, e.to_string(), &i.binding, &i.achievable, Some(i))
        }
    }
}

/// A serialization failure (never expected: every library type serializes).
pub fn serialize(e: pythonize::PythonizeError) -> PyErr {
    PyRuntimeError::new_err(format!("bfopt: could not convert a result: {e}"))
}
