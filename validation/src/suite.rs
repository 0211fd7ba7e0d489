//! The model-vs-simulation suite behind `bfopt validate`.

use crate::agree::Check;
use crate::shard::{Merged, Mode, Record, Shard, ShardFile};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub use crate::level::Level;

/// Family-wise error rate of a suite run: each check's interval has confidence
/// `1 − FAMILY_ALPHA / checks` (Bonferroni), so a correct model fails a whole run with
/// probability at most 1%.
pub const FAMILY_ALPHA: f64 = 0.01;

/// The most checks a family may make at a level, for the Bonferroni split. A family
/// that makes more gets one more, failed, check saying so: the split would otherwise
/// promise a family-wise error rate it does not keep. (Quick level, measured
/// 2026-11-23: timing 74, apbf 64, gbf 37, rbf 30, classic 29, pbf 24, stable 22,
/// baseline 14; the timing full level makes 135.)
pub fn checks_per_family(level: Level) -> usize {
    match level {
        Level::Quick => 80,
        Level::Full => 200,
    }
}

/// A family's checks: `(level, base seed, per-check confidence) -> checks`.
pub type FamilyChecks = fn(Level, u64, f64) -> Vec<Check>;

/// Every family in the suite, by name.
pub const FAMILIES: &[(&str, FamilyChecks)] = &[
    ("classic", crate::experiments::classic::checks),
    ("baseline", crate::experiments::baseline::checks),
    ("rbf", crate::experiments::rbf::checks),
    ("timing", crate::experiments::timing::checks),
    ("apbf", crate::experiments::apbf::checks),
    ("pbf", crate::experiments::pbf::checks),
    ("stable", crate::experiments::stable::checks),
    ("gbf", crate::experiments::gbf::checks),
    ("scalable", crate::experiments::scalable::checks),
    ("fuse", crate::experiments::fuse::checks),
    ("cuckoo", crate::experiments::cuckoo::checks),
    ("counting", crate::experiments::counting::checks),
];

/// Names of the families in the suite.
pub fn family_names() -> Vec<&'static str> {
    FAMILIES.iter().map(|(n, _)| *n).collect()
}

/// Runs the suite for one family (`Some(name)`) or all; `None` if the name is unknown.
/// A failing check never stops the others, and neither does a family whose checks
/// panic: its panic becomes one failed check (`error: the <family> checks panicked:
/// ...`) and the next family runs. Finished checks are published as each family ends
/// (see [`finished`]); after [`request_stop`] no further family starts.
pub fn run(family: Option<&str>, level: Level, seed: u64) -> Option<Vec<Check>> {
    run_observed(family, level, seed, |_, _| {})
}

/// [`run`], calling `done(family, checks)` after each family.
pub fn run_observed(
    family: Option<&str>,
    level: Level,
    seed: u64,
    done: impl FnMut(&str, &[Check]) + Send,
) -> Option<Vec<Check>> {
    run_in(family, level, seed, None, done).map(|(checks, _)| checks)
}

/// Runs shard `shard` of the suite (see [`crate::shard`]): each simulation computes
/// only the shard's epochs; the result is the file to hand to [`run_merged`]. `done`
/// is called after each family with the number of simulations it recorded. `None` if
/// the family is unknown.
pub fn run_shard(
    family: Option<&str>,
    level: Level,
    seed: u64,
    shard: Shard,
    mut done: impl FnMut(&str, usize) + Send,
) -> Option<ShardFile> {
    let mode = Mode::Record(shard);
    let (_, records) = run_in(family, level, seed, Some(&mode), |name, _| {
        done(name, 0);
    })?;
    Some(ShardFile {
        format: crate::shard::FORMAT.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        family: family.map(str::to_string),
        level,
        seed,
        shard,
        records,
    })
}

/// Runs the suite of merged shards: every simulation takes its epochs' values from
/// the shards, so the checks equal those of [`run`] with the shards' family, level and
/// seed. `None` if the shards' family is unknown.
pub fn run_merged(
    merged: Arc<Merged>,
    done: impl FnMut(&str, &[Check]) + Send,
) -> Option<Vec<Check>> {
    let (family, level, seed) = (merged.family.clone(), merged.level, merged.seed);
    let mode = Mode::Replay(merged);
    run_in(family.as_deref(), level, seed, Some(&mode), done).map(|(checks, _)| checks)
}

/// The families whose full level takes longest (CPU, one thread, 2026-11-29: pbf 40 s,
/// stable 51, gbf 30, timing 25, baseline 14, apbf 13, every other under 8), started
/// first at that level so that none of them is left to run alone at the end; the others follow in
/// [`FAMILIES`] order. The pbf family's runs are whole days, one after another, so it
/// takes its CPU time in wall time whatever the core count.
pub const LONGEST_FIRST: &[&str] = &["pbf", "stable", "gbf", "timing", "baseline", "apbf"];

/// A family's checks and the simulations it recorded.
type FamilyRun = (Vec<Check>, Vec<Record>);

/// The order in which the `selected` families start: indices into `selected`; at the
/// full level [`LONGEST_FIRST`] ones first, at the quick level (seconds in all) the
/// registry order.
fn start_order(selected: &[&(&str, FamilyChecks)], level: Level) -> Vec<usize> {
    let mut order: Vec<usize> = (0..selected.len()).collect();
    if level == Level::Quick {
        return order;
    }
    let rank = |name: &str| {
        LONGEST_FIRST
            .iter()
            .position(|&n| n == name)
            .unwrap_or(LONGEST_FIRST.len())
    };
    // Stable: the rest keep their registry order.
    order.sort_by_key(|&i| rank(selected[i].0));
    order
}

