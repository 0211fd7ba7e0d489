//! What a design must achieve: an FP target, one workload shape and optional budgets.
//!
//! Built through validating constructors; every error is a [`ModelError::InvalidParam`]
//! whose name is the CLI flag without its dashes (`fp`, `window`, `allow_fn`,
//! `max_npws`, ...), so any front end can say which input to fix.

use bfopt_models::stable::ImportanceDist;
use bfopt_models::timing::PenaltyDist;
use bfopt_models::ModelError;
use serde::{Serialize, Serializer};

/// The workload a design must serve.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Shape {
    /// A static set of `items` distinct items.
    Capacity {
        /// Distinct items held.
        items: u64,
    },
    /// The last `insertions` insertions of a stream.
    Window {
        /// The window `W`: no false negative for the last `W` insertions (unless
        /// `allow_fn` admits forgetting designs).
        insertions: u64,
        /// Fraction of insertions that repeat an item of the window, `0 <= d < 1`.
        #[serde(skip_serializing_if = "Option::is_none")]
        duplicates: Option<f64>,
        /// Largest acceptable fraction of window items forgotten: admits designs with
        /// false negatives (one-phase RBF, SBF, GBF, IBF).
        #[serde(skip_serializing_if = "Option::is_none")]
        allow_fn: Option<f64>,
        /// Importance law of the items: adds importance-aware rows (needs `allow_fn`).
        #[serde(
            skip_serializing_if = "Option::is_none",
            serialize_with = "importance_spec"
        )]
        importance: Option<ImportanceDist>,
        /// Prices of a false positive and a false negative: adds the inferential rows.
        #[serde(skip_serializing_if = "Option::is_none")]
        penalties: Option<PenaltyDist>,
    },
    /// A set whose final count is unknown: it starts at `initial_capacity` and may grow
    /// to `max_items` distinct items (scalable Bloom filters grow with it; a classic
    /// filter must be sized for `max_items` up front).
    Growing {
        /// The first guess of the count `N0`.
        initial_capacity: u64,
        /// The most items it may hold `NMAX`: the FP target holds up to here.
        max_items: u64,
    },
    /// Temporal membership: "was x inserted in `[s, e]`?" over timestamps `1..=horizon`.
    Temporal {
        /// Horizon `T` (timestamps).
        horizon: u64,
        /// Query length `|q| = e − s + 1`.
        query_length: u64,
        /// Distinct (item, timestamp) pairs held.
        pairs: u64,
    },
}

/// `FP:FN` for fixed prices, `uniform:LO:HI` otherwise.
pub(crate) fn penalty_text(p: &PenaltyDist) -> String {
    match p {
        PenaltyDist::Fixed { fp, fn_ } => format!("{fp}:{fn_}"),
        PenaltyDist::Uniform { lo, hi } => format!("uniform:{lo}:{hi}"),
    }
}

fn importance_spec<S: Serializer>(d: &Option<ImportanceDist>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_str(d.spec()),
        None => s.serialize_none(),
    }
}

/// Mutable views of a window requirement's options.
struct WindowOptions<'a> {
    duplicates: &'a mut Option<f64>,
    allow_fn: &'a mut Option<f64>,
    importance: &'a mut Option<ImportanceDist>,
    penalties: &'a mut Option<PenaltyDist>,
}

/// Optional limits every candidate must respect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Budgets {
    /// Most memory, in bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_bits: Option<u64>,
    /// Most memory accesses per insertion or per query that returns false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_accesses: Option<f64>,
    /// Most peak NPWS (normalized probability-weighted slack, Section 5.2 [APBF]) of a
    /// window design.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_npws: Option<f64>,
    /// Items are deleted: only structures that support deletion (cuckoo, counting Bloom
    /// filter) qualify.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deletions: bool,
}

/// An FP target, a workload shape and budgets.
///
/// ```
/// use bfopt_plan::Requirement;
/// let r = Requirement::window(0.01, 1_000_000)?.with_max_accesses(8.0)?;
/// assert_eq!(r.items(), 1_000_000);
/// assert!(Requirement::window(0.01, 1_000_000)?.with_max_npws(2.0).is_err());
/// # Ok::<(), bfopt_plan::ModelError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirement {
    fp: f64,
    #[serde(flatten)]
    shape: Shape,
    #[serde(flatten)]
    budgets: Budgets,
}

/// Largest window, capacity or number of pairs accepted (`2^40`).
pub const MAX_ITEMS: u64 = 1 << 40;

