//! One arrival's effect on the bit count: the transition laws τ_k(i, j), Eqs. (4)-(14) [RBF].
//!
//! All laws are computed by the paper's recursion over the hash index `h` (its subscript
//! `k`), for one starting state `i` at a time: `O(k²)` time and `O(k)` memory per state.
//! Only sums of non-negative terms appear, so every probability keeps full relative
//! accuracy.

use super::Hashing;

/// Rows of [`new_bits`] up to `k + 1 = FAST_K` entries are built on the stack.
const FAST_K: usize = 65;

/// The colliding law of [`new_bits`] for `k < N`, `out` holding `τ_0` (`[1, 0, …]`).
///
/// As the in-place recursion of [`new_bits`], with the same operations in the same order
/// (so bit-identical), but walking up with the old entry below carried along, and the
/// factors `i + d` and `M − i − d + 1` made once (integers below 2^53: exact), not
/// converted and subtracted for every `(h, d)`, so that the loop compiles to vector
/// instructions (issue 18: this loop was 70% of an RBF design's time). Entry `h` is 0
/// before hash `h`, so its new value `(0·(i + h) + out[h−1]·(M − i − h + 1))/M` is the
/// recursion's `out[h−1]·(M − i − h + 1)/M`.
fn colliding<const N: usize>(mf: f64, i_f: f64, k: usize, out: &mut [f64]) {
    let inv = 1.0 / mf;
    let (mut stay, mut moved) = ([0.0; N], [0.0; N]);
    for d in 1..=k {
        let df = d as f64;
        stay[d] = i_f + df;
        moved[d] = mf - i_f - df + 1.0;
    }
    for h in 1..=k {
        let mut below = out[0];
        for ((o, s), mv) in out[1..=h].iter_mut().zip(&stay[1..=h]).zip(&moved[1..=h]) {
            let old = *o;
            *o = (old * s + below * mv) * inv;
            below = old;
        }
        out[0] *= i_f * inv;
    }
}

/// States whose [`new_bits`] rows [`NewBitsBatch`] makes at once.
pub const BATCH: usize = 8;

/// The rows of [`new_bits`] for [`BATCH`] consecutive states at once, bit-identical to
/// one state at a time: the colliding recursion runs over the states in the innermost
/// loop, which compiles to vector instructions at any `k` (one state's row has only
/// `h` entries at hash `h`: short loops). Distinct hashing: state by state.
#[derive(Debug, Clone)]
pub struct NewBitsBatch {
    law: Law,
    /// First state of the batch (`u64::MAX`: none yet).
    first: u64,
    /// `rows[d][b] = τ_k(first + b, first + b + d)`.
    rows: Vec<[f64; BATCH]>,
    /// `stay[d][b] = i + d` and `moved[d][b] = M − i − d + 1` with `i = first + b`.
    stay: Vec<[f64; BATCH]>,
    moved: Vec<[f64; BATCH]>,
}

impl NewBitsBatch {
    /// An empty batch for `law`.
    pub fn new(law: Law) -> Self {
        let w = law.k as usize + 1;
        Self {
            law,
            first: u64::MAX,
            rows: vec![[0.0; BATCH]; w],
            stay: vec![[0.0; BATCH]; w],
            moved: vec![[0.0; BATCH]; w],
        }
    }

    /// Writes `τ_k(i, i + d)` for `d = 0..=k` to `out`, making the batch of `i` first
    /// if it is not the current one.
    ///
    /// # Panics
    /// Only on an internal invariant: `out.len() == k + 1`.
    pub fn row(&mut self, i: u64, out: &mut [f64]) {
        let k = self.law.k as usize;
        assert_eq!(out.len(), k + 1, "out holds d = 0..=k");
        if self.law.hashing == Hashing::Distinct {
            self.law.new_bits(i, out);
            return;
        }
        if !(self.first <= i && i - self.first < BATCH as u64) {
            // Aligned, so that a backward walk uses each batch whole too.
            self.fill(i - i % BATCH as u64);
        }
        let b = (i - self.first) as usize;
        for (o, r) in out.iter_mut().zip(&self.rows) {
            *o = r[b];
        }
    }

    /// The colliding rows of states `first..first + BATCH`: the recursion of
    /// [`new_bits`] (Eq. (4) [RBF]) with each state's operations in the same order.
    fn fill(&mut self, first: u64) {
        let k = self.law.k as usize;
        let mf = self.law.m as f64;
        let inv = 1.0 / mf;
        self.first = first;
        let mut i_inv = [0.0; BATCH];
        for (b, ii) in i_inv.iter_mut().enumerate() {
            let i_f = (first + b as u64) as f64;
            *ii = i_f * inv;
            for d in 0..=k {
                let df = d as f64;
                self.stay[d][b] = i_f + df;
                self.moved[d][b] = mf - i_f - df + 1.0;
            }
        }
        let rows = &mut self.rows;
        rows.fill([0.0; BATCH]);
        rows[0] = [1.0; BATCH];
        for h in 1..=k {
            // From the top, in place: entry d − 1 is still the old one. Entry h is 0,
            // so its new value is the recursion's `out[h−1]·(M − i − h + 1)/M`.
            for d in (1..=h).rev() {
                let (lower, upper) = rows.split_at_mut(d);
                step(
                    &mut upper[0],
                    &lower[d - 1],
                    &self.stay[d],
                    &self.moved[d],
                    inv,
                );
            }
            for (r, f) in rows[0].iter_mut().zip(&i_inv) {
                *r *= f;
            }
        }
    }
}

/// One entry of one hash's step of the colliding recursion for a batch of states:
/// `here = (here·stay + below·moved)/M`.
#[inline(always)]
fn step(
    here: &mut [f64; BATCH],
    below: &[f64; BATCH],
    stay: &[f64; BATCH],
    moved: &[f64; BATCH],
    inv: f64,
) {
    let (h, l) = (*here, *below);
    let mut out = [0.0; BATCH];
    for b in 0..BATCH {
        out[b] = (h[b] * stay[b] + l[b] * moved[b]) * inv;
    }
    *here = out;
}

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
        // Small rows on a small stack buffer: zeroing 65 entries twice per row was 14%
        // of the time.
        Hashing::Colliding if k < 17 => colliding::<17>(mf, i_f, k, out),
        Hashing::Colliding if k < FAST_K => colliding::<FAST_K>(mf, i_f, k, out),
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
