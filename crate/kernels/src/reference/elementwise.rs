//! Binary elementwise ops with NumPy broadcasting: float ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
//! SQUARED_DIFFERENCE (and PRELU, which reuses the broadcast walk), and their quantized integer
//! forms (ADD, SUB, MUL, MAXIMUM, MINIMUM, PRELU over int8 / uint8 / int16).

use super::quantize::QuantInt;
use super::{ActivationRange, MAX_RANK};
use crate::fixedpoint::multiply_by_quantized_multiplier;

/// How two shapes broadcast to an output shape: the output dims and, per output dim, each
/// operand's element stride (0 along broadcast dims). Ranks are aligned at the right, as NumPy
/// and LiteRT do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Broadcast {
    rank: usize,
    dims: [usize; MAX_RANK],
    a_strides: [usize; MAX_RANK],
    b_strides: [usize; MAX_RANK],
    /// Both operands have exactly the output's element count (no broadcasting needed).
    same: bool,
}

impl Broadcast {
    /// The broadcast of shapes `a` and `b`, or `None` when a pair of dims is neither equal nor 1,
    /// or the rank exceeds [`MAX_RANK`].
    pub fn new(a: &[usize], b: &[usize]) -> Option<Self> {
        let rank = a.len().max(b.len());
        if rank > MAX_RANK {
            return None;
        }
        let mut dims = [1usize; MAX_RANK];
        let dim_at = |s: &[usize], i: usize| -> usize {
            // i counts from the left of the output; shorter shapes are padded with 1 on the left.
            let pad = rank - s.len();
            if i < pad { 1 } else { s[i - pad] }
        };
        for (i, d) in dims.iter_mut().enumerate().take(rank) {
            let (da, db) = (dim_at(a, i), dim_at(b, i));
            *d = match (da, db) {
                _ if da == db => da,
                (1, _) => db,
                (_, 1) => da,
                _ => return None,
            };
        }
        let strides = |s: &[usize]| -> [usize; MAX_RANK] {
            let mut out = [0usize; MAX_RANK];
            let mut acc = 1usize;
            for i in (0..rank).rev() {
                let d = dim_at(s, i);
                out[i] = if d == 1 { 0 } else { acc };
                acc = acc.saturating_mul(d);
            }
            out
        };
        let same = (0..rank).all(|i| dim_at(a, i) == dims[i] && dim_at(b, i) == dims[i]);
        Some(Self {
            rank,
            dims,
            a_strides: strides(a),
            b_strides: strides(b),
            same,
        })
    }

    /// The output shape.
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    /// Calls `f(out_index, a_index, b_index)` for every output element in row-major order.
    #[inline]
    pub(crate) fn walk(&self, mut f: impl FnMut(usize, usize, usize)) {
        if self.same {
            let n: usize = self.dims().iter().product();
            for i in 0..n {
                f(i, i, i);
            }
            return;
        }
        let dims = self.dims();
        let n: usize = dims.iter().product();
        if n == 0 {
            return;
        }
        let mut idx = [0usize; MAX_RANK];
        let mut out = 0usize;
        loop {
            let mut ai = 0;
            let mut bi = 0;
            for (k, &x) in idx[..self.rank].iter().enumerate() {
                ai += x * self.a_strides[k];
                bi += x * self.b_strides[k];
            }
            f(out, ai, bi);
            out += 1;
            if !super::next_index(dims, &mut idx[..self.rank]) {
                break;
            }
        }
    }
}

/// Which binary operation an elementwise kernel applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `a > b ? a : b` (LiteRT's `MaximumOp`).
    Maximum,
    /// `a < b ? a : b` (LiteRT's `MinimumOp`).
    Minimum,
    /// `(a - b)²`
    SquaredDifference,
}

impl BinaryOp {
    /// Applies the operation to one pair.
    #[inline(always)]
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            BinaryOp::Maximum => {
                if a > b {
                    a
                } else {
                    b
                }
            }
            BinaryOp::Minimum => {
                if a < b {
                    a
                } else {
                    b
                }
            }
            BinaryOp::SquaredDifference => {
                let d = a - b;
                d * d
            }
        }
    }
}

