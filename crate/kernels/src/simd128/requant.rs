//! Vectorised requantization, bit-identical to [`crate::fixedpoint`].
//!
//! The int8 convolutions requantize with LiteRT's double-rounding
//! `MultiplyByQuantizedMultiplier(x, m, shift)` =
//! `RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x · 2^left, m), right)`. Two facts make
//! it cheap in SIMD128:
//!
//! - `SaturatingRoundingDoublingHighMul(a, m)` equals `⌊(a·m + 2^30) / 2^31⌋` for every pair but
//!   `a = m = i32::MIN` (its saturating case): for `a·m ≥ 0` that is gemmlowp's formula; for
//!   `a·m < 0` gemmlowp truncates `(a·m + 1 − 2^30) / 2^31` toward zero, which is the ceiling,
//!   and `⌈y / d⌉ = ⌊(y + d − 1) / d⌋` gives the same expression. So one widening multiply
//!   (`i64x2.extmul`), one add and taking bits 31..62 (shift left by one, keep the odd halves).
//!   The kernels that use this refuse (fall back to the reference) a multiplier of `i32::MIN`,
//!   which `QuantizeMultiplier` never produces.
//! - `RoundingDivideByPOT(z, e)` is `(z >> e) + (rem > threshold)` with `rem = z & (2^e − 1)` and
//!   `threshold = (2^e − 1) >> 1` plus one for negative `z`, all lane-wise `i32` operations.
//!
//! [`ChannelRequant`] holds one channel's constants for vectors whose lanes share the channel
//! (a convolution tile laid out as four pixels of one output channel: the shifts are uniform).
//! [`LaneRequant`] holds four channels' constants for vectors whose lanes are four channels (the
//! depthwise kernel); there the right shift differs per lane, and the rounding division is one
//! more widening multiply by `2^(30−e)` (see [`LaneRequant::apply`]).

use super::v128::V128;

/// `2^30` in both `i64` lanes: the rounding term of the doubling high multiply.
#[inline(always)]
fn round30() -> V128 {
    V128::splat_i64(1 << 30)
}

/// `⌊(x · m + 2^30) / 2^31⌋` lane-wise: `SaturatingRoundingDoublingHighMul` except for
/// `x = m = i32::MIN` (see the module documentation).
#[inline(always)]
pub fn doubling_high_mul(x: V128, m: V128) -> V128 {
    let lo = x
        .i64x2_extmul_low_i32x4(m)
        .i64x2_add(round30())
        .i64x2_shl(1);
    let hi = x
        .i64x2_extmul_high_i32x4(m)
        .i64x2_add(round30())
        .i64x2_shl(1);
    lo.odd_i32(hi)
}

/// One output channel's requantization constants, for vectors whose four lanes all belong to
/// that channel. The multiplier, mask and threshold are stored broadcast, ready to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChannelRequant {
    /// Q31 multiplier (never `i32::MIN`), in every lane.
    pub multiplier: [i32; 4],
    /// Left shift applied before the multiply (0..=31).
    pub left: u32,
    /// Rounding right shift applied after (0..=31).
    pub right: u32,
    /// `2^right − 1`, in every lane.
    pub mask: [i32; 4],
    /// `mask >> 1`, in every lane.
    pub half: [i32; 4],
}

impl ChannelRequant {
    /// The constants for LiteRT's `(multiplier, shift)`, or `None` for the one multiplier the
    /// vector form cannot reproduce (`i32::MIN`).
    pub fn new(multiplier: i32, shift: i32) -> Option<Self> {
        if multiplier == i32::MIN {
            return None;
        }
        // `x · 2^left` shifts by `left mod 32` for left ≥ 32, as the reference (and LiteRT's
        // x86 build) does; wasm's i32x4.shl masks its count the same way.
        let left = (shift.max(0) as u32) & 31;
        // RoundingDivideByPOT clamps its exponent to 0..=31.
        let right = (-shift).clamp(0, 31) as u32;
        let mask = ((1i64 << right) - 1) as i32;
        Some(ChannelRequant {
            multiplier: [multiplier; 4],
            left,
            right,
            mask: [mask; 4],
            half: [mask >> 1; 4],
        })
    }

    /// `MultiplyByQuantizedMultiplier` (double rounding) of each lane.
    #[inline(always)]
    pub fn apply(&self, acc: V128) -> V128 {
        let x = if self.left > 0 {
            acc.i32x4_shl(self.left)
        } else {
            acc
        };
        self.divide(doubling_high_mul(x, V128::load_i32(&self.multiplier)))
    }

