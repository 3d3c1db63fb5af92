//! The constant store and constant folding at prepare time: byte blobs packed at aligned
//! offsets, fallible zeroed allocations, and shape arithmetic on constants run once.

use std::borrow::Cow;

use super::plan;
use crate::error::{Error, Result};
use crate::graph::TensorType;
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
