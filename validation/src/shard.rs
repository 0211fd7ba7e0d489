//! Splitting the suite across machines: `bfopt validate --shard K/N` and `--merge`.
//!
//! Every simulation of the suite is a run of independent, seeded epochs
//! ([`crate::sim::run_epochs`]); its checks are statistics of the per-epoch values (sums
//! of counts for Wilson intervals, per-epoch rates or means for Student t intervals).
//! A shard `K/N` runs the suite with each simulation restricted to its share of the
//! epochs: epoch `i` of the `s`-th simulation of a family belongs to shard
//! `(s + i) mod N`. It records each of its epochs' values (the counts and sums the epoch
//! returned, never an interval) in a [`ShardFile`]. A merge runs the suite again with
//! the recorded values in place of the simulations, so the same code forms the same
//! statistics from the same per-epoch values: the report is byte-identical to a
//! one-machine run with the same seed and level.
//!
//! What is not split: work outside the epoch loops (models, predictions, the sizing of
//! each simulation) runs in every shard and again in the merge; it is a small part of
//! the suite. An epoch that returned an error is not recorded; the merge recomputes it
//! (and gets the same error). Epoch values must round-trip exactly, so the file is CBOR
//! (binary `f64`), not JSON.

use crate::level::Level;
use ciborium::Value;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Format tag of a [`ShardFile`]; a file with another tag is refused.
pub const FORMAT: &str = "bfopt-validate-shard/1";

/// One share of the suite: shard `index` of `count` (`0 ≤ index < count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, from 0.
    pub index: u64,
    /// How many shards.
    pub count: u64,
}

impl Shard {
    /// Shard `index` of `count`; `None` unless `0 ≤ index < count`.
    pub fn new(index: u64, count: u64) -> Option<Self> {
        (index < count).then_some(Self { index, count })
    }

    /// Whether epoch `epoch` of the `simulation`-th simulation of a family is this
    /// shard's: `(simulation + epoch) mod count == index`.
    pub fn owns(&self, simulation: u64, epoch: u64) -> bool {
        simulation.wrapping_add(epoch) % self.count == self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// `K/N` with `0 ≤ K < N`.
impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let allowed = "K/N with integers 0 <= K < N (shards are numbered from 0)";
        let (k, n) = s.split_once('/').ok_or_else(|| allowed.to_string())?;
        let k: u64 = k.trim().parse().map_err(|_| allowed.to_string())?;
        let n: u64 = n.trim().parse().map_err(|_| allowed.to_string())?;
        Shard::new(k, n).ok_or_else(|| allowed.to_string())
    }
}

/// One simulation's recorded epochs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The family whose checks ran it.
    pub family: String,
    /// Its place among the family's simulations, from 0.
    pub simulation: u64,
    /// The simulation's label.
    pub label: String,
    /// All its epochs (not only this shard's).
    pub epochs: u64,
    /// Its base seed.
    pub seed: u64,
    /// `(epoch, value)` of this shard's epochs.
    pub values: Vec<(u64, Value)>,
}

impl Record {
    fn key(&self) -> (String, u64) {
        (self.family.clone(), self.simulation)
    }

    fn same_simulation(&self, other: &Record) -> bool {
        (&self.label, self.epochs, self.seed) == (&other.label, other.epochs, other.seed)
    }
}

/// What `validate --shard K/N` writes: the run's settings and its epochs' values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardFile {
    /// [`FORMAT`].
    pub format: String,
    /// The bfopt-validation version that wrote it (shards of different versions are
    /// not merged: their simulations may differ).
    pub version: String,
    /// `--family`, if one.
    pub family: Option<String>,
    /// `--level`.
    pub level: Level,
    /// `--seed`.
    pub seed: u64,
    /// Which shard.
    pub shard: Shard,
    /// The simulations, in the order they ran.
    pub records: Vec<Record>,
}

impl ShardFile {
    /// Writes the file (CBOR).
    ///
    /// # Errors
    /// The writer's error.
    pub fn write(&self, out: impl std::io::Write) -> Result<(), String> {
        ciborium::into_writer(self, out).map_err(|e| e.to_string())
    }

    /// Reads a file written by [`ShardFile::write`].
    ///
    /// # Errors
    /// Not a shard file, or one of another format.
    pub fn read(input: impl std::io::Read) -> Result<Self, String> {
        let file: ShardFile = ciborium::from_reader(input)
            .map_err(|e| format!("not a bfopt validate shard file ({e})"))?;
        if file.format != FORMAT {
            return Err(format!("format {:?}, expected {FORMAT:?}", file.format));
        }
        Ok(file)
    }

