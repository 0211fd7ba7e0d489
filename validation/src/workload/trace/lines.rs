//! The trace reader's line splitting: a large block of input at a time, split into lines
//! with `memchr`, each line's fields borrowed from the block (no allocation per line).
//! A line holding a quote `"` or a lone `\r` is read as RFC 4180 CSV by `csv_core`
//! (quoted fields may hold commas and line breaks; a lone `\r` ends a record), the same
//! records the `csv` crate gives; line numbers are always physical (`\n` counted).

use super::{Fields, Pass, TraceError, TraceRecord, TRACE_FORM};
use csv_core::ReadRecordResult;
use memchr::{memchr, memchr2, memchr_iter, memrchr};
use std::io::{ErrorKind, Read};

/// Bytes read at a time (the block grows only to hold a longer line or quoted record).
pub(super) const BLOCK: usize = 1 << 20;

/// One line without quotes, split at its commas, fields trimmed of ASCII whitespace
/// (as `csv::Trim::All` does).
struct Split<'a> {
    line: &'a [u8],
    commas: usize,
}

impl<'a> Split<'a> {
    #[inline]
    fn new(line: &'a [u8]) -> Self {
        // A short line: a counting loop (vectorised) beats a `memchr` call.
        let commas = line.iter().filter(|&&b| b == b',').count();
        Self { line, commas }
    }
}

impl Fields for Split<'_> {
    #[inline]
    fn count(&self) -> usize {
        self.commas + 1
    }

    #[inline]
    fn field(&self, i: usize) -> &[u8] {
        if self.commas == 0 {
            return if i == 0 { self.line.trim_ascii() } else { b"" };
        }
        self.line
            .split(|&b| b == b',')
            .nth(i)
            .map_or(b"", <[u8]>::trim_ascii)
    }
}

/// One record read by `csv_core`: its unescaped fields back to back and their ends.
struct Unquoted<'a> {
    out: &'a [u8],
    ends: &'a [usize],
}

impl Fields for Unquoted<'_> {
    fn count(&self) -> usize {
        self.ends.len()
    }

    fn field(&self, i: usize) -> &[u8] {
        match self.ends.get(i) {
            None => b"",
            Some(&end) => {
                let start = if i == 0 { 0 } else { self.ends[i - 1] };
                self.out[start..end].trim_ascii()
            }
        }
    }
}

/// The RFC 4180 reader for lines with quotes, and its reused output buffers.
struct Quotes {
    reader: csv_core::Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
}

/// What the RFC 4180 reader made of the input from a line start.
enum Quoted {
    /// A record (field count, unescaped length) and the bytes it took.
    Record(usize, usize, usize),
    /// Only blank lines up to the end of the input, all taken.
    End(usize),
    /// The record may continue past the bytes read so far.
    NeedMore,
}

impl Quotes {
    fn new() -> Self {
        Self {
            reader: csv_core::Reader::new(),
            out: vec![0; 256],
            ends: vec![0; 16],
        }
    }

    /// Reads one record from the start of `data` (`eof`: nothing follows it).
    fn read(&mut self, data: &[u8], eof: bool) -> Quoted {
        self.reader.reset();
        let (mut taken, mut outlen, mut endlen) = (0, 0, 0);
        loop {
            let (res, nin, nout, nend) = self.reader.read_record(
                &data[taken..],
                &mut self.out[outlen..],
                &mut self.ends[endlen..],
            );
            taken += nin;
            outlen += nout;
            endlen += nend;
            match res {
                // At the end of the input an empty slice tells the reader so.
                ReadRecordResult::InputEmpty if !eof => return Quoted::NeedMore,
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => self.out.resize(self.out.len() * 2, 0),
                ReadRecordResult::OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                ReadRecordResult::Record => return Quoted::Record(endlen, outlen, taken),
                ReadRecordResult::End => return Quoted::End(taken),
            }
        }
    }
}

/// Reads into `buf`, retrying on interruption.
fn fill(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Parses the lines of `data` (whole lines; at `eof` the last may lack its `\n`), the
/// first being physical line `*line`. Returns how many bytes were parsed: all of
/// `data`, or less when a quoted record may continue past it.
#[inline]
fn lines(
    data: &[u8],
    eof: bool,
    line: &mut u64,
    quotes: &mut Quotes,
    pass: &mut Pass<'_>,
    each: &mut impl FnMut(TraceRecord),
) -> Result<usize, TraceError> {
    // One vectorised scan of the block decides whether lines need checking one by one.
    if memchr2(b'"', b'\r', data).is_none() {
        let mut start = 0;
        for end in memchr_iter(b'\n', data) {
            if end > start {
                pass.line(&Split::new(&data[start..end]), *line, each)?;
            }
            *line += 1;
            start = end + 1;
        }
        if start < data.len() {
            pass.line(&Split::new(&data[start..]), *line, each)?;
        }
        return Ok(data.len());
    }
    let mut start = 0;
    while start < data.len() {
        let end = memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
        let mut text = &data[start..end];
        if let [rest @ .., b'\r'] = text {
            text = rest;
        }
        if memchr2(b'"', b'\r', text).is_some() {
            if text[0] == b'\r' {
                start += 1; // a lone `\r` ends a blank line (on the same `\n` line)
                continue;
            }
            match quotes.read(&data[start..], eof) {
                Quoted::NeedMore => return Ok(start),
                Quoted::End(taken) => start += taken,
                Quoted::Record(count, outlen, taken) => {
                    let fields = Unquoted {
                        out: &quotes.out[..outlen],
                        ends: &quotes.ends[..count],
                    };
                    pass.line(&fields, *line, each)?;
                    *line += memchr_iter(b'\n', &data[start..start + taken]).count() as u64;
                    start += taken;
                }
            }
            continue;
        }
        if !text.is_empty() {
            pass.line(&Split::new(text), *line, each)?;
        }
        *line += 1;
        start = end + 1;
    }
    Ok(data.len())
}

/// Streams `input` through `pass`, reading `block` bytes at a time.
pub(super) fn stream(
    mut input: impl Read,
    block: usize,
    pass: &mut Pass<'_>,
    each: &mut impl FnMut(TraceRecord),
) -> Result<(), TraceError> {
    let mut buf = vec![0u8; block.max(1)];
    let mut quotes = Quotes::new();
    // `buf[..end]` holds read bytes not yet parsed, starting at physical line `line`;
    // `waiting`: a quoted record at its start needs more bytes, tried again only when
    // the block is full (then doubled) or the input ends, so a long record is parsed
    // O(log length) times, not once per read.
    let (mut end, mut line, mut waiting) = (0usize, 1u64, false);
    loop {
        if end == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = fill(&mut input, &mut buf[end..]).map_err(|e| TraceError {
            line,
            message: format!("{e} (allowed: {TRACE_FORM})"),
        })?;
        end += n;
        let eof = n == 0;
        if waiting && !eof && end < buf.len() {
            continue;
        }
        let whole = if eof {
            end
        } else {
            // Unless waiting, the bytes kept from before hold no `\n`: search the new ones.
            let from = if waiting { 0 } else { end - n };
            match memrchr(b'\n', &buf[from..end]) {
                Some(i) => from + i + 1,
                None => continue,
            }
        };
        let parsed = lines(&buf[..whole], eof, &mut line, &mut quotes, pass, each)?;
        if eof {
            return Ok(());
        }
        waiting = parsed < whole;
        buf.copy_within(parsed..end, 0);
        end -= parsed;
    }
}
