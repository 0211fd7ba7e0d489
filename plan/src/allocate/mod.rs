//! One memory budget across many filters: the split of `M` bits over filters of
//! different sizes and lookup rates that minimises the expected false positives per
//! lookup (or the least `M` for a target), on integer bits and integer `k`.
//!
//! An LSM tree keeps a filter per level; a zero-result lookup probes every level, so the
//! tree's cost is the *sum* of the levels' FPs. Giving every level the same bits per key
//! (RocksDB's default) spends most bits on the largest level, where they buy least;
//! Monkey (Dayan, Athanassoulis, Idreos, SIGMOD 2017) showed that the optimum makes each
//! level's FP proportional to its size. Shards and tiers with different lookup rates are
//! the same problem with weights.
//!
//! | quantity | formula | where |
//! |---|---|---|
//! | objective | `R = Σ_i w_i · fp_i(m_i, k_i)`, `Σ_i m_i ≤ M` | [`allocate`] |
//! | continuous optimum (real `m`, real `k`) | `p_i = min(1, t·n_i/w_i)`, `m_i = (n_i/ln²2)·ln(1/p_i)` | [`lagrange`] |
//! | discrete optimum (integer bits and `k`) | exact law per filter, search from the continuous start | [`discrete`] |
//! | leveled LSM tree | `n_i = N·(T−1)·T^(i−1)/(T^L−1)` | [`LsmTree`] |
//! | model vs simulation | reference filters, zero-result lookups, Student t over epochs | [`simulate`] |
//!
//! # Example
//! A 7-level tree of ratio 10 with 10^9 entries and 10 bits per entry: the optimum
//! lowers the expected false positives of a zero-result lookup well below uniform's.
//! ```
//! use bfopt_models::classic::Layout;
//! use bfopt_plan::allocate::{allocate, Budget, LsmLookups, LsmTree};
//! let tree = LsmTree::new(7, 10, 1_000_000_000, LsmLookups::ZeroResult)?;
//! let filters = tree.filters(Layout::Standard)?;
//! let a = allocate(&Budget::memory(10_000_000_000)?, &filters)?;
//! assert!(a.optimal.bits <= 10_000_000_000);
//! assert!(a.optimal.expected_fp < 0.7 * a.uniform.expected_fp);
//! assert!(a.memory_saving > 0.05);
//! # Ok::<(), bfopt_models::ModelError>(())
//! ```
//!
//! # References
//! * N. Dayan, M. Athanassoulis, S. Idreos, "Monkey: Optimal Navigable Key-Value
//!   Store", SIGMOD 2017.
//! * P. Bose et al., "On the false-positive rate of Bloom filters", IPL 2008 (the exact
//!   law of [`bfopt_models::classic`]).

pub mod discrete;
pub mod lagrange;
mod lsm;
pub mod simulate;
mod spec;

pub use discrete::Law;
pub use lagrange::Continuous;
pub use lsm::{LsmLookups, LsmTree};
pub use spec::{Budget, FilterSpec, Goal};

use bfopt_models::classic::Layout;
use bfopt_models::ModelError;
use discrete::Curves;
use serde::Serialize;

/// One filter of an allocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilterAllocation {
    /// The filter's name.
    pub name: String,
    /// Distinct items `n`.
    pub items: u64,
    /// Lookups reaching it, per lookup.
    pub weight: f64,
    /// The layout.
    #[serde(flatten)]
    pub layout: Layout,
    /// Bits `m` (0: no filter, every lookup that reaches it goes on).
    pub bits: u64,
    /// Hash functions `k` (0 with no bits or no items).
    pub k: u32,
    /// `m/n` (0 for an empty filter).
    pub bits_per_item: f64,
    /// The filter's FP at `m`, `k`.
    pub fp: f64,
    /// The law that gave `fp`.
    pub law: Law,
}

/// A complete allocation: every filter, the bits spent and the objective.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// The filters, in input order.
    pub filters: Vec<FilterAllocation>,
    /// `Σ m_i`, bits spent (at most the budget).
    pub bits: u64,
    /// `Σ w_i · fp_i`, expected false positives per lookup.
    pub expected_fp: f64,
}

/// What the optimum needs, and uniform needs, to reach the same expected false positives.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EqualFp {
    /// The common level of expected false positives per lookup: uniform's at the budget
    /// (memory goal) or the target.
    pub expected_fp: f64,
    /// The least budget at which the optimum reaches it.
    pub optimal_bits: u64,
    /// The budget at which uniform reaches it: the budget itself (memory goal) or the
    /// least budget (target goal).
    pub uniform_bits: u64,
}

