//! The command line (clap derive). Family-specific flags live beside their runner in
//! `families/<family>.rs`; this file holds the verbs and the flags every family shares.

use crate::families;
use crate::units::{parse_count, parse_real};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Model, size and validate Bloom-filter variants.
#[derive(Debug, Parser)]
#[command(name = "bfopt", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub verb: Verb,
    /// Output format (`junit` only for `validate`).
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns, rounded numbers.
    Table,
    /// JSON: `{"family", "params", "metrics"}` (a list for multi-row verbs); full precision.
    Json,
    /// CSV with a header line; full precision.
    Csv,
    /// JUnit XML (validate only).
    Junit,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Rank the designs of every family that meet a requirement.
    Recommend(families::recommend::RecommendArgs),
    /// Evaluate a family's model for given parameters.
    Model {
        /// The family.
        #[command(subcommand)]
        family: ModelFamily,
    },
    /// Choose a family's parameters for a requirement.
    Optimize {
        /// The family.
        #[command(subcommand)]
        family: OptimizeFamily,
    },
    /// Posterior probabilities of an inferential filter for one observation.
    Posterior {
        /// The family.
        #[command(subcommand)]
        family: PosteriorFamily,
    },
    /// Simulate a family's reference filter and compare with the model.
    Simulate {
        /// The family.
        #[command(subcommand)]
        family: SimulateFamily,
    },
    /// Run the model-vs-simulation suite (exit 1 on any FAIL).
    Validate(ValidateArgs),
}

/// `bfopt model <family>`.
#[derive(Debug, Subcommand)]
pub enum ModelFamily {
    /// Standard, partitioned or blocked Bloom filter.
    Classic(families::classic::ModelArgs),
    /// Timing / Block Timing Bloom filter (family `timing`).
    #[command(alias = "timing")]
    Btbf(families::timing::ModelArgs),
    /// Generalized Bloom filter: Pos rates, window FP / FN.
    Gbf(families::gbf::ModelArgs),
}

/// `bfopt posterior <family>`.
#[derive(Debug, Subcommand)]
pub enum PosteriorFamily {
    /// Inferential BTBF: P(I_x < w | R_x), expected and most likely insertion age.
    #[command(alias = "timing")]
    Btbf(families::timing::PosteriorArgs),
    /// Inferential GBF: Eq. (34), computed stably for any k.
    Gbf(families::gbf::PosteriorArgs),
}

/// `bfopt optimize <family>`.
#[derive(Debug, Subcommand)]
pub enum OptimizeFamily {
    /// Smallest classic filter meeting an FP target for n items.
    Classic(families::classic::OptimizeArgs),
    /// Penalty-optimal BTBF (k, bpt, B, P) for a bits-per-item budget.
    #[command(alias = "timing")]
    Btbf(families::timing::OptimizeArgs),
    /// Penalty-optimal GBF (k0, k1) for a bits-per-item budget.
    Gbf(families::gbf::OptimizeArgs),
}

/// `bfopt simulate <family>`.
#[derive(Debug, Subcommand)]
pub enum SimulateFamily {
    /// Fill a reference classic filter, probe non-members.
    Classic(families::classic::SimulateArgs),
    /// Section 6 stream experiment on a reference BTBF.
    #[command(alias = "timing")]
    Btbf(families::timing::SimulateArgs),
    /// Section 6 stream experiment on a reference GBF.
    Gbf(families::gbf::SimulateArgs),
}

/// Workload names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// Every arrival new.
    Distinct,
    /// Repeats of earlier items with probability `--duplicates`.
    Uniform,
    /// Zipf law over `--universe` items with exponent `--zipf-exponent`.
    Zipf,
}

/// Flags every `simulate` verb shares.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Independent epochs (fresh filter and keys each), run in parallel.
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    pub epochs: u64,
    /// Non-member probes per epoch.
    #[arg(long, default_value = "100000", value_parser = parse_count, allow_hyphen_values = true)]
    pub probes: u64,
    /// Base seed; the same seed gives the same result on any number of threads.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
    /// Insertion stream.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Distinct)]
    pub workload: WorkloadArg,
    /// Duplicate rate of the uniform workload, 0 <= r < 1.
    #[arg(long, default_value = "0.5", value_parser = parse_real, allow_hyphen_values = true)]
    pub duplicates: f64,
    /// Distinct items a Zipf stream draws from (default: 4 × items).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub universe: Option<u64>,
    /// Zipf exponent s >= 0.
    #[arg(long, default_value = "1.0", value_parser = parse_real, allow_hyphen_values = true)]
    pub zipf_exponent: f64,
    /// Insert the items of a CSV trace (`item[,timestamp][,importance]`) instead.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Two-sided confidence of the reported intervals.
    #[arg(long, default_value = "0.99", value_parser = parse_real, allow_hyphen_values = true)]
    pub confidence: f64,
}

/// Suite sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LevelArg {
    /// Seconds.
    Quick,
    /// Minutes.
    Full,
}

/// `bfopt validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Only this family (default: all).
    #[arg(long)]
    pub family: Option<String>,
    /// Simulation sizes.
    #[arg(long, value_enum, default_value_t = LevelArg::Quick)]
    pub level: LevelArg,
    /// Base seed.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub seed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
