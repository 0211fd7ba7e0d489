//! Insert and absent-query throughput of the reference filters in one run (issue 18), so
//! the ratios between rows are meaningful on a shared machine, and for the classic filters
//! present-query throughput too:
//!
//! - standard and blocked (512-bit blocks) classic filters beside the `fastbloom` crate,
//!   k = 7, at m = 2^24 bits (2 MiB, in cache) and m = 2^30 bits (128 MiB, memory-bound:
//!   one cache line per item against k misses). Targets: blocked ≥ standard at 2^24 and
//!   ≥ 2× standard at 2^30; standard ≥ fastbloom at both sizes.
//! - the window structures (APBF, APBBF, BTBF, RBF, SBF), each sized to about 2^24 bits,
//!   in steady state (window full), beside the 2^24 standard filter.
//! - at 2^30 bits, bare kernels of the two layouts (`kernel-line-*`, `kernel-7-*`: the
//!   hash and the `k` bit operations, nothing else; see [`Kernel`]) with the filters'
//!   hash (`xxh3`) and a cheaper one (`mix`): the ratio the hardware gives the layouts
//!   item by item, beside the filters' ratio.
//!
//! Each filter is first filled to its working state (classic: the half-fill capacity
//! `m·ln2/k`; windows: several windows of arrivals); queries are measured before
//! insertions, so the extra insertions do not change the fill the queries see. Keys and
//! probes come from arrays of 2^22 and advance batch by batch, so a 2^30-bit filter is
//! not measured on cache lines the previous iteration warmed.
//!
//! Standard and blocked filters are also measured through their batch operations
//! ([`ClassicFilter::insert_batch`], [`ClassicFilter::count_batch`]), which keep a group
//! of cache misses outstanding: item by item, the core's reorder buffer holds only a few
//! items, so one miss per blocked item overlaps with few others.
//!
//! Times are the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time:
//! on a shared machine wall time mostly measures how long the thread waited for a core.
//!
//! Run: `CARGO_BUILD_JOBS=1 cargo bench --bench filters` (about three minutes on an idle
//! machine; filling the 2^30-bit filters took over 20 minutes at load 12-15).

use bfopt_models::apbf::{ApbbfParams, ApbfParams};
use bfopt_models::classic::Layout;
use bfopt_models::rbf::{Hashing, Recycling};
use bfopt_models::stable::{IbfParams, ImportanceDist, Policy};
use bfopt_models::timing::btbf::BtbfParams;
use bfopt_validation::filters::apbf::ApbfFilter;
use bfopt_validation::filters::classic::ClassicFilter;
use bfopt_validation::filters::rbf::{Bound, RbfConfig, RbfFilter};
use bfopt_validation::filters::stable::StableFilter;
use bfopt_validation::filters::timing::BtbfFilter;
use bfopt_validation::hash::{reduce, HashPair, HashScheme};
use bfopt_validation::workload::{member, mix, probe};
use criterion::Throughput;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

#[path = "common/cpu_time.rs"]
mod cpu_time;
use cpu_time::CpuTime;

const K: u32 = 7;
const BATCH: usize = 100_000;
/// Keys and probes cycled through by the timed batches.
const POOL: usize = 1 << 22;

/// The two operations every row measures.
trait Bench {
    fn insert(&mut self, key: u64);
    fn query(&mut self, key: u64) -> bool;
}

