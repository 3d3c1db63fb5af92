//! Scale and zero-point choice, and the quantization of constant tensors, as TF 2.21's converter
//! does it — bit for bit.
//!
//! Pure functions over plain numbers and slices: no graph, no flatbuffers. The passes that decide
//! *which* tensor gets *which* rule (activations, weights and their axis, bias, fixed-output and
//! same-scale ops) live elsewhere in [`crate::quant`].
//!
//! # Which TF code path each rule reproduces
//!
//! The Python `TFLiteConverter` (TF 2.21, `tensorflow/lite/python/lite.py`, `_quantize`) does not
//! use one quantizer but three, and their float arithmetic differs in the last bit:
//!
//! | converter mode | TF code path | here |
//! |---|---|---|
//! | full integer, int8 activations (`representative_dataset`, `TFLITE_BUILTINS_INT8`) | the MLIR quantizer, `mlir::lite::QuantizeModel` with `legacy_float_scale = true` (`PrepareQuantize` → `ConvertStatsToQDQs`, `GetUniformQuantizedPerAxisTypeForWeight`, `DownCastScale`, `QuantizeLegacy`) | [`activation_params_int8`], [`WeightRule::FullInteger`], [`bias_int32`] |
//! | 16x8 (int16 activations) | `lite.py` sends int16 activations to the *older* quantizer (`calibrate_and_quantize` → `tensorflow/lite/tools/optimize/quantize_model.cc`, "TODO(b/175659372): remove the activations_type restriction") | [`activation_params_int16`], [`WeightRule::Int16x8`], [`bias_int64`] |
//! | dynamic range (`Optimize.DEFAULT`, no dataset) | the MLIR converter's `PrepareDynamicRangeQuantize` pass, where `QuantizationSpecs::legacy_float_scale` keeps its default `false` (scales in double) | [`WeightRule::DynamicRange`] |
//!
//! Every rule below names the TF function it reproduces. Sources read: TF's
//! `compiler/mlir/lite/quantization/common/quantization_lib/quantization_utils.{h,cc}`,
//! `compiler/mlir/lite/quantization/ir/FakeQuantSupport.cc`,
//! `compiler/mlir/quantization/common/ir/UniformSupport.h`,
//! `compiler/mlir/tools/optimize/quantization_utils.cc`,
//! `compiler/mlir/lite/quantization/lite/toco_legacy/{quantization_utils,portable_tensor_utils}.cc`,
//! `lite/tools/optimize/quantization_utils.cc`, `lite/python/lite.py`. The golden models in
//! `tests/golden/` (made by TF 2.21) are the arbiter: `tests/rust/quant_params.rs` requires our
//! output to equal TF's bit for bit.
//!
//! # Inputs TF does not guard against
//!
//! NaN or infinite ranges, weights or biases, a `min > max` range, and shapes that do not match
//! the data are refused with [`Error::Quantization`] instead of producing what TF would (garbage
//! scales or undefined behaviour in C++).

use crate::error::{Error, Result};

/// Affine quantization parameters of one tensor (or one channel): `real = scale · (q − zero_point)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantParams {
    /// The step between two adjacent quantized values, in real units.
    pub scale: f32,
    /// The quantized value that represents real 0.0 exactly.
    pub zero_point: i32,
}

/// Which of TF's weight quantizers to reproduce; they differ in float details (see the module
/// docs for which converter mode runs which).
///
/// All three are symmetric and narrow-range: values in `[−127, 127]`, zero point 0, scale =
/// `max|w| / 127` per channel (or per tensor). They differ in how that scale is rounded, how a
/// (near-)zero range is treated, and how a value is divided by the scale. On every weight of the
/// current goldens the three give identical values and scales, so the differences (last-bit
/// reciprocals on near-ties, all-zero and tiny channels) follow TF's source, not a golden.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightRule {
    /// Full-integer int8 mode: TF's MLIR quantizer with `legacy_float_scale`.
    ///
    /// - Range (`ExtractMinMaxFromAttr`, symmetric): `m = max|w|` as f64; `[−m, m]`.
    /// - `ExpandVerySmallRange`: if `2m ≤ 1e-6` the range becomes `[−5e-7, 5e-7]`, so an all-zero
    ///   channel gets scale `f32(5e-7)/127 ≈ 3.937e-9`, not 0.
    /// - Scale (`DownCastScale`): `(f32(max) − f32(min)) / 254` computed in f32 (equal to
    ///   `f32(m)/127`).
    /// - Per-channel values (`QuantizeLegacy` → `SymmetricPerChannelQuantizeValues`):
    ///   `inv = f32(1.0 / f64(scale))`, `q = round_half_away(w · inv)` in f32, clamped to ±127.
    /// - Per-tensor values (`QuantizeLegacy` → `PortableSymmetricQuantizeFloats`): computed with
    ///   TF's own `inv = 127 / max|w|` (f32), while the stored scale stays the one above; an
    ///   all-zero tensor quantizes to zeros.
    FullInteger,
    /// 16x8 mode: TF's older quantizer (`tensorflow/lite/tools/optimize`).
    ///
    /// - Per-channel (`SymmetricPerChannelQuantization`): `m = max|w|` (f32),
    ///   `scale = m / 127` (f32), `inv = 127 / m` (f32, 0 when `m == 0`), `q = round_half_away(w ·
    ///   inv)` clamped to ±127. An all-zero channel gets scale **0**.
    /// - Per-tensor (`SymmetricQuantizeTensor` → `PortableSymmetricQuantizeFloats`): the same
    ///   arithmetic, but an all-zero tensor gets scale **1**.
    Int16x8,
    /// Dynamic-range mode: the MLIR converter's `PrepareDynamicRangeQuantize` with
    /// `legacy_float_scale = false` (the `QuantizationSpecs` default).
    ///
    /// - Range and `ExpandVerySmallRange` as in [`WeightRule::FullInteger`].
    /// - Scale (`fakeQuantAttrsToType`, narrow range): `(max − min) / 254` in f64, stored as f32.
    /// - Values (`UniformQuantizedValueConverter::quantizeF32ToInt8`): `round_half_away(f64(w) /
    ///   scale_f64 + zero_point)`, clamped to ±127.
    ///
    /// Which weights TF quantizes in this mode (only operands of ops with hybrid kernels, and only
    /// constants with at least 1024 elements, `minimum_elements_for_weights`) is decided by the
    /// caller, not here.
    DynamicRange,
}

