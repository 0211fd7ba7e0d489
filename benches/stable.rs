//! Stable / Importance-aware filters: stable point of one policy, the optimizers, and
//! reference filter throughput.

use bfopt_models::stable::{
    design, design_decrements, solve, stream_metrics, Cost, IbfParams, IbfRequirement,
    ImportanceDist, Policy, RepeatStream, SbfParams, SbfRequirement,
};
use bfopt_validation::filters::stable::StableFilter;
use bfopt_validation::workload::{member, probe};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

fn models(c: &mut Criterion) {
    let mut g = c.benchmark_group("stable");
    let sbf = SbfParams::new(1 << 20, 4, 3, 10).unwrap();
    g.bench_function("sbf_zero_fraction_closed_form", |b| {
        b.iter(|| black_box(sbf).zero_fraction())
    });
    g.bench_function("sbf_zero_fraction_chain", |b| {
        b.iter(|| black_box(sbf).zero_fraction_chain().unwrap())
    });
    g.bench_function("sbf_fn_half_life", |b| {
        b.iter(|| black_box(sbf).fn_half_life())
    });
    let req = SbfRequirement {
        m: 1 << 20,
        k: 4,
        max: 3,
        fp: 0.01,
    };
    g.bench_function("sbf_design_decrements", |b| {
        b.iter(|| design_decrements(black_box(&req)).unwrap())
    });
    g.sample_size(10);
    let imp = ImportanceDist::linear(1, 50).unwrap();
    for policy in [Policy::Ibf1, Policy::Ibf3, Policy::Ibf4, Policy::Ibf6] {
        let p = IbfParams::new(policy, 65_536, 4, 4, 7, imp.clone()).unwrap();
        g.bench_function(BenchmarkId::new("stable_point", policy.name()), |b| {
            b.iter(|| solve(black_box(&p)).unwrap().zero_fraction())
        });
    }
    // MinImp at large m: the threshold limit (8-bit counters: neutral; 4-bit: Brent on
    // the saturated rate), and the rank map at m = 2^14.
    for (name, m, bits) in [
        ("ibf4_2^14", 1u64 << 14, 8),
        ("ibf4_2^16", 1 << 16, 8),
        ("ibf4_2^20", 1 << 20, 8),
        ("ibf4_2^24", 1 << 24, 8),
        ("ibf2_2^20", 1 << 20, 8),
        ("ibf4_2^20_counter4", 1 << 20, 4),
    ] {
        let policy = if name.starts_with("ibf2") {
            Policy::Ibf2
        } else {
            Policy::Ibf4
        };
        let p = IbfParams::new(policy, m, 4, 4, 7, imp.clone())
            .unwrap()
            .with_counter_bits(bits)
            .unwrap();
        g.bench_function(BenchmarkId::new("minimp_stable_point", name), |b| {
            b.iter(|| solve(black_box(&p)).unwrap().zero_fraction())
        });
    }
    let req = IbfRequirement {
        bits: 1 << 16,
        importance: ImportanceDist::linear(1, 10).unwrap(),
        cost_fp: Cost::parse("cost_fp", "1").unwrap(),
        cost_fn: Cost::parse("cost_fn", "1*imp").unwrap(),
        age: 1000,
        member_share: 0.7,
        policies: vec![Policy::Sbf, Policy::Ibf1, Policy::Ibf6],
    };
    g.bench_function("ibf_design/sbf,ibf1,ibf6", |b| {
        b.iter(|| design(black_box(&req)).unwrap())
    });
    // The thesis stream at 1/32 of Tables 3-4 (n = 8192, 3125 arrivals: the thesis's
    // items per cell at n = 262144): per-cell items (SBF) and items-and-counter models.
    let stream = RepeatStream::new(3125, 0.7).unwrap();
    for policy in [Policy::Sbf, Policy::Ibf2, Policy::Ibf3] {
        let p = IbfParams::new(policy, 8192, 4, 4, 7, imp.clone()).unwrap();
        g.bench_function(BenchmarkId::new("thesis_stream_1_32", policy.name()), |b| {
            b.iter(|| stream_metrics(black_box(&p), &stream).unwrap().weighted_fn)
        });
    }
    g.finish();
}

fn filters(c: &mut Criterion) {
    const BATCH: u64 = 100_000;
    let imp = ImportanceDist::linear(1, 50).unwrap();
    let mut g = c.benchmark_group("stable_filters");
    g.throughput(Throughput::Elements(BATCH));
    g.sample_size(10);
    for policy in Policy::ALL {
        let params = IbfParams::new(policy, 1 << 20, 4, 3, 10, imp.clone()).unwrap();
        let mut f = StableFilter::new(&params, 1);
        (0..(1u64 << 20)).for_each(|i| f.insert_u64(member(2, i), (i % 50 + 1) as u32));
        g.bench_function(BenchmarkId::new("insert", policy.name()), |b| {
            b.iter(|| {
                (0..BATCH).for_each(|i| f.insert_u64(black_box(member(3, i)), (i % 50 + 1) as u32))
            })
        });
        g.bench_function(BenchmarkId::new("query_absent", policy.name()), |b| {
            b.iter(|| {
                (0..BATCH)
                    .filter(|&i| f.contains_u64(black_box(probe(3, i))))
                    .count()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, models, filters);
criterion_main!(benches);
