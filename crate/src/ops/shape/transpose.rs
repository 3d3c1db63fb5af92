//! TRANSPOSE with a constant permutation.

use super::{movable_size, same_type};
use crate::kernels::reference::bytes;
use crate::kernels::reference::shape::TransposeParams;
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared};

struct Transpose {
    size: usize,
    p: TransposeParams,
}

impl Kernel for Transpose {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        bytes::transpose(self.size, &self.p, input, io.output());
    }
}

/// TRANSPOSE by a constant permutation.
pub fn prepare_transpose(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, perm_t) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    // BUILTIN_REF's prepare: `NumDimensions(perm) == 1` (the optimized TRANSPOSE does not check).
    ctx.require_rank(&perm_t, 1)?;
    let perm: Vec<usize> = ctx
        .const_ints(&perm_t)?
        .into_iter()
        .map(|a| ctx.axis(&perm_t, a, input.shape.len()))
        .collect::<PrepareResult<_>>()?;
    let p = TransposeParams::new(input.shape, &perm)
        .ok_or_else(|| ctx.invalid(perm_t.describe(), format!("{perm:?} is not a permutation")))?;
    same_type(ctx, &input, p.out_dims().to_vec(), Transpose { size, p })
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{T, act, error, i8s, ints, run, single_op};
    use crate::tflite::schema::{ResizeBilinearOptionsT, StridedSliceOptionsT};

    const I8: TensorType = TensorType::INT8;
    const Q: Option<(f32, i64)> = Some((0.5, 0));

    /// Shape arguments LiteRT's prepare wants as vectors (or, for paddings and crops, matrices):
    /// each declared one rank higher is refused, as LiteRT 2.3 refuses it ("NumDimensions(size)
    /// != 1", mutants 7623, 8398, 8839 of seed 12 for RESIZE_NEAREST_NEIGHBOR; measured on the
    /// goldens for the others; TRANSPOSE by BUILTIN_REF only). The same data at the right rank
    /// runs.
    #[test]
    fn shape_arguments_of_another_rank_are_refused_as_litert_refuses_them() {
        type Case = (
            Op,
            fn() -> BuiltinOptionsT,
            Vec<i32>,
            Vec<(Vec<i32>, Vec<i32>)>,
            Vec<i32>,
        );
        let none = || BuiltinOptionsT::NONE;
        let cases: Vec<Case> = vec![
            (
                Op::RESIZE_NEAREST_NEIGHBOR,
                || BuiltinOptionsT::ResizeNearestNeighborOptions(Box::default()),
                vec![1, 1, 2, 1],
                vec![(vec![2], vec![1, 2])],
                vec![1, 1, 2, 1],
            ),
            (
                Op::RESIZE_BILINEAR,
                || BuiltinOptionsT::ResizeBilinearOptions(Box::<ResizeBilinearOptionsT>::default()),
                vec![1, 1, 2, 1],
                vec![(vec![2], vec![1, 2])],
                vec![1, 1, 2, 1],
            ),
            (
                Op::SLICE,
                none,
                vec![1, 4],
                vec![(vec![2], vec![0, 0]), (vec![2], vec![1, 4])],
                vec![1, 4],
            ),
            (
                Op::STRIDED_SLICE,
                || BuiltinOptionsT::StridedSliceOptions(Box::<StridedSliceOptionsT>::default()),
                vec![1, 4],
                vec![
                    (vec![2], vec![0, 0]),
                    (vec![2], vec![1, 4]),
                    (vec![2], vec![1, 1]),
                ],
                vec![1, 4],
            ),
            (
                Op::TRANSPOSE,
                none,
                vec![1, 4],
                vec![(vec![2], vec![0, 1])],
                vec![1, 4],
            ),
            (
                Op::SPACE_TO_BATCH_ND,
                none,
                vec![1, 4, 1],
                vec![(vec![1], vec![1]), (vec![1, 2], vec![0, 0])],
                vec![1, 4, 1],
            ),
            (
                Op::BATCH_TO_SPACE_ND,
                none,
                vec![1, 4, 1],
                vec![(vec![1], vec![1]), (vec![1, 2], vec![0, 0])],
                vec![1, 4, 1],
            ),
        ];
        for (op, opts, in_shape, args, out_shape) in cases {
            let model = |bad: Option<usize>| {
                let mut ts: Vec<T> = vec![act(I8, &in_shape, Q)];
                for (k, (shape, v)) in args.iter().enumerate() {
                    let mut shape = shape.clone();
                    if bad == Some(k) {
                        shape.push(1);
                    }
                    ts.push(ints(&shape, v));
                }
                ts.push(act(I8, &out_shape, Q));
                single_op(op, opts(), ts)
            };
            let x = i8s(&[1, 2, 3, 4][..in_shape.iter().product::<i32>() as usize]);
            assert_eq!(run(&model(None), &[&x]), x, "{op:?}");
            for k in 0..args.len() {
                let e = error(&model(Some(k)));
                assert!(e.contains("expected rank"), "{op:?} argument {k}: {e}");
            }
        }
    }
}
