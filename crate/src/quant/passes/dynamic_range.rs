//! Dynamic-range quantization (`--mode dynamic`): int8 weights for the ops with hybrid kernels,
//! everything else float. The fused LSTMs ([`LSTM_WEIGHTS`]) have several weights: all become
//! int8 (one symmetric scale each) or none. `--mode dynamic-int4`: INT4 weights for
//! FULLY_CONNECTED and CONV_2D, as AI Edge Quantizer's `dynamic_wi4` recipe writes them.

use std::collections::HashSet;

use super::edit::{
    compact_buffers, dims, f32s, per_axis_q, push_buffer, qerr, report_tensors, unify_versions,
};
use super::full_integer::resolve_ops;
use super::{Mode, QuantizeOptions};
use crate::error::Result;
use crate::graph::dtype::pack_int4;
use crate::graph::{
    BuiltinOperator as Op, BuiltinOptionsT, Model, Quantization, Subgraph, TensorType,
};
use crate::ops::registry::properties;
use crate::quant::params::{self, WeightRule, per_tensor_weights_int8};
use crate::quant::report::Report;

/// TF's `minimum_elements_for_weights`: dynamic-range quantization leaves smaller weights float.
pub const DYNAMIC_MIN_ELEMENTS: usize = 1024;

/// Dynamic-range quantization: int8 weights (per channel, TF's `PrepareDynamicRangeQuantize`
/// rule) for the weights of ops with hybrid kernels that have at least
/// [`DYNAMIC_MIN_ELEMENTS`] elements, in every subgraph (as TF does for the bodies of WHILE
/// loops); everything else stays float.
pub(super) fn dynamic_range(model: &Model, opts: &QuantizeOptions) -> Result<(Model, Report)> {
    let mut out = model.clone();
    let report = Report {
        mode: Mode::Dynamic.name().into(),
        io: "float".into(),
        ..Report::default()
    };
    // `--float-ops` names operators of subgraph 0; the subgraphs WHILE / IF run (loop bodies)
    // are quantized by the same rule.
    let float_ops = resolve_ops(&model.subgraphs[0], &opts.float_ops, "--float-ops")?;
    for (s, sg) in model.subgraphs.iter().enumerate() {
        let none = HashSet::new();
        let keep = if s == 0 { &float_ops } else { &none };
        quantize_subgraph(model, &mut out, s, sg, keep, opts)?;
    }
    unify_versions(&mut out);
    compact_buffers(&mut out);
    let report = report_tensors(report, &out);
    Ok((out, report))
}

/// The int8 weights of subgraph `s` of `model`, written into `out` (operators in `float_ops`
/// kept float).
fn quantize_subgraph(
    model: &Model,
    out: &mut Model,
    s: usize,
    sg: &Subgraph,
    float_ops: &HashSet<usize>,
    opts: &QuantizeOptions,
) -> Result<()> {
    let int4 = opts.mode == Mode::DynamicInt4;
    let mut done: HashSet<usize> = HashSet::new();
    let mut new_data = Vec::new();
    for (i, op) in sg.operators.iter().enumerate() {
        let code = op.code.op();
        if let Some(&(_, inputs)) = LSTM_WEIGHTS.iter().find(|(o, _)| *o == code) {
            if !float_ops.contains(&i) && !int4 {
                quantize_lstm(model, out, (s, i), inputs, opts, &mut done, &mut new_data)?;
            }
            continue;
        }
        let Some(p) = properties(code) else { continue };
        let Some(ws) = p.hybrid_weights() else {
            continue;
        };
        if !p.hybrid || float_ops.contains(&i) {
            continue;
        }
        // INT4: the two operators whose hybrid kernels LiteRT 2.3 runs with INT4 weights (and
        // the two AI Edge Quantizer's dynamic_wi4 recipe writes INT4 for).
        if int4 && !matches!(code, Op::FULLY_CONNECTED | Op::CONV_2D) {
            continue;
        }
        let Some(w) = op.input(ws.input) else {
            continue;
        };
        if !done.contains(&w) && !quantize_weight(model, out, (s, w), opts, ws.axis, &mut new_data)?
        {
            continue;
        }
        done.insert(w);
        // Every operator reading an int8 weight runs its hybrid kernel, a shared weight's
        // second reader too (TF marks each of them).
        let qop = &mut out.subgraphs[s].operators[i];
        qop.code.version = qop.code.version.max(p.hybrid_version);
        // TF's dynamic-range converter asks the hybrid FULLY_CONNECTED and BATCH_MATMUL
        // kernels to quantize their inputs asymmetrically (per batch row, with a zero point);
        // AI Edge Quantizer leaves the option as it was.
        if int4 {
            continue;
        }
        match &mut qop.options {
            BuiltinOptionsT::FullyConnectedOptions(o) => o.asymmetric_quantize_inputs = true,
            BuiltinOptionsT::BatchMatMulOptions(o) => o.asymmetric_quantize_inputs = true,
            _ => {}
        }
    }
    for (w, data) in new_data {
        let b = push_buffer(out, data);
        out.subgraphs[s].tensors[w].buffer = b;
    }
    Ok(())
}

