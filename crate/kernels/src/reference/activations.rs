//! Unary activations: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH, and
//! SOFTMAX along the last axis — float32, and the quantized int8 / uint8 / int16 forms of
//! LiteRT's reference kernels.

use super::ActivationRange;
use super::fixedpoint_math::{
    SIGMOID_TABLE_UINT16, exp_on_negative_values, lut_lookup_int16, reciprocal, rescale,
    rounding_divide_by_pot_i16,
};
use super::quantize::QuantInt;
use crate::fixedpoint::{multiply_by_quantized_multiplier, saturating_rounding_doubling_high_mul};

/// RELU / RELU6 / RELU_N1_TO_1. Mirrors LiteRT `reference_ops::Relu`, `Relu6`, `Relu1` (float):
/// a clamp to the activation's range.
pub fn clamp(range: ActivationRange, input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = range.apply(x);
    }
}

/// LOGISTIC. Mirrors LiteRT `reference_ops::Logistic` (float): `1 / (1 + exp(-x))`, with the
/// reference kernel's cut-offs (1 above 16.619047, `exp(x)` below -9).
pub fn logistic(input: &[f32], output: &mut [f32]) {
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    for (o, &x) in output.iter_mut().zip(input) {
        *o = if x > CUTOFF_UPPER {
            1.0
        } else if x < CUTOFF_LOWER {
            x.exp()
        } else {
            1.0 / (1.0 + (-x).exp())
        };
    }
}

/// TANH. Mirrors LiteRT `reference_ops::Tanh` (float): `std::tanh` per element.
pub fn tanh(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = x.tanh();
    }
}

/// LEAKY_RELU. Mirrors LiteRT `reference_ops::LeakyRelu` (float): `x > 0 ? x : x * alpha`.
pub fn leaky_relu(alpha: f32, input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = if x > 0.0 { x } else { x * alpha };
    }
}

/// HARD_SWISH. Mirrors LiteRT `reference_ops::HardSwish` (float):
/// `x * min(6, max(0, x + 3)) / 6`, evaluated left to right.
pub fn hard_swish(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let r = x + 3.0;
        let r = if r < 0.0 { 0.0 } else { r }; // std::max(0, r)
        let r = if 6.0 < r { 6.0 } else { r }; // std::min(6, r)
        *o = x * r / 6.0;
    }
}

/// SOFTMAX along the last axis (`depth` elements per row). Mirrors LiteRT
/// `reference_ops::Softmax` (float): subtract the row max, `exp((x - max) * beta)`, sum in order,
/// divide each exponential by the sum.
pub fn softmax(beta: f32, depth: usize, input: &[f32], output: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (row_in, row_out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let mut max = f32::MIN;
        for &x in row_in {
            if max < x {
                max = x;
            }
        }
        let mut sum = 0.0f32;
        for (o, &x) in row_out.iter_mut().zip(row_in) {
            let e = ((x - max) * beta).exp();
            *o = e;
            sum += e;
        }
        for o in row_out.iter_mut() {
            *o /= sum;
        }
    }
}

/// Prepared parameters of a quantized RELU / RELU6 / RELU_N1_TO_1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantReluX {
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Q31 multiplier of `s_in / s_out`.
    pub multiplier: i32,
    /// Its exponent.
    pub shift: i32,
    /// Lower clamp on the output grid.
    pub act_min: i32,
    /// Upper clamp.
    pub act_max: i32,
}

/// Quantized RELU / RELU6 / RELU_N1_TO_1. Mirrors LiteRT `optimized_ops::ReluX` (the only
/// quantized ReLU kernel, used by the reference registration too): requantize with
/// `MultiplyByQuantizedMultiplier` (double rounding), then clamp.
pub fn quantized_relu_x<T: QuantInt>(p: &QuantReluX, input: &[T], output: &mut [T]) {
    let hi = p.act_max.max(p.act_min);
    for (o, &x) in output.iter_mut().zip(input) {
        let v = x.to_i32().wrapping_sub(p.input_zero_point);
        let r = multiply_by_quantized_multiplier(v, p.multiplier, p.shift)
            .wrapping_add(p.output_zero_point);
        *o = T::wrap_from(r.clamp(p.act_min, hi));
    }
}

