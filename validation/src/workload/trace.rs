//! A user trace: CSV lines `item[,timestamp][,importance]` (one item per line is the
//! one-column case), or a wider CSV log with the item and timestamp columns named
//! ([`TraceOptions::columns`]); plain, gzip or zstd (recognised by magic bytes), a file
//! or standard input (`-`). Read in one streaming pass ([`for_each_record`]): memory does
//! not grow with the trace. Lines are split in large blocks (`lines`); a line with a
//! quote is read as RFC 4180 CSV.
//!
//! An optional first line whose item field is `item` is a header and is skipped.
//! Items are strings, hashed to 64-bit keys with xxh3 (two different items share a key
//! with probability about `n²/2^65`, negligible below 10^8 items).

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

mod lines;

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
    /// The 1-based physical line (`\n` counted) where the record starts.
    pub line: u64,
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

fn number(field: &[u8], what: &str, line: u64) -> Result<f64, TraceError> {
    match std::str::from_utf8(field)
        .ok()
        .and_then(|f| f.parse::<f64>().ok())
    {
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(TraceError {
            line,
            message: format!(
                "{what} = {:?} (allowed: a finite number >= 0)",
                String::from_utf8_lossy(field)
            ),
        }),
    }
}

/// Which columns of a trace hold what, and what to do with bad lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceOptions {
    /// 0-based column of the item.
    pub key_column: usize,
    /// 0-based column of the timestamp, if any.
    pub time_column: Option<usize>,
    /// 0-based column of the importance, if any.
    pub importance_column: Option<usize>,
    /// At most this many fields per line (`None`: any number, for wide CSV logs).
    pub max_fields: Option<usize>,
    /// Count and skip bad lines instead of stopping at the first.
    pub skip_bad_lines: bool,
}

impl Default for TraceOptions {
    /// Today's form: `item[,timestamp][,importance]`, stop at the first bad line.
    fn default() -> Self {
        Self {
            key_column: 0,
            time_column: Some(1),
            importance_column: Some(2),
            max_fields: Some(3),
            skip_bad_lines: false,
        }
    }
}

impl TraceOptions {
    /// A wide CSV log: the item in column `key_column`, the timestamp (if any) in
    /// `time_column` (both 0-based), any number of other fields, no importance.
    pub fn columns(key_column: usize, time_column: Option<usize>) -> Self {
        Self {
            key_column,
            time_column,
            importance_column: None,
            max_fields: None,
            skip_bad_lines: false,
        }
    }

    /// The same columns, counting and skipping bad lines when `skip` is set.
    pub fn skipping_bad_lines(mut self, skip: bool) -> Self {
        self.skip_bad_lines = skip;
        self
    }
}

/// What a pass over a trace read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceSummary {
    /// Records delivered.
    pub records: u64,
    /// Bad lines skipped (only with [`TraceOptions::skip_bad_lines`]).
    pub skipped: u64,
    /// The first skipped line's error.
    pub first_skipped: Option<TraceError>,
}

/// A line's fields, already trimmed of ASCII whitespace.
trait Fields {
    /// How many fields the line has.
    fn count(&self) -> usize;
    /// Field `i`, empty past the last.
    fn field(&self, i: usize) -> &[u8];
}

#[cfg(test)]
impl Fields for csv::ByteRecord {
    fn count(&self) -> usize {
        self.len()
    }
    fn field(&self, i: usize) -> &[u8] {
        self.get(i).unwrap_or(b"")
    }
}

