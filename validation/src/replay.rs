//! Replay of a user's trace through reference window filters: what a deduplication or
//! cache user would see on their own traffic.
//!
//! Every record is first queried, then inserted. Before it is inserted, a record whose
//! item was last inserted `a` insertions ago is either
//! * a **window item** (`a <= W`: the item is among the last `W` insertions): a negative
//!   answer is a false negative;
//! * a **returning item** (`a > W`: its last occurrence is older than the window): a
//!   positive answer is the error a deduplication user sees (a new event dropped as a
//!   duplicate). Window designs keep some items past the window (their slack), so this
//!   rate is above the FP on fresh keys; the caller gives, per query, the model's
//!   probability that the item is still reported, and the replay sums it;
//! * a first occurrence (not counted).
//!
//! At every probe point (each `generation`-th insertion after `warmup`, the worst phase
//! of a generation-based filter: just before it shifts or rotates), `probes` fresh keys
//! that never occur in the trace are queried: the FP on never-seen keys.
//!
//! # Statistics
//! Each epoch is its own filter (its own hash seed) replaying the same trace; the rates
//! come with [`Proportion::over_epochs`] intervals (Wilson on the pooled counts, widened
//! by the Student t interval of the per-epoch rates). Epochs run in parallel over
//! chunks of the trace; the trace is read once.

use crate::filters::apbf::ApbfFilter;
use crate::filters::baseline::{FingerprintQueue, RotatingFilter};
use crate::filters::gbf::GbfFilter;
use crate::filters::rbf::RbfFilter;
use crate::filters::timing::BtbfFilter;
use crate::stats::Proportion;
use crate::workload::{mix, probe};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// A window filter the replay drives: insert, then membership.
pub trait Replayed: Send {
    /// Inserts a key.
    fn insert(&mut self, key: u64);
    /// Whether the filter reports the key (mutable for filters that keep scratch state;
    /// it changes no answer).
    fn contains(&mut self, key: u64) -> bool;
}

impl Replayed for Box<dyn Replayed> {
    fn insert(&mut self, key: u64) {
        (**self).insert(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        (**self).contains(key)
    }
}

impl Replayed for ApbfFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

impl Replayed for RotatingFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

impl Replayed for FingerprintQueue {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

impl Replayed for BtbfFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        self.query_u64(key).positive
    }
}

impl Replayed for GbfFilter {
    fn insert(&mut self, key: u64) {
        self.insert_u64(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        self.query_u64(key).positive
    }
}

impl Replayed for RbfFilter {
    /// The RBF's test-and-insert ([`RbfFilter::offer_u64`]): the replay has queried first.
    fn insert(&mut self, key: u64) {
        self.offer_u64(key);
    }
    fn contains(&mut self, key: u64) -> bool {
        self.contains_u64(key)
    }
}

/// The schedule of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReplaySchedule {
    /// The window `W` (insertions).
    pub window: u64,
    /// Probe fresh keys after every `generation`-th insertion.
    pub generation: u64,
    /// Probe after insertion `t` when `t mod generation == phase` (0: at the end of each
    /// generation; a block timing filter's worst block offset is another phase).
    pub phase: u64,
    /// No query is counted before this many insertions (the filter fills up).
    pub warmup: u64,
    /// Fresh keys per probe point.
    pub probes: u64,
    /// Independent filters (hash seeds).
    pub epochs: u64,
    /// Base seed: epoch `e` uses `seed + e`.
    pub seed: u64,
    /// Two-sided confidence of the intervals.
    pub confidence: f64,
}

/// What a replay measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayResult {
    /// FP on fresh never-seen keys at the probe points.
    pub fresh_fp: Proportion,
    /// Positive answers for returning items (last occurrence older than the window).
    pub returning_fp: Proportion,
    /// The model's mean probability that a returning item is reported (the mean of the
    /// caller's per-query prediction over the returning queries).
    pub returning_predicted: f64,
    /// Negative answers for window items, with its interval over epochs.
    pub window_fn: Proportion,
    /// The model's mean probability that a window item is missed (the mean of the
    /// caller's per-query prediction, [`TraceReplay::with_window_misses`]; 0 without it).
    pub window_fn_predicted: f64,
    /// Negative answers for window items, over every epoch.
    pub false_negatives: u64,
    /// Window-item queries, over every epoch.
    pub window_queries: u64,
    /// Records replayed.
    pub records: u64,
}

