//! Activation parameters from a recorded range: asymmetric int8 (TF's MLIR quantizer) and
//! symmetric int16 (TF's older quantizer, 16x8 mode).

use super::affine::{down_cast_scale, fake_quant_params};
use super::{
    INT8_MAX, INT8_MIN, INT16_MAX, NEAR_ZERO_TOLERANCE, QuantParams, check_range, check_scale,
};
use crate::error::Result;

/// Asymmetric int8 parameters of an activation from its recorded `(min, max)`, as TF 2.21's
/// full-integer converter chooses them (`ConvertStatsToQDQs` with `num_bits = 8`,
/// `narrow_range = false`, `legacy_float_scale = true`).
///
/// 1. The range is widened to include 0: `rmin = min(min, 0)`, `rmax = max(max, 0)` (in f64).
/// 2. `TensorRangeSanityCheck`: if `|rmax − rmin| < 1e-6` ([`NEAR_ZERO_TOLERANCE`]), both ends
///    move out by `1e-6`. An all-zero tensor thus gets `[−1e-6, 1e-6]`, i.e. scale ≈ 7.84e-9 and
///    zero point 0; a constant positive `c` gets `[0, c]` (widened by step 1 already).
/// 3. [`fake_quant_params`] over `[−128, 127]` (in f64), then
/// 4. [`down_cast_scale`]: `scale = (f32(rmax) − f32(rmin)) / 255` in f32, and
///    `zero_point = round(f32(−128 − rmin / scale))` clamped to `[−128, 127]`.
///
/// # Errors
/// [`Error::Quantization`](crate::error::Error::Quantization) if `min` or `max` is NaN or infinite,
/// if `min > max`, or if the range is so wide that the f32 scale overflows.
pub fn activation_params_int8(min: f32, max: f32) -> Result<QuantParams> {
    const WHAT: &str = "int8 activation";
    check_range(WHAT, min, max)?;
    let mut rmin = f64::from(min).min(0.0);
    let mut rmax = f64::from(max).max(0.0);
    if (rmax - rmin).abs() < NEAR_ZERO_TOLERANCE {
        rmin -= NEAR_ZERO_TOLERANCE;
        rmax += NEAR_ZERO_TOLERANCE;
    }
    let (qmin, qmax) = (i64::from(INT8_MIN), i64::from(INT8_MAX));
    let (_, fq_zero_point) = fake_quant_params(rmin, rmax, qmin, qmax);
    let (scale, zero_point) = down_cast_scale(rmin, rmax, qmin, qmax, fq_zero_point);
    Ok(QuantParams {
        scale: check_scale(WHAT, scale)?,
        // Clamped to [qmin, qmax] above.
        zero_point: zero_point as i32,
    })
}

