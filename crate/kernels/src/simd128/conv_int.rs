//! int8 CONV_2D and FULLY_CONNECTED as packed GEMMs, bit-identical to
//! [`reference::conv_int::conv2d`](crate::reference::conv_int::conv2d) and
//! [`reference::fully_connected_int::fully_connected`](crate::reference::fully_connected_int::fully_connected)
//! (int8 activations, int32 accumulator).
//!
//! **Exactness.** The reference sums `w · (x + input_offset)` over the taps inside the image,
//! adds the bias, and requantizes; all integer sums wrap modulo 2^32, so any order gives the same
//! bits. Here `Σ w · x` is computed over *every* tap, with taps outside the image reading the
//! input zero point (so their `x + input_offset` is 0, as if skipped), and `input_offset · Σ w`
//! plus the bias is folded into one per-channel constant at prepare time. Products are exact in
//! `i32x4.dot_i16x8_s` (int8 values widened to int16), sums wrap like the reference's.
//! Requantization is [`super::requant`] (double rounding, CONV_2D) or the double-precision
//! rescale of FULLY_CONNECTED, lane for lane the reference's arithmetic.
//!
//! **Layout.** The reduction axis `k` (filter row, column, input channel — the reference's
//! filter layout) is padded to a multiple of 8 and taken in pairs. Weights are packed at
//! prepare time as `[oc / 4][k / 2]` vectors of four channels × one pair (int16); the input is
//! packed per chunk of pixels as `[pixel / 4][k / 2]` vectors of four pixels × one pair (an
//! im2col that widens to int16 and transposes 4×4 blocks of pairs). The micro-kernel computes 8
//! pixels × 4 channels: per pair, two input vectors, one weight vector whose four pairs are
//! broadcast, eight `dot_i16x8` — each accumulator holds four pixels of one channel, so the
//! channel's requantization constants are uniform across its lanes. The 4×4 tile of int8 results
//! is transposed back to NHWC with one byte shuffle.
//!
//! FULLY_CONNECTED (usually one row, [`super::fully_connected_int`]) runs the other way round:
//! lanes are four output units, the row's pair is broadcast.
//!
//! Scratch memory (packed input chunk, im2col rows) is allocated at prepare time.

use super::conv_c4::{self, LaneScales};
use super::conv_quads::{
    k_padded16, pack_rows_quads, pack_weights_quads, quad_vectors, tile_8x4_dot, tile_8x4_quads,
};
use super::dot_scheme::{self, DotScheme};
use super::requant::{ChannelRequant, ChannelRq, Fp32Clamp};
use super::v128::V128;
use crate::PackedKernel;
use crate::reference::conv::ConvParams;
use crate::reference::conv_int::RequantParams;

/// Pixels packed per chunk (a multiple of the 8-pixel tile).
const CHUNK: usize = 64;

/// `k` rounded up to a multiple of 8.
pub(super) fn k_padded(k: usize) -> usize {
    k.div_ceil(8) * 8
}

/// Weights `[oc, k]` packed as `[oc / 4][k8 / 2]` vectors (four channels × one pair, int16),
/// zero-padded in both directions.
pub(super) fn pack_weights(weights: &[i8], oc: usize, k: usize) -> Vec<[i16; 8]> {
    let kp = k_padded(k) / 2;
    let blocks = oc.div_ceil(4);
    let mut packed = vec![[0i16; 8]; blocks * kp];
    for c in 0..oc {
        let row = &weights[c * k..(c + 1) * k];
        for (i, &w) in row.iter().enumerate() {
            packed[(c / 4) * kp + i / 2][(c % 4) * 2 + i % 2] = i16::from(w);
        }
    }
    packed
}

/// `bias[c] + input_offset · Σ_k w[c][k]` (wrapping), padded to `blocks · 4`.
pub(super) fn folded_bias(
    weights: &[i8],
    bias: Option<&[i32]>,
    oc: usize,
    k: usize,
    offset: i32,
) -> Vec<i32> {
    let mut out = vec![0i32; oc.div_ceil(4) * 4];
    for (c, o) in out.iter_mut().enumerate().take(oc) {
        let sum = weights[c * k..(c + 1) * k]
            .iter()
            .fold(0i32, |s, &w| s.wrapping_add(i32::from(w)));
        let b = bias.map_or(0, |b| b[c]);
        *o = b.wrapping_add(offset.wrapping_mul(sum));
    }
    out
}

