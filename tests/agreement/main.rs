//! Model-vs-simulation agreement at quick sizes, one module per family.
//! The same checks run larger behind `bfopt validate --level full`.

mod classic;
mod gbf;
mod timing;
