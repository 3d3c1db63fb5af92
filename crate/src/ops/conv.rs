//! CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV: float32, integer (int8 activations with int32
//! bias, int16 activations with int32/int64 bias; int8 per-channel weights) and hybrid (int8
//! weights, float32 activations).
//!
//! The integer prepare mirrors LiteRT's `PopulateConvolutionQuantizationParams`: per output
//! channel, the real multiplier `(double)s_in · (double)s_w[c] / (double)s_out` becomes a Q31
//! multiplier and shift (`QuantizeMultiplier`), and the fused activation becomes a clamp in
//! output units (`CalculateActivationRangeQuantized`).

use std::marker::PhantomData;

use super::fast::Fast;
use super::{
    Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, QParams, TensorInfo, dims4, options,
    out_size_and_pad, positive_hw,
};
use crate::engine::KernelSet;
use crate::fixedpoint::quantize_multiplier;
use crate::graph::TensorType;
use crate::kernels::litert_optimized;
use crate::kernels::litert_optimized::simd::depthwise::DepthwiseTf;
use crate::kernels::litert_optimized::simd::gebp::Conv2dTf;
use crate::kernels::reference::conv::{self, ConvParams};
use crate::kernels::reference::conv_int::{self, Accumulator, QuantElem, QuantParams};
use crate::kernels::reference::hybrid::{self, QuantizedBatches};
use crate::kernels::simd128::conv_float::{Conv2dF32, DepthwiseF32};
use crate::kernels::simd128::conv_int::Conv2dInt8;
use crate::kernels::simd128::depthwise_int::DepthwiseInt8;
use crate::tflite::schema::{
    ActivationFunctionType, Conv2DOptionsT, DepthwiseConv2DOptionsT, Padding, TransposeConvOptionsT,
};

struct Conv2d {
    p: ConvParams,
    filter_in_c: usize,
    /// One im2col column when mirroring LiteRT's optimized kernel (`KernelSet::LiteRtOptimized`).
    litert_optimized: Option<Vec<f32>>,
}

impl Kernel for Conv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        if let Some(column) = &mut self.litert_optimized {
            litert_optimized::conv::conv2d(&self.p, input, filter, bias, io.f32_out(), column);
            return;
        }
        conv::conv2d(&self.p, self.filter_in_c, input, filter, bias, io.f32_out());
    }
}

struct DepthwiseConv2d {
    p: ConvParams,
    depth_multiplier: usize,
    litert_optimized: bool,
}

impl Kernel for DepthwiseConv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        let f = if self.litert_optimized {
            litert_optimized::conv::depthwise_conv2d
        } else {
            conv::depthwise_conv2d
        };
        f(
            &self.p,
            self.depth_multiplier,
            input,
            filter,
            bias,
            io.f32_out(),
        );
    }
}

struct TransposeConv2d {
    p: ConvParams,
    litert_optimized: bool,
}

impl Kernel for TransposeConv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (filter, input, bias) = (io.f32_in(1), io.f32_in(2), io.opt_f32_in(3));
        let f = if self.litert_optimized {
            litert_optimized::transpose_conv::transpose_conv2d
        } else {
            conv::transpose_conv2d
        };
        f(&self.p, input, filter, bias, io.f32_out());
    }
}

/// Marks an integer kernel's activation, accumulator and bias types (no data).
pub(crate) type KernelTypes<T, A, B> = PhantomData<fn() -> (T, A, B)>;

/// Integer CONV_2D kernel: activations `T`, accumulator `A`, bias elements `B`.
struct QConv2d<T, A, B> {
    p: ConvParams,
    filter_in_c: usize,
    q: QuantParams,
    _types: KernelTypes<T, A, B>,
}

impl<T: QuantElem, A: Accumulator, B: bytemuck::Pod + Into<A>> Kernel for QConv2d<T, A, B> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.in_as::<T>(0), io.in_as::<i8>(1), io.opt_in_as::<B>(2));
        conv_int::conv2d::<T, A, B>(
            &self.p,
            self.filter_in_c,
            &self.q,
            input,
            filter,
            bias,
            io.out_as::<T>(),
        );
    }
}

/// Integer DEPTHWISE_CONV_2D kernel.
struct QDepthwiseConv2d<T, A, B> {
    p: ConvParams,
    depth_multiplier: usize,
    q: QuantParams,
    _types: KernelTypes<T, A, B>,
}

impl<T: QuantElem, A: Accumulator, B: bytemuck::Pod + Into<A>> Kernel
    for QDepthwiseConv2d<T, A, B>
{
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.in_as::<T>(0), io.in_as::<i8>(1), io.opt_in_as::<B>(2));
        conv_int::depthwise_conv2d::<T, A, B>(
            &self.p,
            self.depth_multiplier,
            &self.q,
            input,
            filter,
            bias,
            io.out_as::<T>(),
        );
    }
}

/// Integer TRANSPOSE_CONV kernel.
struct QTransposeConv2d<T, A, B> {
    p: ConvParams,
    q: QuantParams,
    _types: KernelTypes<T, A, B>,
}

