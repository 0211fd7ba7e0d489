//! False negatives and positives on a stream with repeats: the duplicate-detection stream
//! of Section 6.1.2 [SBF] (Tables 3-4, Figures 3-6).
//!
//! The stream has `N` arrivals. The first is new; each later one is, with probability
//! `r` (the duplicate rate, 0.7 in the thesis), a repeat of an item drawn uniformly from
//! the distinct items seen so far, else a new item whose importance is drawn from the
//! law. Every arrival is queried first (a new item reported present is a false positive,
//! a repeat reported absent a false negative), then inserted, into a filter that starts
//! empty.
//!
//! # Model (independent sets)
//! A repeat re-inserts the item: its cells are set again, so what matters is its age
//! since its *last* insertion, `A = t − 1 − L` (`L` its last insertion before the query
//! at `t`). With `D(u) = 1 + (1 − r)(u − 1)` distinct items before arrival `u ≥ 1` (the
//! mean pool), an item is re-drawn at `u` with probability `r/D(u)`, so
//!
//! ```text
//! Pr(L | t) ∝ w(L) = Π_{u=1..L} (1 − r/D(u))^(−1),   L = 0..t−1
//! h(a) = mean over repeat queries t of Pr(A = a | t)          (the stream's age law)
//! FN_i = Σ_a h(a) · FN_i(a)      FN_i(a) = 1 − (1 − x_i·T^a·e_0)^K   ([`super::IbfSolution::fn_by_importance`])
//! FP_t = (1 − z_t)^K             z_t: zero fraction after t insertions ([`super::zero_fraction_transient`])
//! wFP = mean of FP_t over new arrivals,  wFN = Σ_i w_i·i·FN_i / Σ_i w_i·i
//! precision, recall: Eqs. (7)-(8) [SBF] with wTotal = r·N·Ē(1 − wFN) + (1 − r)·N·Ē·wFP
//! ```
//! For large `t` the age law is close to `Pr(A ≥ a | t) = (1 − a/t)^(1/(1−r))` (mean
//! `t(1 − r)/(2 − r)`): with 70% repeats the typical repeat is a quarter of the stream
//! old, so on long streams most repeats are forgotten.
//!
//! # Two models
//! * **Per-cell items** ([`StreamMethod::CellItems`], policies without a counter: SBF,
//!   IBF1, IBF6): a cell also carries the number of distinct items hashed to it, so a
//!   repeat re-sets only cells of earlier items, as in the real filter (see
//!   `per_cell_items`). With few items per cell this matters a great deal: at the
//!   thesis's n = 262144 only about 30 000 distinct items (120 000 cell slots) ever
//!   arrive, and a model in which each arrival sets `K` fresh cells sees the filter many
//!   times fuller. Exact for one cell up to the mean pool size and cells treated as
//!   independent; measured against the reference filters (`tests/agreement/stable.rs`,
//!   m = 1024, K = 4, Max = 3, P = 6, 12 000 arrivals): SBF wFN 0.509 / 0.509, wFP 0.299 /
//!   0.300; IBF1 0.524 / 0.528, 0.283 / 0.286; IBF6 0.811 / 0.812, 0.082 / 0.083 (model /
//!   measured), all inside the 99% intervals. At the thesis's size (Tables 3-4, `bfopt
//!   reproduce sbf-table3 --scale 32`) SBF and IBF1 lie in the measured intervals in 23
//!   of 24 (setting, metric) pairs, the largest gap 7%.
//! * **Per-cell items and counter** ([`StreamMethod::CellItemsCounter`], policies with a
//!   cumulative-importance counter: IBF2-IBF5): the cell also carries its counter, in
//!   binned levels, and a repeat's cell starts from the law of the cells of earlier items
//!   of its importance, split by how often the item was inserted (its `K` cells share
//!   that). See the private module `counter_stream` for the formulas, the reductions and
//!   the measured errors. The population's one- and two-item cells keep their items'
//!   importance classes (they are re-set only by those items). In short (model /
//!   measured): at the agreement setting above wFP is within 2% for IBF2-IBF5 (e.g. IBF3
//!   0.0904 / 0.0897) and wFN is inside the measured interval or 0.01% above it
//!   (Probabilistic-delete-p) or 2.7-3.9% above it (MinImp); at the thesis's items per
//!   cell (n = 262144, or 1/32 of it) wFP is within 2-20% (was 30-100 times too high with
//!   independent sets), while wFN is within 6% of the measured mean for
//!   Probabilistic-delete-p at 1/32 size (inside the interval in 11 of 12 settings; 4%
//!   above the mean, 1.7% above the interval for IBF3 at the full size) and 3-25% high
//!   for MinImp, from the item's own insertion history that its `K` cells share and the
//!   model's independent cells cannot hold (sessions 14, 19 and 20 of `counter_stream`).
//! * **Independent sets** ([`StreamMethod::IndependentSets`]: cells holding more than 150
//!   items on average, whose repeat rates barely vary): `z_t` and `FN_i(a)` of the
//!   formulas above, every arrival setting `K` fresh random cells. It ignores that
//!   repeats are bursty per cell and sees the filter fuller than it is; it was used for
//!   IBF2-IBF5 before the counter model and was far off at the thesis's size (wFP up to
//!   100 times too high at n = 262144). For counter policies `FN_i(a)` uses the stable
//!   point's decrement law during the filling phase.
//!
//! The pool size is taken at its mean; the age law averages [`AGE_SAMPLES`] evenly
//! spaced query times on long streams, and the per-cell-items FN [`TIME_SAMPLES`].