/// ADD / SUB / MUL / DIV / MAXIMUM / MINIMUM / SQUARED_DIFFERENCE. Mirrors LiteRT's
/// `reference_ops::BroadcastAdd6DSlow` family (float): one operation per output element, then the
/// fused activation clamp (identity for ops without one).
pub fn binary(
    op: BinaryOp,
    shape: &Broadcast,
    act: ActivationRange,
    a: &[f32],
    b: &[f32],
    output: &mut [f32],
) {
    shape.walk(|o, ai, bi| output[o] = act.apply(op.apply(a[ai], b[bi])));
}

/// ADD / SUB / MUL on INT32 (the loop counters of WHILE bodies, index arithmetic). Mirrors
/// LiteRT's `reference_ops` int32 `Add` / `Sub` / `Mul` and their broadcast forms: the integer
/// operation (wrapping on overflow, as LiteRT's builds do), then the fused activation clamp
/// `[min, max]` of `CalculateActivationRange<int32_t>`.
pub fn binary_i32(
    op: BinaryOp,
    shape: &Broadcast,
    (min, max): (i32, i32),
    a: &[i32],
    b: &[i32],
    output: &mut [i32],
) {
    shape.walk(|o, ai, bi| {
        let (x, y) = (a[ai], b[bi]);
        let v = match op {
            BinaryOp::Sub => x.wrapping_sub(y),
            BinaryOp::Mul => x.wrapping_mul(y),
            _ => x.wrapping_add(y),
        };
        output[o] = v.clamp(min, max);
    });
}

/// PRELU. Mirrors LiteRT `reference_ops::BroadcastPrelu4DSlow` (float):
/// `x >= 0 ? x : x * alpha`, with `alpha` broadcast against `x`.
pub fn prelu(shape: &Broadcast, input: &[f32], alpha: &[f32], output: &mut [f32]) {
    shape.walk(|o, xi, ai| {
        let x = input[xi];
        output[o] = if x >= 0.0 { x } else { x * alpha[ai] };
    });
}

/// Prepared parameters of quantized ADD / SUB (LiteRT's `ArithmeticParams` for the general
/// path): both inputs are brought to a common scale of `2 · max(s1, s2) / 2^left_shift` with
/// their own multipliers, added (or subtracted), then rescaled to the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantAddSub {
    /// SUB instead of ADD.
    pub sub: bool,
    /// 20 for 8-bit, 15 for 16-bit.
    pub left_shift: i32,
    /// `-zero_point` of input 1.
    pub input1_offset: i32,
    /// Q31 multiplier of input 1.
    pub input1_multiplier: i32,
    /// Exponent of input 1's multiplier.
    pub input1_shift: i32,
    /// `-zero_point` of input 2.
    pub input2_offset: i32,
    /// Q31 multiplier of input 2.
    pub input2_multiplier: i32,
    /// Exponent of input 2's multiplier.
    pub input2_shift: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Q31 output multiplier.
    pub output_multiplier: i32,
    /// Exponent of the output multiplier.
    pub output_shift: i32,
    /// Lower clamp (fused activation, on the output grid).
    pub act_min: i32,
    /// Upper clamp.
    pub act_max: i32,
}

impl QuantAddSub {
    /// One element. Mirrors LiteRT `reference_integer_ops::AddFunc` / `reference_ops::SubFunc`
    /// (double rounding: `MultiplyByQuantizedMultiplierSmallerThanOneExp` is
    /// `RoundingDivideByPOT(SRDHM(x, m), -shift)`, the same as
    /// [`multiply_by_quantized_multiplier`] for `shift ≤ 0`).
    #[inline(always)]
    pub fn apply(&self, a: i32, b: i32) -> i32 {
        let x = self.input1_offset.wrapping_add(a);
        let y = self.input2_offset.wrapping_add(b);
        let sx = x.wrapping_shl(self.left_shift as u32);
        let sy = y.wrapping_shl(self.left_shift as u32);
        let x = multiply_by_quantized_multiplier(sx, self.input1_multiplier, self.input1_shift);
        let y = multiply_by_quantized_multiplier(sy, self.input2_multiplier, self.input2_shift);
        let raw = if self.sub {
            x.wrapping_sub(y)
        } else {
            x.wrapping_add(y)
        };
        let out = multiply_by_quantized_multiplier(raw, self.output_multiplier, self.output_shift)
            .wrapping_add(self.output_offset);
        out.clamp(self.act_min, self.act_max.max(self.act_min))
    }
}

