//! int8 FULLY_CONNECTED as a packed GEMV, bit-identical to
//! [`reference::fully_connected_int::fully_connected`](crate::reference::fully_connected_int::fully_connected)
//! (int8 activations, int32 accumulator): the weights packed as in [`super::conv_int`]
//! (four units × one pair of the row per vector, int16), the row's pairs broadcast, lanes four
//! output units. The rescale is the reference's double-precision one, or XNNPACK's `f32` one
//! ([`crate::Arithmetic::Xnnpack`]).

use super::conv_int::{act_range, folded_bias, fp32_clamp, k_padded, pack_weights};
use super::requant::Fp32Clamp;
use super::v128::V128;
use crate::PackedKernel;
use crate::reference::conv_int::RequantParams;

/// A prepared int8 FULLY_CONNECTED: packed weights, folded bias, the double-precision
/// multipliers.
#[derive(Debug, Clone)]
pub struct FullyConnectedInt8 {
    batches: usize,
    depth: usize,
    units: usize,
    weights: Vec<[i16; 8]>,
    bias: Vec<i32>,
    rescale: FcRescale,
    out_zp: i32,
    act: (i8, i8),
}

/// How [`FullyConnectedInt8`] rescales its accumulators.
#[derive(Debug, Clone)]
enum FcRescale {
    /// LiteRT's reference: the double-precision multiplier per unit, padded to a multiple of
    /// 4, as pairs for `f64x2`.
    Double(Vec<[f64; 2]>),
    /// XNNPACK's `f32` scales per unit, padded to a multiple of 4, and the clamp.
    Fp32(Vec<[f32; 4]>, Fp32Clamp),
}

/// Scratch of [`FullyConnectedInt8`]: one row's pairs as `i32` (two int16 each).
#[derive(Debug, Clone)]
pub struct FullyConnectedScratch {
    pairs: Vec<i32>,
}

impl FullyConnectedInt8 {
    /// Packs an int8 FULLY_CONNECTED: `weights` `[units, depth]`, `bias` `[units]`. `None` when
    /// the data does not match the shapes or the clamp is outside int8.
    pub fn new(
        batches: usize,
        depth: usize,
        units: usize,
        q: &RequantParams,
        weights: &[i8],
        bias: Option<&[i32]>,
    ) -> Option<(Self, FullyConnectedScratch)> {
        if depth == 0
            || weights.len() != depth.checked_mul(units)?
            || bias.is_some_and(|b| b.len() != units)
            || q.real_multipliers.len() < units
        {
            return None;
        }
        let act = act_range(q)?;
        let rescale = match &q.xnnpack {
            Some(x) => {
                let mut scales = vec![[0f32; 4]; units.div_ceil(4)];
                for (u, &s) in x.scales.get(..units)?.iter().enumerate() {
                    scales[u / 4][u % 4] = s;
                }
                FcRescale::Fp32(scales, fp32_clamp(q))
            }
            None => {
                let mut real = vec![[0f64; 2]; units.div_ceil(4) * 2];
                for (u, &r) in q.real_multipliers.iter().enumerate().take(units) {
                    real[u / 2][u % 2] = r;
                }
                FcRescale::Double(real)
            }
        };
        Some((
            FullyConnectedInt8 {
                batches,
                depth,
                units,
                weights: pack_weights(weights, units, depth),
                bias: folded_bias(weights, bias, units, depth, q.input_offset),
                rescale,
                out_zp: q.output_offset,
                act,
            },
            FullyConnectedScratch {
                pairs: vec![0; k_padded(depth) / 2],
            },
        ))
    }

    /// `(int32)round((double)acc · real)` lane-wise as LiteRT's x86 build casts (half away from
    /// zero; a value outside `i32`, or NaN, becomes `i32::MIN`, as
    /// [`round_f64_to_i32_x86`](crate::reference::quantize::round_f64_to_i32_x86)), for
    /// four units whose multipliers are `real[0..2]`.
    #[inline(always)]
    fn rescale(acc: V128, real: &[[f64; 2]]) -> V128 {
        const LIMIT: f64 = 2_147_483_648.0;
        let lowest = V128::load_f64(&[-LIMIT; 2]);
        let limit = V128::load_f64(&[LIMIT; 2]);
        let round = |v: V128| {
            let t = v.f64x2_trunc();
            let d = v.f64x2_sub(t);
            // |d| < 1 exactly; trunc(2d) is ±1 when |d| ≥ 0.5, else 0.
            let r = t.f64x2_add(d.f64x2_add(d).f64x2_trunc());
            let fits = r.f64x2_ge(lowest).and(r.f64x2_lt(limit));
            r.bitselect(lowest, fits).i32x4_trunc_sat_f64x2_zero()
        };
        let r0 = V128::load_f64(&real[0]);
        let r1 = V128::load_f64(&real[1]);
        let lo = round(acc.f64x2_convert_low_i32x4().f64x2_mul(r0));
        let hi = round(acc.high_i64s(acc).f64x2_convert_low_i32x4().f64x2_mul(r1));
        lo.low_i32_pairs(hi)
    }
}

impl PackedKernel for FullyConnectedInt8 {
    type Elem = i8;
    type Scratch = FullyConnectedScratch;

    /// Runs the layer over `batches` rows of `depth` int8 values.
    fn run(&self, input: &[i8], output: &mut [i8], s: &mut FullyConnectedScratch) {
        let kp = k_padded(self.depth) / 2;
        let zp = V128::splat_i32(self.out_zp);
        let lo = V128::splat_i8(self.act.0);
        let hi = V128::splat_i8(self.act.1);
        for b in 0..self.batches {
            let row = &input[b * self.depth..(b + 1) * self.depth];
            for (i, pair) in s.pairs.iter_mut().enumerate() {
                let x0 = row.get(2 * i).copied().unwrap_or(0);
                let x1 = row.get(2 * i + 1).copied().unwrap_or(0);
                // x0 as i16 then as u16 keeps the low half's two's-complement bits.
                *pair = i32::from(i16::from(x0) as u16) | (i32::from(x1) << 16);
            }
            let out = &mut output[b * self.units..(b + 1) * self.units];
            for (cb, w) in self.weights.chunks_exact(kp).enumerate() {
                let mut acc =
                    V128::load_i32(self.bias[cb * 4..].first_chunk::<4>().unwrap_or(&[0; 4]));
                for (&x, w) in s.pairs.iter().zip(w) {
                    acc = acc.i32x4_add(V128::load_i16(w).i32x4_dot_i16x8(V128::splat_i32(x)));
                }
                let v = match &self.rescale {
                    FcRescale::Double(real) => {
                        Self::rescale(acc, &real[cb * 2..cb * 2 + 2]).i32x4_add(zp)
                    }
                    // The zero point is folded into the magic-bias subtraction.
                    FcRescale::Fp32(scales, clamp) => clamp.apply(acc, V128::load_f32(&scales[cb])),
                };
                let bytes = v
                    .i16x8_narrow_i32x4(v)
                    .i8x16_narrow_i16x8(v.i16x8_narrow_i32x4(v))
                    .i8x16_max(lo)
                    .i8x16_min(hi)
                    .to_i8();
                let c0 = cb * 4;
                let n = (self.units - c0).min(4);
                out[c0..c0 + n].copy_from_slice(&bytes[..n]);
            }
        }
    }
}
