//! AVERAGE_POOL_2D, MAX_POOL_2D (float32).

use super::{
    Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, dims4, options, out_size_and_pad, positive,
    positive_hw,
};
use crate::graph::BuiltinOperator;
use crate::kernels::reference::pool::{self, PoolParams};
use crate::tflite::schema::Pool2DOptionsT;

struct Pool {
    max: bool,
    p: PoolParams,
}

impl Kernel for Pool {
    fn eval(&self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        if self.max {
            pool::max_pool(&self.p, input, io.f32_out());
        } else {
            pool::average_pool(&self.p, input, io.f32_out());
        }
    }
}

/// AVERAGE_POOL_2D / MAX_POOL_2D on an NHWC input.
pub fn prepare_pool(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let o = options!(ctx, Pool2DOptions, Pool2DOptionsT)?;
    let input = ctx.input(0)?;
    ctx.require_f32(&input)?;
    ctx.require_rank(&input, 4)?;
    let (sh, sw) = positive_hw(ctx, "stride", o.stride_h, o.stride_w)?;
    let (fh, fw) = (
        positive(ctx, "filter_height", o.filter_height)?,
        positive(ctx, "filter_width", o.filter_width)?,
    );
    let act = ctx.activation(o.fused_activation_function)?;
    let [n, ih, iw, c] = dims4(input.shape);
    let h = out_size_and_pad(o.padding, ih, fh, sh, 1);
    let w = out_size_and_pad(o.padding, iw, fw, sw, 1);
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
    Ok(Prepared::f32(vec![n, oh, ow, c], Pool { max, p }))
}
