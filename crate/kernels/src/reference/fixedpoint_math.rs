//! Fixed-point transcendental math and lookup tables for the quantized activations, as LiteRT's
//! kernels compute them:
//!
//! - gemmlowp's `fixedpoint.h` functions on raw Q-format `i32`s (the number of integer bits is a
//!   parameter here, a template argument there): [`exp_on_negative_values`],
//!   [`one_over_one_plus_x_for_x_in_0_1`], and `GetReciprocal` ([`reciprocal`]), used by the
//!   int8 SOFTMAX;
//! - LiteRT's `LUTPopulate` for int8 ([`lut_int8`]) and int16 ([`lut_int16`]) with the int16
//!   interpolating lookup ([`lut_lookup_int16`]), and the fixed `sigmoid_table_uint16` the int16
//!   LOGISTIC / TANH interpolate in;
//! - `CheckedLog2`.
//!
//! Everything is total: overflowing intermediate sums wrap as the C++ does on two's-complement
//! machines, shifts are bounded.

use crate::fixedpoint::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul as srdhm};

/// LiteRT's `CheckedLog2(float)`: `Some(round(log2(x)))` when `x` is a power of two within
/// `1e-3` in the exponent, `None` otherwise (`log` in float times `1 / log(2)` in float).
pub fn checked_log2(x: f32) -> Option<i32> {
    let l = x.ln() * (1.0f32 / 2.0f32.ln());
    let r = l.round();
    ((l - r).abs() < 1e-3).then_some(r as i32)
}

/// gemmlowp's `SaturatingRoundingMultiplyByPOT<exponent>` on a raw `i32`: a saturating left
/// shift for `exponent > 0`, a rounding right shift for `exponent < 0`.
pub fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent > 0 {
        if exponent >= 31 {
            return match x.signum() {
                1 => i32::MAX,
                -1 => i32::MIN,
                _ => 0,
            };
        }
        let threshold = (1i32 << (31 - exponent)) - 1;
        if x > threshold {
            i32::MAX
        } else if x < -threshold {
            i32::MIN
        } else {
            x << exponent
        }
    } else if exponent < 0 {
        rounding_divide_by_pot(x, -exponent)
    } else {
        x
    }
}

/// gemmlowp's `Rescale<dst_bits>` of a value with `src_bits` integer bits.
pub fn rescale(x: i32, src_bits: i32, dst_bits: i32) -> i32 {
    saturating_rounding_multiply_by_pot(x, src_bits - dst_bits)
}

/// gemmlowp's `RoundingHalfSum` for `i32`: `(a + b ± 1) / 2` in 64 bits, truncating.
pub fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// gemmlowp's `RoundingDivideByPOT<int16_t>`, including its behaviour for exponents ≥ 16 (the
/// mask is truncated to 16 bits).
#[inline]
pub fn rounding_divide_by_pot_i16(x: i16, exponent: i32) -> i16 {
    let exponent = exponent.clamp(0, 31);
    let mask = ((1i64 << exponent) - 1) as i16;
    let remainder = x & mask;
    let threshold = (i32::from(mask) >> 1) + i32::from(x < 0);
    let shifted = (i32::from(x) >> exponent) as i16;
    (i32::from(shifted) + i32::from(i32::from(remainder) > threshold)) as i16
}

/// gemmlowp's `exp_on_interval_between_negative_one_quarter_and_0_excl` (Q0.31 in, Q0.31 out):
/// a Taylor expansion around −1/8.
pub fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const CONSTANT_TERM: i32 = 1_895_147_668; // exp(-1/8)
    const ONE_THIRD: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28);
    let x2 = srdhm(x, x);
    let x3 = srdhm(x2, x);
    let x4 = srdhm(x2, x2);
    let x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
    let poly = saturating_rounding_multiply_by_pot(
        srdhm(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2),
        -1,
    );
    CONSTANT_TERM.wrapping_add(srdhm(CONSTANT_TERM, x.wrapping_add(poly)))
}

