use bfopt_models::classic::Layout;
use bfopt_models::scalable::{Preset, ScalableParams};
use bfopt_validation::experiments::scalable::{simulate, tolerance, ScalableSimConfig};
use bfopt_validation::suite::{self, Level};

#[test]
fn scalable_suite_passes_at_quick_size() {
    let checks = suite::run(Some("scalable"), Level::Quick, 1).unwrap();
    // Three chains of 4-5 links: probe fp, state fp, links, bits each.
    assert_eq!(checks.len(), 12);
    crate::assert_all_pass(&checks);
}

#[test]
fn redisbloom_defaults_over_five_links_agree_at_99_percent() {
    // RedisBloom's r = 0.5, s = 2 from a first link of 300 at a 5% target (so the FP is
    // large enough to measure), grown into its fifth link.
    let params = Preset::RedisBloom
        .params(0.05, 300, Layout::Standard)
        .unwrap();
    let n = 300 * 20;
    let x = params.chain(n).unwrap().at(n).unwrap();
    assert_eq!(x.links, 5);
    let cfg = ScalableSimConfig {
        params,
        n,
        epochs: 10,
        probes: 20_000,
        seed: 5,
        confidence: 0.99,
    };
    let r = simulate(&cfg).unwrap();
    assert_eq!((r.links, r.bits), (x.links, x.memory_bits));
    let tol = tolerance(&x).rel_band;
    let (lo, hi) = (r.state_fp.interval.lo, r.state_fp.interval.hi);
    assert!(
        x.fp >= lo * (1.0 - tol) && x.fp <= hi * (1.0 + tol),
        "predicted {}, state fp {:?}",
        x.fp,
        r.state_fp
    );
    assert!(x.fp <= 0.05);
}

#[test]
fn a_bad_configuration_is_an_error_not_a_panic() {
    let params = ScalableParams::new(1, 0.01, 0.5, 1.0, Layout::Standard).unwrap();
    let cfg = ScalableSimConfig {
        params,
        n: 1000,
        epochs: 2,
        probes: 10,
        seed: 1,
        confidence: 0.99,
    };
    assert!(simulate(&cfg).is_err());
    let cfg = ScalableSimConfig { epochs: 1, ..cfg };
    assert!(simulate(&cfg).unwrap_err().to_string().contains("epochs"));
}
