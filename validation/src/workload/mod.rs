//! Item streams: distinct, uniform with duplicates, Zipf, and user traces.
//!
//! Every synthetic stream maps a counter through [`mix`], a bijection of `u64`: members
//! use even counters and probes odd ones, so a probe is never a member.

pub mod profile;
pub mod stream;
mod trace;

pub use trace::{
    decompressed, for_each_record, open_trace, read_trace, read_trace_file, TraceError,
    TraceOptions, TraceRecord, TraceSummary,
};

use bfopt_models::error::{check, ModelError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};
use serde::Serialize;
use std::collections::HashSet;

/// The splitmix64 finaliser: a bijection of `u64` with good avalanche.
#[inline]
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A deterministic random generator for a seed (ChaCha8: same stream on every platform).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Member `i` of the key space of `seed` (even counters).
#[inline]
pub fn member(seed: u64, i: u64) -> u64 {
    mix(mix(seed).wrapping_add(i.wrapping_mul(2)))
}

/// Non-member probe `i` of the key space of `seed` (odd counters): never a member.
#[inline]
pub fn probe(seed: u64, i: u64) -> u64 {
    mix(mix(seed).wrapping_add(i.wrapping_mul(2).wrapping_add(1)))
}

/// The shape of an insertion stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "workload", rename_all = "snake_case")]
pub enum Workload {
    /// Every arrival is a new item.
    Distinct,
    /// Each arrival repeats a uniformly chosen earlier item with probability
    /// `duplicate_rate`, else is new.
    Uniform {
        /// Probability that an arrival is a repeat, in `[0, 1)`.
        duplicate_rate: f64,
    },
    /// Each arrival repeats, with probability `duplicate_rate`, the item at a uniformly
    /// chosen one of the last `window` arrivals, else is new: repeats stay inside the
    /// window (the stream of `bfopt_models::apbf::duplicates`, Figures 7-8 [APBF]). The
    /// stream starts in its steady state (a silent burn-in of `⌈3/(1 − rate)⌉`
    /// windows), so the first arrivals may repeat items never emitted.
    WindowRepeats {
        /// Probability that an arrival is a repeat, in `[0, 1)`.
        duplicate_rate: f64,
        /// How far back a repeat reaches (arrivals).
        window: u64,
    },
    /// Items drawn from a Zipf law over `universe` ranks with exponent `exponent`.
    Zipf {
        /// Number of distinct items that can appear.
        universe: u64,
        /// Zipf exponent `s ≥ 0` (0 is uniform).
        exponent: f64,
    },
    /// The keys of a user trace, in order.
    Trace {
        /// The keys.
        #[serde(skip)]
        keys: Vec<u64>,
    },
}

impl Workload {
    /// A short description: `distinct`, `uniform(0.3)`, `zipf(4000, 1)`, `trace(12 keys)`.
    pub fn describe(&self) -> String {
        match self {
            Workload::Distinct => "distinct".to_string(),
            Workload::Uniform { duplicate_rate } => format!("uniform({duplicate_rate})"),
            Workload::Zipf { universe, exponent } => format!("zipf({universe}, {exponent})"),
            Workload::WindowRepeats {
                duplicate_rate,
                window,
            } => format!("window_repeats({duplicate_rate}, {window})"),
            Workload::Trace { keys } => format!("trace({} keys)", keys.len()),
        }
    }

