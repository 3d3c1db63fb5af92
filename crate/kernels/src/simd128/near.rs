//! LiteRT's exact double-rounding requantization read off one `f32` evaluation, where a bound
//! computed at prepare time proves the two agree.
//!
//! LiteRT's requantized int8 ADD / SUB is a chain of `MultiplyByQuantizedMultiplier`s
//! ([`crate::fixedpoint`]), each a floor-like rounding of a product: it costs two 64-bit
//! multiplies per element in SIMD128 ([`super::requant`]). But each step is its real value
//! plus a bounded error, so the whole chain is `round(z)` (half away from zero) where `z` is
//! within a prepare-time bound `E` of the ideal affine value `y = c1·x1 + c2·x2 + c0` of the
//! int8 inputs:
//!
//! - `MultiplyByQuantizedMultiplier(x, m, shift)` with `m ≥ 0` and `x · 2^left` in `i32` (no
//!   wrap; `left = max(shift, 0)`, `right = min(max(−shift, 0), 31)`) is
//!   `RoundingDivideByPOT(SRDHM(x·2^left, m), right)`. `SRDHM(a, m) = ⌊(a·m + 2^30) / 2^31⌋`
//!   ([`super::requant`]) is `a·m / 2^31 + e` with `e ∈ (−½, ½]`; dividing by `2^right` and
//!   rounding adds at most `½` more, so the result is `x·ratio + ε` with
//!   `ratio = m · 2^(left − 31 − right)` and `|ε| ≤ ½·2^−right + ½` (`½` when `right = 0`: the
//!   division is the identity) — [`Mbqm`].
//! - The last step's value before its final rounding is `z = raw·ratio + e·2^−right` (`right >
//!   0`) or `raw·ratio` itself (`right = 0`, where the SRDHM is the final rounding, half up);
//!   the int8 output is `round(z) + zero point`, clamped. Both roundings give `k` when `z` is
//!   strictly inside `(k − ½, k + ½)`.
//!
//! The kernel evaluates `t = fl(fl(fl(x1·C1) + fl(x2·C2)) + C0)` in `f32` (`C` the
//! coefficients rounded to `f32`), which is within `F = 8u·S` of `y` (`u = 2^−24`,
//! `S = 128·(|c1| + |c2|) + |c0|` bounds every term: the coefficients' two roundings, the two
//! products and two sums contribute at most `(4.1·(|x1c1| + |x2c2|) + 2.1·|c0|)·u`). When
//! `|t − rne(t)| < ½ − E − F`, `t` is farther than `E + F` from every half-integer, so `y` is
//! farther than `E` and `z` lies strictly inside the same unit cell as `t`: the exact output is
//! `rne(t) + zp`, read with XNNPACK's magic-bias rounding. A vector in which any lane fails
//! the test (a possible tie) is computed with the exact arithmetic instead; with `E + F` at
//! most `1/64` (else the form is not used) that is a small fraction of vectors.
//!
//! The depthwise convolution's requantization (a channel per lane: [`super::requant::LaneRequant`]
//! spends four 64-bit multiplies per vector) is the same with one input: `y = acc · ratio_c` (the
//! int32 accumulator is exact), `E = ½·2^−right_c` (or 0), and `t = fl(fl(acc) · C_c)` within
//! `3.01u·|y|` of `y` ([`NearChannel`], [`NearLanes`]). That bound is used only for `|y| ≤ 384`, so
//! `F = 2^−12` covers it; outside, both forms saturate to the same end of the int8 clamp: for `y >
//! 384` the exact value and `rne(t)` both exceed `383 − E`, above 127 with any int8 zero point (the
//! form is refused for others), and the magic-bias bits grow with a positive `t` (so saturate too,
//! whatever its size); for `y < −384`, `t` is raised to `act_min − zp` first (XNNPACK's lower
//! clamp, an integer: it passes the test) and both give `act_min`. (The GEMM convolution's
//! requantization, one channel's uniform shift per vector, costs about what this form does:
//! measured, it gained nothing there, so it keeps the fixed point.)
//!
//! Exhaustive tests over all 65,536 input pairs, on parameters derived from scales the way the
//! ops layer derives them (including power-of-two ratios, where exact ties are common), check
//! every output against the scalar reference.

use super::elementwise_int::widen16;
use super::requant::{ChannelRequant, Fp32Clamp};
use super::v128::V128;
use crate::reference::elementwise::QuantAddSub;
use crate::xnnpack::{MAGIC, magic_less_zero_point};

