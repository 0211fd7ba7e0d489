//! The classic calculator: any three of `n` (items), `p` (FP), `m` (bits), `k` (hashes)
//! give the fourth, with the FP by the exact law beside the usual formula.
//!
//! Fields are the CLI's `optimize classic` flags prefixed by `classic-`
//! (`classic-items`, `classic-fp`, `classic-bits`, `classic-hashes`); the layout is the
//! standard one. Each answer comes from `bfopt_models::classic`:
//!
//! | given | answer | function |
//! |---|---|---|
//! | n, m, k | p, by the exact occupancy law where computable, else `(1-(1-1/m)^(kn))^k` | [`ClassicParams::metrics`] |
//! | m, k, p | the largest n with FP <= p | [`capacity`] |
//! | n, m, p | the k minimising the FP (checked against p) | [`best_k`] |
//! | n, p, k | the least m with FP <= p at that k (the FP falls as m grows) | [`least_bits`] |
//! | n, p | the least m over k, and that k | [`design`] |

use crate::exit::CliError;
use crate::query::{fields, keyed, parse_message};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::classic::{
    best_k, capacity, design, fp_standard, ClassicParams, ClassicRequirement, Layout,
};
use bfopt_models::ModelError;
use serde_json::{json, Map, Value};

/// Model parameter names to the calculator's fields.
const NAMES: &[(&str, &str)] = &[
    ("m", "--classic-bits"),
    ("k", "--classic-hashes"),
    ("n", "--classic-items"),
    ("fp", "--classic-fp"),
];

/// A model error keyed by the calculator's field.
fn model_error(e: ModelError) -> Value {
    keyed(&CliError::from_model(e, NAMES))
}

