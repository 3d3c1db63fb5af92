//! Shape and data-movement ops: RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION,
//! PAD/PADV2, STRIDED_SLICE, SLICE. They only move elements, so they run on any fixed-size
//! element type (the kernel is chosen by element size), not only float32.
//!
//! Quantized tensors (INT8, UINT8, INT16 with a scale): moving raw integers keeps their meaning
//! only when the output is quantized exactly like the input, so that is required (LiteRT's
//! converter always writes it so; a model that does not is "unsupported", never silently
//! reinterpreted). PAD pads with the output's zero point; CONCATENATION requantizes inputs whose
//! parameters differ from the output's as LiteRT's `ConcatenationWithScaling` does.

use super::{
    Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, elem_size, options,
};
use crate::graph::TensorType;
use crate::kernels::reference::int_elem::IntElem;
use crate::kernels::reference::shape::{
    self, ConcatRescale, PadParams, StridedSliceParams, TransposeParams,
};
use crate::tflite::schema::{
    ActivationFunctionType, ConcatenationOptionsT, ReshapeOptionsT, SqueezeOptionsT,
    StridedSliceOptionsT,
};
use crate::tflite::types::dtype_name;

/// Runs `$body` with `$i`/`$o` bound to the input/output viewed as elements of `$size` bytes.
macro_rules! by_size {
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

/// Element sizes the data-movement kernels handle.
fn movable_size(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<usize> {
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
fn quant_key(t: &TensorInfo<'_>) -> Option<(Vec<f32>, Vec<i64>)> {
    let q = t.quantization?;
    if q.scales().is_empty() {
        return None;
    }
    let zps = if q.zero_points().is_empty() {
        vec![0; q.scales().len()]
    } else {
        q.zero_points().to_vec()
    };
    Some((q.scales().to_vec(), zps))
}

/// For an op that passes quantized integers through unchanged (data movement, max pooling,
/// resizing): the output must be quantized exactly like the input, otherwise the same integers
/// would mean other values ("unsupported": no requantizing kernel for it). Non-quantized types
/// pass.
pub(crate) fn require_same_quantization(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    output: &TensorInfo<'_>,
) -> PrepareResult<()> {
    if !is_quantized_type(input.dtype) {
        return Ok(());
    }
    let (a, b) = (quant_key(input), quant_key(output));
    if a == b {
        return Ok(());
    }
    let show = |k: &Option<(Vec<f32>, Vec<i64>)>| match k {
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
fn same_type(
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

struct Copy;

impl Kernel for Copy {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        io.output().copy_from_slice(input);
    }
}

/// DENSIFY: its input is a sparse constant the engine expanded to its dense shape when it
/// loaded the constants (`kernels::reference::densify`); the output is that constant, folded.
pub fn prepare_densify(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let data = input.data.ok_or_else(|| {
        ctx.unsupported(
            input.describe(),
            "DENSIFY of a tensor that is not a constant (LiteRT only densifies constants)",
        )
    })?;
    Ok(Prepared {
        shape: input.shape.to_vec(),
        dtype: input.dtype,
        node: Node::Constant(data.to_vec()),
    })
}

/// RESHAPE: the new shape comes from the constant shape input, else the `new_shape` option, else
/// the output tensor's declared shape; one -1 is inferred.
pub fn prepare_reshape(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 2)?;
    let input = ctx.input(0)?;
    movable_size(ctx, &input)?;
    let out = ctx.output(0)?;
    let requested: Vec<i64> = match ctx.optional_input(1) {
        Some(s) if s.data.is_some() => ctx.const_ints(&s)?,
        _ => {
            let o = options!(ctx, ReshapeOptions, ReshapeOptionsT)?;
            match o.new_shape.filter(|v| !v.is_empty()) {
                Some(v) => v.into_iter().map(i64::from).collect(),
                None => out.shape.iter().map(|&d| d as i64).collect(),
            }
        }
    };
    let total = input.num_elements();
    let mut known = 1usize;
    let mut infer = None;
    for (i, &d) in requested.iter().enumerate() {
        match d {
            -1 if infer.is_none() => infer = Some(i),
            d if d >= 0 => {
                known = usize::try_from(d)
                    .ok()
                    .and_then(|d| known.checked_mul(d))
                    .ok_or_else(|| {
                        ctx.invalid(out.describe(), format!("shape {requested:?} overflows"))
                    })?;
            }
            _ => return Err(ctx.invalid(out.describe(), format!("bad new shape {requested:?}"))),
        }
    }
    let mut shape: Vec<usize> = requested.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = infer {
        if known == 0 || total % known != 0 {
            return Err(ctx.invalid(
                out.describe(),
                format!("cannot infer -1 in {requested:?} for {total} elements"),
            ));
        }
        shape[i] = total / known;
    } else if known != total {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "new shape {requested:?} holds {known} elements, input {:?} has {total}",
                input.shape
            ),
        ));
    }
    same_type(ctx, &input, shape, Copy)
}

/// SQUEEZE: drops the listed size-1 dims (all size-1 dims when none are listed).
pub fn prepare_squeeze(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    movable_size(ctx, &input)?;
    let o = options!(ctx, SqueezeOptions, SqueezeOptionsT)?;
    let rank = input.shape.len();
    let dims = o.squeeze_dims.unwrap_or_default();
    let mut drop = vec![false; rank];
    if dims.is_empty() {
        for (i, &d) in input.shape.iter().enumerate() {
            drop[i] = d == 1;
        }
    } else {
        for &a in &dims {
            let a = ctx.axis(&input, i64::from(a), rank)?;
            if input.shape[a] != 1 {
                return Err(ctx.invalid(
                    input.describe(),
                    format!("cannot squeeze dim {a} of size {}", input.shape[a]),
                ));
            }
            drop[a] = true;
        }
    }
    let shape = input
        .shape
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(s, _)| *s)
        .collect();
    same_type(ctx, &input, shape, Copy)
}

