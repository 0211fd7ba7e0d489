//! The two recursions of Section 5 [APBF] over a vector of per-slice match
//! probabilities, evaluated as iterative dynamic programmes.
//!
//! Both take `r[i]`, the probability that a non-member's bit in logical slice (or
//! segment) `s_i` is set, `i = 0..k+l`. For an APBF that is the slice's fill ratio; for
//! an APBBF (Section 6 [APBF]) it is the false-positive rate of the segment's blocked
//! filter. A probability of 1 marks a slice that certainly matches (the slices of a
//! window item).

use crate::numeric::probability;

/// `F(k, l, 0, 0)`: the probability that some `k` consecutive slices all match
/// (Section 5.3 [APBF]).
///
/// # Formula
/// ```text
/// F(k,l,a,i) = 1                                          if a = k
///            = 0                                          if i > l + a
///            = r_i F(k,l,a+1,i+1) + (1-r_i) F(k,l,0,i+1)   otherwise
/// ```
/// Section 5.3 [APBF]. The programme sweeps `i` from the last slice down to 0 holding
/// the row `F(·, i+1)` (`k+1` values): `O((k+l)·k)` time, `O(k)` memory, no recursion.
///
/// # Accuracy
/// Exact for independent match events: `F` is multilinear in the `r_i`, so feeding it
/// expected fill ratios of independently hashed slices gives the exact expected FP.
pub fn consecutive_match(r: &[f64], k: usize) -> f64 {
    if k == 0 {
        return 1.0;
    }
    let mut next = vec![0.0; k + 1];
    next[k] = 1.0;
    let mut cur = next.clone();
    for &ri in r.iter().rev() {
        for a in 0..k {
            cur[a] = ri * next[a + 1] + (1.0 - ri) * next[0];
        }
        std::mem::swap(&mut cur, &mut next);
    }
    probability(next[0])
}

/// The natural log of [`consecutive_match`] from the logs of the match probabilities,
/// `ln_r[i] = ln r_i`, in log space: it keeps its relative precision when the FP (or
/// any `r_i`) is below the smallest `f64`.
///
/// # Formula
/// The recursion of [`consecutive_match`] (Section 5.3 [APBF]) with `G = ln F`:
/// ```text
/// G(k,l,a,i) = 0                                                     if a = k
///            = −∞                                                    if i > l + a
///            = LAE(ln r_i + G(k,l,a+1,i+1), ln(1 − r_i) + G(k,l,0,i+1))   otherwise
/// ```
/// (`LAE` the two-term log-sum-exp, `ln(1 − r_i) = ln_1p(−e^(ln r_i))`). Both terms are
/// non-negative: no cancellation.
/// # Numerics
/// Each `G` is carried as an unevaluated sum of two `f64` (`LnPair`): adding the
/// logs of `k + l` slices to a log of magnitude `|G|` would otherwise round by
/// `ε·|G|` at every step (measured 1.0e-12 relative in the FP at `G = −261` over 1088
/// slices); with the pair the error stays near `ε` per step.
pub fn ln_consecutive_match(ln_r: &[f64], k: usize) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let mut next = vec![LnPair::ZERO_PROB; k + 1];
    next[k] = LnPair { hi: 0.0, lo: 0.0 };
    let mut cur = next.clone();
    for &ln_ri in ln_r.iter().rev() {
        let ln_miss = (-ln_ri.exp()).ln_1p();
        for a in 0..k {
            cur[a] = LnPair::log_add_exp(next[a + 1].plus(ln_ri), next[0].plus(ln_miss));
        }
        std::mem::swap(&mut cur, &mut next);
    }
    next[0].value().min(0.0)
}

/// A log carried as `hi + lo` (Knuth's TwoSum), for [`ln_consecutive_match`].
#[derive(Debug, Clone, Copy)]
struct LnPair {
    hi: f64,
    lo: f64,
}

impl LnPair {
    /// `ln 0`.
    const ZERO_PROB: Self = Self {
        hi: f64::NEG_INFINITY,
        lo: 0.0,
    };

