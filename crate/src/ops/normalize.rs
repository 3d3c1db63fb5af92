//! The normalizations along the last axis: L2_NORMALIZATION and LOG_SOFTMAX, float32 and int8
//! with LiteRT's fixed output parameters (1/128 and 0; 16/256 and 127). Kernels:
//! `crate::kernels::reference::{normalize, log_softmax}`.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::graph::lint::sci;
use crate::kernels::Arithmetic;
use crate::kernels::reference::log_softmax::{
    LogSoftmaxParams, log_softmax_f32, log_softmax_f32_optimized, log_softmax_int8,
};
use crate::kernels::reference::normalize::{l2_normalize_f32, l2_normalize_int8};
use crate::kernels::xnnpack::unary as xnnpack;
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
    // Codes LiteRT does not clamp with (TANH, unknown numbers) read as NONE there too.
    let f = o.fused_activation_function;
    if f != ActivationFunctionType::NONE && crate::graph::lint::is_clamp_activation(f) {
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

struct LogSoftmaxFloat {
    depth: usize,
    optimized: bool,
}

impl Kernel for LogSoftmaxFloat {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        if self.optimized {
            log_softmax_f32_optimized(self.depth, input, io.f32_out());
        } else {
            log_softmax_f32(self.depth, input, io.f32_out());
        }
    }
}

struct LogSoftmaxInt8 {
    depth: usize,
    params: LogSoftmaxParams,
}

impl Kernel for LogSoftmaxInt8 {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<i8>(0);
        log_softmax_int8(&self.params, self.depth, input, io.out_as::<i8>());
    }
}

/// int8 LOG_SOFTMAX under [`Arithmetic::Xnnpack`]: LiteRT's optimized kernel
/// ([`xnnpack::LogSoftmax`]), which its default path runs.
struct XnnpackLogSoftmax {
    depth: usize,
    params: xnnpack::LogSoftmax,
}

impl Kernel for XnnpackLogSoftmax {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.in_as::<i8>(0);
        xnnpack::log_softmax(&self.params, self.depth, input, io.out_as::<i8>());
    }
}

/// The int8 LOG_SOFTMAX parameters for `input_scale`, as LiteRT's `LogSoftmaxPrepare` computes
/// them (`PreprocessLogSoftmaxScalingExp`, beta 1, 5 integer bits; `CalculateInputRadius`), or
/// `None` when LiteRT's checks would refuse the scale.
pub fn log_softmax_params(input_scale: f32) -> Option<LogSoftmaxParams> {
    const INTEGER_BITS: i32 = 5;
    let real = (f64::from(input_scale) * f64::from(1u32 << (31 - INTEGER_BITS)))
        .min((1u64 << 31) as f64 - 1.0);
    let (input_multiplier, input_left_shift) = quantize_multiplier(real);
    // QuantizeMultiplierGreaterThanOne: real > 1, shift ≥ 0.
    if real <= 1.0 || !(1..=31).contains(&input_left_shift) {
        return None;
    }
    let reverse_real = (1u64 << (31 - input_left_shift)) as f64 / f64::from(input_multiplier);
    // QuantizeMultiplierSmallerThanOneExp: 0 < real < 1, shift ≤ 0.
    if !(reverse_real > 0.0 && reverse_real < 1.0) {
        return None;
    }
    let (reverse_multiplier, reverse_shift) = quantize_multiplier(reverse_real);
    if reverse_shift > 0 {
        return None;
    }
    let radius = f64::from((1 << INTEGER_BITS) - 1) * (1u64 << (31 - INTEGER_BITS)) as f64
        / (1u64 << input_left_shift) as f64;
    Some(LogSoftmaxParams {
        input_multiplier,
        input_left_shift,
        reverse_multiplier,
        reverse_shift,
        diff_min: -(radius.floor() as i32),
    })
}

