//! Elementwise unary math: ABS, NEG, SQUARE, SQRT, RSQRT, EXP, LOG, FLOOR, CEIL, ROUND, ELU and
//! GELU (both forms) in float32, and the quantized kernels LiteRT has for ABS, SQRT, RSQRT, EXP,
//! LOG, ELU and GELU.
//!
//! They mirror LiteRT's `kernels/elementwise.cc` (ABS, SQRT, RSQRT, LOG, SQUARE), `exp.cc`,
//! `neg.cc`, `floor.cc`, `ceil.cc`, `round.cc` and `activations.cc` (ELU):
//!
//! - float: one libm call (or product) per element in float32, as the C++ `std::` functions;
//!   ROUND is LiteRT's own `RoundToNearest` ([`round_to_nearest`]: half to even, but a negative
//!   input that rounds to zero gives +0.0); ELU is `x < 0 ? expm1(x) : x` ([`elu`]);
//! - int8 ELU: a 256-entry table built at prepare from `x < 0 ? exp(x) − 1 : x` (note: `exp − 1`,
//!   not the float kernel's `expm1`), as EXP below;
//! - int8 / int16 ABS: `|q − z_in|`, rescaled with `MultiplyByQuantizedMultiplier` (double
//!   rounding) when the scales differ ([`quantized_abs`]);
//! - int8 RSQRT: gemmlowp's fixed-point Newton–Raphson inverse square root
//!   (`GetInvSqrtQuantizedMultiplierExp`) then two `MultiplyByQuantizedMultiplier` steps
//!   ([`quantized_rsqrt_int8`]);
//! - int8 / int16 SQRT: a float path, truncating to int ([`quantized_sqrt`]);
//! - int8 EXP / LOG: 256-entry tables built at prepare from the float function
//!   (`LUTPopulate<int8_t>`, [`super::fixedpoint_math::lut_int8`]); int16 EXP / LOG / RSQRT:
//!   513-entry interpolated tables built in float (`LUTPopulate<int16_t>`, [`super::fixedpoint_math::lut_int16_f32`])
//!   read with `LUTLookup` ([`lookup_int16`]).
//! - GELU (`activations.cc`, `reference_ops::Gelu`): float through Eigen's vectorized `tanh`
//!   ([`gelu_approximate`]) or `erfc` ([`gelu_exact`]); int8 / int16 through tables built from
//!   the scalar `GeluTransformApproximate` with `tanhf` ([`gelu_transform_approximate`]) or
//!   `GeluTransform` with `erfcf` ([`gelu_transform`]), as for EXP.

use super::fixedpoint_math::{lut_lookup_int16, rescale, saturating_rounding_multiply_by_pot};
use super::quantize::QuantInt;
use crate::fixedpoint::{multiply_by_quantized_multiplier, saturating_rounding_doubling_high_mul};
use crate::litert_optimized::activations::{
    erfc_f32 as eigen_erfc, erfc_f32_tf, tanh_f32 as eigen_tanh,
};

/// `sqrt(2 / π)` as LiteRT's `gelu_internal::kSqrt2dPi`: the product in double, then float.
const SQRT_2_OVER_PI: f32 =
    (std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2) as f32;
/// The cubic coefficient of GELU's tanh approximation.
const GELU_CUBIC: f32 = 0.044715;

/// Float32 GELU, tanh approximation. Mirrors LiteRT `reference_ops::Gelu(approximate = true)`,
/// an Eigen expression `0.5·x · (1 + tanh(√(2/π) · (x + 0.044715·x³)))` whose `tanh` is Eigen's
/// vectorized rational ([`crate::litert_optimized::activations::tanh_f32`]), each
/// product and sum rounded to float (checked bit for bit, loop tail included).
pub fn gelu_approximate(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let cube = x * (x * x);
        let t = eigen_tanh(SQRT_2_OVER_PI * (x + GELU_CUBIC * cube));
        *o = (0.5 * x) * (1.0 + t);
    }
}

/// LiteRT's scalar `reference_ops::GeluTransformApproximate`, which fills the int8 / int16
/// tables: `(0.5·x) · (1 + tanhf(√(2/π) · (x + ((0.044715·x)·x)·x)))` in float.
pub fn gelu_transform_approximate(x: f32) -> f32 {
    let half_x = 0.5 * x;
    let cubic = GELU_CUBIC * x * x * x;
    half_x * (1.0 + (SQRT_2_OVER_PI * (x + cubic)).tanh())
}

