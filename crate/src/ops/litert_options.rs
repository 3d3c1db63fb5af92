//! How an operator's builtin options are read, as LiteRT reads them.
//!
//! LiteRT's `ParseOpData` (`flatbuffer_conversions.cc`) allocates the op's C params struct
//! zeroed and fills it only when `builtin_options_as_X()` is non-null, which needs both the
//! union type to be the op's own and the table to be present. Otherwise it keeps the zeroed
//! struct: an operator whose options table is missing or of another type runs with every field
//! zero. That is not always the schema's default: `Conv2DOptions` and `DepthwiseConv2DOptions`
//! have dilation factors 1 in the schema (0 in LiteRT's struct, and CONV_2D then fails on its
//! zero stride anyway), and `AddOptions` / `SubOptions` have `pot_scale_int16 = true` in the
//! schema (false in LiteRT's struct, which changes the int16 arithmetic). [`LiteRtDefault`]
//! gives LiteRT's zeroed values; `options!` reads an operator's options with them, and
//! [`options_kind`] names the table each operator reads, for the lint warning
//! ([`crate::graph::lint::warnings`]) on a table of another type. The file's options are never
//! changed: the writer keeps them as found.

use crate::graph::BuiltinOperator as Op;
use crate::tflite::schema::{
    AddOptionsT, ArgMaxOptionsT, ArgMinOptionsT, BatchMatMulOptionsT,
    BidirectionalSequenceLSTMOptionsT, BuiltinOptions, BuiltinOptionsT, CallOnceOptionsT,
    ConcatenationOptionsT, Conv2DOptionsT, CumsumOptionsT, DepthToSpaceOptionsT,
    DepthwiseConv2DOptionsT, DivOptionsT, FullyConnectedOptionsT, GatherOptionsT, GeluOptionsT,
    IfOptionsT, L2NormOptionsT, LeakyReluOptionsT, MirrorPadOptionsT, MulOptionsT, PackOptionsT,
    Pool2DOptionsT, ReducerOptionsT, ReshapeOptionsT, ResizeBilinearOptionsT,
    ResizeNearestNeighborOptionsT, SequenceRNNOptionsT, SoftmaxOptionsT, SpaceToDepthOptionsT,
    SplitOptionsT, SplitVOptionsT, SqueezeOptionsT, StridedSliceOptionsT, SubOptionsT, TensorType,
    TransposeConvOptionsT, UnidirectionalSequenceLSTMOptionsT, UnpackOptionsT, VarHandleOptionsT,
    WhileOptionsT,
};

/// The options LiteRT runs an operator with when its file gives none of the right type: the
/// zeroed C params struct.
pub trait LiteRtDefault: Default {
    /// LiteRT's zeroed options (the schema's defaults where those are all zero).
    fn litert_default() -> Self {
        Self::default()
    }
}

/// Options tables whose schema defaults are all zero (or null), so LiteRT's zeroed struct
/// equals `Default`.
macro_rules! zero_defaults {
    ($($t:ty),* $(,)?) => { $(impl LiteRtDefault for $t {})* };
}
zero_defaults!(
    ArgMaxOptionsT,
    ArgMinOptionsT,
    BatchMatMulOptionsT,
    CallOnceOptionsT,
    ConcatenationOptionsT,
    CumsumOptionsT,
    DepthToSpaceOptionsT,
    DivOptionsT,
    FullyConnectedOptionsT,
    GatherOptionsT,
    GeluOptionsT,
    IfOptionsT,
    L2NormOptionsT,
    LeakyReluOptionsT,
    MirrorPadOptionsT,
    MulOptionsT,
    PackOptionsT,
    Pool2DOptionsT,
    ReducerOptionsT,
    ReshapeOptionsT,
    ResizeBilinearOptionsT,
    ResizeNearestNeighborOptionsT,
    SequenceRNNOptionsT,
    SoftmaxOptionsT,
    SpaceToDepthOptionsT,
    SplitOptionsT,
    SplitVOptionsT,
    SqueezeOptionsT,
    StridedSliceOptionsT,
    TransposeConvOptionsT,
    UnidirectionalSequenceLSTMOptionsT,
    UnpackOptionsT,
    VarHandleOptionsT,
    WhileOptionsT,
);

impl LiteRtDefault for Conv2DOptionsT {
    fn litert_default() -> Self {
        Self {
            dilation_w_factor: 0,
            dilation_h_factor: 0,
            ..Self::default()
        }
    }
}

impl LiteRtDefault for DepthwiseConv2DOptionsT {
    fn litert_default() -> Self {
        Self {
            dilation_w_factor: 0,
            dilation_h_factor: 0,
            ..Self::default()
        }
    }
}

impl LiteRtDefault for BidirectionalSequenceLSTMOptionsT {
    fn litert_default() -> Self {
        // The schema's default time_major is true; LiteRT's zeroed struct has false.
        Self {
            time_major: false,
            ..Self::default()
        }
    }
}

impl LiteRtDefault for AddOptionsT {
    fn litert_default() -> Self {
        Self {
            pot_scale_int16: false,
            ..Self::default()
        }
    }
}

impl LiteRtDefault for SubOptionsT {
    fn litert_default() -> Self {
        Self {
            pot_scale_int16: false,
            ..Self::default()
        }
    }
}

