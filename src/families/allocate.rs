//! `bfopt allocate`: one memory budget split over many filters (issue 23).

use crate::exit::{CliError, Exit};
use crate::families::classic::LayoutArgs;
use crate::families::to_u32;
use crate::render::Format;
use crate::report::{Report, Row};
use crate::reproduce::plot::{Plot, Series};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::classic::Layout;
use bfopt_plan::allocate::simulate::{simulate, SimConfig};
use bfopt_plan::allocate::{
    allocate as solve, curve, Allocation, Budget, FilterSpec, Goal, Law, LsmLookups, LsmTree,
};
use bfopt_validation::agree::Check;
use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Model parameter names → flags, for error messages.
const FLAGS: &[(&str, &str)] = &[
    ("bits", "--budget"),
    ("target_fp", "--target-fp"),
    ("k_max", "--max-hashes"),
    ("block_bits", "--block-bits"),
    ("levels", "--lsm levels"),
    ("ratio", "--lsm ratio"),
    ("entries", "--lsm entries"),
];

/// `bfopt allocate` flags.
#[derive(Debug, Args)]
pub struct AllocateArgs {
    /// Memory for all filters together (bits or units: 8Gb, 1GiB); minimise the expected
    /// false positives per lookup.
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true, conflicts_with = "target_fp", required_unless_present = "target_fp")]
    pub budget: Option<u64>,
    /// Expected false positives per lookup to reach with the least memory (the inverse).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub target_fp: Option<f64>,
    /// The filters: CSV with a header `name,items,weight[,layout][,block_bits]`, or JSON
    /// (a list of objects with those keys, or `{"filters": [...]}`). `weight` is how
    /// many times a lookup reaches the filter, per lookup (a zero-result lookup reaches
    /// every level of an LSM tree: 1 each); `layout` defaults to --layout.
    #[arg(long, conflicts_with = "lsm", required_unless_present = "lsm")]
    pub filters: Option<PathBuf>,
    /// A leveled LSM tree, `levels=L,ratio=T,entries=N[,lookups=zero-result|existing]`:
    /// L levels, each T times the one above, N entries split as
    /// n_i = N·(T−1)·T^(i−1)/(T^L−1) (every level full; the largest takes the rounding).
    /// `zero-result` (default): lookups of absent keys, each probes every level.
    /// `existing`: lookups of stored keys, uniformly chosen, each key in exactly one
    /// level; a lookup stops at the level holding its key, so level i is probed for a key
    /// it does not hold with weight (entries below level i)/N.
    #[arg(long, allow_hyphen_values = true)]
    pub lsm: Option<String>,
    /// Layout of every filter (a filter file may set its own); `blocked` with 512-bit
    /// blocks is how RocksDB builds its filters.
    #[command(flatten)]
    pub layout: LayoutArgs,
    /// Largest hash count per filter.
    #[arg(long, default_value = "64", value_parser = crate::units::parse_hashes, allow_hyphen_values = true)]
    pub max_hashes: u64,
    /// Table: add the hash counts of uniform and the bits and hash counts of the
    /// smaller-levels choice (wider than 120 columns; CSV always has them).
    #[arg(long)]
    pub wide: bool,
    /// Build the optimal and the uniform allocation's reference filters, send absent keys
    /// through all of them, and compare the measured expected false positives per lookup
    /// with the prediction (Student t over epochs); exit 1 on a disagreement. Trees over
    /// 2·10^7 entries are not simulated (a note says so).
    #[arg(long)]
    pub validate: bool,
    /// Epochs of --validate (each its own filters).
    #[arg(long, default_value = "32", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Absent-key lookups per epoch of --validate.
    #[arg(long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    pub lookups: u64,
    /// Base seed of --validate.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Write `allocate.svg` (expected false positives against budget, optimal and
    /// uniform) and `allocate.csv` (its points) into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `bfopt allocate`: table and CSV give one row per filter and a total row; JSON one
