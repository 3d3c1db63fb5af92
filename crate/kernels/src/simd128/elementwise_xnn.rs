//! int8 ADD / SUB / MUL in XNNPACK's arithmetic ([`xnnpack::binary`](crate::xnnpack::binary)),
//! sixteen elements per step, bit-identical to its scalar definition on same-shaped tensors
//! and on broadcasts (the runs of [`BinaryRuns`]: a constant operand is splatted, as XNNPACK's
//! `vaddc` / `vmulc` microkernels take one value for the second input).
//!
//! ADD / SUB: each input widened to `i32x4`, `bias + a · m_a + b · m_b` with wrapping `i32x4`
//! products and sums (the scalar definition's wrapping arithmetic), the arithmetic right shift,
//! the output zero point (the shifted value is below `2^19` in magnitude, so the sum does not
//! wrap), then narrowed with saturation and clamped to `[min, max]` — the same as clamping the
//! `i32`, since both bounds are int8.
//!
//! MUL: `(a − zp_a)` and `(b − zp_b)` fit in `i16` (at most 255 in magnitude), so they are formed
//! in `i16x8` and multiplied to `i32x4` with `extmul`; the product is requantized in `f32` by
//! [`requantize_lanes`] (XNNPACK's "fp32 magic" rounding, equal to the scalar
//! [`requantize`](crate::xnnpack::requantize)), then narrowed and clamped.

use super::elementwise_int::{BinaryRuns, Lanes16, clamp_range, narrow16, widen16};
use super::v128::V128;
use crate::xnnpack::binary::{AddParams, ElementOp, MulParams};
use crate::xnnpack::{magic_less_zero_point, requantize_lanes};

/// Prepared XNNPACK int8 ADD / SUB.
#[derive(Debug, Clone)]
pub struct AddXnn {
    p: AddParams,
    act: (i8, i8),
}

impl AddXnn {
    /// `None` when the clamp is outside int8 (the delegate's output range never is).
    pub fn new(p: &AddParams) -> Option<Self> {
        Some(Self {
            p: *p,
            act: clamp_range(p.min, p.max)?,
        })
    }

    /// `output = a ± b` over the broadcast `runs`.
    pub fn run(&self, runs: &BinaryRuns, a: &[i8], b: &[i8], output: &mut [i8]) {
        runs.apply(self, a, b, output);
    }
}

impl Lanes16 for AddXnn {
    #[inline(always)]
    fn lanes(&self, x: V128, y: V128) -> V128 {
        let p = &self.p;
        let (ma, mb) = (
            V128::splat_i32(p.a_multiplier),
            V128::splat_i32(p.b_multiplier),
        );
        let (bias, zp) = (V128::splat_i32(p.bias), V128::splat_i32(p.zero_point));
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let (x, y) = (widen16(x), widen16(y));
        let r = [0, 1, 2, 3].map(|i| {
            bias.i32x4_add(x[i].i32x4_mul(ma))
                .i32x4_add(y[i].i32x4_mul(mb))
                .i32x4_shr(p.shift)
                .i32x4_add(zp)
        });
        narrow16(r, lo, hi)
    }

    // Left to the inliner (not `inline(always)`): only the tails call it (wasm size).
    fn one(&self, x: i8, y: i8) -> i8 {
        // In [min, max] ⊆ int8.
        self.p.apply(x.into(), y.into()) as i8
    }
}

/// Prepared XNNPACK int8 MUL.
#[derive(Debug, Clone)]
pub struct MulXnn {
    p: MulParams,
    act: (i8, i8),
}

impl MulXnn {
    /// `None` when a zero point or the clamp is outside int8, or the clamp is empty (the scalar
    /// definition's `f32` clamp needs `min ≤ max`).
    pub fn new(p: &MulParams) -> Option<Self> {
        let int8 = |z: i32| i8::try_from(z).is_ok();
        if !(int8(p.a_zero_point) && int8(p.b_zero_point) && int8(p.zero_point)) || p.min > p.max {
            return None;
        }
        Some(Self {
            p: *p,
            act: clamp_range(p.min, p.max)?,
        })
    }

    /// `output = a · b` over the broadcast `runs`.
    pub fn run(&self, runs: &BinaryRuns, a: &[i8], b: &[i8], output: &mut [i8]) {
        runs.apply(self, a, b, output);
    }
}

impl Lanes16 for MulXnn {
    #[inline(always)]
    fn lanes(&self, x: V128, y: V128) -> V128 {
        let p = &self.p;
        // Zero points are int8 (checked by `new`): the negations fit in i16.
        let (za, zb) = (
            V128::splat_i16(-(p.a_zero_point as i16)),
            V128::splat_i16(-(p.b_zero_point as i16)),
        );
        let scale = V128::splat_f32(p.scale);
        let lo = V128::splat_f32((p.min - p.zero_point) as f32);
        let magic = V128::splat_i32(magic_less_zero_point(p.zero_point));
        let (lo8, hi8) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let xl = x.i16x8_extend_low_i8x16().i16x8_add(za);
        let xh = x.i16x8_extend_high_i8x16().i16x8_add(za);
        let yl = y.i16x8_extend_low_i8x16().i16x8_add(zb);
        let yh = y.i16x8_extend_high_i8x16().i16x8_add(zb);
        let acc = [
            xl.i32x4_extmul_low_i16x8(yl),
            xl.i32x4_extmul_high_i16x8(yl),
            xh.i32x4_extmul_low_i16x8(yh),
            xh.i32x4_extmul_high_i16x8(yh),
        ];
        narrow16(acc.map(|a| requantize_lanes(a, scale, lo, magic)), lo8, hi8)
    }

    // Left to the inliner (not `inline(always)`): only the tails call it (wasm size).
    fn one(&self, x: i8, y: i8) -> i8 {
        // In [min, max] ⊆ int8.
        self.p.apply(x.into(), y.into()) as i8
    }
}
