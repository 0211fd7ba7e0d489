//! Plot series: bits per item against the FP target, for every family, on one chart
//! ([`bits_against_fp`]); the FP of a window design over one generation
//! ([`fp_over_generation`]).
//!
//! The query's requirement is planned again at each target of [`TARGETS`] (everything
//! else unchanged); each family's point is the least bits per item of its candidates.
//! A family absent at a target (excluded, or over a budget) has `null` there.

use crate::query::{fields, requirement};
use bfopt_models::apbf::ApbfParams;
use bfopt_models::classic::{ClassicParams, Layout};
use bfopt_plan::{plan, Params};
use serde_json::{json, Map, Value};

/// FP targets of the chart, 10^-1 to 10^-6 by half decades.
pub const TARGETS: [f64; 11] = [
    1e-1, 3.16e-2, 1e-2, 3.16e-3, 1e-3, 3.16e-4, 1e-4, 3.16e-5, 1e-5, 3.16e-6, 1e-6,
];

/// `{"targets": [...], "families": {family: [bits per item or null, ...]}}`, families in
/// order of first appearance, or `{"errors"}` as the query's.
pub fn bits_against_fp(query: &str) -> Value {
    let f = match fields(query) {
        Ok(f) => f,
        Err(errors) => return json!({ "errors": errors }),
    };
    let mut families: Map<String, Value> = Map::new();
    for (i, &target) in TARGETS.iter().enumerate() {
        let mut at = f.clone();
        at.insert("fp".into(), target.to_string());
        let req = match requirement(&at) {
            Ok(r) => r,
            Err(errors) => return json!({ "errors": errors }),
        };
        let Ok(p) = plan(&req) else { continue };
        for c in &p.candidates {
            let row = families
                .entry(c.family.to_string())
                .or_insert_with(|| json!(vec![Value::Null; TARGETS.len()]));
            let best = row[i]
                .as_f64()
                .map_or(c.bits_per_item, |b| b.min(c.bits_per_item));
            row[i] = json!(best);
        }
    }
    json!({ "targets": TARGETS, "families": families })
}

/// Points of an FP curve over one generation.
const CYCLE_POINTS: u64 = 40;

/// FP over one generation of a window design, for candidate `index` of the query's plan:
///
/// * APBF (unblocked): [`ApbfParams::fp_at_phase`] of the design's `k`, `l` and slices,
///   after `j = 1..=g` insertions of the current generation;
/// * rotating classic filters: the newest filter holds `j` insertions and the `r − 1`
///   others a full generation `g` each, queried together:
///   `1 − (1 − f(g))^(r−1)·(1 − f(j))`, `f(n)` the classic model FP of one filter of
///   `m` bits and `k` hashes holding `n` items ([`ClassicParams::fp`]).
///
/// Returns `{"design", "generation", "points": [[j, fp], ...], "fp": the candidate's
/// figure}`, or `{"none": why}` for designs without such a curve here.
pub fn fp_over_generation(query: &str, index: usize) -> Value {
    let req = match fields(query).and_then(|f| requirement(&f)) {
        Ok(r) => r,
        Err(errors) => return json!({ "errors": errors }),
    };
    let Ok(p) = plan(&req) else {
        return json!({ "none": "no plan" });
    };
    let Some(c) = p.candidates.get(index) else {
        return json!({ "none": format!("no candidate {index}") });
    };
    let curve = match c.params {
        Params::Apbf {
            k,
            l,
            g,
            slice_bits,
            block_bits: None,
            ..
        } => apbf_curve(k, l, g, slice_bits),
        Params::Rotating {
            r,
            g,
            m,
            k,
            block_bits,
        } => rotating_curve(r, g, m, k, block_bits),
        _ => None,
    };
    match curve {
        Some((g, points)) => {
            json!({ "design": c.design, "generation": g, "points": points, "fp": c.fp })
        }
        None => json!({ "none": format!("no FP-over-a-generation curve for {}", c.design) }),
    }
}

/// The insertion counts `j` sampled over a generation of `g`.
fn samples(g: u64) -> Vec<u64> {
    let mut js: Vec<u64> = (1..=CYCLE_POINTS)
        .map(|i| (g * i).div_ceil(CYCLE_POINTS).max(1))
        .collect();
    js.dedup();
    js
}

/// The APBF's FP after `j` insertions of a generation (its own sizing must give `g`).
fn apbf_curve(k: u32, l: u32, g: u64, slice_bits: u64) -> Option<(u64, Vec<[f64; 2]>)> {
    let a = ApbfParams::new(k, l)
        .and_then(|a| a.with_slice_bits(slice_bits))
        .ok()?;
    if a.sizing()?.generation != g {
        return None;
    }
    let pts = samples(g)
        .into_iter()
        .map(|j| [j as f64, a.fp_at_phase(j as f64 / g as f64)])
        .collect();
    Some((g, pts))
}

/// The rotating ring's FP after `j` insertions into its newest filter.
fn rotating_curve(
    r: u32,
    g: u64,
    m: u64,
    k: u32,
    block_bits: Option<u64>,
) -> Option<(u64, Vec<[f64; 2]>)> {
    let layout = block_bits.map_or(Layout::Standard, |block_bits| Layout::Blocked {
        block_bits,
    });
    let f = |n: u64| ClassicParams::new(m, k, n, layout).map(|p| p.fp()).ok();
    let full = f(g)?;
    let pts = samples(g)
        .into_iter()
        .map(|j| {
            let fj = f(j)?;
            let miss = (f64::from(r - 1) * (-full).ln_1p() + (-fj).ln_1p()).exp();
            Some([j as f64, -(miss.ln()).exp_m1()])
        })
        .collect::<Option<Vec<_>>>()?;
    Some((g, pts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_grow_as_the_target_tightens() {
        let s = bits_against_fp(r#"{"fp": "0.01", "capacity": "1e6"}"#);
        let classic: Vec<f64> = s["families"]["classic"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(classic.len(), TARGETS.len());
        assert!(classic.windows(2).all(|w| w[0] < w[1]), "{classic:?}");
        // ln(1/p)/ln²2 bits per item at 1%: 9.59 (the exact design, 9 592 956 / 10^6).
        assert!((classic[2] - 9.59).abs() < 0.01, "{}", classic[2]);
    }

    #[test]
    fn window_fp_rises_over_a_generation_to_the_design_figure() {
        let q = r#"{"fp": "0.01", "window": "1e5"}"#;
        let p = crate::query::recommend(q);
        let cands = p["plan"]["candidates"].as_array().unwrap();
        let mut drawn = 0;
        for (i, c) in cands.iter().enumerate() {
            let s = fp_over_generation(q, i);
            let Some(points) = s["points"].as_array() else {
                continue;
            };
            drawn += 1;
            let fp: Vec<f64> = points.iter().map(|p| p[1].as_f64().unwrap()).collect();
            assert!(
                fp.windows(2).all(|w| w[0] <= w[1]),
                "{}: {fp:?}",
                c["design"]
            );
            // The last point is the worst case, the figure the plan reports.
            let last = *fp.last().unwrap();
            let want = c["fp"].as_f64().unwrap();
            assert!(
                (last - want).abs() <= 1e-9 * want,
                "{}: {last} vs {want}",
                c["design"]
            );
        }
        assert!(drawn >= 2, "the APBF and rotating rows have curves");
    }
}
