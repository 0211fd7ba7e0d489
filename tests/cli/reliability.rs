//! Issue 10: determinism of every simulation across thread counts and runs, and
//! `validate` surviving Ctrl-C.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Quick runs of every simulating verb (seeded by default or explicitly).
const SIMULATIONS: &[&str] = &[
    "simulate classic --bits 1e4 --hashes 7 --items 1000 --epochs 4 --probes 2000 --seed 11",
    "simulate classic --bits 1e4 --hashes 7 --items 1000 --epochs 3 --probes 2000 --workload zipf --seed 12",
    "simulate rbf --bits 1000 --hashes 3 --recycle-bits 300 --epochs 4 --arrivals 4000 --seed 13",
    "simulate btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100 --prior uniform:1000 --queries 500 --epochs 3 --seed 14",
    "simulate apbf --hashes 4 --extra-slices 3 --window 1000 --generations 4 --phases 2 --epochs 3 --probes 1000 --workload uniform --seed 15",
    "simulate apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 2 --window 1000 --generations 4 --phases 2 --epochs 3 --probes 1000 --seed 16",
    "simulate sbf --cells 1000 --hashes 3 --max 3 --decrements 10 --steps 2000 --epochs 3 --probes 100 --seed 17",
    "simulate ibf --policy ibf1 --cells 1000 --hashes 3 --max 3 --decrements 10 --steps 2000 --epochs 3 --probes 100 --seed 18",
    "simulate pbf --scale 0.001 --method pbf2-uniform --queries 300 --seed 19",
    "simulate gbf --bits 2000 --reset-hashes 2 --set-hashes 3 --window 50 --prior zipf:200 --queries 200 --epochs 3 --seed 20",
    "validate --family classic --seed 21",
    "recommend --fp 0.05 --window 2000 --validate --seed 22",
];

fn json_stdout(line: &str, threads: &str) -> (Option<i32>, Vec<u8>) {
    let out = Command::new(env!("CARGO_BIN_EXE_bfopt"))
        .args(line.split_whitespace())
        .args(["--format", "json", "--quiet", "--threads", threads])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        !out.stdout.is_empty(),
        "bfopt {line}: no output; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), out.stdout)
}

#[test]
fn issue_10_simulations_are_byte_identical_across_threads_and_runs() {
    // Each line runs three times: 1 thread, 2 threads, 2 threads again. Lines run two
    // at a time.
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = SIMULATIONS
            .chunks(SIMULATIONS.len().div_ceil(2))
            .map(|chunk| {
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for line in chunk {
                        let one = json_stdout(line, "1");
                        let two = json_stdout(line, "2");
                        let again = json_stdout(line, "2");
                        if one != two {
                            bad.push(format!("bfopt {line}: --threads 1 and 2 differ"));
                        }
                        if two != again {
                            bad.push(format!("bfopt {line}: two runs differ"));
                        }
                        if !matches!(one.0, Some(0 | 1)) {
                            bad.push(format!("bfopt {line}: exit {:?}", one.0));
                        }
                    }
                    bad
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn issue_10_validate_ctrl_c_prints_finished_checks_and_exits_130() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bfopt"))
        .args(["validate", "--level", "quick", "--format", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    // Wait (however long the machine needs) for the first family to finish, then
    // interrupt: the families after it are still running or not started.
    let (tx, rx) = mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let lines = std::thread::spawn(move || {
        let mut all = Vec::new();
        for line in stderr.lines().map_while(Result::ok) {
            if line.contains(" done (") {
                tx.send(line.clone()).ok();
            }
            all.push(line);
        }
        all
    });
    let first = rx
        .recv_timeout(Duration::from_secs(600))
        .expect("no family of the suite finished within 10 minutes");
    assert!(first.contains("classic done"), "{first}");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let stdout = reader.join().unwrap();
    let stderr = lines.join().unwrap().join("\n");
    assert_eq!(status.code(), Some(130), "stderr:\n{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("partial output is not a JSON list ({e}): {stdout}"));
    let families: Vec<&str> = rows.iter().map(|r| r["family"].as_str().unwrap()).collect();
    assert!(families.contains(&"classic"), "{families:?}");
    // The last family of the suite had not run.
    assert!(!families.contains(&"gbf"), "{families:?}");
    for r in &rows {
        assert!(matches!(
            r["metrics"]["verdict"].as_str(),
            Some("PASS" | "FAIL")
        ));
    }
}
