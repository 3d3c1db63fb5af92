//! DEQUANTIZE: int8 / int16 / uint8 (per tensor or per channel) and float16 to float32;
//! QUANTIZE: float32 to int8 / uint8 / int16 (LiteRT's `AffineQuantize`) and integer to integer
//! requantization (LiteRT's `Requantize`); and [`QuantInt`], the element trait every integer
//! kernel is generic over.

use crate::fixedpoint::multiply_by_quantized_multiplier;

/// An integer element type of quantized tensors (`i8`, `u8`, `i16`): its range and conversions.
pub trait QuantInt: bytemuck::Pod + Copy + Default + 'static {
    /// Smallest value, as `i32`.
    const MIN: i32;
    /// Largest value, as `i32`.
    const MAX: i32;
    /// Widens to `i32`.
    fn to_i32(self) -> i32;
    /// Clamps `v` to `[MIN, MAX]` and narrows.
    fn clamp_from(v: i32) -> Self;
    /// Narrows `v` by truncation, as C++'s `static_cast` does.
    fn wrap_from(v: i32) -> Self;
}

macro_rules! quant_int {
    ($t:ty) => {
        impl QuantInt for $t {
            const MIN: i32 = <$t>::MIN as i32;
            const MAX: i32 = <$t>::MAX as i32;
            #[inline(always)]
            fn to_i32(self) -> i32 {
                i32::from(self)
            }
            #[inline(always)]
            fn clamp_from(v: i32) -> Self {
                v.clamp(<Self as QuantInt>::MIN, <Self as QuantInt>::MAX) as $t
            }
            #[inline(always)]
            fn wrap_from(v: i32) -> Self {
                v as $t
            }
        }
    };
}
quant_int!(i8);
quant_int!(u8);
quant_int!(i16);

/// Rounds half away from zero and converts to `i32`, saturating (NaN → 0), as `TfLiteRound` then
/// `static_cast<int32_t>` do on the platforms where that cast saturates (ARM; on x86 an
/// out-of-range cast is undefined and yields `i32::MIN`).
#[inline(always)]
pub fn round_to_i32(x: f32) -> i32 {
    x.round() as i32
}

/// The clamp a fused activation applies to a quantized output, as LiteRT's
/// `CalculateActivationRangeQuantized`: each finite float bound `f` becomes
/// `zero_point + round(f / scale)` (division in float, rounding half away from zero), limited to
/// the type's range `[qmin, qmax]`; an infinite bound is the type's limit.
pub fn quantized_activation_range(
    act: super::ActivationRange,
    scale: f32,
    zero_point: i32,
    qmin: i32,
    qmax: i32,
) -> (i32, i32) {
    let q = |f: f32| zero_point.saturating_add(round_to_i32(f / scale));
    let lo = if act.min.is_finite() {
        qmin.max(q(act.min))
    } else {
        qmin
    };
    let hi = if act.max.is_finite() {
        qmax.min(q(act.max))
    } else {
        qmax
    };
    (lo, hi)
}

/// `static_cast<int32_t>(TfLiteRound(x))` as LiteRT's x86 build computes it (`cvttss2si`): the
/// rounded value when it fits `i32`, else `i32::MIN` — for NaN, +∞ and −∞ alike.
#[inline(always)]
pub fn round_to_i32_x86(x: f32) -> i32 {
    let r = x.round();
    if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        r as i32
    } else {
        i32::MIN
    }
}

/// `static_cast<int32_t>(std::round(x))` of a double as LiteRT's x86 build computes it
/// (`cvttsd2si`): the rounded value when it fits `i32`, else `i32::MIN` (NaN and ±∞ too).
#[inline(always)]
pub fn round_f64_to_i32_x86(x: f64) -> i32 {
    let r = x.round();
    if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        r as i32
    } else {
        i32::MIN
    }
}

/// QUANTIZE float32 → integer, per tensor. Mirrors LiteRT `reference_ops::AffineQuantize` as its
/// x86 build runs it: `clamp(static_cast<int32>(round(x / scale)) + zero_point)`, the division in
/// float, rounding half away from zero; a quotient outside `i32` (NaN, ±∞, huge inputs) casts to
/// `i32::MIN` and the 32-bit sum wraps, so it clamps to the lowest value, or to the highest with
/// a negative zero point.
pub fn affine_quantize<T: QuantInt>(scale: f32, zero_point: i32, input: &[f32], output: &mut [T]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = T::clamp_from(round_to_i32_x86(x / scale).wrapping_add(zero_point));
    }
}