/// gemmlowp's barrel shifter of `exp_on_negative_values`: for each exponent `k` of a set bit of
/// the remainder, the multiplier `exp(-2^k)` in Q0.31 (the int16 version uses the same table).
pub(crate) const EXP_BARREL: [(i32, i32); 7] = [
    (-2, 1_672_461_947),
    (-1, 1_302_514_674),
    (0, 790_015_084),
    (1, 290_630_308),
    (2, 39_332_535),
    (3, 720_401),
    (4, 242),
];

/// gemmlowp's `exp_on_negative_values` for an input with `integer_bits` integer bits (0..=30),
/// result in Q0.31: the input modulo 1/4 goes through the Taylor polynomial, then a barrel
/// shifter multiplies by `exp(-2^k)` for each set bit of the remainder.
pub fn exp_on_negative_values(a: i32, integer_bits: i32) -> i32 {
    let integer_bits = integer_bits.clamp(0, 30);
    let fractional_bits = 31 - integer_bits;
    // fractional_bits ≥ 1; the quarter is representable when fractional_bits ≥ 2.
    let one_quarter: i32 = if fractional_bits >= 2 {
        1 << (fractional_bits - 2)
    } else {
        0
    };
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
            let shift = fractional_bits + exponent;
            if (0..32).contains(&shift) && remainder & (1i32.wrapping_shl(shift as u32)) != 0 {
                result = srdhm(result, multiplier);
            }
        }
    }
    if integer_bits > 5 {
        let clamp = -(1i32 << (36 - integer_bits).clamp(0, 30));
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 {
        result = i32::MAX;
    }
    result
}

/// gemmlowp's `one_over_one_plus_x_for_x_in_0_1` (Q0.31 in and out): Newton–Raphson division
/// with three iterations in Q2.29.
pub fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    const C48_OVER_17: i32 = 1_515_870_810;
    const NEG_32_OVER_17: i32 = -1_010_580_540;
    const F2_ONE: i32 = 1 << 29;
    let half_denominator = rounding_half_sum(a, i32::MAX);
    let mut x = C48_OVER_17.wrapping_add(srdhm(half_denominator, NEG_32_OVER_17));
    for _ in 0..3 {
        let half_denominator_times_x = srdhm(half_denominator, x);
        let one_minus = F2_ONE.wrapping_sub(half_denominator_times_x);
        x = x.wrapping_add(rescale(srdhm(x, one_minus), 4, 2));
    }
    // ExactMulByPot<-1> turns Q2 into Q1 (same raw), then Rescale<0>.
    rescale(x, 1, 0)
}

/// LiteRT's `GetReciprocal(x, x_integer_digits, &num_bits_over_unit)`: `1 / x` for a positive
/// fixed-point `x` as a Q0.31 value and the number of bits of `x` above 1.0.
pub fn reciprocal(x: i32, x_integer_digits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros() as i32;
    let num_bits_over_unit = x_integer_digits - headroom_plus_one;
    let shifted = (x as u32)
        .checked_shl(headroom_plus_one as u32)
        .unwrap_or(0)
        .wrapping_sub(1u32 << 31) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted),
        num_bits_over_unit,
    )
}

/// LiteRT's `LUTPopulateInt8` (common.h) for a transform `f`: entry `q` (indexed by the
/// input's bit pattern as `u8`) is `clamp(round(f(s_in · (q − z_in)) · (1 / s_out)) + z_out)`,
/// all in float. Returns the table as raw bytes.
pub fn lut_int8(
    signed: bool,
    input_scale: f32,
    input_zero_point: i32,
    output_scale: f32,
    output_zero_point: i32,
    f: impl Fn(f32) -> f32,
) -> [u8; 256] {
    let mut lut = [0u8; 256];
    let inverse_scale = 1.0 / output_scale;
    let (minval, maxval) = if signed { (-128, 127) } else { (0, 255) };
    for val in minval..=maxval {
        let dequantized = input_scale * (val - input_zero_point) as f32;
        let transformed = f(dequantized);
        let rescaled = (transformed * inverse_scale).round();
        let quantized = (rescaled + output_zero_point as f32) as i32;
        lut[(val as u8) as usize] = quantized.clamp(minval, maxval) as u8;
    }
    lut
}

