//! The requirement flags of `bfopt recommend` as typed values, and their one mapping to a
//! [`Requirement`]: the CLI, the browser page and the Python package all build their
//! requirement with [`RequirementFlags::requirement`], so the same flags give the same
//! requirement and the same errors everywhere.
//!
//! Errors are [`ModelError`]s that name each value by its flag without dashes, with
//! underscores (`max_accesses`: the Python keyword); [`FLAG_NAMES`] spells them as the
//! CLI's flags (`--max-accesses`).

use crate::requirement::Requirement;
use bfopt_models::stable::ImportanceDist;
use bfopt_models::timing::{Penalties, PenaltyDist};
use bfopt_models::ModelError;

/// The parameter name of the error for a combination of shapes that is not exactly one.
pub const SHAPE: &str = "capacity/window/horizon";

/// What [`SHAPE`] allows, spelled with the CLI's flags.
pub const SHAPE_ALLOWED: &str = "exactly one of --capacity N, --window W, --horizon T --query-length Q --pairs n, --initial-capacity N0 --max-items NMAX";

/// What [`SHAPE`] allows, spelled with keyword arguments (the Python package).
pub const SHAPE_ALLOWED_KEYWORDS: &str = "exactly one of capacity=N, window=W, horizon=T with query_length=Q and pairs=n, initial_capacity=N0 with max_items=NMAX";

/// What `importance` allows.
pub const IMPORTANCE_ALLOWED: &str = "linear:LO:HI, exponential:LO:HI:RATE or hist:IMP=WEIGHT,... with 1 <= LO <= HI <= 10000, RATE >= 0";

/// Every parameter name of [`RequirementFlags::requirement`]'s errors and the CLI flag
/// that sets it, in the order of the command line.
pub const FLAG_NAMES: &[(&str, &str)] = &[
    ("fp", "--fp"),
    ("capacity", "--capacity"),
    ("window", "--window"),
    ("horizon", "--horizon"),
    ("query_length", "--query-length"),
    ("pairs", "--pairs"),
    ("initial_capacity", "--initial-capacity"),
    ("max_items", "--max-items"),
    ("memory", "--memory"),
    ("max_accesses", "--max-accesses"),
    ("max_npws", "--max-npws"),
    ("allow_fn", "--allow-fn"),
    ("duplicates", "--duplicates"),
    ("importance", "--importance"),
    ("penalties", "--penalties"),
    ("deletions", "--deletions"),
    (SHAPE, "--capacity/--window/--horizon"),
];

/// The requirement flags of `bfopt recommend`, parsed: each `None` (or `false`) is a
/// flag not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequirementFlags {
    /// `--fp`: the largest acceptable false-positive rate.
    pub fp: f64,
    /// `--capacity`: a static set of this many items.
    pub capacity: Option<u64>,
    /// `--window`: a sliding window over the last this many insertions.
    pub window: Option<u64>,
    /// `--horizon`: temporal membership over timestamps `1..=T`.
    pub horizon: Option<u64>,
    /// `--query-length`: the length of the temporal queries.
    pub query_length: Option<u64>,
    /// `--pairs`: distinct (item, timestamp) pairs.
    pub pairs: Option<u64>,
    /// `--initial-capacity`: the first guess of a growing set's size.
    pub initial_capacity: Option<u64>,
    /// `--max-items`: the most items a growing set may hold.
    pub max_items: Option<u64>,
    /// `--memory`: the memory budget in bits.
    pub memory: Option<u64>,
    /// `--max-accesses`: memory accesses per insertion or negative query.
    pub max_accesses: Option<f64>,
    /// `--max-npws`: peak normalized probability-weighted slack.
    pub max_npws: Option<f64>,
    /// `--allow-fn`: the forgetting admitted in a window.
    pub allow_fn: Option<f64>,
    /// `--duplicates`: the fraction of insertions that repeat a window item.
    pub duplicates: Option<f64>,
    /// `--importance`: the importance law, as text (`linear:LO:HI`, ...).
    pub importance: Option<String>,
    /// `--penalties`: the prices of a false positive and a false negative.
    pub penalties: Option<PenaltyDist>,
    /// `--deletions`: items are deleted as well as inserted.
    pub deletions: bool,
}

