//! The Stable Bloom filter on a stream with repeats, described by its workload `D(·)`
//! ([`crate::workload::Distinct`]): stable point, FP, and FN by age.
//!
//! # Model
//! Each insertion decrements a given cell with probability `q = P/m` (independently from
//! step to step), then sets the item's `K` cells to `Max`; a repeat sets the cells its
//! earlier occurrences set. A cell is zero when it has been decremented `Max` times since
//! it was last set. Counting steps back from the query, let `S` be the number of steps
//! since the cell's last set and `b(s)` the probability that the `Max`-th decrement
//! (counted back) falls on step `s`, a negative binomial law. Summing by parts,
//!
//! ```text
//! Pr(cell = 0) = Σ_{s ≥ 1} Pr(S ≥ s)·b(s),     b(s) = q^Max·C(s−1, Max−1)·(1 − q)^(s−Max)
//! Pr(S ≥ s)    = (1 − K/m)^D(s)                 no distinct item of the last s arrivals hit the cell
//! ```
//! since each distinct item among the last `s` arrivals holds the cell among its `K`
//! with probability `K/m`, whatever how often it arrived. Then:
//!
//! ```text
//! stable point     π0 = Σ_{s≥1} (1 − K/m)^D(s)·b(s)                   FP = (1 − π0)^K
//! item x, age a    z_x(a) = Σ_{s=1}^{a} (1 − K/m)^D_{−x}(s)·b(s)        FN_x(a) = 1 − (1 − z_x(a))^K
//! ```
//! where the age `a` counts the insertions since `x`'s last insertion and `D_{−x}` the
//! distinct *other* items among them ([`Distinct::d_excluding`]: the arrivals after `x`'s
//! last insertion are drawn from the stream conditioned on not being `x`). With `D(s) = s`
//! the first sum is Deng & Rafiei's closed form `(1/(1 + 1/(P(1/K − 1/m))))^Max` (the
//! generating function of `b` at `1 − K/m`) and the second the chain
//! [`SbfParams::cell_zero_at_age`]; both are tested to 1e-10.
//!
//! A repeating stream writes fewer distinct items per step, so more cells are zero: the
//! FP falls and the FN of an item of a given age rises (tested: both move that way for
//! every workload).
//!
//! # Assumptions and accuracy
//! * `D(s)` enters at its mean: the exact `Pr(S ≥ s)` is `E[(1 − K/m)^X_s]` over the
//!   random distinct count `X_s`, larger by a factor about `1 + (K/m)²·Var(X_s)/2`
//!   (Jensen), below 1e-3 wherever `K·√D(s)/m` is below 0.05.
//! * An item's `K` cells, and a probe's, are treated as independent (the usual Bloom
//!   assumption; they share the stream, a second-order correlation of the same size).
//! * `D(·)` is exact for the uniform, Zipf and window-repeats streams
//!   ([`crate::workload`]); the validation experiment `sbf_stream` measures the whole
//!   model against the reference filter on those three streams.
//!
//! # Numerics
//! The sum is taken term by term up to [`EXACT_STEPS`]; beyond, as the integral of the
//! same terms over real `s` (the binomial coefficient as a product) by 8-point
//! Gauss–Legendre on intervals over which the log of the term changes by at most 1. Past
//! [`EXACT_STEPS`] the terms that still matter vary on scales of hundreds of steps at
//! least (`(1 − K/m)^D(s)` above 1e-300 forces `K·D'(s)/m ≤ 690/s` for a concave `D`,
//! and `b` is then past its fast-decaying regime), so the midpoint rule of the sum is
//! exact to about 1e-8. The sum stops once the rest is below 1e-17 of it (the tail is at
//! most `Pr(S ≥ s)·Pr(Bin(s, q) < Max)`).

use super::sbf::{fn_from_zero, SbfParams};
use crate::error::ModelError;
use crate::numeric::{gauss_legendre_unit, log_sum_exp, probability, CompensatedSum};
use crate::timing::prior::StreamPrior;
use crate::workload::Distinct;

/// Steps summed term by term before the sum turns into an integral.
pub const EXACT_STEPS: u64 = 1 << 18;

/// Item classes of a Zipf stream averaged over in [`SbfParams::fn_at_age_on_prior`].
pub const PRIOR_CLASSES: usize = 96;

impl SbfParams {
    /// The stable-point fraction of zero cells on a stream described by `workload`.
    ///
    /// # Formula
    /// `π0 = Σ_{s≥1} (1 − K/m)^D(s)·b(s)`, `b` the negative binomial law of the `Max`-th
    /// decrement (module doc). With `D(s) = s` it is [`SbfParams::zero_fraction`].
    pub fn zero_fraction_on(&self, workload: &Distinct) -> f64 {
        probability(zero_sum(self, |s| workload.d(s), None))
    }