use super::ibf::{solve, zero_fraction_transient, TRANSIENT_WORK};
use super::params::IbfParams;
use super::policy::Delete;
use super::sbf::fn_from_zero;
use super::stream::RepeatStream;
use crate::error::{check, ModelError};
use crate::numeric::probability;
use serde::Serialize;

/// Ages at which FN is evaluated exactly (linear interpolation in between).
pub const AGE_GRID: u64 = 2048;

/// Predicted rates of a filter on a [`RepeatStream`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatMetrics {
    /// Eq. (5) [SBF] per unit of queried importance: the mean FP of new arrivals.
    pub weighted_fp: f64,
    /// Eq. (6) [SBF] per unit of queried importance: `Σ w_i·i·FN_i / Σ w_i·i`.
    pub weighted_fn: f64,
    /// Eq. (7) [SBF].
    pub precision: f64,
    /// Eq. (8) [SBF].
    pub recall: f64,
    /// FN of a repeat, per importance from the law's lowest value upward.
    pub fn_by_importance: Vec<f64>,
    /// Mean age of a repeat since its item's last insertion (arrivals).
    pub mean_age: f64,
    /// Expected zero cells at the end of the stream (Figure 7 [SBF]).
    pub zero_cells_final: f64,
    /// Which model produced the figures.
    pub method: StreamMethod,
}

/// How [`stream_metrics`] modelled the stream.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum StreamMethod {
    /// Each cell's chain carries the number of distinct items hashed to it (capped at
    /// `items_cap`), so repeats re-set exactly the cells of earlier items.
    CellItems {
        /// Largest item count kept per cell.
        items_cap: usize,
    },
    /// As `CellItems`, the cell also carrying its cumulative-importance counter in
    /// `counter_levels` levels (IBF2-IBF5; module `counter_stream`).
    CellItemsCounter {
        /// Largest item count kept per cell.
        items_cap: usize,
        /// Counter levels (0 and the binned values `1..=C`).
        counter_levels: usize,
    },
    /// Every arrival sets `K` fresh random cells (policies with a cumulative-importance
    /// counter, or cells holding so many items that their rates barely vary).
    IndependentSets,
}

/// Query times at which the per-cell-items model evaluates the FN of repeats.
pub const TIME_SAMPLES: u64 = 24;

/// The item-count cap of the per-cell-items model, or `None` when the independent-sets
/// model is used: for policies with a counter (the state space would be `C·Max` times
/// larger), or when cells end up holding more than 150 items on average (the repeat rates
/// of cells then vary by less than 8%).
pub(crate) fn items_per_cell(params: &IbfParams, stream: &RepeatStream) -> Option<usize> {
    let r = stream.duplicate_rate();
    let d_end = 1.0 + (1.0 - r) * stream.arrivals() as f64;
    let lambda = f64::from(params.k()) * d_end / params.m() as f64;
    if lambda > 150.0 {
        return None;
    }
    if params.policy().tracks_cumulative() {
        // The counter multiplies the state: a tighter cap (the top count absorbs).
        return Some((lambda + 3.0 * lambda.sqrt() + 3.0).ceil() as usize);
    }
    Some((lambda + 8.0 * lambda.sqrt() + 8.0).ceil() as usize)
}