/// Extracts an operator's builtin options table of kind `$variant`, or LiteRT's zeroed defaults
/// ([`LiteRtDefault`]) when the operator has none or one of another kind, as LiteRT reads it
/// (the lint warns about the other kind).
macro_rules! options {
    ($ctx:expr, $variant:ident, $ty:ty) => {
        match &$ctx.op.options {
            $crate::graph::BuiltinOptionsT::$variant(o) => {
                Ok::<$ty, $crate::error::OpIssue>((**o).clone())
            }
            _ => Ok(<$ty as $crate::ops::litert_options::LiteRtDefault>::litert_default()),
        }
    };
}
pub(crate) use options;

/// The options table an operator's prepare reads (with `options!`), or `None` for operators
/// that read none. Keep in step with the `options!` calls; `tests/rust/op_table.rs` checks it
/// against the tables TF writes in every shipped model.
pub fn options_kind(op: Op) -> Option<BuiltinOptions> {
    use BuiltinOptions as O;
    Some(match op {
        Op::CONV_2D => O::Conv2DOptions,
        Op::DEPTHWISE_CONV_2D => O::DepthwiseConv2DOptions,
        Op::TRANSPOSE_CONV => O::TransposeConvOptions,
        Op::FULLY_CONNECTED => O::FullyConnectedOptions,
        Op::BATCH_MATMUL => O::BatchMatMulOptions,
        Op::ADD => O::AddOptions,
        Op::SUB => O::SubOptions,
        Op::MUL => O::MulOptions,
        Op::DIV => O::DivOptions,
        Op::LEAKY_RELU => O::LeakyReluOptions,
        Op::SOFTMAX => O::SoftmaxOptions,
        Op::GELU => O::GeluOptions,
        Op::AVERAGE_POOL_2D | Op::MAX_POOL_2D => O::Pool2DOptions,
        Op::MEAN | Op::SUM | Op::REDUCE_MAX | Op::REDUCE_MIN | Op::REDUCE_PROD | Op::REDUCE_ANY => {
            O::ReducerOptions
        }
        Op::CUMSUM => O::CumsumOptions,
        Op::ARG_MAX => O::ArgMaxOptions,
        Op::ARG_MIN => O::ArgMinOptions,
        Op::RESHAPE => O::ReshapeOptions,
        Op::SQUEEZE => O::SqueezeOptions,
        Op::CONCATENATION => O::ConcatenationOptions,
        Op::STRIDED_SLICE => O::StridedSliceOptions,
        Op::DEPTH_TO_SPACE => O::DepthToSpaceOptions,
        Op::SPACE_TO_DEPTH => O::SpaceToDepthOptions,
        Op::GATHER => O::GatherOptions,
        Op::MIRROR_PAD => O::MirrorPadOptions,
        Op::PACK => O::PackOptions,
        Op::L2_NORMALIZATION => O::L2NormOptions,
        Op::SPLIT => O::SplitOptions,
        Op::SPLIT_V => O::SplitVOptions,
        Op::UNPACK => O::UnpackOptions,
        Op::RESIZE_BILINEAR => O::ResizeBilinearOptions,
        Op::RESIZE_NEAREST_NEIGHBOR => O::ResizeNearestNeighborOptions,
        Op::UNIDIRECTIONAL_SEQUENCE_LSTM => O::UnidirectionalSequenceLSTMOptions,
        Op::BIDIRECTIONAL_SEQUENCE_LSTM => O::BidirectionalSequenceLSTMOptions,
        Op::UNIDIRECTIONAL_SEQUENCE_RNN => O::SequenceRNNOptions,
        Op::WHILE => O::WhileOptions,
        Op::IF => O::IfOptions,
        Op::VAR_HANDLE => O::VarHandleOptions,
        Op::CALL_ONCE => O::CallOnceOptions,
        _ => return None,
    })
}

/// Why LiteRT refuses to load a model for this operator's options, if it does: the
/// `quantized_bias_type` of CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV options goes through
/// LiteRT's `ConvertTensorType`, which fails the whole file on a value outside the schema's
/// `TensorType` enum ("Unsupported data type 100 in tensor"; measured with LiteRT 2.3 on values
/// −1, 23 and 100; 0 to 22 load). The engine refuses such an operator and the quantizer never
/// writes one back.
pub fn options_refusal(options: &BuiltinOptionsT) -> Option<String> {
    let t = match options {
        BuiltinOptionsT::Conv2DOptions(o) => o.quantized_bias_type,
        BuiltinOptionsT::FullyConnectedOptions(o) => o.quantized_bias_type,
        BuiltinOptionsT::TransposeConvOptions(o) => o.quantized_bias_type,
        _ => return None,
    };
    (t.0 < TensorType::ENUM_MIN || t.0 > TensorType::ENUM_MAX).then(|| {
        format!(
            "quantized_bias_type {} is not a tensor type (LiteRT refuses the file: \"Unsupported \
             data type {} in tensor\")",
            t.0, t.0
        )
    })
}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    #[test]
    fn quantized_bias_type_outside_the_enum_is_refused() {
        let conv = |t: i8| {
            BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
                quantized_bias_type: TensorType(t),
                ..Default::default()
            }))
        };
        assert_eq!(options_refusal(&conv(0)), None);
        assert_eq!(options_refusal(&conv(22)), None);
        assert!(options_refusal(&conv(23)).is_some_and(|r| r.contains("Unsupported data type 23")));
        assert!(options_refusal(&conv(100)).is_some());
        let fc = BuiltinOptionsT::FullyConnectedOptions(Box::new(FullyConnectedOptionsT {
            quantized_bias_type: TensorType(-1),
            ..Default::default()
        }));
        assert!(options_refusal(&fc).is_some());
        assert_eq!(options_refusal(&BuiltinOptionsT::NONE), None);
    }
}
