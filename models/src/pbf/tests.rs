use super::*;
use approx::assert_relative_eq;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

/// A small deterministic generator for test data (no RNG crate in this pure crate).
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

#[test]
fn decomposition_counts_levels_and_intervals() {
    // Figure 3 [PBF]: T = 8, g = 2, L = 3, u = 2T/g − 1 = 7.
    let d = Decomposition::new(8, 2).unwrap();
    assert_eq!((d.levels(), d.intervals()), (3, 7));
    assert_eq!((d.length(0), d.length(2)), (8, 2));
    // T = 86 400, g = 4: L = ⌈log2 21 600⌉ + 1 = 16; the aligned tree has 43 205
    // intervals (2T/g − 1 = 43 199 would need T/g to be a power of two).
    let d = Decomposition::new(86_400, 4).unwrap();
    assert_eq!((d.levels(), d.intervals()), (16, 43_205));
    assert_eq!(d.count(15), 21_600);
    assert_eq!(d.count(0), 1);
    // A power of two: exactly 2T/g − 1.
    let d = Decomposition::new(1 << 12, 4).unwrap();
    assert_eq!(d.intervals(), 2 * (1 << 12) / 4 - 1);
    assert_eq!(Decomposition::new(1, 1).unwrap().levels(), 1);
}

#[test]
fn bad_structure_inputs_are_rejected() {
    assert!(Decomposition::new(0, 1).is_err());
    let e = Decomposition::new(100, 3).unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
    assert!(Decomposition::new(100, 0).is_err());
    assert!(PbfLayout::new(Variant::Pbf2, 100, 4).is_err());
    let d = Decomposition::new(100, 4).unwrap();
    assert!(d.check_range(0, 5).is_err());
    assert!(d.check_range(5, 4).is_err());
    assert!(d.check_range(5, 101).is_err());
    assert!(d.check_range(100, 100).is_ok());
}

/// Every interval of the tree by brute force: `(node, first, last)`.
fn all_nodes(d: &Decomposition) -> Vec<(Node, u64, u64)> {
    let mut out = Vec::new();
    for level in 0..d.levels() {
        for pos in 0..d.count(level) {
            let node = Node { level, pos };
            let (a, b) = d.span(node);
            out.push((node, a, b));
        }
    }
    out
}

#[test]
fn cover_matches_its_definition_for_every_range() {
    // Section 4.1 [PBF]: C([s,e]) = intervals inside [s,e] whose parent is not; the
    // partial leaves are the leaves that overlap [s,e] − I(C) .
    for (t, g) in [(8, 1), (8, 2), (13, 1), (13, 2), (37, 4), (64, 8), (100, 4)] {
        let d = Decomposition::new(t, g).unwrap();
        let nodes = all_nodes(&d);
        let inside = |a: u64, b: u64, s: u64, e: u64| s <= a && b <= e;
        for s in 1..=t {
            for e in s..=t {
                let mut cover = Vec::new();
                let mut partial = Vec::new();
                d.probes(s, e, |p| match p {
                    Probe::Cover { node } => cover.push(node),
                    Probe::Partial { node, from, to } => partial.push((node, from, to)),
                });
                let expected: HashSet<Node> = nodes
                    .iter()
                    .filter(|&&(n, a, b)| {
                        inside(a, b, s, e)
                            && (n.level == 0 || {
                                let parent = Node {
                                    level: n.level - 1,
                                    pos: n.pos / 2,
                                };
                                let (pa, pb) = d.span(parent);
                                !inside(pa, pb, s, e)
                            })
                    })
                    .map(|x| x.0)
                    .collect();
                assert_eq!(
                    cover.iter().copied().collect::<HashSet<_>>(),
                    expected,
                    "T={t} g={g} [{s},{e}]"
                );
                assert!(partial.len() <= 2);
                // Cover and partial overlaps tile [s, e] exactly.
                let mut hit = vec![0u32; (e - s + 1) as usize];
                for n in &cover {
                    let (a, b) = d.span(*n);
                    (a..=b).for_each(|x| hit[(x - s) as usize] += 1);
                }
                for &(n, from, to) in &partial {
                    assert_eq!(n.level, d.levels() - 1);
                    assert!(g > 1);
                    (from..=to).for_each(|x| hit[(x - s) as usize] += 1);
                }
                assert!(hit.iter().all(|&h| h == 1), "T={t} g={g} [{s},{e}]");
                if g == 1 {
                    // Canonical cover: at most 2 per level, at most 2⌈log2 |q|⌉ in all.
                    let q = e - s + 1;
                    let bound = 2 * u64::from(q.next_power_of_two().trailing_zeros()).max(1);
                    assert!(cover.len() as u64 <= bound, "[{s},{e}]: {}", cover.len());
                }
            }
        }
    }
}

