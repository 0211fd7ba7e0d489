//! `bfopt recommend` in the library and as a whole process (targets: `--window 1e6`
//! under 50 ms, `--window 1e9` under 200 ms, as whole processes).
// criterion_group! defines undocumented functions (workspace lint missing_docs).
#![allow(missing_docs)]

use bfopt::cli::Cli;
use clap::Parser;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::process::Command;

const REQUIREMENTS: [[&str; 2]; 3] = [
    ["--capacity", "1e6"],
    ["--window", "1e6"],
    ["--window", "1e9"],
];

fn recommend(c: &mut Criterion) {
    let mut g = c.benchmark_group("recommend");
    g.sample_size(20);
    for [flag, value] in REQUIREMENTS {
        let args = ["bfopt", "recommend", "--fp", "0.01", flag, value];
        let name = format!("fp=0.01,{}={value}", flag.trim_start_matches("--"));
        let cli = Cli::parse_from(args);
        g.bench_function(format!("library/{name}"), |b| {
            b.iter(|| bfopt::run(&cli).unwrap())
        });
        g.bench_function(format!("process/{name}"), |b| {
            b.iter(|| {
                black_box(
                    Command::new(env!("CARGO_BIN_EXE_bfopt"))
                        .args(&args[1..])
                        .output()
                        .expect("bfopt runs"),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, recommend);
criterion_main!(benches);