    /// `a + b` exactly as `(s, e)`, TwoSum.
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    /// This log plus `x`.
    fn plus(self, x: f64) -> Self {
        if self.hi == f64::NEG_INFINITY || x == f64::NEG_INFINITY {
            return Self::ZERO_PROB;
        }
        let (s, e) = Self::two_sum(self.hi, x);
        let (hi, lo) = Self::two_sum(s, e + self.lo);
        Self { hi, lo }
    }

    /// `ln(e^a + e^b)`.
    fn log_add_exp(a: Self, b: Self) -> Self {
        let (big, small) = if a.value() >= b.value() {
            (a, b)
        } else {
            (b, a)
        };
        if small.hi == f64::NEG_INFINITY {
            return big;
        }
        let d = (small.hi - big.hi) + (small.lo - big.lo);
        big.plus(d.exp().ln_1p())
    }

    fn value(self) -> f64 {
        self.hi + self.lo
    }
}

/// Expected memory accesses of Algorithm 1 [APBF], split by the query's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryAccesses {
    /// Probability that the query returns false, `1 − F`.
    pub p_false: f64,
    /// Probability that it returns true, `F` (carried separately: no cancellation).
    pub p_true: f64,
    /// `E[accesses · 1{false}]`: `A(k, l, 0, 0, 0, l)` of Section 5.4 [APBF].
    pub false_mass: f64,
    /// `E[accesses · 1{true}]`.
    pub true_mass: f64,
}

impl QueryAccesses {
    /// Expected accesses of a query that returns false, `A(k,l,0,0,0,l) / (1 − F)`
    /// (Section 5.4 [APBF]); 0 when the query can never return false.
    pub fn given_false(&self) -> f64 {
        if self.p_false > 0.0 {
            self.false_mass / self.p_false
        } else {
            0.0
        }
    }

    /// Expected accesses of a query that returns true (a false positive, for a
    /// non-member); 0 when it can never return true.
    pub fn given_true(&self) -> f64 {
        if self.p_true > 0.0 {
            self.true_mass / self.p_true
        } else {
            0.0
        }
    }

    /// Expected accesses whatever the answer.
    pub fn total(&self) -> f64 {
        self.false_mass + self.true_mass
    }
}

