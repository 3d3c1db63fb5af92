//! SPLIT, SPLIT_V and UNPACK: operators with several outputs, each a slice of the input along
//! one axis (the engine evaluates the kernel once per output, [`OpIo::output_index`] saying
//! which). They only move elements, so they run on every type LiteRT's kernels take (FLOAT32,
//! UINT8, INT8, INT16, INT32, and INT64 for SPLIT_V, BOOL for UNPACK); quantized outputs must be
//! quantized exactly like the input (TF's same-scale rule; anything else is "unsupported").
//! The copies are [`crate::kernels::reference::split`].

use super::shape::require_same_quantization;
use super::{
    Kernel, OpIo, OutputSpec, PrepareCtx, PrepareResult, Prepared, TensorInfo, elem_size, options,
};
use crate::graph::TensorType;
use crate::kernels::reference::split::{SplitPart, split_part};
use crate::tflite::schema::{SplitOptionsT, SplitVOptionsT, UnpackOptionsT};

/// One kernel for the three operators: which input holds the data, the element size and each
/// output's part of the input.
struct Split {
    input: usize,
    size: usize,
    parts: Vec<SplitPart>,
}

impl Kernel for Split {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let Some(p) = self.parts.get(io.output_index()) else {
            return;
        };
        let input = io.input(self.input);
        let output = io.output();
        match self.size {
            1 => split_part::<u8>(p, input, output),
            2 => split_part::<u16>(
                p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(output),
            ),
            4 => split_part::<u32>(
                p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(output),
            ),
            _ => split_part::<u64>(
                p,
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(output),
            ),
        }
    }
}

/// The input types of SPLIT (LiteRT `split.cc`).
const SPLIT_TYPES: &[TensorType] = &[
    TensorType::FLOAT32,
    TensorType::UINT8,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
];

/// The input types of SPLIT_V (LiteRT `split_v.cc`).
const SPLIT_V_TYPES: &[TensorType] = &[
    TensorType::FLOAT32,
    TensorType::UINT8,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
    TensorType::INT64,
];

/// The input types of UNPACK (LiteRT `unpack.cc`).
const UNPACK_TYPES: &[TensorType] = &[
    TensorType::FLOAT32,
    TensorType::UINT8,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
    TensorType::BOOL,
];

/// The operator's option count (`num_splits`, `num`) checked against its outputs.
fn count(ctx: &PrepareCtx<'_>, what: &str, n: i32) -> PrepareResult<usize> {
    match usize::try_from(n) {
        Ok(n) if n > 0 && n == ctx.outputs.len() => Ok(n),
        _ => Err(ctx.invalid(
            String::new(),
            format!(
                "{what} {n} but the operator has {} output(s)",
                ctx.outputs.len()
            ),
        )),
    }
}

/// The single value of a constant axis tensor, resolved against `rank`.
fn const_axis(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>, rank: usize) -> PrepareResult<usize> {
    match ctx.const_ints(t)?.as_slice() {
        [a] => ctx.axis(t, *a, rank),
        v => Err(ctx.invalid(
            t.describe(),
            format!("expected one axis, got {} values", v.len()),
        )),
    }
}

/// Output `k`'s type and quantization must be the input's.
fn check_outputs(ctx: &PrepareCtx<'_>, input: &TensorInfo<'_>) -> PrepareResult<()> {
    for k in 0..ctx.outputs.len() {
        ctx.require_output_dtype(k, input.dtype)?;
        require_same_quantization(ctx, input, &ctx.output(k)?)?;
    }
    Ok(())
}

/// Splits `input` along `axis` into parts of `sizes` elements of the axis; `keep_axis` false
/// drops the axis from the output shapes (UNPACK). The data is input `data`; the sizes sum to
/// the axis dim.
fn split_kernel(
    data: usize,
    input: &TensorInfo<'_>,
    size: usize,
    axis: usize,
    sizes: &[usize],
    keep_axis: bool,
) -> (Split, Vec<OutputSpec>) {
    let outer: usize = input.shape[..axis].iter().product();
    let inner: usize = input.shape[axis + 1..].iter().product();
    let row = input.shape[axis] * inner;
    let mut begin = 0;
    let mut parts = Vec::with_capacity(sizes.len());
    let mut specs = Vec::with_capacity(sizes.len());
    for &s in sizes {
        parts.push(SplitPart {
            outer,
            row,
            begin: begin * inner,
            len: s * inner,
        });
        begin += s;
        let mut shape = input.shape.to_vec();
        if keep_axis {
            shape[axis] = s;
        } else {
            shape.remove(axis);
        }
        specs.push(OutputSpec {
            shape,
            dtype: input.dtype,
        });
    }
    (
        Split {
            input: data,
            size,
            parts,
        },
        specs,
    )
}

