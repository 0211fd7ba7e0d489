//! Tables 2, 3 and 4 [APBF] at their printed precision.
//!
//! Table 2 rounds, but several entries are one unit off in the last digit (docs/errata.md);
//! each of those is listed by name in `ONE_UNIT_OFF` and compared at ±1 unit, every
//! other entry at ±½ unit. Four entries are misprints that no reading of the formulas
//! reproduces; each is checked against the reading that does reproduce it.

use crate::common::assert_printed;
use bfopt::reproduce::{Table2Row, Table3Row, APBF_TABLE_2, APBF_TABLE_3};
use bfopt_models::apbf::{consecutive_match, fills, ApbbfParams, ApbfParams};
use bfopt_models::printed::{decimals, Printing::Rounded};

/// Table 2 [APBF] as printed (kept with its reproduction, `bfopt reproduce apbf-table2`).
const TABLE_2: [Table2Row; 25] = APBF_TABLE_2;

/// Misprints no reading reproduces: (k, l, column). Checked by `table2_misprints`.
const MISPRINTS: [(u32, u32, &str); 5] = [
    (13, 23, "fp"),
    (19, 22, "eff"),
    (20, 33, "eff"),
    (21, 54, "eff"),
    (4, 3, "npws"),
];

/// Entries one unit off in the last printed digit: (k, l, column).
const ONE_UNIT_OFF: [(u32, u32, &str); 6] = [
    (11, 46, "window"),      // 15.2339 printed 15.24
    (10, 7, "npws"),         // 0.2854 printed 0.28
    (17, 36, "fp accesses"), // 18.4533 printed 18.46
    (18, 16, "window"),      // 18.9375 printed 18.93
    (20, 33, "false"),       // 3.6750 printed 3.68
    (13, 23, "eff"),         // 0.4905 printed 0.50 (0.4946 from the misprinted fp)
];

/// `|got − printed| ≤ units · 10^(−decimals)` (plus representation slack).
fn within_units(got: f64, printed: &str, units: f64) -> bool {
    let value: f64 = printed.parse().unwrap();
    let unit = 10f64.powi(-(decimals(printed) as i32));
    (got - value).abs() <= units * unit + 1e-12
}

#[test]
fn table2_matches_printed() {
    let mut off_by_one_seen = Vec::new();
    for (k, l, fp, eff, window, acc_fp, acc_false, npws) in TABLE_2 {
        let p = ApbfParams::new(k, l).unwrap();
        let m = p.metrics();
        let row = format!("(k = {k}, l = {l})");
        let cols = [
            ("fp", m.fp_paper, fp),
            ("eff", m.efficiency, eff),
            ("window", m.accesses_window, window),
            ("fp accesses", m.accesses_fp, acc_fp),
            ("false", m.accesses_false, acc_false),
            ("npws", m.npws, npws),
        ];
        for (column, got, printed) in cols {
            if MISPRINTS.contains(&(k, l, column)) {
                continue;
            }
            if ONE_UNIT_OFF.contains(&(k, l, column)) {
                assert!(
                    within_units(got, printed, 1.0),
                    "Table 2 [APBF], row {row}, column {column}: printed {printed}, computed {got} (±1 unit)"
                );
                // It really is off: otherwise the entry belongs with the others.
                assert!(
                    !bfopt_models::printed::matches_printed(got, printed, Rounded),
                    "{row} {column} rounds correctly; remove it from ONE_UNIT_OFF"
                );
                off_by_one_seen.push((k, l, column));
            } else {
                assert_printed("Table 2 [APBF]", &row, column, got, printed, Rounded);
            }
        }
    }
    assert_eq!(off_by_one_seen.len(), ONE_UNIT_OFF.len());
}

