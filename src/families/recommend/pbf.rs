//! The temporal-membership rows of `bfopt recommend --horizon T --query-length Q
//! --pairs n` ([PBF], issue 9).

use super::{Candidate, Proposal, Requirement, Shape};
use bfopt_models::pbf::{fp_sbf, BoundRequest};

/// Temporal membership (Sections 3-5 [PBF]): PBF-2, PBF-1 at granularities 2..=16, and
/// the single filter of (item, timestamp) pairs probed once per timestamp (Eq. 4 [PBF]),
/// each sized for the worst query of length `|q|` with bits split evenly over filters:
/// every pair enters `insertions` filters, a query probes at most `max_probes`, each
/// probe at FP `1 − (1 − p)^(1/max_probes)` ([`Bound::bits_levels`]). A workload-aware
/// split (`bfopt optimize pbf --trace`) needs fewer bits.
pub(super) fn pbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Temporal {
        horizon,
        query_length,
        pairs,
    } = req.shape
    else {
        return Err(Proposal::Excluded(
            "pbf: temporal membership; needs --horizon --query-length --pairs".into(),
        ));
    };
    let mut out = Vec::new();
    let mut g = 1u64;
    while g <= 16 && g <= query_length {
        let r = BoundRequest::new(pairs, horizon, req.fp, query_length, g)?;
        let b = r.bound();
        out.push(Candidate {
            family: "pbf",
            design: if g == 1 {
                "pbf-2".into()
            } else {
                format!("pbf-1 g={g}")
            },
            parameters: format!("filters per pair={} probes<={}", b.insertions, b.max_probes),
            bits: b.bits_levels.ceil() as u64,
            accesses_insert: b.insertions as f64,
            accesses_query: b.max_probes as f64,
            false_negatives: "none",
            slack: 0,
            fp: req.fp,
            fp_kind: "worst query of length |q| (even split)",
            note: "time-interval tree of filters: probes grow with log |q|",
            npws: None,
            validator: Err("checked by `bfopt validate --family pbf`".into()),
        });
        g *= 2;
    }
    let per_probe = -((-req.fp).ln_1p() / query_length as f64).exp_m1();
    let bits = (pairs as f64 * -per_probe.ln() / (std::f64::consts::LN_2.powi(2))).ceil();
    out.push(Candidate {
        family: "pbf",
        design: "single-filter (pairs)".into(),
        parameters: format!("probes={query_length}"),
        bits: bits as u64,
        accesses_insert: 1.0,
        accesses_query: query_length as f64,
        false_negatives: "none",
        slack: 0,
        fp: fp_sbf(per_probe, query_length),
        fp_kind: "exact for a query of length |q| (Eq. 4)",
        note: "baseline: one filter of (item, time) pairs, one probe per timestamp",
        npws: None,
        validator: Err("checked by `bfopt validate --family pbf`".into()),
    });
    Ok(out)
}
