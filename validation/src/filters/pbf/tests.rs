//! Reference PBF tests: no false negatives, growth, allocated sizes, merges.

use super::*;
use crate::hash::HashScheme;
use crate::workload::mix;
use crate::workload::{member, probe};
use bfopt_models::pbf::{PbfLayout, Variant};

fn trace(n: u64, horizon: u64, seed: u64) -> Vec<(u64, u64)> {
    (0..n)
        .map(|i| (member(seed, i % (n / 3 + 1)), 1 + mix(seed ^ i) % horizon))
        .collect()
}

#[test]
fn no_false_negatives_in_every_variant() {
    let pairs = trace(600, 200, 3);
    for (variant, g) in [(Variant::Pbf1, 1), (Variant::Pbf1, 4), (Variant::Pbf2, 1)] {
        let mut f = PbfFilter::new(
            variant,
            g,
            PbfSizing::Uniform {
                bits: 256,
                hashes: 3,
            },
            9,
        )
        .unwrap();
        for &(a, t) in &pairs {
            f.insert(a, t).unwrap();
        }
        for &(a, t) in pairs.iter().step_by(7) {
            for (s, e) in [(t, t), (t.saturating_sub(5).max(1), t + 3), (1, 200)] {
                assert!(
                    f.query(a, s, e).unwrap(),
                    "{variant:?} g={g} ({a},{t}) [{s},{e}]"
                );
            }
        }
    }
}

#[test]
fn pbf2_growth_clones_the_root() {
    let mut f = PbfFilter::new(
        Variant::Pbf2,
        1,
        PbfSizing::Uniform {
            bits: 1024,
            hashes: 4,
        },
        1,
    )
    .unwrap();
    f.insert(10, 1).unwrap();
    assert_eq!(f.levels(), 1);
    f.insert(11, 3).unwrap();
    assert_eq!(f.levels(), 3); // granularities 1, 2, 4 cover [1, 4]
    f.insert(12, 9).unwrap();
    assert_eq!(f.levels(), 5);
    for (a, t) in [(10, 1), (11, 3), (12, 9)] {
        assert!(f.query(a, t, t).unwrap());
        assert!(f.query(a, 1, 9).unwrap());
    }
    // A member at another time is not found in a small range away from it (with
    // 1024 bits per level and three items this holds with overwhelming probability).
    assert!(!f.query(10, 2, 2).unwrap());
}

#[test]
fn allocated_sizes_are_respected_and_bounded() {
    let layout = PbfLayout::pbf1(64, 4).unwrap();
    let n = layout.filters() as usize;
    let bits: Vec<u64> = (0..n as u64).map(|i| 64 + i).collect();
    let hashes = vec![2; n];
    let mut f = PbfFilter::new(
        Variant::Pbf1,
        4,
        PbfSizing::Allocated {
            layout: layout.clone(),
            bits: bits.clone(),
            hashes,
        },
        5,
    )
    .unwrap();
    for t in 1..=64 {
        f.insert(t * 1000, t).unwrap();
    }
    assert_eq!(f.memory_bits(), bits.iter().sum::<u64>());
    assert!(f.insert(1, 65).is_err());
    assert!(f.query(1, 60, 65).is_err());
    assert!(PbfFilter::new(
        Variant::Pbf2,
        1,
        PbfSizing::Allocated {
            layout,
            bits,
            hashes: vec![]
        },
        1
    )
    .is_err());
}

#[test]
fn inserting_all_at_once_builds_the_filter_of_one_by_one() {
    let entries = trace(3000, 256, 9);
    // In time order, runs of entries share an interval's filter at every height.
    let mut by_time = entries.clone();
    by_time.sort_by_key(|&(_, t)| t);
    for ((variant, g), entries) in [(Variant::Pbf1, 4), (Variant::Pbf2, 1)]
        .into_iter()
        .flat_map(|v| [(v, &entries), (v, &by_time)])
    {
        let layout = PbfLayout::new(variant, 256, g).unwrap();
        let n = layout.filters() as usize;
        let sizing = PbfSizing::Allocated {
            layout,
            bits: (0..n as u64)
                .map(|i| [0, 40, 700][i as usize % 3])
                .collect(),
            hashes: (0..n as u32).map(|i| 1 + i % 4).collect(),
        };
        let mut one = PbfFilter::new(variant, g, sizing.clone(), 3).unwrap();
        for &(a, t) in entries {
            one.insert(a, t).unwrap();
        }
        let mut all = PbfFilter::new(variant, g, sizing.clone(), 3).unwrap();
        all.insert_all(entries).unwrap();
        assert_eq!(one, all, "{variant:?}");
        let mut bad = PbfFilter::new(variant, g, sizing, 3).unwrap();
        assert!(bad.insert_all(&[(1, 5), (2, 257)]).is_err());
    }
    // A growing PBF takes them one by one.
    let sizing = PbfSizing::Uniform {
        bits: 512,
        hashes: 3,
    };
    let mut one = PbfFilter::new(Variant::Pbf1, 4, sizing.clone(), 3).unwrap();
    entries.iter().for_each(|&(a, t)| one.insert(a, t).unwrap());
    let mut all = PbfFilter::new(Variant::Pbf1, 4, sizing, 3).unwrap();
    all.insert_all(&entries).unwrap();
    assert_eq!(one, all);
}

