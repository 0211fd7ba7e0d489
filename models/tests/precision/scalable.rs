//! Scalable Bloom filter: the compound FP `1 − Π(1 − fp_i)` of a partitioned chain after
//! `n` items, each link's `(1 − (1 − 1/s_i)^{n_i'})^{k_i}` and the product taken at 256
//! bits from the links' `(m_i, k_i)` and the items each holds.

use super::hp::{self, one, powu, u, F, REL};
use bfopt_models::classic::Layout;
use bfopt_models::scalable::ScalableParams;
use proptest::prelude::*;

/// The compound FP at 256 bits, filling links in order.
fn compound(links: &[(u64, u64, u32)], n: u64) -> F {
    let mut left = n;
    let mut keep = one();
    for &(capacity, m, k) in links {
        let items = left.min(capacity);
        left -= items;
        let slice = m / u64::from(k);
        let fill = one() - powu(&(one() - one() / u(slice)), items);
        keep *= one() - powu(&fill, u64::from(k));
        if left == 0 {
            break;
        }
    }
    one() - keep
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn compound_fp_matches_256_bit(
        n0 in 1u64..=5000,
        p0_exp in 0.5f64..12.0,
        r in 0.05f64..0.99,
        s in 1.0f64..6.0,
        extra in 0.0f64..1.0,
    ) {
        let p = ScalableParams::new(n0, 10f64.powf(-p0_exp), r, s, Layout::Partitioned).unwrap();
        // Somewhere inside link 0..=5.
        let full: u64 = (0..5).map(|i| p.link_capacity(i)).sum();
        let n = ((full as f64) * extra).round() as u64;
        let chain = p.chain(n.max(1)).unwrap();
        let links: Vec<_> = chain.links().iter().map(|l| (l.capacity, l.m, l.k)).collect();
        let got = chain.at(n).unwrap().fp;
        hp::record("scalable compound", || format!("{p:?} n={n}"), got, &compound(&links, n), REL);
    }
}
