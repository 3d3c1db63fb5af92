//! Activations: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH, PRELU,
//! SOFTMAX — float32, and int8 / uint8 / int16 as LiteRT's quantized reference kernels (see
//! each kernel in [`crate::kernels::reference::activations`] for which and how it rounds).

use std::marker::PhantomData;

use super::elementwise::{int_qparams, int_range, multiplier};
use super::fast::Fast;
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, QuantParams, TensorInfo, options};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::dtype::dtype_name;
use crate::graph::lint::sci;
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::litert_optimized::activations as litert;
use crate::kernels::reference::ActivationRange;
use crate::kernels::reference::activations::{
    self as act, QuantHardSwish, QuantLeakyRelu, QuantReluX, QuantSoftmax, QuantSoftmaxInt16,
    down_scale_int32_to_int16_multiplier,
};
use crate::kernels::reference::elementwise::{self, Broadcast, QuantPrelu};
use crate::kernels::reference::fixedpoint_math::{checked_log2, lut_int8, lut_int16};
use crate::kernels::reference::quantize::{QuantInt, round_to_i32};
use crate::kernels::simd128::elementwise_float::{ClampF32, PreluF32};
use crate::kernels::simd128::lut_int::{ByteTable, PreluTable};
use crate::kernels::xnnpack::unary as xnnpack;
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite::schema::{LeakyReluOptionsT, SoftmaxOptionsT};

#[derive(Clone, Copy)]
enum Unary {
    Clamp(ActivationRange),
    Logistic,
    Tanh,
    LeakyRelu(f32),
    HardSwish,
    Softmax {
        beta: f32,
        depth: usize,
    },
    /// LOGISTIC, TANH, SOFTMAX and HARD_SWISH as LiteRT's optimized kernels compute them
    /// (`KernelSet::LiteRtOptimized`).
    LiteRtLogistic,
    LiteRtTanh,
    LiteRtSoftmax {
        beta: f32,
        depth: usize,
    },
    LiteRtHardSwish,
}

impl Kernel for Unary {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        let out = io.f32_out();
        match *self {
            Unary::Clamp(r) => act::clamp(r, input, out),
            Unary::Logistic => act::logistic(input, out),
            Unary::Tanh => act::tanh(input, out),
            Unary::LeakyRelu(alpha) => act::leaky_relu(alpha, input, out),
            Unary::HardSwish => act::hard_swish(input, out),
            Unary::Softmax { beta, depth } => act::softmax(beta, depth, input, out),
            Unary::LiteRtLogistic => litert::logistic(input, out),
            Unary::LiteRtTanh => litert::tanh(input, out),
            Unary::LiteRtSoftmax { beta, depth } => litert::softmax(beta, depth, input, out),
            Unary::LiteRtHardSwish => litert::hard_swish(input, out),
        }
    }
}

/// A quantized unary activation.
enum IntUnary {
    ReluX(QuantReluX),
    LeakyRelu(QuantLeakyRelu),
    HardSwish(QuantHardSwish),
    /// 8-bit table (LOGISTIC / TANH), indexed by the input byte.
    Lut(Box<[u8; 256]>),
    Logistic16 {
        multiplier: i32,
        left_shift: i32,
    },
    Tanh16 {
        multiplier: i32,
        left_shift: i32,
    },
    Softmax {
        params: QuantSoftmax,
        depth: usize,
    },
    Softmax16 {
        params: QuantSoftmaxInt16,
        depth: usize,
    },
    /// int8 LEAKY_RELU under [`Arithmetic::Xnnpack`] (XNNPACK's qs8 `vlrelu`).
    XnnpackLeakyRelu(xnnpack::LeakyRelu),
    /// int8 SOFTMAX under [`Arithmetic::Xnnpack`] (LiteRT's optimized builtin kernel).
    XnnpackSoftmax {
        params: xnnpack::Softmax,
        depth: usize,
    },
}

struct IntUnaryKernel<T> {
    op: IntUnary,
    _t: PhantomData<T>,
}

