//! The full-integer pass (`int8`, `int16x8`): the [`FullInteger`] working state, which operators
//! are quantized ([`FullInteger::new`]) and [`FullInteger::run`], the ordered list of stages, one
//! file each: `states.rs` (which recorded ranges count), `propagate.rs` (the work list over
//! same-scale and fixed-output ops), `constants.rs` (weights, bias, other constants),
//! `lstm.rs` (TF's integer UNIDIRECTIONAL_SEQUENCE_LSTM: weights, biases, states,
//! intermediates), `materialize.rs` (dtypes, QUANTIZE/DEQUANTIZE, I/O types, requantizes) and
//! `report.rs` (recorded ranges, multipliers, the tensor report). `subgraphs.rs` runs the pass
//! over the WHILE / IF bodies of a model with several subgraphs.

mod constants;
mod lstm;
mod materialize;
mod propagate;
mod report;
mod states;
mod subgraphs;

use std::collections::{HashMap, HashSet};

use super::edit::{Names, compact_buffers, idx, push_buffer, qerr, unify_versions};
use super::{IoType, Mode, QuantizeOptions, Ranges};
use crate::error::Result;
use crate::graph::dtype::dtype_name;
use crate::graph::{BuiltinOperator as Op, Model, Operator, Subgraph, TensorType};
use crate::ops::properties::OpProperties;
use crate::ops::registry::properties;
use crate::quant::params::{QuantParams, activation_params_int8, activation_params_int16};
use crate::quant::report::Report;
use states::State;
pub(super) use subgraphs::{SubgraphRoles, quantize_bodies};

/// An operand requantize: tensor, the parameters its readers need, and those readers
/// `(operator, input slot)`.
type OperandRequant = (usize, QuantParams, Vec<(usize, usize)>);

/// The full-integer quantizer's working state: per-op facts from the float model, per-tensor
/// parameter states, and the requantizes the propagation asked for.
pub(super) struct FullInteger<'a> {
    model: &'a Model,
    /// The index of [`FullInteger::sg`] in the model.
    subgraph: usize,
    ranges: &'a Ranges,
    opts: &'a QuantizeOptions,
    int16: bool,
    /// The subgraph being rewritten (tensors appended, operator inputs edited).
    sg: Subgraph,
    props: Vec<Option<OpProperties>>,
    quantized: Vec<bool>,
    producer: HashMap<usize, usize>,
    consumers: HashMap<usize, Vec<usize>>,
    state: Vec<Option<State>>,
    /// Parameters an op writes into a result whose state differs (TF's requantize ON_INPUT).
    result_requant: HashMap<usize, QuantParams>,
    /// Operand requantizes: (tensor, params, users (op, input slot)).
    operand_requant: Vec<OperandRequant>,
    /// Float values and axis of each per-channel weight tensor (for 16x8's recorded min/max).
    weight_values: Vec<(usize, Vec<f32>, usize)>,
    /// Operators whose activation was fused (`fuse_activations.rs`) → TF's name of the result.
    fused_names: HashMap<usize, String>,
    report: Report,
}

impl<'a> FullInteger<'a> {
    /// The pass over subgraph 0. `only`: when given, the operators that may be quantized (the
    /// others are left as they are, without a warning) — the int16 pass of a mixed model.
    pub(super) fn new(
        model: &'a Model,
        ranges: &'a Ranges,
        opts: &'a QuantizeOptions,
        only: Option<&HashSet<usize>>,
    ) -> Result<Self> {
        Self::in_subgraph(model, 0, ranges, opts, only)
    }

