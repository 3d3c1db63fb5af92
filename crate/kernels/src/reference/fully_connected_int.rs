//! FULLY_CONNECTED over integer tensors: int8 activations with int32 accumulators, int16
//! activations with int64 accumulators, int8 symmetric weights (per tensor or per channel).

use super::conv_int::{Accumulator, QuantElem, RequantParams};
use super::fully_connected::FullyConnectedParams;

/// FULLY_CONNECTED, integer. Mirrors LiteRT `reference_integer_ops::FullyConnected` /
/// `FullyConnectedPerChannel` in the overloads `fully_connected.cc` calls for `kReference`
/// (int8 input with int32 bias; int16 input with int32 or int64 bias, accumulating in the bias
/// type): for each row and unit, sum `weight · (input + input_offset)` over the row, add the
/// bias, then rescale in **double precision** — `(int32)round((double)acc · (double)s_in ·
/// (double)s_w / (double)s_out)` — not with the Q31 fixed-point multiplier; add the output zero
/// point, clamp. (The goldens confirm it: the fixed-point rescale is 1 LSB off on some 16x8
/// outputs.)
///
/// `weights` is `[out_c, accum_depth]`; `input` is `batches` rows of `accum_depth` (`p.act` is
/// unused: the clamp is `q.act_min..=q.act_max`).
pub fn fully_connected<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &FullyConnectedParams,
    q: &RequantParams,
    input: &[T],
    weights: &[i8],
    bias: Option<&[B]>,
    output: &mut [T],
) {
    let (accum_depth, out_c) = (p.accum_depth, p.out_c);
    for b in 0..p.batches {
        let row = &input[b * accum_depth..(b + 1) * accum_depth];
        for oc in 0..out_c {
            let w = &weights[oc * accum_depth..(oc + 1) * accum_depth];
            let mut acc = A::default();
            for (&x, &wv) in row.iter().zip(w) {
                acc = acc.mac(i32::from(wv), x.to_i32().wrapping_add(q.input_offset));
            }
            if let Some(bias) = bias {
                acc = acc.plus(bias[oc].into());
            }
            output[b * out_c + oc] = T::from_clamped(q.finish_double(acc, oc));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ActivationRange;

    fn params(batches: usize, accum_depth: usize, out_c: usize) -> FullyConnectedParams {
        FullyConnectedParams {
            batches,
            accum_depth,
            out_c,
            act: ActivationRange::NONE,
        }
    }

    fn quant(reals: &[f64], in_zp: i32, out_zp: i32, lo: i32, hi: i32) -> RequantParams {
        RequantParams {
            input_offset: -in_zp,
            output_offset: out_zp,
            act_min: lo,
            act_max: hi,
            // The fixed-point fields are unused by FULLY_CONNECTED.
            multipliers: vec![0; reals.len()],
            shifts: vec![0; reals.len()],
            real_multipliers: reals.to_vec(),
            xnnpack: None,
        }
    }

    #[test]
    fn rescale_is_double_precision_not_fixed_point() {
        // acc 5 · 0.25 = 1.25 → 1 (double-rounding fixed point would give 2); −5 → −1;
        // acc 10 · 0.25 = 2.5 → 3 (ties away from zero); −10 → −3.
        let p = params(4, 1, 1);
        let q = quant(&[0.25], 0, 0, -128, 127);
        let mut out = [0i8; 4];
        fully_connected::<i8, i32, i32>(&p, &q, &[5, -5, 10, -10], &[1], None, &mut out);
        assert_eq!(out, [1, -1, 3, -3]);
    }

    #[test]
    fn per_channel_units_zero_points_and_clamp() {
        // One row x = (−128, 127) stored with zero point −128 → (0, 255). Units:
        // w0 = (1, 1): 255 + bias 1 = 256, ·0.5 = 128, + out zp 127 = 255 → clamp 127;
        // w1 = (−1, −1): −255 + 1 = −254, ·0.5 = −127, + 127 = 0;
        // w2 = (0, −1): −255 + 1 = −254, ·2 = −508 + 127 = −381 → clamp to act_min −100.
        let p = params(1, 2, 3);
        let q = quant(&[0.5, 0.5, 2.0], -128, 127, -100, 127);
        let mut out = [0i8; 3];
        fully_connected::<i8, i32, i32>(
            &p,
            &q,
            &[-128, 127],
            &[1, 1, -1, -1, 0, -1],
            Some(&[1, 1, 1]),
            &mut out,
        );
        assert_eq!(out, [127, 0, -100]);
    }

    #[test]
    fn int16_with_int64_bias_and_two_rows() {
        // Rows (1000, −1000) and (32767, 32767), weights (3, 1): 2000 and 131068; bias 3·10^9
        // (beyond int32): 3000002000 · 1e-5 = 30000.02 → 30000; 3000131068 · 1e-5 =
        // 30001.31 → 30001.
        let p = params(2, 2, 1);
        let q = quant(&[1e-5], 0, 0, -32768, 32767);
        let mut out = [0i16; 2];
        fully_connected::<i16, i64, i64>(
            &p,
            &q,
            &[1000, -1000, 32767, 32767],
            &[3, 1],
            Some(&[3_000_000_000]),
            &mut out,
        );
        assert_eq!(out, [30000, 30001]);
    }
}
