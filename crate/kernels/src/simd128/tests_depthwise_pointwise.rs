//! The sliding 3×3 depthwise path ([`super::depthwise_3x3`]) against the scalar reference
//! kernel, bit for bit, under both arithmetics (LiteRT's reference double rounding and
//! XNNPACK's `f32` requantization, each forced rather than drawn), over every channel count
//! modulo 16 (three times over), depth multipliers 1–3, strides 1 and 2 in each direction, VALID,
//! SAME and one-sided padding, odd image sizes, batches, extreme zero points and clamps; and
//! pointwise CONV_2D over every small depth (the packing of one-to-one 1×1 convolutions); and
//! the flat 1×1 depthwise map ([`super::depthwise_1x1`]) over channel counts that tile sixteen
//! lanes and some that do not, with tails, under both arithmetics.

use super::depthwise_int::DepthwiseInt8;
use super::tests::{ConvCase, bias, check_conv, check_depthwise, i8s, quant};
use crate::PackedKernel;
use crate::reference::ActivationRange;
use crate::reference::conv::ConvParams;
use crate::reference::conv_int::{self, RequantParams};
use crate::xnnpack::Fp32Requant;

/// One sliding-path case: the geometry, the depth multiplier, the arithmetic and the seed of
/// the data; `zp` forces the input and output zero points (`None`: random).
#[derive(Debug, Clone, Copy)]
struct Case {
    batches: usize,
    in_hw: (usize, usize),
    in_c: usize,
    mult: usize,
    stride: (usize, usize),
    /// Top and left padding (the bottom and right follow from the output size).
    pad: (usize, usize),
    xnnpack: bool,
    zp: Option<(i32, i32)>,
    seed: u64,
}

impl Case {
    /// The output size of this padding: as many outputs as fit in the padded image plus up
    /// to one more padding row / column at the bottom / right.
    fn params(&self) -> ConvParams {
        let out = |n: usize, pad: usize, s: usize| (n + 2 * pad).saturating_sub(3) / s + 1;
        ConvParams {
            batches: self.batches,
            in_h: self.in_hw.0,
            in_w: self.in_hw.1,
            in_c: self.in_c,
            out_h: out(self.in_hw.0, self.pad.0, self.stride.0),
            out_w: out(self.in_hw.1, self.pad.1, self.stride.1),
            out_c: self.in_c * self.mult,
            filter_h: 3,
            filter_w: 3,
            stride_h: self.stride.0,
            stride_w: self.stride.1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: self.pad.0,
            pad_left: self.pad.1,
            act: ActivationRange::NONE,
        }
    }
}

/// The case's requantization: random multipliers and clamp, the arithmetic and zero points
/// forced as the case says.
fn requant(c: &Case, rng: &mut fastrand::Rng, channels: usize) -> RequantParams {
    let mut q = quant(rng, channels);
    q.xnnpack = c.xnnpack.then(|| Fp32Requant {
        scales: q
            .real_multipliers
            .iter()
            .map(|&r| (r as f32).clamp(2f32.powi(-32), 255.0))
            .collect(),
    });
    if let Some((input_zp, output_zp)) = c.zp {
        q.input_offset = -input_zp;
        q.output_offset = output_zp;
    }
    q
}

