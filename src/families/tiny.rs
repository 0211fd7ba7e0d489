//! Probabilities below the smallest `f64` in `model` output (issue 17): no false-positive
//! rate is printed as 0 unless it is exactly 0.
//!
//! An FP under 2.2e-308 underflows to 0 in `f64` (`model classic --bits 1e12 --hashes 60
//! --items 1` has FP about 10^-600). Where the model computes it in log space the metric
//! is printed as text in scientific notation (`"1.234e-600"`) with a `<key>_log10`
//! metric beside it; where it does not, the verb exits 3 naming the metric and the
//! smallest probability it can print.

use crate::exit::CliError;
use crate::report::Row;
use serde_json::Value;

/// The smallest probability printed as a number, `f64::MIN_POSITIVE` (about 2.2e-308).
pub const SMALLEST: f64 = f64::MIN_POSITIVE;

/// Whether a metric key names a probability (`fp`, `fp_*`, `posterior`, `posterior_*`,
/// but not the logs `*_log10` nor `posterior_eq34_double`, an unnormalised ratio).
pub fn is_probability(key: &str) -> bool {
    (key == "fp" || key.starts_with("fp_") || key == "posterior" || key.starts_with("posterior_"))
        && !key.ends_with("_log10")
        && key != "posterior_eq34_double"
}

/// `e^ln_p` as text with four significant digits, `"1.234e-600"`, at any magnitude.
pub fn text_from_ln(ln_p: f64) -> String {
    let log10 = ln_p / std::f64::consts::LN_10;
    let mut exponent = log10.floor();
    let mut mantissa = 10f64.powf(log10 - exponent);
    if (mantissa * 1000.0).round() >= 10_000.0 {
        mantissa = 1.0;
        exponent += 1.0;
    }
    format!("{mantissa:.3}e{exponent}")
}

/// Replaces each probability metric of `row` that underflowed to 0 (`exactly_zero` is
/// false: the model says it is positive) by its text from `logs` (`(key, ln p)` pairs,
/// computed only when a metric underflowed) and adds `<key>_log10`. Where `e^ln p` is a
/// normal `f64` (the `f64` form lost it in an intermediate, not the result: `model pbf
/// --bits 93122 --distinct 3.64e1,2.45e1 --frequency 1e308,0` has FP 1.551e-226, found by
/// the `models` fuzz target, issue 17), the metric is that number instead: text is kept
/// for values below the smallest normal `f64`.
///
/// # Errors
/// [`CliError::Infeasible`] (exit 3) naming the first underflowed metric without a log
/// in `logs`, and [`SMALLEST`].
pub fn underflow(
    mut row: Row,
    exactly_zero: bool,
    logs: impl FnOnce() -> Vec<(&'static str, f64)>,
    verb: &str,
) -> Result<Row, CliError> {
    if exactly_zero {
        return Ok(row);
    }
    let zeros: Vec<String> = row
        .metrics
        .iter()
        .filter(|(key, v)| is_probability(key) && v.as_f64() == Some(0.0))
        .map(|(key, _)| key.clone())
        .collect();
    if zeros.is_empty() {
        return Ok(row);
    }
    let logs = logs();
    for key in zeros {
        match logs.iter().find(|(k, ln)| *k == key && ln.is_finite()) {
            Some(&(_, ln_p)) if ln_p.exp() >= f64::MIN_POSITIVE => {
                row.metrics.insert(key.clone(), Value::from(ln_p.exp()));
            }
            Some(&(_, ln_p)) => {
                row.metrics
                    .insert(key.clone(), Value::String(text_from_ln(ln_p)));
                row = row.metric(
                    &format!("{key}_log10"),
                    ln_p / std::f64::consts::LN_10,
                );
            }
            None => {
                return Err(CliError::Infeasible(format!(
                    "{verb}: {key} of this design is positive but below {SMALLEST:e}, the smallest probability this model computes: it has no log-space form for {key}"
                )))
            }
        }
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_four_digits_at_any_magnitude() {
        // 1.234e-400 is below the smallest f64: its log, built in log space.
        let ln = 1.234f64.ln() - 400.0 * std::f64::consts::LN_10;
        assert_eq!(text_from_ln(ln), "1.234e-400");
        assert_eq!(text_from_ln((0.5f64).ln()), "5.000e-1");
        // 10^-600 exactly: no "10.000e-601" from rounding the mantissa.
        assert_eq!(text_from_ln(-600.0 * std::f64::consts::LN_10), "1.000e-600");
        assert_eq!(text_from_ln(9.99999e-50f64.ln()), "1.000e-49");
    }

    #[test]
    fn underflow_prints_text_or_exits_3() {
        let row = Row::new(
            "x",
            serde_json::json!({}),
            serde_json::json!({"fp": 0.0, "fill": 0.0}),
        );
        let out = underflow(row.clone(), false, || vec![("fp", -1000.0)], "model x").unwrap();
        assert_eq!(out.metrics["fp"], Value::String(text_from_ln(-1000.0)));
        assert!(out.metrics["fp_log10"].as_f64().unwrap() < -434.0);
        assert_eq!(out.metrics["fill"], 0.0, "not a probability metric");
        // A log whose value is a normal f64 gives that number, without text or log10.
        let out = underflow(row.clone(), false, || vec![("fp", -520.0)], "model x").unwrap();
        assert_eq!(out.metrics["fp"], Value::from((-520f64).exp()));
        assert!(!out.metrics.contains_key("fp_log10"));
        assert_eq!(underflow(row.clone(), true, Vec::new, "").unwrap(), row);
        let err = underflow(row, false, Vec::new, "model x").unwrap_err();
        assert!(err.to_string().contains("2.2250738585072014e-308"), "{err}");
    }
}
