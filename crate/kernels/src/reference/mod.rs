//! Scalar reference kernels, float and integer: plain loops, explicit offsets, the operation order of LiteRT's
//! reference kernels (so float sums round the same way), one family per file.
//!
//! Every kernel takes its shapes in a small parameter struct that the `ops` layer has already
//! validated: slice lengths are guaranteed to match those shapes, so the kernels index freely.
//! No kernel allocates.

pub mod activations;
pub mod batch_matmul;
pub mod bytes;
pub mod compare;
pub mod conv;
pub mod conv_int;
pub mod detection;
pub mod elementwise;
pub mod embedding;
pub mod expf;
pub mod fixedpoint_i16;
pub mod fixedpoint_math;
pub mod fully_connected;
pub mod fully_connected_int;
pub mod hybrid;
pub mod int_elem;
pub mod landmarks;
pub mod layout;
pub mod log_softmax;
pub mod logf;
pub mod lstm;
pub mod lstm_int;
pub mod math;
pub mod normalize;
pub mod pool;
pub mod quantize;
pub mod reduce;
pub mod resize;
pub mod rnn;
pub mod shape;
pub mod shape_ops;
pub mod split;
pub mod transpose_conv_bias;

/// The clamp a fused activation applies to an op's float output (`[min, max]`).
///
/// Mirrors LiteRT's `CalculateActivationRange` and `ActivationFunctionWithMinMax`: the bounds of
/// a fused NONE and of RELU's top are `std::numeric_limits<float>::lowest()` / `max()`, not
/// infinities, so an infinite result leaves such an op as ±`f32::MAX`; `min(max(x, lo), hi)`
/// uses C++'s `std::max`/`std::min` comparison order, so a NaN passes through unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActivationRange {
    /// Lower bound.
    pub min: f32,
    /// Upper bound.
    pub max: f32,
}

impl ActivationRange {
    /// Fused activation NONE: `[lowest, max]` (±inf become ±`f32::MAX`, as in LiteRT).
    pub const NONE: Self = Self {
        min: f32::MIN,
        max: f32::MAX,
    };
    /// No clamp at all, for ops without a fused activation (MAXIMUM, MINIMUM, …).
    pub const UNBOUNDED: Self = Self {
        min: f32::NEG_INFINITY,
        max: f32::INFINITY,
    };
    /// `RELU`: `[0, max]`.
    pub const RELU: Self = Self {
        min: 0.0,
        max: f32::MAX,
    };
    /// `RELU6`: `[0, 6]`.
    pub const RELU6: Self = Self { min: 0.0, max: 6.0 };
    /// `RELU_N1_TO_1`: `[-1, 1]`.
    pub const RELU_N1_TO_1: Self = Self {
        min: -1.0,
        max: 1.0,
    };

    /// Clamps one value.
    #[inline(always)]
    pub fn apply(self, x: f32) -> f32 {
        // std::max(x, lo) is `x < lo ? lo : x`; std::min(y, hi) is `hi < y ? hi : y`.
        let y = if x < self.min { self.min } else { x };
        if self.max < y { self.max } else { y }
    }

    /// Clamps one value as LiteRT's `tensor_utils::ApplyActivationToVector` does (hybrid
    /// FULLY_CONNECTED, the recurrent kernels): no activation leaves the value untouched (±inf
    /// kept), RELU has no upper bound, and the clamp is `std::max(lo, std::min(x, hi))` with
    /// the bound first, so a NaN becomes `lo` and −0.0 becomes +0.0 under RELU / RELU6.
    #[inline(always)]
    pub fn apply_vector(self, x: f32) -> f32 {
        if self == Self::NONE || self == Self::UNBOUNDED {
            return x;
        }
        let hi = if self.max == f32::MAX {
            f32::INFINITY
        } else {
            self.max
        };
        let y = if hi < x { hi } else { x };
        if self.min < y { y } else { self.min }
    }
}

/// Greatest tensor rank the N-dimensional kernels (broadcast, transpose, pad, slice, reduce)
/// accept; the ops layer rejects higher ranks with a typed error.
pub const MAX_RANK: usize = 8;

/// Advances a row-major multi-index over `dims` by one; returns false after the last index
/// (like LiteRT's `NextIndex`).
#[inline]
pub(crate) fn next_index(dims: &[usize], index: &mut [usize]) -> bool {
    for i in (0..dims.len()).rev() {
        index[i] += 1;
        if index[i] < dims[i] {
            return true;
        }
        index[i] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activation_ranges_clamp_and_pass_nan() {
        assert_eq!(ActivationRange::RELU6.apply(7.0), 6.0);
        assert_eq!(ActivationRange::RELU6.apply(-1.0), 0.0);
        assert_eq!(ActivationRange::RELU.apply(1e30), 1e30);
        assert_eq!(ActivationRange::RELU_N1_TO_1.apply(-3.0), -1.0);
        assert!(ActivationRange::RELU6.apply(f32::NAN).is_nan());
        assert_eq!(ActivationRange::NONE.apply(-5.0), -5.0);
        // LiteRT's float limits, not infinities: an overflow leaves a fused op as ±FLT_MAX.
        assert_eq!(ActivationRange::NONE.apply(f32::INFINITY), f32::MAX);
        assert_eq!(ActivationRange::NONE.apply(f32::NEG_INFINITY), f32::MIN);
        assert_eq!(ActivationRange::RELU.apply(f32::INFINITY), f32::MAX);
        assert!(ActivationRange::NONE.apply(f32::NAN).is_nan());
        assert_eq!(
            ActivationRange::UNBOUNDED.apply(f32::INFINITY),
            f32::INFINITY
        );
    }

    #[test]
    fn next_index_walks_row_major() {
        let dims = [2, 3];
        let mut idx = [0, 0];
        let mut seen = vec![idx];
        while next_index(&dims, &mut idx) {
            seen.push(idx);
        }
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[1], [0, 1]);
        assert_eq!(seen[3], [1, 0]);
        // Rank 0: one element, then done.
        assert!(!next_index(&[], &mut []));
    }
}
