//! Elementwise unary math: ABS, NEG, SQUARE, SQRT, RSQRT, EXP, LOG, FLOOR, CEIL, ROUND, ELU,
//! GELU — float32, and the quantized kernels LiteRT has: ABS (int8 / int16), RSQRT (int8 fixed
//! point, int16 table), SQRT (int8 / int16 float path), EXP, LOG and GELU (int8 / int16 tables;
//! both the tanh approximation and the exact erfc form), ELU (int8 table only: LiteRT's ELU
//! refuses int16). See each kernel in
//! [`crate::kernels::reference::math`] for which LiteRT kernel it mirrors and how it rounds.

use std::marker::PhantomData;

use super::elementwise::{int_qparams, int_range, multiplier};
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, options};
use crate::error::{Error, IssueKind, OpIssue};
use crate::graph::dtype::dtype_name;
use crate::graph::{BuiltinOperator, QuantParams, TensorType};
use crate::kernels::Arithmetic;
use crate::kernels::reference::activations::lookup_u8;
use crate::kernels::reference::fixedpoint_math::{lut_int8, lut_int16_f32};
use crate::kernels::reference::math::{self, QuantAbs, QuantRsqrt, QuantSqrt, UnaryMath};
use crate::kernels::reference::quantize::QuantInt;
use crate::kernels::xnnpack::unary as xnnpack;
use crate::tflite::schema::GeluOptionsT;

/// Float32 unary math.
struct FloatMath(UnaryMath);

impl Kernel for FloatMath {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        math::float_unary(self.0, input, io.f32_out());
    }
}

/// Float32 ROUND / ELU under [`Arithmetic::Xnnpack`]: XNNPACK's `vrndne` / `velu`
/// ([`xnnpack::round`], [`xnnpack::elu`]), which LiteRT's delegate runs for them.
struct XnnpackFloat(fn(f32) -> f32);

impl Kernel for XnnpackFloat {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        for (o, &x) in io.f32_out().iter_mut().zip(input) {
            *o = (self.0)(x);
        }
    }
}

/// Float32 GELU: the tanh approximation, or the exact (erfc) form; `tf`: the exact form as TF's
/// wheel computes it (the kernels TF calibrates with, `KernelSet::LiteRtOptimized`).
struct Gelu {
    approximate: bool,
    tf: bool,
}

impl Kernel for Gelu {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        if self.approximate {
            math::gelu_approximate(input, io.f32_out());
        } else if self.tf {
            math::gelu_exact_tf(input, io.f32_out());
        } else {
            math::gelu_exact(input, io.f32_out());
        }
    }
}

/// GELU's `approximate` option.
fn gelu_approximate(ctx: &PrepareCtx<'_>) -> PrepareResult<bool> {
    Ok(options!(ctx, GeluOptions, GeluOptionsT)?.approximate)
}

/// A quantized unary math kernel.
enum IntMath {
    Abs(QuantAbs),
    Rsqrt8(QuantRsqrt),
    Sqrt(QuantSqrt),
    /// 8-bit table, indexed by the input byte.
    Lut8(Box<[u8; 256]>),
    /// 513-entry interpolated int16 table.
    Lut16(Box<[i16; 513]>),
}

struct IntMathKernel<T> {
    op: IntMath,
    /// RSQRT's domain check: inputs below the zero point stop the invocation.
    domain: Option<BelowZeroPoint>,
    _t: PhantomData<T>,
}

/// RSQRT's domain, as LiteRT's `elementwise.cc` checks it at eval (int8 and int16 alike): an
/// input value below the input zero point fails the invocation ("Rsqrt is only defined for
/// positive values"). The engine stops with a typed error naming the operator and the input,
/// rather than making up a value.
struct BelowZeroPoint {
    zero_point: i32,
    /// The issue reported, naming the operator and its input; the reason gets the element.
    issue: OpIssue,
}

