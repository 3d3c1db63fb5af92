//! UNIDIRECTIONAL_SEQUENCE_RNN, float: one time step of LiteRT's `kernel_utils::RnnBatchStep`
//! (`unidirectional_sequence_rnn.cc` calls it once per step, every resolver alike): the output
//! starts at the bias (`VectorBatchVectorAssign`), then `W_in · x` and `W_rec · h` are added by
//! `tensor_utils::MatrixBatchVectorMultiplyAccumulate` as the x86-64 wheel computes it (its NEON
//! kernel through an SSE translation, [`matrix_vector_accumulate`]), then the fused activation
//! (`ApplyActivationToVector`: Eigen's tanh, as for the LSTM, [`super::lstm::LstmActivation`]),
//! and the result becomes the hidden state. The hybrid form (int8 weights) is [`rnn_step`]'s
//! second branch. The product's order was read off LiteRT 2.3's
//! BUILTIN_REF on one-unit RNNs whose inputs were ±2^25 and 1 at chosen places (a sum in order,
//! 4-lane accumulators with pairwise or halves reduction, and FMA each disagree with it).

use super::hybrid::{self, QuantizedBatches};
use super::lstm::LstmActivation;

/// The two weight matrices: `input` is `units × n_input`, `recurrent` `units × units`, both
/// row-major.
#[derive(Debug, Clone)]
pub enum RnnMatrices {
    /// Float32 weights.
    Float {
        /// Input-to-hidden weights.
        input: Vec<f32>,
        /// Hidden-to-hidden weights.
        recurrent: Vec<f32>,
    },
    /// Int8 weights, each with its one symmetric scale (TF's dynamic-range model).
    Hybrid {
        /// Input-to-hidden weights and scale.
        input: (Vec<i8>, f32),
        /// Hidden-to-hidden weights and scale.
        recurrent: (Vec<i8>, f32),
        /// `asymmetric_quantize_inputs`: the input and the state quantized asymmetrically.
        asymmetric: bool,
    },
}

/// The weights of an RNN; `bias` has `units` elements; `act` is `None` for no activation.
#[derive(Debug, Clone)]
pub struct RnnWeights {
    /// The weight matrices.
    pub matrices: RnnMatrices,
    /// Bias.
    pub bias: Vec<f32>,
    /// The fused activation (`None`: the identity).
    pub act: Option<LstmActivation>,
}

/// The hybrid step's run-time buffers: the quantized input and state of one batch row, and the
/// combined scales.
#[derive(Debug, Clone)]
pub struct RnnScratch {
    qx: QuantizedBatches,
    qh: QuantizedBatches,
    scales: [f32; 1],
}

impl RnnScratch {
    /// Buffers for one row of `n_input` inputs and `units` units.
    pub fn new(n_input: usize, units: usize) -> Self {
        RnnScratch {
            qx: QuantizedBatches::new(1, n_input),
            qh: QuantizedBatches::new(1, units),
            scales: [0.0],
        }
    }
}

/// `out[r] += Σ_c m[r, c] · v[c]` for each row (one batch row), as LiteRT's NEON
/// `MatrixBatchVectorMultiplyAccumulate` does it: four lane accumulators from 0 over the whole
/// groups of 4 columns (`acc[l] += m·v`, the product and the sum each rounded), their lanes added
/// to the output left to right (`((out + (((a0 + a1) + a2) + a3))`), then each leftover column's
/// product added to the output in turn.
pub fn matrix_vector_accumulate(m: &[f32], cols: usize, v: &[f32], out: &mut [f32]) {
    let full = cols / 4 * 4;
    for (o, row) in out.iter_mut().zip(m.chunks_exact(cols)) {
        let mut acc = [0.0f32; 4];
        for j in (0..full).step_by(4) {
            for l in 0..4 {
                acc[l] += row[j + l] * v[j + l];
            }
        }
        *o += ((acc[0] + acc[1]) + acc[2]) + acc[3];
        for j in full..cols {
            *o += row[j] * v[j];
        }
    }
}

