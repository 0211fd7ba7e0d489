//! `bfopt audit` (issue 22): JSON shape, a bitmap round trip through a reference filter,
//! the documented bit order.

use super::{bfopt, json, temp_file};
use bfopt_models::classic::{ClassicParams, Layout};
use bfopt_validation::filters::classic::ClassicFilter;
use bfopt_validation::workload::member;
use serde::Deserialize;

/// `bfopt audit classic --format json`; unknown keys fail the test.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditJson {
    family: String,
    params: AuditParams,
    metrics: AuditMetrics,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditParams {
    m: u64,
    k: u32,
    layout: String,
    source: String,
    block_bits: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditMetrics {
    ones: u64,
    bits_in_use: u64,
    fill: f64,
    items: Option<f64>,
    items_sd: Option<f64>,
    items_lo: f64,
    items_hi: Option<f64>,
    confidence: f64,
    fp: f64,
    fp_kind: String,
    fp_target: Option<f64>,
    headroom: Option<u64>,
    exceeded: Option<bool>,
    headroom_kind: Option<String>,
    ones_per_slice: Option<Vec<u64>>,
}

#[test]
fn audit_classic_json_shape_and_values() {
    let j: AuditJson = json("audit classic --bits 1e6 --hashes 7 --ones 400000 --fp 0.01");
    assert_eq!(j.family, "classic");
    assert_eq!((j.params.m, j.params.k), (1_000_000, 7));
    assert_eq!(
        (j.params.layout.as_str(), j.params.source.as_str()),
        ("standard", "ones")
    );
    let m = &j.metrics;
    assert_eq!((m.ones, m.bits_in_use, m.fill), (400_000, 1_000_000, 0.4));
    // n̂ = ln(1 − X/m) / (k ln(1 − 1/m))
    let expected = (0.6f64).ln() / (7.0 * (-1e-6f64).ln_1p());
    approx::assert_relative_eq!(m.items.unwrap(), expected, max_relative = 1e-12);
    assert!(m.items_lo < expected && expected < m.items_hi.unwrap());
    assert!(m.items_sd.unwrap() > 0.0);
    assert_eq!(m.confidence, 0.95);
    approx::assert_relative_eq!(m.fp, 0.4f64.powi(7), max_relative = 1e-12);
    assert_eq!(m.fp_kind, "exact");
    assert_eq!((m.fp_target, m.exceeded), (Some(0.01), Some(false)));
    assert_eq!(m.headroom_kind.as_deref(), Some("exact"));
    // The headroom is where (1 − 0.6·(1 − 1/m)^(7j))^7 reaches 0.01.
    let h = m.headroom.unwrap() as f64;
    let fp_at = |j: f64| (1.0 - 0.6 * (7.0 * j * (-1e-6f64).ln_1p()).exp()).powi(7);
    assert!(fp_at(h) <= 0.01 && fp_at(h + 1.0) > 0.01, "{h}");
    assert!(m.ones_per_slice.is_none() && j.params.block_bits.is_none());
}

#[test]
fn audit_exceeded_target_and_saturated_filter() {
    let j: AuditJson = json("audit classic --bits 1000 --hashes 4 --layout partitioned --ones 120,118,125,121 --fp 0.001");
    assert_eq!(j.metrics.exceeded, Some(true));
    assert_eq!(j.metrics.headroom, Some(0));
    assert_eq!(j.metrics.ones_per_slice, Some(vec![120, 118, 125, 121]));
    let full: AuditJson = json("audit classic --bits 1000 --hashes 4 --ones 1000");
    assert!(full.metrics.items.is_none() && full.metrics.items_hi.is_none());
    assert_eq!(full.metrics.fp, 1.0);
    let blocked: AuditJson =
        json("audit classic --bits 8192 --hashes 7 --layout blocked --ones 4000 --fp 0.01");
    assert_eq!(blocked.metrics.fp_kind, "model");
    assert_eq!(blocked.params.block_bits, Some(512));
}

/// Bit `i` of a reference filter read straight from its bit array, and the per-slice
/// counts, independent of any byte order.
fn slice_counts(f: &ClassicFilter, slices: u64, slice: u64) -> Vec<u64> {
    (0..slices)
        .map(|s| {
            (s * slice..(s + 1) * slice)
                .filter(|&i| f.bits().get(i))
                .count() as u64
        })
        .collect()
}

#[test]
fn bitmap_round_trip_through_a_reference_filter() {
    // Fill reference filters, dump their bits in the documented order (bit i is
    // (byte[i/8] >> (i%8)) & 1), audit the file: the counts and the FP must be those of
    // the filter's own bits, and the interval must cover the items inserted.
    for (layout, name) in [
        (Layout::Standard, "standard"),
        (Layout::Partitioned, "partitioned"),
    ] {
        let (m, k, n) = (10_007u64, 5u32, 1_200u64);
        let params = ClassicParams::new(m, k, n, layout).unwrap();
        let mut f = ClassicFilter::new(&params, 22);
        (0..n).for_each(|i| f.insert_u64(member(22, i)));
        let path = temp_file("audit", &format!("{name}.bin"), f.bits().to_le_bytes());
        let line = format!(
            "audit classic --hashes {k} --bits {m} --layout {name} --bitmap {} --confidence 0.999",
            path.display()
        );
        let j: AuditJson = json(&line);
        assert_eq!(j.params.source, "bitmap");
        let slices = if layout == Layout::Partitioned {
            u64::from(k)
        } else {
            1
        };
        let counts = slice_counts(&f, slices, f.bits_in_use() / slices);
        assert_eq!(j.metrics.ones, counts.iter().sum::<u64>(), "{name}");
        if layout == Layout::Partitioned {
            assert_eq!(j.metrics.ones_per_slice.as_ref(), Some(&counts));
        }
        approx::assert_relative_eq!(j.metrics.fp, f.state_fp(), max_relative = 1e-12);
        let (lo, hi) = (j.metrics.items_lo, j.metrics.items_hi.unwrap());
        assert!(
            lo <= n as f64 && n as f64 <= hi,
            "{name}: [{lo}, {hi}] misses {n}"
        );
    }
    // Without --bits the file's length is m: 1024 bytes = 8192 bits, one 512-bit block
    // per 64 bytes; a blocked bitmap gives the exact FP from its per-block counts.
    let params = ClassicParams::new(8192, 6, 700, Layout::Blocked { block_bits: 512 }).unwrap();
    let mut f = ClassicFilter::new(&params, 5);
    (0..700).for_each(|i| f.insert_u64(member(5, i)));
    let path = temp_file("audit", "blocked.bin", f.bits().to_le_bytes());
    let j: AuditJson = json(&format!(
        "audit classic --hashes 6 --layout blocked --bitmap {}",
        path.display()
    ));
    assert_eq!((j.params.m, j.metrics.fp_kind.as_str()), (8192, "exact"));
    approx::assert_relative_eq!(j.metrics.fp, f.state_fp(), max_relative = 1e-12);
}

#[test]
fn bitmap_bit_order_is_little_endian_within_bytes() {
    // 0x01 sets bit 0 only; 0x80 bit 7 only. A 2-slice partitioned filter of 16 bits:
    // [0x01, 0x00] puts the one set bit in slice 0, [0x00, 0x80] in slice 1.
    for (bytes, expect) in [
        ([0x01u8, 0x00], [1u64, 0]),
        ([0x00, 0x80], [0, 1]),
        ([0x80, 0x01], [1, 1]),
    ] {
        let path = temp_file("audit", "order.bin", bytes);
        let j: AuditJson = json(&format!(
            "audit classic --hashes 2 --layout partitioned --bitmap {}",
            path.display()
        ));
        assert_eq!(j.metrics.ones_per_slice, Some(expect.to_vec()), "{bytes:?}");
    }
    // A --bits shorter than the file counts only its first bits, and says so.
    let path = temp_file("audit", "prefix.bin", [0xFFu8, 0xFF]);
    bfopt()
        .args([
            "audit", "classic", "--hashes", "1", "--bits", "12", "--bitmap",
        ])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "counted the first 12 of the 16 bits",
        ));
}

