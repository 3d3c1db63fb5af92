//! [`V128`]'s integer arithmetic: wrapping adds and multiplies, dot products, widening and
//! saturating narrowing, lane-wise min/max and shifts.

// Each method ends in one `return` per target configuration, so on any one target the last
// statement is a `return` that clippy would call needless.
#![allow(clippy::needless_return)]

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use core::arch::wasm32 as w;

use super::V128;
#[cfg(target_arch = "x86_64")]
use super::lanes::sse2;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use super::lanes::*;

impl V128 {
    /// `i32x4.add` (wrapping).
    #[inline(always)]
    pub fn i32x4_add(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_add(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::add_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, i32::wrapping_add);
    }

    /// `i32x4.sub` (wrapping).
    #[inline(always)]
    pub fn i32x4_sub(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_sub(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::sub_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, i32::wrapping_sub);
    }

    /// `i32x4.mul` (wrapping).
    #[inline(always)]
    pub fn i32x4_mul(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_mul(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::mul_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, i32::wrapping_mul);
    }

    /// `i32x4.min_s`.
    #[inline(always)]
    pub fn i32x4_min(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_min(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::min_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, i32::min);
    }

    /// `i32x4.max_s`.
    #[inline(always)]
    pub fn i32x4_max(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_max(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::max_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, i32::max);
    }

    /// `i32x4.gt_s`: all ones where `self > b`.
    #[inline(always)]
    pub fn i32x4_gt(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_gt(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::gt_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, |x, y| -i32::from(x > y));
    }

