//! `bfopt recommend`: every design that meets a requirement, ranked by memory.
//!
//! A requirement is an FP target and one workload shape: a static set (`--capacity N`)
//! or a sliding window (`--window W`: no false negative for the last W insertions).
//! Each family that can serve the shape proposes its best design as a [`Candidate`]
//! (see [`candidates`]); budgets (`--memory`, `--max-accesses`) then exclude some, with
//! the reason printed under the table.

mod candidates;

use crate::exit::CliError;
use crate::report::{Report, Row};
use crate::units::{parse_bits, parse_count, parse_real};
use clap::{ArgGroup, Args};
use serde::Serialize;

pub use candidates::{candidates, Candidate};

/// Requirement flags.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("shape").required(true).args(["capacity", "window", "horizon"])))]
pub struct RecommendArgs {
    /// Largest acceptable false-positive rate, 0 < fp < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub fp: f64,
    /// A static set of this many distinct items.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub capacity: Option<u64>,
    /// A sliding window: no false negative for the last this many insertions.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub window: Option<u64>,
    /// Temporal membership: "was x seen in [s, e]?" over timestamps 1..=T (with
    /// --query-length and --pairs).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires_all = ["query_length", "pairs"])]
    pub horizon: Option<u64>,
    /// Length e − s + 1 of the temporal queries.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires = "horizon")]
    pub query_length: Option<u64>,
    /// Distinct (item, timestamp) pairs to hold.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires = "horizon")]
    pub pairs: Option<u64>,
    /// Memory budget (bits, or with a unit: 8Mb, 16MiB).
    #[arg(long, value_parser = parse_bits, allow_hyphen_values = true)]
    pub memory: Option<u64>,
    /// Largest acceptable memory accesses per insertion or query.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_accesses: Option<f64>,
    /// Largest acceptable peak normalized probability-weighted slack (window designs;
    /// Section 5.2 [APBF]).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub max_npws: Option<f64>,
    /// Admit designs that may forget window items (one-phase RBF), with at most this
    /// fraction of window items forgotten, 0 < RATE < 1.
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub allow_fn: Option<f64>,
    /// With --window: this fraction of insertions repeats an item of the last W,
    /// 0 <= RATE < 1. The APBF is sized on its repeats model; other rows keep their
    /// distinct-insertion figures (see their notes).
    #[arg(long, value_parser = parse_real, allow_hyphen_values = true)]
    pub duplicates: Option<f64>,
    /// Importance law of the items, for importance-aware Bloom filter rows (IBF1, IBF3,
    /// IBF5, IBF6;
    /// needs --window W and --allow-fn RATE, which then bounds the importance-weighted
    /// FN of an item W insertions old). SPEC is linear:LO:HI (every importance LO..=HI
    /// equally likely), exponential:LO:HI:RATE (Pr(i) ∝ e^(−RATE·(i−LO))) or
    /// hist:IMP=WEIGHT,IMP=WEIGHT,... (an empirical histogram), with integer importances
    /// 1 to 10000. Example: bfopt recommend --fp 0.05 --window 1e5 --allow-fn 0.1
    /// --importance linear:1:50
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub importance: Option<String>,
    /// Prices of a false positive and a false negative, `FP:FN` (e.g. `1:10`): adds the
    /// inferential designs, which answer by the cheaper expected error (Section 2.6 [TBF]).
    #[arg(long, value_parser = parse_penalty_pair, allow_hyphen_values = true)]
    pub penalties: Option<bfopt_models::timing::PenaltyDist>,
    /// Simulate every recommended design's reference implementation and compare with
    /// its model (exit 1 on any FAIL).
    #[arg(long)]
    pub validate: bool,
    /// Base seed of `--validate`.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
}

/// The workload a design must serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "shape", content = "items", rename_all = "snake_case")]
pub enum Shape {
    /// A static set of `n` distinct items.
    Capacity(u64),
    /// The last `w` insertions of a stream, without false negatives.
    Window(u64),
    /// Temporal membership over timestamps `1..=horizon`, queries of `query_length`
    /// timestamps, `pairs` distinct (item, timestamp) pairs.
    Temporal {
        /// Horizon `T`.
        horizon: u64,
        /// Query length `|q|`.
        query_length: u64,
        /// Distinct pairs `n`.
        pairs: u64,
    },
}

impl Shape {
    /// What bits per item are counted against: items, window items or pairs.
    pub fn items(&self) -> u64 {
        match *self {
            Shape::Capacity(n) | Shape::Window(n) => n,
            Shape::Temporal { pairs, .. } => pairs,
        }
    }
}

