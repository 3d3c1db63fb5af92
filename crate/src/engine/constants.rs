//! The constant store and constant folding at prepare time: byte blobs packed at aligned
//! offsets, fallible zeroed allocations, and shape arithmetic on constants run once.

use std::borrow::Cow;

use super::declared::byte_len;
use super::plan;
use crate::error::{Error, IssueKind, OpIssue, Result};
use crate::graph::Model;
use crate::graph::TensorType;
use crate::graph::dtype::{dtype_name, element_size};
use crate::ops::{Kernel, OpIo, Region};

/// Largest output [`fold_shape_arithmetic`] computes at prepare time, in bytes.
const FOLD_MAX_BYTES: usize = 4096;

/// Shape arithmetic on constants: an operator with an INT32/INT64 output of at most
/// [`FOLD_MAX_BYTES`] whose inputs are all constants (STRIDED_SLICE or PACK of a folded SHAPE, …)
/// runs once here, so that the operators after it (RESHAPE's shape, FILL's dims) read its output
/// as a constant. `None` when the operator does not qualify.
pub(super) fn fold_shape_arithmetic(
    kernel: &mut dyn Kernel,
    inputs: &[Option<usize>],
    data: &[Option<Cow<'_, [u8]>>],
    dtype: TensorType,
    out_len: usize,
) -> Option<Vec<u8>> {
    if !matches!(dtype, TensorType::INT32 | TensorType::INT64) || out_len > FOLD_MAX_BYTES {
        return None;
    }
    let mut blobs = Vec::new();
    for &t in inputs.iter().flatten() {
        blobs.push((t, data[t].as_deref()?));
    }
    if blobs.is_empty() {
        return None;
    }
    let mut regions = vec![None; data.len()];
    let store = pack(&blobs, &mut regions, usize::MAX).ok()?;
    let input_regions: Vec<Option<Region>> =
        inputs.iter().map(|t| t.and_then(|t| regions[t])).collect();
    let mut arena = vec![0u64; out_len.div_ceil(8)];
    let arena_bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut arena);
    let mut io = OpIo::new(
        arena_bytes,
        bytemuck::cast_slice(&store),
        &input_regions,
        (0, out_len),
    );
    kernel.eval(&mut io);
    Some(arena_bytes[..out_len].to_vec())
}

/// Packs byte blobs at [`plan::ALIGN`]-aligned offsets into one u64 buffer.
pub(super) fn pack(
    blobs: &[(usize, &[u8])],
    regions: &mut [Option<Region>],
    max: usize,
) -> Result<Vec<u64>> {
    let mut total = 0usize;
    let mut starts = Vec::with_capacity(blobs.len());
    for (_, b) in blobs {
        starts.push(total);
        total = plan::align_up(b.len())
            .and_then(|l| total.checked_add(l))
            .filter(|&t| t <= max)
            .ok_or_else(|| Error::TooLarge {
                what: "the model's constants".into(),
                detail: format!("more than the limit of {max} bytes"),
            })?;
    }
    let mut store = zeroed_words(total / 8, "the model's constants")?;
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
    for ((t, b), start) in blobs.iter().zip(starts) {
        bytes[start..start + b.len()].copy_from_slice(b);
        regions[*t] = Some(Region::Const {
            start,
            len: b.len(),
        });
    }
    Ok(store)
}

/// `n` zeroed u64 words, or [`Error::TooLarge`] naming `what` when the memory cannot be had
/// (a fallible allocation: a model within the limits but beyond the machine's memory gets an
/// error, not an abort).
pub(super) fn zeroed_words(n: usize, what: &str) -> Result<Vec<u64>> {
    let mut v: Vec<u64> = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::TooLarge {
        what: what.into(),
        detail: format!(
            "{} bytes could not be allocated (not enough memory)",
            n.saturating_mul(8)
        ),
    })?;
    v.resize(n, 0);
    Ok(v)
}

