//! Comparisons, logic and selection: EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER,
//! GREATER_EQUAL (float32, int32, int64, bool raw; int8 / uint8 rescaled), LOGICAL_AND,
//! LOGICAL_OR, LOGICAL_NOT on BOOL tensors, and SELECT / SELECT_V2 (a BOOL condition picks
//! between two tensors of any element type, with broadcasting).
//!
//! BOOL tensors hold one byte per element, 0 or 1 (LiteRT's `bool`); a condition byte that is
//! not 0 counts as true. Every kernel writes 0 or 1.

use super::elementwise::Broadcast;
use super::int_elem::IntElem;
use super::{MAX_RANK, next_index};
use crate::fixedpoint::multiply_by_quantized_multiplier_smaller_than_one_exp;

/// Which comparison a kernel applies (LiteRT's `reference_ops::EqualFn`, `LessFn`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `a == b`
    Equal,
    /// `a != b`
    NotEqual,
    /// `a < b`
    Less,
    /// `a <= b`
    LessEqual,
    /// `a > b`
    Greater,
    /// `a >= b`
    GreaterEqual,
}

impl CompareOp {
    /// Applies the comparison to one pair (IEEE semantics for floats: every comparison with a
    /// NaN is false except NOT_EQUAL).
    #[inline(always)]
    pub fn apply<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CompareOp::Equal => a == b,
            CompareOp::NotEqual => a != b,
            CompareOp::Less => a < b,
            CompareOp::LessEqual => a <= b,
            CompareOp::Greater => a > b,
            CompareOp::GreaterEqual => a >= b,
        }
    }
}

/// A comparison of raw values (float32, int32, int64, bool bytes). Mirrors LiteRT's
/// `reference_ops::ComparisonImpl` / `BroadcastComparison4DSlowImpl`.
pub fn compare<T: PartialOrd + Copy>(
    op: CompareOp,
    shape: &Broadcast,
    a: &[T],
    b: &[T],
    output: &mut [u8],
) {
    shape.walk(|o, i, j| output[o] = u8::from(op.apply(a[i], b[j])));
}

/// The rescaling of one quantized comparison operand, fixed at prepare time: LiteRT's
/// `ComparisonQuantized` turns each input's *scale* (not a ratio of scales) into a multiplier
/// below one with `QuantizeMultiplierSmallerThanOneExp`, and compares
/// `MultiplyByQuantizedMultiplierSmallerThanOneExp((x − zero_point) << 8, multiplier, shift)`
/// of both sides: a common scale of `2^-8`… of the real values, with one gemmlowp rounding
/// (`SaturatingRoundingDoublingHighMul`, then a rounding right shift, ties away from zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantCompareSide {
    /// `-zero_point`.
    pub offset: i32,
    /// Q31 multiplier of the scale.
    pub multiplier: i32,
    /// Its exponent (≤ 0 for scales below one).
    pub shift: i32,
}

impl QuantCompareSide {
    /// LiteRT's `left_shift` of the quantized comparisons.
    pub const LEFT_SHIFT: i32 = 8;

    /// The rescaled value of quantized element `x`.
    #[inline(always)]
    pub fn rescale(&self, x: i32) -> i32 {
        // Wrapping, as LiteRT's compiled int32 sum wraps for a zero point near ±2^31.
        let shifted = self
            .offset
            .wrapping_add(x)
            .wrapping_mul(1 << Self::LEFT_SHIFT);
        multiply_by_quantized_multiplier_smaller_than_one_exp(shifted, self.multiplier, self.shift)
    }
}

/// A quantized comparison of int8 / uint8 operands with their own scales and zero points.
/// Mirrors LiteRT's `reference_ops::ComparisonWithScaling` /
/// `BroadcastComparison4DSlowWithScaling` (rounding: see [`QuantCompareSide`]).
pub fn compare_quantized<T: IntElem>(
    op: CompareOp,
    sides: (&QuantCompareSide, &QuantCompareSide),
    shape: &Broadcast,
    a: &[T],
    b: &[T],
    output: &mut [u8],
) {
    shape.walk(|o, i, j| {
        let x = sides.0.rescale(a[i].widen());
        let y = sides.1.rescale(b[j].widen());
        output[o] = u8::from(op.apply(x, y));
    });
}

