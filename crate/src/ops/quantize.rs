//! DEQUANTIZE (int8 / INT4 / uint8 / int16 per tensor or per channel, and float16, to float32), folded
//! into a float constant when its input is constant — how TF stores fp16 and some int8 weights.
//! QUANTIZE: float32 → int8 / uint8 / int16 per tensor (LiteRT's reference `AffineQuantize`),
//! and integer → integer requantization (int8 ↔ int8 / uint8, int16 → int16 / int8, as
//! LiteRT's `quantize.cc` `Requantize`).

use std::marker::PhantomData;

use super::elementwise::multiplier;
use super::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared};
use crate::graph::dtype::dtype_name;
use crate::graph::{TensorType, litert_zero_point};
use crate::kernels::reference::quantize::{self as q, QuantInt};
use crate::kernels::simd128::quantize as fast;
use crate::kernels::{Arithmetic, KernelSet, xnnpack};

/// How to turn the input into floats.
enum Dequantize {
    F16,
    PerTensor {
        dtype: TensorType,
        scale: f32,
        zero_point: i32,
    },
    PerChannel {
        dtype: TensorType,
        scales: Vec<f32>,
        zero_points: Vec<i32>,
        inner: usize,
    },
}

impl Dequantize {
    fn run(&self, input: &[u8], out: &mut [f32]) {
        match self {
            Dequantize::F16 => q::dequantize_f16(input, out),
            Dequantize::PerTensor {
                dtype,
                scale,
                zero_point,
            } => match *dtype {
                // INT4 constants are held unpacked, one signed byte per element.
                TensorType::INT8 | TensorType::INT4 => q::dequantize(
                    *scale,
                    *zero_point,
                    bytemuck::cast_slice::<u8, i8>(input),
                    out,
                ),
                TensorType::UINT8 => q::dequantize(*scale, *zero_point, input, out),
                _ => q::dequantize(
                    *scale,
                    *zero_point,
                    bytemuck::cast_slice::<u8, i16>(input),
                    out,
                ),
            },
            Dequantize::PerChannel {
                dtype,
                scales,
                zero_points,
                inner,
            } => match *dtype {
                TensorType::INT8 | TensorType::INT4 => q::dequantize_per_channel(
                    scales,
                    zero_points,
                    *inner,
                    bytemuck::cast_slice::<u8, i8>(input),
                    out,
                ),
                TensorType::UINT8 => {
                    q::dequantize_per_channel(scales, zero_points, *inner, input, out)
                }
                _ => q::dequantize_per_channel(
                    scales,
                    zero_points,
                    *inner,
                    bytemuck::cast_slice::<u8, i16>(input),
                    out,
                ),
            },
        }
    }
}

impl Kernel for Dequantize {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        self.run(input, io.f32_out());
    }
}

