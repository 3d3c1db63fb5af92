//! Data movement without arithmetic: DEPTH_TO_SPACE, SPACE_TO_DEPTH, TILE, BROADCAST_TO,
//! MIRROR_PAD, REVERSE_V2, BATCH_TO_SPACE_ND (one "per-axis offset table" kernel,
//! [`axis_gather`]), SPACE_TO_BATCH_ND ([`space_to_batch`], which pads) and GATHER / GATHER_ND
//! (index tensors read at run time). Every output element is a copy of one input
//! element, so float, int8 and int16 results are bit-identical to LiteRT's reference kernels
//! (`depth_to_space.cc`, `space_to_depth.cc`, `tile.cc`, `broadcast_to.cc`, `mirror_pad.cc`,
//! `reverse.cc`, `space_to_batch_nd.cc`, `batch_to_space_nd.cc`, `gather.cc`, `gather_nd.cc`) whatever order the copies are made in; no rounding.

use super::{MAX_RANK, next_index};

/// An output whose every axis maps on its own to an input offset: output element
/// `(i_0, …, i_{r-1})` is input element `Σ_k table_k[i_k mod period_k]` (flat, in elements).
/// Covers the ops that rearrange axes (DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND), repeat
/// them (TILE, BROADCAST_TO: the period is the input dim) or mirror them (MIRROR_PAD,
/// REVERSE_V2). The tables hold at most a few times the input's dims, never the repeated output
/// (every constructor checks this before allocating), so a hostile multiple cannot make prepare
/// allocate beyond the input's size; the engine then checks the output against its tensor limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisMap {
    out_dims: Vec<usize>,
    /// Start of each axis's table in `offsets`.
    starts: Vec<usize>,
    /// Length of each axis's table (the output dim, or the input dim for a repeated axis).
    periods: Vec<usize>,
    /// The per-axis tables, concatenated.
    offsets: Vec<usize>,
}

/// Row-major element strides of `dims`; `None` on overflow.
fn strides(dims: &[usize]) -> Option<Vec<usize>> {
    let mut s = vec![0usize; dims.len()];
    let mut acc = 1usize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc.checked_mul(dims[i])?;
    }
    Some(s)
}

impl AxisMap {
    /// From one table per output axis (the table's length is the output dim). `None` when the
    /// rank exceeds [`MAX_RANK`].
    fn from_tables(tables: Vec<Vec<usize>>) -> Option<Self> {
        let out_dims = tables.iter().map(Vec::len).collect();
        Self::periodic(tables, out_dims)
    }

    /// From one table per output axis, repeated up to `out_dims` (a table may be empty only
    /// when its output dim is 0). `None` when the rank exceeds [`MAX_RANK`] or the output's
    /// element count overflows.
    fn periodic(tables: Vec<Vec<usize>>, out_dims: Vec<usize>) -> Option<Self> {
        if tables.len() > MAX_RANK || tables.len() != out_dims.len() {
            return None;
        }
        out_dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        if tables
            .iter()
            .zip(&out_dims)
            .any(|(t, &d)| t.is_empty() && d > 0)
        {
            return None;
        }
        let mut starts = Vec::with_capacity(tables.len());
        let periods = tables.iter().map(Vec::len).collect();
        let mut offsets = Vec::new();
        for t in tables {
            starts.push(offsets.len());
            offsets.extend(t);
        }
        Some(AxisMap {
            out_dims,
            starts,
            periods,
            offsets,
        })
    }

    /// The output shape.
    pub fn out_dims(&self) -> &[usize] {
        &self.out_dims
    }

    /// The same map without output axis `axis`, which must have size 1 (a rank-3 op run as
    /// rank 4 with a unit width).
    pub fn squeeze_axis(mut self, axis: usize) -> Option<Self> {
        if self.out_dims.get(axis) != Some(&1) {
            return None;
        }
        let start = self.starts[axis];
        // A size-1 axis contributes its single offset to every element: fold it into the next
        // axis's table (or the previous one's when it is the last).
        let extra = self.offsets[start];
        let rank = self.out_dims.len();
        let other = if axis + 1 < rank {
            axis + 1
        } else {
            axis.checked_sub(1)?
        };
        let (a, b) = (self.starts[other], self.starts[other] + self.periods[other]);
        for o in &mut self.offsets[a..b] {
            *o += extra;
        }
        self.offsets.remove(start);
        self.out_dims.remove(axis);
        self.periods.remove(axis);
        self.starts.remove(axis);
        for s in &mut self.starts[axis..] {
            *s -= 1;
        }
        Some(self)
    }

