//! QUANTIZE (float32 → int8, int8 → int8) and DEQUANTIZE (int8 → float32), per tensor,
//! bit-identical to [`reference::quantize`](crate::reference::quantize).
//!
//! - `affine_quantize`: `x / scale` in `f32x4.div` (IEEE, as the scalar division), rounded half
//!   away from zero as `t + trunc(2 · (q − t))` with `t = trunc(q)` (both steps exact; `t` itself
//!   for `|q| ≥ 2^23`, ±inf and NaN), converted
//!   with `i32x4.trunc_sat_f32x4_s` (Rust's saturating `as i32`, NaN → 0); the reference's
//!   saturating add of the zero point is reproduced by first limiting the value to ±2^16 (any
//!   value beyond clamps to the same int8 bound either way).
//! - `dequantize`: `(double)scale · (q − zero_point)` in `f64x2`, demoted to `f32` (the same
//!   single rounding as `as f32`).
//! - `requantize`: [`ChannelRequant`] (double rounding), offsets wrapping like the reference.

use super::elementwise_int::{narrow16, widen16};
use super::requant::ChannelRequant;
use super::v128::V128;
use crate::reference::quantize as reference;

/// Rounds four `f32` lanes half away from zero and converts them to `i32` (saturating, NaN → 0):
/// Rust's `x.round() as i32`. Lanes with `|q| ≥ 2^23` (integral already), infinities and NaN
/// keep `trunc(q)` (where `q − t` would be NaN). Also returns the mask of lanes whose rounded
/// value fits `i32` (false for NaN and ±∞).
#[inline(always)]
fn round_to_i32(q: V128) -> (V128, V128) {
    let t = q.f32x4_trunc();
    let d = q.f32x4_sub(t);
    let rounded = t.f32x4_add(d.f32x4_add(d).f32x4_trunc());
    let small = q.f32x4_abs().f32x4_lt(V128::splat_f32(8_388_608.0));
    let r = rounded.bitselect(t, small);
    // r in [-2^31, 2^31), false for NaN: r is integral, and the float below -2^31 is
    // -2^31 - 256.
    let fits = r
        .f32x4_lt(V128::splat_f32(2_147_483_648.0))
        .and(V128::splat_f32(-2_147_483_904.0).f32x4_lt(r));
    (r.i32x4_trunc_sat_f32x4(), fits)
}

/// QUANTIZE float32 → int8: `clamp(round(x / scale) + zero_point)`.
pub fn affine_quantize_int8(scale: f32, zero_point: i32, input: &[f32], output: &mut [i8]) {
    let s = V128::splat_f32(scale);
    let zp = V128::splat_i32(zero_point);
    let (lim_lo, lim_hi) = (V128::splat_i32(-(1 << 16)), V128::splat_i32(1 << 16));
    let (lo, hi) = (V128::splat_i8(i8::MIN), V128::splat_i8(i8::MAX));
    // A quotient outside i32: i32::MIN + zero_point with 32-bit wrap (reference::affine_quantize).
    let overflow = V128::splat_i32(i32::MIN.wrapping_add(zero_point).clamp(-(1 << 16), 1 << 16));
    let (ic, it) = input.as_chunks::<16>();
    let (oc, ot) = output.as_chunks_mut::<16>();
    for (x, o) in ic.iter().zip(oc.iter_mut()) {
        let (q, _) = x.as_chunks::<4>();
        let r = [0, 1, 2, 3].map(|i| {
            let (v, fits) = round_to_i32(V128::load_f32(&q[i]).f32x4_div(s));
            v.i32x4_max(lim_lo)
                .i32x4_min(lim_hi)
                .i32x4_add(zp)
                .bitselect(overflow, fits)
        });
        narrow16(r, lo, hi).store_i8(o);
    }
    reference::affine_quantize(scale, zero_point, it, ot);
}

/// DEQUANTIZE int8 → float32, per tensor: `(f64)scale · (q − zero_point)` rounded to `f32`.
pub fn dequantize_int8(scale: f32, zero_point: i32, input: &[i8], output: &mut [f32]) {
    let s = V128::splat_f64(f64::from(scale));
    let zp = V128::splat_i32(zero_point);
    let (ic, it) = input.as_chunks::<16>();
    let (oc, ot) = output.as_chunks_mut::<16>();
    for (x, o) in ic.iter().zip(oc.iter_mut()) {
        let v = widen16(V128::load_i8(x));
        let (out, _) = o.as_chunks_mut::<4>();
        for (i, d) in out.iter_mut().enumerate() {
            let w = v[i].i32x4_sub(zp);
            let lo = w
                .f64x2_convert_low_i32x4()
                .f64x2_mul(s)
                .f32x4_demote_f64x2_zero();
            let hi = w
                .high_i64s(w)
                .f64x2_convert_low_i32x4()
                .f64x2_mul(s)
                .f32x4_demote_f64x2_zero();
            lo.low_i64s(hi).store_f32(d);
        }
    }
    reference::dequantize(scale, zero_point, it, ot);
}

/// QUANTIZE int8 → int8 (requantization, double rounding).
#[derive(Debug, Clone)]
pub struct RequantizeInt8 {
    multiplier: i32,
    shift: i32,
    rq: ChannelRequant,
    input_zero_point: i32,
    output_zero_point: i32,
}

impl RequantizeInt8 {
    /// `None` for a multiplier of `i32::MIN`.
    pub fn new(
        multiplier: i32,
        shift: i32,
        input_zero_point: i32,
        output_zero_point: i32,
    ) -> Option<Self> {
        Some(RequantizeInt8 {
            multiplier,
            shift,
            rq: ChannelRequant::new(multiplier, shift)?,
            input_zero_point,
            output_zero_point,
        })
    }

    /// Requantizes `input` into `output`.
    pub fn run(&self, input: &[i8], output: &mut [i8]) {
        let izp = V128::splat_i32(self.input_zero_point);
        let ozp = V128::splat_i32(self.output_zero_point);
        let (lo, hi) = (V128::splat_i8(i8::MIN), V128::splat_i8(i8::MAX));
        let (ic, it) = input.as_chunks::<16>();
        let (oc, ot) = output.as_chunks_mut::<16>();
        for (x, o) in ic.iter().zip(oc.iter_mut()) {
            let v = widen16(V128::load_i8(x));
            let r = [0, 1, 2, 3].map(|i| self.rq.apply(v[i].i32x4_sub(izp)).i32x4_add(ozp));
            narrow16(r, lo, hi).store_i8(o);
        }
        reference::requantize(
            self.multiplier,
            self.shift,
            self.input_zero_point,
            self.output_zero_point,
            it,
            ot,
        );
    }
}