/// Prepared parameters of a quantized LEAKY_RELU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantLeakyRelu {
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Multiplier of `s_in / s_out` (x ≥ 0).
    pub multiplier_identity: i32,
    /// Its exponent.
    pub shift_identity: i32,
    /// Multiplier of `s_in · alpha / s_out` (x < 0).
    pub multiplier_alpha: i32,
    /// Its exponent.
    pub shift_alpha: i32,
}

/// Quantized LEAKY_RELU. Mirrors LiteRT `reference_ops::QuantizeLeakyRelu`: `x − z_in ≥ 0`
/// takes the identity multiplier, otherwise the alpha multiplier; double rounding; clamped to
/// the type.
pub fn quantized_leaky_relu<T: QuantInt>(p: &QuantLeakyRelu, input: &[T], output: &mut [T]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let v = x.to_i32().wrapping_sub(p.input_zero_point);
        let r = if v >= 0 {
            multiply_by_quantized_multiplier(v, p.multiplier_identity, p.shift_identity)
        } else {
            multiply_by_quantized_multiplier(v, p.multiplier_alpha, p.shift_alpha)
        };
        *o = T::clamp_from(r.wrapping_add(p.output_zero_point));
    }
}

/// Prepared parameters of a quantized HARD_SWISH (LiteRT's `HardSwishParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantHardSwish {
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Q15 multiplier from the "hires" input scale (`s_in / 128`) to the output scale.
    pub output_multiplier_fixedpoint_int16: i16,
    /// Its exponent (≤ 0).
    pub output_multiplier_exponent: i32,
    /// Q15 multiplier from the hires input scale to the "reluish" scale (3 ↦ 32768).
    pub reluish_multiplier_fixedpoint_int16: i16,
    /// Its exponent.
    pub reluish_multiplier_exponent: i32,
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul` for `i16`.
#[inline]
fn srdhm_i16(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// LiteRT's `SaturatingDoublingHighMul` (hard_swish.h): like [`srdhm_i16`] but truncating.
#[inline]
fn sdhm_i16(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    ((i32::from(a) * i32::from(b)) / (1 << 15)) as i16
}

/// LiteRT's `SaturatingLeftShift(int16_t, amount)` (hard_swish.h).
#[inline]
fn saturating_left_shift_i16(value: i16, amount: i32) -> i16 {
    let r = i64::from(value) << amount.clamp(0, 40);
    r.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// LiteRT's `DownScaleInt32ToInt16Multiplier`: a Q31 multiplier rounded to Q15.
pub fn down_scale_int32_to_int16_multiplier(m: i32) -> i16 {
    const ROUNDING_OFFSET: i32 = 1 << 15;
    if m >= i32::MAX - ROUNDING_OFFSET {
        return i16::MAX;
    }
    ((m + ROUNDING_OFFSET) >> 16) as i16
}

/// Quantized HARD_SWISH (int8 / uint8). Mirrors LiteRT `reference_ops::HardSwish` (quantized):
/// 16-bit fixed point — the input on a scale 128 times finer, a "reluish" factor in [0, 1]
/// from `(x + 3) / 6` with saturation, a truncating doubling high multiply, then the output
/// shift; rounding to nearest (ties away) in the other steps. As in LiteRT, adding the output
/// zero point happens in `int16_t` (it wraps when the pre-offset value is within `|zp|` of the
/// int16 limits, which needs an output scale of at most input scale / 64).
pub fn quantized_hard_swish<T: QuantInt>(p: &QuantHardSwish, input: &[T], output: &mut [T]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let input_value = x.to_i32().wrapping_sub(p.input_zero_point) as i16;
        let hires = (i32::from(input_value) * (1 << 7)) as i16;
        let preshift_output = srdhm_i16(hires, p.output_multiplier_fixedpoint_int16);
        let mut reluish = hires;
        if p.reluish_multiplier_exponent > 0 {
            reluish = saturating_left_shift_i16(reluish, p.reluish_multiplier_exponent - 1);
        }
        reluish = srdhm_i16(reluish, p.reluish_multiplier_fixedpoint_int16);
        if p.reluish_multiplier_exponent > 0 {
            reluish = saturating_left_shift_i16(reluish, 1);
        }
        if p.reluish_multiplier_exponent < 0 {
            reluish = rounding_divide_by_pot_i16(reluish, -p.reluish_multiplier_exponent);
        }
        reluish = ((i32::from(reluish) + (1 << 15)) >> 1) as i16;
        let preshift = sdhm_i16(reluish, preshift_output);
        let mut v = rounding_divide_by_pot_i16(preshift, -p.output_multiplier_exponent);
        v = (i32::from(v) + p.output_zero_point) as i16;
        *o = T::clamp_from(i32::from(v));
    }
}

/// Table lookup for 8-bit LOGISTIC / TANH. Mirrors LiteRT `LookupTable` over a table built by
/// `LUTPopulate` at prepare time ([`super::fixedpoint_math::lut_int8`]), indexed by the input's
/// byte.
pub fn lookup_u8(lut: &[u8; 256], input: &[u8], output: &mut [u8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = lut[usize::from(x)];
    }
}

/// Rescales an int16 LOGISTIC / TANH input as LiteRT's reference kernels do: a multiplier of 0
/// means "power-of-two scale" (`3 << left_shift`, no shift); otherwise
/// `(x · multiplier + round) >> left_shift`.
#[inline]
fn scale_int16_input(x: i16, input_multiplier: i32, input_left_shift: i32) -> i32 {
    let (m, shift) = if input_multiplier == 0 {
        (3i32.wrapping_shl(input_left_shift.clamp(0, 31) as u32), 0)
    } else {
        (input_multiplier, input_left_shift.clamp(0, 31))
    };
    let round = if shift > 0 { 1i32 << (shift - 1) } else { 0 };
    // In int32, wrapping where it overflows (input scales above ~5, or a denormal scale, whose
    // multiplier rounds to 0 and becomes `3 << 31`): the C++ overflow is undefined behaviour,
    // and LiteRT's compiled kernel wraps, as its BUILTIN_REF outputs on such files show.
    i32::from(x).wrapping_mul(m).wrapping_add(round) >> shift
}

/// int16 LOGISTIC. Mirrors LiteRT `reference_integer_ops::Logistic` (int16): the input on a
/// scale where ±2^17 is ±10.7, linear interpolation in `sigmoid_table_uint16` with 9 fractional
/// bits, symmetry for negative inputs, rounding back to Q0.15.
pub fn logistic_int16(
    input_multiplier: i32,
    input_left_shift: i32,
    input: &[i16],
    output: &mut [i16],
) {
    for (o, &x) in output.iter_mut().zip(input) {
        let v = scale_int16_input(x, input_multiplier, input_left_shift);
        let abs = v.unsigned_abs();
        let uh = abs >> 9;
        let result: u32 = if uh >= 255 {
            0x7FFF << 10
        } else {
            let ua = u32::from(SIGMOID_TABLE_UINT16[uh as usize]);
            let ub = u32::from(SIGMOID_TABLE_UINT16[uh as usize + 1]);
            let ut = abs & 0x1ff;
            (ua << 9).wrapping_add(ut.wrapping_mul(ub.wrapping_sub(ua)))
        };
        let result = if v >= 0 {
            result.wrapping_add(1 << 9)
        } else {
            (1u32 << 25)
                .wrapping_sub(result)
                .wrapping_add(1 << 9)
                .wrapping_sub(1)
        };
        *o = (result >> 10) as i16;
    }
}

/// int16 TANH. Mirrors LiteRT `reference_integer_ops::Tanh` (int16): the same table as
/// [`logistic_int16`] read at twice the input (`tanh(x) = 2·sigmoid(2x) − 1`), 8 fractional
/// interpolation bits.
pub fn tanh_int16(input_multiplier: i32, input_left_shift: i32, input: &[i16], output: &mut [i16]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let v = scale_int16_input(x, input_multiplier, input_left_shift);
        let abs = v.unsigned_abs();
        let uh = abs >> 8;
        let result: i32 = if uh >= 255 {
            0xFFFF << 8
        } else {
            let ua = u32::from(SIGMOID_TABLE_UINT16[uh as usize]);
            let ub = u32::from(SIGMOID_TABLE_UINT16[uh as usize + 1]);
            let ut = abs & 0xff;
            (ua << 8).wrapping_add(ut.wrapping_mul(ub.wrapping_sub(ua))) as i32
        };
        let result = if v >= 0 {
            result.wrapping_sub(1 << 23).wrapping_add(1 << 7)
        } else {
            result
                .wrapping_neg()
                .wrapping_add(1 << 23)
                .wrapping_add(1 << 7)
                .wrapping_sub(1)
        };
        *o = (result >> 8) as i16;
    }
}

/// Prepared parameters of the 8-bit quantized SOFTMAX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantSoftmax {
    /// Q31 multiplier of `beta · s_in · 2^(31 − 5)` (capped).
    pub input_multiplier: i32,
    /// Its (non-negative) exponent.
    pub input_left_shift: i32,
    /// Differences to the row maximum below this contribute 0.
    pub diff_min: i32,
}

/// Element types whose integer SOFTMAX ([`quantized_softmax`], input and output of the same
/// type) is instantiated in this crate at its opt-level (see [`super::bytes`]): the operators
/// call it through this trait, so their generic code does not make its own instance.
pub trait SoftmaxInt: QuantInt {
    /// [`quantized_softmax`] from `Self` to `Self`.
    fn softmax(p: &QuantSoftmax, depth: usize, input: &[Self], output: &mut [Self]);
}

macro_rules! softmax_int {
    ($($t:ty),*) => {$(
        impl SoftmaxInt for $t {
            fn softmax(p: &QuantSoftmax, depth: usize, input: &[$t], output: &mut [$t]) {
                quantized_softmax(p, depth, input, output);
            }
        }
    )*};
}
softmax_int!(i8, u8, i16);

/// Quantized SOFTMAX along the last axis (`depth` elements per row), int8 / uint8 input, int8 /
/// uint8 / int16 output. Mirrors LiteRT `reference_ops::Softmax` (quantized): differences to the
/// row maximum scaled into Q5.26, gemmlowp `exp_on_negative_values`, sum in Q12.19, the
/// reciprocal by `GetReciprocal`, each output `RoundingDivideByPOT(scale · exp, exponent)`
/// shifted to the output's type minimum (zero point −128 for int8).
pub fn quantized_softmax<I: QuantInt, O: QuantInt>(
    p: &QuantSoftmax,
    depth: usize,
    input: &[I],
    output: &mut [O],
) {
    const SCALED_DIFF_INTEGER_BITS: i32 = 5;
    const ACCUMULATION_INTEGER_BITS: i32 = 12;
    if depth == 0 {
        return;
    }
    let out_bits = (std::mem::size_of::<O>() * 8) as i32;
    let exp_of = |diff: i32| -> i32 {
        let rescaled = saturating_rounding_doubling_high_mul(
            diff.wrapping_shl(p.input_left_shift.clamp(0, 31) as u32),
            p.input_multiplier,
        );
        exp_on_negative_values(rescaled, SCALED_DIFF_INTEGER_BITS)
    };
    for (row_in, row_out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let max_in_row = row_in.iter().map(|v| v.to_i32()).fold(I::MIN, i32::max);
        let mut sum_of_exps = 0i32;
        for &x in row_in {
            let diff = x.to_i32() - max_in_row;
            if diff >= p.diff_min {
                sum_of_exps =
                    sum_of_exps.wrapping_add(rescale(exp_of(diff), 0, ACCUMULATION_INTEGER_BITS));
            }
        }
        let (shifted_scale, num_bits_over_unit) =
            reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS);
        let exponent = (num_bits_over_unit + 31 - out_bits).clamp(0, 31);
        for (o, &x) in row_out.iter_mut().zip(row_in) {
            let diff = x.to_i32() - max_in_row;
            *o = if diff >= p.diff_min {
                let exp_in_0 = exp_of(diff);
                let unsat = crate::fixedpoint::rounding_divide_by_pot(
                    saturating_rounding_doubling_high_mul(shifted_scale, exp_in_0),
                    exponent,
                );
                O::clamp_from(unsat.wrapping_add(O::MIN))
            } else {
                O::clamp_from(O::MIN)
            };
        }
    }
}

/// Prepared parameters of the int16 SOFTMAX: the two interpolated tables and the input scaling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantSoftmaxInt16 {
    /// `exp(x)` for x in [−10, 0] (input −32768..32767), output on ±1.
    pub exp_lut: Box<[i16; 513]>,
    /// `1 / (1 + x)` for x in [0, 1], output on ±1.
    pub one_over_one_plus_x_lut: Box<[i16; 513]>,
    /// Q31 multiplier of `s_in · beta / (10 / 65535)`.
    pub input_multiplier: i32,
    /// Its exponent.
    pub input_left_shift: i32,
}

/// int16 SOFTMAX along the last axis. Mirrors LiteRT `reference_ops::SoftmaxInt16`: each
/// difference to the row maximum is rescaled so that [−65535, 0] covers [−10, 0], recentred,
/// looked up in the exp table; the sum is normalised and inverted with the `1 / (1 + x)` table;
/// outputs are `exp · reciprocal` rounded, clamped to [0, 32767].
pub fn softmax_int16(p: &QuantSoftmaxInt16, depth: usize, input: &[i16], output: &mut [i16]) {
    if depth == 0 {
        return;
    }
    for (row_in, row_out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let max_in_row = row_in.iter().copied().fold(i16::MIN, i16::max);
        let mut sum_of_exps = 0i32;
        for (o, &x) in row_out.iter_mut().zip(row_in) {
            let diff = i32::from(x) - i32::from(max_in_row);
            let scaled =
                multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift);
            let sym = scaled.wrapping_add(32767).clamp(-32768, 32767) as i16;
            let e = lut_lookup_int16(sym, &p.exp_lut);
            *o = e;
            sum_of_exps = sum_of_exps.wrapping_add(i32::from(e));
        }
        let headroom_plus_one = (sum_of_exps as u32).leading_zeros() as i32;
        let shifted_sum = if headroom_plus_one >= 1 {
            (((i64::from(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14) as i32
        } else {
            ((i64::from(sum_of_exps) + (1 << 13)) >> 14) as i32
        };
        let sym_shifted_sum = shifted_sum.wrapping_add(-((1 << 15) + (1 << 16)));
        let sat = sym_shifted_sum.clamp(-32768, 32767) as i16;
        let reciprocal_scale = i64::from(lut_lookup_int16(sat, &p.one_over_one_plus_x_lut));
        let right_shift = (31 - headroom_plus_one).clamp(1, 62);
        let round = 1i64 << (right_shift - 1);
        for o in row_out.iter_mut() {
            let r = ((i64::from(*o) * reciprocal_scale + round) >> right_shift) as i32;
            *o = r.clamp(0, 32767) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relu_family() {
        let x = [-2.0, -0.5, 0.5, 7.0];
        let mut out = [0.0; 4];
        clamp(ActivationRange::RELU, &x, &mut out);
        assert_eq!(out, [0.0, 0.0, 0.5, 7.0]);
        clamp(ActivationRange::RELU6, &x, &mut out);
        assert_eq!(out, [0.0, 0.0, 0.5, 6.0]);
        clamp(ActivationRange::RELU_N1_TO_1, &x, &mut out);
        assert_eq!(out, [-1.0, -0.5, 0.5, 1.0]);
    }

    #[test]
    fn logistic_values_and_cutoffs() {
        let mut out = [0.0; 4];
        logistic(&[0.0, 20.0, -10.0, 2.0], &mut out);
        assert_eq!(out[0], 0.5);
        assert_eq!(out[1], 1.0);
        assert_eq!(out[2], (-10.0f32).exp());
        assert!((out[3] - 0.880_797_1).abs() < 1e-7);
    }

    #[test]
    fn tanh_leaky_hard_swish() {
        let mut out = [0.0; 3];
        tanh(&[0.0, 1.0, -30.0], &mut out);
        assert_eq!(out[0], 0.0);
        assert!((out[1] - 0.761_594_2).abs() < 1e-7);
        assert_eq!(out[2], -1.0);
        leaky_relu(0.1, &[-10.0, 0.0, 3.0], &mut out);
        assert_eq!(out, [-1.0, 0.0, 3.0]);
        hard_swish(&[-4.0, 1.0, 4.0], &mut out);
        assert_eq!(out, [0.0, 1.0 * 4.0 / 6.0, 4.0]);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_beta_sharpens() {
        let x = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0];
        let mut out = [0.0; 6];
        softmax(1.0, 3, &x, &mut out);
        let e = [(-2.0f32).exp(), (-1.0f32).exp(), 1.0];
        let s = e[0] + e[1] + e[2];
        assert_eq!(&out[..3], &[e[0] / s, e[1] / s, e[2] / s]);
        assert_eq!(&out[3..], &[1.0 / 3.0; 3]);
        softmax(100.0, 3, &x, &mut out);
        assert!(out[2] > 0.999_999);
        // One-element rows are always 1.
        let mut one = [0.0; 2];
        softmax(1.0, 1, &[5.0, -5.0], &mut one);
        assert_eq!(one, [1.0, 1.0]);
    }

    #[test]
    fn quantized_relu_requantizes_then_clamps() {
        use crate::fixedpoint::quantize_multiplier;
        // in scale 0.1 zp -10 → out scale 0.05 zp 5: multiplier 2; RELU6 → [5, 5 + 120].
        let (multiplier, shift) = quantize_multiplier(2.0);
        let p = QuantReluX {
            input_zero_point: -10,
            output_zero_point: 5,
            multiplier,
            shift,
            act_min: 5,
            act_max: 125,
        };
        let mut out = [0i8; 5];
        quantized_relu_x(&p, &[-20i8, -10, -5, 50, 60], &mut out);
        assert_eq!(out, [5, 5, 15, 125, 125]);
        // Tiny multiplier 2^-10 = (2^30, -9) on int16: ±1.5 rounds away from zero; 511 · 2^-10 =
        // 0.499 becomes 1 by double rounding (SRDHM gives round(255.5) = 256, then 256 / 2^9 =
        // 0.5 rounds up).
        let (multiplier, shift) = quantize_multiplier(2f64.powi(-10));
        let p = QuantReluX {
            input_zero_point: 0,
            output_zero_point: 0,
            multiplier,
            shift,
            act_min: -32768,
            act_max: 32767,
        };
        let mut out = [0i16; 3];
        quantized_relu_x(&p, &[1536i16, -1536, 511], &mut out);
        assert_eq!(out, [2, -2, 1]);
    }

    #[test]
    fn quantized_leaky_relu_uses_two_multipliers() {
        use crate::fixedpoint::quantize_multiplier;
        let (multiplier_identity, shift_identity) = quantize_multiplier(1.0);
        let (multiplier_alpha, shift_alpha) = quantize_multiplier(0.25);
        let p = QuantLeakyRelu {
            input_zero_point: 0,
            output_zero_point: 100,
            multiplier_identity,
            shift_identity,
            multiplier_alpha,
            shift_alpha,
        };
        let mut out = [0i8; 5];
        // -6 · 0.25 = -1.5 → -2; -5 · 0.25 = -1.25 → -1; 27 → 127; 28 → 128 → clamped; -128 → -32.
        quantized_leaky_relu(&p, &[-6i8, -5, 27, 28, -128], &mut out);
        assert_eq!(out, [98, 99, 127, 127, 68]);
    }

    #[test]
    fn quantized_hard_swish_fixed_point_pipeline() {
        use crate::fixedpoint::quantize_multiplier;
        // Input and output scale 1/32, zero points 0. hires scale 2^-12: output multiplier
        // 2^-7 = (2^30, -6) → Q15 16384; reluish multiplier (2^-12) / (3 / 32768) = 8/3, which
        // in float is 2.6666667461… = (1431655808, 2) → Q15 21845.
        let (m_out, e_out) = quantize_multiplier(2f64.powi(-7));
        assert_eq!(
            (down_scale_int32_to_int16_multiplier(m_out), e_out),
            (16384, -6)
        );
        let (m_rel, e_rel) = quantize_multiplier(f64::from(2f32.powi(-12) / (3.0 / 32768.0)));
        assert_eq!((m_rel, e_rel), (1_431_655_808, 2));
        assert_eq!(down_scale_int32_to_int16_multiplier(m_rel), 21845);
        let p = QuantHardSwish {
            input_zero_point: 0,
            output_zero_point: 0,
            output_multiplier_fixedpoint_int16: 16384,
            output_multiplier_exponent: -6,
            reluish_multiplier_fixedpoint_int16: 21845,
            reluish_multiplier_exponent: 2,
        };
        let mut out = [0i8; 5];
        // x = 1: reluish 21845 (2/3), preshift 2048 → 1365 → 21 (0.656); x = 3 → 96;
        // x = -3 and -4 → 0; 0 → 0.
        quantized_hard_swish(&p, &[32i8, 96, -96, -128, 0], &mut out);
        assert_eq!(out, [21, 96, 0, 0, 0]);
        assert_eq!(down_scale_int32_to_int16_multiplier(i32::MAX), i16::MAX);
    }

    #[test]
    fn sixteen_bit_helpers_round_like_gemmlowp() {
        // Positive ties go up, negative ties toward zero (the nudge), truncating division.
        assert_eq!(srdhm_i16(3, 16384), 2); // 1.5 → 2
        assert_eq!(srdhm_i16(-3, 16384), -1); // -1.5 → -1
        assert_eq!(srdhm_i16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(sdhm_i16(3, 16384), 1);
        assert_eq!(rounding_divide_by_pot_i16(6, 2), 2);
        assert_eq!(rounding_divide_by_pot_i16(-6, 2), -2);
        // Exponents ≥ 16 truncate the mask as int16 arithmetic does: any x ≥ 0 gives 1.
        assert_eq!(rounding_divide_by_pot_i16(5, 20), 1);
        assert_eq!(saturating_left_shift_i16(20000, 1), i16::MAX);
        assert_eq!(saturating_left_shift_i16(-20000, 1), i16::MIN);
    }

    #[test]
    fn int16_logistic_and_tanh_interpolate_the_sigmoid_table() {
        // Input scale 2^-12 is the power-of-two case (multiplier 0 → 3, no shift).
        let mut out = [0i16; 3];
        // sigmoid(0) = 0.5 → 16384; sigmoid(1): table[24] = 47911 → (47911·512 + 512) >> 10 =
        // 23956; sigmoid(-1) = 32768 − 23956.
        logistic_int16(0, 0, &[0, 4096, -4096], &mut out);
        assert_eq!(out, [16384, 23956, 8812]);
        // tanh(0.5) = 2·sigmoid(1) − 1: (47911·256 − 2^23 + 128) >> 8 = 15143; odd symmetry.
        tanh_int16(0, 0, &[0, 2048, -2048], &mut out);
        assert_eq!(out, [0, 15143, -15143]);
        // Input scale 2^-11 is the power-of-two case with left shift 1 (multiplier 6).
        tanh_int16(0, 1, &[1024, 0, 0], &mut out);
        assert_eq!(out[0], 15143);
        // Saturation far beyond the table: 0x7FFF << 10 → 32767 (+ half), and for negative
        // inputs (2^25 − (0x7FFF << 10) + 511) >> 10 = 1.
        logistic_int16(30000, 1, &[32767, -32768, 0], &mut out);
        assert_eq!(out, [32767, 1, 16384]);
    }

    #[test]
    fn quantized_softmax_int8() {
        use crate::fixedpoint::quantize_multiplier;
        // Input scale 1, beta 1: multiplier 2^26 = (2^30, 27); radius floor(31 · 2^26 / 2^27) = 15.
        let (input_multiplier, input_left_shift) = quantize_multiplier(2f64.powi(26));
        let p = QuantSoftmax {
            input_multiplier,
            input_left_shift,
            diff_min: -15,
        };
        let mut out = [0i8; 4];
        // Equal pair → 0.5 each → 128 − 128 = 0; a difference of 255 is below -15 → -128 and the
        // maximum takes everything (256 − 128, clamped to 127).
        quantized_softmax(&p, 2, &[5i8, 5, 127, -128], &mut out);
        assert_eq!(out, [0, 0, 127, -128]);
        // uint8 output on the uint8 grid: 0.5 → 128.
        let mut out = [0u8; 2];
        quantized_softmax(&p, 2, &[7u8, 7], &mut out);
        assert_eq!(out, [128, 128]);
    }

    #[test]
    fn int16_softmax_normalises_rows() {
        use super::super::fixedpoint_math::lut_int16;
        use crate::fixedpoint::quantize_multiplier;
        let range = 65535.0;
        let (input_multiplier, input_left_shift) =
            quantize_multiplier(f64::from(1.0f32 / 4096.0) / (10.0 / 65535.0));
        let p = QuantSoftmaxInt16 {
            exp_lut: Box::new(lut_int16(10.0 / range, 32767, 2.0 / range, 0, f64::exp)),
            one_over_one_plus_x_lut: Box::new(lut_int16(
                1.0 / range,
                -32768,
                2.0 / range,
                0,
                |x| 1.0 / (1.0 + x),
            )),
            input_multiplier,
            input_left_shift,
        };
        let mut out = [0i16; 4];
        softmax_int16(&p, 2, &[100, 100, 32767, -32768], &mut out);
        // Equal pair ≈ 0.5 each (within the tables' error); a difference of 16 (scale 2^-12)
        // gives exp(-16) ≈ 0 and ≈ 1 for the maximum.
        assert_eq!(out[0], out[1]);
        assert!((out[0] - 16384).abs() <= 2, "{out:?}");
        assert!(out[2] >= 32760 && out[3] <= 2, "{out:?}");
    }

    #[test]
    fn quantized_kernels_are_total_on_any_input() {
        // Every int16 value through the table kernels with ordinary and extreme scalings.
        let all16: Vec<i16> = (i16::MIN..=i16::MAX).collect();
        let mut out16 = vec![0i16; all16.len()];
        for (m, s) in [
            (0, 0),
            (0, 1),
            (32767, 31),
            (16384, 5),
            (i32::MAX, 0),
            (-5, 40),
        ] {
            logistic_int16(m, s, &all16, &mut out16);
            tanh_int16(m, s, &all16, &mut out16);
        }
        // Every int8 value through HARD_SWISH, RELU and LEAKY_RELU with extreme parameters.
        let all8: Vec<i8> = (i8::MIN..=i8::MAX).collect();
        let mut out8 = vec![0i8; all8.len()];
        for e in [-40, -20, -1, 0, 1, 20, 40] {
            for m in [i16::MIN, -1, 0, 1, i16::MAX] {
                let p = QuantHardSwish {
                    input_zero_point: 127,
                    output_zero_point: -128,
                    output_multiplier_fixedpoint_int16: m,
                    output_multiplier_exponent: e,
                    reluish_multiplier_fixedpoint_int16: m,
                    reluish_multiplier_exponent: -e,
                };
                quantized_hard_swish(&p, &all8, &mut out8);
            }
            let r = QuantReluX {
                input_zero_point: -128,
                output_zero_point: 127,
                multiplier: i32::MAX,
                shift: e,
                act_min: 100,
                act_max: -100,
            };
            quantized_relu_x(&r, &all8, &mut out8);
            let l = QuantLeakyRelu {
                input_zero_point: i32::MAX,
                output_zero_point: i32::MIN,
                multiplier_identity: i32::MIN,
                shift_identity: e,
                multiplier_alpha: i32::MAX,
                shift_alpha: -e,
            };
            quantized_leaky_relu(&l, &all8, &mut out8);
        }
        // SOFTMAX with extreme rows and parameters.
        for (m, s, d) in [(i32::MAX, 31, i32::MIN), (1, 0, 0), (i32::MAX, 0, -1)] {
            let p = QuantSoftmax {
                input_multiplier: m,
                input_left_shift: s,
                diff_min: d,
            };
            quantized_softmax(&p, 3, &all8[..255], &mut out8[..255]);
        }
        let p = QuantSoftmaxInt16 {
            exp_lut: Box::new([i16::MAX; 513]),
            one_over_one_plus_x_lut: Box::new([i16::MIN; 513]),
            input_multiplier: i32::MAX,
            input_left_shift: 31,
        };
        softmax_int16(&p, 4, &all16, &mut out16);
        softmax_int16(&p, 1, &all16, &mut out16);
    }
}
