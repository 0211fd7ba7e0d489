//! Figure 7 [SBF] (Section 6.5): zero cells at the stable point of the SBF and IBF1-IBF6,
//! `n = 512` cells, `k = 4`, `p = 5`, `M = 5`, importance uniform on 1..50.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::stable::{solve, IbfParams, ImportanceDist, Policy};
use bfopt_validation::experiments::stable::{simulate, StableSimConfig};
use serde_json::json;

/// Figure 7 [SBF].
pub const FIGURE_7: Reproduction = Reproduction {
    id: "sbf-figure7",
    source: "Figure 7 [SBF]",
    title: "zero cells at the stable point, n = 512, k = 4, p = 5, M = 5",
    build: figure_7,
};

/// Zero cells the thesis reads off its plot: SBF "around 50", IBF2 "nearly 400".
const PRINTED: [(Policy, f64); 2] = [(Policy::Sbf, 50.0), (Policy::Ibf2, 400.0)];

const CELLS: u64 = 512;

fn figure_7(o: &Options) -> Result<Reproduced, CliError> {
    let err = |e| CliError::from_model(e, &[]);
    let imp = ImportanceDist::linear(1, 50).map_err(err)?;
    let mut out = Reproduced {
        columns: [
            "policy",
            "zeros_model",
            "zeros_measured",
            "zeros_lo",
            "zeros_hi",
        ]
        .map(String::from)
        .to_vec(),
        ..Reproduced::default()
    };
    let (mut model, mut sim) = (vec![], vec![]);
    for (i, policy) in Policy::ALL.into_iter().enumerate() {
        let params = IbfParams::new(policy, CELLS, 4, 5, 5, imp.clone()).map_err(err)?;
        let zeros = solve(&params).map_err(err)?.zero_fraction() * CELLS as f64;
        let cfg = StableSimConfig::new(params, 20_000, 256, 4 * o.scale, o.seed + i as u64);
        let r = simulate(&cfg).map_err(err)?;
        let z = &r.zero_fraction;
        let (m, lo, hi) = (
            z.mean * CELLS as f64,
            z.interval.lo * CELLS as f64,
            z.interval.hi * CELLS as f64,
        );
        if !(lo..=hi).contains(&zeros) {
            out.differences.push(format!(
                "{policy}: model {zeros:.1} zeros outside the measured 99% interval [{lo:.1}, {hi:.1}]"
            ));
        }
        if let Some((_, printed)) = PRINTED.iter().find(|(p, _)| *p == policy) {
            out.differences.push(format!(
                "{policy}: the thesis reads about {printed} zeros; model {zeros:.1}, measured {m:.1}"
            ));
        }
        out.rows.push(vec![
            json!(policy.to_string()),
            json!(zeros),
            json!(m),
            json!(lo),
            json!(hi),
        ]);
        model.push((i as f64, zeros));
        sim.push((i as f64, m, lo, hi));
    }
    out.plot = Some(Plot {
        x_label: "policy: SBF, IBF1 … IBF6".into(),
        y_label: "zero cells of 512".into(),
        log_y: false,
        series: vec![
            Series::line("model (exact chain / mean field)", model),
            Series::points("simulated, 99% interval", sim),
        ],
    });
    Ok(out)
}
