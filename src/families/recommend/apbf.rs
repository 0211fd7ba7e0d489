//! The APBF and APBBF rows of `bfopt recommend --window W` (issue 3, issue 9).
//!
//! With `--duplicates RATE` (insertions that repeat an item of the last `W`), the APBF
//! is sized on the repeats model (`bfopt_models::apbf::duplicates`): its predicted FP
//! is the worst case of that model and `--validate` feeds it such a stream. The APBBF
//! is not modelled with repeats: it stays sized for distinct insertions (repeats only
//! lower its fills, so its FP is an upper bound), and its row says so.

use super::{probes, validator, Candidate, Proposal, EPOCHS};
use crate::families::recommend::{Requirement, Shape};
use bfopt_models::apbf::{design, ApbbfParams, ApbfDesign, ApbfParams, ApbfRequirement, Structure};
use bfopt_validation::experiments::apbf::{self as apbf_sim, ApbfSimFilter};
use bfopt_validation::workload::Workload;

/// Block size and per-block hashes tried for the APBBF (Table 3 [APBF] uses `b = 8`).
const APBBF_BLOCKS: [(u32, u32); 2] = [(512, 4), (512, 8)];

/// The least-memory APBF and APBBF for `req` (the APBBF without `--duplicates`).
pub(super) fn apbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Window(w) = req.shape else {
        return Err(Proposal::Excluded(
            "apbf: a sliding-window structure; a static set needs --capacity designs".into(),
        ));
    };
    let mut base = ApbfRequirement::new(req.fp, w)?;
    if let Some(x) = req.max_npws {
        base = base.with_max_npws(x)?;
    }
    let plain_req = match req.duplicates {
        Some(d) => base.with_duplicates(d)?,
        None => base,
    };
    let plain = design(&plain_req)?;
    let blocked = APBBF_BLOCKS
        .iter()
        .filter_map(|&(bb, b)| base.blocked(bb, b).and_then(|r| design(&r)).ok())
        .min_by_key(|d| d.metrics.total_bits);
    let row = |d: ApbfDesign| {
        let repeats = matches!(d.structure, Structure::Apbf) && req.duplicates.is_some();
        let (name, block, note) = match d.structure {
            Structure::Apbf => (
                "apbf".to_string(),
                String::new(),
                if repeats {
                    "sized for --duplicates (repeats model); no false negatives in the window; k+l probes per query"
                } else {
                    "no false negatives in the window, ~1.4x classic bits; k+l probes per query"
                },
            ),
            Structure::Apbbf {
                block_bits,
                block_hashes,
            } => (
                "apbbf".to_string(),
                format!(" B={block_bits} b={block_hashes}"),
                "APBF with one cache line per segment: fewest accesses of the window designs",
            ),
        };
        let m = d.metrics;
        let filter = match d.structure {
            Structure::Apbf => ApbfParams::new(d.k, d.l)
                .and_then(|p| p.with_window(w))
                .map(ApbfSimFilter::Apbf),
            Structure::Apbbf {
                block_bits,
                block_hashes,
            } => ApbbfParams::new(d.k, d.l, block_bits, block_hashes)
                .and_then(|p| p.with_window(w))
                .map(ApbfSimFilter::Apbbf),
        };
        let workload = match req.duplicates {
            Some(duplicate_rate) if repeats => Workload::WindowRepeats {
                duplicate_rate,
                window: w,
            },
            _ => Workload::Distinct,
        };
        let (warmup, generations, phases) = (u64::from(d.k + d.l) + 1, 4, 8);
        let probes = probes(req.fp).div_ceil(generations * phases);
        let items = (warmup + generations) * m.generation;
        let validator = match filter {
            Ok(filter) => validator(items, move |seed, confidence| {
                apbf_sim::agreement(&apbf_sim::ApbfSimConfig {
                    filter,
                    workload: workload.clone(),
                    epochs: EPOCHS,
                    generations,
                    phases,
                    probes,
                    seed,
                    confidence,
                })
            }),
            Err(e) => Err(e.to_string()),
        };
        Candidate {
            family: "apbf",
            design: name,
            parameters: format!("k={} l={} g={}{block}", d.k, d.l, m.generation),
            bits: m.total_bits,
            accesses_insert: f64::from(d.k),
            accesses_query: m.accesses(),
            false_negatives: "none in the window",
            slack: u64::from(d.k) * m.generation,
            fp: m.fp,
            fp_kind: if repeats {
                "worst case with repeats (just before a shift)"
            } else {
                "worst case (just before a shift)"
            },
            note,
            npws: Some(m.npws),
            validator,
        }
    };
    Ok(std::iter::once(plain).chain(blocked).map(row).collect())
}
