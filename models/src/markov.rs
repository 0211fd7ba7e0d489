//! Finite Markov chains: stationary distributions.
//!
//! Two solvers: [`stationary_gth`] (Grassmann–Taksar–Heyman state reduction, which never
//! subtracts and so keeps relative accuracy for probabilities far below 1e-16), and
//! [`stationary_dense`], a plain nalgebra LU solve of `π (P − I) = 0, Σπ = 1` used as the
//! reference in cross-check tests.

use crate::error::ModelError;
use nalgebra::{DMatrix, DVector};

/// Checks that `p` is square and row-stochastic (rows sum to 1 within 1e-9, entries ≥ 0).
fn check_stochastic(p: &DMatrix<f64>) -> Result<(), ModelError> {
    if p.nrows() != p.ncols() || p.nrows() == 0 {
        return Err(ModelError::invalid(
            "transition matrix",
            format!("{}x{}", p.nrows(), p.ncols()),
            "a non-empty square matrix",
        ));
    }
    for (i, row) in p.row_iter().enumerate() {
        let s: f64 = row.iter().sum();
        if row.iter().any(|&x| !(x >= 0.0)) || (s - 1.0).abs() > 1e-9 {
            return Err(ModelError::invalid(
                "transition matrix row",
                i,
                "non-negative entries summing to 1",
            ));
        }
    }
    Ok(())
}

/// Stationary distribution of an irreducible chain by GTH state reduction.
///
/// # Accuracy
/// Subtraction-free: each probability has small relative error, however tiny it is.
/// O(n³) time; for the structured chains of the families use their own recursions and
/// this as the cross-check.
///
/// # Errors
/// [`ModelError::InvalidParam`] if `p` is not square and row-stochastic, or the chain is
/// reducible (a state with no way out before reduction finishes).
pub fn stationary_gth(p: &DMatrix<f64>) -> Result<DVector<f64>, ModelError> {
    check_stochastic(p)?;
    let n = p.nrows();
    let mut a = p.clone();
    for k in (1..n).rev() {
        let s: f64 = (0..k).map(|j| a[(k, j)]).sum();
        if !(s > 0.0) {
            return Err(ModelError::invalid(
                "transition matrix",
                format!("state {k} has no transition to lower states"),
                "an irreducible chain",
            ));
        }
        for i in 0..k {
            a[(i, k)] /= s;
        }
        for i in 0..k {
            let aik = a[(i, k)];
            if aik != 0.0 {
                for j in 0..k {
                    a[(i, j)] += aik * a[(k, j)];
                }
            }
        }
    }
    let mut pi = DVector::zeros(n);
    pi[0] = 1.0;
    for k in 1..n {
        pi[k] = (0..k).map(|i| pi[i] * a[(i, k)]).sum();
    }
    let total: f64 = pi.iter().sum();
    Ok(pi / total)
}

/// Stationary distribution by a dense LU solve (nalgebra): replaces one balance equation
/// of `π (P − I) = 0` with `Σ π = 1`. The reference for cross-checks; loses relative
/// accuracy for probabilities below about 1e-16 · max π.
pub fn stationary_dense(p: &DMatrix<f64>) -> Result<DVector<f64>, ModelError> {
    check_stochastic(p)?;
    let n = p.nrows();
    let mut a = p.transpose() - DMatrix::<f64>::identity(n, n);
    for j in 0..n {
        a[(n - 1, j)] = 1.0;
    }
    let mut b = DVector::zeros(n);
    b[n - 1] = 1.0;
    a.lu().solve(&b).ok_or_else(|| {
        ModelError::invalid(
            "transition matrix",
            "singular system",
            "an irreducible chain",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn two_state_chain_matches_closed_form() {
        // π = (b, a) / (a + b) for P = [[1-a, a], [b, 1-b]].
        let (a, b) = (0.3, 0.1);
        let p = DMatrix::from_row_slice(2, 2, &[1.0 - a, a, b, 1.0 - b]);
        for pi in [stationary_gth(&p).unwrap(), stationary_dense(&p).unwrap()] {
            assert_relative_eq!(pi[0], b / (a + b), max_relative = 1e-14);
            assert_relative_eq!(pi[1], a / (a + b), max_relative = 1e-14);
        }
    }

    #[test]
    fn gth_keeps_relative_accuracy_for_tiny_probabilities() {
        // Birth-death chain with ratio 1e-6 per step: π_i ∝ 1e-6^i, down to 1e-30.
        let n = 6;
        let r = 1e-6;
        let mut p = DMatrix::zeros(n, n);
        for i in 0..n {
            let up = if i + 1 < n { 0.5 * r } else { 0.0 };
            let down = if i > 0 { 0.5 } else { 0.0 };
            if i + 1 < n {
                p[(i, i + 1)] = up;
            }
            if i > 0 {
                p[(i, i - 1)] = down;
            }
            p[(i, i)] = 1.0 - up - down;
        }
        let pi = stationary_gth(&p).unwrap();
        for i in 1..n {
            assert_relative_eq!(pi[i] / pi[i - 1], r, max_relative = 1e-12);
        }
    }

    #[test]
    fn rejects_non_stochastic() {
        let p = DMatrix::from_row_slice(2, 2, &[0.5, 0.6, 0.5, 0.5]);
        assert!(stationary_gth(&p).is_err());
        assert!(stationary_dense(&DMatrix::zeros(2, 3)).is_err());
    }
}
