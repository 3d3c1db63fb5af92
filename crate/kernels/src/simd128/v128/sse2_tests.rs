//! The x86-64 SSE2 forms of [`V128`]'s operations against the lane-by-lane definitions they
//! replace there (WebAssembly's semantics, written out here), on random vectors with the
//! extremes mixed in, and every shift count.

use super::V128;

/// 16 random bytes, some lanes forced to the extremes of their width.
fn vector(rng: &mut fastrand::Rng) -> [i8; 16] {
    let mut b = [0i8; 16];
    for x in &mut b {
        *x = match rng.u8(0..8) {
            0 => i8::MIN,
            1 => i8::MAX,
            2 => -1,
            3 => 0,
            _ => rng.i8(..),
        };
    }
    b
}

fn i16s(b: [i8; 16]) -> [i16; 8] {
    bytemuck::cast(b)
}
fn i32s(b: [i8; 16]) -> [i32; 4] {
    bytemuck::cast(b)
}
fn i64s(b: [i8; 16]) -> [i64; 2] {
    bytemuck::cast(b)
}
fn bytes<T: bytemuck::Pod>(lanes: T) -> [i8; 16] {
    bytemuck::cast(lanes)
}

#[test]
fn sse2_forms_equal_the_lane_definitions() {
    let mut rng = fastrand::Rng::with_seed(20261127);
    for _ in 0..20_000 {
        let (a, b) = (vector(&mut rng), vector(&mut rng));
        let (va, vb) = (V128::load_i8(&a), V128::load_i8(&b));
        let (a16, b16, a32, b32, a64, b64) = (i16s(a), i16s(b), i32s(a), i32s(b), i64s(a), i64s(b));
        let got = |v: V128| v.to_i8();
        assert_eq!(
            got(va.i32x4_add(vb)),
            bytes([0, 1, 2, 3].map(|i| a32[i].wrapping_add(b32[i])))
        );
        assert_eq!(
            got(va.i32x4_sub(vb)),
            bytes([0, 1, 2, 3].map(|i| a32[i].wrapping_sub(b32[i])))
        );
        assert_eq!(
            got(va.i32x4_gt(vb)),
            bytes([0, 1, 2, 3].map(|i| -i32::from(a32[i] > b32[i])))
        );
        assert_eq!(
            got(va.i32x4_mul(vb)),
            bytes([0, 1, 2, 3].map(|i| a32[i].wrapping_mul(b32[i])))
        );
        assert_eq!(
            got(va.i32x4_min(vb)),
            bytes([0, 1, 2, 3].map(|i| a32[i].min(b32[i])))
        );
        assert_eq!(
            got(va.i32x4_max(vb)),
            bytes([0, 1, 2, 3].map(|i| a32[i].max(b32[i])))
        );
        assert_eq!(
            got(va.and(vb)),
            bytes([0, 1, 2, 3].map(|i| a32[i] & b32[i]))
        );
        let mask = vector(&mut rng);
        let m32 = i32s(mask);
        assert_eq!(
            got(va.bitselect(vb, V128::load_i8(&mask))),
            bytes([0, 1, 2, 3].map(|i| (a32[i] & m32[i]) | (b32[i] & !m32[i])))
        );
        assert_eq!(
            got(va.i32x4_extend_low_i16x8()),
            bytes([0, 1, 2, 3].map(|i| i32::from(a16[i])))
        );
        assert_eq!(
            got(va.i32x4_extend_high_i16x8()),
            bytes([4, 5, 6, 7].map(|i| i32::from(a16[i])))
        );
        assert_eq!(got(va.odd_i32(vb)), bytes([a32[1], a32[3], b32[1], b32[3]]));
        let dot = |i: usize| {
            (i32::from(a16[2 * i]) * i32::from(b16[2 * i]))
                .wrapping_add(i32::from(a16[2 * i + 1]) * i32::from(b16[2 * i + 1]))
        };
        assert_eq!(got(va.i32x4_dot_i16x8(vb)), bytes([0, 1, 2, 3].map(dot)));
        let mul16 = |i: usize| i32::from(a16[i]) * i32::from(b16[i]);
        assert_eq!(
            got(va.i32x4_extmul_low_i16x8(vb)),
            bytes([0, 1, 2, 3].map(mul16))
        );
        assert_eq!(
            got(va.i32x4_extmul_high_i16x8(vb)),
            bytes([4, 5, 6, 7].map(mul16))
        );
        let mul32 = |i: usize| i64::from(a32[i]) * i64::from(b32[i]);
        assert_eq!(got(va.i64x2_extmul_low_i32x4(vb)), bytes([0, 1].map(mul32)));
        assert_eq!(
            got(va.i64x2_extmul_high_i32x4(vb)),
            bytes([2, 3].map(mul32))
        );
        assert_eq!(
            got(va.i64x2_add(vb)),
            bytes([0, 1].map(|i| a64[i].wrapping_add(b64[i])))
        );
        assert_eq!(
            got(va.i16x8_extend_low_i8x16()),
            bytes([0, 1, 2, 3, 4, 5, 6, 7].map(|i| i16::from(a[i])))
        );
        assert_eq!(
            got(va.i16x8_extend_high_i8x16()),
            bytes([8, 9, 10, 11, 12, 13, 14, 15].map(|i| i16::from(a[i])))
        );
        let sat16 = |x: i32| x.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let n32: [i32; 8] = [
            a32[0], a32[1], a32[2], a32[3], b32[0], b32[1], b32[2], b32[3],
        ];
        assert_eq!(got(va.i16x8_narrow_i32x4(vb)), bytes(n32.map(sat16)));
        let sat8 = |x: i16| x.clamp(i16::from(i8::MIN), i16::from(i8::MAX)) as i8;
        let mut n16 = [0i16; 16];
        n16[..8].copy_from_slice(&a16);
        n16[8..].copy_from_slice(&b16);
        assert_eq!(got(va.i8x16_narrow_i16x8(vb)), n16.map(sat8));
        assert_eq!(
            got(va.i8x16_min(vb)),
            std::array::from_fn(|i| a[i].min(b[i]))
        );
        assert_eq!(
            got(va.i8x16_max(vb)),
            std::array::from_fn(|i| a[i].max(b[i]))
        );
        assert_eq!(
            got(va.interleave_low_i32(vb)),
            bytes([a32[0], b32[0], a32[1], b32[1]])
        );
        assert_eq!(
            got(va.interleave_high_i32(vb)),
            bytes([a32[2], b32[2], a32[3], b32[3]])
        );
        assert_eq!(got(va.low_i64s(vb)), bytes([a64[0], b64[0]]));
        assert_eq!(got(va.high_i64s(vb)), bytes([a64[1], b64[1]]));
        assert_eq!(
            got(va.interleave_low_i8(vb)),
            std::array::from_fn(|i| if i % 2 == 0 { a[i / 2] } else { b[i / 2] })
        );
        assert_eq!(
            got(va.interleave_high_i8(vb)),
            std::array::from_fn(|i| if i % 2 == 0 {
                a[8 + i / 2]
            } else {
                b[8 + i / 2]
            })
        );
        assert_eq!(got(va.splat_lane_i32::<0>()), bytes([a32[0]; 4]));
        assert_eq!(got(va.splat_lane_i32::<1>()), bytes([a32[1]; 4]));
        assert_eq!(got(va.splat_lane_i32::<2>()), bytes([a32[2]; 4]));
        assert_eq!(got(va.splat_lane_i32::<3>()), bytes([a32[3]; 4]));
        // Every count, including those past the width (taken mod the width).
        let n = rng.u32(0..200);
        assert_eq!(got(va.i32x4_shl(n)), bytes(a32.map(|x| x.wrapping_shl(n))));
        assert_eq!(got(va.i32x4_shr(n)), bytes(a32.map(|x| x.wrapping_shr(n))));
        assert_eq!(got(va.i64x2_shl(n)), bytes(a64.map(|x| x.wrapping_shl(n))));
    }
}
