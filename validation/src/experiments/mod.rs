//! Model-vs-simulation experiments, one module per family: a `simulate` function that
//! measures a reference filter on a workload, and the `checks` of the validate suite.

pub mod baseline;
pub mod apbf;
pub mod classic;
pub mod rbf;
pub mod timing;
pub mod pbf;
pub mod stable;