/// Every tensor's data before any operator runs, as LiteRT holds it: constants borrowed from
/// the model (a buffer longer than the shape needs cut to the elements it needs), the constants
/// an operator overwrites (`overwritten`: and nothing reads before) dropped, as LiteRT computes them, zeroed state tensors of stateful operators,
/// and sparse constants expanded to their dense shape. A sparse tensor that cannot be expanded
/// is listed in `issues` and left without data.
pub(super) fn initial_data<'m>(
    model: &'m Model,
    index: usize,
    shapes: &[Option<Vec<usize>>],
    overwritten: &[usize],
    max_tensor: usize,
    issues: &mut Vec<OpIssue>,
) -> Vec<Option<Cow<'m, [u8]>>> {
    let sg = &model.subgraphs[index];
    let n = sg.tensors.len();
    let tensor_index = |t: i32| usize::try_from(t).ok().filter(|&t| t < n);
    let mut data: Vec<Option<Cow<'_, [u8]>>> = (0..n)
        .map(|t| model.tensor_data(index, t).map(Cow::Borrowed))
        .collect();
    // A dense constant whose buffer is longer than its shape needs (even by part of an
    // element) is read as LiteRT reads it: the elements the shape needs, the tail ignored.
    for (t, tensor) in sg.tensors.iter().enumerate() {
        if tensor.sparsity.is_some() {
            continue;
        }
        let needed = shapes[t]
            .as_deref()
            .and_then(|s| byte_len(s, tensor.dtype, max_tensor));
        if let (Some(needed), Some(Cow::Borrowed(bytes))) = (needed, &data[t])
            && bytes.len() > needed
        {
            data[t] = Some(Cow::Borrowed(&bytes[..needed]));
        }
    }
    // Dense INT4 constants (weights two to a byte) unpacked once, here, to one signed byte per
    // element (`held_shape` sized them as INT8): what LiteRT's kernels unpack before use.
    for (t, tensor) in sg.tensors.iter().enumerate() {
        if tensor.dtype != TensorType::INT4 || tensor.sparsity.is_some() {
            continue;
        }
        let (Some(shape), Some(packed)) = (&shapes[t], &data[t]) else {
            continue;
        };
        let n = shape.iter().product();
        match crate::graph::dtype::unpack_int4(packed, n) {
            Some(v) => data[t] = Some(Cow::Owned(bytemuck::cast_slice(&v).to_vec())),
            None => {
                issues.push(graph_issue(format!(
                    "INT4 tensor '{}' holds {} bytes but shape {shape:?} needs {}",
                    tensor.name,
                    packed.len(),
                    n.div_ceil(2)
                )));
                data[t] = None;
            }
        }
    }
    // Constants an operator overwrites: computed instead.
    for &t in overwritten {
        data[t] = None;
    }
    // Variable tensors without data that stateful operators alone read, at their state
    // positions (UNIDIRECTIONAL_SEQUENCE_LSTM's output and cell states, …): their initial
    // value as constant data, what LiteRT's `ResetVariableTensor` writes (zeros; for int8
    // every byte the zero point). The operators keep the state per tensor
    // (`ops::recurrent_state`: several operators naming one tensor share it, as in LiteRT).
    // Other variable tensors stay undefined (prepare refuses them), a state tensor that is also a
    // graph output among them: LiteRT gives it the updated state there, which the kernels keep
    // in their cells, not in the tensor.
    for (t, tensor) in sg.tensors.iter().enumerate() {
        if !tensor.is_variable || data[t].is_some() {
            continue;
        }
        let as_state = |op: &crate::graph::Operator| {
            op.inputs.iter().enumerate().all(|(k, &i)| {
                tensor_index(i) != Some(t) || crate::ops::lstm::is_state_input(&op.code, k)
            }) && op.outputs.iter().all(|&o| tensor_index(o) != Some(t))
        };
        let read = sg
            .operators
            .iter()
            .any(|op| op.inputs.iter().any(|&i| tensor_index(i) == Some(t)));
        let len = shapes[t]
            .as_deref()
            .and_then(|s| byte_len(s, tensor.dtype, max_tensor));
        if let Some(len) = len
            && read
            && sg.operators.iter().all(as_state)
            && !sg.inputs.iter().any(|&i| tensor_index(i) == Some(t))
            && !sg.outputs.iter().any(|&o| tensor_index(o) == Some(t))
        {
            let fill = match (tensor.dtype, &tensor.quantization) {
                (TensorType::INT8, Some(q)) => q.zero_points().first().map_or(0, |&z| z as u8),
                _ => 0,
            };
            data[t] = Some(Cow::Owned(vec![fill; len]));
        }
    }
    // Sparse constants (DENSIFY's inputs) expanded once, here, to their dense shape.
    for (t, tensor) in sg.tensors.iter().enumerate() {
        let (Some(sp), Some(values), Some(shape)) = (&tensor.sparsity, &data[t], &shapes[t]) else {
            continue;
        };
        let dense = element_size(tensor.dtype)
            .ok_or_else(|| format!("type {} cannot be sparse", dtype_name(tensor.dtype)))
            .and_then(|elem| crate::graph::sparse::densify(values, elem, shape, sp));
        match dense {
            Ok(dense) => data[t] = Some(Cow::Owned(dense)),
            Err(reason) => {
                issues.push(graph_issue(format!(
                    "sparse tensor '{}': {reason}",
                    tensor.name
                )));
                data[t] = None;
            }
        }
    }
    data
}

/// A problem of the model's tables rather than of one operator, listed under the graph.
pub(super) fn graph_issue(reason: String) -> OpIssue {
    OpIssue {
        op_index: 0,
        op_name: crate::error::GRAPH.into(),
        tensor: String::new(),
        kind: IssueKind::Invalid,
        reason,
    }
}
