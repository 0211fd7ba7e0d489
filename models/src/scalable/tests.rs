use super::*;
use crate::classic::Layout;

fn params(n0: u64, p0: f64, r: f64, s: f64) -> ScalableParams {
    ScalableParams::new(n0, p0, r, s, Layout::Partitioned).unwrap()
}

#[test]
fn links_cover_the_count() {
    // Capacities 1000, 2000, 4000, 8000: cumulative 1000, 3000, 7000, 15000.
    let p = params(1000, 0.005, 0.5, 2.0);
    for (n, links) in [
        (0, 1),
        (1, 1),
        (1000, 1),
        (1001, 2),
        (7000, 3),
        (7001, 4),
        (15_000, 4),
    ] {
        assert_eq!(p.links_for(n).unwrap(), links, "n = {n}");
    }
    assert_eq!(p.link_capacity(3), 8000);
    assert!((p.link_fp(3) - 0.005 / 8.0).abs() < 1e-18);
    assert!((p.fp_limit() - 0.01).abs() < 1e-15);
}

#[test]
fn empty_chain_has_no_false_positive() {
    let x = params(1000, 0.01, 0.5, 2.0)
        .chain(0)
        .unwrap()
        .at(0)
        .unwrap();
    assert_eq!((x.links, x.fp), (1, 0.0));
    assert_eq!(x.accesses_query_false, 1.0);
}

#[test]
fn compound_is_one_minus_product_of_link_fps_at_their_fill() {
    let p = params(1000, 0.004, 0.6, 3.0);
    let chain = p.chain(20_000).unwrap();
    // 1000 + 3000 + 9000 = 13000; link 3 holds 7000 of its 27000.
    let x = chain.at(20_000).unwrap();
    assert_eq!(x.links, 4);
    let fills = [1000, 3000, 9000, 7000];
    let mut keep = 1.0;
    for (l, items) in chain.links().iter().zip(fills) {
        let f = ClassicParams::new(l.m, l.k, items, Layout::Partitioned)
            .unwrap()
            .fp();
        keep *= 1.0 - f;
    }
    assert!((x.fp - (1.0 - keep)).abs() <= 1e-14 * x.fp);
    assert_eq!(
        x.memory_bits,
        chain.links().iter().map(|l| l.m).sum::<u64>()
    );
    // Every link sized for its target, and full links near it.
    for (i, l) in chain.links().iter().enumerate() {
        assert!((l.fp_target - 0.004 * 0.6f64.powi(i as i32)).abs() < 1e-15);
        assert_eq!(l.capacity, 1000 * 3u64.pow(i as u32));
    }
    assert!(x.link_fp[0] <= 0.004 && x.link_fp[0] > 0.0039);
}

#[test]
fn compound_grows_with_the_count() {
    let chain = params(100, 0.01, 0.5, 2.0).chain(3100).unwrap();
    let mut last = 0.0;
    for n in (0..=3100).step_by(50) {
        let fp = chain.at(n).unwrap().fp;
        assert!(fp >= last, "n = {n}: {fp} < {last}");
        last = fp;
    }
}

#[test]
fn paper_layout_adds_log2_one_over_r_slices_per_link() {
    // r = 1/2: each link's target halves, so a partitioned link needs one more slice
    // (Section 4 [SCALABLE]: k_i = k_0 + i·log2(1/r)).
    let chain = params(10_000, 0.01, 0.5, 2.0).chain(300_000).unwrap();
    let ks: Vec<u32> = chain.links().iter().map(|l| l.k).collect();
    assert_eq!(ks.len(), 5);
    for w in ks.windows(2) {
        assert!(w[1] == w[0] || w[1] == w[0] + 1, "{ks:?}");
    }
    assert!(ks[4] >= ks[0] + 3, "{ks:?}");
}

#[test]
fn presets_meet_the_target_however_far_they_grow() {
    for preset in Preset::ALL {
        for layout in [Layout::Standard, Layout::Partitioned] {
            let p = preset.params(0.01, 1000, layout).unwrap();
            assert!(p.fp_limit() <= 0.01 * (1.0 + 1e-12));
            let chain = p.chain(1_000_000).unwrap();
            for n in [1, 999, 1000, 5000, 100_000, 1_000_000] {
                let fp = chain.at(n).unwrap().fp;
                assert!(fp <= 0.01, "{preset:?} {layout:?} n = {n}: {fp}");
            }
        }
    }
}

