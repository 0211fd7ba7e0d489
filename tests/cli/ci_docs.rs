//! Issue 22: the CI jobs of `docs/ci.md` work as written. Their `bfopt` commands are
//! extracted from the document and run against the built binary, in a directory holding
//! the example design file `docs/examples/designs.json` as `designs.json`; every JUnit
//! file they write must be a well-formed report with test cases and no failure.

use super::temp_file;
use bfopt_models::classic::{ClassicParams, Layout};
use bfopt_validation::filters::classic::ClassicFilter;
use bfopt_validation::workload::member;
use std::path::Path;
use std::process::Command;

/// A fenced block of the document: its language and lines.
fn blocks(doc: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in doc.lines() {
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            match current.take() {
                Some(block) => out.push(block),
                None => current = Some((lang.trim().to_string(), Vec::new())),
            }
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line.to_string());
        }
    }
    out
}

/// The shell command of a YAML step line (`run: X`, `- X`, or commented `# - X`) that
/// runs bfopt or installs it, if any.
fn step_command(line: &str) -> Option<(String, bool)> {
    let mut s = line.trim();
    let commented = s.starts_with('#');
    s = s.trim_start_matches('#').trim_start();
    s = s.strip_prefix("- ").unwrap_or(s).trim_start();
    s = s.strip_prefix("run:").unwrap_or(s).trim_start();
    (s.starts_with("bfopt ") || s.contains("cargo install")).then(|| (s.to_string(), commented))
}

/// Runs one documented `bfopt ...` command (with an optional `> FILE`) in `dir`;
/// returns the file written, if any.
fn run_documented(command: &str, dir: &Path) -> Option<std::path::PathBuf> {
    let (cmd, redirect) = match command.split_once('>') {
        Some((c, f)) => (c, Some(dir.join(f.trim()))),
        None => (command, None),
    };
    let words: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(words[0], "bfopt", "{command}");
    let out = Command::new(env!("CARGO_BIN_EXE_bfopt"))
        .args(&words[1..])
        .arg("--quiet")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "docs/ci.md: `{command}` exited {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let path = redirect?;
    std::fs::write(&path, &out.stdout).unwrap();
    Some(path)
}

/// A JUnit report with at least one test case and no failure.
fn assert_junit(path: &Path) {
    let xml = std::fs::read_to_string(path).unwrap();
    assert!(xml.starts_with("<?xml"), "{}: {xml:.200}", path.display());
    assert!(xml.contains("<testsuites") && xml.trim_end().ends_with("</testsuites>"));
    let cases = xml.matches("<testcase ").count();
    assert!(cases > 0, "{}: no test case", path.display());
    assert!(
        xml.contains(&format!(r#"tests="{cases}""#)),
        "{}: count",
        path.display()
    );
    assert!(
        xml.contains(r#"failures="0""#),
        "{}: a check failed",
        path.display()
    );
}

#[test]
fn issue_22_ci_docs_jobs_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ci.md")).unwrap();
    let tag = format!("--tag v{}", env!("CARGO_PKG_VERSION"));
    // A filter dump for the audit example: a reference filter's bits in the documented
    // order.
    let params = ClassicParams::new(1 << 16, 7, 4000, Layout::Standard).unwrap();
    let mut f = ClassicFilter::new(&params, 3);
    (0..4000).for_each(|i| f.insert_u64(member(3, i)));
    let dir = temp_file("ci-docs", "filter.bin", f.bits().to_le_bytes())
        .parent()
        .unwrap()
        .to_path_buf();
    std::fs::copy(
        root.join("docs/examples/designs.json"),
        dir.join("designs.json"),
    )
    .unwrap();

    let mut ran: Vec<String> = Vec::new();
    let mut jobs = 0;
    for (lang, lines) in blocks(&doc) {
        let commands: Vec<(String, bool)> = match lang.as_str() {
            "yaml" => lines.iter().filter_map(|l| step_command(l)).collect(),
            "sh" => lines
                .iter()
                .filter(|l| l.trim_start().starts_with("bfopt "))
                .map(|l| (l.trim().to_string(), false))
                .collect(),
            _ => continue,
        };
        let mut runnable = 0;
        let mut checks = 0;
        for (command, commented) in commands {
            if command.contains("cargo install") {
                // The install pins this release, by `cargo install --locked --git`.
                assert!(
                    command.contains("cargo install --locked --git "),
                    "{command}"
                );
                assert!(command.contains(&tag), "`{command}` does not pin `{tag}`");
                continue;
            }
            let bfopt = &command[command.find("bfopt ").unwrap()..];
            assert!(!commented, "a commented-out step: {command}");
            if bfopt.starts_with("bfopt check") {
                checks += 1;
            }
            runnable += 1;
            if ran.iter().any(|c| c == bfopt) {
                continue;
            }
            if let Some(path) = run_documented(bfopt, &dir) {
                if bfopt.contains("--format junit") {
                    assert_junit(&path);
                }
            }
            ran.push(bfopt.to_string());
        }
        assert!(
            runnable > 0,
            "a {lang} block of docs/ci.md runs no bfopt command"
        );
        if lang == "yaml" {
            jobs += 1;
            assert!(checks > 0, "a CI job lacks its `bfopt check` step");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(jobs, 2, "docs/ci.md: a GitHub Actions and a GitLab CI job");
    assert!(ran
        .iter()
        .any(|c| c.starts_with("bfopt validate") && c.contains("junit")));
    assert!(ran.iter().any(|c| c.starts_with("bfopt audit")));
    assert!(ran
        .iter()
        .any(|c| c.starts_with("bfopt check designs.json") && c.contains("junit")));
    eprintln!(
        "docs/ci.md: ran {} distinct commands ({})",
        ran.len(),
        ran.join("; ")
    );
    // The README documents both ways to install.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("cargo install --locked --path ."));
    assert!(readme.contains("cargo install --locked --git "));
}

/// The release the CI jobs pin is one version everywhere: every crate's `Cargo.toml`,
/// the Python package, a `## [X.Y.Z]` section of `CHANGELOG.md`, and the `--tag vX.Y.Z`
/// of `docs/ci.md` and the README.
#[test]
fn issue_22_release_version_agrees_everywhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let version_of = |p: &str| {
        let text = read(p);
        text.lines()
            .find_map(|l| l.strip_prefix("version = \""))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{p}: no version"))
            .to_string()
    };
    let v = version_of("Cargo.toml");
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
    for p in [
        "models/Cargo.toml",
        "validation/Cargo.toml",
        "plan/Cargo.toml",
        "python/Cargo.toml",
        "python/pyproject.toml",
    ] {
        assert_eq!(version_of(p), v, "{p}");
    }
    assert!(
        read("CHANGELOG.md")
            .lines()
            .any(|l| l.starts_with(&format!("## [{v}]"))),
        "CHANGELOG.md: no ## [{v}] section"
    );
    for p in ["docs/ci.md", "README.md"] {
        let text = read(p);
        let tags: Vec<&str> = text
            .split("--tag ")
            .skip(1)
            .filter_map(|t| t.split_whitespace().next())
            // `vX.Y.Z` in prose is the placeholder, not a pin.
            .filter(|t| {
                t.strip_prefix('v')
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            })
            .collect();
        assert!(!tags.is_empty(), "{p}: no --tag");
        for t in tags {
            assert_eq!(t, format!("v{v}"), "{p}");
        }
    }
}
