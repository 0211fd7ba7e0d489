//! Synthetic one-day traces shaped like EDGAR and Network (Section 7, Figure 7 [PBF]).

use crate::workload::{member, mix, rng};
use bfopt_models::error::{check, ModelError};
use rand::Rng;
use rand_distr::{Distribution, Geometric, Poisson, Zipf};
use serde::Serialize;

/// Arrival-rate shape over the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Constant rate (EDGAR, Figure 7a).
    Steady,
    /// Little at night, a peak in the afternoon (Network, Figure 7b).
    Diurnal,
}

/// A synthetic temporal trace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TraceSpec {
    /// `edgar` or `network`.
    pub name: &'static str,
    /// Horizon `T` in seconds.
    pub horizon: u64,
    /// Distinct (client, second) pairs `n(A)`.
    pub pairs: u64,
    /// Clients `n'(A)`.
    pub clients: u64,
    /// Log entries per distinct pair `N(A)/n(A)`.
    pub entries_per_pair: f64,
    /// Arrival-rate shape.
    pub profile: Profile,
    /// Zipf exponent of client popularity (beyond each client's first session).
    pub zipf_exponent: f64,
    /// Mean distinct seconds a client visits per session.
    pub session_visits: f64,
    /// Mean seconds between two visits of a session.
    pub session_gap: f64,
}

impl TraceSpec {
    /// The EDGAR day (Section 7 [PBF]): 5,582,073 entries, 2,127,749 distinct pairs,
    /// 25,497 clients, steady; pairs and clients multiplied by `scale`.
    pub fn edgar(scale: f64) -> Self {
        Self {
            name: "edgar",
            horizon: 86_400,
            pairs: ((2_127_749.0 * scale).round() as u64).max(1),
            clients: ((25_497.0 * scale).round() as u64).max(1),
            entries_per_pair: 5_582_073.0 / 2_127_749.0,
            profile: Profile::Steady,
            zipf_exponent: 1.0,
            session_visits: 40.0,
            session_gap: 3.0,
        }
    }

    /// The Network day (Section 7 [PBF]): 2,546,560 entries, 2,199,573 distinct pairs,
    /// 124,427 clients, quiet night and busy day; pairs and clients multiplied by `scale`.
    pub fn network(scale: f64) -> Self {
        Self {
            name: "network",
            horizon: 86_400,
            pairs: ((2_199_573.0 * scale).round() as u64).max(1),
            clients: ((124_427.0 * scale).round() as u64).max(1),
            entries_per_pair: 2_546_560.0 / 2_199_573.0,
            profile: Profile::Diurnal,
            zipf_exponent: 0.9,
            session_visits: 12.0,
            session_gap: 4.0,
        }
    }

    /// A dataset by name.
    ///
    /// # Errors
    /// An unknown name or a scale outside `(0, 1]`.
    pub fn named(name: &str, scale: f64) -> Result<Self, ModelError> {
        if !(scale > 0.0 && scale <= 1.0) {
            return Err(ModelError::invalid("scale", scale, "0 < scale <= 1"));
        }
        match name {
            "edgar" => Ok(Self::edgar(scale)),
            "network" => Ok(Self::network(scale)),
            other => Err(ModelError::invalid("dataset", other, "edgar or network")),
        }
    }

    /// Relative arrival rate at second `t` (maximum 1).
    fn rate(&self, t: u64) -> f64 {
        match self.profile {
            Profile::Steady => 1.0,
            Profile::Diurnal => {
                let hour = 24.0 * (t as f64 - 0.5) / self.horizon as f64;
                0.03 + 0.97 * (-((hour - 14.0) / 4.5).powi(2)).exp()
            }
        }
    }

