//! CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV: float32, integer (int8 activations with int32
//! bias, int16 activations with int32/int64 bias; int8 per-channel weights) and hybrid (int8
//! weights, float32 activations).
//!
//! The integer prepare mirrors LiteRT's `PopulateConvolutionQuantizationParams`: per output
//! channel, the real multiplier `(double)s_in · (double)s_w[c] / (double)s_out` becomes a Q31
//! multiplier and shift (`QuantizeMultiplier`), and the fused activation becomes a clamp in
//! output units (`CalculateActivationRangeQuantized`).

pub(crate) mod float;
pub(crate) mod hybrid;
pub(crate) mod int;

use std::marker::PhantomData;

use self::float::{Conv2d, DepthwiseConv2d, TransposeConv2d, const_f32_weights};
use self::hybrid::{HybridConv2d, HybridDepthwiseConv2d, HybridTransposeConv2d, hybrid_scales};
use self::int::{
    IntScheme, QConv2d, QDepthwiseConv2d, QTransposeConv2d, const_weights, int_params,
};
use super::fast::Fast;
use super::{PrepareCtx, PrepareResult, Prepared, dims4, options, out_size_and_pad, positive_hw};
use crate::graph::TensorType;
use crate::kernels::litert_optimized;
use crate::kernels::litert_optimized::simd::depthwise::DepthwiseTf;
use crate::kernels::litert_optimized::simd::gebp::Conv2dTf;
use crate::kernels::reference::ActivationRange;
use crate::kernels::reference::conv::ConvParams;
use crate::kernels::reference::hybrid::QuantizedBatches;
use crate::kernels::simd128::conv_float::{Conv2dF32, DepthwiseF32};
use crate::kernels::simd128::conv_int::Conv2dInt8;
use crate::kernels::simd128::depthwise_int::DepthwiseInt8;
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite::schema::{
    Conv2DOptionsT, DepthwiseConv2DOptionsT, Padding, TransposeConvOptionsT,
};

/// Checks an optional bias: float32 with exactly `out_c` elements.
/// CONV_2D and DEPTHWISE_CONV_2D with three inputs, the third -1 (omitted): LiteRT's prepare
/// reads a bias whenever there are three inputs and refuses the omitted one ("Tensor at index 2
/// was optional but was expected"), in float, hybrid and integer alike (measured in LiteRT 2.3,
/// BUILTIN_REF and the default resolver; mutant 5951 of seed 12). TF writes a zero bias for a
/// conv without one.
fn require_bias_when_listed(ctx: &PrepareCtx<'_>) -> PrepareResult<()> {
    if ctx.inputs.len() == 3 && ctx.optional_input(2).is_none() {
        return Err(ctx.invalid(
            String::new(),
            "bias input omitted (-1): LiteRT reads a bias when there are three inputs",
        ));
    }
    Ok(())
}

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
    let padding = super::known_padding(ctx, padding)?;
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

/// The geometry of a CONV_2D or DEPTHWISE_CONV_2D: an NHWC `input`, `out_c` output channels
/// from an `fh × fw` filter, the output size and padding from [`spatial`].
/// Refuses a stride or dilation over `i16::MAX`, as LiteRT's conv prepares do
/// ("params->stride_height <= INT16_MAX").
fn at_most_i16(ctx: &PrepareCtx<'_>, values: &[(&str, usize)]) -> PrepareResult<()> {
    match values.iter().find(|(_, v)| *v > i16::MAX as usize) {
        Some((name, v)) => Err(ctx.invalid(
            String::new(),
            format!("{name} {v} is over {} (LiteRT refuses it)", i16::MAX),
        )),
        None => Ok(()),
    }
}

fn conv_params(
    ctx: &PrepareCtx<'_>,
    padding: Padding,
    [n, ih, iw, ic]: [usize; 4],
    (out_c, (fh, fw)): (usize, (usize, usize)),
    (stride, dilation): ((usize, usize), (usize, usize)),
    act: ActivationRange,
) -> PrepareResult<ConvParams> {
    // LiteRT's conv.cc and depthwise_conv.cc prepare: strides and dilations at most INT16_MAX.
    at_most_i16(
        ctx,
        &[
            ("stride_h", stride.0),
            ("stride_w", stride.1),
            ("dilation_h_factor", dilation.0),
            ("dilation_w_factor", dilation.1),
        ],
    )?;
    let ((oh, ow), (ph, pw)) = spatial(ctx, padding, (ih, iw), (fh, fw), stride, dilation)?;
    Ok(ConvParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        in_c: ic,
        out_h: oh,
        out_w: ow,
        out_c,
        filter_h: fh,
        filter_w: fw,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: dilation.0,
        dilation_w: dilation.1,
        pad_top: ph,
        pad_left: pw,
        act,
    })
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