/// `MultiplyByQuantizedMultiplier(x, m, shift)` as `x · ratio` plus a bounded error, for every
/// `|x| ≤ max_abs` (see the module documentation).
#[derive(Debug, Clone, Copy)]
struct Mbqm {
    /// `m · 2^(left − 31 − right)`.
    ratio: f64,
    /// Bound on the error before the final rounding: `½ · 2^−right`, or 0 when `right = 0`.
    pre: f64,
    /// Bound on the whole error: `pre + ½`.
    err: f64,
}

impl Mbqm {
    /// The form for `(m, shift)` over `|x| ≤ max_abs`, or `None` when `m < 0` or `x · 2^left`
    /// could leave `i32` (the reference wraps there).
    fn new(m: i32, shift: i32, max_abs: f64) -> Option<Self> {
        let left = shift.max(0);
        if m < 0 || left >= 31 || max_abs * f64::from(1u32 << left) > f64::from(i32::MAX) {
            return None;
        }
        let right = (-shift).clamp(0, 31);
        let ratio = f64::from(m) * 2f64.powi(left - 31 - right);
        let pre = if right > 0 {
            0.5 * 2f64.powi(-right)
        } else {
            0.0
        };
        Some(Mbqm {
            ratio,
            pre,
            err: pre + 0.5,
        })
    }
}

/// Largest `|v|` of `x + offset` over int8 `x`.
fn max_abs_offset(offset: i32) -> f64 {
    f64::from((offset - 128).abs().max((offset + 127).abs()))
}

/// The certified `f32` form `t = c1·x1 + c2·x2 + c0` of a requantized int8 function of two
/// inputs (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NearAffine2 {
    c1: [f32; 4],
    c2: [f32; 4],
    c0: [f32; 4],
    /// `½ − E − F`, rounded down to `f32`: the largest accepted `|t − rne(t)|` (exclusive).
    limit: [f32; 4],
    magic_less_zp: [i32; 4],
}

impl NearAffine2 {
    /// Largest `E + F` the form is used with.
    const MAX_MARGIN: f64 = 1.0 / 64.0;

    /// The form of LiteRT's int8 ADD / SUB `p`, or `None` where the bounds do not hold
    /// (wrapping intermediates, a negative multiplier, or a margin above [`Self::MAX_MARGIN`]).
    pub(crate) fn add_sub(p: &QuantAddSub) -> Option<Self> {
        if !(0..31).contains(&p.left_shift) {
            return None;
        }
        let two_l = f64::from(1u32 << p.left_shift);
        let (v1, v2) = (
            max_abs_offset(p.input1_offset),
            max_abs_offset(p.input2_offset),
        );
        let in1 = Mbqm::new(p.input1_multiplier, p.input1_shift, v1 * two_l)?;
        let in2 = Mbqm::new(p.input2_multiplier, p.input2_shift, v2 * two_l)?;
        let (a1, a2) = (in1.ratio * two_l, in2.ratio * two_l);
        // The sum (or difference) of the two rescaled inputs, as integers, at most this.
        let raw_max = v1 * a1 + in1.err + v2 * a2 + in2.err;
        if raw_max > f64::from(i32::MAX) {
            return None;
        }
        let out = Mbqm::new(p.output_multiplier, p.output_shift, raw_max)?;
        let beta = out.ratio;
        let sign = if p.sub { -1.0 } else { 1.0 };
        let c1 = a1 * beta;
        let c2 = sign * a2 * beta;
        let c0 = (f64::from(p.input1_offset) * a1 + sign * f64::from(p.input2_offset) * a2) * beta;
        let e = (in1.err + in2.err) * beta + out.pre;
        let s = 128.0 * (c1.abs() + c2.abs()) + c0.abs();
        let f = 8.0 * 2f64.powi(-24) * s;
        if e + f > Self::MAX_MARGIN {
            return None;
        }
        Some(NearAffine2 {
            c1: [c1 as f32; 4],
            c2: [c2 as f32; 4],
            c0: [c0 as f32; 4],
            limit: [round_down(0.5 - e - f); 4],
            magic_less_zp: [magic_less_zero_point(p.output_offset); 4],
        })
    }

