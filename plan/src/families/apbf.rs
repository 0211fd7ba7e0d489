//! The APBF and APBBF rows for a sliding window (Sections 3-5 [APBF]).
//!
//! With a duplicate rate (insertions that repeat an item of the last `W`), the APBF is
//! sized on the repeats model (`bfopt_models::apbf::duplicates`): its predicted FP is
//! the worst case of that model and its simulation feeds it such a stream. The APBBF
//! is not modelled with repeats: it stays sized for distinct insertions (repeats only
//! lower its fills, so its FP is an upper bound), and its row says so.

use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::Requirement;
use bfopt_models::apbf::{design, ApbbfParams, ApbfDesign, ApbfParams, ApbfRequirement, Structure};
use bfopt_models::classic::{self, ClassicRequirement, Layout};
use bfopt_validation::experiments::apbf::{self as apbf_sim, ApbfSimFilter};
use bfopt_validation::workload::Workload;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "apbf",
    propose: apbf,
};

/// Block size and per-block hashes tried for the APBBF (Table 3 [APBF] uses `b = 8`).
const APBBF_BLOCKS: [(u32, u32); 2] = [(512, 4), (512, 8)];

/// The least-memory APBF and APBBF for a window (the APBBF without duplicates).
fn apbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Some(w) = req.window_insertions() else {
        return Err(wrong_shape("apbf", "a sliding window", req));
    };
    if req.budgets().max_npws == Some(0.0) {
        return Err(Proposal::Excluded(
            "apbf: always reports its k oldest generations past the window (peak NPWS > 0)".into(),
        ));
    }
    let mut base = ApbfRequirement::new(req.fp(), w)?;
    if let Some(x) = req.budgets().max_npws {
        base = base.with_max_npws(x)?;
    }
    let plain_req = match req.duplicates() {
        Some(d) => base.with_duplicates(d)?,
        None => base,
    };
    let plain = design(&plain_req)?;
    let blocked = APBBF_BLOCKS
        .iter()
        .filter_map(|&(bb, b)| base.blocked(bb, b).and_then(|r| design(&r)).ok())
        .min_by_key(|d| d.metrics.total_bits);
    // What a classic filter holding W items needs, for the APBF's note.
    let classic_bits = classic::design(&ClassicRequirement::new(req.fp(), w, Layout::Standard)?)
        .map(|d| d.params.m())
        .ok();
    Ok(std::iter::once(plain)
        .chain(blocked)
        .map(|d| row(req, w, d, classic_bits))
        .collect())
}

/// One design as a candidate.
pub(crate) fn row(
    req: &Requirement,
    w: u64,
    d: ApbfDesign,
    classic_bits: Option<u64>,
) -> Candidate {
    let repeats = matches!(d.structure, Structure::Apbf) && req.duplicates().is_some();
    let m = d.metrics;
    let versus_classic = classic_bits.map_or(String::new(), |c| {
        format!(
            "; {:.2}x the bits of a classic filter holding W items (which cannot forget)",
            m.total_bits as f64 / c as f64
        )
    });
    let (name, block_bits, block_hashes, note) = match d.structure {
        Structure::Apbf => (
            "apbf",
            None,
            None,
            if repeats {
                format!("sized for the duplicate rate (repeats model); k+l probes per query{versus_classic}")
            } else {
                format!("no false negatives in the window; k+l probes per query{versus_classic}")
            },
        ),
        Structure::Apbbf {
            block_bits,
            block_hashes,
        } => (
            "apbbf",
            Some(block_bits),
            Some(block_hashes),
            "APBF with one cache line per segment: fewest accesses of the window designs"
                .to_string(),
        ),
    };
    let mut notes = vec![note];
    if req.duplicates().is_some() && !repeats {
        notes.push(
            "sized for distinct insertions: repeats set no new bits, so its FP stays below the figure"
                .into(),
        );
    }
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
    let workload = match req.duplicates() {
        Some(duplicate_rate) if repeats => Workload::WindowRepeats {
            duplicate_rate,
            window: w,
        },
        _ => Workload::Distinct,
    };
    let (warmup, generations, phases) = (u64::from(d.k + d.l) + 1, 4, 8);
    let probes = probes(req.fp()).div_ceil(generations * phases);
    let items = (warmup + generations) * m.generation;
    let checks = match filter {
        Ok(filter) => validator(items, move |run: SimRun| {
            apbf_sim::agreement(&apbf_sim::ApbfSimConfig {
                filter,
                workload: workload.clone(),
                epochs: super::epochs(run),
                generations,
                phases,
                probes,
                seed: run.seed,
                confidence: run.confidence,
            })
        }),
        Err(e) => Err(e.to_string()),
    };
    let (validator, not_simulated) = simulation(checks);
    Candidate {
        family: "apbf",
        design: name.into(),
        params: Params::Apbf {
            k: d.k,
            l: d.l,
            g: m.generation,
            slice_bits: m.total_bits / u64::from(d.k + d.l),
            block_bits,
            block_hashes,
        },
        bits: m.total_bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: f64::from(d.k),
        accesses_query: m.accesses(),
        access_unit: if block_bits.is_some() {
            AccessUnit::CacheLines
        } else {
            AccessUnit::BitProbes
        },
        false_negatives: FalseNegatives::NoneInWindow,
        slack: u64::from(d.k) * m.generation,
        npws: Some(m.npws),
        fp: m.fp,
        fp_kind: if repeats {
            FpKind::WorstCaseWithRepeats
        } else {
            FpKind::WorstCase
        },
        notes,
        not_simulated,
        validator,
    }
}