/// EXPAND_DIMS: inserts a size-1 dim at the constant axis.
pub fn prepare_expand_dims(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, axis_t) = (ctx.input(0)?, ctx.input(1)?);
    movable_size(ctx, &input)?;
    let axis = ctx.const_ints(&axis_t)?;
    let [a] = axis[..] else {
        return Err(ctx.invalid(axis_t.describe(), "axis must hold one value"));
    };
    let a = ctx.axis(&axis_t, a, input.shape.len() + 1)?;
    let mut shape = input.shape.to_vec();
    shape.insert(a, 1);
    same_type(ctx, &input, shape, Copy)
}

struct Transpose {
    size: usize,
    p: TransposeParams,
}

impl Kernel for Transpose {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        by_size!(self.size, input, io.output(), |i, o| shape::transpose(
            &self.p, i, o
        ));
    }
}

/// TRANSPOSE by a constant permutation.
pub fn prepare_transpose(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, perm_t) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let perm: Vec<usize> = ctx
        .const_ints(&perm_t)?
        .into_iter()
        .map(|a| ctx.axis(&perm_t, a, input.shape.len()))
        .collect::<PrepareResult<_>>()?;
    let p = TransposeParams::new(input.shape, &perm)
        .ok_or_else(|| ctx.invalid(perm_t.describe(), format!("{perm:?} is not a permutation")))?;
    same_type(ctx, &input, p.out_dims().to_vec(), Transpose { size, p })
}

/// One input's placement in a concatenation, and its requantization when its parameters differ
/// from the output's.
#[derive(Clone, Copy)]
struct Part {
    in_inner: usize,
    out_offset: usize,
    rescale: Option<ConcatRescale>,
}

struct Concat {
    size: usize,
    dtype: TensorType,
    outer: usize,
    out_inner: usize,
    parts: Vec<Part>,
}

/// Runs the requantizing concatenation of one part with `T` elements.
fn concat_rescaled<T: IntElem>(c: &Concat, part: &Part, r: &ConcatRescale, i: &[u8], o: &mut [u8]) {
    shape::concat_part_rescaled::<T>(
        c.outer,
        part.in_inner,
        c.out_inner,
        part.out_offset,
        r,
        bytemuck::cast_slice(i),
        bytemuck::cast_slice_mut(o),
    );
}

impl Kernel for Concat {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        for (k, part) in self.parts.iter().enumerate() {
            let input = io.input(k);
            match (&part.rescale, self.dtype) {
                (Some(r), TensorType::INT8) => {
                    concat_rescaled::<i8>(self, part, r, input, io.output());
                }
                (Some(r), TensorType::UINT8) => {
                    concat_rescaled::<u8>(self, part, r, input, io.output());
                }
                (Some(r), _) => concat_rescaled::<i16>(self, part, r, input, io.output()),
                (None, _) => by_size!(self.size, input, io.output(), |i, o| shape::concat_part(
                    self.outer,
                    part.in_inner,
                    self.out_inner,
                    part.out_offset,
                    i,
                    o
                )),
            }
        }
    }
}

