//! int8 DEPTHWISE_CONV_2D, bit-identical to
//! [`reference::conv_int::depthwise_conv2d`](crate::reference::conv_int::depthwise_conv2d)
//! (int8 activations, int32 accumulator, double-rounding requantization).
//!
//! **Exactness.** As in [`super::conv_int`]: the input is copied into a scratch image whose
//! border (the padding) holds the input zero point, so every tap can be summed — a padding tap
//! adds `w · zero_point`, cancelled by the folded `input_offset · Σ w` — and integer sums wrap
//! like the reference's. A depth multiplier above 1 is handled by the same copy: scratch
//! channel `ic · multiplier + m` holds input channel `ic`, so every kernel sees one input
//! channel per output channel.
//!
//! **Layout.** Lanes are channels (NHWC keeps them contiguous), weights packed at prepare time
//! as int16 `[tap][c / 8]`. 3×3 filters run output pixel by output pixel, sixteen channels per
//! step, and take their taps in pairs: the two taps' input bytes are interleaved and widened, so
//! one `i32x4.dot_i16x8_s` adds both taps' products for four channels (the ninth tap is
//! multiplied alone); other filters
//! widen one tap at a time and accumulate with `i32x4.extmul_{low,high}_i16x8_s`. Channels are padded to a
//! multiple of 8 in the scratch (zero point) and the weights (zero). The requantization
//! constants differ per lane ([`LaneRequant`]).
//!
//! 3×3 filters at dilation 1 and horizontal stride 1 or 2 (MobileNet's) take the sliding-column
//! path of [`super::depthwise_3x3`] instead (channels padded to 16), which loads and widens each
//! input column once for all the outputs that read it; the pixel-by-pixel 3×3 path above keeps
//! the other 3×3 shapes (dilation, wider strides).

use super::conv_int::{act_range, channel_requants, fp32_clamp};
use super::depthwise_1x1::Flat1x1;
use super::depthwise_3x3;
use super::near::NearLanes;
use super::requant::{ChannelRq, Fp32Clamp, LaneRequant};
use super::v128::V128;
use crate::PackedKernel;
use crate::reference::conv::ConvParams;
use crate::reference::conv_int::RequantParams;

/// Largest scratch image this kernel allocates (bytes); beyond it the reference kernel runs.
const MAX_SCRATCH: usize = 1 << 30;

/// A prepared int8 DEPTHWISE_CONV_2D.
#[derive(Debug, Clone)]
pub struct DepthwiseInt8 {
    pub(super) p: ConvParams,
    multiplier: usize,
    /// Output channels rounded up to 8 (to 16 for the sliding 3×3 path).
    pub(super) cp: usize,
    /// Scratch image height and width (padding included).
    pub(super) hp: usize,
    pub(super) wp: usize,
    /// `[tap][cp / 8]` vectors of eight channels (empty on the sliding 3×3 path, which reads
    /// `sliding`).
    weights: Vec<[i16; 8]>,
    /// 3×3 filters: `[cp / 8][pair 0..5][half 0..2]`, the taps in pairs (0, 1), (2, 3), (4, 5),
    /// (6, 7), (8, –) for `dot_i16x8`: per pair and half block, four channels × the two taps'
    /// weights interleaved (the ninth tap pairs with a zero weight). Empty for other filters.
    pairs: Vec<[i16; 8]>,
    /// 3×3 filters at dilation 1 and horizontal stride 1 or 2: the weights as
    /// [`depthwise_3x3::pack`](super::depthwise_3x3::pack) lays them out (then `pairs` is
    /// empty). Empty otherwise.
    sliding: Vec<[i16; 8]>,
    /// Folded bias per four channels.
    pub(super) bias: Vec<[i32; 4]>,
    pub(super) rq: Vec<LaneRq>,
    pub(super) any_left: bool,
    /// The clamp of the `f32` requantizations (unused by [`LaneRq::Fixed`]).
    pub(super) clamp: Fp32Clamp,
    pub(super) out_zp: i32,
    pub(super) act: (i8, i8),
    /// A 1×1 filter at stride 1 with a channel count that tiles sixteen lanes: the flat
    /// per-channel map of [`super::depthwise_1x1`] (then no scratch image is filled).
    flat: Option<Flat1x1>,
}

