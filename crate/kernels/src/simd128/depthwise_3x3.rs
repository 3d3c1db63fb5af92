//! The 3×3, dilation 1, horizontal stride 1 or 2 case of
//! [`super::depthwise_int::DepthwiseInt8`] (every depthwise layer of MobileNet-style nets), same
//! bits as the other paths: the same exact `i32` sums (wrapping, so their order does not matter)
//! and the same requantization.
//!
//! **Sliding columns.** Along an output row, output column `x` reads input columns `s·x`,
//! `s·x + 1` and `s·x + 2` (`s` the horizontal stride), so each input column (three rows of
//! sixteen channels) is loaded and widened once and serves every output that reads it (three at
//! stride 1, one or two at stride 2), instead of once per output. A column is kept as rows 0 and 1
//! interleaved and widened to `i16` (four vectors of four channels × two taps, one
//! `i32x4.dot_i16x8_s` each per output: taps `(0, fx)` and `(1, fx)`), and row 2 as bytes; row 2
//! of the output's first two columns is interleaved for the tap pair `(2, 0)`, `(2, 1)` and the
//! ninth tap `(2, 2)` is widened alone and multiplied with `extmul`. That is the other 3×3 path's
//! sixteen `dot_i16x8` and four `extmul` per sixteen channels, with (at stride 1) three loads,
//! four shuffles and ten widenings per output instead of nine, eight and eighteen.
//!
//! The requantization constants are read in place (`&self.rq[..]`): copied into a local array,
//! LLVM scalarised them and rebuilt each constant vector lane by lane for every output, which
//! made the fixed-point requantization (four constant vectors per four channels) slower than the
//! pixel-by-pixel path's.
//!
//! The kernel steps sixteen channels at a time: its scratch image and weights are padded to a
//! multiple of 16 channels (zero point and zero weights; padded lanes are never stored).

use super::depthwise_int::DepthwiseInt8;
use super::v128::V128;

/// Packed weight vectors per sixteen channels: rows 0–1 pairs (3 columns × 4 lane groups), row 2
/// pair (4 lane groups), the ninth tap (2 halves).
pub(super) const VECTORS: usize = 18;

/// Packs the `[tap][c / 8]` int16 weights (`blocks` eight-channel blocks, an even number) into
/// [`VECTORS`] vectors per sixteen channels: for `fx` in 0..3 and lane group `j` in 0..4, taps
/// `(0, fx)` and `(1, fx)` of channels `16k + 4j ..+ 4` interleaved; for `j` in 0..4, taps
/// `(2, 0)` and `(2, 1)` interleaved; then tap `(2, 2)` of channels `16k ..+ 8` and `16k + 8 ..+ 8`.
pub(super) fn pack(weights: &[[i16; 8]], blocks: usize) -> Vec<[i16; 8]> {
    let w = |t: usize, c: usize| weights[t * blocks + c / 8][c % 8];
    let pair = |a: usize, b: usize, c0: usize| -> [i16; 8] {
        core::array::from_fn(|i| {
            let c = c0 + i / 2;
            if i % 2 == 0 { w(a, c) } else { w(b, c) }
        })
    };
    let mut out = Vec::with_capacity(blocks / 2 * VECTORS);
    for k in 0..blocks / 2 {
        let c0 = 16 * k;
        for fx in 0..3 {
            for j in 0..4 {
                out.push(pair(fx, 3 + fx, c0 + 4 * j));
            }
        }
        for j in 0..4 {
            out.push(pair(6, 7, c0 + 4 * j));
        }
        for h in 0..2 {
            out.push(core::array::from_fn(|i| w(8, c0 + 8 * h + i)));
        }
    }
    out
}

/// One input column of sixteen channels: rows 0 and 1 interleaved and widened (channel groups
/// 0..4, 4..8, 8..12, 12..16), row 2 as bytes.
#[derive(Clone, Copy)]
struct Column {
    top: [V128; 4],
    bottom: V128,
}

impl Column {
    /// The column whose row-0 bytes start at `at` (rows `row` bytes apart).
    #[inline(always)]
    fn load(image: &[i8], at: usize, row: usize) -> Self {
        let get = |o: usize| {
            image
                .get(o..)
                .and_then(|s| s.first_chunk::<16>())
                .map_or(V128::zero(), V128::load_i8)
        };
        let (r0, r1) = (get(at), get(at + row));
        let (l, h) = (r0.interleave_low_i8(r1), r0.interleave_high_i8(r1));
        Column {
            top: [
                l.i16x8_extend_low_i8x16(),
                l.i16x8_extend_high_i8x16(),
                h.i16x8_extend_low_i8x16(),
                h.i16x8_extend_high_i8x16(),
            ],
            bottom: get(at + 2 * row),
        }
    }
}