/// One parsed line: a record, a header to skip, or an error.
fn parse_line(
    record: &impl Fields,
    line: u64,
    first: bool,
    opts: &TraceOptions,
) -> Result<Option<TraceRecord>, TraceError> {
    let item = record.field(opts.key_column);
    if first && item == b"item" {
        return Ok(None);
    }
    if let Some(max) = opts.max_fields {
        if record.count() > max {
            return Err(TraceError {
                line,
                message: format!(
                    "{} fields (allowed: item[,timestamp][,importance])",
                    record.count()
                ),
            });
        }
    }
    if item.is_empty() {
        return Err(TraceError {
            line,
            message: if opts.key_column < record.count() {
                format!("empty item (allowed: {TRACE_FORM})")
            } else {
                format!(
                    "no column {} for the item ({} fields; allowed: --key-column below the field count)",
                    opts.key_column + 1,
                    record.count()
                )
            },
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
    if !item.is_ascii() && std::str::from_utf8(item).is_err() {
        return Err(TraceError {
            line,
            message: format!("not valid UTF-8 text (allowed: {TRACE_FORM})"),
        });
    }
    let optional = |col: Option<usize>, what: &str| {
        col.map(|c| record.field(c))
            .filter(|s| !s.is_empty())
            .map(|s| number(s, what, line))
            .transpose()
    };
    Ok(Some(TraceRecord {
        key: xxh3_64(item),
        timestamp: optional(opts.time_column, "timestamp")?,
        importance: optional(opts.importance_column, "importance")?,
        line,
    }))
}

/// One pass over a trace: the counts so far, and whether the next line is the first
/// (which may be a header).
struct Pass<'o> {
    opts: &'o TraceOptions,
    summary: TraceSummary,
    first: bool,
}

impl<'o> Pass<'o> {
    fn new(opts: &'o TraceOptions) -> Self {
        Self {
            opts,
            summary: TraceSummary::default(),
            first: true,
        }
    }

    /// Parses one non-blank line (physical line `line`) and hands its record to `each`.
    #[inline]
    fn line(
        &mut self,
        fields: &impl Fields,
        line: u64,
        each: &mut impl FnMut(TraceRecord),
    ) -> Result<(), TraceError> {
        let parsed = parse_line(fields, line, self.first, self.opts);
        self.first = false;
        match parsed {
            Ok(Some(r)) => {
                self.summary.records += 1;
                each(r);
            }
            Ok(None) => {}
            Err(e) if self.opts.skip_bad_lines => {
                self.summary.skipped += 1;
                self.summary.first_skipped.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The summary, or an error when not a single record was read.
    fn finish(self) -> Result<TraceSummary, TraceError> {
        let summary = self.summary;
        if summary.records == 0 {
            let why = match &summary.first_skipped {
                Some(e) => format!(" ({} bad lines skipped, the first at {e})", summary.skipped),
                None => String::new(),
            };
            return Err(TraceError {
                line: 0,
                message: format!("the trace has no items{why} (allowed: {TRACE_FORM})"),
            });
        }
        Ok(summary)
    }
}

/// The `csv` crate's reading of a whole trace, the reference the line reader is tested
/// against (its line numbers count from the end of the previous record, blank lines
/// not included, so only records and messages are compared).
#[cfg(test)]
fn csv_records(
    input: impl Read,
    pass: &mut Pass<'_>,
    each: &mut impl FnMut(TraceRecord),
) -> Result<(), TraceError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let mut record = csv::ByteRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_byte_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(line, |p| p.line());
                return Err(TraceError {
                    line,
                    message: format!("{e} (allowed: {TRACE_FORM})"),
                });
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        pass.line(&record, line, each)?;
    }
}

/// Streams a trace: calls `each` on every record, in order, holding one block of lines
/// at a time (1 MiB, more only for a longer line).
///
/// Lines are split on `\n` (a `\r` before it is dropped) and fields on `,`, trimmed of
/// ASCII whitespace; blank lines are skipped. A line holding a quote `"` or a lone `\r`
/// is read as RFC 4180 CSV (quoted fields may hold commas and line breaks, `""` is a
/// quote, a lone `\r` ends a record). Errors name the physical line (`\n` counted) where
/// the record starts.
///
/// # Errors
/// Without [`TraceOptions::skip_bad_lines`], the first bad line: an empty item, an item
/// over [`MAX_ITEM_BYTES`] or not UTF-8, a timestamp or importance that is not a finite
/// non-negative number, more than [`TraceOptions::max_fields`] fields. Always: an
/// unreadable input, or a trace without a single good record.
pub fn for_each_record(
    input: impl Read,
    opts: &TraceOptions,
    mut each: impl FnMut(TraceRecord),
) -> Result<TraceSummary, TraceError> {
    let mut pass = Pass::new(opts);
    lines::stream(input, lines::BLOCK, &mut pass, &mut each)?;
    pass.finish()
}

/// Reads a whole trace in today's form ([`TraceOptions::default`]).
///
/// # Errors
/// As [`for_each_record`].
pub fn read_trace(input: impl Read) -> Result<Vec<TraceRecord>, TraceError> {
    let mut out = Vec::new();
    for_each_record(input, &TraceOptions::default(), |r| out.push(r))?;
    Ok(out)
}

/// gzip's magic bytes (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// zstd's frame magic number, little-endian (RFC 8878).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Opens a trace for streaming: `-` is standard input; gzip and zstd are recognised by
/// their magic bytes and decompressed on the fly (any file name).
///
/// # Errors
/// An unreadable file or a broken compressed stream's header.
pub fn open_trace(path: &Path) -> Result<Box<dyn Read>, TraceError> {
    let cannot = |e: std::io::Error| {
        TraceError {
        line: 0,
        message: format!("cannot be read: {e} (allowed: a readable file of {TRACE_FORM}, gzip or zstd, or - for standard input)"),
    }
    };
    let raw: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(cannot)?)
    };
    decompressed(raw).map_err(cannot)
}

/// `input`, decompressed when it starts with gzip's or zstd's magic bytes.
///
/// # Errors
/// Reading the first bytes, or a zstd stream that cannot start.
pub fn decompressed<'a>(input: impl Read + 'a) -> std::io::Result<Box<dyn Read + 'a>> {
    let mut buf = BufReader::with_capacity(1 << 16, input);
    let head = buf.fill_buf()?;
    Ok(if head.starts_with(&GZIP_MAGIC) {
        Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(buf),
        ))
    } else if head.starts_with(&ZSTD_MAGIC) {
        zstd_decoder(buf)?
    } else {
        Box::new(buf)
    })
}

