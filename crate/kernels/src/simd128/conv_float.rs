//! float32 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, bit-identical to
//! [`reference::conv`](crate::reference::conv) and
//! [`reference::fully_connected`](crate::reference::fully_connected).
//!
//! **Exactness.** Float sums depend on their order, so each output element is summed exactly as
//! the reference sums it — `total += x · w` over filter rows, columns, then input channels (the
//! reduction index `k` in that order), a separate multiply and add (WebAssembly has no fused
//! multiply-add in SIMD128, and Rust does not contract), then `total + bias` and the clamp with
//! the reference's comparison order. The vectors run *across* outputs, never along `k`: lanes are
//! four output channels (CONV_2D, FULLY_CONNECTED) or four channels (DEPTHWISE_CONV_2D).
//!
//! CONV_2D reads im2col rows in which a tap outside the image is `0.0`, where the reference skips
//! it. With finite weights that adds `±0.0` to a running sum that is never `−0.0` (it starts at
//! `+0.0`, and a sum of two values is `−0.0` only when both are), which leaves it unchanged, so
//! the constructor requires finite weights when the geometry has such taps (otherwise the
//! reference kernel runs). DEPTHWISE_CONV_2D skips outside taps as the reference does.

use super::v128::V128;
use crate::PackedKernel;
use crate::reference::conv::ConvParams;
use crate::reference::fully_connected::FullyConnectedParams;

/// The fused activation of four lanes, as [`ActivationRange::apply`](crate::reference::ActivationRange::apply): `x < min ? min : x`, then
/// `max < y ? max : y` (a NaN passes through).
#[inline(always)]
pub(super) fn clamp(x: V128, min: V128, max: V128) -> V128 {
    let y = min.bitselect(x, x.f32x4_lt(min));
    max.bitselect(y, max.f32x4_lt(y))
}

/// Weights `[oc, k]` packed as `[oc / 4][k]` vectors of four channels (zero-padded).
fn pack_f32(weights: &[f32], oc: usize, k: usize) -> Vec<[f32; 4]> {
    let blocks = oc.div_ceil(4);
    let mut packed = vec![[0f32; 4]; blocks * k];
    for c in 0..oc {
        for i in 0..k {
            packed[(c / 4) * k + i][c % 4] = weights[c * k + i];
        }
    }
    packed
}

/// Bias padded to a multiple of 4 (`0.0` where absent, as the reference adds).
pub(crate) fn pad_bias(bias: Option<&[f32]>, oc: usize) -> Vec<[f32; 4]> {
    let mut out = vec![[0f32; 4]; oc.div_ceil(4)];
    if let Some(b) = bias {
        for (c, &v) in b.iter().enumerate().take(oc) {
            out[c / 4][c % 4] = v;
        }
    }
    out
}

/// Stores the first `n ≤ 4` lanes of `v` at `out[at..]`.
#[inline(always)]
pub(crate) fn store_f32(v: V128, out: &mut [f32], at: usize, n: usize) {
    if n == 4 {
        if let Some(d) = out[at..].first_chunk_mut::<4>() {
            v.store_f32(d);
        }
    } else {
        out[at..at + n].copy_from_slice(&v.to_f32()[..n]);
    }
}

/// A prepared float32 CONV_2D (non-grouped).
#[derive(Debug, Clone)]
pub struct Conv2dF32 {
    p: ConvParams,
    k: usize,
    /// A 1×1 filter whose every tap lies inside the image: an output pixel's im2col row is its
    /// input pixel's `in_c` values, read in place instead of copied.
    pointwise: bool,
    weights: Vec<[f32; 4]>,
    bias: Vec<[f32; 4]>,
}

/// Scratch of [`Conv2dF32`]: four im2col rows.
#[derive(Debug, Clone)]
pub struct Conv2dF32Scratch {
    rows: Vec<f32>,
}

