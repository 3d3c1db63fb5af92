//! SPACE_TO_BATCH_ND (pads with the output zero point) and BATCH_TO_SPACE_ND (crops): NHWC inputs
//! of rank 4, or rank 3 (`[b, h, c]`, one spatial dim) as LiteRT allows, with constant block
//! shapes, paddings and crops.

use super::moved::moved;
use super::sizes;
use crate::graph::TensorType;
use crate::kernels::reference::bytes;
use crate::kernels::reference::layout::{AxisMap, SpaceToBatchParams};
use crate::ops::shape::{movable_size, same_type, zero_point_pad_value};
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo};

/// The input as 4-D NHWC (a rank-3 `[b, h, c]` gets a width of 1), the block shape `[bh, bw]`
/// and the `(before, after)` pairs of input 2, checked against the input's spatial rank.
type Blocks = ([usize; 4], [usize; 2], [(usize, usize); 2]);

fn blocks(ctx: &PrepareCtx<'_>, input: &TensorInfo<'_>) -> PrepareResult<Blocks> {
    let (block_t, pads_t) = (ctx.input(1)?, ctx.input(2)?);
    let dims = match *input.shape {
        [b, h, w, c] => [b, h, w, c],
        [b, h, c] => [b, h, 1, c],
        _ => {
            return Err(ctx.unsupported(
                input.describe(),
                format!("shape {:?} (rank 3 or 4 supported, as LiteRT)", input.shape),
            ));
        }
    };
    let spatial = input.shape.len() - 2;
    // LiteRT's prepare: the block shape is a vector, the paddings / crops a matrix.
    ctx.require_rank(&block_t, 1)?;
    ctx.require_rank(&pads_t, 2)?;
    let block = sizes(ctx, &block_t)?;
    if block.len() != spatial || block.contains(&0) {
        return Err(ctx.invalid(
            block_t.describe(),
            format!("block shape {block:?} for {spatial} spatial dim(s) (positive values)"),
        ));
    }
    let pads = sizes(ctx, &pads_t)?;
    if pads.len() != spatial * 2 {
        return Err(ctx.invalid(
            pads_t.describe(),
            format!(
                "{} values for {spatial} spatial dim(s) (need {})",
                pads.len(),
                spatial * 2
            ),
        ));
    }
    let mut bs = [1usize; 2];
    let mut ps = [(0usize, 0usize); 2];
    for k in 0..spatial {
        bs[k] = block[k];
        ps[k] = (pads[2 * k], pads[2 * k + 1]);
    }
    Ok((dims, bs, ps))
}

/// The output shape in the input's rank (drops the width of 1 a rank-3 input got).
fn in_rank(input: &TensorInfo<'_>, d: [usize; 4]) -> Vec<usize> {
    if input.shape.len() == 3 {
        vec![d[0], d[1], d[3]]
    } else {
        d.to_vec()
    }
}

struct SpaceToBatch {
    size: usize,
    p: SpaceToBatchParams,
    /// The pad value's bytes (one element).
    value: [u8; 8],
}

impl Kernel for SpaceToBatch {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        bytes::space_to_batch(self.size, &self.p, &self.value, input, io.output())
    }
}

/// SPACE_TO_BATCH_ND: pads the spatial dims (with the output's zero point for INT8, UINT8 and
/// INT16, else 0) to multiples of the block and moves each block offset into the batch (LiteRT's
/// `space_to_batch_nd.cc`).
pub fn prepare_space_to_batch(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let input = ctx.input(0)?;
    let size = movable_size(ctx, &input)?;
    let (dims, block, pads) = blocks(ctx, &input)?;
    let p = SpaceToBatchParams::new(dims, block, pads).ok_or_else(|| {
        ctx.invalid(
            ctx.optional_input(2)
                .map(|t| t.describe())
                .unwrap_or_default(),
            format!(
                "padded {:?} is not a multiple of block {block:?}",
                input.shape
            ),
        )
    })?;
    let mut value = [0u8; 8];
    if matches!(
        input.dtype,
        TensorType::INT8 | TensorType::UINT8 | TensorType::INT16
    ) {
        value = zero_point_pad_value(ctx, input.dtype, &ctx.output(0)?)?;
    }
    let shape = in_rank(&input, p.out_dims());
    same_type(ctx, &input, shape, SpaceToBatch { size, p, value })
}

/// BATCH_TO_SPACE_ND: the batch's block offsets back into the spatial dims, then the crops cut
/// (LiteRT's `batch_to_space_nd.cc`).
pub fn prepare_batch_to_space(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let input = ctx.input(0)?;
    let (dims, block, crops) = blocks(ctx, &input)?;
    let map = AxisMap::batch_to_space(dims, block, crops).ok_or_else(|| {
        ctx.invalid(
            input.describe(),
            format!("batch not a multiple of block {block:?}, or crops {crops:?} too large"),
        )
    })?;
    // A rank-3 input ran as rank 4 with a width of 1: drop it again.
    let map = if input.shape.len() == 3 {
        map.squeeze_axis(2)
            .ok_or_else(|| ctx.invalid(input.describe(), "output width is not 1"))?
    } else {
        map
    };
    moved(ctx, &input, map)
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, ints, run, single_op};

    const I8: TensorType = TensorType::INT8;
    const Q: Option<(f32, i64)> = Some((0.05, -3));

    #[test]
    fn space_to_batch_pads_with_the_zero_point_and_batch_to_space_undoes_it() {
        // Rank 3 [1, 3, 1], block [2], one pad row before: [2, 2, 1].
        let m = single_op(
            Op::SPACE_TO_BATCH_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 3, 1], Q),
                ints(&[1], &[2]),
                ints(&[1, 2], &[1, 0]),
                act(I8, &[2, 2, 1], Q),
            ],
        );
        let y = run(&m, &[&i8s(&[7, 8, 9])]);
        assert_eq!(y, i8s(&[-3, 8, 7, 9]));
        let m = single_op(
            Op::BATCH_TO_SPACE_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 2, 1], Q),
                ints(&[1], &[2]),
                ints(&[1, 2], &[1, 0]),
                act(I8, &[1, 3, 1], Q),
            ],
        );
        assert_eq!(run(&m, &[&y]), i8s(&[7, 8, 9]));
        let m = single_op(
            Op::SPACE_TO_BATCH_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[1, 3, 1], Q),
                ints(&[1], &[2]),
                ints(&[1, 2], &[0, 0]),
                act(I8, &[2, 2, 1], Q),
            ],
        );
        assert!(error(&m).contains("not a multiple of block"));
        let m = single_op(
            Op::BATCH_TO_SPACE_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[3, 2, 1], Q),
                ints(&[1], &[2]),
                ints(&[1, 2], &[0, 0]),
                act(I8, &[1, 4, 1], Q),
            ],
        );
        assert!(error(&m).contains("batch not a multiple"));
    }
}
