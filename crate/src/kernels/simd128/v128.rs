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
// Each method ends in one `return` per target configuration, so on any one target the last
// statement is a `return` that clippy would call needless.
#![allow(clippy::needless_return)]

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use core::arch::wasm32 as w;

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

    // ---- integer arithmetic -----------------------------------------------------------------

    /// `i32x4.add` (wrapping).
    #[inline(always)]
    pub fn i32x4_add(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_add(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, i32::wrapping_add);
    }

    /// `i32x4.sub` (wrapping).
    #[inline(always)]
    pub fn i32x4_sub(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_sub(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, i32::wrapping_sub);
    }

    /// `i32x4.mul` (wrapping).
    #[inline(always)]
    pub fn i32x4_mul(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_mul(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, i32::wrapping_mul);
    }

    /// `i32x4.min_s`.
    #[inline(always)]
    pub fn i32x4_min(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_min(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, i32::min);
    }

    /// `i32x4.max_s`.
    #[inline(always)]
    pub fn i32x4_max(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_max(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, i32::max);
    }

    /// `i32x4.gt_s`: all ones where `self > b`.
    #[inline(always)]
    pub fn i32x4_gt(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_gt(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, |x, y| -i32::from(x > y));
    }

    /// `i32x4.shl` by `n` (taken mod 32, as WebAssembly does).
    #[inline(always)]
    pub fn i32x4_shl(self, n: u32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shl(self.0, n));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(i32s(self).map(|x| x.wrapping_shl(n)));
    }

    /// `i32x4.shr_s` by `n` (arithmetic, taken mod 32).
    #[inline(always)]
    pub fn i32x4_shr(self, n: u32) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shr(self.0, n));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(i32s(self).map(|x| x.wrapping_shr(n)));
    }

    /// `v128.and`.
    #[inline(always)]
    pub fn and(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::v128_and(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_i32(self, b, |x, y| x & y);
    }

    /// `v128.bitselect`: bits of `self` where `mask` is 1, of `b` elsewhere.
    #[inline(always)]
    pub fn bitselect(self, b: Self, mask: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::v128_bitselect(self.0, b.0, mask.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (i16s(self), i16s(b));
            return v([0, 1, 2, 3].map(|i| {
                (i32::from(a[2 * i]) * i32::from(b[2 * i]))
                    .wrapping_add(i32::from(a[2 * i + 1]) * i32::from(b[2 * i + 1]))
            }));
        }
    }

    /// `i32x4.relaxed_dot_i8x16_i7x16_add_s`: lane `i` = `c[i] + Σ_{j<4} a[4i+j] · b[4i+j]`
    /// with `a = self` signed and every byte of `b` in `0..=127` (then the instruction is exact on
    /// every engine: the int16 pair sums cannot saturate). Callers guarantee the range of `b`.
    /// The real instruction needs the `relaxed-simd` target feature; elsewhere this is the same
    /// arithmetic lane by lane.
    #[inline(always)]
    pub fn relaxed_dot_i8x16_i7x16_add(self, b: Self, c: Self) -> Self {
        #[cfg(all(
            target_arch = "wasm32",
            target_feature = "simd128",
            target_feature = "relaxed-simd"
        ))]
        return V128(w::i32x4_relaxed_dot_i8x16_i7x16_add(self.0, b.0, c.0));
        #[cfg(not(all(
            target_arch = "wasm32",
            target_feature = "simd128",
            target_feature = "relaxed-simd"
        )))]
        {
            let (a, b, c) = (self.to_i8(), b.to_i8(), c.to_i32());
            let lane = |i: usize| {
                (0..4).fold(c[i], |s, j| {
                    s.wrapping_add(i32::from(a[4 * i + j]) * i32::from(b[4 * i + j]))
                })
            };
            return V128::from_i32([lane(0), lane(1), lane(2), lane(3)]);
        }
    }

    /// `i32x4.extmul_low_i16x8_s`: lanes 0..4 multiplied to `i32`.
    #[inline(always)]
    pub fn i32x4_extmul_low_i16x8(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_extmul_low_i16x8(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(i64s(self).map(|x| x.wrapping_shl(n)));
    }

    /// The odd (high) `i32` halves of the `i64` lanes of `self` then `b`: `i32x4.shuffle 1 3 5 7`.
    #[inline(always)]
    pub fn odd_i32(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shuffle::<1, 3, 5, 7>(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([i32s(self)[L]; 4]);
    }

    /// `i32x4.shuffle 0 4 1 5`: the low halves interleaved.
    #[inline(always)]
    pub fn interleave_low_i32(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_shuffle::<0, 4, 1, 5>(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v([i64s(self)[0], i64s(b)[0]]);
    }

    /// `i64x2.shuffle 1 3`: the high `i64` of `self` then the high `i64` of `b`.
    #[inline(always)]
    pub fn high_i64s(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i64x2_shuffle::<1, 3>(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
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

    // ---- float ------------------------------------------------------------------------------

    /// `f32x4.add`.
    #[inline(always)]
    pub fn f32x4_add(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_add(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_f32(self, b, |x, y| x + y);
    }

    /// `f32x4.mul`.
    #[inline(always)]
    pub fn f32x4_mul(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_mul(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_f32(self, b, |x, y| x * y);
    }

    /// `f32x4.sub`.
    #[inline(always)]
    pub fn f32x4_sub(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_sub(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_f32(self, b, |x, y| x - y);
    }

    /// `f32x4.abs`.
    #[inline(always)]
    pub fn f32x4_abs(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_abs(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f32s(self).map(f32::abs));
    }

    /// `f32x4.div`.
    #[inline(always)]
    pub fn f32x4_div(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_div(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_f32(self, b, |x, y| x / y);
    }

    /// `f32x4.trunc`.
    #[inline(always)]
    pub fn f32x4_trunc(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_trunc(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f32s(self).map(f32::trunc));
    }

    /// `i32x4.trunc_sat_f32x4_s`: truncation to `i32` with saturation, NaN → 0 (Rust's
    /// `as i32`).
    #[inline(always)]
    pub fn i32x4_trunc_sat_f32x4(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_trunc_sat_f32x4(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f32s(self).map(|x| x as i32));
    }

    /// `f32x4.demote_f64x2_zero`: the two `f64` lanes rounded to `f32` (as `as f32`) in lanes 0
    /// and 1, lanes 2 and 3 zero.
    #[inline(always)]
    pub fn f32x4_demote_f64x2_zero(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_demote_f64x2_zero(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let a = f64s(self);
            return v([a[0] as f32, a[1] as f32, 0.0, 0.0]);
        }
    }

    /// `f64x2.div`.
    #[inline(always)]
    pub fn f64x2_div(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_div(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f64s(self), f64s(b));
            return v([a[0] / b[0], a[1] / b[1]]);
        }
    }

    /// `f32x4.lt`: all ones where `self < b` (false for NaN).
    #[inline(always)]
    pub fn f32x4_lt(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_lt(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f32s(self), f32s(b));
            return v([0, 1, 2, 3].map(|i| -i32::from(a[i] < b[i])));
        }
    }

    /// `f64x2.convert_low_i32x4_s`: lanes 0 and 1 as `f64`.
    #[inline(always)]
    pub fn f64x2_convert_low_i32x4(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_convert_low_i32x4(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let a = i32s(self);
            return v([f64::from(a[0]), f64::from(a[1])]);
        }
    }

    /// `f64x2.mul`.
    #[inline(always)]
    pub fn f64x2_mul(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_mul(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f64s(self), f64s(b));
            return v([a[0] * b[0], a[1] * b[1]]);
        }
    }

    /// `f64x2.add`.
    #[inline(always)]
    pub fn f64x2_add(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_add(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f64s(self), f64s(b));
            return v([a[0] + b[0], a[1] + b[1]]);
        }
    }

    /// `f64x2.sub`.
    #[inline(always)]
    pub fn f64x2_sub(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_sub(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f64s(self), f64s(b));
            return v([a[0] - b[0], a[1] - b[1]]);
        }
    }

    /// `f64x2.trunc`.
    #[inline(always)]
    pub fn f64x2_trunc(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_trunc(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f64s(self).map(f64::trunc));
    }

    /// `f64x2.abs`.
    #[inline(always)]
    pub fn f64x2_abs(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_abs(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f64s(self).map(f64::abs));
    }

    /// `f64x2.ge`: all ones where `self >= b`.
    #[inline(always)]
    pub fn f64x2_ge(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_ge(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f64s(self), f64s(b));
            return v([-i64::from(a[0] >= b[0]), -i64::from(a[1] >= b[1])]);
        }
    }

    /// `f64x2.lt`: all ones where `self < b`.
    #[inline(always)]
    pub fn f64x2_lt(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_lt(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f64s(self), f64s(b));
            return v([-i64::from(a[0] < b[0]), -i64::from(a[1] < b[1])]);
        }
    }

    /// `i32x4.trunc_sat_f64x2_s_zero`: the two `f64` lanes truncated to `i32` with saturation
    /// (NaN → 0), in lanes 0 and 1; lanes 2 and 3 zero. The same as Rust's `as i32`.
    #[inline(always)]
    pub fn i32x4_trunc_sat_f64x2_zero(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::i32x4_trunc_sat_f64x2_zero(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let a = f64s(self);
            return v([a[0] as i32, a[1] as i32, 0, 0]);
        }
    }

    /// `i32x4.shuffle 0 1 4 5`: the low two lanes of `self` then of `b`.
    #[inline(always)]
    pub fn low_i32_pairs(self, b: Self) -> Self {
        self.low_i64s(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_saturates_and_dot_wraps() {
        let a = V128::from_i32([70_000, -70_000, 5, -5]);
        let n = a.i16x8_narrow_i32x4(a).i8x16_narrow_i16x8(V128::zero());
        assert_eq!(&n.to_i8()[..8], &[127, -128, 5, -5, 127, -128, 5, -5]);
        let x = V128::splat_i16(i16::MIN);
        // (−32768)² · 2 = 2^31 wraps to i32::MIN.
        assert_eq!(x.i32x4_dot_i16x8(x).to_i32(), [i32::MIN; 4]);
    }

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