/// CONCATENATION along `axis`: same type and rank, equal dims except along the axis. Mirrors
/// LiteRT's `concatenation.cc`: INT16 inputs and output need zero point 0; quantized inputs
/// (INT8, UINT8, INT16) whose scale or zero point differ from the output's are requantized as
/// `reference_ops::ConcatenationWithScaling` does (LiteRT itself only allows that for UINT8 and
/// rejects it for INT8), the others are copied.
pub fn prepare_concatenation(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = options!(ctx, ConcatenationOptions, ConcatenationOptionsT)?;
    if o.fused_activation_function != ActivationFunctionType::NONE {
        return Err(ctx.unsupported(String::new(), "fused activation on CONCATENATION"));
    }
    let first = ctx.input(0)?;
    let size = movable_size(ctx, &first)?;
    let rank = first.shape.len();
    let axis = ctx.axis(&first, i64::from(o.axis), rank)?;
    ctx.require_output_dtype(0, first.dtype)?;
    let out = ctx.output(0)?;
    let quantized = is_quantized_type(first.dtype) && quant_key(&out).is_some();
    let out_q = if quantized {
        Some(ctx.per_tensor_qparams(&out)?)
    } else {
        None
    };
    if first.dtype == TensorType::INT16 && out_q.is_some_and(|q| q.zero_point != 0) {
        return Err(ctx.invalid(out.describe(), "INT16 zero point must be 0"));
    }
    let mut shape = first.shape.to_vec();
    shape[axis] = 0;
    let inner_of = |s: &[usize]| s[axis..].iter().product::<usize>();
    let mut parts = Vec::with_capacity(ctx.inputs.len());
    for k in 0..ctx.inputs.len() {
        let t = ctx.input(k)?;
        if t.dtype != first.dtype {
            return Err(ctx.invalid(
                t.describe(),
                format!("type {} differs from input 0", dtype_name(t.dtype)),
            ));
        }
        if t.shape.len() != rank || (0..rank).any(|d| d != axis && t.shape[d] != first.shape[d]) {
            return Err(ctx.invalid(
                t.describe(),
                format!(
                    "shape {:?} does not concatenate with {:?} on axis {axis}",
                    t.shape, first.shape
                ),
            ));
        }
        let rescale = match out_q {
            Some(oq) => {
                let iq = ctx.per_tensor_qparams(&t)?;
                if t.dtype == TensorType::INT16 && iq.zero_point != 0 {
                    return Err(ctx.invalid(t.describe(), "INT16 zero point must be 0"));
                }
                (iq != oq)
                    .then(|| ConcatRescale::new(iq.scale, iq.zero_point, oq.scale, oq.zero_point))
            }
            None => {
                require_same_quantization(ctx, &t, &out)?;
                None
            }
        };
        let out_offset = inner_of(&shape);
        shape[axis] = shape[axis]
            .checked_add(t.shape[axis])
            .ok_or_else(|| ctx.invalid(t.describe(), "concatenated size overflows"))?;
        parts.push(Part {
            in_inner: inner_of(t.shape),
            out_offset,
            rescale,
        });
    }
    let outer = first.shape[..axis].iter().product();
    let out_inner = inner_of(&shape);
    Ok(Prepared {
        shape,
        dtype: first.dtype,
        node: Node::Kernel(Box::new(Concat {
            size,
            dtype: first.dtype,
            outer,
            out_inner,
            parts,
        })),
    })
}

struct Pad {
    size: usize,
    p: PadParams,
    /// The pad value's bytes (one element).
    value: [u8; 8],
}

impl Kernel for Pad {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        let v = &self.value;
        match self.size {
            1 => shape::pad(&self.p, v[0], input, io.output()),
            2 => shape::pad(
                &self.p,
                u16::from_le_bytes([v[0], v[1]]),
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(io.output()),
            ),
            4 => shape::pad(
                &self.p,
                u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(io.output()),
            ),
            _ => shape::pad(
                &self.p,
                u64::from_le_bytes(*v),
                bytemuck::cast_slice(input),
                bytemuck::cast_slice_mut(io.output()),
            ),
        }
    }
}

