//! Reductions over a set of axes: MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD (and SUM, which MEAN
//! is built on), over float32 and quantized integers; REDUCE_ANY over BOOL; ARG_MAX / ARG_MIN
//! and CUMSUM along one axis.

use super::int_elem::IntElem;
use super::{MAX_RANK, next_index};
use crate::fixedpoint::{multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};

/// Which axes of an input are reduced, and where each input element lands in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceParams {
    rank: usize,
    dims: [usize; MAX_RANK],
    /// Output element stride per input dim; 0 along reduced dims.
    out_strides: [usize; MAX_RANK],
    /// Elements folded into each output element.
    count: usize,
    /// Row-major input element strides.
    in_strides: [usize; MAX_RANK],
    /// Which dims are reduced.
    reduced: [bool; MAX_RANK],
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
        let mut in_strides = [0usize; MAX_RANK];
        let mut acc = 1usize;
        let mut count = 1usize;
        let mut in_acc = 1usize;
        for i in (0..rank).rev() {
            in_strides[i] = in_acc;
            in_acc = in_acc.saturating_mul(dims[i]);
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
            in_strides,
            reduced,
        })
    }

    /// For every output element in order, folds its group of input elements with `f` starting
    /// from `init` and hands the result to `emit(output_index, value)`. The group is visited in
    /// row-major order, the order in which LiteRT's `ReduceGeneric` meets them (which matters for
    /// the quantized product, whose every step rounds). An empty group emits `init`.
    pub(crate) fn fold_groups<T: Copy, A: Copy>(
        &self,
        input: &[T],
        init: A,
        f: impl Fn(A, T) -> A,
        mut emit: impl FnMut(usize, A),
    ) {
        let mut kept = ([0usize; MAX_RANK], [0usize; MAX_RANK], 0usize);
        let mut red = ([0usize; MAX_RANK], [0usize; MAX_RANK], 0usize);
        for i in 0..self.rank {
            let side = if self.reduced[i] { &mut red } else { &mut kept };
            side.0[side.2] = self.dims[i];
            side.1[side.2] = self.in_strides[i];
            side.2 += 1;
        }
        let (kept_dims, red_dims) = (&kept.0[..kept.2], &red.0[..red.2]);
        if kept_dims.contains(&0) {
            return;
        }
        let group_empty = red_dims.contains(&0);
        let mut kidx = [0usize; MAX_RANK];
        let mut o = 0usize;
        loop {
            let mut base = 0usize;
            for (k, &x) in kidx[..kept.2].iter().enumerate() {
                base += x * kept.1[k];
            }
            let mut value = init;
            if !group_empty {
                let mut ridx = [0usize; MAX_RANK];
                loop {
                    let mut off = base;
                    for (k, &x) in ridx[..red.2].iter().enumerate() {
                        off += x * red.1[k];
                    }
                    value = f(value, input[off]);
                    if !next_index(red_dims, &mut ridx[..red.2]) {
                        break;
                    }
                }
            }
            emit(o, value);
            o += 1;
            if !next_index(kept_dims, &mut kidx[..kept.2]) {
                break;
            }
        }
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
/// the number of reduced elements. An empty reduction gives the quiet NaN `0x7FC00000` in
/// every element, as LiteRT 2.3 does on x86 (x86's own 0 / 0 would be `0xFFC00000`).
pub fn mean(p: &ReduceParams, input: &[f32], output: &mut [f32]) {
    if p.count == 0 {
        output.fill(f32::NAN);
        return;
    }
    sum(p, input, output);
    let n = p.count as f32;
    for o in output.iter_mut() {
        *o /= n;
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

/// REDUCE_MIN: starts from `f32::MAX` (LiteRT's `std::numeric_limits<float>::max()`) and keeps
/// `current < x ? current : x` in row-major input order. Mirrors LiteRT's `ReduceGeneric` with
/// the min reducer.
pub fn min(p: &ReduceParams, input: &[f32], output: &mut [f32]) {
    output.fill(f32::MAX);
    p.walk(|i, o| {
        let x = input[i];
        // A NaN input replaces the current value, as in LiteRT.
        output[o] = if output[o] < x { output[o] } else { x };
    });
}

/// The requantization of a quantized MEAN or SUM, fixed at prepare time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantizedReduce {
    /// Input zero point.
    pub input_zero_point: i32,
    /// Q31 multiplier (for MEAN with the `1 / count` folded in).
    pub multiplier: i32,
    /// Its exponent.
    pub shift: i32,
    /// Output zero point.
    pub output_zero_point: i32,
}

impl QuantizedReduce {
    /// From the `QuantizeMultiplier(in_scale / out_scale)` pair (computed in double). For MEAN
    /// (`mean = true`) folds in `1 / count` as LiteRT's `reference_ops::QuantizedMeanOrSum`
    /// does: `s = min(floor(log2 count), 32, 31 + shift)`, `multiplier = (multiplier << s) /
    /// count` (64-bit, truncating), `shift -= s`.
    pub fn new(
        input_zero_point: i32,
        multiplier: i32,
        shift: i32,
        output_zero_point: i32,
        count: usize,
        mean: bool,
    ) -> Self {
        let (mut multiplier, mut shift) = (multiplier, shift);
        let n = count as u64;
        if mean && n > 0 {
            let log2 = 63 - n.leading_zeros() as i32;
            let s = log2.min(32).min(31 + shift).max(0);
            multiplier =
                ((i64::from(multiplier) << s) / i64::try_from(n).unwrap_or(i64::MAX)) as i32;
            shift -= s;
        }
        Self {
            input_zero_point,
            multiplier,
            shift,
            output_zero_point,
        }
    }

    /// The output (before saturating to the output type) of a group of `count` elements whose
    /// raw inputs sum (wrapping int32) to `sum`: `sum − input_zero_point · count` (64-bit,
    /// truncated to int32), `MultiplyByQuantizedMultiplier`, plus the output zero point.
    #[inline(always)]
    pub fn requantize(&self, sum: i32, count: i64) -> i32 {
        // Wrapping: a hostile zero point times a huge count must not panic.
        let shifted = i64::from(sum)
            .wrapping_sub(i64::from(self.input_zero_point).wrapping_mul(count))
            as i32;
        multiply_by_quantized_multiplier(shifted, self.multiplier, self.shift)
            .saturating_add(self.output_zero_point)
    }
}

/// Quantized MEAN / SUM. Mirrors LiteRT `reference_ops::QuantizedMeanOrSum` (the kReference
/// path of `reduce.cc` for int8, uint8 and int16): the raw inputs of each group summed in
/// wrapping int32, `sum − input_zero_point · count` (64-bit, truncated to int32), then
/// `MultiplyByQuantizedMultiplier` (double rounding) with [`QuantizedReduce`]'s multiplier, plus
/// the output zero point, saturated. An empty reduction leaves 0.
pub fn quantized_mean_or_sum<T: IntElem>(
    p: &ReduceParams,
    q: &QuantizedReduce,
    input: &[T],
    output: &mut [T],
) {
    if p.count == 0 {
        output.fill(T::saturate(0));
        return;
    }
    let n = i64::try_from(p.count).unwrap_or(i64::MAX);
    p.fold_groups(
        input,
        0i32,
        |acc, x| acc.wrapping_add(x.widen()),
        |o, sum| output[o] = T::saturate(q.requantize(sum, n)),
    );
}

/// The float rescale of an 8-bit SUM: `scale = s_in / s_out` and `bias = −zp_in · scale · count`,
/// both in float as LiteRT's `QuantizedMeanOrSum` (`compute_sum`) computes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantizedSum {
    /// `s_in / s_out` (float quotient of the float scales).
    pub scale: f32,
    /// `−zp_in · scale · count`, in float.
    pub bias: f32,
    /// Output zero point.
    pub output_zero_point: i32,
}

impl QuantizedSum {
    /// From the tensors' scales and zero points and the reduced count.
    pub fn new(
        in_scale: f32,
        in_zero_point: i32,
        out_scale: f32,
        out_zero_point: i32,
        count: usize,
    ) -> Self {
        let scale = in_scale / out_scale;
        Self {
            scale,
            bias: -(in_zero_point as f32) * scale * count as f32,
            output_zero_point: out_zero_point,
        }
    }
}

/// Quantized SUM of 8-bit values as LiteRT's optimized kernels compute it (`QuantizedMeanOrSum`
/// with `compute_sum`): the raw inputs of each group summed in wrapping int32, then
/// `round(sum · scale + bias)` in float (half away from zero) plus the output zero point,
/// saturated; an empty input gives raw 0. Measured against `BUILTIN_WITHOUT_DEFAULT_DELEGATES` on 3,200 random int8 sums
/// (0 differ; the fixed-point MEAN path is 1 LSB off on ~1 %). LiteRT 2.3's `BUILTIN_REF` build
/// gets this op wrong (it accumulates as unsigned: every negative sum is −1), so its goldens come
/// from the optimized resolver.
pub fn quantized_sum_8bit<T: IntElem>(
    p: &ReduceParams,
    q: &QuantizedSum,
    input: &[T],
    output: &mut [T],
) {
    // LiteRT zeroes the output and returns before any rescale when the input is empty (raw 0,
    // not the output zero point: mutant 1704 of seed 13).
    if p.count == 0 {
        output.fill(T::saturate(0));
        return;
    }
    p.fold_groups(
        input,
        0i32,
        |acc, x| acc.wrapping_add(x.widen()),
        |o, sum| {
            // `static_cast<int32>(TfLiteRound(·))`: beyond i32 on x86 gives i32::MIN.
            let v = super::quantize::round_to_i32_x86(sum as f32 * q.scale + q.bias)
                .saturating_add(q.output_zero_point);
            output[o] = T::saturate(v);
        },
    );
}

/// Quantized REDUCE_MAX. Mirrors LiteRT's `ReduceGeneric` with the max reducer on raw integers
/// (input and output share scale and zero point): start from the type's lowest value, keep
/// `in > current ? in : current`.
pub fn max_int<T: IntElem>(p: &ReduceParams, input: &[T], output: &mut [T]) {
    p.fold_groups(
        input,
        T::MIN,
        |cur, x| cur.max(x.widen()),
        |o, m| output[o] = T::saturate(m),
    );
}

/// Quantized REDUCE_MIN: as [`max_int`] with the min reducer, starting from the type's largest
/// value (input and output share scale and zero point).
pub fn min_int<T: IntElem>(p: &ReduceParams, input: &[T], output: &mut [T]) {
    p.fold_groups(
        input,
        T::MAX,
        |cur, x| cur.min(x.widen()),
        |o, m| output[o] = T::saturate(m),
    );
}

/// REDUCE_PROD: starts from 1 and multiplies in row-major input order. Mirrors LiteRT's
/// `ReduceGeneric` with the product reducer (float).
pub fn prod(p: &ReduceParams, input: &[f32], output: &mut [f32]) {
    output.fill(1.0);
    p.walk(|i, o| output[o] *= input[i]);
}

/// Which reduction [`plain_int`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainReduce {
    /// SUM: from 0, `current + x`.
    Sum,
    /// REDUCE_PROD: from 1, `current * x`.
    Prod,
    /// REDUCE_MAX: from the type's lowest value.
    Max,
    /// REDUCE_MIN: from the type's largest value.
    Min,
}

