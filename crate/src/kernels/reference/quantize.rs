//! DEQUANTIZE: int8 / int16 / uint8 (per tensor or per channel) and float16 to float32.

/// DEQUANTIZE of integers, per tensor. Mirrors LiteRT `reference_ops::Dequantize`: the product
/// `scale * (q - zero_point)` is formed in double precision and rounded once to float.
pub fn dequantize<T: Copy + Into<i32>>(
    scale: f32,
    zero_point: i32,
    input: &[T],
    output: &mut [f32],
) {
    let scale = f64::from(scale);
    for (o, &q) in output.iter_mut().zip(input) {
        let v: i32 = q.into();
        *o = (scale * f64::from(v - zero_point)) as f32;
    }
}

/// DEQUANTIZE of integers, per channel along one axis. Mirrors LiteRT
/// `reference_ops::PerChannelDequantize`: `scale[c] * (q - zero_point[c])` in float.
///
/// The tensor is viewed as `[outer, channels, inner]` around the quantized axis.
pub fn dequantize_per_channel<T: Copy + Into<i32>>(
    scales: &[f32],
    zero_points: &[i32],
    inner: usize,
    input: &[T],
    output: &mut [f32],
) {
    let channels = scales.len();
    for (i, (o, &q)) in output.iter_mut().zip(input).enumerate() {
        let c = (i / inner.max(1)) % channels.max(1);
        let v: i32 = q.into();
        *o = scales[c] * (v - zero_points[c]) as f32;
    }
}

/// IEEE 754 half precision to single precision (exact: every half is a float).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal half: value m · 2^-24; normalise into a float.
            let mut e: i32 = -14;
            let mut m = m;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (((e + 127) as u32) << 23) | ((m & 0x3ff) << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// DEQUANTIZE of float16 (little-endian bytes, two per element) to float32.
pub fn dequantize_f16(input: &[u8], output: &mut [f32]) {
    for (o, b) in output.iter_mut().zip(input.chunks_exact(2)) {
        *o = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_tensor_int8_uses_double_product() {
        let mut out = [0.0; 3];
        dequantize(0.5f32, -1, &[-128i8, -1, 127], &mut out);
        assert_eq!(out, [-63.5, 0.0, 64.0]);
        // 0.1f32 widened to double, times 3, rounded once.
        dequantize(0.1f32, 0, &[3i8], &mut out[..1]);
        assert_eq!(out[0], (f64::from(0.1f32) * 3.0) as f32);
    }

    #[test]
    fn per_channel_on_middle_axis() {
        // [1, 2 channels, 2 inner]
        let mut out = [0.0; 4];
        dequantize_per_channel(&[1.0, 0.25], &[0, 4], 2, &[1i8, 2, 4, 8], &mut out);
        assert_eq!(out, [1.0, 2.0, 0.0, 1.0]);
    }

    #[test]
    fn half_precision_values() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x0200), 2f32.powi(-15));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
        let mut out = [0.0; 2];
        dequantize_f16(&[0x00, 0x3c, 0x00, 0x38], &mut out);
        assert_eq!(out, [1.0, 0.5]);
    }
}
