//! `bfopt validate`: the model-vs-simulation suite.
//!
//! Long runs survive interruption: on Ctrl-C (SIGINT) the checks of every family that
//! has finished are printed in the requested format, a note on stderr says what was not
//! run, and the process exits with [`Exit::Interrupted`] (130). A family whose checks
//! panic is reported as one failed check and the suite goes on.

use crate::cli::{Format, LevelArg, ValidateArgs};
use crate::exit::{CliError, Exit};
use crate::report::{Report, Row};
use bfopt_validation::agree::Check;
use bfopt_validation::shard::{Merged, Shard, ShardFile};
use bfopt_validation::suite::{self, Level};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Runs the suite; the report's exit status is 1 when any check fails. Every check runs
/// even when an earlier one fails.
///
/// # Errors
/// An unknown `--family`.
pub fn validate(args: &ValidateArgs) -> Result<Report, CliError> {
    run(args, |_, _| {})
}

/// [`validate`] for the binary: progress per family on stderr (unless `quiet`), and a
/// Ctrl-C handler that prints the finished checks in `format` and exits with 130.
///
/// # Errors
/// An unknown `--family`.
pub fn validate_interruptible(
    args: &ValidateArgs,
    format: Format,
    quiet: bool,
) -> Result<Report, CliError> {
    static DONE: AtomicBool = AtomicBool::new(false);
    DONE.store(false, Ordering::SeqCst);
    // A second handler in one process (a library caller) is refused; harmless.
    let _ = ctrlc::set_handler(move || {
        suite::request_stop();
        if DONE.load(Ordering::SeqCst) {
            return; // finished: the normal report is being written
        }
        let checks = suite::finished();
        let mut report = report(&checks);
        report.exit = Exit::Interrupted;
        report
            .notes
            .push("interrupted (Ctrl-C): only the checks of finished families".to_string());
        let mut out = std::io::stdout().lock();
        let _ = crate::render::write(&report, format, &mut out).and_then(|()| out.flush());
        eprintln!(
            "bfopt validate: interrupted; {} checks of finished families shown, the rest not run",
            checks.len()
        );
        std::process::exit(Exit::Interrupted as i32);
    });
    let result = run(args, |family, checks| {
        if !quiet {
            let failed = checks.iter().filter(|c| !c.pass).count();
            eprintln!(
                "bfopt validate: {family} done ({} checks, {failed} failed)",
                checks.len()
            );
        }
    });
    DONE.store(true, Ordering::SeqCst);
    result
}

fn run(args: &ValidateArgs, done: impl FnMut(&str, &[Check]) + Send) -> Result<Report, CliError> {
    if !args.merge.is_empty() {
        return merge(&args.merge, done);
    }
    let level = match args.level {
        LevelArg::Quick => Level::Quick,
        LevelArg::Full => Level::Full,
    };
    let unknown_family = || {
        CliError::invalid(
            "--family",
            args.family.as_deref().unwrap_or(""),
            format!("one of {}", suite::family_names().join(", ")),
        )
    };
    if let Some(text) = &args.shard {
        let shard: Shard = text
            .parse()
            .map_err(|allowed: String| CliError::invalid("--shard", text, allowed))?;
        let file = suite::run_shard(args.family.as_deref(), level, args.seed, shard, |_, _| {})
            .ok_or_else(unknown_family)?;
        let out = args.out.as_deref().unwrap_or(Path::new("-"));
        return write_shard(&file, out);
    }
    let checks = suite::run_observed(args.family.as_deref(), level, args.seed, done)
        .ok_or_else(unknown_family)?;
    Ok(report(&checks))
}

/// Writes a shard's file; the report is one note saying what was written.
fn write_shard(file: &ShardFile, out: &Path) -> Result<Report, CliError> {
    let shown = out.display().to_string();
    let cannot = |e: String| CliError::invalid("--out", &shown, format!("a writable file ({e})"));
    let mut w = std::fs::File::create(out)
        .map(std::io::BufWriter::new)
        .map_err(|e| cannot(e.to_string()))?;
    file.write(&mut w)
        .and_then(|()| w.flush().map_err(|e| e.to_string()))
        .map_err(cannot)?;
    Ok(Report::text(format!(
        "shard {}: {} simulations, {} epochs written to {shown}\n",
        file.shard,
        file.records.len(),
        file.epochs()
    )))
}

/// `--merge FILES`: the report of the run the shard files split.
fn merge(paths: &[PathBuf], done: impl FnMut(&str, &[Check]) + Send) -> Result<Report, CliError> {
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let name = path.display().to_string();
        let bad = |why: String| CliError::File {
            path: name.clone(),
            line: 0,
            message: why,
        };
        let input = std::fs::File::open(path).map_err(|e| bad(e.to_string()))?;
        let file = ShardFile::read(std::io::BufReader::new(input)).map_err(bad)?;
        files.push((name, file));
    }
    let merged = Merged::new(files).map_err(|e| {
        if e.file == "--merge" {
            CliError::invalid("--merge", paths.len(), e.message)
        } else {
            CliError::File {
                path: e.file,
                line: 0,
                message: e.message,
            }
        }
    })?;
    let merged = Arc::new(merged);
    let family = merged.family.clone();
    let checks = suite::run_merged(Arc::clone(&merged), done).ok_or_else(|| {
        CliError::invalid(
            "--merge",
            family.unwrap_or_default(),
            format!(
                "shards of a family among {}",
                suite::family_names().join(", ")
            ),
        )
    })?;
    if merged.recomputed() > 0 {
        eprintln!(
            "bfopt validate: the merge computed {} epochs the shards did not record",
            merged.recomputed()
        );
    }
    Ok(report(&checks))
}

/// The report of a list of checks: one row each; exit 1 when any failed.
fn report(checks: &[Check]) -> Report {
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
    report.checks = Some(checks.to_vec());
    report
}
