//! Every fast kernel against its reference kernel, bit for bit.
//!
//! A case is a geometry plus a seed; the seed drives a `fastrand` generator for the data
//! (inputs and weights over the whole int8 range, biases, zero points, per-channel multipliers
//! from tiny to above 1 including LiteRT's extremes, activation clamps). Natively, proptest
//! draws the geometries (and shrinks them); compiled to wasm32, the same checks run under
//! `wasm-bindgen-test-runner` in Node with SIMD128 on, over geometries from a seeded generator
//! (proptest does not run on wasm32), so the real intrinsics are compared with the reference.
//! Fixed edge cases run on both.

use super::conv_float::{Conv2dF32, DepthwiseF32, FullyConnectedF32};
use super::conv_int::{Conv2dInt8, QUADS_AVAILABLE};
use super::depthwise_int::DepthwiseInt8;
use super::dot_scheme::{self, DotScheme};
use super::elementwise_int::{AddSubInt8, MulInt8, max_min_int8};
use super::fully_connected_int::FullyConnectedInt8;
use super::pool_int::PoolInt8;
use super::quantize::{RequantizeInt8, affine_quantize_int8, dequantize_int8};
use crate::PackedKernel;
use crate::fixedpoint::quantize_multiplier;
use crate::reference::ActivationRange;
use crate::reference::conv::{self, ConvParams};
use crate::reference::conv_int::{self, RequantParams};
use crate::reference::elementwise::{self, Broadcast, QuantAddSub, QuantMul};
use crate::reference::fully_connected::FullyConnectedParams;
use crate::reference::pool::{self, PoolParams};
use crate::reference::quantize as ref_quantize;
use crate::reference::{fully_connected, fully_connected_int};
use crate::xnnpack::Fp32Requant;

/// A convolution geometry (CONV_2D or DEPTHWISE_CONV_2D) and the seed of its data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConvCase {
    pub batches: usize,
    pub in_hw: (usize, usize),
    pub in_c: usize,
    /// Output channels (CONV_2D) or depth multiplier (DEPTHWISE_CONV_2D).
    pub out_c_or_mult: usize,
    pub filter: (usize, usize),
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub pad: (usize, usize),
    pub out_hw: (usize, usize),
    pub seed: u64,
}

impl ConvCase {
    pub(crate) fn params(&self, out_c: usize) -> ConvParams {
        ConvParams {
            batches: self.batches,
            in_h: self.in_hw.0,
            in_w: self.in_hw.1,
            in_c: self.in_c,
            out_h: self.out_hw.0,
            out_w: self.out_hw.1,
            out_c,
            filter_h: self.filter.0,
            filter_w: self.filter.1,
            stride_h: self.stride.0,
            stride_w: self.stride.1,
            dilation_h: self.dilation.0,
            dilation_w: self.dilation.1,
            pad_top: self.pad.0,
            pad_left: self.pad.1,
            act: ActivationRange::NONE,
        }
    }

    /// A random geometry (the wasm side's stand-in for proptest's strategies).
    pub fn random(rng: &mut fastrand::Rng) -> Self {
        let filter = (rng.usize(1..=4), rng.usize(1..=4));
        let dilation = (rng.usize(1..=3), rng.usize(1..=3));
        ConvCase {
            batches: rng.usize(1..=3),
            in_hw: (rng.usize(1..=9), rng.usize(1..=9)),
            in_c: rng.usize(1..=20),
            out_c_or_mult: rng.usize(1..=20),
            filter,
            stride: (rng.usize(1..=3), rng.usize(1..=3)),
            dilation,
            pad: (
                rng.usize(0..=(filter.0 - 1) * dilation.0),
                rng.usize(0..=(filter.1 - 1) * dilation.1),
            ),
            out_hw: (rng.usize(1..=7), rng.usize(1..=7)),
            seed: rng.u64(..),
        }
    }
}

pub(super) fn i8s(rng: &mut fastrand::Rng, n: usize) -> Vec<i8> {
    (0..n).map(|_| rng.i8(..)).collect()
}

