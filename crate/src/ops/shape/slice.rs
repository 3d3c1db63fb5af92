//! SLICE and STRIDED_SLICE with constant arguments, canonicalised as TensorFlow does.

use super::{movable_size, same_type};
use crate::kernels::reference::bytes;
use crate::kernels::reference::shape::StridedSliceParams;
use crate::ops::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::tflite::schema::StridedSliceOptionsT;

struct Slice {
    size: usize,
    p: StridedSliceParams,
}

impl Kernel for Slice {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let input = io.input(0);
        bytes::strided_slice(self.size, &self.p, input, io.output());
    }
}

/// The masks of a STRIDED_SLICE.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SliceMasks {
    /// Ignore `begin[i]` (start at the first element in the stride's direction).
    pub begin: i32,
    /// Ignore `end[i]` (run to the last element).
    pub end: i32,
    /// Entry `i` stands for all remaining dims.
    pub ellipsis: i32,
    /// Entry `i` inserts a size-1 dim.
    pub new_axis: i32,
    /// Entry `i` takes one element and drops the dim.
    pub shrink: i32,
}

/// Canonicalises a strided slice as TensorFlow does (`ValidateStridedSliceOp`): expands the
/// ellipsis (or an implicit one at the end), resolves negative indices and masks, clamps to the
/// input. Returns, per input dim, `(begin, step, count)`, and the output shape (new axes added,
/// shrunk axes removed).
#[allow(clippy::type_complexity)]
pub fn canonical_strided_slice(
    dims: &[usize],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    m: SliceMasks,
) -> Result<(Vec<(isize, isize, usize)>, Vec<usize>), String> {
    let n = begin.len();
    if end.len() != n || strides.len() != n || n > 32 {
        return Err(format!(
            "begin/end/strides have {}/{}/{} values",
            n,
            end.len(),
            strides.len()
        ));
    }
    let bit = |mask: i32, i: usize| i < 32 && (mask >> i) & 1 == 1;
    let rank = dims.len();
    // Dense spec: per input dim (begin, end, stride, begin_masked, end_masked, shrink).
    let mut dense: Vec<(i64, i64, i64, bool, bool, bool)> = Vec::with_capacity(rank);
    // Output shape recipe: Some(dense index) or None for a new axis; shrunk dims are skipped.
    let mut gather: Vec<Option<usize>> = Vec::new();
    let has_ellipsis = (0..n).any(|i| bit(m.ellipsis, i));
    let mut seen_ellipsis = false;
    for i in 0..n {
        if bit(m.ellipsis, i) && !seen_ellipsis {
            seen_ellipsis = true;
            // New axes after the ellipsis do not consume input dims.
            let after = (i + 1..n).filter(|&j| !bit(m.new_axis, j)).count();
            let fill = rank
                .checked_sub(dense.len() + after)
                .ok_or("too many indices")?;
            for _ in 0..fill {
                gather.push(Some(dense.len()));
                dense.push((0, 0, 1, true, true, false));
            }
        } else if bit(m.new_axis, i) {
            gather.push(None);
        } else {
            if dense.len() == rank {
                return Err(format!("index {i} is beyond rank {rank}"));
            }
            let shrink = bit(m.shrink, i);
            if !shrink {
                gather.push(Some(dense.len()));
            }
            dense.push((
                begin[i],
                end[i],
                strides[i],
                bit(m.begin, i),
                bit(m.end, i),
                shrink,
            ));
        }
    }
    if !has_ellipsis {
        while dense.len() < rank {
            gather.push(Some(dense.len()));
            dense.push((0, 0, 1, true, true, false));
        }
    }
    if dense.len() != rank {
        return Err(format!("indices cover {} of {rank} dims", dense.len()));
    }
    let mut axes = Vec::with_capacity(rank);
    for (k, &(b, e, s, bm, em, shrink)) in dense.iter().enumerate() {
        if s == 0 {
            return Err(format!("stride 0 at dim {k}"));
        }
        let dim = i64::try_from(dims[k]).map_err(|_| "dim too large")?;
        if shrink {
            let x = if b < 0 { b + dim } else { b };
            if x < 0 || x >= dim {
                return Err(format!("index {b} out of range for dim {k} of size {dim}"));
            }
            axes.push((x as isize, 1, 1));
            continue;
        }
        let (lo, hi) = if s > 0 { (0, dim) } else { (-1, dim - 1) };
        let canon = |x: i64, masked: bool, is_end: bool| -> i64 {
            if masked {
                match (s > 0, is_end) {
                    (true, false) => 0,
                    (true, true) => dim,
                    (false, false) => dim - 1,
                    (false, true) => -1,
                }
            } else {
                let x = if x < 0 { x.saturating_add(dim) } else { x };
                x.clamp(lo, hi)
            }
        };
        let (b, e) = (canon(b, bm, false), canon(e, em, true));
        let count = if (s > 0 && e <= b) || (s < 0 && e >= b) {
            0
        } else {
            let span = (e - b).abs();
            let step = s.abs();
            (span + step - 1) / step
        };
        let step = isize::try_from(s).map_err(|_| "stride too large")?;
        axes.push((b as isize, step, count as usize));
    }
    let shape = gather.iter().map(|g| g.map_or(1, |k| axes[k].2)).collect();
    Ok((axes, shape))
}

