//! The two-phase RBF on a stream with repeats: arrivals drawn uniformly from a pool of
//! `P` messages (Section V-A [RBF]: `P = 1000`).
//!
//! Eq. (26) [RBF] assumes each counted arrival is new to both filters and that the
//! active filter `A` and the frozen filter `F` are independent:
//! `f_σ² = ρ_A + ρ_F − ρ_A·ρ_F`. On a pool they are not. A message found only in the
//! frozen filter (a repeat, not counted) is inserted into the active one: it is *copied*,
//! and its bits are set in both filters. A new message is reported seen when all its bits
//! are in `A` or all are in `F`, so
//!
//! ```text
//! fp = ρ_A + ρ_F − P(all k bits in A ∩ F)
//! ```
//!
//! and the copies make `A ∩ F` larger than two independent filters would: the measured
//! rate falls below Eq. (26) (0.8-6.1% on the paper's pool, `tests/agreement/rbf.rs`).
//!
//! # Why the marginals are unchanged
//! The active filter holds `s` messages, drawn from the pool; which of them came from the
//! frozen filter's `s_F` does not change its bits (every message has independent hash
//! positions), so its bit count after `s` insertions and the cycle length in insertions
//! are the chain's (Eqs. (15)-(16) [RBF]). The frozen filter is the active state before
//! the overflowing message, as on a distinct stream (Eqs. (24)-(25)). An insertion into
//! `A` is a uniformly drawn pool message outside `A`; it is a copy with probability
//! `(s_F − c)/(P − s)` when `c` of the `s` are copies, so `E[c] = s·s_F/P` (the copies are
//! a hypergeometric sample) and an insertion is *new* with probability `1 − s_F/P`
//! whatever `s`: new arrivals see the active filter with the chain's law, `ρ_A = f_σ¹`.
//! The frozen law is Eqs. (24)-(25)'s with each frozen state weighted by `1 − s_F/P`
//! (a frozen filter of more messages sees fewer new arrivals in its cycle), which moves
//! `ρ_F` by less than 0.1% here (tested). (Measured, issue 19, `k = 2`, `σ = 500`: mean
//! `ρ_A` over counted arrivals 0.0989 against 0.0984, `ρ_F` 0.2498 against 0.2498.)
//!
//! # Formula
//! The overlap, with `ν(n)` the expected fraction of bits set by `n` messages
//! (`1 − (1 − 1/M)^(kn)` colliding, `1 − (1 − k/M)^n` distinct) and `c = s·s_F/P`
//! copies among the `s` active messages, `j = s − c` new ones:
//!
//! ```text
//! o_pool(s, s_F, f) = M·ν(c) + (f − M·ν(c))·ν(j)   bits of F that A also holds:
//!                                                    the copies' bits (all in F), then
//!                                                    the new messages' hits on the rest
//! o_ind(s, f)       = f·ν(s)                         the same for independent filters
//! P(A ∩ F) = Σ_s w_s Σ_(s_F, f) φ(s_F, f) · [E(ρ(b_A) | s)·ρ(f) + ρ(o_pool) − ρ(o_ind)]
//! ```
//!
//! `w_s` is the share of insertions made with `s` messages in the active filter, `φ` the
//! joint law of the frozen filter's messages and bits; both come from one forward pass of
//! the chain (bits after `s` insertions, stopped at overflow). With no copies
//! (`P → ∞`) the bracket is `E(ρ_A | s)·ρ(f)` and the model is Eq. (26) exactly.
//!
//! # Accuracy
//! Approximations: the copy count at its mean `s·s_F/P` (a hypergeometric count,
//! concentrated), the bits of the copies and of the new messages inside `F` at their
//! means (per-bit independence), and `ρ` of a mean overlap. The correction is the
//! difference of two such plug-ins, so the first-order errors cancel at `P → ∞`. Checked
//! against simulation in `tests/agreement/rbf.rs` (99% intervals, 20+ configurations with
//! the paper's M = 500 and 1000 bits per filter and a pool of 1000).
//!
//! # Scope
//! Non-retaining filters. The pool must be larger than the longest cycle (else it runs
//! out of new messages: every pool message is in one of the filters).

use super::{RbfParams, Recycling};
use crate::error::ModelError;
use crate::numeric::{either, probability, CompensatedSum};
use serde::Serialize;

/// Predicted count-instance FP of a two-phase RBF on a pool stream.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RbfPoolMetrics {
    /// The model: `ρ_A + ρ_F − P(A ∩ F)` with the copies' overlap.
    pub fp_avg: f64,
    /// Eq. (26) [RBF] (independent filters): an upper bound on `fp_avg`.
    pub fp_eq26: f64,
    /// `ρ_A`: a new message's FP in the active filter (f_σ¹, Eq. (18)).
    pub fp_active: f64,
    /// `ρ_F`: a new message's FP in the frozen filter (Eqs. (24)-(25)).
    pub fp_frozen: f64,
    /// `P(all k bits in A ∩ F)`.
    pub fp_both: f64,
    /// Mean share of the active filter's messages copied from the frozen one: `E[s_F]/P`
    /// (over new arrivals).
    pub copy_fraction: f64,
}