/// Four channels' requantization, one per lane: LiteRT's reference fixed point or XNNPACK's
/// `f32` scales.
#[derive(Debug, Clone, Copy)]
pub(super) enum LaneRq {
    Fixed(LaneRequant),
    /// The fixed point read off the certified `f32` form ([`super::near`]) except in vectors
    /// with a lane near a rounding boundary.
    Near(LaneRequant, NearLanes),
    Fp32([f32; 4]),
}

impl LaneRq {
    /// The four channels' constants, or `None` when they mix arithmetics or the fixed-point
    /// lanes cannot be vectorised ([`LaneRequant::from_channels`]).
    pub(super) fn new(c: [ChannelRq; 4], out_zp: i32) -> Option<Self> {
        match c {
            [
                ChannelRq::Fp32(a),
                ChannelRq::Fp32(b),
                ChannelRq::Fp32(x),
                ChannelRq::Fp32(y),
            ] => Some(LaneRq::Fp32([a, b, x, y])),
            [
                ChannelRq::Fixed(a),
                ChannelRq::Fixed(b),
                ChannelRq::Fixed(x),
                ChannelRq::Fixed(y),
            ] => {
                let l = LaneRequant::from_channels([a, b, x, y])?;
                Some(match NearLanes::new([a, b, x, y], out_zp) {
                    Some(n) => LaneRq::Near(l, n),
                    None => LaneRq::Fixed(l),
                })
            }
            _ => None,
        }
    }

    /// True when some lane of the fixed point shifts left.
    pub(super) fn any_left(&self) -> bool {
        matches!(self, LaneRq::Fixed(l) | LaneRq::Near(l, _) if l.any_left())
    }

    /// Requantizes four channels' accumulators, the zero point `zp` added (under XNNPACK's
    /// arithmetic it is folded into the magic-bias subtraction; the caller's narrowing and int8
    /// clamp finish both forms).
    #[inline(always)]
    pub(super) fn apply(&self, acc: V128, any_left: bool, clamp: Fp32Clamp, zp: V128) -> V128 {
        match self {
            LaneRq::Fixed(l) => l.apply(acc, any_left).i32x4_add(zp),
            LaneRq::Near(l, n) => {
                let (r, near) = n.apply(acc, clamp);
                if near.any_true() {
                    fixed_cold(l, acc, any_left).i32x4_add(zp)
                } else {
                    r
                }
            }
            LaneRq::Fp32(s) => clamp.apply(acc, V128::load_f32(s)),
        }
    }
}

/// [`LaneRequant::apply`] out of line: the rare vectors [`LaneRq::Near`] hands back (one copy,
/// not one per kernel path: wasm size).
#[inline(never)]
fn fixed_cold(l: &LaneRequant, acc: V128, any_left: bool) -> V128 {
    l.apply(acc, any_left)
}

/// Scratch of [`DepthwiseInt8`]: the zero-point-padded input image, `[b][hp][wp][cp]`.
#[derive(Debug, Clone)]
pub struct DepthwiseScratch {
    image: Vec<i8>,
}

