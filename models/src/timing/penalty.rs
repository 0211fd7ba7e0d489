//! Query-specific error penalties and the minimum-penalty decision, Section 2.6 [TBF];
//! penalty distributions for expected-penalty calculations (Section 6.1.1 [TBF]).

use crate::error::ModelError;
use serde::Serialize;

/// A sliding-window answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// `x` is in the window (Pos).
    Positive,
    /// `x` is not in the window (Neg).
    Negative,
}

impl Decision {
    /// `"positive"` or `"negative"`.
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Positive => "positive",
            Decision::Negative => "negative",
        }
    }
}

/// The penalties of one query: `$FP` for a false positive, `$FN` for a false negative.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Penalties {
    fp: f64,
    #[serde(rename = "fn")]
    fn_: f64,
}

impl Penalties {
    /// Penalties `$FP = fp`, `$FN = fn_`, both finite and non-negative.
    ///
    /// # Errors
    /// A negative, NaN or infinite penalty, named `penalty_fp` / `penalty_fn`.
    pub fn new(fp: f64, fn_: f64) -> Result<Self, ModelError> {
        for (name, v) in [("penalty_fp", fp), ("penalty_fn", fn_)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(ModelError::invalid(name, v, format!("0 <= {name} < inf")));
            }
        }
        Ok(Self { fp, fn_ })
    }

    /// `$FP`.
    pub fn fp(&self) -> f64 {
        self.fp
    }

    /// `$FN`.
    pub fn fn_(&self) -> f64 {
        self.fn_
    }

    /// The minimum-expected-penalty answer for a sliding-window posterior `π`.
    ///
    /// # Formula
    /// ```text
    /// E_Pos = $FP · (1 − π),  E_Neg = $FN · π;  Pos iff E_Pos <= E_Neg     Section 2.6 [TBF]
    /// ```
    pub fn decide(&self, posterior: f64) -> Decision {
        if self.fp * (1.0 - posterior) <= self.fn_ * posterior {
            Decision::Positive
        } else {
            Decision::Negative
        }
    }

    /// The penalty incurred by `answer` when the truth is `in_window`.
    pub fn cost(&self, answer: Decision, in_window: bool) -> f64 {
        match (answer, in_window) {
            (Decision::Positive, false) => self.fp,
            (Decision::Negative, true) => self.fn_,
            _ => 0.0,
        }
    }
}

/// The distribution of `($FP, $FN)` over queries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "penalties", rename_all = "snake_case")]
pub enum PenaltyDist {
    /// `$FP` and `$FN` independent, uniform in `[lo, hi)` (Section 6.1.1 [TBF]: `[1, 10)`).
    Uniform {
        /// Lower end, `>= 0`.
        lo: f64,
        /// Upper end, `> lo`.
        hi: f64,
    },
    /// The same penalties for every query.
    Fixed {
        /// `$FP`.
        fp: f64,
        /// `$FN`.
        #[serde(rename = "fn")]
        fn_: f64,
    },
}

impl PenaltyDist {
    /// Penalties uniform in `[lo, hi)`.
    ///
    /// # Errors
    /// `lo < 0`, `hi <= lo` or a non-finite end.
    pub fn uniform(lo: f64, hi: f64) -> Result<Self, ModelError> {
        if !(lo >= 0.0 && lo.is_finite()) {
            return Err(ModelError::invalid("penalty_lo", lo, "0 <= lo < inf"));
        }
        if !(hi > lo && hi.is_finite()) {
            return Err(ModelError::invalid(
                "penalty_hi",
                hi,
                format!("{lo} < hi < inf"),
            ));
        }
        Ok(PenaltyDist::Uniform { lo, hi })
    }

    /// `uniform:LO:HI` or `fixed:FP:FN`, as the CLI spells it.
    pub fn describe(&self) -> String {
        match *self {
            PenaltyDist::Uniform { lo, hi } => format!("uniform:{lo}:{hi}"),
            PenaltyDist::Fixed { fp, fn_ } => format!("fixed:{fp}:{fn_}"),
        }
    }

    /// The paper's distribution, uniform in `[1, 10)`.
    pub fn paper() -> Self {
        PenaltyDist::Uniform { lo: 1.0, hi: 10.0 }
    }

