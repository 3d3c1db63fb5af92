//! MLIR's scale and zero-point arithmetic shared by activations and weights
//! ([`fake_quant_params`], [`down_cast_scale`], `ExpandVerySmallRange`), and the rules for float
//! constants that are neither weights nor bias: their parameters and their values.

use super::{
    INT8_MAX, INT8_MIN, NEAR_ZERO_TOLERANCE, QuantParams, SMALLEST_HALF_RANGE, check_finite,
    check_scale,
};
use crate::error::Result;

/// Scale and zero point from a real range, in f64, as MLIR's `fakeQuantAttrsToType`
/// (`FakeQuantSupport.cc`, `getNudgedScaleAndZeroPoint`) computes them.
///
/// - `|rmax − rmin| < f64::EPSILON` (all values 0): scale 1.0, zero point `qmin`.
/// - Otherwise `scale = (rmax − rmin) / (qmax − qmin)`; the zero point is solved from both ends,
///   `qmin − rmin/scale` and `qmax − rmax/scale`, keeping the one whose error estimate
///   (`|q| + |r/scale|`) is smaller (the max side on a tie); it is then clamped to
///   `[qmin, qmax]` or rounded half away from zero ("nudged"). The range is *not* widened to
///   contain 0 here: callers do that first.
///
/// TF's Python converter then replaces the scale (and, for asymmetric ranges, the zero point) with
/// [`down_cast_scale`]; this double-precision result survives only as the zero point of
/// symmetric per-channel weights and as the scale of dynamic-range weights.
pub fn fake_quant_params(rmin: f64, rmax: f64, qmin: i64, qmax: i64) -> (f64, i64) {
    if (rmax - rmin).abs() < f64::EPSILON {
        return (1.0, qmin);
    }
    // i64 → f64 is exact for the storage bounds used here (at most 32-bit).
    let (qmin_f, qmax_f) = (qmin as f64, qmax as f64);
    let scale = (rmax - rmin) / (qmax_f - qmin_f);
    let zp_from_min = qmin_f - rmin / scale;
    let zp_from_min_error = qmin_f.abs() + (rmin / scale).abs();
    let zp_from_max = qmax_f - rmax / scale;
    let zp_from_max_error = qmax_f.abs() + (rmax / scale).abs();
    let zp = if zp_from_min_error < zp_from_max_error {
        zp_from_min
    } else {
        zp_from_max
    };
    let nudged = if zp < qmin_f {
        qmin
    } else if zp > qmax_f {
        qmax
    } else {
        // In range, so the conversion is exact.
        zp.round() as i64
    };
    (scale, nudged)
}

/// The "legacy float scale" re-derivation, as MLIR's `DownCastScale` (`quantization_utils.cc`)
/// does it after [`fake_quant_params`].
///
/// - `scale = (f32(rmax) − f32(rmin)) / f32(qmax − qmin)`: both ends are rounded to f32 first,
///   then subtracted and divided in f32.
/// - Asymmetric storage ranges (`qmax ≠ −qmin`, e.g. int8 `[−128, 127]`): the zero point is
///   recomputed from the min side only, `zp = f32(qmin − rmin / f64(scale))` (the division in f64,
///   the result rounded to f32), then clamped to `[qmin, qmax]` or rounded half away from zero.
/// - Symmetric storage ranges (narrow-range weights `[−127, 127]`): the zero point is left as
///   `fallback_zero_point` (TF keeps the per-axis zero points of `fakeQuantAttrsToType`; for a
///   per-tensor type it keeps 0 — a quirk of how `DownCastScale` fills its vector — which is what
///   symmetric ranges give anyway).
pub fn down_cast_scale(
    rmin: f64,
    rmax: f64,
    qmin: i64,
    qmax: i64,
    fallback_zero_point: i64,
) -> (f32, i64) {
    // Narrowing casts are the point here: TF computes this scale in f32.
    let scale = ((rmax as f32) - (rmin as f32)) / ((qmax - qmin) as f32);
    if qmax == -qmin {
        return (scale, fallback_zero_point);
    }
    let zp_from_min = (qmin as f64 - rmin / f64::from(scale)) as f32;
    let zp = if zp_from_min < qmin as f32 {
        qmin
    } else if zp_from_min > qmax as f32 {
        qmax
    } else {
        zp_from_min.round() as i64
    };
    (scale, zp)
}

