//! UNIDIRECTIONAL_SEQUENCE_LSTM, float: one time step of LiteRT's `lstm_eval.cc` float path
//! (`LstmStepFloat`), which every LiteRT resolver runs (BUILTIN_REF has no separate kernel).
//!
//! Each gate is `act(W_rec · h + (W_in · x + bias))`: the gate starts at its bias, and each
//! matrix product is LiteRT's `optimized_ops::FullyConnected` (Eigen on the x86-64 wheel,
//! [`litert_optimized::fully_connected`]) with the running sum as its bias (one batch row) or
//! added afterwards (several rows). The input product is skipped when the step's input is all
//! zeros (`IsZeroVector`). Sigmoid is `1 / (1 + exp(-x))` without cut-offs
//! (`ApplySigmoidToVector`), tanh is `std::tanh`. Then `c = f·c + g·i`, clipped to
//! `±cell_clip` when positive (`CwiseClipping`), and `h = o · act(c)`.

use super::ActivationRange;
use super::fully_connected::FullyConnectedParams;
use crate::kernels::litert_optimized::fully_connected::fully_connected;

/// The activation of the cell gate and of the cell state (the op's fused activation), as
/// `ApplyActivationToVector` computes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LstmActivation {
    /// `std::tanh`.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `max(0, x)`.
    Relu,
    /// `min(6, max(0, x))`.
    Relu6,
}

impl LstmActivation {
    /// Applies the activation to every element of `v` in place.
    pub fn apply(self, v: &mut [f32]) {
        match self {
            Self::Tanh => v.iter_mut().for_each(|x| *x = x.tanh()),
            Self::Sigmoid => sigmoid(v),
            // std::max(0, x) (a NaN gives 0), then std::min(6, ·).
            Self::Relu => v.iter_mut().for_each(|x| *x = x.max(0.0)),
            Self::Relu6 => v.iter_mut().for_each(|x| {
                let r = x.max(0.0);
                *x = if r > 6.0 { 6.0 } else { r };
            }),
        }
    }
}

/// `ApplySigmoidToVector`: `1 / (1 + exp(-x))` in float, no cut-offs (unlike LOGISTIC's
/// reference kernel).
pub fn sigmoid(v: &mut [f32]) {
    for x in v {
        *x = 1.0 / (1.0 + (-*x).exp());
    }
}

/// One gate's weights: `input` is `n_cell × n_input`, `recurrent` `n_cell × n_output`, both
/// row-major; `bias` has `n_cell` elements.
#[derive(Debug, Clone)]
pub struct GateWeights {
    /// Input-to-gate weights.
    pub input: Vec<f32>,
    /// Recurrent-to-gate weights.
    pub recurrent: Vec<f32>,
    /// Gate bias.
    pub bias: Vec<f32>,
}

/// Sizes of one step.
#[derive(Debug, Clone, Copy)]
pub struct LstmDims {
    /// Rows computed together (1 when the sequence is batch-major: LiteRT steps each batch row
    /// on its own).
    pub n_batch: usize,
    /// Input features.
    pub n_input: usize,
    /// Cell units (= output units: no projection).
    pub n_cell: usize,
}

/// `result += matrix · vector` per batch row as `lstm_eval.cc`'s `MatrixBatchVectorMultiplyAccumulate`
/// (float): `FullyConnected(vector, matrix, bias = acc)` for one row, otherwise the product
/// without bias and then `out[i] += acc[i]`.
fn product_accumulate(
    matrix: &[f32],
    rows: usize,
    cols: usize,
    vector: &[f32],
    n_batch: usize,
    acc: &[f32],
    out: &mut [f32],
) {
    let p = FullyConnectedParams {
        batches: n_batch,
        accum_depth: cols,
        out_c: rows,
        act: ActivationRange::NONE,
    };
    if n_batch == 1 {
        fully_connected(&p, vector, matrix, Some(acc), out);
    } else {
        fully_connected(&p, vector, matrix, None, out);
        for (o, &a) in out.iter_mut().zip(acc) {
            *o += a;
        }
    }
}

/// `CalculateLstmGateFloat` without peephole, layer norm or auxiliary input: `gate =
/// act(W_rec · h + (W_in · x + bias))`, `tmp` a scratch of the gate's size.
#[allow(clippy::too_many_arguments)]
fn gate(
    d: LstmDims,
    w: &GateWeights,
    x: &[f32],
    input_all_zeros: bool,
    h: &[f32],
    act: LstmActivation,
    gate: &mut [f32],
    tmp: &mut [f32],
) {
    for row in gate.chunks_exact_mut(d.n_cell) {
        row.copy_from_slice(&w.bias);
    }
    if !input_all_zeros {
        product_accumulate(&w.input, d.n_cell, d.n_input, x, d.n_batch, gate, tmp);
        gate.copy_from_slice(tmp);
    }
    product_accumulate(&w.recurrent, d.n_cell, d.n_cell, h, d.n_batch, gate, tmp);
    gate.copy_from_slice(tmp);
    act.apply(gate);
}

