//! The ops whose output axes each map on their own to input offsets
//! ([`AxisMap`](crate::kernels::reference::layout::AxisMap)): DEPTH_TO_SPACE, SPACE_TO_DEPTH,
//! TILE, BROADCAST_TO, MIRROR_PAD, REVERSE_V2 (BATCH_TO_SPACE_ND, in `batch`, uses the same
//! kernel).

use super::sizes;
use crate::graph::BuiltinOptionsT;
use crate::kernels::reference::MAX_RANK;
use crate::kernels::reference::bytes;
use crate::kernels::reference::layout::AxisMap;
use crate::ops::shape::{movable_size, same_type};
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, dims4, options};
use crate::tflite::schema::{
    DepthToSpaceOptionsT, MirrorPadMode, MirrorPadOptionsT, SpaceToDepthOptionsT,
};

/// Every op whose output axes map on their own to input offsets ([`AxisMap`]).
pub(super) struct Moved {
    size: usize,
    map: AxisMap,
}

impl Kernel for Moved {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        bytes::axis_gather(self.size, &self.map, input, io.output());
    }
}

/// The output of `map` over `input` (same type and quantization).
pub(super) fn moved(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    map: AxisMap,
) -> PrepareResult<Prepared> {
    let size = movable_size(ctx, input)?;
    same_type(ctx, input, map.out_dims().to_vec(), Moved { size, map })
}

/// A positive block size option.
fn block_size(ctx: &PrepareCtx<'_>, b: i32) -> PrepareResult<usize> {
    match usize::try_from(b) {
        Ok(b) if b > 0 => Ok(b),
        _ => Err(ctx.invalid(
            String::new(),
            format!("block_size must be positive, got {b}"),
        )),
    }
}

/// DEPTH_TO_SPACE of an NHWC input whose depth is a multiple of `block_size²` (LiteRT's
/// `depth_to_space.cc`: float32, int8, uint8, int32, int64; no int16 kernel).
pub fn prepare_depth_to_space(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    ctx.require_rank(&input, 4)?;
    let b = block_size(
        ctx,
        options!(ctx, DepthToSpaceOptions, DepthToSpaceOptionsT)?.block_size,
    )?;
    let dims = dims4(input.shape);
    if b.checked_mul(b)
        .is_none_or(|bb| !dims[3].is_multiple_of(bb))
    {
        return Err(ctx.invalid(
            input.describe(),
            format!("depth {} is not a multiple of block_size² ({b}²)", dims[3]),
        ));
    }
    let map = AxisMap::depth_to_space(dims, b).ok_or_else(|| {
        ctx.invalid(
            input.describe(),
            format!("block_size {b} does not fit shape {:?}", input.shape),
        )
    })?;
    moved(ctx, &input, map)
}

/// SPACE_TO_DEPTH of an NHWC input whose height and width are multiples of `block_size`
/// (LiteRT's `space_to_depth.cc`: float32, int8, uint8, int32, int64; no int16 kernel).
pub fn prepare_space_to_depth(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    ctx.require_rank(&input, 4)?;
    let b = block_size(
        ctx,
        options!(ctx, SpaceToDepthOptions, SpaceToDepthOptionsT)?.block_size,
    )?;
    let dims = dims4(input.shape);
    if !dims[1].is_multiple_of(b) || !dims[2].is_multiple_of(b) {
        return Err(ctx.invalid(
            input.describe(),
            format!(
                "height and width {:?} are not multiples of block_size {b}",
                &dims[1..3]
            ),
        ));
    }
    let map = AxisMap::space_to_depth(dims, b).ok_or_else(|| {
        ctx.invalid(
            input.describe(),
            format!("block_size {b} does not fit shape {:?}", input.shape),
        )
    })?;
    moved(ctx, &input, map)
}

/// TILE by constant multiples, one per input dim (LiteRT's `tile.cc`).
pub fn prepare_tile(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, mult_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_max_rank(&input)?;
    let multiples = sizes(ctx, &mult_t)?;
    if multiples.len() != input.shape.len() {
        return Err(ctx.invalid(
            mult_t.describe(),
            format!(
                "{} multiples for rank {}",
                multiples.len(),
                input.shape.len()
            ),
        ));
    }
    let map = AxisMap::tile(input.shape, &multiples)
        .ok_or_else(|| ctx.invalid(mult_t.describe(), "output size overflows"))?;
    moved(ctx, &input, map)
}

