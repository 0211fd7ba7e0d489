//! The continuous relaxation: real bits per filter, real `k`, solved by a Lagrange
//! multiplier. It is the discrete solver's starting point.
//!
//! # Formula
//! At the optimal real `k = (m/n)·ln 2` a filter of `m` bits holding `n` items has
//! `p = (1 − e^(−kn/m))^k = e^(−ln²2 · m/n)`. With weights `w_i` (lookups reaching
//! filter `i`, per lookup):
//! ```text
//! minimise  R = Σ_i w_i · e^(−ln²2 · m_i/n_i)   subject to  Σ_i m_i = M,  m_i ≥ 0
//! KKT:      w_i · (ln²2/n_i) · p_i = μ   where m_i > 0;   w_i · ln²2/n_i ≤ μ  where m_i = 0
//!   ⇒       p_i = min(1, t · n_i/w_i),   t = μ/ln²2,
//!           m_i = (n_i/ln²2) · max(0, ln(w_i/(t·n_i)))
//! ```
//! For zero-result lookups of a leveled LSM tree (`w_i = 1`) this is Monkey's result:
//! every level's FP is proportional to its size, `p_i = R · n_i/N`, and for geometric
//! levels of ratio `T` (many levels) `R = e^(−ln²2·M/N) · T^(T/(T−1))/(T−1)` (Dayan,
//! Athanassoulis, Idreos, *Monkey: Optimal Navigable Key-Value Store*, SIGMOD 2017,
//! leveling).
//!
//! The inverse (least `M` for `R ≤ X`) has the same KKT form `p_i = min(1, t·n_i/w_i)`.
//!
//! # Numerics
//! With `u = ln t` and `a_i = ln(w_i/n_i)`, `Σ m_i(u)` is piecewise linear and decreasing
//! in `u` and `R(u)` is increasing: Brent's method (argmin) finds the root on a bracket
//! whose signs are checked first; the active set at that root then gives `u` exactly (one
//! linear equation), so `Σ m_i = M` holds to rounding.

use super::spec::FilterSpec;
use bfopt_models::ModelError;
use serde::Serialize;
use std::f64::consts::LN_2;

/// `ln² 2`: bits per item per nat of `−ln p` at the optimal `k`.
pub const LN2_SQ: f64 = LN_2 * LN_2;

/// The continuous optimum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Continuous {
    /// Real bits per filter (0 for a filter with no items or no lookups).
    pub bits: Vec<f64>,
    /// Each filter's FP `e^(−ln²2·m_i/n_i)` (1 with no bits, 0 with no items).
    pub fp: Vec<f64>,
    /// `t = μ/ln²2` of the KKT conditions: `p_i = min(1, t·n_i/w_i)` (`None` when no
    /// filter is both probed and non-empty).
    pub multiplier: Option<f64>,
    /// `Σ w_i · p_i`, expected false positives per lookup.
    pub expected_fp: f64,
    /// `Σ m_i`, bits in all.
    pub budget_bits: f64,
}

/// The active filters' `(index, n_i, w_i, a_i = ln(w_i/n_i))`.
fn active(specs: &[FilterSpec]) -> Vec<(usize, f64, f64, f64)> {
    specs
        .iter()
        .enumerate()
        .filter(|(_, s)| s.active())
        .map(|(i, s)| {
            let (n, w) = (s.items() as f64, s.weight());
            (i, n, w, (w / n).ln())
        })
        .collect()
}

/// The continuous optimum for `bits` in all.
///
/// # Errors
/// `bits` negative or not finite; [`ModelError::NoConvergence`] if the root finder fails
/// (not expected: the bracket is checked first).
pub fn for_budget(specs: &[FilterSpec], bits: f64) -> Result<Continuous, ModelError> {
    if !(bits >= 0.0 && bits.is_finite()) {
        return Err(ModelError::invalid("bits", bits, "a finite number >= 0"));
    }
    let act = active(specs);
    if act.is_empty() {
        return Ok(finish(specs, &act, None));
    }
    let a_max = act.iter().map(|x| x.3).fold(f64::NEG_INFINITY, f64::max);
    let a_min = act.iter().map(|x| x.3).fold(f64::INFINITY, f64::min);
    let n_total: f64 = act.iter().map(|x| x.1).sum();
    let target = bits * LN2_SQ;
    // ln²2 · Σ m_i(u) − ln²2 · M: > 0 below u_lo = a_min − ln²2·M/N (each term exceeds
    // n_i·ln²2·M/N), −ln²2·M at u_hi = a_max.
    let gap = |u: f64| act.iter().map(|x| x.1 * (x.3 - u).max(0.0)).sum::<f64>() - target;
    if bits == 0.0 {
        return Ok(finish(specs, &act, Some(a_max.exp())));
    }
    // One nat below the bracket's end keeps its sign strict despite rounding.
    let lo = a_min - target / n_total - 1.0;
    let u = root(&gap, lo, a_max)?;
    // Exact on the active set at the root: Σ_A n_i·(a_i − u) = ln²2·M.
    let (sn, sna) = act
        .iter()
        .filter(|x| x.3 > u)
        .fold((0.0, 0.0), |(sn, sna), x| (sn + x.1, sna + x.1 * x.3));
    let exact = (sna - target) / sn;
    let u = if gap(exact).abs() <= gap(u).abs() {
        exact
    } else {
        u
    };
    Ok(finish(specs, &act, Some(u.exp())))
}

