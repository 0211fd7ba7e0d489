//! Importance distributions of the items of a stream (Section 6.1.2 [SBF]).

use crate::error::ModelError;
use serde::Serialize;
use std::fmt;

/// A distribution of integer importance values `lo..=hi` (Section 4.3 [SBF]: importance
/// values are integers `1..Z`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportanceDist {
    /// Smallest importance with positive weight.
    lo: u32,
    /// `pmf[i]` is the probability of importance `lo + i`.
    pmf: Vec<f64>,
    /// How it was specified (`linear:1:50`, ...).
    spec: String,
}

impl ImportanceDist {
    /// Largest importance value accepted.
    pub const IMP_MAX: u32 = 10_000;

    fn check_bounds(lo: u32, hi: u32) -> Result<(), ModelError> {
        if !(1..=Self::IMP_MAX).contains(&lo) || !(lo..=Self::IMP_MAX).contains(&hi) {
            return Err(ModelError::invalid(
                "importance",
                format!("{lo}..{hi}"),
                format!("1 <= lo <= hi <= {}", Self::IMP_MAX),
            ));
        }
        Ok(())
    }

    /// Every importance in `lo..=hi` equally likely (the "linear" dataset, Figure 2(b)).
    ///
    /// # Errors
    /// Bounds outside `1 <= lo <= hi <= IMP_MAX`.
    pub fn linear(lo: u32, hi: u32) -> Result<Self, ModelError> {
        Self::check_bounds(lo, hi)?;
        let n = (hi - lo + 1) as usize;
        Ok(Self {
            lo,
            pmf: vec![1.0 / n as f64; n],
            spec: format!("linear:{lo}:{hi}"),
        })
    }

    /// `Pr(i) ∝ e^(−rate·(i − lo))` on `lo..=hi` (the "exponential" dataset, Figure 2(c):
    /// more items of low importance).
    ///
    /// # Errors
    /// Bad bounds, or `rate` negative or not finite.
    pub fn exponential(lo: u32, hi: u32, rate: f64) -> Result<Self, ModelError> {
        Self::check_bounds(lo, hi)?;
        if !(rate >= 0.0 && rate.is_finite()) {
            return Err(ModelError::invalid(
                "importance rate",
                rate,
                "0 <= rate < inf",
            ));
        }
        let w: Vec<f64> = (0..=(hi - lo))
            .map(|j| (-rate * f64::from(j)).exp())
            .collect();
        let total: f64 = w.iter().sum();
        Ok(Self {
            lo,
            pmf: w.iter().map(|x| x / total).collect(),
            spec: format!("exponential:{lo}:{hi}:{rate}"),
        })
    }

    /// An empirical histogram: `(importance, count or weight)` pairs.
    ///
    /// # Errors
    /// An importance outside `1..=IMP_MAX`, a negative or non-finite weight, or no
    /// positive weight.
    pub fn histogram(pairs: &[(u32, f64)]) -> Result<Self, ModelError> {
        let bad = |v: String| {
            ModelError::invalid(
                "importance",
                v,
                format!(
                    "pairs imp=weight with 1 <= imp <= {} and weights >= 0, not all 0",
                    Self::IMP_MAX
                ),
            )
        };
        if pairs.is_empty() {
            return Err(bad("an empty histogram".into()));
        }
        for &(i, w) in pairs {
            if !((1..=Self::IMP_MAX).contains(&i) && w >= 0.0 && w.is_finite()) {
                return Err(bad(format!("{i}={w}")));
            }
        }
        let lo = pairs.iter().map(|p| p.0).min().expect("non-empty");
        let hi = pairs.iter().map(|p| p.0).max().expect("non-empty");
        let mut pmf = vec![0.0; (hi - lo + 1) as usize];
        for &(i, w) in pairs {
            pmf[(i - lo) as usize] += w;
        }
        let total: f64 = pmf.iter().sum();
        if !(total > 0.0) {
            return Err(bad("all weights zero".into()));
        }
        pmf.iter_mut().for_each(|x| *x /= total);
        let spec = format!(
            "hist:{}",
            pairs
                .iter()
                .map(|(i, w)| format!("{i}={w}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        Ok(Self { lo, pmf, spec })
    }

    /// Parses `linear:LO:HI`, `exponential:LO:HI:RATE` or `hist:I=W,I=W,...`.
    ///
    /// # Errors
    /// A malformed spec (named `importance`, with the accepted forms).
    pub fn parse(spec: &str) -> Result<Self, ModelError> {
        let forms = "linear:LO:HI | exponential:LO:HI:RATE | hist:IMP=WEIGHT,...";
        let bad = || ModelError::invalid("importance", spec, forms);
        let parts: Vec<&str> = spec.trim().split(':').collect();
        let int = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
        match parts.as_slice() {
            ["linear", lo, hi] => Self::linear(int(lo)?, int(hi)?),
            ["exponential", lo, hi, rate] => {
                let rate = rate.trim().parse::<f64>().map_err(|_| bad())?;
                Self::exponential(int(lo)?, int(hi)?, rate)
            }
            ["hist", body] => {
                let pairs = body
                    .split(',')
                    .map(|kv| {
                        let (i, w) = kv.split_once('=').ok_or_else(bad)?;
                        Ok((int(i)?, w.trim().parse::<f64>().map_err(|_| bad())?))
                    })
                    .collect::<Result<Vec<_>, ModelError>>()?;
                Self::histogram(&pairs)
            }
            _ => Err(bad()),
        }
    }

    /// Smallest importance value of the support.
    pub fn lo(&self) -> u32 {
        self.lo
    }
    /// Largest importance value of the support (`Z`).
    pub fn hi(&self) -> u32 {
        self.lo + self.pmf.len() as u32 - 1
    }
    /// `(importance, probability)` for every value of the support, zero weights included.
    pub fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.pmf
            .iter()
            .enumerate()
            .map(move |(j, &p)| (self.lo + j as u32, p))
    }
    /// `Pr(importance = i)`.
    pub fn pmf(&self, i: u32) -> f64 {
        if i < self.lo {
            return 0.0;
        }
        self.pmf.get((i - self.lo) as usize).copied().unwrap_or(0.0)
    }
    /// Mean importance.
    pub fn mean(&self) -> f64 {
        self.iter().map(|(i, p)| f64::from(i) * p).sum()
    }
    /// The inverse CDF: the importance whose cumulative probability first reaches `u`
    /// (`u` in `[0, 1)`); used by samplers.
    pub fn quantile(&self, u: f64) -> u32 {
        let mut acc = 0.0;
        for (i, p) in self.iter() {
            acc += p;
            if u < acc {
                return i;
            }
        }
        self.hi()
    }
    /// The spec string.
    pub fn spec(&self) -> &str {
        &self.spec
    }
}

impl fmt::Display for ImportanceDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec)
    }
}