    /// Epochs recorded in this file.
    pub fn epochs(&self) -> usize {
        self.records.iter().map(|r| r.values.len()).sum()
    }
}

/// Why shard files cannot be merged: the file (or `--merge` itself) and the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeError {
    /// The file at fault, or `--merge` when the set as a whole is wrong.
    pub file: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// Recorded simulations by `(family, simulation)`: the record and each epoch's value.
type Simulations = HashMap<(String, u64), (Record, Vec<Option<Value>>)>;

/// Shards combined for a merge run: every epoch value, by simulation.
#[derive(Debug)]
pub struct Merged {
    /// `--family` of the shards.
    pub family: Option<String>,
    /// `--level` of the shards.
    pub level: Level,
    /// `--seed` of the shards.
    pub seed: u64,
    simulations: Simulations,
    recomputed: AtomicU64,
}

impl Merged {
    /// Combines `(name, file)` pairs: the files must be shards `0..N` of one run (same
    /// format, version, family, level, seed and `N`, each index once) and have recorded
    /// the same simulations.
    ///
    /// # Errors
    /// No file; a file that differs from the first in a setting or in its simulations;
    /// a shard given twice; a shard missing.
    pub fn new(files: Vec<(String, ShardFile)>) -> Result<Self, MergeError> {
        let fail = |file: &str, message: String| MergeError {
            file: file.to_string(),
            message,
        };
        let Some((first_name, first)) = files.first() else {
            return Err(fail("--merge", "no shard files given".to_string()));
        };
        let count = first.shard.count;
        let mut seen: Vec<Option<&str>> = vec![None; usize::try_from(count).unwrap_or(0)];
        for (name, f) in &files {
            let differs = |what: &str, a: String, b: String| {
                fail(
                    name,
                    format!("{what} {a}, but {first_name} has {what} {b}: not shards of one run"),
                )
            };
            if f.version != first.version {
                return Err(differs("version", f.version.clone(), first.version.clone()));
            }
            if f.family != first.family {
                let show = |x: &Option<String>| x.clone().unwrap_or_else(|| "(all)".into());
                return Err(differs("family", show(&f.family), show(&first.family)));
            }
            if f.level != first.level {
                let show = |l: Level| format!("{l:?}").to_lowercase();
                return Err(differs("level", show(f.level), show(first.level)));
            }
            if f.seed != first.seed {
                return Err(differs("seed", f.seed.to_string(), first.seed.to_string()));
            }
            if f.shard.count != count {
                return Err(differs(
                    "shard count",
                    f.shard.count.to_string(),
                    count.to_string(),
                ));
            }
            let slot = &mut seen[f.shard.index as usize];
            if let Some(other) = slot {
                return Err(fail(
                    name,
                    format!("shard {} is also given as {other}", f.shard),
                ));
            }
            *slot = Some(name);
            let same = f.records.len() == first.records.len()
                && f.records
                    .iter()
                    .zip(&first.records)
                    .all(|(a, b)| a.key() == b.key() && a.same_simulation(b));
            if !same {
                return Err(fail(
                    name,
                    format!(
                        "its simulations differ from those of {first_name}: not shards of one run"
                    ),
                ));
            }
        }
        if let Some(missing) = seen.iter().position(Option::is_none) {
            return Err(fail(
                "--merge",
                format!("shard {missing}/{count} is missing (give all {count} shard files)"),
            ));
        }
        let (family, level, seed) = (first.family.clone(), first.level, first.seed);
        let mut simulations: Simulations = HashMap::new();
        for (_, f) in files {
            for mut r in f.records {
                let values = std::mem::take(&mut r.values);
                let key = r.key();
                let epochs = usize::try_from(r.epochs).unwrap_or(usize::MAX);
                let entry = simulations
                    .entry(key)
                    .or_insert_with(|| (r, vec![None; epochs]));
                for (i, v) in values {
                    if let Some(slot) = entry.1.get_mut(i as usize) {
                        *slot = Some(v);
                    }
                }
            }
        }
        Ok(Self {
            family,
            level,
            seed,
            simulations,
            recomputed: AtomicU64::new(0),
        })
    }

