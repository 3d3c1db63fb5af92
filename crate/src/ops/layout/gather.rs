//! GATHER and GATHER_ND: INT32 or INT64 indices, constant (checked at prepare) or computed at
//! run time.

use crate::Error;
use crate::error::{IssueKind, OpIssue};
use crate::graph::TensorType;
use crate::kernels::reference::MAX_RANK;
use crate::kernels::reference::bytes;
use crate::kernels::reference::layout::{GatherNdParams, GatherParams};
use crate::ops::shape::{movable_size, same_type};
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, options};
use crate::tflite::schema::GatherOptionsT;

/// Whether an index tensor is INT64 (else INT32); other types are "unsupported".
fn index_is_i64(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<bool> {
    ctx.require_dtype(t, &[TensorType::INT32, TensorType::INT64])?;
    Ok(t.dtype == TensorType::INT64)
}

/// Product of `dims`, or an "invalid" issue naming `t`.
fn product(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>, dims: &[usize]) -> PrepareResult<usize> {
    dims.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| ctx.invalid(t.describe(), "size overflows"))
}

struct Gather {
    size: usize,
    i64: bool,
    p: GatherParams,
    /// The invoke error for an index out of range (LiteRT's `gather.cc` fails the invoke:
    /// "gather index out of bounds"), naming the operator and the index tensor.
    out_of_range: OpIssue,
}

/// The error an index out of range stops the invocation with: `issue` with the reason.
fn index_error(issue: &OpIssue) -> Error {
    let mut issue = issue.clone();
    issue.reason = "an index is out of range for the input: LiteRT fails the invocation \
                    (\"index out of bounds\")"
        .into();
    Error::CannotRun {
        issues: vec![issue],
    }
}

impl Kernel for Gather {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        let idx = io.input(1);
        let i64 = self.i64;
        let ok = bytes::gather(self.size, &self.p, input, idx, i64, io.output());
        if !ok {
            io.fail(index_error(&self.out_of_range));
        }
    }
}

/// GATHER along `axis` (negative counts from the end) with `batch_dims` leading dims shared by
/// input and indices; INT32 or INT64 indices, constant (checked here) or computed at run time
/// (LiteRT's `gather.cc`: output `input[:axis] + indices[batch_dims:] + input[axis+1:]`).
pub fn prepare_gather(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, idx) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    let i64 = index_is_i64(ctx, &idx)?;
    let o = options!(ctx, GatherOptions, GatherOptionsT)?;
    let rank = input.shape.len();
    let axis = ctx.axis(&input, i64::from(o.axis), rank)?;
    let bd = i64::from(o.batch_dims);
    let bd = if bd < 0 {
        bd + idx.shape.len() as i64
    } else {
        bd
    };
    let batch_dims = usize::try_from(bd)
        .ok()
        .filter(|&b| b <= axis && b <= idx.shape.len())
        .ok_or_else(|| {
            ctx.invalid(
                idx.describe(),
                format!(
                    "batch_dims {} invalid for axis {axis} and indices {:?}",
                    o.batch_dims, idx.shape
                ),
            )
        })?;
    if input.shape[..batch_dims] != idx.shape[..batch_dims] {
        return Err(ctx.invalid(
            idx.describe(),
            format!("batch dims of {:?} and {:?} differ", input.shape, idx.shape),
        ));
    }
    let p = GatherParams {
        batch: product(ctx, &input, &input.shape[..batch_dims])?,
        outer: product(ctx, &input, &input.shape[batch_dims..axis])?,
        axis_size: input.shape[axis],
        coords: product(ctx, &idx, &idx.shape[batch_dims..])?,
        inner: product(ctx, &input, &input.shape[axis + 1..])?,
    };
    if idx.data.is_some()
        && let Some(bad) = ctx
            .const_ints(&idx)?
            .into_iter()
            .find(|&k| usize::try_from(k).map_or(true, |k| k >= p.axis_size))
    {
        return Err(ctx.invalid(
            idx.describe(),
            format!(
                "index {bad} out of range for axis {axis} of size {}",
                p.axis_size
            ),
        ));
    }
    let mut shape = input.shape[..axis].to_vec();
    shape.extend_from_slice(&idx.shape[batch_dims..]);
    shape.extend_from_slice(&input.shape[axis + 1..]);
    if shape.len() > MAX_RANK {
        return Err(ctx.unsupported(
            idx.describe(),
            format!("output rank {} (at most {MAX_RANK} supported)", shape.len()),
        ));
    }
    product(ctx, &idx, &shape)?;
    let out_of_range = ctx.issue(IssueKind::Invalid, idx.describe(), String::new());
    same_type(
        ctx,
        &input,
        shape,
        Gather {
            size,
            i64,
            p,
            out_of_range,
        },
    )
}

struct GatherNd {
    size: usize,
    i64: bool,
    p: GatherNdParams,
    /// As [`Gather`]'s (LiteRT's `gather_nd.cc` fails the invoke the same way).
    out_of_range: OpIssue,
}

impl Kernel for GatherNd {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        let idx = io.input(1);
        let i64 = self.i64;
        let ok = bytes::gather_nd(self.size, &self.p, input, idx, i64, io.output());
        if !ok {
            io.fail(index_error(&self.out_of_range));
        }
    }
}

