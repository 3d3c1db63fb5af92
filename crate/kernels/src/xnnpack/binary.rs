//! XNNPACK's int8 ADD / SUB (its qs8 `vadd` / `vaddc` microkernels) and MUL (`vmul` / `vmulc`)
//! as LiteRT's XNNPACK delegate runs them.
//!
//! ADD is integer throughout (`xnn_init_qs8_add_minmax_scalar_params`): each input's scale over
//! the output's, `s_a / s_o` and `s_b / s_o` in `f32`, becomes a 21-bit multiplier sharing one
//! right shift chosen from the larger of the two (`shift = 20 − exponent(max)`, the multiplier
//! `rint(|s| · 2^shift)`, ties to even); an element is
//! `(bias + a · m_a + b · m_b) >> shift` (arithmetic shift) with
//! `bias = 2^(shift−1) − m_a · zp_a − m_b · zp_b`, i.e. rounding half up, then the output zero
//! point and the clamp. SUB is ADD with the second input's scale negated (a negative
//! multiplier). LiteRT's reference instead rescales both inputs with 31-bit multipliers after
//! a left shift of 20 and rounds three times.
//!
//! MUL is `(a − zp_a) · (b − zp_b)` in int32, multiplied by `s_a · s_b / s_o` (`f32`, left to
//! right) and rounded once to nearest even ([`super::requantize`]), where LiteRT's reference
//! uses a fixed-point multiplier with double rounding.
//!
//! The constant-operand microkernels (`vaddc`, `vmulc`: one operand a single value, as XNNPACK
//! runs every broadcast along the innermost dimension) fold that operand into the bias / the
//! first factor; the integer sums and products are the same, so one formula covers every
//! broadcast. The clamp is the fused activation quantized as [`super::output_range`] does.
//!
//! This scalar form is the definition; the fast kernels run
//! [`simd128::elementwise_xnn`](crate::simd128::elementwise_xnn), tested against it.

use super::requantize;
use crate::reference::elementwise::Broadcast;

/// Whether the delegate takes an int8 ADD / SUB input with this scale relative to the output:
/// `input_scale / output_scale` in `[2^-10, 2^8)` (`f32`).
pub fn add_scale_supported(input_scale: f32, output_scale: f32) -> bool {
    (2f32.powi(-10)..256.0).contains(&(input_scale / output_scale))
}

/// Whether the delegate takes an int8 MUL with these scales: `s_a · s_b / s_o` in
/// `[2^-16, 2^8)` ([`mul_scale`]).
pub fn mul_scale_supported(scale: f32) -> bool {
    (2f32.powi(-16)..256.0).contains(&scale)
}

/// `s_a · s_b / s_o` in `f32`, left to right: XNNPACK's MUL requantization scale.
pub fn mul_scale(a_scale: f32, b_scale: f32, output_scale: f32) -> f32 {
    a_scale * b_scale / output_scale
}

/// Prepared parameters of XNNPACK's int8 ADD / SUB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddParams {
    /// Multiplier of the first input (negative when its scale is).
    pub a_multiplier: i32,
    /// Multiplier of the second input (negative for SUB).
    pub b_multiplier: i32,
    /// `2^(shift−1) − m_a · zp_a − m_b · zp_b`.
    pub bias: i32,
    /// The common right shift, 12 to 30.
    pub shift: u32,
    /// Output zero point.
    pub zero_point: i32,
    /// Lower clamp on the output grid ([`super::output_range`]).
    pub min: i32,
    /// Upper clamp.
    pub max: i32,
}

impl AddParams {
    /// The parameters for inputs `(scale, zero_point)` `a` and `b`, output `out`, clamp
    /// `[min, max]`; `sub` negates the second input. `None` when a scale ratio is outside
    /// what XNNPACK takes ([`add_scale_supported`]).
    pub fn new(
        a: (f32, i32),
        b: (f32, i32),
        out: (f32, i32),
        sub: bool,
        (min, max): (i32, i32),
    ) -> Option<Self> {
        if !add_scale_supported(a.0, out.0) || !add_scale_supported(b.0, out.0) {
            return None;
        }
        let a_ratio = a.0 / out.0;
        let b_ratio = if sub { -b.0 } else { b.0 } / out.0;
        let max_abs = a_ratio.abs().max(b_ratio.abs());
        // max_abs in [2^-10, 2^8): a normal float, exponent −10 to 7, shift 13 to 30.
        let exponent = (max_abs.to_bits() >> 23) as i32 - 127;
        let shift = (20 - exponent) as u32;
        let multiplier = |r: f32| {
            // |r| · 2^shift by adding to the exponent field, then rounded to nearest even.
            let m = f32::from_bits(r.abs().to_bits() + (shift << 23)).round_ties_even() as i32;
            if r.is_sign_negative() { -m } else { m }
        };
        let (a_multiplier, b_multiplier) = (multiplier(a_ratio), multiplier(b_ratio));
        let bias = (1i32 << (shift - 1))
            .wrapping_sub(a_multiplier.wrapping_mul(a.1))
            .wrapping_sub(b_multiplier.wrapping_mul(b.1));
        Some(Self {
            a_multiplier,
            b_multiplier,
            bias,
            shift,
            zero_point: out.1,
            min,
            max,
        })
    }
}

