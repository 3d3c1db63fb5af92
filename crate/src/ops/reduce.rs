//! Reductions: MEAN, SUM, REDUCE_MAX over constant axes, with `keep_dims` (float32).

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::BuiltinOperator;
use crate::kernels::reference::reduce::{self, ReduceParams};
use crate::tflite::schema::ReducerOptionsT;

#[derive(Clone, Copy)]
enum Reducer {
    Mean,
    Sum,
    Max,
}

struct Reduce {
    reducer: Reducer,
    p: ReduceParams,
}

impl Kernel for Reduce {
    fn eval(&self, io: &mut OpIo<'_>) {
        let input = io.f32_in(0);
        let out = io.f32_out();
        match self.reducer {
            Reducer::Mean => reduce::mean(&self.p, input, out),
            Reducer::Sum => reduce::sum(&self.p, input, out),
            Reducer::Max => reduce::max(&self.p, input, out),
        }
    }
}

/// MEAN / SUM / REDUCE_MAX: input float32, axes a constant int32 scalar or vector (negative
/// axes count from the end, duplicates are ignored).
pub fn prepare_reduce(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let o = options!(ctx, ReducerOptions, ReducerOptionsT)?;
    let reducer = match ctx.op.code.op() {
        BuiltinOperator::MEAN => Reducer::Mean,
        BuiltinOperator::SUM => Reducer::Sum,
        BuiltinOperator::REDUCE_MAX => Reducer::Max,
        _ => return Err(ctx.unsupported(String::new(), "not a reduction")),
    };
    let (input, axes_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_f32(&input)?;
    ctx.require_max_rank(&input)?;
    let rank = input.shape.len();
    let axes = ctx
        .const_ints(&axes_t)?
        .into_iter()
        .map(|a| ctx.axis(&axes_t, a, rank))
        .collect::<PrepareResult<Vec<usize>>>()?;
    let p = ReduceParams::new(input.shape, &axes)
        .ok_or_else(|| ctx.invalid(axes_t.describe(), "axes out of range"))?;
    let mut shape = Vec::with_capacity(rank);
    for (i, &d) in input.shape.iter().enumerate() {
        if !axes.contains(&i) {
            shape.push(d);
        } else if o.keep_dims {
            shape.push(1);
        }
    }
    Ok(Prepared::f32(shape, Reduce { reducer, p }))
}