impl<T: QuantElem, A: Accumulator, B: bytemuck::Pod + Into<A>> Kernel
    for QTransposeConv2d<T, A, B>
{
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (filter, input, bias) = (io.in_as::<i8>(1), io.in_as::<T>(2), io.opt_in_as::<B>(3));
        conv_int::transpose_conv2d::<T, A, B>(
            &self.p,
            &self.q,
            input,
            filter,
            bias,
            io.out_as::<T>(),
        );
    }
}

/// The contents of a constant float32 tensor (copied: prepare-time only).
pub(crate) fn const_f32(t: &TensorInfo<'_>) -> Option<Vec<f32>> {
    if t.dtype != TensorType::FLOAT32 {
        return None;
    }
    Some(
        t.data?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// The constant float weights and optional constant float bias (input `k`) of an op.
pub(crate) fn const_f32_weights(
    ctx: &PrepareCtx<'_>,
    filter: &TensorInfo<'_>,
    k: usize,
) -> Option<(Vec<f32>, Option<Vec<f32>>)> {
    let w = const_f32(filter)?;
    let b = match ctx.optional_input(k) {
        None => None,
        Some(b) => Some(const_f32(&b)?),
    };
    Some((w, b))
}

/// The constant int8 weights and int32 bias of an op, when both are constant (a missing bias
/// counts as constant): what the fast kernels pack at prepare time.
pub(crate) fn const_weights<'a>(
    filter: &TensorInfo<'a>,
    bias: Option<&TensorInfo<'a>>,
) -> Option<(&'a [i8], Option<Vec<i32>>)> {
    let w: &[i8] = bytemuck::cast_slice(filter.data?);
    let b = match bias {
        None => None,
        Some(b) => Some(
            b.data?
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
    };
    Some((w, b))
}

/// Which integer kernel instantiation an op needs: activation type and bias type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntScheme {
    /// int8 activations, int32 accumulator, int32 bias (or none).
    Int8,
    /// int16 activations, int32 bias: LiteRT accumulates in the bias type (int32, double-rounding
    /// requantization) for CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED.
    Int16BiasI32,
    /// int16 activations, int64 accumulator, int64 bias (or none).
    Int16BiasI64,
}

/// The clamp of a fused activation in output units, as LiteRT's
/// `CalculateActivationRangeQuantized`: the type's range intersected with
/// `zero_point + round(limit / scale)` (float division, round half away from zero) for RELU's 0,
/// RELU6's 0 and 6, RELU_N1_TO_1's −1 and 1. Unsupported fused activations are an issue.
pub(crate) fn quantized_activation_range(
    ctx: &PrepareCtx<'_>,
    f: ActivationFunctionType,
    out: QParams,
    dtype: TensorType,
) -> PrepareResult<(i32, i32)> {
    // Rejects fused activations LiteRT does not implement here (TANH, SIGN_BIT).
    ctx.activation(f)?;
    Ok(activation_clamp(f, out, dtype))
}

/// The arithmetic of [`quantized_activation_range`] (INT16 outputs use the int16 range, every
/// other type the int8 range; activations other than RELU, RELU6, RELU_N1_TO_1 do not clamp).
pub(crate) fn activation_clamp(
    f: ActivationFunctionType,
    out: QParams,
    dtype: TensorType,
) -> (i32, i32) {
    let (qmin, qmax) = if dtype == TensorType::INT16 {
        (i32::from(i16::MIN), i32::from(i16::MAX))
    } else {
        (i32::from(i8::MIN), i32::from(i8::MAX))
    };
    let quantize = |v: f32| {
        out.zero_point
            .saturating_add((v / out.scale).round() as i32)
    };
    match f {
        ActivationFunctionType::RELU => (qmin.max(quantize(0.0)), qmax),
        ActivationFunctionType::RELU6 => (qmin.max(quantize(0.0)), qmax.min(quantize(6.0))),
        ActivationFunctionType::RELU_N1_TO_1 => (qmin.max(quantize(-1.0)), qmax.min(quantize(1.0))),
        _ => (qmin, qmax),
    }
}

/// Prepares the integer parameters of a conv-like op (input 0 or `input`, int8 `filter` with
/// channels along `axis`, output 0): checks types, zero points and scales, computes the
/// per-channel multipliers and the activation clamp, and picks the kernel instantiation from the
/// input and bias types.
pub(crate) fn int_params(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    filter: &TensorInfo<'_>,
    bias: Option<&TensorInfo<'_>>,
    axis: usize,
    channels: usize,
    act: ActivationFunctionType,
) -> PrepareResult<(IntScheme, QuantParams)> {
    ctx.require_dtype(filter, &[TensorType::INT8])?;
    ctx.require_output_dtype(0, input.dtype)?;
    let output = ctx.output(0)?;
    let in_q = ctx.per_tensor_qparams(input)?;
    let out_q = ctx.per_tensor_qparams(&output)?;
    let scheme = match input.dtype {
        TensorType::INT8 => {
            for (t, q) in [(input, in_q), (&output, out_q)] {
                if !(-128..=127).contains(&q.zero_point) {
                    return Err(ctx.invalid(
                        t.describe(),
                        format!("zero point {} outside int8", q.zero_point),
                    ));
                }
            }
            if let Some(b) = bias {
                ctx.require_dtype(b, &[TensorType::INT32])?;
            }
            IntScheme::Int8
        }
        TensorType::INT16 => {
            for (t, q) in [(input, in_q), (&output, out_q)] {
                if q.zero_point != 0 {
                    return Err(ctx.unsupported(
                        t.describe(),
                        format!(
                            "int16 zero point {} (the 16x8 scheme is symmetric: zero point 0)",
                            q.zero_point
                        ),
                    ));
                }
            }
            match bias {
                Some(b) => {
                    ctx.require_dtype(b, &[TensorType::INT32, TensorType::INT64])?;
                    if b.dtype == TensorType::INT32 {
                        IntScheme::Int16BiasI32
                    } else {
                        IntScheme::Int16BiasI64
                    }
                }
                None => IntScheme::Int16BiasI64,
            }
        }
        _ => {
            return Err(ctx.unsupported(
                input.describe(),
                format!(
                    "type {} (expected FLOAT32, INT8 or INT16)",
                    crate::tflite::types::dtype_name(input.dtype)
                ),
            ));
        }
    };
    if let Some(b) = bias
        && b.num_elements() != channels
    {
        return Err(ctx.invalid(
            b.describe(),
            format!(
                "bias has {} elements, expected {channels}",
                b.num_elements()
            ),
        ));
    }
    let w_scales = ctx.channel_scales(filter, axis, channels)?;
    let (mut multipliers, mut shifts) =
        (Vec::with_capacity(channels), Vec::with_capacity(channels));
    let mut real_multipliers = Vec::with_capacity(channels);
    for &ws in &w_scales {
        let real = f64::from(in_q.scale) * f64::from(ws) / f64::from(out_q.scale);
        let (m, s) = quantize_multiplier(real);
        multipliers.push(m);
        shifts.push(s);
        real_multipliers.push(real);
    }
    let (act_min, act_max) = quantized_activation_range(ctx, act, out_q, input.dtype)?;
    Ok((
        scheme,
        QuantParams {
            input_offset: in_q.zero_point.wrapping_neg(),
            output_offset: out_q.zero_point,
            act_min,
            act_max,
            multipliers,
            shifts,
            real_multipliers,
        },
    ))
}

/// Hybrid CONV_2D kernel (int8 weights, float32 activations). The run-time quantized input
/// lives in scratch the kernel owns, sized at prepare time, so `eval` fills it without
/// allocating.
struct HybridConv2d {
    p: ConvParams,
    /// Per-channel weight scales when they differ (asymmetric input, LiteRT's
    /// `EvalHybridPerChannel`); `None` for one scale (symmetric input, `EvalHybrid`).
    per_channel: Option<Vec<f32>>,
    weight_scale: f32,
    scratch: QuantizedBatches,
}

impl Kernel for HybridConv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let q = &mut self.scratch;
        let (input, filter, bias) = (io.f32_in(0), io.in_as::<i8>(1), io.opt_f32_in(2));
        q.quantize(input, self.per_channel.is_some());
        if self.per_channel.is_none() {
            q.scale_by(self.weight_scale);
        }
        hybrid::conv2d(
            &self.p,
            q,
            self.per_channel.as_deref(),
            filter,
            bias,
            io.f32_out(),
        );
    }
}

