//! PBF closed forms: Eqs. (3), (4), (14), (15) [PBF].

use super::hp::{self, f, u, F, REL};
use bfopt_models::pbf::{fp_auxiliary, fp_optimal_k, fp_sbf, BoundRequest};
use proptest::prelude::*;

fn ln2() -> F {
    f(2.0).ln()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The space bound `m = n·log2 T·ln(1/(1 − (1 − p)^(1/P)))/ln²2`, `P = 2·log2|q|`
    /// (Eq. (14) [PBF], Appendix form), for `p` from 1e-300 to 0.999.
    #[test]
    fn bound_to_1e12(
        pairs in (0.0f64..50.0).prop_map(|e| 2f64.powf(e) as u64),
        t_exp in 1u32..=40,
        q_frac in 0.0f64..1.0,
        fp_exp in -300.0f64..-0.0005,
    ) {
        let horizon = 1u64 << t_exp;
        let q = ((horizon as f64).powf(q_frac) as u64).clamp(2, horizon);
        let fp = 10f64.powf(fp_exp);
        let b = BoundRequest::new(pairs, horizon, fp, q, 1).unwrap().bound();
        let probes = u(2) * u(q).ln() / ln2();
        // 256 bits cannot hold 1 − 1e-300: the reference needs ln_1p/exp_m1 too.
        let per_probe = -((-f(fp)).ln_1p() / &probes).exp_m1();
        let want = u(pairs) * (u(horizon).ln() / ln2()) * -per_probe.ln() / (ln2() * ln2());
        hp::record("pbf bound", || format!("n={pairs} T={horizon} q={q} fp={fp:e}"), b.bits, &want, REL);
    }

    /// Eq. (3) `0.6185^(m/n) = e^(−ln²2·m/n)`, Eq. (4) `1 − (1 − p)^|q|` and Eq. (15).
    #[test]
    fn single_filter_forms_to_1e12(
        bpi in 0.01f64..1400.0,
        filter_fp_exp in -300.0f64..-0.0005,
        q in 1u64..=1 << 40,
        pairs in 1u64..=1 << 40,
        t_exp in 1u32..=40,
    ) {
        let want = (-(ln2() * ln2()) * f(bpi)).exp();
        hp::record("pbf eq3", || format!("m/n={bpi}"), fp_optimal_k(bpi), &want, REL);
        let p = 10f64.powf(filter_fp_exp);
        let want = -((-f(p)).ln_1p() * u(q)).exp_m1();
        hp::record("pbf eq4", || format!("p={p:e} q={q}"), fp_sbf(p, q), &want, REL);
        let horizon = 1u64 << t_exp;
        let bits = bpi * pairs as f64 * f64::from(t_exp);
        let per = (-(ln2() * ln2()) * f(bits) / (u(pairs) * u(u64::from(t_exp)))).exp();
        let probes = f(2.0 * (q as f64).log2().max(1.0));
        let want = -((-per).ln_1p() * probes).exp_m1();
        hp::record("pbf eq15", || format!("m={bits} n={pairs} T={horizon}"),
            fp_auxiliary(bits, pairs, horizon, 2.0 * (q as f64).log2().max(1.0)), &want, REL);
    }
}