/// A bias (or none), mostly of realistic size, sometimes over the whole int32 range.
pub(super) fn bias(rng: &mut fastrand::Rng, n: usize) -> Option<Vec<i32>> {
    match rng.u8(0..8) {
        0 => None,
        1 => Some((0..n).map(|_| rng.i32(..)).collect()),
        _ => Some((0..n).map(|_| rng.i32(-(1 << 20)..1 << 20)).collect()),
    }
}

/// Per-channel (multiplier, shift) pairs: mostly `QuantizeMultiplier` of reals from 1e-7 to 100,
/// sometimes LiteRT's extremes (largest mantissa, largest shifts, zero).
fn multipliers(rng: &mut fastrand::Rng, n: usize) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let real = 10f64.powf(rng.f64() * 9.0 - 7.0);
        let (m, s) = match rng.u8(0..12) {
            0 => (i32::MAX, rng.i32(-31..=31)),
            1 => (1 << 30, rng.i32(-31..=31)),
            2 => (0, 0),
            _ => quantize_multiplier(real),
        };
        out.0.push(m);
        out.1.push(s);
        out.2.push(real);
    }
    out
}

/// Random zero points, multipliers and clamp for `channels`; one time in three with XNNPACK's
/// `f32` requantization ([`Arithmetic::Xnnpack`](crate::Arithmetic::Xnnpack)), its
/// scales the real multipliers within the range XNNPACK accepts, or powers of two (whose
/// products land on ties, where the rounding direction shows).
pub(super) fn quant(rng: &mut fastrand::Rng, channels: usize) -> RequantParams {
    let (multipliers, shifts, real_multipliers) = multipliers(rng, channels);
    let ties = rng.bool();
    let xnnpack = (rng.u8(0..3) == 0).then(|| Fp32Requant {
        scales: real_multipliers
            .iter()
            .map(|&r| {
                if ties {
                    2f32.powi(-rng.i32(1..=8))
                } else {
                    (r as f32).clamp(2f32.powi(-32), 255.0)
                }
            })
            .collect(),
    });
    let (act_min, act_max) = if rng.bool() {
        (-128, 127)
    } else {
        let lo = rng.i32(-128..=127);
        (lo, rng.i32(lo..=127))
    };
    RequantParams {
        input_offset: -rng.i32(-128..=127),
        output_offset: rng.i32(-128..=127),
        act_min,
        act_max,
        multipliers,
        shifts,
        real_multipliers,
        xnnpack,
    }
}

/// CONV_2D: the fast kernel prepares and gives the reference's bits.
pub(crate) fn check_conv(c: &ConvCase) {
    let mut rng = fastrand::Rng::with_seed(c.seed);
    let out_c = c.out_c_or_mult;
    let p = c.params(out_c);
    let input = i8s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c);
    let filter = i8s(&mut rng, out_c * p.filter_h * p.filter_w * p.in_c);
    let bias = bias(&mut rng, out_c);
    let q = quant(&mut rng, out_c);
    let n_out = p.batches * p.out_h * p.out_w * out_c;
    // Every packing: int16 pairs (SIMD128) and int8 quads (relaxed SIMD) in each dot scheme
    // this build can run (natively all three, emulated; in a relaxed wasm build the split one
    // and the one the engine's probe found). Under `Split` a weight of −128 falls back to
    // pairs, so half the cases clear it to exercise the quads.
    let mut no_min = filter.clone();
    for w in no_min.iter_mut().filter(|w| **w == i8::MIN) {
        *w = -127;
    }
    for scheme in conv_schemes() {
        let filter = if scheme == Some(DotScheme::Split) && c.seed.is_multiple_of(2) {
            &no_min
        } else {
            &filter
        };
        let mut want = vec![0i8; n_out];
        conv_int::conv2d::<i8, i32, i32>(
            &p,
            p.in_c,
            &q,
            &input,
            filter,
            bias.as_deref(),
            &mut want,
        );
        let (k, mut s) = Conv2dInt8::with_scheme(&p, &q, filter, bias.as_deref(), scheme)
            .expect("fast CONV_2D prepares");
        let split_refused = scheme == Some(DotScheme::Split) && filter.contains(&i8::MIN);
        assert_eq!(
            k.dot_scheme(),
            scheme.filter(|_| QUADS_AVAILABLE && !split_refused)
        );
        // The one-dot schemes run the channel-major GEMM under XNNPACK's arithmetic with a
        // multiple of 16 channels.
        let one_dot = matches!(scheme, Some(DotScheme::Unsigned | DotScheme::Signed));
        assert_eq!(
            k.channel_major(),
            QUADS_AVAILABLE && one_dot && q.xnnpack.is_some() && out_c.is_multiple_of(16),
            "{c:?} scheme {scheme:?}"
        );
        let mut got = vec![0i8; n_out];
        k.run(&input, &mut got, &mut s);
        assert_eq!(got, want, "{c:?} scheme {scheme:?}");
        // A second run over the same scratch gives the same bits.
        k.run(&input, &mut got, &mut s);
        assert_eq!(got, want, "{c:?} scheme {scheme:?} (second run)");
    }
}

