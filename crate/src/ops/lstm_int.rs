//! UNIDIRECTIONAL_SEQUENCE_LSTM, integer: the prepare half of LiteRT's 8x8→16 LSTM
//! (`unidirectional_sequence_lstm.cc`'s `PopulateQuantizedLstmParams8x8_16` and
//! `PopulatePrecomputedZPTimesWeightsWithBias`), run by [`crate::kernels::reference::lstm_int`].
//!
//! TF's full-integer quantization writes it: int8 input, output and output state (variable
//! tensor 18), int16 cell state (variable tensor 19) with a power-of-two scale, int8 symmetric
//! weights, int32 biases, and five intermediate tensors: the four gates' scales (used only with
//! layer norm; without it each gate is Q3.12) and the hidden state's (index 4, whose zero point
//! the output step subtracts). Effective scales are computed in float as LiteRT does
//! (`s_w · s_x / 2^-12`; the hidden one `2^-15 / s_hidden · 2^-15` in double, stored in float)
//! and split by `QuantizeMultiplier`. Supported: the plain LSTM TF's converter emits (checked
//! by the caller: all four gates, no peephole, projection or layer norm); batch-major and
//! time-major sequences. The states are kept across invocations (per tensor, shared with other
//! operators naming them) until the interpreter's variables are reset, as for the float kernel.

use super::lstm::{Walk, const_i8, require_shape, walk_sequence};
use super::recurrent_state::{self, State};
use super::{Kernel, OpIo, PrepareCtx, PrepareResult, Prepared, TensorInfo};
use crate::fixedpoint::quantize_multiplier;
use crate::graph::TensorType;
use crate::graph::dtype::dtype_name;
use crate::kernels::reference::fixedpoint_math::checked_log2;
use crate::kernels::reference::lstm_int::{IntGate, IntLstmParams, IntLstmScratch, lstm_step_int};
use crate::tflite::schema::UnidirectionalSequenceLSTMOptionsT;

/// Input positions of the output state and the cell state.
const OUTPUT_STATE: usize = 18;
const CELL_STATE: usize = 19;

