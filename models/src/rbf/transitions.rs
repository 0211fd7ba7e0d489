//! One arrival's effect on the bit count: the transition laws τ_k(i, j), Eqs. (4)-(14) [RBF].
//!
//! All laws are computed by the paper's recursion over the hash index `h` (its subscript
//! `k`), for one starting state `i` at a time: `O(k²)` time and `O(k)` memory per state.
//! Only sums of non-negative terms appear, so every probability keeps full relative
//! accuracy.

use super::Hashing;

/// Distribution of the number `d = j − i` of new bits one message sets when `i` of `m`
/// bits are set: `out[d] = τ_k(i, i + d)` for `d = 0..=k`, before any recycling.
///
/// # Formula
/// ```text
/// colliding: τ_h(i, j) = τ_{h-1}(i, j)·j/M + τ_{h-1}(i, j−1)·(M−j+1)/M        Eq. (4) [RBF]
/// distinct:  τ_h(i, j) = τ_{h-1}(i, j)·(j−(h−1))/(M−(h−1))
///                      + τ_{h-1}(i, j−1)·(M−j+1)/(M−(h−1))                     Eq. (11) [RBF]
/// τ_0(i, j) = I[i = j]                                                         Eq. (6) [RBF]
/// ```
/// # Panics
/// Only on an internal invariant: `out.len() == k + 1`.
pub fn new_bits(m: u64, k: u32, i: u64, hashing: Hashing, out: &mut [f64]) {
    let k = k as usize;
    assert_eq!(out.len(), k + 1, "out holds d = 0..=k");
    let (mf, i_f) = (m as f64, i as f64);
    out.fill(0.0);
    out[0] = 1.0;
    match hashing {
        Hashing::Colliding => {
            // Hash h lands on one of the i + d set bits (stay) or one of the M − i − d
            // unset ones (one more new bit). In place, from the top.
            let inv = 1.0 / mf;
            for h in 1..=k {
                out[h] = out[h - 1] * (mf - i_f - (h - 1) as f64) * inv;
                for d in (1..h).rev() {
                    let df = d as f64;
                    out[d] = (out[d] * (i_f + df) + out[d - 1] * (mf - i_f - df + 1.0)) * inv;
                }
                out[0] *= i_f * inv;
            }
        }
        Hashing::Distinct => {
            for h in 1..=k {
                // The h − 1 positions already chosen by this message are excluded.
                let taken = (h - 1) as f64;
                let inv = 1.0 / (mf - taken);
                for d in (0..=h).rev() {
                    let stay = if d < h {
                        out[d] * (i_f + d as f64 - taken).max(0.0)
                    } else {
                        0.0
                    };
                    let moved = if d > 0 {
                        out[d - 1] * (mf - i_f - (d - 1) as f64).max(0.0)
                    } else {
                        0.0
                    };
                    out[d] = (stay + moved) * inv;
                }
            }
        }
    }
}

/// The distinct-hash laws for every message size at once: `levels[c][d]` is the
/// probability that a message with `c` distinct positions (a uniformly random `c`-subset)
/// sets `d` new bits when `i` of `m` bits are set (hypergeometric), for `c = 0..=k`.
///
/// This is Eq. (11) [RBF] read at every intermediate hash index.
pub fn distinct_levels(m: u64, k: u32, i: u64) -> Vec<Vec<f64>> {
    let k = k as usize;
    let (mf, i_f) = (m as f64, i as f64);
    let mut levels = Vec::with_capacity(k + 1);
    let mut cur = vec![0.0; k + 1];
    cur[0] = 1.0;
    levels.push(cur.clone());
    for h in 1..=k {
        let taken = (h - 1) as f64;
        let denom = mf - taken;
        for d in (0..=h).rev() {
            let stay = if d < h {
                cur[d] * (i_f + d as f64 - taken).max(0.0) / denom
            } else {
                0.0
            };
            let moved = if d > 0 {
                cur[d - 1] * (mf - i_f - (d - 1) as f64).max(0.0) / denom
            } else {
                0.0
            };
            cur[d] = stay + moved;
        }
        levels.push(cur.clone());
    }
    levels
}

/// Probability that a message has exactly `c` distinct positions, `c = 0..=k`:
/// `τ_k(0, c)` (Stirling numbers of the second kind in closed form; here by Eq. (4)).
pub fn distinct_positions(m: u64, k: u32, hashing: Hashing) -> Vec<f64> {
    let mut out = vec![0.0; k as usize + 1];
    new_bits(m, k, 0, hashing, &mut out);
    out
}

/// The false-positive probability of a new message in state `i`, `ρ(i)`:
/// `(i/M)^k` (colliding), `C(i,k)/C(M,k)` (distinct). Eq. (17) [RBF].
///
/// Equal to the self-loop `τ_k(i, i)` (docs/errata.md), which the tests check.
pub fn rho(m: u64, k: u32, i: u64, hashing: Hashing) -> f64 {
    rho_real(m, k, i as f64, hashing)
}

