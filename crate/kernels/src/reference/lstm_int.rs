//! UNIDIRECTIONAL_SEQUENCE_LSTM, integer (8x8→16): one time step of LiteRT's `lstm_eval.cc`
//! `LstmStepInteger8x8_16`, the kernel TF's full-integer LSTM quantization targets (int8 input,
//! output and output state, int16 cell state, int8 weights, int32 biases), with the
//! `tensor_utils` portable helpers the x86 build uses. BUILTIN_REF has no separate kernel.
//!
//! Each gate is computed into int16 Q3.12 (the default intermediate scale 2^-12 of an LSTM
//! without layer norm): `gate = sat16(MBQM(W_in·x + b_in, s_in) + MBQM(W_rec·h + b_rec,
//! s_rec))` (`MatrixBatchVectorMultiplyAccumulate`, each product rescaled by
//! `MultiplyByQuantizedMultiplier`, double rounding, and added to the gate with int16
//! saturation), where the effective biases hold the gate bias and the zero points times the
//! weights' row sums (computed at prepare time as `PrecomputeZeroPointTimesWeightWithBias`
//! does: the gate bias goes with the input product). Then gemmlowp's int16 logistic on Q3.12
//! for the input, forget and output gates and tanh on Q3.12 for the cell gate
//! ([`super::fixedpoint_i16`]). The cell state, Q(15+s).(−s) for its power-of-two scale 2^s:
//! `c = sat16(RDBP(f·c, 15) + RDBP(i·g, 30 + s))`, clipped to the quantized cell clip. The
//! output state: `h = clamp8(MBQM(o · tanh(c), s_hidden) + z_hidden)` with the hidden
//! intermediate's zero point (the goldens settle the sign: the portable `CwiseMul` source
//! subtracts the zero point it is given, the wheel adds the hidden one).
//!
//! LiteRT's `ApplyTanh` of the cell state dispatches on `15 + s` integer bits and only handles
//! 0..=6; for any other cell scale it returns without writing, and the product uses what its
//! output buffer already held: the step's input gate (the same scratch). TF's quantizer gives
//! small cell states such scales (2^-19 for |c| < 1/16), so models do reach it; it is
//! reproduced here ([`IntLstmParams::cell_tanh_bits`] is `None`).

use super::fixedpoint_i16::{logistic_i16, tanh_i16};
use crate::fixedpoint::{multiply_by_quantized_multiplier, rounding_divide_by_pot};

/// One gate's weights and requantization: `input` is `n_cell × n_input`, `recurrent`
/// `n_cell × n_output`, both row-major; the effective biases have `n_cell` elements each.
#[derive(Debug, Clone)]
pub struct IntGate {
    /// Input-to-gate weights.
    pub input: Vec<i8>,
    /// Gate bias plus `−z_x` times each row's sum.
    pub input_bias: Vec<i32>,
    /// `(multiplier, shift)` of `s_w · s_x / 2^-12`.
    pub input_scale: (i32, i32),
    /// Recurrent-to-gate weights.
    pub recurrent: Vec<i8>,
    /// `−z_h` times each row's sum.
    pub recurrent_bias: Vec<i32>,
    /// `(multiplier, shift)` of `s_w · s_h / 2^-12`.
    pub recurrent_scale: (i32, i32),
}

/// The constant parameters of an integer LSTM step (all four gates, no peephole, layer norm
/// or projection).
#[derive(Debug, Clone)]
pub struct IntLstmParams {
    /// Input features.
    pub n_input: usize,
    /// Cell units (= output units).
    pub n_cell: usize,
    /// Input, forget, cell and output gates.
    pub gates: [IntGate; 4],
    /// `log2` of the cell state's scale.
    pub cell_scale_log2: i32,
    /// Integer bits of the cell state's tanh (`15 + cell_scale_log2`) when LiteRT computes it
    /// (0..=6); `None` when it leaves its buffer (the input gate) as it is.
    pub cell_tanh_bits: Option<i32>,
    /// Quantized cell clip (0: none).
    pub cell_clip: i16,
    /// `(multiplier, shift)` of `2^-15 · 2^-15 / s_hidden`.
    pub hidden_scale: (i32, i32),
    /// The hidden intermediate's zero point.
    pub hidden_zp: i32,
}

