//! BATCH_MATMUL: `out[b] = lhs[b] · rhs[b]` over up to three broadcast batch dimensions, in
//! float32, integer (int8 with int32 accumulators, int16 with int64) and hybrid (float32 LHS
//! quantized per row at run time, int8 constant RHS).
//!
//! LiteRT's kernel (`batch_matmul.cc` → `reference_ops::BatchMatMul`) transposes the RHS (unless
//! `adj_y`) and the LHS (if `adj_x`) into scratch and then multiplies with the operands swapped;
//! what survives of that here is only what changes bits: every output element is one dot product
//! summed over the depth in order from zero, and the hybrid kernel's per-row scales and row sums
//! are found with LiteRT's own pointer arithmetic (see [`BatchMatMulParams::hybrid_slots`]).
//! The operands are read in place with strides instead of being transposed.

use super::conv_int::{Accumulator, QuantElem, RequantParams};
use super::hybrid::QuantizedBatches;

/// Shapes of one BATCH_MATMUL, fixed at prepare time: three batch dimensions (the operands
/// extended to rank 5, as LiteRT does, then the leading three), `m × k` times `k × n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMatMulParams {
    /// Output batch dimensions (the broadcast of both operands').
    pub batch: [usize; 3],
    /// Element stride of each batch dimension in the LHS, 0 where the LHS has size 1 there.
    pub lhs_ext: [usize; 3],
    /// Element stride of each batch dimension in the RHS, 0 where the RHS has size 1 there.
    pub rhs_ext: [usize; 3],
    /// Output rows (LHS rows after `adj_x`).
    pub m: usize,
    /// Depth summed over.
    pub k: usize,
    /// Output columns (RHS columns after `adj_y`).
    pub n: usize,
    /// The LHS is stored `k × m` (transposed).
    pub adj_x: bool,
    /// The RHS is stored `n × k` (transposed).
    pub adj_y: bool,
}

impl BatchMatMulParams {
    /// Offset of LHS element `(row, depth)` within one matrix (`adj_x` stores it `k × m`).
    #[inline(always)]
    pub fn lhs_at(&self, row: usize, d: usize) -> usize {
        if self.adj_x {
            d * self.m + row
        } else {
            row * self.k + d
        }
    }

    /// Offset of RHS element `(depth, col)` within one matrix.
    #[inline(always)]
    pub fn rhs_at(&self, d: usize, col: usize) -> usize {
        if self.adj_y {
            col * self.k + d
        } else {
            d * self.n + col
        }
    }

    /// Calls `f(lhs_offset, rhs_offset, batch_index)` for every output matrix in order, the
    /// offsets being where that batch's LHS and RHS matrices start.
    pub fn for_each_batch(&self, mut f: impl FnMut(usize, usize, [usize; 3])) {
        for b0 in 0..self.batch[0] {
            for b1 in 0..self.batch[1] {
                for b2 in 0..self.batch[2] {
                    let b = [b0, b1, b2];
                    let l = (0..3).map(|d| b[d] * self.lhs_ext[d]).sum();
                    let r = (0..3).map(|d| b[d] * self.rhs_ext[d]).sum();
                    f(l, r, b);
                }
            }
        }
    }

    /// Elements of one output matrix.
    fn out_len(&self) -> usize {
        self.m * self.n
    }

    /// For the hybrid kernel, where LiteRT reads the run-time row scales and zero points of
    /// batch `b` (index of its row 0 in the per-row arrays) and the RHS column sums (index of
    /// column 0 in the column-sum array). LiteRT advances both by one matrix's worth of rows
    /// (`m`, resp. `n`) per step of *each* batch dimension the operand does not broadcast,
    /// not by the product of the later dimensions, so with two or more batch dimensions of
    /// size > 1 batches share scales; this reproduces it.
    pub fn hybrid_slots(&self, b: [usize; 3]) -> (usize, usize) {
        let mut scale = 0;
        let mut col_sum = 0;
        for ((&bd, &l), &r) in b.iter().zip(&self.lhs_ext).zip(&self.rhs_ext) {
            if l != 0 {
                scale += bd * self.m;
            }
            if r != 0 {
                col_sum += bd * self.n;
            }
        }
        (scale, col_sum)
    }
}

/// BATCH_MATMUL (float). Mirrors LiteRT `reference_ops::BatchMatMul` (float): each output
/// element is `Σ_d lhs[i, d] · rhs[d, j]`, summed in depth order from `0.0`.
pub fn batch_matmul(p: &BatchMatMulParams, lhs: &[f32], rhs: &[f32], output: &mut [f32]) {
    let mut o = 0;
    p.for_each_batch(|l, r, _| {
        let (lhs, rhs) = (&lhs[l..], &rhs[r..]);
        for i in 0..p.m {
            for j in 0..p.n {
                let mut total = 0.0f32;
                for d in 0..p.k {
                    total += lhs[p.lhs_at(i, d)] * rhs[p.rhs_at(d, j)];
                }
                output[o + i * p.n + j] = total;
            }
        }
        o += p.out_len();
    });
}