    /// Generates the trace: `(client key, second)` entries in time order.
    ///
    /// Clients visit in sessions (real logs are bursty, which is what lets the coarse
    /// levels of a PBF hold far fewer distinct items than the fine ones): a session starts
    /// at a second drawn from the profile, visits `1 + Geometric` distinct seconds (mean
    /// `session_visits`) spaced `1 + Geometric` seconds apart (mean `session_gap`). Every
    /// client has at least one session; further sessions pick clients by a Zipf law.
    /// Sessions are drawn until `pairs` distinct pairs exist; each pair is logged
    /// `1 + Poisson(entries_per_pair − 1)` times. Client keys are [`member`]s of `seed`,
    /// so [`probe`] keys of the same seed never occur.
    ///
    /// # Errors
    /// `clients·(T + 1)` beyond `u64` (which bounds the pairs range), `pairs < clients`, or more
    /// pairs than `clients·T/2`.
    pub fn generate(&self, seed: u64) -> Result<Vec<(u64, u64)>, ModelError> {
        let span = self.horizon.saturating_add(1);
        if self.clients.checked_mul(span).is_none() {
            return Err(ModelError::invalid(
                "clients",
                self.clients,
                format!("clients·(horizon + 1) < 2^64 (horizon {})", self.horizon),
            ));
        }
        check::in_range(
            "pairs",
            self.pairs,
            self.clients..=self.clients * self.horizon / 2,
        )?;
        check::in_range_f64("session_visits", self.session_visits, 1.0..=1e6)?;
        check::in_range_f64("session_gap", self.session_gap, 1.0..=1e6)?;
        let mut rng = rng(mix(seed ^ 0x7EAC));
        let zipf = Zipf::new(self.clients as f64, self.zipf_exponent)
            .map_err(|e| ModelError::invalid("zipf_exponent", self.zipf_exponent, e))?;
        let extra = Poisson::new((self.entries_per_pair - 1.0).max(1e-9))
            .map_err(|e| ModelError::invalid("entries_per_pair", self.entries_per_pair, e))?;
        let geometric = |mean: f64| {
            Geometric::new(1.0 / mean).map_err(|e| ModelError::invalid("session", mean, e))
        };
        let visits = geometric(self.session_visits)?;
        let gaps = geometric(self.session_gap)?;
        // Membership only (never iterated): any exact set gives the same trace.
        let mut seen = PairSet::new(self.clients, self.horizon);
        let mut out = Vec::with_capacity((self.pairs as f64 * self.entries_per_pair) as usize);
        let mut sessions = 0u64;
        while seen.len() < self.pairs {
            let client = if sessions < self.clients {
                sessions
            } else {
                zipf.sample(&mut rng) as u64 - 1
            };
            sessions += 1;
            let mut t = loop {
                let t = rng.random_range(1..=self.horizon);
                if rng.random::<f64>() < self.rate(t) {
                    break t;
                }
            };
            let n = 1 + visits.sample(&mut rng);
            for _ in 0..n {
                if t > self.horizon || seen.len() >= self.pairs {
                    break;
                }
                if seen.insert(client, t) {
                    let key = member(seed, client);
                    let copies = 1 + extra.sample(&mut rng) as u64;
                    (0..copies).for_each(|_| out.push((key, t)));
                }
                t += 1 + gaps.sample(&mut rng);
            }
        }
        Ok(sorted_by_time(out, self.horizon))
    }
}

/// The distinct `(client, second)` pairs of a trace being generated, by client: a sorted
/// list of seconds, or a bitmap of the day once the client has more than
/// [`PairSet::LIST_MAX`] of them (the few popular clients of a Zipf law). A session's
/// visits are one client's, so they touch one list or bitmap where a hash set of pairs
/// (32 MB for the EDGAR-like day) missed the cache on nearly every visit: it was 13% of
/// the full PBF suite's time.
#[derive(Debug)]
struct PairSet {
    clients: Vec<Seconds>,
    /// Pairs held.
    len: u64,
    /// Words of a bitmap of seconds `0..=horizon`; 0 when the horizon is too long for
    /// bitmaps (then every client keeps a list).
    words: usize,
}

/// One client's seconds in a [`PairSet`].
#[derive(Debug, Clone)]
enum Seconds {
    List(Vec<u64>),
    Bits(Vec<u64>),
}

impl PairSet {
    /// Seconds a client keeps as a list before its bitmap (a list of 1024 is as large
    /// as a day's bitmap; at most `pairs/1024` clients get one, 23 MB for either day).
    const LIST_MAX: usize = 1024;
    /// The longest horizon with bitmaps (a bitmap of 2^20 seconds is 128 KiB).
    const BITMAP_HORIZON: u64 = 1 << 20;

    /// An empty set for clients `0..clients` and seconds `1..=horizon`.
    fn new(clients: u64, horizon: u64) -> Self {
        let words = if horizon < Self::BITMAP_HORIZON {
            (horizon as usize + 1).div_ceil(64)
        } else {
            0
        };
        Self {
            clients: vec![Seconds::List(Vec::new()); clients as usize],
            len: 0,
            words,
        }
    }

    /// Pairs held.
    fn len(&self) -> u64 {
        self.len
    }

