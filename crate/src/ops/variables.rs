//! Resource variables and CALL_ONCE: the state a streaming model keeps from one invocation to the
//! next, as LiteRT's `var_handle.cc`, `read_variable.cc`, `assign_variable.cc` and `call_once.cc`
//! define it.
//!
//! - VAR_HANDLE gives the resource id of the variable named by its options' `(container,
//!   shared_name)`: one id per name for the whole interpreter (every subgraph sees the same
//!   variable), written as one 32-bit integer into its RESOURCE output. The id is known when the
//!   model is prepared, so it is a folded constant here.
//! - ASSIGN_VARIABLE (no outputs) copies its value input into the variable. LiteRT resizes the
//!   variable to each value it is given; the engine plans memory once, so every assignment of a
//!   variable must have the shape and type of the first one prepared (otherwise the model is
//!   refused at prepare, naming the variable).
//! - READ_VARIABLE copies the variable into its output, whose type must be the variable's
//!   (LiteRT checks it at invoke). LiteRT fails at invoke when a variable is read before any
//!   assignment; operators are prepared in execution order (an init subgraph when its CALL_ONCE
//!   is), so a read prepared before any assignment of its variable is refused at prepare.
//! - CALL_ONCE (no inputs, no outputs) runs its init subgraph (which has no inputs or outputs) at
//!   the first invocation of the interpreter and never again, one status per init subgraph.
//!
//! The variables of one interpreter and its nested subgraphs live in one shared [`Variables`]
//! store; [`Variables::reset`] brings it back to the state of a freshly prepared interpreter (no
//! variable has a value, every init subgraph runs again at the next invocation), which is what
//! re-creating a LiteRT interpreter gives.

use std::cell::RefCell;
use std::rc::Rc;

use super::control_flow::Subgraph;
use super::{Kernel, Node, Observer, OpIo, OutputSpec, PrepareCtx, PrepareResult, Prepared};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::tflite::schema::{CallOnceOptionsT, VarHandleOptionsT};

/// The resource variables of one interpreter (shared by all its subgraphs, see the module doc).
#[derive(Debug, Default)]
pub struct Variables {
    /// `(container, shared_name)` of each resource id, in the order the ids were given.
    names: Vec<(String, String)>,
    /// Shape and type of each variable (from the first assignment prepared) and its bytes.
    values: Vec<Option<(OutputSpec, Vec<u8>)>>,
    /// Init subgraphs CALL_ONCE has run since the interpreter was prepared or reset.
    initialized: Vec<usize>,
    /// The states recurrent operators keep in variable tensors (LSTM / RNN), one cell per
    /// (subgraph, tensor), shared by every operator naming it ([`super::recurrent_state`]).
    pub(super) states: Vec<((usize, usize), super::recurrent_state::AnyState)>,
}

/// The one [`Variables`] store an interpreter and its nested subgraphs share.
pub type SharedVariables = Rc<RefCell<Variables>>;

impl Variables {
    /// The resource id of `(container, shared_name)`, given in first-asked order.
    fn id(&mut self, container: &str, shared_name: &str) -> usize {
        if let Some(i) = self
            .names
            .iter()
            .position(|(c, s)| c == container && s == shared_name)
        {
            return i;
        }
        self.names.push((container.into(), shared_name.into()));
        self.values.push(None);
        self.names.len() - 1
    }

    /// How many variables the model names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the model keeps no state: it names no variable and no operator keeps its own
    /// state in variable tensors.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.states.is_empty()
    }

    /// The variable's shared name, for messages.
    fn name(&self, id: usize) -> String {
        self.names
            .get(id)
            .map_or_else(|| format!("#{id}"), |(_, s)| format!("'{s}'"))
    }

    /// Back to the state of a freshly prepared interpreter: every init subgraph runs again at
    /// the next invocation (and gives the variables their initial values; the bytes are zeroed
    /// until then), and every recurrent state is back at its initial value.
    pub fn reset(&mut self) {
        for (_, bytes) in self.values.iter_mut().flatten() {
            bytes.iter_mut().for_each(|b| *b = 0);
        }
        self.initialized.clear();
        for (_, state) in &self.states {
            state.reset();
        }
    }
}

