//! `bfopt validate`: the model-vs-simulation suite.

use crate::cli::{LevelArg, ValidateArgs};
use crate::exit::{CliError, Exit};
use crate::report::{Report, Row};
use bfopt_validation::suite::{self, Level};
use serde_json::json;

/// Runs the suite; the report's exit status is 1 when any check fails. Every check runs
/// even when an earlier one fails.
///
/// # Errors
/// An unknown `--family`.
pub fn validate(args: &ValidateArgs) -> Result<Report, CliError> {
    let level = match args.level {
        LevelArg::Quick => Level::Quick,
        LevelArg::Full => Level::Full,
    };
    let checks = suite::run(args.family.as_deref(), level, args.seed).ok_or_else(|| {
        CliError::invalid(
            "--family",
            args.family.as_deref().unwrap_or(""),
            format!("one of {}", suite::family_names().join(", ")),
        )
    })?;
    let rows = checks
        .iter()
        .map(|c| {
            Row::new(&c.family, json!({ "check": c.name }), json!({}))
                .metric("predicted", c.predicted)
                .metric("measured", c.measured)
                .metric("lo", c.lo)
                .metric("hi", c.hi)
                .metric("confidence", c.confidence)
                .metric("tolerance", c.tolerance)
                .metric("n", c.n)
                .metric("seed", c.seed)
                .metric("verdict", c.verdict())
        })
        .collect();
    let failed = checks.iter().filter(|c| !c.pass).count();
    let mut report = Report::list(rows);
    report
        .notes
        .push(format!("{} passed, {failed} failed", checks.len() - failed));
    report.exit = if failed > 0 {
        Exit::Disagreement
    } else {
        Exit::Ok
    };
    report.checks = Some(checks);
    Ok(report)
}
