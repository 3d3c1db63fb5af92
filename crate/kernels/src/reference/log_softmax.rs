//! LOG_SOFTMAX along the last axis, float and int8, as LiteRT computes it.
//!
//! - Float, reference ([`log_softmax_f32`]): `reference_ops::LogSoftmax`: row max, the sum of
//!   `exp(x − max)` left to right in `f32` (`std::exp`), `log` of it, and `(x − max) − log_sum`.
//! - Float, LiteRT's optimized kernel ([`log_softmax_f32_optimized`]), used for calibration:
//!   `optimized_ops::LogSoftmax` is an Eigen expression, `log((x − max).exp().sum())`: Eigen's
//!   vectorized sum ([`eigen::aligned_sum`], packet alignment from the row's offset) evaluates
//!   the packet part with Eigen's `pexp` ([`exp_f32`]) and the unaligned head and the tail with
//!   the scalar `std::exp`; a row with fewer than 8 elements after the head is summed left to
//!   right with `std::exp` only.
//! - Int8 ([`log_softmax_int8`]): `reference_integer_ops::LogSoftmax` with the parameters of
//!   LiteRT's `LogSoftmaxPrepare` ([`LogSoftmaxParams`]): differences to the row max scaled to
//!   Q5.26, gemmlowp's `exp_on_negative_values` summed in Q12.19, its log by
//!   `log_x_for_x_greater_than_or_equal_to_1` ([`log_x_ge_1`]) in Q5.26, and the output
//!   `(diff − log_sum) / 2^22 + 127` at the fixed scale 16/256, zero point 127.

use super::fixedpoint_math::{
    exp_on_negative_values, one_over_one_plus_x_for_x_in_0_1, rescale, rounding_half_sum,
};
use crate::fixedpoint::{
    multiply_by_quantized_multiplier, rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul as srdhm,
};
use crate::litert_optimized::activations::exp_f32;
use crate::litert_optimized::eigen;

/// Reference float LOG_SOFTMAX of rows of `depth` elements.
pub fn log_softmax_f32(depth: usize, input: &[f32], output: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let max = row.iter().fold(f32::MIN, |m, &x| if m < x { x } else { m });
        let mut sum = 0f32;
        for &x in row {
            sum += (x - max).exp();
        }
        let log_sum = sum.ln();
        for (o, &x) in out.iter_mut().zip(row) {
            *o = x - max - log_sum;
        }
    }
}

/// LiteRT's optimized (Eigen) float LOG_SOFTMAX; the output row holds the exponentials while the
/// sum is taken (no scratch memory).
pub fn log_softmax_f32_optimized(depth: usize, input: &[f32], output: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (r, (row, out)) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
        .enumerate()
    {
        let max = row[1..]
            .iter()
            .fold(row[0], |m, &x| if x > m { x } else { m });
        let head = eigen::head_to_alignment(r * depth).min(depth);
        let packets = if depth - head < 8 {
            0..0
        } else {
            head..head + (depth - head) / 8 * 8
        };
        for (i, (o, &x)) in out.iter_mut().zip(row).enumerate() {
            *o = if packets.contains(&i) {
                exp_f32(x - max)
            } else {
                (x - max).exp()
            };
        }
        let log_sum = eigen::aligned_sum(out, head).ln();
        for (o, &x) in out.iter_mut().zip(row) {
            *o = x - max - log_sum;
        }
    }
}

/// The int8 kernel's parameters, as LiteRT's `LogSoftmaxPrepare` computes them for an input
/// scale (`PreprocessLogSoftmaxScalingExp` with beta 1 and 5 integer bits, `CalculateInputRadius`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogSoftmaxParams {
    /// Q31 multiplier taking an input difference to Q5.26.
    pub input_multiplier: i32,
    /// Its left shift (positive).
    pub input_left_shift: i32,
    /// Q31 multiplier of the reverse scaling (Q5.26 back to input units).
    pub reverse_multiplier: i32,
    /// Its shift (≤ 0, a right shift).
    pub reverse_shift: i32,
    /// Differences below this contribute nothing (`-CalculateInputRadius`).
    pub diff_min: i32,
}

/// LiteRT's `SaturatingRoundingMultiplyByPOTParam` (`internal/common.h`), a saturating left shift
/// (0 returns `x`). It has no right-shift branch: a negative exponent — only when the sum of
/// exponentials wrapped negative, past 2^12 in Q12.19 (a row of tens of thousands of elements
/// near the maximum) — shifts by what x86's `shl` takes, the count mod 32, so the threshold is
/// `(1 << 0) − 1 = 0` and every non-zero `x` saturates (LiteRT `BUILTIN_REF` on such a row).
fn sat_shl(x: i32, exponent: i32) -> i32 {
    if exponent == 0 {
        return x;
    }
    // Shift counts are taken mod 32, as the compiled kernel's `shl` does.
    let threshold = 1i32.wrapping_shl((31 - exponent) as u32).wrapping_sub(1);
    if x > threshold {
        i32::MAX
    } else if x < threshold.wrapping_neg() {
        i32::MIN
    } else {
        x.wrapping_shl(exponent as u32)
    }
}

