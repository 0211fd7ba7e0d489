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

/// Bug 1 (a): a small standard filter is sized by the exact law, meets its target under
/// it, and says which law it meets.
#[test]
fn issue_16_bug_1_optimize_classic_meets_the_exact_fp() {
    let j = json_value(&words("optimize classic --fp 0.01 --items 100"));
    let m = &j["metrics"];
    assert_eq!(m["fp_law"], "exact", "{j}");
    let exact = m["fp_exact"].as_f64().unwrap();
    assert!(exact <= 0.01, "{j}");
    assert_eq!(m["fp"].as_f64().unwrap(), exact);
    // The usual formula's m = 960 has exact FP 0.01006: the design is larger.
    assert!(m["bits"].as_u64().unwrap() > 960, "{j}");
    let big = json_value(&words("optimize classic --fp 0.01 --items 1e6"));
    assert_eq!(big["metrics"]["fp_law"], "usual_formula", "{big}");
    // The table shows the law too.
    run_ok("optimize classic --fp 0.01 --items 100").stdout(predicate::str::contains("exact"));
}

/// Bug 8: `simulate` exits 1 when its row says `agrees false` (README: 1 = a
/// model-vs-simulation disagreement), 0 when it agrees. At a confidence of 0.1% the
/// intervals are far narrower than the sampling error, so the model falls outside.
#[test]
fn issue_16_bug_8_simulate_exits_1_on_disagreement() {
    let line = "simulate classic --bits 1e4 --hashes 4 --items 1000 --epochs 4 --probes 10000";
    let out = bfopt()
        .args(words(line))
        .args(["--confidence", "0.001", "--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(j["metrics"]["agrees"], false, "{j}");
    let j = json_value(&words(line));
    assert_eq!(j["metrics"]["agrees"], true, "{j}");
}

/// Bug 9: a blocked filter's `--bits` that is not a whole number of blocks is rounded up
/// to whole blocks, and the output says so (table and JSON).
#[test]
fn issue_16_bug_9_blocked_bits_round_up_to_whole_blocks() {
    let line = "model classic --bits 1e6 --hashes 6 --items 1e5 --layout blocked --block-bits 512";
    let j = json_value(&words(line));
    assert_eq!(j["params"]["m"], 1_000_448, "{j}"); // 1954 blocks of 512 bits
    assert_eq!(j["params"]["bits_requested"], 1_000_000, "{j}");
    let note = j["params"]["note"].as_str().unwrap();
    assert!(
        note.contains("rounded up to 1000448") && note.contains("1954 blocks"),
        "{note}"
    );
    run_ok(line).stdout(predicate::str::contains("rounded up"));
    // A whole number of blocks is left as it is, with no note.
    let j = json_value(&words(
        "model classic --bits 1024000 --hashes 6 --items 1e5 --layout blocked --block-bits 512",
    ));
    assert_eq!(j["params"]["m"], 1_024_000);
    assert!(j["params"].get("note").is_none(), "{j}");
}

/// Bug 11: `optimize rbf` gives one column per quantity (no `bits`/`bits`, `k`/`hashes`,
/// `sigma`/`recycle_bits`), in every mode.
#[test]
fn issue_16_bug_11_optimize_rbf_has_one_column_per_quantity() {
    for line in [
        "optimize rbf --bits 1e4 --fp 0.01",
        "optimize rbf --messages 1000 --fp 0.01 --phases 2",
        "optimize rbf --window 1000 --fp 0.001",
    ] {
        let j = json_value(&words(line));
        let (params, metrics) = (
            j["params"].as_object().unwrap(),
            j["metrics"].as_object().unwrap(),
        );
        for key in metrics.keys() {
            assert!(
                !params.contains_key(key),
                "{line}: {key} in params and metrics"
            );
        }
        for (param, alias) in [("bits", "bits"), ("k", "hashes"), ("sigma", "recycle_bits")] {
            assert!(params.contains_key(param), "{line}: no {param}");
            assert!(
                !metrics.contains_key(alias),
                "{line}: {alias} repeats {param}"
            );
        }
        // The table: no column header twice.
        let out = run_ok(line).get_output().stdout.clone();
        let header = String::from_utf8(out).unwrap();
        let cols: Vec<&str> = header.lines().next().unwrap().split_whitespace().collect();
        let mut unique = cols.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), cols.len(), "{line}: {cols:?}");
    }
}