/// A quantized int8 weight tensor: the values (same layout as the float input) and one scale and
/// zero point per channel (one of each for per-tensor quantization).
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedWeights {
    /// Quantized values, in the float tensor's element order.
    pub values: Vec<i8>,
    /// One scale per channel along the quantized axis (one for per-tensor).
    pub scales: Vec<f32>,
    /// One zero point per scale; always 0 for TF's symmetric weights.
    pub zero_points: Vec<i32>,
}

/// A quantized bias: the values and the scale of each (one per output channel, or one).
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedBias<T> {
    /// Quantized values, one per bias element.
    pub values: Vec<T>,
    /// `input_scale · weight_scale[c]`, rounded to f32 (one, or one per channel).
    pub scales: Vec<f32>,
}

/// Smallest int8 value.
pub const INT8_MIN: i32 = -128;
/// Largest int8 value.
pub const INT8_MAX: i32 = 127;
/// Largest int16 value; int16 activations use the symmetric range `[−32767, 32767]` for their
/// scale (zero point 0), TF's `GetSymmetricQuantizationParams(min, max, 32767)`.
pub const INT16_MAX: i32 = 32767;
/// Narrow-range bound of int8 weights: values lie in `[−127, 127]`.
pub const WEIGHT_QMAX: i32 = 127;

/// TF's `kNearZeroTolerance` (`quantization_utils.h`): an activation range narrower than this is
/// widened by this much on each side (`TensorRangeSanityCheck`); a weight range not wider than
/// this is widened to `±kNearZeroTolerance/2` (`ExpandVerySmallRange`).
pub const NEAR_ZERO_TOLERANCE: f64 = 1.0e-6;

/// TF's `kSmallestHalfRange = kNearZeroTolerance / 2`, the half-width a too-small weight range is
/// widened to.
pub const SMALLEST_HALF_RANGE: f64 = NEAR_ZERO_TOLERANCE / 2.0;

fn invalid(what: &str, reason: impl Into<String>) -> Error {
    Error::Quantization {
        what: what.to_string(),
        reason: reason.into(),
    }
}

fn check_range(what: &str, min: f32, max: f32) -> Result<()> {
    if !min.is_finite() || !max.is_finite() {
        return Err(invalid(
            what,
            format!("the range [{min}, {max}] is not finite"),
        ));
    }
    if min > max {
        return Err(invalid(
            what,
            format!("the range [{min}, {max}] has min > max"),
        ));
    }
    Ok(())
}

fn check_scale(what: &str, scale: f32) -> Result<f32> {
    if scale.is_finite() && scale > 0.0 {
        Ok(scale)
    } else {
        Err(invalid(
            what,
            format!("the range gives scale {scale}, which is not a finite positive number"),
        ))
    }
}

fn check_finite(what: &str, values: &[f32]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(invalid(
            what,
            format!("element {i} is {}, not a finite number", values[i]),
        )),
    }
}

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
/// [`Error::Quantization`] if `min` or `max` is NaN or infinite, if `min > max`, or if the range
/// is so wide that the f32 scale overflows.
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
/// [`Error::Quantization`] if `min` or `max` is NaN or infinite, or if `min > max`.
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

/// Per-channel symmetric int8 quantization of a weight tensor along `axis` (TFLite's
/// `quantized_dimension`): CONV_2D and FULLY_CONNECTED use axis 0 (output channels),
/// DEPTHWISE_CONV_2D axis 3.
///
/// `w` holds the float values in row-major order of `shape`. Returns the quantized values in the
/// same order and one scale and zero point (0) per channel; see [`WeightRule`] for the exact
/// arithmetic of each converter mode.
///
/// # Errors
/// [`Error::Quantization`] if the shape does not match `w.len()`, `axis` is out of range, or a
/// weight is NaN or infinite.
pub fn per_channel_weights_int8(
    w: &[f32],
    shape: &[usize],
    axis: usize,
    rule: WeightRule,
) -> Result<QuantizedWeights> {
    per_channel_weights(w, shape, axis, rule, None)
}

