//! Hybrid (dynamic-range) kernels: int8 symmetric weights, float32 activations. Each batch of
//! the input is quantized to int8 at run time (symmetric, or asymmetric with a per-batch zero
//! point), the products are accumulated in int32, and the sum is scaled back to float with the
//! batch's input scale and the weight scale, then the float bias and activation are applied.
//!
//! The float steps follow LiteRT's `tensor_utils` (`PortableSymmetricQuantizeFloats`,
//! `PortableAsymmetricQuantizeFloats`, `MatrixBatchVectorMultiplyAccumulate`) and the hybrid
//! conv kernels operation by operation, so the float roundings are the same.

use super::conv::ConvParams;
use super::fully_connected::FullyConnectedParams;

/// `std::minmax_element` over a non-empty slice: the first smallest and the last largest value.
fn min_max(values: &[f32]) -> (f32, f32) {
    let Some(&first) = values.first() else {
        return (0.0, 0.0);
    };
    let (mut lo, mut hi) = (first, first);
    for &v in &values[1..] {
        if v < lo {
            lo = v;
        }
        // `!(v < hi)`, spelled so a NaN `v` also replaces `hi` as in the C++.
        if v.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
            hi = v;
        }
    }
    (lo, hi)
}

/// LiteRT's `SymmetricQuantizeFloats`: `range = max(|min|, |max|)`, scale `range / 127`,
/// `q = clamp(round(v · (127 / range)), −127, 127)` in float; an all-zero range gives zeros
/// and scale 1. Returns the scale.
pub fn symmetric_quantize(values: &[f32], out: &mut [i8]) -> f32 {
    let (lo, hi) = min_max(values);
    let range = lo.abs().max(hi.abs());
    if range == 0.0 {
        out.fill(0);
        return 1.0;
    }
    let inv = 127.0f32 / range;
    for (o, &v) in out.iter_mut().zip(values) {
        *o = ((v * inv).round() as i32).clamp(-127, 127) as i8;
    }
    range / 127.0
}

/// LiteRT's `AsymmetricQuantizeFloats`: the range `[min(0, lo), max(0, hi)]` mapped onto
/// `[−128, 127]` in double (`scale = (rmax − rmin) / 255`, the zero point from whichever end
/// has the smaller error, nudged into range and rounded), then `q = clamp(round(zp + v ·
/// (1 / (float)scale)), −128, 127)` in float. An empty range gives zeros, scale 1, zero point 0.
/// Returns `(scale, zero_point)`.
pub fn asymmetric_quantize(values: &[f32], out: &mut [i8]) -> (f32, i32) {
    const QMIN: f64 = -128.0;
    const QMAX: f64 = 127.0;
    let (lo, hi) = min_max(values);
    let rmin = f64::from(0.0f32.min(lo));
    let rmax = f64::from(0.0f32.max(hi));
    if rmin == rmax {
        out.fill(0);
        return (1.0, 0);
    }
    let scale = (rmax - rmin) / (QMAX - QMIN);
    let zp_from_min = QMIN - rmin / scale;
    let zp_from_max = QMAX - rmax / scale;
    let err_min = QMIN.abs() + (rmin / scale).abs();
    let err_max = QMAX.abs() + (rmax / scale).abs();
    let zp_double = if err_min < err_max {
        zp_from_min
    } else {
        zp_from_max
    };
    let zero_point = if zp_double <= QMIN {
        -128
    } else if zp_double >= QMAX {
        127
    } else {
        zp_double.round() as i32
    };
    let scale_f = scale as f32;
    let inv = 1.0f32 / scale_f;
    for (o, &v) in out.iter_mut().zip(values) {
        *o = ((zero_point as f32 + v * inv).round() as i32).clamp(-128, 127) as i8;
    }
    (scale_f, zero_point)
}

/// Run-time quantized input of a hybrid kernel, sized at prepare time: the int8 values, and per
/// batch the scale and zero point.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedBatches {
    /// Quantized input, same layout as the float input.
    pub values: Vec<i8>,
    /// Per-batch scale (times the weight scale for per-tensor weights, once `scale_by` ran).
    pub scales: Vec<f32>,
    /// Per-batch zero point (0 when symmetric).
    pub offsets: Vec<i32>,
}

impl QuantizedBatches {
    /// Buffers for `batches` rows of `batch_len` values.
    pub fn new(batches: usize, batch_len: usize) -> Self {
        QuantizedBatches {
            values: vec![0; batches * batch_len],
            scales: vec![0.0; batches],
            offsets: vec![0; batches],
        }
    }

    /// Quantizes `input` (as many values as `self.values`) batch by batch, symmetric or
    /// asymmetric (LiteRT's `BatchQuantizeFloats`).
    pub fn quantize(&mut self, input: &[f32], asymmetric: bool) {
        let batches = self.scales.len();
        let len = self.values.len().checked_div(batches).unwrap_or(0);
        for b in 0..batches {
            let src = &input[b * len..(b + 1) * len];
            let dst = &mut self.values[b * len..(b + 1) * len];
            if asymmetric {
                let (s, z) = asymmetric_quantize(src, dst);
                self.scales[b] = s;
                self.offsets[b] = z;
            } else {
                self.scales[b] = symmetric_quantize(src, dst);
                self.offsets[b] = 0;
            }
        }
    }

    /// Multiplies every batch scale by the (per-tensor) weight scale, as LiteRT does before
    /// scaling the accumulators (`scaling_factors_ptr[b] *= filter_scale`).
    pub fn scale_by(&mut self, weight_scale: f32) {
        for s in &mut self.scales {
            *s *= weight_scale;
        }
    }
}

