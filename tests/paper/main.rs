//! Paper tables reproduced at their printed precision, one module per family.

#![allow(clippy::excessive_precision)]

#[path = "../common/mod.rs"]
mod common;

mod classic;
mod rbf;
