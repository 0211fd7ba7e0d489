//! A cooperative work allowance: a caller that must bound each evaluation (the fuzz
//! targets, issue 17) sets one on its thread, and the loops whose cost grows with their
//! input spend from it.
//!
//! Unset by default: without [`with_allowance`] every function computes exactly as
//! before, and [`spend`] and [`cap`] cost one thread-local read. With an allowance of `S`
//! steps (a step is one inner-loop iteration, the unit of each loop's own work limit,
//! about a nanosecond to ten), a loop that would take more than is left returns
//! [`ModelError::WorkLimit`] naming itself and the allowance, before it starts; a loop
//! whose own limit picks a cheaper method (the classic exact law over its approximation)
//! takes the smaller of that limit and what is left ([`cap`]), so it picks the cheaper
//! method sooner, as it would for a larger input. A loop that one evaluation runs once
//! per candidate (a search) pays from the allowance ([`spend`]); one that an evaluation
//! may run twice on the same inputs (a value and its log) only compares its estimate
//! with what is left ([`check`]), so both runs decide alike.
//!
//! The count is a deterministic function of the input (never a clock), so an input
//! gives the same outcome on every machine and a fuzz crash reproduces. The allowance
//! belongs to the thread that set it: work handed to other threads (rayon) is not
//! charged, so a caller that needs the bound runs rayon on its own thread (a one-thread
//! pool that uses the current thread, as `bfopt::fuzzing` does).

use crate::error::ModelError;
use std::cell::Cell;

/// An allowance in force: the steps it started with and the steps left.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Allowance {
    steps: f64,
    left: f64,
}

thread_local! {
    static CURRENT: Cell<Option<Allowance>> = const { Cell::new(None) };
}

/// Restores the allowance that was in force before [`with_allowance`], also when `f`
/// panics.
struct Restore(Option<Allowance>);

impl Drop for Restore {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

/// Runs `f` with an allowance of `steps` units of work on this thread (nested calls
/// take the inner allowance and restore the outer one after).
pub fn with_allowance<R>(steps: f64, f: impl FnOnce() -> R) -> R {
    let _restore = Restore(CURRENT.with(|c| c.replace(Some(Allowance { steps, left: steps }))));
    f()
}

/// The steps left of the allowance in force, `None` without one.
pub fn left() -> Option<f64> {
    CURRENT.with(|c| c.get()).map(|a| a.left)
}

/// Spends `steps` units of work on `what` (a loop, named as its documentation names it).
///
/// # Errors
/// [`ModelError::WorkLimit`] when an allowance is in force and `steps` (NaN counts as
/// infinite) exceed what is left; nothing is spent then.
pub fn spend(steps: f64, what: &'static str) -> Result<(), ModelError> {
    check(steps, what)?;
    CURRENT.with(|c| {
        if let Some(a) = c.get() {
            c.set(Some(Allowance {
                left: a.left - steps,
                ..a
            }));
        }
    });
    Ok(())
}

/// Refuses a loop whose estimated `steps` exceed what is left of the allowance in force,
/// spending nothing: for a loop that one evaluation may run more than once with the same
/// inputs (a model's value and its log), so each run decides alike.
///
/// # Errors
/// [`ModelError::WorkLimit`] as [`spend`].
pub fn check(steps: f64, what: &'static str) -> Result<(), ModelError> {
    match CURRENT.with(|c| c.get()) {
        Some(a) if !(steps <= a.left) => Err(ModelError::WorkLimit {
            what,
            steps,
            allowance: a.steps,
        }),
        _ => Ok(()),
    }
}

/// A loop's own work limit `limit`, or the steps left of the allowance in force when
/// fewer: for loops that switch to a cheaper method beyond their limit.
pub fn cap(limit: f64) -> f64 {
    left().map_or(limit, |left| left.min(limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_by_default_spends_nothing_and_caps_nothing() {
        assert_eq!(left(), None);
        assert_eq!(spend(f64::INFINITY, "a loop"), Ok(()));
        assert_eq!(cap(1e9), 1e9);
    }

    #[test]
    fn spending_past_the_allowance_names_the_loop_and_restores_after() {
        let outcome = with_allowance(100.0, || {
            assert_eq!(spend(60.0, "first"), Ok(()));
            assert_eq!(left(), Some(40.0));
            assert_eq!(cap(1e9), 40.0);
            let e = spend(41.0, "second").unwrap_err();
            assert_eq!(
                e,
                ModelError::WorkLimit {
                    what: "second",
                    steps: 41.0,
                    allowance: 100.0
                }
            );
            assert!(e.to_string().contains("second"), "{e}");
            assert_eq!(left(), Some(40.0), "a refused spend costs nothing");
            assert!(spend(f64::NAN, "nan").is_err());
            assert!(check(41.0, "checked").is_err());
            assert_eq!(check(40.0, "checked"), Ok(()));
            assert_eq!(left(), Some(40.0), "a check spends nothing");
            with_allowance(5.0, || assert_eq!(left(), Some(5.0)));
            left()
        });
        assert_eq!(
            outcome,
            Some(40.0),
            "the inner allowance restores the outer"
        );
        assert_eq!(left(), None);
    }

    #[test]
    fn a_panic_inside_restores_the_allowance() {
        let r = std::panic::catch_unwind(|| with_allowance(1.0, || panic!("inside")));
        assert!(r.is_err());
        assert_eq!(left(), None);
    }
}
