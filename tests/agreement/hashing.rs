//! Regression: in-block indices must behave like independent uniform positions, or a
//! blocked filter's probed FP exceeds the exact FP of its own bits (see
//! `bfopt_validation::hash::scattered`). Both cases failed with double hashing inside
//! the block: +13% (classic, k = 12) and +20% (APBBF, k = 1, b = 8).

use bfopt_models::apbf::ApbbfParams;
use bfopt_models::classic::{ClassicParams, Layout};
use bfopt_validation::experiments::apbf::{agreement, ApbfSimConfig, ApbfSimFilter};
use bfopt_validation::experiments::classic::{simulate, ClassicSimConfig};
use bfopt_validation::workload::Workload;

#[test]
fn blocked_classic_probe_fp_matches_its_state_fp() {
    let (m, k) = (1u64 << 20, 12u32);
    let n = (m as f64 * std::f64::consts::LN_2 / f64::from(k)) as u64;
    let params = ClassicParams::new(m, k, n, Layout::Blocked { block_bits: 512 }).unwrap();
    let r = simulate(&ClassicSimConfig {
        params,
        workload: Workload::Distinct,
        epochs: 4,
        probes: 1_000_000,
        seed: 21,
        confidence: 0.999,
    })
    .unwrap();
    assert!(
        r.probe_fp.interval.contains(r.state_fp.mean),
        "probe {:?} vs state {:?}",
        r.probe_fp,
        r.state_fp
    );
}

#[test]
fn apbbf_with_one_segment_per_insertion_matches_its_model() {
    let p = ApbbfParams::new(1, 3, 512, 8)
        .unwrap()
        .with_window(20_000)
        .unwrap();
    let checks = agreement(&ApbfSimConfig {
        filter: ApbfSimFilter::Apbbf(p),
        workload: Workload::Distinct,
        epochs: 4,
        generations: 4,
        phases: 8,
        probes: 2000,
        seed: 3,
        confidence: 0.999,
    });
    let probe = checks
        .iter()
        .find(|c| c.name.ends_with("probe fp"))
        .unwrap();
    assert!(probe.pass, "{probe}");
}
