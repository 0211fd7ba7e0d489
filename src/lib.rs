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

use cli::{Cli, Format, ModelFamily, OptimizeFamily, PosteriorFamily, SimulateFamily, Verb};
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
            ModelFamily::Btbf(a) => families::timing::model(a),
            ModelFamily::Gbf(a) => families::gbf::model(a),
        },
        Verb::Optimize { family } => match family {
            OptimizeFamily::Classic(a) => families::classic::optimize(a),
            OptimizeFamily::Btbf(a) => families::timing::optimize(a),
            OptimizeFamily::Gbf(a) => families::gbf::optimize(a),
        },
        Verb::Posterior { family } => match family {
            PosteriorFamily::Btbf(a) => families::timing::posterior(a),
            PosteriorFamily::Gbf(a) => families::gbf::posterior(a),
        },
        Verb::Simulate { family } => match family {
            SimulateFamily::Classic(a) => families::classic::simulate_cmd(a),
            SimulateFamily::Btbf(a) => families::timing::simulate_cmd(a),
            SimulateFamily::Gbf(a) => families::gbf::simulate_cmd(a),
        },
        Verb::Validate(a) => validate::validate(a),
    }
}
