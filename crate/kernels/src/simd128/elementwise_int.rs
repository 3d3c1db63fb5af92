//! int8 ADD / SUB / MUL / MAXIMUM / MINIMUM, bit-identical to
//! [`reference::elementwise`](crate::reference::elementwise)'s quantized kernels, on
//! same-shaped tensors and on broadcasts.
//!
//! Sixteen elements per step: widened to four `i32x4`, each input's offset, left shift and
//! multiplier applied with the reference's wrapping arithmetic and double-rounding
//! requantization ([`ChannelRequant`]: the constants are per tensor, so uniform across lanes),
//! the output requantized, offset and clamped, then narrowed back. The last `n mod 16` elements
//! of a run run the reference's scalar arithmetic.
//!
//! Broadcasting ([`BinaryRuns`]) splits the output into runs along its innermost dims over which
//! each operand is either contiguous (the same-shape case, or `[1,H,W,C] + [1,1,1,C]`: the row
//! of `b` repeated) or one value (a scalar operand, or `[1,H,W,C] · [1,H,W,1]`); a constant
//! operand is splatted across the lanes. Every output element gets the same per-element
//! function of its two inputs as the reference, so the order in which runs are visited does
//! not matter. The XNNPACK-arithmetic kernels ([`super::elementwise_xnn`]) share this driver.

use super::near::NearAffine2;
use super::requant::{ChannelRequant, SmallInputRequant};
use super::v128::V128;
use crate::reference::elementwise::{QuantAddSub, QuantMul};
use crate::reference::{MAX_RANK, next_index};

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
pub(crate) fn clamp_range(min: i32, max: i32) -> Option<(i8, i8)> {
    Some((i8::try_from(min).ok()?, i8::try_from(max.max(min)).ok()?))
}

/// An elementwise int8 operation: sixteen lanes at once, and its scalar definition for the
/// elements left over. Both give the same bits for every pair of inputs.
pub(crate) trait Lanes16 {
    /// Sixteen outputs from sixteen pairs of inputs.
    fn lanes(&self, x: V128, y: V128) -> V128;
    /// One output (the kernel's scalar definition).
    fn one(&self, x: i8, y: i8) -> i8;
}

/// `out[i] = k(a[i], b[i])` (all three slices the same length).
#[inline(always)]
fn run_pairs(k: &impl Lanes16, a: &[i8], b: &[i8], out: &mut [i8]) {
    run_operands(k, (a, false), (b, false), out);
}

/// `out[i] = k(x_i, y_i)` over one run, where an operand `(values, constant)` gives
/// `values[i]`, or `values[0]` for every `i` when `constant`. Contiguous and constant operands
/// share one loop (a constant is read from a splatted 16-byte block, the chunk index chosen per
/// step), so each operation's lanes are compiled once, not once per kind of run (wasm size).
fn run_operands(k: &impl Lanes16, a: (&[i8], bool), b: (&[i8], bool), out: &mut [i8]) {
    let (Some(&a0), Some(&b0)) = (a.0.first(), b.0.first()) else {
        return;
    };
    let (sa, sb) = ([a0; 16], [b0; 16]);
    let ac = if a.1 { &sa[..] } else { a.0 }.as_chunks::<16>().0;
    let bc = if b.1 { &sb[..] } else { b.0 }.as_chunks::<16>().0;
    let full = out.len() / 16 * 16;
    let (oc, ot) = out.as_chunks_mut::<16>();
    for (i, o) in oc.iter_mut().enumerate() {
        let x = V128::load_i8(&ac[if a.1 { 0 } else { i }]);
        let y = V128::load_i8(&bc[if b.1 { 0 } else { i }]);
        k.lanes(x, y).store_i8(o);
    }
    for (j, o) in ot.iter_mut().enumerate() {
        let i = full + j;
        *o = k.one(a.0[if a.1 { 0 } else { i }], b.0[if b.1 { 0 } else { i }]);
    }
}