impl BelowZeroPoint {
    /// The error for the first input below the zero point, if any.
    fn check<T: QuantInt>(&self, input: &[T]) -> Option<Error> {
        let (at, &q) = input
            .iter()
            .enumerate()
            .find(|&(_, &q)| q.to_i32() < self.zero_point)?;
        let mut issue = self.issue.clone();
        issue.reason = format!(
            "element {at} is {}, below the zero point {}: RSQRT is defined for inputs ≥ 0 only \
             (LiteRT fails the invoke: \"Rsqrt is only defined for positive values\")",
            q.to_i32(),
            self.zero_point
        );
        Some(Error::CannotRun {
            issues: vec![issue],
        })
    }
}

impl<T: QuantInt> Kernel for IntMathKernel<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        if let Some(e) = self.domain.as_ref().and_then(|d| d.check(io.in_as::<T>(0))) {
            io.fail(e);
            return;
        }
        match &self.op {
            IntMath::Abs(p) => math::quantized_abs(p, io.in_as::<T>(0), io.out_as::<T>()),
            IntMath::Rsqrt8(p) => {
                math::quantized_rsqrt_int8(p, io.in_as::<i8>(0), io.out_as::<i8>())
            }
            IntMath::Sqrt(p) => math::quantized_sqrt(p, io.in_as::<T>(0), io.out_as::<T>()),
            IntMath::Lut8(lut) => lookup_u8(lut, io.in_as::<u8>(0), io.out_as::<u8>()),
            IntMath::Lut16(lut) => math::lookup_int16(lut, io.in_as::<i16>(0), io.out_as::<i16>()),
        }
    }
}

/// The float function of an op code, if it is one of this family.
fn float_fn(op: BuiltinOperator) -> Option<UnaryMath> {
    Some(match op {
        BuiltinOperator::ABS => UnaryMath::Abs,
        BuiltinOperator::NEG => UnaryMath::Neg,
        BuiltinOperator::SQUARE => UnaryMath::Square,
        BuiltinOperator::SQRT => UnaryMath::Sqrt,
        BuiltinOperator::RSQRT => UnaryMath::Rsqrt,
        BuiltinOperator::EXP => UnaryMath::Exp,
        BuiltinOperator::LOG => UnaryMath::Log,
        BuiltinOperator::FLOOR => UnaryMath::Floor,
        BuiltinOperator::CEIL => UnaryMath::Ceil,
        BuiltinOperator::ROUND => UnaryMath::Round,
        BuiltinOperator::ELU => UnaryMath::Elu,
        _ => return None,
    })
}

