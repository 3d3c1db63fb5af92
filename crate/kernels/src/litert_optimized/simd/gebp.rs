//! CONV_2D and FULLY_CONNECTED as [`conv::conv2d`](super::super::conv::conv2d) and
//! [`fully_connected::fully_connected`](super::super::fully_connected::fully_connected) compute
//! them (Eigen's `gebp_kernel` and row-major GEMV orders), four output channels per vector.
//!
//! The filter (weights) matrix is packed once, at prepare time, as groups of four rows
//! (`[group][k]` vectors, zero-padded past the last row). Per group the sum order is the one
//! [`eigen::gebp_dot`] uses for the group's [`GebpRow`] kind, or the sequential one for the
//! columns (pixels, batch rows) after the last whole 4-column panel; the GEMV of a single batch
//! row keeps eight packet accumulators per lane as [`eigen::gemv_row_dot`] does.

use super::super::caches::CacheSizes;
use super::super::contraction::{Block, Plan};
use super::super::eigen::{self, GebpRow};
use super::{act_bounds, clamp, pad_bias, store_f32};
use crate::PackedKernel;
use crate::reference::conv::ConvParams;
use crate::reference::fully_connected::FullyConnectedParams;
use crate::simd128::v128::V128;

/// The left matrix of a product (`rows × depth`, row-major) packed four rows per vector.
#[derive(Debug, Clone)]
struct PackedRows {
    rows: usize,
    depth: usize,
    /// `[group][k]`: lane `l` of vector `(g, k)` is `a[4g + l, k]` (0 past the last row).
    data: Vec<[f32; 4]>,
}

impl PackedRows {
    fn new(a: &[f32], rows: usize, depth: usize) -> Option<Self> {
        if a.len() != rows.checked_mul(depth)? {
            return None;
        }
        let mut data = vec![[0f32; 4]; rows.div_ceil(4).checked_mul(depth)?];
        for r in 0..rows {
            for k in 0..depth {
                data[(r / 4) * depth + k][r % 4] = a[r * depth + k];
            }
        }
        Some(PackedRows { rows, depth, data })
    }

    fn groups(&self) -> usize {
        self.rows.div_ceil(4)
    }

    fn group(&self, g: usize) -> &[[f32; 4]] {
        &self.data[g * self.depth..(g + 1) * self.depth]
    }
}

#[inline(always)]
fn mul_add(acc: V128, x: f32, w: &[f32; 4]) -> V128 {
    acc.f32x4_add(V128::splat_f32(x).f32x4_mul(V128::load_f32(w)))
}

/// Four consecutive `k` of each column, one vector per column (`k` past the end: 0).
#[inline(always)]
fn load4(cols: [&[f32]; 4], k: usize) -> Option<[V128; 4]> {
    let [c0, c1, c2, c3] = cols;
    Some([
        V128::load_f32(c0.get(k..)?.first_chunk::<4>()?),
        V128::load_f32(c1.get(k..)?.first_chunk::<4>()?),
        V128::load_f32(c2.get(k..)?.first_chunk::<4>()?),
        V128::load_f32(c3.get(k..)?.first_chunk::<4>()?),
    ])
}

/// Lane `L` of each of four vectors, splatted.
#[inline(always)]
fn lanes<const L: usize>(x: &[V128; 4]) -> [V128; 4] {
    [
        x[0].splat_lane_i32::<L>(),
        x[1].splat_lane_i32::<L>(),
        x[2].splat_lane_i32::<L>(),
        x[3].splat_lane_i32::<L>(),
    ]
}

/// One `k` of [`seq2`]: `a[i] += x[i]·wa`, `b[i] += x[i]·wb`.
#[inline(always)]
fn step2(a: &mut [V128; 4], b: &mut [V128; 4], x: [V128; 4], wa: &[f32; 4], wb: &[f32; 4]) {
    let (va, vb) = (V128::load_f32(wa), V128::load_f32(wb));
    for i in 0..4 {
        a[i] = a[i].f32x4_add(x[i].f32x4_mul(va));
        b[i] = b[i].f32x4_add(x[i].f32x4_mul(vb));
    }
}

