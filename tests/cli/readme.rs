//! Issue 16, bug 9: every `bfopt ...` command of README.md's `sh` blocks runs and exits
//! 0 (or the code its trailing comment states, `# exits N`). The README is read when the
//! test runs, so a changed or added example is covered without editing this file.
//!
//! Skipped: `cargo ...` lines, `bfopt completions` (it writes into the user's home), and
//! the heavy commands listed in [`HEAVY`], each with its reason. Every command runs in a
//! temporary directory (relative outputs land there; `--out` is pointed into it; the
//! `items.csv` trace the README mentions is written there) with a time cap.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Commands not run, by a distinctive part of their line, and why.
const HEAVY: &[(&str, &str)] = &[
    (
        "--trace zipf.txt",
        "reads the trace the python3 line above it generates (only bfopt lines run here); tests/cli/recommend_trace.rs and tests/cli/profile.rs run both verbs on generated traces",
    ),
    ("--level full", "the full validation suite takes minutes"),
    ("--scale 32", "the thesis's full size takes minutes"),
    (
        "--validate",
        "simulates every recommended design (tens of seconds of CPU); tests/cli/recommend_validate.rs runs it smaller",
    ),
    (
        "simulate btbf --timers 131072",
        "the Section 6 stream at the paper's size (2^22 insertions per epoch); tests/cli/timing.rs runs it smaller",
    ),
    (
        "optimize rbf --messages 1e5 --fp 0.001 --phases 2",
        "the exact chain design at 1.5 Mbit per filter: 24 s of CPU; tests/cli/rbf.rs runs --messages 1000",
    ),
    (
        "validate --level quick",
        "the whole quick suite (about 300 checks); the agreement tests run each family's",
    ),
    (
        "--bitmap filter.bin",
        "reads the user's own dump; tests/cli/audit.rs round-trips a reference filter's bitmap",
    ),
    (
        "check plan.json",
        "reads the user's plan; tests/cli/check.rs runs recommend -> check",
    ),
    (
        "check p.json",
        "reads the plan the line above writes (the test discards redirected output); \
         tests/cli/check.rs runs recommend -> check --all --simulate on this plan",
    ),
    (
        "--filters shards.csv",
        "reads the user's filter list; tests/cli/allocate.rs reads CSV and JSON filter files",
    ),
];

/// Time cap of one command.
const CAP: Duration = Duration::from_secs(30);

/// A command of the README: its words (after `bfopt`), the exit code it should give,
/// and the line as written.
struct Example {
    words: Vec<String>,
    exit: i32,
    line: String,
}

/// Splits a shell line into words, honouring single and double quotes.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut cur, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                started = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if started || !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The `bfopt` commands of README.md's `sh` blocks, `\`-continued lines joined.
fn examples(readme: &str) -> Vec<Example> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for raw in readme.lines() {
        let t = raw.trim();
        if t.starts_with("```") {
            in_sh = !in_sh && t == "```sh";
            pending.clear();
            continue;
        }
        if !in_sh {
            continue;
        }
        match t.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(t);
                lines.push(std::mem::take(&mut pending));
            }
        }
    }
    lines
        .into_iter()
        .filter_map(|line| {
            let (command, comment) = line.split_once(" #").unwrap_or((&line, ""));
            // Output redirection: the output is not kept.
            let command = command.split_once(" > ").map_or(command, |(c, _)| c);
            let words = shell_words(command);
            if words.first().map(String::as_str) != Some("bfopt") {
                return None; // cargo lines, comments
            }
            let exit = comment
                .split_once("exits ")
                .and_then(|(_, n)| n.split_whitespace().next()?.parse().ok())
                .unwrap_or(0);
            Some(Example {
                words: words[1..].to_vec(),
                exit,
                line: line.trim().to_string(),
            })
        })
        .collect()
}

/// A scratch directory with the input files the README's commands name.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bfopt-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // `simulate classic --items 1e5 --trace items.csv`: 10^5 distinct items, with
    // timestamps and importances.
    let trace: String = (0..100_000u64)
        .map(|i| format!("{},{},{}\n", i * 7919 + 13, i, 1 + i % 50))
        .collect();
    std::fs::write(dir.join("items.csv"), trace).unwrap();
    dir
}

#[test]
fn issue_16_bug_9_every_readme_command_runs() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let all = examples(&readme);
    assert!(
        all.len() >= 30,
        "only {} bfopt commands found in README.md",
        all.len()
    );
    let dir = scratch();
    let started = Instant::now();
    let mut failures = Vec::new();
    let (mut ran, mut skipped) = (0, Vec::new());
    for ex in &all {
        if ex.words.first().map(String::as_str) == Some("completions") {
            continue;
        }
        if let Some((_, why)) = HEAVY.iter().find(|(part, _)| ex.line.contains(part)) {
            skipped.push(format!("{} ({why})", ex.line));
            continue;
        }
        let mut args = ex.words.clone();
        // Files of the repository (`docs/examples/...`) are named from its root.
        for a in args.iter_mut().filter(|a| a.starts_with("docs/")) {
            *a = format!("{}/{a}", env!("CARGO_MANIFEST_DIR"));
        }
        if let Some(i) = args.iter().position(|w| w == "--out") {
            if let Some(out) = args.get_mut(i + 1) {
                *out = dir.join("out").to_string_lossy().into_owned();
            }
        }
        let t = Instant::now();
        let (code, stderr) = crate::run_capped(&args, Some(&dir), CAP);
        ran += 1;
        if code != Some(ex.exit) {
            failures.push(format!(
                "{}: exit {code:?} after {:.1} s (expected {}): {stderr}",
                ex.line,
                t.elapsed().as_secs_f64(),
                ex.exit
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    eprintln!(
        "{ran} README commands in {:.1} s; skipped:\n  {}",
        started.elapsed().as_secs_f64(),
        skipped.join("\n  ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn readme_lines_are_split_as_a_shell_would() {
    let ex = examples(
        "```sh\n# a comment\nbfopt a --x '2*imp' --y \"b c\"   # exits 3\nbfopt b \\\n  --z 1 > out.xml\ncargo run\n```\n```text\nbfopt not-sh\n```\n",
    );
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[0].words, ["a", "--x", "2*imp", "--y", "b c"]);
    assert_eq!(ex[0].exit, 3);
    assert_eq!(ex[1].words, ["b", "--z", "1"]);
    assert_eq!(ex[1].exit, 0);
}