impl<T: QuantInt + act::SoftmaxInt> Kernel for IntUnaryKernel<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        match &self.op {
            IntUnary::ReluX(p) => act::quantized_relu_x(p, io.in_as::<T>(0), io.out_as::<T>()),
            IntUnary::LeakyRelu(p) => {
                act::quantized_leaky_relu(p, io.in_as::<T>(0), io.out_as::<T>())
            }
            IntUnary::HardSwish(p) => {
                act::quantized_hard_swish(p, io.in_as::<T>(0), io.out_as::<T>())
            }
            IntUnary::Lut(lut) => act::lookup_u8(lut, io.in_as::<u8>(0), io.out_as::<u8>()),
            IntUnary::Logistic16 {
                multiplier,
                left_shift,
            } => act::logistic_int16(
                *multiplier,
                *left_shift,
                io.in_as::<i16>(0),
                io.out_as::<i16>(),
            ),
            IntUnary::Tanh16 {
                multiplier,
                left_shift,
            } => act::tanh_int16(
                *multiplier,
                *left_shift,
                io.in_as::<i16>(0),
                io.out_as::<i16>(),
            ),
            IntUnary::Softmax { params, depth } => {
                T::softmax(params, *depth, io.in_as::<T>(0), io.out_as::<T>())
            }
            IntUnary::Softmax16 { params, depth } => {
                act::softmax_int16(params, *depth, io.in_as::<i16>(0), io.out_as::<i16>())
            }
            IntUnary::XnnpackLeakyRelu(p) => {
                xnnpack::leaky_relu(p, io.in_as::<i8>(0), io.out_as::<i8>())
            }
            IntUnary::XnnpackSoftmax { params, depth } => {
                xnnpack::softmax(params, *depth, io.in_as::<i8>(0), io.out_as::<i8>())
            }
        }
    }
}

/// Requires `t`'s per-tensor scale to be the power of two `2^log2` (LiteRT's `CheckedLog2`).
fn require_pot_scale(
    ctx: &PrepareCtx<'_>,
    t: &TensorInfo<'_>,
    q: QuantParams,
    log2: i32,
) -> PrepareResult<()> {
    if checked_log2(q.scale) == Some(log2) {
        Ok(())
    } else {
        Err(ctx.invalid(
            t.describe(),
            format!(
                "scale {} must be 2^{log2} (LiteRT refuses others)",
                sci(q.scale)
            ),
        ))
    }
}

/// The input rescaling of LiteRT's int16 LOGISTIC / TANH prepare: `(0, left_shift)` for a
/// power-of-two input scale whose left shift is in `pot_shifts`, otherwise a multiplier that
/// brings the scale to `1 / (3 · 4096)`, doubled until it exceeds 32767 / 2.
fn int16_lut_input_scaling(input_scale: f32, pot_shifts: &[i32]) -> (i32, i32) {
    if let Some(log2) = checked_log2(input_scale) {
        let left_shift = (15 - 3) + log2;
        if pot_shifts.contains(&left_shift) {
            return (0, left_shift);
        }
    }
    let mut multiplier = f64::from(input_scale) * 4096.0 * 3.0;
    let mut left_shift = 0;
    while multiplier <= 32767.0 / 2.0 && left_shift <= 30 {
        left_shift += 1;
        multiplier *= 2.0;
    }
    (multiplier as i32, left_shift)
}

