//! What the quantizer needs to know about each builtin operator: which inputs are weights (and
//! their per-channel axis) or bias, whether the output parameters are fixed by the op or shared
//! with the inputs, and whether the op can be quantized at all.
//!
//! The facts mirror TF 2.21's MLIR quantizer (`tfl_ops.td` traits: `AffineOpCoefficient`,
//! `FixedOutputRangeInterface`, `SameOperandsAndResultsScale`, and the bias specs) and were
//! checked against the golden models in `tests/golden/` (see `tests/rust/quantizer.rs`). An op
//! missing from [`properties`] is not quantizable: the passes keep it float, with a warning and
//! QUANTIZE/DEQUANTIZE where float and integer tensors meet.

use crate::graph::BuiltinOperator as Op;

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
    /// Operator version TF writes for the int8 and 16x8 kernels (the float version is kept if
    /// higher).
    pub int8_version: i32,
    /// Whether LiteRT has an int16-activation (16x8) kernel for the op.
    pub int16: bool,
    /// Whether the op has a hybrid kernel (float activations, int8 weights), so that dynamic-range
    /// quantization quantizes its weights in place.
    pub hybrid: bool,
    /// Operator version TF writes for the hybrid kernel.
    pub hybrid_version: i32,
}

const PLAIN: OpProperties = OpProperties {
    weights: None,
    bias: None,
    fixed_output: None,
    same_scale: false,
    int8_version: 2,
    int16: false,
    hybrid: false,
    hybrid_version: 1,
};

const fn same(int8_version: i32) -> OpProperties {
    OpProperties {
        same_scale: true,
        int8_version,
        ..PLAIN
    }
}

const fn plain(int8_version: i32) -> OpProperties {
    OpProperties {
        int8_version,
        ..PLAIN
    }
}

const fn with16(p: OpProperties) -> OpProperties {
    OpProperties { int16: true, ..p }
}

/// Weighted ops: weights at input 1 (axis), bias at `bias` computed from `activation`.
const fn weighted(
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
        hybrid: true,
        hybrid_version,
        ..PLAIN
    }
}

