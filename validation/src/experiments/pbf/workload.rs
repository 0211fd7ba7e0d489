//! Query workloads: non-member test queries, the online methods' noisy training
//! workload, and member queries (for false negatives).

use crate::workload::{mix, probe, rng};
use bfopt_models::error::{check, ModelError};
use rand::Rng;

/// A query workload: `count` non-member queries `(key, s, e)` of length `length` over
/// `[1, horizon]`, keys [`probe`]s of `key_seed`.
///
/// # Errors
/// `length` outside `[1, horizon]`; `count` 0.
pub fn query_workload(
    horizon: u64,
    length: u64,
    count: u64,
    key_seed: u64,
    seed: u64,
) -> Result<Vec<(u64, u64, u64)>, ModelError> {
    check::in_range("query_length", length, 1..=horizon)?;
    check::in_range("queries", count, 1..=100_000_000)?;
    let mut rng = rng(mix(seed ^ 0x0E5));
    Ok((0..count)
        .map(|i| {
            let s = rng.random_range(1..=horizon - length + 1);
            (probe(key_seed, i), s, s + length - 1)
        })
        .collect())
}

/// The training workload of an online method: the test queries with their starts moved
/// by a uniform noise in `[−|q|, |q|]` (Section 7: "adding a random noise into the
/// testing data").
pub fn noisy_workload(test: &[(u64, u64, u64)], horizon: u64, seed: u64) -> Vec<(u64, u64)> {
    let mut rng = rng(mix(seed ^ 0x401));
    test.iter()
        .map(|&(_, s, e)| {
            let len = e - s + 1;
            let shift = rng.random_range(-(len as i64)..=len as i64);
            let s = (s as i64 + shift).clamp(1, (horizon - len + 1) as i64) as u64;
            (s, s + len - 1)
        })
        .collect()
}

/// Up to 2000 member queries: a trace entry `(a, t)` and a range of length `|q|` (or
/// shorter near the ends) that contains `t`.
pub(super) fn member_queries(
    trace: &[(u64, u64)],
    length: u64,
    horizon: u64,
    seed: u64,
) -> Vec<(u64, u64, u64)> {
    if trace.is_empty() {
        return Vec::new();
    }
    let mut rng = rng(mix(seed ^ 0x3E3));
    (0..2000.min(trace.len()))
        .map(|_| {
            let (a, t) = trace[rng.random_range(0..trace.len())];
            let back = rng.random_range(0..length);
            let s = t.saturating_sub(back).max(1);
            let e = (s + length - 1).min(horizon);
            (a, s, e)
        })
        .collect()
}
