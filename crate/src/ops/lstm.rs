//! UNIDIRECTIONAL_SEQUENCE_LSTM (float): the fused LSTM TF's converter writes for Keras 2
//! (`tf_keras`) LSTM layers, run as LiteRT's `unidirectional_sequence_lstm.cc` with
//! `lstm_eval.cc`'s float path ([`crate::kernels::reference::lstm`]).
//!
//! Inputs (24, or 20 before layer norm was added): 0 the sequence (`[batch, time, input]`, or
//! `[time, batch, input]` with `time_major`); 1–4 input-to-gate weights (input, forget, cell,
//! output), 5–8 recurrent-to-gate weights, 9–11 peephole weights, 12–15 gate biases, 16–17
//! projection weights and bias, 18 the output state and 19 the cell state (variable tensors),
//! 20–23 layer-norm coefficients. Supported: the plain LSTM TF's converter emits (all four
//! gates, no projection, layer norm or diagonal recurrent weights), with float32 weights or,
//! hybrid (TF's dynamic-range model), int8 weights of one symmetric scale each, or integer (TF's
//! full-integer model: int8 input and output state, int16 cell state, [`super::lstm_int`]);
//! peephole connections in the float and hybrid kernels. The other variants are refused with a
//! typed error naming the feature.
//!
//! State: as in LiteRT, the two state tensors start at their initial value (zeros when they
//! have no data: the engine gives such variable tensors, read only at recurrent operators' state positions, their
//! zeros as constant data) and keep the last step's state from one invocation to the next;
//! [`crate::engine::Interpreter::reset_variables`] brings them back to the initial value (what
//! LiteRT's `ResetVariableTensors` does). The states are held per tensor
//! ([`super::recurrent_state`]): operators naming the same state tensor update one buffer, in
//! execution order, as in LiteRT.

