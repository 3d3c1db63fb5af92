//! AVERAGE_POOL_2D and MAX_POOL_2D over NHWC tensors: float32, and quantized integers (`i8`,
//! `u8`, `i16`) whose input and output share scale and zero point.

use super::ActivationRange;
use super::int_elem::IntElem;

/// Geometry of a 2-D pooling window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolParams {
    /// Batch size.
    pub batches: usize,
    /// Input height.
    pub in_h: usize,
    /// Input width.
    pub in_w: usize,
    /// Channels (same in and out).
    pub channels: usize,
    /// Output height.
    pub out_h: usize,
    /// Output width.
    pub out_w: usize,
    /// Window height.
    pub filter_h: usize,
    /// Window width.
    pub filter_w: usize,
    /// Vertical stride (≥ 1).
    pub stride_h: usize,
    /// Horizontal stride (≥ 1).
    pub stride_w: usize,
    /// Rows of padding before the input.
    pub pad_top: usize,
    /// Columns of padding before the input.
    pub pad_left: usize,
    /// Fused activation clamp.
    pub act: ActivationRange,
}

/// Visits each output pixel with its batch, the clipped window `[y0, y1) × [x0, x1)` in input
/// coordinates and the output offset of its first channel (the reference and fast pools alike).
#[inline(always)]
pub(crate) fn for_each_window(
    p: &PoolParams,
    mut f: impl FnMut(usize, usize, usize, usize, usize, usize),
) {
    for b in 0..p.batches {
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            let y0 = in_y_origin.max(0) as usize;
            let y1 = (in_y_origin + p.filter_h as isize).clamp(0, p.in_h as isize) as usize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                let x0 = in_x_origin.max(0) as usize;
                let x1 = (in_x_origin + p.filter_w as isize).clamp(0, p.in_w as isize) as usize;
                let out_base = ((b * p.out_h + out_y) * p.out_w + out_x) * p.channels;
                f(b, y0, y1, x0, x1, out_base);
            }
        }
    }
}

/// AVERAGE_POOL_2D. Mirrors LiteRT `reference_ops::AveragePool` (float): sum the window's
/// in-bounds elements row by row, divide by their count (padding is not counted), clamp.
/// A window with no in-bounds element (possible only with hostile padding) gives 0.
pub fn average_pool(p: &PoolParams, input: &[f32], output: &mut [f32]) {
    for_each_window(p, |b, y0, y1, x0, x1, out_base| {
        for c in 0..p.channels {
            let mut total = 0.0f32;
            let mut count = 0usize;
            for y in y0..y1 {
                for x in x0..x1 {
                    total += input[((b * p.in_h + y) * p.in_w + x) * p.channels + c];
                    count += 1;
                }
            }
            let average = if count == 0 {
                0.0
            } else {
                total / count as f32
            };
            output[out_base + c] = p.act.apply(average);
        }
    });
}

/// MAX_POOL_2D. Mirrors LiteRT `reference_ops::MaxPool` (float): the largest in-bounds element
/// of the window (starting from the lowest finite float), clamped.
pub fn max_pool(p: &PoolParams, input: &[f32], output: &mut [f32]) {
    for_each_window(p, |b, y0, y1, x0, x1, out_base| {
        for c in 0..p.channels {
            let mut max = f32::MIN;
            for y in y0..y1 {
                for x in x0..x1 {
                    let v = input[((b * p.in_h + y) * p.in_w + x) * p.channels + c];
                    // std::max(max, v): `max < v ? v : max`.
                    if max < v {
                        max = v;
                    }
                }
            }
            output[out_base + c] = p.act.apply(max);
        }
    });
}

/// Quantized AVERAGE_POOL_2D. Mirrors LiteRT `reference_integer_ops::AveragePool` (int8 and
/// int16; `reference_ops::AveragePool` for uint8 computes the same): the window's in-bounds raw
/// values summed in 64 bits, divided by their count rounding half away from zero
/// (`acc > 0 ? (acc + n/2) / n : (acc - n/2) / n` with truncating division), clamped to
/// `[act_min, act_max]`. No requantization: input and output share their parameters.
pub fn average_pool_int<T: IntElem>(
    p: &PoolParams,
    act_min: i32,
    act_max: i32,
    input: &[T],
    output: &mut [T],
) {
    for_each_window(p, |b, y0, y1, x0, x1, out_base| {
        for c in 0..p.channels {
            let mut acc = 0i64;
            let mut count = 0i64;
            for y in y0..y1 {
                for x in x0..x1 {
                    acc +=
                        i64::from(input[((b * p.in_h + y) * p.in_w + x) * p.channels + c].widen());
                    count += 1;
                }
            }
            let average = if count == 0 {
                0
            } else if acc > 0 {
                (acc + count / 2) / count
            } else {
                (acc - count / 2) / count
            };
            // std::max then std::min, as LiteRT (never panics, whatever the bounds).
            let clamped = average.max(i64::from(act_min)).min(i64::from(act_max));
            output[out_base + c] = T::saturate(clamped as i32);
        }
    });
}