/// The result of [`allocate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Allocation {
    /// The goal asked.
    #[serde(flatten)]
    pub goal: Goal,
    /// The budget in bits: the one given, or the least that meets the target.
    pub budget_bits: u64,
    /// The discrete optimum.
    pub optimal: Choice,
    /// The same bits per item for every filter (RocksDB's default), at `budget_bits`.
    pub uniform: Choice,
    /// No filter on the largest filter's items (RocksDB's
    /// `optimize_filters_for_hits`), the same bits per item on the others.
    pub smaller_levels: Choice,
    /// The continuous optimum (real bits and `k`) the search started from.
    pub continuous: Continuous,
    /// `1 − R_optimal/R_uniform` at equal memory (0 if uniform's R is 0).
    pub fp_saving: f64,
    /// Budgets at equal expected false positives.
    pub equal_fp: EqualFp,
    /// `1 − optimal_bits/uniform_bits` at equal expected false positives.
    pub memory_saving: f64,
}

/// Budgets are bisected up to this many bits in all (`2^53`, the CLI's largest size).
const BUDGET_LIMIT: u64 = 1 << 53;

/// Splits one memory budget over `filters` to minimise the expected false positives per
/// lookup, or finds the least budget reaching a target; with the uniform and
/// "smaller levels only" allocations for comparison.
///
/// # Formula
/// ```text
/// minimise R = Σ_i w_i · fp_i(m_i, k_i)   over integer m_i ≥ 0, integer 1 ≤ k_i ≤ k_max,
///                                          subject to Σ_i m_i ≤ M
/// ```
/// `fp_i` is the exact classic law where computable within the budget's work limit, the
/// layout's model otherwise (see [`discrete`]).
///
/// # Accuracy
/// The search stops at an allocation that no move of `2^j` bits between two filters (or
/// from the unspent budget) improves, for every `j`; it is the brute-force optimum on the
/// small instances of the tests, and never worse than uniform by construction. The least
/// budget of the target goal is bisected to `10^-6` relative.
///
/// # Errors
/// No filters, or two with the same name; [`ModelError::Infeasible`] when no budget up to
/// 2^53 bits meets the target; [`ModelError::NoConvergence`] from the continuous solve
/// (not expected).
pub fn allocate(budget: &Budget, filters: &[FilterSpec]) -> Result<Allocation, ModelError> {
    check_filters(filters)?;
    let mut curves = Curves::new(filters, budget.k_max(), budget.exact_work());
    let unit = filters.iter().map(FilterSpec::unit_bits).min().unwrap_or(1);
    let (budget_bits, continuous, optimal) = match budget.goal() {
        Goal::Memory { bits } => {
            let c = lagrange::for_budget(filters, bits as f64)?;
            let m = discrete::solve(&mut curves, bits, &c.bits);
            (bits, c, m)
        }
        Goal::ExpectedFp { target } => {
            let guess = lagrange::for_target(filters, target)?.budget_bits;
            let (bits, m) = least_optimal(&mut curves, target, guess, unit)?;
            (bits, lagrange::for_budget(filters, bits as f64)?, m)
        }
    };
    let all = vec![true; filters.len()];
    let uniform = discrete::uniform(&curves, budget_bits, &all);
    let largest = (0..filters.len())
        .max_by_key(|&i| (filters[i].items(), i))
        .unwrap_or(0);
    let smaller: Vec<bool> = (0..filters.len()).map(|i| i != largest).collect();
    let smaller = discrete::uniform(&curves, budget_bits, &smaller);
    let optimal = choice(&mut curves, &optimal);
    let uniform = choice(&mut curves, &uniform);
    let smaller_levels = choice(&mut curves, &smaller);
    let equal_fp = match budget.goal() {
        Goal::Memory { bits } => {
            let x = uniform.expected_fp;
            let optimal_bits = if x > 0.0 {
                least_optimal(&mut curves, x, continuous_guess(filters, x), unit)?.0
            } else {
                bits
            };
            EqualFp {
                expected_fp: x,
                optimal_bits: optimal_bits.min(bits),
                uniform_bits: bits,
            }
        }
        Goal::ExpectedFp { target } => {
            let all = all.clone();
            let guess = budget_bits as f64 * 1.5;
            let (uniform_bits, _) =
                discrete::least_budget(target, guess, unit, BUDGET_LIMIT, |b| {
                    let m = discrete::uniform(&curves, b, &all);
                    (curves.objective(&m), m)
                })?;
            EqualFp {
                expected_fp: target,
                optimal_bits: budget_bits,
                uniform_bits,
            }
        }
    };
    let fp_saving = if uniform.expected_fp > 0.0 {
        1.0 - optimal.expected_fp / uniform.expected_fp
    } else {
        0.0
    };
    let memory_saving = if equal_fp.uniform_bits > 0 {
        1.0 - equal_fp.optimal_bits as f64 / equal_fp.uniform_bits as f64
    } else {
        0.0
    };
    Ok(Allocation {
        goal: budget.goal(),
        budget_bits,
        optimal,
        uniform,
        smaller_levels,
        continuous,
        fp_saving,
        equal_fp,
        memory_saving,
    })
}

