//! Part 1: weights and biases of every weight-bearing operator, quantized by us with the rule of
//! the converter mode, against TF's values, scales (f32 bits) and zero points.

use std::fmt::Write as _;

use zeropoint::graph::{Model, TensorType};
use zeropoint::quant::params::{
    bias_int32, bias_int64, per_channel_weights_int8, per_channel_weights_int8_for_bias,
    per_tensor_weights_int8, widen_for_bias_int32,
};

use super::graph::{
    bits, data, dims, f32s, first_diff, i32s, i64s, pair_ops, producers, scales,
    through_dequantize, zero_points,
};
use super::{BiasKind, Mode, Tally};

/// Where an operator's weights live: (weights input, per-channel axis, bias input, activation
/// input).
fn weight_slots(op: &str) -> Option<(usize, usize, Option<usize>, usize)> {
    match op {
        "CONV_2D" | "FULLY_CONNECTED" => Some((1, 0, Some(2), 0)),
        "DEPTHWISE_CONV_2D" => Some((1, 3, Some(2), 0)),
        // Inputs: output shape, weights, activation, bias.
        "TRANSPOSE_CONV" => Some((1, 0, Some(3), 2)),
        "CONV_3D" => Some((1, 4, Some(2), 0)),
        _ => None,
    }
}