#[test]
fn zero_bit_filters_keep_no_false_negatives() {
    let layout = PbfLayout::pbf2(16).unwrap();
    let n = layout.filters() as usize;
    let mut f = PbfFilter::new(
        Variant::Pbf2,
        1,
        PbfSizing::Allocated {
            layout,
            bits: vec![0; n],
            hashes: vec![0; n],
        },
        2,
    )
    .unwrap();
    assert!(!f.query(5, 1, 16).unwrap(), "empty filters answer no");
    f.insert(5, 7).unwrap();
    assert!(f.query(5, 7, 7).unwrap());
    assert!(
        f.query(probe(1, 1), 7, 7).unwrap(),
        "no bits: everything is a maybe"
    );
}

#[test]
fn merged_partitions_answer_for_both() {
    let sizing = PbfSizing::Uniform {
        bits: 2048,
        hashes: 4,
    };
    for (variant, g) in [(Variant::Pbf1, 4), (Variant::Pbf2, 1)] {
        let mut a = PbfFilter::new(variant, g, sizing.clone(), 7).unwrap();
        let mut b = PbfFilter::new(variant, g, sizing.clone(), 7).unwrap();
        let first = trace(300, 100, 1);
        let second = trace(300, 128, 2);
        first.iter().for_each(|&(k, t)| a.insert(k, t).unwrap());
        second.iter().for_each(|&(k, t)| b.insert(k, t).unwrap());
        a.merge(&b).unwrap();
        for &(k, t) in first.iter().chain(&second) {
            assert!(a.query(k, t, t).unwrap(), "{variant:?} ({k},{t})");
        }
        let other = PbfFilter::new(variant, g, sizing.clone(), 8).unwrap();
        assert!(a.merge(&other).is_err());
    }
}

fn allocated(layout: &PbfLayout, bits: &[u64], hashes: &[u32]) -> PbfSizing {
    PbfSizing::Allocated {
        layout: layout.clone(),
        bits: bits.to_vec(),
        hashes: hashes.to_vec(),
    }
}

/// Section 6 [PBF]: filters of sizes `2q` and `3q` fold onto `gcd = q` bits, and the
/// result is bit for bit the PBF built directly at `q` bits from both partitions.
#[test]
fn merging_different_sizes_equals_the_directly_built_pbf() {
    let first = trace(400, 256, 11);
    let second = trace(400, 256, 12);
    for (variant, g) in [(Variant::Pbf1, 4), (Variant::Pbf2, 1)] {
        let layout = PbfLayout::new(variant, 256, g).unwrap();
        let n = layout.filters() as usize;
        let base: Vec<u64> = (0..n as u64).map(|i| 40 + 7 * (i % 5)).collect();
        let times = |c: u64| base.iter().map(|b| b * c).collect::<Vec<_>>();
        let k = vec![3; n];
        let build = |bits: &[u64], pairs: &[&[(u64, u64)]]| {
            let mut f = PbfFilter::new(variant, g, allocated(&layout, bits, &k), 4).unwrap();
            for &(a, t) in pairs.iter().copied().flatten() {
                f.insert(a, t).unwrap();
            }
            f
        };
        let mut a = build(&times(2), &[&first]);
        let b = build(&times(3), &[&second]);
        a.merge(&b).unwrap();
        let direct = build(&base, &[&first, &second]);
        assert!(
            a == direct,
            "{variant:?}: merged differs from the direct build"
        );
    }
    // Uniform sizing: 2048 and 3072 bits fold onto 1024.
    let uniform = |bits| PbfSizing::Uniform { bits, hashes: 4 };
    let mut a = PbfFilter::new(Variant::Pbf1, 2, uniform(2048), 3).unwrap();
    let mut b = PbfFilter::new(Variant::Pbf1, 2, uniform(3072), 3).unwrap();
    let mut direct = PbfFilter::new(Variant::Pbf1, 2, uniform(1024), 3).unwrap();
    for &(k, t) in &first {
        a.insert(k, t).unwrap();
        direct.insert(k, t).unwrap();
    }
    for &(k, t) in &second {
        b.insert(k, t).unwrap();
        direct.insert(k, t).unwrap();
    }
    a.merge(&b).unwrap();
    assert!(a == direct, "uniform: merged differs from the direct build");
}