/// One `k` of [`seq1`].
#[inline(always)]
fn step1(a: &mut [V128; 4], x: [V128; 4], w: &[f32; 4]) {
    let v = V128::load_f32(w);
    for i in 0..4 {
        a[i] = a[i].f32x4_add(x[i].f32x4_mul(v));
    }
}

/// Sequential sums (`c = 0; c += a_k·b_k` for `k` in order) of two groups against four columns.
/// The columns' values are loaded four `k` at a time and splatted lane by lane (a shuffle each,
/// instead of a scalar load and a splat); `k` still runs in order.
#[inline(always)]
fn seq2(wa: &[[f32; 4]], wb: &[[f32; 4]], cols: [&[f32]; 4]) -> ([V128; 4], [V128; 4]) {
    let mut a = [V128::splat_f32(0.0); 4];
    let mut b = [V128::splat_f32(0.0); 4];
    let depth = wa.len().min(wb.len());
    let quads = depth / 4 * 4;
    for k in (0..quads).step_by(4) {
        let (Some(x), Some(wa4), Some(wb4)) = (
            load4(cols, k),
            wa[k..].first_chunk::<4>(),
            wb[k..].first_chunk::<4>(),
        ) else {
            break;
        };
        step2(&mut a, &mut b, lanes::<0>(&x), &wa4[0], &wb4[0]);
        step2(&mut a, &mut b, lanes::<1>(&x), &wa4[1], &wb4[1]);
        step2(&mut a, &mut b, lanes::<2>(&x), &wa4[2], &wb4[2]);
        step2(&mut a, &mut b, lanes::<3>(&x), &wa4[3], &wb4[3]);
    }
    for k in quads..depth {
        let x = cols.map(|c| V128::splat_f32(c[k]));
        step2(&mut a, &mut b, x, &wa[k], &wb[k]);
    }
    (a, b)
}

/// Sequential sums of one group against four columns (as [`seq2`]).
#[inline(always)]
fn seq1(w: &[[f32; 4]], cols: [&[f32]; 4]) -> [V128; 4] {
    let mut a = [V128::splat_f32(0.0); 4];
    let depth = w.len();
    let quads = depth / 4 * 4;
    for k in (0..quads).step_by(4) {
        let (Some(x), Some(w4)) = (load4(cols, k), w[k..].first_chunk::<4>()) else {
            break;
        };
        step1(&mut a, lanes::<0>(&x), &w4[0]);
        step1(&mut a, lanes::<1>(&x), &w4[1]);
        step1(&mut a, lanes::<2>(&x), &w4[2]);
        step1(&mut a, lanes::<3>(&x), &w4[3]);
    }
    for k in quads..depth {
        step1(&mut a, cols.map(|c| V128::splat_f32(c[k])), &w[k]);
    }
    a
}

/// [`GebpRow::Single`] in a panel: even and odd `k` below the last multiple of 8 in two
/// accumulators, added, then the remaining `k` in order.
#[inline(always)]
fn even_odd(w: &[[f32; 4]], cols: [&[f32]; 4]) -> [V128; 4] {
    let depth = w.len();
    let peeled = depth / 8 * 8;
    let mut out = [V128::splat_f32(0.0); 4];
    for (o, col) in out.iter_mut().zip(cols) {
        let (mut c, mut d) = (V128::splat_f32(0.0), V128::splat_f32(0.0));
        for k in (0..peeled).step_by(2) {
            c = mul_add(c, col[k], &w[k]);
            d = mul_add(d, col[k + 1], &w[k + 1]);
        }
        c = c.f32x4_add(d);
        for k in peeled..depth {
            c = mul_add(c, col[k], &w[k]);
        }
        *o = c;
    }
    out
}