/// Saturating `i32` addition (`SaturatingAddNonGemmlowp`).
fn sat_add(a: i32, b: i32) -> i32 {
    (i64::from(a) + i64::from(b)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// Saturating `i32` subtraction (`SaturatingSub`).
fn sat_sub(a: i32, b: i32) -> i32 {
    (i64::from(a) - i64::from(b)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// LiteRT's `log_x_for_x_greater_than_or_equal_to_1_impl<5, 12>`: `ln(x)` of a Q12.19 value
/// `x ≥ 1`, in Q5.26 (accumulated in Q6.25, gemmlowp's rational approximation in Q0.31).
pub fn log_x_ge_1(input: i32) -> i32 {
    const INPUT_BITS: i32 = 12;
    const ACCUM_BITS: i32 = 6;
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ONE_QUARTER: i32 = 536_870_912;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;
    let shifted_quarter = rescale(ONE_QUARTER, 0, ACCUM_BITS);
    let z_a = input;
    let z_a_headroom_plus_1 = (z_a as u32).leading_zeros() as i32;
    let r_a_tmp = sat_shl(z_a, z_a_headroom_plus_1 - 1);
    let r_a_raw = sat_shl(srdhm(r_a_tmp, SQRT_HALF), 1);
    let z_a_pow_2_adj = sat_add(
        sat_shl(INPUT_BITS - z_a_headroom_plus_1, 31 - ACCUM_BITS),
        shifted_quarter,
    );
    let z_b = srdhm(z_a, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b_raw = sat_shl(z_a, z_b_headroom);
    let z_b_pow_2_adj = sat_sub(
        sat_shl(INPUT_BITS - z_b_headroom, 31 - ACCUM_BITS),
        shifted_quarter,
    );
    let r = r_a_raw.min(r_b_raw);
    let z_pow_2_adj = z_a_pow_2_adj.max(z_b_pow_2_adj);
    let p = rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);
    let common_sq = srdhm(q, q);
    let num = srdhm(q, r).wrapping_add(srdhm(srdhm(q, common_sq), ALPHA_N));
    let denom_minus_one = srdhm(
        p,
        ALPHA_I
            .wrapping_add(q)
            .wrapping_add(srdhm(ALPHA_D, common_sq)),
    )
    .wrapping_add(srdhm(ALPHA_F, q));
    let recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    let num_scaled = rescale(num, 0, ACCUM_BITS);
    let sum = srdhm(z_pow_2_adj, LOG_2).wrapping_add(srdhm(num_scaled, recip_denom));
    rescale(sum, ACCUM_BITS, 5)
}

/// Int8 LOG_SOFTMAX of rows of `depth` elements (output scale 16/256, zero point 127).
pub fn log_softmax_int8(p: &LogSoftmaxParams, depth: usize, input: &[i8], output: &mut [i8]) {
    if depth == 0 {
        return;
    }
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let max = i32::from(row.iter().copied().max().unwrap_or(i8::MIN));
        let mut sum_q12 = 0i32;
        for &x in row {
            let diff = i32::from(x) - max;
            if diff >= p.diff_min {
                let q5 =
                    multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift);
                sum_q12 = sum_q12.wrapping_add(rescale(exp_on_negative_values(q5, 5), 0, 12));
            }
        }
        let log_sum_q5 = log_x_ge_1(sum_q12);
        let shifted = log_sum_q5.wrapping_add(i32::MIN);
        let adjusted_diff_min = (p.diff_min - 1).max(multiply_by_quantized_multiplier(
            shifted,
            p.reverse_multiplier,
            p.reverse_shift,
        ));
        for (o, &x) in out.iter_mut().zip(row) {
            let diff = i32::from(x) - max;
            *o = if diff > adjusted_diff_min {
                let q5 =
                    multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift);
                let v = rounding_divide_by_pot(q5.wrapping_sub(log_sum_q5), 31 - 5 - 4) + 127;
                v.clamp(-128, 127) as i8
            } else {
                i8::MIN
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_rows_log_normalize() {
        let input = [1.0f32, 2.0, 3.0];
        let mut out = [0.0; 3];
        log_softmax_f32(3, &input, &mut out);
        let s: f32 = out.iter().map(|v| v.exp()).sum();
        assert!((s - 1.0).abs() < 1e-6, "{out:?}");
        let mut opt = [0.0; 3];
        log_softmax_f32_optimized(3, &input, &mut opt);
        assert_eq!(out, opt);
    }

    #[test]
    fn log_of_q12_values() {
        for x in [1.0f64, 1.5, 2.0, 7.25, 100.0, 4000.0] {
            let raw = (x * f64::from(1 << 19)).round() as i32;
            let got = f64::from(log_x_ge_1(raw)) / f64::from(1 << 26);
            assert!((got - x.ln()).abs() < 1e-6, "{x}: {got}");
        }
    }
}
