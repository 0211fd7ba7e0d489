//! Solver speed (issue 18): the planner cases the browser calculator recomputes on each
//! keystroke, and every `optimize` verb's worst case within its documented limits.
//!
//! Targets: each planner case under 50 ms as a library call (`bfopt_plan::plan`); each
//! `optimize` verb under 1 s through the CLI's library entry (`bfopt::run`: flags, solve,
//! report; no process start). The per-family rows of the planner cases show where a
//! case spends its time (families run in parallel inside `plan`, so the case is not the
//! sum of its rows).
//!
//! Worst cases named here:
//! - planner: `--fp 0.05 --window 1e5 --allow-fn 0.1 --importance linear:1:50`, the same
//!   at `--window 2000`, and `--fp 0.01 --initial-capacity 1e4 --max-items 1e6`;
//! - `optimize rbf --messages 1e5 --fp 0.001 --phases 2` (the message-count search);
//! - `optimize ibf --bits 1e5` for IBF3 and IBF5 (the policies with a dense chain), and
//!   with every policy (the MinImp ones solve a mean field for each of their best 8);
//! - `optimize ibf --bits 20000 --member-share 0.2 --cost-fp 5` for IBF3 and IBF2: false
//!   positives dear, so the best designs have many false negatives and the FN passes
//!   are hardest to rule out;
//! - `optimize gbf --bits-per-item 3 --window 1480 --prior zipf:393202 --penalties
//!   fixed:12:12 --max-hashes 42`, `--bits-per-item 10 --window 65536 --prior
//!   uniform:65536`, and `--bits-per-item 12 --prior zipf:100000` at that window (16
//!   item classes, each cut into up to 10^5 age pieces per `K`: the costliest prior);
//! - `optimize btbf --window 65536 --prior uniform:65536 --penalties uniform:1:10`, and
//!   `--bits-per-item 12 --prior zipf:100000` (24 item classes: the costliest prior).

use bfopt::cli::Cli;
use bfopt_models::stable::ImportanceDist;
use bfopt_plan::families::FAMILIES;
use bfopt_plan::{plan, Requirement};
use clap::Parser;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// The planner cases: name and requirement.
fn planner_cases() -> Vec<(&'static str, Requirement)> {
    let importance = |w: u64| {
        Requirement::window(0.05, w)
            .and_then(|r| r.with_allow_fn(0.1))
            .and_then(|r| r.with_importance(ImportanceDist::linear(1, 50)?))
            .unwrap()
    };
    vec![
        (
            "fp=0.05,window=1e5,allow-fn=0.1,importance",
            importance(100_000),
        ),
        (
            "fp=0.05,window=2000,allow-fn=0.1,importance",
            importance(2000),
        ),
        (
            "fp=0.01,initial-capacity=1e4,max-items=1e6",
            Requirement::growing(0.01, 10_000, 1_000_000).unwrap(),
        ),
    ]
}

fn planner(c: &mut Criterion) {
    let mut g = c.benchmark_group("solvers/planner");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (name, req) in planner_cases() {
        g.bench_function(BenchmarkId::new("plan", name), |b| {
            b.iter(|| plan(black_box(&req)).unwrap())
        });
        for family in FAMILIES {
            g.bench_function(
                BenchmarkId::new(format!("family/{}", family.name), name),
                |b| b.iter(|| (family.propose)(black_box(&req)).ok()),
            );
        }
    }
    g.finish();
}

/// `optimize ibf` at 1e5 bits, before `--policies`.
const IBF: &[&str] = &[
    "--bits",
    "1e5",
    "--importance",
    "exponential:1:50:0.1",
    "--cost-fp",
    "1",
    "--cost-fn",
    "2*imp",
    "--policies",
];

/// Table 5's setting [TBF]: 10 bits per item, `w = |U| = 2^16`.
const WINDOW_2_16: &[&str] = &[
    "--bits-per-item",
    "10",
    "--window",
    "65536",
    "--prior",
    "uniform:65536",
];

/// A window of `2^16` on a Zipf stream over `10^5` items at 12 bits per item.
const ZIPF_2_16: &[&str] = &[
    "--bits-per-item",
    "12",
    "--window",
    "65536",
    "--prior",
    "zipf:100000",
    "--penalties",
    "uniform:1:10",
];

/// `optimize` verbs at their worst documented inputs (module doc): name and flags.
fn optimize_cases() -> Vec<(&'static str, Vec<&'static str>)> {
    let ibf = |policy| IBF.iter().copied().chain([policy]).collect();
    let fp_dear = |policy| {
        let flags = ["--bits", "20000", "--member-share", "0.2", "--cost-fp", "5"];
        flags.into_iter().chain(["--policies", policy]).collect()
    };
    vec![
        (
            "rbf/messages=1e5,fp=0.001,phases=2",
            vec!["--messages", "1e5", "--fp", "0.001", "--phases", "2"],
        ),
        ("ibf/bits=1e5,ibf3", ibf("ibf3")),
        ("ibf/bits=1e5,ibf5", ibf("ibf5")),
        ("ibf/bits=2e4,fp-dear,ibf3", fp_dear("ibf3")),
        ("ibf/bits=2e4,fp-dear,ibf2", fp_dear("ibf2")),
        ("ibf/bits=1e5,all-policies", IBF[..IBF.len() - 1].to_vec()),
        (
            "gbf/bpi=3,window=1480,zipf,max-hashes=42",
            vec![
                "--bits-per-item",
                "3",
                "--window",
                "1480",
                "--prior",
                "zipf:393202",
                "--penalties",
                "fixed:12:12",
                "--max-hashes",
                "42",
            ],
        ),
        ("gbf/bpi=10,window=65536,uniform", WINDOW_2_16.to_vec()),
        ("gbf/bpi=12,window=65536,zipf", ZIPF_2_16.to_vec()),
        ("btbf/bpi=12,window=65536,zipf", ZIPF_2_16.to_vec()),
        (
            "btbf/bpi=10,window=65536,uniform",
            WINDOW_2_16
                .iter()
                .copied()
                .chain(["--penalties", "uniform:1:10"])
                .collect(),
        ),
    ]
}

fn optimize(c: &mut Criterion) {
    let mut g = c.benchmark_group("solvers/optimize");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, flags) in optimize_cases() {
        let family = name.split('/').next().unwrap();
        let args = ["bfopt", "optimize", family].into_iter().chain(flags);
        let cli = Cli::parse_from(args);
        g.bench_function(name, |b| b.iter(|| bfopt::run(black_box(&cli)).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, planner, optimize);
criterion_main!(benches);
