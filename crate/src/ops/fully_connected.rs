//! FULLY_CONNECTED: float32, integer (int8 activations with int32 bias, int16 activations with
//! int32/int64 bias; int8 or INT4 weights per tensor or per channel) and hybrid (int8 or INT4
//! weights, float32 activations).
//!
//! The integer prepare mirrors LiteRT's `fully_connected.cc` with `kReference`: the real
//! multiplier `(double)s_in · (double)s_w / (double)s_out` (per unit for per-channel weights) is
//! kept in double precision — the reference kernels rescale with it directly, not with a Q31
//! multiplier — and the fused activation becomes a clamp in output units. The hybrid kernel
//! follows `EvalHybridDense` (per-batch input quantization, symmetric or asymmetric as the
//! `asymmetric_quantize_inputs` option says).

use std::marker::PhantomData;

use super::conv::float::const_f32_weights;
use super::conv::hybrid::hybrid_scales;
use super::conv::int::{IntScheme, KernelTypes, const_weights, int_params};
use super::fast::Fast;
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::TensorType;
use crate::kernels::litert_optimized;
use crate::kernels::litert_optimized::simd::gebp::FullyConnectedTf;
use crate::kernels::reference::conv_int::{Accumulator, QuantElem, RequantParams};
use crate::kernels::reference::fully_connected::{self as fc, FullyConnectedParams};
use crate::kernels::reference::fully_connected_int;
use crate::kernels::reference::hybrid::{self, QuantizedBatches, VectorFunction};
use crate::kernels::simd128::conv_float::FullyConnectedF32;
use crate::kernels::simd128::fully_connected_int::FullyConnectedInt8;
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite::schema::{
    ActivationFunctionType, FullyConnectedOptionsT, FullyConnectedOptionsWeightsFormat,
};

struct FullyConnected {
    p: FullyConnectedParams,
    /// The general product's blocking when mirroring LiteRT's optimized kernel.
    litert_optimized: Option<litert_optimized::contraction::Plan>,
}

impl Kernel for FullyConnected {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, weights, bias) = (io.f32_in(0), io.f32_in(1), io.opt_f32_in(2));
        if let Some(plan) = &self.litert_optimized {
            litert_optimized::fully_connected::fully_connected(
                &self.p,
                plan,
                input,
                weights,
                bias,
                io.f32_out(),
            );
        } else {
            fc::fully_connected(&self.p, input, weights, bias, io.f32_out());
        }
    }
}

/// Integer FULLY_CONNECTED kernel: activations `T`, accumulator `A`, bias elements `B`.
struct QFullyConnected<T, A, B> {
    p: FullyConnectedParams,
    q: RequantParams,
    _types: KernelTypes<T, A, B>,
}

impl<T: QuantElem, A: Accumulator, B: bytemuck::Pod + Into<A>> Kernel for QFullyConnected<T, A, B> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (input, weights, bias) = (io.in_as::<T>(0), io.in_as::<i8>(1), io.opt_in_as::<B>(2));
        fully_connected_int::fully_connected::<T, A, B>(
            &self.p,
            &self.q,
            input,
            weights,
            bias,
            io.out_as::<T>(),
        );
    }
}

/// Hybrid FULLY_CONNECTED kernel (int8 weights, float32 activations). The run-time quantized
/// input lives in scratch the kernel owns, sized at prepare time, so `eval` fills it without
/// allocating.
struct HybridFullyConnected {
    p: FullyConnectedParams,
    /// Per-unit weight scales when the weights carry several (LiteRT's
    /// `VerifyPerChannelQuantization`); `None` for one scale.
    per_channel: Option<Vec<f32>>,
    weight_scale: f32,
    asymmetric: bool,
    /// TANH / SIGN_BIT, applied after the product (`p.act` is then NONE).
    function: Option<VectorFunction>,
    scratch: QuantizedBatches,
}