/// Hybrid DEPTHWISE_CONV_2D kernel (always per channel, asymmetric input); scratch as in
/// [`HybridConv2d`].
struct HybridDepthwiseConv2d {
    p: ConvParams,
    depth_multiplier: usize,
    scales: Vec<f32>,
    scratch: QuantizedBatches,
}

impl Kernel for HybridDepthwiseConv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let q = &mut self.scratch;
        let (input, filter, bias) = (io.f32_in(0), io.in_as::<i8>(1), io.opt_f32_in(2));
        q.quantize(input, true);
        hybrid::depthwise_conv2d(
            &self.p,
            self.depth_multiplier,
            q,
            &self.scales,
            filter,
            bias,
            io.f32_out(),
        );
    }
}

/// Hybrid TRANSPOSE_CONV kernel (asymmetric input, per-channel scales, a per-tensor scale
/// broadcast); scratch as in [`HybridConv2d`].
struct HybridTransposeConv2d {
    p: ConvParams,
    scales: Vec<f32>,
    scratch: QuantizedBatches,
}

impl Kernel for HybridTransposeConv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let q = &mut self.scratch;
        let (filter, input, bias) = (io.in_as::<i8>(1), io.f32_in(2), io.opt_f32_in(3));
        q.quantize(input, true);
        hybrid::transpose_conv2d(&self.p, q, &self.scales, filter, bias, io.f32_out());
    }
}

