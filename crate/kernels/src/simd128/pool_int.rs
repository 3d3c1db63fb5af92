//! int8 MAX_POOL_2D and AVERAGE_POOL_2D, bit-identical to
//! [`reference::pool`](crate::reference::pool)'s integer kernels.
//!
//! Lanes are sixteen channels. MAX takes `i8x16.max_s` over the window's in-bounds pixels from
//! −128, then clamps. AVERAGE sums in `i32` (exact: the constructor caps the window at 2^23
//! pixels, so `|sum| < 2^31`), adds `±count/2` by the sum's sign as the reference does, and
//! divides in `f64`: the quotient of two integers below 2^31 correctly rounded to `f64` never
//! crosses an integer, so truncating it gives the reference's truncating integer division.
//! Eight channels left over after the multiples of 16 take the low half of the lanes; channels
//! past the last multiple of 8 run the reference's scalar arithmetic.

use super::elementwise_int::widen16;
use super::v128::V128;
use crate::PackedKernel;
use crate::reference::pool::{PoolParams, for_each_window};

/// A prepared int8 pooling.
#[derive(Debug, Clone)]
pub struct PoolInt8 {
    p: PoolParams,
    max: bool,
    act: (i8, i8),
}

impl PoolInt8 {
    /// `None` when the clamp is empty or outside int8, or the window exceeds 2^23 pixels.
    pub fn new(p: &PoolParams, max: bool, act_min: i32, act_max: i32) -> Option<Self> {
        let lo = i8::try_from(act_min).ok()?;
        let hi = i8::try_from(act_max).ok()?;
        if lo > hi || p.filter_h.checked_mul(p.filter_w)? > 1 << 23 {
            return None;
        }
        Some(PoolInt8 {
            p: *p,
            max,
            act: (lo, hi),
        })
    }
}

impl PackedKernel for PoolInt8 {
    type Elem = i8;
    type Scratch = ();

    /// Runs the pooling over NHWC int8 tensors of the prepared shapes.
    fn run(&self, input: &[i8], output: &mut [i8], _: &mut ()) {
        let p = &self.p;
        let c = p.channels;
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        for_each_window(p, |b, y0, y1, x0, x1, out_at| {
            let count = (y1.saturating_sub(y0) * x1.saturating_sub(x0)) as i32;
            let px = |y: usize, x: usize| ((b * p.in_h + y) * p.in_w + x) * c;
            // Sixteen channels at a time, then eight (the low half of the lanes).
            let load = |at: usize, wide: bool| {
                if wide {
                    input[at..].first_chunk::<16>().map(V128::load_i8)
                } else {
                    input[at..].first_chunk::<8>().map(V128::load64_zero_i8)
                }
            };
            let mut c0 = 0;
            while c0 + 8 <= c {
                let wide = c0 + 16 <= c;
                let v = if self.max {
                    let mut m = V128::splat_i8(i8::MIN);
                    for y in y0..y1 {
                        for x in x0..x1 {
                            if let Some(a) = load(px(y, x) + c0, wide) {
                                m = m.i8x16_max(a);
                            }
                        }
                    }
                    m
                } else {
                    let mut s = [V128::zero(); 4];
                    for y in y0..y1 {
                        for x in x0..x1 {
                            if let Some(a) = load(px(y, x) + c0, wide) {
                                let w = widen16(a);
                                for i in 0..4 {
                                    s[i] = s[i].i32x4_add(w[i]);
                                }
                            }
                        }
                    }
                    average16(s, count)
                };
                let v = v.i8x16_max(lo).i8x16_min(hi);
                if wide {
                    if let Some(o) = output[out_at + c0..].first_chunk_mut::<16>() {
                        v.store_i8(o);
                    }
                    c0 += 16;
                } else {
                    if let Some(o) = output[out_at + c0..].first_chunk_mut::<8>() {
                        v.store_low_i8x8(o);
                    }
                    c0 += 8;
                }
            }
            for ch in c0..c {
                let (mut m, mut s) = (i32::from(i8::MIN), 0i32);
                for y in y0..y1 {
                    for x in x0..x1 {
                        let v = i32::from(input[px(y, x) + ch]);
                        m = m.max(v);
                        s += v;
                    }
                }
                let v = if self.max {
                    m
                } else if count == 0 {
                    0
                } else if s > 0 {
                    (s + count / 2) / count
                } else {
                    (s - count / 2) / count
                };
                output[out_at + ch] = v.clamp(i32::from(self.act.0), i32::from(self.act.1)) as i8;
            }
        });
    }
}

/// The reference's rounded average of four `i32x4` sums over `count` pixels, narrowed to
/// sixteen int8 (saturating; the caller clamps).
#[inline(always)]
fn average16(s: [V128; 4], count: i32) -> V128 {
    if count == 0 {
        return V128::zero();
    }
    let half = V128::splat_i32(count / 2);
    let neg_half = V128::splat_i32(-(count / 2));
    let n = V128::splat_f64(f64::from(count));
    let q = s.map(|v| {
        let adj = half.bitselect(neg_half, v.i32x4_gt(V128::zero()));
        let t = v.i32x4_add(adj);
        let lo = t
            .f64x2_convert_low_i32x4()
            .f64x2_div(n)
            .f64x2_trunc()
            .i32x4_trunc_sat_f64x2_zero();
        let hi = t
            .high_i64s(t)
            .f64x2_convert_low_i32x4()
            .f64x2_div(n)
            .f64x2_trunc()
            .i32x4_trunc_sat_f64x2_zero();
        lo.low_i32_pairs(hi)
    });
    q[0].i16x8_narrow_i32x4(q[1])
        .i8x16_narrow_i16x8(q[2].i16x8_narrow_i32x4(q[3]))
}