/// The output of a broadcasting binary op as runs: the innermost dims over which each operand
/// is either contiguous or constant, and the outer dims that step from run to run.
#[derive(Debug, Clone)]
pub struct BinaryRuns {
    /// Number of outer dims.
    outer_rank: usize,
    outer: [usize; MAX_RANK],
    /// Element strides of each operand along the outer dims (0 where it is broadcast).
    a_strides: [usize; MAX_RANK],
    b_strides: [usize; MAX_RANK],
    /// Elements per run.
    len: usize,
    /// Output elements in all.
    total: usize,
    /// Whether each operand is one value along a run (else contiguous).
    a_constant: bool,
    b_constant: bool,
}

impl BinaryRuns {
    /// The runs of the broadcast of shapes `a` and `b` (shorter shapes padded with 1 on the
    /// left), or `None` when they do not broadcast or the rank exceeds [`MAX_RANK`].
    pub fn new(a: &[usize], b: &[usize]) -> Option<Self> {
        let rank = a.len().max(b.len());
        if rank > MAX_RANK {
            return None;
        }
        let pad = |s: &[usize]| {
            let mut d = [1usize; MAX_RANK];
            d[rank - s.len()..rank].copy_from_slice(s);
            d
        };
        let (da, db) = (pad(a), pad(b));
        let mut dims = [1usize; MAX_RANK];
        for i in 0..rank {
            dims[i] = match (da[i], db[i]) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                _ => return None,
            };
        }
        // Whether the suffix seen so far is contiguous (full) or constant (all 1) per operand.
        let (mut a_full, mut a_const, mut b_full, mut b_const) = (true, true, true, true);
        let mut split = rank;
        while split > 0 {
            let i = split - 1;
            let (af, ac) = (a_full && da[i] == dims[i], a_const && da[i] == 1);
            let (bf, bc) = (b_full && db[i] == dims[i], b_const && db[i] == 1);
            if !((af || ac) && (bf || bc)) {
                break;
            }
            (a_full, a_const, b_full, b_const) = (af, ac, bf, bc);
            split = i;
        }
        let strides = |d: &[usize; MAX_RANK]| {
            let mut out = [0usize; MAX_RANK];
            let mut acc = 1usize;
            for i in (0..rank).rev() {
                out[i] = if d[i] == 1 { 0 } else { acc };
                acc = acc.saturating_mul(d[i]);
            }
            out
        };
        let mut outer = [1usize; MAX_RANK];
        outer[..split].copy_from_slice(&dims[..split]);
        Some(Self {
            outer_rank: split,
            outer,
            a_strides: strides(&da),
            b_strides: strides(&db),
            len: dims[split..rank].iter().product(),
            total: dims[..rank].iter().product(),
            a_constant: !a_full,
            b_constant: !b_full,
        })
    }

    /// Elements per run.
    pub fn run_len(&self) -> usize {
        self.len
    }

    /// Whether operand `a`, and operand `b`, is one value along a run (else contiguous).
    pub(crate) fn constants(&self) -> (bool, bool) {
        (self.a_constant, self.b_constant)
    }

    /// Calls `f(a_index, b_index, out_index)` at the start of every run, in output order.
    #[inline(always)]
    pub(crate) fn for_each_run(&self, mut f: impl FnMut(usize, usize, usize)) {
        if self.total == 0 {
            return;
        }
        let mut idx = [0usize; MAX_RANK];
        let dims = &self.outer[..self.outer_rank];
        let mut o = 0usize;
        loop {
            let (mut ai, mut bi) = (0usize, 0usize);
            for (d, &x) in idx[..self.outer_rank].iter().enumerate() {
                ai += x * self.a_strides[d];
                bi += x * self.b_strides[d];
            }
            f(ai, bi, o);
            o += self.len;
            if !next_index(dims, &mut idx[..self.outer_rank]) {
                break;
            }
        }
    }

    /// `out = k(a, b)` over the broadcast (`a`, `b` and `out` of the shapes this was made for).
    pub(crate) fn apply(&self, k: &impl Lanes16, a: &[i8], b: &[i8], out: &mut [i8]) {
        let n = self.len;
        let (na, nb) = (
            if self.a_constant { 1 } else { n },
            if self.b_constant { 1 } else { n },
        );
        self.for_each_run(|ai, bi, o| {
            run_operands(
                k,
                (&a[ai..ai + na], self.a_constant),
                (&b[bi..bi + nb], self.b_constant),
                &mut out[o..o + n],
            );
        });
    }
}