impl RequirementFlags {
    /// The requirement the flags describe: the shape (exactly one of capacity, window,
    /// horizon with query length and pairs, initial capacity with max items; a missing
    /// companion counts as 0 and is rejected by the library), then the values in the
    /// order NPWS, allow-FN, duplicates, importance, penalties, deletions, memory,
    /// accesses, so that a bad value is named whatever else is missing.
    ///
    /// ```
    /// use bfopt_plan::flags::RequirementFlags;
    /// let flags = RequirementFlags { fp: 0.01, window: Some(1_000_000), max_accesses: Some(8.0), ..Default::default() };
    /// assert_eq!(flags.requirement()?.window_insertions(), Some(1_000_000));
    /// let bad = RequirementFlags { max_accesses: Some(0.5), ..flags };
    /// assert!(bad.requirement().unwrap_err().to_string().starts_with("invalid max_accesses = 0.5"));
    /// # Ok::<(), bfopt_plan::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// A [`ModelError`] naming the first bad value by its name in [`FLAG_NAMES`]
    /// ([`SHAPE`] for a combination of shapes that is not exactly one).
    pub fn requirement(&self) -> Result<Requirement, ModelError> {
        let growing = self.initial_capacity.is_some() || self.max_items.is_some();
        let mut req = match (self.capacity, self.window, self.horizon, growing) {
            (None, None, None, true) => Requirement::growing(
                self.fp,
                self.initial_capacity.unwrap_or(0),
                self.max_items.unwrap_or(0),
            ),
            (Some(n), None, None, false) => Requirement::capacity(self.fp, n),
            (None, Some(w), None, false) => Requirement::window(self.fp, w),
            (None, None, Some(horizon), false) => Requirement::temporal(
                self.fp,
                horizon,
                self.query_length.unwrap_or(0),
                self.pairs.unwrap_or(0),
            ),
            _ => {
                return Err(ModelError::invalid(
                    SHAPE,
                    "this combination",
                    SHAPE_ALLOWED,
                ))
            }
        }?;
        if let Some(x) = self.max_npws {
            req = req.with_max_npws(x)?;
        }
        if let Some(r) = self.allow_fn {
            req = req.with_allow_fn(r)?;
        }
        if let Some(d) = self.duplicates {
            req = req.with_duplicates(d)?;
        }
        if let Some(spec) = &self.importance {
            let dist = ImportanceDist::parse(spec)
                .map_err(|_| ModelError::invalid("importance", spec, IMPORTANCE_ALLOWED))?;
            req = req.with_importance(dist)?;
        }
        if let Some(p) = self.penalties {
            req = req.with_penalties(p)?;
        }
        if self.deletions {
            req = req.with_deletions()?;
        }
        if let Some(m) = self.memory {
            req = req.with_memory(m)?;
        }
        if let Some(a) = self.max_accesses {
            req = req.with_max_accesses(a)?;
        }
        Ok(req)
    }
}

