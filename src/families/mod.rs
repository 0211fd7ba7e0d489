//! Per-family CLI glue: the flags of `model`, `optimize` and `simulate`, their
//! conversion into library requests (which validate), and the rows they produce.

pub mod apbf;
pub mod audit;
pub mod check;
pub mod classic;
pub mod gbf;
pub mod pbf;
pub mod rbf;
pub mod recommend;
pub mod stable;
pub mod target;
pub mod timing;

use crate::cli::{SimArgs, WorkloadArg};
use crate::exit::CliError;
use bfopt_validation::workload::{read_trace_file, Workload};

/// Converts a `u64` flag value to `u32`, or an error naming the flag and range.
pub fn to_u32(flag: &str, value: u64, allowed: &str) -> Result<u32, CliError> {
    u32::try_from(value).map_err(|_| CliError::invalid(flag, value, allowed))
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
