//! APBF: Table 2 evaluation, the optimizer, reference filter throughput (issue 3).

use bfopt_models::apbf::{design, ApbbfParams, ApbfParams, ApbfRequirement};
use bfopt_validation::filters::apbf::ApbfFilter;
use bfopt_validation::workload::{member, probe};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

/// The 25 (k, l) rows of Table 2 [APBF].
const TABLE_2: [(u32, u32); 25] = [
    (4, 3),
    (5, 7),
    (6, 14),
    (7, 28),
    (8, 56),
    (7, 5),
    (8, 8),
    (9, 14),
    (10, 25),
    (11, 46),
    (10, 7),
    (11, 9),
    (12, 14),
    (13, 23),
    (14, 40),
    (14, 11),
    (15, 15),
    (16, 22),
    (17, 36),
    (18, 63),
    (17, 13),
    (18, 16),
    (19, 22),
    (20, 33),
    (21, 54),
];

fn models(c: &mut Criterion) {
    let mut g = c.benchmark_group("apbf");
    let rows: Vec<ApbfParams> = TABLE_2
        .iter()
        .map(|&(k, l)| ApbfParams::new(k, l).unwrap())
        .collect();
    // Every column of Table 2: fp, eff, window / fp / false accesses, NPWS.
    g.bench_function("table2/all_columns", |b| {
        b.iter(|| {
            for p in &rows {
                let acc = p.accesses_paper();
                black_box((
                    p.fp_paper(),
                    p.efficiency(),
                    p.accesses_window(),
                    acc.given_true(),
                    acc.given_false(),
                    p.npws(),
                ));
            }
        })
    });
    g.bench_function("table2/fp_only", |b| {
        b.iter(|| rows.iter().map(|p| p.fp_paper()).sum::<f64>())
    });
    g.bench_function("table2/full_metrics", |b| {
        b.iter(|| rows.iter().map(|p| p.metrics().fp).sum::<f64>())
    });
    let req = ApbfRequirement::new(1e-6, 1_000_000_000).unwrap();
    g.sample_size(10);
    g.bench_function("design/fp=1e-6,w=1e9", |b| {
        b.iter(|| design(black_box(&req)).unwrap())
    });
    let blocked = ApbfRequirement::new(1e-6, 1_000_000_000)
        .unwrap()
        .blocked(512, 8)
        .unwrap();
    g.bench_function("design_blocked/fp=1e-6,w=1e9", |b| {
        b.iter(|| design(black_box(&blocked)).unwrap())
    });
    g.finish();
}

fn filters(c: &mut Criterion) {
    let mut g = c.benchmark_group("apbf_filter");
    let n = 100_000u64;
    g.throughput(Throughput::Elements(n));
    let cases = [
        (
            "apbf(10,7)",
            ApbfFilter::new(
                &ApbfParams::new(10, 7)
                    .unwrap()
                    .with_window(1_000_000)
                    .unwrap(),
                1,
            ),
        ),
        (
            "apbbf(2,5,512,8)",
            ApbfFilter::blocked(
                &ApbbfParams::new(2, 5, 512, 8)
                    .unwrap()
                    .with_window(1_000_000)
                    .unwrap(),
                1,
            ),
        ),
        (
            "apbbf(3,8,64,4)",
            ApbfFilter::blocked(
                &ApbbfParams::new(3, 8, 64, 4)
                    .unwrap()
                    .with_window(1_000_000)
                    .unwrap(),
                1,
            ),
        ),
    ];
    for (name, empty) in cases {
        g.bench_function(BenchmarkId::new("insert", name), |b| {
            b.iter_batched_ref(
                || empty.clone(),
                |f| (0..n).for_each(|i| f.insert_u64(member(3, i))),
                criterion::BatchSize::LargeInput,
            )
        });
        let mut full = empty.clone();
        (0..3_000_000).for_each(|i| full.insert_u64(member(3, i)));
        g.bench_function(BenchmarkId::new("query_nonmember", name), |b| {
            b.iter(|| (0..n).filter(|&i| full.contains_u64(probe(3, i))).count())
        });
        g.bench_function(BenchmarkId::new("query_member", name), |b| {
            b.iter(|| {
                (0..n)
                    .filter(|&i| full.contains_u64(member(3, 3_000_000 - 1 - i)))
                    .count()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, models, filters);
criterion_main!(benches);