/// The CONV_2D packings [`check_conv`] runs: pairs (`None`) and each dot scheme this build can
/// execute exactly.
fn conv_schemes() -> Vec<Option<DotScheme>> {
    let mut schemes = vec![None, Some(DotScheme::Split)];
    if cfg!(not(target_arch = "wasm32")) {
        schemes.extend([Some(DotScheme::Unsigned), Some(DotScheme::Signed)]);
    } else if dot_scheme::detected() != DotScheme::Split {
        schemes.push(Some(dot_scheme::detected()));
    }
    schemes
}

/// DEPTHWISE_CONV_2D: the fast kernel prepares and gives the reference's bits.
pub(crate) fn check_depthwise(c: &ConvCase) {
    let mut rng = fastrand::Rng::with_seed(c.seed);
    let mult = c.out_c_or_mult.clamp(1, 3);
    let out_c = c.in_c * mult;
    let p = c.params(out_c);
    let input = i8s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c);
    let filter = i8s(&mut rng, p.filter_h * p.filter_w * out_c);
    let bias = bias(&mut rng, out_c);
    let q = quant(&mut rng, out_c);
    let n_out = p.batches * p.out_h * p.out_w * out_c;
    let mut want = vec![0i8; n_out];
    conv_int::depthwise_conv2d::<i8, i32, i32>(
        &p,
        mult,
        &q,
        &input,
        &filter,
        bias.as_deref(),
        &mut want,
    );
    let Some((k, mut s)) = DepthwiseInt8::new(&p, mult, &q, &filter, bias.as_deref()) else {
        // The per-lane requantization takes right shifts up to 30; 31 keeps the reference.
        assert!(q.shifts.iter().any(|&s| s <= -31), "refused: {c:?}");
        return;
    };
    let mut got = vec![0i8; n_out];
    k.run(&input, &mut got, &mut s);
    assert_eq!(got, want, "{c:?}");
    k.run(&input, &mut got, &mut s);
    assert_eq!(got, want, "{c:?} (second run)");
}

/// FULLY_CONNECTED: `batches` rows of `depth`, `units` outputs.
pub(crate) fn check_fully_connected(batches: usize, depth: usize, units: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let input = i8s(&mut rng, batches * depth);
    let weights = i8s(&mut rng, units * depth);
    let bias = bias(&mut rng, units);
    let mut q = quant(&mut rng, units);
    if rng.u8(0..4) == 0 {
        // Rescales far above 1: the double result saturates in `as i32`.
        for r in &mut q.real_multipliers {
            *r *= 1e9;
        }
    }
    let p = FullyConnectedParams {
        batches,
        accum_depth: depth,
        out_c: units,
        act: ActivationRange::NONE,
    };
    let mut want = vec![0i8; batches * units];
    fully_connected_int::fully_connected::<i8, i32, i32>(
        &p,
        &q,
        &input,
        &weights,
        bias.as_deref(),
        &mut want,
    );
    let (k, mut s) = FullyConnectedInt8::new(batches, depth, units, &q, &weights, bias.as_deref())
        .expect("fast FULLY_CONNECTED prepares");
    let mut got = vec![0i8; batches * units];
    k.run(&input, &mut got, &mut s);
    assert_eq!(
        got, want,
        "batches {batches} depth {depth} units {units} seed {seed}"
    );
}

