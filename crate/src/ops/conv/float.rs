//! Float32 CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV kernels (the reference, or LiteRT's
//! optimized arithmetic under `KernelSet::LiteRtOptimized`) and the constant float weights the
//! fast float kernels pack at prepare time.

use crate::graph::TensorType;
use crate::kernels::litert_optimized;
use crate::kernels::litert_optimized::contraction::Plan;
use crate::kernels::reference::conv::{self, ConvParams};
use crate::ops::{Kernel, OpIo, PrepareCtx, TensorInfo};

/// Float CONV_2D: the reference kernel, or LiteRT's optimized one when it owns an im2col column.
pub(super) struct Conv2d {
    pub(super) p: ConvParams,
    pub(super) filter_in_c: usize,
    /// When mirroring LiteRT's optimized kernel (`KernelSet::LiteRtOptimized`): the summation
    /// plan and one im2col column.
    pub(super) litert_optimized: Option<(Plan, Vec<f32>)>,
}

impl Kernel for Conv2d {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, filter, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        if let Some((plan, column)) = &mut self.litert_optimized {
            let out = io.f32_out();
            litert_optimized::conv::conv2d(&self.p, plan, input, filter, bias, out, column);
            return;
        }
        conv::conv2d(&self.p, self.filter_in_c, input, filter, bias, io.f32_out());
    }
}

/// Float DEPTHWISE_CONV_2D: the reference kernel or LiteRT's optimized one.
pub(super) struct DepthwiseConv2d {
    pub(super) p: ConvParams,
    pub(super) depth_multiplier: usize,
    pub(super) litert_optimized: bool,
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

/// Float TRANSPOSE_CONV: the reference kernel or LiteRT's optimized one.
pub(super) struct TransposeConv2d {
    pub(super) p: ConvParams,
    pub(super) litert_optimized: bool,
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