/// A point of the expected-false-positives-against-budget curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    /// The budget in bits.
    pub budget_bits: u64,
    /// The optimum's expected false positives per lookup.
    pub optimal_fp: f64,
    /// Uniform's.
    pub uniform_fp: f64,
}

/// The optimum's and uniform's expected false positives at each of `budgets` (for a
/// figure); `budget`'s goal is ignored, its `k_max` and work limit are used.
///
/// # Errors
/// As [`allocate`].
pub fn curve(
    budget: &Budget,
    filters: &[FilterSpec],
    budgets: &[u64],
) -> Result<Vec<CurvePoint>, ModelError> {
    check_filters(filters)?;
    let mut curves = Curves::new(filters, budget.k_max(), budget.exact_work());
    let all = vec![true; filters.len()];
    budgets
        .iter()
        .map(|&b| {
            let c = lagrange::for_budget(filters, b as f64)?;
            let m = discrete::solve(&mut curves, b, &c.bits);
            let u = discrete::uniform(&curves, b, &all);
            Ok(CurvePoint {
                budget_bits: b,
                optimal_fp: curves.objective(&m),
                uniform_fp: curves.objective(&u),
            })
        })
        .collect()
}

fn check_filters(filters: &[FilterSpec]) -> Result<(), ModelError> {
    if filters.is_empty() {
        return Err(ModelError::invalid("filters", "[]", "at least one filter"));
    }
    for (i, f) in filters.iter().enumerate() {
        if filters[..i].iter().any(|g| g.name() == f.name()) {
            return Err(ModelError::invalid(
                "name",
                f.name(),
                format!("a name used once (filter {} repeats it)", i + 1),
            ));
        }
    }
    Ok(())
}

/// The continuous least budget for `target`, as a starting guess (0 if it fails).
fn continuous_guess(filters: &[FilterSpec], target: f64) -> f64 {
    lagrange::for_target(filters, target).map_or(0.0, |c| c.budget_bits)
}

/// The least budget at which the discrete optimum reaches `target`.
fn least_optimal(
    curves: &mut Curves<'_>,
    target: f64,
    guess: f64,
    unit: u64,
) -> Result<(u64, Vec<u64>), ModelError> {
    let filters = curves.specs();
    discrete::least_budget(target, guess, unit, BUDGET_LIMIT, |b| {
        let start = lagrange::for_budget(filters, b as f64)
            .map(|c| c.bits)
            .unwrap_or_else(|_| vec![0.0; filters.len()]);
        let m = discrete::solve(curves, b, &start);
        (curves.objective(&m), m)
    })
}