/// object with the whole allocation.
///
/// # Errors
/// Invalid flags or filter file (exit 2); a target no budget meets (exit 3).
pub fn allocate(args: &AllocateArgs, format: Format) -> Result<Report, CliError> {
    let model = |e| CliError::from_model(e, FLAGS);
    let layout = args.layout.layout()?;
    let k_max = to_u32("--max-hashes", args.max_hashes, "1 <= k_max <= 64")?;
    let budget = match (args.budget, args.target_fp) {
        (Some(bits), None) => Budget::memory(bits),
        (None, Some(x)) => Budget::expected_fp(x),
        _ => {
            return Err(CliError::invalid(
                "--budget/--target-fp",
                "both or neither",
                "exactly one of --budget MEMORY, --target-fp X",
            ))
        }
    }
    .and_then(|b| b.with_k_max(k_max))
    .map_err(model)?;
    let (source, filters) = match (&args.filters, &args.lsm) {
        (Some(path), None) => (
            json!({ "filters": path.display().to_string() }),
            read_filters(path, layout)?,
        ),
        (None, Some(spec)) => {
            let tree = parse_lsm(spec)?;
            (json!({ "lsm": tree }), tree.filters(layout).map_err(model)?)
        }
        _ => {
            return Err(CliError::invalid(
                "--filters/--lsm",
                "both or neither",
                "exactly one of --filters FILE, --lsm levels=L,ratio=T,entries=N",
            ))
        }
    };
    let a = solve(&budget, &filters).map_err(|e| match (e, &args.filters) {
        // A repeated name is the file's fault: say which file.
        (
            bfopt_models::ModelError::InvalidParam {
                name: "name",
                value,
                allowed,
            },
            Some(path),
        ) => CliError::File {
            path: path.display().to_string(),
            line: 0,
            message: format!("name = {value} (allowed: {allowed})"),
        },
        (e, _) => model(e),
    })?;
    let mut notes = Vec::new();
    let checks = if args.validate {
        validate(args, &a, &mut notes)?
    } else {
        Vec::new()
    };
    let failed = checks.iter().any(|c| !c.pass);
    if let Some(dir) = &args.out {
        notes.extend(write_figure(dir, &budget, &filters, a.budget_bits)?);
    }
    if format == Format::Json {
        let mut params = source;
        params["layout"] = json!(layout.name());
        params["max_hashes"] = json!(k_max);
        let mut row = Row::new("allocate", params, &a);
        if args.validate {
            row = row.metric("validation", &checks);
        }
        let mut report = Report::single(row);
        report.notes = notes;
        return Ok(finish(report, checks, failed));
    }
    let mut report = Report::list(rows(&a, args.wide || format == Format::Csv));
    report.notes = summary(&a);
    report.notes.extend(notes);
    Ok(finish(report, checks, failed))
}

/// Attaches the checks (for JUnit) and exit 1 on a failure.
fn finish(mut report: Report, checks: Vec<Check>, failed: bool) -> Report {
    if !checks.is_empty() {
        report.checks = Some(checks);
    }
    if failed {
        report.exit = Exit::Disagreement;
    }
    report
}

/// Entries above which `--validate` does not simulate (seconds per epoch beyond).
pub const MAX_SIMULATED_ITEMS: u64 = 20_000_000;

/// `--validate`: the optimal and uniform allocations against their reference filters;
/// a line per check (or why none ran) goes to `notes`.
fn validate(
    args: &AllocateArgs,
    a: &Allocation,
    notes: &mut Vec<String>,
) -> Result<Vec<Check>, CliError> {
    let items: u64 = a.optimal.filters.iter().map(|f| f.items).sum();
    if items > MAX_SIMULATED_ITEMS {
        notes.push(format!(
            "--validate: {items} entries is too many to simulate in seconds (at most {MAX_SIMULATED_ITEMS}); skipped"
        ));
        return Ok(Vec::new());
    }
    let cfg = SimConfig {
        epochs: args.epochs,
        lookups: args.lookups,
        seed: args.seed,
        confidence: 0.99,
    };
    let sim_flags = [("epochs", "--epochs"), ("lookups", "--lookups")];
    let mut checks = Vec::new();
    for (name, choice) in [("optimal", &a.optimal), ("uniform", &a.uniform)] {
        let (mut check, _) =
            simulate(choice, &cfg).map_err(|e| CliError::from_model(e, &sim_flags))?;
        check.name = format!("{name}: {}", check.name);
        notes.push(check.to_string());
        checks.push(check);
    }
    Ok(checks)
}

