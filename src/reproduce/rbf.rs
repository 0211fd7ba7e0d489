//! Figures 3-8 [RBF] (Section V): the σ-bounded chain against simulation (Figures 3-4),
//! the N-bounded bounds f_o and f_a against simulation (Figure 5), and the capacity
//! comparisons (Figures 6-8).
//!
//! The paper prints its figures as images without a value table, so the test vectors are
//! the claims its text states (each checked and, where it fails, listed as a difference)
//! and the model curves themselves. Parameters the paper leaves out are chosen here and
//! listed as differences too:
//! * Figures 3-5: `k = 3` (not stated); Figure 5's `M = 1000` is taken from Section V-A1
//!   ("for all simulations ... M = 1000 bits").
//! * Figures 6-8: the axis ranges (M from 10³ to 10⁶ bits, fp from 10⁻⁴ to 0.1); Figure 7's
//!   `M = 10⁴` bits; Figure 8's three FP targets (10⁻³, 10⁻², 10⁻¹).
//! * Capacity by f_σ¹ is the mean cycle `1/π_0` (the cycle ends when `b > σ`); the paper's
//!   Eqs. (20)-(23) count messages to *reach* σ (`expected_messages_paper`, in the CSV).
//!
//! Each figure has a `*_sized` function taking a [`Size`]: [`Size::Paper`] is what
//! `bfopt reproduce` runs (the paper's simulation sizes; a few seconds to about half a
//! minute each on one core), [`Size::Reduced`] a subset of the points with short
//! simulations for `cargo test`.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::error::ModelError;
use bfopt_models::rbf::repeats::two_phase_pool;
use bfopt_models::rbf::{
    design, lower_bound_messages, worst_case_messages, Hashing, Method, RbfNParams, RbfParams,
    RbfRequirement, Recycling,
};
use bfopt_validation::experiments::rbf::{simulate, RbfSimConfig, RbfSimResult, RbfStream};
use bfopt_validation::filters::rbf::{Bound, RbfConfig};
use bfopt_validation::stats::Mean;
use serde_json::{json, Value};

/// Figure 3 [RBF].
pub const FIGURE_3: Reproduction = Reproduction {
    id: "rbf-figure3",
    source: "Figure 3 [RBF]",
    title: "one-phase RBF: f_σ¹ against simulation, M = 1000, k = 3",
    build: figure_3,
};

/// Figure 4 [RBF].
pub const FIGURE_4: Reproduction = Reproduction {
    id: "rbf-figure4",
    source: "Figure 4 [RBF]",
    title: "two-phase RBF: f_σ² against simulation, M = 1000 (500 per filter), k = 3",
    build: |o| figure_4_sized(o, Size::Paper),
};

/// Figure 5 [RBF].
pub const FIGURE_5: Reproduction = Reproduction {
    id: "rbf-figure5",
    source: "Figure 5 [RBF]",
    title: "N-bounded RBF: f_o and f_a below the measured FP, M = 1000, k = 3",
    build: |o| figure_5_sized(o, Size::Paper),
};

/// Figure 6 [RBF].
pub const FIGURE_6: Reproduction = Reproduction {
    id: "rbf-figure6",
    source: "Figure 6 [RBF]",
    title: "capacity by f_w and f_a over capacity by f_σ¹, fp = 0.01, against M",
    build: |o| figure_6_sized(o, Size::Paper),
};

/// Figure 7 [RBF].
pub const FIGURE_7: Reproduction = Reproduction {
    id: "rbf-figure7",
    source: "Figure 7 [RBF]",
    title: "capacity by f_w and f_a over capacity by f_σ¹, M = 10^4, against fp",
    build: |o| figure_7_sized(o, Size::Paper),
};

/// Figure 8 [RBF].
pub const FIGURE_8: Reproduction = Reproduction {
    id: "rbf-figure8",
    source: "Figure 8 [RBF]",
    title: "capacity of a one-phase over a two-phase RBF, same memory, against M and fp",
    build: |o| figure_8_sized(o, Size::Paper),
};

/// How large a reproduction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// The paper's points and simulation sizes (`bfopt reproduce`).
    Paper,
    /// A few points and short simulations (tests: a few seconds).
    Reduced,
}

