//! Model-vs-simulation experiments, one module per family: a `simulate` function that
//! measures a reference filter on a workload, and the `checks` of the validate suite.

pub mod apbf;
pub mod baseline;
pub mod classic;
pub mod counting;
pub mod cuckoo;
pub mod fuse;
pub mod gbf;
pub mod pbf;
pub mod rbf;
pub mod sbf_stream;
pub mod scalable;
pub mod stable;
pub mod stable_spread;
pub mod timing;