#[test]
fn probe_counts_respect_the_papers_bounds() {
    // f_i ≤ 1 for interval filters of PBF-1, f_{u+1} ≤ 2g − 2 (Appendix B.2),
    // f_ℓ ≤ 2 for PBF-2 (Section 5.2 [PBF]).
    let p1 = PbfLayout::pbf1(300, 8).unwrap();
    let p2 = PbfLayout::pbf2(300).unwrap();
    for s in 1..=300u64 {
        for q in [1u64, 2, 7, 8, 9, 31, 64, 100] {
            let e = s + q - 1;
            if e > 300 {
                continue;
            }
            let mut c1 = vec![0.0; p1.filters() as usize];
            p1.add_probe_counts(s, e, &mut c1);
            let fine = p1.fine_filter().unwrap() as usize;
            assert!(c1[..fine].iter().all(|&c| c <= 1.0));
            assert!(c1[fine] <= 14.0);
            let mut c2 = vec![0.0; p2.filters() as usize];
            p2.add_probe_counts(s, e, &mut c2);
            assert!(c2.iter().all(|&c| c <= 2.0));
        }
    }
}

#[test]
fn query_fp_generalises_eqs_6_and_9() {
    let p2 = PbfLayout::pbf2(1000).unwrap();
    // Equal rates: Eq. (9), 1 − (1 − p)^f with f = |C([s,e])|.
    let fp = vec![0.01; p2.filters() as usize];
    for (s, e) in [(1, 1000), (3, 130), (77, 77), (500, 1000)] {
        let f = p2.tree().probe_list(s, e).len() as f64;
        assert_relative_eq!(
            p2.query_fp(s, e, &fp),
            1.0 - 0.99f64.powf(f),
            max_relative = 1e-12
        );
        assert_relative_eq!(p2.query_fp(s, e, &fp), p2.query_fp_ungated(s, e, &fp));
    }
    // PBF-1: the gate makes the FP smaller than Eq. (6)'s count of every probe.
    let p1 = PbfLayout::pbf1(1000, 4).unwrap();
    let fp = vec![0.02; p1.filters() as usize];
    let (s, e) = (3, 130);
    let probes = p1.tree().probe_list(s, e);
    let covers = probes
        .iter()
        .filter(|p| matches!(p, Probe::Cover { .. }))
        .count() as i32;
    // [3,4] and [129,130] are partial leaves: 2 timestamps each.
    assert_eq!(probes.len() as i32 - covers, 2);
    let gated = 1.0 - 0.98f64.powi(covers) * (1.0 - 0.02 * (1.0 - 0.98f64.powi(2))).powi(2);
    assert_relative_eq!(p1.query_fp(s, e, &fp), gated, max_relative = 1e-12);
    let ungated = 1.0 - 0.98f64.powi(covers + 2 + 4);
    assert_relative_eq!(
        p1.query_fp_ungated(s, e, &fp),
        ungated,
        max_relative = 1e-12
    );
    assert!(gated < ungated);
}

#[test]
fn sbf_and_optimal_k() {
    assert_relative_eq!(
        fp_sbf(0.01, 128),
        1.0 - 0.99f64.powi(128),
        max_relative = 1e-12
    );
    assert_eq!(fp_sbf(0.3, 0), 0.0);
    assert_relative_eq!(
        fp_optimal_k(10.0),
        0.5f64.powf(10.0 * std::f64::consts::LN_2)
    );
}

fn lists() -> (Vec<f64>, Vec<f64>) {
    let d = vec![1000.0, 50.0, 0.0, 300.0, 2000.0, 10.0, 700.0];
    let f = vec![0.9, 1.0, 1.0, 0.0, 0.3, 0.001, 2.0];
    (d, f)
}

/// KKT: every active filter has the same marginal value μ = f_i·(c/d_i)·p_i/(1 − p_i).
#[test]
fn optimal_allocation_meets_kkt() {
    let (d, f) = lists();
    let prob = AllocationProblem::new(20_000, d.clone(), f.clone()).unwrap();
    let a = prob.optimal(16).unwrap();
    let mu = -a.lambda.unwrap();
    assert!(mu > 0.0);
    assert_relative_eq!(a.bits.iter().sum::<f64>(), 20_000.0, max_relative = 1e-12);
    for i in 0..d.len() {
        if f[i] > 0.0 && d[i] > 0.0 {
            assert!(a.bits[i] > 0.0);
            let p = (-LN2_SQ * a.bits[i] / d[i]).exp();
            let marginal = f[i] * LN2_SQ / d[i] * p / (1.0 - p);
            assert_relative_eq!(marginal, mu, max_relative = 1e-8);
            // Eq. (10) as printed, with λ < 0.
            let eq10 = d[i] / LN2_SQ * (1.0 - f[i] * LN2_SQ / (d[i] * a.lambda.unwrap())).ln();
            assert_relative_eq!(eq10, a.bits[i], max_relative = 1e-9);
        } else {
            assert_eq!(a.bits[i], 0.0, "filter {i} is on the KKT boundary");
            assert_eq!(a.bits_rounded[i], 0);
            assert_eq!(a.hashes[i], 0);
        }
    }
    assert_eq!(a.bits_rounded.iter().sum::<u64>(), 20_000);
    // Perturbing any pair of active filters (moving bits between them) cannot help.
    let base = prob.fp_continuous(&a.bits);
    for (i, j) in [(0, 1), (1, 4), (4, 6), (0, 5)] {
        for delta in [-5.0, 5.0] {
            let mut b = a.bits.clone();
            b[i] += delta;
            b[j] -= delta;
            assert!(prob.fp_continuous(&b) >= base, "{i},{j},{delta}");
        }
    }
}