    /// The FP of a never-inserted item at the stable point on a stream described by
    /// `workload`: `(1 − π0)^K` with `π0` of [`SbfParams::zero_fraction_on`].
    pub fn fp_on(&self, workload: &Distinct) -> f64 {
        let nonzero = 1.0 - self.zero_fraction_on(workload);
        probability((f64::from(self.k()) * nonzero.ln()).exp())
    }

    /// Probability that one of the cells of an item `x` (arrival probability `px`) is
    /// zero `age` insertions after `x`'s last insertion, at the stable point of a stream
    /// described by `workload`: `z_x(a) = Σ_{s=1}^{a} (1 − K/m)^D_{−x}(s)·b(s)`.
    ///
    /// # Errors
    /// `px` outside `[0, 1)`.
    pub fn cell_zero_at_age_on(
        &self,
        workload: &Distinct,
        px: f64,
        age: u64,
    ) -> Result<f64, ModelError> {
        if !(0.0..1.0).contains(&px) {
            return Err(ModelError::invalid("px", px, "0 <= px < 1"));
        }
        Ok(probability(zero_sum(
            self,
            |s| workload.d_excluding(px, s),
            Some(age),
        )))
    }

    /// FN of an item `x` (arrival probability `px`; 0 for the window-repeats stream,
    /// whose items have no fixed popularity) queried `age` insertions after its last
    /// insertion, on a stream described by `workload`: `1 − (1 − z_x(a))^K`.
    ///
    /// # Errors
    /// `px` outside `[0, 1)`.
    pub fn fn_at_age_on(&self, workload: &Distinct, px: f64, age: u64) -> Result<f64, ModelError> {
        Ok(fn_from_zero(
            self.cell_zero_at_age_on(workload, px, age)?,
            self.k(),
        ))
    }

    /// The mean FN of the items of a uniform or Zipf stream whose last insertion was `age`
    /// insertions ago: [`SbfParams::fn_at_age_on`] averaged over the items, an item of
    /// arrival probability `p_x` weighted by `p_x(1 − p_x)^age` (it arrived at that step
    /// and not since). The Zipf stream is split in [`PRIOR_CLASSES`] bands of `p_x`
    /// ([`StreamPrior::classes`]) and its `D(·)` is Eq. (15) [TBF] tabulated
    /// ([`Distinct::zipf_tabulated`]; Eq. (17) is 10% low past `4|U|` arrivals).
    ///
    /// # Errors
    /// Never for a valid prior (kept for the `px` checks of the per-item form).
    pub fn fn_at_age_on_prior(&self, prior: &StreamPrior, age: u64) -> Result<f64, ModelError> {
        let workload = prior_workload(prior);
        let (mut num, mut den) = (0.0, 0.0);
        for (w, px) in prior.classes(PRIOR_CLASSES) {
            let weight = w * (age as f64 * (-px).ln_1p()).exp();
            if weight <= 0.0 {
                continue;
            }
            num += weight * self.fn_at_age_on(&workload, px, age)?;
            den += weight;
        }
        Ok(probability(num / den))
    }
}

/// The workload of a prior stream: Eq. (16) [TBF] for uniform, Eq. (15) [TBF] tabulated
/// for Zipf.
pub fn prior_workload(prior: &StreamPrior) -> Distinct {
    match *prior {
        StreamPrior::Uniform { .. } => prior.distinct(),
        StreamPrior::Zipf { universe, .. } => Distinct::zipf_tabulated(universe),
    }
}

/// `ln C(n, j)` for real `n ≥ j − 1`: `Σ_{i<j} ln(n − i) − ln j!`, term by term
/// (`ln Γ(n + 1) − ln Γ(n − j + 1)` cancels: 6e-7 relative at `n = 5e9`).
fn ln_choose(n: f64, j: u32) -> f64 {
    (0..j)
        .map(|i| (n - f64::from(i)).ln() - f64::from(i + 1).ln())
        .sum()
}