/// An instance of [`batch_matmul_int`] for one element type (and its accumulator).
pub type BatchMatMulIntFn<T> = fn(&BatchMatMulParams, &RequantParams, i32, &[T], &[T], &mut [T]);

/// [`batch_matmul_int`] on int8 with an int32 accumulator, instantiated in this crate at its
/// opt-level (see [`super::bytes`]).
pub fn batch_matmul_i8(
    p: &BatchMatMulParams,
    q: &RequantParams,
    rhs_offset: i32,
    lhs: &[i8],
    rhs: &[i8],
    output: &mut [i8],
) {
    batch_matmul_int::<i8, i32>(p, q, rhs_offset, lhs, rhs, output);
}

/// [`batch_matmul_int`] on int16 with an int64 accumulator (16x8), instantiated in this crate.
pub fn batch_matmul_i16(
    p: &BatchMatMulParams,
    q: &RequantParams,
    rhs_offset: i32,
    lhs: &[i16],
    rhs: &[i16],
    output: &mut [i16],
) {
    batch_matmul_int::<i16, i64>(p, q, rhs_offset, lhs, rhs, output);
}

/// BATCH_MATMUL, integer. Mirrors LiteRT `reference_ops::BatchMatMul<T, AccumT>` (int8 with
/// int32 accumulators, int16 with int64): `Σ_d (rhs + rhs_offset) · (lhs + q.input_offset)`,
/// requantized with the one multiplier by LiteRT's `MultiplyByQuantizedMultiplier` for the
/// accumulator (double rounding for int32, the 15-bit single-rounding form for int64), plus the
/// output zero point, clamped to the type's range.
pub fn batch_matmul_int<T: QuantElem, A: Accumulator>(
    p: &BatchMatMulParams,
    q: &RequantParams,
    rhs_offset: i32,
    lhs: &[T],
    rhs: &[T],
    output: &mut [T],
) {
    let mut o = 0;
    p.for_each_batch(|l, r, _| {
        let (lhs, rhs) = (&lhs[l..], &rhs[r..]);
        for i in 0..p.m {
            for j in 0..p.n {
                let mut acc = A::default();
                for d in 0..p.k {
                    let a = lhs[p.lhs_at(i, d)].to_i32().wrapping_add(q.input_offset);
                    let b = rhs[p.rhs_at(d, j)].to_i32().wrapping_add(rhs_offset);
                    acc = acc.mac(b, a);
                }
                output[o + i * p.n + j] = T::from_clamped(q.finish(acc, 0));
            }
        }
        o += p.out_len();
    });
}

/// The column sums of an int8 RHS the hybrid kernel subtracts `zero point × sum` with: for
/// every RHS matrix (all batches, in order), `Σ_d rhs[d, j]` per column `j` (LiteRT's
/// `ReductionSumVector` over the transposed RHS).
pub fn rhs_column_sums(p: &BatchMatMulParams, rhs: &[i8], matrices: usize, out: &mut [i32]) {
    let len = p.k * p.n;
    for mat in 0..matrices {
        let rhs = &rhs[mat * len..(mat + 1) * len];
        for j in 0..p.n {
            out[mat * p.n + j] = (0..p.k).map(|d| i32::from(rhs[p.rhs_at(d, j)])).sum();
        }
    }
}

