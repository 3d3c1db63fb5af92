//! Activations: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH, PRELU,
//! SOFTMAX (float32).

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::BuiltinOperator;
use crate::kernels::reference::ActivationRange;
use crate::kernels::reference::activations as act;
use crate::kernels::reference::elementwise::{self, Broadcast};
use crate::tflite::schema::{LeakyReluOptionsT, SoftmaxOptionsT};

#[derive(Clone, Copy)]
enum Unary {
    Clamp(ActivationRange),
    Logistic,
    Tanh,
    LeakyRelu(f32),
    HardSwish,
    Softmax { beta: f32, depth: usize },
}

impl Kernel for Unary {
    fn eval(&self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        let out = io.f32_out();
        match *self {
            Unary::Clamp(r) => act::clamp(r, input, out),
            Unary::Logistic => act::logistic(input, out),
            Unary::Tanh => act::tanh(input, out),
            Unary::LeakyRelu(alpha) => act::leaky_relu(alpha, input, out),
            Unary::HardSwish => act::hard_swish(input, out),
            Unary::Softmax { beta, depth } => act::softmax(beta, depth, input, out),
        }
    }
}

/// The unary activations: one float32 input, output of the same shape.
pub fn prepare_unary(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    ctx.require_f32(&input)?;
    let kernel = match ctx.op.code.op() {
        BuiltinOperator::RELU => Unary::Clamp(ActivationRange::RELU),
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
    Ok(Prepared::f32(input.shape.to_vec(), kernel))
}

struct Prelu {
    shape: Broadcast,
}

impl Kernel for Prelu {
    fn eval(&self, io: &mut OpIo<'_>) {
        let (input, alpha) = (io.f32_in(0), io.f32_in(1));
        elementwise::prelu(&self.shape, input, alpha, io.f32_out());
    }
}

/// PRELU: `x` and `alpha` float32, `alpha` broadcast against `x`.
pub fn prepare_prelu(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, alpha) = (ctx.input(0)?, ctx.input(1)?);
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
    Ok(Prepared::f32(shape.dims().to_vec(), Prelu { shape }))
}