/// Expected accesses of Algorithm 1 [APBF] (start at slice `l`, count matches `c`,
/// jump `k` slices left on a miss keeping `p := c`, stop when `p + c = k` or `i < 0`).
///
/// # Formula
/// ```text
/// A(k,l,p,c,a,i) = a                                                    if i < 0
///                = 0                                                    if p + c = k
///                = r_i A(k,l,p,c+1,a+1,i+1) + (1-r_i) A(k,l,c,0,a+1,i-k)  otherwise
/// ```
/// Section 5.4 [APBF]; `A(k,l,0,0,0,l)` is [`QueryAccesses::false_mass`]. The analogue
/// for queries that return true scores `a` at `p + c = k` and 0 at `i < 0`.
///
/// # Numerics
/// Instead of carrying the accumulator `a`, each state `σ` holds
/// `(Q, T, E_f, E_t) = (P(false | σ), P(true | σ), E[future accesses·1{false} | σ],
/// E[…·1{true} | σ])` and an access at `σ` adds `Q(child)` to `E_f` and `T(child)` to
/// `E_t`.
/// Writing a state by the start `s = i − c` of its current run, a miss leads to run
/// start `s + c − k < s`, so sweeping `s` upward needs only the run-start states
/// `(p, 0, s')`. Unrolling a run, with `P_c = Π_{c'<c} r_{s+c'}` and `f_c` the miss
/// child at position `c`:
/// ```text
/// Q(p,s)   = Σ_{c<n} P_c (1−r) Q(f_c)                 n = k − p
/// T(p,s)   = Σ_{c<n} P_c (1−r) T(f_c) + P_n
/// E_f(p,s) = Σ_{c<n} P_c (1−r) (E_f(f_c) + (c+1) Q(f_c))
/// E_t(p,s) = Σ_{c<n} P_c (1−r) (E_t(f_c) + (c+1) T(f_c)) + n P_n
/// ```
/// and one prefix sum over `c` serves every `p`: `O(k(k+l))` time and memory.
pub fn query_accesses(r: &[f64], k: usize, l: usize) -> QueryAccesses {
    debug_assert_eq!(r.len(), k + l);
    // (P(false), P(true), E[acc·1{false}], E[acc·1{true}]) from a state onward. Both
    // probabilities are carried so that neither is formed as `1 − other` (a tiny FP
    // would cancel to 0).
    const FALSE: [f64; 4] = [1.0, 0.0, 0.0, 0.0];
    // run_start[(s + k) * k + p] = values of state (p, c = 0, i = s), s in -k..=l.
    let mut run_start = vec![FALSE; (l + k + 1) * k];
    // partial[n] = sums over the first n positions of a run; reach[n] = Π_{c<n} r.
    let mut partial = vec![[0.0; 4]; k + 1];
    let mut reach = vec![1.0; k + 1];
    for s in 0..=l {
        let mut acc = [0.0; 4];
        let mut prod = 1.0;
        for c in 0..k {
            let ri = r[s + c];
            // Miss at position c after c matches (c + 1 accesses in this run); the
            // next run starts at s + c − k (terminal false if negative).
            let f = if s + c >= k {
                run_start[(s + c) * k + c]
            } else {
                FALSE
            };
            let w = prod * (1.0 - ri);
            let n = (c + 1) as f64;
            acc[0] += w * f[0];
            acc[1] += w * f[1];
            acc[2] += w * (f[2] + n * f[0]);
            acc[3] += w * (f[3] + n * f[1]);
            prod *= ri;
            partial[c + 1] = acc;
            reach[c + 1] = prod;
        }
        for p in 0..k {
            // A run from (p, s) ends true after n = k − p matches (n accesses).
            let n = k - p;
            let (part, hit) = (partial[n], reach[n]);
            run_start[(s + k) * k + p] =
                [part[0], part[1] + hit, part[2], part[3] + n as f64 * hit];
        }
    }
    let start = run_start[(l + k) * k];
    QueryAccesses {
        p_false: probability(start[0]),
        p_true: probability(start[1]),
        false_mass: start[2],
        true_mass: start[3],
    }
}

