//! Insert and query throughput of the reference standard filter, side by side with the
//! `fastbloom` crate at m = 2^24 bits, k = 7 (target: at least 0.5× fastbloom).
// criterion_group! defines undocumented functions (workspace lint missing_docs).
#![allow(missing_docs)]

use bfopt_models::classic::Layout;
use bfopt_validation::filters::classic::ClassicFilter;
use bfopt_validation::workload::{member, probe};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const M: u64 = 1 << 24;
const K: u32 = 7;
/// Half-fill capacity m·ln2/k.
const N: u64 = 1_662_000;
const BATCH: u64 = 100_000;

fn filters(c: &mut Criterion) {
    let keys: Vec<u64> = (0..BATCH).map(|i| member(1, i)).collect();
    let probes: Vec<u64> = (0..BATCH).map(|i| probe(1, i)).collect();
    let mut g = c.benchmark_group("filters");
    g.throughput(Throughput::Elements(BATCH));
    g.sample_size(20);

    for layout in [Layout::Standard, Layout::Blocked { block_bits: 512 }] {
        let mut f = ClassicFilter::with_layout(M, K, layout, 1);
        g.bench_function(BenchmarkId::new("bfopt_insert", layout.name()), |b| {
            b.iter(|| keys.iter().for_each(|&x| f.insert_u64(black_box(x))))
        });
        let mut full = ClassicFilter::with_layout(M, K, layout, 1);
        (0..N).for_each(|i| full.insert_u64(member(2, i)));
        g.bench_function(BenchmarkId::new("bfopt_query_absent", layout.name()), |b| {
            b.iter(|| {
                probes
                    .iter()
                    .filter(|&&x| full.contains_u64(black_box(x)))
                    .count()
            })
        });
        g.bench_function(
            BenchmarkId::new("bfopt_query_present", layout.name()),
            |b| {
                b.iter(|| {
                    (0..BATCH)
                        .filter(|&i| full.contains_u64(black_box(member(2, i))))
                        .count()
                })
            },
        );
    }

    let mut fb = fastbloom::BloomFilter::with_num_bits(M as usize).hashes(K);
    g.bench_function("fastbloom_insert", |b| {
        b.iter(|| {
            keys.iter().for_each(|x| {
                fb.insert(black_box(x));
            })
        })
    });
    let mut full = fastbloom::BloomFilter::with_num_bits(M as usize).hashes(K);
    (0..N).for_each(|i| {
        full.insert(&member(2, i));
    });
    g.bench_function("fastbloom_query_absent", |b| {
        b.iter(|| {
            probes
                .iter()
                .filter(|x| full.contains(black_box(*x)))
                .count()
        })
    });
    g.bench_function("fastbloom_query_present", |b| {
        b.iter(|| {
            (0..BATCH)
                .filter(|&i| full.contains(&black_box(member(2, i))))
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, filters);
criterion_main!(benches);