    /// Checks the workload's parameters.
    ///
    /// # Errors
    /// `duplicate_rate` outside `[0, 1)`, `universe` 0, `exponent` negative or not finite.
    pub fn validate(&self) -> Result<(), ModelError> {
        match self {
            Workload::Distinct | Workload::Trace { .. } => Ok(()),
            Workload::Uniform { duplicate_rate } => {
                if !(*duplicate_rate >= 0.0 && *duplicate_rate < 1.0) {
                    return Err(ModelError::invalid(
                        "duplicate_rate",
                        duplicate_rate,
                        "0 <= duplicate_rate < 1",
                    ));
                }
                Ok(())
            }
            Workload::WindowRepeats {
                duplicate_rate,
                window,
            } => {
                if !(*duplicate_rate >= 0.0 && *duplicate_rate < 1.0) {
                    return Err(ModelError::invalid(
                        "duplicate_rate",
                        duplicate_rate,
                        "0 <= duplicate_rate < 1",
                    ));
                }
                check::in_range("window", *window, 1..=1 << 24)?;
                Ok(())
            }
            Workload::Zipf { universe, exponent } => {
                check::in_range("universe", *universe, 1..=u64::MAX)?;
                check::in_range_f64("exponent", *exponent, 0.0..=100.0)?;
                Ok(())
            }
        }
    }