/// The interpreter's variable store, or an issue when the context has none (single-operator
/// tests).
fn store(ctx: &PrepareCtx<'_>) -> PrepareResult<SharedVariables> {
    ctx.subgraphs.variables().ok_or_else(|| {
        ctx.unsupported(
            String::new(),
            "resource variables need an interpreter's variable store",
        )
    })
}

/// VAR_HANDLE: the resource id of its variable, a folded constant (see the module doc).
pub fn prepare_var_handle(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = super::options!(ctx, VarHandleOptions, VarHandleOptionsT)?;
    let out = ctx.output(0)?;
    if !matches!(out.dtype, TensorType::RESOURCE | TensorType::INT32) {
        return Err(ctx.invalid(
            out.describe(),
            format!("type {}, expected RESOURCE", dtype_name(out.dtype)),
        ));
    }
    let store = store(ctx)?;
    let id = store.borrow_mut().id(
        o.container.as_deref().unwrap_or(""),
        o.shared_name.as_deref().unwrap_or(""),
    );
    let id = i32::try_from(id)
        .map_err(|_| ctx.unsupported(String::new(), "more variables than ids fit in 32 bits"))?;
    Ok(Prepared {
        shape: Vec::new(),
        dtype: out.dtype,
        node: Node::Constant(id.to_le_bytes().to_vec()),
    })
}

/// The variable id read from input 0 (a RESOURCE or INT32 of one element whose value VAR_HANDLE
/// gave at prepare).
fn resource_id(ctx: &PrepareCtx<'_>, store: &Variables) -> PrepareResult<usize> {
    let t = ctx.input(0)?;
    let one = t.shape.iter().product::<usize>() == 1;
    if !matches!(t.dtype, TensorType::RESOURCE | TensorType::INT32) || !one {
        return Err(ctx.invalid(
            t.describe(),
            format!(
                "the resource input must be one RESOURCE or INT32, got {:?} {}",
                t.shape,
                dtype_name(t.dtype)
            ),
        ));
    }
    let Some(bytes) = t.data.and_then(|d| <[u8; 4]>::try_from(d).ok()) else {
        return Err(ctx.unsupported(
            t.describe(),
            "the resource handle must come from a VAR_HANDLE of the same subgraph (handles \
             passed through subgraph inputs are not supported)",
        ));
    };
    usize::try_from(i32::from_le_bytes(bytes))
        .ok()
        .filter(|&id| id < store.len())
        .ok_or_else(|| ctx.invalid(t.describe(), "names no variable of the model"))
}

/// ASSIGN_VARIABLE: copies input 1 into the variable (see the module doc).
pub fn prepare_assign_variable(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    if ctx.inputs.len() != 2 || !ctx.outputs.is_empty() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "has {} input(s) and {} output(s), expected 2 and 0",
                ctx.inputs.len(),
                ctx.outputs.len()
            ),
        ));
    }
    let shared = store(ctx)?;
    let mut vars = shared.borrow_mut();
    let id = resource_id(ctx, &vars)?;
    let value = ctx.input(1)?;
    let spec = OutputSpec {
        shape: value.shape.to_vec(),
        dtype: value.dtype,
    };
    let len = value.shape.iter().product::<usize>()
        * crate::graph::dtype::element_size(value.dtype).unwrap_or(0);
    match &vars.values[id] {
        Some((known, _)) if *known != spec => {
            return Err(ctx.unsupported(
                value.describe(),
                format!(
                    "variable {} is {:?} {} elsewhere, this assigns {:?} {} (a variable whose \
                     shape or type changes is not supported: the engine plans memory once)",
                    vars.name(id),
                    known.shape,
                    dtype_name(known.dtype),
                    spec.shape,
                    dtype_name(spec.dtype)
                ),
            ));
        }
        Some(_) => {}
        None => vars.values[id] = Some((spec, vec![0; len])),
    }
    drop(vars);
    Ok(Prepared {
        shape: Vec::new(),
        dtype: value.dtype,
        node: Node::Effect(Box::new(Assign { vars: shared, id })),
    })
}