impl QuantAddSub {
    /// SQUARED_DIFFERENCE on the same parameters (`left_shift` 7, `sub` unused): both inputs
    /// rescaled as for SUB, the difference squared in int32, then the output multiplier
    /// (double rounding), the zero point and the clamp. Mirrors LiteRT
    /// `squared_difference.cc`'s `SquaredDifference<int8_t>`.
    #[inline(always)]
    pub fn apply_squared_difference(&self, a: i32, b: i32) -> i32 {
        let x = (self.input1_offset.wrapping_add(a)).wrapping_shl(self.left_shift as u32);
        let y = (self.input2_offset.wrapping_add(b)).wrapping_shl(self.left_shift as u32);
        let x = multiply_by_quantized_multiplier(x, self.input1_multiplier, self.input1_shift);
        let y = multiply_by_quantized_multiplier(y, self.input2_multiplier, self.input2_shift);
        let d = x.wrapping_sub(y);
        let out = multiply_by_quantized_multiplier(
            d.wrapping_mul(d),
            self.output_multiplier,
            self.output_shift,
        )
        .wrapping_add(self.output_offset);
        out.clamp(self.act_min, self.act_max.max(self.act_min))
    }
}

/// Element types whose quantized binary kernels ([`quantized_add_sub`], [`quantized_mul`],
/// [`quantized_squared_difference`], [`quantized_max_min`]) are instantiated in this crate at
/// its opt-level (see [`super::bytes`]): the operators call them through this trait, so their
/// generic code does not make its own instances.
pub trait BinaryInt: QuantInt {
    /// [`quantized_add_sub`] on `Self`.
    fn add_sub(p: &QuantAddSub, shape: &Broadcast, a: &[Self], b: &[Self], out: &mut [Self]);
    /// [`quantized_mul`] on `Self`.
    fn mul(p: &QuantMul, shape: &Broadcast, a: &[Self], b: &[Self], out: &mut [Self]);
    /// [`quantized_squared_difference`] on `Self`.
    fn squared_difference(
        p: &QuantAddSub,
        shape: &Broadcast,
        a: &[Self],
        b: &[Self],
        out: &mut [Self],
    );
    /// [`quantized_max_min`] on `Self`.
    fn max_min(maximum: bool, shape: &Broadcast, a: &[Self], b: &[Self], out: &mut [Self]);
}

macro_rules! binary_int {
    ($($t:ty),*) => {$(
        impl BinaryInt for $t {
            fn add_sub(p: &QuantAddSub, shape: &Broadcast, a: &[$t], b: &[$t], out: &mut [$t]) {
                quantized_add_sub(p, shape, a, b, out);
            }
            fn mul(p: &QuantMul, shape: &Broadcast, a: &[$t], b: &[$t], out: &mut [$t]) {
                quantized_mul(p, shape, a, b, out);
            }
            fn squared_difference(
                p: &QuantAddSub,
                shape: &Broadcast,
                a: &[$t],
                b: &[$t],
                out: &mut [$t],
            ) {
                quantized_squared_difference(p, shape, a, b, out);
            }
            fn max_min(maximum: bool, shape: &Broadcast, a: &[$t], b: &[$t], out: &mut [$t]) {
                quantized_max_min(maximum, shape, a, b, out);
            }
        }
    )*};
}
binary_int!(i8, u8, i16);

/// Quantized SQUARED_DIFFERENCE with broadcasting (int8), LiteRT's `BroadcastBinaryFunction6DSlow`
/// over [`QuantAddSub::apply_squared_difference`].
pub fn quantized_squared_difference<T: QuantInt>(
    p: &QuantAddSub,
    shape: &Broadcast,
    a: &[T],
    b: &[T],
    output: &mut [T],
) {
    shape.walk(|o, ai, bi| {
        output[o] = T::wrap_from(p.apply_squared_difference(a[ai].to_i32(), b[bi].to_i32()));
    });
}