    /// DEPTH_TO_SPACE of an NHWC input `[n, h, w, c]` by `block` (`c` divisible by `block²`):
    /// output `[n, h·b, w·b, c/b²]`, `out[n, y, x, k] = in[n, y/b, x/b, ((y%b)·b + x%b)·c/b² + k]`
    /// (TF's DCR order, as LiteRT's `reference_ops::DepthToSpace`).
    pub fn depth_to_space(in_dims: [usize; 4], block: usize) -> Option<Self> {
        let [n, h, w, c] = in_dims;
        let bb = block.checked_mul(block)?;
        // The tables hold h·b and w·b entries: bounded by the input only when b² <= c.
        if bb == 0 || bb > c {
            return None;
        }
        let oc = c / bb;
        let s = strides(&in_dims)?;
        let tables = vec![
            (0..n).map(|i| i * s[0]).collect(),
            (0..h.checked_mul(block)?)
                .map(|y| (y / block) * s[1] + (y % block) * block * oc)
                .collect(),
            (0..w.checked_mul(block)?)
                .map(|x| (x / block) * s[2] + (x % block) * oc)
                .collect(),
            (0..oc).collect(),
        ];
        Self::from_tables(tables)
    }

    /// SPACE_TO_DEPTH of an NHWC input `[n, h, w, c]` by `block` (`h`, `w` divisible by it):
    /// output `[n, h/b, w/b, c·b²]`, `out[n, y, x, (dy·b + dx)·c + k] = in[n, y·b + dy, x·b + dx, k]`
    /// (LiteRT's `reference_ops::SpaceToDepth`).
    pub fn space_to_depth(in_dims: [usize; 4], block: usize) -> Option<Self> {
        let [n, h, w, c] = in_dims;
        // The depth table holds c·b² entries: bounded by the input only when b <= h, w.
        if block == 0 || block > h || block > w {
            return None;
        }
        let s = strides(&in_dims)?;
        let depth = c.checked_mul(block)?.checked_mul(block)?;
        let tables = vec![
            (0..n).map(|i| i * s[0]).collect(),
            (0..h / block).map(|y| y * block * s[1]).collect(),
            (0..w / block).map(|x| x * block * s[2]).collect(),
            (0..depth)
                .map(|d| {
                    let (dy, dx, k) = (d / (block * c), (d / c) % block, d % c);
                    dy * s[1] + dx * s[2] + k
                })
                .collect(),
        ];
        Self::from_tables(tables)
    }

    /// TILE: output dim `k` is `in_dims[k] · multiples[k]`, `out[i] = in[i mod in_dims]`
    /// (LiteRT's `tile.cc`). BROADCAST_TO is the same with the input's shape right-aligned to
    /// the output's and each size-1 dim repeated ([`AxisMap::broadcast_to`]).
    pub fn tile(in_dims: &[usize], multiples: &[usize]) -> Option<Self> {
        if multiples.len() != in_dims.len() {
            return None;
        }
        let s = strides(in_dims)?;
        let mut tables = Vec::with_capacity(in_dims.len());
        let mut out_dims = Vec::with_capacity(in_dims.len());
        for ((&d, &m), &st) in in_dims.iter().zip(multiples).zip(&s) {
            out_dims.push(d.checked_mul(m)?);
            // One period: the input dim, however large the multiple.
            tables.push((0..d).map(|i| i * st).collect());
        }
        Self::periodic(tables, out_dims)
    }

    /// BROADCAST_TO `out_dims`: the input's shape is right-aligned to `out_dims`; each input dim
    /// must be 1 or equal the output dim (LiteRT's `broadcast_to.cc`). `None` otherwise.
    pub fn broadcast_to(in_dims: &[usize], out_dims: &[usize]) -> Option<Self> {
        let lead = out_dims.len().checked_sub(in_dims.len())?;
        let mut padded = vec![1usize; lead];
        padded.extend_from_slice(in_dims);
        let mut multiples = Vec::with_capacity(out_dims.len());
        for (&i, &o) in padded.iter().zip(out_dims) {
            match i {
                1 => multiples.push(o),
                i if i == o => multiples.push(1),
                _ => return None,
            }
        }
        Self::tile(&padded, &multiples)
    }

