//! `bfopt target SYSTEM --fp P --capacity N`: what a system builds when told a target,
//! the FP it really has, and what bfopt would type instead.
//!
//! JSON: a list of `{"family": system, "params": {"setting", "config"}, "metrics": {"bits",
//! "hashes", "bits_per_item", "fp", "meets"}}`; `setting` is `requested` (the target typed
//! as the system's configuration), `scaling` (RedisBloom only: the request without
//! `NONSCALING`), with `--items` (RedisBloom only) `scaling at items`, `bfopt scaling at
//! items`, `bfopt nonscaling at items` (the chain after `--items` keys: `links` sub-filters,
//! compound `fp`), or `bfopt` (the configuration of least memory that meets the target);
//! `config` is the configuration as typed; `bits` the filter's bit array; `fp` its FP by
//! bfopt's model of its layout; `meets` whether `fp <= --fp`.

use crate::exit::CliError;
use crate::report::{Report, Row};
use crate::units::{parse_count, parse_real};
use bfopt_models::scalable::ChainMetrics;
use bfopt_models::systems::{self, redisbloom, Configured, System, SystemTarget};
use clap::{Args, ValueEnum};
use serde_json::json;

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("fp", "--fp"),
    ("fpp", "--fp"),
    ("error_rate", "--fp"),
    ("capacity", "--capacity"),
    ("n", "--capacity"),
    ("ndv", "--capacity"),
];

/// The systems `target` knows, and `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SystemArg {
    /// Guava `BloomFilter.create(funnel, n, p)` (Java).
    Guava,
    /// RedisBloom `BF.RESERVE key p n NONSCALING`.
    Redisbloom,
    /// Parquet split-block filter, parquet-java writer properties.
    Parquet,
    /// RocksDB `NewBloomFilterPolicy(bits_per_key)` (cache-local Bloom filter).
    Rocksdb,
    /// fastbloom (Rust) `BloomFilter::with_false_pos(p).expected_items(n)`.
    Fastbloom,
    /// Every system above.
    All,
}

impl SystemArg {
    /// The name as typed (`guava`, ..., `all`).
    pub fn name(self) -> &'static str {
        match self {
            SystemArg::Guava => "guava",
            SystemArg::Redisbloom => "redisbloom",
            SystemArg::Parquet => "parquet",
            SystemArg::Rocksdb => "rocksdb",
            SystemArg::Fastbloom => "fastbloom",
            SystemArg::All => "all",
        }
    }

    fn systems(self) -> Vec<System> {
        match self {
            SystemArg::Guava => vec![System::Guava],
            SystemArg::Redisbloom => vec![System::RedisBloom],
            SystemArg::Parquet => vec![System::Parquet],
            SystemArg::Rocksdb => vec![System::RocksDb],
            SystemArg::Fastbloom => vec![System::Fastbloom],
            SystemArg::All => System::ALL.to_vec(),
        }
    }
}

/// `bfopt target`.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The system whose filter you configure.
    #[arg(value_enum)]
    pub system: SystemArg,
    /// FP target, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// Keys the filter must hold (per filter: a row group for Parquet, an SST file for
    /// RocksDB).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub capacity: u64,
    /// RedisBloom only: the keys that really arrive, beyond --capacity: the scaling
    /// chain after them (its compound FP, tightening 0.5 per sub-filter) and what to type
    /// to meet --fp at that count.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub items: Option<u64>,
}

/// Runs `bfopt target`: two rows per system, the request typed as the system's own
/// configuration and bfopt's configuration of least memory that meets the target (and
/// for RedisBloom a third, the request without `NONSCALING`).
///
/// # Errors
/// `--fp` outside (0, 1), `--capacity` outside the system's range (exit 2); no
/// configuration of the system meets the target (exit 3).
pub fn target(args: &TargetArgs) -> Result<Report, CliError> {
    if !(args.fp > 0.0 && args.fp < 1.0) {
        return Err(CliError::invalid("--fp", args.fp, "0 < fp < 1"));
    }
    let (rows, notes) = configurations(args.system, args.fp, args.capacity, args.items)?;
    let mut report = Report::list(rows);
    report.notes = notes;
    Ok(report)
}

