//! Unary operators of LiteRT's default CPU path ([`Arithmetic::Xnnpack`](super::super::Arithmetic::Xnnpack)):
//!
//! - int8 LEAKY_RELU as XNNPACK's qs8 `vlrelu` ([`LeakyRelu`]): two multipliers
//!   `lrintf(−256 · scale)` (8 fraction bits) for the non-negative and the negative side, one
//!   rounding (half up) of `(zp_in − x) · 128 · m` by 2^15;
//! - float ROUND as XNNPACK's `vrndne` ([`round`]): ties to even, the sign kept (−0.3 gives −0.0,
//!   where LiteRT's builtin `RoundToNearest` gives +0.0);
//! - float ELU as XNNPACK's `f32_velu` microkernel for AVX-512F (`avx512f_rr1_p6`, what the
//!   delegate picks on an x86-64 CPU with AVX-512; [`elu`]): `expm1` from a degree-6 polynomial
//!   with fused multiply-adds;
//! - int8 SOFTMAX, which the delegate leaves to LiteRT: its *optimized* builtin kernel on x86-64
//!   ([`Softmax`]): a 256-entry float table of `expf(−s_in · β · d)`, a float sum per row, one
//!   float reciprocal, each probability rounded half away from zero; int8 LOG_SOFTMAX likewise
//!   ([`LogSoftmax`]: the same table, glibc's `logf` of the sum, rounding to even).

use crate::reference::expf::expf;
use crate::reference::logf::logf;

/// XNNPACK's qs8 LEAKY_RELU parameters (`xnn_create_leaky_relu_nc_qs8` and its microkernels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeakyRelu {
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// `lrintf(−256 · s_in / s_out)`.
    pub positive_multiplier: i32,
    /// `lrintf(−256 · (s_in / s_out) · α)`.
    pub negative_multiplier: i32,
}

impl LeakyRelu {
    /// The parameters for input scale `s_in`, output scale `s_out` and slope `alpha`, or `None`
    /// when XNNPACK refuses them: `s_in / s_out` (in `f32`) outside `[2^-8, 2^7]`, or
    /// `(s_in / s_out) · α` outside `[−(2^7 − 2^-8), 2^7]` or of magnitude below `2^-8`.
    pub fn new(
        input_scale: f32,
        input_zero_point: i32,
        output_scale: f32,
        output_zero_point: i32,
        alpha: f32,
    ) -> Option<Self> {
        let positive = input_scale / output_scale;
        if !(2f32.powi(-8)..=128.0).contains(&positive) {
            return None;
        }
        let negative = positive * alpha;
        if !(-(128.0 - 2f32.powi(-8))..=128.0).contains(&negative) || negative.abs() < 2f32.powi(-8)
        {
            return None;
        }
        // Both products are below 2^15 in magnitude: exact integers after the rounding.
        let m = |s: f32| (-256.0 * s).round_ties_even() as i32;
        Some(Self {
            input_zero_point,
            output_zero_point,
            positive_multiplier: m(positive),
            negative_multiplier: m(negative),
        })
    }

    /// One int8 value: `v = (zp_in − x) · 128`, the positive multiplier when `v ≤ 0`, else the
    /// negative one; `((v · m + 2^14) >> 15) + zp_out`, clamped to int8.
    #[inline]
    pub fn apply(&self, x: i8) -> i8 {
        let v = (self.input_zero_point - i32::from(x)) * 128;
        let m = if v <= 0 {
            self.positive_multiplier
        } else {
            self.negative_multiplier
        };
        // |v| ≤ 255 · 128 and |m| ≤ 2^15: the product fits in i32.
        let y = ((v * m + (1 << 14)) >> 15) + self.output_zero_point;
        y.clamp(-128, 127) as i8
    }
}

/// int8 LEAKY_RELU, element by element ([`LeakyRelu::apply`]).
pub fn leaky_relu(p: &LeakyRelu, input: &[i8], output: &mut [i8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = p.apply(x);
    }
}

/// XNNPACK's float ROUND (`vrndne`, the CPU's round-to-nearest-even instruction): ties to even,
/// the sign of the input kept (so a negative input rounding to zero gives −0.0), NaN and ±∞
/// unchanged.
#[inline]
pub fn round(x: f32) -> f32 {
    x.round_ties_even()
}