    /// MIRROR_PAD by `(before, after)` per axis: REFLECT (`symmetric` false) mirrors around the
    /// edge element, SYMMETRIC repeats it (LiteRT's `mirror_pad.cc`, offset 1 / 0). The caller
    /// checks the paddings are at most `dim - 1` (REFLECT) or `dim` (SYMMETRIC).
    pub fn mirror_pad(in_dims: &[usize], pads: &[(usize, usize)], symmetric: bool) -> Option<Self> {
        if pads.len() != in_dims.len() {
            return None;
        }
        let s = strides(in_dims)?;
        let skip = usize::from(!symmetric);
        let mut tables = Vec::with_capacity(in_dims.len());
        for ((&n, &(before, after)), &st) in in_dims.iter().zip(pads).zip(&s) {
            let limit = if symmetric { n } else { n.saturating_sub(1) };
            if before > limit || after > limit {
                return None;
            }
            let out = n.checked_add(before)?.checked_add(after)?;
            let mut t = Vec::with_capacity(out);
            for i in 0..out {
                let src = if i < before {
                    (before - i - 1).checked_add(skip)?
                } else if i - before < n {
                    i - before
                } else {
                    (n - 1).checked_sub((i - before - n).checked_add(skip)?)?
                };
                if src >= n {
                    return None;
                }
                t.push(src * st);
            }
            tables.push(t);
        }
        Self::from_tables(tables)
    }

    /// REVERSE_V2 along the axes flagged in `reversed` (LiteRT's `reverse.cc`).
    pub fn reverse(in_dims: &[usize], reversed: &[bool]) -> Option<Self> {
        if reversed.len() != in_dims.len() {
            return None;
        }
        let s = strides(in_dims)?;
        let tables = in_dims
            .iter()
            .zip(reversed)
            .zip(&s)
            .map(|((&n, &r), &st)| {
                (0..n)
                    .map(|i| if r { (n - 1 - i) * st } else { i * st })
                    .collect()
            })
            .collect();
        Self::from_tables(tables)
    }
    /// BATCH_TO_SPACE_ND of an NHWC input `[b, h, w, c]` by `block = [bh, bw]` (`b` divisible by
    /// `bh·bw`), cropping `crops = [(top, bottom), (left, right)]`: output
    /// `[b/(bh·bw), h·bh − top − bottom, w·bw − left − right, c]`, `out[n, y, x, k] =
    /// in[((y+top)%bh · bw + (x+left)%bw) · b/(bh·bw) + n, (y+top)/bh, (x+left)/bw, k]` (LiteRT's
    /// `reference_ops::BatchToSpaceND`). `None` when the sizes do not fit.
    pub fn batch_to_space(
        in_dims: [usize; 4],
        block: [usize; 2],
        crops: [(usize, usize); 2],
    ) -> Option<Self> {
        let [b, h, w, c] = in_dims;
        let [bh, bw] = block;
        let blocks = bh.checked_mul(bw)?;
        // The tables hold h·bh and w·bw entries: bounded by the input only when bh·bw <= b.
        if blocks == 0 || blocks > b || !b.is_multiple_of(blocks) {
            return None;
        }
        let ob = b / blocks;
        let oh = h
            .checked_mul(bh)?
            .checked_sub(crops[0].0)?
            .checked_sub(crops[0].1)?;
        let ow = w
            .checked_mul(bw)?
            .checked_sub(crops[1].0)?
            .checked_sub(crops[1].1)?;
        let s = strides(&in_dims)?;
        let tables = vec![
            (0..ob).map(|n| n * s[0]).collect(),
            (0..oh)
                .map(|y| {
                    let y = y + crops[0].0;
                    (y / bh) * s[1] + (y % bh) * bw * ob * s[0]
                })
                .collect(),
            (0..ow)
                .map(|x| {
                    let x = x + crops[1].0;
                    (x / bw) * s[2] + (x % bw) * ob * s[0]
                })
                .collect(),
            (0..c).collect(),
        ];
        Self::from_tables(tables)
    }
}

