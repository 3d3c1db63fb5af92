//! Binary elementwise ops with broadcasting and fused activations: ADD, SUB, MUL, DIV, MAXIMUM,
//! MINIMUM, SQUARED_DIFFERENCE on float32; ADD, SUB, MUL on int32 (loop counters); ADD, SUB, MUL,
//! MAXIMUM, MINIMUM on int8 / uint8 / int16 and SQUARED_DIFFERENCE on int8 (LiteRT's quantized
//! reference kernels).

use std::marker::PhantomData;

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, QuantParams, TensorInfo, options};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::dtype::dtype_name;
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::reference::ActivationRange;
use crate::kernels::reference::elementwise::{self, BinaryOp, Broadcast, QuantAddSub, QuantMul};
use crate::kernels::reference::fixedpoint_math::checked_log2;
use crate::kernels::reference::quantize::{QuantInt, quantized_activation_range};
use crate::kernels::simd128::elementwise_float::BinaryF32;
use crate::kernels::simd128::elementwise_int::{AddSubInt8, BinaryRuns, MaxMinInt8, MulInt8};
use crate::kernels::simd128::elementwise_xnn::{AddXnn, MulXnn};
use crate::kernels::xnnpack::{self, binary as xnn};
use crate::kernels::{Arithmetic, KernelSet};
use crate::tflite::schema::{AddOptionsT, DivOptionsT, MulOptionsT, SubOptionsT};

struct Binary {
    op: BinaryOp,
    shape: Broadcast,
    act: ActivationRange,
}

impl Kernel for Binary {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.f32_in(0), io.f32_in(1));
        elementwise::binary(self.op, &self.shape, self.act, a, b, io.f32_out());
    }
}

/// ADD / SUB / MUL on INT32 tensors, with the fused activation's clamp in integers.
struct BinaryI32 {
    op: BinaryOp,
    shape: Broadcast,
    range: (i32, i32),
}

impl Kernel for BinaryI32 {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.in_as::<i32>(0), io.in_as::<i32>(1));
        elementwise::binary_i32(self.op, &self.shape, self.range, a, b, io.out_as::<i32>());
    }
}

/// The integer operation of a quantized binary kernel.
#[derive(Clone, Copy)]
enum IntOp {
    AddSub(QuantAddSub),
    PotAddSub16 {
        sub: bool,
        shift1: i32,
        shift2: i32,
        act_min: i32,
        act_max: i32,
    },
    Mul(QuantMul),
    SquaredDifference(QuantAddSub),
    MaxMin {
        maximum: bool,
    },
    /// int8 ADD / SUB in XNNPACK's arithmetic ([`Arithmetic::Xnnpack`]).
    XnnAdd(xnn::AddParams),
    /// int8 MUL in XNNPACK's arithmetic.
    XnnMul(xnn::MulParams),
}

struct IntBinary<T> {
    op: IntOp,
    shape: Broadcast,
    _t: PhantomData<T>,
}

impl<T: QuantInt + elementwise::BinaryInt> Kernel for IntBinary<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.in_as::<T>(0), io.in_as::<T>(1));
        let out = io.out_as::<T>();
        match &self.op {
            IntOp::AddSub(p) => T::add_sub(p, &self.shape, a, b, out),
            IntOp::PotAddSub16 {
                sub,
                shift1,
                shift2,
                act_min,
                act_max,
            } => {
                // Prepare chose this only for int16 tensors.
                let (a, b): (&[i16], &[i16]) = (io.in_as::<i16>(0), io.in_as::<i16>(1));
                elementwise::pot_add_sub_int16(
                    *sub,
                    *shift1,
                    *shift2,
                    *act_min,
                    *act_max,
                    &self.shape,
                    a,
                    b,
                    io.out_as::<i16>(),
                )
            }
            IntOp::Mul(p) => T::mul(p, &self.shape, a, b, out),
            IntOp::SquaredDifference(p) => T::squared_difference(p, &self.shape, a, b, out),
            IntOp::MaxMin { maximum } => T::max_min(*maximum, &self.shape, a, b, out),
            IntOp::XnnAdd(p) => {
                // Prepare chose this only for int8 tensors.
                let (a, b) = (io.in_as::<i8>(0), io.in_as::<i8>(1));
                xnn::binary(p, &self.shape, a, b, io.out_as::<i8>())
            }
            IntOp::XnnMul(p) => {
                let (a, b) = (io.in_as::<i8>(0), io.in_as::<i8>(1));
                xnn::binary(p, &self.shape, a, b, io.out_as::<i8>())
            }
        }
    }
}

