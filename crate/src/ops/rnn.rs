//! UNIDIRECTIONAL_SEQUENCE_RNN (float): LiteRT's `unidirectional_sequence_rnn.cc` float path,
//! and its hybrid form (int8 weights, float sequence: TF's dynamic-range model), each step
//! [`crate::kernels::reference::rnn::rnn_step`].
//!
//! Inputs: 0 the sequence (`[batch, time, input]`, or `[time, batch, input]` with
//! `time_major`), 1 input weights `[units, input]`, 2 recurrent weights `[units, units]`, 3 bias
//! `[units]`, 4 the hidden state `[batch, units]` (a variable tensor). Output
//! `[batch, time, units]` (or time-major). Batch-major sequences are stepped one batch row at a
//! time through all its steps, time-major ones one step at a time over all rows, as LiteRT
//! does; each row's arithmetic is the same. Fused activations: none, RELU, RELU6, TANH;
//! the others refused. Hybrid: both weight matrices int8 with one symmetric scale each, the
//! input and the state quantized per row at run time (`asymmetric_quantize_inputs` as the
//! options say).
//!
//! State: as for the LSTM ([`super::lstm`]), the hidden state starts at its initial value
//! (zeros for a variable tensor without data), carries from one invocation to the next, and
//! [`crate::engine::Interpreter::reset_variables`] restores it. It is held per tensor
//! ([`super::recurrent_state`]), shared with any other operator naming the same tensor.

use super::lstm::{const_f32, const_i8, require_shape};
use super::recurrent_state::{self, State};
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::reference::lstm::LstmActivation;
use crate::kernels::reference::rnn::{RnnMatrices, RnnScratch, RnnWeights, rnn_step};
use crate::tflite::schema::{ActivationFunctionType, SequenceRNNOptionsT};

/// Input position of the hidden state.
pub const HIDDEN_STATE: usize = 4;

/// UNIDIRECTIONAL_SEQUENCE_RNN: float32 sequence, float32 or (hybrid) int8 weights.
pub fn prepare_unidirectional_sequence_rnn(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(5, 5)?;
    let o = options!(ctx, SequenceRNNOptions, SequenceRNNOptionsT)?;
    let input = ctx.input(0)?;
    let w_in = ctx.input(1)?;
    if input.dtype != TensorType::FLOAT32 {
        return Err(ctx.unsupported(
            input.describe(),
            format!(
                "{} sequence: the float and hybrid RNN are supported (the integer one is not yet)",
                dtype_name(input.dtype)
            ),
        ));
    }
    ctx.require_dtype(&w_in, &[TensorType::FLOAT32, TensorType::INT8])?;
    let hybrid = w_in.dtype == TensorType::INT8;
    ctx.require_rank(&input, 3)?;
    ctx.require_rank(&w_in, 2)?;
    let (units, n_input) = (w_in.shape[0], w_in.shape[1]);
    if input.shape[2] != n_input {
        return Err(ctx.invalid(
            input.describe(),
            format!("{} features, the weights take {n_input}", input.shape[2]),
        ));
    }
    let (d0, d1) = (input.shape[0], input.shape[1]);
    let (n_time, n_batch) = if o.time_major { (d0, d1) } else { (d1, d0) };
    let (w_rec, bias, state) = (ctx.input(2)?, ctx.input(3)?, ctx.input(HIDDEN_STATE)?);
    require_shape(ctx, &w_rec, &[units, units])?;
    require_shape(ctx, &bias, &[units])?;
    let act = match o.fused_activation_function {
        ActivationFunctionType::NONE => None,
        ActivationFunctionType::TANH => Some(LstmActivation::Tanh),
        ActivationFunctionType::RELU => Some(LstmActivation::Relu),
        ActivationFunctionType::RELU6 => Some(LstmActivation::Relu6),
        other => {
            return Err(ctx.unsupported(
                String::new(),
                format!("fused activation {other:?} is not supported"),
            ));
        }
    };
    ctx.require_dtype(&w_rec, &[w_in.dtype])?;
    ctx.require_dtype(&bias, &[TensorType::FLOAT32])?;
    let matrices = if hybrid {
        RnnMatrices::Hybrid {
            input: const_i8(ctx, &w_in)?,
            recurrent: const_i8(ctx, &w_rec)?,
            asymmetric: o.asymmetric_quantize_inputs,
        }
    } else {
        RnnMatrices::Float {
            input: const_f32(ctx, &w_in)?,
            recurrent: const_f32(ctx, &w_rec)?,
        }
    };
    let weights = RnnWeights {
        matrices,
        bias: const_f32(ctx, &bias)?,
        act,
    };
    if state.num_elements() != n_batch * units || state.dtype != TensorType::FLOAT32 {
        return Err(ctx.invalid(
            state.describe(),
            format!(
                "hidden state {} of {} elements, expected float32 batch {n_batch} × {units} units",
                dtype_name(state.dtype),
                state.num_elements()
            ),
        ));
    }
    let Some(initial) = super::conv::float::const_f32(&state) else {
        return Err(ctx.unsupported(
            state.describe(),
            "a hidden state given at run time (a graph input, or computed by another \
             operator): the engine starts it from a variable tensor that recurrent operators \
             alone read",
        ));
    };
    let state = recurrent_state::state(ctx, HIDDEN_STATE, initial)?;
    Ok(Prepared::f32(
        vec![d0, d1, units],
        Rnn {
            scratch: RnnScratch::new(n_input, units),
            w: weights,
            n_time,
            n_batch,
            n_input,
            time_major: o.time_major,
            state,
        },
    ))
}

