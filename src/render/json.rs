use crate::report::Report;
use std::io::{self, Write};

/// A single object for single-row verbs, a list otherwise; full precision.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let text = if report.multi {
        serde_json::to_string_pretty(&report.rows)
    } else {
        serde_json::to_string_pretty(&report.rows[0])
    }
    .map_err(io::Error::other)?;
    writeln!(out, "{text}")
}
