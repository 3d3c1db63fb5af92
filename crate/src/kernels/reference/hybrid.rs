//! Hybrid (dynamic-range) kernels: int8 symmetric weights, float32 activations. Each batch of
//! the input is quantized to int8 at run time (symmetric, or asymmetric with a per-batch zero
//! point), the products are accumulated in int32, and the sum is scaled back to float with the
//! batch's input scale and the weight scale, then the float bias and activation are applied.
//!
//! The float steps follow LiteRT's `tensor_utils` (`SymmetricQuantizeFloats`,
//! `AsymmetricQuantizeFloats`, `MatrixBatchVectorMultiplyAccumulate`) and the hybrid conv kernels
//! operation by operation, so the float roundings are the same. Where the pip LiteRT 2.3 build
//! differs from the portable source (the asymmetric quantization), the build decides: every
//! hybrid kernel here was checked bit-exact against `BUILTIN_REF` on the `dynamic` goldens and
//! on 60 random inputs per model.

use super::conv::ConvParams;
use super::fully_connected::FullyConnectedParams;
use super::quantize::round_to_i32_x86;
use crate::kernels::litert_optimized::activations::tanh_f32;

/// `std::minmax_element` over a non-empty slice: the first smallest and the last largest value
/// (a leading NaN stays the minimum, a NaN replaces the maximum). [`symmetric_quantize`]'s range.
fn minmax_element(values: &[f32]) -> (f32, f32) {
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

/// SSE `minps`: `a < b ? a : b`, so `b` when either is NaN.
fn minps(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// SSE `maxps`: `a > b ? a : b`, so `b` when either is NaN.
fn maxps(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// The smallest and largest value of a row as LiteRT's x86 build finds them for asymmetric
/// run-time quantization (measured against `BUILTIN_REF`'s hybrid CONV_2D and FULLY_CONNECTED,
/// NaN placed at every position of rows of 16 to 576 values: `tests/tools/mutation/README.md`,
/// round eight). The first `len - len % 8` values go through four lanes (value `i` in lane
/// `i % 4`), each lane updated as `minps(lane, v)`: a NaN restarts its lane from the next value,
/// and a lane that ends on a NaN stays NaN; the lanes then combine as
/// `minps(minps(l1, l3), minps(l0, l2))` (so a NaN ending lane 0 is kept, in the others dropped).
/// A NaN result is an empty range downstream (`min(0, NaN)` and `max(0, NaN)` are 0), which is
/// what LiteRT gives (the output is the bias alone; mutant 7026 of seed 12). The remaining
/// `len % 8` values, and rows shorter than 8, are not described by this: they are taken with
/// NaN skipped (the rule measured before on rows of 8 with NaN first, in the middle, twice and
/// last, golden `op_fc_hybrid_edges_*`; rows of 7 and 12 with a NaN in the tail are known to
/// differ). An empty row gives `(0, 0)`.
fn min_max(values: &[f32]) -> (f32, f32) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let body = values.len() - values.len() % 8;
    let (mut lo, mut hi) = (f32::NAN, f32::NAN);
    if body > 0 {
        let (mut lmin, mut lmax) = ([f32::INFINITY; 4], [f32::NEG_INFINITY; 4]);
        for chunk in values[..body].chunks_exact(4) {
            for (l, &v) in chunk.iter().enumerate() {
                lmin[l] = minps(lmin[l], v);
                lmax[l] = maxps(lmax[l], v);
            }
        }
        lo = minps(minps(lmin[1], lmin[3]), minps(lmin[0], lmin[2]));
        hi = maxps(maxps(lmax[1], lmax[3]), maxps(lmax[0], lmax[2]));
    }
    // The tail: NaN skipped; a row shorter than 8 starts from its first number.
    for &v in &values[body..] {
        if v.is_nan() {
            continue;
        }
        if (body == 0 && lo.is_nan()) || v < lo {
            lo = v;
        }
        if (body == 0 && hi.is_nan()) || v > hi {
            hi = v;
        }
    }
    (lo, hi)
}

/// LiteRT's `SymmetricQuantizeFloats`: `range = max(|min|, |max|)`, scale `range / 127`,
/// `q = clamp(round(v · (127 / range)), −127, 127)` in float (a product that is NaN or outside
/// i32 converts to `i32::MIN` as on x86, so an inf or NaN row quantizes to −127); an all-zero
/// range gives zeros and scale 1. Returns the scale.
pub fn symmetric_quantize(values: &[f32], out: &mut [i8]) -> f32 {
    let (lo, hi) = minmax_element(values);
    // std::max(|lo|, |hi|) is `|lo| < |hi| ? |hi| : |lo|` (a NaN `lo` stays).
    let range = if lo.abs() < hi.abs() {
        hi.abs()
    } else {
        lo.abs()
    };
    if range == 0.0 {
        out.fill(0);
        return 1.0;
    }
    let inv = 127.0f32 / range;
    for (o, &v) in out.iter_mut().zip(values) {
        *o = round_to_i32_x86(v * inv).clamp(-127, 127) as i8;
    }
    range / 127.0
}

/// LiteRT's `AsymmetricQuantizeFloats` as the pip LiteRT 2.3 build computes it (measured against
/// `BUILTIN_REF` on random inputs, bit-exact): the range `[min(0, lo), max(0, hi)]` mapped onto
/// `[−128, 127]`; the zero point chosen in double as the portable source does (from whichever end
/// has the smaller error, nudged into range, rounded half away from zero); but the scale is the
/// **float** quotient `(rmax − rmin) / 255.0f` and each value is `clamp(round(v · (1 / scale)) +
/// zp, −128, 127)` — rounded before the zero point is added, a NaN or out-of-range product
/// converting to `i32::MIN` as on x86. (The portable source's double scale
/// and `round(zp + v · inv)` are each off by one ulp / one step on some inputs.) An empty range
/// gives zeros, scale 1, zero point 0. Returns `(scale, zero_point)`.
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
    let scale_f = (rmax as f32 - rmin as f32) / 255.0f32;
    let inv = 1.0f32 / scale_f;
    for (o, &v) in out.iter_mut().zip(values) {
        *o = round_to_i32_x86(v * inv)
            .wrapping_add(zero_point)
            .clamp(-128, 127) as i8;
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

/// Hybrid TRANSPOSE_CONV. Mirrors LiteRT `reference_ops::HybridTransposeConv` (asymmetric
/// input): zero the output, scatter every input element's `(q − zp_b) · w` (int32) times
/// `s_w[oc]` then `s_b` into it in the float reference's loop order (input rows, columns,
/// channels; filter rows, columns, output channels), then add the bias and clamp.
///
/// Bit-exact against `BUILTIN_REF` (the golden and 60 random inputs); the other float orders
/// (`s_w · s_b` first, integer accumulation) are not.
///
/// `filter` is `[out_c, filter_h, filter_w, in_c]`, `scales` one per output channel.
pub fn transpose_conv2d(
    p: &ConvParams,
    input: &QuantizedBatches,
    scales: &[f32],
    filter: &[i8],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    output.fill(0.0);
    for b in 0..p.batches {
        let (zp, sb) = (input.offsets[b], input.scales[b]);
        for in_y in 0..p.in_h {
            for in_x in 0..p.in_w {
                for ic in 0..p.in_c {
                    let out_x_origin = (in_x * p.stride_w) as isize - p.pad_left as isize;
                    let out_y_origin = (in_y * p.stride_h) as isize - p.pad_top as isize;
                    let x = i32::from(
                        input.values[((b * p.in_h + in_y) * p.in_w + in_x) * p.in_c + ic],
                    )
                    .wrapping_sub(zp);
                    for fy in 0..p.filter_h {
                        let out_y = out_y_origin + fy as isize;
                        if out_y < 0 || out_y >= p.out_h as isize {
                            continue;
                        }
                        for fx in 0..p.filter_w {
                            let out_x = out_x_origin + fx as isize;
                            if out_x < 0 || out_x >= p.out_w as isize {
                                continue;
                            }
                            let o_base = ((b * p.out_h + out_y as usize) * p.out_w
                                + out_x as usize)
                                * p.out_c;
                            for oc in 0..p.out_c {
                                let w = filter
                                    [((oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c + ic];
                                let acc = x.wrapping_mul(i32::from(w));
                                output[o_base + oc] += acc as f32 * scales[oc] * sb;
                            }
                        }
                    }
                }
            }
        }
    }
    for pixel in output.chunks_exact_mut(p.out_c.max(1)) {
        for (oc, v) in pixel.iter_mut().enumerate() {
            let with_bias = match bias {
                Some(bias) => *v + bias[oc],
                None => *v,
            };
            *v = p.act.apply(with_bias);
        }
    }
}

/// A fused activation of the hybrid FULLY_CONNECTED that is not a clamp, as LiteRT's
/// `ApplyActivationToVector` applies it after the product (its prepare refuses these outside
/// the hybrid kernel; the clamps are [`super::ActivationRange::apply_vector`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorFunction {
    /// `TANH`: Eigen's tanh ([`tanh_f32`], the packet formula for every element).
    Tanh,
    /// `SIGN_BIT`: `std::signbit`, 1 where the sign bit is set (−0.0 and a negative NaN
    /// included), else 0.
    SignBit,
}

impl VectorFunction {
    /// Applies the function to every element of `v` in place.
    pub fn apply(self, v: &mut [f32]) {
        match self {
            Self::Tanh => v.iter_mut().for_each(|x| *x = tanh_f32(*x)),
            Self::SignBit => v
                .iter_mut()
                .for_each(|x| *x = if x.is_sign_negative() { 1.0 } else { 0.0 }),
        }
    }
}

/// Hybrid FULLY_CONNECTED. Mirrors LiteRT `fully_connected.cc` `EvalHybridDense` with
/// `MatrixBatchVectorMultiplyAccumulate`: the output starts as the bias (or 0); an all-zero input
/// leaves it there; otherwise per row and unit `acc = Σ w · q − rowsum(w) · zp_b` and
/// `out += (float)acc · scale`, with `scale = s_b · s_w[unit]` for per-channel weights or `s_b`
/// (already times the weight scale) for per-tensor ones; then the activation as
/// `ApplyActivationToVector` applies it ([`super::ActivationRange::apply_vector`]).
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
        matrix_batch_vector_accumulate(weights, depth, input, &input.scales, per_channel, output);
    }
    for v in output.iter_mut() {
        *v = p.act.apply_vector(*v);
    }
}

/// One product `q · w` of LiteRT's x86 `MatrixBatchVectorMultiplyAccumulate` in a whole block of
/// 16 columns (`sse_tensor_utils.cc` `DotProdInt8x4x4`, SSSE3): the weight takes the input's
/// sign in int8 (`_mm_sign_epi8`), then meets the input's magnitude (`_mm_abs_epi8`, read
/// unsigned by `_mm_maddubs_epi16`). A weight of −128 against a negative input stays −128
/// (−(−128) wraps in int8), so that product comes out negated; every other product is exact.
/// (The pair sums `_mm_maddubs_epi16` saturates to int16 stay within [−32768, 32512] here.)
fn ssse3_block_product(q: i8, w: i8) -> i32 {
    let signed_w = match q.signum() {
        -1 => w.wrapping_neg(),
        0 => 0,
        _ => w,
    };
    i32::from(q.unsigned_abs()) * i32::from(signed_w)
}

/// LiteRT's `MatrixBatchVectorMultiplyAccumulate` (int8 weights, quantized batches) as its x86
/// build computes it: per batch row `b` and weight row `r`, `acc = Σ w · q − rowsum(w) · zp_b`
/// in int32 and `out[b, r] += (float)acc · scale`, with `scale = scales[b] · per_channel[r]`
/// for per-channel weights or `scales[b]` otherwise. The columns in whole blocks of 16 multiply
/// as `ssse3_block_product` does (a weight of −128, which no converter writes, against a
/// negative input gives the negated product there, as LiteRT's SSSE3 kernel does); the rest,
/// and the row sums, exactly. `weights` is row-major with rows of `depth`; `output` has one row
/// of `weights.len() / depth` per batch.
pub fn matrix_batch_vector_accumulate(
    weights: &[i8],
    depth: usize,
    input: &QuantizedBatches,
    scales: &[f32],
    per_channel: Option<&[f32]>,
    output: &mut [f32],
) {
    let out_c = weights.len().checked_div(depth).unwrap_or(0);
    for (b, &sb) in scales.iter().enumerate() {
        let zp = input.offsets[b];
        let row = &input.values[b * depth..(b + 1) * depth];
        for oc in 0..out_c {
            let w = &weights[oc * depth..(oc + 1) * depth];
            let blocked = depth & !15;
            let mut dot = 0i32;
            let mut row_sum = 0i32;
            for (i, (&x, &wv)) in row.iter().zip(w).enumerate() {
                let product = if i < blocked {
                    ssse3_block_product(x, wv)
                } else {
                    i32::from(wv) * i32::from(x)
                };
                dot = dot.wrapping_add(product);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::reference::ActivationRange;

    #[test]
    fn symmetric_quantization_scales_the_largest_magnitude_to_127() {
        // Largest magnitude 127: scale 1, values round half away from zero.
        let mut q = [0i8; 4];
        let s = symmetric_quantize(&[127.0, -3.0, 2.5, -126.5], &mut q);
        assert_eq!(s, 1.0);
        assert_eq!(q, [127, -3, 3, -127]);
        // Range 1: inv 127: 0.5 → 63.5 → 64, −1 → −127, 0.25 → 31.75 → 32.
        let s = symmetric_quantize(&[0.5, -1.0, 0.25, 0.0], &mut q);
        assert_eq!(s, 1.0 / 127.0);
        assert_eq!(q, [64, -127, 32, 0]);
        // All zero: zeros, scale 1.
        let s = symmetric_quantize(&[0.0; 4], &mut q);
        assert_eq!((s, q), (1.0, [0; 4]));
        // An infinite value: range ∞, 127 / ∞ = 0, so finite values give 0 and ∞ · 0 = NaN,
        // which x86's float → int conversion makes i32::MIN, clamped to −127 (Rust's `as`
        // would give 0). A NaN range (std::max keeps a NaN first argument) gives NaN products.
        let s = symmetric_quantize(&[1.0, f32::INFINITY, -2.0, 0.0], &mut q);
        assert_eq!((s, q), (f32::INFINITY, [0, -127, 0, 0]));
        let s = symmetric_quantize(&[f32::NAN, 1.0, -2.0, 0.0], &mut q);
        assert!(s.is_nan());
        assert_eq!(q, [-127; 4]);
    }

    #[test]
    fn asymmetric_quantization_picks_and_nudges_the_zero_point() {
        let mut q = [0i8; 2];
        // [0, 255]: scale 1, zero point −128 (from min, error 128 < 382).
        assert_eq!(asymmetric_quantize(&[0.0, 255.0], &mut q), (1.0, -128));
        assert_eq!(q, [-128, 127]);
        // [−1, 3]: scale 4/255; zero point −128 + 63.75 = −64.25 → −64;
        // −1 → round(−63.75) − 64 = −128; 3 → round(191.25) − 64 = 127.
        let (s, z) = asymmetric_quantize(&[-1.0, 3.0], &mut q);
        assert_eq!((s, z), (4.0f32 / 255.0, -64));
        assert_eq!(q, [-128, 127]);
        // All negative: the range still includes 0 → zero point 127.
        let (s, z) = asymmetric_quantize(&[-2.55, -1.0], &mut q);
        assert_eq!(z, 127);
        assert_eq!(s, 2.55f32 / 255.0);
        // [−129, 126]: scale 1, zero point 1 (both ends agree). Values round *before* the zero
        // point is added: −0.5 → round(−0.5) + 1 = 0 (not round(0.5) = 1); 0.5 → 2.
        let mut q5 = [0i8; 5];
        assert_eq!(
            asymmetric_quantize(&[-129.0, 126.0, -0.5, 0.5, 2.5], &mut q5),
            (1.0, 1)
        );
        assert_eq!(q5, [-128, 127, 0, 2, 4]);
        // Nothing but zeros: scale 1, zero point 0.
        assert_eq!(asymmetric_quantize(&[0.0, 0.0], &mut q), (1.0, 0));
        assert_eq!(q, [0, 0]);
    }

    fn fc(
        batches: usize,
        depth: usize,
        units: usize,
        act: ActivationRange,
    ) -> FullyConnectedParams {
        FullyConnectedParams {
            batches,
            accum_depth: depth,
            out_c: units,
            act,
        }
    }

    #[test]
    fn fully_connected_per_tensor_symmetric_with_bias_and_relu() {
        // Input (127, −3): scale 1, q = (127, −3); weight scale 0.5 folds into the batch scale.
        // Unit (2, 1): 254 − 3 = 251 → 125.5 + 0.25 = 125.75; unit (−1, 0): −127 → −63.5 + 0.25
        // → RELU → 0.
        let p = fc(1, 2, 2, ActivationRange::RELU);
        let input = [127.0, -3.0];
        let mut q = QuantizedBatches::new(1, 2);
        q.quantize(&input, false);
        q.scale_by(0.5);
        let mut out = [9.0f32; 2];
        fully_connected(
            &p,
            &input,
            &q,
            None,
            &[2, 1, -1, 0],
            Some(&[0.25, 0.25]),
            &mut out,
        );
        assert_eq!(out, [125.75, 0.0]);
    }

    #[test]
    fn fully_connected_activations_treat_nan_and_infinities_as_litert_does() {
        // An all-zero input leaves the bias (NaN, +inf, −inf) to the activation. LiteRT 2.3
        // (BUILTIN_REF, op_fc_bias_relu's dynamic model with such a bias) gives, per activation:
        let cases = [
            (
                ActivationRange::NONE,
                [f32::NAN, f32::INFINITY, f32::NEG_INFINITY],
            ),
            (ActivationRange::RELU, [0.0, f32::INFINITY, 0.0]),
            (ActivationRange::RELU_N1_TO_1, [-1.0, 1.0, -1.0]),
            (ActivationRange::RELU6, [0.0, 6.0, 0.0]),
        ];
        for (act, want) in cases {
            let p = fc(1, 1, 3, act);
            let mut q = QuantizedBatches::new(1, 1);
            q.quantize(&[0.0], false);
            let mut out = [9.0f32; 3];
            let bias = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
            fully_connected(&p, &[0.0], &q, None, &[1, 1, 1], Some(&bias), &mut out);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&out), bits(&want), "{act:?}: {out:?}");
        }
    }

    /// LiteRT's SSSE3 16-column blocks: every product exact but a −128 weight against a negative
    /// input, whose int8 sign transfer wraps (−1 · −128 gives −128 there); the columns past the
    /// last whole block multiply exactly (mutant 7-8622 of issue 22, checked against LiteRT
    /// through `a_minus_128_hybrid_weight_multiplies_as_litert_x86_does`).
    #[test]
    fn a_minus_128_weight_in_a_16_column_block_gives_the_negated_product() {
        for q in i8::MIN..=i8::MAX {
            for w in i8::MIN..=i8::MAX {
                let exact = i32::from(q) * i32::from(w);
                let want = if w == -128 && q < 0 { -exact } else { exact };
                assert_eq!(ssse3_block_product(q, w), want, "{q} · {w}");
            }
        }
        // 17 columns of −1 · −128: 16 in the block (−128 each), one exact (+128).
        let input = QuantizedBatches {
            values: vec![-1; 17],
            scales: vec![1.0],
            offsets: vec![0],
        };
        let mut out = [0.0f32];
        matrix_batch_vector_accumulate(&[-128; 17], 17, &input, &[1.0], None, &mut out);
        assert_eq!(out, [-16.0 * 128.0 + 128.0]);
    }

    #[test]
    fn fully_connected_per_channel_asymmetric_and_zero_input() {
        // Input (0, 255): scale 1, zero point −128, q = (−128, 127). Unit (1, 1) with scale 2:
        // Σ w·q − rowsum·zp = −1 + 256 = 255 → 510. Unit (0, −1) with scale 0.5: −127 − (−1)(−128)
        // = −255 → −127.5.
        let p = fc(1, 2, 2, ActivationRange::NONE);
        let input = [0.0, 255.0];
        let mut q = QuantizedBatches::new(1, 2);
        q.quantize(&input, true);
        assert_eq!((q.scales[0], q.offsets[0]), (1.0, -128));
        let mut out = [0.0f32; 2];
        fully_connected(
            &p,
            &input,
            &q,
            Some(&[2.0, 0.5]),
            &[1, 1, 0, -1],
            None,
            &mut out,
        );
        assert_eq!(out, [510.0, -127.5]);
        // An all-zero input leaves exactly the bias.
        let zero = [0.0, 0.0];
        q.quantize(&zero, true);
        fully_connected(
            &p,
            &zero,
            &q,
            Some(&[2.0, 0.5]),
            &[1, 1, 0, -1],
            Some(&[0.1, -0.2]),
            &mut out,
        );
        assert_eq!(out, [0.1, -0.2]);
    }

    fn geometry(in_w: usize, in_c: usize, out_w: usize, out_c: usize) -> ConvParams {
        ConvParams {
            batches: 1,
            in_h: 1,
            in_w,
            in_c,
            out_h: 1,
            out_w,
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

    #[test]
    fn conv_per_tensor_and_per_channel_scaling() {
        // One pixel, channels (127, 1) → symmetric q = (127, 1), scale 1.
        // Per tensor (weight scale 0.25 folded): filter (1, 2) → 129 · 0.25 = 32.25, + 1 = 33.25.
        let p = geometry(1, 2, 1, 1);
        let input = [127.0, 1.0];
        let mut q = QuantizedBatches::new(1, 2);
        q.quantize(&input, false);
        q.scale_by(0.25);
        let mut out = [0.0f32; 1];
        conv2d(&p, &q, None, &[1, 2], Some(&[1.0]), &mut out);
        assert_eq!(out, [33.25]);
        // Per channel, asymmetric: input (0, 255) → q (−128, 127), zp −128, scale 1; filter
        // (1, −1): 1·0 − 1·255 = −255 → · 0.5 · 1 = −127.5; RELU6 clamps to 0.
        let mut p6 = p;
        p6.act = ActivationRange::RELU6;
        let input = [0.0, 255.0];
        q.quantize(&input, true);
        conv2d(&p, &q, Some(&[0.5]), &[1, -1], None, &mut out);
        assert_eq!(out, [-127.5]);
        conv2d(&p6, &q, Some(&[0.5]), &[1, -1], None, &mut out);
        assert_eq!(out, [0.0]);
    }

    #[test]
    fn transpose_conv_scatters_scaled_products_and_crops() {
        // Input (0, 255): zp −128, scale 1 → x − zp = (0, 255). Filter (1, 2, 3), scale 0.5,
        // stride 2: the full output is [0, 0, 127.5, 255, 382.5]; pad_left 1 and width 4 keep
        // [0, 127.5, 255, 382.5]; bias 0.25.
        let mut p = geometry(2, 1, 4, 1);
        p.filter_w = 3;
        p.stride_w = 2;
        p.pad_left = 1;
        let input = [0.0, 255.0];
        let mut q = QuantizedBatches::new(1, 2);
        q.quantize(&input, true);
        let mut out = [9.0f32; 4];
        transpose_conv2d(&p, &q, &[0.5], &[1, 2, 3], Some(&[0.25]), &mut out);
        assert_eq!(out, [0.25, 127.75, 255.25, 382.75]);
    }

    #[test]
    fn depthwise_per_channel_multiplier_2() {
        // Two pixels (padding none, 1x1 filter), one channel, multiplier 2: input (0, 255) over
        // the whole batch → zp −128, scale 1, q = (−128, 127) → x − zp = (0, 255).
        // oc0 tap 2, scale 0.5: (0, 255) → (0, 255); oc1 tap −1, scale 4: (0, −1020).
        let p = geometry(2, 1, 2, 2);
        let input = [0.0, 255.0];
        let mut q = QuantizedBatches::new(1, 2);
        q.quantize(&input, true);
        let mut out = [0.0f32; 4];
        depthwise_conv2d(
            &p,
            2,
            &q,
            &[0.5, 4.0],
            &[2, -1],
            Some(&[1.0, 0.0]),
            &mut out,
        );
        assert_eq!(out, [1.0, 0.0, 256.0, -1020.0]);
    }
}
