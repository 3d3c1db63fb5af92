//! int8 RESIZE_BILINEAR as XNNPACK's `resize_bilinear2d_nhwc_s8` computes it (LiteRT's
//! delegate takes every int8 RESIZE_BILINEAR whose output size is constant).
//!
//! The source coordinate of each output row / column is computed in `f32` as XNNPACK's
//! `xnn_indirection_init_resize_bilinear2d_hwc_q11`: `o · scale` (align_corners, or the legacy
//! rule when half_pixel_centers is off) or `o · scale + (0.5 · scale − 0.5)` clamped to
//! `[0, in − 1]` (half_pixel_centers), `scale` as LiteRT's (`axis_scale`); the neighbours are
//! `⌊v⌋` and `min(⌊v⌋ + 1, in − 1)`, the weight `lrintf((v − ⌊v⌋) · 2^11)` (11 fraction bits,
//! ties to even). The `s8_ibilinear` microkernel then blends in integers: `t = (tl << 11) +
//! (tr − tl) · αx`, likewise `b`, `acc = (t << 11) + (b − t) · αy`, and the output is
//! `(acc + 2^21) >> 22` (rounding half up). LiteRT's reference kernel uses 10-bit coordinates and
//! a different rounding instead.

use crate::reference::resize::{ResizeParams, axis_scale};

/// One output row or column: the two source indices and the Q11 weight of the second.
pub(crate) type Tap = (usize, usize, i32);

/// One axis: for each output index, its [`Tap`].
fn axis(out: usize, input: usize, p: &ResizeParams) -> Vec<Tap> {
    let scale = axis_scale(input, out, p.align_corners);
    let max = (input - 1) as f32;
    let offset = 0.5 * scale - 0.5;
    (0..out)
        .map(|o| {
            let v = if p.align_corners || !p.half_pixel_centers {
                o as f32 * scale
            } else {
                (o as f32 * scale + offset).max(0.0).min(max)
            };
            // v ≥ 0 and below `input` (XNNPACK asserts it): the truncation is the floor.
            let lo = (v as usize).min(input - 1);
            let hi = (lo + 1).min(input - 1);
            let alpha = ((v - lo as f32) * 2048.0).round_ties_even() as i32;
            (lo, hi, alpha)
        })
        .collect()
}

/// An int8 RESIZE_BILINEAR with its row and column tables (XNNPACK's indirection buffer and
/// weights), computed once when the operator is prepared.
#[derive(Debug, Clone, PartialEq)]
pub struct ResizeBilinear {
    /// The geometry and coordinate rule.
    pub p: ResizeParams,
    /// One [`Tap`] per output row.
    ys: Vec<Tap>,
    /// One [`Tap`] per output column.
    xs: Vec<Tap>,
}

impl ResizeBilinear {
    /// The tables of `p` (`in_h` and `in_w` ≥ 1). An output with no element (no batch or no
    /// channel) gets empty tables: nothing is computed for it.
    pub fn new(p: ResizeParams) -> Self {
        let (ys, xs) = if p.batches == 0 || p.channels == 0 {
            (Vec::new(), Vec::new())
        } else {
            (axis(p.out_h, p.in_h, &p), axis(p.out_w, p.in_w, &p))
        };
        Self { p, ys, xs }
    }

    /// The row and column tables: for each output row (column) the two source rows (columns)
    /// and the Q11 weight of the second.
    pub(crate) fn taps(&self) -> (&[Tap], &[Tap]) {
        (&self.ys, &self.xs)
    }
}

/// int8 RESIZE_BILINEAR over an NHWC tensor (input and output share their quantization: XNNPACK
/// does not requantize).
pub fn resize_bilinear(r: &ResizeBilinear, input: &[i8], output: &mut [i8]) {
    let p = &r.p;
    let c = p.channels;
    let at = |b: usize, y: usize, x: usize| ((b * p.in_h + y) * p.in_w + x) * c;
    let mut o = 0;
    for b in 0..p.batches {
        for &(top, bottom, ay) in &r.ys {
            for &(left, right, ax) in &r.xs {
                let (tl, tr) = (at(b, top, left), at(b, top, right));
                let (bl, br) = (at(b, bottom, left), at(b, bottom, right));
                for k in 0..c {
                    let v = |i: usize| i32::from(input[i + k]);
                    let t = (v(tl) << 11) + (v(tr) - v(tl)) * ax;
                    let bt = (v(bl) << 11) + (v(br) - v(bl)) * ax;
                    let acc = (t << 11) + (bt - t) * ay;
                    // A weighted mean of int8 values: in range.
                    output[o + k] = ((acc + (1 << 21)) >> 22) as i8;
                }
                o += c;
            }
        }
    }
}
