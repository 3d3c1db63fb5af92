//! FULLY_CONNECTED over integer tensors: int8 activations with int32 accumulators, int16
//! activations with int64 accumulators, int8 symmetric weights (per tensor or per channel).

use super::conv_int::{Accumulator, QuantElem, QuantParams};
use super::fully_connected::FullyConnectedParams;

/// FULLY_CONNECTED, integer. Mirrors LiteRT `reference_integer_ops::FullyConnected` /
/// `FullyConnectedPerChannel` (int8/int32, int16/int64): for each row and unit, sum
/// `weight · (input + input_offset)` over the row, add the bias, requantize with the unit's
/// multiplier (all equal for per-tensor weights), add the output zero point, clamp.
///
/// `weights` is `[out_c, accum_depth]`; `input` is `batches` rows of `accum_depth` (`p.act` is
/// unused: the clamp is `q.act_min..=q.act_max`).
pub fn fully_connected<T: QuantElem, A: Accumulator, B: Copy + Into<A>>(
    p: &FullyConnectedParams,
    q: &QuantParams,
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
            output[b * out_c + oc] = T::from_clamped(q.finish(acc, oc));
        }
    }
}
