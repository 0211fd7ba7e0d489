//! The Timing / Block Timing Bloom filter: structure (Section 3 [TBF]), the standard
//! filter's false positives (Section 3.2.2 [TBF]) and the inferential posterior
//! (Section 4 [TBF], Theorems 2-5).

use super::penalty::PenaltyDist;
use super::posterior::PiecewiseLikelihood;
use super::prior::{check_px, ln_prior_range, prior_range, Distinct, StreamPrior};
use crate::error::{check, ModelError};
use crate::numeric::{log_add_exp, probability, LnSum};
use serde::Serialize;
use std::ops::RangeInclusive;
use std::sync::OnceLock;

/// Parameters of a BTBF (a TBF when the block size `B` is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BtbfParams {
    /// Timers `m`.
    m: u64,
    /// Hash functions `k`.
    k: u32,
    /// Bits per timer `bpt`.
    bpt: u32,
    /// Insertion block size `B`.
    block_size: u64,
    /// Padding `P` (Definition 7 [TBF]).
    padding: u64,
    /// Window `w`.
    w: u64,
}

impl BtbfParams {
    /// Allowed timer counts.
    pub const M: RangeInclusive<u64> = 1..=(1 << 40);
    /// Allowed hash counts.
    pub const K: RangeInclusive<u32> = 1..=64;
    /// Allowed bits per timer (a timer must hold `T_Ω + 2 >= 4` values).
    pub const BPT: RangeInclusive<u32> = 2..=32;
    /// Allowed windows.
    pub const W: RangeInclusive<u64> = 1..=(1 << 40);

    /// Validates and builds the parameters.
    ///
    /// # Errors
    /// [`ModelError::InvalidParam`] naming `m`, `k`, `bits_per_timer`, `block_size`,
    /// `window` or `padding`: out of range; `B > w`; `2^bpt < T_Ω + 2` with
    /// `T_Ω = ⌈w/B⌉ + 1 + P` (Section 3.2.3 [TBF]).
    pub fn new(
        m: u64,
        k: u32,
        bpt: u32,
        block_size: u64,
        w: u64,
        padding: u64,
    ) -> Result<Self, ModelError> {
        check::in_range("m", m, Self::M)?;
        check::in_range("k", k, Self::K)?;
        check::in_range("bits_per_timer", bpt, Self::BPT)?;
        check::in_range("window", w, Self::W)?;
        check::in_range("block_size", block_size, 1..=w)?;
        check::in_range("padding", padding, 0..=(1u64 << 32))?;
        let t_max = w.div_ceil(block_size) + 1 + padding;
        if (t_max + 2) > (1u64 << bpt) {
            let need = 64 - (t_max + 1).leading_zeros();
            return Err(ModelError::invalid(
                "bits_per_timer",
                bpt,
                format!(
                    "2^bpt >= T_max + 2 = {} (T_max = ceil(w/B) + 1 + P = {t_max}): bpt >= {need}, or a larger block size / smaller padding",
                    t_max + 2
                ),
            ));
        }
        Ok(Self {
            m,
            k,
            bpt,
            block_size,
            padding,
            w,
        })
    }

    /// Like [`Self::new`] with the padding of the rule of thumb `P ≈ m/(kB)`
    /// ([`rule_of_thumb_padding`]), reduced to the largest padding that fits in `bpt`.
    ///
    /// # Errors
    /// As [`Self::new`] with `P = 0`.
    pub fn with_default_padding(
        m: u64,
        k: u32,
        bpt: u32,
        block_size: u64,
        w: u64,
    ) -> Result<Self, ModelError> {
        let base = Self::new(m, k, bpt, block_size, w, 0)?;
        let room = (1u64 << bpt) - 2 - (w.div_ceil(block_size) + 1);
        let p = rule_of_thumb_padding(m, k, block_size).min(room);
        Self::new(base.m, k, bpt, block_size, w, p)
    }

    /// Timers `m`.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// Hash functions `k`.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// Bits per timer.
    pub fn bpt(&self) -> u32 {
        self.bpt
    }
    /// Block size `B`.
    pub fn block_size(&self) -> u64 {
        self.block_size
    }
    /// Padding `P`.
    pub fn padding(&self) -> u64 {
        self.padding
    }
    /// Window `w`.
    pub fn w(&self) -> u64 {
        self.w
    }

    /// The largest timestamp `T_Ω = ⌈w/B⌉ + 1 + P` (Section 3.2.3 [TBF]).
    pub fn t_max(&self) -> u64 {
        self.w.div_ceil(self.block_size) + 1 + self.padding
    }

    /// The largest unexpired age `L(b) = ⌈(w − b)/B⌉` at block offset `b`; a timestamp of
    /// age `λ >= L(b) + 1` has expired (Definition 8 [TBF]).
    pub fn expiry_age(&self, b: u64) -> u64 {
        (self.w - b).div_ceil(self.block_size)
    }

    /// The age at which the expiry scan marks a timer expired, `⌈w/B⌉ + 1`.
    pub fn scan_expiry_age(&self) -> u64 {
        self.w.div_ceil(self.block_size) + 1
    }

    /// Timers scanned per insertion, `m / (B(P + 1))` (Section 3.2.3 [TBF]).
    pub fn scan_per_insert(&self) -> f64 {
        self.m as f64 / (self.block_size as f64 * (self.padding + 1) as f64)
    }

    /// Memory in bits, `m · bpt`.
    pub fn memory_bits(&self) -> u64 {
        self.m * u64::from(self.bpt)
    }

    /// Bits per item of the window, `m · bpt / w`.
    pub fn bits_per_item(&self) -> f64 {
        self.memory_bits() as f64 / self.w as f64
    }
}

/// The rule of thumb `P ≈ m/(kB)` (Section 3.2.3 [TBF]) made exact: the smallest padding
/// with at most `k` timers scanned per insertion, `P = ⌈m/(kB)⌉ − 1`.
pub fn rule_of_thumb_padding(m: u64, k: u32, block_size: u64) -> u64 {
    m.div_ceil(u64::from(k) * block_size).saturating_sub(1)
}

