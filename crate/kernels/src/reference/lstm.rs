//! UNIDIRECTIONAL_SEQUENCE_LSTM, float: one time step of LiteRT's `lstm_eval.cc` float path
//! (`LstmStepFloat`), which every LiteRT resolver runs (BUILTIN_REF has no separate kernel).
//!
//! Each gate is `act(W_rec · h + (W_in · x + bias))`: the gate starts at its bias, and each
//! matrix product is LiteRT's `optimized_ops::FullyConnected` with the running sum as its bias:
//! in the TF 2.21 x86-64 wheel Eigen's row-major matrix × vector product compiled for SSE
//! ([`eigen::gemv_row_dot_sse`]: 4-lane accumulators, unlike the AVX FULLY_CONNECTED kernel),
//! then `BiasAndClamp`. The input product is skipped when the step's input is all zeros
//! (`IsZeroVector`). The activations of `ApplyActivationToVector` are Eigen's assignment of a
//! `Map` to its `logistic()` / `tanh()`, compiled for SSE: 4-lane packets
//! ([`crate::litert_optimized::activations::logistic_f32`] and `tanh_f32`) from the
//! first 16-byte boundary of the destination, and Eigen's scalar functor for the elements before
//! it and after the last whole packet ([`LstmActivation::apply_at`]). The scalar logistic is
//! `e / (1 + e)` with `e = exp(min(x, 16.6355324))` (glibc's `expf`, [`super::expf`]); the
//! scalar tanh is the packet formula. Where each gate's buffer starts is LiteRT's scratch layout (input, cell,
//! forget and output gates `n_cell · n_batch` floats apart, a batch-major row `b` at `b · n_cell`
//! in each, from a 64-byte-aligned arena), found with LSTMs of 5 and 6 units whose weights are
//! zero (activations only): all-packet activations were off by an ulp there. Then `c = f·c + g·i`,
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
use super::expf::expf;
use super::hybrid::{self, QuantizedBatches};
use crate::litert_optimized::activations::{logistic_f32, tanh_f32};
use crate::litert_optimized::eigen;

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
    /// Applies the activation to `v` in place as Eigen's assignment does when `v` starts `phase`
    /// floats past a 16-byte boundary: packets from the first boundary on, the scalar functor
    /// for the head before it and the tail after the last whole packet (only the logistic's
    /// scalar functor differs from its packet one).
    pub fn apply_at(self, v: &mut [f32], phase: usize) {
        if self != Self::Sigmoid {
            return self.apply(v);
        }
        let head = ((4 - phase % 4) % 4).min(v.len());
        let packets = (v.len() - head) / 4 * 4;
        for (k, x) in v.iter_mut().enumerate() {
            *x = if k >= head && k < head + packets {
                logistic_f32(*x)
            } else {
                logistic_scalar(*x)
            };
        }
    }

    /// Applies the activation to every element of `v` in place, each through the packet
    /// formula.
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

/// The gates' sigmoid through Eigen's packet logistic.
pub fn sigmoid(v: &mut [f32]) {
    for x in v {
        *x = logistic_f32(*x);
    }
}

/// Eigen's scalar float logistic: `e / (1 + e)` with `e = expf(min(x, 16.6355324))` (glibc's
/// [`expf`], in wasm too; `numext::mini` keeps a NaN `x`).
pub fn logistic_scalar(x: f32) -> f32 {
    const CUTOFF_UPPER: f32 = f32::from_bits(0x4185_1592); // 16.6355324
    let e = expf(if CUTOFF_UPPER < x { CUTOFF_UPPER } else { x });
    e / (1.0 + e)
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
    /// Peephole (cell-to-gate) weights, `n_cell` (the input, forget and output gates of an LSTM
    /// with peephole connections).
    pub peephole: Option<Vec<f32>>,
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
    /// Peephole weights, `n_cell`, already multiplied by their int8 scale (as
    /// `VectorScalarMultiply` recovers them).
    pub peephole: Option<Vec<f32>>,
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
    /// Batch rows of LiteRT's scratch buffer (the sequence's batch), which place each gate's
    /// buffer and so its alignment (see the module doc).
    pub layout_batch: usize,
}

