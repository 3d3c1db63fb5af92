//! Stage 4 of the full-integer pass: the float constants of quantized operators — weights (per
//! channel or per tensor), bias (int32, int64 for 16x8) and other constants (their own range, or
//! a same-scale op's shared parameters).

use std::collections::{HashMap, HashSet};

use super::super::edit::{Names, dims, f32s, idx, per_axis_q, per_tensor_q, qerr};
use super::FullInteger;
use super::states::State;
use crate::error::Result;
use crate::graph::{Operator, Quantization, TensorType};
use crate::ops::properties::OpProperties;
use crate::quant::params::{
    self, QuantParams, QuantizedWeights, WeightRule, activation_params_int16, bias_int32,
    bias_int64, constant_params_int8, int16_constant_scale, per_channel_weights_int8_for_bias,
    per_tensor_weights_int8, quantize_affine_f64,
};

impl<'a> FullInteger<'a> {
    /// The float values of constant `t`.
    pub(super) fn const_values(&self, t: usize) -> Vec<f32> {
        let b = self.sg.tensors[t].buffer as usize;
        self.model
            .buffers
            .get(b)
            .map(|b| f32s(&b.data))
            .unwrap_or_default()
    }

    /// The parameters a constant that is neither weights nor bias gets from its own values
    /// (int16 symmetric over `[min(0, lo), max(0, hi)]`, int8 TF's constant rule), and the scale
    /// its values are divided by: the stored one in int8, the unrounded double in int16 (as MLIR
    /// does, [`int16_constant_scale`]).
    pub(super) fn own_constant_params(&self, c: usize) -> Result<(QuantParams, f64)> {
        let values = self.const_values(c);
        let label = self.tensor_label(c);
        if self.int16 {
            let (lo, hi) = values
                .iter()
                .fold((0.0f32, 0.0f32), |(l, h), &v| (l.min(v), h.max(v)));
            let p = activation_params_int16(lo, hi).map_err(|e| qerr(label, e.to_string()))?;
            Ok((p, int16_constant_scale(lo, hi)))
        } else {
            let p = constant_params_int8(&values).map_err(|e| qerr(label, e.to_string()))?;
            Ok((p, f64::from(p.scale)))
        }
    }

    /// Gives weight tensor `w` the int8 type and the parameters of `q` (per channel along `axis`,
    /// or per tensor) and records its state; returns its data.
    fn set_weights(&mut self, w: usize, q: &QuantizedWeights, axis: Option<usize>) -> Vec<u8> {
        let t = &mut self.sg.tensors[w];
        t.dtype = TensorType::INT8;
        let zps = q.zero_points.iter().map(|&z| i64::from(z)).collect();
        t.quantization = Some(match axis {
            Some(a) => per_axis_q(q.scales.clone(), zps, a),
            None => Quantization {
                scale: Some(q.scales.clone()),
                zero_point: Some(zps),
                ..Quantization::default()
            },
        });
        self.state[w] = Some(State {
            params: QuantParams {
                scale: q.scales.first().copied().unwrap_or(1.0),
                zero_point: 0,
            },
            immutable: true,
            source: "weights".into(),
        });
        q.values.iter().map(|&v| v as u8).collect()
    }

    /// Int8 only: the float values of `op`'s constant float bias and its input's scale, which
    /// decide whether the weights must be widened for the int32 bias (TF's MLIR quantizer).
    fn int32_bias(&self, op: &Operator, p: &OpProperties) -> Option<(Vec<f32>, f32)> {
        let bs = p.bias.filter(|_| !self.int16)?;
        let b = op
            .input(bs.input)
            .filter(|&b| self.is_const(b) && self.is_float(b))?;
        let s_in = op.input(bs.activation).and_then(|a| self.state_params(a))?;
        Some((self.const_values(b), s_in.scale))
    }