impl DepthwiseInt8 {
    /// Packs an int8 DEPTHWISE_CONV_2D: `filter` `[1, fh, fw, out_c]`, `bias` `[out_c]`. `None`
    /// when the fast kernel cannot reproduce the reference (a multiplier of `i32::MIN`, a clamp
    /// outside int8, data that does not match the shapes, a scratch image above 1 GiB).
    pub fn new(
        p: &ConvParams,
        multiplier: usize,
        q: &RequantParams,
        filter: &[i8],
        bias: Option<&[i32]>,
    ) -> Option<(Self, DepthwiseScratch)> {
        let taps = p.filter_h.checked_mul(p.filter_w)?;
        if multiplier == 0
            || p.out_c != p.in_c.checked_mul(multiplier)?
            || filter.len() != taps.checked_mul(p.out_c)?
            || bias.is_some_and(|b| b.len() != p.out_c)
            || p.out_h == 0
            || p.out_w == 0
        {
            return None;
        }
        let sliding = p.filter_h == 3
            && p.filter_w == 3
            && (p.stride_w == 1 || p.stride_w == 2)
            && p.dilation_h == 1
            && p.dilation_w == 1;
        let lanes = if sliding { 16 } else { 8 };
        let cp = p.out_c.div_ceil(lanes).checked_mul(lanes)?;
        let extent = |out: usize, stride: usize, f: usize, d: usize| {
            (out - 1)
                .checked_mul(stride)?
                .checked_add((f.checked_sub(1)?).checked_mul(d)?)?
                .checked_add(1)
        };
        let hp = extent(p.out_h, p.stride_h, p.filter_h, p.dilation_h)?;
        let wp = extent(p.out_w, p.stride_w, p.filter_w, p.dilation_w)?;
        let size = p
            .batches
            .checked_mul(hp)?
            .checked_mul(wp)?
            .checked_mul(cp)?;
        if size > MAX_SCRATCH {
            return None;
        }
        let zero_point = i8::try_from(q.input_offset.checked_neg()?).ok()?;
        let act = act_range(q)?;
        let chans = channel_requants(q, p.out_c)?;
        let mut padded = chans;
        padded.resize(cp, padded.last().copied().unwrap_or_default());
        let rq: Vec<LaneRq> = padded
            .chunks_exact(4)
            .map(|c| LaneRq::new([c[0], c[1], c[2], c[3]], q.output_offset))
            .collect::<Option<_>>()?;
        let any_left = rq.iter().any(LaneRq::any_left);
        let blocks = cp / 8;
        let mut weights = vec![[0i16; 8]; taps * blocks];
        let mut sums = vec![0i32; cp];
        for t in 0..taps {
            for c in 0..p.out_c {
                let w = filter[t * p.out_c + c];
                weights[t * blocks + c / 8][c % 8] = i16::from(w);
                sums[c] = sums[c].wrapping_add(i32::from(w));
            }
        }
        let mut pairs = Vec::new();
        let packed = if sliding {
            depthwise_3x3::pack(&weights, blocks)
        } else {
            Vec::new()
        };
        if taps == 9 && !sliding {
            let tap = |t: usize, cb: usize| weights.get(t * blocks + cb).copied().unwrap_or([0; 8]);
            for cb in 0..blocks {
                for q in 0..5 {
                    let (a, b) = (
                        tap(2 * q, cb),
                        if 2 * q + 1 < 9 {
                            tap(2 * q + 1, cb)
                        } else {
                            [0; 8]
                        },
                    );
                    for h in 0..2 {
                        pairs.push(core::array::from_fn(|i| {
                            if i % 2 == 0 {
                                a[4 * h + i / 2]
                            } else {
                                b[4 * h + i / 2]
                            }
                        }));
                    }
                }
            }
        }
        let mut folded = vec![[0i32; 4]; cp / 4];
        for c in 0..p.out_c {
            let b = bias.map_or(0, |b| b[c]);
            folded[c / 4][c % 4] = b.wrapping_add(q.input_offset.wrapping_mul(sums[c]));
        }
        let flat = if taps == 1
            && multiplier == 1
            && (p.in_h, p.in_w, p.pad_top, p.pad_left) == (p.out_h, p.out_w, 0, 0)
        {
            let folded: Vec<i32> = folded.iter().flatten().copied().collect();
            Flat1x1::new(&filter[..p.out_c], &folded, &padded[..p.out_c], q, act)
        } else {
            None
        };
        let size = if flat.is_some() { 0 } else { size };
        Some((
            DepthwiseInt8 {
                p: *p,
                multiplier,
                cp,
                hp,
                wp,
                weights: if sliding { Vec::new() } else { weights },
                pairs,
                sliding: packed,
                bias: folded,
                rq,
                any_left,
                clamp: fp32_clamp(q),
                out_zp: q.output_offset,
                act,
                flat,
            },
            DepthwiseScratch {
                image: vec![zero_point; size],
            },
        ))
    }

