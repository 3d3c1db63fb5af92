//! What the quantizer needs to know about an operator: the vocabulary of the quantizer column of
//! the op table ([`super::registry::OPS`]). Which inputs are weights (and their per-channel axis)
//! or bias, whether the output parameters are fixed by the op or shared with the inputs, which
//! operator versions TF writes for the integer kernels.
//!
//! The facts mirror TF 2.21's MLIR quantizer (`tfl_ops.td` traits: `AffineOpCoefficient`,
//! `FixedOutputRangeInterface`, `SameOperandsAndResultsScale`, and the bias specs) and were
//! checked against the golden models in `tests/golden/` (see `tests/rust/quantizer.rs`). An op
//! whose table row has no quantizer properties is not quantizable: the passes keep it float, with a
//! warning and QUANTIZE/DEQUANTIZE where float and integer tensors meet.

/// A constant weight input of an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeightSlot {
    /// Input index of the weights.
    pub input: usize,
    /// Per-channel axis (TF's `AffineOpCoefficient` dimension), or `None` when the op only
    /// supports per-tensor (symmetric) weights, as PRELU's alpha.
    pub axis: Option<usize>,
}

/// A bias input: its scale is the product of the scales of two other inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BiasSlot {
    /// Input index of the bias.
    pub input: usize,
    /// Input index of the activation whose scale feeds the bias scale.
    pub activation: usize,
    /// Input index of the weights whose (per-channel) scales feed the bias scale.
    pub weights: usize,
}

/// Fixed output parameters: `(scale, zero point)` for int8 and for int16 outputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedOutput {
    /// Int8 scale and zero point.
    pub int8: (f32, i32),
    /// Int16 scale and zero point.
    pub int16: (f32, i32),
}

/// The quantization facts of one builtin operator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpProperties {
    /// The constant weights, if the op has any.
    pub weights: Option<WeightSlot>,
    /// The bias, if the op has one.
    pub bias: Option<BiasSlot>,
    /// Output parameters fixed by the op (SOFTMAX, LOGISTIC, TANH, …).
    pub fixed_output: Option<FixedOutput>,
    /// All float operands and results share one scale and zero point (pools, RESHAPE,
    /// CONCATENATION, …): TF's `SameOperandsAndResultsScale`.
    pub same_scale: bool,
    /// Operator version TF writes for the int8 kernel (the float version is kept if higher).
    pub int8_version: i32,
    /// Operator version TF writes for the 16x8 kernel: the int8 version, except where the int16
    /// kernel came later (LEAKY_RELU 2, TRANSPOSE_CONV 3, as TF 2.21 writes them), and UNPACK,
    /// which TF 2.21's 16x8 quantizer writes as version 1.
    pub int16_version: i32,
    /// Whether LiteRT has an int16-activation (16x8) kernel for the op.
    pub int16: bool,
    /// Whether the op has a hybrid kernel (float activations, int8 weights), so that dynamic-range
    /// quantization quantizes its weights in place.
    pub hybrid: bool,
    /// Operator version TF writes for the hybrid kernel.
    pub hybrid_version: i32,
    /// A constant input that only dynamic-range quantization treats as weights (int8, per
    /// tensor, symmetric) for the hybrid kernel, while full-integer quantization gives it its own
    /// range like any other constant operand: BATCH_MATMUL's RHS (TF 2.21 quantizes it
    /// asymmetric int8 / symmetric int16 from its min and max).
    pub dynamic_weights: Option<usize>,
    /// The op's result is not a float tensor and stays as it is in a quantized model (only float
    /// tensors get parameters): what it is, `"BOOL"` (comparisons, logical ops) or `"index"`
    /// (ARG_MAX, ARG_MIN).
    pub unquantized_output: Option<&'static str>,
    /// In 16x8 only, all float operands and results share one scale (SUM: TF 2.21's 16x8
    /// quantizer writes its output at the input's scale, its int8 one gives it its own range).
    pub int16_same_scale: bool,
}

const PLAIN: OpProperties = OpProperties {
    weights: None,
    bias: None,
    fixed_output: None,
    same_scale: false,
    int8_version: 2,
    int16_version: 2,
    int16: false,
    hybrid: false,
    hybrid_version: 1,
    dynamic_weights: None,
    unquantized_output: None,
    int16_same_scale: false,
};

/// A same-scale op (TF's `SameOperandsAndResultsScale`) whose int8 kernel is version
/// `int8_version`.
pub const fn same(int8_version: i32) -> OpProperties {
    OpProperties {
        same_scale: true,
        int8_version,
        int16_version: int8_version,
        ..PLAIN
    }
}

/// An op with its own output range and no weights, int8 kernel version `int8_version`.
pub const fn plain(int8_version: i32) -> OpProperties {
    OpProperties {
        int8_version,
        int16_version: int8_version,
        ..PLAIN
    }
}

/// `p`, with a 16x8 kernel in LiteRT.
pub const fn with16(p: OpProperties) -> OpProperties {
    OpProperties { int16: true, ..p }
}

/// `p`, whose 16x8 form keeps the input's scale on the output
/// ([`OpProperties::int16_same_scale`]).
pub const fn same_scale_in_16x8(p: OpProperties) -> OpProperties {
    OpProperties {
        int16_same_scale: true,
        ..p
    }
}

