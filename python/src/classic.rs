//! `bfopt.classic`: the classic Bloom filter's `model` and `optimize`, as the CLI's
//! `bfopt model classic` and `bfopt optimize classic` (keyword arguments named like their
//! flags), over `bfopt_models::classic`.

use crate::args::{count, family, named, narrow, opt_real, small, Count};
use crate::errors;
use crate::plan::to_py;
use bfopt_models::classic::{best_k, capacity, design, ClassicParams, ClassicRequirement, Layout};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Block size of `layout="blocked"` without `block_bits`: one 64-byte cache line (the
/// CLI's default too).
const DEFAULT_BLOCK_BITS: u64 = 512;

/// The library's parameter names → the keyword arguments.
const NAMES: &[(&str, &str)] = &[
    ("m", "bits"),
    ("k", "hashes"),
    ("n", "items"),
    ("k_max", "max_hashes"),
];

fn layout(py: Python<'_>, name: &str, block_bits: &Option<Count>) -> PyResult<Layout> {
    match (name, block_bits) {
        ("blocked", b) => Ok(Layout::Blocked {
            block_bits: b.as_ref().map_or(DEFAULT_BLOCK_BITS, |b| b.value),
        }),
        ("standard" | "partitioned", Some(b)) => Err(errors::invalid(
            py,
            "block_bits",
            &b.given.clone().unwrap_or(b.value.to_string()),
            "only with layout=\"blocked\"",
        )),
        ("standard", None) => Ok(Layout::Standard),
        ("partitioned", None) => Ok(Layout::Partitioned),
        (other, _) => Err(errors::invalid(
            py,
            "layout",
            other,
            "\"standard\", \"partitioned\" or \"blocked\"",
        )),
    }
}

/// `{"params": ..., "metrics": ...}` of a parameter set.
fn described<'py>(py: Python<'py>, p: &ClassicParams) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("params", to_py(py, p)?)?;
    d.set_item("metrics", to_py(py, &p.metrics())?)?;
    Ok(d)
}

/// Predicted metrics of a classic Bloom filter of `bits` bits and `hashes` hash
/// functions holding `items` distinct items (`bfopt model classic`).
///
/// Returns `{"params": {"m", "k", "n", "layout", ...}, "metrics": {"fp", "fp_approx",
/// "fp_exact", "fill", "bits_per_item", "memory_bytes", "accesses_insert",
/// "accesses_query_true", "accesses_query_false"}}`. `fp` is the layout's law:
/// `(1-(1-1/m)^(kn))^k` for the standard layout.
///
/// >>> bfopt.classic.model(bits=9_592_956, hashes=7, items=1_000_000)["metrics"]["fp"] <= 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, bits, hashes, items, layout="standard", block_bits=None))]
pub fn model<'py>(
    py: Python<'py>,
    bits: &Bound<'py, PyAny>,
    hashes: &Bound<'py, PyAny>,
    items: &Bound<'py, PyAny>,
    layout: &str,
    block_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let bits = count(py, "bits", Some(bits))?;
    let hashes = narrow(count(py, "hashes", Some(hashes))?);
    let items = count(py, "items", Some(items))?;
    let block = count(py, "block_bits", block_bits)?;
    let counts = [
        ("bits", &bits),
        ("hashes", &hashes),
        ("items", &items),
        ("block_bits", &block),
    ];
    let lay = layout_of(py, layout, &block)?;
    let (m, k, n) = (
        bits.as_ref().map_or(0, |c| c.value),
        small(&hashes).unwrap_or(0),
        items.as_ref().map_or(0, |c| c.value),
    );
    let p = ClassicParams::new(m, k, n, lay).map_err(|e| named(py, NAMES, &counts, e))?;
    described(py, &p)
}

fn layout_of(py: Python<'_>, name: &str, block: &Option<Count>) -> PyResult<Layout> {
    layout(py, name, block)
}

