//! int8 ADD / SUB / MUL / MAXIMUM / MINIMUM of two same-shaped tensors, bit-identical to
//! [`reference::elementwise`](crate::kernels::reference::elementwise)'s quantized kernels.
//!
//! Sixteen elements per step: widened to four `i32x4`, each input's offset, left shift and
//! multiplier applied with the reference's wrapping arithmetic and double-rounding
//! requantization ([`ChannelRequant`]: the constants are per tensor, so uniform across lanes),
//! the output requantized, offset and clamped, then narrowed back. The last `n mod 16` elements
//! run the reference's scalar arithmetic. (Broadcasting shapes keep the reference kernel.)

use super::requant::ChannelRequant;
use super::v128::V128;
use crate::kernels::reference::elementwise::{QuantAddSub, QuantMul};

/// Sixteen int8 values as four `i32x4`.
#[inline(always)]
pub(crate) fn widen16(v: V128) -> [V128; 4] {
    let lo = v.i16x8_extend_low_i8x16();
    let hi = v.i16x8_extend_high_i8x16();
    [
        lo.i32x4_extend_low_i16x8(),
        lo.i32x4_extend_high_i16x8(),
        hi.i32x4_extend_low_i16x8(),
        hi.i32x4_extend_high_i16x8(),
    ]
}

/// Four `i32x4` narrowed (saturating) to sixteen int8, then clamped to `[lo, hi]` (an int8
/// range, so this equals clamping the `i32` values first).
#[inline(always)]
pub(crate) fn narrow16(v: [V128; 4], lo: V128, hi: V128) -> V128 {
    v[0].i16x8_narrow_i32x4(v[1])
        .i8x16_narrow_i16x8(v[2].i16x8_narrow_i32x4(v[3]))
        .i8x16_max(lo)
        .i8x16_min(hi)
}

/// The clamp `[min, max(max, min)]` the reference applies, as int8, or `None` outside int8.
fn clamp_range(min: i32, max: i32) -> Option<(i8, i8)> {
    Some((i8::try_from(min).ok()?, i8::try_from(max.max(min)).ok()?))
}

/// Prepared int8 ADD / SUB (same shapes).
#[derive(Debug, Clone)]
pub struct AddSubInt8 {
    p: QuantAddSub,
    rq1: ChannelRequant,
    rq2: ChannelRequant,
    rqo: ChannelRequant,
    act: (i8, i8),
}

impl AddSubInt8 {
    /// `None` when a multiplier is `i32::MIN`, the left shift is not below 32 or the clamp is
    /// outside int8.
    pub fn new(p: &QuantAddSub) -> Option<Self> {
        if !(0..32).contains(&p.left_shift) {
            return None;
        }
        Some(AddSubInt8 {
            p: *p,
            rq1: ChannelRequant::new(p.input1_multiplier, p.input1_shift)?,
            rq2: ChannelRequant::new(p.input2_multiplier, p.input2_shift)?,
            rqo: ChannelRequant::new(p.output_multiplier, p.output_shift)?,
            act: clamp_range(p.act_min, p.act_max)?,
        })
    }

    /// `output[i] = a[i] ± b[i]` requantized (all three slices the same length).
    pub fn run(&self, a: &[i8], b: &[i8], output: &mut [i8]) {
        let p = &self.p;
        let (o1, o2) = (
            V128::splat_i32(p.input1_offset),
            V128::splat_i32(p.input2_offset),
        );
        let zp = V128::splat_i32(p.output_offset);
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let shift = p.left_shift as u32;
        let (ac, at) = a.as_chunks::<16>();
        let (bc, bt) = b.as_chunks::<16>();
        let (oc, ot) = output.as_chunks_mut::<16>();
        for ((a, b), o) in ac.iter().zip(bc).zip(oc.iter_mut()) {
            let (x, y) = (widen16(V128::load_i8(a)), widen16(V128::load_i8(b)));
            let r = [0, 1, 2, 3].map(|i| {
                let x = self.rq1.apply(x[i].i32x4_add(o1).i32x4_shl(shift));
                let y = self.rq2.apply(y[i].i32x4_add(o2).i32x4_shl(shift));
                let raw = if p.sub {
                    x.i32x4_sub(y)
                } else {
                    x.i32x4_add(y)
                };
                self.rqo.apply(raw).i32x4_add(zp)
            });
            narrow16(r, lo, hi).store_i8(o);
        }
        for ((&x, &y), o) in at.iter().zip(bt).zip(ot.iter_mut()) {
            *o = p.apply(i32::from(x), i32::from(y)) as i8;
        }
    }
}

/// Prepared int8 MUL (same shapes).
#[derive(Debug, Clone)]
pub struct MulInt8 {
    p: QuantMul,
    rq: ChannelRequant,
    act: (i8, i8),
}

impl MulInt8 {
    /// `None` when the multiplier is `i32::MIN` or the clamp is outside int8.
    pub fn new(p: &QuantMul) -> Option<Self> {
        Some(MulInt8 {
            p: *p,
            rq: ChannelRequant::new(p.multiplier, p.shift)?,
            act: clamp_range(p.act_min, p.act_max)?,
        })
    }

    /// `output[i] = a[i] · b[i]` requantized.
    pub fn run(&self, a: &[i8], b: &[i8], output: &mut [i8]) {
        let p = &self.p;
        let (o1, o2) = (
            V128::splat_i32(p.input1_offset),
            V128::splat_i32(p.input2_offset),
        );
        let zp = V128::splat_i32(p.output_offset);
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let (ac, at) = a.as_chunks::<16>();
        let (bc, bt) = b.as_chunks::<16>();
        let (oc, ot) = output.as_chunks_mut::<16>();
        for ((a, b), o) in ac.iter().zip(bc).zip(oc.iter_mut()) {
            let (x, y) = (widen16(V128::load_i8(a)), widen16(V128::load_i8(b)));
            let r = [0, 1, 2, 3].map(|i| {
                self.rq
                    .apply(x[i].i32x4_add(o1).i32x4_mul(y[i].i32x4_add(o2)))
                    .i32x4_add(zp)
            });
            narrow16(r, lo, hi).store_i8(o);
        }
        let (min, max) = (i32::from(self.act.0), i32::from(self.act.1));
        for ((&x, &y), o) in at.iter().zip(bt).zip(ot.iter_mut()) {
            let x = p.input1_offset.wrapping_add(i32::from(x));
            let y = p.input2_offset.wrapping_add(i32::from(y));
            let r = crate::fixedpoint::multiply_by_quantized_multiplier(
                x.wrapping_mul(y),
                p.multiplier,
                p.shift,
            )
            .wrapping_add(p.output_offset);
            *o = r.clamp(min, max) as i8;
        }
    }
}

/// int8 MAXIMUM / MINIMUM of same-shaped tensors (raw values compared, as the reference).
pub fn max_min_int8(maximum: bool, a: &[i8], b: &[i8], output: &mut [i8]) {
    let (ac, at) = a.as_chunks::<16>();
    let (bc, bt) = b.as_chunks::<16>();
    let (oc, ot) = output.as_chunks_mut::<16>();
    for ((a, b), o) in ac.iter().zip(bc).zip(oc.iter_mut()) {
        let (x, y) = (V128::load_i8(a), V128::load_i8(b));
        let r = if maximum {
            x.i8x16_max(y)
        } else {
            x.i8x16_min(y)
        };
        r.store_i8(o);
    }
    for ((&x, &y), o) in at.iter().zip(bt).zip(ot.iter_mut()) {
        *o = if maximum { x.max(y) } else { x.min(y) };
    }
}
