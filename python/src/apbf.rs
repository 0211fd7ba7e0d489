//! `bfopt.apbf`: the age-partitioned Bloom filter's `model` and `optimize`, as the CLI's
//! `bfopt model apbf|apbbf` and `bfopt optimize apbf` (keyword arguments named like their
//! flags), over `bfopt_models::apbf`.

use crate::args::{count, family, named, narrow, opt_real, real, small, Count};
use crate::errors;
use crate::plan::to_py;
use bfopt_models::apbf::{design, pareto, ApbbfParams, ApbfDesign, ApbfParams, ApbfRequirement};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The library's parameter names → the keyword arguments.
const NAMES: &[(&str, &str)] = &[("k", "hashes"), ("l", "extra_slices")];

/// Predicted metrics of an APBF of `hashes` (k) slices written per insertion and
/// `extra_slices` (l) extra slices (`bfopt model apbf`), sized for a window of at least
/// `window` insertions or with slices of `slice_bits` bits; with `block_bits` and
/// `block_hashes`, of the blocked APBBF (`bfopt model apbbf`).
///
/// Returns `{"params": {...}, "metrics": {...}}`: the `params` and `metrics` of the CLI's
/// JSON row.
///
/// >>> bfopt.apbf.model(hashes=10, extra_slices=7, window=1_000_000)["metrics"]["fp"] < 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, hashes, extra_slices, window=None, slice_bits=None, block_bits=None, block_hashes=None))]
pub fn model<'py>(
    py: Python<'py>,
    hashes: &Bound<'py, PyAny>,
    extra_slices: &Bound<'py, PyAny>,
    window: Option<&Bound<'py, PyAny>>,
    slice_bits: Option<&Bound<'py, PyAny>>,
    block_bits: Option<&Bound<'py, PyAny>>,
    block_hashes: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let hashes = narrow(count(py, "hashes", Some(hashes))?);
    let extra = narrow(count(py, "extra_slices", Some(extra_slices))?);
    let window = count(py, "window", window)?;
    let slice_bits = count(py, "slice_bits", slice_bits)?;
    let block_bits = narrow(count(py, "block_bits", block_bits)?);
    let block_hashes = narrow(count(py, "block_hashes", block_hashes)?);
    let counts: [(&str, &Option<Count>); 6] = [
        ("hashes", &hashes),
        ("extra_slices", &extra),
        ("window", &window),
        ("slice_bits", &slice_bits),
        ("block_bits", &block_bits),
        ("block_hashes", &block_hashes),
    ];
    let e = |x| named(py, NAMES, &counts, x);
    let (k, l) = (small(&hashes).unwrap_or(0), small(&extra).unwrap_or(0));
    let params = PyDict::new(py);
    params.set_item("k", k)?;
    params.set_item("l", l)?;
    let out = PyDict::new(py);
    let blocked = block_bits.is_some() || block_hashes.is_some();
    if blocked {
        if let Some(s) = &slice_bits {
            let text = s.given.clone().unwrap_or(s.value.to_string());
            return Err(errors::invalid(
                py,
                "slice_bits",
                &text,
                "only without block_bits/block_hashes (an APBBF is sized by window)",
            ));
        }
        let (bb, b) = (
            small(&block_bits).unwrap_or(0),
            small(&block_hashes).unwrap_or(0),
        );
        let mut p = ApbbfParams::new(k, l, bb, b).map_err(e)?;
        if let Some(w) = &window {
            p = p.with_window(w.value).map_err(e)?;
        }
        params.set_item("block_bits", p.block_bits())?;
        params.set_item("block_hashes", p.block_hashes())?;
        out.set_item("metrics", to_py(py, &p.metrics())?)?;
    } else {
        let p = ApbfParams::new(k, l).map_err(e)?;
        let p = match (&window, &slice_bits) {
            (Some(w), None) => p.with_window(w.value),
            (None, Some(m)) => p.with_slice_bits(m.value),
            (None, None) => Ok(p),
            (Some(_), Some(m)) => {
                let text = m.given.clone().unwrap_or(m.value.to_string());
                return Err(errors::invalid(
                    py,
                    "slice_bits",
                    &text,
                    "only without window",
                ));
            }
        }
        .map_err(e)?;
        out.set_item("metrics", to_py(py, &p.metrics())?)?;
    }
    if let Some(w) = &window {
        params.set_item("window", w.value)?;
    }
    if let Some(m) = &slice_bits {
        params.set_item("slice_bits", m.value)?;
    }
    out.set_item("params", params)?;
    Ok(out)
}