/// Float data: mostly in [−2, 2], sometimes a special value (±0, NaN, ±inf, subnormal, huge).
fn f32s(rng: &mut fastrand::Rng, n: usize, specials: bool) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.u8(0..40) {
            0 if specials => f32::NAN,
            1 if specials => f32::INFINITY,
            2 if specials => f32::NEG_INFINITY,
            3 => -0.0,
            4 => 0.0,
            5 => 1e-40,
            6 => 3e37,
            _ => rng.f32() * 4.0 - 2.0,
        })
        .collect()
}

fn act(rng: &mut fastrand::Rng) -> ActivationRange {
    [
        ActivationRange::NONE,
        ActivationRange::RELU,
        ActivationRange::RELU6,
        ActivationRange::RELU_N1_TO_1,
    ][rng.usize(0..4)]
}

/// Bit patterns (so −0 differs from +0), every NaN as one canonical pattern: Rust and
/// WebAssembly leave the sign and payload of a NaN produced by arithmetic unspecified (LLVM may
/// commute an addition's operands), so "same bits" means NaN in the same places.
pub(crate) fn bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() })
        .collect()
}

/// float CONV_2D: same bits as the reference (with finite weights; with non-finite weights the
/// fast kernel is refused when a tap falls outside the image, and must match otherwise).
pub(crate) fn check_conv_f32(c: &ConvCase) {
    let mut rng = fastrand::Rng::with_seed(c.seed ^ 0xf32);
    let out_c = c.out_c_or_mult;
    let mut p = c.params(out_c);
    p.act = act(&mut rng);
    let input = f32s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c, true);
    let specials = rng.u8(0..4) == 0;
    let filter = f32s(&mut rng, out_c * p.filter_h * p.filter_w * p.in_c, specials);
    let bias = rng.bool().then(|| f32s(&mut rng, out_c, false));
    let n_out = p.batches * p.out_h * p.out_w * out_c;
    let mut want = vec![0f32; n_out];
    conv::conv2d(&p, p.in_c, &input, &filter, bias.as_deref(), &mut want);
    let Some((k, mut s)) = Conv2dF32::new(&p, &filter, bias.as_deref()) else {
        assert!(
            filter.iter().any(|w| !w.is_finite()),
            "refused with finite weights: {c:?}"
        );
        return;
    };
    let mut got = vec![0f32; n_out];
    k.run(&input, &mut got, &mut s);
    assert_eq!(bits(&got), bits(&want), "{c:?}");
}

/// float DEPTHWISE_CONV_2D (multiplier 1; others are refused).
pub(crate) fn check_depthwise_f32(c: &ConvCase) {
    let mut rng = fastrand::Rng::with_seed(c.seed ^ 0xd32);
    let mut p = c.params(c.in_c);
    p.act = act(&mut rng);
    let input = f32s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c, true);
    let filter = f32s(&mut rng, p.filter_h * p.filter_w * p.in_c, true);
    let bias = rng.bool().then(|| f32s(&mut rng, p.in_c, false));
    let n_out = p.batches * p.out_h * p.out_w * p.in_c;
    let mut want = vec![0f32; n_out];
    conv::depthwise_conv2d(&p, 1, &input, &filter, bias.as_deref(), &mut want);
    let k = DepthwiseF32::new(&p, 1, &filter, bias.as_deref()).expect("fast depthwise prepares");
    let mut got = vec![0f32; n_out];
    k.run(&input, &mut got, &mut ());
    assert_eq!(bits(&got), bits(&want), "{c:?}");
    assert!(DepthwiseF32::new(&c.params(c.in_c * 2), 2, &[0.0; 0], None).is_none());
}

