//! The broadcasting int8 binary kernels (reference and XNNPACK arithmetic) and the int8 MEAN
//! group sums against their scalar definitions, bit for bit.
//!
//! As in `tests.rs`: a case is a shape pair (or a reduction) plus a seed for the data and the
//! quantization parameters. Natively proptest draws the cases; compiled to wasm32 the same
//! checks run in Node with SIMD128 on over cases from a seeded generator, so the intrinsics
//! themselves are compared with the scalar definitions.

use super::elementwise_int::{AddSubInt8, BinaryRuns, MaxMinInt8, MulInt8};
use super::elementwise_xnn::{AddXnn, MulXnn};
use super::reduce_int::GroupSums;
use super::tests::{add_sub_params, mul_params};
use crate::fixedpoint::quantize_multiplier;
use crate::reference::elementwise::{self, Broadcast};
use crate::reference::reduce::{self, QuantizedReduce, ReduceParams};
use crate::xnnpack::binary::{self as xnn, AddParams, MulParams};
use crate::xnnpack::reduce::{self as xnn_reduce, MeanParams};

/// `n` int8 values: uniform, or (one case in four) mostly the extremes −128 / 127.
fn data(rng: &mut fastrand::Rng, n: usize) -> Vec<i8> {
    let extreme = rng.u8(0..4) == 0;
    (0..n)
        .map(|_| match (extreme, rng.u8(0..4)) {
            (true, 0) => rng.i8(..),
            (true, 1 | 2) => -128,
            (true, _) => 127,
            _ => rng.i8(..),
        })
        .collect()
}

/// A clamp within int8: the full range, or a random (possibly one-value) sub-range.
fn clamp(rng: &mut fastrand::Rng) -> (i32, i32) {
    if rng.bool() {
        (-128, 127)
    } else {
        let lo = rng.i32(-128..=127);
        (lo, rng.i32(lo..=127))
    }
}

/// Random shapes that broadcast: an output shape of rank 0 to 4 (inner dims up to 40, so runs
/// of more and fewer than 16 elements), each operand taking each dim or 1, sometimes with
/// fewer leading dims.
fn shapes(rng: &mut fastrand::Rng) -> (Vec<usize>, Vec<usize>) {
    let rank = rng.usize(0..=4);
    let dims: Vec<usize> = (0..rank)
        .map(|i| {
            if i + 1 == rank {
                rng.usize(1..=40)
            } else {
                rng.usize(1..=5)
            }
        })
        .collect();
    let pattern = rng.u8(0..4);
    let operand = |rng: &mut fastrand::Rng| -> Vec<usize> {
        let mut s: Vec<usize> = dims
            .iter()
            .map(|&d| match pattern {
                // Same shapes.
                0 => d,
                _ if rng.bool() => d,
                _ => 1,
            })
            .collect();
        if rng.u8(0..4) == 0 {
            let drop = rng.usize(0..=s.len());
            s.drain(..drop);
        }
        s
    };
    (operand(rng), operand(rng))
}