/// The operation of a fast int8 binary kernel (`kernels::simd128::elementwise_int` /
/// `elementwise_xnn`).
enum FastIntOp {
    /// Boxed: its two 32-bit input stages make it several times the others' size.
    AddSub(Box<AddSubInt8>),
    Mul(MulInt8),
    MaxMin(MaxMinInt8),
    XnnAdd(AddXnn),
    XnnMul(MulXnn),
}

/// Fast int8 binary op, same shapes or broadcasting ([`BinaryRuns`]).
struct FastIntBinary {
    op: FastIntOp,
    runs: BinaryRuns,
}

impl Kernel for FastIntBinary {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.in_as::<i8>(0), io.in_as::<i8>(1));
        let out = io.out_as::<i8>();
        let runs = &self.runs;
        match &self.op {
            FastIntOp::AddSub(k) => k.run_broadcast(runs, a, b, out),
            FastIntOp::Mul(k) => k.run_broadcast(runs, a, b, out),
            FastIntOp::MaxMin(k) => k.run_broadcast(runs, a, b, out),
            FastIntOp::XnnAdd(k) => k.run(runs, a, b, out),
            FastIntOp::XnnMul(k) => k.run(runs, a, b, out),
        }
    }
}

/// The fast kernel of an int8 binary op, when there is one for `op` and the shapes.
fn fast_int8(op: &IntOp, a: &[usize], b: &[usize]) -> Option<FastIntBinary> {
    let op = match op {
        IntOp::AddSub(p) => FastIntOp::AddSub(Box::new(AddSubInt8::new(p)?)),
        IntOp::Mul(p) => FastIntOp::Mul(MulInt8::new(p)?),
        IntOp::MaxMin { maximum } => FastIntOp::MaxMin(MaxMinInt8(*maximum)),
        IntOp::XnnAdd(p) => FastIntOp::XnnAdd(AddXnn::new(p)?),
        IntOp::XnnMul(p) => FastIntOp::XnnMul(MulXnn::new(p)?),
        IntOp::PotAddSub16 { .. } | IntOp::SquaredDifference(_) => return None,
    };
    Some(FastIntBinary {
        op,
        runs: BinaryRuns::new(a, b)?,
    })
}

/// `(min, max)` of an integer dtype the quantized kernels run (int8, uint8, int16).
pub(crate) fn int_range(dtype: TensorType) -> Option<(i32, i32)> {
    match dtype {
        TensorType::INT8 => Some((i8::MIN.into(), i8::MAX.into())),
        TensorType::UINT8 => Some((u8::MIN.into(), u8::MAX.into())),
        TensorType::INT16 => Some((i16::MIN.into(), i16::MAX.into())),
        _ => None,
    }
}