/// The quantized kernels: int8 (and int16 where LiteRT has one), input and output of one type.
fn prepare_int_math(ctx: &PrepareCtx<'_>, input: TensorInfo<'_>) -> PrepareResult<Prepared> {
    let output = ctx.output(0)?;
    let dtype = input.dtype;
    let code = ctx.op.code.op();
    let name = code.variant_name().unwrap_or("?");
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
    let int16 = dtype == TensorType::INT16;
    let has_kernel = match code {
        BuiltinOperator::ABS
        | BuiltinOperator::SQRT
        | BuiltinOperator::RSQRT
        | BuiltinOperator::EXP
        | BuiltinOperator::LOG
        | BuiltinOperator::GELU => matches!(dtype, TensorType::INT8 | TensorType::INT16),
        // `EluEval`: float32 and int8 only.
        BuiltinOperator::ELU => dtype == TensorType::INT8,
        _ => false,
    };
    if !has_kernel {
        return Err(ctx.unsupported(
            input.describe(),
            format!(
                "{name} on type {} (LiteRT has no such kernel)",
                dtype_name(dtype)
            ),
        ));
    }
    let qi = int_qparams(ctx, &input)?;
    let qo = int_qparams(ctx, &output)?;
    // elementwise.cc and exp.cc require zero points 0 for int16 (SQRT and GELU do not check).
    let checks_zero_points = !matches!(code, BuiltinOperator::SQRT | BuiltinOperator::GELU);
    if int16 && checks_zero_points && (qi.zero_point != 0 || qo.zero_point != 0) {
        return Err(ctx.invalid(
            output.describe(),
            format!("int16 {name} needs zero points 0 (LiteRT refuses others)"),
        ));
    }
    let op = match code {
        BuiltinOperator::ABS => IntMath::Abs(QuantAbs {
            input_offset: qi.zero_point,
            output_offset: qo.zero_point,
            rescale: if qi.scale != qo.scale {
                // `QuantizeMultiplier(input_scale / output_scale)`: the quotient in float.
                Some(multiplier(ctx, f64::from(qi.scale / qo.scale))?)
            } else {
                None
            },
        }),
        BuiltinOperator::SQRT => IntMath::Sqrt(QuantSqrt {
            input_scale: qi.scale,
            input_zero_point: qi.zero_point,
            output_scale: qo.scale,
            output_zero_point: qo.zero_point,
        }),
        BuiltinOperator::RSQRT if int16 => {
            let output_scale = qo.scale;
            table(int16, qi, qo, move |x| {
                if x <= 0.0 {
                    32767.0 * output_scale
                } else {
                    1.0 / x.sqrt()
                }
            })
        }
        BuiltinOperator::RSQRT => {
            // `1. / (std::sqrt(input_scale) * output_scale)`: root and product in float.
            let (m, shift) = multiplier(ctx, 1.0 / f64::from(qi.scale.sqrt() * qo.scale))?;
            IntMath::Rsqrt8(QuantRsqrt {
                input_offset: qi.zero_point,
                output_offset: qo.zero_point,
                multiplier: m,
                shift,
            })
        }
        BuiltinOperator::EXP => table(int16, qi, qo, f32::exp),
        // `EluPrepare`: `LUTPopulate<int8_t>` of `x < 0 ? exp(x) − 1 : x`.
        BuiltinOperator::ELU => table(false, qi, qo, math::elu_table_transform),
        BuiltinOperator::GELU => {
            if gelu_approximate(ctx)? {
                table(int16, qi, qo, math::gelu_transform_approximate)
            } else {
                table(int16, qi, qo, math::gelu_transform)
            }
        }
        _ => {
            // LOG: non-positive inputs map to the output's lowest value, in float.
            let (qmin, _) = int_range(dtype).unwrap_or((0, 0));
            let output_min = (qmin - qo.zero_point) as f32 * qo.scale;
            let log = move |x: f32| if x <= 0.0 { output_min } else { x.ln() };
            table(int16, qi, qo, log)
        }
    };
    let domain = (code == BuiltinOperator::RSQRT).then(|| BelowZeroPoint {
        zero_point: qi.zero_point,
        issue: ctx.issue(IssueKind::Invalid, input.describe(), String::new()),
    });
    let shape = input.shape.to_vec();
    Ok(if int16 {
        Prepared::new(
            shape,
            dtype,
            IntMathKernel::<i16> {
                op,
                domain,
                _t: PhantomData,
            },
        )
    } else {
        Prepared::new(
            shape,
            dtype,
            IntMathKernel::<i8> {
                op,
                domain,
                _t: PhantomData,
            },
        )
    })
}

