//! Comparisons, logic and selection: EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL
//! (float32, int32, int64, bool for (NOT_)EQUAL, and quantized int8 / uint8 compared after
//! rescaling, as LiteRT's `comparisons.cc`), LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT (BOOL), and
//! SELECT / SELECT_V2 (a BOOL condition picks between two tensors of one type; quantized values
//! are copied, so both value inputs and the output must share one scale and zero point).
//!
//! BOOL outputs are never quantized: the quantizer only gives parameters to float tensors, so a
//! comparison of quantized inputs yields the same BOOL tensor as in the float model.

use std::marker::PhantomData;

use super::shape::require_same_quantization;
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::{BuiltinOperator, TensorType};
use crate::kernels::reference::compare::{
    self, CompareOp, LogicalOp, QuantCompareSide, SelectShape,
};
use crate::kernels::reference::elementwise::Broadcast;
use crate::kernels::reference::int_elem::IntElem;

/// A comparison of raw values of type `T` (f32, i32, i64, bool bytes).
struct Compare<T> {
    op: CompareOp,
    shape: Broadcast,
    _t: PhantomData<T>,
}

impl<T: PartialOrd + Copy + bytemuck::Pod> Kernel for Compare<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.in_as::<T>(0), io.in_as::<T>(1));
        compare::compare(self.op, &self.shape, a, b, io.out_as::<u8>());
    }
}

/// A comparison of quantized `T` values, each side rescaled.
struct QuantCompare<T> {
    op: CompareOp,
    shape: Broadcast,
    sides: (QuantCompareSide, QuantCompareSide),
    _t: PhantomData<T>,
}

impl<T: IntElem> Kernel for QuantCompare<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (a, b) = (io.in_as::<T>(0), io.in_as::<T>(1));
        let sides = (&self.sides.0, &self.sides.1);
        compare::compare_quantized(self.op, sides, &self.shape, a, b, io.out_as::<u8>());
    }
}

fn raw_compare<T: PartialOrd + Copy + bytemuck::Pod>(op: CompareOp, shape: Broadcast) -> Prepared {
    Prepared::new(
        shape.dims().to_vec(),
        TensorType::BOOL,
        Compare::<T> {
            op,
            shape,
            _t: PhantomData,
        },
    )
}

/// The rescaling of one quantized comparison input: LiteRT's `QuantizeMultiplierSmallerThanOneExp`
/// of its scale, which LiteRT checks is below one.
fn compare_side(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<QuantCompareSide> {
    let q = ctx.per_tensor_qparams(t)?;
    if q.scale >= 1.0 {
        return Err(ctx.unsupported(
            t.describe(),
            format!(
                "scale {} (LiteRT's quantized comparisons need scales below 1)",
                q.scale
            ),
        ));
    }
    let (multiplier, shift) = quantize_multiplier(f64::from(q.scale));
    Ok(QuantCompareSide {
        offset: q.zero_point.wrapping_neg(),
        multiplier,
        shift,
    })
}

/// The broadcast of two inputs of an elementwise op, or an "invalid" issue.
fn broadcast(
    ctx: &PrepareCtx<'_>,
    a: &TensorInfo<'_>,
    b: &TensorInfo<'_>,
) -> PrepareResult<Broadcast> {
    ctx.require_max_rank(a)?;
    ctx.require_max_rank(b)?;
    Broadcast::new(a.shape, b.shape).ok_or_else(|| {
        ctx.invalid(
            b.describe(),
            format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape),
        )
    })
}

/// EQUAL / NOT_EQUAL / LESS / LESS_EQUAL / GREATER / GREATER_EQUAL: two inputs of one type
/// (FLOAT32, INT32, INT64, quantized INT8 / UINT8, and BOOL for EQUAL and NOT_EQUAL) with
/// broadcasting; a BOOL output.
pub fn prepare_comparison(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let code = ctx.op.code.op();
    let op = match code {
        BuiltinOperator::EQUAL => CompareOp::Equal,
        BuiltinOperator::NOT_EQUAL => CompareOp::NotEqual,
        BuiltinOperator::LESS => CompareOp::Less,
        BuiltinOperator::LESS_EQUAL => CompareOp::LessEqual,
        BuiltinOperator::GREATER => CompareOp::Greater,
        BuiltinOperator::GREATER_EQUAL => CompareOp::GreaterEqual,
        _ => return Err(ctx.unsupported(String::new(), "not a comparison")),
    };
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let mut allowed = vec![
        TensorType::FLOAT32,
        TensorType::INT32,
        TensorType::INT64,
        TensorType::INT8,
        TensorType::UINT8,
    ];
    if matches!(op, CompareOp::Equal | CompareOp::NotEqual) {
        allowed.push(TensorType::BOOL);
    }
    ctx.require_dtype(&a, &allowed)?;
    ctx.require_dtype(&b, &[a.dtype])?;
    ctx.require_output_dtype(0, TensorType::BOOL)?;
    let shape = broadcast(ctx, &a, &b)?;
    Ok(match a.dtype {
        TensorType::FLOAT32 => raw_compare::<f32>(op, shape),
        TensorType::INT32 => raw_compare::<i32>(op, shape),
        TensorType::INT64 => raw_compare::<i64>(op, shape),
        TensorType::BOOL => raw_compare::<u8>(op, shape),
        dtype => {
            let sides = (compare_side(ctx, &a)?, compare_side(ctx, &b)?);
            let dims = shape.dims().to_vec();
            if dtype == TensorType::INT8 {
                Prepared::new(
                    dims,
                    TensorType::BOOL,
                    QuantCompare::<i8> {
                        op,
                        shape,
                        sides,
                        _t: PhantomData,
                    },
                )
            } else {
                Prepared::new(
                    dims,
                    TensorType::BOOL,
                    QuantCompare::<u8> {
                        op,
                        shape,
                        sides,
                        _t: PhantomData,
                    },
                )
            }
        }
    })
}