/// PAD / PADV2: constant `[rank, 2]` paddings; PADV2's constant pad value, else 0. As LiteRT's
/// `pad.cc`: quantized tensors (UINT8, and INT8/INT16 with a scale) pad with the output's zero
/// point, and a PADV2 constant must share the output's scale and zero point.
pub fn prepare_pad(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let (input, pads_t) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let pads = ctx.const_ints(&pads_t)?;
    let rank = input.shape.len();
    if pads.len() != rank * 2 {
        return Err(ctx.invalid(
            pads_t.describe(),
            format!("{} values for rank {rank} (need {})", pads.len(), rank * 2),
        ));
    }
    let pairs: Vec<(usize, usize)> = pads
        .chunks_exact(2)
        .map(|p| match (usize::try_from(p[0]), usize::try_from(p[1])) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            _ => Err(ctx.invalid(pads_t.describe(), format!("negative padding {pads:?}"))),
        })
        .collect::<PrepareResult<_>>()?;
    let p = PadParams::new(input.shape, &pairs)
        .ok_or_else(|| ctx.invalid(pads_t.describe(), "padded size overflows"))?;
    let out = ctx.output(0)?;
    let quantized = is_quantized_type(input.dtype) && quant_key(&input).is_some()
        || input.dtype == TensorType::UINT8;
    let mut value = [0u8; 8];
    match ctx.optional_input(2) {
        Some(v) => {
            let Some(data) = v.data else {
                return Err(ctx.unsupported(v.describe(), "pad value must be a constant"));
            };
            if v.dtype != input.dtype || data.len() != size {
                return Err(ctx.invalid(
                    v.describe(),
                    "pad value must be one element of the input's type",
                ));
            }
            if quantized && quant_key(&v) != quant_key(&out) {
                return Err(ctx.invalid(
                    v.describe(),
                    "a quantized pad value must have the output's scale and zero point",
                ));
            }
            value[..size].copy_from_slice(data);
        }
        None if quantized => {
            // LiteRT pads with the output's zero point, which must fit the type.
            let zp = out
                .quantization
                .and_then(|q| q.zero_points().first().copied())
                .unwrap_or(0);
            let fits = match input.dtype {
                TensorType::INT8 => i8::try_from(zp).is_ok(),
                TensorType::UINT8 => u8::try_from(zp).is_ok(),
                _ => i16::try_from(zp).is_ok(),
            };
            if !fits {
                return Err(ctx.invalid(
                    out.describe(),
                    format!("zero point {zp} outside the type's range"),
                ));
            }
            value = zp.to_le_bytes();
        }
        None => {}
    }
    same_type(ctx, &input, p.out_dims().to_vec(), Pad { size, p, value })
}

struct Slice {
    size: usize,
    p: StridedSliceParams,
}

impl Kernel for Slice {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        by_size!(self.size, input, io.output(), |i, o| shape::strided_slice(
            &self.p, i, o
        ));
    }
}

/// The masks of a STRIDED_SLICE.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SliceMasks {
    /// Ignore `begin[i]` (start at the first element in the stride's direction).
    pub begin: i32,
    /// Ignore `end[i]` (run to the last element).
    pub end: i32,
    /// Entry `i` stands for all remaining dims.
    pub ellipsis: i32,
    /// Entry `i` inserts a size-1 dim.
    pub new_axis: i32,
    /// Entry `i` takes one element and drops the dim.
    pub shrink: i32,
}

