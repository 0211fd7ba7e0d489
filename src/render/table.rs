use super::{cell, columns, Source};
use crate::report::Report;
use serde_json::Value;
use std::io::{self, Write};

/// Formats a number for people: integers as they are, reals to 4 significant digits; an
/// object as `key=value` pairs (its exact digits are in `--format json`).
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
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={}", human(v)))
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// Left-aligned columns two spaces apart, trailing spaces trimmed, one line per row
/// after the header.
pub fn aligned(header: &[&str], body: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            body.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = cells
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ");
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut out = line(&mut header.iter().copied());
    for r in body {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    out
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
    let header: Vec<&str> = cols.iter().map(|c| c.2.as_str()).collect();
    out.write_all(aligned(&header, &body).as_bytes())?;
    for note in &report.notes {
        writeln!(out, "{note}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::human;
    use serde_json::json;

    #[test]
    fn an_object_reads_as_key_value_pairs_with_human_numbers() {
        let v = json!({"seed": 22, "variance": 43.8439788370582, "drift": 0.0});
        assert_eq!(human(&v), "seed=22 variance=43.84 drift=0");
    }
}