/// The solver's shortcuts (objective per ratio group, memoised rounded FP in group order)
/// give what evaluating its bits from scratch gives.
#[test]
fn optimal_fps_match_a_fresh_evaluation() {
    // Many repeated (d, f) pairs, as workload counts give.
    let d: Vec<f64> = (0..3000).map(|i| f64::from(1 + (i * 7) % 13)).collect();
    let f: Vec<f64> = (0..3000).map(|i| f64::from((i * 5) % 9) / 8.0).collect();
    let prob = AllocationProblem::new(60_000, d, f).unwrap();
    let a = prob.optimal(16).unwrap();
    let b = prob.evaluate(a.bits.clone(), 16).unwrap();
    assert_relative_eq!(a.fp, b.fp, max_relative = 1e-9);
    assert_relative_eq!(a.fp_rounded, b.fp_rounded, max_relative = 1e-12);
    assert_eq!(a.bits_rounded, b.bits_rounded);
    assert_eq!(a.hashes, b.hashes);
}

#[test]
fn equal_filters_get_equal_bits() {
    let prob = AllocationProblem::new(10_007, vec![500.0; 7], vec![0.4; 7]).unwrap();
    let a = prob.optimal(16).unwrap();
    let u = prob.uniform(16).unwrap();
    for (x, y) in a.bits.iter().zip(&u.bits) {
        assert_relative_eq!(x, y, max_relative = 1e-12);
    }
    assert_relative_eq!(a.fp, u.fp, max_relative = 1e-12);
    // Equal ratios f/d: bits ∝ d (Lemma C.2 [PBF]).
    let prob =
        AllocationProblem::new(9000, vec![100.0, 200.0, 600.0], vec![0.1, 0.2, 0.6]).unwrap();
    let a = prob.optimal(16).unwrap();
    assert_relative_eq!(a.bits[0], 1000.0, max_relative = 1e-12);
    assert_relative_eq!(a.bits[2], 6000.0, max_relative = 1e-12);
}

#[test]
fn hash_counts_and_rounding() {
    assert_eq!(hashes_for(0, 10.0, 16), 0);
    assert_eq!(hashes_for(100, 0.0, 16), 1);
    assert_eq!(hashes_for(1000, 100.0, 16), 7); // ⌈10·ln 2⌉ = ⌈6.93⌉
    assert_eq!(hashes_for(100_000, 100.0, 16), 16);
    assert_eq!(round_to_total(&[1.5, 1.5, 1.0], 4), vec![2, 1, 1]);
    assert_eq!(round_to_total(&[0.2, 0.3, 0.5], 1), vec![0, 0, 1]);
    assert_eq!(filter_fp(0, 0, 5.0), 1.0);
    assert_eq!(filter_fp(0, 0, 0.0), 0.0);
    // An unprobed filter that still receives items gets no bits and is never asked.
    let prob = AllocationProblem::new(1000, vec![10.0, 10.0], vec![1.0, 0.0]).unwrap();
    let a = prob.optimal(16).unwrap();
    assert_eq!(a.bits_rounded, vec![1000, 0]);
    assert_eq!(a.hashes, vec![16, 0]);
    assert_relative_eq!(a.fp_rounded, filter_fp(1000, 16, 10.0), max_relative = 1e-9);
}

#[test]
fn nothing_probed_is_not_an_error() {
    let prob = AllocationProblem::new(1000, vec![10.0, 30.0], vec![0.0, 0.0]).unwrap();
    let a = prob.optimal(16).unwrap();
    assert_eq!(a.lambda, None);
    assert_eq!(a.fp, 0.0);
    assert_eq!(a.bits_rounded, vec![250, 750]);
}

#[test]
fn bad_allocation_inputs_are_rejected() {
    assert!(AllocationProblem::new(0, vec![1.0], vec![1.0]).is_err());
    let e = AllocationProblem::new(10, vec![1.0, 2.0], vec![1.0]).unwrap_err();
    assert!(e.to_string().contains("frequency"), "{e}");
    assert!(AllocationProblem::new(10, vec![], vec![]).is_err());
    let e = AllocationProblem::new(10, vec![1.0, -2.0], vec![1.0, 1.0]).unwrap_err();
    assert!(e.to_string().contains("value 2"), "{e}");
    assert!(AllocationProblem::new(10, vec![1.0], vec![f64::NAN]).is_err());
    let p = AllocationProblem::new(10, vec![1.0], vec![1.0]).unwrap();
    assert!(p.optimal(0).is_err());
    assert!(p.evaluate(vec![5.0], 16).is_err());
}