const BITS: u64 = 1000;
const HASHES: u32 = 3;
const CONFIDENCE: f64 = 0.99;
const K_NOTE: &str = "the paper does not state k; k = 3 is used";

fn model_err(e: ModelError) -> CliError {
    CliError::from_model(e, &[])
}

fn colliding(bits: u64, k: u32, sigma: u64, phases: u8) -> Result<RbfParams, CliError> {
    RbfParams::new(
        bits,
        k,
        sigma,
        phases,
        Hashing::Colliding,
        Recycling::NonRetaining,
    )
    .map_err(model_err)
}

fn run(
    filter: RbfConfig,
    stream: RbfStream,
    epochs: u64,
    arrivals: u64,
    seed: u64,
    confidence: f64,
) -> Result<RbfSimResult, CliError> {
    simulate(&RbfSimConfig {
        filter,
        stream,
        epochs,
        arrivals,
        seed,
        confidence,
    })
    .map_err(model_err)
}

fn mean_cells(m: &Mean) -> [Value; 3] {
    [json!(m.mean), json!(m.interval.lo), json!(m.interval.hi)]
}

fn point(x: f64, m: &Mean) -> (f64, f64, f64, f64) {
    (x, m.mean, m.interval.lo, m.interval.hi)
}

fn figure_3(o: &Options) -> Result<Reproduced, CliError> {
    let mut out = Reproduced {
        differences: vec![K_NOTE.into()],
        ..Reproduced::new(&["sigma", "fp_model", "fp_measured", "fp_lo", "fp_hi"])
    };
    let (mut model, mut sim) = (vec![], vec![]);
    for (i, sigma) in (100..=900).step_by(100).enumerate() {
        let p = colliding(BITS, HASHES, sigma, 1)?;
        let f = p.metrics(Method::Exact).map_err(model_err)?.fp_avg;
        let r = run(
            RbfConfig::from_params(&p),
            RbfStream::Pool { size: 1000 },
            7 * o.scale,
            100_000,
            o.seed + i as u64,
            CONFIDENCE,
        )?;
        let m = &r.fp_instance;
        if !m.interval.contains(f) {
            out.differences.push(format!(
                "sigma = {sigma}: f = {f:.5} outside the measured 99% interval [{:.5}, {:.5}]",
                m.interval.lo, m.interval.hi
            ));
        }
        let mut row = vec![json!(sigma), json!(f)];
        row.extend(mean_cells(m));
        out.rows.push(row);
        model.push((sigma as f64, f));
        sim.push(point(sigma as f64, m));
    }
    out.plot = Some(Plot::new(
        "recycle threshold σ (bits set)",
        "average false-positive rate",
        true,
        vec![
            Series::line("f_σ¹, Eq. (18)", model),
            Series::points("simulated, 99% interval", sim),
        ],
    ));
    Ok(out)
}