/// BROADCAST_TO a constant shape: the input's shape right-aligned, each dim 1 or equal to the
/// target's (LiteRT's `broadcast_to.cc`, rank up to 8).
pub fn prepare_broadcast_to(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, shape_t) = (ctx.input(0)?, ctx.input(1)?);
    // LiteRT's prepare: "NumDimensions(op_context->shape) != 1".
    if shape_t.shape.len() != 1 {
        return Err(ctx.invalid(
            shape_t.describe(),
            format!(
                "the shape tensor is {:?} (LiteRT needs it 1-D)",
                shape_t.shape
            ),
        ));
    }
    let shape = sizes(ctx, &shape_t)?;
    if shape.len() > MAX_RANK {
        return Err(ctx.unsupported(
            shape_t.describe(),
            format!("rank {} (at most {MAX_RANK} supported)", shape.len()),
        ));
    }
    let map = AxisMap::broadcast_to(input.shape, &shape).ok_or_else(|| {
        ctx.invalid(
            shape_t.describe(),
            format!("cannot broadcast {:?} to {shape:?}", input.shape),
        )
    })?;
    moved(ctx, &input, map)
}

/// MIRROR_PAD with constant `[rank, 2]` paddings, REFLECT (each at most `dim - 1`) or SYMMETRIC
/// (at most `dim`), as LiteRT's `mirror_pad.cc`.
pub fn prepare_mirror_pad(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, pads_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_max_rank(&input)?;
    // LiteRT maps the schema's REFLECT (0) / SYMMETRIC (1) to its own enum, where 0 is
    // "unknown": with no MirrorPadOptions table (or one of another type) its zeroed struct has
    // mode 0, which its prepare refuses ("params->mode == kTfLiteMirrorPaddingReflect || ...").
    if !matches!(ctx.op.options, BuiltinOptionsT::MirrorPadOptions(_)) {
        return Err(ctx.invalid(
            String::new(),
            "no MirrorPadOptions table: LiteRT reads mirror pad mode \"unknown\" and refuses it"
                .to_string(),
        ));
    }
    let mode = options!(ctx, MirrorPadOptions, MirrorPadOptionsT)?.mode;
    let symmetric = match mode {
        MirrorPadMode::REFLECT => false,
        MirrorPadMode::SYMMETRIC => true,
        other => return Err(ctx.invalid(String::new(), format!("mirror pad mode {}", other.0))),
    };
    let pads = sizes(ctx, &pads_t)?;
    let rank = input.shape.len();
    if pads.len() != rank * 2 {
        return Err(ctx.invalid(
            pads_t.describe(),
            format!("{} values for rank {rank} (need {})", pads.len(), rank * 2),
        ));
    }
    let pairs: Vec<(usize, usize)> = pads.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let map = AxisMap::mirror_pad(input.shape, &pairs, symmetric).ok_or_else(|| {
        ctx.invalid(
            pads_t.describe(),
            format!(
                "paddings {pairs:?} too large for {:?} in {} mode",
                input.shape,
                if symmetric { "SYMMETRIC" } else { "REFLECT" }
            ),
        )
    })?;
    moved(ctx, &input, map)
}