/// LOGICAL_AND / LOGICAL_OR (`Some`) or LOGICAL_NOT (`None`).
struct Logical {
    op: Option<LogicalOp>,
    shape: Broadcast,
}

impl Kernel for Logical {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let a = io.in_as::<u8>(0);
        match self.op {
            Some(op) => {
                let b = io.in_as::<u8>(1);
                compare::logical(op, &self.shape, a, b, io.out_as::<u8>());
            }
            None => compare::logical_not(a, io.out_as::<u8>()),
        }
    }
}

/// LOGICAL_AND / LOGICAL_OR (two BOOL inputs, broadcasting) and LOGICAL_NOT (one BOOL input):
/// a BOOL output.
pub fn prepare_logical(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let op = match ctx.op.code.op() {
        BuiltinOperator::LOGICAL_AND => Some(LogicalOp::And),
        BuiltinOperator::LOGICAL_OR => Some(LogicalOp::Or),
        BuiltinOperator::LOGICAL_NOT => None,
        _ => return Err(ctx.unsupported(String::new(), "not a logical operator")),
    };
    let n = if op.is_some() { 2 } else { 1 };
    ctx.expect_inputs(n, n)?;
    let a = ctx.input(0)?;
    ctx.require_dtype(&a, &[TensorType::BOOL])?;
    ctx.require_output_dtype(0, TensorType::BOOL)?;
    let shape = match op {
        Some(_) => {
            let b = ctx.input(1)?;
            ctx.require_dtype(&b, &[TensorType::BOOL])?;
            broadcast(ctx, &a, &b)?
        }
        None => broadcast(ctx, &a, &a)?,
    };
    Ok(Prepared::new(
        shape.dims().to_vec(),
        TensorType::BOOL,
        Logical { op, shape },
    ))
}

/// SELECT / SELECT_V2 on elements of `T`.
struct Select<T> {
    shape: SelectShape,
    _t: PhantomData<T>,
}

impl<T: bytemuck::Pod> Kernel for Select<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (c, x, y) = (io.in_as::<u8>(0), io.in_as::<T>(1), io.in_as::<T>(2));
        compare::select(&self.shape, c, x, y, io.out_as::<T>());
    }
}

fn select_of<T: bytemuck::Pod>(shape: SelectShape, dtype: TensorType) -> Prepared {
    Prepared::new(
        shape.dims().to_vec(),
        dtype,
        Select::<T> {
            shape,
            _t: PhantomData,
        },
    )
}