/// The fast kernel takes the sliding path, and gives the reference's bits (twice over the same
/// scratch).
fn check(c: &Case) {
    let mut rng = fastrand::Rng::with_seed(c.seed);
    let p = c.params();
    let input = i8s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c);
    let filter = i8s(&mut rng, 9 * p.out_c);
    let bias = bias(&mut rng, p.out_c);
    let q = requant(c, &mut rng, p.out_c);
    let n_out = p.batches * p.out_h * p.out_w * p.out_c;
    let mut want = vec![0i8; n_out];
    conv_int::depthwise_conv2d::<i8, i32, i32>(
        &p,
        c.mult,
        &q,
        &input,
        &filter,
        bias.as_deref(),
        &mut want,
    );
    let Some((k, mut s)) = DepthwiseInt8::new(&p, c.mult, &q, &filter, bias.as_deref()) else {
        // The per-lane requantization takes right shifts up to 30; 31 keeps the reference.
        assert!(
            !c.xnnpack && q.shifts.iter().any(|&s| s <= -31),
            "refused: {c:?}"
        );
        return;
    };
    assert!(k.uses_sliding(), "{c:?}");
    let mut got = vec![0i8; n_out];
    k.run(&input, &mut got, &mut s);
    assert_eq!(got, want, "{c:?}");
    k.run(&input, &mut got, &mut s);
    assert_eq!(got, want, "{c:?} (second run)");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn sliding_3x3_sweep_matches_the_reference() {
    let mut seed = 0x51d3;
    let mut cases = 0;
    for in_c in 1..=48 {
        for stride in [(1, 1), (2, 2), (1, 2), (2, 1)] {
            for pad in [(0, 0), (1, 1), (0, 1), (1, 0)] {
                for xnnpack in [false, true] {
                    seed += 1;
                    let mult = if in_c <= 16 {
                        1 + (seed % 3) as usize
                    } else {
                        1
                    };
                    let zp = match seed % 4 {
                        0 => Some((-128, 127)),
                        1 => Some((127, -128)),
                        _ => None,
                    };
                    check(&Case {
                        batches: 1 + (seed % 2) as usize,
                        in_hw: (3 + (seed % 4) as usize, 4 + (seed % 5) as usize),
                        in_c,
                        mult,
                        stride,
                        pad,
                        xnnpack,
                        zp,
                        seed,
                    });
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 48 * 4 * 4 * 2);
}

/// Images narrower than the filter (padding supplies the taps) and a single output column.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn sliding_3x3_tiny_images_match_the_reference() {
    for (i, in_hw) in [(1, 1), (1, 2), (2, 1), (2, 2), (1, 7), (7, 1)]
        .into_iter()
        .enumerate()
    {
        for in_c in [1, 15, 16, 17, 33] {
            for xnnpack in [false, true] {
                check(&Case {
                    batches: 1,
                    in_hw,
                    in_c,
                    mult: 1,
                    stride: (1 + i % 2, 1 + (i / 2) % 2),
                    pad: (1, 1),
                    xnnpack,
                    zp: None,
                    seed: (i * 1000 + in_c * 2 + usize::from(xnnpack)) as u64,
                });
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn sliding_3x3_equals_reference(
            batches in 1usize..=3,
            in_hw in (1usize..=11, 1usize..=13),
            in_c in 1usize..=70,
            mult in 1usize..=3,
            stride in (1usize..=2, 1usize..=2),
            pad in (0usize..=2, 0usize..=2),
            xnnpack in any::<bool>(),
            zp in prop_oneof![
                Just(None),
                (-128i32..=127, -128i32..=127).prop_map(Some),
                Just(Some((-128, -128))),
                Just(Some((127, 127))),
            ],
            seed in any::<u64>(),
        ) {
            check(&Case { batches, in_hw, in_c, mult, stride, pad, xnnpack, zp, seed });
        }
    }
}

/// Pointwise CONV_2D (1×1, stride 1, no padding, same size: the packing reads pixel `i`'s
/// channels at `i · in_c`) for every depth K = 1..=96 and output channel counts around
/// multiples of 4 and 8, batches 1–2; [`check_conv`] draws the arithmetic (one case in three
/// XNNPACK's) and both packings (int16 pairs, int8 quads).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn pointwise_conv_every_small_depth_matches_the_reference() {
    for in_c in 1..=96 {
        for (i, out_c) in [1, 4, 7, 8, 9, 16, 17].into_iter().enumerate() {
            let hw = (1 + (in_c + i) % 5, 2 + (in_c * 3 + i) % 7);
            check_conv(&ConvCase {
                batches: 1 + (in_c + i) % 2,
                in_hw: hw,
                in_c,
                out_c_or_mult: out_c,
                filter: (1, 1),
                stride: (1, 1),
                dilation: (1, 1),
                pad: (0, 0),
                out_hw: hw,
                seed: (in_c * 100 + i) as u64,
            });
        }
    }
}

/// A 1×1 stride-1 DEPTHWISE_CONV_2D (depth multiplier 1) with `c` channels.
fn flat_case(c: usize, rng: &mut fastrand::Rng) -> ConvCase {
    let hw = (rng.usize(1..=9), rng.usize(1..=9));
    ConvCase {
        batches: rng.usize(1..=2),
        in_hw: hw,
        in_c: c,
        out_c_or_mult: 1,
        filter: (1, 1),
        stride: (1, 1),
        dilation: (1, 1),
        pad: (0, 0),
        out_hw: hw,
        seed: rng.u64(..),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn flat_1x1_depthwise_matches_the_reference() {
    let mut rng = fastrand::Rng::with_seed(0x1a1);
    for c in [1, 2, 4, 8, 16, 32, 48, 3, 12, 24] {
        for _ in 0..24 {
            let case = flat_case(c, &mut rng);
            check_depthwise(&case);
            // The flat path is the one that ran, where the channels tile sixteen lanes.
            let p = case.params(c);
            let q = quant(&mut rng, c);
            if let Some((k, _)) = DepthwiseInt8::new(&p, 1, &q, &i8s(&mut rng, c), None) {
                let tiles = 16usize.is_multiple_of(c) || c.is_multiple_of(16);
                assert_eq!(k.uses_flat(), tiles, "{c} channels");
            }
        }
    }
}
