//! Persistent Bloom filters (issue 7): bit allocation for PBF-1 at T = 86 400, g = 4
//! (43 206 filters; the paper reports 0.1 s) and for PBF-2 (the paper: 100 µs), target
//! at least 20× faster; insert and query throughput of SBF, PBF-1 and PBF-2.
//!
//! Measured 2026-11-23 on the shared 2-core machine at load average 10-17 (so wall times
//! are several times the CPU time): `optimal/pbf1_g4` 4.6-4.7 ms wall, 1.4-1.5 ms CPU
//! (was 3.2 ms CPU: the objective is now summed per ratio group, the rounded FP memoised,
//! the root function uses one `exp` per evaluation, and no software `floor`/`ceil`);
//! `optimal/pbf2` 9-11 µs wall, 2.7 µs CPU. Both CPU times are more than 20× below the
//! paper's 0.1 s and 100 µs.

use bfopt_models::pbf::{
    fine_probes_by_leaf, workload_stats, AllocationProblem, PbfLayout, Variant,
};
use bfopt_validation::experiments::pbf::{query_workload, TraceSpec};
use bfopt_validation::filters::pbf::{PbfFilter, PbfSizing, SbfFilter};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const T: u64 = 86_400;

fn allocation(c: &mut Criterion) {
    // d_i and f_i of a synthetic EDGAR day (5% scale: 106k pairs) and 10 000 queries of
    // length 128; the solve's cost depends on the number of filters, not on the pairs.
    let spec = TraceSpec::edgar(0.05);
    let trace = spec.generate(1).unwrap();
    let queries: Vec<(u64, u64)> = query_workload(T, 128, 10_000, 1, 2)
        .unwrap()
        .into_iter()
        .map(|(_, s, e)| (s, e))
        .collect();
    let mut g = c.benchmark_group("pbf/allocation");
    g.sample_size(10);
    for (name, layout) in [
        ("pbf1_g4", PbfLayout::pbf1(T, 4).unwrap()),
        ("pbf2", PbfLayout::pbf2(T).unwrap()),
    ] {
        let st = workload_stats(&layout, &trace, &queries).unwrap();
        let problem =
            AllocationProblem::new(20 * spec.pairs, st.distinct.clone(), st.frequency.clone())
                .unwrap();
        g.bench_function(BenchmarkId::new("optimal", name), |b| {
            b.iter(|| black_box(&problem).optimal(16).unwrap())
        });
        if let Some(fine) = layout.fine_filter() {
            let by_leaf = fine_probes_by_leaf(&layout, &queries).unwrap();
            g.bench_function(BenchmarkId::new("optimal_gated", name), |b| {
                b.iter(|| {
                    black_box(&problem)
                        .optimal_gated(fine as usize, &by_leaf, 16)
                        .unwrap()
                })
            });
        }
        g.bench_function(BenchmarkId::new("workload_stats", name), |b| {
            b.iter(|| workload_stats(&layout, black_box(&trace), &queries).unwrap())
        });
    }
    g.finish();
}

fn throughput(c: &mut Criterion) {
    let spec = TraceSpec::edgar(0.02);
    let trace = spec.generate(3).unwrap();
    let queries = query_workload(T, 128, 20_000, 3, 4).unwrap();
    // The paper's efficiency set-up (Section 7.2): m = 5e7 bits, uniform filters.
    let m = 50_000_000u64;
    let mut g = c.benchmark_group("pbf/throughput");
    g.sample_size(10);
    g.throughput(Throughput::Elements(trace.len() as u64));
    let layouts = [
        (Variant::Pbf1, 4u64, PbfLayout::pbf1(T, 4).unwrap()),
        (Variant::Pbf2, 1, PbfLayout::pbf2(T).unwrap()),
    ];
    for (variant, g_leaf, layout) in &layouts {
        let per = m / layout.filters();
        let sizing = PbfSizing::Uniform {
            bits: per,
            hashes: 7,
        };
        let name = format!("{variant:?}").to_lowercase();
        g.bench_function(BenchmarkId::new("insert", &name), |b| {
            b.iter_batched(
                || PbfFilter::new(*variant, *g_leaf, sizing.clone(), 1).unwrap(),
                |mut f| {
                    for &(a, t) in &trace {
                        f.insert(a, t).unwrap();
                    }
                    f
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.bench_function(BenchmarkId::new("insert", "sbf"), |b| {
        b.iter_batched(
            || SbfFilter::new(m, 7, 1),
            |mut f| {
                for &(a, t) in &trace {
                    f.insert(a, t);
                }
                f
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.throughput(Throughput::Elements(queries.len() as u64));
    for (variant, g_leaf, layout) in &layouts {
        let per = m / layout.filters();
        let mut f = PbfFilter::new(
            *variant,
            *g_leaf,
            PbfSizing::Uniform {
                bits: per,
                hashes: 7,
            },
            1,
        )
        .unwrap();
        trace.iter().for_each(|&(a, t)| f.insert(a, t).unwrap());
        let name = format!("{variant:?}").to_lowercase();
        g.bench_function(BenchmarkId::new("query_q128", &name), |b| {
            b.iter(|| {
                queries
                    .iter()
                    .filter(|&&(x, s, e)| f.query(black_box(x), s, e).unwrap())
                    .count()
            })
        });
    }
    let mut f = SbfFilter::new(m, 7, 1);
    trace.iter().for_each(|&(a, t)| f.insert(a, t));
    g.bench_function(BenchmarkId::new("query_q128", "sbf"), |b| {
        b.iter(|| {
            queries
                .iter()
                .filter(|&&(x, s, e)| f.query(black_box(x), s, e))
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, allocation, throughput);
criterion_main!(benches);
