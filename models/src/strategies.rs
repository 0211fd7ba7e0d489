//! proptest strategies over the valid (and invalid) parameter spaces of every family.

use crate::classic::{ClassicParams, Layout};
use proptest::prelude::*;

/// Any classic layout with a valid block size.
pub fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        Just(Layout::Standard),
        Just(Layout::Partitioned),
        (1u64..=16).prop_map(|w| Layout::Blocked { block_bits: 64 * w }),
    ]
}

/// Valid classic parameters of moderate size (m up to 2^30).
pub fn classic_params() -> impl Strategy<Value = ClassicParams> {
    (layout(), 1u32..=32, 1u64..=(1 << 30), 1u64..=(1 << 24)).prop_filter_map(
        "invalid combination",
        |(layout, k, m, n)| {
            let m = match layout {
                Layout::Blocked { block_bits } => m.div_ceil(block_bits) * block_bits,
                _ => m,
            };
            ClassicParams::new(m, k, n, layout).ok()
        },
    )
}

/// Any `f64`, weighted toward the values that break naive checks.
pub fn nasty_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        Just(f64::MIN_POSITIVE),
        Just(f64::EPSILON),
        any::<f64>(),
    ]
}
