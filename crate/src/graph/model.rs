//! The IR types: model, subgraph, tensor, operator, buffer.

use super::{
    BuiltinOperator, BuiltinOptions2T, BuiltinOptionsT, CustomOptionsFormat, ExternalBufferGroupT,
    ExternalBufferT, QuantizationDetailsT, SparsityParametersT, TensorType, VariantSubTypeT,
};
use crate::graph::dtype::element_size;

/// A whole model: what one `.tflite` file holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// Schema version the file declares (3 for every current TFLite model).
    pub version: u32,
    /// Free-text description (TF's converter writes "MLIR Converted.").
    pub description: Option<String>,
    /// Subgraphs; subgraph 0 is the main graph.
    pub subgraphs: Vec<Subgraph>,
    /// Constant data. Tensors and metadata refer to buffers by index; by convention buffer 0 is
    /// empty and used by tensors without constant data.
    pub buffers: Vec<Buffer>,
    /// Named metadata entries (each pointing at a buffer).
    pub metadata: Vec<Metadata>,
    /// The legacy `metadata_buffer` list of buffer indices, kept as found.
    pub metadata_buffer: Option<Vec<i32>>,
    /// Signature definitions (named entry points).
    pub signatures: Vec<SignatureDef>,
    /// Groups (files) holding data stored outside the model file, kept as found.
    pub external_buffer_groups: Option<Vec<ExternalBufferGroupT>>,
    /// Slices of those files that tensors refer to, kept as found.
    pub external_buffers: Option<Vec<ExternalBufferT>>,
    /// What the reader tolerated and changed, one sentence each (a name that is not UTF-8, read
    /// with `?` for its invalid bytes): reported by [`crate::graph::lint::warnings`], not written.
    pub read_warnings: Vec<String>,
}

/// One subgraph: tensors, operators in execution order, and its inputs and outputs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Subgraph {
    /// Name, if any.
    pub name: Option<String>,
    /// All tensors of the subgraph; operators refer to them by index.
    pub tensors: Vec<Tensor>,
    /// Indices of input tensors.
    pub inputs: Vec<i32>,
    /// Indices of output tensors.
    pub outputs: Vec<i32>,
    /// Operators, in the order they must run.
    pub operators: Vec<Operator>,
    /// Index into the model's debug metadata, or -1.
    pub debug_metadata_index: i32,
}

/// A tensor: shape, element type, optional constant data and quantization.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Tensor name (not necessarily unique).
    pub name: String,
    /// Static shape; `None` when the file leaves it out (a scalar or unknown-rank tensor).
    pub shape: Option<Vec<i32>>,
    /// Shape with -1 for dynamic dimensions, when the model has one.
    pub shape_signature: Option<Vec<i32>>,
    /// Element type.
    pub dtype: TensorType,
    /// Index into [`Model::buffers`]; 0 means "no constant data".
    pub buffer: u32,
    /// Quantization parameters, when present.
    pub quantization: Option<Quantization>,
    /// Whether this is a variable (stateful) tensor.
    pub is_variable: bool,
    /// Sparse storage description, when the constant data is stored sparsely.
    pub sparsity: Option<Box<SparsityParametersT>>,
    /// Whether the rank is known (meaningful for shape-less tensors).
    pub has_rank: bool,
    /// Subtypes of variant tensors.
    pub variant_tensors: Option<Vec<VariantSubTypeT>>,
    /// Index into [`Model::external_buffers`] for data kept in a separate file; 0 = none.
    pub external_buffer: u32,
}

impl Tensor {
    /// A new activation tensor (no constant data, no quantization).
    pub fn new(name: impl Into<String>, dtype: TensorType, shape: Vec<i32>) -> Self {
        Tensor {
            name: name.into(),
            shape: Some(shape),
            shape_signature: None,
            dtype,
            buffer: 0,
            quantization: None,
            is_variable: false,
            sparsity: None,
            has_rank: false,
            variant_tensors: None,
            external_buffer: 0,
        }
    }

    /// The static shape, empty for scalars.
    pub fn dims(&self) -> &[i32] {
        self.shape.as_deref().unwrap_or(&[])
    }

