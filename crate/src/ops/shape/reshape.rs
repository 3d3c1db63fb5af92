//! RESHAPE, SQUEEZE, EXPAND_DIMS (a copy under a new shape) and DENSIFY (a folded constant).

use super::{movable_size, same_type};
use crate::ops::{Kernel, Node, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::tflite::schema::{ReshapeOptionsT, SqueezeOptionsT};

struct Copy;

impl Kernel for Copy {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        io.output().copy_from_slice(input);
    }
}

/// DENSIFY: its input is a sparse constant the engine expanded to its dense shape when it
/// loaded the constants (`graph::sparse`); the output is that constant, folded.
pub fn prepare_densify(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    let data = input.data.ok_or_else(|| {
        ctx.unsupported(
            input.describe(),
            "DENSIFY of a tensor that is not a constant (LiteRT only densifies constants)",
        )
    })?;
    Ok(Prepared {
        shape: input.shape.to_vec(),
        dtype: input.dtype,
        node: Node::Constant(data.to_vec()),
    })
}

/// RESHAPE: the new shape comes from the constant shape input, else the `new_shape` option (a
/// scalar when there is no shape input and no option, as in LiteRT), else the output tensor's
/// declared shape; one -1 is inferred.
pub fn prepare_reshape(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 2)?;
    let input = ctx.input(0)?;
    movable_size(ctx, &input)?;
    let out = ctx.output(0)?;
    let requested: Vec<i64> = match ctx.optional_input(1) {
        Some(s) if s.data.is_some() && s.shape.len() == 1 => ctx.const_ints(&s)?,
        // No shape input, or a constant one that is not a vector (LiteRT's `ShapeIsVector`: it
        // then ignores the input): LiteRT takes the `new_shape` option as it is, a missing or
        // empty one (and the legacy `[0]`) meaning a scalar, never the declared output shape.
        None => new_shape_option(ctx)?,
        Some(s) if s.data.is_some() => new_shape_option(ctx)?,
        Some(_) => {
            let o = options!(ctx, ReshapeOptions, ReshapeOptionsT)?;
            match o.new_shape.filter(|v| !v.is_empty()) {
                Some(v) => v.into_iter().map(i64::from).collect(),
                None => out.shape.iter().map(|&d| d as i64).collect(),
            }
        }
    };
    let total = input.num_elements();
    let mut known = 1usize;
    let mut infer = None;
    for (i, &d) in requested.iter().enumerate() {
        match d {
            -1 if infer.is_none() => infer = Some(i),
            d if d >= 0 => {
                known = usize::try_from(d)
                    .ok()
                    .and_then(|d| known.checked_mul(d))
                    .ok_or_else(|| {
                        ctx.invalid(out.describe(), format!("shape {requested:?} overflows"))
                    })?;
            }
            _ => return Err(ctx.invalid(out.describe(), format!("bad new shape {requested:?}"))),
        }
    }
    let mut shape: Vec<usize> = requested.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = infer {
        if known == 0 || total % known != 0 {
            return Err(ctx.invalid(
                out.describe(),
                format!("cannot infer -1 in {requested:?} for {total} elements"),
            ));
        }
        shape[i] = total / known;
    } else if known != total {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "new shape {requested:?} holds {known} elements, input {:?} has {total}",
                input.shape
            ),
        ));
    }
    same_type(ctx, &input, shape, Copy)
}

/// RESHAPE's `new_shape` option as LiteRT reads it without a shape vector: a missing or empty
/// option (and the legacy `[0]`) is a scalar.
fn new_shape_option(ctx: &PrepareCtx<'_>) -> PrepareResult<Vec<i64>> {
    let o = options!(ctx, ReshapeOptions, ReshapeOptionsT)?;
    Ok(match o.new_shape {
        Some(v) if v != [0] => v.into_iter().map(i64::from).collect(),
        _ => Vec::new(),
    })
}

/// SQUEEZE: drops the listed size-1 dims (all size-1 dims when none are listed).
pub fn prepare_squeeze(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(1, 1)?;
    let input = ctx.input(0)?;
    movable_size(ctx, &input)?;
    let o = options!(ctx, SqueezeOptions, SqueezeOptionsT)?;
    let rank = input.shape.len();
    let dims = o.squeeze_dims.unwrap_or_default();
    let mut drop = vec![false; rank];
    if dims.is_empty() {
        for (i, &d) in input.shape.iter().enumerate() {
            drop[i] = d == 1;
        }
    } else {
        for &a in &dims {
            let a = ctx.axis(&input, i64::from(a), rank)?;
            if input.shape[a] != 1 {
                return Err(ctx.invalid(
                    input.describe(),
                    format!("cannot squeeze dim {a} of size {}", input.shape[a]),
                ));
            }
            drop[a] = true;
        }
    }
    let shape = input
        .shape
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(s, _)| *s)
        .collect();
    same_type(ctx, &input, shape, Copy)
}

