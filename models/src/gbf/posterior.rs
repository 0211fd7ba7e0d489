//! The inferential GBF's sliding-window posterior, Section 5.3 [TBF], exact and stable
//! for every `k` up to 64.
//!
//! The likelihood of Eq. (32) [TBF] is a product of powers of linear functions of
//! `t = q_ε^i`, `L(t) = Π_j (a_j + b_j t)^(n_j)`, each factor non-negative on `[0, 1]`.
//! Eq. (34) expands it into powers of `t` and sums geometric series; the expansion's
//! coefficients alternate in sign and reach `C(2k, k)`, so in double precision the sums
//! cancel catastrophically from `k ≈ 16` (the paper sees posteriors outside `[0, 1]`
//! near `k = 30`).
//!
//! # Numerics
//! [`window_posterior`] splits the age axis at `i0`, the first age with
//! `n·t <= 0.05` (`n = Σ n_j`): below `i0` it sums the non-negative terms
//! `(1−p)^i L(q_ε^i)` directly (compensated); from `i0` on it uses the expansion, whose
//! terms there decay like `0.05^s / s!`, so no cancellation remains. The cost is `i0`
//! evaluations, about `ln(20n)/(−ln q_ε)`; when the plain Eq. (34) is well conditioned
//! (its rounding bound, [`eq34_is_accurate`], below 1e-13 relative) it is used directly.
//!
//! The direct part grows with `m/k` (1.3e11 ages at `m = 2^40`, `k = 30`). Where it
//! exceeds [`WIDE_FROM_AGES`] ages, Eq. (34) is instead evaluated in extended precision
//! ([`window_posterior_wide`]): its coefficients depend on `k` only, so the cost is
//! `O(n²)` multiplications at about `log2 κ + 60` bits whatever `m` (issue 18), and the
//! rounding bound at that precision keeps 1e-13 relative.

use crate::error::ModelError;
use crate::numeric::CompensatedSum;
use dashu_float::round::mode::HalfEven;
use dashu_float::FBig;

/// A likelihood `Π_j (a_j + b_j t)^(n_j)` in `t = q_ε^i`.
#[derive(Debug, Clone, PartialEq)]
pub struct TLikelihood {
    factors: Vec<(f64, f64, u32)>,
}

impl TLikelihood {
    /// From factors `(a, b, n)`: `(a + b t)^n`, each non-negative on `[0, 1]`.
    pub fn new(factors: Vec<(f64, f64, u32)>) -> Self {
        Self {
            factors: factors.into_iter().filter(|f| f.2 > 0).collect(),
        }
    }

    /// The balanced form of Eq. (33)-(34) [TBF]: `(1 + t)^d (1 − t)^e` (the constant
    /// `2^−(d+e)` cancels in the posterior).
    pub fn balanced(d: u32, e: u32) -> Self {
        Self::new(vec![(1.0, 1.0, d), (1.0, -1.0, e)])
    }

    /// `ln L(t)` (`-inf` where a factor is 0).
    pub fn ln_at(&self, t: f64) -> f64 {
        self.factors
            .iter()
            .map(|&(a, b, n)| f64::from(n) * (a + b * t).max(0.0).ln())
            .sum()
    }

    /// `L(t)`.
    pub fn at(&self, t: f64) -> f64 {
        self.factors
            .iter()
            .map(|&(a, b, n)| (a + b * t).max(0.0).powi(n as i32))
            .product()
    }

    /// `L(t)` at `t = e^(ln_t)`. A factor `a + b·t` with `b = −a` is formed as
    /// `−a·expm1(ln_t)`: from a rounded `t ≈ 1` (ages young against `m/k`) `a(1 − t)`
    /// keeps only `ε/(1 − t)` relative accuracy (2.6e-11 in a posterior at
    /// `m = 7·10^6`, issue 17's precision test).
    pub fn at_ln(&self, ln_t: f64) -> f64 {
        let t = ln_t.exp();
        self.factors
            .iter()
            .map(|&(a, b, n)| factor(a, b, t, ln_t).max(0.0).powi(n as i32))
            .product()
    }

    /// `ln L(t)` at `t = e^(ln_t)`, as [`Self::at_ln`] (`-inf` where a factor is 0).
    pub fn ln_at_ln(&self, ln_t: f64) -> f64 {
        let t = ln_t.exp();
        self.factors
            .iter()
            .map(|&(a, b, n)| f64::from(n) * factor(a, b, t, ln_t).max(0.0).ln())
            .sum()
    }

    /// Total degree `n = Σ n_j`.
    pub fn degree(&self) -> u32 {
        self.factors.iter().map(|f| f.2).sum()
    }

    /// The coefficients of `L` in powers of `t` (for the balanced form, `C^s_{d,e}`).
    pub fn coefficients(&self) -> Vec<f64> {
        expand(self.factors.iter().copied())
    }

    /// The coefficients of `Π_j (|a_j| + |b_j| t)^(n_j)`: they bound the rounding of
    /// [`Self::coefficients`] (each computed coefficient is within `γ_n` times its
    /// counterpart here, `γ_n = n·u/(1 − n·u)`, `u = 2^-53`).
    pub fn abs_coefficients(&self) -> Vec<f64> {
        expand(self.factors.iter().map(|&(a, b, n)| (a.abs(), b.abs(), n)))
    }
}