/// LiteRT's `LUTPopulateInt16<FloatT>`, one body for both float types: 512 samples of `f` over
/// the input range, each corrected by half the error of linear interpolation at the midpoint,
/// plus a final entry at the top of the range. Every conversion below is exact in either type,
/// so each instance computes in its own type only, as LiteRT's template does.
macro_rules! lut_int16_fn {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        pub fn $name(
            input_scale: $t,
            input_zero_point: i32,
            output_scale: $t,
            output_zero_point: i32,
            f: impl Fn($t) -> $t,
        ) -> [i16; 513] {
            let mut lut = [0i16; 513];
            let input_min = input_scale * (-32768 - input_zero_point) as $t;
            let input_max = input_scale * (32767 - input_zero_point) as $t;
            let output_min = output_scale * (-32768 - output_zero_point) as $t;
            let output_max = output_scale * (32767 - output_zero_point) as $t;
            let nb_steps = 512usize;
            let step = (input_max - input_min) / nb_steps as $t;
            let half_step = step / 2.0;
            let output_scaling_inv = 65536.0 / (output_max - output_min);
            let (table_min, table_max): ($t, $t) = (-32768.0, 32767.0);
            for (i, entry) in lut.iter_mut().enumerate().take(nb_steps) {
                let fi = i as $t;
                let val = f(input_min + fi * step);
                let val_midpoint = f(input_min + fi * step + half_step);
                let val_next = f(input_min + (fi + 1.0) * step);
                let sample_val = (val * output_scaling_inv).round();
                let midpoint_interp_val = ((val_next * output_scaling_inv
                    + (val * output_scaling_inv).round())
                    / 2.0)
                    .round();
                let midpoint_val = (val_midpoint * output_scaling_inv).round();
                let midpoint_err = midpoint_interp_val - midpoint_val;
                let bias = (midpoint_err / 2.0).round();
                *entry = (sample_val - bias).clamp(table_min, table_max) as i16;
            }
            lut[512] = (f(input_max) * output_scaling_inv)
                .round()
                .clamp(table_min, table_max) as i16;
            lut
        }
    };
}

lut_int16_fn!(
    /// LiteRT's `LUTPopulateInt16<double>` (the variant SOFTMAX's int16 tables use).
    lut_int16,
    f64
);
lut_int16_fn!(
    /// LiteRT's `LUTPopulate<int16_t>` (`LUTPopulateInt16<float>`): the table computed in float32
    /// (RSQRT, EXP, LOG, GELU int16).
    lut_int16_f32,
    f32
);

/// LiteRT's `LUTLookup(int16_t, const int16_t*)`: the top 9 bits pick an entry, the low 7 bits
/// interpolate linearly to the next one (rounded).
#[inline]
pub fn lut_lookup_int16(value: i16, lut: &[i16; 513]) -> i16 {
    let index = (256 + (i32::from(value) >> 7)) as usize;
    let offset = i32::from(value) & 0x7f;
    let base = i32::from(lut[index]);
    let slope = i32::from(lut[index + 1]) - base;
    let delta = (slope * offset + 64) >> 7;
    (base + delta) as i16
}

