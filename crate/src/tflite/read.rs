//! `.tflite` bytes → [`Model`].
//!
//! Reading happens in three steps: the flatbuffer verifier checks every offset and vector bound
//! (so the rest never reads outside `bytes`), the object API unpacks the tables, and
//! [`validate`] checks what the verifier cannot: indices between tables, buffer sizes against
//! tensor shapes, and data stored outside the flatbuffer (`Buffer.offset/size`).

use super::schema;
use crate::error::{Error, Location, Result};
use crate::graph::{
    Buffer, Metadata, Model, OpCode, Operator, Quantization, SignatureDef, Subgraph, Tensor,
    TensorMap,
};

/// Limits applied while reading.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Most tables the verifier will visit (guards against inputs built to exhaust memory/time).
    pub max_tables: usize,
    /// Deepest table nesting the verifier accepts.
    pub max_depth: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_tables: 10_000_000,
            max_depth: 64,
        }
    }
}

/// Reads a model with default limits. See [`read_with`].
pub fn read(bytes: &[u8]) -> Result<Model> {
    read_with(bytes, &ReadOptions::default())
}

/// Verifies `bytes` as a TFLite flatbuffer and converts it into the IR.
///
/// Never panics on malformed input: every failure is an [`Error`] naming what is wrong.
pub fn read_with(bytes: &[u8], opts: &ReadOptions) -> Result<Model> {
    if bytes.len() < 8 {
        return Err(Error::InvalidFlatbuffer {
            reason: match foreign_format(bytes) {
                Some(kind) => format!("this is {kind}, not a TFLite model"),
                None => format!(
                    "the file is {} bytes long, too short for a TFLite model",
                    bytes.len()
                ),
            },
        });
    }
    // Every TFLite writer stamps the file identifier "TFL3" at bytes 4..8, and LiteRT's
    // `VerifyModelBuffer` refuses a buffer without it: a clear message beats a verifier error
    // about a random table (an image, an archive or a .pb dropped by mistake ends here).
    if &bytes[4..8] != b"TFL3" {
        return Err(Error::InvalidFlatbuffer {
            reason: match foreign_format(bytes) {
                Some(kind) => format!("this is {kind}, not a TFLite model"),
                None => format!(
                    "not a TFLite model: the file identifier (bytes 4 to 8) is {:?}, not \"TFL3\"",
                    String::from_utf8_lossy(&bytes[4..8])
                ),
            },
        });
    }
    let verifier = flatbuffers::VerifierOptions {
        max_depth: opts.max_depth,
        max_tables: opts.max_tables,
        // Buffers stored after the flatbuffer are not reached by the verifier; the flatbuffer
        // part itself is limited to 2 GiB by the format.
        max_apparent_size: 1 << 31,
        ignore_missing_null_terminator: false,
    };
    // Files LiteRT runs that the verifier refuses are read from a repaired copy (see `repair`).
    let repaired: (Vec<u8>, Vec<String>);
    let (root, read_warnings) = match schema::verify_model(&verifier, bytes) {
        Ok(root) => (root, Vec::new()),
        Err(e) if super::repair::repairable(&e) => {
            repaired = super::repair::repair(bytes, &verifier)?;
            let root = schema::verify_model(&verifier, &repaired.0).map_err(|e| {
                Error::InvalidFlatbuffer {
                    reason: verifier_words(&e, bytes.len()),
                }
            })?;
            (root, repaired.1.clone())
        }
        Err(e) => {
            return Err(Error::InvalidFlatbuffer {
                reason: verifier_words(&e, bytes.len()),
            });
        }
    };
    let raw = root.unpack();
    let mut model = from_schema(raw, bytes)?;
    model.read_warnings = read_warnings;
    validate(&model)?;
    Ok(model)
}

