//! L2_NORMALIZATION along the last axis, float and int8, as LiteRT's reference kernels compute
//! it.
//!
//! - Float ([`l2_normalize_f32`]): `reference_ops::L2Normalization` (the optimized kernel is the
//!   same loop): the sum of squares in input order in `f32`, `sqrt`, clamped below by `1e-6`,
//!   then one `f32` division per element.
//! - Int8 ([`l2_normalize_int8`]): `reference_integer_ops::L2Normalization`: the sum of squared
//!   zero-point-corrected inputs in `i32`, its inverse square root as a Q31 multiplier and shift
//!   from `GetInvSqrtQuantizedMultiplierExp` ([`inv_sqrt_multiplier`]: five gemmlowp
//!   Newton-Raphson steps in Q3.28), each element rescaled by `MultiplyByQuantizedMultiplier`
//!   (double rounding) to the fixed output scale 1/128, zero point 0, and clamped to int8.

use super::fixedpoint_math::{rescale, saturating_rounding_multiply_by_pot};
use crate::fixedpoint::{
    multiply_by_quantized_multiplier, saturating_rounding_doubling_high_mul as srdhm,
};

/// The float kernel's lower bound on the norm (LiteRT's hard-coded epsilon).
const EPSILON: f32 = 1e-6;

/// Float L2 normalization of `outer` rows of `depth` elements.
pub fn l2_normalize_f32(depth: usize, input: &[f32], output: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let mut squared = 0f32;
        for &v in row {
            squared += v * v;
        }
        let norm = squared.sqrt().max(EPSILON);
        for (o, &v) in out.iter_mut().zip(row) {
            *o = v / norm;
        }
    }
}

/// `GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1)`: `1/sqrt(input)` as a Q31
/// multiplier and a shift to add to a `MultiplyByQuantizedMultiplier` shift (negative = right).
/// Inputs 0 and 1 give `(i32::MAX, 0)`, as LiteRT special-cases them.
pub fn inv_sqrt_multiplier(input: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift = 11i32;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs as i32;
    input <<= 2 * left_shift_bit_pairs;
    // Q3.28 Newton-Raphson for 1/sqrt, starting at 1.
    let fixed_input = input >> 1;
    let half_input = saturating_rounding_multiply_by_pot(fixed_input, -1);
    let half_three = (1 << 28) + (1 << 27);
    let mut x = 1i32 << 28;
    for _ in 0..5 {
        // x³ is Q9 (3 + 3 + 3 integer bits), rescaled to Q3.
        let x3 = rescale(srdhm(srdhm(x, x), x), 9, 3);
        // Products of two Q3 values are Q6; their difference wraps like gemmlowp's raw `-`.
        let next = srdhm(half_three, x).wrapping_sub(srdhm(half_input, x3));
        x = rescale(next, 6, 3);
    }
    // Times sqrt(2)/2 in Q0.31: Q3.
    let half_sqrt_2 = 1_518_500_250;
    let mut multiplier = srdhm(x, half_sqrt_2);
    if shift < 0 {
        multiplier = multiplier.wrapping_shl((-shift) as u32);
        shift = 0;
    }
    (multiplier, -shift)
}

/// Int8 L2 normalization of rows of `depth` elements with input zero point `zero_point`; the
/// output has scale 1/128 and zero point 0.
pub fn l2_normalize_int8(depth: usize, zero_point: i32, input: &[i8], output: &mut [i8]) {
    if depth == 0 {
        return;
    }
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let mut acc = 0i32;
        for &v in row {
            let d = i32::from(v) - zero_point;
            acc = acc.wrapping_add(d * d);
        }
        let (multiplier, shift) = inv_sqrt_multiplier(acc);
        for (o, &v) in out.iter_mut().zip(row) {
            let d = i32::from(v) - zero_point;
            let q = multiply_by_quantized_multiplier(d, multiplier, shift + 7);
            *o = q.clamp(-128, 127) as i8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_rows_have_unit_norm_and_zero_rows_stay_zero() {
        let input = [3.0, 4.0, 0.0, 0.0];
        let mut out = [0.0; 4];
        l2_normalize_f32(2, &input, &mut out);
        assert_eq!(out, [0.6, 0.8, 0.0, 0.0]);
    }

    #[test]
    fn inv_sqrt_is_close_to_the_real_one() {
        for v in [2, 3, 100, 12_345, 1 << 20, (1 << 29) + 7, i32::MAX] {
            let (m, shift) = inv_sqrt_multiplier(v);
            let got = f64::from(m) / 2f64.powi(31) * 2f64.powi(shift);
            let want = 1.0 / f64::from(v).sqrt();
            assert!((got / want - 1.0).abs() < 1e-4, "{v}: {got} vs {want}");
        }
        assert_eq!(inv_sqrt_multiplier(0), (i32::MAX, 0));
    }

    #[test]
    fn int8_rows_scale_to_1_over_128() {
        // (3, 4) - zp 1 → (2, 3): norm sqrt(13); 2/sqrt(13)·128 = 71.0, 3/sqrt(13)·128 = 106.5.
        let mut out = [0i8; 2];
        l2_normalize_int8(2, 1, &[3, 4], &mut out);
        assert_eq!(out, [71, 107]);
        l2_normalize_int8(2, 0, &[0, 0], &mut out);
        assert_eq!(out, [0, 0]);
    }
}