#[test]
fn audit_apbf_and_sbf_from_reference_filters() {
    use bfopt_models::apbf::ApbfParams;
    use bfopt_models::stable::SbfParams;
    use bfopt_validation::filters::apbf::ApbfFilter;
    // A reference APBF (4, 3) for a window of 1000 (g = 334), 8 generations and 100
    // insertions in: its per-slice counts give the FP of its own bits.
    let p = ApbfParams::new(4, 3).unwrap().with_window(1000).unwrap();
    let mut f = ApbfFilter::new(&p, 9);
    (0..8 * 334 + 100).for_each(|i| f.insert_u64(member(9, i)));
    let ones: Vec<String> = f.slice_ones().unwrap().iter().map(u64::to_string).collect();
    let j: serde_json::Value = json(&format!(
        "audit apbf --hashes 4 --extra-slices 3 --window 1000 --confidence 0.999 --ones {}",
        ones.join(",")
    ));
    let m = &j["metrics"];
    approx::assert_relative_eq!(
        m["fp"].as_f64().unwrap(),
        f.state_fp(),
        max_relative = 1e-12
    );
    assert_eq!(m["generation_design"], 334);
    let (lo, hi) = (
        m["generation_items_lo"].as_f64().unwrap(),
        m["generation_items_hi"].as_f64().unwrap(),
    );
    assert!(lo <= 334.0 && 334.0 <= hi, "[{lo}, {hi}]");
    let (lo, hi) = (
        m["current_items_lo"].as_f64().unwrap(),
        m["current_items_hi"].as_f64().unwrap(),
    );
    assert!(lo <= 100.0 && 100.0 <= hi, "[{lo}, {hi}]");
    // An SBF with the stable point's zeros is at its stable point; an emptier one is
    // converging and its insertions since empty are estimated.
    let sbf = SbfParams::new(10_000, 3, 3, 10).unwrap();
    let at = (sbf.zero_fraction() * 10_000.0).round() as u64;
    let j: serde_json::Value = json(&format!(
        "audit sbf --cells 10000 --hashes 3 --max 3 --decrements 10 --zeros {at}"
    ));
    assert_eq!(j["metrics"]["at_stable_point"], true);
    assert_eq!(j["metrics"]["variance"], "pair_chain");
    let young = (sbf.zero_fraction_after(1500) * 10_000.0).round() as u64;
    let j: serde_json::Value = json(&format!(
        "audit sbf --cells 10000 --hashes 3 --max 3 --decrements 10 --zeros {young}"
    ));
    let n = j["metrics"]["insertions_since_empty"].as_u64().unwrap();
    assert!(n.abs_diff(1500) < 30, "{n}");
}