#[test]
fn sized_chain_meets_the_target_with_less_memory_than_the_library_rule() {
    let req = ScalableRequirement::new(0.01, 1000, 100_000, Layout::Standard).unwrap();
    for preset in Preset::ALL {
        let sized = size_chain(&req, preset.r(), preset.s()).unwrap();
        assert!(sized.at_n.fp <= 0.01);
        assert!(sized.params.p0() > 0.01 * (1.0 - preset.r()));
        let library =
            ScalableDesign::evaluate(preset.params(0.01, 1000, Layout::Standard).unwrap(), &req)
                .unwrap();
        assert!(
            sized.at_n.memory_bits < library.at_n.memory_bits,
            "{preset:?}"
        );
        // Nearly tight: a 5% looser first link would miss.
        let looser = ScalableParams::new(
            1000,
            sized.params.p0() * 1.05,
            preset.r(),
            2.0,
            Layout::Standard,
        )
        .unwrap();
        assert!(looser.chain(100_000).unwrap().at(100_000).unwrap().fp > 0.01);
    }
}

#[test]
fn optimum_beats_both_presets_and_meets_the_target() {
    let req = ScalableRequirement::new(0.01, 10_000, 1_000_000, Layout::Standard).unwrap();
    let best = design(&req).unwrap();
    assert!(best.at_n.fp <= 0.01);
    assert_eq!(best.at_n.n, 1_000_000);
    for preset in Preset::ALL {
        let d = size_chain(&req, preset.r(), preset.s()).unwrap();
        assert!(best.at_n.memory_bits <= d.at_n.memory_bits, "{preset:?}");
    }
    // A classic filter sized for n up front is the floor a chain cannot beat at n.
    let classic = crate::classic::design(
        &crate::classic::ClassicRequirement::new(0.01, 1_000_000, Layout::Standard).unwrap(),
    )
    .unwrap();
    assert!(best.at_n.memory_bits > classic.params.m());
    assert!(best.at_n0.memory_bits < classic.params.m());
}

#[test]
fn growth_that_ends_at_n() {
    let s = design::growth_ending_at_for_tests(1000, 15_000, 4).unwrap();
    assert!((s - 2.0).abs() < 1e-9);
    assert!(design::growth_ending_at_for_tests(1000, 500, 4).is_none());
}

#[test]
fn bad_input_names_the_parameter() {
    let msg = |e: ModelError| e.to_string();
    let l = Layout::Standard;
    assert!(msg(ScalableParams::new(0, 0.01, 0.5, 2.0, l).unwrap_err()).contains("n0"));
    assert!(msg(ScalableParams::new(10, 1.5, 0.5, 2.0, l).unwrap_err()).contains("p0"));
    assert!(msg(ScalableParams::new(10, 0.01, 1.0, 2.0, l).unwrap_err()).contains("r"));
    assert!(msg(ScalableParams::new(10, 0.01, f64::NAN, 2.0, l).unwrap_err()).contains("r"));
    assert!(msg(ScalableParams::new(10, 0.01, 0.5, 0.5, l).unwrap_err()).contains("s"));
    assert!(msg(ScalableParams::new(10, 0.01, 0.5, f64::INFINITY, l).unwrap_err()).contains("s"));
    assert!(msg(ScalableRequirement::new(0.01, 10, 0, l).unwrap_err()).contains("n ="));
    // s = 1 with a tiny first link cannot reach 2^50 items in 64 links.
    let p = ScalableParams::new(1, 0.01, 0.5, 1.0, l).unwrap();
    assert!(matches!(p.chain(1000), Err(ModelError::Infeasible { .. })));
    let chain = p.chain(10).unwrap();
    assert!(msg(chain.at(11).unwrap_err()).contains("n = 11"));
}

/// `design_and_presets` returns `design`'s chain and each preset's `size_chain` chain:
/// the planner's rows need not size the presets twice (issue 18).
#[test]
fn design_and_presets_match_separate_sizing() {
    for (fp, n0, n) in [
        (0.01, 10_000u64, 1_000_000u64),
        (1e-4, 100, 50_000),
        (0.05, 1000, 1000),
    ] {
        let req = ScalableRequirement::new(fp, n0, n, Layout::Standard).unwrap();
        let (best, presets) = design_and_presets(&req).unwrap();
        assert_eq!(best, design(&req).unwrap());
        assert_eq!(presets.len(), Preset::ALL.len());
        for (preset, got) in Preset::ALL.into_iter().zip(presets) {
            assert_eq!(got, size_chain(&req, preset.r(), preset.s()), "{preset:?}");
        }
    }
}

#[test]
fn fp_limit_is_a_probability() {
    // Found by the `models` fuzz target (issue 17): P0/(1 − r) = 4.7 was printed as the
    // limit of a probability.
    let p = ScalableParams::new(715_941, 0.569_881, 0.878_669, 2.0, Layout::Standard).unwrap();
    assert_eq!(p.fp_limit(), 1.0);
    let q = ScalableParams::new(1000, 0.005, 0.5, 2.0, Layout::Standard).unwrap();
    assert!((q.fp_limit() - 0.01).abs() < 1e-15);
}