/// SPACE_TO_BATCH_ND sizes: an NHWC input padded by `pads` (`(before, after)` for height and
/// width) and cut into `block = [bh, bw]` blocks that become batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceToBatchParams {
    in_dims: [usize; 4],
    block: [usize; 2],
    before: [usize; 2],
    out_dims: [usize; 4],
}

impl SpaceToBatchParams {
    /// `None` unless the padded height and width are multiples of the block (and sizes fit).
    pub fn new(in_dims: [usize; 4], block: [usize; 2], pads: [(usize, usize); 2]) -> Option<Self> {
        let [b, h, w, c] = in_dims;
        let [bh, bw] = block;
        let ph = h.checked_add(pads[0].0)?.checked_add(pads[0].1)?;
        let pw = w.checked_add(pads[1].0)?.checked_add(pads[1].1)?;
        if bh == 0 || bw == 0 || !ph.is_multiple_of(bh) || !pw.is_multiple_of(bw) {
            return None;
        }
        let out_dims = [b.checked_mul(bh)?.checked_mul(bw)?, ph / bh, pw / bw, c];
        out_dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        Some(SpaceToBatchParams {
            in_dims,
            block,
            before: [pads[0].0, pads[1].0],
            out_dims,
        })
    }

    /// The output shape `[b·bh·bw, (h + pads)/bh, (w + pads)/bw, c]`.
    pub fn out_dims(&self) -> [usize; 4] {
        self.out_dims
    }
}

/// SPACE_TO_BATCH_ND: `out[(sh·bw + sw)·b + n, y, x, k] = padded[n, y·bh + sh, x·bw + sw, k]`,
/// padding with `pad_value` (LiteRT's `reference_ops::SpaceToBatchND`: the output zero point for
/// quantized tensors, 0 otherwise).
pub fn space_to_batch<T: Copy>(
    p: &SpaceToBatchParams,
    pad_value: T,
    input: &[T],
    output: &mut [T],
) {
    let [b, h, w, c] = p.in_dims;
    let [bh, bw] = p.block;
    let [obatch, oh, ow, _] = p.out_dims;
    let mut dst = 0usize;
    for ob in 0..obatch {
        let n = ob % b;
        let shift = ob / b;
        let (sh, sw) = (shift / bw, shift % bw);
        for y in 0..oh {
            let iy = (y * bh + sh).checked_sub(p.before[0]).filter(|&v| v < h);
            for x in 0..ow {
                let ix = (x * bw + sw).checked_sub(p.before[1]).filter(|&v| v < w);
                let out = &mut output[dst..dst + c];
                match (iy, ix) {
                    (Some(iy), Some(ix)) => {
                        let src = ((n * h + iy) * w + ix) * c;
                        out.copy_from_slice(&input[src..src + c]);
                    }
                    _ => out.fill(pad_value),
                }
                dst += c;
            }
        }
    }
}

/// Copies `input` into `output` through `p`: `output` holds `Π out_dims` elements, `input` at
/// least one past the largest offset.
pub fn axis_gather<T: Copy>(p: &AxisMap, input: &[T], output: &mut [T]) {
    let rank = p.out_dims.len();
    if rank == 0 {
        if let (Some(o), Some(i)) = (output.first_mut(), input.first()) {
            *o = *i;
        }
        return;
    }
    if p.out_dims.contains(&0) {
        return;
    }
    let inner = p.out_dims[rank - 1];
    let start = p.starts[rank - 1];
    let last = &p.offsets[start..start + p.periods[rank - 1]];
    let outer_dims = &p.out_dims[..rank - 1];
    let mut idx = [0usize; MAX_RANK];
    let mut o = 0usize;
    loop {
        let base: usize = (0..rank - 1)
            .map(|k| p.offsets[p.starts[k] + idx[k] % p.periods[k]])
            .sum();
        for (dst, &off) in output[o..o + inner].iter_mut().zip(last.iter().cycle()) {
            *dst = input[base + off];
        }
        o += inner;
        if !next_index(outer_dims, &mut idx[..rank - 1]) {
            break;
        }
    }
}

