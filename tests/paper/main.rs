//! Paper tables reproduced at their printed precision, one module per family.

#![allow(clippy::excessive_precision)]

#[path = "../common/mod.rs"]
mod common;

mod apbf;
mod classic;
mod pbf;
mod rbf;
mod reproduce;
mod reproduce_apbf;
mod reproduce_pbf;
mod reproduce_rbf;
mod reproduce_stable;
mod reproduce_timing;
mod stable;
mod timing;