/// The coefficients of `Π (a + b t)^n` in powers of `t`.
fn expand(factors: impl Iterator<Item = (f64, f64, u32)>) -> Vec<f64> {
    let mut c = vec![1.0];
    for (a, b, n) in factors {
        for _ in 0..n {
            let mut next = vec![0.0; c.len() + 1];
            for (s, &v) in c.iter().enumerate() {
                next[s] += a * v;
                next[s + 1] += b * v;
            }
            c = next;
        }
    }
    c
}

/// One factor `a + b·t` of a [`TLikelihood`], `a(1 − t)` without cancellation.
fn factor(a: f64, b: f64, t: f64, ln_t: f64) -> f64 {
    if b == -a {
        -a * ln_t.exp_m1()
    } else {
        a + b * t
    }
}

/// `C^s_{d,e}` exactly: the coefficient of `x^s` in `(1 + x)^d (1 − x)^e` (Eq. (34)
/// [TBF]; both printed sums agree). Exact in `i128` for `d + e <= 128`.
pub fn c_coefficients(d: u32, e: u32) -> Vec<i128> {
    let binom = |n: u32| -> Vec<i128> {
        let mut v = vec![1i128; n as usize + 1];
        for j in 1..=n as usize {
            v[j] = v[j - 1] * (n as i128 - j as i128 + 1) / j as i128;
        }
        v
    };
    let (bd, be) = (binom(d), binom(e));
    (0..=(d + e) as usize)
        .map(|s| {
            (0..=s)
                .filter(|&l| l <= d as usize && s - l <= e as usize)
                .map(|l| {
                    let sign = if (s - l) % 2 == 0 { 1 } else { -1 };
                    sign * bd[l] * be[s - l]
                })
                .sum()
        })
        .collect()
}

/// Eq. (34) [TBF] as printed, in double precision: `Ψ_w / Ψ_∞` with
/// `Ψ_η = Σ_s C_s (1 − x_s^η)/(1 − x_s)`, `x_s = (1−p) q_ε^s`; also returns the condition
/// number `κ = Σ_s C̃_s |y_s| / |Σ_s C_s y_s|` of the numerator and the denominator (the
/// worse one), `y_s` the geometric sums and `C̃_s` the coefficients of the likelihood
/// with every factor's terms made positive ([`TLikelihood::abs_coefficients`]). `C̃`
/// rather than `|C|` because the expansion's own rounding is relative to `C̃`: in a
/// posterior with `κ = 16` by `|C|` (`m = 64`, `k0 = 29`, `k1 = 62`, 33 factors), `C̃`
/// gives 3·10^5 and the plain sum was off by 5.6e-12 relative. See [`eq34_is_accurate`].
pub fn window_posterior_eq34(lik: &TLikelihood, q_eps: f64, px: f64, w: u64) -> (f64, f64) {
    window_posterior_eq34_ln(lik, q_eps.ln(), px, w)
}

/// [`window_posterior_eq34`] given `ln q_ε` (which a caller can form without rounding
/// `q_ε = 1 − O(k/m)` first: `ln` of the rounded value is off by `ε·m/k` relative).
pub fn window_posterior_eq34_ln(lik: &TLikelihood, ln_q: f64, px: f64, w: u64) -> (f64, f64) {
    let coef = lik.coefficients();
    let bound = lik.abs_coefficients();
    let ln_s = (-px).ln_1p();
    let (mut num, mut den) = (CompensatedSum::new(), CompensatedSum::new());
    let (mut num_abs, mut den_abs) = (0.0, 0.0);
    for (s, (&c, &c_abs)) in coef.iter().zip(&bound).enumerate() {
        let ln_x = ln_s + s as f64 * ln_q;
        let one_minus_x = -ln_x.exp_m1();
        let full = 1.0 / one_minus_x;
        let part = -(w as f64 * ln_x).exp_m1() / one_minus_x;
        den.add(c * full);
        num.add(c * part);
        den_abs += c_abs * full;
        num_abs += c_abs * part;
    }
    let (n, d) = (num.value(), den.value());
    let kappa = (num_abs / n.abs()).max(den_abs / d.abs());
    (n / d, kappa)
}

/// Largest relative error accepted from Eq. (34) in double precision (a tenth of the
/// 1e-12 that `models/tests/precision/gbf.rs` requires).
const EQ34_MAX_ERROR: f64 = 1e-13;

/// Whether Eq. (34) in double precision, with condition number `kappa` (from
/// [`window_posterior_eq34`]), is within [`EQ34_MAX_ERROR`] relative: the standard bound
/// for an expansion of `n` factors summed with a few more roundings, `γ_(n+4)·κ`,
/// `γ_j = j·u/(1 − j·u)`, `u = 2^-53` (measured errors sit 10-1000 times below it).
pub fn eq34_is_accurate(lik: &TLikelihood, kappa: f64) -> bool {
    let u = f64::EPSILON / 2.0;
    let j = f64::from(lik.degree() + 4);
    kappa.is_finite() && j * u / (1.0 - j * u) * kappa <= EQ34_MAX_ERROR
}