/// The per-tensor parameters of a quantized tensor whose zero point must lie in its type's
/// range (as LiteRT's kernels check).
pub(crate) fn int_qparams(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<QuantParams> {
    let q = ctx.per_tensor_qparams(t)?;
    let (lo, hi) = int_range(t.dtype).unwrap_or((i32::MIN, i32::MAX));
    if !(lo..=hi).contains(&q.zero_point) {
        return Err(ctx.invalid(
            t.describe(),
            format!(
                "zero point {} outside the {} range",
                q.zero_point,
                dtype_name(t.dtype)
            ),
        ));
    }
    Ok(q)
}

/// LiteRT's `QuantizeMultiplier` of a real multiplier formed at prepare time; a multiplier
/// that is not finite (scales so far apart that their ratio overflows) is refused rather than
/// silently flushed.
pub(crate) fn multiplier(ctx: &PrepareCtx<'_>, m: f64) -> PrepareResult<(i32, i32)> {
    if !m.is_finite() {
        return Err(ctx.unsupported(
            String::new(),
            format!("requantization multiplier {m} (the scales are too far apart)"),
        ));
    }
    Ok(quantize_multiplier(m))
}

/// Splits a multiplier the way LiteRT's `QuantizeMultiplierSmallerThanOneExp` does, refusing
/// (like LiteRT's check) multipliers that are not in (0, 1).
fn smaller_than_one(ctx: &PrepareCtx<'_>, what: &str, m: f64) -> PrepareResult<(i32, i32)> {
    if !(m > 0.0 && m < 1.0) {
        return Err(ctx.unsupported(
            String::new(),
            format!("{what} multiplier {m} is not in (0, 1) (LiteRT refuses it)"),
        ));
    }
    Ok(quantize_multiplier(m))
}

/// Quantized ADD / SUB / MUL / MAXIMUM / MINIMUM: both inputs and the output of one integer type.
fn prepare_int_binary(
    ctx: &PrepareCtx<'_>,
    op: BinaryOp,
    act: ActivationRange,
    pot_scale_int16: bool,
) -> PrepareResult<Prepared> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let allowed = [TensorType::INT8, TensorType::UINT8, TensorType::INT16];
    ctx.require_dtype(&a, &allowed)?;
    for t in [&b, &out] {
        if t.dtype != a.dtype {
            return Err(ctx.invalid(
                t.describe(),
                format!(
                    "type {} differs from input 0's {}",
                    dtype_name(t.dtype),
                    dtype_name(a.dtype)
                ),
            ));
        }
    }
    ctx.require_max_rank(&a)?;
    ctx.require_max_rank(&b)?;
    let shape = Broadcast::new(a.shape, b.shape).ok_or_else(|| {
        ctx.invalid(
            b.describe(),
            format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape),
        )
    })?;
    let (qa, qb, qo) = (
        int_qparams(ctx, &a)?,
        int_qparams(ctx, &b)?,
        int_qparams(ctx, &out)?,
    );
    let (qmin, qmax) = int_range(a.dtype).unwrap_or((0, 0));
    let (act_min, act_max) = quantized_activation_range(act, qo.scale, qo.zero_point, qmin, qmax);
    let int16 = a.dtype == TensorType::INT16;
    if ctx.arithmetic == Arithmetic::Xnnpack
        && a.dtype == TensorType::INT8
        && matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
        && let Some(int_op) = xnnpack_int8(op, act, [qa, qb, qo])
    {
        if ctx.kernels == KernelSet::Fast
            && let Some(k) = fast_int8(&int_op, a.shape, b.shape)
        {
            return Ok(Prepared::new(shape.dims().to_vec(), a.dtype, k));
        }
        return Ok(Prepared::new(
            shape.dims().to_vec(),
            a.dtype,
            IntBinary::<i8> {
                op: int_op,
                shape,
                _t: PhantomData,
            },
        ));
    }
    let int_op = match op {
        BinaryOp::Add | BinaryOp::Sub => {
            if int16 {
                if qa.zero_point != 0 || qb.zero_point != 0 || qo.zero_point != 0 {
                    return Err(
                        ctx.unsupported(out.describe(), "int16 ADD/SUB with non-zero zero points")
                    );
                }
                let logs = [qa.scale, qb.scale, qo.scale].map(checked_log2);
                if let ([Some(l1), Some(l2), Some(lo)], true) = (logs, pot_scale_int16) {
                    let (shift1, shift2) = (l1 - lo, l2 - lo);
                    if !(shift1 == 0 || shift2 == 0) || shift1 > 0 || shift2 > 0 {
                        return Err(ctx.invalid(
                            out.describe(),
                            format!(
                                "power-of-two int16 ADD/SUB needs one input on the output's \
                                 scale and the other on a finer one (shifts {shift1}, {shift2})"
                            ),
                        ));
                    }
                    let int_op = IntOp::PotAddSub16 {
                        sub: op == BinaryOp::Sub,
                        shift1,
                        shift2,
                        act_min,
                        act_max,
                    };
                    return Ok(Prepared::new(
                        shape.dims().to_vec(),
                        a.dtype,
                        IntBinary::<i16> {
                            op: int_op,
                            shape,
                            _t: PhantomData,
                        },
                    ));
                }
            }
            let left_shift = if int16 { 15 } else { 20 };
            // Both LiteRT kernels form these in double from the float scales (SUB's
            // `2 * std::max(float, float)` is exact in float).
            let twice_max = 2.0 * f64::from(qa.scale.max(qb.scale));
            let m1 = f64::from(qa.scale) / twice_max;
            let m2 = f64::from(qb.scale) / twice_max;
            let mo = twice_max / (f64::from(1u32 << left_shift) * f64::from(qo.scale));
            let (input1_multiplier, input1_shift) = smaller_than_one(ctx, "input 1", m1)?;
            let (input2_multiplier, input2_shift) = smaller_than_one(ctx, "input 2", m2)?;
            let (output_multiplier, output_shift) = if op == BinaryOp::Sub {
                // SUB accepts an output multiplier above 1 (narrow ranges).
                multiplier(ctx, mo)?
            } else {
                smaller_than_one(ctx, "output", mo)?
            };
            IntOp::AddSub(QuantAddSub {
                sub: op == BinaryOp::Sub,
                left_shift,
                input1_offset: -qa.zero_point,
                input1_multiplier,
                input1_shift,
                input2_offset: -qb.zero_point,
                input2_multiplier,
                input2_shift,
                output_offset: qo.zero_point,
                output_multiplier,
                output_shift,
                act_min,
                act_max,
            })
        }
        BinaryOp::Mul => {
            if int16 && (qa.zero_point != 0 || qb.zero_point != 0 || qo.zero_point != 0) {
                return Err(ctx.invalid(
                    out.describe(),
                    "int16 MUL needs zero points 0 (LiteRT refuses others)",
                ));
            }
            // mul.cc: `input1->params.scale * input2->params.scale / output->params.scale`,
            // evaluated in float, then widened.
            let real = qa.scale * qb.scale / qo.scale;
            let (multiplier, shift) = multiplier(ctx, f64::from(real))?;
            IntOp::Mul(QuantMul {
                input1_offset: -qa.zero_point,
                input2_offset: -qb.zero_point,
                output_offset: qo.zero_point,
                multiplier,
                shift,
                act_min,
                act_max,
            })
        }
        BinaryOp::SquaredDifference if a.dtype == TensorType::INT8 => {
            // squared_difference.cc: inputs shifted left by 7 and rescaled to twice the larger
            // input scale (each multiplier below one), the difference squared, then
            // `(2·max_scale)² / ((1 << 14) · s_out)` (the denominator a float product).
            let twice_max = 2.0 * f64::from(qa.scale.max(qb.scale));
            let m1 = f64::from(qa.scale) / twice_max;
            let m2 = f64::from(qb.scale) / twice_max;
            let mo = twice_max * twice_max / f64::from((1u32 << 14) as f32 * qo.scale);
            let (input1_multiplier, input1_shift) = smaller_than_one(ctx, "input 1", m1)?;
            let (input2_multiplier, input2_shift) = smaller_than_one(ctx, "input 2", m2)?;
            let (output_multiplier, output_shift) = multiplier(ctx, mo)?;
            IntOp::SquaredDifference(QuantAddSub {
                sub: true,
                left_shift: 7,
                input1_offset: -qa.zero_point,
                input1_multiplier,
                input1_shift,
                input2_offset: -qb.zero_point,
                input2_multiplier,
                input2_shift,
                output_offset: qo.zero_point,
                output_multiplier,
                output_shift,
                act_min: qmin,
                act_max: qmax,
            })
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            // Inputs and output quantized otherwise: LiteRT compares and moves the raw
            // integers, and so does the engine (`moves_integers_unchecked`; lint warns).
            IntOp::MaxMin {
                maximum: op == BinaryOp::Maximum,
            }
        }
        other => {
            return Err(ctx.unsupported(
                a.describe(),
                format!(
                    "{other:?} on type {} (no quantized kernel)",
                    dtype_name(a.dtype)
                ),
            ));
        }
    };
    let dims = shape.dims().to_vec();
    if ctx.kernels == KernelSet::Fast
        && a.dtype == TensorType::INT8
        && let Some(k) = fast_int8(&int_op, a.shape, b.shape)
    {
        return Ok(Prepared::new(dims, a.dtype, k));
    }
    macro_rules! kernel {
        ($t:ty) => {
            Prepared::new(
                dims,
                a.dtype,
                IntBinary::<$t> {
                    op: int_op,
                    shape,
                    _t: PhantomData,
                },
            )
        };
    }
    Ok(match a.dtype {
        TensorType::INT8 => kernel!(i8),
        TensorType::UINT8 => kernel!(u8),
        _ => kernel!(i16),
    })
}

