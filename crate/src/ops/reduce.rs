//! Reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD over constant axes, with
//! `keep_dims`: float32, and quantized INT8 / UINT8 / INT16 (LiteRT's reference paths:
//! `QuantizedMeanOrSum` for MEAN and SUM, the raw-integer max / min for REDUCE_MAX / REDUCE_MIN,
//! `QuantizedReduceProd` for REDUCE_PROD); SUM / REDUCE_PROD / REDUCE_MAX / REDUCE_MIN also on plain
//! INT32 / INT64 (the shape arithmetic of Keras exports); REDUCE_ANY over BOOL. ARG_MAX / ARG_MIN over one
//! constant axis: float32, INT32 and quantized INT8 / UINT8 in, INT32 or INT64 indices out
//! (never quantized). CUMSUM along one constant axis: float32, INT32, INT64.

use super::shape::require_same_quantization;
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::litert_optimized::reduce as litert_reduce;
use crate::kernels::reference::int_elem::IntElem;
use crate::kernels::reference::reduce::{
    self, ArgParams, PlainInt, PlainReduce, QuantizedProd, QuantizedReduce, QuantizedSum,
    ReduceParams,
};
use crate::kernels::simd128::reduce_int::GroupSums;
use crate::kernels::xnnpack::reduce::{self as xnn_reduce, MeanParams};
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite::schema::{ArgMaxOptionsT, ArgMinOptionsT, CumsumOptionsT, ReducerOptionsT};

#[derive(Clone, Copy)]
enum Reducer {
    Mean,
    Sum,
    Max,
    Min,
    Prod,
    Any,
}

struct Reduce {
    reducer: Reducer,
    p: ReduceParams,
    /// For MEAN over trailing dims with `KernelSet::LiteRtOptimized`: the reduced length, summed
    /// as LiteRT's optimized kernel sums it.
    litert_last_axis: Option<usize>,
}

impl Kernel for Reduce {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        let out = io.f32_out();
        match (self.reducer, self.litert_last_axis) {
            (Reducer::Mean, Some(n)) => litert_reduce::mean_last_axis(n, input, out),
            (Reducer::Mean, None) => reduce::mean(&self.p, input, out),
            (Reducer::Sum, _) => reduce::sum(&self.p, input, out),
            (Reducer::Max, _) => reduce::max(&self.p, input, out),
            (Reducer::Min, _) => reduce::min(&self.p, input, out),
            (Reducer::Prod, _) => reduce::prod(&self.p, input, out),
            // Prepare sends BOOL inputs to `AnyReduce`.
            (Reducer::Any, _) => {}
        }
    }
}

/// REDUCE_ANY on BOOL bytes.
struct AnyReduce {
    p: ReduceParams,
}

impl Kernel for AnyReduce {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<u8>(0);
        reduce::any(&self.p, input, io.out_as::<u8>());
    }
}

/// What a quantized reduction does with its integers.
#[derive(Clone, Copy)]
enum IntOp {
    /// MEAN (and int16 SUM): requantized sum.
    MeanOrSum(QuantizedReduce),
    /// 8-bit SUM: sum rescaled in float.
    Sum8(QuantizedSum),
    /// REDUCE_MAX: raw max.
    Max,
    /// REDUCE_MIN: raw min.
    Min,
    /// REDUCE_PROD: rescaled running product.
    Prod(QuantizedProd),
}

/// A quantized reduction on `T` elements.
struct IntReduce<T> {
    op: IntOp,
    p: ReduceParams,
    _t: std::marker::PhantomData<T>,
}

impl<T: IntElem> Kernel for IntReduce<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<T>(0);
        let out = io.out_as::<T>();
        match &self.op {
            IntOp::MeanOrSum(q) => reduce::quantized_mean_or_sum(&self.p, q, input, out),
            IntOp::Sum8(q) => reduce::quantized_sum_8bit(&self.p, q, input, out),
            IntOp::Max => reduce::max_int(&self.p, input, out),
            IntOp::Min => reduce::min_int(&self.p, input, out),
            IntOp::Prod(q) => reduce::quantized_prod(&self.p, q, input, out),
        }
    }
}