/// Expected accesses of a query for a window item, averaged over its age.
///
/// An item inserted `j` generations before the current one has slices `j..j+k−1` set,
/// so they match with probability 1; the query always returns true. The average is
/// taken uniformly over `j = 0..l−1` (the reading that reproduces Table 2 [APBF]; see
/// `docs/errata.md`).
///
/// # Numerics
/// Run starts `(p, s)` of Algorithm 1 strictly descend, and a run from `s` examines
/// only slices `≥ s`. So one forward pass over the filter *without* the item gives,
/// for every run start, the probability `A` of reaching it and the accesses spent
/// getting there `B`; for item `j` the path is that of the unforced filter until it
/// first lands in the zone `s ∈ [j, j+k−1]` (a jump moves at most `k` down, so it
/// cannot skip the zone), landing at `(c, j+u)` only from `s' = j+u+k−c ≥ j+k`, i.e.
/// `c ≤ u`. From a zone state the rest is closed-form: the forced slices `s..j+k−1`
/// match; if `p ≥ u` the query ends after `k − p` accesses, else it needs `u − p`
/// more matches above the zone (probability `q = Π r` over them) and otherwise misses
/// and lands on a zone state that ends at once, `k + 1` accesses in all:
/// ```text
/// W_j(p, u) = k − p                                   p ≥ u
///           = (k + 1)(1 − q) + (k − p)·q              p < u
/// T_j = Σ_{s' ≥ j+k} (true endings above the zone)
///     + Σ_{u<k} Σ_{c≤u} [B_in + A_in·(c + 1) + A_in·W_j(c, u)](c, j+u)
/// ```
/// (`T_j = W_j(0, l − j)` when the start `l` is itself in the zone). `O(l·k²)` in all
/// against `O(l·(l+k)·k)` item by item ([`window_accesses_by_item`], equal to 1e-12,
/// tested).
pub fn window_accesses(r: &[f64], k: usize, l: usize) -> f64 {
    debug_assert_eq!(r.len(), k + l);
    let idx = |s: usize, p: usize| s * k + p;
    // Forward masses of run starts (p, s) of the filter without the item.
    let mut a = vec![0.0; (l + 1) * k];
    let mut b = vec![0.0; (l + 1) * k];
    // Inflow into (c, s) from its unique source s + k − c: reach and prior accesses.
    let mut a_in = vec![0.0; (l + 1) * k];
    let mut b_in = vec![0.0; (l + 1) * k];
    // Suffix sums over s' ≥ s of the accesses of queries that end true from s'.
    let mut true_from = vec![0.0; l + 2];
    a[idx(l, 0)] = 1.0;
    let (mut a_cum, mut b_cum) = (vec![0.0; k + 1], vec![0.0; k + 1]);
    let mut tau = vec![1.0; k + 1];
    for s1 in (0..=l).rev() {
        for p in 0..k {
            a_cum[p + 1] = a_cum[p] + a[idx(s1, p)];
            b_cum[p + 1] = b_cum[p] + b[idx(s1, p)];
        }
        let mut prod = 1.0;
        for c in 0..k {
            let ri = r[s1 + c];
            if s1 + c >= k {
                // First miss at c (c + 1 accesses) from every (p', s1) with p' < k − c.
                let s = s1 + c - k;
                let w = prod * (1.0 - ri);
                let (am, bm) = (w * a_cum[k - c], w * b_cum[k - c]);
                a_in[idx(s, c)] = am;
                b_in[idx(s, c)] = bm;
                a[idx(s, c)] += am;
                b[idx(s, c)] += bm + (c + 1) as f64 * am;
            }
            prod *= ri;
            tau[c + 1] = prod;
        }
        let ended: f64 = (0..k)
            .map(|p| tau[k - p] * (b[idx(s1, p)] + (k - p) as f64 * a[idx(s1, p)]))
            .sum();
        true_from[s1] = true_from[s1 + 1] + ended;
    }
    let mut q = vec![1.0; k];
    let mut sum = 0.0;
    for j in 0..l {
        // q[x] = Π_{t<x} r[j+k+t]: the slices above the zone (within the filter).
        for x in 1..k {
            let i = j + k + x - 1;
            q[x] = if i < r.len() { q[x - 1] * r[i] } else { 0.0 };
        }
        let w = |p: usize, u: usize| -> f64 {
            if p >= u {
                (k - p) as f64
            } else {
                let qq = q[u - p];
                (k + 1) as f64 * (1.0 - qq) + (k - p) as f64 * qq
            }
        };
        if l < j + k {
            sum += w(0, l - j);
            continue;
        }
        let mut t = true_from[j + k];
        for u in 0..k {
            let s = j + u;
            for c in 0..=u {
                let (am, bm) = (a_in[idx(s, c)], b_in[idx(s, c)]);
                t += bm + am * ((c + 1) as f64 + w(c, u));
            }
        }
        sum += t;
    }
    sum / l as f64
}

