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
//! built), int64 → [`multiply_by_quantized_multiplier_i64`]. The goldens confirm both, and so
//! does LiteRT 2.3's `BUILTIN_REF` on random inputs (int8, int8 with float I/O, 16x8 with int64
//! and int32 bias).

use super::conv::ConvParams;
use super::quantize::round_f64_to_i32_x86;
use crate::fixedpoint::{multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64};
use crate::xnnpack::{Fp32Requant, requantize};

/// Everything an integer kernel needs besides geometry, fixed at prepare time.
#[derive(Debug, Clone, PartialEq)]
pub struct RequantParams {
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
    /// XNNPACK's `f32` requantization ([`crate::Arithmetic::Xnnpack`], int8 only):
    /// when present, [`RequantParams::finish`] and [`RequantParams::finish_double`] requantize
    /// with it instead (and `act_min..=act_max` is XNNPACK's clamp).
    pub xnnpack: Option<Fp32Requant>,
}

impl RequantParams {
    /// Requantizes channel `c`'s accumulator: multiply, add the output zero point, clamp.
    #[inline(always)]
    pub fn finish<A: Accumulator>(&self, acc: A, c: usize) -> i32 {
        if let Some(x) = &self.xnnpack {
            return self.finish_xnnpack(x, acc, c);
        }
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
        if let Some(x) = &self.xnnpack {
            return self.finish_xnnpack(x, acc, c);
        }
        // Out of `i32` (an absurd output scale) it is `i32::MIN`, as LiteRT's x86 build casts.
        let scaled = round_f64_to_i32_x86(acc.to_f64() * self.real_multipliers[c]);
        scaled
            .wrapping_add(self.output_offset)
            .max(self.act_min)
            .min(self.act_max)
    }
}

