//! Entry points of the fuzz targets (issue 10).
//!
//! The cargo-fuzz targets in `fuzz/` (nightly, excluded from the workspace) call these
//! functions, and so does the stable smoke test `tests/cli/fuzz_smoke.rs`, which replays
//! the committed corpus and every crash found as a regression. Each function panics
//! only on a bug: bad input must come back as an error, never as a panic, an abort, a
//! NaN or a probability outside [0, 1].

use crate::cli::{self, Verb};
use crate::units;
use arbitrary::Unstructured;
use serde_json::Value;

/// The argument parser: the bytes, split on spaces, NULs and newlines, are parsed as a
/// command line through the process's one built clap command ([`cli::parse_from`]).
pub fn cli_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let words: Vec<&str> = text
        .split([' ', '\0', '\n'])
        .filter(|w| !w.is_empty())
        .collect();
    let _ = cli::parse_from(std::iter::once("bfopt").chain(words.iter().copied()));
}

/// The unit parsers on each word of the bytes (split as in [`cli_parse`]), with what
/// each documents of the values it accepts: counts at most [`units::COUNT_MAX`], reals
/// finite and 0 or at least 2.2e-308 in magnitude, rates in `[0, 1)`, sizes at most
/// 2^53 bits; every refusal says what is allowed.
pub fn units(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for w in text.split([' ', '\0', '\n']) {
        for parse in [
            units::parse_count,
            units::parse_hashes,
            units::parse_threads,
            units::parse_bits,
        ] {
            match parse(w) {
                Ok(v) => assert!(v <= units::COUNT_MAX, "{w:?} gave {v}"),
                Err(e) => assert!(e.contains("allowed"), "{w:?}: {e}"),
            }
        }
        match units::parse_real(w) {
            Ok(v) => assert!(
                v.is_finite() && (v == 0.0 || v.abs() >= f64::MIN_POSITIVE),
                "{w:?} gave {v}"
            ),
            Err(e) => assert!(e.contains("allowed"), "{w:?}: {e}"),
        }
        match units::parse_rate(w) {
            Ok(v) => assert!((0.0..1.0).contains(&v), "{w:?} gave {v}"),
            Err(e) => assert!(e.contains("allowed"), "{w:?}: {e}"),
        }
    }
}

/// The trace reader: any bytes give records or an error naming a line; records carry
/// finite non-negative timestamps and importances.
pub fn trace(data: &[u8]) {
    if let Ok(records) = bfopt_validation::workload::read_trace(data) {
        assert!(!records.is_empty(), "a trace read without error has items");
        for r in records {
            for v in [r.timestamp, r.importance].into_iter().flatten() {
                assert!(v.is_finite() && v >= 0.0, "trace value {v}");
            }
        }
    }
}

/// Model and posterior entry points: `arbitrary` decodes a command line of
/// [`MODEL_TEMPLATES`] with extreme and ordinary values (see [`model_args`]), which runs
/// through the library exactly as the binary runs it, within [`bounded`]'s allowance.
pub fn models(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(args) = model_args(&mut u, MODEL_TEMPLATES) {
        bounded(|| check_run(&args));
    }
}

/// Every `optimize` (design) entry point: a command line of [`DESIGN_TEMPLATES`], run
/// and checked as [`models`] does.
pub fn design(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(args) = model_args(&mut u, DESIGN_TEMPLATES) {
        bounded(|| check_run(&args));
    }
}

/// The work allowance of one fuzz input, in the steps of the library's loops
/// ([`bfopt_models::budget`]): about 0.1 ms of evaluation uninstrumented, 0.5-1 ms in
/// the coverage-instrumented fuzz build (`plan` spent its whole 10^6 steps on the
/// classic blocked exact law at 180 inputs per CPU-second). An input whose
/// evaluation needs more ends in [`bfopt_models::ModelError::WorkLimit`] (an error, a
/// valid outcome) before the expensive loop starts, or takes the cheaper method a loop
/// takes beyond its own limit; every value of every documented range is still drawn.
pub const FUZZ_ALLOWANCE: f64 = 1e5;

/// Runs `f` within [`FUZZ_ALLOWANCE`] on this thread, with rayon's parallel loops also
/// on this thread (a one-thread pool that uses it), so the allowance covers them too and
/// a fuzz process keeps to one core.
pub fn bounded<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    thread_local! {
        static POOL: Option<rayon::ThreadPool> = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .ok();
    }
    let run = || bfopt_models::budget::with_allowance(FUZZ_ALLOWANCE, f);
    POOL.with(|pool| match pool {
        Some(pool) => pool.install(run),
        None => run(),
    })
}

