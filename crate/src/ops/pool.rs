//! AVERAGE_POOL_2D, MAX_POOL_2D: float32, and quantized INT8 / UINT8 / INT16 (input and output
//! sharing scale and zero point, fused activation as a quantized clamp).

use super::fast::Fast;
use super::shape::require_same_quantization;
use super::{
    Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, dims4, options, out_size_and_pad, positive,
    positive_hw,
};
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::reference::int_elem::IntElem;
use crate::kernels::reference::pool::{self, PoolParams};
use crate::kernels::simd128::pool_float::PoolF32;
use crate::kernels::simd128::pool_int::PoolInt8;
use crate::tflite::schema::{ActivationFunctionType, Pool2DOptionsT};

struct Pool {
    max: bool,
    p: PoolParams,
}

impl Kernel for Pool {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        if self.max {
            pool::max_pool(&self.p, input, io.f32_out());
        } else {
            pool::average_pool(&self.p, input, io.f32_out());
        }
    }
}

/// Quantized pooling on `T` elements with a precomputed integer clamp.
struct IntPool<T> {
    max: bool,
    p: PoolParams,
    act_min: i32,
    act_max: i32,
    _t: std::marker::PhantomData<T>,
}

impl<T: IntElem> Kernel for IntPool<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<T>(0);
        let out = io.out_as::<T>();
        if self.max {
            pool::max_pool_int(&self.p, self.act_min, self.act_max, input, out);
        } else {
            pool::average_pool_int(&self.p, self.act_min, self.act_max, input, out);
        }
    }
}

/// Builds the quantized kernel for element type `T`.
fn int_pool<T: IntElem>(
    ctx: &PrepareCtx<'_>,
    max: bool,
    p: PoolParams,
    f: ActivationFunctionType,
    shape: Vec<usize>,
    dtype: TensorType,
) -> PrepareResult<Prepared> {
    let out = ctx.output(0)?;
    let (act_min, act_max) =
        ctx.quantized_activation_range(f, ctx.per_tensor_qparams(&out)?, T::MIN, T::MAX)?;
    if act_min > act_max {
        return Err(ctx.invalid(
            out.describe(),
            format!("fused activation clamp [{act_min}, {act_max}] is empty"),
        ));
    }
    if ctx.kernels == crate::kernels::KernelSet::Fast
        && dtype == TensorType::INT8
        && let Some(k) = PoolInt8::new(&p, max, act_min, act_max)
    {
        return Ok(Prepared::new(shape, dtype, Fast::new(k, ())));
    }
    Ok(Prepared::new(
        shape,
        dtype,
        IntPool::<T> {
            max,
            p,
            act_min,
            act_max,
            _t: std::marker::PhantomData,
        },
    ))
}

