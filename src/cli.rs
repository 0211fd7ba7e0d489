//! The command line (clap derive). Family-specific flags live beside their runner in
//! `families/<family>.rs`; this file holds the verbs and the flags every family shares.

use crate::families;
use crate::units::parse_count;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;

/// The command line as clap sees it, with one change applied to every verb: each option
/// that takes a value also accepts a value starting with `-`. Without it `--layout -1`
/// or `--threads -1` fail as "unexpected argument '-1'", a message that names no flag;
/// with it the value reaches the option's own parser, whose error names the flag, the
/// value and what is allowed (exit 2).
pub fn command() -> clap::Command {
    fn hyphen_values(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| {
            // Not `validate --merge A B ...`: its list would swallow the flags after it.
            let file_list = a.get_id() == "merge";
            if !a.is_positional() && a.get_action().takes_values() && !file_list {
                a.allow_hyphen_values(true)
            } else {
                a
            }
        })
        .mut_subcommands(hyphen_values)
    }
    hyphen_values(Cli::command())
}

/// Parses a command line (program name first) through [`command`].
///
/// # Errors
/// clap's usage error (exit 2 via `clap::Error::exit`), or `--help` / `--version`.
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Built once per thread and reused (clap's checks of the whole tree, and a clone of
    // it, were the cost of a parse); the fuzz targets parse millions of lines.
    thread_local! {
        static BUILT: std::cell::RefCell<clap::Command> = std::cell::RefCell::new({
            let mut cmd = command();
            cmd.build();
            cmd
        });
    }
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    BUILT.with(|built| {
        let mut cmd = built.borrow_mut();
        let matches = cmd
            .try_get_matches_from_mut(args.iter().cloned())
            .map_err(|e| file_list_error(e, &args).format(&mut cmd))?;
        Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
    })
}

/// `validate --merge A B -1`: the file list takes no value starting with `-` (it would
/// swallow the flags after it), so clap reports "unexpected argument '-1'", naming no flag.
/// When the unexpected word follows `--merge` and its files, the error names `--merge`,
/// the value and what is allowed (exit 2 as before).
fn file_list_error(e: clap::Error, args: &[OsString]) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return e;
    }
    let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // clap names `-i` for `-inf` (a cluster of short flags): the word that begins so.
    let Some(at) = words
        .iter()
        .position(|w| w == word)
        .or_else(|| words.iter().position(|w| w.starts_with(word.as_str())))
    else {
        return e;
    };
    let word = &words[at];
    if word.starts_with("--") {
        return e;
    }
    // The nearest option before the word, with only file names between them.
    let owner = words[..at].iter().rev().find(|w| w.starts_with('-'));
    if owner.map(String::as_str) != Some("--merge") {
        return e;
    }
    clap::Error::raw(
        ErrorKind::InvalidValue,
        format!(
            "invalid value '{word}' for '--merge <FILE>...': allowed: the files that `bfopt \
             validate --shard K/N --out FILE` wrote (a file whose name starts with - is \
             given as ./{word})"
        ),
    )
}

/// Model, size and validate Bloom-filter variants.
#[derive(Debug, Parser)]
#[command(name = "bfopt", version, about, long_about = None, after_help = crate::exit::EXIT_CODES_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub verb: Verb,
    /// Output format (`junit` only for `validate` and `check`).
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress bars and no notes under tables.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Worker threads for simulations (default: one per core); results do not depend
    /// on it.
    #[arg(long, global = true, value_parser = crate::units::parse_threads)]
    pub threads: Option<u64>,
}