/// Constant int32 bias values, or an issue naming the tensor.
fn bias(ctx: &PrepareCtx<'_>, t: &TensorInfo<'_>) -> PrepareResult<Vec<i32>> {
    if t.dtype != TensorType::INT32 {
        return Err(ctx.unsupported(
            t.describe(),
            format!(
                "{} bias in an integer LSTM (its biases are int32)",
                dtype_name(t.dtype)
            ),
        ));
    }
    let data = t
        .data
        .ok_or_else(|| ctx.unsupported(t.describe(), "a bias that is not constant"))?;
    Ok(data
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// `PrecomputeZeroPointTimesWeightWithBias`: `bias + zero_point · Σ row` per row (wrapping,
/// as the C++ int32 arithmetic).
fn effective_bias(weights: &[i8], cols: usize, zero_point: i32, bias: Option<&[i32]>) -> Vec<i32> {
    weights
        .chunks_exact(cols)
        .enumerate()
        .map(|(r, row)| {
            let sum: i32 = row.iter().map(|&w| i32::from(w)).sum();
            let b = bias.map_or(0, |b| b[r]);
            b.wrapping_add(sum.wrapping_mul(zero_point))
        })
        .collect()
}

/// The state at input `k`: its type and per-tensor parameters checked, its initial value (the
/// zeros the engine gives a variable tensor that recurrent operators alone read).
fn state<'a>(
    ctx: &PrepareCtx<'a>,
    k: usize,
    dtype: TensorType,
    elements: usize,
) -> PrepareResult<(TensorInfo<'a>, crate::graph::QuantParams, &'a [u8])> {
    let t = ctx.input(k)?;
    if t.dtype != dtype {
        return Err(ctx.unsupported(
            t.describe(),
            format!(
                "{} state (the integer LSTM keeps a {} one)",
                dtype_name(t.dtype),
                dtype_name(dtype)
            ),
        ));
    }
    if t.num_elements() != elements {
        return Err(ctx.invalid(
            t.describe(),
            format!(
                "state of {} elements, expected {elements}",
                t.num_elements()
            ),
        ));
    }
    let q = ctx.per_tensor_qparams(&t)?;
    let data = t.data.ok_or_else(|| {
        ctx.unsupported(
            t.describe(),
            "a state computed by another operator (it must be a variable tensor that \
             recurrent operators alone read)",
        )
    })?;
    Ok((t, q, data))
}

/// Requantization `(multiplier, shift)` of a real multiplier computed in float.
fn multiplier(m: f32) -> (i32, i32) {
    quantize_multiplier(f64::from(m))
}

/// Prepares the integer LSTM (input `input` is int8; the caller has checked the options and
/// that the LSTM has all four gates and no peephole, projection or layer norm).
pub fn prepare_integer(
    ctx: &PrepareCtx<'_>,
    o: &UnidirectionalSequenceLSTMOptionsT,
    input: &TensorInfo<'_>,
) -> PrepareResult<Prepared> {
    let x_q = ctx.per_tensor_qparams(input)?;
    let w_out = ctx.input(4)?;
    ctx.require_rank(&w_out, 2)?;
    let (n_cell, n_input) = (w_out.shape[0], w_out.shape[1]);
    if n_cell == 0 || n_input == 0 {
        return Err(ctx.invalid(w_out.describe(), format!("empty weights {:?}", w_out.shape)));
    }
    let (d0, d1) = (input.shape[0], input.shape[1]);
    let (n_time, n_batch) = if o.time_major { (d0, d1) } else { (d1, d0) };
    if input.shape[2] != n_input {
        return Err(ctx.invalid(
            input.describe(),
            format!("{} features, the weights take {n_input}", input.shape[2]),
        ));
    }
    let (_, h_q, h0) = state(ctx, OUTPUT_STATE, TensorType::INT8, n_batch * n_cell)?;
    let (c_t, c_q, c0) = state(ctx, CELL_STATE, TensorType::INT16, n_batch * n_cell)?;
    let cell_scale_log2 = checked_log2(c_q.scale).ok_or_else(|| {
        ctx.invalid(
            c_t.describe(),
            format!("cell state scale {} is not a power of two", c_q.scale),
        )
    })?;
    // c·g products are shifted right by 30 + s: LiteRT asserts a shift in 0..=31.
    if !(-30..=1).contains(&cell_scale_log2) {
        return Err(ctx.unsupported(
            c_t.describe(),
            format!("cell state scale 2^{cell_scale_log2} (LiteRT handles 2^-30 to 2^1)"),
        ));
    }
    let hidden = ctx.intermediates.get(4).copied().flatten().ok_or_else(|| {
        ctx.invalid(
            String::new(),
            format!(
                "an integer LSTM needs 5 intermediate tensors, has {}",
                ctx.intermediates.len()
            ),
        )
    })?;
    if ctx.intermediates.len() != 5 {
        return Err(ctx.invalid(
            String::new(),
            format!(
                "an integer LSTM needs 5 intermediate tensors, has {}",
                ctx.intermediates.len()
            ),
        ));
    }
    let hidden_q = ctx.per_tensor_qparams(&hidden)?;
    let out = ctx.output(0)?;
    if out.dtype != TensorType::INT8 {
        return Err(ctx.invalid(
            out.describe(),
            format!(
                "type {} but the integer LSTM produces int8",
                dtype_name(out.dtype)
            ),
        ));
    }
    // Q3.12 gates: the intermediate scale of an LSTM without layer norm (float 2^-12).
    let gate_scale = 2f32.powi(-12);
    let mut gates = Vec::with_capacity(4);
    for g in 0..4 {
        let (wi, wr, b) = (ctx.input(1 + g)?, ctx.input(5 + g)?, ctx.input(12 + g)?);
        require_shape(ctx, &wi, &[n_cell, n_input])?;
        require_shape(ctx, &wr, &[n_cell, n_cell])?;
        require_shape(ctx, &b, &[n_cell])?;
        let ((input, s_wi), (recurrent, s_wr)) = (const_i8(ctx, &wi)?, const_i8(ctx, &wr)?);
        let b = bias(ctx, &b)?;
        gates.push(IntGate {
            input_bias: effective_bias(&input, n_input, -x_q.zero_point, Some(&b)),
            input_scale: multiplier(s_wi * x_q.scale / gate_scale),
            recurrent_bias: effective_bias(&recurrent, n_cell, -h_q.zero_point, None),
            recurrent_scale: multiplier(s_wr * h_q.scale / gate_scale),
            input,
            recurrent,
        });
    }
    let gates: [IntGate; 4] = gates
        .try_into()
        .map_err(|_| ctx.invalid(String::new(), "four gates"))?;
    let cell_clip = if o.cell_clip > 0.0 {
        // static_cast<int16_t>(min(max(clip / scale, -32768), 32767)): truncation.
        (o.cell_clip / c_q.scale).clamp(-32768.0, 32767.0) as i16
    } else {
        0
    };
    let hidden_scale = (2f64.powi(-15) / f64::from(hidden_q.scale) * 2f64.powi(-15)) as f32;
    let tanh_bits = 15 + cell_scale_log2;
    let params = IntLstmParams {
        n_input,
        n_cell,
        gates,
        cell_scale_log2,
        cell_tanh_bits: (0..=6).contains(&tanh_bits).then_some(tanh_bits),
        cell_clip,
        hidden_scale: multiplier(hidden_scale),
        hidden_zp: hidden_q.zero_point,
    };
    let output0: Vec<i8> = bytemuck::cast_slice::<u8, i8>(h0).to_vec();
    let cell0: Vec<i16> = c0
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    let output_state = recurrent_state::state(ctx, OUTPUT_STATE, output0)?;
    let cell_state = recurrent_state::state(ctx, CELL_STATE, cell0)?;
    // Batch-major sequences are stepped one batch row at a time (as LiteRT does).
    let rows = if o.time_major { n_batch } else { 1 };
    Ok(Prepared::new(
        vec![d0, d1, n_cell],
        TensorType::INT8,
        LstmInt {
            p: params,
            walk: Walk {
                time_major: o.time_major,
                n_batch,
                n_time,
                n_input,
                n_cell,
                forward: true,
                out_row: n_cell,
                out_offset: 0,
            },
            output_state,
            cell_state,
            scratch: IntLstmScratch::new(rows, n_cell),
        },
    ))
}

struct LstmInt {
    p: IntLstmParams,
    walk: Walk,
    /// The output and cell states (shared with any other operator naming their tensors).
    output_state: State<i8>,
    cell_state: State<i16>,
    scratch: IntLstmScratch,
}

impl Kernel for LstmInt {
    fn eval(&mut self, io: &mut OpIo<'_>) {
        let x: &[i8] = io.in_as(0);
        let out: &mut [i8] = io.out_as();
        let p = &self.p;
        let scratch = &mut self.scratch;
        walk_sequence(
            self.walk,
            x,
            out,
            &mut self.output_state.values_mut(),
            &mut self.cell_state.values_mut(),
            |_, x, h, c| lstm_step_int(p, x, h, c, scratch),
        );
    }
}