/// AVERAGE_POOL_2D / MAX_POOL_2D on an NHWC input.
pub fn prepare_pool(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let o = options!(ctx, Pool2DOptions, Pool2DOptionsT)?;
    let input = ctx.input(0)?;
    ctx.require_dtype(
        &input,
        &[
            TensorType::FLOAT32,
            TensorType::INT8,
            TensorType::UINT8,
            TensorType::INT16,
        ],
    )?;
    ctx.require_output_dtype(0, input.dtype)?;
    ctx.require_rank(&input, 4)?;
    let (sh, sw) = positive_hw(ctx, "stride", o.stride_h, o.stride_w)?;
    let (fh, fw) = (
        positive(ctx, "filter_height", o.filter_height)?,
        positive(ctx, "filter_width", o.filter_width)?,
    );
    let act = ctx.activation(o.fused_activation_function)?;
    let [n, ih, iw, c] = dims4(input.shape);
    let padding = super::known_padding(ctx, o.padding)?;
    let h = out_size_and_pad(padding, ih, fh, sh, 1);
    let w = out_size_and_pad(padding, iw, fw, sw, 1);
    let (Some((oh, ph)), Some((ow, pw))) = (h, w) else {
        return Err(ctx.invalid(
            input.describe(),
            format!("a {fh}x{fw} window with stride {sh}x{sw} gives an empty output"),
        ));
    };
    let p = PoolParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        channels: c,
        out_h: oh,
        out_w: ow,
        filter_h: fh,
        filter_w: fw,
        stride_h: sh,
        stride_w: sw,
        pad_top: ph,
        pad_left: pw,
        act,
    };
    let max = ctx.op.code.op() == BuiltinOperator::MAX_POOL_2D;
    let shape = vec![n, oh, ow, c];
    if input.dtype == TensorType::FLOAT32 {
        if ctx.kernels == crate::kernels::KernelSet::Fast {
            return Ok(Prepared::f32(shape, Fast::new(PoolF32::new(&p, max), ())));
        }
        return Ok(Prepared::f32(shape, Pool { max, p }));
    }
    // LiteRT's pooling.cc expects (DCHECK) equal input and output parameters: the kernels do not
    // requantize.
    require_same_quantization(ctx, &input, &ctx.output(0)?)?;
    let f = o.fused_activation_function;
    match input.dtype {
        TensorType::INT8 => int_pool::<i8>(ctx, max, p, f, shape, input.dtype),
        TensorType::UINT8 => int_pool::<u8>(ctx, max, p, f, shape, input.dtype),
        _ => int_pool::<i16>(ctx, max, p, f, shape, input.dtype),
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{act, i8s, run, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::tflite::schema::{ActivationFunctionType, Padding, Pool2DOptionsT};

    fn pool2x2(f: ActivationFunctionType) -> BuiltinOptionsT {
        BuiltinOptionsT::Pool2DOptions(Box::new(Pool2DOptionsT {
            padding: Padding::VALID,
            stride_w: 1,
            stride_h: 1,
            filter_width: 2,
            filter_height: 2,
            fused_activation_function: f,
        }))
    }

    fn model(op: Op, f: ActivationFunctionType, q: (f32, i64)) -> crate::graph::Model {
        single_op(
            op,
            pool2x2(f),
            vec![
                act(TensorType::INT8, &[1, 2, 2, 1], Some(q)),
                act(TensorType::INT8, &[1, 1, 1, 1], Some(q)),
            ],
        )
    }

    #[test]
    fn average_pool_relu6_clamps_in_the_quantized_domain() {
        // Scale 0.1, zero point -128: RELU6 → [max(-128, -128 + 0), min(127, -128 + 60)].
        let m = model(
            Op::AVERAGE_POOL_2D,
            ActivationFunctionType::RELU6,
            (0.1, -128),
        );
        // (-128 - 100 + 0 + 100) = -128 → (-128 - 2) / 4 = -32 → clamped to -68.
        assert_eq!(run(&m, &[&i8s(&[-128, -100, 0, 100])]), i8s(&[-68]));
        // -288 → (-288 - 2) / 4 = -72 (within the clamp).
        assert_eq!(run(&m, &[&i8s(&[-128, -100, -60, 0])]), i8s(&[-72]));
        let m = model(Op::AVERAGE_POOL_2D, ActivationFunctionType::NONE, (0.1, 0));
        // 1 + 1 + 1 + 2 = 5 → (5 + 2) / 4 = 1 (1.25); 6 → 8 / 4 = 2 (1.5 rounds up).
        assert_eq!(run(&m, &[&i8s(&[1, 1, 1, 2])]), i8s(&[1]));
        assert_eq!(run(&m, &[&i8s(&[1, 1, 2, 2])]), i8s(&[2]));
    }

    #[test]
    fn max_pool_relu_clamps_at_the_zero_point() {
        let m = model(Op::MAX_POOL_2D, ActivationFunctionType::RELU, (0.5, 10));
        assert_eq!(run(&m, &[&i8s(&[-5, 3, 8, 9])]), i8s(&[10]));
        assert_eq!(run(&m, &[&i8s(&[-5, 3, 80, 9])]), i8s(&[80]));
        // RELU_N1_TO_1 at scale 0.5, zero point 10: [8, 12].
        let m = model(
            Op::MAX_POOL_2D,
            ActivationFunctionType::RELU_N1_TO_1,
            (0.5, 10),
        );
        assert_eq!(run(&m, &[&i8s(&[-5, 3, 80, 9])]), i8s(&[12]));
    }

    #[test]
    fn pooling_does_not_requantize() {
        // An output quantized otherwise gets the pooled integers, as in LiteRT 2.3; its fused
        // activation clamps at the output's zero point (LiteRT computes the range from it).
        let pool = |f, out_zp| {
            single_op(
                Op::MAX_POOL_2D,
                pool2x2(f),
                vec![
                    act(TensorType::INT8, &[1, 2, 2, 1], Some((0.5, 0))),
                    act(TensorType::INT8, &[1, 1, 1, 1], Some((0.25, out_zp))),
                ],
            )
        };
        let x = i8s(&[1, -2, 3, -4]);
        assert_eq!(
            run(&pool(ActivationFunctionType::NONE, 0), &[&x]),
            i8s(&[3])
        );
        assert_eq!(
            run(&pool(ActivationFunctionType::RELU, 5), &[&x]),
            i8s(&[5])
        );
    }
}