/// One step for one batch row: `h ← act(bias + W_in · x + W_rec · h)`, written to `out` and to
/// `h` (both `units` long; `x` is `n_input` long). The hybrid form (LiteRT's hybrid
/// `RnnBatchStep`) quantizes `x` and `h` per row (`BatchQuantizeFloats`; each skipped, with its
/// product, when all zeros), scales each by its weights' scale and adds
/// [`hybrid::matrix_batch_vector_accumulate`] onto the output.
pub fn rnn_step(
    w: &RnnWeights,
    x: &[f32],
    h: &mut [f32],
    out: &mut [f32],
    scratch: &mut RnnScratch,
) {
    let units = w.bias.len();
    out.copy_from_slice(&w.bias);
    match &w.matrices {
        RnnMatrices::Float { input, recurrent } => {
            if !x.is_empty() {
                matrix_vector_accumulate(input, x.len(), x, out);
            }
            if units > 0 {
                matrix_vector_accumulate(recurrent, units, h, out);
            }
        }
        RnnMatrices::Hybrid {
            input,
            recurrent,
            asymmetric,
        } => {
            let RnnScratch { qx, qh, scales } = scratch;
            for (v, q, (weights, scale)) in [(x, qx, input), (&*h, qh, recurrent)] {
                if v.iter().all(|&e| e == 0.0) {
                    continue;
                }
                q.quantize(v, *asymmetric);
                scales[0] = q.scales[0] * *scale;
                hybrid::matrix_batch_vector_accumulate(weights, v.len(), q, scales, None, out);
            }
        }
    }
    if let Some(a) = w.act {
        a.apply(out);
    }
    h.copy_from_slice(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_sum_as_litert_on_x86() {
        // LiteRT 2.3 (BUILTIN_REF) on a one-unit RNN, weights 1, bias 0 (B = 2^25, B + 1 = B):
        // [B, 1, −B, 1, 0, 0, 0, 0] → 1; [B, 0, 1, 0, −B, 0, 1, 0, 0] → 2; bias 1 with [B, −B]
        // → 0.
        let b = 33_554_432.0f32;
        let run = |x: &[f32], bias: f32| {
            let mut out = [bias];
            matrix_vector_accumulate(&vec![1.0; x.len()], x.len(), x, &mut out);
            out[0]
        };
        assert_eq!(run(&[b, 1.0, -b, 1.0, 0.0, 0.0, 0.0, 0.0], 0.0), 1.0);
        assert_eq!(run(&[b, 0.0, 1.0, 0.0, -b, 0.0, 1.0, 0.0, 0.0], 0.0), 2.0);
        assert_eq!(run(&[b, -b], 1.0), 0.0);
    }

    #[test]
    fn step_adds_bias_input_and_recurrent_products() {
        // One unit, two inputs: 0.5 + (1·2 + 3·4) + 0.25·h.
        let w = RnnWeights {
            matrices: RnnMatrices::Float {
                input: vec![1.0, 3.0],
                recurrent: vec![0.25],
            },
            bias: vec![0.5],
            act: None,
        };
        let mut scratch = RnnScratch::new(2, 1);
        let mut h = [2.0f32];
        let mut out = [0.0f32];
        rnn_step(&w, &[2.0, 4.0], &mut h, &mut out, &mut scratch);
        assert_eq!((out, h), ([15.0], [15.0]));
        let relu = RnnWeights {
            act: Some(LstmActivation::Relu),
            bias: vec![-100.0],
            ..w
        };
        rnn_step(&relu, &[2.0, 4.0], &mut h, &mut out, &mut scratch);
        assert_eq!((out, h), ([0.0], [0.0]));
        // Hybrid, symmetric: x = [2, 4] → scale 4/127, q = [64, 127] (63.5 rounds away from
        // zero); h = 0 is skipped. out = 0.5 + (64·1 + 127·3) · (4/127 · 1).
        let hy = RnnWeights {
            matrices: RnnMatrices::Hybrid {
                input: (vec![1, 3], 1.0),
                recurrent: (vec![1], 1.0),
                asymmetric: false,
            },
            bias: vec![0.5],
            act: None,
        };
        let mut h = [0.0f32];
        rnn_step(&hy, &[2.0, 4.0], &mut h, &mut out, &mut scratch);
        let want = 0.5 + 445.0 * (4.0f32 / 127.0);
        assert_eq!(out, [want]);
    }
}