/// `Σ_{s=1}^{horizon} (1 − K/m)^d(s)·b(s)` (module doc), `horizon = None` for `∞`.
fn zero_sum(p: &SbfParams, d: impl Fn(f64) -> f64, horizon: Option<u64>) -> f64 {
    let (m, k, max) = (p.m() as f64, f64::from(p.k()), f64::from(p.max()));
    let q = p.p() as f64 / m;
    let lam = (-k / m).ln_1p();
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    // ln b(s) for real s ≥ Max.
    let ln_b = |s: f64| max * lq + ln_choose(s - 1.0, p.max() - 1) + (s - max) * l1q;
    // ln Pr(Bin(s, q) < Max): the tail bound's second factor.
    let ln_below = |s: f64| {
        let terms: Vec<f64> = (0..p.max())
            .map(f64::from)
            .filter(|&j| j <= s)
            .map(|j| ln_choose(s, j as u32) + j * lq + (s - j) * l1q)
            .collect();
        log_sum_exp(&terms)
    };
    let last = horizon.unwrap_or(u64::MAX);
    let mut acc = CompensatedSum::new();
    let done = |acc: &CompensatedSum, s: f64| {
        let rest = lam * d(s) + ln_below(s);
        rest < -690.0 || rest < (acc.value() * 1e-17).ln()
    };
    // Term by term.
    let first = u64::from(p.max());
    if first > last {
        return 0.0;
    }
    let mut lb = ln_b(first as f64);
    let exact_end = last.min(EXACT_STEPS);
    let mut s = first;
    loop {
        acc.add((lam * d(s as f64) + lb).exp());
        if s >= exact_end {
            break;
        }
        if s % 1024 == 0 && done(&acc, s as f64) {
            return acc.value();
        }
        lb += (s as f64 / (s as f64 - max + 1.0)).ln() + l1q;
        s += 1;
    }
    if s >= last {
        return acc.value();
    }
    // The rest as an integral over real s (midpoint rule of the sum).
    let nodes = gauss_legendre_unit(8);
    let ln_f = |x: f64| lam * d(x) + ln_b(x);
    let end = if last == u64::MAX {
        f64::INFINITY
    } else {
        last as f64 + 0.5
    };
    let mut x = s as f64 + 0.5;
    let mut h = x * 0.01;
    while x < end {
        if done(&acc, x) {
            break;
        }
        let width = h.min(end - x);
        let at = |t: f64| x + width * t;
        let vals: Vec<f64> = nodes.iter().map(|&(t, _)| ln_f(at(t))).collect();
        let (lo, hi) = vals
            .iter()
            .chain([ln_f(x), ln_f(x + width)].iter())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        if hi - lo > 1.0 && width > 1.0 {
            h = width / 2.0;
            continue;
        }
        let part: f64 = nodes
            .iter()
            .zip(&vals)
            .map(|(&(_, w), &v)| w * v.exp())
            .sum();
        acc.add(part * width);
        x += width;
        h = (width * 1.5).min(x * 0.05);
    }
    acc.value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apbf::WindowDuplicates;
    use approx::assert_relative_eq;

    #[test]
    fn distinct_stream_is_the_closed_form_and_the_chain() {
        for (m, k, max, p) in [
            (512u64, 4u32, 5u32, 5u64),
            (1000, 2, 1, 5),
            (1 << 16, 4, 4, 7),
            (1 << 20, 4, 3, 10),
            (1 << 30, 8, 15, 3),
            (50, 3, 255, 40),
        ] {
            let s = SbfParams::new(m, k, max, p).unwrap();
            assert_relative_eq!(
                s.zero_fraction_on(&Distinct::Identity),
                s.zero_fraction(),
                max_relative = 1e-10
            );
            assert_relative_eq!(s.fp_on(&Distinct::Identity), s.fp(), max_relative = 1e-9);
            for age in [0u64, 1, 10, m / 4, m, 3 * m, 40 * m] {
                let z = s
                    .cell_zero_at_age_on(&Distinct::Identity, 0.0, age)
                    .unwrap();
                assert_relative_eq!(
                    z,
                    s.cell_zero_at_age(age),
                    max_relative = 1e-9,
                    epsilon = 1e-300
                );
            }
        }
    }

    #[test]
    fn repeats_raise_zeros_and_fn_and_lower_fp() {
        let s = SbfParams::new(4096, 4, 3, 6).unwrap();
        let dup = Distinct::from(WindowDuplicates::new(0.5, 4096).unwrap());
        let uni = Distinct::Uniform { universe: 2000 };
        let zipf = Distinct::zipf_tabulated(1 << 12);
        for w in [&dup, &uni, &zipf] {
            assert!(s.zero_fraction_on(w) > s.zero_fraction());
            assert!(s.fp_on(w) < s.fp());
            for age in [100u64, 1000, 5000] {
                let f = s.fn_at_age_on(w, 1e-4, age).unwrap();
                assert!(f > s.fn_at_age(age), "{w:?} {age}");
            }
        }
        // FN rises with age.
        let a = s.fn_at_age_on(&uni, 1.0 / 2000.0, 500).unwrap();
        let b = s.fn_at_age_on(&uni, 1.0 / 2000.0, 5000).unwrap();
        assert!(b > a);
    }

    #[test]
    fn bad_px_is_named() {
        let s = SbfParams::new(512, 4, 5, 5).unwrap();
        for px in [-0.1, 1.0, f64::NAN] {
            let e = s.fn_at_age_on(&Distinct::Identity, px, 5).unwrap_err();
            assert!(e.to_string().contains("px"), "{e}");
        }
    }
}
