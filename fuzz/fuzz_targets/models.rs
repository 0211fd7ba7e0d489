//! cargo-fuzz target: `bfopt::fuzzing::models` (issue 10).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bfopt::fuzzing::models(data));
