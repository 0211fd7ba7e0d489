//! Errors of a CLI run and the exit codes they map to (the only place they are mapped).

use bfopt_models::ModelError;
use std::fmt;
use std::process::ExitCode;

/// Exit codes, as README.md and `bfopt --help` list them ([`EXIT_CODES_HELP`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: success.
    Ok = 0,
    /// 1: a model-vs-simulation disagreement.
    Disagreement = 1,
    /// 2: invalid input.
    Invalid = 2,
    /// 3: no design satisfies the requirements.
    Infeasible = 3,
    /// 4: a numerical solver failed to converge ([`ModelError::NoConvergence`]): the
    /// requirement may well be feasible, the model could not answer it.
    SolverFailure = 4,
    /// 130 (128 + SIGINT): `validate` was interrupted by Ctrl-C; the checks finished
    /// before it were printed.
    Interrupted = 130,
}

/// The exit-code list printed under `bfopt --help` (kept beside [`Exit`] so the two
/// cannot drift; a CLI test checks both against README.md).
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 success; 1 a model-vs-simulation disagreement; \
2 invalid input (the message names the flag, the value and the allowed range); \
3 no design satisfies the requirements; 4 a numerical solver did not converge; \
130 validate interrupted by Ctrl-C.";

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e as u8)
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CliError {
    /// A flag (or file) has a bad value.
    Invalid {
        /// `--fp`, `--trace`, ...
        flag: String,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// An input file has a bad line.
    File {
        /// The file.
        path: String,
        /// 1-based line (0: the file as a whole).
        line: u64,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// No design meets the requirement.
    Infeasible(String),
    /// A numerical solver did not converge (not a statement about feasibility).
    NoConvergence(String),
}

impl CliError {
    /// An invalid flag value.
    pub fn invalid(flag: &str, value: impl fmt::Display, allowed: impl fmt::Display) -> Self {
        CliError::Invalid {
            flag: flag.to_string(),
            value: bfopt_models::error::short_number(value.to_string()),
            allowed: allowed.to_string(),
        }
    }

    /// Maps a model error to the flag that carries the parameter: `flags` pairs model
    /// names with flags (`("m", "--bits")`); unlisted names become `--name`. Listed names
    /// with an underscore (`block_bits`) are replaced by their flags in the allowed text
    /// too. A solver that did not converge is [`CliError::NoConvergence`] (exit 4).
    pub fn from_model(err: ModelError, flags: &[(&str, &str)]) -> Self {
        match err {
            ModelError::InvalidParam {
                name,
                value,
                allowed,
            } => {
                let flag = flags.iter().find(|(n, _)| *n == name).map_or_else(
                    || format!("--{}", name.replace('_', "-")),
                    |(_, f)| f.to_string(),
                );
                // The allowed text may name another parameter (`a multiple of block_bits
                // = 512`): name its flag instead. Only names with an underscore, which
                // cannot be ordinary words.
                let allowed = flags
                    .iter()
                    .filter(|(n, _)| n.contains('_'))
                    .fold(allowed, |text, (n, f)| text.replace(n, f));
                CliError::Invalid {
                    flag,
                    value,
                    allowed,
                }
            }
            ModelError::Infeasible {
                binding,
                achievable,
            } => CliError::Infeasible(format!("{binding}; achievable: {achievable}")),
            e @ ModelError::NoConvergence { .. } => CliError::NoConvergence(e.to_string()),
            other => CliError::Infeasible(other.to_string()),
        }
    }

    /// The exit code.
    pub fn exit(&self) -> Exit {
        match self {
            CliError::Invalid { .. } | CliError::File { .. } => Exit::Invalid,
            CliError::Infeasible(_) => Exit::Infeasible,
            CliError::NoConvergence(_) => Exit::SolverFailure,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Invalid {
                flag,
                value,
                allowed,
            } => write!(f, "{flag} = {value}: allowed {allowed}"),
            CliError::File {
                path,
                line: 0,
                message,
            } => write!(f, "{path}: {message}"),
            CliError::File {
                path,
                line,
                message,
            } => write!(f, "{path}:{line}: {message}"),
            CliError::Infeasible(why) => write!(f, "no design satisfies the requirements: {why}"),
            CliError::NoConvergence(why) => write!(f, "the model could not be solved: {why}"),
        }
    }
}

impl std::error::Error for CliError {}
