//! The σ-bounded RBF chain (Eqs. (15)-(18), (24)-(26) [RBF]) on small `M`.

use super::hp::{self, REL};
use bfopt_models::rbf::{Hashing, Method, RbfParams, Recycling};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use proptest::prelude::*;

type Q = BigRational;

fn q(n: u64) -> Q {
    Q::from_integer(BigInt::from(n))
}

fn binom(a: u64, b: u64) -> Q {
    if b > a {
        return Q::zero();
    }
    (0..b).fold(Q::one(), |acc, j| acc * q(a - j) / q(j + 1))
}

/// `τ(i, i + d)`: a message sets exactly `d` new bits in a filter of `m` bits with `i` set.
/// Distinct hashes: hypergeometric `C(M−i, d)·C(i, k−d)/C(M, k)`. Colliding: `k` draws with
/// replacement cover exactly `d` given unset bits, by inclusion–exclusion,
/// `C(M−i, d)·Σ_j (−1)^j C(d, j)(i + d − j)^k / M^k`.
fn tau(m: u64, k: u32, hashing: Hashing, i: u64, d: u64) -> Q {
    match hashing {
        Hashing::Distinct => {
            if d > u64::from(k) {
                return Q::zero();
            }
            binom(m - i, d) * binom(i, u64::from(k) - d) / binom(m, u64::from(k))
        }
        Hashing::Colliding => {
            let cover: Q = (0..=d)
                .map(|j| {
                    let t = binom(d, j) * q(i + d - j).pow(k as i32);
                    if j % 2 == 0 {
                        t
                    } else {
                        -t
                    }
                })
                .sum();
            binom(m - i, d) * cover / q(m).pow(k as i32)
        }
    }
}

/// The arrival chain on states `0..=σ` solved densely in exact rationals (Gaussian
/// elimination of `π(P − I) = 0`, `Σπ = 1`): `(f_σ¹, frozen FP, messages per cycle)`.
/// Non-retaining recycles to 0; retaining with distinct hashes to `k`.
fn chain(m: u64, k: u32, sigma: u64, hashing: Hashing, retaining: bool) -> (Q, Q, Q) {
    let n = sigma as usize + 1;
    let restart = if retaining { k as usize } else { 0 };
    let mut p = vec![vec![Q::zero(); n]; n];
    let mut overflow = vec![Q::zero(); n];
    let mut rho = vec![Q::zero(); n];
    for i in 0..n {
        for d in 0..=u64::from(k) {
            let t = tau(m, k, hashing, i as u64, d);
            if d == 0 {
                rho[i] = t.clone();
            }
            let j = i + d as usize;
            if j < n {
                p[i][j] += t;
            } else {
                overflow[i] += t.clone();
                p[i][restart] += t;
            }
        }
    }
    // Rows of A = (P − I)^T with the last equation replaced by Σπ = 1.
    let mut a: Vec<Vec<Q>> = (0..n)
        .map(|r| {
            let mut row: Vec<Q> = (0..n)
                .map(|c| p[c][r].clone() - if c == r { Q::one() } else { Q::zero() })
                .collect();
            row.push(Q::zero());
            row
        })
        .collect();
    a[n - 1] = vec![Q::one(); n + 1];
    for col in 0..n {
        let piv = (col..n).find(|&r| !a[r][col].is_zero()).unwrap();
        a.swap(col, piv);
        let inv = Q::one() / a[col][col].clone();
        let pivot: Vec<Q> = a[col].iter().map(|v| v * &inv).collect();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col && !row[col].is_zero() {
                let fac = row[col].clone();
                for (x, p) in row.iter_mut().zip(&pivot).skip(col) {
                    *x -= p * &fac;
                }
            }
        }
        a[col] = pivot;
    }
    let pi: Vec<Q> = (0..n).map(|r| a[r][n].clone()).collect();
    let fp: Q = pi.iter().zip(&rho).map(|(x, r)| x * r).sum();
    let recycle: Q = pi.iter().zip(&overflow).map(|(x, o)| x * o).sum();
    let frozen: Q = (0..n).map(|i| &pi[i] * &overflow[i] * &rho[i]).sum::<Q>() / &recycle;
    (fp, frozen, Q::one() / recycle)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// One and two phases, colliding and distinct hashes, non-retaining (and retaining
    /// with distinct hashes, whose restart state is exactly `k`): `fp_avg`, the frozen
    /// filter's FP and the messages per cycle against the dense exact solve.
    #[test]
    fn chain_small_m_to_1e12(m in 8u64..=40, k in 1u32..=4, sigma_frac in 0.0f64..1.0,
                             distinct in any::<bool>(), retaining in any::<bool>()) {
        let hashing = if distinct { Hashing::Distinct } else { Hashing::Colliding };
        let retaining = retaining && distinct;
        let sigma = u64::from(k) + ((m - 1 - u64::from(k)) as f64 * sigma_frac) as u64;
        let recycling = if retaining { Recycling::Retaining } else { Recycling::NonRetaining };
        let (fp, frozen, messages) = chain(m, k, sigma, hashing, retaining);
        let what = || format!("M={m} k={k} σ={sigma} {hashing:?} {recycling:?}");
        let one = RbfParams::new(m, k, sigma, 1, hashing, recycling).unwrap().metrics(Method::Exact).unwrap();
        hp::record("rbf chain f1", what, one.fp_avg, &hp::rational(&fp), REL);
        hp::record("rbf chain messages", what, one.expected_messages, &hp::rational(&messages), REL);
        let two = RbfParams::new(2 * m, k, sigma, 2, hashing, recycling).unwrap().metrics(Method::Exact).unwrap();
        hp::record("rbf chain frozen", what, two.fp_frozen.unwrap(), &hp::rational(&frozen), REL);
        let f2 = fp.clone() + frozen.clone() - fp * frozen;
        hp::record("rbf chain f2", what, two.fp_avg, &hp::rational(&f2), REL);
    }
}