/// float FULLY_CONNECTED.
pub(crate) fn check_fully_connected_f32(batches: usize, depth: usize, units: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let input = f32s(&mut rng, batches * depth, true);
    let weights = f32s(&mut rng, units * depth, true);
    let bias = rng.bool().then(|| f32s(&mut rng, units, false));
    let p = FullyConnectedParams {
        batches,
        accum_depth: depth,
        out_c: units,
        act: act(&mut rng),
    };
    let mut want = vec![0f32; batches * units];
    fully_connected::fully_connected(&p, &input, &weights, bias.as_deref(), &mut want);
    let k = FullyConnectedF32::new(&p, &weights, bias.as_deref()).expect("fast FC prepares");
    let mut got = vec![0f32; batches * units];
    k.run(&input, &mut got, &mut ());
    assert_eq!(
        bits(&got),
        bits(&want),
        "batches {batches} depth {depth} units {units} seed {seed}"
    );
}

/// A (multiplier, shift) below 1, as the ops layer's `smaller_than_one`.
fn below_one(rng: &mut fastrand::Rng) -> (i32, i32) {
    quantize_multiplier(10f64.powf(-rng.f64() * 6.0) * 0.999)
}

fn clamp_pair(rng: &mut fastrand::Rng) -> (i32, i32) {
    if rng.bool() {
        (-128, 127)
    } else {
        let lo = rng.i32(-128..=127);
        (lo, rng.i32(lo..=127))
    }
}

/// ADD / SUB parameters with the given input and output multipliers (LiteRT's left shift 20)
/// and random offsets and operation.
pub(super) fn add_sub_params(
    rng: &mut fastrand::Rng,
    [(m1, s1), (m2, s2), (mo, so)]: [(i32, i32); 3],
    (act_min, act_max): (i32, i32),
) -> QuantAddSub {
    QuantAddSub {
        sub: rng.bool(),
        left_shift: 20,
        input1_offset: -rng.i32(-128..=127),
        input1_multiplier: m1,
        input1_shift: s1,
        input2_offset: -rng.i32(-128..=127),
        input2_multiplier: m2,
        input2_shift: s2,
        output_offset: rng.i32(-128..=127),
        output_multiplier: mo,
        output_shift: so,
        act_min,
        act_max,
    }
}

/// MUL parameters: a multiplier in [1e-6, 100), random offsets.
pub(super) fn mul_params(rng: &mut fastrand::Rng, (act_min, act_max): (i32, i32)) -> QuantMul {
    let (multiplier, shift) = quantize_multiplier(10f64.powf(rng.f64() * 8.0 - 6.0));
    QuantMul {
        input1_offset: -rng.i32(-128..=127),
        input2_offset: -rng.i32(-128..=127),
        output_offset: rng.i32(-128..=127),
        multiplier,
        shift,
        act_min,
        act_max,
    }
}