/// Figure 4 [RBF]: f_σ² (Eq. (26)) of a two-phase RBF of M = 1000 bits (500 per filter,
/// the paper's "splits this memory evenly"), `k = 3` (not stated), σ per filter from 50
/// to 450, against simulation: 10 epochs of 100 000 arrivals from a pool of 1000 messages
/// (the paper's setting) and, as a second series, on all-distinct streams.
///
/// The paper reports f_σ² inside every interval. With a pool it is not: Eq. (26) assumes
/// each counted arrival is new to both filters, and repeats copied into both filters make
/// their FPs correlated, so the measured rate falls 1-6% below Eq. (26) (see
/// `tests/agreement/rbf.rs`); on distinct streams, where the assumption holds, the model
/// sits inside the intervals. The pool model (`bfopt_models::rbf::repeats`, copies
/// counted) is the `fp_pool_model` column and is what the pool points are held to; Eq.
/// (26) outside a pool interval is listed as a difference with its cause, and any point
/// outside its own model's interval as a disagreement. In the SVG
/// the distinct-stream points are drawn 4 bits to the right of their σ so that the two
/// sets of error bars do not overlap (the CSV has the true σ).
///
/// # Errors
/// Only an internal model error (the parameters are fixed and valid).
pub fn figure_4_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let (sigmas, epochs, arrivals): (Vec<u64>, u64, u64) = match size {
        Size::Paper => ((50..=450).step_by(50).collect(), 10 * o.scale, 100_000),
        Size::Reduced => (vec![100, 250, 400], 6, 20_000),
    };
    let mut out = Reproduced {
        differences: vec![K_NOTE.into()],
        ..Reproduced::new(&[
            "sigma",
            "fp_model",
            "fp_pool_model",
            "fp_pool",
            "pool_lo",
            "pool_hi",
            "fp_distinct",
            "distinct_lo",
            "distinct_hi",
        ])
    };
    let (mut model, mut pool, mut distinct) = (vec![], vec![], vec![]);
    let mut pool_model = vec![];
    for (i, &sigma) in sigmas.iter().enumerate() {
        let p = colliding(BITS, HASHES, sigma, 2)?;
        let f = p.metrics(Method::Exact).map_err(model_err)?.fp_avg;
        let f_pool = two_phase_pool(&p, 1000).map_err(model_err)?.fp_avg;
        let seed = o.seed + 100 * i as u64;
        let cfg = RbfConfig::from_params(&p);
        let rp = run(
            cfg,
            RbfStream::Pool { size: 1000 },
            epochs,
            arrivals,
            seed,
            CONFIDENCE,
        )?;
        let rd = run(
            cfg,
            RbfStream::Distinct,
            epochs,
            arrivals,
            seed + 1,
            CONFIDENCE,
        )?;
        if !rp.fp_instance.interval.contains(f_pool) {
            out.differences.push(format!(
                "sigma = {sigma}: the pool model {f_pool:.5} outside the 99% interval \
                 [{:.5}, {:.5}] measured on the pool (a disagreement of the model)",
                rp.fp_instance.interval.lo, rp.fp_instance.interval.hi
            ));
        }
        for (name, m) in [
            ("pool of 1000", &rp.fp_instance),
            ("distinct", &rd.fp_instance),
        ] {
            if !m.interval.contains(f) {
                out.differences.push(format!(
                    "sigma = {sigma}: f_σ² = {f:.5} outside the 99% interval [{:.5}, {:.5}] \
                     measured on a {name} stream ({:+.1}% from the mean){}",
                    m.interval.lo,
                    m.interval.hi,
                    100.0 * (f / m.mean - 1.0),
                    if name == "distinct" {
                        ""
                    } else {
                        "; the paper reports every point inside. Eq. (26) assumes each \
                         arrival is new to both filters; pool repeats copied into both \
                         filters correlate them (the pool model counts the copies)"
                    }
                ));
            }
        }
        let mut row = vec![json!(sigma), json!(f), json!(f_pool)];
        row.extend(mean_cells(&rp.fp_instance));
        row.extend(mean_cells(&rd.fp_instance));
        out.rows.push(row);
        model.push((sigma as f64, f));
        pool_model.push((sigma as f64, f_pool));
        pool.push(point(sigma as f64, &rp.fp_instance));
        distinct.push(point(sigma as f64 + 4.0, &rd.fp_instance));
    }
    out.plot = Some(Plot::new(
        "recycle threshold σ per filter (bits set)",
        "average false-positive rate",
        true,
        vec![
            Series::line("f_σ², Eq. (26)", model),
            Series::line("pool model (copies counted)", pool_model),
            Series::points("simulated, pool of 1000, 99% interval", pool),
            Series::points("simulated, distinct stream, 99% interval", distinct),
        ],
    ));
    Ok(out)
}

