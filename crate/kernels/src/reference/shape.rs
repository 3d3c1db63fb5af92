//! Data movement: TRANSPOSE, CONCATENATION, PAD/PADV2, STRIDED_SLICE/SLICE (and the plain copy
//! behind RESHAPE/SQUEEZE). Generic over the element type so the int8 engine reuses them; the
//! one arithmetic kernel is the requantizing concatenation ([`concat_part_rescaled`]).

use super::int_elem::IntElem;
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

/// How one quantized CONCATENATION input is brought to the output's scale and zero point:
/// `q_out = round(q_in · scale + bias) + out_zero_point`, saturated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConcatRescale {
    /// `in_scale · (1 / out_scale)`, in float as LiteRT computes it.
    pub scale: f32,
    /// `-in_zero_point · scale`.
    pub bias: f32,
    /// The output's zero point.
    pub out_zero_point: i32,
}

impl ConcatRescale {
    /// LiteRT's float parameters for an input of `(in_scale, in_zp)` into an output of
    /// `(out_scale, out_zp)`: `inverse = 1.f / out_scale`, `scale = in_scale * inverse`,
    /// `bias = -in_zp * scale`, all in `f32`.
    pub fn new(in_scale: f32, in_zero_point: i32, out_scale: f32, out_zero_point: i32) -> Self {
        let inverse = 1.0f32 / out_scale;
        let scale = in_scale * inverse;
        let bias = (-(in_zero_point as f32)) * scale;
        Self {
            scale,
            bias,
            out_zero_point,
        }
    }
}

/// One input's share of a CONCATENATION whose quantization differs from the output's. Mirrors
/// LiteRT `reference_ops::ConcatenationWithScaling` (float rescale, `TfLiteRound` = half away
/// from zero, then the output zero point and a clamp to the type's range), generalised from
/// `uint8` to any [`IntElem`]. Layout as [`concat_part`].
pub fn concat_part_rescaled<T: IntElem>(
    outer: usize,
    in_inner: usize,
    out_inner: usize,
    out_offset: usize,
    r: &ConcatRescale,
    input: &[T],
    output: &mut [T],
) {
    for row in 0..outer {
        let src = &input[row * in_inner..(row + 1) * in_inner];
        let start = row * out_inner + out_offset;
        for (o, &x) in output[start..start + in_inner].iter_mut().zip(src) {
            let v = (x.widen() as f32 * r.scale + r.bias).round() as i32;
            *o = T::saturate(v.saturating_add(r.out_zero_point));
        }
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
/// take the input, the others take `pad_value`. Written as a fill and one copy per input row
/// (the innermost dim), so a huge padded output costs a memset, not a per-element index walk.
pub fn pad<T: Copy>(p: &PadParams, pad_value: T, input: &[T], output: &mut [T]) {
    output.fill(pad_value);
    let rank = p.rank;
    let Some(last) = rank.checked_sub(1) else {
        output.copy_from_slice(input);
        return;
    };
    let out_strides = strides_of(p.out_dims());
    let row = p.in_dims[last];
    walk(&p.in_dims[..last], |r, idx| {
        let mut o = p.before[last];
        for (k, &x) in idx.iter().enumerate() {
            o += (x + p.before[k]) * out_strides[k];
        }
        output[o..o + row].copy_from_slice(&input[r * row..(r + 1) * row]);
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
    fn concat_rescaled_matches_the_float_formula() {
        // in scale 0.5 zp 10 → out scale 0.25 zp -3: scale 2, bias -20.
        let r = ConcatRescale::new(0.5, 10, 0.25, -3);
        assert_eq!((r.scale, r.bias), (2.0, -20.0));
        let mut out = [0i8; 4];
        // 10 → 0 - 3 = -3; 127 → 234 - 3 → 127 (clamp); -128 → -276 - 3 → -128; 11 → 2 - 3 = -1
        concat_part_rescaled(1, 4, 4, 0, &r, &[10i8, 127, -128, 11], &mut out);
        assert_eq!(out, [-3, 127, -128, -1]);
        // Ties round away from zero: scale 0.5 (in 0.5 / out 1), zp 0: 3 → 1.5 → 2, -3 → -2.
        let r = ConcatRescale::new(0.5, 0, 1.0, 0);
        let mut out = [0i16; 2];
        concat_part_rescaled(1, 2, 2, 0, &r, &[3i16, -3], &mut out);
        assert_eq!(out, [2, -2]);
        // uint8 with output zero point 128, interleaved into a wider row.
        let r = ConcatRescale::new(1.0, 0, 2.0, 128);
        let mut out = [9u8; 4];
        concat_part_rescaled(2, 1, 2, 1, &r, &[255u8, 1], &mut out);
        // 255 · 0.5 = 127.5 → 128 + 128 = 256 → 255; 1 · 0.5 = 0.5 → 1 + 128 = 129.
        assert_eq!(out, [9, 255, 9, 129]);
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
