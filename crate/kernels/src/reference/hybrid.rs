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
use crate::litert_optimized::activations::tanh_f32;

/// SSE `minps`: `a < b ? a : b`, so `b` when either is NaN.
fn minps(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// SSE `maxps`: `a > b ? a : b`, so `b` when either is NaN.
fn maxps(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `!(a < b)`: true when either is NaN.
fn not_less(a: f32, b: f32) -> bool {
    a.partial_cmp(&b) != Some(std::cmp::Ordering::Less)
}

/// libstdc++'s `std::minmax_element` as its comparisons treat NaN: after the first value, values
/// go in pairs (the second value of the row alone, then `(a, b)`; an odd last value alone), the
/// smaller of a pair against the minimum with `<` and the larger against the maximum with
/// `!(x < max)`, so a NaN can become the maximum, or the minimum when first. `(0, 0)` if empty.
/// [`symmetric_quantize`]'s range (measured: 3,168 rows of 1 to 20 values with NaN, hybrid
/// FULLY_CONNECTED with symmetric inputs), and that of short rows and tails in `min_max`.
fn libstdcxx_minmax(values: &[f32]) -> (f32, f32) {
    let Some((&first, rest)) = values.split_first() else {
        return (0.0, 0.0);
    };
    let (mut lo, mut hi) = (first, first);
    let Some((&second, mut rest)) = rest.split_first() else {
        return (lo, hi);
    };
    if second < lo {
        lo = second;
    } else {
        hi = second;
    }
    loop {
        match rest {
            [] => break,
            [a] => {
                if *a < lo {
                    lo = *a;
                } else if not_less(*a, hi) {
                    hi = *a;
                }
                break;
            }
            [a, b, tail @ ..] => {
                let (small, large) = if *b < *a { (*b, *a) } else { (*a, *b) };
                if small < lo {
                    lo = small;
                }
                if not_less(large, hi) {
                    hi = large;
                }
                rest = tail;
            }
        }
    }
    (lo, hi)
}

/// `fminf` / `fmaxf`: a NaN on either side gives the other value.
fn ignoring_nan(a: f32, b: f32, pick: fn(f32, f32) -> f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        pick(a, b)
    }
}

/// The smallest and largest value of a row as LiteRT's x86 build finds them for asymmetric
/// run-time quantization (measured against `BUILTIN_REF`'s hybrid CONV_2D and FULLY_CONNECTED:
/// NaN at every position of rows of 16 to 576 values, and rows of 1 to 20 values with one or two
/// NaN at random places, 3,168 rows; `tests/tools/mutation/README.md`, round nine).
/// Rows shorter than 4 are [`libstdcxx_minmax`]. Otherwise the first `len - len % 4` values go
/// through four lanes (value `i` in lane `i % 4`, each lane starting from its first value and
/// updated as `minps(lane, v)`: a NaN restarts its lane from the next value, and a lane that
/// ends on a NaN stays NaN); the lanes combine as `minps(minps(l1, l3), minps(l0, l2))` (a NaN
/// ending lane 2 is kept, in the others dropped). The last `len % 4` values are
/// [`libstdcxx_minmax`] on their own, joined to the lanes' result ignoring a NaN on either side.
/// A NaN result is an empty range downstream (`min(0, NaN)` and `max(0, NaN)` are 0), which is
/// what LiteRT gives (the output is the bias alone; mutant 7026 of seed 12).
fn min_max(values: &[f32]) -> (f32, f32) {
    let body = values.len() - values.len() % 4;
    if body == 0 {
        return libstdcxx_minmax(values);
    }
    let (mut lmin, mut lmax) = ([0.0f32; 4], [0.0f32; 4]);
    lmin.copy_from_slice(&values[..4]);
    lmax.copy_from_slice(&values[..4]);
    for chunk in values[4..body].chunks_exact(4) {
        for (l, &v) in chunk.iter().enumerate() {
            lmin[l] = minps(lmin[l], v);
            lmax[l] = maxps(lmax[l], v);
        }
    }
    let mut lo = minps(minps(lmin[1], lmin[3]), minps(lmin[0], lmin[2]));
    let mut hi = maxps(maxps(lmax[1], lmax[3]), maxps(lmax[0], lmax[2]));
    if body < values.len() {
        let (tail_lo, tail_hi) = libstdcxx_minmax(&values[body..]);
        lo = ignoring_nan(lo, tail_lo, f32::min);
        hi = ignoring_nan(hi, tail_hi, f32::max);
    }
    (lo, hi)
}

/// LiteRT's `SymmetricQuantizeFloats`: `range = max(|min|, |max|)`, scale `range / 127`,
/// `q = clamp(round(v · (127 / range)), −127, 127)`, in the first `len - len % 8` values with the
/// clamp in float as LiteRT's x86 build does it (measured: an ∞ value in a finite range gives
/// ±127 there, −127 in the rest; a NaN product −127 at every position); an all-zero range gives
/// zeros and scale 1. Returns the scale.
pub fn symmetric_quantize(values: &[f32], out: &mut [i8]) -> f32 {
    let (lo, hi) = libstdcxx_minmax(values);
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
    // The first `len - len % 8` values are vectorized and clamp in float (`maxps(x, −127)` then
    // `minps(·, 127)`: ±∞ saturate, NaN gives −127); the rest round to i32 first (±∞ and NaN
    // convert to i32::MIN, so −127).
    let vectorized = values.len() - values.len() % 8;
    for (i, (o, &v)) in out.iter_mut().zip(values).enumerate() {
        let x = v * inv;
        *o = if i < vectorized {
            let x = if x > -127.0 { x } else { -127.0 };
            let x = if x < 127.0 { x } else { 127.0 };
            round_to_i32_x86(x) as i8
        } else {
            round_to_i32_x86(x).clamp(-127, 127) as i8
        };
    }
    range / 127.0
}

/// LiteRT's `AsymmetricQuantizeFloats` as the pip LiteRT 2.3 build computes it (measured against
/// `BUILTIN_REF` on random inputs, bit-exact): the range `[min(0, lo), max(0, hi)]` mapped onto
/// `[−128, 127]`; the zero point chosen in double as the portable source does (from whichever end
/// has the smaller error, nudged into range, rounded half away from zero); but the scale is the
/// **float** quotient `(rmax − rmin) / 255.0f` and each value is `clamp(round(v · (1 / scale)) +
/// zp, −128, 127)` — rounded before the zero point is added, a NaN or out-of-range product
/// converting to `i32::MIN` as on x86 — except among the last `len % 8` values (LiteRT's scalar
/// loop), which clamp in float: ±∞ saturate and a NaN product gives 0. The range is `min_max`'s. (The portable source's double scale
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
    // The first `len - len % 8` values are vectorized (a product that is NaN, ±∞ or outside i32
    // converts to i32::MIN, then the zero point wraps it); the rest are scalar and clamp in float
    // before converting: ±∞ saturate, and a NaN product (a NaN value, or ∞ · 0 when the range is
    // infinite) gives i32::MIN's low byte, 0 (measured, rows of 1 to 131).
    let vectorized = values.len() - values.len() % 8;
    for (i, (o, &v)) in out.iter_mut().zip(values).enumerate() {
        let x = v * inv;
        *o = if i < vectorized {
            round_to_i32_x86(x)
                .wrapping_add(zero_point)
                .clamp(-128, 127) as i8
        } else if x.is_nan() {
            0
        } else {
            (f64::from(x.round()) + f64::from(zero_point)).clamp(-128.0, 127.0) as i8
        };
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
#[path = "hybrid_tests.rs"]
mod tests;