    /// Whether the flat 1×1 map ([`super::depthwise_1x1`]) runs this convolution.
    #[cfg(test)]
    pub(super) fn uses_flat(&self) -> bool {
        self.flat.is_some()
    }

    /// Whether the sliding 3×3 path ([`super::depthwise_3x3`]) runs this convolution.
    #[cfg(test)]
    pub(super) fn uses_sliding(&self) -> bool {
        !self.sliding.is_empty()
    }

    /// Copies the input into the scratch image's interior (the border keeps the zero point it
    /// was allocated with).
    fn fill(&self, input: &[i8], image: &mut [i8]) {
        let p = &self.p;
        let (cp, m) = (self.cp, self.multiplier);
        for b in 0..p.batches {
            for iy in 0..p.in_h {
                let py = iy + p.pad_top;
                if py >= self.hp {
                    break;
                }
                for ix in 0..p.in_w {
                    let px = ix + p.pad_left;
                    if px >= self.wp {
                        break;
                    }
                    let src = &input[((b * p.in_h + iy) * p.in_w + ix) * p.in_c..][..p.in_c];
                    let at = ((b * self.hp + py) * self.wp + px) * cp;
                    let dst = &mut image[at..at + p.out_c];
                    if m == 1 {
                        dst.copy_from_slice(src);
                    } else {
                        for (d, s) in dst.chunks_exact_mut(m).zip(src) {
                            d.fill(*s);
                        }
                    }
                }
            }
        }
    }

    /// The output constants of the eight-channel block `cb`.
    fn block(&self, cb: usize) -> Block {
        Block {
            rq: [self.rq[2 * cb], self.rq[2 * cb + 1]],
            any_left: self.any_left,
            clamp: self.clamp,
            zp: V128::splat_i32(self.out_zp),
            lo: V128::splat_i8(self.act.0),
            hi: V128::splat_i8(self.act.1),
        }
    }