/// ADD / SUB / MUL / MAXIMUM / MINIMUM of `n` elements.
pub(crate) fn check_elementwise(n: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let a = i8s(&mut rng, n);
    let b = i8s(&mut rng, n);
    let shape = Broadcast::new(&[n], &[n]).expect("same shapes");
    let ((mut m1, mut s1), (m2, s2)) = (below_one(&mut rng), below_one(&mut rng));
    if rng.u8(0..4) == 0 {
        // An input multiplier above one (a left shift): the 64-bit input stage, not the
        // 32-bit one of `SmallInputRequant`.
        (m1, s1) = quantize_multiplier(1.0 + rng.f64() * 3.0);
    }
    let (mo, so) = if rng.u8(0..4) == 0 {
        quantize_multiplier(10f64.powf(rng.f64() * 4.0))
    } else {
        below_one(&mut rng)
    };
    let (act_min, act_max) = clamp_pair(&mut rng);
    let add = add_sub_params(&mut rng, [(m1, s1), (m2, s2), (mo, so)], (act_min, act_max));
    let mut want = vec![0i8; n];
    let mut got = vec![0i8; n];
    elementwise::quantized_add_sub(&add, &shape, &a, &b, &mut want);
    AddSubInt8::new(&add)
        .expect("fast ADD prepares")
        .run(&a, &b, &mut got);
    assert_eq!(got, want, "ADD/SUB n {n} seed {seed}");
    let mul = mul_params(&mut rng, (act_min, act_max));
    elementwise::quantized_mul(&mul, &shape, &a, &b, &mut want);
    MulInt8::new(&mul)
        .expect("fast MUL prepares")
        .run(&a, &b, &mut got);
    assert_eq!(got, want, "MUL n {n} seed {seed}");
    for maximum in [true, false] {
        elementwise::quantized_max_min(maximum, &shape, &a, &b, &mut want);
        max_min_int8(maximum, &a, &b, &mut got);
        assert_eq!(got, want, "MAX/MIN n {n} seed {seed}");
    }
}

/// QUANTIZE float → int8 and int8 → int8, DEQUANTIZE int8 → float, `n` elements.
pub(crate) fn check_quantize(n: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let scale = 10f32.powf(rng.f32() * 8.0 - 6.0);
    let zp = rng.i32(-128..=127);
    let mut x = f32s(&mut rng, n, true);
    for v in x.iter_mut().take(n / 4) {
        // Exact ties and huge values.
        *v = (rng.i32(-300..300) as f32 + 0.5) * scale * if rng.bool() { 1.0 } else { 1e9 };
    }
    // Quotients outside i32 (LiteRT's x86 cast: i32::MIN, then the zero point with wrap).
    let special = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 3e38, -3e38];
    for (k, v) in x.iter_mut().skip(n / 4).step_by(7).enumerate() {
        *v = special[k % special.len()];
    }
    let (mut want, mut got) = (vec![0i8; n], vec![0i8; n]);
    ref_quantize::affine_quantize(scale, zp, &x, &mut want);
    affine_quantize_int8(scale, zp, &x, &mut got);
    assert_eq!(got, want, "QUANTIZE n {n} seed {seed}");
    let q = i8s(&mut rng, n);
    let (mut wf, mut gf) = (vec![0f32; n], vec![0f32; n]);
    ref_quantize::dequantize(scale, zp, &q, &mut wf);
    dequantize_int8(scale, zp, &q, &mut gf);
    assert_eq!(bits(&gf), bits(&wf), "DEQUANTIZE n {n} seed {seed}");
    let (m, s) = quantize_multiplier(10f64.powf(rng.f64() * 6.0 - 3.0));
    let ozp = rng.i32(-128..=127);
    ref_quantize::requantize(m, s, zp, ozp, &q, &mut want);
    RequantizeInt8::new(m, s, zp, ozp)
        .expect("fast requantize prepares")
        .run(&q, &mut got);
    assert_eq!(got, want, "REQUANTIZE n {n} seed {seed}");
}

/// MAX_POOL_2D and AVERAGE_POOL_2D, int8.
pub(crate) fn check_pool(c: &ConvCase) {
    let mut rng = fastrand::Rng::with_seed(c.seed ^ 0x9001);
    let p = PoolParams {
        batches: c.batches,
        in_h: c.in_hw.0,
        in_w: c.in_hw.1,
        channels: c.in_c + c.out_c_or_mult,
        out_h: c.out_hw.0,
        out_w: c.out_hw.1,
        filter_h: c.filter.0 + c.dilation.0 - 1,
        filter_w: c.filter.1 + c.dilation.1 - 1,
        stride_h: c.stride.0,
        stride_w: c.stride.1,
        pad_top: c.pad.0,
        pad_left: c.pad.1,
        act: ActivationRange::NONE,
    };
    let input = i8s(&mut rng, p.batches * p.in_h * p.in_w * p.channels);
    let n = p.batches * p.out_h * p.out_w * p.channels;
    let (lo, hi) = clamp_pair(&mut rng);
    for max in [true, false] {
        let (mut want, mut got) = (vec![0i8; n], vec![0i8; n]);
        if max {
            pool::max_pool_int(&p, lo, hi, &input, &mut want);
        } else {
            pool::average_pool_int(&p, lo, hi, &input, &mut want);
        }
        PoolInt8::new(&p, max, lo, hi)
            .expect("fast pool prepares")
            .run(&input, &mut got, &mut ());
        assert_eq!(got, want, "max {max} {c:?}");
    }
}

