//! The `(k0, k1)` chooser's sums of Eq. (32) [TBF] for every observation at once, from
//! the Bernstein moments of the age pieces (issue 18).
//!
//! # Formula
//! On a piece of prior mass `μ` and decay `t = q_ε^(D_{−x}(i))` (`s = 1 − t`), each factor
//! of the likelihood of Eq. (32) [TBF] is affine in `t` with non-negative coefficients in
//! `t` and `s`:
//! `f0(1,i) = t + π0 s`, `1 − f0(1,i) = (1 − π0) s`, `1 − f0(0,i) = t + (1 − π0) s`,
//! `f0(0,i) = π0 s`. So, with `r0 = k0`, `r1 = k1`,
//! - `A_c0 = f0(1,i)^c0 (1 − f0(1,i))^(r0−c0) = Σ_{i<=c0} a_{c0,i} t^i s^(r0−i)`,
//!   `a_{c0,i} = C(c0,i) π0^(c0−i) (1−π0)^(r0−c0)`;
//! - `B_c1 = (1 − f0(0,i))^c1 f0(0,i)^(r1−c1) = Σ_{j<=c1} b_{c1,j} t^j s^(r1−j)`,
//!   `b_{c1,j} = C(c1,j) (1−π0)^(c1−j) π0^(r1−c1)`;
//!
//! and the sum over the pieces of `μ A_c0 B_c1` is `Σ_{i,j} a_{c0,i} b_{c1,j} M_{i+j}`
//! with the moments `M_j = Σ μ t^j s^(K−j)`, `K = r0 + r1`: for every observation at
//! once, `S = A H Bᵀ` with the Hankel matrix `H_ij = M_{i+j}`.
//!
//! # Cost
//! The moments depend on the filter only through `K` (and on the cut of the pieces,
//! which one [`super::PieceShape`] shares across a band of `K` and every split of each),
//! so the chooser builds them once per `K` and item class, `pieces·(K + 1)`
//! multiplications, from one cut per band and class, and each
//! `(k0, k1)` then costs two small matrix products, `n0 n1 (n0 + n1)` multiply-adds
//! (`n0 = k0 + 1`, `n1 = k1 + 1`), instead of `pieces · n0 n1` for the sum over the
//! pieces of every observation (2,000-7,000 pieces per class at the chooser's `δ`).
//!
//! # Accuracy
//! Every coefficient and every moment is non-negative, so nothing cancels: each sum
//! carries the roundings of the moments (chunked sums, about `(C + n/C)·ε` for `n`
//! pieces in chunks of `C =` [`PieceMoments::SUM_CHUNK`]), of the coefficients (a few
//! per power) and of the two products (`n0 + n1` terms). A test holds every sum to the
//! compensated per-observation sums of [`super::GbfDistinctTable::split_sums`].

use super::{AgePieces, GbfParams};
use nalgebra::DMatrix;

/// The Bernstein moments `M_j = Σ μ t^j (1 − t)^(K−j)`, `j = 0..=K`, of one class's age
/// pieces, over the pieces inside the window and, apart, over those beyond it
/// ([`AgePieces::moments_by_hashes`]).
#[derive(Debug, Clone)]
pub struct PieceMoments {
    degree: u32,
    inside: Vec<f64>,
    beyond: Vec<f64>,
}

impl PieceMoments {
    /// Pieces per chunk of the moments' running sums: each chunk is summed on its own,
    /// then added to the totals, so the rounding of a sum of `n` pieces grows with
    /// `C + n/C` rather than `n`.
    pub const SUM_CHUNK: usize = 256;

