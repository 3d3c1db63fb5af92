//! UNIDIRECTIONAL_SEQUENCE_LSTM (float): the fused LSTM TF's converter writes for Keras 2
//! (`tf_keras`) LSTM layers, run as LiteRT's `unidirectional_sequence_lstm.cc` with
//! `lstm_eval.cc`'s float path ([`crate::kernels::reference::lstm`]).
//!
//! Inputs (24, or 20 before layer norm was added): 0 the sequence (`[batch, time, input]`, or
//! `[time, batch, input]` with `time_major`); 1–4 input-to-gate weights (input, forget, cell,
//! output), 5–8 recurrent-to-gate weights, 9–11 peephole weights, 12–15 gate biases, 16–17
//! projection weights and bias, 18 the output state and 19 the cell state (variable tensors),
//! 20–23 layer-norm coefficients. Supported: the plain LSTM TF's converter emits (all four
//! gates, no peephole, projection, layer norm or diagonal recurrent weights), with float32
//! weights or, hybrid (TF's dynamic-range model), int8 weights of one symmetric scale each, or
//! integer (TF's full-integer model: int8 input and output state, int16 cell state,
//! [`super::lstm_int`]); the other variants are refused with a typed error naming the feature.
//!
//! State: as in LiteRT, the two state tensors start at their initial value (zeros when they
//! have no data: the engine gives such variable tensors, read only by this operator, their
//! zeros as constant data) and keep the last step's state from one invocation to the next;
//! [`crate::engine::Interpreter::reset_variables`] brings them back to the initial value (what
//! LiteRT's `ResetVariableTensors` does). The kernel keeps the state itself.

use std::cell::RefCell;
use std::rc::Rc;

use super::variables::Variables;
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo, options};
use crate::graph::dtype::dtype_name;
use crate::graph::{OpCode, TensorType};
use crate::kernels::reference::lstm::{
    GateWeights, HybridGateWeights, LstmActivation, LstmDims, LstmGates, LstmParams, LstmScratch,
    lstm_step_f32,
};
use crate::tflite::schema::{
    ActivationFunctionType, BuiltinOperator, UnidirectionalSequenceLSTMOptionsT,
};

/// Input positions of the output state and the cell state.
const OUTPUT_STATE: usize = 18;
const CELL_STATE: usize = 19;

/// Whether input `k` of an operator with `code` is a state the operator keeps itself (a
/// variable tensor the engine may give its initial value as constant data): the LSTM's output
/// and cell states, the RNN's hidden state.
pub fn is_state_input(code: &OpCode, k: usize) -> bool {
    match code.op() {
        BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM => k == OUTPUT_STATE || k == CELL_STATE,
        BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_RNN => k == super::rnn::HIDDEN_STATE,
        _ => false,
    }
}