/// int8 MEAN in XNNPACK's arithmetic ([`Arithmetic::Xnnpack`], [`xnn_reduce`]).
struct XnnMean {
    q: MeanParams,
    p: ReduceParams,
}

impl Kernel for XnnMean {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<i8>(0);
        xnn_reduce::mean(&self.p, &self.q, input, io.out_as::<i8>());
    }
}

/// The scalar requantization that follows the group sums of a fast int8 MEAN.
enum MeanFinish {
    /// XNNPACK's ([`MeanParams::apply`]).
    Xnnpack(MeanParams),
    /// LiteRT's reference ([`QuantizedReduce::requantize`]) with the group's element count.
    Reference(QuantizedReduce, i64),
}

/// int8 MEAN with the group sums in SIMD128 ([`GroupSums`]): the same wrapping int32 sums as the
/// scalar fold, then [`MeanFinish`]'s scalar requantization of each.
struct FastMean {
    sums: GroupSums,
    finish: MeanFinish,
}

impl Kernel for FastMean {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<i8>(0);
        let out = io.out_as::<i8>();
        let sums = self.sums.sums(input);
        match &self.finish {
            MeanFinish::Xnnpack(q) => {
                for (o, &s) in out.iter_mut().zip(sums) {
                    *o = q.apply(s);
                }
            }
            MeanFinish::Reference(q, n) => {
                for (o, &s) in out.iter_mut().zip(sums) {
                    *o = i8::saturate(q.requantize(s, *n));
                }
            }
        }
    }
}

/// SUM / REDUCE_PROD / REDUCE_MAX / REDUCE_MIN on plain (unquantized) INT32 / INT64.
struct PlainIntReduce<T> {
    op: PlainReduce,
    p: ReduceParams,
    _t: std::marker::PhantomData<T>,
}

impl<T: PlainInt> Kernel for PlainIntReduce<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<T>(0);
        reduce::plain_int(&self.p, self.op, input, io.out_as::<T>());
    }
}

fn plain_reduce<T: PlainInt>(
    op: PlainReduce,
    p: ReduceParams,
    shape: Vec<usize>,
    dtype: TensorType,
) -> Prepared {
    Prepared::new(
        shape,
        dtype,
        PlainIntReduce::<T> {
            op,
            p,
            _t: std::marker::PhantomData,
        },
    )
}

fn int_reduce<T: IntElem>(
    op: IntOp,
    p: ReduceParams,
    shape: Vec<usize>,
    dtype: TensorType,
) -> Prepared {
    Prepared::new(
        shape,
        dtype,
        IntReduce::<T> {
            op,
            p,
            _t: std::marker::PhantomData,
        },
    )
}