/// The continuous optimum reaching `target` expected false positives per lookup with
/// the least bits (0 bits when every probed filter answering yes already meets it).
///
/// # Errors
/// `target` not positive and finite; [`ModelError::NoConvergence`] as [`for_budget`].
pub fn for_target(specs: &[FilterSpec], target: f64) -> Result<Continuous, ModelError> {
    if !(target > 0.0 && target.is_finite()) {
        return Err(ModelError::invalid(
            "target_fp",
            target,
            "0 < target_fp < inf",
        ));
    }
    let act = active(specs);
    let w_total: f64 = act.iter().map(|x| x.2).sum();
    if act.is_empty() || target >= w_total {
        let t = act.iter().map(|x| x.3).fold(f64::NEG_INFINITY, f64::max);
        return Ok(finish(specs, &act, (!act.is_empty()).then(|| t.exp())));
    }
    let a_max = act.iter().map(|x| x.3).fold(f64::NEG_INFINITY, f64::max);
    let n_total: f64 = act.iter().map(|x| x.1).sum();
    // R(u) − X: < 0 at u = ln(X/N) − 1 (R ≤ e^u·N), W − X > 0 at a_max.
    let excess = |u: f64| {
        act.iter()
            .map(|x| x.2 * (u - x.3).min(0.0).exp())
            .sum::<f64>()
            - target
    };
    let u = root(&|u| -excess(u), (target / n_total).ln() - 1.0, a_max)?;
    // Exact on the active set: Σ_{not A} w_i + e^u·Σ_A n_i = X.
    let (sw_out, sn_in) = act.iter().fold((0.0, 0.0), |(w, n), x| {
        if x.3 > u {
            (w, n + x.1)
        } else {
            (w + x.2, n)
        }
    });
    let exact = ((target - sw_out) / sn_in).ln();
    let u = if exact.is_finite() && excess(exact).abs() <= excess(u).abs() {
        exact
    } else {
        u
    };
    Ok(finish(specs, &act, Some(u.exp())))
}

/// Bits and FPs from the multiplier `t`.
fn finish(specs: &[FilterSpec], act: &[(usize, f64, f64, f64)], t: Option<f64>) -> Continuous {
    let mut bits = vec![0.0; specs.len()];
    let mut fp: Vec<f64> = specs
        .iter()
        .map(|s| if s.items() == 0 { 0.0 } else { 1.0 })
        .collect();
    if let Some(t) = t {
        let u = t.ln();
        for &(i, n, _, a) in act {
            let nats = (a - u).max(0.0);
            bits[i] = n * nats / LN2_SQ;
            fp[i] = (-nats).exp();
        }
    }
    let expected_fp = specs.iter().zip(&fp).map(|(s, p)| s.weight() * p).sum();
    Continuous {
        budget_bits: bits.iter().sum(),
        bits,
        fp,
        multiplier: t,
        expected_fp,
    }
}