#[test]
fn extreme_budgets_solve() {
    // Tiny and huge bits per item, and ratios f/d spanning 12 orders of magnitude.
    let d = vec![1e6, 1.0, 3e3, 5e5];
    let f = vec![1.0, 1e-6, 2.0, 1e-3];
    for m in [1u64, 100, 1 << 20, 1 << 40] {
        let a = AllocationProblem::new(m, d.clone(), f.clone())
            .unwrap()
            .optimal(16)
            .unwrap();
        assert_relative_eq!(a.bits.iter().sum::<f64>(), m as f64, max_relative = 1e-9);
        assert!(a.bits.iter().all(|b| *b > 0.0));
        assert!((0.0..=1.0).contains(&a.fp) && (0.0..=1.0).contains(&a.fp_rounded));
    }
}

#[test]
fn eq14_appendix_form_meets_the_target_and_section_5_3_does_not() {
    let r = BoundRequest::new(2_127_749, 86_400, 0.01, 128, 1).unwrap();
    let b = r.bound();
    assert_relative_eq!(b.probes, 14.0, max_relative = 1e-12);
    // Eq. (15) at the Appendix bound gives back p exactly.
    let back = fp_auxiliary(b.bits, r.pairs, r.horizon, b.probes);
    assert_relative_eq!(back, 0.01, max_relative = 1e-10);
    // The Section 5.3 printing does not.
    let back = fp_auxiliary(b.bits_section_5_3, r.pairs, r.horizon, b.probes);
    assert!(back > 0.5, "{back}");
    assert_relative_eq!(
        b.bits_section_5_3 / b.bits,
        LN2_SQ * LN2_SQ,
        max_relative = 1e-12
    );
    // Integer counts: PBF-2 has 18 levels at T = 86 400. A query of length 2^7 splits
    // at a multiple of 128 into parts of a and 128 − a timestamps, whose covers have
    // popcount(a) + popcount(128 − a) ≤ 8 intervals: the bound's 2·log2|q| = 14 is loose.
    assert_eq!(b.insertions, 18);
    assert_eq!(b.max_probes, 8);
    let per = 1.0 - 0.99f64.powf(1.0 / 8.0);
    assert_relative_eq!(
        b.bits_levels,
        2_127_749.0 * 18.0 * (1.0 / per).ln() / LN2_SQ,
        max_relative = 1e-9
    );
    // g > 1: 2·log2(128/4) + 3 = 13 probes.
    let g = BoundRequest::new(2_127_749, 86_400, 0.01, 128, 4).unwrap();
    assert_relative_eq!(g.probes(), 13.0, max_relative = 1e-12);
    assert_eq!(g.bound().insertions, 17);
    assert!(BoundRequest::new(10, 0, 0.01, 2, 1).is_err());
    assert!(BoundRequest::new(10, 100, 0.01, 2, 4).is_err());
    assert!(BoundRequest::new(10, 100, 0.01, 1, 1).is_err());
    assert!(BoundRequest::new(10, 100, 1.0, 8, 1).is_err());
    assert!(BoundRequest::new(10, 100, 0.1, 8, 3).is_err());
}

#[test]
fn max_probes_is_exact_by_brute_force() {
    for (layout, q) in [
        (PbfLayout::pbf2(500).unwrap(), 37u64),
        (PbfLayout::pbf2(500).unwrap(), 128),
        (PbfLayout::pbf1(500, 4).unwrap(), 37),
        (PbfLayout::pbf1(500, 8).unwrap(), 100),
    ] {
        let brute = (1..=500 - q + 1)
            .map(|s| {
                let mut c = vec![0.0; layout.filters() as usize];
                layout.add_probe_counts(s, s + q - 1, &mut c);
                c.iter().sum::<f64>() as u64
            })
            .max()
            .unwrap();
        assert_eq!(max_probes(&layout, q), brute);
    }
}

/// Random (item, timestamp) pairs with repeats.
fn random_pairs(n: usize, items: u64, horizon: u64, seed: u64) -> Vec<(u64, u64)> {
    let mut s = seed;
    (0..n)
        .map(|_| (lcg(&mut s) % items, 1 + lcg(&mut s) % horizon))
        .collect()
}

#[test]
fn distinct_counts_match_brute_force() {
    let pairs = random_pairs(3000, 200, 150, 7);
    for layout in [
        PbfLayout::pbf1(150, 4).unwrap(),
        PbfLayout::pbf1(150, 1).unwrap(),
        PbfLayout::pbf2(150).unwrap(),
    ] {
        let got = distinct_counts(&layout, &pairs).unwrap();
        let mut sets: HashMap<u64, HashSet<(u64, u64)>> = HashMap::new();
        let tree = layout.tree();
        for &(a, t) in &pairs {
            for level in 0..tree.levels() {
                let node = tree.node_of(level, t);
                sets.entry(layout.filter_of(node))
                    .or_default()
                    .insert((a, node.pos));
            }
            if let Some(f) = layout.fine_filter() {
                sets.entry(f).or_default().insert((a, t));
            }
        }
        for (i, &d) in got.iter().enumerate() {
            let want = sets.get(&(i as u64)).map_or(0, |s| s.len() as u64);
            assert_eq!(d, want, "{:?} filter {i}", layout.variant());
        }
    }
    // In time order (as a trace is), the counts are taken run by run: the same.
    let mut sorted = pairs.clone();
    sorted.sort_by_key(|&(_, t)| t);
    for layout in [
        PbfLayout::pbf1(150, 4).unwrap(),
        PbfLayout::pbf2(150).unwrap(),
    ] {
        assert_eq!(
            distinct_counts(&layout, &sorted).unwrap(),
            distinct_counts(&layout, &pairs).unwrap()
        );
    }
    let mut brute = pairs.clone();
    brute.sort_unstable();
    brute.dedup();
    assert_eq!(distinct_pairs(&pairs), brute.len() as u64);
    assert_eq!(distinct_pairs(&sorted), brute.len() as u64);
    let e = distinct_counts(&PbfLayout::pbf2(10).unwrap(), &[(1, 3), (2, 11)]).unwrap_err();
    assert!(e.to_string().contains("record 2"), "{e}");
}