/// `model` and `posterior` command lines with a slot per value: `{m}` a size, `{k}` a
/// small count, `{n}` a count, `{p}` a probability-like real, `{x}` any real, `{prior}`,
/// `{pen}`, `{imp}` the family-specific forms. Sizes and counts are drawn log-uniformly
/// over their whole documented range (to 2^53, see [`units::COUNT_MAX`]), also the counts
/// an evaluation's time grows with (`model rbf --recycle-messages`: `O(N)` terms; `model
/// scalable --items`; the prior of `model gbf --distinct-decay`): [`bounded`]'s allowance
/// ends those that would run long.
pub const MODEL_TEMPLATES: &[&str] = &[
    "model classic --bits {m} --hashes {k} --items {n} --layout standard",
    "model classic --bits {m} --hashes {k} --items {n} --layout partitioned",
    "model classic --bits {m} --hashes {k} --items {n} --layout blocked --block-bits {m}",
    "model apbf --hashes {k} --extra-slices {k} --window {n}",
    "model apbf --hashes {k} --extra-slices {k} --slice-bits {m}",
    "model apbbf --hashes {k} --extra-slices {k} --block-bits {m} --block-hashes {k} --window {n}",
    "model rbf --bits {m} --hashes {k} --recycle-bits {n} --method fluid",
    "model rbf --bits {m} --hashes {k} --recycle-bits {n} --phases {k} --hashing distinct --recycling retaining --method fluid",
    "model rbf --bits {m} --hashes {k} --recycle-messages {n}",
    "model btbf --timers {m} --hashes {k} --bits-per-timer {k} --block-size {k} --window {n}",
    "model btbf --timers {m} --hashes {k} --bits-per-timer {k} --window {n} --padding {n} --prior {prior}",
    "model sbf --cells {m} --hashes {k} --max {k} --decrements {n} --age {n}",
    "model ibf --policy ibf1 --cells {m} --hashes {k} --max {k} --decrements {n} --importance {imp} --age {n}",
    "model ibf --policy ibf3 --cells {m} --hashes {k} --max {k} --decrements {n} --counter-bits {k} --member-share {p}",
    "model pbf --bits {m} --distinct {x},{x} --frequency {x},{x} --max-hashes {k}",
    "model pbf-bound --pairs {n} --horizon {n} --fp {p} --query-length {n} --granularity {k}",
    "model gbf --bits {m} --reset-hashes {k} --set-hashes {k} --window {n} --age {n}",
    "model gbf --bits {m} --reset-hashes {k} --set-hashes {k} --window {n} --prior {prior} --distinct-decay",
    "model scalable --initial-capacity {n} --fp0 {p} --tightening {p} --growth {x} --items {n}",
    "model fuse --items {n} --fingerprint-bits {k}",
    "model cuckoo --fingerprint-bits {k} --bucket-size {k} --buckets {m} --items {n}",
    "model counting --counters {m} --hashes {k} --items {n} --counter-bits {k}",
    "posterior btbf --timers {m} --hashes {k} --window {n} --px {p} --timestamp-age {n} --matching {k}",
    "posterior btbf --timers {m} --hashes {k} --block-size {k} --offset {k} --window {n} --px {p} --timestamp-age expired --matching {k} --distinct {prior} --g-form increment",
    "posterior gbf --bits {m} --reset-hashes {k} --set-hashes {k} --window {n} --px {p} --matching {k} --mismatching {k}",
    "posterior gbf --bits {m} --reset-hashes {k} --set-hashes {k} --window {n} --px {p} --matching {k} --mismatching {k} --penalty-fp {x} --penalty-fn {x}",
];

