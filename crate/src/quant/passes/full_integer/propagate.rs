//! Stage 3 of the full-integer pass: TF's `QuantizationDriver` work list, spreading parameters
//! across same-scale operators (forward to results, backward to operands) and setting fixed
//! outputs, recording a requantize where a tensor already holds other parameters; then the check
//! that every activation got parameters.

use std::collections::HashSet;

use super::super::edit::qerr;
use super::FullInteger;
use super::states::State;
use crate::error::Result;
use crate::graph::BuiltinOperator as Op;
use crate::ops::registry::properties;
use crate::quant::params::QuantParams;

impl<'a> FullInteger<'a> {
    fn push_producer(&self, t: usize, work: &mut Vec<usize>) {
        if let Some(&p) = self.producer.get(&t)
            && self.quantized[p]
        {
            work.push(p);
        }
    }

    fn push_consumers(&self, t: usize, work: &mut Vec<usize>) {
        for &c in self.consumers.get(&t).map(Vec::as_slice).unwrap_or(&[]) {
            if self.quantized[c] {
                work.push(c);
            }
        }
    }

    fn set_operand(
        &mut self,
        o: usize,
        k: usize,
        params: QuantParams,
        source: &str,
        work: &mut Vec<usize>,
    ) {
        let Some(t) = self.sg.operators[o].input(k) else {
            return;
        };
        match &self.state[t] {
            Some(s) if s.params == params => {}
            Some(_) => {
                if let Some(e) = self
                    .operand_requant
                    .iter_mut()
                    .find(|e| e.0 == t && e.1 == params)
                {
                    e.2.push((o, k));
                } else {
                    self.operand_requant.push((t, params, vec![(o, k)]));
                }
            }
            None => {
                self.state[t] = Some(State {
                    params,
                    immutable: false,
                    source: source.to_string(),
                });
                self.push_producer(t, work);
            }
        }
    }

    fn set_result(&mut self, t: usize, params: QuantParams, source: &str, work: &mut Vec<usize>) {
        match &self.state[t] {
            Some(s) if s.params == params => {}
            Some(_) => {
                if let Some(old) = self.result_requant.insert(t, params)
                    && old != params
                {
                    self.report.warnings.push(format!(
                        "tensor {t} '{}': two different output parameters requested; the last \
                         one is used",
                        self.sg.tensors[t].name
                    ));
                }
            }
            None => {
                self.state[t] = Some(State {
                    params,
                    immutable: false,
                    source: source.to_string(),
                });
                self.push_consumers(t, work);
            }
        }
    }

    /// TF's `GetQuantParamsForSameScaleConstraint`.
    fn same_scale_params(&self, o: usize) -> Option<QuantParams> {
        let op = &self.sg.operators[o];
        let get = |t: Option<usize>| t.and_then(|t| self.state.get(t)).and_then(Option::as_ref);
        let ins: Vec<Option<&State>> = (0..op.inputs.len()).map(|k| get(op.input(k))).collect();
        let outs: Vec<Option<&State>> = (0..op.outputs.len()).map(|k| get(op.output(k))).collect();
        let imm = |v: &[Option<&State>]| -> Vec<QuantParams> {
            v.iter()
                .flatten()
                .filter(|s| s.immutable)
                .map(|s| s.params)
                .collect()
        };
        let muts = |v: &[Option<&State>]| -> Vec<QuantParams> {
            v.iter()
                .flatten()
                .filter(|s| !s.immutable)
                .map(|s| s.params)
                .collect()
        };
        let (imm_in, imm_out) = (imm(&ins), imm(&outs));
        if op.inputs.len() == 1 && imm_in.len() == 1 {
            return imm_in.first().copied();
        }
        if op.outputs.len() == 1 && imm_out.len() == 1 {
            return imm_out.first().copied();
        }
        if let Some(p) = imm_in.first().or(imm_out.first()) {
            return Some(*p);
        }
        let (mut_in, mut_out) = (muts(&ins), muts(&outs));
        if op.inputs.len() == 1 && mut_in.len() == 1 {
            return mut_in.first().copied();
        }
        if op.outputs.len() == 1 && mut_out.len() == 1 {
            return mut_out.first().copied();
        }
        mut_in.first().or(mut_out.first()).copied()
    }

