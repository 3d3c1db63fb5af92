//! gemmlowp's `fixedpoint.h` on 16-bit raw values (`FixedPoint<std::int16_t, IntegerBits>`):
//! [`logistic_i16`] and [`tanh_i16`], which LiteRT's integer LSTM applies to its int16 gates
//! (`PortableApplySigmoid` on Q3.12, `PortableApplyTanh<IntegerBits>`). The number of integer
//! bits is a parameter here, a template argument there.
//!
//! The int16 arithmetic of gemmlowp differs from the int32 one in [`super::fixedpoint_math`]:
//! its constants are the int32 ones rounded by 2^16 (`RescaleConstantInitializer`), products
//! are the 16-bit `SaturatingRoundingDoublingHighMul`, the Taylor step ends with a saturating
//! add (`AddSaturatingIf16Bit`), and plain additions, negations and shifts wrap to 16 bits as
//! the C++ does when it stores an `int` result into an `int16_t`.

use super::fixedpoint_math::{EXP_BARREL, rounding_divide_by_pot_i16};
use crate::fixedpoint::rounding_divide_by_pot;

/// An int32 gemmlowp constant as the int16 code sees it: rounded by 2^16.
fn constant(v: i32) -> i16 {
    rounding_divide_by_pot(v, 16) as i16
}

/// The 16-bit `SaturatingRoundingDoublingHighMul`.
fn srdhm(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    // C++ division truncates toward zero, as Rust's does; the cast wraps as the C++ one.
    ((ab + nudge) / (1 << 15)) as i16
}

/// `SaturatingRoundingMultiplyByPOT<exponent>` on an int16: saturating left shift or rounding
/// right shift.
fn mul_by_pot(x: i16, exponent: i32) -> i16 {
    if exponent > 0 {
        let threshold = (1i32 << (15 - exponent).max(0)) - 1;
        if i32::from(x) > threshold {
            i16::MAX
        } else if i32::from(x) < -threshold {
            i16::MIN
        } else {
            x.wrapping_shl(exponent as u32)
        }
    } else if exponent < 0 {
        rounding_divide_by_pot_i16(x, -exponent)
    } else {
        x
    }
}

/// `Rescale<dst>` of a value with `src` integer bits.
fn rescale(x: i16, src: i32, dst: i32) -> i16 {
    mul_by_pot(x, src - dst)
}

/// The 16-bit `RoundingHalfSum`.
fn rounding_half_sum(a: i16, b: i16) -> i16 {
    let sum = i32::from(a) + i32::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i16
}

/// `exp_on_interval_between_negative_one_quarter_and_0_excl` on Q0.15.
fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i16) -> i16 {
    let constant_term = constant(1_895_147_668);
    let one_third = constant(715_827_883);
    let x = a.wrapping_add(1 << 12);
    let x2 = srdhm(x, x);
    let x3 = srdhm(x2, x);
    let x4 = srdhm(x2, x2);
    let x4_over_4 = mul_by_pot(x4, -2);
    let poly = mul_by_pot(
        srdhm(x4_over_4.wrapping_add(x3), one_third).wrapping_add(x2),
        -1,
    );
    constant_term.saturating_add(srdhm(constant_term, x.wrapping_add(poly)))
}

/// `exp_on_negative_values` of an input with `integer_bits` integer bits (0..=7), Q0.15 out.
fn exp_on_negative_values(a: i16, integer_bits: i32) -> i16 {
    let fractional_bits = 15 - integer_bits;
    let one_quarter: i16 = 1 << (fractional_bits - 2);
    let mask = one_quarter.wrapping_sub(1);
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(rescale(
        a_mod_quarter_minus_one_quarter,
        integer_bits,
        0,
    ));
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);
    for (exponent, multiplier) in EXP_BARREL {
        if integer_bits > exponent {
            let bit = (1i32 << (fractional_bits + exponent)) as i16;
            if remainder & bit != 0 {
                result = srdhm(result, constant(multiplier));
            }
        }
    }
    if integer_bits > 5 {
        let clamp = constant(-(1 << (36 - integer_bits)));
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 {
        result = i16::MAX;
    }
    result
}