/// GATHER's sizes: `batch` = product of the first `batch_dims` input dims, `outer` = of the
/// dims between them and `axis`, `axis_size`, `coords` = indices per batch, `inner` = product of
/// the dims after `axis` (LiteRT's `reference_ops::Gather`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatherParams {
    /// Product of the batch dims.
    pub batch: usize,
    /// Product of the dims between the batch dims and the axis.
    pub outer: usize,
    /// Size of the gathered axis.
    pub axis_size: usize,
    /// Number of indices per batch.
    pub coords: usize,
    /// Product of the dims after the axis.
    pub inner: usize,
}

/// GATHER: `out[b, o, i, :] = in[b, o, indices[b, i], :]` in the sizes of `p`. An index
/// outside `[0, axis_size)` (LiteRT fails the invocation) leaves its slice zero; returns
/// whether every index was in range.
pub fn gather<T: Copy + Default, I: Copy + Into<i64>>(
    p: &GatherParams,
    input: &[T],
    indices: &[I],
    output: &mut [T],
) -> bool {
    let mut ok = true;
    let n = p.inner;
    for b in 0..p.batch {
        for o in 0..p.outer {
            let row = b * p.outer + o;
            for i in 0..p.coords {
                let dst = (row * p.coords + i) * n;
                let out = &mut output[dst..dst + n];
                match usize::try_from(indices[b * p.coords + i].into()) {
                    Ok(k) if k < p.axis_size => {
                        let src = (row * p.axis_size + k) * n;
                        out.copy_from_slice(&input[src..src + n]);
                    }
                    _ => {
                        ok = false;
                        out.fill(T::default());
                    }
                }
            }
        }
    }
    ok
}

/// GATHER_ND's sizes: the input's leading `depth` dims are indexed (element strides `strides`
/// in units of slices), each of the `count` index tuples selects one slice of `slice`
/// elements (LiteRT's `reference_ops::GatherNd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatherNdParams {
    /// Number of index tuples (product of the indices' dims but the last).
    pub count: usize,
    /// The indexed input dims (the indices' last dim many).
    pub dims: Vec<usize>,
    /// Elements per selected slice (product of the remaining input dims).
    pub slice: usize,
}