/// One row per filter (optimal, uniform, smaller levels only), then the totals; `wide`
/// adds uniform's `k` and the smaller-levels bits and `k`.
fn rows(a: &Allocation, wide: bool) -> Vec<Row> {
    let mut rows: Vec<Row> = a
        .optimal
        .filters
        .iter()
        .zip(&a.uniform.filters)
        .zip(&a.smaller_levels.filters)
        .map(|((o, u), s)| {
            let row = Row::new(
                "allocate",
                json!({ "filter": o.name, "items": o.items, "weight": o.weight }),
                json!({
                    "bits": o.bits,
                    "k": o.k,
                    "bits_per_item": o.bits_per_item,
                    "fp": o.fp,
                    "uniform_bits": u.bits,
                    "uniform_fp": u.fp,
                    "smaller_fp": s.fp,
                }),
            );
            if wide {
                row.metric("uniform_k", u.k)
                    .metric("smaller_bits", s.bits)
                    .metric("smaller_k", s.k)
            } else {
                row
            }
        })
        .collect();
    let items: u64 = a.optimal.filters.iter().map(|f| f.items).sum();
    let weight: f64 = a.optimal.filters.iter().map(|f| f.weight).sum();
    let total = Row::new(
        "allocate",
        json!({ "filter": "total", "items": items, "weight": weight }),
        json!({
            "bits": a.optimal.bits,
            "k": Value::Null,
            "bits_per_item": if items > 0 { a.optimal.bits as f64 / items as f64 } else { 0.0 },
            "fp": a.optimal.expected_fp,
            "uniform_bits": a.uniform.bits,
            "uniform_fp": a.uniform.expected_fp,
            "smaller_fp": a.smaller_levels.expected_fp,
        }),
    );
    rows.push(if wide {
        total
            .metric("uniform_k", Value::Null)
            .metric("smaller_bits", a.smaller_levels.bits)
            .metric("smaller_k", Value::Null)
    } else {
        total
    });
    rows
}

/// The lines under the table: goal, savings, the continuous optimum, which filters used
/// a model rather than the exact law.
fn summary(a: &Allocation) -> Vec<String> {
    let items: u64 = a
        .optimal
        .filters
        .iter()
        .map(|f| f.items)
        .sum::<u64>()
        .max(1);
    let per = |bits: u64| bits as f64 / items as f64;
    let mut notes = vec![
        match a.goal {
            Goal::Memory { bits } => format!(
                "budget {bits} bits ({:.3} bits per item); the optimum spends {}",
                per(bits),
                a.optimal.bits
            ),
            Goal::ExpectedFp { target } => format!(
                "target {target:e} expected false positives per lookup: least budget {} bits ({:.3} bits per item)",
                a.budget_bits,
                per(a.budget_bits)
            ),
        },
        format!(
            "expected false positives per lookup: optimal {:.4e}, uniform {:.4e} (saving {:.1}%), smaller levels only {:.4e}",
            a.optimal.expected_fp,
            a.uniform.expected_fp,
            100.0 * a.fp_saving,
            a.smaller_levels.expected_fp,
        ),
        format!(
            "equal expected false positives {:.4e}: optimal {} bits, uniform {} bits: memory saving {:.1}%",
            a.equal_fp.expected_fp,
            a.equal_fp.optimal_bits,
            a.equal_fp.uniform_bits,
            100.0 * a.memory_saving
        ),
        format!(
            "continuous optimum (real bits and k, fp = e^(-ln²2·m/n)): {:.4e}",
            a.continuous.expected_fp
        ),
    ];
    let mut layouts: Vec<String> = a
        .optimal
        .filters
        .iter()
        .map(|f| match f.layout {
            Layout::Blocked { block_bits } => format!("blocked ({block_bits}-bit blocks)"),
            other => other.name().to_string(),
        })
        .collect();
    layouts.sort_unstable();
    layouts.dedup();
    notes.push(format!("layout: {}", layouts.join(", ")));
    let modelled: Vec<&str> = a
        .optimal
        .filters
        .iter()
        .chain(&a.uniform.filters)
        .filter(|f| f.law == Law::Model)
        .map(|f| f.name.as_str())
        .collect();
    if !modelled.is_empty() {
        let mut names = modelled;
        names.sort_unstable();
        names.dedup();
        let more = names.len().saturating_sub(8);
        names.truncate(8);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        notes.push(format!(
            "beyond the exact law's work limit, the layout's model: {}{tail}",
            names.join(", ")
        ));
    }
    notes
}

