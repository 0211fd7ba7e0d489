//! Issue 16: the bugs found when the tool was tried as a new user would (the CLI's
//! share; the recommender's bugs are tested beside the recommender).

use super::*;
use bfopt::exit::{CliError, Exit, EXIT_CODES_HELP};
use bfopt_models::ModelError;

/// The README's paragraph of exit codes, whitespace folded.
fn readme_exit_codes() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("Exit codes:")
        .expect("README lists the exit codes");
    let para = &readme[start
        ..readme[start..]
            .find("\n\n")
            .map_or(readme.len(), |e| start + e)];
    para.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A solver that does not converge is exit 4, not "infeasible" (3); `bfopt --help` and
/// the README both list it.
#[test]
fn issue_16_no_convergence_exits_4() {
    let err = CliError::from_model(
        ModelError::NoConvergence {
            solver: "brent",
            iterations: 100,
            residual: 0.5,
        },
        &[],
    );
    assert_eq!(err.exit(), Exit::SolverFailure);
    assert_eq!(err.exit() as i32, 4);
    assert!(err.to_string().contains("brent did not converge"), "{err}");
    assert!(!err.to_string().contains("no design"), "{err}");
    let help = bfopt()
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8(help).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains(EXIT_CODES_HELP), "{help}");
    assert!(
        help.contains("4 a numerical solver did not converge"),
        "{help}"
    );
    assert!(
        readme_exit_codes().contains("4 a numerical solver did not converge"),
        "{}",
        readme_exit_codes()
    );
}
