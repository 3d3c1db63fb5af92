//! int8 RESIZE_BILINEAR in `i32` lanes, bit-identical to LiteRT's reference arithmetic
//! ([`reference::resize::resize_bilinear_i8`](crate::reference::resize::resize_bilinear_i8)) or
//! to XNNPACK's ([`crate::xnnpack::resize::resize_bilinear`]).
//!
//! Both blend the four neighbours with integer weights and round once. Per axis an output index
//! has two source indices and two weights `(w0, w1)`: LiteRT's `(2^10 − d, d)` with `d` the
//! 10-bit fraction of the source coordinate (negative at the first half-pixel row / column,
//! where both neighbours are the same pixel), XNNPACK's `(2^11 − α, α)` with its Q11 weight.
//! The exact sum `Σ = wy0 · (wx0 · tl + wx1 · tr) + wy1 · (wx0 · bl + wx1 · br)` is the same
//! integer as LiteRT's four 64-bit products and as XNNPACK's `(t << 11) + (b − t) · αy` with
//! `t = (tl << 11) + (tr − tl) · αx`: only the order of exact integer operations differs. The
//! constructor proves `|Σ| + 2^21 < 2^31` from the tables (`(max |wy0| + |wy1|) · (max |wx0| +
//! |wx1|) · 128`), so every partial sum fits `i32` and the lanes compute `Σ` exactly. Rounding:
//! LiteRT divides `Σ ± 2^19` by `2^20` truncating (half away from zero), which is
//! `(Σ + 2^19 + (Σ >> 31)) >> 20` with an arithmetic shift; XNNPACK takes `(Σ + 2^21) >> 22`.
//! Then both saturate to int8.
//!
//! Lanes are eight channels (`i16x8.load8x8_s`, weights as `i16`, `i32x4.extmul` for the
//! horizontal blend, `i32x4.mul` for the vertical one); channels past the last multiple of 8 run
//! the same integer formula one by one.

use super::v128::V128;
use crate::PackedKernel;
use crate::reference::resize::{ResizeParams, axis_scale_10, interpolation_10};
use crate::xnnpack;

/// One output row or column: the two source indices and their weights.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tap {
    i0: usize,
    i1: usize,
    w0: i32,
    w1: i32,
}

/// A prepared int8 bilinear resize: the row and column tables and the rounding.
#[derive(Debug, Clone)]
pub struct ResizeBilinearInt8 {
    p: ResizeParams,
    ys: Vec<Tap>,
    xs: Vec<Tap>,
    /// The right shift that divides the blended sum (20: LiteRT, 22: XNNPACK).
    shift: u32,
    /// Round half away from zero (LiteRT) rather than half up (XNNPACK).
    away: bool,
}

/// LiteRT's 10-bit taps of one axis (`ResizeBilinearInteger`'s `ComputeInterpolationValues`).
fn litert_axis(out: usize, input: usize, p: &ResizeParams) -> Option<Vec<Tap>> {
    let (i, o) = (i64::try_from(input).ok()?, i64::try_from(out).ok()?);
    let scale = axis_scale_10(i, o, p.align_corners);
    (0..o)
        .map(|v| {
            let (scaled, lower, upper) = interpolation_10(v, scale, p.half_pixel_centers, i);
            let d = i32::try_from(scaled - (1 << 10) * lower).ok()?;
            Some(Tap {
                i0: usize::try_from(lower).ok()?,
                i1: usize::try_from(upper).ok()?,
                w0: (1 << 10) - d,
                w1: d,
            })
        })
        .collect()
}

/// XNNPACK's Q11 taps (its indirection tables) as weight pairs.
fn xnnpack_axis(taps: &[xnnpack::resize::Tap]) -> Vec<Tap> {
    taps.iter()
        .map(|&(i0, i1, a)| Tap {
            i0,
            i1,
            w0: (1 << 11) - a,
            w1: a,
        })
        .collect()
}

impl ResizeBilinearInt8 {
    /// LiteRT's reference arithmetic for `p`, which must pass
    /// [`resize_bilinear_int_supported`](crate::reference::resize::resize_bilinear_int_supported).
    /// `None` when a table leaves the bounds the lanes need.
    pub fn litert(p: &ResizeParams) -> Option<Self> {
        let ys = litert_axis(p.out_h, p.in_h, p)?;
        let xs = litert_axis(p.out_w, p.in_w, p)?;
        Self::checked(p, ys, xs, 20, true)
    }

    /// XNNPACK's arithmetic, from the tables of `r`. `None` when a table leaves the bounds the
    /// lanes need.
    pub fn xnnpack(r: &xnnpack::resize::ResizeBilinear) -> Option<Self> {
        let (ys, xs) = r.taps();
        Self::checked(&r.p, xnnpack_axis(ys), xnnpack_axis(xs), 22, false)
    }

