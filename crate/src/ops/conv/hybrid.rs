//! Hybrid (dynamic-range) CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV kernels: int8 weights,
//! float32 activations quantized per batch at run time, as LiteRT's `EvalHybrid` /
//! `EvalHybridPerChannel`.

use crate::graph::TensorType;
use crate::kernels::reference::conv::ConvParams;
use crate::kernels::reference::hybrid::{self, QuantizedBatches};
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, TensorInfo};

/// Hybrid CONV_2D kernel (int8 weights, float32 activations). The run-time quantized input
/// lives in scratch the kernel owns, sized at prepare time, so `eval` fills it without
/// allocating.
pub(super) struct HybridConv2d {
    pub(super) p: ConvParams,
    /// Per-channel weight scales when they differ (asymmetric input, LiteRT's
    /// `EvalHybridPerChannel`); `None` for one scale (symmetric input, `EvalHybrid`).
    pub(super) per_channel: Option<Vec<f32>>,
    pub(super) weight_scale: f32,
    pub(super) scratch: QuantizedBatches,
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
pub(super) struct HybridDepthwiseConv2d {
    pub(super) p: ConvParams,
    pub(super) depth_multiplier: usize,
    pub(super) scales: Vec<f32>,
    pub(super) scratch: QuantizedBatches,
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
pub(super) struct HybridTransposeConv2d {
    pub(super) p: ConvParams,
    pub(super) scales: Vec<f32>,
    pub(super) scratch: QuantizedBatches,
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
    // LiteRT's x86 hybrid product (its SSE matrix × vector) does not give the true product for
    // a weight of −128, which symmetric quantization never writes (TF's weights are in
    // −127..=127): refused rather than computed differently (found by the mutation harness).
    if filter.data.is_some_and(|d| d.contains(&0x80)) {
        return Err(ctx.unsupported(
            filter.describe(),
            "int8 weight −128 in a hybrid operator (symmetric weights are −127..=127; LiteRT's \
             x86 hybrid kernel does not compute it as a product)",
        ));
    }
    let scales = ctx.channel_scales(filter, axis, channels)?;
    let several = filter.quantization.is_some_and(|q| q.scales().len() > 1);
    Ok((scales, several))
}

#[cfg(test)]
mod tests {
    /// Mutant 7026 of seed 12: `mobilenet_block`'s dynamic-range model with a conv bias made of
    /// NaN and extreme floats. The next per-channel hybrid CONV_2D quantizes a 9216-value input
    /// holding NaN at run time; LiteRT's range reduction (four lanes, a NaN restarting its lane)
    /// loses the input's true minimum or maximum there, where "skip every NaN" kept them: 6 of 6
    /// outputs differed. The fixture holds the kept mutant, the harness's input and LiteRT 2.3
    /// BUILTIN_REF's output (`tests/tools/mutation/make_fixture.py`).
    #[test]
    fn a_nan_input_takes_the_range_litert_finds() {
        let (_, _, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("12-7026");
        assert_eq!(ours, litert, "bit for bit with LiteRT");
    }
}