/// Counts of one epoch.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    fresh: (u64, u64),
    returning: (u64, u64),
    false_negatives: u64,
    window_queries: u64,
}

/// What the query before insertion `t + 1` is.
#[derive(Debug, Clone, Copy)]
enum Query {
    None,
    Window,
    Returning,
}

/// One record of a chunk: its key, its query class, whether a probe point follows.
#[derive(Debug, Clone, Copy)]
struct Step {
    key: u64,
    query: Query,
    probe_at: Option<u64>,
}

/// Records buffered before the epochs replay them in parallel.
const CHUNK: usize = 1 << 16;

/// A streaming replay of one trace through `epochs` filters built by `make(seed)`.
pub struct TraceReplay<F: Replayed> {
    schedule: ReplaySchedule,
    filters: Vec<F>,
    counts: Vec<Counts>,
    last: HashMap<u64, u64>,
    report: Box<dyn Fn(u64, u64) -> f64 + Send + Sync>,
    predicted_sum: f64,
    miss: Option<Box<dyn Fn(u64, u64) -> f64 + Send + Sync>>,
    miss_sum: f64,
    t: u64,
    chunk: Vec<Step>,
}

impl<F: Replayed> TraceReplay<F> {
    /// A replay of `schedule.epochs` filters `make(seed + e)`. `report(t, p)` is the
    /// model's probability that an item last inserted as insertion `p` (1-based) is
    /// reported after `t` insertions.
    pub fn new(
        schedule: ReplaySchedule,
        make: impl Fn(u64) -> F,
        report: impl Fn(u64, u64) -> f64 + Send + Sync + 'static,
    ) -> Self {
        let epochs = schedule.epochs.max(1);
        Self {
            schedule,
            filters: (0..epochs)
                .map(|e| make(schedule.seed.wrapping_add(e)))
                .collect(),
            counts: vec![Counts::default(); epochs as usize],
            last: HashMap::new(),
            report: Box::new(report),
            predicted_sum: 0.0,
            miss: None,
            miss_sum: 0.0,
            t: 0,
            chunk: Vec::with_capacity(CHUNK),
        }
    }

    /// The model's probability `miss(t, p)` that a window item last inserted as insertion
    /// `p` is missed after `t` insertions (a filter that forgets, such as the GBF); the
    /// replay reports its mean over the window queries. Without it the prediction is 0.
    pub fn with_window_misses(
        mut self,
        miss: impl Fn(u64, u64) -> f64 + Send + Sync + 'static,
    ) -> Self {
        self.miss = Some(Box::new(miss));
        self
    }

    /// Queries then inserts one record's key.
    pub fn push(&mut self, key: u64) {
        let s = self.schedule;
        let t = self.t;
        let query = match self.last.insert(key, t + 1) {
            Some(p) if t >= s.warmup => {
                if t - p < s.window {
                    if let Some(miss) = &self.miss {
                        self.miss_sum += miss(t, p);
                    }
                    Query::Window
                } else {
                    self.predicted_sum += (self.report)(t, p);
                    Query::Returning
                }
            }
            _ => Query::None,
        };
        self.t += 1;
        let g = s.generation.max(1);
        let probe_at = (self.t > s.warmup && self.t % g == s.phase % g).then_some(self.t);
        self.chunk.push(Step {
            key,
            query,
            probe_at,
        });
        if self.chunk.len() == CHUNK {
            self.flush();
        }
    }

    /// Replays the buffered records through every epoch's filter, in parallel.
    fn flush(&mut self) {
        let s = self.schedule;
        let chunk = std::mem::take(&mut self.chunk);
        self.filters
            .par_iter_mut()
            .zip(self.counts.par_iter_mut())
            .for_each(|(f, c)| {
                for step in &chunk {
                    match step.query {
                        Query::Window => {
                            c.window_queries += 1;
                            if !f.contains(step.key) {
                                c.false_negatives += 1;
                            }
                        }
                        Query::Returning => {
                            c.returning.1 += 1;
                            if f.contains(step.key) {
                                c.returning.0 += 1;
                            }
                        }
                        Query::None => {}
                    }
                    f.insert(step.key);
                    if let Some(t) = step.probe_at {
                        let base = mix(s.seed ^ mix(t));
                        c.fresh.1 += s.probes;
                        c.fresh.0 += (0..s.probes)
                            .filter(|&i| f.contains(probe(base, i)))
                            .count() as u64;
                    }
                }
            });
        self.chunk = chunk;
        self.chunk.clear();
    }