/// [`GebpRow::Leftover`] in a panel (Eigen's "swapped" 1×4 kernel): pairs of `k` in four
/// even/odd accumulator pairs while whole groups of 8 remain, reduced, then the pairs left, then
/// the last odd `k`.
#[inline(always)]
fn leftover(w: &[[f32; 4]], col: &[f32]) -> V128 {
    let depth = w.len();
    let end4 = depth / 8 * 8;
    let end2 = depth / 2 * 2;
    let mut even = [V128::splat_f32(0.0); 4];
    let mut odd = [V128::splat_f32(0.0); 4];
    for k8 in (0..end4).step_by(8) {
        for q in 0..4 {
            let k = k8 + 2 * q;
            even[q] = mul_add(even[q], col[k], &w[k]);
            odd[q] = mul_add(odd[q], col[k + 1], &w[k + 1]);
        }
    }
    let mut e = even[0]
        .f32x4_add(even[1])
        .f32x4_add(even[2].f32x4_add(even[3]));
    let mut o = odd[0].f32x4_add(odd[1]).f32x4_add(odd[2].f32x4_add(odd[3]));
    for k in (end4..end2).step_by(2) {
        e = mul_add(e, col[k], &w[k]);
        o = mul_add(o, col[k + 1], &w[k + 1]);
    }
    let mut c = e.f32x4_add(o);
    if end2 < depth {
        c = mul_add(c, col[end2], &w[end2]);
    }
    c
}

/// Whether group `g` sums every chunk of `blk` in order (a 16-row panel, a column outside a
/// 4-column panel, or Eigen's GEMV).
fn sequential(plan: &Plan, blk: &Block, g: usize, rows: usize, (j, n): (usize, usize)) -> bool {
    let (row, in_panel) = blk.kind(4 * g, rows, j, n);
    plan.gemv() || row == GebpRow::Pair || !in_panel
}

/// The `k` chunks of a block: `kc` at a time over `k0..k1`.
fn chunks(blk: &Block) -> impl Iterator<Item = (usize, usize)> + '_ {
    (blk.k0..blk.k1)
        .step_by(blk.kc.max(1))
        .map(|k0| (k0, (k0 + blk.kc).min(blk.k1)))
}

/// `acc += 0 + part` lane by lane, as [`Plan::dot`] adds each chunk's `gebp` result.
#[inline(always)]
fn accumulate(acc: &mut [V128; 4], part: &[V128; 4]) {
    let zero = V128::splat_f32(0.0);
    for (a, p) in acc.iter_mut().zip(part) {
        *a = a.f32x4_add(zero.f32x4_add(*p));
    }
}

/// The per-block sums added as [`combine`](super::super::contraction::combine) adds them.
fn combine(sums: &[[V128; 4]]) -> [V128; 4] {
    std::array::from_fn(|i| match sums {
        [b0, b1, b2, b3] => b0[i].f32x4_add(b1[i]).f32x4_add(b2[i].f32x4_add(b3[i])),
        _ => {
            let mut s = sums.first().map_or(V128::splat_f32(0.0), |b| b[i]);
            for b in sums.iter().skip(1) {
                s = s.f32x4_add(b[i]);
            }
            s
        }
    })
}

/// Group `g` against four columns over `k0..k1`, in the order of the group's kind.
fn group_chunk(
    lhs: &PackedRows,
    g: usize,
    cols: [&[f32]; 4],
    (k0, k1): (usize, usize),
    (row, in_panel): (GebpRow, bool),
) -> [V128; 4] {
    let w = &lhs.group(g)[k0..k1];
    let cols = cols.map(|c| &c[k0..k1]);
    match (row, in_panel) {
        (GebpRow::Pair, _) | (_, false) => seq1(w, cols),
        (GebpRow::Single, true) => even_odd(w, cols),
        (GebpRow::Leftover, true) => cols.map(|c| leftover(w, c)),
    }
}