/// The age `λ_x` of the oldest timestamp among an item's timers (Definition 9 [TBF]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimerAge {
    /// `λ_x` in increments of `T_+`.
    Finite(u64),
    /// Some timer holds the expired value `T_ε` (`λ_x = ∞`).
    Expired,
}

/// What an inferential BTBF query observes (Section 4 [TBF]): `λ_x`, `c_x = |C_x|`,
/// `r_x = |R_x|`, and the block offset `b` at query time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BtbfObservation {
    /// `λ_x`.
    pub age: TimerAge,
    /// `c_x`: timers of `R_x` holding the oldest timestamp.
    pub matching: u32,
    /// `r_x`: distinct timers of `x`.
    pub touched: u32,
    /// `b`: insertions since the last increment of `T_+`.
    pub offset: u64,
}

/// How `G(r, c, λ)` — the likelihood that an item inserted before block `T_x` shows `c`
/// timers of age `λ` — is approximated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GForm {
    /// Eq. (25) [TBF] as printed: `G ≈ F(c, 0, B) · F(r, c, a)`, the `c` timers touched by
    /// the `D(B)` distinct items of a block.
    Paper,
    /// `G = (1 − (1−1/m)^(k(D(a+B) − D(a))))^c · F(r, c, a)`: the `c` timers touched by the
    /// items of block `T_x` that are *new* after the `a` later insertions. This is the
    /// exact product form under the independence of Eq. (21); it differs from Eq. (25)
    /// when `D` is concave (repeated items), where Eq. (25) overstates the chance that an
    /// old item's timers were refreshed, so its posteriors are too low. Equal to
    /// [`GForm::Paper`] when `D(j) = j`.
    Increment,
}

/// The BTBF model: parameters, the stream's `D(j)`, and the cached `F(c, 0, B)`.
#[derive(Debug, Clone, PartialEq)]
pub struct BtbfModel {
    params: BtbfParams,
    distinct: Distinct,
    g_form: GForm,
    /// `k · ln(1 − 1/m)`: a timer is untouched by `D` distinct items with probability
    /// `exp(ln_q · D)`.
    ln_q: f64,
    /// `F(c, 0, B)` for `c = 0..=k` (Section 4.4 [TBF]).
    f_block: Vec<f64>,
    /// `1 − (1−1/m)^(k D(b))` for every offset `b < B`, the base of `F(r, 0, b)` in the
    /// `λ = 0` posterior (Eq. (23) [TBF]); built on first use when `B <=`
    /// [`Self::OFFSET_TABLE_MAX`].
    offset_table: OffsetTable,
}

/// The timers at one block offset `b` for [`BtbfModel::observation_masses_at`]:
/// `1 − u_0` and `u_ℓ = (1 − 1/m)^(k D(ℓB + b))` for `ℓ = 0..=L(b)`.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetTimers {
    b: u64,
    touched0: f64,
    untouched: Vec<f64>,
}

impl OffsetTimers {
    /// The block offset `b`.
    pub fn offset(&self) -> u64 {
        self.b
    }
}

/// The terms of the posterior that depend on the item only ([`BtbfModel::item_terms`]):
/// a caller that queries one item (one `p_x`) many times computes them once and hands
/// them to [`BtbfModel::posterior_pair_with`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemTerms {
    ln_s: f64,
    q_block: f64,
}

impl ItemTerms {
    /// `1 − s^e = 1 − (1 − p_x)^e`.
    fn one_minus_pow(&self, e: u64) -> f64 {
        -(e as f64 * self.ln_s).exp_m1()
    }

    /// [`prior_range`] `P(α <= I_x < β)` from the item's `ln s`, with the same
    /// operations (bit for bit), without a logarithm per call.
    fn prior_range(&self, alpha: u64, beta: Option<u64>) -> f64 {
        let head = if alpha == 0 {
            1.0
        } else {
            (alpha as f64 * self.ln_s).exp()
        };
        match beta {
            None => head,
            Some(b) if b <= alpha => 0.0,
            Some(b) => head * self.one_minus_pow(b - alpha),
        }
    }
}

/// `G/F` for `c` timers ([`BtbfModel::age_posterior`]): `F(c, 0, B)` from the model's
/// table ([`GForm::Paper`]) or a power of the block's increment ([`GForm::Increment`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum GBase {
    Table,
    Power(f64),
}

/// The posterior at one age and offset, up to `c_x` ([`BtbfModel::age_posterior`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum AgePosterior {
    /// The posterior whatever `c_x` (`λ = 0`, or expired).
    Fixed(f64),
    /// `0 < λ < L`, Eq. (26) [TBF]: `(q/F_c + s_tail) / (q/F_c + s^B)`.
    Inside {
        q: f64,
        s_big_b: f64,
        s_tail: f64,
        g: GBase,
    },
    /// `λ = L`, Eq. (27) [TBF]: `num / (q + s^B F_c)`.
    Last {
        num: f64,
        q: f64,
        s_big_b: f64,
        g: GBase,
    },
}

impl GBase {
    /// `G/F` for `c` timers.
    fn value(self, model: &BtbfModel, c: u32) -> f64 {
        match self {
            Self::Table => model.f_block[c as usize],
            Self::Power(x) => x.powi(c as i32),
        }
    }
}

impl AgePosterior {
    /// The same posterior with `G/F` from `g` (called only where it has one: not for a
    /// [`Self::Fixed`] posterior).
    fn with_g(mut self, g: impl FnOnce() -> GBase) -> Self {
        if let Self::Inside { g: own, .. } | Self::Last { g: own, .. } = &mut self {
            *own = g();
        }
        self
    }