impl LstmDims {
    /// Floats from LiteRT's 16-byte-aligned scratch base to the gate buffer in slot `slot`
    /// (0 input, 1 cell, 2 forget, 3 output) for batch row `row`, modulo 4.
    fn phase(&self, slot: usize, row: usize) -> usize {
        (slot * self.n_cell * self.layout_batch + row * self.n_cell) % 4
    }
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

/// `VectorBatchVectorCwiseProductAccumulate`: `gate += w · c` per batch row (a multiply then an
/// add, each rounded), the peephole term.
fn peephole_accumulate(w: Option<&Vec<f32>>, c: &[f32], gate: &mut [f32]) {
    let Some(w) = w else { return };
    for (g, cr) in gate.chunks_exact_mut(w.len()).zip(c.chunks_exact(w.len())) {
        for ((g, &wk), &ck) in g.iter_mut().zip(w).zip(cr) {
            *g += wk * ck;
        }
    }
}

/// `CalculateLstmGateFloat` without layer norm or auxiliary input: `gate = act(w_p · c + (W_rec
/// · h + (W_in · x + bias)))` (the peephole term when the gate has one).
#[allow(clippy::too_many_arguments)]
fn gate(
    d: LstmDims,
    w: &GateWeights,
    x: &[f32],
    input_all_zeros: bool,
    (h, c): (&[f32], &[f32]),
    (act, phase): (LstmActivation, usize),
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
    peephole_accumulate(w.peephole.as_ref(), c, gate);
    act.apply_at(gate, phase);
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

/// `CalculateLstmGateHybrid` without layer norm or auxiliary input: the gate starts at the
/// bias, `W_in · q(x)` and `W_rec · q(h)` are accumulated onto it (each skipped when its float
/// vector is all zeros), then the peephole term `w_p · c` in float, then the activation.
#[allow(clippy::too_many_arguments)]
fn hybrid_gate(
    d: LstmDims,
    w: &HybridGateWeights,
    (qx, qh, c): (Option<&QuantizedBatches>, Option<&QuantizedBatches>, &[f32]),
    (act, phase): (LstmActivation, usize),
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
    peephole_accumulate(w.peephole.as_ref(), c, gate);
    act.apply_at(gate, phase);
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

/// One `LstmStepFloat` (no CIFG, projection, layer norm or auxiliary input): reads
/// the step's input `x` (`n_batch × n_input`), updates `output_state` (`h`) and `cell_state`
/// (`c`) in place (`n_batch × n_cell` each). `row` is the batch row a batch-major walk steps (0
/// for a time-major step), which places the gates in LiteRT's scratch buffer.
pub fn lstm_step_f32(
    p: &LstmParams,
    row: usize,
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
    // Gates input, forget, cell, output live in scratch slots 0, 2, 1, 3.
    let acts = [
        (s, d.phase(0, row)),
        (s, d.phase(2, row)),
        (act, d.phase(1, row)),
        (s, d.phase(3, row)),
    ];
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
    let mut compute = |k: usize, out: &mut [f32], h: &[f32], c: &[f32]| match &p.gates {
        LstmGates::Float(g) => gate(d, &g[k], x, zeros, (h, c), acts[k], out),
        LstmGates::Hybrid { gates, .. } => {
            hybrid_gate(d, &gates[k], (qx, qh, c), acts[k], out, scales)
        }
    };
    compute(0, ig, output_state, cell_state);
    compute(1, fg, output_state, cell_state);
    compute(2, cg, output_state, cell_state);
    // UpdateLstmCellFloat: c = f·c; c += g·i; clip.
    for k in 0..cell_state.len() {
        let c = fg[k] * cell_state[k];
        cell_state[k] = c + cg[k] * ig[k];
    }
    if cell_clip > 0.0 {
        cwise_clipping(cell_state, cell_clip);
    }
    compute(3, og, output_state, cell_state);
    // CalculateLstmOutputFloat: h = o · act(c), act(c) written to the cell gate's buffer.
    tmp.copy_from_slice(cell_state);
    act.apply_at(tmp, d.phase(1, row));
    for k in 0..output_state.len() {
        output_state[k] = og[k] * tmp[k];
    }
}

/// LiteRT's `CwiseClipping`: `max(min(clip, c), -clip)` with `std::min` / `std::max`'s
/// argument order, so a NaN cell becomes `+clip` (mutant 4-2418: inf − inf in a gate).
fn cwise_clipping(cell_state: &mut [f32], clip: f32) {
    for c in cell_state {
        let low = if *c < clip { *c } else { clip };
        *c = if low < -clip { -clip } else { low };
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
            peephole: None,
        };
        LstmParams {
            dims: LstmDims {
                n_batch: 1,
                n_input: 1,
                n_cell: 1,
                layout_batch: 1,
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
        lstm_step_f32(&p, 0, &[0.5], &mut h, &mut c, &mut s);
        // One element: no whole packet, Eigen's scalar logistic for every gate.
        let sig = logistic_scalar(0.5);
        let want_c = tanh_f32(0.5) * sig;
        assert_eq!(c[0], want_c);
        assert_eq!(h[0], sig * tanh_f32(want_c));
    }

    /// Phase 2 (8 bytes past a boundary), 7 elements: a head of 2, one packet, a tail of 1.
    #[test]
    fn apply_at_splits_head_packets_and_tail() {
        let xs: Vec<f32> = (0..7).map(|k| k as f32 * 0.37 - 1.1).collect();
        let mut v = xs.clone();
        LstmActivation::Sigmoid.apply_at(&mut v, 2);
        for (k, (&x, &y)) in xs.iter().zip(&v).enumerate() {
            let packet = (2..6).contains(&k);
            let want = if packet {
                logistic_f32(x)
            } else {
                logistic_scalar(x)
            };
            assert_eq!(y.to_bits(), want.to_bits(), "element {k}");
        }
    }

    #[test]
    fn cell_clip_bounds_the_cell_state() {
        let p = one_unit(0.0, 20.0, LstmActivation::Relu, 3.0);
        let (mut h, mut c) = (vec![0.0f32], vec![0.0f32]);
        let mut s = LstmScratch::new(p.dims);
        lstm_step_f32(&p, 0, &[1.0], &mut h, &mut c, &mut s);
        assert_eq!(c[0], 3.0);
        assert_eq!(h[0], 3.0);
    }
}