/// The product of every row of `lhs` with `n ≤ 4` columns `cols` (unused ones any slice of the
/// same length), `out[(first + i) · rows + r] = act((0 + Σ) + bias[r])` as the scalar kernels
/// write it, each sum in the order `plan` gives element `(r, first + i)` of a product with
/// `total` columns.
#[allow(clippy::too_many_arguments)]
fn gebp_columns(
    lhs: &PackedRows,
    bias: &[[f32; 4]],
    (min, max): (V128, V128),
    cols: [&[f32]; 4],
    n: usize,
    plan: &Plan,
    (first, total): (usize, usize),
    out: &mut [f32],
) {
    let rows = lhs.rows;
    let groups = lhs.groups();
    let zero = V128::splat_f32(0.0);
    let store = |out: &mut [f32], g: usize, sums: &[V128; 4]| {
        let b = V128::load_f32(&bias[g]);
        let lanes = (rows - 4 * g).min(4);
        for (i, s) in sums.iter().enumerate().take(n) {
            let v = clamp(zero.f32x4_add(*s).f32x4_add(b), min, max);
            store_f32(v, out, (first + i) * rows + 4 * g, lanes);
        }
    };
    let blocks = plan.blocks();
    let at = (first, total);
    let mut g = 0;
    while g < groups {
        let mut sa = [[zero; 4]; 4];
        if g + 1 < groups
            && blocks
                .iter()
                .all(|b| sequential(plan, b, g, rows, at) && sequential(plan, b, g + 1, rows, at))
        {
            // Two groups summed in order share the columns' loads.
            let mut sb = [[zero; 4]; 4];
            for (bi, blk) in blocks.iter().enumerate() {
                for (k0, k1) in chunks(blk) {
                    let cs = cols.map(|c| &c[k0..k1]);
                    let (a, b) = seq2(&lhs.group(g)[k0..k1], &lhs.group(g + 1)[k0..k1], cs);
                    accumulate(&mut sa[bi], &a);
                    accumulate(&mut sb[bi], &b);
                }
            }
            store(out, g, &combine(&sa[..blocks.len()]));
            store(out, g + 1, &combine(&sb[..blocks.len()]));
            g += 2;
            continue;
        }
        for (bi, blk) in blocks.iter().enumerate() {
            let kind = if plan.gemv() {
                (GebpRow::Pair, false)
            } else {
                blk.kind(4 * g, rows, first, total)
            };
            for range in chunks(blk) {
                accumulate(&mut sa[bi], &group_chunk(lhs, g, cols, range, kind));
            }
        }
        store(out, g, &combine(&sa[..blocks.len()]));
        g += 1;
    }
}

/// `dst.copy_from_slice(src)`, with the few-channel copies of an im2col (an RGB input's 3
/// floats per tap) done as plain moves: a `memory.copy` call per tap costs more than the copy.
#[inline(always)]
fn copy_floats(dst: &mut [f32], src: &[f32]) {
    match (dst, src) {
        ([d0], [s0]) => *d0 = *s0,
        ([d0, d1], [s0, s1]) => (*d0, *d1) = (*s0, *s1),
        ([d0, d1, d2], [s0, s1, s2]) => (*d0, *d1, *d2) = (*s0, *s1, *s2),
        ([d0, d1, d2, d3], [s0, s1, s2, s3]) => (*d0, *d1, *d2, *d3) = (*s0, *s1, *s2, *s3),
        (dst, src) => dst.copy_from_slice(src),
    }
}

/// A prepared TF-exact float CONV_2D (not grouped): [`conv::conv2d`](super::super::conv::conv2d)
/// four output channels at a time.
#[derive(Debug, Clone)]
pub struct Conv2dTf {
    p: ConvParams,
    plan: Plan,
    lhs: PackedRows,
    bias: Vec<[f32; 4]>,
}

/// Scratch of [`Conv2dTf`]: four im2col columns.
#[derive(Debug, Clone)]
pub struct Conv2dTfScratch {
    cols: Vec<f32>,
}

impl Conv2dTf {
    /// Packs the filter (`[out_c, filter_h, filter_w, in_c]`) and bias; sums as `plan` says
    /// ([`conv2d_plan`](super::super::conv::conv2d_plan)). `None` when the data does not match
    /// the shapes.
    pub fn new(
        p: &ConvParams,
        plan: Plan,
        filter: &[f32],
        bias: Option<&[f32]>,
    ) -> Option<(Self, Conv2dTfScratch)> {
        let depth = p.filter_h.checked_mul(p.filter_w)?.checked_mul(p.in_c)?;
        if bias.is_some_and(|b| b.len() != p.out_c) {
            return None;
        }
        let lhs = PackedRows::new(filter, p.out_c, depth)?;
        Some((
            Conv2dTf {
                p: *p,
                plan,
                lhs,
                bias: pad_bias(bias, p.out_c),
            },
            Conv2dTfScratch {
                cols: vec![0.0; depth.checked_mul(4)?],
            },
        ))
    }

