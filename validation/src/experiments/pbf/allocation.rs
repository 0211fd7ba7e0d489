//! The methods of Table 2 [PBF] and the allocation each makes from its statistics.

use super::Learned;
use bfopt_models::error::ModelError;
use bfopt_models::pbf::{Allocation, AllocationProblem, PbfLayout, Variant};
use serde::Serialize;

/// A method of Table 2 [PBF], or a uniform baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// `β0`: one filter over (item, timestamp) pairs.
    Sbf,
    /// `β1`/`β2` with every filter the same size (Section 4).
    Uniform(Variant),
    /// `β1-opt`/`β2-opt`: optimal allocation from exact `d_i`, `f_i`.
    Opt(Variant),
    /// `β1-online`/`β2-online`: optimal allocation from `d_i`, `f_i` learned on the
    /// previous partition.
    Online(Variant),
}

impl Method {
    /// `sbf`, `pbf1-uniform`, `pbf2-opt`, `pbf1-online`, ...
    pub fn name(&self) -> String {
        let v = |v: &Variant| match v {
            Variant::Pbf1 => "pbf1",
            Variant::Pbf2 => "pbf2",
        };
        match self {
            Method::Sbf => "sbf".into(),
            Method::Uniform(x) => format!("{}-uniform", v(x)),
            Method::Opt(x) => format!("{}-opt", v(x)),
            Method::Online(x) => format!("{}-online", v(x)),
        }
    }

    /// The five methods of Table 2 [PBF].
    pub const TABLE_2: [Method; 5] = [
        Method::Sbf,
        Method::Opt(Variant::Pbf1),
        Method::Opt(Variant::Pbf2),
        Method::Online(Variant::Pbf1),
        Method::Online(Variant::Pbf2),
    ];
}

/// The allocation a method makes from its statistics: uniform, or the optimum with
/// PBF-1's fine filter counted as gated by the leaves
/// ([`AllocationProblem::optimal_gated`]).
///
/// # Errors
/// Invalid statistics or bits.
pub fn plan(
    layout: &PbfLayout,
    bits: u64,
    learned: &Learned,
    method: Method,
    k_max: u32,
) -> Result<Allocation, ModelError> {
    let problem =
        AllocationProblem::new(bits, learned.distinct.clone(), learned.frequency.clone())?;
    match (method, layout.fine_filter()) {
        (Method::Uniform(_), _) => problem.uniform(k_max),
        (_, Some(fine)) => Ok(problem
            .optimal_gated(fine as usize, &learned.fine_by_leaf, k_max)?
            .0),
        (_, None) => problem.optimal(k_max),
    }
}
