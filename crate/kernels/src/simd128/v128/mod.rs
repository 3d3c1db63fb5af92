//! A 128-bit vector with the handful of WebAssembly SIMD128 operations the fast kernels use.
//!
//! On `wasm32` with `simd128` enabled, [`V128`] wraps `core::arch::wasm32::v128` and every
//! method is one intrinsic (so the kernels compile to the instructions their names say). On
//! every other target it is 16 bytes and each method is the same operation written lane by lane,
//! following the WebAssembly specification exactly (wrapping integer arithmetic, saturating
//! narrowing, the IEEE operations of the float lanes). The kernels above this layer — packing,
//! blocking, requantization sequences, tails — are the same code on both, so the native tests
//! exercise the logic that runs in the browser, and the wasm tests check the intrinsics.
//!
//! Loads and stores take fixed-size array references (`&[i16; 8]`, `&mut [i8; 4]`, …), so the
//! bounds are checked where the caller forms the reference (usually once, by `as_chunks`), and
//! the wasm side's only `unsafe` is turning such a reference into a pointer.
//!
//! This file holds the type, constructors, loads and stores; the operations are grouped by
//! family: integer arithmetic (`int`), lane movement (`shuffle`), float arithmetic (`float`).

// Each method ends in one `return` per target configuration, so on any one target the last
// statement is a `return` that clippy would call needless.
#![allow(clippy::needless_return)]

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use core::arch::wasm32 as w;

mod float;
mod int;
mod shuffle;
#[cfg(all(test, target_arch = "x86_64"))]
mod sse2_tests;

/// One 128-bit vector (see the module documentation).
#[derive(Clone, Copy)]
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub struct V128(w::v128);

/// One 128-bit vector (see the module documentation).
#[derive(Clone, Copy)]
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub struct V128([u8; 16]);

