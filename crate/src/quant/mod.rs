//! The quantizer: from a float model and calibration statistics to a quantized model with the
//! parameters TF 2.21's converter would choose.
//!
//! - [`params`]: the numerics — scale and zero-point choice for activations (int8 asymmetric,
//!   int16 symmetric), symmetric int8 weights per channel or per tensor, int32/int64 bias — each
//!   rule reproducing one TF function bit for bit, with its provenance in the docs; one file per
//!   rule family (`params/activation.rs`, `weights.rs`, `bias.rs`, and `affine.rs` for MLIR's
//!   shared arithmetic and the other constants).
//! - [`calibrate`]: the observers — stream samples through the float engine and record per
//!   tensor TF's global min/max, a bounded histogram and moving-average min/max, then choose a
//!   range (min/max, percentile, MSE, moving average).
//! - The per-element part of that recording (min/max scan, histogram bins), vectorized with
//!   SIMD128, each next to its scalar specification, is a kernel: [`crate::kernels::observe`].
//! - [`inputs`]: calibration data sources — `.npy`, PNG/JPEG images, seeded random data.
//!
//! - The quantizer's facts about each operator (which inputs are weights and their per-channel
//!   axis, bias, fixed output parameters, same-scale constraints, kernel versions) are the
//!   quantizer column of the one op table, [`crate::ops::registry::OPS`].
//! - [`passes`]: the quantizer itself, [`quantize`]: float model + ranges → quantized model
//!   (full integer int8 or 16x8, dynamic range, float16) and a [`Report`]. One file per pass
//!   (`passes/full_integer/`, `mixed_int16.rs`, `dynamic_range.rs`, `float16.rs`); the
//!   full-integer pass has one file per stage, in the order they run: `states.rs` (which
//!   activation ranges count) → `propagate.rs` (parameters forward and backward across same-scale
//!   ops) → `constants.rs` (weights, bias) → `materialize.rs` (QUANTIZE/DEQUANTIZE, I/O types) →
//!   `report.rs`.
//! - [`normalize`]: models as people have them (float16 or int8 constants behind DEQUANTIZE,
//!   hybrid int8 weights) made plain before the passes; [`cleanup`]: redundant
//!   DEQUANTIZE → QUANTIZE pairs removed after them.
//! - [`report`]: what was decided, per tensor and per operator; [`sqnr`]: the error it causes
//!   (SQNR, largest error) on the first calibration samples.
//! - [`compare_quant`]: our quantized model against a reference (TF's) tensor for tensor —
//!   types, scales, zero points, constants, operators on one side only, SQNR of each.
//! - [`auto`]: `quantize --auto`, beyond TF: per-tensor range choice, bias correction and mixed
//!   precision, each kept only when the measured output SQNR improves.
//! - [`pipeline`]: statistics JSON → ranges → quantized `.tflite` bytes + report, the one call
//!   the CLI and the page share.

pub mod auto;
pub mod calibrate;
pub mod cleanup;
pub mod compare_quant;
pub mod inputs;
pub mod normalize;
#[cfg(test)]
mod observe_tests;
pub mod params;
pub mod passes;
pub mod pipeline;
pub mod report;
pub mod sqnr;

pub use passes::{
    IoType, Mode, QuantizeOptions, Ranges, assemble_signatures, quantize, quantize_signature_parts,
    quantize_signatures, signature_model, signature_ranges,
};
pub use pipeline::{quantize_to_bytes, ranges_from_stats};
pub use report::Report;

pub use params::{
    QuantParams, QuantizedBias, QuantizedWeights, WeightRule, activation_params_int8,
    activation_params_int16, bias_int32, bias_int64, constant_params_int8,
    per_channel_weights_int8, per_channel_weights_int8_for_bias, per_tensor_weights_int8,
    quantize_affine,
};
