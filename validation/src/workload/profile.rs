//! The profile of a trace in one streaming pass: length, distinct items, the empirical
//! `D(L)` (expected distinct items in `L` consecutive insertions) on a log grid, the
//! duplicate rate within a window, the top items' share and a fitted Zipf exponent, and
//! with timestamps the arrival rate and daily profile, with importances their range.
//!
//! # `D(L)`, exact from reuse times
//! Averaged over the `n − L + 1` windows of length `L` of a trace of length `n` with `m`
//! distinct items (the footprint of Xiang et al., *All-window profiling and composable
//! models of cache sharing*, PPoPP 2011): an item is absent from a window exactly when
//! the window fits in one of its gaps (before its first access, between two accesses
//! `i` apart, after its last access), so
//! ```text
//! D(L) = m − (1/(n−L+1)) · [ Σ_{i>L} (i − L)·rt(i) + Σ_k (f_k − L)⁺ + Σ_k (l_k − L)⁺ ]
//! ```
//! with `rt(i)` the number of reuses `i` positions apart, `f_k` the 1-based position of
//! item `k`'s first access and `l_k = n − last_k + 1`. Each sum is kept as a count and a
//! sum of values per bin of the grid, which gives the bracket exactly at every grid point
//! in `O(grid)` memory: `Σ_{v>L}(v − L) = Σ_{bins above L} (sum − L·count)`.
//!
//! # Memory
//! One entry (last position, count) per distinct item, up to
//! [`ProfileOptions::max_tracked`] items ([`DEFAULT_MAX_TRACKED`], about 48 bytes each
//! with the hash table: 800 MB). Beyond it the profile stops tracking new items: the
//! distinct count is then the HyperLogLog estimate (`2^14` registers, relative standard
//! error `1.04/√2^14 ≈ 0.81%`, [`HLL_RELATIVE_ERROR`]) and `D(L)` is not reported.

use pdatastructs::hyperloglog::HyperLogLog;
use serde::Serialize;
use std::collections::HashMap;

/// Distinct items tracked exactly by default (`2^24`).
pub const DEFAULT_MAX_TRACKED: usize = 1 << 24;
/// HyperLogLog register bits.
const HLL_BITS: usize = 14;
/// The HyperLogLog's relative standard error, `1.04/√2^14`.
pub const HLL_RELATIVE_ERROR: f64 = 0.008_125;
/// Grid points per decade of `L`.
const PER_DECADE: f64 = 16.0;
/// Ranks used to fit the Zipf exponent.
const FIT_RANKS: usize = 1000;

/// What the profile measures besides `D(L)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileOptions {
    /// The window of the duplicate rate (insertions).
    pub window: Option<u64>,
    /// Distinct items tracked exactly.
    pub max_tracked: usize,
    /// Items whose share is reported.
    pub top: usize,
}

impl Default for ProfileOptions {
    fn default() -> Self {
        Self {
            window: None,
            max_tracked: DEFAULT_MAX_TRACKED,
            top: 10,
        }
    }
}

/// Count and sum of the values that fell in each bin `(grid[b], grid[b+1]]` of a grid.
#[derive(Debug, Clone)]
struct Binned {
    count: Vec<u64>,
    sum: Vec<u128>,
}

impl Binned {
    fn new(bins: usize) -> Self {
        Self {
            count: vec![0; bins],
            sum: vec![0; bins],
        }
    }

    fn add(&mut self, grid: &[u64], v: u64) {
        // Bin b holds grid[b] < v <= grid[b+1]; values <= grid[0] = 1 (reuses 1 apart, a
        // first access at position 1) add nothing to any bracket: they go to bin 0 too,
        // with weight (v − L)⁺ = 0 at every L >= 1.
        let b = grid.partition_point(|&g| g < v).saturating_sub(1);
        self.count[b] += 1;
        self.sum[b] += u128::from(v);
    }

    /// `Σ_{v > grid[g]} (v − grid[g])`, exactly.
    fn excess(&self, grid: &[u64], g: usize) -> u128 {
        let l = u128::from(grid[g]);
        (g..self.count.len())
            .map(|b| self.sum[b] - l * u128::from(self.count[b]))
            .sum()
    }
}

