//! Stage 2 of the full-integer pass: which recorded ranges count (TF's `RemoveRedundantStatsOps`
//! for int8, the older quantizer's rules for 16x8), as the initial parameter [`State`]s; and the
//! per-op facts the later stages ask (same-scale, fixed output, float operands, activations).

use std::collections::{BTreeMap, BTreeSet};

use super::super::IoType;
use super::super::edit::qerr;
use super::FullInteger;
use crate::error::Result;
use crate::graph::BuiltinOperator as Op;
use crate::ops::lstm::is_state_input;
use crate::quant::params::QuantParams;

/// Where the parameters of a tensor came from (for the report).
#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) params: QuantParams,
    pub(super) immutable: bool,
    pub(super) source: String,
}

impl<'a> FullInteger<'a> {
    fn same_scale(&self, o: usize) -> bool {
        self.quantized[o] && self.props[o].is_some_and(|p| p.same_scale)
    }

    fn fixed(&self, o: usize) -> bool {
        self.quantized[o] && self.props[o].is_some_and(|p| p.fixed_output.is_some())
    }

    pub(super) fn float_inputs(&self, o: usize) -> Vec<usize> {
        let op = &self.sg.operators[o];
        (0..op.inputs.len())
            .filter_map(|k| op.input(k))
            .filter(|&t| self.is_float(t))
            .collect()
    }

    pub(super) fn float_outputs(&self, o: usize) -> Vec<usize> {
        let op = &self.sg.operators[o];
        (0..op.outputs.len())
            .filter_map(|k| op.output(k))
            .filter(|&t| self.is_float(t))
            .collect()
    }

    /// Activations (float, not constant) read or written by quantized ops, and, with integer
    /// I/O, the model's float inputs and outputs that have a recorded range (TF quantizes those
    /// even next to a float operator).
    pub(super) fn activations(&self) -> BTreeSet<usize> {
        let mut a = BTreeSet::new();
        // Not in 16x8, nor with operators kept float on request (the first pass of a mixed
        // model), where the I/O stays as it was.
        if !self.int16 && self.opts.io != IoType::Float && self.opts.float_ops.is_empty() {
            for &t in self.sg.inputs.iter().chain(&self.sg.outputs) {
                if let Ok(t) = usize::try_from(t)
                    && self.is_float(t)
                    && !self.is_const(t)
                    && self.ranges.get(t).is_some()
                {
                    a.insert(t);
                }
            }
        }
        for o in (0..self.sg.operators.len()).filter(|&o| self.quantized[o]) {
            let op = &self.sg.operators[o];
            // An LSTM's states are variable tensors the LSTM stage quantizes (`lstm.rs`).
            for t in op
                .inputs
                .iter()
                .enumerate()
                .filter(|&(k, _)| !is_state_input(&op.code, k))
                .map(|(_, t)| t)
                .chain(&op.outputs)
                .filter_map(|&t| usize::try_from(t).ok())
            {
                if self.is_float(t) && !self.is_const(t) {
                    a.insert(t);
                }
            }
        }
        a
    }