/// TF's `ExpandVerySmallRange`: a range not wider than [`NEAR_ZERO_TOLERANCE`] is widened to at
/// least `[−5e-7, 5e-7]` ([`SMALLEST_HALF_RANGE`]).
pub(super) fn expand_very_small_range(min: f64, max: f64) -> (f64, f64) {
    if max - min > NEAR_ZERO_TOLERANCE {
        (min, max)
    } else {
        (min.min(-SMALLEST_HALF_RANGE), max.max(SMALLEST_HALF_RANGE))
    }
}

/// Asymmetric int8 parameters of a float constant that is neither a weight nor a bias (e.g. the
/// constant operand of ADD or MUL), as TF's MLIR quantizer chooses them
/// (`QuantizationDriver::SetConstantResultParams` → `GetUniformQuantizedTypeForWeight` with
/// `symmetric = false`, `narrow_range = false`, `legacy_float_scale = true`).
///
/// The range is the values' `[min, max]` widened to include 0 (`ExtractMinMaxFromAttr`; a splat
/// constant `c` gives `[min(c, 0), max(c, 0)]`), then `ExpandVerySmallRange` (not the activations'
/// ±1e-6 widening), then [`fake_quant_params`] and [`down_cast_scale`] over `[−128, 127]`.
///
/// # Errors
/// [`Error::Quantization`](crate::error::Error::Quantization) if a value is NaN or infinite, or the
/// scale overflows.
pub fn constant_params_int8(values: &[f32]) -> Result<QuantParams> {
    const WHAT: &str = "int8 constant";
    check_finite(WHAT, values)?;
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for &v in values {
        lo = lo.min(f64::from(v));
        hi = hi.max(f64::from(v));
    }
    let (lo, hi) = expand_very_small_range(lo, hi);
    let (qmin, qmax) = (i64::from(INT8_MIN), i64::from(INT8_MAX));
    let (_, fq_zero_point) = fake_quant_params(lo, hi, qmin, qmax);
    let (scale, zero_point) = down_cast_scale(lo, hi, qmin, qmax, fq_zero_point);
    Ok(QuantParams {
        scale: check_scale(WHAT, scale)?,
        // Clamped to [qmin, qmax] by `down_cast_scale`.
        zero_point: zero_point as i32,
    })
}

/// Quantizes float values with given affine parameters into `[qmin, qmax]`, as MLIR's
/// `UniformQuantizedValueConverter` does (TF's `Quantize` for asymmetric constants):
/// `q = round_half_away(f64(v) / f64(scale) + zero_point)`, clamped.
///
/// # Errors
/// [`Error::Quantization`](crate::error::Error::Quantization) if a value is NaN or infinite or the
/// scale is not positive.
pub fn quantize_affine(
    values: &[f32],
    params: QuantParams,
    qmin: i32,
    qmax: i32,
) -> Result<Vec<i32>> {
    check_scale("constant", params.scale)?;
    quantize_affine_f64(
        values,
        f64::from(params.scale),
        params.zero_point,
        qmin,
        qmax,
    )
}

/// [`quantize_affine`] with the scale MLIR holds in double precision, before the model stores
/// it as a float: an int16 constant with its own range is divided by
/// [`int16_constant_scale`], not by the float the model records.
///
/// # Errors
/// As [`quantize_affine`].
pub fn quantize_affine_f64(
    values: &[f32],
    scale: f64,
    zero_point: i32,
    qmin: i32,
    qmax: i32,
) -> Result<Vec<i32>> {
    const WHAT: &str = "constant";
    check_finite(WHAT, values)?;
    check_scale(WHAT, scale as f32)?;
    let zp = f64::from(zero_point);
    Ok(values
        .iter()
        .map(|&v| {
            let q = (f64::from(v) / scale + zp).round();
            // Clamped first, so the conversion is exact.
            q.clamp(f64::from(qmin), f64::from(qmax)) as i32
        })
        .collect())
}