/// The least `m` whose model FP with `k` hashes and `n` items is at most `fp`
/// (bisection over `1..=2^50`; the FP falls as `m` grows).
///
/// # Errors
/// Invalid `n`, `k`, `fp`; [`ModelError::Infeasible`] when even `m = 2^50` misses `fp`.
pub fn least_bits(n: u64, k: u32, fp: f64) -> Result<u64, ModelError> {
    ClassicRequirement::new(fp, n, Layout::Standard)?;
    let (mut lo, mut hi) = (*ClassicParams::M.start(), *ClassicParams::M.end());
    // Invalid k or n are reported; an m too small for k simply misses the target.
    ClassicParams::new(hi, k, n, Layout::Standard)?;
    let meets = |m: u64| ClassicParams::new(m, k, n, Layout::Standard).is_ok_and(|p| p.fp() <= fp);
    if !meets(hi) {
        return Err(ModelError::infeasible(
            format!("fp <= {fp} with n = {n}, k = {k}"),
            format!("no m <= {hi} bits"),
        ));
    }
    if meets(lo) {
        return Ok(lo);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// Reads one field with `parse`, collecting its parse error.
fn read<T>(
    f: &crate::query::Fields,
    field: &str,
    parse: fn(&str) -> Result<T, String>,
    errors: &mut Map<String, Value>,
) -> Option<T> {
    let text = f.get(field)?;
    parse(text)
        .map_err(|why| errors.insert(field.into(), parse_message(field, text, &why).into()))
        .ok()
}

/// The calculator's answer: `{"solved", "n", "m", "k", "fp", "fp_law", "fp_formula",
/// "fp_exact", "bits_per_item", "fill"}` (`solved` names the field computed; `meets`
/// whether the given `p` is met when `k` was chosen), or `{"errors"}`.
pub fn classic(query: &str) -> Value {
    let f = match fields(query) {
        Ok(f) => f,
        Err(errors) => return json!({ "errors": errors }),
    };
    let mut errors = Map::new();
    let n = read(&f, "classic-items", parse_count, &mut errors);
    let p = read(&f, "classic-fp", parse_real, &mut errors);
    let m = read(&f, "classic-bits", parse_bits, &mut errors);
    let k = read(&f, "classic-hashes", parse_count, &mut errors)
        .map(|k| u32::try_from(k).unwrap_or(u32::MAX));
    if !errors.is_empty() {
        return json!({ "errors": errors });
    }
    let solved = match (n, p, m, k) {
        (Some(n), _, Some(m), Some(k)) => Ok(("fp", m, k, n)),
        (None, Some(p), Some(m), Some(k)) => {
            capacity(m, k, p, Layout::Standard).map(|n| ("n", m, k, n))
        }
        (Some(n), Some(_), Some(m), None) => {
            best_k(m, n, Layout::Standard).map(|(k, _)| ("k", m, k, n))
        }
        (Some(n), Some(p), None, Some(k)) => least_bits(n, k, p).map(|m| ("m", m, k, n)),
        (Some(n), Some(p), None, None) => ClassicRequirement::new(p, n, Layout::Standard)
            .and_then(|r| design(&r))
            .map(|d| ("m", d.params.m(), d.params.k(), n)),
        _ => {
            return json!({ "errors": { "classic": "give three of n (items), p (fp), m (bits), k (hashes), or n and p" } })
        }
    };
    let (solved, m, k, n) = match solved {
        Ok(s) => s,
        Err(e) => return json!({ "errors": model_error(e) }),
    };
    let params = match ClassicParams::new(m, k, n, Layout::Standard) {
        Ok(x) => x,
        Err(e) => return json!({ "errors": model_error(e) }),
    };
    let x = params.metrics();
    json!({
        "solved": solved,
        "n": n,
        "m": m,
        "k": k,
        "fp": x.fp,
        "fp_law": x.fp_law,
        "fp_formula": fp_standard(m as f64, f64::from(k), n as f64),
        "fp_exact": x.fp_exact,
        "meets": p.is_none_or(|p| x.fp <= p),
        "bits_per_item": x.bits_per_item,
        "fill": x.fill,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calc(pairs: &[(&str, &str)]) -> Value {
        let m: std::collections::BTreeMap<&str, &str> = pairs.iter().copied().collect();
        classic(&serde_json::to_string(&m).unwrap())
    }

    #[test]
    fn each_missing_value_is_solved() {
        // The module's example: n = 10^6 at 1% needs m = 9 592 956 with k = 7.
        let d = calc(&[("classic-items", "1e6"), ("classic-fp", "0.01")]);
        assert_eq!(
            (d["m"].as_u64(), d["k"].as_u64()),
            (Some(9_592_956), Some(7))
        );
        let m = calc(&[
            ("classic-items", "1e6"),
            ("classic-fp", "0.01"),
            ("classic-hashes", "7"),
        ]);
        assert_eq!(m["m"].as_u64(), Some(9_592_956));
        assert_eq!(m["solved"], "m");
        let k = calc(&[
            ("classic-items", "1e6"),
            ("classic-fp", "0.01"),
            ("classic-bits", "9592956"),
        ]);
        assert_eq!(
            (k["k"].as_u64(), k["meets"].as_bool()),
            (Some(7), Some(true))
        );
        let n = calc(&[
            ("classic-bits", "9592956"),
            ("classic-hashes", "7"),
            ("classic-fp", "0.01"),
        ]);
        assert!(n["n"].as_u64().unwrap() >= 1_000_000);
        // Small filters: the exact law is above the usual formula (m = 1000, k = 7, n = 100).
        let p = calc(&[
            ("classic-items", "100"),
            ("classic-bits", "1000"),
            ("classic-hashes", "7"),
        ]);
        assert_eq!(p["fp_law"], "exact");
        assert!(p["fp"].as_f64().unwrap() > p["fp_formula"].as_f64().unwrap());
    }

    #[test]
    fn bad_values_name_the_field() {
        let e = calc(&[
            ("classic-items", "100"),
            ("classic-bits", "1000"),
            ("classic-hashes", "99"),
        ]);
        let msg = e["errors"]["classic-hashes"].as_str().unwrap();
        assert!(msg.starts_with("--classic-hashes = 99: allowed"), "{msg}");
        let e = calc(&[("classic-items", "x"), ("classic-fp", "0.01")]);
        assert!(e["errors"]["classic-items"]
            .as_str()
            .unwrap()
            .contains("not a number"));
        assert!(calc(&[("classic-items", "5")])["errors"]["classic"].is_string());
    }
}