impl Conv2dF32 {
    /// Packs a non-grouped float CONV_2D. `None` when the data does not match the shapes, or
    /// when some tap falls outside the image and a weight is not finite (see the module doc).
    pub fn new(
        p: &ConvParams,
        filter: &[f32],
        bias: Option<&[f32]>,
    ) -> Option<(Self, Conv2dF32Scratch)> {
        let k = p.filter_h.checked_mul(p.filter_w)?.checked_mul(p.in_c)?;
        if k == 0
            || p.out_h == 0
            || p.out_w == 0
            || filter.len() != k.checked_mul(p.out_c)?
            || bias.is_some_and(|b| b.len() != p.out_c)
        {
            return None;
        }
        if has_outside_taps(p) && !filter.iter().all(|w| w.is_finite()) {
            return None;
        }
        Some((
            Conv2dF32 {
                p: *p,
                k,
                pointwise: p.filter_h == 1 && p.filter_w == 1 && !has_outside_taps(p),
                weights: pack_f32(filter, p.out_c, k),
                bias: pad_bias(bias, p.out_c),
            },
            Conv2dF32Scratch {
                rows: vec![0.0; 4usize.checked_mul(k)?],
            },
        ))
    }

    /// The batch of output pixel `pix` and the input row and column of its first tap.
    fn origin(&self, pix: usize) -> (usize, isize, isize) {
        let p = &self.p;
        let ox = pix % p.out_w;
        let oy = (pix / p.out_w) % p.out_h;
        let b = pix / (p.out_w * p.out_h);
        let y0 = (oy * p.stride_h) as isize - p.pad_top as isize;
        let x0 = (ox * p.stride_w) as isize - p.pad_left as isize;
        (b, y0, x0)
    }

    /// Writes the im2col row of output pixel `pix` (outside taps `0.0`).
    fn im2col_row(&self, input: &[f32], pix: usize, row: &mut [f32]) {
        let p = &self.p;
        let (b, y0, x0) = self.origin(pix);
        let c = p.in_c;
        let mut at = 0;
        // With dilation 1 a filter row whose taps are all inside the image is one contiguous
        // run of `filter_w · in_c` values.
        let row_inside = p.dilation_w == 1 && x0 >= 0 && x0 as usize + p.filter_w <= p.in_w;
        for fy in 0..p.filter_h {
            let y = y0 + (fy * p.dilation_h) as isize;
            if row_inside && y >= 0 && (y as usize) < p.in_h {
                let n = p.filter_w * c;
                let src = ((b * p.in_h + y as usize) * p.in_w + x0 as usize) * c;
                row[at..at + n].copy_from_slice(&input[src..src + n]);
                at += n;
                continue;
            }
            for fx in 0..p.filter_w {
                let x = x0 + (fx * p.dilation_w) as isize;
                let dst = &mut row[at..at + c];
                if y >= 0 && (y as usize) < p.in_h && x >= 0 && (x as usize) < p.in_w {
                    let src = ((b * p.in_h + y as usize) * p.in_w + x as usize) * c;
                    dst.copy_from_slice(&input[src..src + c]);
                } else {
                    dst.fill(0.0);
                }
                at += c;
            }
        }
    }
}

impl PackedKernel for Conv2dF32 {
    type Elem = f32;
    type Scratch = Conv2dF32Scratch;

    /// Runs the convolution over NHWC float tensors of the prepared shapes.
    fn run(&self, input: &[f32], output: &mut [f32], s: &mut Conv2dF32Scratch) {
        let p = &self.p;
        let k = self.k;
        let total = p.batches * p.out_h * p.out_w;
        let mut first = 0;
        while first < total {
            let n = (total - first).min(4);
            if self.pointwise {
                // The scratch rows are never written on this path: all 0.0.
                let zero = &s.rows[..k];
                let row = |i: usize| {
                    if i >= n {
                        return zero;
                    }
                    let (b, y, x) = self.origin(first + i);
                    let at = ((b * p.in_h + y as usize) * p.in_w + x as usize) * p.in_c;
                    input.get(at..at + k).unwrap_or(zero)
                };
                self.four_pixels([row(0), row(1), row(2), row(3)], first, n, output);
            } else {
                for i in 0..4 {
                    let row = &mut s.rows[i * k..(i + 1) * k];
                    if i < n {
                        self.im2col_row(input, first + i, row);
                    } else {
                        row.fill(0.0);
                    }
                }
                let (r0, rest) = s.rows.split_at(k);
                let (r1, rest) = rest.split_at(k);
                let (r2, r3) = rest.split_at(k);
                self.four_pixels([r0, r1, r2, r3], first, n, output);
            }
            first += n;
        }
    }
}