/// `optimize` command lines, every question of every family but `optimize pbf` (which
/// reads a trace file and simulates it); slots as in [`MODEL_TEMPLATES`].
pub const DESIGN_TEMPLATES: &[&str] = &[
    "optimize classic --fp {p} --items {n} --max-hashes {k}",
    "optimize classic --fp {p} --items {n} --layout partitioned",
    "optimize classic --fp {p} --items {n} --layout blocked --block-bits {m}",
    "optimize classic --bits {m} --items {n} --layout blocked",
    "optimize classic --bits {m} --hashes {k} --fp {p}",
    "optimize rbf --fp {p} --bits {m}",
    "optimize rbf --fp {p} --window {n} --phases {k}",
    "optimize apbf --fp {p} --window {n} --memory {m} --max-accesses {x} --max-npws {p}",
    "optimize sbf --cells {m} --hashes {k} --max {k} --fp {p}",
    "optimize ibf --bits {m} --policies sbf,ibf1 --importance {imp} --age {n} --member-share {p}",
    "optimize btbf --bits-per-item {x} --window {n} --prior {prior} --penalties {pen} --max-hashes {k}",
    "optimize gbf --bits-per-item {x} --window {n} --prior {prior} --penalties {pen} --max-hashes {k}",
    "optimize scalable --fp {p} --initial-capacity {n} --items {n}",
    "optimize fuse --fp {p} --items {n}",
    "optimize cuckoo --fp {p} --items {n} --bucket-size {k}",
    "optimize counting --fp {p} --items {n} --overflow {p}",
];

/// Decodes one command line from `templates`.
///
/// # Errors
/// The data ran out.
pub fn model_args(
    u: &mut Unstructured<'_>,
    templates: &[&'static str],
) -> arbitrary::Result<Vec<String>> {
    let template = *u.choose(templates)?;
    let mut args = Vec::new();
    for word in template.split(' ') {
        let mut out = String::new();
        let mut rest = word;
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let end = start + rest[start..].find('}').unwrap_or(0);
            out.push_str(&slot(&rest[start + 1..end], u)?);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        args.push(out);
    }
    Ok(args)
}

/// A whole number log-uniform over `[0, 2^max_log2]`: the exponent first, then the
/// mantissa, so every order of magnitude of a documented range is drawn as often.
fn log_uniform(u: &mut Unstructured<'_>, max_log2: u32) -> arbitrary::Result<u64> {
    let e = u.int_in_range(0..=max_log2)?;
    if e == 0 {
        return u.int_in_range(0..=1);
    }
    u.int_in_range(1u64 << (e - 1)..=1u64 << e)
}

/// A probability-like real: log-uniform from 1e-320 (below the smallest normal, which
/// the parsers refuse) to 1, or a plain decimal in `[0, 1]`.
fn probability(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    Ok(if u.arbitrary::<bool>()? {
        let digits = f64::from(u.int_in_range(0u32..=3200)?) / 10.0;
        format!("{:e}", 10f64.powf(-digits))
    } else {
        format!("{:e}", f64::from(u.int_in_range(0u32..=1_000_001)?) / 1e6)
    })
}

fn slot(kind: &str, u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    const EDGES: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "-1",
        "nan",
        "inf",
        "1e-310",
        "1e308",
        "4294967296",
        "1099511627776",
        "1099511627777",
        "9007199254740992",
        "18446744073709551615",
        "",
    ];
    if u.ratio(1, 8)? {
        return Ok(u.choose(EDGES)?.to_string());
    }
    Ok(match kind {
        "m" | "n" => log_uniform(u, 53)?.to_string(),
        "k" => u.int_in_range(0u64..=70)?.to_string(),
        "p" => probability(u)?,
        "x" => format!("{:e}", f64::from(u.int_in_range(-10i32..=1000)?) / 10.0),
        "prior" => format!(
            "{}:{}",
            u.choose(&["uniform", "zipf", "none", "fixed"])?,
            log_uniform(u, 53)?
        ),
        "pen" => format!(
            "{}:{}:{}",
            u.choose(&["uniform", "fixed"])?,
            u.int_in_range(-1i32..=20)?,
            u.int_in_range(-1i32..=20)?
        ),
        "imp" => format!(
            "{}:{}:{}",
            u.choose(&["linear", "uniform", "zipf"])?,
            u.int_in_range(0u32..=300)?,
            u.int_in_range(0u32..=300)?
        ),
        _ => String::new(),
    })
}

/// Parses and runs a command line (never a simulating or file-writing verb) and checks
/// the result: no panic, every reported `fp*` or `posterior` metric that is a number
/// lies in [0, 1], and one printed as text (below 2.2e-308) has a `*_log10` below
/// `log10(2.2e-308)`.
pub fn check_run(args: &[String]) {
    let Ok(cli) = cli::parse_from(std::iter::once("bfopt").chain(args.iter().map(String::as_str)))
    else {
        return;
    };
    if !matches!(
        cli.verb,
        Verb::Model { .. } | Verb::Optimize { .. } | Verb::Posterior { .. }
    ) {
        return;
    }
    let Ok(report) = crate::run(&cli) else {
        return;
    };
    let mut json = Vec::new();
    crate::render::write(&report, cli::Format::Json, &mut json).expect("JSON renders");
    let value: Value = serde_json::from_slice(&json).expect("JSON parses");
    probabilities_in_unit_interval(&value, args);
}

