//! Plot series: bits per item against the FP target, for every family, on one chart.
//!
//! The query's requirement is planned again at each target of [`TARGETS`] (everything
//! else unchanged); each family's point is the least bits per item of its candidates.
//! A family absent at a target (excluded, or over a budget) has `null` there.

use crate::query::{fields, requirement};
use bfopt_plan::plan;
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
            let best = row[i].as_f64().map_or(c.bits_per_item, |b| b.min(c.bits_per_item));
            row[i] = json!(best);
        }
    }
    json!({ "targets": TARGETS, "families": families })
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
}
