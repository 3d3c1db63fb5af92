//! BATCH_MATMUL: float32, integer (int8, and int16 with zero points 0) and hybrid (float32 LHS,
//! int8 constant RHS, as TF's dynamic-range converter writes it).
//!
//! Prepare mirrors LiteRT's `batch_matmul.cc`: ranks 2 to 5, batch dimensions broadcast after
//! extending both operands to the output rank, the depth of the (possibly adjoint) operands
//! equal; the integer multiplier is `(double)(s_lhs · s_rhs) / (double)s_out` (the product in
//! float, `GetQuantizedConvolutionMultipler`) as a Q31 multiplier, the clamp the type's range.

use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, options};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::Arithmetic;
use crate::kernels::reference::batch_matmul::{self as bmm, BatchMatMulParams};
use crate::kernels::reference::conv_int::{QuantElem, RequantParams};
use crate::kernels::reference::hybrid::QuantizedBatches;
use crate::kernels::xnnpack as xnn;
use crate::tflite::schema::BatchMatMulOptionsT;

/// Float kernel. Also what calibration runs: LiteRT's optimized float BATCH_MATMUL gives the
/// reference kernel's bits on every golden (checked on the calibration samples of the
/// `op_bmm_*` cases: 0 elements differ), unlike FULLY_CONNECTED's Eigen product.
struct BatchMatMul {
    p: BatchMatMulParams,
}

impl Kernel for BatchMatMul {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        bmm::batch_matmul(&self.p, io.f32_in(0), io.f32_in(1), io.f32_out());
    }
}

/// Integer kernel on `T` elements: `run` is the kernel's instance for `T`, made in the kernels'
/// crate (`bmm::batch_matmul_i8` / `_i16`).
struct QBatchMatMul<T> {
    p: BatchMatMulParams,
    q: RequantParams,
    rhs_offset: i32,
    run: bmm::BatchMatMulIntFn<T>,
}

impl<T: QuantElem> Kernel for QBatchMatMul<T> {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (lhs, rhs) = (io.in_as::<T>(0), io.in_as::<T>(1));
        (self.run)(&self.p, &self.q, self.rhs_offset, lhs, rhs, io.out_as());
    }
}

/// Hybrid kernel: the LHS quantized per row at run time into scratch sized at prepare.
struct HybridBatchMatMul {
    p: BatchMatMulParams,
    rhs_scale: f32,
    asymmetric: bool,
    /// The `adj_x`-transposed LHS (empty without `adj_x`).
    lhs_rows: Vec<f32>,
    scratch: QuantizedBatches,
    col_sums: Vec<i32>,
    col_sums_ready: bool,
}

impl Kernel for HybridBatchMatMul {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let (lhs, rhs) = (io.f32_in(0), io.in_as::<i8>(1));
        let p = &self.p;
        let rows: &[f32] = if p.adj_x && p.m * p.k > 0 {
            let per = p.m * p.k;
            for (mat, dst) in self.lhs_rows.chunks_exact_mut(per).enumerate() {
                for i in 0..p.m {
                    for d in 0..p.k {
                        dst[i * p.k + d] = lhs[mat * per + p.lhs_at(i, d)];
                    }
                }
            }
            &self.lhs_rows
        } else {
            lhs
        };
        self.scratch.quantize(rows, self.asymmetric);
        self.scratch.scale_by(self.rhs_scale);
        if !self.col_sums_ready {
            let matrices = self.col_sums.len() / p.n.max(1);
            bmm::rhs_column_sums(p, rhs, matrices, &mut self.col_sums);
            self.col_sums_ready = true;
        }
        bmm::batch_matmul_hybrid(p, &self.scratch, rhs, &self.col_sums, io.f32_out());
    }
}

/// `shape` extended with leading 1s to `rank`.
fn extend(shape: &[usize], rank: usize) -> Vec<usize> {
    let mut s = vec![1; rank - shape.len()];
    s.extend_from_slice(shape);
    s
}

/// Element strides of the three leading dims of a rank-5 shape, 0 where the dim is 1 (LiteRT's
/// `extent`).
fn extents(s5: &[usize]) -> [usize; 3] {
    let mut e = [0; 3];
    for (d, e) in e.iter_mut().enumerate() {
        if s5[d] != 1 {
            *e = s5[d + 1..].iter().product();
        }
    }
    e
}

