//! Stage 6 of the full-integer pass: what the result records besides the parameters — 16x8's
//! recorded min/max in the int16 tensors and int8 weights, the requantization multiplier of each
//! operator, and the per-tensor [`Report`](crate::quant::report::Report) entries.

use std::collections::{HashMap, HashSet};

use super::super::edit::{dims, idx};
use super::FullInteger;
use crate::fixedpoint::quantize_multiplier;
use crate::graph::dtype::dtype_name;
use crate::graph::{Model, TensorType};
use crate::ops::registry::properties;
use crate::quant::report::{OpReport, TensorReport};

impl<'a> FullInteger<'a> {
    /// For each tensor, the recorded range its parameters came from (itself, or across
    /// single-input same-scale ops); none for fixed outputs and for tensors an op writes with
    /// other parameters than its readers see. Computed on the original graph, before
    /// materializing.
    pub(super) fn origin_ranges(&self) -> Vec<Option<(f32, f32)>> {
        let n = self.state.len();
        let origin = |mut t: usize| -> Option<usize> {
            for _ in 0..n {
                let s = self.state.get(t)?.as_ref()?;
                if s.source == "calibrated" {
                    return Some(t);
                }
                if !s.source.starts_with("same-scale") {
                    return None;
                }
                let p = *self.producer.get(&t)?;
                t = *self.float_inputs(p).first()?;
            }
            None
        };
        (0..n)
            .map(|t| {
                if self.result_requant.contains_key(&t) {
                    return None;
                }
                origin(t).and_then(|o| self.ranges.get(o))
            })
            .collect()
    }

    /// TF's older (16x8) quantizer keeps min/max in the quantization of what it quantized: the
    /// recorded range (widened to include 0) on each int16 activation, same-scale results
    /// carrying their source's; and per channel the value range of each int8 weight.
    pub(super) fn record_ranges(
        &mut self,
        ranges: &[Option<(f32, f32)>],
        weights: &[(usize, Vec<f32>, usize)],
    ) {
        let mut by_name: HashMap<String, (f32, f32)> = HashMap::new();
        for (t, r) in ranges.iter().enumerate() {
            if let Some((min, max)) = *r {
                let r = (min.min(0.0), max.max(0.0));
                by_name.insert(self.sg.tensors[t].name.clone(), r);
                by_name.insert(format!("{}_int16", self.sg.tensors[t].name), r);
            }
        }
        for x in &mut self.sg.tensors {
            if x.dtype != TensorType::INT16 {
                continue;
            }
            let (Some(q), Some(&(min, max))) = (&mut x.quantization, by_name.get(&x.name)) else {
                continue;
            };
            q.min = Some(vec![min]);
            q.max = Some(vec![max]);
        }
        for (w, values, axis) in weights {
            let shape = dims(&self.sg.tensors[*w]);
            let channels = shape.get(*axis).copied().unwrap_or(1).max(1);
            let inner: usize = shape
                .get(axis + 1..)
                .map_or(1, |s| s.iter().product::<usize>())
                .max(1);
            let mut mins = vec![f32::MAX; channels];
            let mut maxs = vec![f32::MIN; channels];
            for (k, &v) in values.iter().enumerate() {
                let c = (k / inner) % channels;
                mins[c] = mins[c].min(v);
                maxs[c] = maxs[c].max(v);
            }
            if let Some(q) = &mut self.sg.tensors[*w].quantization {
                q.min = Some(mins);
                q.max = Some(maxs);
            }
        }
    }

    /// Per-op requantization multipliers for the report.
    pub(super) fn multipliers(&mut self) {
        let sg = &self.sg;
        for (i, op) in sg.operators.iter().enumerate() {
            let Some(p) = properties(op.code.op()) else {
                continue;
            };
            let (Some(ws), Some(bs)) = (p.weights, p.bias) else {
                continue;
            };
            let scales = |t: Option<usize>| -> Vec<f32> {
                t.and_then(|t| sg.tensors.get(t))
                    .and_then(|t| t.quantization.as_ref())
                    .map(|q| q.scales().to_vec())
                    .unwrap_or_default()
            };
            let (s_in, s_w, s_out) = (
                scales(op.input(bs.activation)),
                scales(op.input(ws.input)),
                scales(op.output(0)),
            );
            let (Some(&s_in), Some(&s_out)) = (s_in.first(), s_out.first()) else {
                continue;
            };
            if s_w.is_empty() || s_out == 0.0 {
                continue;
            }
            let multipliers: Vec<f64> = s_w
                .iter()
                .map(|&w| f64::from(s_in) * f64::from(w) / f64::from(s_out))
                .collect();
            let quantized = multipliers
                .iter()
                .map(|&m| quantize_multiplier(m))
                .collect();
            self.report.ops.push(OpReport {
                index: i,
                op: op.code.name(),
                multipliers,
                quantized,
            });
        }
    }

    pub(super) fn fill_tensor_report(&mut self, out: &Model) {
        let sg = &out.subgraphs[self.subgraph];
        let inputs: HashSet<i32> = sg.inputs.iter().copied().collect();
        let outputs: HashSet<i32> = sg.outputs.iter().copied().collect();
        for (i, t) in sg.tensors.iter().enumerate() {
            let st = self.state.get(i).and_then(Option::as_ref);
            let range = self
                .ranges
                .get(i)
                .filter(|_| i < self.model.subgraphs[self.subgraph].tensors.len());
            let role = if inputs.contains(&idx(i)) {
                "input"
            } else if outputs.contains(&idx(i)) {
                "output"
            } else if out.tensor_data(self.subgraph, i).is_some() {
                match st.map(|s| s.source.as_str()) {
                    Some("weights") => "weight",
                    Some("bias") => "bias",
                    _ => "constant",
                }
            } else {
                "activation"
            };
            let q = t.quantization.as_ref();
            self.report.tensors.push(TensorReport {
                index: i,
                name: t.name.clone(),
                dtype: dtype_name(t.dtype),
                role: role.to_string(),
                min: range.map(|r| r.0),
                max: range.map(|r| r.1),
                source: st.map_or_else(
                    || {
                        if q.is_some_and(|q| !q.scales().is_empty()) {
                            "inserted".to_string()
                        } else {
                            String::new()
                        }
                    },
                    |s| s.source.clone(),
                ),
                scales: q.map(|q| q.scales().to_vec()).unwrap_or_default(),
                zero_points: q.map(|q| q.zero_points().to_vec()).unwrap_or_default(),
                axis: q
                    .filter(|q| q.scales().len() > 1)
                    .map(|q| q.quantized_dimension),
                ..TensorReport::default()
            });
        }
    }
}