/// Figure 5 [RBF]: the N-bounded oracle average f_o (Eq. (2)) and lower bound f_a
/// (Eq. (3)) against the measured count-instance FP of an N-bounded RBF, M = 1000 bits
/// (Section V-A1), `k = 3` (not stated), N from 50 to 400 bit-setting messages, 14
/// epochs of 10⁶ arrivals from a pool of 1000 messages (the paper's sizes). The paper
/// reports both below the sample mean, inside or below the 99% interval; every
/// contradiction is listed. The worst-case f_w (Eq. (1)) is in the CSV.
///
/// # Errors
/// Only an internal model error.
pub fn figure_5_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let (ns, epochs, arrivals): (Vec<u64>, u64, u64) = match size {
        Size::Paper => ((50..=400).step_by(50).collect(), 14 * o.scale, 1_000_000),
        Size::Reduced => (vec![100, 300], 6, 40_000),
    };
    let mut out = Reproduced {
        differences: vec![K_NOTE.into()],
        ..Reproduced::new(&[
            "n",
            "fp_oracle",
            "fp_lower",
            "fp_worst",
            "fp_measured",
            "fp_lo",
            "fp_hi",
        ])
    };
    let (mut fo_line, mut fa_line, mut sim) = (vec![], vec![], vec![]);
    for (i, &n) in ns.iter().enumerate() {
        let model = RbfNParams::new(BITS, HASHES, n)
            .map_err(model_err)?
            .metrics();
        let cfg = RbfConfig {
            m: BITS,
            k: HASHES,
            bound: Bound::Messages(n),
            phases: 1,
            hashing: Hashing::Colliding,
            recycling: Recycling::NonRetaining,
        };
        let r = run(
            cfg,
            RbfStream::Pool { size: 1000 },
            epochs,
            arrivals,
            o.seed + 200 + i as u64,
            CONFIDENCE,
        )?;
        let m = &r.fp_instance;
        for (name, v) in [("f_o", model.fp_oracle), ("f_a", model.fp_lower)] {
            if v > m.interval.hi {
                out.differences.push(format!(
                    "N = {n}: {name} = {v:.5} above the measured 99% interval [{:.5}, {:.5}]",
                    m.interval.lo, m.interval.hi
                ));
            } else if v > m.mean {
                out.differences.push(format!(
                    "N = {n}: {name} = {v:.5} above the sample mean {:.5} (inside the interval)",
                    m.mean
                ));
            }
        }
        if model.fp_oracle > model.fp_lower {
            out.differences.push(format!(
                "N = {n}: f_o = {:.5} above f_a = {:.5} (the paper has f_a the tighter bound)",
                model.fp_oracle, model.fp_lower
            ));
        }
        let mut row = vec![
            json!(n),
            json!(model.fp_oracle),
            json!(model.fp_lower),
            json!(model.fp_worst),
        ];
        row.extend(mean_cells(m));
        out.rows.push(row);
        fo_line.push((n as f64, model.fp_oracle));
        fa_line.push((n as f64, model.fp_lower));
        sim.push(point(n as f64, m));
    }
    out.plot = Some(Plot::new(
        "N (bit-setting messages per cycle)",
        "average false-positive rate",
        true,
        vec![
            Series::line("f_o, Eq. (2)", fo_line),
            Series::line("f_a, Eq. (3)", fa_line),
            Series::points("simulated, 99% interval", sim),
        ],
    ));
    Ok(out)
}

/// One x of Figures 6-7: the three capacities and the simulated σ design.
struct Capacity {
    row: Vec<Value>,
    ratio_worst: f64,
    ratio_lower: f64,
    measured_ratio: (f64, f64, f64, f64),
}

/// Capacities at `bits`, `fp` (one phase) and a simulation of the f_σ¹ design on a
/// distinct stream (messages per cycle and FP).
fn capacities(
    bits: u64,
    fp: f64,
    epochs: u64,
    confidence: f64,
    seed: u64,
    x: f64,
    differences: &mut Vec<String>,
) -> Result<Capacity, CliError> {
    let req = RbfRequirement::new(fp, 1).map_err(model_err)?;
    let d = design(bits, &req).map_err(model_err)?;
    let cap = d.metrics.expected_messages;
    let (kw, nw) = worst_case_messages(bits, fp, 1).map_err(model_err)?;
    let (ka, na) = lower_bound_messages(bits, fp).map_err(model_err)?;
    // One warm-up cycle, then about ten counted cycles per epoch.
    let arrivals = (11.0 * cap).ceil() as u64 + 100;
    let r = run(
        RbfConfig::from_params(&d.params),
        RbfStream::Distinct,
        epochs,
        arrivals,
        seed,
        confidence,
    )?;
    let (mc, fm) = (&r.messages_per_cycle, &r.fp_instance);
    let at = format!("M = {bits}, fp = {fp}");
    if !mc.interval.contains(cap) {
        differences.push(format!(
            "{at}: f_σ¹ capacity {cap:.1} outside the measured interval [{:.1}, {:.1}]",
            mc.interval.lo, mc.interval.hi
        ));
    }
    if !fm.interval.contains(d.metrics.fp_avg) {
        differences.push(format!(
            "{at}: the f_σ¹ design's f_σ¹ = {:.5} outside the measured interval [{:.5}, {:.5}]",
            d.metrics.fp_avg, fm.interval.lo, fm.interval.hi
        ));
    }
    let row = vec![
        json!(bits),
        json!(fp),
        json!(d.params.k()),
        json!(d.params.sigma()),
        json!(cap),
        json!(d.metrics.expected_messages_paper),
        json!(kw),
        json!(nw),
        json!(ka),
        json!(na),
        json!(nw as f64 / cap),
        json!(na as f64 / cap),
        json!(mc.mean / cap),
        json!(mc.interval.lo / cap),
        json!(mc.interval.hi / cap),
        json!(fm.mean),
        json!(fm.interval.lo),
        json!(fm.interval.hi),
    ];
    Ok(Capacity {
        row,
        ratio_worst: nw as f64 / cap,
        ratio_lower: na as f64 / cap,
        measured_ratio: (x, mc.mean / cap, mc.interval.lo / cap, mc.interval.hi / cap),
    })
}

