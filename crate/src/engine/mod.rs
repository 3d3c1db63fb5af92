//! The engine: an interpreter that prepares a model (float32, int8, 16x8 or dynamic-range
//! hybrid) once, then runs it without allocating.
//!
//! [`Interpreter::new`] walks subgraph 0 in execution order and, for every operator, asks the
//! [`crate::ops::registry`] for its prepare function, which checks types, options and shapes and
//! returns a kernel (or, for DEQUANTIZE of a constant, a folded float constant). Every operator
//! that cannot be prepared is collected, and one [`Error::CannotRun`] lists them all. Then one
//! arena is planned for every tensor computed at run time (offsets reused by lifetime, see
//! [`plan`]), the constants the kernels read are packed into one aligned store, and the
//! interpreter is ready: [`Interpreter::invoke`] only runs kernels over slices of those two
//! buffers.
//!
//! Graph inputs and outputs keep their own bytes for the whole run, so inputs survive an
//! invocation and outputs can be read after it. Intermediate tensors share memory; to see them
//! all (calibration), pass an observer to [`Interpreter::invoke_with`], which is called with each
//! tensor right after it is computed, without copying.
//!
//! Nothing here touches the file system: the same code runs in the browser.

pub mod compare;
pub mod macs;
pub mod plan;

use std::borrow::Cow;

use crate::error::{Error, IssueKind, OpIssue, Result};
use crate::graph::{Model, TensorType};
use crate::ops::{Node, OpIo, PrepareCtx, Region, Role, TensorInfo, registry};
use crate::tflite::types::{dtype_name, element_size};

/// Largest arena or constant store the engine will allocate by default (2 GiB): beyond that a
/// model is refused with [`Error::TooLarge`] rather than aborting on allocation.
pub const MAX_BYTES: usize = 1 << 31;

/// Size limits checked at prepare time, before anything is allocated: a tensor, the activation
/// arena or the constant store that would exceed them makes [`Interpreter::with_limits`] fail
/// with a typed error naming it. The page and the CLI let the user change them; fuzzing uses
/// small ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest single tensor, in bytes.
    pub max_tensor_bytes: usize,
    /// Largest activation arena (all intermediate tensors, with reuse), in bytes.
    pub max_arena_bytes: usize,
    /// Largest constant store (weights the kernels read, folded constants), in bytes.
    pub max_constant_bytes: usize,
}

impl Default for Limits {
    /// [`MAX_BYTES`] for each.
    fn default() -> Self {
        Limits {
            max_tensor_bytes: MAX_BYTES,
            max_arena_bytes: MAX_BYTES,
            max_constant_bytes: MAX_BYTES,
        }
    }
}

/// Which kernel set prepare picks for each operator. Both give the same bits for integer ops (the
/// fast set is checked against the reference on every golden); float kernels in the fast set keep
/// each output's summation order, so calibration statistics do not depend on the choice.
///
/// The default is [`KernelSet::Fast`]: every golden gives the same bits with either set (see
/// `tests/rust/int_goldens.rs` and `float_goldens.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelSet {
    /// The scalar reference kernels (`kernels::reference`): the specification.
    Reference,
    /// The fast kernels (`kernels::simd128`) where an operator has one, falling back to the
    /// reference elsewhere.
    #[default]
    Fast,
    /// Float kernels that reproduce, bit for bit, the arithmetic of LiteRT's *optimized* builtin
    /// float kernels as TF 2.21's x86-64 pip wheel runs them (`kernels::litert_optimized`), the
    /// reference elsewhere: what TF's calibrator computes, so calibration records TF's min/max.
    LiteRtOptimized,
}

impl std::str::FromStr for KernelSet {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "reference" | "ref" => Ok(KernelSet::Reference),
            "fast" => Ok(KernelSet::Fast),
            "litert-optimized" | "tf" => Ok(KernelSet::LiteRtOptimized),
            other => Err(format!(
                "unknown kernel set '{other}' (reference | fast | litert-optimized)"
            )),
        }
    }
}

/// A tensor of subgraph 0, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TensorId(pub usize);

/// Name, shape and type of a graph input or output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorDesc {
    /// The tensor.
    pub id: TensorId,
    /// Its name in the model.
    pub name: String,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its element type.
    pub dtype: TensorType,
}

impl TensorDesc {
    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Number of bytes (elements × element size).
    pub fn byte_len(&self) -> usize {
        self.num_elements() * element_size(self.dtype).unwrap_or(0)
    }

