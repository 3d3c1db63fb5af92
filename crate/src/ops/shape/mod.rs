//! Shape and data-movement ops: RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION,
//! PAD/PADV2, STRIDED_SLICE, SLICE. They only move elements, so they run on any fixed-size
//! element type (the kernel is chosen by element size), not only float32.
//!
//! Quantized tensors (INT8, UINT8, INT16 with a scale): moving raw integers keeps their meaning
//! only when the output is quantized exactly like the input, so that is required (LiteRT's
//! converter always writes it so; a model that does not is "unsupported", never silently
//! reinterpreted). PAD pads with the output's zero point; CONCATENATION requantizes inputs whose
//! parameters differ from the output's as LiteRT's `ConcatenationWithScaling` does.

mod concat;
mod pad;
mod reshape;
mod slice;
#[cfg(test)]
pub(crate) mod test_model;
mod transpose;

use super::{Kernel, Node, PrepareCtx, PrepareResult, Prepared, Role, TensorInfo, elem_size};
use crate::graph::dtype::dtype_name;
use crate::graph::{BuiltinOperator, TensorType, litert_zero_point};

pub use concat::prepare_concatenation;
pub use pad::prepare_pad;
pub(crate) use pad::zero_point_pad_value;
pub use reshape::{prepare_densify, prepare_expand_dims, prepare_reshape, prepare_squeeze};
pub use slice::{canonical_strided_slice, prepare_slice, prepare_strided_slice};
pub use transpose::prepare_transpose;

/// Element sizes the data-movement kernels handle.
pub(crate) fn movable_size(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<usize> {
    let s = elem_size(ctx, t)?;
    if matches!(s, 1 | 2 | 4 | 8) {
        Ok(s)
    } else {
        Err(ctx.unsupported(t.describe(), format!("type {}", dtype_name(t.dtype))))
    }
}

/// True for the integer types TFLite quantizes activations to.
pub(crate) fn is_quantized_type(dtype: TensorType) -> bool {
    matches!(
        dtype,
        TensorType::INT8 | TensorType::UINT8 | TensorType::INT16
    )
}

/// A tensor's quantization as `(scales, zero points)` with absent zero points read as 0; `None`
/// when it has no scale (not quantized).
fn quant_key(t: &TensorInfo<'_>) -> Option<(Vec<f32>, Vec<i32>)> {
    let q = t.quantization?;
    if q.scales().is_empty() {
        return None;
    }
    let zps = if q.zero_points().is_empty() {
        vec![0; q.scales().len()]
    } else {
        q.zero_points()
            .iter()
            .map(|&z| litert_zero_point(z))
            .collect()
    };
    Some((q.scales().to_vec(), zps))
}

/// The inputs whose integers `op` moves to its outputs without checking that they and the
/// outputs are quantized alike, as LiteRT 2.3 does: an output with another scale or zero point
/// gets the same integers (which then mean other values), and MAXIMUM/MINIMUM and SELECT compare
/// or pick raw integers of inputs quantized differently. `None` for every other operator, where
/// LiteRT refuses such a file (CONCATENATION, PACK, UNPACK, MIRROR_PAD, REDUCE_MAX/MIN,
/// SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND) or it was not measured.
///
/// Measured with `tests/tools/mutation/requant_check.py` (`ai_edge_litert` 2.3, `BUILTIN_REF`):
/// every int8/int16 golden operator's output with its scale doubled and its zero point moved by
/// 3. LiteRT ran each listed operator (and those reading such an output), and the engine gives
/// its outputs bit for bit. `graph::lint` warns about each.
pub fn moves_integers_unchecked(op: BuiltinOperator) -> Option<std::ops::Range<usize>> {
    use BuiltinOperator as B;
    match op {
        B::SELECT | B::SELECT_V2 => Some(1..3),
        B::MAXIMUM | B::MINIMUM => Some(0..2),
        B::SPLIT => Some(1..2),
        B::AVERAGE_POOL_2D
        | B::MAX_POOL_2D
        | B::BROADCAST_TO
        | B::GATHER
        | B::GATHER_ND
        | B::PAD
        | B::RESHAPE
        | B::RESIZE_BILINEAR
        | B::RESIZE_NEAREST_NEIGHBOR
        | B::REVERSE_V2
        | B::SLICE
        | B::SPACE_TO_DEPTH
        | B::SPLIT_V
        | B::STRIDED_SLICE
        | B::TRANSPOSE => Some(0..1),
        _ => None,
    }
}

/// For an op that passes quantized integers through unchanged (data movement, max pooling,
/// resizing): the output must be quantized exactly like the input, otherwise the same integers
/// would mean other values ("unsupported": no requantizing kernel for it). Non-quantized types
/// pass, and so does an output of an operator LiteRT runs so
/// ([`moves_integers_unchecked`]; `graph::lint` warns).
pub(crate) fn require_same_quantization(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    output: &TensorInfo<'_>,
) -> PrepareResult<()> {
    if !is_quantized_type(input.dtype) {
        return Ok(());
    }
    let (a, b) = (quant_key(input), quant_key(output));
    let unchecked =
        moves_integers_unchecked(ctx.op.code.op()).is_some_and(|inputs| match output.role {
            Role::Output(_) => true,
            Role::Input(j) => inputs.contains(&j),
            Role::Intermediate(_) => false,
        });
    if a == b || unchecked {
        return Ok(());
    }
    let show = |k: &Option<(Vec<f32>, Vec<i32>)>| match k {
        Some((s, z)) => format!("scale {s:?} zero point {z:?}"),
        None => "no quantization".to_string(),
    };
    Err(ctx.unsupported(
        output.describe(),
        format!(
            "{} differs from {}'s {} (this operator moves quantized values unchanged)",
            show(&b),
            input.describe(),
            show(&a)
        ),
    ))
}

/// A shape-only op keeps the input's type (and quantization): the output tensor must agree.
pub(crate) fn same_type(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    shape: Vec<usize>,
    kernel: impl Kernel + 'static,
) -> PrepareResult<Prepared> {
    ctx.require_output_dtype(0, input.dtype)?;
    require_same_quantization(ctx, input, &ctx.output(0)?)?;
    Ok(Prepared {
        shape,
        dtype: input.dtype,
        node: Node::Kernel(Box::new(kernel)),
    })
}