    /// The measurements.
    pub fn finish(mut self) -> ReplayResult {
        self.flush();
        let conf = self.schedule.confidence;
        let fresh: Vec<(u64, u64)> = self.counts.iter().map(|c| c.fresh).collect();
        let returning: Vec<(u64, u64)> = self.counts.iter().map(|c| c.returning).collect();
        let returning_queries = self.counts.first().map_or(0, |c| c.returning.1);
        let window: Vec<(u64, u64)> = self
            .counts
            .iter()
            .map(|c| (c.false_negatives, c.window_queries))
            .collect();
        let window_queries = self.counts.first().map_or(0, |c| c.window_queries);
        ReplayResult {
            fresh_fp: Proportion::over_epochs(&fresh, conf),
            returning_fp: Proportion::over_epochs(&returning, conf),
            returning_predicted: if returning_queries == 0 {
                0.0
            } else {
                self.predicted_sum / returning_queries as f64
            },
            window_fn: Proportion::over_epochs(&window, conf),
            window_fn_predicted: if window_queries == 0 {
                0.0
            } else {
                self.miss_sum / window_queries as f64
            },
            false_negatives: self.counts.iter().map(|c| c.false_negatives).sum(),
            window_queries: self.counts.iter().map(|c| c.window_queries).sum(),
            records: self.t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set of the last `W` keys exactly: no false negative, no returning positive.
    struct Exact {
        w: u64,
        keys: std::collections::VecDeque<u64>,
    }

    impl Replayed for Exact {
        fn insert(&mut self, key: u64) {
            self.keys.push_back(key);
            if self.keys.len() as u64 > self.w {
                self.keys.pop_front();
            }
        }
        fn contains(&mut self, key: u64) -> bool {
            self.keys.contains(&key)
        }
    }

    #[test]
    fn classes_of_queries_are_counted_by_age() {
        // Keys 0..10 cycling: after the first 10, every record returns 10 insertions later.
        let schedule = |w| ReplaySchedule {
            window: w,
            generation: 5,
            phase: 0,
            warmup: 10,
            probes: 100,
            epochs: 2,
            seed: 1,
            confidence: 0.99,
        };
        for (w, window_item) in [(10u64, true), (9, false)] {
            let mut r = TraceReplay::new(
                schedule(w),
                |_| Exact {
                    w,
                    keys: Default::default(),
                },
                |_, _| 0.25,
            )
            .with_window_misses(|_, _| 0.125);
            for i in 0..100u64 {
                r.push(i % 10);
            }
            let out = r.finish();
            assert_eq!(out.records, 100);
            assert_eq!(out.false_negatives, 0);
            assert_eq!(out.fresh_fp.successes, 0);
            assert_eq!(out.fresh_fp.trials, 2 * 100 * 18);
            if window_item {
                assert_eq!(out.window_queries, 2 * 90);
                assert_eq!(out.window_fn.trials, 2 * 90);
                assert_eq!(out.window_fn.successes, 0);
                assert_eq!(out.window_fn_predicted, 0.125);
                assert_eq!(out.returning_fp.trials, 0);
            } else {
                assert_eq!(out.window_queries, 0);
                assert_eq!(out.window_fn_predicted, 0.0);
                assert_eq!(out.returning_fp.trials, 2 * 90);
                assert_eq!(out.returning_fp.successes, 0);
                assert_eq!(out.returning_predicted, 0.25);
            }
        }
    }

    /// Probe points follow the schedule's phase: after insertions 13, 18, ..., 98.
    #[test]
    fn probe_points_follow_the_phase() {
        let schedule = ReplaySchedule {
            window: 10,
            generation: 5,
            phase: 3,
            warmup: 10,
            probes: 1,
            epochs: 2,
            seed: 1,
            confidence: 0.99,
        };
        let mut r = TraceReplay::new(
            schedule,
            |_| Exact {
                w: 10,
                keys: Default::default(),
            },
            |_, _| 0.0,
        );
        for i in 0..100u64 {
            r.push(i);
        }
        let out = r.finish();
        assert_eq!(out.fresh_fp.trials, 2 * 18);
        assert_eq!(out.window_fn.trials, 0);
    }
}
