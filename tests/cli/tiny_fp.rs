//! Issue 17: no `model` verb prints a false-positive rate as 0 unless it is exactly 0.
//! Designs with huge filters and few items have FPs far below the smallest `f64`
//! (2.2e-308): each probability metric is printed as a positive number, as text in
//! scientific notation with its `<key>_log10` beside it, or the verb exits 3 naming
//! 2.2e-308. Run in-process through the library, as the binary runs it.

use bfopt::cli;
use bfopt::exit::CliError;
use proptest::prelude::*;
use serde_json::Value;

/// Runs a `model` command line; `Ok(metrics)` or the error.
fn run(line: &str) -> Result<Vec<serde_json::Map<String, Value>>, CliError> {
    let cli = cli::parse_from(std::iter::once("bfopt").chain(line.split(' ')))
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    let report = bfopt::run(&cli)?;
    Ok(report.rows.into_iter().map(|r| r.metrics).collect())
}

/// The check: every probability metric is positive, or underflow text with its log10,
/// or the run exits 3 naming the smallest printable probability.
fn no_silent_zero(line: &str) -> Result<(), TestCaseError> {
    match run(line) {
        Ok(rows) => {
            for metrics in rows {
                for (key, v) in &metrics {
                    if !bfopt::families::tiny::is_probability(key) {
                        continue;
                    }
                    match v {
                        Value::Number(x) => {
                            let x = x.as_f64().unwrap();
                            prop_assert!(x > 0.0, "bfopt {line}: {key} printed as {x}");
                        }
                        Value::String(text) if metrics.contains_key(&format!("{key}_log10")) => {
                            let (mantissa, exponent) = text.split_once('e').unwrap();
                            let mantissa: f64 = mantissa.parse().unwrap();
                            let exponent: i64 = exponent.parse().unwrap();
                            prop_assert!((1.0..10.0).contains(&mantissa), "{line}: {text}");
                            prop_assert!(exponent < -306, "{line}: {key} = {text}");
                            // The text is the log10 rounded to four digits: 9.99985e-818225
                            // prints as 1.000e-818224, one decade above floor(log10).
                            let log10 = metrics[&format!("{key}_log10")].as_f64().unwrap();
                            let printed = exponent as f64 + mantissa.log10();
                            prop_assert!(
                                (printed - log10).abs() <= (1.0005f64).log10(),
                                "{line}: {key} = {text}, log10 {log10}"
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
        Err(CliError::Infeasible(msg)) => {
            prop_assert!(msg.contains("2.2250738585072014e-308"), "{line}: {msg}");
        }
        Err(CliError::Invalid { .. }) => {} // a combination the model refuses
        Err(e) => prop_assert!(false, "bfopt {line}: {e}"),
    }
    Ok(())
}

/// `model` command lines with a huge filter (10^3 to 2^50 bits), up to 64 hashes and
/// few items, over every family whose FP falls with the filter's size.
fn lines() -> impl Strategy<Value = String> {
    let m = (10u32..=50).prop_flat_map(|e| (1u64 << (e - 1))..=(1u64 << e));
    let k = 1u64..=64;
    let n = 1u64..=1000;
    (m, k, n, 0usize..10).prop_map(|(m, k, n, which)| match which {
        0 => format!("model classic --bits {m} --hashes {k} --items {n}"),
        1 => format!("model classic --bits {m} --hashes {k} --items {n} --layout partitioned"),
        2 => format!("model classic --bits {m} --hashes {k} --items {n} --layout blocked --block-bits 512"),
        3 => format!("model counting --counters {m} --hashes {k} --items {n} --counter-bits 4"),
        4 => format!("model btbf --timers {m} --hashes {k} --bits-per-timer 8 --window {n}"),
        5 => format!("model rbf --bits {m} --hashes {k} --recycle-messages {n}"),
        6 => format!("model rbf --bits {m} --hashes {k} --recycle-bits {}", k + n),
        7 => format!("model pbf --bits {m} --distinct {n} --frequency 1 --max-hashes {k}"),
        8 => format!("model apbbf --hashes {k} --extra-slices 1 --block-bits 4096 --block-hashes 64 --window {n}"),
        _ => format!("model apbf --hashes {k} --extra-slices 1 --slice-bits {m}"),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn issue_17_model_verbs_print_no_fp_as_0(line in lines()) {
        no_silent_zero(&line)?;
    }
}

#[test]
fn issue_17_model_classic_prints_fp_below_1e_308() {
    let rows = run("model classic --bits 1e12 --hashes 60 --items 1").unwrap();
    let m = &rows[0];
    // (60/10^12)^60 = 10^-613.311 = 4.887e-614, less the collisions (2e-9 relative).
    assert_eq!(m["fp"], Value::String("4.887e-614".into()), "{m:?}");
    assert_eq!(m["fp_law"], "exact");
    let log10 = m["fp_log10"].as_f64().unwrap();
    assert!(
        (log10 - 60.0 * (60.0f64 / 1e12).log10()).abs() < 1e-6,
        "{log10}"
    );
    assert!(m["fp_approx"].as_str().unwrap().ends_with("e-614"));
}

/// The `<key>_log10` of a metric printed as text, checked against the text's exponent.
fn log10_of(m: &serde_json::Map<String, Value>, key: &str) -> f64 {
    let text = m[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} not text: {m:?}"));
    let log10 = m[&format!("{key}_log10")].as_f64().unwrap();
    let exponent: f64 = text.split_once('e').unwrap().1.parse().unwrap();
    assert_eq!(log10.floor(), exponent, "{key} = {text}, log10 {log10}");
    log10
}

#[test]
fn issue_17_model_btbf_prints_fp_below_1e_308() {
    let rows = run("model btbf --timers 1e12 --hashes 60 --bits-per-timer 8 --window 10").unwrap();
    let m = &rows[0];
    // B = 1: an expired item answers Pos only through timers refreshed during the last
    // h = w = 10 insertions: (1 − (1 − 10^-12)^600)^60 ≈ (600/10^12)^60 = 4.887e-554
    // (the fill's second-order term is 3e-10 relative).
    assert_eq!(m["fp"], Value::String("4.887e-554".into()), "{m:?}");
    let log10 = log10_of(m, "fp");
    assert!(
        (log10 - 60.0 * (600.0f64 / 1e12).log10()).abs() < 1e-6,
        "{log10}"
    );
}

#[test]
fn issue_17_model_rbf_n_bounded_prints_fps_below_1e_308() {
    let rows = run("model rbf --bits 1e12 --hashes 60 --recycle-messages 10").unwrap();
    let m = &rows[0];
    // f_i ≈ (60·i/10^12)^60, Eq. (1) [RBF]: f_w = f_10, f_o = Σ_{i<10} f_i / 10, and
    // f_a = R/(N + R) ≈ f_o since every f_i is tiny (Eqs. (2)-(3)).
    assert!((log10_of(m, "fp_worst") - 60.0 * (600.0f64 / 1e12).log10()).abs() < 1e-6);
    let sum: f64 = (1..10).map(|i| f64::from(i).powi(60)).sum();
    let oracle = 60.0 * (60.0f64 / 1e12).log10() + sum.log10() - 1.0;
    assert!((log10_of(m, "fp_oracle") - oracle).abs() < 1e-6, "{m:?}");
    assert!((log10_of(m, "fp_lower") - oracle).abs() < 1e-6, "{m:?}");
}

#[test]
fn issue_17_model_pbf_prints_fps_below_1e_308() {
    let rows = run("model pbf --bits 1e12 --distinct 1 --frequency 1 --max-hashes 64").unwrap();
    let m = &rows[0];
    // One filter of 10^12 bits for one item: fp = 2^(−ln2·m) = e^(−ln²2·10^12) (Eq. (10)
    // [PBF]); rounded with k = 64 hashes: (1 − (1 − 10^-12)^64)^64 ≈ (64/10^12)^64.
    let ln2 = std::f64::consts::LN_2;
    let want = -ln2 * ln2 * 1e12 / std::f64::consts::LN_10;
    assert!(
        (log10_of(m, "fp") - want).abs() < 1e-9 * want.abs(),
        "{m:?}"
    );
    let rounded = 64.0 * (64.0f64 / 1e12).log10();
    assert!((log10_of(m, "fp_rounded") - rounded).abs() < 1e-6, "{m:?}");
    assert!((log10_of(m, "fp_uniform") - rounded).abs() < 1e-6, "{m:?}");
}

#[test]
fn issue_17_model_apbbf_prints_fps_below_1e_308() {
    let rows = run(
        "model apbbf --hashes 64 --extra-slices 1 --block-bits 4096 --block-hashes 64 --window 1000",
    )
    .unwrap();
    let m = &rows[0];
    for key in ["fp", "fp_paper", "fp_apbf"] {
        assert!(log10_of(m, key) < -308.0, "{key}: {m:?}");
    }
    // fp_apbf: some kb = 4096 consecutive of the kb + lb = 4160 slices with the paper's
    // fills r_i = (i+1)/(2kb) for i < kb, 1/2 after (Section 5.3 [APBF]). Window s
    // matches with probability Π_{i=s}^{s+kb−1} r_i: F lies between the largest window
    // and the sum over windows (union bound).
    let (kb, lb) = (4096usize, 64usize);
    let ln_r: Vec<f64> = (0..kb + lb)
        .map(|i| {
            if i < kb {
                (i + 1) as f64 / (2 * kb) as f64
            } else {
                0.5
            }
        })
        .map(f64::ln)
        .collect();
    let windows: Vec<f64> = (0..=lb).map(|s| ln_r[s..s + kb].iter().sum()).collect();
    let top = windows.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let union = top + windows.iter().map(|w| (w - top).exp()).sum::<f64>().ln();
    let got = log10_of(m, "fp_apbf") * std::f64::consts::LN_10;
    assert!(
        top - 1e-9 <= got && got <= union + 1e-9,
        "{top} <= {got} <= {union}"
    );
}

#[test]
fn issue_17_model_rbf_sigma_bounded_prints_fp_below_1e_308() {
    // M = 10^12, k = 64, σ = 64, non-retaining: a cycle's first message sees 0 bits and
    // sets 64 (a collision has chance C(64,2)/M = 2e-9), the second sees 64 and
    // recycles. f_σ¹ = ρ(64)/2 = (64/10^12)^64/2 (Eq. (18) [RBF]) to 1e-8 relative.
    let rho = 64.0 * (64.0f64 / 1e12).log10();
    let rows = run("model rbf --bits 1e12 --hashes 64 --recycle-bits 64").unwrap();
    let m = &rows[0];
    assert_eq!(m["method"], "exact");
    let want = rho - 2f64.log10();
    assert!((log10_of(m, "fp_avg") - want).abs() < 1e-8, "{m:?}");
    assert!((log10_of(m, "fp_avg_paper") - want).abs() < 1e-8, "{m:?}");
    // Two phases: the frozen filter holds the 64 bits of the recycled cycle, so
    // fp_frozen = ρ(64) and f_σ² = ρ(64)/2 + ρ(64) (Eq. (26) [RBF]).
    let rows = run("model rbf --bits 2e12 --hashes 64 --recycle-bits 64 --phases 2").unwrap();
    let m = &rows[0];
    assert!((log10_of(m, "fp_frozen") - rho).abs() < 1e-8, "{m:?}");
    let want = rho + 1.5f64.log10();
    assert!((log10_of(m, "fp_avg") - want).abs() < 1e-8, "{m:?}");
    // The fluid limit too: a positive FP printed as text, never 0.
    let rows =
        run("model rbf --bits 1e12 --hashes 64 --recycle-bits 1000000 --method fluid").unwrap();
    let m = &rows[0];
    assert_eq!(m["method"], "fluid");
    // f ≈ ∫ x^64/(1−x) dx / ∫ dx/(1−x) ≈ s^64/65 at s = σ/M = 10^-6 (module doc of fluid).
    let want = 64.0 * (1e6f64 / 1e12).log10() - 65f64.log10();
    assert!((log10_of(m, "fp_avg") - want).abs() < 1e-3, "{m:?}");
}

#[test]
fn issue_17_model_pbf_exact_zero_prints_0() {
    // No queried set holds an item: the FP is exactly 0 and printed so.
    let rows = run("model pbf --bits 10000 --distinct 0,1 --frequency 2,0").unwrap();
    assert_eq!(rows[0]["fp"].as_f64(), Some(0.0));
}
