//! Model-vs-simulation agreement at quick sizes, one module per family.
//! The same checks run larger behind `bfopt validate --level full`.

mod allocate;
mod apbf;
mod audit;
mod baseline;
mod classic;
mod counting;
mod cuckoo;
mod fuse;
mod gbf;
mod hashing;
mod pbf;
mod rbf;
mod scalable;
mod stable;
mod systems;
mod timing;

/// Asserts that every check passed, printing each failing one.
#[track_caller]
pub fn assert_all_pass(checks: &[bfopt_validation::agree::Check]) {
    let failures: Vec<String> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