/// The stable posterior `P(I_x < w | R_x) = Σ_{i<w} (1−p)^i L(q_ε^i) / Σ_i (1−p)^i L(q_ε^i)`
/// (Eq. (9) with Eq. (32) [TBF]); see the module doc for the method.
///
/// # Accuracy
/// Below 1e-9 absolute against the direct summation [`window_posterior_direct`] for
/// random `(d, e, p, q_ε)` and `k` up to 64 (tested), where Eq. (34) in double precision
/// is off by up to 10^20. Against a 2048-bit evaluation (`models/tests/precision/gbf.rs`,
/// via [`window_posterior_ln`], `m` up to 2^40): 1e-12 relative on every route (Eq. (34)
/// in double, ages summed one by one, Eq. (34) in extended precision).
///
/// # Cost
/// Independent of `m`: Eq. (34) in double (`O(n²)`), the direct head when it is at
/// most [`WIDE_FROM_AGES`] ages, else Eq. (34) in extended precision (`benches/gbf.rs`,
/// group `gbf_m`). Only if 8192 bits do not suffice does the route fall back to
/// [`window_posterior_ages`] (ages grouped into pieces beyond 2^20: `m = 2^40`,
/// `k0 = k1 = 64`, `p_x = 10^-12`, `w = 10^12` took 0.3 s there, 1e-6 relative).
///
/// # Numerics
/// The direct part is accumulated relative to its largest term (log scale), so an
/// evidence below the smallest double (e.g. `(1 − t)^128` at young ages of a huge
/// filter) still gives its ratio instead of `0/0`. `p_x = 1` (every arrival is `x`)
/// gives 1, or 0 for an observation impossible at age 0.
pub fn window_posterior(lik: &TLikelihood, q_eps: f64, px: f64, w: u64) -> f64 {
    window_posterior_ln(lik, q_eps.ln(), px, w)
}

/// [`window_posterior`] given `ln q_ε`, e.g. `(k0 + k1)·ln_1p(−1/m)`: `q_ε` rounded to
/// `f64` and then logged loses `ε·m/(k0 + k1)` relative (2e-8 in the posterior at
/// `m = 6·10^8`, issue 17's precision test).
pub fn window_posterior_ln(lik: &TLikelihood, ln_q: f64, px: f64, w: u64) -> f64 {
    // Uncharged, the route never fails; the fallback only keeps this free of a panic.
    routed(lik, ln_q, px, w, false).unwrap_or_else(|_| window_posterior_ages(lik, ln_q, px, w))
}

/// [`window_posterior_ln`], its extended-precision and age-by-age routes paid from the
/// work allowance in force ([`crate::budget`]; a no-op without one).
///
/// # Errors
/// [`ModelError::WorkLimit`] when the route needs more than is left.
pub fn window_posterior_ln_charged(
    lik: &TLikelihood,
    ln_q: f64,
    px: f64,
    w: u64,
) -> Result<f64, ModelError> {
    routed(lik, ln_q, px, w, crate::budget::left().is_some())
}

/// The route of [`window_posterior_ln`] (its doc), charging the allowance when `charged`.
fn routed(lik: &TLikelihood, ln_q: f64, px: f64, w: u64, charged: bool) -> Result<f64, ModelError> {
    if px >= 1.0 {
        // Every arrival is x: I_x = 0 (t = 1); an observation impossible there gets 0.
        return Ok(if lik.at(1.0) > 0.0 { 1.0 } else { 0.0 });
    }
    let (plain, kappa) = window_posterior_eq34_ln(lik, ln_q, px, w);
    if eq34_is_accurate(lik, kappa) && plain.is_finite() {
        return Ok(plain.clamp(0.0, 1.0));
    }
    let head = head_ages(lik, ln_q);
    if head > WIDE_FROM_AGES {
        if let Some(post) = wide_at_rising_precision(lik, ln_q, px, w, kappa, charged)? {
            return Ok(post.clamp(0.0, 1.0));
        }
    }
    if charged {
        // One evaluation of L per age up to 2^20 ages, then pieces (see
        // `window_posterior_ages`): at most about n·ln(i0)/1e-3 of them.
        let n = f64::from(lik.degree().max(1));
        let ages = (head as f64).min(f64::from(1 << 20) + n * (head as f64).ln() * 1e3);
        crate::budget::spend(ages * n, "the GBF posterior's age-by-age sum")?;
    }
    Ok(window_posterior_ages(lik, ln_q, px, w))
}

/// `i0`, the first age with `n·q_ε^i <= 0.05` (`n` the likelihood's degree): the ages
/// [`window_posterior_ages`] sums one by one (or in pieces) before Eq. (34) takes over.
pub fn head_ages(lik: &TLikelihood, ln_q: f64) -> u64 {
    let n = lik.degree().max(1) as f64;
    ((0.05 / n).ln() / ln_q).ceil().max(0.0) as u64
}

