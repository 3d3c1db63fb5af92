//! [`V128`]'s float arithmetic: `f32x4` and `f64x2` operations and conversions to and from
//! integer lanes.

// Each method ends in one `return` per target configuration, so on any one target the last
// statement is a `return` that clippy would call needless.
#![allow(clippy::needless_return)]

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use core::arch::wasm32 as w;

use super::V128;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use super::lanes::*;

impl V128 {
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

    /// `f32x4.convert_i32x4_s`: each lane as `f32`, rounded to nearest even (Rust's `as f32`).
    #[inline(always)]
    pub fn f32x4_convert_i32x4(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_convert_i32x4(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(i32s(self).map(|x| x as f32));
    }

    /// `f32x4.pmin`: `b < a ? b : a` lane-wise (no NaN handling beyond that comparison).
    #[inline(always)]
    pub fn f32x4_pmin(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_pmin(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_f32(self, b, |x, y| if y < x { y } else { x });
    }

    /// `f32x4.pmax`: `a < b ? b : a` lane-wise.
    #[inline(always)]
    pub fn f32x4_pmax(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_pmax(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return map_f32(self, b, |x, y| if x < y { y } else { x });
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

    /// `f32x4.floor`.
    #[inline(always)]
    pub fn f32x4_floor(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_floor(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f32s(self).map(f32::floor));
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

    /// `f32x4.ge`: all ones where `self >= b` (false for NaN).
    #[inline(always)]
    pub fn f32x4_ge(self, b: Self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f32x4_ge(self.0, b.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            let (a, b) = (f32s(self), f32s(b));
            return v([0, 1, 2, 3].map(|i| -i32::from(a[i] >= b[i])));
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

    /// `f64x2.floor`.
    #[inline(always)]
    pub fn f64x2_floor(self) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return V128(w::f64x2_floor(self.0));
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        return v(f64s(self).map(f64::floor));
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
}