/// The filters' figures at bits `m`.
fn choice(curves: &mut Curves<'_>, m: &[u64]) -> Choice {
    let specs = curves.specs();
    let filters: Vec<FilterAllocation> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let e = curves.best(i, m[i]);
            FilterAllocation {
                name: s.name().to_string(),
                items: s.items(),
                weight: s.weight(),
                layout: s.layout(),
                bits: m[i],
                k: e.k,
                bits_per_item: if s.items() > 0 {
                    m[i] as f64 / s.items() as f64
                } else {
                    0.0
                },
                fp: e.fp,
                law: e.law,
            }
        })
        .collect();
    Choice {
        bits: m.iter().sum(),
        expected_fp: curves.objective(m),
        filters,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_goal_meets_its_target_with_less_memory_than_uniform() {
        let tree = LsmTree::new(5, 8, 200_000, LsmLookups::ZeroResult).unwrap();
        let filters = tree.filters(Layout::Standard).unwrap();
        let a = allocate(&Budget::expected_fp(0.01).unwrap(), &filters).unwrap();
        assert!(a.optimal.expected_fp <= 0.01);
        assert!(a.optimal.bits <= a.budget_bits);
        assert!(a.equal_fp.uniform_bits > a.budget_bits, "{:?}", a.equal_fp);
        // One unit less and the optimum misses the target (bisection to 1e-6).
        let less = allocate(
            &Budget::memory(a.budget_bits - 1 - a.budget_bits / 1_000_000).unwrap(),
            &filters,
        )
        .unwrap();
        assert!(
            less.optimal.expected_fp > 0.01,
            "{}",
            less.optimal.expected_fp
        );
        // And uniform at the least budget misses it.
        assert!(a.uniform.expected_fp > 0.01);
    }

    #[test]
    fn existing_key_lookups_leave_the_last_level_without_a_filter() {
        let tree = LsmTree::new(4, 10, 1_111_000, LsmLookups::Existing).unwrap();
        let filters = tree.filters(Layout::Blocked { block_bits: 512 }).unwrap();
        let a = allocate(&Budget::memory(8 * 1_111_000).unwrap(), &filters).unwrap();
        assert_eq!(a.optimal.filters[3].bits, 0);
        assert!(a.optimal.expected_fp <= a.smaller_levels.expected_fp);
        assert!(a.optimal.filters.iter().all(|f| f.bits % 512 == 0));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// The whole call on random filter sets, both goals: within budget, no worse
        /// than uniform, the target met, and the least budget no larger than uniform's.
        #[test]
        fn allocate_keeps_its_promises(
            filters in proptest::collection::vec((0u64..50_000, 0.0f64..2.0, proptest::bool::ANY), 1..6),
            bits_per_item in 0.5f64..14.0,
        ) {
            let specs: Vec<FilterSpec> = filters
                .iter()
                .enumerate()
                .map(|(i, &(n, w, blocked))| {
                    let layout = if blocked { Layout::Blocked { block_bits: 512 } } else { Layout::Standard };
                    FilterSpec::new(format!("f{i}"), n, w, layout).unwrap()
                })
                .collect();
            let n: u64 = specs.iter().map(FilterSpec::items).sum();
            let bits = (bits_per_item * n as f64) as u64;
            let a = allocate(&Budget::memory(bits).unwrap(), &specs).unwrap();
            proptest::prop_assert!(a.optimal.bits <= bits && a.uniform.bits <= bits);
            proptest::prop_assert!(a.optimal.expected_fp <= a.uniform.expected_fp);
            proptest::prop_assert!(a.equal_fp.optimal_bits <= bits);
            proptest::prop_assert!(a.fp_saving >= 0.0 && a.memory_saving >= 0.0);
            if a.uniform.expected_fp > 0.0 {
                let t = allocate(&Budget::expected_fp(a.uniform.expected_fp).unwrap(), &specs).unwrap();
                proptest::prop_assert!(t.optimal.expected_fp <= a.uniform.expected_fp);
                proptest::prop_assert!(t.budget_bits <= bits, "{} > {bits}", t.budget_bits);
            }
        }

        /// Constructors return errors, never panic, on any value.
        #[test]
        fn constructors_never_panic(items: u64, weight: f64, bits: u64, target: f64, k: u32, work: f64) {
            let ok = FilterSpec::new("x", items, weight, Layout::Standard).is_ok();
            proptest::prop_assert_eq!(ok, items <= 1 << 50 && (0.0..=1e15).contains(&weight));
            let _ = Budget::memory(bits).and_then(|b| b.with_k_max(k)).and_then(|b| b.with_exact_work(work));
            let _ = Budget::expected_fp(target);
        }
    }

    #[test]
    fn bad_filter_sets_are_named() {
        let f = FilterSpec::new("a", 1, 1.0, Layout::Standard).unwrap();
        let e = allocate(&Budget::memory(10).unwrap(), &[]).unwrap_err();
        assert!(e.to_string().contains("at least one filter"), "{e}");
        let e = allocate(&Budget::memory(10).unwrap(), &[f.clone(), f]).unwrap_err();
        assert!(e.to_string().contains("name = a"), "{e}");
    }
}