    /// Number of elements of the static shape, or `None` if a dimension is negative or the product
    /// overflows `usize`.
    pub fn num_elements(&self) -> Option<usize> {
        self.dims().iter().try_fold(1usize, |acc, &d| {
            usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        })
    }

    /// Bytes a dense constant of this shape and type must hold, when the type has a fixed size.
    /// Sub-byte types (INT4) are packed two to a byte.
    pub fn dense_byte_len(&self) -> Option<usize> {
        let n = self.num_elements()?;
        match self.dtype {
            TensorType::INT4 => Some(n.div_ceil(2)),
            t => element_size(t)?.checked_mul(n),
        }
    }
}

/// Affine quantization parameters: `real = scale · (q − zero_point)`.
///
/// Per-tensor quantization has one scale and zero point; per-axis quantization has one per slice
/// along `quantized_dimension`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Quantization {
    /// Recorded minimum(s) of the float range, if any.
    pub min: Option<Vec<f32>>,
    /// Recorded maximum(s) of the float range, if any.
    pub max: Option<Vec<f32>>,
    /// Scale(s).
    pub scale: Option<Vec<f32>>,
    /// Zero point(s).
    pub zero_point: Option<Vec<i64>>,
    /// Axis along which per-channel parameters apply.
    pub quantized_dimension: i32,
    /// Non-affine quantization details (custom or blockwise), kept as found.
    pub details: QuantizationDetailsT,
}

impl Quantization {
    /// Scales, empty when absent.
    pub fn scales(&self) -> &[f32] {
        self.scale.as_deref().unwrap_or(&[])
    }
    /// Zero points, empty when absent.
    pub fn zero_points(&self) -> &[i64] {
        self.zero_point.as_deref().unwrap_or(&[])
    }
}

/// A zero point as LiteRT's interpreter reads it: the schema stores an `int64`, LiteRT copies it
/// into a C `int` (its low 32 bits, two's complement), so 2^40 runs as 0 and -2^32 + 1 as 1.
/// `graph::lint` warns about the zero points this changes; the field is kept as found.
pub fn litert_zero_point(z: i64) -> i32 {
    // Truncation is the point: this is what LiteRT's conversion does.
    #[allow(clippy::cast_possible_truncation)]
    let low = z as i32;
    low
}

/// A constant data blob.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Buffer {
    /// The bytes (little-endian element data, or arbitrary bytes for metadata).
    pub data: Vec<u8>,
}

/// Which operator an [`Operator`] runs, as the file's operator-code table states it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OpCode {
    /// The builtin operator (for custom ops: `CUSTOM`).
    pub builtin_code: BuiltinOperator,
    /// The legacy 8-bit code field; older writers fill only this one.
    pub deprecated_builtin_code: i8,
    /// Name of a custom operator.
    pub custom_code: Option<String>,
    /// Operator version.
    pub version: i32,
}

impl OpCode {
    /// A builtin operator code at the given version, with both code fields filled as TF does.
    pub fn builtin(op: BuiltinOperator, version: i32) -> Self {
        // The 8-bit field saturates at 127 (PLACEHOLDER_FOR_GREATER_OP_CODES).
        let deprecated = i8::try_from(op.0).unwrap_or(127);
        OpCode {
            builtin_code: op,
            deprecated_builtin_code: deprecated,
            custom_code: None,
            version,
        }
    }

    /// The operator this code denotes, reconciling the two code fields the way LiteRT does
    /// (the larger of the two: files written before the 32-bit field only fill the 8-bit one).
    pub fn op(&self) -> BuiltinOperator {
        BuiltinOperator(
            self.builtin_code
                .0
                .max(i32::from(self.deprecated_builtin_code)),
        )
    }

    /// A readable name: the builtin name (`CONV_2D`), or the custom code for custom ops.
    pub fn name(&self) -> String {
        let op = self.op();
        if op == BuiltinOperator::CUSTOM
            && let Some(c) = &self.custom_code
        {
            return c.clone();
        }
        match op.variant_name() {
            Some(n) => n.to_string(),
            None => format!("BUILTIN_{}", op.0),
        }
    }
}