/// MEAN / SUM / REDUCE_MAX / REDUCE_MIN / REDUCE_PROD: input float32 or quantized INT8 / UINT8 /
/// INT16, and (all but MEAN) plain INT32 / INT64 for shape arithmetic; REDUCE_ANY: input BOOL. Axes a constant int32 scalar or vector (negative axes count
/// from the end, duplicates are ignored).
pub fn prepare_reduce(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let o = options!(ctx, ReducerOptions, ReducerOptionsT)?;
    let reducer = match ctx.op.code.op() {
        BuiltinOperator::MEAN => Reducer::Mean,
        BuiltinOperator::SUM => Reducer::Sum,
        BuiltinOperator::REDUCE_MAX => Reducer::Max,
        BuiltinOperator::REDUCE_MIN => Reducer::Min,
        BuiltinOperator::REDUCE_PROD => Reducer::Prod,
        BuiltinOperator::REDUCE_ANY => Reducer::Any,
        _ => return Err(ctx.unsupported(String::new(), "not a reduction")),
    };
    let (input, axes_t) = (ctx.input(0)?, ctx.input(1)?);
    if matches!(reducer, Reducer::Any) {
        ctx.require_dtype(&input, &[TensorType::BOOL])?;
    } else if matches!(input.dtype, TensorType::INT32 | TensorType::INT64)
        && !matches!(reducer, Reducer::Mean)
    {
        // Plain integers (shape arithmetic): SUM / PROD / MAX / MIN.
    } else {
        ctx.require_dtype(
            &input,
            &[
                TensorType::FLOAT32,
                TensorType::INT8,
                TensorType::UINT8,
                TensorType::INT16,
            ],
        )?;
    }
    ctx.require_output_dtype(0, input.dtype)?;
    ctx.require_max_rank(&input)?;
    let rank = input.shape.len();
    let axes = ctx
        .const_ints(&axes_t)?
        .into_iter()
        .map(|a| ctx.axis(&axes_t, a, rank))
        .collect::<PrepareResult<Vec<usize>>>()?;
    let p = ReduceParams::new(input.shape, &axes)
        .ok_or_else(|| ctx.invalid(axes_t.describe(), "axes out of range"))?;
    let mut shape = Vec::with_capacity(rank);
    for (i, &d) in input.shape.iter().enumerate() {
        if !axes.contains(&i) {
            shape.push(d);
        } else if o.keep_dims {
            shape.push(1);
        }
    }
    if input.dtype == TensorType::BOOL {
        return Ok(Prepared::new(shape, input.dtype, AnyReduce { p }));
    }
    let plain = match reducer {
        Reducer::Sum => Some(PlainReduce::Sum),
        Reducer::Prod => Some(PlainReduce::Prod),
        Reducer::Max => Some(PlainReduce::Max),
        Reducer::Min => Some(PlainReduce::Min),
        Reducer::Mean | Reducer::Any => None,
    };
    match (input.dtype, plain) {
        (TensorType::INT32, Some(op)) => {
            return Ok(plain_reduce::<i32>(op, p, shape, input.dtype));
        }
        (TensorType::INT64, Some(op)) => {
            return Ok(plain_reduce::<i64>(op, p, shape, input.dtype));
        }
        _ => {}
    }
    if input.dtype == TensorType::FLOAT32 {
        let litert_last_axis = match reducer {
            Reducer::Mean if ctx.litert_optimized() => {
                litert_reduce::last_axis_split(input.shape, &axes).map(|(_, n)| n)
            }
            _ => None,
        };
        return Ok(Prepared::f32(
            shape,
            Reduce {
                reducer,
                p,
                litert_last_axis,
            },
        ));
    }
    let out = ctx.output(0)?;
    let op = match reducer {
        Reducer::Max | Reducer::Min | Reducer::Any => {
            // reduce.cc: input and output scale and zero point must be equal.
            require_same_quantization(ctx, &input, &out)?;
            if matches!(reducer, Reducer::Min) {
                IntOp::Min
            } else {
                IntOp::Max
            }
        }
        Reducer::Prod => {
            let (iq, oq) = (
                ctx.per_tensor_qparams(&input)?,
                ctx.per_tensor_qparams(&out)?,
            );
            // reduce.cc `GetQuantProdScaling`: the reduced count is the ratio of the sizes.
            let out_n: usize = shape.iter().product();
            let n = input.num_elements().checked_div(out_n).unwrap_or(0);
            if n == 0 {
                return Err(ctx.unsupported(input.describe(), "quantized product of nothing"));
            }
            let step = f64::from(iq.scale) / f64::from(oq.scale).powf(1.0 / n as f64);
            let (multiplier, shift) = quantize_multiplier(step);
            IntOp::Prod(QuantizedProd {
                input_zero_point: iq.zero_point,
                multiplier,
                shift,
                output_zero_point: oq.zero_point,
            })
        }
        Reducer::Mean | Reducer::Sum => {
            let (iq, oq) = (
                ctx.per_tensor_qparams(&input)?,
                ctx.per_tensor_qparams(&out)?,
            );
            if input.dtype == TensorType::INT16 {
                for (t, q) in [(&input, iq), (&out, oq)] {
                    if q.zero_point != 0 {
                        return Err(ctx.invalid(t.describe(), "INT16 zero point must be 0"));
                    }
                }
            }
            // int8 MEAN with the fast kernels: the group sums in SIMD128 where the geometry
            // allows (`GroupSums::new` refuses empty groups).
            let fast_sums = (matches!(reducer, Reducer::Mean)
                && input.dtype == TensorType::INT8
                && ctx.kernels == KernelSet::Fast)
                .then(|| GroupSums::new(input.shape, &axes))
                .flatten();
            if matches!(reducer, Reducer::Mean)
                && input.dtype == TensorType::INT8
                && ctx.arithmetic == Arithmetic::Xnnpack
                && p.count() > 0
            {
                let q = MeanParams::new(
                    (iq.scale, iq.zero_point),
                    (oq.scale, oq.zero_point),
                    p.count(),
                );
                if let Some(sums) = fast_sums {
                    let finish = MeanFinish::Xnnpack(q);
                    return Ok(Prepared::new(shape, input.dtype, FastMean { sums, finish }));
                }
                return Ok(Prepared::new(shape, input.dtype, XnnMean { q, p }));
            }
            if matches!(reducer, Reducer::Sum) && input.dtype != TensorType::INT16 {
                IntOp::Sum8(QuantizedSum::new(
                    iq.scale,
                    iq.zero_point,
                    oq.scale,
                    oq.zero_point,
                    p.count(),
                ))
            } else {
                let (m, shift) = quantize_multiplier(f64::from(iq.scale) / f64::from(oq.scale));
                let q = QuantizedReduce::new(
                    iq.zero_point,
                    m,
                    shift,
                    oq.zero_point,
                    p.count(),
                    matches!(reducer, Reducer::Mean),
                );
                if let Some(sums) = fast_sums {
                    let n = i64::try_from(p.count()).unwrap_or(i64::MAX);
                    let finish = MeanFinish::Reference(q, n);
                    return Ok(Prepared::new(shape, input.dtype, FastMean { sums, finish }));
                }
                IntOp::MeanOrSum(q)
            }
        }
    };
    Ok(match input.dtype {
        TensorType::INT8 => int_reduce::<i8>(op, p, shape, input.dtype),
        TensorType::UINT8 => int_reduce::<u8>(op, p, shape, input.dtype),
        _ => int_reduce::<i16>(op, p, shape, input.dtype),
    })
}

