//! The channel-major int8 GEMM of [`super::conv_int::Conv2dInt8`] for the one-dot relaxed
//! schemes ([`DotScheme::Unsigned`], [`DotScheme::Signed`]), laid out as XNNPACK's `c4` GEMMs
//! are: each accumulator holds four *channels* of one pixel, so a pixel's 16 channels leave the
//! tile as one 16-byte store, with no transpose.
//!
//! **Layout.** Weights are packed at prepare time as `[oc / 16][k16 / 4][4]` vectors: vector `v`
//! of a group holds channels `4v..4v + 4` of the block × four taps (byte `4i + j` is channel
//! `4v + i`, tap `4g + j`). The input is one row of `k16` bytes per output pixel (an im2col row,
//! or a 1×1 filter's input pixel copied; padded with zeros, sign bits flipped under
//! `Unsigned`). The micro-kernel computes [`MR`] pixels × 16 channels: per four taps, four weight
//! vectors and, per pixel, its four bytes broadcast (`v128.load32_splat`), `4 · MR` dot products.
//!
//! **Requantization** is XNNPACK's `f32` form ([`Fp32Clamp::apply`]) with a vector of four
//! channels' scales; the int8 narrowing and clamp are the other tiles'. So this GEMM runs under
//! XNNPACK's arithmetic only, and only for a multiple of 16 output channels: LiteRT's double
//! rounding per lane ([`super::requant::LaneRequant`], ~18 operations per vector against ~13 for
//! a channel's broadcast constants) made the reference arithmetic slower with it (224 net 1.04×,
//! α 0.35 net 1.16× in Chromium), and 16-channel blocks over 8 or 24 channels waste a third or
//! half of the dot products; there the pixel-major tiles stay.

use super::requant::{ChannelRq, Fp32Clamp};
use super::v128::V128;

/// Channels per tile (and per weight block).
pub(super) const NR: usize = 16;
/// Pixels per tile.
pub(super) const MR: usize = 4;

/// Weights `[oc, k]` packed as `[oc / 16][k16 / 4]` groups of four vectors of four channels ×
/// four taps, zero-padded past `k` (`k16` is `k` rounded up to 16; `oc` a multiple of 16).
pub(super) fn pack_weights_c4(
    weights: &[i8],
    oc: usize,
    k: usize,
    k16: usize,
) -> Vec<[[i8; 16]; 4]> {
    let groups = k16 / 4;
    let mut packed = vec![[[0i8; 16]; 4]; oc.div_ceil(NR) * groups];
    for c in 0..oc {
        for (t, &w) in weights[c * k..(c + 1) * k].iter().enumerate() {
            let (b, v, i) = (c / NR, (c % NR) / 4, c % 4);
            packed[b * groups + t / 4][v][4 * i + t % 4] = w;
        }
    }
    packed
}

/// XNNPACK's `f32` scales of four channels per entry.
#[derive(Debug, Clone)]
pub(super) struct LaneScales(Vec<[f32; 4]>);

impl LaneScales {
    /// The scales of `rq` (one per channel, a multiple of 16 of them), or `None` unless every
    /// channel requantizes in `f32` ([`ChannelRq::Fp32`]).
    pub(super) fn new(rq: &[ChannelRq]) -> Option<Self> {
        let (fours, _) = rq.as_chunks::<4>();
        fours
            .iter()
            .map(|four| {
                let mut s = [0f32; 4];
                for (s, c) in s.iter_mut().zip(four) {
                    let ChannelRq::Fp32(x) = c else { return None };
                    *s = *x;
                }
                Some(s)
            })
            .collect::<Option<_>>()
            .map(LaneScales)
    }
}