/// [`per_channel_weights_int8`] for the weights of an operator with a bias (CONV_2D,
/// DEPTHWISE_CONV_2D, FULLY_CONNECTED, …), where TF may widen a channel's weight range so that
/// the quantized bias fits.
///
/// - [`WeightRule::Int16x8`] (TF's older quantizer, `EnsureBiasScaleCompatibility` →
///   `AdjustWeightsForBiasScale`): with `s_w = max|w| / 127` (f32) and `K = 2³¹ − 1` — the int32
///   limit, even though 16x8 biases are int64 —
///   - several channels: if `|b[c]| ≥ 0.5 · s_in · s_w[c] · K` (in f64), the channel's range
///     becomes `±f32(2·|b[c]| / K · f32(127 / s_in))` (products in f64);
///   - one channel: with `h = max|b|`, if `f32(h / K) ≥ 0.5 · s_in · s_w` (in f64), the range
///     becomes `±f32(2·h / K · f32(127 / s_in))`;
///
///   the values are then quantized against the widened range as usual.
/// - [`WeightRule::FullInteger`], [`WeightRule::DynamicRange`]: no change here. (TF's MLIR
///   quantizer has its own adjustment, `QuantizationDriver::SetBiasParamsWithAdjustments`, which
///   rescales both weight and bias when `|b| / s_bias` exceeds its `kBiasMax`; it is not
///   reproduced yet — no golden triggers it.)
///
/// `input_scale` is the scale of the operator's input activation; `bias` has one value per
/// output channel.
///
/// # Errors
/// As [`per_channel_weights_int8`], and if a bias value or `input_scale` is not finite, or the
/// bias length is neither 1 nor the channel count.
pub fn per_channel_weights_int8_for_bias(
    w: &[f32],
    shape: &[usize],
    axis: usize,
    rule: WeightRule,
    bias: &[f32],
    input_scale: f32,
) -> Result<QuantizedWeights> {
    per_channel_weights(w, shape, axis, rule, Some((bias, input_scale)))
}

fn per_channel_weights(
    w: &[f32],
    shape: &[usize],
    axis: usize,
    rule: WeightRule,
    bias_fit: Option<(&[f32], f32)>,
) -> Result<QuantizedWeights> {
    const WHAT: &str = "per-channel weights";
    let (channels, inner) = channel_layout(w.len(), shape, axis)?;
    check_finite(WHAT, w)?;
    let channel_of = |i: usize| (i / inner) % channels;

    // max|w| per channel, exact in f32.
    let mut max_abs = vec![0.0f32; channels];
    for (i, &v) in w.iter().enumerate() {
        let c = channel_of(i);
        max_abs[c] = max_abs[c].max(v.abs());
    }
    if let (WeightRule::Int16x8, Some((bias, input_scale))) = (rule, bias_fit) {
        adjust_weights_for_bias_scale(&mut max_abs, bias, input_scale)?;
    }

    let mut scales = Vec::with_capacity(channels);
    let mut zero_points = Vec::with_capacity(channels);
    // What one element is multiplied or divided by, per channel.
    let mut factors = Vec::with_capacity(channels);
    for &m in &max_abs {
        let (scale, zp, factor) = match rule {
            WeightRule::FullInteger => {
                let (rmin, rmax) = expand_very_small_range(-f64::from(m), f64::from(m));
                let (qmin, qmax) = (-i64::from(WEIGHT_QMAX), i64::from(WEIGHT_QMAX));
                let (_, fq_zp) = fake_quant_params(rmin, rmax, qmin, qmax);
                let (scale, zp) = down_cast_scale(rmin, rmax, qmin, qmax, fq_zp);
                // `[](float scale) { return 1.0 / scale; }` stored into a vector<float>.
                let inv = (1.0 / f64::from(scale)) as f32;
                (scale, zp, Factor::MulF32(inv))
            }
            WeightRule::Int16x8 => {
                let scale = m / WEIGHT_QMAX as f32;
                let inv = if m == 0.0 {
                    0.0
                } else {
                    WEIGHT_QMAX as f32 / m
                };
                (scale, 0, Factor::MulF32(inv))
            }
            WeightRule::DynamicRange => {
                let (rmin, rmax) = expand_very_small_range(-f64::from(m), f64::from(m));
                let (scale, zp) =
                    fake_quant_params(rmin, rmax, -i64::from(WEIGHT_QMAX), i64::from(WEIGHT_QMAX));
                (scale as f32, zp, Factor::DivF64(scale, zp as f64))
            }
        };
        scales.push(scale);
        // Symmetric ranges give |zp| ≤ 127 (in practice 0), so the conversion is exact.
        zero_points.push(zp as i32);
        factors.push(factor);
    }
    if let Some(s) = scales.iter().find(|s| !s.is_finite()) {
        return Err(invalid(WHAT, format!("a channel's scale is {s}")));
    }

    let values = w
        .iter()
        .enumerate()
        .map(|(i, &v)| factors[channel_of(i)].quantize(v))
        .collect();
    Ok(QuantizedWeights {
        values,
        scales,
        zero_points,
    })
}