/// The quantized unary activations (input and output of one integer type).
fn prepare_int_unary(ctx: &PrepareCtx<'_>, input: TensorInfo<'_>) -> PrepareResult<Prepared> {
    let output = ctx.output(0)?;
    let dtype = input.dtype;
    if output.dtype != dtype && ctx.op.code.op() == BuiltinOperator::SOFTMAX {
        return Err(ctx.unsupported(
            output.describe(),
            format!(
                "SOFTMAX from {} to {} (only same-type quantized SOFTMAX is implemented)",
                dtype_name(dtype),
                dtype_name(output.dtype)
            ),
        ));
    }
    if output.dtype != dtype {
        return Err(ctx.invalid(
            output.describe(),
            format!(
                "type {} differs from the input's {}",
                dtype_name(output.dtype),
                dtype_name(dtype)
            ),
        ));
    }
    let (qmin, qmax) = int_range(dtype).unwrap_or((0, 0));
    let qi = int_qparams(ctx, &input)?;
    let qo = int_qparams(ctx, &output)?;
    let int16 = dtype == TensorType::INT16;
    let signed = dtype != TensorType::UINT8;
    let unsupported = |what: &str| {
        Err(ctx.unsupported(
            input.describe(),
            format!(
                "{what} on type {} (LiteRT has no such kernel)",
                dtype_name(dtype)
            ),
        ))
    };
    let op = match ctx.op.code.op() {
        code @ (BuiltinOperator::RELU | BuiltinOperator::RELU6 | BuiltinOperator::RELU_N1_TO_1) => {
            if int16 && (qi.zero_point != 0 || qo.zero_point != 0) {
                return Err(ctx.invalid(
                    output.describe(),
                    "int16 RELU needs zero points 0 (LiteRT refuses others)",
                ));
            }
            let (lo, hi) = match code {
                BuiltinOperator::RELU => (0.0, f32::INFINITY),
                BuiltinOperator::RELU6 => (0.0, 6.0),
                _ => {
                    if int16 {
                        return unsupported("RELU_N1_TO_1");
                    }
                    (-1.0, 1.0)
                }
            };
            // activations.cc: `input->params.scale / output->params.scale` in float.
            let (multiplier, shift) = multiplier(ctx, f64::from(qi.scale / qo.scale))?;
            let act_min = qmin.max(qo.zero_point.saturating_add(round_to_i32(lo / qo.scale)));
            let act_max = if hi == f32::INFINITY {
                qmax
            } else {
                qmax.min(qo.zero_point.saturating_add(round_to_i32(hi / qo.scale)))
            };
            IntUnary::ReluX(QuantReluX {
                input_zero_point: qi.zero_point,
                output_zero_point: qo.zero_point,
                multiplier,
                shift,
                act_min,
                act_max,
            })
        }
        BuiltinOperator::LEAKY_RELU => {
            let alpha = options!(ctx, LeakyReluOptions, LeakyReluOptionsT)?.alpha;
            // Scales XNNPACK refuses stay on the reference arithmetic.
            let xnn = (ctx.arithmetic == Arithmetic::Xnnpack && dtype == TensorType::INT8)
                .then(|| {
                    xnnpack::LeakyRelu::new(qi.scale, qi.zero_point, qo.scale, qo.zero_point, alpha)
                })
                .flatten();
            if let Some(p) = xnn {
                let shape = input.shape.to_vec();
                if ctx.kernels == KernelSet::Fast {
                    let table = ByteTable::new::<i8>(|x, y| xnnpack::leaky_relu(&p, x, y));
                    return Ok(Prepared::new(shape, dtype, Fast::new(table, ())));
                }
                return Ok(Prepared::new(
                    shape,
                    dtype,
                    IntUnaryKernel::<i8> {
                        op: IntUnary::XnnpackLeakyRelu(p),
                        _t: PhantomData,
                    },
                ));
            }
            if int16 && (qi.zero_point != 0 || qo.zero_point != 0) {
                return Err(ctx.invalid(
                    output.describe(),
                    "int16 LEAKY_RELU needs zero points 0 (LiteRT refuses others)",
                ));
            }
            // Both multipliers are evaluated in float, then widened.
            let (multiplier_alpha, shift_alpha) =
                multiplier(ctx, f64::from(qi.scale * alpha / qo.scale))?;
            let (multiplier_identity, shift_identity) =
                multiplier(ctx, f64::from(qi.scale / qo.scale))?;
            IntUnary::LeakyRelu(QuantLeakyRelu {
                input_zero_point: qi.zero_point,
                output_zero_point: qo.zero_point,
                multiplier_identity,
                shift_identity,
                multiplier_alpha,
                shift_alpha,
            })
        }
        BuiltinOperator::HARD_SWISH => {
            if int16 {
                return unsupported("HARD_SWISH");
            }
            let hires_input_scale = (1.0f32 / 128.0) * qi.scale;
            let reluish_scale = 3.0f32 / 32768.0;
            let (m_out, output_multiplier_exponent) =
                multiplier(ctx, f64::from(hires_input_scale / qo.scale))?;
            if output_multiplier_exponent > 0 {
                return Err(ctx.unsupported(
                    output.describe(),
                    "HARD_SWISH whose output scale is below input scale / 128 (LiteRT refuses it)",
                ));
            }
            let (m_relu, reluish_multiplier_exponent) =
                multiplier(ctx, f64::from(hires_input_scale / reluish_scale))?;
            IntUnary::HardSwish(QuantHardSwish {
                input_zero_point: qi.zero_point,
                output_zero_point: qo.zero_point,
                output_multiplier_fixedpoint_int16: down_scale_int32_to_int16_multiplier(m_out),
                output_multiplier_exponent,
                reluish_multiplier_fixedpoint_int16: down_scale_int32_to_int16_multiplier(m_relu),
                reluish_multiplier_exponent,
            })
        }
        BuiltinOperator::LOGISTIC if int16 => {
            if qi.zero_point != 0 || qo.zero_point != 0 {
                return Err(ctx.invalid(
                    output.describe(),
                    "int16 LOGISTIC needs zero points 0 (LiteRT refuses others)",
                ));
            }
            require_pot_scale(ctx, &output, qo, -15)?;
            let (multiplier, left_shift) = int16_lut_input_scaling(qi.scale, &[0]);
            IntUnary::Logistic16 {
                multiplier,
                left_shift,
            }
        }
        BuiltinOperator::TANH if int16 => {
            if qi.zero_point != 0 || qo.zero_point != 0 {
                return Err(ctx.invalid(
                    output.describe(),
                    "int16 TANH needs zero points 0 (LiteRT refuses others)",
                ));
            }
            require_pot_scale(ctx, &output, qo, -15)?;
            let (multiplier, left_shift) = int16_lut_input_scaling(qi.scale, &[0, 1]);
            IntUnary::Tanh16 {
                multiplier,
                left_shift,
            }
        }
        BuiltinOperator::LOGISTIC => {
            if qo.scale != 1.0 / 256.0 {
                return Err(ctx.invalid(
                    output.describe(),
                    format!(
                        "scale {} must be 1/256 (LiteRT refuses others)",
                        sci(qo.scale)
                    ),
                ));
            }
            IntUnary::Lut(Box::new(lut_int8(
                signed,
                qi.scale,
                qi.zero_point,
                qo.scale,
                qo.zero_point,
                |x| 1.0 / (1.0 + (-x).exp()),
            )))
        }
        BuiltinOperator::TANH => IntUnary::Lut(Box::new(lut_int8(
            signed,
            qi.scale,
            qi.zero_point,
            qo.scale,
            qo.zero_point,
            f32::tanh,
        ))),
        BuiltinOperator::SOFTMAX => {
            let beta = options!(ctx, SoftmaxOptions, SoftmaxOptionsT)?.beta;
            let Some(&depth) = input.shape.last() else {
                return Err(ctx.invalid(input.describe(), "SOFTMAX needs rank ≥ 1"));
            };
            // Beta 0 (e.g. zeroed options, `ops::litert_options`) is defined for int16: the
            // multiplier is 0, every exponent exp(0), the output uniform, as LiteRT computes it.
            if !beta.is_finite() || beta < 0.0 || (beta == 0.0 && !int16) {
                return Err(
                    ctx.unsupported(String::new(), format!("quantized SOFTMAX with beta {beta}"))
                );
            }
            if int16 {
                if qi.zero_point != 0 || qo.zero_point != 0 {
                    return Err(ctx.invalid(
                        output.describe(),
                        "int16 SOFTMAX needs zero points 0 (LiteRT refuses others)",
                    ));
                }
                if (qo.scale - 1.0 / 32768.0).abs() > 0.001 / 32768.0 {
                    return Err(ctx.invalid(
                        output.describe(),
                        format!(
                            "scale {} must be 1/32768 (LiteRT refuses others)",
                            sci(qo.scale)
                        ),
                    ));
                }
                if input.shape.len() > 4 {
                    return unsupported("SOFTMAX of rank above 4");
                }
                let range = 65535.0;
                let exp_lut = lut_int16(10.0 / range, 32767, 2.0 / range, 0, f64::exp);
                let one_over_one_plus_x_lut =
                    lut_int16(1.0 / range, -32768, 2.0 / range, 0, |x| 1.0 / (1.0 + x));
                // `input->params.scale * params->beta` in float, then divided in double.
                let rescale = f64::from(qi.scale * beta) / (10.0 / 65535.0);
                let (input_multiplier, input_left_shift) = multiplier(ctx, rescale)?;
                IntUnary::Softmax16 {
                    params: QuantSoftmaxInt16 {
                        exp_lut: Box::new(exp_lut),
                        one_over_one_plus_x_lut: Box::new(one_over_one_plus_x_lut),
                        input_multiplier,
                        input_left_shift,
                    },
                    depth,
                }
            } else {
                if qo.zero_point != qmin {
                    return Err(ctx.invalid(
                        output.describe(),
                        format!(
                            "zero point {} must be {qmin} (LiteRT refuses others)",
                            qo.zero_point
                        ),
                    ));
                }
                if (qo.scale - 1.0 / 256.0).abs() > 0.001 / 256.0 {
                    return Err(ctx.invalid(
                        output.describe(),
                        format!(
                            "scale {} must be 1/256 (LiteRT refuses others)",
                            sci(qo.scale)
                        ),
                    ));
                }
                if ctx.arithmetic == Arithmetic::Xnnpack && dtype == TensorType::INT8 {
                    // The delegate takes float SOFTMAX only: LiteRT's optimized kernel runs it
                    // (it checks the output parameters as above, not the
                    // fixed-point input scaling below).
                    let params = xnnpack::Softmax::new(qi.scale, beta, qo.scale, qo.zero_point);
                    return Ok(Prepared::new(
                        input.shape.to_vec(),
                        dtype,
                        IntUnaryKernel::<i8> {
                            op: IntUnary::XnnpackSoftmax { params, depth },
                            _t: PhantomData,
                        },
                    ));
                }
                // PreprocessSoftmaxScaling with 5 integer bits, double rounding build.
                const SCALED_DIFF_INTEGER_BITS: i32 = 5;
                let real = (f64::from(beta)
                    * f64::from(qi.scale)
                    * f64::from(1u32 << (31 - SCALED_DIFF_INTEGER_BITS)))
                .min((1u64 << 31) as f64 - 1.0);
                let (input_multiplier, input_left_shift) = quantize_multiplier(real);
                if real <= 1.0 || input_left_shift < 0 {
                    return Err(ctx.unsupported(
                        input.describe(),
                        format!("SOFTMAX input scale × beta too small ({real} ≤ 1 in Q5.26)"),
                    ));
                }
                // CalculateInputRadius(5, left_shift, 31).
                let max_input_rescaled = f64::from((1 << SCALED_DIFF_INTEGER_BITS) - 1)
                    * (1u64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64
                    / (1u64 << input_left_shift.min(62)) as f64;
                let diff_min = -(max_input_rescaled.floor() as i32);
                IntUnary::Softmax {
                    params: QuantSoftmax {
                        input_multiplier,
                        input_left_shift,
                        diff_min,
                    },
                    depth,
                }
            }
        }
        _ => return Err(ctx.unsupported(String::new(), "not a unary activation")),
    };
    let shape = input.shape.to_vec();
    if ctx.kernels == KernelSet::Fast
        && let Some(table) = byte_table(&op, dtype)
    {
        return Ok(Prepared::new(shape, dtype, Fast::new(table, ())));
    }
    macro_rules! kernel {
        ($t:ty) => {
            Prepared::new(
                shape,
                dtype,
                IntUnaryKernel::<$t> {
                    op,
                    _t: PhantomData,
                },
            )
        };
    }
    Ok(match dtype {
        TensorType::INT8 => kernel!(i8),
        TensorType::UINT8 => kernel!(u8),
        _ => kernel!(i16),
    })
}

/// The fast kernel set's form of an 8-bit RELU / RELU6 / RELU_N1_TO_1, LEAKY_RELU or HARD_SWISH:
/// its reference kernel run once over all 256 inputs, as a table (`None` for other operators
/// and int16).
fn byte_table(op: &IntUnary, dtype: TensorType) -> Option<ByteTable> {
    fn of<T: QuantInt>(op: &IntUnary) -> Option<ByteTable> {
        Some(match op {
            IntUnary::ReluX(p) => ByteTable::new::<T>(|x, y| act::quantized_relu_x(p, x, y)),
            IntUnary::LeakyRelu(p) => {
                ByteTable::new::<T>(|x, y| act::quantized_leaky_relu(p, x, y))
            }
            IntUnary::HardSwish(p) => {
                ByteTable::new::<T>(|x, y| act::quantized_hard_swish(p, x, y))
            }
            _ => return None,
        })
    }
    match dtype {
        TensorType::INT8 => of::<i8>(op),
        TensorType::UINT8 => of::<u8>(op),
        _ => None,
    }
}

/// The unary activations: one float32 input (or an int8 / uint8 / int16 one, quantized
/// kernels), output of the same shape.
pub fn prepare_unary(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    if int_range(input.dtype).is_some() {
        return prepare_int_unary(ctx, input);
    }
    ctx.require_f32(&input)?;
    let kernel = match ctx.op.code.op() {
        // The RELU operator has no top (LiteRT's `Relu`: `max(0, x)`; +inf stays +inf), unlike
        // a fused RELU, whose top is FLT_MAX.
        BuiltinOperator::RELU => Unary::Clamp(ActivationRange {
            min: 0.0,
            ..ActivationRange::UNBOUNDED
        }),
        BuiltinOperator::RELU6 => Unary::Clamp(ActivationRange::RELU6),
        BuiltinOperator::RELU_N1_TO_1 => Unary::Clamp(ActivationRange::RELU_N1_TO_1),
        BuiltinOperator::LOGISTIC => Unary::Logistic,
        BuiltinOperator::TANH => Unary::Tanh,
        BuiltinOperator::HARD_SWISH => Unary::HardSwish,
        BuiltinOperator::LEAKY_RELU => {
            Unary::LeakyRelu(options!(ctx, LeakyReluOptions, LeakyReluOptionsT)?.alpha)
        }
        BuiltinOperator::SOFTMAX => {
            let beta = options!(ctx, SoftmaxOptions, SoftmaxOptionsT)?.beta;
            let Some(&depth) = input.shape.last() else {
                return Err(ctx.invalid(input.describe(), "SOFTMAX needs rank ≥ 1"));
            };
            Unary::Softmax { beta, depth }
        }
        _ => return Err(ctx.unsupported(String::new(), "not a unary activation")),
    };
    let kernel = match kernel {
        Unary::Logistic if ctx.litert_optimized() => Unary::LiteRtLogistic,
        Unary::Tanh if ctx.litert_optimized() => Unary::LiteRtTanh,
        Unary::HardSwish if ctx.litert_optimized() => Unary::LiteRtHardSwish,
        Unary::Softmax { beta, depth } if ctx.litert_optimized() => {
            Unary::LiteRtSoftmax { beta, depth }
        }
        k => k,
    };
    if let (Unary::Clamp(range), KernelSet::Fast) = (&kernel, ctx.kernels) {
        return Ok(Prepared::f32(
            input.shape.to_vec(),
            Fast::new(ClampF32(*range), ()),
        ));
    }
    Ok(Prepared::f32(input.shape.to_vec(), kernel))
}

struct Prelu {
    shape: Broadcast,
}

impl Kernel for Prelu {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, alpha) = (io.f32_in(0), io.f32_in(1));
        elementwise::prelu(&self.shape, input, alpha, io.f32_out());
    }
}