impl RequantParams {
    /// XNNPACK's requantization of channel `c`'s (int32) accumulator, clamped to
    /// `act_min..=act_max`.
    #[inline(always)]
    fn finish_xnnpack<A: Accumulator>(&self, x: &Fp32Requant, acc: A, c: usize) -> i32 {
        requantize(
            acc.low_i32(),
            x.scales[c],
            self.output_offset,
            self.act_min,
            self.act_max,
        )
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
    /// The low 32 bits (the value itself for `i32`).
    fn low_i32(self) -> i32;
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
    #[inline(always)]
    fn low_i32(self) -> i32 {
        self
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
    #[inline(always)]
    fn low_i32(self) -> i32 {
        self as i32
    }
}

/// CONV_2D, integer. Mirrors LiteRT `reference_integer_ops::ConvPerChannel`: int8 input with an
/// int32 accumulator, or int16 input accumulating in its bias type (int64, or int32 when the
/// model carries an int32 bias): per output element, sum `filter · (input + input_offset)` over
/// the taps inside the image and the channels of its group, add the bias, requantize with the
/// channel's multiplier, add the output zero point, clamp.
///
/// Rounding, as measured on the goldens (bit-exact, also on random inputs): int32 accumulators
/// use the **double-rounding** `MultiplyByQuantizedMultiplier` (single rounding is 1 LSB off on
/// some int8 outputs), int64 accumulators the int64 variant (15-bit multiplier, one rounding
/// shift); a double-precision rescale is off on many 16x8 outputs.
///
/// `filter` is `[out_c, filter_h, filter_w, filter_in_c]` (grouped when `in_c > filter_in_c`).
pub fn conv2d<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &ConvParams,
    filter_in_c: usize,
    q: &RequantParams,
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
/// (int8 with int32 accumulator and double-rounding requantization; int16 with int64 bias and
/// accumulator and the int64 requantization — measured bit-exact on the goldens): output channel
/// `ic · depth_multiplier + m` sums `filter · (input + input_offset)` over the taps of input
/// channel `ic` inside the image, adds the bias, requantizes per channel, adds the output zero
/// point, clamps. (LiteRT's int16 variant omits the offsets, which prepare has required to be 0.)
///
/// `filter` is `[1, filter_h, filter_w, out_c]` with `out_c = in_c · depth_multiplier`.
pub fn depthwise_conv2d<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &ConvParams,
    depth_multiplier: usize,
    q: &RequantParams,
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

/// TRANSPOSE_CONV, integer. Mirrors LiteRT `reference_integer_ops::TransposeConv` (int8 with an
/// int32 scratch; int16 with an int64 or, for int32 bias, int32 scratch; the same requantization
/// flavours as [`conv2d`], measured bit-exact): LiteRT scatters `(input + input_offset) · filter`
/// into a zeroed scratch buffer, then adds the bias, requantizes per channel, adds the output
/// zero point and clamps. Integer sums do not depend on order, so this kernel gathers instead:
/// each output element sums the input elements whose scattered taps land on it — same result, no
/// scratch.
///
/// `filter` is `[out_c, filter_h, filter_w, in_c]`; `pad_top`/`pad_left` are the rows/columns
/// cropped from the start of the full transposed output.
pub fn transpose_conv2d<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &ConvParams,
    q: &RequantParams,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixedpoint::quantize_multiplier;
    use crate::reference::ActivationRange;

    fn geometry(
        in_hw: (usize, usize),
        in_c: usize,
        out_hw: (usize, usize),
        out_c: usize,
    ) -> ConvParams {
        ConvParams {
            batches: 1,
            in_h: in_hw.0,
            in_w: in_hw.1,
            in_c,
            out_h: out_hw.0,
            out_w: out_hw.1,
            out_c,
            filter_h: 1,
            filter_w: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            act: ActivationRange::NONE,
        }
    }

    /// Requantization with one real multiplier for all `channels`, input zero point `in_zp`,
    /// output zero point `out_zp`, clamp `[lo, hi]`.
    fn quant(
        real: f64,
        channels: usize,
        in_zp: i32,
        out_zp: i32,
        lo: i32,
        hi: i32,
    ) -> RequantParams {
        let (m, s) = quantize_multiplier(real);
        RequantParams {
            input_offset: -in_zp,
            output_offset: out_zp,
            act_min: lo,
            act_max: hi,
            multipliers: vec![m; channels],
            shifts: vec![s; channels],
            real_multipliers: vec![real; channels],
            xnnpack: None,
        }
    }

    #[test]
    fn conv_1x1_int8_input_zero_point_minus_128_and_bias() {
        // Two pixels, two channels, one filter [1, −2]; input zero point −128 (offset +128).
        // Pixel 0: (−128, −126) → (0, 2): 1·0 − 2·2 = −4, + bias 10 = 6, · 0.5 = 3, − 128 = −125.
        // Pixel 1: (−118, −127) → (10, 1): 10 − 2 = 8, + 10 = 18, · 0.5 = 9, − 128 = −119.
        let p = geometry((1, 2), 2, (1, 2), 1);
        let q = quant(0.5, 1, -128, -128, -128, 127);
        let mut out = [0i8; 2];
        conv2d::<i8, i32, i32>(
            &p,
            2,
            &q,
            &[-128, -126, -118, -127],
            &[1, -2],
            Some(&[10]),
            &mut out,
        );
        assert_eq!(out, [-125, -119]);
    }

    #[test]
    fn conv_multiplier_above_one_zero_point_127_and_relu6_clamp() {
        // Multiplier 3 (Q31 mantissa 0.75, shift 2). Input zero point 127 (offset −127), output
        // zero point 10, clamp [10, 40] (a RELU6-like window). Filter [2, 1]: 2·x0 + x1.
        // Pixels (127, 120), (125, 127), (120, 127) → (0, −7), (−2, 0), (−7, 0):
        // sums −7, −4, −14 → ·3 = −21, −12, −42 → +10 = −11, −2, −32 → clamp 10, 10, 10.
        let p = geometry((1, 3), 2, (1, 3), 1);
        let q = quant(3.0, 1, 127, 10, 10, 40);
        assert_eq!((q.multipliers[0], q.shifts[0]), (3 << 29, 2));
        let mut out = [0i8; 3];
        conv2d::<i8, i32, i32>(
            &p,
            2,
            &q,
            &[127, 120, 125, 127, 120, 127],
            &[2, 1],
            None,
            &mut out,
        );
        assert_eq!(out, [10, 10, 10]);
        // Without the clamp the multiplier shows: −11, −2, −32.
        let wide = quant(3.0, 1, 127, 10, -128, 127);
        conv2d::<i8, i32, i32>(
            &p,
            2,
            &wide,
            &[127, 120, 125, 127, 120, 127],
            &[2, 1],
            None,
            &mut out,
        );
        assert_eq!(out, [-11, -2, -32]);
        conv2d::<i8, i32, i32>(
            &p,
            2,
            &q,
            &[127, 120, 125, 127, 120, 127],
            &[2, 1],
            Some(&[30]),
            &mut out,
        );
        // With bias 30: sums 23, 26, 16 → ·3 = 69, 78, 48 → +10 = 79, 88, 58 → clamp 40.
        assert_eq!(out, [40, 40, 40]);
    }

    #[test]
    fn conv_tiny_multiplier_gives_the_output_zero_point() {
        // 1e-12 < 2^-31: QuantizeMultiplier flushes it to (0, 0), so every output is the
        // zero point, whatever the accumulator.
        let p = geometry((1, 1), 3, (1, 1), 2);
        let q = quant(1e-12, 2, 0, -7, -128, 127);
        assert_eq!((q.multipliers[0], q.shifts[0]), (0, 0));
        let mut out = [0i8; 2];
        conv2d::<i8, i32, i32>(
            &p,
            3,
            &q,
            &[127, 127, 127],
            &[127, 127, 127, -127, -127, -127],
            Some(&[1_000_000, -1_000_000]),
            &mut out,
        );
        assert_eq!(out, [-7, -7]);
    }

    #[test]
    fn conv_3x3_same_padding_skips_outside_taps_with_an_input_offset() {
        // 3x3 input of stored 5 with zero point 2 (real value 3 each), 3x3 filter of ones,
        // pad 1: corners sum 4 taps (12), edges 6 (18), centre 9 (27). Multiplier 1.
        let mut p = geometry((3, 3), 1, (3, 3), 1);
        p.filter_h = 3;
        p.filter_w = 3;
        p.pad_top = 1;
        p.pad_left = 1;
        let q = quant(1.0, 1, 2, 0, -128, 127);
        let mut out = [0i8; 9];
        conv2d::<i8, i32, i32>(&p, 1, &q, &[5; 9], &[1; 9], None, &mut out);
        assert_eq!(out, [12, 18, 12, 18, 27, 18, 12, 18, 12]);
    }

    #[test]
    fn grouped_conv_and_16x8_int64_bias() {
        // Two groups of one channel: oc0 sees channel 0, oc1 channel 1. int16 input, int64 bias
        // beyond int32 range, multiplier 2^-20: (1000·3 + 2^32) / 2^20 = 4096.00286 → 4096;
        // (−2000·7 − 2^32) / 2^20 → −4096.0134 → −4096.
        let p = geometry((1, 1), 2, (1, 1), 2);
        let q = quant(2f64.powi(-20), 2, 0, 0, -32768, 32767);
        let mut out = [0i16; 2];
        conv2d::<i16, i64, i64>(
            &p,
            1,
            &q,
            &[1000, -2000],
            &[3, 7],
            Some(&[1i64 << 32, -(1i64 << 32)]),
            &mut out,
        );
        assert_eq!(out, [4096, -4096]);
    }

    #[test]
    fn int16_requantization_follows_the_accumulator_width() {
        // acc 5 · 0.25 = 1.25. int32 accumulator (int32 bias): double rounding, SRDHM(5, 2^30)
        // = round(2.5) = 3, then 3 / 2 = 1.5 → 2. int64 accumulator: multiplier reduced to
        // 2^14, (5 · 2^14 + 2^15) >> 16 = 1.
        let p = geometry((1, 1), 1, (1, 1), 1);
        let q = quant(0.25, 1, 0, 0, -32768, 32767);
        let mut out = [0i16; 1];
        conv2d::<i16, i32, i32>(&p, 1, &q, &[5], &[1], Some(&[0]), &mut out);
        assert_eq!(out, [2]);
        conv2d::<i16, i64, i64>(&p, 1, &q, &[5], &[1], Some(&[0]), &mut out);
        assert_eq!(out, [1]);
    }

    #[test]
    fn depthwise_multiplier_2_odd_channels_per_channel_multipliers() {
        // 1x1, 3 channels, multiplier 2 → 6 outputs; filter taps w[oc] = oc + 1.
        // oc = ic·2 + m: values x = (1, 2, 3) → (1·1, 1·2, 2·3, 2·4, 3·5, 3·6) = (1, 2, 6, 8, 15, 18).
        // Per-channel multipliers: 1 for even channels, 0.5 for odd (ties away from zero:
        // 2·0.5 = 1, 8·0.5 = 4, 18·0.5 = 9).
        let p = geometry((1, 1), 3, (1, 1), 6);
        let mut q = quant(1.0, 6, 0, 0, -128, 127);
        let (m, s) = quantize_multiplier(0.5);
        for c in [1, 3, 5] {
            q.multipliers[c] = m;
            q.shifts[c] = s;
        }
        let mut out = [0i8; 6];
        depthwise_conv2d::<i8, i32, i32>(
            &p,
            2,
            &q,
            &[1, 2, 3],
            &[1, 2, 3, 4, 5, 6],
            None,
            &mut out,
        );
        assert_eq!(out, [1, 1, 6, 4, 15, 9]);
    }

    #[test]
    fn depthwise_dilation_2_stride_2_int16() {
        // 1x5 input 0..5 (int16), 1x2 filter dilated by 2 (taps at x and x + 2), stride 2,
        // VALID → out 2: (0 + 2·2, 2 + 2·4) = (4, 10) with filter (1, 2); bias 1; ×1.
        let mut p = geometry((1, 5), 1, (1, 2), 1);
        p.filter_w = 2;
        p.stride_w = 2;
        p.dilation_w = 2;
        let q = quant(1.0, 1, 0, 0, -32768, 32767);
        let mut out = [0i16; 2];
        depthwise_conv2d::<i16, i64, i32>(
            &p,
            1,
            &q,
            &[0, 1, 2, 3, 4],
            &[1, 2],
            Some(&[1]),
            &mut out,
        );
        assert_eq!(out, [5, 11]);
    }

    #[test]
    fn transpose_conv_gathers_what_the_reference_scatters() {
        // 1x2 input (1, 10) stored with zero point 3, 1x3 filter (1, 2, 3), stride 2: the full
        // output is [1, 2, 1·3 + 10·1, 20, 30] = [1, 2, 13, 20, 30]; pad_left 1 and width 4 keep
        // [2, 13, 20, 30]; bias 5 → [7, 18, 25, 35]; multiplier 1, output zero point −1.
        let mut p = geometry((1, 2), 1, (1, 4), 1);
        p.filter_w = 3;
        p.stride_w = 2;
        p.pad_left = 1;
        let q = quant(1.0, 1, 3, -1, -128, 127);
        let mut out = [0i8; 4];
        transpose_conv2d::<i8, i32, i32>(&p, &q, &[4, 13], &[1, 2, 3], Some(&[5]), &mut out);
        assert_eq!(out, [6, 17, 24, 34]);
    }

    #[test]
    fn transpose_conv_two_channels_in_and_out() {
        // 1x1 input with 2 channels (1, 2), 2x2 filter per output channel, stride 1:
        // out[y][x][oc] = Σ_ic in[ic] · w[oc][y][x][ic]. w[0] taps: (1,0),(0,1),(1,1),(2,0);
        // w[1] taps: (0,0),(1,1),(−1,0),(0,3). Output 2x2x2:
        // (0,0): oc0 1, oc1 0; (0,1): oc0 2, oc1 3; (1,0): oc0 3, oc1 −1; (1,1): oc0 2, oc1 6.
        let mut p = geometry((1, 1), 2, (2, 2), 2);
        p.filter_h = 2;
        p.filter_w = 2;
        let q = quant(1.0, 2, 0, 0, -128, 127);
        let filter = [1, 0, 0, 1, 1, 1, 2, 0, 0, 0, 1, 1, -1, 0, 0, 3];
        let mut out = [0i8; 8];
        transpose_conv2d::<i8, i32, i32>(&p, &q, &[1, 2], &filter, None, &mut out);
        assert_eq!(out, [1, 0, 2, 3, 3, -1, 2, 6]);
    }
}