/// Packs four rows of `k` int8 values into `dst` (`k8 / 2` vectors of four rows × one pair):
/// 8 values of each row at a time are widened and transposed as 4×4 blocks of pairs; a tail
/// shorter than 8 is copied value by value (the rest stays zero).
fn pack_rows(rows: [&[i8]; 4], k: usize, dst: &mut [[i16; 8]]) {
    let full = k / 8;
    for j in 0..full {
        let r = rows.map(|row| {
            let (chunks, _) = row.as_chunks::<8>();
            V128::load_extend_i8x8(&chunks[j])
        });
        for (t, d) in V128::transpose_4x4_i32(r)
            .iter()
            .zip(&mut dst[4 * j..4 * j + 4])
        {
            t.store_i16(d);
        }
    }
    if full * 8 < k {
        for d in &mut dst[4 * full..] {
            *d = [0; 8];
        }
        for (p, row) in rows.iter().enumerate() {
            for i in full * 8..k {
                dst[i / 2][p * 2 + i % 2] = i16::from(row[i]);
            }
        }
    }
}

/// Requantizes an 8-pixel × 4-channel tile (`acc[h][j]`: pixels `4h..4h + 4` of channel `j`)
/// into two 4-pixel × 4-channel blocks of int8 results, each transposed to pixel-major order
/// (byte `4i + j` is pixel `i`, channel `j`). Each channel's constants are loaded once for
/// both halves. Under XNNPACK's arithmetic this is its whole requantization, fused into the
/// store: one multiply, the lower clamp, the magic-bias rounding with the zero point folded
/// in, then the narrowing and the int8 clamp every path shares.
#[inline(always)]
fn requant_tile(
    acc: [[V128; 4]; 2],
    rq: &[ChannelRq],
    clamp: Fp32Clamp,
    zp: V128,
    lo: V128,
    hi: V128,
) -> [V128; 2] {
    let mut v = [[V128::zero(); 4]; 2];
    for j in 0..4 {
        let [a, b] = match rq[j] {
            ChannelRq::Fixed(c) => c.apply2(acc[0][j], acc[1][j]).map(|x| x.i32x4_add(zp)),
            // The zero point is folded into the magic-bias subtraction.
            ChannelRq::Fp32(scale) => {
                let s = V128::splat_f32(scale);
                [clamp.apply(acc[0][j], s), clamp.apply(acc[1][j], s)]
            }
        };
        v[0][j] = a;
        v[1][j] = b;
    }
    v.map(|v| {
        v[0].i16x8_narrow_i32x4(v[1])
            .i8x16_narrow_i16x8(v[2].i16x8_narrow_i32x4(v[3]))
            .i8x16_max(lo)
            .i8x16_min(hi)
            .transpose_4x4_i8()
    })
}

/// Stores a transposed 4-pixel × 4-channel block of int8 results (see [`requant_tile`]): the
/// valid pixels' channels `c0..c0 + n_c` into `out` (NHWC rows of `out_c`).
#[inline(always)]
fn store_block(
    bytes: V128,
    out: &mut [i8],
    first_pixel: usize,
    n_pixels: usize,
    out_c: usize,
    c0: usize,
) {
    let n_c = (out_c - c0).min(4);
    if n_c == 4 && n_pixels >= 4 {
        let at = |i: usize| (first_pixel + i) * out_c + c0;
        if let Some(d) = out[at(0)..].first_chunk_mut::<4>() {
            bytes.store_lane_i8x4::<0>(d);
        }
        if let Some(d) = out[at(1)..].first_chunk_mut::<4>() {
            bytes.store_lane_i8x4::<1>(d);
        }
        if let Some(d) = out[at(2)..].first_chunk_mut::<4>() {
            bytes.store_lane_i8x4::<2>(d);
        }
        if let Some(d) = out[at(3)..].first_chunk_mut::<4>() {
            bytes.store_lane_i8x4::<3>(d);
        }
    } else {
        let b = bytes.to_i8();
        for i in 0..n_pixels.min(4) {
            let at = (first_pixel + i) * out_c + c0;
            out[at..at + n_c].copy_from_slice(&b[4 * i..4 * i + n_c]);
        }
    }
}