const CAPACITY_COLUMNS: [&str; 18] = [
    "bits",
    "fp",
    "k_sigma",
    "sigma",
    "capacity_sigma",
    "capacity_sigma_paper",
    "k_worst",
    "capacity_worst",
    "k_lower",
    "capacity_lower",
    "ratio_worst",
    "ratio_lower",
    "measured_ratio_sigma",
    "measured_lo",
    "measured_hi",
    "fp_measured",
    "fp_lo",
    "fp_hi",
];

/// Largest f_a-to-f_σ¹ capacity shortfall still called "a good approximation" (10%).
const GOOD_APPROXIMATION: f64 = 0.10;

/// Figures 6 and 7 together: `points` are `(bits, fp, x)`.
fn capacity_figure(
    o: &Options,
    size: Size,
    points: &[(u64, f64, f64)],
    x_label: &str,
    claim_loss: (f64, f64),
    notes: Vec<String>,
) -> Result<Reproduced, CliError> {
    let epochs = match size {
        Size::Paper => 8 * o.scale,
        Size::Reduced => 4,
    };
    // Two intervals per point: a 99% family-wise level (Bonferroni).
    let confidence = 1.0 - (1.0 - CONFIDENCE) / (2 * points.len()) as f64;
    let mut out = Reproduced {
        differences: notes,
        ..Reproduced::new(&CAPACITY_COLUMNS)
    };
    let (mut worst, mut lower, mut sigma, mut sim) = (vec![], vec![], vec![], vec![]);
    for (i, &(bits, fp, x)) in points.iter().enumerate() {
        let c = capacities(
            bits,
            fp,
            epochs,
            confidence,
            o.seed + 300 + i as u64,
            x,
            &mut out.differences,
        )?;
        let loss = 1.0 - c.ratio_worst;
        if !(claim_loss.0..=claim_loss.1).contains(&loss) {
            out.differences.push(format!(
                "M = {bits}, fp = {fp}: the worst-case (f_w) design holds {:.1}% fewer messages \
                 than the f_σ¹ design (the paper: {})",
                100.0 * loss,
                if claim_loss.1 >= 1.0 {
                    format!("more than {:.0}%", 100.0 * claim_loss.0)
                } else {
                    "around 30%".into()
                }
            ));
        }
        if 1.0 - c.ratio_lower > GOOD_APPROXIMATION {
            out.differences.push(format!(
                "M = {bits}, fp = {fp}: the f_a design holds {:.1}% fewer messages than the \
                 f_σ¹ design (the paper calls f_a a good approximation)",
                100.0 * (1.0 - c.ratio_lower)
            ));
        }
        worst.push((x, c.ratio_worst));
        lower.push((x, c.ratio_lower));
        sigma.push((x, 1.0));
        sim.push(c.measured_ratio);
        out.rows.push(c.row);
    }
    out.plot = Some(Plot::new(
        x_label,
        "expected message capacity / capacity by f_σ¹",
        false,
        vec![
            Series::line("f_σ¹ (Eq. (18), cycle 1/π_0)", sigma),
            Series::line("f_a (Eq. (3))", lower),
            Series::line("f_w (Eq. (1))", worst),
            Series::points("f_σ¹ design simulated, 99% family-wise interval", sim),
        ],
    ));
    Ok(out)
}

