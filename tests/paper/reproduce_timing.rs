//! `bfopt reproduce tbf-figure9|10|11` (issue 9): Figures 9-11 [TBF] at reduced size
//! (|U| = 2^12, [Pos≈Neg] windows, bpi 2-16). The model must track the simulation, the
//! paper's qualitative claims that survive the reduction must hold, and the CSV and SVG
//! must be written.

use bfopt::reproduce::{find, Options};

fn column(r: &bfopt::reproduce::Reproduced, name: &str) -> usize {
    r.columns.iter().position(|c| c == name).unwrap()
}

/// Figure 9: the chooser's predicted penalty ratio lies in every measured interval;
/// Posterior Errors stay below the paper's bounds; the inferential BTBF beats the
/// standard one at every bpi.
#[test]
fn figure9_btbf_penalty_ratio_tracks_simulation() {
    let r = (find("tbf-figure9").unwrap().build)(&Options { seed: 1, scale: 1 }).unwrap();
    assert_eq!(r.rows.len(), 8);
    let (model, measured, pe) = (
        column(&r, "penalty_ratio_model"),
        column(&r, "penalty_ratio_measured"),
        column(&r, "posterior_error"),
    );
    for row in &r.rows {
        assert!(row[measured].as_f64().unwrap() < 1.0, "{row:?}");
        assert!(row[model].as_f64().unwrap() < 1.0, "{row:?}");
        assert!(row[pe].as_f64().unwrap() < 0.035, "{row:?}");
    }
    // Only the stated reading of "about 80%" is listed: no model outside an interval.
    assert_eq!(r.differences.len(), 1, "{:#?}", r.differences);
    assert!(r.differences[0].contains("about 80%"));
    let svg = r.plot.unwrap().to_svg("Figure 9").unwrap();
    assert!(svg.contains("penalty ratio, measured"));
}

/// Figure 10: the inferential GBF beats the standard GBF at every bpi (the paper's
/// claim) and the model's penalty ratio lies in every measured interval.
#[test]
fn figure10_gbf_inferential_beats_standard() {
    let r = (find("tbf-figure10").unwrap().build)(&Options { seed: 1, scale: 1 }).unwrap();
    assert_eq!(r.rows.len(), 8);
    let measured = column(&r, "penalty_ratio_measured");
    for row in &r.rows {
        assert!(row[measured].as_f64().unwrap() < 1.0, "{row:?}");
    }
    assert!(
        r.differences.iter().all(|d| !d.contains("outside")),
        "{:#?}",
        r.differences
    );
}

/// Figure 11: the inferential BTBF has the lowest total penalty at low bpi on both
/// streams; the Simple Buffer overtakes it only at 16 bpi (the paper: about 20 on
/// Uniform, 16 on Power law, at |U| = 2^16); predicted GBF and buffer penalties track
/// the simulated ones.
#[test]
fn figure11_inferential_btbf_lowest_at_low_bpi() {
    let r = (find("tbf-figure11").unwrap().build)(&Options { seed: 1, scale: 1 }).unwrap();
    assert_eq!(r.rows.len(), 8);
    assert!(r.differences.is_empty(), "{:#?}", r.differences);
    let (bpi, lowest) = (column(&r, "bits_per_item"), column(&r, "lowest"));
    for row in &r.rows {
        if row[bpi].as_f64().unwrap() <= 8.0 {
            assert_eq!(row[lowest], "inferential BTBF", "{row:?}");
        }
    }
    // The GBF chooser's prediction (D_{−x} aging, independent cells): within 3.3% of
    // the simulation at every point (measured); Eq. (36) for the Simple Buffer is the
    // paper's approximation: 13% low at 16 bpi on Uniform, where penalties are small.
    for (m, s, band) in [
        ("gbf_inferential_model", "gbf_inferential", 0.05),
        ("simple_buffer_model", "simple_buffer", 0.15),
    ] {
        let (m, s) = (column(&r, m), column(&r, s));
        for row in &r.rows {
            let (pm, ps) = (row[m].as_f64().unwrap(), row[s].as_f64().unwrap());
            assert!((pm / ps - 1.0).abs() < band, "{row:?}");
        }
    }
}
