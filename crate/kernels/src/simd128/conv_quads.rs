//! The int8 quads packing of [`super::conv_int::Conv2dInt8`] (relaxed-SIMD builds): the
//! reduction axis in groups of four int8 values for `i32x4.relaxed_dot_i8x16_i7x16_add_s`, fed
//! as the probed [`DotScheme`] allows. Weights are packed at prepare time as one vector per
//! channel per four taps (two under [`DotScheme::Split`]: the weight's 7-bit halves), each the
//! channel's four bytes broadcast; the input per chunk of pixels as vectors of four pixels × four
//! taps (sign bits flipped under [`DotScheme::Unsigned`]). The micro-kernels compute 8 pixels ×
//! 4 channels, each accumulator four pixels of one channel, like the int16 pairs' kernel, so the
//! requantization and the store are shared.

use super::dot_scheme::DotScheme;
use super::v128::V128;

/// `k` rounded up to a multiple of 16.
pub(super) fn k_padded16(k: usize) -> usize {
    k.div_ceil(16) * 16
}

/// Vectors per channel per four taps in the quads packing: two halves under [`DotScheme::Split`].
pub(super) fn quad_vectors(scheme: DotScheme) -> usize {
    if scheme == DotScheme::Split { 2 } else { 1 }
}

/// Weights `[oc, k]` as the quads packing for `scheme`.
pub(super) fn pack_weights_quads(
    weights: &[i8],
    oc: usize,
    k: usize,
    scheme: DotScheme,
) -> Vec<[i8; 16]> {
    let k4 = k_padded16(k) / 4;
    let per = quad_vectors(scheme);
    let blocks = oc.div_ceil(4);
    let mut packed = vec![[0i8; 16]; blocks * k4 * 4 * per];
    for c in 0..oc {
        for (i, &w) in weights[c * k..(c + 1) * k].iter().enumerate() {
            let at = (((c / 4) * k4 + i / 4) * 4 + c % 4) * per;
            let halves = if scheme == DotScheme::Split {
                [w.max(0), w.saturating_neg().max(0)]
            } else {
                [w, 0]
            };
            for (h, &v) in halves.iter().enumerate().take(per) {
                for r in 0..4 {
                    packed[at + h][r * 4 + i % 4] = v;
                }
            }
        }
    }
    packed
}

/// `conv_int`'s `pack_rows` for the quads packing: four rows of `k` int8 values into `k16 / 4` vectors of
/// four rows × four values (16 values of each row at a time, transposed as 4×4 blocks of
/// 32-bit groups; a shorter tail value by value). With `flip` every value's sign bit is flipped
/// (`x + 128` read unsigned, [`DotScheme::Unsigned`]).
pub(super) fn pack_rows_quads(rows: [&[i8]; 4], k: usize, dst: &mut [[i8; 16]], flip: bool) {
    let flip_v = V128::splat_i8(if flip { i8::MIN } else { 0 });
    let flip_b = if flip { i8::MIN } else { 0 };
    let full = if rows.iter().all(|r| r.len() == k) {
        k / 16
    } else {
        0
    };
    for j in 0..full {
        let r = rows.map(|row| {
            let (chunks, _) = row.as_chunks::<16>();
            V128::load_i8(&chunks[j]).xor(flip_v)
        });
        for (t, d) in V128::transpose_4x4_i32(r)
            .iter()
            .zip(&mut dst[4 * j..4 * j + 4])
        {
            t.store_i8(d);
        }
    }
    if full * 16 < k || rows.iter().any(|r| r.len() != k) {
        for d in &mut dst[4 * full..] {
            *d = [0; 16];
        }
        for (p, row) in rows.iter().enumerate() {
            for (i, &v) in row.iter().enumerate().skip(full * 16) {
                dst[i / 4][p * 4 + i % 4] = v ^ flip_b;
            }
        }
    }
}

/// The 8-pixel × 4-channel micro-kernel over packed quads (see the quads packing).
#[inline(always)]
pub(super) fn tile_8x4_quads(
    xa: &[[i8; 16]],
    xb: &[[i8; 16]],
    w: &[[i8; 16]],
    init: V128,
) -> [[V128; 4]; 2] {
    let init = init.splat_lanes_i32();
    let mut out = [[V128::zero(); 4]; 2];
    for half in 0..2 {
        // [pixels 0..4 · channel a, pixels 0..4 · b, pixels 4..8 · a, pixels 4..8 · b]
        let mut pos = [V128::zero(); 4];
        let mut neg = [V128::zero(); 4];
        for ((xa, xb), w) in xa.iter().zip(xb).zip(w.chunks_exact(8)) {
            let (xa, xb) = (V128::load_i8(xa), V128::load_i8(xb));
            let w = &w[half * 4..half * 4 + 4];
            let (pa, na) = (V128::load_i8(&w[0]), V128::load_i8(&w[1]));
            let (pb, nb) = (V128::load_i8(&w[2]), V128::load_i8(&w[3]));
            pos[0] = xa.relaxed_dot_i8x16_i7x16_add(pa, pos[0], false);
            neg[0] = xa.relaxed_dot_i8x16_i7x16_add(na, neg[0], false);
            pos[1] = xa.relaxed_dot_i8x16_i7x16_add(pb, pos[1], false);
            neg[1] = xa.relaxed_dot_i8x16_i7x16_add(nb, neg[1], false);
            pos[2] = xb.relaxed_dot_i8x16_i7x16_add(pa, pos[2], false);
            neg[2] = xb.relaxed_dot_i8x16_i7x16_add(na, neg[2], false);
            pos[3] = xb.relaxed_dot_i8x16_i7x16_add(pb, pos[3], false);
            neg[3] = xb.relaxed_dot_i8x16_i7x16_add(nb, neg[3], false);
        }
        for j in 0..2 {
            let c = 2 * half + j;
            out[0][c] = init[c].i32x4_add(pos[j]).i32x4_sub(neg[j]);
            out[1][c] = init[c].i32x4_add(pos[2 + j]).i32x4_sub(neg[2 + j]);
        }
    }
    out
}

/// The 8-pixel × 4-channel micro-kernel of the one-dot schemes ([`DotScheme::Unsigned`] when
/// `UNSIGNED`, else [`DotScheme::Signed`]): per four taps two input vectors (four pixels × four
/// taps each), four weight vectors (one channel's taps broadcast), eight dot products with the
/// weights as the signed operand.
#[inline(always)]
pub(super) fn tile_8x4_dot<const UNSIGNED: bool>(
    xa: &[[i8; 16]],
    xb: &[[i8; 16]],
    w: &[[i8; 16]],
    init: V128,
) -> [[V128; 4]; 2] {
    let mut a = init.splat_lanes_i32();
    let mut b = a;
    for ((xa, xb), w) in xa.iter().zip(xb).zip(w.chunks_exact(4)) {
        let (xa, xb) = (V128::load_i8(xa), V128::load_i8(xb));
        for c in 0..4 {
            let wc = V128::load_i8(&w[c]);
            a[c] = wc.relaxed_dot_i8x16_i7x16_add(xa, a[c], UNSIGNED);
            b[c] = wc.relaxed_dot_i8x16_i7x16_add(xb, b[c], UNSIGNED);
        }
    }
    [a, b]
}