/// [`window_accesses`] item by item: the reference it is tested against.
///
/// An item inserted `j` generations before the current one has slices `j..j+k−1` set,
/// so they match with probability 1; the query always returns true. The average is
/// taken uniformly over `j = 0..l−1` (the reading that reproduces Table 2 [APBF]; see
/// `docs/errata.md`).
///
/// # Numerics
/// The query always succeeds, so one value per state suffices: the expected accesses
/// still to come, `T = 1 + r_i T(match) + (1 − r_i) T(miss)`, 0 at either end. A
/// run-start state `(p, s)` only ever examines slices below `s + k`, so for item `j`
/// every `s < j − k + 1` keeps its unforced value: sweeping `j` downward, each item
/// recomputes only `s ≥ j − k + 1`, each in `O(k)` (the chains of all `p` share one
/// prefix sum): `O(l·(l + k)·k)` in all. Equal to [`query_accesses`] with the forced fills
/// (tested to 1e-12).
///
/// # Cost
/// Quadratic in `l`: 0.7 s at `(1, 4096)` and 8 s at `(64, 4096)` (measured, opt-level
/// 2, loaded machine).
pub fn window_accesses_by_item(r: &[f64], k: usize, l: usize) -> f64 {
    debug_assert_eq!(r.len(), k + l);
    let mut forced = r.to_vec();
    // run_start[(s + k) * k + p]: expected remaining accesses from run start (p, s).
    let mut run_start = vec![0.0; (l + k + 1) * k];
    let mut partial = vec![0.0; k + 1];
    let mut sum = 0.0;
    for j in (0..l).rev() {
        forced[j..j + k].iter_mut().for_each(|x| *x = 1.0);
        if j + k < forced.len() {
            forced[j + k] = r[j + k];
        }
        for s in (j + 1).saturating_sub(k)..=l {
            // T_p = Σ_{c < k−p} (1 + (1 − r_c) miss_c) Π_{c' < c} r_c': the chain of a
            // run start does not depend on p except where it ends, so one prefix sum
            // serves every p.
            let (mut prod, mut acc) = (1.0, 0.0);
            for c in 0..k {
                let ri = forced[s + c];
                let miss = if s + c >= k {
                    run_start[(s + c) * k + c]
                } else {
                    0.0
                };
                acc += prod * (1.0 + (1.0 - ri) * miss);
                prod *= ri;
                partial[c + 1] = acc;
            }
            for p in 0..k {
                run_start[(s + k) * k + p] = partial[k - p];
            }
        }
        sum += run_start[(l + k) * k];
    }
    sum / l as f64
}

/// `F` of every prefix of the slices: element `n − k` is `F` over `r[..n]`, for
/// `n = k..=r.len()` — with the tail slices of an APBF all alike, the FP of every
/// `l` in one sweep.
///
/// # Formula
/// The same event as [`consecutive_match`] (some `k` consecutive matches), scanned
/// forward: `v_a` = P(current run of `a` matches, none complete yet);
/// slice `i` moves `r_i v_a` to `a + 1` (absorbed at `k`) and `(1 − r_i) Σ v` to 0.
/// `O(k·n)` for all prefixes together.
///
/// The sweep stops after the first prefix whose `F` exceeds `limit` (that one
/// included; `f64::INFINITY` for all): `F` only grows with the prefix, so the optimizer
/// needs no more.
pub fn consecutive_match_prefixes_upto(r: &[f64], k: usize, limit: f64) -> Vec<f64> {
    let mut v = vec![0.0; k.max(1)];
    v[0] = 1.0;
    let mut absorbed = 0.0;
    let mut out = Vec::with_capacity(r.len().saturating_sub(k) + 1);
    if k == 0 {
        return vec![1.0; r.len() + 1];
    }
    for (i, &ri) in r.iter().enumerate() {
        let alive: f64 = v.iter().sum();
        absorbed += ri * v[k - 1];
        for a in (1..k).rev() {
            v[a] = ri * v[a - 1];
        }
        v[0] = (1.0 - ri) * alive;
        if i + 1 >= k {
            out.push(probability(absorbed));
            if absorbed > limit {
                break;
            }
        }
    }
    out
}

/// The probability that Algorithm 1 [APBF] reports an item whose slices `present`
/// (a range of logical indices) are certainly set, other slices matching with `r_i`.
pub fn report_probability(r: &[f64], k: usize, present: std::ops::Range<usize>) -> f64 {
    let mut forced = r.to_vec();
    let end = present.end.min(r.len());
    if present.start < end {
        forced[present.start..end].iter_mut().for_each(|x| *x = 1.0);
    }
    consecutive_match(&forced, k)
}