/// The portable lane-wise implementation (every target without SIMD128).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    use super::V128;

    #[inline(always)]
    pub fn i8s(v: V128) -> [i8; 16] {
        bytemuck::cast(v.0)
    }
    #[inline(always)]
    pub fn i16s(v: V128) -> [i16; 8] {
        bytemuck::cast(v.0)
    }
    #[inline(always)]
    pub fn i32s(v: V128) -> [i32; 4] {
        bytemuck::cast(v.0)
    }
    // x86-64 has SSE2 forms of every operation that reads `i64` lanes.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline(always)]
    pub fn i64s(v: V128) -> [i64; 2] {
        bytemuck::cast(v.0)
    }
    #[inline(always)]
    pub fn f32s(v: V128) -> [f32; 4] {
        bytemuck::cast(v.0)
    }
    #[inline(always)]
    pub fn f64s(v: V128) -> [f64; 2] {
        bytemuck::cast(v.0)
    }
    #[inline(always)]
    pub fn v<T: bytemuck::Pod>(lanes: T) -> V128 {
        V128(bytemuck::cast(lanes))
    }
    #[inline(always)]
    pub fn map_i32(a: V128, b: V128, f: impl Fn(i32, i32) -> i32) -> V128 {
        let (a, b) = (i32s(a), i32s(b));
        v([f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])])
    }
    /// x86-64: SSE2 (always present there) for the operations the native CLI's int8 GEMM spends
    /// its time in (`i32x4_dot_i16x8` is `pmaddwd`, the adds, `splat_lane_i32`, the
    /// interleaves), one instruction each with the lane-by-lane forms' results: the native CLI
    /// scores `--auto`'s candidates on these kernels. Other operations stay lane by lane.
    #[cfg(target_arch = "x86_64")]
    pub mod sse2 {
        use super::V128;
        use core::arch::x86_64::{self as x, __m128i};

        #[inline(always)]
        fn m(v: V128) -> __m128i {
            // SAFETY: 16 bytes to 16 bytes; every bit pattern is valid for both types.
            unsafe { core::mem::transmute::<[u8; 16], __m128i>(v.0) }
        }

        #[inline(always)]
        fn v(x: __m128i) -> V128 {
            // SAFETY: as in `m`.
            V128(unsafe { core::mem::transmute::<__m128i, [u8; 16]>(x) })
        }

        /// One SSE2 operation on two vectors.
        macro_rules! binary {
            ($(#[$doc:meta] $name:ident = $op:ident;)*) => {$(
                #[$doc]
                #[inline(always)]
                pub fn $name(a: V128, b: V128) -> V128 {
                    // SAFETY: SSE2 is part of the x86-64 baseline, enabled on every x86-64 target.
                    v(unsafe { x::$op(m(a), m(b)) })
                }
            )*};
        }
        binary! {
            /// `paddd`.
            add_i32 = _mm_add_epi32;
            /// `psubd`.
            sub_i32 = _mm_sub_epi32;
            /// `pmaddwd`: `i32x4.dot_i16x8_s`.
            dot_i16 = _mm_madd_epi16;
            /// `punpckldq`.
            unpack_lo_i32 = _mm_unpacklo_epi32;
            /// `punpckhdq`.
            unpack_hi_i32 = _mm_unpackhi_epi32;
            /// `punpcklqdq`.
            unpack_lo_i64 = _mm_unpacklo_epi64;
            /// `punpckhqdq`.
            unpack_hi_i64 = _mm_unpackhi_epi64;
            /// `punpcklbw`.
            unpack_lo_i8 = _mm_unpacklo_epi8;
            /// `punpckhbw`.
            unpack_hi_i8 = _mm_unpackhi_epi8;
            /// `pcmpgtd`: `i32x4.gt_s`.
            gt_i32 = _mm_cmpgt_epi32;
            /// `packssdw`: `i16x8.narrow_i32x4_s`.
            narrow_i32 = _mm_packs_epi32;
            /// `packsswb`: `i8x16.narrow_i16x8_s`.
            narrow_i16 = _mm_packs_epi16;
            /// `paddq`.
            add_i64 = _mm_add_epi64;
            /// `pcmpgtb`.
            gt_i8 = _mm_cmpgt_epi8;
            /// `pand`.
            and = _mm_and_si128;
            /// `pandn`: `!a & b`.
            and_not = _mm_andnot_si128;
            /// `por`.
            or = _mm_or_si128;
            /// `pmullw`.
            mul_lo_i16 = _mm_mullo_epi16;
            /// `pmulhw`.
            mul_hi_i16 = _mm_mulhi_epi16;
            /// `punpcklwd`.
            unpack_lo_i16 = _mm_unpacklo_epi16;
            /// `punpckhwd`.
            unpack_hi_i16 = _mm_unpackhi_epi16;
        }

        /// A shift by `n` taken mod `bits` (WebAssembly's rule; SSE2 would fill past the width).
        macro_rules! shift {
            ($(#[$doc:meta] $name:ident = $op:ident, $bits:literal;)*) => {$(
                #[$doc]
                #[inline(always)]
                pub fn $name(a: V128, n: u32) -> V128 {
                    let count = (n % $bits) as i32;
                    // SAFETY: as in `binary!`.
                    v(unsafe { x::$op(m(a), x::_mm_cvtsi32_si128(count)) })
                }
            )*};
        }
        shift! {
            /// `pslld`: `i32x4.shl`.
            shl_i32 = _mm_sll_epi32, 32;
            /// `psrad`: `i32x4.shr_s`.
            shr_i32 = _mm_sra_epi32, 32;
            /// `psllq`: `i64x2.shl`.
            shl_i64 = _mm_sll_epi64, 64;
        }

        /// `i32x4.mul` (wrapping; SSE2 has no 32-bit `pmulld`): the even and the odd lanes
        /// multiplied unsigned to 64 bits (the low 32 bits are the same for signed operands),
        /// their low halves put back in order.
        #[inline(always)]
        pub fn mul_i32(a: V128, b: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe {
                let (a, b) = (m(a), m(b));
                let even = x::_mm_mul_epu32(a, b);
                let odd = x::_mm_mul_epu32(x::_mm_srli_epi64::<32>(a), x::_mm_srli_epi64::<32>(b));
                x::_mm_unpacklo_epi32(
                    x::_mm_shuffle_epi32::<0b00_00_10_00>(even),
                    x::_mm_shuffle_epi32::<0b00_00_10_00>(odd),
                )
            })
        }

        /// `i32x4.min_s` (SSE2 has no `pminsd`: a compare and a select).
        #[inline(always)]
        pub fn min_i32(a: V128, b: V128) -> V128 {
            let a_gt = gt_i32(a, b);
            or(and(a_gt, b), and_not(a_gt, a))
        }

        /// `i32x4.max_s`.
        #[inline(always)]
        pub fn max_i32(a: V128, b: V128) -> V128 {
            let a_gt = gt_i32(a, b);
            or(and(a_gt, a), and_not(a_gt, b))
        }

        /// `i32x4.extend_low_i16x8_s`.
        #[inline(always)]
        pub fn extend_lo_i16(a: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe { x::_mm_srai_epi32::<16>(m(unpack_lo_i16(a, a))) })
        }

        /// `i32x4.extend_high_i16x8_s`.
        #[inline(always)]
        pub fn extend_hi_i16(a: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe { x::_mm_srai_epi32::<16>(m(unpack_hi_i16(a, a))) })
        }

        /// `i32x4.shuffle 1 3 5 7` (`shufps` on the bits).
        #[inline(always)]
        pub fn odd_i32(a: V128, b: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe {
                x::_mm_castps_si128(x::_mm_shuffle_ps::<0b11_01_11_01>(
                    x::_mm_castsi128_ps(m(a)),
                    x::_mm_castsi128_ps(m(b)),
                ))
            })
        }

        /// `i8x16.min_s` (SSE2 has no signed byte minimum: a compare and a select).
        #[inline(always)]
        pub fn min_i8(a: V128, b: V128) -> V128 {
            let a_gt = gt_i8(a, b);
            or(and(a_gt, b), and_not(a_gt, a))
        }

        /// `i8x16.max_s`.
        #[inline(always)]
        pub fn max_i8(a: V128, b: V128) -> V128 {
            let a_gt = gt_i8(a, b);
            or(and(a_gt, a), and_not(a_gt, b))
        }

        /// `i16x8.extend_low_i8x16_s`: each byte doubled into a 16-bit lane, shifted back
        /// arithmetically.
        #[inline(always)]
        pub fn extend_lo_i8(a: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe { x::_mm_srai_epi16::<8>(m(unpack_lo_i8(a, a))) })
        }

        /// `i16x8.extend_high_i8x16_s`.
        #[inline(always)]
        pub fn extend_hi_i8(a: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe { x::_mm_srai_epi16::<8>(m(unpack_hi_i8(a, a))) })
        }

        /// `i64x2.extmul_{low,high}_i32x4_s` (`LANES` = `pshufd` control putting the two lanes
        /// in lanes 0 and 2: 0x50 low, 0xFA high). SSE2 multiplies unsigned (`pmuludq`); the
        /// signed product is that minus `2^32 · (b if a < 0) + 2^32 · (a if b < 0)`, mod 2^64.
        #[inline(always)]
        pub fn extmul_i32<const LANES: i32>(a: V128, b: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe {
                let (a, b) = (
                    x::_mm_shuffle_epi32::<LANES>(m(a)),
                    x::_mm_shuffle_epi32::<LANES>(m(b)),
                );
                let unsigned = x::_mm_mul_epu32(a, b);
                let fix = x::_mm_add_epi32(
                    x::_mm_and_si128(x::_mm_srai_epi32::<31>(a), b),
                    x::_mm_and_si128(x::_mm_srai_epi32::<31>(b), a),
                );
                x::_mm_sub_epi64(unsigned, x::_mm_slli_epi64::<32>(fix))
            })
        }

        /// `i32x4.extmul_low_i16x8_s` and `i32x4.extmul_high_i16x8_s`: the low and high 16 bits
        /// of each product interleaved.
        #[inline(always)]
        pub fn extmul_i16(a: V128, b: V128) -> (V128, V128) {
            let (lo, hi) = (mul_lo_i16(a, b), mul_hi_i16(a, b));
            (unpack_lo_i16(lo, hi), unpack_hi_i16(lo, hi))
        }

        /// `pshufd` broadcasting lane `L`.
        #[inline(always)]
        pub fn splat_lane_i32<const L: usize>(a: V128) -> V128 {
            // SAFETY: as in `binary!`.
            v(unsafe {
                match L {
                    0 => x::_mm_shuffle_epi32::<0x00>(m(a)),
                    1 => x::_mm_shuffle_epi32::<0x55>(m(a)),
                    2 => x::_mm_shuffle_epi32::<0xAA>(m(a)),
                    _ => x::_mm_shuffle_epi32::<0xFF>(m(a)),
                }
            })
        }
    }

    #[inline(always)]
    pub fn map_f32(a: V128, b: V128, f: impl Fn(f32, f32) -> f32) -> V128 {
        let (a, b) = (f32s(a), f32s(b));
        v([f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])])
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use lanes::*;

