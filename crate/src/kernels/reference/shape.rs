//! Data movement: TRANSPOSE, CONCATENATION, PAD/PADV2, STRIDED_SLICE/SLICE (and the plain copy
//! behind RESHAPE/SQUEEZE). Generic over the element type so the int8 engine reuses them.

use super::{MAX_RANK, next_index};

/// Row-major element strides of `dims`.
fn strides_of(dims: &[usize]) -> [usize; MAX_RANK] {
    let mut s = [0usize; MAX_RANK];
    let mut acc = 1usize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(dims[i]);
    }
    s
}

/// Visits every index of `dims` in row-major order with `f(out_flat, index)`.
fn walk(dims: &[usize], mut f: impl FnMut(usize, &[usize])) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = [0usize; MAX_RANK];
    let rank = dims.len();
    let mut o = 0usize;
    loop {
        f(o, &idx[..rank]);
        o += 1;
        if !next_index(dims, &mut idx[..rank]) {
            break;
        }
    }
}

/// TRANSPOSE parameters: output dim `k` is input dim `perm[k]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransposeParams {
    rank: usize,
    out_dims: [usize; MAX_RANK],
    /// Input stride of each output dim.
    in_strides: [usize; MAX_RANK],
}

impl TransposeParams {
    /// `None` unless `perm` is a permutation of `0..in_dims.len()` with rank ≤ [`MAX_RANK`].
    pub fn new(in_dims: &[usize], perm: &[usize]) -> Option<Self> {
        let rank = in_dims.len();
        if rank > MAX_RANK || perm.len() != rank {
            return None;
        }
        let mut seen = [false; MAX_RANK];
        for &p in perm {
            if p >= rank || seen[p] {
                return None;
            }
            seen[p] = true;
        }
        let s = strides_of(in_dims);
        let mut out_dims = [1usize; MAX_RANK];
        let mut in_strides = [0usize; MAX_RANK];
        for k in 0..rank {
            out_dims[k] = in_dims[perm[k]];
            in_strides[k] = s[perm[k]];
        }
        Some(Self {
            rank,
            out_dims,
            in_strides,
        })
    }

    /// The output shape.
    pub fn out_dims(&self) -> &[usize] {
        &self.out_dims[..self.rank]
    }
}

/// TRANSPOSE. Mirrors LiteRT `reference_ops::Transpose`: each output element, in row-major order,
/// reads the input element at the permuted index.
pub fn transpose<T: Copy>(p: &TransposeParams, input: &[T], output: &mut [T]) {
    walk(p.out_dims(), |o, idx| {
        let mut i = 0;
        for (k, &x) in idx.iter().enumerate() {
            i += x * p.in_strides[k];
        }
        output[o] = input[i];
    });
}

/// One input's share of a CONCATENATION. Mirrors LiteRT `reference_ops::Concatenation`: the
/// tensors are viewed as `[outer, inner]` around the axis; this input's rows of `in_inner`
/// elements go to columns `out_offset..out_offset + in_inner` of the output's rows of `out_inner`.
pub fn concat_part<T: Copy>(
    outer: usize,
    in_inner: usize,
    out_inner: usize,
    out_offset: usize,
    input: &[T],
    output: &mut [T],
) {
    for r in 0..outer {
        let src = &input[r * in_inner..(r + 1) * in_inner];
        let start = r * out_inner + out_offset;
        output[start..start + in_inner].copy_from_slice(src);
    }
}

/// PAD / PADV2 parameters: `before[k]` elements of padding precede input dim `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PadParams {
    rank: usize,
    in_dims: [usize; MAX_RANK],
    before: [usize; MAX_RANK],
    out_dims: [usize; MAX_RANK],
}

impl PadParams {
    /// Pads `in_dims` by `(before, after)` per dim; `None` when the counts disagree, the rank
    /// exceeds [`MAX_RANK`] or a padded size overflows.
    pub fn new(in_dims: &[usize], pads: &[(usize, usize)]) -> Option<Self> {
        let rank = in_dims.len();
        if rank > MAX_RANK || pads.len() != rank {
            return None;
        }
        let mut p = Self {
            rank,
            in_dims: [1; MAX_RANK],
            before: [0; MAX_RANK],
            out_dims: [1; MAX_RANK],
        };
        for k in 0..rank {
            p.in_dims[k] = in_dims[k];
            p.before[k] = pads[k].0;
            p.out_dims[k] = in_dims[k].checked_add(pads[k].0)?.checked_add(pads[k].1)?;
        }
        Some(p)
    }

    /// The output shape.
    pub fn out_dims(&self) -> &[usize] {
        &self.out_dims[..self.rank]
    }
}

/// PAD / PADV2. Mirrors LiteRT `reference_ops::Pad`: output elements inside the copied block
/// take the input, the others take `pad_value`.
pub fn pad<T: Copy>(p: &PadParams, pad_value: T, input: &[T], output: &mut [T]) {
    let in_strides = strides_of(&p.in_dims[..p.rank]);
    walk(p.out_dims(), |o, idx| {
        let mut i = 0usize;
        for (k, &x) in idx.iter().enumerate() {
            if x < p.before[k] || x - p.before[k] >= p.in_dims[k] {
                output[o] = pad_value;
                return;
            }
            i += (x - p.before[k]) * in_strides[k];
        }
        output[o] = input[i];
    });
}