    /// The pass over subgraph `subgraph` of `model` (`ranges` keyed by that subgraph's tensor
    /// indices; `opts.float_ops` naming its operators).
    pub(super) fn in_subgraph(
        model: &'a Model,
        subgraph: usize,
        ranges: &'a Ranges,
        opts: &'a QuantizeOptions,
        only: Option<&HashSet<usize>>,
    ) -> Result<Self> {
        let sg = model
            .subgraphs
            .get(subgraph)
            .cloned()
            .ok_or_else(|| qerr("model", format!("it has no subgraph {subgraph}")))?;
        let int16 = opts.mode == Mode::Int16x8;
        let mut report = Report {
            mode: opts.mode.name().to_string(),
            io: match (opts.io, int16) {
                (IoType::Native, false) => "int8",
                (IoType::Native, true) => "int16",
                (IoType::Uint8, _) => "uint8",
                (IoType::Float, _) => "float",
            }
            .to_string(),
            ..Report::default()
        };
        if int16 && opts.io == IoType::Uint8 {
            return Err(qerr("options", "uint8 I/O is only available in int8 mode"));
        }
        let float_ops = resolve_ops(&sg, &opts.float_ops, "--float-ops")?;
        let n = sg.operators.len();
        let mut props = vec![None; n];
        let mut quantized = vec![false; n];
        for (i, op) in sg.operators.iter().enumerate() {
            if only.is_some_and(|o| !o.contains(&i)) {
                continue;
            }
            let code = op.code.op();
            let has_float = op
                .inputs
                .iter()
                .chain(&op.outputs)
                .filter_map(|&t| usize::try_from(t).ok())
                .any(|t| {
                    sg.tensors
                        .get(t)
                        .is_some_and(|t| t.dtype == TensorType::FLOAT32)
                });
            if !has_float {
                continue;
            }
            let p = properties(code);
            let why = match p {
                _ if float_ops.contains(&i) => {
                    Some("kept float as asked (--float-ops)".to_string())
                }
                // TF's integer LSTM (`lstm.rs`): quantized without a row of the op table.
                None if code == Op::UNIDIRECTIONAL_SEQUENCE_LSTM => {
                    lstm::unsupported(model, &sg, op, int16)
                }
                None => Some("no quantized kernel".to_string()),
                Some(p) if int16 && !p.int16 => Some("no 16x8 kernel".to_string()),
                Some(p) => check_types(&sg, op, &p),
            };
            match why {
                None => {
                    props[i] = p.map(|p| crate::ops::properties::for_mode(p, int16));
                    quantized[i] = true;
                }
                // QUANTIZE / DEQUANTIZE of a partly quantized model are conversions, not
                // float operators: the redundant ones go in `cleanup`.
                Some(_) if matches!(code, Op::QUANTIZE | Op::DEQUANTIZE) => {}
                Some(why) => report.warnings.push(format!(
                    "operator {i} ({}) stays float: {why}",
                    op.code.name()
                )),
            }
        }
        let mut producer = HashMap::new();
        let mut consumers: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, op) in sg.operators.iter().enumerate() {
            for t in op.outputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
                producer.insert(t, i);
            }
            for t in op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()) {
                let c = consumers.entry(t).or_default();
                if !c.contains(&i) {
                    c.push(i);
                }
            }
        }
        let state = vec![None; sg.tensors.len()];
        Ok(FullInteger {
            model,
            subgraph,
            ranges,
            opts,
            int16,
            sg,
            props,
            quantized,
            producer,
            consumers,
            state,
            result_requant: HashMap::new(),
            operand_requant: Vec::new(),
            weight_values: Vec::new(),
            fused_names: HashMap::new(),
            report,
        })
    }

    /// The names TF gives the results of operators an activation was fused into.
    pub(super) fn with_fused_names(mut self, names: HashMap<usize, String>) -> Self {
        self.fused_names = names;
        self
    }

    fn is_const(&self, t: usize) -> bool {
        has_data(self.model, &self.sg, t)
    }

    fn is_float(&self, t: usize) -> bool {
        self.sg
            .tensors
            .get(t)
            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
    }

    fn activation_params(&self, min: f32, max: f32) -> Result<QuantParams> {
        if self.int16 {
            activation_params_int16(min, max)
        } else {
            activation_params_int8(min, max)
        }
    }

    /// The stages, in order: constants read by several quantized uses split as TF splits them
    /// (here); the recorded ranges that count (`states.rs`); propagation across same-scale
    /// and fixed-output operators (`propagate.rs`); weights, bias and other constants
    /// (`constants.rs`), then the check that every activation has parameters (`propagate.rs`);
    /// TF's integer LSTMs: weights, biases, states and intermediates (`lstm.rs`); the rewrite with QUANTIZE/DEQUANTIZE and the I/O types (`materialize.rs`); what the result
    /// records: 16x8's min/max, multipliers, the tensor report (`report.rs`).
    pub(super) fn run(mut self) -> Result<(Model, Report)> {
        self.split_shared_constants();
        self.initial_states()?;
        self.propagate();
        self.keep_float_after_unquantized_producers();
        let mut consts = self.quantize_constants()?;
        self.check_complete()?;
        consts.extend(self.quantize_lstms()?);
        let mut out = self.model.clone();
        for (t, data) in consts {
            let b = push_buffer(&mut out, data);
            self.sg.tensors[t].buffer = b;
        }
        let origins = if self.int16 {
            self.origin_ranges()
        } else {
            Vec::new()
        };
        self.materialize();
        if self.int16 {
            let weights = std::mem::take(&mut self.weight_values);
            self.record_ranges(&origins, &weights);
        }
        self.multipliers();
        out.subgraphs[self.subgraph] = std::mem::take(&mut self.sg);
        unify_versions(&mut out);
        compact_buffers(&mut out);
        self.fill_tensor_report(&out);
        Ok((out, self.report))
    }

    /// Splits float constants read by several uses as TF's MLIR quantizer does
    /// (`QuantizationDriver::PreprocessConstantOps`): the uses as weights — any operand that is
    /// neither a bias nor an operand of a same-scale op — share one tensor, quantized once from
    /// its own values; each bias use (an LSTM's four gate biases too) and each use by a same-scale
    /// op gets its own copy, whose parameters come from the op (input and weight scales, the
    /// shared scale). Float readers and graph outputs keep the original float tensor.
    fn split_shared_constants(&mut self) {
        // Constants also read by float ops or graph outputs keep the original tensor for them.
        let mut float_read: HashSet<usize> = HashSet::new();
        for (i, op) in self.sg.operators.iter().enumerate() {
            if !self.quantized[i] {
                float_read.extend(op.inputs.iter().filter_map(|&t| usize::try_from(t).ok()));
            }
        }
        let graph_out: HashSet<usize> = self
            .sg
            .outputs
            .iter()
            .filter_map(|&t| usize::try_from(t).ok())
            .collect();
        // Per constant: the tensor its weight uses share, once one was chosen.
        let mut weight_tensor: HashMap<usize, usize> = HashMap::new();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut names = Names::new(&self.sg);
        for i in 0..self.sg.operators.len() {
            if !self.quantized[i] {
                continue;
            }
            let p = self.props[i];
            for k in 0..self.sg.operators[i].inputs.len() {
                let Some(t) = self.sg.operators[i].input(k) else {
                    continue;
                };
                if !self.is_float(t) || !self.is_const(t) {
                    continue;
                }
                let own_copy = p
                    .is_some_and(|p| p.same_scale || p.bias.is_some_and(|b| b.input == k))
                    || lstm::is_gate_bias(&self.sg.operators[i], k);
                if !own_copy && let Some(&w) = weight_tensor.get(&t) {
                    self.sg.operators[i].inputs[k] = idx(w);
                    let c = self.consumers.entry(w).or_default();
                    if !c.contains(&i) {
                        c.push(i);
                    }
                    continue;
                }
                let first = seen.insert(t);
                if first && !float_read.contains(&t) && !graph_out.contains(&t) {
                    if !own_copy {
                        weight_tensor.insert(t, t);
                    }
                    continue;
                }
                // TF names the copy as it names any new value (`<name>1`, `<name>2`, …) and
                // leaves the name with the first reader; when that one is quantized here and a
                // float op reads the constant too, the float op's tensor takes the new name (so
                // quantizing the result again gives TF's names).
                let name = self.sg.tensors[t].name.clone();
                let mut copy = self.sg.tensors[t].clone();
                if first && !graph_out.contains(&t) {
                    self.sg.tensors[t].name = names.fresh(&name);
                } else {
                    copy.name = names.fresh(&name);
                }
                self.sg.tensors.push(copy);
                self.state.push(None);
                let n = self.sg.tensors.len() - 1;
                self.sg.operators[i].inputs[k] = idx(n);
                self.consumers.entry(n).or_default().push(i);
                if !own_copy {
                    weight_tensor.insert(t, n);
                }
            }
        }
    }

    fn state_params(&self, t: usize) -> Option<QuantParams> {
        self.state.get(t).and_then(Option::as_ref).map(|s| s.params)
    }

    fn tensor_label(&self, t: usize) -> String {
        format!("tensor {t} '{}'", self.sg.tensors[t].name)
    }

    fn q_dtype(&self) -> TensorType {
        if self.int16 {
            TensorType::INT16
        } else {
            TensorType::INT8
        }
    }
}