    /// The sixteen outputs plus the zero point, unclamped, as four `i32x4`, or `None` when
    /// some lane may be within `E + F` of a rounding boundary.
    #[inline(always)]
    pub(crate) fn lanes(&self, x: V128, y: V128) -> Option<[V128; 4]> {
        let (x, y) = (widen16(x), widen16(y));
        let (c1, c2, c0) = (
            V128::load_f32(&self.c1),
            V128::load_f32(&self.c2),
            V128::load_f32(&self.c0),
        );
        let (magic, limit) = (V128::splat_f32(MAGIC), V128::load_f32(&self.limit));
        let zp = V128::load_i32(&self.magic_less_zp);
        let mut near = V128::zero();
        let r = [0, 1, 2, 3].map(|i| {
            let t = x[i]
                .f32x4_convert_i32x4()
                .f32x4_mul(c1)
                .f32x4_add(y[i].f32x4_convert_i32x4().f32x4_mul(c2))
                .f32x4_add(c0);
            let m = t.f32x4_add(magic);
            let d = t.f32x4_sub(m.f32x4_sub(magic));
            near = near.or(d.f32x4_abs().f32x4_ge(limit));
            m.i32x4_sub(zp)
        });
        if near.any_true() { None } else { Some(r) }
    }
}

/// One channel's requantization in the certified `f32` form (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NearChannel {
    /// `f32` of the channel's `m · 2^(−31 − right)`.
    scale: f32,
    /// `½ − E − 2^−12`, rounded down to `f32`.
    limit: f32,
}

impl NearChannel {
    /// Largest `E + F` the form is used with: `right ≥ 4`.
    const MAX_MARGIN: f64 = 1.0 / 16.0;

    /// The form of a channel's LiteRT requantization, or `None` when it shifts left (its
    /// accumulator times `2^left` could wrap), has a negative multiplier, or would need a
    /// margin above [`Self::MAX_MARGIN`].
    pub(crate) fn new(c: &ChannelRequant) -> Option<Self> {
        let m = c.multiplier[0];
        if c.left > 0 || m < 0 {
            return None;
        }
        let right = c.right as i32;
        let pre = if right > 0 {
            0.5 * 2f64.powi(-right)
        } else {
            0.0
        };
        let margin = pre + 2f64.powi(-12);
        if margin > Self::MAX_MARGIN {
            return None;
        }
        Some(NearChannel {
            scale: (f64::from(m) * 2f64.powi(-31 - right)) as f32,
            limit: round_down(0.5 - margin),
        })
    }
}

/// Four channels' [`NearChannel`]s, one per lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NearLanes {
    scale: [f32; 4],
    limit: [f32; 4],
}

impl NearLanes {
    /// The four channels' forms for output zero point `zp`, or `None` when one has none or `zp`
    /// is outside int8 (the saturation argument above takes `|zp| ≤ 128`).
    pub(crate) fn new(c: [ChannelRequant; 4], zp: i32) -> Option<Self> {
        if !(-128..=127).contains(&zp) {
            return None;
        }
        let n = [
            NearChannel::new(&c[0])?,
            NearChannel::new(&c[1])?,
            NearChannel::new(&c[2])?,
            NearChannel::new(&c[3])?,
        ];
        Some(NearLanes {
            scale: n.map(|n| n.scale),
            limit: n.map(|n| n.limit),
        })
    }

    /// [`near_requant`] of four accumulators, one channel per lane.
    #[inline(always)]
    pub(crate) fn apply(&self, acc: V128, clamp: Fp32Clamp) -> (V128, V128) {
        near_requant(
            acc,
            V128::load_f32(&self.scale),
            V128::load_f32(&self.limit),
            clamp,
        )
    }
}

/// The requantized lanes of `acc` with the zero point added (raised to `act_min − zp` first,
/// the upper clamp left to the caller's narrowing), and all ones in the lanes that may be
/// within the margin of a rounding boundary (there the caller runs the exact arithmetic).
#[inline(always)]
fn near_requant(acc: V128, scale: V128, limit: V128, clamp: Fp32Clamp) -> (V128, V128) {
    let magic = V128::splat_f32(MAGIC);
    let t = acc
        .f32x4_convert_i32x4()
        .f32x4_mul(scale)
        .f32x4_pmax(V128::splat_f32(clamp.lo));
    let m = t.f32x4_add(magic);
    let d = t.f32x4_sub(m.f32x4_sub(magic));
    let near = d.f32x4_abs().f32x4_ge(limit);
    (m.i32x4_sub(V128::splat_i32(clamp.magic_less_zp)), near)
}

/// The largest `f32` at most `x` (positive `x`).
fn round_down(x: f64) -> f32 {
    let l = x as f32;
    if f64::from(l) > x {
        f32::from_bits(l.to_bits() - 1)
    } else {
        l
    }
}
