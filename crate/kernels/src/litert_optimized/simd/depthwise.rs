//! DEPTHWISE_CONV_2D as [`conv::depthwise_conv2d`](super::super::conv::depthwise_conv2d)
//! computes it (LiteRT's optimized float kernel: the accumulator starts at the bias, then adds
//! each in-image tap's product, filter rows outer, columns inner), four channels per vector.
//! Depth multiplier 1 only (other multipliers run the scalar kernel).

use super::{act_bounds, clamp};
use crate::PackedKernel;
use crate::reference::conv::ConvParams;
use crate::simd128::conv_float::pack_depthwise;
use crate::simd128::v128::V128;

/// A prepared TF-exact float DEPTHWISE_CONV_2D with depth multiplier 1.
#[derive(Debug, Clone)]
pub struct DepthwiseTf {
    p: ConvParams,
    /// `[tap][c / 4]` vectors (zero-padded channels).
    weights: Vec<[f32; 4]>,
    bias: Vec<[f32; 4]>,
}

impl DepthwiseTf {
    /// Packs a float DEPTHWISE_CONV_2D with depth multiplier 1 (`filter` `[1, fh, fw, c]`).
    /// `None` for other multipliers or data that does not match the shapes.
    pub fn new(
        p: &ConvParams,
        multiplier: usize,
        filter: &[f32],
        bias: Option<&[f32]>,
    ) -> Option<Self> {
        let (weights, bias) = pack_depthwise(p, multiplier, filter, bias)?;
        Some(DepthwiseTf {
            p: *p,
            weights,
            bias,
        })
    }
}

impl PackedKernel for DepthwiseTf {
    type Elem = f32;
    type Scratch = ();

    /// Runs the convolution over NHWC tensors of the prepared shapes.
    ///
    /// One output row at a time: every element starts at its bias; then, tap by tap in the
    /// scalar kernel's order (filter rows outer, columns inner), each output pixel whose tap
    /// falls inside the image adds `input · weight` to its running sums (kept in `output`: an f32
    /// stored and reloaded exactly); then the clamp. Each element thus sees exactly the scalar
    /// kernel's sequence of operations.
    fn run(&self, input: &[f32], output: &mut [f32], _: &mut ()) {
        let p = &self.p;
        let c = p.in_c;
        if c == 0 {
            return;
        }
        let (min, max) = act_bounds(p.act);
        let bias: &[f32] = bytemuck::cast_slice(&self.bias);
        let bias = &bias[..c];
        let row_len = p.out_w * c;
        for b in 0..p.batches {
            for oy in 0..p.out_h {
                let row = &mut output[(b * p.out_h + oy) * row_len..][..row_len];
                // Every pixel's sums start at the bias: one copy, then doubling copies (a
                // `memory.copy` per pixel would cost more than the copying).
                row[..c].copy_from_slice(bias);
                let mut filled = c;
                while filled < row_len {
                    let n = filled.min(row_len - filled);
                    row.copy_within(..n, filled);
                    filled += n;
                }
                let y0 = (oy * p.stride_h) as isize - p.pad_top as isize;
                for fy in 0..p.filter_h {
                    let y = y0 + (fy * p.dilation_h) as isize;
                    if y < 0 || y >= p.in_h as isize {
                        continue;
                    }
                    let in_row = &input[(b * p.in_h + y as usize) * p.in_w * c..][..p.in_w * c];
                    for fx in 0..p.filter_w {
                        let t = fy * p.filter_w + fx;
                        let w = &self.weights[t * c.div_ceil(4)..(t + 1) * c.div_ceil(4)];
                        let w: &[f32] = bytemuck::cast_slice(w);
                        let w = &w[..c];
                        for (ox, acc) in row.chunks_exact_mut(c).enumerate() {
                            let x = (ox * p.stride_w + fx * p.dilation_w) as isize
                                - p.pad_left as isize;
                            if x < 0 || x >= p.in_w as isize {
                                continue;
                            }
                            let xin = &in_row[x as usize * c..][..c];
                            madd_row(acc, xin, w);
                        }
                    }
                }
                let mut blocks = row.chunks_exact_mut(4);
                for o in &mut blocks {
                    if let Some(o) = o.first_chunk_mut::<4>() {
                        clamp(V128::load_f32(o), min, max).store_f32(o);
                    }
                }
                for o in blocks.into_remainder() {
                    *o = p.act.apply(*o);
                }
            }
        }
    }
}

/// `acc[i] += x[i] · w[i]`, four lanes at a time (same length slices).
#[inline(always)]
fn madd_row(acc: &mut [f32], x: &[f32], w: &[f32]) {
    let mut a = acc.chunks_exact_mut(4);
    let mut xs = x.chunks_exact(4);
    let mut ws = w.chunks_exact(4);
    for ((a, x), w) in (&mut a).zip(&mut xs).zip(&mut ws) {
        if let (Some(a), Some(x), Some(w)) = (
            a.first_chunk_mut::<4>(),
            x.first_chunk::<4>(),
            w.first_chunk::<4>(),
        ) {
            V128::load_f32(a)
                .f32x4_add(V128::load_f32(x).f32x4_mul(V128::load_f32(w)))
                .store_f32(a);
        }
    }
    for ((a, &x), &w) in a
        .into_remainder()
        .iter_mut()
        .zip(xs.remainder())
        .zip(ws.remainder())
    {
        *a += x * w;
    }
}
