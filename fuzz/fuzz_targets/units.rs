//! cargo-fuzz target: `bfopt::fuzzing::units` (issue 17).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bfopt::fuzzing::units(data));
