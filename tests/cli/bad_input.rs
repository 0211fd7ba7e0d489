//! Issue 10: the bad-input matrix. Every verb and every flag, fed zero, negative, NaN,
//! infinite, out-of-range and malformed values, mismatched lists, contradictory flags and
//! broken trace files, must exit 2 with a message that names the flag (or the file and
//! line), the value and what is allowed — never a panic, an abort or another exit code.
//!
//! Two tables, one loop: [`GENERATED`] values are tried on every value-taking flag of
//! every verb (the flags are read from clap, so a new flag is covered automatically), and
//! [`CASES`] hold the semantic cases with the text the message must contain. Each case is
//! one run of the binary; the runs are spread over two threads.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// A valid, quick command line per leaf verb (`{trace}`: a small good trace file).
pub(crate) const BASES: &[&str] = &[
    "model classic --bits 1e4 --hashes 7 --items 1000",
    "model apbf --hashes 4 --extra-slices 3 --window 1000",
    "model apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 2 --window 1000",
    "model rbf --bits 1000 --hashes 3 --recycle-bits 300",
    "model btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100",
    "model sbf --cells 1000 --hashes 3 --max 3 --decrements 10",
    "model ibf --policy ibf1 --cells 1000 --hashes 3 --max 3 --decrements 10",
    "model pbf --bits 10000 --distinct 100 --frequency 2",
    "model pbf-bound --pairs 1000 --horizon 1024 --fp 0.01 --query-length 16",
    "model gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100",
    "optimize classic --fp 0.01 --items 1000",
    "optimize rbf --fp 0.01 --bits 10000",
    "optimize btbf --bits-per-item 10 --window 100 --prior uniform:1000",
    "optimize apbf --fp 0.01 --window 1000",
    "optimize sbf --cells 1000 --hashes 3 --max 3 --fp 0.1",
    "optimize ibf --bits 4096 --policies sbf",
    "optimize pbf --trace {trace} --bits 4000 --query-length 16 --queries 200",
    "optimize gbf --bits-per-item 10 --window 100 --prior uniform:1000 --max-hashes 3",
    "posterior btbf --timers 1000 --hashes 3 --window 100 --px 0.1 --timestamp-age 5 --matching 2 --penalty-fp 1 --penalty-fn 2",
    "posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 0.1 --matching 2 --mismatching 1 --penalty-fp 1 --penalty-fn 2",
    "simulate classic --bits 1e4 --hashes 7 --items 1000 --epochs 2 --probes 1000",
    "simulate rbf --bits 1000 --hashes 3 --recycle-bits 300 --epochs 2 --arrivals 2000",
    "simulate btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100 --prior uniform:1000 --queries 500 --epochs 2",
    "simulate apbf --hashes 4 --extra-slices 3 --window 1000 --generations 4 --phases 2 --epochs 2 --probes 1000",
    "simulate apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 2 --window 1000 --generations 4 --phases 2 --epochs 2 --probes 1000",
    "simulate sbf --cells 1000 --hashes 3 --max 3 --decrements 10 --steps 2000 --epochs 2 --probes 100",
    "simulate ibf --policy ibf1 --cells 1000 --hashes 3 --max 3 --decrements 10 --steps 2000 --epochs 2 --probes 100",
    "simulate pbf --scale 0.001 --method sbf --queries 200",
    "simulate gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --prior uniform:1000 --queries 500 --epochs 2",
    "recommend --fp 0.01 --capacity 1e4",
    "audit classic --bits 1000 --hashes 4 --ones 300 --fp 0.01",
    "audit classic --hashes 4 --bitmap {dir}/garbage.bin --layout partitioned --fp 0.01",
    "audit apbf --hashes 2 --extra-slices 2 --slice-bits 1000 --ones 250,600,400,390",
    "audit sbf --cells 1000 --hashes 3 --max 3 --decrements 10 --zeros 400",
    "audit btbf --hashes 3 --ages 290,300,310,295 --idle 2901",
    "audit ibf --policy ibf1 --cells 512 --hashes 4 --max 5 --decrements 5 --zeros 140",
    "model fuse --items 1000 --fingerprint-bits 8",
    "model cuckoo --fingerprint-bits 8 --bucket-size 4 --buckets 300 --items 1000",
    "model counting --counters 1e4 --hashes 7 --items 1000 --counter-bits 4",
    "optimize fuse --fp 0.01 --items 1000",
    "optimize cuckoo --fp 0.01 --items 1000 --bucket-size 4",
    "optimize counting --fp 0.01 --items 1000 --overflow 1e-9",
    "simulate fuse --items 1000 --fingerprint-bits 8 --epochs 2 --probes 1000",
    "simulate cuckoo --fingerprint-bits 8 --bucket-size 4 --buckets 300 --items 1000 --epochs 2 --probes 1000",
    "simulate counting --counters 1e4 --hashes 7 --items 1000 --counter-bits 4 --deleted 100 --epochs 2 --probes 1000",
    "model scalable --initial-capacity 1000 --fp0 0.005 --tightening 0.5 --growth 2 --items 1e4",
    "optimize scalable --fp 0.01 --initial-capacity 1000 --items 1e4",
    "simulate scalable --initial-capacity 1000 --fp0 0.02 --items 4000 --epochs 2",
    "profile --trace {trace}",
    "allocate --budget 1e6 --lsm levels=3,ratio=10,entries=1e4",
    "target guava --fp 0.01 --capacity 1e4",
    "check {repo}/docs/examples/designs.json",
    "validate --family classic",
    "reproduce apbf-table1",
    "completions bash",
];

