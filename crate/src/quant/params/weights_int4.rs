//! Symmetric INT4 weights as AI Edge Quantizer 0.10 writes them (its `dynamic_wi4` and
//! `weight_only_wi4` recipes: `naive_min_max_quantize` → `uniform_quantize_tensor`), per channel
//! or per tensor. The values are stored two to a byte (`graph::dtype::pack_int4`).

use super::weights::QuantizedWeights;
use super::{check_finite, invalid};
use crate::error::Result;

/// Largest INT4 value: AI Edge Quantizer's symmetric scale is `max|w| / 7`.
pub const INT4_QMAX: i8 = 7;
/// Smallest INT4 value. Below 8 bits the quantizer does not narrow the range, so values are
/// clipped to `[−8, 7]` (symmetric rounding never reaches −8: `|w| / scale ≤ 7`).
pub const INT4_QMIN: i8 = -8;
/// The smallest bound AI Edge Quantizer divides by (`min_bound`), so an all-zero channel gets a
/// tiny scale, not 0.
const MIN_BOUND: f32 = 1e-9;

/// INT4 weights, one scale per slice along `axis` (per channel) or one for the tensor (`None`),
/// all in f32 as the quantizer's NumPy code computes them:
///
/// - `bound = max(|min|, |max|)` of the slice (f32), at least `f32(1e-9)`;
/// - `scale = bound / 7` (f32 division);
/// - `q = rint(w / scale)` (f32 division, round half to even), clipped to `[−8, 7]`;
/// - zero point 0.
///
/// # Errors
/// [`Error::Quantization`](crate::error::Error::Quantization) if `shape` does not hold
/// `w.len()` elements, `axis` is not one of its axes, or a weight is not finite.
pub fn weights_int4(w: &[f32], shape: &[usize], axis: Option<usize>) -> Result<QuantizedWeights> {
    check_finite("INT4 weights", w)?;
    if shape.iter().product::<usize>() != w.len() {
        return Err(invalid(
            "INT4 weights",
            format!("shape {shape:?} does not hold {} values", w.len()),
        ));
    }
    // Slices along `axis`: element i belongs to channel (i / inner) % channels.
    let (channels, inner) = match axis {
        None => (1, w.len().max(1)),
        Some(a) if a < shape.len() => (shape[a], shape[a + 1..].iter().product::<usize>()),
        Some(a) => {
            return Err(invalid(
                "INT4 weights",
                format!("axis {a} is not an axis of shape {shape:?}"),
            ));
        }
    };
    let channel = |i: usize| (i / inner.max(1)) % channels.max(1);
    let mut bound = vec![0f32; channels];
    for (i, &v) in w.iter().enumerate() {
        let b = &mut bound[channel(i)];
        *b = b.max(v.abs());
    }
    let scales: Vec<f32> = bound
        .iter()
        .map(|&b| b.max(MIN_BOUND) / f32::from(INT4_QMAX))
        .collect();
    let values = w
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let q = (v / scales[channel(i)]).round_ties_even();
            q.clamp(f32::from(INT4_QMIN), f32::from(INT4_QMAX)) as i8
        })
        .collect();
    Ok(QuantizedWeights {
        values,
        zero_points: vec![0; scales.len()],
        scales,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_channel_bounds_and_ties_to_even() {
        // Channel 0: bound 7, scale 1; channel 1 all zero: scale f32(1e-9) / 7, values 0.
        let q = weights_int4(&[7.0, 3.0, -7.0, 0.0, 0.0, 0.0], &[2, 3], Some(0)).expect("ok");
        assert_eq!(q.scales, vec![1.0, 1e-9f32 / 7.0]);
        assert_eq!(q.values, vec![7, 3, -7, 0, 0, 0]);
        assert_eq!(q.zero_points, vec![0, 0]);
        // Bound 14, scale 2: exact ties 1.5 and 2.5 round to even (2, 2), not away from zero.
        let q = weights_int4(&[3.0, 5.0, -14.0], &[3], None).expect("ok");
        assert_eq!(q.scales, vec![2.0]);
        assert_eq!(q.values, vec![2, 2, -7]);
    }

    #[test]
    fn per_tensor_and_axis_3() {
        let w: Vec<f32> = (0..12).map(|i| i as f32 - 6.0).collect();
        let q = weights_int4(&w, &[1, 2, 2, 3], Some(3)).expect("ok");
        assert_eq!(q.scales.len(), 3);
        let q = weights_int4(&w, &[1, 2, 2, 3], None).expect("ok");
        assert_eq!(q.scales, vec![6.0f32 / 7.0]);
        assert_eq!(q.values[0], -7);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(weights_int4(&[f32::NAN], &[1], None).is_err());
        assert!(weights_int4(&[1.0, 2.0], &[3], None).is_err());
        assert!(weights_int4(&[1.0, 2.0], &[2], Some(1)).is_err());
    }
}
