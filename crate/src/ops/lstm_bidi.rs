//! BIDIRECTIONAL_SEQUENCE_LSTM (float and hybrid), run as LiteRT's
//! `bidirectional_sequence_lstm.cc`: two independent LSTMs over the same sequence, the forward
//! one from the first step to the last and the backward one from the last to the first, each
//! with [`crate::kernels::reference::lstm`]'s step (the one UNIDIRECTIONAL_SEQUENCE_LSTM uses)
//! and its own states.
//!
//! Inputs (48): 0 the sequence (`[batch, time, input]`, or `[time, batch, input]` with
//! `time_major`); 1–17 the forward LSTM's weights in UNIDIRECTIONAL_SEQUENCE_LSTM's order
//! (input-to-gate 1–4, recurrent-to-gate 5–8, peephole 9–11, gate biases 12–15, projection
//! 16–17), 18–34 the backward LSTM's; 35–38 the forward output and cell states, then the
//! backward ones (variable tensors); 39 the auxiliary input and 40–47 its forward and backward
//! weights. Outputs: the forward output and the backward output, or with `merge_outputs` one
//! output whose rows hold the forward units then the backward units.
//!
//! Supported: all four gates, with or without peephole connections (`gate += w_p · c` before the
//! activation, the old cell state for the input and forget gates, the new one for the output
//! gate), no projection or auxiliary input, float32 weights or (hybrid) int8 weights of one
//! symmetric scale each; a float or hybrid step as UNIDIRECTIONAL_SEQUENCE_LSTM's. Refused with a
//! typed error: the other variants; a float
//! time-major sequence of several batch rows (as for the unidirectional LSTM); and a merged
//! output of a batch-major sequence of several rows, where LiteRT's batch-major loop offsets each
//! row's output state by the merged row width (`b * output_batch_leading_dim`), so rows after
//! the first read and write outside the state (undefined behaviour, not reproducible).
//!
//! State: kept across invocations per tensor (shared with other operators naming the same
//! state tensors) and brought back to the initial values by
//! [`crate::engine::Interpreter::reset_variables`], as for the unidirectional LSTM.

use super::lstm::{
    GateInputs, LstmDirection, Walk, cell_activation, initial_state, load_gates, peephole_inputs,
    require_clips, require_float_rows, require_plain_lstm,
};
use super::{Kernel, OpIo, OutputSpec, PrepareCtx, PrepareResult, Prepared, options};
use crate::graph::TensorType;
use crate::kernels::reference::lstm::LstmParams;
use crate::tflite::schema::BidirectionalSequenceLSTMOptionsT;

/// Input positions of the forward output and cell states, then the backward ones.
pub const STATES: [usize; 4] = [35, 36, 37, 38];

/// Where one direction's weights start (see the module doc).
const FORWARD: GateInputs = GateInputs {
    input_to: 1,
    recurrent_to: 5,
    bias: 12,
    peephole: Some(9),
};
const BACKWARD: GateInputs = GateInputs {
    input_to: 18,
    recurrent_to: 22,
    bias: 29,
    peephole: Some(26),
};