/// Output formats (defined beside their renderers).
pub use crate::render::Format;

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Verb {
    /// Rank the designs of every family that meet a requirement.
    #[command(
        after_help = "Examples:\n  bfopt recommend --fp 0.01 --window 1e6\n  bfopt recommend --fp 1e-4 --capacity 1e8 --memory 256MiB --format json"
    )]
    Recommend(families::recommend::RecommendArgs),
    /// Split one memory budget over many filters (LSM levels, shards, tiers).
    #[command(
        after_help = "Examples:\n  bfopt allocate --budget 10Gb --lsm levels=7,ratio=10,entries=1e9\n  bfopt allocate --target-fp 0.01 --filters shards.csv --layout blocked --out figures"
    )]
    Allocate(families::allocate::AllocateArgs),
    /// What a system (Guava, RedisBloom, Parquet, RocksDB, fastbloom) builds for an FP
    /// target, the FP it really has, and what to type instead.
    #[command(
        after_help = "Examples:\n  bfopt target guava --fp 0.01 --capacity 1e6\n  bfopt target all --fp 0.001 --capacity 1e6 --format json"
    )]
    Target(families::target::TargetArgs),
    /// Evaluate a family's model for given parameters.
    #[command(after_help = "Example:\n  bfopt model classic --bits 8Mb --hashes 7 --items 1e6")]
    Model {
        /// The family.
        #[command(subcommand)]
        family: ModelFamily,
    },
    /// Choose a family's parameters for a requirement.
    #[command(
        after_help = "Example:\n  bfopt optimize classic --fp 0.01 --items 1e6 --layout blocked"
    )]
    Optimize {
        /// The family.
        #[command(subcommand)]
        family: OptimizeFamily,
    },
    /// Posterior probabilities of an inferential filter for one observation.
    #[command(
        after_help = "Examples:\n  bfopt posterior btbf --timers 10000 --hashes 4 --window 1000 --px 0.001 --timestamp-age 900 --matching 2\n  bfopt posterior gbf --bits 100000 --reset-hashes 2 --set-hashes 3 --window 10000 --px 0.0001 --matching 3 --mismatching 1"
    )]
    Posterior {
        /// The family.
        #[command(subcommand)]
        family: PosteriorFamily,
    },
    /// Simulate a family's reference filter and compare with the model.
    #[command(
        after_help = "Example:\n  bfopt simulate classic --bits 1Mb --hashes 7 --items 1e5 --epochs 8 --seed 1"
    )]
    Simulate {
        /// The family.
        #[command(subcommand)]
        family: SimulateFamily,
    },
    /// Audit a live filter from its occupancy: distinct items with an interval, FP given
    /// the bits, headroom before an FP target.
    #[command(
        after_help = "Examples:\n  bfopt audit classic --bits 1e6 --hashes 7 --ones 400000 --fp 0.01\n  bfopt audit classic --hashes 7 --bitmap filter.bin   # bit i = (byte[i/8] >> (i%8)) & 1"
    )]
    Audit {
        /// The family.
        #[command(subcommand)]
        family: families::audit::AuditFamily,
    },
    /// Check deployed designs (a plan from `recommend --format json`, or a list of
    /// designs) against their requirements from their parameters alone (exit 1 on any
    /// FAIL).
    #[command(
        after_help = "Examples:\n  bfopt recommend --fp 0.01 --capacity 1e6 --format json > plan.json && bfopt check plan.json\n  bfopt check designs.json --items 2e6 --format junit > bfopt-check.xml\n  bfopt check plan.json --all --simulate"
    )]
    Check(families::check::CheckArgs),
    /// Profile a trace: length, distinct items, D(L) (distinct items in L insertions),
    /// duplicate rate, Zipf fit, arrival rate, daily profile.
    #[command(
        after_help = "Examples:\n  bfopt profile --trace access.log.gz --window 1e5\n  zcat log.gz | bfopt profile --trace - --key-column 3 --time-column 1 --out profile"
    )]
    Profile(families::profile::ProfileArgs),
    /// Run the model-vs-simulation suite (exit 1 on any FAIL).
    #[command(
        after_help = "Examples:\n  bfopt validate\n  bfopt validate --family classic --level full --format junit > report.xml"
    )]
    Validate(ValidateArgs),
    /// Recompute a table or figure of the papers: CSV, SVG and the differences.
    #[command(
        after_help = "Examples:\n  bfopt reproduce --list\n  bfopt reproduce apbf-table1 --out figures"
    )]
    Reproduce(crate::reproduce::ReproduceArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  bfopt completions bash > ~/.local/share/bash-completion/completions/bfopt"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// `bfopt model <family>`.
#[derive(Debug, Subcommand)]
pub enum ModelFamily {
    /// Standard, partitioned or blocked Bloom filter.
    Classic(families::classic::ModelArgs),
    /// Age-Partitioned Bloom filter (sliding window).
    Apbf(families::apbf::ModelArgs),
    /// Age-Partitioned Blocked Bloom filter.
    Apbbf(families::apbf::BlockedModelArgs),
    /// Recycling Bloom filter (σ- or N-bounded, one or two phases).
    Rbf(families::rbf::ModelArgs),
    /// Timing / Block Timing Bloom filter (family `timing`).
    #[command(alias = "timing")]
    Btbf(families::timing::ModelArgs),
    /// Stable Bloom filter: stable point, FP, FN by age.
    Sbf(families::stable::SbfModelArgs),
    /// Importance-aware Bloom filter (or SBF): stable point, FP, FN by importance.
    Ibf(families::stable::IbfModelArgs),
    /// Persistent Bloom filter: optimal bit split over filters (Eqs. 10-13 [PBF]).
    Pbf(families::pbf::ModelArgs),
    /// Persistent Bloom filter: space bound of Theorem C.3 (Eq. 14 [PBF]).
    PbfBound(families::pbf::BoundArgs),
    /// Generalized Bloom filter: Pos rates, window FP / FN.
    Gbf(families::gbf::ModelArgs),
    /// Scalable Bloom filter: links, compound FP and memory after n items.
    #[command(
        after_help = "Example:\n  bfopt model scalable --initial-capacity 1e4 --fp0 0.005 --tightening 0.5 --growth 2 --items 1e6"
    )]
    Scalable(families::scalable::ModelArgs),
    /// Binary fuse filter (static set): FP 2^-f, slots, bits per item.
    Fuse(families::fuse::ModelArgs),
    /// Cuckoo filter: FP at the load, the 2b/2^f bound, maximal load, deletion.
    Cuckoo(families::cuckoo::ModelArgs),
    /// Counting Bloom filter: FP, counter overflow probability.
    Counting(families::counting::ModelArgs),
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
    /// RBF (k, σ) with the most messages per cycle, or the least memory.
    Rbf(families::rbf::OptimizeArgs),
    /// Penalty-optimal BTBF (k, bpt, B, P) for a bits-per-item budget.
    #[command(alias = "timing")]
    Btbf(families::timing::OptimizeArgs),
    /// Least-memory APBF/APBBF (k, l) for an FP target and a window; --all: Pareto set.
    Apbf(families::apbf::OptimizeArgs),
    /// Smallest integer decrement count P meeting a stable-point FP target.
    Sbf(families::stable::SbfOptimizeArgs),
    /// Importance-aware filter of least expected error cost for a memory budget.
    Ibf(families::stable::IbfOptimizeArgs),
    /// Persistent Bloom filter: bit allocation for a trace and a query length.
    Pbf(families::pbf::OptimizeArgs),
    /// Penalty-optimal GBF (k0, k1) for a bits-per-item budget.
    Gbf(families::gbf::OptimizeArgs),
    /// Least-memory scalable chain (P0, r, s, k per link) meeting a compound FP at n
    /// items, beside RedisBloom's and growable-bloom-filters' ratios.
    #[command(
        after_help = "Example:\n  bfopt optimize scalable --fp 0.01 --initial-capacity 1e4 --items 1e6"
    )]
    Scalable(families::scalable::OptimizeArgs),
    /// Binary fuse filter: smallest fingerprint width meeting an FP target.
    Fuse(families::fuse::OptimizeArgs),
    /// Cuckoo filter: fewest buckets at the safe load, fewest fingerprint bits.
    Cuckoo(families::cuckoo::OptimizeArgs),
    /// Counting Bloom filter: least memory with FP and overflow targets.
    Counting(families::counting::OptimizeArgs),
}