/// Parses `--lsm levels=L,ratio=T,entries=N[,lookups=zero-result|existing]`.
fn parse_lsm(spec: &str) -> Result<LsmTree, CliError> {
    let shape = "levels=L,ratio=T,entries=N[,lookups=zero-result|existing]";
    let (mut levels, mut ratio, mut entries, mut lookups) =
        (None, None, None, LsmLookups::ZeroResult);
    for part in spec.split(',') {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| CliError::invalid("--lsm", part, shape))?;
        let value = value.trim();
        let count = |flag: &str| {
            parse_count(value)
                .map_err(|e| CliError::invalid(flag, value, e.replace(" (allowed: ", " (")))
        };
        match key.trim() {
            "levels" => levels = Some(count("--lsm levels")?),
            "ratio" => ratio = Some(count("--lsm ratio")?),
            "entries" => entries = Some(count("--lsm entries")?),
            "lookups" => {
                lookups = match value {
                    "zero-result" => LsmLookups::ZeroResult,
                    "existing" => LsmLookups::Existing,
                    _ => {
                        return Err(CliError::invalid(
                            "--lsm lookups",
                            value,
                            "zero-result or existing",
                        ))
                    }
                }
            }
            other => {
                return Err(CliError::invalid(
                    "--lsm",
                    other,
                    format!("the keys levels, ratio, entries, lookups: {shape}"),
                ))
            }
        }
    }
    let (Some(levels), Some(ratio), Some(entries)) = (levels, ratio, entries) else {
        return Err(CliError::invalid("--lsm", spec, shape));
    };
    let small = |flag: &str, v: u64, range: &str| {
        u32::try_from(v).map_err(|_| CliError::invalid(flag, v, range))
    };
    LsmTree::new(
        small("--lsm levels", levels, "1 <= levels <= 40")?,
        small("--lsm ratio", ratio, "2 <= ratio <= 1000")?,
        entries,
        lookups,
    )
    .map_err(|e| CliError::from_model(e, FLAGS))
}

/// Reads a filter file: JSON if it starts with `[` or `{`, CSV otherwise.
fn read_filters(path: &Path, layout: Layout) -> Result<Vec<FilterSpec>, CliError> {
    let file_err = |line: u64, message: String| CliError::File {
        path: path.display().to_string(),
        line,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| file_err(0, e.to_string()))?;
    let filters = if text.trim_start().starts_with(['[', '{']) {
        from_json(&text, layout).map_err(|m| file_err(0, m))?
    } else {
        from_csv(&text, layout).map_err(|(line, m)| file_err(line, m))?
    };
    if filters.is_empty() {
        return Err(file_err(
            0,
            "no filters (allowed: at least one)".to_string(),
        ));
    }
    Ok(filters)
}