/// Prepares BIDIRECTIONAL_SEQUENCE_LSTM (see the module doc).
pub fn prepare_bidirectional_sequence_lstm(ctx: &PrepareCtx<'_>) -> PrepareResult<Prepared> {
    ctx.expect_inputs(48, 48)?;
    let o = options!(
        ctx,
        BidirectionalSequenceLSTMOptions,
        BidirectionalSequenceLSTMOptionsT
    )?;
    let want = if o.merge_outputs { 1 } else { 2 };
    if ctx.outputs.len() != want {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "expects {want} output(s) with merge_outputs {}, has {}",
                o.merge_outputs,
                ctx.outputs.len()
            ),
        ));
    }
    let input = ctx.input(0)?;
    ctx.require_dtype(&input, &[TensorType::FLOAT32])?;
    ctx.require_rank(&input, 3)?;
    require_plain_lstm(
        ctx,
        &[
            (&[1], "CIFG (no input gate) in the forward LSTM", true),
            (&[18], "CIFG (no input gate) in the backward LSTM", true),
            (&[16, 17, 33, 34], "projection", false),
            (
                &[39, 40, 41, 42, 43, 44, 45, 46, 47],
                "the auxiliary input",
                false,
            ),
        ],
    )?;
    require_clips(ctx, o.cell_clip, o.proj_clip)?;
    let act = cell_activation(ctx, o.fused_activation_function)?;
    let w_in = ctx.input(1)?;
    ctx.require_rank(&w_in, 2)?;
    let (n_cell, n_input) = (w_in.shape[0], w_in.shape[1]);
    if n_cell == 0 || n_input == 0 {
        return Err(ctx.invalid(w_in.describe(), format!("empty weights {:?}", w_in.shape)));
    }
    if input.shape[2] != n_input {
        return Err(ctx.invalid(
            input.describe(),
            format!("{} features, the weights take {n_input}", input.shape[2]),
        ));
    }
    let (d0, d1) = (input.shape[0], input.shape[1]);
    let (n_time, n_batch) = if o.time_major { (d0, d1) } else { (d1, d0) };
    // Hybrid when the weights are int8 (LiteRT decides by the forward input-to-output
    // weights, and requires the backward ones of the same type).
    let hybrid = ctx.input(4)?.dtype == TensorType::INT8;
    if (ctx.input(21)?.dtype == TensorType::INT8) != hybrid {
        return Err(ctx.invalid(
            ctx.input(21)?.describe(),
            "backward weights of another type than the forward ones",
        ));
    }
    require_float_rows(ctx, &input, hybrid, o.time_major, n_batch)?;
    if o.merge_outputs && !o.time_major && n_batch > 1 {
        return Err(ctx.unsupported(
            input.describe(),
            format!(
                "a merged output of a batch-major sequence of batch {n_batch} (LiteRT's \
                 batch-major loop offsets each row's output state by the merged row width, so \
                 rows after the first run outside the state tensor)"
            ),
        ));
    }
    let out_row = if o.merge_outputs { 2 * n_cell } else { n_cell };
    let mut dirs = Vec::with_capacity(2);
    for (at, forward, states) in [(FORWARD, true, 35), (BACKWARD, false, 37)] {
        let at = GateInputs {
            peephole: peephole_inputs(ctx, at.peephole.unwrap_or(0))?,
            ..at
        };
        let gates = load_gates(
            ctx,
            at,
            (n_cell, n_input),
            hybrid,
            o.asymmetric_quantize_inputs,
        )?;
        let walk = Walk {
            time_major: o.time_major,
            n_batch,
            n_time,
            n_input,
            n_cell,
            forward,
            out_row,
            out_offset: if o.merge_outputs && !forward {
                n_cell
            } else {
                0
            },
        };
        let p = LstmParams {
            dims: walk.step_dims(),
            gates,
            act,
            cell_clip: o.cell_clip,
        };
        let output0 = initial_state(ctx, states, n_batch, n_cell)?;
        let cell0 = initial_state(ctx, states + 1, n_batch, n_cell)?;
        dirs.push(LstmDirection::new(p, walk, (output0, cell0)));
    }
    let Some((bw, fw)) = dirs.pop().zip(dirs.pop()) else {
        return Err(ctx.invalid(String::new(), "two directions"));
    };
    let kernel = BidiLstm {
        fw,
        bw,
        merged: o.merge_outputs,
    };
    let spec = |n| OutputSpec {
        shape: vec![d0, d1, n],
        dtype: TensorType::FLOAT32,
    };
    Ok(if o.merge_outputs {
        Prepared::f32(vec![d0, d1, out_row], kernel)
    } else {
        Prepared::multi(spec(n_cell), vec![spec(n_cell)], kernel)
    })
}

struct BidiLstm {
    fw: LstmDirection,
    bw: LstmDirection,
    /// One output holding both directions (else output 0 forward, output 1 backward).
    merged: bool,
}

impl Kernel for BidiLstm {
    fn kept_states(&self, f: &mut dyn FnMut(usize, &[f32])) {
        self.fw.report((STATES[0], STATES[1]), f);
        self.bw.report((STATES[2], STATES[3]), f);
    }

    fn eval(&mut self, io: &mut OpIo<'_>) {
        let k = io.output_index();
        let x = io.f32_in(0);
        let out = io.f32_out();
        match (self.merged, k) {
            (true, _) => {
                self.fw.run(x, out);
                self.bw.run(x, out);
            }
            (false, 0) => self.fw.run(x, out),
            (false, _) => self.bw.run(x, out),
        }
    }
}