struct Rnn {
    w: RnnWeights,
    scratch: RnnScratch,
    n_time: usize,
    n_batch: usize,
    n_input: usize,
    time_major: bool,
    /// The hidden state (shared with any other operator naming its tensor).
    state: State<f32>,
}

impl Kernel for Rnn {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let mut state = self.state.values_mut();
        let x = io.f32_in(0);
        let out = io.f32_out();
        let (n_in, units) = (self.n_input, self.w.bias.len());
        for s in 0..self.n_time {
            for b in 0..self.n_batch {
                // Row of (time s, batch b) in the sequence's layout.
                let row = if self.time_major {
                    s * self.n_batch + b
                } else {
                    b * self.n_time + s
                };
                rnn_step(
                    &self.w,
                    &x[row * n_in..(row + 1) * n_in],
                    &mut state[b * units..(b + 1) * units],
                    &mut out[row * units..(row + 1) * units],
                    &mut self.scratch,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::test_model::{T, act, error, single_op};
    use crate::graph::{BuiltinOperator as Op, BuiltinOptionsT, Model, TensorType};
    use crate::tflite::schema::{ActivationFunctionType, SequenceRNNOptionsT};

    fn weights(dtype: TensorType, shape: &[i32]) -> T {
        let n: i32 = shape.iter().product();
        let size = if dtype == TensorType::FLOAT32 { 4 } else { 1 };
        T {
            dtype,
            shape: shape.to_vec(),
            q: (dtype != TensorType::FLOAT32).then_some((0.1, 0)),
            data: Some(vec![0; n as usize * size]),
        }
    }

    fn rnn(w_in: T, input_features: i32, act_fn: ActivationFunctionType) -> Model {
        let f = TensorType::FLOAT32;
        let options = BuiltinOptionsT::SequenceRNNOptions(Box::new(SequenceRNNOptionsT {
            fused_activation_function: act_fn,
            ..Default::default()
        }));
        single_op(
            Op::UNIDIRECTIONAL_SEQUENCE_RNN,
            options,
            vec![
                act(f, &[1, 2, input_features], None),
                w_in,
                weights(f, &[3, 3]),
                weights(f, &[3]),
                weights(f, &[1, 3]),
                act(f, &[1, 2, 3], None),
            ],
        )
    }

    #[test]
    fn unsupported_and_hostile_models_are_typed_errors() {
        let tanh = ActivationFunctionType::TANH;
        // Int16 weights: no such kernel; int8 weights beside float recurrent weights: mixed.
        let e = error(&rnn(weights(TensorType::INT16, &[3, 2]), 2, tanh));
        assert!(
            e.contains("UNIDIRECTIONAL_SEQUENCE_RNN") && e.contains("input 1"),
            "{e}"
        );
        let e = error(&rnn(weights(TensorType::INT8, &[3, 2]), 2, tanh));
        assert!(e.contains("input 2"), "{e}");
        // Features that do not fit the weights.
        let e = error(&rnn(weights(TensorType::FLOAT32, &[3, 2]), 5, tanh));
        assert!(e.contains("5 features, the weights take 2"), "{e}");
        // SIGN_BIT has no kernel here.
        let e = error(&rnn(
            weights(TensorType::FLOAT32, &[3, 2]),
            2,
            ActivationFunctionType::SIGN_BIT,
        ));
        assert!(e.contains("SIGN_BIT"), "{e}");
    }

    #[test]
    fn a_float_rnn_with_constant_state_prepares() {
        let m = rnn(
            weights(TensorType::FLOAT32, &[3, 2]),
            2,
            ActivationFunctionType::RELU,
        );
        assert!(crate::engine::Interpreter::new(&m).is_ok());
    }
}