/// The weight scales of a hybrid op's int8 `filter` (channels along `axis`), broadcast to
/// `channels`, and whether the tensor carries more than one scale. Requires a float32 output.
pub(crate) fn hybrid_scales(
    ctx: &PrepareCtx<'_>,
    filter: &TensorInfo<'_>,
    axis: usize,
    channels: usize,
) -> PrepareResult<(Vec<f32>, bool)> {
    ctx.require_output_dtype(0, TensorType::FLOAT32)?;
    let scales = ctx.channel_scales(filter, axis, channels)?;
    let several = filter.quantization.is_some_and(|q| q.scales().len() > 1);
    Ok((scales, several))
}

/// Checks an optional bias: float32 with exactly `out_c` elements.
fn check_bias(ctx: &PrepareCtx<'_>, k: usize, out_c: usize) -> PrepareResult<()> {
    if let Some(bias) = ctx.optional_input(k) {
        ctx.require_f32(&bias)?;
        if bias.num_elements() != out_c {
            return Err(ctx.invalid(
                bias.describe(),
                format!(
                    "bias has {} elements, expected {out_c}",
                    bias.num_elements()
                ),
            ));
        }
    }
    Ok(())
}

/// Spatial output sizes and paddings for a conv-like op on an NHWC input.
#[allow(clippy::too_many_arguments)]
fn spatial(
    ctx: &PrepareCtx<'_>,
    padding: Padding,
    in_hw: (usize, usize),
    filter_hw: (usize, usize),
    stride: (usize, usize),
    dilation: (usize, usize),
) -> PrepareResult<((usize, usize), (usize, usize))> {
    let h = out_size_and_pad(padding, in_hw.0, filter_hw.0, stride.0, dilation.0);
    let w = out_size_and_pad(padding, in_hw.1, filter_hw.1, stride.1, dilation.1);
    match (h, w) {
        (Some((oh, ph)), Some((ow, pw))) => Ok(((oh, ow), (ph, pw))),
        _ => Err(ctx.invalid(
            String::new(),
            format!(
                "padding {:?} of a {}x{} input with a {}x{} filter (stride {}x{}, dilation {}x{}) \
                 gives an empty output",
                padding,
                in_hw.0,
                in_hw.1,
                filter_hw.0,
                filter_hw.1,
                stride.0,
                stride.1,
                dilation.0,
                dilation.1
            ),
        )),
    }
}

/// Builds the integer kernel `$kernel { p, <extra>, q }` for `scheme`, output dtype = input's.
macro_rules! int_kernel {
    ($scheme:expr, $shape:expr, $kernel:ident { $($field:ident: $value:expr),* $(,)? }) => {
        match $scheme {
            IntScheme::Int8 => Prepared::new(
                $shape,
                TensorType::INT8,
                $kernel::<i8, i32, i32> { $($field: $value,)* _types: PhantomData },
            ),
            IntScheme::Int16BiasI32 => Prepared::new(
                $shape,
                TensorType::INT16,
                $kernel::<i16, i32, i32> { $($field: $value,)* _types: PhantomData },
            ),
            IntScheme::Int16BiasI64 => Prepared::new(
                $shape,
                TensorType::INT16,
                $kernel::<i16, i64, i64> { $($field: $value,)* _types: PhantomData },
            ),
        }
    };
}