/// The 8-pixel × 4-channel micro-kernel over `kp` pairs: `xa`, `xb` are two packed 4-pixel
/// blocks, `w` one packed 4-channel block; accumulators start at `init`.
#[inline(always)]
fn tile_8x4(xa: &[[i16; 8]], xb: &[[i16; 8]], w: &[[i16; 8]], init: V128) -> [[V128; 4]; 2] {
    let mut a = init.splat_lanes_i32();
    let mut b = a;
    for ((xa, xb), w) in xa.iter().zip(xb).zip(w) {
        let (xa, xb, w) = (V128::load_i16(xa), V128::load_i16(xb), V128::load_i16(w));
        let [w0, w1, w2, w3] = w.splat_lanes_i32();
        a[0] = a[0].i32x4_add(xa.i32x4_dot_i16x8(w0));
        b[0] = b[0].i32x4_add(xb.i32x4_dot_i16x8(w0));
        a[1] = a[1].i32x4_add(xa.i32x4_dot_i16x8(w1));
        b[1] = b[1].i32x4_add(xb.i32x4_dot_i16x8(w1));
        a[2] = a[2].i32x4_add(xa.i32x4_dot_i16x8(w2));
        b[2] = b[2].i32x4_add(xb.i32x4_dot_i16x8(w2));
        a[3] = a[3].i32x4_add(xa.i32x4_dot_i16x8(w3));
        b[3] = b[3].i32x4_add(xb.i32x4_dot_i16x8(w3));
    }
    [a, b]
}

/// A prepared int8 CONV_2D (non-grouped): packed weights, folded bias, per-channel constants.
#[derive(Debug, Clone)]
pub struct Conv2dInt8 {
    p: ConvParams,
    /// Taps per output value: `filter_h · filter_w · in_c`.
    k: usize,
    gemm: Gemm,
    /// How an output pixel's packed row is found ([`Conv2dInt8::rows`]).
    rows: Rows,
    bias: Vec<i32>,
    rq: Vec<ChannelRq>,
    /// The clamp of XNNPACK's requantization (unused by [`ChannelRq::Fixed`]).
    clamp: Fp32Clamp,
    zero_point: i8,
    out_zp: i32,
    act: (i8, i8),
}

/// Where an output pixel's row of `k` values comes from (chosen at prepare time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// An im2col row built per pixel.
    Im2col,
    /// A 1×1 filter without padding: one input pixel's channels, found from the pixel's
    /// coordinates.
    Direct,
    /// [`Rows::Direct`] with input and output pixels one to one (stride 1, same size): pixel `i`'s
    /// row starts at `i · in_c`, no division needed.
    Contiguous,
}

/// How the reduction axis is packed (chosen at prepare time).
#[derive(Debug, Clone)]
enum Gemm {
    /// int16 pairs for `i32x4.dot_i16x8_s`: weights `[oc / 4][k8 / 2]` (four channels × one
    /// pair each).
    Pairs(Vec<[i16; 8]>),
    /// int8 quads for `i32x4.relaxed_dot_i8x16_i7x16_add_s` (relaxed-SIMD builds), used as
    /// `scheme` says ([`DotScheme`]). [`DotScheme::Split`]: each weight `w` split as `p − n` with
    /// `p = max(w, 0)`, `n = max(−w, 0)`, both in 0..=127 (exact everywhere; a weight of −128
    /// keeps `Pairs`), layout `[oc / 4][k16 / 4][channel][p, n]`. The one-dot schemes: layout
    /// `[oc / 4][k16 / 4][channel]`. Each vector is one channel's four bytes broadcast.
    Quads {
        /// The packed weights.
        w: Vec<[i8; 16]>,
        /// How the dot product is fed.
        scheme: DotScheme,
    },
    /// The one-dot schemes' channel-major GEMM ([`super::conv_c4`]) under XNNPACK's arithmetic
    /// with a multiple of 16 output channels: weights `[oc / 16][k16 / 4][4]`, accumulators of
    /// four channels of one pixel, requantized per lane.
    Lanes {
        /// The packed weights, four vectors per group of four taps.
        w: Vec<[[i8; 16]; 4]>,
        /// [`DotScheme::Unsigned`] (else [`DotScheme::Signed`]).
        unsigned: bool,
        /// Per-lane scales.
        scales: LaneScales,
    },
}

