//! Every SIMD TF-exact kernel against its scalar specification, bit for bit.
//!
//! A case is a geometry plus a seed for the data (mostly in [−2, 2], with ±0, subnormals, huge
//! values and — sometimes — NaN and ±inf, so the padding taps' `0 · w` matter). Natively,
//! proptest draws the geometries; compiled to wasm32, the same checks run in Node under
//! `wasm-bindgen-test-runner` with SIMD128 on (the real intrinsics), over seeded random
//! geometries. Fixed cases cover every Eigen row kind (16-, 8-, 4-row panels, leftover rows),
//! columns outside the 4-column panels, and depths around the 8-wide packets.

use super::depthwise::DepthwiseTf;
use super::gebp::{Conv2dTf, FullyConnectedTf};
use crate::PackedKernel;
use crate::litert_optimized::contraction::Plan;
use crate::litert_optimized::{conv, fully_connected};
use crate::reference::ActivationRange;
use crate::reference::conv::ConvParams;
use crate::reference::fully_connected::FullyConnectedParams;

/// A convolution geometry and the seed of its data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Case {
    pub batches: usize,
    pub in_hw: (usize, usize),
    pub in_c: usize,
    pub out_c: usize,
    pub filter: (usize, usize),
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub pad: (usize, usize),
    pub out_hw: (usize, usize),
    pub seed: u64,
}

impl Case {
    fn params(&self, out_c: usize, act: ActivationRange) -> ConvParams {
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
            act,
        }
    }

    fn random(rng: &mut fastrand::Rng) -> Self {
        let filter = (rng.usize(1..=4), rng.usize(1..=4));
        let dilation = (rng.usize(1..=2), rng.usize(1..=2));
        Case {
            batches: rng.usize(1..=2),
            in_hw: (rng.usize(1..=9), rng.usize(1..=9)),
            in_c: rng.usize(1..=40),
            out_c: rng.usize(1..=40),
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

/// Float data: mostly in [−2, 2], sometimes a special value.
fn f32s(rng: &mut fastrand::Rng, n: usize, specials: bool) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.u8(0..60) {
            0 if specials => f32::NAN,
            1 if specials => f32::INFINITY,
            2 if specials => f32::NEG_INFINITY,
            3 => -0.0,
            4 => 0.0,
            5 => 1e-40,
            6 => 3e37,
            7 => -3e37,
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

/// Bit patterns (−0 differs from +0), every NaN as one pattern: the sign and payload of a NaN
/// produced by arithmetic are unspecified in Rust and WebAssembly.
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() })
        .collect()
}

/// CONV_2D: the SIMD kernel equals [`conv::conv2d`] (the filter constant or not at random: the
/// two summation plans).
pub(crate) fn check_conv(c: &Case) {
    check_conv_plan(c, None);
}

/// [`check_conv`] with the filter constant (Eigen's thread-pool plan) when `constant` says so;
/// returns the plan.
fn check_conv_plan(c: &Case, constant: Option<bool>) -> Plan {
    let mut rng = fastrand::Rng::with_seed(c.seed ^ 0xc0);
    let p = c.params(c.out_c, act(&mut rng));
    let specials = rng.u8(0..4) == 0;
    let input = f32s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c, specials);
    let depth = p.filter_h * p.filter_w * p.in_c;
    let filter = f32s(&mut rng, p.out_c * depth, specials);
    let bias = rng.bool().then(|| f32s(&mut rng, p.out_c, false));
    let n_out = p.batches * p.out_h * p.out_w * p.out_c;
    let mut want = vec![0f32; n_out];
    let mut column = vec![0f32; depth];
    // The plan of a constant filter: Eigen's thread-pool partition (k shards, blocks, GEMV).
    let random_constant = rng.bool();
    let plan = conv::conv2d_plan(
        &p,
        constant.unwrap_or(random_constant),
        &super::super::caches::CacheSizes::GOLDEN,
    );
    conv::conv2d(
        &p,
        &plan,
        &input,
        &filter,
        bias.as_deref(),
        &mut want,
        &mut column,
    );
    let (k, mut s) = Conv2dTf::new(&p, plan, &filter, bias.as_deref()).expect("conv prepares");
    let mut got = vec![0f32; n_out];
    k.run(&input, &mut got, &mut s);
    assert_eq!(bits(&got), bits(&want), "{c:?}");
    plan
}