fn count(name: &'static str, value: u64) -> Result<u64, ModelError> {
    if (1..=MAX_ITEMS).contains(&value) {
        Ok(value)
    } else {
        Err(ModelError::invalid(
            name,
            value,
            format!("1 <= {name} <= 2^40"),
        ))
    }
}

fn fp(value: f64) -> Result<f64, ModelError> {
    if value > 0.0 && value < 1.0 {
        Ok(value)
    } else {
        Err(ModelError::invalid("fp", value, "0 < fp < 1"))
    }
}

impl Requirement {
    /// A static set of `items` distinct items at FP `fp`.
    ///
    /// # Errors
    /// `fp` outside `(0, 1)`; `items` outside `1..=2^40`.
    pub fn capacity(fp_target: f64, items: u64) -> Result<Self, ModelError> {
        Ok(Self {
            fp: fp(fp_target)?,
            shape: Shape::Capacity {
                items: count("capacity", items)?,
            },
            budgets: Budgets::default(),
        })
    }

    /// A sliding window over the last `insertions` insertions at FP `fp`, without
    /// false negatives in the window (see [`Self::with_allow_fn`]).
    ///
    /// # Errors
    /// `fp` outside `(0, 1)`; `insertions` outside `1..=2^40`.
    pub fn window(fp_target: f64, insertions: u64) -> Result<Self, ModelError> {
        Ok(Self {
            fp: fp(fp_target)?,
            shape: Shape::Window {
                insertions: count("window", insertions)?,
                duplicates: None,
                allow_fn: None,
                importance: None,
                penalties: None,
            },
            budgets: Budgets::default(),
        })
    }

    /// A set of unknown final count: `initial_capacity` items expected, up to `max_items`,
    /// at FP `fp` at every count up to `max_items`.
    ///
    /// ```
    /// use bfopt_plan::Requirement;
    /// let r = Requirement::growing(0.01, 10_000, 1_000_000)?;
    /// assert_eq!(r.items(), 1_000_000);
    /// assert!(Requirement::growing(0.01, 10_000, 1000).is_err());
    /// # Ok::<(), bfopt_plan::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// `fp` outside `(0, 1)`; a count outside `1..=2^40`; `max_items < initial_capacity`.
    pub fn growing(
        fp_target: f64,
        initial_capacity: u64,
        max_items: u64,
    ) -> Result<Self, ModelError> {
        let initial_capacity = count("initial_capacity", initial_capacity)?;
        let max_items = count("max_items", max_items)?;
        if max_items < initial_capacity {
            return Err(ModelError::invalid(
                "max_items",
                max_items,
                format!("max_items >= initial_capacity = {initial_capacity}"),
            ));
        }
        Ok(Self {
            fp: fp(fp_target)?,
            shape: Shape::Growing {
                initial_capacity,
                max_items,
            },
            budgets: Budgets::default(),
        })
    }

    /// Temporal membership over timestamps `1..=horizon`, queries of `query_length`
    /// timestamps, `pairs` distinct (item, timestamp) pairs.
    ///
    /// # Errors
    /// `fp` outside `(0, 1)`; a count outside `1..=2^40`; `query_length > horizon`.
    pub fn temporal(
        fp_target: f64,
        horizon: u64,
        query_length: u64,
        pairs: u64,
    ) -> Result<Self, ModelError> {
        let horizon = count("horizon", horizon)?;
        if !(2..=horizon).contains(&query_length) {
            // A query of one timestamp is a membership query of one (item, time) pair.
            return Err(ModelError::invalid(
                "query_length",
                query_length,
                format!("2 <= query_length <= horizon = {horizon}"),
            ));
        }
        Ok(Self {
            fp: fp(fp_target)?,
            shape: Shape::Temporal {
                horizon,
                query_length,
                pairs: count("pairs", pairs)?,
            },
            budgets: Budgets::default(),
        })
    }

