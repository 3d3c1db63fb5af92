//! RESIZE_BILINEAR as LiteRT's optimized float kernel computes it (`optimized_ops::
//! ResizeBilinear`, TF 2.21 wheel):
//!
//! - an exact 2× upscale without aligned corners or half-pixel centres goes through
//!   `ResizeBilinear2x2`: each input pixel `a` (right neighbour `b`, lower `c`, diagonal `d`,
//!   clamped at the edges) gives the four outputs `a`, `(a + b) / 2`, `l = (a + c) / 2` and
//!   `(l + (b + d) / 2) / 2`;
//! - anything else goes through `ResizeBilinearGeneric`: the output starts at 0 and adds each
//!   corner times its weight, weights multiplied first — top-left `(1 − dy)(1 − dx)`, top-right
//!   `(1 − dy)·dx`, bottom-left `dy·(1 − dx)`, bottom-right `dy·dx` — where the reference kernel
//!   multiplies the value by one factor, then the other, and adds the corners in another order.

use crate::reference::resize::{ResizeParams, axis_scale, interpolation};

/// RESIZE_BILINEAR (float), NHWC.
pub fn resize_bilinear(p: &ResizeParams, input: &[f32], output: &mut [f32]) {
    let at = |b: usize, y: usize, x: usize| {
        let o = ((b * p.in_h + y) * p.in_w + x) * p.channels;
        &input[o..o + p.channels]
    };
    let out_at = |b: usize, y: usize, x: usize| ((b * p.out_h + y) * p.out_w + x) * p.channels;
    if !p.align_corners && !p.half_pixel_centers && p.out_h == 2 * p.in_h && p.out_w == 2 * p.in_w {
        for b in 0..p.batches {
            for y0 in 0..p.in_h {
                let y1 = (y0 + 1).min(p.in_h - 1);
                for x0 in 0..p.in_w {
                    let x1 = (x0 + 1).min(p.in_w - 1);
                    let (a, r, l, d) = (at(b, y0, x0), at(b, y0, x1), at(b, y1, x0), at(b, y1, x1));
                    let (o00, o01) = (out_at(b, 2 * y0, 2 * x0), out_at(b, 2 * y0, 2 * x0 + 1));
                    let (o10, o11) = (
                        out_at(b, 2 * y0 + 1, 2 * x0),
                        out_at(b, 2 * y0 + 1, 2 * x0 + 1),
                    );
                    for c in 0..p.channels {
                        let left = (a[c] + l[c]) / 2.0;
                        output[o00 + c] = a[c];
                        output[o01 + c] = (a[c] + r[c]) / 2.0;
                        output[o10 + c] = left;
                        output[o11 + c] = (left + (r[c] + d[c]) / 2.0) / 2.0;
                    }
                }
            }
        }
        return;
    }
    let h_scale = axis_scale(p.in_h, p.out_h, p.align_corners);
    let w_scale = axis_scale(p.in_w, p.out_w, p.align_corners);
    for b in 0..p.batches {
        for y in 0..p.out_h {
            let (iy, y0, y1) = interpolation(y, h_scale, p.half_pixel_centers, p.in_h);
            let dy = iy - y0 as f32;
            for x in 0..p.out_w {
                let (ix, x0, x1) = interpolation(x, w_scale, p.half_pixel_centers, p.in_w);
                let dx = ix - x0 as f32;
                let corners = [
                    (at(b, y0, x0), (1.0 - dy) * (1.0 - dx)),
                    (at(b, y0, x1), (1.0 - dy) * dx),
                    (at(b, y1, x0), dy * (1.0 - dx)),
                    (at(b, y1, x1), dy * dx),
                ];
                let o = out_at(b, y, x);
                let out = &mut output[o..o + p.channels];
                out.fill(0.0);
                for (v, w) in corners {
                    for (o, &v) in out.iter_mut().zip(v) {
                        *o += v * w;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INPUT: [f32; 6] = [0.1, 0.7, -1.3, 2.9, 0.3, 1.1];

    fn run(out_h: usize, out_w: usize, half_pixel_centers: bool) -> Vec<u32> {
        let p = ResizeParams {
            batches: 1,
            in_h: 2,
            in_w: 3,
            channels: 1,
            out_h,
            out_w,
            align_corners: false,
            half_pixel_centers,
        };
        let mut out = vec![0.0f32; out_h * out_w];
        resize_bilinear(&p, &INPUT, &mut out);
        out.iter().map(|v| v.to_bits()).collect()
    }

    /// TF 2.21's RESIZE_BILINEAR of a 2×3 image to 4×6 (the 2× kernel; TFLite model converted
    /// from `tf.compat.v1.image.resize_bilinear`).
    #[test]
    fn two_x_matches_tf() {
        let tf: [u32; 24] = [
            0x3dcc_cccd,
            0x3ecc_cccd,
            0x3f33_3333,
            0xbe99_9999,
            0xbfa6_6666,
            0xbfa6_6666,
            0x3fc0_0000,
            0x3f80_0000,
            0x3f00_0000,
            0x3e4c_ccce,
            0xbdcc_ccc8,
            0xbdcc_ccc8,
            0x4039_999a,
            0x3fcc_cccd,
            0x3e99_999a,
            0x3f33_3334,
            0x3f8c_cccd,
            0x3f8c_cccd,
            0x4039_999a,
            0x3fcc_cccd,
            0x3e99_999a,
            0x3f33_3334,
            0x3f8c_cccd,
            0x3f8c_cccd,
        ];
        assert_eq!(run(4, 6, false), tf);
    }

    /// The same image to 3×5 with half-pixel centres (the generic kernel).
    #[test]
    fn generic_matches_tf() {
        let tf: [u32; 15] = [
            0x3dcc_cccc,
            0x3eae_147c,
            0x3f33_3332,
            0xbf00_0005,
            0xbfa6_6666,
            0x3fc0_0001,
            0x3f8c_cccd,
            0x3f00_0000,
            0x3e0f_5c24,
            0xbdcc_ccc6,
            0x4039_999a,
            0x3fee_147a,
            0x3e99_999a,
            0x3f47_ae16,
            0x3f8c_cccd,
        ];
        assert_eq!(run(3, 5, true), tf);
    }
}
