//! Helpers shared by the integration-test targets.
#![allow(dead_code)]

use bfopt_models::printed::{matches_printed, Printing};

/// Asserts that `got` prints as `printed`; the message names the table, the row and both values.
#[track_caller]
pub fn assert_printed(
    table: &str,
    row: &str,
    column: &str,
    got: f64,
    printed: &str,
    how: Printing,
) {
    assert!(
        matches_printed(got, printed, how),
        "{table}, row {row}, column {column}: printed {printed}, computed {got} ({how:?})"
    );
}
