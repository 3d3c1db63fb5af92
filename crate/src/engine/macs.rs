//! Multiply-accumulate counts of a prepared model, for throughput figures (GMAC/s) in the
//! benchmark.
//!
//! Only the operators that dominate inference cost are counted — CONV_2D, DEPTHWISE_CONV_2D,
//! TRANSPOSE_CONV and FULLY_CONNECTED — with the usual conventions (the ones TF's profiler and
//! papers use): one MAC per weight use, bias additions, activations and requantization not
//! counted. Shapes come from the [`Interpreter`] (what prepare computed), falling back to the
//! model's declared shape for a tensor the interpreter does not hold (a folded-away constant).

use crate::engine::{Interpreter, TensorId};
use crate::graph::{BuiltinOperator, Model};

/// The MACs of one operator of subgraph 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpMacs {
    /// Index of the operator in subgraph 0.
    pub op_index: usize,
    /// Its name (`CONV_2D`, …).
    pub op_name: String,
    /// Multiply-accumulates of one invocation.
    pub macs: u64,
}

/// Per-operator MACs of subgraph 0 of `model`, as prepared in `interpreter` (which must have been
/// built from `model`), for every counted operator, in execution order:
///
/// - CONV_2D: output elements × filter height × filter width × filter input channels
///   (`filter[3]`, so grouped convolutions count their group's channels only);
/// - DEPTHWISE_CONV_2D: output elements × filter height × filter width;
/// - TRANSPOSE_CONV: input elements × filter height × filter width × output channels (every
///   input element is scattered into `fh·fw·oc` outputs);
/// - FULLY_CONNECTED: output elements × input depth (`weights[1]`).
///
/// An operator whose shapes are not available (which a prepared interpreter rules out) counts 0.
/// Products saturate at `u64::MAX`.
pub fn per_op(model: &Model, interpreter: &Interpreter) -> Vec<OpMacs> {
    let Some(sg) = model.subgraphs.first() else {
        return Vec::new();
    };
    // The shape prepare computed, else the declared one (never negative in a prepared model).
    let shape = |t: i32| -> Option<Vec<u64>> {
        let t = usize::try_from(t).ok()?;
        if let Some(view) = interpreter.tensor(TensorId(t)) {
            return Some(view.shape.iter().map(|&d| d as u64).collect());
        }
        let dims = sg.tensors.get(t)?.dims();
        dims.iter().map(|&d| u64::try_from(d).ok()).collect()
    };
    let elements = |s: &[u64]| s.iter().fold(1u64, |a, &d| a.saturating_mul(d));
    let product = |v: &[u64]| v.iter().fold(1u64, |a, &d| a.saturating_mul(d));
    let dim = |s: &[u64], i: usize| s.get(i).copied().unwrap_or(0);
    let mut out = Vec::new();
    for (op_index, op) in sg.operators.iter().enumerate() {
        let input = |k: usize| op.inputs.get(k).copied().and_then(shape);
        let output = || op.outputs.first().copied().and_then(shape);
        let macs = match op.code.op() {
            BuiltinOperator::CONV_2D => input(1)
                .zip(output())
                .map(|(f, o)| product(&[elements(&o), dim(&f, 1), dim(&f, 2), dim(&f, 3)])),
            BuiltinOperator::DEPTHWISE_CONV_2D => input(1)
                .zip(output())
                .map(|(f, o)| product(&[elements(&o), dim(&f, 1), dim(&f, 2)])),
            BuiltinOperator::TRANSPOSE_CONV => input(1)
                .zip(input(2))
                .map(|(f, i)| product(&[elements(&i), dim(&f, 1), dim(&f, 2), dim(&f, 0)])),
            BuiltinOperator::FULLY_CONNECTED => input(1)
                .zip(output())
                .map(|(w, o)| product(&[elements(&o), dim(&w, 1)])),
            _ => continue,
        };
        out.push(OpMacs {
            op_index,
            op_name: op.code.name(),
            macs: macs.unwrap_or(0),
        });
    }
    out
}

