//! Model-vs-simulation agreement at quick sizes, one module per family.
//! The same checks run larger behind `bfopt validate --level full`.

mod baseline;
mod apbf;
mod classic;
mod rbf;
mod timing;
mod pbf;
mod stable;