fn probabilities_in_unit_interval(v: &Value, args: &[String]) {
    match v {
        Value::Object(map) => {
            for (key, x) in map {
                if let (true, Some(p)) = (crate::families::tiny::is_probability(key), x.as_f64()) {
                    assert!(
                        (0.0..=1.0).contains(&p),
                        "bfopt {}: {key} = {p} outside [0, 1]",
                        args.join(" ")
                    );
                }
                // An underflowed probability is printed as text beside its log10.
                if let Some(log10) = map.get(&format!("{key}_log10")).and_then(Value::as_f64) {
                    assert!(
                        x.is_string() && log10 < f64::MIN_POSITIVE.log10(),
                        "bfopt {}: {key} = {x} with log10 {log10}",
                        args.join(" ")
                    );
                }
                probabilities_in_unit_interval(x, args);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|x| probabilities_in_unit_interval(x, args)),
        _ => {}
    }
}

/// The planner: a requirement drawn from the bytes across the documented ranges (FP
/// targets 1e-12 to 0.5, every shape, budgets), planned. A valid requirement gives a plan
/// or an infeasibility, never a panic; a plan's candidates are ranked by memory, have
/// probabilities in (0, 1] and positive sizes, and its pick is the first.
pub fn plan(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(req) = plan_requirement(&mut u) else {
        return;
    };
    let Ok(p) = bounded(|| bfopt_plan::plan(&req)) else {
        return;
    };
    assert_eq!(p.pick.index, 0, "the pick is the least memory");
    assert!(!p.pick.reason.is_empty());
    for w in p.candidates.windows(2) {
        assert!(w[0].bits <= w[1].bits, "ranked by memory");
    }
    for c in &p.candidates {
        assert!(c.fp > 0.0 && c.fp <= 1.0, "{}: fp {}", c.design, c.fp);
        assert!(c.bits > 0 && c.bits_per_item.is_finite(), "{}", c.design);
        assert!(c.accesses_insert >= 0.0 && c.accesses_query >= 0.0);
        if let Some(n) = c.npws {
            assert!(n >= 0.0 && n.is_finite(), "{}: npws {n}", c.design);
        }
    }
}

/// The requirement [`plan`] decodes from fuzz bytes; `Err` where the bytes run out or a
/// constructor rejects a value (which must then be an error, not a panic).
///
/// # Errors
/// The data ran out, or a constructor rejected a value.
pub fn plan_requirement(u: &mut Unstructured<'_>) -> arbitrary::Result<bfopt_plan::Requirement> {
    use bfopt_plan::Requirement;
    let fp = 10f64.powf(-f64::from(u.int_in_range(3u32..=120)?) / 10.0);
    let n = u.int_in_range(1u64..=1 << 27)?;
    let invalid = |_| arbitrary::Error::IncorrectFormat;
    let mut req = match u.int_in_range(0u8..=2)? {
        0 => Requirement::capacity(fp, n),
        1 => Requirement::window(fp, n.min(1 << 24)),
        _ => Requirement::temporal(
            fp,
            n.clamp(2, 1 << 17),
            u.int_in_range(2u64..=256)?,
            n.min(1 << 20),
        ),
    }
    .map_err(invalid)?;
    if u.arbitrary::<bool>()? {
        req = req
            .with_memory(u.int_in_range(1u64..=1 << 34)?)
            .map_err(invalid)?;
    }
    if u.arbitrary::<bool>()? {
        let a = f64::from(u.int_in_range(10u32..=400)?) / 10.0;
        req = req.with_max_accesses(a).map_err(invalid)?;
    }
    if req.window_insertions().is_some() {
        if u.arbitrary::<bool>()? {
            req = req
                .with_max_npws(f64::from(u.int_in_range(0u32..=100)?) / 100.0)
                .map_err(invalid)?;
        }
        if u.arbitrary::<bool>()? {
            req = req
                .with_duplicates(f64::from(u.int_in_range(0u32..=90)?) / 100.0)
                .map_err(invalid)?;
        }
        if u.arbitrary::<bool>()? {
            req = req
                .with_allow_fn(f64::from(u.int_in_range(1u32..=50)?) / 100.0)
                .map_err(invalid)?;
        }
    }
    Ok(req)
}