    /// "1×4×4 FLOAT32 (64 bytes)".
    pub fn describe(&self) -> String {
        format!(
            "{} {} ({} bytes)",
            shape_text(&self.shape),
            dtype_name(self.dtype),
            self.byte_len()
        )
    }
}

/// `[1, 4, 4]` → "1×4×4" (a scalar is "scalar").
pub fn shape_text(shape: &[usize]) -> String {
    if shape.is_empty() {
        return "scalar".to_string();
    }
    shape
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("×")
}

/// One step of an invocation, as [`Interpreter::step_infos`] describes it for profiling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepInfo {
    /// Index of the operator in subgraph 0.
    pub op_index: usize,
    /// The operator's name (`CONV_2D`, `ADD`, …).
    pub op_name: String,
    /// The kernel's Rust type name (which shows whether it is a fast or a reference kernel).
    pub kernel: &'static str,
    /// Name of the output tensor.
    pub output: String,
    /// Shape of the output tensor.
    pub shape: Vec<usize>,
    /// Byte length of each input (0 for an absent optional input).
    pub inputs: Vec<usize>,
}

/// A borrowed view of one tensor's current contents.
#[derive(Debug, Clone, Copy)]
pub struct TensorView<'a> {
    /// Name in the model.
    pub name: &'a str,
    /// Element type.
    pub dtype: TensorType,
    /// Shape.
    pub shape: &'a [usize],
    /// Little-endian element bytes.
    pub bytes: &'a [u8],
}

impl<'a> TensorView<'a> {
    /// The elements as floats, when the tensor is FLOAT32.
    pub fn as_f32(&self) -> Option<&'a [f32]> {
        if self.dtype == TensorType::FLOAT32 {
            bytemuck::try_cast_slice(self.bytes).ok()
        } else {
            None
        }
    }
}

/// What the engine knows about one tensor after preparation.
#[derive(Debug, Clone)]
struct Slot {
    name: String,
    dtype: TensorType,
    shape: Vec<usize>,
    /// Where its bytes are, when the engine materialises it.
    region: Option<Region>,
}

/// One kernel to run.
struct Step {
    kernel: Box<dyn crate::ops::Kernel>,
    /// Index of the operator in subgraph 0 and its name (for [`Interpreter::step_infos`]).
    op_index: usize,
    op_name: String,
    /// Regions of the operator's inputs by position.
    inputs: Vec<Option<Region>>,
    /// The output tensor and its arena bytes.
    output: usize,
    out_start: usize,
    out_len: usize,
}

/// A prepared model, ready to run.
pub struct Interpreter {
    slots: Vec<Slot>,
    steps: Vec<Step>,
    inputs: Vec<TensorDesc>,
    outputs: Vec<TensorDesc>,
    /// The activation arena (u64 words: 8-byte aligned for every element type).
    arena: Vec<u64>,
    /// Constants read by kernels, packed at 16-byte offsets.
    consts: Vec<u64>,
}

/// Converts a declared shape to sizes, if every dim is non-negative and the byte size of a
/// tensor of `dtype` is at most `max` bytes.
fn declared_shape(dims: &[i32], dtype: TensorType, max: usize) -> Option<Vec<usize>> {
    let shape: Vec<usize> = dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    byte_len(&shape, dtype, max)?;
    Some(shape)
}

/// Bytes of a tensor, if it has a fixed element size and is at most `max` bytes (checked
/// arithmetic: an overflowing element count is simply too large).
fn byte_len(shape: &[usize], dtype: TensorType, max: usize) -> Option<usize> {
    let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    let b = n.checked_mul(element_size(dtype)?)?;
    (b <= max).then_some(b)
}