/// ARG_MAX / ARG_MIN on `T` values, writing `O` indices.
struct Arg<T, O> {
    p: ArgParams,
    max: bool,
    _t: std::marker::PhantomData<(T, O)>,
}

impl<T: PartialOrd + bytemuck::Pod, O: bytemuck::Pod + TryFrom<usize> + Default> Kernel
    for Arg<T, O>
{
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<T>(0);
        // Prepare checked that the axis length fits the index type.
        let index = |i: usize| O::try_from(i).unwrap_or_default();
        reduce::arg_min_max(&self.p, self.max, input, io.out_as::<O>(), index);
    }
}

fn arg_of<T: PartialOrd + bytemuck::Pod>(
    p: ArgParams,
    max: bool,
    shape: Vec<usize>,
    out: TensorType,
) -> Prepared {
    if out == TensorType::INT64 {
        Prepared::new(
            shape,
            out,
            Arg::<T, i64> {
                p,
                max,
                _t: std::marker::PhantomData,
            },
        )
    } else {
        Prepared::new(
            shape,
            out,
            Arg::<T, i32> {
                p,
                max,
                _t: std::marker::PhantomData,
            },
        )
    }
}

/// ARG_MAX / ARG_MIN: input FLOAT32, INT32 or quantized INT8 / UINT8 (compared raw: the order
/// of quantized values is the order of the real ones), axis a constant INT32 / INT64 with one
/// element (negative counts from the end), output INT32 or INT64 as the options say; the axis
/// is removed from the shape.
pub fn prepare_arg_min_max(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (max, out_type) = match ctx.op.code.op() {
        BuiltinOperator::ARG_MAX => (
            true,
            options!(ctx, ArgMaxOptions, ArgMaxOptionsT)?.output_type,
        ),
        BuiltinOperator::ARG_MIN => (
            false,
            options!(ctx, ArgMinOptions, ArgMinOptionsT)?.output_type,
        ),
        _ => return Err(ctx.unsupported(String::new(), "not ARG_MAX or ARG_MIN")),
    };
    let (input, axis_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_dtype(
        &input,
        &[
            TensorType::FLOAT32,
            TensorType::INT32,
            TensorType::INT8,
            TensorType::UINT8,
        ],
    )?;
    ctx.require_max_rank(&input)?;
    let out = ctx.output(0)?;
    ctx.require_dtype(&out, &[TensorType::INT32, TensorType::INT64])?;
    if out.dtype != out_type {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "type differs from the options' output type {}",
                crate::graph::dtype::dtype_name(out_type)
            ),
        ));
    }
    let axes = ctx.const_ints(&axis_t)?;
    let [axis] = axes[..] else {
        return Err(ctx.invalid(
            axis_t.describe(),
            format!("expected one axis, got {}", axes.len()),
        ));
    };
    let rank = input.shape.len();
    let axis = ctx.axis(&axis_t, axis, rank)?;
    let dims = input.shape;
    if dims[axis] == 0 {
        return Err(ctx.invalid(input.describe(), "the reduced axis is empty"));
    }
    if out.dtype == TensorType::INT32 && i32::try_from(dims[axis]).is_err() {
        return Err(ctx.unsupported(out.describe(), "axis too long for INT32 indices"));
    }
    let p = ArgParams {
        outer: dims[..axis].iter().product(),
        axis: dims[axis],
        inner: dims[axis + 1..].iter().product(),
    };
    let shape: Vec<usize> = dims
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != axis)
        .map(|(_, &d)| d)
        .collect();
    Ok(match input.dtype {
        TensorType::FLOAT32 => arg_of::<f32>(p, max, shape, out.dtype),
        TensorType::INT32 => arg_of::<i32>(p, max, shape, out.dtype),
        TensorType::INT8 => arg_of::<i8>(p, max, shape, out.dtype),
        _ => arg_of::<u8>(p, max, shape, out.dtype),
    })
}