/// BATCH_MATMUL: `lhs [..., m, k]` (`[..., k, m]` with `adj_x`) times `rhs [..., k, n]`
/// (`[..., n, k]` with `adj_y`), batch dims broadcast; output `[..., m, n]`.
pub fn prepare_batch_matmul(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(2, 2)?;
    let o = options!(ctx, BatchMatMulOptions, BatchMatMulOptionsT)?;
    let (lhs, rhs) = (ctx.input(0)?, ctx.input(1)?);
    for t in [&lhs, &rhs] {
        if !(2..=5).contains(&t.shape.len()) {
            return Err(ctx.unsupported(
                t.describe(),
                format!("rank {} (BATCH_MATMUL takes ranks 2 to 5)", t.shape.len()),
            ));
        }
    }
    let rank = lhs.shape.len().max(rhs.shape.len());
    let (l, r) = (extend(lhs.shape, rank), extend(rhs.shape, rank));
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank - 2 {
        let (a, b) = (l[d], r[d]);
        if a != b && a != 1 && b != 1 {
            return Err(ctx.invalid(
                rhs.describe(),
                format!(
                    "batch dims of {:?} and {:?} do not broadcast",
                    lhs.shape, rhs.shape
                ),
            ));
        }
        shape.push(if a == 1 { b } else { a });
    }
    let (m, k) = if o.adj_x {
        (l[rank - 1], l[rank - 2])
    } else {
        (l[rank - 2], l[rank - 1])
    };
    let (k_rhs, n) = if o.adj_y {
        (r[rank - 1], r[rank - 2])
    } else {
        (r[rank - 2], r[rank - 1])
    };
    if k != k_rhs {
        return Err(ctx.invalid(
            rhs.describe(),
            format!(
                "depth {k} of the lhs {:?} differs from {k_rhs} of the rhs {:?} (adj_x {}, adj_y {})",
                lhs.shape, rhs.shape, o.adj_x, o.adj_y
            ),
        ));
    }
    shape.push(m);
    shape.push(n);
    let (l5, r5, o5) = (extend(&l, 5), extend(&r, 5), extend(&shape, 5));
    let p = BatchMatMulParams {
        batch: [o5[0], o5[1], o5[2]],
        lhs_ext: extents(&l5),
        rhs_ext: extents(&r5),
        m,
        k,
        n,
        adj_x: o.adj_x,
        adj_y: o.adj_y,
    };
    match (lhs.dtype, rhs.dtype) {
        (TensorType::FLOAT32, TensorType::FLOAT32) => {
            ctx.require_output_dtype(0, TensorType::FLOAT32)?;
            Ok(Prepared::f32(shape, BatchMatMul { p }))
        }
        (TensorType::FLOAT32, TensorType::INT8) => prepare_hybrid(ctx, &rhs, &o, p, shape),
        (TensorType::INT8, TensorType::INT8) => {
            prepare_int::<i8>(ctx, &lhs, &rhs, p, shape, bmm::batch_matmul_i8)
        }
        (TensorType::INT16, TensorType::INT16) => {
            prepare_int::<i16>(ctx, &lhs, &rhs, p, shape, bmm::batch_matmul_i16)
        }
        (a, b) => Err(ctx.unsupported(
            rhs.describe(),
            format!(
                "types {} × {} (BATCH_MATMUL runs FLOAT32 × FLOAT32, FLOAT32 × INT8 (hybrid), \
                 INT8 × INT8 and INT16 × INT16)",
                dtype_name(a),
                dtype_name(b)
            ),
        )),
    }
}

/// Per-tensor parameters of the integer kernel: LiteRT's multiplier, offsets and type clamp.
fn prepare_int<T: QuantElem + 'static>(
    ctx: &PrepareCtx<'_>,
    lhs: &TensorInfo<'_>,
    rhs: &TensorInfo<'_>,
    p: BatchMatMulParams,
    shape: Vec<usize>,
    run: bmm::BatchMatMulIntFn<T>,
) -> PrepareResult<Prepared> {
    let dtype = lhs.dtype;
    ctx.require_output_dtype(0, dtype)?;
    let out = ctx.output(0)?;
    let (ql, qr, qo) = (
        ctx.per_tensor_qparams(lhs)?,
        ctx.per_tensor_qparams(rhs)?,
        ctx.per_tensor_qparams(&out)?,
    );
    let (lo, hi) = if dtype == TensorType::INT8 {
        (-128, 127)
    } else {
        (-32768, 32767)
    };
    for (t, q) in [(lhs, ql), (rhs, qr), (&out, qo)] {
        if dtype == TensorType::INT16 && q.zero_point != 0 {
            return Err(ctx.unsupported(
                t.describe(),
                format!(
                    "int16 zero point {} (LiteRT's int16 BATCH_MATMUL needs zero point 0)",
                    q.zero_point
                ),
            ));
        }
        if !(lo..=hi).contains(&q.zero_point) {
            return Err(ctx.invalid(
                t.describe(),
                format!("zero point {} outside {}", q.zero_point, dtype_name(dtype)),
            ));
        }
    }
    let real = f64::from(ql.scale * qr.scale) / f64::from(qo.scale);
    let (mult, shift) = quantize_multiplier(real);
    // The delegate takes an int8 BATCH_MATMUL whose rhs is symmetric (zero point 0) and runs
    // it as XNNPACK's qs8 × qc8w batch matrix multiply: the conv-like fp32 requantization.
    // Any other stays on LiteRT's builtin kernel, whose int8 arithmetic is the reference's.
    let scale = xnn::requantization_scale(ql.scale, qr.scale, qo.scale);
    let xnnpack = (ctx.arithmetic == Arithmetic::Xnnpack
        && dtype == TensorType::INT8
        && qr.zero_point == 0
        && xnn::scale_supported(scale))
    .then(|| xnn::Fp32Requant {
        scales: vec![scale],
    });
    let q = RequantParams {
        input_offset: -ql.zero_point,
        output_offset: qo.zero_point,
        act_min: lo,
        act_max: hi,
        multipliers: vec![mult],
        shifts: vec![shift],
        real_multipliers: vec![real],
        xnnpack,
    };
    Ok(Prepared::new(
        shape,
        dtype,
        QBatchMatMul::<T> {
            p,
            q,
            rhs_offset: -qr.zero_point,
            run,
        },
    ))
}