    /// `E[$FP]`.
    pub fn mean_fp(&self) -> f64 {
        match *self {
            PenaltyDist::Uniform { lo, hi } => 0.5 * (lo + hi),
            PenaltyDist::Fixed { fp, .. } => fp,
        }
    }

    /// `E[$FN]`.
    pub fn mean_fn(&self) -> f64 {
        match *self {
            PenaltyDist::Uniform { lo, hi } => 0.5 * (lo + hi),
            PenaltyDist::Fixed { fn_, .. } => fn_,
        }
    }

    /// For an inferential filter that reports the posterior `π` and answers by
    /// [`Penalties::decide`], the expected penalties `(E[$FP·1{Pos}], E[$FN·1{Neg}])`
    /// over the penalty distribution. A query whose truth is "out of window" costs the
    /// first on average, one "in window" the second — whether or not `π` is calibrated.
    ///
    /// # Formula
    /// With `ρ = π/(1−π)`, Pos iff `$FP <= ρ·$FN`. For `$FN = b` fixed, `t = clamp(ρb, lo, hi)`:
    /// `P(Pos | b) = (t − lo)/h`, `E[$FP·1{Pos} | b] = (t² − lo²)/(2h)`, `h = hi − lo`;
    /// the outer integral over `b` is piecewise polynomial between `lo/ρ` and `hi/ρ`, and
    /// is integrated in closed form on each piece (a test checks it against 2-point
    /// Gauss–Legendre, exact for cubics).
    pub fn expected_costs(&self, posterior: f64) -> (f64, f64) {
        let pi = posterior.clamp(0.0, 1.0);
        match *self {
            PenaltyDist::Fixed { fp, fn_ } => {
                let p = Penalties { fp, fn_ };
                match p.decide(pi) {
                    Decision::Positive => (fp, 0.0),
                    Decision::Negative => (0.0, fn_),
                }
            }
            PenaltyDist::Uniform { lo, hi } => {
                if pi >= 1.0 {
                    return (0.5 * (lo + hi), 0.0);
                }
                if pi <= 0.0 {
                    // Pos iff $FP <= 0, which has probability zero unless lo = 0.
                    return (0.0, 0.5 * (lo + hi));
                }
                // Three divisions in all: this runs once per observation in the choosers.
                let rho = pi / (1.0 - pi);
                let inv_rho = (1.0 - pi) / pi;
                let h = hi - lo;
                let inv_h = 1.0 / h;
                let b1 = (lo * inv_rho).clamp(lo, hi);
                let b2 = (hi * inv_rho).clamp(lo, hi);
                // The three pieces of the outer integral over `$FN = b`, in closed form
                // (differences of powers factored, so a narrow piece keeps its accuracy):
                //   [lo, b1]: t = lo,  Pos never;       ∫ b db
                //   [b1, b2]: t = ρb;                   ∫ (ρ²b² − lo²)/(2h) db, ∫ b(hi − ρb)/h db
                //   [b2, hi]: t = hi,  Pos always;      ∫ (hi² − lo²)/(2h) db
                let d = b2 - b1;
                let cube = d * (b2 * b2 + b1 * b2 + b1 * b1) * (1.0 / 3.0); // (b2³ − b1³)/3
                let a = 0.5 * ((rho * rho * cube - lo * lo * d) * inv_h + (hi - b2) * (hi + lo));
                let n =
                    0.5 * (b1 - lo) * (b1 + lo) + (0.5 * hi * d * (b2 + b1) - rho * cube) * inv_h;
                (a * inv_h, n * inv_h)
            }
        }
    }

