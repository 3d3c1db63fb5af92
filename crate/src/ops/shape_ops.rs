//! The small shape-subgraph ops Keras exports use: SHAPE, FILL, RANGE, ZEROS_LIKE, CAST and
//! PACK (single output). Their arguments are mostly int32 shape vectors, so wherever every input
//! an op reads is a constant (a SHAPE of a tensor whose shape prepare knows always is), prepare
//! computes the output right away and returns it as a folded constant ([`Node::Constant`]); the
//! engine folds the other ops' INT32/INT64 outputs of constant inputs (STRIDED_SLICE, …) the
//! same way, so a Keras `SHAPE → STRIDED_SLICE → PACK → RESHAPE` chain reaches RESHAPE's
//! `const_ints` as a constant. Kernels: `crate::kernels::reference::shape_ops`.

use super::shape::require_same_quantization;
use super::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, options};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::reference::shape_ops::{self as k, CastType};
use crate::tflite::schema::PackOptionsT;

/// A prepared output computed by `kernel` — or, when `inputs` are all constants, by running it
/// once now (constant folding).
fn kernel_or_fold(
    shape: Vec<usize>,
    dtype: TensorType,
    inputs: &[TensorInfo<'_>],
    mut kernel: impl Kernel + EvalOn + 'static,
    out_bytes: usize,
) -> Prepared {
    let consts: Option<Vec<&[u8]>> = inputs.iter().map(|t| t.data).collect();
    let node = match consts {
        Some(data) => {
            let mut out = vec![0u8; out_bytes];
            kernel.eval_on(&data, &mut out);
            Node::Constant(out)
        }
        None => Node::Kernel(Box::new(kernel)),
    };
    Prepared { shape, dtype, node }
}

/// Kernels of this file also run on plain byte slices (to fold constant inputs at prepare time).
trait EvalOn {
    /// Computes the output from the inputs' bytes.
    fn eval_on(&mut self, inputs: &[&[u8]], output: &mut [u8]);
}

/// Element size of the dtypes this file moves, or "unsupported".
fn size_of(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<usize> {
    match super::elem_size(ctx, t)? {
        s @ (1 | 2 | 4 | 8) => Ok(s),
        _ => Err(ctx.unsupported(t.describe(), format!("type {}", dtype_name(t.dtype)))),
    }
}

/// Bytes of `elements` elements of `size` bytes (the engine has bounded shapes, so this cannot
/// overflow for a shape it accepted; checked anyway).
fn bytes(ctx: &PrepareCtx<'_>, elements: usize, size: usize) -> PrepareResult<usize> {
    elements
        .checked_mul(size)
        .ok_or_else(|| ctx.invalid(String::new(), "output size overflows"))
}

/// SHAPE: the input's shape as an INT32 (or INT64, as the output tensor declares) vector,
/// always folded (prepare knows every shape).
pub fn prepare_shape(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let out = ctx.output(0)?;
    // LiteRT's prepare reads the type from ShapeOptions and refuses any but INT32 / INT64
    // ("Unknown shape output data type"), whatever the output tensor declares.
    if let crate::tflite::schema::BuiltinOptionsT::ShapeOptions(o) = &ctx.op.options
        && !matches!(o.out_type, TensorType::INT32 | TensorType::INT64)
    {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "out_type {} in ShapeOptions (LiteRT refuses any but INT32 / INT64)",
                dtype_name(o.out_type)
            ),
        ));
    }
    let data: Vec<u8> = match out.dtype {
        TensorType::INT32 => {
            let mut v = Vec::with_capacity(input.shape.len() * 4);
            for &d in input.shape {
                let d = i32::try_from(d).map_err(|_| {
                    ctx.unsupported(
                        out.describe(),
                        format!("dim {d} does not fit INT32 (declare the output INT64)"),
                    )
                })?;
                v.extend_from_slice(&d.to_le_bytes());
            }
            v
        }
        TensorType::INT64 => input
            .shape
            .iter()
            .flat_map(|&d| (d as i64).to_le_bytes())
            .collect(),
        other => {
            return Err(ctx.unsupported(
                out.describe(),
                format!("type {} (SHAPE outputs INT32 or INT64)", dtype_name(other)),
            ));
        }
    };
    Ok(Prepared {
        shape: vec![input.shape.len()],
        dtype: out.dtype,
        node: Node::Constant(data),
    })
}

/// PACK's copy on bytes (any element size): `outer` blocks of `inner_bytes` from each input.
struct Pack {
    outer: usize,
    inner_bytes: usize,
    n: usize,
}

impl EvalOn for Pack {
    fn eval_on(&mut self, inputs: &[&[u8]], output: &mut [u8]) {
        k::pack(self.outer, self.inner_bytes, self.n, |j| inputs[j], output);
    }
}

impl Kernel for Pack {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        // `kernels::reference::shape_ops::pack`'s loop, written out: each input slice is taken
        // from `io` before the output is borrowed (eval does not collect the inputs).
        let inner = self.inner_bytes;
        for o in 0..self.outer {
            for j in 0..self.n {
                let src = &io.input(j)[o * inner..(o + 1) * inner];
                let dst = (o * self.n + j) * inner;
                io.output()[dst..dst + inner].copy_from_slice(src);
            }
        }
    }
}