impl DepthwiseInt8 {
    /// 3×3, dilation 1, horizontal stride 1 or 2, over the padded scratch `image` (channel
    /// stride `cp`, a multiple of 16; `packed` from [`pack`]): per output row and sixteen
    /// channels, the input columns slide through a window of three.
    pub(super) fn run_sliding(&self, image: &[i8], packed: &[[i16; 8]], output: &mut [i8]) {
        let p = &self.p;
        let (cp, hp, wp) = (self.cp, self.hp, self.wp);
        let zp = V128::splat_i32(self.out_zp);
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let (row, stride) = (wp * cp, p.stride_w);
        for b in 0..p.batches {
            for oy in 0..p.out_h {
                let origin = (b * hp + oy * p.stride_h) * row;
                let out_row = (b * p.out_h + oy) * p.out_w * p.out_c;
                for k in 0..cp / 16 {
                    let c0 = 16 * k;
                    let Some(w) = packed[k * VECTORS..].first_chunk::<VECTORS>() else {
                        return;
                    };
                    let bias = [0, 1, 2, 3].map(|j| V128::load_i32(&self.bias[4 * k + j]));
                    let Some(rq) = self.rq[4 * k..].first_chunk::<4>() else {
                        return;
                    };
                    let n_c = (p.out_c - c0).min(16);
                    // Requantizes sixteen channels' accumulators and stores the valid ones at `at`.
                    let mut store = |acc: [V128; 4], at: usize| {
                        let v: [V128; 4] = core::array::from_fn(|j| {
                            rq[j].apply(acc[j], self.any_left, self.clamp, zp)
                        });
                        let bytes = v[0]
                            .i16x8_narrow_i32x4(v[1])
                            .i8x16_narrow_i16x8(v[2].i16x8_narrow_i32x4(v[3]))
                            .i8x16_max(lo)
                            .i8x16_min(hi);
                        if n_c == 16 {
                            if let Some(d) = output.get_mut(at..).and_then(|d| d.first_chunk_mut())
                            {
                                bytes.store_i8(d);
                            }
                        } else if let Some(d) = output.get_mut(at..at + n_c) {
                            d.copy_from_slice(&bytes.to_i8()[..n_c]);
                        }
                    };
                    let mut a = Column::load(image, origin + c0, row);
                    let mut next = Column::load(image, origin + cp + c0, row);
                    for ox in 0..p.out_w {
                        let x = ox * stride;
                        let m = if stride == 1 {
                            next
                        } else {
                            Column::load(image, origin + (x + 1) * cp + c0, row)
                        };
                        let z = Column::load(image, origin + (x + 2) * cp + c0, row);
                        let (l, h) = (
                            a.bottom.interleave_low_i8(m.bottom),
                            a.bottom.interleave_high_i8(m.bottom),
                        );
                        let bottom = [
                            l.i16x8_extend_low_i8x16(),
                            l.i16x8_extend_high_i8x16(),
                            h.i16x8_extend_low_i8x16(),
                            h.i16x8_extend_high_i8x16(),
                        ];
                        let (zl, zh) = (
                            z.bottom.i16x8_extend_low_i8x16(),
                            z.bottom.i16x8_extend_high_i8x16(),
                        );
                        let (w8l, w8h) = (V128::load_i16(&w[16]), V128::load_i16(&w[17]));
                        let ninth = [
                            zl.i32x4_extmul_low_i16x8(w8l),
                            zl.i32x4_extmul_high_i16x8(w8l),
                            zh.i32x4_extmul_low_i16x8(w8h),
                            zh.i32x4_extmul_high_i16x8(w8h),
                        ];
                        let acc: [V128; 4] = core::array::from_fn(|j| {
                            let dot = |x: V128, i: usize| x.i32x4_dot_i16x8(V128::load_i16(&w[i]));
                            bias[j]
                                .i32x4_add(dot(a.top[j], j))
                                .i32x4_add(dot(m.top[j], 4 + j))
                                .i32x4_add(dot(z.top[j], 8 + j))
                                .i32x4_add(dot(bottom[j], 12 + j))
                                .i32x4_add(ninth[j])
                        });
                        store(acc, out_row + ox * p.out_c + c0);
                        a = if stride == 1 { m } else { z };
                        next = z;
                    }
                }
            }
        }
    }
}