/// Scratch memory of [`Conv2dInt8`], allocated at prepare time.
#[derive(Debug, Clone)]
pub struct Conv2dScratch {
    /// Packed input chunk (`Pairs`): `CHUNK / 4` blocks of `k8 / 2` vectors.
    packed: Vec<[i16; 8]>,
    /// Packed input chunk (`Quads`): `CHUNK / 4` blocks of `k16 / 4` vectors.
    packed8: Vec<[i8; 16]>,
    /// Four im2col rows of `k` values, each padded to the packed length (general filters).
    rows: Vec<i8>,
    /// `Lanes`: one row of `k16` bytes per pixel of the chunk.
    rows16: Vec<i8>,
}

/// True in builds with WebAssembly relaxed SIMD, where [`Conv2dInt8`] packs int8 quads.
pub const RELAXED: bool = cfg!(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    target_feature = "relaxed-simd"
));

/// Whether this build can pack int8 quads for the relaxed dot product: natively (the lane emulation, for tests) and in
/// relaxed-SIMD wasm builds. A plain SIMD128 (or scalar) wasm build leaves that code out.
pub const QUADS_AVAILABLE: bool = cfg!(any(
    not(target_arch = "wasm32"),
    all(target_feature = "simd128", target_feature = "relaxed-simd")
));

impl Conv2dInt8 {
    /// Packs a non-grouped int8 CONV_2D: `filter` `[out_c, fh, fw, in_c]`, `bias` `[out_c]`.
    /// `None` when the fast kernel cannot reproduce the reference (a multiplier of `i32::MIN`,
    /// an activation range outside int8, or data that does not match the shapes).
    pub fn new(
        p: &ConvParams,
        q: &RequantParams,
        filter: &[i8],
        bias: Option<&[i32]>,
    ) -> Option<(Self, Conv2dScratch)> {
        Self::with_scheme(p, q, filter, bias, RELAXED.then(dot_scheme::detected))
    }

