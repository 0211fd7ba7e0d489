//! Counting Bloom filters and cuckoo filters: the binomial counter tail and the cuckoo FP.

use super::hp::{self, one, powu, u, zero, F, REL};
use bfopt_models::counting::CountingParams;
use bfopt_models::cuckoo::CuckooParams;
use bfopt_models::numeric::binomial_upper_tail;

/// `P(Bin(n, p) ≥ t)` summed term by term at 256 bits.
fn tail(n: u64, p: &F, t: u64) -> F {
    let q = one() - p;
    let mut choose = one();
    let mut sum = zero();
    for j in 0..=n {
        if j >= t {
            sum += &choose * powu(p, j) * powu(&q, n - j);
        }
        choose = choose * u(n - j) / u(j + 1);
    }
    sum
}

#[test]
fn binomial_upper_tail_matches_256_bits() {
    for (n, m) in [
        (40u64, 10u64),
        (200, 50),
        (700, 4096),
        (1000, 97),
        (2400, 1000),
    ] {
        let p = one() / u(m);
        for t in [1u64, 2, 4, 8, 16, 32] {
            if t > n {
                continue;
            }
            let want = tail(n, &p, t);
            hp::record(
                "binomial upper tail",
                || format!("n={n} p=1/{m} t={t}"),
                binomial_upper_tail(n, 1.0 / m as f64, t),
                &want,
                REL,
            );
        }
    }
}

#[test]
fn counting_overflow_is_m_times_the_tail() {
    for (m, k, n, c) in [
        (4096u64, 4u32, 700u64, 2u32),
        (4096, 4, 1380, 3),
        (1000, 7, 100, 4),
    ] {
        let p = CountingParams::new(m, k, n, c).unwrap();
        let want = tail(u64::from(k) * n, &(one() / u(m)), 1 << c) * u(m);
        hp::record(
            "counting expected overflows",
            || format!("m={m} k={k} n={n} c={c}"),
            p.metrics().expected_overflows,
            &want,
            REL,
        );
    }
}

#[test]
fn cuckoo_fp_matches_256_bits_at_integer_loads() {
    // 2bα integer: 1 − (1 − 1/(2^f − 1))^(2bα) exactly.
    for (f_bits, b, buckets, n) in [
        (8u32, 4u32, 1000u64, 2000u64),
        (4, 2, 100, 150),
        (16, 8, 64, 512),
    ] {
        let p = CuckooParams::new(f_bits, b, buckets, n).unwrap();
        let x = 2 * n / buckets; // 2bα = 2n/buckets
        assert_eq!(x * buckets, 2 * n);
        let q = one() / (u(1 << f_bits) - one());
        let want = one() - powu(&(one() - q), x);
        hp::record(
            "cuckoo fp",
            || format!("f={f_bits} b={b} buckets={buckets} n={n}"),
            p.fp(),
            &want,
            REL,
        );
    }
}