/// The `MR`-pixel × 16-channel micro-kernel: `rows` are the pixels' packed rows (`k16` bytes,
/// as `k16 / 4` groups), `w` the block's packed weights, `init` its folded bias (four channels
/// per vector). Returns, per pixel, four vectors of four channels.
#[inline(always)]
pub(super) fn tile_c4<const UNSIGNED: bool>(
    rows: [&[[i8; 4]]; MR],
    w: &[[[i8; 16]; 4]],
    init: [V128; 4],
) -> [[V128; 4]; MR] {
    let n = w.len();
    let rows = rows.map(|r| &r[..n]);
    let mut acc = [init; MR];
    for (g, wg) in w.iter().enumerate() {
        let wv = [0, 1, 2, 3].map(|v| V128::load_i8(&wg[v]));
        for (p, acc) in acc.iter_mut().enumerate() {
            let x = V128::splat_i32(i32::from_le_bytes(rows[p][g].map(|b| b as u8)));
            for v in 0..4 {
                acc[v] = wv[v].relaxed_dot_i8x16_i7x16_add(x, acc[v], UNSIGNED);
            }
        }
    }
    acc
}

/// What [`store_pixels`] needs besides the tile: the requantization and the output clamp.
#[derive(Clone, Copy)]
pub(super) struct Output<'a> {
    /// The kernel's per-lane scales.
    pub scales: &'a LaneScales,
    /// XNNPACK's clamp constants.
    pub clamp: Fp32Clamp,
    /// The activation range, every byte.
    pub lo: V128,
    /// See `lo`.
    pub hi: V128,
    /// Output channels.
    pub out_c: usize,
}

/// Requantizes the tile `acc` of block `block` (channels `16 · block ..`) and stores its first
/// `n_pixels` pixels from `first_pixel` on into `out` (NHWC rows of `out_c`, a multiple of 16):
/// 16 bytes per pixel.
#[inline(always)]
pub(super) fn store_pixels(
    acc: [[V128; 4]; MR],
    o: &Output<'_>,
    block: usize,
    out: &mut [i8],
    first_pixel: usize,
    n_pixels: usize,
) {
    let c0 = block * NR;
    let g = block * (NR / 4);
    for (p, acc) in acc.iter().enumerate().take(n_pixels) {
        let v = [0, 1, 2, 3].map(|j| o.clamp.apply(acc[j], V128::load_f32(&o.scales.0[g + j])));
        let bytes = v[0]
            .i16x8_narrow_i32x4(v[1])
            .i8x16_narrow_i16x8(v[2].i16x8_narrow_i32x4(v[3]))
            .i8x16_max(o.lo)
            .i8x16_min(o.hi);
        let at = (first_pixel + p) * o.out_c + c0;
        if let Some(d) = out[at..].first_chunk_mut::<NR>() {
            bytes.store_i8(d);
        }
    }
}

/// Flips the sign bit of every byte of `row` (its length a multiple of 16): `x + 128` read
/// unsigned, as [`DotScheme::Unsigned`](super::dot_scheme::DotScheme::Unsigned) feeds the dot
/// product.
#[inline(always)]
pub(super) fn flip_row(row: &mut [i8]) {
    let m = V128::splat_i8(i8::MIN);
    let (chunks, _) = row.as_chunks_mut::<16>();
    for c in chunks {
        V128::load_i8(c).xor(m).store_i8(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_pack_as_four_channels_by_four_taps() {
        // 18 channels × 5 taps: w[c][t] = c · 8 + t (distinct, fit in i8).
        let (oc, k) = (18usize, 5usize);
        let w: Vec<i8> = (0..oc * k).map(|i| ((i / k) * 8 + i % k) as i8).collect();
        let packed = pack_weights_c4(&w, oc, k, 16);
        assert_eq!(packed.len(), 2 * 4);
        // Group block · groups + group, vector v. Block 0, group 1 (taps 4..8), vector 2
        // (channels 8..12): byte 4i + j = w[8 + i][4 + j].
        let at = |block: usize, group: usize, v: usize| packed[block * 4 + group][v];
        let v = at(0, 1, 2);
        for i in 0..4 {
            assert_eq!(v[4 * i], ((8 + i) * 8 + 4) as i8);
            assert_eq!(&v[4 * i + 1..4 * i + 4], &[0, 0, 0], "taps past k are zero");
        }
        // Block 1 holds channels 16, 17 and zeros.
        let v = at(1, 0, 0);
        assert_eq!(
            &v[..4],
            &[
                (16 * 8) as i8,
                (16 * 8 + 1) as i8,
                (16 * 8 + 2) as i8,
                (16 * 8 + 3) as i8
            ]
        );
        assert_eq!(v[8..], [0; 8]);
    }
}
