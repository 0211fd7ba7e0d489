//! The stream of the Section 6 experiments [TBF]: each arrival is an item of rank
//! `1..=|U|` drawn from a [`StreamPrior`] (uniform, or Zipf with exponent 1), asked of the
//! filter, then inserted; every query is charged penalties drawn from a [`PenaltyDist`].
//! The experiments need the truth of each query: was the item inserted within the last
//! `w` arrivals? [`StreamEpoch`] keeps the arrival index of each item's last insertion.

use super::rng;
use bfopt_models::error::{check, ModelError};
use bfopt_models::timing::penalty::{Penalties, PenaltyDist};
use bfopt_models::timing::prior::StreamPrior;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Zipf};

/// Largest universe simulated (one arrival index per item is kept).
pub const MAX_UNIVERSE: u64 = 1 << 28;

/// The law of a stream: items from a prior, penalties from a distribution.
#[derive(Debug, Clone)]
pub struct PriorStream {
    prior: StreamPrior,
    universe: u64,
    zipf: Zipf<f64>,
    penalties: PenaltyDist,
}

impl PriorStream {
    /// The stream of `prior` with penalties from `penalties`.
    ///
    /// # Errors
    /// A universe outside `2..=`[`MAX_UNIVERSE`].
    pub fn new(prior: StreamPrior, penalties: PenaltyDist) -> Result<Self, ModelError> {
        let universe = check::in_range("universe", prior.universe(), 2..=MAX_UNIVERSE)?;
        let zipf = Zipf::new(universe as f64, 1.0)
            .map_err(|e| ModelError::invalid("universe", universe, e))?;
        Ok(Self {
            prior,
            universe,
            zipf,
            penalties,
        })
    }

    /// One epoch of the stream, from `seed`, before any arrival.
    pub fn epoch(&self, seed: u64) -> StreamEpoch<'_> {
        StreamEpoch {
            law: self,
            rng: rng(seed),
            last: vec![u64::MAX; self.universe as usize + 1],
            n: 0,
        }
    }
}

/// One epoch of a [`PriorStream`]: the generator (items and penalties, in the order asked)
/// and the arrival index of each item's last insertion.
#[derive(Debug, Clone)]
pub struct StreamEpoch<'a> {
    law: &'a PriorStream,
    rng: ChaCha8Rng,
    /// Arrival index of each rank's last insertion (`u64::MAX`: never inserted).
    last: Vec<u64>,
    /// Arrivals inserted so far.
    n: u64,
}

impl StreamEpoch<'_> {
    /// The next item's rank in `1..=|U|`.
    pub fn draw(&mut self) -> u64 {
        match self.law.prior {
            StreamPrior::Uniform { .. } => self.rng.random_range(1..=self.law.universe),
            StreamPrior::Zipf { .. } => self.law.zipf.sample(&mut self.rng) as u64,
        }
    }

    /// Whether `x` was inserted within the last `w` arrivals (`I_x < w` [TBF]).
    pub fn in_window(&self, x: u64, w: u64) -> bool {
        let last = self.last[x as usize];
        last != u64::MAX && self.n - 1 - last < w
    }

    /// Records the insertion of `x` as the next arrival.
    pub fn inserted(&mut self, x: u64) {
        self.last[x as usize] = self.n;
        self.n += 1;
    }

    /// `count` arrivals, each drawn, passed to `insert` and recorded (the warm-up).
    pub fn warm_up(&mut self, count: u64, mut insert: impl FnMut(u64)) {
        for _ in 0..count {
            let x = self.draw();
            insert(x);
            self.inserted(x);
        }
    }

    /// The penalties of the next query: fixed, or `$FP` then `$FN` uniform in `[lo, hi)`.
    pub fn penalties(&mut self) -> Penalties {
        match self.law.penalties {
            PenaltyDist::Fixed { fp, fn_ } => Penalties::new(fp, fn_),
            PenaltyDist::Uniform { lo, hi } => {
                Penalties::new(self.rng.random_range(lo..hi), self.rng.random_range(lo..hi))
            }
        }
        .expect("penalties from a valid distribution")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_follow_the_insertions() {
        let law = PriorStream::new(StreamPrior::uniform(4).unwrap(), PenaltyDist::paper()).unwrap();
        let mut s = law.epoch(1);
        s.inserted(1);
        s.inserted(2);
        s.inserted(3);
        // Item 1 is 2 arrivals old, 2 one, 3 the newest; 4 never arrived.
        assert!(s.in_window(1, 3) && !s.in_window(1, 2));
        assert!(s.in_window(2, 2) && !s.in_window(2, 1));
        assert!(s.in_window(3, 1));
        assert!(!s.in_window(4, u64::MAX));
    }

    #[test]
    fn draws_stay_in_the_universe_and_penalties_in_their_range() {
        for prior in [
            StreamPrior::uniform(50).unwrap(),
            StreamPrior::zipf(50).unwrap(),
        ] {
            let law = PriorStream::new(prior, PenaltyDist::paper()).unwrap();
            let mut s = law.epoch(7);
            for _ in 0..1000 {
                assert!((1..=50).contains(&s.draw()));
                let p = s.penalties();
                assert!((1.0..10.0).contains(&p.fp()) && (1.0..10.0).contains(&p.fn_()));
            }
        }
        let fixed = PenaltyDist::Fixed { fp: 2.0, fn_: 3.0 };
        let law = PriorStream::new(StreamPrior::uniform(2).unwrap(), fixed).unwrap();
        let p = law.epoch(0).penalties();
        assert_eq!((p.fp(), p.fn_()), (2.0, 3.0));
    }

    #[test]
    fn universe_is_bounded() {
        let big = StreamPrior::uniform(MAX_UNIVERSE + 1).unwrap();
        assert!(PriorStream::new(big, PenaltyDist::paper()).is_err());
    }
}
