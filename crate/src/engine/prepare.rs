//! Preparing a model: every operator's prepare function, shapes and types, constant folding,
//! the arena plan and the constant store ([`Interpreter::with_options`]).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use super::constants::{fold_shape_arithmetic, graph_issue, initial_data, pack, zeroed_words};
use super::declared::{byte_len, declared_shape, held_shape, quantization_problem, unholdable};
use super::{Interpreter, Limits, Slot, Step, TensorDesc, TensorId, plan};
use crate::error::{Error, IssueKind, OpIssue, Result};
use crate::graph::dtype::{dtype_name, element_size};
use crate::graph::{Model, TensorType};
use crate::kernels::{Arithmetic, KernelSet};
use crate::ops::control_flow::{Subgraph, SubgraphLoader};
use crate::ops::variables::SharedVariables;
use crate::ops::{Node, OutputSpec, PrepareCtx, Region, Role, TensorInfo, registry};

/// Prepares the subgraphs a WHILE or IF runs, with the limits and kernel set of the subgraph
/// around it.
struct Loader<'m> {
    model: &'m Model,
    limits: &'m Limits,
    kernels: KernelSet,
    arithmetic: Arithmetic,
    /// The subgraphs being prepared, outermost first.
    stack: &'m [usize],
    /// What all subgraph interpreters of the model share while they are prepared.
    shared: &'m Shared,
    /// The resource variables all subgraphs share.
    variables: &'m SharedVariables,
}

/// What every subgraph interpreter of one model shares while it is prepared.
pub(super) struct Shared {
    /// How many more subgraph interpreters the model may prepare.
    budget: Cell<usize>,
    /// The shape each operator output is computed at, as (subgraph, tensor, shape), one entry
    /// per prepared instance ([`Interpreter::check`] collects them; `None`: not collected).
    computed: Option<RefCell<ComputedShapes>>,
}

/// (subgraph, tensor, computed shape) of operator outputs, one entry per prepared instance.
type ComputedShapes = Vec<(usize, usize, Vec<usize>)>;

impl Shared {
    /// A fresh budget; `collect`: record the computed shapes.
    pub(super) fn new(collect: bool) -> Self {
        Shared {
            budget: Cell::new(MAX_SUBGRAPH_INSTANCES),
            computed: collect.then(|| RefCell::new(Vec::new())),
        }
    }
}

/// How deep WHILE / IF subgraphs may nest.
const MAX_NESTING: usize = 16;

/// How many subgraph interpreters one model may prepare in all (each WHILE / IF prepares its
/// own): a bound on hostile fan-out (two loops per body, nested 16 deep, would be 2^16).
pub(super) const MAX_SUBGRAPH_INSTANCES: usize = 1024;

impl SubgraphLoader for Loader<'_> {
    fn load(
        &self,
        index: i32,
        inputs: &[OutputSpec],
    ) -> std::result::Result<Box<dyn Subgraph>, String> {
        let n = self.model.subgraphs.len();
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < n)
            .ok_or_else(|| format!("the model has no subgraph {index} ({n} subgraph(s))"))?;
        if self.stack.contains(&i) {
            return Err(format!(
                "subgraph {i} runs itself (recursion through subgraphs {:?})",
                self.stack
            ));
        }
        let budget = &self.shared.budget;
        if budget.get() == 0 {
            return Err(format!(
                "the model prepares more than {MAX_SUBGRAPH_INSTANCES} subgraph instances"
            ));
        }
        budget.set(budget.get() - 1);
        if self.stack.len() >= MAX_NESTING {
            return Err(format!("subgraphs nest deeper than {MAX_NESTING} levels"));
        }
        Interpreter::prepare_subgraph(
            self.model,
            i,
            Some(inputs),
            self.limits,
            self.kernels,
            self.arithmetic,
            self.stack,
            self.shared,
            self.variables,
            true,
        )
        .map(|it| Box::new(it) as Box<dyn Subgraph>)
        .map_err(|e| e.to_string())
    }

    fn variables(&self) -> Option<SharedVariables> {
        Some(self.variables.clone())
    }

    fn max_while_iterations(&self) -> u64 {
        self.limits.max_while_iterations
    }

    fn subgraph_index(&self) -> Option<usize> {
        self.stack.last().copied()
    }
}