/// GATHER_ND: the indices' last dim (at most the input's rank) indexes the input's leading dims;
/// output `indices[:-1] + input[depth:]`. INT32 or INT64 indices, constant (checked here) or
/// computed at run time (LiteRT's `gather_nd.cc`).
pub fn prepare_gather_nd(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (input, idx) = (ctx.input(0)?, ctx.input(1)?);
    let size = movable_size(ctx, &input)?;
    let i64 = index_is_i64(ctx, &idx)?;
    let Some((&depth, lead)) = idx.shape.split_last() else {
        return Err(ctx.invalid(idx.describe(), "indices must have rank at least 1"));
    };
    if depth > input.shape.len() {
        return Err(ctx.invalid(
            idx.describe(),
            format!("index depth {depth} exceeds the rank of {:?}", input.shape),
        ));
    }
    let dims = input.shape[..depth].to_vec();
    if idx.data.is_some() {
        let v = ctx.const_ints(&idx)?;
        for t in v.chunks_exact(depth.max(1)) {
            if t.iter()
                .zip(&dims)
                .any(|(&k, &d)| usize::try_from(k).map_or(true, |k| k >= d))
            {
                return Err(ctx.invalid(
                    idx.describe(),
                    format!("index {t:?} out of range for {:?}", input.shape),
                ));
            }
        }
    }
    let mut shape = lead.to_vec();
    shape.extend_from_slice(&input.shape[depth..]);
    if shape.len() > MAX_RANK {
        return Err(ctx.unsupported(
            idx.describe(),
            format!("output rank {} (at most {MAX_RANK} supported)", shape.len()),
        ));
    }
    product(ctx, &idx, &shape)?;
    let p = GatherNdParams {
        count: product(ctx, &idx, lead)?,
        dims,
        slice: product(ctx, &input, &input.shape[depth..])?,
    };
    let out_of_range = ctx.issue(IssueKind::Invalid, idx.describe(), String::new());
    same_type(
        ctx,
        &input,
        shape,
        GatherNd {
            size,
            i64,
            p,
            out_of_range,
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::ops::shape::test_model::{act, error, i8s, ints, run, single_op};
    use crate::tflite::schema::GatherOptionsT;

    const I8: TensorType = TensorType::INT8;
    const Q: Option<(f32, i64)> = Some((0.05, -3));

    #[test]
    fn gather_takes_run_time_indices_and_checks_constant_ones() {
        let opts = |axis| {
            BuiltinOptionsT::GatherOptions(Box::new(GatherOptionsT {
                axis,
                batch_dims: 0,
            }))
        };
        // Indices as a graph input: an out-of-range one stops the invocation, as LiteRT 2.3's
        // GATHER and GATHER_ND do ("gather index out of bounds … failed to invoke", measured on
        // TF-converted float models with indices [1, 7] into 4 rows).
        let m = single_op(
            Op::GATHER,
            opts(-1),
            vec![
                act(I8, &[2, 3], Q),
                act(TensorType::INT32, &[2], None),
                act(I8, &[2, 2], Q),
            ],
        );
        let idx: Vec<u8> = bytemuck::cast_slice(&[2i32, 0]).to_vec();
        assert_eq!(
            run(&m, &[&i8s(&[1, 2, 3, 4, 5, 6]), &idx]),
            i8s(&[3, 1, 6, 4])
        );
        for bad in [[7i32, 1], [0, -1]] {
            let mut it = crate::engine::Interpreter::new(&m).expect("prepares");
            it.set_input(0, &i8s(&[1, 2, 3, 4, 5, 6])).expect("input");
            it.set_input(1, bytemuck::cast_slice(&bad))
                .expect("indices");
            let e = it.invoke().expect_err("out of range").to_string();
            assert!(
                e.contains("operator 0 (GATHER)") && e.contains("index is out of range"),
                "{e}"
            );
        }
        // Constant indices are checked at prepare.
        let m = single_op(
            Op::GATHER,
            opts(0),
            vec![act(I8, &[2, 3], Q), ints(&[1], &[2]), act(I8, &[1, 3], Q)],
        );
        assert!(error(&m).contains("index 2 out of range"));
        let m = single_op(
            Op::GATHER,
            opts(2),
            vec![act(I8, &[2, 3], Q), ints(&[1], &[0]), act(I8, &[2, 1], Q)],
        );
        assert!(error(&m).contains("axis 2 out of range"));
    }

    #[test]
    fn gather_nd_checks_depth_and_range() {
        let m = single_op(
            Op::GATHER_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 2], Q),
                ints(&[2, 2], &[1, 1, 0, 1]),
                act(I8, &[2], Q),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[1, 2, 3, 4])]), i8s(&[4, 2]));
        let m = single_op(
            Op::GATHER_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 2], Q),
                ints(&[1, 3], &[0, 0, 0]),
                act(I8, &[1], Q),
            ],
        );
        assert!(error(&m).contains("index depth 3"));
        let m = single_op(
            Op::GATHER_ND,
            BuiltinOptionsT::NONE,
            vec![
                act(I8, &[2, 2], Q),
                ints(&[1, 2], &[0, 2]),
                act(I8, &[1], Q),
            ],
        );
        assert!(error(&m).contains("out of range"));
    }
}
