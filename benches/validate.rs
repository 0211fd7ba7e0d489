//! The validation suite's quick level (issue 18: `bfopt validate --level quick` under
//! 5 s wall, `--level full` under 90 s, on 2 cores): the families that cost the most CPU,
//! each run whole as `bfopt validate --level quick --family F` runs it (seed 1), and the
//! two parts of them that dominated a profile: a GBF posterior table of one Zipf item
//! class (`D_{−x}` at every piece of the table) and the PBF runs' inserts (one strength-
//! reduced remainder per index).
//!
//! Wall time (the families spread their epochs over rayon's pool); on the shared machine
//! it depends on the load, so compare runs made at the same load, and read the suite's
//! CPU time from `/usr/bin/time -v bfopt validate --level quick` (README, performance).

use bfopt_models::gbf::design::gbf_distinct;
use bfopt_models::gbf::{GbfDistinctTable, GbfParams};
use bfopt_models::pbf::Variant;
use bfopt_models::timing::prior::StreamPrior;
use bfopt_validation::experiments::gbf::zipf_class;
use bfopt_validation::experiments::pbf::TraceSpec;
use bfopt_validation::filters::pbf::{PbfFilter, PbfSizing};
use bfopt_validation::suite::{self, Level};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

fn families(c: &mut Criterion) {
    bfopt_validation::sim::set_progress(false);
    let mut g = c.benchmark_group("validate/quick");
    g.sample_size(10);
    for family in ["gbf", "pbf", "stable"] {
        g.bench_function(family, |b| {
            b.iter(|| suite::run(Some(black_box(family)), Level::Quick, 1).unwrap())
        });
    }
    g.finish();
}

fn parts(c: &mut Criterion) {
    let mut g = c.benchmark_group("validate/parts");
    g.sample_size(10);
    // The quick level's Zipf case: |U| = 2^12, w = 2^9, 8 bits per item, k0 = 1, k1 = 3;
    // a hot class (rank 1) and a cold one (rank 4000).
    let prior = StreamPrior::zipf(1 << 12).unwrap();
    let distinct = gbf_distinct(&prior);
    let params = GbfParams::new(8 << 9, 1, 3).unwrap();
    for rank in [1u64, 4000] {
        let (_, px) = zipf_class(&prior, rank);
        g.bench_function(BenchmarkId::new("gbf_zipf_class_table", rank), |b| {
            b.iter(|| GbfDistinctTable::new(&params, black_box(px), 1 << 9, &distinct).unwrap())
        });
    }
    // The quick level's EDGAR day (2% scale), a PBF-1 of 20 bits per pair, 7 hashes.
    let spec = TraceSpec::edgar(0.02);
    let trace = spec.generate(1).unwrap();
    g.bench_function("pbf1_fill_quick_day", |b| {
        b.iter_batched(
            || {
                let sizing = PbfSizing::Uniform {
                    bits: 20 * spec.pairs / 21_600,
                    hashes: 7,
                };
                PbfFilter::new(Variant::Pbf1, 4, sizing, 1).unwrap()
            },
            |mut f| {
                for &(a, t) in &trace {
                    f.insert(a, t).unwrap();
                }
                f
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, families, parts);
criterion_main!(benches);