impl Interpreter {
    /// Prepares subgraph 0 of `model`: resolves every operator, computes shapes, folds constant
    /// DEQUANTIZE, plans the arena. Fails with one [`Error::CannotRun`] listing every operator
    /// that is unsupported or invalid.
    pub fn new(model: &Model) -> Result<Self> {
        Self::with_limits(model, &Limits::default())
    }

    /// [`Interpreter::new`] with explicit size [`Limits`].
    pub fn with_limits(model: &Model, limits: &Limits) -> Result<Self> {
        Self::with_options(model, limits, KernelSet::default())
    }

    /// [`Interpreter::new`] with explicit size [`Limits`] and [`KernelSet`].
    pub fn with_options(model: &Model, limits: &Limits, kernels: KernelSet) -> Result<Self> {
        Self::with_arithmetic(model, limits, kernels, Arithmetic::default())
    }

    /// [`Interpreter::with_options`] reproducing the integer results of `arithmetic`
    /// (LiteRT's reference kernels, or its default XNNPACK path for the ops
    /// [`Arithmetic::Xnnpack`] covers).
    pub fn with_arithmetic(
        model: &Model,
        limits: &Limits,
        kernels: KernelSet,
        arithmetic: Arithmetic,
    ) -> Result<Self> {
        let variables = SharedVariables::default();
        Self::prepare_subgraph(
            model,
            0,
            None,
            limits,
            kernels,
            arithmetic,
            &[],
            &Shared::new(false),
            &variables,
            true,
        )
    }

    /// Every check [`Interpreter::new`] makes (model, operators, shapes, types, limits), without
    /// allocating the activation arena of subgraph 0: what the quantizer runs before writing
    /// anything in the modes that do not calibrate. Returns the shape each operator output of
    /// every subgraph the engine prepares (subgraph 0, and the WHILE / IF bodies it runs) is
    /// computed at, as (subgraph, tensor index, shape): what LiteRT resizes it to at prepare,
    /// whatever its declared shape. A subgraph prepared several times (two loops running one
    /// body) gives one entry per instance.
    ///
    /// # Errors
    /// What [`Interpreter::with_limits`] refuses.
    pub fn check(model: &Model, limits: &Limits) -> Result<ComputedShapes> {
        let shared = Shared::new(true);
        Self::prepare_subgraph(
            model,
            0,
            None,
            limits,
            KernelSet::default(),
            Arithmetic::default(),
            &[],
            &shared,
            &SharedVariables::default(),
            false,
        )?;
        Ok(shared.computed.map(RefCell::into_inner).unwrap_or_default())
    }

