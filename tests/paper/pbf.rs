//! Numbers and worked examples printed in the PBF paper (`001_2b1de25c23e3527a.txt`):
//! Eq. (3), the examples of Figures 3 and 5, the filter and level counts of Sections 4-5
//! and Appendix D.2, and the space bound of Eq. (14) / Theorem C.3.

use crate::common::assert_printed;
use bfopt_models::pbf::{
    fp_auxiliary, fp_optimal_k, BoundRequest, Decomposition, Node, PbfLayout, Probe, LN2_SQ,
};
use bfopt_models::printed::Printing::Rounded;

/// The paper's 1-based level-order index `I_j`, `j = 2^ℓ + position`.
fn paper_index(node: Node) -> u64 {
    (1 << node.level) + node.pos
}

/// `(I_j indices of the cover, partial leaves as (I_j, from, to))` of `[s, e]`.
fn cover(d: &Decomposition, s: u64, e: u64) -> (Vec<u64>, Vec<(u64, u64, u64)>) {
    let (mut c, mut p) = (Vec::new(), Vec::new());
    d.probes(s, e, |probe| match probe {
        Probe::Cover { node } => c.push(paper_index(node)),
        Probe::Partial { node, from, to } => p.push((paper_index(node), from, to)),
    });
    (c, p)
}

#[test]
fn eq3_optimal_filter_fp_per_bit_per_item() {
    // "p(b) = 2^(−(m/n) ln 2) ≈ 0.6185^(m/n)" (Eq. 3 [PBF]).
    assert_printed(
        "Eq. (3) [PBF]",
        "m/n = 1",
        "p(b)",
        fp_optimal_k(1.0),
        "0.6185",
        Rounded,
    );
}

#[test]
fn figure3_pbf1_example() {
    // "Figure 3: Example of PBF-1: g = 2, T = 8, L = 3", u = 2T/g − 1 = 7 intervals.
    let d = Decomposition::new(8, 2).unwrap();
    assert_eq!((d.levels(), d.intervals()), (3, 7));
    assert_eq!(
        PbfLayout::pbf1(8, 2).unwrap().filters(),
        8,
        "b_1..b_7 and b_{{u+1}}"
    );
    // "the cover C([1, 6]) is {I2, I6}, and the cover C([1, 5]) is {I2}"; I2 = [1, 4],
    // I6 = [5, 6].
    assert_eq!(cover(&d, 1, 6), (vec![2, 6], vec![]));
    let (c, p) = cover(&d, 1, 5);
    assert_eq!(c, vec![2]);
    // I(C([1,5])) = [1, 4]: the rest, [5, 5], is a partial leaf I6 = [5, 6].
    assert_eq!(p, vec![(6, 5, 5)]);
    assert_eq!(d.span(Node { level: 1, pos: 0 }), (1, 4));
    assert_eq!(d.span(Node { level: 2, pos: 2 }), (5, 6));
    // "C([4, 5]) is ∅": both timestamps fall in partial leaves I5 = [3,4] and I6 = [5,6].
    assert_eq!(cover(&d, 4, 5), (vec![], vec![(5, 4, 4), (6, 5, 5)]));
    // q(z, [5, 7]): "C([5, 7]) = {I6} … I_{o1} = I7 … we send the query q(z, [7, 7]) to
    // b_8 = β0".
    assert_eq!(cover(&d, 5, 7), (vec![6], vec![(7, 7, 7)]));
}

#[test]
fn figure5_pbf2_example() {
    // "An example for T = 8": L = ⌈log T⌉ + 1 = 4 levels, g_ℓ = 2^(L−1−ℓ).
    let layout = PbfLayout::pbf2(8).unwrap();
    let d = layout.tree();
    assert_eq!(d.levels(), 4);
    let g: Vec<u64> = (0..4).map(|l| d.length(l)).collect();
    assert_eq!(g, vec![8, 4, 2, 1]);
    // "(y, 4) ∈ A is mapped to (y, 1) in A0, (y, 1) in A1, (y, 2) in A2, and (y, 4) in
    // A3" (M_ℓ(t) = ⌈t/g_ℓ⌉ = position + 1).
    let mapped: Vec<u64> = (0..4).map(|l| d.node_of(l, 4).pos + 1).collect();
    assert_eq!(mapped, vec![1, 1, 2, 4]);
    // "The cover of [1, 6] is {[1, 4], [5, 6]}, which are intervals I2 and I6 … q1 = q(y, 1)
    // against b1 in level 1 and q2 = q(y, 3) against b2 in level 2."
    let probes: Vec<(u64, u64, u64)> = d
        .probe_list(1, 6)
        .into_iter()
        .map(|p| match p {
            Probe::Cover { node } => (paper_index(node), layout.filter_of(node), node.pos + 1),
            Probe::Partial { .. } => panic!("PBF-2 has no partial leaves"),
        })
        .collect();
    assert_eq!(probes, vec![(2, 1, 1), (6, 2, 3)]);
}