/// What a file that is not a TFLite model is, from its first bytes ("a PNG image"), for the
/// formats people drop by mistake.
fn foreign_format(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"RIFF", "a RIFF file (WebP image or WAV audio)"),
        (b"BM", "a BMP image"),
        (b"%PDF", "a PDF document"),
        (
            b"PK\x03\x04",
            "a ZIP archive (a .task, .keras or .zip file)",
        ),
        (b"\x1f\x8b", "a gzip archive"),
        (b"\x89HDF\r\n\x1a\n", "an HDF5 file (a Keras .h5 model)"),
        (b"\x93NUMPY", "a NumPy .npy array"),
        (b"\x7fELF", "an executable (ELF)"),
        (b"{", "a JSON text"),
    ];
    MAGIC
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|&(_, kind)| kind)
}

/// The flatbuffer verifier's complaint in a user's words: a range past the end of the file is a
/// truncated file, or an offset a flipped bit sent past the end (both sizes said); anything else is a corrupt file, the verifier's detail kept
/// on one line.
pub(super) fn verifier_words(e: &flatbuffers::InvalidFlatbuffer, len: usize) -> String {
    use flatbuffers::InvalidFlatbuffer as V;
    match e {
        V::RangeOutOfBounds { range, .. } if range.end > len && range.end <= 1 << 31 => {
            format!(
                "the file is truncated or corrupt: {len} bytes, the model needs at least {}",
                range.end
            )
        }
        V::RangeOutOfBounds { range, .. } => format!(
            "the file is corrupt: an offset points at bytes {}..{} of the {len}-byte file",
            range.start, range.end
        ),
        V::Unaligned {
            position,
            unaligned_type,
            ..
        } => format!(
            "the file is corrupt: a {unaligned_type} at byte {position} is not aligned as the \
             format requires"
        ),
        V::SignedOffsetOutOfBounds { position, .. } => format!(
            "the file is corrupt: an offset at byte {position} points outside the {len}-byte file"
        ),
        V::Utf8Error { range, .. } => format!(
            "the file is corrupt: the string at bytes {}..{} is not UTF-8 (TFLite names are \
             text)",
            range.start, range.end
        ),
        other => {
            // The verifier's message spans lines (error, then the path of fields); keep one.
            let text = other
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            format!("the file is corrupt: {text}")
        }
    }
}

/// Slices `len` bytes at `offset` of the file, for data stored outside the flatbuffer.
fn external<'a>(bytes: &'a [u8], offset: u64, len: u64, what: &str) -> Result<&'a [u8]> {
    let range = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(len).ok())
        .and_then(|(o, l)| Some(o..o.checked_add(l)?))
        .filter(|r| r.end <= bytes.len());
    match range {
        Some(r) => Ok(&bytes[r]),
        None => Err(Error::InvalidFlatbuffer {
            reason: match offset.checked_add(len).filter(|&end| end <= 1 << 40) {
                Some(end) => format!(
                    "the file is truncated or corrupt: {} bytes, the model needs at least {end} \
                     ({what} is stored at offset {offset} with size {len}, past the end)",
                    bytes.len()
                ),
                None => format!(
                    "the file is corrupt: {what} is stored at offset {offset} with size {len}, \
                     past the end of the {}-byte file",
                    bytes.len()
                ),
            },
        }),
    }
}

