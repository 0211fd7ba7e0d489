//! Timing / Block Timing Bloom filter (issue 5): one inferential posterior (cached
//! `F(c, 0, B)`), the chooser's expected penalty for one design, and the reference
//! BTBF's insert + query throughput (the paper's Java: 0.80 µs standard, 1.13 µs
//! inferential per insert/query pair, Table 5 [TBF]).

use bfopt_models::timing::btbf::{BtbfModel, BtbfObservation, BtbfParams, TimerAge};
use bfopt_models::timing::design::{expected_penalty, PenaltyResolution};
use bfopt_models::timing::{PenaltyDist, StreamPrior};
use bfopt_validation::filters::timing::BtbfFilter;
use bfopt_validation::workload::member;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

fn timing(c: &mut Criterion) {
    // Table 5's setting: k = 4, bpi = 10, w = 2^16, Uniform |U| = 2^16.
    let w = 1u64 << 16;
    let prior = StreamPrior::uniform(w).unwrap();
    let params = BtbfParams::with_default_padding(131_072, 4, 5, 2979, w).unwrap();
    let model = BtbfModel::new(params, prior.distinct());
    let mut g = c.benchmark_group("timing");
    let cases = [
        ("lambda<L", TimerAge::Finite(5)),
        ("lambda=L", TimerAge::Finite(params.expiry_age(100))),
        ("lambda=0", TimerAge::Finite(0)),
    ];
    for (name, age) in cases {
        let o = BtbfObservation {
            age,
            matching: if age == TimerAge::Finite(0) { 4 } else { 2 },
            touched: 4,
            offset: 100,
        };
        g.bench_function(BenchmarkId::new("posterior", name), |b| {
            b.iter(|| model.posterior_unchecked(black_box(1.0 / 65536.0), black_box(&o)))
        });
    }

    // A block above `BtbfModel::OFFSET_TABLE_MAX`: `λ = 0` evaluates `D(b)` per query.
    let big = BtbfParams::with_default_padding(131_072, 4, 4, 8192, w).unwrap();
    let big_model = BtbfModel::new(big, prior.distinct());
    let o = BtbfObservation {
        age: TimerAge::Finite(0),
        matching: 4,
        touched: 4,
        offset: 100,
    };
    g.bench_function(BenchmarkId::new("posterior", "lambda=0,B=8192"), |b| {
        b.iter(|| big_model.posterior_unchecked(black_box(1.0 / 65536.0), black_box(&o)))
    });

    let mut f = BtbfFilter::new(&params, 1);
    let keys: Vec<u64> = (0..(1u64 << 20)).map(|i| member(1, i % w)).collect();
    keys.iter().take(1 << 18).for_each(|&k| f.insert_u64(k));
    const BATCH: usize = 100_000;
    g.throughput(Throughput::Elements(BATCH as u64));
    g.sample_size(20);
    let mut pos = 0usize;
    g.bench_function("standard_query_insert", |b| {
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
    g.bench_function("inferential_query_insert", |b| {
        b.iter(|| {
            let mut s = 0.0;
            for _ in 0..BATCH {
                let k = keys[pos];
                pos = (pos + 1) % keys.len();
                let q = f.query_u64(black_box(k));
                s += model.posterior_unchecked(1.0 / 65536.0, &q.observation);
                f.insert_u64(k);
            }
            s
        })
    });
    g.finish();

    let mut g = c.benchmark_group("timing_chooser");
    g.sample_size(10);
    g.bench_function("expected_penalty/uniform_w=2^16_k=4", |b| {
        b.iter(|| {
            expected_penalty(
                &model,
                &prior,
                &PenaltyDist::paper(),
                PenaltyResolution::default(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, timing);
criterion_main!(benches);