/// CONV_2D: input `[n, h, w, c]`, filter `[oc, fh, fw, c / groups]`, optional bias `[oc]`.
/// Float32, integer (int8 / 16x8) or hybrid (int8 weights, float32 activations).
pub fn prepare_conv2d(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let o = options!(ctx, Conv2DOptions, Conv2DOptionsT)?;
    let (input, filter) = (ctx.input(0)?, ctx.input(1)?);
    if input.dtype == TensorType::FLOAT32 && filter.dtype != TensorType::INT8 {
        ctx.require_f32_weights(&filter)?;
    }
    ctx.require_rank(&input, 4)?;
    ctx.require_rank(&filter, 4)?;
    let stride = positive_hw(ctx, "stride", o.stride_h, o.stride_w)?;
    let dilation = positive_hw(ctx, "dilation", o.dilation_h_factor, o.dilation_w_factor)?;
    let act = ctx.activation(o.fused_activation_function)?;
    let [n, ih, iw, ic] = dims4(input.shape);
    let [oc, fh, fw, fic] = dims4(filter.shape);
    if fic == 0 || ic % fic != 0 || oc % (ic / fic).max(1) != 0 {
        return Err(ctx.invalid(
            filter.describe(),
            format!("filter input depth {fic} does not divide input depth {ic} into groups of {oc} filters"),
        ));
    }
    let ((oh, ow), (ph, pw)) = spatial(ctx, o.padding, (ih, iw), (fh, fw), stride, dilation)?;
    let p = ConvParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        in_c: ic,
        out_h: oh,
        out_w: ow,
        out_c: oc,
        filter_h: fh,
        filter_w: fw,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: dilation.0,
        dilation_w: dilation.1,
        pad_top: ph,
        pad_left: pw,
        act,
    };
    let shape = vec![n, oh, ow, oc];
    if input.dtype == TensorType::FLOAT32 {
        check_bias(ctx, 2, oc)?;
        if filter.dtype == TensorType::INT8 {
            if fic != ic {
                return Err(ctx.unsupported(
                    filter.describe(),
                    "grouped convolution with int8 weights and float activations",
                ));
            }
            let (scales, _) = hybrid_scales(ctx, &filter, 0, oc)?;
            let weight_scale = scales.first().copied().unwrap_or(1.0);
            // LiteRT's `is_hybrid_per_channel`: several scales that are not all equal.
            let per_channel = scales.iter().any(|&s| s != weight_scale).then_some(scales);
            let scratch = QuantizedBatches::new(n, input.num_elements() / n.max(1));
            return Ok(Prepared::f32(
                shape,
                HybridConv2d {
                    p,
                    per_channel,
                    weight_scale,
                    scratch,
                },
            ));
        }
        if ctx.kernels == KernelSet::Fast
            && fic == ic
            && let Some((w, b)) = const_f32_weights(ctx, &filter, 2)
            && let Some((k, scratch)) = Conv2dF32::new(&p, &w, b.as_deref())
        {
            return Ok(Prepared::f32(shape, Fast::new(k, scratch)));
        }
        if ctx.litert_optimized()
            && litert_optimized::simd::PREFERRED
            && fic == ic
            && let Some((w, b)) = const_f32_weights(ctx, &filter, 2)
            && let Some((k, scratch)) = Conv2dTf::new(&p, &w, b.as_deref())
        {
            return Ok(Prepared::f32(shape, Fast::new(k, scratch)));
        }
        return Ok(Prepared::f32(
            shape,
            Conv2d {
                p,
                filter_in_c: fic,
                // LiteRT's optimized kernels do not group: grouped convolutions run the reference.
                litert_optimized: (ctx.litert_optimized() && fic == ic)
                    .then(|| vec![0.0; fh * fw * ic]),
            },
        ));
    }
    let bias = ctx.optional_input(2);
    let (scheme, q) = int_params(
        ctx,
        &input,
        &filter,
        bias.as_ref(),
        0,
        oc,
        o.fused_activation_function,
    )?;
    if ctx.kernels == KernelSet::Fast
        && scheme == IntScheme::Int8
        && fic == ic
        && let Some((w, b)) = const_weights(&filter, bias.as_ref())
        && let Some((k, scratch)) = Conv2dInt8::new(&p, &q, w, b.as_deref())
    {
        return Ok(Prepared::new(
            shape,
            TensorType::INT8,
            Fast::new(k, scratch),
        ));
    }
    Ok(int_kernel!(
        scheme,
        shape,
        QConv2d {
            p: p,
            filter_in_c: fic,
            q: q
        }
    ))
}