/// The suite, its simulations run as `mode` says (all epochs when `None`); returns the
/// checks (in family order) and the simulations recorded.
///
/// Families run in parallel, each on one thread with its epochs spread over the pool:
/// one worker per pool thread takes the next family to start ([`start_order`]) until
/// none is left, then helps with the others' epochs. A family's checks depend only on
/// the seed, so the report is the same as in sequence. `done` is called as each family
/// finishes (in the order they finish).
fn run_in(
    family: Option<&str>,
    level: Level,
    seed: u64,
    mode: Option<&Mode>,
    done: impl FnMut(&str, &[Check]) + Send,
) -> Option<(Vec<Check>, Vec<Record>)> {
    let selected: Vec<_> = FAMILIES
        .iter()
        .filter(|(name, _)| family.is_none_or(|f| f == *name))
        .collect();
    if selected.is_empty() {
        return None;
    }
    let budget = checks_per_family(level);
    let confidence = 1.0 - FAMILY_ALPHA / (budget * selected.len()) as f64;
    lock(&FINISHED).clear();
    let done = Mutex::new(done);
    let run_family = |index: usize| {
        let (name, checks) = selected[index];
        let family_checks = || isolated(name, seed, || checks(level, seed, confidence));
        let (mut got, recorded) = match mode {
            None => (family_checks(), Vec::new()),
            Some(mode) => crate::shard::within(name, mode, family_checks),
        };
        flag_over_budget(name, &mut got, budget, seed);
        (done.lock().unwrap_or_else(PoisonError::into_inner))(name, &got);
        // A shard's checks are of partial statistics: never reported.
        if !matches!(mode, Some(Mode::Record(_))) {
            lock(&FINISHED).insert(index, got.clone());
        }
        (got, recorded)
    };
    let order = start_order(&selected, level);
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<FamilyRun>>> =
        selected.iter().map(|_| Mutex::new(None)).collect();
    let workers = rayon::current_num_threads().clamp(1, selected.len());
    (0..workers).into_par_iter().for_each(|_| {
        while !STOP.load(Ordering::SeqCst) {
            let Some(&index) = order.get(next.fetch_add(1, Ordering::SeqCst)) else {
                break;
            };
            let result = run_family(index);
            *lock(&results[index]) = Some(result);
        }
    });
    let (mut all, mut records) = (Vec::new(), Vec::new());
    for slot in results {
        if let Some((got, recorded)) = slot.into_inner().unwrap_or_else(PoisonError::into_inner) {
            all.extend(got);
            records.extend(recorded);
        }
    }
    Some((all, records))
}

/// Appends a failed check when a family made more checks than the Bonferroni split
/// allowed it (see [`checks_per_family`]).
fn flag_over_budget(family: &str, checks: &mut Vec<Check>, budget: usize, seed: u64) {
    if checks.len() > budget {
        let message = format!(
            "{} checks, more than the {budget} the Bonferroni split allows a family \
             (raise suite::checks_per_family)",
            checks.len()
        );
        checks.push(Check::error(family, message, seed));
    }
}

/// Runs one family's checks; a panic becomes a single failed check naming it.
pub fn isolated(family: &str, seed: u64, checks: impl FnOnce() -> Vec<Check>) -> Vec<Check> {
    catch_unwind(AssertUnwindSafe(checks)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        vec![Check::error(
            family,
            format!("the {family} checks panicked: {why}"),
            seed,
        )]
    })
}

/// Checks of the running (or last) suite whose family has finished, by family index.
static FINISHED: Mutex<BTreeMap<usize, Vec<Check>>> = Mutex::new(BTreeMap::new());

/// Set by [`request_stop`]: no further family starts.
static STOP: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The checks finished so far by the running suite, in family order (for a report on
/// interruption).
pub fn finished() -> Vec<Check> {
    lock(&FINISHED).values().flatten().cloned().collect()
}

/// Asks the running suite to start no further family (Ctrl-C).
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_full_level_the_longest_families_start_first_and_the_rest_keep_their_order() {
        let all: Vec<_> = FAMILIES.iter().collect();
        let quick: Vec<&str> = start_order(&all, Level::Quick)
            .iter()
            .map(|&i| all[i].0)
            .collect();
        assert_eq!(quick, family_names());
        let order: Vec<&str> = start_order(&all, Level::Full)
            .iter()
            .map(|&i| all[i].0)
            .collect();
        assert_eq!(&order[..LONGEST_FIRST.len()], LONGEST_FIRST);
        let rest: Vec<&str> = family_names()
            .into_iter()
            .filter(|n| !LONGEST_FIRST.contains(n))
            .collect();
        assert_eq!(&order[LONGEST_FIRST.len()..], &rest[..]);
        assert!(LONGEST_FIRST.iter().all(|n| family_names().contains(n)));
    }

    #[test]
    fn a_panicking_family_becomes_one_failed_check() {
        let got = isolated("classic", 7, || panic!("boom at {}", 3));
        assert_eq!(got.len(), 1);
        assert!(!got[0].pass);
        assert_eq!(got[0].family, "classic");
        assert!(
            got[0].name.contains("panicked: boom at 3"),
            "{}",
            got[0].name
        );
        let fine = isolated("classic", 7, Vec::new);
        assert!(fine.is_empty());
    }

    #[test]
    fn a_family_over_its_check_budget_gets_a_failed_check() {
        let mut within = vec![Check::error("classic", "x".into(), 1); 3];
        flag_over_budget("classic", &mut within, 3, 1);
        assert_eq!(within.len(), 3);
        let mut over = vec![Check::error("classic", "x".into(), 1); 4];
        flag_over_budget("classic", &mut over, 3, 1);
        assert_eq!(over.len(), 5);
        assert!(!over[4].pass);
        assert!(
            over[4].name.contains("4 checks, more than the 3"),
            "{}",
            over[4].name
        );
    }
}