/// `f32::mul_add`: one rounding, as the microkernels' `vfmadd`.
#[inline(always)]
fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// XNNPACK's float ELU with `α = 1` (LiteRT's ELU has no parameter) as its AVX-512F microkernel
/// (`f32_velu avx512f_rr1_p6`) computes it, lane by lane:
///
/// `z = max(−0x1.154246p4, x)` (≈ −17.33); `n = fma(z, log2e, magic) − magic` (round to an
/// integer, `magic = 0x1.8000FEp23`, whose low bits shifted by 23 give `s = 2^n`);
/// `t = fma(n, −ln2, z)`; `p = ((((c6·t + c5)·t + c4)·t + c3)·t + c2)·t` (each step one fma, the
/// last a plain product); `t ← t·s`; `s ← fma(s, α, −α)`; `p ← fma(p, t, t)`;
/// `y = fma(p, α, s)`; an input not below zero (NaN included) gives `x · β = x` (β = 1).
///
/// XNNPACK runs with denormals flushed (its threadpool sets DAZ / FTZ): a subnormal input counts
/// as a zero of its sign, which ELU returns.
pub fn elu(x: f32) -> f32 {
    if x.is_subnormal() {
        return 0f32.copysign(x);
    }
    if x.is_nan() || x >= 0.0 {
        return x;
    }
    const SAT_CUTOFF: f32 = f32::from_bits(0xC18A_A123); // -0x1.154246p+4
    const MAGIC: f32 = f32::from_bits(0x4B40_007F); // 0x1.8000FEp23
    const LOG2E: f32 = f32::from_bits(0x3FB8_AA3B); // 0x1.715476p+0
    const MINUS_LN2: f32 = f32::from_bits(0xBF31_7218); // -0x1.62E430p-1
    const C6: f32 = f32::from_bits(0x3AB5_B99C); // 0x1.6B7338p-10
    const C5: f32 = f32::from_bits(0x3C09_13C7); // 0x1.12278Ep-7
    const C4: f32 = f32::from_bits(0x3D2A_AB8B); // 0x1.555716p-5
    const C3: f32 = f32::from_bits(0x3E2A_AA58); // 0x1.5554B0p-3
    const C2: f32 = f32::from_bits(0x3EFF_FFFF); // 0x1.FFFFFEp-2
    const ALPHA: f32 = 1.0;
    let z = SAT_CUTOFF.max(x);
    let n = fma(z, LOG2E, MAGIC);
    let mut s = f32::from_bits(n.to_bits() << 23);
    let n = n - MAGIC;
    let mut t = fma(n, MINUS_LN2, z);
    let mut p = fma(C6, t, C5);
    p = fma(p, t, C4);
    p = fma(p, t, C3);
    p = fma(p, t, C2);
    p *= t;
    t *= s;
    s = fma(s, ALPHA, -ALPHA);
    p = fma(p, t, t);
    fma(p, ALPHA, s)
}

/// `PopulateSoftmaxLookupTable`: `table[255 − d] = expf((−s_in · β) · d)`, `d = 0..=255`, each
/// product in `f32`.
fn exp_table(input_scale: f32, beta: f32) -> Box<[f32; 256]> {
    let scale = -input_scale * beta;
    let mut table = Box::new([0f32; 256]);
    for d in 0..=255u8 {
        table[255 - usize::from(d)] = expf(scale * f32::from(d));
    }
    table
}

/// A row's largest value and `Σ table[255 − (max − x)]`, summed in `f32` in order.
fn max_and_sum(table: &[f32; 256], input: &[i8]) -> (i8, f32) {
    let max = input.iter().copied().max().unwrap_or(0);
    let sum = input.iter().fold(0f32, |s, &x| {
        s + table[255 - (i32::from(max) - i32::from(x)) as usize]
    });
    (max, sum)
}

