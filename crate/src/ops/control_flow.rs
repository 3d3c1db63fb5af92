//! Control flow: WHILE and IF, whose work is done by other subgraphs of the model.
//!
//! Prepare asks [`PrepareCtx::subgraphs`] (the engine) to prepare each referenced subgraph with
//! the operator's input shapes and types, and keeps the prepared subgraphs inside the kernel.
//! Eval runs them as LiteRT's `while.cc` / `if.cc` do:
//!
//! - WHILE copies its inputs into the loop state, runs the cond subgraph on the state (its one
//!   output is a BOOL scalar), and while it is true runs the body subgraph on the state and takes
//!   its outputs as the new state; the final state is the operator's output. LiteRT lets a body
//!   change the shapes of the state (dynamic tensors); the engine plans memory once, so a body
//!   whose output shape or type differs from its input is refused at prepare, naming the tensor.
//! - IF reads its BOOL input 0 and runs the then or else subgraph on inputs 1, 2, …; both
//!   branches must produce the same shapes and types.
//!
//! The engine refuses a subgraph that (directly or not) runs itself, and a subgraph index the
//! model does not have, with typed issues at the operator. A WHILE whose condition is still true
//! after [`Limits::max_while_iterations`](crate::engine::Limits) iterations stops the invocation
//! with [`crate::Error::TooLarge`] naming the operator (LiteRT would loop forever).

use super::{
    Kernel, Observer, OpIo, OutputSpec, PrepareCtx, PrepareResult, Prepared, TensorInfo, options,
};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::tflite::schema::{IfOptionsT, WhileOptionsT};

/// A prepared subgraph the operator runs: inputs are set by position (byte lengths were checked
/// at prepare), then [`Subgraph::run`] computes the outputs.
pub trait Subgraph {
    /// Shapes and types of the subgraph's outputs.
    fn output_specs(&self) -> Vec<OutputSpec>;
    /// Copies `bytes` into input `i` (the length is the one given at prepare).
    fn set_input_bytes(&mut self, i: usize, bytes: &[u8]);
    /// Runs the subgraph, telling `observer` about its tensors (and those of nested subgraphs).
    ///
    /// # Errors
    /// The error a WHILE inside it stopped with (over its iteration limit).
    fn run(&mut self, observer: &mut Observer<'_>) -> crate::Result<()>;
    /// Bytes of output `i` after [`Subgraph::run`].
    fn output_bytes(&self, i: usize) -> &[u8];
}

/// Prepares subgraphs of the model for a control-flow operator (implemented by the engine).
pub trait SubgraphLoader {
    /// Prepares subgraph `index` with inputs of these shapes and types, or says why it cannot
    /// (a missing index, a subgraph that runs itself, an operator inside it that cannot run).
    fn load(&self, index: i32, inputs: &[OutputSpec]) -> Result<Box<dyn Subgraph>, String>;

    /// The resource variables the interpreter's subgraphs share (VAR_HANDLE, READ_VARIABLE,
    /// ASSIGN_VARIABLE, CALL_ONCE), or `None` without an interpreter.
    fn variables(&self) -> Option<super::variables::SharedVariables> {
        None
    }

    /// Most iterations one WHILE may run per invocation (the engine's limits).
    fn max_while_iterations(&self) -> u64;

    /// The index of the subgraph whose operators are being prepared, or `None` without an
    /// interpreter (the key of its recurrent states, [`super::recurrent_state`]).
    fn subgraph_index(&self) -> Option<usize> {
        None
    }
}

/// A loader for contexts without a model (unit tests of single operators): every subgraph is
/// refused.
pub struct NoSubgraphs;

impl SubgraphLoader for NoSubgraphs {
    fn load(&self, index: i32, _inputs: &[OutputSpec]) -> Result<Box<dyn Subgraph>, String> {
        Err(format!(
            "no subgraphs available to prepare subgraph {index}"
        ))
    }

