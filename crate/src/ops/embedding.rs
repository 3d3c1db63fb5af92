//! EMBEDDING_LOOKUP: `output[i] = table[ids[i]]`, INT32 ids of rank 1, a table of rank ≥ 2
//! (output shape `[len(ids)] + table.shape[1..]`), as LiteRT's `embedding_lookup.cc` accepts it:
//! a float table, an int8 / uint8 table with an output of the same type (rows copied), or an
//! int8 / uint8 / INT4 table with a float output (the hybrid form: symmetric scale per tensor or
//! per row; INT4 held unpacked, one byte per element, as LiteRT unpacks it). An id outside the table is "invalid" at prepare when the ids are constant, and stops the
//! invocation with the same typed error when they are computed (LiteRT fails the invoke:
//! "Embedding Lookup: index out of bounds"). See
//! [`crate::kernels::reference::embedding`] for the arithmetic.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared};
use crate::error::{Error, IssueKind, OpIssue};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::reference::embedding::{embedding_lookup, embedding_lookup_hybrid};

/// What an out-of-range id reports: the operator and the ids tensor, as a prepare issue would.
struct BadId {
    op_index: usize,
    op_name: String,
    tensor: String,
    rows: usize,
}

impl BadId {
    fn error(&self, id: i32) -> Error {
        Error::CannotRun {
            issues: vec![OpIssue {
                op_index: self.op_index,
                op_name: self.op_name.clone(),
                tensor: self.tensor.clone(),
                kind: IssueKind::Invalid,
                reason: self.reason(i64::from(id)),
            }],
        }
    }

    fn reason(&self, id: i64) -> String {
        format!(
            "id {id} out of range: the table has {} rows (LiteRT: index out of bounds)",
            self.rows
        )
    }
}

/// Rows copied as bytes (float tables; 8-bit tables with an output of their type).
struct Copy {
    row_bytes: usize,
    bad: BadId,
}

impl Kernel for Copy {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let ids: &[i32] = bytemuck::cast_slice(io.input(0));
        let table = io.input(1);
        if let Err(id) = embedding_lookup(ids, table, self.row_bytes, io.output()) {
            io.fail(self.bad.error(id));
        }
    }
}

/// The hybrid form: an 8-bit (or unpacked INT4) table dequantized into a float output.
struct Hybrid {
    cols: usize,
    scales: Vec<f32>,
    /// An INT4 table: rows start where LiteRT's packed reads start (`embedding_lookup_hybrid`).
    int4: bool,
    bad: BadId,
}

impl Kernel for Hybrid {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let ids: &[i32] = bytemuck::cast_slice(io.input(0));
        let table = io.input(1);
        if let Err(id) =
            embedding_lookup_hybrid(ids, table, self.cols, &self.scales, self.int4, io.f32_out())
        {
            io.fail(self.bad.error(id));
        }
    }
}