#[test]
fn table2_misprints() {
    // (13, 23): the printed fp 0.000928 is F(13, 22); F(13, 23) = 0.000990.
    let f22 = ApbfParams::new(13, 22).unwrap().fp_paper();
    assert_printed(
        "Table 2 [APBF]",
        "(13, 23) as F(13,22)",
        "fp",
        f22,
        "0.000928",
        Rounded,
    );
    let f23 = ApbfParams::new(13, 23).unwrap().fp_paper();
    assert_printed(
        "Table 2 [APBF]",
        "(13, 23) real",
        "fp",
        f23,
        "0.000990",
        Rounded,
    );
    // Its eff (0.50) is reproduced by neither: 0.4946 from F(13,22), 0.4905 from
    // F(13,23) (listed in ONE_UNIT_OFF).
    let eff22 = bfopt_models::apbf::efficiency(f22, 13, 23);
    assert!(
        within_units(eff22, "0.50", 1.0),
        "eff from F(13,22) = {eff22}"
    );
    // (19, 22), (20, 33), (21, 54): eff printed is the formula at the group's aimed fp
    // divided by ten, 1e-6 (with the computed fp/10 instead, (21, 54) gives 0.6852).
    for (k, l, eff) in [(19, 22, "0.56"), (20, 33, "0.62"), (21, 54, "0.68")] {
        let fp = ApbfParams::new(k, l).unwrap().fp_paper();
        let at_tenth = bfopt_models::apbf::efficiency(1e-6, k, l);
        assert_printed(
            "Table 2 [APBF]",
            &format!("({k}, {l}) at fp/10"),
            "eff",
            at_tenth,
            eff,
            Rounded,
        );
        let honest = bfopt_models::apbf::efficiency(fp, k, l);
        assert!(
            !within_units(honest, eff, 1.0),
            "({k},{l}) eff {honest} would match"
        );
    }
    // (4, 3): NPWS 0.58 sums k − 1 = 3 terms: (1 + 1/2 + 1/4)/3 = 0.5833; k terms 0.625.
    let three_terms = (1.0 + 0.5 + 0.25) / 3.0;
    assert_printed(
        "Table 2 [APBF]",
        "(4, 3) k−1 terms",
        "npws",
        three_terms,
        "0.58",
        Rounded,
    );
    assert_printed(
        "Table 2 [APBF]",
        "(4, 3) k terms",
        "npws",
        ApbfParams::new(4, 3).unwrap().npws(),
        "0.625",
        Rounded,
    );
}

#[test]
fn table2_real_fills_exceed_paper_fp() {
    // docs/errata.md "modelling finding": the chord fills understate the real worst case
    // by about 7% (k = 4) to 27% (k = 17, l = 13); never overstate it.
    for (k, l, ..) in TABLE_2 {
        let p = ApbfParams::new(k, l).unwrap();
        let ratio = p.fp() / p.fp_paper();
        assert!(
            (1.0..1.3).contains(&ratio),
            "({k},{l}) real/paper = {ratio}"
        );
    }
    let r43 = ApbfParams::new(4, 3).unwrap();
    assert!((r43.fp() / r43.fp_paper() - 1.068).abs() < 0.001);
}

/// Table 3 [APBF] as printed (kept with its reproduction, `bfopt reproduce apbf-table3`).
const TABLE_3: [Table3Row; 16] = APBF_TABLE_3;

#[test]
fn table3_matches_printed() {
    for (k, l, bb, b, fp, fp_apbf, cap, window, acc_fp, acc_false, npws) in TABLE_3 {
        let m = ApbbfParams::new(k, l, bb, b).unwrap().metrics();
        let row = format!("(k = {k}, l = {l}, B = {bb}, b = {b})");
        let cols = [
            ("APBBF fp", m.fp_paper, fp),
            ("APBF fp", m.fp_apbf, fp_apbf),
            ("cap.", m.capacity_ratio, cap),
            ("window", m.accesses_window, window),
            ("fp accesses", m.accesses_fp, acc_fp),
            ("false", m.accesses_false, acc_false),
            ("npws", m.npws, npws),
        ];
        for (column, got, printed) in cols {
            assert_printed("Table 3 [APBF]", &row, column, got, printed, Rounded);
        }
        // Without a size the real filter is the Poisson-load model itself.
        assert_eq!(m.fp, m.fp_paper);
    }
}

#[test]
fn table3_apbf_column_is_the_apbf_k_b_l_b() {
    let direct = consecutive_match(&fills::paper(8, 12), 8);
    assert_eq!(direct, ApbfParams::new(8, 12).unwrap().fp_paper());
    assert_printed(
        "Table 3 [APBF]",
        "(2,3,·,4)",
        "APBF fp",
        direct,
        "0.0180539",
        Rounded,
    );
}

/// k, l, B, b, APBBF bits per element — as printed (the SWAMP columns quote another paper).
const TABLE_4: [(u32, u32, u32, u32, &str); 4] = [
    (2, 5, 512, 4, "16.2"),
    (3, 8, 512, 4, "23.9"),
    (2, 5, 512, 8, "32.6"),
    (3, 8, 512, 8, "48.0"),
];

#[test]
fn table4_apbbf_bits_per_element() {
    for (k, l, bb, b, bits) in TABLE_4 {
        let p = ApbbfParams::new(k, l, bb, b).unwrap();
        let row = format!("(k = {k}, l = {l}, B = {bb}, b = {b})");
        assert_printed(
            "Table 4 [APBF]",
            &row,
            "bits per element",
            p.bits_per_item(),
            bits,
            Rounded,
        );
        // A filter sized for the paper's window of 2^16 is within 0.5% of the limit.
        let sized = p.with_window(1 << 16).unwrap();
        let rel = sized.bits_per_item() / p.bits_per_item() - 1.0;
        assert!((0.0..0.005).contains(&rel), "{row}: sized {rel}");
    }
}