/// The posterior with the ages below [`head_ages`] summed directly (grouped into pieces
/// beyond 2^20 of them) and Eq. (34) from there on, where it no longer cancels (the
/// module doc); the route [`window_posterior_ln`] takes when Eq. (34) in double precision
/// is ill-conditioned and the head is short. Its cost grows with `m/k`.
///
/// # Accuracy
/// Against 2048 bits: 1e-12 relative where ages are summed one by one (measured
/// 3.6e-13), 1.2e-7 relative where they are grouped into pieces.
pub fn window_posterior_ages(lik: &TLikelihood, ln_q: f64, px: f64, w: u64) -> f64 {
    /// Ages summed one by one before pieces take over.
    const DIRECT_AGES: u64 = 1 << 20;
    /// Largest first-order change of `ln L` across a piece.
    const PIECE_DELTA: f64 = 1e-3;
    if px >= 1.0 {
        return if lik.at(1.0) > 0.0 { 1.0 } else { 0.0 };
    }
    let ln_s = (-px).ln_1p();
    let i0 = head_ages(lik, ln_q);
    let bound: f64 = lik
        .factors
        .iter()
        .map(|&(a, b, k)| a.abs().max((a + b).abs()).powi(k as i32))
        .product();
    // Beyond DIRECT_AGES (m/k above about 10^5), ages are grouped into pieces on which
    // ln L moves by at most PIECE_DELTA (to first order), each evaluated at its
    // prior-weighted mean age with its exact prior mass: the cost stays near
    // n·ln(i0)/PIECE_DELTA however large m is. In log mode, terms are accumulated
    // relative to a running scale e^shift (the largest log-term so far), so that
    // evidences far below the smallest double (e.g. (1 − t)^128 at young ages of a huge
    // filter) keep their ratio.
    let pieces = i0 > DIRECT_AGES;
    // The linear pass is trusted only if neither the evidence nor its part inside the
    // window came near underflow (issue 17: a posterior of 7e-270 came out as 0 when
    // every term inside the window underflowed); otherwise the log pass runs.
    let unscaled_ok = |s: &ScaledPair| s.den.value() > 1e-290 && (w == 0 || s.num.value() > 1e-290);
    let ln_bound = bound.ln();
    // Linear first (one exp and powi per age); again in log space if every term, or
    // every term inside the window, underflowed.
    let mut sums = ScaledPair::new();
    for log_mode in [false, true] {
        sums = ScaledPair::new();
        if !log_mode {
            sums.shift = 0.0;
        }
        let mut i = 0u64;
        while i < i0 {
            let step = if pieces {
                let t = (i as f64 * ln_q).exp();
                let sens: f64 = lik
                    .factors
                    .iter()
                    .map(|&(a, b, k)| f64::from(k) * (b * t).abs() / (a + b * t).abs().max(1e-300))
                    .sum();
                let room = PIECE_DELTA / (sens * -ln_q);
                let mut step = if room.is_finite() && room >= 1.0 {
                    room.min(1e15) as u64
                } else {
                    1
                };
                step = step.min(i0 - i);
                if i < w {
                    step = step.min(w - i);
                }
                step
            } else {
                1
            };
            let (ln_mass, age) = if step == 1 {
                (i as f64 * ln_s, i as f64)
            } else {
                (
                    i as f64 * ln_s - px.ln() + (-(step as f64 * ln_s).exp_m1()).ln(),
                    i as f64 + crate::timing::posterior::truncated_geometric_mean(px, step),
                )
            };
            let ln_t = age * ln_q;
            if log_mode {
                sums.add_ln(ln_mass + lik.ln_at_ln(ln_t), i < w);
            } else {
                sums.add_plain(ln_mass.exp() * lik.at_ln(ln_t), i < w);
            }
            i += step;
            // Stop early once the prior's tail is negligible against the evidence
            // (inside and outside the window alike): (1−p)^i · bound < 1e-18 · evidence.
            if i as f64 * ln_s + ln_bound < -41.4 + sums.ln_den() {
                if log_mode || unscaled_ok(&sums) {
                    return crate::numeric::probability(sums.ratio());
                }
                break;
            }
        }
        if unscaled_ok(&sums) {
            break;
        }
    }
    let (mut num, mut den) = (CompensatedSum::new(), CompensatedSum::new());
    // Tail from i0: Σ_s c_s Σ_{i>=i0} x_s^i = Σ_s c_s x_s^i0 / (1 − x_s), x_s = s·t^s.
    for (s, &c) in lik.coefficients().iter().enumerate() {
        let ln_x = ln_s + s as f64 * ln_q;
        let one_minus_x = -ln_x.exp_m1();
        let head = (i0 as f64 * ln_x).exp();
        den.add(c * head / one_minus_x);
        if w > i0 {
            let span = -((w - i0) as f64 * ln_x).exp_m1();
            num.add(c * head * span / one_minus_x);
        }
    }
    // Head (scaled by e^shift) plus tail (plain). When the tail vanishes, the scaled
    // head alone decides, whatever its scale.
    if den.value() <= 0.0 {
        return crate::numeric::probability(sums.ratio());
    }
    let scale = sums.shift.exp();
    let post = if scale > 1e-290 && scale < 1e290 {
        num.add(sums.num.value() * scale);
        den.add(sums.den.value() * scale);
        num.value() / den.value()
    } else {
        // e^shift under- or overflows (issue 17: the head of a posterior of 7e-270 was
        // dropped to 0): combine in log space, `(h_n·e^shift + t_n)/(h_d·e^shift + t_d)`.
        use crate::numeric::log_add_exp;
        let ln_num = log_add_exp(sums.shift + sums.num.value().ln(), num.value().ln());
        let ln_den = log_add_exp(sums.shift + sums.den.value().ln(), den.value().ln());
        (ln_num - ln_den).exp()
    };
    debug_assert!((-1e-9..=1.0 + 1e-9).contains(&post), "posterior {post}");
    post.clamp(0.0, 1.0)
}

