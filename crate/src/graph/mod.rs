//! The graph IR: a model as plain Rust data, independent of flatbuffers.
//!
//! [`Model`] holds subgraphs of [`Tensor`]s and [`Operator`]s, the constant [`Buffer`]s, metadata
//! and signatures. It is produced by [`crate::tflite::read()`] and turned back into bytes by
//! [`crate::tflite::write()`]; everything a `.tflite` file says survives that round trip.
//!
//! The IR keeps TFLite's vocabulary (operator codes, tensor types, builtin option tables) because
//! that vocabulary *is* the meaning of a model, but none of flatbuffers' mechanics (offsets,
//! vtables, builders): later layers read shapes, quantization parameters, operator kinds and
//! constant data through ordinary fields and the accessors here. [`dtype`] holds the facts about
//! element types (size, name) that every layer uses; [`shapes`] holds the input shapes a user
//! chooses for a model with dynamic dims (`--shape`, `--batch`); [`sparse`] expands sparse constants
//! (`SparsityParameters`) to dense data, for the engine's constants and the quantizer's DENSIFY
//! folding; [`lint`] says what reads but is odd (warnings).

pub mod dtype;
pub mod lint;
mod model;
pub mod rewrites;
pub mod shapes;
pub mod sparse;
pub mod summary;

pub use model::{
    Buffer, Metadata, Model, OpCode, Operator, QuantParams, Quantization, SignatureDef, Subgraph,
    Tensor, TensorMap, litert_zero_point,
};
pub use shapes::{ResolvedInput, ShapeOverrides, parse_shape_arg};
// The schema's own vocabulary, re-exported so that IR users need not reach into the format layer.
pub use crate::tflite::schema::{
    ActivationFunctionType, BuiltinOperator, BuiltinOptions2T, BuiltinOptionsT,
    CustomOptionsFormat, ExternalBufferGroupT, ExternalBufferT, QuantizationDetailsT,
    SparsityParametersT, TensorType, VariantSubTypeT,
};