impl ElementOp for AddParams {
    #[inline(always)]
    fn apply(&self, a: i32, b: i32) -> i32 {
        let acc = self
            .bias
            .wrapping_add(a.wrapping_mul(self.a_multiplier))
            .wrapping_add(b.wrapping_mul(self.b_multiplier));
        // |acc >> shift| < 2^19: the sum with the zero point cannot overflow.
        ((acc >> self.shift) + self.zero_point).clamp(self.min, self.max.max(self.min))
    }
}

/// Prepared parameters of XNNPACK's int8 MUL.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MulParams {
    /// Zero point of the first input.
    pub a_zero_point: i32,
    /// Zero point of the second input.
    pub b_zero_point: i32,
    /// [`mul_scale`].
    pub scale: f32,
    /// Output zero point.
    pub zero_point: i32,
    /// Lower clamp on the output grid ([`super::output_range`]).
    pub min: i32,
    /// Upper clamp.
    pub max: i32,
}

impl ElementOp for MulParams {
    #[inline(always)]
    fn apply(&self, a: i32, b: i32) -> i32 {
        let acc = (a - self.a_zero_point) * (b - self.b_zero_point);
        requantize(acc, self.scale, self.zero_point, self.min, self.max)
    }
}

/// One of XNNPACK's int8 binary operators ([`AddParams`]: ADD / SUB, [`MulParams`]: MUL).
pub trait ElementOp {
    /// The output of one pair of int8 inputs, in `[min, max]` ⊆ `[−128, 127]`.
    fn apply(&self, a: i32, b: i32) -> i32;
}

/// XNNPACK's int8 ADD / SUB / MUL (`p`) with broadcasting.
pub fn binary(p: &impl ElementOp, shape: &Broadcast, a: &[i8], b: &[i8], output: &mut [i8]) {
    shape.walk(|o, ai, bi| {
        // In [min, max] ⊆ [−128, 127].
        output[o] = p.apply(a[ai].into(), b[bi].into()) as i8;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn add_multipliers_share_the_larger_scales_shift() {
        // Ratios 0.5 and 0.25: exponent −1, shift 21; multipliers 2^20 and 2^19.
        let p = AddParams::new((0.5, 3), (0.25, -2), (1.0, 0), false, (-128, 127))
            .expect("supported scales");
        assert_eq!(
            (p.a_multiplier, p.b_multiplier, p.shift),
            (1 << 20, 1 << 19, 21)
        );
        assert_eq!(p.bias, (1 << 20) - 3 * (1 << 20) + 2 * (1 << 19));
        // SUB: the second multiplier negative, same shift.
        let s = AddParams::new((0.5, 3), (0.25, -2), (1.0, 0), true, (-128, 127))
            .expect("supported scales");
        assert_eq!(
            (s.a_multiplier, s.b_multiplier, s.shift),
            (1 << 20, -(1 << 19), 21)
        );
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn add_rounds_half_up_not_away_from_zero() {
        // 0.5·a + 0·b: a = 1 → 0.5 → 1; a = −1 → −0.5 → 0 (half up); a = −3 → −1.5 → −1.
        let p = AddParams::new((0.5, 0), (0.5, 0), (1.0, 0), false, (-128, 127))
            .expect("supported scales");
        for (a, want) in [(1, 1), (-1, 0), (-3, -1), (3, 2), (2, 1)] {
            assert_eq!(p.apply(a, 0), want, "a {a}");
        }
        // The clamp applies after the zero point.
        let p = AddParams::new((1.0, 0), (1.0, 0), (1.0, 10), false, (-128, 127))
            .expect("supported scales");
        assert_eq!(p.apply(127, 127), 127);
        assert_eq!(p.apply(-128, -128), -128);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn add_refuses_ratios_xnnpack_refuses() {
        let ok = |s: f32| AddParams::new((s, 0), (1.0, 0), (1.0, 0), false, (-128, 127)).is_some();
        assert!(ok(2f32.powi(-10)));
        assert!(!ok(2f32.powi(-11)));
        assert!(ok(255.9));
        assert!(!ok(256.0));
        assert!(!ok(f32::NAN));
        assert!(mul_scale_supported(2f32.powi(-16)));
        assert!(!mul_scale_supported(2f32.powi(-17)));
        assert!(!mul_scale_supported(256.0));
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn mul_rounds_the_f32_product_to_even() {
        // (3 − 1) · (5 − 0) = 10, · 0.25 = 2.5 → 2; (7 − 1) · 1 · 0.25 = 1.5 → 2.
        let p = MulParams {
            a_zero_point: 1,
            b_zero_point: 0,
            scale: 0.25,
            zero_point: 0,
            min: -128,
            max: 127,
        };
        assert_eq!(p.apply(3, 5), 2);
        assert_eq!(p.apply(7, 1), 2);
        assert_eq!(p.apply(-127, 127), -128);
    }
}