/// The rows of `system` (each system of `all`) for a static set of `capacity` keys at
/// FP `fp`: the request typed as its configuration, the request without `NONSCALING`
/// (RedisBloom), and bfopt's configuration of least memory; with `items` beyond the
/// capacity, RedisBloom's scaling chain at that count; then the notes naming each
/// system's modelled version and layout.
///
/// # Errors
/// `--capacity` outside the system's range (exit 2); no configuration of the system
/// meets the target (exit 3).
pub(crate) fn configurations(
    system: SystemArg,
    fp: f64,
    capacity: u64,
    items: Option<u64>,
) -> Result<(Vec<Row>, Vec<String>), CliError> {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for system in system.systems() {
        let t =
            systems::target(system, fp, capacity).map_err(|e| CliError::from_model(e, FLAGS))?;
        rows.push(row(&t, "requested", &t.requested));
        if let Some(scaling) = &t.scaling {
            rows.push(row(&t, "scaling", scaling));
        }
        rows.push(row(&t, "bfopt", &t.suggested));
        if let (System::RedisBloom, Some(n)) = (system, items) {
            rows.extend(scaling_rows(fp, capacity, n)?);
        }
        notes.push(format!("{}: {}", system.name(), system.version()));
        notes.extend(note(system).iter().map(|line| format!("  {line}")));
    }
    notes.push(
        "fp: the built filter's FP by bfopt's model of its layout; bits: its bit array".into(),
    );
    Ok((rows, notes))
}

/// RedisBloom's scaling chain after `n` keys: the request (default `EXPANSION 2`), the
/// least-memory scaling command meeting `fp` at `n`, and `NONSCALING` sized for `n`.
fn scaling_rows(fp: f64, capacity: u64, n: u64) -> Result<Vec<Row>, CliError> {
    let flags = [FLAGS, &[("items", "--items")]].concat();
    let t =
        redisbloom::scaling_target(fp, capacity, n).map_err(|e| CliError::from_model(e, &flags))?;
    let chain_row = |setting: &str, config: &str, x: &ChainMetrics| {
        Row::new(
            "redisbloom",
            json!({ "setting": setting, "config": config }),
            json!({
                "items": n,
                "links": x.links,
                "bits": x.memory_bits,
                "bits_per_item": x.bits_per_item,
                "fp": x.fp,
                "meets": x.fp <= fp,
            }),
        )
    };
    let mut rows = vec![
        chain_row("scaling at items", &t.requested, &t.requested_at_n),
        chain_row("bfopt scaling at items", &t.scaling, &t.scaling_at_n),
    ];
    if let Some(c) = &t.nonscaling {
        let f = &c.filter;
        rows.push(Row::new(
            "redisbloom",
            json!({ "setting": "bfopt nonscaling at items", "config": c.config }),
            json!({
                "items": n,
                "links": 1,
                "bits": f.bits,
                "bits_per_item": f.bits_per_item(),
                "fp": f.fp,
                "meets": f.fp <= fp,
            }),
        ));
    }
    Ok(rows)
}

fn row(t: &SystemTarget, setting: &str, c: &Configured) -> Row {
    let f = &c.filter;
    Row::new(
        t.system.name(),
        json!({ "setting": setting, "config": c.config }),
        json!({
            "bits": f.bits,
            "hashes": f.hashes,
            "bits_per_item": f.bits_per_item(),
            "fp": f.fp,
            "meets": f.fp <= t.fp_target,
        }),
    )
}

/// What a table reader needs to know about a system's rows (lines of at most 120 columns).
fn note(system: System) -> &'static [&'static str] {
    match system {
        System::Guava | System::Fastbloom => &["standard layout in 64-bit words"],
        System::RedisBloom => &[
            "standard layout; scaling (no NONSCALING): the first sub-filter, built at fp/2, which holds",
            "the first `capacity` keys; with --items: the chain of sub-filters after them (each expansion x larger,",
            "at half the previous error), its compound FP, and the scaling or NONSCALING command meeting --fp there",
        ],
        System::Parquet => &[
            "split block: 256-bit blocks, 8 bits per key; properties parquet.bloom.filter.expected.ndv, .fpp, .max.bytes;",
            "ndv per row group",
        ],
        System::RocksDb => &[
            "one 512-bit cache line per key; capacity = keys per SST file;",
            "requested = the textbook bits per key ln(1/fp)/ln(2)^2",
        ],
    }
}