#[test]
fn audit_btbf_rows_per_age() {
    use bfopt_models::timing::BtbfParams;
    use bfopt_validation::filters::timing::BtbfFilter;
    let params = BtbfParams::new(4096, 3, 8, 100, 400, 0).unwrap();
    let mut f = BtbfFilter::new(&params, 4);
    (0..650).for_each(|i| f.insert_u64(member(4, i)));
    let (by_age, idle) = f.age_histogram();
    let ages: Vec<String> = by_age.iter().map(u64::to_string).collect();
    let j: serde_json::Value = json(&format!(
        "audit btbf --hashes 3 --ages {} --idle {idle} --confidence 0.999",
        ages.join(",")
    ));
    let rows = j.as_array().unwrap();
    assert_eq!(rows.len(), by_age.len());
    // 50 insertions into the current block, 100 per earlier block.
    for (age, truth) in [(0usize, 50.0), (1, 150.0), (3, 350.0)] {
        let m = &rows[age]["metrics"];
        let (lo, hi) = (
            m["items_lo"].as_f64().unwrap(),
            m["items_hi"].as_f64().unwrap(),
        );
        assert!(
            lo <= truth && truth <= hi,
            "age {age}: [{lo}, {hi}] misses {truth}"
        );
        assert_eq!(m["age"], age);
    }
}