/// SELECT / SELECT_V2: condition BOOL, x and y of one type (FLOAT32, INT8, UINT8, INT16,
/// INT32, INT64, BOOL); quantized x, y and output share one scale and zero point. SELECT_V2
/// broadcasts all three; SELECT needs x and y of one shape and a condition of that shape, a
/// scalar, or a vector over x's first dim (which picks whole slices).
pub fn prepare_select(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let v2 = match ctx.op.code.op() {
        BuiltinOperator::SELECT => false,
        BuiltinOperator::SELECT_V2 => true,
        _ => return Err(ctx.unsupported(String::new(), "not SELECT or SELECT_V2")),
    };
    let (c, x, y) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    ctx.require_dtype(&c, &[TensorType::BOOL])?;
    ctx.require_dtype(
        &x,
        &[
            TensorType::FLOAT32,
            TensorType::INT8,
            TensorType::UINT8,
            TensorType::INT16,
            TensorType::INT32,
            TensorType::INT64,
            TensorType::BOOL,
        ],
    )?;
    ctx.require_dtype(&y, &[x.dtype])?;
    ctx.require_output_dtype(0, x.dtype)?;
    for t in [&c, &x, &y] {
        ctx.require_max_rank(t)?;
    }
    let out = ctx.output(0)?;
    require_same_quantization(ctx, &x, &y)?;
    require_same_quantization(ctx, &x, &out)?;
    let mut cond_shape: Vec<usize> = c.shape.to_vec();
    if !v2 {
        if x.shape != y.shape {
            return Err(ctx.invalid(
                y.describe(),
                format!("shape {:?} differs from input 1's {:?}", y.shape, x.shape),
            ));
        }
        if c.shape != x.shape {
            // select.cc: a scalar condition, or a vector over x's first dim.
            let rank_one = c.shape.len() == 1 && x.shape.first() == c.shape.first();
            if !(c.shape.is_empty() || rank_one) {
                return Err(ctx.invalid(
                    c.describe(),
                    format!(
                        "condition shape {:?} is neither x's {:?}, a scalar, nor a vector over \
                         its first dim",
                        c.shape, x.shape
                    ),
                ));
            }
            if rank_one {
                cond_shape.resize(x.shape.len(), 1);
            }
        }
    }
    let shape = SelectShape::new(&cond_shape, x.shape, y.shape).ok_or_else(|| {
        ctx.invalid(
            y.describe(),
            format!(
                "shapes {:?}, {:?} and {:?} do not broadcast",
                c.shape, x.shape, y.shape
            ),
        )
    })?;
    Ok(match x.dtype {
        TensorType::FLOAT32 => select_of::<f32>(shape, x.dtype),
        TensorType::INT8 => select_of::<i8>(shape, x.dtype),
        TensorType::INT16 => select_of::<i16>(shape, x.dtype),
        TensorType::INT32 => select_of::<i32>(shape, x.dtype),
        TensorType::INT64 => select_of::<i64>(shape, x.dtype),
        _ => select_of::<u8>(shape, x.dtype),
    })
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{act, error, i8s, run, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};

    fn bytes(v: &[u8]) -> Vec<u8> {
        v.to_vec()
    }

    #[test]
    fn int8_less_rescales_both_sides() {
        // a: 0.5 / 0 → values 0.5, 1.0; b: 0.25 / 0 → 1.0, 1.0.
        let m = single_op(
            Op::LESS,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[2], Some((0.5, 0))),
                act(TensorType::INT8, &[2], Some((0.25, 0))),
                act(TensorType::BOOL, &[2], None),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, 2]), &i8s(&[4, 4])]), bytes(&[1, 0]));
    }

    #[test]
    fn hostile_models_are_typed_errors() {
        // Mixed input types, a non-BOOL output, a scale of 1 or more.
        let m = single_op(
            Op::GREATER,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[2], Some((0.5, 0))),
                act(TensorType::FLOAT32, &[2], None),
                act(TensorType::BOOL, &[2], None),
            ],
        );
        assert!(error(&m).contains("expected INT8"));
        let m = single_op(
            Op::GREATER,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::INT8, &[2], Some((2.0, 0))),
                act(TensorType::INT8, &[2], Some((0.5, 0))),
                act(TensorType::BOOL, &[2], None),
            ],
        );
        assert!(error(&m).contains("below 1"));
        let m = single_op(
            Op::SELECT,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::BOOL, &[3], None),
                act(TensorType::INT8, &[2, 2], Some((0.5, 0))),
                act(TensorType::INT8, &[2, 2], Some((0.5, 0))),
                act(TensorType::INT8, &[2, 2], Some((0.5, 0))),
            ],
        );
        assert!(error(&m).contains("neither"));
        let m = single_op(
            Op::SELECT_V2,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::BOOL, &[2], None),
                act(TensorType::INT8, &[2], Some((0.5, 0))),
                act(TensorType::INT8, &[2], Some((0.25, 0))),
                act(TensorType::INT8, &[2], Some((0.5, 0))),
            ],
        );
        // x and y quantized differently: LiteRT 2.3 picks the raw integers (requant_check.py),
        // and so does the engine (lint warns).
        assert_eq!(
            run(&m, &[&[1, 0], &i8s(&[1, 2]), &i8s(&[3, 4])]),
            i8s(&[1, 4])
        );
    }

    #[test]
    fn int8_select_v1_rank_one_condition() {
        let m = single_op(
            Op::SELECT,
            BuiltinOptionsT::NONE,
            vec![
                act(TensorType::BOOL, &[2], None),
                act(TensorType::INT8, &[2, 2], Some((0.5, 3))),
                act(TensorType::INT8, &[2, 2], Some((0.5, 3))),
                act(TensorType::INT8, &[2, 2], Some((0.5, 3))),
            ],
        );
        let got = run(
            &m,
            &[
                &bytes(&[0, 1]),
                &i8s(&[1, 2, 3, 4]),
                &i8s(&[-1, -2, -3, -4]),
            ],
        );
        assert_eq!(got, i8s(&[-1, -2, 3, 4]));
    }

    /// Mutation harness 7-2630 (issue 22): int8 LESS_EQUAL whose second input's zero point was
    /// set to −2^31. LiteRT's `input_offset + x` wraps in its compiled int32 arithmetic; ours
    /// panicked on the overflow (debug builds). The fixture holds the kept mutant, the
    /// harness's inputs and LiteRT 2.3 BUILTIN_REF's output (`tests/tools/mutation/make_fixture.py`).
    #[test]
    fn a_zero_point_of_minus_two_to_the_31_wraps_as_litert_does() {
        let (_, _, ours, litert) = crate::ops::shape::test_model::run_mutant_fixture("7-2630");
        assert_eq!(ours, litert, "bit for bit with LiteRT");
    }
}
