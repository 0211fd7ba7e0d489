//! `bfopt.recommend` and the objects it returns: keyword arguments to a
//! [`bfopt_plan::Requirement`] (named like the CLI's `recommend` flags), then
//! [`bfopt_plan::plan`]. Every decision is the planner's; this module maps and converts.

use crate::args::{count, opt_real, real, Count};
use crate::errors;
use bfopt_models::timing::{Penalties, PenaltyDist};
use bfopt_models::ModelError;
use bfopt_plan::flags::{self, RequirementFlags};
use bfopt_plan::{Level, Requirement};
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pythonize::pythonize;
use serde::Serialize;

/// `value` as Python objects (dicts, lists, numbers, strings).
pub fn to_py<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize(py, value).map_err(errors::serialize)
}

/// The caller's count values, so errors name what was given.
fn fix_counts(counts: &[(&str, &Option<Count>)], mut e: ModelError) -> ModelError {
    for (name, c) in counts {
        if let Some(c) = c {
            e = c.fix(name, e);
        }
    }
    e
}

/// `penalties` as `(fp_price, fn_price)` or `"FP:FN"`.
fn penalties(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<PenaltyDist> {
    let text = obj.str().map(|s| s.to_string()).unwrap_or_default();
    let allowed = "(FP, FN) or \"FP:FN\": two prices >= 0, not both 0, e.g. (1, 10)";
    let pair: (f64, f64) = if let Ok(s) = obj.downcast::<PyString>() {
        let s = s.to_string();
        let parsed = s
            .split_once(':')
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
        parsed.ok_or_else(|| errors::invalid(py, "penalties", &text, allowed))?
    } else if let Ok(t) = obj.extract::<(f64, f64)>() {
        t
    } else {
        return Err(errors::invalid(py, "penalties", &text, allowed));
    };
    let p = Penalties::new(pair.0, pair.1).map_err(|e| errors::model(py, e))?;
    if pair.0 == 0.0 && pair.1 == 0.0 {
        return Err(errors::invalid(py, "penalties", &text, allowed));
    }
    Ok(PenaltyDist::Fixed {
        fp: p.fp(),
        fn_: p.fn_(),
    })
}

/// The requirement the keyword arguments describe (the CLI's `recommend` flags), mapped
/// by [`RequirementFlags::requirement`] as the CLI maps its flags.
#[allow(clippy::too_many_arguments)]
fn requirement(
    py: Python<'_>,
    fp: &Bound<'_, PyAny>,
    capacity: Option<&Bound<'_, PyAny>>,
    window: Option<&Bound<'_, PyAny>>,
    horizon: Option<&Bound<'_, PyAny>>,
    query_length: Option<&Bound<'_, PyAny>>,
    pairs: Option<&Bound<'_, PyAny>>,
    initial_capacity: Option<&Bound<'_, PyAny>>,
    max_items: Option<&Bound<'_, PyAny>>,
    memory: Option<&Bound<'_, PyAny>>,
    max_accesses: Option<&Bound<'_, PyAny>>,
    max_npws: Option<&Bound<'_, PyAny>>,
    allow_fn: Option<&Bound<'_, PyAny>>,
    duplicates: Option<&Bound<'_, PyAny>>,
    importance: Option<&str>,
    penalties_arg: Option<&Bound<'_, PyAny>>,
    deletions: bool,
) -> PyResult<Requirement> {
    let fp = real(py, "fp", fp)?;
    let capacity = count(py, "capacity", capacity)?;
    let window = count(py, "window", window)?;
    let horizon = count(py, "horizon", horizon)?;
    let query_length = count(py, "query_length", query_length)?;
    let pairs = count(py, "pairs", pairs)?;
    let initial_capacity = count(py, "initial_capacity", initial_capacity)?;
    let max_items = count(py, "max_items", max_items)?;
    let memory = count(py, "memory", memory)?;
    if horizon.is_none() {
        for (name, c) in [("query_length", &query_length), ("pairs", &pairs)] {
            if let Some(c) = c {
                let text = c.given.clone().unwrap_or(c.value.to_string());
                return Err(errors::invalid(py, name, &text, "only with horizon=T"));
            }
        }
    }
    for (name, c, other) in [
        ("initial_capacity", &initial_capacity, &max_items),
        ("max_items", &max_items, &initial_capacity),
    ] {
        if let (Some(c), None) = (c, other) {
            let text = c.given.clone().unwrap_or(c.value.to_string());
            return Err(errors::invalid(
                py,
                name,
                &text,
                "only with both initial_capacity=N0 and max_items=NMAX",
            ));
        }
    }
    let flags = RequirementFlags {
        fp,
        capacity: capacity.as_ref().map(|c| c.value),
        window: window.as_ref().map(|c| c.value),
        horizon: horizon.as_ref().map(|c| c.value),
        query_length: query_length.as_ref().map(|c| c.value),
        pairs: pairs.as_ref().map(|c| c.value),
        initial_capacity: initial_capacity.as_ref().map(|c| c.value),
        max_items: max_items.as_ref().map(|c| c.value),
        memory: memory.as_ref().map(|c| c.value),
        max_accesses: opt_real(py, "max_accesses", max_accesses)?,
        max_npws: opt_real(py, "max_npws", max_npws)?,
        allow_fn: opt_real(py, "allow_fn", allow_fn)?,
        duplicates: opt_real(py, "duplicates", duplicates)?,
        importance: importance.map(str::to_string),
        penalties: penalties_arg
            .filter(|o| !o.is_none())
            .map(|p| penalties(py, p))
            .transpose()?,
        deletions,
    };
    let counts = [
        ("capacity", &capacity),
        ("window", &window),
        ("horizon", &horizon),
        ("query_length", &query_length),
        ("pairs", &pairs),
        ("initial_capacity", &initial_capacity),
        ("max_items", &max_items),
        ("memory", &memory),
    ];
    flags.requirement().map_err(|e| {
        let e = match e {
            ModelError::InvalidParam { name, value, .. } if name == flags::SHAPE => {
                ModelError::InvalidParam {
                    name,
                    value,
                    allowed: flags::SHAPE_ALLOWED_KEYWORDS.into(),
                }
            }
            e => e,
        };
        errors::model(py, fix_counts(&counts, e))
    })
}

/// Every Bloom-filter design that meets a requirement, least memory first, and the pick.
///
/// The keyword arguments are the flags of `bfopt recommend` (dashes as underscores).
/// Give `fp` and exactly one shape: `capacity=N` (a static set of N items),
/// `window=W` (the last W insertions of a stream, no false negative among them),
/// `horizon=T, query_length=Q, pairs=n` (temporal membership) or
/// `initial_capacity=N0, max_items=NMAX` (a set of unknown final count, up to NMAX items:
/// scalable Bloom filters that grow from N0, and a classic filter sized for NMAX).
///
/// Budgets: `memory` (bits, int), `max_accesses` (per insertion or negative query,
/// >= 1), `max_npws` (peak normalized probability-weighted slack of a window design,
/// 0..1). Window options: `allow_fn` (admit designs that forget, at most this fraction),
/// `duplicates` (fraction of insertions that repeat a window item), `importance`
/// (`"linear:LO:HI"`, `"exponential:LO:HI:RATE"` or `"hist:IMP=W,..."`; needs
/// `allow_fn`), `penalties` (`(fp_price, fn_price)` or `"FP:FN"`: adds the inferential
/// designs). `deletions=True` (with `capacity`): items are deleted as well as inserted;
/// only structures that support deletion are offered.
///
/// Returns a `Plan`; `Plan.to_dict()` is the JSON of
/// `bfopt recommend ... --format json`.
///
/// Raises `bfopt.InvalidParameter` (a `ValueError`, with `.parameter`, `.value`,
/// `.allowed`) for a bad value and `bfopt.Infeasible` (with `.binding`, `.achievable`,
/// `.excluded`) when no design meets the requirement.
///
/// Example:
///
/// >>> import bfopt
/// >>> plan = bfopt.recommend(fp=0.01, window=1_000_000, max_accesses=8)
/// >>> plan.pick.design
/// 'rotating/blocked'
/// >>> plan.pick.candidate.params
/// {'r': 7, 'g': 166667, 'm': 2435584, 'k': 9, 'block_bits': 512}
/// >>> plan.pick.candidate.fp <= 0.01
/// True
#[pyfunction]
#[pyo3(signature = (*, fp, capacity=None, window=None, horizon=None, query_length=None, pairs=None, initial_capacity=None, max_items=None, memory=None, max_accesses=None, max_npws=None, allow_fn=None, duplicates=None, importance=None, penalties=None, deletions=false))]
#[allow(clippy::too_many_arguments)]
pub fn recommend(
    py: Python<'_>,
    fp: &Bound<'_, PyAny>,
    capacity: Option<&Bound<'_, PyAny>>,
    window: Option<&Bound<'_, PyAny>>,
    horizon: Option<&Bound<'_, PyAny>>,
    query_length: Option<&Bound<'_, PyAny>>,
    pairs: Option<&Bound<'_, PyAny>>,
    initial_capacity: Option<&Bound<'_, PyAny>>,
    max_items: Option<&Bound<'_, PyAny>>,
    memory: Option<&Bound<'_, PyAny>>,
    max_accesses: Option<&Bound<'_, PyAny>>,
    max_npws: Option<&Bound<'_, PyAny>>,
    allow_fn: Option<&Bound<'_, PyAny>>,
    duplicates: Option<&Bound<'_, PyAny>>,
    importance: Option<&str>,
    penalties: Option<&Bound<'_, PyAny>>,
    deletions: bool,
) -> PyResult<Plan> {
    let req = requirement(
        py,
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
        importance,
        penalties,
        deletions,
    )?;
    let planned = py.allow_threads(|| bfopt_plan::plan(&req));
    planned
        .map(|inner| Plan { inner })
        .map_err(|e| errors::plan(py, e))
}

/// The ranked designs for a requirement (from `bfopt.recommend`).
///
/// Attributes: `pick` (a `Pick`), `candidates` (list of `Candidate`, least memory
/// first), `excluded` (list of dicts: `name`, `reason`, and `budget` when a budget
/// excluded it), `notes` (list of str), `requirement` (dict).
#[pyclass(frozen, module = "bfopt")]
pub struct Plan {
    inner: bfopt_plan::Plan,
}

#[pymethods]
impl Plan {
    /// The design to build, with its reason.
    #[getter]
    fn pick(&self) -> Pick {
        let p = &self.inner.pick;
        Pick {
            index: p.index,
            design: p.design.clone(),
            reason: p.reason.clone(),
            candidate: self.inner.picked().clone(),
        }
    }

    /// Every design that meets the requirement, least memory first.
    #[getter]
    fn candidates(&self) -> Vec<Candidate> {
        self.inner
            .candidates
            .iter()
            .map(|c| Candidate { inner: c.clone() })
            .collect()
    }

    /// Families and designs left out, with reasons (list of dicts).
    #[getter]
    fn excluded<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.excluded)
    }

    /// What the figures assume, for the plan as a whole.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.inner.notes.clone()
    }

    /// The requirement, echoed (dict).
    #[getter]
    fn requirement<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.requirement)
    }

    /// The plan as a dict: the object `bfopt recommend ... --format json` prints.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    /// The candidates as a pandas DataFrame, one row per design (least memory first):
    /// `pick`, `family`, `design`, the parameters as columns, then the metrics (the
    /// columns of `bfopt recommend --format csv`). Needs pandas (`pip install pandas`).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = py.import("pandas").map_err(|e| {
            PyImportError::new_err(format!(
                "Plan.to_pandas() needs pandas, which is not installed ({e}); install it with `pip install pandas` or `pip install 'bfopt[pandas]'`"
            ))
        })?;
        let rows = PyList::empty(py);
        for (i, c) in self.inner.candidates.iter().enumerate() {
            let row = PyDict::new(py);
            row.set_item("pick", i == self.inner.pick.index)?;
            row.set_item("family", c.family)?;
            row.set_item("design", &c.design)?;
            if let Ok(params) = to_py(py, &c.params)?.downcast_into::<PyDict>() {
                row.update(params.as_mapping())?;
            }
            row.set_item("bits", c.bits)?;
            row.set_item("bits_per_item", c.bits_per_item)?;
            row.set_item("accesses_insert", c.accesses_insert)?;
            row.set_item("accesses_query", c.accesses_query)?;
            row.set_item("access_unit", to_py(py, &c.access_unit)?)?;
            row.set_item("false_negatives", c.false_negatives.short())?;
            row.set_item("slack", c.slack)?;
            row.set_item("npws", c.npws)?;
            row.set_item("fp", c.fp)?;
            row.set_item("fp_kind", to_py(py, &c.fp_kind)?)?;
            row.set_item("notes", c.notes.join("; "))?;
            rows.append(row)?;
        }
        pandas.getattr("DataFrame")?.call1((rows,))
    }

    /// Simulates every candidate's reference implementation at its planned parameters
    /// (design `i` with seed `seed + i`) and compares it with its model; `level="full"`
    /// runs four times the epochs. The GIL is released while the simulations run.
    /// Returns a `Validation` (`.passed`, `.designs`, `.to_dict()`); the same object as
    /// the `validation` member of `bfopt recommend --validate --format json`.
    ///
    /// >>> v = bfopt.recommend(fp=0.02, window=2000).validate(seed=1)
    /// >>> v.passed
    /// True
    #[pyo3(signature = (level="quick", seed=None), text_signature = "($self, level=\"quick\", seed=1)")]
    fn validate(
        &self,
        py: Python<'_>,
        level: &str,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Validation> {
        let level = match level {
            "quick" => Level::Quick,
            "full" => Level::Full,
            other => return Err(errors::invalid(py, "level", other, "\"quick\" or \"full\"")),
        };
        let seed: u64 = match seed.filter(|s| !s.is_none()) {
            None => 1,
            Some(s) => s.extract().map_err(|_| {
                let text = s.str().map(|t| t.to_string()).unwrap_or_default();
                errors::invalid(py, "seed", &text, "an int, 0 <= seed < 2^64")
            })?,
        };
        let inner = &self.inner;
        let v = py.allow_threads(|| inner.validate(level, seed));
        Ok(Validation { inner: v })
    }

    fn __len__(&self) -> usize {
        self.inner.candidates.len()
    }

    fn __repr__(&self) -> String {
        let p = self.inner.picked();
        format!(
            "<bfopt.Plan: {} candidates, pick {} ({}, {:.2} bits/item, fp {:e})>",
            self.inner.candidates.len(),
            p.design,
            p.params,
            p.bits_per_item,
            p.fp
        )
    }
}

