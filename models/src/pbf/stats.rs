//! Workload statistics computed exactly (offline, "opt" in Table 2 [PBF]): the distinct
//! items `d_i` each filter receives from a trace and the expected probes `f_i` a query
//! workload sends it (Section 5.1 [PBF]).

use super::structure::{PbfLayout, Variant};
use crate::error::{check, ModelError};
use serde::Serialize;

/// `d_i` and `f_i` for every filter of a layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadStats {
    /// Distinct items inserted into each filter `d_i`.
    pub distinct: Vec<f64>,
    /// Expected probes of each filter per query `f_i` (no short-circuit).
    pub frequency: Vec<f64>,
    /// Distinct (item, timestamp) pairs `n(A)`.
    pub pairs: u64,
    /// Distinct items `n'(A)`.
    pub items: u64,
}

/// Distinct items per filter from (item key, timestamp) pairs, timestamps in `[1, T]`.
///
/// PBF-1: interval filter `i` receives the items seen in its interval, `d_i = n'(A_i)`,
/// and `b_{u+1}` the distinct pairs, `d_{u+1} = n(A)`. PBF-2: level `ℓ` receives the
/// pairs `(a, ⌈t/g_ℓ⌉)`, `d_ℓ = n(A_ℓ)` (Sections 5.1, 5.2 [PBF]).
///
/// # Errors
/// A timestamp outside `[1, T]` (named with its position in the list).
pub fn distinct_counts(layout: &PbfLayout, pairs: &[(u64, u64)]) -> Result<Vec<u64>, ModelError> {
    layout.check_materialisable()?;
    let tree = layout.tree();
    let horizon = tree.horizon();
    if let Some((i, &(_, t))) = pairs
        .iter()
        .enumerate()
        .find(|(_, &(_, t))| !(1..=horizon).contains(&t))
    {
        return Err(ModelError::invalid(
            "timestamp",
            t,
            format!("1 <= timestamp <= {horizon} (record {})", i + 1),
        ));
    }
    let mut out = vec![0u64; layout.filters() as usize];
    let leaf = tree.levels() - 1;
    // (position at the current level, item): sorted and deduplicated level by level
    // from the leaves up, each level's positions halving the previous ones.
    let mut current: Vec<(u64, u64)> = pairs
        .iter()
        .map(|&(a, t)| (tree.node_of(leaf, t).pos, a))
        .collect();
    sort_by_runs(&mut current);
    current.dedup();
    if let Some(fine) = layout.fine_filter() {
        out[fine as usize] = distinct_pairs(pairs);
    }
    let mut level = leaf;
    loop {
        match layout.variant() {
            Variant::Pbf2 => out[level as usize] = current.len() as u64,
            Variant::Pbf1 => {
                for &(pos, _) in &current {
                    out[tree.index(super::structure::Node { level, pos }) as usize] += 1;
                }
            }
        }
        if level == 0 {
            break;
        }
        level -= 1;
        // Halving keeps the positions in order: each new position's run is the merge of
        // its two children's sorted runs.
        current.iter_mut().for_each(|p| p.0 /= 2);
        sort_by_runs(&mut current);
        current.dedup();
    }
    Ok(out)
}

/// Sorts `v` ascending. When `v` is already in order of its first components (a trace
/// in time order gives leaf positions in order, and halving positions keeps them in
/// order), each run of equal first components is sorted on its own, by the stable sort,
/// which merges the runs already sorted inside it: the same result as one sort of the
/// whole slice, in far fewer comparisons (the full sorts were a sixth of the PBF
/// validation suite's time).
fn sort_by_runs(v: &mut [(u64, u64)]) {
    if v.is_sorted_by_key(|p| p.0) {
        v.chunk_by_mut(|a, b| a.0 == b.0).for_each(<[_]>::sort);
    } else {
        v.sort_unstable();
    }
}

/// Number of distinct (item, timestamp) pairs.
pub fn distinct_pairs(pairs: &[(u64, u64)]) -> u64 {
    // Counted in (timestamp, item) order: a trace in time order is then sorted run by
    // run ([`sort_by_runs`]); the count does not depend on the order.
    let mut v: Vec<(u64, u64)> = pairs.iter().map(|&(a, t)| (t, a)).collect();
    sort_by_runs(&mut v);
    v.dedup();
    v.len() as u64
}

