//! The flags every `simulate` verb shares ([`SimArgs`], [`WorkloadArg`]) and their
//! conversion into a [`Workload`]. They live here, below both `cli.rs` and the family
//! modules, so that imports run one way: `cli` -> `families` -> `families::sim`.

use crate::exit::CliError;
use crate::units::{parse_count, parse_real};
use bfopt_validation::workload::{read_trace_file, Workload};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Workload names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// Every arrival new.
    Distinct,
    /// Repeats of earlier items with probability `--duplicates`.
    Uniform,
    /// Zipf law over `--universe` items with exponent `--zipf-exponent`.
    Zipf,
    /// Repeats, with probability `--duplicates`, of one of the last W insertions (the
    /// window; the capacity for static filters).
    WindowRepeats,
}

/// Flags every `simulate` verb shares.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Independent epochs (fresh filter and keys each), run in parallel.
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Non-member probes per epoch.
    #[arg(long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    pub probes: u64,
    /// Base seed; the same seed gives the same result on any number of threads.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Insertion stream.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Distinct)]
    pub workload: WorkloadArg,
    /// Duplicate rate of the uniform workload, 0 <= r < 1.
    #[arg(long, default_value = "0.5", value_parser = parse_real, allow_hyphen_values = true)]
    pub duplicates: f64,
    /// Distinct items a Zipf stream draws from (default: 4 × items).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub universe: Option<u64>,
    /// Zipf exponent s >= 0.
    #[arg(long, default_value = "1.0", value_parser = parse_real, allow_hyphen_values = true)]
    pub zipf_exponent: f64,
    /// Insert the items of a CSV trace (`item[,timestamp][,importance]`) instead.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Two-sided confidence of the reported intervals.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

impl SimArgs {
    /// The workload the flags describe; `items` sizes the default Zipf universe.
    ///
    /// # Errors
    /// A trace that cannot be read (with file and line), or bad workload values.
    pub fn workload(&self, items: u64) -> Result<Workload, CliError> {
        // A bad --duplicates or --zipf-exponent is an error even when the workload that
        // reads it is not the one chosen (issue 10: `--duplicates -1` ran silently).
        for unused in [
            Workload::Uniform {
                duplicate_rate: self.duplicates,
            },
            Workload::Zipf {
                universe: self.universe.unwrap_or(1),
                exponent: self.zipf_exponent,
            },
        ] {
            unused
                .validate()
                .map_err(|e| CliError::from_model(e, SIM_FLAGS))?;
        }
        if let Some(path) = &self.trace {
            let records = read_trace_file(path).map_err(|e| CliError::File {
                path: path.display().to_string(),
                line: e.line,
                message: e.message,
            })?;
            return Ok(Workload::Trace {
                keys: records.into_iter().map(|r| r.key).collect(),
            });
        }
        let w = match self.workload {
            WorkloadArg::Distinct => Workload::Distinct,
            WorkloadArg::Uniform => Workload::Uniform {
                duplicate_rate: self.duplicates,
            },
            WorkloadArg::WindowRepeats => Workload::WindowRepeats {
                duplicate_rate: self.duplicates,
                window: items,
            },
            WorkloadArg::Zipf => Workload::Zipf {
                universe: self.universe.unwrap_or(items.saturating_mul(4)),
                exponent: self.zipf_exponent,
            },
        };
        w.validate()
            .map_err(|e| CliError::from_model(e, SIM_FLAGS))?;
        Ok(w)
    }
}

/// A simulation's model error, named by the family's flags or the shared ones.
pub fn sim_error(e: bfopt_models::ModelError, family_flags: &[(&str, &str)]) -> CliError {
    let mut flags = family_flags.to_vec();
    flags.extend_from_slice(SIM_FLAGS);
    CliError::from_model(e, &flags)
}

/// Model names of the shared simulation flags.
pub const SIM_FLAGS: &[(&str, &str)] = &[
    ("duplicate_rate", "--duplicates"),
    ("exponent", "--zipf-exponent"),
    ("universe", "--universe"),
    ("window", "--window"),
    ("epochs", "--epochs"),
    ("probes", "--probes"),
    ("confidence", "--confidence"),
];

/// The simulation flags of the families that insert distinct items only (binary fuse,
/// cuckoo, counting): no workload choice.
#[derive(Debug, Args)]
pub struct DistinctSimArgs {
    /// Independent epochs (fresh filter and keys each), run in parallel.
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Non-member probes per epoch.
    #[arg(long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    pub probes: u64,
    /// Base seed; the same seed gives the same result on any number of threads.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Two-sided confidence of the reported intervals.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}