    /// The posterior for `c_x = c`.
    pub(crate) fn at(&self, model: &BtbfModel, c: u32) -> f64 {
        let fc = |g: &GBase| g.value(model, c);
        match self {
            Self::Fixed(post) => *post,
            Self::Inside {
                q,
                s_big_b,
                s_tail,
                g,
            } => {
                let head = q / fc(g);
                Self::clamp((head + s_tail) / (head + s_big_b))
            }
            Self::Last { num, q, s_big_b, g } => Self::clamp(num / (q + s_big_b * fc(g))),
        }
    }

    /// A probability, 1 where the terms gave NaN (`0/0`: both likelihood pieces
    /// vanished).
    fn clamp(post: f64) -> f64 {
        probability(if post.is_nan() { 1.0 } else { post })
    }
}

/// A lazily built table that does not take part in equality (two models are equal
/// whether or not one of them has built its table).
#[derive(Debug, Clone, Default)]
struct OffsetTable(OnceLock<Box<[f64]>>);

impl PartialEq for OffsetTable {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Predicted metrics of a standard BTBF under a stream prior.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BtbfMetrics {
    /// False-positive rate: `P(Pos | I_x >= w)` for the next arrival of the stream,
    /// averaged over the block offset `b`.
    pub fp: f64,
    /// Memory `m · bpt` in bits.
    pub bits: u64,
    /// `m · bpt / w`.
    pub bits_per_item: f64,
    /// `T_Ω = ⌈w/B⌉ + 1 + P`.
    pub t_max: u64,
    /// Timers scanned per insertion, `m/(B(P+1))`.
    pub scan_per_insert: f64,
    /// Fraction of arrivals whose item is in the window, `P(I_x < w)` (with a prior).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_window: Option<f64>,
}

impl BtbfModel {
    /// The model of `params` for a stream whose distinct-item curve is `distinct`.
    pub fn new(params: BtbfParams, distinct: Distinct) -> Self {
        let ln_q = f64::from(params.k) * (-1.0 / params.m as f64).ln_1p();
        let mut model = Self {
            params,
            distinct,
            g_form: GForm::Paper,
            ln_q,
            f_block: Vec::new(),
            offset_table: OffsetTable::default(),
        };
        // `touched` is `−expm1(…)`: `1 − untouched` lost up to ε/touched relative (3e-10 in
        // the posterior at m = 4.3·10^10, k = 1; issue 17's precision test).
        let touched = model.touched(params.block_size);
        model.f_block = (0..=params.k).map(|c| touched.powi(c as i32)).collect();
        model
    }

    /// Largest block size for which the `λ = 0` posterior tabulates `F(1, 0, b)` over the
    /// offsets (32 KiB); larger blocks evaluate `D(b)` per query.
    pub const OFFSET_TABLE_MAX: u64 = 4096;

    /// `1 − (1−1/m)^(k D(b))`, `b < B`: from the offset table when `B` is small enough.
    fn touched_at_offset(&self, b: u64) -> f64 {
        if self.params.block_size > Self::OFFSET_TABLE_MAX {
            return self.touched(b);
        }
        let table = self.offset_table.0.get_or_init(|| {
            (0..self.params.block_size)
                .map(|b| self.touched(b))
                .collect()
        });
        table[b as usize]
    }

    /// The same model with another form of `G` (default [`GForm::Paper`]).
    pub fn with_g_form(mut self, g_form: GForm) -> Self {
        self.g_form = g_form;
        self
    }

    /// The form of `G` in use.
    pub fn g_form(&self) -> GForm {
        self.g_form
    }

    /// The parameters.
    pub fn params(&self) -> &BtbfParams {
        &self.params
    }

    /// `G/F`: the probability that the `c` timers of `C_x` were touched during block
    /// `T_x`, given `a = (λ−1)B + b` later insertions ([`GForm`]).
    fn g_over_f(&self, c: u32, a: u64) -> f64 {
        self.g_base(a).value(self, c)
    }

    /// What `G/F` at `a` later insertions is a power of ([`GBase`]).
    fn g_base(&self, a: u64) -> GBase {
        self.g_base_of(self.g_form, a)
    }

    /// [`Self::g_base`] with the form `g_form` in place of the model's.
    fn g_base_of(&self, g_form: GForm, a: u64) -> GBase {
        match g_form {
            GForm::Paper => GBase::Table,
            GForm::Increment => {
                let d = self.distinct.d((a + self.params.block_size) as f64)
                    - self.distinct.d(a as f64);
                GBase::Power(-self.ln_unhit(d).exp_m1())
            }
        }
    }

    /// The `D(j)` curve.
    pub fn distinct(&self) -> &Distinct {
        &self.distinct
    }

    /// Probability that a given timer is untouched during `j` insertions:
    /// `(1 − 1/m)^(k·D(j))` (Eq. (21) [TBF] with `c = r = 1`).
    pub fn untouched(&self, j: u64) -> f64 {
        self.ln_untouched(j).exp()
    }

    /// `1 −` [`Self::untouched`], without cancellation.
    fn touched(&self, j: u64) -> f64 {
        -self.ln_untouched(j).exp_m1()
    }

    /// `ln` [`Self::untouched`] `= k·ln(1 − 1/m)·D(j)`: 0 when no distinct item arrived
    /// (`D(j) = 0`), also for one timer, where `ln(1 − 1/m) = −∞`.
    fn ln_untouched(&self, j: u64) -> f64 {
        self.ln_unhit(self.distinct.d(j as f64))
    }

    /// `k·ln(1 − 1/m)·d`, the log of a timer's chance to miss `d` distinct items: 0 at
    /// `d = 0` (not `−∞·0`).
    fn ln_unhit(&self, d: f64) -> f64 {
        if d == 0.0 {
            0.0
        } else {
            self.ln_q * d
        }
    }

