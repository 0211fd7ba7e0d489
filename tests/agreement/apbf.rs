//! APBF / APBBF model against the reference filters (issue 3).

use bfopt_models::apbf::{ApbbfParams, ApbfParams};
use bfopt_validation::agree::Check;
use bfopt_validation::experiments::apbf::{
    agreement, prediction, simulate, ApbfSimConfig, ApbfSimFilter,
};
use bfopt_validation::suite::{self, Level};
use bfopt_validation::workload::Workload;

fn failures(checks: &[Check]) -> String {
    checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn apbf_suite_passes_at_quick_size() {
    let checks = suite::run(Some("apbf"), Level::Quick, 1).unwrap();
    assert!(checks.len() >= 48, "{} checks", checks.len());
    let f = failures(&checks);
    assert!(f.is_empty(), "{f}");
}

/// 16 APBF and 6 APBBF configurations; Bonferroni over every check (α = 0.01 overall).
#[test]
fn model_matches_simulation_across_22_configurations() {
    let apbf = [
        (1, 1),
        (1, 4),
        (2, 2),
        (2, 6),
        (3, 3),
        (3, 9),
        (4, 3),
        (4, 8),
        (5, 7),
        (6, 4),
        (6, 14),
        (7, 5),
        (8, 8),
        (9, 14),
        (10, 7),
        (12, 3),
    ];
    let apbbf = [
        (2, 3, 64, 4),
        (2, 5, 512, 4),
        (3, 5, 64, 4),
        (3, 8, 512, 4),
        (2, 3, 64, 8),
        (1, 4, 128, 2),
    ];
    let w = 600;
    let mut filters: Vec<ApbfSimFilter> = apbf
        .iter()
        .map(|&(k, l)| ApbfSimFilter::Apbf(ApbfParams::new(k, l).unwrap().with_window(w).unwrap()))
        .collect();
    filters.extend(apbbf.iter().map(|&(k, l, bb, b)| {
        ApbfSimFilter::Apbbf(
            ApbbfParams::new(k, l, bb, b)
                .unwrap()
                .with_window(w)
                .unwrap(),
        )
    }));
    assert_eq!(filters.len(), 22);
    let confidence = 1.0 - 0.01 / (filters.len() as f64 * 7.0);
    let mut all = Vec::new();
    for (i, filter) in filters.into_iter().enumerate() {
        let cfg = ApbfSimConfig {
            filter,
            workload: Workload::Distinct,
            epochs: 6,
            generations: 8,
            phases: 4,
            probes: 25,
            seed: 1000 + i as u64,
            confidence,
        };
        all.extend(agreement(&cfg));
    }
    let f = failures(&all);
    assert!(f.is_empty(), "{f}");
}

#[test]
fn measured_worst_case_refutes_the_paper_fills() {
    // SPEC-NOTES "modelling finding": for (10, 7) the real worst case is 22% above the
    // paper's 0.001211; the measured interval must contain the real-fill model and
    // exclude the paper's figure.
    let cfg = ApbfSimConfig {
        filter: ApbfSimFilter::Apbf(ApbfParams::new(10, 7).unwrap().with_window(2000).unwrap()),
        workload: Workload::Distinct,
        epochs: 16,
        generations: 20,
        phases: 1,
        probes: 1,
        seed: 77,
        confidence: 0.999,
    };
    let r = simulate(&cfg).unwrap();
    let p = prediction(&cfg);
    assert!(
        r.worst_fp.interval.contains(p.worst_fp),
        "{:?} vs {}",
        r.worst_fp,
        p.worst_fp
    );
    assert!(
        r.worst_fp.interval.lo > p.worst_fp_paper * 1.1,
        "{:?} vs paper {}",
        r.worst_fp,
        p.worst_fp_paper
    );
    assert_eq!(r.false_negatives, 0);
}

#[test]
fn fp_saw_tooth_follows_the_phase_model() {
    // Figure 6 [APBF]: the FP climbs through a generation and drops at each shift.
    let cfg = ApbfSimConfig {
        filter: ApbfSimFilter::Apbf(ApbfParams::new(4, 3).unwrap().with_window(1000).unwrap()),
        workload: Workload::Distinct,
        epochs: 8,
        generations: 20,
        phases: 6,
        probes: 1,
        seed: 5,
        confidence: 0.999,
    };
    let r = simulate(&cfg).unwrap();
    let p = prediction(&cfg);
    for (&(j, measured), &(_, model)) in r.phase_fp.iter().zip(&p.phase_fp) {
        assert!(
            (measured / model - 1.0).abs() < 0.03,
            "j = {j}: {measured} vs {model}"
        );
    }
    let first = r.phase_fp.first().unwrap().1;
    let last = r.phase_fp.last().unwrap().1;
    assert!(last > 1.2 * first, "no saw-tooth: {first} → {last}");
}

#[test]
fn duplicates_lower_the_fp() {
    // Figures 7-8 [APBF]: with repeats the fills fall and so does the FP; the
    // distinct-stream model is an upper bound.
    let filter = ApbfSimFilter::Apbf(ApbfParams::new(4, 3).unwrap().with_window(1000).unwrap());
    let mut last = f64::INFINITY;
    for d in [0.0, 0.3, 0.6] {
        let cfg = ApbfSimConfig {
            filter,
            workload: if d == 0.0 {
                Workload::Distinct
            } else {
                Workload::Uniform { duplicate_rate: d }
            },
            epochs: 4,
            generations: 10,
            phases: 4,
            probes: 1,
            seed: 9,
            confidence: 0.999,
        };
        let r = simulate(&cfg).unwrap();
        assert!(
            r.average_fp.mean < last,
            "d = {d}: {} !< {last}",
            r.average_fp.mean
        );
        assert_eq!(r.false_negatives, 0);
        last = r.average_fp.mean;
    }
}