/// The fused LSTMs TF's dynamic-range quantization makes hybrid, with their weight inputs (the
/// input-to-gate and recurrent-to-gate weights; bidirectional: both directions'). TF 2.21 writes
/// a Keras LSTM's UNIDIRECTIONAL_SEQUENCE_LSTM with all eight weights int8 per tensor, version
/// 3, `asymmetric_quantize_inputs` on, when each has at least [`DYNAMIC_MIN_ELEMENTS`] elements
/// (tests/realworld `lstm_fused`: its 32-unit LSTM; the 16-unit one, 512 elements a weight,
/// stays float). TF's converter never writes BIDIRECTIONAL_SEQUENCE_LSTM, so no TF model shows
/// its rule: the same is applied to its sixteen weights. An LSTM with peephole weights (never
/// written by TF's converter; the hybrid kernel reads them as int8 too) stays float.
pub const LSTM_WEIGHTS: [(Op, &[usize]); 2] = [
    (Op::UNIDIRECTIONAL_SEQUENCE_LSTM, &[1, 2, 3, 4, 5, 6, 7, 8]),
    (
        Op::BIDIRECTIONAL_SEQUENCE_LSTM,
        &[1, 2, 3, 4, 5, 6, 7, 8, 18, 19, 20, 21, 22, 23, 24, 25],
    ),
];

/// The peephole weight inputs of the fused LSTMs (both directions').
const LSTM_PEEPHOLES: [usize; 6] = [9, 10, 11, 26, 27, 28];

/// The operator version of a hybrid LSTM with asymmetric inputs, as TF writes it.
const LSTM_HYBRID_VERSION: i32 = 3;

/// Makes operator `i` of subgraph `s` a hybrid LSTM (see [`LSTM_WEIGHTS`]) when every weight it
/// has (an absent input-to-input gate, CIFG, is skipped) is a float32 constant of at least
/// [`DYNAMIC_MIN_ELEMENTS`] elements, or already int8 for another reader; else leaves it float.
fn quantize_lstm(
    model: &Model,
    out: &mut Model,
    (s, i): (usize, usize),
    inputs: &[usize],
    opts: &QuantizeOptions,
    done: &mut HashSet<usize>,
    new_data: &mut Vec<(usize, Vec<u8>)>,
) -> Result<()> {
    let op = &model.subgraphs[s].operators[i];
    let peephole = match op.code.op() {
        Op::BIDIRECTIONAL_SEQUENCE_LSTM => &LSTM_PEEPHOLES[..],
        _ => &LSTM_PEEPHOLES[..3],
    };
    if peephole.iter().any(|&k| op.input(k).is_some()) {
        return Ok(());
    }
    let weights: Vec<usize> = inputs.iter().filter_map(|&k| op.input(k)).collect();
    let eligible = |w: usize| {
        let t = &model.subgraphs[s].tensors[w];
        done.contains(&w)
            || (t.dtype == TensorType::FLOAT32
                && model
                    .tensor_data(s, w)
                    .is_some_and(|d| d.len() / 4 >= DYNAMIC_MIN_ELEMENTS))
    };
    if weights.is_empty() || !weights.iter().all(|&w| eligible(w)) {
        return Ok(());
    }
    for w in weights {
        if done.insert(w) {
            quantize_weight(model, out, (s, w), opts, None, new_data)?;
        }
    }
    let qop = &mut out.subgraphs[s].operators[i];
    qop.code.version = qop.code.version.max(LSTM_HYBRID_VERSION);
    match &mut qop.options {
        BuiltinOptionsT::UnidirectionalSequenceLSTMOptions(o) => {
            o.asymmetric_quantize_inputs = true
        }
        BuiltinOptionsT::BidirectionalSequenceLSTMOptions(o) => o.asymmetric_quantize_inputs = true,
        _ => {}
    }
    Ok(())
}

/// Quantizes constant tensor `w` of subgraph `s` to int8 (INT4 in `dynamic-int4`) for a hybrid kernel (per channel on
/// `axis` unless `--per-tensor`), its new data pushed to `new_data`: false (nothing done) when it
/// is not a float32 constant of at least [`DYNAMIC_MIN_ELEMENTS`] elements.
fn quantize_weight(
    model: &Model,
    out: &mut Model,
    (s, w): (usize, usize),
    opts: &QuantizeOptions,
    axis: Option<usize>,
    new_data: &mut Vec<(usize, Vec<u8>)>,
) -> Result<bool> {
    let t = &model.subgraphs[s].tensors[w];
    let Some(data) = model.tensor_data(s, w) else {
        return Ok(false);
    };
    if t.dtype != TensorType::FLOAT32 {
        return Ok(false);
    }
    let int4 = opts.mode == Mode::DynamicInt4;
    let values = f32s(data);
    // AI Edge Quantizer quantizes weights of every size (`min_weight_elements` 0).
    if !int4 && values.len() < DYNAMIC_MIN_ELEMENTS {
        return Ok(false);
    }
    let shape = dims(t);
    let label = format!("tensor {w} '{}'", t.name);
    let axis = axis.filter(|&a| !opts.per_tensor && a < shape.len());
    let q = match axis {
        _ if int4 => params::weights_int4(&values, &shape, axis),
        Some(a) => params::per_channel_weights_int8(&values, &shape, a, WeightRule::DynamicRange),
        None => per_tensor_weights_int8(&values, WeightRule::DynamicRange),
    }
    .map_err(|e| qerr(label, e.to_string()))?;
    let zps = q.zero_points.iter().map(|&z| i64::from(z)).collect();
    let x = &mut out.subgraphs[s].tensors[w];
    x.dtype = if int4 {
        TensorType::INT4
    } else {
        TensorType::INT8
    };
    x.quantization = Some(match axis {
        Some(a) => per_axis_q(q.scales, zps, a),
        None => Quantization {
            scale: Some(q.scales),
            zero_point: Some(zps),
            ..Quantization::default()
        },
    });
    new_data.push((
        w,
        if int4 {
            pack_int4(&q.values)
        } else {
            q.values.iter().map(|&v| v as u8).collect()
        },
    ));
    Ok(true)
}