/// int8 ADD / SUB / MUL as LiteRT's XNNPACK delegate computes them ([`xnn`]), the clamp the
/// fused activation quantized as XNNPACK does. `None` for scales the delegate refuses: it leaves
/// such an operator to LiteRT's builtin kernel, whose int8 ADD / SUB / MUL compute what the
/// reference kernels do, so the caller prepares those.
fn xnnpack_int8(
    op: BinaryOp,
    act: ActivationRange,
    [qa, qb, qo]: [QuantParams; 3],
) -> Option<IntOp> {
    let (min, max) = xnnpack::output_range(act, qo.scale, qo.zero_point);
    if op == BinaryOp::Mul {
        let scale = xnn::mul_scale(qa.scale, qb.scale, qo.scale);
        return xnn::mul_scale_supported(scale).then_some(IntOp::XnnMul(xnn::MulParams {
            a_zero_point: qa.zero_point,
            b_zero_point: qb.zero_point,
            scale,
            zero_point: qo.zero_point,
            min,
            max,
        }));
    }
    xnn::AddParams::new(
        (qa.scale, qa.zero_point),
        (qb.scale, qb.zero_point),
        (qo.scale, qo.zero_point),
        op == BinaryOp::Sub,
        (min, max),
    )
    .map(IntOp::XnnAdd)
}

