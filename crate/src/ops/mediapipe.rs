//! MediaPipe's custom operators that its shipped models use. `Convolution2DTransposeBias`
//! (selfie segmentation's last layer) runs here as MediaPipe's own kernel
//! (`mediapipe/util/tflite/operations/transpose_conv_bias.cc`) computes it: float32 only, the
//! output shape derived from the input, the filter and the options, the sum started at the bias
//! ([`crate::kernels::reference::transpose_conv_bias`]).
//!
//! Inputs: input `[N, H, W, C]`, filter `[O, KH, KW, C]`, bias `[O]`, all FLOAT32 (the filter and
//! bias may come from DEQUANTIZE of float16 constants, as in the shipped models). Options: the
//! custom options hold LiteRT's C struct `TfLiteTransposeConvParams` as raw bytes, of which
//! MediaPipe reads the first three little-endian int32s: padding (`1` SAME, else VALID: `0`
//! unknown and `2` VALID are taken as VALID, as MediaPipe does; other values are rejected),
//! stride width, stride height. No fused activation.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, dims4};
use crate::graph::TensorType;
use crate::kernels::reference::ActivationRange;
use crate::kernels::reference::conv::ConvParams;
use crate::kernels::reference::transpose_conv_bias::{output_size_and_crop, transpose_conv2d_bias};

/// The prepared `Convolution2DTransposeBias`.
struct TransposeConvBias {
    p: ConvParams,
}

impl Kernel for TransposeConvBias {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.f32_in(0), io.f32_in(1), io.f32_in(2));
        transpose_conv2d_bias(&self.p, input, filter, bias, io.f32_out());
    }
}

/// The options MediaPipe reads: (SAME padding, stride height, stride width).
fn options(ctx: &PrepareCtx<'_>) -> PrepareResult<(bool, usize, usize)> {
    let bytes = ctx.op.custom_options.as_deref().unwrap_or(&[]);
    let word = |k: usize| {
        bytes
            .get(4 * k..4 * k + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(padding), Some(stride_w), Some(stride_h)) = (word(0), word(1), word(2)) else {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "custom options have {} bytes; MediaPipe reads 12 (TfLiteTransposeConvParams: \
                 padding, stride_width, stride_height as int32)",
                bytes.len()
            ),
        ));
    };
    let same = match padding {
        1 => true,
        0 | 2 => false,
        _ => {
            return Err(ctx.invalid(
                String::new(),
                format!("custom option padding = {padding} (1 SAME, 2 VALID)"),
            ));
        }
    };
    let (sh, sw) = super::positive_hw(ctx, "stride", stride_h, stride_w)?;
    Ok((same, sh, sw))
}

/// `Convolution2DTransposeBias`: see the module documentation.
pub fn prepare_transpose_conv_bias(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    if ctx.outputs.len() != 1 {
        return Err(ctx.invalid(
            String::new(),
            format!("expects 1 output, has {}", ctx.outputs.len()),
        ));
    }
    let (same, stride_h, stride_w) = options(ctx)?;
    let (input, filter, bias) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    for t in [&input, &filter, &bias] {
        ctx.require_dtype(t, &[TensorType::FLOAT32])?;
    }
    ctx.require_output_dtype(0, TensorType::FLOAT32)?;
    ctx.require_rank(&input, 4)?;
    ctx.require_rank(&filter, 4)?;
    ctx.require_rank(&bias, 1)?;
    let [n, ih, iw, ic] = dims4(input.shape);
    let [oc, fh, fw, fic] = dims4(filter.shape);
    if fic != ic || bias.shape[0] != oc {
        return Err(ctx.invalid(
            filter.describe(),
            format!(
                "filter {:?} must be [out channels, h, w, {ic}] with bias {:?} of out channels",
                filter.shape, bias.shape
            ),
        ));
    }
    if [n, ih, iw, ic, oc, fh, fw].contains(&0) {
        return Err(ctx.invalid(
            input.describe(),
            format!(
                "empty input {:?} or filter {:?} (MediaPipe's output shape needs each dim ≥ 1)",
                input.shape, filter.shape
            ),
        ));
    }
    let dim = |what: &str, i: usize, f: usize, s: usize| {
        output_size_and_crop(same, i, f, s).ok_or_else(|| {
            ctx.invalid(
                input.describe(),
                format!("output {what} overflows (stride {s} × input {i})"),
            )
        })
    };
    let (out_h, pad_top) = dim("height", ih, fh, stride_h)?;
    let (out_w, pad_left) = dim("width", iw, fw, stride_w)?;
    let p = ConvParams {
        batches: n,
        in_h: ih,
        in_w: iw,
        in_c: ic,
        out_h,
        out_w,
        out_c: oc,
        filter_h: fh,
        filter_w: fw,
        stride_h,
        stride_w,
        dilation_h: 1,
        dilation_w: 1,
        pad_top,
        pad_left,
        act: ActivationRange::UNBOUNDED,
    };
    Ok(Prepared::f32(
        vec![n, out_h, out_w, oc],
        TransposeConvBias { p },
    ))
}