    /// Step 4: weights, bias and other constants. Returns the new data of each quantized
    /// constant tensor; dtypes and parameters are set on the tensors.
    pub(super) fn quantize_constants(&mut self) -> Result<Vec<(usize, Vec<u8>)>> {
        let mut out = Vec::new();
        let mut handled: HashSet<usize> = HashSet::new();
        // Each weight tensor quantized so far, and its axis: weights shared by several ops
        // (`split_shared_constants`) are quantized once, by their first reader.
        let mut quantized_weights: HashMap<usize, (QuantizedWeights, Option<usize>)> =
            HashMap::new();
        for o in 0..self.sg.operators.len() {
            if !self.quantized[o] {
                continue;
            }
            let Some(p) = self.props[o] else { continue };
            let op = self.sg.operators[o].clone();
            let mut weight_scales: Option<Vec<f32>> = None;
            let mut widened_bias: Option<Vec<Option<f64>>> = None;
            // Weights.
            if let Some(ws) = p.weights
                && let Some(w) = op.input(ws.input)
            {
                if self.is_const(w) && self.is_float(w) {
                    let values = self.const_values(w);
                    let shape = dims(&self.sg.tensors[w]);
                    let rule = if self.int16 {
                        WeightRule::Int16x8
                    } else {
                        WeightRule::FullInteger
                    };
                    let axis = ws
                        .axis
                        .filter(|&a| !self.opts.per_tensor && a < shape.len());
                    let label = self.tensor_label(w);
                    let mut q = match axis {
                        Some(axis) => {
                            let s_in = p
                                .bias
                                .and_then(|b| op.input(b.activation))
                                .and_then(|a| self.state_params(a))
                                .map_or(1.0, |q| q.scale);
                            let bias = p
                                .bias
                                .and_then(|b| op.input(b.input))
                                .filter(|&b| self.is_const(b) && self.is_float(b))
                                .map(|b| self.const_values(b))
                                .unwrap_or_default();
                            if bias.is_empty() {
                                params::per_channel_weights_int8(&values, &shape, axis, rule)
                            } else {
                                per_channel_weights_int8_for_bias(
                                    &values, &shape, axis, rule, &bias, s_in,
                                )
                            }
                        }
                        None => per_tensor_weights_int8(&values, rule),
                    }
                    .map_err(|e| qerr(label.clone(), e.to_string()))?;
                    // Int8 (MLIR): weight and bias scales widened where the int32 bias would
                    // overflow.
                    if let Some((bias, s_in)) = self.int32_bias(&op, &p) {
                        widened_bias = params::widen_for_bias_int32(
                            &mut q, &values, &shape, axis, &bias, s_in,
                        )
                        .map_err(|e| qerr(label.clone(), e.to_string()))?;
                        if widened_bias.is_some() {
                            self.report.warnings.push(format!(
                                "{label}: weight and bias scales widened so the int32 bias fits \
                                 (|bias| / (s_in · s_w) > 2^30), as TF's MLIR quantizer does"
                            ));
                        }
                    }
                    out.push((w, self.set_weights(w, &q, axis)));
                    handled.insert(w);
                    if self.int16 {
                        self.weight_values
                            .push((w, values.clone(), axis.unwrap_or(0)));
                    }
                    weight_scales = Some(q.scales.clone());
                    quantized_weights.insert(w, (q, axis));
                } else if let Some((shared, axis)) = quantized_weights.get(&w) {
                    // Weights another op quantized (`split_shared_constants`). Where this op's
                    // int32 bias needs them widened, TF duplicates them for this op
                    // (`DuplicateConstantOpIfNeeded`) with the widened scales.
                    let (mut q, axis) = (shared.clone(), *axis);
                    if let Some((bias, s_in)) = self.int32_bias(&op, &p) {
                        let label = self.tensor_label(w);
                        widened_bias = params::widen_for_bias_int32(
                            &mut q,
                            &self.const_values(w),
                            &dims(&self.sg.tensors[w]),
                            axis,
                            &bias,
                            s_in,
                        )
                        .map_err(|e| qerr(label.clone(), e.to_string()))?;
                        if widened_bias.is_some() {
                            let mut copy = self.sg.tensors[w].clone();
                            copy.name = Names::new(&self.sg).fresh(&copy.name);
                            self.sg.tensors.push(copy);
                            self.state.push(None);
                            let c = self.sg.tensors.len() - 1;
                            self.sg.operators[o].inputs[ws.input] = idx(c);
                            self.consumers.entry(c).or_default().push(o);
                            out.push((c, self.set_weights(c, &q, axis)));
                            handled.insert(c);
                            self.report.warnings.push(format!(
                                "{label}: weight and bias scales widened so the int32 bias fits \
                                 (|bias| / (s_in · s_w) > 2^30), as TF's MLIR quantizer does, on \
                                 a copy of the shared weights for operator {o}"
                            ));
                        }
                    }
                    weight_scales = Some(q.scales);
                } else if let Some(s) = self.state_params(w) {
                    weight_scales = Some(vec![s.scale]);
                }
            }
            // Bias.
            if let Some(bs) = p.bias
                && let Some(b) = op.input(bs.input)
                && self.is_const(b)
                && self.is_float(b)
            {
                let label = self.tensor_label(b);
                let s_in = op
                    .input(bs.activation)
                    .and_then(|a| self.state_params(a))
                    .ok_or_else(|| {
                        qerr(
                            label.clone(),
                            "the bias scale needs the input's parameters, which are unknown",
                        )
                    })?;
                let s_w = weight_scales.clone().ok_or_else(|| {
                    qerr(label.clone(), "the bias scale needs the weights' scales")
                })?;
                let values = self.const_values(b);
                let (data, scales, dtype) = if self.int16 {
                    let q = bias_int64(&values, s_in.scale, &s_w)
                        .map_err(|e| qerr(label.clone(), e.to_string()))?;
                    let d: Vec<u8> = q.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    (d, q.scales, TensorType::INT64)
                } else {
                    let q = match &widened_bias {
                        Some(adjusted) => {
                            params::bias_int32_adjusted(&values, s_in.scale, &s_w, adjusted)
                        }
                        None => bias_int32(&values, s_in.scale, &s_w),
                    }
                    .map_err(|e| qerr(label.clone(), e.to_string()))?;
                    let d: Vec<u8> = q.values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    (d, q.scales, TensorType::INT32)
                };
                let t = &mut self.sg.tensors[b];
                t.dtype = dtype;
                let n = scales.len();
                t.quantization = Some(per_axis_q(scales, vec![0; n], 0));
                out.push((b, data));
                handled.insert(b);
                self.state[b] = Some(State {
                    params: QuantParams {
                        scale: s_in.scale * s_w.first().copied().unwrap_or(1.0),
                        zero_point: 0,
                    },
                    immutable: true,
                    source: "bias".into(),
                });
            }
            // Other float constants.
            for k in 0..op.inputs.len() {
                let Some(c) = op.input(k) else { continue };
                if handled.contains(&c) || !self.is_const(c) || !self.is_float(c) {
                    continue;
                }
                let label = self.tensor_label(c);
                let values = self.const_values(c);
                // The scale the values are divided by: the stored one, except for an int16
                // constant with its own range, which MLIR divides by the unrounded double.
                let own = self.own_constant_params(c);
                let (params, divisor) = match (self.state_params(c), own) {
                    (Some(p), Ok(own)) if p == own.0 => own,
                    (Some(p), _) => (p, f64::from(p.scale)),
                    (None, own) => own?,
                };
                let (qmin, qmax, dtype) = if self.int16 {
                    (-32768, 32767, TensorType::INT16)
                } else {
                    (-128, 127, TensorType::INT8)
                };
                let q = quantize_affine_f64(&values, divisor, params.zero_point, qmin, qmax)
                    .map_err(|e| qerr(label.clone(), e.to_string()))?;
                let data: Vec<u8> = if self.int16 {
                    q.iter().flat_map(|&v| (v as i16).to_le_bytes()).collect()
                } else {
                    q.iter().map(|&v| v as i8 as u8).collect()
                };
                let t = &mut self.sg.tensors[c];
                t.dtype = dtype;
                t.quantization = Some(per_tensor_q(params));
                out.push((c, data));
                handled.insert(c);
                if self.state[c].is_none() {
                    self.state[c] = Some(State {
                        params,
                        immutable: true,
                        source: "constant".into(),
                    });
                }
            }
        }
        Ok(out)
    }
}
