use super::*;

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ties_round_to_even_not_away_from_zero() {
    // acc · 0.5: 5 → 2.5 → 2, 7 → 3.5 → 4, −5 → −2.5 → −2 (LiteRT's reference gives 3 / −3).
    for (acc, want) in [(5, 2), (7, 4), (-5, -2), (-7, -4), (1, 0), (3, 2)] {
        assert_eq!(requantize(acc, 0.5, 0, -128, 127), want, "acc {acc}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn clamps_after_the_multiply_then_adds_the_zero_point() {
    // 1000 · 0.5 = 500 → clamp to 127 − 10 = 117 → 127; −1000 · 0.5 → −128 − 10 → −128.
    assert_eq!(requantize(1000, 0.5, 10, -128, 127), 127);
    assert_eq!(requantize(-1000, 0.5, 10, -128, 127), -128);
    // An activation clamp [zp, 127] (RELU): negative products give the zero point.
    assert_eq!(requantize(-3, 1.0, -20, -20, 127), -20);
    // The accumulator goes through f32 first: 2^24 + 1 is not representable, becomes 2^24.
    assert_eq!(requantize((1 << 24) + 1, 2f32.powi(-24), 0, -128, 127), 1);
    // i32::MIN and MAX saturate in the clamp, not in an integer conversion.
    assert_eq!(requantize(i32::MIN, 1.0, 5, -128, 127), -128);
    assert_eq!(requantize(i32::MAX, 1.0, 5, -128, 127), 127);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn scale_is_three_f32_operations() {
    // 0.1 · 0.3 rounds in f32 before the division by 0.7 (double precision gives a different
    // f32 here).
    let (a, b, c) = (0.1f32, 0.3f32, 0.7f32);
    assert_eq!(requantization_scale(a, b, c), (a * b) / c);
    let double = (f64::from(a) * f64::from(b) / f64::from(c)) as f32;
    assert_ne!(requantization_scale(a, b, c).to_bits(), double.to_bits());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn activation_bounds_round_to_even_in_float() {
    // RELU6 with scale 0.04 and zero point −128: 6 / 0.04 = 150 (f32: 150.0) − 128 = 22.
    assert_eq!(output_range(ActivationRange::RELU6, 0.04, -128), (-128, 22));
    // A bound at .5 after the zero point: 2.5 / 1 + 0 → 2 (reference: 3).
    assert_eq!(output_bound(2.5, 1.0, 0), 2);
    assert_eq!(output_bound(3.5, 1.0, 0), 4);
    // NONE: the engine's f32::MIN / MAX, and ±∞ as LiteRT's delegate passes them.
    assert_eq!(output_range(ActivationRange::NONE, 0.01, 3), (-128, 127));
    assert_eq!(
        output_range(ActivationRange::UNBOUNDED, 0.01, 3),
        (-128, 127)
    );
    assert_eq!(output_range(ActivationRange::RELU, 0.01, 3), (3, 127));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn scale_limits() {
    assert!(scale_supported(255.9));
    assert!(!scale_supported(256.0));
    assert!(scale_supported(2f32.powi(-32)));
    assert!(!scale_supported(2f32.powi(-33)));
    assert!(!scale_supported(f32::NAN));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn quantize_rounds_ties_to_even_and_clamps() {
    // scale 0.5 (inverse 2): 1.25 → 2.5 → 2, −1.25 → −2, 1.75 → 3.5 → 4; the zero point 10 is
    // added after rounding; ±1000 clamp. Six values: one vector of four and a tail of two.
    let x = [1.25, -1.25, 1.75, 1000.0, -1000.0, 0.25];
    let mut out = [0i8; 6];
    quantize(inverse_scale(0.5), 10, &x, &mut out);
    assert_eq!(out, [12, 8, 14, 127, -128, 10]);
    // The tail uses the same arithmetic as the vector part.
    let mut tail = [0i8; 2];
    quantize(inverse_scale(0.5), 10, &x[..2], &mut tail);
    assert_eq!(tail, [12, 8]);
}

/// [`requantize_lanes`] of `acc` with one `scale`, zero point `zp` and lower bound `min`.
fn lanes(acc: [i32; 4], scale: f32, zp: i32, min: i32) -> [i32; 4] {
    requantize_lanes(
        V128::from_i32(acc),
        V128::splat_f32(scale),
        V128::splat_f32((min - zp) as f32),
        V128::splat_i32(magic_less_zero_point(zp)),
    )
    .to_i32()
}

/// What the kernels do with a lane of [`requantize_lanes`]: saturate to int8 (the two narrowing
/// steps), then clamp to `[min, max]`.
fn narrow(lane: i32, min: i32, max: i32) -> i32 {
    lane.clamp(-128, 127).clamp(min, max)
}

/// Accumulators around the points where the magic-bias form changes regime (products near
/// `±2^22`, `±1.5 · 2^23`, `±2^24`, the int32 extremes), at the largest and smallest scales
/// XNNPACK accepts and at scales near 1: every one narrows to the scalar definition.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn regime_boundaries_equal_scalar() {
    let scales = [
        2f32.powi(-32),
        2f32.powi(-20),
        0.37,
        1.0,
        1.0 + f32::EPSILON,
        3.0,
        255.99,
    ];
    let mut points = vec![i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 1, 0];
    for p in [1i64 << 22, 3 << 22, 1 << 24, 1 << 30] {
        for s in scales {
            let at = (p as f64 / f64::from(s)) as i64;
            for d in -3..=3 {
                for v in [at + d, -(at + d)] {
                    points.push(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32);
                }
            }
        }
    }
    for &scale in &scales {
        for zp in [-128, -1, 0, 5, 127] {
            for (min, max) in [
                (-128, 127),
                (zp.max(-128), 127),
                (-128, -128),
                (127, 127),
                (-3, 6),
            ] {
                for acc in points.chunks(4) {
                    let acc: [i32; 4] = std::array::from_fn(|i| acc.get(i).copied().unwrap_or(0));
                    for (g, &x) in lanes(acc, scale, zp, min).iter().zip(&acc) {
                        assert!(*g >= min, "acc {x} scale {scale} zp {zp}");
                        assert_eq!(
                            narrow(*g, min, max),
                            requantize(x, scale, zp, min, max),
                            "acc {x} scale {scale} zp {zp} [{min}, {max}]"
                        );
                    }
                }
            }
        }
    }
}

/// The SIMD form against the scalar one on a seeded sample (natively the lane emulation; in
/// wasm the real `f32x4` intrinsics), including power-of-two scales, whose products tie.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn seeded_lanes_equal_scalar() {
    let mut rng = fastrand::Rng::with_seed(20);
    for i in 0..20_000 {
        let acc = [0; 4].map(|_| match rng.u8(0..4) {
            0 => rng.i32(..),
            _ => rng.i32(-5000..5000),
        });
        let scale = if i % 2 == 0 {
            2f32.powi(-rng.i32(0..=12))
        } else {
            rng.f32() * 2.0 + 2f32.powi(-32)
        };
        let zp = rng.i32(-128..=127);
        let (a, b) = (rng.i32(-128..=127), rng.i32(-128..=127));
        let (min, max) = (a.min(b), a.max(b));
        let got = lanes(acc, scale, zp, min);
        for (g, &x) in got.iter().zip(&acc) {
            assert_eq!(
                narrow(*g, min, max),
                requantize(x, scale, zp, min, max),
                "acc {x} scale {scale}"
            );
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The SIMD form (magic-bias rounding) equals the scalar definition for every
        /// accumulator, scale XNNPACK accepts, zero point and clamp.
        #[test]
        fn lanes_equal_scalar(
            acc in any::<[i32; 4]>(),
            scale in prop_oneof![2f32.powi(-32)..1.0f32, 1.0f32..256.0],
            zp in -128i32..=127,
            a in -128i32..=127,
            b in -128i32..=127,
        ) {
            let (min, max) = (a.min(b), a.max(b));
            let got = lanes(acc, scale, zp, min);
            for (g, &x) in got.iter().zip(&acc) {
                prop_assert!(*g >= min);
                prop_assert_eq!(narrow(*g, min, max), requantize(x, scale, zp, min, max));
            }
        }

        /// Small accumulators near ties: the rounding is to even in both forms.
        #[test]
        fn near_ties(x in -600i32..600, zp in -128i32..=127) {
            let got = narrow(lanes([x; 4], 0.5, zp, -128)[0], -128, 127);
            let want = (f64::from(x) / 2.0)
                .round_ties_even()
                .clamp(f64::from(-128 - zp), f64::from(127 - zp));
            prop_assert_eq!(got, want as i32 + zp);
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn leaky_relu_multipliers_have_eight_fraction_bits_and_round_half_up() {
    use super::unary::LeakyRelu;
    // s_in / s_out = 1, α = 0.25: multipliers −256 and −64.
    let p = LeakyRelu::new(1.0, 0, 1.0, 0, 0.25).expect("supported");
    assert_eq!((p.positive_multiplier, p.negative_multiplier), (-256, -64));
    // 3 → 3; −3 · 0.25 = −0.75 → −1; −2 · 0.25 = −0.5 → 0 (half up; LiteRT's reference gives −1).
    assert_eq!([p.apply(3), p.apply(-3), p.apply(-2)], [3, -1, 0]);
    // Zero points: x − zp_in = 4 → 4 + 10, clamped at 127 for large values.
    let p = LeakyRelu::new(1.0, -4, 1.0, 10, 0.25).expect("supported");
    assert_eq!([p.apply(0), p.apply(127)], [14, 127]);
    // XNNPACK refuses s_in / s_out above 2^7 or a negative-side scale below 2^-8.
    assert!(LeakyRelu::new(1000.0, 0, 1.0, 0, 0.25).is_none());
    assert!(LeakyRelu::new(1.0, 0, 1.0, 0, 0.001).is_none());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn round_keeps_the_sign_and_rounds_ties_to_even() {
    use super::unary::round;
    assert_eq!(round(-0.3).to_bits(), (-0.0f32).to_bits());
    assert_eq!(round(-0.5).to_bits(), (-0.0f32).to_bits());
    assert_eq!(
        [round(2.5), round(-2.5), round(1.5), round(0.7)],
        [2.0, -2.0, 2.0, 1.0]
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn elu_follows_expm1_and_saturates() {
    use super::unary::elu;
    // Within 2 ulp of the C library's expm1 on negative inputs (the polynomial is not
    // correctly rounded); identity from zero up, NaN through.
    for i in 1..=2000 {
        let x = -(i as f32) * 0.008;
        let (got, want) = (elu(x), x.exp_m1());
        assert!(
            (got - want).abs() <= 2.0 * f32::EPSILON * want.abs(),
            "{x}: {got} vs {want}"
        );
    }
    assert_eq!(elu(-100.0), elu(-17.5));
    // Subnormal inputs are flushed to a zero of their sign.
    assert_eq!(elu(-1e-40).to_bits(), (-0.0f32).to_bits());
    assert_eq!(elu(1e-40).to_bits(), 0);
    assert_eq!([elu(0.0), elu(3.25)], [0.0, 3.25]);
    assert!(elu(f32::NAN).is_nan());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn softmax_rounds_float_probabilities() {
    use super::unary::{Softmax, softmax};
    let p = Softmax::new(0.25, 1.0, 1.0 / 256.0, -128);
    // Equal inputs: 1/4 each → 64 − 128.
    let mut out = [0i8; 4];
    softmax(&p, 4, &[5, 5, 5, 5], &mut out);
    assert_eq!(out, [-64; 4]);
    // Input scale ln 2: e = 1 and 1/2 (d = 1), probabilities 2/3 and 1/3 of 256 = 170.7, 85.3.
    let p = Softmax::new(std::f32::consts::LN_2, 1.0, 1.0 / 256.0, -128);
    let mut out = [0i8; 2];
    softmax(&p, 2, &[7, 6], &mut out);
    assert_eq!(out, [43, -43]);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn resize_bilinear_weights_have_eleven_bits_and_round_half_up() {
    use super::resize::ResizeBilinear;
    use crate::reference::resize::ResizeParams;
    let p = |out_w, align_corners, half_pixel_centers| ResizeParams {
        batches: 1,
        in_h: 1,
        in_w: 2,
        channels: 1,
        out_h: 1,
        out_w,
        align_corners,
        half_pixel_centers,
    };
    // Half-pixel 2 → 4: x = clamp(o · 0.5 − 0.25, 0, 1) = 0, 0.25, 0.75, 1:
    // 101 · 0.25 = 25.25 → 25, 101 · 0.75 = 75.75 → 76.
    let mut out = [0i8; 4];
    resize::resize_bilinear(&ResizeBilinear::new(p(4, false, true)), &[0, 101], &mut out);
    assert_eq!(out, [0, 25, 76, 101]);
    // Aligned corners 2 → 3: x = 0, 0.5, 1; the midpoint of 0 and ±1 is a tie, rounded up.
    let mut out = [0i8; 3];
    resize::resize_bilinear(&ResizeBilinear::new(p(3, true, false)), &[0, 1], &mut out);
    assert_eq!(out, [0, 1, 1]);
    resize::resize_bilinear(&ResizeBilinear::new(p(3, true, false)), &[0, -1], &mut out);
    assert_eq!(out, [0, 0, -1]);
    // Legacy 2 → 4: x = 0, 0.5, 1, 1.5 (the right neighbour clamped to the last pixel).
    let mut out = [0i8; 4];
    resize::resize_bilinear(
        &ResizeBilinear::new(p(4, false, false)),
        &[10, 20],
        &mut out,
    );
    assert_eq!(out, [10, 15, 20, 20]);
    // No channel: no element to compute and no table to build (one of `usize::MAX / 16` rows
    // would not fit in memory).
    let empty = ResizeBilinear::new(ResizeParams {
        channels: 0,
        out_h: usize::MAX >> 4,
        ..p(4, false, false)
    });
    resize::resize_bilinear(&empty, &[], &mut []);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn log_softmax_rounds_float_log_probabilities_to_even() {
    use super::unary::{LogSoftmax, log_softmax};
    // Output scale 1/16, zero point 127. Equal inputs: ln(1/4) · 16 = −22.18 → −22 + 127.
    let p = LogSoftmax::new(0.5, 1.0 / 16.0, 127);
    let mut out = [0i8; 4];
    log_softmax(&p, 4, &[3, 3, 3, 3], &mut out);
    assert_eq!(out, [105; 4]);
    // Input scale ln 2: probabilities 2/3 and 1/3, ln · 16 = −6.49 → −6 and −17.58 → −18.
    let p = LogSoftmax::new(std::f32::consts::LN_2, 1.0 / 16.0, 127);
    let mut out = [0i8; 2];
    log_softmax(&p, 2, &[1, 0], &mut out);
    assert_eq!(out, [121, 109]);
}