/// One pass over a trace ([`TraceProfiler::push`] per record, then
/// [`TraceProfiler::finish`]).
#[derive(Debug)]
pub struct TraceProfiler {
    opts: ProfileOptions,
    n: u64,
    /// Per item: last position (0-based) and occurrences.
    items: HashMap<u64, (u64, u64)>,
    overflow: bool,
    hll: HyperLogLog<u64>,
    /// Grid of `L` up to the largest position seen so far, grown as the trace grows.
    grid: Vec<u64>,
    reuse: Binned,
    first: Binned,
    repeats_in_window: u64,
    times: Option<(f64, f64)>,
    hours: [u64; 24],
    timed: u64,
    importance: Option<(f64, f64, f64)>,
    weighted: u64,
}

/// The log grid `1, 2, 3, ...` at [`PER_DECADE`] points per decade, up to `top`.
fn log_grid(top: u64) -> Vec<u64> {
    let mut out = vec![1u64];
    let mut t = 1.0;
    loop {
        let l = 10f64.powf(t / PER_DECADE).round() as u64;
        t += 1.0;
        if l >= top {
            break;
        }
        if l > *out.last().unwrap_or(&0) {
            out.push(l);
        }
    }
    if top > 1 {
        out.push(top);
    }
    out
}

/// Largest trace length the grid covers (`2^48` insertions).
const GRID_TOP: u64 = 1 << 48;

impl TraceProfiler {
    /// An empty profile.
    pub fn new(opts: ProfileOptions) -> Self {
        let grid = log_grid(GRID_TOP);
        let bins = grid.len();
        Self {
            opts,
            n: 0,
            items: HashMap::new(),
            overflow: false,
            hll: HyperLogLog::new(HLL_BITS),
            grid,
            reuse: Binned::new(bins),
            first: Binned::new(bins),
            repeats_in_window: 0,
            times: None,
            hours: [0; 24],
            timed: 0,
            importance: None,
            weighted: 0,
        }
    }

    /// One record of the trace.
    pub fn push(&mut self, key: u64, timestamp: Option<f64>, importance: Option<f64>) {
        let t = self.n;
        self.n += 1;
        self.hll.add(&key);
        if !self.overflow {
            let room = self.items.len() < self.opts.max_tracked;
            match self.items.get_mut(&key) {
                Some((last, count)) => {
                    let reuse = t - *last;
                    self.reuse.add(&self.grid, reuse);
                    if self.opts.window.is_some_and(|w| reuse <= w) {
                        self.repeats_in_window += 1;
                    }
                    *last = t;
                    *count += 1;
                }
                None if room => {
                    self.first.add(&self.grid, t + 1);
                    self.items.insert(key, (t, 1));
                }
                None => self.overflow = true,
            }
        }
        if let Some(ts) = timestamp {
            self.timed += 1;
            self.times = Some(match self.times {
                None => (ts, ts),
                Some((a, b)) => (a.min(ts), b.max(ts)),
            });
            let hour = ((ts % 86_400.0) / 3_600.0).floor() as usize;
            self.hours[hour.min(23)] += 1;
        }
        if let Some(v) = importance {
            self.weighted += 1;
            self.importance = Some(match self.importance {
                None => (v, v, v),
                Some((lo, sum, hi)) => (lo.min(v), sum + v, hi.max(v)),
            });
        }
    }

    /// `D(L)` at every grid point `L <= n` (exact), or `None` past the tracking limit.
    fn distinct_curve(&self) -> Option<Vec<(u64, f64)>> {
        if self.overflow || self.n == 0 {
            return None;
        }
        let n = self.n;
        let m = self.items.len() as f64;
        let mut last = Binned::new(self.grid.len());
        for &(pos, _) in self.items.values() {
            last.add(&self.grid, n - pos);
        }
        let mut out = Vec::new();
        for (g, &l) in self.grid.iter().enumerate() {
            if l > n {
                break;
            }
            let absent = self.reuse.excess(&self.grid, g)
                + self.first.excess(&self.grid, g)
                + last.excess(&self.grid, g);
            let d = m - absent as f64 / (n - l + 1) as f64;
            out.push((l, d.clamp(1.0, l as f64)));
        }
        if out.last().is_some_and(|&(l, _)| l < n) {
            // n itself (one window: the whole trace) holds every item.
            out.push((n, m));
        }
        Some(out)
    }