/// QUANTIZE integer → integer (requantization). Mirrors LiteRT `reference_ops::Requantize`
/// (double rounding): `clamp(MultiplyByQuantizedMultiplier(q − in_zp, m, shift) + out_zp)`,
/// with `(m, shift)` from `in_scale / out_scale` in double. (LiteRT's int8 ↔ uint8 `^ 0x80`
/// shortcut for equal scales gives the same values.)
pub fn requantize<I: QuantInt, O: QuantInt>(
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
    input: &[I],
    output: &mut [O],
) {
    for (o, &q) in output.iter_mut().zip(input) {
        let v = q.to_i32().wrapping_sub(input_zero_point);
        let r = multiply_by_quantized_multiplier(v, multiplier, shift);
        *o = O::clamp_from(r.wrapping_add(output_zero_point));
    }
}

/// DEQUANTIZE of integers, per tensor. Mirrors LiteRT `reference_ops::Dequantize`: the product
/// `scale * (q - zero_point)` is formed in double precision and rounded once to float.
pub fn dequantize<T: Copy + Into<i32>>(
    scale: f32,
    zero_point: i32,
    input: &[T],
    output: &mut [f32],
) {
    let scale = f64::from(scale);
    for (o, &q) in output.iter_mut().zip(input) {
        let v: i32 = q.into();
        *o = (scale * f64::from(v - zero_point)) as f32;
    }
}

/// DEQUANTIZE of integers, per channel along one axis. Mirrors LiteRT
/// `reference_ops::PerChannelDequantize`: `scale[c] * (q - zero_point[c])` in float.
///
/// The tensor is viewed as `[outer, channels, inner]` around the quantized axis.
pub fn dequantize_per_channel<T: Copy + Into<i32>>(
    scales: &[f32],
    zero_points: &[i32],
    inner: usize,
    input: &[T],
    output: &mut [f32],
) {
    let channels = scales.len();
    for (i, (o, &q)) in output.iter_mut().zip(input).enumerate() {
        let c = (i / inner.max(1)) % channels.max(1);
        let v: i32 = q.into();
        *o = scales[c] * (v - zero_points[c]) as f32;
    }
}

