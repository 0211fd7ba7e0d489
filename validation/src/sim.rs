//! The simulation runner: independent epochs in parallel with deterministic seeds.

use crate::shard::{self, Plan};
use crate::workload::mix;
use ciborium::Value;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::RwLock;
// `web_time` is `std::time` on native targets; in the browser (wasm32) it reads
// `performance.now()`, where `std::time::Instant::now` panics.
use web_time::{Duration, Instant};

/// The seed of epoch `epoch` of a run with base seed `base`; independent of thread count.
pub fn epoch_seed(base: u64, epoch: u64) -> u64 {
    mix(mix(base) ^ epoch.wrapping_add(1).wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// Whether progress bars may appear at all (`bfopt --quiet` turns them off).
static PROGRESS_ENABLED: AtomicBool = AtomicBool::new(true);

/// Turns progress bars on or off for the whole process.
pub fn set_progress(enabled: bool) {
    PROGRESS_ENABLED.store(enabled, Ordering::Relaxed);
}

/// A function told of every finished epoch: `(done, total, label)` of the
/// [`run_epochs`] call it belongs to (the browser page moves its progress bar with it).
pub type Observer = fn(u64, u64, &str);

/// The observer of [`set_observer`], if any.
static OBSERVER: RwLock<Option<Observer>> = RwLock::new(None);

/// Sets (or with `None` removes) the process-wide observer of finished epochs. It is
/// called from the thread that finished the epoch, and changes no result.
pub fn set_observer(observer: Option<Observer>) {
    if let Ok(mut o) = OBSERVER.write() {
        *o = observer;
    }
}

/// A progress bar on stderr that appears only on a terminal, only once the work has
/// taken more than a second, and never after [`set_progress`]`(false)`.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: AtomicBool,
    total: u64,
    done: AtomicU64,
    label: String,
}

impl Progress {
    /// A hidden bar for `total` steps, labelled `label`.
    pub fn new(total: u64, label: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(label.to_string());
        Self {
            bar,
            start: Instant::now(),
            shown: AtomicBool::new(false),
            total,
            done: AtomicU64::new(0),
            label: label.to_string(),
        }
    }

    /// Advances by one step, and tells the observer of [`set_observer`].
    pub fn inc(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(observe) = OBSERVER.read().ok().and_then(|o| *o) {
            observe(done, self.total, &self.label);
        }
        if !self.shown.load(Ordering::Relaxed)
            && PROGRESS_ENABLED.load(Ordering::Relaxed)
            && self.start.elapsed() > Duration::from_secs(1)
            && std::io::stderr().is_terminal()
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.inc(1);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Runs `epoch(i, seed_i)` for `i in 0..epochs` in parallel (rayon) and returns the
/// results in epoch order. Results depend only on `base_seed`, never on thread count.
///
/// Inside a sharded suite run ([`crate::shard`]) a shard computes only its epochs,
/// records their values and returns `T::default()` for the others; a merge returns the
/// recorded values. Hence the bounds: an epoch's value is data (counts and sums) that
/// round-trips through a shard file.
pub fn run_epochs<T, F>(epochs: u64, base_seed: u64, label: &str, epoch: F) -> Vec<T>
where
    T: Send + Serialize + DeserializeOwned + Default,
    F: Fn(u64, u64) -> T + Sync,
{
    run_split(
        epochs,
        base_seed,
        label,
        epoch,
        &|t: &T| Value::serialized(t).ok(),
        &|v: &Value| v.deserialized().ok(),
        &T::default,
    )
}

/// [`run_epochs`] for epochs that can fail: the values in epoch order, or the first
/// epoch's error. A failed epoch is not recorded by a shard; a merge recomputes it.
///
/// # Errors
/// The error of the first epoch that failed.
pub fn run_epochs_fallible<T, E, F>(
    epochs: u64,
    base_seed: u64,
    label: &str,
    epoch: F,
) -> Result<Vec<T>, E>
where
    T: Send + Serialize + DeserializeOwned + Default,
    E: Send,
    F: Fn(u64, u64) -> Result<T, E> + Sync,
{
    run_split(
        epochs,
        base_seed,
        label,
        epoch,
        &|r: &Result<T, E>| r.as_ref().ok().and_then(|t| Value::serialized(t).ok()),
        &|v: &Value| v.deserialized().ok().map(Ok),
        &|| Ok(T::default()),
    )
    .into_iter()
    .collect()
}

/// A simulation that cannot be split into epochs (one long trace, one structure), run
/// as a whole: a single-epoch [`run_epochs_fallible`], so that in a sharded suite run it
/// is one shard's work, recorded with its result, and a merge replays it. `f` takes no
/// epoch seed: it uses its own (`seed` names the simulation in the shard file).
///
/// # Errors
/// `f`'s error.
pub fn run_whole<T, E, F>(label: &str, seed: u64, f: F) -> Result<T, E>
where
    T: Send + Serialize + DeserializeOwned + Default,
    E: Send,
    F: Fn() -> Result<T, E> + Sync,
{
    let mut one = run_epochs_fallible(1, seed, label, |_, _| f())?;
    Ok(one.remove(0))
}

/// The one epoch loop behind [`run_epochs`] and [`run_epochs_fallible`]: every epoch,
/// a shard's share (recorded with `encode`, the rest `placeholder()`), or a merge's
/// recorded values (`decode`; an epoch without one is computed).
fn run_split<T, F>(
    epochs: u64,
    base_seed: u64,
    label: &str,
    epoch: F,
    encode: &(dyn Fn(&T) -> Option<Value> + Sync),
    decode: &(dyn Fn(&Value) -> Option<T> + Sync),
    placeholder: &(dyn Fn() -> T + Sync),
) -> Vec<T>
where
    T: Send,
    F: Fn(u64, u64) -> T + Sync,
{
    let progress = Progress::new(epochs, label);
    let run = |i: u64| {
        let r = epoch(i, epoch_seed(base_seed, i));
        progress.inc();
        r
    };
    let out = match shard::plan(label, epochs, base_seed) {
        Plan::All => (0..epochs).into_par_iter().map(run).collect(),
        Plan::Record(shard, recorder) => {
            let simulation = recorder.simulation();
            let mine: Vec<Option<T>> = (0..epochs)
                .into_par_iter()
                .map(|i| shard.owns(simulation, i).then(|| run(i)))
                .collect();
            let values = (0u64..)
                .zip(&mine)
                .filter_map(|(i, t)| t.as_ref().and_then(encode).map(|v| (i, v)))
                .collect();
            recorder.record(values);
            mine.into_iter()
                .map(|t| t.unwrap_or_else(placeholder))
                .collect()
        }
        Plan::Replay(recorded, merged) => (0..epochs)
            .into_par_iter()
            .map(|i| {
                recorded
                    .get(i as usize)
                    .and_then(Option::as_ref)
                    .and_then(decode)
                    .unwrap_or_else(|| {
                        shard::recomputed(&merged);
                        run(i)
                    })
            })
            .collect(),
    };
    progress.finish();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_in_epoch_order_and_deterministic() {
        let a = run_epochs(16, 5, "t", |i, s| (i, s));
        let b = run_epochs(16, 5, "t", |i, s| (i, s));
        assert_eq!(a, b);
        assert!(a.iter().enumerate().all(|(i, &(j, _))| i as u64 == j));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let c = pool.install(|| run_epochs(16, 5, "t", |i, s| (i, s)));
        assert_eq!(a, c);
        assert_ne!(epoch_seed(5, 0), epoch_seed(5, 1));
    }

    /// What the test observer saw of runs labelled `observed`.
    static SEEN: std::sync::Mutex<Vec<(u64, u64)>> = std::sync::Mutex::new(Vec::new());

    fn observe(done: u64, total: u64, label: &str) {
        if label == "observed" {
            SEEN.lock().unwrap().push((done, total));
        }
    }

    #[test]
    fn the_observer_sees_every_epoch_and_changes_no_result() {
        let without = run_epochs(12, 7, "observed", |i, s| (i, s));
        set_observer(Some(observe));
        let with = run_epochs(12, 7, "observed", |i, s| (i, s));
        set_observer(None);
        assert_eq!(without, with);
        let mut seen = SEEN.lock().unwrap().clone();
        seen.sort_unstable();
        let want: Vec<(u64, u64)> = (1..=12).map(|d| (d, 12)).collect();
        assert_eq!(seen, want);
    }
}