/// Which binary logical operation a kernel applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicalOp {
    /// `a && b`
    And,
    /// `a || b`
    Or,
}

/// LOGICAL_AND / LOGICAL_OR on BOOL bytes with broadcasting. Mirrors LiteRT's
/// `reference_ops::BinaryFunction` / `BroadcastBinaryFunction4DSlow` over `bool`.
pub fn logical(op: LogicalOp, shape: &Broadcast, a: &[u8], b: &[u8], output: &mut [u8]) {
    shape.walk(|o, i, j| {
        let (x, y) = (a[i] != 0, b[j] != 0);
        output[o] = u8::from(match op {
            LogicalOp::And => x && y,
            LogicalOp::Or => x || y,
        });
    });
}

/// LOGICAL_NOT on BOOL bytes.
pub fn logical_not(input: &[u8], output: &mut [u8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = u8::from(x == 0);
    }
}

/// How a condition and two value tensors broadcast to SELECT's output: the output dims and each
/// operand's element stride per output dim (0 along broadcast dims), ranks aligned at the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectShape {
    rank: usize,
    dims: [usize; MAX_RANK],
    strides: [[usize; MAX_RANK]; 3],
}

impl SelectShape {
    /// The broadcast of `cond`, `x` and `y`, or `None` when a dim is neither equal across the
    /// operands nor 1, or the rank exceeds [`MAX_RANK`].
    pub fn new(cond: &[usize], x: &[usize], y: &[usize]) -> Option<Self> {
        let shapes = [cond, x, y];
        let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
        if rank > MAX_RANK {
            return None;
        }
        let dim_at = |s: &[usize], i: usize| -> usize {
            let pad = rank - s.len();
            if i < pad { 1 } else { s[i - pad] }
        };
        let mut dims = [1usize; MAX_RANK];
        for (i, d) in dims.iter_mut().enumerate().take(rank) {
            let mut out = 1usize;
            for s in shapes {
                let v = dim_at(s, i);
                if v != 1 {
                    if out != 1 && out != v {
                        return None;
                    }
                    out = v;
                }
            }
            // A 0-sized dim broadcast against 1 stays 0.
            if shapes.iter().any(|s| dim_at(s, i) == 0) {
                out = 0;
            }
            *d = out;
        }
        let mut strides = [[0usize; MAX_RANK]; 3];
        for (k, s) in shapes.iter().enumerate() {
            let mut acc = 1usize;
            for i in (0..rank).rev() {
                let d = dim_at(s, i);
                strides[k][i] = if d == 1 { 0 } else { acc };
                acc = acc.saturating_mul(d);
            }
        }
        Some(Self {
            rank,
            dims,
            strides,
        })
    }

    /// The output shape.
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }
}