    /// The kernel when every index is inside the input, every weight fits `i16` and every sum
    /// fits `i32` with the rounding term (see the module notes).
    fn checked(
        p: &ResizeParams,
        ys: Vec<Tap>,
        xs: Vec<Tap>,
        shift: u32,
        away: bool,
    ) -> Option<Self> {
        let fits16 = |w: i32| i16::try_from(w).is_ok();
        let axis_ok = |taps: &[Tap], size: usize| {
            taps.iter()
                .all(|t| t.i0 < size && t.i1 < size && fits16(t.w0) && fits16(t.w1))
        };
        let spread = |taps: &[Tap]| {
            taps.iter()
                .map(|t| i64::from(t.w0.abs()) + i64::from(t.w1.abs()))
                .max()
                .unwrap_or(0)
        };
        let bound = spread(&ys) * spread(&xs) * 128 + (1 << (shift - 1)) + 1;
        (axis_ok(&ys, p.in_h) && axis_ok(&xs, p.in_w) && bound < 1 << 31).then_some(Self {
            p: *p,
            ys,
            xs,
            shift,
            away,
        })
    }

    /// The rounded, saturated quotient of one exact sum (the lanes' rule, one channel).
    fn round(&self, sum: i32) -> i8 {
        let floor = if self.away { sum >> 31 } else { 0 };
        ((sum + (1 << (self.shift - 1)) + floor) >> self.shift).clamp(-128, 127) as i8
    }
}

impl PackedKernel for ResizeBilinearInt8 {
    type Elem = i8;
    type Scratch = ();

