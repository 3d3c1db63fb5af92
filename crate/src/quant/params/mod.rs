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
//!
//! # Files
//!
//! - `mod.rs`: [`QuantParams`], the integer bounds and the input checks every rule shares.
//! - `affine.rs`: MLIR's scale and zero-point arithmetic ([`fake_quant_params`],
//!   [`down_cast_scale`]) and the constants that are neither weight nor bias
//!   ([`constant_params_int8`], [`quantize_affine`]).
//! - `activation.rs`: activations, [`activation_params_int8`] and [`activation_params_int16`].
//! - `weights.rs`: [`WeightRule`], weights per channel or per tensor, widened for a large bias
//!   in 16x8.
//! - `bias.rs`: int32 / int64 bias, and the int8 bias adjustment ([`widen_for_bias_int32`]).

mod activation;
mod affine;
mod bias;
mod weights;
mod weights_int4;

pub use activation::{activation_params_int8, activation_params_int16};
pub use affine::{
    constant_params_int8, down_cast_scale, fake_quant_params, int16_constant_scale,
    quantize_affine, quantize_affine_f64,
};
pub use bias::{
    BIAS_MAX, QuantizedBias, bias_int32, bias_int32_adjusted, bias_int64, bias_scales,
    widen_for_bias_int32,
};
pub use weights::{
    QuantizedWeights, WeightRule, per_channel_weights_int8, per_channel_weights_int8_for_bias,
    per_tensor_weights_int8,
};
pub use weights_int4::{INT4_QMAX, INT4_QMIN, weights_int4};

use crate::error::{Error, Result};
use crate::graph::lint::sci;

pub use crate::graph::QuantParams;

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
            format!(
                "the range gives scale {}, which is not a finite positive number",
                sci(scale)
            ),
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