/// Symmetric int16 parameters of an activation from its recorded `(min, max)`, as TF 2.21's 16x8
/// mode chooses them (the older quantizer: `GetQuantizationParams` →
/// `GetSymmetricQuantizationParams(min, max, 32767)` in `lite/tools/optimize/quantization_utils.cc`).
///
/// `min` and `max` are widened to include 0 (in f32); `scale = max(|min|, |max|) / 32767` in f32;
/// zero point 0. Quantized values then use `[−32768, 32767]` storage but the scale covers
/// `±32767`.
///
/// Deliberate deviation: for an all-zero range TF writes scale 0, which LiteRT cannot use; we
/// treat the range as `±1e-6` ([`NEAR_ZERO_TOLERANCE`], as TF's int8 path does), giving scale
/// `f32(1e-6) / 32767`.
///
/// # Errors
/// [`Error::Quantization`](crate::error::Error::Quantization) if `min` or `max` is NaN or infinite,
/// or if `min > max`.
pub fn activation_params_int16(min: f32, max: f32) -> Result<QuantParams> {
    const WHAT: &str = "int16 activation";
    check_range(WHAT, min, max)?;
    let (min, max) = (min.min(0.0), max.max(0.0));
    let mut half_range = max.abs().max(min.abs());
    if half_range == 0.0 {
        half_range = NEAR_ZERO_TOLERANCE as f32;
    }
    let scale = half_range / INT16_MAX as f32;
    Ok(QuantParams {
        scale: check_scale(WHAT, scale)?,
        zero_point: 0,
    })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn act8(min: f32, max: f32) -> QuantParams {
        activation_params_int8(min, max).expect("valid range")
    }

    #[test]
    fn unit_range_gives_1_over_255() {
        // TF's int8 model of example_cnn: input range [0, 1] → scale 0.003921568859368563, zp -128.
        let p = act8(0.0, 1.0);
        assert_eq!(p.scale.to_bits(), 0x3b80_8081);
        assert_eq!(p.zero_point, -128);
    }

    #[test]
    fn range_not_containing_zero_is_widened() {
        // [2, 6] behaves as [0, 6]; [-6, -2] as [-6, 0].
        assert_eq!(act8(2.0, 6.0), act8(0.0, 6.0));
        assert_eq!(act8(2.0, 6.0).zero_point, -128);
        let neg = act8(-6.0, -2.0);
        assert_eq!(neg, act8(-6.0, 0.0));
        assert_eq!(neg.zero_point, 127);
        assert_eq!(neg.scale, 6.0f32 / 255.0);
    }

    #[test]
    fn symmetric_range_zero_point() {
        // [-1, 1]: zp_from_min = -128 + 127.5 = -0.5 → rounds away from zero to -1.
        let p = act8(-1.0, 1.0);
        assert_eq!(p.scale, 2.0f32 / 255.0);
        assert_eq!(p.zero_point, -1);
    }

    #[test]
    fn zero_width_range_is_widened_by_near_zero_tolerance() {
        let p = act8(0.0, 0.0);
        let expected = ((1e-6f64 as f32) - (-1e-6f64 as f32)) / 255.0;
        assert_eq!(p.scale, expected);
        // -128 + 1e-6/scale is just above -0.5 (f32(1e-6) < 1e-6): rounds to 0.
        assert_eq!(p.zero_point, 0);
        // Tiny but non-zero ranges are widened too (|range| < 1e-6).
        let tiny = act8(0.0, 5e-7);
        let (lo, hi) = (-1e-6f64, f64::from(5e-7f32) + 1e-6);
        assert_eq!(tiny.scale, ((hi as f32) - (lo as f32)) / 255.0);
        // At the tolerance the range is kept.
        assert_eq!(act8(0.0, 1e-5).scale, 1e-5f32 / 255.0);
    }

    #[test]
    fn constant_positive_range() {
        // min == max == c > 0 behaves as [0, c].
        assert_eq!(act8(3.0, 3.0), act8(0.0, 3.0));
    }

    #[test]
    fn all_negative_range() {
        let p = act8(-0.5, -0.25);
        assert_eq!(p.zero_point, 127);
        assert_eq!(p.scale, 0.5f32 / 255.0);
    }

    #[test]
    fn huge_and_tiny_ranges() {
        let p = act8(-1e30, 1e30);
        assert_eq!(p.scale, 2e30f32 / 255.0);
        assert!(p.zero_point == 0 || p.zero_point == -1);
        let p = act8(0.0, 1e-3);
        assert_eq!(p.scale, 1e-3f32 / 255.0);
        // A range whose f32 width overflows is refused.
        assert!(activation_params_int8(-f32::MAX, f32::MAX).is_err());
    }

    #[test]
    fn non_finite_or_inverted_ranges_are_errors() {
        for (a, b) in [
            (f32::NAN, 1.0),
            (0.0, f32::NAN),
            (f32::NEG_INFINITY, 1.0),
            (0.0, f32::INFINITY),
            (1.0, -1.0),
        ] {
            assert!(activation_params_int8(a, b).is_err(), "{a} {b}");
            assert!(activation_params_int16(a, b).is_err(), "{a} {b}");
        }
        let e = activation_params_int8(f32::NAN, 1.0).expect_err("NaN");
        assert!(e.to_string().contains("int8 activation"), "{e}");
    }

    #[test]
    fn int16_is_symmetric() {
        // TF's 16x8 model of example_cnn: input range [0, 1] → scale 1/32767, zp 0.
        let p = activation_params_int16(0.0, 1.0).expect("valid");
        assert_eq!(p.scale.to_bits(), 0x3800_0100);
        assert_eq!(p.zero_point, 0);
        assert_eq!(
            activation_params_int16(-3.0, 1.0).expect("valid").scale,
            3.0f32 / 32767.0
        );
        assert_eq!(
            activation_params_int16(2.0, 4.0).expect("valid").scale,
            4.0f32 / 32767.0
        );
        // All-zero: documented deviation (TF writes scale 0).
        let z = activation_params_int16(0.0, 0.0).expect("valid");
        assert_eq!(z.scale, 1e-6f32 / 32767.0);
    }
}