    /// Epochs the merge had to compute itself (epochs that returned an error, or
    /// simulations no shard recorded); 0 for a fully sharded run.
    pub fn recomputed(&self) -> u64 {
        self.recomputed.load(Ordering::Relaxed)
    }
}

/// How a family's simulations run.
#[derive(Debug, Clone)]
pub enum Mode {
    /// Only this shard's epochs, recorded.
    Record(Shard),
    /// Recorded epochs in place of simulation.
    Replay(Arc<Merged>),
}

/// The running family's context (one per family run, on the thread that runs it).
struct Context {
    family: String,
    mode: Mode,
    next: Cell<u64>,
    recorded: RefCell<Vec<Record>>,
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<Context>>> = const { RefCell::new(None) };
}

/// Restores the previous context when a family's run ends (also on a panic).
struct Restore(Option<Rc<Context>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Runs `f` (a family's checks) with its simulations in `mode`; returns what `f`
/// returned and the simulations recorded (empty unless [`Mode::Record`]).
pub fn within<R>(family: &str, mode: &Mode, f: impl FnOnce() -> R) -> (R, Vec<Record>) {
    let context = Rc::new(Context {
        family: family.to_string(),
        mode: mode.clone(),
        next: Cell::new(0),
        recorded: RefCell::new(Vec::new()),
    });
    let previous = CURRENT.with(|c| c.borrow_mut().replace(Rc::clone(&context)));
    let restore = Restore(previous);
    let out = f();
    drop(restore);
    let recorded = std::mem::take(&mut *context.recorded.borrow_mut());
    (out, recorded)
}

/// What [`crate::sim::run_epochs`] must do for one simulation.
pub(crate) enum Plan {
    /// Every epoch (no shard, no merge).
    All,
    /// Only the shard's epochs; then [`Recorder::record`].
    Record(Shard, Recorder),
    /// The recorded values (`None`: compute that epoch).
    Replay(Vec<Option<Value>>, Arc<Merged>),
}

/// Hands a shard's epoch values back to the family's context.
pub(crate) struct Recorder {
    context: Rc<Context>,
    simulation: u64,
    label: String,
    epochs: u64,
    seed: u64,
}

impl Recorder {
    /// The simulation's place in its family (for [`Shard::owns`]).
    pub(crate) fn simulation(&self) -> u64 {
        self.simulation
    }

    /// Stores this shard's `(epoch, value)` pairs.
    pub(crate) fn record(self, values: Vec<(u64, Value)>) {
        self.context.recorded.borrow_mut().push(Record {
            family: self.context.family.clone(),
            simulation: self.simulation,
            label: self.label,
            epochs: self.epochs,
            seed: self.seed,
            values,
        });
    }
}

/// The plan for the next simulation of the running family.
pub(crate) fn plan(label: &str, epochs: u64, seed: u64) -> Plan {
    let Some(context) = CURRENT.with(|c| c.borrow().clone()) else {
        return Plan::All;
    };
    let simulation = context.next.get();
    context.next.set(simulation + 1);
    match &context.mode {
        Mode::Record(shard) => Plan::Record(
            *shard,
            Recorder {
                context: Rc::clone(&context),
                simulation,
                label: label.to_string(),
                epochs,
                seed,
            },
        ),
        Mode::Replay(merged) => {
            let found = merged
                .simulations
                .get(&(context.family.clone(), simulation))
                .filter(|(r, _)| (r.label.as_str(), r.epochs, r.seed) == (label, epochs, seed))
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| vec![None; usize::try_from(epochs).unwrap_or(0)]);
            Plan::Replay(found, Arc::clone(merged))
        }
    }
}

/// Counts an epoch the merge computed itself.
pub(crate) fn recomputed(merged: &Merged) {
    merged.recomputed.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parses_k_of_n_from_zero() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["3/3", "0/0", "1", "a/2", "-1/2", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let s = Shard::new(1, 3).unwrap();
        let owned: Vec<u64> = (0..6).filter(|&i| s.owns(1, i)).collect();
        assert_eq!(owned, vec![0, 3]);
        // Every epoch belongs to exactly one shard.
        for sim in 0..4 {
            for i in 0..10 {
                let owners = (0..3).filter(|&k| Shard::new(k, 3).unwrap().owns(sim, i));
                assert_eq!(owners.count(), 1);
            }
        }
    }

    fn file(index: u64, count: u64) -> ShardFile {
        ShardFile {
            format: FORMAT.to_string(),
            version: "1".to_string(),
            family: Some("classic".to_string()),
            level: Level::Quick,
            seed: 3,
            shard: Shard { index, count },
            records: vec![Record {
                family: "classic".to_string(),
                simulation: 0,
                label: "classic".to_string(),
                epochs: 2,
                seed: 11,
                values: vec![(index, Value::Integer(index.into()))],
            }],
        }
    }

    fn merge_error(files: Vec<ShardFile>) -> MergeError {
        let named = files
            .into_iter()
            .enumerate()
            .map(|(i, f)| (format!("f{i}"), f))
            .collect();
        Merged::new(named).unwrap_err()
    }

    #[test]
    fn shards_of_different_runs_are_refused_naming_the_file() {
        type Change = fn(&mut ShardFile);
        let cases: Vec<(Change, &str)> = vec![
            (|f| f.seed = 4, "seed 4, but f0 has seed 3"),
            (
                |f| f.level = Level::Full,
                "level full, but f0 has level quick",
            ),
            (
                |f| f.family = None,
                "family (all), but f0 has family classic",
            ),
            (|f| f.version = "2".into(), "version 2"),
            (|f| f.shard.count = 3, "shard count 3"),
            (
                |f| f.records[0].seed = 12,
                "its simulations differ from those of f0",
            ),
            (|f| f.records.clear(), "its simulations differ"),
        ];
        for (change, message) in cases {
            let mut second = file(1, 2);
            change(&mut second);
            let e = merge_error(vec![file(0, 2), second]);
            assert_eq!(e.file, "f1");
            assert!(e.message.contains(message), "{e}");
        }
        let e = merge_error(vec![file(0, 2), file(0, 2)]);
        assert!(e.message.contains("shard 0/2 is also given as f0"), "{e}");
        let e = merge_error(vec![file(1, 3), file(0, 3)]);
        assert_eq!(e.file, "--merge");
        assert!(e.message.contains("shard 2/3 is missing"), "{e}");
        assert_eq!(merge_error(Vec::new()).file, "--merge");
    }

    #[test]
    fn a_merge_holds_every_shards_epochs_and_files_round_trip() {
        let mut bytes = Vec::new();
        file(1, 2).write(&mut bytes).unwrap();
        assert_eq!(ShardFile::read(bytes.as_slice()).unwrap(), file(1, 2));
        assert!(ShardFile::read(&b"{}"[..]).is_err());
        let mut wrong = file(1, 2);
        wrong.format = "other".into();
        let mut bytes = Vec::new();
        wrong.write(&mut bytes).unwrap();
        assert!(ShardFile::read(bytes.as_slice())
            .unwrap_err()
            .contains("format"));
        let merged = Merged::new(vec![("a".into(), file(1, 2)), ("b".into(), file(0, 2))]).unwrap();
        let (_, values) = &merged.simulations[&("classic".to_string(), 0)];
        assert_eq!(
            values,
            &vec![
                Some(Value::Integer(0.into())),
                Some(Value::Integer(1.into()))
            ]
        );
    }

    #[test]
    fn epochs_run_under_a_shard_and_a_merge_equal_the_plain_run() {
        let sim = || crate::sim::run_epochs(7, 42, "t", |i, s| (i, s as f64 / 3.0));
        let plain = sim();
        let parts: Vec<(String, ShardFile)> = (0..3)
            .map(|k| {
                let shard = Shard::new(k, 3).unwrap();
                let (got, records) = within("t", &Mode::Record(shard), sim);
                // Only the shard's epochs are computed; the others are placeholders.
                for (i, v) in got.iter().enumerate() {
                    let mine = shard.owns(0, i as u64);
                    assert_eq!(*v == plain[i], mine, "shard {k} epoch {i}");
                }
                let mut f = file(k, 3);
                f.records = records;
                (format!("s{k}"), f)
            })
            .collect();
        let merged = Arc::new(Merged::new(parts).unwrap());
        let (replayed, _) = within("t", &Mode::Replay(Arc::clone(&merged)), sim);
        assert_eq!(replayed, plain);
        assert_eq!(merged.recomputed(), 0);
        // A simulation the shards did not record is computed by the merge.
        let (other, _) = within("t", &Mode::Replay(Arc::clone(&merged)), || {
            crate::sim::run_epochs(2, 43, "u", |i, _| i)
        });
        assert_eq!(other, vec![0, 1]);
        assert_eq!(merged.recomputed(), 2);
    }
}
