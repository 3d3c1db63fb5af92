//! int8 DEPTHWISE_CONV_2D with a 1×1 filter at stride 1 and depth multiplier 1: a per-channel
//! affine map (MediaPipe's hand and palm networks use it as a learned channel scale). Output
//! byte `i` depends only on input byte `i`, channel `i mod C`: `acc = w_c · x + bias_c` (the
//! input offset folded into the bias, wrapping like the reference's sum) requantized per
//! channel. So the tensor is walked flat, sixteen bytes at a time, with no scratch image and no
//! per-pixel loop: the per-pixel path ran eight-channel tensors at ~2 ns per byte.
//!
//! Each sixteen-byte chunk's lanes belong to a fixed pattern of channels when `C` divides 16
//! (one pattern, lane `l` → channel `l mod C`) or `C` is a multiple of 16 (`C / 16` patterns,
//! chunk `i` → channels `16·(i mod C/16) ..`); other channel counts keep the general path. The
//! bytes after the last full chunk run the reference's scalar arithmetic.

use super::conv_int::fp32_clamp;
use super::depthwise_int::LaneRq;
use super::requant::{ChannelRq, Fp32Clamp, LaneRequant};
use super::v128::V128;
use crate::reference::conv_int::RequantParams;

/// The constants of one sixteen-lane channel pattern.
#[derive(Debug, Clone)]
struct Pattern {
    /// Weights, four lanes per vector.
    w: [[i32; 4]; 4],
    /// Folded biases (`bias_c + input_offset · w_c`).
    bias: [[i32; 4]; 4],
    rq: [LaneRq; 4],
}

/// A prepared flat 1×1 depthwise convolution (see the module documentation).
#[derive(Debug, Clone)]
pub(super) struct Flat1x1 {
    patterns: Vec<Pattern>,
    /// Per channel: weight and folded bias (the scalar tail, requantized by `q`).
    scalar: Vec<(i32, i32)>,
    q: RequantParams,
    any_left: bool,
    clamp: Fp32Clamp,
    act: (i8, i8),
}

impl Flat1x1 {
    /// The flat form for `c` channels with weights `w`, folded biases, the channels'
    /// requantizations in lanes (`rq`) and as the reference's (`q`), or `None` for a channel
    /// count that does not tile sixteen lanes, or constants [`LaneRq`] cannot take.
    pub(super) fn new(
        w: &[i8],
        folded: &[i32],
        rq: &[ChannelRq],
        q: &RequantParams,
        act: (i8, i8),
    ) -> Option<Self> {
        let c = w.len();
        if c == 0 || folded.len() < c || rq.len() < c {
            return None;
        }
        let n_patterns = if 16usize.is_multiple_of(c) {
            1
        } else if c.is_multiple_of(16) {
            c / 16
        } else {
            return None;
        };
        let mut patterns = Vec::with_capacity(n_patterns);
        for k in 0..n_patterns {
            let mut p = Pattern {
                w: [[0; 4]; 4],
                bias: [[0; 4]; 4],
                rq: [LaneRq::Fixed(LaneRequant::default()); 4],
            };
            let mut lanes = [ChannelRq::Fp32(0.0); 16];
            for (l, lane) in lanes.iter_mut().enumerate() {
                let ch = (16 * k + l) % c;
                p.w[l / 4][l % 4] = i32::from(w[ch]);
                p.bias[l / 4][l % 4] = folded[ch];
                *lane = rq[ch];
            }
            for (j, quad) in lanes.as_chunks::<4>().0.iter().enumerate() {
                p.rq[j] = LaneRq::new(*quad, q.output_offset)?;
            }
            patterns.push(p);
        }
        let any_left = patterns.iter().any(|p| p.rq.iter().any(LaneRq::any_left));
        let scalar = (0..c).map(|i| (i32::from(w[i]), folded[i])).collect();
        Some(Flat1x1 {
            patterns,
            scalar,
            q: q.clone(),
            any_left,
            clamp: fp32_clamp(q),
            act,
        })
    }

    /// Runs the map over `input` (NHWC, `C` innermost) into `output` of the same length.
    pub(super) fn run(&self, input: &[i8], output: &mut [i8]) {
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let zp = V128::splat_i32(self.q.output_offset);
        let (ic, _) = input.as_chunks::<16>();
        let (oc, ot) = output.as_chunks_mut::<16>();
        for (i, (x, o)) in ic.iter().zip(oc.iter_mut()).enumerate() {
            let p = &self.patterns[i % self.patterns.len()];
            let x = super::elementwise_int::widen16(V128::load_i8(x));
            let r = [0, 1, 2, 3].map(|q| {
                let acc = x[q]
                    .i32x4_mul(V128::load_i32(&p.w[q]))
                    .i32x4_add(V128::load_i32(&p.bias[q]));
                p.rq[q].apply(acc, self.any_left, self.clamp, zp)
            });
            super::elementwise_int::narrow16(r, lo, hi).store_i8(o);
        }
        let full = oc.len() * 16;
        let c = self.scalar.len();
        for (j, o) in ot.iter_mut().enumerate() {
            let i = full + j;
            let (w, b) = self.scalar[i % c];
            let acc = w.wrapping_mul(i32::from(input[i])).wrapping_add(b);
            // Clamped to the activation range, inside int8.
            *o = self.q.finish(acc, i % c) as i8;
        }
    }
}