/// Prepared int8 ADD / SUB.
#[derive(Debug, Clone)]
pub struct AddSubInt8 {
    p: QuantAddSub,
    rq1: ChannelRequant,
    rq2: ChannelRequant,
    /// The two input stages in 32-bit lanes ([`SmallInputRequant`]) when the offsets, the left
    /// shift and the input shifts allow (LiteRT's int8 ADD / SUB always do: left shift 20,
    /// offsets in `[−127, 128]`, input multipliers below one).
    small: Option<(SmallInputRequant, SmallInputRequant)>,
    rqo: ChannelRequant,
    act: (i8, i8),
    /// The `f32` form with its certified margin ([`super::near`]), where the bounds allow: the
    /// exact arithmetic above then runs only for vectors with a lane near a rounding boundary.
    near: Option<NearAffine2>,
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
            small: small_inputs(p),
            rqo: ChannelRequant::new(p.output_multiplier, p.output_shift)?,
            act: clamp_range(p.act_min, p.act_max)?,
            near: NearAffine2::add_sub(p),
        })
    }

    /// Whether the certified `f32` form is in use (the `simd128::near` module).
    pub fn uses_f32_form(&self) -> bool {
        self.near.is_some()
    }

    /// `output[i] = a[i] ± b[i]` requantized (all three slices the same length).
    pub fn run(&self, a: &[i8], b: &[i8], output: &mut [i8]) {
        run_pairs(self, a, b, output);
    }

    /// `output = a ± b` requantized over the broadcast `runs`.
    pub fn run_broadcast(&self, runs: &BinaryRuns, a: &[i8], b: &[i8], output: &mut [i8]) {
        runs.apply(self, a, b, output);
    }
}

/// The input stages of `p` without 64-bit products, when `|x + offset| ≤ 256` for every int8
/// `x` and the shifts are in [`SmallInputRequant`]'s range.
fn small_inputs(p: &QuantAddSub) -> Option<(SmallInputRequant, SmallInputRequant)> {
    let fits = |offset: i32| (-128..=128).contains(&offset);
    if !(fits(p.input1_offset) && fits(p.input2_offset)) {
        return None;
    }
    Some((
        SmallInputRequant::new(p.input1_multiplier, p.input1_shift, p.left_shift)?,
        SmallInputRequant::new(p.input2_multiplier, p.input2_shift, p.left_shift)?,
    ))
}

impl Lanes16 for AddSubInt8 {
    #[inline(always)]
    fn lanes(&self, x: V128, y: V128) -> V128 {
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        if let Some(r) = self.near.as_ref().and_then(|n| n.lanes(x, y)) {
            return narrow16(r, lo, hi);
        }
        self.exact_lanes(x, y)
    }

    // Left to the inliner (not `inline(always)`): only the tails call it (wasm size).
    fn one(&self, x: i8, y: i8) -> i8 {
        // In [act_min, act_max] ⊆ int8.
        self.p.apply(i32::from(x), i32::from(y)) as i8
    }
}

