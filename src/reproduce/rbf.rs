//! Figure 3 [RBF]: the one-phase σ-bounded RBF's average FP `f_σ¹` (Eq. (18)) against
//! simulation, M = 1000 bits, messages drawn from a pool of 1000, epochs of 100 000
//! arrivals, 99% intervals. The paper does not state its `k`; this uses `k = 3`.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
use bfopt_validation::experiments::rbf::{simulate, RbfSimConfig, RbfStream};
use bfopt_validation::filters::rbf::RbfConfig;
use serde_json::json;

/// Figure 3 [RBF].
pub const FIGURE_3: Reproduction = Reproduction {
    id: "rbf-figure3",
    source: "Figure 3 [RBF]",
    title: "one-phase RBF: f_σ¹ against simulation, M = 1000, k = 3",
    build: figure_3,
};

const BITS: u64 = 1000;
const HASHES: u32 = 3;

fn figure_3(o: &Options) -> Result<Reproduced, CliError> {
    let err = |e| CliError::from_model(e, &[]);
    let mut out = Reproduced {
        columns: ["sigma", "fp_model", "fp_measured", "fp_lo", "fp_hi"]
            .map(String::from)
            .to_vec(),
        ..Reproduced::default()
    };
    let (mut model, mut sim) = (vec![], vec![]);
    for (i, sigma) in (100..=900).step_by(100).enumerate() {
        let p = RbfParams::new(
            BITS,
            HASHES,
            sigma,
            1,
            Hashing::Colliding,
            Recycling::NonRetaining,
        )
        .map_err(err)?;
        let f = p.metrics(Method::Exact).map_err(err)?.fp_avg;
        let r = simulate(&RbfSimConfig {
            filter: RbfConfig::from_params(&p),
            stream: RbfStream::Pool { size: 1000 },
            epochs: 7 * o.scale,
            arrivals: 100_000,
            seed: o.seed + i as u64,
            confidence: 0.99,
        })
        .map_err(err)?;
        let m = &r.fp_instance;
        if !m.interval.contains(f) {
            out.differences.push(format!(
                "sigma = {sigma}: f = {f:.5} outside the measured 99% interval [{:.5}, {:.5}]",
                m.interval.lo, m.interval.hi
            ));
        }
        out.rows.push(vec![
            json!(sigma),
            json!(f),
            json!(m.mean),
            json!(m.interval.lo),
            json!(m.interval.hi),
        ]);
        model.push((sigma as f64, f));
        sim.push((sigma as f64, m.mean, m.interval.lo, m.interval.hi));
    }
    out.plot = Some(Plot {
        x_label: "recycle threshold σ (bits set)".into(),
        y_label: "average false-positive rate".into(),
        log_y: true,
        series: vec![
            Series::line("f_σ¹, Eq. (18)", model),
            Series::points("simulated, 99% interval", sim),
        ],
    });
    Ok(out)
}
