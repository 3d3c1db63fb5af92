//! Data-movement ops that rearrange, repeat, mirror or select elements: DEPTH_TO_SPACE,
//! SPACE_TO_DEPTH, TILE, BROADCAST_TO, MIRROR_PAD, REVERSE_V2, BATCH_TO_SPACE_ND (`moved`: every
//! output axis maps on its own to input offsets), SPACE_TO_BATCH_ND (`batch`, which pads),
//! GATHER, GATHER_ND (`gather`). Like the ops of
//! [`super::shape`] they only copy elements, so they run on any fixed-size element type (the
//! kernel is chosen by element size) and a quantized output must be quantized exactly like the
//! input (TF's same-scale rule; otherwise "unsupported", never silently reinterpreted).
//!
//! Index inputs (multiples, shapes, paddings, axes, GATHER's indices) are INT32 or INT64 and never
//! quantized. Those that decide the output shape must be constants; GATHER and GATHER_ND also take
//! indices computed at run time (an index out of range, where LiteRT fails the invocation, gives
//! zeros in its slice).

mod batch;
mod gather;
mod moved;

use super::{PrepareCtx, PrepareResult, TensorInfo};

pub use batch::{prepare_batch_to_space, prepare_space_to_batch};
pub use gather::{prepare_gather, prepare_gather_nd};
pub use moved::{
    prepare_broadcast_to, prepare_depth_to_space, prepare_mirror_pad, prepare_reverse,
    prepare_space_to_depth, prepare_tile,
};

/// Non-negative sizes from a constant index tensor.
fn sizes(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<Vec<usize>> {
    let v = ctx.const_ints(t)?;
    v.iter()
        .map(|&x| usize::try_from(x))
        .collect::<Result<_, _>>()
        .map_err(|_| ctx.invalid(t.describe(), format!("negative value in {v:?}")))
}