/// An unquantized integer element of a reduction (INT32, INT64): shape arithmetic such as the
/// element count Keras computes for a Dense layer on a 3-D input (`REDUCE_PROD` of a gathered
/// `SHAPE`).
pub trait PlainInt: Copy + Ord + bytemuck::Pod {
    /// Lowest value.
    const MIN: Self;
    /// Largest value.
    const MAX: Self;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Two's-complement `a + b`.
    fn add(a: Self, b: Self) -> Self;
    /// Two's-complement `a * b`.
    fn mul(a: Self, b: Self) -> Self;
}

macro_rules! plain_int {
    ($($t:ty),*) => {$(
        impl PlainInt for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
        }
    )*};
}
plain_int!(i32, i64);

/// SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN on plain INT32 / INT64. Mirrors LiteRT's
/// `ReduceGeneric<int32_t>` / `<int64_t>` (reduce.cc `EvalType` for an unquantized integer
/// type): each output starts from the reducer's initial value and folds the inputs in row-major
/// order; an overflow wraps as the two's-complement machine arithmetic LiteRT runs on does.
pub fn plain_int<T: PlainInt>(p: &ReduceParams, op: PlainReduce, input: &[T], output: &mut [T]) {
    let (init, f): (T, fn(T, T) -> T) = match op {
        PlainReduce::Sum => (T::ZERO, T::add),
        PlainReduce::Prod => (T::ONE, T::mul),
        PlainReduce::Max => (T::MIN, |a, b| a.max(b)),
        PlainReduce::Min => (T::MAX, |a, b| a.min(b)),
    };
    p.fold_groups(input, init, f, |o, v| output[o] = v);
}

