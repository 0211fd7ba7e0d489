//! Capacity planning for Bloom-filter variants, as a library call.
//!
//! ```
//! use bfopt_plan::{plan, Requirement};
//!
//! let req = Requirement::window(0.01, 1_000_000)?;
//! let p = plan(&req)?;
//! let pick = p.picked();
//! println!("build {} with {} ({:.1} bits per item): {}", pick.design, pick.params, pick.bits_per_item, p.pick.reason);
//! assert!(pick.fp <= 0.01);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A [`Requirement`] (an FP target, one workload shape, budgets) goes in; a [`Plan`]
//! comes out: every design that meets it, least memory first, each a [`Candidate`] with
//! typed [`Params`], its metrics, what its FP figure is ([`FpKind`]) and its
//! false-negative guarantee; the families and designs left out, with reasons; and the
//! [`Pick`] with a one-line reason computed from the numbers (the rule is in
//! [`planner`]). [`Plan::validate`] simulates every candidate's reference
//! implementation and returns typed checks. Everything serializes with serde.
//!
//! [`allocate()`] answers the next question: one memory budget split over many classic
//! filters (LSM levels, shards, tiers) for the least expected false positives per
//! lookup, or the least budget for a target.
//!
//! No command-line types, no rendering, no exit codes: the `bfopt` CLI, the browser
//! calculator and the Python package are thin layers over this crate.
//!
//! # Families
//! A family joins the planner through one [`families::Family`] entry in
//! [`families::FAMILIES`]: a name and a function that proposes its best designs for a
//! requirement (each with its simulation) or says why it proposes none.

#![warn(missing_docs)]

pub mod allocate;
pub mod candidate;
pub mod check;
pub mod families;
pub mod flags;
pub mod planner;
pub mod requirement;
pub mod text;
pub mod trace;
pub mod validation;

pub use allocate::allocate;
pub use bfopt_models::ModelError;
pub use bfopt_validation::level::Level;
pub use candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params};
pub use flags::RequirementFlags;
pub use planner::{plan, Budget, Exclusion, Infeasible, Pick, Plan, PlanError};
pub use requirement::{Budgets, Requirement, Shape};
pub use validation::{
    validate_candidate, validate_candidates, DesignValidation, Status, Validation,
};