/// The design to build: `index` in `Plan.candidates`, `design`, `reason` (one line,
/// computed from the numbers) and `candidate` (the `Candidate`).
#[pyclass(frozen, module = "bfopt")]
pub struct Pick {
    /// Its index in `Plan.candidates`.
    #[pyo3(get)]
    index: usize,
    /// Its design name.
    #[pyo3(get)]
    design: String,
    /// Why this one.
    #[pyo3(get)]
    reason: String,
    candidate: bfopt_plan::Candidate,
}

#[pymethods]
impl Pick {
    /// The picked `Candidate`.
    #[getter]
    fn candidate(&self) -> Candidate {
        Candidate {
            inner: self.candidate.clone(),
        }
    }

    /// `{"index", "design", "reason"}`, as in the JSON.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("index", self.index)?;
        d.set_item("design", &self.design)?;
        d.set_item("reason", &self.reason)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "<bfopt.Pick {} ({}): {}>",
            self.design, self.candidate.params, self.reason
        )
    }
}

/// One design that meets the requirement, with its parameters and predicted metrics.
///
/// Attributes: `family`, `design`, `params` (dict of numbers), `bits`,
/// `bits_per_item`, `fp`, `fp_kind` (what the FP figure is: `"exact"`, `"worst_case"`,
/// `"long_run_average"`, ...), `accesses_insert`, `accesses_query`, `access_unit`,
/// `npws` (None where not modelled), `slack`, `false_negatives` (dict with `kind`),
/// `notes` (list of str), `not_simulated` (why `Plan.validate` skips it, or None).
#[pyclass(frozen, module = "bfopt")]
pub struct Candidate {
    inner: bfopt_plan::Candidate,
}

