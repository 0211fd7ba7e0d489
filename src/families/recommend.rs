//! `bfopt recommend`: every design that meets a requirement, ranked by memory.

use crate::exit::CliError;
use crate::families::classic::{design_row, DEFAULT_BLOCK_BITS};
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use bfopt_models::classic::{ClassicRequirement, Layout};
use clap::Args;

/// Requirement flags.
#[derive(Debug, Args)]
pub struct RecommendArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// A static set of this many distinct items.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub capacity: u64,
    /// Memory budget (bits, or with a unit: 8Mb, 16MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub memory: Option<u64>,
    /// Largest acceptable memory accesses per insertion or query.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_accesses: Option<f64>,
    /// False negatives are acceptable: also list Stable Bloom filters for a stream.
    #[arg(long)]
    pub allow_fn: bool,
    /// Importance law of the items (linear:LO:HI, exponential:LO:HI:RATE, hist:...):
    /// also list importance-aware filters.
    #[arg(long)]
    pub importance: Option<String>,
}

/// One-line advice per design.
fn note(layout: Layout) -> &'static str {
    match layout {
        Layout::Standard => "fewest bits; k random accesses per insert and positive query",
        Layout::Partitioned => "same accesses as standard, a few more bits; slices suit hardware",
        Layout::Blocked { .. } => "one cache line per operation: fastest, at some extra bits",
    }
}

/// Runs the recommender.
///
/// # Errors
/// Invalid flags; exit 3 when no design fits the budgets (the message names them).
pub fn recommend(args: &RecommendArgs) -> Result<Report, CliError> {
    if let Some(a) = args.max_accesses {
        if !(a >= 1.0) {
            return Err(CliError::invalid("--max-accesses", a, "a number >= 1"));
        }
    }
    let layouts = [
        Layout::Standard,
        Layout::Partitioned,
        Layout::Blocked {
            block_bits: DEFAULT_BLOCK_BITS,
        },
    ];
    let mut rows: Vec<(u64, Row)> = Vec::new();
    let mut notes = Vec::new();
    for layout in layouts {
        let req = ClassicRequirement::new(args.fp, args.capacity, layout)
            .map_err(|e| CliError::from_model(e, &[("fp", "--fp"), ("n", "--capacity")]))?;
        let row = design_row(&req)?.param("design", layout.name());
        let bits = row.metrics["bits"].as_u64().unwrap_or(u64::MAX);
        let accesses = row.metrics["accesses_insert"]
            .as_f64()
            .unwrap_or(f64::INFINITY);
        if let Some(budget) = args.memory.filter(|&b| bits > b) {
            notes.push(format!(
                "excluded classic/{}: needs {bits} bits > --memory {budget}",
                layout.name()
            ));
            continue;
        }
        if let Some(a) = args.max_accesses.filter(|&a| accesses > a) {
            notes.push(format!(
                "excluded classic/{}: {accesses} accesses per insert > --max-accesses {a}",
                layout.name()
            ));
            continue;
        }
        rows.push((bits, row.metric("notes", note(layout))));
    }
    if args.allow_fn || args.importance.is_some() {
        let bits = args
            .memory
            .or_else(|| rows.iter().map(|r| r.0).min())
            .unwrap_or(0);
        if bits >= 64 {
            rows.extend(crate::families::stable::recommend_rows(
                args.fp,
                args.capacity,
                bits,
                args.importance.as_deref(),
            )?);
        }
    }
    if rows.is_empty() {
        return Err(CliError::Infeasible(notes.join("; ")));
    }
    rows.sort_by_key(|(bits, _)| *bits);
    let mut report = Report::list(rows.into_iter().map(|(_, r)| r).collect());
    report.notes = notes;
    Ok(report)
}