    /// `i32x4.shl` by `n` (taken mod 32, as WebAssembly does).
    #[inline(always)]
    pub fn i32x4_shl(self, n: u32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shl(self.0, n));
        #[cfg(target_arch = "x86_64")]
        return sse2::shl_i32(self, n);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return v(i32s(self).map(|x| x.wrapping_shl(n)));
    }

    /// `i32x4.shr_s` by `n` (arithmetic, taken mod 32).
    #[inline(always)]
    pub fn i32x4_shr(self, n: u32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shr(self.0, n));
        #[cfg(target_arch = "x86_64")]
        return sse2::shr_i32(self, n);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return v(i32s(self).map(|x| x.wrapping_shr(n)));
    }

    /// `v128.and`.
    #[inline(always)]
    pub fn and(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::v128_and(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::and(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return map_i32(self, b, |x, y| x & y);
    }

    /// `v128.or`.
    #[inline(always)]
    pub fn or(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::v128_or(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, |x, y| x | y);
    }

    /// `v128.any_true`: whether any bit is set.
    #[inline(always)]
    pub fn any_true(self) -> bool {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return w::v128_any_true(self.0);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return i32s(self).iter().any(|&x| x != 0);
    }

    /// `v128.xor`.
    #[inline(always)]
    pub fn xor(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::v128_xor(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, |x, y| x ^ y);
    }

    /// `v128.bitselect`: bits of `self` where `mask` is 1, of `b` elsewhere.
    #[inline(always)]
    pub fn bitselect(self, b: Self, mask: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::v128_bitselect(self.0, b.0, mask.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::or(sse2::and(mask, self), sse2::and_not(mask, b));
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b, m) = (i32s(self), i32s(b), i32s(mask));
            return v([0, 1, 2, 3].map(|i| (a[i] & m[i]) | (b[i] & !m[i])));
        }
    }

    /// `i32x4.dot_i16x8_s`: lane `i` = `a[2i]·b[2i] + a[2i+1]·b[2i+1]` (wrapping).
    #[inline(always)]
    pub fn i32x4_dot_i16x8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_dot_i16x8(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::dot_i16(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i16s(self), i16s(b));
            return v([0, 1, 2, 3].map(|i| {
                (i32::from(a[2 * i]) * i32::from(b[2 * i]))
                    .wrapping_add(i32::from(a[2 * i + 1]) * i32::from(b[2 * i + 1]))
            }));
        }
    }

    /// `i32x4.relaxed_dot_i8x16_i7x16_add_s`: lane `i` = `c[i] + Σ_{j<4} a[4i+j] · b[4i+j]`
    /// with `a = self` signed. Exact on every engine when every byte of `b` is in `0..=127` (the
    /// int16 pair sums cannot saturate); beyond that only where the engine's behaviour was probed
    /// ([`super::super::dot_scheme`]): `b_unsigned` says how the caller relies on it reading `b`
    /// (unsigned: x86-64 AVX-VNNI; signed: arm64 `sdot`). The real instruction needs the
    /// `relaxed-simd` target feature and ignores the flag; elsewhere this is that arithmetic lane
    /// by lane, `b` read as the flag says.
    #[inline(always)]
    pub fn relaxed_dot_i8x16_i7x16_add(self, b: Self, c: Self, b_unsigned: bool) -> Self {
        #[cfg(all(
            target_arch = "wasm32",
            target_feature = "simd128",
            target_feature = "relaxed-simd"
        ))]
        return {
            let _ = b_unsigned;
            V128(w::i32x4_relaxed_dot_i8x16_i7x16_add(self.0, b.0, c.0))
        };
        #[cfg(not(all(
            target_arch = "wasm32",
            target_feature = "simd128",
            target_feature = "relaxed-simd"
        )))]
        return dot_bytes(self, b, c, b_unsigned);
    }

    /// `i32x4.extmul_low_i16x8_s`: lanes 0..4 multiplied to `i32`.
    #[inline(always)]
    pub fn i32x4_extmul_low_i16x8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_extmul_low_i16x8(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extmul_i16(self, b).0;
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i16s(self), i16s(b));
            return v([0, 1, 2, 3].map(|i| i32::from(a[i]) * i32::from(b[i])));
        }
    }

    /// `i32x4.extmul_high_i16x8_s`: lanes 4..8 multiplied to `i32`.
    #[inline(always)]
    pub fn i32x4_extmul_high_i16x8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_extmul_high_i16x8(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extmul_i16(self, b).1;
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i16s(self), i16s(b));
            return v([4, 5, 6, 7].map(|i| i32::from(a[i]) * i32::from(b[i])));
        }
    }

    /// `i16x8.add` (wrapping).
    #[inline(always)]
    pub fn i16x8_add(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i16x8_add(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (i16s(self), i16s(b));
            return v([0, 1, 2, 3, 4, 5, 6, 7].map(|i| a[i].wrapping_add(b[i])));
        }
    }

    /// `i16x8.extend_low_i8x16_s`.
    #[inline(always)]
    pub fn i16x8_extend_low_i8x16(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i16x8_extend_low_i8x16(self.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extend_lo_i8(self);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let a = i8s(self);
            return v([0, 1, 2, 3, 4, 5, 6, 7].map(|i| i16::from(a[i])));
        }
    }

    /// `i16x8.extend_high_i8x16_s`.
    #[inline(always)]
    pub fn i16x8_extend_high_i8x16(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i16x8_extend_high_i8x16(self.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extend_hi_i8(self);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let a = i8s(self);
            return v([8, 9, 10, 11, 12, 13, 14, 15].map(|i| i16::from(a[i])));
        }
    }

    /// `i32x4.extend_low_i16x8_s`.
    #[inline(always)]
    pub fn i32x4_extend_low_i16x8(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_extend_low_i16x8(self.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extend_lo_i16(self);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let a = i16s(self);
            return v([0, 1, 2, 3].map(|i| i32::from(a[i])));
        }
    }

    /// `i32x4.extend_high_i16x8_s`.
    #[inline(always)]
    pub fn i32x4_extend_high_i16x8(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_extend_high_i16x8(self.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extend_hi_i16(self);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let a = i16s(self);
            return v([4, 5, 6, 7].map(|i| i32::from(a[i])));
        }
    }

    /// `i16x8.narrow_i32x4_s`: `self`'s lanes then `b`'s, saturated to `i16`.
    #[inline(always)]
    pub fn i16x8_narrow_i32x4(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i16x8_narrow_i32x4(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::narrow_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i32s(self), i32s(b));
            let s = |x: i32| x.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            return v([
                s(a[0]),
                s(a[1]),
                s(a[2]),
                s(a[3]),
                s(b[0]),
                s(b[1]),
                s(b[2]),
                s(b[3]),
            ]);
        }
    }

    /// `i8x16.narrow_i16x8_s`: `self`'s lanes then `b`'s, saturated to `i8`.
    #[inline(always)]
    pub fn i8x16_narrow_i16x8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_narrow_i16x8(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::narrow_i16(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i16s(self), i16s(b));
            let s = |x: i16| x.clamp(i16::from(i8::MIN), i16::from(i8::MAX)) as i8;
            let mut out = [0i8; 16];
            for i in 0..8 {
                out[i] = s(a[i]);
                out[i + 8] = s(b[i]);
            }
            return v(out);
        }
    }

    /// `i8x16.min_s`.
    #[inline(always)]
    pub fn i8x16_min(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_min(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::min_i8(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i8s(self), i8s(b));
            let mut out = [0i8; 16];
            for i in 0..16 {
                out[i] = a[i].min(b[i]);
            }
            return v(out);
        }
    }

    /// `i8x16.max_s`.
    #[inline(always)]
    pub fn i8x16_max(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_max(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::max_i8(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i8s(self), i8s(b));
            let mut out = [0i8; 16];
            for i in 0..16 {
                out[i] = a[i].max(b[i]);
            }
            return v(out);
        }
    }

    /// `i64x2.extmul_low_i32x4_s`: lanes 0 and 1 multiplied to `i64`.
    #[inline(always)]
    pub fn i64x2_extmul_low_i32x4(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_extmul_low_i32x4(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extmul_i32::<0x50>(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i32s(self), i32s(b));
            return v([0, 1].map(|i| i64::from(a[i]) * i64::from(b[i])));
        }
    }

    /// `i64x2.extmul_high_i32x4_s`: lanes 2 and 3 multiplied to `i64`.
    #[inline(always)]
    pub fn i64x2_extmul_high_i32x4(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_extmul_high_i32x4(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::extmul_i32::<0xFA>(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i32s(self), i32s(b));
            return v([2, 3].map(|i| i64::from(a[i]) * i64::from(b[i])));
        }
    }

    /// `i64x2.add` (wrapping).
    #[inline(always)]
    pub fn i64x2_add(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_add(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::add_i64(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i64s(self), i64s(b));
            return v([a[0].wrapping_add(b[0]), a[1].wrapping_add(b[1])]);
        }
    }

    /// `i64x2.shl` by `n` (mod 64).
    #[inline(always)]
    pub fn i64x2_shl(self, n: u32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_shl(self.0, n));
        #[cfg(target_arch = "x86_64")]
        return sse2::shl_i64(self, n);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return v(i64s(self).map(|x| x.wrapping_shl(n)));
    }
}