/// The per-cell-items model (untracked policies: SBF, IBF1, IBF6).
///
/// # Formula
/// A cell's state is its value `v` and the number `n` of distinct items hashed to it.
/// Arrival `u` (with `D(u)` distinct items before it) first runs the deletion phase,
/// then is new with probability `1 − r` (it hits the cell with probability `K/m`:
/// `v ← ins(i)`, `n ← n + 1`) or a repeat with probability `r` (of one of the cell's
/// items with probability `n/D(u)`: `v ← ins(i)`). The FP of a new arrival at `t` is
/// `(1 − Pr(v = 0))^K` under the forward law. For a repeat queried at `t` whose item was
/// last inserted at `L`, each of its cells starts at `(ins(i), 1 + N)`, `N ~ Pois(K·(D(L+1)
/// − 1)/m)` other items, and evolves with the other items' repeats only (rate
/// `r·(n − 1)/D(u)`); one backward pass from `t` gives `z(L → t)` for every `L`, and
/// `FN(t) = Σ_L Pr(L | t)·(1 − (1 − z(L → t))^K)`, averaged over [`TIME_SAMPLES`] query
/// times. Returns `(wFP, FN by importance, final zero fraction)`.
fn per_cell_items(
    params: &IbfParams,
    stream: &RepeatStream,
    cap: usize,
) -> Result<(f64, Vec<f64>, f64), ModelError> {
    let big_n = stream.arrivals() as usize;
    let (m, k, max, p) = (
        params.m() as f64,
        params.k(),
        params.max() as usize,
        params.p() as f64,
    );
    let a = f64::from(k) / m;
    let states = (max + 1) * (cap + 1);
    check::in_range(
        "arrivals",
        stream.arrivals(),
        2..=TRANSIENT_WORK / (states as u64 * 8),
    )?;
    let dist = params.importance();
    // Value law of an insertion, q[v] for v = 1..=Max.
    let mut q = vec![0.0; max + 1];
    for (i, w) in dist.iter() {
        q[params.insert_value(i) as usize] += w;
    }
    let d_before = |u: usize| stream.distinct_before(u);
    let p_new = |u: usize| stream.p_new(u);
    let prob_value = params.policy().delete() == Delete::ProbValue;
    let idx = |v: usize, n: usize| v * (cap + 1) + n;
    // Forward pass: the law of (v, n), and the decrement probability per value per step.
    let mut x = vec![0.0; states];
    x[idx(0, 0)] = 1.0;
    let mut dec: Vec<Vec<f64>> = Vec::with_capacity(big_n);
    let (mut fp_num, mut fp_den) = (0.0, 0.0);
    for u in 0..big_n {
        let zero: f64 = (0..=cap).map(|n| x[idx(0, n)]).sum();
        fp_num += p_new(u) * fn_from_zero_complement(zero.min(1.0), k);
        fp_den += p_new(u);
        let d: Vec<f64> = if prob_value {
            let wbar: f64 = (1..=max)
                .map(|v| (0..=cap).map(|n| x[idx(v, n)]).sum::<f64>() / v as f64)
                .sum();
            (0..=max)
                .map(|v| {
                    if v == 0 || wbar <= 0.0 {
                        0.0
                    } else {
                        (p / (v as f64 * m * wbar)).min(1.0)
                    }
                })
                .collect()
        } else {
            (0..=max)
                .map(|v| if v == 0 { 0.0 } else { p / m })
                .collect()
        };
        // Deletion.
        let mut y = vec![0.0; states];
        for v in 0..=max {
            for n in 0..=cap {
                let mass = x[idx(v, n)];
                if v == 0 {
                    y[idx(0, n)] += mass;
                } else {
                    y[idx(v - 1, n)] += mass * d[v];
                    y[idx(v, n)] += mass * (1.0 - d[v]);
                }
            }
        }
        // Arrival.
        let (pn, pr, dd) = (p_new(u), 1.0 - p_new(u), d_before(u));
        let mut out = vec![0.0; states];
        for n in 0..=cap {
            let rep = if dd > 0.0 {
                (n as f64 / dd).min(1.0)
            } else {
                0.0
            };
            let col: f64 = (0..=max).map(|v| y[idx(v, n)]).sum();
            for v in 0..=max {
                out[idx(v, n)] += y[idx(v, n)] * (1.0 - pn * a - pr * rep);
            }
            let up = (n + 1).min(cap);
            for v in 1..=max {
                out[idx(v, up)] += col * pn * a * q[v];
                out[idx(v, n)] += col * pr * rep * q[v];
            }
        }
        x = out;
        dec.push(d);
    }
    let wfp = probability(fp_num / fp_den);
    let zero_final: f64 = (0..=cap).map(|n| x[idx(0, n)]).sum();
    // Backward passes at sampled query times.
    let lw = stream.log_weights();
    let queries = (big_n - 1) as u64;
    let count = queries.min(TIME_SAMPLES);
    let mut fn_value = vec![0.0; max + 1];
    for j in 0..count {
        let t = 1 + ((j as f64 + 0.5) * queries as f64 / count as f64) as usize;
        let top = lw[t - 1];
        let total: f64 = lw[..t].iter().map(|&l| (l - top).exp()).sum();
        // b applies to the state right after insertion t − 1.
        let mut b = vec![0.0; states];
        for n in 0..=cap {
            b[idx(0, n)] = 1.0;
        }
        let mut acc = vec![0.0; max + 1];
        for l in (0..t).rev() {
            // Read z(L = l → t): the tagged item's cell right after insertion l.
            let weight = (lw[l] - top).exp() / total;
            if weight > 1e-300 {
                let lambda = a * (d_before(l + 1) - 1.0).max(0.0);
                for v in 1..=max {
                    let mut z = 0.0;
                    let mut pn = (-lambda).exp();
                    for n in 1..=cap {
                        if n > 1 {
                            pn *= lambda / (n - 1) as f64;
                        }
                        z += pn * b[idx(v, n)];
                    }
                    acc[v] += weight * fn_from_zero(z.min(1.0), k);
                }
            }
            if l == 0 {
                break;
            }
            // Step back through insertion l (state after l − 1 → after l), the tagged
            // item excluded from the repeats.
            let (pn, pr, dd) = (p_new(l), 1.0 - p_new(l), d_before(l));
            let d = &dec[l];
            let mut after_del = vec![0.0; states];
            for n in 0..=cap {
                let rep = if dd > 0.0 {
                    ((n as f64 - 1.0).max(0.0) / dd).min(1.0)
                } else {
                    0.0
                };
                let up = (n + 1).min(cap);
                let set_new: f64 = (1..=max).map(|v| q[v] * b[idx(v, up)]).sum();
                let set_rep: f64 = (1..=max).map(|v| q[v] * b[idx(v, n)]).sum();
                for v in 0..=max {
                    after_del[idx(v, n)] = (1.0 - pn * a - pr * rep) * b[idx(v, n)]
                        + pn * a * set_new
                        + pr * rep * set_rep;
                }
            }
            let mut prev = vec![0.0; states];
            for n in 0..=cap {
                prev[idx(0, n)] = after_del[idx(0, n)];
                for v in 1..=max {
                    prev[idx(v, n)] =
                        d[v] * after_del[idx(v - 1, n)] + (1.0 - d[v]) * after_del[idx(v, n)];
                }
            }
            b = prev;
        }
        for v in 1..=max {
            fn_value[v] += acc[v] / count as f64;
        }
    }
    let fns = dist
        .iter()
        .map(|(i, _)| probability(fn_value[params.insert_value(i) as usize]))
        .collect();
    Ok((wfp, fns, zero_final))
}

