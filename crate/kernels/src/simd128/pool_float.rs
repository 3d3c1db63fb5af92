//! float32 MAX_POOL_2D and AVERAGE_POOL_2D, bit-identical to
//! [`reference::pool::max_pool`](crate::reference::pool::max_pool) and
//! [`reference::pool::average_pool`](crate::reference::pool::average_pool).
//!
//! Lanes are four channels; each lane does what the reference does for its channel, in the same
//! order. MAX starts from `f32::MIN` and takes `f32x4.pmax(m, v)`, which is `m < v ? v : m` —
//! the reference's `std::max` (a NaN input is skipped, −0.0 does not replace +0.0). AVERAGE adds
//! the window's in-bounds pixels row by row in `f32` and divides by their count (`f32x4.div`,
//! correctly rounded like the scalar division; 0 for an empty window). Both end with the fused
//! clamp as `ActivationRange::apply`. Channels past the last multiple of 4 run the reference's
//! scalar arithmetic.

use super::conv_float::clamp;
use super::v128::V128;
use crate::PackedKernel;
use crate::reference::pool::{PoolParams, for_each_window};

/// A prepared float32 pooling.
#[derive(Debug, Clone)]
pub struct PoolF32 {
    p: PoolParams,
    max: bool,
}

impl PoolF32 {
    /// MAX_POOL_2D (`max`) or AVERAGE_POOL_2D over `p`.
    pub fn new(p: &PoolParams, max: bool) -> Self {
        PoolF32 { p: *p, max }
    }
}

impl PackedKernel for PoolF32 {
    type Elem = f32;
    type Scratch = ();

    /// Runs the pooling over NHWC float32 tensors of the prepared shapes.
    fn run(&self, input: &[f32], output: &mut [f32], _: &mut ()) {
        let p = &self.p;
        let c = p.channels;
        let full = c / 4 * 4;
        let (lo, hi) = (V128::splat_f32(p.act.min), V128::splat_f32(p.act.max));
        for_each_window(p, |b, y0, y1, x0, x1, out_at| {
            let count = y1.saturating_sub(y0) * x1.saturating_sub(x0);
            let px = |y: usize, x: usize| ((b * p.in_h + y) * p.in_w + x) * c;
            let n = V128::splat_f32(count as f32);
            for c0 in (0..full).step_by(4) {
                let mut acc = V128::splat_f32(if self.max { f32::MIN } else { 0.0 });
                for y in y0..y1 {
                    for x in x0..x1 {
                        if let Some(a) = input[px(y, x) + c0..].first_chunk::<4>() {
                            let v = V128::load_f32(a);
                            acc = if self.max {
                                acc.f32x4_pmax(v)
                            } else {
                                acc.f32x4_add(v)
                            };
                        }
                    }
                }
                if !self.max {
                    acc = if count == 0 {
                        V128::zero()
                    } else {
                        acc.f32x4_div(n)
                    };
                }
                if let Some(o) = output[out_at + c0..].first_chunk_mut::<4>() {
                    clamp(acc, lo, hi).store_f32(o);
                }
            }
            for ch in full..c {
                let mut acc = if self.max { f32::MIN } else { 0.0 };
                for y in y0..y1 {
                    for x in x0..x1 {
                        let v = input[px(y, x) + ch];
                        if !self.max {
                            acc += v;
                        } else if acc < v {
                            acc = v;
                        }
                    }
                }
                if !self.max {
                    acc = if count == 0 { 0.0 } else { acc / count as f32 };
                }
                output[out_at + ch] = p.act.apply(acc);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ActivationRange;
    use crate::reference::pool::{average_pool, max_pool};
    use crate::simd128::elementwise_float::tests::value;
    use crate::simd128::tests::bits;

    /// A random geometry (padding up to the window, sometimes past it: empty windows), input
    /// and clamp from `rng`.
    fn params(rng: &mut fastrand::Rng) -> PoolParams {
        let (filter_h, filter_w) = (rng.usize(1..=4), rng.usize(1..=4));
        let acts = [
            ActivationRange::NONE,
            ActivationRange::RELU,
            ActivationRange::RELU6,
            ActivationRange::RELU_N1_TO_1,
            ActivationRange::UNBOUNDED,
        ];
        PoolParams {
            batches: rng.usize(1..=2),
            in_h: rng.usize(1..=7),
            in_w: rng.usize(1..=7),
            channels: rng.usize(1..=13),
            out_h: rng.usize(1..=6),
            out_w: rng.usize(1..=6),
            filter_h,
            filter_w,
            stride_h: rng.usize(1..=3),
            stride_w: rng.usize(1..=3),
            pad_top: rng.usize(0..=filter_h),
            pad_left: rng.usize(0..=filter_w),
            act: acts[rng.usize(..acts.len())],
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn seeded_random_pools_match_the_reference_bit_for_bit() {
        let mut rng = fastrand::Rng::with_seed(0x9001);
        for case in 0..400 {
            let p = params(&mut rng);
            let input: Vec<f32> = (0..p.batches * p.in_h * p.in_w * p.channels)
                .map(|_| value(&mut rng))
                .collect();
            let n = p.batches * p.out_h * p.out_w * p.channels;
            for max in [true, false] {
                let (mut want, mut got) = (vec![0f32; n], vec![1f32; n]);
                if max {
                    max_pool(&p, &input, &mut want);
                } else {
                    average_pool(&p, &input, &mut want);
                }
                PoolF32::new(&p, max).run(&input, &mut got, &mut ());
                assert_eq!(bits(&got), bits(&want), "case {case} max {max} {p:?}");
            }
        }
    }
}
