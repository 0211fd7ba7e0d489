//! Stable Bloom filter closed form (Deng & Rafiei; Eq. (4) [SBF]).

use super::hp::{self, one, powu, u, REL};
use bfopt_models::stable::SbfParams;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `π0 = (1/(1 + 1/(P(1/K − 1/m))))^Max` and `FP = (1 − π0)^K` over the whole domain
    /// (`m ≤ 2^40`, `K ≤ 64`, `Max ≤ 255`, `1 ≤ P < m`).
    #[test]
    fn stable_point_and_fp_to_1e12(
        m in (1.0f64..40.0).prop_map(|e| 2f64.powf(e) as u64 + 2),
        k in 1u32..=64,
        max in 1u32..=255,
        p_frac in 0.0f64..1.0,
    ) {
        prop_assume!(u64::from(k) < m);
        // P log-uniform over 1..m−1.
        let p = (((m - 1) as f64).powf(p_frac) as u64).clamp(1, m - 1);
        let s = SbfParams::new(m, k, max, p).unwrap();
        let what = || format!("m={m} K={k} Max={max} P={p}");
        let x = one() / (u(p) * (one() / u(u64::from(k)) - one() / u(m)));
        let pi0 = powu(&(one() / (one() + x)), u64::from(max));
        hp::record("sbf stable point", what, s.zero_fraction(), &pi0, REL);
        let fp = powu(&(one() - &pi0), u64::from(k));
        hp::record("sbf fp", what, s.fp(), &fp, REL);
    }
}