/// `−1/√2` as the float LiteRT multiplies by (`static_cast<float>(-M_SQRT1_2)`).
const NEG_SQRT_HALF: f32 = -std::f64::consts::FRAC_1_SQRT_2 as f32;

/// Float32 GELU, exact form. Mirrors LiteRT's float GELU (`approximate = false`), the Eigen
/// expression `(0.5·x) · erfc(x · −1/√2)` with Eigen's vectorized float `erfc`
/// ([`crate::litert_optimized::activations::erfc_f32`]), each step rounded to float
/// (checked bit for bit on 4099 inputs over [−6, 6]).
pub fn gelu_exact(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = (0.5 * x) * eigen_erfc(x * NEG_SQRT_HALF);
    }
}

/// [`gelu_exact`] as TF 2.21's wheel (TF's calibrator) computes it: the same expression with
/// [`crate::litert_optimized::activations::erfc_f32_tf`], whose `1/x²` is the CPU's reciprocal
/// estimate refined by a Newton step.
pub fn gelu_exact_tf(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = (0.5 * x) * erfc_f32_tf(x * NEG_SQRT_HALF);
    }
}

/// LiteRT's scalar `GeluTransform`, which fills the int8 / int16 tables of the exact form:
/// `(0.5·x) · erfcf(x · −1/√2)` in float, `erfcf` being the C library's. Here `erfc` is
/// evaluated in double ([`erfc_f64`]) and rounded once, which is within glibc's `erfcf` error
/// (< 1 ulp) of it: a table entry can only differ where the float product lands within that of
/// a rounding boundary (none did on the `tiny_vit` goldens).
pub fn gelu_transform(x: f32) -> f32 {
    (0.5 * x) * erfc_f64(f64::from(x * NEG_SQRT_HALF)) as f32
}

/// Horner's rule over `coeffs` (highest degree first), in double.
fn polevl_f64(x: f64, coeffs: &[f64]) -> f64 {
    coeffs[1..].iter().fold(coeffs[0], |p, &c| p * x + c)
}

/// `erfc(x)` in double to a few ulps (coefficients as their exact double bits): for `|x| ≤ 1`, `1 − x·S(x²)/T(x²)`; above,
/// `exp(−x²) · P(1/x²) / (x·Q(1/x²))` (+2 for negative `x`), with the rational minimax
/// coefficients Eigen's `generic_fast_erfc<double>` uses (`erf_over_x_double_small`,
/// `erfc_double_large`); `x` clamped to ±28, where erfc is 0 or 2 in double.
pub fn erfc_f64(x: f64) -> f64 {
    const S: [f64; 5] = [
        f64::from_bits(0x3f29_8d02_48a3_151b),
        f64::from_bits(0x3f5d_f011_db6e_40d1),
        f64::from_bits(0x3fa7_3200_9ffd_16b8),
        f64::from_bits(0x3fc2_31f9_ed80_3a1d),
        f64::from_bits(0x3ff2_0dd7_5042_9b6d),
    ];
    const T: [f64; 6] = [
        f64::from_bits(0x3ef5_47c2_53fb_5076),
        f64::from_bits(0x3f46_5222_be39_45e2),
        f64::from_bits(0x3f85_ac07_7eb0_df4d),
        f64::from_bits(0x3fb7_df67_10c4_f130),
        f64::from_bits(0x3fdd_6558_67b0_4430),
        1.0,
    ];
    const P: [f64; 10] = [
        f64::from_bits(0x3f23_fe01_6737_06b5),
        f64::from_bits(0x3f86_57ef_a777_77b4),
        f64::from_bits(0x3fbb_358f_f52b_75ef),
        f64::from_bits(0x3fd5_6f68_2234_58b9),
        f64::from_bits(0x3fdc_d793_a78a_6ca5),
        f64::from_bits(0x3fd2_d64f_2337_5ce8),
        f64::from_bits(0x3fb9_4a7a_120d_9753),
        f64::from_bits(0x3f91_8198_cdac_4128),
        f64::from_bits(0x3f57_5882_81d3_7f40),
        f64::from_bits(0x3f07_5dbb_7567_1cc8),
    ];
    const Q: [f64; 10] = [
        f64::from_bits(0x3f60_ba5a_6793_e0c0),
        f64::from_bits(0x3fab_37d3_e494_7ceb),
        f64::from_bits(0x3fd5_ed8e_2243_1347),
        f64::from_bits(0x3feb_68f8_4d7a_94bc),
        1.0,
        f64::from_bits(0x3fe3_19a5_3173_fac0),
        f64::from_bits(0x3fc8_342d_0f03_c8a7),
        f64::from_bits(0x3fa0_240d_4978_c852),
        f64::from_bits(0x3f65_035f_ed4d_4516),
        f64::from_bits(0x3f14_b52c_14a1_bbca),
    ];
    let x = x.clamp(-28.0, 28.0);
    let x2 = x * x;
    if x2 <= 1.0 {
        return 1.0 - x * polevl_f64(x2, &S) / polevl_f64(x2, &T);
    }
    let q2 = 1.0 / x2;
    let r = polevl_f64(q2, &P) / (x * polevl_f64(q2, &Q));
    (-x2).exp() * r + if x < 0.0 { 2.0 } else { 0.0 }
}

