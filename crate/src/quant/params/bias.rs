//! Quantized bias: scale `s_in · s_w[c]`, int32 values for int8 activations and int64 for 16x8,
//! and TF's MLIR adjustment of bias and weight scales where an int32 bias would overflow
//! ([`BIAS_MAX`]).

use super::weights::{Factor, QuantizedWeights, channel_layout};
use super::{check_finite, invalid};
use crate::error::Result;

/// A quantized bias: the values and the scale of each (one per output channel, or one).
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedBias<T> {
    /// Quantized values, one per bias element.
    pub values: Vec<T>,
    /// `input_scale · weight_scale[c]`, rounded to f32 (one, or one per channel).
    pub scales: Vec<f32>,
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
/// [`Error::Quantization`](crate::error::Error::Quantization) if a bias value or scale is NaN or
/// infinite, a scale is negative, or the number of weight scales is neither 1 nor `b.len()`.
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
/// [`Error::Quantization`](crate::error::Error::Quantization) if the shapes disagree or a value is
/// not finite.
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

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
    fn bad_bias_inputs_are_errors() {
        assert!(bias_int32(&[f32::NAN], 1.0, &[1.0]).is_err());
        assert!(bias_int32(&[1.0, 2.0], 1.0, &[1.0, 2.0, 3.0]).is_err());
        assert!(bias_int32(&[1.0], f32::INFINITY, &[1.0]).is_err());
        assert!(bias_int64(&[1.0], -1.0, &[1.0]).is_err());
    }
}
