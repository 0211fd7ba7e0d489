//! A private argmin adapter: Brent's root finder on a bracketed scalar function.

use crate::error::ModelError;
use argmin::core::{CostFunction, Error, Executor, State};
use argmin::solver::brent::BrentRoot;

struct Gap<F: Fn(f64) -> f64> {
    f: F,
}

impl<F: Fn(f64) -> f64> CostFunction for Gap<F> {
    type Param = f64;
    type Output = f64;
    fn cost(&self, x: &f64) -> Result<f64, Error> {
        Ok((self.f)(*x))
    }
}

/// A root of `f` in `[lo, hi]`, where `f(lo)` and `f(hi)` have opposite signs (checked
/// here, as argmin checks it only in `init`), and the iterations used.
///
/// # Errors
/// [`ModelError::NoConvergence`] when the bracket does not change sign or Brent does not
/// reach the tolerance in 200 iterations.
pub(crate) fn brent(
    solver: &'static str,
    lo: f64,
    hi: f64,
    tol: f64,
    f: impl Fn(f64) -> f64,
) -> Result<(f64, u64), ModelError> {
    let (flo, fhi) = (f(lo), f(hi));
    if flo == 0.0 {
        return Ok((lo, 0));
    }
    if fhi == 0.0 {
        return Ok((hi, 0));
    }
    if !(flo.is_finite() && fhi.is_finite() && flo.signum() != fhi.signum()) {
        return Err(ModelError::NoConvergence {
            solver,
            iterations: 0,
            residual: flo.abs().min(fhi.abs()),
        });
    }
    let res = Executor::new(Gap { f }, BrentRoot::new(lo, hi, tol))
        .configure(|s| s.param(hi).max_iters(200))
        .run()
        .map_err(|_| ModelError::NoConvergence {
            solver,
            iterations: 0,
            residual: f64::NAN,
        })?;
    let state = res.state();
    let x = state.get_best_param().copied().unwrap_or(f64::NAN);
    let iters = state.get_iter();
    if !x.is_finite() || iters >= 200 {
        return Err(ModelError::NoConvergence {
            solver,
            iterations: iters,
            residual: state.get_best_cost(),
        });
    }
    Ok((x, iters))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sqrt_two_and_rejects_bad_brackets() {
        let (x, _) = brent("t", 0.0, 2.0, 1e-12, |x| x * x - 2.0).unwrap();
        assert!((x - 2f64.sqrt()).abs() < 1e-10);
        assert!(brent("t", 2.0, 3.0, 1e-12, |x| x * x - 2.0).is_err());
    }
}