/// A canonical (dense) strided slice: for every input dim, the first index, the step and the
/// number of elements taken. Shrunk axes take one element; new axes do not appear here (they only
/// change the output shape, not the data order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedSliceParams {
    rank: usize,
    in_strides: [usize; MAX_RANK],
    begin: [isize; MAX_RANK],
    step: [isize; MAX_RANK],
    count: [usize; MAX_RANK],
}

impl StridedSliceParams {
    /// From per-dim `(begin, step, count)`; `None` if any taken index falls outside the input,
    /// or the rank exceeds [`MAX_RANK`].
    pub fn new(in_dims: &[usize], axes: &[(isize, isize, usize)]) -> Option<Self> {
        let rank = in_dims.len();
        if rank > MAX_RANK || axes.len() != rank {
            return None;
        }
        let mut p = Self {
            rank,
            in_strides: strides_of(in_dims),
            begin: [0; MAX_RANK],
            step: [1; MAX_RANK],
            count: [1; MAX_RANK],
        };
        for (k, &(begin, step, count)) in axes.iter().enumerate() {
            if count > 0 {
                let last =
                    begin.checked_add(step.checked_mul(isize::try_from(count - 1).ok()?)?)?;
                let dim = isize::try_from(in_dims[k]).ok()?;
                if begin < 0 || begin >= dim || last < 0 || last >= dim {
                    return None;
                }
            }
            p.begin[k] = begin;
            p.step[k] = step;
            p.count[k] = count;
        }
        Some(p)
    }

    /// Elements taken per input dim (the output shape before shrinking / new axes).
    pub fn counts(&self) -> &[usize] {
        &self.count[..self.rank]
    }
}

/// STRIDED_SLICE / SLICE. Mirrors LiteRT `reference_ops::StridedSlice`: output elements in
/// row-major order, each reading input index `begin + i * step` per dim.
pub fn strided_slice<T: Copy>(p: &StridedSliceParams, input: &[T], output: &mut [T]) {
    walk(p.counts(), |o, idx| {
        let mut i = 0isize;
        for (k, &x) in idx.iter().enumerate() {
            i += (p.begin[k] + x as isize * p.step[k]) * p.in_strides[k] as isize;
        }
        output[o] = input[i as usize];
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_2d_and_nhwc_to_nchw() {
        let p = TransposeParams::new(&[2, 3], &[1, 0]).expect("perm");
        assert_eq!(p.out_dims(), &[3, 2]);
        let mut out = [0; 6];
        transpose(&p, &[1, 2, 3, 4, 5, 6], &mut out);
        assert_eq!(out, [1, 4, 2, 5, 3, 6]);
        let p = TransposeParams::new(&[1, 2, 2, 2], &[0, 3, 1, 2]).expect("perm");
        let mut out = [0; 8];
        transpose(&p, &[0, 1, 2, 3, 4, 5, 6, 7], &mut out);
        assert_eq!(out, [0, 2, 4, 6, 1, 3, 5, 7]);
        assert!(TransposeParams::new(&[2, 3], &[0, 0]).is_none());
        assert!(TransposeParams::new(&[2, 3], &[0, 2]).is_none());
    }

    #[test]
    fn concat_along_last_axis() {
        // [2, 1] ++ [2, 2] along axis 1 → [2, 3]
        let mut out = [0; 6];
        concat_part(2, 1, 3, 0, &[1, 4], &mut out);
        concat_part(2, 2, 3, 1, &[2, 3, 5, 6], &mut out);
        assert_eq!(out, [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn pad_2d_with_value() {
        let p = PadParams::new(&[1, 2], &[(1, 0), (0, 1)]).expect("pads");
        assert_eq!(p.out_dims(), &[2, 3]);
        let mut out = [0.0; 6];
        pad(&p, -1.0, &[7.0, 8.0], &mut out);
        assert_eq!(out, [-1.0, -1.0, -1.0, 7.0, 8.0, -1.0]);
    }

    #[test]
    fn strided_slice_reverse_and_step() {
        // [5] reversed with step -2 from 4: 4, 2, 0
        let p = StridedSliceParams::new(&[5], &[(4, -2, 3)]).expect("valid");
        let mut out = [0; 3];
        strided_slice(&p, &[10, 11, 12, 13, 14], &mut out);
        assert_eq!(out, [14, 12, 10]);
        // [2, 3]: row 1, columns 0..3 step 2
        let p = StridedSliceParams::new(&[2, 3], &[(1, 1, 1), (0, 2, 2)]).expect("valid");
        let mut out = [0; 2];
        strided_slice(&p, &[1, 2, 3, 4, 5, 6], &mut out);
        assert_eq!(out, [4, 6]);
        assert!(StridedSliceParams::new(&[5], &[(4, 2, 2)]).is_none());
        // Empty slices are fine anywhere.
        assert!(StridedSliceParams::new(&[5], &[(9, 1, 0)]).is_some());
    }
}