impl Kernel for HybridFullyConnected {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let q = &mut self.scratch;
        let (input, weights, bias) = (io.f32_in(0), io.in_as::<i8>(1), io.opt_f32_in(2));
        q.quantize(input, self.asymmetric);
        if self.per_channel.is_none() {
            q.scale_by(self.weight_scale);
        }
        let out = io.f32_out();
        hybrid::fully_connected(
            &self.p,
            input,
            q,
            self.per_channel.as_deref(),
            weights,
            bias,
            out,
        );
        if let Some(f) = self.function {
            f.apply(out);
        }
    }
}

/// FULLY_CONNECTED: input of any rank flattened to `[batches, accum_depth]`, weights
/// `[units, accum_depth]`, optional bias `[units]`. Output `[batches, units]`, or the input's
/// shape with the last dim replaced by `units` under `keep_num_dims`.
pub fn prepare_fully_connected(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 3)?;
    let o = options!(ctx, FullyConnectedOptions, FullyConnectedOptionsT)?;
    let (input, weights) = (ctx.input(0)?, ctx.input(1)?);
    let is_float = input.dtype == TensorType::FLOAT32;
    // INT4 weights (two to a byte, unpacked by the engine) run where int8 weights do, as in
    // LiteRT: integer and hybrid.
    let quantized_weights = matches!(weights.dtype, TensorType::INT8 | TensorType::INT4);
    if is_float && !quantized_weights {
        ctx.require_f32_weights(&weights)?;
    }
    if o.weights_format != FullyConnectedOptionsWeightsFormat::DEFAULT {
        return Err(ctx.unsupported(weights.describe(), "shuffled weights format"));
    }
    ctx.require_rank(&weights, 2)?;
    // LiteRT's fully_connected.cc prepare: outside the hybrid path only the clipping
    // activations run (TANH and SIGN_BIT are refused; values outside the enum read as NONE);
    // the hybrid kernel's `ApplyActivationToVector` applies TANH and SIGN_BIT too.
    let hybrid = is_float && quantized_weights;
    let f = o.fused_activation_function;
    let function = match f {
        ActivationFunctionType::TANH => Some(VectorFunction::Tanh),
        ActivationFunctionType::SIGN_BIT => Some(VectorFunction::SignBit),
        _ => None,
    };
    if !hybrid && function.is_some() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "fused_activation_function {} ({}) is not NONE, RELU, RELU_N1_TO_1 or RELU6 \
                 (LiteRT refuses it outside the hybrid kernel)",
                f.0,
                f.variant_name().unwrap_or("?")
            ),
        ));
    }
    let act = ctx.activation(f)?;
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
    if let Some(bias) = ctx.optional_input(2)
        && is_float
    {
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
    if is_float && quantized_weights {
        let (scales, several) = hybrid_scales(ctx, &weights, 0, units)?;
        let weight_scale = scales.first().copied().unwrap_or(1.0);
        return Ok(Prepared::f32(
            shape,
            HybridFullyConnected {
                p,
                per_channel: several.then_some(scales),
                weight_scale,
                asymmetric: o.asymmetric_quantize_inputs,
                function,
                scratch: QuantizedBatches::new(batches, depth),
            },
        ));
    }
    if is_float {
        if ctx.kernels == KernelSet::Fast
            && let Some((w, b)) = const_f32_weights(ctx, &weights, 2)
            && let Some(k) = FullyConnectedF32::new(&p, &w, b.as_deref())
        {
            return Ok(Prepared::f32(shape, Fast::new(k, ())));
        }
        if let Some(caches) = ctx.eigen_caches()
            && litert_optimized::simd::PREFERRED
            && let Some((w, b)) = const_f32_weights(ctx, &weights, 2)
            && let Some(k) = FullyConnectedTf::new(&p, &w, b.as_deref(), &caches)
        {
            return Ok(Prepared::f32(shape, Fast::new(k, ())));
        }
        return Ok(Prepared::f32(
            shape,
            FullyConnected {
                p,
                litert_optimized: ctx.eigen_caches().map(|c| {
                    litert_optimized::contraction::Plan::gemm(p.accum_depth, p.out_c, p.batches, &c)
                }),
            },
        ));
    }
    let bias = ctx.optional_input(2);
    let (scheme, q) = int_params(
        ctx,
        &input,
        &weights,
        bias.as_ref(),
        0,
        units,
        o.fused_activation_function,
        ctx.arithmetic == Arithmetic::Xnnpack,
    )?;
    if ctx.kernels == KernelSet::Fast
        && scheme == IntScheme::Int8
        && let Some((w, b)) = const_weights(&weights, bias.as_ref())
        && let Some((k, scratch)) =
            FullyConnectedInt8::new(batches, depth, units, &q, w, b.as_deref())
    {
        return Ok(Prepared::new(
            shape,
            TensorType::INT8,
            Fast::new(k, scratch),
        ));
    }
    Ok(match scheme {
        IntScheme::Int8 => Prepared::new(
            shape,
            TensorType::INT8,
            QFullyConnected::<i8, i32, i32> {
                p,
                q,
                _types: PhantomData,
            },
        ),
        IntScheme::Int16BiasI32 => Prepared::new(
            shape,
            TensorType::INT16,
            // LiteRT accumulates in the bias type: int32 here.
            QFullyConnected::<i16, i32, i32> {
                p,
                q,
                _types: PhantomData,
            },
        ),
        IntScheme::Int16BiasI64 => Prepared::new(
            shape,
            TensorType::INT16,
            QFullyConnected::<i16, i64, i64> {
                p,
                q,
                _types: PhantomData,
            },
        ),
    })
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{T, act, error, single_op};
    use crate::tflite::schema::{ActivationFunctionType as A, FullyConnectedOptionsT};

    /// As LiteRT's prepare (mutation-harness mutant 2736): a float FULLY_CONNECTED with float
    /// weights refuses TANH and SIGN_BIT; the clipping activations prepare.
    #[test]
    fn non_clipping_activation_is_refused_outside_hybrid() {
        let model = |f: A| {
            single_op(
                BuiltinOperator::FULLY_CONNECTED,
                BuiltinOptionsT::FullyConnectedOptions(Box::new(FullyConnectedOptionsT {
                    fused_activation_function: f,
                    ..Default::default()
                })),
                vec![
                    act(TensorType::FLOAT32, &[1, 2], None),
                    T {
                        dtype: TensorType::FLOAT32,
                        shape: vec![3, 2],
                        q: None,
                        data: Some(bytemuck::cast_slice(&[0.5f32; 6]).to_vec()),
                    },
                    act(TensorType::FLOAT32, &[1, 3], None),
                ],
            )
        };
        for f in [A::NONE, A::RELU, A::RELU_N1_TO_1, A::RELU6] {
            assert!(crate::engine::Interpreter::new(&model(f)).is_ok(), "{f:?}");
        }
        for (f, name) in [(A::TANH, "TANH"), (A::SIGN_BIT, "SIGN_BIT")] {
            let e = error(&model(f));
            assert!(
                e.contains(&format!("({name})")) && e.contains("LiteRT refuses"),
                "{e}"
            );
        }
    }

    /// LiteRT's hybrid kernel applies TANH and SIGN_BIT (`ApplyActivationToVector`); they ran
    /// as NONE here. The fixtures (`tests/tools/make_fc_hybrid_functions.py`) are the dynamic
    /// golden `op_fc_hybrid_edges_none` rewritten with each activation, its inputs (±inf, NaN,
    /// ±0 rows) and a normal sample, and LiteRT 2.3 BUILTIN_REF's outputs.
    #[test]
    fn hybrid_tanh_and_sign_bit_apply_as_litert_applies_them() {
        for name in ["tanh", "sign_bit"] {
            let m = crate::ops::shape::test_model::equals_litert_fixture(&format!(
                "fc_hybrid_functions/{name}"
            ));
            let warnings = crate::graph::lint::warnings(&m);
            assert!(
                !warnings.iter().any(|w| w.contains("fused activation")),
                "no 'run as NONE' warning: {warnings:?}"
            );
        }
    }
}
