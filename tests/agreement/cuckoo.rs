use bfopt_models::cuckoo::{max_load, CuckooParams, MAX_LOAD};
use bfopt_validation::filters::cuckoo::CuckooFilter;
use bfopt_validation::stats::Proportion;
use bfopt_validation::suite::{self, Level};
use bfopt_validation::workload::{member, probe};

#[test]
fn cuckoo_suite_passes_at_quick_size() {
    let checks = suite::run(Some("cuckoo"), Level::Quick, 1).unwrap();
    // 6 loads (probe fp, false negatives; failures where below the safe load), 4 maximal
    // loads, 1 safe-load run.
    assert!(checks.len() >= 17, "{}", checks.len());
    crate::assert_all_pass(&checks);
}

#[test]
fn fp_after_deleting_half_is_the_fp_at_half_the_load() {
    // Fill to load 0.9 (b = 4, f = 8), delete half: the table answers like one filled
    // to 0.45 (no false negatives among the rest).
    let buckets = 2048u64;
    let n = (0.9 * 4.0 * buckets as f64) as u64;
    let shape = CuckooParams::new(8, 4, buckets, n).unwrap();
    let (mut fps, mut probes) = (0u64, 0u64);
    for epoch in 0..6u64 {
        let seed = 4000 + epoch;
        let mut f = CuckooFilter::new(&shape, seed);
        for i in 0..n {
            f.insert_u64(member(seed, i)).unwrap();
        }
        for i in 0..n / 2 {
            assert!(f.remove_u64(member(seed, i)));
        }
        assert!((n / 2..n).all(|i| f.contains_u64(member(seed, i))));
        fps += (0..100_000)
            .filter(|&i| f.contains_u64(probe(seed, i)))
            .count() as u64;
        probes += 100_000;
    }
    let half = CuckooParams::new(8, 4, buckets, n - n / 2).unwrap();
    let measured = Proportion::new(fps, probes, 0.999);
    // The mean-load form is an upper bound within 1.6% (Jensen gap, f = 8, b = 4).
    let (lo, hi) = (measured.interval.lo, measured.interval.hi * 1.016);
    assert!(
        (lo..=hi).contains(&half.fp()),
        "predicted {} measured {} [{lo}, {hi}] over {probes} probes",
        half.fp(),
        measured.rate
    );
}

#[test]
fn max_load_table_is_ordered_and_safe_loads_are_below_it() {
    let loads: Vec<f64> = MAX_LOAD.iter().map(|m| m.mean).collect();
    assert!(loads.windows(2).all(|w| w[0] < w[1]), "{loads:?}");
    for m in MAX_LOAD {
        assert!(m.trials >= 100 && m.lo <= m.mean && m.mean <= m.hi);
        assert!(m.safe() < m.mean && m.safe() > 0.0);
    }
    assert!(max_load(3).is_none());
}