    /// Adds `(client, t)`; whether it was new.
    fn insert(&mut self, client: u64, t: u64) -> bool {
        let words = self.words;
        let seconds = &mut self.clients[client as usize];
        let new = match seconds {
            Seconds::Bits(bits) => {
                let (w, b) = ((t / 64) as usize, t % 64);
                let new = bits[w] >> b & 1 == 0;
                bits[w] |= 1 << b;
                new
            }
            Seconds::List(list) => match list.binary_search(&t) {
                Ok(_) => false,
                Err(at) if list.len() < Self::LIST_MAX || words == 0 => {
                    list.insert(at, t);
                    true
                }
                Err(_) => {
                    let mut bits = vec![0u64; words];
                    for &u in list.iter().chain([&t]) {
                        bits[(u / 64) as usize] |= 1 << (u % 64);
                    }
                    *seconds = Seconds::Bits(bits);
                    true
                }
            },
        };
        self.len += u64::from(new);
        new
    }
}

/// `entries` (timestamps in `1..=horizon`) in time order, those of one timestamp in their
/// order: the stable sort by time, done as a counting sort (unless the horizon is long
/// beside the trace).
fn sorted_by_time(mut entries: Vec<(u64, u64)>, horizon: u64) -> Vec<(u64, u64)> {
    if horizon > 4 * entries.len() as u64 + 1024 {
        entries.sort_by_key(|&(_, t)| t);
        return entries;
    }
    let mut next = vec![0usize; horizon as usize + 2];
    for &(_, t) in &entries {
        next[t as usize + 1] += 1;
    }
    for i in 1..next.len() {
        next[i] += next[i - 1];
    }
    let mut out = vec![(0, 0); entries.len()];
    for &e in &entries {
        let slot = &mut next[e.1 as usize];
        out[*slot] = e;
        *slot += 1;
    }
    out
}

/// The entries of a trace from [`TraceSpec::generate`] with each run of equal adjacent
/// entries taken once: what a filter needs, as inserting an entry again leaves a Bloom
/// filter's bits and a PBF's clock as they were. The generator writes an entry's copies
/// one after another and sorts by time stably, so every copy is in one run (the
/// EDGAR-like day has 2.6 entries per distinct pair: inserting each copy was a quarter of
/// the full PBF suite's CPU time, 80 s → 61 s, the report byte-identical).
pub(super) fn distinct_entries(trace: &[(u64, u64)]) -> impl Iterator<Item = (u64, u64)> + '_ {
    trace.chunk_by(|a, b| a == b).map(|run| run[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec whose `clients·(T + 1)` overflows a word is refused naming `clients`,
    /// before any product of clients and horizon is formed (the pairs range's bound).
    #[test]
    fn clients_times_the_horizon_beyond_a_word_is_refused() {
        let spec = TraceSpec {
            clients: u64::MAX / 1000,
            ..TraceSpec::edgar(0.01)
        };
        let e = spec.generate(1).unwrap_err().to_string();
        assert!(e.contains("clients") && e.contains("2^64"), "{e}");
    }

    /// The pair set answers as a hash set of pairs: lists, the switch to a bitmap, and
    /// a horizon too long for bitmaps.
    #[test]
    fn the_pair_set_is_a_set_of_pairs() {
        for horizon in [3000, 1 << 21] {
            let mut set = PairSet::new(5, horizon);
            let mut want = std::collections::HashSet::new();
            let mut x = 3u64;
            for _ in 0..20_000 {
                x = mix(x);
                // Client 0 takes most pairs (a bitmap where the horizon allows).
                let client = if x % 3 == 0 { 1 + (x >> 8) % 4 } else { 0 };
                let t = 1 + (x >> 20) % 3000;
                assert_eq!(set.insert(client, t), want.insert((client, t)));
                assert_eq!(set.len(), want.len() as u64);
            }
            let bitmaps = set
                .clients
                .iter()
                .filter(|s| matches!(s, Seconds::Bits(_)))
                .count();
            assert_eq!(bitmaps > 0, horizon == 3000, "{horizon}");
        }
    }

    #[test]
    fn counting_sort_is_the_stable_sort_by_time() {
        let mut x = 7u64;
        let entries: Vec<(u64, u64)> = (0..5000)
            .map(|i| {
                x = mix(x);
                (i, 1 + x % 300)
            })
            .collect();
        let mut want = entries.clone();
        want.sort_by_key(|&(_, t)| t);
        assert_eq!(sorted_by_time(entries, 300), want);
        assert!(sorted_by_time(Vec::new(), 5).is_empty());
        let long = vec![(1, 9_000), (2, 5), (3, 9_000), (4, 1)];
        assert_eq!(
            sorted_by_time(long, 10_000),
            vec![(4, 1), (2, 5), (1, 9_000), (3, 9_000)]
        );
    }
}
