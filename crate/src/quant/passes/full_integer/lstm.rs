//! The full-integer pass's UNIDIRECTIONAL_SEQUENCE_LSTM: TF's integer (8x8→16) LSTM, as TF 2.21's
//! converter writes it for a plain LSTM (all four gates; no peephole, projection or layer norm):
//!
//! - input and output int8 with their recorded ranges (the usual activation stages);
//! - the eight weight matrices int8, per tensor, symmetric in `[−127, 127]` (the full-integer
//!   weight rule), the four gate biases int32 at `s_in · s_w` of that gate's input weights;
//! - the output state (variable input 18) int8 with the LSTM *output's* parameters, the cell
//!   state (variable input 19) int16 with a power-of-two scale: `2^⌈log2 max|c|⌉ / 2^15`, zero
//!   point 0, from the cell state's recorded range (the states after each calibration run,
//!   carried across samples as TF's calibrator does: `quant/calibrate/kept_states.rs`);
//! - five intermediate tensors of shape `[0]`, as TF appends them: the four gates'
//!   (`input_to_input_intermediate`, … `input_to_output_intermediate`), float32 without
//!   parameters when there is no layer norm (each gate is then Q3.12), and the hidden state's
//!   (`effective_hidden_scale_intermediate`), int8 with the output's parameters;
//! - the operator version stays 1.
//!
//! Not written (the LSTM stays float, with the reason as a warning): 16x8 mode, CIFG, peephole,
//! projection, layer norm, auxiliary inputs, states that are not variable tensors.

use super::super::edit::{Names, idx, per_axis_q, per_tensor_q, qerr};
use super::states::State;
use super::{FullInteger, has_data};
use crate::error::Result;
use crate::graph::{BuiltinOperator as Op, Model, Operator, Subgraph, Tensor, TensorType};
use crate::quant::params::{QuantParams, WeightRule, bias_int32, per_tensor_weights_int8};

/// Input positions: the eight weight matrices (input-to and recurrent-to input, forget, cell,
/// output gate).
const WEIGHTS: std::ops::RangeInclusive<usize> = 1..=8;
/// Each gate bias's input position and that of its gate's input weights.
const BIASES: [(usize, usize); 4] = [(12, 1), (13, 2), (14, 3), (15, 4)];
/// Whether input `k` of `op` is one of an UNIDIRECTIONAL_SEQUENCE_LSTM's four gate biases: each
/// gets its own int32 copy (its scale comes from its own gate's weights), as TF splits them.
pub(super) fn is_gate_bias(op: &Operator, k: usize) -> bool {
    op.code.op() == crate::graph::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM
        && BIASES.iter().any(|&(b, _)| b == k)
}

/// Input positions of the output state and the cell state (variable tensors).
const OUTPUT_STATE: usize = 18;
const CELL_STATE: usize = 19;
/// Inputs that must be absent: peephole (9–11), projection (16, 17), layer norm (20–23).
const ABSENT: [usize; 9] = [9, 10, 11, 16, 17, 20, 21, 22, 23];
/// TF's names of the five intermediates, in the operator's order.
const INTERMEDIATES: [&str; 5] = [
    "input_to_input_intermediate",
    "input_to_forget_intermediate",
    "input_to_cell_intermediate",
    "input_to_output_intermediate",
    "effective_hidden_scale_intermediate",
];