/// Values no flag accepts: NaN, infinities, overflow, malformed numbers and units, the
/// empty string, a negative number.
const GENERATED: &[&str] = &["nan", "-inf", "1e400", "1.2.3", "7Qb", "", "-1"];

/// Texts of messages about a combination of flags rather than one value.
pub(crate) const COMBINATION: &[&str] = &[
    "cannot be used with",
    "required arguments",
    "this combination",
    "one count per",
];

/// Flags that take any text (an output directory), so no value is malformed.
const FREE_TEXT: &[&str] = &["--out"];

/// Flags that name a file: the message names the file (and line) instead of the flag.
pub(crate) const FILE_FLAGS: &[&str] = &["--trace", "--bitmap"];

/// Semantic cases: the command line and the texts the message must contain (besides
/// exit 2). `{trace}` is a small good trace; `{dir}/NAME` a file written by [`traces`].
const CASES: &[(&str, &[&str])] = &[
    // Issue 22: audit counts out of range, lists of the wrong length, missing sources.
    ("audit classic --bits 1000 --hashes 4 --ones 1001", &["--ones = 1001", "0 <= ones <= 1000"]),
    ("audit classic --bits 1000 --hashes 4 --layout partitioned --ones 1,2,3", &["--ones = 3 counts", "one count per slice (4)"]),
    ("audit classic --bits 1000 --hashes 4 --layout partitioned --ones 1,2,3,251", &["--ones = 251 (count 3)", "per slice"]),
    ("audit classic --bits 1024 --hashes 4 --layout blocked --block-bits 512 --ones 1,600", &["--ones = 600 (count 1)", "per block"]),
    ("audit classic --bits 1000 --hashes 4", &["--ones/--bitmap", "allowed"]),
    ("audit classic --hashes 4 --ones 10", &["--bits = missing", "allowed"]),
    ("audit classic --bits 1000 --hashes 4 --ones 10 --fp 1", &["--fp = 1", "0 < fp < 1"]),
    ("audit classic --bits 1000 --hashes 4 --ones 10 --confidence 1.5", &["--confidence = 1.5", "allowed"]),
    ("audit classic --bits 1000 --hashes 65 --ones 10", &["--hashes = 65", "allowed"]),
    ("audit classic --bits 7 --hashes 4 --layout partitioned --ones 1", &["--bits = 7", "m >= 2k = 8"]),
    ("audit classic --hashes 4 --bitmap {dir}/empty.csv", &["empty.csv", "empty --bitmap", "allowed"]),
    ("audit classic --hashes 4 --bitmap {dir}/small.csv --bits 100", &["--bits = 100", "at most the 48 bits"]),
    ("audit classic --hashes 4 --bitmap {dir}", &["cannot be read as --bitmap", "allowed"]),
    ("audit classic --hashes 4 --bits 100 --ones 10 --bitmap {dir}/small.csv", &["--ones", "cannot be used with"]),
    ("audit apbf --hashes 2 --extra-slices 2 --slice-bits 1000 --ones 1,2,3", &["--ones = 3 counts", "k + l = 4"]),
    ("audit apbf --hashes 2 --extra-slices 2 --slice-bits 1000 --ones 1,2,3,1001", &["--ones = 1001 (slice 3)", "allowed"]),
    ("audit apbf --hashes 2 --extra-slices 2 --ones 1,2,3,4", &["--slice-bits/--window", "allowed"]),
    ("audit btbf --hashes 3 --ages 1 --idle 0", &["--ages/--idle = 1", "at least 2 timers"]),
    ("audit btbf --hashes 0 --ages 10 --idle 10", &["--hashes = 0", "allowed"]),
    ("audit sbf --cells 1000 --hashes 3 --max 3 --decrements 10 --zeros 1001", &["--zeros = 1001", "0 <= zeros <= 1000"]),
    // Zero where a positive count is needed.
    ("model classic --bits 0 --hashes 7 --items 10", &["--bits = 0", "allowed"]),
    ("model classic --bits 1e4 --hashes 0 --items 10", &["--hashes = 0", "allowed"]),
    ("model apbf --hashes 0 --extra-slices 3", &["--hashes = 0", "allowed"]),
    ("model apbf --hashes 4 --extra-slices 0", &["--extra-slices = 0", "allowed"]),
    ("model apbf --hashes 4 --extra-slices 3 --window 0", &["--window = 0", "allowed"]),
    ("model apbbf --hashes 4 --extra-slices 3 --block-bits 0 --block-hashes 2", &["--block-bits = 0", "allowed"]),
    ("model apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 0", &["--block-hashes = 0", "allowed"]),
    ("model rbf --bits 0 --hashes 3 --recycle-bits 300", &["--bits = 0", "allowed"]),
    ("model rbf --bits 1000 --hashes 0 --recycle-bits 300", &["--hashes = 0", "allowed"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-bits 0", &["--recycle-bits = 0", "allowed"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-messages 0", &["--recycle-messages = 0", "allowed"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-bits 300 --phases 0", &["--phases = 0", "allowed"]),
    ("model btbf --timers 0 --hashes 3 --bits-per-timer 8 --window 100", &["--timers = 0", "allowed"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 0 --window 100", &["--bits-per-timer = 0", "allowed"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 0", &["--window = 0", "allowed"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100 --block-size 0", &["--block-size = 0", "allowed"]),
    ("model sbf --cells 0 --hashes 3 --max 3 --decrements 10", &["--cells = 0", "allowed"]),
    ("model sbf --cells 1000 --hashes 3 --max 0 --decrements 10", &["--max = 0", "allowed"]),
    ("model sbf --cells 1000 --hashes 3 --max 3 --decrements 0", &["--decrements = 0", "allowed"]),
    ("model gbf --bits 10000 --reset-hashes 0 --set-hashes 3 --window 100", &["--reset-hashes = 0", "allowed"]),
    ("model gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 0", &["--window = 0", "allowed"]),
    ("model pbf-bound --pairs 0 --horizon 1024 --fp 0.01 --query-length 16", &["--pairs = 0", "allowed"]),
    ("model pbf-bound --pairs 1000 --horizon 1024 --fp 0.01 --query-length 0", &["--query-length = 0", "allowed"]),
    ("optimize classic --fp 0 --items 1000", &["--fp = 0", "allowed"]),
    ("optimize classic --fp 0.01 --items 1000 --max-hashes 0", &["--max-hashes = 0", "allowed"]),
    ("optimize apbf --fp 0.01 --window 0", &["--window = 0", "allowed"]),
    ("optimize btbf --bits-per-item 0 --window 100 --prior uniform:1000", &["--bits-per-item = 0", "allowed"]),
    ("optimize gbf --bits-per-item 10 --window 100 --prior uniform:0", &["--prior", "uniform:0", "allowed"]),
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 0 --matching 2 --mismatching 1", &["--px = 0", "allowed"]),
    ("posterior btbf --timers 1000 --hashes 3 --window 100 --px 0 --timestamp-age 5 --matching 2", &["--px = 0", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --epochs 0", &["--epochs = 0", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --probes 0", &["--probes = 0", "allowed"]),
    ("simulate rbf --bits 1000 --hashes 3 --recycle-bits 300 --arrivals 0", &["--arrivals = 0", "allowed"]),
    ("simulate apbf --hashes 4 --extra-slices 3 --window 1000 --generations 0", &["--generations = 0", "allowed"]),
    ("simulate sbf --cells 1000 --hashes 3 --max 3 --decrements 10 --steps 0", &["--steps = 0", "allowed"]),
    ("simulate pbf --scale 0", &["--scale = 0", "allowed"]),
    ("recommend --fp 0.01 --capacity 0", &["--capacity = 0", "allowed"]),
    ("recommend --fp 0.01 --window 0", &["--window = 0", "allowed"]),
    ("validate --threads 0", &["--threads = 0", "allowed 1 to 1024"]),
    // Negative reals and fractions out of range.
    ("optimize classic --fp -0.01 --items 1000", &["--fp = -0.01", "allowed"]),
    ("optimize rbf --fp -1e-3 --bits 10000", &["--fp = -0.001", "allowed"]),
    ("optimize apbf --fp 0.01 --window 1000 --max-accesses -2", &["--max-accesses = -2", "allowed"]),
    ("optimize apbf --fp 0.01 --window 1000 --max-npws -0.5", &["--max-npws = -0.5", "allowed"]),
    ("optimize ibf --bits 4096 --policies sbf --member-share -0.1", &["--member-share = -0.1", "allowed"]),
    ("optimize btbf --bits-per-item -3 --window 100 --prior uniform:1000", &["--bits-per-item = -3", "allowed"]),
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px -0.5 --matching 2 --mismatching 1", &["--px = -0.5", "allowed"]),
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 0.1 --matching 2 --mismatching 1 --penalty-fp -1 --penalty-fn 1", &["--penalty-fp = -1", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --workload uniform --duplicates -0.5", &["--duplicates = -0.5", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --workload zipf --zipf-exponent -1", &["--zipf-exponent = -1", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --confidence -0.99", &["--confidence = -0.99", "allowed"]),
    ("simulate pbf --scale -0.5", &["--scale = -0.5", "allowed"]),
    ("recommend --fp -0.01 --capacity 1e4", &["--fp = -0.01", "allowed"]),
    ("recommend --fp 0.01 --window 1e4 --allow-fn -0.1", &["--allow-fn = -0.1", "allowed"]),
    // Beyond every documented range.
    ("optimize classic --fp 1 --items 1000", &["--fp = 1", "allowed"]),
    ("optimize classic --fp 1.5 --items 1000", &["--fp = 1.5", "allowed"]),
    ("model classic --bits 1e4 --hashes 65 --items 10", &["--hashes = 65", "allowed"]),
    ("model classic --bits 1e16 --hashes 7 --items 10", &["--bits", "1e16", "too large", "2^53"]),
    ("model classic --bits 1e4 --hashes 7 --items 10 --layout blocked --block-bits 7", &["--block-bits = 7", "allowed"]),
    ("model apbf --hashes 65 --extra-slices 3", &["--hashes = 65", "allowed"]),
    ("model apbf --hashes 4 --extra-slices 5000", &["--extra-slices = 5000", "allowed"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-bits 1000", &["--recycle-bits = 1000", "allowed"]),
    ("model gbf --bits 1e13 --reset-hashes 2 --set-hashes 3 --window 100", &["--bits = 10000000000000", "allowed"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-bits 300 --phases 3", &["--phases = 3", "allowed 1 or 2"]),
    ("model sbf --cells 1000 --hashes 3 --max 256 --decrements 10", &["--max = 256", "allowed"]),
    ("model sbf --cells 1000 --hashes 1001 --max 3 --decrements 10", &["--hashes = 1001", "allowed"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 65 --window 100", &["--bits-per-timer = 65", "allowed"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 3 --window 100", &["--bits-per-timer = 3", "allowed"]),
    ("model gbf --bits 10000 --reset-hashes 65 --set-hashes 3 --window 100", &["--reset-hashes = 65", "allowed"]),
    ("model ibf --policy ibf2 --cells 1000 --hashes 3 --max 3 --decrements 10 --counter-bits 65", &["--counter-bits = 65", "allowed"]),
    ("model ibf --policy ibf1 --cells 1000 --hashes 3 --max 3 --decrements 10 --member-share 1.5", &["--member-share = 1.5", "allowed"]),
    ("model pbf-bound --pairs 1000 --horizon 1024 --fp 2 --query-length 16", &["--fp = 2", "allowed"]),
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 1.5 --matching 2 --mismatching 1", &["--px = 1.5", "allowed"]),
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 0.1 --matching 9 --mismatching 1", &["--matching = 9", "allowed"]),
    ("posterior btbf --timers 1000 --hashes 3 --window 100 --px 0.1 --timestamp-age 5 --matching 4", &["--matching = 4", "allowed"]),
    ("posterior btbf --timers 1000 --hashes 3 --window 100 --px 0.1 --timestamp-age 5 --matching 2 --offset 1", &["--offset = 1", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --confidence 1", &["--confidence = 1", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --workload uniform --duplicates 1", &["--duplicates = 1", "allowed"]),
    ("simulate classic --bits 1e12 --hashes 7 --items 1000", &["--bits = 1000000000000", "allowed", "2^33"]),
    ("simulate rbf --bits 1e12 --hashes 3 --recycle-bits 300", &["--bits = 1000000000000", "allowed", "2^33"]),
    ("simulate gbf --bits 1e12 --reset-hashes 2 --set-hashes 3 --window 100 --prior uniform:1000", &["--bits = 1000000000000", "2^33"]),
    ("simulate btbf --timers 1e12 --hashes 3 --bits-per-timer 8 --window 100 --prior uniform:1000", &["--timers = 1000000000000", "2^33"]),
    ("simulate apbf --hashes 4 --extra-slices 3 --window 1e12", &["--window = 1000000000000", "2^33"]),
    ("simulate apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 2 --window 4294967296", &["--window = 4294967296", "2^33"]),
    ("simulate pbf --bits 1e12", &["--bits = 1000000000000", "2^33"]),
    ("simulate pbf --scale 2", &["--scale = 2", "allowed"]),
    ("recommend --fp 0.01 --capacity 1e4 --threads 1025", &["--threads = 1025", "allowed 1 to 1024"]),
    ("validate --family nonesuch", &["--family = nonesuch", "allowed one of"]),
    ("reproduce nonesuch", &["nonesuch", "allowed"]),
    ("validate --threads 2^3", &["--threads", "2^3", "allowed"]),
    // Found by this matrix (issue 10), each once a panic, an abort or a silent exit 0.
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 1e-310 --matching 2 --mismatching 1", &["--px", "1e-310", "too close to 0"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --duplicates -1", &["--duplicates = -1", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 7 --items 1000 --zipf-exponent -1", &["--zipf-exponent = -1", "allowed"]),
    ("simulate apbf --hashes 4 --extra-slices 3 --window 1000 --trace {trace} --duplicates 1", &["--duplicates = 1", "allowed"]),
    ("simulate ibf --policy ibf1 --cells 1000 --hashes 3 --max 3 --decrements 10 --duplicates -1", &["--duplicates", "-1", "allowed"]),
    ("recommend --fp 0.01 --capacity 1e4 --max-npws -1", &["--max-npws = -1", "allowed"]),
    ("recommend --fp 0.01 --capacity 1e4 --max-npws 2", &["--max-npws = 2", "allowed"]),
    ("model classic --bits 1e4 --hashes 7 --items 1000 --layout -1", &["--layout", "-1", "possible values"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-bits 300 --hashing -1", &["--hashing", "-1", "possible values"]),
    ("reproduce --list --seed -1", &["--seed", "-1", "negative"]),
    ("completions bash --threads -1", &["--threads", "-1", "negative"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100 --prior -1", &["--prior = -1", "allowed"]),
    ("model classic --bits 1Mé --hashes 7 --items 10", &["--bits", "1Mé", "unknown unit"]),
    ("reproduce apbf-table1 --out {dir}/good.csv", &["good.csv", "--out", "allowed"]),
    ("reproduce apbf-table1 --scale 0", &["--scale = 0", "allowed"]),
    ("reproduce pbf-figure9 --scale 0.5", &["--scale", "0.5", "whole number"]),
    ("completions nosh", &["nosh", "possible values"]),
    // Malformed numbers and units.
    ("model classic --bits 8Xb --hashes 7 --items 10", &["--bits", "8Xb", "unknown unit"]),
    ("model classic --bits MiB --hashes 7 --items 10", &["--bits", "MiB", "allowed"]),
    ("model classic --bits 0.5b --hashes 7 --items 10", &["--bits", "0.5b", "whole number"]),
    ("model classic --bits 1e30GB --hashes 7 --items 10", &["--bits", "1e30GB", "too large"]),
    ("model classic --bits 1e4 --hashes 7 --items 1e", &["--items", "1e", "not a number"]),
    ("model classic --bits 1e4 --hashes 7.5 --items 10", &["--hashes", "7.5", "whole number"]),
    ("model classic --bits 1e4 --hashes 0x7 --items 10", &["--hashes", "0x7", "allowed"]),
    ("model classic --bits 1e4 --hashes 7 --items 99999999999999999999", &["--items", "too large"]),
    ("optimize classic --fp 1%  --items 1000", &["--fp", "1%", "allowed"]),
    ("optimize apbf --fp 0.01 --window 1000 --memory 16QiB", &["--memory", "16QiB", "unknown unit"]),
    ("optimize apbf --fp 0.01 --window 1000 --memory -1MB", &["--memory", "-1MB", "allowed"]),
    ("recommend --fp 0.01 --capacity 1e4 --memory 1.5b", &["--memory", "1.5b", "whole number"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100 --prior uniform:x", &["--prior", "uniform:x", "allowed"]),
    ("model btbf --timers 1000 --hashes 3 --bits-per-timer 8 --window 100 --prior zipf", &["--prior", "zipf", "allowed"]),
    ("optimize btbf --bits-per-item 10 --window 100 --prior uniform:1000 --penalties uniform:10:1", &["--penalties", "uniform:10:1", "allowed"]),
    ("optimize gbf --bits-per-item 10 --window 100 --prior uniform:1000 --penalties fixed:1:nan", &["--penalties", "fixed:1:nan", "allowed"]),
    ("optimize ibf --bits 4096 --policies sbf --importance linear:5:1", &["--importance", "5..1", "allowed"]),
    ("optimize ibf --bits 4096 --policies sbf --cost-fp 1*x", &["--cost-fp", "1*x", "allowed"]),
    ("optimize ibf --bits 4096 --policies sbf --cost-fn nan*imp", &["--cost-fn", "nan*imp", "allowed"]),
    ("posterior btbf --timers 1000 --hashes 3 --window 100 --px 0.1 --timestamp-age never --matching 2", &["--timestamp-age", "never", "allowed"]),
    ("posterior btbf --timers 1000 --hashes 3 --window 100 --px 0.1 --timestamp-age 5 --matching 2 --distinct zipf:-3", &["--distinct", "zipf:-3", "allowed"]),
    ("model ibf --policy ibf1 --cells 1000 --hashes 3 --max 3 --decrements 10 --importance pareto:1", &["--importance", "pareto:1", "allowed"]),
    // Lists of mismatched length.
    ("model pbf --bits 10000 --distinct 100,50,20 --frequency 1,2", &["--frequency", "allowed", "as distinct"]),
    ("model pbf --bits 10000 --distinct 100,50 --frequency 1,2,3", &["--frequency", "allowed", "as distinct"]),
    ("model pbf --bits 10000 --distinct 100,,20 --frequency 1,2,3", &["--distinct", "allowed"]),
    ("model pbf --bits 10000 --distinct 100,-50,20 --frequency 1,2,3", &["--distinct", "-50", "allowed"]),
    ("model pbf --bits 10000 --distinct 100,50,20 --frequency 1,nan,3", &["--frequency", "nan", "allowed"]),
    // Contradictory flags.
    ("model apbf --hashes 4 --extra-slices 3 --window 1000 --slice-bits 512", &["--window", "--slice-bits", "cannot be used with"]),
    ("model rbf --bits 1000 --hashes 3 --recycle-bits 300 --recycle-messages 50", &["--recycle-bits", "--recycle-messages", "allowed"]),
    ("model rbf --bits 1000 --hashes 3", &["--recycle-bits", "--recycle-messages", "allowed"]),
    ("optimize rbf --fp 0.01 --bits 10000 --window 1000", &["--bits", "--window", "allowed"]),
    ("optimize classic --fp 0.01 --items 1000 --bits 1e4 --hashes 3", &["--fp", "--items", "allowed"]),
    ("model classic --bits 1e4 --hashes 7 --items 10 --block-bits 512", &["--block-bits", "allowed only with --layout blocked"]),
    ("optimize apbf --fp 0.01 --window 1000 --block-bits 512", &["--blocked"]),
    ("recommend --fp 0.01 --capacity 1e4 --window 1e4", &["--capacity", "--window"]),
    ("recommend --fp 0.01", &["--capacity", "--window"]),
    ("model classic --bits 1e4 --hashes 7 --items 10 --format junit", &["--format = junit", "allowed only with validate"]),
    ("posterior gbf --bits 10000 --reset-hashes 2 --set-hashes 3 --window 100 --px 0.1 --matching 2 --mismatching 1 --penalty-fp 1", &["--penalty-fn"]),
    // Trace files: empty, header only, binary garbage, missing columns, huge lines,
    // bad fields, not a file.
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/empty.csv", &["empty.csv", "no items"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/header.csv", &["header.csv", "no items"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/garbage.bin", &["garbage.bin:1", "UTF-8"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/huge.csv", &["huge.csv:2", "bytes", "allowed: at most"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/nan.csv", &["nan.csv:3", "timestamp = \"nan\"", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/columns.csv", &["columns.csv:2", "5 fields", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/importance.csv", &["importance.csv:2", "importance = \"-3\"", "allowed"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 9 --trace {dir}/small.csv", &["--items = 9", "distinct items"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}", &["bfopt-bad-input", "directory"]),
    ("simulate classic --bits 1e4 --hashes 3 --items 2 --trace {dir}/missing-file.csv", &["missing-file.csv", "cannot be read"]),
    ("simulate apbf --hashes 4 --extra-slices 3 --window 1000 --trace {dir}/garbage.bin", &["garbage.bin:1", "UTF-8"]),
    ("simulate apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 2 --window 1000 --trace {dir}/huge.csv", &["huge.csv:2", "bytes"]),
    ("optimize pbf --bits 4000 --query-length 16 --trace {dir}/empty.csv", &["empty.csv", "no items"]),
    ("optimize pbf --bits 4000 --query-length 16 --trace {dir}/garbage.bin", &["garbage.bin:1", "UTF-8"]),
    ("optimize pbf --bits 4000 --query-length 16 --trace {dir}/no-time.csv", &["no-time.csv:2", "missing timestamp", "allowed"]),
    ("optimize pbf --bits 4000 --query-length 16 --trace {dir}/far-time.csv", &["far-time.csv:2", "timestamp", "allowed"]),
    ("optimize pbf --bits 4000 --query-length 16 --trace {dir}/huge.csv", &["huge.csv:2", "bytes"]),
    ("optimize pbf --bits 4000 --query-length 9999 --trace {trace}", &["--query-length = 9999", "allowed"]),
];

/// Writes the trace files the cases read into a fresh directory (one per call: the tests
/// of this binary run at once, and each removes its own directory).
pub(crate) fn traces() -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "bfopt-bad-input-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut good = String::from("item,timestamp\n");
    for (client, start) in [("a", 1u64), ("b", 100), ("c", 300), ("a", 400)] {
        for t in start..start + 60 {
            good.push_str(&format!("{client},{t}\n"));
        }
    }
    let garbage: Vec<u8> = (0u32..4096)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 0x80)
        .collect();
    let files: &[(&str, &[u8])] = &[
        ("good.csv", good.as_bytes()),
        ("empty.csv", b""),
        ("header.csv", b"item,timestamp\n"),
        ("garbage.bin", &garbage),
        ("nan.csv", b"item,timestamp\na,1\nb,nan\n"),
        ("columns.csv", b"a,1\nb,1,2,3,4\n"),
        ("importance.csv", b"a,1,1\nb,2,-3\n"),
        ("small.csv", b"a\nb\na\n"),
        ("no-time.csv", b"item,timestamp\nb\n"),
        ("far-time.csv", b"item,timestamp\nb,1e300\n"),
    ];
    for (name, body) in files {
        std::fs::write(dir.join(name), body).unwrap();
    }
    let mut huge = b"item\n".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 1 << 20));
    huge.push(b'\n');
    std::fs::write(dir.join("huge.csv"), huge).unwrap();
    dir
}

/// One run of the binary: exit code (None: killed by a signal or the time limit) and
/// stderr.
fn run(args: &[String]) -> (Option<i32>, String) {
    crate::run_capped(args, None, Duration::from_secs(60))
}

/// The value-taking long flags of the verb a base command line runs (clap's own view).
pub(crate) fn value_flags(base: &[String]) -> Vec<String> {
    let mut cmd = bfopt::cli::command();
    for word in base.iter().take_while(|w| !w.starts_with('-')) {
        match cmd.find_subcommand(word) {
            Some(sub) => cmd = sub.clone(),
            None => break,
        }
    }
    cmd.get_arguments()
        .filter(|a| !a.is_positional() && a.get_action().takes_values() && !a.is_global_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .filter(|f| f != "--format" && f != "--threads" && !FREE_TEXT.contains(&f.as_str()))
        .collect()
}

/// `base` with `flag` set to `value` (replaced if present, else appended).
pub(crate) fn with_flag(base: &[String], flag: &str, value: &str) -> Vec<String> {
    let mut args = base.to_vec();
    match args.iter().position(|a| a == flag) {
        Some(i) => args[i + 1] = value.to_string(),
        None => args.extend([flag.to_string(), value.to_string()]),
    }
    args
}

/// A command line with `{trace}` (a small good trace), `{dir}` (the directory of
/// [`traces`]) and `{repo}` (the checkout) filled in.
pub(crate) fn expand(line: &str, dir: &Path) -> Vec<String> {
    let trace = dir.join("good.csv");
    line.split_whitespace()
        .map(|w| {
            w.replace("{trace}", &trace.to_string_lossy())
                .replace("{dir}", &dir.to_string_lossy())
                .replace("{repo}", env!("CARGO_MANIFEST_DIR"))
        })
        .collect()
}

/// The leaf verbs of the CLI as clap knows them (`model classic`, `recommend`, ...).
fn leaf_verbs(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("{prefix}{}", sub.get_name());
        if sub.has_subcommands() {
            leaf_verbs(sub, &format!("{name} "), out);
        } else {
            out.push(name);
        }
    }
}

/// Every leaf verb has a base command line, so the generated matrices
/// (here and in `bad_input_matrix.rs`) reach every flag of a verb added later.
#[test]
fn issue_17_every_verb_has_a_base_command_line() {
    let mut verbs = Vec::new();
    leaf_verbs(&bfopt::cli::command(), "", &mut verbs);
    let missing: Vec<&String> = verbs
        .iter()
        .filter(|v| {
            !BASES
                .iter()
                .any(|b| b == v || b.starts_with(&format!("{v} ")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "verbs without a base command line in BASES: {missing:?}"
    );
}

#[test]
fn issue_10_every_bad_input_exits_2_and_names_flag_value_and_range() {
    let dir = traces();
    // (args, texts the message must contain)
    let mut cases: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for base in BASES {
        let base = expand(base, &dir);
        for flag in value_flags(&base) {
            for value in GENERATED {
                let mut expect = vec![flag.clone()];
                if FILE_FLAGS.contains(&flag.as_str()) && !value.is_empty() {
                    expect = vec!["cannot be read".to_string()];
                }
                if !value.is_empty() {
                    expect.push((*value).to_string());
                }
                cases.push((with_flag(&base, &flag, value), expect));
            }
        }
    }
    // The global flags, once.
    for value in GENERATED {
        let base = expand(BASES[0], &dir);
        cases.push((
            with_flag(&base, "--threads", value),
            vec!["--threads".into()],
        ));
        cases.push((with_flag(&base, "--format", value), vec!["--format".into()]));
    }
    let generated = cases.len();
    for (line, expect) in CASES {
        cases.push((
            expand(line, &dir),
            expect.iter().map(|s| s.to_string()).collect(),
        ));
    }

    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((args, expect)) = cases.get(i) else {
                    break;
                };
                let (code, stderr) = run(args);
                let mut wrong = Vec::new();
                if code != Some(2) {
                    wrong.push(format!("exit {code:?}, expected 2"));
                }
                if stderr.contains("panicked") {
                    wrong.push("panicked".to_string());
                }
                // What is allowed: our parsers' "allowed", clap's value list, or clap's
                // conflict / missing-flag usage line.
                if ![
                    "allowed",
                    "possible values",
                    "cannot be used with",
                    "required",
                ]
                .iter()
                .any(|t| stderr.contains(t))
                {
                    wrong.push("no allowed range".to_string());
                }
                // A flag that conflicts with the base command line is refused for the
                // combination, whatever its value.
                let combination = COMBINATION.iter().any(|t| stderr.contains(t));
                for (j, e) in expect.iter().enumerate() {
                    if j > 0 && i < generated && combination {
                        continue;
                    }
                    if !stderr.contains(e.as_str()) {
                        wrong.push(format!("missing {e:?}"));
                    }
                }
                if !wrong.is_empty() {
                    failures.lock().unwrap().push(format!(
                        "bfopt {}\n    {}\n    stderr: {}",
                        args.join(" "),
                        wrong.join("; "),
                        stderr.trim()
                    ));
                }
            });
        }
    });
    std::fs::remove_dir_all(&dir).ok();
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs ({generated} generated, {} hand-written) handled wrongly:\n{}",
        failures.len(),
        cases.len(),
        CASES.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} bad inputs ({generated} generated, {} hand-written): all exit 2",
        cases.len(),
        CASES.len()
    );
}

/// Issue 16, bug 7: a malformed value of a flag with its own range is reported with that
/// range, not the generic parser's ("a whole number from 0 to 2^53"): every hash-count
/// flag of every verb (read from clap) says 1 to 64, `--threads` 1 to 1024; and an
/// allowed text that names another parameter names its flag (`--block-bits`, not
/// `block_bits`).
#[test]
fn issue_16_bug_7_parse_errors_name_the_flag_and_its_own_range() {
    let dir = traces();
    let mut cases: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for base in BASES {
        let base = expand(base, &dir);
        for flag in value_flags(&base).iter().filter(|f| f.ends_with("hashes")) {
            for value in ["7.5", "-1"] {
                cases.push((
                    with_flag(&base, flag, value),
                    vec![flag.clone(), value.to_string(), "from 1 to 64".to_string()],
                ));
            }
        }
    }
    assert!(cases.len() >= 30, "{} hash-flag cases", cases.len());
    for value in ["-1", "7.5"] {
        cases.push((
            expand(
                &format!("validate --family classic --threads {value}"),
                &dir,
            ),
            vec!["--threads".into(), value.into(), "from 1 to 1024".into()],
        ));
    }
    for (line, needles) in [
        (
            "model apbbf --hashes 4 --extra-slices 3 --block-bits 512 --block-hashes 3 --window 1000",
            &["--block-hashes = 3", "a divisor of --block-bits = 512"][..],
        ),
        (
            "optimize classic --bits 1000 --items 10 --layout blocked",
            &["--bits = 1000", "a multiple of --block-bits = 512"][..],
        ),
    ] {
        cases.push((expand(line, &dir), needles.iter().map(|s| s.to_string()).collect()));
    }
    let mut failures = Vec::new();
    for (args, needles) in &cases {
        let (code, stderr) = run(args);
        let missing: Vec<&String> = needles
            .iter()
            .filter(|n| !stderr.contains(n.as_str()))
            .collect();
        if code != Some(2)
            || !missing.is_empty()
            || stderr.contains("2^53")
            || stderr.contains("block_bits")
        {
            failures.push(format!(
                "{}: exit {code:?}, missing {missing:?}: {stderr}",
                args.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
