//! The Generalized Bloom filter row for a window with `allow_fn` (Section 5 [TBF]): it
//! forgets gradually; the least memory whose window-averaged false-negative rate is
//! within the allowance and whose never-inserted FP meets the target.

use super::{
    epochs, needs_allow_fn, probes, simulation, validator, wrong_shape, Family, Proposal, EPOCHS,
};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::Requirement;
use bfopt_models::apbf::WindowDuplicates;
use bfopt_models::gbf::GbfParams;
use bfopt_models::workload::Distinct;
use bfopt_validation::experiments::gbf as gbf_sim;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "gbf",
    propose: gbf,
};

/// Largest `k0`, `k1` tried for the GBF row.
const GBF_K_MAX: u32 = 8;

/// The GBF of least memory for `(fp, w, rate)` on a stream with `D(·)`:
/// `(params, fp, fn)`.
///
/// # Formula
/// Without a stream prior every window item's age is equally likely and out-of-window
/// items are arbitrarily old ([`GbfParams::metrics_flat`]): `fp = π0^k0 (1 − π0)^k1`,
/// `fn = 1 − (1/w) Σ_{i<w} Pos(i)` (Eqs. (28)-(31) [TBF]); on a repeating stream the
/// window's `D(w)` distinct items age by the distinct items after them
/// ([`GbfParams::metrics_flat_on`]). `fn` falls as `m` grows, so the least `m` is found
/// by bisection for each `(k0, k1)`.
pub(crate) fn gbf_design_on(
    fp: f64,
    w: u64,
    rate: f64,
    workload: &Distinct,
) -> Option<(GbfParams, f64, f64)> {
    let mut best: Option<(GbfParams, f64, f64)> = None;
    for k0 in 1..=GBF_K_MAX {
        for k1 in 1..=GBF_K_MAX {
            let ok = |m: u64| {
                GbfParams::new(m, k0, k1)
                    .map(|p| {
                        let x = p.metrics_flat_on(w, workload, None);
                        x.fp <= fp && x.fn_ <= rate
                    })
                    .unwrap_or(false)
            };
            let Some(m) = bfopt_models::numeric::first_true(2, 1 << 40, ok) else {
                continue;
            };
            let Ok(p) = GbfParams::new(m, k0, k1) else {
                continue;
            };
            if best.is_none_or(|(b, _, _)| m < b.m()) {
                let x = p.metrics_flat_on(w, workload, None);
                best = Some((p, x.fp, x.fn_));
            }
        }
    }
    best
}

/// `gbf` row for a window with `allow_fn`.
fn gbf(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Some(w) = req.window_insertions() else {
        return Err(wrong_shape("gbf", "a sliding window", req));
    };
    let Some(rate) = req.allow_fn() else {
        return Err(needs_allow_fn(
            "gbf",
            "gradually: it resets bits as it sets them",
        ));
    };
    // A repeating stream (`--duplicates`): the repeats model's D(·) (Section 5.6.2 [APBF]).
    let repeats = repeats(req, w);
    let workload = repeats.map_or(Distinct::Identity, Distinct::from);
    let (p, ..) = gbf_design_on(req.fp(), w, rate, &workload).ok_or_else(|| {
        Proposal::Excluded(format!(
            "gbf: no k0, k1 <= {GBF_K_MAX} meets fp {} with a window FN within {rate}",
            crate::text::prob(req.fp())
        ))
    })?;
    Ok(vec![row(req.fp(), w, rate, p, repeats)])
}

/// The repeats model of a requirement's `--duplicates` over a window of `w` insertions
/// (Section 5.6.2 [APBF]), if the stream repeats.
pub(crate) fn repeats(req: &Requirement, w: u64) -> Option<WindowDuplicates> {
    req.duplicates()
        .filter(|&d| d > 0.0)
        .and_then(|d| WindowDuplicates::new(d, w).ok())
}

/// The window-averaged FN of `p` over `w` insertions on the stream [`row`] is sized for:
/// distinct, or repeating as `repeats` says (Eqs. (28)-(31) [TBF]).
pub(crate) fn window_fn(p: &GbfParams, w: u64, repeats: Option<WindowDuplicates>) -> f64 {
    let workload = repeats.map_or(Distinct::Identity, Distinct::from);
    p.metrics_flat_on(w, &workload, None).fn_
}

/// The candidate row of GBF `p` over a window of `w` insertions, admitted under the
/// forgetting allowance `rate`: never-inserted FP and window-averaged FN of
/// [`GbfParams::metrics_flat_on`] (Eqs. (28)-(31) [TBF]) on a distinct stream, or on the
/// repeating stream of `repeats`, with its simulation on the same stream (probes sized
/// for the target `fp_target`).
pub(crate) fn row(
    fp_target: f64,
    w: u64,
    rate: f64,
    p: GbfParams,
    repeats: Option<WindowDuplicates>,
) -> Candidate {
    let workload = repeats.map_or(Distinct::Identity, Distinct::from);
    row_on(fp_target, w, rate, p, repeats, &workload)
}