/// A float32 unary math function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryMath {
    /// `|x|`.
    Abs,
    /// `−x`.
    Neg,
    /// `x · x`.
    Square,
    /// `sqrt(x)`.
    Sqrt,
    /// `1 / sqrt(x)`, both in float32.
    Rsqrt,
    /// `exp(x)`.
    Exp,
    /// `ln(x)`.
    Log,
    /// `floor(x)`.
    Floor,
    /// `ceil(x)`.
    Ceil,
    /// LiteRT's `RoundToNearest` ([`round_to_nearest`]).
    Round,
    /// `x < 0 ? expm1(x) : x` ([`elu`]).
    Elu,
}

impl UnaryMath {
    /// The function at `x`, in float32 as LiteRT's reference kernel computes it.
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            UnaryMath::Abs => x.abs(),
            UnaryMath::Neg => -x,
            UnaryMath::Square => x * x,
            UnaryMath::Sqrt => x.sqrt(),
            UnaryMath::Rsqrt => 1.0 / x.sqrt(),
            UnaryMath::Exp => x.exp(),
            UnaryMath::Log => x.ln(),
            UnaryMath::Floor => x.floor(),
            UnaryMath::Ceil => x.ceil(),
            UnaryMath::Round => round_to_nearest(x),
            UnaryMath::Elu => elu(x),
        }
    }
}

/// LiteRT's `RoundToNearest` (`internal/round.h`, what ROUND's float kernel calls):
/// `f = floor(x)`, `d = x − f`; `f` when `d < 0.5` or (`d == 0.5` and `f` is even), else
/// `f + 1`. Ties go to even like `round_ties_even`, but a negative input that rounds up to zero
/// gives `−1 + 1 = +0.0` (−0.5 and −0.3 give +0.0; −0.0 stays −0.0), and NaN and ±∞ come out
/// of `f + 1` unchanged. Checked against LiteRT 2.3 on the `op_round` goldens' edge values.
pub fn round_to_nearest(x: f32) -> f32 {
    let f = x.floor();
    let d = x - f;
    // `static_cast<int>(f) % 2`: only reached for |x| < 2^23 (larger floats are integers,
    // d = 0), where the cast is exact.
    if d < 0.5 || (d == 0.5 && (f as i32) % 2 == 0) {
        f
    } else {
        f + 1.0
    }
}

/// LiteRT's float ELU (`activations.cc` `EluEval` → `Elu`): `x < 0 ? expm1(x) : x` in float32,
/// the C library's `expm1f` (not `exp(x) − 1`, which differs in the last bits for about a quarter
/// of negative inputs). NaN is not below zero, so it passes through.
pub fn elu(x: f32) -> f32 {
    if x < 0.0 { x.exp_m1() } else { x }
}

/// The transform LiteRT's int8 ELU table is built from (`EluPrepare`):
/// `x < 0 ? std::exp(x) − 1.0f : x`, the exponential and the subtraction each in float32.
pub fn elu_table_transform(x: f32) -> f32 {
    if x < 0.0 { x.exp() - 1.0 } else { x }
}

/// Float32 unary math, element by element. Mirrors LiteRT's `EvalNumeric` / `reference_ops`
/// loops (`std::abs`, `std::sqrt`, `1.f / std::sqrt`, `std::exp`, `std::log`, `std::floor`,
/// `std::ceil`, `RoundToNearest`, `std::expm1`).
pub fn float_unary(f: UnaryMath, input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = f.apply(x);
    }
}