/// Predicts the thesis-stream rates of `params` (see the module doc).
///
/// # Errors
/// The stable point does not solve; the stream is too long for the transient
/// ([`super::TRANSIENT_WORK`]).
pub fn stream_metrics(
    params: &IbfParams,
    stream: &RepeatStream,
) -> Result<RepeatMetrics, ModelError> {
    let (wfp, fns, zero_final, method) = match items_per_cell(params, stream) {
        Some(cap) if params.policy().tracks_cumulative() => {
            let (wfp, fns, z) = super::counter_stream::counter_items(params, stream, cap)?;
            let levels = super::counter_stream::level_count(params);
            (
                wfp,
                fns,
                z,
                StreamMethod::CellItemsCounter {
                    items_cap: cap,
                    counter_levels: levels,
                },
            )
        }
        Some(cap) => {
            let (wfp, fns, z) = per_cell_items(params, stream, cap)?;
            (wfp, fns, z, StreamMethod::CellItems { items_cap: cap })
        }
        None => {
            let (wfp, fns, z) = independent_sets(params, stream)?;
            (wfp, fns, z, StreamMethod::IndependentSets)
        }
    };
    let n = stream.arrivals();
    let r = stream.duplicate_rate();
    let h = stream.age_distribution();
    let dist = params.importance();
    let fns: Vec<f64> = fns.into_iter().map(probability).collect();
    let mean = dist.mean();
    let fn_w: f64 = dist
        .iter()
        .zip(&fns)
        .map(|((i, w), f)| w * f64::from(i) * f)
        .sum();
    let wfn = probability(fn_w / mean);
    // Importance totals per arrival: repeats r·Ē, new (1 − r)·Ē (the first arrival, which
    // is always new, is negligible).
    let good = r * mean * (1.0 - wfn);
    let false_pos = (1.0 - r) * mean * wfp;
    let missed = r * mean * wfn;
    let ratio = |a: f64, b: f64| if b > 0.0 { probability(a / b) } else { 1.0 };
    let mean_age = h.iter().enumerate().map(|(a, &p)| a as f64 * p).sum();
    let _ = n;
    Ok(RepeatMetrics {
        weighted_fp: wfp,
        weighted_fn: wfn,
        precision: ratio(good, good + false_pos),
        recall: ratio(good, good + missed),
        fn_by_importance: fns,
        mean_age,
        zero_cells_final: zero_final * params.m() as f64,
        method,
    })
}

