//! Model-vs-simulation experiments, one module per family: a `simulate` function that
//! measures a reference filter on a workload, and the `checks` of the validate suite.

pub mod classic;
pub mod gbf;
pub mod timing;