/// Ages below which [`window_posterior_ln`] sums the head directly rather than evaluate
/// Eq. (34) in extended precision ([`window_posterior_wide`]): the direct sum costs one
/// evaluation of `L` per age, about `ln(20n)·m/(k0 + k1)` ages, so it grows with `m`; the
/// extended Eq. (34) costs `O(n²)` multiplications at `O(log κ)` bits, whatever `m`.
/// Chosen where the two cost about the same (`benches/gbf.rs`, group `gbf_m`).
pub const WIDE_FROM_AGES: u64 = 1 << 12;

/// Largest working precision (bits) [`window_posterior_wide`] tries before giving up.
const WIDE_MAX_BITS: usize = 1 << 13;

/// A binary float at a chosen working precision (`dashu-float`).
type Wide = FBig<HalfEven, 2>;

/// `x` exactly, carried at `bits` of precision (`None` if not finite).
fn wide(x: f64, bits: usize) -> Option<Wide> {
    Some(Wide::try_from(x).ok()?.with_precision(bits).value())
}

/// An upper bound on `log2 |x / y|` (`x > 0`; infinite when `y = 0`), from the binary
/// exponents and leading digits of `x` and `y` (`EstimatedLog2`, within 2^-20 relative),
/// not a division and a logarithm at the working precision (those were 16% of the
/// `models` fuzz target's time, issue 17): condition numbers of posteriors near the
/// smallest double exceed the largest one.
fn log2_abs_ratio(x: &Wide, y: &Wide) -> f64 {
    use dashu_float::ops::EstimatedLog2;
    if y.repr().significand().is_zero() {
        return f64::INFINITY;
    }
    f64::from(x.log2_bounds().1) - f64::from(y.log2_bounds().0)
}

/// Eq. (34) [TBF] evaluated with `bits` of working precision, each geometric sum formed
/// without cancellation:
/// `1 − x_s = (1 − Q^s) + p·Q^s` and `1 − x_s^w = (1 − S^w) + S^w (1 − Q^(ws))`
/// (`S = 1 − p`, `Q = q_ε`), with `1 − Q^(s+1) = (1 − Q^s) + Q^s (1 − Q)` and the like
/// for `Q^w`, so only four exponentials and logarithms are evaluated whatever `k`, and
/// every `1 − x` keeps its relative accuracy however close `x` is to 1 (`m` large, `p`
/// small). Returns the posterior and `log2 (κ_num + κ_den)`, the condition numbers of
/// [`window_posterior_eq34`] evaluated at this precision (see [`wide_log2_error`]).
fn eq34_wide(lik: &TLikelihood, ln_q: f64, px: f64, w: u64, bits: usize) -> Option<(f64, f64)> {
    let one = Wide::ONE.with_precision(bits).value();
    let zero = Wide::ZERO.with_precision(bits).value();
    let n = lik.degree() as usize;
    // The coefficients of L in powers of t, multiplied in place by each (a + b t).
    let mut c = vec![zero.clone(); n + 1];
    c[0] = one.clone();
    let mut len = 1;
    for &(a, b, k) in &lik.factors {
        let (a, b) = (wide(a, bits)?, wide(b, bits)?);
        for _ in 0..k {
            for s in (0..len).rev() {
                let bs = &b * &c[s];
                c[s + 1] += bs;
                c[s] = &a * &c[s];
            }
            len += 1;
        }
    }
    let bound = lik.abs_coefficients();
    let p = wide(px, bits)?;
    let lnq = wide(ln_q, bits)?;
    let (q, one_minus_q) = exp_and_complement(&lnq);
    let wl = Wide::from(w).with_precision(bits).value();
    let (sw, one_minus_sw) = exp_and_complement(&(&wl * (-&p).ln_1p()));
    let (qw, one_minus_qw) = exp_and_complement(&(&wl * &lnq));
    // Q^s, 1 − Q^s, Q^(ws), 1 − Q^(ws) at s = 0.
    let (mut qs, mut d) = (one.clone(), zero.clone());
    let (mut qws, mut e) = (one.clone(), zero.clone());
    let (mut num, mut den) = (zero.clone(), zero.clone());
    let (mut num_abs, mut den_abs) = (zero.clone(), zero);
    for (cs, &cs_abs) in c.iter().zip(&bound) {
        let full = &one / (&d + &p * &qs);
        let part = (&one_minus_sw + &sw * &e) * &full;
        let cs_abs = wide(cs_abs, bits)?;
        num += cs * &part;
        den += cs * &full;
        num_abs += &cs_abs * &part;
        den_abs += &cs_abs * &full;
        d += &qs * &one_minus_q;
        qs *= &q;
        e += &qws * &one_minus_qw;
        qws *= &qw;
    }
    if w == 1 {
        // Σ_{i<1} (1−p)^i L(t^i) = L(1) = Π (a + b)^n: no cancellation, and exactly 0
        // for an observation impossible at age 0.
        num = one.clone();
        for &(a, b, k) in &lik.factors {
            num *= (wide(a, bits)? + wide(b, bits)?).powi(k.into());
        }
    }
    // log2 of κ_num + κ_den, within one bit (κ_num = 1 for w = 1).
    let log2_num = if w == 1 {
        0.0
    } else {
        log2_abs_ratio(&num_abs, &num)
    };
    let log2_kappa = log2_num.max(log2_abs_ratio(&den_abs, &den)) + 1.0;
    if log2_kappa.is_infinite() {
        return Some((f64::NAN, f64::INFINITY));
    }
    Some(((num / den).to_f64().value(), log2_kappa))
}