/// The relaxed dot product lane by lane: lane `i` = `c[i] + Σ_{j<4} a[4i+j] · b[4i+j]`
/// (wrapping), `b`'s bytes read unsigned or signed.
#[cfg(not(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    target_feature = "relaxed-simd"
)))]
fn dot_bytes(a: V128, b: V128, c: V128, unsigned: bool) -> V128 {
    let (a, b, c) = (a.to_i8(), b.to_i8(), c.to_i32());
    let byte = |k: usize| {
        if unsigned {
            i32::from(b[k] as u8)
        } else {
            i32::from(b[k])
        }
    };
    let lane = |i: usize| {
        (0..4).fold(c[i], |s, j| {
            s.wrapping_add(i32::from(a[4 * i + j]) * byte(4 * i + j))
        })
    };
    V128::from_i32([lane(0), lane(1), lane(2), lane(3)])
}

#[cfg(test)]
mod tests {
    use super::V128;

    #[test]
    fn narrowing_saturates_and_dot_wraps() {
        let a = V128::from_i32([70_000, -70_000, 5, -5]);
        let n = a.i16x8_narrow_i32x4(a).i8x16_narrow_i16x8(V128::zero());
        assert_eq!(&n.to_i8()[..8], &[127, -128, 5, -5, 127, -128, 5, -5]);
        let x = V128::splat_i16(i16::MIN);
        // (−32768)² · 2 = 2^31 wraps to i32::MIN.
        assert_eq!(x.i32x4_dot_i16x8(x).to_i32(), [i32::MIN; 4]);
    }
}