    /// `RoundingDivideByPOT(z, right)` of each lane.
    #[inline(always)]
    fn divide(&self, z: V128) -> V128 {
        if self.right == 0 {
            return z;
        }
        let q = z.i32x4_shr(self.right);
        let rem = z.and(V128::load_i32(&self.mask));
        let threshold = V128::load_i32(&self.half).i32x4_sub(z.i32x4_shr(31));
        // `gt` is −1 where the quotient rounds up.
        q.i32x4_sub(rem.i32x4_gt(threshold))
    }
}

/// `MultiplyByQuantizedMultiplier(v · 2^L, m, shift)` for small `v` (`|v| ≤ 256`, an int8
/// value plus an int8 zero point) and `15 ≤ L ≤ 22`, with `shift ≤ 0`: the input stage of int8
/// ADD / SUB (`L` = 20), in 32-bit lanes only.
///
/// `SaturatingRoundingDoublingHighMul(v · 2^L, m)` is `⌊(v·m·2^L + 2^30) / 2^31⌋` (see the
/// module documentation; `v · 2^L` is never `i32::MIN`) `= ⌊(v·m + 2^(30−L)) / 2^(31−L)⌋`. With
/// `m = mh·2^16 + ml` (`mh = m >> 16`, `0 ≤ ml < 2^16`) and `31 − L ≤ 16`, `v·mh·2^16` is a
/// multiple of `2^(31−L)`, so the quotient is `v·mh·2^(L−15) + ⌊(v·ml + 2^(30−L)) / 2^(31−L)⌋`
/// exactly: `|v·mh| ≤ 2^23` (shifted: at most `2^30`) and `0 ≤ v·ml + 2^(30−L) < 2^25` in
/// magnitude fit `i32`, so two `i32x4.mul`s replace the two widening 64-bit multiplies. The
/// rounding division by `2^-shift` is [`ChannelRequant`]'s. Proven against the scalar reference
/// for every `v` in `[−256, 256]`, every `L` and shift, on edge and random multipliers (tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmallInputRequant {
    /// `m >> 16`, in every lane.
    mh: [i32; 4],
    /// `m & 0xFFFF`, in every lane.
    ml: [i32; 4],
    /// `2^(30−L)`, in every lane.
    round: [i32; 4],
    /// `L − 15`.
    hi_shift: u32,
    /// `31 − L`.
    lo_shift: u32,
    /// The rounding division (its multiplier unused).
    rq: ChannelRequant,
}

impl SmallInputRequant {
    /// Largest `|v|` [`SmallInputRequant::apply`] is exact for.
    pub const MAX_ABS_INPUT: i32 = 256;

    /// The constants for `v · 2^left` requantized by `(multiplier, shift)`, or `None` outside
    /// `15 ≤ left ≤ 22` or for `shift > 0` (a left shift the bounds above do not cover).
    pub fn new(multiplier: i32, shift: i32, left: i32) -> Option<Self> {
        if !(15..=22).contains(&left) || shift > 0 {
            return None;
        }
        let left = left as u32;
        Some(SmallInputRequant {
            mh: [multiplier >> 16; 4],
            ml: [multiplier & 0xFFFF; 4],
            round: [1 << (30 - left); 4],
            hi_shift: left - 15,
            lo_shift: 31 - left,
            // The multiplier is not used by `divide`; i32::MIN would be refused there.
            rq: ChannelRequant::new(0, shift)?,
        })
    }

    /// `MultiplyByQuantizedMultiplier(v · 2^L, m, shift)` of each lane; `|v| ≤ 256` in every lane.
    #[inline(always)]
    pub fn apply(&self, v: V128) -> V128 {
        let hi = v
            .i32x4_mul(V128::load_i32(&self.mh))
            .i32x4_shl(self.hi_shift);
        let lo = v
            .i32x4_mul(V128::load_i32(&self.ml))
            .i32x4_add(V128::load_i32(&self.round))
            .i32x4_shr(self.lo_shift);
        self.rq.divide(hi.i32x4_add(lo))
    }
}

impl ChannelRequant {
    /// [`ChannelRequant::apply`] of two vectors of the same channel, loading the constants and
    /// testing the shifts once (a convolution tile's two 4-pixel halves).
    #[inline(always)]
    pub fn apply2(&self, a: V128, b: V128) -> [V128; 2] {
        let (a, b) = if self.left > 0 {
            (a.i32x4_shl(self.left), b.i32x4_shl(self.left))
        } else {
            (a, b)
        };
        let m = V128::load_i32(&self.multiplier);
        let z = [doubling_high_mul(a, m), doubling_high_mul(b, m)];
        if self.right == 0 {
            return z;
        }
        let mask = V128::load_i32(&self.mask);
        let half = V128::load_i32(&self.half);
        z.map(|z| {
            let q = z.i32x4_shr(self.right);
            let rem = z.and(mask);
            let threshold = half.i32x4_sub(z.i32x4_shr(31));
            q.i32x4_sub(rem.i32x4_gt(threshold))
        })
    }
}

