//! Generalized Bloom filter (issue 6): one stable posterior for k = 8 and k = 30 (the
//! paper's Java: 1.85 µs per inferential insert + query at k = 4, Table 5 [TBF]), and the
//! reference GBF's query + insert throughput.

use bfopt_models::gbf::posterior::{
    eq34_is_accurate, head_ages, window_posterior, window_posterior_ages, window_posterior_eq34,
    window_posterior_eq34_ln, window_posterior_ln, TLikelihood, WIDE_FROM_AGES,
};
use bfopt_models::gbf::{GbfDistinctTable, GbfObservation, GbfParams};
use bfopt_models::timing::prior::Distinct;
use bfopt_validation::filters::gbf::GbfFilter;
use bfopt_validation::workload::member;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

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

/// Issue 18: one posterior at `m = 2^10, 2^20, 2^30, 2^40` and `k0 = k1 = k = 4, 8, 30`
/// (`w = m/10`, `p_x = 1/w`), for a well-conditioned observation (Eq. (34) in double
/// precision answers) and an ill-conditioned one (extended precision, or the direct
/// sum over ages where the head is short), each beside the ages route alone
/// (`window_posterior_ages`, the fallback before issue 18, whose cost grows with `m`).
/// The observation of each case is the first `(d, e = 2k − d)`, from `d = 2k` down,
/// whose Eq. (34) in double is (or is not) accurate; the setup prints it with `κ`.
fn gbf_m(c: &mut Criterion) {
    let mut g = c.benchmark_group("gbf_m");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for k in [4u32, 8, 30] {
        for log_m in [10u32, 20, 30, 40] {
            let m = 1u64 << log_m;
            let w = (m / 10).max(1);
            let px = 1.0 / w as f64;
            let p = GbfParams::new(m, k, k).unwrap();
            let ln_q = p.ln_q_eps();
            for conditioned in [true, false] {
                let Some((d, kappa)) = (0..=2 * k).rev().find_map(|d| {
                    let lik = TLikelihood::balanced(d, 2 * k - d);
                    let kappa = window_posterior_eq34_ln(&lik, ln_q, px, w).1;
                    (eq34_is_accurate(&lik, kappa) == conditioned).then_some((d, kappa))
                }) else {
                    eprintln!("k={k} m=2^{log_m}: no observation with conditioned={conditioned}");
                    continue;
                };
                let lik = TLikelihood::balanced(d, 2 * k - d);
                let route = if conditioned {
                    "eq34_double"
                } else if head_ages(&lik, ln_q) > WIDE_FROM_AGES {
                    "eq34_wide"
                } else {
                    "ages"
                };
                eprintln!(
                    "k={k} m=2^{log_m} d={d} e={} kappa={kappa:.1e} route={route} post={:e}",
                    2 * k - d,
                    window_posterior_ln(&lik, ln_q, px, w)
                );
                let name = format!(
                    "k={k}/{}/m=2^{log_m}",
                    if conditioned { "cond" } else { "ill" }
                );
                g.bench_function(BenchmarkId::new("posterior", &name), |b| {
                    b.iter(|| window_posterior_ln(black_box(&lik), ln_q, px, w))
                });
                if !conditioned && log_m <= 30 {
                    // The ages route alone (2^40 takes seconds per call: not benched).
                    g.bench_function(BenchmarkId::new("ages_route", &name), |b| {
                        b.iter(|| window_posterior_ages(black_box(&lik), ln_q, px, w))
                    });
                }
            }
        }
    }
    g.finish();
}

criterion_group!(benches, gbf, gbf_m);
criterion_main!(benches);
