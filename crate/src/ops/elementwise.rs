//! Binary elementwise ops with broadcasting and fused activations: ADD, SUB, MUL, DIV, MAXIMUM,
//! MINIMUM, SQUARED_DIFFERENCE.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::BuiltinOperator;
use crate::kernels::reference::ActivationRange;
use crate::kernels::reference::elementwise::{self, BinaryOp, Broadcast};
use crate::tflite::schema::{AddOptionsT, DivOptionsT, MulOptionsT, SubOptionsT};

struct Binary {
    op: BinaryOp,
    shape: Broadcast,
    act: ActivationRange,
}

impl Kernel for Binary {
    fn eval(&self, io: &mut OpIo<'_>) {
        let (a, b) = (io.f32_in(0), io.f32_in(1));
        elementwise::binary(self.op, &self.shape, self.act, a, b, io.f32_out());
    }
}

/// Prepares any of the binary ops: both inputs float32, shapes broadcastable.
pub fn prepare_binary(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let op_code = ctx.op.code.op();
    let (op, act) = match op_code {
        BuiltinOperator::ADD => {
            let o = options!(ctx, AddOptions, AddOptionsT)?;
            (BinaryOp::Add, ctx.activation(o.fused_activation_function)?)
        }
        BuiltinOperator::SUB => {
            let o = options!(ctx, SubOptions, SubOptionsT)?;
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
        BuiltinOperator::MAXIMUM => (BinaryOp::Maximum, ActivationRange::NONE),
        BuiltinOperator::MINIMUM => (BinaryOp::Minimum, ActivationRange::NONE),
        BuiltinOperator::SQUARED_DIFFERENCE => (BinaryOp::SquaredDifference, ActivationRange::NONE),
        _ => return Err(ctx.unsupported(String::new(), "not a binary elementwise operator")),
    };
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_f32(&a)?;
    ctx.require_f32(&b)?;
    ctx.require_max_rank(&a)?;
    ctx.require_max_rank(&b)?;
    let shape = Broadcast::new(a.shape, b.shape).ok_or_else(|| {
        ctx.invalid(
            b.describe(),
            format!("shapes {:?} and {:?} do not broadcast", a.shape, b.shape),
        )
    })?;
    Ok(Prepared::f32(
        shape.dims().to_vec(),
        Binary { op, shape, act },
    ))
}
