//! cargo-fuzz target: `bfopt::fuzzing::plan` (issue 17): the planner on requirements
//! drawn across their documented ranges.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bfopt::fuzzing::plan(data));
