//! The one error type of `bfopt-models`.
//!
//! Every constructor and solver reports a bad value with the parameter's name, the value
//! given and the allowed range, so that a user (or the CLI) can say exactly what to fix.

use std::fmt::Display;

/// What went wrong in a model, a constructor or an optimizer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A parameter is outside its allowed range (or is NaN / infinite).
    ///
    /// Display: `invalid fp = 1.5 (allowed: 0 < fp < 1)`.
    #[error("invalid {name} = {value} (allowed: {allowed})")]
    InvalidParam {
        /// The parameter's name, as the paper / the API spells it (`fp`, `k`, `m`, ...).
        name: &'static str,
        /// The value given, formatted.
        value: String,
        /// The allowed range, in words or symbols.
        allowed: String,
    },
    /// No design meets the requirement.
    #[error("infeasible: {binding}; achievable: {achievable}")]
    Infeasible {
        /// The constraint that binds.
        binding: String,
        /// The best value that can be achieved under the other constraints.
        achievable: String,
    },
    /// A numerical solver failed to converge.
    #[error("{solver} did not converge after {iterations} iterations (residual {residual:e})")]
    NoConvergence {
        /// Which solver.
        solver: &'static str,
        /// Iterations spent.
        iterations: u64,
        /// The last residual.
        residual: f64,
    },
    /// A loop would spend more than the work allowance a caller set on its thread
    /// ([`crate::budget::with_allowance`]; never without one).
    ///
    /// Display: `work limit: classic exact law needs 2e7 steps, beyond the allowance
    /// of 1e5 steps`.
    #[error(
        "work limit: {what} needs {steps:e} steps, beyond the allowance of {allowance:e} steps"
    )]
    WorkLimit {
        /// The loop, as its documentation names it.
        what: &'static str,
        /// The steps it would take (its estimate, or what it asked for next).
        steps: f64,
        /// The allowance in force.
        allowance: f64,
    },
}

impl ModelError {
    /// Builds [`ModelError::InvalidParam`].
    pub fn invalid(name: &'static str, value: impl Display, allowed: impl Display) -> Self {
        ModelError::InvalidParam {
            name,
            value: short_number(value.to_string()),
            allowed: allowed.to_string(),
        }
    }

    /// Builds [`ModelError::Infeasible`].
    pub fn infeasible(binding: impl Display, achievable: impl Display) -> Self {
        ModelError::Infeasible {
            binding: binding.to_string(),
            achievable: achievable.to_string(),
        }
    }
}

/// A number's display in a message: as given, unless it is a plain decimal longer than
/// 24 characters (`1e-300` displays as 300 zeros), which becomes exponent form.
pub fn short_number(s: String) -> String {
    match s.parse::<f64>() {
        Ok(x) if s.len() > 24 && !s.contains('e') => format!("{x:e}"),
        _ => s,
    }
}

/// A rate for a message: `0.01`, `1e-300` (never a wall of zeros).
pub fn show_rate(x: f64) -> String {
    short_number(x.to_string())
}

/// Validating checks shared by every family's constructors.
///
/// All of them are written so that NaN fails (`!(x > lo)` rather than `x <= lo`).
pub mod check {
    use super::ModelError;
    use std::fmt::Display;
    use std::ops::RangeInclusive;

    /// `0 < value < 1`, finite.
    pub fn open_probability(name: &'static str, value: f64) -> Result<f64, ModelError> {
        if value > 0.0 && value < 1.0 {
            Ok(value)
        } else {
            Err(ModelError::invalid(name, value, format!("0 < {name} < 1")))
        }
    }

    /// The smallest FP target an optimizer accepts. Every model keeps its FP to full
    /// relative precision down to here (checked against 256-bit evaluations in
    /// `models/tests/precision`); below about 2.2e-308 doubles are subnormal and lose
    /// relative precision, and FPs of that size round to 0.
    pub const FP_TARGET_MIN: f64 = 1e-300;

    /// An FP target: `FP_TARGET_MIN <= value < 1` (issue 17: a target below what the
    /// models can compute to full relative precision must not yield a design whose FP
    /// prints as 0).
    pub fn fp_target(name: &'static str, value: f64) -> Result<f64, ModelError> {
        if (FP_TARGET_MIN..1.0).contains(&value) {
            Ok(value)
        } else if value > 0.0 && value < FP_TARGET_MIN {
            Err(ModelError::invalid(
                name,
                format!("{value:e}"),
                format!(
                    "{name} >= {FP_TARGET_MIN:e}, the smallest supported target (and {name} < 1)"
                ),
            ))
        } else {
            open_probability(name, value)
        }
    }

    /// `0 <= value <= 1`, finite.
    pub fn probability(name: &'static str, value: f64) -> Result<f64, ModelError> {
        if (0.0..=1.0).contains(&value) {
            Ok(value)
        } else {
            Err(ModelError::invalid(
                name,
                value,
                format!("0 <= {name} <= 1"),
            ))
        }
    }

    /// `value > 0` and finite.
    pub fn positive_finite(name: &'static str, value: f64) -> Result<f64, ModelError> {
        if value > 0.0 && value.is_finite() {
            Ok(value)
        } else {
            Err(ModelError::invalid(
                name,
                value,
                format!("0 < {name} < inf"),
            ))
        }
    }

    /// `value` inside `range` (integers of any width).
    pub fn in_range<T>(
        name: &'static str,
        value: T,
        range: RangeInclusive<T>,
    ) -> Result<T, ModelError>
    where
        T: PartialOrd + Display + Copy,
    {
        if range.contains(&value) {
            Ok(value)
        } else {
            Err(ModelError::invalid(
                name,
                value,
                format!("{} <= {name} <= {}", range.start(), range.end()),
            ))
        }
    }

    /// A real `value` inside `range`, finite: [`in_range`] for `f64` (NaN is outside).
    pub fn in_range_f64(
        name: &'static str,
        value: f64,
        range: RangeInclusive<f64>,
    ) -> Result<f64, ModelError> {
        in_range(name, value, range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_param_names_value_and_range() {
        let e = check::open_probability("fp", 1.5).unwrap_err();
        assert_eq!(e.to_string(), "invalid fp = 1.5 (allowed: 0 < fp < 1)");
    }

    #[test]
    fn nan_and_inf_are_rejected() {
        assert!(check::open_probability("fp", f64::NAN).is_err());
        assert!(check::probability("p", f64::NAN).is_err());
        assert!(check::positive_finite("x", f64::INFINITY).is_err());
        assert!(check::positive_finite("x", f64::NAN).is_err());
        assert!(check::in_range_f64("x", f64::NAN, 0.0..=1.0).is_err());
    }

    #[test]
    fn integer_range_is_inclusive() {
        assert_eq!(check::in_range("k", 64u32, 1..=64), Ok(64));
        let e = check::in_range("k", 0u32, 1..=64).unwrap_err();
        assert_eq!(e.to_string(), "invalid k = 0 (allowed: 1 <= k <= 64)");
    }
}