    /// The moments of every degree `K` of the filters `pieces` serve
    /// ([`super::PieceShape`]), least first: each piece's `t_K` and `1 − t_K` for every
    /// `K` from [`super::PieceShape`]'s recurrence, then its powers.
    pub(super) fn of(pieces: &AgePieces) -> Vec<Self> {
        let shape = pieces.shape;
        let degrees: Vec<u32> = (shape.min_hashes..=shape.max_hashes).collect();
        // Degree `K`'s moments at `at[K − K_min]..at[K − K_min] + K + 1` of one buffer.
        let at: Vec<usize> = degrees
            .iter()
            .scan(0, |next, &k| {
                let here = *next;
                *next += k as usize + 1;
                Some(here)
            })
            .collect();
        let len = at.last().map_or(0, |&l| l) + shape.max_hashes as usize + 1;
        let sum_over = |rows: &[(f64, super::Decay)]| {
            let mut total = vec![0.0; len];
            let mut chunk_sum = vec![0.0; len];
            let mut powers = vec![0.0; shape.max_hashes as usize + 1];
            for chunk in rows.chunks(Self::SUM_CHUNK) {
                chunk_sum.fill(0.0);
                for &(mass, decay) in chunk {
                    for ((k, t, s), &from) in shape.by_hashes(decay).zip(&at) {
                        let acc = &mut chunk_sum[from..from + k as usize + 1];
                        add_powers_times(t, s, mass, &mut powers, acc);
                    }
                }
                for (t, c) in total.iter_mut().zip(&chunk_sum) {
                    *t += c;
                }
            }
            total
        };
        let (inside, beyond) = pieces.rows.split_at(pieces.inside);
        let (inside, beyond) = (sum_over(inside), sum_over(beyond));
        degrees
            .iter()
            .zip(&at)
            .map(|(&degree, &from)| {
                let span = from..from + degree as usize + 1;
                Self {
                    degree,
                    inside: inside[span.clone()].to_vec(),
                    beyond: beyond[span].to_vec(),
                }
            })
            .collect()
    }

    /// `K`, the degree.
    pub fn degree(&self) -> u32 {
        self.degree
    }
}

/// Every observation's likelihood of one filter as coefficients in `t^i s^(r−i)`: the
/// matrices `A` and `B` of the module's formula, shared by every item class.
#[derive(Debug, Clone)]
pub struct LikelihoodExpansion {
    r1: u32,
    /// `Aᵀ`: `(r0 + 1) × (r0 + 1)`, entry `(i, c0)` is `a_{c0,i}`.
    a_tr: DMatrix<f64>,
    /// `B`: `(r1 + 1) × (r1 + 1)`, entry `(c1, j)` is `b_{c1,j}`.
    b: DMatrix<f64>,
}

impl LikelihoodExpansion {
    /// The expansion for `params`' observations (`r0 = k0`, `r1 = k1`).
    pub fn new(params: &GbfParams) -> Self {
        let p0 = params.pi0();
        let (r0, r1) = (params.k0(), params.k1());
        let a = coefficients(r0, p0, 1.0 - p0);
        Self {
            r1,
            a_tr: a.transpose(),
            b: coefficients(r1, 1.0 - p0, p0),
        }
    }

    /// `(Σ_{i<w} P(i) L_o(i), Σ_{i>=w} P(i) L_o(i))` (up to the factor `p_x`) for every
    /// observation `o = (c0, c1)`, from `moments` of degree `k0 + k1`.
    ///
    /// # Panics
    /// `moments` of another degree.
    pub fn sums(&self, moments: &PieceMoments) -> ObservationSums {
        let (n0, n1) = (self.a_tr.nrows(), self.b.nrows());
        assert_eq!(
            moments.degree as usize + 2,
            n0 + n1,
            "moments of degree k0 + k1"
        );
        // `Sᵀ = B Hᵀ Aᵀ`, `n1 × n0` column-major: row-major in `c0` as stored.
        let sum = |m: &[f64]| {
            let h_tr = DMatrix::from_fn(n1, n0, |j, i| m[i + j]);
            let st = &self.b * h_tr * &self.a_tr;
            st.as_slice().to_vec()
        };
        ObservationSums {
            r1: self.r1,
            num: sum(&moments.inside),
            beyond: sum(&moments.beyond),
        }
    }
}

