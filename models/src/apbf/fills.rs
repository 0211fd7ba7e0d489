//! Fill ratios of the `k + l` slices of an APBF (Sections 5.2-5.3 [APBF]).
//!
//! Logical slice `s_i` (`s_0` receives insertions) has, just before a shift, received
//! `min(i+1, k)` generations of `g` insertions. Three readings of its fill ratio:
//!
//! | reading | slice `i < k` | slice `i ≥ k` | function |
//! |---|---|---|---|
//! | paper, Section 5.3 [APBF] | `(i+1)/(2k)` | `1/2` | [`paper`] |
//! | real, no size | `1 − 2^(−(i+1)/k)` | `1/2` | [`real`] |
//! | real, slice of `m` bits | `1 − (1−1/m)^((i+1)g)` | `1 − (1−1/m)^(kg)` | [`sized`] |
//!
//! The paper's linear ratios are the chord under the concave fill curve, so they
//! understate the fills of slices `1..k−2` (docs/errata.md, "modelling finding").
//! [`real_at_phase`] and [`sized_at_phase`] give the fills part-way through a
//! generation.

use crate::numeric::one_minus_pow1m;

/// The paper's worst-case fill ratios `[1/(2k), 2/(2k), …, k/(2k), 1/2, …, 1/2]`
/// (Section 5.3 [APBF]).
pub fn paper(k: u32, l: u32) -> Vec<f64> {
    let k2 = 2.0 * f64::from(k);
    (0..k + l)
        .map(|i| if i < k { f64::from(i + 1) / k2 } else { 0.5 })
        .collect()
}

/// Real worst-case fills of a slice sized for half fill after `k` generations:
/// `1 − 2^(−(i+1)/k)` for `i < k`, `1/2` after (the `m → ∞` limit of [`sized`]).
pub fn real(k: u32, l: u32) -> Vec<f64> {
    real_at_phase(k, l, 1.0)
}

/// Real fills at phase `t ∈ [0, 1]` of a generation (a fraction `t` of the current
/// generation inserted): slice `i < k` has received `i + t` generations,
/// `1 − 2^(−(i+t)/k)`; `t = 1` is the worst case just before a shift, `t = 0` just
/// after one (slice `s_0` empty).
///
/// # Numerics
/// `1 − 2^(−x) = −expm1(−x ln 2)`.
pub fn real_at_phase(k: u32, l: u32, t: f64) -> Vec<f64> {
    let kf = f64::from(k);
    let mut r: Vec<f64> = (0..k)
        .map(|i| -(-(f64::from(i) + t) / kf * std::f64::consts::LN_2).exp_m1())
        .collect();
    // Slices that have received all k generations: 1 − 2^(−1) = 1/2.
    r.resize((k + l) as usize, 0.5);
    r
}

/// Expected fills of slices of `m` bits with generations of `g` insertions, just
/// before a shift: `1 − (1 − 1/m)^(min(i+1,k)·g)`.
pub fn sized(k: u32, l: u32, m: u64, g: u64) -> Vec<f64> {
    sized_at_phase(k, l, m, g, g)
}

/// Expected fills when `j ∈ 1..=g` items of the current generation have been inserted:
/// slice `i < k` has received `i·g + j` insertions, slice `i ≥ k` received `k·g`.
pub fn sized_at_phase(k: u32, l: u32, m: u64, g: u64, j: u64) -> Vec<f64> {
    sized_at_phase_with(k, l, m, g as f64, j as f64, |n| n)
}

/// Expected fills when the slices hold `distinct(n)` different items after a run of `n`
/// insertions (`n` may be fractional: a phase `j ∈ (0, g]`): slice `i < k` has seen a
/// run of `i·g + j`, slice `i ≥ k` one of `k·g`; fill `1 − (1 − 1/m)^distinct(n)`.
/// `distinct = |n| n` is a stream of distinct items ([`sized_at_phase`]); repeats
/// inside the window: [`super::duplicates::WindowDuplicates::distinct`].
pub fn sized_at_phase_with(
    k: u32,
    l: u32,
    m: u64,
    g: f64,
    j: f64,
    distinct: impl Fn(f64) -> f64,
) -> Vec<f64> {
    let inv_m = 1.0 / m as f64;
    let mut r: Vec<f64> = (0..k)
        .map(|i| one_minus_pow1m(inv_m, distinct(f64::from(i) * g + j)))
        .collect();
    r.resize(
        (k + l) as usize,
        one_minus_pow1m(inv_m, distinct(f64::from(k) * g)),
    );
    r
}
