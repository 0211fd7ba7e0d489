//! Classic filters: standard, partitioned, blocked mixture and the exact law.

use super::hp::{self, f, one, powu, u, zero, F, REL};
use bfopt_models::classic::{
    fp_blocked, fp_exact_standard, fp_partitioned, fp_standard, ClassicParams, FpLaw, Layout,
    EXACT_BUDGET,
};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use proptest::prelude::*;

/// `(1 − (1 − 1/m)^t)^k` at 256 bits.
fn fill_pow(m: u64, t: u64, k: u64) -> F {
    let miss = one() - one() / u(m);
    powu(&(one() - powu(&miss, t)), k)
}

/// The occupancy law after `t` throws into `m` bits, in full (no band), at 256 bits:
/// `P_{t+1}(i) = P_t(i)·i/m + P_t(i−1)·(m−i+1)/m`.
struct Occupancy {
    m: u64,
    p: Vec<F>,
}

impl Occupancy {
    fn new(m: u64) -> Self {
        let mut p = vec![zero(); m as usize + 1];
        p[0] = one();
        Self { m, p }
    }

    fn throw(&mut self) {
        let mf = u(self.m);
        for i in (0..=self.m as usize).rev() {
            let stay = &self.p[i] * u(i as u64) / &mf;
            let arrive = if i > 0 {
                &self.p[i - 1] * u(self.m - i as u64 + 1) / &mf
            } else {
                zero()
            };
            self.p[i] = stay + arrive;
        }
    }

    /// `Σ_i P(i)·(i/m)^k`.
    fn fp(&self, k: u64) -> F {
        let mf = u(self.m);
        self.p.iter().enumerate().fold(zero(), |acc, (i, w)| {
            acc + w * powu(&(u(i as u64) / &mf), k)
        })
    }
}

