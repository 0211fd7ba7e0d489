use super::fastbloom::FastbloomConfig;
use super::guava::GuavaConfig;
use super::redisbloom::{self, RedisBloomConfig};
use super::rocksdb::{choose_num_probes, RocksDbConfig};
use super::split_block::{self, ParquetConfig};
use super::*;
use crate::classic::{fp_partitioned, fp_standard};
use std::f64::consts::LN_2;

/// The (n, p) grid of the sizing tests: 8 capacities × 40 FP targets.
fn grid() -> impl Iterator<Item = (u64, f64)> {
    [1u64, 7, 100, 1000, 12_345, 1_000_000, 33_333_333, 1 << 30]
        .into_iter()
        .flat_map(|n| {
            (0..40).map(move |i| (n, 0.3 * 0.7f64.powi(i))) // 0.3 down to 2.7e-7
        })
}

// Guava: the published formulas (BloomFilter.java "cheat sheet": m = -n ln p / (ln 2)^2,
// k = round(-ln p / ln 2)) and its long-word array, at every grid point.
#[test]
fn guava_sizing_matches_its_published_formulas() {
    for (n, p) in grid() {
        let c = GuavaConfig::new(n, p).unwrap();
        let m = (-(n as f64) * p.ln() / (LN_2 * LN_2)).floor() as u64;
        assert_eq!(c.num_bits(), m, "n={n} p={p}");
        assert_eq!(c.bits(), m.div_ceil(64) * 64);
        assert_eq!(
            c.hashes(),
            ((-p.ln() / LN_2).round() as u32).max(1),
            "n={n} p={p}"
        );
    }
}

#[test]
fn guava_printed_values() {
    // BloomFilter.java: "optimalM(1000, 0.0000000000000001) = 76680"; "for 3%, we always
    // get 5 hash functions".
    assert_eq!(GuavaConfig::new(1000, 1e-16).unwrap().num_bits(), 76680);
    assert_eq!(GuavaConfig::new(123, 0.03).unwrap().hashes(), 5);
    // 0 bits: Guava throws ("Could not create BloomFilter of 0 bits").
    assert!(GuavaConfig::new(1, 0.9).unwrap().build().is_err());
}

// RedisBloom: bloom_init with NOROUND | FORCE64, against the BF.RESERVE page's formulas
// (bits per item -ln(p)/ln(2)^2, hashes ceil(-ln(p)/ln(2))) at every grid point that
// BF.RESERVE accepts (capacity <= 2^30, error <= 0.25).
#[test]
fn redisbloom_sizing_matches_its_published_formulas() {
    for (n, p) in grid().filter(|&(_, p)| p <= 0.25) {
        let c = RedisBloomConfig::new(n, p).unwrap();
        let bpe = -p.ln() / (LN_2 * LN_2);
        assert!((c.bpe() - bpe).abs() <= 1e-12 * bpe, "n={n} p={p}");
        let raw = ((n as f64 * c.bpe()) as u64).max(1);
        assert_eq!(c.bits(), raw.div_ceil(64) * 64, "n={n} p={p}");
        assert_eq!(c.hashes(), (-p.log2()).ceil() as u32, "n={n} p={p}");
    }
}

