//! The byte-table kernels ([`super::lut_int`]) against the reference kernels they tabulate, bit
//! for bit: RELU-family, LEAKY_RELU (reference and XNNPACK arithmetic) and HARD_SWISH on int8 and
//! uint8 with parameters made as the ops' prepare makes them from random scales and zero points,
//! and PRELU over per-channel, full-shape, scalar and general broadcasts of alpha. Natively,
//! proptest draws the cases; compiled to wasm32 (SIMD128, and relaxed SIMD with its flags), the
//! same checks run under `wasm-bindgen-test-runner` over cases from a seeded generator.

use super::lut_int::{ByteTable, PreluTable};
use crate::PackedKernel;
use crate::fixedpoint::quantize_multiplier;
use crate::reference::activations::{
    self as act, QuantHardSwish, QuantLeakyRelu, QuantReluX, down_scale_int32_to_int16_multiplier,
};
use crate::reference::elementwise::{Broadcast, QuantPrelu, quantized_prelu};
use crate::reference::quantize::QuantInt;
use crate::xnnpack::unary as xnnpack;

/// A scale from 2^-12 to 2^4, log-uniform.
fn scale(rng: &mut fastrand::Rng) -> f32 {
    2f32.powf(rng.f32() * 16.0 - 12.0)
}

fn zero_point<T: QuantInt>(rng: &mut fastrand::Rng) -> i32 {
    rng.i32(T::MIN..=T::MAX)
}

/// Random bytes of `n` elements of `T`, with every byte value present when `n ≥ 256`.
fn data<T: QuantInt>(rng: &mut fastrand::Rng, n: usize) -> Vec<T> {
    let bytes: Vec<u8> = (0..n)
        .map(|i| {
            if n >= 256 && i < 256 {
                i as u8
            } else {
                rng.u8(..)
            }
        })
        .collect();
    bytemuck::cast_slice(&bytes).to_vec()
}

/// The table's output equals the reference kernel's on `n` inputs covering every byte.
fn check_unary<T: QuantInt + std::fmt::Debug + PartialEq>(
    n: usize,
    seed: u64,
    reference: impl Fn(&[T], &mut [T]),
) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let input = data::<T>(&mut rng, n);
    let mut want = vec![T::default(); n];
    reference(&input, &mut want);
    let table = ByteTable::new::<T>(&reference);
    let mut got = vec![0u8; n];
    table.run(bytemuck::cast_slice(&input), &mut got, &mut ());
    assert_eq!(
        bytemuck::cast_slice::<u8, T>(&got),
        &want[..],
        "seed {seed}"
    );
}

/// RELU-family, LEAKY_RELU and HARD_SWISH parameters from random scales, as
/// `ops::activations::prepare_int_unary` makes them; each op checked on `T`.
fn check_unary_ops<T: QuantInt + std::fmt::Debug + PartialEq>(seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (si, so) = (scale(&mut rng), scale(&mut rng));
    let (zi, zo) = (zero_point::<T>(&mut rng), zero_point::<T>(&mut rng));
    let (m, shift) = quantize_multiplier(f64::from(si / so));
    let (lo, hi) = (rng.i32(T::MIN..=T::MAX), rng.i32(T::MIN..=T::MAX));
    let relu = QuantReluX {
        input_zero_point: zi,
        output_zero_point: zo,
        multiplier: m,
        shift,
        act_min: lo.min(hi),
        act_max: lo.max(hi),
    };
    check_unary::<T>(300, seed, |x, y| act::quantized_relu_x(&relu, x, y));
    let alpha = rng.f32() * 2.0 - 0.5;
    let (multiplier_alpha, shift_alpha) = quantize_multiplier(f64::from(si * alpha / so));
    let leaky = QuantLeakyRelu {
        input_zero_point: zi,
        output_zero_point: zo,
        multiplier_identity: m,
        shift_identity: shift,
        multiplier_alpha,
        shift_alpha,
    };
    check_unary::<T>(300, seed, |x, y| act::quantized_leaky_relu(&leaky, x, y));
    let hires = si / 128.0;
    let (m_out, e_out) = quantize_multiplier(f64::from(hires / so));
    let (m_relu, e_relu) = quantize_multiplier(f64::from(hires / (3.0 / 32768.0)));
    if e_out <= 0 {
        let hs = QuantHardSwish {
            input_zero_point: zi,
            output_zero_point: zo,
            output_multiplier_fixedpoint_int16: down_scale_int32_to_int16_multiplier(m_out),
            output_multiplier_exponent: e_out,
            reluish_multiplier_fixedpoint_int16: down_scale_int32_to_int16_multiplier(m_relu),
            reluish_multiplier_exponent: e_relu,
        };
        check_unary::<T>(300, seed, |x, y| act::quantized_hard_swish(&hs, x, y));
    }
}