/// [`rho`] at a real bit count `x` (`0 ≤ x ≤ M`): `(x/M)^k` (colliding),
/// `Π_{h<k} (x − h)/(M − h)` (distinct), for models that carry a mean number of set bits.
pub fn rho_real(m: u64, k: u32, x: f64, hashing: Hashing) -> f64 {
    let (mf, i_f) = (m as f64, x);
    match hashing {
        Hashing::Colliding => (i_f / mf).powi(k as i32),
        Hashing::Distinct => (0..k)
            .map(|h| ((i_f - f64::from(h)) / (mf - f64::from(h))).max(0.0))
            .product(),
    }
}

/// The natural log of [`rho`], `ln ρ(i)`, in log space so that it keeps its relative
/// precision where `ρ(i)` is below the smallest `f64`: `k·ln(i/M)` (colliding),
/// `Σ_{h<k} ln((i − h)/(M − h))` (distinct), Eq. (17) [RBF]; `−∞` where `ρ(i) = 0`.
pub fn ln_rho(m: u64, k: u32, i: u64, hashing: Hashing) -> f64 {
    let mf = m as f64;
    match hashing {
        Hashing::Colliding => f64::from(k) * (i as f64 / mf).ln(),
        Hashing::Distinct if i < u64::from(k) => f64::NEG_INFINITY,
        Hashing::Distinct => (0..k)
            .map(|h| ((i - u64::from(h)) as f64 / (mf - f64::from(h))).ln())
            .sum(),
    }
}

/// Where a recycle from state `i` sends the chain (threshold `σ`): `out[c]` for
/// `c = 0..=k` is the probability that the arrival in state `i` overflows (`b > σ`) and the
/// next cycle starts with `c` bits set.
///
/// * non-retaining: all the overflow mass goes to `c = 0` (Eqs. (5), (12) [RBF]);
/// * retaining, exact: the overflowing message is re-inserted alone, so `c` is its number
///   of distinct positions; overflow and `c` are dependent (a message with more distinct
///   positions overflows more often): `Σ_{d > σ−i} P(c)·Hyp(d; M, M−i, c)`;
/// * retaining, paper (Eq. (10) [RBF]): `τ(i,0)·τ(0,c)`, the product of the two laws.
///   Exact for distinct hashes (Eq. (14) [RBF], `c = k` always).
pub fn recycle_law(
    law: Law,
    sigma: u64,
    i: u64,
    retention: Retention,
    row: &[f64],
    out: &mut [f64],
) {
    let Law { m, k, hashing } = law;
    out.fill(0.0);
    let need = sigma.saturating_sub(i); // overflow iff d > need
    let overflow: f64 = row
        .iter()
        .enumerate()
        .filter(|(d, _)| *d as u64 > need)
        .map(|(_, p)| p)
        .sum();
    match (retention, hashing) {
        (Retention::None, _) => out[0] = overflow,
        (_, Hashing::Distinct) => out[k as usize] = overflow,
        (Retention::Paper, Hashing::Colliding) => {
            let pc = distinct_positions(m, k, hashing);
            for (o, p) in out.iter_mut().zip(pc) {
                *o = overflow * p;
            }
        }
        (Retention::Exact, Hashing::Colliding) => {
            let pc = distinct_positions(m, k, hashing);
            let levels = distinct_levels(m, k, i);
            for c in 1..=k as usize {
                let hyp: f64 = levels[c]
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| *d as u64 > need)
                    .map(|(_, p)| p)
                    .sum();
                out[c] = pc[c] * hyp;
            }
        }
    }
}

/// The hashing process of one filter: `m` bits, `k` hashes, colliding or distinct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Law {
    /// Bits of the filter `M`.
    pub m: u64,
    /// Hashes per message `k`.
    pub k: u32,
    /// Colliding or distinct hashes.
    pub hashing: Hashing,
}

impl Law {
    /// [`new_bits`] for this law.
    pub fn new_bits(&self, i: u64, out: &mut [f64]) {
        new_bits(self.m, self.k, i, self.hashing, out);
    }
    /// [`rho`] for this law.
    pub fn rho(&self, i: u64) -> f64 {
        rho(self.m, self.k, i, self.hashing)
    }
    /// [`ln_rho`] for this law.
    pub fn ln_rho(&self, i: u64) -> f64 {
        ln_rho(self.m, self.k, i, self.hashing)
    }
}

/// How the recycling message is treated, with the law used for the retaining chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Non-retaining: the next cycle starts empty.
    None,
    /// Retaining, with the exact joint law of overflow and message size.
    Exact,
    /// Retaining, with Eq. (10) [RBF] as printed (product of marginals).
    Paper,
}
