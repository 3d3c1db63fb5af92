//! Symmetric int8 weights, per channel or per tensor, by [`WeightRule`] (one per converter mode),
//! and 16x8's widening of a weight range so that the quantized bias fits.

use super::affine::{down_cast_scale, expand_very_small_range, fake_quant_params};
use super::{WEIGHT_QMAX, check_finite, invalid};
use crate::error::Result;
use crate::graph::lint::sci;

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

/// Per-channel symmetric int8 quantization of a weight tensor along `axis` (TFLite's
/// `quantized_dimension`): CONV_2D and FULLY_CONNECTED use axis 0 (output channels),
/// DEPTHWISE_CONV_2D axis 3.
///
/// `w` holds the float values in row-major order of `shape`. Returns the quantized values in the
/// same order and one scale and zero point (0) per channel; see [`WeightRule`] for the exact
/// arithmetic of each converter mode.
///
/// # Errors
/// [`Error::Quantization`](crate::error::Error::Quantization) if the shape does not match
/// `w.len()`, `axis` is out of range, or a weight is NaN or infinite.
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
    // Element `i` is in channel `(i / inner) % channels`: runs of `inner` values, the channels
    // in turn.
    let runs = || w.chunks(inner).zip((0..channels).cycle());

    // max|w| per channel, exact in f32.
    let mut max_abs = vec![0.0f32; channels];
    for (run, c) in runs() {
        max_abs[c] = run.iter().fold(max_abs[c], |m, v| m.max(v.abs()));
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
        return Err(invalid(WHAT, format!("a channel's scale is {}", sci(*s))));
    }

    let mut values = Vec::with_capacity(w.len());
    for (run, c) in runs() {
        let f = factors[c];
        values.extend(run.iter().map(|&v| f.quantize(v)));
    }
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
/// [`Error::Quantization`](crate::error::Error::Quantization) if a weight is NaN or infinite.
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
        return Err(invalid(WHAT, format!("the scale is {}", sci(scale))));
    }
    Ok(QuantizedWeights {
        values: w.iter().map(|&v| factor.quantize(v)).collect(),
        scales: vec![scale],
        zero_points: vec![zero_point],
    })
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
        return Err(invalid(WHAT, format!("input scale {}", sci(input_scale))));
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
pub(super) enum Factor {
    /// `round_half_away(w · inv)` in f32 (TF's legacy and older quantizers).
    MulF32(f32),
    /// `round_half_away(f64(w) / scale + zero_point)` in f64 (MLIR's value converter).
    DivF64(f64, f64),
}

impl Factor {
    pub(super) fn quantize(self, w: f32) -> i8 {
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

/// Number of channels along `axis` and the number of elements inside one channel slice.
pub(super) fn channel_layout(len: usize, shape: &[usize], axis: usize) -> Result<(usize, usize)> {
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    const ALL_RULES: [WeightRule; 3] = [
        WeightRule::FullInteger,
        WeightRule::Int16x8,
        WeightRule::DynamicRange,
    ];

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
}