/// EMBEDDING_LOOKUP (inputs: ids, table).
pub fn prepare_embedding_lookup(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let (ids, table) = (ctx.input(0)?, ctx.input(1)?);
    let output = ctx.output(0)?;
    ctx.require_dtype(&ids, &[TensorType::INT32])?;
    if ids.shape.len() != 1 {
        return Err(ctx.invalid(
            ids.describe(),
            format!("ids must be a vector, got shape {:?}", ids.shape),
        ));
    }
    if table.shape.len() < 2 {
        return Err(ctx.invalid(
            table.describe(),
            format!(
                "the table needs rank 2 or more, got shape {:?}",
                table.shape
            ),
        ));
    }
    ctx.require_dtype(
        &table,
        &[
            TensorType::FLOAT32,
            TensorType::INT8,
            TensorType::UINT8,
            TensorType::INT4,
        ],
    )?;
    let rows = table.shape[0];
    let cols = table.shape[1..]
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| ctx.invalid(table.describe(), "size overflows"))?;
    let n = ids.shape[0];
    let mut shape = vec![n];
    shape.extend_from_slice(&table.shape[1..]);
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| ctx.invalid(output.describe(), "size overflows"))?;
    if rows == 0 && n * cols > 0 {
        // LiteRT returns without writing the output (its contents are whatever was there).
        return Err(ctx.invalid(table.describe(), "the table has no rows to look up"));
    }
    let bad = BadId {
        op_index: ctx.op_index,
        op_name: ctx.op_name.to_string(),
        tensor: ids.describe(),
        rows,
    };
    if ids.data.is_some()
        && let Some(id) = ctx
            .const_ints(&ids)?
            .into_iter()
            .find(|&k| usize::try_from(k).map_or(true, |k| k >= rows))
    {
        return Err(ctx.invalid(ids.describe(), bad.reason(id)));
    }
    let hybrid = table.dtype != TensorType::FLOAT32 && output.dtype == TensorType::FLOAT32;
    if hybrid {
        // One scale for the table or one per row (quantized dimension 0), zero points 0.
        let scales = ctx.channel_scales(&table, 0, rows)?;
        let per_row = table.quantization.is_some_and(|q| q.scales().len() > 1);
        let scales = if per_row {
            scales
        } else {
            scales[..1].to_vec()
        };
        let int4 = table.dtype == TensorType::INT4;
        return Ok(Prepared::f32(
            shape,
            Hybrid {
                cols,
                scales,
                int4,
                bad,
            },
        ));
    }
    if table.dtype == TensorType::INT4 {
        return Err(ctx.unsupported(
            output.describe(),
            format!(
                "output type {} for an INT4 table (INT4 tables are looked up in the hybrid form \
                 only: a FLOAT32 output)",
                dtype_name(output.dtype)
            ),
        ));
    }
    if output.dtype != table.dtype {
        return Err(ctx.unsupported(
            output.describe(),
            format!(
                "output type {} for a {} table (LiteRT: the table's type, or FLOAT32 from an 8-bit table)",
                dtype_name(output.dtype),
                dtype_name(table.dtype)
            ),
        ));
    }
    let row_bytes = cols
        * if table.dtype == TensorType::FLOAT32 {
            4
        } else {
            1
        };
    Ok(Prepared::new(shape, table.dtype, Copy { row_bytes, bad }))
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{T, act, error, i8s, ints, run, single_op};
    use crate::engine::Interpreter;
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, Model, TensorType};

    fn table(dtype: TensorType, shape: &[i32], q: Option<(f32, i64)>, data: Vec<u8>) -> T {
        T {
            dtype,
            shape: shape.to_vec(),
            q,
            data: Some(data),
        }
    }

    fn lookup(ids: T, table: T, out: T) -> Model {
        single_op(
            Op::EMBEDDING_LOOKUP,
            BuiltinOptionsT::NONE,
            vec![ids, table, out],
        )
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        bytemuck::cast_slice(v).to_vec()
    }

    #[test]
    fn float_and_int8_rows_are_copied() {
        let m = lookup(
            act(TensorType::INT32, &[3], None),
            table(
                TensorType::FLOAT32,
                &[3, 2],
                None,
                f32s(&[1., 2., 3., 4., 5., 6.]),
            ),
            act(TensorType::FLOAT32, &[3, 2], None),
        );
        let out = run(&m, &[bytemuck::cast_slice(&[2i32, 0, 2])]);
        assert_eq!(out, f32s(&[5., 6., 1., 2., 5., 6.]));
        let q = Some((0.5, 3));
        let m = lookup(
            act(TensorType::INT32, &[2], None),
            table(TensorType::INT8, &[2, 2], q, i8s(&[-1, 2, 3, -4])),
            act(TensorType::INT8, &[2, 2], q),
        );
        assert_eq!(
            run(&m, &[bytemuck::cast_slice(&[1i32, 1])]),
            i8s(&[3, -4, 3, -4])
        );
    }

    #[test]
    fn out_of_range_ids_are_typed_errors() {
        let t = || table(TensorType::FLOAT32, &[2, 2], None, f32s(&[1., 2., 3., 4.]));
        let out = || act(TensorType::FLOAT32, &[2, 2], None);
        // Constant ids: at prepare.
        let e = error(&lookup(ints(&[2], &[0, 2]), t(), out()));
        assert!(
            e.contains("EMBEDDING_LOOKUP") && e.contains("id 2 out of range"),
            "{e}"
        );
        // Computed ids: the invocation fails, naming the op and the ids tensor.
        let m = lookup(act(TensorType::INT32, &[2], None), t(), out());
        let mut it = Interpreter::new(&m).expect("prepares");
        it.set_input(0, bytemuck::cast_slice(&[1i32, -1]))
            .expect("fits");
        let e = it.invoke().expect_err("id -1").to_string();
        assert!(
            e.contains("EMBEDDING_LOOKUP") && e.contains("input 0 't0'") && e.contains("id -1"),
            "{e}"
        );
    }

    #[test]
    fn hostile_models_are_typed_errors() {
        let t = || table(TensorType::FLOAT32, &[2, 2], None, f32s(&[1., 2., 3., 4.]));
        // Ids must be a vector of INT32.
        let e = error(&lookup(
            act(TensorType::INT32, &[1, 2], None),
            t(),
            act(TensorType::FLOAT32, &[2, 2], None),
        ));
        assert!(e.contains("ids must be a vector"), "{e}");
        let e = error(&lookup(
            act(TensorType::FLOAT32, &[2], None),
            t(),
            act(TensorType::FLOAT32, &[2, 2], None),
        ));
        assert!(e.contains("input 0"), "{e}");
        // The table needs rank 2.
        let e = error(&lookup(
            act(TensorType::INT32, &[2], None),
            table(TensorType::FLOAT32, &[4], None, f32s(&[1., 2., 3., 4.])),
            act(TensorType::FLOAT32, &[2], None),
        ));
        assert!(e.contains("rank 2"), "{e}");
        // No int16 tables in LiteRT; a hybrid table needs symmetric scales.
        let e = error(&lookup(
            act(TensorType::INT32, &[2], None),
            table(TensorType::INT16, &[2, 1], Some((0.5, 0)), vec![0; 4]),
            act(TensorType::INT16, &[2, 1], Some((0.5, 0))),
        ));
        assert!(e.contains("INT16"), "{e}");
        let e = error(&lookup(
            act(TensorType::INT32, &[2], None),
            table(TensorType::INT8, &[2, 1], Some((0.5, 3)), vec![0; 2]),
            act(TensorType::FLOAT32, &[2, 1], None),
        ));
        assert!(e.contains("zero point"), "{e}");
        // A float table into an int8 output.
        let e = error(&lookup(
            act(TensorType::INT32, &[2], None),
            t(),
            act(TensorType::INT8, &[2, 2], Some((0.5, 0))),
        ));
        assert!(e.contains("output type INT8"), "{e}");
    }

    #[test]
    fn hybrid_tables_dequantize_into_float() {
        let m = lookup(
            act(TensorType::INT32, &[2], None),
            table(
                TensorType::UINT8,
                &[2, 2],
                Some((0.5, 0)),
                vec![2, 0xFF, 4, 6],
            ),
            act(TensorType::FLOAT32, &[2, 2], None),
        );
        let out = run(&m, &[bytemuck::cast_slice(&[0i32, 1])]);
        assert_eq!(out, f32s(&[1.0, -0.5, 2.0, 3.0]));
    }
}