/// DEPTHWISE_CONV_2D: input `[n, h, w, c]`, filter `[1, fh, fw, c * multiplier]`, optional bias.
/// Float32, integer (int8 / 16x8) or hybrid.
pub fn prepare_depthwise_conv2d(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let o = options!(ctx, DepthwiseConv2DOptions, DepthwiseConv2DOptionsT)?;
    let (input, filter) = (ctx.input(0)?, ctx.input(1)?);
    if input.dtype == TensorType::FLOAT32 && filter.dtype != TensorType::INT8 {
        ctx.require_f32_weights(&filter)?;
    }
    ctx.require_rank(&input, 4)?;
    ctx.require_rank(&filter, 4)?;
    let stride = positive_hw(ctx, "stride", o.stride_h, o.stride_w)?;
    let dilation = positive_hw(ctx, "dilation", o.dilation_h_factor, o.dilation_w_factor)?;
    let act = ctx.activation(o.fused_activation_function)?;
    let [n, ih, iw, ic] = dims4(input.shape);
    let [one, fh, fw, oc] = dims4(filter.shape);
    // LiteRT derives the multiplier from the shapes (the option is advisory in newer models).
    if one != 1 || ic == 0 || oc % ic != 0 {
        return Err(ctx.invalid(
            filter.describe(),
            format!(
                "filter shape {:?} does not fit input depth {ic}",
                filter.shape
            ),
        ));
    }
    let depth_multiplier = oc / ic;
    let ((oh, ow), (ph, pw)) = spatial(ctx, o.padding, (ih, iw), (fh, fw), stride, dilation)?;
    let p = ConvParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        in_c: ic,
        out_h: oh,
        out_w: ow,
        out_c: oc,
        filter_h: fh,
        filter_w: fw,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: dilation.0,
        dilation_w: dilation.1,
        pad_top: ph,
        pad_left: pw,
        act,
    };
    let shape = vec![n, oh, ow, oc];
    if input.dtype == TensorType::FLOAT32 {
        check_bias(ctx, 2, oc)?;
        if filter.dtype == TensorType::INT8 {
            let (scales, _) = hybrid_scales(ctx, &filter, 3, oc)?;
            let scratch = QuantizedBatches::new(n, input.num_elements() / n.max(1));
            return Ok(Prepared::f32(
                shape,
                HybridDepthwiseConv2d {
                    p,
                    depth_multiplier,
                    scales,
                    scratch,
                },
            ));
        }
        if ctx.kernels == KernelSet::Fast
            && let Some((w, b)) = const_f32_weights(ctx, &filter, 2)
            && let Some(k) = DepthwiseF32::new(&p, depth_multiplier, &w, b.as_deref())
        {
            return Ok(Prepared::f32(shape, Fast::new(k, ())));
        }
        if ctx.litert_optimized()
            && litert_optimized::simd::PREFERRED
            && let Some((w, b)) = const_f32_weights(ctx, &filter, 2)
            && let Some(k) = DepthwiseTf::new(&p, depth_multiplier, &w, b.as_deref())
        {
            return Ok(Prepared::f32(shape, Fast::new(k, ())));
        }
        return Ok(Prepared::f32(
            shape,
            DepthwiseConv2d {
                p,
                depth_multiplier,
                litert_optimized: ctx.litert_optimized(),
            },
        ));
    }
    let bias = ctx.optional_input(2);
    let (scheme, q) = int_params(
        ctx,
        &input,
        &filter,
        bias.as_ref(),
        3,
        oc,
        o.fused_activation_function,
    )?;
    if scheme == IntScheme::Int16BiasI32
        && let Some(b) = bias
    {
        // LiteRT's depthwise 16x8 kernel takes int64 bias only (its prepare rejects int32).
        return Err(ctx.unsupported(
            b.describe(),
            "INT32 bias with INT16 activations (DEPTHWISE_CONV_2D 16x8 takes INT64 bias)",
        ));
    }
    if ctx.kernels == KernelSet::Fast
        && scheme == IntScheme::Int8
        && let Some((w, b)) = const_weights(&filter, bias.as_ref())
        && let Some((k, scratch)) = DepthwiseInt8::new(&p, depth_multiplier, &q, w, b.as_deref())
    {
        return Ok(Prepared::new(
            shape,
            TensorType::INT8,
            Fast::new(k, scratch),
        ));
    }
    Ok(int_kernel!(
        scheme,
        shape,
        QDepthwiseConv2d {
            p: p,
            depth_multiplier: depth_multiplier,
            q: q
        }
    ))
}

