//! [`Model`] → `.tflite` bytes.
//!
//! Two layouts are supported:
//! - inline (the usual one): constant data lives inside the flatbuffer's `Buffer.data` vectors;
//! - external: the flatbuffer's `Buffer` tables carry only `offset`/`size`, and the data follows
//!   the flatbuffer in the same file, each blob aligned to [`EXTERNAL_ALIGN`] bytes. TFLite uses
//!   this layout for models whose constants exceed the flatbuffer 2 GiB limit; we switch to it
//!   automatically past [`INLINE_LIMIT`] bytes of constants, or on request.
//!
//! Operator codes are rebuilt from the operators (one entry per distinct code, in first-use order).

use std::collections::HashMap;

use super::schema;
use crate::error::{Error, Result};
use crate::graph::{Model, OpCode};

/// Alignment of each constant blob in the external layout (matches `force_align: 16` of
/// `Buffer.data`, enough for any element type and for SIMD loads).
pub const EXTERNAL_ALIGN: usize = 16;

/// Constant bytes above which the inline layout is not attempted (the flatbuffer format addresses
/// at most 2 GiB; this leaves room for the graph tables).
pub const INLINE_LIMIT: usize = (1 << 31) - (64 << 20);

/// How to lay out the written file.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions {
    /// Store constant buffers after the flatbuffer (`Buffer.offset/size`) even when they would fit.
    pub external_buffers: bool,
}

/// Writes `model` with default options (inline unless too large). See [`write_with`].
pub fn write(model: &Model) -> Result<Vec<u8>> {
    write_with(model, &WriteOptions::default())
}

/// Serialises `model` into `.tflite` bytes.
pub fn write_with(model: &Model, opts: &WriteOptions) -> Result<Vec<u8>> {
    let constant_bytes = model.constant_bytes();
    if !opts.external_buffers && constant_bytes <= INLINE_LIMIT {
        return Ok(schema::pack_model(&to_schema(model, None)));
    }
    // Pass 1: placeholder offsets (non-zero, so every offset field is present and the flatbuffer
    // has its final size). Pass 2: the real offsets, which only change scalar values.
    let placeholders = vec![u64::MAX; model.buffers.len()];
    let head_len = schema::pack_model(&to_schema(model, Some(&placeholders))).len();
    let mut offsets = vec![0u64; model.buffers.len()];
    let mut end = head_len;
    for (i, b) in model.buffers.iter().enumerate() {
        if b.data.is_empty() {
            continue;
        }
        let start = end.next_multiple_of(EXTERNAL_ALIGN);
        offsets[i] = start as u64;
        end = start
            .checked_add(b.data.len())
            .ok_or_else(|| Error::Write {
                reason: "file size overflows usize".into(),
            })?;
    }
    let mut out = schema::pack_model(&to_schema(model, Some(&offsets)));
    if out.len() != head_len {
        return Err(Error::Write {
            reason: format!(
                "flatbuffer size changed between layout passes ({head_len} → {})",
                out.len()
            ),
        });
    }
    out.reserve(end - out.len());
    for (b, &off) in model.buffers.iter().zip(&offsets) {
        if b.data.is_empty() {
            continue;
        }
        out.resize(off as usize, 0);
        out.extend_from_slice(&b.data);
    }
    Ok(out)
}