/// Scratch of one step: the four gates, `n_batch × n_cell` each.
#[derive(Debug, Clone)]
pub struct IntLstmScratch {
    gates: [Vec<i16>; 4],
}

impl IntLstmScratch {
    /// Scratch for steps of `n_batch` rows of `n_cell` units.
    pub fn new(n_batch: usize, n_cell: usize) -> Self {
        Self {
            gates: std::array::from_fn(|_| vec![0; n_batch * n_cell]),
        }
    }
}

/// `MatrixBatchVectorMultiplyAccumulate` (int8 × int8 → int16 with an int32 bias): for each
/// row `acc = bias + Σ w·x`, rescaled by `(m, shift)`, added to `out` with int16 saturation.
fn product_accumulate(
    weights: &[i8],
    bias: &[i32],
    (m, shift): (i32, i32),
    x: &[i8],
    out: &mut [i16],
) {
    let cols = x.len();
    for ((o, row), &b) in out.iter_mut().zip(weights.chunks_exact(cols)).zip(bias) {
        let mut acc = b;
        for (&w, &v) in row.iter().zip(x) {
            acc = acc.wrapping_add(i32::from(w) * i32::from(v));
        }
        let acc = multiply_by_quantized_multiplier(acc, m, shift).wrapping_add(i32::from(*o));
        *o = acc.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    }
}

/// `CalculateLstmGateInteger8x8_16` without peephole or layer norm, one row.
fn gate(g: &IntGate, x: &[i8], h: &[i8], sigmoid: bool, out: &mut [i16]) {
    out.fill(0);
    product_accumulate(&g.input, &g.input_bias, g.input_scale, x, out);
    product_accumulate(&g.recurrent, &g.recurrent_bias, g.recurrent_scale, h, out);
    for v in out.iter_mut() {
        *v = if sigmoid {
            logistic_i16(*v, 3)
        } else {
            tanh_i16(*v, 3)
        };
    }
}

/// `CwiseMul(a, b, shift)` into int16: `RoundingDivideByPOT(a·b, shift)`, wrapped to 16 bits.
fn mul_shift(a: i16, b: i16, shift: i32) -> i16 {
    rounding_divide_by_pot(i32::from(a) * i32::from(b), shift) as i16
}