/// What a design must achieve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirement {
    /// FP target.
    pub fp: f64,
    /// The workload shape.
    pub shape: Shape,
    /// Bound on the peak NPWS of window designs.
    pub max_npws: Option<f64>,
    /// Largest acceptable fraction of window items forgotten (designs with false
    /// negatives are admitted only with it).
    pub allow_fn: Option<f64>,
    /// Fraction of insertions that repeat an item of the window (`--duplicates`).
    pub duplicates: Option<f64>,
    /// Importance law of the items (`--importance`): adds IBF rows.
    #[serde(skip)]
    pub importance: Option<bfopt_models::stable::ImportanceDist>,
    /// Fixed prices of errors for the inferential designs (`--penalties FP:FN`).
    pub penalties: Option<bfopt_models::timing::PenaltyDist>,
}

/// Parses `--penalties FP:FN`: two finite non-negative prices, not both zero.
fn parse_penalty_pair(s: &str) -> Result<bfopt_models::timing::PenaltyDist, String> {
    let allowed =
        format!("--penalties = {s}: allowed FP:FN, two prices >= 0, not both 0 (e.g. 1:10)");
    let (a, b) = s.split_once(':').ok_or_else(|| allowed.clone())?;
    let a = parse_real(a).map_err(|_| allowed.clone())?;
    let b = parse_real(b).map_err(|_| allowed.clone())?;
    let p = bfopt_models::timing::Penalties::new(a, b).map_err(|_| allowed.clone())?;
    if a == 0.0 && b == 0.0 {
        return Err(allowed);
    }
    Ok(bfopt_models::timing::PenaltyDist::Fixed {
        fp: p.fp(),
        fn_: p.fn_(),
    })
}

impl RecommendArgs {
    /// The requirement the flags describe.
    ///
    /// # Errors
    /// A bad `--fp`, or both / neither of `--capacity` and `--window`.
    pub fn requirement(&self) -> Result<Requirement, CliError> {
        if !(self.fp > 0.0 && self.fp < 1.0) {
            return Err(CliError::invalid("--fp", self.fp, "0 < fp < 1"));
        }
        let shape = match (self.capacity, self.window, self.horizon) {
            (Some(n), None, None) => Shape::Capacity(n),
            (None, Some(w), None) => Shape::Window(w),
            (None, None, Some(horizon)) => Shape::Temporal {
                horizon,
                query_length: self.query_length.unwrap_or(0),
                pairs: self.pairs.unwrap_or(0),
            },
            _ => return Err(CliError::invalid(
                "--capacity/--window/--horizon",
                "this combination",
                "exactly one of --capacity N, --window W, --horizon T --query-length Q --pairs n",
            )),
        };
        if let Some(x) = self.max_npws {
            // Checked here, not only by the window families that read it (issue 10:
            // `--capacity 1e4 --max-npws -1` ran silently).
            if !(0.0..=1.0).contains(&x) {
                return Err(CliError::invalid("--max-npws", x, "0 <= max_npws <= 1"));
            }
        }
        if let Some(r) = self.allow_fn {
            if !(r > 0.0 && r < 1.0) {
                return Err(CliError::invalid("--allow-fn", r, "0 < rate < 1"));
            }
        }
        // Values are checked before the flags they need, so that a bad value is named
        // whatever else is missing (issue 10).
        let importance = match &self.importance {
            Some(spec) => {
                let dist = bfopt_models::stable::ImportanceDist::parse(spec).map_err(|_| {
                    CliError::invalid(
                        "--importance",
                        spec,
                        "linear:LO:HI, exponential:LO:HI:RATE or hist:IMP=WEIGHT,... with 1 <= LO <= HI <= 10000, RATE >= 0",
                    )
                })?;
                if self.window.is_none() || self.allow_fn.is_none() {
                    return Err(CliError::invalid(
                        "--importance",
                        spec,
                        "only with --window W and --allow-fn RATE",
                    ));
                }
                Some(dist)
            }
            None => None,
        };
        let duplicates = match self.duplicates {
            Some(d) if !(0.0..1.0).contains(&d) => {
                return Err(CliError::invalid("--duplicates", d, "0 <= rate < 1"))
            }
            Some(d) if self.window.is_none() => {
                return Err(CliError::invalid(
                    "--duplicates",
                    d,
                    "only with --window W (repeats of items in the window)",
                ))
            }
            d => d,
        };
        Ok(Requirement {
            fp: self.fp,
            shape,
            max_npws: self.max_npws,
            allow_fn: self.allow_fn,
            duplicates,
            importance,
            penalties: self.penalties,
        })
    }
}