/// The properties the 16x8 quantizer applies (`int16`): [`OpProperties::int16_same_scale`]
/// made [`OpProperties::same_scale`].
pub const fn for_mode(p: OpProperties, int16: bool) -> OpProperties {
    if int16 && p.int16_same_scale {
        OpProperties {
            same_scale: true,
            ..p
        }
    } else {
        p
    }
}

/// `p`, with the 16x8 kernel written as version `version`.
pub const fn int16_at(p: OpProperties, version: i32) -> OpProperties {
    OpProperties {
        int16: true,
        int16_version: version,
        ..p
    }
}

/// Weighted ops: weights at input 1 (per-channel `axis`), bias at input `bias` whose scale is
/// `s(activation) · s(weights)`; int8 and hybrid kernel versions.
pub const fn weighted(
    axis: usize,
    activation: usize,
    bias: usize,
    int8_version: i32,
    hybrid_version: i32,
) -> OpProperties {
    OpProperties {
        weights: Some(WeightSlot {
            input: 1,
            axis: Some(axis),
        }),
        bias: Some(BiasSlot {
            input: bias,
            activation,
            weights: 1,
        }),
        int8_version,
        int16_version: int8_version,
        hybrid: true,
        hybrid_version,
        ..PLAIN
    }
}

/// `p`, with a hybrid kernel (version `hybrid_version`) whose constant input `input` is int8
/// per tensor in dynamic-range quantization and an ordinary constant otherwise
/// ([`OpProperties::dynamic_weights`]).
pub const fn hybrid_const(p: OpProperties, input: usize, hybrid_version: i32) -> OpProperties {
    OpProperties {
        hybrid: true,
        hybrid_version,
        dynamic_weights: Some(input),
        ..p
    }
}

/// Per-tensor symmetric weights at input 1 and no bias (PRELU's alpha), int8 version
/// `int8_version`.
pub const fn per_tensor_weights(int8_version: i32) -> OpProperties {
    OpProperties {
        weights: Some(WeightSlot {
            input: 1,
            axis: None,
        }),
        ..plain(int8_version)
    }
}

/// `p`, with a BOOL result that is never quantized (comparisons: their float inputs keep their
/// own ranges; logical ops: nothing to quantize).
pub const fn bool_out(p: OpProperties) -> OpProperties {
    OpProperties {
        unquantized_output: Some("BOOL"),
        ..p
    }
}

/// `p`, with an INT32 / INT64 index result that is never quantized (ARG_MAX, ARG_MIN: the input
/// keeps its own range).
pub const fn index_out(p: OpProperties) -> OpProperties {
    OpProperties {
        unquantized_output: Some("index"),
        ..p
    }
}

/// Output parameters fixed by the op: `(scale, zero point)` for int8 and for int16.
pub const fn fixed(int8: (f32, i32), int16: (f32, i32)) -> OpProperties {
    OpProperties {
        fixed_output: Some(FixedOutput { int8, int16 }),
        ..PLAIN
    }
}

/// `1/256`: the int8 output scale of SOFTMAX and LOGISTIC.
pub const SCALE_1_256: f32 = 1.0 / 256.0;
/// `1/128`: the int8 output scale of TANH and L2_NORMALIZATION.
pub const SCALE_1_128: f32 = 1.0 / 128.0;
/// `1/32768`: the int16 output scale of SOFTMAX, LOGISTIC and TANH.
pub const SCALE_1_32768: f32 = 1.0 / 32768.0;

impl OpProperties {
    /// The weights dynamic-range quantization quantizes for the hybrid kernel: the op's
    /// weights, or its [`dynamic_weights`](Self::dynamic_weights) input (per tensor).
    pub fn hybrid_weights(&self) -> Option<WeightSlot> {
        self.weights.or(self
            .dynamic_weights
            .map(|input| WeightSlot { input, axis: None }))
    }

    /// A short description for tables (README, `zeropoint ops`, the page): "weights axis 0,
    /// bias", "fixed output 1/256 −128", "same scale", or "own range".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(w) = self.weights {
            parts.push(match w.axis {
                Some(a) => format!("weights per channel (axis {a})"),
                None => "weights per tensor".to_string(),
            });
        }
        if self.bias.is_some() {
            parts.push("bias int32 (int64 in 16x8)".to_string());
        }
        if let Some(f) = self.fixed_output {
            parts.push(format!(
                "fixed output int8 {} / {}",
                scale_text(f.int8.0),
                f.int8.1
            ));
        }
        if self.same_scale {
            parts.push("same scale in and out".to_string());
        } else if self.int16_same_scale {
            parts.push("own range (16x8: same scale in and out)".to_string());
        }
        if let Some(i) = self.dynamic_weights {
            if parts.is_empty() {
                parts.push("own range".to_string());
            }
            parts.push(format!("input {i} int8 per tensor in dynamic range"));
        }
        if let Some(what) = self.unquantized_output {
            parts.push(format!("{what} output (never quantized)"));
        }
        if parts.is_empty() {
            parts.push("own range".to_string());
        }
        parts.join(", ")
    }
}

/// `1/256` for powers of two below one, the number otherwise.
fn scale_text(s: f32) -> String {
    let inv = 1.0 / s;
    if inv.fract() == 0.0 && inv >= 2.0 {
        format!("1/{inv}")
    } else {
        format!("{s}")
    }
}