/// A zstd decoder over `buf` (the C library, outside the browser).
#[cfg(not(target_arch = "wasm32"))]
fn zstd_decoder<'a>(buf: BufReader<impl Read + 'a>) -> std::io::Result<Box<dyn Read + 'a>> {
    Ok(Box::new(zstd::stream::read::Decoder::with_buffer(buf)?))
}

/// In the browser build zstd is absent (it binds C): a zstd trace is refused.
#[cfg(target_arch = "wasm32")]
fn zstd_decoder<'a>(_buf: BufReader<impl Read + 'a>) -> std::io::Result<Box<dyn Read + 'a>> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "zstd traces are not readable in the browser build (allowed: plain or gzip)",
    ))
}

/// Reads a trace file (gzip, zstd or plain; `-` for standard input) in today's form.
///
/// # Errors
/// As [`read_trace`], plus an unreadable file.
pub fn read_trace_file(path: &Path) -> Result<Vec<TraceRecord>, TraceError> {
    read_trace(open_trace(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_items_timestamps_and_importance() {
        let t = read_trace("item,timestamp,importance\na,1.5,3\nb\n\nc,2\n".as_bytes()).unwrap();
        assert_eq!(t.len(), 3);
        let lines: Vec<u64> = t.iter().map(|r| r.line).collect();
        assert_eq!(
            lines,
            [2, 3, 5],
            "physical lines, the header and a blank one counted"
        );
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

    #[test]
    fn wide_logs_name_their_columns_and_bad_lines_can_be_skipped() {
        let log = "ts,user,path\n10,alice,/a\n11,bob,/b\nx,carol,/c\n12,,/d\n13,alice,/e\n";
        let opts = TraceOptions::columns(1, Some(0));
        let e = for_each_record(log.as_bytes(), &opts, |_| {}).unwrap_err();
        assert_eq!(
            e.line, 1,
            "the header is a bad line unless its item is `item`: {e}"
        );
        let mut got = Vec::new();
        let s = for_each_record(log.as_bytes(), &opts.skipping_bad_lines(true), |r| {
            got.push(r)
        })
        .unwrap();
        assert_eq!((s.records, s.skipped), (3, 3));
        assert_eq!(s.first_skipped.unwrap().line, 1);
        assert_eq!(got[0].key, xxh3_64(b"alice"));
        assert_eq!(got[2].key, got[0].key);
        assert_eq!(got[1].timestamp, Some(11.0));
        let e = for_each_record("a,1\n".as_bytes(), &TraceOptions::columns(3, None), |_| {})
            .unwrap_err();
        assert!(e.to_string().contains("no column 4"), "{e}");
        let all_bad = for_each_record(
            "a,x\n".as_bytes(),
            &TraceOptions::default().skipping_bad_lines(true),
            |_| {},
        );
        assert!(all_bad.unwrap_err().message.contains("1 bad lines skipped"));
    }

    /// A reader handing out at most `step` bytes per call, as a pipe may.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    type Outcome = (Vec<TraceRecord>, Result<TraceSummary, TraceError>);

    /// `s` without its line numbers (`line N: ` and the number of a [`TraceError`]).
    fn without_lines(e: &TraceError) -> TraceError {
        let mut message = String::new();
        let mut rest = e.message.as_str();
        while let Some(i) = rest.find("line ") {
            message.push_str(&rest[..i]);
            rest = rest[i + 5..].trim_start_matches(|c: char| c.is_ascii_digit());
            rest = rest.strip_prefix(": ").unwrap_or(rest);
        }
        message.push_str(rest);
        TraceError { line: 0, message }
    }

    /// An outcome with every line number removed.
    fn lineless((mut got, r): Outcome) -> Outcome {
        for g in &mut got {
            g.line = 0;
        }
        let r = r
            .map(|mut s| {
                s.first_skipped = s.first_skipped.as_ref().map(without_lines);
                s
            })
            .map_err(|e| without_lines(&e));
        (got, r)
    }

    /// The whole input through the `csv` crate (the reference, but for line numbers).
    fn csv_only(input: &[u8], opts: &TraceOptions) -> Outcome {
        let mut got = Vec::new();
        let mut pass = Pass::new(opts);
        let r = csv_records(input, &mut pass, &mut |r| got.push(r)).and_then(|()| pass.finish());
        lineless((got, r))
    }

    /// The input through the line reader, `block` bytes at a time, `step` bytes a read.
    fn by_lines(input: &[u8], opts: &TraceOptions, block: usize, step: usize) -> Outcome {
        let mut got = Vec::new();
        let mut pass = Pass::new(opts);
        let r = lines::stream(Trickle(input, step), block, &mut pass, &mut |r| got.push(r))
            .and_then(|()| pass.finish());
        (got, r)
    }

    fn all_options() -> [TraceOptions; 4] {
        [
            TraceOptions::default(),
            TraceOptions::default().skipping_bad_lines(true),
            TraceOptions::columns(1, Some(0)),
            TraceOptions::columns(1, Some(2)).skipping_bad_lines(true),
        ]
    }

    #[test]
    fn line_reader_agrees_with_the_csv_reader_on_line_ends_and_blanks() {
        let cases: [&[u8]; 9] = [
            b"a\r\nb,1\r\n\r\nc,2,3\r\n",
            b"a\nb,1\nlast,4",
            b"a\nb,1\nlast,4\r",
            b"\n\n\na\n\n\nb,x\n",
            b"item\n\n  spaced  , 2 \n\t\n,1\n",
            b"a\n\"quoted, with comma\",1\n\"two\nlines\",2\nz,y\n",
            b"a,1\rb,2\rc,x\n",
            b"item,timestamp\r\n\r\na,1\r\n",
            b"x,1\n\"unterminated\n",
        ];
        for input in cases {
            for opts in all_options() {
                let whole = by_lines(input, &opts, lines::BLOCK, usize::MAX);
                assert_eq!(lineless(whole.clone()), csv_only(input, &opts), "{opts:?}");
                for (block, step) in [(BLOCK_FOR_TESTS, usize::MAX), (1, 1), (3, 2), (5, 7)] {
                    assert_eq!(
                        by_lines(input, &opts, block, step),
                        whole,
                        "{:?} {opts:?} block {block} step {step}",
                        String::from_utf8_lossy(input)
                    );
                }
            }
        }
    }

    #[test]
    fn errors_name_the_physical_line_after_blank_and_crlf_lines() {
        let e = read_trace("a\r\n\r\n\nb,x\r\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        let e = read_trace("a\n\n\"q\",1\n\nb,x\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 5, "after a quoted line: {e}");
        let e = read_trace("\"two\nlines\",x\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 1, "a record's first line: {e}");
        let skip = TraceOptions::default().skipping_bad_lines(true);
        let s = for_each_record("\"two\n\nlines\",x\nc,y\n".as_bytes(), &skip, |_| {});
        let e = s.unwrap_err();
        assert!(
            e.message
                .contains("2 bad lines skipped, the first at line 1:"),
            "{e}"
        );
        let e = read_trace("a\rb,x\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 1, "a lone \\r ends a record, not a line: {e}");
        let e = read_trace("\"a\"\r\n\"b\",x\r\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }

    const BLOCK_FOR_TESTS: usize = 64;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn line_reader_agrees_with_the_csv_reader(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![
                    b'a', b'b', b'1', b'.', b',', b' ', b'\t', b'\n', b'\n', b'\r', b'"', 0xff,
                ]),
                0..80,
            ),
            block in 1usize..40,
            step in 1usize..50,
            which in 0usize..4,
        ) {
            let opts = all_options()[which];
            let whole = by_lines(&bytes, &opts, lines::BLOCK, usize::MAX);
            proptest::prop_assert_eq!(lineless(whole.clone()), csv_only(&bytes, &opts));
            proptest::prop_assert_eq!(by_lines(&bytes, &opts, block, step), whole);
        }
    }

    #[test]
    fn gzip_and_zstd_are_recognised_by_magic_bytes() {
        use std::io::Write;
        let text = "item\na,1\nb,2\na,3\n";
        let plain = read_trace(decompressed(text.as_bytes()).unwrap()).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(&gz[..2], &GZIP_MAGIC);
        assert_eq!(read_trace(decompressed(&gz[..]).unwrap()).unwrap(), plain);
        let zs = zstd::stream::encode_all(text.as_bytes(), 1).unwrap();
        assert_eq!(&zs[..4], &ZSTD_MAGIC);
        assert_eq!(read_trace(decompressed(&zs[..]).unwrap()).unwrap(), plain);
        assert_eq!(plain.len(), 3);
    }
}
