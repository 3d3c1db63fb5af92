//! Integer convolutions and fully connected layers over NHWC tensors: int8 activations with
//! int32 accumulators (the `int8` scheme) and int16 activations with int64 accumulators (the
//! `16x8` scheme), int8 symmetric weights, per-channel requantization.
//!
//! The arithmetic is LiteRT's `reference_integer_ops` (`conv.h`, `depthwise_conv.h`,
//! `transpose_conv.h`, `fully_connected.h`): accumulate `filter · (input + input_offset)`, add the
//! bias, requantize with the channel's Q31 multiplier and shift, add the output zero point, clamp
//! to the activation range. Integer sums are exact (wrapping like the C++ on two's-complement
//! machines), so the order of accumulation does not matter.
//!
//! Which requantization each accumulator width uses is chosen by [`Accumulator`]:
//! int32 → [`multiply_by_quantized_multiplier`] (double rounding, as LiteRT's pip wheels are
//! built), int64 → [`multiply_by_quantized_multiplier_i64`]. The goldens confirm both.

use super::conv::ConvParams;
use crate::fixedpoint::{multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};

/// Everything an integer kernel needs besides geometry, fixed at prepare time.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantParams {
    /// `−input_zero_point`, added to every input value.
    pub input_offset: i32,
    /// The output zero point, added after requantization.
    pub output_offset: i32,
    /// Lowest output value (activation clamp, in output units).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Q31 multiplier per output channel.
    pub multipliers: Vec<i32>,
    /// Exponent per output channel (positive = left shift).
    pub shifts: Vec<i32>,
    /// The real multiplier per output channel, `(double)s_in · (double)s_w / (double)s_out`
    /// (the kernels that rescale in double precision use it instead of `multipliers`).
    pub real_multipliers: Vec<f64>,
}

impl QuantParams {
    /// Requantizes channel `c`'s accumulator: multiply, add the output zero point, clamp.
    #[inline(always)]
    pub fn finish<A: Accumulator>(&self, acc: A, c: usize) -> i32 {
        let scaled = acc.requantize(self.multipliers[c], self.shifts[c]);
        scaled
            .wrapping_add(self.output_offset)
            .max(self.act_min)
            .min(self.act_max)
    }

    /// Requantizes channel `c`'s accumulator in double precision, as LiteRT's reference
    /// FULLY_CONNECTED does: `(int32)round((double)acc · real_multiplier)`, add the output zero
    /// point, clamp.
    #[inline(always)]
    pub fn finish_double<A: Accumulator>(&self, acc: A, c: usize) -> i32 {
        let scaled = (acc.to_f64() * self.real_multipliers[c]).round() as i32;
        scaled
            .wrapping_add(self.output_offset)
            .max(self.act_min)
            .min(self.act_max)
    }
}

/// A quantized activation element (`i8` or `i16`).
pub trait QuantElem: Copy + bytemuck::Pod {
    /// The value, widened.
    fn to_i32(self) -> i32;
    /// Narrows a value already clamped to the type's range.
    fn from_clamped(v: i32) -> Self;
}

impl QuantElem for i8 {
    #[inline(always)]
    fn to_i32(self) -> i32 {
        i32::from(self)
    }
    #[inline(always)]
    fn from_clamped(v: i32) -> Self {
        v as i8
    }
}

impl QuantElem for i16 {
    #[inline(always)]
    fn to_i32(self) -> i32 {
        i32::from(self)
    }
    #[inline(always)]
    fn from_clamped(v: i32) -> Self {
        v as i16
    }
}

/// The accumulator of an integer kernel: `i32` (int8 activations) or `i64` (int16).
pub trait Accumulator: Copy + Default {
    /// `self + filter · input` (wrapping).
    fn mac(self, filter: i32, input: i32) -> Self;
    /// `self + other` (wrapping).
    fn plus(self, other: Self) -> Self;
    /// LiteRT's `MultiplyByQuantizedMultiplier` for this accumulator width.
    fn requantize(self, multiplier: i32, shift: i32) -> i32;
    /// The value as a double (exact below 2^53).
    fn to_f64(self) -> f64;
}

impl Accumulator for i32 {
    #[inline(always)]
    fn mac(self, filter: i32, input: i32) -> Self {
        self.wrapping_add(filter.wrapping_mul(input))
    }
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn requantize(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier(self, multiplier, shift)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Accumulator for i64 {
    #[inline(always)]
    fn mac(self, filter: i32, input: i32) -> Self {
        self.wrapping_add(i64::from(filter) * i64::from(input))
    }
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn requantize(self, multiplier: i32, shift: i32) -> i32 {
        multiply_by_quantized_multiplier_i64(self, multiplier, shift)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// CONV_2D, integer. Mirrors LiteRT `reference_integer_ops::ConvPerChannel` (int8 input with an
/// int32 accumulator, or int16 input with an int64 accumulator and an int32 or int64 bias):
/// per output element, sum `filter · (input + input_offset)` over the taps inside the image and
/// the channels of its group, add the bias, requantize with the channel's multiplier (double
/// rounding for int32, the int64 variant for int64), add the output zero point, clamp.
///
/// `filter` is `[out_c, filter_h, filter_w, filter_in_c]` (grouped when `in_c > filter_in_c`).
pub fn conv2d<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &ConvParams,
    filter_in_c: usize,
    q: &QuantParams,
    input: &[T],
    filter: &[i8],
    bias: Option<&[B]>,
    output: &mut [T],
) {
    let groups = p.in_c / filter_in_c.max(1);
    let filters_per_group = p.out_c / groups.max(1);
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                for oc in 0..p.out_c {
                    let group = oc / filters_per_group.max(1);
                    let mut acc = A::default();
                    for fy in 0..p.filter_h {
                        let in_y = in_y_origin + (p.dilation_h * fy) as isize;
                        if in_y < 0 || in_y >= p.in_h as isize {
                            continue;
                        }
                        for fx in 0..p.filter_w {
                            let in_x = in_x_origin + (p.dilation_w * fx) as isize;
                            if in_x < 0 || in_x >= p.in_w as isize {
                                continue;
                            }
                            let in_base = ((b * p.in_h + in_y as usize) * p.in_w + in_x as usize)
                                * p.in_c
                                + group * filter_in_c;
                            let f_base = ((oc * p.filter_h + fy) * p.filter_w + fx) * filter_in_c;
                            let row = &input[in_base..in_base + filter_in_c];
                            let taps = &filter[f_base..f_base + filter_in_c];
                            for (&x, &w) in row.iter().zip(taps) {
                                acc =
                                    acc.mac(i32::from(w), x.to_i32().wrapping_add(q.input_offset));
                            }
                        }
                    }
                    if let Some(bias) = bias {
                        acc = acc.plus(bias[oc].into());
                    }
                    output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                        T::from_clamped(q.finish(acc, oc));
                }
            }
        }
    }
}