/// [`row`] with its figures on the stream `workload` (a trace's measured `D(·)`): the
/// window FN of [`GbfParams::metrics_flat_on`] over its `D(w)` distinct window items
/// (Eqs. (28)-(31) [TBF]); the simulation stays on the stream of `repeats`.
pub(crate) fn row_on(
    fp_target: f64,
    w: u64,
    rate: f64,
    p: GbfParams,
    repeats: Option<WindowDuplicates>,
    workload: &Distinct,
) -> Candidate {
    let x = p.metrics_flat_on(w, workload, None);
    let (fp, fn_) = (x.fp, x.fn_);
    let k = f64::from(p.k0() + p.k1());
    // The design on a distinct stream: FP of never-inserted keys and FN at a uniform
    // window age, about `probes(fp)` of each per epoch.
    let cfg = gbf_sim::FlatRunConfig {
        params: p,
        w,
        steps: probes(fp_target),
        epochs: EPOCHS,
        seed: 0,
        confidence: 0.99,
    };
    let name = format!(
        "gbf m={} k0={} k1={} w={w} (fn {fn_:.4})",
        p.m(),
        p.k0(),
        p.k1()
    );
    let check = move |run: SimRun| {
        let run_cfg = gbf_sim::FlatRunConfig {
            seed: run.seed,
            confidence: run.confidence,
            epochs: epochs(run),
            ..cfg
        };
        match repeats {
            Some(dup) => gbf_sim::repeats_checks(&name, rate, dup.rate(), &run_cfg),
            None => gbf_sim::flat_checks(&name, rate, &run_cfg),
        }
    };
    let (validator, not_simulated) = simulation(validator(cfg.insertions(), check));
    Candidate {
        family: "gbf",
        design: "gbf".into(),
        params: Params::Gbf {
            m: p.m(),
            k0: p.k0(),
            k1: p.k1(),
        },
        bits: p.m(),
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: k,
        accesses_query: k,
        access_unit: AccessUnit::BitProbes,
        false_negatives: FalseNegatives::AtMost {
            rate,
            of: "window-averaged FN",
        },
        slack: 0,
        npws: None,
        fp,
        fp_kind: FpKind::NeverInserted,
        notes: vec![match repeats {
            Some(dup) => format!(
                "one bit per cell, no bookkeeping; resets as it sets, so it forgets gradually (window FN {fn_:.4}); sized on the stream's D(w) = {:.0} distinct items (repeat rate {})",
                workload.d(w as f64),
                dup.rate()
            ),
            None => format!(
                "one bit per cell, no bookkeeping; resets as it sets, so it forgets gradually (window FN {fn_:.4})"
            ),
        }],
        not_simulated,
        validator,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gbf_row_passes_and_a_wrong_fn_bound_fails() {
        let req = Requirement::window(0.02, 1000)
            .unwrap()
            .with_allow_fn(0.05)
            .unwrap();
        let rows = gbf(&req).ok().unwrap();
        let checks = rows[0].validator().expect("simulated").run(SimRun {
            seed: 3,
            confidence: 0.999,
            scale: 1,
        });
        assert!(
            checks.len() == 3 && checks.iter().all(|k| k.pass),
            "{checks:?}"
        );
        // The same design promised at a third of its FN: the one-sided check fails.
        let (p, _, fn_) = gbf_design_on(0.02, 1000, 0.05, &Distinct::Identity).unwrap();
        let cfg = gbf_sim::FlatRunConfig {
            params: p,
            w: 1000,
            steps: 20_000,
            epochs: 4,
            seed: 3,
            confidence: 0.999,
        };
        let checks = gbf_sim::flat_checks("gbf", fn_ / 3.0, &cfg);
        let failed: Vec<_> = checks.iter().filter(|k| !k.pass).collect();
        assert_eq!(failed.len(), 1, "{checks:?}");
        assert!(failed[0].name.contains("within --allow-fn"));
    }

    /// Issue 19 item 5: on a repeating stream the GBF row is sized on `D(w)` (less memory
    /// than the distinct-stream design), and its simulation on the repeats stream agrees.
    #[test]
    fn issue_19_gbf_row_sized_on_the_repeating_stream() {
        let base = Requirement::window(0.02, 1000)
            .unwrap()
            .with_allow_fn(0.05)
            .unwrap();
        let req = base.clone().with_duplicates(0.5).unwrap();
        let plain = gbf(&base).ok().unwrap();
        let rows = gbf(&req).ok().unwrap();
        assert!(
            rows[0].bits < plain[0].bits,
            "{} vs {}",
            rows[0].bits,
            plain[0].bits
        );
        assert!(rows[0].notes[0].contains("D(w)"), "{:?}", rows[0].notes);
        let checks = rows[0].validator().expect("simulated").run(SimRun {
            seed: 5,
            confidence: 0.999,
            scale: 1,
        });
        assert!(
            checks.len() == 3 && checks.iter().all(|k| k.pass),
            "{checks:?}"
        );
        // The distinct-stream model on the same design and stream is outside the interval:
        // the agreement depends on D(·).
        let Params::Gbf { m, k0, k1 } = rows[0].params else {
            panic!("gbf params")
        };
        let p = GbfParams::new(m, k0, k1).unwrap();
        let cfg = gbf_sim::FlatRunConfig {
            params: p,
            w: 1000,
            steps: 20_000,
            epochs: 4,
            seed: 5,
            confidence: 0.999,
        };
        let measured = gbf_sim::simulate_repeats(&cfg, 0.5).unwrap().fn_;
        let flat = p.metrics_flat(1000, None).fn_;
        assert!(
            flat > measured.interval.hi,
            "distinct-stream fn {flat} vs measured {measured:?}"
        );
    }
}
