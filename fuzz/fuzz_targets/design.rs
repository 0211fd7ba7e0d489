//! cargo-fuzz target: `bfopt::fuzzing::design` (issue 17).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bfopt::fuzzing::design(data));