/// Quantized ADD / SUB with broadcasting. Mirrors LiteRT `reference_integer_ops::Add` /
/// `BroadcastAdd6DSlow` (int8), `reference_ops::Add` / `BroadcastAdd6DSlow` (int16, general
/// scales) and `reference_ops::Sub` / `BroadcastQuantSubSlow`; double rounding.
pub fn quantized_add_sub<T: QuantInt>(
    p: &QuantAddSub,
    shape: &Broadcast,
    a: &[T],
    b: &[T],
    output: &mut [T],
) {
    shape.walk(|o, ai, bi| output[o] = T::wrap_from(p.apply(a[ai].to_i32(), b[bi].to_i32())));
}

/// int16 ADD / SUB with power-of-two scales and zero points 0 (LiteRT's LSTM path, taken when
/// `pot_scale_int16` is set and all three scales are powers of two). Mirrors LiteRT
/// `reference_ops::Add` (int16, POT) and `reference_ops::Sub16`: the input whose scale is
/// finer than the output's is divided by `2^-shift` (gemmlowp `RoundingDivideByPOT<int16_t>`),
/// then a saturating int16 add / subtract and the activation clamp. `shift1`, `shift2` ≤ 0, at
/// least one of them 0.
#[allow(clippy::too_many_arguments)]
pub fn pot_add_sub_int16(
    sub: bool,
    shift1: i32,
    shift2: i32,
    act_min: i32,
    act_max: i32,
    shape: &Broadcast,
    a: &[i16],
    b: &[i16],
    output: &mut [i16],
) {
    use super::fixedpoint_math::rounding_divide_by_pot_i16;
    let hi = act_max.max(act_min);
    shape.walk(|o, ai, bi| {
        let x = i32::from(rounding_divide_by_pot_i16(a[ai], -shift1));
        let y = i32::from(rounding_divide_by_pot_i16(b[bi], -shift2));
        let r = if sub { x - y } else { x + y };
        output[o] = r.clamp(-32768, 32767).clamp(act_min, hi) as i16;
    });
}

/// Prepared parameters of quantized MUL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantMul {
    /// `-zero_point` of input 1.
    pub input1_offset: i32,
    /// `-zero_point` of input 2.
    pub input2_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Q31 multiplier of `s1 · s2 / s_out`.
    pub multiplier: i32,
    /// Its exponent.
    pub shift: i32,
    /// Lower clamp (fused activation).
    pub act_min: i32,
    /// Upper clamp.
    pub act_max: i32,
}

/// Quantized MUL with broadcasting. Mirrors LiteRT `reference_integer_ops::MulElementwise` /
/// `BroadcastMul6DSlow`: `clamp(out_zp + MultiplyByQuantizedMultiplier((a − za)(b − zb), m,
/// shift))`, double rounding.
pub fn quantized_mul<T: QuantInt>(
    p: &QuantMul,
    shape: &Broadcast,
    a: &[T],
    b: &[T],
    output: &mut [T],
) {
    shape.walk(|o, ai, bi| {
        let x = p.input1_offset.wrapping_add(a[ai].to_i32());
        let y = p.input2_offset.wrapping_add(b[bi].to_i32());
        let r = multiply_by_quantized_multiplier(x.wrapping_mul(y), p.multiplier, p.shift)
            .wrapping_add(p.output_offset);
        output[o] = T::wrap_from(r.clamp(p.act_min, p.act_max.max(p.act_min)));
    });
}

/// Quantized MAXIMUM / MINIMUM with broadcasting. Mirrors LiteRT
/// `reference_ops::MaximumMinimumBroadcastSlow`: the raw quantized values are compared (the
/// inputs and output share one scale and zero point).
pub fn quantized_max_min<T: QuantInt>(
    maximum: bool,
    shape: &Broadcast,
    a: &[T],
    b: &[T],
    output: &mut [T],
) {
    shape.walk(|o, ai, bi| {
        let (x, y) = (a[ai].to_i32(), b[bi].to_i32());
        let pick_x = if maximum { x > y } else { x < y };
        output[o] = if pick_x { a[ai] } else { b[bi] };
    });
}

/// Prepared parameters of quantized PRELU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuantPrelu {
    /// `-zero_point` of the input.
    pub input_offset: i32,
    /// `-zero_point` of alpha.
    pub alpha_offset: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Multiplier of `s_in / s_out` (the identity branch).
    pub multiplier_1: i32,
    /// Its exponent.
    pub shift_1: i32,
    /// Multiplier of `s_in · s_alpha / s_out` (the negative branch).
    pub multiplier_2: i32,
    /// Its exponent.
    pub shift_2: i32,
}