/// Constant float32 data of `t`, or an issue naming it.
pub(super) fn const_f32(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<Vec<f32>> {
    if t.dtype != TensorType::FLOAT32 {
        return Err(ctx.unsupported(
            t.describe(),
            format!(
                "{} weights beside float32 ones (a hybrid LSTM has all eight weights int8)",
                dtype_name(t.dtype)
            ),
        ));
    }
    super::conv::float::const_f32(t)
        .ok_or_else(|| ctx.unsupported(t.describe(), "weights that are not constants"))
}

/// Constant int8 data of `t` with its one symmetric scale (the weights of a hybrid or an
/// integer LSTM), or an issue naming it.
pub(super) fn const_i8(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<(Vec<i8>, f32)> {
    if t.dtype != TensorType::INT8 {
        return Err(ctx.unsupported(
            t.describe(),
            format!(
                "{} weights beside int8 ones (a hybrid or integer LSTM has all eight weights int8)",
                dtype_name(t.dtype)
            ),
        ));
    }
    let q = ctx.per_tensor_qparams(t)?;
    if q.zero_point != 0 {
        return Err(ctx.invalid(
            t.describe(),
            format!("int8 LSTM weights need zero point 0, got {}", q.zero_point),
        ));
    }
    let data = t
        .data
        .ok_or_else(|| ctx.unsupported(t.describe(), "weights that are not constants"))?;
    Ok((bytemuck::cast_slice::<u8, i8>(data).to_vec(), q.scale))
}

/// Requires `t` to hold `shape` exactly.
pub(super) fn require_shape(
    ctx: &PrepareCtx<'_>,
    t: &TensorInfo<'_>,
    shape: &[usize],
) -> PrepareResult<()> {
    if t.shape != shape {
        return Err(ctx.invalid(
            t.describe(),
            format!("shape {:?}, expected {shape:?}", t.shape),
        ));
    }
    Ok(())
}

/// Prepares UNIDIRECTIONAL_SEQUENCE_LSTM (see the module doc).
pub fn prepare_unidirectional_sequence_lstm(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(20, 24)?;
    let o = options!(
        ctx,
        UnidirectionalSequenceLSTMOptions,
        UnidirectionalSequenceLSTMOptionsT
    )?;
    let input = ctx.input(0)?;
    ctx.require_dtype(&input, &[TensorType::FLOAT32, TensorType::INT8])?;
    ctx.require_rank(&input, 3)?;
    let features: [(&[usize], &str); 4] = [
        (&[1], "CIFG (no input gate: input-to-input weights omitted)"),
        (&[9, 10, 11], "peephole connections"),
        (&[16, 17], "projection"),
        (&[20, 21, 22, 23], "layer normalization"),
    ];
    for (inputs, feature) in features {
        let present = inputs.iter().any(|&k| ctx.optional_input(k).is_some());
        let wanted = inputs == [1];
        if present != wanted {
            return Err(ctx.unsupported(String::new(), format!("{feature} is not supported yet")));
        }
    }
    if o.diagonal_recurrent_tensors {
        return Err(ctx.unsupported(
            String::new(),
            "diagonal recurrent weights are not supported yet",
        ));
    }
    if o.cell_clip.is_nan() || o.cell_clip < 0.0 {
        return Err(ctx.invalid(
            String::new(),
            format!("cell_clip {} is negative", o.cell_clip),
        ));
    }
    if input.dtype == TensorType::INT8 {
        // The integer kernel ignores the fused activation (always tanh), as LiteRT's does.
        return super::lstm_int::prepare_integer(ctx, &o, &input);
    }
    let act = match o.fused_activation_function {
        ActivationFunctionType::TANH => LstmActivation::Tanh,
        ActivationFunctionType::RELU => LstmActivation::Relu,
        ActivationFunctionType::RELU6 => LstmActivation::Relu6,
        other => {
            return Err(ctx.unsupported(
                String::new(),
                format!("cell activation {other:?} is not supported"),
            ));
        }
    };
    let w_in = ctx.input(1)?;
    ctx.require_rank(&w_in, 2)?;
    let (n_cell, n_input) = (w_in.shape[0], w_in.shape[1]);
    if n_cell == 0 || n_input == 0 {
        return Err(ctx.invalid(w_in.describe(), format!("empty weights {:?}", w_in.shape)));
    }
    let (d0, d1) = (input.shape[0], input.shape[1]);
    let (n_time, n_batch) = if o.time_major { (d0, d1) } else { (d1, d0) };
    if input.shape[2] != n_input {
        return Err(ctx.invalid(
            input.describe(),
            format!("{} features, the weights take {n_input}", input.shape[2]),
        ));
    }
    // Hybrid when the weights are int8 (LiteRT decides by the input-to-output weights).
    let hybrid = ctx.input(4)?.dtype == TensorType::INT8;
    if !hybrid && o.time_major && n_batch > 1 {
        return Err(ctx.unsupported(
            input.describe(),
            format!(
                "a time-major float sequence of batch {n_batch} (LiteRT's product over several \
                 rows is not reproduced yet; batch-major sequences of any batch run)"
            ),
        ));
    }
    let mut float = Vec::with_capacity(4);
    let mut int8 = Vec::with_capacity(4);
    for g in 0..4 {
        let (wi, wr, b) = (ctx.input(1 + g)?, ctx.input(5 + g)?, ctx.input(12 + g)?);
        require_shape(ctx, &wi, &[n_cell, n_input])?;
        require_shape(ctx, &wr, &[n_cell, n_cell])?;
        require_shape(ctx, &b, &[n_cell])?;
        let bias = const_f32(ctx, &b)?;
        if hybrid {
            int8.push(HybridGateWeights {
                input: const_i8(ctx, &wi)?,
                recurrent: const_i8(ctx, &wr)?,
                bias,
            });
        } else {
            float.push(GateWeights {
                input: const_f32(ctx, &wi)?,
                recurrent: const_f32(ctx, &wr)?,
                bias,
            });
        }
    }
    let four = || ctx.invalid(String::new(), "four gates");
    let gates = if hybrid {
        LstmGates::Hybrid {
            gates: int8.try_into().map_err(|_| four())?,
            asymmetric: o.asymmetric_quantize_inputs,
        }
    } else {
        LstmGates::Float(float.try_into().map_err(|_| four())?)
    };
    let mut initial = Vec::with_capacity(2);
    for k in [OUTPUT_STATE, CELL_STATE] {
        let t = ctx.input(k)?;
        if t.num_elements() != n_batch * n_cell {
            return Err(ctx.invalid(
                t.describe(),
                format!(
                    "state of {} elements, expected batch {n_batch} × {n_cell} units",
                    t.num_elements()
                ),
            ));
        }
        if t.dtype != TensorType::FLOAT32 {
            return Err(ctx.invalid(t.describe(), "the state must be float32"));
        }
        let Some(v) = super::conv::float::const_f32(&t) else {
            return Err(ctx.unsupported(
                t.describe(),
                "a state computed by another operator (it must be a variable tensor only this \
                 operator reads)",
            ));
        };
        initial.push(v);
    }
    let cell0 = initial.pop().unwrap_or_default();
    let output0 = initial.pop().unwrap_or_default();
    // Batch-major sequences are stepped one batch row at a time (as LiteRT does).
    let rows = if o.time_major { n_batch } else { 1 };
    let dims = LstmDims {
        n_batch: rows,
        n_input,
        n_cell,
    };
    let shape = vec![d0, d1, n_cell];
    Ok(Prepared::f32(
        shape,
        LstmF32 {
            p: LstmParams {
                dims,
                gates,
                act,
                cell_clip: o.cell_clip,
            },
            n_time,
            n_batch,
            time_major: o.time_major,
            output_state: output0.clone(),
            cell_state: cell0.clone(),
            initial: (output0, cell0),
            scratch: LstmScratch::new(dims),
            resets: ResetWatch::new(ctx),
        },
    ))
}

struct LstmF32 {
    p: LstmParams,
    n_time: usize,
    n_batch: usize,
    time_major: bool,
    output_state: Vec<f32>,
    cell_state: Vec<f32>,
    /// The states' initial values (output, cell).
    initial: (Vec<f32>, Vec<f32>),
    scratch: LstmScratch,
    resets: ResetWatch,
}

/// Tells a stateful LSTM kernel when the interpreter's variables were reset (when to restore
/// the states' initial values).
pub(super) struct ResetWatch {
    /// The interpreter's variable store.
    store: Option<Rc<RefCell<Variables>>>,
    /// Its reset count when last seen.
    seen: u64,
}

impl ResetWatch {
    /// Registers the operator as stateful with the interpreter's variable store.
    pub(super) fn new(ctx: &PrepareCtx<'_>) -> Self {
        let store = ctx.subgraphs.variables();
        if let Some(s) = &store {
            s.borrow_mut().add_stateful_op();
        }
        let seen = store.as_ref().map_or(0, |s| s.borrow().resets());
        Self { store, seen }
    }

    /// Whether a reset happened since the last call.
    pub(super) fn take(&mut self) -> bool {
        let Some(s) = &self.store else { return false };
        let r = s.borrow().resets();
        let reset = r != self.seen;
        self.seen = r;
        reset
    }
}

impl Kernel for LstmF32 {
    fn kept_states(&self) -> Vec<(usize, &[f32])> {
        vec![
            (OUTPUT_STATE, &self.output_state[..]),
            (CELL_STATE, &self.cell_state[..]),
        ]
    }

    fn eval(&mut self, io: &mut OpIo<'_>) {
        if self.resets.take() {
            self.output_state.copy_from_slice(&self.initial.0);
            self.cell_state.copy_from_slice(&self.initial.1);
        }
        let x = io.f32_in(0);
        let out = io.f32_out();
        let widths = (self.p.dims.n_input, self.p.dims.n_cell);
        let p = &self.p;
        let scratch = &mut self.scratch;
        walk_sequence(
            (self.time_major, self.n_batch, self.n_time),
            widths,
            x,
            out,
            &mut self.output_state,
            &mut self.cell_state,
            |x, h, c| lstm_step_f32(p, x, h, c, scratch),
        );
    }
}

/// Walks a sequence operator's time steps as LiteRT's LSTM kernels do: a time-major input
/// steps the whole batch at once; a batch-major one walks each batch row's sequence with that
/// row's slices of the output state `h` and the cell state `c`. `step(x, h, c)` advances one
/// step, and the output row after it is `h`. `shape` is (time_major, n_batch, n_time), `widths`
/// the elements per batch row of the input and of the states.
pub(super) fn walk_sequence<X, H: Copy, C>(
    shape: (bool, usize, usize),
    widths: (usize, usize),
    x: &[X],
    out: &mut [H],
    h: &mut [H],
    c: &mut [C],
    mut step: impl FnMut(&[X], &mut [H], &mut [C]),
) {
    let (time_major, n_batch, n_time) = shape;
    let (n_in, n_cell) = widths;
    if time_major {
        let (xs, hs) = (n_batch * n_in, n_batch * n_cell);
        for t in 0..n_time {
            step(&x[t * xs..(t + 1) * xs], h, c);
            out[t * hs..(t + 1) * hs].copy_from_slice(h);
        }
        return;
    }
    for b in 0..n_batch {
        let hb = &mut h[b * n_cell..(b + 1) * n_cell];
        let cb = &mut c[b * n_cell..(b + 1) * n_cell];
        for t in 0..n_time {
            let row = b * n_time + t;
            step(&x[row * n_in..(row + 1) * n_in], hb, cb);
            out[row * n_cell..(row + 1) * n_cell].copy_from_slice(hb);
        }
    }
}
