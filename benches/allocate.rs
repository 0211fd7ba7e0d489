//! One budget over many filters (issue 23): `bfopt_plan::allocate` on the README's
//! 7-level tree (standard and RocksDB's blocked layout), the inverse (`--target-fp`),
//! and 100 shards of random sizes and lookup rates.

use bfopt_models::classic::Layout;
use bfopt_plan::allocate::{allocate, Budget, FilterSpec, LsmLookups, LsmTree};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

fn tree(layout: Layout) -> Vec<FilterSpec> {
    LsmTree::new(7, 10, 1_000_000_000, LsmLookups::ZeroResult)
        .unwrap()
        .filters(layout)
        .unwrap()
}

/// 100 shards: sizes 10^3 to 10^8 and lookup shares from a fixed linear congruential
/// sequence (no RNG state in the timed loop).
fn shards() -> Vec<FilterSpec> {
    let mut x: u64 = 23;
    (0..100)
        .map(|i| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let items = 10f64.powf(3.0 + 5.0 * (x >> 11) as f64 / (1u64 << 53) as f64) as u64;
            let weight = ((x >> 20) % 1000) as f64 / 1000.0;
            FilterSpec::new(format!("s{i}"), items, weight, Layout::Standard).unwrap()
        })
        .collect()
}

fn solve(c: &mut Criterion) {
    let mut g = c.benchmark_group("allocate/solve");
    g.sample_size(10);
    let memory = Budget::memory(10_000_000_000).unwrap();
    for (name, layout) in [
        ("lsm7_standard", Layout::Standard),
        ("lsm7_blocked512", Layout::Blocked { block_bits: 512 }),
    ] {
        let filters = tree(layout);
        g.bench_with_input(BenchmarkId::new("memory", name), &filters, |b, f| {
            b.iter(|| allocate(black_box(&memory), f).unwrap())
        });
    }
    let filters = tree(Layout::Standard);
    let target = Budget::expected_fp(0.01).unwrap();
    g.bench_with_input(
        BenchmarkId::new("target_fp", "lsm7_standard"),
        &filters,
        |b, f| b.iter(|| allocate(black_box(&target), f).unwrap()),
    );
    let shards = shards();
    let items: u64 = shards.iter().map(FilterSpec::items).sum();
    let budget = Budget::memory(10 * items).unwrap();
    g.bench_with_input(BenchmarkId::new("memory", "shards100"), &shards, |b, f| {
        b.iter(|| allocate(black_box(&budget), f).unwrap())
    });
    g.finish();
}

criterion_group!(benches, solve);
criterion_main!(benches);
