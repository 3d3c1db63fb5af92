//! The arithmetic of Eigen's float products as LiteRT's `cpu_backend_gemm` (Eigen backend) runs
//! them on x86-64 with AVX and no FMA: 8-lane packets (`Packet8f`), 4-lane half packets
//! (`Packet4f`), `pmadd(a, b, c) = c + a·b` rounded twice, and the horizontal sums `predux`.

/// `predux(Packet4f)`: `(a0 + a2) + (a1 + a3)` (SSE: add the high half onto the low half, then
/// lane 1 onto lane 0).
#[inline(always)]
pub fn predux4(a: [f32; 4]) -> f32 {
    (a[0] + a[2]) + (a[1] + a[3])
}

/// `predux(Packet8f)`: the two 128-bit halves added lane by lane, then [`predux4`].
#[inline(always)]
pub fn predux8(a: [f32; 8]) -> f32 {
    predux4([a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]])
}

/// One row of Eigen's row-major matrix × vector product (`general_matrix_vector_product<…,
/// RowMajor, …>`): the dot product of `row` and `x` as Eigen sums it.
///
/// `single_row` selects the loop for the last rows that do not fill a block of 2 (which also
/// uses a 4-lane half packet after the 8-lane ones); rows inside blocks of 8, 4 or 2 use 8-lane
/// packets, then the scalar tail.
#[inline]
pub fn gemv_row_dot(row: &[f32], x: &[f32], single_row: bool) -> f32 {
    let cols = row.len();
    let full = cols / 8 * 8;
    let mut c = [0.0f32; 8];
    for j in (0..full).step_by(8) {
        for l in 0..8 {
            c[l] += row[j + l] * x[j + l];
        }
    }
    let mut cc = predux8(c);
    let mut j = full;
    if single_row {
        let half = cols / 4 * 4;
        let mut h = [0.0f32; 4];
        while j < half {
            for l in 0..4 {
                h[l] += row[j + l] * x[j + l];
            }
            j += 4;
        }
        cc += predux4(h);
    }
    while j < cols {
        cc += row[j] * x[j];
        j += 1;
    }
    cc
}

/// One row of Eigen's row-major matrix × vector product as code built for SSE only (4-lane
/// `Packet4f`, no half packet) computes it — LiteRT's `lstm_eval.cc` products in the TF 2.21
/// x86-64 wheel: four lane accumulators over the whole 4-element groups (`c[l] += row·x`, each
/// multiply and add rounded), [`predux4`], then the scalar tail in order.
#[inline]
pub fn gemv_row_dot_sse(row: &[f32], x: &[f32]) -> f32 {
    let cols = row.len().min(x.len());
    let full = cols / 4 * 4;
    let mut c = [0.0f32; 4];
    for j in (0..full).step_by(4) {
        for l in 0..4 {
            c[l] += row[j + l] * x[j + l];
        }
    }
    let mut cc = predux4(c);
    for j in full..cols {
        cc += row[j] * x[j];
    }
    cc
}

/// Eigen's row-major matrix × vector product, `out[i] = 0 + Σ_j a[i, j] · x[j]` (`a` is `rows`
/// rows of `x.len()`): rows in blocks of 8, 4, 2 use [`gemv_row_dot`] without the half packet,
/// the remaining row with it; a single row is [`inner_product`]. `res += alpha · cc` with `res = 0` and `alpha = 1` keeps `cc`
/// (except that `-0` becomes `+0`).
pub fn gemv_row_major(a: &[f32], x: &[f32], out: &mut [f32]) {
    let cols = x.len();
    let rows = out.len();
    if rows == 1 {
        // Eigen's GEMV falls back to the inner product when both operands are run-time vectors.
        out[0] = 0.0 + inner_product(&a[..cols], x);
        return;
    }
    // Blocks of 8, then 4, then 2 rows: every row not left over after blocks of 2 is a block row.
    let blocked = rows / 2 * 2;
    for (i, o) in out.iter_mut().enumerate() {
        let row = &a[i * cols..(i + 1) * cols];
        *o = 0.0 + gemv_row_dot(row, x, i >= blocked);
    }
}