/// PACK: `values_count` inputs of one shape and type stacked along a new axis `axis` (negative
/// counts from the end of the output's rank). Quantized inputs must share the output's
/// parameters (LiteRT's `pack.cc` requires it; TF's quantizer gives PACK one scale).
pub fn prepare_pack(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = options!(ctx, PackOptions, PackOptionsT)?;
    let n = ctx.inputs.len();
    if n == 0 || usize::try_from(o.values_count).ok() != Some(n) {
        return Err(ctx.invalid(
            String::new(),
            format!("values_count {} with {n} input(s)", o.values_count),
        ));
    }
    let first = ctx.input(0)?;
    let size = size_of(ctx, &first)?;
    let out = ctx.output(0)?;
    let mut inputs = Vec::with_capacity(n);
    for j in 0..n {
        let t = ctx.input(j)?;
        if t.dtype != first.dtype || t.shape != first.shape {
            return Err(ctx.invalid(
                t.describe(),
                format!(
                    "{} {:?} differs from input 0's {} {:?}",
                    dtype_name(t.dtype),
                    t.shape,
                    dtype_name(first.dtype),
                    first.shape
                ),
            ));
        }
        require_same_quantization(ctx, &t, &out)?;
        inputs.push(t);
    }
    ctx.require_output_dtype(0, first.dtype)?;
    let rank = first.shape.len();
    let axis = ctx.axis(&first, i64::from(o.axis), rank + 1)?;
    let outer: usize = first.shape[..axis].iter().product();
    let inner: usize = first.shape[axis..].iter().product();
    let mut shape = first.shape.to_vec();
    shape.insert(axis, n);
    let inner_bytes = bytes(ctx, inner, size)?;
    let total = bytes(ctx, first.num_elements() * n, size)?;
    Ok(kernel_or_fold(
        shape,
        first.dtype,
        &inputs,
        Pack {
            outer,
            inner_bytes,
            n,
        },
        total,
    ))
}

/// CAST's element conversion.
struct Cast {
    from: CastType,
    to: CastType,
}

impl EvalOn for Cast {
    fn eval_on(&mut self, inputs: &[&[u8]], output: &mut [u8]) {
        k::cast(self.from, self.to, inputs[0], output);
    }
}

impl Kernel for Cast {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        k::cast(self.from, self.to, input, io.output());
    }
}

/// The CAST element type of `t`, or "unsupported".
fn cast_type(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<CastType> {
    Ok(match t.dtype {
        TensorType::FLOAT32 => CastType::F32,
        TensorType::INT64 => CastType::I64,
        TensorType::INT32 => CastType::I32,
        TensorType::INT16 => CastType::I16,
        TensorType::INT8 => CastType::I8,
        TensorType::UINT8 => CastType::U8,
        TensorType::BOOL => CastType::Bool,
        other => {
            return Err(ctx.unsupported(
                t.describe(),
                format!(
                    "type {} (CAST converts FLOAT32, INT64, INT32, INT16, INT8, UINT8 and BOOL)",
                    dtype_name(other)
                ),
            ));
        }
    })
}

/// CAST: converts the input's elements to the output tensor's type (LiteRT reads the types from
/// the tensors, not from the options). Quantized tensors are cast as raw integers, as LiteRT does.
pub fn prepare_cast(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let out = ctx.output(0)?;
    let from = cast_type(ctx, &input)?;
    let to = cast_type(ctx, &out)?;
    let total = bytes(ctx, input.num_elements(), to.size())?;
    Ok(kernel_or_fold(
        input.shape.to_vec(),
        out.dtype,
        &[input],
        Cast { from, to },
        total,
    ))
}

/// A shape argument (FILL's dims) as dims: constant, non-negative.
fn dims_of(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<Vec<usize>> {
    if t.shape.len() != 1 {
        return Err(ctx.invalid(
            t.describe(),
            format!("dims must be a vector, got shape {:?}", t.shape),
        ));
    }
    ctx.const_ints(t)?
        .into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| ctx.invalid(t.describe(), format!("negative dim {d} in dims")))
        })
        .collect()
}

/// A constant output filled with copies of `elem` (the bytes of one element).
fn repeated(
    ctx: &PrepareCtx<'_>,
    shape: Vec<usize>,
    dtype: TensorType,
    elem: &[u8],
) -> PrepareResult<Prepared> {
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| ctx.invalid(String::new(), format!("shape {shape:?} overflows")))?;
    bytes(ctx, n, elem.len())?;
    Ok(Prepared {
        shape,
        dtype,
        node: Node::Constant(elem.repeat(n)),
    })
}

/// FILL's kernel (value not constant): copies the one value element everywhere.
struct Fill {
    size: usize,
}

impl Kernel for Fill {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let value = io.input(1);
        for o in io.output().chunks_exact_mut(self.size) {
            o.copy_from_slice(&value[..self.size]);
        }
    }
}