    /// The im2col column of output pixel `j` (taps in the padding are `0.0`, as in the scalar
    /// kernel).
    fn im2col(&self, input: &[f32], j: usize, column: &mut [f32]) {
        let p = &self.p;
        let out_x = j % p.out_w;
        let out_y = (j / p.out_w) % p.out_h;
        let b = j / (p.out_w * p.out_h);
        let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
        let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
        let c = p.in_c;
        for fy in 0..p.filter_h {
            let in_y = in_y_origin + (p.dilation_h * fy) as isize;
            let y_inside = in_y >= 0 && in_y < p.in_h as isize;
            for fx in 0..p.filter_w {
                let in_x = in_x_origin + (p.dilation_w * fx) as isize;
                let dst = &mut column[(fy * p.filter_w + fx) * c..][..c];
                if y_inside && in_x >= 0 && in_x < p.in_w as isize {
                    let src = ((b * p.in_h + in_y as usize) * p.in_w + in_x as usize) * c;
                    copy_floats(dst, &input[src..src + c]);
                } else if c <= 4 {
                    copy_floats(dst, &[0.0; 4][..c]);
                } else {
                    dst.fill(0.0);
                }
            }
        }
    }
}

impl PackedKernel for Conv2dTf {
    type Elem = f32;
    type Scratch = Conv2dTfScratch;