const fn fixed(int8: (f32, i32), int16: (f32, i32)) -> OpProperties {
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

/// The quantization facts of `op`, or `None` when the quantizer keeps it float.
pub fn properties(op: Op) -> Option<OpProperties> {
    let p = match op {
        Op::CONV_2D => with16(weighted(0, 0, 2, 3, 5)),
        Op::DEPTHWISE_CONV_2D => with16(weighted(3, 0, 2, 3, 6)),
        Op::FULLY_CONNECTED => with16(weighted(0, 0, 2, 4, 12)),
        // Inputs: output shape, weights, activation, bias.
        Op::TRANSPOSE_CONV => with16(weighted(0, 2, 3, 2, 2)),
        Op::PRELU => OpProperties {
            weights: Some(WeightSlot {
                input: 1,
                axis: None,
            }),
            ..plain(1)
        },
        Op::SOFTMAX => with16(fixed((SCALE_1_256, -128), (SCALE_1_32768, 0))),
        Op::LOGISTIC => with16(fixed((SCALE_1_256, -128), (SCALE_1_32768, 0))),
        Op::TANH => with16(fixed((SCALE_1_128, 0), (SCALE_1_32768, 0))),
        Op::LOG_SOFTMAX => fixed((16.0 / 256.0, 127), (16.0 / 256.0, 127)),
        Op::L2_NORMALIZATION => fixed((SCALE_1_128, 0), (SCALE_1_128, 0)),
        Op::AVERAGE_POOL_2D | Op::MAX_POOL_2D => with16(same(2)),
        Op::RESHAPE | Op::SQUEEZE | Op::EXPAND_DIMS => with16(same(1)),
        Op::CONCATENATION => with16(same(2)),
        Op::TRANSPOSE => with16(same(2)),
        Op::SLICE | Op::STRIDED_SLICE => with16(same(2)),
        Op::PAD | Op::PADV2 => with16(same(2)),
        Op::MAXIMUM | Op::MINIMUM => with16(same(2)),
        Op::RESIZE_BILINEAR | Op::RESIZE_NEAREST_NEIGHBOR => with16(same(2)),
        Op::REDUCE_MAX | Op::REDUCE_MIN => with16(same(2)),
        Op::SPLIT | Op::PACK | Op::UNPACK => with16(same(2)),
        Op::SPLIT_V => same(2),
        Op::GATHER => with16(same(2)),
        Op::GATHER_ND => same(2),
        Op::DEPTH_TO_SPACE | Op::SPACE_TO_DEPTH => same(2),
        Op::BATCH_TO_SPACE_ND | Op::SPACE_TO_BATCH_ND => same(2),
        Op::TILE | Op::BROADCAST_TO | Op::MIRROR_PAD => same(2),
        Op::ADD | Op::SUB => with16(plain(2)),
        Op::MUL => with16(plain(2)),
        Op::MEAN | Op::SUM => with16(plain(2)),
        Op::RELU | Op::RELU6 => with16(plain(2)),
        Op::RELU_N1_TO_1 => plain(2),
        Op::LEAKY_RELU => with16(plain(1)),
        Op::HARD_SWISH => plain(1),
        Op::SQUARED_DIFFERENCE | Op::RSQRT | Op::ELU | Op::ABS => plain(2),
        _ => return None,
    };
    Some(p)
}

/// Operator version TF writes for the 16x8 kernel of `op`: the int8 version, except where the
/// int16 kernel came later (LEAKY_RELU 2, TRANSPOSE_CONV 3, as TF 2.21 writes them).
pub fn int16_version(op: Op, p: &OpProperties) -> i32 {
    match op {
        Op::LEAKY_RELU => 2,
        Op::TRANSPOSE_CONV => 3,
        _ => p.int8_version,
    }
}

/// A readable operator name (`CONV_2D`).
pub fn op_name(op: Op) -> String {
    op.variant_name()
        .map_or_else(|| format!("BUILTIN_{}", op.0), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_and_axes() {
        let conv = properties(Op::CONV_2D).expect("conv");
        assert_eq!(conv.weights.map(|w| (w.input, w.axis)), Some((1, Some(0))));
        assert_eq!(conv.bias.map(|b| (b.input, b.activation)), Some((2, 0)));
        let dw = properties(Op::DEPTHWISE_CONV_2D).expect("dw");
        assert_eq!(dw.weights.and_then(|w| w.axis), Some(3));
        let tc = properties(Op::TRANSPOSE_CONV).expect("tconv");
        assert_eq!(
            tc.bias.map(|b| (b.input, b.activation, b.weights)),
            Some((3, 2, 1))
        );
        assert_eq!(
            properties(Op::PRELU)
                .and_then(|p| p.weights)
                .map(|w| w.axis),
            Some(None)
        );
    }

    #[test]
    fn fixed_and_same_scale() {
        let sm = properties(Op::SOFTMAX).and_then(|p| p.fixed_output);
        assert_eq!(sm.map(|f| f.int8), Some((1.0 / 256.0, -128)));
        let tanh = properties(Op::TANH).and_then(|p| p.fixed_output);
        assert_eq!(tanh.map(|f| f.int8), Some((1.0 / 128.0, 0)));
        assert_eq!(tanh.map(|f| f.int16), Some((1.0 / 32768.0, 0)));
        for op in [Op::MAX_POOL_2D, Op::RESHAPE, Op::CONCATENATION, Op::PAD] {
            assert!(properties(op).is_some_and(|p| p.same_scale), "{op:?}");
        }
        assert!(properties(Op::ADD).is_some_and(|p| !p.same_scale));
        assert!(properties(Op::CUSTOM).is_none());
        assert_eq!(op_name(Op::CONV_2D), "CONV_2D");
    }
}