/// GATHER_ND: `out[j, :] = in[indices[j, 0], …, indices[j, depth-1], :]`. A tuple with an index
/// out of range (LiteRT fails the invocation) leaves its slice zero; returns whether every
/// tuple was in range.
pub fn gather_nd<T: Copy + Default, I: Copy + Into<i64>>(
    p: &GatherNdParams,
    input: &[T],
    indices: &[I],
    output: &mut [T],
) -> bool {
    let depth = p.dims.len();
    let mut ok = true;
    for j in 0..p.count {
        let mut flat = 0usize;
        let mut valid = true;
        for (k, &d) in p.dims.iter().enumerate() {
            match usize::try_from(indices[j * depth + k].into()) {
                Ok(v) if v < d => flat = flat * d + v,
                _ => valid = false,
            }
        }
        let out = &mut output[j * p.slice..(j + 1) * p.slice];
        if valid {
            out.copy_from_slice(&input[flat * p.slice..(flat + 1) * p.slice]);
        } else {
            ok = false;
            out.fill(T::default());
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(p: &AxisMap, input: &[i32]) -> Vec<i32> {
        let mut out = vec![0; p.out_dims().iter().product()];
        axis_gather(p, input, &mut out);
        out
    }

    #[test]
    fn depth_to_space_and_back() {
        // [1, 1, 2, 4] block 2 -> [1, 2, 4, 1].
        let p = AxisMap::depth_to_space([1, 1, 2, 4], 2).expect("d2s");
        assert_eq!(p.out_dims(), &[1, 2, 4, 1]);
        let x: Vec<i32> = (0..8).collect();
        let y = run(&p, &x);
        assert_eq!(y, [0, 1, 4, 5, 2, 3, 6, 7]);
        let q = AxisMap::space_to_depth([1, 2, 4, 1], 2).expect("s2d");
        assert_eq!(q.out_dims(), &[1, 1, 2, 4]);
        assert_eq!(run(&q, &y), x);
    }

    #[test]
    fn tile_broadcast_mirror_reverse() {
        let t = AxisMap::tile(&[2, 1], &[2, 3]).expect("tile");
        // Huge multiples: tables of one period only (the output size is the engine's to refuse).
        let huge = AxisMap::tile(&[0, 1], &[1, usize::MAX]).expect("empty tile");
        assert_eq!(huge.out_dims(), &[0, usize::MAX]);
        assert!(AxisMap::depth_to_space([1, 1, 1, 0], 1 << 20).is_none());
        assert!(AxisMap::space_to_depth([1, 0, 0, 1], 1 << 20).is_none());
        assert!(AxisMap::batch_to_space([0, 1, 1, 1], [1 << 20, 1], [(0, 0); 2]).is_none());
        assert!(AxisMap::mirror_pad(&[2], &[(usize::MAX, 0)], true).is_none());
        assert_eq!(run(&t, &[1, 2]), [1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2]);
        let b = AxisMap::broadcast_to(&[2], &[2, 2]).expect("bcast");
        assert_eq!(run(&b, &[5, 6]), [5, 6, 5, 6]);
        assert!(AxisMap::broadcast_to(&[3], &[2, 2]).is_none());
        let r = AxisMap::mirror_pad(&[3], &[(2, 2)], false).expect("reflect");
        assert_eq!(run(&r, &[1, 2, 3]), [3, 2, 1, 2, 3, 2, 1]);
        let s = AxisMap::mirror_pad(&[3], &[(3, 1)], true).expect("symmetric");
        assert_eq!(run(&s, &[1, 2, 3]), [3, 2, 1, 1, 2, 3, 3]);
        assert!(AxisMap::mirror_pad(&[3], &[(3, 0)], false).is_none());
        let v = AxisMap::reverse(&[2, 2], &[true, false]).expect("reverse");
        assert_eq!(run(&v, &[1, 2, 3, 4]), [3, 4, 1, 2]);
    }

    #[test]
    fn space_to_batch_and_back() {
        // [1, 2, 3, 1] padded by one column on the left -> [1, 2, 4, 1] -> block [1, 2] -> [2, 2, 2, 1].
        let p = SpaceToBatchParams::new([1, 2, 3, 1], [1, 2], [(0, 0), (1, 0)]).expect("s2b");
        assert_eq!(p.out_dims(), [2, 2, 2, 1]);
        let mut out = [0; 8];
        space_to_batch(&p, -1, &[1, 2, 3, 4, 5, 6], &mut out);
        assert_eq!(out, [-1, 2, -1, 5, 1, 3, 4, 6]);
        let q = AxisMap::batch_to_space([2, 2, 2, 1], [1, 2], [(0, 0), (1, 0)]).expect("b2s");
        assert_eq!(q.out_dims(), &[1, 2, 3, 1]);
        assert_eq!(run(&q, &out), [1, 2, 3, 4, 5, 6]);
        assert!(SpaceToBatchParams::new([1, 2, 3, 1], [1, 2], [(0, 0), (0, 0)]).is_none());
        assert!(AxisMap::batch_to_space([3, 2, 2, 1], [1, 2], [(0, 0), (0, 0)]).is_none());
    }

    #[test]
    fn gathers_with_bad_indices_zero_fill() {
        let p = GatherParams {
            batch: 1,
            outer: 2,
            axis_size: 3,
            coords: 2,
            inner: 1,
        };
        let mut out = [9; 4];
        assert!(gather(&p, &[1, 2, 3, 4, 5, 6], &[2i32, 0], &mut out));
        assert_eq!(out, [3, 1, 6, 4]);
        assert!(!gather(&p, &[1, 2, 3, 4, 5, 6], &[3i64, -1], &mut out));
        assert_eq!(out, [0; 4]);
        let q = GatherNdParams {
            count: 2,
            dims: vec![2, 2],
            slice: 1,
        };
        let mut out = [9; 2];
        assert!(gather_nd(&q, &[1, 2, 3, 4], &[1i32, 0, 0, 1], &mut out));
        assert_eq!(out, [3, 2]);
    }

    /// A small xorshift generator for the shape fuzz tests.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Row-major multi-index of flat position `i` in `dims`.
    fn unflatten(mut i: usize, dims: &[usize]) -> Vec<usize> {
        let mut idx = vec![0; dims.len()];
        for k in (0..dims.len()).rev() {
            idx[k] = i % dims[k];
            i /= dims[k];
        }
        idx
    }

    fn flatten(idx: &[usize], dims: &[usize]) -> usize {
        idx.iter().zip(dims).fold(0, |a, (&i, &d)| a * d + i)
    }

    #[test]
    fn fuzzed_shapes_match_per_element_definitions() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200 {
            // DEPTH_TO_SPACE against its definition, SPACE_TO_DEPTH undoes it.
            let b = 1 + rng.below(3);
            let d = [
                1 + rng.below(2),
                1 + rng.below(4),
                1 + rng.below(4),
                (1 + rng.below(3)) * b * b,
            ];
            let x: Vec<i32> = (0..d.iter().product::<usize>() as i32).collect();
            let p = AxisMap::depth_to_space(d, b).expect("d2s");
            let y = run(&p, &x);
            let oc = d[3] / (b * b);
            for (i, &v) in y.iter().enumerate() {
                let [n, yy, xx, k] = unflatten(i, p.out_dims())[..] else {
                    unreachable!()
                };
                let src = [n, yy / b, xx / b, ((yy % b) * b + xx % b) * oc + k];
                assert_eq!(v, x[flatten(&src, &d)]);
            }
            let od: [usize; 4] = p.out_dims().try_into().expect("rank 4");
            assert_eq!(run(&AxisMap::space_to_depth(od, b).expect("s2d"), &y), x);

            // TILE and MIRROR_PAD against their definitions, rank 1 to 4.
            let rank = 1 + rng.below(4);
            let dims: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4)).collect();
            let x: Vec<i32> = (0..dims.iter().product::<usize>() as i32).collect();
            let mult: Vec<usize> = (0..rank).map(|_| rng.below(4)).collect();
            let t = AxisMap::tile(&dims, &mult).expect("tile");
            for (i, &v) in run(&t, &x).iter().enumerate() {
                let idx: Vec<usize> = unflatten(i, t.out_dims())
                    .iter()
                    .zip(&dims)
                    .map(|(&i, &d)| i % d)
                    .collect();
                assert_eq!(v, x[flatten(&idx, &dims)]);
            }
            let symmetric = rng.below(2) == 1;
            let limit = |n: usize| if symmetric { n } else { n - 1 };
            let pads: Vec<(usize, usize)> = dims
                .iter()
                .map(|&n| (rng.below(limit(n) + 1), rng.below(limit(n) + 1)))
                .collect();
            let m = AxisMap::mirror_pad(&dims, &pads, symmetric).expect("mirror pad");
            for (i, &v) in run(&m, &x).iter().enumerate() {
                let idx: Vec<usize> = unflatten(i, m.out_dims())
                    .iter()
                    .zip(&dims)
                    .zip(&pads)
                    .map(|((&i, &n), &(before, _))| {
                        let j = i as isize - before as isize;
                        let n = n as isize;
                        let e = isize::from(symmetric);
                        let src = if j < 0 {
                            -j - e
                        } else if j >= n {
                            2 * n - 2 + e - j
                        } else {
                            j
                        };
                        src as usize
                    })
                    .collect();
                assert_eq!(v, x[flatten(&idx, &dims)]);
            }

            // SPACE_TO_BATCH_ND then BATCH_TO_SPACE_ND with crops = paddings is the identity.
            let blk = [1 + rng.below(3), 1 + rng.below(3)];
            let (h, w) = (1 + rng.below(5), 1 + rng.below(5));
            let ph = rng.below(blk[0]);
            let pw = rng.below(blk[1]);
            let pads = [
                (ph, (blk[0] - (h + ph) % blk[0]) % blk[0]),
                (pw, (blk[1] - (w + pw) % blk[1]) % blk[1]),
            ];
            let d = [1 + rng.below(2), h, w, 1 + rng.below(2)];
            let x: Vec<i32> = (0..d.iter().product::<usize>() as i32).collect();
            let sp = SpaceToBatchParams::new(d, blk, pads).expect("s2b");
            let mut y = vec![0; sp.out_dims().iter().product()];
            space_to_batch(&sp, -1, &x, &mut y);
            assert_eq!(y.iter().filter(|&&v| v >= 0).count(), x.len());
            let back = AxisMap::batch_to_space(sp.out_dims(), blk, pads).expect("b2s");
            assert_eq!(back.out_dims(), &d);
            assert_eq!(run(&back, &y), x);
        }
    }
}
