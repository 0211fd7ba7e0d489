//! Issue 20: `bfopt profile --trace FILE` on generated traces: JSON shape, D(L) against a
//! brute-force count, gzip and standard input, bad lines (exit 2 or skipped), SVG output.

use super::bfopt;
use std::collections::HashSet;
use std::io::Write;

/// A Zipf-like trace of `n` items with timestamps: item `⌊u^3·500⌋` for a fixed sequence
/// of `u` (seeded LCG), one per second.
fn trace(n: u64) -> (Vec<u64>, String) {
    let mut x = 12345u64;
    let mut keys = Vec::new();
    let mut text = String::from("item,timestamp\n");
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        let k = (u * u * u * 500.0) as u64;
        keys.push(k);
        text.push_str(&format!("k{k},{i}\n"));
    }
    (keys, text)
}

fn brute(keys: &[u64], l: usize) -> f64 {
    let w = keys.len() - l + 1;
    (0..w)
        .map(|s| keys[s..s + l].iter().collect::<HashSet<_>>().len())
        .sum::<usize>() as f64
        / w as f64
}

#[test]
fn issue_20_profile_reports_d_of_l_and_reads_gzip_and_stdin() {
    let dir = std::env::temp_dir().join(format!("bfopt-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (keys, text) = trace(3000);
    let gz = dir.join("t.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let out = dir.join("fig");
    let run = bfopt()
        .args([
            "profile",
            "--trace",
            gz.to_str().unwrap(),
            "--window",
            "100",
        ])
        .args(["--out", out.to_str().unwrap(), "--format", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&run.get_output().stdout).unwrap();
    let rows = v.as_array().unwrap();
    let head = &rows[0]["metrics"];
    assert_eq!(head["length"], 3000);
    let distinct = keys.iter().collect::<HashSet<_>>().len();
    assert_eq!(head["distinct"].as_f64().unwrap(), distinct as f64);
    assert_eq!(head["distinct_exact"], true);
    assert!(head["zipf_exponent"].as_f64().unwrap() > 0.0);
    assert_eq!(head["arrival_rate"].as_f64().unwrap(), 1.0);
    let mut checked = 0;
    for r in &rows[1..] {
        assert_eq!(r["family"], "distinct");
        let l = r["params"]["l"].as_u64().unwrap() as usize;
        let d = r["metrics"]["d"].as_f64().unwrap();
        if l <= 300 || l == 3000 {
            let want = brute(&keys, l);
            assert!((d - want).abs() < 1e-9 * want, "L {l}: {d} vs {want}");
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked}");
    assert!(std::fs::read_to_string(out.join("distinct.svg"))
        .unwrap()
        .contains("<svg"));
    assert!(out.join("hourly.svg").exists());
    // Standard input, one item per line: the same distinct count.
    let plain: String = keys.iter().map(|k| format!("k{k}\n")).collect();
    let run = bfopt()
        .args(["profile", "--trace", "-", "--format", "json"])
        .write_stdin(plain)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&run.get_output().stdout).unwrap();
    assert_eq!(
        v[0]["metrics"]["distinct"].as_f64().unwrap(),
        distinct as f64
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn issue_20_bad_trace_lines_exit_2_or_are_skipped() {
    let bad = "a,1\nb,x\nc,3\n";
    bfopt()
        .args(["profile", "--trace", "-"])
        .write_stdin(bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("-:2: timestamp"));
    let run = bfopt()
        .args([
            "profile",
            "--trace",
            "-",
            "--skip-bad-lines",
            "--format",
            "json",
        ])
        .write_stdin(bad)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&run.get_output().stdout).unwrap();
    assert_eq!(v[0]["metrics"]["length"], 2);
    assert_eq!(v[0]["metrics"]["skipped_lines"], 1);
    bfopt()
        .args(["profile", "--trace", "-", "--key-column", "0"])
        .write_stdin(bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--key-column"));
}