    /// Runs the convolution over NHWC tensors of the prepared shapes.
    fn run(&self, input: &[f32], output: &mut [f32], s: &mut Conv2dTfScratch) {
        let p = &self.p;
        let depth = self.lhs.depth;
        let pixels = p.batches * p.out_h * p.out_w;
        let bounds = act_bounds(p.act);
        if depth == 0 || p.out_c == 0 {
            // Empty sums: the scalar kernel's `act((0 + 0) + bias)`.
            for pixel in output.chunks_exact_mut(p.out_c.max(1)).take(pixels) {
                for (c, o) in pixel.iter_mut().enumerate() {
                    *o = p.act.apply(0.0 + self.bias[c / 4][c % 4]);
                }
            }
            return;
        }
        // A 1×1 filter whose taps are all inside the image reads its columns in place.
        let direct = p.filter_h == 1
            && p.filter_w == 1
            && p.pad_top == 0
            && p.pad_left == 0
            && (p.out_h - 1) * p.stride_h < p.in_h
            && (p.out_w - 1) * p.stride_w < p.in_w;
        let mut first = 0;
        while first < pixels {
            let n = (pixels - first).min(4);
            // Eigen's 4-column panels end at `pixels / 4 · 4`: a whole quad is one panel.
            if direct {
                let col = |i: usize| {
                    let j = first + i.min(n - 1);
                    let (ox, oy, b) = (
                        j % p.out_w,
                        (j / p.out_w) % p.out_h,
                        j / (p.out_w * p.out_h),
                    );
                    let at = ((b * p.in_h + oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c;
                    &input[at..at + depth]
                };
                let cols = [col(0), col(1), col(2), col(3)];
                gebp_columns(
                    &self.lhs,
                    &self.bias,
                    bounds,
                    cols,
                    n,
                    &self.plan,
                    (first, pixels),
                    output,
                );
                first += n;
                continue;
            }
            for i in 0..4 {
                let col = &mut s.cols[i * depth..(i + 1) * depth];
                if i < n {
                    self.im2col(input, first + i, col);
                } else {
                    col.fill(0.0);
                }
            }
            let (c0, rest) = s.cols.split_at(depth);
            let (c1, rest) = rest.split_at(depth);
            let (c2, c3) = rest.split_at(depth);
            gebp_columns(
                &self.lhs,
                &self.bias,
                bounds,
                [c0, c1, c2, c3],
                n,
                &self.plan,
                (first, pixels),
                output,
            );
            first += n;
        }
    }
}

/// A prepared TF-exact float FULLY_CONNECTED:
/// [`fully_connected::fully_connected`](super::super::fully_connected::fully_connected) four
/// output units at a time (the lazy product of tiny shapes runs the scalar kernel).
#[derive(Debug, Clone)]
pub struct FullyConnectedTf {
    p: FullyConnectedParams,
    /// Eigen's matrix product in `cpu_backend_gemm` ([`Plan::gemm`]).
    plan: Plan,
    weights: Vec<f32>,
    lhs: PackedRows,
    bias: Vec<[f32; 4]>,
    bias_raw: Option<Vec<f32>>,
}

impl FullyConnectedTf {
    /// Packs the weights (`[units, depth]`) and bias, for TF on a CPU with `caches`. `None`
    /// when the data does not match the shapes.
    pub fn new(
        p: &FullyConnectedParams,
        weights: &[f32],
        bias: Option<&[f32]>,
        caches: &CacheSizes,
    ) -> Option<Self> {
        if bias.is_some_and(|b| b.len() != p.out_c) {
            return None;
        }
        Some(FullyConnectedTf {
            p: *p,
            plan: Plan::gemm(p.accum_depth, p.out_c, p.batches, caches),
            weights: weights.to_vec(),
            lhs: PackedRows::new(weights, p.out_c, p.accum_depth)?,
            bias: pad_bias(bias, p.out_c),
            bias_raw: bias.map(<[f32]>::to_vec),
        })
    }

    /// One batch row: Eigen's row-major GEMV ([`eigen::gemv_row_major`]), eight packet
    /// accumulators per unit reduced as `predux`; the unit left after blocks of two rows (odd
    /// `out_c`) also takes the half packet, computed by the scalar kernel.
    fn gemv(&self, x: &[f32], out: &mut [f32], (min, max): (V128, V128)) {
        let p = &self.p;
        let cols = x.len();
        let full = cols / 8 * 8;
        let zero = V128::splat_f32(0.0);
        for g in 0..self.lhs.groups() {
            let w = self.lhs.group(g);
            let mut c = [zero; 8];
            for j in (0..full).step_by(8) {
                for (l, c) in c.iter_mut().enumerate() {
                    *c = mul_add(*c, x[j + l], &w[j + l]);
                }
            }
            // predux(Packet8f): halves added lane by lane, then (0 + 2) + (1 + 3).
            let h = [0, 1, 2, 3].map(|l| c[l].f32x4_add(c[l + 4]));
            let mut cc = h[0].f32x4_add(h[2]).f32x4_add(h[1].f32x4_add(h[3]));
            for j in full..cols {
                cc = mul_add(cc, x[j], &w[j]);
            }
            let mut sums = zero.f32x4_add(cc).to_f32();
            let blocked = p.out_c / 2 * 2;
            for (l, s) in sums.iter_mut().enumerate() {
                let r = 4 * g + l;
                if r >= blocked && r < p.out_c {
                    let row = &self.weights[r * cols..(r + 1) * cols];
                    *s = 0.0 + eigen::gemv_row_dot(row, x, true);
                }
            }
            let v = V128::load_f32(&sums).f32x4_add(V128::load_f32(&self.bias[g]));
            store_f32(clamp(v, min, max), out, 4 * g, (p.out_c - 4 * g).min(4));
        }
    }
}

impl PackedKernel for FullyConnectedTf {
    type Elem = f32;
    type Scratch = ();

    /// Runs the layer over the prepared number of rows.
    fn run(&self, input: &[f32], output: &mut [f32], _: &mut ()) {
        let p = &self.p;
        let d = p.accum_depth;
        let lazy = d + p.out_c + p.batches < 20;
        if lazy || p.out_c == 1 || d == 0 {
            super::super::fully_connected::fully_connected(
                p,
                &self.plan,
                input,
                &self.weights,
                self.bias_raw.as_deref(),
                output,
            );
            return;
        }
        let bounds = act_bounds(p.act);
        if p.batches == 1 {
            self.gemv(&input[..d], &mut output[..p.out_c], bounds);
            return;
        }
        let mut first = 0;
        while first < p.batches {
            let n = (p.batches - first).min(4);
            let col = |i: usize| &input[(first + i.min(n - 1)) * d..][..d];
            gebp_columns(
                &self.lhs,
                &self.bias,
                bounds,
                [col(0), col(1), col(2), col(3)],
                n,
                &self.plan,
                (first, p.batches),
                output,
            );
            first += n;
        }
    }
}
