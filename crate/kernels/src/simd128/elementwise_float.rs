//! float32 elementwise kernels in four lanes, bit-identical to the reference: the binary ops of
//! [`reference::elementwise::binary`](crate::reference::elementwise::binary) (ADD, SUB, MUL,
//! DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE with the fused clamp), PRELU
//! ([`reference::elementwise::prelu`](crate::reference::elementwise::prelu)) and the clamp of
//! RELU / RELU6 / RELU_N1_TO_1 / RELU_0_TO_1
//! ([`reference::activations::clamp`](crate::reference::activations::clamp)).
//!
//! Each output element gets the reference's own function of its two inputs: one IEEE operation
//! (`f32x4.add` / `sub` / `mul` / `div` round like the scalar ones), MAXIMUM `a > b ? a : b` as
//! `f32x4.pmax(b, a)` and MINIMUM `a < b ? a : b` as `f32x4.pmin(b, a)` (the operand order that
//! keeps the reference's answer when a NaN or a signed zero is compared), PRELU `x >= 0 ? x :
//! x · α` as a select on `f32x4.ge`, and the clamp `x < min ? min : x`, then `max < y ? max : y`.
//! Broadcasting runs over [`BinaryRuns`] (each operand contiguous or one value along a run);
//! the last `len mod 4` elements of a run use the reference's scalar functions.

use super::conv_float::clamp;
use super::elementwise_int::BinaryRuns;
use super::v128::V128;
use crate::PackedKernel;
use crate::reference::ActivationRange;
use crate::reference::elementwise::BinaryOp;

/// `out[i] = lanes(a_i, b_i)` over one run, four at a time, then `one` on the tail; an operand
/// `(values, constant)` gives `values[i]`, or `values[0]` for every `i` when `constant`.
#[inline(always)]
fn run4(
    a: (&[f32], bool),
    b: (&[f32], bool),
    out: &mut [f32],
    lanes: impl Fn(V128, V128) -> V128,
    one: impl Fn(f32, f32) -> f32,
) {
    let (Some(&a0), Some(&b0)) = (a.0.first(), b.0.first()) else {
        return;
    };
    let (sa, sb) = ([a0; 4], [b0; 4]);
    let ac = if a.1 { &sa[..] } else { a.0 }.as_chunks::<4>().0;
    let bc = if b.1 { &sb[..] } else { b.0 }.as_chunks::<4>().0;
    let full = out.len() / 4 * 4;
    let (oc, ot) = out.as_chunks_mut::<4>();
    for (i, o) in oc.iter_mut().enumerate() {
        let x = V128::load_f32(&ac[if a.1 { 0 } else { i }]);
        let y = V128::load_f32(&bc[if b.1 { 0 } else { i }]);
        lanes(x, y).store_f32(o);
    }
    for (j, o) in ot.iter_mut().enumerate() {
        let i = full + j;
        *o = one(a.0[if a.1 { 0 } else { i }], b.0[if b.1 { 0 } else { i }]);
    }
}

/// `out = f(a, b)` over the broadcast `runs`, with `f` given as four lanes and as one element.
#[inline(always)]
fn over_runs(
    runs: &BinaryRuns,
    a: &[f32],
    b: &[f32],
    out: &mut [f32],
    lanes: impl Fn(V128, V128) -> V128 + Copy,
    one: impl Fn(f32, f32) -> f32 + Copy,
) {
    let n = runs.run_len();
    let (a_const, b_const) = runs.constants();
    let (na, nb) = (if a_const { 1 } else { n }, if b_const { 1 } else { n });
    runs.for_each_run(|ai, bi, o| {
        run4(
            (&a[ai..ai + na], a_const),
            (&b[bi..bi + nb], b_const),
            &mut out[o..o + n],
            lanes,
            one,
        );
    });
}