/// Canonicalises a strided slice as TensorFlow does (`ValidateStridedSliceOp`): expands the
/// ellipsis (or an implicit one at the end), resolves negative indices and masks, clamps to the
/// input. Returns, per input dim, `(begin, step, count)`, and the output shape (new axes added,
/// shrunk axes removed).
#[allow(clippy::type_complexity)]
pub fn canonical_strided_slice(
    dims: &[usize],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    m: SliceMasks,
) -> Result<(Vec<(isize, isize, usize)>, Vec<usize>), String> {
    let n = begin.len();
    if end.len() != n || strides.len() != n || n > 32 {
        return Err(format!(
            "begin/end/strides have {}/{}/{} values",
            n,
            end.len(),
            strides.len()
        ));
    }
    let bit = |mask: i32, i: usize| i < 32 && (mask >> i) & 1 == 1;
    let rank = dims.len();
    // Dense spec: per input dim (begin, end, stride, begin_masked, end_masked, shrink).
    let mut dense: Vec<(i64, i64, i64, bool, bool, bool)> = Vec::with_capacity(rank);
    // Output shape recipe: Some(dense index) or None for a new axis; shrunk dims are skipped.
    let mut gather: Vec<Option<usize>> = Vec::new();
    let has_ellipsis = (0..n).any(|i| bit(m.ellipsis, i));
    let mut seen_ellipsis = false;
    for i in 0..n {
        if bit(m.ellipsis, i) && !seen_ellipsis {
            seen_ellipsis = true;
            // New axes after the ellipsis do not consume input dims.
            let after = (i + 1..n).filter(|&j| !bit(m.new_axis, j)).count();
            let fill = rank
                .checked_sub(dense.len() + after)
                .ok_or("too many indices")?;
            for _ in 0..fill {
                gather.push(Some(dense.len()));
                dense.push((0, 0, 1, true, true, false));
            }
        } else if bit(m.new_axis, i) {
            gather.push(None);
        } else {
            if dense.len() == rank {
                return Err(format!("index {i} is beyond rank {rank}"));
            }
            let shrink = bit(m.shrink, i);
            if !shrink {
                gather.push(Some(dense.len()));
            }
            dense.push((
                begin[i],
                end[i],
                strides[i],
                bit(m.begin, i),
                bit(m.end, i),
                shrink,
            ));
        }
    }
    if !has_ellipsis {
        while dense.len() < rank {
            gather.push(Some(dense.len()));
            dense.push((0, 0, 1, true, true, false));
        }
    }
    if dense.len() != rank {
        return Err(format!("indices cover {} of {rank} dims", dense.len()));
    }
    let mut axes = Vec::with_capacity(rank);
    for (k, &(b, e, s, bm, em, shrink)) in dense.iter().enumerate() {
        if s == 0 {
            return Err(format!("stride 0 at dim {k}"));
        }
        let dim = i64::try_from(dims[k]).map_err(|_| "dim too large")?;
        if shrink {
            let x = if b < 0 { b + dim } else { b };
            if x < 0 || x >= dim {
                return Err(format!("index {b} out of range for dim {k} of size {dim}"));
            }
            axes.push((x as isize, 1, 1));
            continue;
        }
        let (lo, hi) = if s > 0 { (0, dim) } else { (-1, dim - 1) };
        let canon = |x: i64, masked: bool, is_end: bool| -> i64 {
            if masked {
                match (s > 0, is_end) {
                    (true, false) => 0,
                    (true, true) => dim,
                    (false, false) => dim - 1,
                    (false, true) => -1,
                }
            } else {
                let x = if x < 0 { x.saturating_add(dim) } else { x };
                x.clamp(lo, hi)
            }
        };
        let (b, e) = (canon(b, bm, false), canon(e, em, true));
        let count = if (s > 0 && e <= b) || (s < 0 && e >= b) {
            0
        } else {
            let span = (e - b).abs();
            let step = s.abs();
            (span + step - 1) / step
        };
        let step = isize::try_from(s).map_err(|_| "stride too large")?;
        axes.push((b as isize, step, count as usize));
    }
    let shape = gather.iter().map(|g| g.map_or(1, |k| axes[k].2)).collect();
    Ok((axes, shape))
}

