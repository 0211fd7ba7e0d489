//! Model-vs-simulation agreement at quick sizes, one module per family.
//! The same checks run larger behind `bfopt validate --level full`.

mod apbf;
mod baseline;
mod classic;
mod gbf;
mod hashing;
mod pbf;
mod rbf;
mod stable;
mod timing;