/// Whether tensor `t` of `sg` (a subgraph of `model`) holds constant data.
fn has_data(model: &Model, sg: &Subgraph, t: usize) -> bool {
    sg.tensors.get(t).is_some_and(|x| {
        x.buffer != 0
            && model
                .buffers
                .get(x.buffer as usize)
                .is_some_and(|b| !b.data.is_empty())
    })
}

/// `None` when every float tensor of the op is FLOAT32 and its weights are float constants;
/// otherwise why the op cannot be quantized.
fn check_types(sg: &Subgraph, op: &Operator, p: &OpProperties) -> Option<String> {
    for &t in op.inputs.iter().chain(&op.outputs) {
        let Ok(t) = usize::try_from(t) else { continue };
        let Some(x) = sg.tensors.get(t) else {
            return Some(format!("tensor {t} does not exist"));
        };
        if matches!(
            x.dtype,
            TensorType::INT8 | TensorType::UINT8 | TensorType::INT16 | TensorType::FLOAT16
        ) {
            return Some(format!(
                "tensor {t} '{}' is already {}",
                x.name,
                dtype_name(x.dtype)
            ));
        }
    }
    if let Some(ws) = p.weights
        && let Some(w) = op.input(ws.input)
        && sg
            .tensors
            .get(w)
            .is_some_and(|x| x.dtype != TensorType::FLOAT32)
    {
        return Some("its weights are not float32".into());
    }
    None
}