/// One operator node.
#[derive(Debug, Clone, PartialEq)]
pub struct Operator {
    /// What it runs.
    pub code: OpCode,
    /// Input tensor indices; -1 marks an omitted optional input.
    pub inputs: Vec<i32>,
    /// Output tensor indices.
    pub outputs: Vec<i32>,
    /// Intermediate tensors (used by some LSTM kernels), when present.
    pub intermediates: Option<Vec<i32>>,
    /// Builtin options table.
    pub options: BuiltinOptionsT,
    /// Second builtin options table (newer operators, e.g. StableHLO).
    pub options_2: BuiltinOptions2T,
    /// Custom options bytes (for custom operators; resolved from the large-options area if the
    /// file stored them outside the flatbuffer).
    pub custom_options: Option<Vec<u8>>,
    /// Format of `custom_options`.
    pub custom_options_format: CustomOptionsFormat,
    /// Which inputs are mutated variables, when stated.
    pub mutating_variable_inputs: Option<Vec<bool>>,
    /// Index into the model's debug metadata, or -1.
    pub debug_metadata_index: i32,
}

impl Operator {
    /// An operator with these code, tensors and builtin options, and nothing else (no second
    /// options table, custom options, intermediates or debug metadata): what the quantizer
    /// inserts and what tests build.
    pub fn new(
        code: OpCode,
        inputs: Vec<i32>,
        outputs: Vec<i32>,
        options: BuiltinOptionsT,
    ) -> Self {
        Operator {
            code,
            inputs,
            outputs,
            intermediates: None,
            options,
            options_2: BuiltinOptions2T::NONE,
            custom_options: None,
            custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
            mutating_variable_inputs: None,
            debug_metadata_index: -1,
        }
    }

    /// The input tensor at position `i`, or `None` when absent or omitted (-1).
    pub fn input(&self, i: usize) -> Option<usize> {
        self.inputs.get(i).and_then(|&t| usize::try_from(t).ok())
    }

    /// The output tensor at position `i`, if present.
    pub fn output(&self, i: usize) -> Option<usize> {
        self.outputs.get(i).and_then(|&t| usize::try_from(t).ok())
    }
}

/// A named metadata entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metadata {
    /// Name (e.g. `min_runtime_version`, `TFLITE_METADATA`).
    pub name: Option<String>,
    /// Index of the buffer holding its bytes.
    pub buffer: u32,
}

/// A signature: a named entry point mapping names to tensors of one subgraph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SignatureDef {
    /// Signature key (e.g. `serving_default`).
    pub key: Option<String>,
    /// Subgraph the signature runs.
    pub subgraph: u32,
    /// Named inputs.
    pub inputs: Vec<TensorMap>,
    /// Named outputs.
    pub outputs: Vec<TensorMap>,
}

/// A (name, tensor index) pair of a signature.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TensorMap {
    /// Name in the signature.
    pub name: Option<String>,
    /// Tensor index within the signature's subgraph.
    pub tensor: u32,
}

impl Model {
    /// The constant data of tensor `t` in subgraph `sg`, if it has any.
    pub fn tensor_data(&self, sg: usize, t: usize) -> Option<&[u8]> {
        let tensor = self.subgraphs.get(sg)?.tensors.get(t)?;
        let buf = self.buffers.get(tensor.buffer as usize)?;
        (tensor.buffer != 0 && !buf.data.is_empty()).then_some(buf.data.as_slice())
    }

    /// Total bytes of constant data held in buffers.
    pub fn constant_bytes(&self) -> usize {
        self.buffers.iter().map(|b| b.data.len()).sum()
    }
}

/// Affine quantization parameters of one tensor (or one channel): `real = scale · (q − zero_point)`.
/// The one such type: the quantizer chooses them, the ops read them from a tensor's
/// [`Quantization`] at prepare time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantParams {
    /// The step between two adjacent quantized values, in real units (finite, positive).
    pub scale: f32,
    /// The quantized value that represents real 0.0 exactly.
    pub zero_point: i32,
}