/// SELECT / SELECT_V2: `output = cond ? x : y` elementwise, with broadcasting (SELECT's rank-one
/// condition, which picks whole slices along the first dim, is a condition of shape
/// `[d0, 1, …, 1]`). Mirrors LiteRT's `reference_ops::Select`, `RankOneSelect` and
/// `BroadcastSelect5DSlow`; values are copied unchanged (quantized inputs share the output's
/// scale and zero point).
pub fn select<T: Copy>(p: &SelectShape, cond: &[u8], x: &[T], y: &[T], output: &mut [T]) {
    let dims = p.dims();
    if dims.contains(&0) {
        return;
    }
    let mut idx = [0usize; MAX_RANK];
    let mut o = 0usize;
    loop {
        let mut off = [0usize; 3];
        for (k, &i) in idx[..p.rank].iter().enumerate() {
            for (s, strides) in off.iter_mut().zip(&p.strides) {
                *s += i * strides[k];
            }
        }
        output[o] = if cond[off[0]] != 0 {
            x[off[1]]
        } else {
            y[off[2]]
        };
        o += 1;
        if !next_index(dims, &mut idx[..p.rank]) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixedpoint::quantize_multiplier;

    #[test]
    fn float_comparisons_and_nan() {
        let s = Broadcast::new(&[4], &[1]).expect("broadcast");
        let a = [1.0f32, 2.0, 3.0, f32::NAN];
        let mut out = [9u8; 4];
        compare(CompareOp::Less, &s, &a, &[2.0], &mut out);
        assert_eq!(out, [1, 0, 0, 0]);
        compare(CompareOp::GreaterEqual, &s, &a, &[2.0], &mut out);
        assert_eq!(out, [0, 1, 1, 0]);
        compare(CompareOp::NotEqual, &s, &a, &[2.0], &mut out);
        assert_eq!(out, [1, 0, 1, 1]);
    }

    #[test]
    fn quantized_comparison_rescales_each_side() {
        // a: scale 0.5 zero point 1; b: scale 0.25 zero point -128. a = 3 → 1.0; b = -124 → 1.0.
        let side = |scale: f64, zp: i32| {
            let (multiplier, shift) = quantize_multiplier(scale);
            QuantCompareSide {
                offset: -zp,
                multiplier,
                shift,
            }
        };
        let (sa, sb) = (side(0.5, 1), side(0.25, -128));
        let s = Broadcast::new(&[3], &[3]).expect("broadcast");
        let mut out = [9u8; 3];
        compare_quantized::<i8>(
            CompareOp::Equal,
            (&sa, &sb),
            &s,
            &[3, 3, -128],
            &[-124, -123, 127],
            &mut out,
        );
        assert_eq!(out, [1, 0, 0]);
        compare_quantized::<i8>(
            CompareOp::Less,
            (&sa, &sb),
            &s,
            &[3, 3, -128],
            &[-124, -123, 127],
            &mut out,
        );
        assert_eq!(out, [0, 1, 1]);
    }

    #[test]
    fn logic_ops() {
        let s = Broadcast::new(&[2, 2], &[2]).expect("broadcast");
        let mut out = [9u8; 4];
        logical(LogicalOp::And, &s, &[1, 1, 0, 1], &[1, 0], &mut out);
        assert_eq!(out, [1, 0, 0, 0]);
        logical(LogicalOp::Or, &s, &[0, 0, 0, 1], &[1, 0], &mut out);
        assert_eq!(out, [1, 0, 1, 1]);
        logical_not(&[0, 1, 2, 0], &mut out);
        assert_eq!(out, [1, 0, 0, 1]);
    }

    #[test]
    fn select_broadcasts_all_three() {
        // Rank-one condition along dim 0 (SELECT v1), as shape [2, 1].
        let p = SelectShape::new(&[2, 1], &[2, 3], &[2, 3]).expect("shape");
        let mut out = [0i8; 6];
        select(
            &p,
            &[1, 0],
            &[1, 2, 3, 4, 5, 6],
            &[-1, -2, -3, -4, -5, -6],
            &mut out,
        );
        assert_eq!(out, [1, 2, 3, -4, -5, -6]);
        // Condition [3], x [2, 1], y scalar → [2, 3].
        let p = SelectShape::new(&[3], &[2, 1], &[]).expect("shape");
        assert_eq!(p.dims(), &[2, 3]);
        let mut out = [0f32; 6];
        select(&p, &[1, 0, 1], &[1.0, 2.0], &[0.5], &mut out);
        assert_eq!(out, [1.0, 0.5, 1.0, 2.0, 0.5, 2.0]);
        assert!(SelectShape::new(&[2], &[3], &[3]).is_none());
    }

    /// Property tests (proptest is a native-only dev-dependency).
    #[cfg(not(target_arch = "wasm32"))]
    mod props {
        use proptest::prelude::*;

        use super::*;

        /// Row-major strides of `dims`.
        fn strides(dims: &[usize]) -> Vec<usize> {
            let mut s = vec![1; dims.len()];
            for i in (0..dims.len().saturating_sub(1)).rev() {
                s[i] = s[i + 1] * dims[i + 1];
            }
            s
        }

        /// The flat index in `shape` (right-aligned, broadcast) of output coordinate `idx`.
        fn at(shape: &[usize], idx: &[usize]) -> usize {
            let pad = idx.len() - shape.len();
            let st = strides(shape);
            (0..shape.len())
                .map(|k| {
                    if shape[k] == 1 {
                        0
                    } else {
                        idx[pad + k] * st[k]
                    }
                })
                .sum()
        }

        /// A shape of `rank` dims from `full`, each dim kept or set to 1 by `mask`, with the first
        /// `drop` dims removed (lower rank).
        fn derive(full: &[usize], mask: u8, drop: usize) -> Vec<usize> {
            full.iter()
                .enumerate()
                .map(|(i, &d)| if mask & (1 << i) != 0 { 1 } else { d })
                .skip(drop.min(full.len()))
                .collect()
        }

        proptest! {
            #[test]
            fn select_broadcasts_like_numpy(
                full in proptest::collection::vec(1usize..4, 0..5),
                masks in any::<[u8; 3]>(),
                drops in any::<[u8; 3]>(),
                seed in any::<u64>(),
            ) {
                let shapes: Vec<Vec<usize>> = (0..3)
                    .map(|k| derive(&full, masks[k], usize::from(drops[k] % 3)))
                    .collect();
                let p = SelectShape::new(&shapes[0], &shapes[1], &shapes[2]).expect("broadcastable");
                let n = |s: &[usize]| s.iter().product::<usize>();
                let cond: Vec<u8> = (0..n(&shapes[0])).map(|i| ((seed >> (i % 64)) & 1) as u8).collect();
                let x: Vec<i32> = (0..n(&shapes[1])).map(|i| i as i32).collect();
                let y: Vec<i32> = (0..n(&shapes[2])).map(|i| -1 - i as i32).collect();
                let dims = p.dims().to_vec();
                let mut out = vec![0i32; n(&dims)];
                select(&p, &cond, &x, &y, &mut out);
                let mut idx = vec![0usize; dims.len()];
                for (o, &got) in out.iter().enumerate() {
                    let mut rem = o;
                    for k in (0..dims.len()).rev() {
                        idx[k] = rem % dims[k];
                        rem /= dims[k];
                    }
                    let want = if cond[at(&shapes[0], &idx)] != 0 {
                        x[at(&shapes[1], &idx)]
                    } else {
                        y[at(&shapes[2], &idx)]
                    };
                    prop_assert_eq!(got, want);
                }
            }

            /// With one scale of at least 1/128 and one zero point on both sides, rescaling keeps
            /// values at least 2 apart (each side's rounding is off by less than 1): the quantized
            /// comparison is the comparison of the raw integers.
            #[test]
            fn equal_parameters_compare_raw(
                a in any::<[i8; 8]>(),
                b in any::<[i8; 8]>(),
                scale in (1.0f64 / 128.0)..0.999,
                zp in -128i32..128,
            ) {
                let (multiplier, shift) = quantize_multiplier(scale);
                let side = QuantCompareSide { offset: -zp, multiplier, shift };
                let s = Broadcast::new(&[8], &[8]).expect("broadcast");
                for op in [
                    CompareOp::Equal,
                    CompareOp::NotEqual,
                    CompareOp::Less,
                    CompareOp::LessEqual,
                    CompareOp::Greater,
                    CompareOp::GreaterEqual,
                ] {
                    let (mut q, mut r) = ([0u8; 8], [0u8; 8]);
                    compare_quantized(op, (&side, &side), &s, &a, &b, &mut q);
                    compare(op, &s, &a, &b, &mut r);
                    prop_assert_eq!(q, r, "{:?}", op);
                }
            }
        }
    }
}
