//! The states stateful kernels keep between runs (UNIDIRECTIONAL_SEQUENCE_LSTM's output and
//! cell states), recorded as the variable tensors they stand for.
//!
//! TF's calibrator runs the representative samples one after the other on one interpreter
//! without resetting its variables, so an LSTM's states carry over from sample to sample, and
//! it logs each state tensor with the values LiteRT left in it after the run. Our engine keeps
//! those states inside the kernel ([`crate::ops::Kernel::kept_states`]); this reports them
//! after each run under the variable tensor's index, so that their min/max is over the states
//! after each sample, as TF's. The quantizer reads the cell state's range (its power-of-two
//! int16 scale); the output state takes the LSTM output's parameters.

use std::collections::HashMap;

use crate::engine::{Interpreter, TensorId, TensorView};
use crate::graph::{BuiltinOperator, Model, TensorType};
use crate::ops::lstm::is_state_input;

/// Why `model` must be calibrated on one calibrator, sample after sample (`None` when its
/// samples are independent): a stateful kernel (LSTM, RNN) or a variable tensor carries state
/// from one sample to the next, and ASSIGN_VARIABLE changes a resource variable, as they do in
/// TF's calibrator, which runs every sample on one interpreter. Split across calibrators, each
/// slice would start from the initial state instead.
pub fn carries_state(model: &Model) -> Option<String> {
    for (g, sg) in model.subgraphs.iter().enumerate() {
        for op in &sg.operators {
            let stateful = (0..op.inputs.len()).any(|k| is_state_input(&op.code, k));
            if stateful || op.code.op() == BuiltinOperator::ASSIGN_VARIABLE {
                return Some(format!(
                    "{} in subgraph {g} keeps state from one sample to the next",
                    op.code.name()
                ));
            }
        }
        if let Some(t) = sg.tensors.iter().find(|t| t.is_variable) {
            return Some(format!(
                "variable tensor '{}' in subgraph {g} keeps state from one sample to the next",
                t.name
            ));
        }
    }
    None
}

/// Which variable tensor of subgraph 0 each (operator, input position) state stands for.
pub(super) struct KeptStates {
    tensors: HashMap<(usize, usize), usize>,
}

impl KeptStates {
    /// The state inputs of `model`'s subgraph 0.
    pub(super) fn new(model: &Model) -> Self {
        let mut tensors = HashMap::new();
        for (o, op) in model
            .subgraphs
            .iter()
            .take(1)
            .flat_map(|sg| sg.operators.iter().enumerate())
        {
            for (k, &t) in op.inputs.iter().enumerate() {
                // A tensor several operators keep (one shared state): recorded once per run.
                if let Ok(t) = usize::try_from(t)
                    && is_state_input(&op.code, k)
                    && !tensors.values().any(|&u| u == t)
                {
                    tensors.insert((o, k), t);
                }
            }
        }
        KeptStates { tensors }
    }

    /// Reports every kept state of `interp` after a run to `record` (tensor index, contents).
    pub(super) fn record(
        &self,
        interp: &Interpreter,
        mut record: impl FnMut(usize, TensorView<'_>),
    ) {
        if self.tensors.is_empty() {
            return;
        }
        interp.kept_states(&mut |o, k, values| {
            let Some(&t) = self.tensors.get(&(o, k)) else {
                return;
            };
            let Some(like) = interp.tensor(TensorId(t)) else {
                return;
            };
            record(
                t,
                TensorView {
                    name: like.name,
                    dtype: TensorType::FLOAT32,
                    shape: like.shape,
                    bytes: bytemuck::cast_slice(values),
                },
            );
        });
    }
}
