//! `bfopt.sbf`: the Stable Bloom filter's `model` and `optimize`, as the CLI's
//! `bfopt model sbf` and `bfopt optimize sbf` (keyword arguments named like their flags),
//! over `bfopt_models::stable`.

use crate::args::{count, family, named, narrow, real, small, Count};
use crate::plan::to_py;
use bfopt_models::stable::{design_decrements, SbfParams, SbfRequirement};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The library's parameter names → the keyword arguments.
const NAMES: &[(&str, &str)] = &[("m", "cells"), ("k", "hashes"), ("p", "decrements")];

/// Stable-point metrics of a Stable Bloom filter of `cells` cells counting to `max`,
/// `hashes` cells set per insertion and `decrements` cells decremented per insertion
/// (`bfopt model sbf`); with `age`, the FN of an item `age` insertions old; with
/// `insertions`, the zero fraction after that many insertions from empty.
///
/// Returns `{"params": {...}, "metrics": {...}}` as in the CLI's JSON row.
///
/// >>> bfopt.sbf.model(cells=1_000_000, hashes=3, max=3, decrements=36)["metrics"]["fp"] <= 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, cells, hashes, max, decrements, age=None, insertions=None))]
pub fn model<'py>(
    py: Python<'py>,
    cells: &Bound<'py, PyAny>,
    hashes: &Bound<'py, PyAny>,
    max: &Bound<'py, PyAny>,
    decrements: &Bound<'py, PyAny>,
    age: Option<&Bound<'py, PyAny>>,
    insertions: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let cells = count(py, "cells", Some(cells))?;
    let hashes = narrow(count(py, "hashes", Some(hashes))?);
    let max = narrow(count(py, "max", Some(max))?);
    let decrements = count(py, "decrements", Some(decrements))?;
    let age = count(py, "age", age)?;
    let insertions = count(py, "insertions", insertions)?;
    let counts: [(&str, &Option<Count>); 5] = [
        ("cells", &cells),
        ("hashes", &hashes),
        ("max", &max),
        ("decrements", &decrements),
        ("age", &age),
    ];
    let e = |x| named(py, NAMES, &counts, x);
    let value = |c: &Option<Count>| c.as_ref().map_or(0, |c| c.value);
    let p = SbfParams::new(
        value(&cells),
        small(&hashes).unwrap_or(0),
        small(&max).unwrap_or(0),
        value(&decrements),
    )
    .map_err(e)?;
    let age = age.as_ref().map(|a| a.value);
    let metrics = py.allow_threads(|| p.metrics(age)).map_err(e)?;
    let params = to_py(py, &p)?.downcast_into::<PyDict>()?;
    let metrics = to_py(py, &metrics)?.downcast_into::<PyDict>()?;
    if let Some(a) = age {
        params.set_item("age", a)?;
    }
    if let Some(n) = insertions.as_ref().map(|n| n.value) {
        params.set_item("insertions", n)?;
        metrics.set_item("zero_fraction_after", p.zero_fraction_after(n))?;
    }
    let out = PyDict::new(py);
    out.set_item("params", params)?;
    out.set_item("metrics", metrics)?;
    Ok(out)
}

/// The decrements per insertion `P` that bring the stable-point FP of a Stable Bloom
/// filter of `cells` cells, `hashes` hashes and cells counting to `max` to at most `fp`
/// (`bfopt optimize sbf`; Eq. (17) [SBF] solved for `P`).
///
/// Returns `{"params": {"m", "k", "max", "fp_target"}, "metrics": {"decrements", "fp",
/// "decrements_real", "zero_fraction", "memory_bits"}}` as in the CLI's JSON row.
///
/// >>> bfopt.sbf.optimize(cells=1_000_000, hashes=3, max=3, fp=0.01)["metrics"]["fp"] <= 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, cells, hashes, max, fp))]
pub fn optimize<'py>(
    py: Python<'py>,
    cells: &Bound<'py, PyAny>,
    hashes: &Bound<'py, PyAny>,
    max: &Bound<'py, PyAny>,
    fp: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let cells = count(py, "cells", Some(cells))?;
    let hashes = narrow(count(py, "hashes", Some(hashes))?);
    let max = narrow(count(py, "max", Some(max))?);
    let fp = real(py, "fp", fp)?;
    let counts: [(&str, &Option<Count>); 3] =
        [("cells", &cells), ("hashes", &hashes), ("max", &max)];
    let req = SbfRequirement {
        m: cells.as_ref().map_or(0, |c| c.value),
        k: small(&hashes).unwrap_or(0),
        max: small(&max).unwrap_or(0),
        fp,
    };
    let d = design_decrements(&req).map_err(|x| named(py, NAMES, &counts, x))?;
    let metrics = PyDict::new(py);
    metrics.set_item("decrements", d.params.p())?;
    metrics.set_item("fp", d.fp)?;
    metrics.set_item("decrements_real", d.p_real)?;
    metrics.set_item("zero_fraction", d.params.zero_fraction())?;
    metrics.set_item("memory_bits", d.params.memory_bits())?;
    let out = PyDict::new(py);
    out.set_item("params", to_py(py, &req)?)?;
    out.set_item("metrics", metrics)?;
    Ok(out)
}

/// Adds `bfopt.sbf` to the module.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    family(parent, "sbf", "The Stable Bloom filter: model(cells=, hashes=, max=, decrements=) and optimize(cells=, hashes=, max=, fp=), as `bfopt model sbf` and `bfopt optimize sbf`.", |m| {
        m.add_function(wrap_pyfunction!(model, m)?)?;
        m.add_function(wrap_pyfunction!(optimize, m)?)?;
        Ok(())
    })
}