/// `(e^x, 1 − e^x)` at the precision of `x`, each to a few units in its last place, from
/// one exponential (they were a third of [`eq34_wide`]'s time, issue 17): for
/// `x < −1`, `e^x` and then `1 − e^x ∈ (0.63, 1)`; otherwise `e^x − 1` and then
/// `e^x = 1 + (e^x − 1) > 0.36`, so neither subtraction cancels.
fn exp_and_complement(x: &Wide) -> (Wide, Wide) {
    let one = Wide::ONE.with_precision(x.precision()).value();
    if *x < -&one {
        let e = x.exp();
        let c = &one - &e;
        (e, c)
    } else {
        let m = x.exp_m1();
        (&one + &m, -m)
    }
}

/// `log2` of the relative error bound of [`eq34_wide`] at `bits`, `j·2^(−bits)·κ`
/// (`j = 5n + 16`: the expansion's `n` roundings, the chains' `3s + 10` and the sum's
/// `n + 1`, each relative to the absolute terms `C̃_s |y_s|`).
fn wide_log2_error(lik: &TLikelihood, bits: usize, log2_kappa: f64) -> f64 {
    (5.0 * f64::from(lik.degree()) + 16.0).log2() - bits as f64 + log2_kappa
}

/// The posterior by Eq. (34) [TBF] in extended precision: the cost is `O(n²)`
/// multiplications at a working precision of about `log2 κ + 60` bits, whatever `m`.
/// The precision starts from `kappa_hint` (the double-precision condition number of
/// [`window_posterior_eq34`]) and grows until the error bound of the evaluation at
/// that precision is below [`EQ34_MAX_ERROR`] (an a-posteriori check: a precision too
/// low shows as a large condition number). `None` if 8192 bits do not
/// suffice (e.g. a posterior of exactly 0).
///
/// # Accuracy
/// Within [`EQ34_MAX_ERROR`] relative by the bound of `eq34_wide`; against 2048 bits
/// in `models/tests/precision/gbf.rs` (1e-12 relative, `m` up to `2^40`).
pub fn window_posterior_wide(
    lik: &TLikelihood,
    ln_q: f64,
    px: f64,
    w: u64,
    kappa_hint: f64,
) -> Option<f64> {
    wide_at_rising_precision(lik, ln_q, px, w, kappa_hint, false).unwrap_or(None)
}

/// [`window_posterior_wide`], each precision tried paid from the work allowance when
/// `charged`: `(n + 1)²` multiplications and `8·bits` for the four transcendental
/// functions, each in `(bits/64)²` steps.
fn wide_at_rising_precision(
    lik: &TLikelihood,
    ln_q: f64,
    px: f64,
    w: u64,
    kappa_hint: f64,
    charged: bool,
) -> Result<Option<f64>, ModelError> {
    if w == 0 {
        return Ok(Some(0.0));
    }
    let log2_max = EQ34_MAX_ERROR.log2();
    // The precision whose bound meets EQ34_MAX_ERROR at condition number 2^log2_kappa,
    // with 16 bits to spare, in whole 64-bit words.
    let bits_for = |log2_kappa: f64| -> usize {
        let need = wide_log2_error(lik, 0, log2_kappa.max(0.0)) - log2_max + 16.0;
        (need.max(128.0) as usize).div_ceil(64) * 64
    };
    let mut bits = if kappa_hint.is_finite() {
        bits_for(kappa_hint.log2())
    } else {
        256
    };
    loop {
        if charged {
            let words = (bits / 64) as f64;
            let n = f64::from(lik.degree()) + 1.0;
            let steps = (n * n + 8.0 * bits as f64) * words * words;
            crate::budget::spend(steps, "the GBF posterior in extended precision")?;
        }
        let Some((post, log2_kappa)) = eq34_wide(lik, ln_q, px, w, bits) else {
            return Ok(None);
        };
        if wide_log2_error(lik, bits, log2_kappa) <= log2_max && post.is_finite() {
            return Ok(Some(post));
        }
        if bits >= WIDE_MAX_BITS {
            return Ok(None);
        }
        // A precision too low leaves the numerator's cancellation unresolved, which
        // shows as a condition number near 2^bits: at least double.
        let next = if log2_kappa.is_finite() {
            bits_for(log2_kappa)
        } else {
            0
        };
        bits = next.max(2 * bits).min(WIDE_MAX_BITS);
    }
}