impl Conv2dF32 {
    /// The outputs of pixels `first..first + n` (`n ≤ 4`) from their im2col rows (`rows[i]` for
    /// `i ≥ n` is ignored), two blocks of four output channels at a time.
    #[inline(always)]
    fn four_pixels(&self, rows: [&[f32]; 4], first: usize, n: usize, output: &mut [f32]) {
        let p = &self.p;
        let k = self.k;
        let (min, max) = (V128::splat_f32(p.act.min), V128::splat_f32(p.act.max));
        let blocks = p.out_c.div_ceil(4);
        let [r0, r1, r2, r3] = rows;
        let mut ob = 0;
        while ob < blocks {
            let two = ob + 1 < blocks;
            let wa = &self.weights[ob * k..(ob + 1) * k];
            let wb = if two {
                &self.weights[(ob + 1) * k..(ob + 2) * k]
            } else {
                wa
            };
            let mut acc = [V128::splat_f32(0.0); 8];
            for ((((&x0, &x1), &x2), &x3), (wa, wb)) in
                r0.iter().zip(r1).zip(r2).zip(r3).zip(wa.iter().zip(wb))
            {
                let (wa, wb) = (V128::load_f32(wa), V128::load_f32(wb));
                let x = [x0, x1, x2, x3].map(V128::splat_f32);
                for i in 0..4 {
                    acc[2 * i] = acc[2 * i].f32x4_add(x[i].f32x4_mul(wa));
                    acc[2 * i + 1] = acc[2 * i + 1].f32x4_add(x[i].f32x4_mul(wb));
                }
            }
            for (i, pair) in acc.chunks_exact(2).enumerate().take(n) {
                let at = (first + i) * p.out_c;
                for (j, &a) in pair.iter().enumerate().take(if two { 2 } else { 1 }) {
                    let c0 = (ob + j) * 4;
                    let v = clamp(a.f32x4_add(V128::load_f32(&self.bias[ob + j])), min, max);
                    store_f32(v, output, at + c0, (p.out_c - c0).min(4));
                }
            }
            ob += 2;
        }
    }
}

/// True when some output reads a tap outside the input (padding, or an output grid that
/// reaches past the image).
fn has_outside_taps(p: &ConvParams) -> bool {
    let reach =
        |out: usize, stride: usize, f: usize, d: usize| (out - 1) * stride + (f - 1) * d + 1;
    p.pad_top > 0
        || p.pad_left > 0
        || reach(p.out_h, p.stride_h, p.filter_h, p.dilation_h) > p.in_h
        || reach(p.out_w, p.stride_w, p.filter_w, p.dilation_w) > p.in_w
}

/// Four-lane float vectors as packed in memory.
pub(crate) type Lanes = Vec<[f32; 4]>;

/// A float DEPTHWISE_CONV_2D with depth multiplier 1 (`filter` `[1, fh, fw, c]`) packed as
/// `[tap][c / 4]` weight vectors and bias vectors (channels zero-padded to a multiple of 4).
/// `None` for other multipliers or data that does not match the shapes.
pub(crate) fn pack_depthwise(
    p: &ConvParams,
    multiplier: usize,
    filter: &[f32],
    bias: Option<&[f32]>,
) -> Option<(Lanes, Lanes)> {
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
    Some((weights, pad_bias(bias, p.out_c)))
}

/// A prepared float32 DEPTHWISE_CONV_2D with depth multiplier 1.
#[derive(Debug, Clone)]
pub struct DepthwiseF32 {
    p: ConvParams,
    /// `[tap][c / 4]` vectors (zero-padded channels).
    weights: Vec<[f32; 4]>,
    bias: Vec<[f32; 4]>,
}

