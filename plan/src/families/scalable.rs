//! Rows for a set whose final count is unknown (`--initial-capacity N0 --max-items
//! NMAX`): scalable Bloom filters that grow from `N0`, sized so that their compound FP
//! meets the target at `NMAX` (bfopt's optimum over `P0, r, s` and per-link `k`, and
//! chains with RedisBloom's and growable-bloom-filters' ratios), beside a classic filter
//! allocated for `NMAX` up front.

use super::{probes, simulation, validator, wrong_shape, Family, Proposal};
use crate::candidate::{AccessUnit, Candidate, FalseNegatives, FpKind, Params, SimRun};
use crate::requirement::{Requirement, Shape};
use bfopt_models::classic::{self, ClassicRequirement, FpLaw, Layout};
use bfopt_models::scalable::{design_and_presets, Preset, ScalableDesign, ScalableRequirement};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::scalable as scalable_sim;

/// The registry entry.
pub(super) const FAMILY: Family = Family {
    name: "scalable",
    propose: scalable,
};

/// bfopt's chain, the two presets' ratios sized for `NMAX`, and the classic filter for
/// `NMAX`.
fn scalable(req: &Requirement) -> Result<Vec<Candidate>, Proposal> {
    let Shape::Growing {
        initial_capacity: n0,
        max_items: n,
    } = *req.shape()
    else {
        return Err(wrong_shape("scalable", "a growing set", req));
    };
    let sreq = ScalableRequirement::new(req.fp(), n0, n, Layout::Standard)?;
    let (best, presets) = design_and_presets(&sreq)?;
    let mut rows = vec![row(
        req.fp(),
        "scalable/bfopt",
        &best,
        "least memory at max_items over P0, r, s and k per link",
    )];
    for (preset, sized) in Preset::ALL.into_iter().zip(presets) {
        let d = sized?;
        let what = match preset {
            Preset::RedisBloom => {
                "RedisBloom's ratios (r = 0.5, EXPANSION 2), P0 sized for max_items"
            }
            Preset::Growable => {
                "growable-bloom-filters' ratios (r = 0.8515625, growth 2), P0 sized for max_items"
            }
        };
        rows.push(row(
            req.fp(),
            &format!("scalable/{}", preset.name()),
            &d,
            what,
        ));
    }
    let c = classic::design(&ClassicRequirement::new(req.fp(), n, Layout::Standard)?)?;
    let mut fixed = super::classic::row(req.fp(), c.params);
    fixed.design = "classic/standard@max".into();
    fixed.notes = vec![format!(
        "allocated for max_items up front: {} bits already at the initial capacity; the least memory at max_items, none of the chain's extra probes",
        c.params.m()
    )];
    rows.push(fixed);
    Ok(rows)
}

/// The candidate row of a sized chain, with its simulation at `NMAX`.
pub(crate) fn row(fp: f64, name: &str, d: &ScalableDesign, what: &str) -> Candidate {
    let (p, x) = (d.params, &d.at_n);
    let label = format!(
        "{name} n0={} p0={:e} r={} s={} n={}: ",
        p.n0(),
        p.p0(),
        p.r(),
        p.s(),
        x.n
    );
    let (n, probes) = (x.n, probes(fp));
    let check = move |run: SimRun| {
        let cfg = scalable_sim::ScalableSimConfig {
            params: p,
            n,
            epochs: super::epochs(run),
            probes,
            seed: run.seed,
            confidence: run.confidence,
        };
        match (
            scalable_sim::simulate(&cfg),
            p.chain(n).and_then(|c| c.at(n)),
        ) {
            (Ok(r), Ok(x)) => scalable_sim::compare(&label, &x, &r, run.confidence, run.seed),
            (Err(e), _) | (_, Err(e)) => {
                vec![Check::error("scalable", format!("{label}{e}"), run.seed)]
            }
        }
    };
    let (validator, not_simulated) = simulation(validator(n, check));
    Candidate {
        family: "scalable",
        design: name.to_string(),
        params: Params::Scalable {
            n0: p.n0(),
            p0: p.p0(),
            r: p.r(),
            s: p.s(),
            links: x.links,
            bits_at_initial: d.at_n0.memory_bits,
        },
        bits: x.memory_bits,
        bits_per_item: 0.0,
        times_limit: 0.0,
        accesses_insert: x.accesses_insert,
        accesses_query: x.accesses_query_false,
        access_unit: AccessUnit::BitProbes,
        false_negatives: FalseNegatives::None,
        slack: 0,
        npws: None,
        fp: x.fp,
        fp_kind: match x.fp_law {
            FpLaw::Exact => FpKind::Exact,
            _ => FpKind::UsualFormula,
        },
        notes: vec![format!(
            "{what}; {} bits at the initial capacity, {} links at max_items; a query asks every link; compound FP 1 - prod(1 - fp_i) at max_items, lower before",
            d.at_n0.memory_bits, x.links
        )],
        not_simulated,
        validator,
    }
}

#[cfg(test)]
mod tests {
    use crate::candidate::{Params, SimRun};
    use crate::Requirement;

    #[test]
    fn growing_set_rows_meet_the_target_and_the_chain_simulates() {
        let req = Requirement::growing(0.01, 10_000, 1_000_000).unwrap();
        let plan = crate::plan(&req).unwrap();
        let designs: Vec<&str> = plan.candidates.iter().map(|c| c.design.as_str()).collect();
        assert_eq!(designs[0], "classic/standard@max", "{designs:?}");
        for d in ["scalable/bfopt", "scalable/redisbloom", "scalable/growable"] {
            assert!(designs.contains(&d), "{designs:?}");
        }
        for c in &plan.candidates {
            assert!(c.fp <= 0.01, "{}", c.design);
            assert!((c.times_limit - c.bits_per_item / 100f64.log2()).abs() < 1e-12);
        }
        let chain = plan
            .candidates
            .iter()
            .find(|c| c.design == "scalable/bfopt")
            .unwrap();
        let Params::Scalable {
            bits_at_initial, ..
        } = chain.params
        else {
            panic!("{:?}", chain.params)
        };
        assert!(bits_at_initial * 10 < plan.candidates[0].bits);
        assert!(
            plan.pick.reason.contains("until the set outgrows"),
            "{}",
            plan.pick.reason
        );
        let checks = chain.validator().unwrap().run(SimRun {
            seed: 1,
            confidence: 0.99,
            scale: 1,
        });
        assert_eq!(checks.len(), 4);
        for c in &checks {
            println!("{c}");
            assert!(c.pass, "{c}");
        }
    }
}
