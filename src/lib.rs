//! bfopt: model, size and validate Bloom-filter variants.
//!
//! The command-line tool's logic, callable as a library: [`run`] takes parsed
//! arguments and returns a [`report::Report`] that [`render::write`] prints in any
//! format. Models live in `bfopt-models`, reference filters and the validation suite in
//! `bfopt-validation`.

pub mod cli;
pub mod exit;
pub mod families;
pub mod render;
pub mod report;
pub mod units;
pub mod validate;

use cli::{Cli, Format, ModelFamily, OptimizeFamily, SimulateFamily, Verb};
use exit::CliError;
use report::Report;

/// Runs one verb.
///
/// # Errors
/// Invalid input (exit 2) or an infeasible requirement (exit 3).
pub fn run(cli: &Cli) -> Result<Report, CliError> {
    if cli.format == Format::Junit && !matches!(cli.verb, Verb::Validate(_)) {
        return Err(CliError::invalid(
            "--format",
            "junit",
            "only with validate (table, json, csv elsewhere)",
        ));
    }
    match &cli.verb {
        Verb::Recommend(a) => families::recommend::recommend(a),
        Verb::Model { family } => match family {
            ModelFamily::Classic(a) => families::classic::model(a),
            ModelFamily::Pbf(a) => families::pbf::model(a),
            ModelFamily::PbfBound(a) => families::pbf::bound(a),
        },
        Verb::Optimize { family } => match family {
            OptimizeFamily::Classic(a) => families::classic::optimize(a),
            OptimizeFamily::Pbf(a) => families::pbf::optimize(a),
        },
        Verb::Simulate { family } => match family {
            SimulateFamily::Classic(a) => families::classic::simulate_cmd(a),
            SimulateFamily::Pbf(a) => families::pbf::simulate_cmd(a),
        },
        Verb::Validate(a) => validate::validate(a),
    }
}