impl DepthwiseF32 {
    /// Packs a float DEPTHWISE_CONV_2D with depth multiplier 1 (`filter` `[1, fh, fw, c]`).
    /// `None` for other multipliers or data that does not match the shapes.
    pub fn new(
        p: &ConvParams,
        multiplier: usize,
        filter: &[f32],
        bias: Option<&[f32]>,
    ) -> Option<Self> {
        let (weights, bias) = pack_depthwise(p, multiplier, filter, bias)?;
        Some(DepthwiseF32 {
            p: *p,
            weights,
            bias,
        })
    }

    /// One output pixel whose taps all lie inside the image: the input window starts at `base`
    /// and tap `t` reads `base + rel[t]`. The same sums as the general path (every tap in the
    /// reference's order from 0.0, then the bias), without listing the taps per pixel.
    #[inline(always)]
    fn interior(
        &self,
        input: &[f32],
        output: &mut [f32],
        base: usize,
        out_at: usize,
        rel: &[usize],
        (min, max): (V128, V128),
    ) {
        let c = self.p.in_c;
        let blocks = c.div_ceil(4);
        for cb in 0..blocks {
            let n_c = (c - cb * 4).min(4);
            let mut acc = V128::splat_f32(0.0);
            if n_c == 4 {
                for (t, &r) in rel.iter().enumerate() {
                    if let Some(v) = input[base + r + cb * 4..].first_chunk::<4>() {
                        let w = V128::load_f32(&self.weights[t * blocks + cb]);
                        acc = acc.f32x4_add(V128::load_f32(v).f32x4_mul(w));
                    }
                }
            } else {
                let mut tail = [0f32; 4];
                for (t, &r) in rel.iter().enumerate() {
                    let w = &self.weights[t * blocks + cb];
                    for (j, v) in tail.iter_mut().enumerate().take(n_c) {
                        *v += input[base + r + cb * 4 + j] * w[j];
                    }
                }
                acc = V128::load_f32(&tail);
            }
            let v = clamp(acc.f32x4_add(V128::load_f32(&self.bias[cb])), min, max);
            store_f32(v, output, out_at + cb * 4, n_c);
        }
    }
}

impl PackedKernel for DepthwiseF32 {
    type Elem = f32;
    type Scratch = ();

