//! Figure 9 [PBF]: FP against the query length on an EDGAR-like synthetic day (scaled
//! to 2% of the paper's size): the single filter of pairs (SBF, Eq. 4), PBF-1-opt and
//! PBF-2-opt, predicted from the built filters' sizes and measured on non-member
//! queries.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::pbf::Variant;
use bfopt_validation::experiments::pbf::{run, Method, PbfRunConfig, TraceSpec, TOLERANCE};
use serde_json::json;

/// Figure 9 [PBF].
pub const FIGURE_9: Reproduction = Reproduction {
    id: "pbf-figure9",
    source: "Figure 9 [PBF]",
    title: "FP against query length, EDGAR-like day at 2% scale",
    build: figure_9,
};

/// Share of the paper's day and memory (5·10^7 bits) simulated.
const SCALE: f64 = 0.02;

fn figure_9(o: &Options) -> Result<Reproduced, CliError> {
    let err = |e| CliError::from_model(e, &[]);
    let spec = TraceSpec::named("edgar", SCALE).map_err(err)?;
    let bits = (5e7 * SCALE) as u64;
    let methods = [
        Method::Sbf,
        Method::Opt(Variant::Pbf1),
        Method::Opt(Variant::Pbf2),
    ];
    let mut out = Reproduced {
        columns: [
            "method",
            "query_length",
            "fp_model",
            "fp_measured",
            "fp_lo",
            "fp_hi",
            "probes_per_query",
        ]
        .map(String::from)
        .to_vec(),
        ..Reproduced::default()
    };
    let mut series = Vec::new();
    for method in methods {
        let (mut model, mut sim) = (vec![], vec![]);
        for j in 4..=13u32 {
            let q = 1u64 << j;
            let r = run(&PbfRunConfig {
                spec,
                horizon: None,
                method,
                bits,
                query_length: q,
                queries: 2000 * o.scale,
                granularity: 4,
                k_max: 16,
                seed: o.seed,
                confidence: 0.99,
            })
            .map_err(err)?;
            let m = &r.measured;
            let band = TOLERANCE.rel_band;
            if !(r.predicted_fp >= m.interval.lo * (1.0 - band)
                && r.predicted_fp <= m.interval.hi * (1.0 + band))
            {
                out.differences.push(format!(
                    "{} |q| = {q}: model {:.5} outside the measured 99% interval [{:.5}, {:.5}]",
                    method.name(),
                    r.predicted_fp,
                    m.interval.lo,
                    m.interval.hi
                ));
            }
            if r.false_negatives > 0 {
                out.differences.push(format!(
                    "{} |q| = {q}: {} false negatives",
                    method.name(),
                    r.false_negatives
                ));
            }
            out.rows.push(vec![
                json!(method.name()),
                json!(q),
                json!(r.predicted_fp),
                json!(m.rate),
                json!(m.interval.lo),
                json!(m.interval.hi),
                json!(r.probes_per_query),
            ]);
            model.push((f64::from(j), r.predicted_fp));
            sim.push((f64::from(j), m.rate, m.interval.lo, m.interval.hi));
        }
        series.push(Series::line(format!("{} model", method.name()), model));
        series.push(Series::points(format!("{} measured", method.name()), sim));
    }
    out.plot = Some(Plot {
        x_label: "log2 |q| (query length)".into(),
        y_label: "false-positive rate".into(),
        log_y: true,
        series,
    });
    Ok(out)
}
