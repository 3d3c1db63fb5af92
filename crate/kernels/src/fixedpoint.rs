//! Fixed-point requantization as LiteRT defines it (`tensorflow/lite/kernels/internal/common.h`,
//! `quantization_util.cc` and gemmlowp's `fixedpoint.h`).
//!
//! A real multiplier `M` (e.g. `S_in · S_w / S_out`) is stored as a Q31 mantissa `M0 ∈ [2^30,
//! 2^31)` and a power-of-two exponent `shift`, `M ≈ M0 · 2^(shift − 31)` ([`quantize_multiplier`]).
//! Multiplying an int32 accumulator by it comes in the flavours LiteRT builds use:
//!
//! - **double rounding** ([`multiply_by_quantized_multiplier`]): gemmlowp's saturating rounding
//!   doubling high multiply, then a rounding right shift. This is what LiteRT's pip wheels are
//!   built with (`TFLITE_SINGLE_ROUNDING` off).
//! - **single rounding** ([`multiply_by_quantized_multiplier_single_rounding`]): one 64-bit
//!   product, one rounding shift (tflite-micro's and `TFLITE_SINGLE_ROUNDING` builds).
//! - **int64 accumulators** ([`multiply_by_quantized_multiplier_i64`]): the 16x8 kernels with
//!   int64 bias reduce the multiplier to 16 bits first.
//!
//! Which kernel uses which is stated in each kernel's doc comment and checked by the goldens.
//! All functions are total: they never panic, whatever the operands (overflowing intermediate
//! products wrap exactly as the C++ does on two's-complement machines).

/// Splits a non-negative real multiplier into a Q31 mantissa and an exponent, as LiteRT's
/// `QuantizeMultiplier(double, int32_t*, int*)`: `frexp`, round the mantissa half away from
/// zero to 31 bits, renormalise a mantissa that rounded up to `2^31`, and flush multipliers
/// below `2^-31` to `(0, 0)`.
pub fn quantize_multiplier(m: f64) -> (i32, i32) {
    if m == 0.0 || !m.is_finite() {
        return (0, 0);
    }
    let (q, mut shift) = frexp(m);
    let mut q_fixed = (q * (1i64 << 31) as f64).round() as i64;
    if q_fixed == 1i64 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        shift = 0;
        q_fixed = 0;
    }
    (q_fixed as i32, shift)
}

/// Like [`quantize_multiplier`], but for builds with `TFLITE_SINGLE_ROUNDING`, which saturate
/// exponents above 30 to `(2^31 − 1, 30)`.
pub fn quantize_multiplier_single_rounding(m: f64) -> (i32, i32) {
    let (q, shift) = quantize_multiplier(m);
    if shift > 30 {
        (i32::MAX, 30)
    } else {
        (q, shift)
    }
}

/// `frexp`: `m = q · 2^e` with `0.5 ≤ |q| < 1` (finite, non-zero `m`).
pub fn frexp(m: f64) -> (f64, i32) {
    if m == 0.0 || !m.is_finite() {
        return (m, 0);
    }
    let bits = m.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    if exp_field == 0 {
        // Subnormal: scale up first.
        let (q, e) = frexp(m * 2f64.powi(64));
        return (q, e - 64);
    }
    let e = exp_field - 1022;
    let q_bits = (bits & !(0x7ffu64 << 52)) | (1022u64 << 52);
    (f64::from_bits(q_bits), e)
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul`: the high 32 bits of `2·a·b`, rounded to
/// nearest (ties away from zero); saturates the single overflowing case `a = b = i32::MIN`.
pub fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == b && a == i32::MIN {
        return i32::MAX;
    }
    let ab = i64::from(a) * i64::from(b);
    let nudge: i64 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    // C++ integer division truncates toward zero, as Rust's does.
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// gemmlowp's `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away from zero
/// (`exponent` in 0..=31).
pub fn rounding_divide_by_pot(x: i32, exponent: i32) -> i32 {
    let exponent = exponent.clamp(0, 31);
    let mask: i32 = ((1i64 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// LiteRT's `MultiplyByQuantizedMultiplier(int32_t x, int32_t m, int shift)` in its default
/// (double rounding) form: `RoundingDivideByPOT(SRDHM(x · 2^max(shift,0), m), max(−shift,0))`.
/// The left shift wraps on overflow like the C++, and a shift of 32 or more (an absurd
/// multiplier, undefined behaviour in C++) shifts by `shift mod 32`, as the x86 build of LiteRT
/// does (the `shl` instruction masks its count): checked against LiteRT on a 16x8 MEAN whose
/// output scale is 1e-38 (multiplier ≈ 2^112), found by the mutation harness; a 16x8
/// SOFTMAX with beta ≥ 1e10 reaches it too.
pub fn multiply_by_quantized_multiplier(x: i32, m: i32, shift: i32) -> i32 {
    let left = shift.max(0);
    let right = (-shift).max(0);
    let shifted = x.wrapping_mul(1i32.wrapping_shl(left as u32));
    rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, m), right)
}

/// `MultiplyByQuantizedMultiplierSmallerThanOneExp(x, m, left_shift)` (`left_shift ≤ 0`).
pub fn multiply_by_quantized_multiplier_smaller_than_one_exp(
    x: i32,
    m: i32,
    left_shift: i32,
) -> i32 {
    rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, m), -left_shift)
}