/// EXPAND_DIMS: inserts a size-1 dim at the constant axis.
pub fn prepare_expand_dims(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, axis_t) = (ctx.input(0)?, ctx.input(1)?);
    movable_size(ctx, &input)?;
    let axis = ctx.const_ints(&axis_t)?;
    let [a] = axis[..] else {
        return Err(ctx.invalid(axis_t.describe(), "axis must hold one value"));
    };
    let a = ctx.axis(&axis_t, a, input.shape.len() + 1)?;
    let mut shape = input.shape.to_vec();
    shape.insert(a, 1);
    same_type(ctx, &input, shape, Copy)
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, ints, run, single_op};
    use crate::tflite::schema::ReshapeOptionsT;

    const I8: TensorType = TensorType::INT8;

    #[test]
    fn reshape_moves_quantized_values_unchanged() {
        let opts = || BuiltinOptionsT::ReshapeOptions(Box::<ReshapeOptionsT>::default());
        let m = single_op(
            Op::RESHAPE,
            opts(),
            vec![
                act(I8, &[2, 2], Some((0.5, 1))),
                ints(&[1], &[4]),
                act(I8, &[4], Some((0.5, 2))),
            ],
        );
        // Another zero point: the same integers, as LiteRT 2.3 gives (lint warns).
        assert_eq!(run(&m, &[&i8s(&[1, -2, 3, -4])]), i8s(&[1, -2, 3, -4]));
        let m = single_op(
            Op::RESHAPE,
            opts(),
            vec![
                act(I8, &[2, 2], Some((0.5, 1))),
                ints(&[1], &[4]),
                act(I8, &[4], Some((0.5, 1))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, -2, 3, -4])]), i8s(&[1, -2, 3, -4]));
    }

    /// Without a shape input LiteRT reads `new_shape` only: none (or the legacy `[0]`) is a
    /// scalar, so 4 elements fail ("num_input_elements != num_output_elements (4 != 1)", as
    /// LiteRT 2.3 refuses the mutation harness's RNN models with the shape input cut off); the
    /// declared output shape is not used.
    #[test]
    fn reshape_without_shape_input_takes_new_shape_or_a_scalar() {
        let with = |new_shape: Option<Vec<i32>>, out: &[i32]| {
            let o = BuiltinOptionsT::ReshapeOptions(Box::new(ReshapeOptionsT { new_shape }));
            single_op(
                Op::RESHAPE,
                o,
                vec![act(I8, &[2, 2], None), act(I8, out, None)],
            )
        };
        for new_shape in [None, Some(vec![]), Some(vec![0])] {
            let e = error(&with(new_shape.clone(), &[4]));
            assert!(
                e.contains("new shape [] holds 1 elements"),
                "{new_shape:?}: {e}"
            );
        }
        let m = with(Some(vec![4]), &[4]);
        assert_eq!(run(&m, &[&i8s(&[1, -2, 3, -4])]), i8s(&[1, -2, 3, -4]));
        let one = single_op(
            Op::RESHAPE,
            BuiltinOptionsT::ReshapeOptions(Box::default()),
            vec![act(I8, &[1, 1], None), act(I8, &[], None)],
        );
        assert_eq!(run(&one, &[&i8s(&[7])]), i8s(&[7]));
    }

    /// A constant shape input that is not a vector (mutant 5709 of seed 12: `[-1]` declared
    /// `[1, 1]`) is ignored by LiteRT (`ShapeIsVector`), which takes `new_shape` instead: none
    /// is a scalar, "num_input_elements != num_output_elements (10 != 1)"; a `new_shape` that
    /// fits runs (both measured in LiteRT 2.3, BUILTIN_REF and the default resolver).
    #[test]
    fn a_shape_input_that_is_not_a_vector_gives_way_to_new_shape() {
        let with = |new_shape: Option<Vec<i32>>| {
            let o = BuiltinOptionsT::ReshapeOptions(Box::new(ReshapeOptionsT { new_shape }));
            single_op(
                Op::RESHAPE,
                o,
                vec![
                    act(I8, &[2, 2], None),
                    ints(&[1, 1], &[-1]),
                    act(I8, &[1, 4], None),
                ],
            )
        };
        let e = error(&with(None));
        assert!(e.contains("new shape [] holds 1 elements"), "{e}");
        let m = with(Some(vec![1, 4]));
        assert_eq!(run(&m, &[&i8s(&[1, -2, 3, -4])]), i8s(&[1, -2, 3, -4]));
    }
}
