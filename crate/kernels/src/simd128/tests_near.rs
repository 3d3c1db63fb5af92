//! The certified `f32` form of int8 ADD / SUB ([`super::near`]) against the scalar reference on
//! every one of the 65,536 input pairs, for parameters derived from scales and zero points the
//! way the ops layer derives them (LiteRT's `add.cc` / `sub.cc`).
//!
//! Scale triples are drawn at random, one case in three with power-of-two ratios between the
//! scales: there the ideal value of many pairs is exactly a half-integer, the rounding ties the
//! form must hand to the exact arithmetic. Natively 48 cases run, in wasm (Node, SIMD128) 12.
//!
//! The one-input form of the depthwise convolution ([`NearLanes`], one channel's constants in
//! every lane) is checked on accumulators next to
//! every rounding boundary of the int8 range (and on the i32 extremes): every lane it does
//! not flag must equal the reference after narrowing and the clamp.

use super::elementwise_int::AddSubInt8;
use super::near::NearLanes;
use super::requant::{ChannelRequant, Fp32Clamp};
use super::v128::V128;
use crate::fixedpoint::{multiply_by_quantized_multiplier, quantize_multiplier};
use crate::reference::elementwise::QuantAddSub;

/// ADD / SUB parameters for input scales `sa`, `sb` and output scale `so` (`f32`, as stored in
/// a model), zero points and clamp: `add.cc`'s `twice_max_input_scale` recipe, left shift 20.
fn params(
    sub: bool,
    [sa, sb, so]: [f32; 3],
    [za, zb, zo]: [i32; 3],
    (act_min, act_max): (i32, i32),
) -> QuantAddSub {
    let twice_max = 2.0 * f64::from(sa.max(sb));
    let (m1, s1) = quantize_multiplier(f64::from(sa) / twice_max);
    let (m2, s2) = quantize_multiplier(f64::from(sb) / twice_max);
    let (mo, so) = quantize_multiplier(twice_max / (f64::from(1u32 << 20) * f64::from(so)));
    QuantAddSub {
        sub,
        left_shift: 20,
        input1_offset: -za,
        input1_multiplier: m1,
        input1_shift: s1,
        input2_offset: -zb,
        input2_multiplier: m2,
        input2_shift: s2,
        output_offset: zo,
        output_multiplier: mo,
        output_shift: so,
        act_min,
        act_max,
    }
}

/// One random case: scales within a factor 8 of each other (one case in three exactly a power
/// of two apart), zero points anywhere in int8 (edges included), full or fused-ReLU-like clamps.
fn case(rng: &mut fastrand::Rng) -> QuantAddSub {
    let base = 10f32.powf(-4.0 * rng.f32());
    let ratio = |rng: &mut fastrand::Rng| {
        if rng.u8(0..3) == 0 {
            2f32.powi(rng.i32(-3..=3))
        } else {
            2f32.powf(6.0 * rng.f32() - 3.0)
        }
    };
    let scales = [base, base * ratio(rng), base * ratio(rng)];
    let zp = |rng: &mut fastrand::Rng| match rng.u8(0..4) {
        0 => -128,
        1 => 127,
        _ => rng.i32(-128..=127),
    };
    let zps = [zp(rng), zp(rng), zp(rng)];
    let act = match rng.u8(0..3) {
        0 => (zps[2], 127),
        1 => (rng.i32(-128..=0), rng.i32(0..=127)),
        _ => (-128, 127),
    };
    params(rng.bool(), scales, zps, act)
}

