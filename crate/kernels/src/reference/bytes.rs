//! The data-movement kernels (PAD, TRANSPOSE, STRIDED_SLICE, CONCATENATION, SPACE_TO_BATCH_ND,
//! GATHER, GATHER_ND, RESIZE_NEAREST_NEIGHBOR and the axis maps of DEPTH_TO_SPACE and friends) over raw bytes, for an
//! element size of 1, 2, 4 or 8 bytes: each function views the bytes as `u8` / `u16` / `u32` /
//! `u64` and runs the generic kernel of [`super::shape`] or [`super::layout`] on them (moving
//! values does not depend on their type).
//!
//! These entry points are not generic, so every instance of the generic kernels is made here,
//! in the kernels' crate, at its opt-level: the page's build compiles the operators (`zeropoint`)
//! for size, and an instance made there ran up to 1.8× slower (README "Wasm size").

use super::layout::{self, AxisMap, GatherNdParams, GatherParams, SpaceToBatchParams};
use super::resize::{self, ResizeParams};
use super::shape::{self, PadParams, StridedSliceParams, TransposeParams};

/// Runs `$body` with `$i`/`$o` bound to the input/output viewed as elements of `$size` bytes
/// (and, in the second form, `$v` to one element read from the little-endian bytes `$value: &[u8;
/// 8]`, e.g. a pad value).
macro_rules! by_size {
    ($size:expr, $input:expr, $output:expr, $value:expr, |$i:ident, $o:ident, $v:ident| $body:expr) => {{
        let value: &[u8; 8] = $value;
        match $size {
            1 => {
                let $i: &[u8] = $input;
                let $o: &mut [u8] = $output;
                let $v = value[0];
                $body
            }
            2 => {
                let $i: &[u16] = bytemuck::cast_slice($input);
                let $o: &mut [u16] = bytemuck::cast_slice_mut($output);
                let $v = u16::from_le_bytes([value[0], value[1]]);
                $body
            }
            4 => {
                let $i: &[u32] = bytemuck::cast_slice($input);
                let $o: &mut [u32] = bytemuck::cast_slice_mut($output);
                let $v = u32::from_le_bytes([value[0], value[1], value[2], value[3]]);
                $body
            }
            _ => {
                let $i: &[u64] = bytemuck::cast_slice($input);
                let $o: &mut [u64] = bytemuck::cast_slice_mut($output);
                let $v = u64::from_le_bytes(*value);
                $body
            }
        }
    }};
    ($size:expr, $input:expr, $output:expr, |$i:ident, $o:ident| $body:expr) => {
        match $size {
            1 => {
                let $i: &[u8] = $input;
                let $o: &mut [u8] = $output;
                $body
            }
            2 => {
                let $i: &[u16] = bytemuck::cast_slice($input);
                let $o: &mut [u16] = bytemuck::cast_slice_mut($output);
                $body
            }
            4 => {
                let $i: &[u32] = bytemuck::cast_slice($input);
                let $o: &mut [u32] = bytemuck::cast_slice_mut($output);
                $body
            }
            _ => {
                let $i: &[u64] = bytemuck::cast_slice($input);
                let $o: &mut [u64] = bytemuck::cast_slice_mut($output);
                $body
            }
        }
    };
}

/// [`shape::strided_slice`] of elements of `size` bytes.
pub fn strided_slice(size: usize, p: &StridedSliceParams, input: &[u8], output: &mut [u8]) {
    by_size!(size, input, output, |i, o| shape::strided_slice(p, i, o))
}

/// [`shape::transpose`] of elements of `size` bytes.
pub fn transpose(size: usize, p: &TransposeParams, input: &[u8], output: &mut [u8]) {
    by_size!(size, input, output, |i, o| shape::transpose(p, i, o))
}

/// [`shape::concat_part`] of elements of `size` bytes (`outer`, `in_inner`, `out_inner` and
/// `out_offset` count elements).
pub fn concat_part(
    size: usize,
    [outer, in_inner, out_inner, out_offset]: [usize; 4],
    input: &[u8],
    output: &mut [u8],
) {
    by_size!(size, input, output, |i, o| shape::concat_part(
        outer, in_inner, out_inner, out_offset, i, o
    ))
}

/// [`shape::pad`] of elements of `size` bytes, padding with the element in `value`'s first
/// `size` bytes (little-endian).
pub fn pad(size: usize, p: &PadParams, value: &[u8; 8], input: &[u8], output: &mut [u8]) {
    by_size!(size, input, output, value, |i, o, v| shape::pad(p, v, i, o))
}

/// [`layout::space_to_batch`] of elements of `size` bytes, padding with the element in
/// `value`'s first `size` bytes (little-endian).
pub fn space_to_batch(
    size: usize,
    p: &SpaceToBatchParams,
    value: &[u8; 8],
    input: &[u8],
    output: &mut [u8],
) {
    by_size!(
        size,
        input,
        output,
        value,
        |i, o, v| layout::space_to_batch(p, v, i, o)
    )
}

/// [`layout::axis_gather`] of elements of `size` bytes.
pub fn axis_gather(size: usize, map: &AxisMap, input: &[u8], output: &mut [u8]) {
    by_size!(size, input, output, |i, o| layout::axis_gather(map, i, o))
}

/// [`layout::gather`] of elements of `size` bytes with INT64 (`i64`) or INT32 indices given as
/// bytes; whether every index was in range.
pub fn gather(
    size: usize,
    p: &GatherParams,
    input: &[u8],
    indices: &[u8],
    i64: bool,
    output: &mut [u8],
) -> bool {
    by_size!(size, input, output, |i, o| if i64 {
        layout::gather(p, i, bytemuck::cast_slice::<u8, i64>(indices), o)
    } else {
        layout::gather(p, i, bytemuck::cast_slice::<u8, i32>(indices), o)
    })
}

/// [`layout::gather_nd`] of elements of `size` bytes with INT64 (`i64`) or INT32 indices given
/// as bytes; whether every index tuple was in range.
pub fn gather_nd(
    size: usize,
    p: &GatherNdParams,
    input: &[u8],
    indices: &[u8],
    i64: bool,
    output: &mut [u8],
) -> bool {
    by_size!(size, input, output, |i, o| if i64 {
        layout::gather_nd(p, i, bytemuck::cast_slice::<u8, i64>(indices), o)
    } else {
        layout::gather_nd(p, i, bytemuck::cast_slice::<u8, i32>(indices), o)
    })
}

/// [`resize::resize_nearest`] of elements of `size` bytes.
pub fn resize_nearest(size: usize, p: &ResizeParams, input: &[u8], output: &mut [u8]) {
    by_size!(size, input, output, |i, o| resize::resize_nearest(p, i, o))
}
