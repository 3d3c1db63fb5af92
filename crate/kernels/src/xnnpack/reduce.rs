//! XNNPACK's int8 MEAN (its qs8 `rsum` / `rdsum` reductions and the conversion that follows) as
//! LiteRT's XNNPACK delegate runs it.
//!
//! The raw int8 values of each group are summed in int32 (no zero point subtracted), and the sum
//! becomes an int8 in `f32`: `(f32)sum · scale + bias`, rounded to nearest even and clamped to
//! `[−128, 127]`, where
//!
//! - `scale = (s_in / s_out) · (1 / (f32)n)`, each operation in `f32` (the scale the operator is
//!   created with, multiplied by the reciprocal of the reduced count when it is reshaped);
//! - `bias = (f32)zp_out − (f32)(n · zp_in) · scale`, in `f32`.
//!
//! The product and the sum are rounded separately (no fused multiply-add). LiteRT's reference
//! instead folds `1 / n` into a fixed-point multiplier and rounds twice. The formula was
//! established against LiteRT 2.3's XNNPACK delegate on every int8 sum of MEAN models whose scales
//! were chosen where the candidate orderings of these operations disagree.
//!
//! [`mean`] is the definition; the fast kernels sum the groups with
//! [`simd128::reduce_int`](crate::simd128::reduce_int) and finish with
//! [`MeanParams::apply`].

use crate::reference::reduce::ReduceParams;

/// Prepared parameters of XNNPACK's int8 MEAN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanParams {
    /// `(s_in / s_out) · (1 / n)` in `f32`.
    pub scale: f32,
    /// `zp_out − (n · zp_in) · scale` in `f32`.
    pub bias: f32,
}

impl MeanParams {
    /// The parameters for input `(scale, zero_point)`, output `(scale, zero_point)` and `count`
    /// reduced elements per output (at least 1).
    pub fn new(input: (f32, i32), output: (f32, i32), count: usize) -> Self {
        let scale = input.0 / output.0 * (1.0 / count as f32);
        // The product in integers, converted to `f32` once.
        let n_zp = (count as i64).wrapping_mul(input.1.into()) as f32;
        Self {
            scale,
            bias: output.1 as f32 - n_zp * scale,
        }
    }

    /// One output from the int32 sum of its group's raw int8 values.
    #[inline(always)]
    pub fn apply(&self, sum: i32) -> i8 {
        // In [−128, 127] after the clamp (NaN, which finite scales never give, maps to 0).
        (sum as f32 * self.scale + self.bias)
            .clamp(-128.0, 127.0)
            .round_ties_even() as i8
    }
}

/// XNNPACK's int8 MEAN over the groups `p` describes.
pub fn mean(p: &ReduceParams, q: &MeanParams, input: &[i8], output: &mut [i8]) {
    p.fold_groups(
        input,
        0i32,
        |acc, x| acc.wrapping_add(x.into()),
        |o, sum| output[o] = q.apply(sum),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_zero_point_term_is_rounded_apart_from_the_sum() {
        // s_in = s_out, n = 2: scale 0.5; zp_in 1, zp_out 0 → bias −1. Sum 3 → 1.5 − 1 = 0.5,
        // rounded to even 0 (the exact mean (3 − 2) / 2 rounded half away from zero is 1).
        let q = MeanParams::new((1.0, 1), (1.0, 0), 2);
        assert_eq!((q.scale, q.bias), (0.5, -1.0));
        assert_eq!(q.apply(3), 0);
        assert_eq!(q.apply(5), 2);
        assert_eq!(q.apply(-1000), -128);
        assert_eq!(q.apply(1000), 127);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn means_each_group() {
        let p = ReduceParams::new(&[2, 3], &[1]).expect("valid axes");
        let q = MeanParams::new((0.5, 0), (0.25, 0), 3);
        let mut out = [0i8; 2];
        mean(&p, &q, &[1, 2, 4, -1, -2, -2], &mut out);
        // 7 · 2 / 3 = 4.67 → 5; −5 · 2 / 3 = −3.33 → −3.
        assert_eq!(out, [5, -3]);
    }
}
