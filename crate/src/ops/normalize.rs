//! L2_NORMALIZATION along the last axis: float32, and int8 with LiteRT's fixed output parameters
//! (scale 1/128, zero point 0). Kernels: `crate::kernels::reference::normalize`.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::reference::normalize::{l2_normalize_f32, l2_normalize_int8};
use crate::tflite::schema::{ActivationFunctionType, L2NormOptionsT};

struct L2Float {
    depth: usize,
}

impl Kernel for L2Float {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        l2_normalize_f32(self.depth, input, io.f32_out());
    }
}

struct L2Int8 {
    depth: usize,
    zero_point: i32,
}

impl Kernel for L2Int8 {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<i8>(0);
        l2_normalize_int8(self.depth, self.zero_point, input, io.out_as::<i8>());
    }
}

/// L2_NORMALIZATION: each row along the last axis divided by its L2 norm. As LiteRT's
/// `l2norm.cc`: rank at most 4, no fused activation, input and output of one type (FLOAT32 or
/// INT8); an INT8 output must have scale 1/128 and zero point 0.
pub fn prepare_l2_normalization(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let out = ctx.output(0)?;
    let o = options!(ctx, L2NormOptions, L2NormOptionsT)?;
    if o.fused_activation_function != ActivationFunctionType::NONE {
        return Err(ctx.unsupported(
            String::new(),
            "a fused activation (LiteRT's L2_NORMALIZATION has none)",
        ));
    }
    if input.shape.len() > 4 || input.shape.is_empty() {
        return Err(ctx.unsupported(
            input.describe(),
            format!("rank {} (1 to 4 supported)", input.shape.len()),
        ));
    }
    let depth = input.shape[input.shape.len() - 1];
    let shape = input.shape.to_vec();
    ctx.require_output_dtype(0, input.dtype)?;
    match input.dtype {
        TensorType::FLOAT32 => Ok(Prepared::f32(shape, L2Float { depth })),
        TensorType::INT8 => {
            let qi = ctx.per_tensor_qparams(&input)?;
            let qo = ctx.per_tensor_qparams(&out)?;
            if qo.scale != 1.0 / 128.0 || qo.zero_point != 0 {
                return Err(ctx.unsupported(
                    out.describe(),
                    format!(
                        "scale {} zero point {} (the INT8 kernel writes scale 1/128, zero point 0)",
                        qo.scale, qo.zero_point
                    ),
                ));
            }
            Ok(Prepared::new(
                shape,
                TensorType::INT8,
                L2Int8 {
                    depth,
                    zero_point: qi.zero_point,
                },
            ))
        }
        other => Err(ctx.unsupported(
            input.describe(),
            format!("type {} (FLOAT32 or INT8)", dtype_name(other)),
        )),
    }
}