    /// 3×3 filters: output pixels outermost, then sixteen channels per step (eight for a last
    /// odd block), so every pass reads one pixel's contiguous channels and the weights stream
    /// from a small packed table. Per tap pair, two 16-byte loads are interleaved into two
    /// vectors of eight channels × two taps, each widened in halves for four `dot_i16x8`; the
    /// ninth tap is widened alone and multiplied with `extmul`.
    fn run_3x3(&self, image: &[i8], output: &mut [i8]) {
        let p = &self.p;
        let (cp, blocks) = (self.cp, self.cp / 8);
        let mut offsets = [0usize; 9];
        for (t, o) in offsets.iter_mut().enumerate() {
            let (fy, fx) = (t / 3, t % 3);
            *o = (fy * p.dilation_h * self.wp + fx * p.dilation_w) * cp;
        }
        let zp = V128::splat_i32(self.out_zp);
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let tail = (blocks % 2 == 1).then(|| self.block(blocks - 1));
        for b in 0..p.batches {
            for oy in 0..p.out_h {
                let row = (b * self.hp + oy * p.stride_h) * self.wp;
                for ox in 0..p.out_w {
                    let origin = (row + ox * p.stride_w) * cp;
                    let out_at = ((b * p.out_h + oy) * p.out_w + ox) * p.out_c;
                    let mut cb = 0;
                    while cb + 2 <= blocks {
                        let at = origin + cb * 8;
                        let w = &self.pairs[cb * 10..cb * 10 + 20];
                        let mut acc = [0, 1, 2, 3].map(|j| V128::load_i32(&self.bias[2 * cb + j]));
                        for q in 0..4 {
                            if let (Some(x0), Some(x1)) = (
                                image[at + offsets[2 * q]..].first_chunk::<16>(),
                                image[at + offsets[2 * q + 1]..].first_chunk::<16>(),
                            ) {
                                let (x0, x1) = (V128::load_i8(x0), V128::load_i8(x1));
                                let (l, h) = (x0.interleave_low_i8(x1), x0.interleave_high_i8(x1));
                                let dot =
                                    |x: V128, w: &[i16; 8]| x.i32x4_dot_i16x8(V128::load_i16(w));
                                acc[0] =
                                    acc[0].i32x4_add(dot(l.i16x8_extend_low_i8x16(), &w[2 * q]));
                                acc[1] = acc[1]
                                    .i32x4_add(dot(l.i16x8_extend_high_i8x16(), &w[2 * q + 1]));
                                acc[2] = acc[2]
                                    .i32x4_add(dot(h.i16x8_extend_low_i8x16(), &w[10 + 2 * q]));
                                acc[3] = acc[3].i32x4_add(dot(
                                    h.i16x8_extend_high_i8x16(),
                                    &w[10 + 2 * q + 1],
                                ));
                            }
                        }
                        if let (Some(x), Some(w8)) = (
                            image[at + offsets[8]..].first_chunk::<16>(),
                            self.weights[8 * blocks + cb..].first_chunk::<2>(),
                        ) {
                            let x = V128::load_i8(x);
                            let (xl, xh) =
                                (x.i16x8_extend_low_i8x16(), x.i16x8_extend_high_i8x16());
                            let (wl, wh) = (V128::load_i16(&w8[0]), V128::load_i16(&w8[1]));
                            acc[0] = acc[0].i32x4_add(xl.i32x4_extmul_low_i16x8(wl));
                            acc[1] = acc[1].i32x4_add(xl.i32x4_extmul_high_i16x8(wl));
                            acc[2] = acc[2].i32x4_add(xh.i32x4_extmul_low_i16x8(wh));
                            acc[3] = acc[3].i32x4_add(xh.i32x4_extmul_high_i16x8(wh));
                        }
                        let v = [0, 1, 2, 3].map(|j| {
                            self.rq[2 * cb + j].apply(acc[j], self.any_left, self.clamp, zp)
                        });
                        let bytes = v[0]
                            .i16x8_narrow_i32x4(v[1])
                            .i8x16_narrow_i16x8(v[2].i16x8_narrow_i32x4(v[3]))
                            .i8x16_max(lo)
                            .i8x16_min(hi);
                        let c0 = cb * 8;
                        let n_c = (p.out_c - c0).min(16);
                        let at = out_at + c0;
                        if n_c == 16 {
                            if let Some(d) = output[at..].first_chunk_mut::<16>() {
                                bytes.store_i8(d);
                            }
                        } else {
                            output[at..at + n_c].copy_from_slice(&bytes.to_i8()[..n_c]);
                        }
                        cb += 2;
                    }
                    if let Some(out) = &tail {
                        let at = origin + cb * 8;
                        let w = &self.pairs[cb * 10..cb * 10 + 10];
                        let mut a0 = V128::load_i32(&self.bias[2 * cb]);
                        let mut a1 = V128::load_i32(&self.bias[2 * cb + 1]);
                        for q in 0..5 {
                            let o0 = offsets[2 * q];
                            let o1 = offsets.get(2 * q + 1).copied().unwrap_or(o0);
                            if let (Some(x0), Some(x1)) = (
                                image[at + o0..].first_chunk::<8>(),
                                image[at + o1..].first_chunk::<8>(),
                            ) {
                                let x = V128::load64_zero_i8(x0)
                                    .interleave_low_i8(V128::load64_zero_i8(x1));
                                let (l, h) =
                                    (x.i16x8_extend_low_i8x16(), x.i16x8_extend_high_i8x16());
                                a0 = a0.i32x4_add(l.i32x4_dot_i16x8(V128::load_i16(&w[2 * q])));
                                a1 = a1.i32x4_add(h.i32x4_dot_i16x8(V128::load_i16(&w[2 * q + 1])));
                            }
                        }
                        let c0 = cb * 8;
                        out.store(a0, a1, output, out_at + c0, (p.out_c - c0).min(8));
                    }
                }
            }
        }
    }