/// Hybrid CONV_2D. With `per_channel` scales, mirrors LiteRT `reference_ops::HybridConvPerChannel`
/// (asymmetric input): `acc = Σ w · (q − zp_b)`, `out = (float)acc · s_w[c] · s_b + bias`
/// (left to right). Without, mirrors `optimized_ops::HybridConv` (symmetric input, `s_b` already
/// multiplied by the weight scale): `out = (float)acc · s_b + bias`. Then the float clamp.
///
/// `filter` is `[out_c, filter_h, filter_w, in_c]` (no groups).
pub fn conv2d(
    p: &ConvParams,
    input: &QuantizedBatches,
    per_channel: Option<&[f32]>,
    filter: &[i8],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    for b in 0..p.batches {
        let (zp, sb) = (input.offsets[b], input.scales[b]);
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                for oc in 0..p.out_c {
                    let mut acc = 0i32;
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
                            let in_base =
                                ((b * p.in_h + in_y as usize) * p.in_w + in_x as usize) * p.in_c;
                            let f_base = ((oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c;
                            let row = &input.values[in_base..in_base + p.in_c];
                            let taps = &filter[f_base..f_base + p.in_c];
                            for (&x, &w) in row.iter().zip(taps) {
                                acc = acc.wrapping_add(
                                    i32::from(w).wrapping_mul(i32::from(x).wrapping_sub(zp)),
                                );
                            }
                        }
                    }
                    let mut v = match per_channel {
                        Some(s) => acc as f32 * s[oc] * sb,
                        None => acc as f32 * sb,
                    };
                    if let Some(bias) = bias {
                        v += bias[oc];
                    }
                    output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                        p.act.apply(v);
                }
            }
        }
    }
}

/// Hybrid DEPTHWISE_CONV_2D. Mirrors LiteRT `reference_integer_ops::DepthwiseConvHybridPerChannel`
/// (asymmetric input): `acc = Σ w · (q − zp_b)`, `out = (float)acc · (s_w[c] · s_b) + bias`
/// (the two scales multiplied first), then the float clamp.
///
/// `filter` is `[1, filter_h, filter_w, out_c]`, `scales` one per output channel.
pub fn depthwise_conv2d(
    p: &ConvParams,
    depth_multiplier: usize,
    input: &QuantizedBatches,
    scales: &[f32],
    filter: &[i8],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    for b in 0..p.batches {
        let (zp, sb) = (input.offsets[b], input.scales[b]);
        for out_y in 0..p.out_h {
            let in_y_origin = (out_y * p.stride_h) as isize - p.pad_top as isize;
            for out_x in 0..p.out_w {
                let in_x_origin = (out_x * p.stride_w) as isize - p.pad_left as isize;
                for ic in 0..p.in_c {
                    for m in 0..depth_multiplier {
                        let oc = m + ic * depth_multiplier;
                        let mut acc = 0i32;
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
                                let x = input.values[((b * p.in_h + in_y as usize) * p.in_w
                                    + in_x as usize)
                                    * p.in_c
                                    + ic];
                                let w = filter[(fy * p.filter_w + fx) * p.out_c + oc];
                                acc = acc.wrapping_add(
                                    i32::from(w).wrapping_mul(i32::from(x).wrapping_sub(zp)),
                                );
                            }
                        }
                        let mut v = acc as f32 * (scales[oc] * sb);
                        if let Some(bias) = bias {
                            v += bias[oc];
                        }
                        output[((b * p.out_h + out_y) * p.out_w + out_x) * p.out_c + oc] =
                            p.act.apply(v);
                    }
                }
            }
        }
    }
}

/// Hybrid FULLY_CONNECTED. Mirrors LiteRT `fully_connected.cc` `EvalHybridDense` with
/// `MatrixBatchVectorMultiplyAccumulate`: the output starts as the bias (or 0); an all-zero input
/// leaves it there; otherwise per row and unit `acc = Σ w · q − rowsum(w) · zp_b` and
/// `out += (float)acc · scale`, with `scale = s_b · s_w[unit]` for per-channel weights or `s_b`
/// (already times the weight scale) for per-tensor ones; then the float clamp.
pub fn fully_connected(
    p: &FullyConnectedParams,
    raw_input: &[f32],
    input: &QuantizedBatches,
    per_channel: Option<&[f32]>,
    weights: &[i8],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    let (depth, out_c) = (p.accum_depth, p.out_c);
    for row_out in output.chunks_exact_mut(out_c.max(1)) {
        match bias {
            Some(bias) => row_out.copy_from_slice(&bias[..out_c]),
            None => row_out.fill(0.0),
        }
    }
    if !raw_input.iter().all(|&v| v == 0.0) {
        for b in 0..p.batches {
            let (zp, sb) = (input.offsets[b], input.scales[b]);
            let row = &input.values[b * depth..(b + 1) * depth];
            for oc in 0..out_c {
                let w = &weights[oc * depth..(oc + 1) * depth];
                let mut dot = 0i32;
                let mut row_sum = 0i32;
                for (&x, &wv) in row.iter().zip(w) {
                    dot = dot.wrapping_add(i32::from(wv) * i32::from(x));
                    row_sum = row_sum.wrapping_add(i32::from(wv));
                }
                dot = dot.wrapping_sub(row_sum.wrapping_mul(zp));
                let scale = match per_channel {
                    Some(s) => sb * s[oc],
                    None => sb,
                };
                output[b * out_c + oc] += dot as f32 * scale;
            }
        }
    }
    for v in output.iter_mut() {
        *v = p.act.apply(*v);
    }
}