/// One output channel's requantization in a kernel that runs either arithmetic
/// ([`crate::Arithmetic`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChannelRq {
    /// LiteRT's reference double-rounding fixed point.
    Fixed(ChannelRequant),
    /// XNNPACK's `f32` requantization: the channel's scale (the clamp is the kernel's, see
    /// [`Fp32Clamp`]).
    Fp32(f32),
}

impl Default for ChannelRq {
    fn default() -> Self {
        ChannelRq::Fixed(ChannelRequant::default())
    }
}

/// The constants of XNNPACK's `f32` requantization besides the scale, in its "fp32 magic"
/// form ([`crate::xnnpack::requantize_lanes`]): the lower clamp `act_min − zp` and the
/// magic bias less the zero point. The upper clamp is the kernels' int8 clamp after narrowing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fp32Clamp {
    /// Lowest value before the zero point is added, `act_min − zp`.
    pub lo: f32,
    /// [`crate::xnnpack::magic_less_zero_point`] of the output zero point.
    pub magic_less_zp: i32,
}

impl Fp32Clamp {
    /// The constants for output zero point `zp` and lowest output `min`.
    pub fn new(min: i32, zp: i32) -> Self {
        Fp32Clamp {
            lo: (min - zp) as f32,
            magic_less_zp: crate::xnnpack::magic_less_zero_point(zp),
        }
    }

    /// [`crate::xnnpack::requantize_lanes`] of `acc` with per-lane `scales`: the
    /// requantized values with the zero point added, exact once narrowed with saturation and
    /// clamped to the activation range.
    #[inline(always)]
    pub fn apply(&self, acc: V128, scales: V128) -> V128 {
        crate::xnnpack::requantize_lanes(
            acc,
            scales,
            V128::splat_f32(self.lo),
            V128::splat_i32(self.magic_less_zp),
        )
    }
}

/// Four channels' requantization constants, one per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaneRequant {
    /// Q31 multipliers.
    pub multiplier: [i32; 4],
    /// `2^left` (wrapping to `i32::MIN` for 31), the left shift as a multiply.
    pub left_mul: [i32; 4],
    /// `2^(30 − right)`.
    pub right_mul: [i32; 4],
    /// All ones in lanes whose `right` is at least 1 (their negative values step down by one
    /// before the rounding division; see [`LaneRequant::apply`]).
    pub neg_adjust: [i32; 4],
}

impl LaneRequant {
    /// The constants for four channels given as [`ChannelRequant`]s, or `None` when a right
    /// shift is 31 (a multiplier below 2^-31·2; the kernels then keep the reference).
    pub fn from_channels(c: [ChannelRequant; 4]) -> Option<Self> {
        if c.iter().any(|c| c.right > 30) {
            return None;
        }
        Some(LaneRequant {
            multiplier: c.map(|c| c.multiplier[0]),
            left_mul: c.map(|c| (1i64 << c.left) as i32),
            right_mul: c.map(|c| 1i32 << (30 - c.right)),
            neg_adjust: c.map(|c| -i32::from(c.right > 0)),
        })
    }

    /// True when some lane shifts left (otherwise the left multiply is skipped).
    pub fn any_left(&self) -> bool {
        self.left_mul.iter().any(|&m| m != 1)
    }