/// Eigen's inner product of two run-time vectors (`inner_product_impl`, vectorized): up to four
/// 8-lane accumulators start at the first four product packets; further whole groups of four
/// packets are added lane-wise in turn (`acc_k += a·b`), the 1–3 packets left over go to
/// accumulators 0, 1, 2; then `acc2 += acc3`, `acc1 += acc2`, `acc0 += acc1`, [`predux8`], and
/// the scalar tail in order. Fewer than 8 elements: a left-to-right sum from the first product.
pub fn inner_product(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    if n < 8 {
        let mut res = a.first().zip(b.first()).map_or(0.0, |(x, y)| x * y);
        for j in 1..n {
            res += a[j] * b[j];
        }
        return res;
    }
    let packets = n / 8;
    let quad_end = n / 32 * 32;
    let prod = |j: usize| -> [f32; 8] { std::array::from_fn(|l| a[j + l] * b[j + l]) };
    let madd = |acc: &mut [f32; 8], j: usize| {
        for l in 0..8 {
            acc[l] += a[j + l] * b[j + l];
        }
    };
    let add = |x: &mut [f32; 8], y: [f32; 8]| {
        for l in 0..8 {
            x[l] += y[l];
        }
    };
    let mut acc: [[f32; 8]; 4] = [[0.0; 8]; 4];
    for (k, a) in acc.iter_mut().enumerate().take(packets.min(4)) {
        *a = prod(8 * k);
    }
    if packets >= 4 {
        let mut j = 32;
        while j < quad_end {
            for (k, a) in acc.iter_mut().enumerate() {
                madd(a, j + 8 * k);
            }
            j += 32;
        }
        for (k, a) in acc.iter_mut().enumerate().take(packets - quad_end / 8) {
            madd(a, quad_end + 8 * k);
        }
        let a3 = acc[3];
        add(&mut acc[2], a3);
    }
    if packets >= 3 {
        let a2 = acc[2];
        add(&mut acc[1], a2);
    }
    if packets >= 2 {
        let a1 = acc[1];
        add(&mut acc[0], a1);
    }
    let mut res = predux8(acc[0]);
    for j in packets * 8..n {
        res += a[j] * b[j];
    }
    res
}

/// How Eigen's `gebp_kernel` (AVX, `mr = 16`, `nr = 4`, no FMA) accumulates one element of a
/// `rows × cols` product, by where the element falls in the kernel's row and column partition.
///
/// Rows go in micro panels of 16 (two 8-lane packets), then 8, then 4 (a half packet), then one
/// at a time; columns in panels of 4, then one at a time. Each kind of micro kernel sums `k` in
/// its own order ([`gebp_dot`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GebpRow {
    /// In a 16-row panel: one accumulator per element, `k` in order.
    Pair,
    /// In an 8- or 4-row panel: even and odd `k` (below the last multiple of 8) in two
    /// accumulators, added, then the remaining `k` in order.
    Single,
    /// A leftover row (fewer than 4 remain): in a 4-column panel, `k` runs along the packet
    /// (the "swapped" kernel); in a leftover column, a scalar loop.
    Leftover,
}

impl GebpRow {
    /// The kind of row `i` of a product with `rows` rows.
    pub fn of(i: usize, rows: usize) -> GebpRow {
        let pair_end = rows / 16 * 16;
        let single_end = pair_end + (rows - pair_end) / 8 * 8;
        let half_end = single_end + (rows - single_end) / 4 * 4;
        if i < pair_end {
            GebpRow::Pair
        } else if i < half_end {
            GebpRow::Single
        } else {
            GebpRow::Leftover
        }
    }
}

/// One element of Eigen's general matrix product (`gebp_kernel`, one block over the whole
/// depth): the dot product of `a` (a row of the left matrix) and `b` (a column of the right one)
/// as the micro kernel for `row` sums it; `in_panel` says whether the column is in a 4-column
/// panel (`j < cols / 4 * 4`). The result is what the kernel adds to the zeroed destination.
pub fn gebp_dot(a: &[f32], b: &[f32], row: GebpRow, in_panel: bool) -> f32 {
    let depth = a.len().min(b.len());
    let seq = || {
        let mut c = 0.0f32;
        for k in 0..depth {
            c += a[k] * b[k];
        }
        c
    };
    match (row, in_panel) {
        (GebpRow::Pair, _) | (_, false) => 0.0 + seq(),
        (GebpRow::Single, true) => {
            let peeled = depth / 8 * 8;
            let (mut c, mut d) = (0.0f32, 0.0f32);
            for k in (0..peeled).step_by(2) {
                c += a[k] * b[k];
                d += a[k + 1] * b[k + 1];
            }
            c += d;
            for k in peeled..depth {
                c += a[k] * b[k];
            }
            0.0 + c
        }
        (GebpRow::Leftover, true) => {
            // Pairs of k: chunk c = (2c, 2c + 1) goes to accumulator c % 4 while whole groups of
            // four chunks remain, then to accumulator 0; even and odd k stay in separate lanes.
            let end4 = depth / 8 * 8;
            let end2 = depth / 2 * 2;
            let mut even = [0.0f32; 4];
            let mut odd = [0.0f32; 4];
            for k in (0..end4).step_by(2) {
                let q = (k / 2) % 4;
                even[q] += a[k] * b[k];
                odd[q] += a[k + 1] * b[k + 1];
            }
            let mut e = (even[0] + even[1]) + (even[2] + even[3]);
            let mut o = (odd[0] + odd[1]) + (odd[2] + odd[3]);
            for k in (end4..end2).step_by(2) {
                e += a[k] * b[k];
                o += a[k + 1] * b[k + 1];
            }
            let mut c = e + o;
            if end2 < depth {
                c += a[end2] * b[end2];
            }
            0.0 + c
        }
    }
}