    /// Step 3: TF's `QuantizationDriver` work list.
    pub(super) fn propagate(&mut self) {
        let mut work: Vec<usize> = (0..self.sg.operators.len())
            .filter(|&o| self.quantized[o])
            .collect();
        let mut done: HashSet<usize> = HashSet::new();
        while let Some(o) = work.pop() {
            if !done.insert(o) {
                continue;
            }
            let Some(p) = self.props[o] else { continue };
            let name = self.sg.operators[o].code.name();
            if p.same_scale {
                let params = if self.int16 && self.float_inputs(o).len() > 1 {
                    // The older quantizer keeps the result's range and requantizes the inputs.
                    self.float_outputs(o)
                        .first()
                        .and_then(|&t| self.state_params(t))
                        .or_else(|| self.same_scale_params(o))
                } else {
                    self.same_scale_params(o)
                };
                let Some(params) = params else {
                    done.remove(&o);
                    continue;
                };
                let source = format!("same-scale ({name})");
                for k in 0..self.sg.operators[o].inputs.len() {
                    if self.sg.operators[o]
                        .input(k)
                        .is_some_and(|t| self.is_float(t))
                    {
                        self.set_operand(o, k, params, &source, &mut work);
                    }
                }
                for t in self.float_outputs(o) {
                    self.set_result(t, params, &source, &mut work);
                }
            }
            if let Some(f) = p.fixed_output {
                let (scale, zero_point) = if self.int16 { f.int16 } else { f.int8 };
                let params = QuantParams { scale, zero_point };
                let source = format!("fixed ({name})");
                for t in self.float_outputs(o) {
                    self.set_result(t, params, &source, &mut work);
                }
            }
        }
    }

    /// Step 3b (int8): operators whose input TF never quantizes stay float. TF's driver only
    /// materializes parameters on the results of the operators it walks (quantizable or
    /// same-scale ones) and on graph inputs; a tensor written by an operator kept float (a
    /// READ_VARIABLE, say) whose recorded range was dropped as redundant (TF's
    /// `RemoveRedundantStatsOps`, backward across a same-scale reader) only gets parameters
    /// propagated onto it, and no QUANTIZE is ever put after it (operators with no quantized
    /// kernel at all; not those kept float on request). Its quantized readers then have
    /// a float input and stay float; a same-scale reader's result keeps its parameters, so the
    /// QUANTIZE comes after that reader (TF's int8 streaming keyword spotter: READ_VARIABLE →
    /// STRIDED_SLICE (float) → QUANTIZE → … CONCATENATION).
    pub(super) fn keep_float_after_unquantized_producers(&mut self) {
        if self.int16 {
            return;
        }
        let mut unquantized = Vec::new();
        for o in (0..self.sg.operators.len()).filter(|&o| self.quantized[o]) {
            let Some(t) = self.float_inputs(o).into_iter().find(|&t| {
                !self.is_const(t)
                    && self.state[t].as_ref().is_some_and(|s| !s.immutable)
                    && self.producer.get(&t).is_some_and(|&p| {
                        let code = self.sg.operators[p].code.op();
                        // Not an operator kept float on request (`--float-ops`, the int16
                        // operators of a mixed model): those have quantized kernels.
                        !self.quantized[p]
                            && properties(code).is_none()
                            && !matches!(code, Op::QUANTIZE | Op::DEQUANTIZE)
                    })
            }) else {
                continue;
            };
            unquantized.push((o, t));
        }
        for (o, t) in unquantized {
            self.quantized[o] = false;
            self.state[t] = None;
            let p = self.producer[&t];
            self.report.warnings.push(format!(
                "operator {o} ({}) stays float: its input {} is written by float operator {p} \
                 ({}) and has no recorded range of its own, so TF quantizes after it",
                self.sg.operators[o].code.name(),
                self.tensor_label(t),
                self.sg.operators[p].code.name()
            ));
        }
    }

    /// Every activation of a quantized op must have parameters by now.
    pub(super) fn check_complete(&self) -> Result<()> {
        let missing: Vec<String> = self
            .activations()
            .into_iter()
            .filter(|&t| self.state[t].is_none())
            .map(|t| self.tensor_label(t))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(qerr(
                "activations",
                format!(
                    "no calibration statistics for {} (calibrate the model, or keep the ops that \
                     use them float with --float-ops)",
                    missing.join(", ")
                ),
            ))
        }
    }
}