    /// [`Conv2dInt8::new`] choosing the packing: int8 quads for the relaxed dot product fed as
    /// `scheme` says (when the build has [`QUADS_AVAILABLE`], and under [`DotScheme::Split`] no
    /// weight is −128), else (`None`) int16 pairs. Natively every packing runs the portable lane
    /// emulation, so tests check them all.
    pub fn with_scheme(
        p: &ConvParams,
        q: &RequantParams,
        filter: &[i8],
        bias: Option<&[i32]>,
        scheme: Option<DotScheme>,
    ) -> Option<(Self, Conv2dScratch)> {
        let k = p.filter_h.checked_mul(p.filter_w)?.checked_mul(p.in_c)?;
        if k == 0
            || p.out_h == 0
            || p.out_w == 0
            || filter.len() != k.checked_mul(p.out_c)?
            || bias.is_some_and(|b| b.len() != p.out_c)
        {
            return None;
        }
        let rq = channel_requants(q, p.out_c)?;
        let act = act_range(q)?;
        let zero_point = i8::try_from(q.input_offset.checked_neg()?).ok()?;
        let scheme = scheme
            .filter(|&s| QUADS_AVAILABLE && (s != DotScheme::Split || !filter.contains(&i8::MIN)));
        let quads = scheme.is_some();
        let k16 = k_padded16(k);
        let lanes = match scheme {
            Some(s @ (DotScheme::Unsigned | DotScheme::Signed))
                if p.out_c.is_multiple_of(conv_c4::NR) =>
            {
                LaneScales::new(&rq).map(|l| (s, l))
            }
            _ => None,
        };
        let (gemm, packed, packed8) = if let Some((scheme, scales)) = lanes {
            (
                Gemm::Lanes {
                    w: conv_c4::pack_weights_c4(filter, p.out_c, k, k16),
                    unsigned: scheme == DotScheme::Unsigned,
                    scales,
                },
                Vec::new(),
                Vec::new(),
            )
        } else if let Some(scheme) = scheme {
            let k4 = k_padded16(k) / 4;
            (
                Gemm::Quads {
                    w: pack_weights_quads(filter, p.out_c, k, scheme),
                    scheme,
                },
                Vec::new(),
                vec![[0; 16]; (CHUNK / 4).checked_mul(k4)?],
            )
        } else {
            let kp = k_padded(k) / 2;
            (
                Gemm::Pairs(pack_weights(filter, p.out_c, k)),
                vec![[0; 8]; (CHUNK / 4).checked_mul(kp)?],
                Vec::new(),
            )
        };
        let scratch = Conv2dScratch {
            packed,
            packed8,
            // im2col rows padded to the packed length (zeros past `k` meet zero weights), so
            // they pack without a value-by-value tail.
            rows: vec![0; 4usize.checked_mul(if quads { k16 } else { k_padded(k) })?],
            rows16: if matches!(gemm, Gemm::Lanes { .. }) {
                vec![0; CHUNK.checked_mul(k16)?]
            } else {
                Vec::new()
            },
        };
        // Under `Unsigned` the sums are of `w · (x + 128)`: `128 · Σ w` comes off here.
        let bias = folded_bias(
            filter,
            bias,
            p.out_c,
            k,
            if scheme == Some(DotScheme::Unsigned) {
                q.input_offset.wrapping_sub(128)
            } else {
                q.input_offset
            },
        );
        Some((
            Conv2dInt8 {
                p: *p,
                k,
                gemm,
                rows: Self::rows(p),
                bias,
                rq,
                clamp: fp32_clamp(q),
                zero_point,
                out_zp: q.output_offset,
                act,
            },
            scratch,
        ))
    }

    /// How the relaxed dot product is fed, or `None` for the int16 pairs.
    pub fn dot_scheme(&self) -> Option<DotScheme> {
        match self.gemm {
            Gemm::Quads { scheme, .. } => Some(scheme),
            Gemm::Lanes { unsigned: true, .. } => Some(DotScheme::Unsigned),
            Gemm::Lanes {
                unsigned: false, ..
            } => Some(DotScheme::Signed),
            Gemm::Pairs(_) => None,
        }
    }

    /// True when the channel-major GEMM runs (`simd128/conv_c4.rs`: one-dot relaxed schemes,
    /// XNNPACK arithmetic, a multiple of 16 output channels).
    pub fn channel_major(&self) -> bool {
        matches!(self.gemm, Gemm::Lanes { .. })
    }

    /// Where the output pixels' rows come from: one input pixel's channels for a 1×1 filter
    /// without padding whose every tap lands inside the image (at the same index when the
    /// stride is 1 and the sizes match), else an im2col row.
    fn rows(p: &ConvParams) -> Rows {
        let direct = p.filter_h == 1
            && p.filter_w == 1
            && p.pad_top == 0
            && p.pad_left == 0
            && (p.out_h - 1) * p.stride_h < p.in_h
            && (p.out_w - 1) * p.stride_w < p.in_w;
        let one_to_one =
            p.stride_h == 1 && p.stride_w == 1 && p.out_h == p.in_h && p.out_w == p.in_w;
        match (direct, one_to_one) {
            (false, _) => Rows::Im2col,
            (true, false) => Rows::Direct,
            (true, true) => Rows::Contiguous,
        }
    }