/// IEEE 754 half precision to single precision (exact: every half is a float).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal half: value m · 2^-24; normalise into a float.
            let mut e: i32 = -14;
            let mut m = m;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (((e + 127) as u32) << 23) | ((m & 0x3ff) << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// DEQUANTIZE of float16 (little-endian bytes, two per element) to float32.
pub fn dequantize_f16(input: &[u8], output: &mut [f32]) {
    for (o, b) in output.iter_mut().zip(input.chunks_exact(2)) {
        *o = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_tensor_int8_uses_double_product() {
        let mut out = [0.0; 3];
        dequantize(0.5f32, -1, &[-128i8, -1, 127], &mut out);
        assert_eq!(out, [-63.5, 0.0, 64.0]);
        // 0.1f32 widened to double, times 3, rounded once.
        dequantize(0.1f32, 0, &[3i8], &mut out[..1]);
        assert_eq!(out[0], (f64::from(0.1f32) * 3.0) as f32);
    }

    #[test]
    fn affine_quantize_rounds_half_away_and_clamps() {
        let mut out = [0i8; 6];
        // scale 0.5, zp -128: 0.25 / 0.5 = 0.5 → 1 → -127; -0.25 → -1 → -129 → -128.
        affine_quantize(
            0.5,
            -128,
            &[0.25, -0.25, 100.0, 1.0, f32::INFINITY, 63.75],
            &mut out,
        );
        assert_eq!(out, [-127, -128, 72, -126, 127, 0]);
        let mut out = [0u8; 3];
        affine_quantize(0.1, 3, &[-1.0, 0.05, 30.0], &mut out);
        // -10 + 3 → 0 (clamped); 0.5 → 1 + 3 = 4; 300 + 3 → 255.
        assert_eq!(out, [0, 4, 255]);
        let mut out = [0i16; 2];
        affine_quantize(1.0 / 32768.0, 0, &[0.999_99, -1.5], &mut out);
        assert_eq!(out, [32767, -32768]);
    }

    #[test]
    fn activation_ranges_on_the_quantized_grid() {
        use crate::reference::ActivationRange;
        // scale 0.05, zp -10: RELU6 → [max(-128, -10), min(127, -10 + 120)] = [-10, 110].
        assert_eq!(
            quantized_activation_range(ActivationRange::RELU6, 0.05, -10, -128, 127),
            (-10, 110)
        );
        // RELU with zp -128: lower bound at the type minimum, upper unbounded.
        assert_eq!(
            quantized_activation_range(ActivationRange::RELU, 0.1, -128, -128, 127),
            (-128, 127)
        );
        // RELU_N1_TO_1, scale 0.004 (±250 steps) → clamped to the type range.
        assert_eq!(
            quantized_activation_range(ActivationRange::RELU_N1_TO_1, 0.004, 0, -128, 127),
            (-128, 127)
        );
        assert_eq!(
            quantized_activation_range(ActivationRange::NONE, 1.0, 0, -32768, 32767),
            (-32768, 32767)
        );
        let i8_range = |act, scale, zp| quantized_activation_range(act, scale, zp, -128, 127);
        // Scale 0.1, zero point −128: 0 → −128, 6 → −128 + 60 = −68.
        assert_eq!(i8_range(ActivationRange::RELU6, 0.1, -128), (-128, -68));
        // Zero point 127: RELU leaves exactly one value; RELU6's 6/0.1 = 60 saturates at 127.
        assert_eq!(i8_range(ActivationRange::RELU, 0.1, 127), (127, 127));
        assert_eq!(i8_range(ActivationRange::RELU6, 0.1, 127), (127, 127));
        // RELU_N1_TO_1 with scale 0.5, zero point 3: [3 − 2, 3 + 2].
        assert_eq!(i8_range(ActivationRange::RELU_N1_TO_1, 0.5, 3), (1, 5));
        // 6 / 0.04 = 150 (rounded in float): −20 + 150 = 130 → capped at 127.
        assert_eq!(i8_range(ActivationRange::RELU6, 0.04, -20), (-20, 127));
        // int16: RELU6 at 6 / 0.001 = 6000.
        assert_eq!(
            quantized_activation_range(ActivationRange::RELU6, 0.001, 0, -32768, 32767),
            (0, 6000)
        );
        // ±1 / 0.4 is ±2.5 in float (0.4f32 is a hair above 0.4, but the quotient rounds to
        // 2.5): ties round away from zero, to ±3.
        assert_eq!(i8_range(ActivationRange::RELU_N1_TO_1, 0.4, 0), (-3, 3));
    }

    #[test]
    fn requantize_scales_and_shifts_zero_points() {
        use crate::fixedpoint::quantize_multiplier;
        // in scale 1/256 zp -128 → out scale 1/128 zp 0: (q + 128) / 2, ties away from zero.
        let (m, s) = quantize_multiplier(0.5);
        let mut out = [0i8; 4];
        requantize(m, s, -128, 0, &[-128i8, -127, -125, 127], &mut out);
        assert_eq!(out, [0, 1, 2, 127]);
        // int8 zp 127 → uint8 zp 0, same scale: q - 127 clamped at 0.
        let (m, s) = quantize_multiplier(1.0);
        let mut out = [0u8; 3];
        requantize(m, s, 127, 0, &[-128i8, 126, 127], &mut out);
        assert_eq!(out, [0, 0, 0]);
        // Multiplier 3 (> 1): int16 → int8 saturates.
        let (m, s) = quantize_multiplier(3.0);
        let mut out = [0i8; 3];
        requantize(m, s, 0, -1, &[10i16, -50, 100], &mut out);
        assert_eq!(out, [29, -128, 127]);
    }

    #[test]
    fn per_channel_on_middle_axis() {
        // [1, 2 channels, 2 inner]
        let mut out = [0.0; 4];
        dequantize_per_channel(&[1.0, 0.25], &[0, 4], 2, &[1i8, 2, 4, 8], &mut out);
        assert_eq!(out, [1.0, 2.0, 0.0, 1.0]);
    }

    #[test]
    fn half_precision_values() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x0200), 2f32.powi(-15));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
        let mut out = [0.0; 2];
        dequantize_f16(&[0x00, 0x3c, 0x00, 0x38], &mut out);
        assert_eq!(out, [1.0, 0.5]);
    }

    /// Quotients outside `i32` (±∞, NaN, ±2e10) as LiteRT 2.3's x86 BUILTIN_REF QUANTIZE gives
    /// them: cast to `i32::MIN`, then the zero point added with 32-bit wrap. Expected values from
    /// ai_edge_litert 2.3 (a one-op QUANTIZE model built with TF's schema API, scale 0.5, inputs
    /// [+inf, -inf, NaN, 3e38, -3e38, 1e10, -1e10, 2.5, -2.5, 0]); the mutation harness found it
    /// (mutant 1923 of seed 2: a ring buffer's initial value filled with 3e38-like floats).
    #[test]
    fn affine_quantize_out_of_range_quotients_as_litert_x86() {
        let x = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3e38,
            -3e38,
            1e10,
            -1e10,
            2.5,
            -2.5,
            0.0,
        ];
        let run8 = |zp: i32| {
            let mut o = [0i8; 10];
            affine_quantize(0.5, zp, &x, &mut o);
            o
        };
        assert_eq!(run8(-5), [127, 127, 127, 127, 127, 127, 127, 0, -10, -5]);
        assert_eq!(
            run8(3),
            [-128, -128, -128, -128, -128, -128, -128, 8, -2, 3]
        );
        let mut o16 = [0i16; 10];
        affine_quantize(0.5, 0, &x, &mut o16);
        assert_eq!(
            o16,
            [
                -32768, -32768, -32768, -32768, -32768, -32768, -32768, 5, -5, 0
            ]
        );
        let mut o8u = [0u8; 10];
        affine_quantize(0.5, 200, &x, &mut o8u);
        assert_eq!(o8u, [0, 0, 0, 0, 0, 0, 0, 205, 195, 200]);
    }
}