/// Prepares any of the binary ops: float32 inputs (all ops), or int8 / uint8 / int16 inputs
/// (ADD, SUB, MUL, MAXIMUM, MINIMUM), shapes broadcastable.
pub fn prepare_binary(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let op_code = ctx.op.code.op();
    let mut pot_scale_int16 = false;
    let (op, act) = match op_code {
        BuiltinOperator::ADD => {
            let o = options!(ctx, AddOptions, AddOptionsT)?;
            pot_scale_int16 = o.pot_scale_int16;
            (BinaryOp::Add, ctx.activation(o.fused_activation_function)?)
        }
        BuiltinOperator::SUB => {
            let o = options!(ctx, SubOptions, SubOptionsT)?;
            pot_scale_int16 = o.pot_scale_int16;
            (BinaryOp::Sub, ctx.activation(o.fused_activation_function)?)
        }
        BuiltinOperator::MUL => {
            let o = options!(ctx, MulOptions, MulOptionsT)?;
            (BinaryOp::Mul, ctx.activation(o.fused_activation_function)?)
        }
        BuiltinOperator::DIV => {
            let o = options!(ctx, DivOptions, DivOptionsT)?;
            (BinaryOp::Div, ctx.activation(o.fused_activation_function)?)
        }
        BuiltinOperator::MAXIMUM => (BinaryOp::Maximum, ActivationRange::UNBOUNDED),
        BuiltinOperator::MINIMUM => (BinaryOp::Minimum, ActivationRange::UNBOUNDED),
        BuiltinOperator::SQUARED_DIFFERENCE => {
            (BinaryOp::SquaredDifference, ActivationRange::UNBOUNDED)
        }
        _ => return Err(ctx.unsupported(String::new(), "not a binary elementwise operator")),
    };
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    if int_range(a.dtype).is_some() {
        return prepare_int_binary(ctx, op, act, pot_scale_int16);
    }
    let int32 =
        a.dtype == TensorType::INT32 && matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul);
    if int32 {
        ctx.require_dtype(&b, &[TensorType::INT32])?;
    } else {
        ctx.require_f32(&a)?;
        ctx.require_f32(&b)?;
    }
    ctx.require_max_rank(&a)?;
    ctx.require_max_rank(&b)?;
    let shape = Broadcast::new(a.shape, b.shape).ok_or_else(|| {
        ctx.invalid(
            b.describe(),
            format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape),
        )
    })?;
    if int32 {
        // `as` saturates: the float bounds of NONE / RELU become i32::MIN / i32::MAX.
        let range = (act.min as i32, act.max as i32);
        return Ok(Prepared::new(
            shape.dims().to_vec(),
            TensorType::INT32,
            BinaryI32 { op, shape, range },
        ));
    }
    if ctx.kernels == KernelSet::Fast
        && let Some(k) = BinaryF32::new(op, act, a.shape, b.shape)
    {
        return Ok(Prepared::f32(shape.dims().to_vec(), FastBinaryF32(k)));
    }
    Ok(Prepared::f32(
        shape.dims().to_vec(),
        Binary { op, shape, act },
    ))
}

