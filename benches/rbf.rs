//! RBF model speed (issue 4): one f_σ evaluation at M = 10^6, the whole non-retaining
//! curve at M = 10^7, the optimizer at M = 10^8 (fluid) and at M = 10^6 (exact).

use bfopt_models::rbf::chain::CurveScan;
use bfopt_models::rbf::transitions::Law;
use bfopt_models::rbf::{design, Hashing, Method, RbfParams, RbfRequirement, Recycling};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

fn rbf(c: &mut Criterion) {
    let mut g = c.benchmark_group("rbf");
    g.sample_size(10);
    for recycling in [Recycling::NonRetaining, Recycling::Retaining] {
        let p = RbfParams::new(1_000_000, 7, 500_000, 1, Hashing::Colliding, recycling).unwrap();
        g.bench_function(
            BenchmarkId::new("fp_exact/m=1e6", format!("{recycling:?}")),
            |b| b.iter(|| black_box(p).metrics(Method::Exact).unwrap()),
        );
    }
    let law = Law {
        m: 10_000_000,
        k: 7,
        hashing: Hashing::Colliding,
    };
    g.bench_function("curve/m=1e7", |b| {
        b.iter(|| CurveScan::new(black_box(law), false).last().unwrap())
    });
    g.bench_function("curve_two_phase/m=1e7", |b| {
        b.iter(|| CurveScan::new(black_box(law), true).last().unwrap())
    });
    let req = RbfRequirement::new(0.01, 1).unwrap();
    g.bench_function("design/m=1e8", |b| {
        b.iter(|| design(black_box(100_000_000), &req).unwrap())
    });
    g.bench_function("design/m=1e6", |b| {
        b.iter(|| design(black_box(1_000_000), &req).unwrap())
    });
    let p = RbfParams::new(
        1_000_000_000_000,
        7,
        500_000_000_000,
        1,
        Hashing::Colliding,
        Recycling::NonRetaining,
    )
    .unwrap();
    g.bench_function("fp_fluid/m=1e12", |b| {
        b.iter(|| black_box(p).metrics(Method::Fluid).unwrap())
    });
    g.finish();
}

criterion_group!(benches, rbf, rbf_filter);
criterion_main!(benches);

fn rbf_filter(c: &mut Criterion) {
    use bfopt_validation::filters::rbf::{Bound, RbfConfig, RbfFilter};
    use criterion::Throughput;
    let mut g = c.benchmark_group("rbf_filter");
    const OPS: u64 = 100_000;
    g.throughput(Throughput::Elements(OPS));
    for phases in [1u8, 2] {
        let cfg = RbfConfig {
            m: 1 << 20,
            k: 7,
            bound: Bound::Bits(600_000),
            phases,
            hashing: Hashing::Colliding,
            recycling: Recycling::NonRetaining,
        };
        let mut f = RbfFilter::new(cfg, 1).unwrap();
        let mut key = 0u64;
        g.bench_function(BenchmarkId::new("offer", format!("phases={phases}")), |b| {
            b.iter(|| {
                for _ in 0..OPS {
                    key = key.wrapping_add(1);
                    black_box(f.offer_u64(key));
                }
            })
        });
    }
    g.finish();
}