/// Output 0 and the rest, for [`Prepared::multi`].
fn first_and_rest(mut specs: Vec<OutputSpec>) -> (OutputSpec, Vec<OutputSpec>) {
    let rest = specs.split_off(1.min(specs.len()));
    let first = specs.pop().unwrap_or(OutputSpec {
        shape: Vec::new(),
        dtype: TensorType::FLOAT32,
    });
    (first, rest)
}

/// SPLIT (inputs: axis, value; option `num_splits`): `num_splits` equal parts along the
/// constant axis, whose dim must be divisible by `num_splits`, as LiteRT's `split.cc`
/// requires.
pub fn prepare_split(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let o = options!(ctx, SplitOptions, SplitOptionsT)?;
    let n = count(ctx, "num_splits", o.num_splits)?;
    let (axis_t, input) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_dtype(&input, SPLIT_TYPES)?;
    let size = elem_size(ctx, &input)?;
    let axis = const_axis(ctx, &axis_t, input.shape.len())?;
    let dim = input.shape[axis];
    if dim % n != 0 {
        return Err(ctx.invalid(
            input.describe(),
            format!("dimension {dim} along axis {axis} is not a multiple of num_splits {n}"),
        ));
    }
    check_outputs(ctx, &input)?;
    let (kernel, specs) = split_kernel(1, &input, size, axis, &vec![dim / n; n], true);
    let (first, rest) = first_and_rest(specs);
    Ok(Prepared::multi(first, rest, kernel))
}

/// SPLIT_V (inputs: value, size_splits, axis; option `num_splits`): parts of the constant
/// `size_splits` along the constant axis; one entry may be -1 (the rest of the axis). The sizes
/// must sum to the axis dim, as in LiteRT's `split_v.cc` (which also refuses two -1 entries).
pub fn prepare_split_v(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let o = options!(ctx, SplitVOptions, SplitVOptionsT)?;
    let n = count(ctx, "num_splits", o.num_splits)?;
    let (input, sizes_t, axis_t) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    ctx.require_dtype(&input, SPLIT_V_TYPES)?;
    let size = elem_size(ctx, &input)?;
    let axis = const_axis(ctx, &axis_t, input.shape.len())?;
    let dim = input.shape[axis];
    let raw = ctx.const_ints(&sizes_t)?;
    if sizes_t.shape.len() != 1 || raw.len() != n {
        return Err(ctx.invalid(
            sizes_t.describe(),
            format!(
                "shape {:?}: expected a vector of num_splits {n} sizes",
                sizes_t.shape
            ),
        ));
    }
    let mut inferred = None;
    let mut sum = 0usize;
    let mut sizes = Vec::with_capacity(n);
    for (k, &s) in raw.iter().enumerate() {
        if s == -1 {
            if inferred.replace(k).is_some() {
                return Err(ctx.invalid(sizes_t.describe(), "more than one -1 in size_splits"));
            }
            sizes.push(0);
            continue;
        }
        let s = usize::try_from(s)
            .ok()
            .filter(|&s| s <= dim)
            .ok_or_else(|| {
                ctx.invalid(
                    sizes_t.describe(),
                    format!("size {s} out of range for dimension {dim} along axis {axis}"),
                )
            })?;
        sum = sum.saturating_add(s);
        sizes.push(s);
    }
    match inferred {
        Some(k) if sum <= dim => sizes[k] = dim - sum,
        None if sum == dim => {}
        _ => {
            return Err(ctx.invalid(
                sizes_t.describe(),
                format!("sizes {raw:?} do not sum to dimension {dim} along axis {axis}"),
            ));
        }
    }
    check_outputs(ctx, &input)?;
    let (kernel, specs) = split_kernel(0, &input, size, axis, &sizes, true);
    let (first, rest) = first_and_rest(specs);
    Ok(Prepared::multi(first, rest, kernel))
}

/// UNPACK (options `num`, `axis`): the input's `num` slices along the axis, each with the axis
/// removed; `num` must equal the axis dim, as LiteRT's `unpack.cc` requires.
pub fn prepare_unpack(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let o = options!(ctx, UnpackOptions, UnpackOptionsT)?;
    let n = count(ctx, "num", o.num)?;
    let input = ctx.input(0)?;
    ctx.require_dtype(&input, UNPACK_TYPES)?;
    let size = elem_size(ctx, &input)?;
    let axis = ctx.axis(&input, i64::from(o.axis), input.shape.len())?;
    let dim = input.shape[axis];
    if dim != n {
        return Err(ctx.invalid(
            input.describe(),
            format!("num {n} but the dimension along axis {axis} is {dim}"),
        ));
    }
    check_outputs(ctx, &input)?;
    let (kernel, specs) = split_kernel(0, &input, size, axis, &vec![1; n], false);
    let (first, rest) = first_and_rest(specs);
    Ok(Prepared::multi(first, rest, kernel))
}
