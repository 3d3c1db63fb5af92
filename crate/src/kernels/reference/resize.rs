//! RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over NHWC tensors.

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
fn axis_scale(input: usize, output: usize, align_corners: bool) -> f32 {
    if align_corners && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

/// LiteRT `ComputeInterpolationValues` (float): the source coordinate and its two neighbours.
fn interpolation(value: usize, scale: f32, half_pixel: bool, size: usize) -> (f32, usize, usize) {
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