/// Different hash counts: the merge queries `min(k, k')` hashes; it holds every bit
/// the direct build at that `k` sets, so it answers yes wherever that one does.
#[test]
fn merging_different_hash_counts_keeps_every_item() {
    let first = trace(300, 128, 21);
    let second = trace(300, 128, 22);
    let layout = PbfLayout::pbf1(128, 4).unwrap();
    let n = layout.filters() as usize;
    let bits = vec![96u64; n];
    let mk = |k: u32| PbfFilter::new(Variant::Pbf1, 4, allocated(&layout, &bits, &vec![k; n]), 8);
    let (mut a, mut b, mut direct) = (mk(5).unwrap(), mk(2).unwrap(), mk(2).unwrap());
    first.iter().for_each(|&(k, t)| a.insert(k, t).unwrap());
    second.iter().for_each(|&(k, t)| b.insert(k, t).unwrap());
    first
        .iter()
        .chain(&second)
        .for_each(|&(k, t)| direct.insert(k, t).unwrap());
    a.merge(&b).unwrap();
    for &(k, t) in first.iter().chain(&second) {
        assert!(a.query(k, t, t).unwrap() && a.query(k, t.max(3) - 2, t).unwrap());
    }
    for i in 0..3000 {
        let (s, e) = (1 + i % 120, 1 + i % 120 + i % 8);
        if direct.query(probe(5, i), s, e).unwrap() {
            assert!(a.query(probe(5, i), s, e).unwrap());
        }
    }
    // Shapes that cannot merge.
    let other_layout = PbfLayout::pbf1(256, 4).unwrap();
    let m = other_layout.filters() as usize;
    let c = PbfFilter::new(
        Variant::Pbf1,
        4,
        allocated(&other_layout, &vec![96; m], &vec![2; m]),
        8,
    )
    .unwrap();
    let before = a.clone();
    assert!(a.merge(&c).is_err());
    assert!(a == before, "a failed merge leaves the filter unchanged");
}

#[test]
fn sub_filters_fold_onto_divisors() {
    let mut f = SubFilter::new(96, 3, 1);
    let h = HashScheme::new(1);
    (0..20).for_each(|i| f.insert(h.hash_u64(i)));
    let g = f.folded(32, 2).unwrap();
    assert!((0..20).all(|i| g.contains(h.hash_u64(i))));
    assert!(f.folded(40, 2).is_err() && f.folded(32, 4).is_err());
    let other = SubFilter::new(64, 4, 1);
    let m = f.merged(&other).unwrap();
    assert_eq!((m.bits(), m.hashes()), (32, 3));
    assert!(f.merged(&SubFilter::new(64, 4, 2)).is_err());
    // An empty filter without bits merges as the other side; a used one absorbs it.
    let empty = SubFilter::new(0, 0, 1);
    assert_eq!(empty.merged(&f).unwrap().bits(), 96);
    let mut used = SubFilter::new(0, 0, 1);
    used.insert(h.hash_u64(99));
    let all = used.merged(&f).unwrap();
    assert!(all.bits() == 0 && all.contains(h.hash_u64(12345)));
}

/// Regression (issue 7): a growing PBF-1 made each new root empty, so a query whose
/// cover is the root missed every item inserted before the growth.
#[test]
fn issue_7_growing_pbf1_root_holds_earlier_items() {
    let sizing = PbfSizing::Uniform {
        bits: 512,
        hashes: 3,
    };
    let mut f = PbfFilter::new(Variant::Pbf1, 1, sizing, 1).unwrap();
    f.insert(7, 1).unwrap();
    f.insert(8, 3).unwrap();
    f.insert(9, 100).unwrap();
    assert_eq!(f.levels(), 8);
    for (a, t) in [(7, 1), (8, 3), (9, 100)] {
        assert!(
            f.query(a, 1, 128).unwrap(),
            "({a}, {t}) in the root [1, 128]"
        );
        assert!(f.query(a, 1, 64).unwrap() == (t <= 64));
    }
}

/// Issue 10: timestamps up to 2^40 where the structure can hold them, clear errors
/// beyond (a growing PBF-1 keeps dense rows of filters).
#[test]
fn issue_10_extreme_timestamps() {
    let sizing = PbfSizing::Uniform {
        bits: 64,
        hashes: 2,
    };
    let mut two = PbfFilter::new(Variant::Pbf2, 1, sizing.clone(), 1).unwrap();
    two.insert(5, 1 << 40).unwrap();
    two.insert(6, 1).unwrap();
    assert_eq!(two.levels(), 41);
    assert!(two.query(5, 1, 1 << 40).unwrap() && two.query(6, 1, 1).unwrap());
    assert!(two.insert(5, (1 << 40) + 1).is_err() && two.insert(5, 0).is_err());
    let mut one = PbfFilter::new(Variant::Pbf1, 1, sizing, 1).unwrap();
    let e = one.insert(5, 1 << 40).unwrap_err().to_string();
    assert!(e.contains("timestamp"), "{e}");
    let limit = PbfLayout::MAX_FILTERS / 2;
    assert!(one.insert(5, limit + 1).is_err());
    assert!(PbfFilter::new(
        Variant::Pbf1,
        1,
        allocated(&PbfLayout::pbf1(1 << 40, 1).unwrap(), &[], &[]),
        1
    )
    .is_err());
}

#[test]
fn sbf_probes_every_timestamp_until_a_hit() {
    let mut f = SbfFilter::new(4096, 4, 1);
    f.insert(42, 10);
    assert_eq!(f.query_counting(42, 5, 20), (true, 6));
    let (hit, probes) = f.query_counting(probe(3, 0), 1, 50);
    assert!(!hit);
    assert_eq!(probes, 50);
}
