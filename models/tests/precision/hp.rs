//! 256-bit reference arithmetic and the 1e-12 relative comparison.

use dashu_float::round::mode::HalfEven;
use dashu_float::FBig;
use num_rational::BigRational;
use std::sync::Mutex;

/// A 256-bit binary float (about 77 decimal digits).
pub type F = FBig<HalfEven, 2>;

/// Working precision of the references, in bits.
pub const PREC: usize = 256;

/// The guarantee: relative agreement with the high-precision value.
pub const REL: f64 = 1e-12;

/// Below this, values agree in absolute terms (probabilities that underflow).
pub const ABS: f64 = 1e-300;

/// An `f64`, exactly, at the working precision.
pub fn f(x: f64) -> F {
    F::try_from(x).unwrap().with_precision(PREC).value()
}

/// An integer at the working precision (exact below 2^256).
pub fn u(n: u64) -> F {
    F::from(n).with_precision(PREC).value()
}

/// `1`.
pub fn one() -> F {
    u(1)
}

/// `0`.
pub fn zero() -> F {
    u(0)
}

/// `x^n` for an integer `n` (by squaring; exact to the working precision).
pub fn powu(x: &F, n: u64) -> F {
    let (mut base, mut n, mut acc) = (x.clone(), n, one());
    while n > 0 {
        if n & 1 == 1 {
            acc = &acc * &base;
        }
        base = &base * &base;
        n >>= 1;
    }
    acc
}

/// Rounded to the nearest `f64` (0 below the subnormal range).
pub fn to_f64(x: &F) -> f64 {
    x.to_f64().value()
}

/// An exact rational at the working precision.
pub fn rational(x: &BigRational) -> F {
    big(x.numer()) / big(x.denom())
}

/// A big integer at the working precision, limb by limb from the most significant.
fn big(n: &num_bigint::BigInt) -> F {
    let (sign, limbs) = n.to_u64_digits();
    let base = u(u64::MAX) + one();
    let mag = limbs
        .iter()
        .rev()
        .fold(zero(), |acc, &limb| acc * &base + u(limb));
    if sign == num_bigint::Sign::Minus {
        -mag
    } else {
        mag
    }
}

/// The relative error of `got` against `want` (`|got − want| / |want|`), or the absolute
/// error scaled to [`REL`] when `|want|` is below [`ABS`].
pub fn rel_err(got: f64, want: &F) -> f64 {
    let w = to_f64(want);
    let diff = to_f64(&(f(got) - want)).abs();
    if w.abs() < ABS {
        // Near zero: an absolute error below ABS counts as agreement.
        diff / ABS * REL
    } else {
        diff / w.abs()
    }
}

/// Worst error per form seen by this process; each new worst is printed (see it with
/// `cargo test -p bfopt-models --test precision -- --nocapture`).
static WORST: Mutex<Vec<(&'static str, f64)>> = Mutex::new(Vec::new());

/// Asserts agreement to `tol` (see [`rel_err`]) and records the error under `form`.
#[track_caller]
pub fn record(form: &'static str, what: impl Fn() -> String, got: f64, want: &F, tol: f64) {
    let e = rel_err(got, want);
    let mut worst = WORST.lock().unwrap_or_else(|p| p.into_inner());
    let slot = match worst.iter().position(|w| w.0 == form) {
        Some(i) => i,
        None => {
            worst.push((form, -1.0));
            worst.len() - 1
        }
    };
    if e > worst[slot].1 {
        worst[slot].1 = e;
        println!(
            "precision {form}: worst relative error so far {e:.2e} at {}",
            what()
        );
    }
    drop(worst);
    assert!(
        got.is_finite() && e <= tol,
        "{form} at {}: production {got:e}, 256-bit {:e}, relative error {e:e} > {tol:e}",
        what(),
        to_f64(want)
    );
}

/// `Bin(j; n, 1/blocks)` for `j = 0..` up to 40 standard deviations above the mean (the
/// rest is below 1e-300 of the mode), walked up from `(1 − p)^n` at 256 bits.
pub fn binomial(n: u64, blocks: u64) -> Vec<F> {
    let p = one() / u(blocks);
    let q = one() - &p;
    let ratio = &p / &q;
    let mut cur = powu(&q, n);
    let mut out = vec![cur.clone()];
    let mean = n as f64 / blocks as f64;
    let last = (mean + 40.0 * mean.sqrt() + 40.0).min(n as f64) as u64;
    for j in 0..last {
        cur = cur * u(n - j) / u(j + 1) * &ratio;
        out.push(cur.clone());
    }
    out
}

/// `Poisson(j; μ)` for `j = 0..` up to 40 standard deviations above the mean.
pub fn poisson(mu: &F) -> Vec<F> {
    let mut cur = (-mu.clone()).exp();
    let mut out = vec![cur.clone()];
    let m = to_f64(mu);
    let last = (m + 40.0 * m.sqrt() + 40.0) as u64;
    for j in 0..last {
        cur = cur * mu / u(j + 1);
        out.push(cur.clone());
    }
    out
}

/// Precision of the references that expand alternating sums (the GBF likelihood's
/// coefficients reach `C(128, 64) ≈ 2^124` and the evidence can be 2^-400).
pub const PREC_WIDE: usize = 2048;

/// An `f64` at [`PREC_WIDE`] bits.
pub fn wide(x: f64) -> F {
    F::try_from(x).unwrap().with_precision(PREC_WIDE).value()
}

/// An integer at [`PREC_WIDE`] bits.
pub fn wide_u(n: u64) -> F {
    F::from(n).with_precision(PREC_WIDE).value()
}