#[test]
fn frequencies_and_mean_fp() {
    let layout = PbfLayout::pbf2(64).unwrap();
    let queries: Vec<(u64, u64)> = (1..=49).map(|s| (s, s + 15)).collect();
    let f = probe_frequencies(&layout, &queries).unwrap();
    let total: f64 = f.iter().sum();
    let direct: f64 = queries
        .iter()
        .map(|&(s, e)| layout.tree().probe_list(s, e).len() as f64)
        .sum::<f64>()
        / 49.0;
    assert_relative_eq!(total, direct, max_relative = 1e-12);
    assert!(probe_frequencies(&layout, &[]).is_err());
    assert!(probe_frequencies(&layout, &[(3, 70)]).is_err());
    let fp = vec![0.05; layout.filters() as usize];
    let mean = mean_query_fp(&layout, &queries, &fp).unwrap();
    assert!(mean > 0.05 && mean < 1.0 - 0.95f64.powi(8));
    assert!(mean_query_fp(&layout, &queries, &[0.1]).is_err());
}

fn allocation_inputs() -> impl Strategy<Value = (u64, Vec<f64>, Vec<f64>)> {
    (1usize..12).prop_flat_map(|n| {
        (
            1u64..10_000_000,
            proptest::collection::vec(prop_oneof![Just(0.0), 1.0f64..1e6], n),
            proptest::collection::vec(prop_oneof![Just(0.0), 1e-4f64..2.0], n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn optimum_is_never_worse_than_uniform_or_proportional((m, d, f) in allocation_inputs()) {
        let prob = AllocationProblem::new(m, d, f).unwrap();
        let a = prob.optimal(16).unwrap();
        let u = prob.uniform(16).unwrap();
        let p = prob.evaluate(prob.proportional(), 16).unwrap();
        prop_assert!((0.0..=1.0).contains(&a.fp));
        prop_assert!((0.0..=1.0).contains(&a.fp_rounded));
        prop_assert!(a.fp <= u.fp * (1.0 + 1e-9) + 1e-300, "{} > {}", a.fp, u.fp);
        prop_assert!(a.fp <= p.fp * (1.0 + 1e-9) + 1e-300, "{} > {}", a.fp, p.fp);
        prop_assert_eq!(a.bits_rounded.iter().sum::<u64>(), m);
        prop_assert!(a.bits.iter().all(|b| *b >= 0.0));
    }

    #[test]
    fn fp_falls_with_more_bits((m, d, f) in allocation_inputs()) {
        let small = AllocationProblem::new(m, d.clone(), f.clone()).unwrap().optimal(16).unwrap();
        let big = AllocationProblem::new(2 * m, d, f).unwrap().optimal(16).unwrap();
        prop_assert!(big.fp <= small.fp * (1.0 + 1e-9) + 1e-300);
    }

    #[test]
    fn constructors_never_panic(
        m in any::<u64>(),
        x in crate::strategies::nasty_f64(),
        t in any::<u64>(),
        g in any::<u64>(),
    ) {
        let _ = AllocationProblem::new(m, vec![x, 1.0], vec![1.0, x]).map(|p| p.optimal(16));
        let _ = Decomposition::new(t, g);
        let _ = BoundRequest::new(m, t, x, g, 1).map(|r| r.bound());
    }

    #[test]
    fn query_fp_is_a_probability_and_grows_with_filter_fp(
        s in 1u64..500, len in 1u64..500, p in 0.0f64..1.0, g in 0u32..4,
    ) {
        let layout = PbfLayout::pbf1(1000, 1 << g).unwrap();
        let e = (s + len - 1).min(1000);
        let lo = vec![p / 2.0; layout.filters() as usize];
        let hi = vec![p; layout.filters() as usize];
        let a = layout.query_fp(s, e, &lo);
        let b = layout.query_fp(s, e, &hi);
        prop_assert!((0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b));
        prop_assert!(a <= b + 1e-15);
        prop_assert!(b <= layout.query_fp_ungated(s, e, &hi) + 1e-15);
    }
}

#[test]
fn gated_allocation_is_a_fixed_point_and_beats_the_ungated_one() {
    let layout = PbfLayout::pbf1(512, 4).unwrap();
    let pairs = random_pairs(4000, 300, 512, 11);
    let queries: Vec<(u64, u64)> = (0..400u64)
        .map(|i| (1 + (i * 37) % 450, 1 + (i * 37) % 450 + 40))
        .collect();
    let st = workload_stats(&layout, &pairs, &queries).unwrap();
    let by_leaf = fine_probes_by_leaf(&layout, &queries).unwrap();
    let fine = layout.fine_filter().unwrap() as usize;
    // Ungated counts: f_{u+1} is the total of the per-leaf counts.
    assert_relative_eq!(
        st.frequency[fine],
        by_leaf.iter().sum::<f64>(),
        max_relative = 1e-12
    );
    let prob = AllocationProblem::new(30_000, st.distinct.clone(), st.frequency.clone()).unwrap();
    let (gated, rounds) = prob.optimal_gated(fine, &by_leaf, 16).unwrap();
    assert!(rounds < 50, "{rounds}");
    let implied: f64 = (0..by_leaf.len())
        .filter(|&o| by_leaf[o] > 0.0 && st.distinct[o] > 0.0)
        .map(|o| (-LN2_SQ * gated.bits[o] / st.distinct[o]).exp() * by_leaf[o])
        .sum();
    let mut f = st.frequency.clone();
    f[fine] = implied;
    let again = AllocationProblem::new(30_000, st.distinct.clone(), f)
        .unwrap()
        .optimal(16)
        .unwrap();
    for (x, y) in gated.bits.iter().zip(&again.bits) {
        assert_relative_eq!(x, y, max_relative = 1e-6, epsilon = 1e-9);
    }
    // The route-exact FP of the workload is lower with the gated optimum.
    let fp_of = |a: &Allocation| -> Vec<f64> {
        (0..a.bits.len())
            .map(|i| filter_fp(a.bits_rounded[i], a.hashes[i], st.distinct[i]))
            .collect()
    };
    let ungated = prob.optimal(16).unwrap();
    let fp_g = mean_query_fp(&layout, &queries, &fp_of(&gated)).unwrap();
    let fp_u = mean_query_fp(&layout, &queries, &fp_of(&ungated)).unwrap();
    assert!(fp_g < fp_u, "{fp_g} vs {fp_u}");
    assert!(prob.optimal_gated(fine + 1, &by_leaf, 16).is_err());
}

#[test]
fn filter_fp_matches_the_classic_formula_and_the_exact_law() {
    use crate::classic::{fp_exact_standard, fp_standard};
    for (m, k, d) in [
        (12u64, 9u32, 1.0),
        (1000, 7, 100.0),
        (1 << 20, 16, 30_000.0),
    ] {
        assert_relative_eq!(
            filter_fp(m, k, d),
            fp_standard(m as f64, f64::from(k), d),
            max_relative = 1e-12
        );
        let exact = fp_exact_standard(m, k, d as u64, 1e6);
        if let Some(x) = exact {
            assert_relative_eq!(filter_fp_with_budget(m, k, d, 1e6), x, max_relative = 1e-12);
        }
    }
    // At 12 bits and one item the formula is about half the exact law.
    let (f, x) = (
        filter_fp(12, 9, 1.0),
        filter_fp_with_budget(12, 9, 1.0, 1e6),
    );
    assert!(x > 1.5 * f, "{x} vs {f}");
}

// Issue 10: numerical extremes and the whole valid space.

/// `(T, g, s, e)` with `T` up to 2^40, `g` a power of two up to `T`, and a range that
/// often sits at an edge (`s = 1`, `e = T`, length 1, length `T`).
fn extreme_ranges() -> impl Strategy<Value = (u64, u64, u64, u64)> {
    (1u32..=40, 0u32..=20).prop_flat_map(|(t_bits, g_bits)| {
        let max_t = 1u64 << t_bits;
        (
            prop_oneof![Just(max_t), (max_t / 2).max(1)..=max_t],
            Just(1u64 << g_bits.min(t_bits)),
        )
            .prop_flat_map(|(t, g)| {
                (
                    Just(t),
                    Just(g),
                    prop_oneof![Just(1u64), Just(t), 1..=t],
                    prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
                )
            })
            .prop_map(|(t, g, s, len)| {
                let e = s.saturating_add(len % t).min(t);
                (t, g, s, e)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Covers at any horizon up to 2^40: the probes tile `[s, e]`, respect the
    /// structure's bound, and the query FP is a probability for any filter FPs.
    #[test]
    fn covers_tile_the_range_at_any_horizon((t, g, s, e) in extreme_ranges(), p in 0.0f64..=1.0) {
        let d = Decomposition::new(t, g).unwrap();
        let mut covered = 0u64;
        let mut probes = 0u64;
        let mut last = 0u64;
        d.probes(s, e, |pr| {
            probes += 1;
            let (a, b) = match pr {
                Probe::Cover { node } => d.span(node),
                Probe::Partial { from, to, .. } => (from, to),
            };
            assert!(a > last && s <= a && b <= e, "left to right, inside [s, e]");
            last = b;
            covered += b - a + 1;
        });
        prop_assert_eq!(covered, e - s + 1);
        prop_assert!(probes <= 2 * u64::from(d.levels()) + 2);
        for variant in [Variant::Pbf1, Variant::Pbf2] {
            if variant == Variant::Pbf2 && g > 1 {
                continue;
            }
            let layout = PbfLayout::new(variant, t, g).unwrap();
            if layout.filters() > 100_000 {
                prop_assert!(variant == Variant::Pbf1);
                prop_assert!(layout.check_materialisable().is_err() == (layout.filters() > PbfLayout::MAX_FILTERS));
                continue;
            }
            let fp = vec![p; layout.filters() as usize];
            let q = layout.query_fp(s, e, &fp);
            prop_assert!((0.0..=1.0).contains(&q) && q.is_sign_positive());
            prop_assert!(q <= layout.query_fp_ungated(s, e, &fp) + 1e-15);
        }
    }

    /// Eq. (14) over the valid space: finite, positive, and more bits for a smaller FP or
    /// a longer query.
    #[test]
    fn bound_is_finite_and_monotone(
        pairs in 1u64..=(1 << 50),
        t_bits in 1u32..=40,
        fp_exp in -15.0f64..-0.05,
        g_bits in 0u32..=20,
        q_frac in 0.0f64..=1.0,
    ) {
        let t = 1u64 << t_bits;
        let g = 1u64 << g_bits.min(t_bits);
        let q_min = g.max(2);
        let q = (q_min + ((t - q_min) as f64 * q_frac) as u64).min(t);
        let fp = 10f64.powf(fp_exp);
        let b = BoundRequest::new(pairs, t, fp, q, g).unwrap().bound();
        prop_assert!(b.bits.is_finite() && b.bits > 0.0);
        prop_assert!(b.bits_levels.is_finite() && b.bits_levels > 0.0);
        let tighter = BoundRequest::new(pairs, t, fp / 10.0, q, g).unwrap().bound();
        prop_assert!(tighter.bits > b.bits);
        if q < t {
            let longer = BoundRequest::new(pairs, t, fp, t, g).unwrap().bound();
            prop_assert!(longer.bits >= b.bits * (1.0 - 1e-12));
        }
    }

    /// The allocation over extreme inputs: up to 2^50 bits, d_i up to 1e12, tiny and huge
    /// f_i: no NaN, bits sum to m, probabilities in [0, 1] and not −0.
    #[test]
    fn allocation_survives_extremes(
        m_bits in 0u32..=50,
        d in proptest::collection::vec(prop_oneof![Just(0.0), 1e-300f64..1e-200, 1.0f64..1e12], 1..8),
        f_seed in proptest::collection::vec(prop_oneof![Just(0.0), 1e-300f64..1e-200, 1e-6f64..1e6], 8),
        k_max in 1u32..=64,
    ) {
        let m = 1u64 << m_bits;
        let f = f_seed[..d.len()].to_vec();
        let prob = AllocationProblem::new(m, d.clone(), f).unwrap();
        for a in [prob.optimal(k_max).unwrap(), prob.uniform(k_max).unwrap()] {
            prop_assert!(a.bits.iter().all(|b| b.is_finite() && *b >= 0.0));
            prop_assert_eq!(a.bits_rounded.iter().sum::<u64>(), m);
            for p in [a.fp, a.fp_rounded] {
                prop_assert!((0.0..=1.0).contains(&p) && p.is_sign_positive(), "{p}");
            }
            prop_assert!(a.hashes.iter().all(|&k| k <= k_max));
        }
    }

    /// Merging any two filter shapes: `m*` divides both sizes, `k*` is the smaller `k`,
    /// and the FP is a probability.
    #[test]
    fn merged_shapes_divide_both(
        a in 1u64..=(1 << 40), b in 1u64..=(1 << 40),
        ka in 1u32..=64, kb in 1u32..=64,
        items in 0u64..1_000_000, per in 0u64..64,
    ) {
        let s = MergedShape::of(a, ka, b, kb).unwrap();
        prop_assert!(a % s.bits == 0 && b % s.bits == 0);
        prop_assert_eq!(s.hashes, ka.min(kb));
        let p = s.fp(items, items * per, 1e5);
        prop_assert!((0.0..=1.0).contains(&p));
    }
}

/// Every invalid value is rejected with the parameter named, never computed.
#[test]
fn invalid_extremes_are_rejected_by_name() {
    let name = |e: crate::ModelError| e.to_string();
    for (t, g) in [
        (0, 1),
        ((1 << 40) + 1, 1),
        (100, 3),
        (100, 1 << 21),
        (100, 0),
    ] {
        let e = name(Decomposition::new(t, g).unwrap_err());
        assert!(e.contains("horizon") || e.contains("granularity"), "{e}");
    }
    // PBF-1 with T/g beyond what can be materialised: a clear error, not an allocation.
    let huge = PbfLayout::pbf1(1 << 40, 1).unwrap();
    assert!(name(huge.check_materialisable().unwrap_err()).contains("horizon"));
    assert!(distinct_counts(&huge, &[(1, 1)]).is_err());
    assert!(probe_frequencies(&huge, &[(1, 2)]).is_err());
    assert!(PbfLayout::pbf2(1 << 40)
        .unwrap()
        .check_materialisable()
        .is_ok());
    for (pairs, t, fp, q, g) in [
        (0, 100, 0.01, 4, 1),
        (1 << 51, 100, 0.01, 4, 1),
        (10, 1, 0.01, 1, 1),
        (10, 100, 0.0, 4, 1),
        (10, 100, 1.0, 4, 1),
        (10, 100, f64::NAN, 4, 1),
        (10, 100, f64::INFINITY, 4, 1),
        (10, 100, 0.01, 1, 1),
        (10, 100, 0.01, 101, 1),
        (10, 100, 0.01, 4, 8),
    ] {
        let e = BoundRequest::new(pairs, t, fp, q, g).unwrap_err();
        assert!(
            ["pairs", "horizon", "fp", "query_length", "granularity"]
                .iter()
                .any(|n| e.to_string().contains(n)),
            "{e}"
        );
    }
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, -1e-300] {
        assert!(AllocationProblem::new(10, vec![bad], vec![1.0]).is_err());
        assert!(AllocationProblem::new(10, vec![1.0], vec![bad]).is_err());
    }
    assert!(AllocationProblem::new(0, vec![1.0], vec![1.0]).is_err());
    assert!(AllocationProblem::new((1 << 50) + 1, vec![1.0], vec![1.0]).is_err());
    let p = AllocationProblem::new(10, vec![1.0], vec![1.0]).unwrap();
    assert!(p.optimal(65).is_err() && p.uniform(0).is_err());
    assert!(MergedShape::of(8, 0, 8, 1).is_err());
}

/// Issue 17 (a fuzz input): a filter whose FP `p ≈ e^(−818)` is below the smallest `f64`
/// but is probed 1e308 times contributes `f·p ≈ 6.3e-48`; the rounded FP keeps it (it
/// was 0) and agrees with its log-space form.
#[test]
fn a_filter_fp_below_the_smallest_f64_probed_often_still_counts() {
    let problem =
        AllocationProblem::new(2_037_136_148, vec![27.6, 46.8], vec![1e308, 10.5]).unwrap();
    let a = problem.optimal(63).unwrap();
    assert!(filter_fp(a.bits_rounded[0], a.hashes[0], 27.6) == 0.0);
    assert!(
        a.fp_rounded > 1e-60 && a.fp_rounded < 1e-40,
        "{}",
        a.fp_rounded
    );
    assert_relative_eq!(
        a.fp_rounded.ln(),
        problem.ln_fp_rounded(&a),
        max_relative = 1e-12
    );
    // The continuous optimum's FP is far below the smallest f64 (its log only).
    assert!(
        a.fp == 0.0 && problem.ln_fp(&a) < -1e6,
        "{}",
        problem.ln_fp(&a)
    );
    // The same filter with `p` a normal number: the f64 form as before.
    assert_eq!(
        allocation::log_survival(2.0, 0.25, || unreachable!()),
        2.0 * (-0.25f64).ln_1p()
    );
    assert_eq!(allocation::log_survival(0.0, 0.0, || unreachable!()), 0.0);
    assert_relative_eq!(
        allocation::log_survival(1e308, 0.0, || -818.0),
        -(1e308f64.ln() - 818.0).exp(),
        max_relative = 1e-15
    );
}

/// Issue 17 (a fuzz input): `f_i/d_i = 1e308/0.5` overflowed, so the continuous split
/// was NaN (`model pbf` printed `"bits": null`). The split depends on the frequencies only
/// up to a common factor, so it must equal the split with every frequency scaled down.
#[test]
fn an_overflowing_frequency_ratio_still_splits_the_bits() {
    let (bits, d) = (504_556_617_894u64, vec![0.5, 90.3]);
    let big = AllocationProblem::new(bits, d.clone(), vec![1e308, 52.9]).unwrap();
    let scaled = 2f64.powi(-40);
    let small = AllocationProblem::new(bits, d, vec![1e308 * scaled, 52.9 * scaled]).unwrap();
    let (a, b) = (big.optimal(42).unwrap(), small.optimal(42).unwrap());
    for (x, y) in a.bits.iter().zip(&b.bits) {
        assert!(x.is_finite());
        assert_relative_eq!(*x, *y, max_relative = 1e-12);
    }
    assert_relative_eq!(
        a.bits.iter().sum::<f64>(),
        bits as f64,
        max_relative = 1e-12
    );
    // The multiplier −μ may be below the smallest f64 here (μ is tiny against f_i).
    assert!(a.lambda.unwrap() <= 0.0 && b.lambda.unwrap() <= 0.0);
    assert!((0.0..=1.0).contains(&a.fp) && (0.0..=1.0).contains(&a.fp_rounded));
}
