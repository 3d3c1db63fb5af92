//! The quantizer: from a float model and calibration statistics to a quantized model with the
//! parameters TF 2.21's converter would choose.
//!
//! - [`params`]: the numerics — scale and zero-point choice for activations (int8 asymmetric,
//!   int16 symmetric), symmetric int8 weights per channel or per tensor, int32/int64 bias — each
//!   rule reproducing one TF function bit for bit, with its provenance in the docs.
//! - [`calibrate`]: the observers — stream samples through the float engine and record per
//!   tensor TF's global min/max, a bounded histogram and moving-average min/max, then choose a
//!   range (min/max, percentile, MSE, moving average).
//! - [`inputs`]: calibration data sources — `.npy`, PNG/JPEG images, seeded random data.
//!
//! The op-property table and the passes that apply these rules to a graph come next (issue 5).

pub mod calibrate;
pub mod inputs;
pub mod params;

pub use params::{
    QuantParams, QuantizedBias, QuantizedWeights, WeightRule, activation_params_int8,
    activation_params_int16, bias_int32, bias_int64, per_channel_weights_int8,
    per_channel_weights_int8_for_bias, per_tensor_weights_int8,
};
