//! Integer CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV kernels (int8 activations with int32
//! bias, int16 activations with int32/int64 bias; int8 per-channel weights) and their prepare:
//! the kernel instantiation a tensor's types pick, per-channel multipliers, the fused activation
//! as a clamp in output units. FULLY_CONNECTED shares them.

use std::marker::PhantomData;

use crate::fixedpoint::quantize_multiplier;
use crate::graph::TensorType;
use crate::kernels::reference::conv::ConvParams;
use crate::kernels::reference::conv_int::{self, Accumulator, QuantElem, RequantParams};
use crate::kernels::xnnpack as xnn;
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, TensorInfo};
use crate::tflite::schema::ActivationFunctionType;

/// Marks an integer kernel's activation, accumulator and bias types (no data).
pub(crate) type KernelTypes<T, A, B> = PhantomData<fn() -> (T, A, B)>;

/// Integer CONV_2D kernel: activations `T`, accumulator `A`, bias elements `B`.
pub(super) struct QConv2d<T, A, B> {
    pub(super) p: ConvParams,
    pub(super) filter_in_c: usize,
    pub(super) q: RequantParams,
    pub(super) _types: KernelTypes<T, A, B>,
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
pub(super) struct QDepthwiseConv2d<T, A, B> {
    pub(super) p: ConvParams,
    pub(super) depth_multiplier: usize,
    pub(super) q: RequantParams,
    pub(super) _types: KernelTypes<T, A, B>,
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
pub(super) struct QTransposeConv2d<T, A, B> {
    pub(super) p: ConvParams,
    pub(super) q: RequantParams,
    pub(super) _types: KernelTypes<T, A, B>,
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

/// Prepares the integer parameters of a conv-like op (input 0 or `input`, int8 or INT4 `filter` with
/// channels along `axis`, output 0): checks types, zero points and scales, computes the
/// per-channel multipliers and the activation clamp, and picks the kernel instantiation from the
/// input and bias types.
///
/// With `xnnpack` (the op has XNNPACK kernels and the engine runs
/// [`Arithmetic::Xnnpack`](crate::kernels::Arithmetic::Xnnpack)), int8 activations requantize as
/// XNNPACK does ([`crate::kernels::xnnpack`]): `f32` scales, XNNPACK's activation clamp; a scale
/// XNNPACK refuses is "unsupported". int16 activations keep the reference arithmetic (XNNPACK has
/// no 16x8 kernels).
#[allow(clippy::too_many_arguments)]
pub(crate) fn int_params(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    filter: &TensorInfo<'_>,
    bias: Option<&TensorInfo<'_>>,
    axis: usize,
    channels: usize,
    act: ActivationFunctionType,
    xnnpack: bool,
) -> PrepareResult<(IntScheme, RequantParams)> {
    // INT4 weights reach the kernels unpacked to one byte each (the engine's constants), as
    // LiteRT's `UnpackDenseInt4IntoInt8` gives them to the int8 kernels.
    ctx.require_dtype(filter, &[TensorType::INT8, TensorType::INT4])?;
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
                    crate::graph::dtype::dtype_name(input.dtype)
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
    let (qmin, qmax) = if input.dtype == TensorType::INT16 {
        (i32::from(i16::MIN), i32::from(i16::MAX))
    } else {
        (i32::from(i8::MIN), i32::from(i8::MAX))
    };
    let (mut act_min, mut act_max) = ctx.quantized_activation_range(act, out_q, qmin, qmax)?;
    let xnnpack = if xnnpack && scheme == IntScheme::Int8 {
        let scales: Vec<f32> = w_scales
            .iter()
            .map(|&ws| xnn::requantization_scale(in_q.scale, ws, out_q.scale))
            .collect();
        if let Some((c, s)) = scales
            .iter()
            .enumerate()
            .find(|(_, s)| !xnn::scale_supported(**s))
        {
            return Err(ctx.unsupported(
                filter.describe(),
                format!(
                    "XNNPACK requantization scale {s:e} in channel {c} (XNNPACK takes \
                     2^-32 <= scale < 256; use --arithmetic reference)"
                ),
            ));
        }
        (act_min, act_max) = xnn::output_range(ctx.activation(act)?, out_q.scale, out_q.zero_point);
        Some(xnn::Fp32Requant { scales })
    } else {
        None
    };
    Ok((
        scheme,
        RequantParams {
            input_offset: in_q.zero_point.wrapping_neg(),
            output_offset: out_q.zero_point,
            act_min,
            act_max,
            multipliers,
            shifts,
            real_multipliers,
            xnnpack,
        },
    ))
}