/// Whether `op` (an UNIDIRECTIONAL_SEQUENCE_LSTM of `sg`) is one this pass writes as TF's
/// integer LSTM: `None`, or why it stays float.
pub(super) fn unsupported(
    model: &Model,
    sg: &Subgraph,
    op: &Operator,
    int16: bool,
) -> Option<String> {
    if int16 {
        return Some("no 16x8 integer LSTM (TF's integer LSTM is 8x8→16)".into());
    }
    if op.inputs.len() != 24 {
        return Some(format!(
            "{} inputs (TF's integer LSTM has 24: no auxiliary inputs)",
            op.inputs.len()
        ));
    }
    let tensor = |k: usize| op.input(k).and_then(|t| sg.tensors.get(t).map(|x| (t, x)));
    let float = |x: &Tensor| x.dtype == TensorType::FLOAT32;
    for k in WEIGHTS.chain(BIASES.iter().map(|b| b.0)) {
        match tensor(k) {
            None => {
                return Some(format!(
                    "input {k} is absent (CIFG: the integer LSTM needs all four gates)"
                ));
            }
            Some((t, x)) if !float(x) || !has_data(model, sg, t) => {
                return Some(format!(
                    "input {k} (tensor {t} '{}') is not a float32 constant",
                    x.name
                ));
            }
            Some(_) => {}
        }
    }
    if let Some(k) = ABSENT.iter().copied().find(|&k| op.input(k).is_some()) {
        let what = match k {
            9..=11 => "peephole weights",
            16 | 17 => "a projection",
            _ => "layer norm",
        };
        return Some(format!("it has {what} (input {k}), not written yet"));
    }
    for k in [OUTPUT_STATE, CELL_STATE] {
        match tensor(k) {
            Some((t, x)) if x.is_variable && float(x) && !has_data(model, sg, t) => {}
            Some((t, x)) if x.is_variable && float(x) => {
                return Some(format!(
                    "input {k} (tensor {t} '{}') is a state with an initial value (TF's integer \
                     LSTM starts from zero)",
                    x.name
                ));
            }
            _ => {
                return Some(format!(
                    "input {k} is not a float32 variable tensor (a state)"
                ));
            }
        }
    }
    let io_float = [op.input(0), op.output(0)]
        .into_iter()
        .all(|t| t.and_then(|t| sg.tensors.get(t)).is_some_and(float));
    if !io_float {
        return Some("its input and output are not float32".into());
    }
    None
}

/// The int16 power-of-two parameters of a cell state recorded in `[min, max]`:
/// `2^⌈log2 max|c|⌉ / 2^15`, zero point 0 (TF's MLIR quantizer's cell-state rule).
pub(super) fn cell_state_params(min: f32, max: f32) -> Option<QuantParams> {
    let m = f64::from(min.abs().max(max.abs()));
    if !(m.is_finite() && m > 0.0) {
        return None;
    }
    let scale = (m.log2().ceil() - 15.0).exp2() as f32;
    (scale.is_normal()).then_some(QuantParams {
        scale,
        zero_point: 0,
    })
}

impl<'a> FullInteger<'a> {
    /// Weights, biases, states and intermediates of every quantized LSTM (after the activation
    /// stages: its input and output have parameters). Returns the new constant data.
    pub(super) fn quantize_lstms(&mut self) -> Result<Vec<(usize, Vec<u8>)>> {
        let mut out = Vec::new();
        for o in 0..self.sg.operators.len() {
            if !self.quantized[o]
                || self.sg.operators[o].code.op() != Op::UNIDIRECTIONAL_SEQUENCE_LSTM
            {
                continue;
            }
            out.extend(self.quantize_lstm(o)?);
        }
        Ok(out)
    }