struct IntPrelu<T> {
    params: QuantPrelu,
    shape: Broadcast,
    _t: PhantomData<T>,
}

impl<T: QuantInt> Kernel for IntPrelu<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, alpha) = (io.in_as::<T>(0), io.in_as::<T>(1));
        elementwise::quantized_prelu(&self.params, &self.shape, input, alpha, io.out_as::<T>());
    }
}

/// Quantized PRELU of the fast kernel set: a [`PreluTable`] (the reference kernel's outputs for
/// every pair of input and alpha bytes).
struct FastPrelu(PreluTable);

impl Kernel for FastPrelu {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, alpha) = (io.in_as::<u8>(0), io.in_as::<u8>(1));
        self.0.run(input, alpha, io.out_as::<u8>());
    }
}

/// Quantized PRELU (int8 / uint8; LiteRT has no int16 kernel).
fn prepare_int_prelu(
    ctx: &PrepareCtx<'_>,
    input: TensorInfo<'_>,
    alpha: TensorInfo<'_>,
) -> PrepareResult<Prepared> {
    let output = ctx.output(0)?;
    ctx.require_dtype(&input, &[TensorType::INT8, TensorType::UINT8])?;
    for t in [&alpha, &output] {
        if t.dtype != input.dtype {
            return Err(ctx.invalid(
                t.describe(),
                format!(
                    "type {} differs from the input's {}",
                    dtype_name(t.dtype),
                    dtype_name(input.dtype)
                ),
            ));
        }
    }
    ctx.require_max_rank(&input)?;
    ctx.require_max_rank(&alpha)?;
    let shape = Broadcast::new(input.shape, alpha.shape).ok_or_else(|| {
        ctx.invalid(
            alpha.describe(),
            format!(
                "alpha {:?} does not broadcast against {:?}",
                alpha.shape, input.shape
            ),
        )
    })?;
    let (qi, qa, qo) = (
        int_qparams(ctx, &input)?,
        int_qparams(ctx, &alpha)?,
        int_qparams(ctx, &output)?,
    );
    // activations.cc: both products/quotients in float, then widened.
    let (multiplier_1, shift_1) = multiplier(ctx, f64::from(qi.scale / qo.scale))?;
    let (multiplier_2, shift_2) = multiplier(ctx, f64::from(qi.scale * qa.scale / qo.scale))?;
    let params = QuantPrelu {
        input_offset: -qi.zero_point,
        alpha_offset: -qa.zero_point,
        output_offset: qo.zero_point,
        multiplier_1,
        shift_1,
        multiplier_2,
        shift_2,
    };
    let dims = shape.dims().to_vec();
    if ctx.kernels == KernelSet::Fast {
        let table = match input.dtype {
            TensorType::INT8 => PreluTable::new::<i8>(&params, shape, input.shape, alpha.shape),
            _ => PreluTable::new::<u8>(&params, shape, input.shape, alpha.shape),
        };
        return Ok(Prepared::new(dims, input.dtype, FastPrelu(table)));
    }
    macro_rules! kernel {
        ($t:ty) => {
            Prepared::new(
                dims,
                input.dtype,
                IntPrelu::<$t> {
                    params,
                    shape,
                    _t: PhantomData,
                },
            )
        };
    }
    Ok(match input.dtype {
        TensorType::INT8 => kernel!(i8),
        _ => kernel!(u8),
    })
}