/// Two compensated sums (inside the window, all ages) of terms `e^(ln_term − shift)`,
/// rescaled whenever a term exceeds the current scale `e^shift`.
struct ScaledPair {
    shift: f64,
    num: CompensatedSum,
    den: CompensatedSum,
}

impl ScaledPair {
    fn new() -> Self {
        Self {
            shift: f64::NEG_INFINITY,
            num: CompensatedSum::new(),
            den: CompensatedSum::new(),
        }
    }

    /// Adds a plain term (linear mode: `shift = 0` throughout).
    fn add_plain(&mut self, v: f64, inside: bool) {
        self.den.add(v);
        if inside {
            self.num.add(v);
        }
    }

    fn add_ln(&mut self, ln_term: f64, inside: bool) {
        if ln_term == f64::NEG_INFINITY || ln_term.is_nan() {
            return;
        }
        if ln_term > self.shift {
            let r = (self.shift - ln_term).exp();
            let (n, d) = (self.num.value() * r, self.den.value() * r);
            self.num = CompensatedSum::new();
            self.den = CompensatedSum::new();
            self.num.add(n);
            self.den.add(d);
            self.shift = ln_term;
        }
        let v = (ln_term - self.shift).exp();
        self.den.add(v);
        if inside {
            self.num.add(v);
        }
    }

    /// `ln` of the accumulated evidence (`-inf` when empty).
    fn ln_den(&self) -> f64 {
        self.shift + self.den.value().ln()
    }

    /// Inside / all (0 when nothing was accumulated).
    fn ratio(&self) -> f64 {
        let d = self.den.value();
        if d > 0.0 {
            self.num.value() / d
        } else {
            0.0
        }
    }
}