/// CUMSUM on `T` elements.
struct Cumsum<T> {
    p: ArgParams,
    exclusive: bool,
    reverse: bool,
    _t: std::marker::PhantomData<T>,
}

impl<T: bytemuck::Pod + reduce::CumAdd> Kernel for Cumsum<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<T>(0);
        reduce::cumsum(
            &self.p,
            self.exclusive,
            self.reverse,
            input,
            io.out_as::<T>(),
        );
    }
}

fn cumsum_of<T: bytemuck::Pod + reduce::CumAdd>(
    p: ArgParams,
    o: &CumsumOptionsT,
    shape: Vec<usize>,
    dtype: TensorType,
) -> Prepared {
    Prepared::new(
        shape,
        dtype,
        Cumsum::<T> {
            p,
            exclusive: o.exclusive,
            reverse: o.reverse,
            _t: std::marker::PhantomData,
        },
    )
}

/// CUMSUM: input FLOAT32, INT32 or INT64 (LiteRT has no quantized kernel: TF keeps it float),
/// axis a constant INT32 scalar (negative counts from the end); `exclusive` and `reverse`
/// options; the output has the input's shape.
pub fn prepare_cumsum(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let o = options!(ctx, CumsumOptions, CumsumOptionsT)?;
    let (input, axis_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_dtype(
        &input,
        &[TensorType::FLOAT32, TensorType::INT32, TensorType::INT64],
    )?;
    ctx.require_output_dtype(0, input.dtype)?;
    ctx.require_max_rank(&input)?;
    let axes = ctx.const_ints(&axis_t)?;
    let [axis] = axes[..] else {
        return Err(ctx.invalid(
            axis_t.describe(),
            format!("expected one axis, got {}", axes.len()),
        ));
    };
    let dims = input.shape;
    let axis = ctx.axis(&axis_t, axis, dims.len())?;
    let p = ArgParams {
        outer: dims[..axis].iter().product(),
        axis: dims[axis],
        inner: dims[axis + 1..].iter().product(),
    };
    let shape = dims.to_vec();
    Ok(match input.dtype {
        TensorType::FLOAT32 => cumsum_of::<f32>(p, &o, shape, input.dtype),
        TensorType::INT32 => cumsum_of::<i32>(p, &o, shape, input.dtype),
        _ => cumsum_of::<i64>(p, &o, shape, input.dtype),
    })
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{act, error, i8s, ints, run, run_xnnpack, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::tflite::schema::ReducerOptionsT;

    fn reducer() -> BuiltinOptionsT {
        BuiltinOptionsT::ReducerOptions(Box::new(ReducerOptionsT { keep_dims: false }))
    }

    #[test]
    fn int8_mean_rescales_and_divides_in_fixed_point() {
        // in (0.5, 0) → out (0.25, 0): multiplier 2 = (2^30, 2); count 3 folds to
        // ((2^30 << 1) / 3, 1). Rows [1, 2, 4] → 7 · 2 / 3 = 4.67 → 5; [-1, -2, -2] → -3.33 → -3.
        let m = single_op(
            Op::MEAN,
            reducer(),
            vec![
                act(TensorType::INT8, &[2, 3], Some((0.5, 0))),
                ints(&[1], &[1]),
                act(TensorType::INT8, &[2], Some((0.25, 0))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, 2, 4, -1, -2, -2])]), i8s(&[5, -3]));
    }

    #[test]
    fn int8_mean_under_xnnpack_rounds_the_sum_and_the_zero_point_term_apart() {
        // in (1, 1) → out (1, 0), n = 2: XNNPACK computes sum · 0.5 − 1 and rounds to even; the
        // reference (sum − 2) · 0.5 in fixed point, rounding positive halves up. Rows [1, 2]:
        // 0.5 → 0 and 1; [5, 6]: 4.5 → 4 and 5; [3, 4]: 2.5 → 2 and 3.
        let m = single_op(
            Op::MEAN,
            reducer(),
            vec![
                act(TensorType::INT8, &[3, 2], Some((1.0, 1))),
                ints(&[1], &[1]),
                act(TensorType::INT8, &[3], Some((1.0, 0))),
            ],
        );
        let x = i8s(&[1, 2, 5, 6, 3, 4]);
        assert_eq!(run(&m, &[&x]), i8s(&[1, 5, 3]));
        assert_eq!(run_xnnpack(&m, &[&x]), i8s(&[0, 4, 2]));
    }

    #[test]
    fn int8_sum_and_max() {
        // SUM with equal parameters (zero point 3): (5 - 3) + (7 - 3) + 3 = 9.
        let m = single_op(
            Op::SUM,
            reducer(),
            vec![
                act(TensorType::INT8, &[1, 2], Some((0.5, 3))),
                ints(&[1], &[-1]),
                act(TensorType::INT8, &[1], Some((0.5, 3))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[5, 7])]), i8s(&[9]));
        let m = single_op(
            Op::REDUCE_MAX,
            reducer(),
            vec![
                act(TensorType::INT8, &[2, 2], Some((0.5, 3))),
                ints(&[1], &[0]),
                act(TensorType::INT8, &[2], Some((0.5, 3))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[-128, 5, -127, -9])]), i8s(&[-127, 5]));
        let m = single_op(
            Op::REDUCE_MIN,
            reducer(),
            vec![
                act(TensorType::INT8, &[2, 2], Some((0.5, 3))),
                ints(&[1], &[0]),
                act(TensorType::INT8, &[2], Some((0.5, 3))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[-128, 5, 127, -9])]), i8s(&[-128, -9]));
    }

    #[test]
    fn int8_arg_max_and_bad_axes() {
        let arg = |t: TensorType| {
            BuiltinOptionsT::ArgMaxOptions(Box::new(crate::tflite::schema::ArgMaxOptionsT {
                output_type: t,
            }))
        };
        let m = single_op(
            Op::ARG_MAX,
            arg(TensorType::INT32),
            vec![
                act(TensorType::INT8, &[2, 3], Some((0.5, 3))),
                ints(&[1], &[-1]),
                act(TensorType::INT32, &[2], None),
            ],
        );
        let got = run(&m, &[&i8s(&[-128, 5, 5, 7, -9, 100])]);
        assert_eq!(
            got,
            [1i32, 2]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
        );
        // Two axes; an output type other than the options'.
        let m = single_op(
            Op::ARG_MAX,
            arg(TensorType::INT32),
            vec![
                act(TensorType::INT8, &[2, 3], Some((0.5, 3))),
                ints(&[2], &[0, 1]),
                act(TensorType::INT32, &[2], None),
            ],
        );
        assert!(error(&m).contains("expected one axis"));
        let m = single_op(
            Op::ARG_MAX,
            arg(TensorType::INT64),
            vec![
                act(TensorType::INT8, &[2, 3], Some((0.5, 3))),
                ints(&[1], &[1]),
                act(TensorType::INT32, &[2], None),
            ],
        );
        assert!(error(&m).contains("output type"));
    }

    #[test]
    fn quantization_rules() {
        // REDUCE_MAX cannot change parameters; INT16 MEAN needs zero point 0.
        let m = single_op(
            Op::REDUCE_MAX,
            reducer(),
            vec![
                act(TensorType::INT16, &[2], Some((0.5, 0))),
                ints(&[1], &[0]),
                act(TensorType::INT16, &[], Some((0.25, 0))),
            ],
        );
        assert!(error(&m).contains("unsupported"));
        let m = single_op(
            Op::MEAN,
            reducer(),
            vec![
                act(TensorType::INT16, &[2], Some((0.5, 1))),
                ints(&[1], &[0]),
                act(TensorType::INT16, &[], Some((0.5, 0))),
            ],
        );
        assert!(error(&m).contains("INT16 zero point must be 0"));
    }

    /// Mutation harness 4-465 (issue 22): int8 SUM whose axes tensor (data `[1, 2]`) was
    /// declared a scalar. LiteRT reads as many axes as the declared shape holds (one: axis 1,
    /// output 1×1×6×4), the rest of the buffer ignored. The fixture holds the kept mutant, the
    /// harness's input and LiteRT 2.3's output (`tests/tools/mutation/make_fixture.py`: the model
    /// run per operator, SUM on the optimized kernels, as BUILTIN_REF sums int8 wrongly).
    #[test]
    fn a_scalar_axes_tensor_reduces_the_one_axis_litert_reads() {
        let (_, shape, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("4-465");
        assert_eq!(shape, [1, 1, 6, 4]);
        assert_eq!(ours, litert, "bit for bit with LiteRT");
    }

    /// Mutation harness 13-1704 (issue 22): int8 SUM (input and output scales differ) of an input
    /// whose last axis was declared 0. LiteRT's BUILTIN_REF zeroes the output and returns before
    /// the rescale: raw 0, not the output zero point we wrote (108 of 108 differed). The fixture
    /// holds BUILTIN_REF's output (`make_fixture.py --reference`: the optimized SUM, the
    /// harness's usual reference for SUM, leaves an empty SUM's output unwritten).
    #[test]
    fn an_empty_int8_sum_is_raw_zero_as_litert_writes_it() {
        let (_, shape, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("13-1704");
        assert_eq!(shape, [1, 3, 4, 9]);
        assert!(litert.iter().all(|&b| b == 0), "LiteRT wrote raw 0");
        assert_eq!(ours, litert, "bit for bit with LiteRT");
    }

    /// Mutation harness 7-3929 (issue 22): int8 SUM after a QUANTIZE whose output was declared
    /// [2^31 − 1, 3, 4, 9]. LiteRT's QUANTIZE resizes its output to its input's shape at
    /// prepare (the interpreter reports [1, 3, 4, 9]) and the SUM reduces that; so do we. The
    /// fixture holds the kept mutant, the harness's input and LiteRT 2.3's output
    /// (`tests/tools/mutation/make_fixture.py`: the model run per operator, SUM on the optimized
    /// kernels, each one-operator model's inputs at the shape the whole model computed).
    #[test]
    fn a_declared_quantize_output_shape_gives_way_to_the_computed_one() {
        let (_, shape, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("7-3929");
        assert_eq!(shape, [1, 3, 4]);
        assert_eq!(ours, litert, "bit for bit with LiteRT");
    }
}
