//! Trace reading (issue 20): parse and hash plain lines (one item per line), the
//! three-field CSV form and CRLF line ends through the streaming reader
//! ([`bfopt_validation::workload::for_each_record`]), from memory and from a generated
//! file (plain and gzip); the `csv` crate's loop the reader replaced, for comparison; and
//! the one-pass profile with the exact `D(L)`. Target: 20 M plain lines/s per core.
//!
//! "Parse and hash" is: split the input into lines and fields, check the item (non-empty,
//! at most 64 KiB, UTF-8), parse the timestamp and importance, hash the item with xxh3 and
//! hand the record to a callback that folds the keys. The distinct-item state is not in it
//! (it is in `profile/plain`).
//!
//! Times are the benchmark thread's CPU time, so the rates are per core on a shared machine.
//! Run: `CARGO_BUILD_JOBS=1 cargo bench --bench trace` (about a minute on an idle machine).

use bfopt_validation::workload::profile::{ProfileOptions, TraceProfiler};
use bfopt_validation::workload::{for_each_record, open_trace, TraceOptions};
use cpu_time::CpuTime;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::path::Path;

#[path = "common/cpu_time.rs"]
mod cpu_time;

/// Lines in each generated trace.
const N: u64 = 4_000_000;

/// `n` lines of generated items (`user` and 8 digits, 13 bytes a line when plain), seeded,
/// built outside the timing.
fn lines(n: u64, csv: bool, crlf: bool) -> Vec<u8> {
    let mut s = String::with_capacity(n as usize * 24);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let end = if crlf { "\r\n" } else { "\n" };
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if csv {
            let _ = write!(s, "user{:08},{i},{}{end}", x % 1_000_000, x % 7);
        } else {
            let _ = write!(s, "user{:08}{end}", x % 1_000_000);
        }
    }
    s.into_bytes()
}

/// Parses and hashes `input`, folding the keys.
fn parse_hash(input: impl std::io::Read) -> u64 {
    let mut acc = 0u64;
    for_each_record(input, &TraceOptions::default(), |r| acc ^= r.key).unwrap();
    acc
}

/// The loop the reader had before (the `csv` crate, a trimmed `ByteRecord` a line).
fn csv_crate(input: &[u8]) -> u64 {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let mut record = csv::ByteRecord::new();
    let mut acc = 0u64;
    while reader.read_byte_record(&mut record).unwrap() {
        let item = record.get(0).unwrap_or(b"");
        assert!(std::str::from_utf8(item).is_ok());
        acc ^= xxhash_rust::xxh3::xxh3_64(item);
    }
    acc
}

fn trace(c: &mut Criterion<CpuTime>) {
    let mut g = c.benchmark_group("trace");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    for (name, csv, crlf) in [
        ("plain", false, false),
        ("plain_crlf", false, true),
        ("csv3", true, false),
    ] {
        let data = lines(N, csv, crlf);
        g.bench_function(BenchmarkId::new("parse_hash", name), |b| {
            b.iter(|| parse_hash(black_box(&data[..])))
        });
    }
    let data = lines(N, false, false);
    g.bench_function("csv_crate/plain", |b| {
        b.iter(|| csv_crate(black_box(&data)))
    });

    let dir = std::env::temp_dir().join(format!("bfopt-trace-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, &data).unwrap();
    let gz = dir.join("plain.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&data).unwrap();
    enc.finish().unwrap();
    for (name, path) in [("plain", &plain), ("gzip", &gz)] {
        g.bench_function(BenchmarkId::new("file", name), |b| {
            b.iter(|| parse_hash(open_trace(black_box(Path::new(path))).unwrap()))
        });
    }
    std::fs::remove_dir_all(&dir).unwrap();

    g.bench_function("profile/plain", |b| {
        b.iter(|| {
            let mut p = TraceProfiler::new(ProfileOptions::default());
            for_each_record(black_box(&data[..]), &TraceOptions::default(), |r| {
                p.push(r.key, None, None)
            })
            .unwrap();
            p.finish().distinct
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = trace
}
criterion_main!(benches);