#[test]
fn redisbloom_printed_values() {
    // BF.RESERVE page: 1% takes 7 hashes and 9.585 bits per item, 0.1% 10 and 14.378,
    // 0.01% 14 and 19.170.
    for (p, k, bpe) in [
        (0.01, 7, "9.585"),
        (0.001, 10, "14.378"),
        (0.0001, 14, "19.170"),
    ] {
        let c = RedisBloomConfig::new(1000, p).unwrap();
        assert_eq!(c.hashes(), k);
        assert_eq!(format!("{:.3}", c.bpe()), bpe);
    }
    // BF.DEBUG of a scaling filter reserved at 0.0001 and 10^6 (github.com/Expeth/
    // redis-bloom-performance): links at 5e-5, 2.5e-5, 1.25e-5 with capacities
    // 10^6, 2·10^6, 4·10^6.
    let first = RedisBloomConfig::first_link(1_000_000, 0.0001).unwrap();
    assert_eq!(
        (first.bits(), first.bits() / 8, first.hashes()),
        (20_612_864, 2_576_608, 15)
    );
    let second = RedisBloomConfig::new(2_000_000, 2.5e-5).unwrap();
    assert_eq!((second.bits(), second.hashes()), (44_111_040, 16));
    let third = RedisBloomConfig::new(4_000_000, 1.25e-5).unwrap();
    assert_eq!((third.bits(), third.hashes()), (93_992_832, 17));
    // Without NONSCALING: the first link at half the error rate.
    let s = redisbloom::scaling(1_000_000, 0.01).unwrap();
    assert_eq!(s.config, "BF.RESERVE k 0.01 1000000");
    let half = RedisBloomConfig::new(1_000_000, 0.005).unwrap();
    assert_eq!(
        (s.filter.bits, s.filter.hashes),
        (half.bits(), half.hashes())
    );
    assert_eq!(half.hashes(), 8);
    // Error rates above 0.25 are capped.
    assert_eq!(
        RedisBloomConfig::new(10, 0.5).unwrap(),
        RedisBloomConfig::new(10, 0.25).unwrap()
    );
    assert!(RedisBloomConfig::new((1 << 30) + 1, 0.01).is_err());
}

#[test]
fn split_block_fp_is_the_partitioned_block_mixture() {
    // One block: eight 32-bit slices.
    assert_eq!(
        split_block::fp(256, 10).unwrap(),
        fp_partitioned(32.0, 8.0, 10.0)
    );
    // Many blocks: close to the Poisson mixture; below the in-block FP at the mean load
    // (Jensen: the in-block FP is convex in the load at these loads) — no, above it.
    let (bits, n) = (1u64 << 20, 100_000u64);
    let mixed = split_block::fp(bits, n).unwrap();
    let mean = fp_partitioned(32.0, 8.0, n as f64 / (bits / 256) as f64);
    assert!(mixed > mean && mixed < 1.5 * mean, "{mixed} vs {mean}");
    assert_eq!(split_block::fp(256, 0).unwrap(), 0.0);
    assert!(split_block::fp(255, 1).is_err());
    // Saturated: 2^40 keys in 2^20 blocks.
    assert_eq!(split_block::fp(1 << 28, 1 << 40).unwrap(), 1.0);
}

#[test]
fn parquet_sizing_follows_parquet_java() {
    // 10^6 values at 1%: 9.68 Mbit -> 1.21 MB -> 2 MiB, capped at the 1 MiB default.
    let c = ParquetConfig::new(1_000_000, 0.01).unwrap();
    let m = -8.0 * 1e6 / (1.0 - 0.01f64.powf(0.125)).ln();
    assert_eq!(c.optimal_num_of_bits(), ((m as u64) + 255) & !256);
    assert_eq!(c.bytes(), 1 << 20);
    assert_eq!(c.with_max_bytes(4 << 20).unwrap().bytes(), 2 << 20);
    // Tiny: one block.
    assert_eq!(ParquetConfig::new(1, 0.5).unwrap().bytes(), 32);
    // Always a power of two at or below the cap, at every grid point.
    for (n, p) in grid() {
        let b = ParquetConfig::new(n, p).unwrap().bytes();
        assert!(
            b.is_power_of_two() && (32..=1 << 20).contains(&b),
            "n={n} p={p}: {b}"
        );
    }
}