/// BATCH_MATMUL, hybrid. Mirrors LiteRT's `EvalHybrid` + the hybrid `reference_ops::BatchMatMul`:
/// `q` holds the LHS quantized row by row (rows of `k`, already `adj_x`-transposed, each scale
/// already multiplied by the RHS scale); per output element `acc = Σ_d rhs · q` in int32, then
/// `acc −= col_sum · zp_row` **in float** truncated back to int32, then
/// `out = 0 + scale_row · acc`. `col_sums` are [`rhs_column_sums`]; rows and sums are looked up
/// at [`BatchMatMulParams::hybrid_slots`] as LiteRT does.
pub fn batch_matmul_hybrid(
    p: &BatchMatMulParams,
    q: &QuantizedBatches,
    rhs: &[i8],
    col_sums: &[i32],
    output: &mut [f32],
) {
    let mut o = 0;
    p.for_each_batch(|l, r, b| {
        let (scale_at, sum_at) = p.hybrid_slots(b);
        let (lhs, rhs) = (&q.values[l..], &rhs[r..]);
        for i in 0..p.m {
            let scale = q.scales[scale_at + i];
            let offset = q.offsets[scale_at + i] as f32;
            for j in 0..p.n {
                let mut acc = 0i32;
                for d in 0..p.k {
                    acc = acc
                        .wrapping_add(i32::from(rhs[p.rhs_at(d, j)]) * i32::from(lhs[i * p.k + d]));
                }
                let acc = (acc as f32 - col_sums[sum_at + j] as f32 * offset) as i32;
                output[o + i * p.n + j] = 0.0 + scale * acc as f32;
            }
        }
        o += p.out_len();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(m: usize, k: usize, n: usize, adj_x: bool, adj_y: bool) -> BatchMatMulParams {
        BatchMatMulParams {
            batch: [1, 1, 1],
            lhs_ext: [0; 3],
            rhs_ext: [0; 3],
            m,
            k,
            n,
            adj_x,
            adj_y,
        }
    }

    #[test]
    fn float_two_by_two_with_and_without_adjoints() {
        // [[1, 2], [3, 4]] · [[5, 6], [7, 8]] = [[19, 22], [43, 50]].
        let mut out = [0.0; 4];
        batch_matmul(
            &params(2, 2, 2, false, false),
            &[1., 2., 3., 4.],
            &[5., 6., 7., 8.],
            &mut out,
        );
        assert_eq!(out, [19., 22., 43., 50.]);
        // The same product with both operands stored transposed.
        batch_matmul(
            &params(2, 2, 2, true, true),
            &[1., 3., 2., 4.],
            &[5., 7., 6., 8.],
            &mut out,
        );
        assert_eq!(out, [19., 22., 43., 50.]);
    }

    #[test]
    fn float_broadcast_batch_reuses_the_rhs() {
        // Two LHS batches [1, 2] and [3, 4] (1 × 2) times one RHS [[1], [10]] (2 × 1).
        let p = BatchMatMulParams {
            batch: [1, 1, 2],
            lhs_ext: [0, 0, 2],
            ..params(1, 2, 1, false, false)
        };
        let mut out = [0.0; 2];
        batch_matmul(&p, &[1., 2., 3., 4.], &[1., 10.], &mut out);
        assert_eq!(out, [21., 43.]);
    }

    #[test]
    fn int8_offsets_and_clamp() {
        // lhs (zp 1) [3, 5] → (2, 4); rhs (zp −2) [[1], [0]] → (3, 2): 6 + 8 = 14 · 0.5 = 7,
        // + out zp 120 = 127; a multiplier of 1.0 would give 134 → clamped to 127.
        let (mult, shift) = crate::fixedpoint::quantize_multiplier(0.5);
        let q = RequantParams {
            input_offset: -1,
            output_offset: 120,
            act_min: -128,
            act_max: 127,
            multipliers: vec![mult],
            shifts: vec![shift],
            real_multipliers: vec![0.5],
            xnnpack: None,
        };
        let mut out = [0i8; 1];
        batch_matmul_int::<i8, i32>(
            &params(1, 2, 1, false, false),
            &q,
            2,
            &[3, 5],
            &[1, 0],
            &mut out,
        );
        assert_eq!(out, [127]);
        let q = RequantParams {
            output_offset: 100,
            ..q
        };
        batch_matmul_int::<i8, i32>(
            &params(1, 2, 1, false, false),
            &q,
            2,
            &[3, 5],
            &[1, 0],
            &mut out,
        );
        assert_eq!(out, [107]);
    }

    #[test]
    fn hybrid_subtracts_zero_point_times_column_sum() {
        // One row q = (10, 20), zp 5, scale 0.5 (already times the RHS scale); RHS (2 × 1)
        // (1, 2), column sum 3: acc 50 − 3 · 5 = 35 → 17.5.
        let p = params(1, 2, 1, false, false);
        let q = QuantizedBatches {
            values: vec![10, 20],
            scales: vec![0.5],
            offsets: vec![5],
        };
        let mut sums = [0i32; 1];
        rhs_column_sums(&p, &[1, 2], 1, &mut sums);
        assert_eq!(sums, [3]);
        let mut out = [0.0f32; 1];
        batch_matmul_hybrid(&p, &q, &[1, 2], &sums, &mut out);
        assert_eq!(out, [17.5]);
    }

    #[test]
    fn hybrid_slots_step_by_one_matrix_per_batch_dimension() {
        // Batches [1, 2, 3] on both sides: LiteRT's row index is (b1 + b2) · m, not
        // (b1 · 3 + b2) · m.
        let p = BatchMatMulParams {
            batch: [1, 2, 3],
            lhs_ext: [0, 3 * 4 * 5, 4 * 5],
            rhs_ext: [0, 3 * 5 * 6, 5 * 6],
            ..params(4, 5, 6, false, false)
        };
        assert_eq!(p.hybrid_slots([0, 1, 2]), (3 * 4, 3 * 6));
        // A broadcast LHS keeps row 0.
        let p = BatchMatMulParams {
            lhs_ext: [0; 3],
            ..p
        };
        assert_eq!(p.hybrid_slots([0, 1, 2]), (0, 3 * 6));
    }
}