    /// `F(r, c, j)`: a specific `c` of `r` timers untouched during `j` insertions, the
    /// other `r − c` touched.
    ///
    /// # Formula
    /// ```text
    /// F(r, c, j) ≈ ((1 − 1/m)^(k D(j)))^c (1 − (1 − 1/m)^(k D(j)))^(r − c)     Eq. (21) [TBF]
    /// ```
    pub fn f(&self, r: u32, c: u32, j: u64) -> f64 {
        self.untouched(j).powi(c as i32) * self.touched(j).powi((r - c) as i32)
    }

    /// `G(r, c, λ) ≈ F(c, 0, B) · F(r, c, (λ−1)B + b)`, Eq. (25) [TBF] (or its
    /// [`GForm::Increment`] refinement).
    pub fn g(&self, r: u32, c: u32, lambda: u64, b: u64) -> f64 {
        let a = (lambda - 1) * self.params.block_size + b;
        self.g_over_f(c, a) * self.f(r, c, a)
    }

    /// Checks that an observation can occur in this filter.
    ///
    /// # Errors
    /// `offset >= B`; `touched` outside `1..=k`; `matching` outside `1..=touched` (a
    /// finite age); `timestamp_age > T_Ω`; `λ = 0` with `b = 0` (no insertion carries the
    /// current timestamp yet); `λ = 0` with `c < r` (all timers would hold the newest
    /// timestamp); `λ = 1`, `b = 0` with `c < r` (no insertion since `T_x` ended could
    /// have overwritten a timer).
    pub fn check_observation(&self, o: &BtbfObservation) -> Result<(), ModelError> {
        let p = &self.params;
        check::in_range("offset", o.offset, 0..=p.block_size - 1)?;
        check::in_range("touched", o.touched, 1..=p.k)?;
        match o.age {
            TimerAge::Expired => {
                check::in_range("matching", o.matching, 0..=o.touched)?;
            }
            TimerAge::Finite(lambda) => {
                check::in_range("matching", o.matching, 1..=o.touched)?;
                if lambda > p.t_max() {
                    return Err(ModelError::invalid(
                        "timestamp_age",
                        lambda,
                        format!(
                            "0 <= timestamp_age <= T_Ω = ⌈w/B⌉ + 1 + P = {}: timestamps count at most T_Ω blocks back, and the expiry scan marks a timer expired once its age reaches ⌈w/B⌉ + 1 = {}, so an older finite age cannot be observed (pass `expired`)",
                            p.t_max(),
                            p.scan_expiry_age()
                        ),
                    ));
                }
                if lambda == 0 && o.offset == 0 {
                    return Err(ModelError::invalid(
                        "timestamp_age",
                        0,
                        "λ >= 1 when the offset b = 0: no insertion carries the current timestamp yet (contradiction)",
                    ));
                }
                if lambda == 0 && o.matching != o.touched {
                    return Err(ModelError::invalid(
                        "matching",
                        o.matching,
                        format!("c = r = {} when λ = 0: every timer holds the newest timestamp (contradiction)", o.touched),
                    ));
                }
                if lambda == 1 && o.offset == 0 && o.matching != o.touched {
                    return Err(ModelError::invalid(
                        "matching",
                        o.matching,
                        format!("c = r = {} when λ = 1 and b = 0: no insertion since T_x could have overwritten a timer (contradiction)", o.touched),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The sliding-window posterior `P(I_x < w | R_x)` of an inferential BTBF.
    ///
    /// # Formula
    /// With `s = 1 − p_x`, `L = ⌈(w − b)/B⌉`, `a = (λ−1)B + b`, `F_c = F(c, 0, B)`:
    /// ```text
    /// λ > L (or expired):  0                                              Eq. Thm 2 [TBF]
    /// λ = 0:      1 − s^w / ((1 − s^b)/F(r, 0, b) + s^b)                   Eq. (23) [TBF]
    /// 0 < λ < L:  1 − s^(w−a) / ((1 − s^B)/F_c + s^B)                      Eq. (26) [TBF]
    /// λ = L:      (1 − s^(w−a)) / (1 − s^B (1 − F_c))                      Eq. (27) [TBF]
    /// ```
    /// (with [`GForm::Increment`], `F_c = (1 − (1−1/m)^(k(D(a+B) − D(a))))^c`.)
    ///
    /// # Accuracy
    /// Exact for the likelihoods of Eqs. (22) and (24) [TBF] (tests compare a direct
    /// summation of Eq. (9) to 1e-9). With [`GForm::Increment`] (or `D(j) = j`) it is
    /// also the exact Bayes posterior of the forward model used by the chooser
    /// ([`Self::observation_masses`]). Against simulation (Uniform stream, `|U| = w`), the
    /// paper's form puts mid-range posteriors 0.05-0.19 below the measured frequency
    /// (Posterior Error ≈ 0.05); the increment form is calibrated (see the validate
    /// suite).
    ///
    /// # Numerics
    /// `1 − x/y` is evaluated as `(y − x)/y` with `y − x` written as a sum of
    /// non-negative terms, so small posteriors keep their relative accuracy.
    ///
    /// # Errors
    /// `px` outside `(0, 1]`, an impossible observation ([`Self::check_observation`]), or
    /// one whose likelihood is exactly 0 (`m = 1`; `p_x = 1` with `a > 0`).
    pub fn posterior(&self, px: f64, o: &BtbfObservation) -> Result<f64, ModelError> {
        check_px(px)?;
        self.check_observation(o)?;
        // The closed forms divide out F(r, c, a); where it is exactly 0 (m = 1: every
        // insertion touches the one timer) the observation has no likelihood at any age
        // and the forms would answer for an impossible event (found by the extremes
        // proptest).
        if let TimerAge::Finite(lambda @ 1..) = o.age {
            if lambda <= self.params.expiry_age(o.offset) {
                let a = (lambda - 1) * self.params.block_size + o.offset;
                // ln F(r, c, a) = c·ln u + (r−c)·ln(1 − u): −∞ only when F is exactly 0
                // (an underflowing F is fine: it cancels in the closed forms).
                let untouched = f64::from(o.matching) * self.ln_untouched(a);
                let touched = if o.touched > o.matching {
                    f64::from(o.touched - o.matching) * self.touched(a).ln()
                } else {
                    0.0
                };
                // p_x = 1 puts the whole prior on age 0, where the likelihood is 0 if a > 0.
                if untouched + touched == f64::NEG_INFINITY || (px >= 1.0 && a > 0) {
                    return Err(zero_likelihood(o));
                }
            }
        }
        Ok(self.posterior_unchecked(px, o))
    }

    /// [`Self::posterior`] without validation (the reference filters' hot path).
    pub fn posterior_unchecked(&self, px: f64, o: &BtbfObservation) -> f64 {
        match o.age {
            TimerAge::Expired => 0.0,
            TimerAge::Finite(lambda) => self
                .age_posterior(&self.item_terms(px), o.offset, lambda, o.touched)
                .at(self, o.matching),
        }
    }

    /// [`Self::posterior_unchecked`] of this model and of the same model with `G` of the
    /// form `other` (what `self.clone().with_g_form(other)` answers), bit for bit, from
    /// the item's terms ([`Self::item_terms`] of `p_x`): the two posteriors share every
    /// term but `G`, so the pair costs about one posterior (the timing suite asks both
    /// per query).
    pub fn posterior_pair_with(
        &self,
        item: &ItemTerms,
        o: &BtbfObservation,
        other: GForm,
    ) -> (f64, f64) {
        let TimerAge::Finite(lambda) = o.age else {
            return (0.0, 0.0);
        };
        let own = self.age_posterior(item, o.offset, lambda, o.touched);
        // `G` of the other form; every other term is the item's and the age's.
        let theirs = own.with_g(|| self.g_base_of(other, self.later_insertions(o.offset, lambda)));
        (own.at(self, o.matching), theirs.at(self, o.matching))
    }

    /// The terms of [`Self::posterior`] that depend on the item only: `ln s = ln(1 − p_x)`
    /// and `1 − s^B` (the same for every form of `G`).
    pub fn item_terms(&self, px: f64) -> ItemTerms {
        let ln_s = (-px).ln_1p();
        ItemTerms {
            ln_s,
            q_block: -(self.params.block_size as f64 * ln_s).exp_m1(),
        }
    }

    /// `a = (λ − 1)·B + b`: the insertions after the item's, at timer age `λ ≥ 1` and
    /// offset `b`, where `G/F` is taken ([`Self::g_base`]).
    fn later_insertions(&self, b: u64, lambda: u64) -> u64 {
        (lambda - 1) * self.params.block_size + b
    }

    /// The terms of [`Self::posterior`] at age `λ` and offset `b` that do not depend on
    /// `c_x` (every transcendental function of the posterior), for `r_x = touched`:
    /// a caller visiting the `k` observations of one age evaluates them once.
    pub(crate) fn age_posterior(
        &self,
        item: &ItemTerms,
        b: u64,
        lambda: u64,
        touched: u32,
    ) -> AgePosterior {
        let p = &self.params;
        let l = p.expiry_age(b);
        if lambda > l {
            return AgePosterior::Fixed(0.0);
        }
        // `1 − s^e` from one `exp_m1`, and `s^e = 1 − (1 − s^e)`: the subtraction costs
        // at most 1.1e-16 absolutely, and `s^e` is only ever added to a term of at
        // least `1 − s^e`, so the result keeps its relative accuracy.
        let one_minus_pow = |e: u64| item.one_minus_pow(e);
        if lambda == 0 {
            let f0 = self.touched_at_offset(b).powi(touched as i32);
            let q = one_minus_pow(b);
            // y = (1−s^b)/F + s^b;  y − s^w = (1−s^b)/F + s^b (1 − s^(w−b)).
            let head = q / f0;
            let s_b = 1.0 - q;
            return AgePosterior::Fixed(AgePosterior::clamp(
                (head + s_b * one_minus_pow(p.w - b)) / (head + s_b),
            ));
        }
        let big_b = p.block_size;
        let a = self.later_insertions(b, lambda);
        let g = self.g_base(a);
        let q = item.q_block;
        let s_big_b = 1.0 - q;
        if lambda < l {
            // y = (1−s^B)/F_c + s^B;  y − s^(w−a) = (1−s^B)/F_c + s^B (1 − s^(w−a−B)).
            AgePosterior::Inside {
                q,
                s_big_b,
                s_tail: s_big_b * one_minus_pow(p.w - a - big_b),
                g,
            }
        } else {
            AgePosterior::Last {
                num: one_minus_pow(p.w - a),
                q,
                s_big_b,
                g,
            }
        }
    }

    /// The likelihood `P(R_x | i)` as a function of the age `i`.
    ///
    /// # Formula
    /// ```text
    /// λ = 0:  1 for i < b;  F(r, 0, b) for i >= b                          Eq. (22) [TBF]
    /// λ > 0:  0 for i < a;  F(r, c, a) for a <= i < a + B;  G for i >= a + B   Eq. (24) [TBF]
    /// ```
    /// (`a = (λ−1)B + b`). An expired observation is given the likelihood 0 below `w`
    /// and 1 from `w` on: only `I_x >= w` is known, and the model of which timers
    /// expired is not part of the paper (an approximation used for the expected and
    /// most likely ages only; the posterior is exactly 0 either way).
    pub fn likelihood(&self, o: &BtbfObservation) -> PiecewiseLikelihood {
        let p = &self.params;
        let b = o.offset;
        match o.age {
            TimerAge::Expired => PiecewiseLikelihood::new(vec![(0, 0.0), (p.w, 1.0)]),
            TimerAge::Finite(0) => {
                PiecewiseLikelihood::new(vec![(0, 1.0), (b, self.f(o.touched, 0, b))])
            }
            TimerAge::Finite(lambda) => {
                let a = (lambda - 1) * p.block_size + b;
                let f = self.f(o.touched, o.matching, a);
                let g = self.g(o.touched, o.matching, lambda, b);
                let mut pieces = Vec::with_capacity(3);
                if a > 0 {
                    pieces.push((0, 0.0));
                }
                pieces.push((a, f));
                pieces.push((a + p.block_size, g));
                PiecewiseLikelihood::new(pieces)
            }
        }
    }

    /// [`Self::likelihood`] divided by `F(r, c, a)` for `λ > 0` (pieces `1` and `G/F`):
    /// the same posterior quantities, without the underflow of `F` when `k` and `m`
    /// are large (e.g. `(1 − u)^62` with `1 − u ≈ 1e-7`).
    fn relative_likelihood(&self, o: &BtbfObservation) -> PiecewiseLikelihood {
        match o.age {
            TimerAge::Finite(lambda @ 1..) => {
                let p = &self.params;
                let a = (lambda - 1) * p.block_size + o.offset;
                let mut pieces = Vec::with_capacity(3);
                if a > 0 {
                    pieces.push((0, 0.0));
                }
                pieces.push((a, 1.0));
                pieces.push((a + p.block_size, self.g_over_f(o.matching, a)));
                PiecewiseLikelihood::new(pieces)
            }
            _ => self.likelihood(o),
        }
    }

    /// The expected insertion age `E[I_x | R_x]`, Eq. (8) [TBF].
    ///
    /// # Errors
    /// As [`Self::posterior`]; an observation of zero likelihood.
    pub fn expected_age(&self, px: f64, o: &BtbfObservation) -> Result<f64, ModelError> {
        check_px(px)?;
        self.check_observation(o)?;
        self.relative_likelihood(o)
            .expected_age(px)
            .ok_or_else(|| zero_likelihood(o))
    }

    /// The most likely insertion age `argmax_i P(i | R_x)` (Section 2.3.3 [TBF]).
    ///
    /// # Errors
    /// As [`Self::expected_age`].
    pub fn most_likely_age(&self, px: f64, o: &BtbfObservation) -> Result<u64, ModelError> {
        check_px(px)?;
        self.check_observation(o)?;
        self.relative_likelihood(o)
            .most_likely_age(px)
            .ok_or_else(|| zero_likelihood(o))
    }

    /// The standard BTBF's probability of answering Pos for an item of age `i >= w`
    /// queried at block offset `b` (Section 3.2.2 [TBF]).
    ///
    /// # Formula
    /// ```text
    /// fp(i, b) = 1                                   for w <= i < L(b)·B + b   (block granularity)
    ///          = (1 − (1 − 1/m)^(k D(L(b)·B + b)))^k   for i >= L(b)·B + b      (refreshed by others)
    /// ```
    pub fn fp_at_age(&self, i: u64, b: u64) -> f64 {
        let p = &self.params;
        let horizon = p.expiry_age(b) * p.block_size + b;
        if i < p.w {
            0.0
        } else if i < horizon {
            1.0
        } else {
            self.touched(horizon).powi(p.k as i32)
        }
    }

    /// Block offsets at which averages over `b` are evaluated: all of `0..B` when
    /// `B <= samples`, else `samples` midpoints of equal strata.
    pub fn offsets(&self, samples: u64) -> Vec<u64> {
        let big_b = self.params.block_size;
        let n = samples.max(1).min(big_b);
        (0..n).map(|t| ((2 * t + 1) * big_b) / (2 * n)).collect()
    }

    /// Metrics of the standard filter under `prior`: FP `P(Pos | I_x >= w)` averaged over
    /// every offset `b` (stratified over 4096 offsets for larger `B`) and over arriving
    /// items (Zipf: 64 classes, [`StreamPrior::classes`]). Without a prior, the queried
    /// items are never-repeated ones (`p_x → 0`): only refreshed timers make an FP.
    pub fn metrics(&self, prior: Option<&StreamPrior>) -> BtbfMetrics {
        let p = &self.params;
        let offsets = self.offsets(4096);
        let refreshed = |b: u64| {
            let horizon = self.refresh_horizon(b);
            (horizon, self.touched(horizon).powi(p.k as i32))
        };
        let (fp, in_window) = match prior {
            None => {
                let s: f64 = offsets.iter().map(|&b| refreshed(b).1).sum();
                (s / offsets.len() as f64, None)
            }
            Some(prior) => {
                let mut fp_joint = 0.0;
                let mut out = 0.0;
                // A product `P(I_x >= h)·ρ` below the smallest normal f64 has lost digits.
                let mut subnormal = false;
                for (weight, px) in prior.classes(64) {
                    out += weight * prior_range(px, p.w, None);
                    let mut sum = 0.0;
                    for &b in &offsets {
                        let (horizon, r) = refreshed(b);
                        let expired = prior_range(px, horizon, None) * r;
                        subnormal |= expired > 0.0 && expired < f64::MIN_POSITIVE;
                        sum += prior_range(px, p.w, Some(horizon)) + expired;
                    }
                    fp_joint += weight * sum / offsets.len() as f64;
                }
                // `P(I_x >= w)` below the smallest f64 (a frequent item, a long window), or
                // a term that lost digits to underflow: the ratio from logs; 0 only when no
                // arrival is outside the window.
                let fp = if out >= f64::MIN_POSITIVE && !subnormal {
                    fp_joint / out
                } else {
                    self.ln_fp(Some(prior)).exp()
                };
                (fp, Some(1.0 - out))
            }
        };
        BtbfMetrics {
            fp: probability(fp),
            bits: p.memory_bits(),
            bits_per_item: p.bits_per_item(),
            t_max: p.t_max(),
            scan_per_insert: p.scan_per_insert(),
            in_window,
        }
    }

    /// The age from which an item queried at block offset `b` answers Pos only through
    /// timers refreshed by others, `L(b)·B + b` (Section 3.2.2 [TBF]).
    fn refresh_horizon(&self, b: u64) -> u64 {
        let p = &self.params;
        p.expiry_age(b) * p.block_size + b
    }

    /// The natural log of [`BtbfMetrics::fp`] of [`Self::metrics`], in log space: it keeps
    /// its relative precision below the smallest `f64` (2.2e-308; `m = 10^12`,
    /// `k = 60`, `w = 10` gives about 10^-600). `−∞` where the FP is exactly 0 (with a
    /// prior under which every arrival is in the window).
    ///
    /// # Formula
    /// With `h_b = L(b)·B + b` and `ln ρ_b = k·ln(1 − (1 − 1/m)^(k D(h_b)))` (Section 3.2.2
    /// [TBF]), over the `n_b` offsets of [`Self::offsets`]:
    /// ```text
    /// no prior:  ln fp = LSE_b(ln ρ_b) − ln n_b
    /// prior:     ln fp = LSE_(class, b)(ln w_c − ln n_b + LAE(ln P(w <= I < h_b), ln P(I >= h_b) + ln ρ_b))
    ///                    − LSE_class(ln w_c + ln P(I >= w))
    /// ```
    /// (`LSE` log-sum-exp, `LAE` its two-term form; `P(·)` Eq. (5) [TBF] by
    /// [`ln_prior_range`]).
    pub fn ln_fp(&self, prior: Option<&StreamPrior>) -> f64 {
        let p = &self.params;
        let offsets = self.offsets(4096);
        let ln_offsets = (offsets.len() as f64).ln();
        let ln_refreshed = |b: u64| {
            let horizon = self.refresh_horizon(b);
            (horizon, f64::from(p.k) * self.touched(horizon).ln())
        };
        match prior {
            None => {
                let s: LnSum = offsets.iter().map(|&b| ln_refreshed(b).1).collect();
                s.value() - ln_offsets
            }
            Some(prior) => {
                let (mut joint, mut out) = (LnSum::new(), LnSum::new());
                for (weight, px) in prior.classes(64) {
                    let ln_weight = weight.ln();
                    out.add(ln_weight + ln_prior_range(px, p.w, None));
                    for &b in &offsets {
                        let (horizon, ln_r) = ln_refreshed(b);
                        joint.add(
                            ln_weight - ln_offsets
                                + log_add_exp(
                                    ln_prior_range(px, p.w, Some(horizon)),
                                    ln_prior_range(px, horizon, None) + ln_r,
                                ),
                        );
                    }
                }
                let out = out.value();
                if out == f64::NEG_INFINITY {
                    f64::NEG_INFINITY
                } else {
                    // Each class's joint term is at most its `P(I >= w)`, so the ratio is
                    // at most 1; the difference of two logs of magnitude `L` is off by
                    // about `L·ε` (9.3e-10 above 0 at `ln P(I >= w) ≈ −5·10⁶`: w = 2^38.9,
                    // a uniform prior over 92 000 items, found by a property test).
                    (joint.value() - out).min(0.0)
                }
            }
        }
    }

    /// The forward model of an observation: for an item with sample probability `px`
    /// queried at offset `b`, every observation `(λ, c)` with `r = k` and its joint
    /// probabilities `(P(o, I_x < w), P(o, I_x >= w))`. Expired observations are
    /// omitted (their posterior is 0 and they never occur with `I_x < w`).
    ///
    /// # Formula
    /// `j_ℓ = ℓB + b`, `u_ℓ = (1 − 1/m)^(k D(j_ℓ))` (a timer untouched during the last
    /// `j_ℓ` insertions). An item inserted in block `λ0` (ages `[j_(λ0−1), j_λ0)`)
    /// shows `λ = λ0` with `c ~ Binomial(k, u_(λ0−1))`, `c >= 1`; if every timer was
    /// overwritten it shows the age of the refreshes: `λ < λ0` with
    /// `C(k,c) (u_(λ−1) − u_λ)^c (1 − u_(λ−1))^(k−c)` (for `λ = 0`: `(1 − u_0)^k`, `c = k`),
    /// independent of `λ0`. Timers are treated as independent, as in Eq. (21) [TBF].
    /// With `D(j) = j` this reproduces Eqs. (22), (24), (25) [TBF] exactly.
    pub fn observation_masses(&self, px: f64, b: u64, visit: impl FnMut(u64, u32, f64, f64)) {
        self.observation_masses_at(px, &self.offset_timers(b), visit);
    }

    /// What [`Self::observation_masses`] needs of the timers at offset `b`, whatever the
    /// item: `1 − u_0` and `u_ℓ` for `ℓ = 0..=L(b)`, each one evaluation of `D(·)`
    /// (a quadrature for a Zipf stream), so a caller visiting many items at one offset
    /// computes them once.
    pub fn offset_timers(&self, b: u64) -> OffsetTimers {
        let big_b = self.params.block_size;
        OffsetTimers {
            b,
            touched0: self.touched(b),
            untouched: (0..=self.params.expiry_age(b))
                .map(|lambda| self.untouched(lambda * big_b + b))
                .collect(),
        }
    }

    /// [`Self::observation_masses`] at the offset of `timers` (from
    /// [`Self::offset_timers`] of this model).
    pub fn observation_masses_at(
        &self,
        px: f64,
        timers: &OffsetTimers,
        mut visit: impl FnMut(u64, u32, f64, f64),
    ) {
        let p = &self.params;
        let k = p.k;
        let big_b = p.block_size;
        let w = p.w;
        let b = timers.b;
        let l = p.expiry_age(b);
        let item = self.item_terms(px);
        let range = |a: u64, z: Option<u64>| item.prior_range(a, z);
        // λ = 0: from λ0 = 0 (ages < b, all inside since b < B <= w) and from later blocks.
        let refreshed0 = timers.touched0.powi(k as i32);
        let in0 = range(0, Some(b)) + refreshed0 * range(b, Some(w));
        let out0 = refreshed0 * range(w, None);
        if in0 + out0 > 0.0 {
            visit(0, k, in0, out0);
        }
        let binom = binomials(k);
        // `stay^(k−c)`, rebuilt per age: running products instead of `powi` per term.
        let mut stay_pow = vec![1.0; k as usize + 1];
        let mut u_prev = timers.untouched[0];
        for lambda in 1..=l {
            let j = lambda * big_b + b;
            let j_prev = j - big_b;
            let u = timers.untouched[lambda as usize];
            // Ages of block λ: [j_prev, j); inside the window below w.
            let blk_in = range(j_prev, Some(j.min(w)));
            let blk_out = if j > w { range(w, Some(j)) } else { 0.0 };
            let later_in = if j < w { range(j, Some(w)) } else { 0.0 };
            let later_out = range(j.max(w), None);
            let (own, refresh, stay) = (u_prev, (u_prev - u).max(0.0), 1.0 - u_prev);
            let mut power = 1.0;
            for v in &mut stay_pow[1..] {
                power *= stay;
                *v = power;
            }
            let (mut own_c, mut ref_c) = (1.0, 1.0);
            for c in 1..=k {
                own_c *= own;
                ref_c *= refresh;
                let tail = binom[c as usize] * stay_pow[(k - c) as usize];
                let (own_p, ref_p) = (own_c * tail, ref_c * tail);
                let m_in = own_p * blk_in + ref_p * later_in;
                let m_out = own_p * blk_out + ref_p * later_out;
                if m_in + m_out > 0.0 {
                    visit(lambda, c, m_in, m_out);
                }
            }
            u_prev = u;
        }
    }
    /// The forward model of an observation given the item's age: for an item last
    /// inserted `age` insertions ago (`None`: never inserted), queried at block offset
    /// `b`, every unexpired observation `(λ, c)` with `r = k` and its probability; the
    /// rest of the mass is expired observations (posterior 0).
    ///
    /// # Formula
    /// The per-age terms of [`Self::observation_masses`] (same `u_ℓ`, same independent
    /// timers, Eq. (21) [TBF]): an item of block `λ0` (`λ0 = 0` for `age < b`, else
    /// `⌊(age − b)/B⌋ + 1`; `∞` when never inserted) shows `(0, k)` surely if `λ0 = 0`;
    /// otherwise `(0, k)` with `(1 − u_0)^k`, `(λ, c)` for `1 <= λ < λ0` with
    /// `C(k,c) (u_(λ−1) − u_λ)^c (1 − u_(λ−1))^(k−c)` (every timer refreshed), and
    /// `(λ0, c)`, `c >= 1`, with `C(k,c) u_(λ0−1)^c (1 − u_(λ0−1))^(k−c)` while
    /// `λ0 <= L(b)`.
    pub fn observations_at_age(
        &self,
        age: Option<u64>,
        b: u64,
        mut visit: impl FnMut(u64, u32, f64),
    ) {
        let p = &self.params;
        let k = p.k;
        let big_b = p.block_size;
        let block = match age {
            Some(i) if i < b => {
                visit(0, k, 1.0);
                return;
            }
            Some(i) => (i - b) / big_b + 1,
            None => u64::MAX,
        };
        let refreshed0 = self.touched(b).powi(k as i32);
        if refreshed0 > 0.0 {
            visit(0, k, refreshed0);
        }
        let binom = binomials(k);
        let mut u_prev = self.untouched(b);
        for lambda in 1..=p.expiry_age(b).min(block) {
            let u = self.untouched(lambda * big_b + b);
            let stay = 1.0 - u_prev;
            let base = if lambda < block {
                (u_prev - u).max(0.0)
            } else {
                u_prev
            };
            for c in 1..=k {
                let q = binom[c as usize] * base.powi(c as i32) * stay.powi((k - c) as i32);
                if q > 0.0 {
                    visit(lambda, c, q);
                }
            }
            u_prev = u;
        }
    }

    /// The expected penalty of one query answered by the minimum-penalty rule of Section
    /// 2.6 [TBF] on [`Self::posterior`] (with `p_x = px`): an item last inserted `age`
    /// insertions ago (`None`: never), queried at block offset `b`, averaged over the
    /// observations ([`Self::observations_at_age`]) and over `penalties`. A query of an
    /// item inside the window (`age < w`) is charged `E[$FN·1{Neg}]`, any other
    /// `E[$FP·1{Pos}]` ([`PenaltyDist::expected_costs`]); an expired observation has
    /// posterior 0.
    pub fn expected_cost_at_age(
        &self,
        px: f64,
        age: Option<u64>,
        b: u64,
        penalties: &PenaltyDist,
    ) -> f64 {
        let inside = age.is_some_and(|i| i < self.params.w);
        let charge = |post: f64| {
            let (fp, fn_) = penalties.expected_costs(post);
            if inside {
                fn_
            } else {
                fp
            }
        };
        let (mut mass, mut cost) = (0.0, 0.0);
        self.observations_at_age(age, b, |lambda, c, q| {
            let o = BtbfObservation {
                age: TimerAge::Finite(lambda),
                matching: c,
                touched: self.params.k,
                offset: b,
            };
            mass += q;
            cost += q * charge(self.posterior_unchecked(px, &o));
        });
        cost + (1.0 - mass).max(0.0) * charge(0.0)
    }
}

/// `C(k, c)` for `c = 0..=k` as `f64` (exact up to `k = 64`'s 1.8e18 to 16 digits).
pub(crate) fn binomials(k: u32) -> Vec<f64> {
    let mut v = vec![1.0f64; k as usize + 1];
    for c in 1..=k as usize {
        v[c] = v[c - 1] * (k as usize - c + 1) as f64 / c as f64;
    }
    v
}

fn zero_likelihood(o: &BtbfObservation) -> ModelError {
    ModelError::invalid(
        "timestamp_age",
        format!("{:?}", o.age),
        "an observation of non-zero likelihood",
    )
}
