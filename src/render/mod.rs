//! One renderer per output format over the same rows.

mod csv;
mod json;
mod junit;
mod table;

pub use junit::{write_cases as write_junit, TestCase};
pub use table::aligned;

use crate::report::{Report, Row};
use clap::ValueEnum;
use serde_json::Value;
use std::io::{self, Write};

/// Output formats: one renderer each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns, rounded numbers.
    Table,
    /// JSON: `{"family", "params", "metrics"}` (a list for multi-row verbs); full precision.
    Json,
    /// CSV with a header line; full precision.
    Csv,
    /// JUnit XML (validate and check only).
    Junit,
}

/// Writes `report` to `out` in `format`.
///
/// # Errors
/// I/O errors (a closed pipe among them).
pub fn write(report: &Report, format: Format, out: &mut dyn Write) -> io::Result<()> {
    if let Some(text) = &report.text {
        return out.write_all(text.as_bytes());
    }
    match (format, &report.table, &report.json) {
        (Format::Table, Some(text), _) => {
            out.write_all(text.as_bytes())?;
            report
                .notes
                .iter()
                .try_for_each(|note| writeln!(out, "{note}"))
        }
        (Format::Json, _, Some(value)) => {
            let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
            writeln!(out, "{text}")
        }
        _ => write_rows(report, format, out),
    }
}

/// The generic renderers over rows.
fn write_rows(report: &Report, format: Format, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Table => table::write(report, out),
        Format::Json => json::write(report, out),
        Format::Csv => csv::write(report, out),
        Format::Junit => junit::write(report, out),
    }
}

/// Column names shared by the table and CSV renderers: `family`, then every params key,
/// then every metrics key, in order of first appearance; a key present in both params
/// and metrics is prefixed (`params.fp`, `metrics.fp`).
fn columns(rows: &[Row]) -> Vec<(Source, String, String)> {
    let mut params: Vec<String> = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    for r in rows {
        for k in r.params.keys() {
            if !params.contains(k) {
                params.push(k.clone());
            }
        }
        for k in r.metrics.keys() {
            if !metrics.contains(k) {
                metrics.push(k.clone());
            }
        }
    }
    let mut cols = vec![(Source::Family, String::new(), "family".to_string())];
    for k in &params {
        let name = if metrics.contains(k) {
            format!("params.{k}")
        } else {
            k.clone()
        };
        cols.push((Source::Params, k.clone(), name));
    }
    for k in &metrics {
        let name = if params.contains(k) {
            format!("metrics.{k}")
        } else {
            k.clone()
        };
        cols.push((Source::Metrics, k.clone(), name));
    }
    cols
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Family,
    Params,
    Metrics,
}

fn cell<'a>(row: &'a Row, source: Source, key: &str) -> Option<&'a Value> {
    match source {
        Source::Family => None,
        Source::Params => row.params.get(key),
        Source::Metrics => row.metrics.get(key),
    }
}