/// Parameters of the quantized ABS (LiteRT `elementwise.cc`, `AbsEvalQuantized`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantAbs {
    /// Input zero point.
    pub input_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(s_in / s_out)` (quotient in float), or `None` when the scales are
    /// equal and LiteRT skips the rescale.
    pub rescale: Option<(i32, i32)>,
}

/// Quantized ABS (int8 / int16): `clamp(MBQM(|q − z_in|) + z_out)`.
pub fn quantized_abs<T: QuantInt>(p: &QuantAbs, input: &[T], output: &mut [T]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let value = (x.to_i32() - p.input_offset).abs();
        let scaled = match p.rescale {
            Some((m, shift)) => multiply_by_quantized_multiplier(value, m, shift),
            None => value,
        };
        *o = T::clamp_from(scaled.saturating_add(p.output_offset));
    }
}

/// gemmlowp / LiteRT's `GetInvSqrtQuantizedMultiplierExp(input, kReverseShift)`: `1 / sqrt(x)`
/// as a Q0.31 multiplier and a shift (negative: right), by five Newton–Raphson steps in Q3.28.
/// Inputs ≤ 1 give `(i32::MAX, 0)`, as LiteRT's special case.
pub fn inv_sqrt_quantized_multiplier_exp(input: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift: i32 = 11;
    while input >= (1 << 29) {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() as i32 - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs;
    input <<= 2 * left_shift_bit_pairs;
    // Q3.28 arithmetic: products of two Q3 values are Q6, of three Q9.
    let mul = saturating_rounding_doubling_high_mul;
    let fixed_input = input >> 1;
    let half_input = saturating_rounding_multiply_by_pot(fixed_input, -1);
    let half_three: i32 = (1 << 28) + (1 << 27);
    let mut x: i32 = 1 << 28; // One in Q3.28.
    for _ in 0..5 {
        let x3 = rescale(mul(mul(x, x), x), 9, 3);
        x = rescale(mul(half_three, x).wrapping_sub(mul(half_input, x3)), 6, 3);
    }
    // Times sqrt(2)/2 in Q0.31 (a Q3 result).
    let half_sqrt_2: i32 = 1_518_500_250;
    let mut inv_sqrt = mul(x, half_sqrt_2);
    if shift < 0 {
        inv_sqrt = inv_sqrt.wrapping_shl((-shift) as u32);
        shift = 0;
    }
    (inv_sqrt, -shift)
}

/// Parameters of the int8 RSQRT (LiteRT `elementwise.cc`, `RsqrtEvalQuantizedInt8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantRsqrt {
    /// Input zero point.
    pub input_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(1. / (sqrt(s_in) · s_out))` (square root and product in float,
    /// quotient in double): multiplier.
    pub multiplier: i32,
    /// Its shift.
    pub shift: i32,
}

/// Int8 RSQRT: `q − z_in = 0` gives 127; otherwise `1/sqrt(q − z_in)` in fixed point scaled by
/// `2^20` (`MBQM(1, inv_sqrt, shift + 20)`), then `MBQM(·, multiplier, shift − 20) + z_out`,
/// clamped. LiteRT fails the invoke on inputs below the zero point; the operator
/// (`ops::math`) checks that before calling this, which maps them to 127.
pub fn quantized_rsqrt_int8(p: &QuantRsqrt, input: &[i8], output: &mut [i8]) {
    const K_SHIFT: i32 = 20;
    for (o, &x) in output.iter_mut().zip(input) {
        let value = i32::from(x) - p.input_offset;
        if value <= 0 {
            *o = i8::MAX;
            continue;
        }
        let (inv_sqrt, inv_shift) = inv_sqrt_quantized_multiplier_exp(value);
        let data = multiply_by_quantized_multiplier(1, inv_sqrt, inv_shift + K_SHIFT);
        let out = multiply_by_quantized_multiplier(data, p.multiplier, p.shift - K_SHIFT)
            .saturating_add(p.output_offset);
        *o = out.clamp(-128, 127) as i8;
    }
}

/// Parameters of the quantized SQRT (LiteRT `elementwise.cc`, `SqrtEvalQuantized`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantSqrt {
    /// Input scale.
    pub input_scale: f32,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output scale.
    pub output_scale: f32,
    /// Output zero point.
    pub output_zero_point: i32,
}

/// Quantized SQRT (int8 / int16), a float path: `x = s_in · (q − z_in)` in float,
/// `(int)(sqrt(x) / s_out) + z_out` (truncating toward zero), clamped. LiteRT refuses negative
/// inputs at eval; here they give the zero point.
pub fn quantized_sqrt<T: QuantInt>(p: &QuantSqrt, input: &[T], output: &mut [T]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let dequantized = p.input_scale * (x.to_i32() - p.input_zero_point) as f32;
        let root = dequantized.sqrt();
        // `as` truncates toward zero like `static_cast<int>` (NaN gives 0).
        let q = ((root / p.output_scale) as i32).saturating_add(p.output_zero_point);
        *o = T::clamp_from(q);
    }
}

/// LiteRT's int16 `LookupTable`: every element through `LUTLookup` in a 513-entry table.
pub fn lookup_int16(lut: &[i16; 513], input: &[i16], output: &mut [i16]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = lut_lookup_int16(x, lut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_f64_matches_published_values() {
        // erfc at 0, 0.5, −1, 2, 5 (Abramowitz & Stegun / DLMF tables).
        let cases = [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (-1.0, 1.842_700_792_949_715),
            (2.0, 4.677_734_981_047_266e-3),
            (5.0, 1.537_459_794_428_034_8e-12),
        ];
        for (x, want) in cases {
            let got = erfc_f64(x);
            assert!(
                ((got - want) / want).abs() < 1e-14,
                "erfc({x}) = {got}, want {want}"
            );
        }
        // Beyond the clamp: 0 and 2.
        assert_eq!(erfc_f64(40.0), 0.0);
        assert_eq!(erfc_f64(-40.0), 2.0);
    }

    #[test]
    fn inv_sqrt_matches_float() {
        for v in [
            2,
            3,
            4,
            17,
            100,
            255,
            1000,
            65_535,
            1 << 20,
            (1 << 29) + 5,
            i32::MAX,
        ] {
            let (m, shift) = inv_sqrt_quantized_multiplier_exp(v);
            let got = f64::from(m) / 2f64.powi(31) * 2f64.powi(shift);
            let want = 1.0 / f64::from(v).sqrt();
            assert!((got / want - 1.0).abs() < 1e-5, "{v}: {got} vs {want}");
        }
        assert_eq!(inv_sqrt_quantized_multiplier_exp(1), (i32::MAX, 0));
        assert_eq!(inv_sqrt_quantized_multiplier_exp(-5), (i32::MAX, 0));
    }

    #[test]
    fn abs_rescales_and_clamps() {
        let p = QuantAbs {
            input_offset: -10,
            output_offset: -128,
            rescale: None,
        };
        let mut out = [0i8; 3];
        quantized_abs(&p, &[-128i8, -10, 127], &mut out);
        assert_eq!(out, [-10, -128, 9]);
    }

    #[test]
    fn float_functions() {
        let mut out = [0.0f32; 2];
        float_unary(UnaryMath::Rsqrt, &[4.0, 0.25], &mut out);
        assert_eq!(out, [0.5, 2.0]);
        float_unary(UnaryMath::Floor, &[-1.5, 2.5], &mut out);
        assert_eq!(out, [-2.0, 2.0]);
        float_unary(UnaryMath::Ceil, &[-1.5, 2.5], &mut out);
        assert_eq!(out, [-1.0, 3.0]);
    }

    #[test]
    fn round_is_litert_round_to_nearest() {
        // Values LiteRT 2.3's ROUND gives (BUILTIN_WITHOUT_DEFAULT_DELEGATES, recorded in the
        // op_round_edges golden): ties to even, and +0.0 (sign bit clear) for −0.5, −0.3 and a
        // negative subnormal, while −0.0 stays −0.0.
        let cases: [(f32, f32); 10] = [
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-1.5, -2.0),
            (-2.5, -2.0),
            (0.499_999_97, 0.0),
            (-0.5, 0.0),
            (-0.3, 0.0),
            (-1e-40, 0.0),
            (-0.0, -0.0),
        ];
        for (x, want) in cases {
            let got = round_to_nearest(x);
            assert_eq!(got.to_bits(), want.to_bits(), "round({x}) = {got}");
        }
        assert!(round_to_nearest(f32::NAN).is_nan());
        assert_eq!(round_to_nearest(f32::NEG_INFINITY), f32::NEG_INFINITY);
        assert_eq!(round_to_nearest(3e9), 3e9);
    }

    #[test]
    fn elu_is_expm1_below_zero() {
        assert_eq!(elu(2.5), 2.5);
        assert_eq!(elu(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(elu(f32::NEG_INFINITY), -1.0);
        assert!(elu(f32::NAN).is_nan());
        // expm1 keeps a tiny input's digits where exp(x) − 1 loses them.
        assert_eq!(elu(-1e-8), -1e-8);
        assert_eq!(elu_table_transform(-1e-8), 0.0);
    }
}
