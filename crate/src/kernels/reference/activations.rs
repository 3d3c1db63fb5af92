//! Unary float activations: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH,
//! and SOFTMAX along the last axis.

use super::ActivationRange;

/// RELU / RELU6 / RELU_N1_TO_1. Mirrors LiteRT `reference_ops::Relu`, `Relu6`, `Relu1` (float):
/// a clamp to the activation's range.
pub fn clamp(range: ActivationRange, input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = range.apply(x);
    }
}

/// LOGISTIC. Mirrors LiteRT `reference_ops::Logistic` (float): `1 / (1 + exp(-x))`, with the
/// reference kernel's cut-offs (1 above 16.619047, `exp(x)` below -9).
pub fn logistic(input: &[f32], output: &mut [f32]) {
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    for (o, &x) in output.iter_mut().zip(input) {
        *o = if x > CUTOFF_UPPER {
            1.0
        } else if x < CUTOFF_LOWER {
            x.exp()
        } else {
            1.0 / (1.0 + (-x).exp())
        };
    }
}

/// TANH. Mirrors LiteRT `reference_ops::Tanh` (float): `std::tanh` per element.
pub fn tanh(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = x.tanh();
    }
}

/// LEAKY_RELU. Mirrors LiteRT `reference_ops::LeakyRelu` (float): `x > 0 ? x : x * alpha`.
pub fn leaky_relu(alpha: f32, input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = if x > 0.0 { x } else { x * alpha };
    }
}

/// HARD_SWISH. Mirrors LiteRT `reference_ops::HardSwish` (float):
/// `x * min(6, max(0, x + 3)) / 6`, evaluated left to right.
pub fn hard_swish(input: &[f32], output: &mut [f32]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let r = x + 3.0;
        let r = if r < 0.0 { 0.0 } else { r }; // std::max(0, r)
        let r = if 6.0 < r { 6.0 } else { r }; // std::min(6, r)
        *o = x * r / 6.0;
    }
}

/// SOFTMAX along the last axis (`depth` elements per row). Mirrors LiteRT
/// `reference_ops::Softmax` (float): subtract the row max, `exp((x - max) * beta)`, sum in order,
/// divide each exponential by the sum.
pub fn softmax(beta: f32, depth: usize, input: &[f32], output: &mut [f32]) {
    if depth == 0 {
        return;
    }
    for (row_in, row_out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(depth))
    {
        let mut max = f32::MIN;
        for &x in row_in {
            if max < x {
                max = x;
            }
        }
        let mut sum = 0.0f32;
        for (o, &x) in row_out.iter_mut().zip(row_in) {
            let e = ((x - max) * beta).exp();
            *o = e;
            sum += e;
        }
        for o in row_out.iter_mut() {
            *o /= sum;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relu_family() {
        let x = [-2.0, -0.5, 0.5, 7.0];
        let mut out = [0.0; 4];
        clamp(ActivationRange::RELU, &x, &mut out);
        assert_eq!(out, [0.0, 0.0, 0.5, 7.0]);
        clamp(ActivationRange::RELU6, &x, &mut out);
        assert_eq!(out, [0.0, 0.0, 0.5, 6.0]);
        clamp(ActivationRange::RELU_N1_TO_1, &x, &mut out);
        assert_eq!(out, [-1.0, -0.5, 0.5, 1.0]);
    }

    #[test]
    fn logistic_values_and_cutoffs() {
        let mut out = [0.0; 4];
        logistic(&[0.0, 20.0, -10.0, 2.0], &mut out);
        assert_eq!(out[0], 0.5);
        assert_eq!(out[1], 1.0);
        assert_eq!(out[2], (-10.0f32).exp());
        assert!((out[3] - 0.880_797_1).abs() < 1e-7);
    }

    #[test]
    fn tanh_leaky_hard_swish() {
        let mut out = [0.0; 3];
        tanh(&[0.0, 1.0, -30.0], &mut out);
        assert_eq!(out[0], 0.0);
        assert!((out[1] - 0.761_594_2).abs() < 1e-7);
        assert_eq!(out[2], -1.0);
        leaky_relu(0.1, &[-10.0, 0.0, 3.0], &mut out);
        assert_eq!(out, [-1.0, 0.0, 3.0]);
        hard_swish(&[-4.0, 1.0, 4.0], &mut out);
        assert_eq!(out, [0.0, 1.0 * 4.0 / 6.0, 4.0]);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_beta_sharpens() {
        let x = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0];
        let mut out = [0.0; 6];
        softmax(1.0, 3, &x, &mut out);
        let e = [(-2.0f32).exp(), (-1.0f32).exp(), 1.0];
        let s = e[0] + e[1] + e[2];
        assert_eq!(&out[..3], &[e[0] / s, e[1] / s, e[2] / s]);
        assert_eq!(&out[3..], &[1.0 / 3.0; 3]);
        softmax(100.0, 3, &x, &mut out);
        assert!(out[2] > 0.999_999);
        // One-element rows are always 1.
        let mut one = [0.0; 2];
        softmax(1.0, 1, &[5.0, -5.0], &mut one);
        assert_eq!(one, [1.0, 1.0]);
    }
}