/// Brent's method (argmin, [`bfopt_models::numeric::brent_root`]) for `f` with
/// `f(lo) ≥ 0 ≥ f(hi)`; an end where `f` is exactly 0 is the root.
fn root(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64) -> Result<f64, ModelError> {
    if f(lo) == 0.0 {
        return Ok(lo);
    }
    if f(hi) == 0.0 {
        return Ok(hi);
    }
    let tol = 1e-14 * (1.0 + lo.abs().max(hi.abs()));
    bfopt_models::numeric::brent_root(f, lo, hi, tol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocate::lsm::{LsmLookups, LsmTree};
    use bfopt_models::classic::Layout;
    use proptest::prelude::*;

    fn spec(n: u64, w: f64) -> FilterSpec {
        FilterSpec::new("f", n, w, Layout::Standard).unwrap()
    }

    /// Checks the KKT conditions of the continuous optimum: equal marginal FP per bit
    /// `w_i·ln²2·p_i/n_i = ln²2·t` on the filters with bits, a smaller one (at `p = 1`)
    /// on those without, and the budget spent.
    fn assert_kkt(specs: &[FilterSpec], c: &Continuous, bits: f64) {
        let t = c.multiplier.unwrap();
        for (i, s) in specs.iter().enumerate() {
            if !s.active() {
                assert_eq!(c.bits[i], 0.0);
                continue;
            }
            let marginal = s.weight() * c.fp[i] / s.items() as f64;
            if c.bits[i] > 0.0 {
                assert!(
                    (marginal / t - 1.0).abs() < 1e-9,
                    "filter {i}: {marginal} vs {t}"
                );
            } else {
                assert_eq!(c.fp[i], 1.0);
                assert!(marginal <= t * (1.0 + 1e-9), "filter {i}: {marginal} > {t}");
            }
        }
        assert!(
            (c.budget_bits - bits).abs() <= 1e-9 * bits.max(1.0),
            "{c:?}"
        );
    }

    #[test]
    fn monkey_fp_proportional_to_level_size() {
        // A leveled tree, zero-result lookups: p_i = R·n_i/N, so p_i/p_{i+1} = n_i/n_{i+1}
        // ≈ 1/T, and R follows Monkey's closed form as the levels grow many.
        let tree = LsmTree::new(12, 4, 4_000_000_000, LsmLookups::ZeroResult).unwrap();
        let specs = tree.filters(Layout::Standard).unwrap();
        let n: f64 = specs.iter().map(|s| s.items() as f64).sum();
        let m = 10.0 * n;
        let c = for_budget(&specs, m).unwrap();
        assert_kkt(&specs, &c, m);
        let r = c.expected_fp;
        for (s, p) in specs.iter().zip(&c.fp) {
            let want = r * s.items() as f64 / n;
            assert!((p / want - 1.0).abs() < 1e-9, "{p} vs {want}");
        }
        // Level sizes are whole entries: the ratio is 1/T up to rounding of the smallest.
        for (p, s) in c.fp.windows(2).zip(specs.windows(2)) {
            let sizes = s[0].items() as f64 / s[1].items() as f64;
            assert!((p[0] / p[1] / sizes - 1.0).abs() < 1e-9, "{p:?}");
            assert!((sizes - 0.25).abs() < 1.0 / s[0].items() as f64, "{sizes}");
        }
        // R = e^(−ln²2·M/N)·T^(T/(T−1))/(T−1) (Monkey, leveling); 12 levels leave a
        // relative gap below 1e-5 (the tail of Σ f_j ln f_j beyond level 12).
        let closed = (-LN2_SQ * 10.0).exp() * 4f64.powf(4.0 / 3.0) / 3.0;
        assert!((r / closed - 1.0).abs() < 1e-5, "{r} vs {closed}");
    }

    #[test]
    fn inverse_meets_the_target_with_the_budget_of_the_forward_solve() {
        let specs = [
            spec(100, 1.0),
            spec(10_000, 1.0),
            spec(1000, 0.2),
            spec(0, 1.0),
        ];
        let fwd = for_budget(&specs, 50_000.0).unwrap();
        let inv = for_target(&specs, fwd.expected_fp).unwrap();
        assert!((inv.budget_bits / 50_000.0 - 1.0).abs() < 1e-9, "{inv:?}");
        assert!((inv.expected_fp / fwd.expected_fp - 1.0).abs() < 1e-9);
        // A target every probed filter already meets by answering yes needs no bits.
        assert_eq!(for_target(&specs, 2.2).unwrap().budget_bits, 0.0);
        assert!(for_target(&specs, 0.0).is_err());
        assert!(for_budget(&specs, f64::NAN).is_err());
    }

    #[test]
    fn filters_without_lookups_or_items_get_no_bits() {
        let specs = [spec(100, 0.0), spec(0, 1.0), spec(100, 1.0)];
        let c = for_budget(&specs, 1000.0).unwrap();
        assert_eq!(c.bits, vec![0.0, 0.0, 1000.0]);
        assert_eq!(c.fp[1], 0.0);
        assert_eq!(c.fp[0], 1.0);
        assert_eq!(c.expected_fp, c.fp[2]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// KKT holds at the continuous optimum of random filter sets and budgets.
        #[test]
        fn kkt_holds(
            filters in prop::collection::vec((0u64..1_000_000, 0.0f64..5.0), 1..12),
            bits_per_item in 0.0f64..30.0,
        ) {
            let specs: Vec<FilterSpec> = filters.iter().map(|&(n, w)| spec(n, w)).collect();
            let n: f64 = specs.iter().filter(|s| s.active()).map(|s| s.items() as f64).sum();
            prop_assume!(n > 0.0);
            let bits = bits_per_item * n;
            let c = for_budget(&specs, bits).unwrap();
            assert_kkt(&specs, &c, bits);
            let inv = for_target(&specs, c.expected_fp).unwrap();
            if bits > 0.0 {
                prop_assert!((inv.budget_bits / bits - 1.0).abs() < 1e-6, "{} vs {bits}", inv.budget_bits);
            }
        }
    }
}