/// Sizes a classic Bloom filter (`bfopt optimize classic`); one of three questions:
///
/// * `fp=P, items=N`: the smallest filter (m, k) holding N items at FP <= P (k at most
///   `max_hashes`); returns `{"params", "metrics", "fp_target"}`;
/// * `bits=M, items=N`: the best k for M bits and N items; returns
///   `{"params", "metrics"}`;
/// * `bits=M, hashes=K, fp=P`: the capacity, the most items at FP <= P; returns
///   `{"params", "metrics", "fp_target", "capacity"}`.
///
/// Raises `bfopt.Infeasible` when no filter meets the target.
///
/// >>> d = bfopt.classic.optimize(fp=0.01, items=1_000_000)
/// >>> d["params"]["m"], d["params"]["k"]
/// (9592956, 7)
#[pyfunction]
#[pyo3(signature = (*, fp=None, items=None, bits=None, hashes=None, max_hashes=None, layout="standard", block_bits=None))]
#[allow(clippy::too_many_arguments)]
pub fn optimize<'py>(
    py: Python<'py>,
    fp: Option<&Bound<'py, PyAny>>,
    items: Option<&Bound<'py, PyAny>>,
    bits: Option<&Bound<'py, PyAny>>,
    hashes: Option<&Bound<'py, PyAny>>,
    max_hashes: Option<&Bound<'py, PyAny>>,
    layout: &str,
    block_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let fp = opt_real(py, "fp", fp)?;
    let items = count(py, "items", items)?;
    let bits = count(py, "bits", bits)?;
    let hashes = narrow(count(py, "hashes", hashes)?);
    let max_hashes = narrow(count(py, "max_hashes", max_hashes)?);
    let block = count(py, "block_bits", block_bits)?;
    let counts = [
        ("items", &items),
        ("bits", &bits),
        ("hashes", &hashes),
        ("max_hashes", &max_hashes),
        ("block_bits", &block),
    ];
    let e = |x| named(py, NAMES, &counts, x);
    let lay = layout_of(py, layout, &block)?;
    let value = |c: &Option<Count>| c.as_ref().map(|c| c.value);
    match (fp, value(&items), value(&bits), small(&hashes)) {
        (Some(fp), Some(n), None, None) => {
            let mut req = ClassicRequirement::new(fp, n, lay).map_err(e)?;
            if let Some(k_max) = small(&max_hashes) {
                req = req.with_k_max(k_max).map_err(e)?;
            }
            let d = design(&req).map_err(e)?;
            let out = described(py, &d.params)?;
            out.set_item("fp_target", d.fp_target)?;
            Ok(out)
        }
        (None, Some(n), Some(m), None) => {
            let (k, _) = best_k(m, n, lay).map_err(e)?;
            let p = ClassicParams::new(m, k, n, lay).map_err(e)?;
            described(py, &p)
        }
        (Some(fp), None, Some(m), Some(k)) => {
            let n = capacity(m, k, fp, lay).map_err(e)?;
            let p = ClassicParams::new(m, k, n, lay).map_err(e)?;
            let out = described(py, &p)?;
            out.set_item("fp_target", fp)?;
            out.set_item("capacity", n)?;
            Ok(out)
        }
        _ => Err(errors::invalid(
            py,
            "fp/items/bits/hashes",
            "this combination",
            "one of: fp=P, items=N (size) | bits=M, items=N (best k) | bits=M, hashes=K, fp=P (capacity)",
        )),
    }
}

/// Adds `bfopt.classic` to the module.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    family(parent, "classic", "The classic Bloom filter: model(bits=, hashes=, items=) and optimize(fp=, items=, ...), as `bfopt model classic` and `bfopt optimize classic`.", |m| {
        m.add_function(wrap_pyfunction!(model, m)?)?;
        m.add_function(wrap_pyfunction!(optimize, m)?)?;
        Ok(())
    })
}