/// FILL: an output of the constant shape `dims` holding the scalar `value` everywhere; folded
/// when the value is a constant. A quantized value must share the output's parameters.
pub fn prepare_fill(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (dims_t, value) = (ctx.input(0)?, ctx.input(1)?);
    let dims = dims_of(ctx, &dims_t)?;
    let size = size_of(ctx, &value)?;
    if value.num_elements() != 1 {
        return Err(ctx.invalid(
            value.describe(),
            format!("value must be a scalar, got shape {:?}", value.shape),
        ));
    }
    ctx.require_output_dtype(0, value.dtype)?;
    require_same_quantization(ctx, &value, &ctx.output(0)?)?;
    match value.data {
        Some(v) => repeated(ctx, dims, value.dtype, &v[..size]),
        None => {
            let n: usize = dims.iter().product();
            bytes(ctx, n, size)?;
            Ok(Prepared::new(dims, value.dtype, Fill { size }))
        }
    }
}

/// ZEROS_LIKE: the input's shape and type, every element 0; the values do not depend on the
/// input's, so the output is always folded. INT32, INT64 and FLOAT32, as in LiteRT. (TFLite has no
/// ONES_LIKE builtin: the converter writes FILL.)
pub fn prepare_zeros_like(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    ctx.require_dtype(
        &input,
        &[TensorType::INT32, TensorType::INT64, TensorType::FLOAT32],
    )?;
    ctx.require_output_dtype(0, input.dtype)?;
    let elem = vec![0; size_of(ctx, &input)?];
    repeated(ctx, input.shape.to_vec(), input.dtype, &elem)
}

/// RANGE: `start, start + delta, …` up to `limit` (exclusive), from three constant scalars of
/// one type (INT32, INT64 or FLOAT32); always folded (the output size depends on the values).
/// The size is LiteRT's `GetSize`: `ceil(|limit - start| / |delta|)`.
pub fn prepare_range(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let (start, limit, delta) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    for t in [&start, &limit, &delta] {
        ctx.require_dtype(
            t,
            &[TensorType::INT32, TensorType::INT64, TensorType::FLOAT32],
        )?;
        if t.dtype != start.dtype {
            return Err(ctx.invalid(t.describe(), "start, limit and delta differ in type"));
        }
        if t.num_elements() != 1 {
            return Err(ctx.invalid(t.describe(), "must be a scalar"));
        }
    }
    ctx.require_output_dtype(0, start.dtype)?;
    let max_elems = 1usize << 24;
    let too_many = |n: String| {
        ctx.unsupported(
            String::new(),
            format!("range of {n} elements (at most {max_elems})"),
        )
    };
    if start.dtype == TensorType::FLOAT32 {
        let f = |t: &TensorInfo<'_>| -> PrepareResult<f32> {
            let d = t.data.ok_or_else(|| {
                ctx.unsupported(t.describe(), "must be a constant (dynamic RANGE)")
            })?;
            Ok(f32::from_le_bytes([d[0], d[1], d[2], d[3]]))
        };
        let (s, l, d) = (f(&start)?, f(&limit)?, f(&delta)?);
        if d == 0.0 || (s < l && d < 0.0) || (s > l && d > 0.0) || !s.is_finite() {
            return Err(ctx.invalid(delta.describe(), format!("no range from {s} to {l} by {d}")));
        }
        let n = ((l - s) / d).abs().ceil();
        if n.is_nan() || n > max_elems as f32 {
            return Err(too_many(format!("{n}")));
        }
        let mut out = vec![0f32; n as usize];
        k::range(s, d, &mut out);
        return Ok(Prepared {
            shape: vec![out.len()],
            dtype: start.dtype,
            node: Node::Constant(bytemuck::cast_slice(&out).to_vec()),
        });
    }
    let (s, l, d) = (
        one_int(ctx, &start)?,
        one_int(ctx, &limit)?,
        one_int(ctx, &delta)?,
    );
    if d == 0 || (s < l && d < 0) || (s > l && d > 0) {
        return Err(ctx.invalid(delta.describe(), format!("no range from {s} to {l} by {d}")));
    }
    let span = (i128::from(l) - i128::from(s)).unsigned_abs();
    let step = i128::from(d).unsigned_abs();
    let n = span.div_ceil(step);
    if n > max_elems as u128 {
        return Err(too_many(format!("{n}")));
    }
    let data: Vec<u8> = if start.dtype == TensorType::INT32 {
        let mut out = vec![0i32; n as usize];
        // In range by construction: every value lies between start and limit.
        k::range(s as i32, d as i32, &mut out);
        bytemuck::cast_slice(&out).to_vec()
    } else {
        let mut out = vec![0i64; n as usize];
        k::range(s, d, &mut out);
        bytemuck::cast_slice(&out).to_vec()
    };
    Ok(Prepared {
        shape: vec![n as usize],
        dtype: start.dtype,
        node: Node::Constant(data),
    })
}

/// The one value of a constant INT32/INT64 scalar.
fn one_int(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<i64> {
    let v = ctx.const_ints(t)?;
    v.first()
        .copied()
        .ok_or_else(|| ctx.invalid(t.describe(), "must be a scalar"))
}

#[cfg(test)]
mod tests;