/// Every input pair through the fast kernel and the reference, for `cases` random cases.
fn check(seed: u64, cases: usize) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let a: Vec<i8> = (0..65536).map(|i| (i >> 8) as u8 as i8).collect();
    let b: Vec<i8> = (0..65536).map(|i| i as u8 as i8).collect();
    let mut got = vec![0i8; a.len()];
    for _ in 0..cases {
        let p = case(&mut rng);
        let k = AddSubInt8::new(&p).expect("LiteRT's ADD / SUB parameters prepare");
        assert!(
            k.uses_f32_form(),
            "scales within a factor 64 take the f32 form: {p:?}"
        );
        k.run(&a, &b, &mut got);
        for (i, &g) in got.iter().enumerate() {
            let want = p.apply(i32::from(a[i]), i32::from(b[i]));
            assert_eq!(i32::from(g), want, "inputs ({}, {}) of {p:?}", a[i], b[i]);
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_f32_form_of_add_sub_equals_the_reference_on_every_input_pair() {
    let cases = if cfg!(target_arch = "wasm32") { 12 } else { 48 };
    check(0x5eed_0add, cases);
}

/// The bound refuses the form where it cannot certify it: an output scale 2^14 times below
/// the inputs' (each output step a few raw units: `E` above the margin); for the depthwise
/// form, a zero point outside int8 or a right shift below 4.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_f32_form_is_refused_where_its_margin_is_too_wide() {
    let p = params(false, [1.0, 1.0, 2f32.powi(-14)], [0, 0, 0], (-128, 127));
    let k = AddSubInt8::new(&p).expect("prepares");
    assert!(!k.uses_f32_form());
    let p = params(false, [1.0, 1.0, 1.0], [0, 0, 0], (-128, 127));
    assert!(AddSubInt8::new(&p).expect("prepares").uses_f32_form());
    // The depthwise form: an output zero point outside int8, and a right shift below 4.
    let c = ChannelRequant::new(1 << 30, -8).expect("a positive multiplier");
    assert!(NearLanes::new([c; 4], 0).is_some());
    assert!(NearLanes::new([c; 4], 200).is_none());
    let c = ChannelRequant::new(1 << 30, -3).expect("a positive multiplier");
    assert!(NearLanes::new([c; 4], 0).is_none());
}

/// [`NearLanes`] against `MultiplyByQuantizedMultiplier`, the zero point and the clamp, on
/// accumulators at and next to each half-integer boundary of outputs −400..400.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_f32_form_of_a_channel_equals_the_reference_where_it_is_not_flagged() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_c0de);
    let (mut lanes, mut flagged, mut refused) = (0usize, 0usize, 0usize);
    for _ in 0..if cfg!(target_arch = "wasm32") {
        40
    } else {
        200
    } {
        let (m, shift) = quantize_multiplier(10f64.powf(-5.0 * rng.f64()) * 0.999);
        let c = ChannelRequant::new(m, shift).expect("a positive multiplier");
        let zp = rng.i32(-128..=127);
        let Some(n) = NearLanes::new([c; 4], zp) else {
            refused += 1;
            assert!(
                shift > -4,
                "right shifts of 4 and more take the form: {m} {shift}"
            );
            continue;
        };
        let act = if rng.bool() { (-128, 127) } else { (zp, 127) };
        let clamp = Fp32Clamp::new(act.0, zp);
        let ratio = f64::from(m) * 2f64.powi(shift - 31);
        let mut accs = vec![i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX];
        for k in -400..=400 {
            let at = ((f64::from(k) + 0.5) / ratio).round();
            for d in -2..=2 {
                accs.push(
                    (at + f64::from(d)).clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32,
                );
            }
        }
        accs.extend((0..64).map(|_| rng.i32(..)));
        for quad in accs.chunks(4) {
            let mut a = [0i32; 4];
            a[..quad.len()].copy_from_slice(quad);
            let (r, near) = n.apply(V128::load_i32(&a), clamp);
            let (r, near) = (r.to_i32(), near.to_i32());
            for i in 0..quad.len() {
                lanes += 1;
                if near[i] != 0 {
                    flagged += 1;
                    continue;
                }
                let want = multiply_by_quantized_multiplier(a[i], m, shift)
                    .wrapping_add(zp)
                    .clamp(act.0, act.1);
                let got = r[i].clamp(-128, 127).clamp(act.0, act.1);
                assert_eq!(got, want, "acc {} with ({m}, {shift}), zp {zp}", a[i]);
            }
        }
    }
    // One multiplier in four is above 2^−4 (right shift below 4).
    assert!(refused < 80, "{refused} channels refused");
    // Half the accumulators sit at a boundary: those are flagged, the others are not.
    assert!(
        flagged < lanes * 2 / 5,
        "{flagged} of {lanes} lanes flagged"
    );
}