#[test]
fn rocksdb_probes_and_sizes() {
    // The comments of ChooseNumProbes: 28000 -> 12, 28001 -> 13, 50000 -> 23, 50001 -> 24.
    for (mb, k) in [
        (2080, 1),
        (2081, 2),
        (10_000, 6),
        (10_070, 6),
        (10_071, 7),
        (28_000, 12),
        (28_001, 13),
        (50_000, 23),
        (50_001, 24),
    ] {
        assert_eq!(choose_num_probes(mb), k, "{mb}");
    }
    let c = RocksDbConfig::new(10.0, 1_000_000).unwrap();
    assert_eq!(
        (c.millibits(), c.len_bytes(), c.hashes()),
        (10_000, 1_250_048, 6)
    );
    // 9.9999999 is read as 10 bits (the +0.500001 nudge); < 1 as 1; 0.4 is no filter.
    assert_eq!(
        RocksDbConfig::new(9.9999999, 10).unwrap().millibits(),
        10_000
    );
    assert_eq!(RocksDbConfig::new(0.7, 10).unwrap().millibits(), 1000);
    assert!(RocksDbConfig::new(0.4, 10).is_err());
    assert!(RocksDbConfig::new(f64::NAN, 10).is_err());
}

#[test]
fn fastbloom_sizing() {
    let c = FastbloomConfig::with_false_pos(0.01, 1_000_000).unwrap();
    // 8·⌈10^6·ln 0.01/(-8 (ln 2)^2)⌉ = 9 585 064, rounded to words: 9 585 088.
    assert_eq!(c.bits(), 9_585_088);
    assert_eq!(c.hashes(), 7);
    let b = FastbloomConfig::with_num_bits(1000, 0, 10).unwrap_err();
    assert!(b.to_string().contains("k"));
    assert_eq!(
        FastbloomConfig::with_num_bits(1000, 3, 10).unwrap().bits(),
        1024
    );
}

#[test]
fn every_suggestion_meets_its_target_with_no_less_memory_possible() {
    for system in System::ALL {
        for (n, fp) in [
            (1_000_000u64, 0.01),
            (1_000_000, 0.001),
            (5000, 0.02),
            (1, 0.1),
        ] {
            let t = target(system, fp, n).unwrap();
            let s = &t.suggested.filter;
            assert!(s.fp <= fp, "{system:?} n={n} fp={fp}: {s:?}");
            // The typed requests that meet the target use no less memory.
            if t.requested.filter.fp <= fp {
                assert!(
                    t.requested.filter.bits >= s.bits,
                    "{system:?} n={n} fp={fp}"
                );
            }
        }
    }
}

#[test]
fn standard_suggestions_are_least_memory() {
    // One word less than Guava's / RedisBloom's suggestion meets the target with no k.
    for (n, fp) in [(1_000_000u64, 0.01), (1_000_000, 0.001), (777, 0.05)] {
        for system in [System::Guava, System::RedisBloom, System::Fastbloom] {
            let s = target(system, fp, n).unwrap().suggested.filter;
            let fewer = s.bits - 64;
            let best = (1..=64)
                .map(|k| fp_standard(fewer as f64, f64::from(k), n as f64))
                .fold(1.0, f64::min);
            // Guava and RedisBloom tie k to p, so they may need more than fastbloom;
            // fastbloom, free in k, is least memory outright.
            if system == System::Fastbloom {
                assert!(
                    best > fp,
                    "{system:?} n={n} fp={fp}: {fewer} bits reach {best}"
                );
            }
            let fb = target(System::Fastbloom, fp, n)
                .unwrap()
                .suggested
                .filter
                .bits;
            assert!(
                s.bits >= fb,
                "{system:?} below the least-memory standard filter"
            );
        }
    }
}

#[test]
fn defaults_at_one_percent() {
    // 10^6 keys at 1%: the typed requests of every system, and whether they meet it.
    let t = target(System::Guava, 0.01, 1_000_000).unwrap();
    assert_eq!(
        (t.requested.filter.bits, t.requested.filter.hashes),
        (9_585_088, 7)
    );
    assert!(t.requested.filter.fp > 0.01, "{}", t.requested.filter.fp);
    let t = target(System::Parquet, 0.01, 1_000_000).unwrap();
    assert_eq!(t.requested.filter.bits, 8 << 20);
    assert!(t.requested.filter.fp > 0.02);
    assert_eq!(t.suggested.filter.bits, 16 << 20);
    assert!(
        t.suggested.config.contains("max.bytes=2097152"),
        "{}",
        t.suggested.config
    );
}