/// LiteRT's `sigmoid_table_uint16`: `sigmoid(i / 24)` in 0.16 format for `i` in 0..256 (the
/// int16 LOGISTIC and TANH interpolate in it; `tanh(x) = 2·sigmoid(2x) − 1`).
pub const SIGMOID_TABLE_UINT16: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn q(x: f64, integer_bits: i32) -> i32 {
        (x * 2f64.powi(31 - integer_bits)).round() as i32
    }

    fn real(raw: i32, integer_bits: i32) -> f64 {
        f64::from(raw) / 2f64.powi(31 - integer_bits)
    }

    #[test]
    fn checked_log2_accepts_only_powers_of_two() {
        assert_eq!(checked_log2(1.0 / 32768.0), Some(-15));
        assert_eq!(checked_log2(4.0), Some(2));
        assert_eq!(checked_log2(3.0), None);
        assert_eq!(checked_log2(0.000_121_87), None); // log2 = -13.0025
    }

    #[test]
    fn pot_multiply_saturates_and_rounds() {
        assert_eq!(saturating_rounding_multiply_by_pot(1 << 29, 1), 1 << 30);
        assert_eq!(saturating_rounding_multiply_by_pot(1 << 30, 1), i32::MAX);
        assert_eq!(saturating_rounding_multiply_by_pot(-(1 << 30), 2), i32::MIN);
        assert_eq!(saturating_rounding_multiply_by_pot(6, -2), 2); // 1.5 → 2
        assert_eq!(saturating_rounding_multiply_by_pot(-6, -2), -2);
        assert_eq!(rounding_half_sum(3, 4), 4); // 3.5 → 4
        assert_eq!(rounding_half_sum(-3, -4), -4);
    }

    #[test]
    fn exp_on_negative_values_is_exp() {
        // exp(0) is the largest Q0.31 value; exp(-x) within a few ULP of Q0.31 otherwise.
        assert_eq!(exp_on_negative_values(0, 5), i32::MAX);
        for &x in &[-0.1, -0.25, -1.0, -2.5, -7.0, -15.9] {
            let got = real(exp_on_negative_values(q(x, 5), 5), 0);
            assert!((got - f64::exp(x)).abs() < 1e-6, "exp({x}) = {got}");
        }
        // Below -32 with 6 integer bits the result is flushed to 0.
        assert_eq!(exp_on_negative_values(q(-33.0, 6), 6), 0);
    }

    #[test]
    fn reciprocal_of_one_plus_x() {
        for &x in &[0.0, 0.25, 0.5, 0.999] {
            let got = real(one_over_one_plus_x_for_x_in_0_1(q(x, 0)), 0);
            assert!((got - 1.0 / (1.0 + x)).abs() < 1e-8, "1/(1+{x}) = {got}");
        }
        // 3.0 in Q12.19: 1/3 = 0.666.. · 2^-1 → shifted scale 2/3, one bit over unit.
        let (r, bits) = reciprocal(3 << 19, 12);
        assert_eq!(bits, 1);
        assert!((real(r, 0) - 2.0 / 3.0).abs() < 1e-8);
    }

    #[test]
    fn int8_lut_rounds_each_entry() {
        // Identity with scale 0.5 → 1.0 halves; zp -128 on output.
        let lut = lut_int8(true, 0.5, 0, 1.0, -128, |x| x);
        assert_eq!(lut[0] as i8, -128); // q 0 → 0 → -128
        assert_eq!(lut[3] as i8, -126); // 1.5 → 2 → -126
        assert_eq!(lut[0xff] as i8, -128); // q -1 → -0.5 → -1 → -129 → clamp
        assert_eq!(lut[127] as i8, -64); // 63.5 → 64 → -64
        let lut = lut_int8(false, 1.0, 10, 2.0, 5, |x| x);
        assert_eq!(lut[0], 0); // -10 / 2 = -5 + 5 = 0
        assert_eq!(lut[255], 128); // 245 / 2 = 122.5 → 123, + 5 = 128
    }

    #[test]
    fn int16_lut_of_a_constant_and_interpolating_lookup() {
        // f = 0.5 with output scale 2^-15: the scaling is 65536 / (65535 · 2^-15) ≈ 32768.5, so
        // every sample is round(16384.25) = 16384 and the midpoint correction is 0.
        let s = 1.0 / 32768.0;
        let lut = lut_int16(s, 0, s, 0, |_| 0.5);
        assert!(lut.iter().all(|&v| v == 16384));
        assert_eq!(lut_lookup_int16(-32768, &lut), 16384);
        // A hand-made line with slope 128 per entry: the lookup reproduces its input.
        let mut line = [0i16; 513];
        for (i, v) in line.iter_mut().enumerate() {
            *v = ((i as i32 - 256) * 128).clamp(-32768, 32767) as i16;
        }
        for &v in &[-32768i16, -1000, -1, 0, 1, 77, 12345, 32639] {
            assert_eq!(lut_lookup_int16(v, &line), v);
        }
        // Half-way rounding of the interpolation: slope 1 over 128 steps, offset 64 → +1.
        let mut step = [0i16; 513];
        step[257] = 1;
        assert_eq!(lut_lookup_int16(64, &step), 1);
        assert_eq!(lut_lookup_int16(63, &step), 0);
    }
}
