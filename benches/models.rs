//! Model evaluation and optimizer speed.

use bfopt_models::classic::{design, ClassicParams, ClassicRequirement, Layout};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

fn classic(c: &mut Criterion) {
    let mut g = c.benchmark_group("classic");
    for layout in [
        Layout::Standard,
        Layout::Partitioned,
        Layout::Blocked { block_bits: 512 },
    ] {
        let p = ClassicParams::new(9_999_872, 7, 1_000_000, layout).unwrap();
        g.bench_function(BenchmarkId::new("fp", layout.name()), |b| {
            b.iter(|| black_box(p).fp())
        });
        let req = ClassicRequirement::new(0.01, 1_000_000, layout).unwrap();
        g.bench_function(BenchmarkId::new("design", layout.name()), |b| {
            b.iter(|| design(black_box(&req)).unwrap())
        });
    }
    let small = ClassicParams::new(10_000, 7, 1000, Layout::Standard).unwrap();
    g.sample_size(10);
    g.bench_function("metrics_with_exact/m=1e4", |b| {
        b.iter(|| black_box(small).metrics())
    });
    g.finish();
}

criterion_group!(benches, classic);
criterion_main!(benches);
