//! Per-family CLI glue: the flags of `model`, `optimize` and `simulate`, their
//! conversion into library requests (which validate), and the rows they produce.

pub mod allocate;
pub mod apbf;
pub mod audit;
pub mod check;
pub mod classic;
pub mod counting;
pub mod cuckoo;
pub mod fuse;
pub mod gbf;
pub mod pbf;
pub mod profile;
pub mod rbf;
pub mod recommend;
pub mod scalable;
pub mod sim;
pub mod stable;
pub mod target;
pub mod timing;
pub mod tiny;
pub mod trace_plan;

use crate::exit::CliError;

/// Converts a `u64` flag value to `u32`, or an error naming the flag and range.
pub fn to_u32(flag: &str, value: u64, allowed: &str) -> Result<u32, CliError> {
    u32::try_from(value).map_err(|_| CliError::invalid(flag, value, allowed))
}
