//! SIMD128 versions of the TF-exact float kernels of [`super`] (the arithmetic of TF 2.21's
//! x86-64 AVX-without-FMA wheel that calibration must reproduce), bit-identical to the scalar
//! kernels there, which stay the specification.
//!
//! **Why the bits are the same.** Without FMA, each output element of Eigen's products and of
//! LiteRT's depthwise kernel is a fixed sequence of IEEE-754 single-precision multiplies and adds
//! (each rounded). The vectors here run *across* output elements — four output channels (rows of
//! the filter matrix) per `f32x4` — never along the reduction: lane `l` of every accumulator
//! performs exactly the operations, in exactly the order, that the scalar kernel performs for
//! output element `l`. SIMD128 `f32x4.add` / `f32x4.mul` round each lane as the scalar `f32.add` /
//! `f32.mul` do, and Rust never contracts a multiply and an add into an FMA. The order is the
//! element's *kind* ([`eigen::GebpRow`](super::eigen::GebpRow) and whether its column is in a
//! 4-column panel); the row partition of Eigen's `gebp_kernel` (16, 8, 4, then single rows) puts
//! every aligned group of four rows in one kind, so all lanes of a vector share it.
//!
//! Lanes past the last row or channel compute on zero padding and are never stored. The tests
//! (`tests.rs`) compare every kernel with its scalar specification bit for bit (NaN positions
//! included) over random shapes: natively with proptest (the lane emulation of
//! [`V128`]), and compiled to wasm32 with the real
//! intrinsics in Node.

pub mod depthwise;
pub mod gebp;

/// Whether the engine should prefer these kernels: everywhere except a wasm32 build without
/// SIMD128, where [`V128`] is a lane-by-lane emulation (same bits, no speed) and the scalar
/// kernels run instead.
pub const PREFERRED: bool = cfg!(any(not(target_arch = "wasm32"), target_feature = "simd128"));

#[cfg(test)]
mod tests;

use crate::reference::ActivationRange;
use crate::simd128::v128::V128;

/// [`ActivationRange::apply`] on four lanes: `x < min ? min : x`, then `max < y ? max : y`.
#[inline(always)]
fn clamp(x: V128, min: V128, max: V128) -> V128 {
    let y = min.bitselect(x, x.f32x4_lt(min));
    max.bitselect(y, max.f32x4_lt(y))
}

/// The activation bounds as splatted vectors.
#[inline(always)]
fn act_bounds(act: ActivationRange) -> (V128, V128) {
    (V128::splat_f32(act.min), V128::splat_f32(act.max))
}

// Lane stores and bias padding are the SIMD128 float kernels' own.
use crate::simd128::conv_float::{pad_bias, store_f32};