impl Bench for ClassicFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn query(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

impl Bench for fastbloom::BloomFilter {
    fn insert(&mut self, key: u64) {
        fastbloom::BloomFilter::insert(self, &key);
    }
    fn query(&mut self, key: u64) -> bool {
        self.contains(&key)
    }
}

impl Bench for ApbfFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn query(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

impl Bench for BtbfFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn query(&mut self, key: u64) -> bool {
        self.query_u64(key).positive
    }
}

/// The RBF's insertion is its test-and-insert `offer`.
impl Bench for RbfFilter {
    fn insert(&mut self, key: u64) {
        black_box(self.offer_u64(key));
    }
    fn query(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

/// The SBF (the stable filter's `Sbf` policy); importance 1 for every item.
impl Bench for StableFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key, 1);
    }
    fn query(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

/// A bare item-by-item kernel (issue 18): `k = 7` bits set and tested in a 2^30-bit
/// array of 64-byte lines, half of them set, with nothing of a filter around it (no
/// layouts, no parameters read per call, no block size but 512 bits). `LINE`: the 7 bits
/// in one line, the line `reduce(h1, lines)` and the positions the top 9-bit fields of
/// `h2` (the blocked-512 filter's); otherwise the standard filter's 7 double-hashing
/// positions over the whole array. `XXH3`: the filters' hash ([`HashScheme::hash_u64`],
/// xxh3-128); otherwise two splitmix64 finalisers of the key, `(mix(x), mix(x ⊕ C) | 1)`.
/// A query stops at the first 0 bit (the standard filter's query does too; the blocked
/// filter's tests its first bit alone and the rest without a branch).
///
/// Item by item, a 2^30-bit filter is bound by how many items' cache misses the core
/// keeps in flight, so by the instructions per item. The ratio of the `LINE` kernel to
/// the other, in the same run, is what one line against `k` misses gives on this machine
/// with this hash, whatever the filter code around it.
struct Kernel<const LINE: bool, const XXH3: bool> {
    lines: Vec<[u64; 8]>,
    scheme: HashScheme,
}

impl<const LINE: bool, const XXH3: bool> Kernel<LINE, XXH3> {
    /// `2^log2_m` bits, each set with probability 1/2 (a filter at its half-fill
    /// capacity, as the classic rows' filters are).
    fn half_full(log2_m: u32) -> Self {
        let lines = (0..1u64 << (log2_m - 9))
            .map(|l| std::array::from_fn(|w| mix(l * 8 + w as u64)))
            .collect();
        Self {
            lines,
            scheme: HashScheme::new(1),
        }
    }

    #[inline(always)]
    fn hash(&self, key: u64) -> HashPair {
        if XXH3 {
            self.scheme.hash_u64(key)
        } else {
            HashPair {
                h1: mix(key),
                h2: mix(key ^ 0x5851_F42D_4C95_7F2D) | 1,
            }
        }
    }

    /// The `k` positions: `(line, word, bit)`.
    #[inline(always)]
    fn positions(&self, key: u64) -> impl Iterator<Item = (usize, usize, u64)> {
        let h = self.hash(key);
        let lines = self.lines.len() as u64;
        let line = reduce(h.h1, lines) as usize;
        let mut indices = h.indices(K, lines * 512);
        (0..K).map(move |i| {
            if LINE {
                let p = (h.h2 << (9 * i)) >> 55;
                (line, (p >> 6) as usize, p & 63)
            } else {
                let b = indices.next().unwrap_or(0);
                ((b >> 9) as usize, (b >> 6 & 7) as usize, b & 63)
            }
        })
    }
}

impl<const LINE: bool, const XXH3: bool> Bench for Kernel<LINE, XXH3> {
    fn insert(&mut self, key: u64) {
        for (l, w, bit) in self.positions(key) {
            self.lines[l][w] |= 1 << bit;
        }
    }
    fn query(&mut self, key: u64) -> bool {
        self.positions(key)
            .all(|(l, w, bit)| self.lines[l][w] >> bit & 1 == 1)
    }
}

/// Keys and probes for the timed batches.
struct Pools {
    keys: Vec<u64>,
    probes: Vec<u64>,
}

/// Benches `query_absent` then `insert` of `f` (already filled) as `op/name` at `size`.
fn rows(
    g: &mut BenchmarkGroup<'_, CpuTime>,
    name: &str,
    size: &str,
    mut f: impl Bench,
    pools: &Pools,
) {
    query_row(g, "query_absent", name, size, &mut f, &pools.probes);
    let mut at = 0usize;
    g.bench_function(BenchmarkId::new(format!("insert/{name}"), size), |b| {
        b.iter(|| {
            let batch = &pools.keys[at..at + BATCH];
            at = (at + BATCH) % (POOL - BATCH);
            batch.iter().for_each(|&x| f.insert(black_box(x)));
        })
    });
}

/// Benches `query_present/name` at `size`: queries of keys `f` holds (`present`), which
/// test all `k` positions (a standard filter's absent query stops at its first 0, after
/// about 2 probes at half fill, so only here does it make `k` misses against the blocked
/// filter's one line).
fn present_row(
    g: &mut BenchmarkGroup<'_, CpuTime>,
    name: &str,
    size: &str,
    f: &mut impl Bench,
    present: &[u64],
) {
    query_row(g, "query_present", name, size, f, present);
}

/// Benches the queries of `keys` (a pool of [`POOL`], batch after batch) as
/// `op/name` at `size`.
fn query_row(
    g: &mut BenchmarkGroup<'_, CpuTime>,
    op: &str,
    name: &str,
    size: &str,
    f: &mut impl Bench,
    keys: &[u64],
) {
    let mut at = 0usize;
    g.bench_function(BenchmarkId::new(format!("{op}/{name}"), size), |b| {
        b.iter(|| {
            let batch = &keys[at..at + BATCH];
            at = (at + BATCH) % (POOL - BATCH);
            batch.iter().filter(|&&x| f.query(black_box(x))).count()
        })
    });
}

/// The batch operations of a classic filter, as `op_batch/name` at `size`.
fn batch_rows(
    g: &mut BenchmarkGroup<'_, CpuTime>,
    name: &str,
    size: &str,
    f: &mut ClassicFilter,
    pools: &Pools,
) {
    let mut at = 0usize;
    g.bench_function(
        BenchmarkId::new(format!("query_absent_batch/{name}"), size),
        |b| {
            b.iter(|| {
                let batch = &pools.probes[at..at + BATCH];
                at = (at + BATCH) % (POOL - BATCH);
                f.count_batch(black_box(batch))
            })
        },
    );
    let mut at = 0usize;
    g.bench_function(
        BenchmarkId::new(format!("insert_batch/{name}"), size),
        |b| {
            b.iter(|| {
                let batch = &pools.keys[at..at + BATCH];
                at = (at + BATCH) % (POOL - BATCH);
                f.insert_batch(black_box(batch));
            })
        },
    );
}

/// `f` after `n` insertions of fill keys (disjoint from the timed keys and probes).
fn filled<F: Bench>(mut f: F, n: u64) -> F {
    (0..n).for_each(|i| f.insert(member(2, i)));
    f
}

/// A classic filter after `n` fill keys, inserted in batches (the same bits, sooner).
fn filled_classic(layout: Layout, m: u64, n: u64) -> ClassicFilter {
    let mut f = ClassicFilter::with_layout(m, K, layout, 1);
    let mut keys = Vec::with_capacity(1 << 16);
    for start in (0..n).step_by(1 << 16) {
        keys.clear();
        keys.extend((start..n.min(start + (1 << 16))).map(|i| member(2, i)));
        f.insert_batch(&keys);
    }
    f
}

/// Whether rows at `size` can match the command line's filter (criterion's positional
/// argument, backslashes dropped): `cargo bench --bench filters -- 'm=2\^30'` skips
/// filling the 2^24 filters it would not measure.
fn selected(size: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.replace('\\', ""))
        .collect();
    filters.is_empty() || filters.iter().any(|f| f.contains(size) || size.contains(f))
}

fn classic(g: &mut BenchmarkGroup<'_, CpuTime>, pools: &Pools, log2_m: u32) {
    let m = 1u64 << log2_m;
    let size = format!("m=2^{log2_m}");
    if !selected(&size) {
        return;
    }
    // The half-fill capacity m·ln2/k.
    let n = (m as f64 * std::f64::consts::LN_2 / f64::from(K)) as u64;
    // Fill keys, so present in every filter of this size.
    let present: Vec<u64> = (0..POOL as u64).map(|i| member(2, i % n)).collect();
    for layout in [Layout::Standard, Layout::Blocked { block_bits: 512 }] {
        let mut f = filled_classic(layout, m, n);
        // A copy for the batch rows, whose insertions would otherwise fill the filter
        // the item-by-item queries see.
        batch_rows(g, layout.name(), &size, &mut f.clone(), pools);
        present_row(g, layout.name(), &size, &mut f, &present);
        rows(g, layout.name(), &size, f, pools);
    }
    let fb = fastbloom::BloomFilter::with_num_bits(m as usize)
        .seed(&1)
        .hashes(K);
    let mut fb = filled(fb, n);
    present_row(g, "fastbloom", &size, &mut fb, &present);
    rows(g, "fastbloom", &size, fb, pools);
    if log2_m == 30 {
        kernel_rows(
            g,
            "kernel-line-xxh3",
            &size,
            Kernel::<true, true>::half_full(30),
            pools,
        );
        kernel_rows(
            g,
            "kernel-7-xxh3",
            &size,
            Kernel::<false, true>::half_full(30),
            pools,
        );
        kernel_rows(
            g,
            "kernel-line-mix",
            &size,
            Kernel::<true, false>::half_full(30),
            pools,
        );
        kernel_rows(
            g,
            "kernel-7-mix",
            &size,
            Kernel::<false, false>::half_full(30),
            pools,
        );
    }
}

/// The three rows of a [`Kernel`]: present queries of the timed keys, inserted first.
fn kernel_rows(
    g: &mut BenchmarkGroup<'_, CpuTime>,
    name: &str,
    size: &str,
    mut f: impl Bench,
    pools: &Pools,
) {
    pools.keys.iter().for_each(|&x| f.insert(x));
    present_row(g, name, size, &mut f, &pools.keys);
    rows(g, name, size, f, pools);
}

/// The window structures at about 2^24 bits, each after 4 windows of arrivals.
fn windows(g: &mut BenchmarkGroup<'_, CpuTime>, pools: &Pools) {
    let size = "m=2^24";
    if !selected(size) {
        return;
    }
    let bits = 1u64 << 24;

    // APBF(10, 7): 17 slices of 2^24/17 bits.
    let p = ApbfParams::new(10, 7)
        .unwrap()
        .with_slice_bits(bits / 17)
        .unwrap();
    let w = p.window().unwrap();
    rows(
        g,
        "apbf(10,7)",
        size,
        filled(ApbfFilter::new(&p, 1), 4 * w),
        pools,
    );

    // APBBF(2, 5, 512, 8): window scaled until 7 segments fill about 2^24 bits.
    let apbbf = |w: u64| {
        ApbbfParams::new(2, 5, 512, 8)
            .unwrap()
            .with_window(w)
            .unwrap()
    };
    let probe_w = 1u64 << 20;
    let scale = ApbfFilter::blocked(&apbbf(probe_w), 1).memory_bits();
    let p = apbbf(probe_w * bits / scale);
    let w = p.window().unwrap();
    let f = filled(ApbfFilter::blocked(&p, 1), 4 * w);
    rows(g, "apbbf(2,5,512,8)", size, f, pools);

    // BTBF: 5-bit timers, k = 4, 10 bits per item (Table 5 [TBF] setting, scaled up).
    let w = (bits / 10).next_power_of_two() / 2;
    let p = BtbfParams::with_default_padding(bits / 5, 4, 5, w / 22, w).unwrap();
    rows(
        g,
        "btbf(k=4)",
        size,
        filled(BtbfFilter::new(&p, 1), 4 * w),
        pools,
    );

    // One-phase RBF, recycled when 57% of its bits are set.
    let cfg = RbfConfig {
        m: bits,
        k: K,
        bound: Bound::Bits(bits * 57 / 100),
        phases: 1,
        hashing: Hashing::Colliding,
        recycling: Recycling::NonRetaining,
    };
    let n = 4 * (bits as f64 * 0.57 / f64::from(K)) as u64;
    rows(
        g,
        "rbf(k=7)",
        size,
        filled(RbfFilter::new(cfg, 1).unwrap(), n),
        pools,
    );

    // SBF: 2-bit cells (Max = 3), k = 4, P = 10.
    let imp = ImportanceDist::linear(1, 1).unwrap();
    let p = IbfParams::new(Policy::Sbf, bits / 2, 4, 3, 10, imp).unwrap();
    let n = 4 * (bits / 2) / 4;
    rows(
        g,
        "sbf(k=4)",
        size,
        filled(StableFilter::new(&p, 1), n),
        pools,
    );
}

fn filters(c: &mut Criterion<CpuTime>) {
    let pools = Pools {
        keys: (0..POOL as u64).map(|i| member(3, i)).collect(),
        probes: (0..POOL as u64).map(|i| probe(1, i)).collect(),
    };
    let mut g = c.benchmark_group("filters");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    classic(&mut g, &pools, 24);
    windows(&mut g, &pools);
    classic(&mut g, &pools, 30);
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = filters
}
criterion_main!(benches);
