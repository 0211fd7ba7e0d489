//! `bfopt reproduce sbf-table3|sbf-table4` at the quick (1/32) size: Tables 3-4 [SBF]
//! from the thesis stream with repeats, modelled and simulated.

use bfopt::reproduce::{find, Options};

fn col(r: &bfopt::reproduce::Reproduced, name: &str) -> usize {
    r.columns.iter().position(|c| c == name).unwrap()
}

#[test]
fn tables_3_4_rows_trends_and_differences() {
    for (id, fp) in [("sbf-table3", true), ("sbf-table4", false)] {
        let entry = find(id).unwrap();
        let r = (entry.build)(&Options { seed: 1, scale: 1 }).unwrap();
        // 6 settings (n, k) x SBF, IBF1-IBF5, with the printed value kept as printed.
        assert_eq!(r.rows.len(), 36, "{id}");
        let (pr, mo, me) = (col(&r, "printed"), col(&r, "model"), col(&r, "measured"));
        assert_eq!(r.rows[0][pr], if fp { "23.10" } else { "20.04" });
        for row in &r.rows {
            let m = row[me].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&m), "{id}: {row:?}");
            if let Some(x) = row[mo].as_f64() {
                assert!((0.0..=100.0).contains(&x), "{id}: {row:?}");
            }
        }
        // The thesis's trend holds in every measured (setting, policy) pair.
        let trend = r
            .differences
            .iter()
            .find(|d| d.starts_with("trend of Section 6.3"))
            .unwrap();
        assert!(trend.contains("in 24 of 24"), "{id}: {trend}");
        // Both rates fall as n grows, for the SBF (k = 4).
        let sbf: Vec<f64> = r
            .rows
            .iter()
            .filter(|row| row[0] == "sbf" && row[2] == 4)
            .map(|row| row[me].as_f64().unwrap())
            .collect();
        assert!(sbf.windows(2).all(|w| w[1] < w[0]), "{id}: {sbf:?}");
        assert!(r.plot.is_some());
        assert!(r
            .differences
            .iter()
            .any(|d| d.contains("does not state M, p")));
    }
}