    /// `MultiplyByQuantizedMultiplier` (double rounding) of each lane with its own constants.
    ///
    /// `RoundingDivideByPOT(z, e)` is `⌊(z + 2^(e−1) − [z < 0]) / 2^e⌋` for `e ≥ 1`, and `z` for
    /// `e = 0`. With `z' = z − [z < 0 ∧ e ≥ 1]` (no overflow: `z > i32::MIN` after the doubling
    /// high multiply), both are `⌊(z' · 2^(30−e) + 2^29) / 2^30⌋`: one widening multiply by a
    /// per-lane power of two, one add, and bits 30..61.
    #[inline(always)]
    pub fn apply(&self, acc: V128, any_left: bool) -> V128 {
        let x = if any_left {
            acc.i32x4_mul(V128::load_i32(&self.left_mul))
        } else {
            acc
        };
        let z = doubling_high_mul(x, V128::load_i32(&self.multiplier));
        let z = z.i32x4_add(z.i32x4_shr(31).and(V128::load_i32(&self.neg_adjust)));
        let r = V128::load_i32(&self.right_mul);
        let half = V128::splat_i64(1 << 29);
        let lo = z.i64x2_extmul_low_i32x4(r).i64x2_add(half).i64x2_shl(2);
        let hi = z.i64x2_extmul_high_i32x4(r).i64x2_add(half).i64x2_shl(2);
        lo.odd_i32(hi)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::fixedpoint::{multiply_by_quantized_multiplier, quantize_multiplier};
    use proptest::prelude::*;

    fn check(xs: [i32; 4], m: i32, shift: i32) {
        let c = ChannelRequant::new(m, shift).expect("not i32::MIN");
        let want = xs.map(|x| multiply_by_quantized_multiplier(x, m, shift));
        assert_eq!(
            c.apply(V128::from_i32(xs)).to_i32(),
            want,
            "m {m} shift {shift}"
        );
        let rev = [xs[3], xs[2], xs[1], xs[0]];
        let [a, b] = c.apply2(V128::from_i32(xs), V128::from_i32(rev));
        assert_eq!(a.to_i32(), want, "apply2 m {m} shift {shift}");
        assert_eq!(
            b.to_i32(),
            rev.map(|x| multiply_by_quantized_multiplier(x, m, shift))
        );
        if let Some(lanes) = LaneRequant::from_channels([c; 4]) {
            assert_eq!(
                lanes.apply(V128::from_i32(xs), lanes.any_left()).to_i32(),
                want
            );
        } else {
            assert_eq!(c.right, 31);
        }
    }

    #[test]
    fn extremes_match_the_scalar_reference() {
        let xs = [i32::MAX, i32::MIN, -1, 1];
        for (m, s) in [
            (i32::MAX, 0),
            (i32::MAX, 31),
            (i32::MAX, -31),
            (1 << 30, -1),
            (1 << 30, 40),
            (0, 0),
            (-5, 3),
            (i32::MIN + 1, -7),
            (1_518_500_250, 1),
        ] {
            check(xs, m, s);
            check([0, 2, -2, 3], m, s);
            check([-(1 << 30), 1 << 30, 12345, -12345], m, s);
        }
        assert!(ChannelRequant::new(i32::MIN, 0).is_none());
    }

    #[test]
    fn per_lane_constants_differ_per_lane() {
        let chans = [
            (1 << 30, 0),
            (1 << 30, -1),
            (1_234_567_890, 3),
            (2_000_000_000, -30),
        ]
        .map(|(m, s)| ChannelRequant::new(m, s).expect("valid"));
        let lanes = LaneRequant::from_channels(chans).expect("right shifts below 31");
        for x in [-7, 5, i32::MAX, i32::MIN, 1 << 29, -(1 << 29) - 1] {
            let got = lanes.apply(V128::splat_i32(x), lanes.any_left()).to_i32();
            for (g, c) in got.iter().zip(&chans) {
                let shift = if c.left > 0 {
                    c.left as i32
                } else {
                    -(c.right as i32)
                };
                assert_eq!(
                    *g,
                    multiply_by_quantized_multiplier(x, c.multiplier[0], shift)
                );
            }
        }
    }

    #[test]
    fn small_inputs_need_no_64_bit_products() {
        // Every v in [−256, 256], every left shift and right shift the kernel accepts, on edge
        // multipliers and a seeded spread of others.
        let mut ms = vec![
            0,
            1,
            -1,
            0xFFFF,
            0x1_0000,
            0x1_0001,
            1 << 30,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
        ];
        let mut r = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..40 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            ms.push(r as i32);
        }
        let vs: Vec<i32> = (-256..=256).collect();
        for &m in &ms {
            for left in 15..=22 {
                for shift in -31..=0 {
                    let k = SmallInputRequant::new(m, shift, left).expect("in range");
                    for v in vs.chunks(4) {
                        let xs = [v[0], v[1 % v.len()], v[2 % v.len()], v[3 % v.len()]];
                        let want =
                            xs.map(|x| multiply_by_quantized_multiplier(x << left, m, shift));
                        assert_eq!(
                            k.apply(V128::from_i32(xs)).to_i32(),
                            want,
                            "v {xs:?} m {m} left {left} shift {shift}"
                        );
                    }
                }
            }
        }
        assert!(SmallInputRequant::new(1 << 30, 1, 20).is_none());
        assert!(SmallInputRequant::new(1 << 30, 0, 14).is_none());
        assert!(SmallInputRequant::new(1 << 30, 0, 23).is_none());
    }

    proptest! {
        #[test]
        fn any_multiplier_any_accumulator(
            xs in any::<[i32; 4]>(),
            m in any::<i32>().prop_filter("not MIN", |&m| m != i32::MIN),
            shift in -40i32..40,
        ) {
            check(xs, m, shift);
        }

        #[test]
        fn real_multipliers(xs in any::<[i32; 4]>(), real in 1e-12f64..1e4) {
            let (m, s) = quantize_multiplier(real);
            check(xs, m, s);
        }
    }
}