/// `MultiplyByQuantizedMultiplierGreaterThanOne(x, m, left_shift)` (`left_shift ≥ 0`).
pub fn multiply_by_quantized_multiplier_greater_than_one(x: i32, m: i32, left_shift: i32) -> i32 {
    // `x * (1 << left_shift)`, with x86's shift-count masking (see above).
    let shifted = x.wrapping_mul(1i32.wrapping_shl(left_shift as u32));
    saturating_rounding_doubling_high_mul(shifted, m)
}

/// The single-rounding `MultiplyByQuantizedMultiplier`: `(x · m + 2^(30 − shift)) >> (31 −
/// shift)` in 64 bits (shift in −31..=30), truncated to int32.
pub fn multiply_by_quantized_multiplier_single_rounding(x: i32, m: i32, shift: i32) -> i32 {
    let total_shift = i64::from(31 - shift.clamp(-31, 30));
    let round = 1i64 << (total_shift - 1);
    ((i64::from(x) * i64::from(m) + round) >> total_shift) as i32
}

/// `MultiplyByQuantizedMultiplier(int64_t x, int32_t m, int shift)`, used by the 16x8 kernels
/// with int64 accumulators: the multiplier is reduced to 15 bits with rounding (saturating at
/// `0x7FFF`), then one rounding shift by `15 − shift`. Both LiteRT rounding modes define it
/// this way.
pub fn multiply_by_quantized_multiplier_i64(x: i64, m: i32, shift: i32) -> i32 {
    let reduced: i64 = if m < 0x7FFF_0000 {
        (i64::from(m) + (1 << 15)) >> 16
    } else {
        0x7FFF
    };
    // `1 << (total_shift - 1)` and `>> total_shift` with a count outside 0..=63 (an absurd
    // multiplier) are undefined in C++; LiteRT's x86 build shifts by the count mod 64, and so
    // does this (checked against LiteRT on a 16x8 TRANSPOSE_CONV with input scale 3.4e38,
    // found by the mutation harness).
    let total_shift = 15i64 - i64::from(shift);
    let r = x
        .wrapping_mul(reduced)
        .wrapping_add(1i64.wrapping_shl((total_shift - 1) as u32));
    r.wrapping_shr(total_shift as u32) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_matches_the_c_definition() {
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(0.75), (0.75, 0));
        assert_eq!(frexp(3.0), (0.75, 2));
        assert_eq!(frexp(2f64.powi(-40)), (0.5, -39));
        let tiny = f64::from_bits(1); // smallest subnormal = 2^-1074
        assert_eq!(frexp(tiny), (0.5, -1073));
    }

    #[test]
    fn quantize_multiplier_edges() {
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        // Mantissa that rounds up to 2^31 renormalises.
        let just_below_one = 1.0 - 2f64.powi(-40);
        assert_eq!(quantize_multiplier(just_below_one), (1 << 30, 1));
        // Below 2^-31 flushes to zero.
        assert_eq!(quantize_multiplier(2f64.powi(-33)), (0, 0));
        assert_eq!(
            quantize_multiplier_single_rounding(2f64.powi(40)),
            (i32::MAX, 30)
        );
    }

    #[test]
    fn srdhm_and_rounding_divide() {
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
            i32::MAX
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(1 << 30, 1 << 30),
            1 << 29
        );
        // Ties away from zero.
        assert_eq!(rounding_divide_by_pot(3, 1), 2);
        assert_eq!(rounding_divide_by_pot(-3, 1), -2);
        assert_eq!(rounding_divide_by_pot(5, 2), 1);
        assert_eq!(rounding_divide_by_pot(-6, 2), -2);
        assert_eq!(rounding_divide_by_pot(7, 0), 7);
    }

    #[test]
    fn multiply_by_quantized_multiplier_approximates_the_real_product() {
        for &(x, m) in &[(1000, 0.3), (-1000, 0.3), (123_456, 0.000_123), (77, 3.5)] {
            let (q, s) = quantize_multiplier(m);
            let exact = (f64::from(x) * m).round() as i32;
            assert!((multiply_by_quantized_multiplier(x, q, s) - exact).abs() <= 1);
            assert!((multiply_by_quantized_multiplier_single_rounding(x, q, s) - exact).abs() <= 1);
            assert!((multiply_by_quantized_multiplier_i64(i64::from(x), q, s) - exact).abs() <= 1);
        }
    }

    #[test]
    fn double_and_single_rounding_differ_where_documented() {
        // 5 · 0.25 = 1.25. Double rounding: SRDHM(5, 2^30) = round(2.5) = 3, then 3 / 2 = 1.5
        // rounds to 2. Single rounding: (5 · 2^30 + 2^31) >> 32 = 1.
        let (q, s) = quantize_multiplier(0.25);
        assert_eq!((q, s), (1 << 30, -1));
        assert_eq!(multiply_by_quantized_multiplier(5, q, s), 2);
        assert_eq!(multiply_by_quantized_multiplier_single_rounding(5, q, s), 1);
    }
}
