//! Issue 20: `bfopt recommend --trace FILE` on generated traces: the window designs sized
//! on the trace's D(L) with the distinct-stream figures beside them, `--window-seconds`
//! through the arrival rate, a static set from the distinct total, the replay with
//! `--validate`, and bad input (exit 2 naming the flag).

use super::bfopt;

/// `n` records of a skewed law (item `⌊u^4·200000⌋` for a seeded LCG sequence of `u`),
/// with a timestamp every 0.1 s when `timed`.
fn trace(n: u64, timed: bool) -> String {
    let mut x = 2020u64;
    let mut text = String::new();
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        let k = (u.powi(4) * 200_000.0) as u64;
        if timed {
            text.push_str(&format!("k{k},{}\n", i as f64 / 10.0));
        } else {
            text.push_str(&format!("k{k}\n"));
        }
    }
    text
}

/// A temporary file holding `text`.
fn file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bfopt-recommend-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json(args: &[&str], code: i32) -> serde_json::Value {
    let run = bfopt()
        .args(args)
        .args(["--format", "json"])
        .assert()
        .code(code);
    serde_json::from_slice(&run.get_output().stdout).unwrap()
}

/// The row of `design` in a `recommend --trace --validate` JSON and its replay, after
/// checking that it was sized on the trace with fewer bits per item than the
/// distinct-stream design and that its replay passed.
fn fitted_and_passed<'a>(
    v: &'a serde_json::Value,
    design: &str,
) -> (&'a serde_json::Value, &'a serde_json::Value) {
    let candidates = v["candidates"].as_array().unwrap();
    let designs = v["trace_validation"]["designs"].as_array().unwrap();
    let (c, d) = candidates
        .iter()
        .zip(designs)
        .find(|(c, _)| c["design"] == design)
        .unwrap_or_else(|| panic!("a {design} row"));
    assert_eq!(c["sized_on"], "profile", "{c}");
    assert!(
        c["bits_per_item"].as_f64().unwrap() < c["distinct_bits_per_item"].as_f64().unwrap(),
        "{c}"
    );
    assert_eq!(d["status"], "pass", "{d}");
    (c, d)
}

#[test]
fn issue_20_window_designs_are_sized_on_the_trace_and_replay() {
    let path = file("plain.txt", &trace(60_000, false));
    let v = json(
        &[
            "recommend",
            "--trace",
            path.to_str().unwrap(),
            "--fp",
            "0.01",
            "--window",
            "1e4",
            "--validate",
        ],
        0,
    );
    assert_eq!(v["trace"]["records"], 60_000);
    assert_eq!(v["trace"]["window"], 10_000);
    let candidates = v["candidates"].as_array().unwrap();
    let mut fitted = 0;
    for c in candidates {
        let own = c["bits_per_item"].as_f64().unwrap();
        let distinct = c["distinct_bits_per_item"].as_f64().unwrap();
        match c["sized_on"].as_str().unwrap() {
            "profile" => {
                fitted += 1;
                // The queue's fingerprints are whole bits: here D(W) = 7688 of 10^4 still
                // needs 20 bits (19 would give 0.0146), so it saves nothing but its FP.
                if c["design"] == "fingerprint-queue" {
                    assert!(own <= distinct, "{c}");
                } else {
                    assert!(own < distinct, "{c}");
                }
            }
            "assumes_distinct" => assert_eq!(own, distinct, "{c}"),
            other => panic!("sized_on {other}"),
        }
    }
    assert_eq!(
        fitted, 7,
        "apbf, apbbf, both rings, fingerprint-queue, btbf and rbf/two-phase"
    );
    let designs = v["trace_validation"]["designs"].as_array().unwrap();
    assert_eq!(designs.len(), candidates.len());
    for (c, d) in candidates.iter().zip(designs) {
        if c["sized_on"] == "profile" {
            assert_eq!(d["status"], "pass", "{d}");
            let m = &d["measured"];
            if c["design"] == "rbf/two-phase" {
                // Non-retaining: the message overflowing a cycle is dropped; bounded.
                let rate = m["window_fn"]["rate"].as_f64().unwrap();
                assert!(rate <= m["window_fn_predicted"].as_f64().unwrap(), "{m}");
            } else {
                assert_eq!(m["false_negatives"], 0);
            }
            assert!(m["fresh_fp"]["rate"].as_f64().unwrap() <= 0.01 * 1.1, "{m}");
            assert!(m["returning_fp"]["trials"].as_u64().unwrap() > 0);
        }
    }
    // The table shows both figures and the replay.
    let run = bfopt()
        .args(["recommend", "--trace", path.to_str().unwrap()])
        .args(["--fp", "0.01", "--window", "1e4", "--validate"])
        .assert()
        .success();
    let out = String::from_utf8_lossy(&run.get_output().stdout).to_string();
    for text in [
        "distinct",
        "sized on",
        "trace",
        "replay of the trace",
        "returning",
    ] {
        assert!(out.contains(text), "{text} missing:\n{out}");
    }
    // Readable at 100 columns: every line of the default text output, both tables
    // and the notes.
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "output {widest} columns wide:\n{out}");
}