/// STRIDED_SLICE with constant begin/end/strides and all five masks.
pub fn prepare_strided_slice(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(4, 4)?;
    let o = options!(ctx, StridedSliceOptions, StridedSliceOptionsT)?;
    if o.offset {
        return Err(ctx.unsupported(String::new(), "offset = true"));
    }
    let input = ctx.input(0)?;
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let (b, e, s) = (ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
    let (begin, end, strides) = (
        ctx.const_ints(&b)?,
        ctx.const_ints(&e)?,
        ctx.const_ints(&s)?,
    );
    let masks = SliceMasks {
        begin: o.begin_mask,
        end: o.end_mask,
        ellipsis: o.ellipsis_mask,
        new_axis: o.new_axis_mask,
        shrink: o.shrink_axis_mask,
    };
    let (axes, shape) = canonical_strided_slice(input.shape, &begin, &end, &strides, masks)
        .map_err(|r| ctx.invalid(b.describe(), r))?;
    let p = StridedSliceParams::new(input.shape, &axes)
        .ok_or_else(|| ctx.invalid(b.describe(), "slice leaves the input"))?;
    same_type(ctx, &input, shape, Slice { size, p })
}

/// SLICE with constant begin and size (size -1 = to the end).
pub fn prepare_slice(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let input = ctx.input(0)?;
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let (b, s) = (ctx.input(1)?, ctx.input(2)?);
    let (begin, sizes) = (ctx.const_ints(&b)?, ctx.const_ints(&s)?);
    let rank = input.shape.len();
    if begin.len() != rank || sizes.len() != rank {
        return Err(ctx.invalid(
            b.describe(),
            format!("begin {begin:?} / size {sizes:?} for rank {rank}"),
        ));
    }
    let mut axes = Vec::with_capacity(rank);
    for k in 0..rank {
        let dim = input.shape[k] as i64;
        let start = begin[k];
        let count = if sizes[k] == -1 {
            dim - start
        } else {
            sizes[k]
        };
        if start < 0 || count < 0 || start.checked_add(count).is_none_or(|end| end > dim) {
            return Err(ctx.invalid(
                b.describe(),
                format!(
                    "begin {start} size {} leaves dim {k} of size {dim}",
                    sizes[k]
                ),
            ));
        }
        axes.push((start as isize, 1, count as usize));
    }
    let p = StridedSliceParams::new(input.shape, &axes)
        .ok_or_else(|| ctx.invalid(b.describe(), "slice leaves the input"))?;
    let shape = axes.iter().map(|a| a.2).collect();
    same_type(ctx, &input, shape, Slice { size, p })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(
        dims: &[usize],
        b: &[i64],
        e: &[i64],
        s: &[i64],
        m: SliceMasks,
    ) -> (Vec<(isize, isize, usize)>, Vec<usize>) {
        canonical_strided_slice(dims, b, e, s, m).expect("valid slice")
    }

    #[test]
    fn strided_slice_basic_negative_and_masks() {
        // x[1:-1] on [5]
        let (a, s) = ss(&[5], &[1], &[-1], &[1], SliceMasks::default());
        assert_eq!((a, s), (vec![(1, 1, 3)], vec![3]));
        // x[::-1]
        let m = SliceMasks {
            begin: 1,
            end: 1,
            ..Default::default()
        };
        let (a, s) = ss(&[5], &[0], &[0], &[-1], m);
        assert_eq!((a, s), (vec![(4, -1, 5)], vec![5]));
        // x[::2] on [5] → 0, 2, 4
        let (a, _) = ss(&[5], &[0], &[5], &[2], SliceMasks::default());
        assert_eq!(a, vec![(0, 2, 3)]);
        // Out-of-range ends clamp.
        let (a, _) = ss(&[5], &[-100], &[100], &[1], SliceMasks::default());
        assert_eq!(a, vec![(0, 1, 5)]);
    }

    #[test]
    fn strided_slice_shrink_ellipsis_new_axis() {
        // x[:, -1] on [2, 3] (TF: begin [0, -1], end [0, 0], begin_mask 1, end_mask 1, shrink 2)
        let m = SliceMasks {
            begin: 1,
            end: 1,
            shrink: 2,
            ..Default::default()
        };
        let (a, s) = ss(&[2, 3], &[0, -1], &[0, 0], &[1, 1], m);
        assert_eq!(a, vec![(0, 1, 2), (2, 1, 1)]);
        assert_eq!(s, vec![2]);
        // x[..., 0] on [2, 3, 4]: ellipsis then shrink on the last dim.
        let m = SliceMasks {
            ellipsis: 1,
            shrink: 2,
            ..Default::default()
        };
        let (a, s) = ss(&[2, 3, 4], &[0, 0], &[0, 1], &[1, 1], m);
        assert_eq!(a, vec![(0, 1, 2), (0, 1, 3), (0, 1, 1)]);
        assert_eq!(s, vec![2, 3]);
        // x[tf.newaxis, 1:] on [3]: new axis first.
        let m = SliceMasks {
            new_axis: 1,
            ..Default::default()
        };
        let (a, s) = ss(&[3], &[0, 1], &[0, 3], &[1, 1], m);
        assert_eq!(a, vec![(1, 1, 2)]);
        assert_eq!(s, vec![1, 2]);
        // Fewer indices than dims: the rest is taken whole.
        let (a, s) = ss(&[2, 3], &[1], &[2], &[1], SliceMasks::default());
        assert_eq!(a, vec![(1, 1, 1), (0, 1, 3)]);
        assert_eq!(s, vec![1, 3]);
    }

    #[test]
    fn strided_slice_rejects_zero_stride_and_bad_shrink() {
        assert!(canonical_strided_slice(&[3], &[0], &[3], &[0], SliceMasks::default()).is_err());
        let m = SliceMasks {
            shrink: 1,
            ..Default::default()
        };
        assert!(canonical_strided_slice(&[3], &[3], &[4], &[1], m).is_err());
        assert!(canonical_strided_slice(&[3], &[0, 0], &[1], &[1], SliceMasks::default()).is_err());
    }
}

/// Tiny quantized models for the end-to-end tests of this file and of `pool`, `reduce` and
/// `resize`: one operator, activation inputs, optional constants, per-tensor quantization.
#[cfg(test)]
pub(crate) mod test_model {
    use crate::engine::Interpreter;
    use crate::graph::{
        Buffer, BuiltinOperator, BuiltinOptionsT, CustomOptionsFormat, Model, OpCode, Operator,
        Quantization, Subgraph, Tensor, TensorType,
    };

    /// One tensor of a test model.
    pub(crate) struct T {
        pub dtype: TensorType,
        pub shape: Vec<i32>,
        /// `(scale, zero point)`, when quantized.
        pub q: Option<(f32, i64)>,
        /// Constant bytes, when constant.
        pub data: Option<Vec<u8>>,
    }

    /// An activation tensor.
    pub(crate) fn act(dtype: TensorType, shape: &[i32], q: Option<(f32, i64)>) -> T {
        T {
            dtype,
            shape: shape.to_vec(),
            q,
            data: None,
        }
    }

    /// A constant INT32 tensor.
    pub(crate) fn ints(shape: &[i32], v: &[i32]) -> T {
        T {
            dtype: TensorType::INT32,
            shape: shape.to_vec(),
            q: None,
            data: Some(bytemuck::cast_slice(v).to_vec()),
        }
    }

    /// A model running `code` on `tensors` (the last one is the output; constants are inputs
    /// too, in order; the rest are graph inputs).
    pub(crate) fn single_op(
        code: BuiltinOperator,
        options: BuiltinOptionsT,
        tensors: Vec<T>,
    ) -> Model {
        let n = tensors.len();
        let mut buffers = vec![Buffer::default()];
        let mut graph_inputs = Vec::new();
        let mut ts = Vec::new();
        for (i, t) in tensors.into_iter().enumerate() {
            let mut tensor = Tensor::new(format!("t{i}"), t.dtype, t.shape);
            tensor.quantization = t.q.map(|(s, z)| Quantization {
                scale: Some(vec![s]),
                zero_point: Some(vec![z]),
                ..Default::default()
            });
            match t.data {
                Some(d) => {
                    tensor.buffer = buffers.len() as u32;
                    buffers.push(Buffer { data: d });
                }
                None if i + 1 < n => graph_inputs.push(i as i32),
                None => {}
            }
            ts.push(tensor);
        }
        let op = Operator {
            code: OpCode::builtin(code, 1),
            inputs: (0..n as i32 - 1).collect(),
            outputs: vec![n as i32 - 1],
            intermediates: None,
            options,
            options_2: Default::default(),
            custom_options: None,
            custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
            mutating_variable_inputs: None,
            debug_metadata_index: -1,
        };
        Model {
            version: 3,
            subgraphs: vec![Subgraph {
                tensors: ts,
                inputs: graph_inputs,
                outputs: vec![n as i32 - 1],
                operators: vec![op],
                ..Default::default()
            }],
            buffers,
            ..Default::default()
        }
    }

    /// Runs `m` on the given raw inputs; returns the output bytes.
    pub(crate) fn run(m: &Model, inputs: &[&[u8]]) -> Vec<u8> {
        let mut it = Interpreter::new(m).expect("prepares");
        for (i, b) in inputs.iter().enumerate() {
            it.set_input(i, b).expect("input fits");
        }
        it.invoke();
        it.output(0).expect("output").bytes.to_vec()
    }

    /// The prepare error of `m`, as text.
    pub(crate) fn error(m: &Model) -> String {
        match Interpreter::new(m) {
            Ok(_) => panic!("expected a prepare error"),
            Err(e) => e.to_string(),
        }
    }

    /// `i8` values as bytes.
    pub(crate) fn i8s(v: &[i8]) -> Vec<u8> {
        bytemuck::cast_slice(v).to_vec()
    }
}

#[cfg(test)]
mod int_tests {
    use super::test_model::{act, error, i8s, ints, run, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::tflite::schema::{ConcatenationOptionsT, ReshapeOptionsT};

    const I8: TensorType = TensorType::INT8;

    fn concat(axis: i32) -> BuiltinOptionsT {
        BuiltinOptionsT::ConcatenationOptions(Box::new(ConcatenationOptionsT {
            axis,
            ..Default::default()
        }))
    }

    #[test]
    fn concat_requantizes_only_the_input_with_other_parameters() {
        // in0 (0.5, 10) → out (0.25, -3): q · 2 − 20 − 3; in1 shares the output's parameters.
        let m = single_op(
            Op::CONCATENATION,
            concat(1),
            vec![
                act(I8, &[1, 2], Some((0.5, 10))),
                act(I8, &[1, 2], Some((0.25, -3))),
                act(I8, &[1, 4], Some((0.25, -3))),
            ],
        );
        let out = run(&m, &[&i8s(&[10, 60]), &i8s(&[-128, 127])]);
        // 10 → -3; 60 → 100 - 3 = 97 (saturating only past 127).
        assert_eq!(out, i8s(&[-3, 97, -128, 127]));
    }

    #[test]
    fn int16_concat_needs_zero_point_zero() {
        let i16q = |zp| act(TensorType::INT16, &[2], Some((0.001, zp)));
        let m = single_op(
            Op::CONCATENATION,
            concat(0),
            vec![i16q(0), i16q(3), i16q(0)],
        );
        assert!(error(&m).contains("INT16 zero point must be 0"));
    }

    #[test]
    fn pad_writes_the_output_zero_point_and_checks_padv2_constants() {
        // [1, 2] padded by one on each side of axis 1, zero point 127.
        let m = single_op(
            Op::PAD,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.01, 127))),
                ints(&[2, 2], &[0, 0, 1, 1]),
                act(I8, &[1, 4], Some((0.01, 127))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[-5, 6])]), i8s(&[127, -5, 6, 127]));
        // PADV2 with a constant whose scale is not the output's.
        let mut value = act(I8, &[], Some((0.02, 127)));
        value.data = Some(i8s(&[0]));
        let m = single_op(
            Op::PADV2,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.01, 127))),
                ints(&[2, 2], &[0, 0, 1, 1]),
                value,
                act(I8, &[1, 4], Some((0.01, 127))),
            ],
        );
        assert!(error(&m).contains("output's scale and zero point"));
    }

    #[test]
    fn padv2_uses_its_constant() {
        let mut value = act(I8, &[], Some((0.01, -128)));
        value.data = Some(i8s(&[-100]));
        let m = single_op(
            Op::PADV2,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2], Some((0.01, -128))),
                ints(&[1, 2], &[1, 0]),
                value,
                act(I8, &[3], Some((0.01, -128))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, 2])]), i8s(&[-100, 1, 2]));
    }

    #[test]
    fn reshape_of_quantized_values_needs_the_same_parameters() {
        let opts = || BuiltinOptionsT::ReshapeOptions(Box::<ReshapeOptionsT>::default());
        let m = single_op(
            Op::RESHAPE,
            opts(),
            vec![
                act(I8, &[2, 2], Some((0.5, 1))),
                ints(&[1], &[4]),
                act(I8, &[4], Some((0.5, 2))),
            ],
        );
        let e = error(&m);
        assert!(
            e.contains("unsupported") && e.contains("zero point [2]"),
            "{e}"
        );
        let m = single_op(
            Op::RESHAPE,
            opts(),
            vec![
                act(I8, &[2, 2], Some((0.5, 1))),
                ints(&[1], &[4]),
                act(I8, &[4], Some((0.5, 1))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, -2, 3, -4])]), i8s(&[1, -2, 3, -4]));
    }
}