/// A prepared float32 binary op with its fused clamp, over a broadcast.
#[derive(Debug, Clone)]
pub struct BinaryF32 {
    op: BinaryOp,
    act: ActivationRange,
    runs: BinaryRuns,
}

impl BinaryF32 {
    /// `op` then `act` over the broadcast of shapes `a` and `b`; `None` when they do not
    /// broadcast.
    pub fn new(op: BinaryOp, act: ActivationRange, a: &[usize], b: &[usize]) -> Option<Self> {
        Some(BinaryF32 {
            op,
            act,
            runs: BinaryRuns::new(a, b)?,
        })
    }

    /// `output = act(op(a, b))` (the shapes this was made for).
    pub fn run(&self, a: &[f32], b: &[f32], output: &mut [f32]) {
        let (op, act) = (self.op, self.act);
        let (lo, hi) = (V128::splat_f32(act.min), V128::splat_f32(act.max));
        let one = move |x: f32, y: f32| act.apply(op.apply(x, y));
        // ADD and MUL (most of the binary ops in real models) get loops of their own; the
        // rarer operations share one loop, the operation chosen per vector (a predictable
        // branch, ~1.5× slower than a loop of its own): seven loops would cost ~10 KB of wasm.
        let r = &self.runs;
        match op {
            BinaryOp::Add => over_runs(r, a, b, output, |x, y| clamp(x.f32x4_add(y), lo, hi), one),
            BinaryOp::Mul => over_runs(r, a, b, output, |x, y| clamp(x.f32x4_mul(y), lo, hi), one),
            _ => {
                let lanes = move |x: V128, y: V128| {
                    let v = match op {
                        BinaryOp::Add => x.f32x4_add(y),
                        BinaryOp::Sub => x.f32x4_sub(y),
                        BinaryOp::Mul => x.f32x4_mul(y),
                        BinaryOp::Div => x.f32x4_div(y),
                        BinaryOp::Maximum => y.f32x4_pmax(x),
                        BinaryOp::Minimum => y.f32x4_pmin(x),
                        BinaryOp::SquaredDifference => {
                            let d = x.f32x4_sub(y);
                            d.f32x4_mul(d)
                        }
                    };
                    clamp(v, lo, hi)
                };
                over_runs(r, a, b, output, lanes, one);
            }
        }
    }
}

/// A prepared float32 PRELU (`alpha` broadcast against the input).
#[derive(Debug, Clone)]
pub struct PreluF32 {
    runs: BinaryRuns,
}

impl PreluF32 {
    /// PRELU of an input of shape `input` with an `alpha` of shape `alpha`; `None` when they
    /// do not broadcast.
    pub fn new(input: &[usize], alpha: &[usize]) -> Option<Self> {
        Some(PreluF32 {
            runs: BinaryRuns::new(input, alpha)?,
        })
    }

    /// `output = x >= 0 ? x : x · alpha`.
    pub fn run(&self, input: &[f32], alpha: &[f32], output: &mut [f32]) {
        let zero = V128::splat_f32(0.0);
        over_runs(
            &self.runs,
            input,
            alpha,
            output,
            |x, a| x.bitselect(x.f32x4_mul(a), x.f32x4_ge(zero)),
            |x, a| if x >= 0.0 { x } else { x * a },
        );
    }
}

/// A float32 clamp (RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1).
#[derive(Debug, Clone, Copy)]
pub struct ClampF32(pub ActivationRange);

impl PackedKernel for ClampF32 {
    type Elem = f32;
    type Scratch = ();

