//! Stage 5 of the full-integer pass: the decided parameters written into the graph — integer
//! dtypes, requantizes, QUANTIZE/DEQUANTIZE where float and integer tensors meet and at the
//! model's inputs and outputs (the I/O type), operator versions and options.

use std::collections::{HashMap, HashSet};

use super::super::IoType;
use super::super::edit::{Names, idx, per_tensor_q, simple_op};
use super::FullInteger;
use crate::graph::{
    BuiltinOperator as Op, BuiltinOptionsT, Operator, Quantization, Tensor, TensorType,
};
use crate::quant::params::QuantParams;

impl<'a> FullInteger<'a> {
    fn new_tensor(
        &mut self,
        like: usize,
        name: String,
        dtype: TensorType,
        q: Option<Quantization>,
    ) -> usize {
        let src = &self.sg.tensors[like];
        let mut t = Tensor::new(name, dtype, src.shape.clone().unwrap_or_default());
        t.shape = src.shape.clone();
        t.shape_signature = src.shape_signature.clone();
        t.has_rank = src.has_rank;
        t.quantization = q;
        self.sg.tensors.push(t);
        self.sg.tensors.len() - 1
    }

    fn dequantize_version(&self) -> i32 {
        2
    }

    fn quantize_version(&self) -> i32 {
        1
    }