/// Per-tensor symmetric int8 quantization of a weight tensor (one scale for all elements), as
/// TF does it with per-channel quantization disabled (`_experimental_disable_per_channel`, or
/// ops without a per-channel axis); see [`WeightRule`] for each mode's arithmetic.
///
/// # Errors
/// [`Error::Quantization`] if a weight is NaN or infinite.
pub fn per_tensor_weights_int8(w: &[f32], rule: WeightRule) -> Result<QuantizedWeights> {
    const WHAT: &str = "per-tensor weights";
    check_finite(WHAT, w)?;
    let range = w.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let qmax = WEIGHT_QMAX as f32;
    // TF's `PortableSymmetricQuantizeFloats`: its own scale and reciprocal from max|w|.
    let portable = |range: f32| -> (f32, Factor) {
        if range == 0.0 {
            (1.0, Factor::MulF32(0.0))
        } else {
            (range / qmax, Factor::MulF32(qmax / range))
        }
    };
    let (scale, zero_point, factor) = match rule {
        WeightRule::FullInteger => {
            let (rmin, rmax) = expand_very_small_range(-f64::from(range), f64::from(range));
            let (qmin, qmax) = (-i64::from(WEIGHT_QMAX), i64::from(WEIGHT_QMAX));
            // DownCastScale keeps zero point 0 for a per-tensor symmetric type.
            let (scale, _) = down_cast_scale(rmin, rmax, qmin, qmax, 0);
            let (own_scale, own_factor) = portable(range);
            // QuantizeLegacy: "the scale has been adjusted" when TF's own scale differs from the
            // type's by more than 1e-3; it then quantizes with the type's scale instead.
            let factor = if (f64::from(own_scale) - f64::from(scale)).abs() > 1e-3 {
                Factor::DivF64(f64::from(scale), 0.0)
            } else {
                own_factor
            };
            (scale, 0, factor)
        }
        WeightRule::Int16x8 => {
            let (scale, factor) = portable(range);
            (scale, 0, factor)
        }
        WeightRule::DynamicRange => {
            let (rmin, rmax) = expand_very_small_range(-f64::from(range), f64::from(range));
            let (scale, zp) =
                fake_quant_params(rmin, rmax, -i64::from(WEIGHT_QMAX), i64::from(WEIGHT_QMAX));
            (scale as f32, zp as i32, Factor::DivF64(scale, zp as f64))
        }
    };
    if !scale.is_finite() {
        return Err(invalid(WHAT, format!("the scale is {scale}")));
    }
    Ok(QuantizedWeights {
        values: w.iter().map(|&v| factor.quantize(v)).collect(),
        scales: vec![scale],
        zero_points: vec![zero_point],
    })
}

/// Scales of a bias: `input_scale · weight_scale[c]`, rounded once to f32.
///
/// TF's MLIR quantizer (`GetUniformQuantizedTypeForBias` with `legacy_float_scale`) multiplies in
/// f64 and casts to f32; the older quantizer (`SymmetricPerChannelBiasQuantize`) multiplies in
/// f32. The product of two f32 values is exact in f64, so both round the same exact product
/// once: the results are identical.
pub fn bias_scales(input_scale: f32, weight_scales: &[f32]) -> Vec<f32> {
    weight_scales.iter().map(|&s| input_scale * s).collect()
}

/// Int32 bias for int8 activations, as TF quantizes it (`QuantizeLegacy` →
/// `SymmetricBiasQuantize<int32_t>`, `compiler/mlir/tools/optimize/quantization_utils.cc`).
///
/// Scale per element: [`bias_scales`] (one weight scale → one bias scale shared by all elements;
/// otherwise one per element). Value: `inv = f32(1.0 / f64(scale))` (0 when the scale is 0),
/// `q = round_half_away(b · inv)` in f32, converted with saturation (`SafeCast`) and clamped to
/// `[−2³¹ + 1, 2³¹ − 1]`. Zero point 0.
///
/// # Errors
/// [`Error::Quantization`] if a bias value or scale is NaN or infinite, a scale is negative, or
/// the number of weight scales is neither 1 nor `b.len()`.
pub fn bias_int32(
    b: &[f32],
    input_scale: f32,
    weight_scales: &[f32],
) -> Result<QuantizedBias<i32>> {
    let (scales, invs) = bias_setup("int32 bias", b, input_scale, weight_scales)?;
    let values = b
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let inv = invs[if invs.len() == 1 { 0 } else { i }];
            // `as` saturates and maps NaN to 0, like TF's SafeCast.
            let q = (v * inv).round() as i32;
            q.clamp(-i32::MAX, i32::MAX)
        })
        .collect();
    Ok(QuantizedBias { values, scales })
}

/// Int64 bias for 16x8 mode (int16 activations), as TF's older quantizer does it
/// (`SymmetricPerChannelBiasQuantize<int64_t>` / `SymmetricPerLayerBiasQuantize<int64_t>`).
///
/// The same arithmetic as [`bias_int32`] (scale `f32(s_in · s_w[c])`, `inv = f32(1.0 /
/// f64(scale))`, `round_half_away(b · inv)` in f32), saturated and clamped to
/// `[−2⁶³ + 1, 2⁶³ − 1]`.
///
/// # Errors
/// As [`bias_int32`].
pub fn bias_int64(
    b: &[f32],
    input_scale: f32,
    weight_scales: &[f32],
) -> Result<QuantizedBias<i64>> {
    let (scales, invs) = bias_setup("int64 bias", b, input_scale, weight_scales)?;
    let values = b
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let inv = invs[if invs.len() == 1 { 0 } else { i }];
            let q = (v * inv).round() as i64;
            q.clamp(-i64::MAX, i64::MAX)
        })
        .collect();
    Ok(QuantizedBias { values, scales })
}

