//! What a tensor declares, checked as LiteRT's `InterpreterBuilder` checks it before anything is
//! allocated: its shape (sizes within the tensor limit, a fixed element size) and its
//! quantization parameters.

use crate::graph::TensorType;
use crate::graph::dtype::{dtype_name, element_size};

/// Converts a declared shape to sizes, if every dim is non-negative and the byte size of a
/// tensor of `dtype` is at most `max` bytes.
pub(super) fn declared_shape(dims: &[i32], dtype: TensorType, max: usize) -> Option<Vec<usize>> {
    let shape: Vec<usize> = dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    byte_len(&shape, dtype, max)?;
    Some(shape)
}

/// The shape the engine holds tensor `t` at ([`declared_shape`]); an INT4 constant (weights
/// packed two to a byte) is held unpacked, one signed byte per element
/// (`constants::initial_data`), as LiteRT's kernels unpack it before use, so it is sized as INT8.
/// Other INT4 tensors (activations, graph inputs, sparse constants) have no held shape.
pub(super) fn held_shape(
    t: &crate::graph::Tensor,
    constant: bool,
    max: usize,
) -> Option<Vec<usize>> {
    let dtype = match t.dtype {
        TensorType::INT4 if constant && t.sparsity.is_none() => TensorType::INT8,
        d => d,
    };
    declared_shape(t.dims(), dtype, max)
}

/// Bytes of a tensor, if it has a fixed element size and is at most `max` bytes (checked
/// arithmetic: an overflowing element count is simply too large).
pub(super) fn byte_len(shape: &[usize], dtype: TensorType, max: usize) -> Option<usize> {
    let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    let b = n.checked_mul(element_size(dtype)?)?;
    (b <= max).then_some(b)
}

/// Why the engine cannot hold `t` (its declared shape did not pass [`declared_shape`]): a type
/// without a fixed element size (STRING, INT4 other than a dense constant), a negative dimension,
/// or the tensor limit.
pub(super) fn unholdable(t: &crate::graph::Tensor, max: usize) -> String {
    let (dims, ty) = (t.dims(), dtype_name(t.dtype));
    if t.dtype == TensorType::INT4 {
        format!(
            "type INT4 (4-bit packed) is supported for dense constant weights only, not as an \
             activation, graph input or sparse tensor (shape {dims:?})"
        )
    } else if element_size(t.dtype).is_none() {
        format!("type {ty} has no fixed element size; the engine holds numeric tensors only")
    } else if dims.iter().any(|&d| d < 0) {
        format!("shape {dims:?} has a negative dimension")
    } else {
        format!("shape {dims:?} of {ty} is more than the tensor limit of {max} bytes")
    }
}

/// Why LiteRT's `InterpreterBuilder::ParseQuantization` refuses these quantization parameters of
/// a tensor of shape `dims`, or `None` when it takes them (no scales: not quantized).
pub(super) fn quantization_problem(q: &crate::graph::Quantization, dims: &[i32]) -> Option<String> {
    let scales = q.scales().len();
    if scales == 0 {
        return None;
    }
    if q.zero_point.is_none() {
        return Some(format!("has {scales} scale(s) but no zero points"));
    }
    let zero_points = q.zero_points().len();
    if zero_points != scales {
        return Some(format!(
            "has {zero_points} zero point(s) and {scales} scale(s) (LiteRT needs as many)"
        ));
    }
    let axis = usize::try_from(q.quantized_dimension)
        .ok()
        .filter(|&a| dims.is_empty() || a < dims.len());
    let Some(axis) = axis else {
        return Some(format!(
            "has quantized_dimension {}, not an axis of shape {dims:?}",
            q.quantized_dimension
        ));
    };
    let per_axis = dims.get(axis).and_then(|&d| usize::try_from(d).ok());
    if scales != 1 && per_axis.is_some_and(|d| d != scales) {
        return Some(format!(
            "has {scales} per-channel scales along quantized_dimension {axis} of shape {dims:?}"
        ));
    }
    None
}