/// The ASSIGN_VARIABLE kernel.
struct Assign {
    vars: SharedVariables,
    id: usize,
}

impl Kernel for Assign {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        if let Some((_, bytes)) = &mut self.vars.borrow_mut().values[self.id] {
            bytes.copy_from_slice(io.input(1));
        }
    }
}

/// READ_VARIABLE: the variable's current value (see the module doc).
pub fn prepare_read_variable(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    if ctx.inputs.len() != 1 || ctx.outputs.len() != 1 {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "has {} input(s) and {} output(s), expected 1 and 1",
                ctx.inputs.len(),
                ctx.outputs.len()
            ),
        ));
    }
    let shared = store(ctx)?;
    let vars = shared.borrow();
    let id = resource_id(ctx, &vars)?;
    let out = ctx.output(0)?;
    let Some((spec, _)) = &vars.values[id] else {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "variable {} is read before any ASSIGN_VARIABLE gives it a value (LiteRT fails \
                 at invoke)",
                vars.name(id)
            ),
        ));
    };
    if spec.dtype != out.dtype {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "type {} but variable {} holds {}",
                dtype_name(out.dtype),
                vars.name(id),
                dtype_name(spec.dtype)
            ),
        ));
    }
    let spec = spec.clone();
    drop(vars);
    Ok(Prepared::new(
        spec.shape,
        spec.dtype,
        Read { vars: shared, id },
    ))
}

/// The READ_VARIABLE kernel.
struct Read {
    vars: SharedVariables,
    id: usize,
}

impl Kernel for Read {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        // Prepare made sure an assignment was prepared before (its bytes exist).
        if let Some((_, bytes)) = &self.vars.borrow().values[self.id] {
            io.output().copy_from_slice(bytes);
        }
    }
}

/// CALL_ONCE: runs its init subgraph at the first invocation (see the module doc).
pub fn prepare_call_once(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = super::options!(ctx, CallOnceOptions, CallOnceOptionsT)?;
    if !ctx.inputs.is_empty() || !ctx.outputs.is_empty() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "has {} input(s) and {} output(s), expected none",
                ctx.inputs.len(),
                ctx.outputs.len()
            ),
        ));
    }
    let vars = store(ctx)?;
    let init = ctx
        .subgraphs
        .load(o.init_subgraph_index, &[])
        .map_err(|e| {
            ctx.unsupported(
                String::new(),
                format!("init subgraph {}: {e}", o.init_subgraph_index),
            )
        })?;
    if !init.output_specs().is_empty() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "init subgraph {} has outputs; LiteRT requires none",
                o.init_subgraph_index
            ),
        ));
    }
    // `load` checked the index; the status list never allocates at run time.
    let index = usize::try_from(o.init_subgraph_index).unwrap_or(0);
    vars.borrow_mut().initialized.reserve(1);
    Ok(Prepared {
        shape: Vec::new(),
        dtype: TensorType::FLOAT32,
        node: Node::Effect(Box::new(CallOnce { init, index, vars })),
    })
}

/// The CALL_ONCE kernel.
struct CallOnce {
    init: Box<dyn Subgraph>,
    index: usize,
    vars: SharedVariables,
}

impl Kernel for CallOnce {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        self.eval_nested(io, &mut |_, _, _| {});
    }

    fn eval_nested(&mut self, io: &mut OpIo<'_>, observer: &mut Observer<'_>) {
        if self.vars.borrow().initialized.contains(&self.index) {
            return;
        }
        // The store is not borrowed while the init subgraph's ASSIGN_VARIABLEs run.
        if let Err(e) = self.init.run(observer) {
            io.fail(e);
            return;
        }
        self.vars.borrow_mut().initialized.push(self.index);
    }
}