/// A materialisable layout and a non-empty workload.
fn check_workload(layout: &PbfLayout, queries: &[(u64, u64)]) -> Result<(), ModelError> {
    layout.check_materialisable()?;
    if queries.is_empty() {
        return Err(ModelError::invalid("queries", 0, "at least one query"));
    }
    Ok(())
}

/// Expected probes per query of every filter over a workload of ranges `[s, e]`
/// (`f_i` of Section 5.1 [PBF]: probes sent to filter `i`, divided by `|W|`).
///
/// # Errors
/// An empty workload; a range outside `1 ≤ s ≤ e ≤ T`.
pub fn probe_frequencies(
    layout: &PbfLayout,
    queries: &[(u64, u64)],
) -> Result<Vec<f64>, ModelError> {
    check_workload(layout, queries)?;
    let mut counts = vec![0.0; layout.filters() as usize];
    for &(s, e) in queries {
        layout.tree().check_range(s, e)?;
        layout.add_probe_counts(s, e, &mut counts);
    }
    let w = queries.len() as f64;
    counts.iter_mut().for_each(|c| *c /= w);
    Ok(counts)
}

/// Both statistics at once, with `n(A)` and `n'(A)`.
///
/// # Errors
/// See [`distinct_counts`] and [`probe_frequencies`].
pub fn workload_stats(
    layout: &PbfLayout,
    pairs: &[(u64, u64)],
    queries: &[(u64, u64)],
) -> Result<WorkloadStats, ModelError> {
    let distinct = distinct_counts(layout, pairs)?;
    let frequency = probe_frequencies(layout, queries)?;
    let mut items: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    // Adjacent copies (a trace logs an entry's copies together) go before the sort.
    items.dedup();
    items.sort_unstable();
    items.dedup();
    Ok(WorkloadStats {
        distinct: distinct.iter().map(|&d| d as f64).collect(),
        frequency,
        pairs: distinct_pairs(pairs),
        items: items.len() as u64,
    })
}

/// The mean FP of a workload of non-member queries given each filter's FP
/// ([`PbfLayout::query_fp`] averaged over the queries).
///
/// # Errors
/// An empty workload, a range out of bounds, or `fp` of the wrong length / not in [0, 1].
pub fn mean_query_fp(
    layout: &PbfLayout,
    queries: &[(u64, u64)],
    fp: &[f64],
) -> Result<f64, ModelError> {
    if queries.is_empty() {
        return Err(ModelError::invalid("queries", 0, "at least one query"));
    }
    if fp.len() as u64 != layout.filters() {
        return Err(ModelError::invalid(
            "fp",
            format!("{} values", fp.len()),
            format!("one per filter ({})", layout.filters()),
        ));
    }
    for &p in fp {
        check::probability("fp", p)?;
    }
    let mut sum = crate::numeric::CompensatedSum::new();
    for &(s, e) in queries {
        layout.tree().check_range(s, e)?;
        sum.add(layout.query_fp(s, e, fp));
    }
    Ok(sum.value() / queries.len() as f64)
}

/// PBF-1's probes of `b_{u+1}` per query, by the partial leaf that sends them: entry `o`
/// is the mean over the workload of `|I_o ∩ [s, e]|` over the queries that overlap leaf
/// `o` partially (0 for every other filter). The probes are sent only when leaf `o`'s
/// filter answers yes (route 3, Section 4.1 [PBF]), so with leaf FPs `p_o` the expected
/// probes of `b_{u+1}` are `Σ_o p_o · entry_o`.
///
/// # Errors
/// As [`probe_frequencies`].
pub fn fine_probes_by_leaf(
    layout: &PbfLayout,
    queries: &[(u64, u64)],
) -> Result<Vec<f64>, ModelError> {
    check_workload(layout, queries)?;
    let mut out = vec![0.0; layout.filters() as usize];
    if layout.fine_filter().is_none() {
        return Ok(out);
    }
    for &(s, e) in queries {
        layout.tree().check_range(s, e)?;
        layout.tree().probes(s, e, |p| {
            if let super::structure::Probe::Partial { node, from, to } = p {
                out[layout.filter_of(node) as usize] += (to - from + 1) as f64;
            }
        });
    }
    let w = queries.len() as f64;
    out.iter_mut().for_each(|c| *c /= w);
    Ok(out)
}