    /// Step 2: which recorded ranges are kept (TF's `RemoveRedundantStatsOps` for int8; the older
    /// quantizer's "same-scale results take their input's" for 16x8), as immutable states.
    pub(super) fn initial_states(&mut self) -> Result<()> {
        let acts = self.activations();
        let stats: Vec<usize> = acts
            .iter()
            .copied()
            .filter(|&t| self.ranges.get(t).is_some())
            .collect();
        let has = |t: usize| stats.binary_search(&t).is_ok();
        let mut redundant: BTreeMap<usize, &'static str> = BTreeMap::new();
        for &t in &stats {
            if self.producer.get(&t).is_some_and(|&p| self.fixed(p)) {
                redundant.insert(t, "fixed");
            }
        }
        if self.int16 {
            for &t in &stats {
                if self
                    .producer
                    .get(&t)
                    .is_some_and(|&p| self.same_scale(p) && self.float_inputs(p).len() == 1)
                {
                    redundant.entry(t).or_insert("same-scale");
                }
            }
        } else {
            let mut forward = BTreeSet::new();
            let mut work = stats.clone();
            while let Some(t) = work.pop() {
                for &u in self.consumers.get(&t).map(Vec::as_slice).unwrap_or(&[]) {
                    if !self.same_scale(u) || self.float_inputs(u).len() > 1 {
                        continue;
                    }
                    for r in self.float_outputs(u) {
                        if has(r) && forward.insert(r) {
                            work.push(r);
                        }
                    }
                }
            }
            let mut backward = BTreeSet::new();
            let mut work: Vec<usize> = stats
                .iter()
                .copied()
                .filter(|t| !forward.contains(t))
                .collect();
            while let Some(t) = work.pop() {
                let Some(&p) = self.producer.get(&t) else {
                    continue;
                };
                if !self.same_scale(p) {
                    continue;
                }
                for x in self.float_inputs(p) {
                    if has(x) && backward.insert(x) {
                        work.push(x);
                    }
                }
            }
            for t in forward.into_iter().chain(backward) {
                redundant.entry(t).or_insert("same-scale");
            }
        }
        // 16x8: a same-scale op whose one float operand is a constant (BROADCAST_TO of a
        // position table) takes the constant's own symmetric range, as TF's 16x8 model has it
        // (constant and result both at max|c| / 32767), not the result's recorded range.
        if self.int16 {
            for o in 0..self.sg.operators.len() {
                let inputs = self.float_inputs(o);
                if self.quantized[o]
                    && self.same_scale(o)
                    && let [c] = inputs[..]
                    && self.is_const(c)
                    && self.state[c].is_none()
                {
                    let (params, _) = self.own_constant_params(c)?;
                    self.state[c] = Some(State {
                        params,
                        immutable: true,
                        source: "constant".into(),
                    });
                }
            }
        }
        for &t in &stats {
            if redundant.contains_key(&t) {
                continue;
            }
            let Some((min, max)) = self.ranges.get(t) else {
                continue;
            };
            let params = self.activation_params(min, max).map_err(|e| {
                qerr(
                    format!("tensor {t} '{}'", self.sg.tensors[t].name),
                    e.to_string(),
                )
            })?;
            self.state[t] = Some(State {
                params,
                immutable: true,
                source: "calibrated".into(),
            });
        }
        // A partly quantized model: a float activation that one of its DEQUANTIZEs computes
        // from an integer tensor of this mode's type, or that one of its QUANTIZEs turns into
        // one, keeps those parameters, so that the pair becomes redundant (`cleanup`).
        for &t in &acts {
            if let Some(params) = self.existing_params(t) {
                self.state[t] = Some(State {
                    params,
                    immutable: true,
                    source: "already quantized".into(),
                });
            }
        }
        Ok(())
    }

    /// The parameters an existing DEQUANTIZE (from) or QUANTIZE (to) gives float tensor `t`,
    /// when that integer tensor has this mode's type and one scale.
    fn existing_params(&self, t: usize) -> Option<QuantParams> {
        // A fixed-output op writes its own parameters (a requantize follows if they differ).
        if self.producer.get(&t).is_some_and(|&p| self.fixed(p)) {
            return None;
        }
        let qd = self.q_dtype();
        let params_of = |x: Option<usize>| -> Option<QuantParams> {
            let x = self.sg.tensors.get(x?)?;
            let q = x.quantization.as_ref()?;
            match (x.dtype == qd, q.scales(), q.zero_points()) {
                (true, [scale], [zp]) => Some(QuantParams {
                    scale: *scale,
                    zero_point: i32::try_from(*zp).ok()?,
                }),
                _ => None,
            }
        };
        let code = |o: usize| self.sg.operators[o].code.op();
        if let Some(&p) = self.producer.get(&t)
            && !self.quantized[p]
            && code(p) == Op::DEQUANTIZE
            && let Some(params) = params_of(self.sg.operators[p].input(0))
        {
            return Some(params);
        }
        self.consumers
            .get(&t)?
            .iter()
            .filter(|&&c| !self.quantized[c] && code(c) == Op::QUANTIZE)
            .find_map(|&c| params_of(self.sg.operators[c].output(0)))
    }
}