#[pymethods]
impl Candidate {
    /// The family (`classic`, `baseline`, `apbf`, `rbf`, `stable`, `timing`, `gbf`, `pbf`).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.family
    }
    /// The structure to build (`classic/standard`, `apbbf`, ...).
    #[getter]
    fn design(&self) -> String {
        self.inner.design.clone()
    }
    /// Its parameters, a dict of numbers (`{"m": 9585059, "k": 7}`).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.params)
    }
    /// Total memory, bits.
    #[getter]
    fn bits(&self) -> u64 {
        self.inner.bits
    }
    /// Bits per item of the requirement (items, window insertions or pairs).
    #[getter]
    fn bits_per_item(&self) -> f64 {
        self.inner.bits_per_item
    }
    /// Predicted false-positive rate.
    #[getter]
    fn fp(&self) -> f64 {
        self.inner.fp
    }
    /// What the FP figure is (`"exact"`, `"worst_case"`, `"long_run_average"`, ...).
    #[getter]
    fn fp_kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.fp_kind)
    }
    /// Memory accesses per insertion.
    #[getter]
    fn accesses_insert(&self) -> f64 {
        self.inner.accesses_insert
    }
    /// Expected memory accesses per query that returns false.
    #[getter]
    fn accesses_query(&self) -> f64 {
        self.inner.accesses_query
    }
    /// What one access is (`"bit_probes"` or `"cache_lines"`).
    #[getter]
    fn access_unit<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.access_unit)
    }
    /// Peak NPWS of a window design, or None where it is not modelled.
    #[getter]
    fn npws(&self) -> Option<f64> {
        self.inner.npws
    }
    /// Items beyond the window still stored at the worst moment (0 for sets).
    #[getter]
    fn slack(&self) -> u64 {
        self.inner.slack
    }
    /// The false-negative guarantee (dict with `kind`: `none`, `none_in_window`,
    /// `at_most` with `rate` and `of`, `by_choice`).
    #[getter]
    fn false_negatives<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.false_negatives)
    }
    /// When to prefer this design, and what its figures assume.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.inner.notes.clone()
    }
    /// Why `Plan.validate` skips this design, or None.
    #[getter]
    fn not_simulated(&self) -> Option<String> {
        self.inner.not_simulated.clone()
    }
    /// The candidate as a dict, as in the JSON of `bfopt recommend`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        let c = &self.inner;
        format!(
            "<bfopt.Candidate {} ({}): {} bits, {:.2} bits/item, fp {:e}>",
            c.design, c.params, c.bits, c.bits_per_item, c.fp
        )
    }
}

/// The simulations of `Plan.validate`: `passed` (no simulated design failed),
/// `designs` (list of dicts, in the plan's order: `design`, `status` of `"pass"`,
/// `"fail"` or `"skipped"`, `measured_fp`, `checks`).
#[pyclass(frozen, module = "bfopt")]
pub struct Validation {
    inner: bfopt_plan::Validation,
}

#[pymethods]
impl Validation {
    /// Whether no simulated design failed.
    #[getter]
    fn passed(&self) -> bool {
        self.inner.passed()
    }
    /// Per design, in the plan's order (list of dicts).
    #[getter]
    fn designs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.designs)
    }
    /// `{"designs": [...]}`, as under `validation` in the CLI's JSON.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        let checks = self.inner.checks().count();
        let failed = self.inner.checks().filter(|k| !k.pass).count();
        format!(
            "<bfopt.Validation: {} designs, {} checks passed, {failed} failed>",
            self.inner.designs.len(),
            checks - failed
        )
    }
}
