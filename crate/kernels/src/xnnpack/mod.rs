//! The arithmetic of LiteRT's default CPU path, the XNNPACK delegate, for the int8 operators it
//! takes ([`Arithmetic::Xnnpack`](super::Arithmetic::Xnnpack)): CONV_2D, DEPTHWISE_CONV_2D and
//! FULLY_CONNECTED with int8 activations, int8 weights (per tensor or per channel) and int32 bias,
//! QUANTIZE float32 → int8 ([`quantize`]), int8 ADD / SUB / MUL ([`binary`]), int8 MEAN ([`reduce`]),
//! int8 LEAKY_RELU, float ROUND and ELU ([`unary`]), int8 RESIZE_BILINEAR ([`resize`]); and int8 SOFTMAX, which the
//! delegate leaves to LiteRT's optimized builtin kernel ([`unary::Softmax`]).
//!
//! XNNPACK's qs8 / qc8 kernels accumulate exactly as LiteRT's reference kernels do (the wrapping
//! int32 sum of `w · (x − input_zero_point)` plus the bias; XNNPACK folds `−zp · Σw` into the
//! packed bias and pads with the input zero point, which gives the same integer), so the
//! accumulators the existing kernels compute are reused. Only the requantization differs — the
//! "fp32" requantization of XNNPACK's microkernels, one multiply and one rounding instead of
//! LiteRT's double-rounding fixed-point multiply:
//!
//! - the scale of output channel `c` is `input_scale · weight_scale[c] / output_scale`, each
//!   operation in `f32` ([`requantization_scale`]);
//! - the output is `clamp(rne((f32)acc · scale), min − zp, max − zp) + zp`, the product rounded
//!   to `f32`, the clamp in `f32`, rounding to nearest with ties to even ([`requantize`]; the SIMD
//!   kernels round with the `1.5 · 2^23` "magic bias", the same result in the clamped range);
//! - the clamp `[min, max]` is the fused activation's float range quantized as XNNPACK's
//!   `xnn_qs8_quantize` does: `lrintf(clamp(bound / scale + (float)zp, −128, 127))`
//!   ([`output_bound`]), where LiteRT's reference rounds `bound / scale` half away from zero.
//!
//! What decides a value is therefore `f32` arithmetic throughout; the goldens that check it are
//! LiteRT 2.3's outputs with its default op resolver (XNNPACK delegate applied), stored as
//! `expected_<variant>_xnnpack_output_<k>.npy` beside the reference goldens
//! (`tests/rust/xnnpack_goldens.rs`).

pub mod binary;
pub mod reduce;
pub mod resize;
pub mod unary;

use super::reference::ActivationRange;
use super::simd128::v128::V128;

/// `input_scale · weight_scale / output_scale`, evaluated left to right in `f32` as XNNPACK's
/// operator constructors do for every output channel.
pub fn requantization_scale(input_scale: f32, weight_scale: f32, output_scale: f32) -> f32 {
    input_scale * weight_scale / output_scale
}

/// Whether XNNPACK accepts a requantization scale: its operator constructors refuse a scale of
/// 256 or more, and its parameter initialisers require at least `2^-32`.
pub fn scale_supported(scale: f32) -> bool {
    (2f32.powi(-32)..256.0).contains(&scale)
}

/// One bound of a fused activation's float range as an int8 output value, as XNNPACK's
/// `xnn_qs8_quantize`: `bound / scale + (float)zero_point` in `f32`, clamped to `[−128, 127]`,
/// rounded to nearest even.
pub fn output_bound(bound: f32, scale: f32, zero_point: i32) -> i32 {
    let v = (bound / scale + zero_point as f32).clamp(-128.0, 127.0);
    // In [−128, 127] after the clamp (NaN, which no finite scale produces here, maps to 0).
    v.round_ties_even() as i32
}

/// The int8 clamp `[min, max]` XNNPACK applies for fused activation `act` on an output with
/// `scale` and `zero_point`. LiteRT's delegate passes NONE as `(−∞, +∞)`; the engine's NONE is
/// `(f32::MIN, f32::MAX)`, which quantizes to the same `[−128, 127]`.
pub fn output_range(act: ActivationRange, scale: f32, zero_point: i32) -> (i32, i32) {
    (
        output_bound(act.min, scale, zero_point),
        output_bound(act.max, scale, zero_point),
    )
}