/// TRANSPOSE_CONV: inputs `output_shape` (constant int32 `[4]`), filter `[oc, fh, fw, ic]`,
/// input `[n, h, w, ic]`, optional bias `[oc]`. Padding as LiteRT computes it: from the output
/// size, as if the output were a conv's input. Float32 or integer (int8 / 16x8).
pub fn prepare_transpose_conv(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 4)?;
    let o = options!(ctx, TransposeConvOptions, TransposeConvOptionsT)?;
    let (shape_t, filter, input) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    if input.dtype == TensorType::FLOAT32 && filter.dtype != TensorType::INT8 {
        ctx.require_f32_weights(&filter)?;
    }
    ctx.require_rank(&input, 4)?;
    ctx.require_rank(&filter, 4)?;
    let stride = positive_hw(ctx, "stride", o.stride_h, o.stride_w)?;
    let act = ctx.activation(o.fused_activation_function)?;
    let out_shape = ctx.const_ints(&shape_t)?;
    let out: Vec<usize> = out_shape
        .iter()
        .map(|&d| usize::try_from(d).ok().filter(|&d| d > 0))
        .collect::<Option<_>>()
        .filter(|v: &Vec<usize>| v.len() == 4)
        .ok_or_else(|| {
            ctx.invalid(
                shape_t.describe(),
                format!("output shape {out_shape:?} is not 4 positive dims"),
            )
        })?;
    let [n, ih, iw, ic] = dims4(input.shape);
    let [oc, fh, fw, fic] = dims4(filter.shape);
    if fic != ic || out[0] != n || out[3] != oc {
        return Err(ctx.invalid(
            filter.describe(),
            format!(
                "filter {:?}, input {:?} and output shape {out:?} disagree",
                filter.shape, input.shape
            ),
        ));
    }
    let ((_, _), (ph, pw)) = spatial(ctx, o.padding, (out[1], out[2]), (fh, fw), stride, (1, 1))?;
    let p = ConvParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        in_c: ic,
        out_h: out[1],
        out_w: out[2],
        out_c: oc,
        filter_h: fh,
        filter_w: fw,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: ph,
        pad_left: pw,
        act,
    };
    if input.dtype == TensorType::FLOAT32 {
        check_bias(ctx, 3, oc)?;
        if filter.dtype == TensorType::INT8 {
            let (scales, _) = hybrid_scales(ctx, &filter, 0, oc)?;
            let scratch = QuantizedBatches::new(n, input.num_elements() / n.max(1));
            return Ok(Prepared::f32(
                out,
                HybridTransposeConv2d { p, scales, scratch },
            ));
        }
        let litert_optimized = ctx.litert_optimized();
        return Ok(Prepared::f32(
            out,
            TransposeConv2d {
                p,
                litert_optimized,
            },
        ));
    }
    let bias = ctx.optional_input(3);
    let (scheme, q) = int_params(
        ctx,
        &input,
        &filter,
        bias.as_ref(),
        0,
        oc,
        o.fused_activation_function,
    )?;
    Ok(int_kernel!(scheme, out, QTransposeConv2d { p: p, q: q }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::IssueKind;
    use crate::graph::{
        BuiltinOperator, BuiltinOptions2T, BuiltinOptionsT, CustomOptionsFormat, OpCode, Operator,
        Quantization,
    };
    use crate::ops::Role;

    fn qp(scale: f32, zero_point: i32) -> QParams {
        QParams { scale, zero_point }
    }

    fn operator(code: BuiltinOperator, options: BuiltinOptionsT, inputs: usize) -> Operator {
        Operator {
            code: OpCode {
                builtin_code: code,
                deprecated_builtin_code: 0,
                custom_code: None,
                version: 1,
            },
            inputs: (0..inputs as i32).collect(),
            outputs: vec![inputs as i32],
            intermediates: None,
            options,
            options_2: BuiltinOptions2T::NONE,
            custom_options: None,
            custom_options_format: CustomOptionsFormat::FLEXBUFFERS,
            mutating_variable_inputs: None,
            debug_metadata_index: -1,
        }
    }

    fn quant(scales: &[f32], zero_points: &[i64], axis: i32) -> Quantization {
        Quantization {
            scale: Some(scales.to_vec()),
            zero_point: Some(zero_points.to_vec()),
            quantized_dimension: axis,
            ..Default::default()
        }
    }

    /// A 1x3x3x2 input, 2x1x1x2 (or depthwise 1x1x1x2) filter, bias of `bias_dtype`, 1x3x3x2
    /// output; `act` the input/output type with zero point `zp`.
    fn prepare_with(
        code: BuiltinOperator,
        act: TensorType,
        zp: i64,
        filter_dtype: TensorType,
        bias_dtype: TensorType,
        filter_shape: &[usize],
    ) -> PrepareResult<Prepared> {
        let options = match code {
            BuiltinOperator::DEPTHWISE_CONV_2D => {
                BuiltinOptionsT::DepthwiseConv2DOptions(Box::new(DepthwiseConv2DOptionsT {
                    stride_h: 1,
                    stride_w: 1,
                    dilation_h_factor: 1,
                    dilation_w_factor: 1,
                    padding: Padding::SAME,
                    ..Default::default()
                }))
            }
            _ => BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
                stride_h: 1,
                stride_w: 1,
                dilation_h_factor: 1,
                dilation_w_factor: 1,
                padding: Padding::SAME,
                ..Default::default()
            })),
        };
        let op = operator(code, options, 3);
        let q_act = quant(&[0.5], &[zp], 0);
        let q_w = quant(
            &[0.25, 0.125],
            &[0, 0],
            if filter_shape[0] == 1 { 3 } else { 0 },
        );
        let q_b = quant(&[0.125, 0.0625], &[0, 0], 0);
        let inputs = [
            Some(TensorInfo {
                role: Role::Input(0),
                name: "x",
                dtype: act,
                shape: &[1, 3, 3, 2],
                data: None,
                quantization: Some(&q_act),
            }),
            Some(TensorInfo {
                role: Role::Input(1),
                name: "w",
                dtype: filter_dtype,
                shape: filter_shape,
                data: None,
                quantization: Some(&q_w),
            }),
            Some(TensorInfo {
                role: Role::Input(2),
                name: "b",
                dtype: bias_dtype,
                shape: &[2],
                data: None,
                quantization: Some(&q_b),
            }),
        ];
        let out_dtype = if act == TensorType::FLOAT32 {
            TensorType::FLOAT32
        } else {
            act
        };
        let outputs = [TensorInfo {
            role: Role::Output(0),
            name: "y",
            dtype: out_dtype,
            shape: &[1, 3, 3, 2],
            data: None,
            quantization: Some(&q_act),
        }];
        let ctx = PrepareCtx {
            kernels: crate::engine::KernelSet::Reference,
            op_index: 0,
            op_name: "CONV_2D",
            op: &op,
            inputs: &inputs,
            outputs: &outputs,
        };
        match code {
            BuiltinOperator::DEPTHWISE_CONV_2D => prepare_depthwise_conv2d(&ctx),
            _ => prepare_conv2d(&ctx),
        }
    }

    fn issue(r: PrepareResult<Prepared>) -> (IssueKind, String) {
        match r {
            Ok(_) => panic!("expected an issue"),
            Err(e) => (e.kind, e.tensor),
        }
    }

    #[test]
    fn integer_and_hybrid_conv_prepare_and_refuse_with_typed_issues() {
        const CONV_2D: BuiltinOperator = BuiltinOperator::CONV_2D;
        const DEPTHWISE_CONV_2D: BuiltinOperator = BuiltinOperator::DEPTHWISE_CONV_2D;
        const FLOAT32: TensorType = TensorType::FLOAT32;
        const INT8: TensorType = TensorType::INT8;
        const INT16: TensorType = TensorType::INT16;
        const INT32: TensorType = TensorType::INT32;
        const INT64: TensorType = TensorType::INT64;
        const UINT8: TensorType = TensorType::UINT8;
        let conv_w: &[usize] = &[2, 1, 1, 2];
        let dw_w: &[usize] = &[1, 1, 1, 2];
        // Supported: int8 (zero point −128), 16x8 (int64 or int32 bias), hybrid.
        for (code, act, zp, bias, w) in [
            (CONV_2D, INT8, -128, INT32, conv_w),
            (CONV_2D, INT16, 0, INT64, conv_w),
            (CONV_2D, INT16, 0, INT32, conv_w),
            (DEPTHWISE_CONV_2D, INT16, 0, INT64, dw_w),
            (CONV_2D, FLOAT32, 0, FLOAT32, conv_w),
            (DEPTHWISE_CONV_2D, FLOAT32, 0, FLOAT32, dw_w),
        ] {
            let p = prepare_with(code, act, zp, INT8, bias, w).expect("prepares");
            assert_eq!(p.dtype, act);
            assert_eq!(p.shape, vec![1, 3, 3, 2]);
        }
        // int16 with a non-zero zero point: unsupported, naming the input.
        let (kind, t) = issue(prepare_with(CONV_2D, INT16, 3, INT8, INT64, conv_w));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 0 'x'"));
        // int8 zero point outside int8: invalid.
        let (kind, _) = issue(prepare_with(CONV_2D, INT8, 200, INT8, INT32, conv_w));
        assert_eq!(kind, IssueKind::Invalid);
        // uint8 activations, int64 bias with int8, int32 bias for depthwise 16x8, int16
        // weights: unsupported, naming the tensor.
        let (kind, t) = issue(prepare_with(CONV_2D, UINT8, 0, INT8, INT32, conv_w));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 0 'x'"));
        let (kind, t) = issue(prepare_with(CONV_2D, INT8, 0, INT8, INT64, conv_w));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 2 'b'"));
        let (kind, t) = issue(prepare_with(DEPTHWISE_CONV_2D, INT16, 0, INT8, INT32, dw_w));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 2 'b'"));
        let (kind, t) = issue(prepare_with(CONV_2D, INT16, 0, INT16, INT64, conv_w));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 1 'w'"));
        // Hybrid with int32 bias: the float path wants a float bias.
        let (kind, t) = issue(prepare_with(CONV_2D, FLOAT32, 0, INT8, INT32, conv_w));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 2 'b'"));
        // Hybrid grouped convolution (filter depth 1 of input depth 2): unsupported.
        let (kind, t) = issue(prepare_with(
            CONV_2D,
            FLOAT32,
            0,
            INT8,
            FLOAT32,
            &[2, 1, 1, 1],
        ));
        assert_eq!((kind, t.as_str()), (IssueKind::Unsupported, "input 1 'w'"));
    }

    #[test]
    fn activation_clamps_in_output_units() {
        let (i8t, i16t) = (TensorType::INT8, TensorType::INT16);
        // Scale 0.1, zero point −128: 0 → −128, 6 → −128 + 60 = −68.
        assert_eq!(
            activation_clamp(ActivationFunctionType::NONE, qp(0.1, -128), i8t),
            (-128, 127)
        );
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU, qp(0.1, -128), i8t),
            (-128, 127)
        );
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU6, qp(0.1, -128), i8t),
            (-128, -68)
        );
        // Zero point 127: RELU leaves exactly one value; RELU6's 6/0.1 = 60 saturates at 127.
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU, qp(0.1, 127), i8t),
            (127, 127)
        );
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU6, qp(0.1, 127), i8t),
            (127, 127)
        );
        // RELU_N1_TO_1 with scale 0.5, zero point 3: [3 − 2, 3 + 2].
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU_N1_TO_1, qp(0.5, 3), i8t),
            (1, 5)
        );
        // 6 / 0.04 = 150 (rounded in float): −20 + 150 = 130 → capped at 127.
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU6, qp(0.04, -20), i8t),
            (-20, 127)
        );
        // int16: symmetric range, RELU6 at 6 / 0.001 = 6000.
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU6, qp(0.001, 0), i16t),
            (0, 6000)
        );
        assert_eq!(
            activation_clamp(ActivationFunctionType::NONE, qp(0.001, 0), i16t),
            (-32768, 32767)
        );
        // ±1 / 0.4 is ±2.5 in float (0.4f32 is a hair above 0.4, but the quotient rounds to
        // 2.5): ties round away from zero, to ±3.
        assert_eq!(
            activation_clamp(ActivationFunctionType::RELU_N1_TO_1, qp(0.4, 0), i8t),
            (-3, 3)
        );
    }
}