/// Checks the bias inputs and returns its scales and the f32 reciprocals TF multiplies by.
fn bias_setup(
    what: &str,
    b: &[f32],
    input_scale: f32,
    weight_scales: &[f32],
) -> Result<(Vec<f32>, Vec<f32>)> {
    check_finite(what, b)?;
    if weight_scales.len() != 1 && weight_scales.len() != b.len() {
        return Err(invalid(
            what,
            format!(
                "{} weight scales for {} bias values (need 1 or one per value)",
                weight_scales.len(),
                b.len()
            ),
        ));
    }
    let scales = bias_scales(input_scale, weight_scales);
    if let Some(s) = scales.iter().find(|s| !s.is_finite() || **s < 0.0) {
        return Err(invalid(
            what,
            format!(
                "bias scale {s} (input scale {input_scale}) is not a finite non-negative number"
            ),
        ));
    }
    // `float inv = (scale == 0) ? 0 : 1.0 / scale;` — the division in f64, stored as f32.
    let invs = scales
        .iter()
        .map(|&s| {
            if s == 0.0 {
                0.0
            } else {
                (1.0 / f64::from(s)) as f32
            }
        })
        .collect();
    Ok((scales, invs))
}

/// TF's older quantizer's `AdjustWeightsForBiasScale` (`lite/tools/optimize/quantization_utils.cc`)
/// over per-channel half-ranges `max|w|`; see [`per_channel_weights_int8_for_bias`].
fn adjust_weights_for_bias_scale(
    half_ranges: &mut [f32],
    bias: &[f32],
    input_scale: f32,
) -> Result<()> {
    const WHAT: &str = "weights for their bias";
    check_finite(WHAT, bias)?;
    if !input_scale.is_finite() {
        return Err(invalid(WHAT, format!("input scale {input_scale}")));
    }
    // `const int32_t kScale = std::numeric_limits<int32_t>::max();`
    const K: i32 = i32::MAX;
    let qmax = WEIGHT_QMAX as f32;
    let s_in = f64::from(input_scale);
    if half_ranges.len() > 1 {
        if bias.len() != half_ranges.len() {
            return Err(invalid(
                WHAT,
                format!(
                    "{} bias values for {} channels",
                    bias.len(),
                    half_ranges.len()
                ),
            ));
        }
        for (h, &b) in half_ranges.iter_mut().zip(bias) {
            let weight_scale = *h / qmax;
            if f64::from(b.abs()) >= 0.5 * s_in * f64::from(weight_scale) * f64::from(K) {
                let widened =
                    2.0 * f64::from(b.abs()) / f64::from(K) * f64::from(qmax / input_scale);
                *h = widened as f32;
            }
        }
    } else if let Some(h) = half_ranges.first_mut() {
        let bias_half_range = bias.iter().fold(0.0f32, |m, b| m.max(b.abs()));
        let weight_scale = *h / qmax;
        // `bias_half_range / kScale`: a float divided by an int32, in f32.
        if f64::from(bias_half_range / K as f32) >= 0.5 * s_in * f64::from(weight_scale) {
            let widened =
                2.0 * f64::from(bias_half_range) / f64::from(K) * f64::from(qmax / input_scale);
            *h = widened as f32;
        }
    }
    Ok(())
}

/// How one weight element becomes an int8 value, per channel.
#[derive(Debug, Clone, Copy)]
enum Factor {
    /// `round_half_away(w · inv)` in f32 (TF's legacy and older quantizers).
    MulF32(f32),
    /// `round_half_away(f64(w) / scale + zero_point)` in f64 (MLIR's value converter).
    DivF64(f64, f64),
}

impl Factor {
    fn quantize(self, w: f32) -> i8 {
        let q = match self {
            Factor::MulF32(inv) => f64::from((w * inv).round()),
            Factor::DivF64(scale, zp) => (f64::from(w) / scale + zp).round(),
        };
        // Clamped to [-127, 127] first, so the conversion is exact. (TF's legacy code narrows to
        // int8 before clamping, which only matters for |q| > 127: impossible when the scale
        // covers max|w|.)
        q.clamp(-f64::from(WEIGHT_QMAX), f64::from(WEIGHT_QMAX)) as i8
    }
}

/// TF's `ExpandVerySmallRange`: a range not wider than [`NEAR_ZERO_TOLERANCE`] is widened to at
/// least `[−5e-7, 5e-7]` ([`SMALLEST_HALF_RANGE`]).
fn expand_very_small_range(min: f64, max: f64) -> (f64, f64) {
    if max - min > NEAR_ZERO_TOLERANCE {
        (min, max)
    } else {
        (min.min(-SMALLEST_HALF_RANGE), max.max(SMALLEST_HALF_RANGE))
    }
}

