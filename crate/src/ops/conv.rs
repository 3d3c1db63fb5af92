//! CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV (float32).

use super::{
    Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, dims4, options, out_size_and_pad,
    positive_hw,
};
use crate::kernels::reference::conv::{self, ConvParams};
use crate::tflite::schema::{
    Conv2DOptionsT, DepthwiseConv2DOptionsT, Padding, TransposeConvOptionsT,
};

struct Conv2d {
    p: ConvParams,
    filter_in_c: usize,
}

impl Kernel for Conv2d {
    fn eval(&self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        conv::conv2d(&self.p, self.filter_in_c, input, filter, bias, io.f32_out());
    }
}

struct DepthwiseConv2d {
    p: ConvParams,
    depth_multiplier: usize,
}

impl Kernel for DepthwiseConv2d {
    fn eval(&self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        conv::depthwise_conv2d(
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
}

impl Kernel for TransposeConv2d {
    fn eval(&self, io: &mut OpIo<'_>) {
        let (filter, input, bias) = (io.f32_in(1), io.f32_in(2), io.opt_f32_in(3));
        conv::transpose_conv2d(&self.p, input, filter, bias, io.f32_out());
    }
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

/// CONV_2D: input `[n, h, w, c]`, filter `[oc, fh, fw, c / groups]`, optional bias `[oc]`.
pub fn prepare_conv2d(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let o = options!(ctx, Conv2DOptions, Conv2DOptionsT)?;
    let (input, filter) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_f32(&input)?;
    ctx.require_f32_weights(&filter)?;
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
    check_bias(ctx, 2, oc)?;
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
    Ok(Prepared::f32(
        vec![n, oh, ow, oc],
        Conv2d {
            p,
            filter_in_c: fic,
        },
    ))
}

/// DEPTHWISE_CONV_2D: input `[n, h, w, c]`, filter `[1, fh, fw, c * multiplier]`, optional bias.
pub fn prepare_depthwise_conv2d(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let o = options!(ctx, DepthwiseConv2DOptions, DepthwiseConv2DOptionsT)?;
    let (input, filter) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_f32(&input)?;
    ctx.require_f32_weights(&filter)?;
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
    check_bias(ctx, 2, oc)?;
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
    Ok(Prepared::f32(
        vec![n, oh, ow, oc],
        DepthwiseConv2d {
            p,
            depth_multiplier,
        },
    ))
}

/// TRANSPOSE_CONV: inputs `output_shape` (constant int32 `[4]`), filter `[oc, fh, fw, ic]`,
/// input `[n, h, w, ic]`, optional bias `[oc]`. Padding as LiteRT computes it: from the output
/// size, as if the output were a conv's input.
pub fn prepare_transpose_conv(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 4)?;
    let o = options!(ctx, TransposeConvOptions, TransposeConvOptionsT)?;
    let (shape_t, filter, input) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    ctx.require_f32(&input)?;
    ctx.require_f32_weights(&filter)?;
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
    check_bias(ctx, 3, oc)?;
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
    Ok(Prepared::f32(out, TransposeConv2d { p }))
}