/// The exact FP by the Stirling form, in exact rationals:
/// `P(X = i) = C(m,i)·Σ_j (−1)^j C(i,j)(i−j)^t / m^t`, `fp = Σ_i P(X = i)(i/m)^k`
/// (Bose et al. 2008; Christensen et al. 2010): a different formula from the
/// production's occupancy recursion.
fn exact_stirling(m: u64, k: u32, n: u64) -> BigRational {
    let t = u64::from(k) * n;
    let binom = |a: u64, b: u64| -> BigInt {
        (0..b).fold(BigInt::one(), |acc, j| {
            acc * BigInt::from(a - j) / BigInt::from(j + 1)
        })
    };
    let mut total = BigInt::zero();
    for i in 1..=m.min(t) {
        let surj: BigInt = (0..=i)
            .map(|j| {
                let term = binom(i, j) * BigInt::from(i - j).pow(t as u32);
                if j % 2 == 0 {
                    term
                } else {
                    -term
                }
            })
            .sum();
        total += binom(m, i) * surj * BigInt::from(i).pow(k);
    }
    BigRational::new(total, BigInt::from(m).pow(t as u32 + k))
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = u64> {
    (lo.ln()..hi.ln()).prop_map(|x| x.exp().round() as u64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// `(1 − (1 − 1/m)^(kn))^k` over the whole domain `m, n ≤ 2^50`, `k ≤ 64`.
    #[test]
    fn standard_formula_to_1e12(m in log_uniform(1.0, 2f64.powi(50)), k in 1u32..=64,
                                n in log_uniform(1.0, 2f64.powi(50))) {
        let m = m.max(u64::from(k)).max(2);
        let got = fp_standard(m as f64, f64::from(k), n as f64);
        let want = fill_pow(m, u64::from(k) * n, u64::from(k));
        hp::record("classic standard", || format!("m={m} k={k} n={n}"), got, &want, REL);
        // `fp()` is this formula where the exact law is too costly to evaluate (the
        // exact law, checked below, elsewhere).
        let p = ClassicParams::new(m, k, n, Layout::Standard).unwrap();
        if p.fp_law() == FpLaw::UsualFormula {
            prop_assert_eq!(p.fp(), got);
        }
    }

    /// `(1 − (1 − 1/s)^n)^k`, `s = ⌊m/k⌋`, over the whole domain.
    #[test]
    fn partitioned_formula_to_1e12(m in log_uniform(64.0, 2f64.powi(50)), k in 1u32..=64,
                                   n in log_uniform(1.0, 2f64.powi(50))) {
        let p = ClassicParams::new(m, k, n, Layout::Partitioned).unwrap();
        let s = p.slice_bits().max(1);
        let want = fill_pow(s, n, u64::from(k));
        hp::record("classic partitioned", || format!("m={m} k={k} n={n}"), p.fp(), &want, REL);
        prop_assert_eq!(fp_partitioned(s as f64, f64::from(k), n as f64), p.fp());
    }

    /// The exact law (occupancy recursion in `f64`, banded) against the Stirling form in
    /// exact rationals, on small filters.
    #[test]
    fn exact_law_to_1e12(m in 2u64..=40, k in 1u32..=6, n in 1u64..=20) {
        let got = fp_exact_standard(m, k, n, EXACT_BUDGET).unwrap();
        let want = hp::rational(&exact_stirling(m, k, n));
        hp::record("classic exact law", || format!("m={m} k={k} n={n}"), got, &want, REL);
    }

    /// The blocked independent-bits mixture `Σ_j Bin(j; n, B/m)·fp_standard(B, k, j)`
    /// for mean block loads up to 200.
    #[test]
    fn blocked_mixture_to_1e12(blocks in 2u64..=1 << 20, bb in 1u64..=16, k in 1u32..=16,
                               load in 0.05f64..200.0) {
        let block_bits = 64 * bb;
        let n = ((load * blocks as f64) as u64).max(1);
        let got = fp_blocked(blocks * block_bits, block_bits, k, n);
        let want = hp::binomial(n, blocks)
            .iter()
            .enumerate()
            .fold(zero(), |acc, (j, w)| acc + w * fill_pow(block_bits, u64::from(k) * j as u64, u64::from(k)));
        hp::record("classic blocked mixture", || format!("B={block_bits} blocks={blocks} k={k} n={n}"), got, &want, REL);
    }
}

/// The exact blocked law (the occupancy law of each block mixed over the block load,
/// [`ClassicParams::fp`] of a blocked layout) and the exact standard law on filters too
/// large for rationals, against the full (unbanded) recursion at 256 bits.
#[test]
fn exact_law_large_and_blocked_to_1e12() {
    for (m, k, n) in [(1000, 7, 100), (4096, 4, 400), (512, 8, 40)] {
        let mut occ = Occupancy::new(m);
        (0..u64::from(k) * n).for_each(|_| occ.throw());
        let got = fp_exact_standard(m, k, n, EXACT_BUDGET).unwrap();
        hp::record(
            "classic exact law",
            || format!("m={m} k={k} n={n}"),
            got,
            &occ.fp(u64::from(k)),
            REL,
        );
    }
    for (block_bits, blocks, k, n) in [(512u64, 1000u64, 8u32, 20_000u64), (64, 4096, 3, 20_000)] {
        let pmf = hp::binomial(n, blocks);
        let mut occ = Occupancy::new(block_bits);
        let mut want = zero();
        for w in &pmf {
            want += w * occ.fp(u64::from(k));
            (0..k).for_each(|_| occ.throw());
        }
        let p =
            ClassicParams::new(blocks * block_bits, k, n, Layout::Blocked { block_bits }).unwrap();
        hp::record(
            "classic blocked exact",
            || format!("B={block_bits} blocks={blocks} k={k} n={n}"),
            p.fp(),
            &want,
            REL,
        );
    }
}

/// `f(x)` is exact for `f64` inputs (a sanity check of the reference arithmetic).
#[test]
fn reference_arithmetic_is_exact_on_doubles() {
    assert_eq!(hp::to_f64(&f(0.1)), 0.1);
    assert_eq!(hp::to_f64(&(f(1e-300) * f(1e-300) / f(1e-300))), 1e-300);
}