/// Part 1: weights and bias of every weight-bearing operator.
pub(crate) fn compare_weights(
    float: &Model,
    quant: &Model,
    mode: Mode,
    tally: &mut Tally,
    what: &str,
) {
    let (fsg, qsg) = (&float.subgraphs[0], &quant.subgraphs[0]);
    let (fprod, qprod) = (producers(fsg), producers(qsg));
    let mut biases_seen = std::collections::HashSet::new();
    for (fi, qi, _) in pair_ops(fsg, qsg, what) {
        let (fop, qop) = (&fsg.operators[fi], &qsg.operators[qi]);
        let op_name = fop.code.name();
        let Some((w_slot, axis, b_slot, in_slot)) = weight_slots(&op_name) else {
            continue;
        };
        let (Some(fw), Some(qw)) = (fop.input(w_slot), qop.input(w_slot)) else {
            continue;
        };
        let fw = through_dequantize(fsg, &fprod, fw);
        let qw = through_dequantize(qsg, &qprod, qw);
        let (ft, qt) = (&fsg.tensors[fw], &qsg.tensors[qw]);
        if ft.dtype != TensorType::FLOAT32 || data(float, fw).is_empty() {
            continue;
        }
        if qt.dtype == TensorType::FLOAT32 {
            // Dynamic range leaves small weights float (fewer than 1024 elements).
            tally.weights_kept_float += 1;
            continue;
        }
        let label = format!("op {qi} ({op_name}) weights '{}'", qt.name);
        if qt.dtype != TensorType::INT8 {
            tally.check(
                |t| &mut t.weights,
                &label,
                &qt.name,
                format!("TF's type is {:?}", qt.dtype),
            );
            continue;
        }
        let w = f32s(data(float, fw));
        let shape = dims(ft);
        let tf_scales = scales(qt);
        let channels = shape.get(axis).copied().unwrap_or(0);
        let per_tensor = tf_scales.len() == 1 && channels != 1;
        // The bias (float in the float model) and TF's input scale, for the weight-range
        // adjustment that keeps the bias representable.
        let bias_fit = b_slot
            .and_then(|k| fop.input(k))
            .filter(|&fb| fsg.tensors[fb].dtype == TensorType::FLOAT32)
            .map(|fb| f32s(data(float, fb)))
            .filter(|b| !b.is_empty())
            .zip(
                qop.input(in_slot)
                    .and_then(|t| scales(&qsg.tensors[t]).first().copied()),
            );
        let ours = match (per_tensor, &bias_fit) {
            (true, _) => per_tensor_weights_int8(&w, mode.weights),
            (false, Some((b, s_in))) if mode.bias != BiasKind::Float => {
                per_channel_weights_int8_for_bias(&w, &shape, axis, mode.weights, b, *s_in)
            }
            (false, _) => per_channel_weights_int8(&w, &shape, axis, mode.weights),
        };
        // Int8 (MLIR): scales widened where the int32 bias would overflow.
        let ours = match (ours, &bias_fit) {
            (Ok(mut q), Some((b, s_in))) if mode.bias == BiasKind::Int32 => {
                let axis = (!per_tensor).then_some(axis);
                widen_for_bias_int32(&mut q, &w, &shape, axis, b, *s_in).map(|_| q)
            }
            (other, _) => other,
        };
        let tf_values: Vec<i8> = data(quant, qw).iter().map(|&b| b as i8).collect();
        let mut problem = String::new();
        match ours {
            Err(e) => problem = format!("ours failed: {e}"),
            Ok(ours) => {
                tally.weight_values += w.len();
                problem += &first_diff(&ours.values, &tf_values, &w);
                if bits(&ours.scales) != bits(&tf_scales) {
                    let d = first_diff(&bits(&ours.scales), &bits(&tf_scales), &[]);
                    let _ = write!(problem, " scales (f32 bits): {d}");
                }
                let ours_zp: Vec<i64> = ours.zero_points.iter().map(|&z| i64::from(z)).collect();
                if ours_zp != zero_points(qt) {
                    let _ = write!(
                        problem,
                        " zero points: ours {ours_zp:?}, TF {:?}",
                        zero_points(qt)
                    );
                }
                let tf_axis = qt
                    .quantization
                    .as_ref()
                    .map_or(0, |q| q.quantized_dimension);
                if !per_tensor && usize::try_from(tf_axis).ok() != Some(axis) {
                    let _ = write!(problem, " axis: ours {axis}, TF {tf_axis}");
                }
            }
        }
        tally.check(|t| &mut t.weights, &label, &qt.name, problem);

        // The bias, from TF's own input and weight scales.
        if mode.bias == BiasKind::Float {
            continue;
        }
        let Some(b_slot) = b_slot else { continue };
        let (Some(fb), Some(qb), Some(qin)) =
            (fop.input(b_slot), qop.input(b_slot), qop.input(in_slot))
        else {
            continue;
        };
        let (fbt, qbt) = (&fsg.tensors[fb], &qsg.tensors[qb]);
        if fbt.dtype != TensorType::FLOAT32 || data(float, fb).is_empty() {
            continue;
        }
        // TF's 16x8 quantizer quantizes a bias that several operators read once, for the first
        // of them (its scales are that operator's s_in · s_w): checked there.
        if !biases_seen.insert(qb) {
            continue;
        }
        let label = format!("op {qi} ({op_name}) bias '{}'", qbt.name);
        let b = f32s(data(float, fb));
        let Some(&s_in) = scales(&qsg.tensors[qin]).first() else {
            let problem = "TF's input has no scale".to_string();
            tally.check(|t| &mut t.biases, &label, &qbt.name, problem);
            continue;
        };
        let mut problem = String::new();
        let tf_bias_scales = scales(qbt);
        let (ours_scales, diff) = match (mode.bias, qbt.dtype) {
            (BiasKind::Int32, TensorType::INT32) => match bias_int32(&b, s_in, &tf_scales) {
                Ok(q) => (q.scales, first_diff(&q.values, &i32s(data(quant, qb)), &b)),
                Err(e) => (Vec::new(), format!("ours failed: {e}")),
            },
            (BiasKind::Int64, TensorType::INT64) => match bias_int64(&b, s_in, &tf_scales) {
                Ok(q) => (q.scales, first_diff(&q.values, &i64s(data(quant, qb)), &b)),
                Err(e) => (Vec::new(), format!("ours failed: {e}")),
            },
            (_, dtype) => (Vec::new(), format!("TF's bias type is {dtype:?}")),
        };
        problem += &diff;
        // A per-tensor bias scale is stored once.
        let ours_scales = if tf_bias_scales.len() == 1 && ours_scales.len() > 1 {
            ours_scales[..1].to_vec()
        } else {
            ours_scales
        };
        if problem.is_empty() && bits(&ours_scales) != bits(&tf_bias_scales) {
            let d = first_diff(&bits(&ours_scales), &bits(&tf_bias_scales), &[]);
            let _ = write!(problem, " scales (f32 bits): {d}");
        }
        if zero_points(qbt).iter().any(|&z| z != 0) {
            let _ = write!(
                problem,
                " TF's zero points are not 0: {:?}",
                zero_points(qbt)
            );
        }
        tally.check(|t| &mut t.biases, &label, &qbt.name, problem);
    }
}
