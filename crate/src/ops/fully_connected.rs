//! FULLY_CONNECTED (float32 weights; int8 weights with float inputs are the hybrid kernel of
//! issue 6).

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::kernels::reference::fully_connected::{self as fc, FullyConnectedParams};
use crate::tflite::schema::{FullyConnectedOptionsT, FullyConnectedOptionsWeightsFormat};

struct FullyConnected {
    p: FullyConnectedParams,
}

impl Kernel for FullyConnected {
    fn eval(&self, io: &mut OpIo<'_>) {
        let (input, weights, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        fc::fully_connected(&self.p, input, weights, bias, io.f32_out());
    }
}

/// FULLY_CONNECTED: input of any rank flattened to `[batches, accum_depth]`, weights
/// `[units, accum_depth]`, optional bias `[units]`. Output `[batches, units]`, or the input's
/// shape with the last dim replaced by `units` under `keep_num_dims`.
pub fn prepare_fully_connected(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let o = options!(ctx, FullyConnectedOptions, FullyConnectedOptionsT)?;
    let (input, weights) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_f32(&input)?;
    ctx.require_f32_weights(&weights)?;
    if o.weights_format != FullyConnectedOptionsWeightsFormat::DEFAULT {
        return Err(ctx.unsupported(weights.describe(), "shuffled weights format"));
    }
    ctx.require_rank(&weights, 2)?;
    let act = ctx.activation(o.fused_activation_function)?;
    let (units, depth) = (weights.shape[0], weights.shape[1]);
    let n = input.num_elements();
    if depth == 0 || n % depth != 0 {
        return Err(ctx.invalid(
            input.describe(),
            format!(
                "{n} input elements do not split into rows of {depth} (weights {:?})",
                weights.shape
            ),
        ));
    }
    if let Some(bias) = ctx.optional_input(2) {
        ctx.require_f32(&bias)?;
        if bias.num_elements() != units {
            return Err(ctx.invalid(
                bias.describe(),
                format!(
                    "bias has {} elements, expected {units}",
                    bias.num_elements()
                ),
            ));
        }
    }
    let batches = n / depth;
    let shape = if o.keep_num_dims {
        if input.shape.last() != Some(&depth) {
            return Err(ctx.invalid(
                input.describe(),
                format!(
                    "keep_num_dims needs the last dim to be {depth}, shape {:?}",
                    input.shape
                ),
            ));
        }
        let mut s = input.shape.to_vec();
        if let Some(last) = s.last_mut() {
            *last = units;
        }
        s
    } else {
        vec![batches, units]
    };
    let p = FullyConnectedParams {
        batches,
        accum_depth: depth,
        out_c: units,
        act,
    };
    Ok(Prepared::f32(shape, FullyConnected { p }))
}