/// Converts the unpacked flatbuffer tables into the IR, resolving operator codes and external data.
fn from_schema(raw: schema::ModelT, bytes: &[u8]) -> Result<Model> {
    let codes: Vec<OpCode> = raw
        .operator_codes
        .unwrap_or_default()
        .into_iter()
        .map(|c| OpCode {
            builtin_code: c.builtin_code,
            deprecated_builtin_code: c.deprecated_builtin_code,
            custom_code: c.custom_code,
            version: c.version,
        })
        .collect();

    let buffers = raw
        .buffers
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            // LiteRT treats offset 0 and 1 as "not stored outside"; anything larger is a file offset.
            let data = if b.offset > 1 {
                external(bytes, b.offset, b.size, &format!("buffer {i}"))?.to_vec()
            } else {
                b.data.unwrap_or_default()
            };
            Ok(Buffer { data })
        })
        .collect::<Result<Vec<_>>>()?;

    let mut subgraphs = Vec::new();
    for (sg_index, sg) in raw.subgraphs.unwrap_or_default().into_iter().enumerate() {
        let tensors = sg
            .tensors
            .unwrap_or_default()
            .into_iter()
            .map(|t| Tensor {
                name: t.name.unwrap_or_default(),
                shape: t.shape,
                shape_signature: t.shape_signature,
                dtype: t.type_,
                buffer: t.buffer,
                quantization: t.quantization.map(|q| Quantization {
                    min: q.min,
                    max: q.max,
                    scale: q.scale,
                    zero_point: q.zero_point,
                    quantized_dimension: q.quantized_dimension,
                    details: q.details,
                }),
                is_variable: t.is_variable,
                sparsity: t.sparsity,
                has_rank: t.has_rank,
                variant_tensors: t.variant_tensors,
                external_buffer: t.external_buffer,
            })
            .collect();
        let mut operators = Vec::new();
        for (op_index, op) in sg.operators.unwrap_or_default().into_iter().enumerate() {
            let code = codes
                .get(op.opcode_index as usize)
                .cloned()
                .ok_or_else(|| Error::InconsistentModel {
                    at: Location {
                        subgraph: sg_index,
                        item: format!("operator {op_index}"),
                    },
                    reason: format!(
                        "opcode_index {} is out of range (the model has {} operator codes)",
                        op.opcode_index,
                        codes.len()
                    ),
                })?;
            let custom_options = if op.large_custom_options_offset > 1 {
                let what = format!("custom options of operator {op_index} in subgraph {sg_index}");
                Some(
                    external(
                        bytes,
                        op.large_custom_options_offset,
                        op.large_custom_options_size,
                        &what,
                    )?
                    .to_vec(),
                )
            } else {
                op.custom_options
            };
            operators.push(Operator {
                code,
                inputs: op.inputs.unwrap_or_default(),
                outputs: op.outputs.unwrap_or_default(),
                intermediates: op.intermediates,
                options: op.builtin_options,
                options_2: op.builtin_options_2,
                custom_options,
                custom_options_format: op.custom_options_format,
                mutating_variable_inputs: op.mutating_variable_inputs,
                debug_metadata_index: op.debug_metadata_index,
            });
        }
        subgraphs.push(Subgraph {
            name: sg.name,
            tensors,
            inputs: sg.inputs.unwrap_or_default(),
            outputs: sg.outputs.unwrap_or_default(),
            operators,
            debug_metadata_index: sg.debug_metadata_index,
        });
    }

    let tensor_maps = |v: Option<Vec<schema::TensorMapT>>| {
        v.unwrap_or_default()
            .into_iter()
            .map(|m| TensorMap {
                name: m.name,
                tensor: m.tensor_index,
            })
            .collect()
    };
    let signatures = raw
        .signature_defs
        .unwrap_or_default()
        .into_iter()
        .map(|s| SignatureDef {
            key: s.signature_key,
            subgraph: s.subgraph_index,
            inputs: tensor_maps(s.inputs),
            outputs: tensor_maps(s.outputs),
        })
        .collect();
    let metadata = raw
        .metadata
        .unwrap_or_default()
        .into_iter()
        .map(|m| Metadata {
            name: m.name,
            buffer: m.buffer,
        })
        .collect();

    Ok(Model {
        version: raw.version,
        description: raw.description,
        subgraphs,
        buffers,
        metadata,
        metadata_buffer: raw.metadata_buffer,
        signatures,
        external_buffer_groups: raw.external_buffer_groups,
        external_buffers: raw.external_buffers,
        read_warnings: Vec::new(),
    })
}

