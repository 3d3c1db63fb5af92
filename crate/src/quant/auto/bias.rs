//! Bias correction: the systematic error int8 weight quantization adds to each output channel of
//! CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, `E[W_q·x] − E[W·x] = (W_q − W)·E[x]`, measured
//! on the calibration samples and subtracted from the float bias before quantizing (Nagel et al.,
//! "Data-Free Quantization", empirical bias correction).
//!
//! `E[x]` is the per-channel mean of the operator's float input over the samples (the float
//! model's values; channels = the input's innermost axis, or for FULLY_CONNECTED the weights'
//! input size, as the kernel reads the input as rows of that size). `W_q` is the weights
//! quantized and dequantized exactly as the quantizer will ([`per_channel_weights_int8`] or
//! [`per_tensor_weights_int8`] with TF's full-integer rule). The correction treats every output
//! position as seeing the channel means over the whole kernel window (padding at the borders is
//! not modelled), which is why `--auto` keeps it only when the measured SQNR improves.
//!
//! After weight clipping ([`super::clip`]) `W_q` comes from the clipped weights and `W` stays the
//! weights before clipping (the `reference` model, whose inputs `E[x]` is measured on), so the
//! correction covers the clipping's systematic error too.
//!
//! Operators without a float32 constant bias (or whose weights are not a float32 constant) are
//! left alone; a bias buffer shared with another tensor gets its own copy.

use super::{dims, floats};
use std::collections::HashMap;

use super::equalize::set_constant;
use crate::engine::compare::{real_values, set_input_real};
use crate::engine::{Interpreter, Limits, TensorId};
use crate::error::Result;
use crate::graph::{BuiltinOperator as Op, Model, ShapeOverrides};
use crate::quant::calibrate::CALIBRATION_KERNELS;
use crate::quant::params::{WeightRule, per_channel_weights_int8, per_tensor_weights_int8};

/// One operator to correct: its index and the tensors it reads.
struct Target {
    op: usize,
    input: usize,
    weights: usize,
    bias: usize,
    /// Channels of `E[x]`.
    channels: usize,
}

/// The operators of subgraph 0 bias correction applies to.
fn targets(model: &Model) -> Vec<Target> {
    let mut out = Vec::new();
    for (i, op, weights) in super::weighted_ops(model) {
        let (Some(input), Some(bias)) = (op.input(0), op.input(2)) else {
            continue;
        };
        if !super::is_f32_constant(model, bias) || super::is_f32_constant(model, input) {
            continue;
        }
        let w = dims(model, weights);
        let channels = match op.code.op() {
            Op::FULLY_CONNECTED => w.get(1).copied(),
            _ => dims(model, input).last().copied(),
        };
        let Some(channels) = channels.filter(|&c| c > 0) else {
            continue;
        };
        out.push(Target {
            op: i,
            input,
            weights,
            bias,
            channels,
        });
    }
    out
}

/// Per-channel means of the float inputs of `targets` over `samples`.
fn input_means(
    model: &Model,
    targets: &[Target],
    samples: &[Vec<Vec<f32>>],
    shapes: &ShapeOverrides,
) -> Result<HashMap<usize, Vec<f64>>> {
    let mut m = model.clone();
    shapes.apply(&mut m)?;
    let wanted: HashMap<usize, usize> = targets.iter().map(|t| (t.input, t.channels)).collect();
    let mut sums: HashMap<usize, (Vec<f64>, Vec<u64>)> = HashMap::new();
    let mut fi = Interpreter::with_options(&m, &Limits::default(), CALIBRATION_KERNELS)?;
    for sample in samples {
        for (i, x) in sample.iter().enumerate() {
            set_input_real(&mut fi, &m, i, x)?;
        }
        fi.invoke_with(&mut |TensorId(t), view| {
            let Some(&c) = wanted.get(&t) else { return };
            let Some(v) = real_values(&view, None) else {
                return;
            };
            let (s, n) = sums.entry(t).or_insert_with(|| (vec![0.0; c], vec![0; c]));
            for (k, x) in v.iter().enumerate() {
                s[k % c] += x;
                n[k % c] += 1;
            }
        })?;
    }
    Ok(sums
        .into_iter()
        .map(|(t, (s, n))| {
            let mean = s
                .iter()
                .zip(&n)
                .map(|(s, &n)| if n == 0 { 0.0 } else { s / n as f64 })
                .collect();
            (t, mean)
        })
        .collect())
}