    /// Resizes an NHWC int8 tensor of the prepared shape.
    fn run(&self, input: &[i8], output: &mut [i8], _: &mut ()) {
        let p = &self.p;
        let c = p.channels;
        let full = c / 8 * 8;
        let half = V128::splat_i32(1 << (self.shift - 1));
        let mut out = output.chunks_exact_mut(c.max(1));
        for b in 0..p.batches {
            let px = |y: usize, x: usize| ((b * p.in_h + y) * p.in_w + x) * c;
            for ty in &self.ys {
                let (wy0, wy1) = (V128::splat_i32(ty.w0), V128::splat_i32(ty.w1));
                for tx in &self.xs {
                    let Some(o) = out.next() else { return };
                    let (tl, tr) = (px(ty.i0, tx.i0), px(ty.i0, tx.i1));
                    let (bl, br) = (px(ty.i1, tx.i0), px(ty.i1, tx.i1));
                    let (wx0, wx1) = (V128::splat_i16(tx.w0 as i16), V128::splat_i16(tx.w1 as i16));
                    let load =
                        |at: usize| input[at..].first_chunk::<8>().map(V128::load_extend_i8x8);
                    for k in (0..full).step_by(8) {
                        let (Some(a), Some(bb), Some(cc), Some(d)) =
                            (load(tl + k), load(tr + k), load(bl + k), load(br + k))
                        else {
                            return;
                        };
                        let blend = |top: V128, bottom: V128| {
                            let s = top.i32x4_mul(wy0).i32x4_add(bottom.i32x4_mul(wy1));
                            let floor = if self.away {
                                s.i32x4_shr(31)
                            } else {
                                V128::zero()
                            };
                            s.i32x4_add(half).i32x4_add(floor).i32x4_shr(self.shift)
                        };
                        let lo = blend(
                            a.i32x4_extmul_low_i16x8(wx0)
                                .i32x4_add(bb.i32x4_extmul_low_i16x8(wx1)),
                            cc.i32x4_extmul_low_i16x8(wx0)
                                .i32x4_add(d.i32x4_extmul_low_i16x8(wx1)),
                        );
                        let hi = blend(
                            a.i32x4_extmul_high_i16x8(wx0)
                                .i32x4_add(bb.i32x4_extmul_high_i16x8(wx1)),
                            cc.i32x4_extmul_high_i16x8(wx0)
                                .i32x4_add(d.i32x4_extmul_high_i16x8(wx1)),
                        );
                        let q = lo.i16x8_narrow_i32x4(hi);
                        if let Some(dst) = o[k..].first_chunk_mut::<8>() {
                            q.i8x16_narrow_i16x8(q).store_low_i8x8(dst);
                        }
                    }
                    for k in full..c {
                        let v = |at: usize| i32::from(input[at + k]);
                        let top = tx.w0 * v(tl) + tx.w1 * v(tr);
                        let bottom = tx.w0 * v(bl) + tx.w1 * v(br);
                        o[k] = self.round(ty.w0 * top + ty.w1 * bottom);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::resize::{resize_bilinear_i8, resize_bilinear_int_supported};

    /// Both arithmetics on one geometry and input: the lanes equal the scalar kernels.
    fn check(p: &ResizeParams, input: &[i8]) {
        let n = p.batches * p.out_h * p.out_w * p.channels;
        let (mut want, mut got) = (vec![0i8; n], vec![0i8; n]);
        if resize_bilinear_int_supported(p) {
            resize_bilinear_i8(p, input, &mut want);
            ResizeBilinearInt8::litert(p)
                .expect("a supported geometry prepares")
                .run(input, &mut got, &mut ());
            assert_eq!(got, want, "litert {p:?}");
        }
        let x = xnnpack::resize::ResizeBilinear::new(*p);
        xnnpack::resize::resize_bilinear(&x, input, &mut want);
        got.fill(0);
        ResizeBilinearInt8::xnnpack(&x)
            .expect("XNNPACK's tables prepare")
            .run(input, &mut got, &mut ());
        assert_eq!(got, want, "xnnpack {p:?}");
    }

    /// `rule` 0: legacy coordinates, 1: align_corners, 2: half_pixel_centers.
    fn params(
        (batches, in_h, in_w, channels): (usize, usize, usize, usize),
        (out_h, out_w): (usize, usize),
        rule: u8,
    ) -> ResizeParams {
        ResizeParams {
            batches,
            in_h,
            in_w,
            channels,
            out_h,
            out_w,
            align_corners: rule == 1,
            half_pixel_centers: rule == 2,
        }
    }

    /// A random geometry and its input over the whole int8 range, from `seed`.
    fn check_seeded(dims: (usize, usize, usize, usize), out: (usize, usize), rule: u8, seed: u64) {
        let p = params(dims, out, rule);
        let mut rng = fastrand::Rng::with_seed(seed);
        let input: Vec<i8> = (0..p.batches * p.in_h * p.in_w * p.channels)
            .map(|_| rng.i8(..))
            .collect();
        check(&p, &input);
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn extremes_round_like_the_scalar_kernels_at_every_rule() {
        // All −128 / all 127 / alternating: the sums at the ends of the range, where a wrong
        // rounding or a lost sign shows; 20 channels = two lane groups and four scalar ones.
        for rule in 0..3 {
            for (ih, iw, oh, ow) in [(4, 5, 8, 10), (5, 3, 2, 7), (1, 1, 3, 3), (3, 4, 3, 4)] {
                let p = params((2, ih, iw, 20), (oh, ow), rule);
                let len = 2 * ih * iw * 20;
                for input in [
                    vec![-128i8; len],
                    vec![127i8; len],
                    (0..len)
                        .map(|i| if i % 3 == 0 { 127 } else { -128 })
                        .collect(),
                ] {
                    check(&p, &input);
                }
            }
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn seeded_random_geometries_match_the_scalar_kernels() {
        // The wasm side's stand-in for the proptest below (the real intrinsics there).
        let mut rng = fastrand::Rng::with_seed(0x5e512e);
        for _ in 0..300 {
            let dims = (
                rng.usize(1..=2),
                rng.usize(1..=9),
                rng.usize(1..=9),
                rng.usize(1..=27),
            );
            let out = (rng.usize(1..=19), rng.usize(1..=19));
            check_seeded(dims, out, rng.u8(0..3), rng.u64(..));
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn refuses_tables_whose_sums_could_leave_i32() {
        // XNNPACK's weights sum to 2^11 per axis (2^29 with int8 values): fits. LiteRT's
        // half-pixel tables reach 1536 + 512 per axis at most: 2^22 · 128 = 2^29, fits too. A
        // hand-made table with a wider spread must be refused, not wrapped.
        let p = params((1, 2, 2, 8), (2, 2), 0);
        let tap = |i1: usize, w0: i32, w1: i32| vec![Tap { i0: 0, i1, w0, w1 }; 2];
        assert!(
            ResizeBilinearInt8::checked(&p, tap(1, 30000, -20000), tap(1, 1024, 0), 20, true)
                .is_none()
        );
        assert!(
            ResizeBilinearInt8::checked(&p, tap(2, 1024, 0), tap(1, 1024, 0), 20, true).is_none()
        );
        assert!(
            ResizeBilinearInt8::checked(&p, tap(1, 1024, 0), tap(1, 1024, 0), 20, true).is_some()
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod props {
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            #[test]
            fn resize_bilinear_int8_fast_equals_reference(
                dims in (1usize..=2, 1usize..=9, 1usize..=9, 1usize..=27),
                out in (1usize..=19, 1usize..=19),
                rule in 0u8..3,
                seed in any::<u64>(),
            ) {
                super::check_seeded(dims, out, rule, seed);
            }
        }
    }
}