    /// Writes the im2col row of output pixel `pix` (flattened `b, y, x`) into `row`.
    fn im2col_row(&self, input: &[i8], pix: usize, row: &mut [i8]) {
        let p = &self.p;
        let ox = pix % p.out_w;
        let oy = (pix / p.out_w) % p.out_h;
        let b = pix / (p.out_w * p.out_h);
        let y0 = (oy * p.stride_h) as isize - p.pad_top as isize;
        let x0 = (ox * p.stride_w) as isize - p.pad_left as isize;
        let c = p.in_c;
        let mut at = 0;
        // With dilation 1 a filter row whose taps are all inside the image is one contiguous
        // run of `filter_w · in_c` values.
        let row_inside = p.dilation_w == 1 && x0 >= 0 && x0 as usize + p.filter_w <= p.in_w;
        for fy in 0..p.filter_h {
            let y = y0 + (fy * p.dilation_h) as isize;
            if row_inside && y >= 0 && (y as usize) < p.in_h {
                let n = p.filter_w * c;
                let src = ((b * p.in_h + y as usize) * p.in_w + x0 as usize) * c;
                copy_run(input, src, row, at, n);
                at += n;
                continue;
            }
            for fx in 0..p.filter_w {
                let x = x0 + (fx * p.dilation_w) as isize;
                let dst = &mut row[at..at + c];
                if y >= 0 && (y as usize) < p.in_h && x >= 0 && (x as usize) < p.in_w {
                    let src = ((b * p.in_h + y as usize) * p.in_w + x as usize) * c;
                    dst.copy_from_slice(&input[src..src + c]);
                } else {
                    dst.fill(self.zero_point);
                }
                at += c;
            }
        }
    }

    /// The input row of a 1×1 filter's output pixel.
    fn direct_row<'a>(&self, input: &'a [i8], pix: usize) -> &'a [i8] {
        let p = &self.p;
        if self.rows == Rows::Contiguous {
            return &input[pix * p.in_c..(pix + 1) * p.in_c];
        }
        let ox = pix % p.out_w;
        let oy = (pix / p.out_w) % p.out_h;
        let b = pix / (p.out_w * p.out_h);
        let src = ((b * p.in_h + oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_c;
        &input[src..src + p.in_c]
    }

    /// The channel-major GEMM ([`Gemm::Lanes`]): per chunk of pixels, one padded row per pixel
    /// (sign bits flipped when `UNSIGNED`), then per block of 16 channels the pixels [`MR`] at a
    /// time.
    ///
    /// [`MR`]: conv_c4::MR
    fn run_lanes<const UNSIGNED: bool>(
        &self,
        w: &[[[i8; 16]; 4]],
        scales: &LaneScales,
        input: &[i8],
        output: &mut [i8],
        s: &mut Conv2dScratch,
    ) {
        let p = &self.p;
        let total = p.batches * p.out_h * p.out_w;
        let k16 = k_padded16(self.k);
        let groups = k16 / 4;
        let o = conv_c4::Output {
            scales,
            clamp: self.clamp,
            lo: V128::splat_i8(self.act.0),
            hi: V128::splat_i8(self.act.1),
            out_c: p.out_c,
        };
        let mut start = 0;
        while start < total {
            let n = (total - start).min(CHUNK);
            for (i, row) in s.rows16.chunks_exact_mut(k16).take(n).enumerate() {
                if self.rows == Rows::Im2col {
                    self.im2col_row(input, start + i, row);
                } else {
                    row[..self.k].copy_from_slice(self.direct_row(input, start + i));
                }
                if UNSIGNED {
                    conv_c4::flip_row(row);
                }
            }
            let (quads, _) = s.rows16.as_chunks::<4>();
            for (b, wb) in w.chunks_exact(groups).enumerate() {
                let init = [0, 1, 2, 3].map(|v| {
                    let c = b * conv_c4::NR + 4 * v;
                    V128::load_i32(self.bias[c..].first_chunk::<4>().unwrap_or(&[0; 4]))
                });
                for t in 0..n.div_ceil(conv_c4::MR) {
                    let first = t * conv_c4::MR;
                    // Rows past `n` (the last tile) hold stale values; their pixels are not stored.
                    let rows = std::array::from_fn(|i| &quads[(first + i) * groups..][..groups]);
                    let acc = conv_c4::tile_c4::<UNSIGNED>(rows, wb, init);
                    conv_c4::store_pixels(
                        acc,
                        &o,
                        b,
                        output,
                        start + first,
                        (n - first).min(conv_c4::MR),
                    );
                }
            }
            start += n;
        }
    }

    /// Packs output pixels `start..start + n` (`n ≤ CHUNK`) into `s.packed`.
    fn pack_chunk(&self, input: &[i8], start: usize, n: usize, s: &mut Conv2dScratch) {
        let quads = matches!(self.gemm, Gemm::Quads { .. });
        let flip = self.dot_scheme() == Some(DotScheme::Unsigned);
        let kp = if quads {
            k_padded16(self.k) / 4
        } else {
            k_padded(self.k) / 2
        };
        let zeros = [0i8; 0];
        let row_len = if quads {
            k_padded16(self.k)
        } else {
            k_padded(self.k)
        };
        let blocks = n.div_ceil(8) * 2;
        for blk in 0..blocks {
            let first = blk * 4;
            let pack = |rows: [&[i8]; 4],
                        k: usize,
                        packed: &mut Vec<[i16; 8]>,
                        packed8: &mut Vec<[i8; 16]>| {
                if quads {
                    pack_rows_quads(rows, k, &mut packed8[blk * kp..(blk + 1) * kp], flip);
                } else {
                    pack_rows_padded(rows, k, &mut packed[blk * kp..(blk + 1) * kp]);
                }
            };
            if self.rows != Rows::Im2col {
                let rows: [&[i8]; 4] = [0, 1, 2, 3].map(|i| {
                    if first + i < n {
                        self.direct_row(input, start + first + i)
                    } else {
                        &zeros[..]
                    }
                });
                pack(rows, self.k, &mut s.packed, &mut s.packed8);
            } else {
                let (r0, rest) = s.rows.split_at_mut(row_len);
                let (r1, rest) = rest.split_at_mut(row_len);
                let (r2, r3) = rest.split_at_mut(row_len);
                let mut rows = [r0, r1, r2, r3];
                for (i, row) in rows.iter_mut().enumerate() {
                    if first + i < n {
                        self.im2col_row(input, start + first + i, row);
                    } else {
                        row.fill(0);
                    }
                }
                let [r0, r1, r2, r3] = rows;
                pack(
                    [&*r0, &*r1, &*r2, &*r3],
                    row_len,
                    &mut s.packed,
                    &mut s.packed8,
                );
            }
        }
    }
}

