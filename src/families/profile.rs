//! `bfopt profile --trace FILE`: one streaming pass over a trace
//! ([`bfopt_validation::workload::for_each_record`]) into its profile
//! ([`bfopt_validation::workload::profile`]): length, distinct items, the empirical
//! `D(L)` on a log grid, the duplicate rate within `--window`, the top items' share, a
//! fitted Zipf exponent, arrival rate and hourly profile, importances.
//!
//! JSON: a list; the first row `{"family": "trace", "params": {...}, "metrics": {the
//! profile without the curve}}`, then one row per grid point `{"family": "distinct",
//! "params": {"l"}, "metrics": {"d", "d_over_l"}}`.

use crate::exit::CliError;
use crate::render::aligned;
use crate::report::{Report, Row};
use crate::reproduce::plot::{Plot, Series};
use crate::units::parse_count;
use bfopt_plan::text::{num, prob};
use bfopt_validation::workload::profile::{ProfileOptions, TraceProfile, TraceProfiler};
use bfopt_validation::workload::{for_each_record, open_trace, TraceOptions, TraceSummary};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// How to read a trace (shared by `profile` and `recommend --trace`).
#[derive(Debug, Clone, Args)]
pub struct TraceArgs {
    /// The trace: CSV `item[,timestamp][,importance]` or one item per line; gzip or zstd
    /// (recognised by their magic bytes); `-` for standard input.
    #[arg(long)]
    pub trace: PathBuf,
    /// 1-based column of the item in a wider CSV log (then any number of fields).
    #[arg(long, value_parser = parse_count)]
    pub key_column: Option<u64>,
    /// 1-based column of the timestamp (seconds) in a wider CSV log.
    #[arg(long, value_parser = parse_count)]
    pub time_column: Option<u64>,
    /// Count and skip bad lines instead of stopping at the first (exit 2).
    #[arg(long)]
    pub skip_bad_lines: bool,
}

impl TraceArgs {
    /// The reader's options.
    ///
    /// # Errors
    /// A column of 0 (exit 2).
    pub fn options(&self) -> Result<TraceOptions, CliError> {
        let col = |flag: &str, v: u64| {
            usize::try_from(v)
                .ok()
                .filter(|&c| c >= 1)
                .map(|c| c - 1)
                .ok_or_else(|| CliError::invalid(flag, v, "a 1-based column, >= 1"))
        };
        let opts = match (self.key_column, self.time_column) {
            (None, None) => TraceOptions::default(),
            (k, t) => TraceOptions::columns(
                k.map_or(Ok(0), |k| col("--key-column", k))?,
                t.map(|t| col("--time-column", t)).transpose()?,
            ),
        };
        Ok(opts.skipping_bad_lines(self.skip_bad_lines))
    }

    /// Streams the trace's records into `each`.
    ///
    /// # Errors
    /// An unreadable file or a bad line (exit 2, with the file and line number).
    pub fn read(
        &self,
        each: impl FnMut(bfopt_validation::workload::TraceRecord),
    ) -> Result<TraceSummary, CliError> {
        let opts = self.options()?;
        let path = self.trace.display().to_string();
        let err = |e: bfopt_validation::workload::TraceError| CliError::File {
            path: path.clone(),
            line: e.line,
            message: e.message,
        };
        let input = open_trace(&self.trace).map_err(err)?;
        for_each_record(input, &opts, each).map_err(err)
    }

    /// The trace's profile in one pass.
    ///
    /// # Errors
    /// As [`Self::read`].
    pub fn profile(&self, opts: ProfileOptions) -> Result<(TraceProfile, TraceSummary), CliError> {
        let mut p = TraceProfiler::new(opts);
        let summary = self.read(|r| p.push(r.key, r.timestamp, r.importance))?;
        Ok((p.finish(), summary))
    }
}

/// `bfopt profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The trace and how to read it.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Window (insertions) of the duplicate rate.
    #[arg(long, value_parser = parse_count)]
    pub window: Option<u64>,
    /// Distinct items tracked exactly; beyond, a HyperLogLog estimate (±0.81%) and no D(L).
    #[arg(long, value_parser = parse_count, default_value_t = bfopt_validation::workload::profile::DEFAULT_MAX_TRACKED as u64)]
    pub max_tracked: u64,
    /// Most frequent items whose share is reported.
    #[arg(long, value_parser = parse_count, default_value_t = 10)]
    pub top: u64,
    /// Directory for `distinct.svg` (D(L)) and, with timestamps, `hourly.svg`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Table: every point of the D(L) grid (16 per decade) and the hourly counts, not
    /// 4 points per decade in 100 columns.
    #[arg(long)]
    pub wide: bool,
}