/// Parses `--penalties FP:FN` (two finite prices >= 0, not both 0) with `real`, the
/// caller's parser of one number.
///
/// # Errors
/// The whole message (`--penalties = TEXT: allowed FP:FN, ...`) when `s` is not such a pair.
pub fn parse_penalties(
    s: &str,
    real: impl Fn(&str) -> Result<f64, String>,
) -> Result<PenaltyDist, String> {
    let allowed =
        format!("--penalties = {s}: allowed FP:FN, two prices >= 0, not both 0 (e.g. 1:10)");
    let (a, b) = s.split_once(':').ok_or_else(|| allowed.clone())?;
    let a = real(a).map_err(|_| allowed.clone())?;
    let b = real(b).map_err(|_| allowed.clone())?;
    let p = Penalties::new(a, b).map_err(|_| allowed.clone())?;
    if a == 0.0 && b == 0.0 {
        return Err(allowed);
    }
    Ok(PenaltyDist::Fixed {
        fp: p.fp(),
        fn_: p.fn_(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn window() -> RequirementFlags {
        RequirementFlags {
            fp: 0.01,
            window: Some(100_000),
            ..Default::default()
        }
    }

    fn name_of(e: ModelError) -> &'static str {
        match e {
            ModelError::InvalidParam { name, .. } => name,
            other => panic!("not an invalid parameter: {other}"),
        }
    }

    #[test]
    fn every_shape_maps_to_its_requirement() {
        assert_eq!(
            window().requirement().unwrap().shape_name(),
            "a sliding window"
        );
        let growing = RequirementFlags {
            fp: 0.01,
            initial_capacity: Some(1000),
            max_items: Some(100_000),
            ..Default::default()
        };
        assert_eq!(growing.requirement().unwrap().items(), 100_000);
        let temporal = RequirementFlags {
            fp: 0.01,
            horizon: Some(1000),
            query_length: Some(10),
            pairs: Some(5000),
            ..Default::default()
        };
        assert!(matches!(
            temporal.requirement().unwrap().shape(),
            crate::Shape::Temporal { .. }
        ));
    }

    #[test]
    fn errors_name_the_flag_of_the_bad_value() {
        let two = RequirementFlags {
            capacity: Some(10),
            ..window()
        };
        assert_eq!(name_of(two.requirement().unwrap_err()), SHAPE);
        let none = RequirementFlags {
            fp: 0.01,
            ..Default::default()
        };
        assert_eq!(name_of(none.requirement().unwrap_err()), SHAPE);
        let window_and_growing = RequirementFlags {
            max_items: Some(10),
            ..window()
        };
        assert_eq!(
            name_of(window_and_growing.requirement().unwrap_err()),
            SHAPE
        );
        let half_growing = RequirementFlags {
            fp: 0.01,
            max_items: Some(10),
            ..Default::default()
        };
        assert_eq!(
            name_of(half_growing.requirement().unwrap_err()),
            "initial_capacity"
        );
        let bad_imp = RequirementFlags {
            importance: Some("nonsense".into()),
            allow_fn: Some(0.1),
            ..window()
        };
        let e = bad_imp.requirement().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid importance = nonsense (allowed: {IMPORTANCE_ALLOWED})")
        );
        // A bad value is named before the flag it needs is missing.
        let npws = RequirementFlags {
            max_npws: Some(2.0),
            memory: Some(0),
            ..window()
        };
        assert_eq!(name_of(npws.requirement().unwrap_err()), "max_npws");
        let no_pairs = RequirementFlags {
            fp: 0.01,
            horizon: Some(100),
            query_length: Some(10),
            ..Default::default()
        };
        assert_eq!(name_of(no_pairs.requirement().unwrap_err()), "pairs");
        for (name, _) in FLAG_NAMES {
            assert_eq!(
                FLAG_NAMES.iter().filter(|(n, _)| n == name).count(),
                1,
                "{name}"
            );
        }
    }

    #[test]
    fn penalties_parse_as_two_prices() {
        let real = |s: &str| s.parse::<f64>().map_err(|e| e.to_string());
        assert_eq!(
            parse_penalties("1:10", real),
            Ok(PenaltyDist::Fixed { fp: 1.0, fn_: 10.0 })
        );
        for bad in ["0:0", "1", "a:1", "-1:2"] {
            let e = parse_penalties(bad, real).unwrap_err();
            assert!(
                e.starts_with(&format!("--penalties = {bad}: allowed FP:FN")),
                "{e}"
            );
        }
    }

    #[test]
    fn deletions_need_a_static_set() {
        let del = RequirementFlags {
            deletions: true,
            ..window()
        };
        assert_eq!(name_of(del.requirement().unwrap_err()), "deletions");
        let del = RequirementFlags {
            capacity: Some(1000),
            window: None,
            deletions: true,
            ..window()
        };
        assert!(del.requirement().is_ok());
    }

    proptest! {
        #[test]
        fn any_flags_give_a_requirement_or_a_named_error(
            fp in any::<f64>(),
            counts in proptest::collection::vec(proptest::option::of(any::<u64>()), 8),
            reals in proptest::collection::vec(proptest::option::of(any::<f64>()), 4),
            importance in proptest::option::of("[a-z0-9:=,.]{0,16}"),
            deletions in any::<bool>(),
        ) {
            let flags = RequirementFlags {
                fp,
                capacity: counts[0],
                window: counts[1],
                horizon: counts[2],
                query_length: counts[3],
                pairs: counts[4],
                initial_capacity: counts[5],
                max_items: counts[6],
                memory: counts[7],
                max_accesses: reals[0],
                max_npws: reals[1],
                allow_fn: reals[2],
                duplicates: reals[3],
                importance,
                penalties: None,
                deletions,
            };
            if let Err(ModelError::InvalidParam { name, .. }) = flags.requirement() {
                prop_assert!(FLAG_NAMES.iter().any(|(n, _)| *n == name), "{}", name);
            }
        }
    }
}