/// DEPTHWISE_CONV_2D, integer. Mirrors LiteRT `reference_integer_ops::DepthwiseConvPerChannel`
/// (int8/int32 or int16/int64): output channel `ic · depth_multiplier + m` sums
/// `filter · (input + input_offset)` over the taps of input channel `ic` inside the image, adds
/// the bias, requantizes per channel, adds the output zero point, clamps. (LiteRT's int16
/// variant omits the offsets, which prepare has required to be 0.)
///
/// `filter` is `[1, filter_h, filter_w, out_c]` with `out_c = in_c · depth_multiplier`.
pub fn depthwise_conv2d<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &ConvParams,
    depth_multiplier: usize,
    q: &QuantParams,
    input: &[T],
    filter: &[i8],
    bias: Option<&[B]>,
    output: &mut [T],
) {
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                for ic in 0..p.in_c {
                    for m in 0..depth_multiplier {
                        let oc = m + ic * depth_multiplier;
                        let mut acc = A::default();
                        for fy in 0..p.filter_h {
                            let in_y = in_y_origin + (p.dilation_h * fy) as isize;
                            if in_y < 0 || in_y >= p.in_h as isize {
                                continue;
                            }
                            for fx in 0..p.filter_w {
                                let in_x = in_x_origin + (p.dilation_w * fx) as isize;
                                if in_x < 0 || in_x >= p.in_w as isize {
                                    continue;
                                }
                                let x = input[((b * p.in_h + in_y as usize) * p.in_w
                                    + in_x as usize)
                                    * p.in_c
                                    + ic];
                                let w = filter[(fy * p.filter_w + fx) * p.out_c + oc];
                                acc =
                                    acc.mac(i32::from(w), x.to_i32().wrapping_add(q.input_offset));
                            }
                        }
                        if let Some(bias) = bias {
                            acc = acc.plus(bias[oc].into());
                        }
                        output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                            T::from_clamped(q.finish(acc, oc));
                    }
                }
            }
        }
    }
}

/// TRANSPOSE_CONV, integer. Mirrors LiteRT `reference_integer_ops::TransposeConv` (int8/int32
/// or int16/int64): LiteRT scatters `(input + input_offset) · filter` into a zeroed int32/int64
/// scratch buffer, then adds the bias, requantizes per channel, adds the output zero point and
/// clamps. Integer sums do not depend on order, so this kernel gathers instead: each output
/// element sums the input elements whose scattered taps land on it — same result, no scratch.
///
/// `filter` is `[out_c, filter_h, filter_w, in_c]`; `pad_top`/`pad_left` are the rows/columns
/// cropped from the start of the full transposed output.
pub fn transpose_conv2d<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &ConvParams,
    q: &QuantParams,
    input: &[T],
    filter: &[i8],
    bias: Option<&[B]>,
    output: &mut [T],
) {
    let (sh, sw) = (p.stride_h.max(1), p.stride_w.max(1));
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            // in_y · stride_h − pad_top + fy = out_y.
            let y_full = out_y + p.pad_top;
            for out_x in 0..p.out_w {
                let x_full = out_x + p.pad_left;
                for oc in 0..p.out_c {
                    let mut acc = A::default();
                    for fy in 0..p.filter_h.min(y_full + 1) {
                        let ty = y_full - fy;
                        if !ty.is_multiple_of(sh) || ty / sh >= p.in_h {
                            continue;
                        }
                        let in_y = ty / sh;
                        for fx in 0..p.filter_w.min(x_full + 1) {
                            let tx = x_full - fx;
                            if !tx.is_multiple_of(sw) || tx / sw >= p.in_w {
                                continue;
                            }
                            let in_x = tx / sw;
                            let in_base = ((b * p.in_h + in_y) * p.in_w + in_x) * p.in_c;
                            let f_base = ((oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c;
                            let row = &input[in_base..in_base + p.in_c];
                            let taps = &filter[f_base..f_base + p.in_c];
                            for (&x, &w) in row.iter().zip(taps) {
                                acc =
                                    acc.mac(i32::from(w), x.to_i32().wrapping_add(q.input_offset));
                            }
                        }
                    }
                    if let Some(bias) = bias {
                        acc = acc.plus(bias[oc].into());
                    }
                    output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                        T::from_clamped(q.finish(acc, oc));
                }
            }
        }
    }
}