/// REDUCE_ANY on BOOL bytes: starts from false, `current || x`. Mirrors LiteRT's `ReduceGeneric`
/// with the logical-or reducer.
pub fn any(p: &ReduceParams, input: &[u8], output: &mut [u8]) {
    p.fold_groups(
        input,
        false,
        |cur, x| cur || x != 0,
        |o, v| output[o] = u8::from(v),
    );
}

/// The rescaling of a quantized REDUCE_PROD, fixed at prepare time: LiteRT's
/// `GetQuantProdScaling` spreads `s_in^n / s_out` over the `n` multiplications as the per-step
/// factor `s_in / s_out^(1/n)` (in double), quantized with `QuantizeMultiplier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantizedProd {
    /// Input zero point.
    pub input_zero_point: i32,
    /// Q31 multiplier of the per-step factor.
    pub multiplier: i32,
    /// Its exponent.
    pub shift: i32,
    /// Output zero point.
    pub output_zero_point: i32,
}

/// Quantized REDUCE_PROD. Mirrors LiteRT's `reference_ops::QuantizedReduceProd`: the first
/// element of a group starts the int32 running product as `q − input_zero_point`; each further
/// element multiplies it (in int64) by `q − input_zero_point` and rescales with the int64
/// `MultiplyByQuantizedMultiplier` (multiplier reduced to 15 bits, one rounding shift); a last
/// rescale of the product, the output zero point added, and a clamp to the type give the output.
/// So an `n`-element product is rescaled `n` times by `s_in / s_out^(1/n)`.
pub fn quantized_prod<T: IntElem>(
    p: &ReduceParams,
    q: &QuantizedProd,
    input: &[T],
    output: &mut [T],
) {
    p.fold_groups(
        input,
        None,
        |cur: Option<i32>, x| {
            let actual = x.widen() - q.input_zero_point;
            Some(match cur {
                None => actual,
                Some(c) => multiply_by_quantized_multiplier_i64(
                    i64::from(c) * i64::from(actual),
                    q.multiplier,
                    q.shift,
                ),
            })
        },
        |o, v| {
            let prod = v.unwrap_or(1);
            let r = multiply_by_quantized_multiplier_i64(i64::from(prod), q.multiplier, q.shift);
            output[o] = T::saturate(r.saturating_add(q.output_zero_point));
        },
    );
}