/// [`stream_metrics`]' weighted FP alone. For the counter policies (IBF2-IBF5) it skips
/// the FN pass, which is most of the cost; for the others it is `stream_metrics`' figure.
///
/// # Errors
/// As [`stream_metrics`].
pub fn stream_weighted_fp(params: &IbfParams, stream: &RepeatStream) -> Result<f64, ModelError> {
    match items_per_cell(params, stream) {
        Some(cap) if params.policy().tracks_cumulative() => {
            super::counter_stream::counter_items_fp(params, stream, cap).map(|(wfp, _)| wfp)
        }
        _ => stream_metrics(params, stream).map(|r| r.weighted_fp),
    }
}

/// The independent-sets model: every arrival sets `K` fresh random cells; FP from the
/// transient zero fraction, FN from the age law and FN by age (see the module doc).
/// Returns `(wFP, FN by importance, final zero fraction)`.
fn independent_sets(
    params: &IbfParams,
    stream: &RepeatStream,
) -> Result<(f64, Vec<f64>, f64), ModelError> {
    let n = stream.arrivals();
    let r = stream.duplicate_rate();
    let k = params.k();
    let z = zero_fraction_transient(params, n)?;
    let new_weight = |t: u64| if t == 0 { 1.0 } else { 1.0 - r };
    let (mut fp_num, mut fp_den) = (0.0, 0.0);
    for t in 0..n {
        fp_num += new_weight(t) * fn_from_zero_complement(z[t as usize], k);
        fp_den += new_weight(t);
    }
    let wfp = probability(fp_num / fp_den);
    let h = stream.age_distribution();
    let sol = solve(params)?;
    let max_age = h.len().saturating_sub(1) as u64;
    let step = max_age.div_ceil(AGE_GRID).max(1);
    let grid: Vec<u64> = (0..=max_age / step)
        .map(|j| j * step)
        .chain(std::iter::once(max_age))
        .collect();
    let zs = sol.zero_by_importance_at(&grid);
    let dist = params.importance();
    let width = (dist.hi() - dist.lo() + 1) as usize;
    let mut fns = vec![0.0; width];
    for (g, pair) in grid.windows(2).enumerate() {
        let (a0, a1) = (pair[0], pair[1]);
        let span = (a1 - a0) as f64;
        let last = g + 2 == grid.len();
        let end = if last { a1 + 1 } else { a1 };
        for a in a0..end {
            let ha = h[a as usize];
            if ha == 0.0 {
                continue;
            }
            let f = if span == 0.0 {
                0.0
            } else {
                (a - a0) as f64 / span
            };
            for (i, acc) in fns.iter_mut().enumerate() {
                let zi = zs[g][i] + f * (zs[g + 1][i] - zs[g][i]);
                *acc += ha * fn_from_zero(zi, k);
            }
        }
    }
    let fns: Vec<f64> = fns.into_iter().map(probability).collect();
    Ok((wfp, fns, z[n as usize]))
}

