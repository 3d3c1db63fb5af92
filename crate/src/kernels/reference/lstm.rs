//! UNIDIRECTIONAL_SEQUENCE_LSTM, float: one time step of LiteRT's `lstm_eval.cc` float path
//! (`LstmStepFloat`), which every LiteRT resolver runs (BUILTIN_REF has no separate kernel).
//!
//! Each gate is `act(W_rec · h + (W_in · x + bias))`: the gate starts at its bias, and each
//! matrix product is LiteRT's `optimized_ops::FullyConnected` with the running sum as its bias:
//! in the TF 2.21 x86-64 wheel Eigen's row-major matrix × vector product compiled for SSE
//! ([`eigen::gemv_row_dot_sse`]: 4-lane accumulators, unlike the AVX FULLY_CONNECTED kernel),
//! then `BiasAndClamp`. The input product is skipped when the step's input is all zeros
//! (`IsZeroVector`). The activations of `ApplyActivationToVector` are Eigen's vectorized ones
//! ([`crate::kernels::litert_optimized::activations::logistic_f32`] and `tanh_f32`). Then `c = f·c + g·i`,
//! clipped to `±cell_clip` when positive (`CwiseClipping`), and `h = o · act(c)`. These were
//! found by running LiteRT's BUILTIN_REF interpreter on LSTMs with zero weights (activations
//! only), zero recurrent weights (the input product) and both (tests/realworld `lstm_fused`,
//! whose LSTM outputs are compared element by element): the portable source's
//! `1 / (1 + std::exp(-x))`, `std::tanh` and the AVX product each differ in the last bit.
//! Only one row at a time is supported (the engine steps batch-major sequences row by row, as
//! LiteRT does); LiteRT's product over several rows (Eigen's general product) is not reproduced.
//!
//! Hybrid (int8 weights, float activations: TF's dynamic-range model) follows `LstmStepHybrid`:
//! the step's input and the output state are quantized per batch row (`BatchQuantizeFloats`,
//! symmetric or asymmetric as the op's `asymmetric_quantize_inputs` says; each skipped when all
//! zeros, and its product with it), and each product is
//! [`hybrid::matrix_batch_vector_accumulate`] onto the gate (which starts at the bias) with the
//! scale `s_row · s_weights`; the rest is the float step.

use super::ActivationRange;
use super::hybrid::{self, QuantizedBatches};
use crate::kernels::litert_optimized::activations::{logistic_f32, tanh_f32};
use crate::kernels::litert_optimized::eigen;

/// The activation of the cell gate and of the cell state (the op's fused activation), as
/// `ApplyActivationToVector` computes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LstmActivation {
    /// Eigen's tanh.
    Tanh,
    /// Eigen's logistic.
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
            Self::Tanh => v.iter_mut().for_each(|x| *x = tanh_f32(*x)),
            Self::Sigmoid => sigmoid(v),
            Self::Relu => v
                .iter_mut()
                .for_each(|x| *x = ActivationRange::RELU.apply_vector(*x)),
            Self::Relu6 => v
                .iter_mut()
                .for_each(|x| *x = ActivationRange::RELU6.apply_vector(*x)),
        }
    }
}