/// Total MACs of one invocation of subgraph 0 (the sum of [`per_op`], saturating).
pub fn count(model: &Model, interpreter: &Interpreter) -> u64 {
    per_op(model, interpreter)
        .iter()
        .fold(0u64, |a, m| a.saturating_add(m.macs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Buffer, BuiltinOptionsT, Operator, Subgraph, Tensor, TensorType};
    use crate::tflite::schema::{
        Conv2DOptionsT, DepthwiseConv2DOptionsT, Padding, TransposeConvOptionsT,
    };

    fn op(
        code: BuiltinOperator,
        inputs: &[i32],
        output: i32,
        options: BuiltinOptionsT,
    ) -> Operator {
        crate::engine::control_flow_tests::op(code, inputs, &[output], options)
    }

    /// x 1×8×8×3 → CONV_2D 3×3 s2 SAME, 4 filters → 1×4×4×4 → DEPTHWISE 3×3 s1 SAME → 1×4×4×4
    /// → TRANSPOSE_CONV 2×2 s2, 5 filters → 1×8×8×5 → RESHAPE 1×320 → FULLY_CONNECTED 10.
    fn small_model() -> Model {
        let f32t =
            |name: &str, shape: &[i32]| Tensor::new(name, TensorType::FLOAT32, shape.to_vec());
        let mut tensors = vec![
            f32t("x", &[1, 8, 8, 3]),                              // 0
            f32t("conv_w", &[4, 3, 3, 3]),                         // 1
            f32t("conv_b", &[4]),                                  // 2
            f32t("conv_y", &[1, 4, 4, 4]),                         // 3
            f32t("dw_w", &[1, 3, 3, 4]),                           // 4
            f32t("dw_b", &[4]),                                    // 5
            f32t("dw_y", &[1, 4, 4, 4]),                           // 6
            Tensor::new("tc_shape", TensorType::INT32, vec![4]),   // 7
            f32t("tc_w", &[5, 2, 2, 4]),                           // 8
            f32t("tc_y", &[1, 8, 8, 5]),                           // 9
            Tensor::new("flat_shape", TensorType::INT32, vec![2]), // 10
            f32t("flat", &[1, 320]),                               // 11
            f32t("fc_w", &[10, 320]),                              // 12
            f32t("fc_y", &[1, 10]),                                // 13
        ];
        let f32_bytes = |n: usize| vec![0u8; 4 * n];
        let i32_bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let consts = [
            (1, f32_bytes(4 * 27)),
            (2, f32_bytes(4)),
            (4, f32_bytes(36)),
            (5, f32_bytes(4)),
            (7, i32_bytes(&[1, 8, 8, 5])),
            (8, f32_bytes(5 * 16)),
            (10, i32_bytes(&[1, 320])),
            (12, f32_bytes(3200)),
        ];
        let mut buffers = vec![Buffer::default()];
        for (t, data) in consts {
            tensors[t].buffer = buffers.len() as u32;
            buffers.push(Buffer { data });
        }
        let conv = BuiltinOptionsT::Conv2DOptions(Box::new(Conv2DOptionsT {
            padding: Padding::SAME,
            stride_h: 2,
            stride_w: 2,
            dilation_h_factor: 1,
            dilation_w_factor: 1,
            ..Default::default()
        }));
        let dw = BuiltinOptionsT::DepthwiseConv2DOptions(Box::new(DepthwiseConv2DOptionsT {
            padding: Padding::SAME,
            stride_h: 1,
            stride_w: 1,
            depth_multiplier: 1,
            dilation_h_factor: 1,
            dilation_w_factor: 1,
            ..Default::default()
        }));
        let tc = BuiltinOptionsT::TransposeConvOptions(Box::new(TransposeConvOptionsT {
            padding: Padding::VALID,
            stride_h: 2,
            stride_w: 2,
            ..Default::default()
        }));
        let fc = BuiltinOptionsT::FullyConnectedOptions(Box::default());
        let operators = vec![
            op(BuiltinOperator::CONV_2D, &[0, 1, 2], 3, conv),
            op(BuiltinOperator::DEPTHWISE_CONV_2D, &[3, 4, 5], 6, dw),
            op(BuiltinOperator::TRANSPOSE_CONV, &[7, 8, 6, -1], 9, tc),
            op(
                BuiltinOperator::RESHAPE,
                &[9, 10],
                11,
                BuiltinOptionsT::NONE,
            ),
            op(BuiltinOperator::FULLY_CONNECTED, &[11, 12, -1], 13, fc),
        ];
        Model {
            version: 3,
            subgraphs: vec![Subgraph {
                tensors,
                inputs: vec![0],
                outputs: vec![13],
                operators,
                ..Default::default()
            }],
            buffers,
            ..Default::default()
        }
    }

    #[test]
    fn hand_computed_macs_of_a_small_model() {
        let model = small_model();
        let interpreter = Interpreter::new(&model).expect("prepares");
        let got: Vec<(usize, u64)> = per_op(&model, &interpreter)
            .iter()
            .map(|m| (m.op_index, m.macs))
            .collect();
        // CONV_2D: 4·4·4 outputs × 3·3·3 = 64 × 27 = 1728.
        // DEPTHWISE: 4·4·4 outputs × 3·3 = 64 × 9 = 576.
        // TRANSPOSE_CONV: 4·4·4 inputs × 2·2 × 5 = 64 × 20 = 1280.
        // FULLY_CONNECTED: 10 outputs × 320 = 3200. RESHAPE is not counted.
        assert_eq!(got, vec![(0, 1728), (1, 576), (2, 1280), (4, 3200)]);
        assert_eq!(count(&model, &interpreter), 1728 + 576 + 1280 + 3200);
    }
}
