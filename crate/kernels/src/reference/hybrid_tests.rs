//! Tests of the hybrid kernels ([`super`]): run-time quantization (LiteRT x86's range of a row
//! with NaN included), the SSSE3 block product, and FULLY_CONNECTED / conv arithmetic.

use super::*;
use crate::reference::ActivationRange;

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
    // The range is std::minmax_element's (pairs): LiteRT 2.3 on [4, 1, NaN, 3] gives range 4
    // (the pair (NaN, 3) leaves the maximum 4; a NaN quantizes to −127 at every position).
    let s = symmetric_quantize(&[4.0, 1.0, f32::NAN, 3.0], &mut q);
    assert_eq!((s, q), (4.0 / 127.0, [127, 32, -127, 95]));
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

/// Rows measured on LiteRT 2.3 BUILTIN_REF's hybrid FULLY_CONNECTED (asymmetric inputs,
/// identity weights, so each output is `(q − zp) · scale`): the range found, and a NaN in
/// the scalar tail quantized to 0 (its output `128 · hi / 255` when the zero point is −128).
#[test]
fn a_row_with_nan_takes_litert_x86s_range() {
    let nan = f32::NAN;
    let hi = |row: &[f32]| min_max(row).1;
    // Shorter than 4: std::minmax_element's pairs. A NaN becomes the maximum unless a
    // later value replaces it (LiteRT: [3, NaN, 1] and [2, 1, NaN] quantize to zeros).
    assert!(hi(&[3.0, nan, 1.0]).is_nan());
    assert!(hi(&[2.0, 1.0, nan]).is_nan());
    assert_eq!(hi(&[2.0, nan, 3.0]), 3.0);
    assert_eq!(hi(&[nan, 2.0, 1.0]), 2.0);
    // Four lanes: a NaN ending lane 2 is kept, one ending lane 3 dropped.
    assert!(hi(&[2.0, 1.0, nan, 3.0]).is_nan());
    assert_eq!(hi(&[2.0, 1.0, 4.0, nan]), 4.0);
    // 12 = three rounds of four lanes: lanes end on 9, 10, NaN / 11, 12.
    let row = |p: usize| {
        let mut r: Vec<f32> = (1..=12).map(|v| v as f32).collect();
        r[p] = nan;
        r
    };
    assert!(hi(&row(10)).is_nan());
    assert_eq!(hi(&row(11)), 11.0);
    assert_eq!(hi(&row(8)), 12.0);
    // A NaN tail (7 = 4 lanes + 3) is ignored when joined: [1..6, NaN] → hi 4.
    assert_eq!(hi(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, nan]), 4.0);
    // Quantized: [1..5] with NaN at 2 → hi 5, zero point −128, NaN → 0 (scalar loop).
    let mut q = [0i8; 5];
    let (s, z) = asymmetric_quantize(&[1.0, 2.0, nan, 4.0, 5.0], &mut q);
    assert_eq!((s, z), (5.0f32 / 255.0, -128));
    assert_eq!(q[2], 0);
    // In the vectorized first 8 a NaN wraps from i32::MIN: + (−128) gives 127.
    let mut q9 = [0i8; 9];
    let mut r9: Vec<f32> = (1..=9).map(|v| v as f32).collect();
    r9[3] = nan;
    asymmetric_quantize(&r9, &mut q9);
    assert_eq!(q9[3], 127);
    r9[3] = 4.0;
    r9[8] = nan;
    asymmetric_quantize(&r9, &mut q9);
    assert_eq!(q9[8], 0);
}

/// Infinities where the range stays finite (a NaN dropped them from it), measured on LiteRT 2.3
/// BUILTIN_REF's hybrid FULLY_CONNECTED: the vectorized first `len - len % 8` values and the
/// scalar rest convert differently.
#[test]
fn an_infinity_outside_the_range_quantizes_as_litert_x86_does() {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let ramp = |sign: f32, tail: [f32; 2]| {
        let mut r: Vec<f32> = (1..=8).map(|v| sign * v as f32).collect();
        r.extend(tail);
        r
    };
    // Asymmetric, tail of 2: −∞ and +∞ saturate (zero point −128 or 127), NaN gives 0.
    let mut q = [0i8; 10];
    assert_eq!(asymmetric_quantize(&ramp(1.0, [nan, -inf]), &mut q).1, -128);
    assert_eq!(&q[8..], [0, -128]);
    asymmetric_quantize(&ramp(1.0, [inf, nan]), &mut q);
    assert_eq!(&q[8..], [127, 0]);
    assert_eq!(asymmetric_quantize(&ramp(-1.0, [inf, nan]), &mut q).1, 127);
    assert_eq!(&q[8..], [127, 0]);
    // Symmetric: +∞ in the vectorized 8 clamps to 127 (the range: ∞ becomes the maximum, the
    // pair (3.4, NaN) replaces it by NaN and (1.5, 1.8) by 1.8, so |−4.1|); in a row of 3 it
    // converts to i32::MIN, so −127.
    let mut q8 = [0i8; 8];
    let s = symmetric_quantize(&[-4.1, inf, -1.6, 0.2, 3.4, nan, 1.5, 1.8], &mut q8);
    assert_eq!(
        (s, q8),
        (4.1 / 127.0, [-127, 127, -50, 6, 105, -127, 46, 56])
    );
    let mut q3 = [0i8; 3];
    symmetric_quantize(&[-0.2, inf, nan], &mut q3);
    assert_eq!(q3, [-127; 3]);
}

fn fc(batches: usize, depth: usize, units: usize, act: ActivationRange) -> FullyConnectedParams {
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