/// Quantized MAX_POOL_2D. Mirrors LiteRT `reference_integer_ops::MaxPool` (int8, int16; uint8's
/// `reference_ops::MaxPool` is the same): the largest in-bounds raw value, starting from the
/// type's lowest, clamped to `[act_min, act_max]`.
pub fn max_pool_int<T: IntElem>(
    p: &PoolParams,
    act_min: i32,
    act_max: i32,
    input: &[T],
    output: &mut [T],
) {
    for_each_window(p, |b, y0, y1, x0, x1, out_base| {
        for c in 0..p.channels {
            let mut max = T::MIN;
            for y in y0..y1 {
                for x in x0..x1 {
                    max = max.max(input[((b * p.in_h + y) * p.in_w + x) * p.channels + c].widen());
                }
            }
            output[out_base + c] = T::saturate(max.max(act_min).min(act_max));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(in_hw: usize, out_hw: usize, filter: usize, stride: usize, pad: usize) -> PoolParams {
        PoolParams {
            batches: 1,
            in_h: in_hw,
            in_w: in_hw,
            channels: 1,
            out_h: out_hw,
            out_w: out_hw,
            filter_h: filter,
            filter_w: filter,
            stride_h: stride,
            stride_w: stride,
            pad_top: pad,
            pad_left: pad,
            act: ActivationRange::NONE,
        }
    }

    #[test]
    fn average_excludes_padding_from_the_count() {
        // 3x3 input 1..9, 2x2 window, stride 2, SAME → out 2x2 with pad 0 (total pad 1, top 0).
        let input: Vec<f32> = (1..=9).map(|v| v as f32).collect();
        let mut out = [0.0; 4];
        average_pool(&params(3, 2, 2, 2, 0), &input, &mut out);
        // windows: {1,2,4,5}=3, {3,6}=4.5, {7,8}=7.5, {9}=9
        assert_eq!(out, [3.0, 4.5, 7.5, 9.0]);
    }

    #[test]
    fn max_pool_odd_size_with_leading_padding_and_clamp() {
        let input = [-5.0, -2.0, -7.0, -1.0];
        let mut out = [0.0; 4];
        // 2x2 input, 3x3 window, stride 1, pad 1: every window covers all 4 → max -1.
        max_pool(&params(2, 2, 3, 1, 1), &input, &mut out);
        assert_eq!(out, [-1.0; 4]);
        let mut p = params(2, 2, 3, 1, 1);
        p.act = ActivationRange::RELU;
        max_pool(&p, &input, &mut out);
        assert_eq!(out, [0.0; 4]);
    }

    #[test]
    fn int_average_rounds_half_away_from_zero_and_excludes_padding() {
        // 3x3 input, 2x2 window, stride 2 (as above): windows {1,2,4,5}, {3,6}, {7,8}, {9}.
        let input: [i8; 9] = [1, 2, -3, 4, 5, -4, -7, -8, 127];
        let mut out = [0i8; 4];
        average_pool_int(&params(3, 2, 2, 2, 0), -128, 127, &input, &mut out);
        // 12/4 = 3; (-7 - 1) / 2 = -4 (−3.5 away from zero); (-15 - 1) / 2 = -8 (−7.5 → −8);
        // 127 alone.
        assert_eq!(out, [3, -4, -8, 127]);
        // 1 + 2 = 3 over 2 → 1.5 → 2 (positive ties go up); -1 + -2 → -2.
        let p = PoolParams {
            in_h: 1,
            in_w: 2,
            out_h: 1,
            out_w: 1,
            filter_h: 1,
            filter_w: 2,
            ..params(1, 1, 1, 1, 0)
        };
        let mut one = [0i16];
        average_pool_int(
            &p,
            i32::from(i16::MIN),
            i32::from(i16::MAX),
            &[1i16, 2],
            &mut one,
        );
        assert_eq!(one, [2]);
        average_pool_int(
            &p,
            i32::from(i16::MIN),
            i32::from(i16::MAX),
            &[-1i16, -2],
            &mut one,
        );
        assert_eq!(one, [-2]);
        // Activation clamp (e.g. RELU6 with zero point -128 → [-128, 25]).
        let mut out = [0i8; 4];
        average_pool_int(&params(3, 2, 2, 2, 0), -2, 2, &input, &mut out);
        assert_eq!(out, [2, -2, -2, 2]);
    }

    #[test]
    fn int_average_keeps_odd_channel_counts_apart() {
        // 1x2 input with 3 channels, 1x2 window: per-channel averages.
        let p = PoolParams {
            in_h: 1,
            in_w: 2,
            channels: 3,
            out_h: 1,
            out_w: 1,
            filter_h: 1,
            filter_w: 2,
            ..params(1, 1, 1, 1, 0)
        };
        let input: [i8; 6] = [1, -128, 127, 2, -127, 127];
        let mut out = [0i8; 3];
        average_pool_int(&p, -128, 127, &input, &mut out);
        // (3 + 1) / 2 = 2; (-255 - 1) / 2 = -128; 254 / 2 = 127.
        assert_eq!(out, [2, -128, 127]);
    }

    #[test]
    fn int_max_pool_with_padding_and_clamp() {
        let input: [i8; 4] = [-128, -100, -128, -128];
        let mut out = [0i8; 4];
        max_pool_int(&params(2, 2, 3, 1, 1), -128, 127, &input, &mut out);
        assert_eq!(out, [-100; 4]);
        // RELU with zero point 127 → act_min 127.
        max_pool_int(&params(2, 2, 3, 1, 1), 127, 127, &input, &mut out);
        assert_eq!(out, [127; 4]);
        let mut out = [0u8; 4];
        max_pool_int(&params(2, 2, 1, 1, 0), 0, 255, &[0u8, 255, 7, 3], &mut out);
        assert_eq!(out, [0, 255, 7, 3]);
    }

    #[test]
    fn one_by_one_window_is_identity() {
        let input = [1.0, 2.0, 3.0, 4.0];
        let mut out = [0.0; 4];
        average_pool(&params(2, 2, 1, 1, 0), &input, &mut out);
        assert_eq!(out, input);
        max_pool(&params(2, 2, 1, 1, 0), &input, &mut out);
        assert_eq!(out, input);
    }
}