/// The coefficients of `(t + u s)^c (v s)^(r−c)` in `t^i s^(r−i)`, `c, i = 0..=r`:
/// entry `(c, i)` is `C(c, i) u^(c−i) v^(r−c)` for `i <= c`, else 0.
fn coefficients(r: u32, u: f64, v: f64) -> DMatrix<f64> {
    let n = r as usize + 1;
    let pow = |x: f64| -> Vec<f64> { (0..n as i32).map(|e| x.powi(e)).collect() };
    let (pu, pv) = (pow(u), pow(v));
    let mut out = DMatrix::zeros(n, n);
    for c in 0..n {
        let binom = crate::timing::btbf::binomials(c as u32);
        for i in 0..=c {
            out[(c, i)] = binom[i] * pu[c - i] * pv[n - 1 - c];
        }
    }
    out
}

/// The sums of every observation with `r0` and `r1` cells
/// ([`LikelihoodExpansion::sums`]).
#[derive(Debug, Clone)]
pub struct ObservationSums {
    r1: u32,
    /// `Σ_{i<w}` per `(c0, c1)`, row-major in `c0`.
    num: Vec<f64>,
    /// `Σ_{i>=w}` per `(c0, c1)`.
    beyond: Vec<f64>,
}

impl ObservationSums {
    /// `(Σ_{i<w} (1−p)^i L_o(i), Σ_i (1−p)^i L_o(i))` for `c0` zero cells and `c1` one
    /// cells.
    ///
    /// # Panics
    /// `c0 > r0` or `c1 > r1`.
    pub fn get(&self, c0: u32, c1: u32) -> (f64, f64) {
        let (num, beyond) = self.get_split(c0, c1);
        (num, num + beyond)
    }

    /// `(Σ_{i<w} (1−p)^i L_o(i), Σ_{i>=w} (1−p)^i L_o(i))`: the part beyond the window
    /// summed on its own ([`super::GbfDistinctTable::split_sums`]).
    ///
    /// # Panics
    /// As [`Self::get`].
    pub fn get_split(&self, c0: u32, c1: u32) -> (f64, f64) {
        assert!(c1 <= self.r1, "c1 = {c1} > r1 = {}", self.r1);
        let at = c0 as usize * (self.r1 as usize + 1) + c1 as usize;
        (self.num[at], self.beyond[at])
    }
}

/// `acc[c] += scale · x^c · y^(n−c)` for `c = 0..=n` (`n = acc.len() − 1`; `scratch` at
/// least as long as `acc`), by repeated multiplication in four interleaved chains
/// (`z^(j+4) = z^j · z^4`): suffix powers of `y` into `scratch` first, then prefix
/// powers of `x`, each product added as it is formed. Four independent chains keep the
/// multiplier busy where one chain waits on each product, and each power carries at
/// most `j/4 + 3` roundings.
fn add_powers_times(x: f64, y: f64, scale: f64, scratch: &mut [f64], acc: &mut [f64]) {
    /// `[s, s·z, s·z², s·z³]` and `z⁴`.
    fn lanes(z: f64, s: f64) -> ([f64; 4], f64) {
        let z2 = z * z;
        ([s, s * z, s * z2, s * z2 * z], z2 * z2)
    }
    let n = acc.len();
    let out = &mut scratch[..n];
    let (mut q, y4) = lanes(y, scale);
    let mut j = 0;
    while j + 4 <= n {
        let block = &mut out[n - j - 4..n - j];
        block[3] = q[0];
        block[2] = q[1];
        block[1] = q[2];
        block[0] = q[3];
        q = [q[0] * y4, q[1] * y4, q[2] * y4, q[3] * y4];
        j += 4;
    }
    for (l, v) in out[..n - j].iter_mut().rev().enumerate() {
        *v = q[l];
    }
    let (mut q, x4) = lanes(x, 1.0);
    let mut blocks = acc.chunks_exact_mut(4).zip(out.chunks_exact(4));
    for (a, o) in &mut blocks {
        a[0] += o[0] * q[0];
        a[1] += o[1] * q[1];
        a[2] += o[2] * q[2];
        a[3] += o[3] * q[3];
        q = [q[0] * x4, q[1] * x4, q[2] * x4, q[3] * x4];
    }
    let done = n / 4 * 4;
    for ((a, o), q) in acc[done..].iter_mut().zip(&out[done..]).zip(q) {
        *a += o * q;
    }
}