/// Geometries every target checks: 1×1, tile ± 1 channels and pixels, odd depths, strides,
/// dilation, padding on every side, batches.
pub(crate) fn fixed_conv_cases() -> Vec<ConvCase> {
    let base = ConvCase {
        batches: 1,
        in_hw: (5, 5),
        in_c: 8,
        out_c_or_mult: 4,
        filter: (1, 1),
        stride: (1, 1),
        dilation: (1, 1),
        pad: (0, 0),
        out_hw: (5, 5),
        seed: 1,
    };
    let mut cases = Vec::new();
    for (in_c, out_c) in [
        (1, 1),
        (3, 5),
        (7, 3),
        (8, 8),
        (9, 4),
        (16, 17),
        (17, 15),
        (24, 32),
        (16, 16),
        (33, 48),
    ] {
        for (i, (filter, stride, pad, out_hw)) in [
            ((1, 1), (1, 1), (0, 0), (5, 5)),
            ((1, 1), (2, 2), (0, 0), (3, 3)),
            ((3, 3), (1, 1), (1, 1), (5, 5)),
            ((3, 3), (2, 2), (0, 0), (3, 3)),
            ((2, 3), (1, 2), (1, 2), (4, 3)),
        ]
        .into_iter()
        .enumerate()
        {
            cases.push(ConvCase {
                in_c,
                out_c_or_mult: out_c,
                filter,
                stride,
                pad,
                out_hw,
                seed: (in_c * 100 + out_c * 10 + i) as u64,
                ..base
            });
        }
    }
    cases.push(ConvCase {
        batches: 3,
        dilation: (2, 2),
        filter: (3, 3),
        pad: (2, 2),
        ..base
    });
    cases.push(ConvCase {
        in_hw: (1, 1),
        out_hw: (1, 1),
        in_c: 1,
        out_c_or_mult: 1,
        ..base
    });
    // More taps than the float depthwise kernel lists at once (64), with padding.
    cases.push(ConvCase {
        in_hw: (10, 11),
        in_c: 6,
        filter: (9, 8),
        pad: (4, 3),
        out_hw: (3, 4),
        seed: 72,
        ..base
    });
    cases
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn fixed_geometries_match_the_reference() {
    for c in fixed_conv_cases() {
        check_conv(&c);
        check_depthwise(&c);
    }
    for (b, d, u) in [
        (1, 1, 1),
        (1, 7, 3),
        (2, 8, 4),
        (3, 9, 5),
        (1, 32, 6),
        (4, 33, 17),
    ] {
        check_fully_connected(b, d, u, (b * 1000 + d * 10 + u) as u64);
    }
}

/// The 3×3 depthwise path steps sixteen channels at a time with an eight-channel tail, and the
/// convolution packs im2col rows padded to a multiple of 8: every channel count around those
/// boundaries, strides 1 and 2, dilation, padding, depth multipliers 1 and 2, and the
/// 3-channel stride-2 first layer of MobileNet-style nets, each with random zero points
/// (−128..=127), multipliers (LiteRT's extremes included) and clamps.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn depthwise_3x3_channel_tails_and_padded_im2col_match_the_reference() {
    let mut seed = 0x3d3;
    for in_c in [
        1, 3, 4, 7, 8, 9, 12, 15, 16, 17, 20, 23, 24, 25, 31, 32, 33, 40, 48,
    ] {
        for mult in [1, 2] {
            for (stride, dilation, pad) in [(1, 1, 1), (2, 1, 0), (2, 1, 1), (1, 2, 2)] {
                seed += 1;
                let in_hw = (5, 6);
                let span = 2 * dilation + 1;
                let out = |n: usize| (n + 2 * pad - span) / stride + 1;
                let c = ConvCase {
                    batches: 1 + (seed % 2) as usize,
                    in_hw,
                    in_c,
                    out_c_or_mult: mult,
                    filter: (3, 3),
                    stride: (stride, stride),
                    dilation: (dilation, dilation),
                    pad: (pad, pad),
                    out_hw: (out(in_hw.0), out(in_hw.1)),
                    seed,
                };
                check_depthwise(&c);
                if mult == 1 {
                    check_conv(&ConvCase {
                        out_c_or_mult: 1 + (seed % 37) as usize,
                        ..c
                    });
                }
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn seeded_random_geometries_match_the_reference() {
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for _ in 0..300 {
        let c = ConvCase::random(&mut rng);
        check_conv(&c);
        check_depthwise(&c);
        check_conv_f32(&c);
        check_depthwise_f32(&c);
        check_pool(&c);
        check_elementwise(rng.usize(0..200), rng.u64(..));
        check_quantize(rng.usize(0..200), rng.u64(..));
        let (b, d, u) = (rng.usize(1..=4), rng.usize(1..=80), rng.usize(1..=40));
        check_fully_connected(b, d, u, rng.u64(..));
        check_fully_connected_f32(b, d, u, rng.u64(..));
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn conv_case() -> impl Strategy<Value = ConvCase> {
        (
            (1usize..=3, 1usize..=9, 1usize..=9, 1usize..=24, 1usize..=24),
            (
                1usize..=4,
                1usize..=4,
                1usize..=3,
                1usize..=3,
                1usize..=3,
                1usize..=3,
            ),
            (0usize..=6, 0usize..=6, 1usize..=8, 1usize..=8, any::<u64>()),
        )
            .prop_map(
                |((b, h, w, ic, oc), (fh, fw, sh, sw, dh, dw), (pt, pl, oh, ow, seed))| ConvCase {
                    batches: b,
                    in_hw: (h, w),
                    in_c: ic,
                    out_c_or_mult: oc,
                    filter: (fh, fw),
                    stride: (sh, sw),
                    dilation: (dh, dw),
                    pad: (pt.min((fh - 1) * dh), pl.min((fw - 1) * dw)),
                    out_hw: (oh, ow),
                    seed,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn conv2d_int8_fast_equals_reference(c in conv_case()) {
            check_conv(&c);
        }

        #[test]
        fn depthwise_int8_fast_equals_reference(c in conv_case()) {
            check_depthwise(&c);
        }

        #[test]
        fn conv2d_f32_fast_equals_reference(c in conv_case()) {
            check_conv_f32(&c);
        }

        #[test]
        fn depthwise_f32_fast_equals_reference(c in conv_case()) {
            check_depthwise_f32(&c);
        }

        #[test]
        fn fully_connected_f32_fast_equals_reference(
            b in 1usize..=4, d in 1usize..=100, u in 1usize..=40, seed in any::<u64>()
        ) {
            check_fully_connected_f32(b, d, u, seed);
        }

        #[test]
        fn pool_int8_fast_equals_reference(c in conv_case()) {
            check_pool(&c);
        }

        #[test]
        fn elementwise_int8_fast_equals_reference(n in 0usize..300, seed in any::<u64>()) {
            check_elementwise(n, seed);
        }

        #[test]
        fn quantize_int8_fast_equals_reference(n in 0usize..300, seed in any::<u64>()) {
            check_quantize(n, seed);
        }

        #[test]
        fn fully_connected_int8_fast_equals_reference(
            b in 1usize..=4, d in 1usize..=100, u in 1usize..=40, seed in any::<u64>()
        ) {
            check_fully_connected(b, d, u, seed);
        }
    }
}
