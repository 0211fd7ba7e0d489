//! A user trace: CSV lines `item[,timestamp][,importance]`.
//!
//! An optional first line `item[,timestamp][,importance]` is a header and is skipped.
//! Items are strings, hashed to 64-bit keys with xxh3 (two different items share a key
//! with probability about `n²/2^65`, negligible below 10^8 items).

use std::fmt;
use std::io::Read;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Longest accepted item, in bytes.
pub const MAX_ITEM_BYTES: usize = 1 << 16;

/// One line of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRecord {
    /// The item's 64-bit key (xxh3 of its bytes).
    pub key: u64,
    /// The timestamp, if the line has one.
    pub timestamp: Option<f64>,
    /// The importance, if the line has one.
    pub importance: Option<f64>,
}

/// A trace line that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct TraceError {
    /// 1-based line number (0 when the file itself cannot be read).
    pub line: u64,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

/// The form a trace must have, quoted by every trace error.
pub const TRACE_FORM: &str =
    "UTF-8 CSV lines item[,timestamp][,importance], an optional header line starting with `item`";

fn number(field: &str, what: &str, line: u64) -> Result<f64, TraceError> {
    match field.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(TraceError {
            line,
            message: format!("{what} = {field:?} (allowed: a finite number >= 0)"),
        }),
    }
}

/// Reads a whole trace.
///
/// # Errors
/// The first bad line: an empty item, an item over [`MAX_ITEM_BYTES`], a timestamp or
/// importance that is not a finite non-negative number, more than three fields, invalid
/// UTF-8; or an empty trace.
pub fn read_trace(input: impl Read) -> Result<Vec<TraceRecord>, TraceError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let mut out = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(line, |p| p.line());
                let message = match e.kind() {
                    csv::ErrorKind::Utf8 { .. } => {
                        format!("not valid UTF-8 text (allowed: {TRACE_FORM})")
                    }
                    _ => format!("{e} (allowed: {TRACE_FORM})"),
                };
                return Err(TraceError { line, message });
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        if out.is_empty() && record.get(0) == Some("item") {
            continue;
        }
        if record.len() > 3 {
            return Err(TraceError {
                line,
                message: format!(
                    "{} fields (allowed: item[,timestamp][,importance])",
                    record.len()
                ),
            });
        }
        let item = record.get(0).unwrap_or("");
        if item.is_empty() {
            return Err(TraceError {
                line,
                message: format!("empty item (allowed: {TRACE_FORM})"),
            });
        }
        if item.len() > MAX_ITEM_BYTES {
            return Err(TraceError {
                line,
                message: format!(
                    "item of {} bytes (allowed: at most {MAX_ITEM_BYTES})",
                    item.len()
                ),
            });
        }
        let timestamp = record
            .get(1)
            .filter(|s| !s.is_empty())
            .map(|s| number(s, "timestamp", line))
            .transpose()?;
        let importance = record
            .get(2)
            .filter(|s| !s.is_empty())
            .map(|s| number(s, "importance", line))
            .transpose()?;
        out.push(TraceRecord {
            key: xxh3_64(item.as_bytes()),
            timestamp,
            importance,
        });
    }
    if out.is_empty() {
        return Err(TraceError {
            line: 0,
            message: format!("the trace has no items (allowed: {TRACE_FORM})"),
        });
    }
    Ok(out)
}

/// Reads a trace file.
///
/// # Errors
/// As [`read_trace`], plus an unreadable file.
pub fn read_trace_file(path: &Path) -> Result<Vec<TraceRecord>, TraceError> {
    let file = std::fs::File::open(path).map_err(|e| TraceError {
        line: 0,
        message: format!("cannot be read: {e} (allowed: a readable file of {TRACE_FORM})"),
    })?;
    read_trace(std::io::BufReader::new(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_items_timestamps_and_importance() {
        let t = read_trace("item,timestamp,importance\na,1.5,3\nb\nc,2\n".as_bytes()).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].timestamp, Some(1.5));
        assert_eq!(t[0].importance, Some(3.0));
        assert_eq!(t[1].timestamp, None);
        assert_eq!(t[2].key, xxh3_64(b"c"));
    }

    #[test]
    fn bad_lines_are_reported_with_their_numbers() {
        let e = read_trace("a,1\nb,x\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("timestamp = \"x\""), "{e}");
        let e = read_trace("a\n,1\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.message.starts_with("empty item (allowed: "),
            "{}",
            e.message
        );
        let e = read_trace("a,1,2,3\n".as_bytes()).unwrap_err();
        assert!(e.message.contains("4 fields"));
        let e = read_trace("a,nan\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(read_trace("".as_bytes()).is_err());
        let e = read_trace(&b"ok\n\xff\xfe,1\n"[..]).unwrap_err();
        assert_eq!(e.line, 2);
        let long = format!("{}\n", "x".repeat(MAX_ITEM_BYTES + 1));
        assert!(read_trace(long.as_bytes())
            .unwrap_err()
            .message
            .contains("bytes"));
    }
}