    /// Feeds `insert` the stream until `distinct` different items have arrived; returns
    /// the number of arrivals. Keys of the stream come from the key space of `seed`.
    ///
    /// # Errors
    /// The stream cannot produce `distinct` items (a Zipf universe or trace too small).
    pub fn fill(
        &self,
        distinct: u64,
        seed: u64,
        mut insert: impl FnMut(u64),
    ) -> Result<u64, ModelError> {
        self.validate()?;
        let mut rng = rng(mix(seed ^ 0x5EED));
        match self {
            Workload::Distinct => {
                (0..distinct).for_each(|i| insert(member(seed, i)));
                Ok(distinct)
            }
            Workload::Uniform { duplicate_rate } => {
                let mut seen = Vec::with_capacity(distinct as usize);
                let mut arrivals = 0;
                while (seen.len() as u64) < distinct {
                    arrivals += 1;
                    if !seen.is_empty() && rng.random::<f64>() < *duplicate_rate {
                        insert(seen[rng.random_range(0..seen.len())]);
                    } else {
                        let key = member(seed, seen.len() as u64);
                        seen.push(key);
                        insert(key);
                    }
                }
                Ok(arrivals)
            }
            Workload::WindowRepeats {
                duplicate_rate,
                window,
            } => {
                // The last `window` arrivals, oldest first.
                let cap = *window as usize;
                let mut recent: std::collections::VecDeque<u64> =
                    std::collections::VecDeque::with_capacity(cap.min(1 << 20));
                // Start in the steady state: the mix of items in the window relaxes
                // over about window/(1 − rate) arrivals from an empty start (measured:
                // 2/(1 − rate) windows bring the distinct count of a run within 1% of
                // its limit), so run 3/(1 − rate) windows silently first. Their new
                // items are members too, from a far range of counters.
                let burn = (3.0 / (1.0 - duplicate_rate)).ceil() as u64 * window;
                for i in 0..burn {
                    let key = if !recent.is_empty() && rng.random::<f64>() < *duplicate_rate {
                        recent[rng.random_range(0..recent.len())]
                    } else {
                        member(seed, (1 << 62) + i)
                    };
                    if recent.len() == cap {
                        recent.pop_front();
                    }
                    recent.push_back(key);
                }
                let (mut new, mut arrivals) = (0u64, 0u64);
                while new < distinct {
                    arrivals += 1;
                    let key = if !recent.is_empty() && rng.random::<f64>() < *duplicate_rate {
                        recent[rng.random_range(0..recent.len())]
                    } else {
                        new += 1;
                        member(seed, new - 1)
                    };
                    if recent.len() == cap {
                        recent.pop_front();
                    }
                    recent.push_back(key);
                    insert(key);
                }
                Ok(arrivals)
            }
            Workload::Zipf { universe, exponent } => {
                if *universe < distinct {
                    return Err(ModelError::invalid(
                        "universe",
                        universe,
                        format!("universe >= items = {distinct}"),
                    ));
                }
                let zipf = Zipf::new(*universe as f64, *exponent)
                    .map_err(|e| ModelError::invalid("exponent", exponent, e))?;
                let mut seen = HashSet::new();
                let mut arrivals = 0u64;
                // A Zipf stream reaches its last ranks slowly; cap the work.
                let cap = distinct.saturating_mul(1000).max(1_000_000);
                while (seen.len() as u64) < distinct {
                    if arrivals >= cap {
                        return Err(ModelError::invalid(
                            "items",
                            distinct,
                            format!("at most the distinct items a Zipf stream reaches in {cap} arrivals ({})", seen.len()),
                        ));
                    }
                    arrivals += 1;
                    let rank = zipf.sample(&mut rng) as u64;
                    let key = member(seed, rank);
                    seen.insert(rank);
                    insert(key);
                }
                Ok(arrivals)
            }
            Workload::Trace { keys } => {
                let mut seen = HashSet::new();
                for (i, &key) in keys.iter().enumerate() {
                    if seen.len() as u64 >= distinct {
                        return Ok(i as u64);
                    }
                    seen.insert(key);
                    insert(key);
                }
                if (seen.len() as u64) < distinct {
                    return Err(ModelError::invalid(
                        "items",
                        distinct,
                        format!("at most the trace's {} distinct items", seen.len()),
                    ));
                }
                Ok(keys.len() as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_probes_never_collide() {
        let members: HashSet<u64> = (0..10_000).map(|i| member(3, i)).collect();
        assert_eq!(members.len(), 10_000);
        assert!((0..10_000).all(|i| !members.contains(&probe(3, i))));
    }

    #[test]
    fn uniform_duplicate_rate_is_respected() {
        let w = Workload::Uniform {
            duplicate_rate: 0.25,
        };
        let arrivals = w.fill(30_000, 1, |_| {}).unwrap();
        // arrivals ≈ n / (1 - r) = 40 000 (sd ≈ 100).
        assert!((39_400..40_600).contains(&arrivals), "{arrivals}");
    }

    #[test]
    fn window_repeats_stay_inside_the_window() {
        let w = Workload::WindowRepeats {
            duplicate_rate: 0.5,
            window: 50,
        };
        let mut keys = Vec::new();
        let arrivals = w.fill(20_000, 4, |k| keys.push(k)).unwrap();
        // arrivals ≈ n / (1 - r) = 40 000 (sd ≈ 200).
        assert!((39_000..41_000).contains(&arrivals), "{arrivals}");
        let mut last = std::collections::HashMap::new();
        let mut repeats = 0;
        for (i, k) in keys.iter().enumerate() {
            if let Some(j) = last.insert(*k, i) {
                repeats += 1;
                assert!(i - j <= 50, "a repeat {} back", i - j);
            }
        }
        // Repeats of items from the silent burn-in have no earlier emitted occurrence.
        assert!(
            repeats as u64 <= arrivals - 20_000 && repeats > 19_000,
            "{repeats}"
        );
        assert!(Workload::WindowRepeats {
            duplicate_rate: 0.5,
            window: 0
        }
        .validate()
        .is_err());
    }

    #[test]
    fn zipf_reaches_distinct_count_and_repeats() {
        let w = Workload::Zipf {
            universe: 2000,
            exponent: 1.0,
        };
        let mut keys = Vec::new();
        let arrivals = w.fill(500, 9, |k| keys.push(k)).unwrap();
        let distinct: HashSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), 500);
        assert!(arrivals > 500);
        assert!(Workload::Zipf {
            universe: 10,
            exponent: 1.0
        }
        .fill(11, 1, |_| {})
        .is_err());
    }

    #[test]
    fn bad_workloads_are_rejected() {
        assert!(Workload::Uniform {
            duplicate_rate: 1.0
        }
        .validate()
        .is_err());
        assert!(Workload::Uniform {
            duplicate_rate: f64::NAN
        }
        .validate()
        .is_err());
        assert!(Workload::Zipf {
            universe: 0,
            exponent: 1.0
        }
        .validate()
        .is_err());
        assert!(Workload::Zipf {
            universe: 5,
            exponent: -1.0
        }
        .validate()
        .is_err());
    }
}