/// The gates' sigmoid as the wheel's `ApplyActivationToVector` computes it: Eigen's logistic.
pub fn sigmoid(v: &mut [f32]) {
    for x in v {
        *x = logistic_f32(*x);
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

/// One gate's int8 weights (hybrid): per-tensor symmetric scales, `bias` float.
#[derive(Debug, Clone)]
pub struct HybridGateWeights {
    /// Input-to-gate weights and their scale.
    pub input: (Vec<i8>, f32),
    /// Recurrent-to-gate weights and their scale.
    pub recurrent: (Vec<i8>, f32),
    /// Gate bias.
    pub bias: Vec<f32>,
}

/// The four gates (input, forget, cell, output).
#[derive(Debug, Clone)]
pub enum LstmGates {
    /// Float weights.
    Float([GateWeights; 4]),
    /// Int8 weights; the step quantizes its input and output state, asymmetrically when
    /// `asymmetric`.
    Hybrid {
        /// The gates.
        gates: [HybridGateWeights; 4],
        /// `asymmetric_quantize_inputs`.
        asymmetric: bool,
    },
}

/// Sizes of one step.
#[derive(Debug, Clone, Copy)]
pub struct LstmDims {
    /// Rows computed together: 1 for float steps (see the module doc); hybrid steps take any.
    pub n_batch: usize,
    /// Input features.
    pub n_input: usize,
    /// Cell units (= output units: no projection).
    pub n_cell: usize,
}

/// `acc = clamp(matrix · vector + acc)`, row by row (`lstm_eval.cc`'s
/// `MatrixBatchVectorMultiplyAccumulate` with `n_batch == 1`: `FullyConnected` with `acc` as the
/// bias, clamped to the float range).
fn product_accumulate(matrix: &[f32], cols: usize, vector: &[f32], acc: &mut [f32]) {
    for (r, a) in acc.iter_mut().enumerate() {
        let dot = eigen::gemv_row_dot_sse(&matrix[r * cols..(r + 1) * cols], vector);
        *a = ActivationRange::NONE.apply(dot + *a);
    }
}

/// `CalculateLstmGateFloat` without peephole, layer norm or auxiliary input: `gate =
/// act(W_rec · h + (W_in · x + bias))`.
fn gate(
    d: LstmDims,
    w: &GateWeights,
    x: &[f32],
    input_all_zeros: bool,
    h: &[f32],
    act: LstmActivation,
    gate: &mut [f32],
) {
    for row in gate.chunks_exact_mut(d.n_cell) {
        row.copy_from_slice(&w.bias);
    }
    let (n_in, n_cell) = (d.n_input, d.n_cell);
    for (b, rows) in gate.chunks_exact_mut(n_cell).enumerate() {
        if !input_all_zeros {
            product_accumulate(&w.input, n_in, &x[b * n_in..(b + 1) * n_in], rows);
        }
        product_accumulate(&w.recurrent, n_cell, &h[b * n_cell..(b + 1) * n_cell], rows);
    }
    act.apply(gate);
}

/// Scratch of one step: the four gates and one temporary, `n_batch × n_cell` each; for hybrid
/// steps the quantized input and output state and the per-row product scales.
#[derive(Debug, Clone)]
pub struct LstmScratch {
    bufs: [Vec<f32>; 5],
    qx: QuantizedBatches,
    qh: QuantizedBatches,
    scales: Vec<f32>,
}

impl LstmScratch {
    /// Scratch for steps of `d`.
    pub fn new(d: LstmDims) -> Self {
        let n = d.n_batch * d.n_cell;
        Self {
            bufs: std::array::from_fn(|_| vec![0.0; n]),
            qx: QuantizedBatches::new(d.n_batch, d.n_input),
            qh: QuantizedBatches::new(d.n_batch, d.n_cell),
            scales: vec![0.0; d.n_batch],
        }
    }
}

/// `CalculateLstmGateHybrid` without peephole, layer norm or auxiliary input: the gate starts
/// at the bias, `W_in · q(x)` and `W_rec · q(h)` are accumulated onto it (each skipped when its
/// float vector is all zeros), then the activation.
#[allow(clippy::too_many_arguments)]
fn hybrid_gate(
    d: LstmDims,
    w: &HybridGateWeights,
    qx: Option<&QuantizedBatches>,
    qh: Option<&QuantizedBatches>,
    act: LstmActivation,
    gate: &mut [f32],
    scales: &mut [f32],
) {
    for row in gate.chunks_exact_mut(d.n_cell) {
        row.copy_from_slice(&w.bias);
    }
    for (q, (weights, scale), depth) in [(qx, &w.input, d.n_input), (qh, &w.recurrent, d.n_cell)] {
        let Some(q) = q else { continue };
        for (s, &sb) in scales.iter_mut().zip(&q.scales) {
            *s = sb * *scale;
        }
        hybrid::matrix_batch_vector_accumulate(weights, depth, q, scales, None, gate);
    }
    act.apply(gate);
}

/// The constant parameters of an LSTM step.
#[derive(Debug, Clone)]
pub struct LstmParams {
    /// Sizes.
    pub dims: LstmDims,
    /// Input, forget, cell and output gates.
    pub gates: LstmGates,
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
    let (d, act, cell_clip) = (p.dims, p.act, p.cell_clip);
    let zeros = x.iter().all(|&v| v == 0.0);
    let LstmScratch {
        bufs: [ig, fg, cg, og, tmp],
        qx,
        qh,
        scales,
    } = scratch;
    let s = LstmActivation::Sigmoid;
    let acts = [s, s, act, s];
    // The hybrid step quantizes the input and the output state once, before its gates.
    let (qx, qh) = match &p.gates {
        LstmGates::Float(_) => (None, None),
        LstmGates::Hybrid { asymmetric, .. } => {
            let qx = (!zeros).then(|| {
                qx.quantize(x, *asymmetric);
                &*qx
            });
            let qh = (!output_state.iter().all(|&v| v == 0.0)).then(|| {
                qh.quantize(output_state, *asymmetric);
                &*qh
            });
            (qx, qh)
        }
    };
    let mut compute = |k: usize, out: &mut [f32], h: &[f32]| match &p.gates {
        LstmGates::Float(g) => gate(d, &g[k], x, zeros, h, acts[k], out),
        LstmGates::Hybrid { gates, .. } => hybrid_gate(d, &gates[k], qx, qh, acts[k], out, scales),
    };
    compute(0, ig, output_state);
    compute(1, fg, output_state);
    compute(2, cg, output_state);
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
    compute(3, og, output_state);
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
            gates: LstmGates::Float([g.clone(), g.clone(), g.clone(), g]),
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
        let sig = logistic_f32(0.5);
        let want_c = tanh_f32(0.5) * sig;
        assert_eq!(c[0], want_c);
        assert_eq!(h[0], sig * tanh_f32(want_c));
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