/// Figure 6 [RBF]: expected message capacity by f_w (Eq. (1)) and f_a (Eq. (3))
/// normalised by the capacity by f_σ¹ (Eq. (18)), fp = 0.01, one phase, best `k` for
/// each, against M (10³ to 10⁶ bits; the paper's range is not stated). The f_σ¹ design
/// is simulated on a distinct stream (8 epochs of about 11 cycles): its measured
/// messages per cycle, normalised, are the points (Bonferroni over the figure's two
/// intervals per point: 99% family-wise). The paper: f_w underestimates the
/// capacity by more than 30% at every M; f_a is a good approximation (within 10% here).
///
/// # Errors
/// Only an internal model error.
pub fn figure_6_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let grid: Vec<u64> = match size {
        Size::Paper => vec![
            1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000,
        ],
        Size::Reduced => vec![1_000, 10_000],
    };
    let points: Vec<_> = grid
        .iter()
        .map(|&b| (b, 0.01, (b as f64).log10()))
        .collect();
    capacity_figure(
        o,
        size,
        &points,
        "log10 M (bits)",
        (0.30, 1.0),
        vec!["the paper does not state its range of M; 10^3 to 10^6 bits is used".into()],
    )
}

/// Figure 7 [RBF]: as Figure 6 against the FP target (10⁻⁴ to 0.1) at M = 10⁴ bits (the
/// paper states neither). The paper: f_w underestimates the capacity by around 30%
/// (taken here as 25-35%).
///
/// # Errors
/// Only an internal model error.
pub fn figure_7_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let grid: Vec<f64> = match size {
        Size::Paper => vec![1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1],
        Size::Reduced => vec![1e-3, 0.05],
    };
    let points: Vec<_> = grid.iter().map(|&p| (10_000, p, p.log10())).collect();
    capacity_figure(
        o,
        size,
        &points,
        "log10 fp target",
        (0.25, 0.35),
        vec![
            "the paper states neither M nor its range of fp; M = 10^4 bits and fp from \
             10^-4 to 0.1 are used"
                .into(),
        ],
    )
}