/// Runs the recommender.
///
/// # Errors
/// Invalid flags; exit 3 when no design fits (the message names what excluded each).
pub fn recommend(args: &RecommendArgs) -> Result<Report, CliError> {
    if let Some(a) = args.max_accesses {
        if !(a >= 1.0) {
            return Err(CliError::invalid("--max-accesses", a, "a number >= 1"));
        }
    }
    let req = args.requirement()?;
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for candidate in candidates(&req)? {
        match candidate {
            Err(why) => notes.push(format!("excluded {why}")),
            Ok(c) => match exclusion(&c, args) {
                Some(why) => notes.push(format!("excluded {}: {why}", c.design)),
                None => kept.push(c),
            },
        }
    }
    if kept.is_empty() {
        return Err(CliError::Infeasible(notes.join("; ")));
    }
    kept.sort_by(|a, b| a.bits.cmp(&b.bits).then(a.design.cmp(&b.design)));
    let items = req.shape.items();
    let mut rows: Vec<Row> = kept.iter().map(|c| c.row(items)).collect();
    if let Some(d) = req.duplicates {
        // Only the APBF row ("apbf") is sized on a repeats model.
        for (c, row) in kept.iter().zip(rows.iter_mut()) {
            if c.design != "apbf" {
                *row = row.clone().metric(
                    "notes",
                    format!(
                        "{}; --duplicates {d} not modelled here: FP for distinct insertions (a repeat sets nothing a new item would not, so repeats should not raise it)",
                        c.note
                    ),
                );
            }
        }
        notes.push(format!(
            "--duplicates {d}: only the apbf row is sized on a model of repeats (each insertion repeats one of the last W with probability {d}); --validate feeds it such a stream and the other rows distinct streams"
        ));
    }
    let mut checks = None;
    if args.validate {
        let all = validate_candidates(&kept, &mut rows, &mut notes, args.seed);
        checks = Some(all);
    }
    let mut report = Report::list(rows);
    report.notes = notes;
    if let Some(checks) = checks {
        let failed = checks.iter().filter(|c| !c.pass).count();
        report.notes.push(format!(
            "validation: {} checks passed, {failed} failed",
            checks.len() - failed
        ));
        if failed > 0 {
            report.exit = crate::exit::Exit::Disagreement;
        }
        report.checks = Some(checks);
    }
    Ok(report)
}

/// Runs each candidate's simulation (Bonferroni over all their checks, family-wise 1%),
/// adds `validated` (PASS / FAIL / skipped) to its row and every failing check to the
/// notes.
fn validate_candidates(
    kept: &[Candidate],
    rows: &mut [Row],
    notes: &mut Vec<String>,
    seed: u64,
) -> Vec<bfopt_validation::agree::Check> {
    // Each design yields at most eight checks.
    let confidence = 1.0 - bfopt_validation::suite::FAMILY_ALPHA / (8.0 * kept.len() as f64);
    let mut all = Vec::new();
    for (i, (c, row)) in kept.iter().zip(rows.iter_mut()).enumerate() {
        let v = match &c.validator {
            Ok(v) => v,
            Err(why) => {
                *row = row.clone().metric("validated", "skipped");
                notes.push(format!("not simulated {}: {why}", c.design));
                continue;
            }
        };
        let checks = (v.0)(seed.wrapping_add(i as u64), confidence);
        let pass = checks.iter().all(|k| k.pass);
        // The FP check: the probe FP where the family measures one.
        let fp_check = checks
            .iter()
            .find(|k| k.name.ends_with("probe fp"))
            .or(checks.first());
        if let Some(fp) = fp_check {
            *row = row
                .clone()
                .metric("measured_fp", fp.measured)
                .metric("measured_fp_lo", fp.lo)
                .metric("measured_fp_hi", fp.hi);
        }
        *row = row
            .clone()
            .metric("validated", if pass { "PASS" } else { "FAIL" });
        notes.extend(checks.iter().filter(|k| !k.pass).map(|k| k.to_string()));
        all.extend(checks);
    }
    all
}

/// Why a budget excludes a candidate, if it does.
fn exclusion(c: &Candidate, args: &RecommendArgs) -> Option<String> {
    if let Some(budget) = args.memory.filter(|&b| c.bits > b) {
        return Some(format!("needs {} bits > --memory {budget}", c.bits));
    }
    if let (Some(bound), Some(npws)) = (args.max_npws, c.npws) {
        if npws > bound {
            return Some(format!("peak NPWS {npws:.4} > --max-npws {bound}"));
        }
    }
    let worst = c.accesses_insert.max(c.accesses_query);
    args.max_accesses
        .filter(|&a| worst > a)
        .map(|a| format!("{worst:.3} accesses per operation > --max-accesses {a}"))
}

impl Candidate {
    /// The ranked row: the same keys for every family.
    fn row(&self, items: u64) -> Row {
        Row::new(self.family, (), ())
            .param("design", &self.design)
            .param("parameters", &self.parameters)
            .metric("bits", self.bits)
            .metric("bytes", self.bits.div_ceil(8))
            .metric("bits_per_item", self.bits as f64 / items as f64)
            .metric("accesses_insert", self.accesses_insert)
            .metric("accesses_query", self.accesses_query)
            .metric("false_negatives", self.false_negatives)
            .metric("slack", self.slack)
            .metric("npws", self.npws)
            .metric("fp", self.fp)
            .metric("fp_kind", self.fp_kind)
            .metric("notes", self.note)
    }
}