    /// `E[min($FP·(1−π), $FN·π)]`: the expected penalty of a query whose posterior `π`
    /// is calibrated.
    pub fn expected_min_penalty(&self, posterior: f64) -> f64 {
        let (a, b) = self.expected_costs(posterior);
        (1.0 - posterior) * a + posterior * b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn decision_follows_expected_penalties() {
        let p = Penalties::new(3.0, 1.0).unwrap();
        // E_Pos = 3(1−π) <= E_Neg = π  iff  π >= 0.75.
        assert_eq!(p.decide(0.75), Decision::Positive);
        assert_eq!(p.decide(0.74), Decision::Negative);
        assert_eq!(p.cost(Decision::Positive, false), 3.0);
        assert_eq!(p.cost(Decision::Negative, true), 1.0);
        assert_eq!(p.cost(Decision::Negative, false), 0.0);
        assert!(Penalties::new(-1.0, 1.0).is_err());
        assert!(Penalties::new(1.0, f64::NAN).is_err());
    }

    /// `∫_{x0}^{x1} f` by 2-point Gauss–Legendre (exact for cubics).
    fn gauss2(x0: f64, x1: f64, f: impl Fn(f64) -> f64) -> f64 {
        let (mid, half) = (0.5 * (x0 + x1), 0.5 * (x1 - x0));
        let d = half / 3f64.sqrt();
        half * (f(mid - d) + f(mid + d))
    }

    /// [`PenaltyDist::expected_costs`] for `uniform:lo:hi` by 2-point Gauss–Legendre on
    /// each piece of the outer integral (exact for the cubic pieces).
    fn gauss_costs(lo: f64, hi: f64, pi: f64) -> (f64, f64) {
        let rho = pi / (1.0 - pi);
        let h = hi - lo;
        let t = |b: f64| (rho * b).clamp(lo, hi);
        let fpos = |b: f64| (t(b).powi(2) - lo * lo) / (2.0 * h);
        let fneg = |b: f64| b * (1.0 - (t(b) - lo) / h);
        let b1 = (lo / rho).clamp(lo, hi);
        let b2 = (hi / rho).clamp(lo, hi);
        let (mut a, mut n) = (0.0, 0.0);
        for (x0, x1) in [(lo, b1), (b1, b2), (b2, hi)] {
            if x1 > x0 {
                a += gauss2(x0, x1, fpos);
                n += gauss2(x0, x1, fneg);
            }
        }
        (a / h, n / h)
    }

    #[test]
    fn uniform_closed_form_matches_gauss_legendre() {
        for (lo, hi) in [(1.0, 10.0), (0.0, 1.0), (2.0, 2.5), (1e-3, 1e3)] {
            let d = PenaltyDist::uniform(lo, hi).unwrap();
            for i in 1..400 {
                let pi = f64::from(i) / 400.0;
                for pi in [pi, pi * 1e-6, 1.0 - pi * 1e-6] {
                    let (a, n) = d.expected_costs(pi);
                    let (ga, gn) = gauss_costs(lo, hi, pi);
                    let scale = 0.5 * (lo + hi);
                    assert_relative_eq!(a, ga, epsilon = 1e-13 * scale, max_relative = 1e-12);
                    assert_relative_eq!(n, gn, epsilon = 1e-13 * scale, max_relative = 1e-12);
                }
            }
        }
    }

    #[test]
    fn uniform_expected_costs_match_a_grid_average() {
        let d = PenaltyDist::uniform(1.0, 10.0).unwrap();
        for pi in [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
            let (a, b) = d.expected_costs(pi);
            // Midpoint grids of different sizes, so that no grid point is a tie.
            let (n, n2) = (600, 599);
            let (mut ga, mut gb) = (0.0, 0.0);
            for i in 0..n {
                for j in 0..n2 {
                    let fp = 1.0 + 9.0 * (i as f64 + 0.5) / n as f64;
                    let fnn = 1.0 + 9.0 * (j as f64 + 0.5) / n2 as f64;
                    match Penalties::new(fp, fnn).unwrap().decide(pi) {
                        Decision::Positive => ga += fp,
                        Decision::Negative => gb += fnn,
                    }
                }
            }
            let nn = (n * n2) as f64;
            assert_relative_eq!(a, ga / nn, epsilon = 2e-3);
            assert_relative_eq!(b, gb / nn, epsilon = 2e-3);
        }
        assert_eq!(d.expected_costs(1.0), (5.5, 0.0));
        assert_eq!(d.expected_costs(0.0), (0.0, 5.5));
        // Symmetric penalties: at π = ½ every query is Pos (ties go to Pos) half the time.
        assert_relative_eq!(
            d.expected_min_penalty(0.5),
            d.expected_costs(0.5).0 * 0.5 + d.expected_costs(0.5).1 * 0.5
        );
        assert!(PenaltyDist::uniform(2.0, 2.0).is_err());
    }
}