/// Figure 8 [RBF]: capacity (mean new messages per cycle) of the best one-phase design
/// over the best two-phase design with the same total memory (each two-phase filter has
/// M/2 bits), f_σ¹ against f_σ², for M from 2·10³ to 10⁶ bits and fp 10⁻³, 10⁻², 10⁻¹
/// (the paper states neither). At fp = 10⁻² both designs are simulated on distinct
/// streams; the point is the ratio of measured means with the conservative interval
/// `[lo₁/hi₂, hi₁/lo₂]` (Bonferroni over all the intervals: 99% family-wise). The paper:
/// the one-phase RBF holds more (ratio > 1) at every point; its abstract: the two-phase
/// overhead shrinks as the FP target tightens.
///
/// The paper does not define a two-phase RBF's capacity; here it is the mean new
/// messages per cycle of its active filter (the quantity Eqs. (20)-(23) give for one
/// filter), so the ratio is about 3 at fp = 0.01. A two-phase RBF holds between one and
/// two such cycles at a time; counted as two, the ratio halves (about 1.5).
///
/// # Errors
/// Only an internal model error.
pub fn figure_8_sized(o: &Options, size: Size) -> Result<Reproduced, CliError> {
    let (grid, fps, epochs): (Vec<u64>, Vec<f64>, u64) = match size {
        Size::Paper => (
            vec![
                2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000,
            ],
            vec![1e-3, 1e-2, 1e-1],
            8 * o.scale,
        ),
        Size::Reduced => (vec![2_000, 20_000], vec![1e-3, 1e-2, 1e-1], 4),
    };
    let mut out = Reproduced {
        differences: vec![
            "the paper states neither its range of M nor its fp targets; M from 2*10^3 to \
             10^6 bits and fp in {0.001, 0.01, 0.1} are used"
                .into(),
            "the paper does not define a two-phase RBF's capacity; the mean new messages per \
             cycle of its active filter is used (counting the two cycles a two-phase RBF can \
             hold halves the ratio)"
                .into(),
        ],
        ..Reproduced::new(&[
            "bits",
            "fp",
            "k_one",
            "sigma_one",
            "capacity_one",
            "k_two",
            "sigma_two",
            "capacity_two",
            "ratio",
            "measured_ratio",
            "measured_lo",
            "measured_hi",
        ])
    };
    // Two intervals per simulated ratio, one ratio per M: 99% family-wise (Bonferroni).
    let confidence = 1.0 - (1.0 - CONFIDENCE) / (2 * grid.len()) as f64;
    let mut lines: Vec<Vec<(f64, f64)>> = vec![vec![]; fps.len()];
    let mut sim = vec![];
    for (i, &bits) in grid.iter().enumerate() {
        let mut ratios = vec![];
        for (j, &fp) in fps.iter().enumerate() {
            let one =
                design(bits, &RbfRequirement::new(fp, 1).map_err(model_err)?).map_err(model_err)?;
            let two =
                design(bits, &RbfRequirement::new(fp, 2).map_err(model_err)?).map_err(model_err)?;
            let (c1, c2) = (one.metrics.expected_messages, two.metrics.expected_messages);
            let ratio = c1 / c2;
            ratios.push(ratio);
            if ratio <= 1.0 {
                out.differences.push(format!(
                    "M = {bits}, fp = {fp}: the two-phase design holds as much ({c2:.1} \
                     messages per cycle against {c1:.1}; the paper: one phase holds more)"
                ));
            }
            let x = (bits as f64).log10();
            let measured = if fp == 1e-2 {
                let sim_one = |d: &bfopt_models::rbf::RbfDesign, seed: u64| {
                    run(
                        RbfConfig::from_params(&d.params),
                        RbfStream::Distinct,
                        epochs,
                        (11.0 * d.metrics.expected_messages * f64::from(d.params.phases())).ceil()
                            as u64
                            + 100,
                        seed,
                        confidence,
                    )
                };
                let seed = o.seed + 400 + 2 * i as u64;
                let (r1, r2) = (sim_one(&one, seed)?, sim_one(&two, seed + 1)?);
                let (a, b) = (&r1.messages_per_cycle, &r2.messages_per_cycle);
                let m = (
                    x,
                    a.mean / b.mean,
                    a.interval.lo / b.interval.hi,
                    a.interval.hi / b.interval.lo,
                );
                if !(m.2..=m.3).contains(&ratio) {
                    out.differences.push(format!(
                        "M = {bits}, fp = {fp}: ratio {ratio:.4} outside the measured \
                         interval [{:.4}, {:.4}]",
                        m.2, m.3
                    ));
                }
                sim.push(m);
                Some(m)
            } else {
                None
            };
            let cell = |v: Option<f64>| v.map_or(Value::Null, |v| json!(v));
            out.rows.push(vec![
                json!(bits),
                json!(fp),
                json!(one.params.k()),
                json!(one.params.sigma()),
                json!(c1),
                json!(two.params.k()),
                json!(two.params.sigma()),
                json!(c2),
                json!(ratio),
                cell(measured.map(|m| m.1)),
                cell(measured.map(|m| m.2)),
                cell(measured.map(|m| m.3)),
            ]);
            lines[j].push((x, ratio));
        }
        // Abstract: the overhead shrinks as the target tightens (fps ascend).
        if ratios.windows(2).any(|w| w[0] >= w[1]) {
            out.differences.push(format!(
                "M = {bits}: the one- to two-phase ratio does not fall as the FP target \
                 tightens ({ratios:.4?} for fp {fps:?})"
            ));
        }
    }
    let mut series: Vec<Series> = fps
        .iter()
        .zip(lines)
        .map(|(fp, l)| Series::line(format!("fp = {fp}"), l))
        .collect();
    series.push(Series::points(
        "fp = 0.01 simulated, 99% family-wise interval",
        sim,
    ));
    out.plot = Some(Plot::new(
        "log10 M (bits, total)",
        "capacity one-phase / two-phase",
        false,
        series,
    ));
    Ok(out)
}
