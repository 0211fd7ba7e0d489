//! Table 4 [TBF]: the Pos/Neg ratio `P(I_x < w) / P(I_x ≥ w)` of the next arrival for
//! the four stream conditions of Section 6 (|U| = 2^16).
//!
//! The [Pos≈Neg] rows print the model's value. The [Pos>Neg] rows are counts over the
//! paper's stream of `n = 2^22` queries: they differ from the model in the last digits,
//! by less than two standard errors of a ratio estimated from `n` queries
//! (`sd = √(P(1−P)/n)/(1−P)²`); each such row is reported as a difference with its
//! distance in standard errors.

use super::plot::{Plot, Series};
use super::{Options, Reproduced, Reproduction};
use crate::exit::CliError;
use bfopt_models::printed::{matches_printed, Printing};
use bfopt_models::timing::prior::StreamPrior;
use serde_json::json;

/// Table 4 [TBF].
pub const TABLE_4: Reproduction = Reproduction {
    id: "tbf-table4",
    source: "Table 4 [TBF]",
    title: "Pos/Neg ratio of the four stream conditions, |U| = 2^16",
    build: table_4,
};

/// Stream, `log2 w`, printed Pos/Neg ratio.
pub const TABLE_4_PRINTED: [(&str, u32, &str); 4] = [
    ("uniform", 16, "1.718"),
    ("uniform", 18, "53.547"),
    ("power law", 11, "1.182"),
    ("power law", 18, "13.451"),
];

/// Queries behind the paper's [Pos>Neg] counts.
const STREAM_QUERIES: f64 = 4_194_304.0;

fn table_4(_: &Options) -> Result<Reproduced, CliError> {
    let err = |e| CliError::from_model(e, &[]);
    let mut out = Reproduced {
        columns: ["stream", "log2_w", "pos_in_window", "pos_neg", "printed"]
            .map(String::from)
            .to_vec(),
        ..Reproduced::default()
    };
    let mut points = Vec::new();
    for (i, (stream, log_w, printed)) in TABLE_4_PRINTED.into_iter().enumerate() {
        let prior = match stream {
            "uniform" => StreamPrior::uniform(1 << 16),
            _ => StreamPrior::zipf(1 << 16),
        }
        .map_err(err)?;
        let p = prior.in_window(1 << log_w);
        let ratio = p / (1.0 - p);
        if !matches_printed(ratio, printed, Printing::Rounded) {
            let sd = (p * (1.0 - p) / STREAM_QUERIES).sqrt() / (1.0 - p).powi(2);
            let printed_value: f64 = printed.parse().unwrap_or(f64::NAN);
            out.differences.push(format!(
                "{stream} w = 2^{log_w}: model {ratio:.3}, printed {printed} ({:.2} standard errors of a count over 2^22 queries)",
                (ratio - printed_value).abs() / sd
            ));
        }
        out.rows.push(vec![
            json!(stream),
            json!(log_w),
            json!(p),
            json!(ratio),
            json!(printed),
        ]);
        points.push((i as f64, ratio));
    }
    out.plot = Some(Plot {
        x_label: "condition: uniform 2^16, uniform 2^18, power law 2^11, power law 2^18".into(),
        y_label: "Pos/Neg".into(),
        log_y: true,
        series: vec![Series::line("model", points)],
    });
    Ok(out)
}