impl PackedKernel for Conv2dInt8 {
    type Elem = i8;
    type Scratch = Conv2dScratch;

    /// Runs the convolution. `input` and `output` are the NHWC int8 tensors of the shapes given
    /// at prepare time.
    fn run(&self, input: &[i8], output: &mut [i8], s: &mut Conv2dScratch) {
        if let Gemm::Lanes {
            w,
            unsigned,
            scales,
        } = &self.gemm
        {
            if *unsigned {
                self.run_lanes::<true>(w, scales, input, output, s);
            } else {
                self.run_lanes::<false>(w, scales, input, output, s);
            }
            return;
        }
        let p = &self.p;
        let total = p.batches * p.out_h * p.out_w;
        let kp = k_padded(self.k) / 2;
        let zp = V128::splat_i32(self.out_zp);
        let lo = V128::splat_i8(self.act.0);
        let hi = V128::splat_i8(self.act.1);
        let mut start = 0;
        while start < total {
            let n = (total - start).min(CHUNK);
            self.pack_chunk(input, start, n, s);
            let k4 = k_padded16(self.k) / 4;
            for cb in 0..p.out_c.div_ceil(4) {
                let init =
                    V128::load_i32(self.bias[cb * 4..].first_chunk::<4>().unwrap_or(&[0; 4]));
                let rq = &self.rq[cb * 4..cb * 4 + 4];
                for t in 0..n.div_ceil(8) {
                    let acc = match &self.gemm {
                        Gemm::Pairs(w) => {
                            let w = &w[cb * kp..(cb + 1) * kp];
                            let xa = &s.packed[2 * t * kp..(2 * t + 1) * kp];
                            let xb = &s.packed[(2 * t + 1) * kp..(2 * t + 2) * kp];
                            tile_8x4(xa, xb, w, init)
                        }
                        Gemm::Lanes { .. } => unreachable!("run_lanes"),
                        Gemm::Quads { w, scheme } => {
                            let per = 4 * quad_vectors(*scheme);
                            let w = &w[cb * k4 * per..(cb + 1) * k4 * per];
                            let xa = &s.packed8[2 * t * k4..(2 * t + 1) * k4];
                            let xb = &s.packed8[(2 * t + 1) * k4..(2 * t + 2) * k4];
                            match scheme {
                                DotScheme::Split => tile_8x4_quads(xa, xb, w, init),
                                DotScheme::Unsigned => tile_8x4_dot::<true>(xa, xb, w, init),
                                DotScheme::Signed => tile_8x4_dot::<false>(xa, xb, w, init),
                            }
                        }
                    };
                    let [a, b] = requant_tile(acc, rq, self.clamp, zp, lo, hi);
                    let first = start + 8 * t;
                    let valid = n - 8 * t;
                    store_block(a, output, first, valid.min(4), p.out_c, cb * 4);
                    if valid > 4 {
                        store_block(b, output, first + 4, valid - 4, p.out_c, cb * 4);
                    }
                }
            }
            start += n;
        }
    }
}