    /// The profile.
    pub fn finish(self) -> TraceProfile {
        let curve = self.distinct_curve();
        let n = self.n;
        let exact = !self.overflow;
        let distinct = if exact {
            self.items.len() as f64
        } else {
            self.hll.count() as f64
        };
        let mut counts: Vec<u64> = self.items.values().map(|&(_, c)| c).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top_share = if exact && n > 0 {
            Some(counts.iter().take(self.opts.top).sum::<u64>() as f64 / n as f64)
        } else {
            None
        };
        let zipf = if exact { fit_zipf(&counts) } else { None };
        let count_histogram = exact.then(|| {
            let mut h: Vec<(u64, u64)> = Vec::new();
            for &c in counts.iter().rev() {
                match h.last_mut() {
                    Some(last) if last.0 == c => last.1 += 1,
                    _ => h.push((c, 1)),
                }
            }
            h
        });
        let arrival_rate = self.times.and_then(|(a, b)| {
            (b > a && self.timed > 1).then(|| (self.timed - 1) as f64 / (b - a))
        });
        TraceProfile {
            length: n,
            distinct,
            distinct_exact: exact,
            distinct_relative_error: if exact { 0.0 } else { HLL_RELATIVE_ERROR },
            window: self.opts.window,
            duplicate_rate_in_window: self
                .opts
                .window
                .filter(|_| exact && n > 0)
                .map(|_| self.repeats_in_window as f64 / n as f64),
            top: self.opts.top,
            top_share,
            zipf_exponent: zipf.map(|z| z.0),
            zipf_r2: zipf.map(|z| z.1),
            timestamps: self.timed,
            arrival_rate,
            hourly: (self.timed > 0).then_some(self.hours),
            importances: self.weighted,
            importance_min: self.importance.map(|i| i.0),
            importance_mean: self.importance.map(|i| i.1 / self.weighted as f64),
            importance_max: self.importance.map(|i| i.2),
            distinct_curve: curve,
            count_histogram,
        }
    }
}

/// Least-squares fit of `ln count = c − s·ln rank` over the top [`FIT_RANKS`] ranks:
/// `(s, R²)`; `None` with fewer than 3 ranks or a flat head.
fn fit_zipf(counts: &[u64]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = counts
        .iter()
        .take(FIT_RANKS)
        .enumerate()
        .map(|(r, &c)| (((r + 1) as f64).ln(), (c as f64).ln()))
        .collect();
    if pts.len() < 3 {
        return None;
    }
    let k = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / k,
        pts.iter().map(|p| p.1).sum::<f64>() / k,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if syy <= 0.0 || sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((-slope, (sxy * sxy / (sxx * syy)).clamp(0.0, 1.0)))
}

/// A trace's profile ([`TraceProfiler`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceProfile {
    /// Records in the trace.
    pub length: u64,
    /// Distinct items (exact, or the HyperLogLog estimate past the tracking limit).
    pub distinct: f64,
    /// Whether `distinct` is exact.
    pub distinct_exact: bool,
    /// Relative standard error of `distinct` (0 when exact).
    pub distinct_relative_error: f64,
    /// The window of `duplicate_rate_in_window`.
    pub window: Option<u64>,
    /// Fraction of records whose item occurred within the previous `window` records.
    pub duplicate_rate_in_window: Option<f64>,
    /// Number of top items in `top_share`.
    pub top: usize,
    /// Share of the records that are one of the `top` most frequent items.
    pub top_share: Option<f64>,
    /// Fitted Zipf exponent `s` (`count ∝ rank^(−s)` over the top 1000 ranks).
    pub zipf_exponent: Option<f64>,
    /// `R²` of that fit in log-log.
    pub zipf_r2: Option<f64>,
    /// Records with a timestamp.
    pub timestamps: u64,
    /// Records per time unit between the first and last timestamp.
    pub arrival_rate: Option<f64>,
    /// Records per hour of the day (timestamps taken as seconds).
    pub hourly: Option<[u64; 24]>,
    /// Records with an importance.
    pub importances: u64,
    /// Smallest importance.
    pub importance_min: Option<f64>,
    /// Mean importance.
    pub importance_mean: Option<f64>,
    /// Largest importance.
    pub importance_max: Option<f64>,
    /// `(L, D(L))` on the log grid up to the trace length (exact; absent past the
    /// tracking limit).
    pub distinct_curve: Option<Vec<(u64, f64)>>,
    /// `(c, items seen c times)`, ascending in `c` (exact; absent past the tracking
    /// limit): the trace's item frequencies ([`Self::frequencies`]).
    #[serde(skip)]
    pub count_histogram: Option<Vec<(u64, u64)>>,
}

impl TraceProfile {
    /// The trace's item frequencies as the models' empirical prior
    /// ([`bfopt_models::timing::ItemFrequencies`]); `None` past the tracking limit.
    pub fn frequencies(&self) -> Option<bfopt_models::timing::ItemFrequencies> {
        bfopt_models::timing::ItemFrequencies::new(self.count_histogram.as_ref()?).ok()
    }