/// Checks the cross-references the flatbuffer verifier cannot see and LiteRT relies on.
///
/// Public so that code building or editing a [`Model`] can check it before writing.
pub fn validate(model: &Model) -> Result<()> {
    // Metadata, `metadata_buffer` and signature defs that point past the buffer or tensor lists
    // are not errors: LiteRT ignores them (Google's AI Edge Quantizer writes such
    // `metadata_buffer` entries), so the model reads, `graph::lint` warns, and they are kept.
    for (si, sg) in model.subgraphs.iter().enumerate() {
        validate_subgraph(model, si, sg)?;
    }
    Ok(())
}

fn validate_subgraph(model: &Model, si: usize, sg: &Subgraph) -> Result<()> {
    let nt = sg.tensors.len();
    let at = |item: String| Location { subgraph: si, item };
    let check = |list: &[i32], allow_omitted: bool, what: &str, item: &dyn Fn() -> String| {
        for &t in list {
            let ok = (allow_omitted && t == -1) || usize::try_from(t).is_ok_and(|t| t < nt);
            if !ok {
                return Err(Error::InconsistentModel {
                    at: at(item()),
                    reason: format!(
                        "{what} refers to tensor {t}, but the subgraph has {nt} tensors"
                    ),
                });
            }
        }
        Ok(())
    };
    check(&sg.inputs, false, "subgraph input", &|| "inputs".into())?;
    check(&sg.outputs, false, "subgraph output", &|| "outputs".into())?;
    for (oi, op) in sg.operators.iter().enumerate() {
        let item = || format!("operator {oi} ({})", op.code.name());
        check(&op.inputs, true, "an input", &item)?;
        check(&op.outputs, true, "an output", &item)?;
        // `intermediates` out of range are left to `graph::lint` (LiteRT ignores them on every
        // operator the engine runs).
    }
    for (ti, t) in sg.tensors.iter().enumerate() {
        let item = || format!("tensor {ti} '{}'", t.name);
        let Some(buf) = model.buffers.get(t.buffer as usize) else {
            return Err(Error::InconsistentModel {
                at: at(item()),
                reason: format!(
                    "uses buffer {} but the model has {} buffers",
                    t.buffer,
                    model.buffers.len()
                ),
            });
        };
        let n_ext = model.external_buffers.as_ref().map_or(0, Vec::len);
        if t.external_buffer != 0 && t.external_buffer as usize >= n_ext {
            return Err(Error::InconsistentModel {
                at: at(item()),
                reason: format!(
                    "uses external buffer {} but the model lists {n_ext}",
                    t.external_buffer
                ),
            });
        }
        // LiteRT's `InterpreterBuilder` refuses the whole file at load ("is a variable tensor
        // with buffer or external buffer. It's not supported now."): a state has no initial data.
        if t.is_variable && (t.buffer != 0 && !buf.data.is_empty() || t.external_buffer != 0) {
            return Err(Error::InconsistentModel {
                at: at(item()),
                reason: "a variable (state) tensor with constant data: LiteRT refuses it at load"
                    .into(),
            });
        }
        if buf.data.is_empty() || t.sparsity.is_some() || t.buffer == 0 {
            continue;
        }
        // A dense constant must hold at least shape × element-size bytes.
        if t.dims().iter().any(|&d| d < 0) {
            return Err(Error::InconsistentModel {
                at: at(item()),
                reason: format!(
                    "constant tensor has a negative dimension in shape {:?}",
                    t.dims()
                ),
            });
        }
        match t.dense_byte_len() {
            Some(need) if buf.data.len() < need => {
                return Err(Error::InconsistentModel {
                    at: at(item()),
                    reason: format!(
                        "buffer {} holds {} bytes but shape {:?} of {} needs {need}",
                        t.buffer,
                        buf.data.len(),
                        t.dims(),
                        crate::graph::dtype::dtype_name(t.dtype)
                    ),
                });
            }
            None if t.num_elements().is_none() => {
                return Err(Error::TooLarge {
                    what: format!("tensor {ti} '{}' in subgraph {si}", t.name),
                    detail: format!("shape {:?} overflows the element count", t.dims()),
                });
            }
            _ => {}
        }
    }
    Ok(())
}