/// Copies `src[from..from + n]` to `dst[at..at + n]`. A run of at most 16 bytes is one vector
/// load and store when both sides have 16 bytes there (bytes past `n` are overwritten later by
/// the caller, which fills `dst` in order), avoiding a `memcpy` call per short run (a 3-channel
/// input's filter rows are 9 bytes).
#[inline(always)]
fn copy_run(src: &[i8], from: usize, dst: &mut [i8], at: usize, n: usize) {
    if n <= 16
        && let (Some(s), Some(d)) = (
            src.get(from..).and_then(|s| s.first_chunk::<16>()),
            dst.get_mut(at..).and_then(|d| d.first_chunk_mut::<16>()),
        )
    {
        V128::load_i8(s).store_i8(d);
        return;
    }
    dst[at..at + n].copy_from_slice(&src[from..from + n]);
}

/// [`pack_rows`] for rows that may be empty (pixels past the end): an empty row packs as zeros.
fn pack_rows_padded(rows: [&[i8]; 4], k: usize, dst: &mut [[i16; 8]]) {
    if rows.iter().all(|r| r.len() == k) {
        pack_rows(rows, k, dst);
        return;
    }
    for d in dst.iter_mut() {
        *d = [0; 8];
    }
    for (p, row) in rows.iter().enumerate() {
        for (i, &v) in row.iter().enumerate() {
            dst[i / 2][p * 2 + i % 2] = i16::from(v);
        }
    }
}

/// Per-channel requantizations padded to a multiple of 4: XNNPACK's `f32` scales when `q`
/// carries them, else [`ChannelRequant`]s (`None` for an `i32::MIN` multiplier).
pub(crate) fn channel_requants(q: &RequantParams, channels: usize) -> Option<Vec<ChannelRq>> {
    let mut rq = Vec::with_capacity(channels.div_ceil(4) * 4);
    if let Some(x) = &q.xnnpack {
        rq.extend(
            x.scales
                .get(..channels)?
                .iter()
                .map(|&s| ChannelRq::Fp32(s)),
        );
        rq.resize(channels.div_ceil(4) * 4, ChannelRq::Fp32(0.0));
        return Some(rq);
    }
    if q.multipliers.len() < channels || q.shifts.len() < channels {
        return None;
    }
    for c in 0..channels {
        rq.push(ChannelRq::Fixed(ChannelRequant::new(
            q.multipliers[c],
            q.shifts[c],
        )?));
    }
    rq.resize(channels.div_ceil(4) * 4, ChannelRq::default());
    Some(rq)
}

/// The constants of XNNPACK's requantization for `q` (its lowest output and zero point; the
/// highest output is the kernels' int8 clamp, [`act_range`]).
pub(crate) fn fp32_clamp(q: &RequantParams) -> Fp32Clamp {
    Fp32Clamp::new(q.act_min, q.output_offset)
}

/// The activation clamp as int8, or `None` when it is not inside the int8 range.
pub(crate) fn act_range(q: &RequantParams) -> Option<(i8, i8)> {
    let lo = i8::try_from(q.act_min).ok()?;
    let hi = i8::try_from(q.act_max).ok()?;
    (lo <= hi).then_some((lo, hi))
}