/// The hybrid kernel: a per-tensor symmetric int8 RHS; the LHS rows quantized at run time.
fn prepare_hybrid(
    ctx: &PrepareCtx<'_>,
    rhs: &TensorInfo<'_>,
    o: &BatchMatMulOptionsT,
    p: BatchMatMulParams,
    shape: Vec<usize>,
) -> PrepareResult<Prepared> {
    ctx.require_output_dtype(0, TensorType::FLOAT32)?;
    if rhs.data.is_none() {
        return Err(ctx.unsupported(
            rhs.describe(),
            "a run-time INT8 rhs with a FLOAT32 lhs (the hybrid kernel takes a constant rhs)",
        ));
    }
    let q = ctx.per_tensor_qparams(rhs)?;
    if q.zero_point != 0 {
        return Err(ctx.unsupported(
            rhs.describe(),
            format!(
                "hybrid weight zero point {} (LiteRT ignores it; TF writes symmetric weights)",
                q.zero_point
            ),
        ));
    }
    let lhs = ctx.input(0)?;
    let lhs_len = lhs.num_elements();
    // LiteRT quantizes every row of the (adj_x-transposed) LHS: m rows per LHS matrix.
    let rows = lhs.shape[..lhs.shape.len() - 2].iter().product::<usize>() * p.m;
    let rhs_matrices = rhs.num_elements().checked_div(p.k * p.n).unwrap_or(0);
    // LiteRT computes the column sums of the RHS matrices after the first extended-rank-5 batch
    // dim only, then reads them one matrix per step of each batch dim: with asymmetric inputs,
    // a rank-5 RHS whose first batch dim is > 1 reads sums it never computed.
    let rhs5 = extend(rhs.shape, 5);
    if o.asymmetric_quantize_inputs && rhs5[0] > 1 {
        return Err(ctx.unsupported(
            rhs.describe(),
            format!(
                "hybrid rank-5 rhs {:?} with a first batch dim > 1 and asymmetric inputs (LiteRT \
                 reads column sums it never computed)",
                rhs.shape
            ),
        ));
    }
    Ok(Prepared::f32(
        shape,
        HybridBatchMatMul {
            p,
            rhs_scale: q.scale,
            asymmetric: o.asymmetric_quantize_inputs,
            lhs_rows: if p.adj_x {
                vec![0.0; lhs_len]
            } else {
                Vec::new()
            },
            scratch: QuantizedBatches::new(rows, p.k),
            col_sums: vec![0; rhs_matrices * p.n],
            col_sums_ready: false,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{T, act, error, i8s, run, run_xnnpack, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, TensorType};
    use crate::tflite::schema::BatchMatMulOptionsT;

    /// int8 `[1, 3] × [3, 1]`, scales 1 · 1 / 2, the rhs zero point `rhs_zp`.
    fn int8_half(rhs_zp: i64) -> crate::Model {
        single_op(
            Op::BATCH_MATMUL,
            opts(false, false),
            vec![
                act(TensorType::INT8, &[1, 3], Some((1.0, 0))),
                act(TensorType::INT8, &[3, 1], Some((1.0, rhs_zp))),
                act(TensorType::INT8, &[1, 1], Some((2.0, 0))),
            ],
        )
    }

    #[test]
    fn int8_under_xnnpack_requantizes_in_f32_only_with_a_symmetric_rhs() {
        // Accumulator 1 halved: XNNPACK rounds 0.5 to even (0), the reference up (1). The
        // delegate takes the op only when the rhs zero point is 0; otherwise LiteRT's builtin
        // kernel (the reference arithmetic) runs it.
        let lhs = i8s(&[1, 0, 0]);
        let sym = int8_half(0);
        assert_eq!(run(&sym, &[&lhs, &i8s(&[1, 5, 5])]), i8s(&[1]));
        assert_eq!(run_xnnpack(&sym, &[&lhs, &i8s(&[1, 5, 5])]), i8s(&[0]));
        let asym = int8_half(1);
        assert_eq!(run_xnnpack(&asym, &[&lhs, &i8s(&[2, 5, 5])]), i8s(&[1]));
    }

    fn opts(adj_x: bool, adj_y: bool) -> BuiltinOptionsT {
        BuiltinOptionsT::BatchMatMulOptions(Box::new(BatchMatMulOptionsT {
            adj_x,
            adj_y,
            asymmetric_quantize_inputs: false,
        }))
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn float_broadcast_and_adjoint_through_the_engine() {
        // lhs [2, 1, 2] (two batches of one row), rhs [2, 3] broadcast, stored transposed
        // (adj_y) as [3, 2]: rows (1, 2) and (3, 4) times columns (1, 0), (0, 1), (1, 1).
        let m = single_op(
            Op::BATCH_MATMUL,
            opts(false, true),
            vec![
                act(TensorType::FLOAT32, &[2, 1, 2], None),
                act(TensorType::FLOAT32, &[3, 2], None),
                act(TensorType::FLOAT32, &[2, 1, 3], None),
            ],
        );
        let out = run(
            &m,
            &[&f32s(&[1., 2., 3., 4.]), &f32s(&[1., 0., 0., 1., 1., 1.])],
        );
        assert_eq!(out, f32s(&[1., 2., 3., 3., 4., 7.]));
    }

    #[test]
    fn int8_rescales_with_one_multiplier() {
        // Scales 0.5 · 0.5 / 0.25 = 1: out = Σ (l − 1)(r + 2) + zp 3.
        // l = (3, 5) → (2, 4); r = (1, 0) → (3, 2): 6 + 8 = 14 + 3 = 17.
        let m = single_op(
            Op::BATCH_MATMUL,
            opts(false, false),
            vec![
                act(TensorType::INT8, &[1, 2], Some((0.5, 1))),
                act(TensorType::INT8, &[2, 1], Some((0.5, -2))),
                act(TensorType::INT8, &[1, 1], Some((0.25, 3))),
            ],
        );
        assert_eq!(run(&m, &[&i8s(&[3, 5]), &i8s(&[1, 0])]), i8s(&[17]));
    }

    #[test]
    fn bad_models_are_typed_errors() {
        let f = |shape: &[i32]| act(TensorType::FLOAT32, shape, None);
        let bmm = |a: T, b: T, o: T| single_op(Op::BATCH_MATMUL, opts(false, false), vec![a, b, o]);
        // Depths differ.
        let e = error(&bmm(f(&[2, 3]), f(&[4, 5]), f(&[2, 5])));
        assert!(e.contains("BATCH_MATMUL") && e.contains("depth 3"), "{e}");
        // Batch dims do not broadcast.
        let e = error(&bmm(f(&[2, 2, 3]), f(&[3, 3, 5]), f(&[2, 2, 5])));
        assert!(e.contains("do not broadcast"), "{e}");
        // Rank 1 and rank 6.
        let e = error(&bmm(f(&[3]), f(&[3, 5]), f(&[5])));
        assert!(e.contains("rank 1"), "{e}");
        let e = error(&bmm(
            f(&[1, 1, 1, 1, 2, 3]),
            f(&[3, 5]),
            f(&[1, 1, 1, 1, 2, 5]),
        ));
        assert!(e.contains("rank 6"), "{e}");
        // Mixed types other than the hybrid pair.
        let e = error(&bmm(
            act(TensorType::INT8, &[2, 3], Some((0.1, 0))),
            f(&[3, 5]),
            f(&[2, 5]),
        ));
        assert!(e.contains("INT8 × FLOAT32"), "{e}");
        // int16 needs zero points 0.
        let e = error(&bmm(
            act(TensorType::INT16, &[2, 3], Some((0.1, 0))),
            act(TensorType::INT16, &[3, 5], Some((0.1, 4))),
            act(TensorType::INT16, &[2, 5], Some((0.1, 0))),
        ));
        assert!(e.contains("zero point 4"), "{e}");
        // A hybrid rhs must be a constant.
        let e = error(&bmm(
            f(&[2, 3]),
            act(TensorType::INT8, &[3, 5], Some((0.1, 0))),
            f(&[2, 5]),
        ));
        assert!(e.contains("constant rhs"), "{e}");
        // Quantized tensors need their parameters.
        let e = error(&bmm(
            act(TensorType::INT8, &[2, 3], None),
            act(TensorType::INT8, &[3, 5], Some((0.1, 0))),
            act(TensorType::INT8, &[2, 5], Some((0.1, 0))),
        ));
        assert!(e.contains("quantization"), "{e}");
    }
}