/// `names` (as [`resolve_ops`] reads them in `before`) as operator indices of `after`, a copy of
/// `before` with operators removed and tensor indices unchanged (DENSIFY / DEQUANTIZE of
/// constants folded): each operator is found again by its first output tensor. An operator that
/// was folded away (its output is now a constant) selects nothing.
pub(super) fn rebase_ops(
    before: &Subgraph,
    after: &Subgraph,
    names: &[String],
    flag: &str,
) -> Result<Vec<String>> {
    let mut out: Vec<usize> = resolve_ops(before, names, flag)?
        .into_iter()
        .filter_map(|i| before.operators[i].outputs.first().copied())
        .filter_map(|t| {
            after
                .operators
                .iter()
                .position(|op| op.outputs.first() == Some(&t))
        })
        .collect();
    crate::sort::sort(&mut out);
    out.dedup();
    Ok(out.into_iter().map(|i| i.to_string()).collect())
}

/// Operator indices named by `--float-ops` / `--int16-ops` (`flag`): indices, or names of an
/// output tensor.
pub(super) fn resolve_ops(sg: &Subgraph, names: &[String], flag: &str) -> Result<HashSet<usize>> {
    let mut set = HashSet::new();
    for n in names {
        let n = n.trim();
        if n.is_empty() {
            continue;
        }
        if let Ok(i) = n.parse::<usize>() {
            if i >= sg.operators.len() {
                return Err(qerr(
                    flag,
                    format!("no operator {i}: the model has {}", sg.operators.len()),
                ));
            }
            set.insert(i);
            continue;
        }
        let found: Vec<usize> = sg
            .operators
            .iter()
            .enumerate()
            .filter(|(_, op)| {
                op.outputs.iter().any(|&t| {
                    usize::try_from(t)
                        .ok()
                        .and_then(|t| sg.tensors.get(t))
                        .is_some_and(|t| t.name == n)
                })
            })
            .map(|(i, _)| i)
            .collect();
        if found.is_empty() {
            return Err(qerr(
                flag,
                format!("no operator index or output tensor named '{n}'"),
            ));
        }
        set.extend(found);
    }
    Ok(set)
}
