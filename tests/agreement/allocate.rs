//! Issue 23: the allocated reference filters of a 5-level LSM tree, zero-result lookups
//! through every level, measured expected false positives per lookup against the
//! allocation's prediction (99% Student t interval over independent epochs, each epoch
//! its own filters).

use bfopt_models::classic::Layout;
use bfopt_plan::allocate::simulate::{simulate, SimConfig, MODEL_BAND};
use bfopt_plan::allocate::{allocate, Budget, LsmLookups, LsmTree};

/// 5 levels of ratio 2, 6200 entries (200, 400, 800, 1600, 3200), 10 bits per entry.
///
/// Why not smaller: below about 2000 bits the reference filters' double hashing is
/// measurably worse than the ideal hashing the exact law assumes (measured with
/// `bfopt simulate classic`, 400 epochs × 20 000 probes: m = 30, k = 7, n = 3 gives
/// 0.01348 against the exact 0.01082; m = 120, n = 12 gives 0.00987 against 0.00881;
/// m = 480, n = 48 is 1.8% high; m = 1920, n = 192 agrees). A 5-level tree of ratio 4
/// with 1023 entries (3 .. 768) failed this test for that reason, not for the allocation.
/// The filters here past the exact law's work limit use the independent-bits formula, so
/// the check allows its stated error ([`MODEL_BAND`]).
fn tree_allocation(layout: Layout) -> bfopt_plan::allocate::Allocation {
    let tree = LsmTree::new(5, 2, 6200, LsmLookups::ZeroResult).unwrap();
    let filters = tree.filters(layout).unwrap();
    allocate(&Budget::memory(62_000).unwrap(), &filters).unwrap()
}

const CFG: SimConfig = SimConfig {
    epochs: 200,
    lookups: 20_000,
    seed: 23,
    confidence: 0.99,
};

#[test]
fn five_level_tree_measured_expected_fp_matches_the_allocation() {
    let a = tree_allocation(Layout::Standard);
    let mut checks = Vec::new();
    for (name, choice) in [("optimal", &a.optimal), ("uniform", &a.uniform)] {
        let (check, _) = simulate(choice, &CFG).unwrap();
        eprintln!("{name}: {check}");
        assert!(check.tolerance <= MODEL_BAND, "{name}: {check}");
        checks.push(check);
    }
    crate::assert_all_pass(&checks);
    // The optimum's advantage is real, not within noise: the two intervals are disjoint.
    assert!(checks[0].hi < checks[1].lo, "{checks:?}");
}

#[test]
fn blocked_tree_as_rocksdb_builds_it_matches_too() {
    let a = tree_allocation(Layout::Blocked { block_bits: 512 });
    assert!(a.optimal.filters.iter().all(|f| f.bits % 512 == 0));
    let (check, _) = simulate(&a.optimal, &CFG).unwrap();
    eprintln!("blocked optimal: {check}");
    crate::assert_all_pass(&[check]);
}
