use super::{cell, columns, Source};
use crate::report::Report;
use serde_json::Value;
use std::io::{self, Write};

/// One header line, one line per row; full precision; empty cells for missing keys.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let cols = columns(&report.rows);
    let mut w = csv::Writer::from_writer(out);
    w.write_record(cols.iter().map(|c| c.2.as_str()))?;
    for row in &report.rows {
        let record = cols.iter().map(|(source, key, _)| match source {
            Source::Family => row.family.clone(),
            _ => match cell(row, *source, key) {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
            },
        });
        w.write_record(record)?;
    }
    w.flush()
}
