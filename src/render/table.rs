use super::{cell, columns, Source};
use crate::report::Report;
use serde_json::Value;
use std::io::{self, Write};

/// Formats a number for people: integers as they are, reals to 4 significant digits.
pub(crate) fn human(v: &Value) -> String {
    match v {
        Value::Null => "-".to_string(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_u64() || n.is_i64() => n.to_string(),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x == 0.0 {
                "0".to_string()
            } else if x.abs() < 1e-3 || x.abs() >= 1e7 {
                format!("{x:.3e}")
            } else {
                let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
                format!("{x:.digits$}")
            }
        }
        other => other.to_string(),
    }
}

/// Aligned columns: `family`, then params, then metrics; notes below.
pub(super) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let cols = columns(&report.rows);
    let body: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|row| {
            cols.iter()
                .map(|(source, key, _)| match source {
                    Source::Family => row.family.clone(),
                    _ => cell(row, *source, key).map_or("-".to_string(), human),
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            body.iter()
                .map(|r| r[i].len())
                .chain([c.2.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    writeln!(out, "{}", line(cols.iter().map(|c| c.2.as_str()).collect()))?;
    for r in &body {
        writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
    }
    for note in &report.notes {
        writeln!(out, "{note}")?;
    }
    Ok(())
}