    /// Other filters: channel blocks outermost, one tap at a time, widened and accumulated with
    /// `i32x4.extmul_{low,high}_i16x8_s`.
    fn run_general(&self, image: &[i8], output: &mut [i8]) {
        let p = &self.p;
        let (cp, blocks) = (self.cp, self.cp / 8);
        for cb in 0..blocks {
            let c0 = cb * 8;
            let n_c = (p.out_c - c0).min(8);
            let out = self.block(cb);
            let bias = [
                V128::load_i32(&self.bias[2 * cb]),
                V128::load_i32(&self.bias[2 * cb + 1]),
            ];
            for b in 0..p.batches {
                for oy in 0..p.out_h {
                    let row = (b * self.hp + oy * p.stride_h) * self.wp;
                    for ox in 0..p.out_w {
                        let origin = (row + ox * p.stride_w) * cp + c0;
                        let [mut a0, mut a1] = bias;
                        for fy in 0..p.filter_h {
                            for fx in 0..p.filter_w {
                                let at =
                                    origin + (fy * p.dilation_h * self.wp + fx * p.dilation_w) * cp;
                                let w = &self.weights[(fy * p.filter_w + fx) * blocks + cb];
                                if let Some(x) = image[at..].first_chunk::<8>() {
                                    let x = V128::load_extend_i8x8(x);
                                    let w = V128::load_i16(w);
                                    a0 = a0.i32x4_add(x.i32x4_extmul_low_i16x8(w));
                                    a1 = a1.i32x4_add(x.i32x4_extmul_high_i16x8(w));
                                }
                            }
                        }
                        let out_at = ((b * p.out_h + oy) * p.out_w + ox) * p.out_c + c0;
                        out.store(a0, a1, output, out_at, n_c);
                    }
                }
            }
        }
    }
}

impl PackedKernel for DepthwiseInt8 {
    type Elem = i8;
    type Scratch = DepthwiseScratch;

    /// Runs the convolution over NHWC int8 tensors of the prepared shapes.
    fn run(&self, input: &[i8], output: &mut [i8], s: &mut DepthwiseScratch) {
        if let Some(f) = &self.flat {
            let n = input.len().min(output.len());
            f.run(&input[..n], &mut output[..n]);
            return;
        }
        self.fill(input, &mut s.image);
        if !self.sliding.is_empty() {
            self.run_sliding(&s.image, &self.sliding, output);
        } else if self.p.filter_h * self.p.filter_w == 9 {
            self.run_3x3(&s.image, output);
        } else {
            self.run_general(&s.image, output);
        }
    }
}

/// One block of eight channels' output constants.
struct Block {
    rq: [LaneRq; 2],
    any_left: bool,
    clamp: Fp32Clamp,
    zp: V128,
    lo: V128,
    hi: V128,
}

impl Block {
    /// Requantizes two accumulators (channels 0..4, 4..8) and stores `n_c ≤ 8` bytes at `at`.
    #[inline(always)]
    fn store(&self, a0: V128, a1: V128, output: &mut [i8], at: usize, n_c: usize) {
        let v0 = self.rq[0].apply(a0, self.any_left, self.clamp, self.zp);
        let v1 = self.rq[1].apply(a1, self.any_left, self.clamp, self.zp);
        let n = v0.i16x8_narrow_i32x4(v1);
        let bytes = n
            .i8x16_narrow_i16x8(n)
            .i8x16_max(self.lo)
            .i8x16_min(self.hi);
        if n_c == 8 {
            if let Some(d) = output[at..].first_chunk_mut::<8>() {
                bytes.store_low_i8x8(d);
            }
        } else {
            output[at..at + n_c].copy_from_slice(&bytes.to_i8()[..n_c]);
        }
    }
}
