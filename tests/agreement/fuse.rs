use bfopt_models::classic::{design as classic_design, ClassicRequirement, Layout};
use bfopt_models::fuse::{design, FuseLayout, FuseRequirement};
use bfopt_validation::filters::fuse::FuseFilter;
use bfopt_validation::suite::{self, Level};
use bfopt_validation::workload::member;

#[test]
fn fuse_suite_passes_at_quick_size() {
    let checks = suite::run(Some("fuse"), Level::Quick, 1).unwrap();
    assert_eq!(checks.len(), 9);
    crate::assert_all_pass(&checks);
}

/// Sizes at which the segment length `2^⌊ln n / ln 3.33 + 2.25⌋` steps, with their
/// neighbours: where a rounding difference between the model and xorf would show.
fn step_sizes() -> Vec<u64> {
    let mut out = Vec::new();
    for e in 3..=16 {
        let n = 3.33f64.powf(f64::from(e) - 2.25);
        let n = n.round() as u64;
        out.extend([n.saturating_sub(1), n, n + 1]);
    }
    out
}

#[test]
fn slot_count_matches_xorf_at_many_n() {
    // Every n up to 300, the segment-length steps up to 3.4e5, then a geometric sweep to
    // 2e6: the model's slot count is xorf's `fingerprints.len()` exactly.
    let mut sizes: Vec<u64> = (2..=300).collect();
    sizes.extend(
        step_sizes()
            .into_iter()
            .filter(|&n| n > 300 && n <= 2_000_000),
    );
    let mut n = 300.0f64;
    while n < 2e6 {
        n *= 1.37;
        sizes.push(n as u64);
    }
    let mut mismatches = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let keys: Vec<u64> = (0..n).map(|j| member(i as u64, j)).collect();
        let f = if i % 2 == 0 { 8 } else { 16 };
        let filter = FuseFilter::build(f, &keys).unwrap();
        let model = FuseLayout::of(n).slots;
        if filter.slots() != model {
            mismatches.push(format!("n={n}: xorf {} model {model}", filter.slots()));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} sizes differ: {}",
        mismatches.len(),
        sizes.len(),
        mismatches.join("; ")
    );
}

#[test]
fn issue_21_fuse_takes_fewer_bits_than_classic_at_one_percent() {
    let fuse = design(&FuseRequirement::new(0.01, 1_000_000).unwrap()).unwrap();
    let classic =
        classic_design(&ClassicRequirement::new(0.01, 1_000_000, Layout::Standard).unwrap())
            .unwrap();
    let classic_bpi = classic.params.m() as f64 / 1e6;
    assert!(fuse.metrics.bits_per_item < classic_bpi);
    // 8-bit fingerprints, factor 1.125: 9.0 bits per item (plus segment rounding).
    assert!(
        (9.0..9.1).contains(&fuse.metrics.bits_per_item),
        "{}",
        fuse.metrics.bits_per_item
    );
}