/// `(1 − z)^K`: all `K` cells non-zero.
fn fn_from_zero_complement(z: f64, k: u32) -> f64 {
    probability((f64::from(k) * (-z).ln_1p()).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stable::{ImportanceDist, Policy, SbfParams};
    use approx::assert_relative_eq;

    #[test]
    fn age_law_sums_to_one_and_follows_the_power_law() {
        let s = RepeatStream::new(4001, 0.7).unwrap();
        let h = s.age_distribution();
        assert_relative_eq!(h.iter().sum::<f64>(), 1.0, max_relative = 1e-12);
        // Continuous limit: mean age over t uniform on (0, N) of t(1 − r)/(2 − r) = N·0.3/2.6.
        let mean: f64 = h.iter().enumerate().map(|(a, p)| a as f64 * p).sum();
        assert_relative_eq!(mean, 4000.0 * 0.3 / 2.6, max_relative = 0.01);
        // No repeats: no repeat queries.
        let none = RepeatStream::new(100, 0.0).unwrap().age_distribution();
        assert!(none.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn sampled_age_law_matches_the_exact_sum() {
        // 3000 query times: the exact law; the sampled one uses AGE_SAMPLES of them.
        let exact = RepeatStream::new(1025, 0.7).unwrap().age_distribution();
        let long = RepeatStream::new(3001, 0.7).unwrap();
        let h = long.age_distribution();
        assert_relative_eq!(h.iter().sum::<f64>(), 1.0, max_relative = 1e-12);
        assert_eq!(exact.len(), 1024);
        // Means of the sampled law and of the continuous limit agree to 0.5%.
        let mean: f64 = h.iter().enumerate().map(|(a, p)| a as f64 * p).sum();
        assert_relative_eq!(mean, 3000.0 * 0.3 / 2.6, max_relative = 0.005);
    }

    #[test]
    fn sbf_stream_fp_uses_the_transient_and_fn_the_age_law() {
        let (m, k, max, p) = (1024u64, 4u32, 3u32, 6u64);
        let params = IbfParams::new(
            Policy::Sbf,
            m,
            k,
            max,
            p,
            ImportanceDist::linear(1, 1).unwrap(),
        )
        .unwrap();
        let stream = RepeatStream::new(2000, 0.7).unwrap();
        let (wfp, _, _) = independent_sets(&params, &stream).unwrap();
        let got = stream_metrics(&params, &stream).unwrap();
        assert!(matches!(got.method, StreamMethod::CellItems { .. }));
        let indep = {
            let (_, fns, _) = independent_sets(&params, &stream).unwrap();
            fns[0]
        };
        // By hand: FP from the SBF convergence formula, FN from fn_at_age.
        let s = SbfParams::new(m, k, max, p).unwrap();
        let mut fp = 0.0;
        for t in 1..2000u64 {
            fp += 0.3 * (1.0 - s.zero_fraction_after(t)).powi(4);
        }
        fp /= 1.0 + 0.3 * 1999.0;
        assert_relative_eq!(wfp, fp, max_relative = 1e-9);
        let h = stream.age_distribution();
        let fnr: f64 = h
            .iter()
            .enumerate()
            .map(|(a, &w)| w * s.fn_at_age(a as u64))
            .sum();
        assert_relative_eq!(indep, fnr, max_relative = 1e-9);
        assert!(got.precision > 0.0 && got.recall > 0.0);
    }

    #[test]
    fn invalid_streams_are_rejected() {
        assert!(RepeatStream::new(1, 0.5).is_err());
        assert!(RepeatStream::new(100, 1.0).is_err());
        assert!(RepeatStream::new(100, f64::NAN).is_err());
        assert!(RepeatStream::new(100, -0.1).is_err());
    }
}