/// Element `(i, j)` of `dst = lhs · rhs` as `cpu_backend_gemm`'s Eigen backend
/// (`GemmImplUsingEigen`) computes it: `a` is row `i` of the row-major `rows × depth` left
/// matrix, `b` column `j` of the column-major `depth × cols` right one. One column is Eigen's
/// matrix × vector product ([`gemv_row_dot`]; one row too: [`inner_product`]); a product with
/// `depth + rows + cols < 20` is the coefficient-based lazy product (each element summed in
/// order from its first product); anything larger the general product ([`gebp_dot`]).
pub fn gemm_element(a: &[f32], b: &[f32], i: usize, rows: usize, j: usize, cols: usize) -> f32 {
    let depth = a.len().min(b.len());
    if cols == 1 {
        if rows == 1 {
            0.0 + inner_product(a, b)
        } else {
            0.0 + gemv_row_dot(a, b, i >= rows / 2 * 2)
        }
    } else if depth + rows + cols < 20 {
        let mut s = a.first().zip(b.first()).map_or(0.0, |(x, y)| x * y);
        for k in 1..depth {
            s += a[k] * b[k];
        }
        s
    } else {
        gebp_dot(a, b, GebpRow::of(i, rows), j < cols / 4 * 4)
    }
}

/// Elements from float offset `offset` of a tensor to the next 32-byte boundary: TFLite's arena
/// aligns every tensor to 64 bytes, so that is `(8 − offset mod 8) mod 8`.
pub fn head_to_alignment(offset: usize) -> usize {
    (8 - offset % 8) % 8
}

/// Eigen's vectorized sum of `v` (`redux`, linear vectorized traversal, AVX), where `v` starts
/// `head` elements before a 32-byte boundary ([`head_to_alignment`]): the `head` elements are
/// skipped first; with at least 8 elements after them, two 8-lane accumulators take alternate
/// packets (one when fewer than 16), are added, take the odd packet left over, and are reduced
/// ([`predux8`]); then the head elements and the tail after the last whole packet are added one
/// by one. Fewer than 8 elements after the head: a plain left-to-right sum.
pub fn aligned_sum(v: &[f32], head: usize) -> f32 {
    let n = v.len();
    let a = head.min(n);
    if n - a < 8 {
        return v
            .iter()
            .skip(1)
            .fold(v.first().copied().unwrap_or(0.0), |s, &x| s + x);
    }
    let whole = (n - a) / 8 * 8;
    let pairs = (n - a) / 16 * 16;
    let packet = |i: usize| -> [f32; 8] { std::array::from_fn(|l| v[a + i + l]) };
    let mut p0 = packet(0);
    if pairs > 0 {
        let mut p1 = packet(8);
        for i in (16..pairs).step_by(16) {
            let (q0, q1) = (packet(i), packet(i + 8));
            for l in 0..8 {
                p0[l] += q0[l];
                p1[l] += q1[l];
            }
        }
        for l in 0..8 {
            p0[l] += p1[l];
        }
        if whole > pairs {
            let q = packet(pairs);
            for l in 0..8 {
                p0[l] += q[l];
            }
        }
    }
    let mut s = predux8(p0);
    for &x in &v[..a] {
        s += x;
    }
    for &x in &v[a + whole..] {
        s += x;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predux_order() {
        // 1e8 + 1 - 1e8: the order decides whether the 1 survives.
        assert_eq!(predux4([1e8, 1.0, -1e8, 0.0]), 1.0);
        assert_eq!(predux8([1e8, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]), 1e8);
    }
}