/// XNNPACK's fp32 requantization of one int32 accumulator: `(f32)acc · scale`, clamped to
/// `[min − zp, max − zp]` in `f32`, rounded to nearest even, plus `zp`.
#[inline(always)]
pub fn requantize(acc: i32, scale: f32, zero_point: i32, min: i32, max: i32) -> i32 {
    let v = (acc as f32 * scale).clamp((min - zero_point) as f32, (max - zero_point) as f32);
    v.round_ties_even() as i32 + zero_point
}

/// `1.5 · 2^23`: added to an `f32` of magnitude below `2^22`, it leaves the value rounded to
/// nearest even in the low mantissa bits.
pub(crate) const MAGIC: f32 = 12_582_912.0;
/// The bit pattern of [`MAGIC`].
const MAGIC_BITS: i32 = 0x4B40_0000;

/// `MAGIC`'s bit pattern minus the output zero point `zp`: subtracted from the bits of
/// `v + MAGIC`, it gives `rne(v) + zp` (XNNPACK's `magic_bias_less_output_zero_point`).
pub fn magic_less_zero_point(zp: i32) -> i32 {
    MAGIC_BITS - zp
}

/// [`requantize`] on four lanes in XNNPACK's "fp32 magic" form, the zero point included:
/// `(f32)acc · scale`, raised to `lo` (= `min − zp`), plus `MAGIC` (rounds to nearest even),
/// its bits minus `magic_less_zp` ([`magic_less_zero_point`]`(zp)`). The upper clamp is left to
/// the caller's narrowing: each lane, saturated to int8 (`i16x8.narrow` then `i8x16.narrow`) and
/// clamped to `[min, max]`, is `requantize(acc, scale, zp, min, max)`. Lanes are at least `min`;
/// a lane whose product is above `2^22` is not `rne + zp` but is above 127, so it saturates like
/// the exact value would: the sum is positive (the product is at least `lo > −2^22`), and the
/// bits of a positive `f32` grow with its value. `scale` is per lane (one channel per lane, or
/// one channel broadcast).
#[inline(always)]
pub fn requantize_lanes(acc: V128, scale: V128, lo: V128, magic_less_zp: V128) -> V128 {
    acc.f32x4_convert_i32x4()
        .f32x4_mul(scale)
        .f32x4_pmax(lo)
        .f32x4_add(V128::splat_f32(MAGIC))
        .i32x4_sub(magic_less_zp)
}

/// XNNPACK's float32 → int8 conversion (QUANTIZE), per tensor: `x · inv_scale` in `f32`, where
/// `inv_scale = 1.0f / scale` ([`inverse_scale`]), clamped to `[−128 − zp, 127 − zp]`, rounded
/// to nearest even, plus `zp`. LiteRT's reference divides by the scale and rounds ties away
/// from zero instead. NaN inputs give an unspecified int8 (XNNPACK's own result for NaN differs
/// between its CPU variants).
pub fn quantize(inv_scale: f32, zero_point: i32, input: &[f32], output: &mut [i8]) {
    let s = V128::splat_f32(inv_scale);
    let lo = V128::splat_f32((-128 - zero_point) as f32);
    let hi = V128::splat_f32((127 - zero_point) as f32);
    let (ic, it) = input.as_chunks::<4>();
    let (oc, ot) = output.as_chunks_mut::<4>();
    for (x, o) in ic.iter().zip(oc.iter_mut()) {
        let v = V128::load_f32(x)
            .f32x4_mul(s)
            .f32x4_pmax(lo)
            .f32x4_pmin(hi)
            .f32x4_add(V128::splat_f32(MAGIC))
            .i32x4_sub(V128::splat_i32(MAGIC_BITS))
            .to_i32();
        // In [−128 − zp, 127 − zp]: the sum is an int8.
        *o = v.map(|q| (q + zero_point) as i8);
    }
    for (x, o) in it.iter().zip(ot.iter_mut()) {
        let lo = (-128 - zero_point) as f32;
        let hi = (127 - zero_point) as f32;
        let v = (x * inv_scale).max(lo).min(hi).round_ties_even();
        *o = (v as i32 + zero_point) as i8;
    }
}

/// `1.0f / scale` in `f32`, the multiplier XNNPACK's float → int8 conversion uses.
pub fn inverse_scale(scale: f32) -> f32 {
    1.0 / scale
}

/// The XNNPACK requantization constants of an int8 conv-like operator: one scale per output
/// channel (the clamp is the operator's `act_min..=act_max`, already XNNPACK's
/// [`output_range`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Fp32Requant {
    /// [`requantization_scale`] per output channel.
    pub scales: Vec<f32>,
}

#[cfg(test)]
mod tests;