impl AddSubInt8 {
    /// [`Lanes16::lanes`] in the exact fixed-point arithmetic.
    #[inline(never)]
    fn exact_lanes(&self, x: V128, y: V128) -> V128 {
        let p = &self.p;
        let (o1, o2) = (
            V128::splat_i32(p.input1_offset),
            V128::splat_i32(p.input2_offset),
        );
        let zp = V128::splat_i32(p.output_offset);
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let shift = p.left_shift as u32;
        let (x, y) = (widen16(x), widen16(y));
        let r = [0, 1, 2, 3].map(|i| {
            let (x, y) = match &self.small {
                Some((s1, s2)) => (s1.apply(x[i].i32x4_add(o1)), s2.apply(y[i].i32x4_add(o2))),
                None => (
                    self.rq1.apply(x[i].i32x4_add(o1).i32x4_shl(shift)),
                    self.rq2.apply(y[i].i32x4_add(o2).i32x4_shl(shift)),
                ),
            };
            let raw = if p.sub {
                x.i32x4_sub(y)
            } else {
                x.i32x4_add(y)
            };
            self.rqo.apply(raw).i32x4_add(zp)
        });
        narrow16(r, lo, hi)
    }
}

/// Prepared int8 MUL.
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
        run_pairs(self, a, b, output);
    }

    /// `output = a · b` requantized over the broadcast `runs`.
    pub fn run_broadcast(&self, runs: &BinaryRuns, a: &[i8], b: &[i8], output: &mut [i8]) {
        runs.apply(self, a, b, output);
    }
}

impl Lanes16 for MulInt8 {
    #[inline(always)]
    fn lanes(&self, x: V128, y: V128) -> V128 {
        let p = &self.p;
        let (o1, o2) = (
            V128::splat_i32(p.input1_offset),
            V128::splat_i32(p.input2_offset),
        );
        let zp = V128::splat_i32(p.output_offset);
        let (lo, hi) = (V128::splat_i8(self.act.0), V128::splat_i8(self.act.1));
        let (x, y) = (widen16(x), widen16(y));
        let r = [0, 1, 2, 3].map(|i| {
            self.rq
                .apply(x[i].i32x4_add(o1).i32x4_mul(y[i].i32x4_add(o2)))
                .i32x4_add(zp)
        });
        narrow16(r, lo, hi)
    }

    // Left to the inliner (not `inline(always)`): only the tails call it (wasm size).
    fn one(&self, x: i8, y: i8) -> i8 {
        let p = &self.p;
        let x = p.input1_offset.wrapping_add(i32::from(x));
        let y = p.input2_offset.wrapping_add(i32::from(y));
        let r = crate::fixedpoint::multiply_by_quantized_multiplier(
            x.wrapping_mul(y),
            p.multiplier,
            p.shift,
        )
        .wrapping_add(p.output_offset);
        // Clamped to an int8 range.
        r.clamp(i32::from(self.act.0), i32::from(self.act.1)) as i8
    }
}

/// int8 MAXIMUM (`true`) / MINIMUM (`false`): raw values compared, as the reference does.
#[derive(Debug, Clone, Copy)]
pub struct MaxMinInt8(pub bool);

impl Lanes16 for MaxMinInt8 {
    #[inline(always)]
    fn lanes(&self, x: V128, y: V128) -> V128 {
        if self.0 {
            x.i8x16_max(y)
        } else {
            x.i8x16_min(y)
        }
    }

    #[inline(always)]
    fn one(&self, x: i8, y: i8) -> i8 {
        if self.0 { x.max(y) } else { x.min(y) }
    }
}

impl MaxMinInt8 {
    /// `output = max(a, b)` / `min(a, b)` over the broadcast `runs`.
    pub fn run_broadcast(&self, runs: &BinaryRuns, a: &[i8], b: &[i8], output: &mut [i8]) {
        runs.apply(self, a, b, output);
    }
}

/// int8 MAXIMUM / MINIMUM of same-shaped tensors (raw values compared, as the reference).
pub fn max_min_int8(maximum: bool, a: &[i8], b: &[i8], output: &mut [i8]) {
    run_pairs(&MaxMinInt8(maximum), a, b, output);
}
