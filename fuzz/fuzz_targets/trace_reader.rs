//! cargo-fuzz target: `bfopt::fuzzing::trace` (issue 10).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bfopt::fuzzing::trace(data));
