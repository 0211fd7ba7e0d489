//! `bfopt.pbf`: the persistent Bloom filter's bit allocation and bound, as the CLI's
//! `bfopt model pbf` and `bfopt model pbf-bound` (keyword arguments named like their
//! flags), over `bfopt_models::pbf`.

use crate::args::{count, family, named, real, Count};
use crate::errors;
use crate::plan::to_py;
use bfopt_models::pbf::{AllocationProblem, BoundRequest};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The library's parameter names → the keyword arguments.
const NAMES: &[(&str, &str)] = &[("k_max", "max_hashes")];

/// A list of reals.
fn reals(py: Python<'_>, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    obj.extract::<Vec<f64>>().map_err(|_| {
        let text = obj.str().map(|s| s.to_string()).unwrap_or_default();
        errors::invalid(py, name, &text, "a list of numbers")
    })
}

/// The optimal split of `bits` bits over the filters of a PBF (`bfopt model pbf`):
/// filter `i` holds `distinct[i]` distinct items and is probed with relative frequency
/// `frequency[i]`; at most `max_hashes` hashes per filter (Section 4 [PBF]).
///
/// Returns `{"params": {...}, "metrics": {"bits", "lambda", "fp", "hashes",
/// "bits_rounded", "fp_rounded", "fp_uniform"}}` as in the CLI's JSON row.
///
/// >>> a = bfopt.pbf.model(bits=100_000, distinct=[1000, 4000], frequency=[0.5, 0.5])
/// >>> a["metrics"]["fp_rounded"] <= a["metrics"]["fp_uniform"]
/// True
#[pyfunction]
#[pyo3(signature = (*, bits, distinct, frequency, max_hashes=None))]
pub fn model<'py>(
    py: Python<'py>,
    bits: &Bound<'py, PyAny>,
    distinct: &Bound<'py, PyAny>,
    frequency: &Bound<'py, PyAny>,
    max_hashes: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let bits_arg = count(py, "bits", Some(bits))?;
    let distinct = reals(py, "distinct", distinct)?;
    let frequency = reals(py, "frequency", frequency)?;
    let k_arg = count(py, "max_hashes", max_hashes)?;
    let counts: [(&str, &Option<Count>); 2] = [("bits", &bits_arg), ("max_hashes", &k_arg)];
    let e = |x| named(py, NAMES, &counts, x);
    let k = match &k_arg {
        None => AllocationProblem::K_MAX_DEFAULT,
        Some(c) => u32::try_from(c.value)
            .ok()
            .filter(|k| AllocationProblem::K_MAX.contains(k))
            .ok_or_else(|| {
                let text = c.given.clone().unwrap_or(c.value.to_string());
                let (lo, hi) = (
                    AllocationProblem::K_MAX.start(),
                    AllocationProblem::K_MAX.end(),
                );
                errors::invalid(
                    py,
                    "max_hashes",
                    &text,
                    &format!("{lo} <= max_hashes <= {hi}"),
                )
            })?,
    };
    let bits = bits_arg.as_ref().map_or(0, |c| c.value);
    let problem = AllocationProblem::new(bits, distinct.clone(), frequency.clone()).map_err(e)?;
    let (a, uniform) = py
        .allow_threads(|| Ok((problem.optimal(k)?, problem.uniform(k)?)))
        .map_err(e)?;
    let params = PyDict::new(py);
    params.set_item("bits", bits)?;
    params.set_item("distinct", distinct)?;
    params.set_item("frequency", frequency)?;
    params.set_item("max_hashes", k)?;
    let metrics = PyDict::new(py);
    metrics.set_item("bits", &a.bits)?;
    metrics.set_item("lambda", a.lambda)?;
    metrics.set_item("fp", a.fp)?;
    metrics.set_item("hashes", &a.hashes)?;
    metrics.set_item("bits_rounded", &a.bits_rounded)?;
    metrics.set_item("fp_rounded", a.fp_rounded)?;
    metrics.set_item("fp_uniform", uniform.fp_rounded)?;
    let out = PyDict::new(py);
    out.set_item("params", params)?;
    out.set_item("metrics", metrics)?;
    Ok(out)
}

/// The memory bound of a PBF tree holding `pairs` (item, timestamp) pairs over
/// timestamps `1..=horizon` for temporal queries of `query_length` timestamps at FP `fp`
/// (`bfopt model pbf-bound`; PBF-2 at `granularity` 1, PBF-1 above).
///
/// Returns `{"params": {...}, "metrics": {...}}` as in the CLI's JSON row.
#[pyfunction]
#[pyo3(signature = (*, pairs, horizon, fp, query_length, granularity=None))]
pub fn bound<'py>(
    py: Python<'py>,
    pairs: &Bound<'py, PyAny>,
    horizon: &Bound<'py, PyAny>,
    fp: &Bound<'py, PyAny>,
    query_length: &Bound<'py, PyAny>,
    granularity: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let pairs = count(py, "pairs", Some(pairs))?;
    let horizon = count(py, "horizon", Some(horizon))?;
    let fp = real(py, "fp", fp)?;
    let query_length = count(py, "query_length", Some(query_length))?;
    let granularity = count(py, "granularity", granularity)?;
    let counts: [(&str, &Option<Count>); 4] = [
        ("pairs", &pairs),
        ("horizon", &horizon),
        ("query_length", &query_length),
        ("granularity", &granularity),
    ];
    let value = |c: &Option<Count>, d: u64| c.as_ref().map_or(d, |c| c.value);
    let r = BoundRequest::new(
        value(&pairs, 0),
        value(&horizon, 0),
        fp,
        value(&query_length, 0),
        value(&granularity, 1),
    )
    .map_err(|x| named(py, NAMES, &counts, x))?;
    let out = PyDict::new(py);
    out.set_item("params", to_py(py, &r)?)?;
    out.set_item("metrics", to_py(py, &r.bound())?)?;
    Ok(out)
}

/// Adds `bfopt.pbf` to the module.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    family(parent, "pbf", "The persistent Bloom filter: model(bits=, distinct=, frequency=) (the optimal bit allocation) and bound(pairs=, horizon=, fp=, query_length=), as `bfopt model pbf` and `bfopt model pbf-bound`.", |m| {
        m.add_function(wrap_pyfunction!(model, m)?)?;
        m.add_function(wrap_pyfunction!(bound, m)?)?;
        Ok(())
    })
}
