//! Table 1 [APBF]: Bloom filters sized by the half-fill rule (Section 4).
//! The table truncates `bits/item` and `actual fp` (10.0989 → "10.09", 6.1035156e-5 →
//! "0.0000610351") but rounds the access counts (1.99915 for k = 14 → "2.00"): each
//! column is compared under its own printing rule.

use crate::common::assert_printed;
use bfopt_models::classic::HalfFillDesign;
use bfopt_models::printed::Printing::{Rounded, Truncated};

/// aimed fp, k, bits/item, actual fp, query true, query false — as printed.
const TABLE_1: [(&str, u32, &str, &str, &str, &str); 5] = [
    ("0.1", 4, "5.77", "0.0625", "4.00", "1.73"),
    ("0.01", 7, "10.09", "0.0078125", "7.00", "1.94"),
    ("0.001", 10, "14.42", "0.0009765625", "10.00", "1.99"),
    ("0.0001", 14, "20.19", "0.0000610351", "14.00", "2.00"),
    ("0.00001", 17, "24.52", "0.0000076293", "17.00", "2.00"),
];

#[test]
fn table1_matches_printed() {
    for (aimed, k, bits, fp, q_true, q_false) in TABLE_1 {
        let d = HalfFillDesign::for_fp(aimed.parse().unwrap()).unwrap();
        assert_eq!(d.k, k, "Table 1 [APBF], row {aimed}: k");
        let cols = [
            ("bits/item", d.bits_per_item, bits, Truncated),
            ("actual fp", d.fp, fp, Truncated),
            ("query true", d.accesses_query_true, q_true, Rounded),
            ("query false", d.accesses_query_false, q_false, Rounded),
        ];
        for (column, got, printed, how) in cols {
            assert_printed("Table 1 [APBF]", aimed, column, got, printed, how);
        }
    }
}