/// One `LstmStepInteger8x8_16` on `n_batch` rows: reads the step's input `x` (`n_batch ×
/// n_input`), updates `output_state` (int8) and `cell_state` (int16) in place (`n_batch ×
/// n_cell` each); the step's output is the new output state.
pub fn lstm_step_int(
    p: &IntLstmParams,
    x: &[i8],
    output_state: &mut [i8],
    cell_state: &mut [i16],
    scratch: &mut IntLstmScratch,
) {
    let (n_in, n_cell) = (p.n_input, p.n_cell);
    let [ig, fg, cg, og] = &mut scratch.gates;
    let rows = x.chunks_exact(n_in).zip(output_state.chunks_exact(n_cell));
    for (b, (xb, hb)) in rows.enumerate() {
        let r = b * n_cell..(b + 1) * n_cell;
        gate(&p.gates[0], xb, hb, true, &mut ig[r.clone()]);
        gate(&p.gates[1], xb, hb, true, &mut fg[r.clone()]);
        gate(&p.gates[2], xb, hb, false, &mut cg[r.clone()]);
        gate(&p.gates[3], xb, hb, true, &mut og[r]);
    }
    // UpdateLstmCellInteger: c = f·c >> 15; c += i·g >> (30 + s); clip.
    let shift = 30 + p.cell_scale_log2;
    for (k, c) in cell_state.iter_mut().enumerate() {
        let fc = mul_shift(fg[k], *c, 15);
        let ic = mul_shift(ig[k], cg[k], shift);
        let sum = (i32::from(fc) + i32::from(ic)).clamp(i32::from(i16::MIN), i32::from(i16::MAX));
        let mut v = sum as i16;
        if p.cell_clip > 0 {
            v = v.clamp(-p.cell_clip, p.cell_clip);
        }
        *c = v;
    }
    // CalculateLstmOutputInteger8x8_16: tanh(c) into the input gate's buffer (or not at all),
    // then h = o · tanh(c) requantized to int8.
    if let Some(bits) = p.cell_tanh_bits {
        for (t, &c) in ig.iter_mut().zip(cell_state.iter()) {
            *t = tanh_i16(c, bits);
        }
    }
    let (m, s) = p.hidden_scale;
    for ((h, &o), &t) in output_state.iter_mut().zip(og.iter()).zip(ig.iter()) {
        let v = multiply_by_quantized_multiplier(i32::from(o) * i32::from(t), m, s)
            .wrapping_add(p.hidden_zp);
        *h = v.clamp(-128, 127) as i8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixedpoint::quantize_multiplier;

    /// One unit, one input, weights and biases zero: every gate is logistic(0) = 1/2 or
    /// tanh(0) = 0, so the cell state decays by half each step and the output is
    /// `MBQM(½ · tanh(c))`.
    #[test]
    fn zero_weights_halve_the_cell_state() {
        let g = IntGate {
            input: vec![0],
            input_bias: vec![0],
            input_scale: quantize_multiplier(0.5),
            recurrent: vec![0],
            recurrent_bias: vec![0],
            recurrent_scale: quantize_multiplier(0.5),
        };
        let p = IntLstmParams {
            n_input: 1,
            n_cell: 1,
            gates: [g.clone(), g.clone(), g.clone(), g],
            cell_scale_log2: -12,
            cell_tanh_bits: Some(3),
            cell_clip: 0,
            hidden_scale: quantize_multiplier(2f64.powi(-30) / 2f64.powi(-7)),
            hidden_zp: 0,
        };
        let (mut h, mut c) = (vec![0i8], vec![4096i16]);
        let mut s = IntLstmScratch::new(1, 1);
        lstm_step_int(&p, &[5], &mut h, &mut c, &mut s);
        assert_eq!(c[0], 2048, "f·c = ½ · 1.0");
        // h = ½ · tanh(0.5) ≈ 0.2311 at scale 2^-7 → 29.6 → 30.
        assert_eq!(h[0], 30);
    }

    /// The cell clip and int16 saturation bound the cell state.
    #[test]
    fn cell_clip_bounds_the_cell_state() {
        let g = |bias: i32| IntGate {
            input: vec![0],
            input_bias: vec![bias],
            input_scale: quantize_multiplier(1.0),
            recurrent: vec![0],
            recurrent_bias: vec![0],
            recurrent_scale: quantize_multiplier(1.0),
        };
        // Input and cell gates saturated high: i·g ≈ 1 at the cell scale 2^-15 is 32767.
        let mut p = IntLstmParams {
            n_input: 1,
            n_cell: 1,
            gates: [g(32767), g(32767), g(32767), g(32767)],
            cell_scale_log2: -15,
            cell_tanh_bits: Some(0),
            cell_clip: 1000,
            hidden_scale: quantize_multiplier(2f64.powi(-30) / 2f64.powi(-7)),
            hidden_zp: 0,
        };
        let (mut h, mut c) = (vec![0i8], vec![0i16]);
        let mut s = IntLstmScratch::new(1, 1);
        lstm_step_int(&p, &[0], &mut h, &mut c, &mut s);
        assert_eq!(c[0], 1000);
        p.cell_clip = 0;
        lstm_step_int(&p, &[0], &mut h, &mut c, &mut s);
        assert_eq!(c[0], i16::MAX, "saturating add");
    }
}