/// Builds the flatbuffer object tree. With `external`, buffer `i` with data is written as
/// `offset = external[i], size = len` and no inline data.
fn to_schema(model: &Model, external: Option<&[u64]>) -> schema::ModelT {
    // Operator codes: one per distinct code, in order of first use.
    let mut code_index: HashMap<&OpCode, u32> = HashMap::new();
    let mut codes: Vec<schema::OperatorCodeT> = Vec::new();
    for op in model.subgraphs.iter().flat_map(|s| &s.operators) {
        code_index.entry(&op.code).or_insert_with(|| {
            codes.push(schema::OperatorCodeT {
                deprecated_builtin_code: op.code.deprecated_builtin_code,
                custom_code: op.code.custom_code.clone(),
                version: op.code.version,
                builtin_code: op.code.builtin_code,
            });
            (codes.len() - 1) as u32
        });
    }

    let subgraphs = model
        .subgraphs
        .iter()
        .map(|sg| schema::SubGraphT {
            tensors: Some(
                sg.tensors
                    .iter()
                    .map(|t| schema::TensorT {
                        shape: t.shape.clone(),
                        type_: t.dtype,
                        buffer: t.buffer,
                        name: Some(t.name.clone()),
                        quantization: t.quantization.as_ref().map(|q| {
                            Box::new(schema::QuantizationParametersT {
                                min: q.min.clone(),
                                max: q.max.clone(),
                                scale: q.scale.clone(),
                                zero_point: q.zero_point.clone(),
                                details: q.details.clone(),
                                quantized_dimension: q.quantized_dimension,
                            })
                        }),
                        is_variable: t.is_variable,
                        sparsity: t.sparsity.clone(),
                        shape_signature: t.shape_signature.clone(),
                        has_rank: t.has_rank,
                        variant_tensors: t.variant_tensors.clone(),
                        external_buffer: t.external_buffer,
                    })
                    .collect(),
            ),
            inputs: Some(sg.inputs.clone()),
            outputs: Some(sg.outputs.clone()),
            operators: Some(
                sg.operators
                    .iter()
                    .map(|op| schema::OperatorT {
                        opcode_index: code_index[&op.code],
                        inputs: Some(op.inputs.clone()),
                        outputs: Some(op.outputs.clone()),
                        builtin_options: op.options.clone(),
                        custom_options: op.custom_options.clone(),
                        custom_options_format: op.custom_options_format,
                        mutating_variable_inputs: op.mutating_variable_inputs.clone(),
                        intermediates: op.intermediates.clone(),
                        large_custom_options_offset: 0,
                        large_custom_options_size: 0,
                        builtin_options_2: op.options_2.clone(),
                        debug_metadata_index: op.debug_metadata_index,
                    })
                    .collect(),
            ),
            name: sg.name.clone(),
            debug_metadata_index: sg.debug_metadata_index,
        })
        .collect();

    let buffers = model
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| match external {
            Some(offsets) if !b.data.is_empty() => schema::BufferT {
                data: None,
                offset: offsets[i],
                size: b.data.len() as u64,
            },
            _ => schema::BufferT {
                data: (!b.data.is_empty()).then(|| b.data.clone()),
                offset: 0,
                size: 0,
            },
        })
        .collect();

    let tensor_maps = |v: &[crate::graph::TensorMap]| {
        v.iter()
            .map(|m| schema::TensorMapT {
                name: m.name.clone(),
                tensor_index: m.tensor,
            })
            .collect()
    };

    schema::ModelT {
        version: model.version,
        operator_codes: Some(codes),
        subgraphs: Some(subgraphs),
        description: model.description.clone(),
        buffers: Some(buffers),
        metadata_buffer: model.metadata_buffer.clone(),
        metadata: Some(
            model
                .metadata
                .iter()
                .map(|m| schema::MetadataT {
                    name: m.name.clone(),
                    buffer: m.buffer,
                })
                .collect(),
        ),
        signature_defs: Some(
            model
                .signatures
                .iter()
                // LiteRT refuses a file with a signature that has no key ("Missing exported
                // method name for SignatureDef"): such a signature is not written back
                // (`graph::lint` warns about it).
                .filter(|s| s.key.is_some())
                .map(|s| schema::SignatureDefT {
                    inputs: Some(tensor_maps(&s.inputs)),
                    outputs: Some(tensor_maps(&s.outputs)),
                    signature_key: s.key.clone(),
                    subgraph_index: s.subgraph,
                })
                .collect(),
        ),
        external_buffer_groups: model.external_buffer_groups.clone(),
        external_buffers: model.external_buffers.clone(),
    }
}