/// One filter's fields as text, wherever they came from.
struct Fields<'a> {
    name: Option<String>,
    items: Option<String>,
    weight: Option<String>,
    layout: Option<&'a str>,
    block_bits: Option<String>,
}

/// Builds a filter from its fields; an error names the field, the value and what is
/// allowed (the caller adds where).
fn build(f: Fields<'_>, default: Layout) -> Result<FilterSpec, (&'static str, String)> {
    let need = |v: Option<String>, key: &'static str| {
        v.ok_or((key, "missing (allowed: a value)".to_string()))
    };
    let name = need(f.name, "name")?;
    let items_text = need(f.items, "items")?;
    let items =
        parse_count(&items_text).map_err(|e| ("items", format!("= {items_text:?}: {e}")))?;
    let weight_text = need(f.weight, "weight")?;
    let weight =
        parse_real(&weight_text).map_err(|e| ("weight", format!("= {weight_text:?}: {e}")))?;
    let block_bits = f
        .block_bits
        .map(|b| parse_bits(&b).map_err(|e| ("block_bits", format!("= {b:?}: {e}"))))
        .transpose()?;
    let only_blocked = || {
        Err((
            "block_bits",
            "given for a layout other than blocked (allowed: only with layout blocked)".to_string(),
        ))
    };
    let layout = match f.layout.map(str::trim) {
        None | Some("") => match (default, block_bits) {
            (_, None) => default,
            (Layout::Blocked { .. }, Some(b)) => Layout::Blocked { block_bits: b },
            _ => return only_blocked(),
        },
        Some("blocked") => Layout::Blocked {
            block_bits: block_bits.unwrap_or(crate::families::classic::DEFAULT_BLOCK_BITS),
        },
        Some(_) if block_bits.is_some() => return only_blocked(),
        Some("standard") => Layout::Standard,
        Some("partitioned") => Layout::Partitioned,
        Some(other) => {
            return Err((
                "layout",
                format!("= {other:?} (allowed: standard, partitioned or blocked)"),
            ))
        }
    };
    FilterSpec::new(name, items, weight, layout).map_err(|e| match e {
        bfopt_models::ModelError::InvalidParam {
            name,
            value,
            allowed,
        } => (name, format!("= {value} (allowed: {allowed})")),
        other => ("filter", other.to_string()),
    })
}

/// CSV: a header naming the columns, then one filter per line; errors carry the line.
fn from_csv(text: &str, layout: Layout) -> Result<Vec<FilterSpec>, (u64, String)> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| (1, e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect::<Vec<_>>();
    let known = ["name", "items", "weight", "layout", "block_bits"];
    if let Some(bad) = header.iter().find(|h| !known.contains(&h.as_str())) {
        return Err((
            1,
            format!("column {bad:?} (allowed: name, items, weight[, layout][, block_bits])"),
        ));
    }
    for need in ["name", "items", "weight"] {
        if !header.iter().any(|h| h == need) {
            return Err((
                1,
                format!("no column {need:?} (the header must name name, items, weight[, layout][, block_bits])"),
            ));
        }
    }
    let col = |name: &str| header.iter().position(|h| h == name);
    let mut out = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i as u64 + 2;
        let record = record.map_err(|e| (line, e.to_string()))?;
        let get = |name: &str| {
            col(name)
                .and_then(|c| record.get(c))
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let layout_cell = col("layout").and_then(|c| record.get(c));
        let fields = Fields {
            name: get("name"),
            items: get("items"),
            weight: get("weight"),
            layout: layout_cell.filter(|v| !v.is_empty()),
            block_bits: get("block_bits"),
        };
        out.push(build(fields, layout).map_err(|(key, m)| (line, format!("{key} {m}")))?);
    }
    Ok(out)
}

