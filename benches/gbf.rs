//! Generalized Bloom filter (issue 6): one stable posterior for k = 8 and k = 30 (the
//! paper's Java: 1.85 µs per inferential insert + query at k = 4, Table 5 [TBF]), and the
//! reference GBF's query + insert throughput.

use bfopt_models::gbf::posterior::{window_posterior, window_posterior_eq34, TLikelihood};
use bfopt_models::gbf::{GbfDistinctTable, GbfObservation, GbfParams};
use bfopt_models::timing::prior::Distinct;
use bfopt_validation::filters::gbf::GbfFilter;
use bfopt_validation::workload::member;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

fn gbf(c: &mut Criterion) {
    let w = 1u64 << 16;
    let mut g = c.benchmark_group("gbf");
    for k in [4u32, 8, 30] {
        // bpi = 10: m = 10·w.
        let p = GbfParams::new(10 * w, k, k).unwrap();
        let lik = TLikelihood::balanced(2 * k - 2, 2);
        g.bench_function(BenchmarkId::new("posterior_stable", k), |b| {
            b.iter(|| window_posterior(black_box(&lik), p.q_eps(), 1.0 / 65536.0, w))
        });
        g.bench_function(BenchmarkId::new("posterior_eq34_double", k), |b| {
            b.iter(|| window_posterior_eq34(black_box(&lik), p.q_eps(), 1.0 / 65536.0, w))
        });
    }
    let p = GbfParams::new(10 * w, 4, 4).unwrap();
    g.sample_size(10);
    g.bench_function("distinct_table_build/k=4", |b| {
        b.iter(|| GbfDistinctTable::new(&p, 1.0 / 65536.0, w, &Distinct::Uniform { universe: w }))
    });
    let table =
        GbfDistinctTable::new(&p, 1.0 / 65536.0, w, &Distinct::Uniform { universe: w }).unwrap();
    let o = GbfObservation {
        c0: 3,
        r0: 4,
        c1: 4,
        r1: 4,
    };
    g.bench_function("distinct_posterior/k=4", |b| {
        b.iter(|| table.posterior(black_box(&o)))
    });

    let mut f = GbfFilter::new(&p, 1);
    let keys: Vec<u64> = (0..(1u64 << 20)).map(|i| member(1, i % w)).collect();
    const BATCH: usize = 100_000;
    g.throughput(Throughput::Elements(BATCH as u64));
    g.sample_size(20);
    let mut pos = 0usize;
    g.bench_function("standard_query_insert/k=4", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for _ in 0..BATCH {
                let k = keys[pos];
                pos = (pos + 1) % keys.len();
                hits += u32::from(f.query_u64(black_box(k)).positive);
                f.insert_u64(k);
            }
            hits
        })
    });
    g.finish();
}

criterion_group!(benches, gbf);
criterion_main!(benches);
