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
//! An operator with several outputs (SPLIT, SPLIT_V, UNPACK) gets one arena region per output,
//! each live from the operator's step to its own last reader; its kernel runs once per output
//! ([`crate::ops::OpIo::output_index`]), and the observer hears each output in order.
//!
//! Graph inputs and outputs keep their own bytes for the whole run, so inputs survive an
//! invocation and outputs can be read after it. Intermediate tensors share memory; to see them
//! all (calibration), pass an observer to [`Interpreter::invoke_with`], which is called with each
//! tensor right after it is computed, without copying.
//!
//! [`Interpreter::for_signature`] prepares a signature's subgraph instead, its inputs and
//! outputs named and ordered as the signature has them ([`signatures`]).
//!
//! Nothing here touches the file system: the same code runs in the browser.

pub mod compare;
mod constants;
mod declared;
pub mod macs;
pub mod plan;
mod prepare;
mod run;
pub mod signatures;

use crate::error::{Error, Result};
use crate::graph::TensorType;
use crate::graph::dtype::{dtype_name, element_size};
use crate::ops::Region;
pub use crate::ops::TensorView;

/// Largest arena or constant store the engine will allocate by default (2 GiB): beyond that a
/// model is refused with [`Error::TooLarge`] rather than aborting on allocation.
pub const MAX_BYTES: usize = 1 << 31;

/// Most iterations one WHILE may run per invocation by default (1,000,000): a loop whose
/// condition is still true after that many stops the run with [`Error::TooLarge`] naming the
/// operator, where LiteRT would loop forever.
pub const DEFAULT_MAX_WHILE_ITERATIONS: u64 = 1_000_000;

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
    /// Most iterations one WHILE operator may run in one invocation (checked while running).
    pub max_while_iterations: u64,
}

impl Default for Limits {
    /// [`MAX_BYTES`] for each size, [`DEFAULT_MAX_WHILE_ITERATIONS`] iterations.
    fn default() -> Self {
        Limits {
            max_tensor_bytes: MAX_BYTES,
            max_arena_bytes: MAX_BYTES,
            max_constant_bytes: MAX_BYTES,
            max_while_iterations: DEFAULT_MAX_WHILE_ITERATIONS,
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
    /// Name of the output tensor (empty for an operator without outputs: ASSIGN_VARIABLE,
    /// CALL_ONCE).
    pub output: String,
    /// Shape of the output tensor.
    pub shape: Vec<usize>,
    /// Byte length of each input (0 for an absent optional input).
    pub inputs: Vec<usize>,
}

/// What the engine knows about one tensor after preparation.
#[derive(Debug, Clone)]
struct Slot {
    /// The tensor's index in the model's subgraph (a tensor written twice has one slot per
    /// write, reported to observers under the model's index: `graph::rewrites`).
    model_index: usize,
    name: String,
    dtype: TensorType,
    shape: Vec<usize>,
    /// Where its bytes are, when the engine materialises it.
    region: Option<Region>,
    /// For a tensor in the arena: the first and last step (inclusive) it holds its value in.
    live: (usize, usize),
}

/// One kernel to run.
struct Step {
    kernel: Box<dyn crate::ops::Kernel>,
    /// Index of the operator in subgraph 0 and its name (for [`Interpreter::step_infos`]).
    op_index: usize,
    op_name: String,
    /// Regions of the operator's inputs by position.
    inputs: Vec<Option<Region>>,
    /// The output tensor (`None` for an operator without outputs) and its arena bytes.
    output: Option<usize>,
    out_start: usize,
    out_len: usize,
    /// Outputs 1, 2, … of an operator with several outputs: tensor, arena start and length
    /// (empty for the common single-output operator).
    more: Vec<(usize, usize, usize)>,
}

/// A prepared model, ready to run.
pub struct Interpreter {
    /// Which subgraph of the model this is (0, or the subgraph a WHILE / IF runs).
    subgraph: usize,
    slots: Vec<Slot>,
    steps: Vec<Step>,
    inputs: Vec<TensorDesc>,
    outputs: Vec<TensorDesc>,
    /// The activation arena (u64 words: 8-byte aligned for every element type).
    arena: Vec<u64>,
    /// Constants read by kernels, packed at 16-byte offsets.
    consts: Vec<u64>,
    /// The resource variables (shared with the subgraphs WHILE, IF and CALL_ONCE run).
    variables: crate::ops::variables::SharedVariables,
}

impl Interpreter {
    /// The graph inputs, in the subgraph's order.
    pub fn inputs(&self) -> &[TensorDesc] {
        &self.inputs
    }

    /// The graph outputs, in the subgraph's order.
    pub fn outputs(&self) -> &[TensorDesc] {
        &self.outputs
    }

    /// The subgraph this interpreter runs (0, or a signature's subgraph: tensor ids index it).
    pub fn subgraph(&self) -> usize {
        self.subgraph
    }

    /// Bytes of the activation arena (every intermediate tensor, with reuse).
    pub fn arena_bytes(&self) -> usize {
        self.arena.len() * 8
    }

    /// Bytes of the constant store.
    pub fn constant_bytes(&self) -> usize {
        self.consts.len() * 8
    }

    /// Brings the model's state back to that of a freshly prepared interpreter: resource
    /// variables lose their values and CALL_ONCE runs its init subgraph again at the next
    /// invocation (what re-creating a LiteRT interpreter gives). A model without variables is
    /// unaffected.
    pub fn reset_variables(&mut self) {
        self.variables.borrow_mut().reset();
    }

    /// Whether the model keeps state between invocations (it names resource variables).
    pub fn has_variables(&self) -> bool {
        !self.variables.borrow().is_empty()
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
pub(crate) mod control_flow_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod variables_tests;