/// The double-precision scale TF's MLIR quantizer divides an int16 constant with its own range
/// by: `max(|min|, |max|) / 32767` in f64 (`(rmax − rmin) / (qmax − qmin)` over the symmetric
/// narrow range); the model stores it rounded to float (`activation_params_int16`). Measured on
/// the `op_bmm_const_2batch` goldens: dividing by the stored float puts one of 1152 values of the
/// 16x8 BATCH_MATMUL constant one step off, the double gives TF's bytes.
pub fn int16_constant_scale(lo: f32, hi: f32) -> f64 {
    let half = f64::from(lo.abs().max(hi.abs()));
    if half == 0.0 {
        NEAR_ZERO_TOLERANCE / f64::from(super::INT16_MAX)
    } else {
        half / f64::from(super::INT16_MAX)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn fake_quant_picks_the_smaller_error_side_and_nudges() {
        // [0, 1] over [-128, 127]: zero point exactly -128.
        assert_eq!(fake_quant_params(0.0, 1.0, -128, 127), (1.0 / 255.0, -128));
        // Range entirely above 0: the zero point clamps to qmin.
        assert_eq!(fake_quant_params(1.0, 2.0, -128, 127).1, -128);
        // Range entirely below 0: clamps to qmax.
        assert_eq!(fake_quant_params(-2.0, -1.0, -128, 127).1, 127);
        // Zero width: scale 1, zp qmin.
        assert_eq!(fake_quant_params(0.0, 0.0, -127, 127), (1.0, -127));
        // Symmetric narrow range: zero point 0.
        assert_eq!(fake_quant_params(-0.3, 0.3, -127, 127).1, 0);
    }

    #[test]
    fn down_cast_scale_is_f32_arithmetic() {
        let (s, zp) = down_cast_scale(-0.1, 0.7, -128, 127, 99);
        assert_eq!(s, ((0.7f64 as f32) - (-0.1f64 as f32)) / 255.0);
        let zp_f = (-128.0 - (-0.1) / f64::from(s)) as f32;
        assert_eq!(zp, i64::from(zp_f.round() as i32));
        // Symmetric storage keeps the given zero point.
        assert_eq!(down_cast_scale(-1.0, 1.0, -127, 127, 0), (1.0 / 127.0, 0));
    }

    #[test]
    fn constants_are_asymmetric_over_their_value_range() {
        // [-1, 3]: scale 4/255, zero point from the min side: -128 + 1/(4/255) = -64.25 → -64.
        let p = constant_params_int8(&[-1.0, 3.0, 0.5]).expect("valid");
        assert_eq!(p.scale, 4.0f32 / 255.0);
        assert_eq!(p.zero_point, -64);
        // All positive: the range starts at 0, zero point -128.
        let p = constant_params_int8(&[2.0, 1.0]).expect("valid");
        assert_eq!((p.scale, p.zero_point), (2.0f32 / 255.0, -128));
        // All zero: widened to ±5e-7 (not ±1e-6 as activations).
        let p = constant_params_int8(&[0.0; 3]).expect("valid");
        assert_eq!(p.scale, (5e-7f64 as f32 * 2.0) / 255.0);
        assert!(constant_params_int8(&[f32::NAN]).is_err());
        // Values: 3 / (4/255) - 64 = 127.25 → 127; -1 → -128; 0.5 → -32.125 → -32.
        let p = constant_params_int8(&[-1.0, 3.0]).expect("valid");
        let q = quantize_affine(&[-1.0, 3.0, 0.5, 0.0], p, -128, 127).expect("valid");
        assert_eq!(q, vec![-128, 127, -32, -64]);
        // Clamping and ties away from zero: scale 1, zp 0.
        let one = QuantParams {
            scale: 1.0,
            zero_point: 0,
        };
        let q = quantize_affine(&[300.0, -2.5, 2.5], one, -128, 127).expect("valid");
        assert_eq!(q, vec![127, -3, 3]);
    }
}
