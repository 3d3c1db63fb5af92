//! What a kernel sees while it runs: [`OpIo`] (its input regions and its output, borrowed from
//! the engine's arena and constant store), [`Region`] (where a tensor lives) and [`TensorView`]
//! (a tensor's current contents, for observers).

use crate::graph::TensorType;

/// Where one tensor lives while a kernel runs, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// In the activation arena.
    Arena {
        /// Byte offset (a multiple of 16).
        start: usize,
        /// Byte length.
        len: usize,
    },
    /// In the constant store.
    Const {
        /// Byte offset (a multiple of 16).
        start: usize,
        /// Byte length.
        len: usize,
    },
}

/// What a kernel reads and writes during one evaluation: its inputs (shared) and one output
/// (exclusive), all borrowed from the engine's arena and constant store. An operator with
/// several outputs is evaluated once per output ([`OpIo::output_index`] says which).
pub struct OpIo<'a> {
    inputs: &'a [Option<Region>],
    /// Arena bytes before the output.
    before: &'a [u8],
    /// Arena bytes after the output.
    after: &'a [u8],
    /// Offset of `after` in the arena.
    after_start: usize,
    consts: &'a [u8],
    output: &'a mut [u8],
    /// Which of the operator's outputs `output` is.
    output_index: usize,
    /// Why the evaluation stopped short (a WHILE over its iteration limit), for the engine.
    failure: Option<crate::Error>,
}

impl<'a> OpIo<'a> {
    /// Splits `arena` around the output region. The engine's planner guarantees no input
    /// overlaps the output.
    pub fn new(
        arena: &'a mut [u8],
        consts: &'a [u8],
        inputs: &'a [Option<Region>],
        output: (usize, usize),
    ) -> Self {
        let (start, len) = output;
        let (before, rest) = arena.split_at_mut(start);
        let (output, after) = rest.split_at_mut(len);
        OpIo {
            inputs,
            before,
            after,
            after_start: start + len,
            consts,
            output,
            output_index: 0,
            failure: None,
        }
    }

    /// Stops the run: the engine returns `error` from the invocation once this evaluation
    /// ends (the output is left as it is). Only operators that run subgraphs, and
    /// EMBEDDING_LOOKUP on an id outside its table (LiteRT fails the invocation too), can fail.
    pub fn fail(&mut self, error: crate::Error) {
        self.failure = Some(error);
    }

    /// The error a kernel stopped with ([`OpIo::fail`]), if any.
    pub fn take_failure(&mut self) -> Option<crate::Error> {
        self.failure.take()
    }

    /// The same, writing output `k` of an operator with several outputs.
    pub fn with_output_index(self, k: usize) -> Self {
        OpIo {
            output_index: k,
            ..self
        }
    }

    /// Which of the operator's outputs this evaluation writes (0 for single-output operators).
    pub fn output_index(&self) -> usize {
        self.output_index
    }

    /// Bytes of input `k` (empty when absent).
    pub fn input(&self, k: usize) -> &'a [u8] {
        match self.inputs.get(k).copied().flatten() {
            Some(Region::Const { start, len }) => &self.consts[start..start + len],
            Some(Region::Arena { start, len }) => {
                let before: &'a [u8] = self.before;
                let after: &'a [u8] = self.after;
                if start + len <= before.len() {
                    &before[start..start + len]
                } else {
                    let s = start - self.after_start;
                    &after[s..s + len]
                }
            }
            None => &[],
        }
    }

    /// Input `k` as floats.
    pub fn f32_in(&self, k: usize) -> &'a [f32] {
        bytemuck::cast_slice(self.input(k))
    }

    /// Optional input `k` as floats (`None` when absent).
    pub fn opt_f32_in(&self, k: usize) -> Option<&'a [f32]> {
        self.inputs
            .get(k)
            .copied()
            .flatten()
            .map(|_| self.f32_in(k))
    }

    /// Input `k` as elements of `T` (`i8`, `u8`, `i16`, `i32`, `i64`, `f32`, …). Regions are
    /// 16-byte aligned and sized by prepare, so the cast cannot fail for the dtype prepare
    /// checked.
    pub fn in_as<T: bytemuck::Pod>(&self, k: usize) -> &'a [T] {
        bytemuck::cast_slice(self.input(k))
    }

    /// Optional input `k` as elements of `T` (`None` when absent).
    pub fn opt_in_as<T: bytemuck::Pod>(&self, k: usize) -> Option<&'a [T]> {
        self.inputs
            .get(k)
            .copied()
            .flatten()
            .map(|_| self.in_as::<T>(k))
    }

    /// The output as elements of `T`.
    pub fn out_as<T: bytemuck::Pod>(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(self.output)
    }

    /// The output's bytes.
    pub fn output(&mut self) -> &mut [u8] {
        self.output
    }

    /// The output as floats.
    pub fn f32_out(&mut self) -> &mut [f32] {
        bytemuck::cast_slice_mut(self.output)
    }
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
