//! What the quantizer decided, for people and for the page: per tensor the recorded and chosen
//! range, dtype, scale(s) and zero point(s); per operator the requantization multipliers
//! `M = S_in · S_w / S_out` and their fixed-point form; and the warnings (ops kept float, …).
//!
//! Plain data with serde, so the CLI writes it as JSON (`zeropoint quantize --report`) and the
//! wasm face can hand it to the page unchanged.

use serde::{Deserialize, Serialize};

/// The quantizer's account of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Report {
    /// `int8`, `int16x8`, `dynamic` or `float16`.
    pub mode: String,
    /// Input/output type of the quantized model (`int8`, `uint8`, `int16`, `float`).
    pub io: String,
    /// One entry per tensor of the quantized model's subgraph 0, in index order.
    pub tensors: Vec<TensorReport>,
    /// One entry per operator whose requantization multiplier is known (ops with a weight and
    /// an activation input).
    pub ops: Vec<OpReport>,
    /// Operators kept float, Q/DQ inserted, and other things worth knowing.
    pub warnings: Vec<String>,
    /// Calibration samples the errors (`sqnr_db`, `max_abs_error`, `op_errors`) were measured
    /// on; absent when none were (statistics given without samples).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub error_samples: usize,
    /// Per operator, the error of its (first) output against the float model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub op_errors: Vec<OpError>,
    /// What `quantize --auto` chose and measured; absent without `--auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub auto: Option<super::auto::AutoReport>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The error of one operator's output against the float model, over the report's
/// `error_samples` calibration samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct OpError {
    /// Operator index in the quantized model.
    pub index: usize,
    /// Operator name (`CONV_2D`).
    pub op: String,
    /// Name of the output tensor (the same in both models).
    pub output: String,
    /// SQNR in dB (`10·log10(Σ f² / Σ (f − q̂)²)`); absent when the output is identical.
    pub sqnr_db: Option<f64>,
    /// Largest `|float − dequantized|`.
    pub max_abs_error: f64,
}

/// One tensor of the quantized model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct TensorReport {
    /// Tensor index in the quantized model's subgraph 0.
    pub index: usize,
    /// Tensor name.
    pub name: String,
    /// Element type (`INT8`, `INT32`, `FLOAT32`, …).
    pub dtype: String,
    /// What the tensor is: `activation`, `weight`, `bias`, `constant`, `input`, `output`.
    pub role: String,
    /// Recorded (calibration) range, when the tensor had one.
    pub min: Option<f32>,
    /// Recorded (calibration) range, when the tensor had one.
    pub max: Option<f32>,
    /// Where the parameters came from: `calibrated`, `fixed (OP)`, `same-scale (OP)`,
    /// `weights`, `bias`, `requantized`, …
    pub source: String,
    /// Scale(s): one per tensor, or one per channel.
    pub scales: Vec<f32>,
    /// Zero point(s), one per scale.
    pub zero_points: Vec<i64>,
    /// Per-channel axis when there are several scales.
    pub axis: Option<i32>,
    /// SQNR in dB of this tensor against the float model's tensor of the same name, over the
    /// report's `error_samples` (absent when not measured or identical).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqnr_db: Option<f64>,
    /// Largest absolute error against the float model, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_abs_error: Option<f64>,
}

/// The requantization of one operator's output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct OpReport {
    /// Operator index in the quantized model.
    pub index: usize,
    /// Operator name (`CONV_2D`).
    pub op: String,
    /// Real multipliers `S_in · S_w[c] / S_out`, one per output channel (or one).
    pub multipliers: Vec<f64>,
    /// The fixed-point form of each multiplier: `(M0, shift)` from
    /// [`crate::fixedpoint::quantize_multiplier`].
    pub quantized: Vec<(i32, i32)>,
}