/// JSON: a list of filter objects, or `{"filters": [...]}`; errors carry the JSON path.
fn from_json(text: &str, layout: Layout) -> Result<Vec<FilterSpec>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let (list, prefix) = match &v {
        Value::Array(list) => (list, "$"),
        Value::Object(o) => match o.get("filters") {
            Some(Value::Array(list)) => (list, "$.filters"),
            _ => return Err("$.filters: missing (allowed: a list of filters)".to_string()),
        },
        _ => return Err("$: allowed a list of filters or {\"filters\": [...]}".to_string()),
    };
    list.iter()
        .enumerate()
        .map(|(i, f)| {
            let at = format!("{prefix}[{i}]");
            let Value::Object(o) = f else {
                return Err(format!(
                    "{at}: not an object (allowed: {{\"name\", \"items\", \"weight\"}})"
                ));
            };
            if let Some(bad) = o.keys().find(|k| {
                !["name", "items", "weight", "layout", "block_bits"].contains(&k.as_str())
            }) {
                return Err(format!(
                    "{at}.{bad}: unknown key (allowed: name, items, weight, layout, block_bits)"
                ));
            }
            let text = |key: &str| match o.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => Some(other.to_string()),
            };
            let layout_name = match o.get("layout") {
                Some(Value::String(s)) => Some(s.as_str()),
                None | Some(Value::Null) => None,
                Some(_) => Some("(not a string)"),
            };
            let fields = Fields {
                name: text("name"),
                items: text("items"),
                weight: text("weight"),
                layout: layout_name,
                block_bits: text("block_bits"),
            };
            build(fields, layout).map_err(|(key, m)| format!("{at}.{key} {m}"))
        })
        .collect()
}

/// Writes `allocate.svg` and `allocate.csv`: the optimum's and uniform's expected false
/// positives at budgets from 1/4 to 4 times `center` (17 points, evenly spaced on a
/// log scale).
fn write_figure(
    dir: &Path,
    budget: &Budget,
    filters: &[FilterSpec],
    center: u64,
) -> Result<Vec<String>, CliError> {
    let io = |p: &Path, e: &dyn std::fmt::Display| CliError::File {
        path: p.display().to_string(),
        line: 0,
        message: format!("{e} (allowed: a writable directory for --out)"),
    };
    let center = center.max(64) as f64;
    let budgets: Vec<u64> = (-8..=8)
        .map(|j| (center * 2f64.powf(f64::from(j) / 4.0)).round() as u64)
        .collect();
    let points = curve(budget, filters, &budgets).map_err(|e| CliError::from_model(e, FLAGS))?;
    let items: u64 = filters.iter().map(FilterSpec::items).sum::<u64>().max(1);
    let per = |b: u64| b as f64 / items as f64;
    std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
    let csv_path = dir.join("allocate.csv");
    let mut csv = String::from("budget_bits,bits_per_item,optimal_fp,uniform_fp\n");
    for p in &points {
        csv.push_str(&format!(
            "{},{},{},{}\n",
            p.budget_bits,
            per(p.budget_bits),
            p.optimal_fp,
            p.uniform_fp
        ));
    }
    std::fs::write(&csv_path, csv).map_err(|e| io(&csv_path, &e))?;
    let plot = Plot::new(
        "bits per item (budget / items)",
        "expected false positives per lookup",
        true,
        vec![
            Series::line(
                "optimal",
                points.iter().map(|p| (per(p.budget_bits), p.optimal_fp)),
            ),
            Series::line(
                "uniform bits per item",
                points.iter().map(|p| (per(p.budget_bits), p.uniform_fp)),
            ),
        ],
    );
    let svg = plot
        .to_svg("One budget over many filters: optimal vs uniform")
        .map_err(|e| io(dir, &e))?;
    let svg_path = dir.join("allocate.svg");
    std::fs::write(&svg_path, svg).map_err(|e| io(&svg_path, &e))?;
    Ok(vec![format!(
        "wrote {} and {}",
        svg_path.display(),
        csv_path.display()
    )])
}