/// The reference: Eq. (9) summed term by term over every age (all terms non-negative,
/// compensated), until the prior's tail cannot matter. Cost `O(40/p)`.
pub fn window_posterior_direct(lik: &TLikelihood, q_eps: f64, px: f64, w: u64) -> f64 {
    let ln_q = q_eps.ln();
    super::super::timing::posterior::direct_window_posterior(px, w, |i| {
        lik.at((i as f64 * ln_q).exp()) / 2f64.powi(lik.degree() as i32)
    })
    .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 10 (numerical extremes): pieces beyond 2^20 direct ages against the direct
    /// sum, and the largest parameters finish in [0, 1].
    #[test]
    fn large_m_pieces_match_the_direct_sum() {
        // m = 2^24, k0 + k1 = 40: i0 ≈ 2.8e6 ages (> 2^20: pieces) and Eq. (34) is
        // ill-conditioned, so the piecewise route is the one measured.
        let m = (1u64 << 24) as f64;
        let q = ((-1.0 / m).ln_1p() * 40.0).exp();
        let mut worst = 0.0f64;
        let mut measured = 0;
        for (d, e) in [(40u32, 0u32), (30, 10), (20, 20), (10, 30), (0, 40)] {
            let lik = TLikelihood::balanced(d, e);
            for (px, w) in [(3e-5, 100_000u64)] {
                if eq34_is_accurate(&lik, window_posterior_eq34(&lik, q, px, w).1) {
                    continue; // Eq. (34) answers directly
                }
                measured += 1;
                let got = window_posterior_ages(&lik, q.ln(), px, w);
                let want = window_posterior_direct(&lik, q, px, w);
                worst = worst.max((got - want).abs());
                assert!(
                    (got - want).abs() < 1e-8,
                    "{d} {e} {px} {w}: {got} vs {want}"
                );
                // The route window_posterior takes here: Eq. (34) in extended precision.
                assert!(head_ages(&lik, q.ln()) > WIDE_FROM_AGES);
                let wide = window_posterior(&lik, q, px, w);
                assert!(
                    (wide - want).abs() < 1e-10,
                    "{d} {e} {px} {w}: wide {wide} vs {want}"
                );
            }
        }
        assert!(measured >= 3, "{measured} cases took the piecewise route");
        eprintln!("worst |pieces − direct| = {worst:e} over {measured} cases");
        let m = (1u64 << 40) as f64;
        let q = ((-1.0 / m).ln_1p() * 128.0).exp();
        for (d, e, px, w) in [
            (64u32, 64u32, 1e-12, 1_000_000_000_000u64),
            (128, 0, 1.0, 1),
            (100, 28, 1.0, 1),
            (0, 128, 0.5, 1 << 40),
            (64, 64, 0.5, 1 << 40),
        ] {
            let lik = TLikelihood::balanced(d, e);
            {
                let p = window_posterior(&lik, q, px, w);
                assert!((0.0..=1.0).contains(&p), "{d} {e} {px} {w}: {p}");
            }
        }
    }
    use num_rational::BigRational;
    use num_traits::{One, Zero};
    use proptest::prelude::*;

    #[test]
    fn coefficients_match_both_printed_sums() {
        let c = c_coefficients(3, 2);
        // (1+x)^3 (1−x)^2 = (1 + 3x + 3x² + x³)(1 − 2x + x²) = 1 + x − 2x² − 2x³ + x⁴ + x⁵.
        assert_eq!(c, vec![1, 1, -2, -2, 1, 1]);
        let f: Vec<f64> = TLikelihood::balanced(3, 2).coefficients();
        assert_eq!(f, vec![1.0, 1.0, -2.0, -2.0, 1.0, 1.0]);
        // Σ_ℓ C(d, s−ℓ) (−1)^ℓ C(e, ℓ), the second printed form, at d = 64, e = 64, s = 64.
        let c = c_coefficients(64, 64);
        assert_eq!(c.len(), 129);
        assert_eq!(c[1], 0); // d = e: odd coefficients of (1 − x²)^64 vanish
        assert_eq!(c[64], 1_832_624_140_942_590_534i128); // (−1)^32 C(64, 32)
    }

    /// Eq. (34) in exact rational arithmetic for small instances equals the direct sum.
    #[test]
    fn eq34_is_exact_in_rationals() {
        let r = |n: i64, d: i64| BigRational::new(n.into(), d.into());
        let (q, s, w) = (r(9, 10), r(97, 100), 7u32);
        let (d, e) = (3u32, 2u32);
        let c = c_coefficients(d, e);
        let (mut num, mut den) = (BigRational::zero(), BigRational::zero());
        for (k, &ck) in c.iter().enumerate() {
            let x = s.clone() * num_traits::pow(q.clone(), k);
            let ck = BigRational::from_integer(ck.into());
            let one = BigRational::one();
            den += ck.clone() / (one.clone() - x.clone());
            num += ck * (one.clone() - num_traits::pow(x.clone(), w as usize)) / (one - x);
        }
        let exact = num / den;
        let exact: f64 = num_traits::ToPrimitive::to_f64(&exact).unwrap();
        let lik = TLikelihood::balanced(d, e);
        let direct = window_posterior_direct(&lik, 0.9, 0.03, u64::from(w));
        assert!((exact - direct).abs() < 1e-12, "{exact} vs {direct}");
        assert!((window_posterior(&lik, 0.9, 0.03, 7) - exact).abs() < 1e-12);
    }

    /// Measured error of Eq. (34) in double precision (m = 2^10..2^14, p = 1/m, w = m/2,
    /// worst over d): k = 8: 1e-14; 16: 3e-10; 20: 5e-8; 24: 2e-6; 30: 2e-2; 40 and 64:
    /// 0.6-1.3 (outside [0, 1]). This test pins k = 30 at m = 2^10.
    #[test]
    fn double_precision_eq34_breaks_down_and_the_stable_form_does_not() {
        let (k, m) = (30u32, 1024.0f64);
        let n = 2 * k;
        let q = (1.0 - 1.0 / m).powi(n as i32);
        let (px, w) = (1.0 / m, 512);
        let (mut worst_plain, mut worst_stable) = (0.0f64, 0.0f64);
        for d in (0..=n).step_by(5) {
            let lik = TLikelihood::balanced(d, n - d);
            let direct = window_posterior_direct(&lik, q, px, w);
            let (plain, _) = window_posterior_eq34(&lik, q, px, w);
            worst_plain = worst_plain.max((plain - direct).abs());
            worst_stable = worst_stable.max((window_posterior(&lik, q, px, w) - direct).abs());
        }
        assert!(
            worst_plain > 1e-3,
            "Eq. (34) in double: worst error {worst_plain}"
        );
        assert!(worst_stable < 1e-9, "stable: worst error {worst_stable}");
    }

    /// A posterior of exactly 0 (`w = 0`) and an observation impossible at age 0 with
    /// `w = 1` (the window's sum is exactly 0): the extended route answers 0 or gives
    /// way, and never loops past its precision cap.
    #[test]
    fn wide_route_handles_exact_zeros() {
        let lik = TLikelihood::balanced(10, 30);
        let ln_q = 40.0 * (-1.0f64 / 1e9).ln_1p();
        assert_eq!(
            window_posterior_wide(&lik, ln_q, 1e-6, 0, f64::NAN),
            Some(0.0)
        );
        let p = window_posterior_ln(&lik, ln_q, 1e-6, 1);
        assert!(p < 1e-100, "{p}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The stable posterior, and Eq. (34) in extended precision forced (from a
        /// condition number of 1), against the direct sum.
        #[test]
        fn stable_posterior_matches_the_direct_sum(
            k in 1u32..=64,
            d_frac in 0.0f64..=1.0,
            log_m in 8.0f64..16.0,
            log_p in -3.5f64..-0.5,
            w in 1u64..3000,
        ) {
            let n = 2 * k;
            let d = ((d_frac * n as f64) as u32).min(n);
            let e = n - d;
            let m = 2f64.powf(log_m);
            let q = (1.0 - 1.0 / m).powi(n as i32);
            let px = 10f64.powf(log_p);
            let lik = TLikelihood::balanced(d, e);
            let got = window_posterior(&lik, q, px, w);
            let want = window_posterior_direct(&lik, q, px, w);
            prop_assert!((0.0..=1.0).contains(&got));
            prop_assert!((got - want).abs() < 1e-9, "k = {k}, d = {d}, e = {e}: {got} vs {want}");
            let wide = window_posterior_wide(&lik, q.ln(), px, w, 1.0).unwrap();
            prop_assert!((wide - want).abs() < 1e-9, "k = {k}, d = {d}, e = {e}: wide {wide}");
        }
    }
}
