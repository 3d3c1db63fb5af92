//! The operator registry: which [`BuiltinOperator`](crate::graph::BuiltinOperator)s the engine runs, and the prepare function of
//! each. An operator missing here is reported as unsupported by the engine.

use super::{
    PrepareFn, activations, conv, elementwise, fully_connected, pool, quantize, reduce, resize,
    shape,
};
use crate::graph::BuiltinOperator as Op;

/// Every operator with a prepare function, in the order of the source files.
pub const SUPPORTED: &[Op] = &[
    Op::CONV_2D,
    Op::DEPTHWISE_CONV_2D,
    Op::TRANSPOSE_CONV,
    Op::FULLY_CONNECTED,
    Op::ADD,
    Op::SUB,
    Op::MUL,
    Op::DIV,
    Op::MAXIMUM,
    Op::MINIMUM,
    Op::SQUARED_DIFFERENCE,
    Op::RELU,
    Op::RELU6,
    Op::RELU_N1_TO_1,
    Op::LOGISTIC,
    Op::TANH,
    Op::LEAKY_RELU,
    Op::HARD_SWISH,
    Op::PRELU,
    Op::SOFTMAX,
    Op::AVERAGE_POOL_2D,
    Op::MAX_POOL_2D,
    Op::MEAN,
    Op::SUM,
    Op::REDUCE_MAX,
    Op::RESHAPE,
    Op::SQUEEZE,
    Op::EXPAND_DIMS,
    Op::TRANSPOSE,
    Op::CONCATENATION,
    Op::PAD,
    Op::PADV2,
    Op::STRIDED_SLICE,
    Op::SLICE,
    Op::RESIZE_BILINEAR,
    Op::RESIZE_NEAREST_NEIGHBOR,
    Op::DEQUANTIZE,
    Op::QUANTIZE,
    Op::DENSIFY,
];

/// The prepare function for `op`, or `None` when the engine has no kernel for it.
pub fn lookup(op: Op) -> Option<PrepareFn> {
    Some(match op {
        Op::CONV_2D => conv::prepare_conv2d,
        Op::DEPTHWISE_CONV_2D => conv::prepare_depthwise_conv2d,
        Op::TRANSPOSE_CONV => conv::prepare_transpose_conv,
        Op::FULLY_CONNECTED => fully_connected::prepare_fully_connected,
        Op::ADD
        | Op::SUB
        | Op::MUL
        | Op::DIV
        | Op::MAXIMUM
        | Op::MINIMUM
        | Op::SQUARED_DIFFERENCE => elementwise::prepare_binary,
        Op::RELU
        | Op::RELU6
        | Op::RELU_N1_TO_1
        | Op::LOGISTIC
        | Op::TANH
        | Op::LEAKY_RELU
        | Op::HARD_SWISH
        | Op::SOFTMAX => activations::prepare_unary,
        Op::PRELU => activations::prepare_prelu,
        Op::AVERAGE_POOL_2D | Op::MAX_POOL_2D => pool::prepare_pool,
        Op::MEAN | Op::SUM | Op::REDUCE_MAX => reduce::prepare_reduce,
        Op::RESHAPE => shape::prepare_reshape,
        Op::SQUEEZE => shape::prepare_squeeze,
        Op::EXPAND_DIMS => shape::prepare_expand_dims,
        Op::TRANSPOSE => shape::prepare_transpose,
        Op::CONCATENATION => shape::prepare_concatenation,
        Op::PAD | Op::PADV2 => shape::prepare_pad,
        Op::STRIDED_SLICE => shape::prepare_strided_slice,
        Op::SLICE => shape::prepare_slice,
        Op::RESIZE_BILINEAR | Op::RESIZE_NEAREST_NEIGHBOR => resize::prepare_resize,
        Op::DEQUANTIZE => quantize::prepare_dequantize,
        Op::QUANTIZE => quantize::prepare_quantize,
        Op::DENSIFY => shape::prepare_densify,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_op_has_a_prepare_function() {
        for &op in SUPPORTED {
            assert!(lookup(op).is_some(), "{op:?}");
        }
        assert!(lookup(Op::CUSTOM).is_none());
        assert!(lookup(Op::LSTM).is_none());
    }
}