/// Float binary op of the fast kernel set.
struct FastBinaryF32(BinaryF32);

impl Kernel for FastBinaryF32 {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.f32_in(0), io.f32_in(1));
        self.0.run(a, b, io.f32_out());
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{act, error, i8s, run, run_xnnpack, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};

    #[test]
    fn squared_difference_int8_is_exact_on_power_of_two_scales() {
        // Input scales 0.5 (zero point 0), output 0.25 (zero point −128): every step is a power
        // of two, so out = (Δq · 0.5)² / 0.25 − 128 = Δq² − 128 exactly, clamped to 127.
        // Δq = 4, −4, 20 (broadcast b), 0 → −112, −112, 127, −128.
        let m = single_op(
            Op::SQUARED_DIFFERENCE,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[4], Some((0.5, 0))),
                act(TensorType::INT8, &[1], Some((0.5, 0))),
                act(TensorType::INT8, &[4], Some((0.25, -128))),
            ],
        );
        assert_eq!(
            run(&m, &[&i8s(&[5, -3, 21, 1]), &i8s(&[1])]),
            i8s(&[-112, -112, 127, -128])
        );
    }

    #[test]
    fn squared_difference_int16_is_refused() {
        let m = single_op(
            Op::SQUARED_DIFFERENCE,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT16, &[4], Some((0.5, 0))),
                act(TensorType::INT16, &[4], Some((0.5, 0))),
                act(TensorType::INT16, &[4], Some((0.25, 0))),
            ],
        );
        let e = error(&m);
        assert!(
            e.contains("SquaredDifference") && e.contains("INT16"),
            "{e}"
        );
    }

    fn add_model(a_scale: f32, out_scale: f32) -> crate::Model {
        single_op(
            Op::ADD,
            BuiltinOptionsT::AddOptions(Box::default()),
            vec![
                act(TensorType::INT8, &[4], Some((a_scale, 0))),
                act(TensorType::INT8, &[1], Some((0.5, 0))),
                act(TensorType::INT8, &[4], Some((out_scale, 0))),
            ],
        )
    }

    #[test]
    fn xnnpack_add_rounds_half_up_where_the_reference_rounds_away_from_zero() {
        // Scales 0.5, 0.5 → 1: a + b halved; −1 + 0 → −0.5: the reference −1, XNNPACK 0;
        // −3 → −1.5: −2 and −1; positive ties agree (1.5 → 2).
        let m = add_model(0.5, 1.0);
        let (a, b) = (i8s(&[-1, -3, 3, 4]), i8s(&[0]));
        assert_eq!(run(&m, &[&a, &b]), i8s(&[-1, -2, 2, 2]));
        assert_eq!(run_xnnpack(&m, &[&a, &b]), i8s(&[0, -1, 2, 2]));
    }

    #[test]
    fn xnnpack_add_with_a_scale_the_delegate_refuses_stays_on_the_reference() {
        // Input 0's scale over the output's is 2^-11 (the delegate takes 2^-10 and above), so
        // LiteRT runs its builtin kernel: 0 + (−1 · 0.5) is the tie −0.5, −1 as the reference
        // rounds it (XNNPACK's formula would give 0).
        let m = add_model(2f32.powi(-11), 1.0);
        let (a, b) = (i8s(&[-128, 0, 3, 127]), i8s(&[-1]));
        let reference = run(&m, &[&a, &b]);
        assert_eq!(reference[1] as i8, -1);
        assert_eq!(run_xnnpack(&m, &[&a, &b]), reference);
    }
}