use super::recurrent_state::{self, State};
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
/// and cell states (both directions' for the bidirectional LSTM), the RNN's hidden state.
pub fn is_state_input(code: &OpCode, k: usize) -> bool {
    match code.op() {
        BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM => k == OUTPUT_STATE || k == CELL_STATE,
        BuiltinOperator::BIDIRECTIONAL_SEQUENCE_LSTM => super::lstm_bidi::STATES.contains(&k),
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

/// Refuses the LSTM variants not supported yet: each `(inputs, feature, wanted)` names input
/// positions that must all be present (`wanted`) or all absent, and the feature they make.
pub(super) fn require_plain_lstm(
    ctx: &PrepareCtx<'_>,
    features: &[(&[usize], &str, bool)],
) -> PrepareResult<()> {
    for &(inputs, feature, wanted) in features {
        let present = inputs.iter().any(|&k| ctx.optional_input(k).is_some());
        if present != wanted {
            return Err(ctx.unsupported(String::new(), format!("{feature} is not supported yet")));
        }
    }
    Ok(())
}

/// The cell gate's and cell state's activation for the float and hybrid kernels.
pub(super) fn cell_activation(
    ctx: &PrepareCtx<'_>,
    f: ActivationFunctionType,
) -> PrepareResult<LstmActivation> {
    match f {
        ActivationFunctionType::TANH => Ok(LstmActivation::Tanh),
        ActivationFunctionType::RELU => Ok(LstmActivation::Relu),
        ActivationFunctionType::RELU6 => Ok(LstmActivation::Relu6),
        other => Err(ctx.unsupported(
            String::new(),
            format!("cell activation {other:?} is not supported"),
        )),
    }
}

/// Refuses a negative or NaN `cell_clip` or `proj_clip`, as LiteRT's (bidirectional) sequence
/// LSTM prepare does (`params->proj_clip >= 0`, with or without projection weights).
pub(super) fn require_clips(
    ctx: &PrepareCtx<'_>,
    cell_clip: f32,
    proj_clip: f32,
) -> PrepareResult<()> {
    for (name, clip) in [("cell_clip", cell_clip), ("proj_clip", proj_clip)] {
        if clip.is_nan() || clip < 0.0 {
            return Err(ctx.invalid(String::new(), format!("{name} {clip} is negative")));
        }
    }
    Ok(())
}

/// Input positions of one LSTM direction's weights: the first input-to-gate weights, the first
/// recurrent-to-gate weights and the first gate bias (each followed by the other three gates,
/// in the order input, forget, cell, output).
#[derive(Debug, Clone, Copy)]
pub(super) struct GateInputs {
    /// Input-to-input weights.
    pub input_to: usize,
    /// Recurrent-to-input weights.
    pub recurrent_to: usize,
    /// Input gate bias.
    pub bias: usize,
    /// Cell-to-input (peephole) weights, followed by cell-to-forget and cell-to-output; `None`
    /// for an operator that runs without peephole connections.
    pub peephole: Option<usize>,
}

/// The four gates of one direction, float or (int8 weights) hybrid, `n_cell × n_input` input
/// weights and `n_cell × n_cell` recurrent weights.
pub(super) fn load_gates(
    ctx: &PrepareCtx<'_>,
    at: GateInputs,
    (n_cell, n_input): (usize, usize),
    hybrid: bool,
    asymmetric: bool,
) -> PrepareResult<LstmGates> {
    let mut float = Vec::with_capacity(4);
    let mut int8 = Vec::with_capacity(4);
    // The peephole weights of the input, forget and output gates (the cell gate has none).
    let peephole_at = |g: usize| at.peephole.zip([Some(0), Some(1), None, Some(2)][g]);
    for g in 0..4 {
        let peephole = match peephole_at(g) {
            Some((first, k)) => Some(peephole_weights(ctx, first + k, n_cell, hybrid)?),
            None => None,
        };
        let wi = ctx.input(at.input_to + g)?;
        let wr = ctx.input(at.recurrent_to + g)?;
        let b = ctx.input(at.bias + g)?;
        require_shape(ctx, &wi, &[n_cell, n_input])?;
        require_shape(ctx, &wr, &[n_cell, n_cell])?;
        require_shape(ctx, &b, &[n_cell])?;
        let bias = const_f32(ctx, &b)?;
        if hybrid {
            int8.push(HybridGateWeights {
                input: const_i8(ctx, &wi)?,
                recurrent: const_i8(ctx, &wr)?,
                bias,
                peephole,
            });
        } else {
            float.push(GateWeights {
                input: const_f32(ctx, &wi)?,
                recurrent: const_f32(ctx, &wr)?,
                bias,
                peephole,
            });
        }
    }
    let four = || ctx.invalid(String::new(), "four gates");
    Ok(if hybrid {
        LstmGates::Hybrid {
            gates: int8.try_into().map_err(|_| four())?,
            asymmetric,
        }
    } else {
        LstmGates::Float(float.try_into().map_err(|_| four())?)
    })
}

/// `Some(first)` when the three peephole weights at inputs `first..first + 3` are present,
/// `None` when all are absent; a typed error when only some are.
pub(super) fn peephole_inputs(ctx: &PrepareCtx<'_>, first: usize) -> PrepareResult<Option<usize>> {
    let present: Vec<bool> = (first..first + 3)
        .map(|k| ctx.optional_input(k).is_some())
        .collect();
    if present.iter().any(|&p| p != present[0]) {
        return Err(ctx.invalid(
            String::new(),
            "peephole weights for some gates only (all three or none)",
        ));
    }
    Ok(present[0].then_some(first))
}

/// Peephole weights at input `k` (`n_cell`): float32, or for a hybrid LSTM int8 with one
/// symmetric scale, recovered to float as `VectorScalarMultiply` does (`scale · w`).
fn peephole_weights(
    ctx: &PrepareCtx<'_>,
    k: usize,
    n_cell: usize,
    hybrid: bool,
) -> PrepareResult<Vec<f32>> {
    let t = ctx.input(k)?;
    require_shape(ctx, &t, &[n_cell])?;
    if hybrid {
        let (w, scale) = const_i8(ctx, &t)?;
        Ok(w.iter().map(|&v| scale * f32::from(v)).collect())
    } else {
        const_f32(ctx, &t)
    }
}

/// The initial value of the float state input `k` (`n_batch × n_cell` elements): its constant
/// data (zeros for a variable tensor without data, see the module doc).
pub(super) fn initial_state(
    ctx: &PrepareCtx<'_>,
    k: usize,
    n_batch: usize,
    n_cell: usize,
) -> PrepareResult<State<f32>> {
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
    let initial = super::conv::float::const_f32(&t).ok_or_else(|| {
        ctx.unsupported(
            t.describe(),
            "a state computed by another operator (it must be a variable tensor that \
             recurrent operators alone read)",
        )
    })?;
    recurrent_state::state(ctx, k, initial)
}

/// Refuses a float time-major sequence of several rows (LiteRT steps them together through
/// Eigen's product over several rows, not reproduced).
pub(super) fn require_float_rows(
    ctx: &PrepareCtx<'_>,
    input: &TensorInfo<'_>,
    hybrid: bool,
    time_major: bool,
    n_batch: usize,
) -> PrepareResult<()> {
    if !hybrid && time_major && n_batch > 1 {
        return Err(ctx.unsupported(
            input.describe(),
            format!(
                "a time-major float sequence of batch {n_batch} (LiteRT's product over several \
                 rows is not reproduced yet; batch-major sequences of any batch run)"
            ),
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
    require_plain_lstm(
        ctx,
        &[
            (
                &[1],
                "CIFG (no input gate: input-to-input weights omitted)",
                true,
            ),
            (&[16, 17], "projection", false),
            (&[20, 21, 22, 23], "layer normalization", false),
        ],
    )?;
    let peephole = peephole_inputs(ctx, 9)?;
    if o.diagonal_recurrent_tensors {
        return Err(ctx.unsupported(
            String::new(),
            "diagonal recurrent weights are not supported yet",
        ));
    }
    require_clips(ctx, o.cell_clip, o.proj_clip)?;
    if input.dtype == TensorType::INT8 {
        if peephole.is_some() {
            return Err(ctx.unsupported(
                String::new(),
                "peephole connections in the integer LSTM are not supported yet",
            ));
        }
        // The integer kernel ignores the fused activation (always tanh), as LiteRT's does.
        return super::lstm_int::prepare_integer(ctx, &o, &input);
    }
    let act = cell_activation(ctx, o.fused_activation_function)?;
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
    require_float_rows(ctx, &input, hybrid, o.time_major, n_batch)?;
    let at = GateInputs {
        input_to: 1,
        recurrent_to: 5,
        bias: 12,
        peephole,
    };
    let gates = load_gates(
        ctx,
        at,
        (n_cell, n_input),
        hybrid,
        o.asymmetric_quantize_inputs,
    )?;
    let output0 = initial_state(ctx, OUTPUT_STATE, n_batch, n_cell)?;
    let cell0 = initial_state(ctx, CELL_STATE, n_batch, n_cell)?;
    let walk = Walk {
        time_major: o.time_major,
        n_batch,
        n_time,
        n_input,
        n_cell,
        forward: true,
        out_row: n_cell,
        out_offset: 0,
    };
    let p = LstmParams {
        dims: walk.step_dims(),
        gates,
        act,
        cell_clip: o.cell_clip,
    };
    Ok(Prepared::f32(
        vec![d0, d1, n_cell],
        LstmF32 {
            dir: LstmDirection::new(p, walk, (output0, cell0)),
        },
    ))
}

/// One direction of a float or hybrid LSTM: its step, how it walks the sequence, and the
/// states it keeps between invocations (shared with any other operator naming the same state
/// tensors, [`recurrent_state`]).
pub(super) struct LstmDirection {
    p: LstmParams,
    walk: Walk,
    output_state: State<f32>,
    cell_state: State<f32>,
    scratch: LstmScratch,
}

impl LstmDirection {
    /// A direction keeping the (output, cell) `states`.
    pub(super) fn new(p: LstmParams, walk: Walk, states: (State<f32>, State<f32>)) -> Self {
        Self {
            scratch: LstmScratch::new(p.dims),
            p,
            walk,
            output_state: states.0,
            cell_state: states.1,
        }
    }

    /// Reports the current (output, cell) states to `f`, after the input positions `at`.
    pub(super) fn report(&self, at: (usize, usize), f: &mut dyn FnMut(usize, &[f32])) {
        f(at.0, &self.output_state.values());
        f(at.1, &self.cell_state.values());
    }

    /// Runs the sequence `x`, writing this direction's part of `out`.
    pub(super) fn run(&mut self, x: &[f32], out: &mut [f32]) {
        let p = &self.p;
        let scratch = &mut self.scratch;
        walk_sequence(
            self.walk,
            x,
            out,
            &mut self.output_state.values_mut(),
            &mut self.cell_state.values_mut(),
            |row, x, h, c| lstm_step_f32(p, row, x, h, c, scratch),
        );
    }
}

struct LstmF32 {
    dir: LstmDirection,
}

impl Kernel for LstmF32 {
    fn kept_states(&self, f: &mut dyn FnMut(usize, &[f32])) {
        self.dir.report((OUTPUT_STATE, CELL_STATE), f);
    }

    fn eval(&mut self, io: &mut OpIo<'_>) {
        let x = io.f32_in(0);
        self.dir.run(x, io.f32_out());
    }
}

/// How a sequence operator walks its time steps (see [`walk_sequence`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Walk {
    /// `[time, batch, features]` rather than `[batch, time, features]`.
    pub time_major: bool,
    /// Batch rows.
    pub n_batch: usize,
    /// Time steps.
    pub n_time: usize,
    /// Input elements per batch row and step.
    pub n_input: usize,
    /// State (and output) elements per batch row.
    pub n_cell: usize,
    /// From the first step to the last (false: the backward direction of a bidirectional
    /// operator, from the last step to the first).
    pub forward: bool,
    /// Elements of one output row (`n_cell`, or both directions' units when they share one
    /// output) and where this direction's `n_cell` start in it.
    pub out_row: usize,
    /// See `out_row`.
    pub out_offset: usize,
}

impl Walk {
    /// The sizes of one step: the whole batch for time-major sequences, one row otherwise.
    pub(super) fn step_dims(&self) -> LstmDims {
        LstmDims {
            n_batch: if self.time_major { self.n_batch } else { 1 },
            n_input: self.n_input,
            n_cell: self.n_cell,
            layout_batch: self.n_batch,
        }
    }
}

/// Walks a sequence operator's time steps as LiteRT's `lstm_eval.cc` does: a time-major input
/// steps the whole batch at once; a batch-major one walks each batch row's sequence with that
/// row's slices of the output state `h` and the cell state `c`. Steps go forward, or backward
/// (`t = n_time - 1` first) for the backward direction. `step(row, x, h, c)` advances one step
/// (`row`: the batch row a batch-major walk steps, 0 for time-major), and each batch row of `h`
/// after it is copied into its output row at `out_offset`.
pub(super) fn walk_sequence<X, H: Copy, C>(
    w: Walk,
    x: &[X],
    out: &mut [H],
    h: &mut [H],
    c: &mut [C],
    mut step: impl FnMut(usize, &[X], &mut [H], &mut [C]),
) {
    let (n_in, n_cell, n_time) = (w.n_input, w.n_cell, w.n_time);
    let t_rel = |t: usize| if w.forward { t } else { n_time - 1 - t };
    let mut put = |row: usize, hb: &[H]| {
        let at = row * w.out_row + w.out_offset;
        out[at..at + n_cell].copy_from_slice(hb);
    };
    if w.time_major {
        let xs = w.n_batch * n_in;
        for t in (0..n_time).map(t_rel) {
            step(0, &x[t * xs..(t + 1) * xs], h, c);
            for (b, hb) in h.chunks_exact(n_cell).enumerate() {
                put(t * w.n_batch + b, hb);
            }
        }
        return;
    }
    for b in 0..w.n_batch {
        let hb = &mut h[b * n_cell..(b + 1) * n_cell];
        let cb = &mut c[b * n_cell..(b + 1) * n_cell];
        for t in (0..n_time).map(t_rel) {
            let row = b * n_time + t;
            step(b, &x[row * n_in..(row + 1) * n_in], hb, cb);
            put(row, hb);
        }
    }
}
