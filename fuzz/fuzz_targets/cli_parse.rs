//! cargo-fuzz target: `bfopt::fuzzing::cli_parse` (issue 10).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bfopt::fuzzing::cli_parse(data));