/// With `--allow-fn` the GBF row is sized on the trace too, and its replay compares the
/// misses on window items with the model's (`fn` column: the rate beside the model's).
#[test]
fn issue_20_gbf_is_sized_on_the_trace_with_allow_fn() {
    let path = file("gbf.txt", &trace(60_000, false));
    let args = [
        "recommend",
        "--trace",
        path.to_str().unwrap(),
        "--fp",
        "0.01",
        "--window",
        "1e4",
        "--allow-fn",
        "0.05",
        "--validate",
    ];
    let v = json(&args, 0);
    let (_, d) = fitted_and_passed(&v, "gbf");
    assert!(
        d["measured"]["window_fn_predicted"].as_f64().unwrap() > 0.0,
        "{d}"
    );
    let run = bfopt().args(args).assert().success();
    let out = String::from_utf8_lossy(&run.get_output().stdout).to_string();
    // The replay table's `fn` line of the GBF gives the model's miss rate (not 0).
    let fn_model = out.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.first() == Some(&"fn") && words.get(1).is_some_and(|m| *m != "0")
    });
    assert!(fn_model, "{out}");
}

/// With `--penalties` the inferential BTBF is sized on the trace's D(L) and item
/// frequencies, and its replay (the filter answering by the posterior) measures the
/// penalty per query beside the model's at each query's age, and the FP on fresh keys
/// at most the standard answer's.
#[test]
fn issue_20_inferential_btbf_is_sized_on_the_trace_with_penalties() {
    let path = file("inferential.txt", &trace(60_000, false));
    let args = [
        "recommend",
        "--trace",
        path.to_str().unwrap(),
        "--fp",
        "0.01",
        "--window",
        "1e4",
        "--penalties",
        "1:10",
        "--validate",
    ];
    let v = json(&args, 0);
    let (_, d) = fitted_and_passed(&v, "btbf/inferential");
    let pen = &d["penalty"];
    assert!(pen["predicted"].as_f64().unwrap() > 0.0, "{d}");
    assert!(pen["planned"].as_f64().is_some(), "{d}");
    assert!(pen["fresh_fp"]["rate"].as_f64().unwrap() <= pen["fresh_bound"].as_f64().unwrap());
    let run = bfopt().args(args).assert().success();
    let out = String::from_utf8_lossy(&run.get_output().stdout).to_string();
    assert!(out.lines().any(|l| l.contains("penalty")), "{out}");
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "output {widest} columns wide:\n{out}");
}

#[test]
fn issue_20_window_seconds_through_the_arrival_rate() {
    let path = file("timed.csv", &trace(30_000, true));
    let v = json(
        &[
            "recommend",
            "--trace",
            path.to_str().unwrap(),
            "--fp",
            "0.01",
            "--window-seconds",
            "500",
        ],
        0,
    );
    // 10 records per second: 500 s is 5000 insertions.
    assert!((v["trace"]["arrival_rate"].as_f64().unwrap() - 10.0).abs() < 1e-9);
    assert_eq!(v["trace"]["window"], 5000);
    assert_eq!(v["requirement"]["insertions"], 5000);
}

#[test]
fn issue_20_without_a_window_the_trace_is_a_static_set_of_its_distinct_items() {
    let text = trace(20_000, false);
    let distinct = text.lines().collect::<std::collections::HashSet<_>>().len();
    let path = file("set.txt", &text);
    let v = json(
        &[
            "recommend",
            "--trace",
            path.to_str().unwrap(),
            "--fp",
            "0.01",
        ],
        0,
    );
    assert_eq!(v["requirement"]["shape"], "capacity");
    assert_eq!(v["requirement"]["items"], distinct);
    assert!(v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["sized_on"] == "distinct_total"));
}

#[test]
fn issue_20_bad_trace_input_exits_2_naming_the_flag() {
    let plain = file("bad-plain.txt", &trace(2000, false));
    let p = plain.to_str().unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--window-seconds", "60"],
            &["--window-seconds = 60", "timestamps"],
        ),
        (
            &["--window-seconds", "-1"],
            &["--window-seconds = -1", "0 < seconds"],
        ),
        (
            &["--window", "100", "--window-seconds", "5"],
            &["--window-seconds", "--window"],
        ),
        (
            &["--horizon", "100", "--query-length", "4", "--pairs", "10"],
            &["--horizon = 100"],
        ),
        (
            &["--capacity", "100"],
            &["--capacity = 100", "distinct total"],
        ),
        (
            &["--window", "100", "--duplicates", "0.5"],
            &["--duplicates = 0.5"],
        ),
        (
            &["--initial-capacity", "10", "--max-items", "100"],
            &["--initial-capacity = 10"],
        ),
    ];
    for (extra, texts) in cases {
        let run = bfopt()
            .args(["recommend", "--fp", "0.01", "--trace", p])
            .args(*extra)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&run.get_output().stderr).to_string();
        for t in *texts {
            assert!(err.contains(t), "{extra:?}: {t:?} not in {err}");
        }
    }
    // --window-seconds needs --trace.
    let run = bfopt()
        .args(["recommend", "--fp", "0.01", "--window-seconds", "5"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(err.contains("--trace"), "{err}");
    // A missing file names itself.
    bfopt()
        .args([
            "recommend",
            "--fp",
            "0.01",
            "--window",
            "100",
            "--trace",
            "/nonexistent/t.txt",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/t.txt"));
}