    /// Step 5: rewrite dtypes, insert requantizes and the Q/DQ at the float boundaries and at the
    /// model's inputs and outputs; set operator versions.
    pub(super) fn materialize(&mut self) {
        let qd = self.q_dtype();
        let io = self.opts.io;
        let mut names = Names::new(&self.sg);
        let n_ops = self.sg.operators.len();
        let mut start: Vec<Operator> = Vec::new();
        let mut end: Vec<(usize, Operator)> = Vec::new();
        let mut after: Vec<Vec<Operator>> = vec![Vec::new(); n_ops];
        // (op, input slot) → new tensor; (op, output slot) → new tensor.
        let mut in_map: HashMap<(usize, usize), usize> = HashMap::new();
        let mut out_map: HashMap<(usize, usize), usize> = HashMap::new();
        let mut output_map: HashMap<usize, usize> = HashMap::new();
        let outputs: HashSet<usize> = self
            .sg
            .outputs
            .iter()
            .filter_map(|&t| usize::try_from(t).ok())
            .collect();
        // Graph inputs in signature order (TF names their QUANTIZE outputs in that order).
        let mut inputs: Vec<usize> = self
            .model
            .signatures
            .iter()
            .find(|s| usize::try_from(s.subgraph).is_ok_and(|s| s == self.subgraph))
            .map(|s| s.inputs.iter().map(|m| m.tensor as usize).collect())
            .unwrap_or_default();
        for &t in &self.sg.inputs {
            if let Ok(t) = usize::try_from(t)
                && !inputs.contains(&t)
            {
                inputs.push(t);
            }
        }
        inputs.retain(|t| self.sg.inputs.contains(&idx(*t)));
        if !self.int16 {
            // TF's MLIR quantizer: inputs whose parameters were propagated get their QUANTIZE
            // inserted at the start of the function one by one (so in reverse order), before
            // those of inputs with their own recorded range (in subgraph order).
            let mut sub: Vec<usize> = self
                .sg
                .inputs
                .iter()
                .filter_map(|&t| usize::try_from(t).ok())
                .collect();
            let immutable = |t: &usize| self.state[*t].as_ref().is_some_and(|s| s.immutable);
            let (imm, mut muts): (Vec<usize>, Vec<usize>) = sub.drain(..).partition(immutable);
            muts.reverse();
            inputs = muts.into_iter().chain(imm).collect();
        }
        let acts = self.activations();
        let mut order: Vec<usize> = inputs
            .iter()
            .copied()
            .filter(|t| acts.contains(t))
            .collect();
        order.extend(acts.iter().copied().filter(|t| !inputs.contains(t)));
        let mut input_quantize = 0usize;
        let mut q_of: HashMap<usize, usize> = HashMap::new();
        // TF's int8 quantizer names the integer results of an operator with several outputs
        // (graph outputs aside) after the operator's fused location: the float names of all
        // its outputs joined by ';' (then `name1`, `name2`, … once taken).
        // An operator an activation was fused into is named the same way (its location fuses
        // the activation's and its own).
        let mut fused: HashMap<usize, String> = (0..self.sg.operators.len())
            .filter(|&o| !self.int16 && self.quantized[o] && self.sg.operators[o].outputs.len() > 1)
            .map(|o| {
                let names: Vec<&str> = self.sg.operators[o]
                    .outputs
                    .iter()
                    .filter_map(|&t| usize::try_from(t).ok())
                    .filter_map(|t| self.sg.tensors.get(t).map(|x| x.name.as_str()))
                    .collect();
                (o, names.join(";"))
            })
            .collect();
        for (&o, name) in &self.fused_names {
            if !self.int16 && self.quantized.get(o).copied().unwrap_or(false) {
                fused.insert(o, name.clone());
            }
        }
        for t in order {
            let Some(st) = self.state[t].clone() else {
                continue;
            };
            let p = st.params;
            let prod = self.producer.get(&t).copied();
            let float_users: Vec<usize> = self
                .consumers
                .get(&t)
                .map(|c| c.iter().copied().filter(|&c| !self.quantized[c]).collect())
                .unwrap_or_default();
            let q_users: Vec<usize> = self
                .consumers
                .get(&t)
                .map(|c| c.iter().copied().filter(|&c| self.quantized[c]).collect())
                .unwrap_or_default();
            let name = self.sg.tensors[t].name.clone();
            let uint8_q = QuantParams {
                scale: p.scale,
                zero_point: p.zero_point + 128,
            };
            // `q`: the tensor quantized consumers read; `f`: the one float consumers read.
            let mut convs: Vec<Operator> = Vec::new();
            let q;
            let mut f = t;
            let quantized_producer = prod.is_some_and(|o| self.quantized[o]);
            if !quantized_producer {
                let is_input = prod.is_none() && inputs.contains(&t);
                match (is_input, io) {
                    (true, IoType::Native) => {
                        let x = &mut self.sg.tensors[t];
                        x.dtype = qd;
                        x.quantization = Some(per_tensor_q(p));
                        q = t;
                        if !float_users.is_empty() {
                            // TF's name for the float copy a float operator reads.
                            let fname = names.take("tfl.dequantize");
                            f = self.new_tensor(t, fname, TensorType::FLOAT32, None);
                            convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, f));
                        }
                    }
                    (false, IoType::Native)
                        if outputs.contains(&t) && float_users.is_empty() && prod.is_some() =>
                    {
                        // A model output written by a float op: the op writes a float copy,
                        // QUANTIZE turns it into the integer output.
                        let o = prod.unwrap_or(0);
                        let k = self.sg.operators[o]
                            .outputs
                            .iter()
                            .position(|&x| x == idx(t))
                            .unwrap_or(0);
                        let w = self.new_tensor(t, names.fresh(&name), TensorType::FLOAT32, None);
                        out_map.insert((o, k), w);
                        let x = &mut self.sg.tensors[t];
                        x.dtype = qd;
                        x.quantization = Some(per_tensor_q(p));
                        q = t;
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), w, t));
                    }
                    (true, _) => {
                        let qname = if self.int16 {
                            names.take(&format!("{name}_int16"))
                        } else if input_quantize == 0 {
                            names.take("tfl.quantize")
                        } else {
                            names.take(&format!("tfl.quantize{input_quantize}"))
                        };
                        input_quantize += 1;
                        q = self.new_tensor(t, qname, qd, Some(per_tensor_q(p)));
                        if io == IoType::Uint8 {
                            let x = &mut self.sg.tensors[t];
                            x.dtype = TensorType::UINT8;
                            x.quantization = Some(per_tensor_q(uint8_q));
                            if !float_users.is_empty() {
                                f = self.new_tensor(
                                    t,
                                    names.fresh(&name),
                                    TensorType::FLOAT32,
                                    None,
                                );
                                convs.push(simple_op(
                                    Op::DEQUANTIZE,
                                    self.dequantize_version(),
                                    t,
                                    f,
                                ));
                            }
                        }
                        convs.insert(0, simple_op(Op::QUANTIZE, self.quantize_version(), t, q));
                    }
                    (false, _) => {
                        // Produced by a float op: stays float, quantized for integer consumers.
                        // TF's MLIR quantizer names this QUANTIZE's result as it names those of
                        // the inputs (`tfl.quantize`, `tfl.quantize1`, … in one count) when the
                        // tensor had its own recorded range (prepare's QUANTIZE); a QUANTIZE of
                        // parameters propagated onto the result of an operator left float (its
                        // driver's) is named after the tensor (`strided_slice1`).
                        let propagated = !st.immutable;
                        let qname = if self.int16 || propagated {
                            names.fresh(&name)
                        } else if input_quantize == 0 {
                            names.take("tfl.quantize")
                        } else {
                            names.take(&format!("tfl.quantize{input_quantize}"))
                        };
                        if !self.int16 && !propagated {
                            input_quantize += 1;
                        }
                        q = self.new_tensor(t, qname, qd, Some(per_tensor_q(p)));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), t, q));
                        let from_dequantize =
                            prod.is_some_and(|o| self.sg.operators[o].code.op() == Op::DEQUANTIZE);
                        if !from_dequantize {
                            self.report.warnings.push(format!(
                                "tensor {t} '{name}' is quantized after float operator {}",
                                prod.map_or(String::new(), |o| o.to_string())
                            ));
                        }
                    }
                }
            } else {
                let o = prod.unwrap_or(0);
                let k = self.sg.operators[o]
                    .outputs
                    .iter()
                    .position(|&x| x == idx(t))
                    .unwrap_or(0);
                let written = self.result_requant.get(&t).copied();
                let wp = written.unwrap_or(p);
                let is_out = outputs.contains(&t);
                if is_out && io != IoType::Native {
                    let wname = if self.int16 {
                        names.take(&format!("{name}_int16"))
                    } else if let Some(f) = fused.get(&o) {
                        names.take(f)
                    } else {
                        names.fresh(&name)
                    };
                    let w = self.new_tensor(t, wname, qd, Some(per_tensor_q(wp)));
                    out_map.insert((o, k), w);
                    q = if written.is_some() {
                        let r = self.new_tensor(t, names.fresh(&name), qd, Some(per_tensor_q(p)));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), w, r));
                        r
                    } else {
                        w
                    };
                    if io == IoType::Float && self.int16 {
                        // The older quantizer appends output DEQUANTIZEs at the end.
                        let at = self
                            .sg
                            .outputs
                            .iter()
                            .position(|&x| x == idx(t))
                            .unwrap_or(0);
                        end.push((
                            at,
                            simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, t),
                        ));
                    } else if io == IoType::Float {
                        convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, t));
                    } else {
                        let x = &mut self.sg.tensors[t];
                        x.dtype = TensorType::UINT8;
                        x.quantization = Some(per_tensor_q(uint8_q));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), q, t));
                        if !float_users.is_empty() {
                            f = self.new_tensor(t, names.fresh(&name), TensorType::FLOAT32, None);
                            convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, f));
                        }
                    }
                } else {
                    if let Some(f) = fused.get(&o).filter(|_| !is_out) {
                        self.sg.tensors[t].name = names.take(f);
                    }
                    let x = &mut self.sg.tensors[t];
                    x.dtype = qd;
                    x.quantization = Some(per_tensor_q(wp));
                    q = if written.is_some() {
                        let rname = if self.int16 {
                            names.take(&format!("{name}_requantized"))
                        } else {
                            names.fresh(&name)
                        };
                        let r = self.new_tensor(t, rname, qd, Some(per_tensor_q(p)));
                        convs.push(simple_op(Op::QUANTIZE, self.quantize_version(), t, r));
                        if is_out {
                            output_map.insert(t, r);
                        }
                        r
                    } else {
                        t
                    };
                    if !float_users.is_empty() {
                        f = self.new_tensor(t, names.fresh(&name), TensorType::FLOAT32, None);
                        convs.push(simple_op(Op::DEQUANTIZE, self.dequantize_version(), q, f));
                    }
                }
            }
            q_of.insert(t, q);
            for &c in &q_users {
                for (k, &x) in self.sg.operators[c].inputs.iter().enumerate() {
                    if x == idx(t) {
                        in_map.insert((c, k), q);
                    }
                }
            }
            for &c in &float_users {
                for (k, &x) in self.sg.operators[c].inputs.iter().enumerate() {
                    if x == idx(t) {
                        in_map.insert((c, k), f);
                    }
                }
            }
            match prod {
                Some(o) => after[o].extend(convs),
                None => start.extend(convs),
            }
        }
        // Operand requantizes (TF's op-code table holds one QUANTIZE version: 2 once an int16
        // requantize exists).
        let requants = std::mem::take(&mut self.operand_requant);
        let requant_version = if self.int16 && !requants.is_empty() {
            2
        } else {
            self.quantize_version()
        };
        if requant_version != self.quantize_version() {
            for op in start.iter_mut().chain(after.iter_mut().flatten()) {
                if op.code.op() == Op::QUANTIZE {
                    op.code.version = requant_version;
                }
            }
        }
        for (t, p, users) in requants {
            let src = q_of.get(&t).copied().unwrap_or(t);
            let name = self.sg.tensors[t].name.clone();
            let rname = if self.int16 {
                names.take(&format!("{name}_requantized"))
            } else {
                names.fresh(&name)
            };
            let r = self.new_tensor(t, rname, qd, Some(per_tensor_q(p)));
            let op = simple_op(Op::QUANTIZE, requant_version, src, r);
            match self.producer.get(&t) {
                Some(&o) => after[o].push(op),
                None => start.push(op),
            }
            for (o, k) in users {
                in_map.insert((o, k), r);
            }
        }
        // Rewire and order.
        let old_ops = std::mem::take(&mut self.sg.operators);
        let mut ops = start;
        for (o, mut op) in old_ops.into_iter().enumerate() {
            for (k, x) in op.inputs.iter_mut().enumerate() {
                if let Some(&n) = in_map.get(&(o, k)) {
                    *x = idx(n);
                }
            }
            for (k, x) in op.outputs.iter_mut().enumerate() {
                if let Some(&n) = out_map.get(&(o, k)) {
                    *x = idx(n);
                }
            }
            if self.quantized[o]
                && let Some(p) = self.props[o]
            {
                let v = if self.int16 {
                    p.int16_version
                } else {
                    p.int8_version
                };
                op.code.version = op.code.version.max(v);
                if self.int16 {
                    // A FULLY_CONNECTED given options of another type (or none) ran with LiteRT's
                    // zeroed params, which are its own table's defaults; its 16x8 prepare needs
                    // `quantized_bias_type` from that table, so it gets its own.
                    if op.code.op() == Op::FULLY_CONNECTED
                        && !matches!(op.options, BuiltinOptionsT::FullyConnectedOptions(_))
                    {
                        op.options = BuiltinOptionsT::FullyConnectedOptions(Box::default());
                    }
                    // As TF's 16x8 converter writes them: int64 bias declared in the options,
                    // and ADD/SUB on the general (not power-of-two) int16 scale path.
                    match &mut op.options {
                        BuiltinOptionsT::Conv2DOptions(x) => {
                            x.quantized_bias_type = TensorType::INT64;
                        }
                        BuiltinOptionsT::FullyConnectedOptions(x) => {
                            x.quantized_bias_type = TensorType::INT64;
                        }
                        BuiltinOptionsT::TransposeConvOptions(x) => {
                            x.quantized_bias_type = TensorType::INT64;
                        }
                        BuiltinOptionsT::AddOptions(x) => x.pot_scale_int16 = false,
                        BuiltinOptionsT::SubOptions(x) => x.pot_scale_int16 = false,
                        _ => {}
                    }
                }
            }
            ops.push(op);
            ops.append(&mut after[o]);
        }
        crate::sort::stable_sort_by_key(&mut end, |e| e.0);
        ops.extend(end.into_iter().map(|e| e.1));
        self.sg.operators = ops;
        for x in &mut self.sg.outputs {
            if let Some(&n) = usize::try_from(*x).ok().and_then(|t| output_map.get(&t)) {
                *x = idx(n);
            }
        }
    }
}
