//! DEQUANTIZE (int8 / uint8 / int16 per tensor or per channel, and float16, to float32), folded
//! into a float constant when its input is constant — how TF stores fp16 and some int8 weights.
//! QUANTIZE (float → int) comes with the int8 engine.

use super::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared};
use crate::graph::TensorType;
use crate::kernels::reference::quantize as q;
use crate::tflite::types::dtype_name;

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
                TensorType::INT8 => q::dequantize(
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
                TensorType::INT8 => q::dequantize_per_channel(
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
    fn eval(&self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        self.run(input, io.f32_out());
    }
}

/// DEQUANTIZE: a constant input is folded at prepare time (the engine then treats the output as
/// a float constant); otherwise the kernel runs at every inference.
pub fn prepare_dequantize(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    ctx.require_output_dtype(0, TensorType::FLOAT32)?;
    let how = match input.dtype {
        TensorType::FLOAT16 => Dequantize::F16,
        TensorType::INT8 | TensorType::UINT8 | TensorType::INT16 => {
            let quant = input
                .quantization
                .ok_or_else(|| ctx.invalid(input.describe(), "no quantization parameters"))?;
            let scales = quant.scales();
            let zps = quant.zero_points();
            let zero_points: Vec<i32> = if zps.is_empty() {
                vec![0; scales.len()]
            } else {
                zps.iter()
                    .map(|&z| i32::try_from(z).unwrap_or(i32::MAX))
                    .collect()
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
    Ok(Prepared::f32(shape, how))
}

/// QUANTIZE: not in the float engine.
pub fn prepare_quantize(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    Err(ctx.unsupported(
        String::new(),
        "QUANTIZE (float → int) comes with the int8 engine (issue 6)",
    ))
}
