//! FULLY_CONNECTED over float tensors.

use super::ActivationRange;

/// Shapes of a fully connected layer: `batches` rows of `accum_depth` inputs, `out_c` outputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullyConnectedParams {
    /// Rows of the (flattened) input.
    pub batches: usize,
    /// Inputs per row (the weights' second dimension).
    pub accum_depth: usize,
    /// Output units (the weights' first dimension).
    pub out_c: usize,
    /// Fused activation clamp.
    pub act: ActivationRange,
}

/// FULLY_CONNECTED. Mirrors LiteRT `reference_ops::FullyConnected` (float): for each row and
/// output unit, sum `input[b, d] * weights[oc, d]` over `d` in order, add the bias, clamp.
///
/// `weights` is `[out_c, accum_depth]` (TFLite's default weights format).
pub fn fully_connected(
    p: &FullyConnectedParams,
    input: &[f32],
    weights: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    for b in 0..p.batches {
        let row = &input[b * p.accum_depth..(b + 1) * p.accum_depth];
        for oc in 0..p.out_c {
            let w = &weights[oc * p.accum_depth..(oc + 1) * p.accum_depth];
            let mut total = 0.0f32;
            for d in 0..p.accum_depth {
                total += row[d] * w[d];
            }
            let bias_value = bias.map_or(0.0, |bias| bias[oc]);
            output[b * p.out_c + oc] = p.act.apply(total + bias_value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_rows_three_units_with_bias_and_relu() {
        let p = FullyConnectedParams {
            batches: 2,
            accum_depth: 2,
            out_c: 3,
            act: ActivationRange::RELU,
        };
        let weights = [1.0, 0.0, 0.0, 1.0, -1.0, -1.0];
        let mut out = [0.0; 6];
        fully_connected(
            &p,
            &[1.0, 2.0, 3.0, -4.0],
            &weights,
            Some(&[0.5, 0.0, 10.0]),
            &mut out,
        );
        assert_eq!(out, [1.5, 2.0, 7.0, 3.5, 0.0, 11.0]);
    }

    #[test]
    fn no_bias_and_zero_depth() {
        let p = FullyConnectedParams {
            batches: 1,
            accum_depth: 0,
            out_c: 2,
            act: ActivationRange::NONE,
        };
        let mut out = [9.0; 2];
        fully_connected(&p, &[], &[], None, &mut out);
        assert_eq!(out, [0.0, 0.0]);
    }
}