/// Number of channels along `axis` and the number of elements inside one channel slice.
fn channel_layout(len: usize, shape: &[usize], axis: usize) -> Result<(usize, usize)> {
    const WHAT: &str = "per-channel weights";
    let Some(&channels) = shape.get(axis) else {
        return Err(invalid(
            WHAT,
            format!("axis {axis} is out of range for shape {shape:?}"),
        ));
    };
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if count != Some(len) {
        return Err(invalid(
            WHAT,
            format!("shape {shape:?} does not hold {len} values"),
        ));
    }
    // Every factor divides `len`, which fits in usize. An empty tensor has no element to place,
    // so `inner` only needs to be non-zero for the division.
    let inner = shape[axis + 1..].iter().product::<usize>();
    Ok((channels, inner.max(1)))
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
/// [`Error::Quantization`] if a value is NaN or infinite, or the scale overflows.
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
/// [`Error::Quantization`] if a value is NaN or infinite or the scale is not positive.
pub fn quantize_affine(
    values: &[f32],
    params: QuantParams,
    qmin: i32,
    qmax: i32,
) -> Result<Vec<i32>> {
    const WHAT: &str = "constant";
    check_finite(WHAT, values)?;
    check_scale(WHAT, params.scale)?;
    let (scale, zp) = (f64::from(params.scale), f64::from(params.zero_point));
    Ok(values
        .iter()
        .map(|&v| {
            let q = (f64::from(v) / scale + zp).round();
            // Clamped first, so the conversion is exact.
            q.clamp(f64::from(qmin), f64::from(qmax)) as i32
        })
        .collect())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    const ALL_RULES: [WeightRule; 3] = [
        WeightRule::FullInteger,
        WeightRule::Int16x8,
        WeightRule::DynamicRange,
    ];

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
    fn per_channel_axis_0_and_3() {
        // Shape [2, 1, 1, 3], axis 0: channel 0 = first 3 values, channel 1 = last 3.
        // No value lands near a .5 tie, so every rule must agree.
        let w = [0.6f32, -1.0, 0.1, 2.0, 1.1, -0.4];
        for rule in ALL_RULES {
            let q = per_channel_weights_int8(&w, &[2, 1, 1, 3], 0, rule).expect("valid");
            assert_eq!(q.scales, vec![1.0 / 127.0, 2.0 / 127.0], "{rule:?}");
            assert_eq!(q.values, vec![76, -127, 13, 127, 70, -25], "{rule:?}");
            assert_eq!(q.zero_points, vec![0, 0]);
            // Axis 3 (depthwise): channel = i % 3.
            let q = per_channel_weights_int8(&w, &[1, 1, 2, 3], 3, rule).expect("valid");
            assert_eq!(
                q.scales,
                vec![2.0 / 127.0, 1.1f32 / 127.0, 0.4f32 / 127.0],
                "{rule:?}"
            );
            assert_eq!(q.values, vec![38, -115, 32, 127, 127, -127], "{rule:?}");
        }
    }

    #[test]
    fn ties_round_half_away_from_zero() {
        // Channel max 127 → scale 1, inv 1: 0.5 → 1, -0.5 → -1, 2.5 → 3.
        let w = [127.0, 0.5, -0.5, 2.5, -2.5];
        for rule in ALL_RULES {
            let q = per_channel_weights_int8(&w, &[1, 5], 0, rule).expect("valid");
            assert_eq!(q.values, vec![127, 1, -1, 3, -3], "{rule:?}");
        }
    }

    #[test]
    fn all_zero_channel() {
        let w = [0.0, 0.0, 1.0, -0.3];
        let full = per_channel_weights_int8(&w, &[2, 2], 0, WeightRule::FullInteger).expect("ok");
        assert_eq!(full.scales[0], (5e-7f64 as f32 + 5e-7f64 as f32) / 254.0);
        assert_eq!(full.values, vec![0, 0, 127, -38]);
        let old = per_channel_weights_int8(&w, &[2, 2], 0, WeightRule::Int16x8).expect("ok");
        assert_eq!(old.scales[0], 0.0);
        assert_eq!(old.values, vec![0, 0, 127, -38]);
        let dynamic =
            per_channel_weights_int8(&w, &[2, 2], 0, WeightRule::DynamicRange).expect("ok");
        assert_eq!(dynamic.scales[0], ((5e-7 + 5e-7) / 254.0) as f32);
        assert_eq!(dynamic.values, vec![0, 0, 127, -38]);
    }

    #[test]
    fn tiny_channel_is_expanded_in_mlir_rules_only() {
        // max|w| = 1e-7 ≤ 5e-7: the MLIR rules use the range ±5e-7, the old one keeps 1e-7.
        let w = [1e-7f32, -3e-8];
        let full = per_channel_weights_int8(&w, &[1, 2], 0, WeightRule::FullInteger).expect("ok");
        assert_eq!(full.scales[0], (5e-7f64 as f32 * 2.0) / 254.0);
        assert_eq!(full.values, vec![25, -8]);
        let old = per_channel_weights_int8(&w, &[1, 2], 0, WeightRule::Int16x8).expect("ok");
        assert_eq!(old.scales[0], 1e-7f32 / 127.0);
        assert_eq!(old.values, vec![127, -38]);
    }

    #[test]
    fn per_tensor_rules() {
        let w = [0.5f32, -2.0, 1.2];
        for rule in ALL_RULES {
            let q = per_tensor_weights_int8(&w, rule).expect("valid");
            assert_eq!(q.scales, vec![2.0 / 127.0], "{rule:?}");
            assert_eq!(q.values, vec![32, -127, 76], "{rule:?}");
            assert_eq!(q.zero_points, vec![0]);
        }
        let zeros = [0.0f32; 4];
        let full = per_tensor_weights_int8(&zeros, WeightRule::FullInteger).expect("ok");
        assert_eq!(full.values, vec![0; 4]);
        assert_eq!(full.scales[0], (5e-7f64 as f32 * 2.0) / 254.0);
        // The older quantizer's PortableSymmetricQuantizeFloats gives scale 1 for zeros.
        let old = per_tensor_weights_int8(&zeros, WeightRule::Int16x8).expect("ok");
        assert_eq!(old.scales[0], 1.0);
        assert_eq!(old.values, vec![0; 4]);
    }

    #[test]
    fn bad_weights_are_errors() {
        for rule in ALL_RULES {
            assert!(per_channel_weights_int8(&[f32::NAN], &[1], 0, rule).is_err());
            assert!(per_channel_weights_int8(&[f32::INFINITY], &[1], 0, rule).is_err());
            assert!(per_channel_weights_int8(&[1.0, 2.0], &[3], 0, rule).is_err());
            assert!(per_channel_weights_int8(&[1.0, 2.0], &[2], 1, rule).is_err());
            assert!(per_tensor_weights_int8(&[1.0, f32::NAN], rule).is_err());
        }
        // Huge weights are fine while the scale is finite…
        let q = per_channel_weights_int8(&[1e38, -1.0], &[1, 2], 0, WeightRule::FullInteger)
            .expect("finite");
        assert_eq!(q.values, vec![127, 0]);
        // …but TF's f32 `max − min` overflows for f32::MAX: refused rather than a scale of inf.
        let e = per_channel_weights_int8(&[f32::MAX], &[1], 0, WeightRule::FullInteger);
        assert!(e.is_err());
        // Empty tensors quantize to nothing.
        let q = per_tensor_weights_int8(&[], WeightRule::FullInteger).expect("ok");
        assert!(q.values.is_empty());
    }

    #[test]
    fn int16x8_widens_weights_for_a_large_bias() {
        let w = [0.05f32, -0.02, 0.04, 0.01];
        let (bias, s_in) = ([300.0f32, 1.0], 1e-4f32);
        let k = f64::from(i32::MAX);
        let q = per_channel_weights_int8_for_bias(&w, &[2, 2], 0, WeightRule::Int16x8, &bias, s_in)
            .expect("valid");
        // Channel 0: 300 ≥ 0.5 · 1e-4 · (0.05/127) · K ≈ 42 → range ±f32(2·300/K · 127/1e-4).
        let widened = (2.0 * 300.0 / k * f64::from(127.0f32 / s_in)) as f32;
        assert_eq!(q.scales[0], widened / 127.0);
        assert_eq!(q.values[0], (0.05f32 * (127.0 / widened)).round() as i8);
        // Channel 1: bias 1 fits, the range stays max|w|.
        assert_eq!(q.scales[1], 0.04f32 / 127.0);
        // The MLIR rules do not adjust here.
        let plain = per_channel_weights_int8(&w, &[2, 2], 0, WeightRule::FullInteger).expect("ok");
        let with_bias =
            per_channel_weights_int8_for_bias(&w, &[2, 2], 0, WeightRule::FullInteger, &bias, s_in)
                .expect("ok");
        assert_eq!(plain, with_bias);
        // One channel: the per-layer branch, on max|b|.
        let q = per_channel_weights_int8_for_bias(
            &[0.05],
            &[1, 1],
            0,
            WeightRule::Int16x8,
            &[300.0],
            s_in,
        )
        .expect("valid");
        assert_eq!(q.scales[0], widened / 127.0);
        assert!(
            per_channel_weights_int8_for_bias(&w, &[2, 2], 0, WeightRule::Int16x8, &[1.0; 3], s_in)
                .is_err()
        );
    }

    #[test]
    fn bias_per_channel_and_per_tensor() {
        let b = [1.0f32, -0.5, 0.0];
        let q = bias_int32(&b, 0.5, &[0.01, 0.02, 0.04]).expect("valid");
        assert_eq!(q.scales, vec![0.5 * 0.01, 0.5 * 0.02, 0.5 * 0.04]);
        assert_eq!(q.values, vec![200, -50, 0]);
        let q = bias_int32(&b, 0.5, &[0.01]).expect("valid");
        assert_eq!(q.scales, vec![0.005]);
        assert_eq!(q.values, vec![200, -100, 0]);
        let q = bias_int64(&b, 0.5, &[0.01]).expect("valid");
        assert_eq!(q.values, vec![200, -100, 0]);
    }

    #[test]
    fn bias_saturates_and_clamps_symmetrically() {
        let q = bias_int32(&[1e30, -1e30, 1.0], 1e-6, &[1e-6]).expect("valid");
        // 1.0 / 1e-12 ≈ 1e12 does not fit either: saturated.
        assert_eq!(q.values, vec![i32::MAX, -i32::MAX, i32::MAX]);
        let q = bias_int64(&[1e30, -1e30], 1e-6, &[1e-6]).expect("valid");
        assert_eq!(q.values, vec![i64::MAX, -i64::MAX]);
        // A zero scale quantizes to 0, as TF's `inv = 0` does.
        let q = bias_int32(&[3.0], 0.0, &[1.0]).expect("valid");
        assert_eq!(q.values, vec![0]);
    }

    #[test]
    fn bias_ties_round_half_away() {
        // scale 1 (0.5 · 2): 2.5 → 3, -2.5 → -3.
        let q = bias_int32(&[2.5, -2.5, 0.5], 0.5, &[2.0]).expect("valid");
        assert_eq!(q.values, vec![3, -3, 1]);
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

    #[test]
    fn bad_bias_inputs_are_errors() {
        assert!(bias_int32(&[f32::NAN], 1.0, &[1.0]).is_err());
        assert!(bias_int32(&[1.0, 2.0], 1.0, &[1.0, 2.0, 3.0]).is_err());
        assert!(bias_int32(&[1.0], f32::INFINITY, &[1.0]).is_err());
        assert!(bias_int64(&[1.0], -1.0, &[1.0]).is_err());
    }
}

/// MLIR's bound on a quantized bias: `std::numeric_limits<int32_t>::max() / 2`, leaving room for
/// the accumulator.
pub const BIAS_MAX: f64 = 1_073_741_823.0;

/// TF's MLIR quantizer (`QuantizationDriver::SetBiasParamsWithAdjustments`) for an int8 op with
/// a constant float bias: where `|b| / (s_in · s_w)` would exceed [`BIAS_MAX`], the bias scale
/// becomes `|b| / BIAS_MAX` (per channel; per tensor: the largest `|b|`) and the weight scale
/// `bias_scale / s_in`, both in f64 and stored as f32; the weights of that channel are quantized
/// again with the stored scale the way TF's writer quantizes every int8 weight (`inv =
/// f32(1.0 / f64(scale))`, `round_half_away(w · inv)` in f32). Returns the f64 bias scale of
/// each adjusted channel (`None` for channels left alone), or `None` if nothing overflowed.
///
/// # Errors
/// [`Error::Quantization`] if the shapes disagree or a value is not finite.
pub fn widen_for_bias_int32(
    q: &mut QuantizedWeights,
    w: &[f32],
    shape: &[usize],
    axis: Option<usize>,
    bias: &[f32],
    input_scale: f32,
) -> Result<Option<Vec<Option<f64>>>> {
    const WHAT: &str = "weights for their int32 bias";
    check_finite(WHAT, bias)?;
    let s_in = f64::from(input_scale);
    if !(s_in.is_finite() && s_in > 0.0) {
        return Ok(None);
    }
    let channels = q.scales.len();
    let mut adjusted: Vec<Option<f64>> = vec![None; channels];
    if channels == 1 {
        let half = bias.iter().fold(0.0f32, |m, b| m.max(b.abs()));
        let bias_scale = s_in * f64::from(q.scales[0]);
        if f64::from(half) / bias_scale >= BIAS_MAX {
            adjusted[0] = Some(f64::from(half) / BIAS_MAX);
        }
    } else {
        if bias.len() != channels {
            return Err(invalid(
                WHAT,
                format!("{} bias values for {channels} channels", bias.len()),
            ));
        }
        for (c, (&b, &s_w)) in bias.iter().zip(&q.scales).enumerate() {
            let bias_scale = s_in * f64::from(s_w);
            if f64::from(b.abs()) / bias_scale > BIAS_MAX {
                adjusted[c] = Some(f64::from(b.abs()) / BIAS_MAX);
            }
        }
    }
    if adjusted.iter().all(Option::is_none) {
        return Ok(None);
    }
    let inner = match axis {
        Some(axis) => channel_layout(w.len(), shape, axis)?.1,
        None => w.len().max(1),
    };
    for (c, a) in adjusted.iter().enumerate() {
        if let Some(bias_scale) = a {
            q.scales[c] = (bias_scale / s_in) as f32;
        }
    }
    for (i, (&v, out)) in w.iter().zip(q.values.iter_mut()).enumerate() {
        let c = if channels == 1 {
            0
        } else {
            (i / inner) % channels
        };
        if adjusted[c].is_some() {
            let inv = (1.0 / f64::from(q.scales[c])) as f32;
            *out = Factor::MulF32(inv).quantize(v);
        }
    }
    Ok(Some(adjusted))
}

/// [`bias_int32`] where [`widen_for_bias_int32`] adjusted some channels: those get the bias
/// scale it chose, stored as f32, and are quantized with it as [`bias_int32`] quantizes.
///
/// # Errors
/// As [`bias_int32`].
pub fn bias_int32_adjusted(
    b: &[f32],
    input_scale: f32,
    weight_scales: &[f32],
    adjusted: &[Option<f64>],
) -> Result<QuantizedBias<i32>> {
    let mut q = bias_int32(b, input_scale, weight_scales)?;
    for (c, a) in adjusted.iter().enumerate() {
        if let (Some(scale), Some(s)) = (a, q.scales.get_mut(c)) {
            *s = *scale as f32;
        }
    }
    for (i, &v) in b.iter().enumerate() {
        let c = if q.scales.len() == 1 { 0 } else { i };
        if let Some(Some(_)) = adjusted.get(c) {
            let inv = (1.0 / f64::from(q.scales[c])) as f32;
            q.values[i] = ((v * inv).round() as i32).clamp(-i32::MAX, i32::MAX);
        }
    }
    Ok(q)
}