#[test]
fn audit_ibf_from_a_reference_filter_and_bad_flags() {
    use bfopt_models::stable::{IbfParams, ImportanceDist, Policy};
    use bfopt_validation::filters::stable::StableFilter;
    // A reference IBF3 (Figure 7 setting) run 3000 insertions: its zeros are at the
    // stable point by the linear-noise band; an almost empty filter is converging.
    let imp = ImportanceDist::linear(1, 50).unwrap();
    let p = IbfParams::new(Policy::Ibf3, 512, 4, 5, 5, imp).unwrap();
    let mut f = StableFilter::new(&p, 4);
    (0..3000).for_each(|i| f.insert_u64(member(4, i), 1 + (i % 50) as u32));
    let flags = "audit ibf --policy ibf3 --cells 512 --hashes 4 --max 5 --decrements 5";
    let j: serde_json::Value = json(&format!("{flags} --zeros {}", f.zero_cells()));
    assert_eq!(j["family"], "ibf");
    assert_eq!(j["params"]["policy"], "ibf3");
    let m = &j["metrics"];
    assert_eq!(m["variance"], "linear_noise");
    let d = m["distance_sd"].as_f64().unwrap();
    assert_eq!(m["at_stable_point"], d.abs() <= 1.959_963_984_540_054);
    assert!(d.abs() < 4.0, "{j}");
    let z = f.zero_cells() as f64;
    let fp = (0..4)
        .map(|i| (512.0 - z - i as f64) / (512.0 - i as f64))
        .product::<f64>();
    approx::assert_relative_eq!(m["fp"].as_f64().unwrap(), fp, max_relative = 1e-12);
    let j: serde_json::Value = json(&format!("{flags} --zeros 400"));
    assert_eq!(j["metrics"]["at_stable_point"], false);
    let n = j["metrics"]["insertions_since_empty"].as_u64().unwrap();
    assert!((10..500).contains(&n), "{n}");
    // IBF1 takes --decrement-cells (random deletion) and uses the two-cell chains.
    let j: serde_json::Value = json(
        "audit ibf --policy ibf1 --cells 512 --hashes 4 --max 5 --decrements 5 --zeros 30 --decrement-cells distinct",
    );
    assert_eq!(j["metrics"]["variance"], "pair_chain");
    assert_eq!(j["params"]["decrement_cells"], "distinct");
    // Bad input: exit 2 naming the flag, the value and what is allowed.
    super::exits(
        bfopt().args(format!("{flags} --zeros 30 --decrement-cells distinct").split(' ')),
        2,
        &["--decrement-cells", "distinct", "only random deletion"],
    );
    super::exits(
        bfopt().args(format!("{flags} --zeros 600").split(' ')),
        2,
        &["--zeros", "600", "512"],
    );
    super::exits(
        bfopt().args(format!("{flags} --zeros 30 --confidence 1.5").split(' ')),
        2,
        &["--confidence", "1.5"],
    );
    // MinImp with counters no insertion saturates (8-bit, importances up to 50): the linear
    // noise is a bound (IBF2) or beyond its work limit (IBF4), so the band is measured on
    // a seeded reference filter and says so; beyond the simulation's budget (m·Max/P
    // above 1351) the bound stays, named. With saturating 4-bit counters the linear noise
    // is calibrated, no note.
    use predicates::prelude::PredicateBooleanExt;
    let minimp = "audit ibf --policy ibf2 --cells 512 --hashes 4 --max 5 --decrements 5 --zeros 60";
    bfopt()
        .args(minimp.split(' '))
        .assert()
        .success()
        .stdout(predicates::str::contains("band is simulated"));
    // (IBF4 is covered by the agreement test: its linear noise runs to the work limit
    // first, seconds of CPU.)
    let j: serde_json::Value = json(minimp);
    assert_eq!(j["metrics"]["variance"], "simulated");
    let sim = &j["metrics"]["simulation"];
    assert_eq!((&sim["seed"], &sim["batches"]), (&22.into(), &32.into()));
    let (v, se) = (
        sim["variance"].as_f64().unwrap(),
        sim["variance_se"].as_f64().unwrap(),
    );
    assert!(v > 0.0 && se > 0.0 && se < 0.2 * v, "{v} ± {se}");
    // The band's variance is V with its Monte-Carlo error folded in: a little wider.
    let sd = j["metrics"]["zero_fraction_sd"].as_f64().unwrap() * 512.0;
    assert!(sd * sd > v && sd * sd < 1.05 * v, "{sd} against {v}");
    // m·Max/P = 1500: beyond the simulation's budget.
    let large = "audit ibf --policy ibf2 --cells 600 --hashes 4 --max 5 --decrements 2 --zeros 70";
    bfopt()
        .args(large.split(' '))
        .assert()
        .success()
        .stdout(predicates::str::contains("band is a bound, not calibrated"));
    let j: serde_json::Value = json(large);
    assert_eq!(j["metrics"]["variance"], "linear_noise_bound");
    let saturating = format!("{minimp} --counter-bits 4");
    bfopt()
        .args(saturating.split(' '))
        .assert()
        .success()
        .stdout(predicates::str::contains("not calibrated").not());
    let j: serde_json::Value = json(&saturating);
    assert_eq!(j["metrics"]["variance"], "linear_noise");
}