/// Quantized PRELU with `alpha` broadcast against the input. Mirrors LiteRT
/// `reference_ops::BroadcastPrelu4DSlow` / `Prelu` (quantized): `x − zx ≥ 0` → identity
/// multiplier, else `(x − zx)(α − zα)` times the alpha multiplier; double rounding; clamped to
/// the type.
pub fn quantized_prelu<T: QuantInt>(
    p: &QuantPrelu,
    shape: &Broadcast,
    input: &[T],
    alpha: &[T],
    output: &mut [T],
) {
    shape.walk(|o, xi, ai| {
        let x = p.input_offset.wrapping_add(input[xi].to_i32());
        let r = if x >= 0 {
            multiply_by_quantized_multiplier(x, p.multiplier_1, p.shift_1)
        } else {
            let a = p.alpha_offset.wrapping_add(alpha[ai].to_i32());
            multiply_by_quantized_multiplier(x.wrapping_mul(a), p.multiplier_2, p.shift_2)
        };
        output[o] = T::clamp_from(r.wrapping_add(p.output_offset));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_shapes_follow_numpy() {
        let b = Broadcast::new(&[2, 1, 3], &[4, 1]).expect("compatible");
        assert_eq!(b.dims(), &[2, 4, 3]);
        assert!(Broadcast::new(&[2, 3], &[4, 3]).is_none());
        assert_eq!(Broadcast::new(&[], &[5]).expect("scalar").dims(), &[5]);
        assert!(Broadcast::new(&[1; 9], &[1]).is_none());
    }

    #[test]
    fn add_same_shape_with_relu6() {
        let s = Broadcast::new(&[4], &[4]).expect("same");
        let mut out = [0.0; 4];
        binary(
            BinaryOp::Add,
            &s,
            ActivationRange::RELU6,
            &[1.0, 2.0, 3.0, -9.0],
            &[1.0, 5.0, 0.5, 1.0],
            &mut out,
        );
        assert_eq!(out, [2.0, 6.0, 3.5, 0.0]);
    }

    #[test]
    fn sub_broadcasts_row_against_column() {
        // a: [2, 1], b: [1, 3] → [2, 3]
        let s = Broadcast::new(&[2, 1], &[1, 3]).expect("compatible");
        let mut out = [0.0; 6];
        binary(
            BinaryOp::Sub,
            &s,
            ActivationRange::NONE,
            &[10.0, 20.0],
            &[1.0, 2.0, 3.0],
            &mut out,
        );
        assert_eq!(out, [9.0, 8.0, 7.0, 19.0, 18.0, 17.0]);
    }

    #[test]
    fn mul_max_min_with_scalar_and_rank_4() {
        let s = Broadcast::new(&[1, 2, 2, 1], &[]).expect("scalar");
        let a = [1.0, -2.0, 3.0, -4.0];
        let mut out = [0.0; 4];
        binary(
            BinaryOp::Mul,
            &s,
            ActivationRange::NONE,
            &a,
            &[2.0],
            &mut out,
        );
        assert_eq!(out, [2.0, -4.0, 6.0, -8.0]);
        binary(
            BinaryOp::Maximum,
            &s,
            ActivationRange::UNBOUNDED,
            &a,
            &[0.0],
            &mut out,
        );
        assert_eq!(out, [1.0, 0.0, 3.0, 0.0]);
        binary(
            BinaryOp::Minimum,
            &s,
            ActivationRange::UNBOUNDED,
            &a,
            &[0.0],
            &mut out,
        );
        assert_eq!(out, [0.0, -2.0, 0.0, -4.0]);
        binary(
            BinaryOp::SquaredDifference,
            &s,
            ActivationRange::UNBOUNDED,
            &a,
            &[1.0],
            &mut out,
        );
        assert_eq!(out, [0.0, 9.0, 4.0, 25.0]);
    }

    #[test]
    fn channel_bias_broadcast_over_nhwc() {
        let s = Broadcast::new(&[1, 2, 1, 3], &[3]).expect("compatible");
        let a: Vec<f32> = (0..6).map(|v| v as f32).collect();
        let mut out = [0.0; 6];
        binary(
            BinaryOp::Add,
            &s,
            ActivationRange::NONE,
            &a,
            &[100.0, 200.0, 300.0],
            &mut out,
        );
        assert_eq!(out, [100.0, 201.0, 302.0, 103.0, 204.0, 305.0]);
    }

    #[test]
    fn prelu_with_per_channel_alpha() {
        let s = Broadcast::new(&[2, 2], &[2]).expect("compatible");
        let mut out = [0.0; 4];
        prelu(&s, &[-1.0, -1.0, 2.0, -4.0], &[0.5, 0.25], &mut out);
        assert_eq!(out, [-0.5, -0.25, 2.0, -1.0]);
    }

    fn add_params(sub: bool, act_min: i32, act_max: i32) -> QuantAddSub {
        use crate::fixedpoint::quantize_multiplier;
        // Inputs scale 0.5 zp 0, output scale 1 zp 0: twice_max = 1, input multipliers 0.5,
        // output multiplier 2^-20.
        let (m_in, s_in) = quantize_multiplier(0.5);
        let (m_out, s_out) = quantize_multiplier(2f64.powi(-20));
        QuantAddSub {
            sub,
            left_shift: 20,
            input1_offset: 0,
            input1_multiplier: m_in,
            input1_shift: s_in,
            input2_offset: 0,
            input2_multiplier: m_in,
            input2_shift: s_in,
            output_offset: 0,
            output_multiplier: m_out,
            output_shift: s_out,
            act_min,
            act_max,
        }
    }

    #[test]
    fn quantized_add_sub_round_half_away_and_clamp() {
        let s = Broadcast::new(&[3], &[3]).expect("same");
        let mut out = [0i8; 3];
        // 1.5 + 2 = 3.5 → 4; -1.5 - 2 = -3.5 → -4; 63.5 + 63.5 = 127.
        quantized_add_sub(
            &add_params(false, -128, 127),
            &s,
            &[3i8, -3, 127],
            &[4i8, -4, 127],
            &mut out,
        );
        assert_eq!(out, [4, -4, 127]);
        // RELU clamp at 0.
        quantized_add_sub(
            &add_params(false, 0, 127),
            &s,
            &[3i8, -3, 0],
            &[4i8, -4, 0],
            &mut out,
        );
        assert_eq!(out, [4, 0, 0]);
        // SUB: 1.5 - 2 = -0.5 → -1 (ties away from zero); broadcast a scalar.
        let s = Broadcast::new(&[3], &[]).expect("scalar");
        quantized_add_sub(
            &add_params(true, -128, 127),
            &s,
            &[3i8, 5, -128],
            &[4i8],
            &mut out,
        );
        assert_eq!(out, [-1, 1, -66]);
    }

    #[test]
    fn quantized_mul_with_offsets_and_relu6() {
        use crate::fixedpoint::quantize_multiplier;
        // a: scale 0.5 zp -1; b: scale 0.25 zp 2; out: scale 0.125 zp 0 → multiplier 1.
        let (multiplier, shift) = quantize_multiplier(1.0);
        let p = QuantMul {
            input1_offset: 1,
            input2_offset: -2,
            output_offset: 0,
            multiplier,
            shift,
            act_min: -128,
            act_max: 127,
        };
        let s = Broadcast::new(&[2], &[2]).expect("same");
        let mut out = [0i8; 2];
        // (5 + 1)(-2 - 2) = -24; (127 + 1)(127 - 2) saturates to 127.
        quantized_mul(&p, &s, &[5i8, 127], &[-2i8, 127], &mut out);
        assert_eq!(out, [-24, 127]);
        let relu6 = QuantMul {
            act_min: 0,
            act_max: 48,
            ..p
        };
        quantized_mul(&relu6, &s, &[5i8, 127], &[-2i8, 127], &mut out);
        assert_eq!(out, [0, 48]);
    }

    #[test]
    fn quantized_max_min_compare_raw_values() {
        let s = Broadcast::new(&[2, 2], &[2]).expect("compatible");
        let mut out = [0i16; 4];
        quantized_max_min(true, &s, &[-5i16, 3, 7, -32768], &[0i16, 4], &mut out);
        assert_eq!(out, [0, 4, 7, 4]);
        quantized_max_min(false, &s, &[-5i16, 3, 7, -32768], &[0i16, 4], &mut out);
        assert_eq!(out, [-5, 3, 0, -32768]);
    }

    #[test]
    fn quantized_prelu_two_multipliers() {
        use crate::fixedpoint::quantize_multiplier;
        // input scale 1 zp 0, alpha scale 0.25 zp 0, output scale 1 zp 0.
        let (multiplier_1, shift_1) = quantize_multiplier(1.0);
        let (multiplier_2, shift_2) = quantize_multiplier(0.25);
        let p = QuantPrelu {
            input_offset: 0,
            alpha_offset: 0,
            output_offset: 0,
            multiplier_1,
            shift_1,
            multiplier_2,
            shift_2,
        };
        let s = Broadcast::new(&[4], &[1]).expect("scalar alpha");
        let mut out = [0i8; 4];
        // alpha 2 · 0.25 = 0.5: -5 → -2.5 → -3; 7 → 7; -128 → -64; 0 → 0.
        quantized_prelu(&p, &s, &[-5i8, 7, -128, 0], &[2i8], &mut out);
        assert_eq!(out, [-3, 7, -64, 0]);
        // alpha 127 · 0.25: -128 → -4064 → clamps to -128.
        quantized_prelu(&p, &s, &[-128i8, 1, 2, 3], &[127i8], &mut out);
        assert_eq!(out, [-128, 1, 2, 3]);
    }

    #[test]
    fn quantized_kernels_are_total_on_any_input() {
        let a: Vec<i16> = (i16::MIN..=i16::MAX).step_by(7).collect();
        let s = Broadcast::new(&[a.len()], &[1]).expect("scalar");
        let mut out = vec![0i16; a.len()];
        for b in [i16::MIN, -1, 0, i16::MAX] {
            for shift in [-31, -1, 0, 1, 30] {
                let p = QuantAddSub {
                    sub: shift > 0,
                    left_shift: 20,
                    input1_offset: i32::MAX,
                    input1_multiplier: i32::MAX,
                    input1_shift: shift,
                    input2_offset: i32::MIN,
                    input2_multiplier: i32::MIN,
                    input2_shift: -shift,
                    output_offset: i32::MAX,
                    output_multiplier: i32::MAX,
                    output_shift: shift,
                    act_min: 10,
                    act_max: -10,
                };
                quantized_add_sub(&p, &s, &a, &[b], &mut out);
                let m = QuantMul {
                    input1_offset: i32::MIN,
                    input2_offset: i32::MAX,
                    output_offset: i32::MIN,
                    multiplier: i32::MIN,
                    shift,
                    act_min: 5,
                    act_max: 4,
                };
                quantized_mul(&m, &s, &a, &[b], &mut out);
                let pr = QuantPrelu {
                    input_offset: i32::MIN,
                    alpha_offset: i32::MAX,
                    output_offset: i32::MAX,
                    multiplier_1: i32::MIN,
                    shift_1: shift,
                    multiplier_2: i32::MAX,
                    shift_2: -shift,
                };
                quantized_prelu(&pr, &s, &a, &[b], &mut out);
            }
        }
    }

    #[test]
    fn pot_int16_add_sub_shift_one_input_and_saturate() {
        let s = Broadcast::new(&[4], &[4]).expect("same");
        let mut out = [0i16; 4];
        // Input 2 on a scale 4 times finer (shift -2): 6 → 1.5 → 2, -6 → -2 (ties away).
        pot_add_sub_int16(
            false,
            0,
            -2,
            -32768,
            32767,
            &s,
            &[1, 1, 32767, -32768],
            &[6, -6, 400, -400],
            &mut out,
        );
        assert_eq!(out, [3, -1, 32767, -32768]);
        // SUB with input 1 shifted by 1: 5 → 2.5 → 3; then 3 − 1 = 2; RELU clamp at 0.
        pot_add_sub_int16(
            true,
            -1,
            0,
            0,
            32767,
            &s,
            &[5, -5, 0, 4],
            &[1, 1, 1, 1],
            &mut out,
        );
        assert_eq!(out, [2, 0, 0, 1]);
    }
}