/// DEQUANTIZE: a constant input is folded at prepare time (the engine then treats the output as
/// a float constant); otherwise the kernel runs at every inference. The output is FLOAT32
/// whatever type it declares, as LiteRT's Prepare sets it (`graph::lint` warns about another).
pub fn prepare_dequantize(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    ctx.output(0)?;
    let how = match input.dtype {
        TensorType::FLOAT16 => Dequantize::F16,
        // INT4: a constant (the engine holds no other INT4 tensor), unpacked to one byte each.
        TensorType::INT8 | TensorType::UINT8 | TensorType::INT16 | TensorType::INT4 => {
            let quant = input
                .quantization
                .ok_or_else(|| ctx.invalid(input.describe(), "no quantization parameters"))?;
            let scales = quant.scales();
            let zps = quant.zero_points();
            let zero_points: Vec<i32> = if zps.is_empty() {
                vec![0; scales.len()]
            } else {
                zps.iter().map(|&z| litert_zero_point(z)).collect()
            };
            if scales.is_empty() || zero_points.len() != scales.len() {
                return Err(ctx.invalid(
                    input.describe(),
                    format!("{} scales and {} zero points", scales.len(), zps.len()),
                ));
            }
            if scales.len() == 1 {
                Dequantize::PerTensor {
                    dtype: input.dtype,
                    scale: scales[0],
                    zero_point: zero_points[0],
                }
            } else {
                let axis = usize::try_from(quant.quantized_dimension)
                    .ok()
                    .filter(|&a| a < input.shape.len() && input.shape[a] == scales.len())
                    .ok_or_else(|| {
                        ctx.invalid(
                            input.describe(),
                            format!(
                                "{} per-channel scales on dimension {} of shape {:?}",
                                scales.len(),
                                quant.quantized_dimension,
                                input.shape
                            ),
                        )
                    })?;
                Dequantize::PerChannel {
                    dtype: input.dtype,
                    scales: scales.to_vec(),
                    zero_points,
                    inner: input.shape[axis + 1..].iter().product(),
                }
            }
        }
        other => {
            return Err(ctx.unsupported(
                input.describe(),
                format!("DEQUANTIZE from {}", dtype_name(other)),
            ));
        }
    };
    let shape = input.shape.to_vec();
    if let Some(data) = input.data {
        let mut out = vec![0.0f32; input.num_elements()];
        how.run(data, &mut out);
        return Ok(Prepared {
            shape,
            dtype: TensorType::FLOAT32,
            node: Node::Constant(bytemuck::cast_slice(&out).to_vec()),
        });
    }
    if ctx.kernels == KernelSet::Fast
        && let Dequantize::PerTensor {
            dtype: TensorType::INT8,
            scale,
            zero_point,
        } = how
    {
        return Ok(Prepared::f32(
            shape,
            FastQuantize::Dequantize { scale, zero_point },
        ));
    }
    Ok(Prepared::f32(shape, how))
}

/// The fast kernels of QUANTIZE / DEQUANTIZE (`kernels::simd128::quantize`), int8 per tensor.
enum FastQuantize {
    /// float32 → int8.
    Affine { scale: f32, zero_point: i32 },
    /// int8 → float32.
    Dequantize { scale: f32, zero_point: i32 },
    /// int8 → int8.
    Requantize(fast::RequantizeInt8),
}

impl Kernel for FastQuantize {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        match self {
            FastQuantize::Affine { scale, zero_point } => {
                let input = io.f32_in(0);
                fast::affine_quantize_int8(*scale, *zero_point, input, io.out_as::<i8>());
            }
            FastQuantize::Dequantize { scale, zero_point } => {
                let input = io.in_as::<i8>(0);
                fast::dequantize_int8(*scale, *zero_point, input, io.f32_out());
            }
            FastQuantize::Requantize(k) => {
                let input = io.in_as::<i8>(0);
                k.run(input, io.out_as::<i8>());
            }
        }
    }
}

/// QUANTIZE float → integer, per tensor.
struct AffineQuantize<O> {
    scale: f32,
    zero_point: i32,
    _out: PhantomData<O>,
}

impl<O: QuantInt> Kernel for AffineQuantize<O> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        q::affine_quantize(self.scale, self.zero_point, input, io.out_as::<O>());
    }
}

/// QUANTIZE float → int8 with XNNPACK's arithmetic ([`xnnpack::quantize`]).
struct XnnpackQuantize {
    inv_scale: f32,
    zero_point: i32,
}

impl Kernel for XnnpackQuantize {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        xnnpack::quantize(self.inv_scale, self.zero_point, input, io.out_as::<i8>());
    }
}

/// QUANTIZE integer → integer.
struct Requantize<I, O> {
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
    _types: PhantomData<(I, O)>,
}

impl<I: QuantInt, O: QuantInt> Kernel for Requantize<I, O> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<I>(0);
        q::requantize(
            self.multiplier,
            self.shift,
            self.input_zero_point,
            self.output_zero_point,
            input,
            io.out_as::<O>(),
        );
    }
}

fn requantize_kernel<I: QuantInt, O: QuantInt>(
    shape: Vec<usize>,
    dtype: TensorType,
    (multiplier, shift): (i32, i32),
    input_zero_point: i32,
    output_zero_point: i32,
) -> Prepared {
    Prepared::new(
        shape,
        dtype,
        Requantize::<I, O> {
            multiplier,
            shift,
            input_zero_point,
            output_zero_point,
            _types: PhantomData,
        },
    )
}