/// Scratch of one step: the four gates and one temporary, `n_batch × n_cell` each.
#[derive(Debug, Clone)]
pub struct LstmScratch {
    bufs: [Vec<f32>; 5],
}

impl LstmScratch {
    /// Scratch for steps of `d`.
    pub fn new(d: LstmDims) -> Self {
        let n = d.n_batch * d.n_cell;
        Self {
            bufs: std::array::from_fn(|_| vec![0.0; n]),
        }
    }
}

/// The constant parameters of an LSTM step.
#[derive(Debug, Clone)]
pub struct LstmParams {
    /// Sizes.
    pub dims: LstmDims,
    /// Input, forget, cell and output gates.
    pub gates: [GateWeights; 4],
    /// The cell gate's and the cell state's activation.
    pub act: LstmActivation,
    /// Cell state clip (0: none).
    pub cell_clip: f32,
}

/// One `LstmStepFloat` (no CIFG, peephole, projection, layer norm or auxiliary input): reads
/// the step's input `x` (`n_batch × n_input`), updates `output_state` (`h`) and `cell_state`
/// (`c`) in place (`n_batch × n_cell` each).
pub fn lstm_step_f32(
    p: &LstmParams,
    x: &[f32],
    output_state: &mut [f32],
    cell_state: &mut [f32],
    scratch: &mut LstmScratch,
) {
    let (d, gates, act, cell_clip) = (p.dims, &p.gates, p.act, p.cell_clip);
    let zeros = x.iter().all(|&v| v == 0.0);
    let [ig, fg, cg, og, tmp] = &mut scratch.bufs;
    let s = LstmActivation::Sigmoid;
    gate(d, &gates[0], x, zeros, output_state, s, ig, tmp);
    gate(d, &gates[1], x, zeros, output_state, s, fg, tmp);
    gate(d, &gates[2], x, zeros, output_state, act, cg, tmp);
    // UpdateLstmCellFloat: c = f·c; c += g·i; clip.
    for k in 0..cell_state.len() {
        let c = fg[k] * cell_state[k];
        cell_state[k] = c + cg[k] * ig[k];
    }
    if cell_clip > 0.0 {
        for c in cell_state.iter_mut() {
            if cell_clip < *c {
                *c = cell_clip;
            }
            if -cell_clip > *c {
                *c = -cell_clip;
            }
        }
    }
    gate(d, &gates[3], x, zeros, output_state, s, og, tmp);
    // CalculateLstmOutputFloat: h = o · act(c).
    tmp.copy_from_slice(cell_state);
    act.apply(tmp);
    for k in 0..output_state.len() {
        output_state[k] = og[k] * tmp[k];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One unit and one input; every gate has weights `w`, recurrent weights `w` and bias `b`.
    fn one_unit(w: f32, b: f32, act: LstmActivation, cell_clip: f32) -> LstmParams {
        let g = GateWeights {
            input: vec![w],
            recurrent: vec![w],
            bias: vec![b],
        };
        LstmParams {
            dims: LstmDims {
                n_batch: 1,
                n_input: 1,
                n_cell: 1,
            },
            gates: [g.clone(), g.clone(), g.clone(), g],
            act,
            cell_clip,
        }
    }

    /// Weights 1, biases 0, zero state: the step is the LSTM formula in float (a hand-checkable
    /// case; the realworld test `lstm_fused` holds the bit-exact comparison with LiteRT).
    #[test]
    fn one_unit_step_is_the_lstm_formula() {
        let p = one_unit(1.0, 0.0, LstmActivation::Tanh, 0.0);
        let (mut h, mut c) = (vec![0.0f32], vec![0.0f32]);
        let mut s = LstmScratch::new(p.dims);
        lstm_step_f32(&p, &[0.5], &mut h, &mut c, &mut s);
        let sig = 1.0 / (1.0 + (-0.5f32).exp());
        let want_c = 0.5f32.tanh() * sig;
        assert_eq!(c[0], want_c);
        assert_eq!(h[0], sig * want_c.tanh());
    }

    #[test]
    fn cell_clip_bounds_the_cell_state() {
        let p = one_unit(0.0, 20.0, LstmActivation::Relu, 3.0);
        let (mut h, mut c) = (vec![0.0f32], vec![0.0f32]);
        let mut s = LstmScratch::new(p.dims);
        lstm_step_f32(&p, &[1.0], &mut h, &mut c, &mut s);
        assert_eq!(c[0], 3.0);
        assert_eq!(h[0], 3.0);
    }
}