#[test]
fn one_day_counts_of_sections_5_and_d2() {
    // Section 5.1: u = 2T/g − 1 intervals; issue 7 / Section 7: "about 43,000 filters"
    // for PBF-1 at T = 86 400, g = 4. The aligned tree over [1, 4·2^15] has 43 205
    // intervals that start in [1, T] (2T/g − 1 = 43 199 assumes T/g a power of two).
    let p1 = PbfLayout::pbf1(86_400, 4).unwrap();
    assert_eq!(p1.levels(), 16);
    assert_eq!(p1.filters(), 43_206);
    assert!((42_500..43_500).contains(&p1.filters()), "about 43,000");
    assert_eq!(2 * 86_400 / 4 - 1, 43_199);
    // Appendix D.2: "for each insertion in SBF it takes ⌈1 + log(86400)⌉ = 17 insertions
    // for PBF": 17 is PBF-1's count at g = 4 (16 levels and b_{u+1}); the printed formula
    // is PBF-2's L = ⌈log2 86400⌉ + 1 = 18 (erratum in the module doc).
    assert_eq!(p1.insertions_per_pair(), 17);
    let p2 = PbfLayout::pbf2(86_400).unwrap();
    assert_eq!(p2.insertions_per_pair(), 18);
    assert_eq!((1.0 + 86_400f64.log2()).ceil(), 18.0);
    assert_eq!(p2.filters(), 18);
}

#[test]
fn query_frequency_bounds() {
    // Section 5.1: f_i ≤ 1 for interval filters; Section 5.2: f_ℓ ≤ 2 for PBF-2 levels.
    // Section 5.1 also says f_{u+1} ≤ g, but Appendix B.2's "at most (2g − 2)
    // timestamps" is the tight bound: at g = 4 the query [2, 15] probes b_{u+1} six
    // times ([2,4] and [13,15]).
    let p1 = PbfLayout::pbf1(16, 4).unwrap();
    let mut c = vec![0.0; p1.filters() as usize];
    p1.add_probe_counts(2, 15, &mut c);
    assert_eq!(c[p1.fine_filter().unwrap() as usize], 6.0);
    let worst = (1..=16u64)
        .flat_map(|s| (s..=16).map(move |e| (s, e)))
        .map(|(s, e)| {
            let mut c = vec![0.0; p1.filters() as usize];
            p1.add_probe_counts(s, e, &mut c);
            c[p1.fine_filter().unwrap() as usize]
        })
        .fold(0.0, f64::max);
    assert_eq!(worst, 2.0 * 4.0 - 2.0);
}

#[test]
fn eq14_theorem_c3_inverts_eq15() {
    // Eq. (14) (Appendix form) solves Eq. (15) for m; with the EDGAR day of Section 7
    // (n = 2,127,749 distinct pairs, T = 86 400) at |q| = 128 and p = 1%.
    let r = BoundRequest::new(2_127_749, 86_400, 0.01, 128, 1).unwrap();
    let b = r.bound();
    let p = fp_auxiliary(b.bits, 2_127_749, 86_400, b.probes);
    assert!((p - 0.01).abs() < 1e-12, "{p}");
    // The Section 5.3 printing multiplies by ln²2 instead: ln⁴2 times smaller, FP ≫ p.
    assert!((b.bits_section_5_3 / b.bits - LN2_SQ * LN2_SQ).abs() < 1e-12);
    assert!(fp_auxiliary(b.bits_section_5_3, 2_127_749, 86_400, b.probes) > 0.5);
}

#[test]
fn section7_day_statistics_scaled() {
    // Section 7 / Figure 7 [PBF]: EDGAR 5,582,073 entries, 2,127,749 distinct pairs,
    // 25,497 clients; Network 2,546,560 / 2,199,573 / 124,427. The synthetic days hit the
    // pairs and clients exactly (scaled) and the entries per pair in expectation.
    use bfopt_validation::experiments::pbf::TraceSpec;
    for (spec, entries) in [
        (TraceSpec::edgar(0.01), 5_582_073.0),
        (TraceSpec::network(0.01), 2_546_560.0),
    ] {
        let trace = spec.generate(7).unwrap();
        let pairs = bfopt_models::pbf::distinct_pairs(&trace);
        let mut items: Vec<u64> = trace.iter().map(|p| p.0).collect();
        items.sort_unstable();
        items.dedup();
        assert_eq!(pairs, spec.pairs, "{}", spec.name);
        assert_eq!(items.len() as u64, spec.clients, "{}", spec.name);
        let ratio = trace.len() as f64 / pairs as f64;
        let want = entries / (spec.pairs as f64 / 0.01);
        assert!(
            (ratio / want - 1.0).abs() < 0.03,
            "{}: {ratio} vs {want}",
            spec.name
        );
        assert!(trace.windows(2).all(|w| w[0].1 <= w[1].1), "time order");
        assert!(trace.iter().all(|&(_, t)| (1..=86_400).contains(&t)));
    }
}