    /// Prepares subgraph `index` of `model` (its declared input shapes, or `given` ones for a
    /// subgraph a WHILE or IF runs); `stack` lists the subgraphs being prepared around it, so a
    /// subgraph that runs itself is refused; `shared` counts the subgraph interpreters the whole
    /// model may still prepare (and collects computed shapes for [`Interpreter::check`]); `variables` is the resource-variable store all of them share.
    /// Without `allocate` the interpreter has no arena and must not run
    /// ([`Interpreter::check`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prepare_subgraph(
        model: &Model,
        index: usize,
        given: Option<&[OutputSpec]>,
        limits: &Limits,
        kernels: KernelSet,
        arithmetic: Arithmetic,
        stack: &[usize],
        shared: &Shared,
        variables: &SharedVariables,
        allocate: bool,
    ) -> Result<Self> {
        let max_tensor = limits.max_tensor_bytes;
        let original = model;
        // A tensor written twice: each later write gets its own tensor (graph::rewrites).
        let split = crate::graph::rewrites::split(model, index);
        let (model, rewrites) = split
            .as_ref()
            .map_or((model, &[][..]), |(m, r)| (m, r.as_slice()));
        let sg = model
            .subgraphs
            .get(index)
            .ok_or_else(|| Error::InconsistentTable {
                reason: format!(
                    "the model has no subgraph {index} ({} subgraph(s))",
                    model.subgraphs.len()
                ),
            })?;
        if model.version != 3 {
            return Err(Error::InconsistentTable {
                reason: format!(
                    "schema version {}: LiteRT loads only version 3 models",
                    model.version
                ),
            });
        }
        let mut stack = stack.to_vec();
        stack.push(index);
        let loader = Loader {
            model,
            limits,
            kernels,
            arithmetic,
            stack: &stack,
            shared,
            variables,
        };
        let n = sg.tensors.len();
        let tensor_index = |t: i32| usize::try_from(t).ok().filter(|&t| t < n);
        let mut issues: Vec<OpIssue> = Vec::new();
        let model_issue = graph_issue;

        // Shapes and types, and constant data (borrowed from the model, or folded at prepare time).
        let mut shapes: Vec<Option<Vec<usize>>> = sg
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| held_shape(t, model.tensor_data(index, i).is_some(), max_tensor))
            .collect();
        let mut dtypes: Vec<TensorType> = sg.tensors.iter().map(|t| t.dtype).collect();
        // A constant an operator overwrites (and nothing reads before): computed, its data
        // ignored, as LiteRT does (a lint warning). Its shape must stay the declared one: LiteRT
        // writes the result into the constant's buffer.
        let overwritten: Vec<usize> = crate::graph::lint::overwritten_constants(model, index)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        let mut data = initial_data(model, index, &shapes, &overwritten, max_tensor, &mut issues);
        // What LiteRT refuses when it builds the interpreter: a declared shape with a negative
        // dimension (of any tensor, even one the engine would compute), and quantization
        // parameters its `ParseQuantization` rejects (scales without zero points, counts that
        // differ, a quantized_dimension that is not an axis, per-channel counts that are not
        // that axis's size).
        for (t, tensor) in sg.tensors.iter().enumerate() {
            // (Graph inputs and constants are reported below, by the operator reading them.)
            let graph_input = sg.inputs.iter().any(|&i| tensor_index(i) == Some(t));
            if !graph_input && data[t].is_none() && tensor.dims().iter().any(|&d| d < 0) {
                issues.push(model_issue(format!(
                    "tensor '{}' declares shape {:?} with a negative dimension",
                    tensor.name,
                    tensor.dims()
                )));
            }
            if let Some(q) = &tensor.quantization
                && let Some(reason) = quantization_problem(q, tensor.dims())
            {
                issues.push(model_issue(format!("tensor '{}' {reason}", tensor.name)));
            }
        }
        // Which tensors have a value when an operator runs: graph inputs and constants at first.
        let mut defined: Vec<bool> = data.iter().map(Option::is_some).collect();
        // Outputs of operators that could not be prepared: their readers are skipped quietly
        // (the failure is already listed).
        let mut failed = vec![false; n];
        let mut graph_inputs = Vec::new();
        if let Some(given) = given
            && given.len() != sg.inputs.len()
        {
            issues.push(model_issue(format!(
                "subgraph {index} has {} input(s), the operator passes {}",
                sg.inputs.len(),
                given.len()
            )));
        }
        for (k, &t) in sg.inputs.iter().enumerate() {
            let Some(t) = tensor_index(t) else {
                issues.push(model_issue(format!("graph input {t} is not a tensor")));
                continue;
            };
            if let Some(spec) = given.and_then(|g| g.get(k)) {
                if spec.dtype != dtypes[t] {
                    issues.push(model_issue(format!(
                        "subgraph {index} input '{}' is {} but the operator passes {}",
                        sg.tensors[t].name,
                        dtype_name(dtypes[t]),
                        dtype_name(spec.dtype)
                    )));
                }
                shapes[t] =
                    byte_len(&spec.shape, spec.dtype, max_tensor).map(|_| spec.shape.clone());
            }
            if shapes[t].is_none() {
                issues.push(model_issue(format!(
                    "graph input '{}': {}",
                    sg.tensors[t].name,
                    unholdable(&sg.tensors[t], max_tensor)
                )));
            }
            // Listed twice: one tensor, the last value set wins (as in LiteRT; a lint warning).
            // A constant: LiteRT crashes writing the input into the read-only buffer.
            if defined[t] && !graph_inputs.contains(&t) {
                issues.push(model_issue(format!(
                    "graph input '{}' is a constant (LiteRT crashes when it is set)",
                    sg.tensors[t].name
                )));
            }
            defined[t] = true;
            graph_inputs.push(t);
        }

        // Prepare every operator.
        struct Pending {
            kernel: Box<dyn crate::ops::Kernel>,
            op_index: usize,
            op_name: String,
            inputs: Vec<Option<usize>>,
            /// `None` for an operator without outputs ([`Node::Effect`]).
            output: Option<usize>,
            /// Outputs 1, 2, … of an operator with several outputs.
            more: Vec<usize>,
        }
        let mut pending: Vec<Pending> = Vec::new();
        for (op_index, op) in sg.operators.iter().enumerate() {
            let op_name = op.code.name();
            let issue = |kind, tensor: String, reason: String| OpIssue {
                op_index,
                op_name: op_name.clone(),
                tensor,
                kind,
                reason,
            };
            let inputs: Vec<Option<usize>> = op.inputs.iter().map(|&t| tensor_index(t)).collect();
            let outputs: Vec<Option<usize>> = op.outputs.iter().map(|&t| tensor_index(t)).collect();
            if outputs.iter().any(Option::is_none)
                || op
                    .inputs
                    .iter()
                    .zip(&inputs)
                    .any(|(&r, t)| r >= 0 && t.is_none())
            {
                issues.push(issue(
                    IssueKind::Invalid,
                    String::new(),
                    "refers to a tensor that does not exist".into(),
                ));
                continue;
            }
            let outputs: Vec<usize> = outputs.into_iter().flatten().collect();
            // An input nobody computes: report it here; an input whose producer failed: skip
            // quietly (that producer is already listed).
            let mut skip = false;
            for (k, t) in inputs.iter().enumerate() {
                let Some(t) = *t else { continue };
                let tensor = &sg.tensors[t];
                if !defined[t] {
                    let why = if tensor.is_variable {
                        "variable (stateful) tensors are supported only as the state of LSTM/RNN operators that alone read them"
                    } else {
                        "no operator before this one computes it and it has no data"
                    };
                    issues.push(issue(
                        if tensor.is_variable {
                            IssueKind::Unsupported
                        } else {
                            IssueKind::Invalid
                        },
                        format!("input {k} '{}'", tensor.name),
                        why.into(),
                    ));
                    skip = true;
                } else if shapes[t].is_none() {
                    if !failed[t] {
                        let kind = if element_size(tensor.dtype).is_some() {
                            IssueKind::Invalid
                        } else {
                            IssueKind::Unsupported
                        };
                        issues.push(issue(
                            kind,
                            format!("input {k} '{}'", tensor.name),
                            unholdable(tensor, max_tensor),
                        ));
                    }
                    skip = true;
                }
            }
            for &t in &outputs {
                if defined[t] {
                    issues.push(issue(
                        IssueKind::Invalid,
                        format!("output '{}'", sg.tensors[t].name),
                        "the tensor already has a value (constant, graph input or earlier output)"
                            .into(),
                    ));
                    skip = true;
                }
                defined[t] = true;
                // Until prepared successfully, readers of this output are skipped quietly.
                failed[t] = true;
            }
            if skip {
                continue;
            }
            if let Some(why) = registry::version_refusal(&op.code)
                .or_else(|| crate::ops::litert_options::options_refusal(&op.options))
            {
                issues.push(issue(IssueKind::Invalid, String::new(), why));
                continue;
            }
            let Some(prepare) = registry::lookup(&op.code) else {
                let tensor = outputs
                    .first()
                    .map(|&t| format!("output 0 '{}'", sg.tensors[t].name))
                    .unwrap_or_default();
                issues.push(issue(
                    IssueKind::Unsupported,
                    tensor,
                    "no kernel for this operator".into(),
                ));
                continue;
            };
            let empty: &[usize] = &[];
            let infos: Vec<Option<TensorInfo<'_>>> = inputs
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    t.map(|t| TensorInfo {
                        role: Role::Input(k),
                        name: &sg.tensors[t].name,
                        dtype: dtypes[t],
                        shape: shapes[t].as_deref().unwrap_or(empty),
                        data: data[t].as_deref(),
                        quantization: sg.tensors[t].quantization.as_ref(),
                    })
                })
                .collect();
            let declared_out: Vec<Option<Vec<usize>>> = outputs
                .iter()
                .map(|&o| declared_shape(sg.tensors[o].dims(), sg.tensors[o].dtype, max_tensor))
                .collect();
            let out_infos: Vec<TensorInfo<'_>> = outputs
                .iter()
                .zip(&declared_out)
                .enumerate()
                .map(|(k, (&o, declared))| TensorInfo {
                    role: Role::Output(k),
                    name: &sg.tensors[o].name,
                    dtype: sg.tensors[o].dtype,
                    shape: declared.as_deref().unwrap_or(empty),
                    data: None,
                    quantization: sg.tensors[o].quantization.as_ref(),
                })
                .collect();
            let inter_infos: Vec<Option<TensorInfo<'_>>> = op
                .intermediates
                .as_deref()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(k, &t)| {
                    let t = sg.tensors.get(usize::try_from(t).ok()?)?;
                    Some(TensorInfo {
                        role: Role::Intermediate(k),
                        name: &t.name,
                        dtype: t.dtype,
                        shape: empty,
                        data: None,
                        quantization: t.quantization.as_ref(),
                    })
                })
                .collect();
            let ctx = PrepareCtx {
                kernels,
                arithmetic,
                op_index,
                op_name: &op_name,
                op,
                inputs: &infos,
                outputs: &out_infos,
                intermediates: &inter_infos,
                subgraphs: &loader,
            };
            let prepared = prepare(&ctx);
            drop((infos, out_infos, inter_infos));
            match prepared {
                Err(e) => {
                    issues.push(e);
                    // Keep checking downstream operators against the declared shapes.
                    for (&o, declared) in outputs.iter().zip(declared_out) {
                        shapes[o] = declared;
                    }
                }
                Ok(p) => {
                    let first = OutputSpec {
                        shape: p.shape,
                        dtype: p.dtype,
                    };
                    let (node, specs) = match p.node {
                        Node::MultiKernel { kernel, mut more } => {
                            more.insert(0, first);
                            (Node::Kernel(kernel), more)
                        }
                        node @ Node::Effect(_) => (node, Vec::new()),
                        node => (node, vec![first]),
                    };
                    if specs.len() != outputs.len() {
                        issues.push(issue(
                            IssueKind::Invalid,
                            String::new(),
                            format!(
                                "has {} output(s), its kernel computes {}",
                                outputs.len(),
                                specs.len()
                            ),
                        ));
                        continue;
                    }
                    let mut bad_output = false;
                    for (k, (&o, spec)) in outputs.iter().zip(&specs).enumerate() {
                        // The declared type must be what the operator produces (a model that
                        // says INT32 where SOFTMAX writes FLOAT32 contradicts itself). Except
                        // DEQUANTIZE: LiteRT's Prepare sets its output to FLOAT32 whatever was
                        // declared, and so does the engine (a lint warning).
                        if sg.tensors[o].dtype != spec.dtype
                            && op.code.op() != crate::graph::BuiltinOperator::DEQUANTIZE
                        {
                            issues.push(issue(
                                IssueKind::Invalid,
                                format!("output {k} '{}'", sg.tensors[o].name),
                                format!(
                                    "type {} but the operator produces {}",
                                    dtype_name(sg.tensors[o].dtype),
                                    dtype_name(spec.dtype)
                                ),
                            ));
                            shapes[o] = None;
                            bad_output = true;
                            continue;
                        }
                        if overwritten.contains(&o)
                            && declared_shape(sg.tensors[o].dims(), spec.dtype, max_tensor)
                                .as_deref()
                                != Some(spec.shape.as_slice())
                        {
                            issues.push(issue(
                                IssueKind::Invalid,
                                format!("output {k} '{}'", sg.tensors[o].name),
                                format!(
                                    "a constant of shape {:?} that the operator overwrites with \
                                     shape {:?} (LiteRT would write past its data)",
                                    sg.tensors[o].dims(),
                                    spec.shape
                                ),
                            ));
                            shapes[o] = None;
                            bad_output = true;
                            continue;
                        }
                        if let Some((_, r)) = rewrites.iter().find(|(new, _)| *new == o)
                            && shapes[r.tensor].as_ref() != Some(&spec.shape)
                        {
                            let before =
                                crate::graph::rewrites::writer_name(model, index, r.before);
                            issues.push(issue(
                                IssueKind::Invalid,
                                format!("output {k} '{}'", sg.tensors[o].name),
                                format!(
                                    "{before} writes this tensor too, with shape {:?} where this \
                                     one computes {:?} (LiteRT keeps one buffer for both)",
                                    shapes[r.tensor].as_deref().unwrap_or_default(),
                                    spec.shape
                                ),
                            ));
                            shapes[o] = None;
                            bad_output = true;
                            continue;
                        }
                        if byte_len(&spec.shape, spec.dtype, max_tensor).is_none() {
                            issues.push(issue(
                                IssueKind::Invalid,
                                format!("output {k} '{}'", sg.tensors[o].name),
                                format!(
                                    "shape {:?} is larger than the tensor limit of {max_tensor} \
                                     bytes",
                                    spec.shape
                                ),
                            ));
                            shapes[o] = None;
                            bad_output = true;
                        }
                    }
                    if bad_output {
                        continue;
                    }
                    for (&o, spec) in outputs.iter().zip(specs) {
                        shapes[o] = Some(spec.shape);
                        dtypes[o] = spec.dtype;
                        failed[o] = false;
                    }
                    let Some(&out) = outputs.first() else {
                        // An operator without outputs runs for its effect (checked above: only
                        // an effect kernel has no outputs).
                        if let Node::Effect(kernel) = node {
                            pending.push(Pending {
                                kernel,
                                op_index,
                                op_name: op_name.clone(),
                                inputs,
                                output: None,
                                more: Vec::new(),
                            });
                        }
                        continue;
                    };
                    match node {
                        Node::Constant(bytes) => data[out] = Some(Cow::Owned(bytes)),
                        // (Has no outputs, handled above.)
                        Node::Effect(_) => {}
                        Node::Kernel(kernel) | Node::MultiKernel { kernel, .. } => {
                            let mut kernel = kernel;
                            // Integer shape arithmetic on constants is computed now (SHAPE →
                            // STRIDED_SLICE → PACK → RESHAPE chains resolve at prepare).
                            if outputs.len() == 1 {
                                let out_len = shapes[out]
                                    .as_deref()
                                    .and_then(|s| byte_len(s, dtypes[out], max_tensor))
                                    .unwrap_or(0);
                                if let Some(bytes) = fold_shape_arithmetic(
                                    &mut *kernel,
                                    &inputs,
                                    &data,
                                    dtypes[out],
                                    out_len,
                                ) {
                                    data[out] = Some(Cow::Owned(bytes));
                                    continue;
                                }
                            }
                            for &o in &outputs {
                                data[o] = None;
                            }
                            pending.push(Pending {
                                kernel,
                                op_index,
                                op_name: op_name.clone(),
                                inputs,
                                output: Some(out),
                                more: outputs[1..].to_vec(),
                            });
                        }
                    }
                }
            }
        }
        let mut graph_outputs = Vec::new();
        for &t in &sg.outputs {
            match tensor_index(t) {
                Some(t) if defined[t] => graph_outputs.push(t),
                Some(t) => issues.push(model_issue(format!(
                    "graph output '{}' is never computed",
                    sg.tensors[t].name
                ))),
                None => issues.push(model_issue(format!("graph output {t} is not a tensor"))),
            }
        }
        if !issues.is_empty() {
            return Err(Error::CannotRun { issues });
        }

        // Lifetimes: graph inputs and outputs live throughout; others from their step to their
        // last reader.
        let steps_n = pending.len();
        let mut first = vec![usize::MAX; n];
        let mut last = vec![0usize; n];
        let mut in_arena = vec![false; n];
        for &t in graph_inputs.iter().chain(&graph_outputs) {
            if data[t].is_none() {
                in_arena[t] = true;
                first[t] = 0;
                last[t] = steps_n;
            }
        }
        for (s, p) in pending.iter().enumerate() {
            // Every output is live from its step (all of them at once) to its last reader.
            for &o in p.output.iter().chain(&p.more) {
                in_arena[o] = true;
                first[o] = first[o].min(s);
                last[o] = last[o].max(s);
            }
            for t in p.inputs.iter().flatten() {
                if in_arena[*t] {
                    last[*t] = last[*t].max(s);
                }
            }
        }
        let arena_tensors: Vec<usize> = (0..n).filter(|&t| in_arena[t]).collect();
        let requests: Vec<plan::Request> = arena_tensors
            .iter()
            .map(|&t| plan::Request {
                size: shapes[t]
                    .as_deref()
                    .and_then(|s| byte_len(s, dtypes[t], max_tensor))
                    .unwrap_or(0),
                first: first[t],
                last: last[t],
            })
            .collect();
        let max_arena = limits.max_arena_bytes;
        let too_large = || Error::TooLarge {
            what: "the activation arena".into(),
            detail: format!("more than the limit of {max_arena} bytes"),
        };
        let (offsets, arena_bytes) = plan::plan(&requests).ok_or_else(too_large)?;
        if arena_bytes > max_arena {
            return Err(too_large());
        }
        let mut regions: Vec<Option<Region>> = vec![None; n];
        for ((&t, r), &start) in arena_tensors.iter().zip(&requests).zip(&offsets) {
            regions[t] = Some(Region::Arena { start, len: r.size });
        }

        // Constants that kernels read or that are graph outputs.
        let mut needed = vec![false; n];
        for p in &pending {
            for &t in p.inputs.iter().flatten() {
                needed[t] |= data[t].is_some();
            }
        }
        for &t in &graph_outputs {
            needed[t] |= data[t].is_some();
        }
        let blobs: Vec<(usize, &[u8])> = (0..n)
            .filter(|&t| needed[t])
            .filter_map(|t| data[t].as_deref().map(|d| (t, d)))
            .collect();
        let consts = pack(&blobs, &mut regions, limits.max_constant_bytes)?;

        let slots: Vec<Slot> = (0..n)
            .map(|t| Slot {
                model_index: rewrites
                    .iter()
                    .find(|(new, _)| *new == t)
                    .map_or(t, |(_, r)| r.tensor),
                name: sg.tensors[t].name.clone(),
                dtype: dtypes[t],
                shape: shapes[t].clone().unwrap_or_default(),
                region: regions[t],
                live: (first[t], last[t]),
            })
            .collect();
        let steps = pending
            .into_iter()
            .map(|p| {
                let arena_bytes = |t: usize| match regions[t] {
                    Some(Region::Arena { start, len }) => (start, len),
                    _ => (0, 0),
                };
                let (out_start, out_len) = p.output.map_or((0, 0), arena_bytes);
                Step {
                    kernel: p.kernel,
                    op_index: p.op_index,
                    op_name: p.op_name,
                    inputs: p
                        .inputs
                        .iter()
                        .map(|t| t.and_then(|t| regions[t]))
                        .collect(),
                    output: p.output,
                    out_start,
                    out_len,
                    more: p
                        .more
                        .iter()
                        .map(|&t| {
                            let (start, len) = arena_bytes(t);
                            (t, start, len)
                        })
                        .collect(),
                }
            })
            .collect();
        let desc = |t: usize| TensorDesc {
            id: TensorId(t),
            name: slots[t].name.clone(),
            shape: slots[t].shape.clone(),
            dtype: slots[t].dtype,
        };
        let inputs = graph_inputs.iter().map(|&t| desc(t)).collect();
        let outputs = graph_outputs.iter().map(|&t| desc(t)).collect();
        let arena = if allocate {
            zeroed_words(arena_bytes / 8, "the activation arena")?
        } else {
            Vec::new()
        };
        // Slots of the model's tensors come first (`graph::rewrites` appends the others).
        if let (Some(computed), Some(sg)) = (&shared.computed, original.subgraphs.get(index)) {
            computed.borrow_mut().extend(
                sg.operators
                    .iter()
                    .flat_map(|op| op.outputs.iter())
                    .filter_map(|&t| usize::try_from(t).ok())
                    .filter_map(|t| slots.get(t).map(|slot| (index, t, slot.shape.clone()))),
            );
        }
        Ok(Interpreter {
            subgraph: index,
            arena,
            consts,
            slots,
            steps,
            inputs,
            outputs,
            variables: variables.clone(),
        })
    }
}