    /// The trace's `D(·)` as the models' workload type
    /// ([`bfopt_models::workload::Distinct::Sampled`]); `None` past the tracking limit.
    pub fn workload(&self) -> Option<bfopt_models::workload::Distinct> {
        let pts = self
            .distinct_curve
            .as_ref()?
            .iter()
            .map(|&(l, d)| (l as f64, d))
            .collect();
        bfopt_models::workload::Distinct::sampled(pts).ok()
    }
}

/// Profiles a sequence of keys (no timestamps or importances).
pub fn profile_keys(keys: &[u64], opts: ProfileOptions) -> TraceProfile {
    let mut p = TraceProfiler::new(opts);
    keys.iter().for_each(|&k| p.push(k, None, None));
    p.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::HashSet;

    /// The average distinct count over every window of length `l`, by brute force.
    fn brute(keys: &[u64], l: usize) -> f64 {
        let w = keys.len() - l + 1;
        let total: usize = (0..w)
            .map(|s| keys[s..s + l].iter().collect::<HashSet<_>>().len())
            .sum();
        total as f64 / w as f64
    }

    #[test]
    fn distinct_curve_equals_brute_force() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (n, universe) in [(1usize, 3u64), (7, 2), (50, 5), (300, 40), (2000, 3000)] {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    // A skewed draw: small keys far more often.
                    let u: f64 = rng.random();
                    (u * u * universe as f64) as u64
                })
                .collect();
            let p = profile_keys(&keys, ProfileOptions::default());
            let curve = p.distinct_curve.as_ref().unwrap();
            assert_eq!(curve.last().unwrap().0, n as u64);
            for &(l, d) in curve {
                let want = brute(&keys, l as usize);
                assert!(
                    (d - want).abs() < 1e-9 * want.max(1.0),
                    "n {n}, L {l}: {d} vs {want}"
                );
            }
            let distinct = keys.iter().collect::<HashSet<_>>().len();
            assert_eq!(p.distinct, distinct as f64);
        }
    }

    #[test]
    fn duplicate_rate_top_share_and_zipf_fit() {
        // 1,2,1,3,1,2: repeats within 2 records: positions 2 (1, 2 back), 4 (1, 2 back).
        let keys = [1u64, 2, 1, 3, 1, 2];
        let p = profile_keys(
            &keys,
            ProfileOptions {
                window: Some(2),
                top: 1,
                ..ProfileOptions::default()
            },
        );
        assert_eq!(p.duplicate_rate_in_window, Some(2.0 / 6.0));
        assert_eq!(p.top_share, Some(0.5));
        // Counts exactly 1000/r: exponent 1, perfect fit.
        let mut keys = Vec::new();
        for r in 1..=50u64 {
            keys.extend(std::iter::repeat_n(r, (1000 / r) as usize));
        }
        let p = profile_keys(&keys, ProfileOptions::default());
        let s = p.zipf_exponent.unwrap();
        assert!((s - 1.0).abs() < 0.01 && p.zipf_r2.unwrap() > 0.999, "{s}");
    }

    #[test]
    fn hyperloglog_past_the_tracking_limit_is_within_its_error() {
        let keys: Vec<u64> = (0..200_000u64)
            .map(|i| xxhash_rust::xxh3::xxh3_64(&(i % 150_000).to_le_bytes()))
            .collect();
        let p = profile_keys(
            &keys,
            ProfileOptions {
                max_tracked: 1000,
                ..ProfileOptions::default()
            },
        );
        assert!(!p.distinct_exact && p.distinct_curve.is_none());
        // 4 standard errors: fails with probability below 1e-4 for a fair estimator.
        let err = (p.distinct / 150_000.0 - 1.0).abs();
        assert!(err < 4.0 * HLL_RELATIVE_ERROR, "{} ({err})", p.distinct);
        assert_eq!(p.distinct_relative_error, HLL_RELATIVE_ERROR);
    }

    #[test]
    fn timestamps_and_importances() {
        let mut pr = TraceProfiler::new(ProfileOptions::default());
        for (i, ts) in [0.0, 3600.0, 3601.0, 7300.0].into_iter().enumerate() {
            pr.push(i as u64, Some(ts), Some(i as f64));
        }
        let p = pr.finish();
        assert_eq!(p.arrival_rate, Some(3.0 / 7300.0));
        let h = p.hourly.unwrap();
        assert_eq!((h[0], h[1], h[2]), (1, 2, 1));
        assert_eq!(
            (p.importance_min, p.importance_mean, p.importance_max),
            (Some(0.0), Some(1.5), Some(3.0))
        );
        assert!(p.workload().is_some());
    }
}
