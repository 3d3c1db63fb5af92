//! Reductions over a set of axes: MEAN, REDUCE_MAX (and SUM, which MEAN is built on).

use super::{MAX_RANK, next_index};

/// Which axes of an input are reduced, and where each input element lands in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceParams {
    rank: usize,
    dims: [usize; MAX_RANK],
    /// Output element stride per input dim; 0 along reduced dims.
    out_strides: [usize; MAX_RANK],
    /// Elements folded into each output element.
    count: usize,
}

impl ReduceParams {
    /// Reduction of `dims` over `axes` (already resolved to `0..rank`, duplicates allowed).
    /// `None` when an axis is out of range or the rank exceeds [`MAX_RANK`].
    pub fn new(dims: &[usize], axes: &[usize]) -> Option<Self> {
        let rank = dims.len();
        if rank > MAX_RANK || axes.iter().any(|&a| a >= rank) {
            return None;
        }
        let mut reduced = [false; MAX_RANK];
        for &a in axes {
            reduced[a] = true;
        }
        let mut d = [1usize; MAX_RANK];
        d[..rank].copy_from_slice(dims);
        let mut out_strides = [0usize; MAX_RANK];
        let mut acc = 1usize;
        let mut count = 1usize;
        for i in (0..rank).rev() {
            if reduced[i] {
                count = count.saturating_mul(dims[i]);
            } else {
                out_strides[i] = acc;
                acc = acc.saturating_mul(dims[i]);
            }
        }
        Some(Self {
            rank,
            dims: d,
            out_strides,
            count,
        })
    }

    /// Input elements folded into each output element.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Calls `f(input_index, output_index)` for every input element in row-major order (the
    /// order of LiteRT's `Reduce`, which fixes how float sums round).
    fn walk(&self, mut f: impl FnMut(usize, usize)) {
        let dims = &self.dims[..self.rank];
        if dims.contains(&0) {
            return;
        }
        let mut idx = [0usize; MAX_RANK];
        let mut i = 0usize;
        loop {
            let mut o = 0usize;
            for (k, &x) in idx[..self.rank].iter().enumerate() {
                o += x * self.out_strides[k];
            }
            f(i, o);
            i += 1;
            if !next_index(dims, &mut idx[..self.rank]) {
                break;
            }
        }
    }
}

/// SUM: adds the input into a zeroed output in row-major input order. Mirrors LiteRT's
/// `reference_ops::ReduceSumImpl` (float).
pub fn sum(p: &ReduceParams, input: &[f32], output: &mut [f32]) {
    output.fill(0.0);
    p.walk(|i, o| output[o] += input[i]);
}

/// MEAN. Mirrors LiteRT `reference_ops::Mean` (float): the row-major sum, then one division by
/// the number of reduced elements (left at 0 when that number is 0).
pub fn mean(p: &ReduceParams, input: &[f32], output: &mut [f32]) {
    sum(p, input, output);
    if p.count > 0 {
        let n = p.count as f32;
        for o in output.iter_mut() {
            *o /= n;
        }
    }
}

/// REDUCE_MAX. Mirrors LiteRT's `ReduceGeneric` with the max reducer (float): start from the
/// lowest finite float, keep `current > x ? current : x`.
pub fn max(p: &ReduceParams, input: &[f32], output: &mut [f32]) {
    output.fill(f32::MIN);
    p.walk(|i, o| {
        let x = input[i];
        // `current > x ? current : x` (a NaN input replaces the current value, as in LiteRT).
        output[o] = if output[o] > x { output[o] } else { x };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_over_spatial_axes_of_nhwc() {
        // [1, 2, 2, 2]: channel 0 = 1,2,3,4; channel 1 = 10,20,30,40
        let x = [1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0];
        let p = ReduceParams::new(&[1, 2, 2, 2], &[1, 2]).expect("valid");
        assert_eq!(p.count(), 4);
        let mut out = [0.0; 2];
        mean(&p, &x, &mut out);
        assert_eq!(out, [2.5, 25.0]);
    }

    #[test]
    fn reduce_max_last_axis_and_duplicate_axes() {
        let x = [1.0, -5.0, 3.0, -2.0, -7.0, -1.0];
        let p = ReduceParams::new(&[2, 3], &[1, 1]).expect("valid");
        let mut out = [0.0; 2];
        max(&p, &x, &mut out);
        assert_eq!(out, [3.0, -1.0]);
        let all = ReduceParams::new(&[2, 3], &[0, 1]).expect("valid");
        let mut one = [0.0];
        max(&all, &x, &mut one);
        assert_eq!(one, [3.0]);
        mean(&all, &x, &mut one);
        assert_eq!(one, [-11.0 / 6.0]);
    }

    #[test]
    fn no_axes_is_identity_and_bad_axes_are_rejected() {
        let p = ReduceParams::new(&[3], &[]).expect("valid");
        let mut out = [0.0; 3];
        mean(&p, &[1.0, 2.0, 3.0], &mut out);
        assert_eq!(out, [1.0, 2.0, 3.0]);
        assert!(ReduceParams::new(&[3], &[1]).is_none());
    }

    #[test]
    fn empty_reduction_leaves_zero() {
        let p = ReduceParams::new(&[2, 0], &[1]).expect("valid");
        let mut out = [9.0; 2];
        mean(&p, &[], &mut out);
        assert_eq!(out, [0.0, 0.0]);
    }
}