/// DEPTHWISE_CONV_2D (multiplier 1): the SIMD kernel equals [`conv::depthwise_conv2d`].
pub(crate) fn check_depthwise(c: &Case) {
    let mut rng = fastrand::Rng::with_seed(c.seed ^ 0xd0);
    let p = c.params(c.in_c, act(&mut rng));
    let specials = rng.u8(0..4) == 0;
    let input = f32s(&mut rng, p.batches * p.in_h * p.in_w * p.in_c, specials);
    let filter = f32s(&mut rng, p.filter_h * p.filter_w * p.in_c, specials);
    let bias = rng.bool().then(|| f32s(&mut rng, p.in_c, false));
    let n_out = p.batches * p.out_h * p.out_w * p.in_c;
    let mut want = vec![0f32; n_out];
    conv::depthwise_conv2d(&p, 1, &input, &filter, bias.as_deref(), &mut want);
    let k = DepthwiseTf::new(&p, 1, &filter, bias.as_deref()).expect("depthwise prepares");
    let mut got = vec![0f32; n_out];
    k.run(&input, &mut got, &mut ());
    assert_eq!(bits(&got), bits(&want), "{c:?}");
}

/// FULLY_CONNECTED: the SIMD kernel equals [`fully_connected::fully_connected`].
pub(crate) fn check_fully_connected(batches: usize, depth: usize, units: usize, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let specials = rng.u8(0..4) == 0;
    let input = f32s(&mut rng, batches * depth, specials);
    let weights = f32s(&mut rng, units * depth, specials);
    let bias = rng.bool().then(|| f32s(&mut rng, units, false));
    let p = FullyConnectedParams {
        batches,
        accum_depth: depth,
        out_c: units,
        act: act(&mut rng),
    };
    // Either machine's caches (a long depth is blocked differently on each).
    let caches = if rng.bool() {
        super::super::caches::CacheSizes::GOLDEN
    } else {
        "32,1024,327680".parse().expect("sizes")
    };
    let plan = super::super::contraction::Plan::gemm(depth, units, batches, &caches);
    let mut want = vec![0f32; batches * units];
    fully_connected::fully_connected(&p, &plan, &input, &weights, bias.as_deref(), &mut want);
    let k = FullyConnectedTf::new(&p, &weights, bias.as_deref(), &caches).expect("FC prepares");
    let mut got = vec![0f32; batches * units];
    k.run(&input, &mut got, &mut ());
    assert_eq!(
        bits(&got),
        bits(&want),
        "batches {batches} depth {depth} units {units} seed {seed}"
    );
}

/// Output channel counts hitting every Eigen row kind and their boundaries.
const CHANNELS: [usize; 14] = [1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, 20, 27, 35];
/// Depths around the 8-wide packets and the 2-wide pairs.
const DEPTHS: [usize; 13] = [1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 65];