/// Packs byte blobs at [`plan::ALIGN`]-aligned offsets into one u64 buffer.
fn pack(blobs: &[(usize, &[u8])], regions: &mut [Option<Region>], max: usize) -> Result<Vec<u64>> {
    let mut total = 0usize;
    let mut starts = Vec::with_capacity(blobs.len());
    for (_, b) in blobs {
        starts.push(total);
        total = plan::align_up(b.len())
            .and_then(|l| total.checked_add(l))
            .filter(|&t| t <= max)
            .ok_or_else(|| Error::TooLarge {
                what: "the model's constants".into(),
                detail: format!("more than the limit of {max} bytes"),
            })?;
    }
    let mut store = vec![0u64; total / 8];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut store);
    for ((t, b), start) in blobs.iter().zip(starts) {
        bytes[start..start + b.len()].copy_from_slice(b);
        regions[*t] = Some(Region::Const {
            start,
            len: b.len(),
        });
    }
    Ok(store)
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
        let max_tensor = limits.max_tensor_bytes;
        let sg = model
            .subgraphs
            .first()
            .ok_or_else(|| Error::InconsistentTable {
                reason: "the model has no subgraph".into(),
            })?;
        let n = sg.tensors.len();
        let tensor_index = |t: i32| usize::try_from(t).ok().filter(|&t| t < n);
        let mut issues: Vec<OpIssue> = Vec::new();
        let model_issue = |reason: String| OpIssue {
            op_index: 0,
            op_name: "(graph)".into(),
            tensor: String::new(),
            kind: IssueKind::Invalid,
            reason,
        };

        // Constant data (borrowed from the model, or folded at prepare time), shapes and types.
        let mut data: Vec<Option<Cow<'_, [u8]>>> = (0..n)
            .map(|t| model.tensor_data(0, t).map(Cow::Borrowed))
            .collect();
        let mut shapes: Vec<Option<Vec<usize>>> = sg
            .tensors
            .iter()
            .map(|t| declared_shape(t.dims(), t.dtype, max_tensor))
            .collect();
        let mut dtypes: Vec<TensorType> = sg.tensors.iter().map(|t| t.dtype).collect();
        // Sparse constants (DENSIFY's inputs) expanded once, here, to their dense shape.
        for (t, tensor) in sg.tensors.iter().enumerate() {
            let (Some(sp), Some(values), Some(shape)) = (&tensor.sparsity, &data[t], &shapes[t])
            else {
                continue;
            };
            let dense = element_size(tensor.dtype)
                .ok_or_else(|| format!("type {} cannot be sparse", dtype_name(tensor.dtype)))
                .and_then(|elem| {
                    crate::kernels::reference::densify::densify(values, elem, shape, sp)
                });
            match dense {
                Ok(dense) => data[t] = Some(Cow::Owned(dense)),
                Err(reason) => {
                    issues.push(model_issue(format!(
                        "sparse tensor '{}': {reason}",
                        tensor.name
                    )));
                    data[t] = None;
                }
            }
        }
        // Which tensors have a value when an operator runs: graph inputs and constants at first.
        let mut defined: Vec<bool> = data.iter().map(Option::is_some).collect();
        // Outputs of operators that could not be prepared: their readers are skipped quietly
        // (the failure is already listed).
        let mut failed = vec![false; n];
        let mut graph_inputs = Vec::new();
        for &t in &sg.inputs {
            let Some(t) = tensor_index(t) else {
                issues.push(model_issue(format!("graph input {t} is not a tensor")));
                continue;
            };
            if shapes[t].is_none() {
                issues.push(model_issue(format!(
                    "graph input '{}' has shape {:?} of type {}, which the engine cannot hold \
                     (a negative dimension, or more than the tensor limit of {max_tensor} bytes)",
                    sg.tensors[t].name,
                    sg.tensors[t].dims(),
                    dtype_name(sg.tensors[t].dtype)
                )));
            }
            if defined[t] {
                issues.push(model_issue(format!(
                    "graph input '{}' is a constant or listed twice",
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
            output: usize,
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
                        "variable (stateful) tensors are not supported"
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
                        issues.push(issue(
                            IssueKind::Invalid,
                            format!("input {k} '{}'", tensor.name),
                            format!(
                                "shape {:?} of type {} cannot be held (a negative dimension, or \
                                 more than the tensor limit of {max_tensor} bytes)",
                                tensor.dims(),
                                dtype_name(tensor.dtype)
                            ),
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
            let Some(prepare) = registry::lookup(op.code.op()) else {
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
            if outputs.len() != 1 {
                issues.push(issue(
                    IssueKind::Unsupported,
                    String::new(),
                    format!(
                        "{} outputs (the engine runs single-output operators)",
                        outputs.len()
                    ),
                ));
                continue;
            }
            let out = outputs[0];
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
            let declared_out =
                declared_shape(sg.tensors[out].dims(), sg.tensors[out].dtype, max_tensor);
            let out_infos = [TensorInfo {
                role: Role::Output(0),
                name: &sg.tensors[out].name,
                dtype: sg.tensors[out].dtype,
                shape: declared_out.as_deref().unwrap_or(empty),
                data: None,
                quantization: sg.tensors[out].quantization.as_ref(),
            }];
            let ctx = PrepareCtx {
                kernels,
                op_index,
                op_name: &op_name,
                op,
                inputs: &infos,
                outputs: &out_infos,
            };
            let prepared = prepare(&ctx);
            drop(infos);
            match prepared {
                Err(e) => {
                    issues.push(e);
                    // Keep checking downstream operators against the declared shape.
                    shapes[out] = declared_out;
                }
                Ok(p) => {
                    if byte_len(&p.shape, p.dtype, max_tensor).is_none() {
                        issues.push(issue(
                            IssueKind::Invalid,
                            format!("output 0 '{}'", sg.tensors[out].name),
                            format!(
                                "shape {:?} is larger than the tensor limit of {max_tensor} bytes",
                                p.shape
                            ),
                        ));
                        shapes[out] = None;
                        continue;
                    }
                    shapes[out] = Some(p.shape);
                    dtypes[out] = p.dtype;
                    failed[out] = false;
                    match p.node {
                        Node::Constant(bytes) => data[out] = Some(Cow::Owned(bytes)),
                        Node::Kernel(kernel) => {
                            data[out] = None;
                            pending.push(Pending {
                                kernel,
                                op_index,
                                op_name: op_name.clone(),
                                inputs,
                                output: out,
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
            let o = p.output;
            in_arena[o] = true;
            first[o] = first[o].min(s);
            last[o] = last[o].max(s);
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
                name: sg.tensors[t].name.clone(),
                dtype: dtypes[t],
                shape: shapes[t].clone().unwrap_or_default(),
                region: regions[t],
            })
            .collect();
        let steps = pending
            .into_iter()
            .map(|p| {
                let (out_start, out_len) = match regions[p.output] {
                    Some(Region::Arena { start, len }) => (start, len),
                    _ => (0, 0),
                };
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
        Ok(Interpreter {
            arena: vec![0u64; arena_bytes / 8],
            consts,
            slots,
            steps,
            inputs,
            outputs,
        })
    }

    /// The graph inputs, in the subgraph's order.
    pub fn inputs(&self) -> &[TensorDesc] {
        &self.inputs
    }

    /// The graph outputs, in the subgraph's order.
    pub fn outputs(&self) -> &[TensorDesc] {
        &self.outputs
    }

    /// Bytes of the activation arena (every intermediate tensor, with reuse).
    pub fn arena_bytes(&self) -> usize {
        self.arena.len() * 8
    }

    /// Bytes of the constant store.
    pub fn constant_bytes(&self) -> usize {
        self.consts.len() * 8
    }

    /// Number of kernels one invocation runs (folded operators excluded).
    pub fn num_kernels(&self) -> usize {
        self.steps.len()
    }

    fn input_desc(&self, i: usize) -> Result<&TensorDesc> {
        self.inputs.get(i).ok_or(Error::NoSuchIndex {
            what: "input",
            index: i,
            count: self.inputs.len(),
        })
    }

    /// Copies little-endian element bytes into input `i`; the length must match exactly.
    pub fn set_input(&mut self, i: usize, bytes: &[u8]) -> Result<()> {
        let d = self.input_desc(i)?;
        if bytes.len() != d.byte_len() {
            return Err(Error::TensorMismatch {
                what: format!("input {i}"),
                tensor: d.name.clone(),
                expected: d.describe(),
                got: format!("{} bytes", bytes.len()),
            });
        }
        let Some(Region::Arena { start, len }) = self.slots[d.id.0].region else {
            return Ok(());
        };
        let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut self.arena);
        arena[start..start + len].copy_from_slice(bytes);
        Ok(())
    }

    /// Sets a FLOAT32 input from floats; the input's type and element count must match.
    pub fn set_input_f32(&mut self, i: usize, values: &[f32]) -> Result<()> {
        let d = self.input_desc(i)?;
        if d.dtype != TensorType::FLOAT32 || values.len() != d.num_elements() {
            return Err(Error::TensorMismatch {
                what: format!("input {i}"),
                tensor: d.name.clone(),
                expected: d.describe(),
                got: format!("{} FLOAT32 values", values.len()),
            });
        }
        self.set_input(i, bytemuck::cast_slice(values))
    }

    /// Runs the model once on the current inputs.
    pub fn invoke(&mut self) {
        self.invoke_with(&mut |_, _| {});
    }

    /// Runs the model once, calling `observer` with every graph input first and then with each
    /// operator's output right after it is computed (folded constants are not reported). The
    /// view borrows the arena: no copy, no allocation.
    pub fn invoke_with(&mut self, observer: &mut dyn FnMut(TensorId, TensorView<'_>)) {
        fn view<'v>(slots: &'v [Slot], t: usize, bytes: &'v [u8]) -> TensorView<'v> {
            TensorView {
                name: &slots[t].name,
                dtype: slots[t].dtype,
                shape: &slots[t].shape,
                bytes,
            }
        }
        let slots = &self.slots;
        {
            let arena: &[u8] = bytemuck::cast_slice(&self.arena);
            for d in &self.inputs {
                if let Some(Region::Arena { start, len }) = slots[d.id.0].region {
                    observer(d.id, view(slots, d.id.0, &arena[start..start + len]));
                }
            }
        }
        let consts: &[u8] = bytemuck::cast_slice(&self.consts);
        for step in &mut self.steps {
            let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut self.arena);
            let mut io = OpIo::new(arena, consts, &step.inputs, (step.out_start, step.out_len));
            step.kernel.eval(&mut io);
            let out: &[u8] = io.output();
            observer(TensorId(step.output), view(slots, step.output, out));
        }
    }

    /// What each step of an invocation runs, in execution order (the indices of
    /// [`Interpreter::invoke_timed`]'s times).
    pub fn step_infos(&self) -> Vec<StepInfo> {
        self.steps
            .iter()
            .map(|s| StepInfo {
                op_index: s.op_index,
                op_name: s.op_name.clone(),
                kernel: s.kernel.type_name(),
                output: self.slots[s.output].name.clone(),
                shape: self.slots[s.output].shape.clone(),
                inputs: s
                    .inputs
                    .iter()
                    .map(|r| match r {
                        Some(Region::Arena { len, .. } | Region::Const { len, .. }) => *len,
                        None => 0,
                    })
                    .collect(),
            })
            .collect()
    }

    /// Runs the model once like [`Interpreter::invoke`], adding the time each step takes to
    /// `times[step]` (steps in the order of [`Interpreter::step_infos`]; a shorter `times` leaves
    /// the remaining steps untimed). `now` is the clock, in any unit (`performance.now()` in the
    /// browser and in Node, [`std::time::Instant`] natively); it is read once between steps.
    pub fn invoke_timed(&mut self, now: &mut dyn FnMut() -> f64, times: &mut [f64]) {
        let consts: &[u8] = bytemuck::cast_slice(&self.consts);
        let mut t0 = now();
        for (k, step) in self.steps.iter_mut().enumerate() {
            let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut self.arena);
            let mut io = OpIo::new(arena, consts, &step.inputs, (step.out_start, step.out_len));
            step.kernel.eval(&mut io);
            let t1 = now();
            if let Some(t) = times.get_mut(k) {
                *t += t1 - t0;
            }
            t0 = t1;
        }
    }

    /// The current contents of output `i`.
    pub fn output(&self, i: usize) -> Result<TensorView<'_>> {
        let d = self.outputs.get(i).ok_or(Error::NoSuchIndex {
            what: "output",
            index: i,
            count: self.outputs.len(),
        })?;
        self.tensor(d.id).ok_or(Error::NoSuchIndex {
            what: "output",
            index: i,
            count: self.outputs.len(),
        })
    }

    /// The current contents of any tensor the engine holds: graph inputs, outputs and constants
    /// are always valid; intermediate tensors share memory and are only meaningful inside an
    /// [`Interpreter::invoke_with`] observer. `None` for tensors the engine does not hold (unused
    /// or folded-away constants).
    pub fn tensor(&self, id: TensorId) -> Option<TensorView<'_>> {
        let slot = self.slots.get(id.0)?;
        let bytes: &[u8] = match slot.region? {
            Region::Arena { start, len } => {
                &bytemuck::cast_slice::<u64, u8>(&self.arena)[start..start + len]
            }
            Region::Const { start, len } => {
                &bytemuck::cast_slice::<u64, u8>(&self.consts)[start..start + len]
            }
        };
        Some(TensorView {
            name: &slot.name,
            dtype: slot.dtype,
            shape: &slot.shape,
            bytes,
        })
    }
}

#[cfg(test)]
mod tests;