/// An element CUMSUM adds: float addition, or wrapping integer addition (an overflow is
/// undefined in LiteRT's C++; here it wraps instead of panicking).
pub trait CumAdd: Copy + Default {
    /// `self + other`.
    fn cum_add(self, other: Self) -> Self;
}

impl CumAdd for f32 {
    fn cum_add(self, other: Self) -> Self {
        self + other
    }
}

impl CumAdd for i32 {
    fn cum_add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

impl CumAdd for i64 {
    fn cum_add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

/// CUMSUM along one axis of a `[outer, axis, inner]` view: running sums in axis order (from the
/// end when `reverse`), each output the sum before its element when `exclusive`. Mirrors LiteRT's
/// `optimized_ops::CumSum` (its only kernel), summing in `T`.
pub fn cumsum<T: CumAdd>(
    p: &ArgParams,
    exclusive: bool,
    reverse: bool,
    input: &[T],
    output: &mut [T],
) {
    for o in 0..p.outer {
        for i in 0..p.inner {
            let mut acc = T::default();
            for step in 0..p.axis {
                let a = if reverse { p.axis - 1 - step } else { step };
                let at = (o * p.axis + a) * p.inner + i;
                if exclusive {
                    output[at] = acc;
                    acc = acc.cum_add(input[at]);
                } else {
                    acc = acc.cum_add(input[at]);
                    output[at] = acc;
                }
            }
        }
    }
}

/// ARG_MAX / ARG_MIN (and CUMSUM) along one axis: the input viewed as `[outer, axis, inner]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgParams {
    /// Product of the dims before the axis.
    pub outer: usize,
    /// The axis' length (at least 1).
    pub axis: usize,
    /// Product of the dims after the axis.
    pub inner: usize,
}

/// ARG_MAX (`max`) or ARG_MIN over raw values (float32, or quantized integers, whose order is
/// the order of the real values): for every `(outer, inner)` the index of the first element that
/// no later one beats strictly, i.e. ties keep the first index and a NaN never wins unless it
/// comes first. Mirrors LiteRT's `reference_ops::ArgMinMax` (`std::greater` / `std::less`).
/// `index` turns the position into the output element (INT32 or INT64).
pub fn arg_min_max<T: PartialOrd + Copy, O: Copy>(
    p: &ArgParams,
    max: bool,
    input: &[T],
    output: &mut [O],
    index: impl Fn(usize) -> O,
) {
    for o in 0..p.outer {
        for i in 0..p.inner {
            let base = o * p.axis * p.inner + i;
            let mut best = input[base];
            let mut best_at = 0usize;
            for a in 1..p.axis {
                let v = input[base + a * p.inner];
                let wins = if max { v > best } else { v < best };
                if wins {
                    best = v;
                    best_at = a;
                }
            }
            output[o * p.inner + i] = index(best_at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_integer_reductions() {
        let p = ReduceParams::new(&[2, 3], &[1]).expect("params");
        let x = [2i32, 3, 4, -5, 6, 7];
        let mut out = [0i32; 2];
        plain_int(&p, PlainReduce::Prod, &x, &mut out);
        assert_eq!(out, [24, -210]);
        plain_int(&p, PlainReduce::Sum, &x, &mut out);
        assert_eq!(out, [9, 8]);
        plain_int(&p, PlainReduce::Max, &x, &mut out);
        assert_eq!(out, [4, 7]);
        plain_int(&p, PlainReduce::Min, &x, &mut out);
        assert_eq!(out, [2, -5]);
        let mut o64 = [0i64; 1];
        let all = ReduceParams::new(&[2], &[0]).expect("params");
        plain_int(&all, PlainReduce::Prod, &[i64::MAX, 2], &mut o64);
        assert_eq!(o64, [-2], "wraps as two's complement");
    }

    #[test]
    fn prod_any_and_cumsum() {
        let p = ReduceParams::new(&[2, 3], &[1]).expect("params");
        let mut out = [0f32; 2];
        prod(&p, &[1.0, 2.0, 3.0, -1.0, 0.5, 4.0], &mut out);
        assert_eq!(out, [6.0, -2.0]);
        let mut b = [9u8; 2];
        any(&p, &[0, 0, 1, 0, 0, 0], &mut b);
        assert_eq!(b, [1, 0]);
        // Quantized: zero points 0, per-step factor 1 (multiplier 2^30, shift 1): 2·3·4 = 24,
        // rescaled three times by 1.
        let q = QuantizedProd {
            input_zero_point: 0,
            multiplier: 1 << 30,
            shift: 1,
            output_zero_point: -1,
        };
        let mut o8 = [0i8; 2];
        quantized_prod(&p, &q, &[2i8, 3, 4, -128, 2, 1], &mut o8);
        assert_eq!(o8, [23, -128]);
        let a = ArgParams {
            outer: 1,
            axis: 3,
            inner: 2,
        };
        let x = [1i32, 10, 2, 20, 3, 30];
        let mut c = [0i32; 6];
        cumsum(&a, false, false, &x, &mut c);
        assert_eq!(c, [1, 10, 3, 30, 6, 60]);
        cumsum(&a, true, true, &x, &mut c);
        assert_eq!(c, [5, 50, 3, 30, 0, 0]);
    }

    #[test]
    fn arg_max_min_keep_the_first_of_ties() {
        // [2, 3, 2] over axis 1: columns of the two outer blocks.
        let p = ArgParams {
            outer: 2,
            axis: 3,
            inner: 2,
        };
        let x: [i8; 12] = [1, 5, 7, 5, 7, 0, -1, -1, -3, -1, -3, -2];
        let mut out = [0i32; 4];
        arg_min_max(&p, true, &x, &mut out, |i| i as i32);
        assert_eq!(out, [1, 0, 0, 0]);
        arg_min_max(&p, false, &x, &mut out, |i| i as i32);
        assert_eq!(out, [0, 2, 1, 2]);
        let f = [f32::NAN, 1.0, 2.0];
        let p = ArgParams {
            outer: 1,
            axis: 3,
            inner: 1,
        };
        let mut out = [0i64; 1];
        arg_min_max(&p, true, &f, &mut out, |i| i as i64);
        assert_eq!(out, [0]);
    }

    #[test]
    fn quantized_mean_folds_the_count_into_the_multiplier() {
        // Same scale (multiplier 0.5 · 2^1 → (2^30, 1)), count 4: s = 2, multiplier
        // 2^32 / 4 = 2^30, shift -1 → a real factor of 1/4.
        let q = QuantizedReduce::new(-128, 1 << 30, 1, -128, 4, true);
        assert_eq!((q.multiplier, q.shift), (1 << 30, -1));
        // [1, 2, 2, 2] channel values -128, -127, -125, -120 (offsets 0, 1, 3, 8 → 12 / 4 = 3)
        // and 127, 127, 126, 127 (offsets 255, 255, 254, 255 → 1019 / 4 = 254.75 → 255 → 127).
        let p = ReduceParams::new(&[1, 2, 2, 2], &[1, 2]).expect("valid");
        let x: [i8; 8] = [-128, 127, -127, 127, -125, 126, -120, 127];
        let mut out = [0i8; 2];
        quantized_mean_or_sum(&p, &q, &x, &mut out);
        assert_eq!(out, [-125, 127]);
        // Count 3 over a row of [3, 4, 6] with zero point 0: multiplier (2^30 << 1) / 3, shift
        // 0 → 13 · 2/3 · 2^-1 = 4.33 → 4.
        let q3 = QuantizedReduce::new(0, 1 << 30, 1, 0, 3, true);
        assert_eq!((q3.multiplier, q3.shift), (((1i64 << 31) / 3) as i32, 0));
        let p3 = ReduceParams::new(&[1, 3], &[1]).expect("valid");
        let mut one = [0i16];
        quantized_mean_or_sum(&p3, &q3, &[3i16, 4, 6], &mut one);
        assert_eq!(one, [4]);
        quantized_mean_or_sum(&p3, &q3, &[-3i16, -4, -7], &mut one);
        // -14 / 3 = -4.67 → -5
        assert_eq!(one, [-5]);
    }

    #[test]
    fn quantized_sum_rescales_with_a_multiplier_above_one() {
        // in/out scale ratio 3 → (0.75 · 2^31, 2); sum of (x - 1) over the row times 3.
        let q = QuantizedReduce::new(1, 3 << 29, 2, 5, 2, false);
        let p = ReduceParams::new(&[2, 2], &[1]).expect("valid");
        let mut out = [0i8; 2];
        // row 0: (2 - 1) + (3 - 1) = 3 → 9 + 5 = 14; row 1: (100 - 1) · 2 = 198 · 3 → 127.
        quantized_mean_or_sum(&p, &q, &[2i8, 3, 100, 100], &mut out);
        assert_eq!(out, [14, 127]);
    }

    #[test]
    fn quantized_mean_with_a_tiny_multiplier_gives_the_zero_point() {
        // in/out = 2^-40 flushes to (0, 0) in QuantizeMultiplier: every output is the zero point.
        let (m, s) = crate::fixedpoint::quantize_multiplier(2f64.powi(-40));
        assert_eq!((m, s), (0, 0));
        let q = QuantizedReduce::new(0, m, s, 127, 2, true);
        let p = ReduceParams::new(&[1, 2], &[1]).expect("valid");
        let mut out = [0i8];
        quantized_mean_or_sum(&p, &q, &[127i8, 127], &mut out);
        assert_eq!(out, [127]);
        // 2^-20: 127 · 2^-20 rounds to 0 → the zero point -128.
        let (m, s) = crate::fixedpoint::quantize_multiplier(2f64.powi(-20));
        let q = QuantizedReduce::new(0, m, s, -128, 2, true);
        quantized_mean_or_sum(&p, &q, &[127i8, 127], &mut out);
        assert_eq!(out, [-128]);
    }

    #[test]
    fn reduce_max_int_over_middle_axis_and_empty_groups() {
        let p = ReduceParams::new(&[2, 3, 2], &[1]).expect("valid");
        let x: [i8; 12] = [1, -5, 7, -6, -128, -7, 0, 0, 0, 127, -1, 0];
        let mut out = [0i8; 4];
        max_int(&p, &x, &mut out);
        assert_eq!(out, [7, -5, 0, 127]);
        let empty = ReduceParams::new(&[2, 0], &[1]).expect("valid");
        let mut out = [0i16; 2];
        max_int(&empty, &[], &mut out);
        assert_eq!(out, [i16::MIN; 2]);
    }

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

    /// LiteRT 2.3 BUILTIN_REF on `op_mean_axis3_keepdims`'s float model with the reduced axis
    /// declared 0 gives the quiet NaN 0x7FC00000 in every output element; SUM gives 0.
    #[test]
    fn an_empty_mean_is_nan_and_an_empty_sum_zero() {
        let p = ReduceParams::new(&[2, 0], &[1]).expect("valid");
        let mut out = [9.0; 2];
        mean(&p, &[], &mut out);
        assert!(out.iter().all(|v| v.to_bits() == 0x7FC0_0000), "{out:?}");
        sum(&p, &[], &mut out);
        assert_eq!(out, [0.0, 0.0]);
    }
}