    fn quantize_lstm(&mut self, o: usize) -> Result<Vec<(usize, Vec<u8>)>> {
        let op = self.sg.operators[o].clone();
        let what = format!("operator {o} (UNIDIRECTIONAL_SEQUENCE_LSTM)");
        let params = |t: Option<usize>, role: &str| {
            t.and_then(|t| self.state_params(t))
                .ok_or_else(|| qerr(what.clone(), format!("its {role} has no parameters")))
        };
        let s_in = params(op.input(0), "input")?;
        let p_out = params(op.output(0), "output")?;
        let mut out = Vec::new();
        let mut weight_scale = [0.0f32; 9];
        for k in WEIGHTS {
            let w = op
                .input(k)
                .ok_or_else(|| qerr(what.clone(), format!("input {k} is absent")))?;
            let label = self.tensor_label(w);
            let values = self.const_values(w);
            let q = per_tensor_weights_int8(&values, WeightRule::FullInteger)
                .map_err(|e| qerr(label, e.to_string()))?;
            let scale = q.scales.first().copied().unwrap_or(1.0);
            weight_scale[k] = scale;
            let t = &mut self.sg.tensors[w];
            t.dtype = TensorType::INT8;
            t.quantization = Some(per_tensor_q(QuantParams {
                scale,
                zero_point: 0,
            }));
            out.push((w, q.values.iter().map(|&v| v as u8).collect()));
            self.state[w] = Some(State {
                params: QuantParams {
                    scale,
                    zero_point: 0,
                },
                immutable: true,
                source: "weights".into(),
            });
        }
        for (k, wk) in BIASES {
            let b = op
                .input(k)
                .ok_or_else(|| qerr(what.clone(), format!("input {k} is absent")))?;
            let label = self.tensor_label(b);
            let values = self.const_values(b);
            let q = bias_int32(&values, s_in.scale, &[weight_scale[wk]])
                .map_err(|e| qerr(label, e.to_string()))?;
            let scale = q.scales.first().copied().unwrap_or(1.0);
            let t = &mut self.sg.tensors[b];
            t.dtype = TensorType::INT32;
            t.quantization = Some(per_axis_q(q.scales, vec![0], 0));
            out.push((b, q.values.iter().flat_map(|v| v.to_le_bytes()).collect()));
            self.state[b] = Some(State {
                params: QuantParams {
                    scale,
                    zero_point: 0,
                },
                immutable: true,
                source: "bias".into(),
            });
        }
        // The states: the output state takes the output's parameters; the cell state its
        // recorded range's power-of-two int16 scale.
        let h = op
            .input(OUTPUT_STATE)
            .ok_or_else(|| qerr(what.clone(), "the output state is absent"))?;
        let c = op
            .input(CELL_STATE)
            .ok_or_else(|| qerr(what.clone(), "the cell state is absent"))?;
        let (lo, hi) = self.ranges.get(c).ok_or_else(|| {
            qerr(
                self.tensor_label(c),
                "the LSTM cell state has no recorded range (calibrate the float model: the \
                 calibrator records the states after each sample)",
            )
        })?;
        let p_cell = cell_state_params(lo, hi).ok_or_else(|| {
            qerr(
                self.tensor_label(c),
                format!(
                    "the LSTM cell state's recorded range [{lo}, {hi}] gives no power-of-two \
                     int16 scale"
                ),
            )
        })?;
        // TF names the states as it names the constants it quantizes (`tfl.pseudo_qconst`,
        // `tfl.pseudo_qconst1`, …, in operator order).
        let mut names = Names::new(&self.sg);
        for (t, dtype, p, source) in [
            (
                h,
                TensorType::INT8,
                p_out,
                "LSTM output state (the output's)",
            ),
            (
                c,
                TensorType::INT16,
                p_cell,
                "LSTM cell state (power of two)",
            ),
        ] {
            let x = &mut self.sg.tensors[t];
            x.name = names.take("tfl.pseudo_qconst");
            x.dtype = dtype;
            x.quantization = Some(per_tensor_q(p));
            self.state[t] = Some(State {
                params: p,
                immutable: true,
                source: source.into(),
            });
        }
        // The intermediates TF appends: four float32 gate placeholders and the hidden state's.
        let mut inter = Vec::with_capacity(INTERMEDIATES.len());
        for (i, base) in INTERMEDIATES.iter().enumerate() {
            let hidden = i == INTERMEDIATES.len() - 1;
            let mut t = Tensor::new(
                names.take(base),
                if hidden {
                    TensorType::INT8
                } else {
                    TensorType::FLOAT32
                },
                vec![0],
            );
            t.has_rank = true;
            if hidden {
                t.quantization = Some(per_tensor_q(p_out));
            }
            self.sg.tensors.push(t);
            self.state.push(None);
            inter.push(idx(self.sg.tensors.len() - 1));
        }
        self.sg.operators[o].intermediates = Some(inter);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::cell_state_params;

    #[test]
    fn cell_state_scale_is_the_next_power_of_two_over_2_15() {
        // TF's MLIR test `QuantizeLstmCellInput`: stats [-2.73090601, 7.94872093] → 2.44140625e-4
        // (2^3 / 2^15).
        let p = cell_state_params(-2.730_906, 7.948_721).expect("scale");
        assert_eq!((p.scale, p.zero_point), (2f32.powi(-12), 0));
        // An exact power of two stays: max|c| = 0.25 → 2^-2 / 2^15.
        assert_eq!(
            cell_state_params(-0.25, 0.1).map(|p| p.scale),
            Some(2f32.powi(-17))
        );
        assert_eq!(cell_state_params(0.0, 0.0), None);
    }
}
