//! `recommend` as a library call (`bfopt_plan::plan`), through the CLI's library entry
//! (`bfopt::run`: flags to requirement, plan, rows and table) and as a whole process.
//! Targets (issue 16): `--window 1e6` under 20 ms as a library call and under 50 ms as a
//! whole process; `--window 1e9` under 200 ms as a whole process.

use bfopt::cli::Cli;
use bfopt_plan::{plan, Requirement};
use clap::Parser;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::process::Command;

const REQUIREMENTS: [[&str; 2]; 3] = [
    ["--capacity", "1e6"],
    ["--window", "1e6"],
    ["--window", "1e9"],
];

fn requirement(flag: &str, value: &str) -> Requirement {
    let n = value.parse::<f64>().unwrap() as u64;
    match flag {
        "--capacity" => Requirement::capacity(0.01, n),
        _ => Requirement::window(0.01, n),
    }
    .unwrap()
}

fn recommend(c: &mut Criterion) {
    let mut g = c.benchmark_group("recommend");
    g.sample_size(20);
    for [flag, value] in REQUIREMENTS {
        let args = ["bfopt", "recommend", "--fp", "0.01", flag, value];
        let name = format!("fp=0.01,{}={value}", flag.trim_start_matches("--"));
        let req = requirement(flag, value);
        g.bench_function(format!("plan/{name}"), |b| {
            b.iter(|| plan(black_box(&req)).unwrap())
        });
        let cli = Cli::parse_from(args);
        g.bench_function(format!("cli-library/{name}"), |b| {
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