    /// The window's options, or an error naming `name` if this is not a window.
    fn window_mut(
        &mut self,
        name: &'static str,
        value: impl std::fmt::Display,
    ) -> Result<WindowOptions<'_>, ModelError> {
        match &mut self.shape {
            Shape::Window {
                duplicates,
                allow_fn,
                importance,
                penalties,
                ..
            } => Ok(WindowOptions {
                duplicates,
                allow_fn,
                importance,
                penalties,
            }),
            _ => Err(ModelError::invalid(
                name,
                value,
                "only with a window requirement (--window W)",
            )),
        }
    }

    /// This fraction of insertions repeats an item of the window, `0 <= d < 1`.
    ///
    /// # Errors
    /// `d` outside `[0, 1)`, or a requirement that is not a window.
    pub fn with_duplicates(mut self, d: f64) -> Result<Self, ModelError> {
        if !(0.0..1.0).contains(&d) {
            return Err(ModelError::invalid("duplicates", d, "0 <= duplicates < 1"));
        }
        *self.window_mut("duplicates", d)?.duplicates = Some(d);
        Ok(self)
    }

    /// Admits designs that forget window items, with at most this fraction forgotten,
    /// `0 < rate < 1`.
    ///
    /// # Errors
    /// `rate` outside `(0, 1)`, or a requirement that is not a window.
    pub fn with_allow_fn(mut self, rate: f64) -> Result<Self, ModelError> {
        if !(rate > 0.0 && rate < 1.0) {
            return Err(ModelError::invalid("allow_fn", rate, "0 < allow_fn < 1"));
        }
        *self.window_mut("allow_fn", rate)?.allow_fn = Some(rate);
        Ok(self)
    }

    /// Items carry importances drawn from `dist`: adds the importance-aware rows. Needs
    /// [`Self::with_allow_fn`] (importance-aware filters forget).
    ///
    /// # Errors
    /// A requirement that is not a window or has no `allow_fn`.
    pub fn with_importance(mut self, dist: ImportanceDist) -> Result<Self, ModelError> {
        let has_fn = matches!(
            self.shape,
            Shape::Window {
                allow_fn: Some(_),
                ..
            }
        );
        if !has_fn {
            return Err(ModelError::invalid(
                "importance",
                dist.spec(),
                "only with a window and allow_fn (--window W --allow-fn RATE): importance-aware filters forget",
            ));
        }
        let spec = dist.spec().to_string();
        *self.window_mut("importance", spec)?.importance = Some(dist);
        Ok(self)
    }

    /// Errors have prices: adds the inferential rows, which answer by the cheaper
    /// expected error (Section 2.6 [TBF]).
    ///
    /// # Errors
    /// A requirement that is not a window.
    pub fn with_penalties(mut self, penalties: PenaltyDist) -> Result<Self, ModelError> {
        *self
            .window_mut("penalties", penalty_text(&penalties))?
            .penalties = Some(penalties);
        Ok(self)
    }

    /// At most `bits` bits of memory.
    ///
    /// # Errors
    /// `bits` is 0.
    pub fn with_memory(mut self, bits: u64) -> Result<Self, ModelError> {
        if bits == 0 {
            return Err(ModelError::invalid("memory", bits, "memory >= 1 bit"));
        }
        self.budgets.memory_bits = Some(bits);
        Ok(self)
    }

    /// At most `accesses` memory accesses per insertion and per negative query.
    ///
    /// # Errors
    /// `accesses < 1`, NaN or infinite.
    pub fn with_max_accesses(mut self, accesses: f64) -> Result<Self, ModelError> {
        if !(accesses >= 1.0 && accesses.is_finite()) {
            return Err(ModelError::invalid(
                "max_accesses",
                accesses,
                "1 <= max_accesses < inf",
            ));
        }
        self.budgets.max_accesses = Some(accesses);
        Ok(self)
    }

    /// At most this peak NPWS, `0 <= npws <= 1` (0: no item past the window may be
    /// reported more often than a never-inserted one).
    ///
    /// # Errors
    /// `npws` outside `[0, 1]`, or a requirement that is not a window.
    pub fn with_max_npws(mut self, npws: f64) -> Result<Self, ModelError> {
        if !(0.0..=1.0).contains(&npws) {
            return Err(ModelError::invalid("max_npws", npws, "0 <= max_npws <= 1"));
        }
        if !matches!(self.shape, Shape::Window { .. }) {
            return Err(ModelError::invalid(
                "max_npws",
                npws,
                "only with a window requirement (--window W)",
            ));
        }
        self.budgets.max_npws = Some(npws);
        Ok(self)
    }

    /// Items are removed as well as inserted: only structures that support deletion
    /// (cuckoo filters, counting Bloom filters) qualify.
    ///
    /// # Errors
    /// A requirement that is not a static set (window designs forget on their own).
    pub fn with_deletions(mut self) -> Result<Self, ModelError> {
        if !matches!(self.shape, Shape::Capacity { .. }) {
            return Err(ModelError::invalid(
                "deletions",
                "true",
                "only with a static set (--capacity N)",
            ));
        }
        self.budgets.deletions = true;
        Ok(self)
    }

    /// Whether items are deleted ([`Self::with_deletions`]).
    pub fn deletions(&self) -> bool {
        self.budgets.deletions
    }

    /// The FP target.
    pub fn fp(&self) -> f64 {
        self.fp
    }

    /// The workload shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The budgets.
    pub fn budgets(&self) -> &Budgets {
        &self.budgets
    }

    /// What bits per item are counted against: items, window insertions, pairs, or
    /// the most items of a growing set.
    pub fn items(&self) -> u64 {
        match self.shape {
            Shape::Capacity { items } => items,
            Shape::Window { insertions, .. } => insertions,
            Shape::Temporal { pairs, .. } => pairs,
            Shape::Growing { max_items, .. } => max_items,
        }
    }

    /// The window `W`, if the requirement is a window.
    pub fn window_insertions(&self) -> Option<u64> {
        match self.shape {
            Shape::Window { insertions, .. } => Some(insertions),
            _ => None,
        }
    }

    /// The duplicate rate of a window requirement.
    pub fn duplicates(&self) -> Option<f64> {
        match self.shape {
            Shape::Window { duplicates, .. } => duplicates,
            _ => None,
        }
    }

    /// The forgetting allowance of a window requirement.
    pub fn allow_fn(&self) -> Option<f64> {
        match self.shape {
            Shape::Window { allow_fn, .. } => allow_fn,
            _ => None,
        }
    }

    /// The importance law of a window requirement.
    pub fn importance(&self) -> Option<&ImportanceDist> {
        match &self.shape {
            Shape::Window { importance, .. } => importance.as_ref(),
            _ => None,
        }
    }

    /// The error prices of a window requirement.
    pub fn penalties(&self) -> Option<PenaltyDist> {
        match self.shape {
            Shape::Window { penalties, .. } => penalties,
            _ => None,
        }
    }

    /// The shape's name for messages: `--capacity`, `--window`, `--horizon`.
    pub fn shape_name(&self) -> &'static str {
        match self.shape {
            Shape::Capacity { .. } => "a static set",
            Shape::Window { .. } => "a sliding window",
            Shape::Temporal { .. } => "temporal membership",
            Shape::Growing { .. } => "a growing set",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn options_that_need_a_window_name_themselves() {
        let c = Requirement::capacity(0.01, 1000).unwrap();
        for e in [
            c.clone().with_allow_fn(0.05).unwrap_err(),
            c.clone().with_duplicates(0.5).unwrap_err(),
            c.clone().with_max_npws(0.1).unwrap_err(),
        ] {
            assert!(e.to_string().contains("only with a window"), "{e}");
        }
        let w = Requirement::window(0.01, 1000).unwrap();
        let e = w
            .clone()
            .with_importance(ImportanceDist::linear(1, 5).unwrap())
            .unwrap_err();
        assert!(e.to_string().contains("allow_fn"), "{e}");
        let ok = w
            .with_allow_fn(0.1)
            .unwrap()
            .with_importance(ImportanceDist::linear(1, 5).unwrap())
            .unwrap()
            .with_duplicates(0.2)
            .unwrap();
        assert_eq!(ok.allow_fn(), Some(0.1));
        assert_eq!(ok.duplicates(), Some(0.2));
        assert!(ok.importance().is_some());
    }

    #[test]
    fn npws_bounds_are_one_range() {
        let w = Requirement::window(0.01, 1000).unwrap();
        assert!(w.clone().with_max_npws(0.0).is_ok());
        assert!(w.clone().with_max_npws(1.0).is_ok());
        for bad in [-0.1, 1.5, f64::NAN] {
            let e = w.clone().with_max_npws(bad).unwrap_err();
            assert!(e.to_string().contains("0 <= max_npws <= 1"), "{e}");
        }
    }

    #[test]
    fn serializes_flat() {
        let r = Requirement::window(0.01, 1000)
            .unwrap()
            .with_memory(1 << 20)
            .unwrap();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["shape"], "window");
        assert_eq!(v["insertions"], 1000);
        assert_eq!(v["memory_bits"], 1 << 20);
        assert!(v.get("allow_fn").is_none());
    }

    proptest! {
        #[test]
        fn constructors_never_panic(fp in any::<f64>(), n in any::<u64>(), x in any::<f64>()) {
            let _ = Requirement::capacity(fp, n);
            if let Ok(w) = Requirement::window(fp, n) {
                let _ = w.clone().with_allow_fn(x);
                let _ = w.clone().with_duplicates(x);
                let _ = w.clone().with_max_npws(x);
                let _ = w.with_max_accesses(x);
            }
            let _ = Requirement::temporal(fp, n, n / 2, n);
        }
    }
}