/// Largest `(states with mass) × k` summed over a cycle's insertions that
/// [`two_phase_pool`] walks (about a second).
pub const POOL_WORK: f64 = 5e8;

/// Mass below which the tail of a cycle or a frozen state is dropped.
const TAIL: f64 = 1e-15;

/// Expected fraction of `M` bits set by `n` (real) messages: `ν(n)`.
fn nu(p: &RbfParams, n: f64) -> f64 {
    let (m, k) = (p.m() as f64, f64::from(p.k()));
    // (1 − 1/M)^(kn) = exp(kn·ln(1 − 1/M)), and the distinct form likewise.
    let log_stay = match p.hashing() {
        super::Hashing::Colliding => k * (-1.0 / m).ln_1p(),
        super::Hashing::Distinct => (-k / m).ln_1p(),
    };
    -(n * log_stay).exp_m1()
}

/// The count-instance FP of the two-phase non-retaining RBF `p` on arrivals drawn
/// uniformly from a pool of `pool` messages (module docs for the model and its reason).
///
/// # Example
/// The paper's setting of Figure 4 [RBF]: M = 500 bits per filter, k = 3, a pool of 1000.
/// ```
/// use bfopt_models::rbf::{repeats::two_phase_pool, Hashing, RbfParams, Recycling};
/// let p = RbfParams::new(1000, 3, 400, 2, Hashing::Colliding, Recycling::NonRetaining)?;
/// let m = two_phase_pool(&p, 1000)?;
/// assert!(m.fp_avg < m.fp_eq26);
/// # Ok::<(), bfopt_models::error::ModelError>(())
/// ```
///
/// # Errors
/// [`ModelError::InvalidParam`] naming `phases` (one phase: Eq. (18) holds on any
/// stream), `recycling` (retaining is not modelled), `pool` (not larger than the longest
/// cycle) or `sigma` (more than [`POOL_WORK`]).
pub fn two_phase_pool(p: &RbfParams, pool: u64) -> Result<RbfPoolMetrics, ModelError> {
    if p.phases() != 2 {
        return Err(ModelError::invalid(
            "phases",
            p.phases(),
            "2 (one filter sees no copies: Eq. (18) holds on a pool)",
        ));
    }
    if p.recycling() != Recycling::NonRetaining {
        return Err(ModelError::invalid(
            "recycling",
            "retaining",
            "non-retaining (the pool model of a retaining RBF is not derived)",
        ));
    }
    let law = p.law();
    let (sigma, k) = (p.sigma() as usize, p.k() as usize);
    // Forward pass: the bit law after s insertions, stopped at overflow.
    let mut alive = vec![0.0; sigma + 1];
    let mut next = vec![0.0; sigma + 1];
    alive[0] = 1.0;
    let (mut lo, mut hi) = (0usize, 0usize);
    let mut row = vec![0.0; k + 1];
    // Per s: (mass of insertions made with s messages held, Σ mass·ρ(b)).
    let mut steps: Vec<(f64, f64)> = Vec::new();
    // (s_F, f, mass): the frozen filter holds s_F messages and f bits.
    let mut frozen: Vec<(f64, u64, f64)> = Vec::new();
    let mut work = 0.0;
    loop {
        let total: f64 = alive[lo..=hi].iter().sum();
        if total < TAIL {
            break;
        }
        let s = steps.len() as f64;
        let mut erho = CompensatedSum::new();
        next[lo..=(hi + k).min(sigma)].fill(0.0);
        let (mut nlo, mut nhi) = (usize::MAX, 0usize);
        for b in lo..=hi {
            let mass = alive[b];
            if mass == 0.0 {
                continue;
            }
            erho.add(mass * law.rho(b as u64));
            law.new_bits(b as u64, &mut row);
            let mut over = 0.0;
            for (d, q) in row.iter().enumerate() {
                if b + d > sigma {
                    over += mass * q;
                } else if *q > 0.0 {
                    next[b + d] += mass * q;
                    nlo = nlo.min(b + d);
                    nhi = nhi.max(b + d);
                }
            }
            if over > TAIL {
                frozen.push((s, b as u64, over));
            }
        }
        steps.push((total, erho.value()));
        work += ((hi - lo + 1) * (k + 1)) as f64;
        if work > POOL_WORK {
            return Err(ModelError::invalid(
                "sigma",
                p.sigma(),
                format!("a cycle of at most {POOL_WORK:e} state updates in the pool model"),
            ));
        }
        if nlo == usize::MAX {
            break;
        }
        std::mem::swap(&mut alive, &mut next);
        (lo, hi) = (nlo, nhi);
    }
    let longest = steps.len() as u64;
    if pool <= longest {
        return Err(ModelError::invalid(
            "pool",
            pool,
            format!("more than the longest cycle, {longest} messages"),
        ));
    }
    let (m, pf) = (p.m() as f64, pool as f64);
    // A cycle whose frozen filter holds s_F messages takes a share 1 − s_F/P of its
    // insertions as new arrivals: each frozen state counts with that weight.
    for entry in &mut frozen {
        entry.2 *= 1.0 - entry.0 / pf;
    }
    let z: f64 = steps.iter().map(|(t, _)| t).sum();
    let zf: f64 = frozen.iter().map(|(_, _, w)| w).sum();
    let fp_active = steps.iter().map(|(_, e)| e).sum::<f64>() / z;
    let rho = |x: f64| super::transitions::rho_real(law.m, law.k, x, law.hashing);
    let mut fp_frozen = CompensatedSum::new();
    let mut mean_sf = 0.0;
    for &(sf, f, w) in &frozen {
        fp_frozen.add(w / zf * law.rho(f));
        mean_sf += w / zf * sf;
    }
    let fp_frozen = fp_frozen.value();
    let mut both = CompensatedSum::new();
    for (s, &(total, erho)) in steps.iter().enumerate() {
        let s = s as f64;
        let rho_a = erho / total;
        let w = total / z;
        let nu_s = nu(p, s);
        for &(sf, f, wf) in &frozen {
            let f = f as f64;
            let c = s * sf / pf;
            let copied = (m * nu(p, c)).min(f);
            let o_pool = copied + (f - copied) * nu(p, s - c);
            let o_ind = f * nu_s;
            both.add(w * wf / zf * (rho_a * rho(f) + rho(o_pool) - rho(o_ind)));
        }
    }
    let fp_both = both.value();
    let fp = fp_active + fp_frozen - fp_both;
    debug_assert!((0.0..=1.0).contains(&fp), "fp = {fp}");
    Ok(RbfPoolMetrics {
        fp_avg: probability(fp),
        fp_eq26: probability(either(fp_active, fp_frozen)),
        fp_active: probability(fp_active),
        fp_frozen: probability(fp_frozen),
        fp_both: probability(fp_both),
        copy_fraction: mean_sf / pf,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rbf::{Hashing, Method};

    fn two(k: u32, sigma: u64, hashing: Hashing) -> RbfParams {
        RbfParams::new(2000, k, sigma, 2, hashing, Recycling::NonRetaining).unwrap()
    }

    #[test]
    fn marginals_are_the_chains() {
        for hashing in [Hashing::Colliding, Hashing::Distinct] {
            for (k, sigma) in [(2u32, 500u64), (4, 800), (6, 300)] {
                let p = two(k, sigma, hashing);
                let chain = p.metrics(Method::Exact).unwrap();
                let one = RbfParams::new(1000, k, sigma, 1, hashing, Recycling::NonRetaining)
                    .unwrap()
                    .metrics(Method::Exact)
                    .unwrap();
                let m = two_phase_pool(&p, 1000).unwrap();
                let frozen = chain.fp_frozen.unwrap();
                assert!(
                    (m.fp_active - one.fp_avg).abs() < 1e-12
                        && (m.fp_frozen / frozen - 1.0).abs() < 1e-3,
                    "{p:?}: {m:?} vs {chain:?}"
                );
                let huge = two_phase_pool(&p, 1 << 50).unwrap();
                assert!(
                    (huge.fp_frozen - frozen).abs() < 1e-12
                        && (huge.fp_eq26 - chain.fp_avg).abs() < 1e-12,
                    "{p:?}: {huge:?} vs {chain:?}"
                );
            }
        }
    }

    #[test]
    fn a_large_pool_gives_eq26_and_copies_lower_the_rate() {
        let p = two(3, 600, Hashing::Colliding);
        let huge = two_phase_pool(&p, 1 << 40).unwrap();
        assert!((huge.fp_avg / huge.fp_eq26 - 1.0).abs() < 1e-6, "{huge:?}");
        let mut last = 0.0;
        for pool in [600u64, 1000, 3000, 10_000] {
            let m = two_phase_pool(&p, pool).unwrap();
            assert!(m.fp_avg < m.fp_eq26 && m.fp_avg > last, "{pool}: {m:?}");
            last = m.fp_avg;
        }
    }

    #[test]
    fn bad_inputs_name_the_parameter() {
        let one =
            RbfParams::new(1000, 3, 400, 1, Hashing::Colliding, Recycling::NonRetaining).unwrap();
        let ret =
            RbfParams::new(2000, 3, 400, 2, Hashing::Colliding, Recycling::Retaining).unwrap();
        let small = two(3, 400, Hashing::Colliding);
        for (p, pool, name) in [
            (one, 1000, "phases"),
            (ret, 1000, "recycling"),
            (small, 50, "pool"),
        ] {
            match two_phase_pool(&p, pool) {
                Err(ModelError::InvalidParam { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}
