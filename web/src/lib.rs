//! bfopt in the browser: the planner ([`bfopt_plan::plan`]), the classic calculator and
//! the simulations, compiled to WebAssembly with wasm-bindgen.
//!
//! Every export takes a JSON object of strings keyed by the CLI's flag names (the page's
//! URL query string, `{"fp": "0.01", "window": "1e6", "max-accesses": "8"}`) and returns
//! JSON text: numbers are parsed by the CLI's own parsers (`src/units.rs`) and checked by
//! the library, and a bad value comes back keyed by its field with the text the CLI prints
//! (`--max-accesses = 0.5: allowed ...`). Nothing here decides anything: the planner ranks
//! and picks, the classic module sizes.

pub mod calculator;
pub mod curves;
pub mod query;

/// The CLI's parsers of counts, reals and memory sizes, compiled from the CLI's own file
/// so that the page accepts and rejects exactly what `bfopt` does.
#[allow(dead_code)]
#[path = "../../src/units.rs"]
mod units;

/// The CLI's error type, compiled from the CLI's own file: its `Display` is the message
/// `bfopt` prints after `error: `.
#[allow(dead_code)]
#[path = "../../src/exit.rs"]
mod exit;

use wasm_bindgen::prelude::*;

/// `recommend`: the query's requirement planned; see [`query::recommend`].
#[wasm_bindgen]
pub fn recommend(query: &str) -> String {
    query::recommend(query).to_string()
}

/// The classic calculator: three of n, p, m, k give the fourth; see
/// [`calculator::classic`].
#[wasm_bindgen]
pub fn classic(query: &str) -> String {
    calculator::classic(query).to_string()
}

/// The plot series of a query: bits per item against the FP target for every family;
/// see [`curves::bits_against_fp`].
#[wasm_bindgen]
pub fn series(query: &str) -> String {
    curves::bits_against_fp(query).to_string()
}

/// FP over one generation of candidate `index` of the query's plan; see
/// [`curves::fp_over_generation`].
#[wasm_bindgen]
pub fn cycle(query: &str, index: usize) -> String {
    curves::fp_over_generation(query, index).to_string()
}

/// Simulates candidate `index` of the query's plan with base seed `seed`; see
/// [`query::simulate`]. In the browser every finished epoch calls
/// `globalThis.bfoptProgress(done, total, label)` when the worker defines it.
#[wasm_bindgen]
pub fn simulate(query: &str, index: usize, seed: u64) -> String {
    #[cfg(target_arch = "wasm32")]
    bfopt_validation::sim::set_observer(Some(progress::report));
    let out = query::simulate(query, index, seed).to_string();
    #[cfg(target_arch = "wasm32")]
    bfopt_validation::sim::set_observer(None);
    out
}

/// The simulation's progress, handed to the page's worker.
#[cfg(target_arch = "wasm32")]
mod progress {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// The worker's hook; an error (no such function) is ignored.
        #[wasm_bindgen(js_namespace = globalThis, js_name = bfoptProgress, catch)]
        fn hook(done: f64, total: f64, label: &str) -> Result<(), JsValue>;
    }

    /// Tells the worker that epoch `done` of `total` of the run `label` finished.
    pub fn report(done: u64, total: u64, label: &str) {
        let _ = hook(done as f64, total as f64, label);
    }
}
