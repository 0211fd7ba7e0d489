//! The `bfopt` Python package's native module `bfopt._bfopt`: the planner
//! (`bfopt_plan`) and the models (`bfopt_models`) for Python. Thin: keyword arguments to
//! library calls, library results to Python objects, library errors to exceptions.

mod args;
mod errors;
mod plan;
mod verbs;

use pyo3::prelude::*;

/// The native module; `bfopt/__init__.py` re-exports it.
#[pymodule]
fn _bfopt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add(
        "InvalidParameter",
        py.get_type::<errors::InvalidParameter>(),
    )?;
    m.add("Infeasible", py.get_type::<errors::Infeasible>())?;
    m.add("SolverError", py.get_type::<errors::SolverError>())?;
    m.add_class::<plan::Plan>()?;
    m.add_class::<plan::Pick>()?;
    m.add_class::<plan::Candidate>()?;
    m.add_class::<plan::Validation>()?;
    m.add_function(wrap_pyfunction!(plan::recommend, m)?)?;
    m.add_function(wrap_pyfunction!(verbs::run_verb, m)?)?;
    Ok(())
}