/// QUANTIZE: float32 → int8 / uint8 / int16 with one scale and zero point (LiteRT's
/// `AffineQuantize`), or a requantization between integer types (LiteRT's `Requantize`, double
/// rounding; the multiplier is `in_scale / out_scale` in double). Per-channel output parameters
/// and int32 inputs/outputs are unsupported. With [`Arithmetic::Xnnpack`], float32 → int8 is
/// XNNPACK's conversion instead ([`xnnpack::quantize`]).
pub fn prepare_quantize(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    ctx.require_dtype(
        &output,
        &[TensorType::INT8, TensorType::UINT8, TensorType::INT16],
    )?;
    if output.quantization.is_some_and(|q| q.scales().len() > 1) {
        return Err(ctx.unsupported(output.describe(), "QUANTIZE to per-channel parameters"));
    }
    let out_q = ctx.per_tensor_qparams(&output)?;
    let shape = input.shape.to_vec();
    let dtype = output.dtype;
    if input.dtype == TensorType::FLOAT32 {
        if ctx.arithmetic == Arithmetic::Xnnpack && dtype == TensorType::INT8 {
            return Ok(Prepared::new(
                shape,
                dtype,
                XnnpackQuantize {
                    inv_scale: xnnpack::inverse_scale(out_q.scale),
                    zero_point: out_q.zero_point,
                },
            ));
        }
        if ctx.kernels == KernelSet::Fast && dtype == TensorType::INT8 {
            return Ok(Prepared::new(
                shape,
                dtype,
                FastQuantize::Affine {
                    scale: out_q.scale,
                    zero_point: out_q.zero_point,
                },
            ));
        }
        macro_rules! affine {
            ($t:ty) => {
                Prepared::new(
                    shape,
                    dtype,
                    AffineQuantize::<$t> {
                        scale: out_q.scale,
                        zero_point: out_q.zero_point,
                        _out: PhantomData,
                    },
                )
            };
        }
        return Ok(match dtype {
            TensorType::INT8 => affine!(i8),
            TensorType::UINT8 => affine!(u8),
            _ => affine!(i16),
        });
    }
    ctx.require_dtype(
        &input,
        &[TensorType::INT8, TensorType::UINT8, TensorType::INT16],
    )?;
    let in_q = ctx.per_tensor_qparams(&input)?;
    let m = multiplier(ctx, f64::from(in_q.scale) / f64::from(out_q.scale))?;
    let (izp, ozp) = (in_q.zero_point, out_q.zero_point);
    Ok(match (input.dtype, dtype) {
        (TensorType::INT8, TensorType::INT8) => {
            match fast::RequantizeInt8::new(m.0, m.1, izp, ozp) {
                Some(k) if ctx.kernels == KernelSet::Fast => {
                    Prepared::new(shape, dtype, FastQuantize::Requantize(k))
                }
                _ => requantize_kernel::<i8, i8>(shape, dtype, m, izp, ozp),
            }
        }
        (TensorType::INT8, TensorType::UINT8) => {
            requantize_kernel::<i8, u8>(shape, dtype, m, izp, ozp)
        }
        (TensorType::UINT8, TensorType::INT8) => {
            requantize_kernel::<u8, i8>(shape, dtype, m, izp, ozp)
        }
        (TensorType::UINT8, TensorType::UINT8) => {
            requantize_kernel::<u8, u8>(shape, dtype, m, izp, ozp)
        }
        (TensorType::INT16, TensorType::INT8) => {
            requantize_kernel::<i16, i8>(shape, dtype, m, izp, ozp)
        }
        (TensorType::INT16, TensorType::INT16) => {
            if izp != 0 || ozp != 0 {
                return Err(ctx.invalid(
                    output.describe(),
                    "int16 → int16 requantization needs zero points 0 (LiteRT refuses others)",
                ));
            }
            requantize_kernel::<i16, i16>(shape, dtype, m, izp, ozp)
        }
        (i, o) => {
            return Err(ctx.unsupported(
                output.describe(),
                format!(
                    "QUANTIZE from {} to {} (LiteRT requantizes int8/uint8 → int8/uint8 and \
                     int16 → int8/int16)",
                    dtype_name(i),
                    dtype_name(o)
                ),
            ));
        }
    })
}