/// The Newton–Raphson reciprocal both functions share: `1 / (1 + a)` for `a` in (0, 1), in Q2.13.
fn newton_raphson(a: i16) -> i16 {
    let half_denominator = rounding_half_sum(a, i16::MAX);
    let c48_over_17 = constant(1_515_870_810);
    let neg_32_over_17 = constant(-1_010_580_540);
    let one: i16 = 1 << 13;
    let mut x = c48_over_17.wrapping_add(srdhm(half_denominator, neg_32_over_17));
    for _ in 0..3 {
        let one_minus = one.wrapping_sub(srdhm(half_denominator, x));
        x = x.wrapping_add(rescale(srdhm(x, one_minus), 4, 2));
    }
    x
}

/// gemmlowp's `logistic(FixedPoint<int16_t, integer_bits>)` (`integer_bits` in 0..=6): Q0.15 out.
pub fn logistic_i16(a: i16, integer_bits: i32) -> i16 {
    let abs = if a > 0 { a } else { a.wrapping_neg() };
    // one_over_one_plus_x_for_x_in_0_1: Rescale<0>(ExactMulByPot<-1>(x)).
    let positive = rescale(
        newton_raphson(exp_on_negative_values(abs.wrapping_neg(), integer_bits)),
        1,
        0,
    );
    if a == 0 {
        constant(1 << 30)
    } else if a > 0 {
        positive
    } else {
        i16::MAX.wrapping_sub(positive)
    }
}

/// gemmlowp's `tanh(FixedPoint<int16_t, integer_bits>)` (`integer_bits` in 0..=6): Q0.15 out.
pub fn tanh_i16(a: i16, integer_bits: i32) -> i16 {
    let n = if a < 0 { a } else { a.wrapping_neg() };
    // neg_tanh_on_negative_values: exp of ExactMulByPot<1>(n), then (1 - x) / (1 + x), which
    // is Rescale<0>(x - One) in Q2.13.
    let e = exp_on_negative_values(n, integer_bits + 1);
    let t = rescale(newton_raphson(e).wrapping_sub(1 << 13), 2, 0);
    if a == 0 {
        0
    } else if a < 0 {
        t.wrapping_neg()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(raw: i16, integer_bits: i32) -> f64 {
        f64::from(raw) / f64::from(1 << (15 - integer_bits))
    }

    /// Over every int16 input, the fixed-point functions stay within a few ulps of the real
    /// ones (the bit-exact comparison with LiteRT is the realworld `lstm_fused` test).
    #[test]
    fn logistic_and_tanh_follow_the_real_functions() {
        for bits in 0..=6 {
            let mut worst = (0.0f64, 0.0f64);
            for raw in i16::MIN..=i16::MAX {
                let x = real(raw, bits);
                let s = real(logistic_i16(raw, bits), 0);
                let t = real(tanh_i16(raw, bits), 0);
                worst.0 = worst.0.max((s - 1.0 / (1.0 + (-x).exp())).abs());
                worst.1 = worst.1.max((t - x.tanh()).abs());
            }
            assert!(worst.0 < 4e-4, "logistic Q{bits}: {}", worst.0);
            assert!(worst.1 < 8e-4, "tanh Q{bits}: {}", worst.1);
        }
    }

    #[test]
    fn fixed_points_of_the_functions() {
        assert_eq!(logistic_i16(0, 3), 16384);
        assert_eq!(tanh_i16(0, 3), 0);
        // Symmetry: logistic(-x) = 1 - logistic(x) in raw terms, tanh odd.
        for raw in [1i16, 100, 4096, 20000, i16::MAX] {
            assert_eq!(logistic_i16(-raw, 3), i16::MAX - logistic_i16(raw, 3));
            assert_eq!(tanh_i16(-raw, 3), -tanh_i16(raw, 3));
        }
    }
}