/// PRELU: `x` and `alpha` float32 (or both int8 / uint8, quantized), `alpha` broadcast
/// against `x`.
pub fn prepare_prelu(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, alpha) = (ctx.input(0)?, ctx.input(1)?);
    if int_range(input.dtype).is_some() {
        return prepare_int_prelu(ctx, input, alpha);
    }
    ctx.require_f32(&input)?;
    ctx.require_f32(&alpha)?;
    ctx.require_max_rank(&input)?;
    ctx.require_max_rank(&alpha)?;
    let shape = Broadcast::new(input.shape, alpha.shape).ok_or_else(|| {
        ctx.invalid(
            alpha.describe(),
            format!(
                "alpha {:?} does not broadcast against {:?}",
                alpha.shape, input.shape
            ),
        )
    })?;
    if ctx.kernels == KernelSet::Fast
        && let Some(k) = PreluF32::new(input.shape, alpha.shape)
    {
        return Ok(Prepared::f32(shape.dims().to_vec(), FastPreluF32(k)));
    }
    Ok(Prepared::f32(shape.dims().to_vec(), Prelu { shape }))
}

/// Float PRELU of the fast kernel set.
struct FastPreluF32(PreluF32);

impl Kernel for FastPreluF32 {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, alpha) = (io.f32_in(0), io.f32_in(1));
        self.0.run(input, alpha, io.f32_out());
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::shape::test_model::equals_litert_fixture;

    /// int16 LOGISTIC / TANH with input scales whose int32 rescaling overflows (a denormal scale,
    /// whose multiplier rounds to 0 and reads as `3 << 31`; large scales): LiteRT's compiled
    /// kernel wraps. The fixtures (`tests/tools/make_int16_lut_overflow.py`) are the golden 16x8
    /// models cut to the one operator, its input scale set to each value, and LiteRT 2.3
    /// BUILTIN_REF's outputs for both ends and the middle of the int16 range.
    #[test]
    fn int16_lut_input_rescaling_wraps_as_litert_does() {
        for op in ["tanh", "logistic"] {
            for k in 0..4 {
                equals_litert_fixture(&format!("int16_lut_overflow/{op}_{k}"));
            }
        }
    }
}