    fn max_while_iterations(&self) -> u64 {
        crate::engine::Limits::default().max_while_iterations
    }
}

/// Shapes and types of every input of the operator from position `from` (all required).
fn input_specs(ctx: &PrepareCtx<'_>, from: usize) -> PrepareResult<Vec<OutputSpec>> {
    (from..ctx.inputs.len())
        .map(|k| {
            let t: TensorInfo<'_> = ctx.input(k)?;
            Ok(OutputSpec {
                shape: t.shape.to_vec(),
                dtype: t.dtype,
            })
        })
        .collect()
}

/// Loads subgraph `index` for the role `what` ("body", "then", …), the failure an issue.
fn load(
    ctx: &PrepareCtx<'_>,
    what: &str,
    index: i32,
    inputs: &[OutputSpec],
) -> PrepareResult<Box<dyn Subgraph>> {
    ctx.subgraphs
        .load(index, inputs)
        .map_err(|e| ctx.unsupported(String::new(), format!("{what} subgraph {index}: {e}")))
}

/// Checks that `got` (a subgraph's outputs) has exactly the shapes and types `want`, naming the
/// first that differs.
fn require_specs(
    ctx: &PrepareCtx<'_>,
    what: &str,
    got: &[OutputSpec],
    want: &[OutputSpec],
) -> PrepareResult<()> {
    if got.len() != want.len() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "{what} has {} output(s), expected {}",
                got.len(),
                want.len()
            ),
        ));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            let tensor = ctx
                .outputs
                .get(k)
                .map(TensorInfo::describe)
                .unwrap_or_default();
            return Err(ctx.unsupported(
                tensor,
                format!(
                    "{what} output {k} is {:?} {} where {:?} {} is expected (shapes that change \
                     inside control flow are not supported)",
                    g.shape,
                    dtype_name(g.dtype),
                    w.shape,
                    dtype_name(w.dtype)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that a condition is one BOOL element.
fn require_bool_scalar(ctx: &PrepareCtx<'_>, what: &str, spec: &OutputSpec) -> PrepareResult<()> {
    let n: usize = spec.shape.iter().product();
    if spec.dtype == TensorType::BOOL && n == 1 {
        Ok(())
    } else {
        Err(ctx.invalid(
            String::new(),
            format!(
                "{what} must be one BOOL, got {:?} {}",
                spec.shape,
                dtype_name(spec.dtype)
            ),
        ))
    }
}

/// The prepared result of an operator whose outputs have `specs`, computed by `kernel`.
fn prepared(
    ctx: &PrepareCtx<'_>,
    specs: Vec<OutputSpec>,
    kernel: impl Kernel + 'static,
) -> PrepareResult<Prepared> {
    let mut specs = specs.into_iter();
    let first = specs
        .next()
        .ok_or_else(|| ctx.invalid(String::new(), "has no outputs"))?;
    Ok(Prepared::multi(first, specs.collect(), kernel))
}

/// WHILE: cond and body subgraphs over a loop state (see the module doc).
pub fn prepare_while(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = options!(ctx, WhileOptions, WhileOptionsT)?;
    let specs = input_specs(ctx, 0)?;
    if ctx.outputs.len() != specs.len() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "{} input(s) but {} output(s) (the loop state is both)",
                specs.len(),
                ctx.outputs.len()
            ),
        ));
    }
    let cond = load(ctx, "cond", o.cond_subgraph_index, &specs)?;
    let cond_out = cond.output_specs();
    match cond_out.as_slice() {
        [c] => require_bool_scalar(ctx, "the cond subgraph's output", c)?,
        _ => {
            return Err(ctx.invalid(
                String::new(),
                format!(
                    "the cond subgraph has {} outputs, expected 1",
                    cond_out.len()
                ),
            ));
        }
    }
    let body = load(ctx, "body", o.body_subgraph_index, &specs)?;
    require_specs(ctx, "the body subgraph", &body.output_specs(), &specs)?;
    let state = specs.iter().map(|s| vec![0u8; byte_len(s)]).collect();
    let while_op = While {
        cond,
        body,
        state,
        max_iterations: ctx.subgraphs.max_while_iterations(),
        op: format!("the loop of operator {} ({})", ctx.op_index, ctx.op_name),
        subgraphs: (o.cond_subgraph_index, o.body_subgraph_index),
    };
    prepared(ctx, specs, while_op)
}

/// Bytes of a tensor of `spec` (the engine has checked the size).
fn byte_len(spec: &OutputSpec) -> usize {
    spec.shape.iter().product::<usize>()
        * crate::graph::dtype::element_size(spec.dtype).unwrap_or(0)
}

