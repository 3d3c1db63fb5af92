//! Cross-layer equalization (Nagel et al. 2019, "Data-Free Quantization Through Weight
//! Equalization and Bias Correction", section 4.1): for two convolutions in a chain, output
//! channel `c` of the first is divided by `s_c` and input channel `c` of the second multiplied by
//! it, with `s_c = sqrt(r1_c · r2_c) / r2_c` (`r1_c` the largest |weight| of the first's output
//! channel `c`, `r2_c` the largest |weight| of the second's input channel `c`), so both get the
//! range `sqrt(r1_c · r2_c)`. The float function is unchanged because `relu(x / s) = relu(x) / s`
//! for `s > 0`; the tensor between them gets channel ranges closer to each other, which its one
//! int8 scale serves better.
//!
//! Pairs: a CONV_2D or DEPTHWISE_CONV_2D with fused activation NONE or RELU (RELU6 and
//! RELU_N1_TO_1 clip at a fixed bound, which scaling a channel would move: not equalized), whose
//! output only a CONV_2D reads (as its input, not a graph output), with float32 constant weights
//! (and bias) each read by that operator alone. Chains longer than two are equalized by repeating
//! the pass ([`ROUNDS`]). Only constants change: the model has the same operators and tensors
//! and runs in stock LiteRT as before.

use super::{dims, floats};
use crate::error::Result;
use crate::graph::lint::fused_activation;
use crate::graph::{ActivationFunctionType, BuiltinOperator as Op, Model, TensorType};

/// Passes over all pairs (a channel of a middle layer is rescaled from both sides).
pub const ROUNDS: usize = 4;

/// Operator pairs `(first, second)` equalized (subgraph 0 indices).
pub type Pairs = Vec<(usize, usize)>;

/// One pair of operators to equalize (subgraph 0 indices).
struct Pair {
    first: usize,
    second: usize,
    w1: usize,
    b1: Option<usize>,
    w2: usize,
    /// Channels of the tensor between them.
    channels: usize,
    depthwise: bool,
}

/// How many operator input slots of subgraph 0 read each tensor, and whether it is a graph output.
fn readers(model: &Model) -> (Vec<usize>, Vec<bool>) {
    let sg = &model.subgraphs[0];
    let mut n = vec![0usize; sg.tensors.len()];
    for op in &sg.operators {
        for &t in &op.inputs {
            if let Some(c) = usize::try_from(t).ok().and_then(|t| n.get_mut(t)) {
                *c += 1;
            }
        }
    }
    let mut out = vec![false; sg.tensors.len()];
    for &t in &sg.outputs {
        if let Some(o) = usize::try_from(t).ok().and_then(|t| out.get_mut(t)) {
            *o = true;
        }
    }
    (n, out)
}

/// The pairs of subgraph 0 equalization applies to.
fn pairs(model: &Model) -> Vec<Pair> {
    let sg = &model.subgraphs[0];
    let (n, is_output) = readers(model);
    let f32_const = |t: usize| {
        sg.tensors
            .get(t)
            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
            && model.tensor_data(0, t).is_some()
            && n.get(t) == Some(&1)
    };
    let mut out = Vec::new();
    for (i, op) in sg.operators.iter().enumerate() {
        let depthwise = match op.code.op() {
            Op::DEPTHWISE_CONV_2D => true,
            Op::CONV_2D => false,
            _ => continue,
        };
        if !matches!(
            fused_activation(&op.options),
            Some(ActivationFunctionType::NONE | ActivationFunctionType::RELU)
        ) {
            continue;
        }
        let (Some(w1), Some(y)) = (op.input(1), op.output(0)) else {
            continue;
        };
        let b1 = op.input(2);
        if !f32_const(w1) || b1.is_some_and(|b| !f32_const(b)) || is_output[y] || n[y] != 1 {
            continue;
        }
        let Some(second) = sg.operators.iter().position(|o| {
            o.code.op() == Op::CONV_2D && o.input(0) == Some(y) && o.input(1).is_some()
        }) else {
            continue;
        };
        let Some(w2) = sg.operators[second].input(1).filter(|&w| f32_const(w)) else {
            continue;
        };
        let (s1, s2) = (dims(model, w1), dims(model, w2));
        let channels = if depthwise { s1.last() } else { s1.first() };
        let (Some(&channels), Some(&c2)) = (channels, s2.last()) else {
            continue;
        };
        let sizes_fit = |s: &[usize], t: usize| {
            model.tensor_data(0, t).map(<[u8]>::len) == Some(4 * s.iter().product::<usize>())
        };
        if channels == 0
            || channels != c2
            || s1.len() != 4
            || s2.len() != 4
            || !sizes_fit(&s1, w1)
            || !sizes_fit(&s2, w2)
            || b1.is_some_and(|b| !sizes_fit(&[channels], b))
        {
            continue;
        }
        out.push(Pair {
            first: i,
            second,
            w1,
            b1,
            w2,
            channels,
            depthwise,
        });
    }
    out
}

