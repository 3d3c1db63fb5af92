//! FULLY_CONNECTED over integer tensors: int8 activations with int32 accumulators, int16
//! activations with int64 accumulators, int8 symmetric weights (per tensor or per channel).

use super::conv_int::{Accumulator, QuantElem, QuantParams};
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
            output[b * out_c + oc] = T::from_clamped(q.finish_double(acc, oc));
        }
    }
}