/// The WHILE kernel: the prepared subgraphs, the loop state and the iteration limit.
struct While {
    cond: Box<dyn Subgraph>,
    body: Box<dyn Subgraph>,
    state: Vec<Vec<u8>>,
    max_iterations: u64,
    /// "the loop of operator 3 (WHILE)", for the error.
    op: String,
    /// (cond, body) subgraph indices, for the error.
    subgraphs: (i32, i32),
}

impl While {
    /// Runs the loop on the state: `Err` when a subgraph fails or the condition is still true
    /// after `max_iterations` iterations.
    fn run_loop(&mut self, observer: &mut Observer<'_>) -> crate::Result<()> {
        let mut iterations: u64 = 0;
        loop {
            for (k, s) in self.state.iter().enumerate() {
                self.cond.set_input_bytes(k, s);
            }
            self.cond.run(observer)?;
            if self.cond.output_bytes(0).first().copied().unwrap_or(0) == 0 {
                return Ok(());
            }
            if iterations == self.max_iterations {
                let (cond, body) = self.subgraphs;
                return Err(crate::Error::TooLarge {
                    what: self.op.clone(),
                    detail: format!(
                        "its condition (subgraph {cond}) is still true after {iterations} \
                         iterations of its body (subgraph {body}), the WHILE iteration limit \
                         (--max-while-iterations); LiteRT would loop forever"
                    ),
                });
            }
            iterations += 1;
            for (k, s) in self.state.iter().enumerate() {
                self.body.set_input_bytes(k, s);
            }
            self.body.run(observer)?;
            for (k, s) in self.state.iter_mut().enumerate() {
                s.copy_from_slice(self.body.output_bytes(k));
            }
        }
    }
}

impl Kernel for While {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        self.eval_nested(io, &mut |_, _, _| {});
    }

    fn eval_nested(&mut self, io: &mut OpIo<'_>, observer: &mut Observer<'_>) {
        if io.output_index() == 0 {
            for (k, s) in self.state.iter_mut().enumerate() {
                s.copy_from_slice(io.input(k));
            }
            if let Err(e) = self.run_loop(observer) {
                io.fail(e);
                return;
            }
        }
        let k = io.output_index();
        io.output().copy_from_slice(&self.state[k]);
    }
}

/// IF: runs the then or else subgraph on inputs 1, 2, … (see the module doc).
pub fn prepare_if(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    let o = options!(ctx, IfOptions, IfOptionsT)?;
    let c = ctx.input(0)?;
    require_bool_scalar(
        ctx,
        &format!("the condition ({})", c.describe()),
        &OutputSpec {
            shape: c.shape.to_vec(),
            dtype: c.dtype,
        },
    )?;
    let specs = input_specs(ctx, 1)?;
    let then = load(ctx, "then", o.then_subgraph_index, &specs)?;
    let els = load(ctx, "else", o.else_subgraph_index, &specs)?;
    let out = then.output_specs();
    require_specs(ctx, "the else subgraph", &els.output_specs(), &out)?;
    if out.len() != ctx.outputs.len() {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "{} output(s) but its branches compute {}",
                ctx.outputs.len(),
                out.len()
            ),
        ));
    }
    prepared(
        ctx,
        out,
        If {
            branches: [els, then],
            taken: 0,
            inputs: specs.len(),
        },
    )
}

/// The IF kernel: else and then subgraphs (by the condition's value) and the one last run.
struct If {
    branches: [Box<dyn Subgraph>; 2],
    taken: usize,
    inputs: usize,
}

impl Kernel for If {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        self.eval_nested(io, &mut |_, _, _| {});
    }

    fn eval_nested(&mut self, io: &mut OpIo<'_>, observer: &mut Observer<'_>) {
        if io.output_index() == 0 {
            self.taken = usize::from(io.input(0).first().copied().unwrap_or(0) != 0);
            let branch = &mut self.branches[self.taken];
            for k in 0..self.inputs {
                branch.set_input_bytes(k, io.input(k + 1));
            }
            if let Err(e) = branch.run(observer) {
                io.fail(e);
                return;
            }
        }
        let k = io.output_index();
        io.output()
            .copy_from_slice(self.branches[self.taken].output_bytes(k));
    }
}
