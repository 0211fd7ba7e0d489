//! `bfopt reproduce`: the seeds' tables and figures, recomputed from the models (and,
//! for figures, the reference filters), written as CSV and SVG, with every place the
//! result differs from the printed paper listed.
//!
//! Each entry is a [`Reproduction`] in [`CATALOGUE`]; its `build` returns a
//! [`Reproduced`]: a table of columns (the CSV and the printed rows), an optional
//! [`plot::Plot`], and the differences from the paper.

mod apbf;
mod apbf_tables;
mod classic;
pub mod pbf;
pub mod plot;
pub mod rbf;
mod stable;
mod timing;

use crate::exit::CliError;
use crate::report::{Report, Row};
pub use apbf_tables::{Table2Row, Table3Row, APBF_TABLE_2, APBF_TABLE_3};
use clap::Args;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One table or figure of a seed.
#[derive(Debug, Clone, Copy)]
pub struct Reproduction {
    /// Stable id, `<paper>-<table|figure><n>`, e.g. `apbf-table1`.
    pub id: &'static str,
    /// Where it is printed, e.g. `Table 1 [APBF]`.
    pub source: &'static str,
    /// What it shows.
    pub title: &'static str,
    /// Recomputes it.
    pub build: fn(&Options) -> Result<Reproduced, CliError>,
}

/// Knobs shared by every reproduction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Base seed of the simulations.
    pub seed: u64,
    /// Scale of the simulations: 1 for the quick default, larger for tighter intervals.
    pub scale: u64,
}

/// A reproduced table or figure.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reproduced {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one value per column.
    pub rows: Vec<Vec<Value>>,
    /// The figure (for a table: a plot of its main column).
    pub plot: Option<plot::Plot>,
    /// Each place the result differs from the printed paper, in words.
    pub differences: Vec<String>,
}

impl Reproduced {
    /// An empty result with these columns.
    pub fn new(columns: &[&str]) -> Self {
        Self {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            ..Self::default()
        }
    }
}

/// Every reproduction, in the order `--list` prints them.
pub const CATALOGUE: &[Reproduction] = &[
    classic::TABLE_1,
    apbf_tables::TABLE_2,
    apbf_tables::TABLE_3,
    apbf_tables::FIGURE_4,
    apbf::FIGURE_6,
    apbf::FIGURE_7,
    apbf::FIGURE_8,
    pbf::FIGURE_8,
    pbf::FIGURE_9,
    pbf::FIGURE_10,
    pbf::FIGURE_11,
    pbf::FIGURE_18,
    rbf::FIGURE_3,
    rbf::FIGURE_4,
    rbf::FIGURE_5,
    rbf::FIGURE_6,
    rbf::FIGURE_7,
    rbf::FIGURE_8,
    stable::FIGURE_7,
    stable::TABLE_3,
    stable::TABLE_4,
    timing::TABLE_4,
    timing::FIGURE_9,
    timing::FIGURE_10,
    timing::FIGURE_11,
];

/// The catalogue entry with this id.
pub fn find(id: &str) -> Option<&'static Reproduction> {
    CATALOGUE.iter().find(|r| r.id == id)
}

/// `bfopt reproduce` flags.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The table or figure (see --list).
    #[arg(required_unless_present = "list")]
    pub id: Option<String>,
    /// List what can be reproduced.
    #[arg(long)]
    pub list: bool,
    /// Directory for `<id>.csv` and `<id>.svg` (created if missing).
    #[arg(long, default_value = "reproduced")]
    pub out: PathBuf,
    /// Base seed of the simulations.
    #[arg(long, default_value = "1", value_parser = crate::units::parse_count)]
    pub seed: u64,
    /// Simulation scale (1 = quick; 10 = ten times the epochs).
    #[arg(long, default_value = "1", value_parser = crate::units::parse_count)]
    pub scale: u64,
}

/// Runs `bfopt reproduce`.
///
/// # Errors
/// An unknown id (exit 2, with the known ids), a bad scale, an unwritable directory.
pub fn reproduce(args: &ReproduceArgs) -> Result<Report, CliError> {
    if args.list {
        return Ok(Report::list(
            CATALOGUE
                .iter()
                .map(|r| {
                    Row::new("reproduce", (), ())
                        .param("id", r.id)
                        .metric("source", r.source)
                        .metric("title", r.title)
                })
                .collect(),
        ));
    }
    let id = args.id.as_deref().unwrap_or_default();
    let entry = find(id).ok_or_else(|| {
        let known: Vec<&str> = CATALOGUE.iter().map(|r| r.id).collect();
        CliError::invalid("ID", id, format!("one of {}", known.join(", ")))
    })?;
    if !(1..=1000).contains(&args.scale) {
        return Err(CliError::invalid("--scale", args.scale, "1 to 1000"));
    }
    let result = (entry.build)(&Options {
        seed: args.seed,
        scale: args.scale,
    })?;
    let written = write_files(entry, &result, &args.out)?;
    let mut report = Report::list(
        result
            .rows
            .iter()
            .map(|values| {
                let metrics: Map<String, Value> = result
                    .columns
                    .iter()
                    .cloned()
                    .zip(values.iter().cloned())
                    .collect();
                let mut row = Row::new(entry.id, (), ());
                row.metrics = metrics;
                row
            })
            .collect(),
    );
    report.notes = written
        .iter()
        .map(|p| format!("wrote {}", p.display()))
        .chain(if result.differences.is_empty() {
            vec![format!(
                "{}: no differences (printed values and the paper's claims reproduced)",
                entry.source
            )]
        } else {
            result
                .differences
                .iter()
                .map(|d| format!("differs from {}: {d}", entry.source))
                .collect()
        })
        .collect();
    Ok(report)
}

/// Writes `<id>.csv` and, with a plot, `<id>.svg`; returns the paths.
fn write_files(
    entry: &Reproduction,
    result: &Reproduced,
    dir: &Path,
) -> Result<Vec<PathBuf>, CliError> {
    let io = |path: &Path, e: &dyn std::fmt::Display| CliError::File {
        path: path.display().to_string(),
        line: 0,
        message: format!(
            "{e} (allowed: --out a directory that exists or can be created, writable)"
        ),
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
    let csv_path = dir.join(format!("{}.csv", entry.id));
    let mut w = csv::Writer::from_path(&csv_path).map_err(|e| io(&csv_path, &e))?;
    let cell = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    w.write_record(&result.columns)
        .and_then(|()| {
            result
                .rows
                .iter()
                .try_for_each(|r| w.write_record(r.iter().map(cell)))
        })
        .and_then(|()| w.flush().map_err(csv::Error::from))
        .map_err(|e| io(&csv_path, &e))?;
    let mut paths = vec![csv_path];
    if let Some(p) = &result.plot {
        let svg_path = dir.join(format!("{}.svg", entry.id));
        let svg = p
            .to_svg(&format!("{}: {}", entry.source, entry.title))
            .map_err(|e| io(&svg_path, &e))?;
        std::fs::write(&svg_path, svg).map_err(|e| io(&svg_path, &e))?;
        paths.push(svg_path);
    }
    Ok(paths)
}