/// The unary math ops: one float32 input (or an int8 / int16 one for the quantized kernels),
/// output of the same shape and type.
pub fn prepare_unary_math(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    if int_range(input.dtype).is_some() {
        return prepare_int_math(ctx, input);
    }
    ctx.require_f32(&input)?;
    if ctx.op.code.op() == BuiltinOperator::GELU {
        let approximate = gelu_approximate(ctx)?;
        let tf = ctx.litert_optimized();
        return Ok(Prepared::f32(
            input.shape.to_vec(),
            Gelu { approximate, tf },
        ));
    }
    let Some(f) = float_fn(ctx.op.code.op()) else {
        return Err(ctx.unsupported(String::new(), "not a unary math op"));
    };
    if ctx.arithmetic == Arithmetic::Xnnpack {
        let xnn = match f {
            UnaryMath::Round => Some(xnnpack::round as fn(f32) -> f32),
            UnaryMath::Elu => Some(xnnpack::elu as fn(f32) -> f32),
            _ => None,
        };
        if let Some(g) = xnn {
            return Ok(Prepared::f32(input.shape.to_vec(), XnnpackFloat(g)));
        }
    }
    Ok(Prepared::f32(input.shape.to_vec(), FloatMath(f)))
}

/// The lookup table LiteRT builds for an integer elementwise op computed in float: 513 int16
/// entries (`LUTPopulate<int16_t>`) or 256 int8 entries (`LUTPopulate<int8_t>`), from the input
/// and output quantization.
fn table(int16: bool, qi: QuantParams, qo: QuantParams, f: impl Fn(f32) -> f32) -> IntMath {
    if int16 {
        IntMath::Lut16(Box::new(lut_int16_f32(
            qi.scale,
            qi.zero_point,
            qo.scale,
            qo.zero_point,
            f,
        )))
    } else {
        IntMath::Lut8(Box::new(lut_int8(
            true,
            qi.scale,
            qi.zero_point,
            qo.scale,
            qo.zero_point,
            f,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{act, error, i8s, run, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::tflite::schema::GeluOptionsT;

    fn int8(op: Op, q_in: (f32, i64), q_out: (f32, i64)) -> crate::graph::Model {
        single_op(
            op,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[1, 4], Some(q_in)),
                act(TensorType::INT8, &[1, 4], Some(q_out)),
            ],
        )
    }

    #[test]
    fn rsqrt_int8_saturates_at_the_zero_point() {
        // Input scale 1/4, zero point -128; output 1/64, zero point -128:
        // x = 4 → 0.5 → -96; x = 1 → 1 → -64; x = 0 → 127; x = 0.25 → 2 → 0.
        let m = int8(Op::RSQRT, (0.25, -128), (1.0 / 64.0, -128));
        assert_eq!(
            run(&m, &[&i8s(&[-112, -124, -128, -127])]),
            i8s(&[-96, -64, 127, 0])
        );
    }

    /// The invoke error of `m` on `input`, as text (prepare must succeed).
    fn invoke_error(m: &crate::graph::Model, input: &[u8]) -> String {
        let mut it = crate::engine::Interpreter::new(m).expect("prepares");
        it.set_input(0, input).expect("input fits");
        match it.invoke() {
            Ok(()) => panic!("expected an invoke error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn rsqrt_below_the_zero_point_stops_the_invoke_as_litert_does() {
        // LiteRT's int8 and int16 RSQRT fail the invoke on an input below the input zero point
        // (`i >= input_offset` checked per element; int16 checked with ai_edge_litert 2.3 on
        // op_rsqrt's 16x8 model: -0.0001 → -1 fails, 0 runs). At the zero point it runs (127).
        let m = int8(Op::RSQRT, (0.25, -100), (1.0 / 64.0, -128));
        assert_eq!(run(&m, &[&i8s(&[-100, -99, -84, 0])])[0], 127);
        let e = invoke_error(&m, &i8s(&[-100, -99, -101, 0]));
        assert!(e.contains("operator 0 (RSQRT)"), "{e}");
        assert!(e.contains("input 0"), "{e}");
        assert!(
            e.contains("element 2 is -101, below the zero point -100"),
            "{e}"
        );
        let m16 = single_op(
            Op::RSQRT,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT16, &[1, 4], Some((1.0 / 1024.0, 0))),
                act(TensorType::INT16, &[1, 4], Some((1.0 / 1024.0, 0))),
            ],
        );
        let ok: Vec<u8> = bytemuck::cast_slice(&[0i16, 1, 1024, 32767]).to_vec();
        run(&m16, &[&ok]);
        let bad: Vec<u8> = bytemuck::cast_slice(&[1024i16, -1, 4, 5]).to_vec();
        let e = invoke_error(&m16, &bad);
        assert!(e.contains("element 1 is -1, below the zero point 0"), "{e}");
    }

    #[test]
    fn abs_int8_rescales() {
        // |q + 10| · (0.5 / 0.25) − 128, clamped.
        let m = int8(Op::ABS, (0.5, -10), (0.25, -128));
        assert_eq!(
            run(&m, &[&i8s(&[-10, -20, 0, 127])]),
            i8s(&[-128, -108, -108, 127])
        );
    }

    #[test]
    fn exact_gelu_runs_close_to_the_erf_definition() {
        // x·Φ(x) = 0.5·x·(1 + erf(x/√2)) at 0, ±1, 3, −3 from the normal CDF tables:
        // 0, 0.841344746, −0.158655254, 2.995950306, −0.004049694 (Φ(1) = 0.841344746, Φ(−3) =
        // 0.001349898). Eigen's float erfc is a few
        // ulps off the exact value, so the check is 1e-6 relative (1e-9 absolute).
        let exact = BuiltinOptionsT::GeluOptions(Box::new(GeluOptionsT { approximate: false }));
        let m = single_op(
            Op::GELU,
            exact,
            vec![
                act(TensorType::FLOAT32, &[5], None),
                act(TensorType::FLOAT32, &[5], None),
            ],
        );
        let input: Vec<u8> = [0.0f32, 1.0, -1.0, 3.0, -3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let out = run(&m, &[&input]);
        let got: Vec<f32> = out
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let want: [f64; 5] = [
            0.0,
            0.841_344_746,
            -0.158_655_254,
            2.995_950_306,
            -0.004_049_694,
        ];
        for (&g, w) in got.iter().zip(want) {
            let g = f64::from(g);
            assert!((g - w).abs() <= (1e-6 * w.abs()).max(1e-9), "{got:?}");
        }
    }

    #[test]
    fn hostile_or_unsupported_models_are_typed_errors() {
        // No int8 SQUARE in LiteRT.
        let e = error(&int8(Op::SQUARE, (0.5, 0), (0.5, 0)));
        assert!(e.contains("SQUARE") && e.contains("no such kernel"), "{e}");
        // CEIL and ROUND are float only; ELU has int8 but no int16 kernel.
        for op in [Op::CEIL, Op::ROUND] {
            let e = error(&int8(op, (0.5, 0), (0.5, 0)));
            assert!(e.contains("no such kernel"), "{e}");
        }
        let m = single_op(
            Op::ELU,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT16, &[2], Some((0.1, 0))),
                act(TensorType::INT16, &[2], Some((0.1, 0))),
            ],
        );
        let e = error(&m);
        assert!(
            e.contains("ELU on type INT16") && e.contains("no such kernel"),
            "{e}"
        );
        // Types must agree.
        let m = single_op(
            Op::EXP,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[2], Some((0.1, 0))),
                act(TensorType::INT16, &[2], Some((0.1, 0))),
            ],
        );
        assert!(error(&m).contains("differs"), "{}", error(&m));
        // int16 LOG needs zero points 0.
        let m = single_op(
            Op::LOG,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT16, &[2], Some((0.1, 3))),
                act(TensorType::INT16, &[2], Some((0.1, 0))),
            ],
        );
        assert!(error(&m).contains("zero points 0"), "{}", error(&m));
        // Missing quantization parameters on a quantized input.
        let m = single_op(
            Op::ABS,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[2], None),
                act(TensorType::INT8, &[2], Some((0.1, 0))),
            ],
        );
        assert!(error(&m).contains("quantization"), "{}", error(&m));
    }
}
