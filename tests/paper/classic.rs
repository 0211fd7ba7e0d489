//! Table 1 [APBF]: Bloom filters sized by the half-fill rule (Section 4).
//! The table truncates `bits/item` and `actual fp` (10.0989 → "10.09", 6.1035156e-5 →
//! "0.0000610351") but rounds the access counts (1.99915 for k = 14 → "2.00"): each
//! column is compared under its own printing rule, by `bfopt reproduce apbf-table1`,
//! whose printed values (`TABLE_1_PRINTED` in `src/reproduce/classic.rs`) are the
//! test vector.

use bfopt::reproduce::{find, Options};

#[test]
fn table1_matches_printed() {
    let entry = find("apbf-table1").unwrap();
    let r = (entry.build)(&Options { seed: 1, scale: 1 }).unwrap();
    assert_eq!(r.rows.len(), 5);
    assert!(r.differences.is_empty(), "{:#?}", r.differences);
    // k = ⌈log2(1/p)⌉ for p = 0.1 … 1e-5.
    let ks: Vec<u64> = r.rows.iter().map(|row| row[1].as_u64().unwrap()).collect();
    assert_eq!(ks, [4, 7, 10, 14, 17]);
}
