//! Trace reading (issue 20): parse and hash plain lines (one item per line) and the
//! three-field CSV form, through the streaming reader
//! ([`bfopt_validation::workload::for_each_record`]); and the one-pass profile with the
//! exact `D(L)`. Target: 20 M plain lines/s per core.

use bfopt_validation::workload::profile::{ProfileOptions, TraceProfiler};
use bfopt_validation::workload::{for_each_record, TraceOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::fmt::Write;
use std::hint::black_box;

/// `n` lines of generated items (about 12 bytes each), seeded, built outside the timing.
fn lines(n: u64, csv: bool) -> Vec<u8> {
    let mut s = String::with_capacity(n as usize * 24);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if csv {
            let _ = writeln!(s, "user{:08},{i},{}", x % 1_000_000, x % 7);
        } else {
            let _ = writeln!(s, "user{:08}", x % 1_000_000);
        }
    }
    s.into_bytes()
}

fn trace(c: &mut Criterion) {
    const N: u64 = 1_000_000;
    let mut g = c.benchmark_group("trace");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    for (name, csv) in [("plain", false), ("csv3", true)] {
        let data = lines(N, csv);
        g.bench_function(BenchmarkId::new("parse_hash", name), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for_each_record(black_box(&data[..]), &TraceOptions::default(), |r| {
                    acc ^= r.key
                })
                .unwrap();
                acc
            })
        });
    }
    let data = lines(N, false);
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

criterion_group!(benches, trace);
criterion_main!(benches);