    /// Runs the convolution over NHWC float tensors of the prepared shapes.
    ///
    /// Per output pixel, the in-image taps are listed once (input offset, weight row) in the
    /// reference's order; every channel block then sums over that list.
    fn run(&self, input: &[f32], output: &mut [f32], _: &mut ()) {
        /// Taps listed on the stack; larger filters are rare and list in chunks of this size.
        const MAX_TAPS: usize = 64;
        let p = &self.p;
        let c = p.in_c;
        let full = c / 4;
        let blocks = c.div_ceil(4);
        let (min, max) = (V128::splat_f32(p.act.min), V128::splat_f32(p.act.max));
        let mut x_at = [0usize; MAX_TAPS];
        let mut w_at = [0usize; MAX_TAPS];
        let taps = p.filter_h * p.filter_w;
        // Where every tap is inside the image (the interior), each tap's input offset from the
        // window's corner is the same for every pixel: listed once here.
        let mut rel = [0usize; MAX_TAPS];
        if taps <= MAX_TAPS {
            for (t, r) in rel.iter_mut().enumerate().take(taps) {
                let (fy, fx) = (t / p.filter_w, t % p.filter_w);
                *r = (fy * p.dilation_h * p.in_w + fx * p.dilation_w) * c;
            }
        }
        let span_h = (p.filter_h - 1) * p.dilation_h;
        let span_w = (p.filter_w - 1) * p.dilation_w;
        for b in 0..p.batches {
            for oy in 0..p.out_h {
                let y0 = (oy * p.stride_h) as isize - p.pad_top as isize;
                for ox in 0..p.out_w {
                    let x0 = (ox * p.stride_w) as isize - p.pad_left as isize;
                    let out_at = ((b * p.out_h + oy) * p.out_w + ox) * c;
                    let interior = taps <= MAX_TAPS
                        && y0 >= 0
                        && x0 >= 0
                        && y0 as usize + span_h < p.in_h
                        && x0 as usize + span_w < p.in_w;
                    if interior {
                        let base = ((b * p.in_h + y0 as usize) * p.in_w + x0 as usize) * c;
                        self.interior(input, output, base, out_at, &rel[..taps], (min, max));
                        continue;
                    }
                    // Taps in chunks of MAX_TAPS, each block's running sum carried in `output`
                    // between chunks (an f32 stored and reloaded exactly; only filters with more
                    // than MAX_TAPS taps have several chunks).
                    let mut first_tap = 0;
                    while first_tap < taps {
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
                        for cb in 0..blocks {
                            let at = out_at + cb * 4;
                            if cb < full {
                                let mut acc = if first_tap == 0 {
                                    V128::splat_f32(0.0)
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
                                if last_tap < taps {
                                    store_f32(acc, output, at, 4);
                                } else {
                                    let v = acc.f32x4_add(V128::load_f32(&self.bias[cb]));
                                    store_f32(clamp(v, min, max), output, at, 4);
                                }
                            } else {
                                let n_c = c - cb * 4;
                                let mut tail = [0f32; 4];
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
                                let v = if last_tap < taps {
                                    v
                                } else {
                                    clamp(v.f32x4_add(V128::load_f32(&self.bias[cb])), min, max)
                                };
                                store_f32(v, output, at, n_c);
                            }
                        }
                        first_tap = last_tap;
                    }
                }
            }
        }
    }
}

/// A prepared float32 FULLY_CONNECTED.
#[derive(Debug, Clone)]
pub struct FullyConnectedF32 {
    p: FullyConnectedParams,
    /// `[units / 4][depth]` vectors.
    weights: Vec<[f32; 4]>,
    bias: Vec<[f32; 4]>,
}

impl FullyConnectedF32 {
    /// Packs a float FULLY_CONNECTED (`weights` `[units, depth]`). `None` when the data does
    /// not match the shapes.
    pub fn new(p: &FullyConnectedParams, weights: &[f32], bias: Option<&[f32]>) -> Option<Self> {
        if weights.len() != p.out_c.checked_mul(p.accum_depth)?
            || bias.is_some_and(|b| b.len() != p.out_c)
        {
            return None;
        }
        Some(FullyConnectedF32 {
            p: *p,
            weights: pack_f32(weights, p.out_c, p.accum_depth),
            bias: pad_bias(bias, p.out_c),
        })
    }
}

impl PackedKernel for FullyConnectedF32 {
    type Elem = f32;
    type Scratch = ();

    /// Runs the layer over `batches` rows.
    fn run(&self, input: &[f32], output: &mut [f32], _: &mut ()) {
        let p = &self.p;
        let d = p.accum_depth;
        let blocks = p.out_c.div_ceil(4);
        let (min, max) = (V128::splat_f32(p.act.min), V128::splat_f32(p.act.max));
        for b in 0..p.batches {
            let row = &input[b * d..(b + 1) * d];
            let mut ob = 0;
            while ob < blocks {
                let n = (blocks - ob).min(4);
                let mut acc = [V128::splat_f32(0.0); 4];
                if n == 4 {
                    let w = [0, 1, 2, 3].map(|j| &self.weights[(ob + j) * d..(ob + j + 1) * d]);
                    for (i, &x) in row.iter().enumerate() {
                        let x = V128::splat_f32(x);
                        for j in 0..4 {
                            acc[j] = acc[j].f32x4_add(x.f32x4_mul(V128::load_f32(&w[j][i])));
                        }
                    }
                } else {
                    for (j, a) in acc.iter_mut().enumerate().take(n) {
                        let w = &self.weights[(ob + j) * d..(ob + j + 1) * d];
                        for (&x, w) in row.iter().zip(w) {
                            *a = a.f32x4_add(V128::splat_f32(x).f32x4_mul(V128::load_f32(w)));
                        }
                    }
                }
                for (j, &a) in acc.iter().enumerate().take(n) {
                    let c0 = (ob + j) * 4;
                    let v = clamp(a.f32x4_add(V128::load_f32(&self.bias[ob + j])), min, max);
                    store_f32(v, output, b * p.out_c + c0, (p.out_c - c0).min(4));
                }
                ob += n;
            }
        }
    }
}