/// `(W_q − W)·E[x]` per output channel of one target, or `None` when the shapes do not fit.
fn channel_error(
    model: &Model,
    reference: &Model,
    kind: Op,
    target: &Target,
    mean: &[f64],
    per_tensor: bool,
) -> Result<Option<Vec<f64>>> {
    let (Some(data), Some(quantized)) = (
        reference.tensor_data(0, target.weights),
        model.tensor_data(0, target.weights),
    ) else {
        return Ok(None);
    };
    let (w, wq) = (floats(data), floats(quantized));
    let shape = dims(model, target.weights);
    if shape.iter().product::<usize>() != w.len() || w.is_empty() || wq.len() != w.len() {
        return Ok(None);
    }
    let axis = if kind == Op::DEPTHWISE_CONV_2D {
        shape.len() - 1
    } else {
        0
    };
    let q = if per_tensor {
        per_tensor_weights_int8(&wq, WeightRule::FullInteger)?
    } else {
        per_channel_weights_int8(&wq, &shape, axis, WeightRule::FullInteger)?
    };
    let out_channels = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let scale = |k: usize| {
        let ch = (k / inner.max(1)) % out_channels;
        f64::from(q.scales.get(ch).copied().unwrap_or(q.scales[0]))
    };
    let mut err = vec![0.0f64; out_channels];
    match kind {
        Op::DEPTHWISE_CONV_2D => {
            // [1, KH, KW, C_in·M]: output channel c reads input channel c / M.
            let in_ch = mean.len();
            if in_ch == 0 || !out_channels.is_multiple_of(in_ch) {
                return Ok(None);
            }
            let m = out_channels / in_ch;
            for (k, (&wf, &wq)) in w.iter().zip(&q.values).enumerate() {
                let c = k % out_channels;
                let dw = f64::from(wq) * scale(k) - f64::from(wf);
                err[c] += dw * mean[c / m];
            }
        }
        _ => {
            // [O, …, I]: output channel k / inner reads input channel k % I.
            let i = *shape.last().unwrap_or(&1);
            if i != mean.len() {
                return Ok(None);
            }
            for (k, (&wf, &wq)) in w.iter().zip(&q.values).enumerate() {
                let dw = f64::from(wq) * scale(k) - f64::from(wf);
                err[k / inner] += dw * mean[k % i];
            }
        }
    }
    Ok(Some(err))
}

/// `model` with the bias of every CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED corrected for its
/// weights' quantization error against `reference` (the same model before weight clipping, or
/// `model` itself), and the operators corrected (subgraph 0 indices); `None` when no operator
/// applies.
///
/// # Errors
/// What the engine refuses when running the float model; weights the quantizer would refuse.
pub fn bias_corrected(
    model: &Model,
    reference: &Model,
    samples: &[Vec<Vec<f32>>],
    shapes: &ShapeOverrides,
    per_tensor: bool,
) -> Result<Option<(Model, Vec<usize>)>> {
    let targets = targets(model);
    if targets.is_empty() || samples.is_empty() {
        return Ok(None);
    }
    let means = input_means(reference, &targets, samples, shapes)?;
    let mut out = model.clone();
    let mut changed = Vec::new();
    for t in &targets {
        let kind = model.subgraphs[0].operators[t.op].code.op();
        let Some(mean) = means.get(&t.input) else {
            continue;
        };
        let Some(err) = channel_error(model, reference, kind, t, mean, per_tensor)? else {
            continue;
        };
        let Some(bias) = out.tensor_data(0, t.bias).map(floats) else {
            continue;
        };
        if bias.len() != err.len() {
            continue;
        }
        let fixed: Vec<f32> = bias
            .iter()
            .zip(&err)
            .map(|(&b, &e)| (f64::from(b) - e) as f32)
            .collect();
        set_constant(&mut out, t.bias, &fixed);
        changed.push(t.op);
    }
    Ok((!changed.is_empty()).then_some((out, changed)))
}