/// Replaces tensor `t`'s constant data; a buffer other tensors read too gets a copy first.
pub(super) fn set_constant(model: &mut Model, t: usize, values: &[f32]) {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    crate::quant::passes::set_constant_data(model, t, data);
}

/// The channel of element `k` of the first operator's weights.
fn first_channel(p: &Pair, k: usize, inner: usize) -> usize {
    if p.depthwise {
        k % p.channels
    } else {
        k / inner
    }
}

/// Equalizes one pair in `model`; whether any scale differed from 1.
fn equalize_pair(model: &mut Model, p: &Pair) -> Result<bool> {
    let (Some(w1), Some(w2)) = (model.tensor_data(0, p.w1), model.tensor_data(0, p.w2)) else {
        return Ok(false);
    };
    let (mut w1, mut w2) = (floats(w1), floats(w2));
    let c = p.channels;
    let inner1 = w1.len() / c;
    let mut r1 = vec![0.0f32; c];
    for (k, w) in w1.iter().enumerate() {
        let ch = first_channel(p, k, inner1);
        r1[ch] = r1[ch].max(w.abs());
    }
    let mut r2 = vec![0.0f32; c];
    for (k, w) in w2.iter().enumerate() {
        r2[k % c] = r2[k % c].max(w.abs());
    }
    let s: Vec<f32> = r1
        .iter()
        .zip(&r2)
        .map(|(&a, &b)| {
            let s = ((f64::from(a) * f64::from(b)).sqrt() / f64::from(b)) as f32;
            if a > 0.0 && b > 0.0 && s.is_finite() && s > 0.0 {
                s
            } else {
                1.0
            }
        })
        .collect();
    if s.iter().all(|&x| x == 1.0) {
        return Ok(false);
    }
    for (k, w) in w1.iter_mut().enumerate() {
        *w /= s[first_channel(p, k, inner1)];
    }
    for (k, w) in w2.iter_mut().enumerate() {
        *w *= s[k % c];
    }
    if let Some(b) = p.b1
        && let Some(data) = model.tensor_data(0, b)
    {
        let bias: Vec<f32> = floats(data).iter().zip(&s).map(|(&b, &s)| b / s).collect();
        set_constant(model, b, &bias);
    }
    set_constant(model, p.w1, &w1);
    set_constant(model, p.w2, &w2);
    Ok(true)
}

/// `model` with every pair equalized ([`ROUNDS`] passes), and the pairs equalized (operator
/// indices of subgraph 0); `None` when no pair applies.
///
/// # Errors
/// None today: a pair whose weights do not fit its shapes is skipped.
pub fn equalized(model: &Model) -> Result<Option<(Model, Pairs)>> {
    let pairs = pairs(model);
    let mut out = model.clone();
    let mut changed = vec![false; pairs.len()];
    for _ in 0..ROUNDS {
        for (p, ch) in pairs.iter().zip(changed.iter_mut()) {
            *ch |= equalize_pair(&mut out, p)?;
        }
    }
    let done: Pairs = pairs
        .iter()
        .zip(&changed)
        .filter(|&(_, &c)| c)
        .map(|(p, _)| (p.first, p.second))
        .collect();
    Ok((!done.is_empty()).then_some((out, done)))
}