#[test]
fn shortest_decimal_prefers_few_digits() {
    assert_eq!(shortest_decimal(0.0085, 0.00987654, |_| true), Some(0.009));
    assert_eq!(shortest_decimal(0.0097, 0.00987654, |_| true), Some(0.0098));
    assert_eq!(
        shortest_decimal(0.0098759, 0.00987654, |_| true),
        Some(0.009876)
    );
    // Only values the predicate accepts; none at all: None.
    assert_eq!(shortest_decimal(0.0, 0.5, |x| x < 0.3), None);
    assert_eq!(shortest_decimal(0.0, 0.35, |x| x < 0.34), Some(0.3));
}

#[test]
fn bad_input_is_an_error_naming_the_parameter() {
    for fp in [0.0, 1.0, f64::NAN, -0.1, f64::INFINITY] {
        let e = target(System::Guava, fp, 10).unwrap_err();
        assert!(e.to_string().contains("fp"), "{e}");
    }
    let e = target(System::RocksDb, 0.01, 0).unwrap_err();
    assert!(e.to_string().contains("capacity"), "{e}");
    let e = target(System::RedisBloom, 0.01, (1 << 30) + 1).unwrap_err();
    assert!(e.to_string().contains("capacity"), "{e}");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn constructors_never_panic(p in any::<f64>(), n in any::<u64>()) {
            let _ = GuavaConfig::new(n, p).and_then(|c| c.build());
            let _ = RedisBloomConfig::new(n, p).and_then(|c| c.build());
            let _ = ParquetConfig::new(n, p).and_then(|c| c.build());
            let _ = RocksDbConfig::new(p, n).and_then(|c| c.build());
            let _ = FastbloomConfig::with_false_pos(p, n).and_then(|c| c.build());
            prop_assert!(target(System::Guava, p, n).is_err() || (p > 0.0 && p < 1.0));
        }
    }

    proptest! {
        // Each case sizes all five systems (about 0.1 s each at n = 3·10^6).
        #![proptest_config(ProptestConfig::with_cases(8))]

        #[test]
        fn suggestions_meet_their_target(exp in 1.0f64..6.0, n in 1u64..3_000_000) {
            let fp = 10f64.powf(-exp);
            for system in System::ALL {
                let t = target(system, fp, n).unwrap();
                prop_assert!(t.suggested.filter.fp <= fp, "{:?} {} {}", system, fp, n);
                prop_assert!((0.0..=1.0).contains(&t.requested.filter.fp));
            }
        }
    }
}

#[test]
fn a_request_that_meets_in_least_memory_is_kept() {
    // 7 keys at 0.3: Guava's one word at k = 2 (FP 0.039) is already least memory; the
    // suggestion must not trade it for k = 1 in the same word (FP 0.104).
    let t = target(System::Guava, 0.3, 7).unwrap();
    assert_eq!(t.suggested, t.requested);
    // Large capacities are sized by bisection, not a scan of word counts.
    let t = target(System::RedisBloom, 1e-6, 1 << 30).unwrap();
    assert!(t.suggested.filter.fp <= 1e-6);
}