/// The partitions of Eigen's thread-pool contraction (the calibration goldens' shapes): k in 3
/// and 4 blocks, `kc` 320 over columns, the GEMV of one pixel; SIMD equals scalar on each.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn thread_pool_partitions_match_the_scalar_kernels() {
    let conv3 = |hw: usize, in_c: usize, out_c: usize, stride: usize, seed: u64| Case {
        batches: 1,
        in_hw: (hw, hw),
        in_c,
        out_c,
        filter: (3, 3),
        stride: (stride, stride),
        dilation: (1, 1),
        pad: (1, 1),
        out_hw: (hw.div_ceil(stride), hw.div_ceil(stride)),
        seed,
    };
    // (case, blocks, GEMV)
    let cases = [
        (conv3(17, 32, 24, 2, 1), 3, false),
        (conv3(6, 128, 40, 1, 2), 4, false),
        (conv3(8, 64, 70, 1, 3), 1, false),
        (conv3(1, 256, 12, 1, 4), 1, true),
        (
            Case {
                filter: (1, 1),
                pad: (0, 0),
                ..conv3(1, 200, 47, 1, 5)
            },
            1,
            true,
        ),
    ];
    for (c, blocks, gemv) in cases {
        let plan = check_conv_plan(&c, Some(true));
        assert_eq!((plan.blocks().len(), plan.gemv()), (blocks, gemv), "{c:?}");
    }
    // The k = 576 product is cut into gebp calls of 320 and 256.
    assert_eq!(
        check_conv_plan(&conv3(8, 64, 70, 1, 3), Some(true)).blocks()[0].kc,
        320
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn fixed_shapes_match_the_scalar_kernels() {
    let base = Case {
        batches: 1,
        in_hw: (3, 3),
        in_c: 8,
        out_c: 4,
        filter: (1, 1),
        stride: (1, 1),
        dilation: (1, 1),
        pad: (0, 0),
        out_hw: (3, 3),
        seed: 1,
    };
    for (i, &out_c) in CHANNELS.iter().enumerate() {
        for (j, &in_c) in DEPTHS.iter().enumerate() {
            let seed = (i * 100 + j) as u64;
            // 1×1 (depth = in_c; 9 pixels: two panels and one leftover column).
            check_conv(&Case {
                in_c,
                out_c,
                seed,
                ..base
            });
            // 3×3 with padding (depth = 9 · in_c; padding taps in the im2col columns).
            check_conv(&Case {
                in_c,
                out_c,
                filter: (3, 3),
                pad: (1, 1),
                in_hw: (4, 5),
                out_hw: (4, 5),
                seed: seed + 7,
                ..base
            });
            check_depthwise(&Case {
                in_c,
                filter: (3, 3),
                pad: (1, 1),
                stride: (2, 2),
                in_hw: (5, 5),
                out_hw: (3, 3),
                seed,
                ..base
            });
            for batches in [1, 2, 3, 4, 5, 9] {
                check_fully_connected(batches, in_c, out_c, seed * 10 + batches as u64);
            }
        }
    }
    // More taps than the depthwise kernel lists at once (64), with padding.
    check_depthwise(&Case {
        in_hw: (10, 11),
        in_c: 6,
        filter: (9, 8),
        pad: (4, 3),
        out_hw: (3, 4),
        seed: 72,
        ..base
    });
    // Deep reductions (MobileNet-like 1×1 layers and the classifier).
    for (depth, units) in [(192, 17), (320, 36), (1280, 6), (1001, 9)] {
        check_fully_connected(1, depth, units, depth as u64);
        check_fully_connected(6, depth, units, units as u64);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn seeded_random_shapes_match_the_scalar_kernels() {
    let mut rng = fastrand::Rng::with_seed(0x7f_ca11b);
    for _ in 0..200 {
        let c = Case::random(&mut rng);
        check_conv(&c);
        check_depthwise(&c);
        let (b, d, u) = (rng.usize(1..=9), rng.usize(1..=120), rng.usize(1..=40));
        check_fully_connected(b, d, u, rng.u64(..));
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn case() -> impl Strategy<Value = Case> {
        (
            (1usize..=2, 1usize..=8, 1usize..=8, 1usize..=70, 1usize..=40),
            (
                1usize..=3,
                1usize..=3,
                1usize..=3,
                1usize..=3,
                1usize..=2,
                1usize..=2,
            ),
            (0usize..=4, 0usize..=4, 1usize..=7, 1usize..=7, any::<u64>()),
        )
            .prop_map(
                |((b, h, w, ic, oc), (fh, fw, sh, sw, dh, dw), (pt, pl, oh, ow, seed))| Case {
                    batches: b,
                    in_hw: (h, w),
                    in_c: ic,
                    out_c: oc,
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
        fn conv2d_simd_equals_tf_exact_scalar(c in case()) {
            check_conv(&c);
        }

        #[test]
        fn depthwise_simd_equals_tf_exact_scalar(c in case()) {
            check_depthwise(&c);
        }

        #[test]
        fn fully_connected_simd_equals_tf_exact_scalar(
            b in 1usize..=12, d in 1usize..=300, u in 1usize..=40, seed in any::<u64>()
        ) {
            check_fully_connected(b, d, u, seed);
        }
    }
}
