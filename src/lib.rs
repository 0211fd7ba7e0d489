//! bfopt: model, size and validate Bloom-filter variants.
//!
//! The command-line tool's logic, callable as a library: [`run`] takes parsed
//! arguments and returns a [`report::Report`] that [`render::write`] prints in any
//! format. Models live in `bfopt-models`, reference filters and the validation suite in
//! `bfopt-validation`.

#![warn(missing_docs)]

pub mod cli;
pub mod exit;
pub mod families;
pub mod fuzzing;
pub mod limits;
pub mod render;
pub mod report;
pub mod reproduce;
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
    configure(cli)?;
    if cli.format == Format::Junit && !matches!(cli.verb, Verb::Validate(_) | Verb::Check(_)) {
        return Err(CliError::invalid(
            "--format",
            "junit",
            "only with validate and check (table, json, csv elsewhere)",
        ));
    }
    match &cli.verb {
        Verb::Recommend(a) => families::recommend::recommend(a, cli.format),
        Verb::Allocate(a) => families::allocate::allocate(a, cli.format),
        Verb::Target(a) => families::target::target(a),
        Verb::Model { family } => match family {
            ModelFamily::Classic(a) => families::classic::model(a),
            ModelFamily::Apbf(a) => families::apbf::model(a),
            ModelFamily::Apbbf(a) => families::apbf::model_blocked(a),
            ModelFamily::Rbf(a) => families::rbf::model(a),
            ModelFamily::Btbf(a) => families::timing::model(a),
            ModelFamily::Sbf(a) => families::stable::model_sbf(a),
            ModelFamily::Ibf(a) => families::stable::model_ibf(a),
            ModelFamily::Pbf(a) => families::pbf::model(a),
            ModelFamily::PbfBound(a) => families::pbf::bound(a),
            ModelFamily::Gbf(a) => families::gbf::model(a),
            ModelFamily::Scalable(a) => families::scalable::model(a),
            ModelFamily::Fuse(a) => families::fuse::model(a),
            ModelFamily::Cuckoo(a) => families::cuckoo::model(a),
            ModelFamily::Counting(a) => families::counting::model(a),
        },
        Verb::Optimize { family } => match family {
            OptimizeFamily::Classic(a) => families::classic::optimize(a),
            OptimizeFamily::Apbf(a) => families::apbf::optimize(a),
            OptimizeFamily::Rbf(a) => families::rbf::optimize(a),
            OptimizeFamily::Btbf(a) => families::timing::optimize(a),
            OptimizeFamily::Sbf(a) => families::stable::optimize_sbf(a),
            OptimizeFamily::Ibf(a) => families::stable::optimize_ibf(a),
            OptimizeFamily::Pbf(a) => families::pbf::optimize(a),
            OptimizeFamily::Gbf(a) => families::gbf::optimize(a),
            OptimizeFamily::Scalable(a) => families::scalable::optimize(a),
            OptimizeFamily::Fuse(a) => families::fuse::optimize(a),
            OptimizeFamily::Cuckoo(a) => families::cuckoo::optimize(a),
            OptimizeFamily::Counting(a) => families::counting::optimize(a),
        },
        Verb::Posterior { family } => match family {
            PosteriorFamily::Btbf(a) => families::timing::posterior(a),
            PosteriorFamily::Gbf(a) => families::gbf::posterior(a),
        },
        Verb::Simulate { family } => match limits::simulate_memory(family).map(|()| family)? {
            SimulateFamily::Classic(a) => families::classic::simulate_cmd(a),
            SimulateFamily::Apbf(a) => families::apbf::simulate_cmd(a),
            SimulateFamily::Apbbf(a) => families::apbf::simulate_blocked_cmd(a),
            SimulateFamily::Rbf(a) => families::rbf::simulate_cmd(a),
            SimulateFamily::Btbf(a) => families::timing::simulate_cmd(a),
            SimulateFamily::Sbf(a) => families::stable::simulate_sbf(a),
            SimulateFamily::Ibf(a) => families::stable::simulate_ibf(a),
            SimulateFamily::Pbf(a) => families::pbf::simulate_cmd(a),
            SimulateFamily::Gbf(a) => families::gbf::simulate_cmd(a),
            SimulateFamily::Scalable(a) => families::scalable::simulate_cmd(a),
            SimulateFamily::Fuse(a) => families::fuse::simulate_cmd(a),
            SimulateFamily::Cuckoo(a) => families::cuckoo::simulate_cmd(a),
            SimulateFamily::Counting(a) => families::counting::simulate_cmd(a),
        }
        .map(Report::exit_on_disagreement),
        Verb::Audit { family } => families::audit::audit(family),
        Verb::Check(a) => families::check::check(a, cli.format),
        Verb::Profile(a) => families::profile::profile(a),
        Verb::Validate(a) => validate::validate_interruptible(a, cli.format, cli.quiet),
        Verb::Reproduce(a) => reproduce::reproduce(a),
        Verb::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut cli::command(), "bfopt", &mut script);
            Ok(Report::text(String::from_utf8_lossy(&script).into_owned()))
        }
    }
}

/// Applies the global flags: `--quiet` turns progress bars off, `--threads` sizes the
/// simulation thread pool (once per process; results never depend on it).
///
/// # Errors
/// `--threads` outside 1 to 1024.
pub fn configure(cli: &Cli) -> Result<(), CliError> {
    bfopt_validation::sim::set_progress(!cli.quiet);
    if let Some(t) = cli.threads {
        if !(1..=1024).contains(&t) {
            return Err(CliError::invalid("--threads", t, "1 to 1024"));
        }
        // A second call in the same process keeps the first pool, which is harmless:
        // results depend on seeds only.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build_global();
    }
    Ok(())
}
