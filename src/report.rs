//! What a verb produces: rows of `{family, params, metrics}`, rendered by every format.

use crate::exit::Exit;
use bfopt_validation::agree::Check;
use bfopt_validation::stats::Interval;
use serde::Serialize;
use serde_json::{Map, Value};

/// One result row. JSON keys are snake_case and stable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The filter family.
    pub family: String,
    /// The inputs (model parameters or requirement).
    pub params: Map<String, Value>,
    /// The outputs.
    pub metrics: Map<String, Value>,
}

impl Row {
    /// A row from any two serializable values (structs become JSON objects).
    pub fn new(family: &str, params: impl Serialize, metrics: impl Serialize) -> Self {
        Self {
            family: family.to_string(),
            params: object(params),
            metrics: object(metrics),
        }
    }

    /// Adds (or replaces) a metric.
    pub fn metric(mut self, key: &str, value: impl Serialize) -> Self {
        self.metrics.insert(key.to_string(), to_value(value));
        self
    }

    /// Adds a measured value and its confidence interval as `key`, `key_lo`, `key_hi`.
    pub fn measured(self, key: &str, value: f64, interval: Interval) -> Self {
        self.metric(key, value)
            .metric(&format!("{key}_lo"), interval.lo)
            .metric(&format!("{key}_hi"), interval.hi)
    }

    /// Adds (or replaces) a parameter.
    pub fn param(mut self, key: &str, value: impl Serialize) -> Self {
        self.params.insert(key.to_string(), to_value(value));
        self
    }
}

fn to_value(v: impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn object(v: impl Serialize) -> Map<String, Value> {
    match to_value(v) {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => Map::from_iter([("value".to_string(), other)]),
    }
}

/// The output of a verb.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The rows.
    pub rows: Vec<Row>,
    /// Whether JSON is a list (multi-row verbs) or a single object.
    pub multi: bool,
    /// The validation checks behind the rows, for JUnit output.
    pub checks: Option<Vec<Check>>,
    /// Lines printed under a table (notes, excluded designs).
    pub notes: Vec<String>,
    /// The exit status of a successful run (1 when a check failed).
    pub exit: Exit,
    /// Text printed as it is, whatever the format (shell completion scripts).
    pub text: Option<String>,
    /// The JSON document, when the verb has its own shape (`recommend`: the plan).
    pub json: Option<serde_json::Value>,
    /// The table, when the verb lays out its own (`recommend`).
    pub table: Option<String>,
    /// A message for standard error (an infeasible `recommend --format json` prints its
    /// object on stdout and says why here).
    pub stderr: Option<String>,
}

impl Report {
    /// A single-row report.
    pub fn single(row: Row) -> Self {
        Self {
            rows: vec![row],
            multi: false,
            checks: None,
            notes: Vec::new(),
            exit: Exit::Ok,
            text: None,
            json: None,
            table: None,
            stderr: None,
        }
    }

    /// Text printed verbatim in every format.
    pub fn text(text: String) -> Self {
        Self {
            text: Some(text),
            ..Self::list(Vec::new())
        }
    }

    /// A multi-row report.
    pub fn list(rows: Vec<Row>) -> Self {
        Self {
            rows,
            multi: true,
            checks: None,
            notes: Vec::new(),
            exit: Exit::Ok,
            text: None,
            json: None,
            table: None,
            stderr: None,
        }
    }

    /// Exit 1 ([`Exit::Disagreement`]) when any row says `agrees: false`, the verdict of
    /// a `simulate` verb comparing its model with the simulation (README: exit 1 is a
    /// model-vs-simulation disagreement).
    pub fn exit_on_disagreement(mut self) -> Self {
        let disagrees = self
            .rows
            .iter()
            .any(|r| r.metrics.get("agrees") == Some(&Value::Bool(false)));
        if disagrees {
            self.exit = Exit::Disagreement;
        }
        self
    }
}