/// LiteRT's optimized int8 SOFTMAX (`optimized_ops::Softmax` with the float table of
/// `PopulateSoftmaxLookupTable`, the x86-64 build without `TFLITE_SOFTMAX_USE_UINT16_LUT`).
#[derive(Debug, Clone, PartialEq)]
pub struct Softmax {
    /// `table[255 − d] = expf((−s_in · β) · d)`, `d = 0..=255`, each product in `f32`.
    pub table: Box<[f32; 256]>,
    /// Output scale.
    pub output_scale: f32,
    /// Output zero point.
    pub output_zero_point: i32,
}

impl Softmax {
    /// The table for input scale `s_in` and `beta`.
    pub fn new(input_scale: f32, beta: f32, output_scale: f32, output_zero_point: i32) -> Self {
        Self {
            table: exp_table(input_scale, beta),
            output_scale,
            output_zero_point,
        }
    }

    /// One row of `depth` int8 values: `e_j = table[255 − (max − x_j)]`, `sum = Σ e_j` in `f32`
    /// in order, `inv = 1 / (sum · s_out)`, `out_j = round(e_j · inv) + zp_out` (half away from
    /// zero), clamped to int8.
    pub fn row(&self, input: &[i8], output: &mut [i8]) {
        let (max, sum) = max_and_sum(&self.table, input);
        let e = |x: i8| self.table[255 - (i32::from(max) - i32::from(x)) as usize];
        let inv = 1.0 / (sum * self.output_scale);
        for (o, &x) in output.iter_mut().zip(input) {
            // The product is in [0, 256 / (1 + …)]: the cast cannot overflow (NaN gives 0).
            let q = (e(x) * inv).round() as i32 + self.output_zero_point;
            *o = q.clamp(-128, 127) as i8;
        }
    }
}

/// int8 SOFTMAX over rows of `depth` elements ([`Softmax::row`]).
pub fn softmax(p: &Softmax, depth: usize, input: &[i8], output: &mut [i8]) {
    each_row(depth, input, output, |i, o| p.row(i, o));
}

/// `row` on each pair of input and output rows of `depth` elements (none when `depth` is 0).
fn each_row(depth: usize, input: &[i8], output: &mut [i8], row: impl Fn(&[i8], &mut [i8])) {
    if depth == 0 {
        return;
    }
    for (i, o) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        row(i, o);
    }
}

/// LiteRT's optimized int8 LOG_SOFTMAX (`optimized_ops::LogSoftmax` over the table of
/// [`Softmax`], β = 1), which LiteRT's default path runs (the delegate does not take it).
#[derive(Debug, Clone, PartialEq)]
pub struct LogSoftmax {
    /// As [`Softmax::table`], β = 1.
    pub table: Box<[f32; 256]>,
    /// Input scale.
    pub input_scale: f32,
    /// Output scale (LiteRT requires 16 / 256).
    pub output_scale: f32,
    /// Output zero point (LiteRT requires 127).
    pub output_zero_point: i32,
}

impl LogSoftmax {
    /// The table and scales.
    pub fn new(input_scale: f32, output_scale: f32, output_zero_point: i32) -> Self {
        Self {
            table: exp_table(input_scale, 1.0),
            input_scale,
            output_scale,
            output_zero_point,
        }
    }

    /// One row: `lse = logf(Σ e_j)` (the sum as [`Softmax::row`]), `k = (s_in · max + lse) /
    /// s_out`, `out_j = rint((s_in / s_out) · x_j − k) + zp_out` (ties to even), clamped to int8;
    /// every operation in `f32`.
    pub fn row(&self, input: &[i8], output: &mut [i8]) {
        let (max, sum) = max_and_sum(&self.table, input);
        let lse = logf(sum);
        let scale = self.input_scale / self.output_scale;
        let k = (self.input_scale * f32::from(max) + lse) / self.output_scale;
        for (o, &x) in output.iter_mut().zip(input) {
            // Finite and below 2^31 in magnitude for int8 inputs (NaN would give 0).
            let q = (scale * f32::from(x) - k).round_ties_even() as i32 + self.output_zero_point;
            *o = q.clamp(-128, 127) as i8;
        }
    }
}

/// int8 LOG_SOFTMAX over rows of `depth` elements ([`LogSoftmax::row`]).
pub fn log_softmax(p: &LogSoftmax, depth: usize, input: &[i8], output: &mut [i8]) {
    each_row(depth, input, output, |i, o| p.row(i, o));
}
