//! `bfopt recommend` in the library and as a whole process (target: under 50 ms).

use bfopt::cli::Cli;
use clap::Parser;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::process::Command;

fn recommend(c: &mut Criterion) {
    let args = ["bfopt", "recommend", "--fp", "0.01", "--capacity", "1e6"];
    let cli = Cli::parse_from(args);
    let mut g = c.benchmark_group("recommend");
    g.bench_function("library/fp=0.01,capacity=1e6", |b| {
        b.iter(|| bfopt::run(&cli).unwrap())
    });
    g.sample_size(20);
    g.bench_function("process/fp=0.01,capacity=1e6", |b| {
        b.iter(|| {
            black_box(
                Command::new(env!("CARGO_BIN_EXE_bfopt"))
                    .args(&args[1..])
                    .output()
                    .expect("bfopt runs"),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, recommend);
criterion_main!(benches);
