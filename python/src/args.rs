//! Python values to the library's numbers. A value that does not fit the Rust type
//! (a negative count, a count past `u64`) is handed to the library as a value it
//! rejects (`0` or `u64::MAX`), and the library's error is reported with the value the
//! caller gave: the allowed ranges stay in one place, the library.

use crate::errors;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};

/// A count argument: an int, or a float with an integral value (`1e6`).
pub struct Count {
    /// The value passed to the library.
    pub value: u64,
    /// The caller's value as text, when it did not fit (the library sees `value`).
    pub given: Option<String>,
}

impl Count {
    /// Reads `obj` as the count `name`.
    pub fn read(py: Python<'_>, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = || obj.str().map(|s| s.to_string()).unwrap_or_default();
        if obj.is_instance_of::<PyInt>() {
            return Ok(match obj.extract::<u64>() {
                Ok(value) => Self { value, given: None },
                Err(_) => {
                    let negative = obj.lt(0).unwrap_or(false);
                    Self {
                        value: if negative { 0 } else { u64::MAX },
                        given: Some(text()),
                    }
                }
            });
        }
        if obj.is_instance_of::<PyFloat>() {
            let x: f64 = obj.extract()?;
            if x.is_finite() && x.fract() == 0.0 {
                if x >= 0.0 && x <= u64::MAX as f64 {
                    return Ok(Self {
                        value: x as u64,
                        given: None,
                    });
                }
                return Ok(Self {
                    value: if x < 0.0 { 0 } else { u64::MAX },
                    given: Some(text()),
                });
            }
            return Err(errors::invalid(py, name, &text(), "a whole number"));
        }
        Err(errors::invalid(py, name, &text(), "a whole number (int)"))
    }

    /// `err` with the caller's value when `err` names this argument.
    pub fn fix(&self, name: &str, err: bfopt_models::ModelError) -> bfopt_models::ModelError {
        match (&self.given, err) {
            (
                Some(given),
                bfopt_models::ModelError::InvalidParam {
                    name: n, allowed, ..
                },
            ) if n == name => bfopt_models::ModelError::InvalidParam {
                name: n,
                value: given.clone(),
                allowed,
            },
            (_, e) => e,
        }
    }
}

/// Reads an optional count; the errors of the library calls made with it are fixed up
/// by [`Count::fix`].
pub fn count(
    py: Python<'_>,
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Count>> {
    obj.filter(|o| !o.is_none())
        .map(|o| Count::read(py, name, o))
        .transpose()
}

/// Reads an optional real number (None: absent).
pub fn opt_real(
    py: Python<'_>,
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<f64>> {
    obj.filter(|o| !o.is_none())
        .map(|o| real(py, name, o))
        .transpose()
}

/// Reads a real number (`int` or `float`).
pub fn real(py: Python<'_>, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    obj.extract::<f64>().map_err(|_| {
        let text = obj.str().map(|s| s.to_string()).unwrap_or_default();
        errors::invalid(py, name, &text, "a real number")
    })
}