/// Every fast int8 binary kernel over the broadcast of shapes `sa` and `sb` against the scalar
/// kernel it replaces.
pub(crate) fn check_binary(sa: &[usize], sb: &[usize], seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let shape = Broadcast::new(sa, sb).expect("shapes broadcast");
    let runs = BinaryRuns::new(sa, sb).expect("shapes broadcast");
    let n: usize = shape.dims().iter().product();
    let a = data(&mut rng, sa.iter().product());
    let b = data(&mut rng, sb.iter().product());
    let (mut want, mut got) = (vec![0i8; n], vec![0i8; n]);
    let what = format!("{sa:?} {sb:?} seed {seed}");

    // XNNPACK ADD / SUB: scales with ratios across the delegate's range [2^-10, 2^8).
    let (act_min, act_max) = clamp(&mut rng);
    let params = loop {
        let out_scale = 10f32.powf(rng.f32() * 4.0 - 3.0);
        let ratio = |rng: &mut fastrand::Rng| out_scale * 2f32.powf(rng.f32() * 18.0 - 10.0);
        let (sa_, sb_) = (ratio(&mut rng), ratio(&mut rng));
        let zp = |rng: &mut fastrand::Rng| rng.i32(-128..=127);
        let (za, zb, zo) = (zp(&mut rng), zp(&mut rng), zp(&mut rng));
        let sub = rng.bool();
        if let Some(p) = AddParams::new(
            (sa_, za),
            (sb_, zb),
            (out_scale, zo),
            sub,
            (act_min, act_max),
        ) {
            break p;
        }
    };
    xnn::binary(&params, &shape, &a, &b, &mut want);
    AddXnn::new(&params)
        .expect("int8 clamp")
        .run(&runs, &a, &b, &mut got);
    assert_eq!(got, want, "XNNPACK ADD/SUB {params:?} {what}");

    // XNNPACK MUL: scale in [2^-16, 2^8).
    let mul = MulParams {
        a_zero_point: rng.i32(-128..=127),
        b_zero_point: rng.i32(-128..=127),
        scale: 2f32.powf(rng.f32() * 23.9 - 16.0),
        zero_point: rng.i32(-128..=127),
        min: act_min,
        max: act_max,
    };
    assert!(xnn::mul_scale_supported(mul.scale));
    xnn::binary(&mul, &shape, &a, &b, &mut want);
    MulXnn::new(&mul)
        .expect("int8 parameters")
        .run(&runs, &a, &b, &mut got);
    assert_eq!(got, want, "XNNPACK MUL {mul:?} {what}");

    // Reference ADD / SUB / MUL / MAXIMUM / MINIMUM.
    let below_one =
        |rng: &mut fastrand::Rng| quantize_multiplier(10f64.powf(-rng.f64() * 6.0) * 0.999);
    let ((m1, s1), (m2, s2), (mo, so)) = (
        below_one(&mut rng),
        below_one(&mut rng),
        below_one(&mut rng),
    );
    let add = add_sub_params(&mut rng, [(m1, s1), (m2, s2), (mo, so)], (act_min, act_max));
    elementwise::quantized_add_sub(&add, &shape, &a, &b, &mut want);
    AddSubInt8::new(&add)
        .expect("fast ADD prepares")
        .run_broadcast(&runs, &a, &b, &mut got);
    assert_eq!(got, want, "ADD/SUB {what}");
    let qmul = mul_params(&mut rng, (act_min, act_max));
    elementwise::quantized_mul(&qmul, &shape, &a, &b, &mut want);
    MulInt8::new(&qmul)
        .expect("fast MUL prepares")
        .run_broadcast(&runs, &a, &b, &mut got);
    assert_eq!(got, want, "MUL {what}");
    for maximum in [true, false] {
        elementwise::quantized_max_min(maximum, &shape, &a, &b, &mut want);
        MaxMinInt8(maximum).run_broadcast(&runs, &a, &b, &mut got);
        assert_eq!(got, want, "MAX/MIN {what}");
    }
}

/// A random reduction: dims of rank 1 to 4 (the last up to 40, one dim sometimes above 256 so
/// the sums leave `i16`), and a random set of axes.
fn reduction(rng: &mut fastrand::Rng) -> (Vec<usize>, Vec<usize>) {
    let rank = rng.usize(1..=4);
    let mut dims: Vec<usize> = (0..rank).map(|_| rng.usize(1..=7)).collect();
    dims[rank - 1] = rng.usize(1..=40);
    if rng.u8(0..4) == 0 {
        let i = rng.usize(0..rank);
        dims[i] = rng.usize(250..=600);
        if i + 1 != rank {
            dims[rank - 1] = rng.usize(1..=20);
        }
    }
    let axes = (0..rank).filter(|_| rng.bool()).collect();
    (dims, axes)
}