/// STRIDED_SLICE with constant begin/end/strides and all five masks.
pub fn prepare_strided_slice(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(4, 4)?;
    let o = options!(ctx, StridedSliceOptions, StridedSliceOptionsT)?;
    if o.offset {
        return Err(ctx.unsupported(String::new(), "offset = true"));
    }
    let input = ctx.input(0)?;
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let (b, e, s) = (ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
    // LiteRT's prepare: begin, end and strides are vectors (`NumDimensions(...) == 1`).
    for t in [&b, &e, &s] {
        ctx.require_rank(t, 1)?;
    }
    let (begin, end, strides) = (
        ctx.const_ints(&b)?,
        ctx.const_ints(&e)?,
        ctx.const_ints(&s)?,
    );
    let masks = SliceMasks {
        begin: o.begin_mask,
        end: o.end_mask,
        ellipsis: o.ellipsis_mask,
        new_axis: o.new_axis_mask,
        shrink: o.shrink_axis_mask,
    };
    let (axes, shape) = canonical_strided_slice(input.shape, &begin, &end, &strides, masks)
        .map_err(|r| ctx.invalid(b.describe(), r))?;
    let p = StridedSliceParams::new(input.shape, &axes)
        .ok_or_else(|| ctx.invalid(b.describe(), "slice leaves the input"))?;
    same_type(ctx, &input, shape, Slice { size, p })
}

/// SLICE with constant begin and size (size -1 = to the end).
pub fn prepare_slice(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(3, 3)?;
    let input = ctx.input(0)?;
    let size = movable_size(ctx, &input)?;
    ctx.require_max_rank(&input)?;
    let (b, s) = (ctx.input(1)?, ctx.input(2)?);
    // LiteRT's prepare: begin and size are vectors (`NumDimensions(...) == 1`).
    ctx.require_rank(&b, 1)?;
    ctx.require_rank(&s, 1)?;
    let (begin, sizes) = (ctx.const_ints(&b)?, ctx.const_ints(&s)?);
    let rank = input.shape.len();
    if begin.len() != rank || sizes.len() != rank {
        return Err(ctx.invalid(
            b.describe(),
            format!("begin {begin:?} / size {sizes:?} for rank {rank}"),
        ));
    }
    let mut axes = Vec::with_capacity(rank);
    for k in 0..rank {
        let dim = input.shape[k] as i64;
        let start = begin[k];
        let count = if sizes[k] == -1 {
            dim - start
        } else {
            sizes[k]
        };
        if start < 0 || count < 0 || start.checked_add(count).is_none_or(|end| end > dim) {
            return Err(ctx.invalid(
                b.describe(),
                format!(
                    "begin {start} size {} leaves dim {k} of size {dim}",
                    sizes[k]
                ),
            ));
        }
        axes.push((start as isize, 1, count as usize));
    }
    let p = StridedSliceParams::new(input.shape, &axes)
        .ok_or_else(|| ctx.invalid(b.describe(), "slice leaves the input"))?;
    let shape = axes.iter().map(|a| a.2).collect();
    same_type(ctx, &input, shape, Slice { size, p })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(
        dims: &[usize],
        b: &[i64],
        e: &[i64],
        s: &[i64],
        m: SliceMasks,
    ) -> (Vec<(isize, isize, usize)>, Vec<usize>) {
        canonical_strided_slice(dims, b, e, s, m).expect("valid slice")
    }

    #[test]
    fn strided_slice_basic_negative_and_masks() {
        // x[1:-1] on [5]
        let (a, s) = ss(&[5], &[1], &[-1], &[1], SliceMasks::default());
        assert_eq!((a, s), (vec![(1, 1, 3)], vec![3]));
        // x[::-1]
        let m = SliceMasks {
            begin: 1,
            end: 1,
            ..Default::default()
        };
        let (a, s) = ss(&[5], &[0], &[0], &[-1], m);
        assert_eq!((a, s), (vec![(4, -1, 5)], vec![5]));
        // x[::2] on [5] → 0, 2, 4
        let (a, _) = ss(&[5], &[0], &[5], &[2], SliceMasks::default());
        assert_eq!(a, vec![(0, 2, 3)]);
        // Out-of-range ends clamp.
        let (a, _) = ss(&[5], &[-100], &[100], &[1], SliceMasks::default());
        assert_eq!(a, vec![(0, 1, 5)]);
    }

    #[test]
    fn strided_slice_shrink_ellipsis_new_axis() {
        // x[:, -1] on [2, 3] (TF: begin [0, -1], end [0, 0], begin_mask 1, end_mask 1, shrink 2)
        let m = SliceMasks {
            begin: 1,
            end: 1,
            shrink: 2,
            ..Default::default()
        };
        let (a, s) = ss(&[2, 3], &[0, -1], &[0, 0], &[1, 1], m);
        assert_eq!(a, vec![(0, 1, 2), (2, 1, 1)]);
        assert_eq!(s, vec![2]);
        // x[..., 0] on [2, 3, 4]: ellipsis then shrink on the last dim.
        let m = SliceMasks {
            ellipsis: 1,
            shrink: 2,
            ..Default::default()
        };
        let (a, s) = ss(&[2, 3, 4], &[0, 0], &[0, 1], &[1, 1], m);
        assert_eq!(a, vec![(0, 1, 2), (0, 1, 3), (0, 1, 1)]);
        assert_eq!(s, vec![2, 3]);
        // x[tf.newaxis, 1:] on [3]: new axis first.
        let m = SliceMasks {
            new_axis: 1,
            ..Default::default()
        };
        let (a, s) = ss(&[3], &[0, 1], &[0, 3], &[1, 1], m);
        assert_eq!(a, vec![(1, 1, 2)]);
        assert_eq!(s, vec![1, 2]);
        // Fewer indices than dims: the rest is taken whole.
        let (a, s) = ss(&[2, 3], &[1], &[2], &[1], SliceMasks::default());
        assert_eq!(a, vec![(1, 1, 1), (0, 1, 3)]);
        assert_eq!(s, vec![1, 3]);
    }

    #[test]
    fn strided_slice_rejects_zero_stride_and_bad_shrink() {
        assert!(canonical_strided_slice(&[3], &[0], &[3], &[0], SliceMasks::default()).is_err());
        let m = SliceMasks {
            shrink: 1,
            ..Default::default()
        };
        assert!(canonical_strided_slice(&[3], &[3], &[4], &[1], m).is_err());
        assert!(canonical_strided_slice(&[3], &[0, 0], &[1], &[1], SliceMasks::default()).is_err());
    }
}