/// LOG_SOFTMAX along the last axis: FLOAT32 (the reference kernel, or LiteRT's optimized one for
/// calibration) or INT8 with input and output of one type; an INT8 output must have scale 16/256
/// and zero point 127 (LiteRT refuses others).
pub fn prepare_log_softmax(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let out = ctx.output(0)?;
    let Some(&depth) = input.shape.last() else {
        return Err(ctx.invalid(input.describe(), "LOG_SOFTMAX of a scalar"));
    };
    let shape = input.shape.to_vec();
    ctx.require_output_dtype(0, input.dtype)?;
    match input.dtype {
        TensorType::FLOAT32 => Ok(Prepared::f32(
            shape,
            LogSoftmaxFloat {
                depth,
                optimized: ctx.litert_optimized(),
            },
        )),
        TensorType::INT8 => {
            let qi = ctx.per_tensor_qparams(&input)?;
            let qo = ctx.per_tensor_qparams(&out)?;
            if qo.scale != 16.0 / 256.0 || qo.zero_point != 127 {
                return Err(ctx.unsupported(
                    out.describe(),
                    format!(
                        "scale {} zero point {} (the INT8 kernel writes scale 16/256, zero point 127)",
                        qo.scale, qo.zero_point
                    ),
                ));
            }
            if ctx.arithmetic == Arithmetic::Xnnpack {
                // The optimized kernel's prepare checks the output parameters only.
                let params = xnnpack::LogSoftmax::new(qi.scale, qo.scale, qo.zero_point);
                return Ok(Prepared::new(
                    shape,
                    TensorType::INT8,
                    XnnpackLogSoftmax { depth, params },
                ));
            }
            let params = log_softmax_params(qi.scale).ok_or_else(|| {
                ctx.unsupported(
                    input.describe(),
                    format!(
                        "input scale {} (LiteRT's LOG_SOFTMAX refuses it)",
                        sci(qi.scale)
                    ),
                )
            })?;
            Ok(Prepared::new(
                shape,
                TensorType::INT8,
                LogSoftmaxInt8 { depth, params },
            ))
        }
        other => Err(ctx.unsupported(
            input.describe(),
            format!("type {} (FLOAT32 or INT8)", dtype_name(other)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::log_softmax_params;
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, run, single_op};
    use crate::tflite::schema::{ActivationFunctionType, L2NormOptionsT};

    const F32: TensorType = TensorType::FLOAT32;
    const I8: TensorType = TensorType::INT8;

    #[test]
    fn int8_outputs_need_litert_fixed_parameters() {
        let m = single_op(
            Op::L2_NORMALIZATION,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.1, 1))),
                act(I8, &[1, 2], Some((0.1, 0))),
            ],
        );
        assert!(error(&m).contains("1/128"), "{}", error(&m));
        let m = single_op(
            Op::LOG_SOFTMAX,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.1, 1))),
                act(I8, &[1, 2], Some((1.0 / 128.0, 0))),
            ],
        );
        assert!(error(&m).contains("16/256"), "{}", error(&m));
        let m = single_op(
            Op::L2_NORMALIZATION,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 2], Some((0.1, 1))),
                act(I8, &[1, 2], Some((1.0 / 128.0, 0))),
            ],
        );
        // (4, 5) − 1 = (3, 4): 3/5 and 4/5 of 128.
        assert_eq!(run(&m, &[&i8s(&[4, 5])]), i8s(&[77, 102]));
    }

    #[test]
    fn hostile_options_and_shapes_are_refused() {
        let relu = BuiltinOptionsT::L2NormOptions(Box::new(L2NormOptionsT {
            fused_activation_function: ActivationFunctionType::RELU,
        }));
        let m = single_op(
            Op::L2_NORMALIZATION,
            relu,
            vec![act(F32, &[1, 2], None), act(F32, &[1, 2], None)],
        );
        assert!(error(&m).contains("fused activation"), "{}", error(&m));
        let m = single_op(
            Op::L2_NORMALIZATION,
            BuiltinOptionsT::NONE,
            vec![
                act(F32, &[1, 1, 1, 1, 2], None),
                act(F32, &[1, 1, 1, 1, 2], None),
            ],
        );
        assert!(error(&m).contains("rank 5"), "{}", error(&m));
        let m = single_op(
            Op::LOG_SOFTMAX,
            BuiltinOptionsT::NONE,
            vec![act(F32, &[], None), act(F32, &[], None)],
        );
        assert!(error(&m).contains("scalar"), "{}", error(&m));
    }

    #[test]
    fn log_softmax_parameters_as_litert() {
        // Scale 1/16: 2^22 in Q5.26 → multiplier 2^30, left shift 23; radius 31 · 2^26 / 2^23.
        let p = log_softmax_params(1.0 / 16.0).expect("params");
        assert_eq!((p.input_multiplier, p.input_left_shift), (1 << 30, 23));
        assert_eq!(p.diff_min, -248);
        // Reverse: 2^8 / 2^30 = 2^-22 → (2^30, -21).
        assert_eq!((p.reverse_multiplier, p.reverse_shift), (1 << 30, -21));
        // A scale so small that the Q5.26 multiplier is below 1: refused, as LiteRT does.
        assert!(log_softmax_params(1e-9).is_none());
    }
}