/// int8 MEAN over `axes` of `dims`: the fast group sums, requantized as each arithmetic does,
/// against the scalar kernels (`None` from `GroupSums::new` is checked to be a geometry it
/// declines: reduced dims not one contiguous block).
pub(crate) fn check_mean(dims: &[usize], axes: &[usize], seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let p = ReduceParams::new(dims, axes).expect("valid axes");
    let Some(mut fast) = GroupSums::new(dims, axes) else {
        let reduced: Vec<bool> = (0..dims.len())
            .filter(|&i| dims[i] != 1)
            .map(|i| axes.contains(&i))
            .collect();
        let blocks = (0..reduced.len())
            .filter(|&i| reduced[i] && (i == 0 || !reduced[i - 1]))
            .count();
        assert!(blocks >= 2, "GroupSums declined {dims:?} {axes:?}");
        return;
    };
    let input = data(&mut rng, dims.iter().product());
    let sums = fast.sums(&input).to_vec();
    let mut want_sums = vec![0i32; sums.len()];
    p.fold_groups(
        &input,
        0i32,
        |acc, x| acc.wrapping_add(x.into()),
        |o, s| want_sums[o] = s,
    );
    assert_eq!(sums, want_sums, "sums {dims:?} {axes:?} seed {seed}");

    let n = p.count();
    let zp = |rng: &mut fastrand::Rng| rng.i32(-128..=127);
    let q = MeanParams::new(
        (10f32.powf(rng.f32() * 2.0 - 1.0), zp(&mut rng)),
        (10f32.powf(rng.f32() * 2.0 - 1.0), zp(&mut rng)),
        n,
    );
    let mut want = vec![0i8; sums.len()];
    xnn_reduce::mean(&p, &q, &input, &mut want);
    let got: Vec<i8> = sums.iter().map(|&s| q.apply(s)).collect();
    assert_eq!(got, want, "XNNPACK MEAN {dims:?} {axes:?} seed {seed}");

    let (m, shift) = quantize_multiplier(10f64.powf(rng.f64() * 2.0 - 1.0));
    let r = QuantizedReduce::new(zp(&mut rng), m, shift, zp(&mut rng), n, true);
    reduce::quantized_mean_or_sum(&p, &r, &input, &mut want);
    let count = i64::try_from(n).expect("small count");
    let got: Vec<i8> = sums
        .iter()
        .map(|&s| r.requantize(s, count).clamp(-128, 127) as i8)
        .collect();
    assert_eq!(got, want, "MEAN {dims:?} {axes:?} seed {seed}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_benchmarked_geometries_match_the_scalar_kernels() {
    // MobileNetV2's residual ADDs (same shapes), a channel-wise ADD / MUL ([1,H,W,C] with
    // [1,1,1,C] or [C]), a per-pixel scale ([1,H,W,1]), scalars either side.
    let c = 1280;
    for (i, (sa, sb)) in [
        (vec![1, 7, 7, 160], vec![1, 7, 7, 160]),
        (vec![1, 5, 6, 35], vec![1, 1, 1, 35]),
        (vec![1, 5, 6, 35], vec![35]),
        (vec![1, 1, 1, 35], vec![1, 5, 6, 35]),
        (vec![1, 5, 6, 35], vec![1, 5, 6, 1]),
        (vec![1, 5, 6, 35], vec![]),
        (vec![1], vec![1, 5, 6, 33]),
        (vec![3, 1, 17], vec![1, 4, 1]),
    ]
    .into_iter()
    .enumerate()
    {
        check_binary(&sa, &sb, 0xe1e0 + i as u64);
    }
    // Global average pool, every value −128 and every value 127 among random data; long
    // contiguous groups (more than 256 · 16 elements, so the i16 sums are flushed).
    for seed in 0..8 {
        check_mean(&[1, 7, 7, c], &[1, 2], seed);
        check_mean(&[2, 5000], &[1], seed);
        check_mean(&[1, 300, 2, 17], &[1, 2], seed);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_runs_split_at_the_innermost_broadcast() {
    let runs = |a: &[usize], b: &[usize]| BinaryRuns::new(a, b).expect("broadcast").run_len();
    assert_eq!(runs(&[1, 4, 4, 8], &[1, 4, 4, 8]), 128);
    assert_eq!(runs(&[1, 4, 4, 8], &[1, 1, 1, 8]), 8);
    assert_eq!(runs(&[1, 4, 4, 8], &[1, 4, 4, 1]), 8);
    assert_eq!(runs(&[1, 4, 4, 8], &[]), 128);
    assert_eq!(runs(&[3, 1], &[1, 5]), 5);
    assert!(BinaryRuns::new(&[3, 2], &[3, 4]).is_none());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn seeded_random_cases_match_the_scalar_kernels() {
    let mut rng = fastrand::Rng::with_seed(0xe1e);
    for _ in 0..300 {
        let (sa, sb) = shapes(&mut rng);
        check_binary(&sa, &sb, rng.u64(..));
        let (dims, axes) = reduction(&mut rng);
        check_mean(&dims, &axes, rng.u64(..));
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn broadcast_int8_binary_fast_equals_scalar(shape_seed in any::<u64>(), seed in any::<u64>()) {
            let (sa, sb) = shapes(&mut fastrand::Rng::with_seed(shape_seed));
            check_binary(&sa, &sb, seed);
        }

        #[test]
        fn int8_mean_fast_sums_equal_scalar(shape_seed in any::<u64>(), seed in any::<u64>()) {
            let (dims, axes) = reduction(&mut fastrand::Rng::with_seed(shape_seed));
            check_mean(&dims, &axes, seed);
        }
    }
}
