//! RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over NHWC tensors (bilinear: float32, and int8 /
//! int16 in LiteRT's 10-bit fixed point).

use super::int_elem::IntElem;

/// Geometry and coordinate rule of a 2-D resize.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResizeParams {
    /// Batch size.
    pub batches: usize,
    /// Input height.
    pub in_h: usize,
    /// Input width.
    pub in_w: usize,
    /// Channels.
    pub channels: usize,
    /// Output height (≥ 1).
    pub out_h: usize,
    /// Output width (≥ 1).
    pub out_w: usize,
    /// Map corner pixel centres onto each other (`(in - 1) / (out - 1)` scale).
    pub align_corners: bool,
    /// Sample at pixel centres (`(x + 0.5) * scale - 0.5`).
    pub half_pixel_centers: bool,
}

/// LiteRT's scale for one axis: `in / out`, or `(in - 1) / (out - 1)` with aligned corners.
pub(crate) fn axis_scale(input: usize, output: usize, align_corners: bool) -> f32 {
    if align_corners && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

/// LiteRT `ComputeInterpolationValues` (float): the source coordinate and its two neighbours.
pub(crate) fn interpolation(
    value: usize,
    scale: f32,
    half_pixel: bool,
    size: usize,
) -> (f32, usize, usize) {
    let scaled = if half_pixel {
        (value as f32 + 0.5) * scale - 0.5
    } else {
        value as f32 * scale
    };
    let lower = (scaled.floor() as i64).max(0) as usize;
    let upper = (scaled.ceil() as i64).min(size as i64 - 1).max(0) as usize;
    (scaled, lower, upper)
}

/// RESIZE_BILINEAR. Mirrors LiteRT `reference_ops::ResizeBilinear` (float): the four-neighbour
/// blend with weights `(1 - (y - y0))`, `(y - y0)` (and likewise in x), summed in LiteRT's order
/// (top-left, bottom-left, top-right, bottom-right).
pub fn resize_bilinear(p: &ResizeParams, input: &[f32], output: &mut [f32]) {
    let h_scale = axis_scale(p.in_h, p.out_h, p.align_corners);
    let w_scale = axis_scale(p.in_w, p.out_w, p.align_corners);
    let at = |b: usize, y: usize, x: usize, c: usize| {
        input[((b * p.in_h + y) * p.in_w + x) * p.channels + c]
    };
    for b in 0..p.batches {
        for y in 0..p.out_h {
            let (iy, y0, y1) = interpolation(y, h_scale, p.half_pixel_centers, p.in_h);
            let dy = iy - y0 as f32;
            for x in 0..p.out_w {
                let (ix, x0, x1) = interpolation(x, w_scale, p.half_pixel_centers, p.in_w);
                let dx = ix - x0 as f32;
                let o = ((b * p.out_h + y) * p.out_w + x) * p.channels;
                for c in 0..p.channels {
                    output[o + c] = at(b, y0, x0, c) * (1.0 - dy) * (1.0 - dx)
                        + at(b, y1, x0, c) * dy * (1.0 - dx)
                        + at(b, y0, x1, c) * (1.0 - dy) * dx
                        + at(b, y1, x1, c) * dy * dx;
                }
            }
        }
    }
}

/// LiteRT's 10-bit fixed-point scale of one axis (`ResizeBilinearInteger`):
/// `((1 << 10) · in + out / 2) / out`, or with aligned corners (and `out > 1`)
/// `((1 << 10) · (in − 1) + (out − 1) / 2) / (out − 1)`.
pub(crate) fn axis_scale_10(input: i64, output: i64, align_corners: bool) -> i64 {
    if align_corners && output > 1 {
        ((1 << 10) * (input - 1) + (output - 1) / 2) / (output - 1)
    } else {
        ((1 << 10) * input + output / 2) / output
    }
}

/// LiteRT's integer `ComputeInterpolationValues`: the source coordinate in 1/1024 units and its
/// two neighbours (`lower = max(scaled / 1024, 0)`, `upper = min(ceil(scaled / 1024), size − 1)`
/// with C's truncating division).
pub(crate) fn interpolation_10(
    value: i64,
    scale_10: i64,
    half_pixel: bool,
    size: i64,
) -> (i64, i64, i64) {
    let scaled = if half_pixel {
        value * scale_10 + scale_10 / 2 - (1 << 9)
    } else {
        value * scale_10
    };
    let lower = (scaled / (1 << 10)).max(0);
    let upper = ((scaled + (1 << 10) - 1) / (1 << 10)).min(size - 1);
    (scaled, lower, upper)
}

/// Whether LiteRT's integer bilinear arithmetic stays within int32 and within the input for
/// this geometry (the ops layer rejects the rest: LiteRT would overflow or read out of bounds).
pub fn resize_bilinear_int_supported(p: &ResizeParams) -> bool {
    let fits = |v: i64| (0..=i64::from(i32::MAX)).contains(&v);
    let axis_ok = |input: usize, output: usize| {
        let (Ok(i), Ok(o)) = (i64::try_from(input), i64::try_from(output)) else {
            return false;
        };
        if i < 1 || o < 1 || !fits((1 << 10) * i) {
            return false;
        }
        let s = axis_scale_10(i, o, p.align_corners);
        // The largest coordinate is the last one's (the scale is non-negative).
        let (scaled, lower, _) = interpolation_10(o - 1, s, p.half_pixel_centers, i);
        fits(s) && fits((o - 1) * s + s) && scaled < i64::from(i32::MAX) - (1 << 10) && lower < i
    };
    axis_ok(p.in_h, p.out_h) && axis_ok(p.in_w, p.out_w)
}

/// Integer RESIZE_BILINEAR. Mirrors LiteRT `reference_ops::ResizeBilinearInteger` (int8,
/// int16): 10-bit fixed-point source coordinates, the four neighbours weighted by products of
/// 10-bit fractions in 64 bits (top-left, bottom-left, top-right, bottom-right), then
/// `(sum ± 2^19) / 2^20` — rounding half away from zero with truncating division. Raw values in
/// and out: input and output share their quantization. The geometry must pass
/// [`resize_bilinear_int_supported`].
pub fn resize_bilinear_int<T: IntElem>(p: &ResizeParams, input: &[T], output: &mut [T]) {
    const ONE: i64 = 1 << 10;
    let (in_h, in_w) = (p.in_h as i64, p.in_w as i64);
    let h_scale = axis_scale_10(in_h, p.out_h as i64, p.align_corners);
    let w_scale = axis_scale_10(in_w, p.out_w as i64, p.align_corners);
    let at = |b: usize, y: i64, x: i64, c: usize| {
        i64::from(input[((b * p.in_h + y as usize) * p.in_w + x as usize) * p.channels + c].widen())
    };
    for b in 0..p.batches {
        for y in 0..p.out_h {
            let (iy, y0, y1) = interpolation_10(y as i64, h_scale, p.half_pixel_centers, in_h);
            let dy = iy - ONE * y0;
            for x in 0..p.out_w {
                let (ix, x0, x1) = interpolation_10(x as i64, w_scale, p.half_pixel_centers, in_w);
                let dx = ix - ONE * x0;
                let o = ((b * p.out_h + y) * p.out_w + x) * p.channels;
                for c in 0..p.channels {
                    let sum = at(b, y0, x0, c) * (ONE - dy) * (ONE - dx)
                        + at(b, y1, x0, c) * dy * (ONE - dx)
                        + at(b, y0, x1, c) * (ONE - dy) * dx
                        + at(b, y1, x1, c) * dy * dx;
                    let round = if sum > 0 { 1 << 19 } else { -(1 << 19) };
                    output[o + c] = T::saturate(((sum + round) / (1 << 20)) as i32);
                }
            }
        }
    }
}

/// [`resize_bilinear_int`] on int8, instantiated in this crate (see [`super::bytes`]).
pub fn resize_bilinear_i8(p: &ResizeParams, input: &[i8], output: &mut [i8]) {
    resize_bilinear_int(p, input, output);
}

/// [`resize_bilinear_int`] on int16, instantiated in this crate (see [`super::bytes`]).
pub fn resize_bilinear_i16(p: &ResizeParams, input: &[i16], output: &mut [i16]) {
    resize_bilinear_int(p, input, output);
}

/// LiteRT `GetNearestNeighbor`: the source index for output index `value`.
fn nearest(
    value: usize,
    input: usize,
    output: usize,
    align_corners: bool,
    half_pixel: bool,
) -> usize {
    let scale = axis_scale(input, output, align_corners);
    let offset = if half_pixel { 0.5 } else { 0.0 };
    let x = (value as f32 + offset) * scale;
    // TfLiteRound rounds half away from zero, as f32::round does.
    let v = if align_corners { x.round() } else { x.floor() } as i64;
    v.min(input as i64 - 1).max(0) as usize
}

/// RESIZE_NEAREST_NEIGHBOR. Mirrors LiteRT `reference_ops::ResizeNearestNeighbor`: each output
/// pixel copies the channels of the input pixel chosen by `GetNearestNeighbor` per axis.
pub fn resize_nearest<T: Copy>(p: &ResizeParams, input: &[T], output: &mut [T]) {
    let c = p.channels;
    for b in 0..p.batches {
        for y in 0..p.out_h {
            let in_y = nearest(y, p.in_h, p.out_h, p.align_corners, p.half_pixel_centers);
            for x in 0..p.out_w {
                let in_x = nearest(x, p.in_w, p.out_w, p.align_corners, p.half_pixel_centers);
                let src = ((b * p.in_h + in_y) * p.in_w + in_x) * c;
                let dst = ((b * p.out_h + y) * p.out_w + x) * c;
                output[dst..dst + c].copy_from_slice(&input[src..src + c]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(in_hw: (usize, usize), out_hw: (usize, usize), ac: bool, hp: bool) -> ResizeParams {
        ResizeParams {
            batches: 1,
            in_h: in_hw.0,
            in_w: in_hw.1,
            channels: 1,
            out_h: out_hw.0,
            out_w: out_hw.1,
            align_corners: ac,
            half_pixel_centers: hp,
        }
    }

    #[test]
    fn bilinear_1x2_to_1x4_three_rules() {
        let input = [0.0, 4.0];
        let mut out = [0.0; 4];
        // Legacy: x * 0.5 → 0, 0.5, 1, 1.5 (upper clamps to 1) → 0, 2, 4, 4.
        resize_bilinear(&params((1, 2), (1, 4), false, false), &input, &mut out);
        assert_eq!(out, [0.0, 2.0, 4.0, 4.0]);
        // Aligned corners: scale 1/3 → 0, 4/3, 8/3, 4.
        resize_bilinear(&params((1, 2), (1, 4), true, false), &input, &mut out);
        assert_eq!(out, [0.0, 4.0 / 3.0, 8.0 / 3.0, 4.0]);
        // Half-pixel: (x + 0.5) * 0.5 - 0.5 → -0.25, 0.25, 0.75, 1.25 → 0, 1, 3, 4.
        resize_bilinear(&params((1, 2), (1, 4), false, true), &input, &mut out);
        assert_eq!(out, [0.0, 1.0, 3.0, 4.0]);
    }

    #[test]
    fn bilinear_downscale_and_identity() {
        let input = [1.0, 2.0, 3.0, 4.0];
        let mut out = [0.0; 4];
        resize_bilinear(&params((2, 2), (2, 2), false, false), &input, &mut out);
        assert_eq!(out, input);
        let mut one = [0.0];
        resize_bilinear(&params((2, 2), (1, 1), false, true), &input, &mut one);
        // (0 + 0.5) * 2 - 0.5 = 0.5 in both axes → mean of the four.
        assert_eq!(one, [2.5]);
    }

    #[test]
    fn bilinear_int_fixed_point_rules() {
        // 1x2 → 1x4, legacy: scale_10 = (2048 + 2) / 4 = 512; x · 512 → 0, 0.5, 1, 1.5 (upper
        // clamps to 1). Values 0 and 101: 0, 50.5 → 51 (half away from zero), 101, 101.
        let p = params((1, 2), (1, 4), false, false);
        assert!(resize_bilinear_int_supported(&p));
        let mut out = [0i8; 4];
        resize_bilinear_int(&p, &[0i8, 101], &mut out);
        assert_eq!(out, [0, 51, 101, 101]);
        // Negative ties also round away from zero: -101 → -50.5 → -51.
        resize_bilinear_int(&p, &[0i8, -101], &mut out);
        assert_eq!(out, [0, -51, -101, -101]);
        // Half-pixel: x · 512 + 256 − 512 → −256, 256, 768, 1280 (1/1024 units). The first is
        // below 0: lower = upper = 0, weights 1280 and −256 on the same pixel → 100.
        let p = params((1, 2), (1, 4), false, true);
        let mut out = [0i16; 4];
        resize_bilinear_int(&p, &[100i16, -300], &mut out);
        // 256/1024 = 0.25 → 100 − 0.25 · 400 = 0; 0.75 → −200; 1280 → x0 = 1, x1 = 1 → −300.
        assert_eq!(out, [100, 0, -200, -300]);
        // Aligned corners 1x3 → 1x2: scale (2048 + 0) / 1 = 2048 → 0 and 2.
        let p = params((1, 3), (1, 2), true, false);
        let mut out = [0i8; 2];
        resize_bilinear_int(&p, &[-128i8, 0, 127], &mut out);
        assert_eq!(out, [-128, 127]);
    }

    #[test]
    fn bilinear_int_rejects_geometry_litert_cannot_run() {
        // in 1 → out 600: scale_10 = (1024 + 300) / 600 = 2; the last pixel maps to 1198/1024,
        // past the only input pixel.
        assert!(!resize_bilinear_int_supported(&params(
            (1, 1),
            (1, 600),
            false,
            false
        )));
        assert!(resize_bilinear_int_supported(&params(
            (1, 1),
            (1, 6),
            false,
            false
        )));
        // 1024 · in overflows int32.
        assert!(!resize_bilinear_int_supported(&params(
            (1 << 22, 1),
            (1, 1),
            false,
            false
        )));
    }

    #[test]
    fn nearest_three_rules() {
        let input = [10, 20, 30];
        let mut out = [0; 5];
        resize_nearest(&params((1, 3), (1, 5), false, false), &input, &mut out);
        // floor(x * 0.6): 0, 0, 1, 1, 2
        assert_eq!(out, [10, 10, 20, 20, 30]);
        resize_nearest(&params((1, 3), (1, 5), true, false), &input, &mut out);
        // round(x * 0.5): 0, 1 (0.5 rounds away), 1, 2 (1.5), 2
        assert_eq!(out, [10, 20, 20, 30, 30]);
        resize_nearest(&params((1, 3), (1, 5), false, true), &input, &mut out);
        // floor((x + 0.5) * 0.6): 0.3, 0.9, 1.5, 2.1, 2.7 → 0, 0, 1, 2, 2
        assert_eq!(out, [10, 10, 20, 30, 30]);
    }
}