// RedisBloom's scaling chain (src/sb.c: SB_NewChain at error·0.5, SBChain_Add appends
// entries·expansion at the last error·0.5), each link by bloom_init's published rule.
#[test]
fn redisbloom_chain_links_follow_the_published_rule() {
    for (cap, err, e) in [
        (1u64, 0.25, 1u64),
        (100, 0.01, 2),
        (1000, 0.001, 4),
        (12_345, 0.03, 3),
    ] {
        let chain = redisbloom::RedisBloomChain::new(cap, err, e)
            .unwrap()
            .chain(cap * 40)
            .unwrap();
        for (i, l) in chain.links().iter().enumerate() {
            let entries = cap * e.pow(i as u32);
            let error = err * 0.5f64.powi(i as i32 + 1);
            // The module's literal ln(2)² and ln(2): at errors that are powers of 1/2
            // (0.125 here) they give one hash more than ⌈log2(1/error)⌉.
            let bpe = -error.ln() / 0.480_453_013_918_201;
            let raw = ((entries as f64 * bpe) as u64).max(1);
            assert_eq!(l.capacity, entries);
            assert!((l.fp_target - error).abs() <= 1e-15 * error);
            assert_eq!(l.m, raw.div_ceil(64) * 64, "cap={cap} err={err} link {i}");
            #[allow(clippy::approx_constant)]
            let hashes = (0.693_147_180_559_945 * bpe).ceil() as u32;
            assert_eq!(l.k, hashes, "cap={cap} err={err} link {i}");
        }
    }
    // Vectors from the rule evaluated independently (Python, math.log): BF.RESERVE k
    // 0.01 1000 grows into 11072 bits/8 hashes, 24960/9, 55680/10, 122880/11.
    let chain = redisbloom::RedisBloomChain::new(1000, 0.01, 2)
        .unwrap()
        .chain(15_000)
        .unwrap();
    let got: Vec<(u64, u32)> = chain.links().iter().map(|l| (l.m, l.k)).collect();
    assert_eq!(got, [(11072, 8), (24960, 9), (55680, 10), (122880, 11)]);
}

#[test]
fn redisbloom_chain_compound_fp_and_what_to_type() {
    // 10^3 reserved, 10^5 arrive: 7 sub-filters (1000·(2^7 − 1) = 127 000 >= 10^5).
    let c = redisbloom::RedisBloomChain::new(1000, 0.01, 2).unwrap();
    let x = c.at(100_000).unwrap();
    assert_eq!(x.links, 7);
    // The halving errors sum below 1%; each link's rounding up of k keeps its FP near
    // its target, so the compound stays under the typed rate.
    assert!(x.fp <= 0.01 && x.fp > 0.005, "{}", x.fp);
    assert_eq!(
        c.scalable_params().unwrap().fp_limit(),
        0.01,
        "P0/(1 − r) = error"
    );
    let t = redisbloom::scaling_target(0.01, 1000, 100_000).unwrap();
    assert_eq!(t.requested, "BF.RESERVE k 0.01 1000");
    assert!(t.scaling_at_n.fp <= 0.01);
    assert!(t.scaling_at_n.memory_bits <= t.requested_at_n.memory_bits);
    let ns = t.nonscaling.unwrap();
    assert!(ns.filter.fp <= 0.01 && ns.config.ends_with("100000 NONSCALING"));
    // A classic filter sized for the final count beats any chain.
    assert!(ns.filter.bits < t.scaling_at_n.memory_bits);
    // The suggested command builds what it says.
    let reparsed: Vec<&str> = t.scaling.split_whitespace().collect();
    let error: f64 = reparsed[2].parse().unwrap();
    let expansion = reparsed
        .iter()
        .position(|w| *w == "EXPANSION")
        .map_or(2, |i| reparsed[i + 1].parse().unwrap());
    let again = redisbloom::RedisBloomChain::new(1000, error, expansion)
        .unwrap()
        .at(100_000)
        .unwrap();
    assert_eq!(again, t.scaling_at_n);
    // Bad input names the parameter.
    let e = redisbloom::RedisBloomChain::new(1000, 0.01, 0).unwrap_err();
    assert!(e.to_string().contains("expansion"), "{e}");
    assert!(redisbloom::scaling_target(0.01, 1000, 0)
        .unwrap_err()
        .to_string()
        .contains("items"));
}
