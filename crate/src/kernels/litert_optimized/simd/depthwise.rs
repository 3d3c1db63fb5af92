//! DEPTHWISE_CONV_2D as [`conv::depthwise_conv2d`](super::super::conv::depthwise_conv2d)
//! computes it (LiteRT's optimized float kernel: the accumulator starts at the bias, then adds
//! each in-image tap's product, filter rows outer, columns inner), four channels per vector.
//! Depth multiplier 1 only (other multipliers run the scalar kernel).

use super::{act_bounds, clamp, pad4, store_lanes};
use crate::kernels::reference::conv::ConvParams;
use crate::kernels::simd128::v128::V128;

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
        let taps = p.filter_h.checked_mul(p.filter_w)?;
        if multiplier != 1
            || p.out_c != p.in_c
            || filter.len() != taps.checked_mul(p.out_c)?
            || bias.is_some_and(|b| b.len() != p.out_c)
        {
            return None;
        }
        let blocks = p.out_c.div_ceil(4);
        let mut weights = vec![[0f32; 4]; taps.checked_mul(blocks)?];
        for t in 0..taps {
            for c in 0..p.out_c {
                weights[t * blocks + c / 4][c % 4] = filter[t * p.out_c + c];
            }
        }
        Some(DepthwiseTf {
            p: *p,
            weights,
            bias: pad4(bias, p.out_c),
        })
    }

    /// Runs the convolution over NHWC tensors of the prepared shapes.
    ///
    /// Per output pixel the in-image taps are listed once (input offset, weight row), in the
    /// scalar kernel's order; every channel block then sums over that list from its bias.
    pub fn run(&self, input: &[f32], output: &mut [f32]) {
        /// Taps listed on the stack; larger filters list in chunks of this size, the running
        /// sums carried in `output` between chunks (an f32 stored and reloaded exactly).
        const MAX_TAPS: usize = 64;
        let p = &self.p;
        let c = p.in_c;
        let full = c / 4;
        let blocks = c.div_ceil(4);
        let (min, max) = act_bounds(p.act);
        let taps = p.filter_h * p.filter_w;
        let mut x_at = [0usize; MAX_TAPS];
        let mut w_at = [0usize; MAX_TAPS];
        for b in 0..p.batches {
            for oy in 0..p.out_h {
                let y0 = (oy * p.stride_h) as isize - p.pad_top as isize;
                for ox in 0..p.out_w {
                    let x0 = (ox * p.stride_w) as isize - p.pad_left as isize;
                    let out_at = ((b * p.out_h + oy) * p.out_w + ox) * c;
                    let mut first_tap = 0;
                    loop {
                        let last_tap = (first_tap + MAX_TAPS).min(taps);
                        let mut n = 0;
                        for t in first_tap..last_tap {
                            let (fy, fx) = (t / p.filter_w, t % p.filter_w);
                            let y = y0 + (fy * p.dilation_h) as isize;
                            let x = x0 + (fx * p.dilation_w) as isize;
                            if y < 0 || y >= p.in_h as isize || x < 0 || x >= p.in_w as isize {
                                continue;
                            }
                            x_at[n] = ((b * p.in_h + y as usize) * p.in_w + x as usize) * c;
                            w_at[n] = t * blocks;
                            n += 1;
                        }
                        let (xs, ws) = (&x_at[..n], &w_at[..n]);
                        let last = last_tap >= taps;
                        for cb in 0..blocks {
                            let at = out_at + cb * 4;
                            if cb < full {
                                let mut acc = if first_tap == 0 {
                                    V128::load_f32(&self.bias[cb])
                                } else {
                                    output[at..]
                                        .first_chunk::<4>()
                                        .map_or(V128::splat_f32(0.0), V128::load_f32)
                                };
                                for (&xa, &wa) in xs.iter().zip(ws) {
                                    if let Some(v) = input[xa + cb * 4..].first_chunk::<4>() {
                                        let w = V128::load_f32(&self.weights[wa + cb]);
                                        acc = acc.f32x4_add(V128::load_f32(v).f32x4_mul(w));
                                    }
                                }
                                let v = if last { clamp(acc, min, max) } else { acc };
                                store_lanes(v, output, at, 4);
                            } else {
                                // The last, partial block: the scalar kernel's loop per lane.
                                let n_c = c - cb * 4;
                                let mut tail = self.bias[cb];
                                if first_tap > 0 {
                                    tail[..n_c].copy_from_slice(&output[at..at + n_c]);
                                }
                                for (&xa, &wa) in xs.iter().zip(ws) {
                                    let w = &self.weights[wa + cb];
                                    for (j, t) in tail.iter_mut().enumerate().take(n_c) {
                                        *t += input[xa + cb * 4 + j] * w[j];
                                    }
                                }
                                let v = V128::load_f32(&tail);
                                let v = if last { clamp(v, min, max) } else { v };
                                store_lanes(v, output, at, n_c);
                            }
                        }
                        if last {
                            break;
                        }
                        first_tap = last_tap;
                    }
                }
            }
        }
    }
}