impl V128 {
    // ---- constructors and loads -------------------------------------------------------------

    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_splat(0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return V128([0; 16]);
    }

    /// `i32x4.splat`.
    #[inline(always)]
    pub fn splat_i32(x: i32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_splat(x));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([x; 4]);
    }

    /// `i16x8.splat`.
    #[inline(always)]
    pub fn splat_i16(x: i16) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i16x8_splat(x));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([x; 8]);
    }

    /// `i8x16.splat`.
    #[inline(always)]
    pub fn splat_i8(x: i8) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i8x16_splat(x));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([x; 16]);
    }

    /// `i64x2.splat`.
    #[inline(always)]
    pub fn splat_i64(x: i64) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_splat(x));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([x; 2]);
    }

    /// `f32x4.splat`.
    #[inline(always)]
    pub fn splat_f32(x: f32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_splat(x));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([x; 4]);
    }

    /// `f64x2.splat`.
    #[inline(always)]
    pub fn splat_f64(x: f64) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_splat(x));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([x; 2]);
    }

    /// Four `i32` lanes.
    #[inline(always)]
    pub fn from_i32(a: [i32; 4]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4(a[0], a[1], a[2], a[3]));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(a);
    }

    /// `v128.load` of 16 bytes.
    #[inline(always)]
    pub fn load_i8(a: &[i8; 16]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 readable bytes; v128.load has no alignment requirement.
        return V128(unsafe { w::v128_load(a.as_ptr().cast()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(*a);
    }

    /// `v128.load` of eight `i16`.
    #[inline(always)]
    pub fn load_i16(a: &[i16; 8]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 readable bytes; v128.load has no alignment requirement.
        return V128(unsafe { w::v128_load(a.as_ptr().cast()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(*a);
    }

    /// `v128.load` of four `i32`.
    #[inline(always)]
    pub fn load_i32(a: &[i32; 4]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 readable bytes; v128.load has no alignment requirement.
        return V128(unsafe { w::v128_load(a.as_ptr().cast()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(*a);
    }

    /// `v128.load` of four `f32`.
    #[inline(always)]
    pub fn load_f32(a: &[f32; 4]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 readable bytes; v128.load has no alignment requirement.
        return V128(unsafe { w::v128_load(a.as_ptr().cast()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(*a);
    }

    /// `v128.load` of two `f64`.
    #[inline(always)]
    pub fn load_f64(a: &[f64; 2]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 readable bytes; v128.load has no alignment requirement.
        return V128(unsafe { w::v128_load(a.as_ptr().cast()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(*a);
    }

    /// `i16x8.load8x8_s`: eight `i8` sign-extended to `i16` lanes.
    #[inline(always)]
    pub fn load_extend_i8x8(a: &[i8; 8]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 8 readable bytes; the load has no alignment requirement.
        return V128(unsafe { w::i16x8_load_extend_i8x8(a.as_ptr()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(a.map(i16::from));
    }

    /// `v128.load64_zero`: eight bytes in the low half, zeros above.
    #[inline(always)]
    pub fn load64_zero_i8(a: &[i8; 8]) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 8 readable bytes; the load has no alignment requirement.
        return V128(unsafe { w::v128_load64_zero(a.as_ptr().cast()) });
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let mut b = [0i8; 16];
            b[..8].copy_from_slice(a);
            return v(b);
        }
    }

    // ---- stores ------------------------------------------------------------------------------

    /// `v128.store` of 16 bytes.
    #[inline(always)]
    pub fn store_i8(self, a: &mut [i8; 16]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 writable bytes; v128.store has no alignment requirement.
        unsafe {
            w::v128_store(a.as_mut_ptr().cast(), self.0)
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            *a = i8s(self);
        }
    }

    /// `v128.store` of eight `i16`.
    #[inline(always)]
    pub fn store_i16(self, a: &mut [i16; 8]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 writable bytes; v128.store has no alignment requirement.
        unsafe {
            w::v128_store(a.as_mut_ptr().cast(), self.0)
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            *a = i16s(self);
        }
    }

    /// `v128.store` of four `i32`.
    #[inline(always)]
    pub fn store_i32(self, a: &mut [i32; 4]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 writable bytes; v128.store has no alignment requirement.
        unsafe {
            w::v128_store(a.as_mut_ptr().cast(), self.0)
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            *a = i32s(self);
        }
    }

    /// `v128.store` of four `f32`.
    #[inline(always)]
    pub fn store_f32(self, a: &mut [f32; 4]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 16 writable bytes; v128.store has no alignment requirement.
        unsafe {
            w::v128_store(a.as_mut_ptr().cast(), self.0)
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            *a = f32s(self);
        }
    }

    /// `v128.store64_lane 0`: the low eight bytes.
    #[inline(always)]
    pub fn store_low_i8x8(self, a: &mut [i8; 8]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 8 writable bytes; the store has no alignment requirement.
        unsafe {
            w::v128_store64_lane::<0>(self.0, a.as_mut_ptr().cast())
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let b = i8s(self);
            a.copy_from_slice(&b[..8]);
        }
    }

    /// `v128.store32_lane L`: bytes `4L..4L + 4`.
    #[inline(always)]
    pub fn store_lane_i8x4<const L: usize>(self, a: &mut [i8; 4]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: `a` is 4 writable bytes; the store has no alignment requirement.
        unsafe {
            w::v128_store32_lane::<L>(self.0, a.as_mut_ptr().cast())
        };
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let b = i8s(self);
            a.copy_from_slice(&b[4 * L..4 * L + 4]);
        }
    }

    /// All sixteen lanes as `i8` (for tails).
    #[inline(always)]
    pub fn to_i8(self) -> [i8; 16] {
        let mut a = [0i8; 16];
        self.store_i8(&mut a);
        a
    }

    /// All four lanes as `i32` (for tails).
    #[inline(always)]
    pub fn to_i32(self) -> [i32; 4] {
        let mut a = [0i32; 4];
        self.store_i32(&mut a);
        a
    }

    /// All four lanes as `f32` (for tails).
    #[inline(always)]
    pub fn to_f32(self) -> [f32; 4] {
        let mut a = [0f32; 4];
        self.store_f32(&mut a);
        a
    }
}
