//! TRANSPOSE with a constant permutation.

use super::{by_size, movable_size, same_type};
use crate::kernels::reference::shape::{self, TransposeParams};
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared};

struct Transpose {
    size: usize,
    p: TransposeParams,
}

impl Kernel for Transpose {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        by_size!(self.size, input, io.output(), |i, o| shape::transpose(
            &self.p, i, o
        ));
    }
}

/// TRANSPOSE by a constant permutation.
pub fn prepare_transpose(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, perm_t) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let perm: Vec<usize> = ctx
        .const_ints(&perm_t)?
        .into_iter()
        .map(|a| ctx.axis(&perm_t, a, input.shape.len()))
        .collect::<PrepareResult<_>>()?;
    let p = TransposeParams::new(input.shape, &perm)
        .ok_or_else(|| ctx.invalid(perm_t.describe(), format!("{perm:?} is not a permutation")))?;
    same_type(ctx, &input, p.out_dims().to_vec(), Transpose { size, p })
}