/// REVERSE_V2 along constant axes (negative axes count from the end; LiteRT's `reverse.cc`).
/// LiteRT fails at run time on axes that are not adjacent ("Non-contiguous `axes` not
/// supported"); the engine reverses any set of distinct axes, as TF defines it.
pub fn prepare_reverse(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, axes_t) = (ctx.input(0)?, ctx.input(1)?);
    ctx.require_max_rank(&input)?;
    let rank = input.shape.len();
    let mut reversed = vec![false; rank];
    for a in ctx.const_ints(&axes_t)? {
        let a = ctx.axis(&axes_t, a, rank)?;
        if std::mem::replace(&mut reversed[a], true) {
            return Err(ctx.invalid(axes_t.describe(), format!("axis {a} listed twice")));
        }
    }
    let map = AxisMap::reverse(input.shape, &reversed)
        .ok_or_else(|| ctx.invalid(input.describe(), "shape overflows"))?;
    moved(ctx, &input, map)
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, ints, run, single_op};
    use crate::tflite::schema::{
        DepthToSpaceOptionsT, MirrorPadMode, MirrorPadOptionsT, SpaceToDepthOptionsT,
    };

    const I8: TensorType = TensorType::INT8;
    const Q: Option<(f32, i64)> = Some((0.05, -3));

    fn d2s(block: i32) -> BuiltinOptionsT {
        BuiltinOptionsT::DepthToSpaceOptions(Box::new(DepthToSpaceOptionsT { block_size: block }))
    }

    #[test]
    fn depth_to_space_runs_int8_and_checks_its_block() {
        // [1, 1, 2, 4] block 2 -> [1, 2, 4, 1] (LiteRT's BUILTIN_REF has no int8 kernel to
        // compare with: the goldens cover float, this the int8 copy).
        let m = single_op(
            Op::DEPTH_TO_SPACE,
            d2s(2),
            vec![act(I8, &[1, 1, 2, 4], Q), act(I8, &[1, 2, 4, 1], Q)],
        );
        let x: Vec<i8> = vec![-128, -1, 0, 1, 2, 3, 4, 127];
        assert_eq!(run(&m, &[&i8s(&x)]), i8s(&[-128, -1, 2, 3, 0, 1, 4, 127]));
        for (block, why) in [(0, "block_size must be positive"), (3, "not a multiple")] {
            let m = single_op(
                Op::DEPTH_TO_SPACE,
                d2s(block),
                vec![act(I8, &[1, 1, 2, 4], Q), act(I8, &[1, 2, 4, 1], Q)],
            );
            assert!(error(&m).contains(why), "{}", error(&m));
        }
        // Output quantized differently from the input.
        let m = single_op(
            Op::DEPTH_TO_SPACE,
            d2s(2),
            vec![
                act(I8, &[1, 1, 2, 4], Q),
                act(I8, &[1, 2, 4, 1], Some((0.1, 0))),
            ],
        );
        assert!(error(&m).contains("moves quantized values unchanged"));
    }

    #[test]
    fn space_to_depth_rejects_uneven_space() {
        let opts =
            BuiltinOptionsT::SpaceToDepthOptions(Box::new(SpaceToDepthOptionsT { block_size: 2 }));
        let m = single_op(
            Op::SPACE_TO_DEPTH,
            opts,
            vec![act(I8, &[1, 3, 2, 1], Q), act(I8, &[1, 1, 1, 4], Q)],
        );
        assert!(error(&m).contains("not multiples of block_size 2"));
    }

    #[test]
    fn tile_and_broadcast_int8() {
        let m = single_op(
            Op::TILE,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 1], Q),
                ints(&[2], &[2, 3]),
                act(I8, &[4, 3], Q),
            ],
        );
        assert_eq!(
            run(&m, &[&i8s(&[-7, 9])]),
            i8s(&[-7, -7, -7, 9, 9, 9, -7, -7, -7, 9, 9, 9])
        );
        let m = single_op(
            Op::TILE,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 1], Q),
                ints(&[2], &[2, -1]),
                act(I8, &[4, 3], Q),
            ],
        );
        assert!(error(&m).contains("negative value"));
        let m = single_op(
            Op::BROADCAST_TO,
            BuiltinOptionsT::NONE,
            vec![act(I8, &[3], Q), ints(&[2], &[2, 2]), act(I8, &[2, 2], Q)],
        );
        assert!(error(&m).contains("cannot broadcast"));
    }

    #[test]
    fn mirror_pad_limits_follow_the_mode() {
        let pad = |mode, p: i32| {
            single_op(
                Op::MIRROR_PAD,
                BuiltinOptionsT::MirrorPadOptions(Box::new(MirrorPadOptionsT { mode })),
                vec![
                    act(I8, &[3], Q),
                    ints(&[1, 2], &[p, 0]),
                    act(I8, &[3 + p], Q),
                ],
            )
        };
        assert_eq!(
            run(&pad(MirrorPadMode::SYMMETRIC, 3), &[&i8s(&[1, 2, 3])]),
            i8s(&[3, 2, 1, 1, 2, 3])
        );
        assert_eq!(
            run(&pad(MirrorPadMode::REFLECT, 2), &[&i8s(&[1, 2, 3])]),
            i8s(&[3, 2, 1, 2, 3])
        );
        assert!(error(&pad(MirrorPadMode::REFLECT, 3)).contains("too large"));
        assert!(error(&pad(MirrorPadMode(2), 1)).contains("mirror pad mode 2"));
    }

    /// With no MirrorPadOptions (or a table of another type) LiteRT's mode is "unknown" and its
    /// prepare refuses the op (mutation-harness mutants 2066, 5788); so does the engine.
    #[test]
    fn mirror_pad_without_its_options_is_refused() {
        for options in [
            BuiltinOptionsT::NONE,
            BuiltinOptionsT::PackOptions(Box::default()),
        ] {
            let m = single_op(
                Op::MIRROR_PAD,
                options,
                vec![act(I8, &[3], Q), ints(&[1, 2], &[1, 0]), act(I8, &[4], Q)],
            );
            let e = error(&m);
            assert!(e.contains("no MirrorPadOptions table"), "{e}");
        }
    }

    #[test]
    fn reverse_rejects_repeated_axes() {
        let m = single_op(
            Op::REVERSE_V2,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 2], Q),
                ints(&[2], &[1, -1]),
                act(I8, &[2, 2], Q),
            ],
        );
        assert!(error(&m).contains("listed twice"));
    }
}
