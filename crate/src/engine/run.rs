//! Running a prepared model: [`Interpreter::invoke`], with an observer of every computed tensor
//! ([`Interpreter::invoke_with`]) or timed step by step ([`Interpreter::invoke_timed`]). Nothing
//! here allocates on success (`tests/engine_no_alloc.rs` checks it). A run fails only when a
//! WHILE exceeds its iteration limit ([`super::Limits::max_while_iterations`]): the error names
//! the operator and the invocation stops there.
//!
//! A run can also start part-way ([`Interpreter::invoke_from`]) on the live tensors saved from
//! another interpreter with the same plan ([`Interpreter::plan_digest`]): `--auto` scores a candidate
//! model only from the first operator where it differs from one already run.

use super::{Interpreter, Slot, Step, StepInfo, TensorId, TensorView};
use crate::error::Result;
use crate::ops::control_flow::Subgraph;
use crate::ops::{Observer, OpIo, OutputSpec, Region};

impl Interpreter {
    /// Runs the model once on the current inputs.
    ///
    /// # Errors
    /// [`crate::Error::TooLarge`] naming a WHILE whose condition is still true after
    /// [`super::Limits::max_while_iterations`] iterations.
    pub fn invoke(&mut self) -> Result<()> {
        self.invoke_with(&mut |_, _| {})
    }

    /// Runs the model once, calling `observer` with every graph input first and then with each
    /// operator's output right after it is computed (folded constants are not reported). The
    /// view borrows the arena: no copy, no allocation. Tensors inside the subgraphs a WHILE or IF
    /// runs are not reported ([`Interpreter::invoke_nested`] reports them).
    ///
    /// # Errors
    /// As [`Interpreter::invoke`].
    pub fn invoke_with(
        &mut self,
        observer: &mut dyn FnMut(TensorId, TensorView<'_>),
    ) -> Result<()> {
        let me = self.subgraph;
        self.invoke_nested(&mut |sg, t, v| {
            if sg == me {
                observer(TensorId(t), v);
            }
        })
    }

    /// [`Interpreter::invoke_with`], also reporting every tensor computed inside the subgraphs
    /// WHILE and IF run (each loop iteration's, in order): `observer` gets the subgraph index,
    /// the tensor's index in that subgraph and its contents.
    ///
    /// # Errors
    /// As [`Interpreter::invoke`].
    pub fn invoke_nested(&mut self, observer: &mut Observer<'_>) -> Result<()> {
        fn view<'v>(slots: &'v [Slot], t: usize, bytes: &'v [u8]) -> TensorView<'v> {
            TensorView {
                name: &slots[t].name,
                dtype: slots[t].dtype,
                shape: &slots[t].shape,
                bytes,
            }
        }
        let sg = self.subgraph;
        let slots = &self.slots;
        {
            let arena: &[u8] = bytemuck::cast_slice(&self.arena);
            for d in &self.inputs {
                if let Some(Region::Arena { start, len }) = slots[d.id.0].region {
                    observer(
                        sg,
                        slots[d.id.0].model_index,
                        view(slots, d.id.0, &arena[start..start + len]),
                    );
                }
            }
        }
        let consts: &[u8] = bytemuck::cast_slice(&self.consts);
        for step in &mut self.steps {
            let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut self.arena);
            let mut io = OpIo::new(arena, consts, &step.inputs, (step.out_start, step.out_len));
            step.kernel.eval_nested(&mut io, observer);
            if let Some(e) = io.take_failure() {
                return Err(e);
            }
            if let Some(t) = step.output {
                let out: &[u8] = io.output();
                observer(sg, slots[t].model_index, view(slots, t, out));
            }
            // Further outputs of a multi-output operator, one evaluation each.
            for (k, &(t, start, len)) in step.more.iter().enumerate() {
                let arena: &mut [u8] = bytemuck::cast_slice_mut(&mut self.arena);
                let mut io =
                    OpIo::new(arena, consts, &step.inputs, (start, len)).with_output_index(k + 1);
                step.kernel.eval_nested(&mut io, observer);
                if let Some(e) = io.take_failure() {
                    return Err(e);
                }
                let out: &[u8] = io.output();
                observer(sg, slots[t].model_index, view(slots, t, out));
            }
        }
        Ok(())
    }

    /// Runs steps `from..` of an invocation (in the order of [`Interpreter::step_infos`]) on
    /// the arena as it is: after [`Interpreter::load_words`] with the [`Interpreter::live_words`]
    /// another interpreter of the same plan had just before its step `from`, the result is what
    /// a whole invocation gives, when the steps before `from` are the same kernels on the same
    /// tensors. Just
    /// before each step `p` of `capture_at` (ascending) with `p > from`, `capture` gets the
    /// position of `p` in `capture_at` and the arena. `from = 0` is a whole invocation on the
    /// inputs as set.
    ///
    /// # Errors
    /// As [`Interpreter::invoke`].
    pub fn invoke_from(
        &mut self,
        from: usize,
        capture_at: &[usize],
        capture: &mut dyn FnMut(usize, &[u64]),
    ) -> Result<()> {
        let consts: &[u8] = bytemuck::cast_slice(&self.consts);
        let mut next = capture_at.partition_point(|&p| p <= from);
        for (k, step) in self.steps.iter_mut().enumerate().skip(from) {
            if capture_at.get(next) == Some(&k) {
                capture(next, &self.arena);
                next += 1;
            }
            run_step(step, &mut self.arena, consts)?;
        }
        Ok(())
    }