/// `bfopt simulate <family>`.
#[derive(Debug, Subcommand)]
pub enum SimulateFamily {
    /// Fill a reference classic filter, probe non-members.
    Classic(families::classic::SimulateArgs),
    /// Run a reference RBF on a stream, count false positives three ways.
    Rbf(families::rbf::SimulateArgs),
    /// Section 6 stream experiment on a reference BTBF.
    #[command(alias = "timing")]
    Btbf(families::timing::SimulateArgs),
    /// Stream through a reference APBF; FP saw-tooth, accesses, false negatives.
    Apbf(families::apbf::SimulateArgs),
    /// Stream through a reference APBBF.
    Apbbf(families::apbf::BlockedSimulateArgs),
    /// Run a reference Stable Bloom filter to its stable point.
    Sbf(families::stable::SbfSimulateArgs),
    /// Run a reference importance-aware filter to its stable point.
    Ibf(families::stable::IbfSimulateArgs),
    /// Persistent Bloom filters on a synthetic day: predicted vs measured FP.
    Pbf(families::pbf::SimulateArgs),
    /// Section 6 stream experiment on a reference GBF.
    Gbf(families::gbf::SimulateArgs),
    /// Grow a reference scalable chain to n items, probe non-members.
    #[command(
        after_help = "Example:\n  bfopt simulate scalable --initial-capacity 1000 --fp0 0.02 --items 2e4 --epochs 8"
    )]
    Scalable(families::scalable::SimulateArgs),
    /// Build xorf binary fuse filters, probe non-members.
    Fuse(families::fuse::SimulateArgs),
    /// Fill reference cuckoo filters, probe non-members, count insertion failures.
    Cuckoo(families::cuckoo::SimulateArgs),
    /// Fill (and delete from) reference counting filters; FP and overflowed counters.
    Counting(families::counting::SimulateArgs),
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
    /// Run only shard K of N (numbered from 0): each simulation computes its share of
    /// the epochs, whose values (counts and sums) are written to `--out`; `--merge`
    /// combines the N files into the one-machine report.
    #[arg(long, value_name = "K/N", requires = "out", allow_hyphen_values = true)]
    pub shard: Option<String>,
    /// The file `--shard` writes (CBOR).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub out: Option<std::path::PathBuf>,
    /// Combine the shard files of one `--shard K/N` run (all N) into its report,
    /// byte-identical to the run on one machine; family, level and seed are the shards'.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["family", "level", "seed", "shard"]
    )]
    pub merge: Vec<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    #[test]
    fn hyphen_values_reach_the_option_parser() {
        let err = parse_from(["bfopt", "validate", "--threads", "-1"]).unwrap_err();
        assert!(err.to_string().contains("--threads"), "{err}");
        let err = parse_from(["bfopt", "model", "rbf", "--hashing", "-1"]).unwrap_err();
        assert!(err.to_string().contains("--hashing"), "{err}");
    }
}