/// Runs `bfopt profile`.
///
/// # Errors
/// A bad flag or trace line (exit 2); an unwritable `--out` directory (exit 2).
pub fn profile(args: &ProfileArgs) -> Result<Report, CliError> {
    if args.window == Some(0) {
        return Err(CliError::invalid("--window", 0, "window >= 1"));
    }
    let opts = ProfileOptions {
        window: args.window,
        max_tracked: usize::try_from(args.max_tracked.max(1)).unwrap_or(usize::MAX),
        top: usize::try_from(args.top.max(1)).unwrap_or(usize::MAX),
    };
    let (p, summary) = args.trace.profile(opts)?;
    if let Some(dir) = &args.out {
        write_figures(dir, &p)?;
    }
    let mut summary_metrics = serde_json::to_value(&p).unwrap_or_default();
    if let Some(m) = summary_metrics.as_object_mut() {
        m.remove("distinct_curve");
        m.insert("skipped_lines".into(), json!(summary.skipped));
    }
    let mut rows = vec![Row::new(
        "trace",
        json!({ "trace": args.trace.trace.display().to_string() }),
        summary_metrics,
    )];
    rows.extend(p.distinct_curve.iter().flatten().map(|&(l, d)| {
        Row::new(
            "distinct",
            json!({ "l": l }),
            json!({ "d": d, "d_over_l": d / l as f64 }),
        )
    }));
    let mut report = Report::list(rows);
    report.table = Some(table(
        &args.trace.trace.display().to_string(),
        &p,
        args.wide,
    ));
    if let Some(e) = summary.first_skipped {
        report.notes.push(format!(
            "{} bad lines skipped; the first: {e}",
            summary.skipped
        ));
    }
    if !p.distinct_exact {
        report.notes.push(format!(
            "more than --max-tracked distinct items: distinct is a HyperLogLog estimate (relative error {:.2}%), no D(L)",
            100.0 * p.distinct_relative_error
        ));
    }
    Ok(report)
}

/// The profile as text, at most 100 columns wide unless `wide`: the summary, one line a
/// figure, then `D(L)` at every 4th point of its grid (every point with `wide`, and the
/// last always), then the hourly counts (wrapped unless `wide`).
fn table(path: &str, p: &TraceProfile, wide: bool) -> String {
    let opt = |x: Option<f64>, f: &dyn Fn(f64) -> String| x.map_or("-".to_string(), f);
    let mut lines = vec![
        format!("trace {path}: {} records", p.length),
        format!(
            "distinct items    {}{}",
            num(p.distinct),
            if p.distinct_exact {
                " (exact)".to_string()
            } else {
                format!(
                    " (HyperLogLog estimate, relative error {:.2}%)",
                    100.0 * p.distinct_relative_error
                )
            }
        ),
    ];
    if let (Some(w), Some(d)) = (p.window, p.duplicate_rate_in_window) {
        lines.push(format!(
            "duplicate rate    {} of the records repeat an item of the previous {w}",
            prob(d)
        ));
    }
    lines.push(format!(
        "{:<18}{} of the records",
        format!("top {} items", p.top),
        opt(p.top_share, &prob)
    ));
    lines.push(format!(
        "zipf fit          s = {} (R^2 {}, count against rank over the top 1000 ranks)",
        opt(p.zipf_exponent, &|x| format!("{x:.3}")),
        opt(p.zipf_r2, &|x| format!("{x:.4}"))
    ));
    if p.timestamps > 0 {
        lines.push(format!(
            "arrival rate      {} records per time unit ({} records with a timestamp)",
            opt(p.arrival_rate, &num),
            p.timestamps
        ));
    }
    if p.importances > 0 {
        lines.push(format!(
            "importance        {} to {}, mean {}",
            opt(p.importance_min, &num),
            opt(p.importance_max, &num),
            opt(p.importance_mean, &num)
        ));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if let Some(curve) = &p.distinct_curve {
        out.push_str("\nD(L), distinct items in L consecutive insertions (exact):\n");
        let step = if wide { 1 } else { 4 };
        let last = curve.len().saturating_sub(1);
        let body: Vec<Vec<String>> = curve
            .iter()
            .enumerate()
            .filter(|&(i, _)| i % step == 0 || i == last)
            .map(|(_, &(l, d))| vec![l.to_string(), num(d), format!("{:.4}", d / l as f64)])
            .collect();
        for line in aligned(&["L", "D(L)", "D(L)/L"], &body).lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    if let Some(hours) = p.hourly {
        out.push_str("\nrecords per hour of the day (timestamps taken as seconds):\n");
        let cells: Vec<String> = hours
            .iter()
            .enumerate()
            .map(|(h, c)| format!("{h:02}h {c}"))
            .collect();
        let per_line = if wide { 24 } else { 6 };
        for chunk in cells.chunks(per_line) {
            out.push_str(&format!("  {}\n", chunk.join("  ")));
        }
    }
    out
}

/// `distinct.svg` (D(L) against L, both in log10) and `hourly.svg`.
fn write_figures(dir: &std::path::Path, p: &TraceProfile) -> Result<(), CliError> {
    let io = |e: String| {
        CliError::invalid(
            "--out",
            dir.display(),
            format!("a writable directory ({e})"),
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| io(e.to_string()))?;
    if let Some(curve) = &p.distinct_curve {
        let pts = curve.iter().map(|&(l, d)| ((l as f64).log10(), d.log10()));
        let ident = curve.iter().map(|&(l, _)| {
            let x = (l as f64).log10();
            (x, x)
        });
        let plot = Plot::new(
            "log10 L (consecutive insertions)",
            "log10 D(L) (distinct items)",
            false,
            vec![
                Series::line("D(L) of the trace", pts),
                Series::line("distinct stream, D(L) = L", ident),
            ],
        );
        let svg = plot.to_svg("Distinct items in L insertions").map_err(io)?;
        std::fs::write(dir.join("distinct.svg"), svg).map_err(|e| io(e.to_string()))?;
    }
    if let Some(hours) = p.hourly {
        let plot = Plot::new(
            "hour of day",
            "records",
            false,
            vec![Series::line(
                "records per hour",
                hours.iter().enumerate().map(|(h, &c)| (h as f64, c as f64)),
            )],
        );
        let svg = plot.to_svg("Daily profile").map_err(io)?;
        std::fs::write(dir.join("hourly.svg"), svg).map_err(|e| io(e.to_string()))?;
    }
    Ok(())
}