/// A design as a dict: the library's `ApbfDesign` (k, l, structure, metrics, binding).
fn design_dict<'py>(py: Python<'py>, d: &ApbfDesign) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, d)
}

/// Sizes an APBF (`bfopt optimize apbf`): the least memory whose worst-case FP is at most
/// `fp` over a window of `window` insertions, within the budgets (`memory` bits, expected
/// `max_accesses` of a non-member query, peak `max_npws`); with `block_bits` and
/// `block_hashes`, an APBBF.
///
/// Returns the design: `{"k", "l", "structure", "metrics": {"fp", "total_bits",
/// "bits_per_item", "window", "generation", "accesses_false", "accesses_fp", "npws", ...},
/// "binding"}`; with `all=True`, the Pareto set over (memory, accesses, NPWS), each with
/// `"default": True` on the design `all=False` returns. Raises `bfopt.Infeasible` when
/// nothing fits.
///
/// >>> d = bfopt.apbf.optimize(fp=0.01, window=1_000_000)
/// >>> d["metrics"]["fp"] <= 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, fp, window, memory=None, max_accesses=None, max_npws=None, block_bits=None, block_hashes=None, all=false))]
#[allow(clippy::too_many_arguments)]
pub fn optimize<'py>(
    py: Python<'py>,
    fp: &Bound<'py, PyAny>,
    window: &Bound<'py, PyAny>,
    memory: Option<&Bound<'py, PyAny>>,
    max_accesses: Option<&Bound<'py, PyAny>>,
    max_npws: Option<&Bound<'py, PyAny>>,
    block_bits: Option<&Bound<'py, PyAny>>,
    block_hashes: Option<&Bound<'py, PyAny>>,
    all: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let fp = real(py, "fp", fp)?;
    let window = count(py, "window", Some(window))?;
    let memory = count(py, "memory", memory)?;
    let block_bits = narrow(count(py, "block_bits", block_bits)?);
    let block_hashes = narrow(count(py, "block_hashes", block_hashes)?);
    let counts: [(&str, &Option<Count>); 4] = [
        ("window", &window),
        ("memory", &memory),
        ("block_bits", &block_bits),
        ("block_hashes", &block_hashes),
    ];
    let e = |x| named(py, NAMES, &counts, x);
    let mut req = ApbfRequirement::new(fp, window.as_ref().map_or(0, |w| w.value)).map_err(e)?;
    if let Some(m) = &memory {
        req = req.with_memory(m.value).map_err(e)?;
    }
    if let Some(a) = opt_real(py, "max_accesses", max_accesses)? {
        req = req.with_max_accesses(a).map_err(e)?;
    }
    if let Some(x) = opt_real(py, "max_npws", max_npws)? {
        req = req.with_max_npws(x).map_err(e)?;
    }
    if block_bits.is_some() || block_hashes.is_some() {
        let (bb, b) = (
            small(&block_bits).unwrap_or(0),
            small(&block_hashes).unwrap_or(0),
        );
        req = req.blocked(bb, b).map_err(e)?;
    }
    let best = py.allow_threads(|| design(&req)).map_err(e)?;
    if !all {
        return design_dict(py, &best);
    }
    let front = py.allow_threads(|| pareto(&req)).map_err(e)?;
    let list = PyList::empty(py);
    for d in &front {
        let item = design_dict(py, d)?;
        item.set_item("default", d.k == best.k && d.l == best.l)?;
        list.append(item)?;
    }
    Ok(list.into_any())
}

/// Adds `bfopt.apbf` to the module.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    family(parent, "apbf", "The age-partitioned Bloom filter (APBF, and the blocked APBBF): model(hashes=, extra_slices=, window=) and optimize(fp=, window=, ...), as `bfopt model apbf|apbbf` and `bfopt optimize apbf`.", |m| {
        m.add_function(wrap_pyfunction!(model, m)?)?;
        m.add_function(wrap_pyfunction!(optimize, m)?)?;
        Ok(())
    })
}