/// XNNPACK's int8 LEAKY_RELU (`ops::activations` tabulates it under the XNNPACK arithmetic).
fn check_xnnpack_leaky_relu(seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (si, so) = (scale(&mut rng), scale(&mut rng));
    let (zi, zo) = (zero_point::<i8>(&mut rng), zero_point::<i8>(&mut rng));
    let alpha = rng.f32() * 2.0 - 0.5;
    if let Some(p) = xnnpack::LeakyRelu::new(si, zi, so, zo, alpha) {
        check_unary::<i8>(300, seed, |x, y| xnnpack::leaky_relu(&p, x, y));
    }
}

/// PRELU of input shape `input` and alpha shape `alpha` on `T`, random parameters.
fn check_prelu<T: QuantInt + std::fmt::Debug + PartialEq>(
    input: &[usize],
    alpha: &[usize],
    seed: u64,
) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (si, sa, so) = (scale(&mut rng), scale(&mut rng), scale(&mut rng));
    let (multiplier_1, shift_1) = quantize_multiplier(f64::from(si / so));
    let (multiplier_2, shift_2) = quantize_multiplier(f64::from(si * sa / so));
    let params = QuantPrelu {
        input_offset: -zero_point::<T>(&mut rng),
        alpha_offset: -zero_point::<T>(&mut rng),
        output_offset: zero_point::<T>(&mut rng),
        multiplier_1,
        shift_1,
        multiplier_2,
        shift_2,
    };
    let shape = Broadcast::new(input, alpha).expect("shapes broadcast");
    let n_out: usize = shape.dims().iter().product();
    let x = data::<T>(&mut rng, input.iter().product());
    let a = data::<T>(&mut rng, alpha.iter().product());
    let mut want = vec![T::default(); n_out];
    quantized_prelu(&params, &shape, &x, &a, &mut want);
    let table = PreluTable::new::<T>(&params, shape, input, alpha);
    let mut got = vec![0u8; n_out];
    table.run(bytemuck::cast_slice(&x), bytemuck::cast_slice(&a), &mut got);
    assert_eq!(
        bytemuck::cast_slice::<u8, T>(&got),
        &want[..],
        "{input:?} / {alpha:?}, seed {seed}"
    );
}

/// Input and alpha shapes: per-channel alpha of an NHWC input (`[C]`, `[1, 1, C]`), an alpha
/// of the input's shape, a scalar alpha, and broadcasts the table walks ([H, 1, C]; an input
/// smaller than alpha).
fn prelu_shapes(h: usize, w: usize, c: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    vec![
        (vec![1, h, w, c], vec![c]),
        (vec![1, h, w, c], vec![1, 1, c]),
        (vec![1, h, w, c], vec![1, h, w, c]),
        (vec![1, h, w, c], vec![1]),
        (vec![1, h, w, c], vec![h, 1, c]),
        (vec![1, 1, c], vec![1, h, w, c]),
    ]
}

fn check_all(h: usize, w: usize, c: usize, seed: u64) {
    check_unary_ops::<i8>(seed);
    check_unary_ops::<u8>(seed);
    check_xnnpack_leaky_relu(seed);
    for (k, (input, alpha)) in prelu_shapes(h, w, c).into_iter().enumerate() {
        check_prelu::<i8>(&input, &alpha, seed.wrapping_add(k as u64));
        check_prelu::<u8>(&input, &alpha, seed.wrapping_add(k as u64));
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn seeded_tables_match_the_reference() {
    let mut rng = fastrand::Rng::with_seed(0x7ab1e);
    for _ in 0..40 {
        let (h, w, c) = (rng.usize(1..=5), rng.usize(1..=5), rng.usize(1..=40));
        check_all(h, w, c, rng.u64(..));
    }
}

/// An empty input, and LiteRT's extreme multipliers' neighbourhood: tiny and large scales.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn empty_and_single_element_tensors_match_the_reference() {
    check_prelu::<i8>(&[1, 0, 3], &[3], 1);
    check_prelu::<u8>(&[1], &[1], 2);
    check_unary::<i8>(0, 3, |x, y| {
        act::quantized_relu_x(
            &QuantReluX {
                input_zero_point: 0,
                output_zero_point: 0,
                multiplier: 1 << 30,
                shift: 1,
                act_min: -128,
                act_max: 127,
            },
            x,
            y,
        )
    });
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn tables_match_the_reference(h in 1usize..=6, w in 1usize..=6, c in 1usize..=48, seed in any::<u64>()) {
            check_all(h, w, c, seed);
        }
    }
}