    /// `output[i] = range.apply(input[i])`.
    fn run(&self, input: &[f32], output: &mut [f32], _: &mut ()) {
        let r = self.0;
        let (lo, hi) = (V128::splat_f32(r.min), V128::splat_f32(r.max));
        let (ic, it) = input.as_chunks::<4>();
        let (oc, ot) = output.as_chunks_mut::<4>();
        for (o, i) in oc.iter_mut().zip(ic) {
            clamp(V128::load_f32(i), lo, hi).store_f32(o);
        }
        for (o, &x) in ot.iter_mut().zip(it) {
            *o = r.apply(x);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::reference::activations;
    use crate::reference::elementwise::{self, Broadcast};
    use crate::simd128::tests::bits;

    /// NaN, ±inf, ±0, a denormal, the extremes, and ordinary numbers (the values that tell
    /// MAXIMUM, MINIMUM, PRELU, the clamps and pooling's max apart from look-alikes).
    pub(crate) fn value(rng: &mut fastrand::Rng) -> f32 {
        match rng.u8(0..16) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => f32::MIN,
            6 => f32::MAX,
            7 => 1e-40,
            _ => (rng.f32() - 0.5) * 20.0,
        }
    }

    fn values(rng: &mut fastrand::Rng, n: usize) -> Vec<f32> {
        (0..n).map(|_| value(rng)).collect()
    }

    /// A random shape pair that broadcasts: a full shape, and one with some dims set to 1 or
    /// dropped from the left; swapped half the time.
    fn shapes(rng: &mut fastrand::Rng) -> (Vec<usize>, Vec<usize>) {
        let rank = rng.usize(0..=4);
        let full: Vec<usize> = (0..rank).map(|_| rng.usize(1..=7)).collect();
        let drop = rng.usize(0..=rank);
        let other: Vec<usize> = full[drop..]
            .iter()
            .map(|&d| if rng.bool() { 1 } else { d })
            .collect();
        if rng.bool() {
            (full, other)
        } else {
            (other, full)
        }
    }

    const ACTS: [ActivationRange; 5] = [
        ActivationRange::NONE,
        ActivationRange::UNBOUNDED,
        ActivationRange::RELU,
        ActivationRange::RELU6,
        ActivationRange::RELU_N1_TO_1,
    ];

    const OPS: [BinaryOp; 7] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::SquaredDifference,
    ];

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn binary_and_prelu_match_the_reference_bit_for_bit_on_seeded_broadcasts() {
        let mut rng = fastrand::Rng::with_seed(0xf10a7);
        for case in 0..600 {
            let (sa, sb) = shapes(&mut rng);
            let shape = Broadcast::new(&sa, &sb).expect("the shapes broadcast");
            let n: usize = shape.dims().iter().product();
            let a = values(&mut rng, sa.iter().product());
            let b = values(&mut rng, sb.iter().product());
            let op = OPS[rng.usize(..OPS.len())];
            let act = ACTS[rng.usize(..ACTS.len())];
            let (mut want, mut got) = (vec![0f32; n], vec![1f32; n]);
            elementwise::binary(op, &shape, act, &a, &b, &mut want);
            BinaryF32::new(op, act, &sa, &sb)
                .expect("the shapes broadcast")
                .run(&a, &b, &mut got);
            assert_eq!(
                bits(&got),
                bits(&want),
                "case {case} {op:?} {act:?} {sa:?} {sb:?}"
            );
            elementwise::prelu(&shape, &a, &b, &mut want);
            got.fill(1.0);
            PreluF32::new(&sa, &sb)
                .expect("the shapes broadcast")
                .run(&a, &b, &mut got);
            assert_eq!(bits(&got), bits(&want), "case {case} PRELU {sa:?} {sb:?}");
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn clamp_matches_the_reference_bit_for_bit() {
        let mut rng = fastrand::Rng::with_seed(0xc1a);
        for n in [0, 1, 3, 4, 5, 17, 64] {
            let input = values(&mut rng, n);
            for act in ACTS {
                let (mut want, mut got) = (vec![0f32; n], vec![1f32; n]);
                activations::clamp(act, &input, &mut want);
                ClampF32(act).run(&input, &mut got, &mut ());
                assert_eq!(bits(&got), bits(&want), "{n} {act:?}");
            }
        }
    }
}