/// CONV_2D: input `[n, h, w, c]`, filter `[oc, fh, fw, c / groups]`, bias `[oc]` (LiteRT refuses it omitted).
/// Float32, integer (int8 / 16x8) or hybrid (int8 weights, float32 activations).
pub fn prepare_conv2d(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    // LiteRT's CONV_2D prepare refuses two inputs ("has_bias was not true") and an omitted (-1)
    // third one (DEPTHWISE_CONV_2D and FULLY_CONNECTED take two).
    if ctx.inputs.len() == 2 {
        return Err(ctx.invalid(
            String::new(),
            "2 inputs: LiteRT's CONV_2D needs 3 (its bias included)".to_string(),
        ));
    }
    ctx.expect_inputs(3, 3)?;
    require_bias_when_listed(ctx)?;
    let o = options!(ctx, Conv2DOptions, Conv2DOptionsT)?;
    let (input, filter) = (ctx.input(0)?, ctx.input(1)?);
    // INT4 weights (two to a byte, unpacked by the engine) run where int8 weights do, as in
    // LiteRT: integer and hybrid.
    let quantized_filter = matches!(filter.dtype, TensorType::INT8 | TensorType::INT4);
    if input.dtype == TensorType::FLOAT32 && !quantized_filter {
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
    let p = conv_params(
        ctx,
        o.padding,
        [n, ih, iw, ic],
        (oc, (fh, fw)),
        (stride, dilation),
        act,
    )?;
    let shape = vec![n, p.out_h, p.out_w, oc];
    if input.dtype == TensorType::FLOAT32 {
        check_bias(ctx, 2, oc)?;
        if quantized_filter {
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
        if let Some(caches) = ctx.eigen_caches()
            && litert_optimized::simd::PREFERRED
            && fic == ic
            && let Some((w, b)) = const_f32_weights(ctx, &filter, 2)
            && let Some((k, scratch)) = Conv2dTf::new(
                &p,
                litert_optimized::conv::conv2d_plan(&p, true, &caches),
                &w,
                b.as_deref(),
            )
        {
            return Ok(Prepared::f32(shape, Fast::new(k, scratch)));
        }
        // LiteRT's optimized kernels do not group: grouped convolutions run the reference.
        let optimized = ctx.eigen_caches().filter(|_| fic == ic);
        let filter_constant = filter.data.is_some();
        return Ok(Prepared::f32(
            shape,
            Conv2d {
                p,
                filter_in_c: fic,
                litert_optimized: optimized.map(|caches| {
                    (
                        litert_optimized::conv::conv2d_plan(&p, filter_constant, &caches),
                        vec![0.0; fh * fw * ic],
                    )
                }),
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
        ctx.arithmetic == Arithmetic::Xnnpack,
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
    require_bias_when_listed(ctx)?;
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
    let p = conv_params(
        ctx,
        o.padding,
        [n, ih, iw, ic],
        (oc, (fh, fw)),
        (stride, dilation),
        act,
    )?;
    let shape = vec![n, p.out_h, p.out_w, oc];
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
    // LiteRT 2.3 unpacks INT4 weights for int8 activations only: its 16x8 kernel reads the
    // packed bytes as int8 weights (and past their end), so there is no result to match.
    if input.dtype == TensorType::INT16 && filter.dtype == TensorType::INT4 {
        return Err(ctx.unsupported(
            filter.describe(),
            "INT4 weights with int16 activations (LiteRT's 16x8 DEPTHWISE_CONV_2D reads the \
             packed bytes as int8 weights, past the end of the buffer: it has no defined result)",
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
        ctx.arithmetic == Arithmetic::Xnnpack,
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

/// TRANSPOSE_CONV: inputs `output_shape` (int32 `[4]`, a constant at prepare: given as one, or
/// folded from the SHAPE → STRIDED_SLICE → PACK chain of a dynamic-batch Keras export at the
/// chosen batch), filter `[oc, fh, fw, ic]`,
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
    // LiteRT's transpose_conv.cc prepare: "params->stride_height <= INT16_MAX" (and width).
    at_most_i16(ctx, &[("stride_h", stride.0), ("stride_w", stride.1)])?;
    let act = ctx.activation(o.fused_activation_function)?;
    if shape_t.data.is_none() {
        // A Keras export computes it with SHAPE → STRIDED_SLICE → PACK: the engine folds that at
        // prepare (input shapes are known then, `--batch` included). Only an output shape that
        // depends on tensor values is left, and the engine plans every tensor's size at prepare.
        return Err(ctx.unsupported(
            shape_t.describe(),
            "the output shape depends on tensor values at run time (it must be a constant or \
             computed from SHAPE of tensors, which the engine folds at prepare)",
        ));
    }
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
    let ((ch, cw), (ph, pw)) = spatial(ctx, o.padding, (out[1], out[2]), (fh, fw), stride, (1, 1))?;
    // LiteRT's prepare requires the input to be what a conv of the output would give
    // ("computed_input_height != SizeOfDimension(input, 1)").
    if (ch, cw) != (ih, iw) {
        return Err(ctx.invalid(
            input.describe(),
            format!(
                "input is {ih}x{iw}, but padding {:?} (stride {}x{}, filter {fh}x{fw}) of output \
                 {}x{} needs {ch}x{cw} (LiteRT refuses it)",
                o.padding, stride.0, stride.1, out[1], out[2]
            ),
        ));
    }
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
    // LiteRT's TRANSPOSE_CONV takes int8 weights only (INT4 is refused at prepare).
    ctx.require_dtype(&filter, &[TensorType::INT8])?;
    let bias = ctx.optional_input(3);
    let (scheme, q) = int_params(
        ctx,
        &input,
        &filter,
        bias.as_ref(),
        0,
        oc,
        o.fused_activation_function,
        ctx.arithmetic == Arithmetic::Xnnpack,
    )?;
    Ok(int_kernel!(scheme, out, QTransposeConv2d { p: p, q: q }))
}

#[cfg(test)]
mod tests;
