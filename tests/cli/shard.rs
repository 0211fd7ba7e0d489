//! `validate --shard K/N` and `validate --merge FILES...` (issue 18): the merge of a
//! run's shards is byte-identical to the run on one machine; bad input exits 2 naming
//! the flag or file.

use super::{assert_exit, bfopt, temp_file};
use std::path::{Path, PathBuf};

/// Writes shard `k/n` of `validate ARGS` to a file of its own; returns its path. The
/// shard must not panic: an experiment that reads another shard's epochs (default
/// placeholders) as data once did, inside the suite's isolation, which lost the shard's
/// records of that check.
fn shard(args: &str, k: u64, n: u64, tag: &str) -> PathBuf {
    let out = temp_file("shard", &format!("{tag}-{k}-of-{n}.cbor"), b"");
    let spec = format!("{k}/{n}");
    let line = format!("validate {args} --shard {spec} --out");
    let run = bfopt()
        .args(super::words(&line))
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    out
}

/// Stdout of `validate` with `args`, then `--format` `format` (exit 0 or 1: a check
/// may fail; the comparison is of bytes).
fn stdout(args: &[&str], merge: &[&Path], format: &str) -> Vec<u8> {
    let mut cmd = bfopt();
    cmd.arg("validate").args(args);
    if !merge.is_empty() {
        cmd.arg("--merge").args(merge);
    }
    let out = cmd.args(["--format", format]).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn merge_of_three_shards_equals_the_one_machine_run_byte_for_byte() {
    // `stable`: its SBF stream experiment reads per-age counts of every epoch.
    for family in ["counting", "scalable", "stable"] {
        let args = format!("--family {family} --level quick --seed 5");
        let files: Vec<PathBuf> = (0..3).map(|k| shard(&args, k, 3, family)).collect();
        // Shards given in any order.
        let merge: Vec<&Path> = [2, 0, 1].iter().map(|&i| files[i].as_path()).collect();
        for format in ["json", "table"] {
            let one = stdout(&super::words(&args), &[], format);
            let merged = stdout(&[], &merge, format);
            assert!(!one.is_empty());
            assert_eq!(
                String::from_utf8_lossy(&merged),
                String::from_utf8_lossy(&one),
                "{family} {format}"
            );
        }
        // Every epoch came from a shard: the merge computed none itself.
        let out = bfopt()
            .arg("validate")
            .arg("--merge")
            .args(&merge)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("did not record"), "{err}");
    }
}

#[test]
fn bad_shard_and_merge_input_exits_2_naming_the_flag_or_file() {
    let out = temp_file("shard", "unused.cbor", b"");
    let out = out.display();
    for bad in ["3/3", "0/0", "4/3", "x/2", "1", "-1/2"] {
        assert_exit(
            &format!("validate --family counting --shard {bad} --out {out}"),
            2,
            &["--shard", "0 <= K < N"],
        );
    }
    // A file-list value starting with `-` (the list takes none, so that it cannot
    // swallow the flags after it): the message names --merge, the value, what is allowed.
    for bad in ["-1", "-inf"] {
        assert_exit(
            &format!("validate --merge {out} {bad}"),
            2,
            &[
                &format!("'{bad}' for '--merge"),
                "allowed",
                &format!("./{bad}"),
            ],
        );
    }
    // --shard without --out, --out without --shard, --merge with --seed.
    assert_exit("validate --shard 0/2", 2, &["--out"]);
    assert_exit(&format!("validate --out {out}"), 2, &["--shard"]);
    assert_exit(&format!("validate --merge {out} --seed 3"), 2, &["--seed"]);
    // Not a shard file; a file that does not exist.
    let junk = temp_file("shard", "junk.cbor", b"{\"not\": \"a shard\"}");
    assert_exit(
        &format!("validate --merge {}", junk.display()),
        2,
        &[
            &junk.display().to_string(),
            "not a bfopt validate shard file",
        ],
    );
    assert_exit(
        "validate --merge /nonexistent/bfopt-shard.cbor",
        2,
        &["/nonexistent/bfopt-shard.cbor"],
    );
    // Shards of one run, one missing or given twice; shards of runs with other seeds.
    let args = "--family counting --level quick --seed 9";
    let a = shard(args, 0, 2, "err");
    let b = shard(args, 1, 2, "err");
    let other = shard(
        "--family counting --level quick --seed 10",
        1,
        2,
        "err-seed",
    );
    let (a, b, other) = (a.display(), b.display(), other.display());
    assert_exit(
        &format!("validate --merge {a}"),
        2,
        &["--merge", "shard 1/2 is missing"],
    );
    assert_exit(
        &format!("validate --merge {a} {a}"),
        2,
        &["shard 0/2 is also given as"],
    );
    assert_exit(
        &format!("validate --merge {a} {other}"),
        2,
        &[&other.to_string(), "seed 10", "seed 9"],
    );
    assert_exit(&format!("validate --merge {a} {b}"), 0, &[]);
}
