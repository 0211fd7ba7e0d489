//! Plot series: bits per item against the FP target, for every family, on one chart
//! ([`bits_against_fp`]); the FP of a window design over one generation, cycle or block
//! ([`fp_over_generation`]).
//!
//! The query's requirement is planned again at each target of [`TARGETS`] (everything
//! else unchanged); each family's point is the least bits per item of its candidates.
//! A family absent at a target (excluded, or over a budget) has `null` there.

use crate::query::{fields, requirement};
use bfopt_models::apbf::{ApbbfParams, ApbfParams};
use bfopt_models::classic::{ClassicParams, Layout};
use bfopt_models::numeric::either;
use bfopt_models::rbf::transitions::rho;
use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
use bfopt_models::timing::{BtbfModel, BtbfParams};
use bfopt_models::workload::Distinct;
use bfopt_plan::{plan, FpKind, Params};
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

/// FP over one generation (or cycle, or block) of a window design, for candidate `index`
/// of the query's plan, each from its model's own per-phase function:
///
/// * APBF (unblocked): [`ApbfParams::fp_at_phase`] of the design's `k`, `l` and slices,
///   after `j = 1..=g` insertions of the current generation;
/// * APBBF (blocked): [`ApbbfParams::fp_after`] after `j = 1..=g` insertions, segment
///   `i < k` holding `Binomial(i·g + j, 1/blocks)` items per block;
/// * rotating classic filters: the newest filter holds `j` insertions and the `r − 1`
///   others a full generation `g` each, queried together:
///   `1 − (1 − f(g))^(r−1)·(1 − f(j))`, `f(n)` the classic model FP of one filter of
///   `m` bits and `k` hashes holding `n` items ([`ClassicParams::fp`]);
/// * RBF (colliding, non-retaining, as the planner sizes it): over one cycle, against the
///   bits `i = 1..=σ` set in the active filter, `ρ(i) = (i/M)^k` (Eq. (17) [RBF],
///   [`rho`]); with two phases the frozen filter's mean FP `F` joins it,
///   `1 − (1 − ρ(i))(1 − F)` (Eq. (26) [RBF], [`RbfMetrics::fp_frozen`] of the fluid
///   model the planner uses);
/// * standard BTBF on distinct insertions: over one block, against the offset `b`, the FP
///   of an expired item [`BtbfModel::fp_at_age`] (Section 3.2.2 [TBF]); its worst offset
///   is at most the plan's worst-offset figure, whose horizon `w + B − 1` bounds every
///   offset's.
///
/// Returns `{"design", "generation": the x extent, "xlabel", "points": [[x, fp], ...],
/// "fp": the candidate's figure}`, or `{"none": why}` for designs without such a curve
/// here.
///
/// [`RbfMetrics::fp_frozen`]: bfopt_models::rbf::RbfMetrics::fp_frozen
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
    let w = req.window_insertions();
    let generation = |g: u64| format!("insertions into the current generation (g = {g})");
    let curve = match (c.params.clone(), w) {
        (
            Params::Apbf {
                k,
                l,
                g,
                slice_bits,
                block_bits: None,
                ..
            },
            _,
        ) => apbf_curve(k, l, g, slice_bits).map(|(x, pts)| (x, generation(x), pts)),
        (
            Params::Apbf {
                k,
                l,
                g,
                block_bits: Some(block_bits),
                block_hashes: Some(block_hashes),
                ..
            },
            Some(w),
        ) => apbbf_curve(k, l, g, block_bits, block_hashes, w)
            .map(|(x, pts)| (x, generation(x), pts)),
        (
            Params::Rotating {
                r,
                g,
                m,
                k,
                block_bits,
            },
            _,
        ) => rotating_curve(r, g, m, k, block_bits).map(|(x, pts)| (x, generation(x), pts)),
        (
            Params::Rbf {
                m,
                filters,
                k,
                sigma,
            },
            _,
        ) => rbf_curve(m, filters, k, sigma).map(|(x, pts)| {
            (
                x,
                format!("bits set in the active filter over one cycle (sigma = {x})"),
                pts,
            )
        }),
        (
            Params::Btbf {
                m,
                k,
                bpt,
                block_size,
                padding,
            },
            Some(w),
        ) if c.fp_kind == FpKind::WorstBlockOffset => btbf_curve(m, k, bpt, block_size, padding, w)
            .map(|(x, pts)| {
                (
                    x,
                    format!("offset in the current block (B = {x} insertions)"),
                    pts,
                )
            }),
        _ => None,
    };
    match curve {
        Some((g, xlabel, points)) => json!({
            "design": c.design,
            "generation": g,
            "xlabel": xlabel,
            "points": points,
            "fp": c.fp,
        }),
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

/// The APBBF's FP after `j` insertions of a generation (its own sizing for the window
/// `w` must give `g`).
fn apbbf_curve(
    k: u32,
    l: u32,
    g: u64,
    block_bits: u32,
    block_hashes: u32,
    w: u64,
) -> Option<(u64, Vec<[f64; 2]>)> {
    let a = ApbbfParams::new(k, l, block_bits, block_hashes)
        .and_then(|a| a.with_window(w))
        .ok()?;
    if a.sizing()?.generation != g {
        return None;
    }
    let pts = samples(g)
        .into_iter()
        .map(|j| [j as f64, a.fp_after(j)])
        .collect();
    Some((g, pts))
}

/// The RBF's FP against the bits set in its active filter over one cycle (`1..=σ`).
fn rbf_curve(m: u64, filters: u32, k: u32, sigma: u64) -> Option<(u64, Vec<[f64; 2]>)> {
    let phases = u8::try_from(filters).ok()?;
    let p = RbfParams::new(
        m * u64::from(filters),
        k,
        sigma,
        phases,
        Hashing::Colliding,
        Recycling::NonRetaining,
    )
    .ok()?;
    let frozen = match phases {
        2 => p.metrics(Method::Fluid).ok()?.fp_frozen?,
        _ => 0.0,
    };
    let pts = samples(sigma)
        .into_iter()
        .map(|i| [i as f64, either(rho(m, k, i, Hashing::Colliding), frozen)])
        .collect();
    Some((sigma, pts))
}

/// The standard BTBF's FP of an expired item against the offset `b = 0..B` in the
/// current block, on distinct insertions.
fn btbf_curve(
    m: u64,
    k: u32,
    bpt: u32,
    block_size: u64,
    padding: u64,
    w: u64,
) -> Option<(u64, Vec<[f64; 2]>)> {
    let params = BtbfParams::new(m, k, bpt, block_size, w, padding).ok()?;
    let model = BtbfModel::new(params, Distinct::Identity);
    let mut offsets: Vec<u64> = samples(block_size).into_iter().map(|j| j - 1).collect();
    offsets.dedup();
    let pts = offsets
        .into_iter()
        .map(|b| [b as f64, model.fp_at_age(u64::MAX, b)])
        .collect();
    Some((block_size, pts))
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

    /// Every candidate of `q` whose design starts with `prefix` and has a curve:
    /// (design, fp figure, curve fp values, the curve's JSON).
    fn curves(q: &str, prefix: &str) -> Vec<(String, f64, Vec<f64>, Value)> {
        let p = crate::query::recommend(q);
        let cands = p["plan"]["candidates"].as_array().unwrap().clone();
        cands
            .iter()
            .enumerate()
            .filter(|(_, c)| c["design"].as_str().unwrap().starts_with(prefix))
            .filter_map(|(i, c)| {
                let s = fp_over_generation(q, i);
                let points = s["points"].as_array()?;
                let fp: Vec<f64> = points.iter().map(|p| p[1].as_f64().unwrap()).collect();
                Some((
                    c["design"].as_str().unwrap().to_string(),
                    c["fp"].as_f64().unwrap(),
                    fp,
                    s,
                ))
            })
            .collect()
    }

    #[test]
    fn window_fp_rises_over_a_generation_to_the_design_figure() {
        let all = curves(r#"{"fp": "0.01", "window": "1e5"}"#, "");
        let mut generation_designs = 0;
        for (design, want, fp, _) in &all {
            if !(design.starts_with("apb") || design.starts_with("rotating")) {
                continue;
            }
            assert!(fp.windows(2).all(|w| w[0] <= w[1]), "{design}: {fp:?}");
            generation_designs += 1;
            // The last point is the worst case, the figure the plan reports.
            let last = *fp.last().unwrap();
            assert!(
                (last - want).abs() <= 1e-9 * want,
                "{design}: {last} vs {want}"
            );
        }
        let designs: Vec<&str> = all.iter().map(|c| c.0.as_str()).collect();
        assert!(
            designs.contains(&"apbf") && designs.contains(&"apbbf"),
            "{designs:?}"
        );
        assert!(generation_designs >= 3, "{designs:?}");
    }

    #[test]
    fn rbf_cycle_brackets_its_long_run_average() {
        let rbf = curves(
            r#"{"fp": "0.01", "window": "1e4", "allow-fn": "0.05"}"#,
            "rbf/",
        );
        let designs: Vec<&str> = rbf.iter().map(|c| c.0.as_str()).collect();
        assert!(
            designs.contains(&"rbf/two-phase") && designs.contains(&"rbf/one-phase"),
            "{designs:?}"
        );
        for (design, avg, fp, s) in &rbf {
            assert!(fp.windows(2).all(|w| w[0] <= w[1]), "{design}: {fp:?}");
            // The long-run average is over the states of the cycle: between the FP
            // at the first sampled state and at σ.
            assert!(
                fp[0] <= *avg && *avg <= *fp.last().unwrap(),
                "{design}: {avg} {fp:?}"
            );
            assert!(s["xlabel"].as_str().unwrap().contains("sigma"));
            assert_eq!(
                s["points"].as_array().unwrap().last().unwrap()[0].as_f64(),
                s["generation"].as_f64()
            );
        }
    }

    #[test]
    fn btbf_offsets_stay_within_the_worst_offset_figure() {
        let q = r#"{"fp": "0.01", "window": "1e5"}"#;
        let p = crate::query::recommend(q);
        let cands = p["plan"]["candidates"].as_array().unwrap();
        let (i, c) = cands
            .iter()
            .enumerate()
            .find(|(_, c)| c["design"] == "btbf")
            .expect("a btbf row");
        let s = fp_over_generation(q, i);
        let fp: Vec<f64> = s["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[1].as_f64().unwrap())
            .collect();
        assert!(fp.len() >= 2, "{s}");
        // Each offset's horizon lies in [w, w + B − 1]: its FP lies between the
        // classic law at w and the plan's worst-offset figure at w + B − 1.
        let prm = &c["params"];
        let (m, k) = (prm["m"].as_f64().unwrap(), prm["k"].as_f64().unwrap());
        let at_w = (1.0 - (1.0 - 1.0 / m).powf(k * 1e5)).powf(k);
        let worst = c["fp"].as_f64().unwrap();
        for f in &fp {
            assert!(
                *f <= worst * (1.0 + 1e-12) && *f >= at_w * (1.0 - 1e-9),
                "{f} outside [{at_w}, {worst}]"
            );
        }
        // The FP varies over the block (the offsets' horizons differ).
        let (lo, hi) = fp
            .iter()
            .fold((f64::INFINITY, 0.0_f64), |(a, b), &f| (a.min(f), b.max(f)));
        assert!(hi > lo, "{fp:?}");
        assert!(s["xlabel"].as_str().unwrap().contains("block"));
    }
}