    /// The arena words holding a value written before step `step` and read at it or later
    /// (graph inputs and outputs always), as sorted, disjoint word ranges: with these restored,
    /// [`Interpreter::invoke_from`] `step` computes what a whole invocation does.
    pub fn live_words(&self, step: usize) -> Vec<std::ops::Range<usize>> {
        let mut ranges: Vec<std::ops::Range<usize>> = self
            .slots
            .iter()
            .filter(|s| s.live.0 < step && s.live.1 >= step)
            .filter_map(|s| match s.region {
                Some(Region::Arena { start, len }) if len > 0 => {
                    Some(start / 8..(start + len).div_ceil(8))
                }
                _ => None,
            })
            .collect();
        ranges.sort_unstable_by_key(|r| r.start);
        let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(m) if r.start <= m.end => m.end = m.end.max(r.end),
                _ => merged.push(r),
            }
        }
        merged
    }

    /// Writes `words` into the arena at `ranges` (in order, each range's length of them; from
    /// [`Interpreter::live_words`] of an interpreter with the same
    /// [`Interpreter::plan_digest`]).
    ///
    /// # Errors
    /// [`crate::Error::TensorMismatch`] when a range is outside the arena or the lengths differ.
    pub fn load_words(&mut self, ranges: &[std::ops::Range<usize>], words: &[u64]) -> Result<()> {
        let total: usize = ranges.iter().map(|r| r.len()).sum();
        if total != words.len() || ranges.iter().any(|r| r.end > self.arena.len()) {
            return Err(crate::Error::TensorMismatch {
                what: "the activation arena".into(),
                tensor: String::new(),
                expected: format!("ranges within {} bytes", self.arena.len() * 8),
                got: format!("{} bytes for {total} words of ranges", words.len() * 8),
            });
        }
        let mut at = 0;
        for r in ranges {
            self.arena[r.clone()].copy_from_slice(&words[at..at + r.len()]);
            at += r.len();
        }
        Ok(())
    }

    /// A digest of the plan: the arena's size and, per step, its operator and the regions it
    /// reads and writes. Two interpreters with equal digests keep every tensor at the same place.
    pub fn plan_digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        self.arena.len().hash(&mut h);
        for s in &self.slots {
            (s.region, s.live).hash(&mut h);
        }
        for s in &self.steps {
            (
                s.op_index,
                &s.inputs,
                s.output,
                s.out_start,
                s.out_len,
                &s.more,
            )
                .hash(&mut h);
        }
        h.finish()
    }

    /// The first step that runs operator `op` or a later one (the number of steps when none
    /// does): the steps before it run only operators before `op`.
    pub fn first_step_from_op(&self, op: usize) -> usize {
        self.steps
            .iter()
            .position(|s| s.op_index >= op)
            .unwrap_or(self.steps.len())
    }

    /// Reports to `f` the float states stateful kernels keep between invocations
    /// ([`crate::ops::Kernel::kept_states`]): operator index in the subgraph, input position of
    /// the variable tensor, current values.
    pub fn kept_states(&self, f: &mut dyn FnMut(usize, usize, &[f32])) {
        for s in &self.steps {
            s.kernel.kept_states(&mut |k, v| f(s.op_index, k, v));
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
                output: s
                    .output
                    .map(|t| self.slots[t].name.clone())
                    .unwrap_or_default(),
                shape: s
                    .output
                    .map(|t| self.slots[t].shape.clone())
                    .unwrap_or_default(),
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
    ///
    /// # Errors
    /// As [`Interpreter::invoke`].
    pub fn invoke_timed(&mut self, now: &mut dyn FnMut() -> f64, times: &mut [f64]) -> Result<()> {
        let consts: &[u8] = bytemuck::cast_slice(&self.consts);
        let mut t0 = now();
        for (k, step) in self.steps.iter_mut().enumerate() {
            run_step(step, &mut self.arena, consts)?;
            let t1 = now();
            if let Some(t) = times.get_mut(k) {
                *t += t1 - t0;
            }
            t0 = t1;
        }
        Ok(())
    }
}

/// Evaluates one step: its output, then each further output of a multi-output operator (one
/// evaluation each), without an observer.
fn run_step(step: &mut Step, arena: &mut [u64], consts: &[u8]) -> Result<()> {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(arena);
    let mut io = OpIo::new(bytes, consts, &step.inputs, (step.out_start, step.out_len));
    step.kernel.eval(&mut io);
    if let Some(e) = io.take_failure() {
        return Err(e);
    }
    for (k, &(_, start, len)) in step.more.iter().enumerate() {
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(arena);
        let mut io = OpIo::new(bytes, consts, &step.inputs, (start, len)).with_output_index(k + 1);
        step.kernel.eval(&mut io);
        if let Some(e) = io.take_failure() {
            return Err(e);
        }
    }
    Ok(())
}

/// A subgraph that a WHILE or IF runs is an interpreter of its own.
impl Subgraph for Interpreter {
    fn output_specs(&self) -> Vec<OutputSpec> {
        self.outputs
            .iter()
            .map(|d| OutputSpec {
                shape: d.shape.clone(),
                dtype: d.dtype,
            })
            .collect()
    }

    fn set_input_bytes(&mut self, i: usize, bytes: &[u8]) {
        // The lengths were checked when the operator was prepared: a mismatch cannot happen and
        // would leave the input unchanged.
        let _ = self.set_input(i, bytes);
    }

    fn run(&mut self, observer: &mut Observer<'_>) -> Result<()> {
        self.invoke_nested(observer)
    }

    fn output_bytes(&self, i: usize) -> &[u8] {
        self.output(i).map_or(&[], |v| v.bytes)
    }
}
