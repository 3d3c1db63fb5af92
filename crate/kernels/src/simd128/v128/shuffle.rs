//! [`V128`]'s lane movement: shuffles, interleaves, the 4×4 byte transpose.

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
    /// The odd (high) `i32` halves of the `i64` lanes of `self` then `b`: `i32x4.shuffle 1 3 5 7`.
    #[inline(always)]
    pub fn odd_i32(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shuffle::<1, 3, 5, 7>(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::odd_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i32s(self), i32s(b));
            return v([a[1], a[3], b[1], b[3]]);
        }
    }

    /// `i32x4.shuffle L L L L`: lane `L` in every lane.
    #[inline(always)]
    pub fn splat_lane_i32<const L: usize>(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shuffle::<L, L, L, L>(self.0, self.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::splat_lane_i32::<L>(self);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return v([i32s(self)[L]; 4]);
    }

    /// `i32x4.shuffle 0 4 1 5`: the low halves interleaved.
    #[inline(always)]
    pub fn interleave_low_i32(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shuffle::<0, 4, 1, 5>(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::unpack_lo_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i32s(self), i32s(b));
            return v([a[0], b[0], a[1], b[1]]);
        }
    }

    /// `i32x4.shuffle 2 6 3 7`: the high halves interleaved.
    #[inline(always)]
    pub fn interleave_high_i32(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shuffle::<2, 6, 3, 7>(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::unpack_hi_i32(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i32s(self), i32s(b));
            return v([a[2], b[2], a[3], b[3]]);
        }
    }

    /// `i64x2.shuffle 0 2`: the low `i64` of `self` then the low `i64` of `b`.
    #[inline(always)]
    pub fn low_i64s(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_shuffle::<0, 2>(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::unpack_lo_i64(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return v([i64s(self)[0], i64s(b)[0]]);
    }

    /// `i64x2.shuffle 1 3`: the high `i64` of `self` then the high `i64` of `b`.
    #[inline(always)]
    pub fn high_i64s(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_shuffle::<1, 3>(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::unpack_hi_i64(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        return v([i64s(self)[1], i64s(b)[1]]);
    }

    /// The high eight bytes of `self` and `b` interleaved: `self[8], b[8], self[9], b[9], …`
    /// (`i8x16.shuffle 8 24 9 25 … 15 31`).
    #[inline(always)]
    pub fn interleave_high_i8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_shuffle::<
            8,
            24,
            9,
            25,
            10,
            26,
            11,
            27,
            12,
            28,
            13,
            29,
            14,
            30,
            15,
            31,
        >(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::unpack_hi_i8(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i8s(self), i8s(b));
            let mut out = [0i8; 16];
            for i in 0..8 {
                out[2 * i] = a[8 + i];
                out[2 * i + 1] = b[8 + i];
            }
            v(out)
        }
    }

    /// The low eight bytes of `self` and `b` interleaved: `self[0], b[0], self[1], b[1], …`
    /// (`i8x16.shuffle 0 16 1 17 … 7 23`).
    #[inline(always)]
    pub fn interleave_low_i8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_shuffle::<
            0,
            16,
            1,
            17,
            2,
            18,
            3,
            19,
            4,
            20,
            5,
            21,
            6,
            22,
            7,
            23,
        >(self.0, b.0));
        #[cfg(target_arch = "x86_64")]
        return sse2::unpack_lo_i8(self, b);
        #[cfg(not(any(
            all(target_arch = "wasm32", target_feature = "simd128"),
            target_arch = "x86_64"
        )))]
        {
            let (a, b) = (i8s(self), i8s(b));
            let mut out = [0i8; 16];
            for i in 0..8 {
                out[2 * i] = a[i];
                out[2 * i + 1] = b[i];
            }
            return v(out);
        }
    }

    /// A 4×4 transpose of bytes: byte `4i + j` of the result is byte `4j + i` of `self`
    /// (`i8x16.shuffle 0 4 8 12 1 5 9 13 2 6 10 14 3 7 11 15`).
    #[inline(always)]
    pub fn transpose_4x4_i8(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_shuffle::<
            0,
            4,
            8,
            12,
            1,
            5,
            9,
            13,
            2,
            6,
            10,
            14,
            3,
            7,
            11,
            15,
        >(self.0, self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let a = i8s(self);
            let mut out = [0i8; 16];
            for i in 0..4 {
                for j in 0..4 {
                    out[4 * i + j] = a[4 * j + i];
                }
            }
            return v(out);
        }
    }

    /// Each lane broadcast: `[splat(lane 0), …, splat(lane 3)]`.
    #[inline(always)]
    pub fn splat_lanes_i32(self) -> [V128; 4] {
        [
            self.splat_lane_i32::<0>(),
            self.splat_lane_i32::<1>(),
            self.splat_lane_i32::<2>(),
            self.splat_lane_i32::<3>(),
        ]
    }

    /// Four vectors as a 4×4 matrix of 32-bit groups, transposed: group `j` of output `i` is
    /// group `i` of input `j`.
    #[inline(always)]
    pub fn transpose_4x4_i32(r: [V128; 4]) -> [V128; 4] {
        let t0 = r[0].interleave_low_i32(r[1]);
        let t1 = r[2].interleave_low_i32(r[3]);
        let t2 = r[0].interleave_high_i32(r[1]);
        let t3 = r[2].interleave_high_i32(r[3]);
        [
            t0.low_i64s(t1),
            t0.high_i64s(t1),
            t2.low_i64s(t3),
            t2.high_i64s(t3),
        ]
    }

    /// `i32x4.shuffle 0 1 4 5`: the low two lanes of `self` then of `b`.
    #[inline(always)]
    pub fn low_i32_pairs(self, b: Self) -> Self {
        self.low_i64s(b)
    }
}

#[cfg(test)]
mod tests {
    use super::V128;

    #[test]
    fn shuffles_move_the_lanes_they_name() {
        let a = V128::from_i32([0, 1, 2, 3]);
        let b = V128::from_i32([4, 5, 6, 7]);
        assert_eq!(a.odd_i32(b).to_i32(), [1, 3, 5, 7]);
        assert_eq!(a.interleave_low_i32(b).to_i32(), [0, 4, 1, 5]);
        assert_eq!(a.interleave_high_i32(b).to_i32(), [2, 6, 3, 7]);
        assert_eq!(a.low_i64s(b).to_i32(), [0, 1, 4, 5]);
        assert_eq!(a.high_i64s(b).to_i32(), [2, 3, 6, 7]);
        assert_eq!(a.splat_lane_i32::<2>().to_i32(), [2; 4]);
        let bytes: [i8; 16] = core::array::from_fn(|i| i as i8);
        let t = V128::load_i8(&bytes).transpose_4x4_i8().to_i8();
        assert_eq!(t, [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]);
    }
}
